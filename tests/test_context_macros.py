"""A document's own words commands (``\\newcommand{\\Coq}{Coq}``) show their text in a
citing sentence, in the file that defines them and across the project."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.context.collect import citation_contexts
from citewarden.context.latex_macros import definitions
from citewarden.context.relevance import Work
from citewarden.context.sentence import citing_sentences
from citewarden.parsing.latex import parse_latex

PREAMBLE = (
    "\\documentclass{article}\n"
    "\\newcommand{\\method}{DeepNet}\n"
    "\\newcommand\\eg{e.g.\\xspace}\n"
    "\\def\\Coq{\\textsc{Coq}\\xspace}\n"
    "\\newcommand{\\R}{\\mathbb{R}}\n"
    "\\newcommand{\\bb}[1]{\\textbf{#1}}\n"
    "% \\newcommand{\\hidden}{Hidden}\n"
    "\\newcommand{\\tool}{Old}\\renewcommand{\\tool}{Lean}\n"
    "\\newcommand{\\OPTchapterfont}{15}\n"
    "\\begin{document}\n"
)


def sentence(body: str, preamble: str = PREAMBLE) -> str:
    text = preamble + body + "\n\\end{document}\n"
    doc = parse_latex(Path("p.tex"), text)
    found = citing_sentences(text, doc.citations, doc.kind)
    return found[0].text if found[0] else ""


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        ("\\method{} outperforms the baseline \\cite{a}.", "DeepNet outperforms the baseline."),
        ("Proof assistants, \\eg \\Coq \\cite{a}, help.", "Proof assistants, e.g. Coq, help."),
        ("We use \\tool, not \\hidden{} \\cite{a}.", "We use Lean, not."),
        ("Over \\R{} and \\bb{x} it holds \\cite{a}.", "Over and x it holds."),
    ],
)
def test_a_words_command_shows_the_text_it_typesets(body: str, shown: str) -> None:
    """A command without parameters whose body is text reads as that text (``\\Coq`` reads
    ``Coq``, where the sentence read ``the, and``); one with a parameter or a body of math,
    and a definition in a comment, are not read; the last definition of a name wins."""
    assert sentence(body) == shown


def test_definitions_read_text_bodies_only() -> None:
    assert definitions(PREAMBLE) == {
        "method": "DeepNet",
        "eg": "e.g.",
        "Coq": "Coq",
        "tool": "Lean",
    }


def test_the_projects_other_files_define_words_commands_too() -> None:
    """A chapter's sentence shows a command that the project's macros file defines (the
    HoTT book's ``\\NuPRL`` and ``\\Coq``)."""
    text = "Three variants underlie the \\NuPRL \\cite{a}, \\Coq~\\cite{b}, and others.\n"
    doc = parse_latex(Path("chapter.tex"), text)
    works = {"a": Work("Implementing mathematics", None), "b": Work("The Coq manual", None)}
    macros = "\\newcommand{\\NuPRL}{Nuprl\\xspace}\n\\newcommand{\\Coq}{\\textsc{Coq}\\xspace}\n"
    alone = citation_contexts([(doc, text)], works)
    assert alone[0].sentence.text == "Three variants underlie the, and others."
    found = citation_contexts([(doc, text)], works, definitions=[macros])
    assert [c.sentence.text for c in found] == [
        "Three variants underlie the Nuprl, Coq, and others."
    ] * 2


BOOK = Path(__file__).parent / "data" / "documents" / "hott-book"


def test_check_reads_the_words_commands_of_a_file_that_cites_nothing() -> None:
    """The HoTT book's macros.tex cites nothing, yet defines ``\\NuPRL``, ``\\Coq`` and
    ``\\Agda`` for every chapter: the contexts ``check`` collects show them."""
    from citewarden.audit import collect_contexts
    from citewarden.project import Workspace

    ws = Workspace(root=BOOK)
    ws.add_folder(BOOK)
    chapter = BOOK / "preliminaries.tex"
    found = collect_contexts(ws, [chapter], ws.all_entries(), None)
    shown = {c.sentence.text for c in found if "underlie" in c.sentence.text}
    assert shown == {
        "Three principal variants of Martin-Löf's type theory underlie the NuPRL, Coq, and"
        " Agda computer implementations of type theory."
    }
