"""Field comparison against real recorded Crossref records (tests/data/accuracy)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from citewarden.model import Code
from citewarden.verify.author_compare import AuthorComparison, compare_authors, is_group_author
from citewarden.verify.authors import split_authors
from citewarden.verify.compare import (
    Agreement,
    abbreviation_of,
    compare,
    compare_pages,
    compare_title,
    compare_value,
    compare_year,
    digit_swap,
    venue_agrees,
)
from citewarden.verify.field_check import field_issues
from citewarden.verify.normalize import NormalizedEntry, make_entry, normalize_entry
from citewarden.verify.records import Person, WorkRecord
from citewarden.verify.sources._common import person_from_name
from citewarden.verify.sources.crossref import work_from_csl
from paths import DATA
from replay import recorded_json

RECORDS = DATA / "accuracy" / "records.jsonl"


def _records() -> dict[str, WorkRecord]:
    out: dict[str, WorkRecord] = {}
    for line in Path(RECORDS).read_text(encoding="utf-8").splitlines():
        rec = work_from_csl(json.loads(line)["message"])
        if rec is not None and rec.doi:
            out[rec.doi] = rec
    return out


REC = _records()
RNEXML = REC["10.1111/2041-210x.12469"]  # Boettiger, Chamberlain, Vos, Lapp (2015)
INORG = REC["10.1021/acs.inorgchem.8b02763"]  # Weihermüller et al., Inorg. Chem. 58(2)


def test_records_loaded_from_real_responses() -> None:
    assert RNEXML.venue == "Methods in Ecology and Evolution"
    assert [p.family for p in RNEXML.authors] == ["Boettiger", "Chamberlain", "Vos", "Lapp"]


def test_title_folding_and_subtitles() -> None:
    title = RNEXML.title
    assert compare_title(title.upper(), RNEXML).exact  # type: ignore[union-attr]
    assert compare_title("{RNeXML}: " + title.split(": ", 1)[1], RNEXML).exact  # type: ignore[union-attr]
    main = title.split(":")[0]
    assert compare_title(main, RNEXML).exact  # type: ignore[union-attr]  (subtitle left out)
    near = compare_title(title.replace("reading", "parsing"), RNEXML)
    assert near is not None and near.near and not near.exact
    far = compare_title("Attention is all you need", RNEXML)
    assert far is not None and not far.same_work


def test_authors_with_umlauts_in_latex_and_initials_agree() -> None:
    written = r"Weiherm{\"u}ller, A. and Schlamp, S. and Dittrich, B. and Weber, B."
    authors, truncated = split_authors(written)
    result = compare_authors(authors, truncated, INORG.authors)
    assert result is not None and result.exact


def test_author_added_dropped_substituted_are_named() -> None:
    def cmp(field: str) -> object:
        authors, truncated = split_authors(field)
        return compare_authors(authors, truncated, RNEXML.authors)

    added = cmp(
        "Boettiger, Carl and Chamberlain, Scott and Vos, Rutger and Lapp, Hilmar and Knuth, Don"
    )
    assert added.added == ("Knuth, Don",) and added.agree  # type: ignore[attr-defined]
    dropped = cmp("Boettiger, Carl and Chamberlain, Scott and Lapp, Hilmar")
    assert [d.split()[-1] for d in dropped.dropped] == ["Vos"]  # type: ignore[attr-defined]
    sub = cmp("Boettiger, Carl and Knuth, Don and Vos, Rutger and Lapp, Hilmar")
    assert sub.substituted[0][0] == "Knuth, Don"  # type: ignore[attr-defined]
    assert "Chamberlain" in sub.substituted[0][1]  # type: ignore[attr-defined]
    truncated = cmp("Boettiger, Carl and others")
    assert truncated.exact  # type: ignore[attr-defined]
    # a name the record lacks in a list cut short moves the rest one place down the
    # record's: Vos is not dropped; a name in the last place named is a substitution
    shifted = cmp("Boettiger, Carl and Knuth, Don and Chamberlain, Scott and others")
    assert shifted.added == ("Knuth, Don",) and not shifted.dropped  # type: ignore[attr-defined]
    last = cmp("Boettiger, Carl and Chamberlain, Scott and Knuth, Don and others")
    assert last.substituted[0][0] == "Knuth, Don"  # type: ignore[attr-defined]
    assert "Vos" in last.substituted[0][1]  # type: ignore[attr-defined]
    wrong_first = cmp("Chamberlain, Scott and Boettiger, Carl and Vos, Rutger and Lapp, Hilmar")
    assert not wrong_first.first_ok  # type: ignore[attr-defined]


def test_a_surname_one_letter_apart_in_its_place_is_misspelled_not_substituted() -> None:
    def cmp(field: str) -> AuthorComparison:
        authors, truncated = split_authors(field)
        result = compare_authors(authors, truncated, RNEXML.authors)
        assert result is not None
        return result

    # a letter added, dropped, replaced and two swapped; the given name agrees
    for written in ("Chamberlaine", "Chamberlin", "Chamberlein", "Chamberalin"):
        slip = cmp(f"Boettiger, Carl and {written}, Scott and Vos, Rutger and Lapp, Hilmar")
        assert slip.misspelled and slip.misspelled[0][0] == f"{written}, Scott", written
        assert not slip.substituted and not slip.exact and slip.agree
        assert slip.matched == 4
    first = cmp("Boettinger, Carl and Chamberlain, Scott and Vos, Rutger and Lapp, Hilmar")
    assert first.misspelled and first.first_ok  # the first author, misspelled, is still first
    # another person: other given name, or a surname too short to tell ("Vos" / "Voss")
    other = cmp("Boettiger, Carl and Chamberlaine, Neil and Vos, Rutger and Lapp, Hilmar")
    assert other.substituted and not other.misspelled
    short = cmp("Boettiger, Carl and Chamberlain, Scott and Voss, Rutger and Lapp, Hilmar")
    assert short.substituted and not short.misspelled
    far = cmp("Boettiger, Carl and Chamberlayne, Scott and Vos, Rutger and Lapp, Hilmar")
    assert far.substituted and not far.misspelled  # two letters apart


def test_a_tex_accent_read_as_a_letter_is_the_same_surname() -> None:
    # Semantic Scholar's GPT-4o system card lists "Aleksander Mkadry": M\k{a}dry with the
    # ogonek's macro read as a letter (tests/data/accuracy/refchecker)
    record = [Person("Hurst", "Aaron"), Person("Mkadry", "Aleksander"), Person("Lerer", "Adam")]

    def cmp(field: str) -> AuthorComparison:
        authors, truncated = split_authors(field)
        result = compare_authors(authors, truncated, record)
        assert result is not None
        return result

    for written in ("M{\\k{a}}dry, Aleksander", "Mądry, Aleksander"):
        same = cmp(f"Hurst, Aaron and {written} and Lerer, Adam")
        assert same.exact and not same.added and not same.dropped, written
    # the letter must stand before an accented letter of the entry's name
    for written in ("Madry, Aleksander", "Mąkdry, Aleksander", "Mądrzy, Aleksander"):
        other = cmp(f"Hurst, Aaron and {written} and Lerer, Adam")
        assert not other.exact, written
    # a caron's "v" before "z"
    zeroski = compare_authors(
        *split_authors("D{\\v{z}}eroski, Sa{\\v{s}}o"), [Person("Dvzeroski", "Saso")]
    )
    assert zeroski is not None and zeroski.exact


@pytest.mark.parametrize(
    ("short", "full", "agrees"),
    [
        ("Methods Ecol Evol", "Methods in Ecology and Evolution", True),
        ("Phys. Rev. Lett.", "Physical Review Letters", True),
        ("Phys. Rev.", "Physical Review Letters", False),
        ("Proc. Natl. Acad. Sci.", "Proceedings of the National Academy of Sciences", True),
        ("J. Mach. Learn. Res.", "Journal of Machine Learning Research", True),
        ("Inorg. Chem.", "Inorganic Chemistry", True),
        ("Physical Review B", "Physical Review Letters", False),
    ],
)
def test_journal_abbreviations(short: str, full: str, agrees: bool) -> None:
    assert abbreviation_of(short, full) is agrees


def test_conference_names_by_acronym_and_alias() -> None:
    assert venue_agrees(
        "Proceedings of the IEEE Conference on Computer Vision and Pattern Recognition",
        ["2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)"],
    )
    assert venue_agrees("NeurIPS", ["Advances in Neural Information Processing Systems"])
    assert not venue_agrees("Theoretical Ecology", ["Methods in Ecology and Evolution"])


def test_years_numbers_pages_and_digit_swaps() -> None:
    assert compare_year(2015, 2015) is Agreement.EQUAL
    assert compare_year(2014, 2015) is Agreement.NEAR
    assert compare_year(2051, 2015) is Agreement.DIFFERENT
    assert digit_swap("2051", "2015") and digit_swap("1243", "1234")
    assert not digit_swap("1234", "1235")
    vol = compare_value("85", "58")
    assert vol.agreement is Agreement.DIFFERENT and vol.swap
    assert compare_value("01", "1").agreement is Agreement.EQUAL
    assert compare_value("2", "2-3").agreement is Agreement.EQUAL
    assert compare_value("1", "10").agreement is Agreement.DIFFERENT
    assert compare_pages("352-357", "352-357").agreement is Agreement.EQUAL
    assert compare_pages("352", "352-357").agreement is Agreement.EQUAL
    swapped = compare_pages("325-357", "352-357")
    assert swapped.agreement is Agreement.DIFFERENT and swapped.swap


def test_whole_comparison_of_an_entry_written_by_hand() -> None:
    entry = make_entry(
        "boettiger2015",
        "article",
        {
            "title": "{RNeXML}: a package for reading and writing richly annotated "
            "phylogenetic, character, and trait data in {R}",
            "author": "Carl Boettiger and Scott Chamberlain and Rutger Vos and Hilmar Lapp",
            "journal": "Methods Ecol. Evol.",
            "year": "2015",
            "volume": "7",
            "number": "3",
            "pages": "352--357",
        },
    )
    result = compare(normalize_entry(entry), RNEXML)
    assert result.title is not None and result.title.exact, RNEXML.title
    assert result.full_agreement
    assert result.venue is Agreement.EQUAL
    assert result.volume.agreement is Agreement.EQUAL
    assert result.pages.agreement is Agreement.EQUAL
    assert result.score > 0.9


def test_preprint_and_published_versions_are_one_work() -> None:
    preprint = REC["10.1002/essoar.10504562.1"]  # Crossref posted-content (ESSOAr), 2020
    entry = make_entry(
        "k",
        "article",
        {
            "title": preprint.title,
            "author": " and ".join(f"{p.family}, {p.given}" for p in preprint.authors),
            "journal": "Journal of Advances in Modeling Earth Systems",
            "year": str((preprint.year or 0) + 2),
        },
    )
    result = compare(normalize_entry(entry), preprint)
    assert result.venue is Agreement.UNKNOWN  # the record is the other version
    assert result.year is Agreement.NEAR  # published two years after the preprint
    assert result.full_agreement


def test_tex_math_in_a_record_title_is_read_as_the_entry_s_is() -> None:
    """Semantic Scholar (and arXiv) give titles with TeX math; the entry's title is decoded,
    so the record's must be too (``$\\mathbb{Z}_{3}$``, ``$\\varepsilon$``)."""
    from citewarden.verify.plain_text import latex_to_text
    from citewarden.verify.sources.semanticscholar import work_from_s2

    data = json.loads((DATA / "titles" / "s2_recommended_papers_tex_titles.json").read_text())
    papers = [p for p in data["recommendedPapers"] if "$" in (p.get("title") or "")]
    assert len(papers) >= 5
    for paper in papers:
        record = work_from_s2(paper)
        assert record is not None
        cmp = compare_title(latex_to_text(paper["title"]), record)
        assert cmp is not None and cmp.exact, paper["title"]


