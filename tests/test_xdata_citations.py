"""A citation of an ``@xdata`` entry, checked against the tools: pandoc reports it not
found, and LaTeX undefined after biber; BibTeX cites it.  citewarden's dangling citations
are theirs."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding
from citewarden.project import Workspace
from citewarden.settings import Settings
from paths import PANDOC_RELEASES

_BOOK = "title={T}, author={A, B}, year=2000"

#: name -> (.bib text, the keys cited)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "xdata": (f"@xdata{{xd, publisher={{P}}}}\n@book{{b, {_BOOK}, xdata={{xd}}}}\n", ("xd", "b")),
    "upper-case-type": ("@XDATA{xd, publisher={P}}\n", ("xd",)),
    "xdata-then-book": (f"@xdata{{d, publisher={{P}}}}\n@book{{d, {_BOOK}}}\n", ("d",)),
    "book-then-xdata": (f"@book{{d, {_BOOK}}}\n@xdata{{d, publisher={{P}}}}\n", ("d",)),
    "commented-book": (f"@xdata{{d, publisher={{P}}}}\n% @book{{d, {_BOOK}}}\n", ("d",)),
}

_PANDOC_MISSING = re.compile(r"\[WARNING\] Citeproc: citation (\S+) not found")
_LATEX_UNDEFINED = re.compile(r"Citation [`'](.+?)' (?:on page \S+ )?undefined")


def _run(args: list[str], directory: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which(args[0]) is None:
        pytest.fail(f"{args[0]} is needed (scripts/system-deps installs it)", pytrace=False)
    return subprocess.run(
        args, cwd=directory, capture_output=True, text=True, timeout=120, check=False
    )


def _dangling(directory: Path, settings: Settings | None = None) -> list[Finding]:
    ws = Workspace(settings or Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        if path.suffix in (".md", ".tex", ".bib"):
            ws.add_file(path)
    return [f for fs in check(ws).values() for f in fs if f.code is Code.DANGLING]


def _keys(directory: Path, settings: Settings | None = None) -> list[str]:
    return sorted(str(f.data["key"]) for f in _dangling(directory, settings))


def pandoc_not_found(
    directory: Path, bib: str, keys: tuple[str, ...], pandoc: str = "pandoc"
) -> list[str]:
    (directory / "refs.bib").write_text(bib, encoding="utf-8")
    cites = "".join(f"See [@{k}].\n\n" for k in keys)
    (directory / "doc.md").write_text(
        f"---\nbibliography: refs.bib\n---\n\n{cites}", encoding="utf-8"
    )
    run = _run([pandoc, "--citeproc", "-t", "plain", "doc.md"], directory)
    assert run.returncode == 0, run.stderr
    return sorted(_PANDOC_MISSING.findall(run.stderr))


def latex_undefined(directory: Path, bib: str, keys: tuple[str, ...], backend: str) -> list[str]:
    (directory / "refs.bib").write_text(bib, encoding="utf-8")
    cites = "".join(f"\\cite{{{k}}}\n" for k in keys)
    if backend == "biber":
        preamble, ending = (
            "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n",
            ("\\printbibliography\n"),
        )
    else:
        preamble, ending = "", "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    (directory / "main.tex").write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{cites}{ending}"
        "\\end{document}\n",
        encoding="utf-8",
    )
    latex = ["pdflatex", "-interaction=nonstopmode", "main.tex"]
    _run(latex, directory)
    tool = _run([backend, "main"], directory)
    assert tool.returncode == 0 or "Repeated entry" in tool.stdout, tool.stdout
    _run(latex, directory)
    log = _run(latex, directory).stdout
    return sorted(set(_LATEX_UNDEFINED.findall(log)))


@pytest.mark.parametrize("name", list(CASES))
def test_a_cited_xdata_entry_dangles_where_pandoc_does_not_find_it(
    tmp_path: Path, name: str
) -> None:
    bib, keys = CASES[name]
    not_found = pandoc_not_found(tmp_path, bib, keys)
    assert _keys(tmp_path) == not_found


@pytest.mark.parametrize("backend", ["biber", "bibtex"])
@pytest.mark.parametrize("name", list(CASES))
def test_a_cited_xdata_entry_dangles_where_latex_leaves_it_undefined(
    tmp_path: Path, name: str, backend: str
) -> None:
    bib, keys = CASES[name]
    undefined = latex_undefined(tmp_path, bib, keys, backend)
    assert _keys(tmp_path) == undefined


def test_the_message_says_why(tmp_path: Path) -> None:
    bib, keys = CASES["xdata"]
    assert pandoc_not_found(tmp_path, bib, keys) == ["xd"]
    (finding,) = _dangling(tmp_path)
    assert finding.message == (
        "citation key 'xd' names an @xdata entry, which pandoc never cites (its warning: the "
        "citation is not found): an @xdata entry only lends its fields to the entries naming "
        "it in their xdata field; cite one of those"
    )
    assert finding.location.path == tmp_path / "doc.md"


def test_a_references_item_of_the_document_is_cited_instead(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@xdata{xd, publisher={P}}\n", encoding="utf-8")
    (tmp_path / "doc.md").write_text(
        "---\nbibliography: refs.bib\nreferences:\n- id: xd\n  title: X\n---\n\n[@xd]\n",
        encoding="utf-8",
    )
    run = _run(["pandoc", "--citeproc", "-t", "plain", "doc.md"], tmp_path)
    assert "not found" not in run.stderr
    assert _keys(tmp_path) == []


#: @commentary entries with the key of an @xdata entry, which pandoc before 3.9 skips, the
#: later ones read
COMMENTARY_CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "commentary-then-xdata": (
        "@misc{good, title={G}}\n@commentary{xd, title={C}}\n@xdata{xd, publisher={P}}\n",
        ("good", "xd"),
    ),
    "xdata-then-commentary": (
        "@xdata{xd, publisher={P}}\n@commentary{xd, title={C}}\n@misc{good, title={G}}\n",
        ("good", "xd"),
    ),
}


@pytest.mark.parametrize("version", ["2.17", "3.9"])
@pytest.mark.parametrize("name", list(COMMENTARY_CASES))
def test_an_xdata_key_an_entry_pandoc_skips_has_too(
    tmp_path: Path, name: str, version: str
) -> None:
    pandoc = "pandoc" if version == "2.17" else str(PANDOC_RELEASES[version])
    if version != "2.17" and not Path(pandoc).exists():
        pytest.fail(f"pandoc {version} is needed (scripts/test installs it)", pytrace=False)
    bib, keys = COMMENTARY_CASES[name]
    not_found = pandoc_not_found(tmp_path, bib, keys, pandoc)
    assert not_found == (["xd"] if version == "2.17" else [])
    assert _keys(tmp_path, Settings(pandoc_version=version)) == not_found
