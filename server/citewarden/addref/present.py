"""Is a work already in the bibliography?  Its identifiers compared with the entries'.

A DOI is compared case-insensitively and in any form (``doi:``, a resolver URL, a DOI in the
entry's ``url``), an arXiv id without its version (an arXiv DOI counts as its id), a PubMed id
without leading zeros, and an ISBN in its ISBN-13 form, the last only between books (a
chapter's entry carries its book's ISBN).
"""

from __future__ import annotations

from collections.abc import Iterable

from citewarden.model import Entry
from citewarden.verify.identifiers import clean_doi, clean_isbn, clean_pmid, strip_arxiv_version
from citewarden.verify.normalize import normalize_entry
from citewarden.verify.records import WorkRecord

ARXIV_DOI = "10.48550/arxiv."
#: Record types (Crossref's, CSL's, Open Library's) and entry types of a whole book.
BOOK_WORKS = frozenset({"book", "monograph", "edited-book", "reference-book"})
BOOK_ENTRIES = frozenset(
    {"book", "mvbook", "collection", "mvcollection", "reference", "mvreference", "proceedings"}
)


def _arxiv(ident: str | None) -> str | None:
    if not ident:
        return None
    return strip_arxiv_version(ident.strip().casefold()) or None


def record_ids(record: WorkRecord) -> frozenset[str]:
    """The identifiers of a found work, as ``doi:…``, ``arxiv:…``, ``pmid:…``, ``isbn:…``."""
    out: set[str] = set()
    doi = clean_doi(record.doi)
    if doi:
        out.add(f"doi:{doi}")
        if doi.startswith(ARXIV_DOI):
            out.add(f"arxiv:{_arxiv(doi[len(ARXIV_DOI) :])}")
    if arxiv := _arxiv(record.arxiv_id):
        out.add(f"arxiv:{arxiv}")
    if pmid := clean_pmid(record.pmid):
        out.add(f"pmid:{pmid}")
    if (record.work_type or "book") in BOOK_WORKS:
        out |= {f"isbn:{i}" for i in map(clean_isbn, record.isbn) if i}
    return frozenset(out)


def entry_ids(entry: Entry) -> frozenset[str]:
    """The identifiers of a bibliography entry, in the forms of :func:`record_ids`."""
    norm = normalize_entry(entry)
    out: set[str] = set()
    if norm.doi:
        out.add(f"doi:{norm.doi}")
    if arxiv := _arxiv(norm.arxiv_id):
        out.add(f"arxiv:{arxiv}")
    if norm.pmid:
        out.add(f"pmid:{norm.pmid}")
    if norm.isbn and entry.entry_type.lower() in BOOK_ENTRIES:
        out.add(f"isbn:{norm.isbn}")
    return frozenset(out)


class Present:
    """The identifiers of a bibliography's entries by key, with works added since."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self._ids: dict[str, str] = {}
        for entry in entries:
            self.add(entry.key, entry_ids(entry))

    def add(self, key: str, ids: Iterable[str]) -> None:
        """Remember ``key`` as holding ``ids`` (the first key of an identifier stays)."""
        for ident in ids:
            self._ids.setdefault(ident, key)

    def key_of(self, record: WorkRecord) -> str | None:
        """The key of an entry sharing an identifier with ``record``, or None."""
        return next((self._ids[i] for i in sorted(record_ids(record)) if i in self._ids), None)
