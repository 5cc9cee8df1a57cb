"""Every numeric setting is held to the bounds the editor schema shows: a value outside them
is a settings problem naming the setting and where it was set, and the default is kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from citewarden.model import Severity
from citewarden.settings import (
    MAX_CONFIG_BYTES,
    MAX_IGNORE,
    Settings,
    glob_match,
    is_ignored,
    load_settings,
    merge_settings,
)
from citewarden.settings_schema import server_properties
from cli_process import ROOT, run_citewarden

BOUNDED = {path: schema for path, schema in server_properties().items() if "minimum" in schema}


def _raw(path: str, value: Any) -> dict[str, Any]:
    """``{"verify": {"timeout": value}}`` for ``verify.timeout``."""
    *tables, key = path.split(".")
    raw: dict[str, Any] = {key: value}
    for table in reversed(tables):
        raw = {table: raw}
    return raw


def _value(settings: Settings, path: str) -> Any:
    found: Any = settings
    for part in path.split("."):
        found = getattr(found, part)
    return found


def _outside(schema: dict[str, Any]) -> list[Any]:
    whole = schema["type"] == "integer"
    low = schema["minimum"]
    values: list[Any] = [low - 1 if whole else low / 10, -1]
    if "maximum" in schema:
        values.append(schema["maximum"] + 1 if whole else schema["maximum"] * 10)
    return values


def test_every_numeric_setting_has_an_upper_bound() -> None:
    assert set(BOUNDED) >= {"max_file_mb", "verify.timeout", "verify.concurrency"}
    assert all("maximum" in schema for schema in BOUNDED.values())


@pytest.mark.parametrize(
    ("path", "value"),
    [(path, value) for path, schema in BOUNDED.items() for value in _outside(schema)]
    + [("max_file_mb", 1e308), ("max_file_mb", 1e-12), ("verify.timeout", 1e-300)],
)
def test_a_value_outside_the_schema_bounds_is_refused(path: str, value: Any) -> None:
    settings, problems = merge_settings(Settings(), _raw(path, value), "cfg.toml")
    assert [(p.origin, p.key) for p in problems] == [("cfg.toml", path)]
    assert _value(settings, path) == _value(Settings(), path)
    assert settings.max_file_bytes == Settings().max_file_bytes


@pytest.mark.parametrize("path", sorted(BOUNDED))
def test_the_schema_bounds_themselves_are_accepted(path: str) -> None:
    schema = BOUNDED[path]
    for value in (schema["minimum"], schema["maximum"]):
        settings, problems = merge_settings(Settings(), _raw(path, value), "cfg.toml")
        assert problems == []
        assert _value(settings, path) == value


def test_the_largest_max_file_mb_gives_a_size_in_bytes() -> None:
    high = BOUNDED["max_file_mb"]["maximum"]
    settings, _ = merge_settings(Settings(), {"max_file_mb": high}, "cfg.toml")
    assert settings.max_file_bytes == int(high * (1 << 20))


def test_the_problem_names_the_file_and_the_bounds(tmp_path: Path) -> None:
    config = tmp_path / ".citewarden.toml"
    config.write_text("max_file_mb = 1e308\n[verify]\ntimeout = 1e-300\n", encoding="utf-8")
    settings, problems = load_settings(tmp_path)
    assert [str(p) for p in problems] == [
        f"{config}:1: setting 'max_file_mb': expected megabytes from 0.001 to 1024",
        f"{config}:3: setting 'verify.timeout': expected seconds from 0.1 to 600",
    ]
    assert settings == Settings()


def test_a_settings_file_over_its_limit_names_that_limit(tmp_path: Path) -> None:
    """A settings file has its own 1 MB limit, not the max_file_mb of the files checked."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    (tmp_path / "huge.toml").write_bytes(b"#" * (MAX_CONFIG_BYTES + 1) + b"\n")
    result = run_citewarden(["check", ".", "--no-verify", "--config", "huge.toml"], tmp_path)
    assert result.returncode == 2
    assert "max_file_mb" not in result.stderr
    assert "larger than the 1 MB a settings file may hold" in result.stderr, result.stderr
    (tmp_path / ".citewarden.toml").write_bytes(b"#" * (MAX_CONFIG_BYTES + 1) + b"\n")
    _, problems = load_settings(tmp_path)
    assert "larger than the 1 MB a settings file may hold" in str(problems[0])


