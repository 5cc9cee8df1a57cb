"""What ``citewarden check`` logs (warnings: it configures no log) reaches stderr escaped
and redacted, as the server's log does: an exception raised while verifying can carry text
a response or a file held, a terminal control among it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from cli_process import ROOT

#: ``citewarden check`` with a verification step that raises with a terminal control in
#: its message (as a conversion of a response's text would), the sources at a closed port.
_CHECK = """
import sys
from citewarden.verify import engine

async def fails(self, ev):
    raise ValueError("title \\x1b]0;pwned\\x07 from a record")

engine.Verifier._identify = fails
import citewarden.cli as cli
sys.exit(cli.main(["check", sys.argv[1], "--format", "text"]))
"""


def test_a_logged_exception_reaches_stderr_escaped(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{k,\n title={A title},\n author={Doe, J.},\n year={2020},\n"
        " doi={10.1371/journal.pone.0033693}\n}\n",
        encoding="utf-8",
    )
    closed = "http://127.0.0.1:9"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "server"),
        "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"),
        "CITEWARDEN_CROSSREF_URL": closed,
        "CITEWARDEN_DOI_URL": closed,
    }
    done = subprocess.run(
        [sys.executable, "-c", _CHECK, str(bib)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "verification of k failed" in done.stderr
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "title \\x1b]0;pwned\\x07 from a record" in done.stderr


#: ``citewarden check`` whose every request fails in the transport with an error the HTTP
#: client does not expect (as httpx's InvalidURL for an address too long to send).
_UNEXPECTED = """
import sys
import httpx
from citewarden.verify import http

async def fails(self, *args, **kwargs):
    raise httpx.InvalidURL("URL too long")

http.HttpClient._request = fails
import citewarden.cli as cli
sys.exit(cli.main(["check", sys.argv[1], "--format", "text"]))
"""


def test_a_logged_warning_is_said_as_citewarden_says_its_own(tmp_path: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{k,\n title={A title},\n author={Doe, J.},\n year={2020}\n}\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "server"),
        "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _UNEXPECTED, str(bib)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    logged = [line for line in done.stderr.splitlines() if "unexpected InvalidURL" in line]
    assert logged
    assert all(line.startswith("citewarden: warning: GET ") for line in logged)


#: ``citewarden check`` interrupted (SIGINT, as Ctrl-C sends) while it verifies an entry.
_INTERRUPTED = """
import asyncio, os, signal, sys
from citewarden.verify import engine

async def interrupted(self, ev):
    os.kill(os.getpid(), signal.SIGINT)
    await asyncio.sleep(60)

engine.Verifier._identify = interrupted
import citewarden.cli as cli
sys.exit(cli.main(["check", sys.argv[1]]))
"""


def test_an_interrupted_check_says_so_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C while verifying ended the run in a traceback of the event loop."""
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{k,\n title={A title},\n author={Doe, J.},\n year={2020},\n"
        " doi={10.1371/journal.pone.0033693}\n}\n",
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "server"),
        "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED, str(bib)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    # ended by SIGINT, once cleaned up, so that a shell loop running check stops too: an
    # exit status of 130 told the shell the program had handled the signal itself
    assert done.returncode == -signal.SIGINT
    assert done.stderr == "citewarden: interrupted\n" and done.stdout == ""
