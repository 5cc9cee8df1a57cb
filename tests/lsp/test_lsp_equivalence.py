"""The command line and the editor say the same thing about the same project.

Each project is checked twice: by ``citewarden check . --format json`` as a subprocess, and
by the language server driven by pytest-lsp's client (every file published, nothing
opened).  Both read the same ``.citewarden.toml``, with per-code severity overrides, an
ignore glob and a suppression comment in play, and verify against the same recorded
records: the bundled examples offline against their snapshot, and a bibliography from
tests/data against the replay server of the recorded Crossref and doi.org responses.  The
(file, line, column, code, severity) sets must be identical, and the status bar's score
and tiers those of the report.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsp_editor import plain, wait_for
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from test_lsp_verify import PROJECT as VERIFIED_PROJECT

import replay as replay_fixtures
from citewarden.lsp.convert import path_of
from citewarden.model import Severity
from citewarden.verify.config import URL_ENV
from cli_process import ROOT, run_citewarden
from conftest import SERVER, make_client, stop_clients
from markers import write_project
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

STATUS = "citewarden/status"

#: (file, line, column, code, severity): lines and columns 1-based, columns in code points.
Row = tuple[str, int, int, str, str]

#: Severity overrides (one louder, one quieter, one off), an ignore glob and, below, a
#: suppression comment: the settings the command line used to leave out for verification.
EXAMPLES_CONFIG = """\
ignore = ["markdown-paper/*"]

[severity]
pages-mismatch = "error"
orphan-entry = "hint"
missing-doi = "off"

[verify]
offline = true
snapshot = "snapshot.jsonl"
"""

VERIFIED_CONFIG = """\
ignore = ["paper.md"]

[severity]
pages-mismatch = "error"
doi-other-work = "information"
duplicate-key = "off"

