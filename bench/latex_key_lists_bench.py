"""LaTeX reader: citation key lists of any length, and lists never closed.

A key list is read whole whatever its length (LaTeX reads a ``\\nocite`` of thousands of
keys); one never closed ends at the next command once the list of the next ``\\cite{``
nests in it, so the reading stays linear.  Prints the processor time of ``parse_latex``
(best of ``--repeat``) on generated bodies at ``--size`` and four times that: the second
figure about four times the first is linear.

Usage: ``.venv/bin/python bench/latex_key_lists_bench.py [--size 50000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.latex import parse_latex  # noqa: E402

#: name -> body of n units
BODIES: dict[str, Callable[[int], str]] = {
    "one \\nocite of n keys": lambda n: "\\nocite{" + ",".join(f"k{i}" for i in range(n)) + "}",
    "n \\cite never closed": lambda n: "\\cite{a " * n,
    "n \\cite never closed, a command after each": lambda n: "\\cite{a \\x " * n,
    "n \\cite, every other one never closed": lambda n: "\\cite{a} text \\cite{b" * n,
    "one \\cite never closed, 20 n characters": lambda n: "\\cite{" + "a" * (20 * n),
}


def timed(body: str, repeat: int) -> tuple[float, int]:
    text = "\\documentclass{article}\n\\begin{document}\n" + body + "\n\\end{document}\n"
    best = float("inf")
    count = 0
    for _ in range(repeat):
        start = time.process_time()
        count = len(parse_latex(Path("/bench/main.tex"), text).citations)
        best = min(best, time.process_time() - start)
    return best, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for name, body in BODIES.items():
        figures = []
        for n in (args.size, 4 * args.size):
            seconds, count = timed(body(n), args.repeat)
            figures.append(f"n={n}: {seconds:.3f} s ({count} citations)")
        print(f"{name}: " + "; ".join(figures))


if __name__ == "__main__":
    main()