def test_a_list_item_of_the_wrong_kind_leaves_the_others_in_use(tmp_path: Path) -> None:
    """An item of a list setting that is not a string (or not a command name) is a problem
    on its line, and the list's other items are used, where one such item dropped the
    whole list: every file the ignore patterns named was checked again."""
    (tmp_path / ".citewarden.toml").write_text(
        'ignore = ["drafts/**", 3]\ncitation_commands = ["mycite", "bad-name", "\\\\yourcite"]\n'
        '[verify]\nignore_entries = [true, "a2001"]\n',
        encoding="utf-8",
    )
    settings, problems = load_settings(tmp_path)
    assert settings.ignore == ("drafts/**",)
    assert settings.citation_commands == ("mycite", "yourcite")
    assert settings.verify.ignore_entries == ("a2001",)
    assert [(p.key, p.line) for p in problems] == [
        ("ignore", 1),
        ("citation_commands", 2),
        ("verify.ignore_entries", 4),
    ]
    assert "item 2 is not a string" in problems[0].message
    assert "bad-name" in problems[1].message


def test_a_quoted_key_with_escapes_is_named_with_its_line(tmp_path: Path) -> None:
    """A key written as a quoted TOML string with escapes ("time\\u006Fut") is found on its
    line, as TOML reads it, where its problem named the file without a line."""
    (tmp_path / ".citewarden.toml").write_text(
        '# settings\n"\\u001b[2Jk" = 1\n[verify]\n"time\\u006Fut" = "soon"\n', encoding="utf-8"
    )
    _, problems = load_settings(tmp_path)
    assert [(p.key, p.line) for p in problems] == [("\x1b[2Jk", 2), ("verify.timeout", 4)]


def test_a_dotted_or_quoted_key_is_named_with_its_line(tmp_path: Path) -> None:
    """A problem of a table a dotted key sets (verify.timeout.s = 2 makes verify.timeout a
    table) and of a key quoted with an escaped quote or a dot in it ("a\\".b") is named with
    its line, where it named the file alone."""
    (tmp_path / ".citewarden.toml").write_text(
        '# settings\nverify.timeout.s = 2\n"a\\".b" = 1\n"x\\u002ey".z = 1\n[judge]\n"u\\"rl" = 1\n',
        encoding="utf-8",
    )
    _, problems = load_settings(tmp_path)
    assert [(p.key, p.line) for p in problems] == [
        ("verify.timeout", 2),
        ('a"', 3),  # a dotted key names nested settings (a", then b)
        ("x", 4),
        ('judge.u"rl', 6),
    ]


def test_a_settings_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    """A .citewarden.toml an editor on Windows saved with a UTF-8 byte order mark is read,
    its problems on their lines, where the whole file was refused as invalid TOML (an
    invalid statement at line 1, column 1) and every setting in it was dropped."""
    (tmp_path / ".citewarden.toml").write_bytes(
        b"\xef\xbb\xbfdebounce_ms = 5\n[verify]\ntimeout = -1\n"
    )
    settings, problems = load_settings(tmp_path)
    assert settings.debounce_ms == 5
    assert [(p.key, p.line) for p in problems] == [("verify.timeout", 3)]
    result = run_citewarden(["check", ".", "--no-verify", "--config", ".citewarden.toml"], tmp_path)
    assert "invalid TOML" not in result.stderr
    assert ".citewarden.toml:3: setting 'verify.timeout'" in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'[severity]\rorphan-entry = "hint"\r', "line 1, column 11"),
        (b"debounce_ms = 5\r\n# a comment\rwith a CR\r\n", "line 2, column 12"),
        (b'ignore = ["a"]\n[severity]\r', "line 2, column 11"),
    ],
)
def test_a_settings_file_with_lone_carriage_returns_is_said_to_be_so(
    tmp_path: Path, data: bytes, where: str
) -> None:
    """A .citewarden.toml saved with old Mac line endings (a CR without an LF after it) is
    refused, as TOML ends lines with LF or CRLF only, and the message says so and where,
    where it said 'Expected newline or end of document after a statement'."""
    (tmp_path / ".citewarden.toml").write_bytes(data)
    settings, problems = load_settings(tmp_path)
    assert settings == Settings()
    [problem] = problems
    expected = (
        f"invalid TOML: a carriage return (CR) without a line feed after it at {where}: "
        "TOML ends lines with LF or CRLF only"
    )
    assert problem.message == expected
    result = run_citewarden(["check", ".", "--no-verify"], tmp_path)
    assert expected in result.stderr, result.stderr


