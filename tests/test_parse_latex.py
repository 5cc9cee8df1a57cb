"""LaTeX parser: citations, links, bibitems, root hints, suppression and completion.

Fixtures mark every expected key with ``⟦...⟧`` (an empty ``⟦⟧`` is an empty key); the
parser must report exactly those keys, in order, with exactly those spans.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citewarden.model import (
    CitationKind,
    CitationMacro,
    Code,
    DocumentKind,
    LatexContext,
    LinkKind,
    Span,
)
from citewarden.parsing import latex_bibunits, latex_order
from citewarden.parsing.latex import completion_context, find_citation_macros, parse_latex
from markers import parse_markers

P = Path("doc.tex")


def keys_and_spans(marked: str, extra: tuple[str, ...] = ()) -> None:
    m = parse_markers(marked)
    doc = parse_latex(P, m.text, extra)
    got = [(c.key, c.span) for c in doc.citations]
    want = [(m.slice(s), s) for s in m.spans]
    assert got == want
    for c in doc.citations:
        assert m.text[c.span.start : c.span.end] == c.key
        assert c.command_span.start <= c.span.start and c.span.end <= c.command_span.end


CITATION_CASES = {
    "cite": r"See \cite{⟦a⟧}.",
    "several keys, spaces trimmed": r"\cite{⟦a⟧, ⟦b⟧ ,⟦c⟧   }",
    "starred": r"\cite*{⟦a⟧} \citet*{⟦b⟧} \citeauthor*{⟦c⟧}",
    "natbib": (
        r"\citet{⟦a⟧} \citep[p.~3]{⟦b⟧} \citep[see][chap.~2]{⟦c⟧} \citealt{⟦d⟧}"
        r" \citealp{⟦e⟧} \citeauthor{⟦f⟧} \citeyear{⟦g⟧} \citeyearpar{⟦h⟧} \citenum{⟦i⟧}"
    ),
    "natbib capitalised": r"\Citet{⟦a⟧} \Citep{⟦b⟧} \Citealt{⟦c⟧} \Citealp{⟦d⟧} \Citeauthor{⟦e⟧}",
    "biblatex": (
        r"\parencite{⟦a⟧} \Parencite{⟦b⟧} \textcite{⟦c⟧} \Textcite{⟦d⟧} \autocite{⟦e⟧}"
        r" \Autocite{⟦f⟧} \footcite{⟦g⟧} \footcitetext{⟦h⟧} \smartcite{⟦i⟧} \Smartcite{⟦j⟧}"
        r" \supercite{⟦k⟧} \fullcite{⟦l⟧} \citetitle{⟦m⟧} \citeurl{⟦n⟧} \citedate{⟦o⟧}"
        r" \Cite{⟦p⟧} \parencite*{⟦q⟧} \footfullcite{⟦r⟧}"
    ),
    "biblatex volcite": r"\volcite[see]{3}[12]{⟦a⟧} \Pvolcite{2}{⟦b⟧} \ftvolcite{IV}[5--7]{⟦c⟧}",
    "biblatex volcite multicite": (
        r"\volcites(see)(etc.)[cf.]{1}[3]{⟦a⟧}{2}{⟦b⟧} \Pvolcites{3}{⟦c⟧}[x]{4}{⟦d⟧} text"
        r" \ftvolcites{1}{⟦e⟧} \Svolcites(a){1}{⟦f⟧} \avolcites{2}{⟦g⟧}{3}"
    ),
    "natbib aliases": r"\citetalias{⟦a⟧} \citepalias[p.~2]{⟦b⟧}",
    "bibentry": r"\bibentry{⟦a⟧}",
    "multicite with global notes": (
        r"\cites(see)(and others)[p.~1]{⟦k1⟧,⟦k2⟧}[chap.~2][]{⟦k3⟧}{⟦k4⟧} then text"
    ),
    "multicite family": (
        r"\parencites{⟦a⟧}{⟦b⟧} \textcites[x]{⟦c⟧}[y]{⟦d⟧} \autocites(g){⟦e⟧}"
        r" \footcites{⟦f⟧} \smartcites{⟦g⟧} \supercites{⟦h⟧} \Parencites{⟦i⟧}"
        r" \Textcites{⟦j⟧} \Autocites{⟦k⟧}"
    ),
    "multicite groups across lines and comments": (
        "\\parencites[see][]{⟦a⟧}\n   [p.~4]{⟦b⟧} % comment\n  {⟦c⟧}\n\n{not a key}"
    ),
    "multicite stops at other text": r"\cites{⟦a⟧} and [not] {x}",
    "multicite reads every following group": r"\cites{⟦a⟧} [pre]{⟦b⟧}",
    "apacite": (
        r"\citeA<e.g.,>[p.~3]{⟦a⟧} \citeNP{⟦b⟧} \citeyearNP{⟦c⟧} \shortcite{⟦d⟧}"
        r" \cite<see>{⟦e⟧} \citeauthor{⟦f⟧} \fullciteA{⟦g⟧}"
    ),
    "nested optional arguments": r"\cite[{see [x]}][p.~{3}]{⟦a⟧}",
    # a delimited argument ends at the first "]": the next is the key (LaTeX, natbib and
    # biblatex cite "]"); the optional argument of \NewDocumentCommand's nests
    "nested brackets without braces": r"\cite[see [x]⟦]⟧[p.~3]{a} \parencite[see [x]⟦]⟧{b}",
    "nested brackets of a document command": (
        r"\NewDocumentCommand\mc{om}{\cite{#2}} \mc[see [x]]{⟦b⟧}"
    ),
    "braces inside the key group are skipped over": r"\cite{⟦a⟧} {\em \cite{⟦b⟧}}",
    "whitespace and newlines before arguments": "\\cite \n  [p.~3]\n  {⟦a⟧}",
    "comment between command and argument": "\\citep[p.~3]% why\n{⟦a⟧}",
    "keys with colon and dot": r"\cite{⟦doi:10.1000/xyz.1⟧, ⟦Smith.2020:a⟧, ⟦a-b_c+d⟧}",
    "empty key in the middle": r"\cite{⟦a⟧,⟦⟧,⟦b⟧}",
    "empty argument": r"\cite{⟦⟧}",
    "trailing comma": r"\cite{⟦a⟧,⟦⟧}",
    "blank key between commas": r"\cite{⟦a⟧,⟦⟧ ,⟦b⟧}",
    "comment hides a citation": "% \\cite{x}\n\\cite{⟦y⟧} % \\cite{z}",
    "escaped percent is not a comment": r"100\% sure \cite{⟦k⟧}",
    "escaped backslash then comment": "line\\\\% \\cite{x}\n\\cite{⟦y⟧}",
    "comment inside the key list": "\\cite{⟦a⟧, % first\n  ⟦b⟧}",
    "verb": r"\verb|\cite{x}| \cite{⟦y⟧} \verb*+\cite{z}+ \verb!50%! \cite{⟦w⟧}",
    "verbatim environments": (
        "\\begin{verbatim}\n\\cite{v1}\n\\end{verbatim}\n"
        "\\begin{verbatim*}\n\\cite{v2}\n\\end{verbatim*}\n"
        "\\begin{Verbatim}[frame=single]\n\\cite{v3}\n\\end{Verbatim}\n"
        "\\begin{lstlisting}[language=TeX]\n\\cite{v4}\n\\end{lstlisting}\n"
        "\\begin{minted}{latex}\n\\cite{v5}\n\\end{minted}\n"
        "\\begin{comment}\n\\cite{v6}\n\\end{comment}\n"
        "\\begin{itemize}\\item \\cite{⟦seen⟧}\\end{itemize}"
    ),
    "inline code and urls": (
        r"\lstinline|\cite{a}| \lstinline[language=TeX]{\cite{b}} \mintinline{tex}{\cite{c}}"
        r" \url{http://x.org/a%20\cite{d}} \href{http://x.org/%7e}{\cite{⟦e⟧}}"
    ),
    "CRLF line endings": "\\cite{⟦a⟧,\r\n  ⟦b⟧}\r\n% \\cite{c}\r\n\\citep\r\n[p.~3]\r\n{⟦d⟧}\r\n",
    "non-ASCII before a key": "Überraschung — 日本語 😀 \\cite{⟦clé⟧} \\cite{⟦Müller2020⟧}",
    "macro definitions are not citations": (
        r"\newcommand{\mycite}[1]{\cite{#1}} \renewcommand\citet[1]{x}"
        r" \def\citex#1{\citep{#1}} \cite{⟦real⟧}"
    ),
    "iffalse blocks": (
        "\\iffalse \\cite{a} \\ifx\\a\\b \\cite{b}\\fi \\cite{c} % \\fi\n\\fi \\cite{⟦d⟧}"
        " \\iffalse \\cite{e} \\else \\cite{⟦f⟧} \\fi"
        " \\iffalse \\ifthenelse{x}{\\cite{g}}{} \\fi \\cite{⟦h⟧}"
    ),
    "unmatched iffalse hides nothing": "\\iffalse \\cite{⟦a⟧}",
    "escaped percent inside iffalse": "\\iffalse 5\\% \\fi \\cite{⟦a⟧}",
    "keys that are macros are skipped": r"\cite{\mykey, ⟦b⟧}",
    "nothing after end document": "\\cite{⟦a⟧}\n\\end{document}\n\\cite{b}",
    "endinput: the rest of its line, nothing after": (
        "\\cite{⟦a⟧}\n  \\endinput \\cite{⟦b⟧}\n\\cite{c}\n\\endinput\n\\cite{d}"
    ),
    "endinput in a conditional or a group is read on": (
        "\\ifx\\a\\undefined\\else\n  \\endinput\n\\fi \\cite{⟦a⟧}"
        " \\ifdefined\\b \\endinput\\fi \\cite{⟦b⟧}"
        " \\newcommand{\\stop}{\\endinput} \\cite{⟦c⟧}"
        " \\newif\\ifdraft \\ifdraft\\fi {\\endinput} \\cite{⟦d⟧}\n\\endinput\n\\cite{e}"
    ),
    "endinput in verbatim or a comment is text": (
        "\\begin{verbatim}\n\\endinput\n\\end{verbatim}\n% \\endinput\n\\verb|\\endinput| \\cite{⟦a⟧}"
    ),
    "unclosed group does not swallow the rest": "\\cite{abc\n\nText \\cite{⟦d⟧}",
    "unclosed optional argument": "\\cite[p.~3{a}\n\n\\cite{⟦b⟧}",
    "bibitem is not a citation": r"\bibitem[Lbl]{k1} Text. \cite{⟦k2⟧}",
    "similar names are not citations": r"\citestyle{plain} \bibliographystyle{x} \citex{y}",
    "nocite": r"\nocite{⟦a⟧, ⟦b⟧}",
}


@pytest.mark.parametrize("marked", CITATION_CASES.values(), ids=CITATION_CASES.keys())
def test_citations(marked: str) -> None:
    keys_and_spans(marked)


def test_extra_commands_are_citations() -> None:
    keys_and_spans(r"\mycite[p.~3]{⟦a⟧} \autocite{⟦b⟧}", extra=("mycite",))
    keys_and_spans(r"\mycite[p.~3]{a} \autocite{⟦b⟧}")
    keys_and_spans(r"\inlinecite{⟦a⟧}", extra=("\\inlinecite",))


@pytest.mark.parametrize(
    ("definition", "macros"),
    [
        (r"\newcommand{\inlinecite}[1]{\footnotesize\citen{#1}}", ["inlinecite/m/1"]),
        (r"\newcommand\mycite[2][]{\cite[#1]{#2}}", ["mycite/om/2"]),
        (r"\providecommand*{\pc}[1]{(\citealp{#1})}", ["pc/m/1"]),
        (r"\def\dc#1{\citep{#1}}", ["dc/m/1"]),
        (r"\NewDocumentCommand{\xc}{O{} m}{\parencite[#1]{#2}}", ["xc/om/2"]),
        # several arguments, keys in any of them
        (r"\newcommand{\two}[2]{\cite[#1]{#2}}", ["two/mm/2"]),
        (r"\newcommand{\mt}[2]{\cite{#1} and \cite{#2}}", ["mt/mm/1,2"]),
        (r"\NewDocumentCommand\xd{m m}{\cite{#2}}", ["xd/mm/2"]),
        (r"\NewDocumentCommand\xs{s o m}{\cite{#3}}", ["xs/som/3"]),
        # capitalised and starred capitalised commands
        (r"\newcommand{\cc}[1]{\Citeauthor{#1} \Citealt*{#1}}", ["cc/m/1"]),
        # fixed keys: counted where the macro is used
        (r"\newcommand{\fixed}{\cite{a}}", ["fixed//fixed"]),
        (r"\let\ml\citep", ["ml/like citep"]),
        (r"\let\ml=\citep \newcommand{\w}[1]{\ml{#1}}", ["ml/like citep", "w/m/1"]),
        (r"\newcommand{\other}[1]{\textbf{#1}}", []),  # not a citation
        (r"\let\other\textbf", []),
        (r"\let\bibfiles\bibliography", ["bibfiles/like bibliography"]),  # a link command
        (r"\newcommand{\refs}[1]{{\small\bibliography{#1}}}", ["refs/like bibliography"]),
        (r"\newcommand{\refs}[1]{\bibliography{#1,more}}", []),  # not its argument alone
        (r"\renewcommand{\citet}[1]{\citeauthor{#1}}", []),  # already a citation command
        (r"% \newcommand{\c}[1]{\cite{#1}}", []),  # commented out
        # biblatex's own definitions of citation commands
        (
            r"\DeclareCiteCommand{\citejournal}{\usebibmacro{prenote}}"
            r"{\printfield{journaltitle}}{\multicitedelim}{\usebibmacro{postnote}}",
            ["citejournal/like cite"],
        ),
        (r"\DeclareMultiCiteCommand{\citejournals}{\citejournal}{;}", ["citejournals/like cites"]),
        (r"\DeclareCiteCommand*{\citejournal}{}{}{}{}", []),  # \citejournal* of an existing one
        (r"\DeclareCiteCommand{\cite}{}{}{}{}", []),  # already a citation command
    ],
)
def test_find_citation_macros(definition: str, macros: list[str]) -> None:
    def show(m: CitationMacro) -> str:
        if m.like:
            return f"{m.name}/like {m.like}"
        keys = ",".join(map(str, m.keys))
        return f"{m.name}/{m.pattern}/{keys}" + ("fixed" if m.fixed else "")

    assert [show(m) for m in find_citation_macros(definition)] == macros


def test_a_let_alias_of_bibliography_names_bibliographies() -> None:
    text = r"\let\bibfiles\bibliography \begin{document}\bibfiles{a, b}\end{document}"
    assert [(link.command, link.target) for link in parse_latex(P, text).links] == [
        ("bibliography", "a"),
        ("bibliography", "b"),
    ]


def test_citation_macros_defined_in_the_file_are_citations() -> None:
    m = parse_markers(
        "\\newcommand{\\inlinecite}[1]{\\footnotesize\\citen{#1}}\n"
        "Table: \\inlinecite{⟦a⟧, ⟦b⟧} and \\citep{⟦c⟧}"
    )
    doc = parse_latex(P, m.text)
    assert [(c.key, c.span) for c in doc.citations] == [(m.slice(s), s) for s in m.spans]
    assert [c.name for c in doc.citation_macros] == ["inlinecite"]
    assert [c.command for c in doc.citations] == ["inlinecite", "inlinecite", "citep"]


@pytest.mark.parametrize(
    "marked",
    [
        # two key arguments; a non-key argument is not read
        "\\newcommand{\\mt}[2]{\\cite{#1} and \\cite{#2}}\n\\mt{⟦a⟧}{⟦b⟧, ⟦c⟧}",
        "\\newcommand{\\see}[2]{#1 \\cite{#2}}\n\\see{not, keys}{⟦a⟧}",
        "\\NewDocumentCommand\\xs{s o m}{\\cite[#2]{#3}}\n\\xs*[p. 3]{⟦a⟧} \\xs{⟦b⟧}",
        "\\let\\ml\\citep\n\\ml[p.~3]{⟦a⟧}",
        "\\newcommand{\\w}[1]{\\Citealt*{#1}}\n\\w{⟦a⟧}",
        # a macro with a fixed key cites it only when used
        "\\newcommand{\\unused}{\\cite{C}}\nText.",
        "\\newcommand{\\used}{\\cite{⟦C⟧}}\nText \\used.",
        "\\newcommand{\\unused}[1]{\\cite{C,#1}}\nText.",
        # \string\cite prints the command
        "\\string\\cite{a} \\cite{⟦b⟧}",
    ],
)
def test_macro_readings(marked: str) -> None:
    keys_and_spans(marked)


@pytest.mark.parametrize(
    "marked",
    [
        "\\ifnum 1=0 \\cite{a}\\else \\cite{⟦b⟧}\\fi",
        "\\ifnum 2>1 \\cite{⟦a⟧}\\else \\cite{b}\\fi \\cite{⟦c⟧}",
        # a number TeX does not read ("Number too big"; 5 000 digits is more than int()
        # takes): the branch is not known, both are read
        "\\ifnum " + "9" * 5000 + "<2 \\cite{⟦a⟧}\\else \\cite{⟦b⟧}\\fi",
        "\\ifnum 2147483648>1 \\cite{⟦a⟧}\\else \\cite{⟦b⟧}\\fi",
        "\\ifnum 2147483647>1 \\cite{⟦a⟧}\\else \\cite{b}\\fi",
        "\\iftrue \\cite{⟦a⟧}\\else \\cite{b}\\fi",
        "\\ifx\\a\\a \\cite{⟦a⟧}\\else \\cite{b}\\fi",
        "\\ifx\\a\\b \\cite{⟦a⟧}\\else \\cite{⟦b⟧}\\fi",  # unknown: both read
        "\\newif\\ifdraft\n\\ifdraft \\cite{a}\\else \\cite{⟦b⟧}\\fi",
        "\\newif\\ifdraft \\drafttrue\n\\ifdraft \\cite{⟦a⟧}\\else \\cite{b}\\fi",
        "\\newif\\ifdraft % \\drafttrue\n\\ifdraft \\cite{a}\\fi \\cite{⟦c⟧}",
        # set both ways: unknown, both branches read
        "\\newif\\ifd \\dtrue \\dfalse\n\\ifd \\cite{⟦a⟧}\\else \\cite{⟦b⟧}\\fi",
        # nested: the inner \else belongs to the inner conditional
        "\\iffalse \\ifx\\a\\b \\cite{a}\\else \\cite{b}\\fi \\else \\cite{⟦c⟧}\\fi",
        "\\ifdefined\\x \\cite{⟦a⟧}\\fi",
        # a conditional closed by \fi but not evaluated is counted when a false branch is
        # skipped: its \fi is its own (the \cite{a} is skipped, as TeX skips it)
        "\\iffalse \\ifpdf x\\fi \\cite{a} \\fi \\cite{⟦b⟧}",
        # etoolbox's tests take arguments, no \fi: the \fi is the \iffalse's
        "\\iffalse \\ifnumless{1}{2}{x}{y} \\cite{a} \\fi \\cite{⟦b⟧}",
    ],
)
def test_static_conditionals(marked: str) -> None:
    keys_and_spans(marked)


def test_command_names_kinds_and_command_spans() -> None:
    text = r"\citep*[p.~3]{a} \nocite{b} \parencites(g)[x]{c}[y]{d} tail \citeA<e>{f}"
    doc = parse_latex(P, text)
    rows = [
        (c.key, c.command, c.kind, text[c.command_span.start : c.command_span.end])
        for c in doc.citations
    ]
    assert rows == [
        ("a", "citep*", CitationKind.CITE, r"\citep*[p.~3]{a}"),
        ("b", "nocite", CitationKind.NOCITE, r"\nocite{b}"),
        ("c", "parencites", CitationKind.CITE, r"\parencites(g)[x]{c}[y]{d}"),
        ("d", "parencites", CitationKind.CITE, r"\parencites(g)[x]{c}[y]{d}"),
        ("f", "citeA", CitationKind.CITE, r"\citeA<e>{f}"),
    ]


@pytest.mark.parametrize(
    ("text", "nocite_all", "keys"),
    [
        (r"\nocite{*}", True, []),
        (r"\nocite{a,*}", True, ["a"]),
        (r"\nocite{a}", False, ["a"]),
        (r"% \nocite{*}", False, []),
        # LaTeX writes \citation{*}, which BibTeX reads as every entry, and warns of
        # nothing; biblatex warns of '*' and biber reads every entry
        (r"\cite{*}", True, []),
        (r"\usepackage{biblatex}\cite{a,*}", True, ["a", "*"]),
    ],
)
def test_nocite_all(text: str, nocite_all: bool, keys: list[str]) -> None:
    doc = parse_latex(P, text)
    assert doc.nocite_all is nocite_all
    assert [c.key for c in doc.citations] == keys


def test_empty_key_span_is_zero_length_after_its_delimiter() -> None:
    text = r"\cite{a,,b} \cite{}"
    empties = [c.span for c in parse_latex(P, text).citations if c.key == ""]
    assert empties == [Span(8, 8), Span(18, 18)]
    assert text[7] == "," and text[17] == "{"


LINK_CASES = {
    "input braced": (r"\input{⟦chap1⟧}", [(LinkKind.INCLUDE, "input", None)]),
    "input bare": ("\\input ⟦chap2.tex⟧\n", [(LinkKind.INCLUDE, "input", None)]),
    "include and subfile": (
        r"\include{⟦c3⟧} \subfile{⟦sub/x.tex⟧}",
        [(LinkKind.INCLUDE, "include", None), (LinkKind.INCLUDE, "subfile", None)],
    ),
    "import and subimport": (
        r"\import{dir/}{⟦f1⟧} \subimport*{ d2 }{⟦f2.tex⟧} \inputfrom{d3}{⟦f3⟧}",
        [
            (LinkKind.INCLUDE, "import", "dir/"),
            (LinkKind.INCLUDE, "subimport", "d2"),
            (LinkKind.INCLUDE, "inputfrom", "d3"),
        ],
    ),
    "includeonly is not a link": (r"\includeonly{c3,c4}", []),
    "bibliography list": (
        r"\bibliography{⟦refs⟧, ⟦more.bib⟧,,⟦../x⟧}",
        [(LinkKind.BIBLIOGRAPHY, "bibliography", None)] * 3,
    ),
    "biblatex resources": (
        r"\addbibresource[location=remote]{⟦http://x.org/a.bib⟧} \addbibresource{⟦b.bib⟧}"
        r" \addglobalbib{⟦g.bib⟧}",
        [
            (LinkKind.BIBLIOGRAPHY, "addbibresource", None),
            (LinkKind.BIBLIOGRAPHY, "addbibresource", None),
            (LinkKind.BIBLIOGRAPHY, "addglobalbib", None),
        ],
    ),
    "bibliographystyle is not a link": (r"\bibliographystyle{plain}", []),
    "commented out": ("% \\input{x}\n% \\bibliography{y}\n", []),
    # the project may define the macros (resolved with the project's definitions)
    "macro targets are kept": (
        r"\input{⟦\dir/x⟧} \input{⟦y⟧} \bibliography{⟦\bibfile⟧} \addbibresource{⟦\jobname.bib⟧}",
        [
            (LinkKind.INCLUDE, "input", None),
            (LinkKind.INCLUDE, "input", None),
            (LinkKind.BIBLIOGRAPHY, "bibliography", None),
            (LinkKind.BIBLIOGRAPHY, "addbibresource", None),
        ],
    ),
    "parameter targets are skipped": (r"\newcommand{\inc}[1]{\input{#1}}", []),
    # a package or class the project may have as a file of its own
    "classes and packages": (
        r"\documentclass[11pt]{⟦thesis⟧} \usepackage[a=b]{⟦amsmath⟧, ⟦lab⟧}"
        r" \RequirePackage{⟦util⟧} \LoadClass{⟦book⟧}",
        [
            (LinkKind.INCLUDE, "documentclass", None),
            (LinkKind.INCLUDE, "usepackage", None),
            (LinkKind.INCLUDE, "usepackage", None),
            (LinkKind.INCLUDE, "RequirePackage", None),
            (LinkKind.INCLUDE, "LoadClass", None),
        ],
    ),
    "a package named by a macro is skipped": (r"\usepackage{\mypkg}", []),
}


@pytest.mark.parametrize(("marked", "expected"), LINK_CASES.values(), ids=LINK_CASES.keys())
def test_links(marked: str, expected: list[tuple[LinkKind, str, str | None]]) -> None:
    m = parse_markers(marked)
    doc = parse_latex(P, m.text)
    assert [(link.kind, link.command, link.base) for link in doc.links] == expected
    assert [link.span for link in doc.links] == m.spans
    for link in doc.links:
        assert m.text[link.span.start : link.span.end] == link.target


@pytest.mark.parametrize(
    ("text", "root"),
    [
        ("% !TEX root = ../main.tex\n\\section{A}", "../main.tex"),
        ("%!TeX root=main.tex\r\n", "main.tex"),
        ("%  !TeX   root = sub dir/main.tex   \n", "sub dir/main.tex"),
        ("\n\n% !tex root = m.tex", "m.tex"),
        ("text % !TEX root = x.tex\n", None),
        ("% !TEX program = lualatex\n", None),
        ("\\section{A}\n", None),
        ("\\documentclass[../main.tex]{subfiles}\n\\begin{document}", "../main.tex"),
        ("% !TEX root = other.tex\n\\documentclass[main]{subfiles}", "other.tex"),
        ("\\documentclass[11pt]{article}", None),
    ],
)
def test_magic_root(text: str, root: str | None) -> None:
    assert parse_latex(P, text).magic_root == root


@pytest.mark.parametrize(
    ("text", "is_root"),
    [
        ("\\documentclass[11pt]{article}\n\\begin{document}", True),
        ("% \\documentclass{article}\n", False),
        ("\\verb|\\documentclass|", False),
        ("\\section{Intro}", False),
    ],
)
def test_is_root(text: str, is_root: bool) -> None:
    doc = parse_latex(P, text)
    assert doc.is_root is is_root
    assert doc.kind is DocumentKind.LATEX


def test_text_macros_are_the_parameterless_definitions_with_a_plain_text_body() -> None:
    doc = parse_latex(
        P,
        r"""\newcommand{\bibfile}{refs} \newcommand\dir{ parts/ } \def \name{x.bib}
