"""Time the reading of the citations of YAML metadata strings, which pandoc reads as
Markdown documents of their own: ``string_citations`` alone on 10 000 strings of each
shape, and the whole reading of a document whose front matter holds them.

Shapes: one-line strings with ``@``, multi-line (``|`` block) strings with ``@``, strings
that start with a space or a bracket (read by the block pass though on one line).  Prints
the best of ``--repeat`` runs in processor time (``time.process_time``), per string and in
all.

Usage: ``python bench/metadata_strings_bench.py [--strings 10000] [--repeat 5]``
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.parsing.markdown_blocks import string_citations  # noqa: E402
from markdown_blocks_bench import best_of  # noqa: E402

#: each shape: (a string's value, the same as a field of a front matter)
SHAPES: dict[str, Callable[[int], tuple[str, str]]] = {
    "one line": lambda i: (
        f"See @k{i} and [@j{i}, p. 3].",
        f"f{i}: See @k{i} and [@j{i}, p. 3].\n",
    ),
    "block, 3 lines": lambda i: (
        f"First line cites @k{i},\nthe second [@j{i}],\nthe third `code` here.\n",
        f"f{i}: |\n  First line cites @k{i},\n  the second [@j{i}],\n  the third `code` here.\n",
    ),
    "block, 2 paragraphs": lambda i: (
        f"One @k{i}.\n\nTwo [@j{i}].\n",
        f"f{i}: |\n  One @k{i}.\n\n  Two [@j{i}].\n",
    ),
    "starts with a bracket": lambda i: (
        f"[@k{i}] says so.",
        f"f{i}: '[@k{i}] says so.'\n",
    ),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--strings", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    path = Path("bench.md")
    print("| strings | string_citations ms | us a string | whole document ms |")
    print("|---|---|---|---|")
    for name, make in SHAPES.items():
        pairs = [make(i) for i in range(args.strings)]
        values = [value for value, _ in pairs]
        text = "---\n" + "".join(field for _, field in pairs) + "---\n\nBody.\n"
        alone = best_of(args.repeat, lambda v=values: [string_citations(s) for s in v])
        whole = best_of(max(1, args.repeat // 2), lambda t=text: parse_markdown(path, t))
        print(
            f"| {name} | {alone * 1e3:.1f} | {alone * 1e6 / len(values):.1f} | {whole * 1e3:.1f} |"
        )


if __name__ == "__main__":
    main()
