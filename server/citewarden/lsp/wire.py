"""JSON-RPC messages the server frames itself, and every notification it sends of its own.

pygls serialises each message with its converter; for ``textDocument/publishDiagnostics`` of
large files that is most of an edit's cost, so the server keeps each diagnostic's JSON text
and writes the notification already serialised (:func:`publish_message`,
:func:`send_json`), framed the way pygls frames its own.  :func:`notify` sends the
server's own notifications (``citewarden/status``).  No other module writes to the
client's transport.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from citewarden.lsp.diagnostics import FileDiagnostics

log = logging.getLogger(__name__)


def publish_message(
    entry: FileDiagnostics | None,
    uri: str,
    version: int | None,
    dump: Callable[[types.Diagnostic], str],
) -> str:
    """The JSON text of a ``textDocument/publishDiagnostics`` notification.

    Each diagnostic's JSON is made once and kept with it, so republishing a large file after
    an edit serialises only the diagnostics the edit moved.
    """
    parts = diagnostic_texts(entry, dump) if entry is not None else []
    version_part = f', "version": {int(version)}' if version is not None else ""
    return (
        '{"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": '
        f'{{"uri": {json.dumps(uri)}, "diagnostics": [{", ".join(parts)}]{version_part}}}}}'
    )


def diagnostic_texts(entry: FileDiagnostics, dump: Callable[[types.Diagnostic], str]) -> list[str]:
    """The JSON text of each diagnostic of ``entry``, made once and kept with it."""
    texts = entry.json
    parts: list[str] = []
    for diag in entry.diagnostics:
        text = texts.get(id(diag))
        if text is None:
            text = texts[id(diag)] = dump(diag)
        parts.append(text)
    return parts


def send_json(server: LanguageServer, body: str) -> bool:
    """Write one JSON-RPC message (already serialised) to the client, framed like pygls
    frames its own; False when the transport does not allow it (the caller falls back)."""
    protocol = server.protocol
    writer = getattr(protocol, "writer", None)
    if writer is None or not getattr(protocol, "_include_headers", True):
        return False
    data = body.encode("utf-8")
    header = (
        f"Content-Length: {len(data)}\r\n"
        "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
    ).encode("ascii")
    result = writer.write(header + data)
    if inspect.isawaitable(result):
        task = asyncio.ensure_future(result)
        _writes.add(task)
        task.add_done_callback(_writes.discard)
    return True


#: Pending asynchronous writes (kept referenced until done).
_writes: set[asyncio.Future[object]] = set()


def notify(server: LanguageServer, method: str, params: Any) -> bool:
    """Send the notification ``method``; False (logged) when it could not be sent."""
    try:
        server.protocol.notify(method, params)
    except Exception:
        log.warning("could not send %s", method, exc_info=True)
        return False
    return True