\renewcommand*{\bibfile}{other} \def\arg#1{a} \newcommand{\cmd}[1]{b} \def\nested{\x}
\iffalse \def\skipped{no} \fi % \def\commented{no}
""",
    )
    assert doc.text_macros == (
        ("bibfile", "refs"),
        ("dir", "parts/"),
        ("name", "x.bib"),
        ("bibfile", "other"),
    )


def test_newcites_defines_the_commands_of_a_list_of_its_own() -> None:
    doc = parse_latex(
        P,
        r"""\citesw{early}
\newcites{sw, talks}{Software, Talks}
\citesw{a} \nocitetalks{b} \citeswx{c}
\bibliographysw{software} \bibliographytalks{talks,more}
""",
    )
    assert doc.newcites == ("sw", "talks")
    # before \newcites, \citesw is no command yet; \citeswx never is
    assert [(c.key, c.command) for c in doc.citations] == [("a", "citesw"), ("b", "nocitetalks")]
    assert [(link.kind, link.command, link.target) for link in doc.links] == [
        (LinkKind.BIBLIOGRAPHY, "bibliographysw", "software"),
        (LinkKind.BIBLIOGRAPHY, "bibliographytalks", "talks"),
        (LinkKind.BIBLIOGRAPHY, "bibliographytalks", "more"),
    ]


@pytest.mark.parametrize("read_ahead", [True, False], ids=["read ahead", "table per definition"])
def test_many_macros_apply_from_their_definitions_as_a_few_do(
    read_ahead: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past MANY_MACROS definitions the rest are read ahead: each still applies from its
    definition on only, and a wrapper of a later wrapper still cites, as when the table of
    commands is rebuilt at every definition."""
    from citewarden.parsing import latex

    count = latex.MANY_MACROS + 10
    if not read_ahead:
        monkeypatch.setattr(latex, "MANY_MACROS", 10_000)
    lines = [f"\\newcommand{{\\w{'x' * i}}}[1]{{\\cite{{#1}}}}" for i in range(1, count)]
    last = "w" + "x" * count
    lines.insert(count - 5, f"\\{last}{{before}} \\wx{{early}}")
    lines.append(f"\\newcommand{{\\{last}}}[1]{{\\wxx{{#1}}}}")
    lines.append(f"\\{last}{{after}} \\cite{{plain}}")
    doc = parse_latex(P, "\n".join(lines))
    assert [c.key for c in doc.citations] == ["early", "after", "plain"]
    assert len(doc.citation_macros) == count


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("\\documentclass{report}\n\\input{pre}\n\\begin{document}\nx\n\\end{document}\n", 2),
        # neither a comment, a skipped branch nor verbatim text starts the body
        (
            "% \\begin{document}\n\\iffalse\\begin{document}\\fi\n"
            "\\begin{verbatim}\n\\begin{document}\n\\end{verbatim}\n"
            "\\begin {document}\n\\input{ch}\n",
            5,
        ),
        ("\\input{ch}\n\\cite{a}\n", None),  # an included file: all of it is body
    ],
)
def test_the_body_starts_at_the_begin_document_tex_reads(text: str, body: int | None) -> None:
    doc = parse_latex(P, text)
    lines = text.split("\n")
    expected = -1 if body is None else sum(len(line) + 1 for line in lines[:body])
    assert doc.body_start == expected