@pytest.mark.parametrize(
    ("family", "given", "group"),
    [
        # organisation authors as Crossref gives them (a recorded OSTI record)
        ("USDOE Office of Electricity (OE)", "", True),
        ("National Association of Regulatory Utility Commissioners", "", True),
        ("Gemma Team", "", True),
        ("DeepSeek-AI", "", True),
        # people, whatever their names look like
        ("Council", "Anna", False),
        ("Bieler", "Stephanie", False),
        ("Institute", "Mary", False),
    ],
)
def test_organisation_authors_are_groups(family: str, given: str, group: bool) -> None:
    assert is_group_author(family, given) is group


RNEXML_TITLE = (
    "{RNeXML}: a package for reading and writing richly annotated phylogenetic, character, "
    "and trait data in {R}"
)
OTHERS = "Ada Quill and Tomas Brindle and Mara Vell and Ivo Stamm and Lena Korff"


def _rnexml_entry(author: str) -> NormalizedEntry:
    return normalize_entry(
        make_entry(
            "k",
            "article",
            {"title": RNEXML_TITLE, "author": author, "journal": "Methods Ecol. Evol."},
        )
    )


def test_a_record_listing_the_first_authors_only_is_not_another_work() -> None:
    """The record's four authors, in order, then five more (an index that lists the first
    authors only, or names added after the real ones): the entry's authors are the
    record's; the added names are reported, and the entry's list is not cut to the
    record's."""
    record_authors = "Carl Boettiger and Scott Chamberlain and Rutger Vos and Hilmar Lapp"
    cmp = compare(_rnexml_entry(f"{record_authors} and {OTHERS}"), RNEXML)
    assert cmp.authors is not None and cmp.authors.record_prefix and cmp.authors.agree
    assert cmp.full_agreement
    issues, fixes = field_issues(
        _rnexml_entry(f"{record_authors} and {OTHERS}"), cmp, anchored_by_id=False
    )
    codes = [i.code for i in issues]
    assert Code.CHIMERIC not in codes and Code.AUTHOR_ADDED in codes
    added = next(i for i in issues if i.code is Code.AUTHOR_ADDED)
    assert added.message.startswith("the record lists the first 4 of the entry's 9 authors")
    assert "author" not in fixes
    # the same names with the record's four last are not its list: another work's authors
    other = _rnexml_entry(f"{OTHERS} and {record_authors}")
    cmp = compare(other, RNEXML)
    assert cmp.authors is not None and not cmp.authors.record_prefix
    assert Code.CHIMERIC in [i.code for i in field_issues(other, cmp, anchored_by_id=False)[0]]
    # one name added to four: reported, and the record's list offered as before
    one_more = _rnexml_entry(f"{record_authors} and Don Knuth")
    issues, fixes = field_issues(one_more, compare(one_more, RNEXML), anchored_by_id=False)
    assert [i.message for i in issues if i.code is Code.AUTHOR_ADDED] == [
        "author(s) not on the record: Knuth, Don"
    ]
    assert fixes["author"].startswith("Boettiger, Carl")


