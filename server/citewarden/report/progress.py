"""A terminal progress bar on stderr for long ``citewarden check`` runs.

It draws only when the stream is a terminal and the user did not ask for ``--quiet``; in a
pipe, a CI log or a file it writes nothing at all.  Redraws are throttled.
"""

from __future__ import annotations

import shutil
import sys
import time
import unicodedata
from types import TracebackType
from typing import TextIO

from citewarden.safe_text import visible

#: Minimum seconds between two redraws (the last one is always drawn).
REDRAW_INTERVAL = 0.1


def stream_is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _cells(ch: str) -> int:
    """The terminal columns ``ch`` takes: 2 for a wide (CJK) character, 0 for a combining
    mark, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    """The terminal columns ``text`` takes (:func:`_cells`)."""
    return sum(_cells(ch) for ch in text)


def padded(text: str, columns: int, *, right: bool = False) -> str:
    """``text`` with spaces after it (``right``: before it) up to ``columns`` terminal
    columns (:func:`width`), so that a column of a table lines up under wide characters."""
    gap = " " * max(0, columns - width(text))
    return gap + text if right else text + gap


def clip(text: str, columns: int) -> str:
    """The longest start of ``text`` that takes at most ``columns`` terminal columns."""
    used = 0
    for i, ch in enumerate(text):
        used += _cells(ch)
        if used > columns:
            return text[:i]
    return text


class Progress:
    """``with Progress(total, "verifying") as bar: bar.advance(note=key)``."""

    def __init__(
        self,
        total: int,
        label: str = "",
        *,
        stream: TextIO | None = None,
        quiet: bool = False,
        width: int | None = None,
    ) -> None:
        self.total = max(0, total)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = not quiet and stream_is_terminal(self.stream)
        self.done = 0
        self._width = width
        self._last_draw = 0.0
        self._drawn = False

    def __enter__(self) -> Progress:
        self.draw(force=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, n: int = 1, note: str = "") -> None:
        self.done = min(self.total, self.done + n) if self.total else self.done + n
        self.draw(note=note, force=self.done >= self.total)

    def line(self, note: str = "") -> str:
        """The bar as text, without control characters, narrower than the terminal (wide
        characters take two columns): ``label [####....]  3/10  note``."""
        columns = self._width or shutil.get_terminal_size((80, 24)).columns
        counter = f"{self.done}/{self.total}" if self.total else str(self.done)
        head = f"{visible(self.label)} " if self.label else ""
        bar_width = max(10, min(40, columns - width(head) - len(counter) - 6))
        filled = bar_width * self.done // self.total if self.total else 0
        bar = "#" * filled + "." * (bar_width - filled)
        text = f"{head}[{bar}] {counter}"
        note = visible(note)
        if note:
            room = columns - width(text) - 3
            if room > 3:
                text += "  " + (note if width(note) <= room else clip(note, room - 1) + "…")
        return clip(text, columns - 1)

    def draw(self, note: str = "", *, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < REDRAW_INTERVAL:
            return
        self._last_draw = now
        # \r returns to the line start, ESC[K clears the rest of the previous bar.
        self._drawn = self._put("\r" + self.line(note) + "\x1b[K")

    def close(self) -> None:
        """Erase the bar so that later output starts on a clean line."""
        if self.enabled and self._drawn:
            self._put("\r\x1b[K")
            self._drawn = False

    def _put(self, text: str) -> bool:
        """Write ``text`` to the terminal; -> whether it could.  A terminal gone (closed, its
        window shut: EIO) ends the bar, not the run, nor the cleanup of a run it was closed
        in: a bar erased while a run ended on SIGHUP raised an error in its place."""
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return False
        return True
