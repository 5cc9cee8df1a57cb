"""Findings on links follow the editor's buffer as the command line reads the same text.

An edit before a link that changes no link keeps the project graph (it is not computed
again on each keystroke); the links it holds move with the text.  A bibliography buffer
grown over ``max_file_mb`` is not read, as the file on disk would not be.
"""

from __future__ import annotations

import json
from pathlib import Path

from lsp_editor import wait_for
from lsprotocol import types
from test_lsp_actions import actions_for

from citewarden.lsp.convert import path_of
from citewarden.model import Span
from cli_process import run_citewarden
from conftest import Harness, Start

#: (file, line, column, code): 1-based, columns in code points (the texts are ASCII)
Row = tuple[str, int, int, str]

MISSING = r"""
--- main.tex
\documentclass{article}
\begin{document}
See \cite{knuth1984} \input{nochap}
\bibliography{gone}
\end{document}
--- refs.bib
@book{knuth1984, title={T}}
"""

UNEXTENDED = r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs}
\begin{document}
\cite{knuth1984}
\printbibliography
\end{document}
--- refs.bib
@book{knuth1984, title={T}}
"""

SMALL_BIB = "@book{k0001, title={T}}\n"
#: 22 KB, over the 10 KB that max_file_mb = 0.01 allows
BIG_BIB = "".join(f"@book{{k{i:04d}, title={{T {i}}}}}\n" for i in range(800))

OVERSIZE = rf"""
--- .citewarden.toml
max_file_mb = 0.01
--- main.tex
\documentclass{{article}}
\begin{{document}}
\cite{{k0001,zz}}
\bibliography{{refs}}
\end{{document}}
--- refs.bib
{SMALL_BIB}"""


def _editor_rows(h: Harness) -> set[Row]:
    rows: set[Row] = set()
    for uri, diagnostics in h.client.diagnostics.items():
        path = path_of(uri)
        assert path is not None
        for d in diagnostics:
            start = d.range.start
            name = path.relative_to(h.root).as_posix()
            rows.add((name, start.line + 1, start.character + 1, str(d.code)))
    return rows


def _cli_rows(h: Harness, tmp_path: Path) -> set[Row]:
    """What ``citewarden check .`` finds in the editor's buffers, saved."""
    for uri, text in h.editor.texts.items():
        path = path_of(uri)
        assert path is not None
        path.write_text(text, encoding="utf-8")
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cli-cache")}
    done = run_citewarden(["check", ".", "--no-verify", "--format", "json"], h.root, env=env)
    assert done.returncode in (0, 1), done.stderr
    return {
        (d["file"], d["line"], d["column"], d["code"])
        for d in json.loads(done.stdout)["diagnostics"]
    }


def _marked(h: Harness, name: str, code: str) -> list[str]:
    """The text under each diagnostic ``code`` of ``name``."""
    return [h.editor.slice(name, d.range) for d in h.diagnostics(name) if d.code == code]


def _insert(h: Harness, name: str, at: str, text: str) -> None:
    offset = h.editor.find(name, at)
    h.editor.edit(
        h.uri(name),
        [types.TextEdit(range=h.editor.range(name, Span(offset, offset)), new_text=text)],
    )


async def test_a_line_added_above_missing_files_moves_their_diagnostics(
    start: Start, tmp_path: Path
) -> None:
    h = await start(files=MISSING)
    h.editor.open("main.tex")
    await wait_for(lambda: _marked(h, "main.tex", "missing-include") == ["nochap"])
    await wait_for(lambda: _marked(h, "main.tex", "missing-bibliography") == ["gone"])
    _insert(h, "main.tex", "See", "% a new comment line\n")
    await wait_for(lambda: _marked(h, "main.tex", "missing-include") == ["nochap"])
    await wait_for(lambda: _marked(h, "main.tex", "missing-bibliography") == ["gone"])
    _insert(h, "main.tex", "\\bibliography", "XYZ")  # on the line of the link, before it
    await wait_for(lambda: _marked(h, "main.tex", "missing-bibliography") == ["gone"])
    expected = _cli_rows(h, tmp_path)
    assert {r[3] for r in expected} == {"missing-include", "missing-bibliography"}
    await wait_for(lambda: _editor_rows(h) == expected)


async def test_naming_the_file_after_an_edit_before_the_resource(start: Start) -> None:
    """Spaces typed before ``\\addbibresource{refs}``: the fix adds .bib after the name
    where it now is (it wrote ``\\addbibresource{.bibrefs}``)."""
    h = await start(files=UNEXTENDED)
    h.editor.open("main.tex")
    await wait_for(lambda: _marked(h, "main.tex", "missing-bibliography") == ["refs"])
    _insert(h, "main.tex", "\\addbibresource", "    ")
    # the range published before the edit holds "rce{" now
    await wait_for(lambda: _marked(h, "main.tex", "missing-bibliography") == ["refs"])
    [diag] = h.diagnostics("main.tex")
    [fix] = [a for a in await actions_for(h, "main.tex", diag) if a.is_preferred]
    assert fix.title == "Name the file 'refs.bib'"
    assert fix.edit is not None
    h.editor.apply(fix.edit)
    assert "\n    \\addbibresource{refs.bib}\n" in h.editor.text("main.tex")
    await wait_for(lambda: not h.diagnostics("main.tex"))


async def test_a_bibliography_buffer_over_the_size_limit(start: Start, tmp_path: Path) -> None:
    """Over ``max_file_mb``, the buffer is not read: the link to it is broken (no dangling
    citation), as ``citewarden check`` finds with that text on disk."""
    h = await start(files=OVERSIZE)
    h.editor.open("refs.bib")
    await wait_for(lambda: [d.code for d in h.diagnostics("main.tex")] == ["dangling-citation"])
    whole = h.editor.range("refs.bib", Span(0, len(SMALL_BIB)))
    h.editor.edit(h.uri("refs.bib"), [types.TextEdit(range=whole, new_text=BIG_BIB)])
    await wait_for(lambda: [d.code for d in h.diagnostics("main.tex")] == ["file-unreadable"])
    expected = _cli_rows(h, tmp_path)
    assert expected == {
        ("main.tex", 4, 15, "file-unreadable"),
        ("refs.bib", 1, 1, "file-unreadable"),
    }
    await wait_for(lambda: _editor_rows(h) == expected)
    [diag] = h.diagnostics("main.tex")
    assert "22 KB, larger than the 10 KB limit (setting max_file_mb)" in diag.message
