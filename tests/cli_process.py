"""Running ``python -m citewarden`` as a subprocess, the way a user runs the command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_citewarden(
    args: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m citewarden ARGS`` in ``cwd``, the source tree on the path and ``env``
    added to the environment; output captured as text, the exit code not checked."""
    return subprocess.run(
        [sys.executable, "-m", "citewarden", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def started(
    args: list[str],
    cwd: Path,
    *,
    closed: int | None = None,
    env: Mapping[str, str] | None = None,
    **streams: Any,
) -> subprocess.CompletedProcess[Any]:
    """``python -m citewarden ARGS`` in ``cwd`` as :func:`run_citewarden` runs it, its
    standard streams as ``streams`` give them (``stdout=``, ``stderr=``, ``text=`` ... of
    :func:`subprocess.run`), started without the descriptor ``closed`` (1 or 2), as
    ``>&-`` starts a command; the exit code not checked."""
    return subprocess.run(
        [sys.executable, "-m", "citewarden", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), **(env or {})},
        timeout=120,
        check=False,
        preexec_fn=None if closed is None else lambda: os.close(closed),
        **streams,
    )


#: Run the CLI with root's privileges dropped.  The interpreter may live where an
#: unprivileged user cannot read, so everything the command needs is imported first, by a
#: throw-away run of the same command with a throw-away cache, while still privileged.
_AS_NOBODY = """
import contextlib, io, os, sys, tempfile
import citewarden.cli as cli
args = sys.argv[1:]
wanted = os.environ.get("CITEWARDEN_CACHE_DIR")
os.environ["CITEWARDEN_CACHE_DIR"] = tempfile.mkdtemp()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    cli.main(args)
if wanted is None:
    del os.environ["CITEWARDEN_CACHE_DIR"]
else:
    os.environ["CITEWARDEN_CACHE_DIR"] = wanted
os.setgroups([]); os.setgid(65534); os.setuid(65534)
sys.exit(cli.main(args))
"""


def run_as_nobody(
    args: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``citewarden ARGS`` as the unprivileged user ``nobody`` (the caller must be root),
    as :func:`run_citewarden` otherwise: what a user without root's rights would see."""
    return subprocess.run(
        [sys.executable, "-c", _AS_NOBODY, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
