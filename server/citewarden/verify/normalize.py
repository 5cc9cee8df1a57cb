"""Turn a bibliography entry into comparable values (pure; no I/O).

LaTeX is decoded lazily, one field value at a time, and the results are memoised.  Confusable
characters (Cyrillic or Greek letters that look Latin, mixed into Latin words) are detected on
the raw text before any folding could hide them.  Identifiers are cleaned and validated:
DOIs from URLs and prefixes, arXiv ids (new and old style) from several fields, ISBN-10/13
with checksums, PMIDs.

The pieces live beside this module: :mod:`~citewarden.verify.plain_text` (LaTeX and markup to
folded text), :mod:`~citewarden.verify.authors` (name lists) and
:mod:`~citewarden.verify.identifiers` (DOI, arXiv, ISBN, PMID); this module holds the
confusable characters, years and pages, and the normalised entry.
``fold``, ``strip_markup``, ``latex_to_text``, ``Author``, ``split_authors`` and
``surname_key`` are re-exported, for the modules that import them from here.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from citewarden.model import Entry, Field, Span
from citewarden.verify.authors import Author, split_authors
from citewarden.verify.authors import surname_key as surname_key
from citewarden.verify.identifiers import (
    ISBN_LIKE,
    arxiv_with_field,
    cited_arxiv_version,
    clean_doi,
    clean_isbn,
    clean_pmid,
    doi_address_tail,
)
from citewarden.verify.plain_text import field_text, latex_to_text
from citewarden.verify.plain_text import fold as fold
from citewarden.verify.plain_text import strip_markup as strip_markup

# ----------------------------------------------------------------------------------------
# Confusable characters
# ----------------------------------------------------------------------------------------

#: Cyrillic and Greek letters that render like Latin ones, with the Latin letter they mimic.
CONFUSABLE_TO_LATIN: dict[str, str] = dict(
    zip(
        "АВЕЅІЈКМНОРСТХУаеорсхуѕіјԁԛԝһӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧοϲϳ",
        "ABESIJKMHOPCTXYaeopcxysijdqwhlABEZHIKMNOPTYXocj",
        strict=True,
    )
)
CONFUSABLES: frozenset[str] = frozenset(CONFUSABLE_TO_LATIN)
_DELATIN = str.maketrans(CONFUSABLE_TO_LATIN)


def replace_confusables(value: str) -> str:
    """Replace look-alike Cyrillic/Greek letters by the Latin letters they imitate."""
    return value.translate(_DELATIN)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class AddressTail:
    """A DOI written as a doi.org address that ends in the address's own query or fragment
    (``https://doi.org/10.1038/nature14539?utm_source=x``)."""

    #: The field the DOI was read from (``doi`` or ``url``).
    field: str
    #: The DOI without the tail (``10.1038/nature14539``).
    doi: str
    #: The tail as written (``?utm_source=x``).
    tail: str


@dataclass(frozen=True, slots=True)
class Homoglyph:
    """A look-alike character found in a field value."""

    field: str
    char: str
    name: str  # Unicode character name, e.g. "CYRILLIC SMALL LETTER A"
    offset: int  # index in the raw field value
    word: str


def _script(ch: str) -> str:
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "OTHER"
    if name.startswith("LATIN"):
        return "LATIN"
    if name.startswith("CYRILLIC"):
        return "CYRILLIC"
    if name.startswith("GREEK"):
        return "GREEK"
    return "OTHER"


def scripts(text: str) -> frozenset[str]:
    """The writing systems of ``text``'s letters, named as Unicode names them (``LATIN``,
    ``CYRILLIC``, ``CJK``, ``HANGUL`` ...)."""
    if text.isascii():
        return _LATIN if any(ch.isalpha() for ch in text) else frozenset()
    found = set()
    for ch in text:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            found.add(name.split(" ", 1)[0] if name else "OTHER")
    return frozenset(found)


_LATIN = frozenset({"LATIN"})


def find_homoglyphs(field: str, raw: str) -> list[Homoglyph]:
    """Confusable Cyrillic/Greek letters inside Latin words, or standing alone in a Latin
    text (a Cyrillic 'а' as the English article).  Genuine Greek (``α``-synuclein) and
    wholly Cyrillic or Greek text are left alone."""
    found: list[Homoglyph] = []
    if raw.isascii() or CONFUSABLES.isdisjoint(raw):
        return found
    letters = [ch for ch in raw if ch.isalpha()]
    if not letters:
        return found
    latin_share = sum(1 for ch in letters if _script(ch) == "LATIN") / len(letters)
    for m in _WORD.finditer(raw):
        word = m.group()
        scripts = {_script(ch) for ch in word}
        suspicious = [i for i, ch in enumerate(word) if ch in CONFUSABLES]
        if not suspicious:
            continue
        mixed = "LATIN" in scripts
        lone = scripts <= {"CYRILLIC", "GREEK"} and latin_share >= 0.8 and len(word) <= 3
        if mixed or lone:
            for i in suspicious:
                ch = word[i]
                found.append(Homoglyph(field, ch, unicodedata.name(ch, "?"), m.start() + i, word))
    return found


# ----------------------------------------------------------------------------------------
# Numbers
# ----------------------------------------------------------------------------------------


def parse_year(value: str | None) -> int | None:
    """The year of a ``year`` or biblatex ``date`` value (``2020``, ``2020-05-01``, ``{2020}``)."""
    if not value:
        return None
    m = re.search(r"(?<!\d)(\d{4})(?!\d)", value)
    return int(m.group(1)) if m else None


def clean_pages(value: str | None) -> str | None:
    """``123--145`` / ``123–145`` / ``pp. 123-45`` -> ``123-145``; article numbers kept."""
    if not value:
        return None
    return page_range(latex_to_text(value))


def page_range(text: str | None) -> str | None:
    """A page range as plain text (an entry's decoded, or a record's) with one ``-``
    between its pages and an abbreviated last page written whole: ``217–64`` (MEDLINE's
    style, PubMed's records) -> ``217-264``."""
    if not text:
        return None
    text = re.sub(r"(?i)^pp?\.?\s*", "", text.strip())
    text = re.sub(r"\s*(?:-+|–|—|‐|‑)\s*", "-", text)
    parts = text.split("-")
    if len(parts) == 2 and all(p.isascii() and p.isdigit() for p in parts):
        first, last = parts
        if len(last) < len(first):
            expanded = first[: len(first) - len(last)] + last
            if expanded >= first:  # digit strings of one length: compared as numbers
                last = expanded
        return f"{first}-{last}"
    return text.strip() or None


def first_page(pages: str | None) -> str | None:
    if not pages:
        return None
    return pages.split("-")[0].strip().lower() or None


# ----------------------------------------------------------------------------------------
# Entry
# ----------------------------------------------------------------------------------------

VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series")
TEXT_FIELDS = ("title", "subtitle", "author", "editor", "journal", "journaltitle", "booktitle")


@dataclass(frozen=True, slots=True)
class InvalidIdentifier:
    field: str
    value: str
    reason: str


@dataclass(frozen=True, slots=True)
class NormalizedEntry:
    """What verification compares: decoded text, surname keys and clean identifiers."""

    key: str
    entry_type: str
    title: str | None
    authors: tuple[Author, ...]
    truncated: bool
    year: int | None
    venue: str | None
    venue_field: str | None
    volume: str | None
    issue: str | None
    pages: str | None
    doi: str | None
    arxiv_id: str | None
    isbn: str | None
    pmid: str | None
    issn: tuple[str, ...]
    url: str | None
    homoglyphs: tuple[Homoglyph, ...]
    invalid_ids: tuple[InvalidIdentifier, ...]
    #: The field the arXiv id was read from (eprint, doi, url, journal ...).
    arxiv_field: str | None = None
    #: The arXiv version the entry cites (``2106.01234v2`` -> 2), if it names one.
    arxiv_version: int | None = None
    #: ``magazine`` or ``newspaper`` for an article the entry places in one (biblatex's
    #: ``entrysubtype``, CSL's ``article-magazine`` / ``article-newspaper``): no journal.
    periodical: str | None = None
    #: The DOI read without the query or fragment its doi.org address ends in, for when
    #: the DOI as written (which keeps them) is not found.
    doi_tail: AddressTail | None = None

    @property
    def surnames(self) -> tuple[str, ...]:
        return tuple(a.family for a in self.authors)


def _clean_homoglyph_words(raw: str) -> str:
    """Replace confusables only inside the words where they were flagged."""
    flagged = {(h.offset) for h in find_homoglyphs("", raw)}
    return "".join(CONFUSABLE_TO_LATIN[ch] if i in flagged else ch for i, ch in enumerate(raw))


#: A complete HTML character reference (``&amp;``, ``&apos;``, ``&#39;``): bibliographies
#: exported from web pages carry them, and in BibTeX a bare ``&`` is no text of its own.
_HTML_REFERENCE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def html_references_to_text(value: str) -> str:
    """``Ch&apos;ng`` -> ``Ch'ng``; values without a complete reference are returned as is."""
    if "&" not in value or not _HTML_REFERENCE.search(value):
        return value
    return _HTML_REFERENCE.sub(lambda m: html.unescape(m.group(0)), value)


@lru_cache(maxsize=4096)
def normalize_entry(entry: Entry) -> NormalizedEntry:
    """Decode and clean the fields verification needs (only those).  Memoised per entry
    value, so re-verifying an unchanged entry does not decode it again."""
    homoglyphs: list[Homoglyph] = []
    for name in TEXT_FIELDS:
        raw = entry.get(name)
        if raw:
            homoglyphs += find_homoglyphs(name, raw)

    def clean(name: str) -> str | None:
        raw = entry.get(name)
        if raw is None or not raw.strip():
            return None
        if any(h.field == name for h in homoglyphs):
            raw = _clean_homoglyph_words(raw)
        return latex_to_text(html_references_to_text(raw))

    title = clean("title")
    subtitle = clean("subtitle")
    if title and subtitle:
        title = f"{title}: {subtitle}"

    author_raw = entry.get("author")
    if author_raw and any(h.field == "author" for h in homoglyphs):
        author_raw = _clean_homoglyph_words(author_raw)
    if author_raw:
        author_raw = html_references_to_text(author_raw)
    authors, truncated = split_authors(author_raw) if author_raw else ((), False)

    venue_field = next((n for n in VENUE_FIELDS if (entry.get(n) or "").strip()), None)
    venue = clean(venue_field) if venue_field else None

    invalid: list[InvalidIdentifier] = []
    doi_raw = entry.get("doi")
    doi = clean_doi(doi_raw)
    if doi_raw and doi_raw.strip() and doi is None:
        invalid.append(InvalidIdentifier("doi", doi_raw, "not a DOI (expected 10.NNNN/...)"))
    tail = doi_address_tail(doi_raw) if doi else None
    doi_tail = AddressTail("doi", *tail) if tail else None
    if doi is None:
        url = entry.get("url") or ""
        if re.search(r"doi\.org/10\.", url, re.IGNORECASE):
            doi = clean_doi(url)
            tail = doi_address_tail(url) if doi else None
            doi_tail = AddressTail("url", *tail) if tail else None

    isbn_raw = entry.get("isbn")
    isbn = None
    if isbn_raw and isbn_raw.strip():
        candidates = ISBN_LIKE.findall(isbn_raw)
        isbn = next((c for c in map(clean_isbn, candidates) if c), None)
        if isbn is None:
            reason = (
                "ISBN checksum does not add up" if candidates else "not an ISBN (10 or 13 digits)"
            )
            invalid.append(InvalidIdentifier("isbn", isbn_raw, reason))

    pmid_raw = entry.get("pmid")
    pmid = clean_pmid(pmid_raw)
    if pmid_raw and pmid_raw.strip() and pmid is None:
        invalid.append(InvalidIdentifier("pmid", pmid_raw, "not a PubMed id"))

    issn_raw = entry.get("issn") or ""
    issn = tuple(
        m.group(1) + m.group(2).upper() for m in _ISSN.finditer(issn_raw.replace("\u00a0", " "))
    )

    volume = field_text(entry, "volume")
    issue = field_text(entry, "number", "issue")
    arxiv_id, arxiv_field = arxiv_with_field(entry, doi)
    return NormalizedEntry(
        key=entry.key,
        entry_type=entry.entry_type.lower(),
        title=title,
        authors=authors,
        truncated=truncated,
        year=parse_year(entry.get("year") or entry.get("date")),
        venue=venue,
        venue_field=venue_field,
        volume=volume.strip() if volume else None,
        issue=issue.strip() if issue else None,
        pages=clean_pages(entry.get("pages")),
        doi=doi,
        arxiv_id=arxiv_id,
        arxiv_field=arxiv_field,
        arxiv_version=cited_arxiv_version(entry.get(arxiv_field or "") or "", arxiv_id),
        isbn=isbn,
        pmid=pmid,
        issn=issn,
        url=(entry.get("url") or "").strip() or None,
        homoglyphs=tuple(homoglyphs),
        invalid_ids=tuple(invalid),
        periodical=_periodical(entry),
        doi_tail=doi_tail,
    )


#: An ISSN as written: its halves joined by a hyphen, any dash (``0028‐0836``, ``0028–0836``),
#: a space or nothing, and no digit on either side (``1476-46871`` is no ISSN).
_ISSN = re.compile(r"(?<![\dXx])(\d{4})[-\u2010-\u2015 ]?(\d{3}[\dXx])(?![\dXx])")

#: CSL item types of articles in a periodical that is no journal.
_CSL_PERIODICALS = {"article-magazine": "magazine", "article-newspaper": "newspaper"}


def _periodical(entry: Entry) -> str | None:
    """``magazine`` or ``newspaper`` when the entry says its article appeared in one."""
    if entry.csl_type:
        return _CSL_PERIODICALS.get(entry.csl_type.lower())
    subtype = (field_text(entry, "entrysubtype") or "").strip().lower()
    return subtype if subtype in ("magazine", "newspaper") else None


def make_entry(
    key: str, entry_type: str, fields: dict[str, str], path: Path | None = None
) -> Entry:
    """Build an :class:`Entry` from plain field values (spans are synthetic but consistent),
    for callers that hold metadata rather than a parsed .bib file."""
    parts: list[Field] = []
    offset = len(entry_type) + len(key) + 3
    for name, value in fields.items():
        name_span = Span(offset, offset + len(name))
        value_start = name_span.end + 4
        parts.append(
            Field(name.lower(), value, name_span, Span(value_start, value_start + len(value)))
        )
        offset = value_start + len(value) + 3
    return Entry(
        key=key,
        entry_type=entry_type.lower(),
        path=path or Path("<memory>"),
        span=Span(0, offset + 1),
        key_span=Span(len(entry_type) + 2, len(entry_type) + 2 + len(key)),
        fields=tuple(parts),
    )
