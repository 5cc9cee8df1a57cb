"""doi.org content negotiation (CSL-JSON): works for Crossref, DataCite, mEDRA, JaLC and
arXiv (10.48550) DOIs alike.  A 404 from doi.org itself, its "DOI Not Found" page, means the
DOI does not exist; one from the agency doi.org redirected to means only that the agency
offers no record, and any other 404 (a proxy's page) nothing.

doi.org also says which registration agency a DOI prefix belongs to (``/ra/{prefix}``,
many prefixes a request, comma-separated): a prefix of Crossref's makes Crossref's own
"no such DOI" final (:mod:`citewarden.verify.id_lookup`), and a prefix doi.org does not
know holds no DOI at all.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from citewarden.verify.http import Failure, HttpClient
from citewarden.verify.records import Lookup, Outcome, Query, WorkRecord
from citewarden.verify.sources._common import clean_doi, guard, normalize_doi, reply_json
from citewarden.verify.sources.crossref import work_from_csl
from citewarden.verify.sources.missing import DOI_ORG, describe_body

CSL_JSON = "application/vnd.citationstyles.csl+json"
#: Prefixes asked in one ``/ra/`` request (the URL stays short).
AGENCY_BATCH = 50
#: The ``work_type`` of a record naming a prefix's registration agency (its ``publisher``).
AGENCY_RECORD = "doi-prefix"
#: A DOI prefix: ``10.`` and a registrant code of digits, with dotted sub-codes.
_PREFIX = re.compile(r"10\.\d{4,9}(?:\.\d{1,9})*")


def doi_prefix(doi: str) -> str | None:
    """The prefix of ``doi`` (``10.1109`` of ``10.1109/cvpr.2019.00773``); None when it
    has none a registration agency could hold."""
    head = clean_doi(doi).split("/", 1)[0]
    return head if _PREFIX.fullmatch(head) else None


def registration_agency(lookup: Lookup) -> str | None:
    """The agency an :meth:`DoiSource.agency` answer names ("Crossref", "DataCite" ...)."""
    for record in lookup.records:
        if record.work_type == AGENCY_RECORD and record.publisher:
            return record.publisher
    return None


class DoiSource:
    """Resolve a DOI through doi.org asking for CSL-JSON."""

    name = "doi"

    def __init__(self, http: HttpClient, base_url: str) -> None:
        self.http = http
        self.base_url = base_url.rstrip("/")

    async def by_doi(self, doi: str) -> Lookup:
        doi = clean_doi(doi)
        url = f"{self.base_url}/{quote(doi, safe='/():;<>[]')}"
        reply = await self.http.get(url, lane="doi", headers={"Accept": CSL_JSON})
        if isinstance(reply, Failure):
            return Lookup.failed(self.name, reply.reason)
        if reply.status == 404:
            absent = DOI_ORG.read(self.name, reply)
            if absent.outcome is Outcome.NOT_FOUND:
                # doi.org's own "DOI Not Found" page (also after a move within doi.org:
                # dx.doi.org -> doi.org)
                return absent
            if reply.redirects:
                # doi.org resolved the DOI, to an agency whose metadata service lacks it
                return Lookup.failed(self.name, "the DOI resolves, but its agency has no record")
            return absent  # any other 404 (a proxy's, a wrong base URL's) says nothing
        if reply.status != 200:
            return Lookup.failed(self.name, f"HTTP {reply.status}")
        ctype = reply.headers.get("content-type", "")
        if "json" not in ctype:
            if reply.redirects:
                # doi.org handed the DOI on: its agency offers no metadata by negotiation
                return Lookup.failed(self.name, "DOI resolves but no CSL-JSON metadata is offered")
            # doi.org answers a DOI with a redirect: a page of its own address is another
            # server's (a proxy's, a captive portal's, a wrong base URL's) and says nothing
            return Lookup.failed(
                self.name,
                f"an answer that is not CSL-JSON ({describe_body(reply)}) without the redirect "
                "doi.org answers with: a proxy or a wrong base URL?",
            )
        try:
            data = reply.json()
        except ValueError:
            return Lookup.failed(self.name, "malformed response: not JSON")

        def build() -> Lookup:
            item = data[0] if isinstance(data, list) and data else data
            rec = work_from_csl(item, self.name)
            if rec is not None and rec.doi is None:
                rec = dataclasses.replace(rec, doi=normalize_doi(doi))
            if rec is None:
                return Lookup.failed(self.name, "malformed response: no title")
            return Lookup.found(self.name, [rec])

        return guard(self.name, build)

    async def agency(self, prefix: str) -> Lookup:
        """The registration agency of the DOI prefix ``prefix`` (``/ra/10.1109``): FOUND
        with one record naming it (:func:`registration_agency`), NOT_FOUND when doi.org
        says the prefix does not exist."""
        answers = await self.agencies([prefix])
        return answers.get(prefix.strip()) or Lookup.failed(
            self.name, "malformed response: the prefix asked is not answered"
        )

    async def agencies(self, prefixes: Sequence[str]) -> dict[str, Lookup]:
        """:meth:`agency` for many prefixes, :data:`AGENCY_BATCH` a request; keys are the
        prefixes as asked (a prefix the answer leaves out is not in the result)."""
        wanted = [p.strip() for p in dict.fromkeys(prefixes) if _PREFIX.fullmatch(p.strip())]
        out: dict[str, Lookup] = {}
        for start in range(0, len(wanted), AGENCY_BATCH):
            chunk = wanted[start : start + AGENCY_BATCH]
            url = f"{self.base_url}/ra/{','.join(chunk)}"
            reply = await self.http.get(url, lane="doi", headers={"Accept": "application/json"})
            data = reply_json(self.name, reply)
            if isinstance(data, Lookup):
                out.update(dict.fromkeys(chunk, data))
                continue
            out.update(_agency_answers(self.name, chunk, data))
        return out

    async def search(self, query: Query) -> Lookup:
        return Lookup.failed(self.name, "unsupported")


def _agency_answers(source: str, asked: Sequence[str], data: Any) -> dict[str, Lookup]:
    """The answer of ``/ra/`` for each prefix ``asked``: a list of ``{"DOI": prefix, "RA":
    agency}``, or ``{"DOI": prefix, "status": "DOI does not exist"}`` for one doi.org does
    not know; any other shape is a malformed answer for every prefix."""
    if not isinstance(data, list):
        failed = Lookup.failed(source, "malformed response: not a list")
        return dict.fromkeys(asked, failed)
    wanted = set(asked)
    out: dict[str, Lookup] = {}
    for item in data:
        if not isinstance(item, dict) or item.get("DOI") not in wanted:
            continue
        prefix, agency = item["DOI"], item.get("RA")
        if isinstance(agency, str) and 0 < len(agency) <= 100:
            record = WorkRecord(
                source, f"DOI prefix {prefix}", publisher=agency, work_type=AGENCY_RECORD
            )
            out[prefix] = Lookup.found(source, [record])
        elif item.get("status") == "DOI does not exist":
            out[prefix] = Lookup.not_found(source)
    return out
