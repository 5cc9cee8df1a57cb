"""``@comment`` and the last line of a .bib file, as BibTeX 0.99d reads them: the word
``@comment`` alone (the entries in what looks like its argument are read), and nothing
after the block BibTeX reads on the file's last line.  Each expected reading here was
checked with pdflatex + BibTeX (and biber and pandoc for theirs); tests/differential_comments.py
compares generated files with the tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding
from citewarden.parsing.bibtex import keys_in_comments, parse_bibtex, reparse_bibtex
from citewarden.parsing.bibtex_last_line import keys_bibtex_skips, last_line_start
from citewarden.project import Workspace, normalize_path

PATH = Path("refs.bib")

#: the brief's file: a1-a5 are read by BibTeX; a6 and a7 stand on the last line after
#: the word @comment, which is all BibTeX reads there
SIX_FORMS = (
    "@comment{ @misc{a1, title={X}}}\n"
    "@comment{a @misc{a2, title={X}}}\n"
    "@comment{a@misc{a3, title={X}}}\n"
    "@comment {@misc{a4, title={X}}}\n"
    "@comment{x} @misc{a5, title={X}}\n"
    "@comment{ a @misc{a6, title={X}} b @misc{a7, title={Y}} }\n"
)


def keys(text: str) -> list[str]:
    return [e.key for e in parse_bibtex(PATH, text).entries]


def skipped(text: str) -> frozenset[str]:
    return keys_bibtex_skips(text, parse_bibtex(PATH, text).entries)


# -- @comment: the word alone ---------------------------------------------------------------


def test_entries_in_a_comment_on_one_line_are_read() -> None:
    assert keys(SIX_FORMS) == ["a1", "a2", "a3", "a4", "a5", "a6", "a7"]
    bib = parse_bibtex(PATH, SIX_FORMS)
    assert not bib.problems
    # biber and pandoc skip each group to its matching brace: only a5 is outside one
    assert keys_in_comments(SIX_FORMS, bib.entries) == {"a1", "a2", "a3", "a4", "a6", "a7"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("@comment{@misc{x, title={X}}}\n\n", ["x"]),
        ("@COMMENT(@misc{x, title={X}})\n\n", ["x"]),
        ("@Comment{ {a {b}} @misc{x, title={X}} {c} }\n\n", ["x"]),
        ("@comment{ mail me@example.org @misc{x, title={X}} }\n\n", ["x"]),
        ("@comment{}}} @misc{x, title={X}}\n\n", ["x"]),
        ("@comment{jabref-meta: databaseType:bibtex;}\n@misc{x, title={X}}\n", ["x"]),
    ],
)
def test_the_comment_word_is_all_bibtex_reads_of_it(text: str, expected: list[str]) -> None:
    assert keys(text) == expected
    assert skipped(text) == frozenset()


def test_parentheses_hide_an_entry_from_biber_not_from_pandoc() -> None:
    text = "@comment(@misc{p, title={P}})\n@comment{@misc{b, title={B}}}\n\n"
    entries = parse_bibtex(PATH, text).entries
    assert keys_in_comments(text, entries) == {"p", "b"}
    assert keys_in_comments(text, entries, biber=False) == {"b"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("@comment{x}", "@comment{@misc{x, title={X}}}"),
        ("@comment{@misc{x, title={X}}}", "@comment{@misc{y, title={X}}}"),
        ("@comment{@misc{x, title={X}}}", "@comment{@misc{x, title={X}}"),
        ("@comment{@misc{x, title={X}}}", "@misc{@misc{x, title={X}}}"),
    ],
)
def test_editing_a_comment_reparses_like_a_full_parse(old: str, new: str) -> None:
    before = f"@misc{{a, title={{A}}}}\n{old} @misc{{b, title={{B}}}}\n@misc{{c, title={{C}}}}\n"
    after = before.replace(old, new)
    result = reparse_bibtex(parse_bibtex(PATH, before), before, after)
    assert result == parse_bibtex(PATH, after)


# -- the last line ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("", 0),
        ("a", 0),
        ("a\nb", 2),
        ("a\nb\n", 2),
        ("a\nb\n\n", 4),  # an empty last line
        ("a\r\nb\r\n", 5),  # \r\n is two line ends: an empty last line
        ("a\rb", 2),
        ("a\nb\r", 2),
    ],
)
def test_the_last_line_starts_after_the_line_break_before_it(text: str, start: int) -> None:
    assert last_line_start(text) == start


ONE_LINE = "@misc{a, title={A}} @misc{b, title={B}}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (ONE_LINE, {"b"}),
        (ONE_LINE + "\n", {"b"}),
        (ONE_LINE + "\r", {"b"}),
        (ONE_LINE + " \n", {"b"}),
        (ONE_LINE + "\n\n", set()),
        (ONE_LINE + "\r\n", set()),  # BibTeX reads an empty line between \r and \n
        ("@misc{z, title={Z}}\n" + ONE_LINE + " @misc{c, title={C}}\n", {"b", "c"}),
        ("@misc{z, title={Z}}\r" + ONE_LINE, {"b"}),  # a lone \r ends a line
        # the first block on the last line is read, whatever comes before it there
        ("@misc{z, title={Z}}\nx } @misc{a, title={A}} @misc{b, title={B}}\n", {"b"}),
        # the comment word is that block: nothing after it is read
        ("@misc{z, title={Z}}\n@comment{@misc{x, title={X}}}\n", {"x"}),
        (SIX_FORMS, {"a6", "a7"}),
        ("@comment{\n@misc{y, title={Y}}\n}\n@comment{ a @misc{z, title={Z}} b }\n", {"z"}),
        # a block still read when the last line comes: nothing after it there is read
        ("@misc{a,\n  title={A}} @misc{b, title={B}}\n", {"b"}),
        ('@preamble{"a"\n # "b"} @misc{b, title={B}}\n', {"b"}),
        ("@string{s = {a\nb}} @misc{b, title={B}}", {"b"}),
        ("@misc{a, title={A}}\n@\nmisc{b, title={B}} @misc{c, title={C}}\n", {"c"}),
        # a key BibTeX reads elsewhere stays defined
        ("@misc{b, title={B}}\n" + ONE_LINE + "\n", set()),
    ],
)
def test_bibtex_reads_one_block_of_the_last_line(text: str, expected: set[str]) -> None:
    assert skipped(text) == expected


def test_a_large_file_is_read_from_the_last_entry_before_its_last_line() -> None:
    entries = "".join(f"@misc{{k{i}, title={{T {i}}}}}\n" for i in range(20_000))
    assert skipped(entries + ONE_LINE) == {"b"}
    assert skipped(entries) == frozenset()


# -- what each backend defines ------------------------------------------------------------------

DOCUMENTS = {
    "bibtex": (
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\n\\cite{KEYS}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
    ),
    "biber": (
        "main.tex",
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{KEYS}\n\\end{document}\n",
    ),
    "pandoc": ("doc.md", "---\nbibliography: refs.bib\n---\n\n[@KEYS]\n"),
}
BIB = (
    "@comment{@misc{x, title={X}}}\n@comment(@misc{p, title={P}})\n"
    "@misc{a, title={A}}\n@misc{c, title={C}} @misc{b, title={B}}"
)
#: checked with BibTeX, biber and pandoc ("I didn't find a database entry for")
DANGLING = {"bibtex": {"b"}, "biber": {"x", "p"}, "pandoc": {"x"}}


def _dangling(findings: dict[Path, list[Finding]]) -> set[str]:
    return {str(f.data["key"]) for fs in findings.values() for f in fs if f.code is Code.DANGLING}


def _workspace(folder: Path, backend: str, bib: str) -> Workspace:
    name, document = DOCUMENTS[backend]
    keys = ["x", "p", "a", "c", "b"]
    joined = "; @".join(keys) if backend == "pandoc" else ",".join(keys)
    (folder / name).write_text(document.replace("KEYS", joined), encoding="utf-8")
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    return ws


@pytest.mark.parametrize("backend", list(DOCUMENTS))
def test_each_backend_defines_what_it_reads(tmp_path: Path, backend: str) -> None:
    assert _dangling(check(_workspace(tmp_path, backend, BIB))) == DANGLING[backend]


#: edits of the .bib of a BibTeX project, one after the other: (old, new)
EDITS = [
    ("@misc{b, title={B}}", "@misc{b, title={B}}\n"),  # b on a line of its own: read
    ("@misc{b, title={B}}\n", "@misc{b, title={B}}"),  # on the last line again
    ("@misc{c, title={C}} @", "@misc{c, title={C}}\n@"),  # b the first on the last line
    ("{C}}\n@", "{C}} @"),
    ("@misc{a, title={A}}\n", "@misc{a,\n title={A}} @misc{d, title={D}}\n"),
    ("@misc{c, title={C}} @misc{b", "@misc{c, title={C}}} @misc{b"),  # the keys stay
    ("title={B}}", "title={B}}\r\n"),
    ("title={B}}\r\n", "title={B}} @misc{e, title={E}}"),
]


def test_edits_of_the_last_line_give_the_findings_of_a_fresh_check(tmp_path: Path) -> None:
    """An edit that keeps every key may change what BibTeX skips: the checks' caches follow
    it (the findings after each edit are those of a workspace checked from scratch)."""
    folder = tmp_path / "edited"
    folder.mkdir()
    bib = BIB
    ws = _workspace(folder, "bibtex", bib)
    check(ws)
    for n, (old, new) in enumerate(EDITS):
        assert old in bib, n
        at = bib.index(old)
        unchanged = (at, len(bib) - at - len(old))
        bib = bib.replace(old, new, 1)
        ws.set_text(normalize_path(folder / "refs.bib"), bib, unchanged=unchanged)
        fresh = tmp_path / f"fresh{n}"
        fresh.mkdir()
        expected = _dangling(check(_workspace(fresh, "bibtex", bib)))
        assert _dangling(check(ws)) == expected, (n, bib)


def test_a_key_bibtex_reads_elsewhere_stays_defined(tmp_path: Path) -> None:
    """b is also defined on a line of its own (BibTeX: "Repeated entry" for the second)."""
    ws = _workspace(tmp_path, "bibtex", "@misc{b, title={B0}}\n" + BIB)
    assert _dangling(check(ws)) == set()
