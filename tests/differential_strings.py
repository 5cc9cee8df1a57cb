"""Generated LaTeX projects whose .bib files use each other's ``@string`` macros, with
BibTeX and biber as the oracles of which macros are undefined where (used by
test_differential.py and bench/agreement.py).

A case has two to four .bib files, each defining a few macros named after it (``ms2x0`` is
defined in ``s2.bib``) and holding entries whose ``note`` is a macro: one of its own file
(before or after the definition), of another file (read before or after it), or of none.
The document names the files in a random order, with ``\\bibliography{...}`` (BibTeX) or
one ``\\addbibresource`` each (biber), and cites everything (``\\nocite{*}``).  A finding
is ``CLASS FILE MACRO``, the class saying where the macro is defined relative to the use.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import Code
from differential import Tally, _run, folder_findings, run_cases, written_and_run


@dataclass
class StringsCase:
    seed: int
    biblatex: bool
    #: the .bib files (without extension) in the order the document names them
    order: list[str]
    files: dict[str, str]


def strings_case(seed: int) -> StringsCase:
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(1, rng.randint(2, 4) + 1)]
    macros = {name: [f"m{name}x{j}" for j in range(rng.randint(0, 3))] for name in names}
    every = [m for ms in macros.values() for m in ms] + ["mnowhere"]
    files: dict[str, str] = {}
    number = 0
    for name in names:
        blocks = [f'@string{{{m} = "Value of {m}"}}' for m in macros[name]]
        for _ in range(rng.randint(1, 4)):
            number += 1
            blocks.append(f"@misc{{e{number}, title = {{T}}, note = {rng.choice(every)}}}")
        rng.shuffle(blocks)
        files[f"{name}.bib"] = "\n".join(blocks) + "\n"
    order = names[:]
    rng.shuffle(order)
    biblatex = rng.random() < 0.4
    if biblatex:
        head = ["\\usepackage[backend=biber]{biblatex}"]
        head += [f"\\addbibresource{{{name}.bib}}" for name in order]
        tail = ["\\printbibliography"]
    else:
        head = []
        tail = ["\\bibliographystyle{plain}", f"\\bibliography{{{','.join(order)}}}"]
    lines = ["\\documentclass{article}", *head, "\\begin{document}", "\\nocite{*}", *tail]
    files["main.tex"] = "\n".join([*lines, "\\end{document}", ""])
    return StringsCase(seed, biblatex, order, files)


def _finding(case: StringsCase, file: str, macro: str) -> str:
    """``CLASS FILE MACRO``: where ``macro`` is defined relative to ``file`` (own, earlier,
    later, nowhere)."""
    owner = re.fullmatch(r"m(s\d+)x\d+", macro)
    if owner is None:
        cls = "nowhere"
    elif owner.group(1) == file.removesuffix(".bib"):
        cls = "own"
    else:
        before = case.order.index(owner.group(1)) < case.order.index(file.removesuffix(".bib"))
        cls = "earlier" if before else "later"
    return f"{cls}Q {file} {macro}"


_BLG = re.compile(r'Warning--string name "([^"]+)" is undefined\n--line \d+ of file (\S+)')
#: biber's warning, in its copy of a data source (named by the MD5 of the source's name)
_MACRO = re.compile(r'/([0-9a-f]{32})_\d+\.utf8, line \d+, warning: undefined macro "([^"]+)"')


def strings_oracle(case: StringsCase, directory: Path) -> set[str] | None:
    """The undefined macros BibTeX (its .blg) or biber (its warnings) reports; None when
    a run failed."""
    if not written_and_run(case.files, directory):
        return None
    found: set[str] = set()
    if case.biblatex:
        run = _run(["biber", "main"], directory)
        names = {hashlib.md5(f"{n}.bib".encode()).hexdigest(): f"{n}.bib" for n in case.order}
        for digest, macro in _MACRO.findall(run.stdout):
            found.add(_finding(case, names[digest], macro))
        return found if run.returncode == 0 else None
    _run(["bibtex", "main"], directory)
    blg = (directory / "main.blg").read_text(errors="replace")
    return {_finding(case, file, macro) for macro, file in _BLG.findall(blg)}


def strings_ours(case: StringsCase, directory: Path) -> set[str]:
    return {
        _finding(case, f.location.path.name, str(f.data["name"]).lower())
        for f in folder_findings(directory)
        if f.code is Code.UNDEFINED_STRING
    }


def run_strings(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "strings", strings_case, strings_oracle, strings_ours)
