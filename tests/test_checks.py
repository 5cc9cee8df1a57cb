"""Checks on inline multi-file projects: every finding (code, file, marked span) of a fixture
is listed, so a missing finding and an extra one both fail."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from checking import check
from citewarden.findings.policy import Policy
from citewarden.model import Code, Finding, Fix, Severity
from citewarden.project import Workspace, normalize_path
from citewarden.settings import Settings, merge_settings
from markers import Marked, found_set, write_project
from pandoc_json import csljson

Expected = list[tuple[str, Code, str]]  # (file, code, marker name)


def run(
    tmp_path: Path, fixture: str, settings: Settings | None = None
) -> tuple[dict[str, Marked], dict[str, list[Finding]]]:
    marks = write_project(tmp_path, fixture)
    ws = Workspace(settings, root=tmp_path)
    ws.add_folder(tmp_path)
    shown = Policy(ws.settings, [tmp_path]).apply_by_file(ws, check(ws))
    by_file = {p.relative_to(normalize_path(tmp_path)).as_posix(): fs for p, fs in shown.items()}
    return marks, by_file


CASES: dict[str, tuple[str, Expected]] = {
    "dangling and orphan across chapters": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{intro}
\bibliography{refs}
\end{document}
--- intro.tex
\citep[see][p.~4]{knuth1984, ⟦d|lamport1994x⟧}
--- refs.bib
@book{knuth1984, title={The TeXbook}, year={1984}}
@book{⟦o|lamport1994⟧, title={LaTeX: A Document Preparation System}, year={1994}}
""",
        [("intro.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")],
    ),
    "nocite cites; nocite{*} is not a key": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\nocite{listed}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{listed, title={Listed}}
@misc{⟦o|unlisted⟧, title={Unlisted}}
""",
        [("refs.bib", Code.ORPHAN, "o")],
    ),
    "nocite{*} switches orphans off": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\nocite{*}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
""",
        [],
    ),
    "pandoc nocite '@*' switches orphans off": (
        r"""
--- paper.md
---
bibliography: refs.bib
nocite: |
  @*
---
Text [@a].
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
""",
        [],
    ),
    "an entry is an orphan only if no project using its bibliography cites it": (
        r"""
--- paper.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{shared}\end{document}
--- slides.tex
\documentclass{beamer}
\begin{document}\cite{b}\bibliography{shared}\end{document}
--- web.md
---
bibliography: shared.bib
---
See @c.
--- shared.bib
@misc{a, title={Alpha}}
@misc{b, title={Bravo}}
@misc{c, title={Charlie}}
@misc{⟦o|d⟧, title={Delta}}
""",
        [("shared.bib", Code.ORPHAN, "o")],
    ),
    "pandoc references: items define keys, an uncited one is an orphan": (
        r"""
--- paper.md
---
bibliography: refs.bib
references:
- id: inl
  type: book
  title: Inline
- id: ⟦o|spare⟧
  type: book
  title: Spare
- {id: 2020, type: book, title: Numeric}
---
Text @inl, @2020 and @a but @⟦d|nowhere⟧.
--- refs.bib
@misc{a, title={A}}
""",
        [("paper.md", Code.DANGLING, "d"), ("paper.md", Code.ORPHAN, "o")],
    ),
    "references: alone define keys; a later block's replace the front matter's": (
        r"""
--- paper.md
---
references: [{id: early, type: book, title: Early}]
---
Text @late and @⟦d|early⟧.

---
references: [{id: late, type: book, title: Late}]
...
""",
        [("paper.md", Code.DANGLING, "d")],
    ),
    "references: of a metadata file define keys for each document under it": (
        r"""
--- _metadata.yml
references:
- {id: shared, type: book, title: Shared}
- {id: ⟦o|unused⟧, type: book, title: Unused}
- {id: cited-by-b, type: book, title: B}
--- a.md
A @shared.
--- b.md
B @cited-by-b and @⟦d|other⟧.
""",
        [("_metadata.yml", Code.ORPHAN, "o"), ("b.md", Code.DANGLING, "d")],
    ),
    "pandoc nocite '@*' cites every reference": (
        r"""
--- paper.md
---
nocite: "@*"
references:
- {id: spare, type: book, title: Spare}
---
Text.
""",
        [],
    ),
    "thebibliography items define keys": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a} \cite{⟦d|b⟧}
\begin{thebibliography}{9}
\bibitem{a} A. Author, A book.
\end{thebibliography}
\end{document}
""",
        [("main.tex", Code.DANGLING, "d")],
    ),
    "a thebibliography item never cited is an orphan (matched exactly)": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{a} \cite{⟦d|B⟧}
\begin{thebibliography}{9}
\bibitem{a} A. Author, A book.
\bibitem[Sneaked]{⟦o|b⟧} B. Author, Another book.
\end{thebibliography}
\end{document}
""",
        [("main.tex", Code.DANGLING, "d"), ("main.tex", Code.ORPHAN, "o")],
    ),
    "thebibliography with nocite{*}: no orphan": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\nocite{*}
\begin{thebibliography}{9}
\bibitem{a} A. Author, A book.
\end{thebibliography}
\end{document}
""",
        [],
    ),
    "biblatex with backend=bibtex matches keys case-insensitively": (
        r"""
