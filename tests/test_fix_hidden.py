"""Corrections from a record holding characters drawn as nothing: the harmless ones (a soft
hyphen, a zero-width space) are dropped from what is written, the others (tag characters,
a joiner inside an ASCII word) refused with a reason, by ``check --fix`` and the editor's
quick fixes alike, in BibTeX and CSL files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewarden import cli
from citewarden.findings.verdicts import correction_fix
from citewarden.fix.plan import plan_fix
from citewarden.fix.run import written_corrections
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_json
from paths import DATA
from snapshots import VERIFY

#: The recorded Crossref record of Cybenko (1989).
CYBENKO = DATA / "api" / "crossref" / "refchecker_get_by_doi_efb3cb1d62.json"
#: Its title as a registry may send it: soft hyphens and a zero-width space inside words.
SOFT_TITLE = "Approxi\u00admation by super\u00adpositions of a sig\u200bmoidal function"
TITLE = "Approximation by superpositions of a sigmoidal function"
#: Its pages followed by tag characters spelling a hidden "IGN".
TAGGED_PAGES = "303-314\U000e0049\U000e0047\U000e004e"

BIB = """@article{cybenko1989,
  author = {Cybenko, G.},
  title = {Approximation by superposition of sigmoidal functions},
  year = {1989},
  volume = {2},
  number = {4},
  pages = {303--341},
  doi = {10.1007/BF02551274}
}
"""

CSL = """[
  {
    "id": "cybenko1989",
    "type": "article-journal",
    "author": [{"family": "Cybenko", "given": "G."}],
    "title": "Approximation by superposition of sigmoidal functions",
    "issued": {"date-parts": [[1989]]},
    "volume": "2",
    "issue": "4",
    "page": "303-341",
    "DOI": "10.1007/BF02551274"
  }
]
"""

HIDDEN = ("\u00ad", "\u200b", "\U000e0049", "\U000e0047", "\U000e004e")


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a snapshot of the recorded record, changed to hold hidden characters
    in its title and pages; the working directory."""
    data = json.loads(CYBENKO.read_text(encoding="utf-8"))
    message = data.get("message", data)
    message.update({"title": [SOFT_TITLE], "page": TAGGED_PAGES})
    (tmp_path / "snapshot.jsonl").write_text(json.dumps({"message": message}) + "\n")
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("name", "text"), [("refs.bib", BIB), ("refs.json", CSL)])
def test_check_fix_drops_a_soft_hyphen_and_refuses_tag_characters(
    recorded: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    (recorded / name).write_text(text, encoding="utf-8")
    assert cli.main(["check", name, *VERIFY, "--fix"]) == 0
    _, err = capsys.readouterr()
    assert "corrected 1 field in 1 entry" in err
    assert "not corrected: corrected value holds characters drawn as nothing" in err
    assert "(\\U000e0047, \\U000e0049, \\U000e004e)" in err
    fixed = (recorded / name).read_text(encoding="utf-8")
    assert TITLE in fixed
    assert not any(ch in fixed for ch in HIDDEN)
    assert "303-341" in fixed or "303--341" in fixed  # the tagged pages are not written


def test_the_reports_and_quick_fixes_write_what_check_fix_writes(tmp_path: Path) -> None:
    bib = parse_bibtex(tmp_path / "refs.bib", BIB)
    [entry] = bib.entries
    corrections = {"title": SOFT_TITLE, "pages": TAGGED_PAGES}
    assert written_corrections(entry, corrections) == {"title": TITLE}
    fix = correction_fix(entry, BIB, "title", SOFT_TITLE)
    assert fix is not None and [e.new_text for e in fix.edits] == [TITLE]
    assert fix.title == f"Set title to “{TITLE}”"  # as it is written
    assert correction_fix(entry, BIB, "pages", TAGGED_PAGES) is None
    csl = parse_csl_json(tmp_path / "refs.json", CSL)
    fix = correction_fix(csl.entries[0], CSL, "title", SOFT_TITLE)
    assert fix is not None and [e.new_text for e in fix.edits] == [TITLE]
    assert "\u00ad" not in fix.title and "\u200b" not in fix.title


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Ne\u00adtworks\ufeff", "Networks"),
        ("\u0915\u094d\u200d\u0937", "\u0915\u094d\u200d\u0937"),  # a joiner doing its work
        ("Net\u200dworks", None),  # a joiner inside an ASCII word: another word
        ("Networks\U000e0041", None),
        ("Networks\u2065", None),
    ],
)
def test_a_corrected_value_drawn_as_nothing_is_dropped_or_refused(
    tmp_path: Path, value: str, written: str | None
) -> None:
    text = "@article{k, journal = {J}, year = {2000}}\n"
    plan = plan_fix(
        parse_bibtex(tmp_path / "refs.bib", text), text.encode(), {"k": {"journal": value}}
    )
    if written is None:
        assert not plan.changed
        [skipped] = plan.skipped
        assert skipped.reason.startswith("corrected value holds characters drawn as nothing (\\")
    else:
        assert not plan.skipped
        assert plan.new.decode() == text.replace("{J}", "{" + written + "}")
