"""Static checks run with the suite: import contracts, lint and types."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from paths import TESTS

ROOT = TESTS.parent
BIN = Path(sys.executable).parent


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_layering_contracts_hold() -> None:
    result = _run(str(BIN / "lint-imports"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_is_clean() -> None:
    result = _run(str(BIN / "ruff"), "check", "server", "tests", "bench", "examples")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_is_clean() -> None:
    result = _run(str(BIN / "mypy"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run(str(BIN / "ruff"), "format", "--check", "server", "tests", "bench", "examples")
    assert result.returncode == 0, result.stdout + result.stderr
