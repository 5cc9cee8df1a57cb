"""`citewarden check` end to end: --format html/sarif, batch input, --fix/--diff, pre-commit."""

from __future__ import annotations

import codecs
import contextlib
import io
import json
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from citewarden import cli
from citewarden.batch import MAX_LIST_PATHS, ListFileError, expand_inputs, read_list
from cli_process import started
from paths import DATA
from snapshots import VERIFY, write_snapshot

ROOT = Path(__file__).resolve().parent.parent
JSS = DATA / "fix" / "jss-bibliography.bib"
SCHEMA = json.loads((DATA / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))

PAPER = r"""\documentclass{article}
\begin{document}
Count models \citep{Mullahy1986, CameronTrivedi2013} and \citet{Yee2009}; \cite{Nobody2020}.
\bibliography{refs}
\end{document}
"""


def make_project(where: Path, paper: str = PAPER) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "main.tex").write_text(paper, encoding="utf-8")
    shutil.copy(JSS, where / "refs.bib")
    return where


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_a_home_folder_output_is_the_home_folder_in_the_cli_and_the_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``~/r.json`` names the same file in both, where the editor's command made a folder
    named ``~`` in the workspace and the CLI found no such folder."""
    from pygls.exceptions import JsonRpcInvalidParams

    from citewarden.lsp.verify_actions import report_arguments

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    project = make_project(tmp_path / "paper")
    monkeypatch.chdir(project)
    code, _, err = run(
        ["check", "main.tex", "--no-verify", "--format", "json", "-o", "~/r.json"], capsys
    )
    assert code == 1, err
    assert json.loads((home / "r.json").read_text())["citations"]["dangling"]
    assert not (project / "~").exists()
    assert report_arguments(({"path": "~/r.html"},), project) == ("html", home / "r.html")
    with pytest.raises(JsonRpcInvalidParams, match="~nosuchuser0 names the home folder of no"):
        report_arguments(("html", "~nosuchuser0/r.html"), project)
    code, _, err = run(["check", "main.tex", "--no-verify", "-o", "~nosuchuser0/r"], capsys)
    assert code == 2 and "~nosuchuser0 names the home folder of no known user" in err
    assert not (project / "~nosuchuser0").exists()


def test_a_report_into_a_folder_that_is_not_there_is_refused_alike_in_the_cli_and_the_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The editor's command made the missing folders of its path, where ``check -o`` failed
    with "No such file or directory" once every entry was verified: both refuse it now,
    before anything is checked, with the one reason, and make no folder (a misspelt one
    would hold the report)."""
    from pygls.exceptions import JsonRpcInvalidParams

    from citewarden.files import write_new_regular
    from citewarden.lsp.verify_actions import report_arguments

    project = make_project(tmp_path / "paper")
    monkeypatch.chdir(project)
    reason = "the folder reprots does not exist; create it first (no folder is made)"
    code, out, err = run(["check", "main.tex", "--no-verify", "-o", "reprots/r.txt"], capsys)
    assert (code, out) == (2, "")
    assert err == f"citewarden: error: --output reprots/r.txt: {reason}\n"
    with pytest.raises(JsonRpcInvalidParams, match=re.escape(f"citewarden.report: {reason}")):
        report_arguments(("html", "reprots/r.html"), project)
    with pytest.raises(FileNotFoundError):
        write_new_regular(project / "reprots" / "r.html", b"<html>")
    assert not (project / "reprots").exists()
    code, _, err = run(["check", "main.tex", "--no-verify", "-o", "main.tex/r.txt"], capsys)
    assert code == 2 and err.endswith("--output main.tex/r.txt: main.tex is not a folder\n")
    with pytest.raises(JsonRpcInvalidParams, match=r"main\.tex is not a folder"):
        report_arguments(({"format": "json", "path": "main.tex/r.json"},), project)
    (project / "reports").mkdir()
    assert report_arguments(("json", "reports/r.json"), project)[1] == project / "reports/r.json"
    code, _, _ = run(["check", "main.tex", "--no-verify", "-o", "reports/r.txt"], capsys)
    assert code == 1 and "dangling-citation" in (project / "reports/r.txt").read_text()


def test_html_report_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(
        ["check", "main.tex", "--no-verify", "--format", "html", "--output", "r.html"], capsys
    )
    assert code == 1  # the dangling key is an error
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "Nobody2020" in page
    assert re.search(r'id="count-dangling"><div class="num">1<', page)
    assert re.search(r'id="count-orphans"><div class="num">8<', page)  # 11 entries, 3 cited
    assert "Verification was not run" in page
    # the card counts keys: Nobody2020 cited twice more, one other key once
    make_project(tmp_path, PAPER.replace(";", "; \\cite{Nobody2020, Nemo} \\cite{Nobody2020}"))
    run(["check", "main.tex", "--no-verify", "--format", "html", "--output", "r.html"], capsys)
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert page.count("Nobody2020") >= 3
    assert re.search(r'id="count-dangling"><div class="num">2<', page)
    assert page.count("<li class='ref'") == 11
    assert out == ""  # the report went to the file


def test_the_html_report_shows_a_file_name_on_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A line feed in a file name was written into the page as it is, read as a space:
    "x\\n<b>.tex" showed as "x <b>.tex".  It is an escape, as in the text report."""
    name = "x\n<b>.tex"
    (tmp_path / name).write_text("\\cite{zz}\\bibliography{r}\n", encoding="utf-8")
    (tmp_path / "r.bib").write_text("@misc{k, title={T}}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, _, _ = run(["check", name, "--no-verify", "--format", "html", "-o", "r.html"], capsys)
    assert code == 1
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "class='path'>x\\x0a&lt;b&gt;.tex:1:7<" in page
    assert "Inputs: x\\x0a&lt;b&gt;.tex." in page
    assert "x\n" not in page


def test_the_html_report_names_a_linked_bibliography_as_the_text_report_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refs.bib linking to ../shared/lib.bib was named by the absolute path of the link
    in the HTML report, and refs.bib in the text and JSON reports."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "paper").mkdir()
    (tmp_path / "shared" / "lib.bib").write_text(
        "@misc{k, title={T}}\n@misc{k, title={U}}\n", encoding="utf-8"
    )
    (tmp_path / "paper" / "refs.bib").symlink_to("../shared/lib.bib")
    (tmp_path / "paper" / "main.tex").write_text(
        "\\cite{k}\\bibliography{refs}\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path / "paper")
    code, out, _ = run(["check", "main.tex", "--no-verify"], capsys)
    assert code == 1 and out.startswith("refs.bib:2:7: error duplicate-key")
    run(["check", "main.tex", "--no-verify", "--format", "html", "-o", "r.html"], capsys)
    page = (tmp_path / "paper" / "r.html").read_text(encoding="utf-8")
    assert "<td class='path'>refs.bib:2:7</td>" in page
    assert "<div class='where'>refs.bib:1</div>" in page
    assert str(tmp_path) not in page


def test_output_dash_is_standard_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """-o - wrote a file named "-", where --files-from - reads standard input."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["check", "main.tex", "--no-verify", "--format", "json", "-o", "-"], capsys)
    assert code == 1 and json.loads(out)["schema"] == "citewarden-report/1"
    assert not (tmp_path / "-").exists()


