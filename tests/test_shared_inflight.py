"""Caps on requests in flight across processes: however many citewarden processes share a
cache directory, a host sees no more requests at once than it allows, and a process that dies
holding a slot frees it."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citewarden.verify.http import Failure, HttpClient, Limit, Reply, entry_budget
from citewarden.verify.shared_slots import SharedSlots, SlotTimeout
from cli_process import ROOT
from hostile_server import Behaviour, HostileServer, check_entry, hostile, unverified_reasons

__all__ = ["hostile"]

#: One process: ``n`` requests at once on a lane allowing ``concurrency`` in flight.
_CLIENT = """
import asyncio, sys, time
from citewarden.verify.http import HttpClient, Limit, Reply

async def main(url, shared, start, concurrency, n):
    http = HttpClient(limits={"crossref": Limit(100.0, 1, concurrency)}, shared_dir=shared or None)
    await asyncio.sleep(max(0.0, start - time.time()))  # all processes begin together
    replies = await asyncio.gather(*(http.get(url, lane="crossref") for _ in range(n)))
    await http.aclose()
    sys.exit(0 if all(isinstance(r, Reply) for r in replies) else 1)

asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])))
"""

_ENV = {"PYTHONPATH": str(ROOT / "server"), "PATH": "/usr/bin:/bin"}


def _spawn(
    url: str, shared: str, start: float, concurrency: int, n: int
) -> subprocess.Popen[bytes]:
    args = [url, shared, str(start), str(concurrency), str(n)]
    return subprocess.Popen([sys.executable, "-c", _CLIENT, *args], env=_ENV)


def _three_processes(
    hostile: HostileServer, shared: str, concurrency: int, n: int = 3
) -> tuple[int, int]:
    """(peak requests in flight at once, requests seen) for three processes at once."""
    start = time.time() + 3.0
    procs = [_spawn(hostile.url + "/slow", shared, start, concurrency, n) for _ in range(3)]
    for p in procs:
        assert p.wait(timeout=60) == 0
    return hostile.peak["/slow"], len(hostile.seen("/slow"))


def _client(shared: Path, concurrency: int = 1) -> HttpClient:
    return HttpClient(limits={"crossref": Limit(100.0, 1, concurrency)}, shared_dir=shared)


def test_three_processes_keep_to_a_lane_cap_of_one(hostile: HostileServer, tmp_path: Path) -> None:
    hostile.route("/slow", Behaviour("slow", delay=0.15))
    peak, seen = _three_processes(hostile, str(tmp_path / "rate"), concurrency=1)
    assert seen == 9
    assert peak == 1


def test_without_a_shared_directory_each_process_has_its_own_cap(
    hostile: HostileServer,
) -> None:
    """The comparison that shows what sharing prevents."""
    hostile.route("/slow", Behaviour("slow", delay=0.3))
    peak, seen = _three_processes(hostile, "", concurrency=1)
    assert seen == 9
    assert peak >= 2


async def test_advertised_concurrency_holds_for_every_process(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """Crossref's ``x-concurrency-limit: 1``, seen once, holds for three processes whose
    lane would otherwise allow three requests each at once."""
    headers = {"x-concurrency-limit": "1"}
    hostile.route("/slow", Behaviour("slow", delay=0.15, headers=headers))
    first = _client(tmp_path / "rate", concurrency=3)
    assert isinstance(await first.get(hostile.url + "/slow", lane="crossref"), Reply)
    await first.aclose()
    hostile.peak.clear()
    peak, seen = _three_processes(hostile, str(tmp_path / "rate"), concurrency=3)
    assert seen == 1 + 9
    assert peak == 1


#: Holds its one slot on a request the server answers only after a minute.
_HOLDER = """
import asyncio, sys
from citewarden.verify.http import HttpClient, Limit

async def main(url, shared):
    http = HttpClient(limits={"crossref": Limit(100.0, 1, 1)}, shared_dir=shared, timeout=120)
    await http.get(url, lane="crossref")

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def _holder(hostile: HostileServer, shared: Path) -> subprocess.Popen[bytes]:
    hostile.route("/hang", Behaviour("slow", delay=60.0))
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, hostile.url + "/hang", str(shared)], env=_ENV
    )
    deadline = time.monotonic() + 30
    while not hostile.seen("/hang"):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)
    return proc


async def test_a_wait_for_a_slot_ends_at_the_entry_deadline(
    hostile: HostileServer, tmp_path: Path
) -> None:
    hostile.route("/works", Behaviour("ok"))
    holder = _holder(hostile, tmp_path / "rate")
    try:
        http = _client(tmp_path / "rate")
        started = time.monotonic()
        with entry_budget(1.0):
            outcome = await http.get(hostile.url + "/works", lane="crossref")
        waited = time.monotonic() - started
        await http.aclose()
    finally:
        holder.kill()
        holder.wait()
    assert isinstance(outcome, Failure)
    assert outcome.reason.startswith("no free request slot for 127.0.0.1 within 1.0 s")
    assert 0.9 <= waited < 3.0
    assert not hostile.seen("/works")  # nothing was sent past the cap


