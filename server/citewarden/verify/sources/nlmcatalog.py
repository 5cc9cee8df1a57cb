"""The NLM Catalog through NCBI E-utilities: a journal by ISSN, for heuristic 10.

``esearch.fcgi?db=nlmcatalog&term={issn}[issn]&retmode=json`` gives the catalog records
holding the ISSN; ``esummary.fcgi?db=nlmcatalog&id=...&retmode=json`` their summaries
(title, ISSNs, NLM unique ID, MEDLINE abbreviation, ``currentindexingstatus``).  Both go
through the PubMed source's client and lane, so they share NCBI's limit (3 requests per
second without a key) with every PubMed request.  An empty search is the catalog saying it
holds no journal with the ISSN (NOT_FOUND); a failure or an E-utilities error is FAILED.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from citewarden.verify.http import Failure, Reply
from citewarden.verify.records import Lookup
from citewarden.verify.sources._common import guard, no_hits, reply_json
from citewarden.verify.sources.journals import journal_from_nlm

#: Catalog records summarised per ISSN (a title and its successor may share one).
MAX_RECORDS = 3

Get = Callable[[str, dict[str, str]], Awaitable[Reply | Failure]]


def _ids(source: str, data: Any) -> list[str] | Lookup:
    """The catalog ids of an esearch answer (a Lookup when it holds none: NOT_FOUND when it
    counts none, FAILED when it is malformed)."""
    result = data.get("esearchresult") if isinstance(data, dict) else None
    if not isinstance(result, dict):
        return Lookup.failed(source, "malformed response: no esearchresult")
    if "ERROR" in result or "error" in result:
        return Lookup.failed(source, "E-utilities error")
    ids = result.get("idlist")
    if not isinstance(ids, list):
        return Lookup.failed(source, "malformed response: no idlist")
    if not all(isinstance(i, str) and is_entrez_id(i) for i in ids):
        # sent on in the next request's URL: only what a catalog id can be
        return Lookup.failed(source, "malformed response: an id that is not an NLM id")
    if not ids:  # no such journal only when the answer counts none (see no_hits)
        return guard(source, lambda: no_hits(source, result.get("count")))
    return ids[:MAX_RECORDS]


#: What an Entrez UID (a PMID, an NLM Catalog id) is: a positive integer of a few digits,
#: ASCII only (``str.isdigit`` takes "²" and other scripts' digits).
_ENTREZ_ID = re.compile(r"[0-9]{1,12}")


def is_entrez_id(text: str) -> bool:
    """Whether ``text`` can be an Entrez UID, and so can go into a request's URL."""
    return _ENTREZ_ID.fullmatch(text) is not None


async def nlm_journal(source: str, get: Get, issn: str) -> Lookup:
    """The NLM Catalog record of the journal with ``issn`` (``1234-567X``); ``get`` sends
    one E-utilities request (endpoint, parameters) through the PubMed source's lane."""
    issn = issn.strip().upper()
    found = reply_json(
        source,
        await get(
            "esearch.fcgi",
            {
                "db": "nlmcatalog",
                "term": f"{issn}[issn]",
                "retmode": "json",
                "retmax": str(MAX_RECORDS),
            },
        ),
    )
    if isinstance(found, Lookup):
        return found
    ids = _ids(source, found)
    if isinstance(ids, Lookup):
        return ids
    summary = reply_json(
        source,
        await get("esummary.fcgi", {"db": "nlmcatalog", "id": ",".join(ids), "retmode": "json"}),
    )
    if isinstance(summary, Lookup):
        return summary

    def build() -> Lookup:
        result = summary["result"]
        records = [r for r in (journal_from_nlm(result.get(i), source) for i in ids) if r]
        if not records:
            raise ValueError("no usable summary")
        # the record listing the ISSN itself first (a successor title may be found too)
        records.sort(key=lambda r: issn not in r.issn)
        return Lookup.found(source, records[:1])

    return guard(source, build)
