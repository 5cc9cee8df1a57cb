"""Lines end at ``\\r\\n``, ``\\n`` and a lone ``\\r`` (old Mac files), as the Language Server
Protocol says, and nowhere else: in the line index, its helpers, the suppression comments'
lines and the command line's positions."""

from __future__ import annotations

import json
import re
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checking import check
from citewarden.findings.policy import Policy
from citewarden.fix.plan import plan_fix
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace, normalize_path
from citewarden.text import (
    LineIndex,
    Position,
    count_line_breaks,
    has_lone_cr,
    line_content_end,
    line_ending,
    line_start_before,
    next_line_start,
    split_lines,
)
from cli_process import run_citewarden

TEXTS = st.text(st.sampled_from(list("ab\r\n\x0b\x0c\x85\u2028")), max_size=40)


def _starts(text: str) -> list[int]:
    """Line starts, the reference way: after each ``\\r\\n``, ``\\r`` or ``\\n``."""
    return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]


def test_a_lone_cr_ends_a_line_as_lf_and_crlf_do() -> None:
    text = "a\rbb\r\nccc\nd"
    index = LineIndex(text)
    assert index.line_count == 4
    for offset, pos in [(0, (0, 0)), (2, (1, 0)), (6, (2, 0)), (10, (3, 0)), (11, (3, 1))]:
        assert index.position(offset) == Position(*pos)
        assert index.offset(Position(*pos)) == offset
    assert [index.line_end(n) for n in range(4)] == [1, 4, 9, 11]
    assert index.offset(Position(0, 5)) == 1  # clamped before the line break
    assert index.position(5) == Position(1, 3)  # between \r and \n: still line 1


def test_other_unicode_line_separators_do_not_end_a_line() -> None:
    """``str.splitlines`` splits at these; the protocol does not."""
    text = "a\x0bb\x0cc\x1cd\x1de\x1ef\x85g\u2028h\u2029i"
    assert LineIndex(text).line_count == 1
    assert count_line_breaks(text) == 0
    assert split_lines(text) == [text]


@settings(max_examples=300, deadline=None)
@given(TEXTS)
def test_helpers_agree_with_the_reference_line_starts(text: str) -> None:
    starts = _starts(text)
    index = LineIndex(text)
    assert [index.line_start(n) for n in range(index.line_count)] == starts
    assert "".join(split_lines(text)) == text
    lone = [m.start() for m in re.finditer(r"\r(?!\n)", text)]
    assert has_lone_cr(text) == bool(lone)
    for a in range(len(text) + 1):
        for b in range(a, len(text) + 1):
            assert has_lone_cr(text, a, b) == any(a <= at < b for at in lone)
    assert len(split_lines(text)) == len(starts) - (starts[-1] == len(text))
    for n, start in enumerate(starts):
        end = index.line_end(n)
        assert line_content_end(text, start) == end
        assert "\r" not in text[start:end] and "\n" not in text[start:end]
    for offset in range(len(text) + 1):
        line = sum(1 for s in starts if 0 < s <= offset)
        assert index.line_of(offset) == count_line_breaks(text, 0, offset) == line
        assert line_start_before(text, offset) == starts[line]
        floor = starts[max(0, line - 1)]
        assert line_start_before(text, offset, floor) == starts[line]
        assert count_line_breaks(text, floor, offset) == line - max(0, line - 1)
        later = [s for s in starts if s > offset]
        assert next_line_start(text, offset) == (later[0] if later else -1)


def test_the_line_index_of_a_file_of_blank_lines_stays_small() -> None:
    """A line a byte (a hostile file of line breaks): 8 bytes a line start, not a Python
    int in a list (36 bytes), so a 32 MB file of them does not take a gigabyte."""
    text = "\n" * 1_000_000
    tracemalloc.start()
    try:
        index = LineIndex(text)
        kept, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert index.line_count == 1_000_001 and index.line_start(1_000_000) == 1_000_000
    assert kept < 12 * 1_000_000, kept


def test_line_ending_is_the_first_line_break() -> None:
    assert line_ending("a\r\nb\nc") == "\r\n"
    assert line_ending("a\rb\r\n") == "\r"
    assert line_ending("a\nb\r\n") == "\n"
    assert line_ending("abc") == "\n"
    assert line_ending("abc", "\r") == "\r"


# ---------------------------------------------------------------------------------------
# through the checks and the command line
# ---------------------------------------------------------------------------------------

MAIN = [
    r"\documentclass{article}",
    r"\begin{document}",
    r"See \cite{knuth1984}",
    r"and \cite{knuht1984}.",
    r"\bibliography{refs}",
    r"\end{document}",
    "",
]
REFS = [
    "@book{knuth1984, title={The TeXbook}, year={1984}}",
    "",
    "@book{lamport1994,",
    "  title={LaTeX},",
    "  year={1994}}",
    "",
]


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"])
def test_command_line_positions_count_every_kind_of_line_break(
    tmp_path: Path, newline: str
) -> None:
    (tmp_path / "main.tex").write_bytes(newline.join(MAIN).encode())
    (tmp_path / "refs.bib").write_bytes(newline.join(REFS).encode())
    result = run_citewarden(["check", "main.tex", "--no-verify", "--format", "json"], tmp_path)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    found = {
        (d["file"], d["code"]): (d["line"], d["column"], d["end_line"], d["end_column"])
        for d in report["diagnostics"]
    }
    assert found == {
        ("main.tex", "dangling-citation"): (4, 11, 4, 20),
        ("refs.bib", "orphan-entry"): (3, 7, 3, 18),
    }
    text = run_citewarden(["check", "main.tex", "--no-verify"], tmp_path)
    assert text.stdout.splitlines()[0].startswith("main.tex:4:11: error dangling-citation")


@pytest.mark.parametrize("newline", ["\r", "\r\n"])
def test_an_ignore_comment_silences_its_own_line_and_the_next(tmp_path: Path, newline: str) -> None:
    """The suppressed lines are counted as the positions are: in a CR-only file the comment
    on line 3 silenced lines 1 and 2 (the whole file, read as one line)."""
    (tmp_path / "main.tex").write_bytes(
        newline.join(
            [
                r"\documentclass{article}",
                r"\begin{document}",
                r"\cite{a}",
                r"\bibliography{refs}",
                r"\end{document}",
                "",
            ]
        ).encode()
    )
    bib = ["@misc{a, title={A}}", "@misc{b, title={B}}", "% citewarden: ignore"]
    bib += ["@misc{c, title={C}}", "@misc{d, title={D}}", ""]
    (tmp_path / "refs.bib").write_bytes(newline.join(bib).encode())
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    shown = Policy(ws.settings, [tmp_path]).apply(ws, [f for fs in check(ws).values() for f in fs])
    assert sorted(f.data["key"] for f in shown if f.code.value == "orphan-entry") == ["b", "d"]
    refs = normalize_path(tmp_path / "refs.bib")
    parsed = ws.parsed(refs)
    assert parsed is not None and parsed.suppressed_lines == {2, 3}


def test_fixer_reports_the_line_of_a_change_in_a_cr_only_file(tmp_path: Path) -> None:
    text = "@misc{a, title={A}}\r\r@misc{k,\r  title = {T},\r  year = {2001}}\r"
    plan = plan_fix(parse_bibtex(tmp_path / "r.bib", text), text.encode(), {"k": {"year": "2002"}})
    (change,) = plan.changes
    assert change.line == 5