def test_a_list_cut_at_an_index_cap_is_not_offered_as_the_entry_s() -> None:
    """OpenAlex's searches and DOI batches give the first 100 authorships of a work (its
    documented limit): an entry listing all 130 authors keeps its list."""
    people = [Person(f"Author{i:03d}", f"Given{i:03d}") for i in range(130)]
    field = " and ".join(f"Given{i:03d} Author{i:03d}" for i in range(130))
    authors, truncated = split_authors(field)
    cut = compare_authors(authors, truncated, people[:100])
    assert cut is not None and cut.record_prefix and cut.short_record and cut.agree
    assert len(cut.added) == 30
    whole = compare_authors(authors, truncated, people)
    assert whole is not None and whole.exact and not whole.short_record


def _s2_by_arxiv(arxiv_id: str) -> WorkRecord | None:
    """Semantic Scholar's record of ``arxiv_id`` as refchecker recorded it."""
    from citewarden.verify.sources.semanticscholar import work_from_s2

    path = DATA / "accuracy" / "refchecker" / "semanticscholar_get_by_arxiv.jsonl"
    line = next(
        row
        for row in path.read_text(encoding="utf-8").splitlines()
        if json.loads(row)["cache_query"] == arxiv_id
    )
    return work_from_s2(json.loads(line)["body"])


