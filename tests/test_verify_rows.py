"""Carrying per-entry verification rows across an edit of a bibliography."""

from __future__ import annotations

from pathlib import Path

from citewarden.lsp.verify_rows import MARGIN, carried, moved_rows, shift, spliced
from citewarden.model import Code, Finding, Fix, Location, Related, Span, TextEdit, moved_finding
from citewarden.parsing.bibtex import parse_bibtex, reparse_bibtex

BIB = Path("refs.bib")
TEX = Path("main.tex")


def _text(n: int) -> str:
    return "".join(f"@article{{k{i},\n  title = {{T{i}}},\n}}\n" for i in range(n))


def test_an_edit_in_the_middle_carries_the_entries_around_it() -> None:
    text = _text(20)
    old = parse_bibtex(BIB, text)
    at = text.index("{T10}") + 2
    new_text = text[:at] + "x\n" + text[at:]
    new = reparse_bibtex(old, text, new_text, (at, at, at + 2))
    span = carried(old, new)
    assert span is not None
    head, tail = span
    assert head == 10 - MARGIN and tail == 9 - MARGIN
    assert shift(old, new, tail) == 2
    assert [e.key for e in new.entries[:head]] == [e.key for e in old.entries[:head]]
    assert shift(old, new, 0) == 0


def test_nothing_is_carried_from_an_unrelated_parse_or_with_ignore_comments() -> None:
    text = _text(5)
    old = parse_bibtex(BIB, text)
    assert carried(old, parse_bibtex(BIB, text)) is None  # read from scratch
    with_comment = "% citewarden: ignore\n" + text
    commented = parse_bibtex(BIB, with_comment)
    at = with_comment.index("{T3}") + 2
    edited = with_comment[:at] + "y" + with_comment[at:]
    again = reparse_bibtex(commented, with_comment, edited, (at, at, at + 1))
    assert again.reused is not None
    assert carried(commented, again) is None


def test_a_moved_finding_moves_its_spans_and_its_edits_in_its_own_file_only() -> None:
    finding = Finding(
        Code.PAGES_MISMATCH,
        Location(BIB, Span(10, 20)),
        "pages",
        (Related(Location(BIB, Span(1, 2)), "here"), Related(Location(TEX, Span(5, 6)), "there")),
        (Fix("Set pages", (TextEdit(BIB, Span(12, 18), "1--2"), TextEdit(TEX, Span(0, 0), "x"))),),
    )
    out = moved_finding(finding, 7)
    assert out.location == Location(BIB, Span(17, 27))
    assert [r.location.span for r in out.related] == [Span(8, 9), Span(5, 6)]
    assert [e.span for e in out.fixes[0].edits] == [Span(19, 25), Span(0, 0)]
    assert (out.code, out.message, out.data, out.severity) == (
        finding.code,
        finding.message,
        finding.data,
        finding.severity,
    )
    assert moved_finding(finding, 0) is finding
    empty: tuple[Finding, ...] = ()
    assert moved_rows([empty, (finding,)], 3) == [empty, (moved_finding(finding, 3),)]
    assert spliced([1, 2, 3, 4], 1, 2, ["a"]) == [1, "a", 3, 4]
    assert spliced([1, 2, 3, 4], 2, 0, ["a", "b"]) == [1, 2, "a", "b"]
