"""Running a program installed here to ask it something (``kpsewhich``, ``pandoc
--version``): within a time bound, without input, its standard output as text, bounded in
size."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Sequence

#: The most standard output read from a program (``pandoc --version`` writes about 1 kB).
MAX_OUTPUT = 64 * 1024


def program_output(
    args: Sequence[str], timeout: float, cwd: str | None = None, limit: int = MAX_OUTPUT
) -> str | None:
    """The standard output of ``args`` run from ``cwd``, or None when it cannot be run,
    takes longer than ``timeout`` seconds, writes more than ``limit`` bytes or fails."""
    try:
        proc = subprocess.Popen(
            list(args),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    deadline = time.monotonic() + timeout
    read: list[bytes] = []
    stdout = proc.stdout
    assert stdout is not None
    # read in a thread: a pipe read blocks until ``limit`` + 1 bytes or the end
    reader = threading.Thread(target=lambda: read.append(stdout.read(limit + 1)), daemon=True)
    reader.start()
    reader.join(timeout)
    try:
        if reader.is_alive() or not read or len(read[0]) > limit:
            return None
        returncode = proc.wait(max(0.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if not reader.is_alive():
            stdout.close()
    return read[0].decode("utf-8", "replace") if returncode == 0 else None


__all__ = ["MAX_OUTPUT", "program_output"]
