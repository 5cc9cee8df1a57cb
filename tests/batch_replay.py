"""Answers to batched requests, composed from the real single-record responses a
:class:`~replay.ReplayServer` holds, in the shape each service documents.

The corpus has real batched answers for arXiv (``id_list=a,b``) and Semantic Scholar
(``POST /paper/batch``) only; tests replay those as recorded.  For Crossref
(``/works?filter=doi:a,doi:b``), OpenAlex (``/works?filter=doi:a|b``) and PubMed
(``efetch.fcgi?id=a,b``) a batch answer is built here from the recorded single answers of its
members, nothing else:

* Crossref: the ``message`` of each recorded ``/works/{doi}`` (200) response, projected on the
  ``select`` fields, as the ``items`` of a ``work-list`` message (the envelope Crossref
  documents for ``/works`` queries: status, message-type, message-version, message with
  facets, total-results, items, items-per-page, query).  Same-name filters are ORed, as
  Crossref documents.
* OpenAlex (``/works?filter=doi:a|b``): each recorded ``/works/doi:{doi}`` work object,
  projected on ``select``, as the ``results`` of the list envelope OpenAlex documents, which
  counts them (``meta.count``); when a member has no recorded single answer, the recorded
  works page (the route tests/data/api/openalex/manifest.json gives every ``/works`` query)
  stands for what OpenAlex holds: the answer lists the works on it of the DOIs asked.
* arXiv: the ``<entry>`` elements of each recorded single ``id_list`` feed, in one feed (a
  feed recorded for ``2104.12255v1`` also answers ``2104.12255``).
* PubMed: the ``<PubmedArticle>`` / ``<PubmedBookArticle>`` elements of each recorded single
  efetch, in one
  ``<PubmedArticleSet>``.
* doi.org's registration agencies (``/ra/a,b``): the elements of each recorded ``/ra/{prefix}``
  answer, in one array.
* Crossref notices (``/works?filter=updates:a,updates:b``, one DOI or many): the recorded
  ``/works/{doi}`` messages whose ``update-to`` names one of the DOIs (a correction notice
  names the work it corrects), in the ``work-list`` envelope; same-name filters ORed.

Members with no recorded response are left out, as the services leave out unknown ids.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qsl
from xml.etree import ElementTree as ET

from replay import ReplayServer, Route

ATOM = "{http://www.w3.org/2005/Atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

Answer = tuple[int, str, bytes]


def _single(server: ReplayServer, uri_path: str, query: str) -> Route | None:
    route = server.match("GET", uri_path, query)
    if route is None or route.any_query or route.status != 200:
        return None
    return route


def _work_list(items: list[dict[str, object]], rows: int) -> Answer:
    """Crossref's ``work-list`` envelope around ``items`` (the first ``rows`` of them)."""
    body = {
        "status": "ok",
        "message-type": "work-list",
        "message-version": "1.0.0",
        "message": {
            "facets": {},
            "total-results": len(items),
            "items": items[:rows],
            "items-per-page": rows,
            "query": {"start-index": 0, "search-terms": None},
        },
    }
    return 200, "application/json;charset=utf-8", json.dumps(body).encode()


def _crossref_filters(path: str, params: dict[str, str], name: str) -> list[str] | None:
    """The filters of a Crossref ``/works`` request when all of them are ``name`` ones."""
    if path.rstrip("/") != "/crossref/works":
        return None
    filters = [f for f in params.get("filter", "").split(",") if f]
    if not filters or not all(f.startswith(name) for f in filters):
        return None
    return filters


def crossref_batch(server: ReplayServer, path: str, query: str) -> Answer | None:
    params = dict(parse_qsl(query))
    filters = _crossref_filters(path, params, "doi:")
    if filters is None:
        return None
    select = [s for s in params.get("select", "").split(",") if s]
    items = []
    for f in filters:
        route = _single(server, f"/crossref/works/{f[4:]}", "")
        if route is None:
            continue
        msg = json.loads(route.body)["message"]
        items.append({k: v for k, v in msg.items() if k in select} if select else msg)
    return _work_list(items, int(params.get("rows", "20")))


def _openalex_page(server: ReplayServer) -> dict[str, dict[str, object]]:
    """The works of the recorded page served for any ``/openalex/works`` query, by DOI
    (lower case, without ``https://doi.org/``)."""
    route = server.wildcards.get(("GET", "/openalex/works"))
    if route is None:
        return {}
    works = json.loads(route.body).get("results") or []
    return {
        str(w["doi"]).lower().removeprefix("https://doi.org/"): w
        for w in works
        if isinstance(w, dict) and isinstance(w.get("doi"), str)
    }


def openalex_batch(server: ReplayServer, path: str, query: str) -> Answer | None:
    """``/works?filter=doi:a|b``: the recorded ``/works/doi:{doi}`` work objects of the
    members, projected on ``select``, as the ``results`` of the list envelope OpenAlex
    documents (``meta`` with ``count``, ``page``, ``per_page``; ``results``; ``group_by``)."""
    if path.rstrip("/") != "/openalex/works":
        return None
    params = dict(parse_qsl(query))
    filters = [f for f in params.get("filter", "").split(",") if f]
    if len(filters) != 1 or not filters[0].startswith("doi:"):
        return None
    select = [s for s in params.get("select", "").split(",") if s]
    dois = filters[0][4:].split("|")
    singles = [_single(server, f"/openalex/works/doi:{doi}", "") for doi in dois]
    if all(singles):
        works = [json.loads(route.body) for route in singles if route is not None]
    else:  # the recorded works page stands for OpenAlex (see the module docstring)
        page = _openalex_page(server)
        works = [page[d.lower()] for d in dois if d.lower() in page]
    results = [{k: v for k, v in w.items() if k in select} if select else w for w in works]
    per_page = int(params.get("per_page", "25"))
    body = {
        "meta": {
            "count": len(results),
            "db_response_time_ms": 12,
            "page": 1,
            "per_page": per_page,
            "groups_count": None,
        },
        "results": results[:per_page],
        "group_by": [],
    }
    return 200, "application/json", json.dumps(body).encode()


