"""Time the reading of raw TeX commands in Markdown (where each command's arguments
close) on documents of one shape each, with the table of closings
(:class:`citewarden.parsing.tex_brackets.TexBrackets`) and with a reading from each
argument's opening, as before it.  Prints the best of ``--repeat`` runs at ``--pieces``
and four times as many, so that the ratio shows whether a reading stays linear (about 4),
and how many commands the reading from each opening read without their arguments at
4 n, its budget spent (the table, charged to no budget, reads them all).

Usage: ``python bench/raw_tex_bench.py [--pieces 3000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.markdown_inline import _RawTex  # noqa: E402
from markdown_blocks_bench import best_of  # noqa: E402

SHAPES: dict[str, Callable[[int], str]] = {
    "unclosed \\def\\x{": lambda n: "\\def\\x{" * n,
    "unclosed \\x[": lambda n: "\\x[" * n,
    "unclosed \\a{ , then \\emph{x}": lambda n: "\\a{ " * n + "\\emph{x} " * (n // 10),
    "nested closed \\emph{": lambda n: ("\\emph{" * 50 + "a" + "}" * 50 + " ") * (n // 50),
    "options, groups, comments": lambda n: "\\textbf[{a} \\y{b [c] \\z{ % }\n" * (n // 4),
    "options holding unclosed {": lambda n: "\\a[{ " * n + "x] " * (n // 10),
    "\\emph % c, a chain by lines": lambda n: "\\emph % c\n" * n,
    "font switches on one line": lambda n: "\\bf y " * n,
    "font switches in groups": lambda n: "{\\bf y} " * n,
    "a font switch's text of commands": lambda n: "\\bf " + "\\foo{y} " * n,
    "units without braces by lines": lambda n: "\\si m\n" * n,
    "units and switches over blank lines": lambda n: "\\si m \\bf y\n\n" * (n // 2),
    "braces read as text, failing inside": lambda n: "\\href{u}{\\footnote{\\gls}} " * (n // 3),
    "braces read as text, of commands": lambda n: (
        ("\\emph{" + "\\textbf{y} " * 50 + "} ") * (n // 50)
    ),
}


def read_all(text: str, table: bool) -> list[int]:
    """The end of every command of ``text``."""
    raw = _RawTex(text, table=table)
    ends = []
    i = text.find("\\")
    while i >= 0:
        ends.append(raw.end(i))
        i = text.find("\\", i + 1)
    return ends


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pieces", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    print("| document | KB at n | reading | ms at n | ms at 4 n | ratio | cut short at 4 n |")
    print("|---|---|---|---|---|---|---|")
    for name, make in SHAPES.items():
        small, large = make(args.pieces), make(4 * args.pieces)
        whole = read_all(large, True)
        for table, label in ((False, "from each opening"), (True, "table")):
            a = best_of(args.repeat, lambda t=small, f=table: read_all(t, f))
            b = best_of(args.repeat, lambda t=large, f=table: read_all(t, f))
            short = sum(x != y for x, y in zip(read_all(large, table), whole, strict=True))
            kb = len(small) / 1024
            row = f"{a * 1e3:.1f} | {b * 1e3:.1f} | {b / a:.1f} | {short} of {len(whole)}"
            print(f"| {name} | {kb:.0f} | {label} | {row} |")


if __name__ == "__main__":
    main()