def test_bibunits_are_units_with_the_files_of_their_putbib() -> None:
    text = r"""\defaultbibliography{common,more}
% \begin{bibunit} \putbib[commented]
\begin{bibunit}[plain]\cite{a}\putbib\end{bibunit}
\begin{bibunit}\cite{b}\putbib[tools]\end{bibunit}
\begin{bibunit}\cite{c}\end{bibunit}
\begin{bibunit}\cite{d}\putbib\end{bibunit}
\cite{e}"""
    doc = parse_latex(P, text)
    assert doc.bibunits
    units = [(text[a:b], names) for a, b, names in doc.refsections]
    assert units == [
        (r"\cite{a}\putbib", ("common", "more")),
        (r"\cite{b}\putbib[tools]", ("tools",)),
        # a unit without \putbib has no \bibdata: BibTeX finds none of its citations
        (r"\cite{c}", ()),
        (r"\cite{d}\putbib", ("common", "more")),
    ]
    # the default bibliography is linked once, where it is named
    assert [(link.command, link.target) for link in doc.links] == [
        ("defaultbibliography", "common"),
        ("defaultbibliography", "more"),
        ("putbib", "tools"),
    ]


def test_automatic_bibunits_run_from_one_sectioning_command_to_the_next() -> None:
    text = r"""\defaultbibliography{pre}
\begin{document}
\cite{main}
\bibliographyunit[\section]
\section{A}\cite{a}\putbib
\section*{B}\cite{b}\putbib[own]
% \section{commented}
\section{C}\cite{c}
\defaultbibliography{later}
\bibliographyunit
\section{D}\cite{d}
\bibliography{final}
\end{document}"""
    doc = parse_latex(P, text)
    assert doc.bibunits
    units = [(text[a:b], names) for a, b, names in doc.refsections]
    assert units == [
        # the body's default, written to the .aux, is the one the next run starts with
        ("\\section{A}\\cite{a}\\putbib\n", ("later",)),
        ("\\section*{B}\\cite{b}\\putbib[own]\n% \\section{commented}\n", ("own",)),
        ("\\section{C}\\cite{c}\n\\defaultbibliography{later}\n", ()),
    ]
    # the preamble's default, overridden before any \putbib reads it, is no link
    assert [(link.command, link.target) for link in doc.links] == [
        ("putbib", "own"),
        ("defaultbibliography", "later"),
        ("bibliography", "final"),
    ]


