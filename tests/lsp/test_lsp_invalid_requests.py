"""Valid JSON that is no JSON-RPC message gets Invalid Request (-32600), never silence nor a
traceback: a batch (LSP has none), a body that is not an object, an object without
``"jsonrpc"``, a method that is not a string, an id that is neither number nor string."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_lsp_hostile import WAIT, RawClient, small_project_client

INVALID_REQUEST = -32600
SYMBOLS = {"query": "a"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    with small_project_client(tmp_path) as c:
        yield c


def _write(client: RawClient, message: Any) -> None:
    body = json.dumps(message).encode()
    assert client.proc.stdin is not None
    client.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    client.proc.stdin.flush()


def _null_id_errors(client: RawClient, count: int) -> list[dict[str, Any]]:
    deadline = time.time() + WAIT
    while len(client.unanswerable) < count:
        client._sort()
        if len(client.unanswerable) < count:
            assert client._pump(deadline), f"{len(client.unanswerable)} of {count} errors"
    return client.unanswerable


def _assert_invalid_request(message: dict[str, Any]) -> None:
    assert message["error"]["code"] == INVALID_REQUEST
    assert "data" not in message["error"]  # no traceback


def test_requests_that_are_not_json_rpc_get_invalid_request(client: RawClient) -> None:
    request = {"jsonrpc": "2.0", "method": "workspace/symbol", "params": SYMBOLS}
    _write(client, [{**request, "id": 900}, {"jsonrpc": "2.0", "method": "$/x", "params": {}}])
    _write(client, {"id": 901, "method": "workspace/symbol", "params": SYMBOLS})
    _write(client, {**request, "id": 902, "method": 5})
    _write(client, {**request, "id": 903, "jsonrpc": "1.0"})
    for msg_id in (900, 901, 902, 903):
        _assert_invalid_request(client.response(msg_id))


def test_messages_without_a_usable_id_get_invalid_request_with_id_null(
    client: RawClient,
) -> None:
    request = {"jsonrpc": "2.0", "method": "workspace/symbol", "params": SYMBOLS}
    bodies: list[Any] = [[], [{"jsonrpc": "2.0", "method": "$/x", "params": {}}], 42, "hello", None]
    bodies += [{**request, "id": {"x": 1}}, {**request, "id": [1]}, {"method": "$/x", "params": {}}]
    for body in bodies:
        _write(client, body)
    errors = _null_id_errors(client, len(bodies))
    assert len(errors) == len(bodies)
    for error in errors:
        assert error["id"] is None
        _assert_invalid_request(error)
    assert "result" in client.hover("main.tex", 0, 7)  # and the server goes on


def _client_hears(client: RawClient) -> list[dict[str, Any]]:
    """What the server said of its own (shown or logged messages) and answers to no request,
    once every message written before has been handled (a hover is answered after them)."""
    assert "result" in client.hover("main.tex", 0, 7)
    said = [n for n in client.notifications if n["method"].startswith("window/")]
    return said + client.unanswerable


def test_notifications_without_params_or_handler_are_let_go_silently(client: RawClient) -> None:
    """A notification no handler takes (a ``$/`` one may be ignored, any other gets no answer)
    and a known one whose params are missing or do not fit are logged, and the client hears
    nothing: pygls showed 'Error in server: Internal Error' or 'Invalid Params'."""
    bodies: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "method": "$/unknownThing"},
        {"jsonrpc": "2.0", "method": "unknownThing"},
        {"jsonrpc": "2.0", "method": "textDocument/willSave", "params": {"bogus": 1}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest"},
        {"jsonrpc": "2.0", "method": "$/setTrace"},
        {"jsonrpc": "2.0", "method": "textDocument/didSave"},
        {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"bogus": 1}},
    ]
    for body in bodies:
        _write(client, body)
    assert _client_hears(client) == []


def test_initialized_without_params_starts_the_server(tmp_path: Path) -> None:
    """``initialized``'s params are an empty object: a client that leaves them out gets a
    server that indexes the workspace (it was refused with Invalid Params, and nothing was
    ever checked)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{nokey}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    c = RawClient(root, tmp_path / "cache")
    try:
        init = {"verify": {"enabled": False}}
        params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        msg_id = c.request("initialize", {**params, "initializationOptions": init})
        assert "result" in c.response(msg_id)
        _write(c, {"jsonrpc": "2.0", "method": "initialized"})
        codes = [d["code"] for d in c.diagnostics((root / "main.tex").as_uri())]
        assert codes == ["dangling-citation"]
        assert [n for n in c.notifications if n["method"] == "window/showMessage"] == []
    finally:
        c.close()


def test_a_request_with_id_null_gets_invalid_request(client: RawClient) -> None:
    """An LSP request's id is a number or a string (JSON-RPC discourages null, the id of
    an answer to no request): a request with id null gets Invalid Request under id null,
    as any id the server cannot use, where it was answered as a request.  A notification
    of LSP's sent with id null (JSON-RPC 1.0's way to write one) is read as the
    notification, unanswered, as before."""
    uri = (client.root / "main.tex").as_uri()
    text = "\\cite{a}\n\\bibliography{refs}\n"
    document = {"uri": uri, "languageId": "latex", "version": 1, "text": text}
    client.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    _write(client, {"jsonrpc": "2.0", "id": None, "method": "workspace/symbol", "params": SYMBOLS})
    change = {"range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}}
    params = {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{**change, "text": "zzz"}],
    }
    _write(
        client, {"jsonrpc": "2.0", "id": None, "method": "textDocument/didChange", "params": params}
    )
    [error] = _null_id_errors(client, 1)
    _assert_invalid_request(error)
    assert "zzz" in client.hover("main.tex", 0, 7)["result"]["contents"]["value"]
    assert client.unanswerable == [error]