--- main.tex
\documentclass{article}
\usepackage[style=numeric,backend=bibtex]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{python} \cite{⟦d|missing⟧}
\end{document}
--- refs.bib
@misc{Python, title={Python}}
""",
        [("main.tex", Code.DANGLING, "d")],
    ),
    "biblatex with biber matches keys exactly": (
        r"""
--- main.tex
\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{⟦d|python⟧}
\end{document}
--- refs.bib
@misc{⟦o|Python⟧, title={Python}}
""",
        [("main.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")],
    ),
    "a subfile's bibliography named through subfix": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{subfiles}
\usepackage{biblatex}
\begin{document}
\subfile{ch/one}
\end{document}
--- ch/one.tex
\documentclass[../main.tex]{subfiles}
\addbibresource{\subfix{refs.bib}}
\begin{document}
\cite{a} \cite{⟦d|b⟧}
\end{document}
--- ch/refs.bib
@misc{a, title={A}}
""",
        [("ch/one.tex", Code.DANGLING, "d")],
    ),
    "a %-commented entry defines nothing for biber": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{⟦d|wolf_2019⟧} \cite{ok}
\end{document}
--- refs.bib
% @article{wolf_2019,
%   title = {W},
% }
@misc{ok, title={O}}
""",
        [("main.tex", Code.DANGLING, "d")],
    ),
    "a %-commented entry defines nothing for pandoc": (
        r"""
--- doc.md
---
bibliography: refs.bib
---
See @⟦d|wolf_2019⟧ and @ok.
--- refs.bib
  % @article{wolf_2019, title = {W}}
@misc{ok, title={O}}
""",
        [("doc.md", Code.DANGLING, "d")],
    ),
    "a %-commented entry is an entry for BibTeX": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{ok}
\bibliography{refs}
\end{document}
--- refs.bib
% @article{⟦o|wolf_2019⟧, title = {W}}
@misc{ok, title={O}}
""",
        [("refs.bib", Code.ORPHAN, "o")],
    ),
    "an ids alias is no key for BibTeX": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{⟦d|old-name⟧}
\bibliography{refs}
\end{document}
--- refs.bib
@article{⟦o|new-name⟧, ids={old-name}, title={Renamed}}
""",
        [("main.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")],
    ),
    "entries inside an @comment group define nothing for biber": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{⟦d|x⟧} \cite{ok}
\end{document}
--- refs.bib
@misc{ok, title={O}}
@comment{
  Old entries, kept for reference:
  @article{x, title={X}}
  @article{oldy, title={Y}}
}
@comment(
@article{p, title={P}}
)
""",
        [("main.tex", Code.DANGLING, "d")],
    ),
    "entries inside an @comment group define nothing for pandoc": (
        r"""
--- doc.md
---
bibliography: refs.bib
---
See @⟦d|x⟧ and @ok.
--- refs.bib
@misc{ok, title={O}}
@comment{
  @article{x, title={X}}
  @article{oldy, title={Y}}
}
@comment(
@article{⟦o|p⟧, title={P}}
)
""",
        [("doc.md", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")],
    ),
    "entries inside an @comment group are entries for BibTeX": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{x} \cite{ok}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{ok, title={O}}
@comment{
  @article{x, title={X}}
  @article{⟦o|oldy⟧, title={Y}}
}
""",
        [("refs.bib", Code.ORPHAN, "o")],
    ),
    "an entry without a comma after its key keeps its key": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{smith2020} \cite{a}
\bibliography{refs}
\end{document}
--- refs.bib
@article{smith2020
  ⟦s|t⟧itle = {A}, year = 2000}
@misc{a ⟦t|b⟧, title={x}}
""",
        [("refs.bib", Code.BIB_SYNTAX, "s"), ("refs.bib", Code.BIB_SYNTAX, "t")],
    ),
    "nocite{*} in a refsection with its own resource covers that resource only": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{a}
\begin{refsection}[chapter.bib]
\nocite{*}
\printbibliography
\end{refsection}
\end{document}
--- main.bib
@misc{a, title={A}}
@misc{⟦o|unused⟧, title={U}}
--- chapter.bib
@misc{c1, title={C1}}
@misc{c2, title={C2}}
""",
        [("main.bib", Code.ORPHAN, "o")],
    ),
    "a newrefsection in an input file runs on after it, in the file including it": (
        r"""
--- main.tex
\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{main.bib}
\begin{document}
\cite{a}
\input{chapter}
\cite{c2} \cite{⟦d|a⟧}
\end{document}
--- chapter.tex
\newrefsection[chapter.bib]
\cite{c1}
--- main.bib
@misc{a, title={A}}
--- chapter.bib
@misc{c1, title={C1}}
@misc{c2, title={C2}}
""",
        [("main.tex", Code.DANGLING, "d")],
    ),
    "a refsection begun in an included file ends in the including one, and one it ends": (
        r"""
--- main.tex
\documentclass{article}
\usepackage[backend=biber]{biblatex}
\addbibresource{main.bib}
\begin{document}
\include{one}
\nocite{*}
\end{refsection}
\cite{m1}
\begin{refsection}[two.bib]
\input{two}
\cite{⟦d|t1⟧}
\end{document}
--- one.tex
\begin{refsection}[one.bib]
\cite{o1}
--- two.tex
\cite{t1}
\endrefsection
--- main.bib
@misc{m1, title={M1}}
@misc{⟦o|m2⟧, title={M2}}
--- one.bib
@misc{o1, title={O1}}
@misc{o2, title={O2}}
--- two.bib
@misc{t1, title={T1}}
""",
        [("main.tex", Code.DANGLING, "d"), ("main.bib", Code.ORPHAN, "o")],
    ),
    "with refsection=chapter a chapter ends a refsection with resources of its own": (
        r"""
--- main.tex
\documentclass{report}
\usepackage[backend=biber,refsection=chapter]{biblatex}
\addbibresource{main.bib}
\begin{document}
\begin{refsection}[chapter.bib]
\cite{c1}
\chapter{One}
\cite{⟦d|c2⟧} \cite{m1}
\printbibliography
\end{refsection}
\end{document}
--- main.bib
@misc{m1, title={M1}}
--- chapter.bib
@misc{c1, title={C1}}
@misc{⟦o|c2⟧, title={C2}}
""",
        [("main.tex", Code.DANGLING, "d"), ("chapter.bib", Code.ORPHAN, "o")],
    ),
    "refsection=section begins a section at each section of an included file": (
        r"""
--- main.tex
\documentclass{report}
\usepackage[backend=biber]{biblatex}
\ExecuteBibliographyOptions{refsection=section}
\addbibresource{main.bib}
\begin{document}
\newrefsection[one.bib]
\input{one}
\nocite{*}
\end{document}
--- one.tex
\cite{o1}
\section*{Next}
\cite{m1}
\chapter{Not a section}
\cite{⟦d|o2⟧}
--- main.bib
@misc{m1, title={M1}}
@misc{m2, title={M2}}
--- one.bib
@misc{o1, title={O1}}
@misc{⟦o|o2⟧, title={O2}}
""",
        [("one.tex", Code.DANGLING, "d"), ("one.bib", Code.ORPHAN, "o")],
    ),
    "ids aliases define keys and cite their entry": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}
\textcite{old-name}
\printbibliography
\end{document}
--- refs.bib
@article{new-name, ids={old-name, older}, title={Renamed}}
""",
        [],
    ),
    "crossref parents are cited through their children; a missing parent is reported": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{paper1} \cite{paper2}
