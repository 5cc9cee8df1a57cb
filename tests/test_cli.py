"""``citewarden check`` (and the serve/cache dispatch): output, exit status, messages."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from citewarden.cli import main
from cli_process import run_citewarden
from markers import write_project

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

PROJECT = r"""
--- paper/main.tex
\documentclass{article}
\begin{document}
\input{body}
\bibliography{refs}
\end{document}
--- paper/body.tex
Text \cite{⟦d|knuht1984⟧} and \cite{lamport1994}.
--- paper/refs.bib
@book{knuth1984, title={The TeXbook}, year={1984}}
@book{lamport1994, title={LaTeX}, year={1994}}
"""

CLEAN = r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
"""

WARNINGS_ONLY = r"""
--- main.tex
\documentclass{article}
\begin{document}\cite{a}\bibliography{refs}\end{document}
--- refs.bib
@misc{a, title={A}}
@misc{b, title={B}}
"""


def cli(
    args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def run_module(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citewarden(args, cwd)


# ---------------------------------------------------------------------------------------
# end to end, as a separate process
# ---------------------------------------------------------------------------------------


def test_example_project_end_to_end() -> None:
    result = run_module(
        [
            "check",
            "examples/latex-paper/main.tex",
            "examples/markdown-paper/paper.md",
            "--no-verify",
        ],
        ROOT,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines() == [
        "examples/latex-paper/refs.bib:77:10: error duplicate-key duplicate key "
        "'byrd_limited_1995' (first defined at refs.bib:64)",
        "examples/latex-paper/refs.bib:112:13: warning orphan-entry entry "
        "'kraft_software_1988' is never cited",
        "examples/latex-paper/sections/methods.tex:6:46: error dangling-citation citation key "
        "'nelder_simplex_1956' is not defined in any bibliography; did you mean "
        "'nelder_simplex_1965'?",
    ]
    assert result.stderr.strip().endswith("2 errors, 1 warning in 6 files")


def test_json_report_end_to_end(tmp_path: Path) -> None:
    marks = write_project(tmp_path, PROJECT)
    result = run_module(["check", "paper/main.tex", "--format", "json", "--no-verify"], tmp_path)
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["schema"] == "citewarden-report/1"
    span = marks["paper/body.tex"].named["d"]
    assert span.start == 11  # line 1, column 12 (1-based)
    cited = report["citations"].pop("cited")
    # a dangling key has a sentence but no work to score it against
    assert cited == [
        {
            "key": "knuht1984",
            "file": "paper/body.tex",
            "line": 1,
            "column": 12,
            "context": {
                "sentence": "Text.",
                "score": None,
                "basis": None,
                "abstract_source": None,
            },
        },
        {
            "key": "lamport1994",
            "file": "paper/body.tex",
            "line": 1,
            "column": 33,
            "context": {
                "sentence": "Text.",
                "score": 0.0,
                "basis": "title",
                "abstract_source": None,
            },
        },
    ]
    assert report["citations"] == {
        "dangling": [
            {
                "key": "knuht1984",
                "file": "paper/body.tex",
                "line": 1,
                "column": 12,
                "suggestions": ["knuth1984"],
            }
        ],
        "orphans": [{"key": "knuth1984", "file": "paper/refs.bib", "line": 1, "column": 7}],
        "duplicates": [],
    }
    assert report["diagnostics"] == [
        {
            "file": "paper/body.tex",
            "line": 1,
            "column": 12,
            "end_line": 1,
            "end_column": 21,
            "code": "dangling-citation",
            "severity": "error",
            "message": "citation key 'knuht1984' is not defined in any bibliography; "
            "did you mean 'knuth1984'?",
        },
        {
            "file": "paper/refs.bib",
            "line": 1,
            "column": 7,
            "end_line": 1,
            "end_column": 16,
            "code": "orphan-entry",
            "severity": "warning",
            "message": "entry 'knuth1984' is never cited",
        },
    ]
    assert "entries" not in report  # --no-verify: no verification section


def test_missing_path_is_a_usage_error() -> None:
    result = run_module(["check", "no/such/file.tex"], ROOT)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() == "citewarden: error: no such file or directory: no/such/file.tex"


@pytest.mark.parametrize("name", [" ", "refs.bib ", " refs.bib"])
def test_a_missing_path_with_spaces_at_its_ends_is_shown_between_quotes(
    tmp_path: Path, name: str
) -> None:
    """A path of one space was said as 'no such file or directory: ' with nothing to see."""
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n")
    result = run_module(["check", name, "--no-verify"], tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == f"citewarden: error: no such file or directory: '{name}'"


def test_version_names_the_bibtex_reader() -> None:
    built = run_citewarden(["--version"], ROOT)
    assert built.returncode == 0
    assert built.stdout.startswith("citewarden ")
    assert built.stdout.rstrip().endswith("(BibTeX reader: C extension)")  # built for the tests
    pure = run_citewarden(["--version"], ROOT, env={"CITEWARDEN_PURE_PYTHON": "1"})
    assert pure.stdout.rstrip().endswith("(BibTeX reader: pure Python)")


def test_bad_option_is_a_usage_error() -> None:
    result = run_module(["check", "examples", "--fail-on", "sometimes"], ROOT)
    assert result.returncode == 2
    assert "invalid choice: 'sometimes'" in result.stderr


# ---------------------------------------------------------------------------------------
# in process
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "fail_on", "status"),
    [
        (CLEAN, "error", 0),
        (WARNINGS_ONLY, "error", 0),
        (WARNINGS_ONLY, "warning", 1),
        (WARNINGS_ONLY, "info", 1),
        (PROJECT, "never", 0),
        (PROJECT, "error", 1),
    ],
)
def test_exit_status_follows_fail_on(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fixture: str,
    fail_on: str,
    status: int,
) -> None:
    write_project(tmp_path, fixture)
    code, _, _ = cli(
        ["check", ".", "--no-verify", "--fail-on", fail_on], tmp_path, capsys, monkeypatch
    )
    assert code == status


def test_clean_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, CLEAN)
    code, out, err = cli(["check", "main.tex", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (0, "")
    assert err == "no findings in 2 files\n"
    code, out, err = cli(
        ["check", "main.tex", "--no-verify", "--quiet"], tmp_path, capsys, monkeypatch
    )
    assert (code, out, err) == (0, "", "")


def test_a_bibliography_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(
        tmp_path,
        """
--- refs.bib
@misc{a, title={A}}
@misc{A, title={Another}}
""",
    )
    code, out, _ = cli(["check", "refs.bib", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 1
    assert (
        out == "refs.bib:2:7: error duplicate-key duplicate key 'A' (first defined at refs.bib:1)\n"
    )


def test_output_file_and_paths_outside_the_working_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path / "project", PROJECT)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = tmp_path / "project" / "paper" / "main.tex"
    code, out, _ = cli(
        ["check", str(target), "--no-verify", "--output", "report.txt"],
        elsewhere,
        capsys,
        monkeypatch,
    )
    assert code == 1
    assert out == "1 error, 1 warning in 3 files\n"
    written = (elsewhere / "report.txt").read_text(encoding="utf-8")
    body = tmp_path / "project" / "paper" / "body.tex"
    assert written.startswith(f"{body}:1:12: error dangling-citation ")


@pytest.mark.parametrize("target", ["refs.bib", "./main.tex", "linked.bib"])
def test_an_output_naming_a_checked_file_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    """``-o refs.bib`` (meant as an input) replaced the project's bibliography with the
    report; so did a name linked to it."""
    write_project(tmp_path, WARNINGS_ONLY)
    (tmp_path / "linked.bib").symlink_to(tmp_path / "refs.bib")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    code, out, err = cli(
        ["check", "main.tex", "--no-verify", "--format", "json", "-o", target],
        tmp_path,
        capsys,
        monkeypatch,
    )
    assert code == 2
    # a link is refused as one before the project is read
    said = "is a symbolic link" if target == "linked.bib" else "is a file of the checked project"
    assert f"--output {target} {said}" in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert out == ""


def test_config_file_severities(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, PROJECT)
    config = tmp_path / "strict.toml"
    config.write_text(
        '[severity]\ndangling-citation = "off"\norphan-entry = "error"\n', encoding="utf-8"
    )
    code, out, _ = cli(
        ["check", ".", "--no-verify", "--config", "strict.toml"], tmp_path, capsys, monkeypatch
    )
    assert (code, out) == (
        1,
        "paper/refs.bib:1:7: error orphan-entry entry 'knuth1984' is never cited\n",
    )
    # .citewarden.toml in the working directory is read without --config
    (tmp_path / ".citewarden.toml").write_text(
        '[severity]\ndangling-citation = "warning"\n', encoding="utf-8"
    )
    code, out, _ = cli(["check", ".", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 0
    assert " warning dangling-citation " in out


def test_the_settings_are_the_projects_wherever_the_command_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project's .citewarden.toml is read, in the first PATH's folder or the nearest
    above it (up to the repository's root), where the one in the working directory was:
    run from elsewhere, the project's settings were ignored and another's applied."""
    write_project(tmp_path / "proj", PROJECT)
    (tmp_path / "proj" / ".citewarden.toml").write_text(
        '[severity]\ndangling-citation = "warning"\n', encoding="utf-8"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / ".citewarden.toml").write_text(
        '[severity]\ndangling-citation = "off"\n', encoding="utf-8"
    )
    main_tex = str(tmp_path / "proj" / "paper" / "main.tex")
    for args, cwd in (
        ([main_tex], elsewhere),
        (["."], tmp_path / "proj" / "paper"),
        (["paper/main.tex"], tmp_path / "proj"),
    ):
        code, out, _ = cli(["check", *args, "--no-verify"], cwd, capsys, monkeypatch)
        assert code == 0, args
        assert " warning dangling-citation " in out, args
    # a settings file above the repository's root is not the project's
    (tmp_path / "proj" / ".citewarden.toml").unlink()
    (tmp_path / "proj" / ".git").mkdir()
    (tmp_path / ".citewarden.toml").write_text(
        '[severity]\ndangling-citation = "off"\n', encoding="utf-8"
    )
    code, out, _ = cli(["check", main_tex, "--no-verify"], elsewhere, capsys, monkeypatch)
    assert code == 1 and " error dangling-citation " in out
    # a bad value in the project's file is named with the file it is in
    (tmp_path / "proj" / "paper" / ".citewarden.toml").write_text(
        "debounce_ms = -5\n", encoding="utf-8"
    )
    code, _, err = cli(["check", main_tex, "--no-verify"], elsewhere, capsys, monkeypatch)
    config = tmp_path / "proj" / "paper" / ".citewarden.toml"
    assert f"citewarden: warning: {config}:1: setting 'debounce_ms': " in err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "citewarden: error: config file not found: cfg.toml"),
        ("severity = [", "citewarden: error: invalid config file cfg.toml: "),
    ],
)
def test_bad_config_file(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    content: str | None,
    message: str,
) -> None:
    write_project(tmp_path, CLEAN)
    if content is not None:
        (tmp_path / "cfg.toml").write_text(content, encoding="utf-8")
    code, out, err = cli(["check", ".", "--config", "cfg.toml"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(message)


def test_a_settings_problem_names_the_line_that_sets_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad value is named with its file and the line that sets it (a key of a table, a
    dotted key, a key in an inline table: the line of the inline table), where only the
    file was named."""
    write_project(tmp_path, CLEAN)
    (tmp_path / ".citewarden.toml").write_text(
        'notes = """\ndebounce_ms = 1\n"""\n'
        "debounce_ms = -1\n"
        "verify.timeout = 0\n"
        "\n"
        "[severity]\n"
        "# a comment\n"
        '"orphan-entry" = "loud"\n'
        "[judge]\n"
        'limits = { x = "y" }\n',
        encoding="utf-8",
    )
    code, _, err = cli(["check", ".", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 0
    config = tmp_path / ".citewarden.toml"
    shown = [line for line in err.splitlines() if "warning" in line]
    assert [line.split(": setting ")[0] for line in shown] == [
        f"citewarden: warning: {config}:1",
        f"citewarden: warning: {config}:4",
        f"citewarden: warning: {config}:5",
        f"citewarden: warning: {config}:9",
        f"citewarden: warning: {config}:11",
    ]


def test_invalid_setting_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_project(tmp_path, CLEAN)
    (tmp_path / "cfg.toml").write_text('[severity]\ndangling-citation = "loud"\n', encoding="utf-8")
    code, _, err = cli(
        ["check", ".", "--no-verify", "--config", "cfg.toml"], tmp_path, capsys, monkeypatch
    )
    assert code == 0
    assert "citewarden: warning: cfg.toml:2: setting 'severity.dangling-citation'" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["check", "notes.txt"],
            "cannot check notes.txt: not a LaTeX, Markdown or bibliography file",
        ),
        (["check", "main.tex", "--snapshot", "none.jsonl"], "snapshot file not found: none.jsonl"),
        # a folder, a device or a FIFO was "not found"
        (
            ["check", "main.tex", "--snapshot", "."],
            "cannot read snapshot file .: a directory, not a regular file; it is not read",
        ),
        (
            ["check", "main.tex", "--snapshot", "/dev/null"],
            "cannot read snapshot file /dev/null: a device, not a regular file; it is not read",
        ),
        # an empty one (an unset variable) was taken as none given: the default settings
        (["check", "main.tex", "--config", ""], "--config names no file (an empty path)"),
        (["check", "main.tex", "--snapshot", ""], "--snapshot names no file (an empty path)"),
        # an empty list file read the working directory: "a directory, not a regular file"
        (["check", "--files-from", ""], "--files-from names no file (an empty path)"),
        (["check", "main.tex", "--files-from", ""], "--files-from names no file (an empty path)"),
    ],
)
def test_usage_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    write_project(tmp_path, CLEAN)
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    code, out, err = cli(args, tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(f"citewarden: error: {message}")


def test_unreadable_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import citewarden.project

    real = citewarden.project.default_reader

    def reader(path: Path, limit: int):  # type: ignore[no-untyped-def]
        if path.name == "main.tex":
            raise PermissionError(13, "Permission denied")
        return real(path, limit)

    monkeypatch.setattr(citewarden.project, "default_reader", reader)
    write_project(tmp_path, CLEAN)
    code, out, err = cli(["check", "main.tex"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err == "citewarden: error: cannot read main.tex: Permission denied\n"


def test_no_command_prints_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, _, err = cli([], tmp_path, capsys, monkeypatch)
    assert code == 2
    assert "usage: citewarden" in err


def test_cache_commands_dispatch(tmp_path: Path) -> None:
    env_dir = tmp_path / "cache"
    result = run_citewarden(["cache", "clear"], ROOT, env={"CITEWARDEN_CACHE_DIR": str(env_dir)})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "removed 0 cache entries\n"


def test_serve_dispatches_to_the_language_server() -> None:
    result = run_module(["serve", "--help"], ROOT)
    assert result.returncode == 0, result.stderr
    assert "--stdio" in result.stdout


@pytest.mark.parametrize(
    ("toml", "setting", "message"),
    [
        ("max_file_mb = 1e400", "max_file_mb", "expected megabytes from 0.001 to 1024"),
        ("max_file_mb = nan", "max_file_mb", "expected megabytes from 0.001 to 1024"),
        ("[verify]\ntimeout = inf", "verify.timeout", "expected seconds from 0.1 to 600"),
        ("[verify]\ntimeout = nan", "verify.timeout", "expected seconds from 0.1 to 600"),
        ("[verify]\ntimeout = 601", "verify.timeout", "expected seconds from 0.1 to 600"),
    ],
)
def test_numbers_that_are_not_finite_are_refused_and_the_default_kept(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    toml: str,
    setting: str,
    message: str,
) -> None:
    """TOML (and JSON as Python reads it) has inf and nan: an infinite request deadline
    would wait for ever, and inf megabytes ended the run with a traceback."""
    import tomllib

    from citewarden.settings import Settings, merge_settings

    write_project(tmp_path, CLEAN)
    (tmp_path / "cfg.toml").write_text(toml + "\n", encoding="utf-8")
    code, _, err = cli(
        ["check", ".", "--no-verify", "--config", "cfg.toml"], tmp_path, capsys, monkeypatch
    )
    assert code == 0
    line = toml.count("\n") + 1  # the line that sets it, the last
    assert f"citewarden: warning: cfg.toml:{line}: setting '{setting}': {message}" in err
    settings, problems = merge_settings(Settings(), tomllib.loads(toml), "cfg.toml")
    assert [p.key for p in problems] == [setting]
    assert (settings.max_file_mb, settings.verify.timeout) == (
        Settings().max_file_mb,
        Settings().verify.timeout,
    )


def test_fix_and_diff_together_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both were accepted, and only the diff was printed: nothing written, no word why."""
    write_project(tmp_path, WARNINGS_ONLY)
    before = (tmp_path / "refs.bib").read_bytes()
    code, out, err = cli(["check", "main.tex", "--fix", "--diff"], tmp_path, capsys, monkeypatch)
    assert code == 2
    assert "--fix and --diff are alternatives" in err
    assert out == ""
    assert (tmp_path / "refs.bib").read_bytes() == before


def test_the_cache_commands_show_the_cache_path_escaped(tmp_path: Path) -> None:
    """The cache directory comes from the environment: ``cache stats`` printed it, and an
    error naming it, with its control and bidirectional characters as they were."""
    odd = "c\x1b[2J\u202ed"
    stats = run_citewarden(
        ["cache", "stats"], tmp_path, {"CITEWARDEN_CACHE_DIR": str(tmp_path / odd)}
    )
    assert stats.returncode == 0
    assert f"directory: {tmp_path}/c\\x1b[2J\\u202ed\n" in stats.stdout
    (tmp_path / "file").write_text("", encoding="utf-8")
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "file" / odd)}
    bad = run_citewarden(["cache", "prune"], tmp_path, env)
    assert bad.returncode == 2 and "c\\x1b[2J\\u202ed" in bad.stderr
    for output in (stats.stdout, stats.stderr, bad.stdout, bad.stderr):
        assert "\x1b" not in output and "\u202e" not in output


def test_ignore_patterns_are_relative_to_the_settings_files_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ignore patterns of a .citewarden.toml found above the checked folder are matched
    relative to that file's folder (and those of --config to its own), where they were
    matched relative to the checked folder and named nothing."""
    write_project(tmp_path / "p", PROJECT)
    drafts = tmp_path / "p" / "paper" / "drafts"
    drafts.mkdir()
    (drafts / "d.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\cite{nowhere2001}\n"
        "\\bibliography{../refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    config = tmp_path / "p" / ".citewarden.toml"
    config.write_text('ignore = ["paper/drafts/**"]\n', encoding="utf-8")
    paper = tmp_path / "p" / "paper"
    for args in (["."], ["--config", str(config), "."]):
        _, out, _ = cli(["check", *args, "--no-verify"], paper, capsys, monkeypatch)
        assert "knuht1984" in out, args
        assert "nowhere2001" not in out and "d.tex" not in out, args
    # relative to the checked folder, the pattern names nothing there
    config.write_text('ignore = ["drafts/**"]\n', encoding="utf-8")
    _, out, _ = cli(["check", ".", "--no-verify"], paper, capsys, monkeypatch)
    assert "nowhere2001" in out
