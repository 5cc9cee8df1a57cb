"""A tiny editor for the end-to-end tests: open buffers, incremental edits, edit application.

It keeps the text of each buffer the way an editor would, sends didOpen/didChange with
ranges in the position encoding the server chose, and applies WorkspaceEdits from the
server exactly like a client (edits of one file applied from the end backwards).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from citewarden.model import Span
from citewarden.text import Encoding, LineIndex, Position

LANGUAGES = {".tex": "latex", ".md": "markdown", ".bib": "bibtex"}


def encoding_of(result: types.InitializeResult) -> Encoding:
    kind = result.capabilities.position_encoding or "utf-16"
    return Encoding(str(kind))


class Editor:
    """Buffers of one test client."""

    def __init__(self, client: LanguageClient, root: Path, encoding: Encoding) -> None:
        self.client = client
        self.root = root
        self.encoding = encoding
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    def uri(self, name: str) -> str:
        return (self.root / name).as_uri()

    def text(self, name: str) -> str:
        uri = self.uri(name)
        if uri in self.texts:
            return self.texts[uri]
        return (self.root / name).read_bytes().decode("utf-8")  # line breaks as written

    # -- positions ------------------------------------------------------------------------
    def range(self, name: str, span: Span) -> types.Range:
        index = LineIndex(self.text(name))
        start = index.position(span.start, self.encoding)
        end = index.position(span.end, self.encoding)
        return types.Range(
            start=types.Position(line=start.line, character=start.column),
            end=types.Position(line=end.line, character=end.column),
        )

    def position(self, name: str, offset: int) -> types.Position:
        return self.range(name, Span(offset, offset)).start

    def find(self, name: str, needle: str, nth: int = 0, within: int = 0) -> int:
        """Offset of the ``nth`` occurrence of ``needle`` (+ ``within`` characters)."""
        text = self.text(name)
        at = -1
        for _ in range(nth + 1):
            at = text.index(needle, at + 1)
        return at + within

    def slice(self, name: str, range_: types.Range) -> str:
        text = self.text(name)
        index = LineIndex(text)
        start = index.offset(Position(range_.start.line, range_.start.character), self.encoding)
        end = index.offset(Position(range_.end.line, range_.end.character), self.encoding)
        return text[start:end]

    # -- buffers --------------------------------------------------------------------------
    def open(self, name: str) -> str:
        uri = self.uri(name)
        text = (self.root / name).read_bytes().decode("utf-8")
        self.texts[uri] = text
        self.versions[uri] = 1
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri,
                    language_id=LANGUAGES.get(Path(name).suffix, "plaintext"),
                    version=1,
                    text=text,
                )
            )
        )
        return uri

    def edit(self, uri: str, edits: Sequence[types.TextEdit]) -> None:
        """Apply ``edits`` (ranges refer to the current text) and send them incrementally."""
        text = self.texts[uri]
        index = LineIndex(text)

        def offset(p: types.Position) -> int:
            return index.offset(Position(p.line, p.character), self.encoding)

        ordered = sorted(edits, key=lambda e: (offset(e.range.start), offset(e.range.end)))
        changes = []
        # from the end backwards, so every range still refers to the text it was made for
        for e in reversed(ordered):
            start, end = offset(e.range.start), offset(e.range.end)
            text = text[:start] + e.new_text + text[end:]
            changes.append(types.TextDocumentContentChangePartial(range=e.range, text=e.new_text))
        self.texts[uri] = text
        self.versions[uri] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri, version=self.versions[uri]
                ),
                content_changes=changes,
            )
        )

    def replace(self, name: str, old: str, new: str, nth: int = 0) -> None:
        at = self.find(name, old, nth)
        self.edit(
            self.uri(name),
            [types.TextEdit(range=self.range(name, Span(at, at + len(old))), new_text=new)],
        )

    def stale(self, edit: types.WorkspaceEdit) -> list[str]:
        """The URIs of open buffers whose version differs from the one a versioned edit
        (``documentChanges``) was made on: a client refuses such an edit."""
        return [
            d.text_document.uri
            for d in edit.document_changes or []
            if isinstance(d, types.TextDocumentEdit)
            and d.text_document.version is not None
            and d.text_document.version != self.versions.get(d.text_document.uri)
        ]

    def apply(self, edit: types.WorkspaceEdit) -> list[str]:
        """Apply a WorkspaceEdit as a client does (one made on an older version of an open
        buffer is refused: AssertionError); files that are not open are opened first.
        -> URIs edited."""
        by_uri = file_edits(edit)
        assert by_uri, "expected a WorkspaceEdit with changes or documentChanges"
        assert not self.stale(edit), f"a stale edit: {self.stale(edit)}"
        for uri, edits in by_uri.items():
            if uri not in self.texts:
                name = Path(uri.removeprefix("file://")).relative_to(self.root).as_posix()
                self.open(name)
            self.edit(uri, edits)
        return list(by_uri)

    def close(self, name: str) -> None:
        uri = self.uri(name)
        self.texts.pop(uri, None)
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )


def file_edits(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    """The text edits of a WorkspaceEdit by URI, from ``changes`` or ``documentChanges``."""
    out: dict[str, list[types.TextEdit]] = {}
    for uri, edits in (edit.changes or {}).items():
        out.setdefault(uri, []).extend(edits)
    for change in edit.document_changes or []:
        assert isinstance(change, types.TextDocumentEdit), change
        out.setdefault(change.text_document.uri, []).extend(
            e for e in change.edits if isinstance(e, types.TextEdit)
        )
    return out


async def wait_for(predicate: Callable[[], Any], timeout: float = 15.0) -> Any:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(0.02)


async def wait_for_async(
    make: Callable[[], Awaitable[Any]], timeout: float = 15.0, every: float = 0.1
) -> Any:
    """:func:`wait_for` for a predicate that awaits (a request to the server)."""
    deadline = time.monotonic() + timeout
    while True:
        value = await make()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await asyncio.sleep(every)


def plain(value: Any) -> Any:
    """A notification's params as plain data (pygls hands over named tuples)."""
    if hasattr(value, "_asdict"):
        return {k: plain(v) for k, v in value._asdict().items()}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
