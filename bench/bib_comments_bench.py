"""Re-checks of biber and pandoc projects whose 20 000-entry .bib holds ``%`` signs.

biber and pandoc read a ``%`` between entries as a comment (BibTeX reads none), so on every
version of such a bibliography citewarden finds the text they skip
(:mod:`citewarden.parsing.bib_comments`); the index bench's project is a BibTeX one and
never does.  Three cases, each for a Markdown (pandoc) and a LaTeX (biblatex + biber)
project citing every 7th entry, each in a fresh subprocess:

* url: every entry has ``url = {https://doi.org/10.1000/a%20b<i>}`` (a ``%`` in a read
  entry is text); one title edited, then a check, three times;
* comment lines: a ``% a comment <i>`` line after each entry and ``50% off`` in each title;
  three key edits and three title edits, each followed by a check;
* document edit: the same file with one entry of a duplicate field (a reading problem,
  kept or dropped by where it stands), and the document edited four times: the .bib is
  unchanged, so nothing of its reading should be done again.

Run: ``.venv/bin/python bench/bib_comments_bench.py`` (``--server DIR`` imports
citewarden from another checkout's ``server`` folder, for a before/after comparison).
Prints the median of each case's checks, in ms.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = 20_000
CASES = ["url", "comment-lines", "document-edit"]


def _bib(case: str, n: int) -> str:
    if case == "url":
        return "".join(
            f"@article{{k{i},\n  title = {{Title {i}}},\n"
            f"  url = {{https://doi.org/10.1000/a%20b{i}}},\n}}\n\n"
            for i in range(n)
        )
    text = "".join(
        f"@article{{k{i},\n  title = {{Title {i} 50% off}},\n"
        f"  url = {{http://x.org/a%20b{i}}},\n}}\n% a comment {i}\n"
        for i in range(n)
    )
    if case == "document-edit":
        text += "@misc{dup, title={A}, title={B}}\n"
    return text


def _document(kind: str, n: int) -> str:
    if kind == "md":
        return "---\nbibliography: refs.bib\n---\n\n" + " ".join(f"[@k{i}]" for i in range(0, n, 7))
    return (
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n"
        + "\n".join(f"\\cite{{k{i}}}" for i in range(0, n, 7))
        + "\n\\printbibliography\n\\end{document}\n"
    )


def measure(case: str, kind: str, folder: Path, n: int) -> dict[str, object]:
    from citewarden.checks import Checker
    from citewarden.project import Workspace, normalize_path

    bib = _bib(case, n)
    name = "doc.md" if kind == "md" else "main.tex"
    doc = _document(kind, n)
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    (folder / name).write_text(doc, encoding="utf-8")
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    checker = Checker()
    t0 = time.perf_counter()
    checker.check(ws)
    first = time.perf_counter() - t0
    times: list[float] = []

    def edit(path: Path, text: str) -> None:
        ws.set_text(normalize_path(path), text)
        t0 = time.perf_counter()
        checker.check(ws)
        times.append(time.perf_counter() - t0)

    if case == "document-edit":
        cite = "[@k7]" if kind == "md" else "\\cite{k7}"
        for _ in range(4):
            doc = doc.replace(cite, cite + " x", 1)
            edit(folder / name, doc)
    else:
        if case == "comment-lines":
            for step in range(3):
                bib = bib.replace(f"@article{{k{5000 + step},", f"@article{{k{5000 + step}x,", 1)
                edit(folder / "refs.bib", bib)
        for step in range(3):
            title = f"Title {9000 + step}"
            bib = bib.replace(title, title + "x", 1)
            edit(folder / "refs.bib", bib)
    return {"first_s": first, "checks_s": times}


def _child(case: str, kind: str, n: int, server: Path) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="citewarden-bench-") as tmp:
        env = dict(os.environ, PYTHONPATH=str(server))
        proc = subprocess.run(
            [sys.executable, __file__, "--child", case, kind, tmp, str(n)],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--entries", type=int, default=ENTRIES)
    ap.add_argument("--runs", type=int, default=1, help="subprocesses per case (medians)")
    ap.add_argument("--server", type=Path, default=ROOT / "server")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        case, kind, folder, n = args.child
        print(json.dumps(measure(case, kind, Path(folder), int(n))))
        return 0
    print(f"citewarden from {args.server}; {args.entries} entries; median re-check, ms")
    for case in CASES:
        for kind in ("md", "tex"):
            checks: list[float] = []
            firsts: list[float] = []
            for _ in range(args.runs):
                found = _child(case, kind, args.entries, args.server)
                if "error" in found:
                    print(f"  {case:14} {kind:3}  failed: {found['error']}")
                    break
                runs = found["checks_s"]
                first = found["first_s"]
                assert isinstance(runs, list) and isinstance(first, float)
                checks += runs
                firsts.append(first)
            else:
                print(
                    f"  {case:14} {kind:3}  re-check median {statistics.median(checks) * 1000:6.0f}"
                    f" (min {min(checks) * 1000:.0f}, max {max(checks) * 1000:.0f},"
                    f" {len(checks)} checks)   first check {statistics.median(firsts):.2f} s"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
