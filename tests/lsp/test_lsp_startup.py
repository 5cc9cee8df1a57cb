"""The language server starts without loading what only verification or books need.

Starting the server is part of the wait for the first index: the HTTP stack (httpx and
what it pulls in) and the YAML reader are loaded when a source, the judge or a book
configuration is first used, not at start."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from citewarden.settings import Settings, VerifySettings

#: Modules a server without verification, judge or book never needs at start.
DEFERRED = ("httpx", "yaml", "diskcache")

#: What only a request (a hover, a code action, a command) or verification needs: none of it
#: is loaded, compiled or run before the first index is done.
AFTER_FIRST_INDEX = (
    *DEFERRED,
    "citewarden.addref",
    "citewarden.audit",
    "citewarden.context",
    "citewarden.fix",
    "citewarden.report",
    "citewarden.verify.engine",
    "citewarden.verify.normalize",
    "citewarden.verify.records",
)

#: The steps of the server's first index (``Session.start``), in process: the session of a
#: real server, the check cycle's own check of a fork, then the commit.
FIRST_INDEX = """
import json, sys
from pathlib import Path
from citewarden.lsp.server import create_server
session = create_server().session
root = Path(sys.argv[1]).resolve()
session.roots = [root]
session.roots_to_config()
work = session.project.fork()
work.set_settings(session.settings)
work.add_folder(root)
session.cycle.check(work, None, None, None, True)
session.commit(work)
shown = sum(len(session.store.findings(p)) for p in list(session.store.files))
loaded = list(sys.modules)
print(json.dumps([shown, loaded]))
"""


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


def test_the_first_index_loads_nothing_only_a_request_or_verification_needs() -> None:
    root = Path(__file__).resolve().parents[2] / "examples" / "latex-paper"
    result = subprocess.run(
        [sys.executable, "-c", FIRST_INDEX, str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    shown, loaded = json.loads(result.stdout)
    assert shown > 0  # the index ran and its findings reached the store
    early = sorted(
        m for m in loaded if any(m == d or m.startswith(d + ".") for d in AFTER_FIRST_INDEX)
    )
    assert early == []


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
