"""``crossref``/``xdata`` loops a cited entry leads into (``crossref-loop``), checked against
pandoc and biber themselves: pandoc never finishes on such a document (here it is given
at most 512 MB of memory and 60 s, and runs out of the memory), biber stops with an
error; where they finish, citewarden reports no loop."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Finding
from citewarden.project import Workspace
from citewarden.settings import Settings
from paths import PANDOC_RELEASES

_BODY = "title={T}, author={A, B}, year=2000"

#: name -> (.bib text, the key the document cites)
CASES: dict[str, tuple[str, str]] = {
    "pair": (f"@book{{a, {_BODY}, crossref={{b}}}}\n@book{{b, {_BODY}, crossref={{a}}}}\n", "a"),
    "self": (f"@book{{s, {_BODY}, crossref={{s}}}}\n", "s"),
    "xdata-pair": (
        f"@book{{u, {_BODY}, xdata={{x}}}}\n@xdata{{x, xdata={{y}}, publisher={{P}}}}\n"
        "@xdata{y, xdata={x}, note={N}}\n",
        "u",
    ),
    "chain-into-loop": (
        f"@book{{d, {_BODY}, crossref={{a}}}}\n@book{{a, {_BODY}, crossref={{b}}}}\n"
        f"@book{{b, {_BODY}, crossref={{a}}}}\n",
        "d",
    ),
    # nobody cites an entry of the loop, or leading into it
    "loop-not-cited": (
        f"@book{{c, {_BODY}}}\n@book{{a, {_BODY}, crossref={{b}}}}\n"
        f"@book{{b, {_BODY}, crossref={{a}}}}\n",
        "c",
    ),
    "chain-without-loop": (
        f"@book{{d, {_BODY}, crossref={{a}}}}\n@book{{a, {_BODY}, crossref={{b}}}}\n"
        f"@book{{b, {_BODY}}}\n",
        "d",
    ),
}

#: loops only pandoc enters (biber follows xdata to @xdata entries alone), and values pandoc
#: reads in its own way
PANDOC_CASES: dict[str, tuple[str, str]] = {
    "xdata-to-a-book": (
        f"@book{{a, {_BODY}, xdata={{b}}}}\n@book{{b, {_BODY}, xdata={{a}}}}\n",
        "a",
    ),
    "keys-differing-in-case": (
        f"@book{{a, {_BODY}, crossref={{A}}}}\n@book{{A, {_BODY}, crossref={{a}}}}\n",
        "a",
    ),
    "the-last-of-a-repeated-field": (f"@book{{a, {_BODY}, crossref={{z}}, crossref={{a}}}}\n", "a"),
    "the-first-of-a-repeated-field": (
        f"@book{{a, {_BODY}, crossref={{a}}, crossref={{z}}}}\n",
        "a",
    ),
    "a-string-macro": (f'@string{{me = "a"}}\n@book{{a, {_BODY}, crossref=me}}\n', "a"),
    "braces-around-the-key": (f"@book{{a, {_BODY}, crossref={{{{a}}}}}}\n", "a"),
    # a value naming several keys deeper in the chain: after a key that gives no field,
    # pandoc follows none of the others
    "after-an-undefined-key": (
        f"@book{{a, {_BODY}, xdata={{x}}}}\n@xdata{{x, xdata={{none, x}}}}\n",
        "a",
    ),
    "undefined-key-after": (
        f"@book{{a, {_BODY}, xdata={{x}}}}\n@xdata{{x, xdata={{x, none}}}}\n",
        "a",
    ),
    "after-a-key-giving-fields-the-entry-has": (
        "@inbook{a, title={A}, booktitle={B}, xdata={x}}\n@xdata{x, xdata={y, a}}\n"
        "@book{y, title={T}}\n",
        "a",
    ),
    "after-a-key-giving-a-field": (
        "@inbook{a, title={A}, xdata={x}}\n@xdata{x, xdata={y, a}}\n@book{y, title={T}}\n",
        "a",
    ),
}


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is needed (scripts/system-deps installs it)", pytrace=False)
    return found


def _loops(directory: Path, settings: Settings | None = None) -> list[Finding]:
    ws = Workspace(settings or Settings(), root=directory)
    for path in sorted(directory.iterdir()):
        ws.add_file(path)
    return _found_loops(ws)


def _found_loops(ws: Workspace) -> list[Finding]:
    return [f for fs in check(ws).values() for f in fs if f.code is Code.CROSSREF_LOOP]


def _markdown(directory: Path, bib: str, cited: str) -> None:
    (directory / "refs.bib").write_text(bib, encoding="utf-8")
    (directory / "doc.md").write_text(
        f"---\nbibliography: refs.bib\n---\n\nSee [@{cited}].\n", encoding="utf-8"
    )


def pandoc_finishes(directory: Path, pandoc: str | None = None) -> bool:
    """Whether ``pandoc --citeproc`` (``pandoc``, else the one on the PATH) finishes on
    ``doc.md`` (512 MB and 60 s at most: a loop exhausts the memory within seconds)."""
    command = [pandoc or _tool("pandoc"), "+RTS", "-M512m", "-RTS", "--citeproc", "-t", "plain"]
    try:
        run = subprocess.run(
            [*command, "doc.md"],
            cwd=directory,
            capture_output=True,
            timeout=60,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return False
    if run.returncode != 0:
        assert b"Heap exhausted" in run.stderr, run.stderr  # no other error
    return run.returncode == 0


def biber_fails(directory: Path, bib: str, cited: str) -> tuple[bool, str]:
    """Whether biber stops with an error on a biblatex document citing ``cited``."""
    (directory / "refs.bib").write_text(bib, encoding="utf-8")
    (directory / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        f"\\addbibresource{{refs.bib}}\n\\begin{{document}}\n\\cite{{{cited}}}\n"
        "\\printbibliography\n\\end{document}\n",
        encoding="utf-8",
    )
    for command in (
        [_tool("pdflatex"), "-interaction=nonstopmode", "main.tex"],
        [_tool("biber"), "main"],
    ):
        run = subprocess.run(
            command, cwd=directory, capture_output=True, text=True, timeout=120, check=False
        )
    return run.returncode != 0, run.stdout


@pytest.mark.parametrize("name", [*CASES, *PANDOC_CASES])
def test_a_loop_is_reported_where_pandoc_never_finishes(tmp_path: Path, name: str) -> None:
    bib, cited = {**CASES, **PANDOC_CASES}[name]
    _markdown(tmp_path, bib, cited)
    finishes = pandoc_finishes(tmp_path)
    assert not _loops(tmp_path) if finishes else _loops(tmp_path)


@pytest.mark.parametrize("name", list(CASES))
def test_a_loop_is_reported_where_biber_stops(tmp_path: Path, name: str) -> None:
    bib, cited = CASES[name]
    fails, log = biber_fails(tmp_path, bib, cited)
    assert ("Circular" in log) is fails, log
    assert bool(_loops(tmp_path)) is fails


def test_biber_follows_xdata_to_xdata_entries_only(tmp_path: Path) -> None:
    bib, cited = PANDOC_CASES["xdata-to-a-book"]
    fails, log = biber_fails(tmp_path, bib, cited)
    assert not fails and "not an XDATA entry" in log, log
    assert _loops(tmp_path) == []


def test_each_field_of_the_loop_says_what_pandoc_does(tmp_path: Path) -> None:
    _markdown(tmp_path, *CASES["chain-into-loop"])
    text = (tmp_path / "refs.bib").read_text(encoding="utf-8")
    found = sorted(_loops(tmp_path), key=lambda f: f.location.span.start)
    assert [text[f.location.span.start : f.location.span.end] for f in found] == ["b", "a"]
    assert [f.message for f in found] == [
        f"crossref loop {chain}: a document citing 'd' makes pandoc --citeproc follow it "
        "until it runs out of memory: it never finishes"
        for chain in ("'a' -> 'b' -> 'a'", "'b' -> 'a' -> 'b'")
    ]
    assert [len(f.related) for f in found] == [1, 1]


def test_the_message_names_biber_s_error(tmp_path: Path) -> None:
    biber_fails(tmp_path, *CASES["xdata-pair"])
    messages = sorted(f.message for f in _loops(tmp_path))
    assert messages == [
        f"xdata loop {chain}: a document citing 'u' makes biber stop with an error "
        '("Circular XDATA inheritance") and write no entry: no citation is resolved'
        for chain in ("'x' -> 'y' -> 'x'", "'y' -> 'x' -> 'y'")
    ]


def test_citing_everything_cites_the_loop(tmp_path: Path) -> None:
    bib, _ = CASES["loop-not-cited"]
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    (tmp_path / "doc.md").write_text(
        "---\nbibliography: refs.bib\nnocite: '@*'\n---\n\nText.\n", encoding="utf-8"
    )
    assert not pandoc_finishes(tmp_path)
    assert len(_loops(tmp_path)) == 2


def test_a_long_chain_is_followed_without_recursion(tmp_path: Path) -> None:
    n = 5000
    bib = "".join(f"@book{{k{i}, crossref={{k{i + 1}}}}}\n" for i in range(n))
    _markdown(tmp_path, bib + f"@book{{k{n}, crossref={{k0}}}}\n", "k0")
    found = sorted(_loops(tmp_path), key=lambda f: f.location.span.start)
    assert len(found) == n + 1
    assert found[0].message.startswith(
        f"crossref loop 'k0' -> 'k1' -> 'k2' -> 'k3' -> ... ({n + 1} entries) -> 'k0': "
    )


#: the pandoc of each version: the one on the PATH is 2.17
_PANDOCS = {"2.17": None, **{v: str(p) for v, p in PANDOC_RELEASES.items()}}
#: a loop through an @commentary entry, which pandoc before 3.9 skips (with its crossref)
_COMMENTARY_LOOP = "@commentary{a, title={A}, crossref={b}}\n@misc{b, title={B}, crossref={a}}\n"


@pytest.mark.parametrize("version", ["2.17", "3.9"])
def test_a_loop_through_an_entry_only_later_pandoc_reads(tmp_path: Path, version: str) -> None:
    pandoc = _PANDOCS[version]
    if pandoc is not None and not Path(pandoc).exists():
        pytest.fail(f"pandoc {version} is needed (scripts/test installs it)", pytrace=False)
    _markdown(tmp_path, _COMMENTARY_LOOP, "a; @b")
    finishes = pandoc_finishes(tmp_path, pandoc)
    assert finishes is (version == "2.17")
    assert bool(_loops(tmp_path, Settings(pandoc_version=version))) is not finishes


def test_the_loops_follow_the_pandoc_version_setting(tmp_path: Path) -> None:
    _markdown(tmp_path, _COMMENTARY_LOOP, "a; @b")
    ws = Workspace(Settings(pandoc_version="3.9"), root=tmp_path)
    for path in sorted(tmp_path.iterdir()):
        ws.add_file(path)
    counts = []
    for version in ("3.9", "2.17", "3.9"):
        ws.set_settings(Settings(pandoc_version=version))
        counts.append(len(_found_loops(ws)))
    assert counts == [2, 0, 2]


def _biber_on(directory: Path, body: str, files: dict[str, str]) -> tuple[bool, str]:
    """Whether biber stops with an error on a biblatex document of ``body`` with the
    ``files`` (name -> text) beside it, and its output."""
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    (directory / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        f"\\begin{{document}}\n{body}\\end{{document}}\n",
        encoding="utf-8",
    )
    for command in (
        [_tool("pdflatex"), "-interaction=nonstopmode", "main.tex"],
        [_tool("biber"), "main"],
    ):
        run = subprocess.run(
            command, cwd=directory, capture_output=True, text=True, timeout=120, check=False
        )
    return run.returncode != 0, run.stdout


_CLEAN = f"@book{{c, {_BODY}}}\n@book{{d, {_BODY}}}\n"
#: a refsection citing every entry of refs.bib (in its file, or in a file it reads), and
#: one citing a single entry of other.bib
_SECTIONS = {
    "nocite": "\\begin{refsection}[refs.bib]\n\\nocite{*}\n\\printbibliography\n"
    "\\end{refsection}\n",
    "input": "\\begin{refsection}[refs.bib]\n\\input{sub}\n\\printbibliography\n"
    "\\end{refsection}\n",
    "newrefsection": "\\newrefsection[refs.bib]\n\\input{sub}\n\\printbibliography\n"
    "\\endrefsection\n",
}
_CITE_C = "\\begin{refsection}[other.bib]\n\\cite{c}\n\\printbibliography\n\\end{refsection}\n"


@pytest.mark.parametrize("section", list(_SECTIONS))
@pytest.mark.parametrize("where", ["refs.bib", "other.bib"])
def test_a_nocite_all_in_a_refsection_cites_its_own_files(
    tmp_path: Path, where: str, section: str
) -> None:
    loop, _ = CASES["loop-not-cited"]
    files = {"refs.bib": _CLEAN, "other.bib": _CLEAN}
    if section != "nocite":
        files["sub.tex"] = "\\nocite{*}\n"
    fails, log = _biber_on(tmp_path, _SECTIONS[section] + _CITE_C, files | {where: loop})
    # the loop is in the file the \nocite{*} cites every entry of, or in the one of 'c'
    assert fails is (where == "refs.bib"), log
    assert ("Circular inheritance" in log) is fails, log
    assert len(_loops(tmp_path)) == (2 if fails else 0)


#: a loop through an entry the tool does not read, whose key another entry has
_UNREAD_TWIN = {
    "pandoc": f"@commentary{{a, {_BODY}, crossref={{a}}}}\n@book{{a, {_BODY}}}\n",
    "biber": f"% @book{{a, {_BODY}, crossref={{b}}}}\n@book{{a, {_BODY}}}\n"
    f"@book{{b, {_BODY}, crossref={{a}}}}\n",
}


def test_an_entry_pandoc_skips_loops_nowhere_though_its_key_is_defined(tmp_path: Path) -> None:
    _markdown(tmp_path, _UNREAD_TWIN["pandoc"], "a")
    assert pandoc_finishes(tmp_path)  # pandoc 2.17 skips the @commentary entry
    assert _loops(tmp_path, Settings(pandoc_version="2.17")) == []


def test_an_entry_biber_reads_as_a_comment_loops_nowhere(tmp_path: Path) -> None:
    fails, log = biber_fails(tmp_path, _UNREAD_TWIN["biber"], "b")
    assert not fails and "Circular" not in log, log
    assert _loops(tmp_path) == []
