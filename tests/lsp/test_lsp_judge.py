"""The optional citation judge in the editor, end to end: the real server process verifying
against the replay server of real recorded responses, and asking a loopback server that
speaks the chat-completions API (see tests/test_judge.py) in the background."""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsp_editor import Editor, encoding_of, wait_for
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import replay as replay_fixtures
from citewarden.model import Code
from citewarden.verify.config import URL_ENV
from conftest import Harness, make_client, stop_clients
from markers import write_project
from replay import ReplayServer
from test_judge import BIB, ChatServer, chat, completion

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
__all__ = ["chat"]

SECRET = "sk-judge-secret"
FILES = (
    "--- main.tex\n"
    "\\documentclass{article}\n"
    "\\begin{document}\n"
    "Sigmoidal networks approximate continuous functions \\cite{cybenko}.\n"
    "\\bibliography{refs}\n"
    "\\end{document}\n"
    "--- refs.bib\n" + BIB
)

JStart = Callable[[dict[str, Any]], Awaitable[Harness]]


@pytest_asyncio.fixture
async def jstart(tmp_path: Path, replay: ReplayServer) -> AsyncIterator[JStart]:
    running: list[LanguageClient] = []

    async def _start(init: dict[str, Any]) -> Harness:
        root = tmp_path / "ws"
        marks = write_project(root, FILES)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
        env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
        env["CITEWARDEN_CACHE_DIR"] = str(tmp_path / "cache")
        log_file = str(tmp_path / "server.log")
        command = ["python", "-m", "citewarden.lsp", "--stdio", "--log-level", "debug"]
        command[0] = __import__("sys").executable
        config = ClientServerConfig(
            server_command=[*command, "--log-file", log_file],
            client_factory=make_client,
            server_env=env,
        )
        client: LanguageClient = await config.start()  # type: ignore[assignment]
        running.append(client)
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options=init,
            )
        )
        return Harness(client, Editor(client, root, encoding_of(result)), root, marks, result)

    yield _start
    await stop_clients(running)


def unsupported(h: Harness) -> list[types.Diagnostic]:
    return [d for d in h.diagnostics("main.tex") if d.code == Code.CITATION_UNSUPPORTED.value]


async def test_the_judge_warns_in_the_background_through_the_policy_and_never_logs_the_key(
    jstart: JStart, chat: ChatServer, tmp_path: Path
) -> None:
    chat.answer = completion('{"supported": false, "reason": "The paper is about chess."}')
    chat.delay = 2.0  # a slow judge
    init = {
        "debounce_ms": 50,
        "verify": {"sources": ["crossref"]},
        "judge": {"url": chat.url, "model": "local-model", "api_key": SECRET},
    }
    h = await jstart(init)
    h.editor.open("main.tex")
    await wait_for(lambda: chat.requests, timeout=30)
    # the judge is thinking: a hover on the citation answers at once all the same
    at = h.editor.position("main.tex", h.editor.find("main.tex", "cybenko"))
    started = time.monotonic()
    hover = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("main.tex")), position=at
        )
    )
    took = time.monotonic() - started
    assert hover is not None and took < 1.0 and not unsupported(h)

    (found,) = await wait_for(lambda: unsupported(h), timeout=15)
    assert found.severity == types.DiagnosticSeverity.Warning
    assert found.range.start.line == 2
    assert "the judge (local-model)" in found.message and "about chess" in found.message
    # the citation's hover shows the verdict now
    hover = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("main.tex")), position=at
        )
    )
    assert hover is not None
    shown = str(hover.contents)
    assert "**Judge** (local-model): the cited work does not support this sentence" in shown
    assert "The paper is about chess." in shown
    ((path, headers, body),) = chat.requests
    assert path == "/v1/chat/completions" and headers["authorization"] == f"Bearer {SECRET}"
    user = body["messages"][1]["content"]
    assert "Sigmoidal networks approximate continuous functions." in user
    assert "cybenko" not in user and "main.tex" not in user

    # the warning goes through the policy step: turned off by the per-code severity ...
    h.client.set_configuration({"severity": {"citation-unsupported": "off"}}, section="citewarden")
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: not unsupported(h))
    # ... and back, from the answer remembered: the judge is not asked again
    h.client.set_configuration({}, section="citewarden")
    h.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    await wait_for(lambda: unsupported(h))
    assert len(chat.requests) == 1

    log = (tmp_path / "server.log").read_text(encoding="utf-8")
    assert "chat/completions" in log  # the request is in the log, the key never
    assert SECRET not in log
    assert all(SECRET not in str(m.message) for m in h.client.log_messages)


async def test_without_a_judge_configured_nothing_is_sent(jstart: JStart, chat: ChatServer) -> None:
    h = await jstart({"debounce_ms": 50, "verify": {"sources": ["crossref"]}})
    h.editor.open("main.tex")
    # verification finished: the entry's hover shows the matched record
    bib_at = h.editor.position("refs.bib", h.editor.find("refs.bib", "cybenko"))

    async def verified() -> bool:
        hover = await h.client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")), position=bib_at
            )
        )
        return hover is not None and "Crossref" in str(hover.contents)

    deadline = time.monotonic() + 30
    while not await verified():
        assert time.monotonic() < deadline
        await __import__("asyncio").sleep(0.1)
    await __import__("asyncio").sleep(0.5)
    assert chat.requests == [] and not unsupported(h)


async def test_a_failed_request_is_made_again_after_a_pause(
    chat: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A judge that did not answer (here an HTTP 503; a server not started yet alike) gave
    no verdict to remember: the citation is asked about again once a pause has passed,
    a longer one after each failure, and the answer that finally comes is kept."""
    from types import SimpleNamespace

    from citewarden.lsp import judging
    from citewarden.verify.judge import JudgeConfig
    from test_judge import SENTENCE, WORK

    clock = [1000.0]
    monkeypatch.setattr(judging, "_now", lambda: clock[0])
    republished: list[bool] = []
    verification = SimpleNamespace(request_republish=lambda: republished.append(True))
    service = judging.JudgeService(SimpleNamespace(), verification)  # type: ignore[arg-type]
    config = JudgeConfig(chat.url, "local-model", timeout=5.0)
    key = (config.url, config.model, SENTENCE, "digest")

    async def ask_once() -> None:
        service._asked.add(key)
        service._pending[key] = (SENTENCE, WORK)
        await service._ask(config)

    chat.status = 503
    chat.answer = b'{"error": {"message": "loading model"}}'
    await ask_once()
    assert key not in service.answers and not service._due(key)
    clock[0] += judging.RETRY_AFTER
    assert service._due(key)
    await ask_once()  # fails again: the pause doubles
    clock[0] += judging.RETRY_AFTER
    assert not service._due(key)
    clock[0] += judging.RETRY_AFTER
    assert service._due(key)
    chat.status = 200
    chat.answer = completion('{"supported": false, "reason": "The paper is about chess."}')
    await ask_once()
    answer = service.answers[key]
    assert answer is not None and answer.supported is False and republished == [True]
    assert service._due(key) and len(chat.requests) == 5  # a 503 is retried once at once
    await service.aclose()
