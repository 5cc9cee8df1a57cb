"""Entry sequences made of moved runs behave exactly like the tuples they stand for."""

from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewarden.model import Entry, Span
from citewarden.parsing.bibtex import parse_bibtex, reparse_bibtex
from citewarden.parsing.entry_runs import MAX_RUNS, EntryRuns, splice

PATH = Path("refs.bib")


def entry(key: str, start: int) -> Entry:
    return Entry(key, "article", PATH, Span(start, start + 10), Span(start + 9, start + 9))


def move(e: Entry, delta: int) -> Entry:
    if not delta:
        return e
    return replace(
        e,
        span=Span(e.span.start + delta, e.span.end + delta),
        key_span=Span(e.key_span.start + delta, e.key_span.end + delta),
    )


made: list[int] = []


def counting_move(e: Entry, delta: int) -> Entry:
    made.append(1)
    return move(e, delta)


edits = st.lists(
    st.tuples(
        st.integers(0, 60),  # start
        st.integers(0, 5),  # how many entries are replaced
        st.integers(0, 3),  # how many new ones
        st.integers(-40, 40),  # shift of the rest
    ),
    max_size=40,
)


@settings(max_examples=150, deadline=None)
@given(edits)
def test_spliced_sequences_equal_eagerly_moved_tuples(ops: list[tuple[int, int, int, int]]) -> None:
    plain: tuple[Entry, ...] = tuple(entry(f"k{i}", 5000 + 20 * i) for i in range(50))
    runs: object = plain
    for serial, (start, width, new, delta) in enumerate(ops):
        start = min(start, len(plain))
        stop = min(len(plain), start + width)
        middle = tuple(entry(f"n{serial}_{j}", 5000 + j) for j in range(new))
        plain = plain[:start] + middle + tuple(move(e, delta) for e in plain[stop:])
        runs = splice(runs, start, stop, middle, delta, move)  # type: ignore[arg-type]
        assert isinstance(runs, (tuple, EntryRuns))
        if isinstance(runs, EntryRuns):
            assert len(runs.runs) <= MAX_RUNS
        assert len(runs) == len(plain)
        assert tuple(runs) == plain
        assert runs == plain
        for i in (0, len(plain) // 2, len(plain) - 1, -1):
            if plain:
                assert runs[i] == plain[i]
                if isinstance(runs, EntryRuns):
                    assert runs.start_of(i) == plain[i].span.start
        assert runs[3:7] == plain[3:7]
        assert runs[::3] == plain[::3]
    if isinstance(runs, EntryRuns):
        assert hash(runs) == hash(plain)
        back = pickle.loads(pickle.dumps(runs))
        assert type(back) is tuple and back == plain


def test_moved_entries_are_made_once_and_only_when_asked_for() -> None:
    plain = tuple(entry(f"k{i}", 100 * i) for i in range(1000))
    made.clear()
    runs = splice(plain, 500, 501, (entry("new", 50_000),), 7, counting_move)
    assert isinstance(runs, EntryRuns)
    assert made == []  # nothing moved yet
    assert runs[900].span.start == 900 * 100 + 7
    assert runs.start_of(800) == 800 * 100 + 7
    assert len(made) == 1
    assert runs[900] is runs[900]
    assert runs[10] is plain[10]  # in front of the edit: the same object
    assert len(made) == 1
    with pytest.raises(IndexError):
        runs[1000]


def test_edits_at_the_same_place_keep_the_run_count_small() -> None:
    plain = tuple(entry(f"k{i}", 100 * i) for i in range(100))
    runs: object = plain
    for n in range(30):
        runs = splice(runs, 40, 41, (entry("k40", 4000),), n % 2 * 2 - 1, move)  # type: ignore[arg-type]
    assert isinstance(runs, EntryRuns) and len(runs.runs) == 3


def test_a_re_read_bibliography_shares_the_entries_behind_the_edit() -> None:
    text = "".join(f"@article{{k{i},\n  title = {{T{i}}},\n}}\n" for i in range(200))
    old = parse_bibtex(PATH, text)
    at = text.index("{k100,") + 2
    new_text = text[:at] + "x" + text[at:]
    new = reparse_bibtex(old, text, new_text, (at, at, at + 1))
    assert isinstance(new.entries, EntryRuns)
    assert new == parse_bibtex(PATH, new_text)
    assert [e.key for e in new.entries][99:102] == ["k99", "kx100", "k101"]
    assert new.entries[150].span.start == old.entries[150].span.start + 1
    # and again, from the re-read one
    again = reparse_bibtex(new, new_text, text, (at, at + 1, at))
    assert again == old
