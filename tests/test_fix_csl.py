"""Anchored corrections written into CSL-JSON and CSL-YAML items: by ``check --fix`` and
as the editor's quick fixes, each value quoted as the file writes it, read back by the
real pandoc as planned."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citewarden import cli
from citewarden.findings.verdicts import correction_fix, csl_decoding, update_fix
from citewarden.fix.csl import Decoding, correction_edits, entry_edits
from citewarden.fix.plan import Change, Edit, FixPlan, Skipped, plan_fix, verify_plan
from citewarden.fix.run import front_matter_references, plan_file, written_corrections
from citewarden.model import Entry, ParsedBibliography, Status, Tier, Verdict
from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml
from citewarden.verify.authors import csl_names
from citewarden.verify.plain_text import latex_to_text
from pandoc_json import csljson
from snapshots import VERIFY, write_snapshot

JSON_TEXT = """[
  {
    "id": "a",
    "type": "article-journal",
    "title": "Old title",
    "volume": 3,
    "issued": {"date-parts": [[2004, 5]]},
    "page": "1-2"
  },
  {"id": "b", "type": "book", "title": "Caf\\u00e9"}
]
"""

YAML_TEXT = """references:
- id: a
  type: article-journal
  title: Old title
  volume: 3
  issued:
    date-parts:
    - - 2004
  abstract: |
    line one
    # not a comment
- id: b
  title: 'It''s'
  container-title: "J"
- {id: c, title: x}
"""


DECODING = Decoding(latex_to_text, csl_names)
#: Values taken as they are (no LaTeX to decode).
AS_IS = Decoding(str, csl_names)


def apply_edits(text: str, edits: Any) -> str:
    for e in sorted(edits, key=lambda e: -e.span.start):
        text = text[: e.span.start] + e.new_text + text[e.span.end :]
    return text


def _edits_of(
    text: str, entry: Entry, fields: Any, changes: list[Change], skipped: list[Skipped]
) -> list[Edit]:
    return entry_edits(text, entry, fields, changes, skipped, decoding=DECODING)


def _plan(name: str, text: str, corrections: dict[str, dict[str, str]]) -> FixPlan:
    parse = parse_csl_json if name.endswith(".json") else parse_csl_yaml
    bib: ParsedBibliography = parse(Path(name), text)
    plan = plan_fix(bib, text.encode(), corrections, _edits_of)
    verify_plan(plan, parse)
    return plan


def _pandoc_items(tmp_path: Path, name: str, text: str) -> dict[str, dict[str, Any]]:
    """The items pandoc reads from a CSL-JSON file, or from a CSL-YAML file's list given
    as a document's ``references:``, as CSL-JSON."""
    if name.endswith(".json"):
        (tmp_path / name).write_text(text, encoding="utf-8")
        items = csljson(tmp_path, "-f", "csljson", name)
    else:
        body = text.removeprefix("references:\n")
        indented = "".join("  " + line for line in body.splitlines(keepends=True))
        (tmp_path / "doc.md").write_text(f"---\nreferences:\n{indented}---\n", encoding="utf-8")
        items = csljson(tmp_path, "-f", "markdown", "doc.md")
    return {item["id"]: item for item in items}


