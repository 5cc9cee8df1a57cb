"""Plan first: identifiers fetched in batches per source, cache first, before the per-entry
steps; per-source request slots; search order by kind of work; advertised concurrency.

Over the replay server: real recorded single answers, real batched answers where the corpus
has them (arXiv ``id_list``), and batched answers composed from recorded single answers in
the shape the service documents (tests/batch_replay.py, see tests/data/PROVENANCE.md).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from datetime import date
from pathlib import Path
from urllib.parse import parse_qs

import pytest

import replay as replay_fixtures
from batch_replay import serve_batches
from citewarden.cache import Cache
from citewarden.model import Code, Entry, Status
from citewarden.settings import VerifySettings
from citewarden.verify import plan
from citewarden.verify.coalesce import Coalescer
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient, Limit
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.plan import Ahead
from citewarden.verify.rate_limit import Slots, TokenBucket
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.search_order import Field, field_of
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.cached import CachedSource
from citewarden.verify.sources.crossref import CrossrefSource, work_from_csl
from citewarden.verify.sources.doi import DoiSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.pubmed import PubMedSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from hostile_server import Behaviour, HostileServer, hostile
from replay import API_DATA, ReplayServer, recorded

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http
__all__ = ["hostile"]

TODAY = date(2026, 11, 29)


def recorded_crossref_works() -> list[dict[str, object]]:
    """The messages of every recorded Crossref ``/works/{doi}`` answer (200)."""
    out = []
    for row in json.loads((API_DATA / "crossref" / "manifest.json").read_text()):
        path = row["uri"].split("api.crossref.org/works/", 1)
        if row["status"] != 200 or len(path) != 2 or "/transform/" in path[1]:
            continue
        data = json.loads(recorded("crossref", row["file"]))
        if isinstance(data, dict) and isinstance(data.get("message"), dict):
            out.append(data["message"])
    return out


def entry_for(i: int, msg: dict[str, object]) -> Entry:
    authors = " and ".join(
        f"{a.get('family')}, {a.get('given', '')}"
        for a in msg.get("author") or []  # type: ignore[attr-defined]
        if isinstance(a, dict) and a.get("family")
    )
    fields = {"title": msg["title"][0], "doi": msg["DOI"]}  # type: ignore[index]
    if authors:
        fields["author"] = authors
    return make_entry(f"e{i}", "article", fields)


def crossref_verifier(srv: ReplayServer, http: HttpClient, cache: Cache | None) -> Verifier:
    sources = [
        CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, srv.base_url("doi")),
    ]
    wrapped = [CachedSource(s, cache) for s in sources] if cache is not None else sources
    return Verifier(wrapped, VerifySettings(sources=("crossref", "doi")), today=TODAY)


def _four_sources(replay: ReplayServer, http: HttpClient) -> Verifier:
    sources = [
        CrossrefSource(http, replay.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, replay.base_url("doi")),
        OpenAlexSource(http, replay.base_url("openalex")),
        SemanticScholarSource(http, replay.base_url("semanticscholar")),
    ]
    settings = VerifySettings(sources=("crossref", "doi", "openalex", "semanticscholar"))
    return Verifier(sources, settings, today=TODAY)


async def test_doi_entries_are_fetched_in_one_batch_then_from_the_cache(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    serve_batches(replay)
    messages = recorded_crossref_works()
    assert len(messages) >= 6
    entries = [entry_for(i, m) for i, m in enumerate(messages)]
    # the same entries, one request each (the per-entry path, no plan)
    one_by_one = crossref_verifier(replay, replay_http, None)
    alone = {e.key: await one_by_one.verify(e) for e in entries}
    assert replay.requests_to("/crossref/works/") == len(entries)
    replay.clear()
    serve_batches(replay)

    cache = Cache(tmp_path / "cache")
    planned = await crossref_verifier(replay, replay_http, cache).verify_many(entries)
    assert planned == alone  # the same verdicts
    (batch,) = [s for s in replay.log if s.path == "/crossref/works"]
    assert parse_qs(batch.query)["filter"] == [
        ",".join(f"doi:{m['DOI']}".lower() for m in messages)
    ]
    assert replay.requests_to("/crossref/works/") == 0  # no single look-up left
    assert not replay.unmatched

    replay.log.clear()
    again = await crossref_verifier(replay, replay_http, cache).verify_many(entries)
    assert again == alone and replay.log == []  # warm: every answer from the cache
    cache.close()


async def test_a_doi_an_ored_batch_answer_lacks_goes_to_doi_org(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    # the batch holds another of its DOIs (its filters were ORed) and 10.5061/foo is plain
    # modern DOI syntax: its absence is Crossref's 404; its prefix is DataCite's (doi.org's
    # recorded /ra/10.5061), so doi.org is asked next (its recorded 404 for a DOI it does
    # not know, served for this one: the DOI does not exist) and /works/10.5061/foo never is
    serve_batches(replay)
    replay.add_route(
        "https://doi.org/10.5061/foo",
        recorded(
            "doi",
            "test-content_negotation__test_content_negotiation_raises_an_http_error_with_bad_requests.html",
        ),
        status=404,
        content_type="text/html;charset=utf-8",
    )
    known = entry_for(0, recorded_crossref_works()[0])
    fields = {"title": "Gravity waves from nowhere", "author": "Roe, Richard", "doi": "10.5061/foo"}
    unknown = make_entry("foo", "article", fields)
    cache = Cache(tmp_path / "cache")
    verdicts = await crossref_verifier(replay, replay_http, cache).verify_many([known, unknown])
    assert replay.requests_to("/crossref/works/10.5061/foo") == 0
    assert replay.requests_to("/doi/ra/10.5061") == 1
    assert replay.requests_to("/doi/10.5061/foo") == 1
    (batch,) = [s for s in replay.log if "filter" in parse_qs(s.query)]
    assert "doi:10.5061/foo" in parse_qs(batch.query)["filter"][0]
    assert Code.DOI_NOT_FOUND in {i.code for i in verdicts["foo"].issues}
    assert verdicts[known.key].status.value == "verified"
    assert not replay.unmatched
    # kept as Crossref's "not found" in the cache: a later run asks nothing of Crossref
    replay.log.clear()
    again = await crossref_verifier(replay, replay_http, cache).verify_many([unknown])
    cache.close()
    assert again["foo"] == verdicts["foo"]
    assert not [s for s in replay.log if s.path.startswith("/crossref")]


async def test_a_doi_the_batch_answer_cannot_vouch_for_is_asked_on_its_own(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # an answer holding none of its DOIs may be an AND of the filters, and a DOI outside
    # the plain syntax may not be carried by the filter: /works/{doi} is asked for each
    serve_batches(replay)
    sici = "10.1002/(sici)1097-4571(199806)49:8<693::aid-asi4>3.0.co;2-o"
    entries = [
        make_entry("gone", "article", {"title": "Not a work", "doi": "10.1371/notarealdoi"}),
        make_entry("old", "article", {"title": "An old work", "doi": sici}),
    ]
    verdicts = await crossref_verifier(replay, replay_http, None).verify_many(entries)
    (batch,) = [s for s in replay.log if "filter" in parse_qs(s.query)]
    assert "doi:10.1371/notarealdoi" in parse_qs(batch.query)["filter"][0]
    assert replay.requests_to("/crossref/works/10.1371/notarealdoi") == 1  # the recorded 404
    assert len([s for s in replay.log if s.path.startswith("/crossref/works/10.1002")]) == 1
    assert verdicts["gone"].status.value in {"not_found", "unverified"}


async def test_crossref_batch_records_equal_the_single_records(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # the batch asks for the fields a single record carries (relations included)
    serve_batches(replay)
    messages = recorded_crossref_works()
    assert any(m.get("relation") for m in messages)
    src = CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org")
    out = await src.by_dois([str(m["DOI"]) for m in messages])
    for m in messages:
        (got,) = out[str(m["DOI"]).lower()].records
        single = work_from_csl(m)
        assert single is not None
        assert got.extra == single.extra and got.authors == single.authors
        assert got.updates == single.updates and got.venue == single.venue
        assert got.abstract == single.abstract
    assert any(m.get("abstract") for m in messages)  # eLife's record has a JATS abstract


async def test_arxiv_batch_from_a_real_batched_answer(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    cache = Cache(tmp_path / "cache")
    src = CachedSource(ArxivSource(replay_http, replay.base_url("arxiv")), cache)
    out = await src.by_arxivs(["0808.05394", "1707.08567"])
    assert out["1707.08567"].records[0].title.startswith("Proceedings of Workshop AEW10")
    assert out["0808.05394"].outcome is Outcome.NOT_FOUND  # absent from arXiv's answer
    (seen,) = replay.log
    assert parse_qs(seen.query)["id_list"] == ["0808.05394,1707.08567"]
    # the answers are cached under the single look-up: no request for either again
    assert (await src.by_arxiv("1707.08567")).from_cache
    assert (await src.by_arxivs(["0808.05394"]))["0808.05394"].outcome is Outcome.NOT_FOUND
    assert len(replay.log) == 1
    cache.close()


async def test_pubmed_batch_is_one_efetch(replay: ReplayServer, replay_http: HttpClient) -> None:
    serve_batches(replay)
    src = PubMedSource(replay_http, replay.base_url("pubmed"))
    out = await src.by_pmid_batch(["11618220", "20301577", "37909814"])
    assert out["11618220"].records[0].pmid == "11618220"
    assert out["20301577"].records[0].pmid == "20301577"  # a PubmedBookArticle
    assert out["37909814"].outcome is Outcome.NOT_FOUND  # its recorded efetch is empty
    (seen,) = replay.log
    assert parse_qs(seen.query)["id"] == ["11618220,20301577,37909814"]


async def test_a_slow_strict_source_does_not_hold_the_others(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    replay.latencies = {"/arxiv": 1.0}
    preprints = [
        make_entry("ax1", "misc", {"title": "x", "eprint": "1605.08386", "archiveprefix": "arXiv"}),
        make_entry("ax2", "misc", {"title": "y", "eprint": "astro-ph/0601001"}),
    ]
    papers = [entry_for(i, m) for i, m in enumerate(recorded_crossref_works())]
    sources = [
        CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org"),
        DoiSource(replay_http, replay.base_url("doi")),
        ArxivSource(replay_http, replay.base_url("arxiv")),
    ]
    verifier = Verifier(sources, VerifySettings(sources=("crossref", "doi"), concurrency=1))
    order: list[str] = []
    start = time.monotonic()
    done_at: dict[str, float] = {}

    def seen(key: str, _: object) -> None:
        order.append(key)
        done_at[key] = time.monotonic() - start

    await verifier.verify_many([*preprints, *papers], on_result=seen)
    assert set(order[: len(papers)]) == {p.key for p in papers}  # none waited for arXiv
    assert max(done_at[p.key] for p in papers) < 1.0 <= min(done_at["ax1"], done_at["ax2"])
    id_lists = [parse_qs(s.query).get("id_list") for s in replay.log if s.path.startswith("/arxiv")]
    assert [i for i in id_lists if i] == [["1605.08386,astro-ph/0601001"]]  # one batch


def test_search_starts_at_the_most_selective_source_for_the_kind_of_work() -> None:
    def norm(venue: str) -> object:
        return normalize_entry(make_entry("k", "inproceedings", {"title": "T", "booktitle": venue}))

    assert field_of(norm("Advances in Neural Information Processing Systems")) is Field.COMPUTING  # type: ignore[arg-type]
    assert field_of(norm("The Lancet Oncology")) is Field.BIOMEDICINE  # type: ignore[arg-type]
    assert field_of(norm("Journal of Economic Theory")) is Field.OTHER  # type: ignore[arg-type]
    # the venue written out, abbreviated the ISO 4 way, or as its acronym
    computing = (
        "Mach. Learn.",
        "J. Mach. Learn. Res.",
        "Trans. Mach. Learn. Res.",
        "IEEE Trans. Pattern Anal. Mach. Intell.",
        "Artif. Intell.",
        "Neural Comput.",
        "International Conference on Learning Representations",
        "TACL",
        "Proceedings of ICRA 2023",
        "AI Magazine",
    )
    for venue in computing:
        assert field_of(norm(venue)) is Field.COMPUTING, venue  # type: ignore[arg-type]
    biomedicine = (
        "N. Engl. J. Med.",
        "N Engl J Med",
        "J. Biol. Chem.",
        "J Biol Chem",
        "Clin. Infect. Dis.",
        "Comput. Biol. Med.",
    )
    for venue in biomedicine:
        assert field_of(norm(venue)) is Field.BIOMEDICINE, venue  # type: ignore[arg-type]
    # a word that only looks like one of them
    other = (
        "Learning and Instruction",
        "J. Econ. Theory",
        "Mediterranean Historical Review",
        "Mediterranean Conference on Control and Automation (MED)",
        "Forum för forskning med tillämpningar",
    )
    for venue in other:
        assert field_of(norm(venue)) is Field.OTHER, venue  # type: ignore[arg-type]
    assert field_of(norm("Atti della Conferenza ai Lincei")) is Field.OTHER  # type: ignore[arg-type]
    # a conference acronym is not an abbreviation of biomedicine
    for venue in ("Computational Linguistics in the Netherlands (CLIN)", "Proceedings of CLIN"):
        assert field_of(norm(venue)) is not Field.BIOMEDICINE, venue  # type: ignore[arg-type]

    class Named:
        def __init__(self, name: str) -> None:
            self.name = name

        async def by_doi(self, doi: str) -> Lookup:
            return Lookup.not_found(self.name)

        async def search(self, query: Query) -> Lookup:
            return Lookup.not_found(self.name)

    names = ("crossref", "openalex", "semanticscholar", "pubmed", "dblp")
    verifier = Verifier([Named(n) for n in names], VerifySettings(sources=names))
    order = verifier._search_order
    # the field's own index first, then the rest of its "not found" quorum; an index of
    # another field not at all
    cs = ["dblp", "crossref", "openalex", "semanticscholar"]  # ACM's papers have DOIs
    assert order(norm("Proc. of the ACM SIGMOD Conference")) == cs  # type: ignore[arg-type]
    cs = ["dblp", "openalex", "semanticscholar", "crossref"]
    assert order(norm("Advances in Neural Information Processing Systems")) == cs  # type: ignore[arg-type]
    bio = ["pubmed", "crossref", "openalex", "semanticscholar"]
    assert order(norm("Clinical Infectious Diseases")) == bio  # type: ignore[arg-type]
    assert order(norm("Econometrica")) == list(names)  # type: ignore[arg-type]


async def test_advertised_concurrency_is_adopted_never_raised() -> None:
    bucket = TokenBucket(Limit(10.0, 1, 3))
    bucket.adapt({"x-concurrency-limit": "5"})
    assert bucket.concurrency == 3  # never above the published seed
    bucket.adapt({"x-concurrency-limit": "1"})
    assert bucket.concurrency == 1
    for odd in ("\u00b2", "\u0661", "9" * 40, "-1", "1.5"):  # not a count: ignored, no error
        bucket.adapt({"x-concurrency-limit": odd})
        assert bucket.concurrency == 1
    slots = Slots(3)
    active: list[int] = []

    async def one() -> None:
        async with slots:
            active.append(slots.active)
            await asyncio.sleep(0.01)

    first = asyncio.ensure_future(one())
    await asyncio.sleep(0)
    slots.lower(1)
    await asyncio.gather(first, *(one() for _ in range(4)))
    assert max(active) == 1


async def test_advertised_concurrency_holds_over_http(replay: ReplayServer) -> None:
    # Crossref's recorded public-pool headers (habanero cassette test_works_with_one_id.yaml)
    replay.extra_headers = {"/crossref": {"x-concurrency-limit": "1"}}
    replay.latency = 0.05
    async with HttpClient(limits={"crossref": Limit(100.0, 100, 4)}) as http:
        src = CrossrefSource(http, replay.base_url("crossref"), mailto="t@example.org")
        await src.by_doi("10.1371/journal.pone.0033693")  # learns the cap
        dois = [str(m["DOI"]) for m in recorded_crossref_works()]
        await asyncio.gather(*(src.by_doi(d) for d in dois))
    stamps = sorted(s.at for s in replay.log[1:])
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert min(gaps) >= 0.04  # one in flight at a time: each waited for the last answer


async def test_a_cancelled_run_starts_no_batch(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    entries = [entry_for(i, m) for i, m in enumerate(recorded_crossref_works())]
    cancel = asyncio.Event()
    cancel.set()
    verdicts = await crossref_verifier(replay, replay_http, None).verify_many(
        entries, cancel_event=cancel
    )
    assert verdicts == {} and replay.log == []


async def test_a_failed_batch_settles_nothing_its_entries_ask_on_their_own(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    entries = [entry_for(i, m) for i, m in enumerate(recorded_crossref_works())]
    alone = {e.key: await crossref_verifier(replay, replay_http, None).verify(e) for e in entries}
    replay.clear()
    # the batch request and its two retries get a 503; the single look-ups after it do not
    replay.inject("503", path="/crossref/works", times=3)
    planned = await crossref_verifier(replay, replay_http, None).verify_many(entries)
    assert planned == alone
    assert [s.path for s in replay.log[:3]] == ["/crossref/works"] * 3
    assert replay.requests_to("/crossref/works/") == len(entries)


async def test_an_answer_taken_before_its_batch_is_sent_still_arrives(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # the editor's workers run while the plan is made: one may take its future first
    msg = recorded_crossref_works()[0]
    sources = {"crossref": CrossrefSource(replay_http, replay.base_url("crossref"))}
    ahead = Ahead()
    ahead.add(sources, normalize_entry(entry_for(0, msg)))
    taken = ahead.take("crossref", "by_doi", str(msg["DOI"]))
    assert taken is not None and not taken.done()
    ahead.flush(sources)
    answer = await asyncio.wait_for(taken, timeout=10)
    assert answer is not None and answer.records[0].doi == str(msg["DOI"]).lower()


async def test_a_cancelled_plan_settles_every_future() -> None:
    class Slow:
        name = "crossref"

        async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
            await asyncio.sleep(60)
            return {}

    ahead = Ahead()
    entry = make_entry("k", "article", {"title": "T", "doi": "10.1371/journal.pone.0033693"})
    ahead.add({"crossref": Slow()}, normalize_entry(entry))
    taken = ahead.take("crossref", "by_doi", "10.1371/journal.pone.0033693")
    ahead.flush({"crossref": Slow()})
    await asyncio.sleep(0)
    ahead.cancel()
    assert taken is not None and await asyncio.wait_for(taken, timeout=1) is None


# -- look-ups made on the way, coalesced into batch requests ----------------------------------


async def test_notices_asked_together_go_in_one_filter_request(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    # works matched at another source, each asking Crossref for the notices about it:
    # one filter=updates:a,updates:b request (Crossref ORs same-name filters), each DOI
    # answered by the notices updating it (none here, as Crossref answers for these DOIs),
    # kept in the cache under its own notices look-up
    serve_batches(replay)
    dois = [str(m["DOI"]).lower() for m in recorded_crossref_works()[:3]]
    cache = Cache(tmp_path / "cache")
    source = CachedSource(
        CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org"), cache
    )
    coalescer = Coalescer(budget=10.0)
    answers = await asyncio.gather(
        *(coalescer.ask(source, "crossref", "notices", d) for d in [*dois, dois[0].upper()])
    )
    (seen,) = replay.log
    params = parse_qs(seen.query)
    assert params["filter"] == [",".join(f"updates:{d}" for d in dois)]
    assert params["rows"] == ["1000"]
    assert [a.outcome if a else None for a in answers] == [Outcome.NOT_FOUND] * 4
    replay.log.clear()
    assert all([(await source.notices(d)).from_cache for d in dois]) and replay.log == []
    cache.close()


async def test_lookups_asked_together_go_in_one_batch_request(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    # OpenAlex serves its recorded works page for /works queries: DOIs on it are FOUND,
    # others NOT_FOUND, as a filter=doi: answer lists only the works it matched
    page = json.loads(recorded("openalex", "refchecker_search_works.json"))
    present = [w["doi"].split("doi.org/")[1].lower() for w in page["results"] if w.get("doi")][:3]
    absent = "10.1371/journal.pone.0000030"
    cache = Cache(tmp_path / "cache")
    source = CachedSource(OpenAlexSource(replay_http, replay.base_url("openalex")), cache)
    coalescer = Coalescer(budget=10.0)
    answers = await asyncio.gather(
        *(coalescer.ask(source, "openalex", "by_doi", d) for d in [*present, absent, present[0]])
    )
    (seen,) = replay.log  # five look-ups, one request
    assert parse_qs(seen.query)["filter"] == ["doi:" + "|".join([*present, absent])]
    assert [a.outcome if a else None for a in answers] == [Outcome.FOUND] * 3 + [
        Outcome.NOT_FOUND,
        Outcome.FOUND,
    ]
    assert [a.records[0].doi for a in answers[:3] if a] == present
    # each answer is kept as the single look-up's: asked again, nothing is sent
    replay.log.clear()
    again = await coalescer.ask(source, "openalex", "by_doi", present[1])
    assert again is not None and again.from_cache and replay.log == []
    assert (await source.by_doi(absent)).from_cache
    cache.close()


async def test_a_failed_batch_settles_nothing(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    replay.inject("503", path="/openalex/works", times=10)
    source = OpenAlexSource(replay_http, replay.base_url("openalex"))
    coalescer = Coalescer(budget=10.0)
    answers = await asyncio.gather(
        *(coalescer.ask(source, "openalex", "by_doi", d) for d in ["10.1/a", "10.1/b"])
    )
    assert answers == [None, None]  # each entry then asks on its own
    assert {s.path for s in replay.log} == {"/openalex/works"}


async def test_batches_wait_for_the_one_in_flight(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    replay.latencies = {"/openalex/works": 0.3}
    source = OpenAlexSource(replay_http, replay.base_url("openalex"))
    coalescer = Coalescer(budget=10.0)
    first = asyncio.ensure_future(coalescer.ask(source, "openalex", "by_doi", "10.1/a"))
    await asyncio.sleep(0.1)  # the first batch is on the wire: these wait for the next one
    later = [
        asyncio.ensure_future(coalescer.ask(source, "openalex", "by_doi", d))
        for d in ("10.1/b", "10.1/c", "10.1/d")
    ]
    await asyncio.gather(first, *later)
    filters = [parse_qs(s.query)["filter"][0] for s in replay.log]
    assert filters == ["doi:10.1/a", "doi:10.1/b|10.1/c|10.1/d"]
    assert coalescer.batches == {"openalex": 2}


async def test_advertised_host_limits_hold_across_the_single_and_list_lanes(
    replay: ReplayServer,
) -> None:
    # Crossref's recorded public-pool headers (habanero cassette test_works_with_one_id.yaml)
    replay.extra_headers = {
        "/crossref": {
            "x-rate-limit-limit": "5",
            "x-rate-limit-interval": "1s",
            "x-concurrency-limit": "1",
        }
    }
    replay.latency = 0.05
    # each lane alone allows 100 a second, one in flight: the lanes' queues form before any
    # answer has advertised the host's limits, which then hold for the requests still queued
    roomy = Limit(100.0, 1, 1)
    async with HttpClient(limits={"crossref": roomy, "crossref-query": roomy}) as http:
        src = CrossrefSource(http, replay.base_url("crossref"), mailto="t@example.org")
        dois = [str(m["DOI"]) for m in recorded_crossref_works()][:6]
        singles = [src.by_doi(d) for d in dois]
        lists = [src.search(Query("ecology", (f"Author{i}",))) for i in range(6)]
        await asyncio.gather(*singles, *lists)
    # the first request of each lane went out before any answer
    seen = sorted(replay.log, key=lambda s: s.at)[2:]
    assert {s.path for s in seen} >= {"/crossref/works"}  # both lanes were used
    assert any(s.path.startswith("/crossref/works/") for s in seen)
    stamps = [s.at for s in seen]
    gaps = [b - a for a, b in itertools.pairwise(stamps)]
    assert min(gaps) >= 0.04  # one in flight over both lanes: each waited for the last answer
    # and never more than 5 a second over both lanes: sent 0.2 s apart, so no six requests
    # within a second, and no two much closer than 0.2 s (the stamps are taken where the
    # server reads the requests, a few milliseconds late on a loaded machine)
    assert all(b - a >= 0.95 for a, b in zip(stamps, stamps[5:], strict=False)), stamps
    assert min(gaps) >= 0.15, gaps
    assert http.host_gate("127.0.0.1", "crossref-query") is http.host_gate("127.0.0.1", "crossref")


async def test_journal_articles_dois_are_asked_at_openalex_in_the_plan(
    replay: ReplayServer, replay_http: HttpClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the later steps' batches are sent for any number of ids here (see
    # test_a_small_plan_sends_no_batch_for_the_later_steps for the threshold)
    monkeypatch.setattr(plan, "LATER_FROM", 1)
    # every journal article matched through Crossref gets OpenAlex's record of its DOI (the
    # venue's indexes): planned with the identifiers, one filter=doi: request for them all
    serve_batches(replay)
    messages = recorded_crossref_works()
    entries = [entry_for(i, m) for i, m in enumerate(messages)]
    sources = [
        CrossrefSource(replay_http, replay.base_url("crossref"), mailto="t@example.org"),
        DoiSource(replay_http, replay.base_url("doi")),
        OpenAlexSource(replay_http, replay.base_url("openalex")),
    ]
    settings = VerifySettings(sources=("crossref", "doi", "openalex"))
    verifier = Verifier(sources, settings, today=TODAY)
    verdicts = await verifier.verify_many(entries)
    assert len(verdicts) == len(entries)
    # (the journals themselves are asked by ISSN, /openalex/sources/issn:, once each)
    openalex = [s for s in replay.log if s.path.startswith("/openalex/works")]
    assert [s.path for s in openalex] == ["/openalex/works"]  # no /works/doi: look-up
    assert parse_qs(openalex[0].query)["filter"] == [
        "doi:" + "|".join(str(m["DOI"]).lower() for m in messages)
    ]


async def test_five_doi_entries_cost_one_batch_request_per_source(
    replay: ReplayServer, replay_http: HttpClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the later steps' batches are sent for any number of ids here (see
    # test_a_small_plan_sends_no_batch_for_the_later_steps for the threshold)
    monkeypatch.setattr(plan, "LATER_FROM", 1)
    # every DOI of the bibliography is known up front: Crossref, OpenAlex and Semantic
    # Scholar each get one batch request for the five, whatever steps follow
    serve_batches(replay)
    messages = recorded_crossref_works()[:5]
    entries = [entry_for(i, m) for i, m in enumerate(messages)]
    verdicts = await _four_sources(replay, replay_http).verify_many(entries)
    assert len(verdicts) == 5
    works = [s for s in replay.log if s.path.startswith(("/crossref/works", "/openalex/works"))]
    assert sorted(s.path for s in works) == ["/crossref/works", "/openalex/works"]
    dois = [str(m["DOI"]).lower() for m in messages]
    (openalex,) = [s for s in works if s.path == "/openalex/works"]
    assert parse_qs(openalex.query)["filter"] == ["doi:" + "|".join(dois)]
    s2 = [s for s in replay.log if s.path.startswith("/semanticscholar")]
    assert [s.path for s in s2] == ["/semanticscholar/graph/v1/paper/batch"]


async def test_arxiv_ids_go_to_semantic_scholar_in_the_plan(
    replay: ReplayServer, replay_http: HttpClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the later steps' batches are sent for any number of ids here (see
    # test_a_small_plan_sends_no_batch_for_the_later_steps for the threshold)
    monkeypatch.setattr(plan, "LATER_FROM", 1)
    # an arXiv id is asked at arXiv (id_list) and at Semantic Scholar (/paper/batch) ahead:
    # its record stands in when arXiv has none and names the published venue
    entries = [
        make_entry(f"a{i}", "misc", {"title": "T", "eprint": ident, "archiveprefix": "arXiv"})
        for i, ident in enumerate(["0808.05394", "1707.08567"])
    ]
    sources = [
        ArxivSource(replay_http, replay.base_url("arxiv")),
        SemanticScholarSource(replay_http, replay.base_url("semanticscholar")),
    ]
    settings = VerifySettings(sources=("arxiv", "semanticscholar"))
    await Verifier(sources, settings, today=TODAY).verify_many(entries)
    s2 = [s for s in replay.log if s.path.startswith("/semanticscholar/graph/v1/paper/")]
    looked_up = [s for s in s2 if not s.path.endswith("/search/match")]  # not the searches
    # the first is the plan's, for both ids (the replay's recorded batch answer holds four
    # papers, so it settles nothing here and the id arXiv lacks is then asked on its own)
    assert looked_up[0].path == "/semanticscholar/graph/v1/paper/batch"
    assert json.loads(looked_up[0].body)["ids"] == ["ARXIV:0808.05394", "ARXIV:1707.08567"]
    id_lists = [parse_qs(s.query).get("id_list") for s in replay.log if s.path.startswith("/arxiv")]
    assert [i for i in id_lists if i] == [["0808.05394,1707.08567"]]


async def test_one_doi_entry_costs_its_single_look_up(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # a save that re-checks one entry: its DOI's own look-up, no batch of one, and no
    # batch for the later steps the entry does not reach
    serve_batches(replay)
    msg = next(m for m in recorded_crossref_works() if m.get("type") != "journal-article")
    entry = entry_for(0, msg)
    verdicts = await _four_sources(replay, replay_http).verify_many([entry])
    assert verdicts[entry.key].status.value == "verified"
    crossref = [s for s in replay.log if s.path.startswith("/crossref/")]
    assert [s.path for s in crossref] == [f"/crossref/works/{msg['DOI']}"]
    assert "filter" not in parse_qs(crossref[0].query)
    others = [s.path for s in replay.log if not s.path.startswith("/crossref/")]
    assert others == []  # neither OpenAlex nor Semantic Scholar: nothing needed them


async def test_a_small_plan_sends_no_batch_for_the_later_steps(
    replay: ReplayServer, replay_http: HttpClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fewer DOIs than LATER_FROM: OpenAlex and Semantic Scholar are asked only by the
    # entries whose steps need them, with the same verdicts as when the plan asks ahead
    messages = recorded_crossref_works()[: plan.LATER_FROM - 1]
    assert len(messages) == plan.LATER_FROM - 1
    entries = [entry_for(i, m) for i, m in enumerate(messages)]
    serve_batches(replay)
    lazy = await _four_sources(replay, replay_http).verify_many(entries)
    s2_batches = [s for s in replay.log if s.path.endswith("/paper/batch")]
    openalex = [s for s in replay.log if s.path.startswith("/openalex/works")]
    asked = {
        doi
        for s in openalex
        for value in parse_qs(s.query).get("filter", [])
        for doi in value.removeprefix("doi:").split("|")
    } | {s.path.removeprefix("/openalex/works/doi:").lower() for s in openalex if "doi:" in s.path}
    journals = {str(m["DOI"]).lower() for m in messages if m.get("type") == "journal-article"}
    assert asked == journals  # the venue's indexes of a journal article, nothing else
    replay.clear()
    serve_batches(replay)
    monkeypatch.setattr(plan, "LATER_FROM", 1)
    ahead = await _four_sources(replay, replay_http).verify_many(entries)
    assert lazy == ahead
    assert s2_batches == [] and any(s.path.endswith("/paper/batch") for s in replay.log)


async def test_a_batch_of_one_settles_on_a_not_found_never_on_a_failure() -> None:
    # the single look-up standing in for a batch of one: its "not found" is an answer, its
    # failure is not (the entry then asks on its own, within its own budget)
    answers = {
        "10.5555/gone": Lookup.not_found("crossref"),
        "10.5555/down": Lookup.failed("crossref", "timeout"),
    }

    class Single:
        async def by_doi(self, doi: str) -> Lookup:
            return answers[doi]

        async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
            raise AssertionError("a batch of one is not sent as a batch")

    for doi, expected in (("10.5555/gone", Outcome.NOT_FOUND), ("10.5555/down", None)):
        ahead = Ahead()
        entry = normalize_entry(make_entry("k", "article", {"title": "T", "doi": doi}))
        ahead.start({"crossref": Single()}, [entry])
        future = ahead.take("crossref", "by_doi", doi)
        assert future is not None
        got = await future
        assert (got.outcome if got is not None else None) is expected


async def test_ids_left_out_of_a_small_later_batch_are_planned_again_later() -> None:
    class Batches:
        def __init__(self) -> None:
            self.asked: list[list[str]] = []

        async def by_doi(self, doi: str) -> Lookup:
            return Lookup.not_found("openalex")

        async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
            self.asked.append(list(dois))
            return {d: Lookup.not_found("openalex") for d in dois}

    openalex = Batches()
    ahead = Ahead()
    one = normalize_entry(make_entry("k0", "article", {"title": "T", "doi": "10.5555/0"}))
    ahead.start({"openalex": openalex}, [one])  # one id: below LATER_FROM, not sent
    assert openalex.asked == [] and ahead.take("openalex", "by_doi", "10.5555/0") is None
    many = [
        normalize_entry(make_entry(f"k{n}", "article", {"title": "T", "doi": f"10.5555/{n}"}))
        for n in range(plan.LATER_FROM)
    ]
    ahead.start({"openalex": openalex}, many)  # the first id again, with the others
    await asyncio.sleep(0)
    assert len(openalex.asked) == 1 and "10.5555/0" in openalex.asked[0]


async def test_batch_requests_take_the_sources_request_slot() -> None:
    # settings.concurrency bounds every request to a source: the plan's batches (two of
    # Crossref's 20 DOIs, started together) and the coalesced ones go one at a time
    class Counting:
        name = "crossref"

        def __init__(self) -> None:
            self.in_flight = 0
            self.most = 0

        async def _sent(self) -> None:
            self.in_flight += 1
            self.most = max(self.most, self.in_flight)
            await asyncio.sleep(0.05)
            self.in_flight -= 1

        async def by_doi(self, doi: str) -> Lookup:
            await self._sent()
            return Lookup.not_found("crossref")

        async def by_dois(self, dois: list[str]) -> dict[str, Lookup]:
            await self._sent()
            return {d: Lookup.not_found("crossref") for d in dois}

    crossref = Counting()
    ahead = Ahead(lambda name: slot)
    slot = asyncio.Semaphore(1)
    entries = [
        normalize_entry(make_entry(f"k{n}", "article", {"title": "T", "doi": f"10.5555/{n}"}))
        for n in range(40)
    ]
    ahead.start({"crossref": crossref}, entries)
    futures = [ahead.take("crossref", "by_doi", f"10.5555/{n}") for n in range(40)]
    await asyncio.gather(*(f for f in futures if f is not None))
    assert ahead.batches == {"crossref": 2} and crossref.most == 1

    openalex = Counting()
    coalescer = Coalescer(budget=10.0, slot=lambda name: slot)
    async with slot:  # an entry's own request is on the wire: the batch waits for it
        asked = asyncio.ensure_future(coalescer.ask(openalex, "openalex", "by_doi", "10.1/a"))
        await asyncio.sleep(0.1)
        assert openalex.in_flight == 0 and not asked.done()
    assert await asked is not None and openalex.most == 1


async def test_a_cancelled_entry_does_not_cancel_another_waiting_for_the_same_planned_answer(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """Two entries citing one DOI wait for its planned answer; the editor cancels the
    first (its text changed): the second still gets its verdict, where the shared answer
    was cancelled with the first and the second was cancelled too."""
    msg = recorded_crossref_works()[0]
    first, second = entry_for(0, msg), entry_for(1, msg)
    verifier = crossref_verifier(replay, replay_http, None)
    replay.latency = 0.4
    await verifier.prefetch([first, second])  # the batch of one is on its way
    a = asyncio.create_task(verifier.verify(first))
    b = asyncio.create_task(verifier.verify(second))
    await asyncio.sleep(0.1)  # both wait for the planned answer
    a.cancel()
    verdict = await asyncio.wait_for(b, 10)
    assert a.cancelled()
    assert verdict.match is not None and verdict.match.doi == str(msg["DOI"]).lower()


async def test_a_planned_batch_is_held_to_an_entry_s_budget(hostile: HostileServer) -> None:
    """Crossref answers the plan's batch with 429 and ``Retry-After: 2`` (a wait within the
    longest one honoured); with a one-second entry budget, the batch fails at once and its
    entries are unverified within their budgets, where the batch retried three times (six
    seconds; five minutes for ``Retry-After: 100``) while every entry waited for it."""
    hostile.route("/works", Behaviour("429", retry_after="2"))
    http = HttpClient(timeout=2)
    source = CrossrefSource(http, hostile.url, mailto="t@example.org")
    settings = VerifySettings(sources=("crossref",), entry_budget=1.0)
    verifier = Verifier([source], settings, today=TODAY)
    entries = [
        make_entry(
            f"k{i}", "article", {"title": f"T{i}", "author": "Doe, J.", "doi": f"10.1371/x.{i}"}
        )
        for i in range(3)
    ]
    started = time.monotonic()
    verdicts = await verifier.verify_many(entries)
    await http.aclose()
    assert time.monotonic() - started < 3.0
    assert {v.status for v in verdicts.values()} == {Status.UNVERIFIED}
    assert all("rate limited" in (v.reason or "") for v in verdicts.values())
    assert len(hostile.seen("/works")) == 1  # the batch, not retried