[verify]
sources = ["crossref", "doi"]
"""


def _cli_rows(report: Mapping[str, Any]) -> set[Row]:
    return {
        (d["file"], d["line"], d["column"], d["code"], d["severity"]) for d in report["diagnostics"]
    }


def _column(text: str, line: int, character: int, utf16: bool) -> int:
    """The 1-based code-point column of an LSP position."""
    lines = text.split("\n")
    row = lines[line] if line < len(lines) else ""
    if not utf16:
        return character + 1
    units = row.encode("utf-16-le")[: 2 * character]
    return len(units.decode("utf-16-le", errors="ignore")) + 1


def _lsp_rows(client: LanguageClient, root: Path, utf16: bool) -> set[Row]:
    rows: set[Row] = set()
    for uri, diagnostics in client.diagnostics.items():
        path = path_of(uri)
        assert path is not None
        text = path.read_text(encoding="utf-8")
        name = path.relative_to(root).as_posix()
        for d in diagnostics:
            start = d.range.start
            severity = Severity(int(d.severity or 1)).label
            column = _column(text, start.line, start.character, utf16)
            rows.add((name, start.line + 1, column, str(d.code), severity))
    return rows


def status_client() -> LanguageClient:
    client = make_client()
    client.statuses = []  # type: ignore[attr-defined]

    @client.feature(STATUS)
    def on_status(params: Any) -> None:
        client.statuses.append(plain(params))  # type: ignore[attr-defined]

    return client


Serve = Callable[[Path, dict[str, str]], Awaitable[tuple[LanguageClient, bool]]]


@pytest_asyncio.fixture
async def serve() -> AsyncIterator[Serve]:
    """``await serve(root, env)``: the server on ``root``, initialised (-> client, utf16)."""
    running: list[LanguageClient] = []

    async def _serve(root: Path, env: dict[str, str]) -> tuple[LanguageClient, bool]:
        config = ClientServerConfig(
            server_command=SERVER, client_factory=status_client, server_env=env
        )
        client: LanguageClient = await config.start()  # type: ignore[assignment]
        running.append(client)
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            )
        )
        encoding = result.capabilities.position_encoding
        return client, encoding in (None, types.PositionEncodingKind.Utf16)

    yield _serve
    await stop_clients(running)


def _base_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
    env["CITEWARDEN_CACHE_DIR"] = str(cache)
    return env


async def _agree(serve: Serve, root: Path, env: dict[str, str]) -> tuple[set[Row], dict[str, Any]]:
    """Run both; assert the same rows and the same score; return the rows and the report."""
    done = run_citewarden(["check", ".", "--format", "json"], root, env=env, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    expected = _cli_rows(report)
    # a fresh cache for the editor: it verifies on its own, it does not read the CLI's
    editor_env = {**env, "CITEWARDEN_CACHE_DIR": env["CITEWARDEN_CACHE_DIR"] + "-editor"}
    client, utf16 = await serve(root, editor_env)
    statuses: list[dict[str, Any]] = client.statuses  # type: ignore[attr-defined]

    def finished() -> bool:
        if not statuses:
            return False
        last = statuses[-1]
        return last["verifying"] is False and last["total"] > 0
        # (the diagnostics settle just after; see below)

    await wait_for(finished, timeout=120)
    with contextlib.suppress(AssertionError):  # the comparison below shows the difference
        await wait_for(lambda: _lsp_rows(client, root, utf16) == expected, timeout=20)
    assert _lsp_rows(client, root, utf16) == expected
    last = statuses[-1]
    assert last["verified"] == last["total"]
    assert (last["score"], last["tiers"]) == (report["score"], report["tiers"])
    assert last["counted"] == report["summary"]["counted"]
    return expected, report


async def test_the_examples_agree(serve: Serve, tmp_path: Path) -> None:
    root = tmp_path / "examples"
    shutil.copytree(ROOT / "examples", root)
    (root / ".citewarden.toml").write_text(EXAMPLES_CONFIG, encoding="utf-8")
    bib = root / "latex-paper" / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    # a suppression comment above the entry with the near-miss pages: not verified at all
    at = text.index("@article{hornik_approximation_1991")
    bib.write_text(text[:at] + "% citewarden: ignore\n" + text[at:], encoding="utf-8")
    rows, report = await _agree(serve, root, _base_env(tmp_path / "cache"))
    codes = {(r[0], r[3]) for r in rows}
    files = {r[0] for r in rows}
    assert not any(f.startswith("markdown-paper/") for f in files)  # the ignore glob
    assert ("latex-paper/refs.bib", "missing-doi") not in codes  # turned off
    orphans = {r[4] for r in rows if r[3] == "orphan-entry"}
    assert orphans == {"hint"}  # turned down
    keys = {e["key"] for e in report["entries"]}
    assert "hornik_approximation_1991" not in keys  # suppressed: not verified
    assert ("latex-paper/refs.bib", "doi-other-work") in codes  # verification shows


async def test_a_verified_bibliography_agrees(
    serve: Serve, tmp_path: Path, replay: ReplayServer
) -> None:
    root = tmp_path / "ws"
    write_project(root, VERIFIED_PROJECT)
    (root / ".citewarden.toml").write_text(VERIFIED_CONFIG, encoding="utf-8")
    bib = root / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    at = text.index("@article{sadasivan2012")
    bib.write_text(text[:at] + "% citewarden: ignore\n" + text[at:], encoding="utf-8")
    env = _base_env(tmp_path / "cache")
    env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
    env["CITEWARDEN_MAILTO"] = "tests@example.org"
    rows, report = await _agree(serve, root, env)
    by_code = {(r[3], r[4]) for r in rows}
    assert ("pages-mismatch", "error") in by_code  # turned up over its tier's severity
    assert ("doi-other-work", "info") in by_code  # turned down
    assert not any(r[0] == "paper.md" for r in rows)  # the ignore glob
    assert "sadasivan2012" not in {e["key"] for e in report["entries"]}  # suppressed
    assert report["score"] < 100
