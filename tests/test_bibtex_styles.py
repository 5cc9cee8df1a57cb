"""The macros of the BibTeX style a project names (``\\bibliographystyle{plain}``): read from
its .bst file (tests/data/bst, see PROVENANCE.md, or TeX's trees), they are defined in the
project's .bib files as BibTeX defines them; an undefined macro under a style whose file
is not found here is information, not a warning.  The real BibTeX is the oracle at the end.
"""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from checking import check
from citewarden.bibtex_styles import MAX_STYLE_BYTES, find_style, read_style
from citewarden.checks import Checker
from citewarden.model import Code, Finding, Severity
from citewarden.parsing.bst import StyleMacros, style_macros
from citewarden.parsing.latex import parse_latex
from citewarden.project import Workspace
from differential import _run
from paths import DATA

BST = DATA / "bst"
#: the journal macros of plain.bst, abbrv.bst, alpha.bst and unsrt.bst
JOURNALS = [
    "acmcs", "acta", "cacm", "ibmjrd", "ibmsj", "ieeese", "ieeetc", "ieeetcad", "ipl", "jacm",
    "jcss", "scp", "sicomp", "tocs", "tods", "tog", "toms", "toois", "toplas", "tcs",
]  # fmt: skip
MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def _bib(names: list[str]) -> str:
    entries = [
        f"@article{{e{i}, author = {{A. Author}}, title = {{T}}, journal = {name}, year = 2000}}"
        for i, name in enumerate(names)
    ]
    return "\n".join([*entries, "@article{m, title = {T}, journal = {J}, month = jan}", ""])


def _project(tmp_path: Path, style: str | None, bib: str, head: str = "") -> None:
    named = f"\\bibliographystyle{{{style}}}\n" if style is not None else ""
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{head}\\begin{{document}}\n\\nocite{{*}}\n"
        f"{named}\\bibliography{{refs}}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")


def _undefined(tmp_path: Path) -> list[Finding]:
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    return [f for fs in check(ws).values() for f in fs if f.code is Code.UNDEFINED_STRING]


def _names(findings: list[Finding], severity: Severity = Severity.WARNING) -> set[str]:
    return {str(f.data["name"]).lower() for f in findings if f.effective_severity is severity}


# ---------------------------------------------------------------------------------------
# reading a .bst file
# ---------------------------------------------------------------------------------------


def test_plain_bst_defines_the_months_and_twenty_journals() -> None:
    read = style_macros((BST / "plain.bst").read_text(encoding="utf-8"))
    assert read.problem is None
    macros = dict(read.macros)
    assert list(macros)[:12] == MONTHS
    assert sorted(list(macros)[12:]) == sorted(JOURNALS)
    assert macros["cacm"] == "Communications of the ACM"
    # written over two lines: MACRO {ieeetcad}\n {"..."}
    assert macros["ieeetcad"] == "IEEE Transactions on Computer-Aided Design of Integrated Circuits"


def test_amsplain_bst_defines_the_months_only() -> None:
    read = style_macros((BST / "amsplain.bst").read_text(encoding="utf-8"))
    assert read.problem is None
    assert [name for name, _ in read.macros] == MONTHS


_STYLE = r"""% MACRO {commented} {"no"}
ENTRY { journal } {} { label }
macro { Jx }
  { "Journal X" }
FUNCTION {article} { "{\em " journal * "}" * write$ newline$ % a comment {
  "MACRO {instring} {" pop$ }
MACRO {jx} {"second"}
MACRO {jy}{"Journal Y"}
READ
MACRO {late} {"after READ"}
"""


def test_macros_are_read_as_bibtex_reads_the_style() -> None:
    """Commands in any case, names lower-cased, the first definition kept; comments and
    string literals (braces in them too) hold no command; nothing after READ counts."""
    read = style_macros(_STYLE)
    assert read.problem is None
    assert read.macros == (("jx", "Journal X"), ("jy", "Journal Y"))


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ('MACRO {a} {"open\n"}\n', 1, "no '\"' ends the text of macro 'a'"),
        ("MACRO {a} {b}\n", 1, 'is "-delimited'),
        ("ENTRY {}{}{}\nFUNCTION {f} { {\n\nREAD\n", 2, "not closed"),
        ('FUNCTION {f} { "x }\nREAD\n', 1, "no '\"' ends the string"),
        ("ENTRY {}{}{}\nNOSUCH {x}\n", 2, "unknown command 'NOSUCH'"),
    ],
)
def test_a_style_bibtex_stops_on_is_not_read(text: str, line: int, says: str) -> None:
    read = style_macros(text)
    assert read.macros == ()
    assert read.problem is not None and read.problem.startswith(f"line {line}: ")
    assert says in read.problem


