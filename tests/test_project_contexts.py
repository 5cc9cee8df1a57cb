"""First indexing of LaTeX projects with citation macros and flags: a file is parsed again
with what it inherits from its project only when that can change its parse, and the result
is what parsing every file again gives."""

from __future__ import annotations

from pathlib import Path

import pytest

import citewarden.project_graph as project_graph
from checking import check
from citewarden.model import ParsedDocument
from citewarden.parsing import dispatch
from citewarden.parsing.dispatch import parse_file
from citewarden.project import Workspace
from markers import write_project

#: main.tex defines a macro and a flag; ch1 uses both, ch2 neither, ch3 only cites.
THESIS = r"""
--- main.tex
\documentclass{article}
\newcommand{\mycite}[1]{\cite{#1}}
\newif\ifdraft
\begin{document}
\input{ch1}
\input{ch2}
\input{ch3}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- ch1.tex
\mycite{a} \ifdraft \cite{b}\else \cite{c}\fi
--- ch2.tex
Nothing cited here.
--- ch3.tex
As shown \cite{d}, and \cite{nowhere}.
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
@misc{d, title={D}}
"""

#: defs.tex defines the macros, in document order after a use in main.tex.
ORDERED = r"""
--- main.tex
\documentclass{article}
\begin{document}
\early{a1}
\input{defs}
\mycite{a2} \early{a3}
\input{sec}
\input{plain}
\late{a6}
\newcommand{\late}[1]{\cite{#1}}
\late{a7}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- defs.tex
\newcommand{\mycite}[1]{\cite{#1}}
\newcommand{\early}[1]{\cite{#1}}
--- sec.tex
\mycite{a4} \late{a5}
--- plain.tex
\cite{a8}
--- refs.bib
@misc{a1, title={T}}
@misc{a5, title={T}}
@misc{a8, title={T}}
"""

#: a flag set in a file without its \newif; a wrapper of a wrapper from another file.
WRAPPERS = r"""
--- main.tex
\documentclass{article}
\newif\ifdraft
\input{settings}
\input{wrap}
\begin{document}
\ifdraft \cite{draft}\else \cite{final}\fi
\input{body}
\input{other}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- settings.tex
\drafttrue
--- wrap.tex
\newcommand{\inner}[1]{\cite{#1}}
\newcommand{\outer}[1]{\inner{#1}}
--- body.tex
\outer{w1}
--- other.tex
\cite{w2} \citeouter{nothing}
--- refs.bib
@misc{draft, title={D}}
@misc{final, title={F}}
@misc{w1, title={W}}
@misc{w2, title={W}}
"""


#: defs.tex defines an environment whose begin code silences \cite; main.tex and ch.tex
#: cite inside it (nothing, for LaTeX) and outside it
QUIET = r"""
--- main.tex
\documentclass{article}
\input{defs}
\begin{document}
\begin{quiet}\cite{nokey}\end{quiet}
\input{ch}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- defs.tex
\newenvironment{quiet}{\renewcommand\cite[1]{}}{}
--- ch.tex
\begin{quiet}\cite{nokey2}\end{quiet} \cite{a}
--- refs.bib
@misc{a, title={A}}
"""


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the files parsed from now on (every parse goes through the graph's
    parse_file)."""
    seen: list[str] = []

    def counting(path: Path, *args: object, **kwargs: object) -> object:
        seen.append(path.name)
        return parse_file(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(project_graph, "parse_file", counting)
    return seen


def _index(root: Path) -> tuple[Workspace, dict[Path, object], dict[str, ParsedDocument]]:
    ws = Workspace(root=root)
    ws.add_folder(root)
    findings = {p: sorted(repr(f) for f in fs) for p, fs in check(ws).items()}
    docs = {p.name: d for p in ws.known_files() if (d := ws.document(p)) is not None}
    return ws, findings, docs  # type: ignore[return-value]


def test_files_the_project_context_cannot_change_are_parsed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, THESIS)
    parses = _parses(monkeypatch)
    _index(tmp_path)
    # main.tex defines, ch1 uses: both again with the context; ch2 and ch3 name nothing of it
    assert sorted(parses) == sorted(
        ["main.tex", "ch1.tex", "ch2.tex", "ch3.tex", "refs.bib", "main.tex", "ch1.tex"]
    )


@pytest.mark.parametrize(
    "fixture",
    [THESIS, ORDERED, WRAPPERS, QUIET],
    ids=["thesis", "ordered", "wrappers", "quiet"],
)
def test_first_index_equals_parsing_every_file_with_its_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fixture: str
) -> None:
    write_project(tmp_path, fixture)
    ws, findings, docs = _index(tmp_path)
    # each stored parse is what a fresh parse with the context it was noted with gives
    for path in ws.known_files():
        state = ws._state(path)
        assert state is not None
        if isinstance(state.parsed, ParsedDocument):
            assert parse_file(path, state.text, ws.settings, state.context) == state.parsed
    # and the index is the one of re-parsing every file whose context changed
    with monkeypatch.context() as m:
        m.setattr(project_graph, "context_applies", lambda *args: True)
        _, findings_all, docs_all = _index(tmp_path)
    assert findings == findings_all
    assert docs == docs_all


def test_editing_a_file_kept_unparsed_uses_the_context_it_was_given(tmp_path: Path) -> None:
    write_project(tmp_path, THESIS)
    ws, _, _ = _index(tmp_path)
    ch2 = tmp_path / "ch2.tex"
    ws.set_text(ch2, "Now \\mycite{d} and \\ifdraft \\cite{b}\\else \\cite{zzz}\\fi.\n")
    keys = sorted(c.key for c in ws.document(ch2).citations)  # type: ignore[union-attr]
    assert keys == ["d", "zzz"]  # \mycite known, draft false: the else branch
    assert dispatch.parse_file(
        ch2, ws.text(ch2) or "", ws.settings, ws._state(ch2).context
    ) == ws.document(ch2)  # type: ignore[union-attr]


def _dangling(ws: Workspace) -> list[str]:
    return sorted(
        f.message.split("'")[1]
        for fs in check(ws).values()
        for f in fs
        if f.code.value == "dangling-citation"
    )


def test_an_environment_another_file_defines_silences_where_it_begins(tmp_path: Path) -> None:
    """The silencing in the begin code of defs.tex's environment holds in the files that
    use it; defined anew without it there, the citations in it count again, and back."""
    write_project(tmp_path, QUIET)
    ws, _, _ = _index(tmp_path)
    assert _dangling(ws) == []
    defs = tmp_path / "defs.tex"
    ws.set_text(defs, "\\newenvironment{quiet}{}{}\n")
    assert _dangling(ws) == ["nokey", "nokey2"]
    ws.set_text(defs, "\\newenvironment{quiet}{\\renewcommand\\cite[1]{}}{}\n")
    assert _dangling(ws) == []
