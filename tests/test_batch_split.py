"""A batch answer over the body cap is asked again in halves; other failures are not.

A loopback Semantic Scholar answers ``POST /graph/v1/paper/batch`` with the real recorded
paper objects of the ids asked (refchecker's recorded ``/paper/ARXIV:{id}`` answers,
tests/data/accuracy/refchecker/semanticscholar_get_by_arxiv.jsonl) in the documented batch
shape, a JSON array in request order with ``null`` for an id it does not hold, and
``GET /graph/v1/paper/ARXIV:{id}`` with the recorded object (or the recorded 404); a search
gets a 501, as the replay server answers what it has no recording of.  The body
cap is lowered so that the answer for all the ids is over it and the answer for each half is
under it: sizes are measured on the bodies the server sends, not assumed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from citewarden.model import Entry, Status
from citewarden.settings import VerifySettings
from citewarden.verify import plan
from citewarden.verify.coalesce import Coalescer
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient, Limit, RetryPolicy
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.plan import Ahead
from citewarden.verify.records import Outcome
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from paths import DATA
from replay import recorded

#: Real Semantic Scholar paper objects by arXiv id, in the order recorded.
PAPERS: dict[str, dict[str, Any]] = {
    row["cache_query"]: row["body"]
    for row in map(
        json.loads,
        (DATA / "accuracy" / "refchecker" / "semanticscholar_get_by_arxiv.jsonl")
        .read_text(encoding="utf-8")
        .splitlines(),
    )
    if isinstance(row.get("body"), dict)
}
#: Eight papers of ordinary size (2 to 4 KB each), and the Llama 3 report (27.7 KB: 500+
#: authors), whose own answer is over a 20 KB cap.
EIGHT = [i for i in PAPERS if len(json.dumps(PAPERS[i])) < 4000][:8]
BIG = "2407.21783"
#: Semantic Scholar's recorded answer to an id it does not know.
NOT_FOUND = recorded("semanticscholar", "test_not_found__00.json")


def batch_body(ids: list[str]) -> bytes:
    """The server's answer to ``POST /paper/batch`` for ``ids`` (``ARXIV:`` left off)."""
    return json.dumps([PAPERS.get(i) for i in ids]).encode()


@dataclass
class S2:
    """The loopback Semantic Scholar: what it was asked, and how it misbehaves."""

    #: (method, ids asked, arrival) of every request; a GET asks for one id.
    log: list[tuple[str, list[str], float]] = field(default_factory=list)
    #: Seconds every batch answer is held back (longer than the client's timeout: it
    #: fails by timeout).
    delay: float = 0.0
    #: Batch requests still to be refused with 429 (``Retry-After: 0``).
    refuse: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    url: str = ""

    def posts(self) -> list[list[str]]:
        with self.lock:
            return [ids for method, ids, _ in self.log if method == "POST"]

    def gets(self) -> list[str]:
        with self.lock:
            return [ids[0] for method, ids, _ in self.log if method == "GET"]


def _handler(state: S2) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            asked = json.loads(self.rfile.read(length))["ids"]
            ids = [i.removeprefix("ARXIV:") for i in asked]
            with state.lock:
                state.log.append(("POST", ids, time.monotonic()))
                refused = state.refuse > 0
                state.refuse -= refused
            if state.delay:
                time.sleep(state.delay)
            try:
                if refused:
                    self._send(429, b"", {"Retry-After": "0"})
                else:
                    self._send(200, batch_body(ids))
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True

        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            if "/paper/ARXIV:" not in path:  # a search: nothing recorded to answer it
                with state.lock:
                    state.log.append(("SEARCH", [], time.monotonic()))
                self._send(501, b"no recorded response")
                return
            ident = path.rsplit("/paper/ARXIV:", 1)[-1]
            with state.lock:
                state.log.append(("GET", [ident], time.monotonic()))
            paper = PAPERS.get(ident)
            if paper is None:
                self._send(404, NOT_FOUND)
            else:
                self._send(200, json.dumps(paper).encode())

    return Handler


@pytest.fixture
def s2() -> Iterator[S2]:
    state = S2()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    yield state
    server.shutdown()
    server.server_close()


def entry_for(ident: str) -> Entry:
    """A correct citation of the recorded paper ``ident`` (by its arXiv id)."""
    paper = PAPERS[ident]
    authors = " and ".join(str(a["name"]) for a in paper["authors"])
    fields = {
        "title": str(paper["title"]),
        "author": authors,
        "year": str(paper["year"]),
        "eprint": ident,
        "archiveprefix": "arXiv",
    }
    return make_entry(f"k{ident}", "misc", fields)


