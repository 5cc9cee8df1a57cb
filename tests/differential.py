"""Seeded document generators and the real tools as oracles (used by test_differential.py
and bench/agreement.py).

Every generated citation key names the construct it was written in (``wraptwoQ3`` comes
from a two-argument wrapper macro), so a disagreement with an oracle is listed by class:
the part of the key before ``Q``.

* LaTeX: a project of ``main.tex`` and an ``\\input`` file, natbib (the oracle is the
  ``\\citation`` lines pdflatex writes to the .aux) or biblatex (the ``bcf:citekey``
  elements of the .bcf); compared with the keys citewarden reads in the project.
* pandoc Markdown: the ``citationId`` of every ``Cite`` node of ``pandoc -t json``
  (metadata included), compared with the keys citewarden reads in the document.
* BibTeX files: the entry keys biber reads (``biber --tool``), compared with the keys
  :func:`~citewarden.parsing.bibtex.parse_bibtex` reads.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from checking import check
from citewarden.model import DocumentKind, Finding, ParsedDocument
from citewarden.parsing.biber_syntax import biber_rejections
from citewarden.parsing.bibtex import keys_on_comment_lines, parse_bibtex
from citewarden.parsing.dispatch import parse_file
from citewarden.project import Workspace, default_reader
from citewarden.settings import Settings

TOOLS = ("pdflatex", "biber", "pandoc")
#: a generated case
C = TypeVar("C")


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


#: a key the generators wrote (class, "Q", number)
GENERATED_KEY = re.compile(r"[a-z]+Q\d+")


def key_class(key: str) -> str:
    """The construct a generated key was written in."""
    head, sep, _ = key.partition("Q")
    return head.lstrip("{") if sep else "other"


@dataclass
class Tally:
    """Agreement of citewarden with one oracle over many generated cases."""

    cases: int = 0
    agreed: int = 0
    #: class -> [keys only the oracle read, keys only citewarden read]
    classes: dict[str, list[int]] = field(default_factory=dict)
    examples: dict[str, str] = field(default_factory=dict)
    #: cases the oracle could not answer in time (not counted)
    skipped: list[str] = field(default_factory=list)

    def add(self, oracle: set[str], ours: set[str], label: str) -> None:
        self.cases += 1
        if oracle == ours:
            self.agreed += 1
            return
        for key in oracle - ours:
            self._count(key, 0, label)
        for key in ours - oracle:
            self._count(key, 1, label)

    def _count(self, key: str, side: int, label: str) -> None:
        cls = key_class(key)
        row = self.classes.setdefault(cls, [0, 0])
        row[side] += 1
        self.examples.setdefault(cls, f"{label}: {'missed' if side == 0 else 'extra'} {key}")

    @property
    def rate(self) -> float:
        return self.agreed / self.cases if self.cases else 1.0

    def summary(self) -> str:
        lines = [f"{self.agreed}/{self.cases} cases agree ({100 * self.rate:.1f} %)"]
        if self.skipped:
            lines.append(f"  (oracle timed out, not counted: {', '.join(self.skipped)})")
        for cls, (missed, extra) in sorted(self.classes.items()):
            lines.append(f"  {cls}: {missed} missed, {extra} extra ({self.examples[cls]})")
        return "\n".join(lines)


def _run(args: list[str], cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        check=False,
        env={**os.environ, "max_print_line": "10000"},
    )


# ---------------------------------------------------------------------------------------
# LaTeX
# ---------------------------------------------------------------------------------------


@dataclass
class LatexCase:
    seed: int
    biblatex: bool
    files: dict[str, str]


class _Keys:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, cls: str) -> str:
        self.n += 1
        return f"{cls}Q{self.n}"


# macro definitions (preamble) and how a use of them reads: name -> (definition, use)
_Fragment = Callable[[random.Random, _Keys], str]


def _natbib_fragments() -> list[_Fragment]:
    def cmd(name: str, cls: str) -> _Fragment:
        return lambda r, k: f"\\{name}{{{k(cls)}}}"

    return [
        cmd("cite", "cite"),
        cmd("citep", "citep"),
        cmd("Citep", "capcitep"),
        cmd("citealt*", "citealtstar"),
        cmd("Citeauthor", "capciteauthor"),
        cmd("nocite", "nocite"),
        lambda r, k: f"\\citep[see][p.~3]{{{k('opt')}, {k('opt')}}}",
        lambda r, k: f"\\citep{{{{{k('braced')}}}, {{{k('braced')}}}}}",
        lambda r, k: f"% \\cite{{{k('comment')}}}",
        lambda r, k: f"\\iffalse \\cite{{{k('iffalse')}}} \\fi",
        lambda r, k: f"\\begin{{verbatim}}\n\\cite{{{k('verbatim')}}}\n\\end{{verbatim}}",
        lambda r, k: f"\\verb|\\cite{{{k('verb')}}}|",
        lambda r, k: f"\\string\\cite{{{k('string')}}}",
        lambda r, k: f"\\ifnum 1=0 \\cite{{{k('ifnum')}}}\\fi",
        lambda r, k: f"\\ifnum 2>1 \\cite{{{k('ifnumtrue')}}}\\fi",
        lambda r, k: f"\\ifdraft \\cite{{{k('ifdraft')}}}\\else \\cite{{{k('ifdraftelse')}}}\\fi",
        # conditionals TeX decides from their text
        lambda r, k: (
            f"\\ifcase {r.randint(-1, 3)} \\cite{{{k('ifcase')}}}\\or \\cite{{{k('ifcase')}}}"
            f"\\or \\cite{{{k('ifcase')}}}\\else \\cite{{{k('ifcaseelse')}}}\\fi"
        ),
        lambda r, k: (
            f"\\unless\\ifnum {r.randint(0, 2)}<1 \\cite{{{k('unless')}}}"
            f"\\else \\cite{{{k('unlesselse')}}}\\fi"
        ),
        lambda r, k: (
            f"\\if{r.choice('ab')}{r.choice('ab')} \\cite{{{k('ifchar')}}}"
            f"\\else \\cite{{{k('ifcharelse')}}}\\fi"
        ),
    ]


def _biblatex_fragments() -> list[_Fragment]:
    def cmd(name: str, cls: str) -> _Fragment:
        return lambda r, k: f"\\{name}{{{k(cls)}}}"

    return [
        cmd("parencite", "parencite"),
        cmd("textcite", "textcite"),
        cmd("Textcite", "captextcite"),
        cmd("footcite", "footcite"),
        cmd("autocite*", "autocitestar"),
        cmd("nocite", "nocite"),
        lambda r, k: f"\\autocite[see][3]{{{k('opt')}}}",
        lambda r, k: f"\\parencite{{{k('braced')},{{{k('braced')}}}}}",
        lambda r, k: f"\\cites[1]{{{k('multi')}}}[2]{{{k('multi')}}}",
        lambda r, k: f"\\parencites(all)(){{{k('multi')}}}{{{k('multi')}}}",
        lambda r, k: f"% \\parencite{{{k('comment')}}}",
        lambda r, k: f"\\iffalse \\cite{{{k('iffalse')}}} \\fi",
        lambda r, k: f"\\ifdraft \\cite{{{k('ifdraft')}}}\\else \\cite{{{k('ifdraftelse')}}}\\fi",
    ]


#: wrapper macros: (definition, use); ``{K}`` stands for a key, ``{K2}`` for a second one
_WRAPPERS_NATBIB = [
    ("\\newcommand{\\wa}[1]{\\citep{#1}}", "\\wa{{{a}}}", "wrapone"),
    ("\\newcommand{\\wb}[2]{\\citet{#1} and \\citep{#2}}", "\\wb{{{a}}}{{{b}}}", "wraptwo"),
    ("\\newcommand{\\wf}[1]{\\Citep{#1}}", "\\wf{{{a}}}", "wrapcap"),
    ("\\newcommand{\\wg}[1]{\\Citealt*{#1}}", "\\wg{{{a}}}", "wrapcapstar"),
    ("\\let\\wl\\citep", "\\wl{{{a}}}", "let"),
    ("\\NewDocumentCommand{\\wx}{m}{\\citep{#1}}", "\\wx{{{a}}}", "xparse"),
    ("\\newcommand{\\wo}[2][]{\\citep[#1]{#2}}", "\\wo[p.~1]{{{a}}}", "wrapopt"),
]
_WRAPPERS_BIBLATEX = [
    ("\\newcommand{\\wa}[1]{\\parencite{#1}}", "\\wa{{{a}}}", "wrapone"),
    ("\\newcommand{\\wb}[2]{\\textcite{#1} and \\parencite{#2}}", "\\wb{{{a}}}{{{b}}}", "wraptwo"),
    ("\\newcommand{\\wf}[1]{\\Parencite{#1}}", "\\wf{{{a}}}", "wrapcap"),
    ("\\let\\wl\\parencite", "\\wl{{{a}}}", "let"),
    ("\\NewDocumentCommand{\\wx}{om}{\\parencite{#2}}", "\\wx[x]{{{a}}}", "xparse"),
    (
        "\\DeclareCiteCommand{\\wd}{\\usebibmacro{prenote}}{\\printfield{title}}"
        "{\\multicitedelim}{\\usebibmacro{postnote}}",
        "\\wd[see][1]{{{a},{b}}}",
        "declared",
    ),
]


def latex_case(seed: int) -> LatexCase:
    """A small natbib or biblatex project of two files; random but fixed by ``seed``."""
    r = random.Random(seed)
    keys = _Keys()
    biblatex = r.random() < 0.4
    fragments = _biblatex_fragments() if biblatex else _natbib_fragments()
    wrappers = _WRAPPERS_BIBLATEX if biblatex else _WRAPPERS_NATBIB
    preamble: list[str] = []
    if biblatex:
        preamble += ["\\usepackage[backend=biber]{biblatex}", "\\addbibresource{refs.bib}"]
    else:
        preamble.append("\\usepackage{natbib}")
    preamble.append("\\newif\\ifdraft")
    preamble.append(r.choice(["\\drafttrue", "\\draftfalse", ""]))
    chosen = r.sample(wrappers, k=r.randint(0, len(wrappers)))
    for definition, _, _ in chosen:
        preamble.append(definition)
    if r.random() < 0.5:  # a macro with no parameter, used or not
        preamble.append(f"\\newcommand{{\\wn}}{{\\cite{{{keys('noarg')}}}}}")
        noarg_used = r.random() < 0.5
    else:
        noarg_used = False
    parts: list[list[str]] = [[], []]  # main body, included file
    for _ in range(r.randint(3, 10)):
        parts[r.randrange(2)].append(r.choice(fragments)(r, keys))
    for _, use, cls in chosen:
        if r.random() < 0.85:
            parts[r.randrange(2)].append(use.format(a=keys(cls), b=keys(cls)))
    if noarg_used:
        parts[r.randrange(2)].append("\\wn")
    after: list[str] = []  # main text after the \input
    if r.random() < 0.4:  # a wrapper the included file defines, used after the \input
        parts[1].insert(0, "\\newcommand{\\ws}[1]{\\cite{#1}}")
        after.append(f"\\ws{{{keys('subdefined')}}}")
    # macros in document order: a use before the definition is an undefined command
    if r.random() < 0.3:  # used in the main text, defined after the \input
        parts[0].insert(0, f"\\wy{{{keys('usedbefore')}}}")
        after += ["\\newcommand{\\wy}[1]{\\cite{#1}}", f"\\wy{{{keys('usedbefore')}}}"]
    if r.random() < 0.3:  # used in the included file, defined after the \input
        parts[1].append(f"\\wq{{{keys('laterdef')}}}")
        after += ["\\newcommand{\\wq}[1]{\\cite[p.~2]{#1}}", f"\\wq{{{keys('laterdef')}}}"]
    body = "\n\n".join(parts[0])
    sub = "\n\n".join(parts[1])
    ending = (
        "\\printbibliography" if biblatex else "\\bibliographystyle{plain}\n\\bibliography{refs}"
    )
    main = (
        "\\documentclass{article}\n"
        + "\n".join(preamble)
        + "\n\\begin{document}\n"
        + body
        + "\n\n\\input{sec}\n\n"
        + "\n\n".join(after)
        + "\n\n"
        + ending
        + "\n\\end{document}\n"
    )
    return LatexCase(seed, biblatex, {"main.tex": main, "sec.tex": sub + "\n", "refs.bib": ""})


_AUX_CITATION = re.compile(r"\\citation\{([^}]*)\}")
_BCF_CITEKEY = re.compile(r"<bcf:citekey[^>]*>([^<]*)</bcf:citekey>")


def latex_oracle(case: LatexCase, directory: Path) -> set[str]:
    """The keys pdflatex records as cited (one run, draft mode)."""
    for name, text in case.files.items():
        (directory / name).write_text(text, encoding="utf-8")
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], directory)
    if case.biblatex:
        bcf = directory / "main.bcf"
        text = bcf.read_text(errors="replace") if bcf.exists() else ""
        return {k.strip() for k in _BCF_CITEKEY.findall(text)}
    aux = directory / "main.aux"
    text = aux.read_text(errors="replace") if aux.exists() else ""
    return {k.strip() for m in _AUX_CITATION.findall(text) for k in m.split(",") if k.strip()}


def latex_ours(directory: Path) -> set[str]:
    ws = Workspace(Settings(), root=directory)
    root = ws.add_file(directory / "main.tex")
    keys: set[str] = set()
    for project in ws.projects():
        if project.root != root:
            continue
        for _, doc in ws.project_documents(project):
            keys.update(c.key for c in doc.citations if c.key)
    return keys


def written_and_run(files: dict[str, str], directory: Path) -> bool:
    """``files`` written into ``directory`` and ``main.tex`` run once through pdflatex:
    whether it ran."""
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    return _run(latex, directory).returncode == 0


def folder_findings(directory: Path) -> Iterator[Finding]:
    """Every finding of the .tex and .bib files of ``directory``, checked as one workspace."""
    ws = Workspace(Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        if path.suffix in (".tex", ".bib"):
            ws.add_file(path)
    for findings in check(ws).values():
        yield from findings


def run_cases(
    seeds: Iterable[int],
    budget: float,
    name: str,
    make: Callable[[int], C],
    oracle: Callable[[C, Path], set[str] | None],
    ours: Callable[[C, Path], set[str]],
) -> Tally:
    """Each seed's case (``make``) answered by the tools (``oracle``, None: not answered)
    and by citewarden (``ours``) in a directory of its own, within ``budget`` seconds."""
    tally = Tally()
    deadline = time.monotonic() + budget
    for seed in seeds:
        if time.monotonic() > deadline:
            break
        case = make(seed)
        with tempfile.TemporaryDirectory() as tmp:
            answer = oracle(case, Path(tmp))
            if answer is None:
                tally.skipped.append(f"{name} seed {seed}")
                continue
            tally.add(answer, ours(case, Path(tmp)), f"{name} seed {seed}")
    return tally


def run_latex(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(
        seeds, budget, "latex", latex_case, latex_oracle, lambda _, tmp: latex_ours(tmp)
    )


# ---------------------------------------------------------------------------------------
# pandoc Markdown
# ---------------------------------------------------------------------------------------


def _md_fragments() -> list[Callable[[_Keys], str]]:
    return [
        lambda k: f"As shown [@{k('bracket')}; @{k('bracket')}, p. 3].",
        lambda k: f"@{k('intext')} says so.",
        lambda k: f"@{k('intextloc')} [p. 4] says so.",
        lambda k: f"See [-@{k('suppress')}].",
        lambda k: f"Mail me at someone@{k('email')}.org today.",
        lambda k: f"Code `@{k('code')}` here.",
        lambda k: f"```\n@{k('fenced')}\n```",
        lambda k: f"<!-- @{k('htmlcomment')} -->",
        lambda k: f"Escaped \\@{k('escaped')} here.",
        lambda k: f"A [link](http://x.org/@{k('linkdest')}) here.",
        lambda k: f"Note.[^n{k.n}]\n\n[^n{k.n}]: See @{k('footnote')}.",
        lambda k: f"Inline note^[as @{k('inlinenote')} says].",
        lambda k: f"Math $@{k('math')}$ here.",
        lambda k: f"$$@{k('displaymath')}$$",
        lambda k: f'<span title="@{k("htmlattr")}">x</span>',
        lambda k: f"Raw \\emph{{@{k('rawtex')}}} here.",
        lambda k: f"\\begin{{figure}}\n@{k('rawenv')}\n\\end{{figure}}",
        lambda k: f"Two @{k('atat')}@{k('atat')} here.",
        lambda k: f"Braced [@{{{k('braced')}]x}}] here.",
        lambda k: f"Braced @{{{k('bracedurl')}/x.y}} here.",
        lambda k: f"Trailing @{k('trail')}. Done.",
        lambda k: f"(@{k('example')}) An example.\n\n(@{k('examplecited')}) Another.",
        lambda k: f"Cost $5 and @{k('dollars')} $6.",
        lambda k: f"\\foo @{k('texnoarg')} here.",
        lambda k: f"<b>@{k('intag')}</b> and a < b @{k('lessthan')}.",
        lambda k: f"*@{k('emph')}* and [@{k('span')}]{{.smallcaps}}.",
        lambda k: f"[link text @{k('linktext')}](http://x.org) here.",
        lambda k: f"> Quoted [@{k('quote')}].",
        lambda k: f"- item @{k('listitem')}\n- item [-@{k('listsuppress')}]",
        lambda k: f"<style>\n@media print {{ p {{ x: y }} }}\n\n@{k('style')} x;\n</style>",
        lambda k: f"<pre>\n@{k('pre')}\n\n@{k('pre')}\n</pre> after @{k('afterpre')}",
        lambda k: f"Inline <pre>@{k('inlinepre')}</pre> and <code>@{k('incode')}</code>.",
        lambda k: f'<script>x = "@{k("script")}";</script> <textarea>@{k("textarea")}</textarea>',
        lambda k: f"@{k('exlabel')}. An example item.",
        lambda k: f"A note reference [^@{k('noteref')}] and [^@{k('noteprefix')} x].",
        lambda k: f"Braced [@{{{k('bracedopen')}[x}}]; @{k('afteropen')}] here.",
        lambda k: f"-@{k('baresuppress')} says so, [@{{{k('bracedend')}]x}} open.",
    ]


@dataclass
class MarkdownCase:
    seed: int
    text: str


def markdown_case(seed: int) -> MarkdownCase:
    r = random.Random(seed)
    keys = _Keys()
    fragments = _md_fragments()
    blocks: list[str] = []
    head: list[str] = []
    if r.random() < 0.4:
        head.append(f"abstract: See @{keys('yaml')}.")
    if r.random() < 0.4:
        head.append(f"subtitle: \\@{keys('yamlescaped')}")
    if r.random() < 0.3:
        head.append(f"nocite: '`@{keys('nocitecode')}` @{keys('nocite')}'")
    if head:
        blocks.append("---\n" + "\n".join(head) + "\n---")
    for _ in range(r.randint(3, 9)):
        blocks.append(r.choice(fragments)(keys))
    text = "\n\n".join(blocks) + "\n"
    # a reference to an example label, as pandoc resolves it to the example's number
    labels = re.findall(r"^\(@(exampleciteQ\d+)\)", text, re.M)
    if labels and r.random() < 0.7:
        text += f"\nAs in (@{labels[0]}).\n" if r.random() < 0.5 else f"\nAs @{labels[0]} shows.\n"
    return MarkdownCase(seed, text)


#: what raw TeX is made of, more of what opens and closes its arguments than a document
#: holds, so that commands, comments, brackets and blank lines meet in every way
_RAW_TEX_PIECES = (
    "\\a{", "}", "{", "\\emph[", "]", "[", "% c", "\n", "\n\n", " ", "x ", "\\b ", "\\{",
    "\\textbf{", " text ", "\\section*{", "\\cite{", "\\footnote{", "\\foo ",
)  # fmt: skip


#: commands of each way pandoc reads raw TeX (a character, a number of groups, options
#: only, none, a citation, a key list, a language, a block) and unknown ones
_RAW_TEX_COMMANDS = (
    "emph", "textbf", "caption", "textgerman", "footnote", "section", "href", "textcolor",
    "SIrange", "url", "gls", "cite", "citep", "cites", "nocite", "label", "mbox", "foo",
    "small", "item", "par", "hskip", "newline", "xspace", "maketitle", "bf", "si",
)  # fmt: skip
#: what follows a command in them: its arguments, broken or whole, and what ends them
_RAW_TEX_AFTER = (
    "{x}", "{", "}", "[x]", "[", "]", " ", "\n", "\n\n", "% c\n", "*", "(x)", "x", "{@",
    "1pt",
)  # fmt: skip


def _raw_tex_citation(r: random.Random, keys: _Keys) -> str:
    """A citation among raw TeX pieces, its key named by how it is written: bare
    (``rtbare``), in brackets (``rtgroup``) or before a semicolon (``rtsemi``)."""
    form = r.choice(("rtbare", "rtgroup", "rtsemi"))
    key = keys(form)
    return f" [@{key}]" if form == "rtgroup" else f"@{key};" if form == "rtsemi" else f"@{key}"


def raw_tex_command_case(seed: int) -> MarkdownCase:
    """A Markdown document of the commands of :data:`_RAW_TEX_COMMANDS`, each followed by
    pieces of arguments, and citations among them (see :func:`_raw_tex_citation`)."""
    r = random.Random(seed)
    keys = _Keys()
    parts: list[str] = []
    for _ in range(r.randint(2, 12)):
        parts.append("\\" + r.choice(_RAW_TEX_COMMANDS))
        for _ in range(r.randint(0, 5)):
            piece = r.choice(_RAW_TEX_AFTER)
            parts.append(piece + keys("rtbare") if piece == "{@" else piece)
            if r.random() < 0.25:
                parts.append(_raw_tex_citation(r, keys))
        if r.random() < 0.3:
            parts.append(r.choice((" text ", "\n\n", " ")))
    return MarkdownCase(seed, "".join(parts) + "\n")


def raw_tex_case(seed: int) -> MarkdownCase:
    """A Markdown document of raw TeX pieces and citations in random order (see
    :func:`_raw_tex_citation`)."""
    r = random.Random(seed)
    keys = _Keys()
    parts = [
        _raw_tex_citation(r, keys) if r.random() < 0.2 else r.choice(_RAW_TEX_PIECES)
        for _ in range(r.randint(5, 80))
    ]
    return MarkdownCase(seed, "".join(parts) + "\n")


#: raw TeX that stands where blocks start and end: commands pandoc reads as blocks there
#: (by name, or where a block starts only), inline ones and unknown ones, with arguments
_RAW_TEX_LINE_COMMANDS = (
    "\\newpage", "\\clearpage", "\\vspace{1em}", "\\hspace*{2pt}", "\\pagebreak[4]",
    "\\par", "\\section{x}", "\\maketitle", "\\emph{x}", "\\noindent", "\\foo",
    "\\foo{x}", "\\index{x}", "\\begin{center}x\\end{center}", "\\item",
)  # fmt: skip
#: what may follow on a line or start the next: blocks whose reading changes what is cited
#: (an example item's label, a fence, a table, a heading's underline, a definition, a
#: quote, a comment ...) and plain text; ``@`` stands for a citation's key
_RAW_TEX_LINE_AFTER = (
    "@. y", "(@) y", "~~~\n@\n~~~", "```\n@\n```", ": def @", "=====", "-----",
    "| @ | y |\n|---|---|\n| z | w |", "@ y\n-- --", "> @", "- @", "1. @", "<!-- @ -->",
    "<div>\n@\n</div>", "    @ code", "text @", "[@]", "@;", "% c @", "[^1]: @",
)  # fmt: skip


def raw_tex_line_case(seed: int) -> MarkdownCase:
    """A Markdown document of raw TeX where blocks start and end: paragraphs of text,
    commands of :data:`_RAW_TEX_LINE_COMMANDS` leading a line, following text on it or
    ending it, and after them, on the line or the next, what
    :data:`_RAW_TEX_LINE_AFTER` holds (its ``@`` a citation's key, ``rtline``)."""
    r = random.Random(seed)
    keys = _Keys()
    paragraphs = []
    for _ in range(r.randint(1, 6)):
        lines = []
        for _ in range(r.randint(1, 3)):
            line = r.choice(("", "", "a ", "> ", "- "))
            for _ in range(r.randint(1, 2)):
                line += r.choice(_RAW_TEX_LINE_COMMANDS) + r.choice(("", " ", "  "))
            after = re.sub("@", lambda _: "@" + keys("rtline"), r.choice(_RAW_TEX_LINE_AFTER))
            lines.append(line + r.choice(("", "\n", "\n", "\n  ")) + after)
        paragraphs.append("\n".join(lines))
    text = "\n\n".join(paragraphs) + "\n"
    if "[^1]:" in text:
        text += "\nA note.[^1]\n"
    return MarkdownCase(seed, text)


def cite_nodes(node: Any) -> Iterator[dict[str, Any]]:
    """Every ``Cite`` node of a ``pandoc -t json`` document (metadata included)."""
    if isinstance(node, dict):
        if node.get("t") == "Cite":
            yield node
        for value in node.values():
            yield from cite_nodes(value)
    elif isinstance(node, list):
        for value in node:
            yield from cite_nodes(value)


def _cites(node: Any) -> Iterator[str]:
    for cite in cite_nodes(node):
        for citation in cite["c"][0]:
            yield citation["citationId"]


def markdown_oracle(text: str, directory: Path, pandoc: str = "pandoc") -> set[str]:
    source = directory / "doc.md"
    source.write_text(text, encoding="utf-8")
    out = _run([pandoc, "-f", "markdown", "-t", "json", "doc.md"], directory)
    return set(_cites(json.loads(out.stdout))) if out.returncode == 0 else set()


def pandoc_version_of(pandoc: str) -> str:
    """The version ``pandoc --version`` of the program ``pandoc`` says (``"2.17.1.1"``)."""
    out = subprocess.run([pandoc, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.split()[1]


def markdown_ours(text: str, version: str = "") -> set[str]:
    """The keys citewarden reads in ``text``, as the pandoc ``version`` would."""
    doc = parse_file(Path("doc.md"), text, Settings(pandoc_version=version))
    assert isinstance(doc, ParsedDocument) and doc.kind is DocumentKind.MARKDOWN
    return {c.key for c in doc.citations}


def run_markdown(
    seeds: Iterable[int],
    budget: float = 1e9,
    pandoc: str = "pandoc",
    make: Callable[[int], MarkdownCase] = markdown_case,
) -> Tally:
    """The documents ``make`` generates from ``seeds`` with the program ``pandoc`` as the
    oracle, and citewarden told its version."""
    tally = Tally()
    version = pandoc_version_of(pandoc)
    deadline = time.monotonic() + budget
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            if time.monotonic() > deadline:
                break
            case = make(seed)
            tally.add(
                markdown_oracle(case.text, Path(tmp), pandoc),
                markdown_ours(case.text, version),
                f"md seed {seed}",
            )
    return tally


# ---------------------------------------------------------------------------------------
# .bib files read by biber
# ---------------------------------------------------------------------------------------

_BIBER_ENTRY = re.compile(r"^@[^\s{(]+\{(.*),\s*$", re.M)


#: where TeX Live keeps .bib files: its tree, and its documentation (Debian's packages put
#: btxdoc.bib and the packages' examples there, some compressed)
TEXLIVE_TREES = (
    "/usr/share/texlive",
    "/usr/share/texmf",
    "/usr/local/texlive",
    "/usr/share/doc/texlive-doc",
)


def texlive_bib_files(documentation: bool = True) -> list[Path]:
    """Every .bib (and .bib.gz) file of the installed TeX Live, smallest first; with
    ``documentation`` False, those of its tree only (not of its packages' documentation)."""
    found: set[Path] = set()
    for top in TEXLIVE_TREES if documentation else TEXLIVE_TREES[:-1]:
        if os.path.isdir(top):
            found.update(Path(top).rglob("*.bib"))
            found.update(Path(top).rglob("*.bib.gz"))
    return sorted((p for p in found if p.is_file()), key=lambda p: (p.stat().st_size, str(p)))


def _plain(path: Path, directory: Path) -> Path:
    """``path`` itself, or for a .bib.gz its content written to ``directory``."""
    if path.suffix != ".gz":
        return path
    target = directory / "unpacked" / path.name[: -len(".gz")]
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(gzip.decompress(path.read_bytes()))
    return target


_BIBER_SKIPPED = re.compile(r"skipping entry '([^']*)'")


def biber_oracle(path: Path, directory: Path, timeout: float = 600) -> tuple[set[str], set[str]]:
    """The entry keys biber reads from ``path`` (its tool mode writes them back out), and
    those it read but dropped with an error about their data (``Name ... has too many
    commas, skipping entry 'x'``): a reading of the key is not in question there."""
    out = directory / "out.bib"
    args = ["biber", "--tool", "--nolog", f"--output-file={out}", str(path)]
    for extra in ([], ["--input-encoding=latin1"]):
        out.unlink(missing_ok=True)
        run = _run([*args[:1], *extra, *args[1:]], directory, timeout=timeout)
        # a file in Latin-1 is read as a biblatex user declaring bibencoding=latin1 has it
        if "cannot be read in encoding" not in run.stdout + run.stderr:
            break
    text = out.read_text(errors="replace") if out.exists() else ""
    return set(_BIBER_ENTRY.findall(text)), set(_BIBER_SKIPPED.findall(run.stdout + run.stderr))


def rejected_by_biber(path: Path) -> bool:
    """citewarden finds a place in ``path`` biber cannot read (see parsing/biber_syntax.py)."""
    text, _ = default_reader(path)
    return bool(biber_rejections(text, parse_bibtex(path, text).entries))


def bib_ours(path: Path) -> set[str]:
    text, _ = default_reader(path)
    entries = parse_bibtex(path, text).entries
    commented = keys_on_comment_lines(text, entries, biber=True)  # comments for biber
    return {e.key for e in entries if e.key not in commented}


def run_bib(files: Iterable[Path], budget: float = 1800) -> tuple[Tally, Counter[str]]:
    """Per file, a case; classes are the files' names (keys carry no class here).  The
    counter holds the entries biber dropped with a data error, and the totals."""
    tally = Tally()
    kinds: Counter[str] = Counter()
    deadline = time.monotonic() + budget
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            path = _plain(path, Path(tmp))
            try:
                oracle, dropped = biber_oracle(path, Path(tmp), timeout=min(600, left))
            except subprocess.TimeoutExpired:
                tally.skipped.append(path.name)
                continue
            ours = bib_ours(path) - dropped
            kinds["dropped by biber with a data error"] += len(dropped)
            tally.cases += 1
            if not oracle and ours and rejected_by_biber(path):
                # biber drops the whole file on one syntax error, as bib-syntax says
                kinds["files biber drops whole, reported as bib-syntax"] += 1
                tally.agreed += 1
                continue
            if oracle == ours:
                tally.agreed += 1
                continue
            row = tally.classes.setdefault(path.name, [0, 0])
            row[0] += len(oracle - ours)
            row[1] += len(ours - oracle)
            sample = sorted(oracle - ours)[:2] + sorted(ours - oracle)[:2]
            tally.examples.setdefault(path.name, f"{path}: {sample}")
            kinds["missed"] += len(oracle - ours)
            kinds["extra"] += len(ours - oracle)
    return tally, kinds
