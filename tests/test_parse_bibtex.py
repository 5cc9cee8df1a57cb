"""BibTeX/BibLaTeX reader: spans, macros, recovery after syntax errors, encodings, agreement
with bibtexparser 2 on real files, and incremental re-parsing."""

from __future__ import annotations

import codecs
import copy
import dataclasses
import gc
import pickle
import re
from pathlib import Path

import bibtexparser
import pytest
from bibtexparser.model import DuplicateBlockKeyBlock, DuplicateFieldKeyBlock, ParsingFailedBlock
from bibtexparser.model import Entry as BpEntry

from citewarden.model import BibFormat, Code, Entry, Field, ParsedBibliography, Span
from citewarden.parsing.bibtex import (
    keys_in_comments,
    keys_on_comment_lines,
    parse_bibtex,
    reparse_bibtex,
)
from citewarden.parsing.encoding import decode_bytes
from citewarden.parsing.latex_decode import decode_latex
from markers import parse_markers

DATA = Path(__file__).parent / "data"
PATH = Path("refs.bib")


def parse(text: str) -> ParsedBibliography:
    return parse_bibtex(PATH, text)


def sl(text: str, span: Span) -> str:
    return text[span.start : span.end]


def codes(bib: ParsedBibliography) -> list[Code]:
    return [p.code for p in bib.problems]


# ---------------------------------------------------------------------------------------
# Entries, fields and exact spans
# ---------------------------------------------------------------------------------------


def test_entry_key_type_fields_and_spans() -> None:
    m = parse_markers(
        "Some text before.\n"
        "⟦entry|@Article{⟦key|Knuth:1984.a⟧,\n"
        "  ⟦n1|Author⟧ = {⟦v1|Donald E. {K}nuth⟧},\n"
        '  ⟦n2|title⟧  = "⟦v2|Literate {Programming}⟧",\n'
        "  ⟦n3|year⟧ = ⟦v3|1984⟧,\n"
        "  ⟦n4|journal⟧=⟦v4|cj⟧\n"
        "}⟧\n"
        "trailing text\n"
    )
    t = m.text
    bib = parse(t)
    assert bib.format is BibFormat.BIBTEX and bib.path == PATH
    assert bib.complete
    assert [p.code for p in bib.problems] == [Code.UNDEFINED_STRING]  # 'cj'
    (e,) = bib.entries
    assert e.key == "Knuth:1984.a" and e.key_span == m.named["key"]
    assert e.entry_type == "article"
    assert e.span == m.named["entry"]
    assert [f.name for f in e.fields] == ["author", "title", "year", "journal"]
    for i, f in enumerate(e.fields, 1):
        assert f.name_span == m.named[f"n{i}"]
        assert f.value_span == m.named[f"v{i}"]
        assert sl(t, f.value_span) == f.value
    assert e.get("TITLE") == "Literate {Programming}"
    assert e.field("year") == e.fields[2]
    assert e.get("missing", "d") == "d"


def test_replacing_a_value_span_keeps_delimiters() -> None:
    t = '@book{b, title = {Old}, note = "x", year = 1999}\n'
    bib = parse(t)
    (e,) = bib.entries
    for name, new in (("title", "New {T}itle"), ("note", "changed"), ("year", "2001")):
        f = e.field(name)
        assert f is not None
        edited = t[: f.value_span.start] + new + t[f.value_span.end :]
        again = parse(edited).entries[0]
        assert again.get(name) == new
        assert again.key == "b" and len(again.fields) == 3


def test_paren_delimited_entry_and_entry_without_fields() -> None:
    t = "@misc(p1, title = {In (parens)}, year = 2000)\n@misc{onlykey}\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["p1", "onlykey"]
    assert bib.entries[0].get("title") == "In (parens)"
    assert sl(t, bib.entries[0].span).endswith(")")
    assert bib.entries[1].fields == ()
    assert bib.complete and not bib.problems


def test_line_break_after_at_sign_and_keys_with_equals_are_read_as_bibtex_reads_them() -> None:
    # TeX Live's btxdoc.bib writes "@" and the entry type on two lines
    t = '@\nmanual(scribe,\n  title = "Scribe"\n)\n@misc{a=b, title = {T}}\n@misc{ok, year = 2000}\n'
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["scribe", "a=b", "ok"]
    assert [e.entry_type for e in bib.entries] == ["manual", "misc", "misc"]
    assert [sl(t, e.key_span) for e in bib.entries] == ["scribe", "a=b", "ok"]
    assert bib.entries[1].get("title") == "T"
    assert bib.complete and not bib.problems
    # still an error: a field where the key should be
    assert "missing entry key" in parse("@misc{title={T}, year=2000}").problems[0].message


def test_keys_keep_their_case_and_comparisons_casefold() -> None:
    bib = parse("@article{SmithJ2000,title={a}}\n@article{smithj2000,title={b}}\n")
    keys = [e.key for e in bib.entries]
    assert keys == ["SmithJ2000", "smithj2000"]
    assert keys[0].casefold() == keys[1].casefold()


