"""pandoc's crossref/xdata resolution followed for every cited entry of a long chain.

A chain ``k0 -> k1 -> ... -> kL`` of crossref fields, plus an unrelated entry naming
itself (so the file has a loop, and each cited entry's resolution is followed step by
step): the loops of the file with every entry cited, and with ``k0`` alone cited.  Then
``citewarden check``'s checks on a Markdown document citing every key of such a chain.

    python bench/pandoc_loops_bench.py [--lengths 1000,2000,4000] [--check 800]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from citewarden.checks import Checker
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.pandoc_crossref import pandoc_loops
from citewarden.project import Workspace
from citewarden.settings import Settings


def chain(length: int) -> str:
    """The .bib text of a chain of ``length`` links and an entry naming itself."""
    links = "".join(f"@book{{k{i}, title={{T}}, crossref={{k{i + 1}}}}}\n" for i in range(length))
    return links + "@book{z, crossref={z}}\n"


def loops(length: int) -> None:
    entries = list(parse_bibtex(Path("refs.bib"), chain(length)).entries)
    start = time.perf_counter()
    every = pandoc_loops(entries, None)
    all_cited = time.perf_counter() - start
    start = time.perf_counter()
    pandoc_loops(entries, {"k0"})
    one = time.perf_counter() - start
    print(
        f"L={length}: every entry cited {all_cited:.3f} s, k0 cited {one:.3f} s, loops {len(every)}"
    )


def check(length: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "refs.bib").write_text(chain(length), encoding="utf-8")
        cites = " ".join(f"[@k{i}]" for i in range(length + 1))
        (directory / "doc.md").write_text(
            f"---\nbibliography: refs.bib\n---\n\n{cites}\n", encoding="utf-8"
        )
        ws = Workspace(Settings(), root=directory)
        for path in sorted(directory.iterdir()):
            ws.add_file(path)
        start = time.perf_counter()
        found = Checker().check(ws)
        took = time.perf_counter() - start
        count = sum(len(f) for f in found.values())
        print(f"check, every key of a chain of {length} cited: {took:.2f} s, {count} findings")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="1000,2000,4000")
    parser.add_argument("--check", type=int, default=800, help="chain length of the check")
    args = parser.parse_args()
    for length in (int(n) for n in args.lengths.split(",")):
        loops(length)
    check(args.check)


if __name__ == "__main__":
    main()