def test_sarif_report_is_valid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["check", ".", "--no-verify", "--format", "sarif"], capsys)
    assert code == 1
    log = json.loads(out)
    errors = list(jsonschema.Draft4Validator(SCHEMA).iter_errors(log))
    assert errors == [], [e.message for e in errors]
    results = log["runs"][0]["results"]
    dangling = [r for r in results if r["ruleId"] == "dangling-citation"]
    assert len(dangling) == 1
    region = dangling[0]["locations"][0]["physicalLocation"]["region"]
    line3 = PAPER.splitlines()[2]
    assert (region["startLine"], region["startColumn"]) == (3, line3.index("Nobody2020") + 1)
    assert region["endColumn"] == line3.index("Nobody2020") + 1 + len("Nobody2020")
    assert dangling[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "main.tex"


def test_batch_input_from_list_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path / "a")
    make_project(tmp_path / "b", PAPER.replace("Nobody2020", "Wood2006"))
    (tmp_path / "papers.txt").write_text("# the two papers\na/main.tex\n\n  b/main.tex  \n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["check", "@papers.txt", "--no-verify", "--format", "json"], capsys)
    report = json.loads(out)
    files = {d["file"] for d in report["diagnostics"]}
    assert files == {"a/main.tex", "a/refs.bib", "b/refs.bib"}
    assert [d["key"] for d in report["citations"]["dangling"]] == ["Nobody2020"]
    assert code == 1
    # --files-from gives the same paths; the HTML report has one summary row per file.
    (tmp_path / "more.txt").write_text("b/main.tex\n")
    code, _, _ = run(
        [
            "check",
            "a/main.tex",
            "--files-from",
            "more.txt",
            "--no-verify",
            "--format",
            "html",
            "-o",
            "r.html",
        ],
        capsys,
    )
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    files_table = page[page.index('id="files"') : page.index('id="flow"')]
    rows = re.findall(r"<td class='path'>([^<]+)</td>", files_table)
    assert sorted(rows) == ["a/main.tex", "a/refs.bib", "b/main.tex", "b/refs.bib"]


def test_batch_text_output_has_a_summary_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path / "a")
    make_project(tmp_path / "b", PAPER.replace("Nobody2020", "Wood2006"))
    monkeypatch.chdir(tmp_path)
    code, out, err = run(["check", "a/main.tex", "b/main.tex", "--no-verify"], capsys)
    assert code == 1
    table = err[err.index("file ") :].splitlines()
    assert table[0].split() == [
        "file",
        "kind",
        "entries",
        "citations",
        "errors",
        "warnings",
        "notes",
        "score",
    ]
    rows = {r.split()[0]: r.split()[1:] for r in table[1:5]}
    assert rows["a/main.tex"] == ["latex", "0", "4", "1", "0", "0", "-"]
    assert rows["b/main.tex"] == ["latex", "0", "4", "0", "0", "0", "-"]
    assert rows["a/refs.bib"][:2] == ["bibtex", "11"]
    assert "a/main.tex:3:" in out


def test_the_summary_table_lines_up_under_wide_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file named in CJK takes two terminal columns a character: its row's columns were
    padded by characters and stood further right than the header's."""
    from citewarden.report.progress import width

    make_project(tmp_path / "论文")
    make_project(tmp_path / "b")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["check", "论文/main.tex", "b/main.tex", "--no-verify"], capsys)
    assert code == 1
    table = err[err.index("file ") :].splitlines()[:5]
    # where each line's "score" column ends, in terminal columns: the same on every line
    ends = {width(line) for line in table}
    assert len(ends) == 1, table
    assert any(line.startswith("论文/main.tex ") for line in table)


def test_missing_list_file_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["check", "@nope.txt", "--no-verify"], capsys)
    assert code == 2
    assert "list file not found: nope.txt" in err


def test_read_list_and_expand_inputs(tmp_path: Path) -> None:
    assert read_list("a.tex\r\n# comment\n\n  b c.md \n") == ["a.tex", "b c.md"]
    (tmp_path / "l.txt").write_bytes(b"\xef\xbb\xbfx.bib\ny.bib\n")
    got = expand_inputs(["y.bib", "@l.txt"], ["-"], cwd=tmp_path, stdin=io.StringIO("z.md\n"))
    assert got == ["y.bib", "x.bib", "z.md"]
    (tmp_path / "bad.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ListFileError, match="not UTF-16 text"):
        expand_inputs(["@bad.txt"], cwd=tmp_path)


def test_a_list_file_names_any_file_and_a_nul_byte_is_refused_at_its_line(
    tmp_path: Path,
) -> None:
    """A name that is not UTF-8 (as find prints it) made the whole list file "not UTF-8
    text", though the same name on the command line or standard input is checked; a NUL
    byte ended the run in a traceback.  A PowerShell list (UTF-16) is read."""
    (tmp_path / "l.txt").write_bytes(b"a.tex\nx\xfe.tex\n")
    assert expand_inputs(["@l.txt"], cwd=tmp_path) == ["a.tex", os.fsdecode(b"x\xfe.tex")]
    (tmp_path / "ps.txt").write_bytes(
        codecs.BOM_UTF16_LE + "b.tex\r\nc d.md\r\n".encode("utf-16-le")
    )
    assert expand_inputs(["@ps.txt"], cwd=tmp_path) == ["b.tex", "c d.md"]
    (tmp_path / "nul.txt").write_bytes(b"a.tex\n\nx\x00.tex\n")
    with pytest.raises(ListFileError, match=r"^list file nul.txt, line 3: a NUL byte"):
        expand_inputs(["@nul.txt"], cwd=tmp_path)
    with pytest.raises(ListFileError, match=r"^standard input, line 1: a NUL byte"):
        expand_inputs([], ["-"], cwd=tmp_path, stdin=io.StringIO("x\x00.tex\n"))


def test_files_from_alone_names_what_to_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``citewarden check --files-from list.txt`` (docs/reports.md) needs no PATH besides:
    argparse asked for one ("the following arguments are required: PATH")."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.txt").write_text("main.tex\n")
    code, out, err = run(["check", "--files-from", "list.txt", "--no-verify"], capsys)
    assert code in (0, 1), err
    assert "main.tex" in out
    code, _, err = run(["check", "--no-verify"], capsys)
    assert code == 2
    assert "nothing to check: give a PATH or --files-from FILE" in err