def test_a_style_file_is_read_bounded_and_remembered(tmp_path: Path) -> None:
    style = tmp_path / "big.bst"
    style.write_text('MACRO {a} {"A"}\n' + "%" * MAX_STYLE_BYTES + "\n", encoding="utf-8")
    read = read_style(style)
    assert read.macros == () and read.problem is not None and "larger than 1 MB" in read.problem
    style.write_text('ENTRY {Month} {} {}\nMACRO {a} {"A"}\nREAD\n', encoding="utf-8")
    assert read_style(style) == StyleMacros((("a", "A"),), fields=frozenset({"month"}))
    assert find_style("big", [tmp_path]) == style
    assert find_style("big.bst", [tmp_path]) == style
    assert find_style("-big", [tmp_path]) is None


def test_bibliographystyle_is_read_as_tex_writes_it() -> None:
    text = (
        "\\newcommand{\\bibliographystyle}[1]{}\n"
        "\\bibliographystyle{plain}\n\\bibliographystyle{abc% comment\n   def}\n"
        "\\bibliographystyle{ x\n y}\n"
    )
    doc = parse_latex(Path("main.tex"), text)
    assert [name for name, _ in doc.bib_styles] == ["plain", "abcdef", " x y"]
    span = doc.bib_styles[0][1]
    assert text[span.start : span.end] == "plain"


# ---------------------------------------------------------------------------------------
# projects
# ---------------------------------------------------------------------------------------


def test_journal_macros_of_plain_bst_are_defined(tmp_path: Path) -> None:
    shutil.copy(BST / "plain.bst", tmp_path)
    _project(tmp_path, "plain", _bib([*JOURNALS, "CACM", "nosuch"]))
    assert _names(_undefined(tmp_path)) == {"nosuch"}
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    ws.projects()
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    journal = next(f for f in bib.entries[2].fields if f.name == "journal")
    assert journal.expanded == "Communications of the ACM"


def test_a_style_without_the_journal_macros_leaves_them_undefined(tmp_path: Path) -> None:
    shutil.copy(BST / "amsplain.bst", tmp_path)
    _project(tmp_path, "amsplain", _bib(["cacm", "nosuch"]))
    assert _names(_undefined(tmp_path)) == {"cacm", "nosuch"}


def test_without_a_style_the_months_only_are_defined(tmp_path: Path) -> None:
    _project(tmp_path, None, _bib(["cacm"]))
    assert _names(_undefined(tmp_path)) == {"cacm"}


def test_biblatex_reads_no_bst(tmp_path: Path) -> None:
    """biber defines the months only (BibTeX's too, under biblatex's backend=bibtex:
    biblatex.bst); \\bibliographystyle is not biblatex's."""
    shutil.copy(BST / "plain.bst", tmp_path)
    _project(tmp_path, "plain", _bib(["cacm"]), head="\\usepackage{biblatex}\n")
    main = tmp_path / "main.tex"
    main.write_text(main.read_text().replace("\\bibliography{refs}", "\\addbibresource{refs.bib}"))
    assert _names(_undefined(tmp_path)) == {"cacm"}


def test_bibtex_reads_the_first_style(tmp_path: Path) -> None:
    """The first \\bibstyle of the .aux, an included file's read in place."""
    shutil.copy(BST / "plain.bst", tmp_path)
    shutil.copy(BST / "amsplain.bst", tmp_path)
    _project(tmp_path, "amsplain", _bib(["cacm"]))
    main = tmp_path / "main.tex"
    main.write_text(main.read_text().replace("\\nocite{*}", "\\nocite{*}\\include{ch}"))
    (tmp_path / "ch.tex").write_text("\\bibliographystyle{plain}\n")
    assert _names(_undefined(tmp_path)) == set()
    main.write_text(main.read_text().replace("\\include{ch}", ""))
    assert _names(_undefined(tmp_path)) == {"cacm"}


