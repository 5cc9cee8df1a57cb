"""The bound on @string expansion counts only the text macros bring into a value: a
literal value is read whatever its length and brace depth, by the C scanner, the row
pattern and the token reader alike, and the error names macros only where macros grew
the value."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from citewarden.model import ParsedBibliography
from citewarden.parsing import bibtex_scan
from citewarden.parsing.bibtex import MAX_EXPANSION, parse_bibtex

PATH = Path("refs.bib")
BIG = "a" * (MAX_EXPANSION + 1)


@contextmanager
def pattern_reader() -> Iterator[None]:
    """Read without the C extension, as a build without it (or CITEWARDEN_PURE_PYTHON) does."""
    saved = bibtex_scan._scan_fields, bibtex_scan._scan_entries
    bibtex_scan._scan_fields = bibtex_scan._scan_entries = None
    try:
        yield
    finally:
        bibtex_scan._scan_fields, bibtex_scan._scan_entries = saved


def read_both(text: str) -> tuple[ParsedBibliography, ParsedBibliography]:
    fast = parse_bibtex(PATH, text)
    with pattern_reader():
        slow = parse_bibtex(PATH, text)
    return fast, slow


def summary(bib: ParsedBibliography) -> tuple[object, ...]:
    entries = [(e.key, [(f.name, f.value, f.expanded) for f in e.fields]) for e in bib.entries]
    problems = [(p.code, p.location.span, p.message) for p in bib.problems]
    return entries, problems, dict(bib.strings)


@pytest.mark.parametrize("depth", range(1, 7))
def test_a_long_literal_value_is_read_at_any_brace_depth(depth: int) -> None:
    inner = "{" * (depth - 1) + BIG + "}" * (depth - 1)
    text = f"@misc{{k, title = {{{inner}}}, year = 2020}}\n@misc{{after, title = {{A}}}}\n"
    for bib in read_both(text):
        assert not bib.problems
        assert [e.key for e in bib.entries] == ["k", "after"]
        assert bib.entries[0].get("title") == inner
    assert summary(read_both(text)[0]) == summary(read_both(text)[1])


@pytest.mark.parametrize(
    "value", [f'"{BIG}"', f'{{{BIG}}} # "b"', f'"b" # {{{{{{{BIG}}}}}}} # 2020']
)
def test_long_literal_parts_are_not_an_expansion(value: str) -> None:
    text = f"@misc{{k, title = {value}}}\n"
    fast, slow = read_both(text)
    assert not fast.problems and not slow.problems
    assert summary(fast) == summary(slow)


def test_a_long_literal_string_macro_is_defined() -> None:
    text = f"@string{{big = {{{{{BIG}}}}}}}\n@misc{{k, title = {{T}}}}\n"
    for bib in read_both(text):
        assert not bib.problems
        assert bib.strings["big"] == "{" + BIG + "}"


@pytest.mark.parametrize("use", ["big", 'big # "x"', '"x" # big', "{x} # big # {y}"])
@pytest.mark.parametrize("other", ["year = 2020", 'note = "a" # "b"', "month = jan"])
def test_text_brought_by_macros_is_bounded_alike(use: str, other: str) -> None:
    text = f"@string{{big = {{{BIG}}}}}\n@misc{{k, title = {use}, {other}}}\n"
    fast, slow = read_both(text)
    assert summary(fast) == summary(slow)
    (problem,) = fast.problems
    assert "@string macros" in problem.message
    assert f"more than {MAX_EXPANSION:,} characters" in problem.message
    assert text[problem.location.span.start :].startswith(use)


def test_macros_under_the_bound_beside_long_literals_are_read() -> None:
    text = f'@string{{s = "short"}}\n@misc{{k, title = s # {{{BIG}}} # s # jan}}\n'
    fast, slow = read_both(text)
    assert not fast.problems
    assert summary(fast) == summary(slow)
    assert fast.entries[0].fields[0].expanded == "short" + BIG + "short" + "January"
