"""LaTeX reader: what a file's own citation macros cost.

Each definition of a citation macro changes the reader's table of commands; past
``MANY_MACROS`` definitions in a file the rest are read ahead and the table is built once
more (``citewarden/parsing/latex.py``).  Prints the wall time of ``citewarden check
--no-verify`` (in this process, best of ``--repeat``) on generated inputs:

* one file defining N wrappers (``\\newcommand{\\cmX}[1]{\\cite{#1}}``), then using the last;
* one file with N multibib lists (``\\newcites``, three commands each);
* a project of F files, each defining M wrappers and citing with one of them;
* a document of S MB (the LaTeX of tests/data/documents repeated) with two wrappers:
  the ordinary case, to see that it does not pay for the above;
* a file of B blocks of 700 definitions whose bodies never close (``\\def\\x{``), each
  block ended by a comment and a ``}``: every body's closing is looked for over the
  5 000 characters after it (``citewarden/parsing/tex_closings.py``);
* a paragraph of O ``\\cite[`` whose options never close: every option is read over the
  2 000 characters after it (``citewarden/parsing/latex_options.py``).

Usage: ``.venv/bin/python bench/latex_macros_bench.py [--macros 3000] [--files 50]
[--per-file 60] [--mb 35] [--bodies 150] [--options 150000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.audit import run_audit  # noqa: E402
from citewarden.parsing.latex import MANY_MACROS  # noqa: E402
from citewarden.settings import Settings  # noqa: E402


def name(i: int) -> str:
    """Letters for a number (TeX command names take no digits)."""
    return "".join(chr(ord("a") + int(d)) for d in str(i))


def one_file(folder: Path, count: int) -> Path:
    lines = ["\\documentclass{article}"]
    lines += [f"\\newcommand{{\\cm{name(i)}}}[1]{{\\cite{{#1}}}}" for i in range(count)]
    lines += ["\\begin{document}", f"\\cm{name(count - 1)}{{k}}", "\\bibliography{refs}"]
    lines.append("\\end{document}")
    (folder / "refs.bib").write_text("@misc{k, title={K}}\n")
    path = folder / "many.tex"
    path.write_text("\n".join(lines) + "\n")
    return path


def lists(folder: Path, count: int) -> Path:
    lines = ["\\documentclass{article}"]
    lines += [f"\\newcites{{l{name(i)}}}{{List {i}}}" for i in range(count)]
    last = f"l{name(count - 1)}"
    lines += ["\\begin{document}", f"\\cite{last}{{k}}", f"\\bibliography{last}{{refs}}"]
    lines.append("\\end{document}")
    (folder / "refs.bib").write_text("@misc{k, title={K}}\n")
    path = folder / "lists.tex"
    path.write_text("\n".join(lines) + "\n")
    return path


def project(folder: Path, files: int, per_file: int) -> Path:
    inputs = []
    for f in range(files):
        lines = [
            f"\\newcommand{{\\c{name(f)}m{name(i)}}}[1]{{\\cite{{#1}}}}" for i in range(per_file)
        ]
        lines.append(f"\\c{name(f)}m{name(per_file // 2)}{{k{f}}}")
        (folder / f"ch{f}.tex").write_text("\n".join(lines) + "\n")
        inputs.append(f"\\input{{ch{f}}}")
    body = "\n".join(inputs)
    main = folder / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n\\begin{{document}}\n{body}\n"
        "\\bibliography{refs}\n\\end{document}\n"
    )
    (folder / "refs.bib").write_text("".join(f"@misc{{k{f}, title={{T}}}}\n" for f in range(files)))
    return main


def big_document(folder: Path, mb: float) -> Path:
    parts = [
        p.read_text(errors="replace").replace("\\end{document}", "")
        for p in sorted((ROOT / "tests" / "data" / "documents").rglob("*.tex"))
    ]
    unit = "\n".join(parts)
    copies = max(1, int(mb * (1 << 20) / max(1, len(unit))))
    head = "\\newcommand{\\mycite}[1]{\\cite{#1}}\n\\newcommand{\\myp}[1]{\\citep{#1}}\n"
    path = folder / "big.tex"
    path.write_text(head + unit * copies + "\n")
    return path


def unclosed_bodies(folder: Path, blocks: int) -> Path:
    path = folder / "bodies.tex"
    path.write_text(("\\def\\x{" * 700 + "%\n}") * blocks + "\n\\cite{k}\n")
    return path


def unclosed_options(folder: Path, count: int) -> Path:
    path = folder / "options.tex"
    path.write_text("\\cite[" * count + "\n\n\\cite{k}\n")
    return path


def timed(path: Path, repeat: int) -> tuple[float, int]:
    best = float("inf")
    found = 0
    settings = Settings(max_file_mb=1024)
    for _ in range(repeat):
        start = time.perf_counter()
        audit = run_audit([str(path)], settings, cwd=path.parent, verify=False)
        best = min(best, time.perf_counter() - start)
        found = sum(len(v) for v in audit.findings.values())
    return best, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--macros", type=int, default=3000)
    parser.add_argument("--lists", type=int, default=1000)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--per-file", type=int, default=60)
    parser.add_argument("--mb", type=float, default=35.0)
    parser.add_argument("--bodies", type=int, default=150)
    parser.add_argument("--options", type=int, default=150_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"MANY_MACROS = {MANY_MACROS}")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            (f"one file, {args.macros} wrappers", one_file, (args.macros,)),
            (f"one file, {args.lists} multibib lists", lists, (args.lists,)),
            (
                f"{args.files} files x {args.per_file} wrappers",
                project,
                (args.files, args.per_file),
            ),
            (f"{args.mb:g} MB document, 2 wrappers", big_document, (args.mb,)),
            (
                f"{args.bodies} x 700 unclosed \\def bodies",
                unclosed_bodies,
                (args.bodies,),
            ),
            (f"{args.options} unclosed \\cite[", unclosed_options, (args.options,)),
        ]
        for i, (label, make, params) in enumerate(cases):
            folder = Path(tmp) / str(i)
            folder.mkdir()
            path = make(folder, *params)  # type: ignore[operator]
            seconds, found = timed(path, args.repeat)
            print(f"{label:40} {seconds:8.2f} s  ({found} findings)")


if __name__ == "__main__":
    main()