def _arxiv_singles(server: ReplayServer) -> dict[str, Route]:
    """Recorded single ``id_list`` answers by the id asked, and by the id without its
    version (arXiv answers an unversioned id with the paper's latest version)."""
    out: dict[str, Route] = {}
    for route in server.routes.values():
        ids = dict(route.params).get("id_list", "")
        if route.path.startswith("/arxiv/") and ids and "," not in ids and route.status == 200:
            out.setdefault(ids, route)
            out.setdefault(re.sub(r"v\d+$", "", ids), route)
    return out


def arxiv_batch(server: ReplayServer, path: str, query: str) -> Answer | None:
    params = dict(parse_qsl(query))
    ids = [i for i in params.get("id_list", "").split(",") if i]
    if path.rstrip("/") != "/arxiv/api/query" or len(ids) < 2:
        return None
    feed: ET.Element | None = None
    entries: list[ET.Element] = []
    recorded = _arxiv_singles(server)
    for i in ids:
        route = recorded.get(i) or recorded.get(re.sub(r"v\d+$", "", i))
        if route is None:
            continue
        root = ET.fromstring(route.body)
        entries += root.findall(f"{ATOM}entry")
        if feed is None:
            feed = root
    if feed is None:
        return None
    for old in feed.findall(f"{ATOM}entry"):
        feed.remove(old)
    for tag in ("totalResults", "itemsPerPage"):
        node = feed.find(f"{OPENSEARCH}{tag}")
        if node is not None:
            node.text = str(len(entries))
    feed.extend(entries)
    ET.register_namespace("", ATOM[1:-1])
    ET.register_namespace("opensearch", OPENSEARCH[1:-1])
    ET.register_namespace("arxiv", "http://arxiv.org/schemas/atom")
    return 200, "application/atom+xml", ET.tostring(feed, xml_declaration=True, encoding="utf-8")


def pubmed_batch(server: ReplayServer, path: str, query: str) -> Answer | None:
    params = dict(parse_qsl(query))
    ids = [i for i in params.get("id", "").split(",") if i]
    if not path.endswith("/efetch.fcgi") or len(ids) < 2:
        return None
    articles = []
    for i in ids:
        route = _single(server, path, f"db=pubmed&id={i}&retmode=xml")
        if route is not None:
            found = ET.fromstring(route.body)
            articles += found.findall("PubmedArticle") + found.findall("PubmedBookArticle")
    root = ET.Element("PubmedArticleSet")
    root.extend(articles)
    return 200, "text/xml; charset=UTF-8", ET.tostring(root, xml_declaration=True, encoding="utf-8")


def crossref_notices(server: ReplayServer, path: str, query: str) -> Answer | None:
    """``/works?filter=updates:a,updates:b``: the recorded ``/works/{doi}`` work messages
    whose ``update-to`` names one of the DOIs, in the ``work-list`` envelope, all of them
    on one page (``rows`` is the most a page holds)."""
    params = dict(parse_qsl(query))
    filters = _crossref_filters(path, params, "updates:")
    if filters is None:
        return None
    wanted = {f.removeprefix("updates:").lower() for f in filters}
    items = []
    for route in server.routes.values():
        if not route.path.startswith("/crossref/works/") or route.status != 200:
            continue
        try:
            msg = json.loads(route.body)["message"]
        except (ValueError, KeyError, TypeError):
            continue  # a transform or a non-JSON answer
        updated = {str(u.get("DOI", "")).lower() for u in msg.get("update-to") or []}
        if isinstance(msg, dict) and updated & wanted:
            items.append(msg)
    return _work_list(items, int(params.get("rows", "20")))


def doi_agencies(server: ReplayServer, path: str, query: str) -> Answer | None:
    """``doi.org/ra/a,b``: the elements of each prefix's recorded ``/ra/{prefix}`` answer,
    in one array (doi.org answers a comma-separated list so, each as it answers alone)."""
    if not path.startswith("/doi/ra/") or "," not in path:
        return None
    items: list[object] = []
    for prefix in path[len("/doi/ra/") :].split(","):
        route = _single(server, f"/doi/ra/{prefix}", "")
        if route is not None:
            items.extend(json.loads(route.body))
    return 200, "application/json;charset=UTF-8", json.dumps(items).encode()


def serve_batches(server: ReplayServer) -> ReplayServer:
    """Let ``server`` answer batched Crossref, OpenAlex, arXiv and PubMed requests from its
    singles, and Crossref's notices (``filter=updates:``) from its work records."""
    server.responders = [
        crossref_batch,
        crossref_notices,
        openalex_batch,
        arxiv_batch,
        pubmed_batch,
        doi_agencies,
    ]
    return server
