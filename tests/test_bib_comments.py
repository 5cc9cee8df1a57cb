"""The text biber and pandoc read as comments in a .bib file (parsing/bib_comments.py): a
``%`` comment ends at any line break for biber (it turns a lone ``\\r`` into a line feed
first), at a line feed for pandoc.  Fast cases, then the same files read by the real biber
(``biber --tool``) and pandoc (``pandoc --citeproc``), compared with what citewarden's biber
and pandoc projects define."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding, Severity
from citewarden.parsing.bib_comments import keys_in_comments, on_comment_line
from citewarden.parsing.biber_syntax import biber_rejections
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace
from citewarden.settings import Settings
from differential import biber_oracle

#: line breaks biber ends a ``%`` comment at (Perl's ``\R``), beside the line feed
BIBER_ONLY_BREAKS = ["\r", "\v", "\f", "\x85", "\u2028", "\u2029"]

#: .bib texts about line breaks after a ``%`` comment
LINE_BREAK_CASES = {
    "cr-only-file": "%comment\r@misc{k,title={t}}\r@misc{j,title={u}}\r",
    "cr-in-lf-file": "@misc{a,title={A}}\n%c\r@misc{k,title={t}}\n@misc{j,title={u}}\n",
    "cr-then-crlf": "@misc{a,title={A}}\r\n%c\r@misc{k,title={t}}\r\n",
    **{
        f"break-{ord(sep):04x}": f"@misc{{a,title={{A}}}}\n%c{sep}@misc{{k,title={{t}}}}\n"
        for sep in BIBER_ONLY_BREAKS[1:]
    },
    "file-separator": "@misc{a,title={A}}\n%c\x1c@misc{k,title={t}}\n",
    "stray-at-after-cr": "@misc{a,title={A}}\r%c\rjane@example.org\r@misc{k,title={t}}\r",
}


@pytest.mark.parametrize("sep", BIBER_ONLY_BREAKS)
def test_a_comment_ends_at_any_line_break_for_biber_and_at_a_line_feed_for_pandoc(
    sep: str,
) -> None:
    text = f"@misc{{a, title={{A}}}}\n% old{sep}@misc{{k, title={{K}}}}\n"
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert [e.key for e in entries] == ["a", "k"]
    assert keys_in_comments(text, entries, biber=True) == frozenset()
    assert keys_in_comments(text, entries, biber=False) == {"k"}
    at = entries[1].span.start
    assert not on_comment_line(text, at, biber=True)
    assert on_comment_line(text, at, biber=False)


def test_a_file_separator_ends_no_comment() -> None:
    text = "@misc{a, title={A}}\n% old\x1c@misc{k, title={K}}\n"
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert keys_in_comments(text, entries, biber=True) == {"k"}
    assert keys_in_comments(text, entries, biber=False) == {"k"}


def test_an_at_sign_after_a_comment_ended_by_a_carriage_return_is_read_by_biber() -> None:
    text = LINE_BREAK_CASES["stray-at-after-cr"]
    rejected = biber_rejections(text, parse_bibtex(Path("refs.bib"), text).entries)
    assert [text[span.start : span.end + 11] for span, _ in rejected] == ["@example.org"]


@pytest.fixture(scope="module")
def tools() -> None:
    """The real biber and pandoc (the suite's setup installs them)."""
    missing = [t for t in ("biber", "pandoc") if shutil.which(t) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)


#: .bib texts about where a ``%`` starts a comment, and the keys biber and pandoc do not
#: read there (as biber 2.18 and pandoc 2.17 read them; the real ones are run below too)
TOP_LEVEL_CASES = {
    "percent-in-braces": ("@misc{a, title={50%}} @misc{k, title={K}}\n", set(), set()),
    "percent-in-group": ("@comment{50%} @misc{j, title={J}}\n@misc{a, title={A}}\n", set(), set()),
    "percent-after-entry": ("@misc{x, title={X}}% @misc{z, title={Z}}\n", {"z"}, {"z"}),
    "percent-after-junk": (
        "junk50% @misc{k, title={K}}\n50 % @misc{j, title={J}}\n}% @misc{q, title={Q}}\n",
        {"j"},
        {"k", "j", "q"},
    ),
    "percent-after-blocks": (
        "@comment{x}% @misc{k, title={K}}\n@string{s = {S}}% @misc{j, title={J}}\n"
        "@misc{a, title={A}}\n",
        {"k", "j"},
        {"k", "j"},
    ),
    "percent-in-blocks": (
        '@string{t = {50%}} @misc{q, title={Q}}\n@preamble{"50%"} @misc{p, title={P}}\n',
        set(),
        set(),
    ),
}


@pytest.mark.parametrize("name", list(TOP_LEVEL_CASES))
def test_a_percent_starts_a_comment_at_top_level_only(name: str) -> None:
    text, biber, pandoc = TOP_LEVEL_CASES[name]
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert keys_in_comments(text, entries, biber=True) == biber
    assert keys_in_comments(text, entries, biber=False) == pandoc


#: .bib texts about what btparse skips between an ``@comment``'s ``@``, its word and its
#: opener (white space, a ``%`` comment, an apostrophe or a backslash with the character
#: after it), and the keys biber does not read there (as biber 2.18 reads them)
BLOCK_GAP_CASES = {
    "apostrophe-pair": ("@comment'x{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "backslash-pair": ("@comment\\x{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "pair-hides-a-brace": ("@comment '}{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "pairs-then-parenthesis": ("@comment'x'y(@misc{q, title={Q}})\n@misc{r, title={R}}\n", {"q"}),
    "pair-before-the-word": ("@ 'x comment{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "comment-before-opener": ("@comment%x\r{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "vertical-tab": ("@comment\v{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "mixed-case": ("@CoMMent{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", {"q"}),
    "two-apostrophes": ("@comment''x{ @misc{q, title={Q}} }\n@misc{r, title={R}}\n", set()),
    "pair-never-closed": ("@comment'x{ @misc{q, title={Q}}\n@misc{r, title={R}}\n", set()),
}


@pytest.mark.parametrize("name", list(BLOCK_GAP_CASES))
def test_biber_skips_pairs_and_comments_between_an_at_and_its_comment_group(name: str) -> None:
    """BibTeX reads the word ``@comment`` alone, so it defines the entries after it; biber
    reads ``@comment'x{...}`` as a comment group, as btparse skips ``'x`` there."""
    text, biber = BLOCK_GAP_CASES[name]
    entries = parse_bibtex(Path("refs.bib"), text).entries
    assert {e.key for e in entries} == {"q", "r"}
    assert keys_in_comments(text, entries, biber=True) == biber


def test_an_at_comment_after_a_pair_never_closed_is_one_biber_cannot_read() -> None:
    text = BLOCK_GAP_CASES["pair-never-closed"][0]
    rejected = biber_rejections(text, parse_bibtex(Path("refs.bib"), text).entries)
    assert [why for _, why in rejected][:1] == [
        "@comment never closed: biber reads the rest of the file as the comment (BibTeX "
        "skips the word @comment alone)"
    ]


#: every case the real biber and pandoc are compared on
READER_CASES = {
    **LINE_BREAK_CASES,
    **{name: text for name, (text, _, _) in TOP_LEVEL_CASES.items()},
    **{name: text for name, (text, _) in BLOCK_GAP_CASES.items()},
}


def _written(folder: Path, text: str, keys: list[str]) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "refs.bib").write_bytes(text.encode("utf-8"))
    (folder / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n"
        f"\\cite{{{','.join(keys)}}}\n\\printbibliography\n\\end{{document}}\n",
        encoding="utf-8",
    )
    cites = "; ".join(f"@{k}" for k in keys)
    (folder / "doc.md").write_text(f"---\nbibliography: refs.bib\n---\n\n[{cites}]\n")


def _ours(folder: Path) -> dict[str, list[Finding]]:
    """citewarden's findings in the biber project (main.tex) and the pandoc one (doc.md),
    the bibliography's by the reader they speak of."""
    ws = Workspace(Settings(), root=folder)
    for name in ("main.tex", "doc.md", "refs.bib"):
        ws.add_file(folder / name)
    return {path.name: findings for path, findings in check(ws).items()}


def _defined(findings: list[Finding], keys: list[str]) -> set[str]:
    dangling = {str(f.data["key"]) for f in findings if f.code is Code.DANGLING}
    return set(keys) - dangling


@pytest.mark.parametrize("text", list(READER_CASES.values()), ids=list(READER_CASES))
def test_biber_projects_define_what_biber_reads(tools: None, tmp_path: Path, text: str) -> None:
    keys = sorted(set(re.findall(r"@misc\{(\w+),", text)))
    _written(tmp_path / "ours", text, keys)
    found = _ours(tmp_path / "ours")
    rejected = [f for f in found["refs.bib"] if f.code is Code.BIB_SYNTAX and "biber" in f.message]
    (tmp_path / "refs.bib").write_bytes(text.encode("utf-8"))
    read, _ = biber_oracle(tmp_path / "refs.bib", tmp_path)
    if rejected:  # biber reads no entry of a file it cannot read
        assert read == set()
    else:
        assert _defined(found["main.tex"], keys) == read & set(keys)


_NOT_FOUND = re.compile(r"citation (\S+) not found")


def _pandoc(folder: Path) -> tuple[bool, set[str]]:
    """Whether ``pandoc --citeproc`` reads doc.md's bibliography, and the keys it finds."""
    run = subprocess.run(
        ["pandoc", "--citeproc", "doc.md", "-t", "plain"],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
        check=False,
    )
    keys = set(re.findall(r"@(\w+)", (folder / "doc.md").read_text()))
    return "Error reading bibliography" not in run.stderr, keys - set(
        _NOT_FOUND.findall(run.stderr)
    )


@pytest.mark.parametrize("text", list(READER_CASES.values()), ids=list(READER_CASES))
def test_pandoc_projects_define_what_pandoc_reads(tools: None, tmp_path: Path, text: str) -> None:
    keys = sorted(set(re.findall(r"@misc\{(\w+),", text)))
    _written(tmp_path, text, keys)
    found = _ours(tmp_path)
    pandoc_errors = [
        f for f in found["refs.bib"] if f.code is Code.BIB_SYNTAX and "pandoc" in f.message
    ]
    reads, pandoc_keys = _pandoc(tmp_path)
    assert reads == (not pandoc_errors), pandoc_errors
    if reads:
        assert _defined(found["doc.md"], keys) == pandoc_keys


#: .bib texts with a malformed entry (or field) where biber and pandoc skip text: inside an
#: ``@comment`` group or after a ``%`` on its line; BibTeX reads every one of them
SKIPPED_TEXT_CASES = {
    "group-lines": "@misc{a, title={A}}\n@comment{\n@misc{bad title = {x}, year 2000}\n"
    "@misc{k2, title = {y} year = 2000,, note}\n}\n@misc{b, title={B}}\n",
    "group-one-line": "@misc{a, title={A}}\n@comment{@misc{x, title = {a} {b}}}\n"
    "@misc{b, title={B}}\n",
    "group-unclosed-entry": "@misc{a, title={A}}\n@comment{\n@misc(x, title = {a}\n}\n"
    "@misc{b, title={B}}\n",
    "group-duplicate-field": "@misc{a, title={A}}\n@comment{@misc{c, title = {T}, title = {U}}}\n"
    "@misc{b, title={B}}\n",
    "group-in-parentheses": "@misc{a, title={A}}\n@comment(\n@misc{x title = {a}}\n)\n"
    "@misc{b, title={B}}\n",
    "comment-line": "@misc{a, title={A}}\n% @misc{x title = {a}}\n@misc{b, title={B}}\n",
    "comment-line-unclosed": "@misc{a, title={A}}\n% @misc{x, title = {a}\n@misc{b, title={B}}\n",
    "comment-line-cr": "@misc{a, title={A}}\r%c\r@misc{x title = {a}}\r@misc{b, title={B}}\r",
    "outside-comments": "@misc{a, title={A}}\n@comment{x}\n@misc{x title = {a}}\n"
    "@misc{b, title={B}}\n",
}


def _reading_findings(found: list[Finding]) -> list[Finding]:
    """citewarden's own reading problems (not those of biber's or pandoc's reading)."""
    reading = (Code.BIB_SYNTAX, Code.DUPLICATE_FIELD)
    return [
        f
        for f in found
        if f.code in reading and "biber" not in f.message and "pandoc" not in f.message
    ]


def _project(folder: Path, text: str, root: str) -> list[Finding]:
    """The findings of refs.bib in a workspace of ``root`` (main.tex of biber, doc.md of
    pandoc, or bibtex.tex) and refs.bib."""
    _written(folder, text, ["a", "b"])
    (folder / "bibtex.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{a,b}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    ws = Workspace(Settings(), root=folder)
    for name in (root, "refs.bib"):
        ws.add_file(folder / name)
    return [f for path, fs in check(ws).items() if path.name == "refs.bib" for f in fs]


@pytest.mark.parametrize(
    "name", ["group-lines", "group-one-line", "group-unclosed-entry", "group-duplicate-field"]
)
def test_problems_inside_comment_groups_are_not_reported_for_biber_or_pandoc(
    tmp_path: Path, name: str
) -> None:
    text = SKIPPED_TEXT_CASES[name]
    assert _reading_findings(_project(tmp_path / "biber", text, "main.tex")) == []
    assert _reading_findings(_project(tmp_path / "pandoc", text, "doc.md")) == []
    # BibTeX reads @comment as a word alone, and then the entry in its group
    assert _reading_findings(_project(tmp_path / "bibtex", text, "bibtex.tex")) != []


def test_a_parenthesised_comment_group_is_skipped_by_biber_only(tmp_path: Path) -> None:
    text = SKIPPED_TEXT_CASES["group-in-parentheses"]
    assert _reading_findings(_project(tmp_path / "biber", text, "main.tex")) == []
    assert _reading_findings(_project(tmp_path / "pandoc", text, "doc.md")) != []


def test_a_file_read_by_no_project_keeps_every_problem(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text(SKIPPED_TEXT_CASES["group-lines"], encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    found = check(ws)[next(iter(check(ws)))]
    assert len(_reading_findings(found)) == 3


def _biber_errors(folder: Path) -> list[str]:
    run = subprocess.run(
        ["biber", "--tool", "--nolog", "--output-file=out.bib", "refs.bib"],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    return [line for line in run.stdout.splitlines() if line.startswith("ERROR")]


@pytest.mark.parametrize("text", list(SKIPPED_TEXT_CASES.values()), ids=list(SKIPPED_TEXT_CASES))
def test_syntax_findings_are_where_biber_and_pandoc_find_errors(
    tools: None, tmp_path: Path, text: str
) -> None:
    """A biber project has a syntax finding exactly where ``biber --tool`` reports an error,
    a pandoc project where ``pandoc --citeproc`` cannot read the bibliography, and both
    read the entries around the malformed one."""
    biber = [f for f in _project(tmp_path / "biber", text, "main.tex") if f.code is Code.BIB_SYNTAX]
    errors = _biber_errors(tmp_path / "biber")
    assert bool(biber) == bool(errors), (biber, errors)
    pandoc = [f for f in _project(tmp_path / "pandoc", text, "doc.md") if f.code is Code.BIB_SYNTAX]
    reads, keys = _pandoc(tmp_path / "pandoc")
    assert bool(pandoc) == (not reads), pandoc
    if reads:
        assert keys == {"a", "b"}


#: an entry commented out beside the one that replaced it (same key, title and DOI), a
#: group holding the same work under another key, and the same key in another case
DUPLICATES_BIB = (
    "% @article{smith2020, title={Old title of the paper}, doi={10.1/x}}\n"
    "@article{smith2020, title={New title of the paper}, doi={10.1/x}}\n"
    "@comment{\n@article{jones, title={A long title of a paper}, year={2000}}\n}\n"
    "@article{jones2, title={A long title of a paper}, year={2000}}\n"
    "@article{SMITH2020, title={x}}\n"
)


def _duplicates(found: list[Finding]) -> list[tuple[str, str]]:
    codes = (Code.DUPLICATE_KEY, Code.DUPLICATE_WORK)
    return sorted((f.code.value, str(f.data.get("key") or "")) for f in found if f.code in codes)


@pytest.mark.parametrize("root", ["main.tex", "doc.md"])
def test_entries_biber_and_pandoc_skip_are_no_duplicates(tmp_path: Path, root: str) -> None:
    # the same key in another case is another key (biber prints both, warning of a
    # possible typo: at SMITH2020, then at smith2020 after it); the same key again is a
    # duplicate of the definition read
    text = DUPLICATES_BIB + "@article{smith2020, title={y}}\n"
    found = _project(tmp_path, text, root)
    warned = [("duplicate-key", "SMITH2020"), ("duplicate-key", "smith2020")]
    expected = [*warned, ("duplicate-key", "smith2020")] if root == "main.tex" else []
    assert _duplicates(found) == (expected or [("duplicate-key", "smith2020")])
    first = next(
        f for f in found if f.code is Code.DUPLICATE_KEY and f.effective_severity is Severity.ERROR
    )
    assert first.related[0].location.span.start == text.index("smith2020, title={New")


def test_entries_bibtex_reads_in_comments_are_duplicates(tmp_path: Path) -> None:
    found = _project(tmp_path, DUPLICATES_BIB, "bibtex.tex")
    assert _duplicates(found) == [
        ("duplicate-key", "SMITH2020"),
        ("duplicate-key", "smith2020"),
        ("duplicate-work", "jones2"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "% @misc{a, title={A}}\n@misc{a, title={A}}\n",
        "@comment{@misc{a, title={A}}}\n@misc{a, title={A}}\n",
        "@misc{a, title={A}}\n@misc{a, title={A}}\n",
        "@misc{a, title={A}}\n%c\r@misc{a, title={A}}\n",
    ],
    ids=["comment-line", "comment-group", "duplicate", "after-cr"],
)
def test_duplicate_keys_are_where_biber_finds_them(tools: None, tmp_path: Path, text: str) -> None:
    found = _project(tmp_path, text, "main.tex")
    run = subprocess.run(
        ["biber", "--tool", "--nolog", "--output-file=out.bib", "refs.bib"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    warned = "Duplicate entry key" in run.stdout
    assert bool(_duplicates(found)) == warned, run.stdout


@pytest.mark.parametrize(
    "text",
    [
        "@misc{a, title={A}}\njunk50% @misc{k, title={K}}\n",
        "@misc{a, title={A}}\n%c\r@misc{k, title={K}}\n",
        "@misc{a, title={A}}\n@comment(\n@misc{k, title={K}}\n)\n",
    ],
    ids=["junk-percent", "cr", "comment-parentheses"],
)
def test_an_entry_one_reader_reads_is_an_orphan_of_a_file_both_read(
    tmp_path: Path, text: str
) -> None:
    """A file read by a biber and a pandoc project: an entry read by one of them (biber
    reads the first two, pandoc the last) and cited by neither is an orphan."""
    _written(tmp_path, text, ["a"])
    ws = Workspace(Settings(), root=tmp_path)
    for name in ("main.tex", "doc.md", "refs.bib"):
        ws.add_file(tmp_path / name)
    found = [f for fs in check(ws).values() for f in fs if f.code is Code.ORPHAN]
    assert [f.data["key"] for f in found] == ["k"]


CROSSREF_CASES = {
    "commented": "@misc{a, title={A}}\n% @misc{c, crossref={gone}, title={C}}\n"
    "@comment{@misc{d, crossref={gone2}, title={D}}}\n",
    "read": "@misc{a, title={A}}\n@misc{c, crossref={gone}, title={C}}\n",
}


@pytest.mark.parametrize("name", list(CROSSREF_CASES))
def test_missing_crossrefs_are_where_biber_finds_them(
    tools: None, tmp_path: Path, name: str
) -> None:
    """A ``crossref`` to a key defined nowhere is a finding where biber warns of it: not in
    an entry biber skips (pandoc skips it too; BibTeX reads it)."""
    text = CROSSREF_CASES[name]
    found = {
        root: [f for f in _project(tmp_path / root, text, root) if f.code is Code.MISSING_CROSSREF]
        for root in ("main.tex", "doc.md", "bibtex.tex")
    }
    run = subprocess.run(
        ["biber", "--tool", "--nolog", "--output-file=out.bib", "refs.bib"],
        cwd=tmp_path / "main.tex",
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    warned = "I didn't find a database entry for crossref" in run.stdout
    assert bool(found["main.tex"]) == warned == (name == "read"), run.stdout
    assert bool(found["doc.md"]) == (name == "read")
    assert len(found["bibtex.tex"]) == (2 if name == "commented" else 1)


@pytest.mark.parametrize(
    ("root", "suggested"), [("main.tex", False), ("doc.md", False), ("bibtex.tex", True)]
)
def test_a_key_commented_out_is_no_suggestion_where_it_is_not_read(
    tmp_path: Path, root: str, suggested: bool
) -> None:
    """A misspelt citation of a key that biber and pandoc read as a comment is dangling
    with no "did you mean" it (BibTeX reads the entry: there it is one)."""
    text = "% @misc{knuth1984, title={A}}\n@misc{lamport1994, title={B}}\n"
    _written(tmp_path, text, ["knuth1948", "lamport1994"])
    (tmp_path / "bibtex.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{knuth1948,lamport1994}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    ws = Workspace(Settings(), root=tmp_path)
    for name in (root, "refs.bib"):
        ws.add_file(tmp_path / name)
    dangling = [f for fs in check(ws).values() for f in fs if f.code is Code.DANGLING]
    assert [f.data["key"] for f in dangling] == ["knuth1948"]
    assert ("knuth1984" in dangling[0].message) == suggested
    assert bool(dangling[0].fixes) == suggested