\bibliography{refs}
\end{document}
--- refs.bib
@inproceedings{paper1, title={One}, crossref={proc2020}}
@inproceedings{paper2, title={Two}, crossref={⟦x|proc2021⟧}}
@proceedings{proc2020, title={Proceedings 2020}}
""",
        [("refs.bib", Code.MISSING_CROSSREF, "x")],
    ),
    "a crossref target nobody cites, above every cited entry naming it, is skipped by BibTeX": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{paper1} \cite{paper2}
\bibliography{procs,refs}
\end{document}
--- procs.bib
@proceedings{proc2020, title={Proceedings 2020}}
@proceedings{proc2021, title={Proceedings 2021}}
--- refs.bib
@inproceedings{paper1, title={One}, crossref={⟦x|proc2020⟧}}
@inproceedings{paper2, title={Two}, crossref={⟦y|Proc2021⟧}}
@inproceedings{⟦o|paper3⟧, title={Three, not cited}, crossref={proc2021}}
""",
        [
            ("refs.bib", Code.MISSING_CROSSREF, "x"),
            ("refs.bib", Code.MISSING_CROSSREF, "y"),
            ("refs.bib", Code.ORPHAN, "o"),
        ],
    ),
    "a crossref target above its entries is read when cited, or by biber": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{paper1,proc2021}
\bibliography{refs}
\end{document}
--- refs.bib
@proceedings{proc2021, title={Proceedings 2021}}
@inproceedings{paper1, title={One}, crossref={proc2021}}
--- biber.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{late.bib}
\begin{document}
\cite{paper2}
\end{document}
--- late.bib
@proceedings{proc2022, title={Proceedings 2022}}
@inproceedings{paper2, title={Two}, crossref={proc2022}}
""",
        [],
    ),
    "of a key defined twice, the crossref of the first definition counts": (
        # BibTeX ("Repeated entry") and biber ("Duplicate entry key ... skipping") read the
        # first entry of a key and skip the later ones, with their crossref fields
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{paper1,paper2}
\bibliography{refs,procs}
\end{document}
--- refs.bib
@inproceedings{paper1, title={One}, crossref={proc2020}}
@inproceedings{⟦d|paper1⟧, title={One again}, crossref={proc2021}}
@inproceedings{paper2, title={Two}}
--- procs.bib
@inproceedings{⟦e|paper2⟧, title={Two again}, crossref={proc2022}}
@proceedings{proc2020, title={Proceedings 2020}}
@proceedings{⟦o|proc2021⟧, title={Proceedings 2021}}
@proceedings{⟦p|proc2022⟧, title={Proceedings 2022}}
""",
        [
            ("refs.bib", Code.DUPLICATE_KEY, "d"),
            ("procs.bib", Code.DUPLICATE_KEY, "e"),
            ("procs.bib", Code.ORPHAN, "o"),
            ("procs.bib", Code.ORPHAN, "p"),
        ],
    ),
    "of a key defined twice in two cases, BibTeX reads the first, biber both (and warns)": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{x}\bibliography{refs}\end{document}