def test_csl_json_values_are_replaced_inside_their_quotes_and_members_added(
    tmp_path: Path,
) -> None:
    corrections = {
        "a": {
            "title": "{BERT}: New \\& title",
            "doi": "10.1/x",
            "year": "2005",
            "volume": "4",
            "pages": "10--20",
        },
        "b": {"doi": "10.2/y", "title": "Caf\\'e noir"},
    }
    plan = _plan("refs.json", JSON_TEXT, corrections)
    new = plan.new.decode()
    assert '"title": "BERT: New & title",' in new
    assert '"volume": 4,' in new  # a number stays a number
    assert '"issued": {"date-parts": [[2005, 5]]},' in new  # the month is kept
    assert '"page": "10-20",\n    "DOI": "10.1/x"\n  },' in new  # one member per line
    assert '{"id": "b", "type": "book", "title": "Café noir", "DOI": "10.2/y"}' in new
    assert not plan.skipped
    assert {(c.key, c.field, c.new) for c in plan.changes} == {
        ("a", "title", "BERT: New & title"),
        ("a", "doi", "10.1/x"),
        ("a", "year", "2005"),
        ("a", "volume", "4"),
        ("a", "pages", "10-20"),
        ("b", "doi", "10.2/y"),
        ("b", "title", "Café noir"),
    }
    items = _pandoc_items(tmp_path, "refs.json", new)
    assert items["a"]["title"] == "BERT: New & title"
    assert items["a"]["DOI"] == "10.1/x" and items["a"]["page"] == "10-20"
    assert items["a"]["issued"] == {"date-parts": [[2005, 5]]}
    assert str(items["a"]["volume"]) == "4"
    assert items["b"]["title"] == "Café noir" and items["b"]["DOI"] == "10.2/y"
    # What JSON escapes is escaped (the plain text as given: no LaTeX to decode here).
    entry = parse_csl_json(Path("refs.json"), JSON_TEXT).entries[1]
    [edit] = correction_edits(JSON_TEXT, entry, {"title": 'Say "hi" \\ now'}, AS_IS)
    assert edit.new_text == 'Say \\"hi\\" \\\\ now'
    assert json.loads(apply_edits(JSON_TEXT, [edit]))[1]["title"] == 'Say "hi" \\ now'


def test_csl_yaml_values_keep_their_style_and_members_go_after_the_last_one(
    tmp_path: Path,
) -> None:
    corrections = {
        "a": {"title": "New: title", "doi": "10.1/x", "year": "2005", "volume": "4"},
        "b": {"title": "It's new", "journal": "Nature", "doi": "10.3/z"},
        "c": {"doi": "10.4/w", "title": "y, z"},
    }
    plan = _plan("refs.yaml", YAML_TEXT, corrections)
    new = plan.new.decode()
    assert '  title: "New: title"\n  volume: 4\n' in new  # quoted only where plain would break
    assert "    - - 2005\n" in new
    # after the block scalar, whose last line looks like a comment but is part of it
    assert "    # not a comment\n  DOI: 10.1/x\n- id: b\n" in new
    assert "  title: 'It''s new'\n  container-title: \"Nature\"\n  DOI: 10.3/z\n" in new
    assert '- {id: c, title: "y, z", "DOI": "10.4/w"}\n' in new
    assert not plan.skipped
    items = _pandoc_items(tmp_path, "refs.yaml", new)
    assert items["a"]["title"] == "New: title" and items["a"]["DOI"] == "10.1/x"
    assert items["a"]["abstract"] == "line one # not a comment"  # pandoc reads Markdown
    assert items["a"]["issued"] == {"date-parts": [[2005]]}
    assert items["b"]["title"] == "It\u2019s new"  # pandoc's Markdown makes it typographic
    assert items["b"]["container-title"] == "Nature"
    assert items["c"]["title"] == "y, z" and items["c"]["DOI"] == "10.4/w"


def test_what_is_left_to_the_user_is_skipped_with_its_reason() -> None:
    text = (
        "- id: a\n"
        "  title: >\n"
        "    Folded\n"
        "    title\n"
        "  author:\n"
        "  - family: Smith\n"
        "- id: b\n"
        "  title: T\n"
    )
    plan = _plan(
        "refs.yaml",
        text,
        {
            "a": {"title": "New", "eprint": "2101.00001v2"},
            "b": {"issued": "May 2004", "volume": "3"},
        },
    )
    assert plan.new.decode() == text + "  volume: 3\n"
    reasons = {(s.key, s.field): s.reason for s in plan.skipped}
    assert "block scalar" in reasons[("a", "title")]
    assert "eprint" in reasons[("a", "eprint")]
    assert "no variable for issued" in reasons[("b", "issued")]


def test_a_value_that_would_not_read_back_as_planned_is_not_written() -> None:
    """An item whose edit the read-back check rejects is left as it is: here a YAML
    anchor the item uses is defined in another item, so the item cannot be read alone."""
    text = "- id: a\n  publisher: &p Springer\n- id: b\n  publisher: *p\n  title: T\n"
    plan = _plan("refs.yaml", text, {"b": {"title": "New"}})
    assert plan.new.decode() == text
    [skipped] = plan.skipped
    assert skipped.key == "b" and "read back" in skipped.reason


