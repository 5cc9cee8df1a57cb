"""The verification engine over real sources replayed on loopback, and over in-memory
sources holding real recorded records (tests/data/accuracy)."""

from __future__ import annotations

import asyncio
import sys
from datetime import date
from pathlib import Path

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Severity, Status, Tier, Verdict
from citewarden.parsing.latex_decode import decode_latex
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier, skip_reason
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import Lookup, Query
from citewarden.verify.sources.arxiv import ArxivSource
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.doi import DoiSource
from paths import DATA
from replay import ReplayServer, recorded_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench" / "accuracy"))
from memory_source import MemorySource, load_records

TODAY = date(2026, 11, 29)


replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


@pytest.fixture
def server(replay: ReplayServer) -> ReplayServer:
    return replay


@pytest.fixture
def http(replay_http: HttpClient) -> HttpClient:
    return replay_http


def online(srv: ReplayServer, http: HttpClient, *names: str) -> Verifier:
    made = {
        "crossref": lambda: CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        "doi": lambda: DoiSource(http, srv.base_url("doi")),
        "arxiv": lambda: ArxivSource(http, srv.base_url("arxiv")),
    }
    settings = VerifySettings(sources=names, concurrency=4)
    return Verifier([made[n]() for n in names], settings, today=TODAY)


# ----------------------------------------------------------------------------------------
# Over the replay server (real httpx client, real recorded responses)
# ----------------------------------------------------------------------------------------


async def test_doi_entry_written_by_hand_is_verified_with_its_correction_notice(
    server: ReplayServer, http: HttpClient
) -> None:
    entry = make_entry(
        "sadasivan2012",
        "article",
        {
            "title": "Methylphenidate exposure induces dopamine neuron loss and activation of "
            "microglia in the basal ganglia of mice",
            "author": "Sadasivan, Shankar and Pond, Brooks B. and others",
            "journal": "{PLoS} {ONE}",
            "year": "2012",
            "volume": "7",
            "number": "3",
            "pages": "e33693",
            "doi": "https://doi.org/10.1371/journal.pone.0033693",
        },
    )
    v = await online(server, http, "crossref", "doi").verify(entry)
    assert v.status is Status.VERIFIED and v.tier is Tier.D, v.issues
    assert v.match is not None and v.match.doi == "10.1371/journal.pone.0033693"
    assert [i.code for i in v.issues] == [Code.CORRECTED]
    assert server.requests_to("/crossref/works/10.1371") == 1


async def test_wrong_volume_is_corrected_from_the_identified_record(
    server: ReplayServer, http: HttpClient
) -> None:
    entry = make_entry(
        "sadasivan2012",
        "article",
        {
            "title": "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of "
            "Microglia in the Basal Ganglia of Mice",
            "author": "Shankar Sadasivan and Brooks B. Pond and others",
            "journal": "PLoS ONE",
            "year": "2012",
            "volume": "9",
            "pages": "e33693",
            "doi": "10.1371/journal.pone.0033693",
        },
    )
    v = await online(server, http, "crossref", "doi").verify(entry)
    assert v.status is Status.MISMATCH and v.tier is Tier.M
    assert [i.code for i in v.issues] == [Code.VOLUME_MISMATCH, Code.CORRECTED]
    assert v.corrections == {"volume": "7"}


async def test_search_candidate_must_agree_before_it_verifies(
    server: ReplayServer, http: HttpClient
) -> None:
    item = recorded_json("crossref", "test-works__test_works_field_queries.json")["message"][
        "items"
    ][0]
    authors = " and ".join(f"{a['given']} {a['family']}" for a in item["author"])
    found = make_entry("trap", "article", {"title": item["title"][0], "author": authors})
    made_up = make_entry(
        "fake", "article", {"title": "The forecast trap of stochastic rivers", "author": authors}
    )
    verifier = online(server, http, "crossref", "doi")
    ok = await verifier.verify(found)
    assert ok.status is Status.VERIFIED
    assert ok.match is not None and ok.match.doi == item["DOI"].lower()
    assert ok.corrections.get("doi") == item["DOI"].lower()
    bad = await verifier.verify(made_up)  # the same recorded hits come back: none agrees
    assert bad.status is Status.NOT_FOUND and bad.tier is Tier.H
    assert Code.NOT_FOUND in {i.code for i in bad.issues}