def test_deeply_nested_braces_and_quotes_inside_braces() -> None:
    m = parse_markers(
        '@article{deep, title = {⟦v|a {b {c {d {e} d} c} b} "q" a⟧}, note = "⟦w|x {"} y⟧"}\n'
    )
    (e,) = parse(m.text).entries
    assert e.fields[0].value_span == m.named["v"]
    assert e.fields[1].value_span == m.named["w"]


def test_huge_value_is_read_exactly() -> None:
    abstract = ("word {Nested} " * 80_000).strip()
    t = f"@article{{big, abstract = {{{abstract}}}, year = 2020}}\n@misc{{after, title={{x}}}}\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["big", "after"]
    f = bib.entries[0].fields[0]
    assert f.value == abstract and sl(t, f.value_span) == abstract


def test_empty_values() -> None:
    t = '@misc{e, title = {}, note = ""}\n'
    (e,) = parse(t).entries
    assert [(f.value, f.value_span.start == f.value_span.end) for f in e.fields] == [
        ("", True),
        ("", True),
    ]


def test_comment_lines_between_fields_are_skipped() -> None:
    t = "@misc{c,\n  % a note\n  title = {x},\n  % another\n  year = 2000\n}\n"
    (e,) = parse(t).entries
    assert [f.name for f in e.fields] == ["title", "year"]


# ---------------------------------------------------------------------------------------
# @string, @preamble, @comment, crossref, xdata, ids
# ---------------------------------------------------------------------------------------


def test_strings_concatenation_and_month_macros() -> None:
    m = parse_markers(
        '@string{acm = "ACM"}\n'
        "@STRING(press = acm # { Press})\n"
        '@string{full = press # ", New York"}\n'
        "@book{b,\n"
        "  publisher = ⟦pub|full⟧,\n"
        "  month = ⟦mon|aug⟧,\n"
        '  note = ⟦note|"In " # acm # {, } # 1999⟧,\n'
        "  title = {acm},\n"
        "}\n"
    )
    bib = parse(m.text)
    assert dict(bib.strings) == {"acm": "ACM", "press": "ACM Press", "full": "ACM Press, New York"}
    (e,) = bib.entries
    pub, mon, note, title = e.fields
    assert (pub.value, pub.expanded, pub.value_span) == (
        "full",
        "ACM Press, New York",
        m.named["pub"],
    )
    assert (mon.value, mon.expanded, mon.value_span) == ("aug", "August", m.named["mon"])
    assert note.value == '"In " # acm # {, } # 1999' and note.value_span == m.named["note"]
    assert note.expanded == "In ACM, 1999"
    assert (title.value, title.expanded, title.text) == ("acm", None, "acm")
    assert e.get("publisher") == "ACM Press, New York"
    assert not bib.problems


def test_string_macros_are_case_insensitive_and_must_be_defined_before_use() -> None:
    m = parse_markers(
        '@misc{early, journal = ⟦u|JACM⟧}\n@String{jacm = "J. ACM"}\n@misc{late, journal = JACM}\n'
    )
    bib = parse(m.text)
    early, late = bib.entries
    assert early.get("journal") == "JACM" and early.field("journal").expanded is None  # type: ignore[union-attr]
    assert late.get("journal") == "J. ACM"
    (p,) = bib.problems
    assert p.code is Code.UNDEFINED_STRING and p.location.span == m.named["u"]
    assert "JACM" in p.message
    assert bib.complete


INHERITED = (("ieee_j_pami", "IEEE Trans. Pattern Anal. Mach. Intell."), ("jmlr", "JMLR"))


def test_macros_inherited_from_files_read_before_hold_from_the_start() -> None:
    text = (
        "@misc{a, journal = IEEE_J_PAMI}\n"
        '@string{jmlr = "J. Mach. Learn. Res."}\n'  # a definition of its own replaces one
        "@misc{b, journal = jmlr # { 2}}\n@misc{c, journal = nope}\n"
    )
    bib = parse_bibtex(Path("refs.bib"), text, INHERITED)
    a, b, _ = bib.entries
    assert a.get("journal") == "IEEE Trans. Pattern Anal. Mach. Intell."
    assert b.get("journal") == "J. Mach. Learn. Res. 2"
    (p,) = bib.problems  # only the macro defined nowhere
    assert p.code is Code.UNDEFINED_STRING and "nope" in p.message
    assert dict(bib.strings) == {"jmlr": "J. Mach. Learn. Res."}  # the file's own
    alone = parse_bibtex(Path("refs.bib"), text)
    assert [p.data["name"] for p in alone.problems] == ["IEEE_J_PAMI", "nope"]


@pytest.mark.parametrize(
    ("again", "undefined"),
    [(INHERITED, []), (INHERITED[:1], ["jmlr"] * 40), ((), ["IEEE_J_PAMI"] + ["jmlr"] * 40)],
    ids=["same", "fewer", "none"],
)
def test_a_re_read_keeps_or_replaces_the_inherited_macros(
    again: tuple[tuple[str, str], ...], undefined: list[str]
) -> None:
    entries = "".join(f"@misc{{k{i}, journal = jmlr, note = {{n{i}}}}}\n" for i in range(40))
    old_text = "@misc{a, journal = IEEE_J_PAMI}\n" + entries
    old = parse_bibtex(Path("refs.bib"), old_text, INHERITED)
    new_text = old_text.replace("{n20}", "{edited}")
    new = reparse_bibtex(old, old_text, new_text, None, again)
    assert new == parse_bibtex(Path("refs.bib"), new_text, again)
    assert [p.data["name"] for p in new.problems] == undefined
    # the same macros: only the edited entry is read again; others: the whole file
    assert (new.reused is not None) == (again == INHERITED)
    if again == INHERITED:  # None: the macros the old parse was read with
        assert reparse_bibtex(old, old_text, new_text) == new


