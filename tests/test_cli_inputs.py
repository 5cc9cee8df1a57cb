"""What ``citewarden check`` does with the PATHs it is given: a CSL file named as a PATH
is read as a bibliography, a directory with nothing to check is refused, the exit
statuses are documented, and running out of memory is an error, not a finding."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citewarden.cli import main

BROKEN_JSON = '[{"id": "k", "title": '
BROKEN_YAML = "- id: k\n  title: [unclosed\n"
#: a mapping pandoc reads no entry from
NO_REFERENCES = "title: My references\nitems:\n- id: k\n"


def cli(
    args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# ---- a CSL file given as the PATH -------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [("refs.json", BROKEN_JSON), ("refs.yaml", BROKEN_YAML), ("refs.yaml", NO_REFERENCES)],
)
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


@pytest.mark.parametrize(
    ("arg", "said"),
    [
        ("loop.tex", "cannot read loop.tex: a loop of symbolic links"),
        ("dangling.tex", "no such file or directory: dangling.tex (a symbolic link to a missing"),
        ("", "an empty path names no file"),
    ],
)
def test_a_path_naming_no_file_says_why(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arg: str,
    said: str,
) -> None:
    """A loop of symbolic links was "no such file", and an empty path (an unset variable)
    checked the working directory."""
    (tmp_path / "loop.tex").symlink_to("loop2.tex")
    (tmp_path / "loop2.tex").symlink_to("loop.tex")
    (tmp_path / "dangling.tex").symlink_to("missing.tex")
    (tmp_path / "doc.tex").write_text("\\cite{a}\n", encoding="utf-8")
    code, out, err = cli(["check", arg, "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 2 and out == ""
    assert said in err


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


def test_a_folder_reports_the_bibliography_its_documents_use_outside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check paper` reports what `check paper/paper.md` and the editor report: the findings
    of the projects of the documents found there, a bibliography outside the folder too
    (an error in a shared bibliography passed with exit 0)."""
    (tmp_path / "paper").mkdir()
    (tmp_path / "shared").mkdir()
    (tmp_path / "paper" / "paper.md").write_text(
        "---\nbibliography: ../shared/refs.bib\n---\n\nText [@a].\n", encoding="utf-8"
    )
    (tmp_path / "shared" / "refs.bib").write_text(
        "@misc{a, title = {A}}\n@misc{b, title = {B}}\n@misc{b, title = {B again}}\n",
        encoding="utf-8",
    )
    runs = {
        args: cli(
            ["check", *args, "--no-verify", "--format", "json"], tmp_path, capsys, monkeypatch
        )
        for args in (("paper",), ("paper/paper.md",))
    }
    folder, file = runs[("paper",)], runs[("paper/paper.md",)]
    assert folder[0] == file[0] == 1
    codes = sorted(f["code"] for f in json.loads(folder[1])["diagnostics"])
    assert codes == sorted(f["code"] for f in json.loads(file[1])["diagnostics"])
    assert "duplicate-key" in codes and codes.count("orphan-entry") == 2


def test_ignore_globs_are_relative_to_the_workspace_root_for_a_folder_in_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ignore glob is relative to the workspace root (where the settings are), as in
    the editor: `check paper` does not make `drafts/**` match paper/drafts as well, so it
    reports what `check .` reports."""
    (tmp_path / ".citewarden.toml").write_text('ignore = ["drafts/**"]\n', encoding="utf-8")
    (tmp_path / "paper" / "drafts").mkdir(parents=True)
    (tmp_path / "paper" / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\input{drafts/d}\n"
        "\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "paper" / "drafts" / "d.tex").write_text("See \\cite{ghost}.\n", encoding="utf-8")
    (tmp_path / "paper" / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    for target in ("paper", "."):
        code, out, _ = cli(
            ["check", target, "--no-verify", "--format", "json"], tmp_path, capsys, monkeypatch
        )
        found = json.loads(out)["diagnostics"]
        assert code == 1, target
        assert any(f["code"] == "dangling-citation" for f in found), target


# ---- exit statuses ------------------------------------------------------------------------


def test_check_help_documents_every_exit_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = cli(["check", "--help"], tmp_path, capsys, monkeypatch)
    assert code == 0
    section = out[out.index("exit status:") :]
    lines = [" ".join(line.split()) for line in section.splitlines()]
    assert any(line.startswith("0 ") for line in lines)
    assert any(line.startswith("1 ") and "--fail-on" in line for line in lines)
    two = section[section.index("\n  2 ") :]
    for reason in ("usage", "cannot be read", "nothing to check", "memory"):
        assert reason in " ".join(two.split())
    assert any(line.startswith("130 ") and "SIGINT" in line for line in lines)
    assert any(line.startswith("143, 129 ") and "SIGTERM or SIGHUP" in line for line in lines)


# ---- memory running out -------------------------------------------------------------------

#: Everything the check imports, imported before the address space is capped; then the
#: cap leaves the process a few MB more than it holds: too little to read the .bib file.
_CAPPED = """
import resource, sys
import citewarden.audit, citewarden.cli, citewarden.parsing.bibtex
with open("/proc/self/status") as status:
    size = next(int(l.split()[1]) * 1024 for l in status if l.startswith("VmSize:"))