def test_units_named_in_code_or_comments_are_not_units() -> None:
    text = r"""\begin{document}
\begin{verbatim}
\begin{refsection}[listing.bib] \cite{v}
\end{verbatim}
% \begin{refsection}[commented.bib]
Write \verb|\begin{bibunit}| or \lstinline|\putbib[x]| \cite{a}.
\begin{bibunit}\cite{b}\verb+\putbib[shown]+\end{bibunit}
\end{document}"""
    doc = parse_latex(P, text)
    units = [(text[a:b], names) for a, b, names in doc.refsections]
    assert units == [(r"\cite{b}\verb+\putbib[shown]+", ())]
    assert [link.target for link in doc.links] == []


def test_newrefsection_runs_to_the_next_section_start_or_end() -> None:
    text = r"""\begin{document}
\cite{zero}
\newrefsection[one,two.bib]\cite{a}
\newrefsection\cite{b}
\newrefsection[three]\cite{c}
\endrefsection\cite{d}
\refsection[four]\cite{e}
\endrefsection
% \newrefsection[commented]
\newcommand{\chapsec}[1]{\newrefsection[#1]}
\newrefsection[five]\cite{f}
\begin{refsection}[six]\cite{g}\end{refsection}\cite{h}
\newrefsection[seven]\nocite{*}\cite{i}
\end{document}"""
    doc = parse_latex(P, text)
    units = [(text[a:b], names) for a, b, names in doc.refsections]
    assert units == [
        # a section without resources reads the default ones: no unit of its own
        (r"\cite{a}" + "\n", ("one", "two.bib")),
        (r"\cite{c}" + "\n", ("three",)),
        (r"\cite{e}" + "\n", ("four",)),
        # a start in a macro's body is passed over; \begin{refsection} ends the open section
        ("\\cite{f}\n", ("five",)),
        (r"\cite{g}", ("six",)),
        ("\\nocite{*}\\cite{i}\n\\end{document}", ("seven",)),
    ]
    assert [(link.command, link.target) for link in doc.links] == [
        ("refsection", name) for name in ("one", "two.bib", "three", "four", "five", "six", "seven")
    ]
    # \nocite{*} in a section with resources of its own cites every entry of those only
    assert (doc.nocite_all, doc.nocite_all_in) == (False, ("seven",))


