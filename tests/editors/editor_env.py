"""Shared pieces of the editor tests: where the tools are, and what to do when one is missing.

The editors are installed by ``scripts/install-editors`` (code-server, Node 24, playwright-core,
Neovim 0.11) and ``scripts/system-deps`` (Debian's Neovim 0.7 and chromium).  When a tool is
missing the test is skipped locally, and fails with the fix when the ``CI`` variable is set.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

REPO = Path(__file__).resolve().parents[2]
TOOLS = REPO / ".tools"
ARTIFACTS = REPO / "artifacts" / "editors"
EXAMPLES = REPO / "examples"
VENV_BIN = Path(sys.executable).parent


def missing(what: str, fix: str) -> NoReturn:
    """Skip (locally) or fail (when $CI is set) because ``what`` is not available."""
    message = f"{what} is not available; {fix}"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def example_project(name: str, tmp_path: Path) -> Path:
    """A scratch copy of ``examples/<name>`` (the editors write to it)."""
    source = EXAMPLES / name
    if not source.is_dir():
        missing(f"the example project examples/{name}", "it is part of the repository")
    target = tmp_path / name
    shutil.copytree(source, target)
    return target


def server_env(tmp_path: Path) -> dict[str, str]:
    """Environment for an editor process: `citewarden` on PATH, caches and state in tmp_path."""
    if not (VENV_BIN / "citewarden").exists():
        missing("the citewarden command", "run scripts/setup")
    env = dict(os.environ)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    for var in ("XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"):
        env[var] = str(tmp_path / "xdg" / var.lower())
    env["CITEWARDEN_CACHE_DIR"] = str(tmp_path / "citewarden-cache")
    return env


def version_of(program: Path) -> str:
    """First line of ``program --version`` (empty when it does not run)."""
    try:
        out = subprocess.run(
            [str(program), "--version"], capture_output=True, text=True, timeout=30
        ).stdout
    except OSError:
        return ""
    return out.splitlines()[0] if out else ""


def entry_lines(bib: str, key: str) -> range:
    """0-based line numbers of the entry ``key`` in a .bib text."""
    lines = bib.split("\n")
    first = next(i for i, line in enumerate(lines) if re.match(rf"\s*@\w+\s*{{\s*{key}\s*,", line))
    last = next(
        (i for i in range(first + 1, len(lines)) if lines[i].lstrip().startswith("@")), len(lines)
    )
    return range(first, last)
