"""Politeness across processes: one machine keeps to a source's published rate however many
citewarden processes run, and a ``Retry-After`` pauses the whole host."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from citewarden.verify.http import Failure, HttpClient, Limit, Reply, RetryPolicy
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
