"""The journal look-up step of verification (heuristic 10's dedicated evidence).

For a journal article whose work was found, the journal itself is looked up by ISSN at each
source that has a journal endpoint, all at once: OpenAlex ``/sources/issn:{issn}`` and
Crossref ``/journals/{issn}`` (when OpenAlex is among the sources: only its Source record
carries the Scopus flag, and Crossref's counts alone decide nothing), and DOAJ and the NLM
Catalog (through the PubMed source) when the work's records do not already place the
journal in DOAJ, PubMed or Scopus, the cases where indexing is in question.  All are cached
like works (see :mod:`citewarden.verify.sources.cached`).  The records they give describe
the venue only and are added to the work's records for
:func:`citewarden.verify.legitimacy.with_venue`; a source's answer "no such journal" becomes
an absence record (:func:`~citewarden.verify.sources.journals.journal_absent`): DOAJ's or the
catalog's rules an index out, OpenAlex's or Crossref's is the only ground for
``venue-not-found``.
A failed look-up says nothing of the journal: it becomes a failure record
(:func:`~citewarden.verify.sources.journals.journal_failed`), which only keeps the venue
from being called unknown.  The look-ups go through the verifier's ``ask`` (its slots,
cache and cancellation).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from citewarden.verify.legitimacy import issn_ok, venue_kind
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.records import Outcome, WorkRecord
from citewarden.verify.sources.journals import journal_absent, journal_failed
from citewarden.verify.venue_lookup import Ask

#: Sources asked for the journal when OpenAlex is configured (those with the endpoint).
JOURNAL_SOURCES = ("openalex", "crossref")
#: Index registries asked while the journal's indexing is in question.
REGISTRIES = ("doaj", "pubmed")
#: A record placing the journal in one of these settles the question.
SETTLING = frozenset({"doaj", "pubmed", "medline", "scopus"})


def journal_issn(entry: NormalizedEntry, records: Sequence[WorkRecord]) -> str | None:
    """The ISSN to look the journal up by: the first valid one of the work's records, which
    name the journal the work appeared in, else of the entry (an ISSN that passes its
    checksum may still be a slip or another journal's); formatted ``1234-567X``."""
    for issn in (*(i for r in records for i in r.issn), *entry.issn):
        digits = issn.replace("-", "").upper()
        if issn_ok(digits):
            return f"{digits[:4]}-{digits[4:]}"
    return None


def in_question(records: Sequence[WorkRecord]) -> bool:
    """True unless a record of the work already places its journal in DOAJ, PubMed or
    Scopus (a PubMed record of the work is PubMed indexing)."""
    for r in records:
        if SETTLING & set(r.venue_indexes) or (r.source == "pubmed" and not r.is_notice):
            return False
    return True


async def journal_records(
    sources: Mapping[str, Any], entry: NormalizedEntry, records: Sequence[WorkRecord], ask: Ask
) -> list[WorkRecord]:
    """The journal records of the found work's journal, with absence and failure records
    (empty unless it is a journal with a valid ISSN; see the module doc)."""
    if not records or venue_kind(entry, records) != "journal":
        return []
    issn = journal_issn(entry, records)
    if issn is None:
        return []
    names = list(JOURNAL_SOURCES) if "openalex" in sources else []
    names += list(REGISTRIES) if in_question(records) else []
    asked = [(n, s) for n in names if hasattr(s := sources.get(n), "journal")]
    lookups = await asyncio.gather(*(ask(s, n, "journal", issn) for n, s in asked))
    out: list[WorkRecord] = []
    for (name, _), lookup in zip(asked, lookups, strict=True):
        if lookup.outcome is Outcome.FOUND:
            out += lookup.records[:1]
        elif lookup.outcome is Outcome.NOT_FOUND:
            out.append(journal_absent(name, issn))
        elif lookup.outcome is Outcome.FAILED:
            out.append(journal_failed(name, issn, lookup.reason or "no answer"))
    return out
