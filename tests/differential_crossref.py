"""Generated BibTeX projects whose entries cross-reference each other across .bib files,
with BibTeX as the oracle of which ``crossref`` targets are missing (used by
test_differential.py and bench/agreement.py).

A case has one to three .bib files holding ``@proceedings`` parents and
``@inproceedings`` children whose ``crossref`` names a parent of any file (so before or
after the child, in its file or another) or none, in a random order; the document names
the files with ``\\bibliography{...}`` and cites some of the entries (now and then all,
with ``\\nocite{*}``).  A finding is
``CLASS CHILD PARENT``, the class saying where the parent stands relative to the child.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import Code
from differential import Tally, _run, folder_findings, run_cases, written_and_run


@dataclass
class CrossrefCase:
    seed: int
    #: the .bib files (without extension) in the order the document names them
    order: list[str]
    files: dict[str, str]
    #: (file number in ``order``, entry number) of every entry, by key
    places: dict[str, tuple[int, int]]
    #: the keys cited (every key with ``\\nocite{*}``)
    cited: set[str]


def crossref_case(seed: int) -> CrossrefCase:
    rng = random.Random(seed)
    names = [f"x{i}" for i in range(1, rng.randint(1, 3) + 1)]
    parents = [f"p{i}" for i in range(1, rng.randint(1, 3) + 1)]
    children = [f"c{i}" for i in range(1, rng.randint(1, 4) + 1)]
    blocks: dict[str, list[str]] = {name: [] for name in names}
    for p in parents:
        blocks[rng.choice(names)].append(f"@proceedings{{{p}, title = {{P}}, year = 2020}}")
    for c in children:
        target = rng.choice([*parents, "pnowhere"])
        entry = f"@inproceedings{{{c}, title = {{C}}, author = {{A. B}}, crossref = {{{target}}}}}"
        blocks[rng.choice(names)].append(entry)
    files: dict[str, str] = {}
    places: dict[str, tuple[int, int]] = {}
    order = names[:]
    rng.shuffle(order)
    for name in names:
        rng.shuffle(blocks[name])
        files[f"{name}.bib"] = "\n".join(blocks[name]) + "\n"
        for i, block in enumerate(blocks[name]):
            key = block[block.index("{") + 1 : block.index(",")]
            places[key] = (order.index(name), i)
    cited = [k for k in [*parents, *children] if rng.random() < 0.6] or children[:1]
    cite = f"\\cite{{{','.join(cited)}}}"
    if rng.random() < 0.1:
        cite, cited = "\\nocite{*}", [*parents, *children]
    files["main.tex"] = (
        f"\\documentclass{{article}}\n\\begin{{document}}\n{cite}\n"
        f"\\bibliographystyle{{plain}}\n\\bibliography{{{','.join(order)}}}\n\\end{{document}}\n"
    )
    return CrossrefCase(seed, order, files, places, set(cited))


def _finding(case: CrossrefCase, child: str, parent: str) -> str:
    at = case.places.get(parent)
    if at is None:
        cls = "nowhere"
    elif at[0] == case.places[child][0]:
        cls = "samefile"
    else:
        cls = "otherfile"
    return f"{cls}Q {child} {parent}"


_BAD = re.compile(r'A bad cross reference---entry "([^"]+)"\nrefers to entry "([^"]+)"')


def crossref_oracle(case: CrossrefCase, directory: Path) -> set[str] | None:
    """The bad cross references BibTeX reports; None when pdflatex failed."""
    if not written_and_run(case.files, directory):
        return None
    _run(["bibtex", "main"], directory)
    blg = (directory / "main.blg").read_text(errors="replace")
    return {_finding(case, child, parent) for child, parent in _BAD.findall(blg)}


def crossref_ours(case: CrossrefCase, directory: Path) -> set[str]:
    # a crossref to no entry is reported for every entry naming it, BibTeX only reads the
    # cited ones
    return {
        _finding(case, str(f.data["key"]), str(f.data["target"]))
        for f in folder_findings(directory)
        if f.code is Code.MISSING_CROSSREF and f.data["key"] in case.cited
    }


def run_crossref(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "crossref", crossref_case, crossref_oracle, crossref_ours)