def test_the_editor_quick_fix_of_a_csl_item_edits_its_value() -> None:
    bib = parse_csl_json(Path("refs.json"), JSON_TEXT)
    entry = next(e for e in bib.entries if e.key == "a")
    fix = correction_fix(entry, JSON_TEXT, "doi", "10.1/x")
    assert fix is not None and fix.title == "Add DOI 10.1/x"
    assert apply_edits(JSON_TEXT, fix.edits).count('"DOI": "10.1/x"') == 1
    fix = correction_fix(entry, JSON_TEXT, "pages", "10--20")  # as the item gets it
    assert fix is not None and fix.title == "Set page to “10-20”"
    fix = correction_fix(entry, JSON_TEXT, "title", "{BERT} rules")
    assert fix is not None and fix.title == "Set title to “BERT rules”"
    assert '"title": "BERT rules",' in apply_edits(JSON_TEXT, fix.edits)
    [edit] = correction_edits(JSON_TEXT, entry, {"author": "Doe, J."}, DECODING)
    assert edit.new_text == ',\n    "author": [{"family": "Doe", "given": "J."}]'


NAMES = (
    'van der Berg, Jan and Steele, Jr., Guy L. and M{\\"u}ller, Hans '
    "and {World Health Organization} and others"
)


def test_name_lists_are_written_in_the_layout_of_the_list_they_replace(tmp_path: Path) -> None:
    """A name list as CSL name objects (particle, suffix, organisation, "others"), in the
    layout of the list it replaces: one member per line at the file's indentation, a JSON
    array on one line, a YAML block list (its comment kept), a YAML flow list; an item
    without one gets a list after its last member."""
    json_text = """[
  {
    "id": "multi",
    "author": [
      {
        "family": "Berg",
        "given": "J."
      }
    ],
    "title": "A"
  },
  {"id": "one", "author": [{"family": "Berg", "given": "J."}], "title": "B"},
  {"id": "none", "title": "C"}
]
"""
    fixes = {key: {"author": NAMES} for key in ("multi", "one", "none")}
    new = _plan("refs.json", json_text, fixes).new.decode()
    assert (
        '    "author": [\n      {\n        "family": "Berg",\n        "given": "Jan",\n'
        '        "non-dropping-particle": "van der"\n      },\n' in new
    )
    assert '{"id": "one", "author": [{"family": "Berg", "given": "Jan", ' in new
    assert '"title": "C", "author": [{"family": "Berg"' in new
    items = _pandoc_items(tmp_path, "refs.json", new)
    for key in ("multi", "one", "none"):
        assert items[key]["author"] == [
            {"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"},
            {"family": "Steele", "given": "Guy L.", "suffix": "Jr."},
            {"family": "Müller", "given": "Hans"},
            {"literal": "World Health Organization"},
            {"literal": "others"},
        ], key

    yaml_text = (
        "- id: block\n"
        "  author:\n"
        "  - family: Berg\n"
        "    given: J.\n"
        "  # the list ends here\n"
        "  title: A\n"
        "- id: flow\n"
        "  author: [{family: Berg, given: J.}]\n"
        "- id: none\n"
        "  title: C\n"
    )
    fixes = {key: {"author": "van der Berg, Jan and Doe, J."} for key in ("block", "flow", "none")}
    new = _plan("refs.yaml", yaml_text, fixes).new.decode()
    assert new == (
        "- id: block\n"
        "  author:\n"
        "  - family: Berg\n"
        "    given: Jan\n"
        "    non-dropping-particle: van der\n"
        "  - family: Doe\n"
        "    given: J.\n"
        "  # the list ends here\n"
        "  title: A\n"
        "- id: flow\n"
        '  author: [{"family": "Berg", "given": "Jan", "non-dropping-particle": "van der"}, '
        '{"family": "Doe", "given": "J."}]\n'
        "- id: none\n"
        "  title: C\n"
        "  author:\n"
        "  - family: Berg\n"
        "    given: Jan\n"
        "    non-dropping-particle: van der\n"
        "  - family: Doe\n"
        "    given: J.\n"
    )
    items = _pandoc_items(tmp_path, "refs.yaml", "references:\n" + new)
    for key in ("block", "flow", "none"):
        assert [a["family"] for a in items[key]["author"]] == ["Berg", "Doe"], key


