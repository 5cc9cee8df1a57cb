"""Normalisation: LaTeX decoding, authors, identifiers, confusables."""

from __future__ import annotations

import pytest

from citewarden.addref.present import record_ids
from citewarden.verify.authors import is_placeholder, parse_author, split_authors
from citewarden.verify.identifiers import clean_doi, clean_isbn, clean_pmid, strip_arxiv_version
from citewarden.verify.normalize import (
    clean_pages,
    find_homoglyphs,
    html_references_to_text,
    make_entry,
    normalize_entry,
    parse_year,
)
from citewarden.verify.plain_text import fold, latex_to_text
from citewarden.verify.records import WorkRecord


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (r"Schr{\"o}dinger", "Schrödinger"),
        (r"{\'E}cole {\aa}ngstr{\o}m", "École ångstrøm"),
        (r"{B}ayesian {\emph{Deep}} Learning", "Bayesian Deep Learning"),
        (r"The {$\alpha$}-synuclein \& friends", "The α-synuclein & friends"),
        (r"Na\"{\i}ve~Bayes", "Naïve Bayes"),
        ("plain {Title} here", "plain Title here"),
        (r"unbalanced {brace", "unbalanced brace"),
        (r"escaped \{ brace", "escaped brace"),
        ("escaped \\{\\", "escaped"),  # the decoder's path: no brace left either
    ],
)
def test_latex_to_text(raw: str, text: str) -> None:
    assert latex_to_text(raw) == text


def test_fold_ignores_case_accents_punctuation_and_greek_spelling() -> None:
    assert fold("Schrödinger’s Cat: α-Helix & Co.") == fold("schrodinger's cat alpha helix and co")
    assert fold("Ørsted") == "orsted"


@pytest.mark.parametrize(
    ("raw", "family", "given", "von"),
    [
        ("Knuth, Donald E.", "Knuth", "Donald E.", ""),
        ("Donald E. Knuth", "Knuth", "Donald E.", ""),
        ("van der Waals, Johannes Diderik", "Waals", "Johannes Diderik", "van der"),
        ("Ludwig van Beethoven", "Beethoven", "Ludwig", "van"),
        ("King, Jr, Martin Luther", "King", "Martin Luther", ""),
        (r"G{\"o}del, Kurt", "Gödel", "Kurt", ""),
        ("{World Health Organization}", "World Health Organization", "", ""),
        ("Cybenko, G.", "Cybenko", "G.", ""),
    ],
)
def test_parse_author_forms(raw: str, family: str, given: str, von: str) -> None:
    a = parse_author(raw)
    assert (a.family, a.given, a.von) == (family, given, von)


def test_split_authors_on_top_level_and_with_explicit_truncation() -> None:
    authors, truncated = split_authors("Smith, John and {Barnes and Noble} and Jane Doe and others")
    assert [a.family for a in authors] == ["Smith", "Barnes and Noble", "Doe"]
    assert truncated
    authors, truncated = split_authors("A. Smith et al.")
    assert [a.family for a in authors] == ["Smith"] and truncated
    authors, truncated = split_authors("Alice Anderson and Bob Brown")
    assert len(authors) == 2 and not truncated


@pytest.mark.parametrize(
    ("raw", "placeholder"),
    [
        ("Doe, John", True),
        ("Author, A.", True),
        ("Lastname, Firstname", True),
        ("Author1", True),
        ("Doe, Mary Ann", False),
        ("Smith, John", False),
    ],
)
def test_placeholder_names(raw: str, placeholder: bool) -> None:
    assert is_placeholder(parse_author(raw)) is placeholder


@pytest.mark.parametrize(
    ("raw", "doi"),
    [
        ("10.1103/PhysRevLett.116.061102", "10.1103/physrevlett.116.061102"),
        ("https://doi.org/10.1038/nature14539", "10.1038/nature14539"),
        ("http://dx.doi.org/10.1038%2Fnature14539", "10.1038/nature14539"),
        ("doi:10.1000/x\\_y.", "10.1000/x_y"),
        ("DOI: 10.1371/journal.pone.0033693", "10.1371/journal.pone.0033693"),
        ("not a doi", None),
        ("", None),
    ],
)
def test_clean_doi(raw: str, doi: str | None) -> None:
    assert clean_doi(raw) == doi


