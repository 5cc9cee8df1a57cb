"""Time the audit reports and the fixer on a real 1 327-entry bibliography; prints figures.

    .venv/bin/python bench/report_bench.py [--entries N]
    .venv/bin/python bench/report_bench.py --case scaling [--entries N] [--files F]

Inputs: ``tests/data/bibs/b-vitamins_prl_1983.bib`` (every entry has a DOI).  Verdicts are
made up for the renderer (one in ten entries gets a ``pages`` correction), so no network is
involved.  Wall and CPU times are printed; nothing is asserted.

The ``scaling`` case times the HTML report's data on made-up bibliographies instead: one
file of N uncited entries (an orphan finding on each), then F files of 20 verified entries.

The ``big`` case runs ``citewarden check big.bib --no-verify --format html|json -o FILE`` as
a process on a made-up bibliography of N articles (default 20 000), and prints each run's
wall time, peak RSS, report size and how many references the HTML report formatted.

The ``cites`` case does the same with ``--format text|json|sarif`` on one ``.tex`` line of N
``\\cite{kN}`` (default 300 000), then times the JSON report's data and its text.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "server"))

from citewarden.checks import check_workspace  # noqa: E402
from citewarden.fix.run import plan_file  # noqa: E402
from citewarden.model import Match, Status, Tier, Verdict  # noqa: E402
from citewarden.project import Workspace  # noqa: E402
from citewarden.report.html.build import build_audit  # noqa: E402
from citewarden.report.html.page import render_html  # noqa: E402
from citewarden.report.references import csl_item, format_references  # noqa: E402
from citewarden.report.sarif import sarif_log  # noqa: E402
from citewarden.settings import Settings  # noqa: E402

BIB = ROOT / "tests" / "data" / "bibs" / "b-vitamins_prl_1983.bib"
T = TypeVar("T")


def timed(label: str, fn: Callable[[], T]) -> T:
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    print(
        f"{label:<44} wall {time.perf_counter() - wall:7.3f} s   "
        f"cpu {time.process_time() - cpu:7.3f} s"
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=0, help="use only the first N entries")
    parser.add_argument("--case", choices=("real", "scaling", "big", "cites"), default="real")
    parser.add_argument("--files", type=int, default=2000, help="files of the scaling case")
    args = parser.parse_args()
    start = time.perf_counter()
    sum(range(10**6))
    print(f"machine reference sum(range(10**6)): {1000 * (time.perf_counter() - start):.1f} ms")
    if args.case == "scaling":
        scaling(args.entries or 20000, args.files)
        return
    if args.case == "big":
        big(args.entries or 20000)
        return
    if args.case == "cites":
        cites(args.entries or 300_000)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "refs.bib"
        text = BIB.read_text(encoding="utf-8")
        if args.entries:
            parts = text.split("\n@")
            text = "\n@".join(parts[: args.entries + 1]) + "\n"
        path.write_text(text, encoding="utf-8")
        ws = Workspace(Settings(), root=Path(tmp))
        ws.add_file(path)
        findings = timed("index + checks", lambda: check_workspace(ws))
        bib = ws.bibliography(path)
        assert bib is not None
        entries = list(bib.entries)
        print(f"entries: {len(entries)}")
        verdicts = []
        corrections: dict[str, dict[str, str]] = {}
        for i, e in enumerate(entries):
            if i % 10 == 0:
                fixes = {"pages": "1--2"}
                corrections[e.key] = fixes
                verdicts.append(
                    Verdict(e.key, Status.MISMATCH, Tier.M, Match("crossref", 0.95), fixes)
                )
            else:
                verdicts.append(Verdict(e.key, Status.VERIFIED, Tier.D, Match("crossref", 1.0)))
        items = timed("CSL-JSON items (LaTeX decoded)", lambda: [csl_item(e) for e in entries])
        timed("citeproc formatting (Harvard)", lambda: format_references(items))
        data = timed(
            "report data (build_audit)", lambda: build_audit(ws, findings, entries, verdicts)
        )
        page = timed("HTML render (incl. formatting)", lambda: render_html(data))
        print(f"HTML size: {len(page.encode()) / 1e6:.2f} MB")
        texts = {path: text}
        flat = [f for fs in findings.values() for f in fs]
        timed("SARIF log", lambda: sarif_log(flat, texts, root=Path(tmp)))
        plan = timed(
            f"--fix plan + verify ({len(corrections)} entries)",
            lambda: plan_file(path, corrections),
        )
        print(f"fields changed: {len(plan.changes)}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {peak:.0f} MB")


def scaling(entries: int, files: int) -> None:
    """The HTML report's data for ``entries`` orphan entries in one file, then for ``files``
    files of 20 verified entries each."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "main.tex").write_text(
            "\\documentclass{article}\\begin{document}x\\bibliography{refs}\\end{document}\n"
        )
        (root / "refs.bib").write_text(
            "".join(f"@misc{{k{i}, title={{t {i}}}}}\n" for i in range(entries))
        )
        ws = Workspace(Settings(), root=root)
        ws.add_file(root / "main.tex")
        findings = check_workspace(ws)
        bib = ws.bibliography(root / "refs.bib")
        assert bib is not None
        timed(
            f"build_audit, {entries} orphan entries",
            lambda: build_audit(ws, findings, list(bib.entries), None),
        )
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ws = Workspace(Settings(), root=root)
        for n in range(files):
            path = root / f"r{n}.bib"
            path.write_text("".join(f"@misc{{k{i}, title={{t {i}}}}}\n" for i in range(20)))
            ws.add_file(path)
        findings = check_workspace(ws)
        many = [e for bib in map(ws.bibliography, sorted(findings)) if bib for e in bib.entries]
        verdicts = [Verdict(e.key, Status.VERIFIED, Tier.D, Match("crossref", 1.0)) for e in many]
        timed(
            f"build_audit, {files} files x 20 verified entries",
            lambda: build_audit(ws, findings, many, verdicts),
        )


