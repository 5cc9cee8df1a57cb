"""The file watchers the server registers match every file the walk of a workspace folder
finds, whatever the case of its extension (Refs.BIB, Main.TEX), read by the glob grammar
of LSP 3.17 (``*``, ``**``, ``?``, ``{a,b}``, ``[a-z]``), which matches case."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types

from citewarden.audit import CHECKABLE_SUFFIXES, InputError, load_workspace
from citewarden.lsp.watch import PATTERNS, WATCHED_SUFFIXES, watched_name
from citewarden.project import DISCOVER_SUFFIXES, Workspace
from citewarden.settings import Settings
from conftest import Start


def _regex(pattern: str) -> str:
    """An LSP 3.17 glob pattern as a regular expression."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:[^/]*/)*", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "[":
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            negated = body.startswith("!")
            body = body[1:] if negated else body
            out += "[" + ("^" if negated else "") + body.replace("\\", "\\\\") + "]"
            i = end + 1
        elif c == "{":
            end = pattern.index("}", i + 1)
            choices = pattern[i + 1 : end].split(",")
            out += "(?:" + "|".join(_regex(choice) for choice in choices) + ")"
            i = end + 1
        else:
            out, i = out + re.escape(c), i + 1
    return out


def lsp_glob_match(pattern: str, relative: str) -> bool:
    return re.fullmatch(_regex(pattern), relative) is not None


def test_the_glob_matcher_reads_the_lsp_grammar() -> None:
    assert lsp_glob_match("**/*.{bib,bibtex}", "a/b/refs.bibtex")
    assert not lsp_glob_match("**/*.{bib,bibtex}", "Refs.BIB")
    assert lsp_glob_match("**/*.[bB][iI][bB]", "Refs.BIB")
    assert not lsp_glob_match("*.bib", "a/refs.bib")


NAMES = [
    "Main.TEX",
    "ch/Intro.Tex",
    "Refs.BIB",
    "more/refs.Bib",
    "Notes.MD",
    "paper.RMD",
    "book.QMD",
    "refs.JSON",
    "refs.YML",
    "refs.YAML",
    "thesis.LTX",
    "readme.Markdown",
    "main.tex",
    "refs.bib",
    "Refs.BIBTEX",
    "more/alone.bibtex",
    "Book.LaTeX",
    "ch/two.latex",
]


def test_every_extension_the_walk_takes_is_watched_in_any_case() -> None:
    assert DISCOVER_SUFFIXES <= WATCHED_SUFFIXES
    for suffix in DISCOVER_SUFFIXES:
        for name in (f"x{suffix}", f"x{suffix.upper()}", f"x{suffix.title()}"):
            assert any(lsp_glob_match(p, f"a/{name}") for p in PATTERNS), name


def test_every_file_the_walk_finds_is_watched(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x", encoding="utf-8")
    found = Workspace(Settings(), root=root).add_folder(root)
    assert sorted(p.relative_to(root).as_posix() for p in found) == sorted(NAMES)
    for path in found:
        relative = path.relative_to(root).as_posix()
        assert any(lsp_glob_match(p, relative) for p in PATTERNS), relative
        assert watched_name(path), relative


def test_check_accepts_the_files_the_walk_finds(tmp_path: Path) -> None:
    assert CHECKABLE_SUFFIXES == DISCOVER_SUFFIXES
    assert {".bibtex", ".latex"} <= DISCOVER_SUFFIXES
    for name in ("Refs.BIBTEX", "two.latex", "Book.LaTeX", "a.bibtex"):
        (tmp_path / name).write_text("x", encoding="utf-8")
        _, _, _, files = load_workspace([name], Settings(), tmp_path)
        assert files == [tmp_path.resolve() / name]
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(InputError):
        load_workspace(["notes.txt"], Settings(), tmp_path)


@pytest.mark.parametrize(
    "name", ["Refs.BIBTEX", "Style.STY", "Thesis.CLS", "Book.LaTeX", "x.Rmd", "x.rmd"]
)
def test_the_other_project_files_are_watched_in_any_case(name: str) -> None:
    assert watched_name(Path(name))
    assert any(lsp_glob_match(p, f"sub/{name}") for p in PATTERNS)


@pytest.mark.parametrize("name", ["refs.bak", "main.texx", "notes.txt", "x.bst.orig"])
def test_other_files_are_not_watched(name: str) -> None:
    assert not watched_name(Path(name))
    assert not any(lsp_glob_match(p, name) for p in PATTERNS)


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_the_registered_watchers_match_upper_case_extensions(start: Start) -> None:
    h = await start(files="--- Main.TEX\n\\cite{a}\n\\bibliography{Refs}\n--- Refs.BIB\n@misc{a}\n")
    patterns = [
        w["globPattern"]
        for r in h.registrations
        if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES
        for w in r.register_options["watchers"]  # type: ignore[index]
        if isinstance(w["globPattern"], str)
    ]
    for name in ("Main.TEX", "Refs.BIB", "sub/Other.Bib"):
        assert any(lsp_glob_match(p, name) for p in patterns if p != "**/*"), name
