"""Running a program installed here to ask it something (``kpsewhich``, ``pandoc
--version``): within a time bound, without input, its standard output as text."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence


def program_output(args: Sequence[str], timeout: float, cwd: str | None = None) -> str | None:
    """The standard output of ``args`` run from ``cwd``, or None when it cannot be run,
    takes longer than ``timeout`` seconds or fails."""
    try:
        run = subprocess.run(
            list(args),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return run.stdout if run.returncode == 0 else None


__all__ = ["program_output"]
