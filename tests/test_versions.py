"""Versions of one work: a search answer holding a conference paper, its journal version and
its arXiv copy gives the version the entry cites; a note on the form of the publication
after a title ("(extended abstract)") is not a title difference; an index that dates a
merged record by its first version does not make the published year an error.

Over the replay server: dblp's search answers are real ones, recorded by refchecker for the
titles searched (tests/data/accuracy/refchecker/dblp_search.jsonl, served in dblp's result
envelope); Semantic Scholar's record is its real answer for "Decoupled weight decay
regularization"."""

from __future__ import annotations

import json
from datetime import date
from typing import Any

import pytest

from citewarden.model import Code, Severity, Status
from citewarden.settings import VerifySettings
from citewarden.verify.compare import Agreement, compare
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.sources.dblp import DblpSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource, work_from_s2
from paths import DATA
from replay import ReplayServer, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

RECORDED = DATA / "accuracy" / "refchecker"
TODAY = date(2025, 11, 1)


def recorded_answer(service: str, query: str) -> Any:
    """The body refchecker recorded for ``query`` at ``service`` (its file in RECORDED)."""
    for line in (RECORDED / f"{service}.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["cache_query"].split("|")[0] == query:
            return row["body"]
    raise LookupError(query)


def serve_dblp(srv: ReplayServer, query: str) -> None:
    hits = recorded_answer("dblp_search", query)
    body = {"result": {"hits": {"@total": str(len(hits)), "hit": hits}}}
    srv.add_route("https://dblp.org/search/publ/api", json.dumps(body).encode(), any_query=True)


async def check(srv: ReplayServer, http: HttpClient, fields: dict[str, str]) -> Any:
    source = DblpSource(http, srv.base_url("dblp"))
    verifier = Verifier([source], VerifySettings(sources=("dblp",)), today=TODAY)
    entry_type = "article" if "journal" in fields else "inproceedings"
    return await verifier.verify(make_entry("k", entry_type, fields))


GRAD_CAM = {
    "title": "Grad-cam: Visual explanations from deep networks via gradient-based localization",
    "author": "Ramprasaath R Selvaraju and Michael Cogswell and Abhishek Das and "
    "Ramakrishna Vedantam and Devi Parikh and Dhruv Batra",
}


@pytest.mark.parametrize(
    ("venue", "year", "expected"),
    [
        # dblp's answer lists the IJCV article (2020) before the ICCV paper (2017)
        (
            {"booktitle": "Proceedings of the IEEE international conference on computer vision"},
            "2017",
            ("ICCV", 2017),
        ),
        (
            {"journal": "International Journal of Computer Vision"},
            "2020",
            ("Int. J. Comput. Vis.", 2020),
        ),
    ],
)
async def test_the_version_the_entry_cites_is_its_match(
    replay: ReplayServer,
    replay_http: HttpClient,
    venue: dict[str, str],
    year: str,
    expected: tuple[str, int],
) -> None:
    serve_dblp(replay, GRAD_CAM["title"])
    v = await check(replay, replay_http, {**GRAD_CAM, **venue, "year": year})
    assert v.status is Status.VERIFIED
    assert v.match is not None and (v.match.venue, v.match.year) == expected
    assert Code.YEAR_MISMATCH not in {i.code for i in v.issues}


async def test_a_conference_paper_is_not_matched_to_its_later_journal_version(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    title = "Pandora's box problem with order constraints"
    serve_dblp(replay, title)
    v = await check(
        replay,
        replay_http,
        {
            "title": title,
            "author": "Shant Boodaghians and Federico Fusco and Philip Lazos and Stefano Leonardi",
            "booktitle": "Proceedings of the 21st ACM Conference on Economics and Computation",
            "year": "2020",
        },
    )
    assert v.status is Status.VERIFIED
    assert v.match is not None and (v.match.venue, v.match.year) == ("EC", 2020)


async def test_an_extended_abstract_is_the_same_title(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """dblp titles the STOC 2000 paper "Query strategies for priced information (extended
    abstract)"; its JCSS 2002 version has the bare title."""
    title = "Query strategies for priced information"
    serve_dblp(replay, title)
    v = await check(
        replay,
        replay_http,
        {
            "title": title,
            "author": "Moses Charikar and Ronald Fagin and Venkatesan Guruswami and "
            "Jon Kleinberg and Prabhakar Raghavan and Amit Sahai",
            "booktitle": "Proceedings of the thirty-second annual ACM symposium on "
            "Theory of computing",
            "year": "2000",
        },
    )
    assert v.status is Status.VERIFIED
    assert v.match is not None and (v.match.venue, v.match.year) == ("STOC", 2000)
    assert not {i.code for i in v.issues} & {Code.YEAR_MISMATCH, Code.TITLE_MISMATCH}


def test_a_first_version_date_is_not_an_error_for_the_published_year() -> None:
    """Semantic Scholar dates the ICLR 2019 paper (its dblp key says 2019) by its 2017
    arXiv version."""
    record = work_from_s2(
        recorded_answer("semanticscholar_match_title", "Decoupled weight decay regularization")
    )
    assert record is not None and record.year == 2017

    def year_of(year: str) -> Agreement:
        entry = make_entry(
            "k",
            "inproceedings",
            {
                "title": "Decoupled weight decay regularization",
                "author": "Ilya Loshchilov and Frank Hutter",
                "booktitle": "International Conference on Learning Representations (ICLR)",
                "year": year,
            },
        )
        return compare(normalize_entry(entry), record).year

    assert year_of("2019") is Agreement.NEAR  # a note (hint), not a warning
    # a year before the first version is still an error
    assert year_of("2015") is Agreement.DIFFERENT


async def test_the_first_version_year_is_reported_as_a_hint(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The same answer, served by a loopback Semantic Scholar."""
    paper = recorded_answer("semanticscholar_match_title", "Decoupled weight decay regularization")
    replay.add_route(
        "https://api.semanticscholar.org/graph/v1/paper/search/match",
        json.dumps({"data": [paper]}).encode(),
        any_query=True,
    )
    source = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    verifier = Verifier([source], VerifySettings(sources=("semanticscholar",)), today=TODAY)
    v = await verifier.verify(
        make_entry(
            "k",
            "inproceedings",
            {
                "title": "Decoupled weight decay regularization",
                "author": "Ilya Loshchilov and Frank Hutter",
                "booktitle": "International Conference on Learning Representations (ICLR)",
                "year": "2019",
            },
        )
    )
    years = [i for i in v.issues if i.code is Code.YEAR_MISMATCH]
    assert years and all(i.effective_severity is Severity.HINT for i in years)
    assert v.status is Status.VERIFIED


async def test_the_early_access_year_of_an_ieee_article_is_not_an_error(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """dblp dates OpenPose by its TPAMI issue (2021); its DOI, 10.1109/TPAMI.2019.2929257,
    was assigned on early access in 2019, the year the entry cites."""
    title = "Openpose: Realtime multi-person 2d pose estimation using part affinity fields"
    serve_dblp(replay, title)
    fields = {
        "title": title,
        "author": "Zhe Cao and Gines Hidalgo and Tomas Simon and Shih-En Wei and Yaser Sheikh",
        "journal": "IEEE TPAMI",
    }
    v = await check(replay, replay_http, {**fields, "year": "2019"})
    assert v.status is Status.VERIFIED, v.issues
    assert v.match is not None and v.match.venue == "IEEE Trans. Pattern Anal. Mach. Intell."
    assert all(
        i.effective_severity is Severity.HINT for i in v.issues if i.code is Code.YEAR_MISMATCH
    )
    # a year that is neither the issue's nor the early access's is still an error
    v = await check(replay, replay_http, {**fields, "year": "2016"})
    assert any(
        i.code is Code.YEAR_MISMATCH and i.effective_severity is Severity.WARNING for i in v.issues
    )
