"""Seeded generator of biblatex projects with refsection units, compared with pdflatex +
biber: the citations biblatex leaves undefined once biber ran (the .log of a second
pdflatex run) and the entries no unit printed (the .bbl), against citewarden's dangling and orphan findings.

Each case: two to four .bib files, some named by ``\\addbibresource`` or
``\\addglobalbib``, one to three refsections with their own resources (with or without
``.bib``), citations inside and outside them, now and then a key defined nowhere or a
``\\nocite{*}`` inside a refsection.
"""

from __future__ import annotations

import random
import re
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings
from differential import Tally, _run

#: biblatex's warning on the run after biber, for a key its refsection did not find
_UNDEFINED = re.compile(r"Citation '([^']*)' on page \d+ undefined")
_ENTRY = re.compile(r"\\entry\{([^}]*)\}")


@dataclass
class UnitsCase:
    seed: int
    files: dict[str, str]
    #: every key the .bib files define
    defined: set[str]


def units_case(seed: int) -> UnitsCase:
    rng = random.Random(seed)
    n = 0
    bibs: dict[str, list[str]] = {}
    for b in range(rng.randint(2, 4)):
        keys = []
        for _ in range(rng.randint(1, 4)):
            n += 1
            keys.append(f"unitQ{n}")
        bibs[f"b{b}"] = keys
    every = [k for keys in bibs.values() for k in keys] + ["unitQ0"]  # unitQ0: nowhere
    names = list(bibs)

    def cites() -> list[str]:
        return [f"\\cite{{{k}}}" for k in rng.sample(every, rng.randint(0, 3))]

    preamble = ["\\documentclass{article}", "\\usepackage[backend=biber]{biblatex}"]
    for name in rng.sample(names, rng.randint(1, 2)):
        command = "addglobalbib" if rng.random() < 0.3 else "addbibresource"
        preamble.append(f"\\{command}{{{name}.bib}}")
    body = ["\\begin{document}", *cites()]
    for _ in range(rng.randint(1, 3)):
        own = ",".join(x + ".bib" for x in rng.sample(names, rng.randint(1, 2)))
        body += [f"\\begin{{refsection}}[{own}]", *cites()]
        if rng.random() < 0.2:
            body.append("\\nocite{*}")
        body += ["\\printbibliography", "\\end{refsection}", *cites()]
    body += ["\\printbibliography", "\\end{document}", ""]
    text = "\n".join(preamble + body)
    files = {"main.tex": text}
    defined: set[str] = set()
    for name, keys in bibs.items():
        files[f"{name}.bib"] = "".join(f"@misc{{{k}, title={{T}}}}\n" for k in keys)
        if f"{name}.bib" in text:  # a file no unit names is in no project
            defined.update(keys)
    return UnitsCase(seed, files, defined)


def units_oracle(case: UnitsCase, directory: Path) -> set[str] | None:
    """``dangling KEY`` for each citation biblatex leaves undefined after biber ran,
    ``orphan KEY`` for each entry no unit printed; None when biber failed."""
    for name, text in case.files.items():
        (directory / name).write_text(text, encoding="utf-8")
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], directory)
    if _run(["biber", "main"], directory).returncode != 0:
        return None  # biber 2.18 stops when the document-wide section reads no file
    blg = (directory / "main.blg").read_text(errors="replace")
    bbl_path = directory / "main.bbl"
    if "ERROR -" in blg or not bbl_path.exists():
        return None
    bbl = bbl_path.read_text(errors="replace")
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], directory)
    log = (directory / "main.log").read_text(errors="replace")
    orphans = case.defined - set(_ENTRY.findall(bbl))
    return {f"dangling {k}" for k in _UNDEFINED.findall(log)} | {f"orphan {k}" for k in orphans}


def units_ours(directory: Path) -> set[str]:
    ws = Workspace(Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        if path.suffix in (".tex", ".bib"):
            ws.add_file(path)
    found: set[str] = set()
    for findings in check(ws).values():
        for f in findings:
            if f.code is Code.DANGLING:
                found.add(f"dangling {f.data['key']}")
            elif f.code is Code.ORPHAN:
                found.add(f"orphan {f.data['key']}")
    return found


def run_units(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    tally = Tally()
    deadline = time.monotonic() + budget
    for seed in seeds:
        if time.monotonic() > deadline:
            break
        case = units_case(seed)
        with tempfile.TemporaryDirectory() as tmp:
            oracle = units_oracle(case, Path(tmp))
            if oracle is None:
                tally.skipped.append(f"units seed {seed}")
                continue
            tally.add(oracle, units_ours(Path(tmp)), f"units seed {seed}")
    return tally
