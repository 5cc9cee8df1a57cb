"""The journal look-up step of verification (heuristic 10's dedicated evidence).

For a journal article whose work was found, the journal itself is looked up by ISSN at each
source that has a journal endpoint (OpenAlex ``/sources/issn:{issn}``, Crossref
``/journals/{issn}``; cached like works, see :mod:`citewarden.verify.sources.cached`).  The
records they give describe the venue only and are added to the work's records for
:func:`citewarden.verify.legitimacy.with_venue`.  A failed or empty look-up adds nothing.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from citewarden.verify.legitimacy import issn_ok, venue_kind
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.records import Lookup, Outcome, WorkRecord

log = logging.getLogger(__name__)

#: Sources asked for the journal, in this order (those configured and with the endpoint).
JOURNAL_SOURCES = ("openalex", "crossref")


def journal_issn(entry: NormalizedEntry, records: Sequence[WorkRecord]) -> str | None:
    """The ISSN to look the journal up by: the first valid one of the entry, else of the
    work's records (formatted ``1234-567X``)."""
    for issn in (*entry.issn, *(i for r in records for i in r.issn)):
        digits = issn.replace("-", "").upper()
        if issn_ok(digits):
            return f"{digits[:4]}-{digits[4:]}"
    return None


async def journal_records(
    sources: Mapping[str, Any], entry: NormalizedEntry, records: Sequence[WorkRecord]
) -> list[WorkRecord]:
    """The journal records of the found work's journal (empty unless it is a journal with
    a valid ISSN, OpenAlex is configured, and a source with a journal endpoint answers)."""
    if not records or venue_kind(entry, records) != "journal":
        return []
    issn = journal_issn(entry, records)
    # the indexing flags heuristic 10 weighs come only from OpenAlex's Source record; without
    # OpenAlex, Crossref's journal counts alone decide nothing and are not asked for
    if issn is None or "openalex" not in sources:
        return []
    asked = [s for name in JOURNAL_SOURCES if (s := sources.get(name)) is not None]
    asked = [s for s in asked if hasattr(s, "journal")]

    async def one(source: Any) -> Lookup | None:
        try:
            result: Lookup = await source.journal(issn)
            return result
        except Exception as exc:  # sources promise not to raise; stay safe if one does
            log.warning("%s.journal raised %s", source.name, type(exc).__name__)
            return None

    out: list[WorkRecord] = []
    for lookup in await asyncio.gather(*(one(s) for s in asked)):
        if lookup is not None and lookup.outcome is Outcome.FOUND:
            out += lookup.records[:1]
    return out
