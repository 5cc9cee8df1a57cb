"""Memory running out while the language server parses a file: the file is unreadable,
with the command line's words, and the rest of the workspace is checked (in process)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from citewarden.lsp.server import create_server
from citewarden.lsp.session import Session
from citewarden.model import Code
from citewarden.parsing import bibtex

BIB = "@misc{cited, title = {T}}\n@misc{orphan, title = {U}}\n"
TEX = "\\documentclass{article}\n\\begin{document}\n\\cite{cited,gone}\n\\bibliography{refs}\n"
MD = "---\nbibliography: refs.bib\n---\n\nSee [@cited; @gone].\n"
BIBER = (
    "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
    "\\addbibresource{refs.bib}\n\\addbibresource{other.bib}\n"
    "\\begin{document}\n\\cite{child}\n\\end{document}\n"
)
#: a project of its own, whose bibliography (CSL-JSON) is parsed
OTHER = "---\nbibliography: other.json\n---\n\nSee [@gone].\n"


@pytest.fixture(autouse=True)
def _collector_as_it_was() -> Iterator[None]:
    """The checks exempt their survivors from the collector (gc.freeze); the rest of the
    test run expects nothing frozen."""
    frozen = gc.get_freeze_count()
    yield
    if gc.get_freeze_count() > frozen:
        gc.unfreeze()


def _exhausted(*args: object) -> None:
    raise MemoryError


def _index(root: Path) -> Session:
    session = create_server().session
    session.roots = [root]
    session.roots_to_config()
    work = session.project.fork()
    work.add_folder(root)
    session.indexed_all.set()  # every file read, as indexing ends (orphans shown)
    session.cycle.check(work, None, None, None, True)
    session.commit(work)
    return session


def _edit(session: Session, path: Path, text: str) -> None:
    work = session.project.fork()
    work.set_text(path, text)
    session.cycle.check(work, None, None, None, True)
    session.commit(work)


def _codes(session: Session, path: Path) -> list[str]:
    return [f.code.value for f in session.store.findings(path.resolve())]


@pytest.mark.parametrize(
    ("name", "text"), [("main.tex", TEX), ("paper.md", MD)], ids=["latex", "markdown"]
)
def test_a_parse_out_of_memory_is_the_files_finding_and_the_rest_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, text: str
) -> None:
    """The file is unreadable and its keys cannot be known, as those of a file over
    max_file_mb: no citation of its projects is dangling (cited is in it, gone in no file;
    pandoc's project reported both), and the rest is checked."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "other.md").write_text(OTHER, encoding="utf-8")
    (tmp_path / "other.json").write_text("[]", encoding="utf-8")
    monkeypatch.setattr(bibtex, "parse_bibtex", _exhausted)
    session = _index(tmp_path)
    bib = session.store.findings((tmp_path / "refs.bib").resolve())
    assert [f.code for f in bib] == [Code.FILE_UNREADABLE]
    assert bib[0].message.startswith("ran out of memory while reading refs.bib;")
    assert _codes(session, tmp_path / name) == []
    assert _codes(session, tmp_path / "other.md") == [Code.DANGLING.value]


def test_an_edit_whose_parse_runs_out_of_memory_leaves_the_server_checking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "main.tex").write_text(TEX, encoding="utf-8")
    session = _index(tmp_path)
    assert Code.ORPHAN.value in _codes(session, tmp_path / "refs.bib")
    monkeypatch.setattr(bibtex, "reparse_bibtex", _exhausted)
    monkeypatch.setattr(bibtex, "parse_bibtex", _exhausted)
    _edit(session, tmp_path / "refs.bib", BIB + "@misc{gone, title = {V}}\n")
    assert _codes(session, tmp_path / "refs.bib") == [Code.FILE_UNREADABLE.value]
    monkeypatch.undo()  # memory is there again: the next edit is read and checked
    _edit(session, tmp_path / "refs.bib", BIB + "@misc{gone, title = {W}}\n")
    assert _codes(session, tmp_path / "refs.bib") == [Code.ORPHAN.value]
    assert _codes(session, tmp_path / "main.tex") == []


def test_a_crossref_into_a_file_out_of_memory_is_not_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """other.bib's crossref names an entry of refs.bib, whose parse ran out of memory: the
    target is not known to be undefined (biber's project said it was, missing-crossref)."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "other.bib").write_text("@misc{child, crossref = {cited}}\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(BIBER, encoding="utf-8")
    parse = bibtex.parse_bibtex

    def exhausted_on_refs(path: Path, *args: Any, **kwargs: Any) -> Any:
        if path.name == "refs.bib":
            raise MemoryError
        return parse(path, *args, **kwargs)

    monkeypatch.setattr(bibtex, "parse_bibtex", exhausted_on_refs)
    session = _index(tmp_path)
    assert _codes(session, tmp_path / "refs.bib") == [Code.FILE_UNREADABLE.value]
    assert _codes(session, tmp_path / "other.bib") == []
    assert _codes(session, tmp_path / "main.tex") == []