def test_of_two_namesakes_the_one_with_the_record_s_given_name_is_on_the_record() -> None:
    """Semantic Scholar's real record of DeepSeekMath (refchecker's recorded answer) lists
    Mingchuan Zhang and not Haowei Zhang: the entry's Haowei Zhang is the one not on the
    record, although he comes first."""
    record = _s2_by_arxiv("2402.03300")
    assert record is not None
    assert [p.family for p in record.authors].count("Zhang") == 1
    # the list as the paper cites it (openreview 0FhrtdKLtD), cut with "and others"
    authors, truncated = split_authors(
        "Zhihong Shao and Peiyi Wang and Qihao Zhu and Runxin Xu and Junxiao Song and "
        "Xiao Bi and Haowei Zhang and Mingchuan Zhang and YK Li and Y Wu and others"
    )
    result = compare_authors(authors, truncated, record.authors)
    assert result is not None
    assert result.added == ("Bi, Xiao", "Zhang, Haowei")
    assert result.first_ok and not result.dropped


def test_a_group_run_into_the_first_name_of_the_record_keeps_the_first_author() -> None:
    """Semantic Scholar's real record of the Gemma 3 report (refchecker's recorded answer)
    has "Gemma Team Aishwarya Kamath" as one author; the paper cites "Gemma Team and
    Aishwarya Kamath and ... and others" (openreview 0FhrtdKLtD).  Its first named person
    is the record's first: no "author order differs"."""
    record = _s2_by_arxiv("2503.19786")
    assert record is not None and str(record.authors[0]) == "Gemma Team Aishwarya Kamath"
    cited = "{Gemma Team} and Aishwarya Kamath and Johan Ferret and Shreya Pathak and others"
    authors, truncated = split_authors(cited)
    result = compare_authors(authors, truncated, record.authors)
    assert result is not None and result.first_ok and result.agree, result
    entry = normalize_entry(
        make_entry(
            "gemma3",
            "article",
            {"title": "Gemma 3 Technical Report", "author": cited, "year": "2025"},
        )
    )
    issues, _ = field_issues(entry, compare(entry, record), anchored_by_id=False)
    assert Code.AUTHOR_SUBSTITUTED not in {i.code for i in issues}, issues
    # a named person in the group's place is still another first author
    swapped, truncated = split_authors(
        "{Gemma Team} and Johan Ferret and Aishwarya Kamath and others"
    )
    other = compare_authors(swapped, truncated, record.authors)
    assert other is not None and not other.first_ok