async def test_a_killed_holder_frees_its_slot(hostile: HostileServer, tmp_path: Path) -> None:
    hostile.route("/works", Behaviour("ok"))
    holder = _holder(hostile, tmp_path / "rate")
    os.kill(holder.pid, signal.SIGKILL)
    holder.wait()
    http = _client(tmp_path / "rate")
    started = time.monotonic()
    with entry_budget(5.0):
        outcome = await http.get(hostile.url + "/works", lane="crossref")
    await http.aclose()
    assert isinstance(outcome, Reply)
    assert time.monotonic() - started < 2.0


async def test_slots_are_per_process_where_the_directory_cannot_be_made(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "file").write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="citewarden.http"):
        slots = SharedSlots(tmp_path / "file" / "rate")
        first = slots.hold("127.0.0.1", "lane-crossref", 1, 0.0)
        second = slots.hold("127.0.0.1", "lane-crossref", 1, 0.0)
        async with first, second:
            pass  # two at once: only the process's own caps apply
        slots._disable("again")  # said once only
    assert not slots.shared
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1
    assert said[0].startswith("caps on requests in flight are not shared between processes")


async def test_a_slot_is_held_for_the_block_and_released_after(tmp_path: Path) -> None:
    slots = SharedSlots(tmp_path / "rate")
    async with slots.hold("h", "lane-x", 1, 0.0):
        with pytest.raises(SlotTimeout) as raised:
            async with slots.hold("h", "lane-x", 1, 0.2):
                pass
        assert 0.2 <= raised.value.waited < 1.0
    async with slots.hold("h", "lane-x", 1, 0.0):
        pass  # free again
    assert sorted(p.name for p in (tmp_path / "rate").iterdir()) == ["h.lane-x.slot0"]


#: Another process holding every in-flight slot of the given lanes on 127.0.0.1 until killed.
_SQUATTER = """
import fcntl, os, sys, time
from citewarden.verify.shared_slots import SharedSlots

slots = SharedSlots(sys.argv[1])
held = []
for spec in sys.argv[2:]:
    lane, count = spec.split("=")
    for i in range(int(count)):
        fd = os.open(slots.path("127.0.0.1", "lane-" + lane, i), os.O_RDWR | os.O_CREAT)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held.append(fd)
print("held", flush=True)
time.sleep(120)
"""


def test_check_reports_an_entry_unverified_when_no_slot_frees_in_time(
    hostile: HostileServer, tmp_path: Path
) -> None:
    """``citewarden check`` while another process holds every slot of the lanes it needs:
    the entry is ``unverified`` with the reason, within its budget, and nothing is sent."""
    from citewarden.verify.rate_limit import PUBLISHED_LIMITS
    from hostile_server import CROSSREF_DOI

    for path in (f"/crossref/works/{CROSSREF_DOI}", "/crossref/works", f"/doi/{CROSSREF_DOI}"):
        hostile.route(path, Behaviour("ok"))
    lanes = ("crossref", "crossref-query", "doi")
    specs = [f"{lane}={PUBLISHED_LIMITS[lane].concurrency}" for lane in lanes]
    squatter = subprocess.Popen(
        [sys.executable, "-c", _SQUATTER, str(tmp_path / "cache" / "rate"), *specs],
        env=_ENV,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert squatter.stdout is not None and squatter.stdout.readline() == "held\n"
        done, elapsed = check_entry(hostile, tmp_path, "timeout = 1\nentry-budget = 1.5\n")
    finally:
        squatter.kill()
        squatter.wait()
    reasons = unverified_reasons(done)
    assert "no free request slot for 127.0.0.1" in reasons, reasons
    assert not hostile.log  # nothing went past the caps
    assert elapsed < 30.0


def test_an_advertised_concurrency_holds_for_an_hour_and_damage_is_ignored(
    tmp_path: Path,
) -> None:
    from citewarden.verify.shared_rate import ADVERTISED_FOR, SharedRate

    now = [1000.0]
    rate = SharedRate(tmp_path / "rate", clock=lambda: now[0])
    assert rate.advertised("api.crossref.org", "crossref") is None
    rate.advertise("api.crossref.org", "crossref", 1)
    other = SharedRate(tmp_path / "rate", clock=lambda: now[0])  # another process
    assert other.advertised("api.crossref.org", "crossref") == 1
    assert other.advertised("api.crossref.org", "openalex") is None
    now[0] += ADVERTISED_FOR + 1
    assert other.advertised("api.crossref.org", "crossref") is None
    state = tmp_path / "rate" / "api.crossref.org.json"
    for damaged in ('{"concurrency": {"crossref": [true, 9e9]}}', '{"concurrency": [1]}'):
        state.write_text(damaged)
        assert other.advertised("api.crossref.org", "crossref") is None
