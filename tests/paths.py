"""Paths of the test data (import this, never ``conftest``)."""

from pathlib import Path

TESTS = Path(__file__).parent
DATA = TESTS / "data"