def test_a_file_marks_each_section_start_and_end_for_the_files_around_it() -> None:
    """An included file's starts and ends, with resources or without, and its
    ``\\nocite{*}``: the project follows them across files (a section begun here runs on
    after the file in the one including it)."""
    text = r"""\cite{a}
\end{refsection}
\nocite{*}
\newrefsection\cite{b}
% \endrefsection
\newcommand{\chapsec}[1]{\newrefsection[#1]}
\begin{refsection}[one]\nocite{*}
"""
    doc = parse_latex(P, text)
    marks = [text[at : at + 15] for at in doc.refsection_marks]
    assert marks == ["\\end{refsection", "\\newrefsection\\", "\\begin{refsecti"]
    assert [text[at : at + 8] for at in doc.nocite_all_at] == ["\\nocite{"] * 2
    assert doc.nocite_all_at[1] > doc.refsection_marks[-1]
    assert [(text[a:b], names) for a, b, names in doc.refsections] == [("\\nocite{*}\n", ("one",))]


@pytest.mark.parametrize(
    ("preamble", "option"),
    [
        (r"\usepackage[backend=biber,refsection=chapter]{biblatex}", "chapter"),
        (r"\usepackage[refsection = section+, style=numeric]{biblatex}", "section+"),
        (r"\usepackage{biblatex}\ExecuteBibliographyOptions{refsection=part}", "part"),
        (r"\PassOptionsToPackage{refsection=subsection}{biblatex}", "subsection"),
        (r"\usepackage[refsection=chapter]{other}\usepackage{biblatex}", ""),
        (r"% \usepackage[refsection=chapter]{biblatex}", ""),
        (r"\usepackage[refsection=chapter,refsection=none]{biblatex}", "chapter"),
        (r"\usepackage[refsection=paragraph]{biblatex}", ""),
    ],
)
def test_the_refsection_option_biblatex_is_given(preamble: str, option: str) -> None:
    assert (
        parse_latex(P, preamble + "\n\\begin{document}\\end{document}").refsection_reset == option
    )


def test_headings_are_found_with_their_star_outside_comments_code_and_macro_bodies() -> None:
    text = r"""\newcommand{\mychapter}[1]{\chapter{#1}}
\renewcommand\section{x}
\begin{document}
\chapter{One}\part*{P}\part [short]{Q}
\section*{S}\subsection{T}\subsubsection{U}\paragraph{V}
% \chapter{commented}
\verb|\chapter{code}|
\begin{verbatim}
\section{verbatim}
\end{verbatim}
\end{document}"""
    doc = parse_latex(P, text)
    assert [name for _, name in doc.headings] == [
        "chapter",
        "part*",
        "part",
        "section*",
        "subsection",
    ]
    assert all(text.startswith("\\" + name.rstrip("*"), at) for at, name in doc.headings)