def test_the_style_may_be_on_bstinputs_of_the_latexmkrc(tmp_path: Path) -> None:
    (tmp_path / "styles").mkdir()
    shutil.copy(BST / "plain.bst", tmp_path / "styles" / "ourplain.bst")
    (tmp_path / ".latexmkrc").write_text("ensure_path('BSTINPUTS', './styles//');\n")
    _project(tmp_path, "ourplain", _bib(["cacm", "nosuch"]))
    assert _names(_undefined(tmp_path)) == {"nosuch"}


def test_a_string_of_the_bib_file_replaces_the_style_macro(tmp_path: Path) -> None:
    shutil.copy(BST / "plain.bst", tmp_path)
    _project(tmp_path, "plain", '@string{cacm = "Mine"}\n' + _bib(["cacm"]))
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    assert _names([f for fs in check(ws).values() for f in fs]) == set()
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    assert next(f for f in bib.entries[0].fields if f.name == "journal").expanded == "Mine"


def test_a_style_not_found_makes_undefined_macros_information(tmp_path: Path) -> None:
    """The style may define them (a journal's style not installed here): each undefined
    macro is information naming the style and pointing at the \\bibliographystyle."""
    _project(tmp_path, "citewardenabsentstyle", _bib(["cacm"]))
    (finding,) = _undefined(tmp_path)
    assert finding.effective_severity is Severity.INFORMATION
    assert finding.message.startswith(
        "undefined @string macro 'cacm', unless the BibTeX style 'citewardenabsentstyle' "
        "defines it: 'citewardenabsentstyle.bst' is not found (in the root document's folder"
    )
    assert finding.data["style"] == "citewardenabsentstyle"
    (related,) = finding.related
    text = (tmp_path / "main.tex").read_text()
    span = related.location.span
    assert text[span.start : span.end] == "citewardenabsentstyle"


def test_a_style_bibtex_stops_on_makes_undefined_macros_information(tmp_path: Path) -> None:
    (tmp_path / "broken.bst").write_text('MACRO {cacm} {"x}\nREAD\n', encoding="utf-8")
    _project(tmp_path, "broken", _bib(["cacm"]))
    (finding,) = _undefined(tmp_path)
    assert finding.effective_severity is Severity.INFORMATION
    assert "BibTeX stops reading 'broken.bst' at line 1: " in finding.message


@pytest.mark.parametrize("where", ["command", "macro", "style"])
def test_names_from_the_style_are_bounded_in_every_message(tmp_path: Path, where: str) -> None:
    """A 200 KB token of the .bst (or a 19 KB style name) is shown by its head and its
    length, not in full in each of fifty findings."""
    token = "\u202e" + "A" * 200_000
    style = "evil"
    if where == "command":
        (tmp_path / "evil.bst").write_text(token + "\n", encoding="utf-8")
    elif where == "macro":
        (tmp_path / "evil.bst").write_text(f"MACRO {{{token}}} {{x}}\n", encoding="utf-8")
    else:
        style = "x" * 19_000
    _project(tmp_path, style, _bib([f"m{i}" for i in range(50)]))
    findings = _undefined(tmp_path)
    assert len(findings) == 50
    assert all(f.effective_severity is Severity.INFORMATION for f in findings)
    assert max(len(f.message) for f in findings) < 600
    assert "characters)" in findings[0].message
    assert all(len(str(f.data["style"])) <= 120 for f in findings)


def test_another_reader_that_surely_lacks_the_macro_keeps_the_warning(tmp_path: Path) -> None:
    shutil.copy(BST / "amsplain.bst", tmp_path)
    _project(tmp_path, "citewardenabsentstyle", _bib(["cacm"]))
    (tmp_path / "other.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}\n"
        "\\bibliographystyle{amsplain}\\bibliography{refs}\\end{document}\n"
    )
    (finding,) = _undefined(tmp_path)
    assert finding.effective_severity is Severity.WARNING


def test_changing_the_style_in_the_editor_reads_the_new_one(tmp_path: Path) -> None:
    shutil.copy(BST / "plain.bst", tmp_path)
    shutil.copy(BST / "amsplain.bst", tmp_path)
    _project(tmp_path, "plain", _bib(["cacm"]))
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)

    def undefined() -> set[str]:
        found = [f for fs in check(ws).values() for f in fs if f.code is Code.UNDEFINED_STRING]
        return _names(found)

    assert undefined() == set()
    text = (tmp_path / "main.tex").read_text()
    ws.set_text(tmp_path / "main.tex", text.replace("{plain}", "{amsplain}"))
    assert undefined() == {"cacm"}
    ws.set_text(tmp_path / "main.tex", text)
    assert undefined() == set()


