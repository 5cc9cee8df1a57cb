"""Every report of ``citewarden check`` shows each bibliography entry with its own verdict,
also when two files define the same key."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from citewarden import cli

RECORDS = (
    {
        "DOI": "10.1234/xyz",
        "title": ["A study of things"],
        "author": [{"family": "Smith", "given": "John"}],
        "container-title": ["Journal of Stuff"],
        "issued": {"date-parts": [[2020]]},
        "volume": "12",
        "issue": "3",
        "page": "1-10",
        "type": "journal-article",
    },
    {
        "DOI": "10.5555/other",
        "title": ["Deep networks for cats"],
        "author": [{"family": "Jones", "given": "Mary"}],
        "container-title": ["Feline Computing"],
        "issued": {"date-parts": [[2019]]},
        "volume": "7",
        "issue": "1",
        "page": "50-60",
        "type": "journal-article",
    },
)

ENTRY = (
    "@article{smith2020,\n  author = {%s},\n  title = {%s},\n  journal = {%s},\n"
    "  year = {%s},\n  volume = {%s},\n  doi = {%s}\n}\n"
)

VERIFY = ["--offline", "--snapshot", "snapshot.jsonl"]


@pytest.fixture
def same_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``a/refs.bib`` and ``b/refs.bib`` both define ``smith2020``, two different works;
    b's volume is wrong (8, the record says 7)."""
    lines = [json.dumps({"message": r}) for r in RECORDS]
    (tmp_path / "snapshot.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, fields in (
        (
            "a",
            ("Smith, John", "A study of things", "Journal of Stuff", "2020", "12", "10.1234/xyz"),
        ),
        (
            "b",
            (
                "Jones, Mary",
                "Deep networks for cats",
                "Feline Computing",
                "2019",
                "8",
                "10.5555/other",
            ),
        ),
    ):
        (tmp_path / name).mkdir()
        (tmp_path / name / "refs.bib").write_text(ENTRY % fields, encoding="utf-8")
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_one_row_per_entry_of_a_key_two_files_define(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["check", "a/refs.bib", "b/refs.bib", *VERIFY, "--format", "json"], capsys)
    assert code == 0
    report = json.loads(out)
    rows = [(r["file"], r["status"], r["corrections"]) for r in report["entries"]]
    assert rows == [
        ("a/refs.bib", "verified", {}),
        ("b/refs.bib", "mismatch", {"volume": "7"}),
    ]
    assert report["summary"]["counted"] == len(rows)
    assert [r["match"]["doi"] for r in report["entries"]] == ["10.1234/xyz", "10.5555/other"]


