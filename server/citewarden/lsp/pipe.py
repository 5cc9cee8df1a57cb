"""The editor's standard input read from its file descriptor, with a buffer of its own, so
that a read can wait a bounded time for bytes (:meth:`PipeReader.wait`): a buffered
reader's ``read`` waits for ever, and ``select`` does not see the bytes it holds."""

from __future__ import annotations

import os
import select

#: The most read from the descriptor at once.
READ = 1 << 16


class PipeReader:
    """The file descriptor ``fd`` read as :class:`~citewarden.lsp.framing.BoundedInput`
    reads a stream: ``readline(limit)``, ``read(size)``, ``read1(size)`` and ``wait``."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._ended = False

    def _fill(self, size: int = READ) -> bool:
        """Read once more from the descriptor; False at its end."""
        if self._ended:
            return False
        try:
            data = os.read(self._fd, max(size, READ))
        except InterruptedError:
            return True
        except BlockingIOError:  # a descriptor the editor left non-blocking: wait for bytes
            self._wait_readable(None)
            return True
        except OSError:
            data = b""  # a closed or broken descriptor: its end
        if not data:
            self._ended = True
            return False
        self._buffer += data
        return True

    def wait(self, timeout: float) -> bool:
        """Whether bytes (or the end of the input) are there to read within ``timeout``
        seconds; True where the descriptor cannot be waited on."""
        if self._buffer or self._ended:
            return True
        return self._wait_readable(timeout)

    def _wait_readable(self, timeout: float | None) -> bool:
        """Whether the descriptor has bytes (or its end) within ``timeout`` seconds (None:
        however long it takes); True where it cannot be waited on."""
        try:
            ready, _, _ = select.select([self._fd], [], [], timeout)
        except (OSError, ValueError):
            return True
        return bool(ready)

    def readline(self, limit: int) -> bytes:
        """A line with its line break, or its first ``limit`` bytes; ``b""`` at the end."""
        while True:
            end = self._buffer.find(b"\n", 0, limit) + 1
            if end or len(self._buffer) >= limit or not self._fill():
                end = end or min(limit, len(self._buffer))
                line, self._buffer = self._buffer[:end], self._buffer[end:]
                return line

    def read1(self, size: int) -> bytes:
        """At most ``size`` bytes, those there or, when none, those of one read."""
        if not self._buffer and not self._fill(size):
            return b""
        piece, self._buffer = self._buffer[:size], self._buffer[size:]
        return piece

    def read(self, size: int) -> bytes:
        """``size`` bytes, fewer at the end of the input."""
        pieces: list[bytes] = []
        left = size
        while left > 0:
            piece = self.read1(left)
            if not piece:
                break
            pieces.append(piece)
            left -= len(piece)
        return b"".join(pieces)
