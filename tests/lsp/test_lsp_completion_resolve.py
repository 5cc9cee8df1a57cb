"""completionItem/resolve reads only the bibliographies of the workspace's projects: the
path an item's data names came back from the client, and any other file it named was read
from disk, parsed and kept, and the project graph computed anew at the next look-up."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_hostile import RawClient


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {Known work}}\n")
    (tmp_path / "other.bib").write_text("@misc{a, title = {Private notes}}\n")
    c = RawClient(root, tmp_path / "cache")
    try:
        yield c
    finally:
        c.close()


def _resolve(client: RawClient, path: Path) -> dict[str, Any]:
    item = {"label": "a", "data": {"key": "a", "path": str(path)}}
    return client.response(client.request("completionItem/resolve", item))["result"]


def test_an_item_is_resolved_from_the_projects_bibliographies_only(client: RawClient) -> None:
    client.initialize()
    assert "result" in client.hover("main.tex", 0, 7)  # the workspace is indexed
    assert "Known work" in _resolve(client, client.root / "refs.bib")["documentation"]["value"]
    assert "documentation" not in _resolve(client, client.root.parent / "other.bib")
