"""CSL-JSON and CSL-YAML bibliographies: keys, mapped fields, source spans, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from citewarden.model import BibFormat, Code, Span
from citewarden.parsing import csl
from citewarden.parsing.csl import bibtex_type, markdown_unescaped, parse_csl_json, parse_csl_yaml
from markers import parse_markers

DATA = Path(__file__).parent / "data"
JSON = Path("refs.json")
YAML = Path("refs.yaml")


def sl(text: str, span: Span) -> str:
    return text[span.start : span.end]


def test_csl_json_item_fields_and_spans() -> None:
    m = parse_markers(
        "[\n"
        "  ⟦item|{\n"
        '    "id": "⟦key|smith:2020⟧",\n'
        '    "type": "article-journal",\n'
        '    "⟦tn|title⟧": "⟦title|A \\"quoted\\" title⟧",\n'
        '    "author": ⟦auth|[{"family": "Smith", "given": "Jane"},\n'
        '               {"family": "Berg", "non-dropping-particle": "van den", "given": "A."},\n'
        '               {"literal": "The Consortium"}]⟧,\n'
        '    "issued": {"date-parts": [[⟦year|2020⟧, 3, 1]]},\n'
        '    "container-title": "⟦journal|Nature⟧",\n'
        '    "DOI": "⟦doi|10.1038/xyz⟧",\n'
        '    "volume": ⟦vol|7⟧, "issue": "⟦issue|2⟧", "page": "⟦page|10-20⟧",\n'
        '    "x-unknown": null, "custom": {"nested": true}\n'
        "  }⟧\n"
        "]\n"
    )
    t = m.text
    bib = parse_csl_json(JSON, t)
    assert bib.format is BibFormat.CSL_JSON and bib.complete and not bib.problems
    (e,) = bib.entries
    assert e.key == "smith:2020" and e.key_span == m.named["key"] and sl(t, e.key_span) == e.key
    assert e.csl_type == "article-journal" and e.entry_type == "article"
    assert e.span == m.named["item"]
    assert [f.name for f in e.fields] == [
        "title",
        "author",
        "year",
        "journal",
        "doi",
        "volume",
        "number",
        "pages",
    ]
    title = e.field("title")
    assert title is not None
    assert title.value == 'A "quoted" title' and title.value_span == m.named["title"]
    assert title.name_span == m.named["tn"]
    assert e.get("author") == "Smith, Jane and van den Berg, A. and The Consortium"
    assert e.field("author").value_span == m.named["auth"]  # type: ignore[union-attr]
    for name, marker in (
        ("year", "year"),
        ("journal", "journal"),
        ("doi", "doi"),
        ("volume", "vol"),
        ("number", "issue"),
        ("pages", "page"),
    ):
        f = e.field(name)
        assert f is not None and f.value_span == m.named[marker], name
        assert sl(t, f.value_span) == f.value


@pytest.mark.parametrize(
    ("issued", "year"),
    [
        ('{"date-parts": [["2017", "07", "07"]]}', "2017"),
        ('{"raw": "March 1999"}', "1999"),
        ('{"literal": "ca. 1850"}', "1850"),
        ('"2004-05"', "2004"),
        ('{"date-parts": [[]]}', None),
        ('{"date-parts": null}', None),
    ],
)
def test_csl_json_issued_forms(issued: str, year: str | None) -> None:
    t = f'[{{"id": "k", "type": "book", "issued": {issued}}}]'
    (e,) = parse_csl_json(JSON, t).entries
    assert e.get("year") == year
    if year is not None:
        f = e.field("year")
        assert f is not None and year in sl(t, f.value_span)


def test_csl_json_numeric_id() -> None:
    bib = parse_csl_json(JSON, '[{"id": 42, "title": "One"}]')
    (e,) = bib.entries
    assert e.key == "42" and e.csl_type == "document" and e.entry_type == "misc"


@pytest.mark.parametrize(
    "marked", ['⟦e|{⟧"id": 42, "title": "One"}', '\n  ⟦e|{⟧"id": "a"}\n', "⟦e|{⟧}"]
)
def test_csl_json_single_object_is_read_as_pandoc_reads_it(marked: str) -> None:
    """pandoc (2.17, 3.6.1, 3.9) stops with an error at a CSL-JSON object that is one
    item, where it was read as that item (tests/test_csl_pandoc.py runs them)."""
    m = parse_markers(marked)
    bib = parse_csl_json(JSON, m.text)
    assert bib.entries == () and not bib.complete
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and p.location.span == m.named["e"]
    assert p.message.startswith("CSL-JSON must be an array of items")
    assert "one item is written [{...}]" in p.message
    assert "pandoc stops with an error at this file" in p.message


def test_csl_json_object_of_items_is_read_as_pandoc_3_reads_it() -> None:
    """pandoc 3 reads the ``"items"`` array of a CSL-JSON object (the first ``"items"``,
    the other members ignored), where each was "CSL item without an 'id'"."""
    m = parse_markers(
        '{"id": "x", "items": [⟦a|{"id": "⟦ka|a⟧", "title": "A"}⟧, {"id": "⟦kb|b⟧"}], "n": 1}'
    )
    bib = parse_csl_json(JSON, m.text)
    assert bib.complete and not bib.problems
    a, b = bib.entries
    assert (a.key, a.key_span, a.span, a.get("title")) == ("a", m.named["ka"], m.named["a"], "A")
    assert (b.key, b.key_span) == ("b", m.named["kb"])


@pytest.mark.parametrize(
    "marked", ['{"⟦e|items⟧": {"id": "a"}}', '{"⟦e|items⟧": null}', '{"⟦e|items⟧": "a"}']
)
def test_csl_json_object_of_items_that_are_no_array_is_a_finding(marked: str) -> None:
    m = parse_markers(marked)
    bib = parse_csl_json(JSON, m.text)
    assert bib.entries == () and not bib.complete
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and p.location.span == m.named["e"]
    assert p.message.startswith('the "items" of a CSL-JSON object must be an array of items')


def test_csl_json_member_named_twice_is_its_first() -> None:
    """pandoc (2.17, 3.6.1, 3.9) reads the first of two members of the same name (the id
    ``a``, and the title "T" where a later null would stop it), where the last counted."""
    m = parse_markers('[{"id": "⟦k|a⟧", "id": "b", "title": "⟦t|T⟧", "title": null}]')
    bib = parse_csl_json(JSON, m.text)
    assert bib.complete and not bib.problems
    (e,) = bib.entries
    assert (e.key, e.key_span) == ("a", m.named["k"])
    assert e.field("title") is not None and e.field("title").value_span == m.named["t"]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "marked",
    [
        '[{"id": "a"}, ⟦e|[]⟧, {"id": "b"}]',
        '[{"id": "a"}, "⟦e|x⟧", 1, {"id": "b"}]',
        '{"items": [{"id": "a"}, ⟦e|null⟧, {"id": "b"}]}',
    ],
)
def test_csl_json_item_that_is_no_object_is_a_finding(marked: str) -> None:
    """pandoc (2.17, 3.6.1, 3.9) stops with an error at the first element of the array that
    is no object, where it was left out without a word."""
    m = parse_markers(marked)
    bib = parse_csl_json(JSON, m.text)
    assert [e.key for e in bib.entries] == ["a", "b"] and not bib.complete
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and p.location.span == m.named["e"]
    assert p.message.startswith("a CSL-JSON item must be an object")


@pytest.mark.parametrize(
    ("marked", "message"),
    [
        ('{"id": "a", "note": ⟦e|null⟧}', '"note" must be text, not null'),
        ('{"id": "a", "note": ⟦e|5⟧}', '"note" must be text, not a number'),
        ('{"id": "a", "title": ⟦e|true⟧}', '"title" must be text or a whole number of 64 bits'),
        ('{"id": "a", "TITLE": ⟦e|[]⟧, "title": "T"}', '"TITLE" must be text or a whole'),
        ('{"id": "a", "Title": ⟦e|{}⟧, "title": "T"}', '"Title" must be text or a whole'),
        ('{"id": "a", "ſtatus": ⟦e|null⟧}', '"ſtatus" must be text or a whole'),
        ('{"id": "a", "volume": ⟦e|1.5⟧}', '"volume" must be text or a whole number of 64 bits'),
        ('{"id": ⟦e|99999999999999999999⟧}', '"id" must be text or a whole number of 64 bits'),
        ('{"id": ⟦e|null⟧, "title": "T"}', '"id" must be text or a whole number'),
        ('{"id": "a", "type": ⟦e|false⟧}', '"type" must be text or a whole number'),
        ('{"id": "a", "x": ⟦e|1e-2⟧}', 'the number of "x" must be a whole one of 64 bits'),
        ('{"id": "a", "author": "⟦e|Smith⟧"}', 'the names "author" must be a list'),
        ('{"id": "a", "editor": [⟦e|null⟧]}', 'a name of "editor" must be an object'),
        ('{"id": "a", "author": [{"family": ⟦e|5⟧}]}', 'the "family" of a name of "author"'),
        ('{"id": "a", "author": [{"comma-suffix": ⟦e|[]⟧}]}', 'the "comma-suffix" of a name'),
        ('{"id": "a", "issued": ⟦e|2004⟧}', 'the date "issued" must be text or an object'),
        ('{"id": "a", "container": ⟦e|null⟧}', 'the date "container" must be text or'),
        ('{"id": "a", "issued": {"date-parts": "⟦e|2004⟧"}}', 'the "date-parts" of the date'),
        ('{"id": "a", "issued": {"date-parts": [⟦e|2004⟧]}}', 'the "date-parts" of the date'),
        ('{"id": "a", "issued": {"date-parts": [["2004", "⟦e|x⟧"]]}}', "a date part of the"),
        ('{"id": "a", "issued": {"raw": 5, "date-parts": [[⟦e|1.5⟧]]}}', "a date part of the"),
        ('{"id": "a", "issued": {"literal": ⟦e|5⟧}}', 'the "literal" of the date "issued"'),
        ('{"id": "a", "b": 1.5, "accessed": ⟦e|5⟧}', 'the date "accessed" must be'),
    ],
)
def test_csl_json_value_pandoc_stops_at_is_a_finding(marked: str, message: str) -> None:
    """pandoc (2.17, 3.6.1, 3.9) stops with an error at a value of a CSL variable it does
    not read (docs/parsing.md), where the value was left out without a word; the first
    (of the items in order, of an item's variables by their case-folded names) is a
    finding, and the items are read all the same (tests/test_csl_pandoc.py runs pandoc)."""
    m = parse_markers(f'[{{"id": "z", "title": "Z"}}, {marked}, {{"id": "b", "note": 5}}]')
    bib = parse_csl_json(JSON, m.text)
    assert "b" in [e.key for e in bib.entries] and not bib.complete
    (p,) = [p for p in bib.problems if p.code is Code.BIB_SYNTAX]
    assert p.location.span == m.named["e"]
    assert p.message.startswith(message)
    assert p.message.endswith(
        ": pandoc stops with an error at this file, and no citation of the document is found"
    )


@pytest.mark.parametrize(
    "value",
    [
        '"x": null, "custom": {"a": [1.5]}, "categories": [true], "pages": {}',
        '"title": "", "number": -3, "page": 1e3, "DOI": 7, "URL": 1.0, "tİtle": null',
        '"TITLE": "T", "Title": null, "title": []',
        '"issued": {"raw": "2004", "date-parts": "x"}, "accessed": "x", "submitted": {}',
        '"issued": {"date-parts": [["2004", "", 3], [-1]], "circa": [], "season": "x"}',
        '"original-date": {"date-parts": null, "literal": null, "raw": 5}',
        '"author": ["Smith", {}, {"family": null, "FAMILY": 5, "comma-suffix": 2.5}]',
        '"editor": [], "translator": [{"static-ordering": "x", "parse-names": []}]',
        '"note": "issued: 2004\\nauthor: Smith"',
    ],
)
def test_csl_json_values_pandoc_reads_are_no_finding(value: str) -> None:
    """The values pandoc reads are no finding, and a key or value ``1e3`` is 1000 and
    ``7.0`` is 7, as pandoc reads them, where they were 1000.0 and 7.0."""
    bib = parse_csl_json(JSON, f'[{{"id": 1e3, "volume": 7.0, {value}}}, {{"id": -0}}]')
    assert bib.complete and not bib.problems
    assert [(e.key, e.get("volume")) for e in bib.entries] == [("1000", "7"), ("0", None)]


def test_csl_json_id_and_type_are_found_case_folded() -> None:
    """pandoc's CSL-JSON reader reads ``"ID"`` as the id (of ``"Id"`` and ``"id"`` the
    first sorting, ``"Id"``), where the item had none; its YAML reader does not."""
    m = parse_markers('[{"ID": "⟦a|a⟧", "TYPE": "book"}, {"id": "c", "Id": "⟦b|b⟧"}]')
    bib = parse_csl_json(JSON, m.text)
    assert bib.complete and not bib.problems
    assert [(e.key, e.key_span, e.csl_type) for e in bib.entries] == [
        ("a", m.named["a"], "book"),
        ("b", m.named["b"], "document"),
    ]
    yaml_bib = parse_csl_yaml(YAML, "references:\n- ID: a\n- Id: b\n  id: c\n")
    assert [e.key for e in yaml_bib.entries] == ["c"]
    assert [p.code for p in yaml_bib.problems] == [Code.EMPTY_KEY]


def test_csl_json_item_without_id_is_reported() -> None:
    bib = parse_csl_json(JSON, '[{"title": "No id"}, {"id": "ok"}]')
    assert [e.key for e in bib.entries] == ["ok"]
    assert [p.code for p in bib.problems] == [Code.EMPTY_KEY]


@pytest.mark.parametrize(
    ("marked", "message"),
    [
        ('[{"id": "a"}, {"id": "b", "title": ⟦e|}⟧]', "expected a value"),
        ('[{"id": "a"}, {"id": "b" ⟦e|"⟧title": "x"}]', "expected ',' or '}'"),
        ('[{"id": "a"}, {⟦e|i⟧d: "b"}]', "unexpected character"),
        ('[{"id": "a"}, {"id": "b"}⟦e|⟧', "end of the file"),
        ('[{"id": "a"}] ⟦e|x⟧', "unexpected"),
        ('[{"id": "a"}, {"id": "b\n"}]', "unexpected character"),
    ],
)
def test_malformed_json_is_a_finding_with_position(marked: str, message: str) -> None:
    m = parse_markers(marked)
    bib = parse_csl_json(JSON, m.text)
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and message in p.message
    if "e" in m.named:
        assert p.location.span.start == m.named["e"].start
    assert not bib.complete
    assert bib.entries[0].key == "a"  # items before the error are kept


def test_csl_yaml_pandoc_references_with_spans() -> None:
    m = parse_markers(
        "---\n"
        "references:\n"
        "- id: ⟦key|doe99⟧\n"
        "  type: book\n"
        "  ⟦tn|title⟧: '⟦title|An ''apostrophe'' book⟧'\n"
        "  author:\n"
        "  - family: Doe\n"
        "    given: John\n"
        "  issued:\n"
        "  - year: ⟦year|1999⟧\n"
        "  publisher: ⟦pub|Some Press⟧\n"
        '- id: "⟦key2|second⟧"\n'
        "  issued: {date-parts: [[⟦year2|2001⟧]]}\n"
        "  DOI: ⟦doi|10.1/abc⟧\n"
        "...\n"
    )
    t = m.text
    bib = parse_csl_yaml(YAML, t)
    assert bib.format is BibFormat.CSL_YAML and bib.complete and not bib.problems
    first, second = bib.entries
    assert (first.key, first.key_span) == ("doe99", m.named["key"])
    assert first.entry_type == "book"
    title = first.field("title")
    assert title is not None and title.value == "An 'apostrophe' book"
    assert title.value_span == m.named["title"] and title.name_span == m.named["tn"]
    assert first.get("author") == "Doe, John"
    assert first.field("year").value_span == m.named["year"]  # type: ignore[union-attr]
    assert first.field("publisher").value_span == m.named["pub"]  # type: ignore[union-attr]
    assert (second.key, second.key_span) == ("second", m.named["key2"])
    assert second.field("year").value_span == m.named["year2"]  # type: ignore[union-attr]
    assert second.field("doi").value_span == m.named["doi"]  # type: ignore[union-attr]


def test_csl_yaml_bare_list() -> None:
    bib = parse_csl_yaml(YAML, "- id: a\n  title: A\n- id: b\n")
    assert [e.key for e in bib.entries] == ["a", "b"]


@pytest.mark.parametrize(
    ("marked", "message"),
    [
        ("⟦e|title⟧: Notes\nauthor: Someone\n", "mapping without references:"),
        ("⟦e|bibliography⟧:\n  - id: a\n", "mapping without references:"),
        ("- id: a\n---\n⟦e|title⟧: x\n", "pandoc reads the first document"),
        ("references:\n- id: a\n---\n⟦e|references⟧:\n- id: b\n", "first document"),
        ("---\n---\n⟦e|references⟧:\n- id: b\n", "first document"),
        ("references: []\n---\n⟦e|- id: b⟧\n", "first document"),
        ("⟦e|references⟧: refs.bib\n", "references: is not a list of CSL items"),
        ("⟦e|id⟧: a\ntitle: A\n", "CSL-YAML item not in a list"),
        ("{⟦e|id⟧: a, title: A}\n", "CSL-YAML item not in a list"),
        ("⟦e|title⟧: A\nid: a\n", "CSL-YAML item not in a list"),
        ("⟦e|references⟧:\n  id: a\n  title: A\n", "references: is not a list of CSL items"),
        ("⟦e|just some text⟧\n", "must be a list of items"),
    ],
)
def test_yaml_pandoc_reads_no_entry_from_is_a_finding_with_position(
    marked: str, message: str
) -> None:
    """A mapping without ``references:`` (pandoc reads no entry from it) was an empty
    bibliography without a word, and so were a ``references:`` that is no list and a
    document that is text; one item not in a list, or a ``references:`` that is one item,
    was read as that item (pandoc 2.17, 3.6.1 and 3.9 read none: tests/test_csl_pandoc.py)."""
    m = parse_markers(marked)
    bib = parse_csl_yaml(YAML, m.text)
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and message in p.message
    assert p.location.span == m.named["e"]
    assert not bib.complete


@pytest.mark.parametrize("text", ["", "---\n...\n", "references:\n", "references: []\n", "[]\n"])
def test_empty_yaml_is_an_empty_bibliography(text: str) -> None:
    bib = parse_csl_yaml(YAML, text)
    assert (bib.entries, bib.problems, bib.complete) == ((), (), True)


@pytest.mark.parametrize(
    "marked",
    [
        "references:\n- id: a\n- id: b\n  title: [unclosed⟦e|⟧\n",
        "references:\n- id: a\n  title: x\n ⟦e|-⟧ id: b\n",
        'references:\n- id: a\n  title: "x⟦e|⟧\n',
    ],
)
def test_malformed_yaml_is_a_finding_with_position(marked: str) -> None:
    m = parse_markers(marked)
    bib = parse_csl_yaml(YAML, m.text)
    (p,) = bib.problems
    assert p.code is Code.BIB_SYNTAX and p.message.startswith("invalid YAML")
    assert abs(p.location.span.start - m.named["e"].start) <= 2
    assert not bib.complete


# -- real files ---------------------------------------------------------------------------


def _first(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object as pandoc reads it: of a member named twice, the first."""
    members: dict[str, object] = {}
    for name, value in pairs:
        members.setdefault(name, value)
    return members


