"""The Markdown quick fixes ("Add to nocite", "Change to") write what pandoc reads: each
edited document is read by the real pandoc, which must cite the added or changed key."""

from __future__ import annotations

from pathlib import Path

import pytest

from checking import check
from citewarden.model import Finding, Fix
from citewarden.project import Workspace, normalize_path
from differential import markdown_oracle
from markers import write_project

#: ``nocite`` values (each citing ``other``) the "Add to nocite" edit extends
NOCITE_FORMS = {
    "double quoted": 'nocite: "@other"\n',
    "single quoted": "nocite: '@other'\n",
    "double quoted, comment": 'nocite: "@other" # keep\n',
    "single quoted, comment": "nocite: '@other'  # note\n",
    "quoted with an escape": 'nocite: "@other \\"x\\""\n',
    "empty quoted": 'nocite: ""\n',
    "plain": "nocite: see @other\n",
    "plain, comment": "nocite: see @other # keep\n",
    "literal": "nocite: |\n  @other\n",
    "literal, 4 spaces": "nocite: |\n    @other\n",
    "literal, strip": "nocite: |-\n    @other\n",
    "literal, keep": "nocite: |+\n    @other\n\n",
    "literal, indentation indicator": "nocite: |2\n    @other\n  @used\n",
    "literal, comment": "nocite: | # keep\n   @other\n",
    "literal, blank line": "nocite: |\n  @other\n\n  @used\n",
    "folded": "nocite: >\n  @other\n",
    "folded, 4 spaces, strip": "nocite: >-\n    @other\n",
    "literal, empty": "nocite: |\n",
    "flow sequence": 'nocite: ["@other"]\n',
    "flow sequence, comment": "nocite: ['@other', \"@used\"] # keep\n",
    "flow sequence, trailing comma": 'nocite: ["@other",]\n',
    "empty flow sequence": "nocite: []\n",
    "block sequence": 'nocite:\n  - "@other"\n',
    "block sequence, not indented": "nocite:\n- '@other'\n- \"@used\"\n",
    "block sequence, comment": 'nocite: # keep\n  - "@other" # first\n',
    "null": "nocite:\n",
    "null, comment": "nocite: # none yet\n",
    "none": "",
}

#: ``nocite`` values no edit is offered for (the edit would need a YAML writer)
UNEDITED_FORMS = {
    "multi-line quoted": 'nocite: "@other,\n  @used"\n',
    "anchored": 'nocite: &n "@other"\n',
    "multi-line flow sequence": 'nocite: ["@other",\n  "@used"]\n',
    "sequence of block scalars": "nocite:\n  - |\n    @other\n",
}


def _project(
    tmp_path: Path, front_matter: str, spare: str, after: str = ""
) -> tuple[str, list[Finding]]:
    text = f"---\nbibliography: refs.bib\n{front_matter}title: T\n---\n\nText [@used].\n"
    if after:
        text += f"\n{after}\nThe end.\n"
    write_project(
        tmp_path,
        f"""
--- paper.md
{text}--- refs.bib
@misc{{used, title={{Used}}}}
@misc{{other, title={{Other}}}}
@misc{{{spare}, title={{Spare}}}}
""",
    )
    ws = Workspace(None, root=tmp_path)
    ws.add_folder(tmp_path)
    found = check(ws)[normalize_path(tmp_path / "refs.bib")]
    return (tmp_path / "paper.md").read_text(encoding="utf-8"), found


def _nocite_fix(found: list[Finding], key: str) -> Fix | None:
    (orphan,) = [f for f in found if f.data.get("key") == key]
    return next((f for f in orphan.fixes if f.title == "Add to nocite"), None)