# ---------------------------------------------------------------------------------------
# BibTeX as the oracle
# ---------------------------------------------------------------------------------------

#: a style of our own, found in the project's folder: lower-case commands, a macro over
#: two lines, one in a comment and one after READ (neither is defined; BibTeX skips to the
#: blank line after the one it refuses)
_OWN_STYLE = r"""ENTRY { journal } {} {}
% MACRO {tcs} {"commented out"}
macro {cacm}
      {"Comm. ACM"}
FUNCTION {article} { journal write$ newline$ }
FUNCTION {default.type} { article }
READ
MACRO {jacm} {"after READ"}

ITERATE {call.type$}
"""

_WARNING = re.compile(r'Warning--string name "([^"]+)" is undefined')


@pytest.mark.parametrize(
    "style", ["plain", "abbrv", "alpha", "unsrt", "apalike", "ieeetr", "amsplain", "ownstyle"]
)
def test_undefined_macros_are_those_bibtex_warns_of(tmp_path: Path, style: str) -> None:
    """The styles of TeX's trees (found through kpsewhich) and one in the project's folder:
    the macros citewarden warns of are those BibTeX says are undefined."""
    missing = [tool for tool in ("pdflatex", "bibtex", "kpsewhich") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    if style == "ownstyle":
        (tmp_path / "ownstyle.bst").write_text(_OWN_STYLE, encoding="utf-8")
    _project(tmp_path, style, _bib([*JOURNALS, "nosuch", "Jacm"]))
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main"]
    assert _run(latex, tmp_path).returncode == 0
    bibtex = _run(["bibtex", "main"], tmp_path)
    blg = (tmp_path / "main.blg").read_text(errors="replace")
    assert "I couldn't open style file" not in blg, bibtex.stdout
    oracle = {name.lower() for name in _WARNING.findall(blg)}
    findings = _undefined(tmp_path)
    assert _names(findings) == oracle
    assert all(f.effective_severity is Severity.WARNING for f in findings)
    if style == "ownstyle":
        bbl = (tmp_path / "main.bbl").read_text()
        assert "Comm. ACM" in bbl and oracle == (set(JOURNALS) - {"cacm"}) | {"nosuch"}


# ---------------------------------------------------------------------------------------
# a .bib file several projects read
# ---------------------------------------------------------------------------------------


def _root(tmp_path: Path, name: str, style: str | None, bibs: str = "refs") -> None:
    named = f"\\bibliographystyle{{{style}}}\n" if style is not None else ""
    (tmp_path / f"{name}.tex").write_text(
        f"\\documentclass{{article}}\n\\begin{{document}}\n\\nocite{{*}}\n"
        f"{named}\\bibliography{{{bibs}}}\n\\end{{document}}\n",
        encoding="utf-8",
    )


def _bibtex_warns(tmp_path: Path, root: str) -> set[str]:
    """The macros BibTeX says are undefined for the project of ``root``.tex."""
    missing = [tool for tool in ("pdflatex", "bibtex") if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", root]
    assert _run(latex, tmp_path).returncode == 0
    _run(["bibtex", root], tmp_path)
    blg = (tmp_path / f"{root}.blg").read_text(errors="replace")
    assert "I couldn't open" not in blg, blg
    return {name.lower() for name in _WARNING.findall(blg)}


def test_a_file_two_styles_read_lacks_what_one_of_them_lacks(tmp_path: Path) -> None:
    """plain.tex and amsplain.tex read refs.bib: BibTeX warns of cacm for amsplain, so it
    is a warning, whichever project is read first."""
    shutil.copy(BST / "plain.bst", tmp_path)
    shutil.copy(BST / "amsplain.bst", tmp_path)
    (tmp_path / "refs.bib").write_text(_bib(["cacm", "nosuch"]), encoding="utf-8")
    _root(tmp_path, "plain", "plain")
    _root(tmp_path, "amsplain", "amsplain")
    assert _bibtex_warns(tmp_path, "plain") == {"nosuch"}
    assert _bibtex_warns(tmp_path, "amsplain") == {"cacm", "nosuch"}
    findings = _undefined(tmp_path)
    assert _names(findings) == {"cacm", "nosuch"}
    assert all(f.effective_severity is Severity.WARNING for f in findings)
    # the same style for both: cacm is defined
    _root(tmp_path, "amsplain", "plain")
    assert _names(_undefined(tmp_path)) == {"nosuch"}


def test_a_file_another_project_reads_without_the_earlier_file_lacks_its_macros(
    tmp_path: Path,
) -> None:
    """paper.tex reads abbrev.bib before refs.bib, slides.tex refs.bib alone: BibTeX warns
    of the abbreviation for the slides."""
    (tmp_path / "abbrev.bib").write_text('@string{jx = "Journal X"}\n', encoding="utf-8")
    (tmp_path / "refs.bib").write_text(_bib(["jx"]), encoding="utf-8")
    shutil.copy(BST / "plain.bst", tmp_path)
    _root(tmp_path, "paper", "plain", "abbrev,refs")
    assert _bibtex_warns(tmp_path, "paper") == set()
    assert _names(_undefined(tmp_path)) == set()
    _root(tmp_path, "slides", "plain")
    assert _bibtex_warns(tmp_path, "slides") == {"jx"}
    assert _names(_undefined(tmp_path)) == {"jx"}


def test_a_markdown_reader_lacks_the_style_macros(tmp_path: Path) -> None:
    """pandoc defines the months only."""
    shutil.copy(BST / "plain.bst", tmp_path)
    (tmp_path / "refs.bib").write_text(_bib(["cacm"]), encoding="utf-8")
    _root(tmp_path, "paper", "plain")
    assert _names(_undefined(tmp_path)) == set()
    (tmp_path / "notes.md").write_text("---\nbibliography: refs.bib\n---\n[@e0]\n")
    assert _names(_undefined(tmp_path)) == {"cacm"}


def test_a_reader_whose_style_is_not_known_narrows_nothing(tmp_path: Path) -> None:
    """plain.tex surely defines cacm, the other project's style may: no finding."""
    shutil.copy(BST / "plain.bst", tmp_path)
    (tmp_path / "refs.bib").write_text(_bib(["cacm", "nosuch"]), encoding="utf-8")
    _root(tmp_path, "plain", "plain")
    _root(tmp_path, "other", "citewardenabsentstyle")
    findings = _undefined(tmp_path)
    assert _names(findings) == {"nosuch"}
    assert all(f.effective_severity is Severity.WARNING for f in findings)


def test_a_style_installed_in_texs_trees_is_found_a_minute_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """kpsewhich's answer is kept a while, not until the process ends."""
    if shutil.which("kpsewhich") is None:
        pytest.fail("real tools missing: kpsewhich", pytrace=False)
    trees = tmp_path / "trees"
    trees.mkdir()
    monkeypatch.setenv("BSTINPUTS", f"{trees}:")
    assert find_style("citewardeninstalledlater", []) is None
    (trees / "citewardeninstalledlater.bst").write_text('MACRO {a} {"A"}\nREAD\n')
    assert find_style("citewardeninstalledlater", []) is None  # the answer is kept
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + 61)
    found = find_style("citewardeninstalledlater", [])
    assert found is not None and found.samefile(trees / "citewardeninstalledlater.bst")


# ---------------------------------------------------------------------------------------
# a style without the month names
# ---------------------------------------------------------------------------------------

_NO_MONTHS = """ENTRY { journal month note } {} {}
FUNCTION {article} { journal write$ newline$ month write$ newline$ note write$ newline$ }
FUNCTION {default.type} { article }
READ
ITERATE {call.type$}
"""
_MONTH_USES = """@article{a, journal = {J}, month = jan, note = feb # "~1"}
@article{b, journal = {J}, title = mar, month = {apr}}
@string{may = "Mai"}
@article{c, journal = {J}, month = may, note = "jun " # JUL}
"""


def test_a_style_without_the_months_leaves_them_undefined_where_bibtex_reads_them(
    tmp_path: Path,
) -> None:
    """In the fields its ENTRY names (not in title), unless an @string defines them."""
    (tmp_path / "nomonths.bst").write_text(_NO_MONTHS, encoding="utf-8")
    _project(tmp_path, "nomonths", _MONTH_USES)
    oracle = _bibtex_warns(tmp_path, "main")
    assert oracle == {"jan", "feb", "jul"}
    findings = _undefined(tmp_path)
    assert sorted(str(f.data["name"]) for f in findings) == ["JUL", "feb", "jan"]
    assert all(f.effective_severity is Severity.WARNING for f in findings)
    text = (tmp_path / "refs.bib").read_text()
    assert [text[f.location.span.start : f.location.span.end] for f in findings] == [
        "jan",
        "feb",
        "JUL",
    ]
    assert findings[0].message == (
        "undefined @string macro 'jan': the BibTeX style 'nomonths' defines no such month"
    )
    # plain.bst defines them; a style not found here may: no finding
    main = tmp_path / "main.tex"
    main.write_text(main.read_text().replace("{nomonths}", "{plain}"))
    shutil.copy(BST / "plain.bst", tmp_path)
    assert _undefined(tmp_path) == []
    main.write_text(main.read_text().replace("{plain}", "{citewardenabsentstyle}"))
    assert _undefined(tmp_path) == []


def test_a_macro_in_a_field_the_style_does_not_read_is_no_finding(tmp_path: Path) -> None:
    """plain.bst names no doi or url in its ENTRY: BibTeX reads neither field, nor the
    macros in them.  A reader that reads every field (pandoc) keeps the finding."""
    shutil.copy(BST / "plain.bst", tmp_path)
    bib = (
        "@article{a, author = {A}, title = nosuchtitle, journal = {J}, year = 2000,\n"
        "  doi = nosuchdoi, url = nosuchurl # {/x}, crossref = nosuchparent}\n"
    )
    _project(tmp_path, "plain", bib)
    assert _bibtex_warns(tmp_path, "main") == {"nosuchtitle", "nosuchparent"}
    assert _names(_undefined(tmp_path)) == {"nosuchtitle", "nosuchparent"}
    (tmp_path / "notes.md").write_text("---\nbibliography: refs.bib\n---\n[@a]\n")
    assert _names(_undefined(tmp_path)) == {"nosuchtitle", "nosuchparent", "nosuchdoi", "nosuchurl"}


def test_a_macro_in_an_entry_no_project_cites_is_no_finding(tmp_path: Path) -> None:
    """BibTeX reads the entries cited and their crossref parents: the macro of an entry
    nobody cites is read by no one (the entry is an orphan), unless pandoc reads it."""
    shutil.copy(BST / "plain.bst", tmp_path)
    bib = (
        "@inproceedings{child, author = {A}, title = {T}, crossref = {parent}, year = 2000}\n"
        "@proceedings{parent, title = {P}, booktitle = nosuchp, year = 2000}\n"
        "@article{c, author = {C}, title = {T}, journal = nosuchjournal, year = 2000}\n"
    )
    _project(tmp_path, "plain", bib)
    main = tmp_path / "main.tex"
    main.write_text(main.read_text().replace("\\nocite{*}", "\\cite{child}"))
    assert _bibtex_warns(tmp_path, "main") == {"nosuchp"}
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    found = [f for fs in check(ws).values() for f in fs]
    assert _names([f for f in found if f.code is Code.UNDEFINED_STRING]) == {"nosuchp"}
    assert [f.data["key"] for f in found if f.code is Code.ORPHAN] == ["c"]
    (tmp_path / "notes.md").write_text("---\nbibliography: refs.bib\n---\n[@child]\n")
    assert _names(_undefined(tmp_path)) == {"nosuchp", "nosuchjournal"}


def test_a_style_changed_on_disk_is_read_at_the_next_check(tmp_path: Path) -> None:
    """Nothing may tell the workspace (a file outside it, a client watching no files):
    each check looks at the style files again (a few stats), whatever was edited."""
    _project(tmp_path, "mystyle", _bib(["foo"]))
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    checker = Checker()

    def undefined() -> list[Finding]:
        found = checker.check(ws)
        return [f for fs in found.values() for f in fs if f.code is Code.UNDEFINED_STRING]

    assert [f.effective_severity for f in undefined()] == [Severity.INFORMATION]
    style = tmp_path / "mystyle.bst"
    style.write_text('ENTRY {journal} {} {}\nMACRO {foo} {"Foo"}\nREAD\n', encoding="utf-8")
    main = tmp_path / "main.tex"
    ws.set_text(main, main.read_text() + "% an edit that changes no link\n")
    assert undefined() == []
    style.write_text('ENTRY {journal} {} {}\nMACRO {bar} {"Bar Journal"}\nREAD\n', encoding="utf-8")
    assert [f.effective_severity for f in undefined()] == [Severity.WARNING]
    # unchanged: the graph is kept
    projects = ws.projects()
    undefined()
    assert ws.projects() is projects
