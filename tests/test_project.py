"""The workspace model: file discovery, the project graph, bibliography resolution, caching
and the queries the language server uses."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from checking import check
from citewarden.file_state import changed_region
from citewarden.model import Code, DocumentKind, Finding
from citewarden.project import Workspace, normalize_path
from citewarden.settings import Settings
from markers import write_project


def _rel(root: Path, paths: Sequence[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in paths]


def _project(ws: Workspace, root: Path, name: str):  # type: ignore[no-untyped-def]
    target = normalize_path(root / name)
    matches = [p for p in ws.projects() if p.root == target]
    assert len(matches) == 1, [p.root for p in ws.projects()]
    return matches[0]


def _folder(tmp_path: Path, layout: str) -> Workspace:
    """A workspace of the folder ``tmp_path`` that ``layout`` is written into."""
    write_project(tmp_path, layout)
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    return ws


def _written(tmp_path: Path, layout: str, root: str = "main.tex"):  # type: ignore[no-untyped-def]
    """The workspace of the files ``layout`` writes (see :func:`write_project`), with
    ``root`` opened, and the project of ``root``."""
    write_project(tmp_path, layout)
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / root)
    return ws, _project(ws, tmp_path, root)


# ---------------------------------------------------------------------------------------
# the LaTeX include graph
# ---------------------------------------------------------------------------------------

INCLUDE_CASES = {
    "input without extension, relative to the root's directory": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{chapters/one}
\end{document}
--- chapters/one.tex
\input{chapters/two}
--- chapters/two.tex
Two.
""",
        ["main.tex", "chapters/one.tex", "chapters/two.tex"],
    ),
    "include appends .tex; input with an extension": (
        r"""
--- main.tex
\documentclass{book}
\begin{document}
\include{intro}
\input{appendix.tex}
\end{document}
--- intro.tex
Intro.
--- appendix.tex
Appendix.
""",
        ["main.tex", "intro.tex", "appendix.tex"],
    ),
    "import: base directory from the root; inputs inside are relative to it": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\import{parts/a/}{section}
\end{document}
--- parts/a/section.tex
\input{figure}
--- parts/a/figure.tex
Figure.
""",
        ["main.tex", "parts/a/section.tex", "parts/a/figure.tex"],
    ),
    "subimport: base directory relative to the importing file": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\import{parts/}{part}
\end{document}
--- parts/part.tex
\subimport{sub/}{leaf}
--- parts/sub/leaf.tex
Leaf.
""",
        ["main.tex", "parts/part.tex", "parts/sub/leaf.tex"],
    ),
    "subfile": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{subfiles}
\begin{document}
\subfile{sections/results}
\end{document}
--- sections/results.tex
Results.
""",
        ["main.tex", "sections/results.tex"],
    ),
    "a subfile reads its own inputs from its folder (subfiles imports it)": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{subfiles}
\begin{document}
\subfile{sections/results}
\end{document}
--- sections/results.tex
\input{table}
--- sections/table.tex
Table.
""",
        ["main.tex", "sections/results.tex", "sections/table.tex"],
    ),
    "a cycle of inputs terminates": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{a}