def http_client(max_body: int, **options: Any) -> HttpClient:
    """A client whose Semantic Scholar lane keeps 5 requests a second, one at a time."""
    retry = RetryPolicy(max_retries=1, transport_retries=0, backoff_base=0.01, backoff_cap=0.05)
    defaults: dict[str, Any] = {"timeout": 5.0, "retry": retry}
    return HttpClient(
        max_body=max_body,
        limits={"semanticscholar": Limit(5.0, 1, 1)},
        **(defaults | options),
    )


def half_cap(ids: list[str]) -> int:
    """A body cap the answer for ``ids`` is over and the answer for each half is under."""
    half = (len(ids) + 1) // 2
    cap = max(len(batch_body(ids[:half])), len(batch_body(ids[half:]))) + 64
    assert len(batch_body(ids)) > cap
    return cap


async def verify(http: HttpClient, url: str, entries: list[Entry]) -> dict[str, Any]:
    source = SemanticScholarSource(http, url)
    verifier = Verifier([source], VerifySettings(sources=("semanticscholar",)))
    return await verifier.verify_many(entries)


async def test_a_batch_over_the_cap_is_settled_from_its_halves(s2: S2) -> None:
    assert len(EIGHT) == 8
    entries = [entry_for(i) for i in EIGHT]
    async with http_client(half_cap(EIGHT)) as http:
        verdicts = await verify(http, s2.url, entries)
    # the whole batch (over the cap), then its two halves; every id settled from them
    assert s2.posts() == [EIGHT, EIGHT[:4], EIGHT[4:]]
    assert s2.gets() == []
    assert {v.status for v in verdicts.values()} == {Status.VERIFIED}
    # the halves keep the lane's limit (5 a second): requests 0.2 s apart (less a little
    # for the first's way to the server)
    stamps = [at for _, _, at in s2.log]
    assert min(b - a for a, b in itertools.pairwise(stamps)) >= 0.15
    # the same verdicts as with the whole answer read in one request
    s2.log.clear()
    async with http_client(len(batch_body(EIGHT))) as http:
        whole = await verify(http, s2.url, entries)
    assert s2.posts() == [EIGHT] and whole == verdicts


@pytest.mark.parametrize("failure", ["timeout", "429"])
async def test_a_batch_that_failed_otherwise_is_not_split(s2: S2, failure: str) -> None:
    # over the cap too, had it been answered: only a body over the cap splits a batch
    if failure == "timeout":
        s2.delay, options, sent = 1.0, {"timeout": 0.3}, 1
    else:
        s2.refuse, options, sent = 10, {}, 2  # the first try and its one retry
    async with http_client(half_cap(EIGHT), **options) as http:
        source = SemanticScholarSource(http, s2.url)
        ahead = Ahead()
        ahead.start({"semanticscholar": source}, [normalize_entry(entry_for(i)) for i in EIGHT])
        futures = [ahead.take("semanticscholar", "by_arxiv", i) for i in EIGHT]
        answers = await asyncio.gather(*(f for f in futures if f is not None))
    assert answers == [None] * 8  # settled nothing: each entry asks on its own
    assert s2.posts() == [EIGHT] * sent


async def test_coalesced_lookups_over_the_cap_are_asked_in_halves(s2: S2) -> None:
    async with http_client(half_cap(EIGHT)) as http:
        source = SemanticScholarSource(http, s2.url)
        coalescer = Coalescer(budget=30.0)
        answers = await asyncio.gather(
            *(coalescer.ask(source, "semanticscholar", "by_arxiv", i) for i in EIGHT)
        )
    assert s2.posts() == [EIGHT, EIGHT[:4], EIGHT[4:]]
    assert [a.outcome if a else None for a in answers] == [Outcome.FOUND] * 8


async def test_an_id_whose_own_answer_is_over_the_cap_is_unverified_with_the_reason(
    s2: S2,
) -> None:
    small = EIGHT[0]
    cap = 20_000
    assert len(json.dumps(PAPERS[BIG])) > cap > len(batch_body([small]))
    async with http_client(cap) as http:
        verdicts = await verify(http, s2.url, [entry_for(BIG), entry_for(small)])
    big = verdicts[f"k{BIG}"]
    assert big.status is Status.UNVERIFIED
    assert big.reason is not None and "response body over" in big.reason
    assert verdicts[f"k{small}"].status is Status.VERIFIED
    # no batch of one and no second batch: the coalesced batch of the two, over the cap
    # for both, then each id by its single look-up
    assert [sorted(p) for p in s2.posts()] == [sorted([BIG, small])]
    assert sorted(s2.gets()) == sorted([BIG, small])


