"""A fork of the workspace is changed and checked while the original answers look-ups."""

from __future__ import annotations

from pathlib import Path

from citewarden.project import Workspace


def _workspace(tmp_path: Path) -> Workspace:
    (tmp_path / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n")
    ws = Workspace()
    ws.add_folder(tmp_path)
    return ws


def test_changes_to_a_fork_leave_the_original_as_it_was(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    bib = tmp_path / "refs.bib"
    assert ws.bib_index(bib) is not None and ws.bib_index(bib).keys == ["a"]  # type: ignore[union-attr]
    fork = ws.fork()
    fork.set_text(bib, "@misc{b, title = {B}}\n")
    fork.set_text(tmp_path / "other.bib", "@misc{c, title = {C}}\n")
    assert fork.bib_index(bib).keys == ["b"]  # type: ignore[union-attr]
    assert ws.bib_index(bib).keys == ["a"]  # type: ignore[union-attr]
    assert ws.buffer(bib) is None and tmp_path / "other.bib" not in ws.known_files()
    assert [p.name for p in ws.projects_of(tmp_path / "main.tex")[0].bibliographies] == ["refs.bib"]


def test_a_context_passed_on_in_a_fork_gives_it_new_parses(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text("\\input{macros}\n\\mycite{a}\n\\bibliography{refs}\n")
    (tmp_path / "macros.tex").write_text("% nothing yet\n")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n")
    ws = Workspace()
    ws.add_folder(tmp_path)
    ws.projects()
    before = ws.document(tmp_path / "main.tex")
    assert before is not None and [c.key for c in before.citations] == []
    fork = ws.fork()
    fork.set_text(tmp_path / "macros.tex", "\\newcommand{\\mycite}[1]{\\cite{#1}}\n")
    fork.projects()
    after = fork.document(tmp_path / "main.tex")
    assert after is not None and [c.key for c in after.citations] == ["a"]
    # the original's parse of main.tex is the one it had: nothing of the fork leaked in
    assert ws.document(tmp_path / "main.tex") is before
    assert [c.key for c in before.citations] == []


def test_a_fork_made_while_a_check_runs_looks_its_documents_up_itself(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    main = tmp_path / "main.tex"
    with ws.unchanged():
        (project,) = ws.projects_of(main)
        assert [c.key for _, d in ws.project_documents(project) for c in d.citations] == ["a"]
        fork = ws.fork()
    fork.set_text(main, "\\cite{b}\n\\bibliography{refs}\n")
    (changed,) = fork.projects_of(main)
    assert [c.key for _, d in fork.project_documents(changed) for c in d.citations] == ["b"]
    with fork.unchanged():  # and its own check span starts and ends with it
        assert [c.key for _, d in fork.project_documents(changed) for c in d.citations] == ["b"]
    assert fork._documents_of is None