def test_a_request_of_an_unknown_method_without_params_is_method_not_found(
    client: RawClient,
) -> None:
    """JSON-RPC lets params out: a request no handler takes gets MethodNotFound with or
    without them (without, it was an internal error with a traceback in the log), and a
    response without a result is taken as one to a request that returns nothing."""
    _write(client, {"jsonrpc": "2.0", "id": 950, "method": "foo/bar"})
    _write(client, {"jsonrpc": "2.0", "id": 951, "method": "foo/bar", "params": {}})
    _write(client, {"jsonrpc": "2.0", "id": 5})
    for msg_id in (950, 951):
        error = client.response(msg_id)["error"]
        assert error["code"] == -32601 and "data" not in error
    _write(client, {"jsonrpc": "2.0", "id": 952, "method": "workspace/symbol", "params": SYMBOLS})
    assert "result" in client.response(952)


def test_params_that_do_not_fit_are_answered_with_what_is_wrong_and_where(
    client: RawClient,
) -> None:
    """InvalidParams said only 'invalid params for textDocument/hover': it names the place
    in the params and what is wrong there (a number out of LSP's range, a field missing, a
    value of another type)."""
    uri = (client.root / "main.tex").as_uri()
    doc = {"textDocument": {"uri": uri}}
    cases = {
        "params.position: Position.line should be in range [0:2147483647], but was -1.": {
            **doc,
            "position": {"line": -1, "character": 0},
        },
        "params.position: Position.character should be in range [0:2147483647], but was "
        "4294967296.": {**doc, "position": {"line": 0, "character": 1 << 32}},
        "params.position: required field missing": doc,
        "params.position.character: expected an integer, not a string": {
            **doc,
            "position": {"line": 0, "character": "x\u202e\x1b"},
        },
        "params.textDocument: invalid value for type, expected TextDocumentIdentifier; "
        "params.position: invalid value for type, expected Position": "nonsense",
    }
    sent = {client.request("textDocument/hover", params): said for said, params in cases.items()}
    for msg_id, said in sent.items():
        error = client.response(msg_id)["error"]
        assert error["code"] == -32602
        assert error["message"] == f"invalid params for textDocument/hover: {said}"
    assert "result" in client.hover("main.tex", 0, 7)


def test_a_param_of_another_kind_is_invalid_params(client: RawClient) -> None:
    """executeCommand's arguments "abc" were read as the arguments a, b, c, and an object
    as its keys, so citewarden.addReference looked up the reference 'a'; a rename's
    newName {"a": 1} renamed a key to "{'a': 1}"; a line "0" was line 0: any value of
    another kind than LSP's (an array, a string, an integer) is InvalidParams, saying so."""
    sent = {
        client.request(
            "workspace/executeCommand", {"command": "citewarden.verifyEntry", "arguments": args}
        ): kind
        for args, kind in (("abc", "a string"), ({"a": 1}, "an object"), (7, "a number"))
    }
    for msg_id, kind in sent.items():
        error = client.response(msg_id)["error"]
        assert error["code"] == -32602
        assert error["message"] == (
            "invalid params for workspace/executeCommand: params.arguments: expected an "
            f"array, not {kind}"
        )
    uri = (client.root / "main.tex").as_uri()
    at = {"line": 0, "character": 7}
    cases = {
        "textDocument/rename": (
            {"textDocument": {"uri": uri}, "position": at, "newName": {"a": 1}},
            "params.newName: expected a string, not an object",
        ),
        "textDocument/hover": (
            {"textDocument": {"uri": 5}, "position": at},
            "params.textDocument.uri: expected a string, not a number",
        ),
        "textDocument/definition": (
            {"textDocument": {"uri": uri}, "position": {"line": "0", "character": True}},
            "params.position.line: expected an integer, not a string; "
            "params.position.character: expected an integer, not a boolean",
        ),
    }
    asked = {
        client.request(method, params): (method, said) for method, (params, said) in cases.items()
    }
    for msg_id, (method, said) in asked.items():
        error = client.response(msg_id)["error"]
        assert error["message"] == f"invalid params for {method}: {said}"
    changes = {"textDocument": {"uri": uri, "version": 2}, "contentChanges": {"text": "x"}}
    client.send({"method": "textDocument/didChange", "params": changes})
    listed = {"command": "citewarden.verifyEntry", "arguments": ["a"]}
    assert "result" in client.response(client.request("workspace/executeCommand", listed))
    assert "result" in client.hover("main.tex", 0, 7)


def test_a_notification_sent_with_an_id_is_taken_and_answered_invalid_request(
    client: RawClient,
) -> None:
    """A didOpen or a $/cancelRequest with an id, as a request is sent: the buffer is
    opened and the id answered, where the client waited for an answer that never came."""
    uri = (client.root / "main.tex").as_uri()
    item = {
        "uri": uri,
        "languageId": "latex",
        "version": 2,
        "text": "\\cite{zz}\n\\bibliography{refs}\n",
    }
    opened = client.request("textDocument/didOpen", {"textDocument": item})
    cancel = client.request("$/cancelRequest", {"id": 5})
    for msg_id, method in ((opened, "textDocument/didOpen"), (cancel, "$/cancelRequest")):
        answer = client.response(msg_id)
        _assert_invalid_request(answer)
        assert answer["error"]["message"].startswith(f"{method} is a notification")
    deadline = time.time() + WAIT
    while [d["data"]["key"] for d in client.diagnostics(uri)] != ["zz"]:
        assert time.time() < deadline, "the buffer opened with an id was never checked"
        client._pump(min(deadline, time.time() + 0.2))