--- refs.bib
@misc{X, title={A}, crossref={q}}
@misc{⟦d|x⟧, title={B}, crossref={p}}
@misc{⟦o|p⟧, title={P}}
@misc{Q, title={Q}}
--- biber.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{late.bib}
\begin{document}\cite{y}\end{document}
--- late.bib
@misc{⟦o2|Y⟧, title={A}, crossref={q2}}
@misc{⟦w|y⟧, title={B}, crossref={p2}}
@misc{p2, title={P}}
@misc{⟦o3|q2⟧, title={Q}}
""",
        [
            ("refs.bib", Code.DUPLICATE_KEY, "d"),
            ("refs.bib", Code.ORPHAN, "o"),
            ("late.bib", Code.ORPHAN, "o2"),
            ("late.bib", Code.DUPLICATE_KEY, "w"),
            ("late.bib", Code.ORPHAN, "o3"),
        ],
    ),
    "duplicate keys compare case-insensitively, as BibTeX compares them": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{Smith2020}\bibliography{refs}\end{document}
--- refs.bib
@article{Smith2020, title={First paper}, year={2020}}
@article{⟦k|smith2020⟧, title={Second paper}, year={2020}}
""",
        [("refs.bib", Code.DUPLICATE_KEY, "k")],
    ),
    "BibTeX folds the case of ASCII letters only: MÜLLER is not müller, straße not strasse": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{⟦d|MÜLLER⟧} \cite{strasse} \cite{straße} \cite{Jones}
\bibliographystyle{plain}\bibliography{refs}\end{document}
--- refs.bib
@book{⟦o|müller⟧, title={T1}}
@book{strasse, title={T2}}
@book{straße, title={T3}}
@book{jones, title={T4}}
""",
        [("main.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "o")],
    ),
    "biber compares keys exactly: keys differing in case are two entries, and it warns": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}\addbibresource{refs.bib}
\begin{document}\cite{strasse} \cite{straße} \cite{Smith} \cite{smith}
\printbibliography\end{document}
--- refs.bib
@book{strasse, title={T2}}
@book{straße, title={T3}}
@book{Smith, title={Upper}}
@book{⟦w|smith⟧, title={Lower}}
""",
        [("refs.bib", Code.DUPLICATE_KEY, "w")],
    ),
    "biber finds no crossref target in another case (I didn't find ... crossref 'Proc')": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}\addbibresource{refs.bib}
\begin{document}\cite{c1} \cite{c2}\printbibliography\end{document}
--- refs.bib
@inproceedings{c1, title={Child}, crossref={⟦x|Proc⟧}}
@inproceedings{c2, title={Child2}, crossref={⟦y|Proc⟧}}
@proceedings{⟦o|proc⟧, title={Proceedings}}
""",
        [
            ("refs.bib", Code.MISSING_CROSSREF, "x"),
            ("refs.bib", Code.MISSING_CROSSREF, "y"),
            ("refs.bib", Code.ORPHAN, "o"),
        ],
    ),
    "xref targets of cited entries (one child or more) are no orphans, undefined ones reported": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}\addbibresource{refs.bib}
\begin{document}\cite{c1} \cite{c2} \cite{c3} \cite{c6}\printbibliography\end{document}
--- refs.bib
@inproceedings{c1, title={Child}, xref={proc}}
@inproceedings{c2, title={Child2}, xref={proc}}
@inproceedings{c3, title={Child3}, xref={⟦x|nowhere⟧}}
@inproceedings{⟦o4|c4⟧, title={Child4, not cited}, xref={book}}
@proceedings{proc, title={Proceedings}}
@book{⟦o5|book⟧, title={Book}}
@inproceedings{⟦o|c5⟧, title={Child5}}
@inproceedings{c6, title={Child6}, xref={single}}
@book{single, title={Named by one cited entry}}
""",
        [
            ("refs.bib", Code.MISSING_CROSSREF, "x"),
            ("refs.bib", Code.ORPHAN, "o"),
            ("refs.bib", Code.ORPHAN, "o4"),
            ("refs.bib", Code.ORPHAN, "o5"),
        ],
    ),
    "an ids alias that is also a key cites that entry only (biber skips the alias)": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}\addbibresource{refs.bib}
\begin{document}\cite{b} \cite{d} \cite{e}\printbibliography\end{document}
--- refs.bib
@book{⟦o|a⟧, ids={b}, title={T1}}
@book{b, title={T2}}
@book{c, ids={d, e}, title={T3}}
""",
        [("refs.bib", Code.ORPHAN, "o")],
    ),
    "duplicate key across two bibliographies of one project": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{one,two}\end{document}
--- one.bib
@misc{a, title={From one}}
--- two.bib
@misc{⟦k|a⟧, title={From two}}
""",
        [("two.bib", Code.DUPLICATE_KEY, "k")],
    ),
    "duplicate work: same DOI, or same title and year": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a,b,c,d,e,f}\bibliography{refs}\end{document}