#: Real works as CSL-JSON with one wrong field each (the digit swaps of the BibTeX test
#: in tests/test_cli_reports.py), checked against their recorded Crossref records.
CSL_REFS = """[
  {
    "id": "cybenko1989",
    "type": "article-journal",
    "author": [{"family": "Cybenko", "given": "G."}],
    "title": "Approximation by superpositions of a sigmoidal function",
    "container-title": "Mathematics of Control, Signals, and Systems",
    "issued": {"date-parts": [[1989]]},
    "volume": "2",
    "issue": "4",
    "page": "303-341",
    "DOI": "10.1007/BF02551274"
  },
  {
    "id": "berman2000",
    "type": "article-journal",
    "author": [{"family": "Berman", "given": "H. M."}],
    "title": "The Protein Data Bank",
    "container-title": "Nucleic Acids Research",
    "issued": {"date-parts": [[2000]]},
    "volume": 82,
    "page": "235-242"
  }
]
"""

RECORDS = ("refchecker_get_by_doi_a6fdc5bb97.json", "refchecker_get_by_doi_efb3cb1d62.json")


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with the snapshot of the recorded records, the working directory."""
    write_snapshot(tmp_path, *RECORDS)
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_fix_corrects_a_csl_json_bibliography(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path = recorded
    (tmp_path / "refs.json").write_text(CSL_REFS, encoding="utf-8")
    verify = VERIFY

    assert cli.main(["check", "refs.json", *verify, "--diff"]) == 0
    out, err = capsys.readouterr()
    assert '-    "page": "303-341",\n+    "page": "303-314",\n' in out
    assert '\n-    "volume": 82,\n' in out and '\n+    "volume": 28,\n' in out
    assert '\n+    "page": "235-242",\n+    "DOI": "10.1093/nar/28.1.235"\n' in out
    assert "would correct 3 fields in 2 entries" in err
    assert "refs.json:2  fix: page = 303-314\n" in out + err  # as --fix writes it
    assert (tmp_path / "refs.json").read_text(encoding="utf-8") == CSL_REFS

    assert cli.main(["check", "refs.json", *verify, "--fix"]) == 0
    _, err = capsys.readouterr()
    assert "corrected 3 fields in 2 entries (original kept as refs.json.orig)" in err
    fixed = json.loads((tmp_path / "refs.json").read_text(encoding="utf-8"))
    assert fixed[0]["page"] == "303-314" and fixed[1]["volume"] == 28
    assert fixed[1]["DOI"] == "10.1093/nar/28.1.235"
    assert (tmp_path / "refs.json.orig").read_text(encoding="utf-8") == CSL_REFS
    # Nothing is left to correct.
    assert cli.main(["check", "refs.json", *verify, "--fix"]) == 0
    _, err = capsys.readouterr()
    assert "nothing to fix" in err


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Nature Physics", "Nature Physics"),
        ("2004-05-01", '"2004-05-01"'),  # a date to YAML
        ("yes", '"yes"'),  # a boolean to YAML 1.1
        ("1e3", '"1e3"'),  # a number to YAML 1.2, pandoc's
        ("0o17", '"0o17"'),  # an octal number to YAML 1.2
        ("Cells: a review", '"Cells: a review"'),
        ("A #1 hit", '"A #1 hit"'),
        ("- dash", '"- dash"'),
    ],
)
def test_a_plain_yaml_value_stays_plain_only_when_it_reads_back_as_text(
    value: str, written: str
) -> None:
    text = "- id: a\n  title: Old\n"
    entry = parse_csl_yaml(Path("refs.yaml"), text).entries[0]
    [edit] = correction_edits(text, entry, {"title": value}, AS_IS)
    assert edit.new_text == written
    new = apply_edits(text, [edit])
    assert parse_csl_yaml(Path("refs.yaml"), new).entries[0].get("title") == value


PAPER = """---
title: Notes
references:
- id: berman2000
  type: article-journal
  author:
  - family: Berman
    given: H. M.
  title: The Protein Data Bank
  container-title: Nucleic Acids Research
  issued:
    date-parts: [[2000]]
  volume: 82
  page: 235-242