def _real_json() -> list[Path]:
    return [*sorted((DATA / "csl").glob("*.json")), DATA / "bibs" / "manubot-bibliography.json"]


@pytest.mark.parametrize("path", _real_json(), ids=lambda p: p.name)
def test_real_csl_json_items_match_json_module(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text, object_pairs_hook=_first)
    items = data if isinstance(data, list) else [data]
    bib = parse_csl_json(path, text)
    # pandoc (2.17, 3.6.1, 3.9) stops at a list where it reads text: Crossref's "ISSN"
    # list, an "original-title": [] (the items are read all the same)
    stops = {"deep-review-manual-references.json", "manubot-crossref-deep-review-raw.json"}
    assert bib.complete is (path.name not in stops)
    assert [p.message.split(",")[0] for p in bib.problems if p.code is Code.BIB_SYNTAX] == (
        ['"original-title" must be text or a whole number of 64 bits']
        if path.name == "deep-review-manual-references.json"
        else ['"ISSN" must be text or a whole number of 64 bits']
        if path.name in stops
        else []
    )
    with_id = [i for i in items if i.get("id")]
    assert [e.key for e in bib.entries] == [str(i["id"]) for i in with_id]
    for e, item in zip(bib.entries, with_id, strict=True):
        assert sl(text, e.key_span) == e.key
        assert e.csl_type == str(item.get("type", "document")).lower()
        assert e.entry_type == bibtex_type(e.csl_type)
        if isinstance(item.get("title"), str):
            assert e.get("title") == item["title"]
        if isinstance(item.get("DOI"), str):
            assert e.get("doi") == item["DOI"]
            f = e.field("doi")
            assert f is not None and sl(text, f.value_span) == item["DOI"]
        if item.get("author"):
            assert e.get("author")
        assert text[e.span.start] == "{" and text[e.span.end - 1] == "}"
        assert json.loads(text[e.span.start : e.span.end], object_pairs_hook=_first) == item


