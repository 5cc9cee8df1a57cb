"""A client that shows no Markdown (``plaintext`` alone in its ``contentFormat``) gets
hovers and completion documentation as plain text, where it was sent the Markdown,
labelled plain text: ``**title**``, backslashes and backticks shown as they are."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_lsp_hostile import RawClient

from citewarden.lsp.markup import plain_text


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "main.tex").write_text("\\cite{a_b}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text(
        "@misc{a_b, title = {A *new* [view] of x_y}, author = {Doe, Jane},"
        " journal = {J. #1}, year = 2020, doi = {10.1/x_(y)}}\n"
    )
    c = RawClient(root, tmp_path / "cache")
    try:
        yield c
    finally:
        c.close()


def test_a_plain_text_client_gets_plain_text_hovers(client: RawClient) -> None:
    plain = {"contentFormat": ["plaintext"]}
    msg_id = client.request(
        "initialize",
        {
            "processId": os.getpid(),
            "rootUri": client.root.as_uri(),
            "capabilities": {
                "textDocument": {
                    "hover": plain,
                    "completion": {"completionItem": {"documentationFormat": ["plaintext"]}},
                }
            },
            "initializationOptions": {"verify": {"enabled": False}},
        },
    )
    assert "result" in client.response(msg_id)
    client.send({"method": "initialized", "params": {}})
    contents = client.hover("main.tex", 0, 7)["result"]["contents"]
    assert contents["kind"] == "plaintext"
    assert contents["value"] == (
        "A *new* [view] of x_y\n\nDoe, Jane\n\nJ. #1, 2020\n\n"
        "DOI: 10.1/x_(y) (https://doi.org/10.1/x_%28y%29)\n\n@misc{a_b} in refs.bib"
    )


def test_the_servers_markdown_reads_as_the_text_it_stands_for() -> None:
    markdown = "**T \\*x\\* \\[y\\]**\n\n`` `a` `` in [l\\_1](https://e.org/)\n\n\\\\x1b *v*"
    assert plain_text(markdown) == "T *x* [y]\n\n`a` in l_1 (https://e.org/)\n\n\\x1b v"
