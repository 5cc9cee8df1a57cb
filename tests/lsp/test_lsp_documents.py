"""The server's document buffers and sparse line index agree with ``citewarden.text.LineIndex``
on any text, in every encoding, before and after edits."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types

import citewarden.text as text_module
from citewarden.lsp.documents import Document, DocumentStore, SparseIndex
from citewarden.text import Encoding, LineIndex, Position

ALPHABET = st.sampled_from(list("ab \n\r\té日😀{}"))
TEXTS = st.text(ALPHABET, max_size=300)


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.lists(st.integers(0, 400), max_size=20), st.sampled_from(list(Encoding)))
def test_positions_match_line_index(text: str, offsets: list[int], encoding: Encoding) -> None:
    full = LineIndex(text)
    sparse = SparseIndex(text)
    for off in offsets:  # any order: anchors added along the way must not change results
        assert sparse.position(off, encoding) == full.position(off, encoding)
        assert sparse.line_of(off) == full.line_of(off)


@settings(max_examples=200, deadline=None)
@given(
    TEXTS,
    st.lists(st.tuples(st.integers(-1, 40), st.integers(-1, 12)), max_size=20),
    st.sampled_from(list(Encoding)),
)
def test_offsets_match_line_index(
    text: str, positions: list[tuple[int, int]], encoding: Encoding
) -> None:
    full = LineIndex(text)
    sparse = SparseIndex(text)
    for line, col in positions:
        assert sparse.offset(Position(line, col), encoding) == full.offset(
            Position(line, col), encoding
        )


@settings(max_examples=200, deadline=None)
@given(
    TEXTS,
    st.lists(
        st.tuples(st.integers(0, 300), st.integers(0, 300), st.text(ALPHABET, max_size=8)),
        max_size=8,
    ),
    st.lists(st.integers(0, 400), max_size=10),
)
def test_incremental_edits_keep_the_index_right(
    text: str, edits: list[tuple[int, int, str]], probes: list[int]
) -> None:
    doc = Document("file:///x", 1, text, SparseIndex(text))
    expected = text
    for version, (a, b, new) in enumerate(edits, 2):
        index = LineIndex(expected)
        a, b = sorted((min(a, len(expected)), min(b, len(expected))))
        start, end = index.position(a, Encoding.UTF16), index.position(b, Encoding.UTF16)
        for off in probes:  # warm the anchors so that the edit has some to move
            doc.index.position(off)
        at, tail = doc.apply(
            types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=start.line, character=start.column),
                    end=types.Position(line=end.line, character=end.column),
                ),
                text=new,
            ),
            Encoding.UTF16,
        )
        # a position inside a surrogate pair or past a CR rounds like LineIndex does
        a = index.offset(start, Encoding.UTF16)
        b = index.offset(end, Encoding.UTF16)
        expected = expected[:a] + new + expected[b:]
        assert doc.text == expected
        doc.note_edit(version, at, tail)
        after = LineIndex(expected)
        for off in probes:
            assert doc.index.position(off, Encoding.UTF16) == after.position(off, Encoding.UTF16)
    # what the edits say is unchanged since the first text is unchanged
    taken = doc.take_edits(len(edits) + 1)
    if edits:
        assert taken is not None
        prefix, suffix = taken
        assert doc.text[:prefix] == text[:prefix]
        assert suffix <= min(len(text), len(doc.text))
        assert doc.text[len(doc.text) - suffix :] == text[len(text) - suffix :]
    assert doc.take_edits(len(edits) + 1) is None  # consumed


def test_a_line_of_megabytes_is_measured_without_a_step_per_character(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A position at the end of a line of a million characters, not ASCII, and the offset
    of a column there, in an open buffer's index and in the index of a file on disk: the
    characters are counted in blocks, where each was looked at in turn (a second for each
    position a diagnostic or a request needs).  Here the characters looked at one by one
    are counted."""
    line = "word é 😀 日 " * 100_000
    text = f"first\n{line}\\cite{{zz}}\nlast\n"
    at = text.index("zz")
    looked_at = 0
    unit_len = text_module._unit_len

    def counted(ch: str, encoding: Encoding) -> int:
        nonlocal looked_at
        looked_at += 1
        return unit_len(ch, encoding)

    monkeypatch.setattr(text_module, "_unit_len", counted)
    for encoding in Encoding:
        sparse, full = SparseIndex(text), LineIndex(text)
        position = sparse.position(at, encoding)
        assert position == full.position(at, encoding)
        for index in (sparse, full):
            assert index.offset(position, encoding) == at
            assert index.offset(Position(position.line, position.column + 2), encoding) == at + 2
    assert looked_at < 10_000, looked_at