@pytest.mark.parametrize("path", _real_json(), ids=lambda p: p.name)
def test_real_items_as_csl_yaml_read_like_json(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text, object_pairs_hook=_first)
    items = data if isinstance(data, list) else [data]
    as_yaml = yaml.safe_dump({"references": items}, allow_unicode=True, sort_keys=False)
    from_json = parse_csl_json(path, text)
    from_yaml = parse_csl_yaml(path, as_yaml)
    assert from_yaml.complete
    assert [e.key for e in from_yaml.entries] == [e.key for e in from_json.entries]
    for a, b in zip(from_yaml.entries, from_json.entries, strict=True):
        assert sl(as_yaml, a.key_span) == a.key
        for name in ("title", "author", "year", "journal", "doi", "volume", "pages"):
            # pandoc reads a YAML value as Markdown: a backslash escape is its character
            # (``Exposici\'on`` is ``Exposici'on``), where CSL-JSON keeps it
            want = b.get(name)
            assert a.get(name) == (markdown_unescaped(want) if want else want), (a.key, name)


_LOADERS = [yaml.SafeLoader, *([yaml.CSafeLoader] if hasattr(yaml, "CSafeLoader") else [])]


@pytest.mark.parametrize("loader", _LOADERS, ids=lambda loader: loader.__name__)
def test_yaml_nulls_are_no_values_with_either_loader(
    monkeypatch: pytest.MonkeyPatch, loader: type
) -> None:
    """``~``, ``null`` and nothing are YAML nulls, which pandoc reads as empty values (the
    item is read): libyaml's loader gave a plain scalar the style '' and the null check
    missed them, so a title ``~`` was the text "~" and an author ``null`` a person."""
    monkeypatch.setattr(csl, "YAML_LOADER", loader)
    text = (
        "references:\n- id: a\n  title: ~\n  author: null\n  publisher:\n  issued: ~\n"
        "  note: 'null'\n  editor:\n  - family: ~\n    given: J\n"
    )
    (e,) = parse_csl_yaml(YAML, text).entries
    assert e.key == "a"
    assert [(f.name, f.value) for f in e.fields] == [("note", "null"), ("editor", "J")]


