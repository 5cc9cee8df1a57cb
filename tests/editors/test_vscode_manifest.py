"""The VS Code manifest's settings are generated from citewarden.settings (one source of truth)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from editor_env import REPO

from citewarden.model import Code
from citewarden.settings import SEVERITY_NAMES, Settings, merge_settings
from citewarden.settings_schema import (
    CLIENT_ONLY_KEYS,
    CLIENT_PROPERTIES,
    server_properties,
    vscode_configuration,
)

EXTENSION = REPO / "clients" / "vscode"
MANIFEST = EXTENSION / "package.json"


def manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def test_package_json_configuration_is_the_generated_one() -> None:
    assert manifest()["contributes"]["configuration"] == vscode_configuration(), (
        "regenerate with: .venv/bin/python -m citewarden.settings_schema "
        "--update clients/vscode/package.json"
    )


def test_regenerating_leaves_package_json_byte_for_byte(tmp_path: Path) -> None:
    copy = tmp_path / "package.json"
    shutil.copyfile(MANIFEST, copy)
    proc = subprocess.run(
        [sys.executable, "-m", "citewarden.settings_schema", "--update", str(copy)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "up to date" in proc.stderr
    assert copy.read_bytes() == MANIFEST.read_bytes()


def test_module_prints_the_configuration() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "citewarden.settings_schema"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout) == vscode_configuration()


def _nest(flat: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for dotted, value in flat.items():
        node = out
        *parents, leaf = dotted.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = value
    return out


def test_editor_defaults_are_the_server_defaults() -> None:
    """What VS Code sends with no user settings (the section minus client-only keys) changes nothing."""
    props = vscode_configuration()["properties"]
    section = _nest({k.removeprefix("citewarden."): v["default"] for k, v in props.items()})
    for key in CLIENT_ONLY_KEYS:
        section.pop(key)
    settings, problems = merge_settings(Settings(), section, "vscode")
    assert problems == []
    assert settings == Settings()


def _flat_server_keys() -> list[str]:
    return list(server_properties())


def test_every_setting_and_code_is_offered() -> None:
    props = vscode_configuration()["properties"]
    severity = props["citewarden.severity"]["properties"]
    assert set(severity) == {c.value for c in Code}
    for choice in severity[Code.DANGLING.value]["enum"]:
        assert choice in SEVERITY_NAMES
    user_set = _nest({"severity": {Code.ORPHAN.value: "hint"}, "verify.concurrency": 3})
    settings, problems = merge_settings(Settings(), user_set, "vscode")
    assert problems == [] and settings.verify.concurrency == 3
    client_keys = {k.removeprefix("citewarden.") for k in props} - set(_flat_server_keys())
    assert client_keys == set(CLIENT_PROPERTIES)
    assert {k.split(".")[0] for k in client_keys} == set(CLIENT_ONLY_KEYS)


def test_client_strips_exactly_the_client_only_keys() -> None:
    source = (EXTENSION / "src" / "client.ts").read_text(encoding="utf-8")
    match = re.search(r"const CLIENT_ONLY_KEYS = \[([^\]]*)\]", source)
    assert match
    assert tuple(re.findall(r"'([^']+)'", match.group(1))) == CLIENT_ONLY_KEYS


def test_activation_and_commands() -> None:
    data = manifest()
    events = set(data["activationEvents"])
    for language in ("latex", "tex", "bibtex", "markdown", "quarto", "rmd"):
        assert f"onLanguage:{language}" in events
    assert any(e.startswith("workspaceContains:") for e in events)
    commands = {c["command"] for c in data["contributes"]["commands"]}
    assert {
        "citewarden.verifyAll",
        "citewarden.verifyEntry",
        "citewarden.clearCache",
        "citewarden.report",
        "citewarden.addReference",
        "citewarden.restartServer",
    } <= commands
    assert data["dependencies"]["vscode-languageclient"].lstrip("^~").startswith("9.")
    lock = json.loads((EXTENSION / "package-lock.json").read_text(encoding="utf-8"))
    assert lock["packages"]["node_modules/vscode-languageclient"]["version"].startswith("9.")
