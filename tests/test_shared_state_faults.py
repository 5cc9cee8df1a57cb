"""Shared request state that cannot be read or written (a full disk, an I/O error, a FIFO in
its place) turns sharing off with one warning; requests go ahead on the in-process state."""

from __future__ import annotations

import errno
import logging
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import citewarden.verify.shared_rate as shared_rate
from citewarden.verify.shared_rate import SharedRate
from citewarden.verify.shared_slots import SharedSlots

HOST = "api.crossref.org"


class _FailingOs:
    """The ``os`` module, but the named call fails as a full or failing disk makes it."""

    def __init__(self, name: str, code: int) -> None:
        self._name, self._code = name, code

    def __getattr__(self, attr: str) -> Any:
        if attr == self._name:

            def fail(*args: object) -> None:
                raise OSError(self._code, os.strerror(self._code))

            return fail
        return getattr(os, attr)


@pytest.mark.parametrize(
    ("call", "code"),
    [("write", errno.ENOSPC), ("ftruncate", errno.EIO), ("read", errno.EIO)],
)
def test_state_that_cannot_be_read_or_written_goes_on_in_process(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    call: str,
    code: int,
) -> None:
    rate = SharedRate(tmp_path / "rate", clock=lambda: 1000.0)
    monkeypatch.setattr(shared_rate, "os", _FailingOs(call, code))
    with caplog.at_level(logging.WARNING, logger="citewarden.http"):
        assert rate.reserve(HOST, "crossref", 2.0) == 0.0
        assert rate.reserve(HOST, "crossref", 2.0) == 2.0  # the slot taken is remembered
        rate.pause(HOST, "crossref", 10.0)
        assert rate.paused_for(HOST, "crossref") == 10.0
    assert not rate.shared
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and os.strerror(code) in warnings[0], warnings


def _unblock(fifo: Path) -> None:
    """Let a reader blocked on ``fifo`` go."""
    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(fd, b"{}")
    finally:
        os.close(fd)


def test_a_fifo_in_place_of_the_rate_file_is_never_read(tmp_path: Path) -> None:
    rate = SharedRate(tmp_path / "rate", clock=lambda: 1000.0)
    fifo = tmp_path / "rate" / f"{HOST}.json"
    os.mkfifo(fifo)
    waits: list[float] = []
    worker = threading.Thread(
        target=lambda: waits.extend(rate.reserve(HOST, "crossref", 2.0) for _ in range(2)),
        daemon=True,
    )
    worker.start()
    worker.join(30)
    if worker.is_alive():
        _unblock(fifo)
        worker.join(30)
        pytest.fail("reserve() blocked on a FIFO")
    assert waits == [0.0, 2.0] and not rate.shared


async def test_a_fifo_in_place_of_a_slot_file_is_never_used(tmp_path: Path) -> None:
    slots = SharedSlots(tmp_path / "rate")
    os.mkfifo(slots.path(HOST, "crossref", 0))
    async with slots.hold(HOST, "crossref", 1, 5.0):
        assert not slots.shared


def test_times_written_by_a_clock_running_ahead_do_not_hold_requests_back(
    tmp_path: Path,
) -> None:
    """A process whose clock runs an hour ahead (another machine sharing the cache, or this
    clock put back since) reserves a send slot and pauses the service for 10 s: a process
    on the right clock waits those 10 s, not an hour and 10 s, and sends at once after."""
    now = 1_000_000.0
    ahead = SharedRate(tmp_path / "rate", clock=lambda: now + 3600.0)
    right = SharedRate(tmp_path / "rate", clock=lambda: now)
    assert ahead.reserve(HOST, "crossref", 0.2) == 0.0
    assert right.reserve(HOST, "crossref", 0.2) == pytest.approx(0.2)
    ahead.pause(HOST, "crossref", 10.0)
    assert right.paused_for(HOST, "crossref") == pytest.approx(10.0)
    assert right.reserve(HOST, "crossref-query", 1.0) == pytest.approx(10.0)
    ahead.advertise(HOST, "crossref", 2)
    assert right.advertised(HOST, "crossref") == 2


def test_a_time_of_nan_in_the_state_is_no_time(tmp_path: Path) -> None:
    """A pause or a send slot written as NaN (valid to Python's JSON reader) is read as no
    time: a pause taken on top of it holds, where it became NaN and was lost."""
    host = "api.crossref.org"
    (tmp_path / f"{host}.json").write_text(
        '{"paused": {"crossref": NaN}, "lanes": {"crossref-query": NaN}}'
    )
    clock = 1000.0
    rate = SharedRate(tmp_path, clock=lambda: clock)
    assert rate.paused_for(host, "crossref") == 0.0
    assert rate.pause(host, "crossref", 5.0) == 5.0
    assert rate.paused_for(host, "crossref") == 5.0
    assert rate.reserve(host, "crossref-query", 0.5) == 5.0
