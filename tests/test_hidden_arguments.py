"""A macro that ``\\detokenize``s its argument (``\\newcommand{\\code}[1]{\\texttt{\\detokenize
{#1}}}``, as package manuals show code): TeX makes a string of what it is given, so a
``\\cite`` there cites nothing.  Compared with the citations pdflatex writes to the .aux."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citewarden.parsing.latex import parse_latex
from citewarden.project import Workspace
from differential import _run, missing_tools

#: (definition, use, cited by pdflatex?)
MACROS = [
    (r"\newcommand*{\code}[1]{\detokenize\expandafter{\string#1}}", r"\code{\cite{%s}}", False),
    (r"\newcommand{\cmd}[1]{\texttt{\detokenize{#1}}}", r"\cmd{\cite{%s}}", False),
    (r"\def\shown#1{{\ttfamily\detokenize{#1}}}", r"\shown{\cite{%s}}", False),
    (r"\NewDocumentCommand{\lit}{m}{\detokenize{#1}}", r"\lit{\cite{%s}}", False),
    # the argument also runs outside the \detokenize group: it cites
    (r"\newcommand{\both}[1]{#1 \detokenize{#1}}", r"\both{\cite{%s}}", True),
    # \string makes a string of the argument's first token, here \cite: it never runs
    (r"\newcommand{\first}[1]{\string#1}", r"\first{\cite{%s}}", False),
    # the second argument runs
    (r"\newcommand{\pair}[2]{\detokenize{#1} #2}", r"\pair{\cite{%s}}{\cite{%s-2}}", False),
]


def _document(chapter: bool) -> dict[str, str]:
    definitions = "\n".join(d for d, _, _ in MACROS)
    uses = "\n".join(u.replace("%s", f"k{i}") for i, (_, u, _) in enumerate(MACROS))
    files = {
        "main.tex": "\\documentclass{article}\n"
        + definitions
        + "\n\\begin{document}\n"
        + ("\\input{chapter}\n" if chapter else uses + "\n")
        + "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
    }
    if chapter:
        files["chapter.tex"] = uses + "\n"
    return files


def _ours(files: dict[str, str], directory: Path) -> set[str]:
    ws = Workspace(root=directory)
    root = ws.add_file(directory / "main.tex")
    keys: set[str] = set()
    for project in ws.projects():
        if project.root == root:
            for _, doc in ws.project_documents(project):
                keys.update(c.key for c in doc.citations if c.key)
    return keys


def test_a_detokenized_argument_cites_nothing() -> None:
    text = _document(chapter=False)["main.tex"]
    keys = {c.key for c in parse_latex(Path("main.tex"), text).citations}
    expected = {f"k{i}" for i, (_, _, cites) in enumerate(MACROS) if cites}
    assert keys == expected | {"k6-2"}


@pytest.mark.parametrize("chapter", [False, True], ids=["same file", "included file"])
def test_hidden_arguments_agree_with_pdflatex(tmp_path: Path, chapter: bool) -> None:
    missing = missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    files = _document(chapter)
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    run = _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    aux = (tmp_path / "main.aux").read_text(errors="replace")
    oracle = {k for line in re.findall(r"\\citation\{([^}]*)\}", aux) for k in line.split(",")}
    assert "k1" not in oracle and "k4" in oracle, run.stdout[-2000:]
    assert _ours(files, tmp_path) == oracle