def test_a_file_leaves_its_default_bibliography_to_the_units_of_the_others() -> None:
    root = parse_latex(P, r"\defaultbibliography{pre}\begin{document}\include{ch}\end{document}")
    assert (root.default_bibliography, root.default_in_body) == (("pre",), False)
    assert ("defaultbibliography", "pre") in [(link.command, link.target) for link in root.links]
    chapter = parse_latex(P, r"\begin{bibunit}\cite{a}\putbib\end{bibunit}")
    # the files of a bare \putbib whose file sets no default are the project's
    assert [names for _, _, names in chapter.refsections] == [latex_bibunits.FROM_PROJECT]
    later = parse_latex(P, r"\defaultbibliography{body}")  # an included file: all body
    assert (later.default_bibliography, later.default_in_body) == (("body",), True)


def test_which_unit_citations_bibunits_copies_to_the_main_list() -> None:
    assert parse_latex(P, r"\usepackage[globalcitecopy]{bibunits}").cite_copy == "all"
    assert parse_latex(P, r"\usepackage{bibunits,natbib}").cite_copy == "natbib"
    commented = "% \\usepackage[globalcitecopy]{bibunits}\n\\usepackage{bibunits}"
    assert parse_latex(P, commented).cite_copy == ""
    # a project's files together: globalcitecopy copies all; natbib keeps its stars
    assert latex_bibunits.copied({"", "natbib", "all"}) == "all"
    assert latex_bibunits.copied({"", "natbib"}) == ""
    assert latex_bibunits.copied({""}) == "starred"


def test_a_bibliography_among_automatic_units_is_their_default_too() -> None:
    text = r"""\begin{document}\bibliographyunit[\chapter]
\chapter{A}\cite{a}\putbib
\chapter{B}\cite{b}\bibliography{refs}
\end{document}"""
    doc = parse_latex(P, text)
    assert [names for _, _, names in doc.refsections] == [("refs",), ()]
    # refs is linked once, as the main list's bibliography
    assert [(link.command, link.target) for link in doc.links] == [("bibliography", "refs")]


def test_bibitems() -> None:
    m = parse_markers(
        "\\begin{thebibliography}{9}\n\\bibitem[Knuth(1984)]{⟦knuth84⟧} D. Knuth.\n"
        "\\bibitem{ ⟦lamport94⟧ }\n% \\bibitem{gone}\n\\end{thebibliography}"
    )
    doc = parse_latex(P, m.text)
    assert doc.bibitems == tuple((m.slice(s), s) for s in m.spans)
    assert doc.citations == ()


def test_ignore_comment_suppresses_its_line_and_the_next() -> None:
    text = "a\n% citewarden: ignore\n\\cite{x}\nb\n\\cite{y} % CITEWARDEN: ignore\n"
    assert parse_latex(P, text).suppressed_lines == frozenset({1, 2, 4, 5})
    assert parse_latex(P, "\\verb|% citewarden: ignore|").suppressed_lines == frozenset()


# ---- completion ------------------------------------------------------------------------

COMPLETION_CASES = {
    "empty group": r"\cite{⟦k|⟦c|⟧⟧}",
    "inside a key": r"\cite{⟦k|ab⟦c|⟧cd⟧}",
    "after a comma and a space": r"\cite{a, ⟦k|b⟦c|⟧⟧}",
    "right after a comma": r"\cite{a,⟦k|⟦c|⟧b⟧}",
    "with optional arguments": r"\citep[see][p.~3]{⟦k|Kn⟦c|⟧⟧}",
    "apacite": r"\citeA<e.g.>[p]{⟦k|a⟦c|⟧⟧}",
    "second multicite group": r"\parencites(x)[y]{a}[z]{⟦k|b⟦c|⟧⟧}",
    "nocite": r"\nocite{⟦k|a⟦c|⟧⟧}",
    "volcite key": r"\volcite[see]{3}[12]{⟦k|a⟦c|⟧⟧}",
    "second volcites key": r"\volcites{1}{a}[p]{2}{⟦k|b⟦c|⟧⟧}",
    "unclosed at the end": r"Text \cite[p.~3]{⟦k|x⟦c|⟧⟧",
    "unclosed before a blank line": "\\cite{a,⟦k|b⟦c|⟧⟧\n\nNext paragraph}",
    "keys on a second line": "\\cite{a,\n  ⟦k|b⟦c|⟧c⟧}",
    "non-ASCII key": r"日本 \cite{⟦k|Mü⟦c|⟧ller⟧}",
}


@pytest.mark.parametrize("marked", COMPLETION_CASES.values(), ids=COMPLETION_CASES.keys())
def test_completion_context(marked: str) -> None:
    m = parse_markers(marked)
    cursor, key = m.named["c"], m.named["k"]
    ctx = completion_context(m.text, cursor.start)
    assert ctx is not None
    assert ctx.span == key
    assert ctx.prefix == m.text[key.start : cursor.start]


NO_COMPLETION_CASES = {
    "plain text": r"Some te⟦c|⟧xt",
    "optional argument": r"\cite[pa⟦c|⟧ge]{a}",
    "after the group": r"\cite{a}⟦c|⟧",
    "before the group": r"\cite⟦c|⟧{a}",
    "comment": r"% \cite{a⟦c|⟧}",
    "verb": r"\verb|\cite{a⟦c|⟧}|",
    "verbatim": "\\begin{verbatim}\n\\cite{a⟦c|⟧}\n\\end{verbatim}",
    "other command": r"\section{a⟦c|⟧}",
    "volcite volume": r"\volcite{3⟦c|⟧}{a}",
}


@pytest.mark.parametrize("marked", NO_COMPLETION_CASES.values(), ids=NO_COMPLETION_CASES.keys())
def test_no_completion_context(marked: str) -> None:
    m = parse_markers(marked)
    assert completion_context(m.text, m.named["c"].start) is None


def test_completion_for_extra_commands() -> None:
    m = parse_markers(r"\mycite{⟦k|a⟦c|⟧⟧}")
    assert completion_context(m.text, m.named["c"].start) is None
    ctx = completion_context(m.text, m.named["c"].start, ("mycite",))
    assert ctx is not None and ctx.span == m.named["k"]


def test_completion_offset_out_of_range() -> None:
    assert completion_context(r"\cite{a}", 99) is None
    assert completion_context(r"\cite{a}", -1) is None


# ---- real documents (copied from the shared corpus, see tests/data/PROVENANCE.md) -------

SCIPY = Path(__file__).parent / "data" / "documents" / "scipy-1.0-paper" / "scipy-1.0"


def test_real_paper_citation_macro_reaches_included_file() -> None:
    """paper.tex defines ``\\inlinecite`` around ``\\citen``; scipy-optimize.tex (included by
    paper.tex) uses it in a table.  Its keys count once the macro is passed on."""
    import re

    root = SCIPY / "paper.tex"
    child = SCIPY / "scipy-optimize.tex"
    macros = parse_latex(root, root.read_text(encoding="utf-8")).citation_macros
    assert [m.name for m in macros] == ["inlinecite"]
    text = child.read_text(encoding="utf-8")
    written = [
        key.strip()
        for m in re.finditer(r"\\inlinecite\{([^}]*)\}", text)
        for key in m.group(1).split(",")
    ]
    assert written  # the table is there
    with_macro = parse_latex(child, text, context=LatexContext(macros))
    inline = [c.key for c in with_macro.citations if c.command == "inlinecite"]
    assert inline == written
    for c in with_macro.citations:
        assert text[c.span.start : c.span.end] == c.key
    without = parse_latex(child, text)
    assert not any(c.command == "inlinecite" for c in without.citations)
    assert len(without.citations) == len(with_macro.citations) - len(written)