def test_a_list_of_more_paths_than_the_limit_is_refused(tmp_path: Path) -> None:
    assert len(read_list("a\n" * MAX_LIST_PATHS)) == MAX_LIST_PATHS
    (tmp_path / "l.txt").write_text("a\n" * (MAX_LIST_PATHS + 1))
    with pytest.raises(ListFileError, match=r"list file l\.txt lists more than 1,000,000 paths"):
        expand_inputs(["@l.txt"], cwd=tmp_path)
    with pytest.raises(ListFileError, match="a line of more than 64 kB"):
        expand_inputs(["@-"], cwd=tmp_path, stdin=io.StringIO("x" * 100_000))
    with pytest.raises(ListFileError, match="line of more than 64 kB"):
        expand_inputs([], ["-"], cwd=tmp_path, stdin=io.StringIO("x" * 100_000 + "\n"))


@pytest.mark.parametrize("given", [["--files-from", "-"], ["@-"]])
def test_a_list_on_a_closed_standard_input_is_a_usage_error(
    tmp_path: Path, given: list[str]
) -> None:
    """``citewarden check --files-from - <&-`` ended in an AttributeError traceback."""
    done = started(
        ["check", "--no-verify", *given], tmp_path, closed=0, capture_output=True, text=True
    )
    assert done.returncode == 2
    assert done.stderr == (
        "citewarden: error: standard input is closed; there is no list to read\n"
    )


@pytest.mark.parametrize("line", [b"main.tex\n", b"x" * 4096], ids=["paths", "one-line"])
def test_an_endless_list_on_standard_input_is_a_usage_error(tmp_path: Path, line: bytes) -> None:
    """``yes main.tex | citewarden check --files-from -`` read until memory ran out (a
    MemoryError under a 1.5 GB address-space limit); the list is now read within bounds."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "citewarden", "check", "--no-verify", "--files-from", "-"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29)),
    )

    def feed() -> None:
        assert proc.stdin is not None
        block = line * max(1, (1 << 20) // len(line))
        with contextlib.suppress(OSError):
            while True:
                proc.stdin.write(block)

    threading.Thread(target=feed, daemon=True).start()
    assert proc.wait(timeout=120) == 2
    assert proc.stderr is not None
    err = proc.stderr.read()
    assert b"standard input" in err and b"it is not read" in err
    assert b"Traceback" not in err


def test_diff_needs_an_output_file_for_machine_formats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(["check", ".", "--diff", "--format", "json"], capsys)
    assert code == 2
    assert "--diff prints to standard output" in err


@pytest.mark.parametrize("option", ["--fix", "--diff"])
@pytest.mark.parametrize(
    ("turned_off", "why"),
    [
        (["--no-verify"], "drop --no-verify"),
        (["--config", "off.toml"], "the setting verify.enabled is false"),
    ],
)
def test_fix_without_verification_changes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    option: str,
    turned_off: list[str],
    why: str,
) -> None:
    """Refused before anything is written: the report of -o was written all the same."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "off.toml").write_text("[verify]\nenabled = false\n", encoding="utf-8")
    before = (tmp_path / "refs.bib").read_bytes()
    args = ["check", ".", option, *turned_off, "--format", "json", "-o", "r.json"]
    code, out, err = run(args, capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"citewarden: error: {option} needs verification ({why}); nothing is checked or changed\n"
    )
    assert (tmp_path / "refs.bib").read_bytes() == before
    assert not (tmp_path / "refs.bib.orig").exists()
    assert not (tmp_path / "r.json").exists()


