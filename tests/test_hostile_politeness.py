"""Politeness across processes: one machine keeps to a source's published rate however many
citewarden processes run, and a ``Retry-After`` pauses the whole host."""

from __future__ import annotations

import subprocess
import sys
import time
import types
from email.utils import formatdate
from pathlib import Path

import pytest

import citewarden.verify.rate_limit as rate_limit
from citewarden.verify.http import Failure, HttpClient, Limit, Reply, RetryPolicy
from citewarden.verify.shared_rate import RATE_DIR, SharedRate
from cli_process import ROOT
from hostile_server import Behaviour, HostileServer, hostile

__all__ = ["hostile"]

#: One process of an editor or a CI job: six requests on a 5 req/s lane.
_CLIENT = """
import asyncio, sys, time
from citewarden.verify.http import HttpClient, Limit

async def main(url, shared, start):
    http = HttpClient(limits={"crossref": Limit(5.0, 1, 1)}, shared_dir=shared or None)
    await asyncio.sleep(max(0.0, start - time.time()))  # all three begin together
    for _ in range(6):
        await http.get(url, lane="crossref")
    await http.aclose()

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
"""


def _busiest_second(times: list[float]) -> int:
    times = sorted(times)
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


def _three_processes(hostile: HostileServer, shared: str) -> tuple[int, float]:
    """(most requests in one second, seconds from the first request to the last)."""
    start = str(time.time() + 3.0)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _CLIENT, hostile.url + "/rate", shared, start],
            env={"PYTHONPATH": str(ROOT / "server"), "PATH": "/usr/bin:/bin"},
        )
        for _ in range(3)
    ]
    for p in procs:
        assert p.wait(timeout=60) == 0
    seen = hostile.seen("/rate")
    assert len(seen) == 18
    times = [s.at for s in seen]
    return _busiest_second(times), max(times) - min(times)


def test_three_processes_share_one_rate_through_the_cache_directory(
    hostile: HostileServer, tmp_path: Path
) -> None:
    hostile.route("/rate", Behaviour("ok"))
    busiest, span = _three_processes(hostile, str(tmp_path / "rate"))
    # 18 requests at 5 req/s between them take at least 17 intervals of 0.2 s (unshared:
    # about one second); one second holds 5, 6 at its edges, one or two more when a process
    # is scheduled late for its slot on a busy machine (unshared: 15)
    assert span >= 3.0
    assert busiest <= 8


def test_without_a_shared_directory_each_process_has_its_own_rate(
    hostile: HostileServer,
) -> None:
    """The comparison that shows what sharing prevents (three times the rate)."""
    hostile.route("/rate", Behaviour("ok"))
    busiest, span = _three_processes(hostile, "")
    assert busiest >= 9 and span < 2.5


def _client(shared: Path) -> HttpClient:
    return HttpClient(
        limits={"crossref": Limit(100.0, 1, 4), "crossref-query": Limit(100.0, 1, 4)},
        retry=RetryPolicy(max_retries=0),
        shared_dir=shared,
    )


async def test_retry_after_pauses_every_lane_of_the_host(
    hostile: HostileServer, tmp_path: Path
) -> None:
    hostile.route("/busy", Behaviour("429", retry_after="2"))
    hostile.route("/works", Behaviour("ok"))
    http = _client(tmp_path / "rate")
    refused = await http.get(hostile.url + "/busy", lane="crossref")
    assert isinstance(refused, Failure) and refused.status == 429
    other_lane = await http.get(hostile.url + "/works", lane="crossref-query")
    await http.aclose()
    assert isinstance(other_lane, Reply)
    (busy,) = hostile.seen("/busy")
    (works,) = hostile.seen("/works")
    assert works.at - busy.at >= 1.9


