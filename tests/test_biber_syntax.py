"""What biber cannot read in a .bib file, checked against biber itself: each case makes
biber drop the whole file (no entry of it in the .bbl), and citewarden says where, in a
biber project; the controls biber reads get no finding."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from checking import check
from citewarden.checks import defined
from citewarden.model import Code
from citewarden.parsing import bib_comments
from citewarden.parsing.biber_syntax import (
    biber_key,
    biber_rejections,
    biber_renamed_keys,
    stray_at_signs,
)
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace
from citewarden.settings import Settings

MAIN = r"""\documentclass{article}
\usepackage[backend=%s]{biblatex}
\addbibresource{refs.bib}
\begin{document}
\cite{good}
\printbibliography
\end{document}
"""
GOOD = "@misc{good, title={Good}}\n"
#: .bib text after the good entry -> the text the finding underlines (None: biber reads it)
CASES: dict[str, str | None] = {
    "@misc{a=b, title={B}}\n": "a=b",
    "@article{d'Aspremont-1998, title={B}}\n": "d'Aspremont-1998",
    "@index{information}\n": "information",
    "@misc{c, note={see /\\char125x/}, title={C}}\n": "\\char125",
    # a field name that starts with a digit (BibTeX reads it)
    "@misc{c, 2title={x}, title={C}}\n": "2title",
    "@misc{c, title={a, 2x = y}}\n": None,
    "@misc{x~y, title={C}}\n": None,
    # btparse skips an apostrophe with the character after it: a comma there is lost
    "@misc{x', title={B}}\n": "x'",
    "@misc{x'é, title={B}}\n": "x'é",
    "@misc{x''', title={B}}\n": "x'''",
    # a '%' starts a comment for btparse, in a key too
    "@misc{a%b, title={B}}\n": "a%b",
    # an "@" outside the entries starts one for biber (BibTeX skips to the next entry)
    "Maintained by jane.doe@example.org\n@misc{b, title={B}}\n": "@",
    "@comment This file by refs@lab.example.org\n@misc{b, title={B}}\n": "@",
    "foo @ bar\n@misc{b, title={B}}\n": "@",
    "call @2000 x\n": "@",
    "see 50% jane@example.org\n": "@",
    "% @misc{c,\n  note = {jane@example.org},\n}\n": "@",
    "@\n": "@",
    # ... unless a % comment hides it, an entry's "@" follows, or it ends the file
    "% contact jane.doe@example.org\n  % x@y.org\n@misc{b, title={B}}\nx % z@w.org": None,
    "@@misc{c, title={C}}\nfoo @\n@misc{d, title={D}}\n": None,
    # an entry without a key; a comment block never closed (to the end of the file)
    "@Manual{, title={Empty}}\n@misc{b, title={B}}\n": "@Manual{",
    "@comment{ never closed\n@misc{b, title={B}}\n": "@comment{",
    "@misc{b, title={B}}\n@COMMENT ( x (y) z\n": "@COMMENT (",
    "@comment{x@y.org}\n@comment(a (b) c@d.org)\n@string{me={e@f.org}}\n": None,
    '@misc(c, title={C (x)}, note={e@f.org})\n@preamble{"x@y"}\nthe end @': None,
}
_ENTRY = re.compile(r"\\entry\{([^}]*)\}")


def _biber_entries(directory: Path) -> set[str]:
    for cmd in (
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        ["biber", "main"],
    ):
        subprocess.run(cmd, cwd=directory, capture_output=True, timeout=120, check=False)
    bbl = directory / "main.bbl"
    return set(_ENTRY.findall(bbl.read_text(errors="replace"))) if bbl.exists() else set()


def _syntax_findings(directory: Path) -> list[str]:
    ws = Workspace(Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        if path.suffix in (".tex", ".bib"):
            ws.add_file(path)
    text = (directory / "refs.bib").read_text(encoding="utf-8")
    return [
        text[f.location.span.start : f.location.span.end]
        for f in check(ws).get(directory / "refs.bib", [])
        if f.code is Code.BIB_SYNTAX
    ]


@pytest.mark.parametrize("rest", list(CASES))
def test_what_biber_rejects_is_reported_in_a_biber_project(tmp_path: Path, rest: str) -> None:
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    (tmp_path / "main.tex").write_text(MAIN % "biber", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(GOOD + rest, encoding="utf-8")
    rejected = CASES[rest]
    entries = _biber_entries(tmp_path)
    assert ("good" in entries) is (rejected is None), entries
    assert _syntax_findings(tmp_path) == ([] if rejected is None else [rejected])


def test_a_bibtex_project_reads_such_files_without_a_finding(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(MAIN % "bibtex", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(GOOD + "".join(CASES), encoding="utf-8")
    assert _syntax_findings(tmp_path) == []


def test_a_stray_at_is_reported_on_it_with_what_biber_reads_there() -> None:
    text = (
        "Bibliography maintained by jane.doe@example.org\n\n"
        "@article{a, title={A}, year=2000}\n"
        "@comment This file by refs@lab.example.org\n"
    )
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert [(span.start, why) for span, why in stray_at_signs(text, entries)] == [
        (
            text.index("@example"),
            "'@' outside an entry: biber reads '@example.org' as the start of an entry, "
            "with no '{' or '(' after it",
        ),
        (
            text.index("@comment"),
            "@comment without '{' or '(' (BibTeX skips its line, biber does not)",
        ),
    ]


def test_a_key_biber_reads_as_another_is_reported_on_it(tmp_path: Path) -> None:
    """btparse skips an apostrophe or a backslash with the character after it wherever it
    stands, and reads the first name as the key: ``d'A`` is ``d`` to biber, ``'ef`` is
    ``f``, so ``\\cite{d'A}`` finds no entry."""
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    main = MAIN.replace("\\cite{good}", "\\nocite{*}")
    (tmp_path / "main.tex").write_text(main % "biber", encoding="utf-8")
    renamed = (
        "@misc{d'A, title={B}}\n@misc{ab'c'd, title={C}}\n@misc{x'=' , title={D}}\n"
        "@misc{'ef, title={E}}\n@misc{g\\h, title={G}}\n"
    )
    (tmp_path / "refs.bib").write_text(GOOD + renamed, encoding="utf-8")
    assert _biber_entries(tmp_path) == {"good", "d", "ab", "x", "f", "g"}
    assert _syntax_findings(tmp_path) == ["d'A", "ab'c'd", "x'='", "'ef", "g\\h"]
    text = GOOD + renamed
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert [biber_key(text, entry) for entry in entries] == ["good", "d", "ab", "x", "f", "g"]


def test_entries_biber_skips_are_not_checked_as_biber_reads_them() -> None:
    """An entry after a ``%`` on its line or in an ``@comment`` group is no entry to biber,
    whatever its key: no rejection and no renamed key there."""
    text = (
        "@misc{a, title={A}}\n% @misc{d'A, title={x}}\n% @misc{x title = {a}}\n"
        "@comment{@misc{y'z, title={T}}}\n@misc{b, title={B}}\n"
    )
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert {e.key for e in entries} >= {"a", "d'A", "x", "y'z", "b"}
    assert biber_rejections(text, entries) == []
    assert biber_renamed_keys(text, entries) == []


@pytest.mark.parametrize(
    "flagged", ["@misc{x'y, title={X}}\n", "@misc{x'y, title={X}}\n@index{i}\n"]
)
def test_biber_checks_find_the_skipped_text_once_a_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flagged: str
) -> None:
    """The keys biber renames or rejects are looked up among the entries it skips with the
    answer the defined keys are read with: the text biber skips is found once per version
    of the file (twice or three times before: once more by each check of the keys)."""
    (tmp_path / "main.tex").write_text(MAIN % "biber", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(GOOD + "% a note\n" + flagged, encoding="utf-8")
    calls = 0
    skipped_regions = bib_comments.skipped_regions

    def counting(*args: Any, **kwargs: Any) -> list[tuple[int, int, bool]]:
        nonlocal calls
        calls += 1
        return skipped_regions(*args, **kwargs)

    monkeypatch.setattr(bib_comments, "skipped_regions", counting)
    monkeypatch.setattr(defined, "skipped_regions", counting)
    assert _syntax_findings(tmp_path) != []
    assert calls == 1


#: .bib text -> the keys cited (biber's dangling ones are those it writes no entry for)
READINGS = {
    # a syntax error in one entry: biber drops the whole file
    "@misc{a, title={A}}\n@misc{b, title={B} author={x}}\n@misc{c, title={C}}\n": "a,b,c",
    "@misc{a, title={A}, ids={a2}}\n@misc{b, title={B},, year=1}\n": "a,a2,b",
    "@misc{a, title={A}}\n@misc{a=b, title={B}}\n": "a",
    # a key biber reads as another: a citation of the written key finds no entry
    "@misc{d'A, title={A}}\n@misc{x, title={X}}\n": "d'A,d,x",
    "@misc{a, title={A}}\n@misc{b, title={B}} junk\n": "a,b",
    # a bare number run on into name characters is a name (a macro) to btparse: no error
    "@misc{a, title={A}, pages=10-20}\n@misc{b, title={B}, year=2020a, note={x}}\n": "a,b",
    "@misc{a, title={A}, year=20.5}\n@misc{b, title={B}, year=2020 a}\n": "a,b",
    # a field after the brace that closes an entry is junk between entries to btparse
    "@misc{a, title={A}}, year=2000}\n@misc{b, title={B}}\n": "a,b",
    # a syntax error in an entry biber reads as a comment
    "@misc{a, title={A}}\n% @misc{x title = {a}}\n@comment{@misc{y, title={a} note={b}}}\n"
    "% @misc{z,\n  title = {a} note={b}}\n": "a",
    # a '%' comment inside an entry: BibTeX stops at it, btparse skips it
    "@misc{a,\n  title={A},\n  % note={x},\n  year=2000}\n@misc{b, title={B} % c\n}\n": "a,b",
    # ... but not when the comment holds the entry's closing brace
    "@misc{a, title={A}}\n@misc{b, title={B} %, note = {x}}\n": "a,b",
    # an '@' in a bare value is a name character to btparse (an undefined macro j@n)
    "@misc{a, title={A}, month = j@n}\n@misc{b, title={B}}\n": "a,b",
    # a ')' closes an entry opened with '{' for btparse (a warning), the rest is junk
    "@misc{a, title={A},)x = {1}}\n@misc{b, title={B}}\n": "a,b",
    "@misc{a, title={A})\n@misc{b, title={B}}\n": "a,b",
    "@misc{a, title=)\n@misc{b, title={B}}\n": "a,b",
    # an apostrophe in an entry type: btparse skips it with the letter after it
    "@articl'e{a, title={A}}\n@misc{b, title={B}}\n": "a,b",
    "@articl'e{x'y, title={A}}\n@misc{b, title={B}}\n": "x,x'y,b",
    "@'article{d, title={D}}\n@misc{b, title={B}}\n% @'article{p, title={P}}\n": "d,b,p",
    "@misc{b, title={B}}\n% @articl'e{p, title={P}}\n": "b,p",
    # ... where it reads a name after the type, or a key without a comma: an error
    "@art'icle{f, title={F}}\n@misc{b, title={B}}\n": "f,b",
    "@articl'e{e}\n@misc{b, title={B}}\n": "e,b",
    # a '%' comment between the type and the brace: btparse skips it, BibTeX stops there
    "@misc % x\n {q, title={Q}}\n@misc{b, title={B}}\n": "q,b",
    "@misc%x\r{q, title={Q}}\n@misc{b, title={B}}\n": "q,b",
    # '~' or '@' right after the type: btparse reads it into the type (an unknown one)
    "@misc~{q, title={Q}}\n@misc{b, title={B}}\n": "q,b",
    "@misc@{q, title={Q}}\n@misc{b, title={B}}\n": "q,b",
    # ... but after a blank it is a name where '{' or '(' should be: an error
    "@misc ~ {q, title={Q}}\n@misc{b, title={B}}\n": "q,b",
    # so '~', '@' or a letter past ASCII next to 'comment' or 'string' makes another type,
    # an entry whose key btparse cannot read: an error
    "@comment~{ @misc{q, title={Q}} }\n@misc{b, title={B}}\n": "q,b",
    "@@comment{ @misc{q, title={Q}} }\n@misc{b, title={B}}\n": "q,b",
    "@écomment{ @misc{q, title={Q}} }\n@misc{b, title={B}}\n": "q,b",
    "@string~{s = {S}}\n@misc{b, title={B}}\n": "b",
}


@pytest.mark.parametrize("bib", list(READINGS))
def test_the_keys_biber_reads_are_those_defined(tmp_path: Path, bib: str) -> None:
    """A citation is dangling in a biber project exactly where biber writes no entry for
    its key: none in a file with a syntax error (biber drops the file, BibTeX reads on), the
    key biber reads in place of one it reads as another."""
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    cited = READINGS[bib].split(",")
    main = MAIN.replace("\\cite{good}", f"\\cite{{{READINGS[bib]}}}")
    (tmp_path / "main.tex").write_text(main % "biber", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_folder(tmp_path)
    dangling = {
        str(f.data["key"]) for fs in check(ws).values() for f in fs if f.code is Code.DANGLING
    }
    assert dangling == set(cited) - _biber_entries(tmp_path)


@pytest.mark.parametrize("cited", ["d,x", "x"])
def test_an_entry_biber_reads_under_another_key_is_cited_under_it(
    tmp_path: Path, cited: str
) -> None:
    """``d'A`` is ``d`` to biber: ``\\cite{d}`` prints it, so it is no orphan; without
    the citation biber prints it not, and it is one."""
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    main = MAIN.replace("\\cite{good}", f"\\cite{{{cited}}}")
    (tmp_path / "main.tex").write_text(main % "biber", encoding="utf-8")
    (tmp_path / "refs.bib").write_text(
        "@misc{d'A, title={A}}\n@misc{x, title={X}}\n", encoding="utf-8"
    )
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_folder(tmp_path)
    orphans = {str(f.data["key"]) for fs in check(ws).values() for f in fs if f.code is Code.ORPHAN}
    printed = _biber_entries(tmp_path)
    assert orphans == ({"d'A"} if "d" not in printed else set())


#: a .bib file that is not UTF-8, and what the document says of its encoding
LATIN1 = "@misc{a, title={A}}\n@misc{b, title={Caf\u00e9}}\n".encode("latin-1")
ENCODINGS = {
    "nothing": ("", LATIN1),
    "inputenc latin1": ("\\usepackage[latin1]{inputenc}\n", LATIN1),
    "bibencoding": ("\\ExecuteBibliographyOptions{bibencoding=latin1}\n", LATIN1),
    "inputenc utf8": ("\\usepackage[utf8]{inputenc}\n", LATIN1),
    "commented bibencoding": ("% \\ExecuteBibliographyOptions{bibencoding=latin1}\n", LATIN1),
    "a latin-1 byte in a comment": ("", b"@misc{a, title={A}}\n% caf\xe9\n@misc{b, title={B}}\n"),
    "utf-8": ("", "@misc{a, title={A}}\n@misc{b, title={Caf\u00e9}}\n".encode()),
    "utf-32": ("", "@misc{a, title={A}}\n@misc{b, title={B}}\n".encode("utf-32")),
}


@pytest.mark.parametrize("name", list(ENCODINGS))
def test_a_bib_file_biber_cannot_decode_defines_nothing(tmp_path: Path, name: str) -> None:
    """biber decodes a .bib file as UTF-8 unless the document names another encoding
    (biblatex's bibencoding, or inputenc's, which bibencoding=auto takes): one byte that is
    not UTF-8 and it reads no entry of the file ("cannot be read in encoding 'utf8'")."""
    if shutil.which("pdflatex") is None or shutil.which("biber") is None:
        pytest.fail("pdflatex and biber are needed", pytrace=False)
    preamble, data = ENCODINGS[name]
    main = (MAIN % "biber").replace("\\cite{good}", "\\cite{a,b}")
    main = main.replace("\\begin{document}", preamble + "\\begin{document}")
    (tmp_path / "main.tex").write_text(main, encoding="utf-8")
    (tmp_path / "refs.bib").write_bytes(data)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_folder(tmp_path)
    dangling = {
        str(f.data["key"]) for fs in check(ws).values() for f in fs if f.code is Code.DANGLING
    }
    assert dangling == {"a", "b"} - _biber_entries(tmp_path)
