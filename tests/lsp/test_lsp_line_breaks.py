"""Files whose lines end at a lone ``\\r`` (old Mac) or at ``\\r\\n``: diagnostics are on the
lines the editor shows, incremental edits land where the editor made them, and a fix that
adds a line writes the file's own line break.  The expected positions are written out."""

from __future__ import annotations

import pytest
from lsp_editor import file_edits, wait_for
from lsprotocol import types

from citewarden.model import Code, Span
from conftest import Start


def _project(newline: str) -> str:
    """A LaTeX paper and its bibliography, their lines ended by ``newline``."""
    files = {
        "main.tex": [
            r"\documentclass{article}",
            r"\begin{document}",
            r"See \cite{knuth1984}",
            r"and \cite{⟦d|knuht1984⟧}.",
            r"\bibliography{refs}",
            r"\end{document}",
            "",
        ],
        "refs.bib": [
            "@book{knuth1984, title={The TeXbook}, year={1984}}",
            "",
            "@book{⟦o|lamport1994⟧,",
            "  title={LaTeX},",
            "  year={1994}}",
            "",
        ],
    }
    return "".join(f"--- {name}\n{newline.join(lines)}" for name, lines in files.items())


def _range(line: int, start: int, end: int) -> types.Range:
    return types.Range(
        start=types.Position(line=line, character=start),
        end=types.Position(line=line, character=end),
    )


def _dangling(h: object, name: str = "main.tex") -> list[types.Diagnostic]:
    return [d for d in h.diagnostics(name) if d.code == Code.DANGLING.value]  # type: ignore[attr-defined]


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
async def test_positions_and_incremental_edits_in_files_with_cr_line_breaks(
    start: Start, newline: str
) -> None:
    h = await start(files=_project(newline))
    assert newline in h.editor.text("main.tex")
    h.editor.open("main.tex")
    h.editor.open("refs.bib")
    [d] = await wait_for(lambda: _dangling(h))
    assert d.range == _range(3, 10, 19) == h.mark("main.tex", "d")
    [o] = await wait_for(lambda: [x for x in h.diagnostics("refs.bib") if x.code == "orphan-entry"])
    assert o.range == _range(2, 6, 17) == h.mark("refs.bib", "o")

    # a line break typed into line 2 moves the dangling key one line down
    h.editor.replace("main.tex", "See ", "See" + newline)
    await wait_for(lambda: [x.range for x in _dangling(h)] == [_range(4, 10, 19)])
    # a letter typed on that line moves it along the line only
    h.editor.replace("main.tex", "and ", "and  ")
    await wait_for(lambda: [x.range for x in _dangling(h)] == [_range(4, 11, 20)])
    # the key corrected where the diagnostic says it is: the server's copy of the text
    # is the editor's, so nothing is left dangling
    [d] = _dangling(h)
    assert h.editor.slice("main.tex", d.range) == "knuht1984"
    h.editor.edit(h.uri("main.tex"), [types.TextEdit(range=d.range, new_text="knuth1984")])
    await wait_for(lambda: not _dangling(h))
    # two lines joined: the next key typed wrong is found where the editor has it
    h.editor.replace("main.tex", "}" + newline + "and", "} and")
    h.editor.replace("main.tex", "knuth1984}.", "knuth1985}.")
    [d] = await wait_for(lambda: _dangling(h))
    assert d.range == _range(3, 28, 37)
    assert h.editor.slice("main.tex", d.range) == "knuth1985"


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
async def test_add_nocite_action_writes_the_files_line_break(start: Start, newline: str) -> None:
    h = await start(files=_project(newline))
    h.editor.open("main.tex")
    [o] = await wait_for(lambda: [x for x in h.diagnostics("refs.bib") if x.code == "orphan-entry"])
    actions = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib")),
            range=o.range,
            context=types.CodeActionContext(diagnostics=[o]),
        )
    )
    assert actions is not None
    [action] = [
        a
        for a in actions
        if isinstance(a, types.CodeAction) and a.title == "Add \\nocite{lamport1994}"
    ]
    assert action.edit is not None
    [edit] = file_edits(action.edit)[h.uri("main.tex")]
    assert edit.new_text == "\\nocite{lamport1994}" + newline
    assert edit.range == _range(5, 0, 0)  # before \end{document}
    h.editor.apply(action.edit)
    assert h.editor.text("main.tex").endswith(
        f"\\bibliography{{refs}}{newline}\\nocite{{lamport1994}}{newline}\\end{{document}}{newline}"
    )
    await wait_for(lambda: not h.diagnostics("refs.bib"))


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"])
async def test_completion_after_a_comment_line_in_files_with_cr_line_breaks(
    start: Start, newline: str
) -> None:
    """A ``%`` comment ends at a lone ``\\r`` as TeX reads it, so a citation typed on a
    later line is completed (before, completion found the cursor inside the comment)."""
    h = await start(files=_project(newline))
    name = "main.tex"
    uri = h.editor.open(name)
    end = h.editor.find(name, r"\end{document}")
    typed = f"% a note{newline}See \\cite{{kn"
    h.editor.edit(uri, [types.TextEdit(range=h.editor.range(name, Span(end, end)), new_text=typed)])
    offset = end + len(typed)
    result = await h.client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=h.editor.position(name, offset),
        )
    )
    assert isinstance(result, types.CompletionList)
    assert [i.label for i in result.items] == ["knuth1984"]
    item = result.items[0]
    assert isinstance(item.text_edit, types.TextEdit)
    assert h.editor.slice(name, item.text_edit.range) == "kn"