async def test_retry_after_pauses_a_lane_not_yet_used_without_sharing(
    hostile: HostileServer,
) -> None:
    hostile.route("/busy", Behaviour("429", retry_after="2"))
    hostile.route("/works", Behaviour("ok"))
    http = HttpClient(
        limits={"crossref": Limit(100.0, 1, 4), "crossref-query": Limit(100.0, 1, 4)},
        retry=RetryPolicy(max_retries=0),
    )
    await http.get(hostile.url + "/busy", lane="crossref")
    reply = await http.get(hostile.url + "/works", lane="crossref-query")
    await http.aclose()
    assert isinstance(reply, Reply)
    assert hostile.seen("/works")[0].at - hostile.seen("/busy")[0].at >= 1.9


async def test_an_agency_s_retry_after_pauses_the_agency_not_the_service_handing_over(
    hostile: HostileServer,
) -> None:
    """doi.org hands a DOI over to its agency, which asks for a minute's wait: the DOIs
    doi.org answers itself and those of another agency go on at once; another DOI of that
    agency is not sent to it, and says why."""
    agency = hostile.other_origin + "/ra"  # localhost
    hostile.route("/doi/agency", Behaviour("redirect", location=agency))
    hostile.route("/doi/other", Behaviour("redirect", location=f"http://127.1:{hostile.port}/rb"))
    hostile.route("/doi/itself", Behaviour("ok"))
    hostile.route("/ra", Behaviour("429", retry_after="60"))
    hostile.route("/rb", Behaviour("ok"))
    http = HttpClient(
        redirect_hosts={"doi": frozenset({"localhost", "127.1"})},
        retry=RetryPolicy(max_retry_after=5.0),
    )
    asked = await http.get(hostile.url + "/doi/agency", lane="doi")
    assert isinstance(asked, Failure) and asked.status == 429, asked
    started = time.monotonic()
    for path in ("/doi/itself", "/doi/other"):
        reply = await http.get(hostile.url + path, lane="doi")
        assert isinstance(reply, Reply) and reply.status == 200, (path, reply)
    assert time.monotonic() - started < 2.0
    again = await http.get(hostile.url + "/doi/agency", lane="doi")
    await http.aclose()
    assert isinstance(again, Failure) and again.status == 429
    assert again.reason.startswith("rate limited: localhost asked to retry after"), again
    assert len(hostile.seen("/ra")) == 1
    assert http.breaker.stopped() == []


async def test_a_request_handed_to_a_paused_agency_waits_for_it_then_goes_through(
    hostile: HostileServer,
) -> None:
    """An agency's short wait is kept by the next request handed over to it: sent again
    once the wait is over, it gets the agency's answer."""
    hostile.route("/doi/agency", Behaviour("redirect", location=hostile.other_origin + "/ra"))
    http = HttpClient(
        redirect_hosts={"doi": frozenset({"localhost"})}, retry=RetryPolicy(max_retries=1)
    )
    hostile.route("/ra", Behaviour("429", retry_after="2"))
    await http.get(hostile.url + "/doi/agency", lane="doi")
    hostile.route("/ra", Behaviour("ok"))
    hostile.log.clear()
    reply = await http.get(hostile.url + "/doi/agency", lane="doi")
    await http.aclose()
    assert isinstance(reply, Reply) and reply.status == 200, reply
    handed, sent_again = hostile.seen("/doi/agency")
    (answered,) = hostile.seen("/ra")
    assert sent_again.at - handed.at >= 0.5
    assert answered.at >= sent_again.at