@pytest.mark.parametrize(
    ("year", "agreement"), [("2020", "equal"), ("2019", "equal"), ("2022", "different")]
)
def test_the_print_year_of_an_article_online_the_year_before_is_its_year(
    year: str, agreement: str
) -> None:
    """Thera-SAbDab (a real Crossref record): online 26 September 2019, in Nucleic Acids
    Research 48 (D1) of January 2020.  Citations give either year; neither is a difference,
    and no "fix" offers the other."""
    record = REC["10.1093/nar/gkz827"]
    assert record.year == 2019 and record.other_years == (2020,)
    entry = normalize_entry(
        make_entry(
            "k",
            "article",
            {
                "title": "Thera-SAbDab: the Therapeutic Structural Antibody Database",
                "author": "Raybould, Matthew I. J. and Marks, Claire and Lewis, Alan P. and "
                "Shi, Jiye and Bujotzek, Alexander and Taddese, Bruck and Deane, Charlotte M.",
                "journal": "Nucleic Acids Research",
                "volume": "48",
                "year": year,
            },
        )
    )
    cmp = compare(entry, record)
    assert cmp.year.value == agreement
    issues, fixes = field_issues(entry, cmp, anchored_by_id=True)
    assert ("year" in fixes) is (agreement != "equal")
    assert not [i for i in issues if i.code is Code.YEAR_MISMATCH and agreement == "equal"]


