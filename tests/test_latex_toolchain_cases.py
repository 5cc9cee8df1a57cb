"""Small LaTeX projects built by the real pdflatex and biber: the keys the tools report
undefined and the entries left unused are the dangling citations and orphans citewarden
finds (one construct of the LaTeX reader per case; the oracle is the tools' own run, as in
test_real_tools.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings
from test_real_tools import _require_tools, citewarden_answer, run_latex

BIB = "".join(
    f"@book{{k{i},\n  author = {{A {i}}},\n  title = {{T{i}}},\n  year = 2001,\n}}\n"
    for i in range(1, 5)
)

#: name -> (biblatex's options, preamble, body, extra files); every case loads biblatex
#: with refs.bib
CASES: dict[str, tuple[str, str, str, dict[str, str]]] = {
    "volcite multicites": (
        "",
        "",
        "\\volcites{1}{k1}{2}{k2}\n\\pvolcites(see)()[cf.]{3}[5]{k3}{4}{nokey}\n",
        {},
    ),
    # the set key is defined by the command; its members are cited
    "mcite sets": ("mcite", "", "\\mcite{grp,*k1,*k2}\n\\mparencite{k3,nokey}\n", {}),
    "mcite sets in a list": ("mcite", "", "\\Mtextcite[see][]{k3,grp,*k1,*k2}\n", {}),
    "defbibentryset cited": ("", "", "\\defbibentryset{myset}{k1,k2}\n\\cite{myset}\n", {}),
    # biber lists a set (and its members) that no command cites
    "defbibentryset uncited": ("", "\\defbibentryset{myset}{k1,k3}\n", "\\cite{k4}\n", {}),
    # environments the document defines that LaTeX reads verbatim (or skips)
    "verbatim environments": (
        "",
        "\\usepackage{fancyvrb,listings}\n\\DefineVerbatimEnvironment{code}{Verbatim}{}\n"
        "\\lstnewenvironment{py}{}{}\n",
        "\\cite{k1}\n\\begin{code}\n\\cite{k2} \\cite{nokey}\n\\end{code}\n"
        "\\begin{py}\n\\cite{k3} \\cite{nokey2}\n\\end{py}\n",
        {},
    ),
    # ... defined in the root, used in a file it includes: TeX reads one stream
    "verbatim environments of the root in an included file": (
        "",
        "\\usepackage{fancyvrb,listings}\n\\DefineVerbatimEnvironment{code}{Verbatim}{}\n"
        "\\lstnewenvironment{py}{}{}\n",
        "\\cite{k1}\n\\input{ch}\n",
        {
            "ch.tex": "\\begin{code}\n\\cite{k2} \\cite{nokey}\n\\end{code}\n"
            "\\begin{py}\n\\cite{k3} \\cite{nokey2}\n\\end{py}\n\\cite{k4}\n"
        },
    ),
    # ... defined in a preamble kept in a file of its own, used in the root
    "verbatim environments of a preamble file": (
        "",
        "\\input{setup}\n",
        "\\cite{k1}\n\\begin{code}\n\\cite{k2} \\cite{nokey}\n\\end{code}\n",
        {"setup.tex": "\\usepackage{fancyvrb}\n\\DefineVerbatimEnvironment{code}{Verbatim}{}\n"},
    ),
    # a macro that passes its argument to \input or \include in a file name
    "include wrappers": (
        "",
        "\\newcommand{\\chap}[1]{\\clearpage\\input{chapters/#1}}\n\\input{defs}\n",
        "\\cite{k1}\n\\chap{intro}\n\\part{intro.tex}\n",
        {
            "defs.tex": "\\def\\part#1{\\input{parts/#1}}\n",
            "chapters/intro.tex": "\\cite{k2} \\cite{nokey}\n",
            "parts/intro.tex": "\\cite{k3} \\cite{nokey2}\n",
        },
    ),
    # a wrapper whose optional argument holds the keys: read where it is given
    "optional key argument": (
        "",
        "\\newcommand{\\mc}[1][k4]{\\cite{#1}}\n",
        "\\mc[k1] \\mc [nokey]\n",
        {},
    ),
    # ... and its default where it is used without one
    "optional key argument's default": (
        "",
        "\\newcommand{\\mc}[1][k4]{\\cite{#1}}\n",
        "\\mc \\mc[k1]\n",
        {},
    ),
    "optional key argument's default of NewDocumentCommand": (
        "",
        "\\NewDocumentCommand{\\mc}{O{k4} m}{\\cite{#1}#2}\n",
        "\\mc{x} \\mc[k1]{y}\n",
        {},
    ),
    "optional key argument's default in another file": (
        "",
        "\\input{defs}\n",
        "\\input{ch}\n",
        {
            "defs.tex": "\\newcommand{\\mc}[1][k3,nokey]{\\parencite{#1}}\n",
            "ch.tex": "\\mc{} and \\mc[k2]\n",
        },
    ),
    # LaTeX's \input and \include look in the folders of \input@path too
    "input@path": (
        "",
        "\\makeatletter\\def\\input@path{{chapters/}{parts/}}\\makeatother\n",
        "\\cite{k1}\n\\input{intro}\n\\include{second}\n",
        {
            "chapters/intro.tex": "\\cite{k2} \\cite{nokey}\n",
            "parts/second.tex": "\\cite{k3}\n",
        },
    ),
    "input@path of a preamble file": (
        "",
        "\\input{setup}\n",
        "\\cite{k1}\n\\input{intro}\n",
        {
            "setup.tex": "\\makeatletter\n\\providecommand*{\\input@path}{{chapters/}}\n"
            "\\makeatother\n",
            "chapters/intro.tex": "\\cite{k2} \\cite{nokey}\n",
        },
    ),
    # a character the root's preamble makes short verbatim is so in the files it includes
    "short verbatim of the root in an included file": (
        "",
        "\\usepackage{shortvrb}\n\\MakeShortVerb{\\|}\n",
        "\\cite{k1}\n\\input{ch}\n",
        {"ch.tex": "See |\\cite{k2}| and |\\cite{nokey}|, \\cite{k3}.\n"},
    ),
    # a refsection names a resource by its label
    "refsection resource label": (
        "",
        "\\addbibresource[label=second]{a2.bib}\n",
        "\\cite{k1,k2}\n\\begin{refsection}[second]\n\\cite{e1} \\cite{k2}\n\\printbibliography\n"
        "\\end{refsection}\n",
        {"a2.bib": "@book{e1,\n  author = {E},\n  title = {T},\n  year = 2001,\n}\n"},
    ),
    # ... declared in a preamble file, named by a section of a chapter
    "refsection resource label of another file": (
        "",
        "\\input{setup}\n",
        "\\cite{k1,k2}\n\\input{ch}\n",
        {
            "setup.tex": "\\addbibresource[label=second]{a2.bib}\n",
            "ch.tex": "\\begin{refsection}[second]\n\\cite{e1} \\cite{k2}\n"
            "\\printbibliography\n\\end{refsection}\n",
            "a2.bib": "@book{e1,\n  author = {E},\n  title = {T},\n  year = 2001,\n}\n",
        },
    ),
    # LaTeX stops on them ("Can be used only in preamble"): biber reads refs.bib alone
    "resources after begin document": (
        "",
        "",
        "\\cite{k1} \\cite{e1}\n\\addbibresource{extra.bib}\n\\bibliography{extra}\n",
        {"extra.bib": "@book{e1,\n  author = {E},\n  title = {T},\n  year = 2001,\n}\n"},
    ),
    # ... in a file included in the body: the same for LaTeX and biber
    "resources of a file included after begin document": (
        "",
        "",
        "\\cite{k1} \\cite{e1} \\cite{e2}\n\\input{ch}\n",
        {
            "ch.tex": "\\addbibresource{extra.bib}\n\\bibliography{more}\n",
            "extra.bib": "@book{e1,\n  author = {E},\n  title = {T},\n  year = 2001,\n}\n",
            "more.bib": "@book{e2,\n  author = {E},\n  title = {T},\n  year = 2001,\n}\n",
        },
    ),
    # LaTeX writes a key written with a macro expanded; a list it expands to is split
    "keys written with macros": (
        "",
        "\\newcommand\\mainref{k1}\n\\def\\pair{k2, nokey}\n",
        "\\cite{\\mainref}\n\\cite{\\pair}\n",
        {},
    ),
    # ... a macro another file defines, used in a file included in the body
    "keys written with a macro of another file": (
        "",
        "\\input{defs}\n",
        "\\input{ch}\n",
        {"defs.tex": "\\newcommand{\\mainref}{k3}\n", "ch.tex": "\\cite{ \\mainref }\n"},
    ),
    # ... one the project defines later in document order is undefined there: no key
    "keys written with a macro defined after them": (
        "",
        "",
        "\\cite{\\later}\\input{defs}\\cite{\\mainref}\\input{ch}\n",
        {
            "defs.tex": "\\newcommand\\mainref{k1}\n",
            "ch.tex": "\\cite{\\pair}\\newcommand\\pair{nokey,k3}\\cite{\\pair}\n"
            "\\newcommand\\later{nokey2}\n",
        },
    ),
    # biblatex's \nocite has no optional argument: LaTeX stops on it, nothing is cited
    "an optional argument of nocite": ("", "", "\\cite{k1}\\nocite[x]{k2}\n", {}),
    # \csname cite\endcsname is \cite; \csname cite*\endcsname names no command
    "commands named by csname": (
        "",
        "",
        "\\csname cite\\endcsname{k1} \\csname parencite\\endcsname[p.~3]{k2}\n"
        "\\csname nocite\\endcsname{nokey} \\csname cite*\\endcsname{k3}\n",
        {},
    ),
    # a listing's options are read before its verbatim text: a caption's citation cites
    # (verbatim reads no option: the rest of its line is verbatim text)
    "options of a listing": (
        "",
        "\\usepackage{listings}\n",
        "\\begin{lstlisting}[caption={From \\cite{k1}}]\n\\cite{k2}\n\\end{lstlisting}\n"
        "\\begin{verbatim}[\\cite{nokey}]\n\\end{verbatim}\n\\cite{k3}\n",
        {},
    ),
    # fancyvrb's commandchars with the backslash: the verbatim text reads commands ("%" is
    # a character there); an environment defined so, in another file too, reads them
    "verbatim text reading commands": (
        "",
        "\\usepackage{fancyvrb}\n\\input{setup}\n",
        "\\begin{Verbatim}[commandchars=\\\\\\{\\}]\n\\cite{k1} 50% \\cite{nokey}\n"
        "\\end{Verbatim}\n\\begin{code}\n\\cite{k2}\n\\end{code}\n\\input{ch}\n"
        "\\begin{Verbatim}\n\\cite{nokey2}\n\\end{Verbatim}\n",
        {
            "setup.tex": "\\DefineVerbatimEnvironment{code}{Verbatim}{commandchars=\\\\\\{\\}}\n",
            "ch.tex": "\\begin{code}\n\\cite{k3}\n\\end{code}\n",
        },
    ),
    # ... every one after \fvset gives it, but where its options say otherwise
    "verbatim text reading commands after fvset": (
        "",
        "\\usepackage{fancyvrb}\n\\fvset{frame=single,commandchars=\\\\\\{\\}}\n",
        "\\begin{Verbatim}\n\\cite{k1}\n\\end{Verbatim}\n"
        "\\begin{Verbatim}[commandchars=none]\n\\cite{nokey}\n\\end{Verbatim}\n",
        {},
    ),
    # ... and other escape and group characters than LaTeX's, which LaTeX's then are not
    "verbatim text reading commands with other characters": (
        "",
        "\\usepackage{fancyvrb}\n",
        "\\begin{Verbatim}[commandchars=|\\(\\)]\n|cite(k1) \\cite{nokey} 5% |parencite(k2) |cite(nokey2)\n"
        "\\end{Verbatim}\n\\begin{Verbatim}[commandchars=\\|\\{\\}]\n|cite{k3}\n\\end{Verbatim}\n",
        {},
    ),
    # an optional argument ends at its first "]", as TeX's delimited arguments do: biblatex
    # reads the next "]" as the key; a braced "]" is kept in the argument
    "brackets in an optional argument": (
        "",
        "",
        "\\cite[see [x]]{k1}\n\\parencite[see [x]][p.~3]{k2}\n\\cite[{see [x]}]{k3}\n",
        {},
    ),
    # a citation command redefined at the top level to write nothing cites nothing after
    # it, in the file and in those it includes; one redefined in a group, or made \relax
    # and then defined again, still cites
    "citation commands redefined to write nothing": (
        "",
        "\\makeatletter\\let\\parencite\\@gobble\\makeatother\n"
        "\\newcommand\\plain[1]{{\\renewcommand\\cite[1]{}#1}}\n\\input{defs}\n",
        "\\cite{k1}\\parencite{k2}\\footcite{k3}\n\\renewcommand\\cite[1]{}\n\\input{ch}\n",
        {
            "defs.tex": "\\let\\footcite\\relax\n\\newcommand\\footcite[1]{\\footnote{#1}\\nocite{#1}}\n",
            "ch.tex": "\\cite{nokey}\\textcite{k4}\n",
        },
    ),
    # ... to the end of the group it stands in (a group, an environment, a brace group,
    # one holding an \input), or everywhere after it when global
    "citation commands silenced in a group": (
        "",
        "",
        "\\begingroup\\renewcommand{\\cite}[1]{}\\cite{nokey}\\endgroup \\cite{k1}\n"
        "\\begin{center}\\let\\parencite\\relax\\parencite{nokey2}\\end{center}\\parencite{k2}\n"
        "{\\renewcommand\\cite[1]{}\\input{ch}}\\cite{k3}\n"
        "\\begingroup\\global\\let\\footcite\\relax\\endgroup\\footcite{nokey3}\\nocite{k4}\n",
        {"ch.tex": "\\cite{nokey4}\n"},
    ),
    # ... by a file read in a group of a file that names no citation command itself: to
    # the end of that group
    "citation commands silenced by a file read in a group": (
        "",
        "",
        "{\\input{quiet}}\\input{ch}\n",
        {"quiet.tex": "\\renewcommand\\cite[1]{}\n", "ch.tex": "\\cite{k1}\\cite{nokey}\n"},
    ),
    # ... in a hook LaTeX runs at the body's start: there, whatever its braces
    "citation commands silenced in a hook": (
        "",
        "\\AtBeginDocument{\\renewcommand\\cite[1]{}}\n\\input{setup}\n",
        "\\cite{nokey}\\parencite{nokey2}\\textcite{k1}\\footcite{k2}\n",
        {"setup.tex": "\\AtEndPreamble{\\let\\parencite\\relax}\n"},
    ),
    # ... in document order: from where the file redefining it is read, until one defines
    # it again; a macro calling it cites nothing while it is silenced
    "citation commands silenced in document order": (
        "",
        "\\newcommand\\mycite[1]{\\textcite{#1}}\n",
        "\\cite{k1}\\input{defs}\\cite{nokey}\\input{undo}\\cite{k2}\n"
        "\\mycite{nokey3}\\parencite{k3}\\nocite{k4}\n",
        {
            "defs.tex": "\\renewcommand\\cite[1]{}\\renewcommand\\textcite[1]{}\n"
            "\\newcommand\\later[1]{\\cite{#1}}\\later{nokey2}\n",
            "undo.tex": "\\let\\cite\\parencite\n",
        },
    ),
    # ... past verbatim material, whose braces and conditionals TeX does not read
    "citation commands silenced past verbatim material": (
        "",
        "",
        "{\\renewcommand\\cite[1]{}\\verb|}|\\cite{nokey}}\\cite{k1}\n"
        "{\\renewcommand\\parencite[1]{}\n\\begin{verbatim}\n}\n\\end{verbatim}\n"
        "\\parencite{nokey2}}\\parencite{k2}\n"
        "\\verb|\\iffalse|\\renewcommand\\footcite[1]{}\\footcite{nokey3}\\nocite{k3}\n",
        {},
    ),
    # ... past short verbatim text (|{|), in the file that makes it and in those it includes
    "citation commands silenced past short verbatim text": (
        "",
        "\\usepackage{shortvrb}\n\\MakeShortVerb{\\|}\n",
        "{\\renewcommand\\cite[1]{}|}|\\cite{nokey}}\\cite{k1}\n"
        "|\\iffalse|\\renewcommand\\parencite[1]{}\\parencite{nokey2}\\nocite{k2}\n\\input{ch}\n",
        {"ch.tex": "{\\renewcommand\\footcite[1]{}|}|\\footcite{nokey3}}\\footcite{k3}\n"},
    ),
    # ... by the begin code of an environment where it begins: to the environment's end
    "citation commands silenced in an environment's begin code": (
        "",
        "\\newenvironment{quiet}{\\renewcommand\\cite[1]{}\\let\\parencite\\relax}{}\n",
        "\\begin{quiet}\\cite{nokey}\\parencite{nokey2}\\end{quiet}\\cite{k1}\\parencite{k2}\n"
        "\\begin{quiet}\\input{ch}\\end{quiet}\\input{ch2}\n",
        {"ch.tex": "\\cite{nokey3}\n", "ch2.tex": "\\nocite{k3}\\cite{k4}\n"},
    ),
    # ... of an environment another file of the project defines, used in the root and in a
    # third file; a \\let of a silenced command silences its alias too
    "citation commands silenced in the begin code of another file's environment": (
        "",
        "\\input{defs}\n",
        "\\begin{quiet}\\cite{nokey}\\parencite{nokey2}\\textcite{nokey4}\\end{quiet}"
        "\\cite{k1}\\parencite{k2}\n\\input{ch}\n",
        {
            "defs.tex": "\\newenvironment{quiet}{\\renewcommand\\cite[1]{}"
            "\\let\\parencite\\relax\\let\\textcite\\cite}{}\n",
            "ch.tex": "\\begin{quiet}\\cite{nokey3}\\end{quiet}\\nocite{k3}\n",
        },
    ),
    # TeX reads ^^5c as a backslash
    "commands written with a caret notation": (
        "",
        "",
        "^^5ccite{k1} ^^5cparencite[p.~3]{k2}\\input{ch}\n",
        {"ch.tex": "^^5cnocite{k3,nokey}\n"},
    ),
}


def _project(tmp_path: Path, name: str) -> Path:
    options, preamble, body, files = CASES[name]
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n\\usepackage[{options}]{{biblatex}}\n"
        "\\addbibresource{refs.bib}\n"
        f"{preamble}\\begin{{document}}\n{body}\\printbibliography\n\\end{{document}}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text, encoding="utf-8")
    return main


@pytest.mark.parametrize("name", list(CASES))
def test_dangling_and_orphans_are_those_of_latex_and_biber(tmp_path: Path, name: str) -> None:
    _require_tools()
    main = _project(tmp_path, name)
    tools = run_latex(tmp_path, "main.tex", "biber")
    log = (tmp_path / "main.log").read_text(errors="replace")
    assert "! LaTeX Error: File `" not in log, "a package is not installed"
    ours = citewarden_answer([main])
    assert (sorted(ours.dangling), sorted(ours.orphans)) == (
        sorted(tools.dangling),
        sorted(tools.unused),
    )


def _run_pdflatex(folder: Path) -> str:
    subprocess.run(
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        cwd=folder,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return (folder / "main.log").read_text(errors="replace")


def test_an_input_is_looked_for_where_tex_looks_not_beside_the_including_file(
    tmp_path: Path,
) -> None:
    """``\\input{b}`` in sub/a.tex: TeX looks in the folder it runs in (and TEXINPUTS),
    so sub/b.tex is not found."""
    _require_tools()
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\begin{document}\n\\input{sub/a}\n\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.tex").write_text("A \\input{b}\n", encoding="utf-8")
    (tmp_path / "sub" / "b.tex").write_text("B\n", encoding="utf-8")
    assert "File `b.tex' not found" in _run_pdflatex(tmp_path)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    missing = [
        f.location.path.relative_to(tmp_path).as_posix()
        for fs in check(ws).values()
        for f in fs
        if f.code is Code.MISSING_INCLUDE
    ]
    assert missing == ["sub/a.tex"]


def test_an_input_with_a_dot_in_its_name_is_read_with_tex_added_first(tmp_path: Path) -> None:
    """kpathsea adds ``.tex`` to a name that does not end in it before trying the name as
    written: ``\\input{results_v1.2}`` reads results_v1.2.tex, ``\\input{chap.v2}`` reads
    chap.v2.tex when a file chap.v2 is there too; TeX drops the double quotes of a name
    (``\\input{"my notes"}``)."""
    _require_tools()
    files = {
        "main.tex": "\\documentclass{article}\n\\begin{document}\n\\input{results_v1.2}\n"
        '\\input{chap.v2}\n\\input{"my notes"}\n\\end{document}\n',
        "results_v1.2.tex": "\\cite{dotted}\n",
        "chap.v2.tex": "\\cite{withtex}\n",
        "chap.v2": "\\cite{bare}\n",
        "my notes.tex": "\\cite{quoted}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    _run_pdflatex(tmp_path)
    aux = (tmp_path / "main.aux").read_text(errors="replace")
    assert "\\citation{dotted}" in aux and "\\citation{withtex}" in aux
    assert "\\citation{bare}" not in aux and "\\citation{quoted}" in aux
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    [project] = [p for p in ws.projects() if p.root == tmp_path / "main.tex"]
    cited = {c.key for _, doc in ws.project_documents(project) for c in doc.citations}
    assert cited == {"dotted", "withtex", "quoted"}
    assert not [f for fs in check(ws).values() for f in fs if f.code is Code.MISSING_INCLUDE]


def test_latexs_own_citex_cites_as_cite(tmp_path: Path) -> None:
    """``\\@citex[note]{keys}`` (between ``\\makeatletter`` and ``\\makeatother``) is what
    LaTeX's own ``\\cite`` reads its arguments with: it writes the keys for BibTeX."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{k1}\n"
        "\\makeatletter\\@citex[p.~3]{k2,nokey}\\makeatother\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    tools = run_latex(tmp_path, "main.tex", "bibtex")
    assert (tools.dangling, tools.unused) == ({"nokey"}, {"k3", "k4"})
    ours = citewarden_answer([main])
    assert (sorted(ours.dangling), sorted(ours.orphans)) == (["nokey"], ["k3", "k4"])