def test_completion_span_of_unclosed_citation_stops_at_the_key() -> None:
    """In an unclosed group the replaced span holds key characters only: it stops at white
    space, a backslash, a comma or a brace, never running on over a following command."""
    cases = [
        "\\cite{⟦k|la⟦c|⟧⟧\n\\input{x}",
        "\\cite{⟦k|la⟦c|⟧⟧\\input{x}",
        "\\cite{⟦k|ab⟦c|⟧cd⟧\\input{x}",
        "\\cite{a,⟦k|b⟦c|⟧⟧\\label{x}",
        "\\cite{⟦k|la⟦c|⟧⟧ \\input{x}",
    ]
    for marked in cases:
        m = parse_markers(marked)
        cursor, key = m.named["c"], m.named["k"]
        ctx = completion_context(m.text, cursor.start)
        assert ctx is not None, marked
        assert ctx.span == key, marked
        assert ctx.prefix == m.text[key.start : cursor.start]
    # a cursor inside the name of the following command is not in a key
    m = parse_markers("\\cite{la\n\\in⟦c|⟧put{x}")
    assert completion_context(m.text, m.named["c"].start) is None
    m = parse_markers("\\cite{la\\in⟦c|⟧put{x}")
    assert completion_context(m.text, m.named["c"].start) is None


def test_macro_starts_follow_the_include_tree() -> None:
    """main: defines m0, includes a (which includes b, defining mb, then defines ma), then
    defines m1 and includes c."""
    order = ["main", "a", "b", "c"]
    placed = {"a": ("main", 0), "b": ("a", 0), "c": ("main", 1)}
    definitions = {"main": (("m0", 0), ("m1", 1)), "a": (("ma", 1),), "b": (("mb", 0),)}
    starts = latex_order.macro_starts(order, placed, definitions)
    assert dict(starts["main"]) == {"mb": 0, "ma": 0}
    assert dict(starts["a"]) == {"m0": -1, "mb": 0}
    assert dict(starts["b"]) == {"m0": -1}
    assert dict(starts["c"]) == {"m0": -1, "m1": -1, "ma": -1, "mb": -1}


def test_silencing_in_document_order_is_read_in_one_pass() -> None:
    """A file redefining ``\\cite`` 320 000 times before its first ``\\input``, then
    reading 40 000 files each in a group silencing it (``{\\renewcommand\\cite[1]{}
    \\input{c7}}``): each redefinition was taken off the front of a list and each file
    looked through every group's silencing (160 000 pairs of redefinitions: 14 s; these:
    close to a minute).  The bound is generous: the reading takes a second."""
    own = tuple(("cite", 0, i % 2 == 0, True) for i in range(320_000))
    kids = [f"c{i}" for i in range(40_000)]
    scoped = tuple(("cite", i, True, False) for i in range(len(kids)))
    t0 = time.process_time()
    found = latex_order.silencing(
        ["main", *kids],
        {kid: ("main", i) for i, kid in enumerate(kids)},
        {"main": own + scoped},
        {"main": tuple(range(len(kids)))},
    )
    assert time.process_time() - t0 < 10
    assert found["main"] == ()
    assert found[kids[0]] == found[kids[-1]] == (("cite", -1, True),)


def test_a_macro_used_before_its_definition_is_not_a_citation() -> None:
    text = "\\wc{a}\n\\newcommand{\\wc}[1]{\\cite{#1}}\n\\wc{b}\n"
    assert [c.key for c in parse_latex(Path("m.tex"), text).citations] == ["b"]


def test_definition_bodies_close_where_the_token_reader_closes_them() -> None:
    """The fast brace matcher (counts between closers) agrees with the token reader on
    escaped braces, comments, blank lines and unclosed groups."""
    import random

    from citewarden.parsing.latex_static import _close_brace, _close_brace_tokens

    rng = random.Random(19)
    for _ in range(5000):
        text = "{" + "".join(rng.choice("ab{}\\%\n ") for _ in range(rng.randint(0, 40)))
        assert _close_brace(text, 0, 30) == _close_brace_tokens(text, 0, 30), repr(text)


def test_biblatex_entry_sets_are_keys_of_the_document_and_cite_their_members() -> None:
    """``\\mcite{set,*a,*b}`` (biblatex's mcite option) and ``\\defbibentryset{set}{a,b}``
    define ``set``; the members are cited under their own names, a ``*key`` no set key
    precedes is dropped as biblatex drops it."""
    m = parse_markers(
        r"\mcite{⟦a|grp⟧,*⟦b|k1⟧, *⟦c|k2⟧,⟦d|k3⟧} \Mparencite[p]{*x,⟦e|k4⟧}"
        r" \defbibentryset{⟦f|myset⟧}{⟦g|m1⟧,⟦h|m2⟧} \mtextcite{⟦i|grp⟧,*⟦j|k1⟧}"
    )
    doc = parse_latex(P, m.text)
    named = m.named
    assert [(c.key, c.span) for c in doc.citations] == [
        ("grp", named["a"]),
        ("k1", named["b"]),
        ("k2", named["c"]),
        ("k3", named["d"]),
        ("k4", named["e"]),
        ("myset", named["f"]),
        ("m1", named["g"]),
        ("m2", named["h"]),
        ("grp", named["i"]),
        ("k1", named["j"]),
    ]
    assert doc.bibitems == (("grp", named["a"]), ("myset", named["f"]))
    assert parse_latex(P, r"\newcommand{\s}[1]{\defbibentryset{#1}{a}}").bibitems == ()


def test_environments_the_file_defines_verbatim_hold_no_citations() -> None:
    """fancyvrb, listings, minted, tcolorbox and comment-package environments the file
    defines are read as LaTeX reads them: their content is no citation (nor is that of
    one whose definition is commented out an exception)."""
    text = (
        "\\DefineVerbatimEnvironment{code}{Verbatim}{}\n\\lstnewenvironment{py}{}{}\n"
        "\\newminted{python}{} \\newminted[rb]{ruby}{}\n\\newtcblisting[auto counter]{lb}{}\n"
        "\\excludecomment{hidden}\n% \\excludecomment{shown}\n"
        "\\begin{code}\\cite{a}\\end{code} \\begin{py}\\cite{b}\\end{py}"
        " \\begin{pythoncode}\\cite{c}\\end{pythoncode} \\begin{pythoncode*}{}\\cite{d}"
        "\\end{pythoncode*} \\begin{rb}\\cite{e}\\end{rb} \\begin{lb}\\cite{f}\\end{lb}"
        " \\begin{hidden}\\cite{g}\\end{hidden} \\begin{shown}\\cite{h}\\end{shown}"
    )
    assert [c.key for c in parse_latex(P, text).citations] == ["h"]
    m = parse_markers("\\DefineVerbatimEnvironment{code}{Verbatim}{}\n\\begin{code}\\cite{a⟦c|⟧}")
    assert completion_context(m.text, m.named["c"].start) is None


