"""The one-pass entry scanner (the C extension ``citewarden.parsing._bibscan``) reads exactly
what the regular-expression reader reads: every bibliography parsed with it and without it
gives the same entries, fields, spans, expansions and problems."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citewarden.model import ParsedBibliography
from citewarden.parsing import bibtex_scan
from citewarden.parsing.bibtex import parse_bibtex, reparse_bibtex

DATA = Path(__file__).parent / "data"
PATH = Path("p.bib")
SCAN = bibtex_scan._scan_fields


@contextmanager
def pattern_reader() -> Iterator[None]:
    """Read with the regular expressions only, as a build without the extension does."""
    saved = bibtex_scan._scan_fields, bibtex_scan._scan_entries
    bibtex_scan._scan_fields = bibtex_scan._scan_entries = None
    try:
        yield
    finally:
        bibtex_scan._scan_fields, bibtex_scan._scan_entries = saved


def dump(bib: ParsedBibliography) -> tuple[object, ...]:
    """Everything a reader decides, in plain values."""
    entries = [
        (
            e.key,
            e.entry_type,
            e.span,
            e.key_span,
            e.aliases,
            [(f.name, f.value, f.expanded, f.name_span, f.value_span) for f in e.fields],
        )
        for e in bib.entries
    ]
    problems = [
        (p.code, p.location.span, p.message, [r.location.span for r in p.related])
        for p in bib.problems
    ]
    return entries, problems, dict(bib.strings), bib.suppressed_lines, bib.complete


def both(text: str) -> tuple[tuple[object, ...], tuple[object, ...]]:
    fast = dump(parse_bibtex(PATH, text))
    with pattern_reader():
        slow = dump(parse_bibtex(PATH, text))
    return fast, slow


def test_the_extension_is_built() -> None:
    # The test environment compiles it (scripts/setup); a silent build failure would leave
    # every other test here comparing the pattern reader with itself.
    assert SCAN is not None


needs_scan = pytest.mark.skipif(SCAN is None, reason="built without the C extension")


@needs_scan
@pytest.mark.parametrize(
    "path", sorted(DATA.rglob("*.bib")), ids=lambda p: str(p.relative_to(DATA))
)
def test_real_bibliographies_read_the_same(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    fast, slow = both(text)
    assert fast == slow


# Pieces of entries, chosen to reach every branch of the scanner: each value form, the
# depth limit of nested braces, '#', comments, missing commas, characters that are white
# space or digits outside ASCII, and text of each storage width (Latin-1, UCS-2, UCS-4).
PIECES = [
    "@article{k1,",
    "@misc{k2,\n",
    "@book{k3 ,",
    "@string{jnl = {Journal}}\n",
    "\n@misc{k4, title = {T}}\n",
    " title = ",
    "author=",
    " month = jan",
    " journal = jnl",
    " note = undefinedmacro",
    " year = 2020",
    " year = \u0663\u0664",
    " ids = {a1, a2}",
    "{",
    "}",
    "{a {b {c {d}}}}",
    "{x{y}z}",
    '"q {r} s"',
    '"',
    ",",
    ",\n",
    " # ",
    "% a comment\n",
    "%",
    "\n",
    "\u00a0",
    "\x1c",
    "=",
    "@",
    "é",
    "\u2014",
    "\U0001f600",
    "\\",
    "(",
    "}\r\n",
    " note = {mail@example.org}",
    "% @misc{in-a-comment,}\n",
]
bib_text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=2)), max_size=40).map(
    "".join
)
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@needs_scan
@SETTINGS
@given(bib_text)
def test_random_texts_read_the_same(text: str) -> None:
    fast, slow = both(text)
    assert fast == slow


values = st.one_of(
    st.text(alphabet="ab {}é\u2014\U0001f600\n%,=#", max_size=12).map(lambda s: "{" + s + "}"),
    st.text(alphabet='ab {}"é\n', max_size=8).map(lambda s: '"' + s + '"'),
    st.sampled_from(["2020", "\u0663", "jan", "jnl", "nomacro", "a#b", "{}", '""']),
)
field = st.tuples(
    st.sampled_from(["title", "Title", "year", "note", "ids", "x-y", "title"]),
    st.sampled_from(["=", " = ", "\n=\n"]),
    values,
    st.sampled_from([",", ",\n", "", " ,", ",\n% c\n", "\n% c\n"]),
).map("".join)
entry_text = st.tuples(
    st.sampled_from(["@string{jnl = {J}}\n", ""]),
    st.sampled_from(["@misc{key,", "@article{key,\n", "@book{key ,  "]),
    st.lists(field, max_size=5).map("".join),
    st.sampled_from(
        ["}", "\n}", " % c\n}", "", "}\n@misc{z,}", "} title = {x}", "}\r\n", "},", "}; a=1"]
    ),
).map("".join)


@needs_scan
@SETTINGS
@given(entry_text)
def test_entry_shaped_texts_read_the_same(text: str) -> None:
    fast, slow = both(text)
    assert fast == slow


@needs_scan
def test_the_scanner_takes_the_common_entry_and_leaves_the_rest() -> None:
    assert SCAN is not None
    text = '@a{k,\n title = {A {B} c},\n year=2020, month = jan,\n note="x{y}" }\n'
    body = text.index(",") + 1
    end, names, vals, macros = SCAN(text, body, len(text)) or (0, (), (), None)
    assert text[end - 1] == "}" and end == text.rindex("}") + 1
    assert names == ("title", "year", "month", "note")
    assert vals == ("A {B} c", "2020", "jan", "x{y}")
    assert macros == ("", "", "jan", "")
    assert SCAN(text, body, len(text) - 3) is None  # not closed before the limit
    for body_text in [
        " title = {a} # {b}}",  # concatenation
        " title = {a} year = {b}}",  # missing comma
        " title = {a {b {c {d}}}}}",  # nested deeper than the pattern reads
        " title = {a}\n % c\n}",  # a comment before the closing brace
        " title {a}}",  # no '='
    ]:
        assert SCAN("@a{k," + body_text, 5, 5 + len(body_text)) is None, body_text


@needs_scan
def test_the_scanner_checks_its_arguments() -> None:
    assert SCAN is not None
    with pytest.raises(TypeError):
        SCAN(b"@a{k,}", 5, 6)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        SCAN("@a{k,}")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        SCAN("@a{k,}", 7, 6)
    assert SCAN("@a{k,}", 5, 100) == (6, (), (), None)  # a limit past the end is the end


@needs_scan
def test_reparse_after_an_edit_reads_the_same() -> None:
    text = (DATA / "bibs" / "manubot-bibliography.bib").read_text(encoding="utf-8")
    at = text.index("title") + len("title = {")
    new = text[:at] + "Revised " + text[at:]
    old_bib = parse_bibtex(PATH, text)
    fast = dump(reparse_bibtex(old_bib, text, new, (at, at, at + len("Revised "))))
    with pattern_reader():
        old_slow = parse_bibtex(PATH, text)
        slow = dump(reparse_bibtex(old_slow, text, new, (at, at, at + len("Revised "))))
    assert fast == slow == dump(parse_bibtex(PATH, new))


def test_the_variable_turns_the_extension_off() -> None:
    code = (
        "from citewarden.parsing import bibtex_scan as b; "
        "print(b._scan_fields is None, b._scan_entries is None)"
    )
    for value, off in (("1", "True True"), ("0", f"{SCAN is None} {SCAN is None}")):
        env = {**os.environ, bibtex_scan.PURE_PYTHON_VARIABLE: value}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        assert out.stdout.split() == off.split()
