"""Titles that differ only in hyphens: splitting a compound the record hyphenates is a
near-miss title ("Schema Variable" for "Schema-Variable"); joining one ("Pretraining" for
"Pre-training"), a dash between spaces, or arithmetic ("1 - 1/e") is not.  The engine
tests run against the real recorded arXiv listing of 1605.08386, "Heat-bath random walks
with Markov bases", replayed on loopback."""

from __future__ import annotations

from datetime import date

import pytest

import replay as replay_fixtures
from citewarden.model import Code, Entry, Status
from citewarden.settings import VerifySettings
from citewarden.verify.compare import compare_title
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.hyphens import splits_compound
from citewarden.verify.normalize import make_entry
from citewarden.verify.records import WorkRecord
from citewarden.verify.sources.arxiv import ArxivSource
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


@pytest.mark.parametrize(
    ("cited", "record", "split"),
    [
        (
            "A Benchmark for Schema Variable Extraction",
            "A Benchmark for Schema-Variable Extraction",
            True,
        ),
        (
            "Unified Multimodal Chain of-Thought Scaling",
            "Unified Multimodal Chain-of-Thought Scaling",
            True,
        ),
        ("BEiT Pretraining for Vision", "BEiT Pre-training for Vision", False),
        ("BEiT Pre-training for Vision", "BEiT Pretraining for Vision", False),
        ("Self-Supervised Learning", "Self Supervised Learning", False),
        ("Multi-agent systems", "Multi- agent systems", False),
        ("A functional data analytic approach", "A Functional Data - Analytic Approach", False),
        (
            "Online stochastic matching: Beating 1 - 1/e",
            "Online Stochastic Matching: Beating 1-1/e",
            False,
        ),
        ("Schema Variable Extraction", "Schema-Variant Extraction", False),  # other letters
    ],
)
def test_splitting_a_hyphenated_compound(cited: str, record: str, split: bool) -> None:
    assert splits_compound(cited, record) is split
    title = compare_title(cited, WorkRecord("crossref", record))
    assert title is not None
    if split:
        assert not title.exact and title.near  # a near-miss title, still the same work
    elif cited.lower().replace(" ", "").replace("-", "") == record.lower().replace(" ", "").replace(
        "-", ""
    ):
        assert title.exact


def _entry(title: str) -> Entry:
    return make_entry(
        "k",
        "misc",
        {
            "title": title,
            "author": "Stanley, Caprice and Windisch, Tobias",
            "year": "2016",
            "eprint": "1605.08386",
            "archiveprefix": "arXiv",
        },
    )


def _verifier(replay: ReplayServer, http: HttpClient) -> Verifier:
    arxiv = ArxivSource(http, replay.base_url("arxiv"))
    return Verifier([arxiv], VerifySettings(sources=("arxiv",)), today=date(2026, 11, 29))


async def test_a_split_compound_is_a_near_miss_title_with_the_record_title(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    v = await _verifier(replay, replay_http).verify(
        _entry("Heat bath random walks with Markov bases")
    )
    titles = [i for i in v.issues if i.code is Code.TITLE_MISMATCH]
    assert len(titles) == 1 and "near-miss title" in titles[0].message
    assert v.status is Status.MISMATCH
    assert v.corrections["title"] == "Heat-bath random walks with Markov bases"


@pytest.mark.parametrize(
    "title",
    ["Heat-bath random walks with {M}arkov bases", "Heatbath random walks with Markov bases"],
)
async def test_the_record_hyphenation_or_a_joined_compound_verifies(
    replay: ReplayServer, replay_http: HttpClient, title: str
) -> None:
    v = await _verifier(replay, replay_http).verify(_entry(title))
    assert v.status is Status.VERIFIED, v.issues
