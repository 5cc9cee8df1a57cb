"""What ``citewarden check`` does with the PATHs it is given: a CSL file named as a PATH
is read as a bibliography, a directory with nothing to check is refused, the exit
statuses are documented, and running out of memory is an error, not a finding."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.cli import main

BROKEN_JSON = '[{"id": "k", "title": '
BROKEN_YAML = "- id: k\n  title: [unclosed\n"


def cli(
    args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- a CSL file given as the PATH -------------------------------------------------------


@pytest.mark.parametrize(("name", "text"), [("refs.json", BROKEN_JSON), ("refs.yaml", BROKEN_YAML)])
def test_a_broken_csl_file_given_as_the_path_is_reported_as_when_a_document_names_it(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "doc.md").write_text(f"---\nbibliography: {name}\n---\n[@k]\n", encoding="utf-8")
    code, out, err = cli(["check", name, "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 1
    alone = [line for line in out.splitlines() if " bib-syntax " in line]
    assert len(alone) == 1 and alone[0].startswith(f"{name}:")
    assert "1 error in 1 file" in err
    code, out, _ = cli(["check", "doc.md", "--no-verify"], tmp_path, capsys, monkeypatch)
    named = [line for line in out.splitlines() if line.startswith(f"{name}:")]
    assert named == alone
    # given with the document that names it, it is reported once
    code, out, _ = cli(["check", "doc.md", name, "--no-verify"], tmp_path, capsys, monkeypatch)
    assert [line for line in out.splitlines() if line.startswith(f"{name}:")] == alone


def test_a_sound_csl_file_given_as_the_path_is_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "refs.json").write_text('[{"id": "k", "title": "T"}]', encoding="utf-8")
    code, out, err = cli(["check", "refs.json", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (0, "")
    assert "no findings in 1 file" in err


def test_a_json_file_in_a_checked_folder_is_not_a_bibliography(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "package.json").write_text(BROKEN_JSON, encoding="utf-8")
    (tmp_path / "main.tex").write_text("Text.\n", encoding="utf-8")
    code, out, _ = cli(["check", ".", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (0, "")


# ---- a directory with nothing to check --------------------------------------------------


@pytest.mark.parametrize("name", ["x.bib", "empty"])
def test_a_directory_with_nothing_to_check_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    (tmp_path / name).mkdir()
    (tmp_path / name / "notes.txt").write_text("x", encoding="utf-8")
    (tmp_path / name / "refs.json").write_text("[]", encoding="utf-8")
    code, out, err = cli(["check", name, "--no-verify"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(f"citewarden: error: nothing to check in {name}: it is a directory")


def test_a_directory_whose_files_are_all_ignored_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "main.tex").write_text("Text.\n", encoding="utf-8")
    (tmp_path / ".citewarden.toml").write_text('ignore = ["*.tex"]\n', encoding="utf-8")
    code, _, err = cli(["check", "d", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 2
    assert "nothing to check in d" in err and "ignore" in err


def test_a_directory_with_a_document_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "d.bib").mkdir()
    (tmp_path / "d.bib" / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    code, _, err = cli(["check", "d.bib", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 0
    assert "no findings in 1 file" in err
