"""Chains of edits re-checked incrementally give, after every step, the findings (and fixes)
of a check from scratch: the per-version caches of the checks (orphan positions, suggestion
pools, duplicate counts, crossref findings) never outlive what they depend on."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from checking import check
from citewarden import file_state
from citewarden import project as project_module
from citewarden.checks.dangling import suggest_keys
from citewarden.checks.duplicates import _normalised_titles, _title_ident
from citewarden.model import Finding
from citewarden.project import Workspace, normalize_path
from citewarden.settings import Settings

BIB = "".join(
    f"@article{{key{i},\n  title = {{A rather long title number {i}}},\n"
    f"  year = {{{2000 + i % 20}}},\n  doi = {{10.1000/x{i}}},\n}}\n\n"
    for i in range(30)
) + (
    "@book{parent,\n  title = {The Parent Proceedings Volume},\n  year = {2001},\n}\n\n"
    "@inproceedings{child,\n  title = {A child paper of a proceedings},\n"
    "  crossref = {parent},\n}\n\n"
    "@inproceedings{stray,\n  title = {Paper with a missing parent},\n  crossref = {gone},\n}\n"
)
MAIN = (
    "\\documentclass{article}\n\\begin{document}\n\\input{ch}\n"
    "\\bibliography{refs}\n\\end{document}\n"
)
CHAPTER = "".join(f"\\cite{{key{i}}}\n" for i in range(0, 30, 2)) + "\\cite{child}\n\\cite{kye4}\n"

#: (file, old, new): applied one after the other to the current texts
STEPS = [
    ("refs.bib", "title number 7}", "title number 7 revised}"),
    ("refs.bib", "{10.1000/x9}", "{10.1000/x8}"),  # a duplicate DOI appears
    ("ch.tex", "\\cite{key2}", " \\cite{key2}"),  # a space: same keys, spans move
    ("refs.bib", "title number 3}", "title number 1}"),  # duplicate title, other year
    ("refs.bib", "year = {2003}", "year = {2001}"),  # ... and now the same year
    ("ch.tex", "\\cite{kye4}", "\\cite{kye4}\\cite{key3}"),  # an orphan gets cited
    ("refs.bib", "@article{key12,", "@article{key12b,"),  # a cited key changes: dangling
    ("refs.bib", "{10.1000/x8}", "{10.1000/x9}"),  # the duplicate DOI goes away
    ("refs.bib", "crossref = {gone}", "crossref = {parent}"),
    ("refs.bib", "@article{key12b,", "@article{key12,"),
    ("ch.tex", "\\cite{child}\n", ""),  # the parent is no longer reached
    (
        "refs.bib",
        "@article{key20,",
        "@misc{fresh, title={Fresh entry with a title}}\n\n@article{key20,",
    ),
    # keys typed into: answers updated from the previous ones (see checks.defined.KeyDelta)
    ("refs.bib", "@article{key1,", "@article{key1x,"),  # an orphan renamed: still one
    ("refs.bib", "@article{key14,", "@article{KEY14,"),  # cited, in another case
    ("refs.bib", "@article{key16,", "@article{key17,"),  # onto an orphan's key: duplicate
    ("refs.bib", "@book{parent,", "@book{parentx,"),  # the crossref parent renamed
    ("refs.bib", "@book{parentx,", "@book{parent,"),
    ("ch.tex", "\\cite{kye4}", "\\cite{kye4}\\cite{al1}"),  # an alias not defined yet
    ("refs.bib", "@article{key21,", "@article{key21,\n  ids = {al1},"),
    ("refs.bib", "@article{key21,", "@article{key21y,"),  # the aliased entry renamed
    ("refs.bib", "@article{key23,", "@article{key21y,"),  # another takes its key
    ("refs.bib", "@article{key25,", "@article{al1,"),  # a key equal to the alias
    ("refs.bib", "@article{al1,", "@article{key25,"),
]


def _summary(result: dict[Path, list[Finding]]) -> list[tuple[object, ...]]:
    return sorted(
        (
            p.name,
            f.code.value,
            f.location.span.start,
            f.location.span.end,
            f.message,
            tuple(
                (x.title, tuple((e.path.name, e.span, e.new_text) for e in x.edits))
                for x in f.fixes
            ),
            tuple((r.location.path.name, r.location.span) for r in f.related),
        )
        for p, fs in result.items()
        for f in fs
    )


def _checked_workspace(tmp_path: Path, texts: dict[str, str]) -> tuple[Path, Workspace]:
    """A workspace of ``texts`` in ``tmp_path/project``, checked once (checking it again
    gives the same findings from the cache)."""
    project = tmp_path / "project"
    project.mkdir()
    for name, text in texts.items():
        (project / name).write_text(text, encoding="utf-8")
    ws = Workspace(root=project)
    ws.add_folder(project)
    check(ws)
    return project, ws


def _fresh_check(folder: Path, texts: dict[str, str]) -> dict[Path, list[Finding]]:
    folder.mkdir()
    for name, text in texts.items():
        (folder / name).write_text(text, encoding="utf-8")
    ws = Workspace(root=folder)
    ws.add_folder(folder)
    return check(ws)


@pytest.mark.parametrize("hinted", [False, True], ids=["compared", "editor-hint"])
def test_a_chain_of_edits_matches_fresh_checks(
    tmp_path: Path, hinted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``hinted``, each edit comes with the unchanged prefix and suffix an editor's
    change event gives (as the language server passes them), instead of being found by
    comparing the texts."""
    texts = {"main.tex": MAIN, "ch.tex": CHAPTER, "refs.bib": BIB}
    project, ws = _checked_workspace(tmp_path, texts)
    if hinted:  # the texts are never compared to find what changed

        def compared(old: str, new: str) -> tuple[int, int, int]:
            raise AssertionError("the editor's hint was not used")

        monkeypatch.setattr(project_module, "changed_region", compared)
        monkeypatch.setattr(file_state, "changed_region", compared)
    for n, (name, old, new) in enumerate(STEPS):
        assert old in texts[name], (n, old)
        at = texts[name].index(old)
        unchanged = (at, len(texts[name]) - at - len(old)) if hinted else None
        texts[name] = texts[name].replace(old, new, 1)
        ws.set_text(normalize_path(project / name), texts[name], unchanged=unchanged)
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"


@pytest.mark.parametrize(
    "key",
    ["key1", "KEY12", "kye4", "smith2020", "", "Müller"],
)
def test_suggestions_equal_a_casefolding_rapidfuzz_search(key: str) -> None:
    from rapidfuzz import fuzz, process

    pool = ["key1", "Key12", "key12", "müller2020", "smith2021", "SMITH2020a", "other"]
    matches = process.extract(
        key, pool, scorer=fuzz.ratio, processor=str.casefold, limit=6, score_cutoff=60.0
    )
    expected: dict[str, float] = {}
    for name, score, _ in matches:
        if name not in expected and name != key:
            expected[name] = float(score)
    assert suggest_keys(key, pool) == list(expected.items())[:3]


