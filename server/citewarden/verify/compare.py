"""Field-by-field comparison of a normalised entry with one work record (pure).

Every comparison returns a small value saying whether the fields agree and, when they do not,
how (authors added / dropped / substituted, a digit swap, a one-year preprint gap ...).
:mod:`citewarden.verify.verdict` turns these into statuses, issues and corrections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from rapidfuzz import fuzz

from citewarden.parsing.latex_encode import latex_text
from citewarden.verify.author_compare import AuthorComparison, compare_authors
from citewarden.verify.hyphens import splits_compound
from citewarden.verify.normalize import (
    NormalizedEntry,
    first_page,
    fold,
    latex_to_text,
    page_range,
    strip_markup,
)
from citewarden.verify.records import WorkRecord
from citewarden.verify.satellite_venues import satellite_cited_as_host
from citewarden.verify.venues import _venue_agrees, abbreviation_of, venue_agrees

#: Re-exported: venue names used to be compared here (callers clear ``_venue_agrees``).
__all__ = ["_venue_agrees", "abbreviation_of", "venue_agrees"]

#: Folded titles at least this similar identify the same work (a near-miss when not equal).
TITLE_NEAR = 0.85

# ----------------------------------------------------------------------------------------
# Titles
# ----------------------------------------------------------------------------------------


def _compact(text: str) -> str:
    return text.replace(" ", "")


_SUBTITLE_SEPS = (": ", " - ", " — ", " – ", "? ", ". ")
#: A note on the form of the publication after a title, not part of it: dblp's
#: "Query strategies for priced information (extended abstract)", "(short paper)".
_FORM_NOTE = re.compile(
    r"\s*[(\[](?:extended|short|full|preliminary|invited|brief)?\s*"
    r"(?:abstract|paper|version|talk|announcement)[)\]]\.?\s*$",
    re.IGNORECASE,
)


def _main_title(title: str) -> str | None:
    for sep in _SUBTITLE_SEPS:
        if sep in title:
            return title.split(sep, 1)[0] + (sep.strip() if sep == "? " else "")
    return None


@dataclass(frozen=True, slots=True)
class TitleComparison:
    score: float  # 0..1
    exact: bool  # equal after folding (case, accents, punctuation, spacing)

    @property
    def near(self) -> bool:
        return not self.exact and self.score >= TITLE_NEAR

    @property
    def same_work(self) -> bool:
        return self.exact or self.score >= TITLE_NEAR


def _record_text(text: str) -> str:
    """A record's title as text: tags removed, and TeX math decoded as the entry's is
    (arXiv and the indexes give titles such as ``$k$-means`` or ``$\\varepsilon$``).  The
    rest is text, not TeX: it is written as ``--fix`` writes it (:func:`latex_text`: ``%``
    as ``\\%``, not a comment dropping the rest) before it is decoded, so a corrected entry
    reads back as its record."""
    text = strip_markup(text)
    return latex_to_text(latex_text(text)) if "$" in text or "\\" in text else text


def compare_title(entry_title: str | None, record: WorkRecord) -> TitleComparison | None:
    """Compare titles on folded text.  The record's subtitle is joined to its title; a
    subtitle left out on one side is not a difference."""
    if not entry_title or not record.title:
        return None
    text = _record_text(record.title)
    title = _FORM_NOTE.sub("", text) or text
    full = [fold(title)]
    # other titles the record gives (translations, original-language titles)
    full += [fold(strip_markup(v)) for k, v in record.extra if k == "alt-title"]
    if record.subtitle:
        full.append(fold(f"{title}: {strip_markup(record.subtitle)}"))
    record_main = _main_title(title)
    mains = [fold(record_main)] if record_main and not record.subtitle else []
    if record.subtitle:
        mains.append(fold(title))
    # "LLaVA-Video: Video instruction tuning ..." cited without its short leading name
    if ": " in title and len(title.split(": ", 1)[0].split()) <= 3:
        mains.append(fold(title.split(": ", 1)[1]))
    entry_title = _FORM_NOTE.sub("", entry_title) or entry_title
    e_full = fold(entry_title)
    e_main_raw = _main_title(entry_title)
    e_main = fold(e_main_raw) if e_main_raw else None
    compact_full = {_compact(v) for v in full if v}
    exact = _compact(e_full) in compact_full or _compact(e_full) in {_compact(m) for m in mains}
    if not exact and e_main and not record_main and not record.subtitle:
        exact = _compact(e_main) in compact_full
    if exact and splits_compound(entry_title, title):
        return TitleComparison(fuzz.ratio(entry_title.lower(), title.lower()) / 100.0, False)
    if exact:
        return TitleComparison(1.0, True)
    score = max(fuzz.ratio(e_full, v) / 100.0 for v in full if v) if any(full) else 0.0
    return TitleComparison(score, False)


# ----------------------------------------------------------------------------------------
# Year, numbers
# ----------------------------------------------------------------------------------------


class Agreement(StrEnum):
    EQUAL = "equal"
    NEAR = "near"  # year off by one: tolerated, reported as a note
    DIFFERENT = "different"
    UNKNOWN = "unknown"  # one side missing


def compare_year(entry_year: int | None, record_year: int | None) -> Agreement:
    if entry_year is None or record_year is None:
        return Agreement.UNKNOWN
    if entry_year == record_year:
        return Agreement.EQUAL
    return Agreement.NEAR if abs(entry_year - record_year) == 1 else Agreement.DIFFERENT


def digit_swap(a: str, b: str) -> bool:
    """True when ``a`` and ``b`` differ by two transposed digits (``1234`` vs ``1243``) or
    are the same digits in another order."""
    a, b = a.strip(), b.strip()
    if a == b or len(a) != len(b) or not (re.search(r"\d", a) and re.search(r"\d", b)):
        return False
    diff = [i for i in range(len(a)) if a[i] != b[i]]
    if len(diff) == 2:
        i, j = diff
        return a[i] == b[j] and a[j] == b[i]
    return sorted(a) == sorted(b)


@dataclass(frozen=True, slots=True)
class ValueComparison:
    agreement: Agreement
    entry: str | None = None
    record: str | None = None
    swap: bool = False


def _norm_number(value: str) -> str:
    return re.sub(r"\s+", "", value).lower().lstrip("0") or "0"


def compare_value(entry_value: str | None, record_value: str | None) -> ValueComparison:
    """Volume / issue: exact after trimming spaces and leading zeros."""
    if not entry_value or not record_value:
        return ValueComparison(Agreement.UNKNOWN, entry_value, record_value)
    a, b = _norm_number(entry_value), _norm_number(record_value)
    if a == b:
        return ValueComparison(Agreement.EQUAL, entry_value, record_value)
    # "12-13" vs "12" (combined issues) is not a contradiction
    for x, y in ((a, b), (b, a)):
        parts = re.split(r"[-/–]", y)
        if re.fullmatch(r"\d+", x) and len(parts) == 2 and x in parts:
            return ValueComparison(Agreement.EQUAL, entry_value, record_value)
    if not (re.search(r"\d", a) and re.search(r"\d", b)):
        return ValueComparison(Agreement.UNKNOWN, entry_value, record_value)
    return ValueComparison(Agreement.DIFFERENT, entry_value, record_value, digit_swap(a, b))


def compare_pages(entry_pages: str | None, record_pages: str | None) -> ValueComparison:
    """Pages: the first page must agree; the last page too when both give one.  The
    record's range is read as :func:`page_range` reads it (any dash, a last page
    abbreviated)."""
    record_pages = page_range(record_pages)
    if not entry_pages or not record_pages:
        return ValueComparison(Agreement.UNKNOWN, entry_pages, record_pages)
    ea, ra = first_page(entry_pages) or "", first_page(record_pages) or ""
    strip = re.compile(r"^[a-z]+(?=\d)")
    if strip.sub("", ea) != strip.sub("", ra):
        if not (re.search(r"\d", ea) and re.search(r"\d", ra)):
            return ValueComparison(Agreement.UNKNOWN, entry_pages, record_pages)
        swap = digit_swap(entry_pages.replace("-", ""), record_pages.replace("-", "")) or (
            digit_swap(ea, ra)
        )
        return ValueComparison(Agreement.DIFFERENT, entry_pages, record_pages, swap)
    e_last = entry_pages.split("-")[1] if "-" in entry_pages else None
    r_last = record_pages.split("-")[1] if "-" in record_pages else None
    if e_last and r_last and e_last.strip().lower() != r_last.strip().lower():
        return ValueComparison(
            Agreement.DIFFERENT, entry_pages, record_pages, digit_swap(e_last, r_last)
        )
    return ValueComparison(Agreement.EQUAL, entry_pages, record_pages)


# ----------------------------------------------------------------------------------------
# Venues (names are compared in citewarden.verify.venues)
# ----------------------------------------------------------------------------------------

#: Sources whose venue comes from the publisher's own deposit; other sources infer or
#: abbreviate venues, so a difference there is not reported.
VENUE_AUTHORITIES = frozenset({"crossref", "doi", "datacite", "pubmed", "snapshot"})

#: Book series that Crossref gives as the container of conference papers and chapters.
SERIES_PREFIXES = (
    "lecture notes in",
    "springer series in",
    "communications in computer and information science",
    "advances in intelligent systems and computing",
    "smart innovation systems and technologies",
)


def compare_venue(
    entry_venue: str | None, entry_issn: Sequence[str], record: WorkRecord
) -> Agreement:
    record_issn = {i.replace("-", "").upper() for i in record.issn}
    if entry_issn and record_issn and set(entry_issn) & record_issn:
        return Agreement.EQUAL
    alternates = [v for k, v in record.extra if k == "alt-container-title"]
    names = [n for n in (record.venue, *record.venue_short, *alternates) if n]
    if not entry_venue or not names:
        return Agreement.UNKNOWN
    fe = fold(entry_venue)
    if fe in {"arxiv", "arxiv preprint", "corr", "preprint"} or fe.startswith("arxiv"):
        return Agreement.UNKNOWN
    if venue_agrees(entry_venue, names) and not satellite_cited_as_host(entry_venue, names):
        return Agreement.EQUAL
    publisher = fold(record.publisher or "")
    if publisher and (publisher == fe or publisher.startswith(fe + " ")):
        return Agreement.EQUAL  # the publisher given as the venue (books)
    if record.work_type in ("book-chapter", "book", "monograph", "edited-book") or any(
        fold(n).startswith(SERIES_PREFIXES) for n in names
    ):
        return Agreement.UNKNOWN  # a series name on the record says little about the venue
    return Agreement.DIFFERENT


# ----------------------------------------------------------------------------------------
# All fields
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comparison:
    """How one entry compares with one record, field by field."""

    record: WorkRecord
    title: TitleComparison | None
    authors: AuthorComparison | None
    year: Agreement
    venue: Agreement
    volume: ValueComparison
    issue: ValueComparison
    pages: ValueComparison
    doi_equal: bool | None = None
    #: The record the authors were compared with, when another source's list was fuller.
    author_record: WorkRecord | None = None
    #: The venue names compared as they are, before a non-publisher source or another
    #: version of the work makes a difference ``UNKNOWN`` (see :data:`venue`).
    venue_raw: Agreement = Agreement.UNKNOWN
    notes: tuple[str, ...] = field(default=())

    @property
    def title_ok(self) -> bool:
        return self.title is not None and self.title.same_work

    @property
    def authors_ok(self) -> bool:
        return self.authors is None or self.authors.agree

    @property
    def identifies(self) -> bool:
        """Title and authors both point at this record (title and authors agree)."""
        if self.title is None or not self.title.same_work:
            return False
        if self.authors is None:
            return self.title.exact
        return self.authors.agree

    @property
    def full_agreement(self) -> bool:
        """Exact title and agreeing authors: the search can stop here."""
        return self.identifies and self.title is not None and self.title.exact

    @property
    def score(self) -> float:
        """0..1 confidence that entry and record are the same work."""
        t = self.title.score if self.title else 0.5
        a = self.authors.overlap if self.authors else 0.5
        if self.authors is not None and not self.authors.first_ok:
            a *= 0.5
        y = {Agreement.EQUAL: 1.0, Agreement.NEAR: 0.8, Agreement.DIFFERENT: 0.3}.get(
            self.year, 0.6
        )
        return round(0.6 * t + 0.3 * a + 0.1 * y, 3)


PREPRINT_SERVERS = (
    "arxiv",
    "biorxiv",
    "medrxiv",
    "chemrxiv",
    "ssrn",
    "research square",
    "preprints",
    "essoar",
    "techrxiv",
    "psyarxiv",
    "osf preprints",
    "corr",
)


def is_preprint_record(record: WorkRecord) -> bool:
    """A preprint (arXiv, bioRxiv ... or Crossref ``posted-content``)."""
    if record.source == "arxiv" or record.work_type == "posted-content":
        return True
    venue = fold(record.venue or "")
    return any(venue.startswith(p) for p in PREPRINT_SERVERS)


def cites_preprint(entry: NormalizedEntry) -> bool:
    """Does the entry cite a preprint (``journal = {arXiv preprint ...}``, an @misc with an
    arXiv id ...)?"""
    venue = fold(entry.venue or "")
    if venue:
        return any(venue.startswith(p) for p in PREPRINT_SERVERS) or "preprint" in venue
    return entry.entry_type in ("misc", "unpublished", "online", "article") and bool(entry.arxiv_id)


#: Indexes that merge the versions of a work into one record dated by its first version
#: (a 2017 arXiv preprint published at ICLR 2019 is one 2017 record there).
FIRST_VERSION_DATED = frozenset({"openalex", "semanticscholar"})


#: IEEE's DOIs carry the year they were assigned, on early access for a journal article
#: (``10.1109/TPAMI.2019.2929257``: online in 2019, in an issue of 2021).
_IEEE_DOI = re.compile(r"^10\.1109/[a-z]+\.((?:19|20)\d\d)\.\d+$", re.IGNORECASE)


def online_year(record: WorkRecord) -> int | None:
    """The year the work was first out, when its DOI says it (IEEE)."""
    m = _IEEE_DOI.match(record.doi or "")
    return int(m.group(1)) if m else None


def _year_agreement(entry: NormalizedEntry, record: WorkRecord) -> Agreement:
    """The cited year against the record's, any year the record dates the work by (its
    print or its online publication) being the same."""
    if entry.year is not None and entry.year in record.other_years:
        return Agreement.EQUAL
    return compare_year(entry.year, record.year)


def _version_gap(entry: NormalizedEntry, record: WorkRecord, year: Agreement) -> Agreement:
    """A preprint and its published version are one work several years apart: when exactly
    one side is a preprint, a later year on the published side is a note, not an error; so
    is a later cited year than that of an index's record dated by the first version, and
    the year of an article's early access."""
    if year is not Agreement.DIFFERENT or entry.year is None or record.year is None:
        return year
    if entry.year == online_year(record):
        return Agreement.NEAR  # the early-access year, the record's is the issue's
    rec_pre, entry_pre = is_preprint_record(record), cites_preprint(entry)
    first_version = rec_pre or record.source in FIRST_VERSION_DATED
    if first_version and not entry_pre and 0 < entry.year - record.year <= 5:
        return Agreement.NEAR
    if entry_pre and not rec_pre and 0 < record.year - entry.year <= 5:
        return Agreement.NEAR
    return year


def compare(entry: NormalizedEntry, record: WorkRecord) -> Comparison:
    doi_equal = None
    if entry.doi and record.doi:
        doi_equal = entry.doi == record.doi.lower()
    venue = venue_raw = compare_venue(entry.venue, entry.issn, record)
    if venue is Agreement.DIFFERENT and is_preprint_record(record) != cites_preprint(entry):
        venue = Agreement.UNKNOWN  # the other version of the work
    if venue is Agreement.DIFFERENT and record.source not in VENUE_AUTHORITIES:
        venue = Agreement.UNKNOWN  # an inferred venue (OpenAlex, Semantic Scholar, dblp)
    return Comparison(
        record=record,
        title=compare_title(entry.title, record),
        authors=compare_authors(entry.authors, entry.truncated, record.authors),
        year=_version_gap(entry, record, _year_agreement(entry, record)),
        venue=venue,
        volume=compare_value(entry.volume, record.volume),
        issue=compare_value(entry.issue, record.issue),
        pages=compare_pages(entry.pages, record.pages),
        doi_equal=doi_equal,
        venue_raw=venue_raw,
    )
