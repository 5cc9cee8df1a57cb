"""``citewarden check`` on a standard output whose encoding is not UTF-8 (a cp1252 pipe
or console): every report is written whole, and never a traceback."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from citewarden import cli
from cli_process import run_citewarden

PAPER = (
    "\\documentclass{article}\\begin{document}\n"
    "\\cite{wang王} \\cite{ok}\n"
    "\\bibliography{refs}\\end{document}\n"
)
CP1252 = {"PYTHONIOENCODING": "cp1252"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A document citing a key cp1252 has no character for, defined nowhere."""
    (tmp_path / "main.tex").write_text(PAPER, encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{ok, title={Ω}}\n", encoding="utf-8")
    return tmp_path


def test_text_report_escapes_what_the_encoding_lacks(project: Path) -> None:
    done = run_citewarden(["check", "main.tex", "--no-verify"], project, CP1252)
    assert done.returncode == 1, done.stderr  # the dangling key, not a crash
    assert "Traceback" not in done.stderr
    assert "citation key 'wang\\u738b' is not defined" in done.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "html"])
def test_machine_reports_are_written_as_utf8(project: Path, fmt: str) -> None:
    done = run_citewarden(["check", "main.tex", "--no-verify", "--format", fmt], project, CP1252)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    if fmt == "html":
        assert done.stdout.rstrip().endswith("</html>")
        assert "wang王" in done.stdout
    else:
        report = json.loads(done.stdout)
        assert "wang王" in json.dumps(report, ensure_ascii=False)


class NarrowOutput(io.TextIOBase):
    """A text stream that can write ASCII only, and cannot be reconfigured."""

    def write(self, text: str) -> int:
        text.encode("ascii")
        return len(text)


def test_an_output_that_cannot_write_the_report_is_an_error_not_a_traceback(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(project)
    monkeypatch.setattr("sys.stdout", NarrowOutput())
    code = cli.main(["check", "main.tex", "--no-verify"])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE
    assert "citewarden: error: standard output" in err
    assert "'\\u738b'" in err and "PYTHONIOENCODING=utf-8" in err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_full_standard_output_is_an_error_not_a_traceback(project: Path, fmt: str) -> None:
    """A report written to a full disk (``> /dev/full``) ended in a traceback with exit
    status 1, as if the check had found errors."""
    import os
    import subprocess
    import sys

    from cli_process import ROOT

    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "citewarden",
                "check",
                "main.tex",
                "--no-verify",
                "--format",
                fmt,
            ],
            cwd=project,
            env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == cli.EXIT_USAGE
    assert done.stderr == (
        "citewarden: error: cannot write the report to standard output: No space left on device\n"
    )


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_closed_standard_output_is_an_error_not_a_traceback(project: Path, fmt: str) -> None:
    """Started with standard output closed (>&-), the report ended in a traceback with exit
    status 1, as if the check had found errors."""
    import subprocess

    from cli_process import started

    args = ["check", "main.tex", "--no-verify", "--format", fmt]
    done = started(
        args, project, closed=1, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert done.returncode == cli.EXIT_USAGE
    assert done.stderr == (
        "citewarden: error: standard output is closed; the report is not written (give --output)\n"
    )