---

The archive [@berman2000].
"""


def test_check_fix_corrects_the_references_a_document_defines(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``references:`` items in a document's front matter are corrected in place: only
    their values change, the rest of the document stays byte for byte."""
    (recorded / "paper.md").write_text(PAPER, encoding="utf-8")
    assert cli.main(["check", "paper.md", *VERIFY, "--fix"]) == 0
    _, err = capsys.readouterr()
    assert "paper.md: corrected 2 fields in 1 entry (original kept as paper.md.orig)" in err
    fixed = (recorded / "paper.md").read_text(encoding="utf-8")
    assert fixed == PAPER.replace(
        "  volume: 82\n  page: 235-242\n",
        "  volume: 28\n  page: 235-242\n  DOI: 10.1093/nar/28.1.235\n",
    )
    assert cli.main(["check", "paper.md", *VERIFY, "--fix"]) == 0
    assert "nothing to fix" in capsys.readouterr().err


def test_a_value_with_a_yaml_anchor_is_left_and_the_other_items_are_corrected() -> None:
    """Editing an anchored value would drop the anchor another item's alias names (the file
    would no longer read); an aliased value lies in another item.  Both are skipped, the
    rest of the file corrected."""
    text = (
        "references:\n"
        "- id: a\n"
        "  title: One\n"
        "  container-title: &nphys Nature Phys\n"
        "- id: b\n"
        "  title: Two\n"
        "  container-title: *nphys\n"
        "- id: c\n"
        "  title: Three\n"
    )
    plan = _plan(
        "refs.yaml",
        text,
        {"a": {"journal": "Nature Physics"}, "b": {"journal": "X"}, "c": {"volume": "3"}},
    )
    assert plan.new.decode() == text + "  volume: 3\n"
    reasons = {(s.key, s.field): s.reason for s in plan.skipped}
    assert "anchor" in reasons[("a", "container-title")]  # named as the item has it
    assert "alias" in reasons[("b", "container-title")]
    entry = parse_csl_yaml(Path("refs.yaml"), text).entries[0]
    assert correction_fix(entry, text, "journal", "Nature Physics") is None


def test_a_member_the_reader_takes_nothing_from_is_not_added_twice() -> None:
    """An empty ``DOI:`` or a date without a year is a member already: a second one would
    be a duplicate key (strict YAML readers refuse the file); left to the user."""
    text = "- id: a\n  title: T\n  DOI:\n- id: b\n  issued:\n    literal: in press\n"
    plan = _plan("refs.yaml", text, {"a": {"doi": "10.1/x"}, "b": {"year": "2005"}})
    assert plan.new.decode() == text
    reasons = {(s.key, s.field): s.reason for s in plan.skipped}
    assert "DOI is empty or not read" in reasons[("a", "DOI")]
    assert "issued is empty or not read" in reasons[("b", "issued")]
    text = '[{"id": "a", "issued": "in press"}]'
    plan = _plan("refs.json", text, {"a": {"year": "2005"}})
    assert plan.new.decode() == text and "issued" in plan.skipped[0].reason


def test_doi_and_url_are_written_as_given_and_yaml_values_escape_their_markdown(
    tmp_path: Path,
) -> None:
    """A DOI or URL correction is the record's text (no LaTeX to decode: ``~`` stays); in
    YAML, where pandoc reads each value as Markdown, what Markdown would read as markup is
    escaped, so that pandoc reads the value planned."""
    title = "Spaces of C*-algebras and *-homomorphisms"
    doi = "10.1002/(SICI)1097-4636(199604)30:4<a_b*c~>3.0.CO;2-P"
    url = "https://example.org/~user/a_b"
    fixes = {"a": {"title": title, "doi": doi, "url": url}}
    json_new = _plan("refs.json", '[{"id": "a", "title": "Old"}]', fixes).new.decode()
    yaml_new = _plan("refs.yaml", "- id: a\n  title: Old\n", fixes).new.decode()
    assert "C\\\\*-algebras" in yaml_new and "C*-algebras" in json_new
    for name, new in (("refs.json", json_new), ("refs.yaml", "references:\n" + yaml_new)):
        item = _pandoc_items(tmp_path, name, new)["a"]
        assert (item["title"], item["DOI"], item["URL"]) == (title, doi, url), name
        # and citewarden reads them as pandoc does
        parse = parse_csl_json if name.endswith(".json") else parse_csl_yaml
        entry = parse(Path(name), new.removeprefix("references:\n")).entries[0]
        assert (entry.get("title"), entry.get("doi"), entry.get("url")) == (title, doi, url)


