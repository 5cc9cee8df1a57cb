"""The keys a BibTeX project defines in a .bib file with syntax errors: BibTeX resumes at
the next ``@`` wherever it is, and reads ``@misc(work)`` as the key ``work)``.  Each
expected reading here was checked with BibTeX 0.99d ("I didn't find a database entry
for"); tests/differential_bibtex_errors.py compares generated files with pdflatex + BibTeX."""

from __future__ import annotations

from pathlib import Path

import pytest

import differential_bibtex_errors
import differential_comments
from checking import check
from citewarden.model import Code, Finding
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.bibtex_last_line import _Reader
from citewarden.parsing.bibtex_recovery import (
    BibtexKeys,
    bibtex_keys,
    differing_at,
    differs_at,
)
from citewarden.project import Workspace, normalize_path

PATH = Path("refs.bib")


def reading(text: str) -> BibtexKeys:
    entries = parse_bibtex(PATH, text).entries
    return bibtex_keys(text, entries, [e.key for e in entries])


@pytest.mark.parametrize(
    ("text", "unread", "added"),
    [
        # the key of a parenthesised entry runs to a comma or white space; BibTeX then
        # looks for a comma on the next line, the last one, and reads nothing more
        ("@misc(work)\n@misc{b, title={B}}\n", {"work", "b"}, {"work)"}),
        ("@misc(a, title={x})\n@misc{b, title={B}}\n", set(), set()),
        # after an error, the next @ is the one inside the broken entry's field
        (
            "@misc{a, title={X} note={see @misc{b, title={Y}}}}\n@misc{c, title={C}}\n",
            set(),
            {"b"},
        ),
        ("@misc{a, title={X} note={me@misc{b, c}}}\n@misc{c, title={C}}\n", set(), {"b"}),
        # an entry never closed: BibTeX reads the next line's @ as an error in it, there,
        # the file's last line, and stops
        ("@misc{a, title={X}, year=2000\n@misc{b, title={B}}\n", {"b"}, set()),
        ("@misc{a, title={X}\n@misc{b, title={B}}\n@misc{c, title={C}}\n", set(), set()),
        # two entries on a line after an error, an @ in a URL after one: both read
        (
            "@misc{a, title={X} year={2000}} @misc{b, title={B}}\n@misc{c, title={C}}\n",
            set(),
            set(),
        ),
        ("@misc{a, title={X} url={https://medium.com/@u/p}}\n@misc{b, title={B}}\n", set(), set()),
        # % is no comment for BibTeX: an error, and the entry after it is read
        (
            "@misc{a, title={A},\n  %@misc{old, x}\n  year=2000}\n@misc{b, title={B}}\n",
            set(),
            {"old"},
        ),
        ("@@misc{a, title={A}}\n@misc{b, title={B}}\n", set(), set()),
        # a type the reader takes for text is an entry's for BibTeX
        ("@\\misc{a, title={A}}\n@misc{b, title={B}}\n", set(), {"a"}),
        ("@\u00e9misc{a, title={A}}\n@misc{b, title={B}}\n", set(), {"a"}),
        # the last line: only its first block
        ("@misc{a, title={X}}\n@misc{b, title={B}} junk @misc{c, title={C}}\n", {"c"}, set()),
    ],
)
def test_bibtex_resumes_at_the_next_at_sign(text: str, unread: set[str], added: set[str]) -> None:
    found = reading(text)
    assert (found.unread, found.added) == (unread, added)


def test_an_entry_read_under_another_key_is_renamed() -> None:
    assert dict(reading("@misc{z, title={Z}}\n@misc(work)\n").renamed) == {1: "work)"}


@pytest.mark.parametrize(
    ("text", "complete", "expected"),
    [
        ("@misc{a, title={A}}\n", True, False),
        ("@misc{a, title={A}}\n", False, True),
        ("@misc{a, note={me@example.org}}\n", True, False),
        ("@misc(a, title={A})\n", True, False),
        ("@misc(a)\n", True, True),
        ("@ misc ( a)b, title={A})\n", True, True),
        ("@@misc{a, title={A}}\n", True, True),
        ("@misc{a,\n % me@example.org\n title={A}}\n", True, True),
        ("% old: @misc{a, title={A}}\n", True, False),
        ("@misc{a, title={A},\n% old: @misc{b, title={B}}\n}\n", True, True),
        ("@misc{a,\n % title={A}\n year=2000}\n", True, False),
        ("@\\string{a = {A}}\n", True, True),
        ("@\u00e9misc{a, title={A}}\n", True, True),
        ("@mis\u00e9c{a, title={A}}\n", True, False),
        ("@a(" * 1000, True, False),
    ],
)
def test_which_files_are_read_again(text: str, complete: bool, expected: bool) -> None:
    """The files BibTeX's reading runs on in full: a syntax error, or a reading BibTeX does
    otherwise without one (an ``@`` after ``%`` only inside an entry)."""
    entries = parse_bibtex(PATH, text).entries
    starts = [e.span.start for e in entries]
    ends = [e.span.end for e in entries]
    read_again = not complete or differs_at(text, differing_at(text), starts, ends)
    assert read_again is expected


