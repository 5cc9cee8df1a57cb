"""The editor says which sources stopped answering: the real server process verifying
against a loopback server whose sources read each request and never answer."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsp_editor import wait_for
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from test_lsp_verify import status_client

from citewarden.verify.config import URL_ENV
from conftest import open_folder, stop_clients
from hostile_server import Behaviour, HostileServer, hostile

__all__ = ["hostile"]  # the fixture

BIB = "".join(
    f"@article{{e{i},\n  title = {{A study of thing number {i} in the wild}},\n"
    f"  author = {{Moreau, Claire}},\n  journal = {{Journal of Things}},\n"
    f"  doi = {{10.1234/x{i}}},\n  year = {{2019}}\n}}\n"
    for i in range(4)
)

Start = Callable[[], Awaitable[LanguageClient]]


@pytest_asyncio.fixture
async def start(tmp_path: Path, hostile: HostileServer) -> AsyncIterator[Start]:
    """The server verifying ``refs.bib`` against ``hostile`` (every source there), with a
    half-second timeout and its cache in tmp_path/cache."""
    running: list[LanguageClient] = []

    async def _start() -> LanguageClient:
        root = tmp_path / "ws"
        root.mkdir()
        (root / "refs.bib").write_text(BIB, encoding="utf-8")
        (root / "main.tex").write_text(
            "\\documentclass{article}\\begin{document}\\nocite{*}\\bibliography{refs}"
            "\\end{document}\n",
            encoding="utf-8",
        )
        env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
        env |= {var: f"{hostile.url}/{name}" for name, var in URL_ENV.items()}
        env |= {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
        env |= {"CITEWARDEN_MAILTO": "tests@example.org"}
        config = ClientServerConfig(
            server_command=[sys.executable, "-m", "citewarden.lsp", "--stdio"],
            client_factory=status_client,
            server_env=env,
        )
        client: LanguageClient = await config.start()  # type: ignore[assignment]
        running.append(client)
        await open_folder(client, root, {"debounce_ms": 50, "verify": {"timeout": 0.5}})
        return client

    yield _start
    await stop_clients(running)


def _statuses(client: LanguageClient) -> list[dict[str, Any]]:
    return client.statuses  # type: ignore[attr-defined, no-any-return]


def _done(client: LanguageClient) -> bool:
    return any(s["verified"] == s["total"] > 0 and not s["verifying"] for s in _statuses(client))


async def test_the_editor_names_each_source_cut_off_once(
    start: Start, hostile: HostileServer
) -> None:
    hostile.fallback = Behaviour("stall")
    hostile.route("/openalex/works", Behaviour("missing"))  # it answers: never cut off
    client = await start()
    await wait_for(lambda: _done(client), timeout=120)
    last = _statuses(client)[-1]
    assert last["unverified"] == last["total"] == 4
    stopped = {s["source"]: s["reason"] for s in last["stopped"]}
    assert "crossref" in stopped and "openalex" not in stopped
    assert re.fullmatch(r"\d requests in a row failed \(timeout\)", stopped["crossref"])
    said = [m.message for m in client.messages if "stopped answering" in m.message]
    names = [re.match(r"citewarden: (\w+) stopped answering \(", m) for m in said]
    assert all(names), said
    sources = [n.group(1) for n in names if n]
    assert sorted(sources) == sorted(stopped)  # once each, only those cut off
    assert said[sources.index("crossref")] == (
        f"citewarden: crossref stopped answering ({stopped['crossref']}): the entries that "
        "needed it are unverified; they are verified again on the next save, or by verifying "
        "all references"
    )
    assert all(m.type == types.MessageType.Warning for m in client.messages if m.message in said)


async def test_a_status_before_any_source_failed_names_none(
    start: Start, hostile: HostileServer
) -> None:
    hostile.fallback = Behaviour("missing")  # every source answers: no such work
    client = await start()
    await wait_for(lambda: _done(client), timeout=120)
    assert all(s["stopped"] == [] for s in _statuses(client))
    assert not [m for m in client.messages if "stopped answering" in m.message]