def test_undefined_macro_inside_concatenation() -> None:
    m = parse_markers('@misc{c, note = "a" # ⟦u|nope⟧ # "b"}\n')
    bib = parse(m.text)
    (p,) = bib.problems
    assert p.code is Code.UNDEFINED_STRING and p.location.span == m.named["u"]
    assert bib.entries[0].get("note") == "ab"


def test_preamble_comment_and_outside_text_are_ignored() -> None:
    t = (
        "This file was exported. Mail me at someone@example.org please.\n"
        '@preamble{"\\newcommand{\\noop}[1]{}"}\n'
        "@comment{jabref-meta: databaseType:bibtex;}\n"
        "@Comment{ unbalanced ( is fine in braces }\n"
        "% a line comment with @ inside\n"
        "@misc{k, title = {x}}\n"
    )
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["k"]
    assert not bib.problems and bib.complete


def test_entries_inside_a_comment_block_are_read_as_bibtex_does() -> None:
    t = "@comment{\n@misc{inner, title = {x}}\n}\n@misc{outer, title={y}}\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["inner", "outer"]


def test_crossref_xdata_kept_and_ids_become_aliases() -> None:
    t = (
        "@inproceedings{paper, crossref = {conf2020}, xdata = {shared},\n"
        "  ids = {oldkey, other:key ,}, title = {T}}\n"
        "@proceedings{conf2020, title = {Conf}}\n"
    )
    bib = parse(t)
    paper = bib.entries[0]
    assert paper.get("crossref") == "conf2020" and paper.get("xdata") == "shared"
    assert paper.aliases == ("oldkey", "other:key")
    assert bib.entries[1].aliases == ()


def test_duplicate_field_points_at_second_occurrence() -> None:
    m = parse_markers("@misc{d,\n  ⟦a|title⟧ = {one},\n  ⟦b|Title⟧ = {two}\n}\n")
    bib = parse(m.text)
    (p,) = bib.problems
    assert p.code is Code.DUPLICATE_FIELD
    assert p.location.span == m.named["b"] and p.location.path == PATH
    (rel,) = p.related
    assert rel.location.span == m.named["a"]
    assert p.data["field"] == "title" and p.data["key"] == "d"
    assert [f.value for f in bib.entries[0].fields] == ["one", "two"]
    assert bib.entries[0].get("title") == "one"
    assert bib.complete


def test_ignore_comment_suppresses_its_line_and_the_next() -> None:
    t = "@misc{a, title={x}}\n% citewarden: ignore\n@misc{b, title={y}}\n  %% CITEWARDEN: ignore here\n"
    assert parse(t).suppressed_lines == frozenset({1, 2, 3, 4})


def test_empty_key_is_reported_and_left_out() -> None:
    m = parse_markers("⟦e|@article{,⟧ title = {x}}\n@misc{ok, title={y}}\n")
    bib = parse(m.text)
    assert [e.key for e in bib.entries] == ["ok"]
    assert bib.complete
    (p,) = bib.problems
    assert p.code is Code.EMPTY_KEY and p.location.span == m.named["e"]


# ---------------------------------------------------------------------------------------
# Syntax errors: exact position, clear message, recovery
# ---------------------------------------------------------------------------------------

AFTER = "\n@book{next1, title = {Still read}}\n\n@misc{next2, year = 2000}\n"

SYNTAX_CASES = {
    "missing comma between fields": (
        "@article{a, title = {T}⟦err|⟧\n  year = 2000}",
        "missing ','",
        ["title", "year"],
    ),
    "unclosed brace swallowing fields": (
        "@article{a, title = ⟦err|{⟧T,\n  year = 2000,\n}",
        "unclosed '{'",
        [],
    ),
    "unclosed brace at end of entry": (
        "@article{a, title = {T}, note = ⟦err|{⟧never closed\n",
        "unclosed '{'",
        ["title"],
    ),
    "unbalanced quotes": (
        '@article{a, title = {T}, note = ⟦err|"⟧no end,\n  year = 2000}',
        "unbalanced '\"'",
        ["title"],
    ),
    "junk inside entry": (
        "@article{a, title = {T}, ⟦err|{⟧junk} year = 2000}",
        "expected a field name",
        ["title"],
    ),
    "missing equals sign": (
        "@article{a, title = {T}, year ⟦err|2⟧000}",
        "expected '='",
        ["title"],
    ),
    "missing value": (
        "@article{a, title = {T}, year = ⟦err|,⟧ note = {x}}",
        "expected a value",
        ["title"],
    ),
    "entry not closed before next": (
        "@article{a, title = {T},\n  year = 2000⟦err|⟧\n",
        "is not closed",
        ["title", "year"],
    ),
    "missing entry key": (
        "@article{⟦err|title⟧ = {T}, year = 2000}",
        "missing entry key",
        None,
    ),
    "space in key": (
        "@article{Smith ⟦err|2⟧000, title = {T}}",
        "expected ',' after the key",
        None,
    ),
    "no delimiter after type": (
        "@article⟦err| ⟧a, title = {T}}",
        "expected '{' or '('",
        None,
    ),
    "stray closing brace ends entry early": (
        "@article{a, title = {T}⟦err|}⟧, year = 2000}",
        "unbalanced '}'",
        ["title"],
    ),
}


