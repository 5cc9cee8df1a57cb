"""How pandoc reads a Markdown project's metadata and bibliography files, version by
version: each case is a folder of files run through the system's pandoc (2.17) and the
releases of scripts/install-pandoc-versions (3.6.1, 3.9) with ``--citeproc``; citewarden,
told that version, must report as dangling exactly the keys pandoc does not find, and
report none when pandoc cannot read the bibliography."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.model import Code
from test_pandoc_versions import _findings, _pandoc, _pandoc_reads

VERSIONS = ("2.17", "3.6.1", "3.9")

_BIB = "@misc{a, title={A}}\n@misc{eq:maxwell, title={M}}\n@misc{other, title={O}}\n"

#: name -> the files of a project whose document is doc.md
CASES = {
    "cross-reference prefixes outside Quarto": {
        "doc.md": "---\nbibliography: refs.bib\n---\n\nSee @eq:maxwell and @other and @fig-missing.\n",
        "refs.bib": _BIB,
    },
    "a later block's bibliography replaces the front matter's": {
        "doc.md": (
            "---\nbibliography: refs.bib\n---\n\nCite @a and @b.\n\n"
            "---\nbibliography: other.bib\n---\n"
        ),
        "refs.bib": _BIB,
        "other.bib": "@misc{b, title={B}}\n",
    },
    "a front matter's metadata: is no defaults file's": {
        "doc.md": (
            "---\nbibliography: refs.bib\nmetadata:\n  bibliography: other.bib\n---\n\n"
            "Cite @a and @b.\n"
        ),
        "refs.bib": _BIB,
        "other.bib": "@misc{b, title={B}}\n",
    },
    "a plain document's format: is no Quarto format": {
        "doc.md": (
            "---\nbibliography: refs.bib\nformat:\n  html:\n    bibliography: other.bib\n"
            "---\n\nCite @a and @b.\n"
        ),
        "refs.bib": _BIB,
        "other.bib": "@misc{b, title={B}}\n",
    },
}


def _write(directory: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", CASES)
def test_dangling_keys_are_those_pandoc_does_not_find(
    tmp_path: Path, version: str, name: str
) -> None:
    _write(tmp_path, CASES[name])
    reads, missing = _pandoc_reads(tmp_path, _pandoc(version))
    findings = _findings(tmp_path, version)
    dangling = {str(f.data.get("key")) for f in findings if f.code is Code.DANGLING}
    assert dangling == (missing if reads else set()), [f.message for f in findings]
    if not reads:
        assert any(f.code is Code.FILE_UNREADABLE for f in findings)


def test_a_cross_reference_label_in_a_plain_document_cites_its_entry(tmp_path: Path) -> None:
    _write(tmp_path, CASES["cross-reference prefixes outside Quarto"])
    orphans = {str(f.data.get("key")) for f in _findings(tmp_path, "3.9") if f.code is Code.ORPHAN}
    assert orphans == {"a"}


def test_a_quarto_label_in_a_quarto_projects_markdown_file_is_no_dangling_key(
    tmp_path: Path,
) -> None:
    _write(
        tmp_path,
        {
            **CASES["cross-reference prefixes outside Quarto"],
            "_quarto.yml": "bibliography: refs.bib\n",
        },
    )
    findings = _findings(tmp_path, "3.9")
    assert {str(f.data.get("key")) for f in findings if f.code is Code.DANGLING} == set()
    assert {str(f.data.get("key")) for f in findings if f.code is Code.ORPHAN} == {"a"}
