"""Open documents and cheap offset <-> position conversion for large texts.

A 20k-entry .bib is megabytes long; indexing every line start on each keystroke costs tens
of milliseconds.  :class:`SparseIndex` instead remembers a few line starts ("anchors") and
counts line breaks from the nearest one with ``str.count``/``str.find``, which run at C speed.
After an edit, the anchors before it stay valid and those after it shift, so the index of
the new text is ready at once.  Findings come sorted by offset, so converting all of a
file's spans costs about one scan of the text.  Lines end at ``\\r\\n``, ``\\n`` or a lone
``\\r``, as in :class:`~citewarden.text.LineIndex`; in a text with no lone ``\\r`` (the
usual case, CRLF files included) only ``\\n`` is looked for.

:class:`DocumentStore` holds the editor's buffers (replacing pygls' own text sync, which
splits the whole text into lines on every change).
"""

from __future__ import annotations

import itertools
import logging
import threading
from bisect import bisect_right, insort
from dataclasses import dataclass, field

from lsprotocol import types

from citewarden.lsp.convert import path_of
from citewarden.safe_text import visible
from citewarden.text import (
    Encoding,
    Position,
    column_offset,
    count_line_breaks,
    has_lone_cr,
    line_content_end,
    line_start_before,
    next_line_start,
    units,
)
from citewarden.text_splice import splice

log = logging.getLogger(__name__)

#: Anchors closer than this (in characters) to an existing one are not added.
_ANCHOR_GAP = 2048
#: Newlines are counted in blocks of this size when walking to a far line.
_BLOCK = 8192

#: Serial numbers of buffer texts: every open and every change takes the next one.
_SERIALS = itertools.count(1)


class SparseIndex:
    """Offset <-> (line, column) for one immutable text; same API as ``LineIndex``."""

    __slots__ = ("_cr", "_lines", "_lock", "_offsets", "text")

    def __init__(
        self,
        text: str,
        anchors: tuple[list[int], list[int]] | None = None,
        cr: bool | None = None,
    ) -> None:
        self.text = text
        #: parallel sorted lists: offset of a line start, and that line's number
        self._offsets, self._lines = anchors if anchors is not None else ([0], [0])
        #: the text may hold a lone ``\r`` (False: it holds none, and every line ends
        #: just after a ``\n``)
        self._cr = has_lone_cr(text) if cr is None else cr
        self._lock = threading.Lock()

    def _add(self, offset: int, line: int) -> None:
        i = bisect_right(self._offsets, offset)
        near = self._offsets[i - 1] if i else -(_ANCHOR_GAP + 1)
        if offset - near > _ANCHOR_GAP and (
            i == len(self._offsets) or self._offsets[i] - offset > _ANCHOR_GAP
        ):
            insort(self._offsets, offset)
            insort(self._lines, line)

    def _line_start(self, offset: int) -> tuple[int, int]:
        """(line number, offset of its start) of the line holding ``offset``."""
        text = self.text
        with self._lock:
            i = bisect_right(self._offsets, offset) - 1
            base, line = self._offsets[i], self._lines[i]
            if self._cr:
                breaks = count_line_breaks(text, base, offset)
                if breaks == 0:
                    return line, base
                start = line_start_before(text, offset, base)
            else:
                breaks = text.count("\n", base, offset)
                if breaks == 0:
                    return line, base
                start = text.rfind("\n", base, offset) + 1
            line += breaks
            self._add(start, line)
            return line, start

    def _start_of_line(self, line: int) -> int | None:
        """Offset where ``line`` starts (None past the last line)."""
        text = self.text
        n = len(text)
        cr = self._cr
        with self._lock:
            i = bisect_right(self._lines, line) - 1
            pos, at = self._offsets[i], self._lines[i]
            while at < line:
                end = min(n, pos + _BLOCK)
                count = count_line_breaks(text, pos, end) if cr else text.count("\n", pos, end)
                if at + count < line:
                    if end >= n:
                        return None
                    pos, at = end, at + count
                    continue
                while at < line:  # the line starts inside this block
                    pos = next_line_start(text, pos) if cr else text.find("\n", pos) + 1
                    at += 1
            self._add(pos, line)
            return pos

    def line_of(self, offset: int) -> int:
        offset = max(0, min(offset, len(self.text)))
        return self._line_start(offset)[0]

    def position(self, offset: int, encoding: Encoding = Encoding.UTF32) -> Position:
        offset = max(0, min(offset, len(self.text)))
        line, start = self._line_start(offset)
        return Position(line, units(self.text[start:offset], encoding))

    def offset(self, position: Position, encoding: Encoding = Encoding.UTF32) -> int:
        if position.line < 0:
            return 0
        start = self._start_of_line(position.line)
        text = self.text
        if start is None:
            return len(text)
        if self._cr:
            end = line_content_end(text, start)
        else:
            end = text.find("\n", start)
            if end == -1:
                end = len(text)
            if end > start and text[end - 1] == "\r":
                end -= 1
        if encoding is Encoding.UTF32:
            return min(start + max(position.column, 0), end)
        return column_offset(text, start, end, position.column, encoding)

    def edited(self, start: int, end: int, new_text: str, result: str) -> SparseIndex:
        """The index of ``result`` = this text with ``[start, end)`` replaced by ``new_text``."""
        cr = self._cr or has_lone_cr(result, max(0, start - 1), start + len(new_text))
        with self._lock:
            delta = len(new_text) - (end - start)
            kept = start  # anchors up to here stay
            if cr:
                # a \r before the edit and a \n after it may join into one line break, or
                # part: the break ending at start - 1 is counted with the edited text
                lo = max(0, start - 1)
                line_delta = count_line_breaks(
                    result, lo, start + len(new_text)
                ) - count_line_breaks(self.text, lo, end)
                if start and result[start - 1] == "\r":
                    kept = start - 1
            else:
                line_delta = new_text.count("\n") - self.text.count("\n", start, end)
            offsets: list[int] = []
            lines: list[int] = []
            for off, line in zip(self._offsets, self._lines, strict=True):
                if off <= kept:
                    offsets.append(off)
                    lines.append(line)
                elif off > end:
                    offsets.append(off + delta)
                    lines.append(line + line_delta)
        return SparseIndex(result, (offsets, lines), cr)


