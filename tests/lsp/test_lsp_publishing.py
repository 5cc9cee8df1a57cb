"""Publishing: the diagnostics a check changed are serialised before they reach the event
loop, which then only joins their texts into the notification it writes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pygls.protocol import default_converter

from citewarden.lsp.convert import Converter
from citewarden.lsp.diagnostics import DiagnosticStore
from citewarden.lsp.documents import SparseIndex
from citewarden.lsp.publishing import Publisher
from citewarden.model import Code, Finding, Location, Span
from citewarden.settings import Settings
from citewarden.text import Encoding

BIB = Path("/project/refs.bib")


class _Writer:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> None:
        self.data += data


def _session(count: int) -> tuple[Any, set[Path]]:
    text = "".join(f"@misc{{k{i}, title = {{T{i}}}}}\n" for i in range(count))
    index = SparseIndex(text)
    findings = [
        Finding(
            Code.ORPHAN,
            Location(BIB, Span(text.index(f"k{i},"), text.index(f"k{i},") + len(f"k{i}"))),
            f"k{i} is never cited",
        )
        for i in range(count)
    ]
    store = DiagnosticStore()
    converter = Converter(Encoding.UTF16, Settings(), lambda p: index if p == BIB else None)
    changed = store.update({BIB: findings}, lambda p: index if p == BIB else None, converter)
    protocol = SimpleNamespace(writer=_Writer(), _include_headers=True)
    session = SimpleNamespace(
        store=store,
        open={},
        indexed={},
        document_version=lambda path: None,
        server=SimpleNamespace(protocol=protocol),
    )
    return session, changed


def _body(session: Any) -> dict[str, Any]:
    data: bytes = session.server.protocol.writer.data
    header, body = data.split(b"\r\n\r\n", 1)
    assert int(header.split(b"\r\n")[0].split(b":")[1]) == len(body)
    return json.loads(body)  # type: ignore[no-any-return]


def test_prepared_diagnostics_are_published_without_serialising_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, changed = _session(2000)
    publisher = Publisher(session)
    publisher.prepare(changed)  # the check cycle's thread

    def on_the_loop(diagnostic: object) -> str:
        raise AssertionError("a diagnostic was serialised on the event loop")

    monkeypatch.setattr(publisher, "_dump", on_the_loop)
    assert publisher.deliver(set()) == {BIB}
    body = _body(session)
    assert body["method"] == "textDocument/publishDiagnostics"
    entry = session.store.get(BIB)
    pygls_json = default_converter()
    expected = [pygls_json.unstructure(d) for d in entry.diagnostics]
    assert body["params"]["diagnostics"] == expected
    assert len(expected) == 2000 and expected[5]["message"] == "k5 is never cited"


def test_open_documents_a_client_pulls_are_not_serialised_for_a_push() -> None:
    session, changed = _session(3)
    session.open[BIB] = BIB.as_uri()
    publisher = Publisher(session)
    publisher.pull_mode = True
    publisher.prepare(changed)
    assert session.store.get(BIB).json == {}
    publisher.pull_mode = False
    publisher.prepare(changed)
    assert len(session.store.get(BIB).json) == 3
