"""The citation-context hover's corpus keeper, in process (the end-to-end behaviour is
tests/lsp/test_lsp_context_corpus.py): the session of a real server over a project on disk,
the keeper's background build held back on an event, so that "a hover never waits for a
running rebuild" is asserted without depending on timing."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from citewarden.context.relevance import FieldCorpus
from citewarden.lsp import context_corpus
from citewarden.lsp.context_corpus import CorpusKeeper, Inputs
from citewarden.lsp.context_hover import ContextHover
from citewarden.lsp.server import create_server
from citewarden.lsp.session import Session
from citewarden.project import Workspace

BIB = r"""@book{lamport1994,
  author = {Leslie Lamport},
  title = {{\LaTeX}: A Document Preparation System},
  year = {1994},
}
"""
TEX = "\\documentclass{article}\n\\begin{document}\nA system \\cite{lamport1994}.\n\\bibliography{refs}\n\\end{document}\n"
MORE = "@misc{added,\n  title = {Typesetting with a document preparation system},\n}\n\n"


def session_over(root: Path) -> Session:
    (root / "main.tex").write_text(TEX, encoding="utf-8")
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    session = create_server().session
    session.roots = [root]
    work = session.project.fork()
    work.set_settings(session.settings)
    work.add_folder(root)
    session.commit(work)
    return session


def edit(session: Session, path: Path, text: str) -> None:
    work: Workspace = session.project.fork()
    work.set_text(path, text)
    session.commit(work)


async def rebuild_done(keeper: CorpusKeeper) -> None:
    """Wait for the rebuild a change scheduled (there must be one)."""
    task = keeper.scheduled
    assert task is not None
    await asyncio.wait_for(task, timeout=10)


async def test_a_hover_during_a_rebuild_gets_the_last_corpus_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_over(tmp_path)
    keeper = CorpusKeeper(session, None)
    monkeypatch.setattr(context_corpus, "LEAST_PAUSE", 0.0)
    keeper.changed()  # no hover asked for a corpus yet: nothing is scheduled
    assert keeper.scheduled is None

    first = await session.run(keeper.corpus)  # the first hover builds it, once
    assert first.size == 1 and keeper.rebuilds == 0
    assert await session.run(keeper.corpus) is first

    started, release = threading.Event(), threading.Event()
    real_build = context_corpus.build

    def held_build(inputs: Inputs, previous: context_corpus.Built | None = None) -> object:
        started.set()
        assert release.wait(10)
        return real_build(inputs, previous)

    monkeypatch.setattr(context_corpus, "build", held_build)
    edit(session, tmp_path / "refs.bib", MORE + BIB)
    keeper.changed()
    assert await asyncio.to_thread(started.wait, 10)  # the rebuild runs (and is held)
    keeper.changed()  # a change during the rebuild asks for one more
    # a hover meanwhile is answered from the last corpus, without waiting
    during = await asyncio.wait_for(session.run(keeper.corpus), timeout=5)
    assert during is first
    release.set()
    await rebuild_done(keeper)
    rebuilt = keeper.built
    assert rebuilt is not None and rebuilt.corpus is not first and rebuilt.corpus.size == 2
    # the second round found nothing new: the same corpus
    assert keeper.rebuilds == 1
    assert await session.run(keeper.corpus) is rebuilt.corpus
    keeper.close()


async def test_nothing_is_rebuilt_while_the_entries_and_verdicts_stay_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_over(tmp_path)
    keeper = CorpusKeeper(session, None)
    monkeypatch.setattr(context_corpus, "LEAST_PAUSE", 0.0)
    first = await session.run(keeper.corpus)
    edit(session, tmp_path / "main.tex", TEX.replace("A system", "A typesetting system"))
    keeper.changed()  # a check of a document: the entries are the same objects
    await rebuild_done(keeper)
    assert keeper.rebuilds == 0 and await session.run(keeper.corpus) is first
    keeper.close()


async def test_a_closed_keeper_schedules_nothing(tmp_path: Path) -> None:
    session = session_over(tmp_path)
    keeper = CorpusKeeper(session, None)
    await session.run(keeper.corpus)
    keeper.close()
    await session.run(keeper.corpus)  # a hover after the close still answers
    keeper.changed()
    assert keeper.scheduled is None


async def test_a_bibliography_edit_that_changes_no_work_keeps_the_corpus_and_its_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = session_over(tmp_path)
    hover = ContextHover(session, None)
    monkeypatch.setattr(context_corpus, "LEAST_PAUSE", 0.0)
    scored: list[str] = []
    real_score = FieldCorpus.score

    def counted(self: FieldCorpus, sentence: str, *args: object) -> float:
        scored.append(sentence)
        return real_score(self, sentence, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(FieldCorpus, "score", counted)
    main = tmp_path / "main.tex"
    at = TEX.index("\\cite")

    def ask() -> str | None:
        return hover.citation_hover(main, at, "lamport1994")

    first = await session.run(ask)
    assert first is not None and "relevance" in first and len(scored) == 1
    corpus = hover.keeper.corpus()
    # the entry moves (a comment above it) and gains a field no work is read from: a new
    # entry object of the same work
    bib = "% the system's manual\n\n" + BIB.replace(
        "year = {1994},", "year = {1994},\n  edition = {2},"
    )
    edit(session, tmp_path / "refs.bib", bib)
    assert await session.run(ask) == first and len(scored) == 1  # no score computed again
    hover.on_checked(set())
    await rebuild_done(hover.keeper)
    assert hover.keeper.rebuilds == 1 and hover.keeper.corpus() is corpus  # kept
    assert await session.run(ask) == first and len(scored) == 1
    # a change of the work itself is scored again, against a rebuilt corpus
    edit(session, tmp_path / "refs.bib", bib.replace("Preparation System", "Preparation Program"))
    hover.on_checked(set())
    await rebuild_done(hover.keeper)
    assert hover.keeper.corpus() is not corpus
    again = await session.run(ask)
    assert again is not None and len(scored) == 2
    await hover.aclose()


def _with_macros_file(session: Session, tmp_path: Path) -> tuple[Path, Path, str]:
    """``main.tex`` (returned with its text) inputting ``macros.tex``, which defines
    ``\\Coq`` as words and cites nothing, both in ``session``'s project."""
    main = tmp_path / "main.tex"
    macros = tmp_path / "macros.tex"
    text = TEX.replace("\\begin{document}", "\\input{macros}\n\\begin{document}").replace(
        "A system", "A system like \\Coq"
    )
    macros.write_text("\\newcommand{\\Coq}{\\textsc{Coq}\\xspace}\n", encoding="utf-8")
    work = session.project.fork()
    work.add_file(macros)
    work.set_text(main, text)
    session.commit(work)
    return main, macros, text


