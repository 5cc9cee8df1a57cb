"""The BibTeX style in the editor: its macros are read again when the .bst file (or the
.latexmkrc that says where it is) changes on disk or is saved, as BibTeX would read them
on the next run."""

from __future__ import annotations

import asyncio

import pytest
from lsp_editor import wait_for
from lsprotocol import types

from citewarden.model import Code
from conftest import Harness, Start

MAIN = r"""\documentclass{article}
\begin{document}
\cite{a}
\bibliographystyle{mystyle}
\bibliography{refs}
\end{document}
"""
FILES = f"""--- main.tex
{MAIN}--- refs.bib
@article{{a, author = {{A. Author}}, title = {{T}}, journal = foo, year = 2000}}
"""
STYLE = 'ENTRY {journal} {} {}\nMACRO {foo} {"Foo Journal"}\nREAD\n'


def undefined(h: Harness) -> list[types.Diagnostic]:
    return [d for d in h.diagnostics("refs.bib") if d.code == Code.UNDEFINED_STRING.value]


def changed(h: Harness, name: str, kind: types.FileChangeType) -> None:
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=h.uri(name), type=kind)])
    )


def watched(h: Harness) -> list[str]:
    patterns: list[str] = []
    for registration in h.registrations:
        if registration.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES:
            options = registration.register_options
            watchers = options["watchers"] if isinstance(options, dict) else options.watchers
            for watcher in watchers:
                pattern = watcher["globPattern"] if isinstance(watcher, dict) else watcher
                patterns.append(pattern if isinstance(pattern, str) else pattern.glob_pattern)
    return patterns


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_a_style_written_on_disk_is_read(start: Start) -> None:
    """mystyle.bst is not there (the macro may be the style's: information), then appears:
    foo is its macro, no finding, as BibTeX and the command line say."""
    h = await start(files=FILES)
    assert "**/*.bst" in watched(h)
    h.editor.open("main.tex")
    [d] = await wait_for(lambda: undefined(h))
    assert d.severity == types.DiagnosticSeverity.Information
    (h.root / "mystyle.bst").write_text(STYLE, encoding="utf-8")
    changed(h, "mystyle.bst", types.FileChangeType.Created)
    await wait_for(lambda: not undefined(h))


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_bstinputs_of_the_latexmkrc_is_read_again(start: Start) -> None:
    h = await start(files=FILES)
    assert "**/.latexmkrc" in watched(h)
    (h.root / "styles").mkdir()
    (h.root / "styles" / "mystyle.bst").write_text(STYLE, encoding="utf-8")
    h.editor.open("main.tex")
    await wait_for(lambda: undefined(h))
    (h.root / ".latexmkrc").write_text("ensure_path('BSTINPUTS', './styles//');\n")
    changed(h, ".latexmkrc", types.FileChangeType.Created)
    await wait_for(lambda: not undefined(h))


async def test_a_style_saved_in_the_editor_is_read(start: Start, client_name: str) -> None:
    """The macro renamed in the open .bst and saved: foo is undefined under the style (a
    warning), whether or not the client watches files."""
    h = await start(files=FILES + f"--- mystyle.bst\n{STYLE}")
    h.editor.open("main.tex")
    h.editor.open("mystyle.bst")
    await wait_for(lambda: h.diagnostics("refs.bib") == [] and not undefined(h))
    h.editor.replace("mystyle.bst", "MACRO {foo}", "MACRO {bar}")
    await asyncio.sleep(1.0)  # the edit is checked: BibTeX reads the file, not the buffer
    assert not undefined(h)
    (h.root / "mystyle.bst").write_text(h.editor.text("mystyle.bst"), encoding="utf-8")
    h.client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("mystyle.bst"))
        )
    )
    if client_name == "visual-studio-code":  # it watches the file on disk too
        changed(h, "mystyle.bst", types.FileChangeType.Changed)
    [d] = await wait_for(lambda: undefined(h))
    assert d.severity == types.DiagnosticSeverity.Warning
    assert "'foo'" in d.message