--- refs.bib
@article{a, title={Deep learning}, year={2015}, doi={10.1038/nature14539}}
@article{⟦w1|b⟧, title={Deep Learning.}, year={2015}, doi={https://doi.org/10.1038/NATURE14539}}
@article{c, title={The {{TeX}}book, revised}, year={1986}}
@book{⟦w2|d⟧, title={The \TeX book, Revised}, year={1986}}
@book{e, title={The TeXbook, revised}, year={1984}}
@misc{f, title={Short}, year={1984}}
""",
        [("refs.bib", Code.DUPLICATE_WORK, "w1"), ("refs.bib", Code.DUPLICATE_WORK, "w2")],
    ),
    "missing bibliography and missing include": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{⟦i|chapters/absent⟧}
\cite{a}
\bibliography{refs,⟦b|nothere⟧}
\end{document}
--- refs.bib
@misc{a, title={A}}
""",
        [("main.tex", Code.MISSING_INCLUDE, "i"), ("main.tex", Code.MISSING_BIBLIOGRAPHY, "b")],
    ),
    "no dangling citations while a bibliography is missing": (
        r"""
--- paper.md
---
bibliography: ⟦b|missing.bib⟧
---
Text [@a; @b].
""",
        [("paper.md", Code.MISSING_BIBLIOGRAPHY, "b")],
    ),
    "empty citation key": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
⟦e|\cite{}⟧ \cite{a}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{a, title={A}}
""",
        [("main.tex", Code.EMPTY_KEY, "e")],
    ),
    "a space after a citation key": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{ a, ⟦s1|b⟧ } \cite{⟦s2|a⟧
  , b} \cite{⟦s3|a⟧ % why
} \cite{a% why
} \input{sec}
\bibliography{refs}
\end{document}
--- sec.tex
\newcommand{\mycite}[1]{\citep{#1}}
\mycite{⟦s4|b⟧ }
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
""",
        [
            ("main.tex", Code.KEY_SPACE, "s1"),
            ("main.tex", Code.KEY_SPACE, "s2"),
            ("main.tex", Code.KEY_SPACE, "s3"),
            ("sec.tex", Code.KEY_SPACE, "s4"),
        ],
    ),
    "the cite package trims the keys, in any file of the project": (
        r"""
--- main.tex
\documentclass{article}
\input{setup}
\begin{document}
\cite{a } \cite{b
 }
\bibliography{refs}
\end{document}
--- setup.tex
\usepackage[nomove]{cite}
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
""",
        [],
    ),
    "BibTeX matches keys case-insensitively, biber does not": (
        r"""
--- bibtex.tex
\documentclass{article}
\begin{document}\cite{Knuth84}\bibliography{refs}\end{document}
--- biber.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\begin{document}\cite{⟦d|Knuth84⟧}\printbibliography\end{document}
--- refs.bib
@book{knuth84, title={The TeXbook}}
""",
        [("biber.tex", Code.DANGLING, "d")],
    ),
    "Quarto cross-references are not citations": (
        r"""
--- paper.qmd
---
bibliography: refs.bib
---
See @fig-plot, @tbl-data and @a; but @⟦d|b⟧ is a citation.
--- refs.bib
@misc{a, title={A}}
""",
        [("paper.qmd", Code.DANGLING, "d")],
    ),
    "Markdown without any bibliography is not checked for dangling keys": (
        r"""
--- README.md
Ping @someone about the release.
""",
        [],
    ),
    "a suppression comment drops findings on its line and the next": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