async def test_an_agency_s_pause_is_shared_and_lifted_by_cache_clear(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """An agency's pause is kept in the cache directory: another process sharing it does
    not hand a DOI over to that agency, and once the pauses are lifted there (``cache
    clear``), the running process asks the agency again."""
    rate_dir = tmp_path / "cache" / RATE_DIR
    hostile.route("/doi/agency", Behaviour("redirect", location=hostile.other_origin + "/ra"))
    hostile.route("/ra", Behaviour("429", retry_after="86400"))
    hosts = {"doi": frozenset({"localhost"})}
    first = HttpClient(redirect_hosts=hosts, shared_dir=rate_dir)
    second = HttpClient(redirect_hosts=hosts, shared_dir=rate_dir)
    try:
        told = await first.get(hostile.url + "/doi/agency", lane="doi")
        assert isinstance(told, Failure) and told.status == 429, told
        hostile.route("/ra", Behaviour("ok"))
        other = await second.get(hostile.url + "/doi/agency", lane="doi")
        assert isinstance(other, Failure), other
        assert other.reason.startswith("rate limited: localhost asked to retry after")
        assert len(hostile.seen("/ra")) == 1
        assert SharedRate(rate_dir).lift_pauses() == 1
        again = await first.get(hostile.url + "/doi/agency", lane="doi")
    finally:
        await first.aclose()
        await second.aclose()
    assert isinstance(again, Reply) and again.status == 200, again


async def test_retry_after_seen_by_one_process_pauses_another(
    hostile: HostileServer, tmp_path: Path
) -> None:
    hostile.route("/busy", Behaviour("429", retry_after="2"))
    hostile.route("/works", Behaviour("ok"))
    first, second = _client(tmp_path / "rate"), _client(tmp_path / "rate")
    await first.get(hostile.url + "/busy", lane="crossref")
    started = time.monotonic()
    reply = await second.get(hostile.url + "/works", lane="crossref")
    await first.aclose()
    await second.aclose()
    assert isinstance(reply, Reply)
    assert time.monotonic() - started >= 1.9


async def test_a_retry_after_date_is_read_against_the_reply_s_own_date(
    hostile: HostileServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Retry-After`` as an HTTP date two seconds after the reply's ``Date``, read by a
    machine whose clock is an hour behind: the service is paused two seconds, where it was
    an hour and two seconds (every request to it failing meanwhile)."""
    behind = types.SimpleNamespace(time=lambda: time.time() - 3600.0, monotonic=time.monotonic)
    monkeypatch.setattr(rate_limit, "time", behind)
    http = HttpClient(limits={"crossref": Limit(100.0, 1, 4)}, retry=RetryPolicy(max_retries=0))
    # the server's Date is its clock's second; the date asked for two seconds after it
    hostile.route("/busy", Behaviour("429", retry_after=formatdate(time.time() + 2, usegmt=True)))
    refused = await http.get(hostile.url + "/busy", lane="crossref")
    await http.aclose()
    assert isinstance(refused, Failure) and refused.status == 429
    assert 0.5 <= http.bucket("crossref").paused_for() <= 4.0


def test_a_budget_reset_time_is_read_against_the_reply_s_own_date() -> None:
    """OpenAlex's ``x-ratelimit-reset`` as an epoch time five seconds after the reply's
    ``Date``, from a server whose clock is an hour ahead: the lane pauses five seconds."""
    server_now = time.time() + 3600.0
    bucket = rate_limit.TokenBucket(Limit(10.0))
    bucket.adapt(
        {
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": str(int(server_now) + 5),
            "date": formatdate(int(server_now), usegmt=True),
        }
    )
    assert 4.0 <= bucket.paused_for() <= 6.0


@pytest.mark.parametrize("value", ["-30", "nan", "inf", "-inf"])
async def test_a_retry_after_no_delay_can_be_is_no_retry_after(
    hostile: HostileServer, value: str
) -> None:
    """``Retry-After: -30`` (or NaN, or infinity) gives no delay: the retry backs off as
    without the header, where a negative or NaN value retried at once (hammering a service
    that asked for a pause) and infinity closed the service for a day."""
    hostile.route("/busy", Behaviour("429", retry_after=value))
    http = HttpClient(
        limits={"crossref": Limit(100.0, 1, 4)},
        retry=RetryPolicy(max_retries=1, backoff_base=0.5),
    )
    refused = await http.get(hostile.url + "/busy", lane="crossref")
    await http.aclose()
    assert isinstance(refused, Failure) and refused.reason == "rate limited"
    first, second = hostile.seen("/busy")
    assert second.at - first.at >= 0.45