def test_a_mistake_before_a_lone_carriage_return_is_named_as_the_reader_names_it(
    tmp_path: Path,
) -> None:
    (tmp_path / ".citewarden.toml").write_bytes(b"a = = 1\nb = 2\r")
    [problem] = load_settings(tmp_path)[1]
    assert problem.message == "invalid TOML: Invalid value (at line 1, column 5)"


def test_a_dotted_key_names_the_setting_it_spells(tmp_path: Path) -> None:
    """A key written as VS Code names a setting ("verify.timeout", in an editor's settings
    object or quoted in .citewarden.toml) sets that setting, where it was an unknown
    setting and left the setting at its default; a misspelt one is named in full."""
    settings, problems = merge_settings(
        Settings(),
        {"verify.timeout": 5, "verify": {"offline": True}, "severity.orphan-entry": "error"},
        "initializationOptions",
    )
    assert (settings.verify.timeout, settings.verify.offline) == (5.0, True)
    assert settings.severity == {"orphan-entry": Severity.ERROR}
    assert problems == []
    (tmp_path / ".citewarden.toml").write_text(
        '"debounce_ms" = 5\n"verify.concurrency" = 2\n"judge.timout" = 1\n', encoding="utf-8"
    )
    settings, problems = load_settings(tmp_path)
    assert (settings.debounce_ms, settings.verify.concurrency) == (5, 2)
    assert [(p.key, p.line, p.message) for p in problems] == [
        ("judge.timout", 3, "unknown setting")
    ]