def big(entries: int) -> None:
    """``check big.bib --no-verify`` with the HTML and the JSON report, as separate processes
    (each one's peak RSS is its own)."""

    with tempfile.TemporaryDirectory() as tmp:
        bib = Path(tmp) / "big.bib"
        bib.write_text(
            "".join(
                f"@article{{k{i},\n  author = {{Surname{i}, Given and Other, A. B.}},\n"
                f"  title = {{A study of the thing number {i}}},\n"
                f"  journal = {{Journal of Things}},\n  year = {{{1950 + i % 70}}},\n"
                f"  volume = {{{i % 40}}},\n  pages = {{1--{10 + i % 90}}},\n"
                f"  doi = {{10.1000/x{i}}}\n}}\n"
                for i in range(entries)
            ),
            encoding="utf-8",
        )
        print(f"entries: {entries} ({bib.stat().st_size / 1e6:.1f} MB)")
        for fmt in ("json", "html"):
            out = Path(tmp) / f"r.{fmt}"
            figures = check_process(bib, fmt, out)
            if figures is None:
                continue
            line, page = figures
            if fmt == "html":
                formatted = page.count("<div class='formatted'>")
                plain = page.count("<div class='formatted plain'>")
                line += f"   citeproc-formatted {formatted}, plain {plain}"
            print(line)


def check_process(source: Path, fmt: str, out: Path) -> tuple[str, str] | None:
    """``check SOURCE --no-verify --format FMT -o OUT`` as a process of its own (its peak
    RSS is the run's): the figures' line and the report, or None when it failed."""
    import re
    import subprocess

    code = (
        "import resource, sys, time\n"
        "from citewarden.cli import main\n"
        "t = time.perf_counter()\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "print(f'wall {time.perf_counter() - t:.2f}', file=sys.stderr)\n"
        "use = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(f'cpu {use.ru_utime + use.ru_stime:.2f}', file=sys.stderr)\n"
        "print(f'rss {use.ru_maxrss}', file=sys.stderr)\n"
    )
    args = ["--format", fmt, "-o", str(out), "--quiet", "--fail-on", "never"]
    done = subprocess.run(
        [*(sys.executable, "-c", code, "check", str(source), "--no-verify"), *args],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT / "server"), "PATH": "/usr/bin:/bin"},
        check=False,
    )
    wall = re.search(r"wall (\S+)", done.stderr)
    rss = re.search(r"rss (\d+)", done.stderr)
    cpu = re.search(r"cpu (\S+)", done.stderr)
    if wall is None or rss is None or cpu is None or not out.exists():
        print(f"{fmt}: failed (status {done.returncode}): {done.stderr[-500:]}")
        return None
    page = out.read_text(encoding="utf-8")
    line = (
        f"check --no-verify --format {fmt:<5} wall {float(wall[1]):7.2f} s   "
        f"cpu {float(cpu[1]):7.2f} s   "
        f"peak RSS {int(rss[1]) / 1024:6.0f} MB   size {len(page.encode()) / 1e6:6.1f} MB"
    )
    return line, page


def cites(count: int) -> None:
    """``check huge.tex --no-verify`` with each report, as separate processes, on one line
    of COUNT ``\\cite{kN}`` (each a dangling key); then, in this process, the JSON report's
    data and its text, written by ``json.dumps(indent=2)`` and by the report's writer."""
    import json

    from citewarden.audit import run_audit
    from citewarden.report.json_report import report_of
    from citewarden.report.json_text import indented_json

    with tempfile.TemporaryDirectory() as tmp:
        tex = Path(tmp) / "huge.tex"
        body = "".join(f"\\cite{{k{i}}}" for i in range(count))
        tex.write_text(f"\\documentclass{{article}}\\begin{{document}}{body}\\end{{document}}\n")
        print(f"citations: {count} on one line ({tex.stat().st_size / 1e6:.1f} MB)")
        for fmt in ("text", "json", "sarif"):
            figures = check_process(tex, fmt, Path(tmp) / f"r.{fmt}")
            if figures is not None:
                print(figures[0])
        audit = timed(
            "audit", lambda: run_audit([str(tex)], Settings(), cwd=Path(tmp), verify=False)
        )
        data = timed("JSON report's data", lambda: report_of(audit, Path(tmp)))
        old = timed("its text: json.dumps(indent=2)", lambda: json.dumps(data, indent=2))
        new = timed("its text: indented_json", lambda: "".join(indented_json(data)))
        print(f"same text: {old == new}")


if __name__ == "__main__":
    main()
