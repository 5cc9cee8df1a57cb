"""What ``citewarden check`` loads: a check that verifies nothing needs no HTTP stack."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

#: The verification stack: the HTTP client and TLS, the event loop, the sources.
VERIFY_STACK = ("httpx", "ssl", "asyncio", "citewarden.verify.sources", "citewarden.addref")

_RUN = """
import json, sys
import citewarden.cli
status = citewarden.cli.main(sys.argv[1:])
print(json.dumps([status, [m for m in %r if m in sys.modules]]))
"""


def _loaded(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "server")}
    result = subprocess.run(
        [sys.executable, "-c", _RUN % (VERIFY_STACK,), *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    status, loaded = json.loads(result.stdout.splitlines()[-1])
    return status, loaded


def test_a_check_without_verification_loads_no_http_stack(tmp_path: Path) -> None:
    """Building the argument parser (the ``add`` command's arguments among them) imported
    the look-up stack of ``add``: every source, httpx and ssl, for a check that asks none."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A title}, year = 2020}\n")
    (tmp_path / "paper.tex").write_text("\\cite{a}\\bibliography{refs}\n")
    assert _loaded(tmp_path, "check", "paper.tex", "--no-verify") == (0, [])


def test_the_add_commands_help_still_names_its_exit_status(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "citewarden", "add", "--help"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "server")},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert "--bib FILE" in result.stdout
    assert "2  a usage or file error" in result.stdout