def apply(text: str, fix: Fix) -> str:
    for edit in sorted(fix.edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text


@pytest.mark.parametrize("spare", ["spare", "o'brien2020", "a.b:c"])
@pytest.mark.parametrize("form", NOCITE_FORMS)
def test_add_to_nocite_gives_a_nocite_pandoc_reads(tmp_path: Path, form: str, spare: str) -> None:
    front_matter = NOCITE_FORMS[form]
    text, found = _project(tmp_path / "p", front_matter, spare)
    before = markdown_oracle(text, tmp_path)
    assert "other" in before or "other" not in front_matter
    fix = _nocite_fix(found, spare)
    assert fix is not None
    assert markdown_oracle(apply(text, fix), tmp_path) == before | {spare}


#: metadata blocks after the front matter's (``nocite: "@used"``); pandoc reads the nocite
#: of the last block that sets one
LATER_BLOCKS = {
    "later nocite": '---\nnocite: "@other"\n---\n',
    "later literal, closed by dots": "---\nnocite: |\n  @other\n...\n",
    "two later ones": '---\nnocite: "@used"\n---\n\nMore.\n\n---\nnocite: ["@other"]\n---\n',
    "later, without nocite": "---\ntitle: Later\n---\n",
}


@pytest.mark.parametrize("later", LATER_BLOCKS)
def test_add_to_nocite_edits_the_block_pandoc_reads_it_from(tmp_path: Path, later: str) -> None:
    """Several metadata blocks setting nocite: pandoc reads the last one's, so the edit goes
    there (it went to the front matter, whose nocite pandoc did not read)."""
    root = tmp_path / "p"
    text, found = _project(root, 'nocite: "@used"\n', "spare", after=LATER_BLOCKS[later])
    before = markdown_oracle(text, tmp_path)
    assert ("other" in before) == ("other" in LATER_BLOCKS[later])
    fix = _nocite_fix(found, "spare")
    assert fix is not None
    assert markdown_oracle(apply(text, fix), tmp_path) == before | {"spare"}


@pytest.mark.parametrize("form", UNEDITED_FORMS)
def test_no_nocite_edit_where_the_yaml_is_not_safely_edited(tmp_path: Path, form: str) -> None:
    text, found = _project(tmp_path / "p", UNEDITED_FORMS[form], "spare")
    assert "other" in markdown_oracle(text, tmp_path)
    assert _nocite_fix(found, "spare") is None


#: where a misspelt key stands in a Markdown document (``⟨⟩`` is the key)
CITED_FORMS = {
    "bare, in text": "Text @⟨⟩ says.\n",
    "bare, in a group": "Text [see @⟨⟩, p. 3].\n",
    "braced": "Text [@{⟨⟩}].\n",
    "suppress author": "Text [-@⟨⟩].\n",
    "nocite, double quoted": '---\nnocite: "@⟨⟩"\n---\n',
    "nocite, single quoted": "---\nnocite: '@⟨⟩'\n---\n",
    "nocite, literal": "---\nnocite: |\n  @⟨⟩\n---\n",
    "nocite, sequence": "---\nnocite:\n- '@⟨⟩'\n---\n",
}


@pytest.mark.parametrize("name", ["o'brien2020", "obrien2020", "o.brien:2020"])
@pytest.mark.parametrize("form", CITED_FORMS)
def test_change_to_cites_the_suggested_key(tmp_path: Path, form: str, name: str) -> None:
    typo = name.replace("'", "").replace("2020", "202")
    body = CITED_FORMS[form].replace("⟨⟩", typo)
    text = f"---\nbibliography: refs.bib\n---\n\n{body}"
    write_project(
        tmp_path / "p",
        f"--- paper.md\n{text}--- refs.bib\n@misc{{{name}, title={{Spare}}}}\n",
    )
    ws = Workspace(None, root=tmp_path / "p")
    ws.add_folder(tmp_path / "p")
    found = check(ws)[normalize_path(tmp_path / "p" / "paper.md")]
    assert markdown_oracle(text, tmp_path) == {typo}
    (dangling,) = [f for f in found if f.data.get("key") == typo]
    (fix,) = dangling.fixes
    assert markdown_oracle(apply(text, fix), tmp_path) == {name}
