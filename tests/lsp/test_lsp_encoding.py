"""Position encodings: UTF-16 (VS Code, Neovim 0.7) and UTF-8 (Neovim 0.11) with accents, CJK
and an emoji before the span.  The expected columns are written out, not computed."""

from __future__ import annotations

import pytest
from lsp_editor import wait_for
from lsprotocol import types
from pytest_lsp import client_capabilities

from citewarden.model import Code
from conftest import Start

# Line 1 of chapters/intro.tex: "Café, 日本語 and 😀 before \cite{lamport1994,knuht1984}."
# The dangling key starts after 41 code points = 42 UTF-16 units (the emoji takes two)
# = 51 UTF-8 bytes (é: 2, each CJK character: 3, the emoji: 4).
COLUMNS = {"utf-16": 42, "utf-8": 51, "utf-32": 41}


async def _check(
    start: Start, capabilities: types.ClientCapabilities | None, expected: str
) -> None:
    h = await start(capabilities=capabilities)
    assert str(h.result.capabilities.position_encoding or "utf-16") == expected
    name = "chapters/intro.tex"
    h.editor.open(name)
    [d] = await wait_for(lambda: [d for d in h.diagnostics(name) if d.code == Code.DANGLING.value])
    col = COLUMNS[expected]
    assert d.range == types.Range(
        start=types.Position(line=1, character=col),
        end=types.Position(line=1, character=col + len("knuht1984")),
    )
    # and back: a position in the client's units finds the key under it
    hover = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)),
            position=types.Position(line=1, character=col - 3),  # inside "lamport1994"
        )
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Lamport" in hover.contents.value
    assert hover.range == types.Range(
        start=types.Position(line=1, character=col - 12),
        end=types.Position(line=1, character=col - 1),
    )
    # an edit sent in the client's units lands where it should
    h.editor.edit(
        h.uri(name),
        [types.TextEdit(range=d.range, new_text="knuth1984")],
    )
    await wait_for(lambda: not h.diagnostics(name))


async def test_negotiated_encoding(start: Start, client_name: str) -> None:
    # VS Code offers no encodings (UTF-16); pytest-lsp's Neovim (0.11) prefers UTF-8
    expected = "utf-16" if client_name == "visual-studio-code" else "utf-8"
    await _check(start, None, expected)


@pytest.mark.parametrize("client_name", ["neovim@v0.7.0"])
async def test_neovim_07_sends_no_encodings_and_gets_utf16(start: Start) -> None:
    await _check(start, client_capabilities("neovim@v0.7.0"), "utf-16")


@pytest.mark.parametrize("client_name", ["neovim"])
async def test_utf32_when_preferred(start: Start) -> None:
    caps = client_capabilities("neovim")
    assert caps.general is not None
    caps.general.position_encodings = [types.PositionEncodingKind.Utf32]
    await _check(start, caps, "utf-32")
