"""An entry no source answered for keeps the tier its file's own findings give it, and every
report shows that tier as one the score leaves out: the text summary, the JSON, the HTML
report and the editor's hover agree with the tier counts above them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from citewarden import cli
from citewarden.findings.score import NOT_COUNTED
from citewarden.lsp.verify_hover import hover_markdown
from citewarden.model import Status, Tier, Verdict
from test_cli_report_entries import RECORDS

RECORD = RECORDS[1]  # Jones, Deep networks for cats, volume 7

BIB = """\
@article{jones2019,
  author = {Jones, Mary},
  title = {Deep networks for cats},
  journal = {Feline Computing},
  year = {2019},
  volume = {8},
  doi = {10.5555/other}
}
@article{smith2020,
  author = {Author, First and Others, Some},
  title = {A Study of Things That Never Were},
  journal = {Journal of Imaginary Results},
  year = {2020},
  doi = {10.1234/nothing.2020}
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``jones2019`` is in the snapshot with a wrong volume (counted: a mismatch, tier M);
    ``smith2020`` has placeholder authors and no source knows it offline (unverified)."""
    (tmp_path / "snapshot.jsonl").write_text(json.dumps({"message": RECORD}) + "\n")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    cli.main(["check", "refs.bib", "--offline", "--snapshot", "snapshot.jsonl", *args])
    out, err = capsys.readouterr()
    return out, err


def test_the_summary_shows_an_uncounted_tier_in_parentheses_after_the_counted(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, err = check([], capsys)
    head = next(line for line in err.splitlines() if line.startswith("references:"))
    assert "tiers H0 E0 M1 D0" in head and "not counted: 1 unverified" in head
    rows = [line for line in err.splitlines() if re.match(r"  \(?[HEMD]\)?\s", line)]
    assert [row.split()[:3] for row in rows] == [
        ["M", "jones2019", "mismatch"],
        ["(H)", "smith2020", "unverified"],
    ]
    # the keys stay in one column whatever the tier's width
    assert rows[0].index("jones2019") == rows[1].index("smith2020")
    assert f"  ({NOT_COUNTED})" in err.splitlines()


def test_no_note_when_every_entry_shown_is_counted(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "refs.bib").write_text(BIB.split("@article{smith2020")[0], encoding="utf-8")
    _, err = check([], capsys)
    assert "  M  jones2019  mismatch" in err
    assert NOT_COUNTED not in err


def test_json_says_which_entries_the_tiers_count(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = check(["--format", "json"], capsys)
    report = json.loads(out)
    rows = {e["key"]: (e["status"], e["tier"], e["counted"]) for e in report["entries"]}
    assert rows == {
        "jones2019": ("mismatch", "M", True),
        "smith2020": ("unverified", "H", False),
    }
    counted = [e for e in report["entries"] if e["counted"]]
    assert report["summary"]["counted"] == len(counted)
    assert report["tiers"]["H"] == 0


def test_html_badges_an_uncounted_tier_apart(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    check(["--format", "html", "--output", "r.html"], capsys)
    page = (project / "r.html").read_text(encoding="utf-8")
    assert '<span class="tier tH uncounted"' in page and ">(H)</span>" in page
    assert '<span class="tier tM" title="moderate">M</span>' in page
    assert '<span class="tier tH" ' not in page  # H is never shown as a counted tier


@pytest.mark.parametrize(
    ("status", "said"),
    [
        (Status.UNVERIFIED, "(risk tier H, not counted in the score)"),
        (Status.SKIPPED, "(risk tier H, not counted in the score)"),
        (Status.NOT_FOUND, "(risk tier H)"),
    ],
)
def test_the_hover_says_whether_the_tier_counts(status: Status, said: str) -> None:
    text = hover_markdown(Verdict(key="k", status=status, tier=Tier.H, reason="offline"))
    assert text.splitlines()[0].endswith(said)
