"""Journal legitimacy (heuristic 10): is the venue an indexed journal? (pure)

Reads what the records of the matched work say about its venue: OpenAlex's source flags
(``is_in_doaj``, ``is_indexed_in_scopus``, ``is_core``, the host organisation) and the work's
``indexed_in`` list, PubMed's records (a PubMed record is itself evidence of PubMed
indexing; ``Status="MEDLINE"`` of MEDLINE), and the ISSNs the entry and the records give
(checked with their checksum); and the journal records that the journal look-up step
(:mod:`citewarden.verify.journals`) adds: OpenAlex's Source record and Crossref's journal
record by ISSN, with what they count (works, DOIs, the APC, since when), DOAJ's record (in
DOAJ since when) and the NLM Catalog's (currently indexed for MEDLINE or not), or their
answer that they hold no journal with the ISSN.  Each evidence line names who said it.

* ``venue-unindexed``: a journal that a source explicitly says is in none of DOAJ, PubMed
  and Scopus, corroborated by a second sign: it is not a core source (CWTS) or no publisher
  is known for it.  An absent flag is never read as a "no": a record without the Scopus flag
  cannot make a journal unindexed.
* ``venue-not-found``: a journal no record of the work names (no venue name, no ISSN), that
  a catalogue of journals (OpenAlex, Crossref) was asked for by its ISSN and answered it
  holds no such journal, with no look-up failing.  A journal nothing looked up (no valid
  ISSN, or no catalogue configured) is unknown, never "not found".

Conference proceedings, books, preprint servers and grey literature (theses, reports,
manuals, unpublished and miscellaneous works, magazine and newspaper articles) are not
journals and never get either.  Tier:
Elevated alone, High together with any other warning or error on the same entry.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence

from citewarden.model import Code, Issue, Severity, Status, Tier, VenueInfo, Verdict
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.records import WorkRecord
from citewarden.verify.sources.journals import is_journal_record
from citewarden.verify.venue_table import VenueKind
from citewarden.verify.venues import registry_kind

#: Indexes in the order reports list them.
INDEXES = ("doaj", "pubmed", "medline", "scopus", "core")
#: Index names as people write them.
INDEX_LABELS = {
    "doaj": "DOAJ",
    "pubmed": "PubMed",
    "medline": "MEDLINE",
    "scopus": "Scopus",
    "core": "the core sources of OpenAlex (CWTS)",
}
#: What a journal must be absent from, explicitly, to be unindexed.
REQUIRED_NO = frozenset({"doaj", "pubmed", "scopus"})

PROCEEDINGS_TYPES = frozenset({"inproceedings", "conference", "proceedings"})
BOOK_TYPES = frozenset({"book", "inbook", "incollection", "booklet", "mvbook", "collection"})
GREY_TYPES = frozenset(
    {
        "phdthesis",
        "mastersthesis",
        "thesis",
        "techreport",
        "report",
        "manual",
        "unpublished",
        "misc",
        "online",
        "www",
        "dataset",
        "software",
        "patent",
        "standard",
    }
)
PREPRINT_SERVERS = re.compile(
    r"\b(?:arxiv|corr|biorxiv|medrxiv|chemrxiv|techrxiv|psyarxiv|socarxiv|eartharxiv|ssrn|"
    r"research\s*square|preprints?(?:\.org)?|osf\s*preprints|zenodo|authorea|hal)\b",
    re.IGNORECASE,
)
RECORD_KINDS = {
    "proceedings-article": "proceedings",
    "conference-paper": "proceedings",
    "proceedings": "proceedings",
    "book": "book",
    "book-chapter": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "posted-content": "preprint",
    "preprint": "preprint",
    "dissertation": "grey",
    "report": "grey",
    "dataset": "grey",
}
VENUE_KINDS = {
    "conference": "proceedings",
    "repository": "preprint",
    "book series": "book",
    "ebook platform": "book",
}


def issn_ok(issn: str) -> bool:
    """True for an ISSN whose check digit is right (``0378-5955``, ``2434-561X``)."""
    digits = issn.replace("-", "").upper()
    if not re.fullmatch(r"\d{7}[\dX]", digits):
        return False
    total = sum(int(d) * w for d, w in zip(digits[:7], range(8, 1, -1), strict=True))
    check = (11 - total % 11) % 11
    return digits[7] == ("X" if check == 10 else str(check))


def _fmt_issn(issn: str) -> str:
    d = issn.replace("-", "").upper()
    return f"{d[:4]}-{d[4:]}" if len(d) == 8 else issn


def venue_kind(entry: NormalizedEntry, records: Sequence[WorkRecord]) -> str:
    """What the entry's venue is: journal, proceedings, book, preprint, grey or unknown."""
    t = entry.entry_type
    if t in PROCEEDINGS_TYPES:
        return "proceedings"
    if t in BOOK_TYPES:
        return "book"
    if t in GREY_TYPES or entry.periodical:  # a magazine's or a newspaper's article too
        return "grey"
    if entry.venue and PREPRINT_SERVERS.search(entry.venue):
        return "preprint"
    if entry.venue and registry_kind(entry.venue) == VenueKind.CONFERENCE:
        return "proceedings"  # NeurIPS cited as an @article's journal is still a conference
    for r in records:
        kind = RECORD_KINDS.get(r.work_type or "") or VENUE_KINDS.get(r.venue_kind or "")
        if kind:
            return kind
        if r.venue and PREPRINT_SERVERS.search(r.venue):
            return "preprint"
    return "journal" if t in ("article", "periodical") else "unknown"


