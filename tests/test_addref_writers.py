"""Entry writers: BibTeX in the target file's style, CSL-JSON and CSL-YAML items."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from citewarden.addref.bibtex_out import (
    PER_ENTRY,
    BibStyle,
    bibtex_entry,
    clean_value,
    detect_style,
    insertion,
)
from citewarden.addref.csl_out import csl_item, json_insertion, yaml_insertion
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml
from citewarden.verify.records import Person, WorkRecord
from pandoc_json import csljson
from paths import PANDOC_RELEASES

DATA = Path(__file__).parent / "data"

RESNET = WorkRecord(
    source="crossref",
    title="Deep Residual Learning for Image Recognition",
    authors=(Person("He", "Kaiming"), Person("Zhang", "Xiangyu"), Person("Ren", "Shaoqing")),
    year=2016,
    doi="10.1109/cvpr.2016.90",
    venue="2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)",
    pages="770-778",
    work_type="proceedings-article",
)


def _apply(text: str, at: int, insert: str) -> str:
    return text[:at] + insert + text[at:]


def test_entry_fields_from_a_record() -> None:
    out = bibtex_entry(RESNET, "he2016deep")
    assert out.splitlines()[0] == "@inproceedings{he2016deep,"
    assert "  author = {He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing}," in out
    assert (
        "  booktitle = {2016 IEEE Conference on Computer Vision and Pattern Recognition ({CVPR})},"
        not in out
    )
    assert "  pages = {770--778}," in out and "  doi = {10.1109/cvpr.2016.90}," in out
    assert out.endswith("}")


def test_jss_style_is_followed(tmp_path: Path) -> None:
    text = (DATA / "fix" / "jss-bibliography.bib").read_text(encoding="utf-8")
    style = detect_style(text)
    assert style.align == PER_ENTRY and not style.trailing_comma and style.indent == "  "
    assert style.order.index("author") < style.order.index("title") < style.order.index("year")
    at, insert = insertion(text, bibtex_entry(RESNET, "he2016deep", style), style)
    new = _apply(text, at, insert)
    lines = insert.strip().splitlines()
    assert lines[1].startswith("  author    = {He, Kaiming")  # aligned to "booktitle "
    assert lines[-2].endswith("}") and not lines[-2].endswith(",")
    parsed = parse_bibtex(tmp_path / "refs.bib", new)
    assert not parsed.problems
    entry = next(e for e in parsed.entries if e.key == "he2016deep")
    assert entry.get("doi") == "10.1109/cvpr.2016.90" and entry.get("pages") == "770--778"
    assert len(parsed.entries) == len(parse_bibtex(tmp_path / "a.bib", text).entries) + 1


def test_quotes_upper_case_and_tabs_are_followed() -> None:
    text = '@ARTICLE{x,\n\tAUTHOR = "A. Person",\n\tTITLE = "T",\n\tYEAR = "2001",\n}\n'
    style = detect_style(text)
    assert (style.quotes, style.field_case, style.type_case, style.indent) == (
        True,
        "upper",
        "upper",
        "\t",
    )
    out = bibtex_entry(RESNET, "k", style)
    assert out.startswith('@INPROCEEDINGS{k,\n\tAUTHOR = "He, Kaiming')
    assert '\tDOI = "10.1109/cvpr.2016.90",' in out


def test_hostile_values_cannot_break_out() -> None:
    evil = WorkRecord(
        source="crossref",
        title="Fish & Chips } @misc{pwned, title={x} 100% #1 \u202eevil\x1b[31m",
        authors=(Person("O'Brien}", "A_b"),),
        year=2020,
    )
    out = bibtex_entry(evil, "k", BibStyle())
    assert out.count("{") == out.count("}")
    assert "\x1b" not in out and "\u202e" not in out
    assert "Fish \\& Chips" in out and "100\\%" in out and "\\#1" in out and "A\\_b" in out
    # braces that close nothing or are never closed go; balanced ones (math, arguments) stay
    assert clean_value("a }b{ c") == "a b c"
    assert clean_value("in $\\mathbb{Z}_{3}$ {x") == "in $\\mathbb{Z}_{3}$ x"


@pytest.mark.parametrize("quotes", [False, True])
def test_a_url_ending_in_a_backslash_leaves_the_value_closed(quotes: bool) -> None:
    """bibtexparser 2 reads a backslash before the closing delimiter as its escape and drops
    the entry: the value gets a space there, which BibTeX and biber drop."""
    import bibtexparser

    record = WorkRecord(source="crossref", title="T", year=2020, url="http://x\\")
    out = bibtex_entry(record, "k", replace(BibStyle(), quotes=quotes))
    library = bibtexparser.parse_string(out + "\n@misc{next, title = {N}}\n")
    assert not library.failed_blocks
    assert [e.key for e in library.entries] == ["k", "next"]
    assert library.entries[0].fields_dict["url"].value.strip() == "http://x\\"
    bib = parse_bibtex(Path("r.bib"), out)
    assert bib.complete and bib.entries[0].field("url").value.strip() == "http://x\\"


@pytest.mark.parametrize(
    ("doi", "title", "protect"),
    [
        ("10.1/x\\}", "T", False),  # the brace's backslash escaped it for bibtexparser only
        ("10.1/{x\\}", "T", False),
        ("10.1/x", "A \\\\{B}", False),  # \\ then a group: bibtexparser took it for \{
        ("10.1/x", "Ends in \\\\", True),  # the title's own braces closed after \\
    ],
)
def test_a_record_s_braces_and_backslashes_are_written_so_every_reader_pairs_them(
    doi: str, title: str, protect: bool
) -> None:
    """A value BibTeX pairs up one way and bibtexparser (or LaTeX) another lost the entry,
    and the next one, to bibtexparser: the backslashes before its braces go, and the braces
    left unpaired."""
    import bibtexparser

    record = WorkRecord(source="crossref", title=title, year=2020, doi=doi)
    out = bibtex_entry(record, "k", replace(BibStyle(), protect_title=protect))
    library = bibtexparser.parse_string(out + "\n@misc{next, title = {N}}\n")
    assert not library.failed_blocks
    assert [e.key for e in library.entries] == ["k", "next"]
    bib = parse_bibtex(Path("r.bib"), out + "\n")
    assert bib.complete
    for name in ("doi", "title"):
        ours = bib.entries[0].field(name)
        assert ours is not None
        assert library.entries[0].fields_dict[name].value == ours.value


def test_values_of_real_records_are_written_as_the_tools_read_them() -> None:
    """What real records broke: a quoted file's value holding a double quote, a DOI's
    ``_`` escaped (printed and linked as ``3\\_1``), a URL's ``~`` turned into
    ``textasciitilde{}``, a thesis's university written as its publisher, and TeX math
    losing its braces."""
    from test_addref_real_tools import odd_records

    by_doi = {r.doi: r for r in odd_records() if r.doi}
    quoted = BibStyle(quotes=True)
    entry = bibtex_entry(by_doi["10.1097/01.ruq.0000226876.42808.60"], "k", quoted)
    assert 'title = {"Rule Out Ectopic"},' in entry
    assert 'journal = "Ultrasound Quarterly",' in entry
    assert "doi = {10.1007/978-1-4614-7660-3_1}" in bibtex_entry(
        by_doi["10.1007/978-1-4614-7660-3_1"], "k"
    )
    thesis = bibtex_entry(by_doi["10.14264/uql.2020.791"], "k")
    assert thesis.startswith("@phdthesis{") and "school = {University of Queensland" in thesis
    assert "publisher" not in thesis
    report = bibtex_entry(by_doi["10.1787/ba602d18-en"], "k")
    assert report.startswith("@techreport{") and "institution = {Organisation for" in report
    others = [r for r in odd_records() if not r.doi]
    written = "\n".join(bibtex_entry(r, "k") for r in others)
    assert "url = {https://www.cs.toronto.edu/~kriz/learning-features-2009-TR.pdf}" in written
    assert "{$ \\mathbb{Z}_{3}$}" in written and "{$K_{s, s}$}-free" in written


def test_inner_capitals_are_protected() -> None:
    rec = WorkRecord(source="dblp", title="ImageNet classification with BERT and CNNs", year=2017)
    assert "title = {{ImageNet} classification with {BERT} and {CNNs}}" in bibtex_entry(rec, "k")


def test_csl_json_insertion_keeps_the_file_and_parses(tmp_path: Path) -> None:
    text = (DATA / "bibs" / "manubot-bibliography.json").read_text(encoding="utf-8")
    before = json.loads(text)
    place = json_insertion(text, csl_item(RESNET, "he2016deep"))
    assert place is not None
    new = _apply(text, *place)
    after = json.loads(new)
    assert after[:-1] == before and after[-1]["DOI"] == "10.1109/cvpr.2016.90"
    assert after[-1]["issued"] == {"date-parts": [[2016]]}
    parsed = parse_csl_json(tmp_path / "b.json", new)
    old = parse_csl_json(tmp_path / "a.json", text)
    assert "he2016deep" in {e.key for e in parsed.entries}
    assert len(parsed.problems) == len(old.problems)  # one item there has no id already
    assert json_insertion("[]", csl_item(RESNET, "k")) is not None
    assert json.loads(_apply("[]", *json_insertion("[]", csl_item(RESNET, "k"))))[0]["id"] == "k"
    assert json_insertion("{}", csl_item(RESNET, "k")) is None


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "items": [\n    {\n      "id": "other",\n      "type": "book"\n    }\n  ]\n}\n',
        '{"items": [{"id": "other", "type": "book"}], "note": 1}',
        '{"items": []}\n',
    ],
)
def test_csl_json_insertion_goes_into_an_items_array(tmp_path: Path, text: str) -> None:
    """A CSL-JSON object with an array of items (pandoc 3 reads it) takes the new item
    last in that array, indented like its items; pandoc 3.9 reads it and the rest."""
    place = json_insertion(text, csl_item(RESNET, "he2016deep"))
    assert place is not None
    new = _apply(text, *place)
    data = json.loads(new)
    assert data["items"][-1]["id"] == "he2016deep"
    assert {k: v for k, v in data.items() if k != "items"} == {
        k: v for k, v in json.loads(text).items() if k != "items"
    }
    if text.startswith("{\n"):
        assert '    {\n      "id": "he2016deep",\n' in new
    (tmp_path / "refs.json").write_text(new, encoding="utf-8")
    read = csljson(tmp_path, "-f", "csljson", "refs.json", pandoc=str(PANDOC_RELEASES["3.9"]))
    ids = [item["id"] for item in read]
    assert ids == [*(["other"] if "other" in text else []), "he2016deep"]


def test_csl_yaml_insertion_goes_into_the_references_list(tmp_path: Path) -> None:
    text = (
        '---\nreferences:\n- id: other\n  title: "Other"\n  issued:\n    date-parts:\n'
        "    - - 2001\nnocite: |\n  @other\n...\n"
    )
    new = _apply(text, *yaml_insertion(text, csl_item(RESNET, "he2016deep")))
    docs = yaml.safe_load(new.replace("...\n", ""))
    assert [r["id"] for r in docs["references"]] == ["other", "he2016deep"]
    assert docs["nocite"].strip() == "@other"
    assert docs["references"][1]["author"][0] == {"family": "He", "given": "Kaiming"}
    parsed = parse_csl_yaml(tmp_path / "r.yaml", new)
    assert "he2016deep" in {e.key for e in parsed.entries}


def test_csl_yaml_item_values_escape_what_pandoc_would_read_as_markdown(tmp_path: Path) -> None:
    """pandoc reads each CSL-YAML value as Markdown: a title's ``*`` or a DOI's ``<``
    written raw would come out as emphasis and HTML; escaped, pandoc reads the record's
    text, and so does citewarden."""
    title, doi = "Spaces of C*-algebras and *-homomorphisms", "10.1002/(SICI)1<a_b*c>2--P"
    record = replace(RESNET, title=title, doi=doi)
    new = _apply("", *yaml_insertion("", csl_item(record, "k")))
    (tmp_path / "doc.md").write_text("---\n" + new + "---\n", encoding="utf-8")
    [item] = csljson(tmp_path, "-f", "markdown", "doc.md")
    assert (item["id"], item["title"], item["DOI"]) == ("k", title, doi)
    [entry] = parse_csl_yaml(tmp_path / "r.yaml", new).entries
    assert (entry.get("title"), entry.get("doi")) == (title, doi)


def test_plan_insertion_by_format(tmp_path: Path) -> None:
    from citewarden.addref.insert import InsertError, apply, make_key, plan_insertion

    bib = plan_insertion(Path("refs.bib"), "", RESNET, "he2016deep")
    assert apply("", bib).startswith("@inproceedings{he2016deep,")
    js = plan_insertion(Path("refs.json"), "[]\n", RESNET, "he2016deep")
    assert json.loads(apply("[]\n", js))[0]["id"] == "he2016deep"
    ym = plan_insertion(Path("refs.yaml"), "", RESNET, "he2016deep")
    assert yaml.safe_load(apply("", ym))["references"][0]["id"] == "he2016deep"
    try:
        plan_insertion(Path("refs.json"), "{}", RESNET, "k")
    except InsertError as exc:
        assert "not a CSL-JSON array" in str(exc)
    else:
        raise AssertionError("a JSON object is not a CSL-JSON bibliography")
    assert make_key(RESNET) == "he2016deep"
    assert make_key(RESNET, {"he2016deep"}) == "he2016deepa"


def test_keys_that_would_break_the_file_are_refused() -> None:
    from citewarden.addref.insert import InsertError, plan_insertion

    for key in ("a,b", "x}y", "two words", "", 'q"k', "k\x1b", "a<b", "a|b", "a^b", "k😀"):
        try:
            plan_insertion(Path("refs.bib"), "", RESNET, key)
        except InsertError as error:
            assert "cannot be an entry key" in str(error), key
            continue
        raise AssertionError(f"{key!r} was accepted")
    try:
        plan_insertion(Path("refs.json"), "[]", RESNET, "x<y")
    except InsertError as error:
        assert "'<' is not read in a key by all of BibTeX, biber and pandoc" in str(error)
    else:
        raise AssertionError("x<y was accepted")
    assert plan_insertion(Path("refs.bib"), "", RESNET, "straße2020").key == "straße2020"
    assert plan_insertion(Path("refs.bib"), "", RESNET, "DBLP:conf/x/Y19").key == "DBLP:conf/x/Y19"


def test_a_suffix_and_an_organisation_are_written_where_bibtex_and_csl_read_them() -> None:
    """BibTeX reads "Hora Jr., Donald" as the surname "Hora Jr." and an unbraced
    "Procter and Gamble" as two people; CSL has a ``suffix`` of its own."""
    rec = WorkRecord(
        source="openalex",
        title="T",
        authors=(Person("Hora Jr.", "Donald"), Person("Procter and Gamble"), Person("Li", "Wei")),
        year=2020,
    )
    assert "author = {Hora, Jr., Donald and {Procter and Gamble} and Li, Wei}" in bibtex_entry(
        rec, "k"
    )
    assert csl_item(rec, "k")["author"] == [
        {"family": "Hora", "given": "Donald", "suffix": "Jr."},
        {"family": "Procter and Gamble"},
        {"family": "Li", "given": "Wei"},
    ]


def _recorded_hornik() -> WorkRecord:
    """The real Crossref record of Hornik 1991 (tests/data/addref/api)."""
    from citewarden.verify.sources.crossref import work_from_csl

    reply = json.loads(
        (DATA / "addref" / "api" / "crossref" / "crossref_doi_f15dd4dfc6.json").read_text(
            encoding="utf-8"
        )
    )
    record = work_from_csl(reply["message"])
    assert record is not None and record.doi == "10.1016/0893-6080(91)90009-t"
    return record


def test_a_new_key_differing_from_a_taken_one_in_case_only_gets_a_suffix() -> None:
    """BibTeX compares keys ignoring case ("Repeated entry"), as the duplicate-key check
    does: the new key was ``hornik1991approximation`` beside ``Hornik1991approximation``."""
    from citewarden.addref.insert import clashing_key, make_key

    hornik = _recorded_hornik()
    assert make_key(hornik, {"Hornik1991approximation"}) == "hornik1991approximationa"
    taken = ["HORNIK1991APPROXIMATION", "Hornik1991approximationA"]
    assert make_key(hornik, taken) == "hornik1991approximationb"
    assert clashing_key("hornik1991Approximation", taken) == "HORNIK1991APPROXIMATION"
    assert clashing_key("hornik1991", taken) is None


def test_a_pubmed_record_is_written_with_its_whole_page_range() -> None:
    """A real efetch record: ``<MedlinePgn>217-64</MedlinePgn>`` beside ``<StartPage>217``
    and ``<EndPage>264``; the entry added from it said ``pages = {217--64}``."""
    from xml.etree import ElementTree

    from citewarden.verify.sources.pubmed import work_from_pubmed_article

    root = ElementTree.parse(DATA / "api" / "pubmed" / "efetch_11618220.xml").getroot()
    record = work_from_pubmed_article(root.find("PubmedArticle"))
    assert record is not None and record.pages == "217-264"
    assert "  pages = {217--264}," in bibtex_entry(record, "mcmahon1987eroticism")
    assert csl_item(record, "mcmahon1987eroticism")["page"] == "217-264"
    # MedlinePgn alone (no StartPage/EndPage) is expanded the same way; article numbers and
    # lettered ranges stay as written
    from citewarden.verify.normalize import page_range

    assert [page_range(p) for p in ("217-64", "e1004", "S12-S15", "1099-108")] == [
        "217-264",
        "e1004",
        "S12-S15",
        "1099-1108",
    ]


def test_csl_yaml_items_are_found_by_the_list_not_by_their_first_key() -> None:
    from citewarden.addref.insert import InsertError, apply, plan_insertion

    item = csl_item(RESNET, "he2016deep")
    layouts = {  # the list pandoc reads; its items start with any key, indented or not
        "---\nreferences:\n- author:\n  - family: K\n  id: k\n---\n": "references",
        "references:\n  - type: book  # a comment\n    id: k\n\n...\n": "references",
        "- title: |\n    T\n\n  id: k\n---\n- id: later\n": None,
        "---\nnocite: '@*'\nreferences:\n---\n": "references",
        "---\nnocite: '@*'\n---\n": "references",
        "references:\r\n- title: T\r\n  id: k\r\n---\r\n": "references",
    }
    for text, field in layouts.items():
        new = apply(text, plan_insertion(Path("r.yaml"), text, RESNET, "he2016deep"))
        first = next(yaml.safe_load_all(new))
        items = first[field] if field else first
        assert items[-1]["id"] == "he2016deep", new
        assert items[-1]["author"][0] == item["author"][0], new
        assert [i["id"] for i in items[:-1]] == (["k"] if "id: k" in text else []), new
    for text in ("references: [{id: k}]\n", "{references: []}\n", "---\n---\n", "a: [\n"):
        try:
            plan_insertion(Path("r.yaml"), text, RESNET, "he2016deep")
        except InsertError as error:
            assert "no CSL-YAML list of items" in str(error), text
        else:
            raise AssertionError(text)


def test_the_trailing_comma_of_a_crlf_file_is_followed() -> None:
    """A CRLF file's last fields end in "," or not, with or without a final line break, and
    the new entry does as they do (the "\\r" before each "\\n" is no end of a field)."""
    from citewarden.addref.insert import apply, plan_insertion

    with_commas = (
        "@misc{a,\r\n  title = {A},\r\n  year = {2001},\r\n}\r\n\r\n@misc{b,\r\n  title = {B},\r\n}"
    )
    without = with_commas.replace("},\r\n}", "}\r\n}")
    for text, comma in (
        (with_commas, True),
        (with_commas + "\r\n", True),
        (without, False),
        (without + "\r\n", False),
    ):
        assert detect_style(text).trailing_comma is comma, repr(text)
        new = apply(text, plan_insertion(Path("refs.bib"), text, RESNET, "he2016deep"))
        last = new[new.index("@inproceedings") :]
        assert last.rstrip("\r\n").endswith("},\r\n}") is comma, repr(last)
        keys = {e.key for e in parse_bibtex(Path("refs.bib"), new).entries}
        assert keys == {"a", "b", "he2016deep"}


def _recorded_organisation_work() -> WorkRecord:
    """The real OpenAlex work whose one author is the University of Gothenburg."""
    from citewarden.verify.sources.openalex import work_from_openalex

    page = json.loads(
        (
            DATA
            / "api"
            / "openalex"
            / "test-openalex_reader__test_get_random_id_from_openalex__00.json"
        ).read_text(encoding="utf-8")
    )
    record = work_from_openalex(page["results"][0])
    assert record is not None and record.doi == "10.3535/jf0-6x9-kpw"
    return record


def test_an_organisation_openalex_names_as_a_person_is_written_whole() -> None:
    """OpenAlex gives an organisation's name as it gives a person's; the entry names it
    braced whole, where it was written as the person "Gothenburg, University of"."""
    record = _recorded_organisation_work()
    assert record.authors == (Person("University of Gothenburg"),)
    out = bibtex_entry(record, "k")
    assert "  author = {{University of Gothenburg}}," in out
    from citewarden.verify.authors import split_authors

    field = parse_bibtex(Path("r.bib"), out).entries[0].field("author")
    (author,), _ = split_authors(field.value)
    assert author.corporate and author.family == "University of Gothenburg"


def test_an_organisation_s_display_name_is_read_whole() -> None:
    from citewarden.verify.sources._common import person_from_name

    assert person_from_name("World Health Organization") == Person("World Health Organization")
    assert person_from_name("Centre for Disease Control") == Person("Centre for Disease Control")
    assert person_from_name("Gemma Team") == Person("Gemma Team")
    assert person_from_name("Robert Center") == Person("Center", "Robert")
    assert person_from_name("Ludwig van Beethoven") == Person("van Beethoven", "Ludwig")