def _hora_entry(authors: str) -> NormalizedEntry:
    return normalize_entry(
        make_entry(
            "lieber1997",
            "article",
            {
                "title": "Growth hormone secretagogue increases muscle strength during "
                "remobilization after canine hindlimb immobilization",
                "author": authors,
                "journal": "Journal of Orthopaedic Research",
                "doi": "10.1002/jor.1100150407",
            },
        )
    )


_LIEBER_TEAM = [
    "Lieber, Richard L.",
    "Jacks, Thomas M.",
    "Mohler, Randall L.",
    "Schleim, Klaus",
    "Haven, Michelle",
    "Cuizon, Denise",
    "Gershuni, David H.",
    "Lopez, Michael A.",
    "HORA",
    "Nargund, Ravi",
    "Feeney, William",
    "Hickey, Gerard J.",
]


@pytest.mark.parametrize(
    "hora", ["Hora, Jr., Donald", "Hora, Donald", "Hora Jr., Donald", "Donald Hora"]
)
def test_a_generational_suffix_is_part_of_no_surname(hora: str) -> None:
    """Crossref's real record of this work lists ``{"family": "Hora", "suffix": "Jr."}``;
    display names (OpenAlex, Semantic Scholar, dblp, arXiv) write "Donald Hora Jr.".  The
    suffix was read as the surname (a false "author substituted" warning, and a correction
    naming "Jr., Donald Hora"); every way an entry writes the name now agrees with both."""
    message = recorded_json("crossref", "test-works__test_works_with_many_ids__01.json")
    crossref = work_from_csl(message["message"])
    assert crossref is not None and Person("Hora Jr.", "Donald") in crossref.authors
    shown = [
        person_from_name(" ".join(filter(None, [p.given, p.family]))) for p in crossref.authors
    ]
    display = replace(crossref, source="openalex", authors=tuple(p for p in shown if p))
    assert Person("Hora Jr.", "Donald") in display.authors
    entry = _hora_entry(" and ".join(_LIEBER_TEAM).replace("HORA", hora))
    for record in (crossref, display):
        issues, fixes = field_issues(entry, compare(entry, record), anchored_by_id=True)
        assert not issues and not fixes
    # an author dropped: the correction keeps the name as the entry writes it when that
    # names the suffix, else writes the suffix where BibTeX reads it
    dropped = _hora_entry(" and ".join(_LIEBER_TEAM[:-1]).replace("HORA", hora))
    issues, fixes = field_issues(dropped, compare(dropped, crossref), anchored_by_id=True)
    assert [i.code for i in issues] == [Code.AUTHOR_DROPPED]
    kept = hora if "Jr" in hora else "Hora, Jr., Donald"
    assert f" and {kept} and " in fixes["author"]


@pytest.mark.parametrize(
    ("name", "person"),
    [
        ("Guy L. Steele Jr.", Person("Steele Jr.", "Guy L.")),
        ("Martin Luther King, Jr.", Person("King Jr.", "Martin Luther")),
        ("Steele, Jr., Guy L.", Person("Steele Jr.", "Guy L.")),
        ("John Smith III", Person("Smith III", "John")),
        ("Ludwig van Beethoven", Person("van Beethoven", "Ludwig")),
        ("Li, Wei", Person("Li", "Wei")),
        ("Ivy Iv", Person("Iv", "Ivy")),  # a two-part name is never a suffix alone
    ],
)
def test_display_names_keep_a_suffix_with_the_surname(name: str, person: Person) -> None:
    assert person_from_name(name) == person


