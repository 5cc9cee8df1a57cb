"""An editor that stops reading the server's output (its end of the pipe fills): the
server's handlers wrote to the pipe on the event loop, so the first write that did not
fit stopped the whole server, ``exit`` included, until the editor read again."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from test_lsp_hostile import RawClient

from citewarden.lsp.output import HANDLING, LIMIT
from citewarden.lsp.server import _Drained

ENTRIES = 300  # a document symbol answer of about 150 kB


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    root = tmp_path / "ws"
    root.mkdir()
    text = "".join(f"@misc{{k{i}, title = {{Title {i}}}}}\n" for i in range(ENTRIES))
    (root / "refs.bib").write_text(text)
    c = RawClient(root, tmp_path / "cache")
    c.initialize()
    c.send(
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": (root / "refs.bib").as_uri(),
                    "languageId": "bibtex",
                    "version": 1,
                    "text": text,
                }
            },
        }
    )
    try:
        yield c
    finally:
        c.close()


def symbols(client: RawClient, padded: bool = False) -> int | str:
    """Ask for the symbols of refs.bib; ``padded``: under an id of 4 000 characters, so that
    a hundred requests are more than the pipe holds."""
    uri = (client.root / "refs.bib").as_uri()
    if not padded:
        return client.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    client._next_id += 1
    msg_id = f"{client._next_id:04000d}"
    params = {"textDocument": {"uri": uri}}
    client.send({"id": msg_id, "method": "textDocument/documentSymbol", "params": params})
    return msg_id


def test_exit_ends_the_server_while_its_answers_wait_unread(client: RawClient) -> None:
    """Answers of some 6 MB that the editor does not read fill the pipe; the server reads
    on, and ``shutdown`` and ``exit`` end it, where it never read them."""
    for _ in range(40):
        symbols(client)
    time.sleep(3)  # the answers are written meanwhile, and fill the pipe
    client.request("shutdown", None)
    client.send({"method": "exit"})
    assert client.proc.wait(60) == 0


def test_requests_wait_unread_while_answers_do_and_all_are_answered_later(
    client: RawClient,
) -> None:
    """No more requests are taken while the answers of those taken wait unread, and each is
    answered, in full, once the editor reads again."""
    sent: list[int | str] = []

    def send_all() -> None:
        for _ in range(400):  # some 60 MB of answers, 1.6 MB of requests
            sent.append(symbols(client, padded=True))

    writer = threading.Thread(target=send_all, daemon=True)
    writer.start()
    time.sleep(5)
    assert writer.is_alive()  # the server stopped reading: the editor's pipe is full
    taken = len(sent)
    assert taken < 400
    time.sleep(1)
    assert len(sent) == taken
    for msg_id in iter(lambda: sent[0] if sent else None, None):
        answer = client.response(msg_id, timeout=60)
        assert len(answer["result"]) == ENTRIES
        sent.pop(0)
        if not sent and not writer.is_alive():
            break
    writer.join(5)
    assert not sent


class _Transport:
    """As much of asyncio's transport as the reader looks at."""

    def __init__(self, waiting: int) -> None:
        self.waiting = waiting

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return self.waiting


class _Lines:
    async def readline(self) -> bytes:
        return b"Content-Length: 2\r\n"


async def test_a_tcp_connection_is_read_no_further_while_its_answers_wait() -> None:
    """Over TCP, asyncio buffered every answer the editor did not read, and the server read
    on: answers piled up without bound.  No line is read while more than the limit waits,
    nor while more than the limit of messages are being handled."""
    transport = _Transport(LIMIT + 1)
    writer = cast(Any, type("Writer", (), {"transport": transport})())
    handling = [0]
    reader = _Drained(cast(Any, _Lines()), writer, lambda: handling[0])
    read = asyncio.ensure_future(reader.readline())
    await asyncio.sleep(0.3)
    assert not read.done()
    transport.waiting, handling[0] = LIMIT, HANDLING + 1
    await asyncio.sleep(0.3)
    assert not read.done()
    handling[0] = HANDLING
    assert await asyncio.wait_for(read, 5) == b"Content-Length: 2\r\n"


class _Silent(RawClient):
    """A client that takes the server's requests and never answers them."""

    asked: list[dict[str, Any]]

    def _sort(self) -> None:
        self.asked = getattr(self, "asked", [])
        for message in self._messages():
            if "method" in message and "id" in message:
                self.asked.append(message)
            elif "method" not in message:
                self.responses[message["id"]] = message


def test_requests_of_the_server_left_unanswered_do_not_stop_it_reading(tmp_path: Path) -> None:
    """Each workspace/configuration the server asks and the editor never answers was counted
    among the messages being handled: past 64 of them no message of the editor's was read
    again, shutdown and exit included."""
    root = tmp_path / "ws"
    root.mkdir()
    c = _Silent(root, tmp_path / "cache")
    try:
        msg_id = c.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"workspace": {"configuration": True}},
                "initializationOptions": {"verify": {"enabled": False}},
            },
        )
        assert "result" in c.response(msg_id)
        c.send({"method": "initialized", "params": {}})
        for _ in range(100):
            c.send({"method": "workspace/didChangeConfiguration", "params": {"settings": None}})
        deadline = time.time() + 60
        while len(getattr(c, "asked", [])) < 90 and c._pump(deadline):
            c._sort()
        assert len(c.asked) >= 90
        assert "result" in c.response(c.request("shutdown", None), timeout=30)
        c.send({"method": "exit"})
        assert c.proc.wait(30) == 0
    finally:
        c.close()