def test_biblatex_resources_after_begin_document_are_ignored_with_a_problem() -> None:
    """biblatex's resource commands are preamble-only (LaTeX: "Can be used only in
    preamble"; biber reads none of their files), as is its ``\\bibliography``; without
    biblatex a ``\\bibliography`` in the body is BibTeX's, and read."""
    text = (
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{a.bib}\n"
        "\\begin{document}\n\\addbibresource{b.bib}\\addglobalbib{c.bib}\\bibliography{d,e}\n"
        "\\end{document}\n"
    )
    doc = parse_latex(P, text)
    assert [link.target for link in doc.links if link.kind is LinkKind.BIBLIOGRAPHY] == ["a.bib"]
    assert [(p.code, text[p.location.span.start : p.location.span.end]) for p in doc.problems] == [
        (Code.BIBLIOGRAPHY_IGNORED, "b.bib"),
        (Code.BIBLIOGRAPHY_IGNORED, "c.bib"),
        (Code.BIBLIOGRAPHY_IGNORED, "d,e"),
    ]
    assert "\\addbibresource after \\begin{document}" in doc.problems[0].message
    plain = text.replace("\\usepackage{biblatex}\n\\addbibresource{a.bib}\n", "")
    doc = parse_latex(P, plain.replace("\\addbibresource{b.bib}\\addglobalbib{c.bib}", ""))
    assert [link.target for link in doc.links if link.kind is LinkKind.BIBLIOGRAPHY] == ["d", "e"]
    assert doc.problems == ()


def test_a_refsection_names_a_resource_by_its_label() -> None:
    """biblatex looks a refsection's resource up among the resources' ``label=`` first."""
    text = (
        "\\addbibresource[glob=false, label = {second}]{a2.bib}\n"
        "% \\addbibresource[label=a1]{gone.bib}\n\\addbibresource{a1.bib}\n\\begin{document}\n"
        "\\begin{refsection}[second, a1]\\cite{e1}\\end{refsection}\n\\end{document}\n"
    )
    doc = parse_latex(P, text)
    assert [names for _, _, names in doc.refsections] == [("a2.bib", "a1")]
    section = [link for link in doc.links if link.command == "refsection"]
    assert [(link.target, text[link.span.start : link.span.end]) for link in section] == [
        ("a2.bib", "second"),
        ("a1", "a1"),
    ]


def test_keys_written_with_a_list_macro_are_bounded_by_the_text() -> None:
    """A short key list of a macro standing for a long list expands to no more key
    characters than the file has (and an argument more): past that a key so written is
    skipped, so a file of such citations cannot hold far more citations than characters."""
    keys = ",".join(f"k{i}" for i in range(120))
    text = "\\def\\x{" + keys + "}\n" + "\\cite{\\x}\n" * 2000
    doc = parse_latex(P, text)
    assert [c.key for c in doc.citations[:120]] == keys.split(",")
    assert len(doc.citations) <= len(text)


@pytest.mark.parametrize(
    "opened",
    [
        "\\begin{Verbatim}[commandchars=\\\\\\{\\}]\n" * 100_000,
        "\\fvset{commandchars=\\\\\\{\\}}\n" + "\\begin{Verbatim}\n" * 200_000,
    ],
    ids=["options", "fvset"],
)
def test_unclosed_commandchars_verbatim_is_read_in_one_pass(opened: str) -> None:
    """Megabytes of fancyvrb environments reading commands that never end: each one's
    search for its ``\\end`` read the rest of the text again (1 MB of them: 5.4 s; these:
    half a minute to five minutes).  The bound is generous: the reading takes a second."""
    text = "\\cite{k}\n" + opened
    t0 = time.process_time()
    doc = parse_latex(P, text)
    assert time.process_time() - t0 < 20
    assert [c.key for c in doc.citations] == ["k"]


@pytest.mark.parametrize(
    "text",
    [
        "{\\renewcommand\\cite[1]{}\\verb|}|\\cite{nokey}}\\cite{⟦k1⟧}",
        "{\\renewcommand\\cite[1]{}\n\\begin{verbatim}\n}\n\\end{verbatim}\n\\cite{nokey}}\\cite{⟦k1⟧}",
        "\\cite{⟦k1⟧}\\verb|\\iffalse|\\renewcommand\\cite[1]{}\\cite{nokey}",
        "\\begin{lstlisting}[language=C]\nif (x) {\n\\end{lstlisting}\n"
        "\\renewcommand\\cite[1]{}\\input{ch}",
        "\\MakeShortVerb{\\|}{\\renewcommand\\cite[1]{}|}|\\cite{nokey}}\\cite{⟦k1⟧}",
        "\\MakeShortVerb{\\|}\\cite{⟦k1⟧}|\\iffalse|\\renewcommand\\cite[1]{}\\cite{nokey}",
    ],
    ids=[
        "verb brace",
        "verbatim brace",
        "verb conditional",
        "listing brace",
        "short verb brace",
        "short verb conditional",
    ],
)
def test_verbatim_material_opens_no_group_for_a_silenced_citation_command(text: str) -> None:
    """A brace or a conditional in ``\\verb``, a verbatim environment or short verbatim text
    (``\\MakeShortVerb{\\|}``'s ``|{|``) is no group: a
    citation command silenced around or after it stays so to the end of its real group (as
    LaTeX runs it), where the brace closed the group or the conditional hid the silencing."""
    keys_and_spans(text)
    if "\\input" in text:  # the file it includes starts with the command silenced
        assert parse_latex(P, text).silenced == (("cite", 0, True, True),)


@pytest.mark.parametrize(
    "text",
    [
        "\\newenvironment{quiet}{\\renewcommand\\cite[1]{}}{}"
        "\\begin{quiet}\\cite{nokey}\\end{quiet}\\cite{⟦k1⟧}",
        "\\renewenvironment{quote}[1][x]{\\let\\cite\\relax}{}\\cite{⟦k1⟧}"
        "\\begin{quote}[y]{\\cite{nokey}}\\cite{nokey2}\\end{quote}\\cite{⟦k2⟧}",
        "\\newenvironment{quiet}{\\renewcommand\\cite[1]{}}{}\\begin{quiet}\\input{ch}\\end{quiet}",
    ],
    ids=["environment", "renewed with arguments", "input"],
)
def test_a_silencing_in_an_environments_begin_code_holds_in_the_environment(text: str) -> None:
    """``\\newenvironment{quiet}{\\renewcommand\\cite[1]{}}{}``: ``\\cite`` cites nothing
    from ``\\begin{quiet}`` to ``\\end{quiet}`` (its group), as LaTeX runs the begin code
    there, where it cited."""
    keys_and_spans(text)
    if "\\input" in text:  # the file it includes starts with the command silenced
        doc = parse_latex(P, text)
        assert (doc.silenced, doc.grouped_includes) == ((("cite", 0, True, False),), (0,))


def test_an_etoolbox_test_opens_no_conditional_that_hides_a_silencing() -> None:
    """``\\ifboolexpr{...}{...}{...}`` and the like take arguments and no ``\\fi``: read as
    conditionals never closed, they hid every later silencing, so ``\\cite{nokey}`` after
    ``\\renewcommand\\cite[1]{}`` was cited."""
    keys_and_spans(
        "\\cite{⟦k1⟧}\\ifboolexpr{bool{a}}{}{}\\ifnumless{1}{2}{}{}"
        "\\renewcommand\\cite[1]{}\\cite{nokey}"
    )