def test_a_change_that_ends_before_it_starts_is_read_so_and_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A range whose end comes before its start (no client should send one) was read from
    end to start without a word: it still is, and the log says what the client sent."""
    doc = Document("file:///x\u202e", 1, "ab\ncd\n", SparseIndex("ab\ncd\n"))
    reversed_range = types.Range(
        start=types.Position(line=1, character=1), end=types.Position(line=0, character=1)
    )
    with caplog.at_level("WARNING", logger="citewarden.lsp.documents"):
        doc.apply(
            types.TextDocumentContentChangePartial(range=reversed_range, text="X"),
            Encoding.UTF16,
        )
    assert doc.text == "aXd\n"
    [record] = caplog.records
    assert record.getMessage() == (
        "a change of file:///x\\u202e ends (line 0, character 1) before it starts (line 1, "
        "character 1): read from the end to the start"
    )


@pytest.mark.parametrize(
    ("line", "character", "read"),
    [(7, 0, "line 2, character 0"), (0, 9, "line 0, character 2"), (1, 1, "line 1, character 2")],
)
def test_a_change_at_a_place_the_text_has_not_is_read_nearest_and_logged(
    caplog: pytest.LogCaptureFixture, line: int, character: int, read: str
) -> None:
    """A position past the last line, past a line's end or inside a character (half an
    emoji in UTF-16) is read at the nearest place (before it, as LSP says, or after the character): it was
    without a word, and a client out of step with the buffer went unseen."""
    text = "ab\n\U0001f600\n"
    doc = Document("file:///x", 1, text, SparseIndex(text))
    at = types.Position(line=line, character=character)
    with caplog.at_level("WARNING", logger="citewarden.lsp.documents"):
        doc.apply(
            types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="X"),
            Encoding.UTF16,
        )
    [record] = caplog.records
    assert record.getMessage() == (
        f"a change of file:///x names line {line}, character {character}, which its text "
        f"has not: read at {read}"
    )
    assert "X" in doc.text


def test_a_change_inside_the_text_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    text = "ab\n\U0001f600\r\n"
    doc = Document("file:///x", 1, text, SparseIndex(text))
    ends = [types.Position(line=1, character=2), types.Position(line=2, character=0)]
    ends.append(types.Position(line=3, character=0))  # the line after the last: the end
    with caplog.at_level("WARNING", logger="citewarden.lsp.documents"):
        for at in (types.Position(line=0, character=0), *ends):
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=at, end=at), text=""
            )
            doc.apply(change, Encoding.UTF16)
    assert not caplog.records


def test_a_change_of_a_document_not_open_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    params = types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri="file:///y", version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="x")],
    )
    with caplog.at_level("WARNING", logger="citewarden.lsp.documents"):
        assert DocumentStore().change(params) is None
    [record] = caplog.records
    assert record.getMessage() == (
        "a change of file:///y, which is not open, is let go: the file is read from disk"
    )


def test_a_document_opened_twice_and_a_version_going_back_are_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Both were taken without a word: the text sent last is the buffer, and the log says
    the client did what LSP does not let it do."""
    store = DocumentStore()
    item = types.TextDocumentItem(uri="file:///z.tex", language_id="latex", version=5, text="a")
    with caplog.at_level("WARNING", logger="citewarden.lsp.documents"):
        store.open(item)
        assert not caplog.records
        store.open(types.TextDocumentItem(uri=item.uri, language_id="latex", version=5, text="b"))
        change = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=item.uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="c")],
        )
        doc = store.change(change)
    assert doc is not None and doc.text == "c"
    assert [r.getMessage() for r in caplog.records] == [
        "file:///z.tex is opened again without being closed: the text sent now is its buffer",
        "a change of file:///z.tex has version 3, below the buffer's 5: applied as it came",
    ]
