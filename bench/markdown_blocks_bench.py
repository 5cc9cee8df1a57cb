"""Time the Markdown readers on documents of one shape each: the block pass alone
(code blocks, raw HTML, metadata) and the whole reading as pandoc 3.9 reads a document.

Each shape is a piece repeated ``--pieces`` times: paragraphs, list items with
continuations and quotes, nested lists and quotes, headings followed by indented code,
footnotes, fences that no later fence closes, nested divs.  ``--dir`` adds the Markdown
files found under a directory, joined into one document.  Prints the size, the best of
``--repeat`` runs of each reader and the time per kilobyte, so that runs at two sizes show
whether a reader stays linear.

Usage: ``python bench/markdown_blocks_bench.py [--pieces 4000] [--repeat 3] [--dir DIR]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.parsing.markdown_blocks import block_structure  # noqa: E402

SHAPES: dict[str, Callable[[int], str]] = {
    "paragraphs": lambda i: f"Paragraph {i} cites @k{i} and more words here.\n\n",
    "list items": lambda i: f"- item {i} [@k{i}]\n    more {i}\n\n  > quote [@q{i}]\n",
    "nested lists": lambda i: "  " * (i % 20) + f"- item {i} @k{i}\n",
    "nested quotes": lambda i: "> " * (i % 30) + f"line {i} @k{i}\n",
    "heading, code": lambda i: f"# h{i}\n    code {i}\n",
    "footnotes": lambda i: f"[^{i}]: note {i} @k{i}\n    more\n\n",
    "unclosed fences": lambda i: "~" * (4 + i % 50) + f"\ntext @a{i}\n\n",
    "mixed": lambda i: f"# H{i}\n\n    code\n\n```\nf\n```\n\n::: d\ntext [@d{i}]\n:::\n\n",
}


def best_of(repeat: int, run: Callable[[], object]) -> float:
    """The shortest of ``repeat`` timed runs, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pieces", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", type=Path, help="add the Markdown files under DIR as one text")
    args = ap.parse_args()
    docs = [(name, "".join(make(i) for i in range(args.pieces))) for name, make in SHAPES.items()]
    if args.dir:
        files = sorted(args.dir.rglob("*.md"))
        docs.append(
            (f"{len(files)} files", "\n\n".join(f.read_text(errors="replace") for f in files))
        )
    path = Path("bench.md")
    print("| document | KB | block pass ms | whole reading ms | us/KB (whole) |")
    print("|---|---|---|---|---|")
    for name, text in docs:
        blocks = best_of(args.repeat, lambda t=text: block_structure(path, t))
        whole = best_of(args.repeat, lambda t=text: parse_markdown(path, t))
        kb = len(text.encode()) / 1024
        print(
            f"| {name} | {kb:.0f} | {blocks * 1e3:.1f} | {whole * 1e3:.1f} | {whole * 1e6 / kb:.0f} |"
        )


if __name__ == "__main__":
    main()