@pytest.mark.parametrize(
    "titles",
    [
        ["A rather long title", None, "", "Short", "Deep \\emph{Learning} of things"],
        ["Ends with a backslash \\", "Has a NUL \x00 inside it", "Accents: très élevé ok"],
        ["Under_scores_count_as_gaps", "\\TeX{} and {LaTeX} typesetting", "\\'{e}t\\'{e} long"],
        ["ǅemal's Straße title", "Ĳssel river title", "x" * 12, "x" * 11],
    ],
)
def test_titles_normalised_together_equal_one_by_one(titles: list[str | None]) -> None:
    together = _normalised_titles([t or "" for t in titles])
    assert together == [_title_ident(t) if t else "" for t in titles]


STRING_BIB = (
    '@string{dx = "10.1000/shared"}\n@string{tt = "A title held in a macro"}\n\n'
    + "".join(
        f"@article{{filler{i},\n  title = {{Filler number {i}}},\n  year = {{2010}},\n}}\n\n"
        for i in range(5)
    )
    + "@article{bymacro,\n  title = tt,\n  year = {2001},\n  doi = dx,\n}\n\n"
    + "@article{literal,\n  title = {A title held in a macro},\n  year = {2001},\n"
    "  doi = {10.1000/shared},\n}\n"
)
STRING_CHAPTER = "\\cite{bymacro}\n\\cite{literal}\n"

#: edits of the @string definitions only; the entries that use them are not touched
STRING_STEPS = [
    ('dx = "10.1000/shared"', 'dx = "10.1000/other"'),  # the duplicate DOI goes away
    ('tt = "A title held in a macro"', 'tt = "Another title"'),  # ... and the duplicate title
    ('dx = "10.1000/other"', 'dx = "10.1000/shared"'),  # the duplicate DOI comes back
]


def test_editing_a_string_macro_updates_entries_that_use_it(tmp_path: Path) -> None:
    texts = {"main.tex": MAIN, "ch.tex": STRING_CHAPTER, "refs.bib": STRING_BIB}
    project, ws = _checked_workspace(tmp_path, texts)
    first = check(ws)
    assert any(f.code.value == "duplicate-work" for fs in first.values() for f in fs)
    for n, (old, new) in enumerate(STRING_STEPS):
        texts["refs.bib"] = texts["refs.bib"].replace(old, new, 1)
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"])
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"


def test_a_key_typed_into_is_not_checked_against_every_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typing into a key updates the dangling and orphan answers from the previous ones:
    neither every cited key nor every defined key is looked at again."""
    from citewarden.checks import defined, orphans

    texts = {"main.tex": MAIN, "ch.tex": CHAPTER, "refs.bib": BIB}
    project, ws = _checked_workspace(tmp_path, texts)

    def everything(*args: object) -> object:
        raise AssertionError("computed from scratch")

    monkeypatch.setattr(orphans, "_uncited", everything)
    monkeypatch.setattr(defined.Defined, "missing", everything)
    for old, new in (("@article{key12,", "@article{key12b,"), ("@article{key3,", "@article{k3,")):
        at = texts["refs.bib"].index(old)
        unchanged = (at, len(texts["refs.bib"]) - at - len(old))
        texts["refs.bib"] = texts["refs.bib"].replace(old, new, 1)
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"], unchanged=unchanged)
        incremental = check(ws)
        monkeypatch.undo()
        fresh = _fresh_check(tmp_path / f"fresh-{new[9:-1]}", texts)
        assert _summary(incremental) == _summary(fresh)
        monkeypatch.setattr(orphans, "_uncited", everything)
        monkeypatch.setattr(defined.Defined, "missing", everything)


KEYS = st.sampled_from(["a1", "A1", "b2", "c3", "d4", "al", "par", "x"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(KEYS, min_size=3, max_size=7),
    st.lists(KEYS, max_size=6),
    st.lists(st.tuples(st.integers(0, 6), KEYS), min_size=1, max_size=5),
)
def test_random_key_edits_match_fresh_checks(
    keys: list[str], cited: list[str], renames: list[tuple[int, str]]
) -> None:
    """Keys renamed one after the other (duplicates, case variants, an ``ids`` alias and a
    crossref parent among them), each with the editor's hint: every incremental check gives
    the findings of a check from scratch."""
    entries = []
    for n, key in enumerate(keys):
        extra = "  ids = {al},\n" if n == 1 else "  crossref = {par},\n" if n == 2 else ""
        entries.append(f"@article{{{key},\n{extra}  title = {{Title number {n} here}},\n}}\n")
    texts = {
        "main.tex": MAIN,
        # the crossref child is cited (its parent "par" is reached, not an orphan), and so
        # is the alias of the entry with ``ids``
        "ch.tex": "".join(f"\\cite{{{k}}}\n" for k in [*cited, keys[2], "al"]),
        "refs.bib": "\n".join(entries),
    }
    with tempfile.TemporaryDirectory() as tmp:
        project, ws = _checked_workspace(Path(tmp), dict(texts))
        for step, (n, new_key) in enumerate(renames):
            bib = texts["refs.bib"]
            n %= len(keys)
            head = f"@article{{{keys[n]},"
            at = [m.start() for m in re.finditer("@article{", bib)][n]
            assert bib.startswith(head, at)
            texts["refs.bib"] = bib[:at] + f"@article{{{new_key}," + bib[at + len(head) :]
            unchanged = (at, len(bib) - at - len(head))
            keys[n] = new_key
            ws.set_text(
                normalize_path(project / "refs.bib"), texts["refs.bib"], unchanged=unchanged
            )
            incremental = check(ws)
            fresh = _fresh_check(Path(tmp) / f"fresh{step}", texts)
            assert _summary(incremental) == _summary(fresh), (step, keys)


#: keys of the two-bibliography projects (case variants: BibTeX matches them casefolded)
BIB_KEYS = st.sampled_from(["p", "P", "q", "c1", "x", "X"])
#: what follows an entry's closing brace
AFTER_ENTRY = st.sampled_from(["\n", "\n", "\r\n", "\r", "  \n", " \r\n", "\t\r", " ", ""])
#: what an edit writes
SNIPPETS = st.sampled_from(
    ["", "x", " ", "\n", "\r", "\r\n", "}", "{", "=", ",", "p", "crossref = {p},",
     "@misc{q, title={Q}}\n", "@book{P, title={B}}\r\n"]
)  # fmt: skip


@st.composite
def _bib_entry(draw: st.DrawFn) -> str:
    """An entry with a key of :data:`BIB_KEYS`, now and then a ``crossref`` to another
    (in its file or the other), a field without ``=`` or no closing brace."""
    key = draw(BIB_KEYS)
    crossref = draw(st.none() | BIB_KEYS)
    flaw = draw(st.sampled_from(["", "", "", "no-equals", "unclosed"]))
    fields = f" crossref = {{{crossref}}}," if crossref is not None else ""
    fields += " title  {T}" if flaw == "no-equals" else " title = {T}"
    return f"@inproceedings{{{key},{fields}" + ("" if flaw == "unclosed" else "}")


#: an edit: (file, where: "brace" right after a closing brace, "brace+1" one character
#: after it, or "any", which one (modulo their number), characters deleted, text written)
EDITS = st.tuples(
    st.sampled_from(["a.bib", "b.bib"]),
    st.sampled_from(["brace", "brace+1", "any"]),
    st.integers(0, 400),
    st.sampled_from([0, 0, 1, 2, 5]),
    SNIPPETS,
)


def _edit_place(text: str, where: str, n: int) -> int:
    if where == "any" or "}" not in text:
        return n % (len(text) + 1)
    braces = [m.end() for m in re.finditer("}", text)]
    at = braces[n % len(braces)]
    return min(len(text), at + (where == "brace+1"))


def check_two_bibliography_edits(
    a: list[tuple[str, str]],
    b: list[tuple[str, str]],
    biber: bool,
    cited: list[str],
    edits: list[tuple[str, str, int, int, str]],
) -> None:
    """The checks of a project reading a.bib and b.bib (with BibTeX, or biblatex and
    biber) after each of ``edits``, with the editor's hint, are those from scratch."""
    if biber:
        head = "\\usepackage{biblatex}\n\\addbibresource{a.bib}\n\\addbibresource{b.bib}\n"
        tail = "\\printbibliography\n"
    else:
        head, tail = "", "\\bibliography{a,b}\n"
    cites = "".join(f"\\cite{{{k}}}\n" for k in cited)
    texts = {
        "main.tex": f"\\documentclass{{article}}\n{head}\\begin{{document}}\n{cites}{tail}"
        "\\end{document}\n",
        "a.bib": "".join(entry + end for entry, end in a),
        "b.bib": "".join(entry + end for entry, end in b),
    }
    with tempfile.TemporaryDirectory() as tmp:
        project, ws = _checked_workspace(Path(tmp), dict(texts))
        for step, (name, where, n, deleted, written) in enumerate(edits):
            text = texts[name]
            at = _edit_place(text, where, n)
            end = min(len(text), at + deleted)
            texts[name] = text[:at] + written + text[end:]
            ws.set_text(
                normalize_path(project / name), texts[name], unchanged=(at, len(text) - end)
            )
            incremental = check(ws)
            fresh = _fresh_check(Path(tmp) / f"fresh{step}", texts)
            assert _summary(incremental) == _summary(fresh), (step, texts)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(_bib_entry(), AFTER_ENTRY), min_size=1, max_size=5),
    st.lists(st.tuples(_bib_entry(), AFTER_ENTRY), max_size=4),
    st.booleans(),
    st.lists(BIB_KEYS, max_size=3),
    st.lists(EDITS, min_size=1, max_size=6),
)
def test_random_edits_of_two_bibliographies_match_fresh_checks(
    a: list[tuple[str, str]],
    b: list[tuple[str, str]],
    biber: bool,
    cited: list[str],
    edits: list[tuple[str, str, int, int, str]],
) -> None:
    """Edits anywhere in two bibliographies of one project (right after an entry's closing
    brace above all), whose entries cross-reference each other across the files, repeat
    keys, end their lines with \\n, \\r\\n or a lone \\r and are now and then malformed:
    every incremental check, fixes included, gives the findings of a check from scratch."""
    check_two_bibliography_edits(a, b, biber, cited, edits)