def test_fix_of_a_project_with_no_entry_to_verify_is_clean(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Nothing to verify is nothing to fix: it was an error saying to drop --no-verify."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "refs.bib").write_text("% no entries yet\n", encoding="utf-8")
    code, out, err = run(["check", "refs.bib", "--fix", "--offline"], capsys)
    assert (code, out) == (0, "")
    assert err == "no findings in 1 file\n"


def test_pre_commit_hooks_definition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [h["id"] for h in hooks] == ["citewarden", "citewarden-verify"]
    for hook in hooks:
        assert {"id", "name", "entry", "language"} <= hook.keys()
        assert hook["entry"] == "citewarden check"
        assert hook["pass_filenames"] is False
        assert re.search(hook["files"], "chapters/intro.tex")
        assert re.search(hook["files"], "refs.bib")
        assert not re.search(hook["files"], "figure.png")
    # The fast hook, run the way pre-commit runs it, fails on a dangling key ...
    fast = hooks[0]
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    argv = fast["entry"].split()[1:] + fast["args"]
    code, out, _ = run(argv, capsys)
    assert code == 1 and "dangling-citation" in out
    # ... and passes once the key is defined (orphans are warnings).
    (tmp_path / "main.tex").write_text(PAPER.replace("Nobody2020", "Wood2006"), encoding="utf-8")
    code, out, _ = run(argv, capsys)
    assert code == 0, out


# ----------------------------------------------------------------------------------------
# With real verification: the engine over a snapshot of real recorded Crossref records
# ----------------------------------------------------------------------------------------

RECORDS = (
    "refchecker_get_by_doi_a6fdc5bb97.json",  # Berman 2000, The Protein Data Bank
    "refchecker_get_by_doi_efb3cb1d62.json",  # Cybenko 1989
    "refchecker_get_by_doi_16c5689e90.json",  # Lu et al. 2021, Inter-GPS
)

#: Real works written with one wrong field each (digit swaps), CRLF line endings, odd spacing.
BIB = (
    "% Reading list\r\n"
    "@article{cybenko1989,\r\n"
    "  author  = {Cybenko, G.},\r\n"
    "  title   = {Approximation by superpositions of a sigmoidal function},\r\n"
    "  journal = {Mathematics of Control, Signals, and Systems},\r\n"
    "  year    = {1989},\r\n"
    "  volume  = {2},\r\n"
    "  number  = {4},\r\n"
    "  pages   = {303--341},\r\n"
    "  doi     = {10.1007/BF02551274}\r\n"
    "}\r\n"
    "\r\n"
    "@comment{kept as is}\r\n"
    "@Article{berman2000,\r\n"
    "\tAuthor = {Berman, H. M.},\r\n"
    "\tTitle = {The Protein Data Bank},\r\n"
    "\tJournal = {Nucleic Acids Research},\r\n"
    "\tYear = 2000,\r\n"
    "\tVolume = 82,\r\n"
    "\tPages = {235--242},\r\n"
    "\tX-Custom = {unknown fields stay}}\r\n"
)

FIXED = (
    BIB.replace("{303--341}", "{303--314}")
    .replace("Volume = 82,", "Volume = 28,")
    .replace(
        "\tX-Custom = {unknown fields stay}}",
        "\tX-Custom = {unknown fields stay},\r\n\tDoi = {10.1093/nar/28.1.235}}",
    )
).encode()


@pytest.fixture
def verified_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_snapshot(tmp_path, *RECORDS)
    (tmp_path / "refs.bib").write_bytes(BIB.encode())
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_prints_the_corrections_and_changes_nothing(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["check", "refs.bib", *VERIFY, "--diff"], capsys)
    assert code == 0  # mismatches are warnings
    assert "-  pages   = {303--341},\r\n+  pages   = {303--314},\r\n" in out
    assert "-\tVolume = 82,\r\n+\tVolume = 28,\r\n" in out
    assert "+\tDoi = {10.1093/nar/28.1.235}}\r\n" in out
    assert "would correct 3 fields in 2 entries" in err
    assert (verified_project / "refs.bib").read_bytes() == BIB.encode()
    assert not (verified_project / "refs.bib.orig").exists()
    assert "\x1b[K" not in err  # no progress bar when stderr is not a terminal


def test_the_list_of_verdicts_lines_up_under_wide_characters(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key in CJK takes two terminal columns a character: the statuses after it stood
    further right than the others'."""
    from citewarden.report.progress import width

    bib = BIB.replace("cybenko1989", "赛本科1989")
    (verified_project / "refs.bib").write_bytes(bib.encode())
    _, out, err = run(["check", "refs.bib", *VERIFY], capsys)
    rows = [line for line in (out + err).splitlines() if "  mismatch  " in line]
    assert len(rows) == 2 and any("赛本科1989" in row for row in rows), out + err
    starts = {width(row[: row.index("  mismatch  ")]) for row in rows}
    assert len(starts) == 1, rows


def test_fix_writes_only_the_corrections(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["check", "refs.bib", *VERIFY, "--fix"], capsys)
    assert code == 0
    assert "corrected 3 fields in 2 entries (original kept as refs.bib.orig)" in err
    assert (verified_project / "refs.bib").read_bytes() == FIXED
    assert (verified_project / "refs.bib.orig").read_bytes() == BIB.encode()
    # A second run finds nothing left to correct and keeps the first backup.
    code, out, err = run(["check", "refs.bib", *VERIFY, "--fix"], capsys)
    assert "nothing to fix" in err
    assert "pages-mismatch" not in out and "volume-mismatch" not in out
    assert (verified_project / "refs.bib").read_bytes() == FIXED
    assert sorted(p.name for p in verified_project.glob("refs.bib*")) == [
        "refs.bib",
        "refs.bib.orig",
    ]


def patched(project: Path, diff: str | bytes) -> None:
    """Apply ``diff`` (text, or its bytes) in ``project`` with the real patch(1), as a user
    would."""
    (project / "fix.patch").write_bytes(diff if isinstance(diff, bytes) else diff.encode())
    patch = shutil.which("patch")
    assert patch is not None, "patch is missing"
    done = subprocess.run(
        [patch, "-p1", "-i", "fix.patch"], cwd=project, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stdout


def _diff_lines_only(out: str) -> None:
    """``out`` is a unified diff and nothing else: its headers, hunks and their lines."""
    lines = out.splitlines(keepends=True)
    assert lines and lines[0].startswith("--- a/"), out
    assert all(line.endswith("\n") for line in lines), out
    assert all(line.startswith(("--- ", "+++ ", "@@ ", " ", "-", "+")) for line in lines), out


@pytest.mark.parametrize("output", [[], ["-o", "report.txt"]], ids=["report", "-o report.txt"])
def test_the_diff_is_alone_on_standard_output(
    verified_project: Path, capsys: pytest.CaptureFixture[str], output: list[str]
) -> None:
    """``check refs.bib --diff -o r.txt > fix.patch`` wrote the summary into the patch after
    the diff, and without -o the text report came before it: standard output holds the
    diff alone, to be applied; the report (but to its file) and the summary go to standard
    error, and the exit status is the same."""
    args = ["check", "refs.bib", *VERIFY, "--diff", *output]
    code, out, err = run([*args, "--fail-on", "warning"], capsys)
    assert code == 1  # the mismatches are warnings: the exit status says so, as before
    _diff_lines_only(out)
    assert "would correct 3 fields in 2 entries" in err
    assert "  M  cybenko1989  mismatch" in err and err.endswith("2 warnings, 1 hint in 1 file\n")
    assert ("refs.bib:9:14: warning pages-mismatch" in err) is not bool(output)
    if output:
        assert "pages-mismatch" in (verified_project / "report.txt").read_text(encoding="utf-8")
    patched(verified_project, out)
    assert (verified_project / "refs.bib").read_bytes() == FIXED
    code, out, err = run(args, capsys)
    assert code == 0 and out == "" and "nothing to fix" in err


def test_the_diff_of_a_file_named_with_a_space_is_applied_by_patch(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """patch(1) read "--- a/my refs.bib" as the file "my" and applied nothing: the name
    ends in a tab, as diff -u writes it; git apply reads it too."""
    (verified_project / "refs.bib").rename(verified_project / "my refs.bib")
    code, out, _ = run(["check", "my refs.bib", *VERIFY, "--diff", "-o", "report.txt"], capsys)
    assert code == 0 and "--- a/my refs.bib\t\n+++ b/my refs.bib\t\n" in out
    patched(verified_project, out)
    assert (verified_project / "my refs.bib").read_bytes() == FIXED


@pytest.mark.parametrize(
    ("name", "header"),
    [
        ("my\trefs.bib", '"a/my\\trefs.bib"'),
        ("my\nrefs.bib", '"a/my\\nrefs.bib"'),
        ('my "q" \\t.bib', '"a/my \\"q\\" \\\\t.bib"'),
        ("my\u202erefs.bib", '"a/my\\342\\200\\256refs.bib"'),
        ("my\x1b[31mrefs.bib", '"a/my\\033[31mrefs.bib"'),
    ],
    ids=["tab", "line feed", "quote and backslash", "bidi", "escape"],
)
def test_the_diff_of_a_file_named_with_controls_names_it_quoted_as_diff_does(
    verified_project: Path, capsys: pytest.CaptureFixture[str], name: str, header: str
) -> None:
    """A tab in a name ended patch(1)'s name there, a line feed split the header, and a
    name shown escaped read as a file named with the escape's characters: the name is
    written between quotes with C escapes, as GNU diff and git write it, which patch reads."""
    (verified_project / "refs.bib").rename(verified_project / name)
    code, out, _ = run(["check", name, *VERIFY, "--diff", "-o", "report.txt"], capsys)
    assert code == 0
    lines = out.split("\n")
    assert lines[0] == f"--- {header}" and lines[1] == "+++ " + header.replace('"a/', '"b/', 1)
    assert not set(lines[0]) & {"\t", "\x1b", "\u202e"}
    patched(verified_project, out)
    assert (verified_project / name).read_bytes() == FIXED


def test_a_diff_standard_output_cannot_take_is_an_error_not_a_traceback(
    verified_project: Path,
) -> None:
    """--diff to a full disk (``> /dev/full``) ended in a traceback with exit status 1."""
    args = ["check", "refs.bib", *VERIFY, "--diff", "-o", "report.txt"]
    with open("/dev/full", "w") as full:
        done = started(args, verified_project, stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr.endswith(
        "citewarden: error: cannot write the diff to standard output: No space left on device\n"
    )
    assert "Traceback" not in done.stderr
    assert (verified_project / "refs.bib").read_bytes() == BIB.encode()


def test_a_reader_that_goes_away_ends_the_run_quietly(tmp_path: Path) -> None:
    """``check ... | head`` ended in a BrokenPipeError traceback once the reader closed the
    pipe: the run ends without one, with the status of a program SIGPIPE ends (141)."""
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{k{i}, title = {{Title {i}}}}}\n" for i in range(3000)), encoding="utf-8"
    )
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    reader = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "citewarden",
            "check",
            "main.tex",
            "--no-verify",
            "--format",
            "html",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    assert reader.stdout.read(10)
    reader.stdout.close()  # as head does once it has its lines
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 141
    assert "Traceback" not in err and "Error" not in err


def test_a_diff_to_a_closed_standard_output_is_an_error_not_a_traceback(
    verified_project: Path,
) -> None:
    """--diff with standard output closed (>&-) ended in a traceback, the JSON report
    written to its file."""
    args = ["check", "refs.bib", *VERIFY, "--diff", "--format", "json", "-o", "r.json"]
    done = started(
        args,
        verified_project,
        closed=1,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.endswith(
        "citewarden: error: standard output is closed; the diff is not shown\n"
    )
    assert (verified_project / "refs.bib").read_bytes() == BIB.encode()


def test_fix_and_a_batch_with_standard_output_closed_say_their_summary_on_standard_error(
    verified_project: Path,
) -> None:
    """With the report in a file and standard output closed (>&-), the summary of a batch
    and the end of --fix wrote to it and ended the run in an AttributeError traceback,
    --fix's files written: the summary goes to standard error."""
    (verified_project / "empty.bib").write_text("", encoding="utf-8")
    args = ["check", "refs.bib", "empty.bib", *VERIFY, "--fix", "-o", "r.txt"]
    done = started(
        args,
        verified_project,
        closed=1,
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert done.returncode == 0, done.stderr  # the mismatches are warnings
    assert "Traceback" not in done.stderr
    assert (verified_project / "refs.bib").read_bytes() == FIXED
    lines = done.stderr.splitlines()
    assert any(line.startswith("refs.bib ") for line in lines)  # the table of the files
    assert "corrected 3 fields in 2 entries" in done.stderr
    assert lines[-1].endswith("in 2 files")


def test_fix_with_standard_error_closed_fixes_and_keeps_its_exit_status(
    verified_project: Path,
) -> None:
    """Started with standard error closed (2>&-), --fix wrote the file, then its first line
    to standard error ended the run in a traceback (exit status 1), and the text summary
    went to standard output after the report."""
    args = ["check", "refs.bib", *VERIFY, "--fix"]
    done = started(
        args,
        verified_project,
        closed=2,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert done.returncode == 0  # the mismatches are warnings
    assert (verified_project / "refs.bib").read_bytes() == FIXED
    assert done.stdout.splitlines()[-1].startswith("refs.bib:19:11: warning volume-mismatch")


def test_diff_and_fix_show_a_file_name_with_line_breaks_on_one_line(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A .bib named across lines (``r\\n+++ b/evil.bib\\n@@ ...``) forged diff header and
    hunk lines and broke the lines on stderr: the name is shown with its line breaks
    escaped, as in the ``file:line:col`` lines."""
    name = "r\n+++ b_evil.bib\n@@ -1 +1 @@\n-x\n+y\nz.bib"
    shown = name.replace("\n", "\\x0a")
    (verified_project / "refs.bib").rename(verified_project / name)
    (verified_project / "empty.bib").write_text("")
    _, out, err = run(["check", name, "empty.bib", *VERIFY, "--diff"], capsys)
    quoted = name.replace("\n", "\\n")  # in the diff's header, as GNU diff writes it
    assert out.startswith(f'--- "a/{quoted}"\n+++ "b/{quoted}"\n@@ ')  # the diff alone
    assert "\n+++ b_evil" not in out and "\n@@ -1 +1 @@" not in out
    lines = err.splitlines()
    assert f"citewarden: {shown}: would correct 3 fields in 2 entries" in lines
    assert any(line.startswith(shown) for line in lines)  # the table of the files
    assert any(line.endswith(f"{shown}:2  fix: pages = 303--314") for line in lines)
    assert not any(line.startswith(("+++", "@@", "-x", "+y", "z.bib")) for line in lines)
    _, _, err = run(["check", name, *VERIFY, "--fix"], capsys)
    kept = f"citewarden: {shown}: corrected 3 fields in 2 entries (original kept as {shown}.orig)"
    assert kept in err.splitlines()


def test_the_summary_pairs_each_verdict_with_its_entry_and_says_what_fix_leaves(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key defined twice in a file: each verdict is shown at its own entry's line, and
    neither offers the correction --fix does not apply (which of the entries is meant?)."""
    cybenko = BIB[BIB.index("@article{cybenko1989") : BIB.index("@comment")]
    (verified_project / "refs.bib").write_bytes((cybenko + cybenko).encode())
    code, _, err = run(["check", "refs.bib", *VERIFY], capsys)
    assert code == 1  # the duplicate key is an error
    rows = [line for line in err.splitlines() if "cybenko1989" in line]
    assert [row.split("  not corrected")[0].rsplit(":", 1)[1] for row in rows] == ["1", "12"]
    assert all(
        row.endswith("not corrected: the key is defined more than once in this file")
        for row in rows
    )
    assert "fix: pages" not in err and "--fix applies them" not in err


def test_fix_refuses_a_file_with_a_syntax_error(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = BIB.encode() + b"@article{broken,\r\n  title = {unclosed\r\n"
    (verified_project / "refs.bib").write_bytes(broken)
    code, _, err = run(["check", "refs.bib", *VERIFY, "--fix"], capsys)
    assert code == 2
    assert "citewarden: not fixed: refs.bib: the file was not parsed completely" in err
    assert str(verified_project) not in err  # named as given, as the other lines name it
    assert (verified_project / "refs.bib").read_bytes() == broken


def test_the_diff_is_utf8_whatever_the_output_encoding(verified_project: Path) -> None:
    """On a cp1252 pipe a line holding a character cp1252 lacks was written with escapes
    (\\u738b): patch then refused the hunk, or wrote the escapes into the file."""
    bib = verified_project / "refs.bib"
    note = "  note    = {\u03b1 and \u738b},\r\n"
    bib.write_bytes(BIB.replace("  pages   = {303", note + "  pages   = {303").encode())
    args = ["check", "refs.bib", *VERIFY, "--diff", "-o", "report.txt"]
    env = {"PYTHONIOENCODING": "cp1252"}
    done = started(args, verified_project, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (" " + note).encode() in done.stdout
    patched(verified_project, done.stdout)
    assert bib.read_bytes() == FIXED.replace(
        b"  pages   = {303", note.encode() + b"  pages   = {303"
    )


#: The value on the line --fix changes in berman2000 (a DOI is added after it) holding a
#: zero-width space and a soft hyphen, as text copied from a PDF holds them.
HIDDEN = BIB.replace("{unknown fields stay}", "{unknown\u200b fields\xadstay}")


def test_a_diff_holds_the_characters_drawn_as_nothing_so_patch_applies_it(
    verified_project: Path,
) -> None:
    """A changed line holding U+200B or a soft hyphen went into the diff as \\u200b and
    \\xad, which patch(1) then found nowhere in the file: redirected, the diff holds the
    file's own characters and patch makes of it the file --fix writes."""
    bib = verified_project / "refs.bib"
    bib.write_bytes(HIDDEN.encode())
    args = ["check", "refs.bib", *VERIFY, "-o", "report.txt"]
    done = started([*args, "--diff"], verified_project, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert "-\tX-Custom = {unknown\u200b fields\xadstay}}\r\n".encode() in done.stdout
    assert b"\\u200b" not in done.stdout and b"escapes" not in done.stderr
    patched(verified_project, done.stdout)
    diffed = bib.read_bytes()
    bib.write_bytes(HIDDEN.encode())
    done = started([*args, "--fix"], verified_project, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert bib.read_bytes() == diffed
    assert diffed == FIXED.replace(
        b"{unknown fields stay}", "{unknown\u200b fields\xadstay}".encode()
    )


def test_a_diff_on_a_terminal_shows_them_as_escapes_and_says_so(verified_project: Path) -> None:
    """Nothing from a file reaches a terminal unescaped: there the diff shows them as
    escapes, and standard error says that it applies only redirected."""
    (verified_project / "refs.bib").write_bytes(HIDDEN.encode())
    args = ["check", "refs.bib", *VERIFY, "--diff", "-o", "report.txt"]
    terminal, side = os.openpty()
    try:
        done = started(args, verified_project, stdout=side, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(side)
    shown = b""
    with contextlib.suppress(OSError):  # (EIO once the output is all read)
        while chunk := os.read(terminal, 65536):
            shown += chunk
    os.close(terminal)
    assert done.returncode == 0, done.stderr
    assert b"{unknown\\u200b fields\\xadstay}" in shown
    assert "\u200b".encode() not in shown and "\xad".encode() not in shown
    assert (
        "citewarden: refs.bib: the diff shows \\u200b, \\xad as escapes on the terminal, so it"
        " does not apply as shown; redirected (--diff > fix.patch) it holds the file's own"
        " characters"
    ) in done.stderr.splitlines()


def test_a_file_checked_under_two_names_is_fixed_once(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder holding library.bib and refs.bib linking to it: --diff printed the same
    change twice, once under each name, and patch failed on the second."""
    (verified_project / "refs.bib").rename(verified_project / "library.bib")
    (verified_project / "refs.bib").symlink_to("library.bib")
    _, out, err = run(["check", "library.bib", "refs.bib", *VERIFY, "--diff"], capsys)
    assert out.count("--- a/") == 1 and "--- a/library.bib\n" in out
    assert "citewarden: refs.bib: the same file as library.bib (see there)" in err.splitlines()
    (verified_project / "fix.patch").write_text(out, encoding="utf-8", newline="")
    done = subprocess.run(
        ["patch", "-p1", "-i", "fix.patch"], cwd=verified_project, capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stdout
    assert (verified_project / "library.bib").read_bytes() == FIXED
    _, _, err = run(["check", "library.bib", "refs.bib", *VERIFY, "--fix"], capsys)
    assert "citewarden: nothing to fix" in err


def test_fix_leaves_an_entry_edited_after_the_check_to_its_editor(
    verified_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The corrections were planned on the file as it was when --fix ran, not as it was
    checked: pages edited meanwhile (303--399, where the check read 303--341) were
    overwritten with the record's.  The edited entry is left as it is; the others are
    corrected."""
    checked = cli.run_audit

    def edited_after(*args: Any, **kwargs: Any) -> Any:
        audit = checked(*args, **kwargs)
        bib = verified_project / "refs.bib"
        bib.write_bytes(bib.read_bytes().replace(b"{303--341}", b"{303--399}"))
        return audit

    monkeypatch.setattr(cli, "run_audit", edited_after)
    code, _, err = run(["check", "refs.bib", *VERIFY, "--fix"], capsys)
    assert code == 0
    assert (
        "citewarden: refs.bib: cybenko1989 not corrected: the entry changed on disk since it"
        " was checked (check it again)"
    ) in err.splitlines()
    assert "citewarden: refs.bib: corrected 2 fields in 1 entry" in err
    expected = FIXED.replace(b"{303--314}", b"{303--399}")
    assert (verified_project / "refs.bib").read_bytes() == expected


def test_fix_refusals_name_the_file_as_the_other_lines_do(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file that changes on disk while --fix runs is refused under its name relative to
    the working directory, not its absolute path."""
    from citewarden.fix import run as fix_run

    bib = verified_project / "refs" / "refs.bib"
    bib.parent.mkdir()
    (verified_project / "refs.bib").rename(bib)
    planned = fix_run.plan_file

    def edited_meanwhile(path: Path, *args: Any) -> Any:
        plan = planned(path, *args)
        path.write_bytes(path.read_bytes() + b"\n")
        return plan

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fix_run, "plan_file", edited_meanwhile)
        code, _, err = run(["check", "refs/refs.bib", *VERIFY, "--fix"], capsys)
    assert code == 2
    assert "citewarden: not fixed: refs/refs.bib: the file changed on disk since it was read" in err
    assert str(verified_project) not in err


def test_html_and_sarif_with_verdicts(
    verified_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _ = run(["check", "refs.bib", *VERIFY, "--format", "html", "-o", "r.html"], capsys)
    assert code == 0
    page = (verified_project / "r.html").read_text(encoding="utf-8")
    assert "Document score 96 of 100" in page  # two moderate entries
    assert page.count("class='entry o-corrected'") == 2
    assert "pages   = {303--314}" in page  # the cleaned BibTeX
    assert "snapshot" in page  # sources consulted
    assert 'href="https://doi.org/10.1093/nar/28.1.235"' in page
    code, out, _ = run(["check", "refs.bib", *VERIFY, "--format", "sarif"], capsys)
    assert code == 0
    log = json.loads(out)
    assert list(jsonschema.Draft4Validator(SCHEMA).iter_errors(log)) == []
    rules = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    pages = rules["pages-mismatch"]["locations"][0]["physicalLocation"]["region"]
    assert (pages["startLine"], pages["startColumn"]) == (9, 14)
    # a moderate-tier entry's volume difference is a warning (the severity scale), as in
    # the editor
    assert rules["volume-mismatch"]["level"] == "warning"
    fix = rules["pages-mismatch"]["fixes"][0]  # its own field's correction comes first
    (rep,) = fix["artifactChanges"][0]["replacements"]
    assert rep["insertedContent"]["text"] == "303--314"
    assert rep["deletedRegion"]["startLine"] == 9
    doi_fix = rules["missing-doi"]["fixes"][0]
    inserted = doi_fix["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
    assert inserted == ",\r\n\tDoi = {10.1093/nar/28.1.235}"
    props = log["runs"][0]["properties"]
    assert props["score"] == 96
    assert props["tiers"] == {"H": 0, "E": 0, "M": 2, "D": 0}


def test_progress_bar_on_a_terminal(verified_project: Path) -> None:
    """Run the real command with its stderr on a pseudo-terminal: the bar is drawn."""
    import os
    import subprocess
    import sys

    master, slave = os.openpty()
    env = dict(os.environ, COLUMNS="80")
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "citewarden", "check", "refs.bib", *VERIFY],
            cwd=verified_project,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env,
            timeout=120,
            check=False,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(master)
    tty = b"".join(chunks).decode("utf-8", errors="replace")
    assert proc.returncode == 0
    assert "verifying [" in tty and "2/2" in tty
    assert "\x1b[K" in tty
    assert b"verifying" not in proc.stdout
    # --quiet silences it.
    master, slave = os.openpty()
    try:
        subprocess.run(
            [sys.executable, "-m", "citewarden", "check", "refs.bib", *VERIFY, "--quiet"],
            cwd=verified_project,
            stdout=subprocess.PIPE,
            stderr=slave,
            env=env,
            timeout=120,
            check=False,
        )
        os.set_blocking(master, False)
        try:
            quiet = os.read(master, 65536)
        except BlockingIOError:
            quiet = b""
    finally:
        os.close(slave)
        os.close(master)
    assert b"verifying" not in quiet


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_a_report_written_over_a_file_keeps_its_permissions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mode: int
) -> None:
    """The report replaces the file whole (a temporary file renamed over it); the file
    keeps the mode it had, where it got a new file's (0666 less the umask)."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    report = tmp_path / "r.json"
    report.write_text("{}", encoding="utf-8")
    report.chmod(mode)
    run(["check", "main.tex", "--no-verify", "--format", "json", "-o", "r.json"], capsys)
    assert json.loads(report.read_text(encoding="utf-8"))  # the report, not the old file
    assert stat.S_IMODE(report.stat().st_mode) == mode


@pytest.mark.parametrize("link", ["victim.txt", "missing.txt", "/dev/null"])
def test_the_report_is_never_written_through_a_link_at_the_output_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], link: str
) -> None:
    """A link planted where the report goes (a cloned repository's report.html) had the
    report replace the file it named, create the one a dangling link named, or write into
    the device it named (a disk, for root)."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "victim.txt").write_text("mine\n", encoding="utf-8")
    (tmp_path / "report.html").symlink_to(link)
    args = ["check", "main.tex", "--no-verify", "--format", "html", "-o", "report.html"]
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert err == (
        "citewarden: error: --output report.html is a symbolic link; the report is not "
        "written through it (give the file it names, or remove the link)\n"
    )
    assert (tmp_path / "victim.txt").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "missing.txt").exists()
    assert os.readlink(tmp_path / "report.html") == link
    # said before anything is read or verified, where a run of minutes came first
    code, _, again = run(["check", "nothing.tex", "-o", "report.html"], capsys)
    assert (code, again) == (2, err)


def test_a_report_to_dev_stdout_is_written_through_its_link(tmp_path: Path) -> None:
    """/dev/stdout is a link the system makes to the open standard output: written to."""
    make_project(tmp_path)
    done = _check_process(tmp_path, "/dev/stdout", capture_output=True)
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["schema"] == "citewarden-report/1"


def _process(where: Path, args: list[str], script: str | None = None, **kw: Any) -> Any:
    """``citewarden ARGS`` (or the Python ``script`` given them) run in ``where``; -> its
    :class:`subprocess.CompletedProcess`."""
    start = ["-m", "citewarden"] if script is None else ["-c", script]
    return subprocess.run(
        [sys.executable, *start, *args],
        cwd=where,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        timeout=120,
        check=False,
        **kw,
    )


def _check_process(where: Path, output: str, **kw: Any) -> Any:
    """``citewarden check main.tex --no-verify --format json -o OUTPUT`` run in ``where``."""
    args = ["check", "main.tex", "--no-verify", "--format", "json", "-o", output]
    return _process(where, args, **kw)


def test_a_report_to_a_descriptor_the_shell_opened_is_written_into_its_file(
    tmp_path: Path,
) -> None:
    """-o /dev/fd/3 (3>>log) was written through a temporary file made beside the name,
    where none can be made: 'cannot write /dev/fd/3'."""
    make_project(tmp_path)
    log = tmp_path / "log"
    log.write_bytes(b"before\n")
    with log.open("ab") as opened:
        fd = opened.fileno()
        done = _check_process(tmp_path, f"/dev/fd/{fd}", pass_fds=(fd,), capture_output=True)
    assert done.returncode == 1, done.stderr
    head, report = log.read_bytes().split(b"\n", 1)
    assert head == b"before"
    assert json.loads(report)["schema"] == "citewarden-report/1"


def test_a_report_to_dev_stdout_on_a_file_goes_to_standard_output(tmp_path: Path) -> None:
    """With standard output a file, the report went through a rename beside /dev/stdout,
    which a user allowed to (root) replaced with a file of its own."""
    make_project(tmp_path)
    out = tmp_path / "out.json"
    with out.open("wb") as stdout:
        done = _check_process(tmp_path, "/dev/stdout", stdout=stdout, stderr=subprocess.PIPE)
    assert done.returncode == 1, done.stderr
    assert json.loads(out.read_bytes())["schema"] == "citewarden-report/1"
    assert os.path.islink("/dev/stdout")


def test_a_report_into_a_folder_under_dev_is_written_as_any_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A report in /dev/shm (a memory file system) was refused as a name of an open file:
    'cannot write /dev/shm/...: No such file or directory'."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    folder = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        report = folder / "r.json"
        code, out, err = run(
            ["check", "main.tex", "--no-verify", "--format", "json", "-o", str(report)], capsys
        )
        assert (code, out) == (1, ""), err
        assert json.loads(report.read_text(encoding="utf-8"))["schema"] == "citewarden-report/1"
    finally:
        shutil.rmtree(folder)


def test_a_report_to_a_fifo_no_process_reads_is_refused_at_once(tmp_path: Path) -> None:
    """A FIFO at the output path (a cloned repository's report.json) held the run for ever."""
    make_project(tmp_path)
    os.mkfifo(tmp_path / "report.json")
    done = _check_process(tmp_path, "report.json", capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "citewarden: error: --output report.json is a named pipe (FIFO) that no process "
        "reads; the report is not written\n"
    )


def test_a_report_to_a_socket_is_refused_as_one_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A socket at the output path was opened after the run: 'No such device or address'."""
    import socket

    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind("report.json")
        code, out, err = run(["check", "nothing.tex", "-o", "report.json"], capsys)
    assert (code, out) == (2, "")
    assert err == "citewarden: error: --output report.json is a socket; the report is not written\n"


#: ``citewarden check -o report.html`` sent SIGTERM once the report's first piece is written.
_TERMINATED = """
import os, signal, sys, time
from citewarden.report.html import build

made = build.html_chunks_of

def chunks(*args, **kw):
    for n, piece in enumerate(made(*args, **kw)):
        if n == 1:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(60)
        yield piece

build.html_chunks_of = chunks
from citewarden import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_run_terminated_while_writing_the_report_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    """SIGTERM (kill, timeout) ended the run outright: the report's temporary file stayed
    beside it for ever.  The run now cleans up as for Ctrl-C, then ends by SIGTERM."""
    make_project(tmp_path)
    (tmp_path / "report.html").write_text("the earlier report\n", encoding="utf-8")
    args = ["check", "main.tex", "--no-verify", "--format", "html", "-o", "report.html"]
    done = _process(tmp_path, args, _TERMINATED, capture_output=True, text=True)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "the earlier report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main.tex", "refs.bib", "report.html"]


#: The same, and SIGTERM and SIGHUP again as the temporary file is being removed.
_TERMINATED_TWICE = _TERMINATED.replace(
    "build.html_chunks_of = chunks\n",
    """build.html_chunks_of = chunks
from pathlib import Path

unlink = Path.unlink

def unlink_again(self, *args, **kw):
    os.kill(os.getpid(), signal.SIGTERM)
    os.kill(os.getpid(), signal.SIGHUP)
    return unlink(self, *args, **kw)

Path.unlink = unlink_again
""",
)


def test_a_second_termination_while_cleaning_up_leaves_no_temporary_file(
    tmp_path: Path,
) -> None:
    """A second SIGTERM (or a SIGHUP) arriving while the run removed its temporary file
    cut the removal short and the file stayed; the run now ends by the first signal, clean."""
    make_project(tmp_path)
    (tmp_path / "report.html").write_text("the earlier report\n", encoding="utf-8")
    args = ["check", "main.tex", "--no-verify", "--format", "html", "-o", "report.html"]
    done = _process(tmp_path, args, _TERMINATED_TWICE, capture_output=True, text=True)
    assert done.returncode == -signal.SIGTERM, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "the earlier report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["main.tex", "refs.bib", "report.html"]


#: ``citewarden check -o report.html`` that says when its report is being written ("writing")
#: and then waits, and that says when it removes the temporary file ("cleaning") and then
#: takes its time, where a second Ctrl-C finds it.
_SLOW_CLEANUP = """
import signal, sys, time
from pathlib import Path
from citewarden.report.html import build

signal.signal(signal.SIGINT, signal.default_int_handler)  # (as a terminal's Ctrl-C finds it)

made = build.html_chunks_of

def chunks(*args, **kw):
    for n, piece in enumerate(made(*args, **kw)):
        if n == 1:
            Path("writing").touch()
            time.sleep(60)
        yield piece

build.html_chunks_of = chunks
unlink = Path.unlink

def slow_unlink(self, *args, **kw):
    if self.name.endswith(".tmp") and not Path("cleaning").exists():
        Path("cleaning").touch()
        time.sleep(60)
    return unlink(self, *args, **kw)

Path.unlink = slow_unlink
from citewarden import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def _appears(path: Path, process: subprocess.Popen[str]) -> None:
    """Wait until ``path`` exists (the process said it got there)."""
    for _ in range(1200):
        if path.exists():
            return
        assert process.poll() is None, process.communicate()
        threading.Event().wait(0.05)
    raise AssertionError(f"{path.name} never appeared")


@pytest.mark.parametrize("first", [signal.SIGINT, signal.SIGTERM], ids=["Ctrl-C", "SIGTERM"])
def test_a_second_ctrl_c_while_cleaning_up_leaves_no_temporary_file(
    tmp_path: Path, first: signal.Signals
) -> None:
    """A second Ctrl-C sent while the run removed its temporary file (after a Ctrl-C or a
    SIGTERM while the report was written) cut the removal short, and the file stayed
    beside the report for ever: each signal now removes it first."""
    make_project(tmp_path)
    (tmp_path / "report.html").write_text("the earlier report\n", encoding="utf-8")
    args = ["check", "main.tex", "--no-verify", "--format", "html", "-o", "report.html"]
    process = subprocess.Popen(
        [sys.executable, "-c", _SLOW_CLEANUP, *args],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _appears(tmp_path / "writing", process)
        assert [p.name for p in tmp_path.glob(".report.html.*.tmp")], "no temporary file"
        process.send_signal(first)
        _appears(tmp_path / "cleaning", process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT, err
    assert err == "citewarden: interrupted\n"
    assert (tmp_path / "report.html").read_text(encoding="utf-8") == "the earlier report\n"
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == ["cleaning", "main.tex", "refs.bib", "report.html", "writing"]


@pytest.mark.parametrize(
    ("output", "extra"),
    [
        (".citewarden.toml", []),
        ("conf.toml", ["--config", "conf.toml"]),
        ("list.txt", ["@list.txt"]),
        ("./list.txt", ["--files-from", "list.txt"]),
        ("snap.jsonl", ["--snapshot", "snap.jsonl"]),
        ("link.toml", []),
    ],
)
def test_the_report_never_replaces_a_file_the_run_reads(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    output: str,
    extra: list[str],
) -> None:
    """-o naming the settings file, a list file or the snapshot replaced it with the
    report (the project's settings, a list of papers, a Crossref dump lost)."""
    make_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    read = {
        ".citewarden.toml": "[verify]\nenabled = true\n",
        "conf.toml": "[verify]\nenabled = true\n",
        "list.txt": "main.tex\n",
        "snap.jsonl": "{}\n",
    }
    for name, text in read.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "link.toml").symlink_to(".citewarden.toml")
    paths = [] if any(a.startswith("@") or a == "--files-from" for a in extra) else ["main.tex"]
    args = ["check", *paths, *extra, "--no-verify", "--format", "json", "-o", output]
    code, out, err = run(args, capsys)
    assert code == 2 and out == ""
    assert f"--output {output} is a file this run reads" in err
    for name, text in read.items():
        assert (tmp_path / name).read_text(encoding="utf-8") == text
