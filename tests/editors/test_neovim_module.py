"""clients/neovim's Lua module in both Neovims, without a server: root detection, the client
configuration, the ``citewarden/status`` handler with :CitewardenStatus, and key detection."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from editor_env import REPO, VENV_BIN, missing, version_of

pytestmark = pytest.mark.editor

UNIT = Path(__file__).parent / "nvim_unit.lua"
#: (name, line, 0-based column counted in characters, key or null) for the key under the
#: cursor; the VS Code client's keyAt is checked against the same cases (test_vscode_key_at.py).
KEY_CASES = Path(__file__).parent / "key_at_cases.json"
PLUGIN = REPO / "clients" / "neovim"


@pytest.mark.parametrize(
    ("nvim", "version"),
    [
        pytest.param(Path("/usr/bin/nvim"), "0.7", id="0.7"),
        pytest.param(VENV_BIN / "nvim", "0.11", id="0.11"),
    ],
)
def test_lua_module(nvim: Path, version: str, tmp_path: Path) -> None:
    found = version_of(nvim) if nvim.exists() else ""
    if not found.startswith(f"NVIM v{version}."):
        missing(
            f"Neovim {version} at {nvim}", "run scripts/system-deps and scripts/install-editors"
        )
    out = tmp_path / "unit.json"
    env = dict(
        os.environ,
        CITEWARDEN_NVIM_PLUGIN=str(PLUGIN),
        CITEWARDEN_UNIT_DIR=str(tmp_path / "scratch"),
        CITEWARDEN_UNIT_OUT=str(out),
        CITEWARDEN_KEY_CASES=str(KEY_CASES),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    proc = subprocess.run(
        [str(nvim), "--headless", "-u", str(UNIT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    result = json.loads(out.read_text()) if out.exists() else {"failures": [proc.stderr]}
    assert result["failures"] == [], "\n".join(result["failures"])
    assert proc.returncode == 0
    assert result["checks"] >= 26 + len(json.loads(KEY_CASES.read_text()))  # every check ran