def test_csl_ids_are_compared_exactly_and_may_be_written_in_any_quoting() -> None:
    """pandoc tells ``Smith`` from ``smith``; an id written with quotes doubled inside
    single quotes is read as it is: neither refuses the file."""
    text = "- id: 'O''Brien2020'\n  title: A\n- id: Smith\n  title: B\n- id: smith\n  title: C\n"
    plan = _plan(
        "refs.yaml",
        text,
        {"O'Brien2020": {"volume": "1"}, "Smith": {"volume": "2"}, "smith": {"volume": "3"}},
    )
    assert not plan.skipped
    assert plan.new.decode() == (
        "- id: 'O''Brien2020'\n  title: A\n  volume: 1\n"
        "- id: Smith\n  title: B\n  volume: 2\n"
        "- id: smith\n  title: C\n  volume: 3\n"
    )


def test_one_variable_is_written_once_and_a_reports_number_is_its_number() -> None:
    text = '[{"id": "a", "type": "paper-conference"}, {"id": "r", "type": "report"}]'
    plan = _plan(
        "refs.json",
        text,
        {"a": {"journal": "J", "booktitle": "Proc."}, "r": {"number": "TR-7"}},
    )
    new = json.loads(plan.new)
    assert new[0]["container-title"] == "J" and new[1]["number"] == "TR-7"
    assert [(s.key, s.field) for s in plan.skipped] == [("a", "container-title")]
    assert "another correction writes journal" in plan.skipped[0].reason


def test_a_change_names_the_line_of_the_value_it_writes() -> None:
    plan = _plan("refs.json", JSON_TEXT, {"a": {"doi": "10.1/x", "volume": "4"}})
    lines = plan.new.decode().splitlines()
    for change in plan.changes:
        variable = {"doi": '"DOI"', "volume": '"volume"'}[change.field]
        assert variable in lines[change.line - 1], change


def test_the_whole_entry_update_says_which_corrections_it_leaves() -> None:
    """ "Update entry" applies what can be applied and its title names the rest."""
    text = "- id: a\n  title: >\n    Folded\n  volume: 2\n"
    entry = parse_csl_yaml(Path("refs.yaml"), text).entries[0]
    verdict = Verdict(
        "a", Status.MISMATCH, Tier.M, corrections={"title": "New", "volume": "3", "doi": "10.1/x"}
    )
    fix = update_fix(entry, text, verdict)
    assert fix is not None and fix.title.endswith("(not title: by hand)")
    new = apply_edits(text, fix.edits)
    assert new == "- id: a\n  title: >\n    Folded\n  volume: 3\n  DOI: 10.1/x\n"


def test_a_name_list_ending_in_a_block_scalar_is_replaced_up_to_its_text(tmp_path: Path) -> None:
    """The list's last value a block scalar: its line breaks belong to what follows the
    list (the next item, the front matter's end), which stays."""
    text = (
        "references:\n- id: a\n  author:\n  - family: X\n    given: |\n      Y\n"
        "- id: b\n  title: B\n"
    )
    new = _plan("refs.yaml", text, {"a": {"author": "Smith, John"}}).new.decode()
    assert new == (
        "references:\n- id: a\n  author:\n  - family: Smith\n    given: John\n- id: b\n  title: B\n"
    )
    doc = "---\ntitle: My paper\n" + text + "---\n\n# Intro\n\nText [@a].\n"
    entry = front_matter_references(Path("d.md"), doc).entries[0]
    fix = correction_fix(entry, doc, "author", "Smith, John")
    assert fix is not None
    assert apply_edits(doc, fix.edits) == doc.replace(text, new)
    items = _pandoc_items(tmp_path, "refs.yaml", new)
    assert items["a"]["author"] == [{"family": "Smith", "given": "John"}]
    assert items["b"]["title"] == "B"