async def test_halving_stops_after_two_levels() -> None:
    # a source whose every batch answer is over the cap: the batch, its halves and theirs
    # (seven requests for sixteen ids), then the ids are left to their entries
    from citewarden.verify.batch_split import LEVELS, in_halves
    from citewarden.verify.records import Lookup

    sent: list[list[str]] = []

    async def over_the_cap(ids: list[str]) -> dict[str, Lookup]:
        sent.append(ids)
        return {i: Lookup.failed("semanticscholar", "response body over 8 MB") for i in ids}

    ids = [f"DOI:10.1/{n}" for n in range(16)]
    answers = await in_halves(over_the_cap, ids, str.casefold)
    assert LEVELS == 2 and [len(s) for s in sent] == [16, 8, 4, 4, 8, 4, 4]
    assert all(a.outcome.value == "failed" for a in answers.values()) and len(answers) == 16


async def test_ids_still_over_the_cap_after_the_plans_halves_ask_on_their_own(s2: S2) -> None:
    # nine arXiv ids (enough for the plan's batch at Semantic Scholar), one of them over the
    # cap alone: the plan's batch, its halves and the over half's halves (five requests at
    # most), then the ids of the last group over the cap by their single look-ups, never in
    # another batch of the coalesced look-ups
    ids = [*EIGHT, BIG]
    async with http_client(20_000) as http:
        verdicts = await verify(http, s2.url, [entry_for(i) for i in ids])
    assert verdicts[f"k{BIG}"].status is Status.UNVERIFIED
    assert all(verdicts[f"k{i}"].status is Status.VERIFIED for i in EIGHT)
    posts = s2.posts()
    assert sorted(posts[0]) == sorted(ids) and len(posts) <= 5
    assert len({tuple(sorted(p)) for p in posts}) == len(posts)  # no group asked twice
    gets = s2.gets()
    assert BIG in gets and len(gets) == len(set(gets))


#: Papers whose Semantic Scholar record names a published venue.
PUBLISHED = [
    i
    for i, p in PAPERS.items()
    if p.get("venue") and p.get("venue") != "arXiv.org" and len(json.dumps(p)) < 4000
][: plan.LATER_FROM]


async def test_a_venue_the_plans_batch_confirms_costs_no_other_index_request(s2: S2) -> None:
    # preprints cited with their conference: arXiv's record (a preprint, in memory here)
    # cannot confirm the venue, Semantic Scholar's records, fetched ahead in one batch, do;
    # OpenAlex, configured before it, is never asked
    from citewarden.verify.records import Lookup, Person, WorkRecord

    class Arxiv:
        name = "arxiv"

        async def by_arxiv(self, ident: str) -> Lookup:
            paper = PAPERS[ident]
            people = tuple(
                Person(str(a["name"]).split()[-1], " ".join(str(a["name"]).split()[:-1]))
                for a in paper["authors"]
            )
            rec = WorkRecord(
                "arxiv",
                str(paper["title"]),
                people,
                int(paper["year"]),
                venue="arXiv",
                arxiv_id=ident,
                record_id=f"{ident}v1",
            )
            return Lookup.found("arxiv", [rec])

    class OpenAlex:
        name = "openalex"

        def __init__(self) -> None:
            self.asked: list[str] = []

        async def by_doi(self, doi: str) -> Lookup:
            self.asked.append(doi)
            return Lookup.not_found("openalex")

        async def search(self, query: object) -> Lookup:
            self.asked.append(str(query))
            return Lookup.not_found("openalex")

    entries = []
    for ident in PUBLISHED:
        paper = PAPERS[ident]
        fields = {
            "title": str(paper["title"]),
            "author": " and ".join(str(a["name"]) for a in paper["authors"]),
            "year": str(paper["year"]),
            "eprint": ident,
            "archiveprefix": "arXiv",
            "booktitle": str(paper["venue"]),
        }
        entries.append(make_entry(f"k{ident}", "inproceedings", fields))
    openalex = OpenAlex()
    async with http_client(10_000_000) as http:
        sources = [Arxiv(), openalex, SemanticScholarSource(http, s2.url)]
        settings = VerifySettings(sources=("arxiv", "openalex", "semanticscholar"))
        verdicts = await Verifier(sources, settings).verify_many(entries)  # type: ignore[arg-type]
    assert len(PUBLISHED) == plan.LATER_FROM
    assert all(v.status is Status.VERIFIED for v in verdicts.values()), verdicts
    assert openalex.asked == []
    assert [sorted(p) for p in s2.posts()] == [sorted(PUBLISHED)] and s2.gets() == []