@pytest.mark.parametrize(
    ("fields", "arxiv"),
    [
        ({"eprint": "1706.03762v5", "archiveprefix": "arXiv"}, "1706.03762"),
        ({"doi": "10.48550/arXiv.2106.09685"}, "2106.09685"),
        ({"url": "https://arxiv.org/abs/hep-th/9711200v3"}, "hep-th/9711200"),
        # the subject class listings wrote after the archive is no part of the id
        ({"eprint": "math.DG/0211159", "archiveprefix": "arXiv"}, "math/0211159"),
        ({"journal": "arXiv preprint arXiv:math.GT/0309136"}, "math/0309136"),
        ({"journal": "arXiv preprint arXiv:1810.04805"}, "1810.04805"),
        ({"url": "https://arxiv.org/abs/9999.99999"}, None),  # month 99 does not exist
        ({"eprint": "1234.5678", "archiveprefix": "HAL"}, None),
    ],
)
def test_arxiv_ids(fields: dict[str, str], arxiv: str | None) -> None:
    entry = make_entry("k", "misc", {"title": "T", **fields})
    assert normalize_entry(entry).arxiv_id == arxiv


def test_the_version_of_an_old_id_written_with_its_subject_class_is_read() -> None:
    entry = make_entry("k", "misc", {"title": "T", "eprint": "math.GT/0309136v2"})
    normalized = normalize_entry(entry)
    assert (normalized.arxiv_id, normalized.arxiv_version) == ("math/0309136", 2)


@pytest.mark.parametrize(
    ("raw", "stripped"),
    [
        ("2101.00001v3", "2101.00001"),
        ("2101.00001", "2101.00001"),
        ("math/0102001v2", "math/0102001"),
        ("hep-th/9711200v12", "hep-th/9711200"),
        ("math.DG/0211159v2", "math.DG/0211159"),
        # taken as written: a capital V, an arXiv: prefix and white space stay
        ("2101.00001V3", "2101.00001V3"),
        ("arXiv:2101.00001v3", "arXiv:2101.00001"),
        (" 2101.00001v3 ", " 2101.00001v3 "),
        ("", ""),
    ],
)
def test_strip_arxiv_version(raw: str, stripped: str) -> None:
    assert strip_arxiv_version(raw) == stripped


@pytest.mark.parametrize(
    ("raw", "ident"),
    [
        ("2101.00001v3", "arxiv:2101.00001"),
        ("math/0102001v2", "arxiv:math/0102001"),
        # add compares ids folded and trimmed, so a capital V is a version too
        ("2101.00001V3", "arxiv:2101.00001"),
        (" math.DG/0211159V2 ", "arxiv:math.dg/0211159"),
        ("arXiv:2101.00001v3", "arxiv:arxiv:2101.00001"),
        (None, None),
        ("", None),
        ("v3", None),
    ],
)
def test_add_compares_arxiv_ids_without_their_version(raw: str | None, ident: str | None) -> None:
    ids = record_ids(WorkRecord(source="arxiv", title="T", arxiv_id=raw, work_type="article"))
    assert ids == (frozenset({ident}) if ident else frozenset())


def test_isbn_checksums_and_pmid() -> None:
    assert clean_isbn("0-306-40615-2") == "9780306406157"
    assert clean_isbn("978-0-306-40615-7") == "9780306406157"
    assert clean_isbn("978-0-306-40615-6") is None
    assert clean_isbn("0-306-40615-3") is None
    assert clean_pmid("PMID: 22496756") == "22496756"
    assert clean_pmid("abc") is None


def test_years_and_pages() -> None:
    assert parse_year("{2020}") == 2020
    assert parse_year("2019-05-01") == 2019
    assert parse_year("in press") is None
    assert clean_pages("123--45") == "123-145"
    assert clean_pages("pp. 1234–1240") == "1234-1240"
    assert clean_pages("e0033693") == "e0033693"
    assert clean_pages("100--9") == "100-109" and clean_pages("1234--40") == "1234-1240"
    # digits of other scripts and superscripts are no page numbers; any length is read
    assert clean_pages("12--\u00b2") == "12-\u00b2"
    assert clean_pages("\u0661\u0662--\u0665") == "\u0661\u0662-\u0665"
    long = "1" * 5000
    assert clean_pages(long + "--2") == f"{long}-{long[:-1]}2"


