"""doi.org content negotiation (CSL-JSON): works for Crossref, DataCite, mEDRA, JaLC and
arXiv (10.48550) DOIs alike.  A 404 from doi.org itself means the DOI does not exist; one
from the agency doi.org redirected to means only that the agency offers no record."""

from __future__ import annotations

import dataclasses
from urllib.parse import quote

from citewarden.verify.http import Failure, HttpClient
from citewarden.verify.records import Lookup, Query
from citewarden.verify.sources._common import clean_doi, guard, normalize_doi
from citewarden.verify.sources.crossref import work_from_csl

CSL_JSON = "application/vnd.citationstyles.csl+json"


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
        if reply.status == 404 and reply.redirects:
            # doi.org resolved the DOI, to an agency whose metadata service lacks it
            return Lookup.failed(self.name, "the DOI resolves, but its agency has no record")
        if reply.status == 404:
            return Lookup.not_found(self.name)
        if reply.status != 200:
            return Lookup.failed(self.name, f"HTTP {reply.status}")
        ctype = reply.headers.get("content-type", "")
        if "json" not in ctype:
            # The DOI resolves, but its agency offers no metadata by content negotiation.
            return Lookup.failed(self.name, "DOI resolves but no CSL-JSON metadata is offered")
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

    async def search(self, query: Query) -> Lookup:
        return Lookup.failed(self.name, "unsupported")
