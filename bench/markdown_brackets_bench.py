"""Time the Markdown reading of citation brackets as each pandoc version reads them, on
documents of one shape each: nests of brackets holding nested braced keys with a bracket
(``[@{a{b{]}}}`` n deep, which pandoc 3 before 3.8 reads as text), braced keys holding a
bracket in a flat group, plain groups, and raw TeX blocks in brackets (and commands and
environments that are none, in brackets left open), raw TeX passed over where pandoc looks
for a bracket's ``]`` (pandoc 2 over blank lines), and raw TeX blocks and block elements'
tags in a paragraph's text (each starts a block after it).  Prints the best of ``--repeat`` runs at
``--pieces`` and four times as many, so that the ratio shows whether a reading stays
linear (about 4).

Usage: ``python bench/markdown_brackets_bench.py [--pieces 2000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.parsing.pandoc_syntax import PANDOC_2, PANDOC_3, PANDOC_3_9  # noqa: E402
from markdown_blocks_bench import best_of  # noqa: E402

SHAPES: dict[str, Callable[[int], str]] = {
    "nest of [@{a{b{]}}}": lambda n: "[@{a{b{]}}}" * n + "]" * n + "\n",
    "nest of [@{a{[b}}": lambda n: "[@{a{[b}}" * n + "]" * n + "\n",
    "group of @{a]b} keys": lambda n: "[" + "@{a]b}; " * n + "]\n",
    "plain groups": lambda n: "[see @k, p. 3; @j] " * n + "\n",
    "raw TeX blocks in brackets": lambda n: "[see \\section{y} @k] " * n + "\n",
    "commands in brackets left open": lambda n: "[\\section @k " * n + "\n",
    "environments in brackets, never closed": lambda n: "[\\begin{e} @k " * n + "\n",
    "raw TeX passed over in brackets": lambda n: "[\\textbf{[}\n\n\\b ] @k " * n + "\n",
    "raw TeX blocks in a paragraph's text": lambda n: "x \\par @k \\maketitle\\bf " * n + "\n",
    "tags in a paragraph's text": lambda n: "x <div> @k " * n + "\n",
}
DIALECTS = {"2": PANDOC_2, "3.0-3.7": PANDOC_3, "3.9": PANDOC_3_9}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pieces", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    path = Path("bench.md")
    print("| document | pandoc | ms at n | ms at 4 n | ratio |")
    print("|---|---|---|---|---|")
    for name, make in SHAPES.items():
        small, large = make(args.pieces), make(4 * args.pieces)
        for version, dialect in DIALECTS.items():
            a = best_of(args.repeat, lambda t=small, d=dialect: parse_markdown(path, t, d))
            b = best_of(args.repeat, lambda t=large, d=dialect: parse_markdown(path, t, d))
            print(f"| {name} | {version} | {a * 1e3:.1f} | {b * 1e3:.1f} | {b / a:.1f} |")


if __name__ == "__main__":
    main()