@pytest.mark.parametrize("loader", _LOADERS, ids=lambda loader: loader.__name__)
def test_csl_yaml_id_pandoc_reads_as_no_text_is_no_id(
    monkeypatch: pytest.MonkeyPatch, loader: type
) -> None:
    """pandoc (2.17, 3.6.1 and 3.9) reads no entry from a CSL-YAML file's item whose id,
    unquoted, its YAML reader reads as a number or a boolean ("citation 2020 not found"),
    where the item was defined: a problem at the id says so.  Quoted, or no number to it
    (``.5``, ``1_000``, ``0X1A``, a date), the id is its text (tests/test_csl_pandoc.py
    runs pandoc on them)."""
    monkeypatch.setattr(csl, "YAML_LOADER", loader)
    m = parse_markers(
        "references:\n- id: ⟦a|2020⟧\n  title: B\n- id: '2021'\n- {id: ⟦b|1e3⟧}\n"
        '- id: ⟦c|yes⟧\n- id: "0x1A"\n- id: .5\n- id: 1_000\n- id: 0X1A\n'
        "- id: 2020-01-01\n- id: abc\n"
    )
    bib = parse_csl_yaml(YAML, m.text)
    keys = ["2021", "0x1A", ".5", "1_000", "0X1A", "2020-01-01", "abc"]
    assert [e.key for e in bib.entries] == keys
    assert [(p.code, p.location.span) for p in bib.problems] == [
        (Code.EMPTY_KEY, m.named[name]) for name in "abc"
    ]
    assert bib.problems[0].message == (
        "the id 2020 is a number to pandoc's YAML reader, not text: pandoc reads no entry "
        "from the item, which cannot be cited (write id: '2020')"
    )
    assert "yes is true or false" in bib.problems[2].message
