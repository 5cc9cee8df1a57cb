"""A directory of lock-guarded files that every citewarden process on a machine shares.

The base of the politeness shared between processes (:mod:`shared_rate` for rates and
pauses, :mod:`shared_slots` for requests in flight): where file locks are unavailable (no
``fcntl``) or the directory cannot be created, sharing is off, each process keeps its own
limits, and the log says so once.  A file in it that is not a regular one (a FIFO, a device,
a link) is never opened for use: sharing is turned off instead.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from citewarden.files import open_checked

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("citewarden.http")

_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def open_shared(path: Path) -> int:
    """A read-write descriptor of the regular file ``path``, created when absent; the caller
    closes it.  Raises :class:`OSError` for a FIFO, a device or a link, checked before opening
    (so that one is never opened) and again on the descriptor, so that nothing blocks."""
    return open_checked(path, _OPEN_FLAGS, 0o600, creates=True)


def safe_name(text: str) -> str:
    """``text`` (a host, a lane) as a short file-name part: letters, digits, dots, dashes."""
    return re.sub(r"[^A-Za-z0-9.-]", "_", text.lower())[:100].strip(".") or "_"


class SharedDirectory:
    """``directory``, shared while locks work and it can be created; ``what`` names what is
    shared in the one log line said when sharing is turned off."""

    def __init__(self, directory: str | os.PathLike[str], what: str) -> None:
        self.directory = Path(directory)
        self._what = what
        self._shared = fcntl is not None
        if self._shared:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                self._disable(f"cannot create {self.directory}: {exc.strerror or exc}")

    @property
    def shared(self) -> bool:
        """True while the state really is shared between processes."""
        return self._shared

    def _disable(self, why: str) -> None:
        if self._shared:
            log.warning("%s are not shared between processes: %s", self._what, why)
        self._shared = False
