"""The diagnostic store reuses the diagnostics of findings an edit only moved, and what it
publishes always equals converting every finding afresh."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewarden.lsp.convert import Converter
from citewarden.lsp.diagnostics import DiagnosticStore
from citewarden.lsp.documents import SparseIndex
from citewarden.model import Code, Finding, Location, Related, Span
from citewarden.settings import Settings
from citewarden.text import Encoding

BIB = Path("/project/refs.bib")
OTHER = Path("/project/main.tex")
ALPHABET = st.sampled_from(list("ab \r\n{}é😀"))


def _findings(text: str, places: list[tuple[int, int]], other: int) -> list[Finding]:
    """An orphan-like finding at each place (``other``: one more, related to the first)."""
    out = []
    for n, (start, length) in enumerate(places):
        span = Span(start, min(len(text), start + length))
        out.append(Finding(Code.ORPHAN, Location(BIB, span), f"entry {n} is never cited"))
    if places and other >= 0:
        first = out[0].location
        out.append(
            Finding(
                Code.DUPLICATE_KEY,
                Location(BIB, Span(other, other)),
                "defined twice",
                related=(
                    Related(first, "first definition"),
                    Related(Location(OTHER, Span(0, 1)), "cited here"),
                ),
            )
        )
    return sorted(out, key=lambda f: f.location.span.start)


def _places(finding: Finding) -> list[Location]:
    return [finding.location, *(r.location for r in finding.related)]


def _moved(findings: list[Finding], start: int, old_end: int, delta: int) -> list[Finding]:
    """The findings of the old text as a check of the new one gives them: those before the
    edit as they were, those after it as new objects, shifted (those the edit overlaps
    are gone)."""

    def shift(loc: Location) -> Location | None:
        s, e = loc.span.start, loc.span.end
        if loc.path != BIB or e < start:
            return loc
        if s >= old_end:
            return Location(loc.path, Span(s + delta, e + delta))
        return None

    out = []
    for f in findings:
        if all(loc.path != BIB or loc.span.end < start for loc in _places(f)):
            out.append(f)  # before the edit: the same object, as a cached check keeps it
            continue
        loc = shift(f.location)
        related = [Related(r_loc, r.message) for r in f.related if (r_loc := shift(r.location))]
        if loc is not None and len(related) == len(f.related):
            out.append(Finding(f.code, loc, f.message, tuple(related)))
    return out


def _after_edit(
    store: DiagnosticStore,
    findings: list[Finding],
    indexes: dict[Path, SparseIndex],
    converter: Converter,
    edit: tuple[str, int, int],
) -> None:
    """Update ``store`` as the server does after an editor's change: the .bib is dirty,
    unchanged up to ``edit[1]``, and ``edit`` says what the change left as it was."""
    store.update(
        {BIB: findings},
        indexes.get,
        converter,
        dirty={BIB},
        stable={BIB: edit[1]},
        edits={BIB: edit},
    )


@settings(max_examples=300, deadline=None)
@given(
    st.text(ALPHABET, min_size=1, max_size=200),
    st.lists(st.tuples(st.integers(0, 200), st.integers(0, 6)), max_size=12),
    st.integers(-1, 200),
    st.tuples(st.integers(0, 200), st.integers(0, 5), st.text(ALPHABET, max_size=4)),
    st.sampled_from([Encoding.UTF16, Encoding.UTF8]),
)
def test_reused_diagnostics_equal_fresh_ones(
    text: str,
    places: list[tuple[int, int]],
    other: int,
    edit: tuple[int, int, str],
    encoding: Encoding,
) -> None:
    places = [(min(s, len(text)), n) for s, n in places]
    other = min(other, len(text))
    start = min(edit[0], len(text))
    old_end = min(len(text), start + edit[1])
    new_text = text[:start] + edit[2] + text[old_end:]
    indexes = {BIB: SparseIndex(text), OTHER: SparseIndex("x\n")}
    converter = Converter(encoding, Settings(), lambda p: indexes.get(p))
    store = DiagnosticStore()
    before = _findings(text, places, other)
    store.update({BIB: before}, indexes.get, converter)

    after = _moved(before, start, old_end, len(new_text) - len(text))
    indexes[BIB] = SparseIndex(new_text)
    _after_edit(store, after, indexes, converter, (text, start, len(text) - old_end))
    fresh = [d for f in after if (d := converter.diagnostic(f, indexes[BIB])) is not None]
    now = store.get(BIB)
    assert (now.diagnostics if now is not None else []) == fresh


def test_an_edit_without_line_breaks_keeps_later_diagnostics() -> None:
    text = "".join(f"@misc{{k{i},\n  title = {{T{i}}},\n}}\n" for i in range(50))
    starts = [text.index(f"k{i},") for i in range(50)]
    places = [(s, len(f"k{i}")) for i, s in enumerate(starts)]
    indexes = {BIB: SparseIndex(text), OTHER: SparseIndex("x\n")}
    converter = Converter(Encoding.UTF16, Settings(), lambda p: indexes.get(p))
    store = DiagnosticStore()
    before = _findings(text, places, -1)
    store.update({BIB: before}, indexes.get, converter)
    made = store.get(BIB)
    assert made is not None
    old = list(made.per_finding)
    at = text.index("{T10}") + 2  # type a letter into entry 10's title
    new_text = text[:at] + "x" + text[at:]
    after = _moved(before, at, at, 1)
    indexes[BIB] = SparseIndex(new_text)
    _after_edit(store, after, indexes, converter, (text, at, len(text) - at))
    now = store.get(BIB)
    assert now is not None
    # entries 0-10 are before the edit, 11-49 after it on other lines: all 50 reused
    assert all(n is o for n, o in zip(now.per_finding, old, strict=True))
    assert now.diagnostics == [converter.diagnostic(f, indexes[BIB]) for f in after]
    # told of an edit to a text the diagnostics were not made from, it reuses nothing
    # after the edit, and is still right
    other = DiagnosticStore()
    indexes[BIB] = SparseIndex(text)
    other.update({BIB: before}, indexes.get, converter)
    made = other.get(BIB)
    assert made is not None
    first = list(made.per_finding)
    indexes[BIB] = SparseIndex(new_text)
    _after_edit(other, after, indexes, converter, (text.replace("T0", "T9"), at, len(text) - at))
    fresh = other.get(BIB)
    assert fresh is not None
    assert fresh.diagnostics == now.diagnostics
    assert all(n is o for n, o in zip(fresh.per_finding[:11], first[:11], strict=True))
    assert not any(n is o for n, o in zip(fresh.per_finding[11:], first[11:], strict=True))


@pytest.mark.parametrize(
    ("newline", "typed", "before"),
    [
        ("\n", "\r", "T1}"),  # a lone \r typed: a new line
        ("\r", "\r", "T1}"),
        ("\r\n", "\r", "T1}"),
        ("\n", "\r", "\n  title = {T2"),  # \r typed before a \n: one \r\n, no new line
        ("\r", "\n", "  title = {T2"),  # \n typed after a \r: one \r\n, a line less
        ("\r", "x", "  title = {T2"),  # a letter typed after a \r: lines as they were
    ],
)
def test_line_breaks_an_edit_makes_or_joins_move_later_diagnostics(
    newline: str, typed: str, before: str
) -> None:
    """Later diagnostics are reused only when the edit left the number of lines as it was,
    counting ``\\r\\n``, ``\\n`` and a lone ``\\r`` as the line breaks they are."""
    text = "".join(f"@misc{{k{i},\n  title = {{T{i}}},\n}}\n" for i in range(5))
    text = text.replace("\n", newline)
    places = [(text.index(f"k{i},"), 2) for i in range(5)]
    indexes = {BIB: SparseIndex(text), OTHER: SparseIndex("x\n")}
    converter = Converter(Encoding.UTF16, Settings(), lambda p: indexes.get(p))
    store = DiagnosticStore()
    findings = _findings(text, places, -1)
    store.update({BIB: findings}, indexes.get, converter)
    at = text.index(before.replace("\n", newline))
    new_text = text[:at] + typed + text[at:]
    after = _moved(findings, at, at, 1)
    indexes[BIB] = SparseIndex(new_text)
    _after_edit(store, after, indexes, converter, (text, at, len(text) - at))
    now = store.get(BIB)
    assert now is not None
    assert now.diagnostics == [converter.diagnostic(f, indexes[BIB]) for f in after]
