"""The language server starts without loading what only verification or books need.

Starting the server is part of the wait for the first index: the HTTP stack (httpx and
what it pulls in) and the YAML reader are loaded when a source, the judge or a book
configuration is first used, not at start."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from types import SimpleNamespace

import pytest

from citewarden.settings import Settings, VerifySettings

#: Modules a server without verification, judge or book never needs at start.
DEFERRED = ("httpx", "yaml", "diskcache")


def test_server_start_does_not_load_the_http_stack_or_yaml() -> None:
    code = (
        "import json, sys\n"
        "import citewarden.lsp.server\n"
        f"print(json.dumps([m for m in {DEFERRED!r} if m in sys.modules]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


@pytest.mark.parametrize("enabled", [False, True])
def test_the_verification_engine_is_preloaded_only_when_verification_is_on(
    enabled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With verification off, importing the engine during the first index would only take
    the interpreter lock from it."""
    from citewarden.lsp import verification

    loads: list[str] = []
    monkeypatch.setattr(verification, "_preload_engine", lambda: loads.append("engine"))
    settings = Settings(verify=VerifySettings(enabled=enabled))
    service = verification.VerificationService(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    service.preload()
    service.preload()  # once at most
    for thread in threading.enumerate():
        if thread.name == "citewarden-preload":
            thread.join(timeout=30)
    assert loads == (["engine"] if enabled else [])