BIBUNITS_TEXTS = {
    "main.tex": (
        "\\documentclass{report}\n\\usepackage{bibunits}\n\\begin{document}\n"
        "\\defaultbibliography{first}\n\\include{ch}\n"
        "\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n\\end{document}\n"
    ),
    "ch.tex": "\\defaultbibliography{second}\n\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n",
    "first.bib": "@misc{f, title={F}}\n",
    "second.bib": "@misc{s, title={S}}\n",
}
#: edits that change which default a bare \putbib reads, without changing a link
BIBUNITS_STEPS = [
    # a unit before the chapter's default: it reads the root's, first.bib (not read before)
    (
        "ch.tex",
        "\\defaultbibliography{second}\n",
        "\\begin{bibunit}\\cite{f}\\putbib\\end{bibunit}\n\\defaultbibliography{second}\n",
    ),
    # the root's unit moves before the \include: it reads first.bib, and s is dangling
    (
        "main.tex",
        "\\include{ch}\n\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n",
        "\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n\\include{ch}\n",
    ),
    # the chapter's first unit goes: first.bib is read by the root's unit only
    ("ch.tex", "\\begin{bibunit}\\cite{f}\\putbib\\end{bibunit}\n", ""),
    # and back after the \include: no unit reads first.bib, f is no orphan
    (
        "main.tex",
        "\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n\\include{ch}\n",
        "\\include{ch}\n\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n",
    ),
]


#: a preamble kept in a file of its own, whose default is the preamble's: the body's
#: default holds for the unit until the file is read in the body instead
PREAMBLE_TEXTS = {
    "main.tex": (
        "\\documentclass{report}\n\\usepackage{bibunits}\n\\input{pre}\n\\begin{document}\n"
        "\\begin{bibunit}\\cite{s}\\putbib\\end{bibunit}\n\\defaultbibliography{second}\n"
        "\\end{document}\n"
    ),
    "pre.tex": "\\defaultbibliography{first}\n",
    "first.bib": "@misc{f, title={F}}\n",
    "second.bib": "@misc{s, title={S}}\n",
}
PREAMBLE_STEPS = [
    # \begin{document} moves before the \input: the unit reads first.bib (s dangling, f
    # an orphan)
    ("main.tex", "\\input{pre}\n\\begin{document}\n", "\\begin{document}\n\\input{pre}\n"),
    # and back: the preamble's default again gives way to the body's
    ("main.tex", "\\begin{document}\n\\input{pre}\n", "\\input{pre}\n\\begin{document}\n"),
]


#: a .bib file using the @string macros of one read before it (IEEEabrv.bib, refs.bib)
STRINGS_TEXTS = {
    "main.tex": (
        "\\documentclass{article}\n\\begin{document}\n\\cite{a}\\nocite{*}\n"
        "\\bibliographystyle{plain}\n\\bibliography{abbrev,refs}\n\\end{document}\n"
    ),
    "abbrev.bib": '@string{jmlr = "J. Mach. Learn. Res."}\n',
    "refs.bib": "@article{a, title={T}, author={A. B}, journal=jmlr, year=2020}\n"
    + "".join(f"@misc{{m{i}, title={{M{i}}}, journal=jmlr}}\n" for i in range(30)),
}
STRINGS_STEPS = [
    # the macros' file named after the file using them: undefined there, as for BibTeX
    ("main.tex", "{abbrev,refs}", "{refs,abbrev}"),
    ("main.tex", "{refs,abbrev}", "{abbrev,refs}"),
    # the macro renamed where it is defined
    ("abbrev.bib", "{jmlr =", "{jmlrx ="),
    ("abbrev.bib", "{jmlrx =", "{jmlr ="),
    # an edit of the file using them keeps them (read again in part)
    ("refs.bib", "title={M12}", "title={N12}"),
]