% citewarden: ignore
\cite{unknown1}
\cite{⟦d|unknown2⟧}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{a, title={A}}
% citewarden: ignore
@misc{b, title={B}}
""",
        [("main.tex", Code.DANGLING, "d"), ("refs.bib", Code.ORPHAN, "a")],
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_findings(tmp_path: Path, name: str) -> None:
    fixture, expected = CASES[name]
    if name.startswith("a suppression"):
        fixture = fixture.replace("@misc{a,", "@misc{⟦a|a⟧,")
    marks, by_file = run(tmp_path, fixture)
    assert found_set(marks, by_file) == set(expected)


# ---------------------------------------------------------------------------------------
# messages, data and fixes
# ---------------------------------------------------------------------------------------


_BIBUNIT_PROJECT = r"""
--- main.tex
\documentclass{report}
\usepackage{bibunits}
PREAMBLE
\defaultbibliography{unit}
\begin{document}
BODY
\bibliography{main}
\end{document}
--- unit.bib
@misc{a, title={A}}
--- main.bib
@misc{⟦o|b⟧, title={B}}
"""
_COPIED = (
    "citation key 'a' is not defined in the bibliographies the main list "
    "(bibunits copies the citation there) reads"
)
_WITHOUT_PUTBIB = (
    "citation key 'a' is in a bibunit without \\putbib, for which BibTeX reads no bibliography"
)
BIBUNIT_MESSAGES = {
    "a starred citation is copied to the main list": (
        "",
        r"\begin{bibunit}\cite*{⟦d|a⟧}\putbib\end{bibunit}",
        _COPIED,
    ),
    "natbib's star is its own": (
        r"\usepackage{natbib}",
        r"\begin{bibunit}\cite*{a}\putbib\end{bibunit}",
        None,
    ),
    "a unit without putbib reads no bibliography": (
        "",
        "\\bibliographyunit[\\chapter]\n\\chapter{One}\\cite{a}\\putbib\n"
        "\\chapter{Two}\\cite{⟦d|a⟧}\n\\bibliographyunit",
        _WITHOUT_PUTBIB,
    ),
}


@pytest.mark.parametrize("name", list(BIBUNIT_MESSAGES))
def test_bibunit_citations_say_which_list_misses_them(tmp_path: Path, name: str) -> None:
    preamble, body, message = BIBUNIT_MESSAGES[name]
    fixture = _BIBUNIT_PROJECT.replace("PREAMBLE", preamble).replace("BODY", body)
    marks, by_file = run(tmp_path, fixture)
    dangling = {("main.tex", Code.DANGLING, "d")} if message else set()
    assert found_set(marks, by_file) == {("main.bib", Code.ORPHAN, "o")} | dangling
    messages = [f.message for f in by_file["main.tex"] if f.code is Code.DANGLING]
    assert messages == ([message] if message else [])


_JOBNAME_PROJECT = r"""
--- notes.tex
\documentclass{report}
\usepackage{bibunits}
\begin{document}
\begin{bibunit}\cite{a}⟦m|\putbib⟧\end{bibunit}
\input{chapter}
\end{document}
--- chapter.tex
\begin{bibunit}\cite{a}\putbib\end{bibunit}
DEFAULT
--- unit.bib
@misc{a, title={A}}
"""


def test_a_bare_putbib_with_no_default_anywhere_reads_the_jobname(tmp_path: Path) -> None:
    """bibunits starts from ``\\jobname``: BibTeX opens notes.bib, which is not there (one
    finding, at the root's first bare ``\\putbib``); a default set in any file of the
    project, an included one too, replaces it."""
    marks, by_file = run(tmp_path, _JOBNAME_PROJECT.replace("DEFAULT", ""))
    assert found_set(marks, by_file) == {("notes.tex", Code.MISSING_BIBLIOGRAPHY, "m")}
    (missing,) = by_file["notes.tex"]
    assert missing.message == (
        "bibliography file 'notes' not found (a bare \\putbib reads the default "
        "bibliography; no file sets one with \\defaultbibliography, so BibTeX reads the one "
        "named after the document)"
    )
    marks, by_file = run(
        tmp_path / "set", _JOBNAME_PROJECT.replace("DEFAULT", "\\defaultbibliography{unit}")
    )
    assert found_set(marks, by_file) == set()


_ORDER_PROJECT = r"""
--- main.tex
\documentclass{report}
\usepackage{bibunits}
\begin{document}
\defaultbibliography{first}
\include{chapter}
\defaultbibliography{second}
\begin{bibunit}\cite{s}\putbib\end{bibunit}
\end{document}
--- chapter.tex
\begin{bibunit}\cite{f} \cite{⟦d|s⟧}\putbib\end{bibunit}
--- first.bib
@misc{f, title={F}}
--- second.bib
@misc{s, title={S}}
"""


def test_a_bare_putbib_reads_the_default_set_before_it_in_another_file(tmp_path: Path) -> None:
    """The chapter's bare ``\\putbib`` reads ``first``, the root's default when the chapter
    is included (BibTeX: its unit's .aux says ``\\bibdata{first}`` and lacks ``s``),
    though no bare ``\\putbib`` of the root reads it and the root's last default is
    ``second``; first.bib is the project's for that unit."""
    marks, by_file = run(tmp_path, _ORDER_PROJECT)
    assert found_set(marks, by_file) == {("chapter.tex", Code.DANGLING, "d")}


def apply(text: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


def test_dangling_message_suggestions_and_fixes(tmp_path: Path) -> None:
    marks, by_file = run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\citep{⟦d|vaswani2017atention⟧}
\bibliography{refs}
\end{document}
--- refs.bib
@inproceedings{vaswani2017attention, title={Attention is all you need}}
@inproceedings{devlin2019bert, title={BERT}}
@inproceedings{vaswani2018tensor2tensor, title={Tensor2Tensor}}
""",
    )
    (finding,) = [f for f in by_file["main.tex"]]
    assert finding.code is Code.DANGLING
    assert finding.message == (
        "citation key 'vaswani2017atention' is not defined in any bibliography; "
        "did you mean 'vaswani2017attention' or 'vaswani2018tensor2tensor'?"
    )
    assert finding.data["key"] == "vaswani2017atention"
    assert finding.data["suggestions"] == ["vaswani2017attention", "vaswani2018tensor2tensor"]
    titles = [(fix.title, fix.preferred) for fix in finding.fixes]
    assert titles == [
        ("Change to `vaswani2017attention`", True),
        ("Change to `vaswani2018tensor2tensor`", False),
    ]
    text = marks["main.tex"].text
    fixed = apply(text, finding.fixes[0])
    assert r"\citep{vaswani2017attention}" in fixed
    assert finding.fixes[0].edits[0].span == marks["main.tex"].named["d"]
    assert finding.effective_severity is Severity.ERROR


def test_no_suggestion_when_nothing_is_close(tmp_path: Path) -> None:
    _, by_file = run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{zzzz}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={Alpha}}
""",
    )
    (finding,) = by_file["main.tex"]
    assert finding.data["suggestions"] == []
    assert finding.fixes == ()
    assert finding.message == "citation key 'zzzz' is not defined in any bibliography"


def test_orphan_fixes_remove_entry_and_add_nocite(tmp_path: Path) -> None:
    marks, by_file = run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\cite{used}
\bibliography{refs}
\end{document}
--- refs.bib
@misc{used, title={Used}}
@misc{⟦o|spare⟧, title={Spare}}
@misc{last, title={Last}}
""",
    )
    orphans = {f.data["key"]: f for f in by_file["refs.bib"]}
    assert sorted(orphans) == ["last", "spare"]
    spare = orphans["spare"]
    assert spare.message == "entry 'spare' is never cited"
    remove, nocite = spare.fixes
    assert remove.title == "Remove entry"
    assert apply(marks["refs.bib"].text, remove) == (
        "@misc{used, title={Used}}\n@misc{last, title={Last}}\n"
    )
    assert nocite.title == r"Add \nocite{spare}"
    assert apply(marks["main.tex"].text, nocite).endswith(
        "\\bibliography{refs}\n\\nocite{spare}\n\\end{document}\n"
    )


@pytest.mark.parametrize(
    ("front_matter", "expected"),
    [
        ("bibliography: refs.bib\n", 'bibliography: refs.bib\nnocite: "@spare"\n'),
        (
            'bibliography: refs.bib\nnocite: "@other"\n',
            'bibliography: refs.bib\nnocite: "@other, @spare"\n',
        ),
        (
            "bibliography: refs.bib\nnocite: |\n  @other\ntitle: T\n",
            "bibliography: refs.bib\nnocite: |\n  @other\n  @spare\ntitle: T\n",
        ),
        # front matter written as one flow mapping: a block line after it broke the YAML
        (
            "{title: C, bibliography: refs.bib}\n",
            '{title: C, bibliography: refs.bib, nocite: "@spare"}\n',
        ),
    ],
)
def test_orphan_fix_adds_to_pandoc_nocite(tmp_path: Path, front_matter: str, expected: str) -> None:
    marks, by_file = run(
        tmp_path,
        f"""
--- paper.md
---
{front_matter}---
Text [@used].
--- refs.bib
@misc{{used, title={{Used}}}}
@misc{{other, title={{Other}}}}
@misc{{spare, title={{Spare}}}}
""",
    )
    (orphan,) = [f for f in by_file["refs.bib"] if f.data["key"] == "spare"]
    fix = next(f for f in orphan.fixes if f.title == "Add to nocite")
    assert apply(marks["paper.md"].text, fix) == f"---\n{expected}---\nText [@used].\n"
    assert "@spare" in str(yaml.safe_load(expected)["nocite"])


@pytest.mark.parametrize(
    ("later", "expected"),
    [
        ('nocite: "@other"\n', 'nocite: "@other, @spare"\n'),
        ("title: T\nnocite: |\n  @other\n", "title: T\nnocite: |\n  @other\n  @spare\n"),
        # a later block without nocite leaves the front matter's, which pandoc reads
        ("title: T\n", "title: T\n"),
    ],
)
def test_orphan_fix_adds_to_the_nocite_pandoc_reads(
    tmp_path: Path, later: str, expected: str
) -> None:
    """pandoc takes a field set by several metadata blocks from the last of them (pandoc
    3.9 and 2.17 alike): a key added to the front matter's nocite while a later block sets
    nocite was not cited."""
    front = 'bibliography: refs.bib\nnocite: "@used"\n'
    marks, by_file = run(
        tmp_path,
        f"""
--- paper.md
---
{front}---
Text [@used].

---
{later}...

More text.
--- refs.bib
@misc{{used, title={{Used}}}}
@misc{{other, title={{Other}}}}
@misc{{spare, title={{Spare}}}}
""",
    )
    (orphan,) = [f for f in by_file["refs.bib"] if f.data["key"] == "spare"]
    fix = next(f for f in orphan.fixes if f.title == "Add to nocite")
    changed = apply(marks["paper.md"].text, fix)
    if later == expected:  # into the front matter
        front = front.replace('"@used"', '"@used, @spare"')
    assert changed == f"---\n{front}---\nText [@used].\n\n---\n{expected}...\n\nMore text.\n"


def test_no_nocite_fix_inside_a_flow_mapping_that_has_one(tmp_path: Path) -> None:
    _, by_file = run(
        tmp_path,
        """
--- paper.md
---
{bibliography: refs.bib, nocite: "@other"}
---
Text [@used].
--- refs.bib
@misc{used, title={Used}}
@misc{other, title={Other}}
@misc{spare, title={Spare}}
""",
    )
    (orphan,) = [f for f in by_file["refs.bib"] if f.data["key"] == "spare"]
    assert [f.title for f in orphan.fixes] == ["Remove entry"]


def test_duplicate_key_points_at_the_first_and_removes_the_second(tmp_path: Path) -> None:
    marks, by_file = run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{⟦first|a⟧, title={One}}
@misc{⟦dup|a⟧, title={Two}}
@misc{b, title={Three}}
""",
    )
    dup = next(f for f in by_file["refs.bib"] if f.code is Code.DUPLICATE_KEY)
    assert dup.location.span == marks["refs.bib"].named["dup"]
    assert dup.message == "duplicate key 'a' (first defined at refs.bib:1)"
    (related,) = dup.related
    assert related.location.span == marks["refs.bib"].named["first"]
    (fix,) = dup.fixes
    assert apply(marks["refs.bib"].text, fix) == "@misc{a, title={One}}\n@misc{b, title={Three}}\n"


def test_duplicate_work_relates_both_entries(tmp_path: Path) -> None:
    marks, by_file = run(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{lecun2015,lecun2015deep}\bibliography{refs}\end{document}
--- refs.bib
@article{⟦a|lecun2015⟧, title={Deep learning}, doi={10.1038/nature14539}}
@article{⟦b|lecun2015deep⟧, title={Deep Learning}, doi={10.1038/nature14539}}
""",
    )
    (finding,) = by_file["refs.bib"]
    assert finding.code is Code.DUPLICATE_WORK
    assert finding.location.span == marks["refs.bib"].named["b"]
    assert finding.related[0].location.span == marks["refs.bib"].named["a"]
    assert "same DOI 10.1038/nature14539" in finding.message


# ---------------------------------------------------------------------------------------
# severities
# ---------------------------------------------------------------------------------------

SEVERITY_FIXTURE = r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{missing}\bibliography{refs}\end{document}
--- refs.bib
@misc{spare, title={Spare}}
"""


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, {Code.DANGLING: Severity.ERROR, Code.ORPHAN: Severity.WARNING}),
        ({"orphan-entry": "off"}, {Code.DANGLING: Severity.ERROR}),
        (
            {"dangling-citation": "warning", "orphan-entry": "hint"},
            {Code.DANGLING: Severity.WARNING, Code.ORPHAN: Severity.HINT},
        ),
    ],
)
def test_configured_severities(
    tmp_path: Path, config: dict[str, str], expected: dict[Code, Severity]
) -> None:
    settings, problems = merge_settings(Settings(), {"severity": config}, "test")
    assert problems == []
    _, by_file = run(tmp_path, SEVERITY_FIXTURE, settings)
    got = {f.code: f.effective_severity for fs in by_file.values() for f in fs}
    assert got == expected


