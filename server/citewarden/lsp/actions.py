"""Code actions: the fixes of the findings under the cursor, as WorkspaceEdits.

The findings come from the server's current state (not from the diagnostics the client
echoes back), so an action always edits the text the server knows.  Nothing is written to
disk: the client applies the edit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from citewarden.lsp.convert import path_of
from citewarden.lsp.isolation import isolated
from citewarden.lsp.session import Session
from citewarden.model import Span

log = logging.getLogger(__name__)


def _empty() -> list[Any]:
    return []


def _overlaps(a: Span, b: Span) -> bool:
    """True when the spans share a character, or a cursor (empty span) touches the other."""
    if len(a) == 0 or len(b) == 0:
        return a.start <= b.end and b.start <= a.end
    return a.start < b.end and b.start < a.end


def _actions(session: Session, path: Path, range_: types.Range) -> list[types.CodeAction]:
    index = session.index_of(path)
    if index is None:
        return []
    wanted = session.converter.span(index, range_)
    out: list[types.CodeAction] = []
    for finding in session.store.findings(path):
        if not finding.fixes or not _overlaps(finding.location.span, wanted):
            continue
        diagnostic = session.converter.diagnostic(finding, index)
        for fix in finding.fixes:
            action = session.converter.code_action(fix, diagnostic)
            if action is not None:
                out.append(action)
    out += session.features.code_actions(path, wanted)
    return out


def register(server: LanguageServer, session: Session) -> None:
    feature: Callable[..., Any] = server.feature

    @feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    @isolated(_empty)
    async def code_action(params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        if only and not any(
            str(kind) == types.CodeActionKind.QuickFix
            or types.CodeActionKind.QuickFix.startswith(f"{kind}.")
            for kind in only
        ):
            return []
        path = path_of(params.text_document.uri)
        if path is None:
            return []
        await session.ready.wait()
        if not session.indexed_all.is_set():
            # no fix before every file is read (an entry cited only in a file not read yet
            # would be offered for removal as an orphan); editors ask again as the cursor moves
            return []
        # a fix may edit another open file (a \nocite in the document): its current text counts
        await session.ensure_all_current()
        out = await session.run(_actions, session, path, params.range)
        out += await session.features.async_code_actions(path, params.range)
        return out