@pytest.mark.parametrize("case", sorted(SYNTAX_CASES))
def test_syntax_error_position_message_and_recovery(case: str) -> None:
    broken, message, kept_fields = SYNTAX_CASES[case]
    m = parse_markers("@misc{before, title = {ok}}\n" + broken + AFTER)
    bib = parse(m.text)
    syntax = [p for p in bib.problems if p.code is Code.BIB_SYNTAX]
    assert len(syntax) == 1, bib.problems
    assert syntax[0].location.span.start == m.named["err"].start
    assert message in syntax[0].message
    assert not bib.complete
    keys = [e.key for e in bib.entries]
    assert keys[0] == "before"
    assert keys[-2:] == ["next1", "next2"]
    assert bib.entries[-2].get("title") == "Still read"
    if kept_fields is None:
        assert "a" not in keys
    else:
        broken_entry = next(e for e in bib.entries if e.key == "a")
        assert [f.name for f in broken_entry.fields] == kept_fields
        assert sl(m.text, broken_entry.span).startswith("@article{a")


def test_unexpected_end_of_file() -> None:
    bib = parse("@misc{ok, title={x}}\n@article{a, title = {T}")
    assert [e.key for e in bib.entries] == ["ok", "a"]
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and "end of the file" in p.message
    assert not bib.complete


def test_unclosed_preamble_is_reported() -> None:
    bib = parse('@preamble{"\\foo"\n@misc{k, title={x}}\n')
    assert [e.key for e in bib.entries] == ["k"]
    assert codes(bib) == [Code.BIB_SYNTAX]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "@",
        "@{",
        "@misc",
        "@misc{",
        "@misc{k",
        "@misc{k,",
        "@misc{k, t",
        "@misc{k, t =",
        "}}}{{{",
    ],
)
def test_truncated_inputs_never_raise(text: str) -> None:
    bib = parse(text)
    for e in bib.entries:
        assert 0 <= e.span.start <= e.span.end <= len(text)


# ---------------------------------------------------------------------------------------
# Lazy entries behave like plain entries
# ---------------------------------------------------------------------------------------


def test_entries_compare_hash_pickle_and_replace_like_plain_entries() -> None:
    t = "@misc{k, title = {x}, year = 2000}\n"
    (e,) = parse(t).entries
    plain = Entry(e.key, e.entry_type, e.path, e.span, e.key_span, e.fields, e.aliases)
    assert e == plain and plain == e and hash(e) == hash(plain)
    assert pickle.loads(pickle.dumps(e)) == e
    assert copy.deepcopy(e) == e
    changed = dataclasses.replace(e, key="other")
    assert type(changed) is Entry and changed.key == "other" and changed.fields == e.fields
    assert e != dataclasses.replace(e, fields=(Field("t", "v", Span(0, 1), Span(2, 3)),))
    assert "Entry(key='k'" in repr(e)


# ---------------------------------------------------------------------------------------
# Encodings (decode_bytes) feeding the parser
# ---------------------------------------------------------------------------------------


def test_utf8_with_bom() -> None:
    data = "\ufeff@misc{k, title = {Gödel}}\n".encode()
    text, problems = decode_bytes(PATH, data)
    assert problems == [] and text.startswith("@misc")
    assert parse(text).entries[0].get("title") == "Gödel"


def test_latin1_file_is_read_and_reported_at_first_bad_byte() -> None:
    data = "@misc{k,\n  title = {Gödel and Müller}}\n@misc{k2, title={y}}\n".encode("latin-1")
    text, problems = decode_bytes(PATH, data)
    (p,) = problems
    assert p.code is Code.FILE_ENCODING
    offset = text.index("ö")
    assert p.location.span == Span(offset, offset + 1)
    assert "line 2, column 13" in p.message and "0xF6" in p.message
    assert "2 invalid bytes" in p.message
    bib = parse(text)
    assert [e.key for e in bib.entries] == ["k", "k2"]
    assert bib.entries[0].get("title") == "Gödel and Müller"


def test_mostly_utf8_with_one_stray_cp1252_byte() -> None:
    data = "@misc{k, title = {“Quotes” and é}, note = {".encode() + b"\x93x\x94}}\n"
    text, problems = decode_bytes(PATH, data)
    assert len(problems) == 1
    assert "“Quotes” and é" in text and "“x”" in text


