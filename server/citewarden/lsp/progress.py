"""Server-initiated ``$/progress`` (begin / report / end), when the client supports it."""

from __future__ import annotations

import logging
import uuid
from types import TracebackType

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from citewarden.lsp.client_answers import NoAnswer, answer
from citewarden.safe_text import visible

log = logging.getLogger(__name__)


def supported(server: LanguageServer) -> bool:
    window = server.client_capabilities.window
    return bool(window is not None and window.work_done_progress)


class WorkProgress:
    """``async with WorkProgress(server, "Indexing") as p: p.report("3 of 9", 33)``.

    Does nothing when the client does not support work-done progress.  ``cancelled`` turns
    true when the client cancels the progress (only when ``cancellable``).
    """

    def __init__(self, server: LanguageServer, title: str, cancellable: bool = False) -> None:
        self._server = server
        self._title = title
        self._cancellable = cancellable
        self._token: str | None = None

    async def __aenter__(self) -> WorkProgress:
        if not supported(self._server):
            return self
        token = f"citewarden-{uuid.uuid4().hex}"
        try:
            await answer(
                self._server.work_done_progress.create_async(token),
                "window/workDoneProgress/create",
            )
        except NoAnswer:
            return self  # logged
        except Exception:
            log.warning("client refused progress token", exc_info=True)
            return self
        self._token = token
        self._server.work_done_progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=self._title, cancellable=self._cancellable, percentage=0
            ),
        )
        return self

    def report(self, message: str, percentage: int | None = None) -> None:
        """Report ``message`` (a folder's name, say: shown escaped, as every message shows
        outside text) and ``percentage``."""
        if self._token is None:
            return
        self._server.work_done_progress.report(
            self._token,
            types.WorkDoneProgressReport(message=visible(message), percentage=percentage),
        )

    @property
    def cancelled(self) -> bool:
        if self._token is None:
            return False
        future = self._server.work_done_progress.tokens.get(self._token)
        return future is not None and future.cancelled()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._token is None:
            return
        message = "cancelled" if exc_type is not None else "done"
        try:
            self._server.work_done_progress.end(
                self._token, types.WorkDoneProgressEnd(message=message)
            )
        finally:
            self._server.work_done_progress.tokens.pop(self._token, None)
            self._token = None