#: Who a record speaks for, as reports name it.
SOURCE_LABELS = {
    "openalex": "OpenAlex",
    "crossref": "Crossref",
    "pubmed": "PubMed",
    "doaj": "DOAJ",
    "semanticscholar": "Semantic Scholar",
    "datacite": "DataCite",
    "dblp": "DBLP",
}
#: Sources whose answer "no journal with this ISSN" says the journal is unknown.
CATALOGUES = frozenset({"openalex", "crossref"})
#: The venue's evidence when no record names it and nothing looked it up.
NOT_LOOKED_UP = (
    "no record of the work names the journal and nothing looked it up by a valid ISSN: "
    "whether it exists is unknown"
)
#: Sources whose records say which indexes hold the venue.
INDEX_SOURCES = frozenset({"openalex", "doaj", "pubmed"})


def who(record: WorkRecord) -> str:
    """The name of the service a record speaks for (the NLM Catalog for PubMed's journal
    records)."""
    if record.source == "pubmed" and is_journal_record(record):
        return "NLM Catalog"
    return SOURCE_LABELS.get(record.source, record.source)


def _said(records: Sequence[WorkRecord]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(index -> who says the venue is in it, index -> who says it is not)."""
    yes: dict[str, list[str]] = {}
    no: dict[str, list[str]] = {}
    for r in records:
        # a PubMed record of the work is itself PubMed indexing
        work_in_pubmed = r.source == "pubmed" and not r.is_notice and not is_journal_record(r)
        for name in (*r.venue_indexes, *(("pubmed",) if work_in_pubmed else ())):
            yes.setdefault(name, [])
            if who(r) not in yes[name]:
                yes[name].append(who(r))
        for name in r.venue_not_in:
            no.setdefault(name, [])
            if who(r) not in no[name]:
                no[name].append(who(r))
    return yes, {n: w for n, w in no.items() if n not in yes}


def _ordered(names: Iterable[str]) -> tuple[str, ...]:
    found = set(names)
    return tuple(n for n in INDEXES if n in found) + tuple(sorted(found - set(INDEXES)))


def assess(
    entry: NormalizedEntry, records: Sequence[WorkRecord], *, faulted: bool = False
) -> tuple[VenueInfo, Issue | None]:
    """The venue's description and the legitimacy issue, if any (see the module doc).
    ``faulted``: a look-up for the entry failed, so a journal no record names, or a
    publisher, may be one the source that failed knows: no venue-not-found then, and no
    publisher missing is a sign of an unindexed journal."""
    kind = venue_kind(entry, records)
    named = next((r.venue for r in records if r.venue), None)
    issns = tuple(
        dict.fromkeys(_fmt_issn(i) for i in (*entry.issn, *(i for r in records for i in r.issn)))
    )
    publisher = next((r.publisher for r in records if r.source == "openalex" and r.publisher), None)
    publisher = publisher or next((r.publisher for r in records if r.publisher), None)
    said_yes, said_no = _said(records)
    yes, no = set(said_yes), set(said_no)
    evidence: list[str] = []
    for name in _ordered(yes):
        evidence.append(f"in {INDEX_LABELS.get(name, name)} ({', '.join(said_yes[name])})")
    for name in _ordered(no):
        evidence.append(f"not in {INDEX_LABELS.get(name, name)} ({', '.join(said_no[name])})")
    unknown = [INDEX_LABELS[n] for n in ("doaj", "pubmed", "scopus") if n not in yes | no]
    if unknown and any(r.source in INDEX_SOURCES for r in records):
        evidence.append("no source said whether it is in " + ", ".join(unknown))
    if publisher:
        evidence.append(f"publisher: {publisher}")
    evidence += [journal_line(r) for r in records if is_journal_record(r)]
    for bad in (i for i in entry.issn if not issn_ok(i)):
        evidence.append(f"the entry's ISSN {_fmt_issn(bad)} fails its checksum")
    info = VenueInfo(
        name=named or entry.venue,
        issn=issns,
        kind=kind,
        indexed_in=_ordered(yes),
        evidence=tuple(evidence),
        publisher=publisher,
    )
    if kind != "journal":
        return info, None
    field = entry.venue_field or "journal"
    title = named or entry.venue or "the journal"
    if not yes and no >= REQUIRED_NO:
        signs = []
        if "core" in no:
            signs.append("it is not a core source")
        # a source that failed may know the publisher
        if publisher is None and not faulted and any(r.source == "openalex" for r in records):
            signs.append("no publisher is known for it")
        if signs:
            whose = dict.fromkeys(
                w for n in (*sorted(REQUIRED_NO), "core") for w in said_no.get(n, [])
            )
            message = (
                f"'{title}' is not indexed in DOAJ, PubMed or Scopus, and "
                + " and ".join(signs)
                + f" ({', '.join(whose)}): check that it is a peer-reviewed journal"
            )
            return info, Issue(Code.VENUE_UNINDEXED, message, field)
    if any(r.venue or r.issn for r in records):
        return info, None
    looked = [r for r in records if is_journal_record(r)]
    failed = faulted or any("failed" in dict(r.extra) for r in looked)
    # only a catalogue of journals that was asked for this one and answered "no such
    # journal" knows nothing of it; DOAJ's or the NLM Catalog's "no" only rules an index out
    absent = [r for r in looked if r.source in CATALOGUES and "absent" in dict(r.extra)]
    if not looked and (entry.venue or entry.issn):
        unasked = dataclasses.replace(info, evidence=(*info.evidence, NOT_LOOKED_UP))
        return unasked, None
    if absent and not failed:
        issn = dict(absent[0].extra)["absent"]
        names = list(dict.fromkeys(who(r) for r in absent))
        said = f"'{entry.venue}' (ISSN {issn})" if entry.venue else f"ISSN {issn}"
        knows = "knows" if len(names) == 1 else "know"
        message = (
            f"{' and '.join(names)} {knows} no journal {said}, and no record of the work names one"
        )
        return info, Issue(Code.VENUE_NOT_FOUND, message, field)
    return info, None


def journal_line(record: WorkRecord) -> str:
    """One evidence line for a journal record: what its source counts, and since when."""
    extra = dict(record.extra)
    parts: list[str] = []
    if "absent" in extra:
        return f"{who(record)}: no journal with ISSN {extra['absent']}"
    if "failed" in extra:
        return f"{who(record)}: the look-up of ISSN {record.title} failed ({extra['failed']})"
    if record.source == "doaj":
        parts.append(
            f"in DOAJ since {extra['in_doaj_since']}" if "in_doaj_since" in extra else "in DOAJ"
        )
        if "oa_start" in extra:
            parts.append(f"open access since {extra['oa_start']}")
        if record.publisher:
            parts.append(f"publisher {record.publisher}")
        label = "DOAJ journal record"
    elif record.source == "pubmed":
        status = extra.get("medline")
        if status == "current":
            parts.append("currently indexed for MEDLINE")
        elif status == "not current":
            parts.append("not currently indexed for MEDLINE")
        if record.venue_short:
            parts.append(f"MEDLINE abbreviation {record.venue_short[0]}")
        label = (
            f"NLM Catalog record {extra['nlm_id']}" if "nlm_id" in extra else "NLM Catalog record"
        )
    elif record.source == "openalex":
        if "works_count" in extra:
            parts.append(f"{int(extra['works_count']):,} works")
        if "first_publication_year" in extra:
            parts.append(f"published since {extra['first_publication_year']}")
        if "apc_usd" in extra:
            parts.append(f"APC US${int(extra['apc_usd']):,}")
        if record.publisher:
            parts.append(f"host organisation {record.publisher}")
        label = "OpenAlex source record"
    else:
        if "total-dois" in extra:
            parts.append(f"{int(extra['total-dois']):,} DOIs registered")
        if "first-year" in extra:
            parts.append(f"since {extra['first-year']}")
        if record.publisher:
            parts.append(f"publisher {record.publisher}")
        label = f"{record.source.capitalize()} journal record"
    issns = ", ".join(record.issn)
    head = f"{label} for {issns}" if issns else label
    return f"{head}: " + ", ".join(parts) if parts else f"{head}: the journal is known"


def _from(records: Sequence[WorkRecord], source: str) -> bool:
    return any(r.source == source for r in records)


_RANK = {Tier.D: 0, Tier.M: 1, Tier.E: 2, Tier.H: 3}
_QUIET = (Severity.HINT, Severity.INFORMATION)


def with_venue(
    verdict: Verdict,
    entry: NormalizedEntry,
    records: Sequence[WorkRecord],
    *,
    faulted: bool = False,
) -> Verdict:
    """``verdict`` with its venue described and, for a journal failing heuristic 10, the
    issue added: Elevated alone, High with any other warning or error on the entry.  Only a
    work that was found (verified, mismatch, retracted) has a venue to judge; ``faulted``:
    see :func:`assess`."""
    if verdict.status not in (Status.VERIFIED, Status.MISMATCH, Status.RETRACTED):
        return verdict
    info, issue = assess(entry, records, faulted=faulted)
    if issue is None:
        return dataclasses.replace(verdict, venue=info)
    others = [i for i in verdict.issues if i.effective_severity not in _QUIET]
    tier = Tier.H if others else Tier.E
    if _RANK[verdict.tier] > _RANK[tier]:
        tier = verdict.tier
    return dataclasses.replace(verdict, venue=info, issues=(*verdict.issues, issue), tier=tier)
