"""An editor that never answers (or answers late) a request of the server's:
``workspace/configuration``, capability registrations, progress tokens.  The server waited
for each answer before it indexed the workspace, and answered no request for good."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_hostile import RawClient


class SilentClient(RawClient):
    """A raw client that keeps the server's requests and answers none of them."""

    def __init__(self, root: Path, cache: Path) -> None:
        super().__init__(root, cache)
        self.asked: list[dict[str, Any]] = []

    def _sort(self) -> None:
        for message in self._messages():
            if "method" not in message:
                self.responses[message["id"]] = message
            elif "id" not in message:
                self.notifications.append(message)
            else:
                self.asked.append(message)

    def start(self, capabilities: dict[str, Any]) -> None:
        msg_id = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": self.root.as_uri(),
                "capabilities": capabilities,
                "workspaceFolders": [{"uri": self.root.as_uri(), "name": "ws"}],
                "initializationOptions": {"verify": {"enabled": False}},
            },
        )
        assert "result" in self.response(msg_id)
        self.send({"method": "initialized", "params": {}})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[SilentClient]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\\cite{nowhere}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    c = SilentClient(root, tmp_path / "cache")
    try:
        yield c
    finally:
        c.close()


CAPABILITIES = {
    "workspace": {
        "configuration": True,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "didChangeConfiguration": {"dynamicRegistration": True},
    },
    "window": {"workDoneProgress": True},
}


def test_requests_are_answered_when_the_editor_answers_none_of_the_servers(
    client: SilentClient,
) -> None:
    client.start(CAPABILITIES)
    hover = client.hover("main.tex", 0, 7)
    assert "A" in hover["result"]["contents"]["value"]
    codes = [d["code"] for d in client.diagnostics((client.root / "main.tex").as_uri())]
    assert codes == ["dangling-citation"]
    asked = {m["method"] for m in client.asked}
    assert {"workspace/configuration", "client/registerCapability"} <= asked


def test_settings_the_editor_sends_late_are_taken(client: SilentClient) -> None:
    client.start({"workspace": {"configuration": True}})
    uri = (client.root / "main.tex").as_uri()
    assert [d["code"] for d in client.diagnostics(uri)] == ["dangling-citation"]
    (asked,) = [m for m in client.asked if m["method"] == "workspace/configuration"]
    client.notifications.clear()
    client.send({"id": asked["id"], "result": [{"severity": {"dangling-citation": "off"}}]})
    assert client.diagnostics(uri) == []