def test_a_large_file_with_errors_is_read_whole() -> None:
    """40 000 lines, every tenth entry without its comma before ``year``."""
    lines = []
    for i in range(8000):
        comma = "" if i % 10 == 3 else ","
        lines.append(
            f"@misc{{k{i},\n  title = {{T {i}}}{comma}\n  year = 2000,\n  note = {{x}}\n}}"
        )
    text = "\n".join(lines) + "\n@misc(last)\n"
    found = reading(text)
    assert found.unread == {"last"}
    assert found.added == {"last)"}


def test_the_fast_lane_reads_what_the_scanner_reads() -> None:
    """Whole well-formed entries in one match each, before the last line: the same blocks
    as token by token, on generated files with and without errors."""
    texts = [differential_bibtex_errors.errors_case(seed).files["refs.bib"] for seed in range(300)]
    for seed in range(0, 1500, 3):
        cases = [differential_comments.reader_case(seed + k) for k in range(3)]
        texts.append("\n".join(c.files["refs.bib"] for c in cases) + "\n@misc{z, t={x}}\n")
    for text in texts:
        assert _Reader(text, 0).run() == _Reader(text, 0, fast=False).run(), text


def test_the_fast_lane_reads_the_usual_entries() -> None:
    text = (
        '@Article{k1,\n  author = {A. {\\"U}ber and B. Other},\n  title = "On {X}",\n'
        "  journal = jan # { J.},\n  year = 2000,\n}\n"
        "@misc{k2, url={https://medium.com/@user/p}, note = {me@example.org}}\n"
        "@misc{k3, title={T}}\n"
    )
    reader = _Reader(text, 0)
    reader.entries()
    assert [key for _, key in reader.found] == ["k1", "k2"]  # k3: the last line


# -- what a project defines ------------------------------------------------------------------

MAIN = (
    "\\documentclass{article}\n\\begin{document}\n\\nocite{KEYS}\n"
    "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
)
BIBLATEX = (
    "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
    "\\addbibresource{refs.bib}\n\\begin{document}\n\\nocite{KEYS}\n\\end{document}\n"
)


def _workspace(folder: Path, bib: str, keys: list[str], main: str = MAIN) -> Workspace:
    (folder / "main.tex").write_text(main.replace("KEYS", ",".join(keys)), encoding="utf-8")
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    return ws


def _keys(findings: dict[Path, list[Finding]], code: Code) -> set[str]:
    return {str(f.data["key"]) for fs in findings.values() for f in fs if f.code is code}


BIB = (
    "@misc{a, title={X} note={see @misc{b, title={Y}}}}\n"
    "@misc(work)\n\n"
    "@misc{c, title={C}}\n"
    "@misc{d, title={D}}\n"
)


def test_a_bibtex_project_defines_the_keys_bibtex_reads(tmp_path: Path) -> None:
    found = check(_workspace(tmp_path, BIB, ["a", "b", "work)", "work", "c", "D"]))
    assert _keys(found, Code.DANGLING) == {"work"}
    # the entry read as work) is cited: no orphan
    assert _keys(found, Code.ORPHAN) == set()


def test_an_uncited_renamed_entry_is_an_orphan(tmp_path: Path) -> None:
    found = check(_workspace(tmp_path, BIB, ["a", "b", "c", "d"]))
    assert _keys(found, Code.ORPHAN) == {"work"}


def test_a_biber_project_reads_its_own_way(tmp_path: Path) -> None:
    """Not as BibTeX recovers: biber stops on the syntax error (a missing comma, a key
    without one) and reads no entry of the file, as biber 2 does on this file."""
    found = check(_workspace(tmp_path, BIB, ["a", "work", "c", "d"], BIBLATEX))
    assert _keys(found, Code.DANGLING) == {"a", "work", "c", "d"}
    messages = [f.message for fs in found.values() for f in fs if f.code is Code.DANGLING]
    assert all("biber reads no entry of 'refs.bib'" in m for m in messages), messages


#: edits of the .bib of a BibTeX project, one after the other: (old, new)
EDITS = [
    ("@misc(work)", "@misc(work, title={W})"),
    ("title={W})", "title={W}"),  # never closed: BibTeX resumes at the @ of c
    ("title={W}", "title={W})"),
    ("title={X} note", "title={X}, note"),  # no error: b is a note
    ("title={X}, note", "title={X} note"),
    ("@misc{c, title={C}}", "@misc{c, title={C} year=1}"),
    ("@misc(work, title={W})", "@misc(work)"),
]


def test_edits_give_the_findings_of_a_fresh_check(tmp_path: Path) -> None:
    keys = ["a", "b", "work)", "work", "c", "d"]
    folder = tmp_path / "edited"
    folder.mkdir()
    bib = BIB
    ws = _workspace(folder, bib, keys)
    check(ws)
    for n, (old, new) in enumerate(EDITS):
        assert old in bib, n
        at = bib.index(old)
        unchanged = (at, len(bib) - at - len(old))
        bib = bib.replace(old, new, 1)
        ws.set_text(normalize_path(folder / "refs.bib"), bib, unchanged=unchanged)
        fresh = tmp_path / f"fresh{n}"
        fresh.mkdir()
        expected = check(_workspace(fresh, bib, keys))
        got = check(ws)
        for code in (Code.DANGLING, Code.ORPHAN):
            assert _keys(got, code) == _keys(expected, code), (n, code, bib)
