"""The matched work's abstract lent by another record of the work (OpenAlex, Semantic
Scholar) when the record the verdict rests on has none: real recorded responses replayed
over loopback, the real HTTP client and, where it matters, the real on-disk cache."""

from __future__ import annotations

import dataclasses
import html
import json
from pathlib import Path

import pytest

import replay as replay_fixtures
from batch_replay import serve_batches
from citewarden.audit import run_audit
from citewarden.cache import Cache
from citewarden.model import Match, Status
from citewarden.settings import Settings, VerifySettings
from citewarden.verify.abstract_steps import lenders, lent_abstract
from citewarden.verify.abstracts import from_inverted_index
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.sources import (
    CachedSource,
    CrossrefSource,
    OpenAlexSource,
    SemanticScholarSource,
)
from replay import ReplayServer, recorded_json

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http

DOI = "10.1145/3448016.3452841"
#: The OpenAlex record of the DOI carries an abstract; Crossref's record of it has none.
OPENALEX = "test-openalex_reader__test_proceedings_article.json"
CROSSREF = "test-metadata__test_list_of_pids__02.json"


def vqf_entry() -> object:
    return make_entry(
        "pandey2021",
        "inproceedings",
        {
            "title": "Vector Quotient Filters",
            "author": "Pandey, Prashant and Conway, Alex and Durie, Joe and Bender, Michael A. "
            "and Farach-Colton, Martin and Johnson, Rob",
            "booktitle": "Proceedings of the 2021 International Conference on Management of Data",
            "year": "2021",
            "doi": DOI,
        },
    )


def openalex_text() -> str:
    text = from_inverted_index(recorded_json("openalex", OPENALEX)["abstract_inverted_index"])
    assert text
    return text


def verifier(
    server: ReplayServer, http: HttpClient, *, abstracts: bool, store: Cache | None = None
) -> Verifier:
    made = [
        CrossrefSource(http, server.base_url("crossref"), mailto="t@example.org"),
        OpenAlexSource(http, server.base_url("openalex")),
    ]
    sources = [CachedSource(s, store) for s in made] if store is not None else made
    v = Verifier(sources, VerifySettings(sources=("crossref", "openalex"), concurrency=2))
    v.abstracts = abstracts
    return v


def openalex_requests(server: ReplayServer) -> list[str]:
    return [f"{s.path}?{s.query}" for s in server.log if s.path.startswith("/openalex")]


def test_the_recordings_are_what_the_tests_rely_on() -> None:
    assert "abstract" not in recorded_json("crossref", CROSSREF)["message"]
    assert recorded_json("openalex", OPENALEX)["doi"].endswith(DOI)


