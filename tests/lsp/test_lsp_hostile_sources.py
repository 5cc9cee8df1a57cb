"""The editor with a damaged cache and with a key in its settings: the real server process
verifying against the loopback replay server of real recorded responses."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsp_editor import wait_for
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp_verify import PROJECT, server_env

import replay as replay_fixtures
from citewarden.cache import Cache
from citewarden.model import Code
from conftest import make_client, open_folder, stop_clients
from markers import write_project
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

S2_KEY = "s2-key-from-the-editor-31337"
INIT: dict[str, Any] = {
    "debounce_ms": 50,
    "verify": {"sources": ["crossref", "doi"], "s2_api_key": S2_KEY},
}

Start = Callable[[], Awaitable[LanguageClient]]


@pytest_asyncio.fixture
async def start(tmp_path: Path, replay: ReplayServer) -> AsyncIterator[Start]:
    """The server at ``--log-level debug`` writing tmp_path/serve.log, its cache in
    tmp_path/cache, the client sending a Semantic Scholar key in its settings."""
    running: list[LanguageClient] = []

    async def _start() -> LanguageClient:
        root = tmp_path / "ws"
        write_project(root, PROJECT)
        command = [
            sys.executable,
            "-m",
            "citewarden.lsp",
            "--stdio",
            "--log-level",
            "debug",
            "--log-file",
            str(tmp_path / "serve.log"),
        ]
        config = ClientServerConfig(
            server_command=command,
            client_factory=make_client,
            server_env=server_env(replay, tmp_path / "cache"),
        )
        client: LanguageClient = await config.start()  # type: ignore[assignment]
        running.append(client)
        await open_folder(client, root, INIT)
        return client

    yield _start
    await stop_clients(running)


def _verified(client: LanguageClient, root: Path) -> bool:
    uri = (root / "refs.bib").as_uri()
    return any(d.code == Code.DOI_NOT_FOUND.value for d in client.diagnostics.get(uri, []))


async def test_damaged_cache_is_rebuilt_said_once_and_verification_runs(
    start: Start, tmp_path: Path
) -> None:
    with Cache(tmp_path / "cache") as cache:
        for i in range(200):
            cache.set(f"v1|k{i}", {"i": i, "pad": "x" * 100}, ttl=600)
    db = tmp_path / "cache" / "lookups" / "cache.db"
    db.write_bytes(os.urandom(db.stat().st_size))
    for extra in db.parent.glob("cache.db-*"):
        extra.unlink()

    client = await start()
    await wait_for(lambda: _verified(client, tmp_path / "ws"), timeout=60)
    damaged = [m for m in client.messages if "was damaged" in m.message]
    assert len(damaged) == 1
    assert damaged[0].type == types.MessageType.Warning
    assert any(p.name.startswith("lookups.damaged-") for p in (tmp_path / "cache").iterdir())


async def test_key_from_the_editor_settings_never_reaches_the_debug_log(
    start: Start, tmp_path: Path
) -> None:
    client = await start()
    await wait_for(lambda: _verified(client, tmp_path / "ws"), timeout=60)
    log = (tmp_path / "serve.log").read_text(encoding="utf-8")
    assert "s2_api_key" in log  # the settings were logged (pygls at debug) ...
    assert S2_KEY not in log  # ... with the key masked
    assert "citewarden.http: GET " in log  # the requests were logged, the key not
    assert "HTTP Request" not in log  # httpx, which logs whole URLs, logs only warnings


async def test_a_cache_that_fails_while_in_use_is_said_once_and_verification_goes_on(
    start: Start, tmp_path: Path, replay: ReplayServer
) -> None:
    client = await start()
    root = tmp_path / "ws"
    await wait_for(lambda: _verified(client, root), timeout=60)
    fake = "/doi/10.1126/foo"
    asked = replay.requests_to(fake)
    # the store the server has open, its files overwritten in place
    for part in (tmp_path / "cache" / "lookups").glob("cache.db*"):
        with part.open("r+b") as damaged:
            damaged.write(os.urandom(part.stat().st_size))
    text = (root / "refs.bib").read_text(encoding="utf-8")
    for version, title in enumerate(("Gravity waves from somewhere", "Gravity waves, again"), 1):
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=(root / "refs.bib").as_uri(),
                    language_id="bibtex",
                    version=version,
                    text=text.replace("Gravity waves from nowhere", title),
                )
            )
        )
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=(root / "refs.bib").as_uri())
            )
        )
        # the entry is looked up again, past the cache it cannot read
        await wait_for(lambda v=version: replay.requests_to(fake) >= asked + v, timeout=60)
    await wait_for(lambda: _verified(client, root), timeout=60)
    said = [m for m in client.messages if "cache" in m.message]
    assert len(said) == 1, [m.message for m in client.messages]
    assert said[0].type == types.MessageType.Warning
    assert str(tmp_path / "cache") in said[0].message
    assert "without it" in said[0].message