@pytest.mark.parametrize(
    ("texts", "steps", "distinct"),
    [
        (BIBUNITS_TEXTS, BIBUNITS_STEPS, 3),
        (PREAMBLE_TEXTS, PREAMBLE_STEPS, 2),
        (STRINGS_TEXTS, STRINGS_STEPS, 2),
    ],
    ids=["reordered", "preamble-input", "string-macros"],
)
def test_what_earlier_files_pass_on_follows_edits_that_reorder_them(
    tmp_path: Path,
    texts: dict[str, str],
    steps: list[tuple[str, str, str]],
    distinct: int,
) -> None:
    """Which default file a bare ``\\putbib`` reads depends on the order of defaults,
    units, ``\\include`` links and ``\\begin{document}``, and which ``@string`` macros a
    .bib file knows on the files read before it: an edit that only reorders them, or
    changes the macros, rebuilds the project."""
    texts = dict(texts)
    project, ws = _checked_workspace(tmp_path, texts)
    seen = {tuple(_summary(check(ws)))}
    for n, (name, old, new) in enumerate(steps):
        assert old in texts[name], (n, old)
        texts[name] = texts[name].replace(old, new, 1)
        ws.set_text(normalize_path(project / name), texts[name])
        incremental = _summary(check(ws))
        assert incremental == _summary(_fresh_check(tmp_path / f"fresh{n}", texts)), n
        seen.add(tuple(incremental))
    # reordered: none; then s dangling; then s dangling and f an orphan.  preamble-input:
    # none; then s dangling and f an orphan.  string-macros: none; then the macro undefined
    assert len(seen) == distinct


#: documents whose links do not resolve, or are written with macros or patterns: the
#: project graph holds those links (see :func:`citewarden.project_graph.moved_links`)
LINK_TEXTS = {
    "missing.tex": (
        "\\documentclass{article}\n\\begin{document}\nSee \\cite{knuth1984} \\input{nochap}\n"
        "\\bibliography{gone}\n\\end{document}\n"
    ),
    "biblatex.tex": (
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs}\n"
        "\\addbibresource{https://example.org/remote.bib}\n"
        "\\addbibresource[glob]{parts/*.bib}\n\\addbibresource[glob]{none/*.bib}\n"
        "\\addbibresource{\\nowhere}\n"
        "\\begin{document}\n\\cite{knuth1984,p1}\n\\printbibliography\n\\end{document}\n"
    ),
    "macro.tex": (
        "\\documentclass{article}\n\\newcommand{\\bibfile}{refs}\n\\begin{document}\n"
        "\\cite{knuth1984}\n\\bibliography{\\bibfile}\n\\bibliography{refs,\\nowhere}\n"
        "\\end{document}\n"
    ),
    "units.tex": (
        "\\documentclass{article}\n\\usepackage{bibunits}\n\\begin{document}\n"
        "\\begin{bibunit}\n\\cite{knuth1984}\n\\putbib\n\\end{bibunit}\n"
        "\\defaultbibliography{gonedefault}\n"
        "\\begin{bibunit}\n\\cite{knuth1984}\n\\putbib\n\\end{bibunit}\n\\end{document}\n"
    ),
    "jobname.tex": (
        "\\documentclass{article}\n\\usepackage{bibunits}\n\\begin{document}\n"
        "\\begin{bibunit}\n\\cite{knuth1984}\n\\putbib\n\\end{bibunit}\n\\end{document}\n"
    ),
    "shared.tex": (
        "\\documentclass{article}\n\\usepackage{biblatex}\n"
        "\\addbibresource[glob]{../shared/*.bib}\n"
        "\\begin{document}\n\\cite{s1}\n\\printbibliography\n\\end{document}\n"
    ),
    "paper.md": "---\ntitle: T\nbibliography: [refs.bib, gone.bib]\n---\n\nSee [@knuth1984].\n",
    "refs.bib": "@book{knuth1984, title={T}}\n",
    "parts/p.bib": "@book{p1, title={P}}\n",
}

#: edits before (and between) those links that change none of them
LINK_STEPS = [
    ("missing.tex", "\\begin{document}\n", "\\begin{document}\n% a new comment line\n"),
    ("missing.tex", "\\bibliography{gone}", "XYZ\\bibliography{gone}"),
    ("missing.tex", "See \\cite", "See also \\cite"),
    ("biblatex.tex", "\\addbibresource{refs}", "    \\addbibresource{refs}"),
    ("biblatex.tex", "\\usepackage{biblatex}\n", "% a comment\n\\usepackage{biblatex}\n"),
    ("macro.tex", "\\newcommand", "% moved\n\\newcommand"),
    ("macro.tex", "\\bibliography{refs,", "  \\bibliography{refs,"),
    ("units.tex", "\\begin{document}\n", "\\begin{document}\n% first\n"),
    ("units.tex", "\\defaultbibliography", "\n\\defaultbibliography"),
    ("jobname.tex", "\\begin{bibunit}", "% a unit\n\\begin{bibunit}"),
    ("biblatex.tex", "\\addbibresource{\\nowhere}", "\n\\addbibresource{\\nowhere}"),
    ("shared.tex", "\\usepackage{biblatex}", "\\usepackage[style=numeric]{biblatex}"),
    ("paper.md", "title: T\n", "title: A longer title\nauthor: A\n"),
]


def _written(folder: Path, texts: dict[str, str], settings: Settings | None = None) -> Workspace:
    """A workspace of ``texts`` (names may hold folders) written to ``folder``, checked."""
    for name, text in texts.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    ws = Workspace(settings, root=folder)
    ws.add_folder(folder)
    check(ws)
    return ws


