"""Where a bibliography's entries are (``BibIndex.bounds``): kept per version, carried over
an edit for the entries it did not touch, and what the readings of comments look up
instead of the entries themselves (an entry of a re-read file is made on first access)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.file_state import build_bib_index
from citewarden.parsing import entry_runs
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace, normalize_path

BIB = "".join(
    f"@misc{{k{i}, title={{Title {i} 50% off}}, url={{http://x.org/a%20{i}}}}}\n% note {i}\n"
    for i in range(60)
)
#: (old, new), applied one after the other
EDITS = [
    ("Title 30 ", "Title 30x "),  # an entry grows: those after it move
    ("@misc{k10,", "@misc{k10b,"),
    ("% note 20\n", ""),  # a comment goes: an entry moves up
    ("@misc{k40,", "% @misc{k40,"),  # an entry commented out
    ("% @misc{k40,", "@misc{k40,"),
    ("@misc{k59,", "@misc{k58b, title={Added}}\n@misc{k59,"),  # one more entry
    ("Title 0 ", "T "),  # at the start
    ("% note 59\n", "% note 59 longer\n"),  # after the last entry
]


def _direct(text: str) -> tuple[list[int], list[int], list[str]]:
    entries = parse_bibtex(Path("/p/refs.bib"), text).entries
    return (
        [e.span.start for e in entries],
        [e.span.end for e in entries],
        [e.key for e in entries],
    )


@pytest.mark.parametrize("every_version", [True, False])
def test_the_bounds_carried_over_an_edit_are_those_of_each_entry(
    tmp_path: Path, every_version: bool
) -> None:
    (tmp_path / "refs.bib").write_text(BIB)
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    path = normalize_path(tmp_path / "refs.bib")
    index = ws.bib_index(path)
    assert index is not None
    index.bounds()
    text = BIB
    for n, (old, new) in enumerate(EDITS):
        assert old in text, old
        text = text.replace(old, new, 1)
        ws.set_text(path, text)
        if every_version or n % 2:  # else a version nobody asked for its bounds
            index = ws.bib_index(path)
            assert index is not None
            starts, ends, keys = index.bounds()
            assert (list(starts), list(ends), list(keys)) == _direct(text), old
            assert index.bounds().starts is starts  # once per version
    fresh = build_bib_index(parse_bibtex(path, text), text)
    assert tuple(map(list, fresh.bounds())) == _direct(text)


def _entries_made_by_a_check_after_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, comments: int
) -> int:
    """How many entries of the re-read bibliography a check after a title edit looks up."""
    d = tmp_path / f"{kind}-{comments}"
    d.mkdir()
    bib = "".join(
        f"@misc{{k{i}, title={{Title {i} 50% off}}}}\n" + ("% note\n" if i < comments else "")
        for i in range(400)
    )
    (d / "refs.bib").write_text(bib)
    if kind == "md":
        (d / "doc.md").write_text("---\nbibliography: refs.bib\n---\n\n[@k1] [@k2]\n")
    else:
        (d / "main.tex").write_text(
            "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
            "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{k1}\n"
            "\\printbibliography\n\\end{document}\n"
        )
    ws = Workspace(root=d)
    ws.add_folder(d)
    check(ws)
    calls = 0
    entry = entry_runs.EntryRuns._entry

    def counting(self: entry_runs.EntryRuns, i: int) -> object:
        nonlocal calls
        calls += 1
        return entry(self, i)

    with monkeypatch.context() as patch:
        patch.setattr(entry_runs.EntryRuns, "_entry", counting)
        ws.set_text(normalize_path(d / "refs.bib"), bib.replace("Title 200 ", "Title 200x ", 1))
        check(ws)
    return calls


@pytest.mark.parametrize("kind", ["md", "tex"])
def test_the_comments_of_a_bibliography_cost_no_entry_look_ups(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """A ``%`` line between each two entries (pandoc and biber read them as comments) makes
    a check after an edit look up no more entries than a file without them: the readings
    bisect the entries' starts (two look-ups of a made entry per comment before, about
    15 000 for these 400 comments)."""
    without = _entries_made_by_a_check_after_an_edit(tmp_path, monkeypatch, kind, 0)
    with_comments = _entries_made_by_a_check_after_an_edit(tmp_path, monkeypatch, kind, 400)
    assert without > 0  # the re-read bibliography is one of moved entries
    assert with_comments <= without + 40, (with_comments, without)