def test_user_citation_commands(tmp_path: Path) -> None:
    fixture = r"""
--- main.tex
\documentclass{article}
\begin{document}\mycite{⟦d|nokey⟧}\bibliography{refs}\end{document}
--- refs.bib
@misc{⟦o|a⟧, title={A}}
"""
    marks, by_file = run(tmp_path, fixture)
    assert found_set(marks, by_file) == {("refs.bib", Code.ORPHAN, "o")}
    marks, by_file = run(tmp_path, fixture, Settings(citation_commands=("mycite",)))
    assert found_set(marks, by_file) == {
        ("main.tex", Code.DANGLING, "d"),
        ("refs.bib", Code.ORPHAN, "o"),
    }


CSL_JSON_REFS = """[
  {
    "id": "first",
    "title": "First"
  },
  {
    "id": "used",
    "title": "Used"
  },
  {"id": "last", "title": "Last"}
]
"""

CSL_YAML_REFS = """references:
- id: first
  title: First
  abstract: |
    line one
    # not a comment
# a comment about used
- id: used
  title: Used
- {id: last, title: Last}
"""


def test_an_orphan_csl_item_holding_a_yaml_anchor_is_not_offered_for_removal(
    tmp_path: Path,
) -> None:
    """Another item's alias may name the anchor: removing the item would leave the file
    unreadable, so only adding it to nocite is offered."""
    refs = "references:\n- id: spare\n  publisher: &p Springer\n- id: used\n  publisher: *p\n"
    paper = "---\nbibliography: refs.yaml\n---\n\nSee [@used].\n"
    _, by_file = run(tmp_path, f"--- paper.md\n{paper}--- refs.yaml\n{refs}")
    [orphan] = [f for f in by_file["refs.yaml"] if f.code is Code.ORPHAN]
    assert "Remove entry" not in [f.title for f in orphan.fixes]


