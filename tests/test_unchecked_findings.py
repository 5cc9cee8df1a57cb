"""A check whose look-up failed has found nothing: the finding it would decide is not made,
and a verdict it could overturn is not ``verified``.

Over the replay servers of real recorded responses: the venue searches of
tests/test_venue_registry.py (Lukas et al., IEEE S&P 2023) with OpenAlex's ``/sources``
failing while dblp's venue search answers; Cybenko's 1989 paper matched at dblp
(tests/test_verify_requests.py) while Crossref, asked for the notices about its DOI, fails.
"""

from __future__ import annotations

from citewarden.model import Code, Severity, Status
from citewarden.verify.http import HttpClient
from citewarden.verify.normalize import make_entry
from replay import ReplayServer, replay, replay_http, replay_server
from test_venue_registry import FAKE, _verifier, http, server
from test_venue_rules import PII
from test_verify_requests import cybenko, notices_asked, serve, verifier

__all__ = ["http", "replay", "replay_http", "replay_server", "server"]


async def test_one_venue_search_failing_leaves_the_venue_mismatch(
    server: ReplayServer, http: HttpClient
) -> None:
    """dblp's venue search knows no such venue, OpenAlex's failed: no ``nonexistent-venue``;
    the venue difference stays, saying why the venue's existence was not settled."""
    server.inject("503", path="/openalex/sources", times=20, retry_after="0")
    entry = make_entry("lukas", "inproceedings", {**PII, "booktitle": FAKE})
    v = await _verifier(server, http).verify(entry)
    assert any(s.path.endswith("/dblp/search/venue/api") for s in server.log)
    codes = [i.code for i in v.issues]
    assert Code.NONEXISTENT_VENUE not in codes
    (mismatch,) = [i for i in v.issues if i.code is Code.VENUE_MISMATCH]
    assert mismatch.field == "booktitle" and "HTTP 503 (openalex)" in mismatch.message
    assert v.status is Status.MISMATCH
    assert v.corrections["booktitle"] == "IEEE Symposium on Security and Privacy"


async def test_a_failed_notices_look_up_leaves_the_work_unverified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """dblp matches the work and gives its DOI; Crossref, the registry of its retraction
    notices, answers 503 to everything: whether it was retracted is not known."""
    serve(replay)
    replay.inject("503", path="/crossref", times=100, retry_after="0")
    v = await verifier(replay, replay_http).verify(cybenko("found"))  # type: ignore[arg-type]
    assert v.match is not None and v.match.source == "dblp"
    assert len(notices_asked(replay)) >= 1
    assert v.status is Status.UNVERIFIED
    assert v.reason is not None and "HTTP 503 (crossref)" in v.reason
    (note,) = [i for i in v.issues if i.code is Code.UNVERIFIED]
    assert "retract" in note.message


async def test_a_mismatch_whose_notices_failed_says_so_and_stays_a_mismatch(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The same work written with a wrong volume: a mismatch either way, and a hint that its
    retraction was not checked (its tier is the mismatch's)."""
    serve(replay)
    replay.inject("503", path="/crossref", times=100, retry_after="0")
    entry = cybenko("found", volume="7")
    v = await verifier(replay, replay_http).verify(entry)  # type: ignore[arg-type]
    assert v.status is Status.MISMATCH and v.reason is None
    (note,) = [i for i in v.issues if i.code is Code.UNVERIFIED]
    assert note.severity is Severity.HINT
    assert "retract" in note.message and "HTTP 503 (crossref)" in note.message
    replay.clear()  # the same with the notices answered: no such hint, the same tier
    answered = await verifier(replay, replay_http).verify(entry)  # type: ignore[arg-type]
    assert answered.status is Status.MISMATCH and answered.tier is v.tier
    assert not [i for i in answered.issues if i.code is Code.UNVERIFIED]


async def test_answered_notices_leave_the_work_verified(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """The same work with Crossref failing its search but answering the notices (none)."""
    serve(replay)
    replay.inject("503", path="/crossref/works", times=3, retry_after="0")
    v = await verifier(replay, replay_http).verify(cybenko("found"))  # type: ignore[arg-type]
    assert notices_asked(replay)
    assert v.status is Status.VERIFIED and v.reason is None
