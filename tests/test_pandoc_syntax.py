"""What pandoc cannot read in a .bib file, checked against pandoc itself: each case makes
``pandoc --citeproc`` stop with an error (or skip an entry), and citewarden says where, in
a Markdown project; the controls pandoc reads get no finding."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding, Severity
from citewarden.parsing.bibtex import parse_bibtex, reparse_bibtex
from citewarden.parsing.pandoc_syntax import (
    PANDOC_2,
    PANDOC_3,
    PANDOC_3_9,
    PandocDialect,
    read_again,
    read_as_pandoc,
)
from citewarden.project import Workspace
from citewarden.settings import Settings

GOOD = "@misc{good, title={Good}}\n"
#: .bib text after the good entry -> the text the finding underlines (None: pandoc reads it)
CASES: dict[str, str | None] = {
    # parentheses
    "@article(paren, title={P})\n": "@article(",
    "@string(foo = {Foo})\n": "@string(",
    '@preamble ("x")\n': "@preamble (",
    "@comment(hello)\n@comment{50% off}\n": None,
    # % starts a comment in a quoted value, between fields, in a key, at top level
    '@misc{pq, title="50% off"}\n': "%",
    '@misc{pq, title="a\\\\%b"}\n': "%",
    '@string{foo = "50% off"}\n': "%",
    "@misc{k%y, title={X}}\n": "%",
    '@misc{pb, title={50% braced}, note="50\\% " # "{60%}", x="a % b\n"}\n': None,
    "50% jane@example.org\n% contact x@y.org\n@misc{p1, title={X}} % trailing\n": None,
    "% the end": "%",
    # keys
    "@misc{k~y, title={X}}\n": "~",
    '@misc{k"q, title={X}}\n': '"',
    "@misc{Mu\u0308ller, title={X}}\n": "\u0308",
    "@misc{nofields}\n": "}",
    "@misc{, title={X}}\n": "@misc{",
    "@misc{k(p), title={X}}\n@misc{k=e,}\n@misc{d'A, x={}}\n@misc{Müller$&, title={X}}\n": None,
    # entry types, field names, values, braces
    "@misc1{sp, title={X}}\n": "@misc1",
    "@misc\u00b2{sp, title={X}}\n": "@misc\u00b2",
    "@m\u00efsc{sp, title={X}}\n": None,
    "@misc{sp, title.x={X}}\n": ".",
    "@misc{sp, url=http://x}\n": "/",
    "@misc{sp, title={\\}}\n": "\\}",
    '@misc\n{sp, title={X}, }\n@string{foo = {Foo}}\n@misc{sf, title=foo # " x" # 1}\n': None,
    # an '@' outside the entries; a comment never closed
    "Maintained by jane.doe@example.org\n": "@",
    "@@misc{dbl, title={D}}\n": "@",
    "foo @ bar\n": "@",
    "@comment{ never closed\n@misc{b, title={B}}\n": "@comment{",
    "@comment hello @misc{b, title={B}}\n@xdata{xd, title={X}}\n": None,
}


def _pandoc_reads(directory: Path) -> tuple[bool, str]:
    """Whether ``pandoc --citeproc`` reads the bibliography of ``doc.md``, and its errors."""
    if shutil.which("pandoc") is None:
        pytest.fail("pandoc is needed", pytrace=False)
    run = subprocess.run(
        ["pandoc", "--citeproc", "-t", "plain", "doc.md"],
        cwd=directory,
        capture_output=True,
        timeout=120,
        check=False,
    )
    return run.returncode == 0, run.stderr.decode(errors="replace")


def _project(directory: Path, bib: str, cites: str = "good", latex: bool = False) -> None:
    (directory / "refs.bib").write_bytes(bib.encode("utf-8"))
    (directory / "doc.md").write_text(
        f"---\nbibliography: refs.bib\n---\n\nSee [@{cites}].\n", encoding="utf-8"
    )
    if latex:
        (directory / "doc.md").unlink()
        (directory / "main.tex").write_text(
            "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
            "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{good}\n\\end{document}\n",
            encoding="utf-8",
        )


def _findings(directory: Path) -> dict[Path, list[Finding]]:
    ws = Workspace(Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        ws.add_file(path)
    return check(ws)


def _syntax(directory: Path) -> list[str]:
    text = (directory / "refs.bib").read_bytes().decode("utf-8")
    return [
        text[f.location.span.start : f.location.span.end]
        for f in _findings(directory).get(directory / "refs.bib", [])
        if f.code is Code.BIB_SYNTAX
    ]


@pytest.mark.parametrize("rest", list(CASES))
def test_what_pandoc_rejects_is_reported_in_a_markdown_project(tmp_path: Path, rest: str) -> None:
    _project(tmp_path, GOOD + rest)
    rejected = CASES[rest]
    reads, errors = _pandoc_reads(tmp_path)
    assert reads is (rejected is None), errors
    assert _syntax(tmp_path) == ([] if rejected is None else [rejected])


def test_a_comment_in_a_file_of_carriage_returns_is_never_closed(tmp_path: Path) -> None:
    _project(tmp_path, (GOOD + "% a comment\n@misc{b, title={B}}\n").replace("\n", "\r"))
    reads, _ = _pandoc_reads(tmp_path)
    assert not reads
    assert _syntax(tmp_path) == ["%"]
    # line feeds after the carriage returns: pandoc reads it
    _project(tmp_path, (GOOD + "% a comment\n@misc{b, title={B}}\n").replace("\n", "\r\n"))
    assert _pandoc_reads(tmp_path)[0]
    assert _syntax(tmp_path) == []


def test_an_entry_pandoc_skips_is_reported_and_its_citation_dangles(tmp_path: Path) -> None:
    _project(tmp_path, GOOD + "@commentary{cy, title={C}}\n@misc{after, title={A}}\n", "cy")
    reads, errors = _pandoc_reads(tmp_path)
    assert reads and "citation cy not found" in errors, errors
    found = _findings(tmp_path)
    assert [f.message for f in found[tmp_path / "refs.bib"] if f.code is Code.BIB_SYNTAX] == [
        "pandoc skips this entry: it reads '@commentary' as the word @comment and skips the "
        "text after it up to the next '@', so a citation of 'cy' is not found in a pandoc "
        "document"
    ]
    assert _syntax(tmp_path) == ["@commentary"]
    assert [f.code for f in found[tmp_path / "doc.md"]] == [Code.DANGLING]


def test_the_message_says_what_pandoc_does(tmp_path: Path) -> None:
    _project(tmp_path, GOOD + "@article(paren, title={P})\n")
    (finding,) = [
        f for f in _findings(tmp_path)[tmp_path / "refs.bib"] if f.code is Code.BIB_SYNTAX
    ]
    assert finding.message == (
        "pandoc cannot read this file: '@article(': pandoc reads an entry, @string and "
        "@preamble only in braces (pandoc --citeproc stops with an error, and no citation "
        "of the document is found)"
    )


def test_a_syntax_error_citewarden_reports_gets_no_second_finding(tmp_path: Path) -> None:
    _project(tmp_path, GOOD + "@misc{sp, title = {X} note={Y}}\n@misc{b, title={B}}\n")
    assert not _pandoc_reads(tmp_path)[0]
    found = [f for f in _findings(tmp_path)[tmp_path / "refs.bib"] if f.code is Code.BIB_SYNTAX]
    assert [f.message.startswith("pandoc") for f in found] == [False]


def test_a_latex_project_reads_such_files_without_a_pandoc_finding(tmp_path: Path) -> None:
    rejected = "".join(rest for rest, place in CASES.items() if place and "%" not in place)
    _project(tmp_path, GOOD + rejected + "@commentary{cy, title={C}}\n", latex=True)
    assert not any(
        f.message.startswith("pandoc") for fs in _findings(tmp_path).values() for f in fs
    )


def test_each_place_is_reported_reading_on_at_the_next_entry() -> None:
    text = (
        "@misc{a, title={A}}\n"
        "@article(b, title={B})\n"
        "@misc{c, url = http://c.org}\n"
        "@misc{d, title={D}}\n"
        '@misc{e, note = "50% off"}\n'
    )
    reading = read_as_pandoc(text, parse_bibtex(Path("refs.bib"), text).entries)
    assert [text[s.start : s.end] for s, _, _ in reading.rejections] == ["@article(", "/", "%"]


_PIECES = (
    "%",
    '"',
    "{",
    "}",
    "\\}",
    "@",
    "(",
    ",",
    "\n",
    "\r",
    "x",
    " # ",
    "@commentary{c,",
    "@comment ",
)


@pytest.mark.parametrize("dialect", [PANDOC_2, PANDOC_3, PANDOC_3_9], ids=lambda d: d.name)
@pytest.mark.parametrize("seed", range(6))
def test_reading_again_after_an_edit_equals_reading_the_whole_file(
    seed: int, dialect: PandocDialect
) -> None:
    rnd = random.Random(seed)
    paths = sorted(Path(__file__).parent.joinpath("data", "bibs").rglob("*.bib"))
    text = rnd.choice(paths).read_text(encoding="utf-8", errors="replace")[:20_000]
    text += '@misc{q, note = "50% off"}\n@misc{r, title = {\\}}}\n' if seed % 2 else ""
    bib = parse_bibtex(Path("refs.bib"), text)
    reading = read_as_pandoc(text, bib.entries, dialect=dialect)
    for _ in range(40):
        at = rnd.randrange(len(text) + 1)
        cut = rnd.choice((0, 0, 1, rnd.randrange(40)))
        new = text[:at] + rnd.choice(_PIECES) * rnd.randint(0, 2) + text[at + cut :]
        new_bib = reparse_bibtex(bib, text, new)
        again = read_again(new, new_bib, (bib.entries, len(text), reading), dialect)
        assert again == read_as_pandoc(new, new_bib.entries, dialect=dialect)
        text, bib, reading = new, new_bib, again


_ENTRY = "@book{a, title={Caf\u00e9}, author={X, Y}, year=2000}\n"
#: bibliographies pandoc reads as UTF-8 only: case -> (file name, bytes, whether pandoc reads it)
ENCODINGS: dict[str, tuple[str, bytes, bool]] = {
    "latin-1": ("refs.bib", _ENTRY.encode("latin-1"), False),
    "utf-16": ("refs.bib", _ENTRY.encode("utf-16"), False),
    "utf-16-le-without-bom": ("refs.bib", _ENTRY.encode("utf-16-le"), False),
    "csl-json-latin-1": (
        "refs.json",
        '[{"id": "a", "type": "book", "title": "Caf\u00e9"}]'.encode("latin-1"),
        False,
    ),
    "csl-yaml-latin-1": (
        "refs.yaml",
        "references:\n- id: a\n  type: book\n  title: Caf\u00e9\n".encode("latin-1"),
        False,
    ),
    # pandoc reads these
    "utf-8-with-bom": ("refs.bib", b"\xef\xbb\xbf" + _ENTRY.encode("utf-8"), True),
    "a-nul-in-a-value": ("refs.bib", b"@book{a, title={A\x00B}, year=2000}\n", True),
}


def _encoding_project(directory: Path, name: str, data: bytes) -> list[Finding]:
    (directory / name).write_bytes(data)
    (directory / "doc.md").write_text(
        f"---\nbibliography: {name}\n---\n\nSee [@a].\n", encoding="utf-8"
    )
    return [f for f in _findings(directory)[directory / name] if f.code is Code.FILE_ENCODING]


@pytest.mark.parametrize("case", list(ENCODINGS))
def test_a_bibliography_that_is_not_utf8_stops_pandoc_and_the_finding_says_so(
    tmp_path: Path, case: str
) -> None:
    name, data, readable = ENCODINGS[case]
    found = _encoding_project(tmp_path, name, data)
    reads, errors = _pandoc_reads(tmp_path)
    assert reads is readable, errors
    stops = [f for f in found if "pandoc --citeproc" in f.message]
    if readable:
        assert stops == []
        return
    assert len(stops) == 1, [f.message for f in found]
    assert stops[0].message.endswith(
        "pandoc --citeproc reads a bibliography as UTF-8 only and stops at this file with an "
        + ("error (\"Cannot decode byte '\\xe9'\")" if case == "latin-1" else "error")
        + ": it writes no document, and no citation is resolved"
    )
    assert stops[0].effective_severity is Severity.ERROR
    if case == "latin-1":
        assert "Cannot decode byte '\\xe9'" in errors


def test_a_latex_project_gets_no_word_of_pandoc_on_the_encoding(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_bytes(_ENTRY.encode("latin-1"))
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{a}\n\\bibliographystyle{plain}\n"
        "\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    (finding,) = [
        f for f in _findings(tmp_path)[tmp_path / "refs.bib"] if f.code is Code.FILE_ENCODING
    ]
    assert "pandoc" not in finding.message


def test_a_document_that_is_not_utf8_is_read_by_pandoc_as_latin1(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(_ENTRY, encoding="utf-8")
    (tmp_path / "doc.md").write_bytes(
        "---\nbibliography: refs.bib\n---\n\nCaf\u00e9 [@a].\n".encode("latin-1")
    )
    reads, errors = _pandoc_reads(tmp_path)
    assert reads and "not UTF-8 encoded: falling back to latin1" in errors, errors
    (finding,) = [
        f for f in _findings(tmp_path)[tmp_path / "doc.md"] if f.code is Code.FILE_ENCODING
    ]
    assert "pandoc" not in finding.message
