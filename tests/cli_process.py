"""Running ``python -m citewarden`` as a subprocess, the way a user runs the command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

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