def test_nul_bytes_are_reported_and_replaced() -> None:
    data = b"@misc{k, title = {a\x00b}}\n@misc{k2, title = {c}}\x00\x00\n"
    text, problems = decode_bytes(PATH, data)
    assert [p.code for p in problems] == [Code.FILE_ENCODING, Code.FILE_ENCODING]
    first, second = problems
    assert first.location.span == Span(19, 20)
    assert len(second.location.span) == 2 and "3 in the file" in second.message
    assert "\x00" not in text and len(text) == len(data)
    bib = parse(text)
    assert [e.key for e in bib.entries] == ["k", "k2"]


def test_utf16_file_is_reported() -> None:
    data = "@misc{k, title={x}}\n".encode("utf-16")
    text, problems = decode_bytes(PATH, data)
    assert [p.code for p in problems] == [Code.FILE_ENCODING]
    assert parse(text).entries[0].key == "k"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_utf16_without_a_byte_order_mark_is_read_as_utf16(codec: str) -> None:
    """Saved by an editor as UTF-16 with no BOM: every other byte NUL.  It was read as
    UTF-8 full of NULs (a finding per NUL run up to the cap, no entry)."""
    data = "@misc{k, title={Gödel 漢字}}\n@misc{k2, title={y}}\n".encode(codec)
    text, problems = decode_bytes(PATH, data)
    assert [p.message for p in problems] == [
        f"file is encoded in UTF-16 ({codec[-2:].upper()}, no byte order mark); "
        "BibTeX and LaTeX expect UTF-8 (read as UTF-16)"
    ]
    bib = parse(text)
    assert [e.key for e in bib.entries] == ["k", "k2"]
    assert bib.entries[0].fields[0].value == "Gödel 漢字"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("tail", [b"", b"\n"])
def test_utf16_without_a_mark_holding_a_character_with_a_nul_byte_is_read_as_utf16(
    codec: str, tail: bytes
) -> None:
    """A character whose UTF-16 holds a NUL byte (U+4E00 ``一``, U+0100 ``Ā``), or a line
    feed a tool appended (an odd length): the file was read as UTF-8 full of NULs and
    defined no entry."""
    data = "@misc{k, title={一个 Ā}}\n@misc{k2, title={y}}\n".encode(codec) + tail
    text, problems = decode_bytes(PATH, data)
    assert [p.message for p in problems] == [
        f"file is encoded in UTF-16 ({codec[-2:].upper()}, no byte order mark); "
        "BibTeX and LaTeX expect UTF-8 (read as UTF-16)"
    ]
    bib = parse(text)
    assert [e.key for e in bib.entries] == ["k", "k2"]
    assert bib.entries[0].fields[0].value == "一个 Ā"


@pytest.mark.parametrize("codec", ["utf-32", "utf-32-be"])
def test_utf32_after_its_mark_is_read_as_utf32(codec: str) -> None:
    """UTF-32's mark begins with UTF-16's: the file was read as UTF-16, a NUL between
    every two characters, and defined no entry."""
    data = "@misc{k, title={Gödel 漢字}}\n".encode(codec)
    if codec == "utf-32-be":
        data = codecs.BOM_UTF32_BE + data
    text, problems = decode_bytes(PATH, data)
    assert [p.message for p in problems] == [
        "file is encoded in UTF-32; BibTeX and LaTeX expect UTF-8 (read as UTF-32)"
    ]
    assert [p.data["encoding"] for p in problems] == ["utf-32"]
    bib = parse(text)
    assert [e.key for e in bib.entries] == ["k"]
    assert bib.entries[0].fields[0].value == "Gödel 漢字"


def test_text_with_a_few_nul_bytes_is_not_taken_for_utf16() -> None:
    data = b"@misc{k, title={x\x00y}}\n"
    _, problems = decode_bytes(PATH, data)
    assert ["NUL byte" in p.message for p in problems] == [True]


# ---------------------------------------------------------------------------------------
# Lazy LaTeX decoding of single values
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        ("{G}{\\\"o}del's {T}heorem", "Gödel's Theorem"),
        ("pages 12--34 --- and~more", "pages 12–34 — and\xa0more"),
        ("Plain  title\n  here", "Plain title here"),
        ("Schr\\\"{o}dinger \\& {\\'E}mile", "Schrödinger & Émile"),
        ("\\textit{Italic} words", "Italic words"),
        ("broken {\\unknown", "broken"),
    ],
)
def test_decode_latex(raw: str, decoded: str) -> None:
    assert decode_latex(raw).startswith(decoded)


# ---------------------------------------------------------------------------------------
# Agreement with bibtexparser 2 on real files
# ---------------------------------------------------------------------------------------


def _real_bibs() -> list[Path]:
    found = sorted((DATA / "bibs").rglob("*.bib"))
    found += sorted((DATA / "documents").rglob("*.bib"))
    return [p for p in found if p.stat().st_size > 0 and p.name not in NOT_BIBTEX]


def _bp_expected(text: str, value_span: Span, ours: Field, strings: dict[str, str]) -> str:
    """What bibtexparser 2's default stack yields for this field, derived from our reading.

    Its stack resolves a value that is exactly one @string name (not the month macros, which
    it does not define) and then strips one pair of enclosing delimiters; concatenations stay
    as written.
    """
    first = text[value_span.start - 1] if value_span.start else ""
    if first in '{"':
        return ours.value
    if ours.value.isdigit():
        return ours.value
    if "#" in ours.value:
        return ours.value
    return strings.get(ours.value.lower(), ours.value)


