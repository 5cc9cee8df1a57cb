"""A request of the server's the editor does not answer (a capability registration, a
progress token) is logged in one line, the 'did not answer' warning, with no traceback and
no second line saying that the editor refused it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypeVar, cast

import pytest

from citewarden.lsp import client_answers, progress, server, watch
from citewarden.lsp.session import Session

T = TypeVar("T")


@pytest.fixture(autouse=True)
def quick_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The editor is given a hundredth of a second to answer."""
    original = client_answers.answer

    def quick(request: Awaitable[T], what: str, *args: Any, **kwargs: Any) -> Awaitable[T]:
        kwargs["timeout"] = 0.01
        return original(request, what, *args, **kwargs)

    for module in (watch, server, progress):
        monkeypatch.setattr(module, "answer", quick)


def _never(*_: Any) -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()  # an editor that never answers


def _server() -> Any:
    allowed = SimpleNamespace(dynamic_registration=True, relative_pattern_support=True)
    return SimpleNamespace(
        client_capabilities=SimpleNamespace(
            workspace=SimpleNamespace(
                did_change_watched_files=allowed, did_change_configuration=allowed
            ),
            window=SimpleNamespace(work_done_progress=True),
        ),
        client_register_capability_async=_never,
        client_unregister_capability_async=_never,
        work_done_progress=SimpleNamespace(create_async=_never),
    )


def _session(root: Path) -> Session:
    return cast(
        Session,
        SimpleNamespace(server=_server(), config=SimpleNamespace(root=root), settings_watchers=[]),
    )


def _one_line(caplog: pytest.LogCaptureFixture, what: str) -> None:
    records = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in records] == [
        f"the editor did not answer {what} within 0.01 s: the server goes on without its answer"
    ]
    assert [r.exc_info for r in records] == [None]


async def test_file_watching_not_answered(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    assert await watch.register(_session(tmp_path)) is False
    _one_line(caplog, "client/registerCapability (file watching)")


async def test_settings_watching_not_answered(
    caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    root = tmp_path / "repo" / "paper"
    root.mkdir(parents=True)
    (tmp_path / "repo" / ".git").mkdir()
    session = _session(root)
    await watch.watch_settings_above(session)
    _one_line(caplog, "client/registerCapability (settings files)")
    assert session.settings_watchers == []


async def test_configuration_registration_not_answered(caplog: pytest.LogCaptureFixture) -> None:
    register: Callable[[Any], Awaitable[None]] = server._register_configuration
    await register(_server())
    _one_line(caplog, "client/registerCapability (configuration)")


async def test_progress_token_not_answered(caplog: pytest.LogCaptureFixture) -> None:
    async with progress.WorkProgress(cast(Any, _server()), "Indexing") as p:
        assert p._token is None
    _one_line(caplog, "window/workDoneProgress/create")