async def test_a_hover_shows_the_words_commands_another_file_of_the_project_defines(
    tmp_path: Path,
) -> None:
    """A macros file that cites nothing defines ``\\Coq`` for the document that inputs it:
    the hover's sentence shows it, and again after the macros file is edited."""
    session = session_over(tmp_path)
    main, macros, text = _with_macros_file(session, tmp_path)
    hover = ContextHover(session, None)
    at = text.index("\\cite")
    shown = await session.run(lambda: hover.citation_hover(main, at, "lamport1994"))
    assert shown is not None and "> A system like Coq." in shown
    edit(session, macros, "\\newcommand{\\Coq}{\\textsc{Rocq}\\xspace}\n")
    shown = await session.run(lambda: hover.citation_hover(main, at, "lamport1994"))
    assert shown is not None and "> A system like Rocq." in shown
    await hover.aclose()


def test_the_judge_reads_the_words_commands_another_file_of_the_project_defines(
    tmp_path: Path,
) -> None:
    """The sentence the judge is sent shows ``\\Coq`` that the project's macros file
    defines, and again after the macros file alone is edited (the sentences were kept
    until the citing document was parsed again)."""
    from citewarden.lsp.judging import JudgeService

    session = session_over(tmp_path)
    main, macros, text = _with_macros_file(session, tmp_path)
    judge = JudgeService(session, None)  # type: ignore[arg-type]
    doc = session.project.document(main)
    assert doc is not None
    found = judge._sentences_of(main, doc, text)
    assert [s.text if s else None for s in found] == ["A system like Coq."]
    # an edit of the macros file alone (main.tex not parsed again) is sent too
    edit(session, macros, "\\newcommand{\\Coq}{\\textsc{Rocq}\\xspace}\n")
    assert session.project.document(main) is doc
    found = judge._sentences_of(main, doc, text)
    assert [s.text if s else None for s in found] == ["A system like Rocq."]


def test_the_judge_reads_the_sentences_check_reads_under_a_crossref_project(
    tmp_path: Path,
) -> None:
    """Under a ``_quarto.yml`` that runs pandoc-crossref, the judge in the editor is sent
    ``@fig:plot`` as ``[ref]``, the sentence ``check`` sends, where it read ``[author]``."""
    from citewarden.audit import collect_contexts
    from citewarden.lsp.judging import JudgeService

    session = session_over(tmp_path)
    (tmp_path / "_quarto.yml").write_text(
        "bibliography: refs.bib\nfilters:\n  - pandoc-crossref\n", encoding="utf-8"
    )
    paper = tmp_path / "paper.qmd"
    text = "As @fig:plot shows, a system [@lamport1994] fits.\n"
    paper.write_text(text, encoding="utf-8")
    work = session.project.fork()
    work.add_folder(tmp_path)
    session.commit(work)
    doc = session.project.document(paper)
    assert doc is not None
    judge = JudgeService(session, None)  # type: ignore[arg-type]
    sent = [s.text for s in judge._sentences_of(paper, doc, text) if s is not None]
    checked = collect_contexts(session.project, [paper], session.project.all_entries(), None)
    assert sent == [c.sentence.text for c in checked] == ["As [ref] shows, a system fits."]