def _bp_entries(library: bibtexparser.Library) -> list[tuple[BpEntry, bool]]:
    """Entries in file order; the flag says whether bibtexparser ran its middleware on it
    (entries with a duplicate field or a duplicate key are only kept as failed blocks)."""
    out: list[tuple[BpEntry, bool]] = []
    for block in library.blocks:
        if isinstance(block, BpEntry):
            out.append((block, True))
        elif isinstance(block, ParsingFailedBlock) and isinstance(
            block.ignore_error_block, BpEntry
        ):
            out.append((block.ignore_error_block, False))
    return out


# Real mistakes in the real files, which BibTeX reports too (1-based lines).
KNOWN_SYNTAX_ERRORS: dict[str, list[int]] = {}
# plume-bib's master file is the input of a generator, not BibTeX: every @string there reads
# @string{NAME = "long form" = "short form"}.  It has its own test below.
NOT_BIBTEX = {"bibstring-master.bib"}


def ours_line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


@pytest.mark.parametrize("path", _real_bibs(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_agrees_with_bibtexparser_on_real_files(path: Path) -> None:
    text, problems = decode_bytes(path, path.read_bytes())
    assert problems == []
    ours = parse_bibtex(path, text)
    library = bibtexparser.parse_string(text)
    assert all(
        isinstance(b, (DuplicateBlockKeyBlock, DuplicateFieldKeyBlock))
        for b in library.failed_blocks
    )
    syntax = [
        ours_line(text, p.location.span.start) for p in ours.problems if p.code is Code.BIB_SYNTAX
    ]
    assert syntax == KNOWN_SYNTAX_ERRORS.get(path.name, [])
    assert ours.complete == (not syntax)
    theirs = [(e, ok) for e, ok in _bp_entries(library) if e.key]
    empty = [p for p in ours.problems if p.code is Code.EMPTY_KEY]
    assert len(empty) == sum(1 for e in library.entries if not e.key)
    assert [e.key for e in ours.entries] == [e.key for e, _ in theirs]
    assert [e.entry_type for e in ours.entries] == [e.entry_type.lower() for e, _ in theirs]
    dup_fields = {
        (str(getattr(b.ignore_error_block, "key", "")), k.lower())
        for b in library.failed_blocks
        if isinstance(b, DuplicateFieldKeyBlock)
        for k in b.duplicate_keys
    }
    ours_dups = {
        (str(p.data["key"]), str(p.data["field"]))
        for p in ours.problems
        if p.code is Code.DUPLICATE_FIELD
    }
    assert ours_dups == dup_fields
    # bibtexparser's @string values, enclosing delimiters removed by its middleware.
    raw_strings = {s.key.lower(): s.value for s in library.strings}
    compared = 0
    for mine, (bp, transformed) in zip(ours.entries, theirs, strict=True):
        assert [f.name for f in mine.fields] == [f.key.lower() for f in bp.fields]
        for f in mine.fields:  # the lazy lookups agree with the materialised fields
            first = mine.field(f.name)
            assert first is not None and mine.get(f.name) == first.text
        for f, g in zip(mine.fields, bp.fields, strict=True):
            assert sl(text, f.value_span) == f.value
            if transformed:
                expected = _bp_expected(text, f.value_span, f, raw_strings)
                assert str(g.value) == expected, (mine.key, f.name)
                compared += 1
    assert compared > 0 or not theirs


def test_generator_input_with_two_values_per_string_is_reported_line_by_line() -> None:
    text = (DATA / "bibs" / "plume-bib" / "bibstring-master.bib").read_text()
    bib = parse(text)
    bad_lines = [
        i + 1
        for i, line in enumerate(text.splitlines())
        if re.match(r'@string\{\S+\s*=\s*"[^"]*"\s*=', line, re.I)
    ]
    assert len(bad_lines) > 50
    syntax = [p for p in bib.problems if p.code is Code.BIB_SYNTAX]
    assert [ours_line(text, p.location.span.start) for p in syntax] == bad_lines
    assert all("expected '}' to close @string" in p.message for p in syntax)
    # the macros those lines failed to define are then reported where they are used
    assert {p.code for p in bib.problems} == {Code.BIB_SYNTAX, Code.UNDEFINED_STRING}
    assert not bib.complete


def test_plume_bib_strings_expand_like_bibtex() -> None:
    folder = DATA / "bibs" / "plume-bib"
    text = (folder / "bibstring-unabbrev.bib").read_text() + (folder / "crossrefs.bib").read_text()
    bib = parse(text)
    assert bib.strings, "plume-bib defines @string macros"
    month_fields = [f for e in bib.entries for f in e.fields if f.name == "month"]
    bare = [f for f in month_fields if text[f.value_span.start - 1] not in '{"']
    assert bare and all(f.expanded for f in bare if not f.value.isdigit())


# ---------------------------------------------------------------------------------------
# Incremental re-parsing
# ---------------------------------------------------------------------------------------

BASE = (
    '@string{j = "Journal"}\n'
    "@misc{a, title = {Alpha}, journal = j}\n\n"
    "@misc{b, title = {Beta}, year = 2001}\n"
    "junk between entries\n"
    "@misc{c, title = {Gamma}, title = {dup}}\n"
    "@misc{d, note = {Delta}}\n"
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("{Beta}", "{Beta, edited}"),
        ("{Beta}", "{Be"),
        ("year = 2001}", "year = 2001}\n@misc{new, title={N}}"),
        ("@misc{b, title = {Beta}, year = 2001}\n", ""),
        ("junk between", "@misc{x, y = 1}"),
        ('@string{j = "Journal"}', '@string{j = "Other"}'),
        ("journal = j", "journal = k"),
        ("title = {dup}", "title = {dup"),
        ("@misc{d", "@misc{D"),
        ("}\n@misc{d", "\n@misc{d"),
        ("@misc{a", "% citewarden: ignore\n@misc{a"),
    ],
)
def test_reparse_equals_full_parse(old: str, new: str) -> None:
    assert old in BASE
    edited = BASE.replace(old, new, 1)
    before = parse(BASE)
    after = reparse_bibtex(before, BASE, edited)
    full = parse(edited)
    assert after == full
    assert dict(after.strings) == dict(full.strings)
    # a second edit on top of the incremental result
    again = edited.replace("Alpha", "ALPHA")
    assert reparse_bibtex(after, edited, again) == parse(again)


def test_reparse_of_identical_text_returns_the_old_result() -> None:
    bib = parse(BASE)
    assert reparse_bibtex(bib, BASE, BASE) is bib


def test_reparse_on_real_file_reuses_untouched_entries() -> None:
    text = (DATA / "bibs" / "b-vitamins_prl_1983.bib").read_text()
    bib = parse(text)
    target = bib.entries[700].field("title")
    assert target is not None
    edited = text[: target.value_span.start] + "Edited " + text[target.value_span.start :]
    new = reparse_bibtex(bib, text, edited)
    assert new.entries[0] is bib.entries[0]
    assert new.entries[700].get("title", "").startswith("Edited ")  # type: ignore[union-attr]
    assert new.entries[900].span.start == bib.entries[900].span.start + len("Edited ")
    assert new == parse(edited)


def test_reparse_when_the_edit_touches_the_next_entry_header() -> None:
    old = "@misc{a, title = {x\n@b {Next}, y = 1}\n@misc{c, t = {z}}\n"
    new = old.replace("@b {", "@@@\n@b {")
    assert reparse_bibtex(parse(old), old, new) == parse(new)


@pytest.mark.parametrize("chunk", [1, 3, 8, 1 << 18])
def test_common_prefix_and_suffix_across_chunks(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    from citewarden.parsing import bibtex

    def common(a: str, b: str) -> int:
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        return n

    monkeypatch.setattr(bibtex, "_CHUNK", chunk)
    base = "".join(chr(97 + (i * 7) % 26) for i in range(500))
    for start, stop, insert in [(0, 0, "x"), (250, 260, ""), (499, 500, "yz"), (100, 100, "abc")]:
        new = base[:start] + insert + base[stop:]
        p = bibtex._common_prefix(base, new)
        assert p == common(base, new)
        s = bibtex._common_suffix(base, new, min(len(base), len(new)) - p)
        rest_old, rest_new = base[p:][::-1], new[p:][::-1]
        assert s == common(rest_old, rest_new)


def test_comment_after_a_value_without_comma_is_an_error_not_a_comment() -> None:
    m = parse_markers("@misc{k, volume = {}⟦e|%⟧ year = {1983}\n}\n@misc{n, title={x}}\n")
    bib = parse(m.text)
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and p.location.span.start == m.named["e"].start
    assert [f.name for f in bib.entries[0].fields] == ["volume"]
    assert [e.key for e in bib.entries] == ["k", "n"]


def test_comment_lines_after_the_last_field_hide_nothing() -> None:
    t = "@misc{k, year = {1983},\n  % old = {x}\n}\n"
    (e,) = parse(t).entries
    assert [(f.name, f.value) for f in e.fields] == [("year", "1983")]


def test_cp1252_file_with_smart_quotes_and_an_undefined_byte() -> None:
    data = "@misc{k, title = {“Smart” – quotes €}}\n".encode("cp1252") + b"% \x81\n"
    text, problems = decode_bytes(PATH, data)
    assert "“Smart” – quotes €" in text and text.endswith("% \x81\n")
    (p,) = problems
    assert p.data["invalid_bytes"] == 5 and p.location.span.start == text.index("“")


def test_windows_line_endings() -> None:
    t = "@misc{a,\r\n  title = {One},\r\n  year = 2001\r\n}\r\n% citewarden: ignore\r\n@misc{b, t = {x}\r\n@misc{c, t={y}}\r\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["a", "b", "c"]
    assert bib.entries[0].get("title") == "One" and bib.entries[0].get("year") == "2001"
    assert sl(t, bib.entries[1].span) == "@misc{b, t = {x}"
    assert [p.code for p in bib.problems] == [Code.BIB_SYNTAX]
    assert bib.suppressed_lines == frozenset({4, 5})
    edited = t.replace("{One}", "{Two}")
    assert reparse_bibtex(bib, t, edited) == parse(edited)


def test_reparse_with_the_changed_region_given() -> None:
    old_bib = parse(BASE)
    start = BASE.index("{Beta}") + 1
    edited = BASE[:start] + "Be-ta, revised" + BASE[start + 4 :]
    exact = (start, start + 4, start + len("Be-ta, revised"))
    wider = (start - 30, start + 10, start + 10 + len(edited) - len(BASE))
    for changed in (exact, wider, (0, len(BASE), len(edited)), (5, 1, 0)):
        assert reparse_bibtex(old_bib, BASE, edited, changed) == parse(edited)


def test_reparse_when_the_last_entry_is_swallowed_by_an_unclosed_value() -> None:
    old = "@misc{a, author = {Someone},\n  year = {2018}\n}\n\n@misc{b,\n  t = {x}\n"
    new = old.replace("one},\n  year = {2018}\n}\n\n@misc", "one @misc")
    before = parse(old)
    assert [p.location.span.start for p in before.problems] == [len(old)]
    assert reparse_bibtex(before, old, new) == parse(new)


@pytest.mark.parametrize("value", ["²", "² # {a}", "{a} # ²", "½"])
def test_digit_like_characters_that_are_not_decimal_do_not_crash(value: str) -> None:
    text = f"@misc{{k, title = {value}}}\n@misc{{j, title = {{x}}}}\n"
    bib = parse_bibtex(Path("x.bib"), text)
    assert [e.key for e in bib.entries] == ["k", "j"]
    title = bib.entries[0].field("title")
    assert title is not None and text[title.value_span.start : title.value_span.end] == value


def test_a_large_parse_counts_its_objects_as_old() -> None:
    # The young-generation collection that would follow would walk every new object once.
    text = "".join(f"@misc{{k{i}, title = {{T {i}}}, year = 2020}}\n" for i in range(12_000))
    assert gc.isenabled()
    large = parse_bibtex(Path("big.bib"), text)
    last = large.entries[-1]
    assert any(o is last for o in gc.get_objects(generation=2))
    assert gc.isenabled()
    small = parse_bibtex(Path("small.bib"), "@misc{a, title = {T}}\n")
    first = small.entries[0]
    assert not any(o is first for o in gc.get_objects(generation=2))


@pytest.mark.parametrize("path", sorted((DATA / "bibs").rglob("*.bib")), ids=lambda p: p.name)
def test_field_texts_say_what_the_fields_say(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    bib = parse_bibtex(path, text)
    moved = reparse_bibtex(bib, text, "\n" + text, (0, 0, 1))  # entries moved, not re-read
    for entries in (bib.entries, moved.entries):
        for e in entries:
            assert e.field_texts() == tuple((f.name, f.text) for f in e.fields)
            plain = Entry(e.key, e.entry_type, e.path, e.span, e.key_span, e.fields, e.aliases)
            assert plain.field_texts() == e.field_texts()


def test_a_key_on_a_comment_line_and_on_an_ordinary_line_is_defined_for_biber() -> None:
    t = "%@article{k, title={Old}}\n@article{k, title={New}}\n% @misc{gone, title={G}}\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["k", "k", "gone"]
    assert keys_on_comment_lines(t, bib.entries) == {"gone"}


def test_entries_inside_an_comment_group_are_comments_for_biber() -> None:
    """biber and pandoc skip an @comment group to its matching brace (a brace on a %-line
    counts); BibTeX reads the entries inside, and so does the parser."""
    t = (
        "@misc{a, note={@comment{ @misc{in, title={I}} }}}\n"
        "@comment{\n @article{x, title={X}}\n@Article{y, title={Y}}\n}\n"
        "@COMMENT(\n@misc{p, title={P}}\n)\n"
        "@comment{\n% }\n@misc{after, title={A}}\n"
        "@misc{x, title={again}}\n"
    )
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["a", "x", "y", "p", "after", "x"]
    assert keys_in_comments(t, bib.entries) == {"y", "p"}
    assert keys_in_comments(t, bib.entries, biber=False) == {"y"}


def test_an_unclosed_comment_group_hides_no_entry() -> None:
    t = "@comment{\n@misc{a, title={A}}\n"
    bib = parse(t)
    assert [e.key for e in bib.entries] == ["a"]
    assert keys_in_comments(t, bib.entries) == frozenset()


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("@article{smith2020\n  title = {A}, year = 2000}\n", "smith2020"),
        ("@misc{a b, title={x}}\n", "a"),
        ("@misc(a b, title={x})\n", "a"),
        ("@misc{e\n", "e"),
    ],
)
def test_an_entry_without_a_comma_after_its_key_keeps_its_key(text: str, key: str) -> None:
    """BibTeX: "I was expecting a `,' or a `}'", yet the key is in the .bbl."""
    bib = parse(text + "@misc{next, title={N}}\n")
    assert [e.key for e in bib.entries] == [key, "next"]
    assert [p.code for p in bib.problems] == [Code.BIB_SYNTAX]
    assert bib.entries[0].fields == ()
    assert bib.entries[0].span.start == 0