async def test_doi_that_doi_org_does_not_know_is_reported(
    server: ReplayServer, http: HttpClient
) -> None:
    entry = make_entry(
        "foo",
        "article",
        {"title": "Gravity waves from nowhere", "author": "Roe, Richard", "doi": "10.1126/foo"},
    )
    v = await online(server, http, "crossref", "doi").verify(entry)
    assert Code.DOI_NOT_FOUND in {i.code for i in v.issues}
    assert v.status in (Status.NOT_FOUND, Status.MISMATCH) and v.tier is Tier.H


async def test_arxiv_id_is_looked_up_at_arxiv(server: ReplayServer, http: HttpClient) -> None:
    entry = make_entry(
        "stanley",
        "misc",
        {
            "title": "Heat-bath random walks with {M}arkov bases",
            "author": "Stanley, Caprice and Windisch, Tobias",
            "year": "2016",
            "eprint": "1605.08386",
            "archiveprefix": "arXiv",
        },
    )
    v = await online(server, http, "crossref", "arxiv").verify(entry)
    assert v.status is Status.VERIFIED, v.issues
    assert v.match is not None and v.match.source == "arxiv"
    assert server.requests_to("/arxiv/api/query") == 1


async def test_service_errors_give_unverified_never_not_found(
    server: ReplayServer, http: HttpClient
) -> None:
    server.inject("503", path="/crossref", times=50, retry_after="0")
    entry = make_entry(
        "x", "article", {"title": "Some real-looking title of a paper", "author": "Smith, Ann"}
    )
    v = await online(server, http, "crossref", "doi").verify(entry)
    assert v.status is Status.UNVERIFIED and v.tier is Tier.D
    assert v.reason is not None and "crossref" in v.reason
    assert [i.code for i in v.issues] == [Code.UNVERIFIED]


# ----------------------------------------------------------------------------------------
# Over in-memory sources of real records
# ----------------------------------------------------------------------------------------

RECORDS = load_records(DATA / "accuracy" / "records.jsonl")
BY_DOI = {r.doi: r for r in RECORDS}


def memory_verifier(**settings: object) -> tuple[Verifier, MemorySource]:
    crossref = MemorySource("crossref", RECORDS)
    doi = MemorySource("doi", RECORDS, searchable=False)
    options = {"sources": ("crossref", "doi"), "concurrency": 3, **settings}
    return Verifier([crossref, doi], VerifySettings(**options), today=TODAY), crossref  # type: ignore[arg-type]


def test_skipped_entries() -> None:
    settings = VerifySettings(ignore_entries=("mine",))
    web = make_entry("w", "online", {"title": "Docs", "url": "https://example.org"})
    page = make_entry("p", "misc", {"title": "A page", "url": "https://example.org"})
    software = make_entry("s", "software", {"title": "tool"})
    mine = make_entry("mine", "article", {"title": "x", "doi": "10.1/x"})
    dataset_with_doi = make_entry("d", "dataset", {"title": "data", "doi": "10.5061/dryad.x"})
    assert skip_reason(web, settings) and skip_reason(page, settings)
    assert skip_reason(software, settings) and skip_reason(mine, settings)
    assert skip_reason(dataset_with_doi, settings) is None


async def test_verify_many_reports_each_result_and_honours_cancel() -> None:
    verifier, _ = memory_verifier()
    recs = [r for r in RECORDS if r.authors and r.venue][:6]
    entries = [
        make_entry(
            f"e{i}",
            "article",
            {
                "title": r.title,
                "author": f"{r.authors[0].family}, {r.authors[0].given} and others",
                "year": str(r.year),
            },
        )
        for i, r in enumerate(recs)
    ]
    seen: list[str] = []
    results = await verifier.verify_many(entries, on_result=lambda k, v: seen.append(k))
    assert sorted(seen) == sorted(results) == sorted(e.key for e in entries)
    assert all(v.status is Status.VERIFIED for v in results.values()), results
    cancel = asyncio.Event()
    cancel.set()
    assert await verifier.verify_many(entries, cancel_event=cancel) == {}