async def test_a_crossref_match_gets_the_openalex_abstract(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    v = await verifier(replay, replay_http, abstracts=True).verify(vqf_entry())  # type: ignore[arg-type]
    assert v.status is Status.VERIFIED
    assert v.match is not None and v.match.source == "crossref"
    assert v.match.abstract == openalex_text()
    assert v.match.abstract_source == "openalex"
    # asked the coalesced way: OpenAlex's batch filter, once
    asked = openalex_requests(replay)
    assert len(asked) == 1 and "filter=doi" in asked[0] and "abstract_inverted_index" in asked[0]


async def test_without_abstracts_wanted_no_source_is_asked_for_one(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    v = await verifier(replay, replay_http, abstracts=False).verify(vqf_entry())  # type: ignore[arg-type]
    assert v.status is Status.VERIFIED and v.match is not None
    assert v.match.abstract is None and v.match.abstract_source is None
    assert openalex_requests(replay) == []


async def test_an_abstract_at_hand_in_the_cache_is_lent_without_a_request(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    serve_batches(replay)
    store = Cache(tmp_path / "cache")
    try:
        first = verifier(replay, replay_http, abstracts=True, store=store)
        await first.verify(vqf_entry())  # type: ignore[arg-type]
        before = len(replay.log)
        again = verifier(replay, replay_http, abstracts=False, store=store)
        v = await again.verify(vqf_entry())  # type: ignore[arg-type]
    finally:
        store.close()
    assert len(replay.log) == before  # everything came from the cache
    assert v.match is not None and v.match.abstract == openalex_text()
    assert v.match.abstract_source == "openalex"


async def test_a_lender_that_failed_changes_nothing(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    serve_batches(replay)
    plain = await verifier(replay, replay_http, abstracts=False).verify(vqf_entry())  # type: ignore[arg-type]
    replay.inject("503", path="/openalex", times=20)
    v = await verifier(replay, replay_http, abstracts=True).verify(vqf_entry())  # type: ignore[arg-type]
    assert openalex_requests(replay)  # it was asked, and failed
    assert v == plain  # same status, tier, issues; no abstract, nothing else changed


async def test_only_a_record_of_the_same_work_lends(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    lookup = await OpenAlexSource(replay_http, replay.base_url("openalex")).by_doi(DOI)
    same = Match("crossref", 1.0, doi=DOI, title="Vector Quotient Filters")
    assert lent_abstract(same, lookup) == openalex_text()
    # another title under the DOI (a lookup that answered for another work)
    assert (
        lent_abstract(dataclasses.replace(same, title="Cuckoo Filters in Practice"), lookup) is None
    )
    # another DOI
    assert lent_abstract(dataclasses.replace(same, doi="10.1145/1234567.7654321"), lookup) is None
    # a preprint's DOI beside the published one is the same work
    preprint = dataclasses.replace(same, doi="10.48550/arxiv.2103.12345")
    assert lent_abstract(preprint, lookup) == openalex_text()


async def test_semantic_scholar_lends_its_abstract(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    paper = recorded_json("semanticscholar", "refchecker_get_by_doi_b20a1aea0a.json")
    doi = "10.1038/s41467-021-22732-w"
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    lookup = await src.by_doi(doi)
    match = Match("crossref", 1.0, doi=doi, title=paper["title"])
    lent = lent_abstract(match, lookup)
    assert lent is not None and lent.split()[:5] == paper["abstract"].split()[:5]


def test_lenders_by_identifier() -> None:
    assert lenders(Match("dblp", 1.0)) == []
    assert [n for n, _, _ in lenders(Match("dblp", 1.0, doi=DOI))] == [
        "openalex",
        "semanticscholar",
    ]
    arxiv = lenders(Match("dblp", 1.0, doi="10.48550/arXiv.1404.1100"))
    assert arxiv == [
        ("semanticscholar", "by_arxiv", "1404.1100"),
        ("arxiv", "by_arxiv", "1404.1100"),
    ]


@pytest.fixture
def project(tmp_path: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    serve_batches(replay)
    for name in ("crossref", "openalex"):
        monkeypatch.setenv(f"CITEWARDEN_{name.upper()}_URL", replay.base_url(name))
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "paper"
    root.mkdir()
    (root / "refs.bib").write_text(
        "@inproceedings{pandey2021,\n  title = {Vector Quotient Filters},\n"
        "  author = {Pandey, Prashant and Conway, Alex and Durie, Joe and Bender, Michael A."
        " and Farach-Colton, Martin and Johnson, Rob},\n"
        "  booktitle = {Proceedings of the 2021 International Conference on Management of"
        " Data},\n  year = {2021},\n  doi = {10.1145/3448016.3452841}\n}\n",
        encoding="utf-8",
    )
    return root


SETTINGS = Settings(verify=VerifySettings(sources=("crossref", "openalex"), concurrency=2))


def test_check_scores_a_citation_against_the_lent_abstract(
    project: Path, replay: ReplayServer
) -> None:
    from citewarden.report.json_report import report_of

    (project / "paper.tex").write_text(
        "\\documentclass{article}\\begin{document}\n"
        "A filter that stores fingerprints in small buckets answers membership queries"
        " quickly~\\cite{pandey2021}.\n\\bibliographystyle{plain}\\bibliography{refs}\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    audit = run_audit([str(project)], SETTINGS, cwd=project)
    (context,) = audit.contexts
    assert context.basis == "title+abstract" and context.abstract == openalex_text()
    assert context.abstract_source == "openalex"
    report = json.loads(json.dumps(report_of(audit, project)))
    (row,) = report["citations"]["cited"]
    assert row["context"]["basis"] == "title+abstract"
    assert row["context"]["abstract_source"] == "openalex"
    from citewarden.report.html.build import html_of

    page = html_of(audit, root=project)
    assert "(abstract from OpenAlex)" in page
    assert html.escape(openalex_text()[:60], quote=True) in page


def test_a_bibliography_alone_asks_for_no_abstract(project: Path, replay: ReplayServer) -> None:
    audit = run_audit([str(project / "refs.bib")], SETTINGS, cwd=project)
    (verdict,) = audit.verdicts or ()
    assert verdict.status is Status.VERIFIED
    assert openalex_requests(replay) == []