@pytest.mark.parametrize(
    ("doi", "written", "corrected"),
    [
        # the record gives initials only: the entry's full names stay, the missing author
        # comes as the record writes it
        (
            "10.1109/tassp.1978.1163055",
            "Sakoe, Hiroaki",
            "Sakoe, Hiroaki and Chiba, S.",
        ),
        # the entry's TeX stays as written; the record's new name is plain Unicode
        (
            "10.1371/journal.ppat.1008184",
            'Twittenhoff, Christian and M{\\"u}hlen, Sabrina and Dersch, Petra and '
            "Narberhaus, Franz",
            'Twittenhoff, Christian and Heroven, Ann Kathrin and M{\\"u}hlen, Sabrina and '
            "Dersch, Petra and Narberhaus, Franz",
        ),
        # a record's fuller given name replaces the entry's initial
        (
            "10.1371/journal.ppat.1008184",
            "Twittenhoff, C. and Heroven, A. K. and Dersch, P. and Narberhaus, F.",
            "Twittenhoff, Christian and Heroven, Ann Kathrin and Mühlen, Sabrina and "
            "Dersch, Petra and Narberhaus, Franz",
        ),
    ],
)
def test_an_author_correction_keeps_the_names_the_entry_writes_as_fully(
    doi: str, written: str, corrected: str
) -> None:
    """Correcting an author list to a real record's (an author dropped) used to rewrite
    every name as the record has it: "Sakoe, Hiroaki" became "Sakoe, H.", an entry's
    ``M{\\"u}hlen`` lost its TeX.  A name the entry gives with at least the record's given
    names stays as written."""
    record = REC[doi]
    entry = normalize_entry(
        make_entry("k", "article", {"title": record.title, "author": written, "doi": doi})
    )
    issues, fixes = field_issues(entry, compare(entry, record), anchored_by_id=True)
    assert Code.AUTHOR_DROPPED in {i.code for i in issues}
    assert fixes["author"] == corrected


def test_a_misspelled_surname_is_corrected_and_the_fuller_given_names_kept() -> None:
    """The correction of a surname one letter off took the record's initials with it
    ("Burkhardt, R." for the entry's "Burkhart, Robert"): the given names the entry writes
    more fully stay."""
    doi = "10.1016/0197-2456(80)90021-5"  # Burkhardt, R. and Kienle, G.
    record = REC[doi]
    entry = normalize_entry(
        make_entry(
            "k",
            "article",
            {"title": record.title, "author": "Burkhart, Robert and Kienle, Gerhard", "doi": doi},
        )
    )
    issues, fixes = field_issues(entry, compare(entry, record), anchored_by_id=True)
    assert Code.AUTHOR_MISSPELLED in {i.code for i in issues}
    assert fixes["author"] == "Burkhardt, Robert and Kienle, Gerhard"


def test_a_title_writing_names_in_typewriter_type_matches_its_record() -> None:
    """``\\texttt{RNeXML}`` decoded to nothing: the entry's correct title was a near miss
    of the real record's, and a correction rewrote it."""
    entry = normalize_entry(
        make_entry(
            "k",
            "article",
            {
                "title": r"\texttt{RNeXML}: A package for reading and writing richly annotated "
                r"phylogenetic, character, and trait data in \texttt{R}",
                "author": "Boettiger, Carl and Chamberlain, Scott and Vos, Rutger and Lapp, Hilmar",
                "journal": "Methods in Ecology and Evolution",
                "year": "2015",
                "volume": "7",
                "pages": "352--357",
                "doi": RNEXML.doi or "",
            },
        )
    )
    cmp = compare(entry, RNEXML)
    assert cmp.title.exact
    issues, fixes = field_issues(entry, cmp, anchored_by_id=True)
    assert (issues, fixes) == ([], {})


