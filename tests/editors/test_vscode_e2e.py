"""clients/vscode in real VS Code: code-server (Node 24) driven by Debian's chromium.

The test packages the extension as a .vsix with vsce, installs it into a fresh code-server,
opens a copy of the example project and loads the workbench in headless chromium.  The
extension's self-test (CITEWARDEN_VSCODE_SELFTEST) then works through VS Code's own API in
the real extension host: it waits for the dangling-citation diagnostic, applies the
"Change to `key`" quick fix and saves.  At each step the browser side checks what a user
sees (squiggle, Problems panel, quick fix menu, status bar) and takes a screenshot, kept
under artifacts/editors/vscode/.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from editor_env import (
    ARTIFACTS,
    REPO,
    TOOLS,
    VENV_BIN,
    entry_lines,
    example_project,
    missing,
    server_env,
)

from citewarden.settings import SOURCE_NAMES

pytestmark = pytest.mark.editor

HERE = Path(__file__).parent
EXTENSION = REPO / "clients" / "vscode"
NODE_BIN = TOOLS / "bin"
CODE_SERVER = TOOLS / "code-server" / "node_modules" / ".bin" / "code-server"
PLAYWRIGHT = TOOLS / "e2e" / "node_modules"
CHROMIUM = Path("/usr/bin/chromium")
SHOTS = ARTIFACTS / "vscode"
FIX_TITLE = re.compile(r"^Change to `([^`]+)`")
#: The deliberate typo of the example project (examples/PROVENANCE.md) and its correction.
DANGLING_KEY = "nelder_simplex_1956"
CORRECT_KEY = "nelder_simplex_1965"
#: Snapshot of source records the example's references are verified against (offline).
SNAPSHOT = REPO / "examples" / "snapshot.jsonl"
#: The sources the workspace's .citewarden.toml asks (all but DOAJ): VS Code's default for
#: ``citewarden.verify.sources``, all of them, must not override it.
FILE_SOURCES = [name for name in SOURCE_NAMES if name != "doaj"]
#: The example's fabricated reference (examples/PROVENANCE.md) and the codes of such a finding.
FABRICATED_KEY = "okafor_curvature_2017"
FABRICATION_CODES = {"reference-not-found", "doi-not-found", "doi-other-work"}
SERVER_COMMANDS = (
    "citewarden.clearCache",
    "citewarden.verifyAll",
    "citewarden.verifyEntry",
    "citewarden.report",
)
INSTALL = "run scripts/install-editors"

#: What a fresh profile would otherwise show over the editor (welcome page, tips, chat, trust).
USER_SETTINGS = {
    "workbench.startupEditor": "none",
    "security.workspace.trust.enabled": False,
    "telemetry.telemetryLevel": "off",
    "update.mode": "none",
    "extensions.autoUpdate": False,
    "extensions.autoCheckUpdates": False,
    "extensions.ignoreRecommendations": True,
    "workbench.tips.enabled": False,
    "workbench.welcomePage.walkthroughs.openOnInstall": False,
    "chat.disableAIFeatures": True,
    "window.commandCenter": False,
    "files.autoSave": "off",
    "workbench.secondarySideBar.defaultVisibility": "hidden",
    "citewarden.trace.server": "messages",
    # tests never touch the network: verification uses only the cache and the snapshot file
    "citewarden.verify.offline": True,
}


def _tool_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{NODE_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["npm_config_cache"] = str(TOOLS / "npm-cache")
    env["npm_config_update_notifier"] = "false"
    return env


def _check_tools() -> None:
    if not (NODE_BIN / "node").exists():
        missing("Node 24 (.tools/bin/node)", INSTALL)
    if not CODE_SERVER.exists():
        missing("code-server (.tools/code-server)", INSTALL)
    if not (PLAYWRIGHT / "playwright-core").is_dir():
        missing("playwright-core (.tools/e2e)", INSTALL)
    if not (EXTENSION / "node_modules" / "vscode-languageclient").is_dir():
        missing("the extension's npm packages (clients/vscode/node_modules)", INSTALL)
    if not CHROMIUM.exists():
        missing("chromium (/usr/bin/chromium)", "run scripts/system-deps")


@pytest.fixture(scope="module")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension, compiled with tsc and packaged with vsce (runs `npm run compile`)."""
    _check_tools()
    out = tmp_path_factory.mktemp("vsix") / "citewarden.vsix"
    proc = subprocess.run(
        [
            str(NODE_BIN / "node"),
            str(EXTENSION / "node_modules" / "@vscode" / "vsce" / "vsce"),
            "package",
            "--allow-missing-repository",
            "--no-update-package-json",
            "-o",
            str(out),
        ],
        cwd=EXTENSION,
        env=_tool_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and out.exists(), proc.stdout + proc.stderr
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"code-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"code-server did not answer on {url} within {seconds} s")


@contextlib.contextmanager
def run_code_server(
    vsix: Path,
    tmp_path: Path,
    project: Path,
    settings: dict[str, Any],
    extra_env: dict[str, str] | None = None,
) -> Iterator[dict[str, Any]]:
    """A fresh code-server with the extension installed and these user settings, serving
    ``project``; the self-test directory and the log in the result."""
    run = tmp_path / "code-server"
    (run / "data" / "User").mkdir(parents=True)
    (run / "data" / "User" / "settings.json").write_text(json.dumps(settings, indent=2))
    port = _free_port()
    config = run / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    common = [
        "--config",
        str(config),
        "--user-data-dir",
        str(run / "data"),
        "--extensions-dir",
        str(run / "extensions"),
    ]
    env = server_env(tmp_path)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{NODE_BIN}{os.pathsep}{env['PATH']}"
    env.update(extra_env or {})
    installed = subprocess.run(
        [str(CODE_SERVER), *common, "--install-extension", str(vsix)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    selftest = tmp_path / "selftest"
    selftest.mkdir()
    env["CITEWARDEN_VSCODE_SELFTEST"] = str(selftest)
    # Keep this environment for the extension host: otherwise VS Code replaces it with the
    # environment of a login shell, whose PATH does not hold the test's virtualenv.
    env["VSCODE_CLI"] = "1"
    log = (run / "code-server.log").open("wb")
    # its own process group: code-server, its extension host and the language server end together
    proc = subprocess.Popen(
        [
            str(CODE_SERVER),
            *common,
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            str(project),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, 60)
        yield {"url": url, "project": project, "selftest": selftest, "log": run / "code-server.log"}
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=15)
        log.close()


@pytest.fixture(scope="module")
def code_server(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A fresh code-server with the extension installed, serving a copy of the example."""
    tmp_path = tmp_path_factory.mktemp("vscode")
    project = example_project("latex-paper", tmp_path)
    (project / ".citewarden.toml").write_text(
        f"[verify]\nsources = {json.dumps(FILE_SOURCES)}\n", encoding="utf-8"
    )
    settings: dict[str, Any] = dict(USER_SETTINGS)
    if not SNAPSHOT.exists():
        missing("examples/snapshot.jsonl", "it is part of the repository")
    settings["citewarden.verify.snapshot"] = str(shutil.copy(SNAPSHOT, tmp_path))
    with run_code_server(vsix, tmp_path, project, settings) as cs:
        yield cs


def _utf16_slice(text: str, start: int, end: int) -> tuple[str, str, str]:
    """Split ``text`` at UTF-16 offsets (VS Code's positions)."""
    units = text.encode("utf-16-le")
    return (
        units[: 2 * start].decode("utf-16-le"),
        units[2 * start : 2 * end].decode("utf-16-le"),
        units[2 * end :].decode("utf-16-le"),
    )


def drive(
    cs: dict[str, Any], spec: dict[str, Any], shots: Path = SHOTS
) -> tuple[dict[str, Any], dict[str, Any]]:
    selftest: Path = cs["selftest"]
    (selftest / "spec.json").write_text(json.dumps(spec))
    if shots.exists():
        shutil.rmtree(shots)
    shots.mkdir(parents=True)
    env = _tool_env()
    env.update(
        NODE_PATH=str(PLAYWRIGHT),
        CS_URL=cs["url"],
        WORKSPACE=str(cs["project"]),
        SELFTEST_DIR=str(selftest),
        SHOTS_DIR=str(shots),
        CHROMIUM=str(CHROMIUM),
        TIMEOUT_MS="240000",
        PROBLEMS_FILTERS=",".join(spec.get("problemFilters", [])),
    )
    proc = subprocess.run(
        [str(NODE_BIN / "node"), str(HERE / "vscode_driver.js")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    for name in ("result.json", "ui.json"):
        if (selftest / name).exists():
            shutil.copyfile(selftest / name, shots / name)
    shutil.copyfile(cs["log"], shots / "code-server.log")
    result = (
        json.loads((selftest / "result.json").read_text())
        if (selftest / "result.json").exists()
        else {}
    )
    ui = json.loads((selftest / "ui.json").read_text()) if (selftest / "ui.json").exists() else {}
    assert proc.returncode == 0 and result.get("ok"), (
        f"driver exit {proc.returncode}\n{proc.stdout[-3000:]}\n{proc.stderr[-2000:]}\n"
        f"self-test: {json.dumps(result)[:4000]}\nui: {json.dumps(ui)[:2000]}"
    )
    return result, ui


@pytest.fixture(scope="module")
def session(code_server: dict[str, Any]) -> dict[str, Any]:
    """One run of the self-test and the browser; the tests below read what it saw."""
    project: Path = code_server["project"]
    before = {p.resolve(): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    spec = {
        "file": "main.tex",
        "code": "dangling-citation",
        "key": DANGLING_KEY,
        "fixPrefix": "Change to",
        "pause": True,
        "resilience": True,
        "waitForCodes": sorted(FABRICATION_CODES),
        # the fabricated entry, its citation, and the entry with another work's DOI
        "waitForCount": 3,
        "extraWaitMs": 30000,
        "problemFilters": [DANGLING_KEY, FABRICATED_KEY],
        "serverCommands": [
            ["citewarden.clearCache", []],
            ["citewarden.verifyAll", []],
            ["citewarden.verifyEntry", [{"key": CORRECT_KEY}]],
            ["citewarden.report", []],
        ],
    }
    result, ui = drive(code_server, spec)
    return {"result": result, "ui": ui, "before": before, "project": project}


def test_extension_activates_with_its_commands(session: dict[str, Any]) -> None:
    result = session["result"]
    assert result["languageId"] in {"latex", "tex"}
    for command in (
        "citewarden.verifyAll",
        "citewarden.verifyEntry",
        "citewarden.clearCache",
        "citewarden.report",
        "citewarden.restartServer",
    ):
        assert command in result["commands"]
    # the settings VS Code sends are valid for the server (else it shows "invalid settings")
    assert not any("invalid settings" in t for t in session["ui"]["phases"]["after"]["toasts"])


def test_dangling_key_squiggle_problem_and_quick_fix(session: dict[str, Any]) -> None:
    result, ui, before = session["result"], session["ui"], session["before"]
    # what the user saw: a squiggle, the Problems entry, the quick fix menu
    diagnostics = ui["phases"]["diagnostics"]
    assert diagnostics.get("squiggles", 0) >= 1, diagnostics
    r = result["range"]
    assert r["line"] == r["endLine"]
    head, old_key, tail = _utf16_slice(result["lineBefore"], r["character"], r["endCharacter"])
    rows = diagnostics["filtered"][DANGLING_KEY]
    assert any(old_key in row and "dangling-citation" in row for row in rows), rows
    menu = ui["phases"]["quickfix"].get("menu", [])
    assert any(row.startswith("Change to") for row in menu), ui["phases"]["quickfix"]

    # the fix: only the key changed on disk, nothing else in the project
    title = FIX_TITLE.match(result["appliedTitle"])
    assert title, result["codeActions"]
    new_key = title.group(1)
    assert (old_key, new_key) == (DANGLING_KEY, CORRECT_KEY)
    assert result["applied"] is True and result["saved"] is True
    fixed = Path(result["file"]).resolve()
    assert fixed == (session["project"] / "sections" / "methods.tex").resolve()
    lines = before[fixed].decode("utf-8").split("\n")
    lines[r["line"]] = head + new_key + tail
    assert fixed.read_bytes() == "\n".join(lines).encode("utf-8")
    for path, data in before.items():
        if path != fixed:
            assert path.read_bytes() == data, f"{path} changed"

    # the diagnostic went away in VS Code and in the Problems panel
    assert not any(
        d["code"] == "dangling-citation" and old_key in d["message"]
        for d in result["diagnosticsAfter"]
    )
    assert not any(old_key in row for row in ui["phases"]["after"]["problems"])
    for shot in ("02_diagnostics.png", "03_quickfix_menu.png", "04_after_fix.png"):
        assert (SHOTS / shot).stat().st_size > 10_000


def test_the_workspace_settings_file_is_not_overridden_by_vscode_defaults(
    session: dict[str, Any],
) -> None:
    """The extension sends only the settings the user made (here offline and the snapshot):
    the sources of the workspace's .citewarden.toml are the ones asked, not VS Code's default
    list of every source."""
    asked = [
        d["message"] for d in session["result"]["diagnosticsBefore"] if d["code"] == "unverified"
    ]
    assert asked, session["result"]["diagnosticsBefore"]
    assert all("offline: not in cache (" in m for m in asked), asked
    assert not [m for m in asked if "doaj" in m], asked


def test_palette_commands_reach_the_server(session: dict[str, Any]) -> None:
    result = session["result"]
    for command in SERVER_COMMANDS:
        assert command in result["serverCommands"], f"the server does not offer {command}"
        assert result["commandRuns"][command].startswith("ok"), result["commandRuns"][command]
    report = json.loads(result["commandRuns"]["citewarden.report"].removeprefix("ok: "))
    assert Path(report["path"]).is_file()


def test_status_bar_shows_the_server_status(session: dict[str, Any]) -> None:
    result, ui = session["result"], session["ui"]
    status = result["serverStatus"]
    tiers = status["tiers"]
    expected = (
        f"citewarden {status['score']} · H{tiers['H']} E{tiers['E']} M{tiers['M']} D{tiers['D']}"
    )
    assert result["statusText"].endswith(expected), result["statusText"]
    # while the palette's "verify all" ran, the item showed a spinner with the progress
    assert any(t.startswith("$(sync~spin) citewarden ") for t in result["statusHistory"])
    assert expected in ui["phases"]["after"]["statusBar"]


def test_fabricated_reference_is_flagged(session: dict[str, Any]) -> None:
    """Verified offline against the example's snapshot: an error on the entry and its citation."""
    result, ui = session["result"], session["ui"]
    entry = entry_lines(
        (session["project"] / "refs.bib").read_text(encoding="utf-8"), FABRICATED_KEY
    )
    flagged = [
        d
        for d in result["diagnosticsBefore"]
        if d["code"] in FABRICATION_CODES
        and (
            (d["file"] == "refs.bib" and d["line"] in entry)
            or (d["file"].endswith(".tex") and FABRICATED_KEY in d["message"])
        )
    ]
    files = {d["file"] for d in flagged}
    assert files == {"refs.bib", "sections/methods.tex"}, result["diagnosticsBefore"]
    assert all(d["severity"] == "Error" for d in flagged)
    rows = ui["phases"]["diagnostics"]["filtered"][FABRICATED_KEY]
    assert any(code in row for row in rows for code in FABRICATION_CODES), rows
    # methods.tex, open in the editor, shows both squiggles: the dangling key and this citation
    assert ui["phases"]["diagnostics"]["squiggles"] >= 2
    # and the status bar counts it as a high-risk entry
    assert result["serverStatus"]["tiers"]["H"] >= 1


def test_server_is_restarted_and_a_wrong_command_is_explained(session: dict[str, Any]) -> None:
    result, ui = session["result"], session["ui"]
    resilience = result["resilience"]
    # a killed server is restarted by the client, and answers again
    assert resilience["newPid"] != resilience["oldPid"]
    assert resilience["diagnosticsAfterRestart"] > 0
    # a server command that does not exist: a message with the fix, and the status bar says so
    assert resilience["notFoundState"] == "failed"
    assert "$(error)" in resilience["notFoundStatusText"]
    toasts = " ".join(ui["phases"]["notfound"]["toasts"])
    assert "/nonexistent/bin/citewarden" in toasts and "citewarden.server.command" in toasts
    assert (SHOTS / "05_server_not_found.png").stat().st_size > 10_000
    # a server that dies at once is restarted a few times, then the user is told what to do
    assert resilience["crashState"] == "failed"
    crashed = " ".join(ui["phases"]["crashed"]["toasts"])
    assert "stopped while starting" in crashed and "Restart the language server" in crashed
    for generic in (
        "Restarting server failed",
        "connection to server is erroring",
        "Server initialization failed",
    ):
        assert generic not in crashed, crashed
    # and with the setting corrected, it runs again
    assert resilience["recoveredDiagnostics"] > 0
