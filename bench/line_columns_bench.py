"""Time a position and an offset on one long line that is not ASCII, in UTF-16 and UTF-8
units, as the index of a file on disk (``LineIndex``) and of an open buffer
(``SparseIndex``) give them: what a diagnostic or a request at the end of such a line costs.

Usage: ``python bench/line_columns_bench.py [--pieces 250000]`` (a piece is ``"word é 😀 "``)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.lsp.documents import SparseIndex  # noqa: E402
from citewarden.text import Encoding, LineIndex  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pieces", type=int, default=250_000)
    args = ap.parse_args()
    line = "word é 😀 " * args.pieces
    text = line + "\n"
    at = len(line) - 5
    print(f"one line of {len(line) / 1e6:.1f} M characters")
    for name, index in (("LineIndex", LineIndex(text)), ("SparseIndex", SparseIndex(text))):
        for encoding in (Encoding.UTF16, Encoding.UTF8):
            start = time.perf_counter()
            position = index.position(at, encoding)
            middle = time.perf_counter()
            back = index.offset(position, encoding)
            end = time.perf_counter()
            assert back == at
            print(
                f"{name:12} {encoding.value:6} position {1e3 * (middle - start):7.1f} ms"
                f"   offset {1e3 * (end - middle):7.1f} ms"
            )


if __name__ == "__main__":
    main()
