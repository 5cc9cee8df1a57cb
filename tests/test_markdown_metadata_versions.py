"""How pandoc reads a Markdown project's metadata and bibliography files, version by
version: each case is a folder of files run through the system's pandoc (2.17) and the
releases of scripts/install-pandoc-versions (3.6.1, 3.9) with ``--citeproc``; citewarden,
told that version, must report as dangling exactly the keys pandoc does not find, and
report none when pandoc cannot read the bibliography."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from citewarden.model import Code, Severity
from citewarden.parsing.markdown import reads_alike
from citewarden.parsing.yamlmeta import markdown_text
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
    "a bibliography of an extension pandoc does not know": {
        "doc.md": "---\nbibliography: refs.txt\n---\n\nCite @a and @nope.\n",
        "refs.txt": _BIB,
    },
    "a bibliography without an extension": {
        "doc.md": "---\nbibliography: [refs.bib, refs]\n---\n\nCite @a and @nope.\n",
        "refs.bib": _BIB,
        "refs": _BIB,
    },
    "an upper-case extension pandoc 3 alone reads": {
        "doc.md": "---\nbibliography: refs.BIB\n---\n\nCite @a and @nope.\n",
        "refs.BIB": _BIB,
    },
    "a RIS file pandoc 2 cannot read": {
        "doc.md": "---\nbibliography: refs.RIS\n---\n\nCite @a and @nope.\n",
        "refs.RIS": "TY  - BOOK\nID  - a\nTI  - A\nER  - \n",
    },
    "of a field given twice pandoc reads the last": {
        "doc.md": (
            "---\nbibliography: refs.bib\nbibliography: other.bib\nabstract: On @m1.\n"
            "abstract: Plain.\nnocite: '@m2'\nnocite: '@b'\n---\n\nCite @a and @b.\n"
        ),
        "refs.bib": _BIB,
        "other.bib": "@misc{b, title={B}}\n",
    },
    "citations in every metadata field but those ending in _": {
        "doc.md": (
            "---\nbibliography: refs.bib\nauthor: 'Data from @m1'\ncustom:\n"
            "  - note: 'see [@m2]'\n  - deeper:\n      x: '@m3'\nthanks_: '@m4'\n"
            "x_:\n  y: '@m5'\nz:\n  w_: ['@m6']\nlang: en\ndate: '@m7'\n"
            "abstract: On @a.\n---\n\nText @other and @m8.\n"
        ),
        "refs.bib": _BIB,
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


@pytest.mark.parametrize("version", VERSIONS)
def test_an_undefined_nocite_key_is_a_warning_pandoc_passes_over(
    tmp_path: Path, version: str
) -> None:
    _write(
        tmp_path,
        {
            "doc.md": "---\nbibliography: refs.bib\nnocite: '@ghost, @a'\n---\n\nCite @gone.\n",
            "refs.bib": _BIB,
        },
    )
    reads, missing = _pandoc_reads(tmp_path, _pandoc(version))
    assert reads and missing == {"gone"}  # pandoc says nothing of ghost
    findings = [f for f in _findings(tmp_path, version) if f.code is Code.DANGLING]
    found = {(str(f.data.get("key")), f.effective_severity) for f in findings}
    assert found == {("gone", Severity.ERROR), ("ghost", Severity.WARNING)}
    assert any(f.message.startswith("nocite key 'ghost'") for f in findings)


#: a stand-in for pandoc-crossref: it takes the citations of fig: labels, as the filter does
_CROSSREF_STAND_IN = (
    "function Cite(c)\n  for _, k in ipairs(c.citations) do\n"
    '    if k.id:match("^fig:") then return pandoc.Str("1") end\n  end\nend\n'
)
_ARGS = "output:\n  pdf_document:\n    pandoc_args: "
#: name -> (the front matter's lines naming pandoc-crossref, pandoc's arguments running the
#: stand-in in the same order; ``d.yaml`` is those lines with the stand-in for the filter)
FILTER_ORDERS = {
    "citeproc first in the filters": ("filters: [citeproc, pandoc-crossref]", ["-d", "d.yaml"]),
    "citeproc last in the filters": (
        "filters:\n  - pandoc-crossref\n  - citeproc",
        ["-d", "d.yaml"],
    ),
    "--citeproc first in pandoc's arguments": (
        _ARGS + '["--citeproc", "--filter", "pandoc-crossref"]',
        ["--citeproc", "--lua-filter", "xref.lua"],
    ),
    "--citeproc last in pandoc's arguments": (
        _ARGS + '["-F", "pandoc-crossref", "-C"]',
        ["--lua-filter", "xref.lua", "-C"],
    ),
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", FILTER_ORDERS)
def test_a_label_is_a_citation_where_citeproc_runs_before_pandoc_crossref(
    tmp_path: Path, version: str, name: str
) -> None:
    lines, args = FILTER_ORDERS[name]
    _write(
        tmp_path,
        {
            "doc.md": f"---\nbibliography: refs.bib\n{lines}\n---\n\nSee @fig:x, @a and @gone.\n",
            "refs.bib": _BIB,
            "xref.lua": _CROSSREF_STAND_IN,
            "d.yaml": lines.replace("pandoc-crossref", "xref.lua") + "\n",
        },
    )
    run = subprocess.run(
        [_pandoc(version), *args, "-t", "plain", "doc.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    missing = set(re.findall(r"citation (\S+) not found", run.stderr))
    assert "gone" in missing
    findings = _findings(tmp_path, version)
    assert {str(f.data.get("key")) for f in findings if f.code is Code.DANGLING} == missing


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


@pytest.mark.parametrize("version", VERSIONS)
def test_a_ris_bibliography_is_one_citewarden_cannot_read(tmp_path: Path, version: str) -> None:
    """pandoc 3 reads a .ris file, pandoc 2 stops at it; citewarden reads no RIS, so the
    keys are not known either way."""
    _write(
        tmp_path,
        {"doc.md": _RIS_DOC, "refs.ris": CASES["a RIS file pandoc 2 cannot read"]["refs.RIS"]},
    )
    reads, _ = _pandoc_reads(tmp_path, _pandoc(version))
    assert reads is (version != "2.17")
    findings = _findings(tmp_path, version)
    assert not [f for f in findings if f.code is Code.DANGLING]
    (unread,) = [f for f in findings if f.code is Code.FILE_UNREADABLE]
    assert ("RIS file" in unread.message) is reads


_RIS_DOC = "---\nbibliography: refs.ris\n---\n\nCite @a and @nope.\n"


def test_every_version_reads_the_names_of_a_document_without_one_pandoc_3_alone_knows() -> None:
    assert reads_alike("---\nbibliography: [a.bib, b.json, c.yaml]\n---\n")
    for name in ("a.ris", "a.BIB", "a.Json"):
        assert not reads_alike(f"---\nbibliography: {name}\n---\n"), name


@pytest.mark.parametrize("version", VERSIONS)
def test_a_bibliography_name_is_read_as_markdown_text(tmp_path: Path, version: str) -> None:
    """pandoc reads a document's ``bibliography:`` as Markdown and opens the file its text
    names: ``--`` is an en dash, ``'`` a curly apostrophe, an escape undone, so
    ``refs--2020.bib`` names ``refs–2020.bib``; a file by the name as written is not
    read (pandoc: "File refs–2020.bib not found")."""
    _write(
        tmp_path,
        {
            "doc.md": (
                '---\nbibliography: [a--b.bib, "bob\'s.bib", c\\_d.bib]\n---\n\n'
                "Cite @a, @other, @b, @c and @nope.\n"
            ),
            "a\u2013b.bib": _BIB,
            "bob\u2019s.bib": "@misc{b, title={B}}\n",
            "c_d.bib": "@misc{c, title={C}}\n",
            "a--b.bib": "@misc{nope, title={N}}\n",
        },
    )
    reads, missing = _pandoc_reads(tmp_path, _pandoc(version))
    findings = _findings(tmp_path, version)
    assert reads and missing == {"nope"}
    assert {str(f.data.get("key")) for f in findings if f.code is Code.DANGLING} == missing
    (tmp_path / "a\u2013b.bib").unlink()  # the name as written alone: pandoc stops
    reads, _ = _pandoc_reads(tmp_path, _pandoc(version))
    findings = _findings(tmp_path, version)
    assert not reads
    assert [f.message for f in findings if f.code is Code.MISSING_BIBLIOGRAPHY] == [
        "bibliography file 'a\u2013b.bib' not found"
    ]
    assert not [f for f in findings if f.code is Code.DANGLING]


def test_a_run_of_backticks_in_a_bibliography_name_is_read_once() -> None:
    """A code span opens at a whole run of backticks only: tried from each backtick of a
    run that never closes, a damaged document's name of 5 938 backticks took 1.1 s of CPU
    (the time grows with the cube of the run); a run that closes is code, as written."""
    t0 = time.process_time()
    assert markdown_text("refs" + "`" * 20_000) == "refs" + "`" * 20_000
    assert time.process_time() - t0 < 2
    assert markdown_text("a``b``c.bib") == "abc.bib"
    assert markdown_text("```a``b```.bib") == "a``b.bib"