\end{document}
--- a.tex
\input{b}
--- b.tex
\input{a}
""",
        ["main.tex", "a.tex", "b.tex"],
    ),
}


def test_an_input_is_not_looked_for_beside_the_file_naming_it(tmp_path: Path) -> None:
    """TeX looks for ``\\input{b}`` in sub/a.tex in the folder it runs in (the root's)
    and TEXINPUTS, not in sub/ ("File `b.tex' not found"); the root's b.tex is read."""
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{sub/a}
\input{sub/c}
\end{document}
--- sub/a.tex
\input{b}
--- sub/b.tex
B.
--- sub/c.tex
\include{d}
--- sub/d.tex
D.
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert _rel(tmp_path, project.documents) == ["main.tex", "sub/a.tex", "sub/c.tex"]
    assert [m.target for m in project.missing] == ["b", "d"]
    (tmp_path / "b.tex").write_text("Root B.\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    assert "b.tex" in _rel(tmp_path, _project(ws, tmp_path, "main.tex").documents)


@pytest.mark.parametrize("name", list(INCLUDE_CASES))
def test_include_graph(tmp_path: Path, name: str) -> None:
    fixture, expected = INCLUDE_CASES[name]
    write_project(tmp_path, fixture)
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert project.kind is DocumentKind.LATEX
    assert _rel(tmp_path, project.documents) == expected
    assert project.missing == ()


def test_a_chapter_included_by_two_roots_belongs_to_both(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- paper.tex
\documentclass{article}
\begin{document}\input{shared}\bibliography{paper}\end{document}
--- supplement.tex
\documentclass{article}
\begin{document}\input{shared}\bibliography{supp}\end{document}
--- shared.tex
\cite{a}
--- paper.bib
@misc{a, title={A}}
--- supp.bib
@misc{b, title={B}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    owners = sorted(p.root.name for p in ws.projects_of(tmp_path / "shared.tex"))
    assert owners == ["paper.tex", "supplement.tex"]
    # defined for the paper, dangling for the supplement: reported once, on the chapter
    findings = check(ws)[normalize_path(tmp_path / "shared.tex")]
    assert [(f.code, f.data["key"]) for f in findings] == [(Code.DANGLING, "a")]


def test_magic_root_comment_makes_a_chapter_part_of_its_root(tmp_path: Path) -> None:
    marks = write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{sections/intro}
\bibliography{refs}
\end{document}
--- sections/intro.tex
% !TEX root = ../main.tex
We cite \cite{smith2020} and \cite{⟦bad|unknwn⟧}.
--- refs.bib
@article{smith2020, title={Known}}
@article{unknown, title={Unknown}}
""",
    )
    ws = Workspace(root=tmp_path)
    chapter = ws.add_file(tmp_path / "sections/intro.tex")  # only the chapter is opened
    roots = [p.root.name for p in ws.projects_of(chapter)]
    assert roots == ["main.tex"]
    findings = check(ws)[chapter]
    assert [(f.code, f.location.span) for f in findings] == [
        (Code.DANGLING, marks["sections/intro.tex"].named["bad"])
    ]
    assert findings[0].data["suggestions"] == ["unknown"]


def test_a_latex_file_outside_every_root_is_standalone(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- notes.tex
Some notes that cite \cite{somewhere}.
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    (project,) = ws.projects()
    assert project.standalone
    # no bibliography named: nothing to compare with, so no dangling citation
    assert check(ws) == {normalize_path(tmp_path / "notes.tex"): []}


# ---------------------------------------------------------------------------------------
# bibliography resolution
# ---------------------------------------------------------------------------------------

BIB_CASES = {
    "bibliography list, with and without .bib": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\bibliography{refs,more.bib}
\end{document}
--- refs.bib
--- more.bib
""",
        ["refs.bib", "more.bib"],
    ),
    "relative to the root, also when named in a chapter": (
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{chap/end}
\end{document}
--- chap/end.tex
\bibliography{bib/refs}
--- bib/refs.bib
""",
        ["bib/refs.bib"],
    ),
    "biblatex resources": (
        r"""
--- main.tex
\documentclass{article}
\usepackage{biblatex}
\addbibresource{refs.bib}
\addbibresource[label=x]{other.bib}
\addglobalbib{global.bib}
\begin{document}
\printbibliography
\end{document}
--- refs.bib
--- other.bib
--- global.bib
""",
        ["refs.bib", "other.bib", "global.bib"],
    ),
}


@pytest.mark.parametrize("name", list(BIB_CASES))
def test_bibliography_resolution(tmp_path: Path, name: str) -> None:
    fixture, expected = BIB_CASES[name]
    write_project(tmp_path, fixture)
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert _rel(tmp_path, project.bibliographies) == expected
    assert project.missing == ()


def test_bibinputs_is_searched_after_the_root_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(
        tmp_path,
        r"""
--- paper/main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{central}\end{document}
--- library/central.bib
@misc{a, title={A}}
""",
    )
    ws = Workspace(root=tmp_path / "paper")
    ws.add_file(tmp_path / "paper/main.tex")
    project = _project(ws, tmp_path, "paper/main.tex")
    assert project.bibliographies == ()
    assert [m.target for m in project.missing] == ["central"]

    monkeypatch.setenv("BIBINPUTS", f"/nonexistent:{tmp_path / 'library'}//:")
    ws.invalidate(tmp_path / "library/central.bib")
    project = _project(ws, tmp_path, "paper/main.tex")
    assert _rel(tmp_path, project.bibliographies) == ["library/central.bib"]
    assert all(fs == [] for fs in check(ws).values())


def test_markdown_front_matter_and_quarto_metadata(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- _quarto.yml
project:
  type: manuscript
bibliography: shared.bib
--- chapters/_metadata.yml
bibliography: chapter.json
--- chapters/one.qmd
---
title: One
bibliography:
  - local.bib
---
See @a, @b and @c.
--- shared.bib
@misc{a, title={A}}
--- chapters/chapter.json
[{"id": "b", "type": "book", "title": "B"}]
--- chapters/local.bib
@misc{c, title={C}}
--- elsewhere/two.md
---
bibliography: refs.bib
---
[@z]
--- elsewhere/refs.bib
@misc{z, title={Z}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    one = _project(ws, tmp_path, "chapters/one.qmd")
    assert one.kind is DocumentKind.MARKDOWN
    assert sorted(_rel(tmp_path, one.bibliographies)) == [
        "chapters/chapter.json",
        "chapters/local.bib",
        "shared.bib",
    ]
    assert _rel(tmp_path, one.metadata) == ["_quarto.yml", "chapters/_metadata.yml"]
    # _quarto.yml at the top applies to every document below it
    two = _project(ws, tmp_path, "elsewhere/two.md")
    assert _rel(tmp_path, two.bibliographies) == ["shared.bib", "elsewhere/refs.bib"]
    assert all(fs == [] for fs in check(ws).values()), check(ws)


def test_quarto_metadata_files_are_merged(tmp_path: Path) -> None:
    ws = _folder(
        tmp_path,
        r"""
--- _quarto.yml
project:
  type: default
metadata-files: [_bib.yml]
--- _bib.yml
bibliography: refs.bib
nocite: "@listed"
--- one.qmd
---
title: One
metadata-files:
  - meta/more.yaml
---
See @a, @b and @ghost.
--- meta/more.yaml
bibliography: more.bib
--- refs.bib
@misc{a, title={A}}
@misc{listed, title={L}}
@misc{unused, title={U}}
--- meta/more.bib
@misc{b, title={B}}
""",
    )
    one = _project(ws, tmp_path, "one.qmd")
    # the project's metadata-files, then the front matter's, each beside the file naming it
    assert _rel(tmp_path, one.bibliographies) == ["refs.bib", "meta/more.bib"]
    assert _rel(tmp_path, one.metadata) == ["_quarto.yml", "_bib.yml", "meta/more.yaml"]
    found = {(f.code, f.location.path.name) for fs in check(ws).values() for f in fs}
    assert found == {(Code.DANGLING, "one.qmd"), (Code.ORPHAN, "refs.bib")}


def test_missing_links_are_recorded(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\input{nothere}
\bibliography{refs,gone}
\end{document}
--- refs.bib
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert [(m.link.kind.value, m.target) for m in project.missing] == [
        ("include", "nothere"),
        ("bibliography", "gone"),
    ]


# ---------------------------------------------------------------------------------------
# discovery, overlays, caching
# ---------------------------------------------------------------------------------------


def test_add_folder_skips_hidden_vendor_and_ignored_files(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- paper.tex
x
--- refs.bib
--- notes/readme.md
x
--- drafts/old.tex
x
--- .git/x.tex
x
--- node_modules/pkg/readme.md
x
--- .venv/lib/doc.md
x
--- figure.png
x
""",
    )
    ws = Workspace(Settings(ignore=("drafts/*",)), root=tmp_path)
    found = ws.add_folder(tmp_path)
    assert sorted(_rel(tmp_path, found)) == ["notes/readme.md", "paper.tex", "refs.bib"]


class CountingReader:
    def __init__(self) -> None:
        self.reads: list[Path] = []

    def __call__(self, path: Path) -> tuple[str, Sequence[Finding]]:
        self.reads.append(path)
        return path.read_text(encoding="utf-8"), ()


def test_files_are_read_and_parsed_once_per_version(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
""",
    )
    reader = CountingReader()
    ws = Workspace(reader=reader, root=tmp_path)
    main = ws.add_file(tmp_path / "main.tex")
    bib = normalize_path(tmp_path / "refs.bib")
    check(ws)
    first_doc = ws.document(main)
    check(ws)
    assert ws.document(main) is first_doc
    assert sorted(p.name for p in reader.reads) == ["main.tex", "refs.bib"]

    # an editor buffer replaces the disk text, without reading the disk again
    ws.set_text(
        main, r"\documentclass{article}\begin{document}\cite{b}\bibliography{refs}\end{document}"
    )
    assert [f.data["key"] for f in check(ws)[main]] == ["b"]
    assert ws.document(main) is not first_doc
    assert len(reader.reads) == 2

    # closing the buffer goes back to the disk version (read again)
    ws.close(main)
    assert check(ws)[main] == []
    assert len(reader.reads) == 3

    # a change on disk is seen after invalidate()
    bib_path = tmp_path / "refs.bib"
    bib_path.write_text("@misc{c, title={C}}\n", encoding="utf-8")
    assert check(ws)[main] == []
    ws.invalidate(bib_path)
    assert [f.data["key"] for f in check(ws)[main]] == ["a"]
    assert check(ws)[bib] and check(ws)[bib][0].code is Code.ORPHAN


def test_check_reports_every_known_file(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
--- data.json
{"not": "a bibliography"}
--- notes.md
Plain notes, no citations.
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    result = check(ws)
    assert sorted(_rel(tmp_path, list(result))) == ["data.json", "main.tex", "notes.md", "refs.bib"]
    assert all(findings == [] for findings in result.values())


def test_unreadable_file_is_a_finding(tmp_path: Path) -> None:
    def reader(path: Path) -> tuple[str, Sequence[Finding]]:
        if path.name == "refs.bib":
            raise PermissionError(13, "Permission denied")
        return path.read_text(encoding="utf-8"), ()

    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
""",
    )
    ws = Workspace(reader=reader, root=tmp_path)
    ws.add_folder(tmp_path)
    result = check(ws)
    bib = result[normalize_path(tmp_path / "refs.bib")]
    assert [(f.code, f.message) for f in bib] == [
        (Code.FILE_UNREADABLE, "cannot read refs.bib: Permission denied")
    ]


# ---------------------------------------------------------------------------------------
# queries for the language server
# ---------------------------------------------------------------------------------------

QUERY_FIXTURE = r"""
--- paper.tex
\documentclass{article}
\begin{document}
See \cite{⟦c1|Knuth84⟧} and \citep[p.~3]{⟦c2|lamport⟧}.
\bibliography{refs}
\end{document}
--- notes.md
---
bibliography: refs.bib
---
As @⟦c3|lamport⟧ shows.
--- refs.bib
⟦e1|@book{⟦k1|knuth84⟧, title={The {\TeX}book}, year={1984}}⟧
@book{⟦k2|lamport⟧, title={LaTeX}, year={1994}, ids={lamport94}}
"""


def test_queries(tmp_path: Path) -> None:
    marks = write_project(tmp_path, QUERY_FIXTURE)
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    paper = normalize_path(tmp_path / "paper.tex")
    bib = normalize_path(tmp_path / "refs.bib")
    m_paper, m_notes, m_bib = marks["paper.tex"], marks["notes.md"], marks["refs.bib"]

    visible = ws.entries_for(paper)
    assert sorted(visible) == ["knuth84", "lamport", "lamport94"]
    assert visible["lamport94"][0].key == "lamport"
    assert sorted(ws.entries_for(bib)) == ["knuth84", "lamport", "lamport94"]
    # exact match first, then the casefolded one BibTeX would use
    assert [e.key for e in ws.lookup(paper, "Knuth84")] == ["knuth84"]
    assert ws.lookup(paper, "nobody") == []

    places = sorted((p.name, c.span) for p, c in ws.citations_of("lamport"))
    assert places == sorted([("paper.tex", m_paper.named["c2"]), ("notes.md", m_notes.named["c3"])])
    # an ids alias finds the citations of its entry
    assert sorted((p.name, c.span) for p, c in ws.citations_of("lamport94")) == places

    entry = ws.entry_at(bib, m_bib.named["k1"].start + 2)
    assert entry is not None and entry.key == "knuth84"
    assert entry.span == m_bib.named["e1"]
    assert ws.entry_at(paper, 0) is None

    cit = ws.citation_at(paper, m_paper.named["c2"].end)
    assert cit is not None and cit.key == "lamport"
    assert ws.citation_at(paper, 0) is None
    assert ws.document(paper) is not None and ws.bibliography(paper) is None
    assert ws.bibliography(bib) is not None and ws.document(bib) is None
    assert sorted(e.key for e in ws.all_entries()) == ["knuth84", "lamport"]


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("abcdef", "abcdef", (6, 6, 6)),
        ("abcdef", "abXYef", (2, 4, 4)),
        ("abcdef", "abef", (2, 4, 2)),
        ("abab", "ababab", (4, 4, 6)),
        ("x" * 10000 + "a" + "y" * 9000, "x" * 10000 + "bb" + "y" * 9000, (10000, 10001, 10002)),
    ],
)
def test_changed_region(old: str, new: str, expected: tuple[int, int, int]) -> None:
    start, old_end, new_end = changed_region(old, new)
    assert (start, old_end, new_end) == expected
    assert old[:start] + new[start:new_end] + old[old_end:] == new


# ---------------------------------------------------------------------------------------
# incremental re-checking gives the same answer as checking from scratch
# ---------------------------------------------------------------------------------------

BIB = "".join(
    f"@article{{key{i},\n  title = {{Title number {i}}},\n  year = {{{2000 + i % 20}}},\n}}\n\n"
    for i in range(40)
)
EDITS = {
    "a title": ("Title number 7}", "Title number 77}"),
    "a key": ("@article{key12,", "@article{key12b,"),
    "a key into a duplicate": ("@article{key12,", "@article{KEY11,"),
    "a new entry": ("@article{key20,", "@misc{fresh, title={Fresh}}\n\n@article{key20,"),
    "a removed entry": ("@article{key5,\n  title = {Title number 5},\n  year = {2005},\n}\n\n", ""),
    "a syntax error": ("year = {2010},", "year = {2010"),
    "the first entry": ("@article{key0,", "@article{key0x,"),
    "the last entry": ("Title number 39}", "Title 39}"),
    "nothing": ("", ""),
}


def _summary(result: dict[Path, list[Finding]]) -> list[tuple[str, str, int, int, str]]:
    return sorted(
        (p.name, f.code.value, f.location.span.start, f.location.span.end, f.message)
        for p, fs in result.items()
        for f in fs
    )


@pytest.mark.parametrize("name", list(EDITS))
def test_edit_of_a_bibliography_matches_a_fresh_check(tmp_path: Path, name: str) -> None:
    from citewarden.file_state import build_bib_index
    from citewarden.parsing.dispatch import parse_file

    old, new = EDITS[name]
    chapter = "".join(f"\\cite{{key{i}}}\n" for i in range(0, 40, 3))
    write_project(
        tmp_path,
        "--- main.tex\n\\documentclass{article}\n\\begin{document}\n\\input{ch}\n"
        "\\bibliography{refs}\n\\end{document}\n--- ch.tex\n" + chapter + "\\cite{missing1}\n",
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    check(ws)
    bib = normalize_path(tmp_path / "refs.bib")
    assert old in BIB
    edited = BIB.replace(old, new, 1)
    ws.set_text(bib, edited)
    incremental = check(ws)

    fresh_dir = tmp_path / "fresh"
    fresh_dir.mkdir()
    for f in ("main.tex", "ch.tex"):
        (fresh_dir / f).write_text((tmp_path / f).read_text(encoding="utf-8"), encoding="utf-8")
    (fresh_dir / "refs.bib").write_text(edited, encoding="utf-8")
    fresh = Workspace(root=fresh_dir)
    fresh.add_folder(fresh_dir)
    assert _summary(incremental) == _summary(check(fresh))

    index = ws.bib_index(bib)
    assert index is not None
    reference = build_bib_index(parse_file(bib, edited), edited)
    assert index.keys == reference.keys
    assert index.by_key == reference.by_key
    assert index.folded == reference.folded
    assert index.repeated == reference.repeated
    assert index.parent_rows == reference.parent_rows


def test_real_book_project_graph() -> None:
    """The HoTT book (tests/data/documents/hott-book): hott-online.tex sets options and
    inputs main.tex, which has the \\documentclass and \\include's the chapters."""
    book = Path(__file__).parent / "data" / "documents" / "hott-book"
    ws = Workspace(root=book)
    ws.add_folder(book)
    main = _project(ws, book, "main.tex")
    chapters = [
        "front",
        "preface",
        "introduction",
        "preliminaries",
        "basics",
        "logic",
        "equivalences",
        "induction",
        "hits",
        "hlevels",
        "homotopy",
        "categories",
        "setmath",
        "reals",
        "formal",
        "symbols",
        "back",
    ]
    expected = {"main.tex", "bmpsize-hack.tex", "macros.tex", "frontpage.tex"}
    expected |= {f"{c}.tex" for c in chapters}
    assert set(_rel(book, main.documents)) == expected
    assert _rel(book, main.bibliographies) == ["references.bib"]
    # generated by the book's Makefile, not part of the sources
    assert sorted((m.path.name, m.target) for m in main.missing) == [
        ("back.tex", "blurb.tex"),
        ("front.tex", "version.tex"),
    ]
    # hott-online.tex has no \documentclass, but formal.tex names it as its root
    # ("% !TeX root = hott-online.tex"): a root too, around main.tex
    online = _project(ws, book, "hott-online.tex")
    assert not online.standalone
    assert set(_rel(book, online.documents)) >= expected | {"opt-letter.tex", "opt-color.tex"}
    findings = check(ws)
    missing = sorted(
        (p.name, f.data["target"])
        for p, fs in findings.items()
        for f in fs
        if f.code is Code.MISSING_INCLUDE
    )
    assert missing == [("back.tex", "blurb.tex"), ("front.tex", "version.tex")]


# ---------------------------------------------------------------------------------------
# definitions reach the files read after them (LaTeX reads a project as one stream)
# ---------------------------------------------------------------------------------------


def _findings(ws: Workspace) -> list[tuple[str, str, str]]:
    return sorted(
        (path.name, f.code.name.lower(), str(f.data.get("key")))
        for path, fs in check(ws).items()
        for f in fs
        if f.code in (Code.DANGLING, Code.ORPHAN)
    )


def test_macros_and_flags_of_the_root_apply_in_the_files_it_includes(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\usepackage{natbib}
\newcommand{\inlinecite}[1]{\cite{#1}}
\newcommand{\mt}[2]{\citet{#1} and \citep{#2}}
\let\ml\citep
\newcommand{\always}{\cite{fixed}}
\newcommand{\never}{\cite{unusedfixed}}
\newif\ifdraft
\drafttrue
\begin{document}
\input{sec}
\bibliography{refs}
\end{document}
--- sec.tex
\inlinecite{knuth84} \mt{a}{b} \ml[p.~3]{c} \always
\ifdraft \cite{draft}\else \cite{final}\fi
--- refs.bib
@book{knuth84, title={T}}
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
@misc{fixed, title={F}}
@misc{draft, title={D}}
@misc{final, title={Final}}
@misc{unusedfixed, title={U}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _findings(ws) == [("refs.bib", "orphan", "final"), ("refs.bib", "orphan", "unusedfixed")]
    # the definition goes: the included file's citations are read without it
    main = tmp_path / "main.tex"
    ws.set_text(main, main.read_text().replace("\\let\\ml\\citep", ""))
    assert ("refs.bib", "orphan", "c") in _findings(ws)


def test_a_flag_set_in_a_file_without_newif_reaches_the_project(tmp_path: Path) -> None:
    """settings.tex has no ``\\newif`` of its own: it is searched for the settings of the
    flags the project defines, and its ``\\drafttrue`` decides main.tex's branch."""
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\newif\ifdraft
\input{settings}
\begin{document}
\ifdraft \cite{draft}\else \cite{final}\fi
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- settings.tex
\drafttrue
--- refs.bib
@misc{draft, title={D}}
@misc{final, title={F}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _findings(ws) == [("refs.bib", "orphan", "final")]


def test_citation_macros_apply_from_their_definition_in_document_order(tmp_path: Path) -> None:
    """As LaTeX reads the project as one stream: a macro defined in an included file
    applies after the ``\\input``, one defined after an ``\\input`` not in the file it
    reads, and a
    use before the definition in the same file is an undefined command, not a citation."""
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}
\early{a1}
\input{defs}
\mycite{a2} \early{a3}
\input{sec}
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
--- refs.bib
@misc{a1, title={T}}
@misc{a2, title={T}}
@misc{a3, title={T}}
@misc{a4, title={T}}
@misc{a5, title={T}}
@misc{a6, title={T}}
@misc{a7, title={T}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    orphans = [("refs.bib", "orphan", k) for k in ("a1", "a5", "a6")]
    assert _findings(ws) == orphans
    # the definition moves above the first \input: every use follows it now
    main = tmp_path / "main.tex"
    text = main.read_text()
    text = text.replace("\\newcommand{\\late}[1]{\\cite{#1}}\n", "")
    ws.set_text(main, text.replace("\\early{a1}", "\\newcommand{\\late}[1]{\\cite{#1}}\\early{a1}"))
    assert _findings(ws) == [("refs.bib", "orphan", "a1")]


def test_bibinputs_entries_ending_in_two_slashes_search_subfolders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(
        tmp_path,
        r"""
--- paper/main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{central}\end{document}
--- library/physics/2024/central.bib
@misc{a, title={A}}
""",
    )
    monkeypatch.setenv("BIBINPUTS", f"{tmp_path / 'library'}:")
    ws = Workspace(root=tmp_path / "paper")
    ws.add_file(tmp_path / "paper/main.tex")
    assert _project(ws, tmp_path, "paper/main.tex").bibliographies == ()
    monkeypatch.setenv("BIBINPUTS", f"{tmp_path / 'library'}//:")
    ws = Workspace(root=tmp_path / "paper")
    ws.add_file(tmp_path / "paper/main.tex")
    project = _project(ws, tmp_path, "paper/main.tex")
    assert _rel(tmp_path, project.bibliographies) == ["library/physics/2024/central.bib"]


@pytest.mark.parametrize(
    "latexmkrc",
    [
        "$ENV{'TEXINPUTS'} = './parts//:' . $ENV{'TEXINPUTS'};\n",
        "ensure_path('TEXINPUTS', './parts//');\n",
    ],
)
def test_texinputs_of_a_latexmkrc_finds_included_files(tmp_path: Path, latexmkrc: str) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\begin{document}\input{intro}\bibliography{refs}\end{document}
--- parts/chapters/intro.tex
\cite{a}
--- refs.bib
@misc{a, title={A}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    assert [m.target for m in _project(ws, tmp_path, "main.tex").missing] == ["intro"]
    (tmp_path / ".latexmkrc").write_text(latexmkrc)
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert _rel(tmp_path, project.documents) == ["main.tex", "parts/chapters/intro.tex"]
    assert all(fs == [] for fs in check(ws).values())


def test_texinputs_of_the_environment_finds_included_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(
        tmp_path,
        r"""
--- paper/main.tex
\documentclass{article}
\begin{document}\include{shared}\end{document}
--- common/shared.tex
Text.
""",
    )
    monkeypatch.setenv("TEXINPUTS", f".:{tmp_path / 'common'}:")
    ws = Workspace(root=tmp_path / "paper")
    ws.add_file(tmp_path / "paper/main.tex")
    project = _project(ws, tmp_path, "paper/main.tex")
    assert _rel(tmp_path, project.documents) == ["paper/main.tex", "common/shared.tex"]


# ---------------------------------------------------------------------------------------
# the project's own packages and classes (.sty, .cls)
# ---------------------------------------------------------------------------------------


def test_the_projects_own_class_and_packages_are_read_where_they_are_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(
        tmp_path,
        r"""
--- paper/main.tex
\documentclass{thesis}
\usepackage{amsmath,shorthands}
\usepackage{common}
\begin{document}\early{a} \see{b} \cite{c}\end{document}
--- paper/thesis.cls
\LoadClass{book}
\RequirePackage[backend=biber]{biblatex}
\addbibresource{refs.bib}
--- paper/shorthands.sty
\newcommand{\see}[1]{see \cite{#1}}
--- paper/early.sty
\newcommand{\early}[1]{\cite{#1}}
--- paper/refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
@misc{d, title={D}}
--- lib/common.sty
\addbibresource{more.bib}
--- paper/more.bib
@misc{e, title={E}}
""",
    )
    monkeypatch.setenv("TEXINPUTS", f".:{tmp_path / 'lib'}:")
    reader = CountingReader()
    ws = Workspace(reader=reader, root=tmp_path / "paper")
    ws.add_file(tmp_path / "paper/main.tex")
    ws.add_file(tmp_path / "paper/early.sty")
    project = _project(ws, tmp_path, "paper/main.tex")
    # in reading order; a package found on TEXINPUTS too; early.sty is loaded by nothing
    assert _rel(tmp_path, project.documents) == [
        "paper/main.tex",
        "paper/thesis.cls",
        "paper/shorthands.sty",
        "lib/common.sty",
    ]
    assert _rel(tmp_path, project.bibliographies) == ["paper/refs.bib", "paper/more.bib"]
    found = check(ws)
    codes = {(p.name, f.code, f.data.get("key")) for p, fs in found.items() for f in fs}
    # \early is defined in a package nothing loads: TeX does not know it
    assert codes == {
        ("refs.bib", Code.ORPHAN, "a"),
        ("refs.bib", Code.ORPHAN, "d"),
        ("more.bib", Code.ORPHAN, "e"),
    }
    # the distribution's packages and classes (amsmath, book, biblatex) are not looked
    # for: nothing is read for them, and they are not missing
    assert {p.name for p in reader.reads} == {
        "main.tex", "thesis.cls", "shorthands.sty", "common.sty", "refs.bib", "more.bib",
    }  # fmt: skip
    # a package file nothing loads is no project of its own
    assert [p.root.name for p in ws.projects()] == ["main.tex"]


def test_file_names_written_with_the_projects_macros_are_expanded(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\def\parts{chapters/}
\begin{document}
\input{\parts intro}
\bibliography{\bibfile,\jobname}
\end{document}
--- chapters/intro.tex
\newcommand{\bibfile}{refs} \cite{a,b,zz}
--- refs.bib
@misc{a, title={A}}
--- main.bib
@misc{b, title={B}}
@misc{c, title={C}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    # \bibfile is defined in a file read after the link that names it
    assert _rel(tmp_path, project.documents) == ["main.tex", "chapters/intro.tex"]
    assert _rel(tmp_path, project.bibliographies) == ["refs.bib", "main.bib"]
    assert not project.unresolved
    codes = {(f.code, f.data.get("key")) for fs in check(ws).values() for f in fs}
    assert codes == {(Code.DANGLING, "zz"), (Code.ORPHAN, "c")}


def test_units_read_the_resources_a_macro_names(tmp_path: Path) -> None:
    # a refsection with resources of its own beside the document-wide \addbibresource{\mainbib}
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\usepackage[backend=biber]{biblatex}
\newcommand{\mainbib}{main.bib}
\addbibresource{\mainbib}
\begin{document}
\cite{a}
\begin{refsection}[ch.bib]\cite{c,a}\end{refsection}
\end{document}
--- main.bib
@misc{a, title={A}}
--- ch.bib
@misc{c, title={C}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    (project,) = ws.projects()
    main = normalize_path(tmp_path / "main.tex")
    at = main.read_text().rindex("\\mainbib}")
    assert project.expanded == ((main, at, "main.bib"),)
    codes = {(f.code, f.data.get("key")) for fs in check(ws).values() for f in fs}
    # outside the refsection a is read from main.bib; inside it only ch.bib is read
    assert codes == {(Code.DANGLING, "a")}
    (finding,) = [f for fs in check(ws).values() for f in fs]
    assert finding.location.span.start > main.read_text().index("refsection")


def test_an_entry_cited_only_by_a_unit_that_does_not_read_its_file(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- cv.tex
\documentclass{article}
\newcites{sw}{Software}
\begin{document}\cite{a} \citesw{b} \citesw{s}
\bibliography{papers}\bibliographysw{software}\end{document}
--- papers.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
--- software.bib
@misc{s, title={S}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "cv.tex")
    found = check(ws)
    papers = {f.data["key"]: f for f in found[normalize_path(tmp_path / "papers.bib")]}
    assert sorted(papers) == ["b", "c"]
    # b is cited, in the software list, which reads software.bib only: printed nowhere, but
    # not unused; removing it is not offered
    assert "its citations are in a unit that reads other bibliographies" in papers["b"].message
    assert not any(fix.title == "Remove entry" for fix in papers["b"].fixes)
    assert papers["c"].message == "entry 'c' is never cited"
    assert any(fix.title == "Remove entry" for fix in papers["c"].fixes)
    (dangling,) = found[normalize_path(tmp_path / "cv.tex")]
    assert dangling.data["key"] == "b" and "list ('sw')" in dangling.message


@pytest.mark.parametrize(
    "definitions",
    [
        "",  # defined nowhere in the project
        r"\newcommand{\bibfile}{refs}\renewcommand{\bibfile}{more}",  # in two ways
        r"\newcommand{\bibfile}{\jobname-refs}",  # with a command
    ],
)
def test_a_bibliography_named_by_a_macro_the_project_does_not_settle_is_unresolved(
    tmp_path: Path, definitions: str
) -> None:
    write_project(
        tmp_path,
        f"""
--- main.tex
\\documentclass{{article}}
{definitions}
\\begin{{document}}\\cite{{a,zz}}\\bibliography{{\\bibfile}}\\end{{document}}
--- refs.bib
@misc{{a, title={{A}}}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    project = _project(ws, tmp_path, "main.tex")
    assert project.unresolved and not project.bibliographies
    # which keys the bibliography holds cannot be known: no key is called dangling, and
    # the link says so
    (finding,) = [f for found in check(ws).values() for f in found]
    assert finding.code is Code.BIB_UNRESOLVED
    assert finding.location.path == tmp_path / "main.tex"
    text = (tmp_path / "main.tex").read_text()
    span = finding.location.span
    assert text[span.start : span.end] == "\\bibfile"  # on the name, as for a missing file
    assert "'\\bibfile'" in finding.message and "not checked for dangling" in finding.message


def test_an_expansion_longer_than_any_path_is_not_looked_up(tmp_path: Path) -> None:
    from citewarden.project_graph import MAX_EXPANDED

    body = "y" * 400
    many = "\\y" * (MAX_EXPANDED // len(body) + 1)
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\\def\\y{{{body}}}\\begin{{document}}\\cite{{a}}"
        f"\\bibliography{{{many}}}\\end{{document}}"
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    (project,) = ws.projects()
    assert project.unresolved and not project.missing
    found = [f for found in check(ws).values() for f in found]
    assert [f.code for f in found] == [Code.BIB_UNRESOLVED]


def test_an_editor_buffer_of_a_package_is_read_before_it_is_saved(tmp_path: Path) -> None:
    write_project(
        tmp_path,
        r"""
--- main.tex
\documentclass{article}
\usepackage{mine}
\begin{document}\mycite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    assert {f.code for fs in check(ws).values() for f in fs} == {Code.ORPHAN}
    ws.set_text(tmp_path / "mine.sty", "\\newcommand{\\mycite}[1]{\\cite{#1}}\n")
    assert not any(check(ws).values())


# ---------------------------------------------------------------------------------------
# books: one project for all chapters
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "config",
    [
        "--- _bookdown.yml\nrmd_files: [index.Rmd, 01-intro.Rmd, 02-methods.Rmd]\n",
        "--- _bookdown.yml\nrmd_files:\n  html: [index.Rmd, 01-intro.Rmd, 02-methods.Rmd]\n",
        "--- _bookdown.yml\nbook_filename: thesis\n",  # every .Rmd of the folder
    ],
)
def test_a_bookdown_book_is_one_project_with_the_bibliography_of_its_index(
    tmp_path: Path, config: str
) -> None:
    write_project(
        tmp_path,
        config
        + r"""
--- index.Rmd
---
title: A book
bibliography: book.bib
---
Preface [@a].
--- 01-intro.Rmd
# Intro
As @b shows, and @nowhere.
--- 02-methods.Rmd
# Methods
See [@c].
--- book.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
@misc{unused, title={U}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    book = _project(ws, tmp_path, "index.Rmd")
    assert _rel(tmp_path, book.documents) == ["index.Rmd", "01-intro.Rmd", "02-methods.Rmd"]
    assert _rel(tmp_path, book.bibliographies) == ["book.bib"]
    assert _findings(ws) == [
        ("01-intro.Rmd", "dangling", "nowhere"),
        ("book.bib", "orphan", "unused"),
    ]


def test_a_quarto_book_is_one_project_in_chapter_order(tmp_path: Path) -> None:
    ws = _folder(
        tmp_path,
        r"""
--- _quarto.yml
project:
  type: book
book:
  title: A book
  chapters:
    - index.qmd
    - part: Methods
      chapters:
        - chapters/methods.qmd
  appendices:
    - appendix.qmd
--- index.qmd
---
bibliography: refs.bib
---
# Preface {.unnumbered}
Hello [@a].
--- chapters/methods.qmd
# Methods
@b and @fig-plot and @nowhere.
--- appendix.qmd
# Appendix
--- draft.qmd
Not in the book: @zzz.
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
""",
    )
    book = _project(ws, tmp_path, "index.qmd")
    assert _rel(tmp_path, book.documents) == ["index.qmd", "chapters/methods.qmd", "appendix.qmd"]
    assert _rel(tmp_path, book.bibliographies) == ["refs.bib"]
    # the draft outside the book is read alone: it names no bibliography
    assert _findings(ws) == [("methods.qmd", "dangling", "nowhere"), ("refs.bib", "orphan", "c")]


def test_a_quarto_books_chapters_read_the_files_they_include(tmp_path: Path) -> None:
    """A chapter's included file is the book's, no document of its own."""
    ws = _folder(
        tmp_path,
        r"""
--- _quarto.yml
project:
  type: book
book:
  chapters:
    - index.qmd
    - methods.qmd
bibliography: refs.bib
--- index.qmd
Hello [@a].
--- methods.qmd
{{< include parts/_design.qmd >}}
--- parts/_design.qmd
Design after @b and @nowhere.
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
""",
    )
    book = _project(ws, tmp_path, "index.qmd")
    assert _rel(tmp_path, book.documents) == ["index.qmd", "methods.qmd", "parts/_design.qmd"]
    assert _findings(ws) == [("_design.qmd", "dangling", "nowhere")]


def test_a_quarto_document_reads_the_files_it_includes(tmp_path: Path) -> None:
    """Quarto puts the text of each file an ``{{< include >}}`` shortcode names in its place
    before pandoc reads the document: its citations are the document's (relative to the
    file naming it, "/" to the project's folder), it is no document of its own, and one
    not there is a missing include.  pandoc alone reads the shortcode as text."""
    ws = _folder(
        tmp_path,
        r"""
--- main.qmd
---
bibliography: refs.bib
---
Main cites @a.

{{< include _part.qmd >}}

{{< include "sub/_more.qmd" >}}

{{< include _nothere.qmd >}}

```
{{< include _code.qmd >}}
```
--- _part.qmd
Part cites @b and @ghost.
--- sub/_more.qmd
{{< include /_part.qmd >}}
More cites @c and @d.
--- _code.qmd
Code cites @zzz.
--- plain.md
---
bibliography: refs.bib
---
Plain cites @a.

{{< include _part.qmd >}}
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
""",
    )
    main = _project(ws, tmp_path, "main.qmd")
    assert _rel(tmp_path, main.documents) == ["main.qmd", "_part.qmd", "sub/_more.qmd"]
    assert [m.target for m in main.missing] == ["_nothere.qmd"]
    roots = sorted(p.root.name for p in ws.projects() if p.kind is DocumentKind.MARKDOWN)
    assert roots == ["_code.qmd", "main.qmd", "plain.md"]
    # b and c, cited in the included files only, are no orphans
    assert _findings(ws) == [("_more.qmd", "dangling", "d"), ("_part.qmd", "dangling", "ghost")]


def test_an_r_markdown_document_reads_its_child_documents(tmp_path: Path) -> None:
    """knitr puts the text of each child document a code chunk names (``child = "a.Rmd"``,
    ``child = c(...)``, relative to the document naming it) in the chunk's place before
    pandoc reads the document; an indented code block is no chunk, and a Markdown
    document's pandoc runs no knitr."""
    ws = _folder(
        tmp_path,
        r"""
--- thesis.Rmd
---
bibliography: refs.bib
---
Main cites @a.

```{r, child="chapters/_intro.Rmd"}
```

```{r child = c('_b.Rmd', "_gone.Rmd"), echo=FALSE}
```

    ```{r, child="_code.Rmd"}
--- chapters/_intro.Rmd
Intro cites @b and @ghost.

```{r, child="_deeper.Rmd"}
```
--- chapters/_deeper.Rmd
Deeper cites @c.
--- _b.Rmd
B cites @zz.
--- _code.Rmd
Code cites @yy.
--- notes.md
---
bibliography: refs.bib
---
```{r, child="_b.Rmd"}
```
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
@misc{c, title={C}}
""",
    )
    thesis = _project(ws, tmp_path, "thesis.Rmd")
    assert _rel(tmp_path, thesis.documents) == [
        "thesis.Rmd",
        "chapters/_intro.Rmd",
        "chapters/_deeper.Rmd",
        "_b.Rmd",
    ]
    assert [m.target for m in thesis.missing] == ["_gone.Rmd"]
    assert _findings(ws) == [("_b.Rmd", "dangling", "zz"), ("_intro.Rmd", "dangling", "ghost")]


def test_a_projects_documents_are_looked_up_once_while_unchanged_and_afresh_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a check runs, each project's documents are looked up once however many checks
    ask; an edit after it is seen by the next look-up (nothing is held past the check)."""
    from citewarden.checks import Checker

    (tmp_path / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n@misc{b, title = {B}}\n")
    ws = Workspace()
    ws.add_folder(tmp_path)
    calls: list[object] = []
    looked_up = ws._looked_up_documents

    def counting(project: object) -> object:
        calls.append(project)
        return looked_up(project)  # type: ignore[arg-type]

    monkeypatch.setattr(ws, "_looked_up_documents", counting)
    checker = Checker()
    found = checker.check(ws)
    assert len(calls) == 1  # the checks of the run share one look-up of the one project
    assert [f.code for f in found[tmp_path / "refs.bib"]] == [Code.ORPHAN]
    ws.set_text(tmp_path / "main.tex", "\\cite{a,b}\n\\bibliography{refs}\n")
    assert found != (again := checker.check(ws))
    assert again[tmp_path / "refs.bib"] == []  # the edit was seen: b is cited now
    assert len(calls) == 2
    (project,) = ws.projects_of(tmp_path / "main.tex")
    ((_, doc),) = list(ws.project_documents(project))
    assert [c.key for c in doc.citations] == ["a", "b"]


def _messages(ws: Workspace) -> list[tuple[Code, str]]:
    return sorted((f.code, f.message) for found in check(ws).values() for f in found)


def test_a_remote_resource_is_not_read_and_turns_dangling_checks_off(tmp_path: Path) -> None:
    """biber downloads ``\\addbibresource[location=remote]{https://...}``: its keys cannot
    be known, so nothing is called dangling, and the link says why."""
    ws, project = _written(
        tmp_path,
        """
--- main.tex
\\documentclass{article}
\\usepackage{biblatex}
\\addbibresource[location=remote]{https://example.org/lab.bib}
\\addbibresource{refs.bib}
\\begin{document}\\cite{a,remote2020}\\printbibliography\\end{document}
--- refs.bib
@misc{a, title={A}}
@misc{unused, title={U}}
""",
    )
    assert [m.target for m in project.unresolved] == ["https://example.org/lab.bib"]
    assert project.bibliographies == (tmp_path / "refs.bib",)
    assert _messages(ws) == [
        (
            Code.BIB_UNRESOLVED,
            "bibliography 'https://example.org/lab.bib' is a remote resource, which biber "
            "downloads and citewarden does not read: its entries are unknown, so citations "
            "are not checked for dangling keys",
        ),
        (Code.ORPHAN, "entry 'unused' is never cited"),
    ]


@pytest.mark.parametrize(
    ("resource", "message"),
    [
        # not a pattern: biber looks for a file of that very name
        ("[glob=false]{bib/part-*.bib}", "bibliography file 'bib/part-*.bib' not found"),
        ("{bib/part-*.bib}", "bibliography file 'bib/part-*.bib' not found"),
        # one resource, commas and all ("Cannot find 'a.bib,b.bib'!", says biber)
        (
            "{bib/part-a.bib,bib/part-b.bib}",
            "bibliography file 'bib/part-a.bib,bib/part-b.bib' not found",
        ),
        # a pattern that names no file
        (
            "[glob]{bib/chapter-*.bib}",
            "no file matches the bibliography pattern 'bib/chapter-*.bib'",
        ),
        # patterns that name files: each is read
        ("[glob]{bib/part-*.bib}", None),
        ("[glob=true]{bib/part-{a,b}.bib}", None),
        ("[label=parts, glob = {true}]{bib/part-[ab].bib}", None),
    ],
)
def test_biblatex_resource_names_are_read_as_biber_reads_them(
    tmp_path: Path, resource: str, message: str | None
) -> None:
    ws, project = _written(
        tmp_path,
        f"""
--- main.tex
\\documentclass{{article}}
\\usepackage{{biblatex}}
\\addbibresource{resource}
\\begin{{document}}\\cite{{a,b}}\\printbibliography\\end{{document}}
--- bib/part-a.bib
@misc{{a, title={{A}}}}
--- bib/part-b.bib
@misc{{b, title={{B}}}}
""",
    )
    if message is None:
        assert project.bibliographies == (tmp_path / "bib/part-a.bib", tmp_path / "bib/part-b.bib")
        assert _messages(ws) == []
    else:
        assert not project.bibliographies
        assert _messages(ws) == [(Code.MISSING_BIBLIOGRAPHY, message)]


def test_a_macro_may_stand_for_a_list_of_bibliographies(tmp_path: Path) -> None:
    """``\\bibliography{\\bibs}`` with ``\\newcommand{\\bibs}{a,b}``: BibTeX reads a.bib and
    b.bib, as from ``\\bibliography{a,b}``."""
    ws, project = _written(
        tmp_path,
        """
--- main.tex
\\documentclass{article}
\\newcommand{\\bibs}{a, b}
\\begin{document}\\cite{x,y}\\bibliography{\\bibs}\\end{document}
--- a.bib
@misc{x, title={X}}
--- b.bib
@misc{y, title={Y}}
""",
    )
    assert project.bibliographies == (tmp_path / "a.bib", tmp_path / "b.bib")
    assert not project.missing and not any(check(ws).values())


def test_a_bibliography_url_in_markdown_is_not_read(tmp_path: Path) -> None:
    """pandoc downloads a bibliography given as a URL ("Could not fetch ..." offline): its
    keys cannot be known here, so nothing is dangling, and the link says why."""
    write_project(
        tmp_path,
        """
--- paper.md
---
bibliography:
  - refs.bib
  - https://example.org/lab.bib
---
Text [@a; @remote2020].
--- refs.bib
@misc{a, title={A}}
""",
    )
    ws = Workspace(root=tmp_path)
    ws.add_file(tmp_path / "paper.md")
    (project,) = ws.projects()
    assert project.bibliographies == (tmp_path / "refs.bib",)
    assert [(code, message.split(",")[0]) for code, message in _messages(ws)] == [
        (
            Code.BIB_UNRESOLVED,
            "bibliography 'https://example.org/lab.bib' is a remote resource",
        )
    ]
    assert "which pandoc downloads" in _messages(ws)[0][1]


def test_a_bibliography_named_by_inline_r_code_is_not_known(tmp_path: Path) -> None:
    """R Markdown and Quarto run knitr's inline R code in the front matter before pandoc
    reads the document (``bibliography: "`r here::here('refs.bib')`"``): what it names
    is not known, so nothing is dangling, and the link says why; pandoc alone reads a
    Markdown document's value as a file's name, which it cannot read."""
    front = "---\nbibliography: \"`r here::here('refs.bib')`\"\n---\nText @ghost.\n"
    for name in ("paper.Rmd", "paper.qmd", "paper.md"):
        (tmp_path / name).write_text(front, encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    found = sorted(
        (path.name, f.code, f.message)
        for path, fs in check(ws).items()
        for f in fs
        if f.code in (Code.BIB_UNRESOLVED, Code.FILE_UNREADABLE, Code.DANGLING)
    )
    assert [(name, code) for name, code, _ in found] == [
        ("paper.Rmd", Code.BIB_UNRESOLVED),
        ("paper.md", Code.FILE_UNREADABLE),
        ("paper.qmd", Code.BIB_UNRESOLVED),
    ]
    assert "is R code, which R Markdown runs before pandoc" in found[0][2]
    assert found[1][2].startswith("pandoc cannot read 'r here::here(")


@pytest.mark.parametrize(
    ("command", "undefined"),
    [
        ("\\bibliography{abbrev,refs}", []),
        ("\\bibliography{refs,abbrev}", ["jmlr"]),  # BibTeX: string name "jmlr" is undefined
        ("\\addbibresource{abbrev.bib}\\addbibresource{refs.bib}", []),
    ],
)
def test_a_bib_file_is_read_once_with_the_macros_of_the_files_named_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str, undefined: list[str]
) -> None:
    import citewarden.parsing.bibtex as bibtex

    # \bibliography in the body (in the preamble it writes nothing), biblatex's in the preamble
    preamble, body = ("", command) if command.startswith("\\bibliography") else (command, "")
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{preamble}\n\\begin{{document}}\\cite{{a}}{body}"
        "\\end{document}\n"
    )
    (tmp_path / "abbrev.bib").write_text('@string{jmlr = "J. Mach. Learn. Res."}\n')
    (tmp_path / "refs.bib").write_text("@article{a, title={T}, journal=jmlr, year=2020}\n")
    reads: list[str] = []
    parse = bibtex.parse_bibtex

    def counted(path: Path, text: str, inherited: tuple[tuple[str, str], ...] = ()) -> object:
        reads.append(path.name)
        return parse(path, text, inherited)

    monkeypatch.setattr(bibtex, "parse_bibtex", counted)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    found = check(ws)
    assert [f.data["name"] for f in found[tmp_path / "refs.bib"]] == undefined
    (entry,) = ws.bibliography(tmp_path / "refs.bib").entries  # type: ignore[union-attr]
    assert entry.get("journal") == ("jmlr" if undefined else "J. Mach. Learn. Res.")
    assert sorted(reads) == ["abbrev.bib", "refs.bib"]  # each read once


def test_a_fork_reads_the_disk_under_its_own_settings(tmp_path: Path) -> None:
    """The editor checks a fork of its workspace; the fork read files under the settings
    of the workspace it was first copied from, so ``max_file_mb`` never applied there."""
    big = tmp_path / "refs.bib"
    big.write_text("@misc{k, title={" + "x" * 20_000 + "}}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    twin = ws.fork()
    twin.set_settings(replace(twin.settings, max_file_mb=0.01))
    assert twin.read_error(big) is not None  # 20 KB over 10 KB
    assert ws.read_error(big) is None
    # a limit raised again reads what the lower one refused
    twin.set_settings(replace(twin.settings, max_file_mb=1))
    assert twin.read_error(big) is None


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_every_name_of_one_file_reads_its_buffer_and_its_changes(tmp_path: Path, link: str) -> None:
    """A bibliography a project reads by another name (a symbolic or a hard link) reads the
    editor buffer open under the file's own name, and a change on disk reported under one
    name is read under the other."""
    (tmp_path / "lib").mkdir()
    real = tmp_path / "lib" / "refs.bib"
    real.write_text("@misc{a, title={A}}\n", encoding="utf-8")
    alias = tmp_path / "alias.bib"
    if link == "symbolic":
        alias.symlink_to(real)
    else:
        alias.hardlink_to(real)
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{a,b}\\bibliography{alias}"
        "\\end{document}\n",
        encoding="utf-8",
    )
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_folder(tmp_path)

    def dangling() -> list[str]:
        return [f.message for f in check(ws).get(tmp_path / "main.tex", [])]

    assert len(dangling()) == 1
    ws.set_text(real, "@misc{a, title={A}}\n@misc{b, title={B}}\n")
    assert dangling() == []
    assert ws.text(alias) == ws.buffer(real)
    ws.close(real)
    assert len(dangling()) == 1
    real.write_text("@misc{a, title={A}}\n@misc{b, title={B}}\n", encoding="utf-8")
    ws.invalidate(real)
    assert dangling() == []