@dataclass
class Document:
    """One open editor buffer."""

    uri: str
    version: int
    text: str
    index: SparseIndex
    #: (version, offset, tail) of edits not yet handed to the project: the text before the
    #: smallest offset and in the shortest tail is unchanged since then (appended on the
    #: loop, consumed in the worker)
    edits: list[tuple[int, int, int]] = field(default_factory=list)
    #: Identifies the text among every text of every buffer: a client may open a document
    #: again, or change it, without a new version number.
    serial: int = field(default_factory=lambda: next(_SERIALS))
    #: Whether the project takes the buffer's edits (:meth:`take_edits`): a buffer of no
    #: file (``untitled:``) is never checked, and its edits would pile up, one a change.
    tracked: bool = True
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def apply(
        self, change: types.TextDocumentContentChangeEvent, encoding: Encoding
    ) -> tuple[int, int]:
        """Apply one change; -> (offset from which the text changed, length of the tail
        left as it was)."""
        if isinstance(change, types.TextDocumentContentChangePartial):
            r = change.range
            a, moved = self._place(r.start, encoding)
            b, moved_end = self._place(r.end, encoding)
            for at, read in ((r.start, moved), (r.end, moved_end)):
                if read is not None:  # one line a change
                    log.warning(
                        "a change of %s names line %d, character %d, which its text has not: "
                        "read at line %d, character %d",
                        visible(self.uri),
                        at.line,
                        at.character,
                        read.line,
                        read.column,
                    )
                    break
            if a > b:
                log.warning(
                    "a change of %s ends (line %d, character %d) before it starts (line %d, "
                    "character %d): read from the end to the start",
                    visible(self.uri),
                    r.end.line,
                    r.end.character,
                    r.start.line,
                    r.start.character,
                )
                a, b = b, a
            tail = len(self.text) - b
            text = splice(self.text, a, b, change.text)  # one copy of the unchanged text
            self.index = self.index.edited(a, b, change.text, text)
            self.text = text
            return a, tail
        self.text = change.text
        self.index = SparseIndex(change.text)
        return 0, 0

    def _place(self, at: types.Position, encoding: Encoding) -> tuple[int, Position | None]:
        """The offset of a change's position ``at``, and where it was read when the text has
        no such place (past its line's end or its last line, inside a character: the
        nearest place before it, as LSP says, or after the character), else None.  The start
        of the line after the last, where some clients say the text ends, is its end."""
        offset = self.index.offset(Position(at.line, at.character), encoding)
        read = self.index.position(offset, encoding)
        if (read.line, read.column) == (at.line, at.character):
            return offset, None
        # the start of the line after the last, where some clients say the text ends
        end = offset == len(self.text) and (at.line, at.character) == (read.line + 1, 0)
        return offset, None if end else read

    def note_edit(self, version: int, offset: int, tail: int = 0) -> None:
        """Record that ``version`` changed the text from ``offset`` on, all but the last
        ``tail`` characters (nothing for a buffer the project does not take)."""
        if not self.tracked:
            return
        with self._lock:
            self.edits.append((version, offset, tail))

    def take_edits(self, version: int) -> tuple[int, int] | None:
        """Consume the edits up to ``version``: (offset, tail) such that the text of that
        version equals the text last handed over before ``offset`` and in its last
        ``tail`` characters (None: no edit recorded)."""
        with self._lock:
            mine = [(off, tail) for v, off, tail in self.edits if v <= version]
            self.edits = [e for e in self.edits if e[0] > version]
        if not mine:
            return None
        return min(off for off, _ in mine), min(tail for _, tail in mine)


class DocumentStore:
    """The open documents by URI (touched on the event loop only)."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}
        self.encoding = Encoding.UTF16

    def open(self, item: types.TextDocumentItem) -> Document:
        if item.uri in self._docs:
            log.warning(
                "%s is opened again without being closed: the text sent now is its buffer",
                visible(item.uri),
            )
        doc = Document(item.uri, item.version, item.text, SparseIndex(item.text))
        doc.tracked = path_of(item.uri) is not None
        doc.note_edit(item.version, 0)  # the buffer may differ from the file on disk
        self._docs[item.uri] = doc
        return doc

    def change(self, params: types.DidChangeTextDocumentParams) -> Document | None:
        doc = self._docs.get(params.text_document.uri)
        if doc is None:
            log.warning(
                "a change of %s, which is not open, is let go: the file is read from disk",
                visible(params.text_document.uri),
            )
            return None
        if params.text_document.version < doc.version:
            log.warning(
                "a change of %s has version %d, below the buffer's %d: applied as it came",
                visible(params.text_document.uri),
                params.text_document.version,
                doc.version,
            )
        first = tail = len(doc.text)
        for change in params.content_changes:
            at, kept = doc.apply(change, self.encoding)
            first, tail = min(first, at), min(tail, kept)
        doc.version = params.text_document.version
        doc.serial = next(_SERIALS)
        doc.note_edit(doc.version, first, tail)
        return doc

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        return self._docs.get(uri)
