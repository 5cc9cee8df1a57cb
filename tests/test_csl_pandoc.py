"""The keys a CSL-JSON or CSL-YAML bibliography defines, checked against the real pandoc
(2.17 on the PATH, 3.6.1 and 3.9 from scripts/install-pandoc-versions) on each case: the
citations pandoc reports not found are citewarden's dangling ones, and where pandoc stops
with an error at the file, citewarden has a ``bib-syntax`` finding there that says so."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from checking import check
from citewarden.model import Code, Finding
from citewarden.project import Workspace
from citewarden.settings import Settings
from paths import PANDOC_RELEASES

#: name -> (bibliography file name, its text, the keys cited)
CASES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "json-array": ("refs.json", '[{"id": "a"}, {"id": 42}]\n', ("a", "42", "zz")),
    "json-one-item": ("refs.json", '{"id": "a", "title": "One"}\n', ("a",)),
    "json-numeric-one-item": ("refs.json", '{"id": 42, "title": "One"}\n', ("42",)),
    "json-empty-object": ("refs.json", "{}\n", ("a",)),
    "json-items": ("refs.json", '{"items": [{"id": "a"}, {"id": "b"}]}\n', ("a", "b", "zz")),
    "json-items-among-members": (
        "refs.json",
        '{"id": "c", "items": [{"id": "a"}], "note": 1}\n',
        ("a", "c"),
    ),
    "json-items-empty": ("refs.json", '{"items": []}\n', ("a",)),
    "json-items-no-array": ("refs.json", '{"items": {"id": "a"}}\n', ("a",)),
    "json-items-null": ("refs.json", '{"items": null}\n', ("a",)),
    "json-item-no-object": ("refs.json", '[{"id": "a"}, "b", {"id": "c"}]\n', ("a", "c")),
    "json-id-twice": ("refs.json", '[{"id": "a", "id": "b"}]\n', ("a", "b")),
    "json-items-twice": (
        "refs.json",
        '{"items": [{"id": "a"}], "items": [{"id": "b"}]}\n',
        ("a", "b"),
    ),
    # the value of a CSL variable pandoc's CSL-JSON reader does not read (docs/parsing.md)
    "json-note-null": ("refs.json", '[{"id": "a", "note": null}, {"id": "b"}]\n', ("a", "b")),
    "json-note-number": ("refs.json", '[{"id": "a", "note": 5}]\n', ("a",)),
    "json-title-true": ("refs.json", '[{"id": "a", "title": true}]\n', ("a",)),
    "json-title-upper-case": ("refs.json", '[{"id": "a", "TITLE": []}]\n', ("a",)),
    "json-title-fraction": ("refs.json", '[{"id": "a", "title": 1.5}]\n', ("a",)),
    "json-title-case-first": (
        "refs.json",
        '[{"id": "a", "TITLE": "x", "Title": true}, {"id": 2.0}]\n',
        ("a", "2", "zz"),
    ),
    "json-volume-object": ("refs.json", '[{"id": "a", "volume": {}}]\n', ("a",)),
    "json-doi-null": ("refs.json", '[{"id": "a", "DOI": null}]\n', ("a",)),
    "json-author-text": ("refs.json", '[{"id": "a", "author": "Smith"}]\n', ("a",)),
    "json-author-number": ("refs.json", '[{"id": "a", "author": [{"family": 5}]}]\n', ("a",)),
    "json-author-flag": (
        "refs.json",
        '[{"id": "a", "author": [{"family": "X", "comma-suffix": []}]}]\n',
        ("a",),
    ),
    "json-names-read": (
        "refs.json",
        '[{"id": "a", "author": ["Smith", {"family": null, "x": 1, "comma-suffix": 2}]}, {"id": 2.0}]\n',
        ("a", "2", "zz"),
    ),
    "json-issued-number": ("refs.json", '[{"id": "a", "issued": 2004}]\n', ("a",)),
    "json-issued-parts-text": (
        "refs.json",
        '[{"id": "a", "issued": {"date-parts": [["x"]]}}]\n',
        ("a",),
    ),
    "json-issued-literal-number": (
        "refs.json",
        '[{"id": "a", "issued": {"literal": 5}}]\n',
        ("a",),
    ),
    "json-issued-read": (
        "refs.json",
        '[{"id": "a", "issued": {"raw": "2004", "date-parts": "x"}}, '
        '{"id": "b", "issued": {"date-parts": [["2004", "", 3]], "circa": [], "raw": 5}}, {"id": 2.0}]\n',
        ("a", "b", "2", "zz"),
    ),
    "json-id-upper-case": (
        "refs.json",
        '[{"ID": "a"}, {"id": "c", "Id": "b"}]\n',
        ("a", "b", "c"),
    ),
    "json-id-null": ("refs.json", '[{"id": "a"}, {"id": null}]\n', ("a",)),
    "json-id-exponent": ("refs.json", '[{"id": 1e3}, {"id": 7.0}]\n', ("1000", "7", "zz")),
    "json-id-past-64-bits": ("refs.json", '[{"id": 99999999999999999999}]\n', ("a",)),
    "json-unknown-read": (
        "refs.json",
        '[{"id": "a", "x": null, "custom": null, "categories": [1], "pages": true, '
        '"custom2": {"a": 1.5}}, {"id": 2.0}]\n',
        ("a", "2", "zz"),
    ),
    "json-unknown-fraction": ("refs.json", '[{"id": "a", "x": 1.5}]\n', ("a",)),
    "json-second-item-null": (
        "refs.json",
        '[{"id": "a"}, {"id": "b", "language": null}]\n',
        ("a", "b"),
    ),
    "yaml-references": ("refs.yaml", "references:\n- id: a\n- id: b\n", ("a", "b", "zz")),
    "yaml-second-document": (
        "refs.yaml",
        "references:\n- id: a\n---\nreferences:\n- id: b\n",
        ("a", "b"),
    ),
    "yaml-empty-first-document": ("refs.yaml", "---\n---\nreferences:\n- id: a\n", ("a",)),
    "yaml-comment-before-document": (
        "refs.yaml",
        "# refs\n---\nreferences:\n- id: a\n...\n",
        ("a", "b"),
    ),
    "yaml-one-item": ("refs.yaml", "id: a\ntitle: A\n", ("a",)),
    "yaml-one-item-flow": ("refs.yaml", "{id: a, title: A}\n", ("a",)),
    # pandoc reads a CSL-YAML value, the id too, as Markdown: the escape is undone
    "yaml-escaped-id": (
        "refs.yaml",
        "- id: smith\\_2020\n  title: A\n- id: b\\\\c\n",
        ("smith_2020", "smith\\_2020", "b\\c", "zz"),
    ),
    "yaml-references-one-item": ("refs.yaml", "references:\n  id: a\n  title: A\n", ("a",)),
    "yaml-one-item-and-references": (
        "refs.yaml",
        "id: a\ntitle: A\nreferences:\n- id: b\n",
        ("a", "b"),
    ),
    # an unquoted id pandoc's YAML reader reads as a number or a boolean is no id
    "yaml-id-no-text": (
        "refs.yaml",
        "references:\n- id: 2020\n  title: B\n- id: '2021'\n- {id: 1e3}\n- id: 010\n"
        "- id: yes\n- id: .5\n- id: 1_000\n- id: 0X1A\n- id: 2020-01-01\n- id: abc\n",
        ("2020", "2021", "1e3", "1000", "010", "10", "yes", "true", "1_000", "0X1A", "abc"),
    ),
    # a tag says what YAML reads: !!str makes the digits text
    "yaml-id-tagged": (
        "refs.yaml",
        "references:\n- id: !!str 2020\n- id: !!str yes\n- id: !!int '7'\n- id: !custom x1\n"
        "- id: &a y1\n  title: A\n- id: !!str 010\n- id: !!float '1e3'\n",
        ("2020", "yes", "true", "7", "x1", "y1", "010", "10", "1e3", "1000", "zz"),
    ),
    "yaml-references-tagged": (
        "refs.yaml",
        "references: !!seq\n- !!map {id: !!str 2021}\n- id: !!str '3.10'\n",
        ("2021", "3.10", "3.1", "zz"),
    ),
}
#: the pandoc of each version: the one on the PATH is 2.17
VERSIONS = ("2.17", "3.6.1", "3.9")
_NOT_FOUND = re.compile(r"\[WARNING\] Citeproc: citation (\S+) not found")


def _pandoc(version: str) -> str:
    pandoc = shutil.which("pandoc") if version == "2.17" else str(PANDOC_RELEASES[version])
    if pandoc is None or not Path(pandoc).exists():
        pytest.fail(f"pandoc {version} is needed (scripts/test installs it)", pytrace=False)
    return pandoc


def _write(directory: Path, name: str, text: str, keys: tuple[str, ...]) -> None:
    (directory / name).write_text(text, encoding="utf-8")
    cites = "".join(f"See [@{k}].\n\n" for k in keys)
    (directory / "doc.md").write_text(f"---\nbibliography: {name}\n---\n\n{cites}", "utf-8")


def pandoc_reading(directory: Path, version: str) -> tuple[bool, list[str]]:
    """Whether pandoc ``version`` stops with an error at the bibliography of ``doc.md``,
    and the citations it reports not found."""
    run = subprocess.run(
        [_pandoc(version), "--citeproc", "-t", "plain", "doc.md"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    stopped = run.returncode != 0
    assert not stopped or "Error reading bibliography file" in run.stderr, run.stderr
    return stopped, sorted(_NOT_FOUND.findall(run.stderr))


def citewarden_reading(directory: Path, version: str) -> tuple[list[Finding], list[str]]:
    """The ``bib-syntax`` findings citewarden has on the bibliography of ``doc.md`` read by
    pandoc ``version``, and the citations it reports dangling."""
    ws = Workspace(Settings(pandoc_version=version), root=directory)
    for path in sorted(directory.iterdir()):
        ws.add_file(path)
    found = [f for fs in check(ws).values() for f in fs]
    syntax = [f for f in found if f.code is Code.BIB_SYNTAX and f.location.path.name != "doc.md"]
    dangling = sorted(str(f.data["key"]) for f in found if f.code is Code.DANGLING)
    return syntax, dangling


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", list(CASES))
def test_a_csl_bibliography_defines_what_pandoc_reads(
    tmp_path: Path, name: str, version: str
) -> None:
    _write(tmp_path, *CASES[name])
    stopped, not_found = pandoc_reading(tmp_path, version)
    syntax, dangling = citewarden_reading(tmp_path, version)
    stops = [f.message for f in syntax if "stops with an error" in f.message]
    if stopped:
        assert stops
    else:
        assert dangling == not_found and not stops


@pytest.mark.parametrize("version", VERSIONS)
def test_an_items_object_is_a_finding_for_pandoc_2_only(tmp_path: Path, version: str) -> None:
    _write(tmp_path, *CASES["json-items"])
    syntax, dangling = citewarden_reading(tmp_path, version)
    assert dangling == ["zz"]
    if version != "2.17":
        assert syntax == []
        return
    (finding,) = syntax
    text = (tmp_path / "refs.json").read_text(encoding="utf-8")
    span = finding.location.span
    assert text[span.start : span.end] == "items"
    assert finding.message == (
        "pandoc cannot read this file: pandoc 2 reads a CSL-JSON array of items, not an "
        'object whose "items" are one (pandoc 3 reads both) (pandoc --citeproc stops with '
        "an error, and no citation of the document is found)"
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_a_bare_yaml_list_is_a_finding_for_pandoc_2_only(tmp_path: Path, version: str) -> None:
    """pandoc 3 reads a CSL-YAML file that is a bare list of items; pandoc 2 reads no entry
    from it, without an error (its items stay defined for citewarden: a finding says so)."""
    _write(tmp_path, "refs.yaml", "- id: a\n  title: A\n- id: b\n", ("a", "b", "zz"))
    stopped, not_found = pandoc_reading(tmp_path, version)
    syntax, dangling = citewarden_reading(tmp_path, version)
    assert not stopped and dangling == ["zz"]
    if version != "2.17":
        assert not_found == ["zz"] and syntax == []
        return
    assert not_found == ["a", "b", "zz"]
    (finding,) = syntax
    text = (tmp_path / "refs.yaml").read_text(encoding="utf-8")
    assert text[finding.location.span.start : finding.location.span.end] == "- id: a"
    assert finding.message.startswith("pandoc 2 reads no entry from this file: a bare list")


@pytest.mark.parametrize("version", VERSIONS)
def test_values_pandoc_stops_at_in_csl_json_it_reads_in_csl_yaml(
    tmp_path: Path, version: str
) -> None:
    """pandoc reads a CSL-YAML item's values whatever their type (its metadata reader),
    where its CSL-JSON reader stops at each of them: a finding in the JSON only."""
    values = {"note": 5, "title": True, "author": "Smith", "issued": 2004, "volume": 1.5}
    for name, text in (
        ("refs.json", json.dumps([{"id": "a", **values}, {"id": "b"}])),
        ("refs.yaml", yaml.safe_dump({"references": [{"id": "a", **values}, {"id": "b"}]})),
    ):
        for old in tmp_path.iterdir():
            old.unlink()
        _write(tmp_path, name, text, ("a", "b", "zz"))
        stopped, not_found = pandoc_reading(tmp_path, version)
        syntax, dangling = citewarden_reading(tmp_path, version)
        stops = [f.message for f in syntax if "stops with an error" in f.message]
        assert (stopped, bool(stops)) == (name == "refs.json", name == "refs.json"), name
        assert stopped or dangling == not_found == ["zz"]


@pytest.mark.parametrize("version", VERSIONS)
def test_a_documents_references_ids_are_read_as_markdown(tmp_path: Path, version: str) -> None:
    """pandoc reads the id of a ``references:`` item of a document as Markdown (the
    escape in ``smith\\_2020`` is undone), where a CSL-YAML file's id is taken as written
    (the case ``yaml-escaped-id`` above): ``[@smith_2020]`` is found."""
    (tmp_path / "doc.md").write_text(
        "---\nreferences:\n- id: smith\\_2020\n  title: A\n---\n\nSee [@smith_2020] and [@zz].\n",
        encoding="utf-8",
    )
    stopped, not_found = pandoc_reading(tmp_path, version)
    _, dangling = citewarden_reading(tmp_path, version)
    assert not stopped and not_found == ["zz"] and dangling == not_found


@pytest.mark.parametrize("version", VERSIONS)
def test_a_documents_references_numbers_are_read_as_pandoc_writes_them(
    tmp_path: Path, version: str
) -> None:
    """pandoc writes a number of a document's ``references:`` as its YAML reader reads it
    (``010`` is 10, ``1e3`` 1000, ``3.10`` 3.1, ``0x1A`` 26), and a boolean is no id; a
    quoted id is its text."""
    ids = ["010", "1e3", "3.10", "0x1A", "'2020'", "yes", "1_000"]
    cited = ["010", "10", "1e3", "1000", "3.10", "3.1", "0x1A", "26", "2020", "yes", "true"]
    items = "".join(f"- id: {i}\n" for i in ids)
    cites = "".join(f"See [@{k}].\n\n" for k in [*cited, "1_000", "zz"])
    (tmp_path / "doc.md").write_text(f"---\nreferences:\n{items}---\n\n{cites}", "utf-8")
    stopped, not_found = pandoc_reading(tmp_path, version)
    _, dangling = citewarden_reading(tmp_path, version)
    assert not stopped and not_found == ["010", "0x1A", "1e3", "3.10", "true", "yes", "zz"]
    assert dangling == not_found


@pytest.mark.parametrize("version", VERSIONS)
def test_a_documents_references_tagged_str_ids_are_text(tmp_path: Path, version: str) -> None:
    """``!!str`` makes an id pandoc's YAML reader would read as a number or a boolean text
    (``!!str 010`` is ``010``, not 10); an anchor alone does not (``&x 2020`` is 2020)."""
    (tmp_path / "doc.md").write_text(
        "---\nreferences:\n- id: !!str 010\n  title: A\n- id: !!str yes\n- id: &x 2020\n---\n\n"
        "[@010] [@10] [@yes] [@true] [@2020] [@zz]\n",
        encoding="utf-8",
    )
    stopped, not_found = pandoc_reading(tmp_path, version)
    _, dangling = citewarden_reading(tmp_path, version)
    assert not stopped and not_found == ["10", "true", "zz"] and dangling == not_found