def test_identifiers_in_yaml_are_kept_from_smart_typography(tmp_path: Path) -> None:
    """pandoc's smart typography would make ``--`` a dash in a DOI or URL; escaped, pandoc
    reads them as given (a title keeps its typography, as pandoc writes titles)."""
    doi, url = "10.1000/a--b...c'd", "https://example.org/x--y"
    new = _plan("refs.yaml", "- id: a\n  title: T\n", {"a": {"doi": doi, "url": url}})
    item = _pandoc_items(tmp_path, "refs.yaml", "references:\n" + new.new.decode())["a"]
    assert (item["DOI"], item["URL"]) == (doi, url)
    entry = parse_csl_yaml(Path("refs.yaml"), new.new.decode()).entries[0]
    assert (entry.get("doi"), entry.get("url")) == (doi, url)


def test_a_quoted_value_starting_with_an_indicator_is_no_anchor() -> None:
    text = "- id: a\n  title: \"!Kung San foragers\"\n  publisher: '&Beyond'\n"
    plan = _plan("refs.yaml", text, {"a": {"title": "!Kung foragers", "publisher": "&More"}})
    assert not plan.skipped
    assert plan.new.decode() == "- id: a\n  title: \"!Kung foragers\"\n  publisher: '\\&More'\n"


def test_a_reports_number_is_named_number_where_it_is_shown() -> None:
    text = "- id: a\n  type: report\n  title: Old\n"
    entry = parse_csl_yaml(Path("refs.yaml"), text).entries[0]
    fix = correction_fix(entry, text, "number", "5")
    assert fix is not None and fix.title == "Add number “5”"
    assert apply_edits(text, fix.edits) == text + "  number: 5\n"


def test_the_hover_names_a_csl_items_corrections_as_the_item_gets_them() -> None:
    from citewarden.lsp.verify_hover import hover_markdown

    verdict = Verdict("a", Status.MISMATCH, Tier.M, corrections={"pages": "10--20"})
    assert "pages → 10--20" in hover_markdown(verdict)  # a .bib entry's BibTeX
    assert "page → 10-20" in hover_markdown(verdict, csl_type="article-journal")


def test_a_bibtex_file_of_either_suffix_gets_the_quick_fixes_fix_writes() -> None:
    """--fix writes .bib and .bibtex files alike; so are both offered the quick fixes."""
    from citewarden.findings.verdicts import entry_findings
    from citewarden.model import Code, Issue
    from citewarden.parsing.bibtex import parse_bibtex

    text = "@article{a,\n  title = {A},\n  pages = {1--2}\n}\n"
    verdict = Verdict(
        "a",
        Status.MISMATCH,
        Tier.M,
        corrections={"pages": "1--3"},
        issues=(Issue(Code.PAGES_MISMATCH, "pages differ", "pages"),),
    )
    for name in ("refs.bib", "refs.bibtex"):
        entry = parse_bibtex(Path(name), text).entries[0]
        [finding] = entry_findings(entry, verdict, text)
        titles = [f.title for f in finding.fixes]
        assert titles[0] == "Set pages to “1--3”" and titles[-1].startswith("Ignore"), name


def test_the_reports_offer_no_eprint_correction_of_a_csl_item(tmp_path: Path) -> None:
    """A CSL item has no eprint variable: --fix leaves it to the user, so the reports
    (JSON, summary, HTML) offer no such correction either."""
    item = '[{"id": "k", "type": "article", "title": "T", "eprint": "2101.00001v9"}]'
    path = tmp_path / "refs.json"
    path.write_text(item, encoding="utf-8")
    entry = parse_csl_json(path, item).entries[0]
    corrections = {"eprint": "2101.00001v2", "volume": "2"}
    assert written_corrections(entry, corrections) == {"volume": "2"}
    plan = plan_file(path, {"k": corrections}, decoding=csl_decoding())
    assert [(c.field, c.new) for c in plan.changes] == [("volume", "2")]
