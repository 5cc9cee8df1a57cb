"""The citation commands the LaTeX reader knows, compared with the packages that define
them: a document using every name (and its capitalised form) under biblatex, natbib,
apacite, chicago, harvard and cite, run through pdflatex and biber or BibTeX.  A command counts
where one of them writes its key for BibTeX or biber; one no package defines
(``\\citeurldate``, ``\\Citeurl``, ``\\Supercite``, ``\\msmartcite`` ...) stops LaTeX
with an undefined control sequence and cites nothing."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from citewarden.parsing.latex import parse_latex
from citewarden.parsing.latex_commands import (
    CITE_COMMANDS,
    MCITE_COMMANDS,
    MULTICITE_COMMANDS,
    MULTIVOLCITE_COMMANDS,
    VOLCITE_COMMANDS,
)
from test_real_tools import _require_tools

_KNOWN = (
    CITE_COMMANDS | MULTICITE_COMMANDS | VOLCITE_COMMANDS | MULTIVOLCITE_COMMANDS | MCITE_COMMANDS
)
#: every known name, its capitalised form, and names read before that no package defines
_NAMES = sorted(
    {m for n in _KNOWN | {"citeurldate", "msmartcite"} for m in (n, n[0].upper() + n[1:])}
)
#: (preamble, bibliography, backend) of each setup
_SETUPS = {
    "biblatex": (
        "\\usepackage[backend=biber,mcite,natbib]{biblatex}\n\\addbibresource{refs.bib}\n",
        "\\printbibliography\n",
        "biber",
    ),
    "natbib": (
        "\\usepackage{natbib}\n\\usepackage{bibentry}\n\\nobibliography*\n",
        "\\bibliographystyle{plainnat}\n\\bibliography{refs}\n",
        "bibtex",
    ),
    "apacite": (
        "\\usepackage[natbibapa]{apacite}\n",
        "\\bibliographystyle{apacite}\n\\bibliography{refs}\n",
        "bibtex",
    ),
    "chicago": ("\\usepackage{chicago}\n", "\\bibliographystyle{chicago}\n\\bibliography{refs}\n", "bibtex"),
    "harvard": ("\\usepackage{harvard}\n", "\\bibliographystyle{agsm}\n\\bibliography{refs}\n", "bibtex"),
    "cite": ("\\usepackage{cite}\n", "\\bibliographystyle{plain}\n\\bibliography{refs}\n", "bibtex"),
}  # fmt: skip
#: names the setups cannot show defined, each with the package that defines it: apacite's
#: commands it defines without natbibapa only (apacite so stops this LaTeX: "TeX capacity
#: exceeded" at \\begin{document}), biblatex-chicago's \\Shortcite, and biblatex 3.18's \\Ftvolcites,
#: defined as \\Footcitetext of a volume list (so it cites nothing here)
_NOT_SHOWN = {
    **dict.fromkeys(
        (
            "citeauthorNP", "fullciteA", "fullciteN", "fullciteNP", "fullciteauthor",
            "fullciteauthorNP", "maskciteA", "maskciteNP", "shortciteauthor",
            "shortciteauthorNP",
        ),
        "apacite",
    ),
    "Shortcite": "biblatex-chicago",
    "Ftvolcites": "biblatex",
}  # fmt: skip


def _use(name: str, key: str) -> str:
    if name in VOLCITE_COMMANDS or name in MULTIVOLCITE_COMMANDS:
        return f"\\{name}{{2}}{{{key}}}"
    if name.lower() == "citefield":
        return f"\\{name}{{{key}}}{{title}}"
    if name.lower() in ("citelist", "citename"):
        return f"\\{name}{{{key}}}{{author}}"
    return f"\\{name}{{{key}}}"


def _cited(directory: Path, setup: str) -> set[str]:
    """The names whose key the setup's tools cite (one key per name)."""
    head, tail, backend = _SETUPS[setup]
    keys = {f"k{i}": name for i, name in enumerate(_NAMES)}
    directory.mkdir()
    (directory / "refs.bib").write_text(
        "".join(
            f"@book{{{k}, title={{T}}, author={{Aa, Bb}}, year={{2000}}, publisher={{P}}}}\n"
            for k in keys
        ),
        encoding="utf-8",
    )
    body = "".join(f"{_use(name, key)}.\n\n" for key, name in keys.items())
    (directory / "main.tex").write_text(
        f"\\documentclass{{article}}\n{head}\\begin{{document}}\n{body}{tail}\\end{{document}}\n",
        encoding="utf-8",
    )
    for args in (["pdflatex", "-interaction=nonstopmode", "main"], [backend, "main"]):
        subprocess.run(args, cwd=directory, capture_output=True, timeout=300, check=False)
    if backend == "biber":
        bbl = (directory / "main.bbl").read_text(errors="replace")
        found = set(re.findall(r"\\entry\{([^}]*)\}", bbl))
    else:
        aux = (directory / "main.aux").read_text(errors="replace")
        found = {
            k.strip() for ks in re.findall(r"\\citation\{([^}]*)\}", aux) for k in ks.split(",")
        }
    return {keys[k] for k in found if k in keys}


def test_the_citation_commands_read_are_those_the_packages_define(tmp_path: Path) -> None:
    _require_tools()
    cited: set[str] = set()
    for setup in _SETUPS:
        cited |= _cited(tmp_path / setup, setup)
    read = {
        name
        for name in _NAMES
        if parse_latex(Path("/p/main.tex"), _use(name, "k") + "\n").citations
    }
    assert cited - read == set()
    assert read - cited == set(_NOT_SHOWN)
    assert {"citeurldate", "Citeurl", "Supercite", "Fullcite", "msmartcite"} <= set(_NAMES) - read
