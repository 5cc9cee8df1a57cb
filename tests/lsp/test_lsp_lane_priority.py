"""The check cycle's thread: normal priority for the first index, nicer after it."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from citewarden.lsp.check_cycle import LANE_NICENESS, CheckCycle


def _niceness(_work: Any) -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="threads niced apart on Linux")
def test_the_lane_is_niced_only_once_the_first_index_is_done() -> None:
    session = SimpleNamespace(ready=asyncio.Event())
    cycle = CheckCycle(session)  # type: ignore[arg-type]
    try:
        base = os.getpriority(os.PRIO_PROCESS, 0)
        first = cycle._thread.submit(cycle._run, _niceness, None, ()).result(timeout=30)
        assert first == base  # the first index: nothing to give way to, requests wait for it
        session.ready.set()
        later = cycle._thread.submit(cycle._run, _niceness, None, ()).result(timeout=30)
        assert later == min(base + LANE_NICENESS, 19)
    finally:
        cycle.close()