def test_a_pubmed_records_abbreviated_page_range_is_the_entrys_whole_one() -> None:
    """PubMed writes page ranges as MEDLINE does (a real efetch record: ``217-64``): read
    as written, every entry with full pages anchored to PubMed was "pages-mismatch", and
    the correction wrote ``217--64``."""
    from xml.etree import ElementTree

    from citewarden.verify.sources.pubmed import work_from_pubmed_article

    root = ElementTree.parse(DATA / "api" / "pubmed" / "efetch_11618220.xml").getroot()
    record = work_from_pubmed_article(root.find("PubmedArticle"))
    assert record is not None and record.pages == "217-264"  # StartPage-EndPage
    assert compare_pages("217-264", "217-64").agreement is Agreement.EQUAL
    wrong = compare_pages("217-265", "217-64")
    assert wrong.agreement is Agreement.DIFFERENT
    entry = normalize_entry(
        make_entry("k", "article", {"title": record.title, "pages": "217--265"})
    )
    issues, fixes = field_issues(entry, compare(entry, record), anchored_by_id=True)
    assert Code.PAGES_MISMATCH in {i.code for i in issues}
    assert fixes["pages"] == "217--264"


@pytest.mark.parametrize(
    ("entry_pages", "record_pages", "agreement"),
    [
        ("45-56", "45–56", Agreement.EQUAL),  # Semantic Scholar's en dash
        ("45-56", "45 — 56", Agreement.EQUAL),
        ("1099-1108", "1099-108", Agreement.EQUAL),
        ("352-357", "352-7", Agreement.EQUAL),
        ("352-358", "352-7", Agreement.DIFFERENT),
        ("e1004", "e1004", Agreement.EQUAL),
    ],
)
def test_a_records_page_range_is_read_with_any_dash_and_abbreviation(
    entry_pages: str, record_pages: str, agreement: Agreement
) -> None:
    assert compare_pages(entry_pages, record_pages).agreement is agreement


def test_names_in_another_script_than_the_records_are_not_compared() -> None:
    """A real Crossref record names its authors in Cyrillic; an entry citing it with their
    names romanised was a "chimeric entry" (a real title with other people's names)."""
    doi = "10.7868/s0040357115030100"
    record = REC[doi]
    assert record.authors[0].family == "Паршин"
    entry = normalize_entry(
        make_entry(
            "k",
            "article",
            {
                "title": record.title,
                "author": "Parshin, D. A. and Stel'makh, L. S. and Stolin, A. M.",
                "year": "2015",
                "volume": "49",
                "number": "3",
                "pages": "361--366",
                "doi": doi,
            },
        )
    )
    cmp = compare(entry, record)
    assert cmp.authors is None
    issues, fixes = field_issues(entry, cmp, anchored_by_id=True)
    assert not {i.code for i in issues} & {
        Code.CHIMERIC,
        Code.AUTHOR_SUBSTITUTED,
        Code.AUTHOR_ADDED,
        Code.AUTHOR_DROPPED,
    }
    assert "author" not in fixes
    # one side writing both scripts is compared as before
    both = split_authors("Parshin, D. A. and Стельмах, Л. С.")[0]
    assert compare_authors(both, False, record.authors) is not None


@pytest.mark.parametrize(
    "title",
    [
        "Reaching 90% accuracy with $k$-NN classifiers",
        "The $\\varepsilon$-net of R&D_2 for #1 ~ cases",
        "Costs $5 and $10 with $k$ means",
    ],
)
def test_a_record_title_with_math_is_text_outside_the_math(title: str) -> None:
    """A record's ``%`` beside ``$k$`` is a per cent sign, not a comment dropping the rest:
    the title ``--fix`` writes for it (``90\\%``) reads back as the same title."""
    from citewarden.verify.field_check import bibtex_ready
    from citewarden.verify.plain_text import latex_to_text

    record = WorkRecord(source="crossref", title=title)
    written = bibtex_ready({"title": title})["title"]
    cmp = compare_title(latex_to_text(written), record)
    assert cmp is not None and cmp.exact, written
    other = compare_title("Reaching 90", WorkRecord(source="crossref", title=title))
    assert other is not None and not other.exact