cap = size + (16 << 20)
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
sys.exit(citewarden.cli.main(sys.argv[1:]))
"""


def test_memory_running_out_is_an_error_naming_the_file(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    entry = "@misc{k%d, title = {A title of some length, to fill the file}, year = 2020}\n"
    with (tmp_path / "refs.bib").open("w", encoding="utf-8") as out:
        out.writelines(entry % i for i in range(500_000))  # about 40 MB
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "server")}
    result = subprocess.run(
        [sys.executable, "-c", _CAPPED, "check", "refs.bib", "--no-verify"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("citewarden: error: ran out of memory while reading refs.bib")
    assert "max_file_mb" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_memory_running_out_while_parsing_is_the_same_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A parse that runs out of memory ends the command as a read does (status 2, the
    file named), where it became a file-unreadable finding and status 1."""
    from citewarden.parsing import bibtex

    def exhausted(*args: object) -> None:
        raise MemoryError

    monkeypatch.setattr(bibtex, "parse_bibtex", exhausted)
    (tmp_path / "refs.bib").write_text("@misc{k, title = {T}}\n", encoding="utf-8")
    code, out, err = cli(["check", "refs.bib", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("citewarden: error: ran out of memory while reading refs.bib;")
    assert len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "command", [["check", "doc.tex", "--no-verify"], ["add", "--bib", "r.bib", "10.1/x"]]
)
def test_a_working_directory_removed_meanwhile_is_an_error_not_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    """A shell left in a folder that was then removed: Path.cwd() raised and the command
    ended in a traceback with exit status 1, as if the check had found errors."""
    import os
    import subprocess
    import sys

    from cli_process import ROOT

    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; os.rmdir(os.getcwd()); "
            "from citewarden.cli import main; sys.exit(main(sys.argv[1:]))",
            *command,
        ],
        cwd=gone,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "citewarden: error: the working directory cannot be found (No such file or directory);"
        " cd to the project first\n"
    )


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["a" * 300 + ".bib"], "cannot check " + "a" * 80 + "... (304 characters)"),
        (
            ["refs.bib", "-o", "a" * 300 + ".html"],
            "cannot write " + "a" * 80 + "... (305 characters)",
        ),
        (
            ["refs.bib", "-o", "a/" * 3000 + "r.html"],
            "cannot write " + "a/" * 40 + "... (6,006 characters)",
        ),
    ],
    ids=["input", "output", "output path"],
)
def test_a_name_too_long_to_look_up_is_a_usage_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    said: str,
) -> None:
    """A file name longer than the system takes (ENAMETOOLONG) ended the run in an
    OSError traceback, from wherever the path was first looked at."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    code, out, err = cli(["check", *args, "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 2 and out == ""
    assert err == f"citewarden: error: {said}: File name too long\n"


@pytest.mark.parametrize(
    ("output", "said"),
    [
        ("", "--output names no file (an empty path)"),
        ("out/", "--output out/ names a folder; give a file"),
    ],
)
def test_an_output_naming_no_file_is_a_usage_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    output: str,
    said: str,
) -> None:
    """``-o ''`` said "cannot write : Is a directory", and ``-o out/`` wrote the report as a
    file named out."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    code, _, err = cli(
        ["check", "refs.bib", "--no-verify", "-o", output], tmp_path, capsys, monkeypatch
    )
    assert code == 2
    assert err == f"citewarden: error: {said}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs.bib"]


