"""A client's mistake (params that do not fit, arguments a command cannot use, a body that
is not JSON) is answered with its error and logged as one line below ERROR, where each
wrote a traceback at ERROR; a fault of the server's still logs its traceback at ERROR.  No
answer carries the server's traceback (its file paths) in ``data``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from test_lsp_hostile import ROOT, WAIT, RawClient, _write

LAUNCHER = """
import sys
from citewarden.lsp.server import _configure_logging, create_server
_configure_logging(sys.argv[1], "warning")
server = create_server()
@server.feature("test/fail")
def fail(params):
    raise RuntimeError("a fault of the server's")
server.start_stdio()
"""


def test_client_mistakes_are_one_line_and_faults_keep_their_traceback(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    log_file = tmp_path / "server.log"
    client = RawClient(root, tmp_path / "cache")
    client.close()  # its server is replaced by the launcher's
    client.proc = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(log_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT / "server"),
            "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache"),
        },
    )
    try:
        client.initialize()
        uri = (root / "main.tex").as_uri()
        mistakes = [
            client.request(
                "textDocument/hover",
                {"textDocument": {"uri": uri}, "position": {"line": 2**40, "character": 0}},
            ),
            client.request("workspace/executeCommand", {"command": "citewarden.verifyEntry"}),
            client.request(
                "textDocument/rename",
                {
                    "textDocument": {"uri": uri},
                    "position": {"line": 0, "character": 7},
                    "newName": "a b",
                },
            ),
        ]
        for msg_id in mistakes:
            error = client.response(msg_id)["error"]
            assert error["code"] == -32602
            assert "data" not in error
        _write(client, b"Content-Length: 5\r\n\r\n{nope")
        fault = client.response(client.request("test/fail", {}))["error"]
        assert fault["code"] == -32603
        assert "a fault of the server's" in fault["message"]
        assert "traceback" not in json.dumps(fault)
        assert str(ROOT) not in json.dumps(fault)
        assert "result" in client.hover("main.tex", 0, 7)
        client.send({"id": 1, "method": "shutdown"})
        client.response(1)
        client.send({"method": "exit"})
        assert client.proc.wait(WAIT) == 0
    finally:
        client.close()
    lines = log_file.read_text().splitlines()
    errors = [line for line in lines if " ERROR " in line]
    assert len(errors) == 1, errors  # the fault's
    assert sum("Traceback" in line for line in lines) == 1  # the fault's
    assert any("a fault of the server's" in line for line in lines)
    warnings = [line for line in lines if " WARNING " in line]
    assert any("invalid params for textDocument/hover" in line for line in warnings)
    assert any("citation key" in line for line in warnings)
    assert any("could not be read" in line for line in warnings)
