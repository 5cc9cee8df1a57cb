"""The server's messages to the editor, written so that an editor that stops reading them
blocks neither the server nor its memory: over stdio a thread of its own writes them
(:class:`PipeWriter`), and over stdio and TCP alike no further message is read from the
editor while it leaves too much unread or unanswered (:func:`backed_up`), so its requests
cannot pile up answers without bound; all goes on once the editor reads again.  Only the
editor's requests count as unanswered, not its notifications nor the server's own requests
waiting for its answers: only reading its messages can end those."""

from __future__ import annotations

import os
import select
import threading
import time
from collections import deque

#: Bytes waiting for the editor past which no more of its messages is read.
LIMIT = 8 << 20
#: The editor's requests being handled past which no more of its messages is read.
HANDLING = 64
#: Seconds between two looks at a backlog.
PAUSE = 0.02
#: The most written to the descriptor at once.
PIECE = 1 << 16


def backed_up(handling: int, waiting: int) -> bool:
    """Whether no more of the editor's messages is read for now: more than
    :data:`HANDLING` of its requests are being handled, or more than :data:`LIMIT` bytes of
    the server's wait for the editor to take them."""
    return handling > HANDLING or waiting > LIMIT


class PipeWriter:
    """The file descriptor ``fd`` written as pygls writes standard output (``write``,
    ``flush``, ``close``): ``write`` queues the bytes and returns, a daemon thread writes
    them in order, however long the editor takes to read them."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._pending: deque[bytes] = deque()
        self._size = 0
        self._closed = False
        self._changed = threading.Condition()
        threading.Thread(target=self._run, name="citewarden-output", daemon=True).start()

    @property
    def waiting(self) -> int:
        """The bytes written but not yet taken by the editor."""
        return self._size

    def write(self, data: bytes) -> None:
        with self._changed:
            if self._closed or not data:
                return
            self._pending.append(bytes(data))
            self._size += len(data)
            self._changed.notify_all()

    def flush(self) -> None:
        """Nothing to do: the thread writes each piece as it comes."""

    def close(self) -> None:
        """Write what waits (for at most a second), then nothing more."""
        self.drain(1.0)
        with self._changed:
            self._closed = True
            self._pending.clear()
            self._size = 0
            self._changed.notify_all()

    def drain(self, timeout: float) -> bool:
        """Whether all that waits was written within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._size and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
            return True

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or bool(self._pending))
                if self._closed:
                    return
                data = self._pending[0]
            written = self._write(data[:PIECE])
            with self._changed:
                if written is None:  # the editor is gone: nothing more can reach it
                    self._closed = True
                    self._pending.clear()
                    self._size = 0
                elif self._pending:
                    self._size -= written
                    rest = self._pending[0][written:]
                    if rest:
                        self._pending[0] = rest
                    else:
                        self._pending.popleft()
                self._changed.notify_all()

    def _write(self, data: bytes) -> int | None:
        """The bytes of ``data`` written now (0 to try again), None once the output is gone."""
        try:
            return os.write(self._fd, data)
        except (BlockingIOError, InterruptedError):  # a descriptor left non-blocking
            try:
                select.select([], [self._fd], [], 1.0)
            except (OSError, ValueError):
                return None
            return 0
        except OSError:
            return None