# ---- paths and options in any order -----------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["a.bib", "--no-verify", "b.bib", "--format", "json"],
        ["--format", "json", "a.bib", "--no-verify", "b.bib"],
        ["a.bib", "--format", "json", "b.bib", "--no-verify"],
    ],
    ids=["option between", "options around", "options after each"],
)
def test_paths_between_options_are_all_checked(
    args: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A path after an option was refused as an unrecognized argument (exit status 2)."""
    for key in "ab":  # a key defined twice: an error in each file
        entry = f"@misc{{{key}, title={{A}}}}\n@misc{{{key}, title={{B}}}}\n"
        (tmp_path / f"{key}.bib").write_text(entry, encoding="utf-8")
    code, out, err = cli(["check", *args], tmp_path, capsys, monkeypatch)
    assert code == 1, err
    files = {d["file"] for d in json.loads(out)["diagnostics"]}
    assert files == {"a.bib", "b.bib"}


def test_identifiers_between_add_options_are_all_looked_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    args = ["add", "--bib", "refs.bib", "10.1000/one", "--offline", "10.1000/two", "--dry-run"]
    code, out, err = cli(args, tmp_path, capsys, monkeypatch)
    assert code == 1 and out == ""
    # each failed source named once (the first was named twice: "crossref: crossref: ...")
    why = "could not be looked up (crossref: offline: not in cache; datacite: offline: not in"
    assert f"10.1000/one: {why} cache; doi: offline: not in cache)" in err
    assert f"10.1000/two: {why} cache; doi: offline: not in cache)" in err


# ---- a source's address from the environment ---------------------------------------------


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("not-a-url", "is no http or https address"),
        ("ftp://mirror.example/", "is no http or https address"),
        ("http://mirror\x1b[31m.example/", "holds a space or a control character"),
        # a C1 control (CSI) is one, as it is in a settings file's address
        ("http://mirror\x9b31m.example/", "holds a space or a control character"),
        ("http://[::1", "cannot be read as a URL"),
        ("http://127.0.0.1:99999", "cannot be read as a URL"),
        ("http://mirror\udcff.example/", "holds a byte that is not UTF-8"),
        ("http:///works", "names no host"),
        ("http://mirror.example/" + "x" * 3000, "is longer than 2048 characters"),
    ],
)
@pytest.mark.parametrize("command", ["check", "add"])
def test_a_source_address_that_is_no_http_address_is_a_usage_error(
    value: str,
    problem: str,
    command: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Such an address failed every request to the source (one not UTF-8 ended the run in
    an error about standard output); the value itself is not shown (it may hold a password)."""
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CITEWARDEN_CROSSREF_URL", value)
    (tmp_path / "refs.bib").write_text("@misc{k, title={T}}\n", encoding="utf-8")
    args = ["refs.bib", "--offline"] if command == "check" else ["--bib", "refs.bib", "10.1/x"]
    code, out, err = cli([command, *args], tmp_path, capsys, monkeypatch)
    assert code == 2 and out == ""
    assert err == (
        f"citewarden: error: CITEWARDEN_CROSSREF_URL {problem}; give an http or https"
        " address, or unset it\n"
    )


def test_a_source_address_is_not_read_without_verification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CITEWARDEN_CROSSREF_URL", "not-a-url")
    (tmp_path / "refs.bib").write_text("@misc{k, title={T}}\n", encoding="utf-8")
    code, _, err = cli(["check", "refs.bib", "--no-verify"], tmp_path, capsys, monkeypatch)
    assert code == 0, err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--bib", ""], "--bib names no file (an empty path)"),
        (["--bib", "."], "--bib . names a folder; give a file"),
        (["--bib", "refs.bib/."], "--bib refs.bib/. names a folder; give a file"),
        (["--bib", "sub/.."], "--bib sub/.. names a folder; give a file"),
        (["--bib", "refs.bib", "--key", ""], "--key: an empty key cannot be an entry key"),
        (
            ["--bib", "refs.bib", "--key", "a\x1bb"],
            "--key: 'a\\x1bb' cannot be an entry key: '\\x1b' is not read in a key",
        ),
        (["--bib", "refs.bib", "--key", "a b"], "--key: 'a b' cannot be an entry key: ' '"),
    ],
)
def test_an_add_that_could_write_nothing_is_refused_before_any_look_up(
    args: list[str],
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An empty --bib was refused as a file named '' and '.' as one of no known kind; a key
    no entry can have was refused only after the look-up, with "nothing added"."""
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "sub").mkdir()
    code, out, err = cli(["add", *args, "--offline", "10.1000/one"], tmp_path, capsys, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(f"citewarden add: {said}"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]


def test_add_says_when_it_looks_up_without_a_cache(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As check does; add said nothing of a cache it could not use."""
    (tmp_path / "cache").write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    args = ["add", "--bib", "refs.bib", "--offline", "10.1000/one"]
    code, out, err = cli(args, tmp_path, capsys, monkeypatch)
    assert code == 1 and out == ""
    first = err.splitlines()[0]
    assert first.startswith("citewarden add: warning: verifying without a cache: cannot create")


#: Arguments with terminal controls, and what the usage error says of them.
TYPED = [
    (["check", "--x\x1b]0;title\x07", "a.bib"], "unrecognized arguments: --x\\x1b]0;title\\x07"),
    (["add", "--offline", "--bib", "r.bib", "--y\x1b[2J", "10.1/x"], "arguments: --y\\x1b[2J"),
    (["check", "--quiet=\x9b1m", "a.bib"], "ignored explicit argument '\\x9b1m'"),
]


@pytest.mark.parametrize("typed", TYPED)
def test_a_usage_error_shows_what_was_typed_escaped(
    typed: tuple[list[str], str], capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse said an unknown argument as it was typed: its terminal controls (a window
    title, a cleared screen) reached the terminal."""
    args, said = typed
    code = main(args)
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    last = err.splitlines()[-1]
    assert said in last, last
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in err.replace("\n", "")), err