def test_a_snapshot_path_is_relative_to_the_settings_file_that_sets_it(tmp_path: Path) -> None:
    """verify.snapshot = "snap.jsonl" in paper/.citewarden.toml is paper/snap.jsonl, from
    wherever the project is checked, where it was looked for in the working directory (or
    the workspace folder): `citewarden check paper` from above found no snapshot and called
    every entry unverified."""
    paper = tmp_path / "paper"
    shutil.copytree(ROOT / "examples" / "latex-paper", paper)
    shutil.copy(ROOT / "examples" / "snapshot.jsonl", paper / "snap.jsonl")
    (paper / ".citewarden.toml").write_text(
        '[verify]\nsnapshot = "snap.jsonl"\noffline = true\n', encoding="utf-8"
    )
    settings, _ = load_settings(paper)
    assert settings.verify.snapshot == str(paper / "snap.jsonl")
    editor, _ = merge_settings(Settings(), {"verify": {"snapshot": "s.jsonl"}}, "editor")
    assert editor.verify.snapshot == "s.jsonl"  # the workspace folder's, the server says
    env = {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
    result = run_citewarden(["check", "paper", "--format", "json"], tmp_path, env)
    statuses = {entry["status"] for entry in json.loads(result.stdout)["entries"]}
    assert "verified" in statuses, result.stderr


@pytest.mark.parametrize(
    ("pattern", "relative", "named"),
    [
        ("**/drafts/*", "drafts/d.tex", True),
        ("**/drafts/*", "paper/drafts/d.tex", True),
        ("**/*.bak.bib", "refs.bak.bib", True),
        ("paper/**/d.tex", "paper/d.tex", True),
        ("**/x/**/d.tex", "x/d.tex", True),
        ("**/drafts/*", "mydrafts/d.tex", False),
        ("**/drafts/*", "d.tex", False),
    ],
)
def test_a_double_star_folder_also_stands_for_no_folder(
    tmp_path: Path, pattern: str, relative: str, named: bool
) -> None:
    """An ignore pattern's **/ also matches no folder at all, as in a .gitignore or VS
    Code's files.exclude: **/drafts/* left drafts/d.tex beside the settings file checked."""
    settings = Settings(ignore=(pattern,), ignore_base=tmp_path)
    assert is_ignored(settings, tmp_path / relative, []) is named


def test_many_double_star_folders_are_read_in_bounded_time(tmp_path: Path) -> None:
    """Each **/ of an ignore pattern was dropped in every order, one way after another: a
    pattern of ten took 17 seconds a file, and a few more hung the check and the server.
    A run of them reads as one; past the fourth apart, each stands for one folder or more,
    and the settings say so."""
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "d.tex").write_text(
        "\\cite{ghost}\n\\bibliography{../refs}\n", encoding="utf-8"
    )
    (tmp_path / "main.tex").write_text("\\cite{lost}\n\\bibliography{refs}\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    patterns = ["**/" * 40 + "drafts/*", "**/a/" * 12 + "x", "**/" * 5000 + "y"]
    (tmp_path / ".citewarden.toml").write_text(f"ignore = {json.dumps(patterns)}\n")
    result = run_citewarden(["check", ".", "--no-verify", "--format", "json"], tmp_path, None, 60)
    dangling = json.loads(result.stdout)["citations"]["dangling"]
    assert [d["key"] for d in dangling] == ["lost"], result.stderr
    assert "has more than 4 '**/' apart" in result.stderr
    assert result.stderr.count("'**/' apart") == 1, result.stderr
    settings = Settings(ignore=("**/a/" * 6 + "d.tex",), ignore_base=tmp_path)
    assert is_ignored(settings, tmp_path / ("x/a/" * 6 + "d.tex"), [])
    assert is_ignored(settings, tmp_path / ("a/" * 4 + "x/a/y/a/" + "d.tex"), [])
    assert not is_ignored(settings, tmp_path / ("a/" * 6 + "d.tex"), [])  # the 5th, 6th
    assert not is_ignored(settings, tmp_path / "a/a/a/a/a/d.tex", [])


def test_three_quotes_inside_a_one_line_string_open_no_string(tmp_path: Path) -> None:
    """Three quotes inside a one-line string or a comment were taken for the start of a
    multi-line string, and every key after them lost its line; a multi-line string's own
    lines are still no keys."""
    (tmp_path / ".citewarden.toml").write_text(
        "pandoc_version = '\"\"\"'  # '''\ntimeout = 1\n"
        'citation_commands = ["x"]  # """\nmailto = 2\n'
        'verify.mailto = """\nlimit = 3\n"""\ndebounce = -1\n',
        encoding="utf-8",
    )
    _, problems = load_settings(tmp_path)
    assert [(p.key, p.line) for p in problems] == [
        ("pandoc_version", 1),
        ("timeout", 2),
        ("mailto", 4),
        ("verify.mailto", 5),
        ("debounce", 8),
    ]


def test_more_ignore_patterns_than_the_limit_are_a_problem_and_the_first_are_used() -> None:
    """Each file is matched against every ignore pattern: 100 000 of them kept the first
    index from ending (a hover waited minutes); past MAX_IGNORE they are a problem."""
    patterns = [f"drafts{i}/**" for i in range(MAX_IGNORE + 500)]
    settings, problems = merge_settings(Settings(), {"ignore": patterns}, "cfg.toml")
    assert settings.ignore == tuple(patterns[:MAX_IGNORE])
    assert [str(p) for p in problems] == [
        f"cfg.toml: setting 'ignore': {MAX_IGNORE + 500} patterns, more than {MAX_IGNORE}; "
        f"the first {MAX_IGNORE} are used"
    ]
    folder = Path("/ws")
    assert is_ignored(settings, folder / f"drafts{MAX_IGNORE - 1}" / "a.tex", [folder])
    assert not is_ignored(settings, folder / f"drafts{MAX_IGNORE}" / "a.tex", [folder])


@pytest.mark.parametrize(
    "name",
    [
        "a.tex",
        "drafts/a.tex",
        "x/drafts/b/c.bib",
        "refs.bak.bib",
        "d/e/refs.bak.bib",
        "q",
        "notes/z.md",
    ],
)
def test_the_ignore_patterns_together_match_as_each_does(name: str) -> None:
    patterns = ("**/drafts/**", "*.bak.bib", "[!a-p]", "x/**/**/c.bib", "a.te?")
    settings, _ = merge_settings(Settings(), {"ignore": list(patterns)}, "cfg.toml")
    folder = Path("/ws")
    expected = any(glob_match(n, p) for n in (Path(name).name, name) for p in patterns)
    assert is_ignored(settings, folder / name, [folder]) == expected


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (b'ignore = ["a"]\ndebounce_ms = 5 # \xc3\xa9t\xe9\n', "byte 0xe9 (at line 2, column 21)"),
        (b"\xef\xbb\xbf\xff = 1\n", "byte 0xff (at line 1, column 1)"),
    ],
)
def test_a_settings_file_that_is_not_utf8_names_the_line_and_column(
    tmp_path: Path, data: bytes, where: str
) -> None:
    """A byte that is not UTF-8 was named by its offset in the file ('can't decode byte
    0xe9 in position 34'): it is named by its line and column, as TOML's mistakes are."""
    (tmp_path / ".citewarden.toml").write_bytes(data)
    [problem] = load_settings(tmp_path)[1]
    assert problem.message == f"invalid TOML: not UTF-8: {where}"