@pytest.mark.parametrize(
    ("name", "refs"), [("refs.json", CSL_JSON_REFS), ("refs.yaml", CSL_YAML_REFS)]
)
def test_an_orphan_csl_item_can_be_removed(tmp_path: Path, name: str, refs: str) -> None:
    """ "Remove entry" for an item of a CSL-JSON or CSL-YAML file: the item and the comma
    that separated it (JSON), or its lines (YAML: a block scalar's last line that looks
    like a comment goes with it, a comment after it stays); pandoc reads the other items."""
    paper = f"---\nbibliography: {name}\n---\n\nSee [@used].\n"
    marks, by_file = run(tmp_path, f"--- paper.md\n{paper}--- {name}\n{refs}")
    orphans = {f.data["key"]: f for f in by_file[name] if f.code is Code.ORPHAN}
    assert sorted(orphans) == ["first", "last"]
    text = marks[name].text
    for key in ("last", "first"):  # (each fix's positions are the original text's)
        [remove] = [f for f in orphans[key].fixes if f.title == "Remove entry"]
        text = apply(text, remove)
        (tmp_path / name).write_text(text, encoding="utf-8")
    if name == "refs.json":
        assert text == '[\n  {\n    "id": "used",\n    "title": "Used"\n  }\n]\n'
        args = ["-f", "csljson", name]
    else:
        assert text == "references:\n# a comment about used\n- id: used\n  title: Used\n"
        (tmp_path / "doc.md").write_text(f"---\n{text}---\n", encoding="utf-8")
        args = ["-f", "markdown", "doc.md"]
    assert [item["id"] for item in csljson(tmp_path, *args)] == ["used"]