def test_batch_table_scores_each_file_by_its_own_entries(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, err = run(["check", "a/refs.bib", "b/refs.bib", *VERIFY], capsys)
    scores = {line.split()[0]: line.split()[-1] for line in err.splitlines()[1:3]}
    assert scores == {"a/refs.bib": "100", "b/refs.bib": "98"}  # b: one moderate entry


def test_diff_and_fix_correct_the_second_file_s_entry(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, err = run(["check", "a/refs.bib", "b/refs.bib", *VERIFY, "--diff"], capsys)
    assert "fix: volume = 7" in err
    assert "-  volume = {8},\n+  volume = {7},\n" in out
    assert "citewarden: b/refs.bib: would correct 1 field in 1 entry" in err
    assert "nothing to fix" not in err
    run(["check", "a/refs.bib", "b/refs.bib", *VERIFY, "--fix"], capsys)
    assert "volume = {7}" in (same_key / "b" / "refs.bib").read_text(encoding="utf-8")
    assert "volume = {12}" in (same_key / "a" / "refs.bib").read_text(encoding="utf-8")


def test_html_shows_each_entry_with_its_own_verdict(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["check", "a/refs.bib", "b/refs.bib", *VERIFY, "--format", "html", "-o", "r.html"]
    assert run(args, capsys)[0] == 0
    page = (same_key / "r.html").read_text(encoding="utf-8")
    assert page.count("class='entry o-corrected'") == 1  # b's, with the volume corrected
    assert "volume = {7}" in page


def test_the_summary_shows_a_key_with_a_line_break_on_its_own_line(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A CSL id across lines forged a finding line in the verification summary."""
    forged = "refs.json:1:1: error retracted FAKE"
    item = {
        "id": f"k\n{forged}",
        "type": "article-journal",
        "title": "A study of things",
        "author": [{"family": "Smith", "given": "John"}],
        "container-title": "Journal of Stuff",
        "issued": {"date-parts": [[2020]]},
        "volume": "99",
        "DOI": "10.1234/xyz",
    }
    (same_key / "refs.json").write_text(json.dumps([item]), encoding="utf-8")
    _, _, err = run(["check", "refs.json", *VERIFY], capsys)
    assert not any(line.startswith(forged) for line in err.splitlines())
    rows = [line for line in err.splitlines() if line.startswith("  M  ")]
    assert len(rows) == 1
    assert rows[0].startswith(f"  M  k\\x0a{forged}  mismatch")
    assert rows[0].endswith("fix: volume = 12")


@pytest.fixture
def refused(same_key: Path) -> Path:
    """``b/refs.bib`` alone, whose record's volume holds a right-to-left override: a value
    ``--fix`` refuses to write."""
    record = {**RECORDS[1], "volume": "7\u202e1"}
    (same_key / "snapshot.jsonl").write_text(json.dumps({"message": record}) + "\n")
    return same_key


def test_reports_do_not_offer_a_correction_fix_refuses(
    refused: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, err = run(["check", "b/refs.bib", *VERIFY], capsys)
    rows = [line for line in err.splitlines() if "smith2020" in line]
    assert len(rows) == 1 and "fix:" not in rows[0]
    assert "--fix applies them" not in err
    _, out, _ = run(["check", "b/refs.bib", *VERIFY, "--format", "json"], capsys)
    (row,) = json.loads(out)["entries"]
    assert row["status"] == "mismatch" and row["corrections"] == {}
    run(["check", "b/refs.bib", *VERIFY, "--format", "html", "-o", "r.html"], capsys)
    page = (refused / "r.html").read_text(encoding="utf-8")
    references = page[page.index('<section id="references">') :]
    assert "7\u202e1" not in references and "\\u202e" not in references
    _, _, err = run(["check", "b/refs.bib", *VERIFY, "--diff"], capsys)
    assert "volume not corrected: corrected value holds control or bidirectional" in err


def test_reports_do_not_offer_a_correction_of_a_key_its_file_defines_twice(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fix corrects no key a file defines twice (which entry is meant?): the JSON report
    listed the correction all the same, where the HTML report and the summary do not."""
    bib = same_key / "b" / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text + "\n" + text.replace("smith2020", "Smith2020"), encoding="utf-8")
    _, out, _ = run(["check", "b/refs.bib", *VERIFY, "--format", "json"], capsys)
    rows = json.loads(out)["entries"]
    assert [(r["status"], r["corrections"]) for r in rows] == [("mismatch", {})] * 2
    _, _, err = run(["check", "b/refs.bib", *VERIFY, "--diff"], capsys)
    assert "volume" not in "".join(line for line in err.splitlines() if line.startswith("+"))


def test_reports_offer_no_correction_in_a_file_fix_does_not_rewrite(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--fix rewrites no file it could not read completely (a syntax error in another
    entry): the JSON report listed the entry's correction all the same, the HTML report
    called the entry corrected."""
    bib = same_key / "b" / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8") + "@misc{broken, title = {x} year = 1}\n")
    _, out, _ = run(["check", "b/refs.bib", *VERIFY, "--format", "json"], capsys)
    rows = json.loads(out)["entries"]
    assert (rows[0]["key"], rows[0]["status"], rows[0]["corrections"]) == (
        "smith2020",
        "mismatch",
        {},
    )
    run(["check", "b/refs.bib", *VERIFY, "--format", "html", "-o", "r.html"], capsys)
    page = (same_key / "r.html").read_text(encoding="utf-8")
    assert "not corrected: the file was not parsed completely" in page
    _, _, err = run(["check", "b/refs.bib", *VERIFY, "--fix"], capsys)
    assert "not fixed: b/refs.bib: the file was not parsed completely" in err


def test_the_summary_offers_no_correction_in_a_file_fix_does_not_rewrite(
    same_key: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bib = same_key / "b" / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8") + "@misc{broken, title = {x} year = 1}\n")
    _, _, err = run(["check", "b/refs.bib", *VERIFY], capsys)
    row = next(line for line in err.splitlines() if "smith2020" in line)
    assert "fix:" not in row and "(--diff shows" not in err
    assert "not corrected: the file was not parsed completely" in row


def test_the_summary_asks_once_a_file_whether_fix_rewrites_it(
    same_key: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each entry with a correction asked again, counting its file's problems each time."""
    from citewarden.fix import run as fix_run

    bib = same_key / "b" / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text + "\n" + text.replace("smith2020", "smith2020b"), encoding="utf-8")
    asked: list[Path] = []
    real = fix_run.file_refusal

    def counted(parsed: Any) -> str | None:
        asked.append(parsed.path)
        return real(parsed)

    monkeypatch.setattr(fix_run, "file_refusal", counted)
    _, _, err = run(["check", "b/refs.bib", *VERIFY], capsys)
    assert err.count("fix: volume = 7") == 2
    assert len(asked) == 1