def test_homoglyphs_are_found_before_folding_and_named() -> None:
    found = find_homoglyphs("title", "Deep lеarning for а test of α-synuclein")
    assert [(h.word, h.name) for h in found] == [
        ("lеarning", "CYRILLIC SMALL LETTER IE"),
        ("а", "CYRILLIC SMALL LETTER A"),
    ]
    assert find_homoglyphs("title", "Теория вероятностей") == []  # genuine Russian
    assert find_homoglyphs("title", "β-decay of α particles") == []


def test_normalize_entry_reports_homoglyphs_and_cleans_them_away() -> None:
    entry = make_entry(
        "k",
        "article",
        {
            "title": "Deep lеarning",
            "author": "Smith, John and others",
            "doi": "junk",
            "isbn": "978-0-306-40615-6",
            "journal": "Phys. Rev. Lett.",
            "year": "2016",
        },
    )
    n = normalize_entry(entry)
    assert n.title == "Deep learning"
    assert [h.field for h in n.homoglyphs] == ["title"]
    assert n.truncated and n.venue == "Phys. Rev. Lett." and n.venue_field == "journal"
    assert {bad.field for bad in n.invalid_ids} == {"doi", "isbn"}
    assert n.doi is None and n.year == 2016


def test_isbn_field_with_several_isbns_and_notes() -> None:
    def isbn_of(value: str) -> tuple[str | None, list[str]]:
        n = normalize_entry(make_entry("k", "book", {"title": "T", "isbn": value}))
        return n.isbn, [bad.reason for bad in n.invalid_ids]

    assert isbn_of("0-387-96957-8 (New York) 3-540-96957-8 (Berlin)") == ("9780387969572", [])
    assert isbn_of("0-89871-447-8 (paperback)") == ("9780898714470", [])
    assert isbn_of("978-1-60558-012-X") == (None, ["ISBN checksum does not add up"])
    assert isbn_of("0094-8276") == (None, ["not an ISBN (10 or 13 digits)"])


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BIB_TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ {}\\\"'`^~$&%_-,.: and0123456789аеоαβ")), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(title=_BIB_TEXT, author=_BIB_TEXT, doi=_BIB_TEXT, pages=_BIB_TEXT, year=_BIB_TEXT)
def test_normalising_arbitrary_field_values_never_raises(
    title: str, author: str, doi: str, pages: str, year: str
) -> None:
    entry = make_entry(
        "k", "article", {"title": title, "author": author, "doi": doi, "pages": pages, "year": year}
    )
    n = normalize_entry(entry)
    assert n.title is None or "{" not in n.title
    assert n.doi is None or n.doi.startswith("10.")
    assert all(h.char in title + author for h in n.homoglyphs)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        (r"The {\TeX}book", "The TeXbook"),
        (r"{\LaTeX}: A Document Preparation System", "LaTeX: A Document Preparation System"),
        (r"\LaTeXe{} for authors", "LaTeX2e for authors"),
        (r"Designing {\BibTeX} Styles", "Designing BibTeX Styles"),
        (r"Typesetting with \XeTeX\ and {\"o}", "Typesetting with XeTeX and ö"),
    ],
)
def test_latex_to_text_spells_out_tex_logos(raw: str, text: str) -> None:
    assert latex_to_text(raw) == text


def test_html_character_references_in_fields_are_read_as_characters() -> None:
    # as dblp's export and web pages write them (a bare & is not BibTeX text)
    e = normalize_entry(
        make_entry(
            "k",
            "inproceedings",
            {
                "title": "Task Difficulty Aware Parameter Allocation &amp; Regularization",
                "author": "Parra, {\\'A}lvaro and Ch&apos;ng, Shin-Fang",
                "booktitle": "Neural Networks&#39; Priors",
            },
        )
    )
    assert e.title == "Task Difficulty Aware Parameter Allocation & Regularization"
    assert e.authors[1].family == "Ch'ng"
    assert e.venue == "Neural Networks' Priors"
    # an ampersand that starts no complete reference is left alone
    assert html_references_to_text("R&D &amp") == "R&D &amp"
