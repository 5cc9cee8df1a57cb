"""Delivering diagnostics: what changed goes out, pushed or pulled, for current texts only.

Open documents are served by pull when the client supports it (and can be asked to
refresh); everything else is pushed.  A file is delivered only for the text version that
was checked; an older check's results wait for the pending refresh.  The diagnostics are
serialised in the check cycle's thread (:meth:`Publisher.prepare`), so that publishing on
the event loop only joins their texts, however many there are.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.protocol import default_converter

from citewarden.lsp.convert import path_of, uri_of
from citewarden.lsp.diagnostics import FileDiagnostics, pull_report
from citewarden.lsp.wire import diagnostic_texts, publish_message, send_json

if TYPE_CHECKING:
    from citewarden.lsp.session import Session

log = logging.getLogger(__name__)


class Publisher:
    """The delivery state of one session: what was sent, push or pull."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: Diagnostics generation last delivered, by path.
        self.sent: dict[Path, int] = {}
        self.pull_mode = False
        #: Serialises diagnostics to JSON the way pygls does (in the check cycle's thread,
        #: and on the event loop for what was not prepared; making one costs 20 ms).
        self._json = default_converter()

    def prepare(self, paths: Iterable[Path]) -> None:
        """Serialise the diagnostics of ``paths`` not serialised yet (check cycle's thread):
        a file with 90 000 findings costs seconds, which would hold every request on the
        event loop."""
        store, open_paths = self.session.store, self.session.open
        for path in paths:
            if self.pull_mode and path in open_paths:
                continue  # the client pulls it: the pull's answer is another message
            entry = store.get(path)
            if entry is not None:
                diagnostic_texts(entry, self._dump)

    def deliver(self, force_paths: set[Path], first: Path | None = None) -> set[Path]:
        """Publish every file whose diagnostics changed since last delivered, if current;
        ``first`` (the document being edited) before the others.  -> the paths delivered."""
        session = self.session
        started = time.perf_counter()
        refresh_pull = False
        delivered: set[Path] = set()
        files = list(session.store.files.items())
        if first is not None:
            files.sort(key=lambda item: item[0] != first)
        for path, entry in files:
            if self.sent.get(path) == entry.generation and path not in force_paths:
                continue
            uri = session.open.get(path)
            if uri is not None:
                version = session.document_version(path)
                if version != session.indexed.get(path):
                    continue  # checked an older text; the pending refresh publishes
                if self.pull_mode:
                    refresh_pull = True
                    continue
                self.push(uri, entry, version)
            else:
                self.push(uri_of(path), entry, None)
            self.sent[path] = entry.generation
            delivered.add(path)
        if delivered:
            log.debug(
                "published %d files in %.1f ms",
                len(delivered),
                (time.perf_counter() - started) * 1000,
            )
        if refresh_pull:
            self._request_pull_refresh()
        return delivered

    def push(self, uri: str, entry: FileDiagnostics | None, version: int | None) -> None:
        server = self.session.server
        body = publish_message(entry, uri, version, self._dump)
        if not send_json(server, body):
            server.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri,
                    diagnostics=entry.diagnostics if entry is not None else [],
                    version=version,
                )
            )

    def _dump(self, diagnostic: types.Diagnostic) -> str:
        return json.dumps(self._json.unstructure(diagnostic))

    def _request_pull_refresh(self) -> None:
        try:
            self.session.server.workspace_diagnostic_refresh(None)
        except Exception:
            log.warning("workspace/diagnostic/refresh failed", exc_info=True)

    async def pull_diagnostics(self, params: types.DocumentDiagnosticParams) -> Any:
        """The answer to ``textDocument/diagnostic`` (after the document is checked)."""
        session = self.session
        path = path_of(params.text_document.uri)
        if path is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[])
        await session.ready.wait()
        await session.ensure_current(path)
        entry = session.store.get(path)
        if entry is not None:
            self.sent[path] = entry.generation
        return pull_report(entry, params.previous_result_id)
