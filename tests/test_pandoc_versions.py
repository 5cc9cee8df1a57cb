"""pandoc's BibTeX reader changed between versions: a ``%`` in a quoted value is a comment
for pandoc 2 and text for pandoc 3; from pandoc 3.9 on ``@comment`` is read only before
braces and ``@commentary{...}`` is an entry.  Each case is run through the system's pandoc
(2.17) and the releases of scripts/install-pandoc-versions (3.6.1, 3.9), and citewarden,
told that version, must agree with each: a file it reads gets no finding, one it rejects
gets one, and what it skips is not defined."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden import pandoc_version
from citewarden.model import Code, Finding
from citewarden.pandoc_version import installed_version, parse_version
from citewarden.parsing.pandoc_syntax import (
    PANDOC_2,
    PANDOC_3,
    PANDOC_3_8,
    PANDOC_3_9,
    dialect_of,
)
from citewarden.project import Workspace
from citewarden.settings import Settings, merge_settings
from paths import PANDOC_RELEASES
from test_pandoc_syntax import CASES, GOOD

#: cases whose reading differs between the versions, beside those of test_pandoc_syntax
VERSION_CASES = [
    '@misc{pq, title="a" # "50%"}\n',
    "@commentary(cy, title={C})\n",
    "@comment\n",
    "@comment {x}\n@Comment{y}\n@COMMENT\n{z}\n@comment%c\n{w}\n@misc{a1, title={A}}\n",
    "@comment{x} junk\n@misc{a1, title={A}}\n",
    "@comment_x{k1, title={A}}\n",
    "@comment1{k1, title={A}}\n",
    "@comment-x{k1, title={A}}\n",
    "@commentx{k1, title={A}}\n",
]


def _pandoc(version: str) -> str:
    if version == "2.17":
        found = shutil.which("pandoc")
        if found is None:
            pytest.fail("pandoc is needed", pytrace=False)
        run = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
        if not run.stdout.startswith("pandoc 2.17"):
            pytest.fail(f"the system's pandoc is not 2.17: {run.stdout[:40]!r}", pytrace=False)
        return found
    path = PANDOC_RELEASES[version]
    if not path.is_file():
        pytest.fail(f"{path} is missing: run scripts/install-pandoc-versions", pytrace=False)
    return str(path)


def _project(directory: Path, bib: str, cites: list[str]) -> None:
    (directory / "refs.bib").write_bytes(bib.encode("utf-8"))
    listed = "; ".join("@" + key for key in cites)
    (directory / "doc.md").write_text(
        f"---\nbibliography: refs.bib\n---\n\nSee [{listed}].\n", encoding="utf-8"
    )


def _pandoc_reads(directory: Path, program: str) -> tuple[bool, set[str]]:
    """Whether pandoc reads the bibliography, and the citations it does not find."""
    run = subprocess.run(
        [program, "--citeproc", "-t", "plain", "doc.md"],
        cwd=directory,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    missing = {
        line.split("citation ", 1)[1].split(" not found")[0]
        for line in run.stderr.splitlines()
        if "citation " in line and " not found" in line
    }
    return run.returncode == 0, missing


def _findings(directory: Path, version: str) -> list[Finding]:
    ws = Workspace(Settings(pandoc_version=version), root=directory)
    ws.add_file(directory / "doc.md")
    return [f for fs in check(ws).values() for f in fs]


def _keys(bib: str) -> list[str]:
    """Every key-like word after an ``@type{`` or ``@type(`` of ``bib``, to cite."""
    return list(dict.fromkeys(re.findall(r"@\w+\s*[{(]\s*([^,\s})%]+)", bib)))


@pytest.mark.parametrize("version", ["2.17", "3.6.1", "3.9"])
@pytest.mark.parametrize("rest", list(CASES) + VERSION_CASES)
def test_each_version_reads_as_pandoc_of_that_version(
    tmp_path: Path, version: str, rest: str
) -> None:
    program = _pandoc(version)
    bib = GOOD + rest
    cites = ["good", *_keys(rest)]
    _project(tmp_path, bib, cites)
    reads, missing = _pandoc_reads(tmp_path, program)
    findings = _findings(tmp_path, version)
    rejected = [
        f for f in findings if f.code is Code.BIB_SYNTAX and f.message.startswith("pandoc cannot")
    ]
    assert bool(rejected) is not reads, [f.message for f in findings]
    if reads:
        dangling = {str(f.data.get("key")) for f in findings if f.code is Code.DANGLING}
        assert dangling == missing


def test_the_messages_name_the_versions(tmp_path: Path) -> None:
    _project(tmp_path, GOOD + '@misc{pq, title="50% off"}\n@comment hello\n', ["good"])
    (finding,) = [f for f in _findings(tmp_path, "2.17") if f.code is Code.BIB_SYNTAX]
    assert "pandoc 2 reads the rest of the line as a comment" in finding.message
    assert "pandoc 3 reads it as text" in finding.message
    (finding,) = [f for f in _findings(tmp_path, "3.9") if f.code is Code.BIB_SYNTAX]
    assert "'@comment' followed by 'h': pandoc 3.9 and later read a comment only" in (
        finding.message
    )
    assert [f for f in _findings(tmp_path, "3.6") if f.code is Code.BIB_SYNTAX] == []


def test_the_dialect_of_each_version() -> None:
    assert dialect_of((2, 17)) is PANDOC_2
    assert dialect_of((2, 19, 2)) is PANDOC_2
    assert dialect_of((3,)) is PANDOC_3
    assert dialect_of((3, 7)) is PANDOC_3
    assert dialect_of((3, 8, 2, 1)) is PANDOC_3_8
    assert dialect_of((3, 9)) is PANDOC_3_9
    assert dialect_of((4, 0)) is PANDOC_3_9
    assert dialect_of(None) is PANDOC_3
    assert parse_version(" 3.6.1 ") == (3, 6, 1)
    assert parse_version("latest") is None
    assert parse_version("3.") is None


def test_the_setting_is_checked() -> None:
    settings, problems = merge_settings(Settings(), {"pandoc_version": "3.9"}, "test")
    assert settings.pandoc_version == "3.9" and problems == []
    settings, problems = merge_settings(Settings(), {"pandoc-version": "three"}, "test")
    assert settings.pandoc_version == "" and [p.key for p in problems] == ["pandoc-version"]
    settings, problems = merge_settings(Settings(), {"pandoc_version": 3.9}, "test")
    assert settings.pandoc_version == "" and len(problems) == 1


def _only_on_path(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setattr(pandoc_version, "_answers", {})


def test_without_a_setting_the_installed_pandoc_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``pandoc`` on the search path is asked its version: 3.9 rejects ``@comment``
    without braces, 2.17 reads it."""
    releases = {version: _pandoc(version) for version in ("2.17", "3.9")}
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    _project(work, GOOD + "@comment hello\n", ["good"])
    os.symlink(releases["3.9"], bin_dir / "pandoc")
    _only_on_path(monkeypatch, bin_dir)
    assert installed_version() == (3, 9)
    assert [f.code for f in _findings(work, "")] == [Code.BIB_SYNTAX]
    (bin_dir / "pandoc").unlink()
    os.symlink(releases["2.17"], bin_dir / "pandoc")
    _only_on_path(monkeypatch, bin_dir)
    found = installed_version()
    assert found is not None and found[:2] == (2, 17)
    assert _findings(work, "") == []


def test_a_quarto_project_is_read_by_quartos_pandoc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``quarto pandoc`` runs the pandoc Quarto ships (here a script handing its arguments
    to pandoc 3.9, as Quarto does), where a plain Markdown document is read by the pandoc
    on the search path (2.17)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    quarto = bin_dir / "quarto"
    quarto.write_text(f'#!/bin/sh\nshift\nexec "{_pandoc("3.9")}" "$@"\n', encoding="utf-8")
    quarto.chmod(0o755)
    os.symlink(_pandoc("2.17"), bin_dir / "pandoc")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/bin{os.pathsep}/usr/bin")
    monkeypatch.setattr(pandoc_version, "_answers", {})
    work = tmp_path / "work"
    work.mkdir()
    (work / "refs.bib").write_text(GOOD + "@comment hello\n", encoding="utf-8")
    text = "---\nbibliography: refs.bib\n---\n\nSee [@good].\n"
    (work / "paper.qmd").write_text(text, encoding="utf-8")
    (work / "notes.md").write_text(text, encoding="utf-8")
    for name, codes in (("paper.qmd", [Code.BIB_SYNTAX]), ("notes.md", [])):
        ws = Workspace(Settings(), root=work)
        ws.add_file(work / name)
        assert [f.code for fs in check(ws).values() for f in fs] == codes, name


@pytest.mark.parametrize("version", ["2.17", "3.9"])
def test_a_bibliography_not_in_utf8_is_said_in_that_versions_words(
    tmp_path: Path, version: str
) -> None:
    """pandoc 2 says "Cannot decode byte '\\xe9'", pandoc 3 "UTF-8 decoding error in
    refs.bib at byte offset N (e9)"; the finding quotes the words of the project's pandoc."""
    program = _pandoc(version)
    (tmp_path / "refs.bib").write_bytes("@misc{good, title={Caf\xe9}}\n".encode("latin-1"))
    (tmp_path / "doc.md").write_text(
        "---\nbibliography: refs.bib\n---\n\nSee [@good].\n", encoding="utf-8"
    )
    run = subprocess.run(
        [program, "--citeproc", "-t", "plain", "doc.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    assert run.returncode != 0
    (finding,) = [f for f in _findings(tmp_path, version) if f.code is Code.FILE_ENCODING]
    quoted_error = finding.message.split('error ("', 1)[1].split('")', 1)[0]
    if version == "2.17":
        assert quoted_error == "Cannot decode byte '\\xe9'"
        assert quoted_error in run.stderr
    else:
        assert quoted_error == "UTF-8 decoding error in 'refs.bib' at byte offset 22 (e9)"
        assert quoted_error.replace("'", "") in run.stderr


def test_changing_the_setting_reads_the_file_again(tmp_path: Path) -> None:
    """The editor's settings change: the same workspace reads the file as the new version
    does (pandoc 2 rejects the quoted %, pandoc 3.9 the @comment without braces)."""
    _project(tmp_path, GOOD + '@misc{pq, title="50% off"}\n@comment hello\n', ["good"])
    ws = Workspace(Settings(pandoc_version="2.17"), root=tmp_path)
    ws.add_file(tmp_path / "doc.md")

    def underlined() -> list[str]:
        text = (tmp_path / "refs.bib").read_text(encoding="utf-8")
        return [
            text[f.location.span.start : f.location.span.end]
            for fs in check(ws).values()
            for f in fs
            if f.code is Code.BIB_SYNTAX
        ]

    assert underlined() == ["%"]
    ws.set_settings(Settings(pandoc_version="3.9"))
    assert underlined() == ["@comment"]
    ws.set_settings(Settings(pandoc_version="3.6"))
    assert underlined() == []


def test_changing_the_setting_finds_the_orphans_of_the_new_version(tmp_path: Path) -> None:
    """pandoc 2 skips an uncited @commentary entry (no orphan: pandoc never reads it, and
    the bib-syntax finding says so); pandoc 3.9 reads it, so it is an orphan there."""
    _project(tmp_path, GOOD + "@commentary{k, title={K}}\n", ["good"])
    ws = Workspace(Settings(pandoc_version="2.17"), root=tmp_path)
    ws.add_file(tmp_path / "doc.md")

    def codes() -> list[Code]:
        return [f.code for fs in check(ws).values() for f in fs]

    assert codes() == [Code.BIB_SYNTAX]
    ws.set_settings(Settings(pandoc_version="3.9"))
    assert codes() == [Code.ORPHAN]
    ws.set_settings(Settings(pandoc_version="2.17"))
    assert codes() == [Code.BIB_SYNTAX]


def test_a_changed_setting_is_read_at_the_next_look_up(tmp_path: Path) -> None:
    """After the setting changes, the document is read under the new version's rules at
    its next look-up, where ``Workspace.parsed`` served the old reading until the project
    graph was computed again (pandoc 2 reads -@c as in-text, 3 as suppress-author)."""
    (tmp_path / "doc.md").write_text("Braced [@{a]b}] and -@c.\n", encoding="utf-8")
    ws = Workspace(Settings(pandoc_version="3.6.1"), root=tmp_path)
    path = ws.add_file(tmp_path / "doc.md")
    ws.projects()

    def cites() -> list[tuple[str, str]]:
        doc = ws.document(path)
        assert doc is not None
        return [(c.key, c.command) for c in doc.citations]

    assert cites() == [("c", "suppress-author")]
    ws.set_settings(Settings(pandoc_version="2.17"))
    assert cites() == [("a]b", "normal"), ("c", "in-text")]
    ws.projects()
    ws.set_settings(Settings(pandoc_version="3.9"))
    assert cites() == [("a]b", "normal"), ("c", "suppress-author")]
