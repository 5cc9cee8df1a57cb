"""The settings clients/vscode sends (src/settings.ts, run in Node as the extension runs it):
only what the user set, so a workspace's ``.citewarden.toml`` is not overridden by the
defaults VS Code holds for every contributed property."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from editor_env import REPO, TOOLS, missing

from citewarden.lsp.config import ConfigSources
from citewarden.settings_schema import vscode_configuration

pytestmark = pytest.mark.editor

EXTENSION = REPO / "clients" / "vscode"
RUN = """
const fs = require('fs');
const ts = require(process.argv[1] + '/node_modules/typescript');
const source = fs.readFileSync(process.argv[1] + '/src/settings.ts', 'utf8');
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
}).outputText;
const module = { exports: {} };
new Function('module', 'exports', 'require', js)(module, module.exports, require);
const manifest = JSON.parse(fs.readFileSync(process.argv[1] + '/package.json', 'utf8'));
const { inspected, section } = JSON.parse(process.argv[2]);
const keys = module.exports.contributedKeys(manifest, 'citewarden');
const sent = module.exports.explicitSettings(keys, (key) => inspected[key], section);
process.stdout.write(JSON.stringify({ keys, sent }));
"""


def _node() -> str:
    node = TOOLS / "bin" / "node"
    found = str(node) if node.exists() else shutil.which("node")
    if found is None:
        missing("Node (.tools/bin/node or node on PATH)", "run scripts/install-editors")
    if not (EXTENSION / "node_modules" / "typescript").is_dir():
        missing("the extension's npm packages (clients/vscode/node_modules)", "npm ci there")
    return found


def _defaults() -> dict[str, Any]:
    """The ``citewarden`` section as VS Code's ``get`` gives it: every contributed default."""
    section: dict[str, Any] = {}
    for dotted, schema in vscode_configuration()["properties"].items():
        *parents, leaf = dotted.removeprefix("citewarden.").split(".")
        node = section
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = schema["default"]
    return section


def _sent(inspected: dict[str, Any], section: dict[str, Any]) -> dict[str, Any]:
    proc = subprocess.run(
        [
            _node(),
            "-e",
            RUN,
            str(EXTENSION),
            json.dumps({"inspected": inspected, "section": section}),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    keys = {f"citewarden.{k}" for k in out["keys"]}
    assert keys == set(vscode_configuration()["properties"])
    return dict(out["sent"])


def test_only_the_values_set_are_sent_the_most_specific_scope_first() -> None:
    section = _defaults()
    section["verify"]["sources"] = ["crossref"]
    section["verify"]["enable"] = False  # not contributed: a typo the server reports
    section["debounce_ms"] = 50
    inspected = {
        "verify.sources": {"workspaceValue": ["doi"], "workspaceFolderValue": ["crossref"]},
        "debounce_ms": {"globalValue": 50},
        # set to its default: still the user's choice, so sent
        "verify.citation_sites": {"globalValue": True},
        "verify.enabled": {"defaultValue": True},
        "server.command": {"globalValue": ["citewarden", "serve"]},
    }
    assert _sent(inspected, section) == {
        "debounce_ms": 50,
        "verify": {"sources": ["crossref"], "citation_sites": True, "enable": False},
        "server": {"command": ["citewarden", "serve"]},
    }


def test_a_settings_file_survives_the_editors_defaults(tmp_path: Path) -> None:
    """What the extension sends, read by the server after the workspace's settings file:
    the file's values stand where the editor sets nothing, the editor's where it does."""
    (tmp_path / ".citewarden.toml").write_text(
        'debounce_ms = 1000\n[verify]\nsources = ["crossref"]\nenabled = false\n',
        encoding="utf-8",
    )
    sent = _sent({"verify.offline": {"workspaceValue": True}}, _defaults())
    settings, problems = ConfigSources(root=tmp_path, client=sent).resolve()
    assert problems == []
    assert settings.debounce_ms == 1000
    assert settings.verify.sources == ("crossref",) and settings.verify.enabled is False
    assert settings.verify.offline is True
