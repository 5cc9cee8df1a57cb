"""An author-list difference is reported only once another source could show whether the
matched record's list is complete: when every such look-up failed, the difference rests on
one record that may be cut short, so it is withheld and the entry says why.

The record is Crossref's real answer for 10.1371/journal.pone.0033693 (six authors),
replayed over loopback; OpenAlex and Semantic Scholar answer 503."""

from __future__ import annotations

from datetime import date

from citewarden.model import Code, Entry, Severity, Status
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from citewarden.verify.sources.crossref import CrossrefSource
from citewarden.verify.sources.openalex import OpenAlexSource
from citewarden.verify.sources.semanticscholar import SemanticScholarSource
from replay import ReplayServer, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

TODAY = date(2026, 11, 29)
DOI = "10.1371/journal.pone.0033693"
TITLE = (
    "Methylphenidate Exposure Induces Dopamine Neuron Loss and Activation of Microglia in "
    "the Basal Ganglia of Mice"
)
AUTHOR_CLAIMS = {Code.CHIMERIC, Code.AUTHOR_ADDED, Code.AUTHOR_DROPPED, Code.AUTHOR_SUBSTITUTED}


def cited(authors: str, **extra: str) -> Entry:
    fields = {
        "title": TITLE,
        "author": authors,
        "journal": "PLoS ONE",
        "year": "2012",
        "doi": DOI,
        **extra,
    }
    return make_entry("k", "article", fields)


def verifier(srv: ReplayServer, http: HttpClient, *names: str) -> Verifier:
    made = {
        "crossref": CrossrefSource(http, srv.base_url("crossref"), mailto="t@example.org"),
        "openalex": OpenAlexSource(http, srv.base_url("openalex")),
        "semanticscholar": SemanticScholarSource(http, srv.base_url("semanticscholar")),
    }
    sources = [made[n] for n in names]
    return Verifier(sources, VerifySettings(sources=names), today=TODAY)


def codes(issues: tuple[object, ...]) -> set[Code]:
    return {i.code for i in issues}  # type: ignore[attr-defined]


ADDED = "Sadasivan, Shankar and Kowalczyk, Marta and Lindqvist, Erik"


async def test_a_lone_record_still_decides_when_no_other_source_is_configured(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    v = await verifier(replay, replay_http, "crossref").verify(cited(ADDED))
    assert v.status is Status.MISMATCH and Code.CHIMERIC in codes(v.issues)


async def test_author_findings_wait_for_a_source_that_answers(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    for path in ("/openalex", "/semanticscholar"):
        replay.inject("503", path=path, times=50, retry_after="0")
    names = ("crossref", "openalex", "semanticscholar")
    v = await verifier(replay, replay_http, *names).verify(cited(ADDED))
    assert not codes(v.issues) & AUTHOR_CLAIMS, v.issues
    assert v.status is Status.UNVERIFIED and "author" not in v.corrections
    (issue,) = [i for i in v.issues if i.code is Code.UNVERIFIED]
    assert "the authors differ from the crossref record" in issue.message
    assert "HTTP 503 (openalex, semanticscholar)" in issue.message


async def test_a_mismatch_on_another_field_stays_one_with_a_hint(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    for path in ("/openalex", "/semanticscholar"):
        replay.inject("503", path=path, times=50, retry_after="0")
    names = ("crossref", "openalex", "semanticscholar")
    v = await verifier(replay, replay_http, *names).verify(cited(ADDED, year="2015"))
    assert v.status is Status.MISMATCH and Code.YEAR_MISMATCH in codes(v.issues)
    assert not codes(v.issues) & AUTHOR_CLAIMS
    (hint,) = [i for i in v.issues if i.code is Code.UNVERIFIED]
    assert hint.effective_severity is Severity.HINT and "not checked: the authors" in hint.message
