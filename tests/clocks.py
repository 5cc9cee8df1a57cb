"""A clock the test sets by hand (``clock.now += DAY``), for the cache and the plan."""

from __future__ import annotations

import pytest


class Clock:
    """Reads ``now``; starts at an arbitrary epoch second."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()
