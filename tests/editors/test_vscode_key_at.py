"""clients/vscode's ``keyAt`` (src/citationKey.ts, the key under the cursor) in Node, against
the cases clients/neovim's ``key_at`` is checked with (key_at_cases.json): the TypeScript is
transpiled by the extension's own compiler and run as the extension would run it."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from editor_env import REPO, TOOLS, missing

pytestmark = pytest.mark.editor

EXTENSION = REPO / "clients" / "vscode"
CASES = Path(__file__).parent / "key_at_cases.json"
RUN = """
const fs = require('fs');
const ts = require(process.argv[1] + '/node_modules/typescript');
const source = fs.readFileSync(process.argv[1] + '/src/citationKey.ts', 'utf8');
const js = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
}).outputText;
const module = { exports: {} };
new Function('module', 'exports', 'require', js)(module, module.exports, require);
const cases = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
// a column counted in characters (code points) made the UTF-16 unit VS Code counts
const unit = (line, col) => [...line].slice(0, col).join('').length;
const got = cases.map(([, line, col]) => module.exports.keyAt(line, unit(line, col)) ?? null);
process.stdout.write(JSON.stringify(got));
"""


def test_key_at_delimits_keys_as_latex_and_pandoc_do() -> None:
    node = TOOLS / "bin" / "node"
    found = str(node) if node.exists() else shutil.which("node")
    if found is None:
        missing("Node (.tools/bin/node or node on PATH)", "run scripts/install-editors")
    if not (EXTENSION / "node_modules" / "typescript").is_dir():
        missing("the extension's npm packages (clients/vscode/node_modules)", "npm ci there")
    proc = subprocess.run(
        [str(found), "-e", RUN, str(EXTENSION), str(CASES)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    cases = json.loads(CASES.read_text(encoding="utf-8"))
    got = json.loads(proc.stdout)
    wrong = [
        (name, line, col, want, g)
        for (name, line, col, want), g in zip(cases, got, strict=True)
        if g != want
    ]
    assert wrong == []