async def test_raising_source_is_isolated() -> None:
    class Broken:
        name = "crossref"

        async def by_doi(self, doi: str) -> Lookup:
            raise RuntimeError("boom")

        async def search(self, query: Query) -> Lookup:
            raise RuntimeError("boom")

    verifier = Verifier([Broken()], VerifySettings(sources=("crossref",)), today=TODAY)
    v = await verifier.verify(make_entry("k", "article", {"title": "A title", "doi": "10.1/x"}))
    assert v.status is Status.UNVERIFIED


async def test_offline_snapshot_style_partial_source_alone_cannot_say_not_found() -> None:
    snapshot = MemorySource("snapshot", RECORDS[:10])
    verifier = Verifier([snapshot], VerifySettings(sources=()), today=TODAY)
    v = await verifier.verify(
        make_entry(
            "k",
            "article",
            {"title": "Nothing like this exists anywhere at all", "author": "Roe, R."},
        )
    )
    assert v.status is Status.UNVERIFIED


@pytest.mark.parametrize("kind", ["chimeric", "doi-other-work", "fabricated", "near-miss-title"])
async def test_labelled_manipulations_are_detected(kind: str) -> None:
    import json

    rows = [
        json.loads(line)
        for line in (DATA / "accuracy" / "entries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    chosen = [r for r in rows if r["kind"] == kind][:8]
    verifier, _ = memory_verifier()
    verdicts: dict[str, Verdict] = await verifier.verify_many(
        [make_entry(r["key"], r["entry_type"], r["fields"]) for r in chosen]
    )
    for r in chosen:
        v = verdicts[r["key"]]
        assert r["expect_code"] in {i.code.value for i in v.issues}, (r["key"], v.issues)
        for name, value in r["expect_corrections"].items():
            got = v.corrections.get(name)  # BibTeX text: a title's capitals braced
            assert got is not None and decode_latex(got).lower() == value.lower(), (r, got)


async def test_labelled_valid_entries_raise_no_alarm() -> None:
    import json

    rows = [
        json.loads(line)
        for line in (DATA / "accuracy" / "entries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    valid = [r for r in rows if r["label"] == "valid"][:60]
    verifier, _ = memory_verifier()
    verdicts = await verifier.verify_many(
        [make_entry(r["key"], r["entry_type"], r["fields"]) for r in valid]
    )
    bad = {k: v.issues for k, v in verdicts.items() if v.status is not Status.VERIFIED}
    assert bad == {}


async def test_preprint_with_a_published_version_gets_a_suggestion() -> None:
    preprint = BY_DOI["10.1002/essoar.10504562.1"]  # real record: relation is-preprint-of
    authors = " and ".join(f"{p.family}, {p.given}" for p in preprint.authors)
    verifier, _ = memory_verifier()
    v = await verifier.verify(
        make_entry(
            "p", "misc", {"title": preprint.title, "author": authors, "year": str(preprint.year)}
        )
    )
    assert v.status is Status.VERIFIED and v.tier is Tier.D
    note = next(i for i in v.issues if i.code is Code.PREPRINT_PUBLISHED)
    assert "10.1029/2020ms002386" in note.message


async def test_arxiv_is_searched_only_for_entries_that_point_at_it() -> None:
    calls: list[str] = []

    class Counting(MemorySource):
        async def search(self, query: Query) -> Lookup:
            calls.append(self.name)
            return await super().search(query)

    sources = [Counting("crossref", RECORDS[:50]), Counting("arxiv", RECORDS[:50])]
    verifier = Verifier(sources, VerifySettings(sources=("crossref", "arxiv")), today=TODAY)
    await verifier.verify(
        make_entry("a", "article", {"title": "No such paper about rivers", "author": "Roe, R."})
    )
    assert calls == ["crossref"]
    calls.clear()
    await verifier.verify(
        make_entry(
            "b",
            "article",
            {
                "title": "No such paper about rivers",
                "author": "Roe, R.",
                "journal": "arXiv preprint",
            },
        )
    )
    assert calls == ["crossref", "arxiv"]


async def test_unchecked_doi_that_differs_from_the_found_work_is_flagged() -> None:
    rec = next(r for r in RECORDS if r.doi == "10.1111/2041-210x.12469")

    class DoiDown(MemorySource):
        async def by_doi(self, doi: str) -> Lookup:
            return Lookup.failed(self.name, "timeout")

    verifier = Verifier(
        [DoiDown("crossref", RECORDS)], VerifySettings(sources=("crossref",)), today=TODAY
    )
    fields = {
        "title": rec.title,
        "author": " and ".join(f"{p.family}, {p.given}" for p in rec.authors),
        "doi": "10.1111/2041-210x.99999",
    }
    v = await verifier.verify(make_entry("k", "article", fields))
    assert v.status is Status.MISMATCH
    assert v.corrections.get("doi") == rec.doi
    fields["doi"] = rec.doi or ""
    ok = await verifier.verify(make_entry("k2", "article", fields))
    assert ok.status is Status.VERIFIED


async def test_cancel_during_a_run_keeps_finished_verdicts_only() -> None:
    verifier, _ = memory_verifier(concurrency=1)
    recs = [r for r in RECORDS if r.authors and r.venue][:8]
    entries = [
        make_entry(
            f"c{i}",
            "article",
            {"title": r.title, "author": f"{r.authors[0].family}, {r.authors[0].given}"},
        )
        for i, r in enumerate(recs)
    ]
    cancel = asyncio.Event()

    def stop_after_two(key: str, verdict: Verdict) -> None:
        if len(done) == 1:
            cancel.set()
        done.append(key)

    done: list[str] = []
    results = await verifier.verify_many(entries, on_result=stop_after_two, cancel_event=cancel)
    assert 2 <= len(results) < len(entries)
    assert set(results) == set(done)


async def test_a_failing_listener_does_not_stop_verification() -> None:
    verifier, _ = memory_verifier()
    recs = [r for r in RECORDS if r.authors][:3]
    entries = [make_entry(f"l{i}", "article", {"title": r.title}) for i, r in enumerate(recs)]

    def boom(key: str, verdict: Verdict) -> None:
        raise ValueError("listener bug")

    results = await verifier.verify_many(entries, on_result=boom)
    assert len(results) == 3


# ----------------------------------------------------------------------------------------
# Real references answered from refchecker's recorded API cache
# ----------------------------------------------------------------------------------------


async def test_real_references_with_recorded_answers() -> None:
    import real_refs

    entries = {e.key: e for e in real_refs.entries()}
    settings = VerifySettings(sources=("crossref", "openalex", "semanticscholar", "dblp"))
    verifier = Verifier(real_refs.sources(), settings, today=real_refs.AS_OF)

    # Crossref lists one author of the PDB paper; Semantic Scholar has all eight
    pdb = await verifier.verify(entries["H8tismBT3Q-006"])
    assert pdb.status is Status.VERIFIED and pdb.tier is Tier.D, pdb.issues
    # cited with the first arXiv title; the arXiv id's record has the later one
    mathvista = await verifier.verify(entries["izbBqTL8vb-018"])
    assert mathvista.status is Status.VERIFIED, mathvista.issues
    # the cited arXiv id is that of an astrophysics paper
    tablet = await verifier.verify(entries["ioYdy7aghG-041"])
    assert [i.code for i in tablet.issues] == [Code.DOI_OTHER_WORK]
    assert tablet.issues[0].field == "url" and "Magnetar" in tablet.issues[0].message
    # "Adam" with made-up authors: dblp holds the title under Kingma and Ba, Semantic
    # Scholar's recorded search has no match, OpenAlex's was not recorded (a failure).  One
    # source is not enough while another did not answer: it may hold a work of that title
    # by the cited authors.  The reason says what is known.
    adam = await verifier.verify(entries["5vdw8Qmrre-003"])
    assert adam.status is Status.UNVERIFIED and Code.CHIMERIC not in {i.code for i in adam.issues}
    assert adam.reason is not None and adam.reason.startswith(
        "dblp lists this title under other authors (“Adam: A Method for Stochastic Optimization” "
        "(Kingma, 2015))"
    )
    assert "openalex" in adam.reason
    # a real work (Ailon et al., SIAM J. Comput. 2011) whose title a later book chapter has
    # at dblp, Crossref's and OpenAlex's answers not recorded: no chimeric verdict
    improving = await verifier.verify(entries["JFY9MZtWTu-002"])
    assert improving.status is Status.UNVERIFIED, improving.issues
    # two sources holding the cited title under other authors settle it, failures or not
    dual = await verifier.verify(entries["nspzrcvzcB-021"])
    assert Code.CHIMERIC in {i.code for i in dual.issues} and dual.tier is Tier.H
    assert dual.reason is not None and "not recorded" in dual.reason
    # "Koutrisw" for Paraschos Koutris (dblp): a slip of one letter, not another author
    pricing = await verifier.verify(entries["JFY9MZtWTu-020"])
    codes = [i.code for i in pricing.issues]
    assert codes == [Code.AUTHOR_MISSPELLED, Code.MISSING_DOI], pricing.issues
    assert "Koutrisw, Paraschos for Paraschos Koutris" in pricing.issues[0].message
    assert pricing.tier is Tier.M and pricing.corrections.get("author", "").count("Koutris,") == 1
    # "OpenAI" as the author of the GPT-4 report is not a wrong author list
    gpt4 = await verifier.verify(entries["ioYdy7aghG-033"])
    assert gpt4.status is Status.VERIFIED, gpt4.issues
    # a group in a list cut short stands for members it does not name: "Gemma Team and
    # Aishwarya Kamath and ... (nine people) and others", "An Yang and Qwen Team" leave no
    # one of Semantic Scholar's records out
    # ... and Crossref's organisation authors ("USDOE Office of Electricity (OE)") are
    # groups, not people the entry dropped
    for key in ("0FhrtdKLtD-024", "H8tismBT3Q-080", "lfsjVdi72l-005"):
        report = await verifier.verify(entries[key])
        assert report.status is Status.VERIFIED and report.tier is Tier.D, report.issues
    # a list cut short with a name Semantic Scholar's record lacks in its middle ("Peiyuan
    # Zhang" of LLaVA-OneVision, one of its authors): the names after it are one place
    # further down the record's list, so its next author is not "dropped" ...
    s2_only = [s for s in real_refs.sources() if s.name == "semanticscholar"]
    alone = Verifier(s2_only, VerifySettings(sources=("semanticscholar",)), today=real_refs.AS_OF)
    onevision = await alone.verify(entries["0FhrtdKLtD-002"])
    assert [i.code for i in onevision.issues if i.effective_severity <= Severity.WARNING] == [
        Code.AUTHOR_ADDED
    ], onevision.issues
    added = next(i for i in onevision.issues if i.code is Code.AUTHOR_ADDED)
    assert "Zhang, Peiyuan" in added.message
    # ... and while the other sources, which could show the record's list is the short one,
    # failed (none recorded), the name is not called added: the entry is unverified
    onevision = await verifier.verify(entries["0FhrtdKLtD-002"])
    assert onevision.status is Status.UNVERIFIED, onevision.issues
    assert Code.AUTHOR_ADDED not in {i.code for i in onevision.issues}
    (unchecked,) = [i for i in onevision.issues if i.code is Code.UNVERIFIED]
    assert "the authors differ from the semanticscholar record" in unchecked.message
    assert "not recorded (crossref, openalex, dblp)" in unchecked.message
    # Semantic Scholar's "Aleksander Mkadry" (M\k{a}dry, the accent's macro read as a
    # letter) is the entry's "Aleksander Mądry" of the GPT-4o system card
    gpt4o = await verifier.verify(entries["H8tismBT3Q-051"])
    assert gpt4o.status is Status.VERIFIED and gpt4o.tier is Tier.D, gpt4o.issues
    # the conference paper, not its later journal version in the same dblp answer (ICCV
    # 2017 / IJCV 2020, EC 2019 / STOC 2023, STOC 2000 "(extended abstract)" / JCSS 2002)
    for key in ("dKRAo0a9Gm-031", "JFY9MZtWTu-015", "JFY9MZtWTu-018"):
        report = await verifier.verify(entries[key])
        assert report.match is not None and report.match.year == int(entries[key].get("year") or 0)
        assert Code.YEAR_MISMATCH not in {i.code for i in report.issues}, report.issues
    # IEEE journal articles cited by their early-access year (the year in the DOI), which
    # dblp dates by the issue: OpenPose (TPAMI 2019 / 2021), a TNNLS survey (2022 / 2024)
    for key in ("dKRAo0a9Gm-003", "ioYdy7aghG-003"):
        report = await verifier.verify(entries[key])
        assert report.status is Status.VERIFIED, report.issues
    # nothing recorded for it: could not be checked, not "not found"
    missing = [k for k in entries if k.startswith("izbBqTL8vb")]
    results = await verifier.verify_many([entries[k] for k in missing])
    assert Status.UNVERIFIED in {v.status for v in results.values()}


def test_one_verifier_serves_successive_event_loops() -> None:
    verifier, _ = memory_verifier(concurrency=1)
    recs = [r for r in RECORDS if r.authors][:5]
    entries = [make_entry(f"s{i}", "article", {"title": r.title}) for i, r in enumerate(recs)]
    first = asyncio.run(verifier.verify_many(entries))
    second = asyncio.run(verifier.verify_many(entries))
    assert {k: v.status for k, v in first.items()} == {k: v.status for k, v in second.items()}
    assert len(first) == 5


async def test_snapshot_source_alone_verifies_what_it_holds_and_abstains_otherwise(
    tmp_path: Path,
) -> None:
    from citewarden.verify.sources.snapshot import SnapshotSource

    snapshot = SnapshotSource(DATA / "accuracy" / "records.jsonl", tmp_path)
    verifier = Verifier([snapshot], VerifySettings(sources=()), today=TODAY)
    rec = BY_DOI["10.1111/2041-210x.12469"]
    authors = " and ".join(f"{p.family}, {p.given}" for p in rec.authors)
    try:
        by_search = await verifier.verify(
            make_entry("a", "article", {"title": rec.title, "author": authors})
        )
        by_doi = await verifier.verify(
            make_entry(
                "b", "article", {"title": rec.title, "author": authors, "doi": rec.doi or ""}
            )
        )
        elsewhere = await verifier.verify(
            make_entry(
                "c",
                "article",
                {
                    "title": "A study of nothing at all",
                    "author": "Roe, R.",
                    "doi": "10.1234/not-in-the-snapshot",
                },
            )
        )
    finally:
        snapshot.close()
    assert by_search.status is Status.VERIFIED and by_search.match is not None
    assert by_search.match.source == "snapshot"
    assert by_doi.status is Status.VERIFIED
    # absence from a partial index proves nothing: no doi-not-found, no not_found
    assert elsewhere.status is Status.UNVERIFIED
    assert Code.DOI_NOT_FOUND not in {i.code for i in elsewhere.issues}


async def test_pmid_and_datacite_doi_are_looked_up_where_they_live(
    server: ReplayServer, http: HttpClient
) -> None:
    from citewarden.verify.sources.datacite import DataCiteSource
    from citewarden.verify.sources.pubmed import PubMedSource

    sources = [
        CrossrefSource(http, server.base_url("crossref"), mailto="t@example.org"),
        DoiSource(http, server.base_url("doi")),
        DataCiteSource(http, server.base_url("datacite")),
        PubMedSource(http, server.base_url("pubmed")),
    ]
    names = ("crossref", "doi", "datacite", "pubmed")
    verifier = Verifier(sources, VerifySettings(sources=names), today=TODAY)
    article = make_entry(
        "mcmahon",
        "article",
        {
            "title": "Eroticism in late {M}ing, early {Q}ing fiction: the beauteous realm and "
            "the sexual battlefield",
            "author": "McMahon, K.",
            "journal": "T'oung pao",
            "year": "1987",
            "pmid": "11618220",
        },
    )
    v = await verifier.verify(article)
    assert v.status is Status.VERIFIED, v.issues
    assert v.match is not None and v.match.source == "pubmed"
    assert server.requests_to("/pubmed/entrez/eutils/efetch.fcgi") == 1
    # a DataCite DOI: Crossref and doi.org give no answer here, the DataCite API does
    dataset = make_entry(
        "ollomo",
        "misc",
        {
            "title": "Data from: A new malaria agent in African hominids",
            "author": "Ollomo, Benjamin and Durand, Patrick and others",
            "year": "2011",
            "doi": "10.5061/dryad.8515",
        },
    )
    d = await verifier.verify(dataset)
    assert d.status is Status.VERIFIED, d.issues
    assert d.match is not None and d.match.source == "datacite"