def test_edits_before_links_move_their_findings_and_fixes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit before a link that changes no link keeps the project graph, and the
    findings on the links it holds (a missing file, a resource named without .bib and its
    fix, a remote resource, a pattern, a macro, a bibunits default, a resource outside
    the folder) move with the text, as a check from scratch gives them."""
    texts = dict(LINK_TEXTS)
    _written(tmp_path / "shared", {"s.bib": "@book{s1, title={S}}\n"})  # outside the folder
    ws = _written(tmp_path / "project", texts)
    computed = 0
    compute = Workspace._compute_projects

    def counted(self: Workspace) -> list[project_module.Project]:
        nonlocal computed
        computed += self is ws
        return compute(self)

    monkeypatch.setattr(Workspace, "_compute_projects", counted)
    for n, (name, old, new) in enumerate(LINK_STEPS):
        assert old in texts[name], (n, old)
        texts[name] = texts[name].replace(old, new, 1)
        ws.set_text(normalize_path(tmp_path / "project" / name), texts[name])
        incremental = _summary(check(ws))
        fresh = _summary(check(_written(tmp_path / f"fresh{n}", texts)))
        assert incremental == fresh, f"step {n}: {old!r} -> {new!r}"
    assert computed == 0  # the graph was kept: the links were only moved
    codes = {code for _, code, *_ in incremental}
    assert {"missing-include", "missing-bibliography", "bibliography-unresolved"} <= codes


def test_the_fix_of_a_resource_named_without_its_extension_follows_an_edit(
    tmp_path: Path,
) -> None:
    """Four spaces typed before ``\\addbibresource{refs}``: the fix adds .bib after the
    name where it now is (it wrote ``\\addbibresource{.bibrefs}``)."""
    text = (
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs}\n"
        "\\begin{document}\n\\cite{knuth1984}\n\\printbibliography\n\\end{document}\n"
    )
    project, ws = _checked_workspace(
        tmp_path, {"main.tex": text, "refs.bib": LINK_TEXTS["refs.bib"]}
    )
    text = text.replace("\\addbibresource{refs}", "    \\addbibresource{refs}")
    main = ws.set_text(normalize_path(project / "main.tex"), text)
    (finding,) = [f for f in check(ws)[main] if f.code.value == "missing-bibliography"]
    assert text[finding.location.span.start : finding.location.span.end] == "refs"
    (edit,) = finding.fixes[0].edits
    fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    assert "\n    \\addbibresource{refs.bib}\n" in fixed


def test_a_buffer_grown_over_the_size_limit_is_read_as_the_file_on_disk(
    tmp_path: Path,
) -> None:
    """A .bib buffer over ``max_file_mb``: its links are broken (``file-unreadable``, no
    dangling citations), as a check of the file on disk finds; back under the limit, its
    entries count again."""
    settings = Settings(max_file_mb=0.01)
    big = "".join(f"@book{{k{i:04d}, title={{T {i}}}}}\n" for i in range(800))
    small = "@book{k0001, title={T}}\n"
    main = "\\documentclass{article}\n\\begin{document}\n\\cite{k0001,zz}\n"
    main += "\\bibliography{refs}\n\\end{document}\n"

    ws = _written(tmp_path / "edited", {"main.tex": main, "refs.bib": small}, settings)
    refs = normalize_path(tmp_path / "edited" / "refs.bib")
    for n, text in enumerate([big, small, big]):
        ws.set_text(refs, text)
        fresh = _written(tmp_path / f"fresh{n}", {"main.tex": main, "refs.bib": text}, settings)
        assert _summary(check(ws)) == _summary(check(fresh)), n
    codes = {(p.name, f.code.value) for p, fs in check(ws).items() for f in fs}
    assert codes == {("main.tex", "file-unreadable"), ("refs.bib", "file-unreadable")}
    messages = {f.message for fs in check(ws).values() for f in fs}
    assert any("22 KB, larger than the 10 KB limit" in m for m in messages), messages


def test_an_edited_bibliographys_index_rows_are_those_of_a_fresh_index() -> None:
    """The alias, parent and ``crossref`` rows spliced after an edit equal those a fresh
    index builds, whatever the edit does to the ``crossref`` and ``xdata`` fields."""
    from citewarden.file_state import build_bib_index, update_bib_index
    from citewarden.parsing.bibtex import parse_bibtex

    base = (
        "@proceedings{p1, title={P1}}\n"
        "@inproceedings{c1, crossref={p1}, title={C1}}\n"
        "@inproceedings{c2, xdata={x1}, title={C2}}\n"
        "@inproceedings{c3, crossref = { p1 }, ids={c3b}, title={C3}}\n"
        "@xdata{x1, publisher={X}}\n"
    )
    edits = [
        ("crossref={p1}, title={C1}", "xdata={p1}, title={C1}"),  # crossref becomes xdata
        ("xdata={x1}", "crossref={x1}"),
        ("@inproceedings{c1", "@inproceedings{c1new"),
        ("@xdata{x1, publisher={X}}\n", ""),  # an entry removed after the others
        ("@proceedings{p1, title={P1}}\n", ""),  # ... and before them (rows shift)
        ("title={C2}}", "title={C2}}\n@misc{new, crossref={c2}, title={N}}"),
    ]
    path = Path("/p/refs.bib")
    for before, after in edits:
        text = base.replace(before, after, 1)
        old = build_bib_index(parse_bibtex(path, base), base)
        new = update_bib_index(old, parse_bibtex(path, text), base, text)
        fresh = build_bib_index(parse_bibtex(path, text), text)
        rows = (new.alias_rows, new.parent_rows, new.crossref_rows)
        assert rows == (fresh.alias_rows, fresh.parent_rows, fresh.crossref_rows), before


#: proceedings above the papers naming them, one in a file named before: BibTeX skips them
CROSSREF_TEXTS = {
    "main.tex": (
        "\\documentclass{article}\n\\begin{document}\n\\cite{c1,c2,c3,c4,other}\n"
        "\\bibliography{procs,refs}\n\\end{document}\n"
    ),
    "procs.bib": "@proceedings{p0, title={Zero}}\n",
    "refs.bib": (
        "@proceedings{p1, title={One}}\n"
        "@inproceedings{c1, crossref={p1}, title={C1}}\n"
        "@misc{other, title={Other}}\n"
        "@proceedings{p2, title={Two}}\n"
        "@inproceedings{c2, crossref={p2}, title={C2}}\n"
        "@inproceedings{c3, crossref={P2}, title={C3}}\n"
        "@inproceedings{c4, crossref={p0}, title={C4}}\n"
        "@misc{tail, title={Tail}}\n"
    ),
}
#: (file, old, new, carried): ``carried`` when the edit cannot change which targets are
#: skipped, so the previous findings are carried over instead of made again
CROSSREF_STEPS = [
    ("refs.bib", "title={Other}", "title={Other, longer}", True),
    ("refs.bib", "@misc{other,", "@misc{otherx,", True),  # a key no crossref names
    ("refs.bib", "@misc{otherx,", "@misc{other,\n  note={two lines},", True),
    ("refs.bib", "@misc{tail,", "@misc{tailx,", True),  # after every finding
    (
        "refs.bib",
        "title={Other, longer}}",
        "title={Other, longer}}\n@misc{added, title={Added}}",  # rows shift
        True,
    ),
    ("procs.bib", "title={Zero}", "title={Zero!}", True),  # the file named first
    ("refs.bib", "@misc{tailx,", "@misc{p2,", False),  # a key a crossref names
    ("refs.bib", "@misc{p2,", "@misc{tail,", False),
    ("refs.bib", "crossref={P2}", "crossref={p1}", False),  # a crossref value
    ("refs.bib", "@proceedings{p1,", "@proceedings{p1x,", False),  # a target renamed
    ("refs.bib", "@proceedings{p1x,", "@proceedings{p1,", False),
    ("refs.bib", "{added, title", "{added,\n\n  title", True),  # lines added mid-file
    ("refs.bib", "title={Two}", "title={Two, revised}", True),  # in a target, not its key
    ("refs.bib", "@proceedings{p2,", "@book{p2,", True),  # a target's key moves
    ("refs.bib", "title={C2}", "title={C2, revised}", False),  # an entry with a crossref
    ("main.tex", "\\cite{c1,", "\\cite{p2,c1,", False),  # a target cited
]


@pytest.mark.parametrize("hinted", [False, True], ids=["compared", "editor-hint"])
def test_crossref_findings_are_carried_over_edits_that_cannot_change_them(
    tmp_path: Path, hinted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An edit that touches no ``crossref`` value and no key one names keeps the
    ``missing-crossref`` findings (those before the edit the very same objects, those after
    it moved with the text) without looking at every entry again; every other edit looks
    again.  After each step the findings are those of a check from scratch.  (Texts
    compared without the editor's hint may show an insertion wider than it was, taking in a
    neighbouring entry: then the findings are made again.)"""
    from citewarden.checks import crossref_order

    made: list[int] = []
    full = crossref_order._skipped_targets

    def counted(*args: object) -> object:
        made.append(1)
        return full(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(crossref_order, "_skipped_targets", counted)
    texts = dict(CROSSREF_TEXTS)
    project, ws = _checked_workspace(tmp_path, texts)
    refs = normalize_path(project / "refs.bib")
    codes = {f.data["key"] for f in check(ws)[refs] if f.code.value == "missing-crossref"}
    assert codes == {"c1", "c2", "c3", "c4"}
    for n, (name, old, new, carried) in enumerate(CROSSREF_STEPS):
        before = {id(f): f for f in check(ws)[refs]}
        at = texts[name].index(old)
        unchanged = (at, len(texts[name]) - at - len(old)) if hinted else None
        texts[name] = texts[name].replace(old, new, 1)
        made.clear()
        ws.set_text(normalize_path(project / name), texts[name], unchanged=unchanged)
        incremental = check(ws)
        # (texts compared, the edit may look wider than it was: the same, or more, looks)
        assert (not made) is carried if hinted else carried or made, f"step {n}: {old!r}"
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"
        if not made and name == "refs.bib":
            edited_at = at
            kept = [f for f in incremental[refs] if f.location.span.end < edited_at]
            assert kept and all(id(f) in before for f in kept if f.code.value == "missing-crossref")


ORPHAN_MAIN = (
    "\\documentclass{article}\n\\begin{document}\n\\cite{zz}\n\\bibliography{refs}\n"
    "\\end{document}\n"
)


@pytest.mark.parametrize(
    ("before", "after", "removed"),
    [
        # the \n of a \r\n deleted: a lone \r, which goes with the entry
        ("}\r\n@misc{d", "}\r@misc{d", "@misc{d, title={D}}\n"),
        # a \n typed after a lone \r: a \r\n, which goes with the entry
        ("}\r@misc{d", "}\r\n@misc{d", "@misc{d, title={D}}\n"),
        # a blank typed between \r and \n: the \r goes alone (the @ of d stays)
        ("}\r\n@misc{d", "}\r \n@misc{d", " \n@misc{d, title={D}}\n"),
        # an x typed between the blanks: the line does not end there, the blanks stay
        ("}  \n@misc{d", "} x \n@misc{d", " x \n@misc{d, title={D}}\n"),
        # a line break typed at the end of the file, after a blank
        ("} ", "} \n", ""),
    ],
    ids=["crlf-to-cr", "cr-to-crlf", "blank-in-crlf", "x-in-blanks", "end-of-file"],
)
def test_remove_entry_follows_an_edit_after_the_entry(
    tmp_path: Path, before: str, after: str, removed: str
) -> None:
    """The orphan findings of the entries before an edit are kept, but not the "Remove
    entry" fix of the entry just before it when the edit changed the blanks or line break
    that go with it: the kept fix deleted the x typed after the entry, or the @ of the next
    one.  ``before`` -> ``after`` is the edit after the orphan c (``removed``: the text once
    c is removed), then the edit back."""
    bib = "@misc{c, title={C}" + before + (", title={D}}\n" if before.endswith("{d") else "")
    texts = {"main.tex": ORPHAN_MAIN, "refs.bib": bib}
    project, ws = _checked_workspace(tmp_path, texts)
    refs = normalize_path(project / "refs.bib")
    for step, (old, new) in enumerate([(before, after), (after, before)]):
        text = texts["refs.bib"]
        at = text.index(old)
        start, old_end, _ = file_state.changed_region(old, new)
        texts["refs.bib"] = text.replace(old, new, 1)
        ws.set_text(refs, texts["refs.bib"], unchanged=(at + start, len(text) - at - old_end))
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{step}", texts)
        assert _summary(incremental) == _summary(fresh), step
        if step == 0:
            (orphan,) = [f for f in incremental[refs] if f.data.get("key") == "c"]
            assert orphan.fixes[0].title == "Remove entry"
            (edit,) = orphan.fixes[0].edits
            new_text = texts["refs.bib"]
            assert new_text[: edit.span.start] + new_text[edit.span.end :] == removed


def test_add_to_nocite_follows_an_edit_of_the_nocite_value(tmp_path: Path) -> None:
    """The orphan findings of an unchanged bibliography are kept while the places of their
    "Add to nocite" edits stay: a ``nocite:`` value edited within its span (a quoted one
    made plain) moves where the key goes."""
    md = '---\ntitle: T\nbibliography: refs.bib\nnocite: "@xyz"\n---\n\nText [@b].\n'
    bib = "@misc{a, title={A}}\n@misc{b, title={B}}\n@misc{xyz, title={X}}\n"
    texts = {"paper.md": md, "refs.bib": bib}
    project, ws = _checked_workspace(tmp_path, texts)
    texts["paper.md"] = md.replace('"@xyz"', "x @xyz")
    paper = ws.set_text(normalize_path(project / "paper.md"), texts["paper.md"])
    incremental = check(ws)
    assert _summary(incremental) == _summary(_fresh_check(tmp_path / "fresh", texts))
    (orphan,) = [f for fs in incremental.values() for f in fs if f.code.value == "orphan-entry"]
    (edit,) = orphan.fixes[-1].edits
    assert edit.path == paper
    text = texts["paper.md"]
    assert "nocite: x @xyz, @a\n" in text[: edit.span.start] + edit.new_text + text[edit.span.end :]


#: a key defined twice: the crossref of its first definition counts (BibTeX and biber
#: skip the later entries of a key)
TWICE_TEXTS = {
    "main.tex": (
        "\\documentclass{article}\n\\begin{document}\n\\cite{x}\n\\bibliography{a,b}\n"
        "\\end{document}\n"
    ),
    "a.bib": (
        "@misc{x, title={A}}\n@misc{x, crossref={p}, title={B}}\n@misc{q, title={Q}}\n"
        "@misc{filler, title={F}}\n"
    ),
    "b.bib": "@misc{x, crossref={q}, title={C}}\n@misc{P, title={P}}\n",
}
TWICE_STEPS = [
    # the first x renamed: the one naming p is now the first (P is reached, in BibTeX's
    # casefolded matching)
    ("a.bib", "@misc{x, title={A}}", "@misc{y, title={A}}"),
    # the files named the other way round: b.bib's x, naming q, is the first
    ("main.tex", "\\bibliography{a,b}", "\\bibliography{b,a}"),
    ("main.tex", "\\bibliography{b,a}", "\\bibliography{a,b}"),
    # a key typed into after the entries naming parents: nothing changes
    ("a.bib", "@misc{filler,", "@misc{fillerx,"),
    # back: the first x names nothing
    ("a.bib", "@misc{y, title={A}}", "@misc{x, title={A}}"),
    # a crossref typed into a malformed first definition (its next field lost its "=")
    ("a.bib", "@misc{x, title={A}}", "@misc{x, crossref = {p},itle  {A}}"),
]


#: the same in one file, where typing into a key reuses the previous answer
TWICE_ONE_FILE_TEXTS = {
    "main.tex": ORPHAN_MAIN.replace("{zz}", "{x}"),
    "refs.bib": (
        "@misc{z, title={Z}}\n@misc{x, title={A}}\n@misc{x, crossref={p}, title={B}}\n"
        "@misc{p, title={P}}\n"
    ),
}
TWICE_ONE_FILE_STEPS = [
    ("refs.bib", "@misc{x, title={A}}", "@misc{y, title={A}}"),  # p is reached
    ("refs.bib", "@misc{z,", "@misc{x,"),  # ... and no longer
    ("refs.bib", "@misc{x, title={Z}}", "@misc{z, title={Z}}"),  # ... and again
    ("refs.bib", "@misc{z,", "@misc{X,"),  # BibTeX reads X as the first x: p is not
    ("refs.bib", "@misc{X,", "@misc{z,"),
]


@pytest.mark.parametrize(
    ("texts", "steps", "expected"),
    [
        (
            TWICE_TEXTS,
            TWICE_STEPS,
            [
                ["filler", "q", "y"],
                ["P", "filler", "y"],
                ["filler", "q", "y"],
                ["fillerx", "q", "y"],
                ["P", "fillerx", "q"],
                ["fillerx", "q"],
            ],
        ),
        (
            TWICE_ONE_FILE_TEXTS,
            TWICE_ONE_FILE_STEPS,
            [["y", "z"], ["p", "y"], ["y", "z"], ["p", "y"], ["y", "z"]],
        ),
    ],
    ids=["two-files", "one-file"],
)
def test_the_first_definition_of_a_key_gives_its_parents_after_edits(
    tmp_path: Path,
    texts: dict[str, str],
    steps: list[tuple[str, str, str]],
    expected: list[list[str]],
) -> None:
    """Of a key defined twice (in one file or two), the crossref of the first definition
    reaches its parent, also after an edit renames a definition, reorders the files or
    writes a crossref into a malformed entry; the orphans were those of whichever
    definition the table of parents happened to hold last."""
    texts = dict(texts)
    project, ws = _checked_workspace(tmp_path, texts)
    orphans = []
    for n, (name, old, new) in enumerate(steps):
        text = texts[name]
        at = text.index(old)
        texts[name] = text.replace(old, new, 1)
        unchanged = (at, len(text) - at - len(old))
        ws.set_text(normalize_path(project / name), texts[name], unchanged=unchanged)
        incremental = check(ws)
        assert _summary(incremental) == _summary(_fresh_check(tmp_path / f"fresh{n}", texts)), n
        found = [f for fs in incremental.values() for f in fs if f.code.value == "orphan-entry"]
        orphans.append(sorted(f.data["key"] for f in found))
    assert orphans == expected


#: the root of a project of each reader, citing ``a``, ``b`` and ``c`` of refs.bib
READER_ROOTS = {
    "biber": (
        "main.tex",
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{a,b,c}\n"
        "\\printbibliography\n\\end{document}\n",
    ),
    "pandoc": ("doc.md", "---\nbibliography: refs.bib\n---\n\n[@a; @b; @c]\n"),
    "bibtex": (
        "main.tex",
        "\\documentclass{article}\n\\begin{document}\n\\cite{a,b,c}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
    ),
}
COMMENT_BIB = (
    "@misc{a,\n  title = {A},\n}\n\n"
    "junk @misc{b, title = {B}}\n\n"
    "@misc{c, title = {C}}\n\n"
    "@misc{d, title = {D}}\n"
)
#: edits that keep every key but change which entries are comments for biber and pandoc
#: (for BibTeX, ``@comment`` is a word alone: the entries stay read)
COMMENT_STEPS = [
    ("@misc{a,", "%@misc{a,"),  # typed at the start of the entry's line
    ("%@misc{a,", "@misc{a,"),  # ... and taken away
    ("junk @misc{b", "%junk @misc{b"),  # typed before junk: the entry is not re-read
    ("%junk @misc{b", "%junk\r@misc{b"),  # a lone CR ends the comment for biber only
    ("%junk\r@misc{b", "junk @misc{b"),
    ("@misc{c, title = {C}}", "@comment{@misc{c, title = {C}}}"),  # wrapped
    ("@comment{@misc{c, title = {C}}}", "@misc{c, title = {C}}"),  # unwrapped
    ("@misc{c, title = {C}}\n\n@misc{d", "@comment{\n@misc{c, title = {C}}\n}\n@misc{d"),
    ("@comment{\n", "@comment(\n"),  # biber: a group still; pandoc: a word
    ("}\n@misc{d", ")\n@misc{d"),
    ("@comment(\n", "@commentary{x,}\n"),  # pandoc skips up to the next @
    ("@commentary{x,}\n", ""),
    (")\n@misc{d", "\n@misc{d"),
    ("@misc{a,\n  title = {A},\n}", "@comment{x} @misc{a,\n  title = {A},\n}"),
    ("@comment{x} @misc{a,", "@comment{x  @misc{a,"),  # the group now holds a
    ("@comment{x  @misc{a,", "@misc{a,"),
]


@pytest.mark.parametrize("hinted", [False, True], ids=["compared", "editor-hint"])
@pytest.mark.parametrize("reader", list(READER_ROOTS))
def test_edits_that_comment_entries_out_match_fresh_checks(
    tmp_path: Path, reader: str, hinted: bool
) -> None:
    """``%`` typed before an entry, an entry wrapped in ``@comment{...}`` and the reverse
    keep every key of the bibliography, and change what biber and pandoc define: the
    dangling citations (and orphans) after each edit are those of a check from scratch."""
    root, root_text = READER_ROOTS[reader]
    texts = {root: root_text, "refs.bib": COMMENT_BIB}
    project, ws = _checked_workspace(tmp_path, texts)
    dangling = []
    for n, (old, new) in enumerate(COMMENT_STEPS):
        text = texts["refs.bib"]
        assert old in text, (n, old)
        at = text.index(old)
        texts["refs.bib"] = text.replace(old, new, 1)
        unchanged = (at, len(text) - at - len(old)) if hinted else None
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"], unchanged=unchanged)
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"
        found = [
            f for fs in incremental.values() for f in fs if f.code.value == "dangling-citation"
        ]
        dangling.append("".join(sorted(str(f.data["key"]) for f in found)))
    if reader == "bibtex":
        assert set(dangling) == {""}  # BibTeX reads every entry here
    else:  # the edits do comment entries out, and in again
        assert dangling[:2] == ["a", ""] and dangling[5:7] == ["c", ""], dangling


def test_a_chapter_shared_by_a_bibtex_and_a_biber_project_has_each_ones_answer(
    tmp_path: Path,
) -> None:
    """An ``ids`` alias is a name for biber, not for BibTeX: the chapter's citation of it is
    dangling in the BibTeX project whichever project is checked first (the answer of the
    biber project was taken for the other's, keyed by the same bibliography and document)."""
    texts = {
        "refs.bib": "@misc{k, ids = {al}, title = {K}}\n",
        "ch.tex": "\\cite{al}\n",
        "b.tex": "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        "\\begin{document}\n\\input{ch}\n\\printbibliography\n\\end{document}\n",
        "z.tex": "\\documentclass{article}\n\\begin{document}\n\\input{ch}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
    }
    found = _fresh_check(tmp_path / "both", texts)
    dangling = [f for f in found[normalize_path(tmp_path / "both" / "ch.tex")]]
    assert [f.data["key"] for f in dangling if f.code.value == "dangling-citation"] == ["al"]


#: what a comment edit writes
COMMENT_SNIPPETS = st.sampled_from(
    ["%", "%", "@comment{", "@comment(", "@Comment {", "}", ")", "\r", "\n", " ", "x"]
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(list(READER_ROOTS)),
    st.lists(
        st.tuples(st.integers(0, 200), st.sampled_from([0, 0, 1]), COMMENT_SNIPPETS),
        min_size=1,
        max_size=6,
    ),
)
def test_random_comment_edits_match_fresh_checks(
    reader: str, edits: list[tuple[int, int, str]]
) -> None:
    """``%``, ``@comment`` groups and line breaks written anywhere in a bibliography, with
    the editor's hint: every incremental check is the check from scratch."""
    root, root_text = READER_ROOTS[reader]
    texts = {root: root_text, "refs.bib": COMMENT_BIB}
    with tempfile.TemporaryDirectory() as tmp:
        project, ws = _checked_workspace(Path(tmp), dict(texts))
        for step, (n, deleted, written) in enumerate(edits):
            text = texts["refs.bib"]
            at = n % (len(text) + 1)
            end = min(len(text), at + deleted)
            texts["refs.bib"] = text[:at] + written + text[end:]
            ws.set_text(
                normalize_path(project / "refs.bib"),
                texts["refs.bib"],
                unchanged=(at, len(text) - end),
            )
            incremental = check(ws)
            fresh = _fresh_check(Path(tmp) / f"fresh{step}", texts)
            assert _summary(incremental) == _summary(fresh), (step, texts["refs.bib"])


DUPLICATE_COMMENT_BIB = (
    "@misc{a, title={A title long enough to be a work}, year={2001}}\n"
    "@misc{a, title={Another title long enough}, year={2001}}\n"
    "@misc{c, title={A title long enough to be a work}, year={2001}}\n"
)
#: edits that make an entry a comment and a definition again: its duplicates come and go
DUPLICATE_COMMENT_STEPS = [
    ("@misc{a, title={Another", "%@misc{a, title={Another"),
    ("%@misc{a, title={Another", "@misc{a, title={Another"),
    ("@misc{c, title={A title long enough to be a work}, year={2001}}", "@comment{@misc{c}}"),
    ("@comment{@misc{c}}", "@misc{c, title={A title long enough to be a work}, year={2001}}"),
    ("@misc{a, title={A title", "% x\r@misc{a, title={A title"),
    ("% x\r@misc{a, title={A title", "@misc{a, title={A title"),
]


@pytest.mark.parametrize("reader", list(READER_ROOTS))
def test_duplicates_follow_edits_that_comment_entries_out(tmp_path: Path, reader: str) -> None:
    """Duplicate keys and works leave out the entries biber and pandoc skip, after each
    edit that comments one out or in as in a check from scratch."""
    root, root_text = READER_ROOTS[reader]
    texts = {root: root_text, "refs.bib": DUPLICATE_COMMENT_BIB}
    project, ws = _checked_workspace(tmp_path, texts)
    counts = []
    for n, (old, new) in enumerate(DUPLICATE_COMMENT_STEPS):
        text = texts["refs.bib"]
        at = text.index(old)
        texts["refs.bib"] = text.replace(old, new, 1)
        unchanged = (at, len(text) - at - len(old))
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"], unchanged=unchanged)
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"
        codes = [f.code.value for fs in incremental.values() for f in fs]
        counts.append((codes.count("duplicate-key"), codes.count("duplicate-work")))
    if reader == "bibtex":  # the group's @misc{c} is read, without a title
        assert counts == [(1, 1), (1, 1), (1, 0), (1, 1), (1, 1), (1, 1)]
    elif reader == "biber":  # a lone CR ends a comment for biber
        assert counts == [(0, 1), (1, 1), (1, 0), (1, 1), (1, 1), (1, 1)]
    else:
        assert counts == [(0, 1), (1, 1), (1, 0), (1, 1), (0, 0), (1, 1)]


@pytest.mark.parametrize("reader", list(READER_ROOTS))
def test_missing_crossrefs_follow_edits_that_comment_entries_out(
    tmp_path: Path, reader: str
) -> None:
    """A ``crossref`` to a key defined nowhere, in an entry commented out and in again:
    each incremental check is the check from scratch."""
    root, root_text = READER_ROOTS[reader]
    texts = {root: root_text, "refs.bib": "@misc{a, crossref={gone}, title={A}}\n"}
    project, ws = _checked_workspace(tmp_path, texts)
    steps = [("@misc{a", "%@misc{a"), ("%@misc{a", "@misc{a"), ("@misc{a", "@comment{x} @misc{a")]
    steps += [
        ("{A}}", "{A}}}"),  # a stray brace after the entry
        ("@comment{x} @misc{a", "@comment{x  @misc{a"),  # now the group's brace: it holds a
        ("@comment{x  @misc{a", "@misc{a"),
    ]
    missing = []
    for n, (old, new) in enumerate(steps):
        text = texts["refs.bib"]
        at = text.index(old)
        texts["refs.bib"] = text.replace(old, new, 1)
        unchanged = (at, len(text) - at - len(old))
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"], unchanged=unchanged)
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"
        codes = [f.code.value for fs in incremental.values() for f in fs]
        missing.append(codes.count("missing-crossref"))
    assert missing == ([1] * 6 if reader == "bibtex" else [0, 1, 1, 1, 0, 1])


def test_a_key_typed_into_the_name_of_an_alias_takes_the_citation_from_its_entry(
    tmp_path: Path,
) -> None:
    """``\\cite{b}`` cites ``a`` through its alias until an entry's key becomes ``b``
    (biber then skips the alias) and again once that key changes back: the orphans after
    each edit of a key are those of a fresh check."""
    texts = {
        "main.tex": "\\documentclass{article}\n\\usepackage{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n\\cite{b,x}\n\\end{document}\n",
        "refs.bib": "@book{a, ids={b}, title={T1}}\n@book{x, title={T2}}\n@book{y, title={T3}}\n",
    }
    project, ws = _checked_workspace(tmp_path, texts)
    for n, (old, new) in enumerate([("{y,", "{b,"), ("{b, t", "{y, t")]):
        texts["refs.bib"] = texts["refs.bib"].replace(old, new, 1)
        ws.set_text(normalize_path(project / "refs.bib"), texts["refs.bib"])
        incremental = check(ws)
        fresh = _fresh_check(tmp_path / f"fresh{n}", texts)
        assert _summary(incremental) == _summary(fresh), f"step {n}: {old!r} -> {new!r}"
        orphans = {
            str(f.data["key"])
            for fs in fresh.values()
            for f in fs
            if f.code.value == "orphan-entry"
        }
        assert orphans == ({"a"} if n == 0 else {"y"})
