"""The safe fixer: only corrected value spans change, writes are atomic, nothing is lost."""

from __future__ import annotations

import errno
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from citewarden.files import temp_stem
from citewarden.fix import write
from citewarden.fix.plan import FixPlan, FixRefused, plan_fix, styled_title, verify_plan
from citewarden.fix.run import plan_file, written_corrections
from citewarden.fix.write import STALE_TEMP_AGE, apply_plan, write_atomically
from citewarden.parsing.bibtex import parse_bibtex
from paths import DATA

FIX_DATA = DATA / "fix"
HOTT = FIX_DATA / "hott-references.bib"
JSS = FIX_DATA / "jss-bibliography.bib"
AGU = FIX_DATA / "agu-agutest.bib"


def plan_bytes(path: Path, original: bytes, corrections: dict[str, dict[str, str]]) -> FixPlan:
    text = original.decode("utf-8").removeprefix("\ufeff")
    return plan_fix(parse_bibtex(path, text), original, corrections)


def fields_of(path: Path, data: bytes) -> dict[str, dict[str, str]]:
    bib = parse_bibtex(path, data.decode("utf-8").removeprefix("\ufeff"))
    assert bib.complete
    return {e.key: {f.name: f.text for f in e.fields} for e in bib.entries}


def assert_only(old: bytes, new: bytes, path: Path, changed: dict[tuple[str, str], str]) -> None:
    """Every field of every entry is the same in ``new`` except the ``changed`` ones."""
    before, after = fields_of(path, old), fields_of(path, new)
    assert list(before) == list(after)
    for key in before:
        for name in before[key].keys() | after[key].keys():
            if (key, name) in changed:
                assert after[key][name] == changed[key, name]
            else:
                assert before[key].get(name) == after[key].get(name), (key, name)


# ----------------------------------------------------------------------------------------
# Byte-for-byte preservation on real files
# ----------------------------------------------------------------------------------------


def test_hott_odd_formatting_changes_only_the_corrected_bytes() -> None:
    """Capitalised field names, tabs, bare numbers, closing brace on the last field line."""
    old = HOTT.read_bytes()
    plan = plan_bytes(
        HOTT,
        old,
        {
            "BauerTaylor09": {"volume": "20", "doi": "10.1017/S0960129509007695"},
            "Dybjer:2000": {"pages": "525--550"},
            "Euclid": {"year": "300 {BC}"},  # unchanged value: no edit
        },
    )
    expected = old.replace(
        b"\tVolume = 19,\n\tYear = 2009}",
        b"\tVolume = 20,\n\tYear = 2009,\n\tDoi = {10.1017/S0960129509007695}}",
        1,
    ).replace(b"\tPages = {525--549},", b"\tPages = {525--550},", 1)
    assert expected != old
    assert plan.new == expected
    assert [(c.key, c.field, c.old, c.new) for c in plan.changes] == [
        ("BauerTaylor09", "volume", "19", "20"),
        ("BauerTaylor09", "doi", None, "10.1017/S0960129509007695"),
        ("Dybjer:2000", "pages", "525--549", "525--550"),
    ]
    assert plan.changes[0].line == 15
    assert_only(
        old,
        plan.new,
        HOTT,
        {
            ("BauerTaylor09", "volume"): "20",
            ("BauerTaylor09", "doi"): "10.1017/S0960129509007695",
            ("Dybjer:2000", "pages"): "525--550",
        },
    )


def test_aligned_equals_and_trailing_newline_style_are_kept() -> None:
    old = JSS.read_bytes()
    plan = plan_bytes(
        JSS,
        old,
        {
            "CameronTrivedi2013": {"doi": "10.1017/CBO9781139013567"},
            "Mullahy1986": {"year": "1986", "volume": "33", "pages": "341--366"},
        },
    )
    expected = old.replace(
        b"  address   = {Cambridge}\n}",
        b"  address   = {Cambridge},\n  doi       = {10.1017/CBO9781139013567}\n}",
        1,
    ).replace(b"  pages   = {341--365},", b"  pages   = {341--366},", 1)
    assert plan.new == expected
    assert len(plan.changes) == 2


def test_unicode_and_unknown_fields_survive(tmp_path: Path) -> None:
    old = AGU.read_bytes()
    plan = plan_bytes(AGU, old, {"Levitus2012": {"volume": "39"}, "Raphael2004": {"year": "2005"}})
    assert plan.changed
    assert_only(
        old, plan.new, AGU, {("Levitus2012", "volume"): "39", ("Raphael2004", "year"): "2005"}
    )
    # The long abstract with non-ASCII characters and the Mendeley 'file' field are untouched.
    assert old.split(b"\nauthor")[0] == plan.new.split(b"\nauthor")[0]
    assert plan.new.count("°".encode()) == old.count("°".encode())


def test_crlf_file_keeps_crlf_everywhere(tmp_path: Path) -> None:
    lf = HOTT.read_bytes()
    old = lf.replace(b"\n", b"\r\n")
    path = tmp_path / "crlf.bib"
    path.write_bytes(old)
    plan = plan_bytes(path, old, {"BauerTaylor09": {"doi": "10.1017/S0960129509007695"}})
    assert b"\n" not in plan.new.replace(b"\r\n", b"")  # no bare LF introduced
    assert plan.new == old.replace(
        b"\tYear = 2009}", b"\tYear = 2009,\r\n\tDoi = {10.1017/S0960129509007695}}", 1
    )
    assert "\r\n" in plan.diff()


def test_comments_strings_and_preamble_are_untouched(tmp_path: Path) -> None:
    text = (
        "% A comment line {with braces}\n"
        '@preamble{ "\\newcommand{\\noop}[1]{}" }\n'
        '@string{ jsl = "Journal of Symbolic Logic" }\n'
        "@comment{ jabref-meta: databaseType:bibtex; }\n"
        "@article{a,\n"
        '  title = "A {\\"U}ber title",\n'
        "  journal = jsl,\n"
        "  year = 1999, note = {keep   this   spacing},\n"
        "  unknownfield = {x}, % trailing comment\n"
        "}\n"
        "\n"
        "trailing junk text that bibtex ignores\n"
    )
    path = tmp_path / "c.bib"
    old = text.encode()
    plan = plan_bytes(path, old, {"a": {"year": "2000", "journal": "Annals", "title": 'T "x"'}})
    assert plan.new == old.replace(b"year = 1999", b"year = 2000").replace(
        b'title = "A {\\"U}ber title"', b'title = {T "x"}'
    )
    (skipped,) = plan.skipped
    assert skipped.field == "journal" and "macro" in skipped.reason


def test_bom_is_kept(tmp_path: Path) -> None:
    old = b"\xef\xbb\xbf@misc{k, title = {T}, year = {2001}}\n"
    path = tmp_path / "bom.bib"
    plan = plan_bytes(path, old, {"k": {"year": "2002"}})
    assert plan.new == b"\xef\xbb\xbf@misc{k, title = {T}, year = {2002}}\n"


def test_single_line_entry_insertion(tmp_path: Path) -> None:
    old = b"@misc{k, title={T}, year=2001}\n"
    plan = plan_bytes(tmp_path / "one.bib", old, {"k": {"doi": "10.1/x"}})
    assert plan.new == b"@misc{k, title={T}, year=2001, doi={10.1/x}}\n"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # no white space between fields: none before the new one, and the entry's quotes
        (
            b'@misc{k,title="T",year=2001}\n',
            b'@misc{k,title="T",year=2001,doi="10.1/x"}\n',
        ),
        (b"@misc{k,title={T},year=2001}\n", b"@misc{k,title={T},year=2001,doi={10.1/x}}\n"),
        (b"@misc{k,year=2001}\n", b"@misc{k,year=2001,doi={10.1/x}}\n"),
        (b"@misc{k,title={T},year=2001,}\n", b"@misc{k,title={T},year=2001,doi={10.1/x},}\n"),
        # quotes as the entry's delimited values have them, on lines of their own
        (
            b'@misc{k,\n  title = "T",\n  year = 2001\n}\n',
            b'@misc{k,\n  title = "T",\n  year = 2001,\n  doi = "10.1/x"\n}\n',
        ),
        (
            b'@misc{k, title = "T", year = 2001}\n',
            b'@misc{k, title = "T", year = 2001, doi = "10.1/x"}\n',
        ),
        # the last delimited value's delimiter where the entry mixes them
        (
            b'@misc{k, title = {T}, note = "n", year = 2001}\n',
            b'@misc{k, title = {T}, note = "n", year = 2001, doi = "10.1/x"}\n',
        ),
    ],
)
def test_an_inserted_field_follows_the_entry_s_separator_and_delimiters(
    tmp_path: Path, old: bytes, new: bytes
) -> None:
    plan = plan_bytes(tmp_path / "refs.bib", old, {"k": {"doi": "10.1/x"}})
    verify_plan(plan, parse_bibtex)
    assert plan.new == new


def test_an_inserted_value_holding_a_quote_is_braced_in_a_quoted_entry(tmp_path: Path) -> None:
    old = b'@misc{k, title = "T", year = 2001}\n'
    plan = plan_bytes(tmp_path / "refs.bib", old, {"k": {"note": 'say "hi"'}})
    verify_plan(plan, parse_bibtex)
    assert plan.new == b'@misc{k, title = "T", year = 2001, note = {say "hi"}}\n'


def test_trailing_comma_is_respected(tmp_path: Path) -> None:
    old = b"@misc{k,\n    title = {T},\n    year = {2001},\n}\n"
    plan = plan_bytes(tmp_path / "t.bib", old, {"k": {"doi": "10.1/x"}})
    assert plan.new == b"@misc{k,\n    title = {T},\n    year = {2001},\n    doi = {10.1/x},\n}\n"


def test_comment_after_the_last_field_and_parenthesised_entries(tmp_path: Path) -> None:
    old = b"@misc(k,\n  title = {T},\n  year = 2001, % checked\n)\n"
    plan = plan_bytes(tmp_path / "p.bib", old, {"k": {"doi": "10.1/x", "year": "2002"}})
    assert plan.new == b"@misc(k,\n  title = {T},\n  year = 2002,\n  doi = {10.1/x}, % checked\n)\n"


@pytest.mark.parametrize("name", [HOTT.name, JSS.name, AGU.name])
def test_every_entry_of_real_files_takes_a_correction_and_a_new_field(name: str) -> None:
    """Each entry, in whatever style it is written, gets one changed and one added field;
    the re-parse shows exactly those two changes and nothing else."""
    path = FIX_DATA / name
    old = path.read_bytes()
    bib = parse_bibtex(path, old.decode("utf-8"))
    corrections: dict[str, dict[str, str]] = {}
    for entry in bib.entries:
        names = [f.name for f in entry.fields if f.expanded is None]
        target = "year" if "year" in names else names[0]
        corrections[entry.key] = {target: "1999", "x-checked": "yes"}
    plan = plan_fix(bib, old, corrections)
    assert not plan.skipped
    verify_plan(plan, parse_bibtex)
    expected = {
        (key, field): value
        for key, fields in corrections.items()
        for field, value in fields.items()
    }
    assert_only(old, plan.new, path, expected)
    assert len(plan.new) > len(old)


def test_bare_number_gets_braces_when_the_new_value_is_not_a_number(tmp_path: Path) -> None:
    old = b"@article{k, title = {T}, number = 4}\n"
    plan = plan_bytes(tmp_path / "n.bib", old, {"k": {"number": "4-5"}})
    assert plan.new == b"@article{k, title = {T}, number = {4-5}}\n"
    # digits BibTeX does not read as a number (str.isdigit() says yes to them)
    for value in ("\u00b2", "\u0664\u0665"):
        plan = plan_bytes(tmp_path / "n.bib", old, {"k": {"number": value}})
        assert plan.new == b"@article{k, title = {T}, number = {%s}}\n" % value.encode()
    plan = plan_bytes(tmp_path / "n.bib", old, {"k": {"number": "12"}})
    assert plan.new == b"@article{k, title = {T}, number = 12}\n"


# ----------------------------------------------------------------------------------------
# Refusals and skipped corrections
# ----------------------------------------------------------------------------------------


def test_refuses_a_file_with_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.bib"
    old = b"@article{good, title = {T}, year = {2001}}\n@article{bad, title = {unclosed\n"
    path.write_bytes(old)
    bib = parse_bibtex(path, old.decode())
    assert not bib.complete
    with pytest.raises(FixRefused, match="not parsed completely"):
        plan_fix(bib, old, {"good": {"year": "2002"}})
    with pytest.raises(FixRefused):
        plan_file(path, {"good": {"year": "2002"}})
    assert path.read_bytes() == old


def test_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1.bib"
    path.write_bytes("@misc{k, title = {Caf\u00e9}, year = {2001}}\n".encode("latin-1"))
    with pytest.raises(FixRefused, match="UTF-8"):
        plan_file(path, {"k": {"year": "2002"}})


def test_refuses_when_the_parse_does_not_match_the_bytes(tmp_path: Path) -> None:
    path = tmp_path / "x.bib"
    bib = parse_bibtex(path, "@misc{k, year = {2001}}\n")
    with pytest.raises(FixRefused, match="do not match"):
        plan_fix(bib, b"@misc{kk, year = {2001}}\n", {"k": {"year": "2002"}})


def test_skips_unsafe_corrections(tmp_path: Path) -> None:
    old = (
        b"@misc{a, title = {T}, author = {X}}\n"
        b"@misc{b, title = {T}, year = {2001}}\n"
        b"@misc{dup, year = {1}}\n@misc{DUP, year = {2}}\n"
        b"@misc{c, date = {2001-02-03}}\n"
    )
    plan = plan_bytes(
        tmp_path / "s.bib",
        old,
        {
            "a": {"title": "U", "author": "Y"},
            "b": {"title": "Unbalanced {brace"},
            "dup": {"year": "3"},
            "c": {"year": "2002"},
            "missing": {"year": "2000"},
        },
    )
    assert plan.new == old
    assert not plan.changed and plan.diff() == ""
    reasons = {(s.key, s.field): s.reason for s in plan.skipped}
    assert "at once" in reasons["a", None]
    assert "unbalanced" in reasons["b", "title"]
    assert "more than once" in reasons["dup", None]
    assert "date" in reasons["c", "year"]
    assert all(s.key != "missing" for s in plan.skipped)


def test_verify_plan_catches_a_correction_that_breaks_the_file(tmp_path: Path) -> None:
    path = tmp_path / "v.bib"
    old = b'@misc{k, title = "T", year = {2001}}\n'
    path.write_bytes(old)
    # A value ending in a backslash would escape the closing delimiter in some parsers; the
    # re-parse check must notice any value that does not come back exactly.
    plan = plan_bytes(path, old, {"k": {"year": "2002"}})
    verify_plan(plan, parse_bibtex)  # a good plan passes
    bad = FixPlan(path, old, old.replace(b"2001}}", b"2001}"), plan.changes)
    with pytest.raises(FixRefused):
        verify_plan(bad, parse_bibtex)
    sneaky = FixPlan(path, old, old.replace(b'"T"', b'"U"'), ())
    with pytest.raises(FixRefused, match="unexpectedly"):
        verify_plan(sneaky, parse_bibtex)


# ----------------------------------------------------------------------------------------
# Writing: backup, atomic replace, failures
# ----------------------------------------------------------------------------------------


def test_write_keeps_a_backup_and_permissions(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    old = JSS.read_bytes()
    path.write_bytes(old)
    path.chmod(0o640)
    plan = plan_file(path, {"Mullahy1986": {"pages": "341--366"}})
    backup = apply_plan(plan)
    assert backup == (tmp_path / "refs.bib.orig").resolve()
    assert backup.read_bytes() == old
    assert path.read_bytes() == plan.new
    assert (path.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs.bib", "refs.bib.orig"]


def test_existing_backups_are_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    (tmp_path / "refs.bib.orig").write_bytes(b"an older backup\n")
    first = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert first is not None and first.name == "refs.bib.orig.1"
    assert (tmp_path / "refs.bib.orig").read_bytes() == b"an older backup\n"
    assert first.read_bytes() == b"@misc{k, year = {2001}}\n"
    second = apply_plan(plan_file(path, {"k": {"year": "2003"}}))
    assert second is not None and second.name == "refs.bib.orig.2"
    # An identical backup is reused rather than duplicated.
    path.write_bytes(b"an older backup\n")
    assert write_atomically(path, b"new\n").name == "refs.bib.orig"  # type: ignore[union-attr]


def test_a_backup_made_by_someone_else_meanwhile_is_never_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``refs.bib.orig`` created between the choice of the backup's name and the backup's
    creation is kept as it is: the backup goes to the next free name."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    real = write.backup_path_for

    def racing(target: Path, original: bytes) -> tuple[Path, bool]:
        candidate, exists = real(target, original)
        if candidate.name == "refs.bib.orig":
            candidate.write_bytes(b"theirs\n")  # made by another process just now
        return candidate, exists

    monkeypatch.setattr(write, "backup_path_for", racing)
    backup = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert (tmp_path / "refs.bib.orig").read_bytes() == b"theirs\n"
    assert backup is not None and backup.name == "refs.bib.orig.1"
    assert backup.read_bytes() == b"@misc{k, year = {2001}}\n"
    assert path.read_bytes() == b"@misc{k, year = {2002}}\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_without_hard_links_the_backup_is_created_exclusively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the file system has no hard links (FAT answers EPERM), the backup is created
    exclusively with the file's mode, and a name made meanwhile is passed over too."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    path.chmod(0o640)
    real = write.backup_path_for

    def racing(target: Path, original: bytes) -> tuple[Path, bool]:
        candidate, exists = real(target, original)
        if candidate.name == "refs.bib.orig":
            candidate.write_bytes(b"theirs\n")
        return candidate, exists

    def no_link(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "hard links not supported")

    monkeypatch.setattr(write, "backup_path_for", racing)
    monkeypatch.setattr(os, "link", no_link)
    backup = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert (tmp_path / "refs.bib.orig").read_bytes() == b"theirs\n"
    assert backup is not None and backup.name == "refs.bib.orig.1"
    assert backup.read_bytes() == b"@misc{k, year = {2001}}\n"
    assert (backup.stat().st_mode & 0o777) == 0o640
    assert path.read_bytes() == b"@misc{k, year = {2002}}\n"


def test_without_hard_links_no_byte_is_written_under_the_final_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without hard links, the backup and a new file are complete temporary files renamed
    over their names: a write killed midway leaves no partial backup or file."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    written: list[str] = []
    real_write = write._write_all

    def recorded(fd: int, data: bytes) -> None:
        written.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real_write(fd, data)

    def no_link(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "hard links not supported")

    monkeypatch.setattr(write, "_write_all", recorded)
    monkeypatch.setattr(os, "link", no_link)
    backup = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert backup is not None and backup.read_bytes() == b"@misc{k, year = {2001}}\n"
    write_atomically(tmp_path / "new.bib", b"@misc{n}\n", expected=write.ABSENT)
    assert (tmp_path / "new.bib").read_bytes() == b"@misc{n}\n"
    assert len(written) == 3 and all(name.endswith(".tmp") for name in written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.bib", "refs.bib", "refs.bib.orig"]


@pytest.mark.parametrize("new", [True, False], ids=["new file", "backup"])
def test_a_failing_hard_link_is_taken_for_no_hard_links_by_one_errno_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new: bool
) -> None:
    """Only the errors that say a file system has no hard links (FAT's EPERM ...) make a
    new file or a backup be made otherwise; another (an I/O error) stops both alike."""
    path = tmp_path / "refs.bib"
    if not new:
        path.write_bytes(b"@misc{k, year = {2001}}\n")

    def failing(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "link", failing)
    with pytest.raises(OSError, match="Input/output error"):
        if new:
            write_atomically(path, b"@misc{n}\n", expected=write.ABSENT)
        else:
            apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if new else ["refs.bib"])


def test_a_backup_name_always_taken_meanwhile_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When every backup name chosen is taken before the backup is made, the file is not
    written and the reason says so; no name another process made is replaced."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    real = write.backup_path_for

    def racing(target: Path, original: bytes) -> tuple[Path, bool]:
        candidate, exists = real(target, original)
        candidate.write_bytes(b"theirs " + candidate.name.encode() + b"\n")
        return candidate, exists

    monkeypatch.setattr(write, "backup_path_for", racing)
    with pytest.raises(FixRefused, match="backup"):
        apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert path.read_bytes() == b"@misc{k, year = {2001}}\n"
    for made in tmp_path.glob("refs.bib.orig*"):
        assert made.read_bytes() == b"theirs " + made.name.encode() + b"\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


_BACKUP_SCRIPT = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
from citewarden.fix.write import write_atomically
backup = write_atomically(Path(sys.argv[1]), b"new\\n")
print(backup.name if backup else "")
"""


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "the file itself", "a larger file"])
def test_a_backup_name_holding_no_copy_is_passed_over(tmp_path: Path, kind: str) -> None:
    """An existing ``refs.bib.orig`` counts as the backup only when it is a regular file of
    its own holding the old bytes, read no further than their size: a FIFO (whose reading
    waits for a writer), a link to ``/dev/zero`` (never ends) or to the file itself (which
    the fix rewrites) are left alone and the backup goes to ``refs.bib.orig.1``."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"old\n")
    name = tmp_path / "refs.bib.orig"
    if kind == "fifo":
        os.mkfifo(name)
    elif kind == "dev-zero":
        name.symlink_to("/dev/zero")
    elif kind == "the file itself":
        name.symlink_to(path)
    else:
        name.write_bytes(b"old\n" * 1000)
    try:
        done = subprocess.run(
            [sys.executable, "-c", _BACKUP_SCRIPT, str(path)],
            capture_output=True,
            text=True,
            timeout=15,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "server")},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("reading the existing backup name did not end")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "refs.bib.orig.1"
    assert (tmp_path / "refs.bib.orig.1").read_bytes() == b"old\n"
    assert path.read_bytes() == b"new\n"


def test_symlink_is_followed_not_replaced(tmp_path: Path) -> None:
    real = tmp_path / "real.bib"
    real.write_bytes(b"@misc{k, year = {2001}}\n")
    link = tmp_path / "link.bib"
    link.symlink_to(real)
    apply_plan(plan_file(link, {"k": {"year": "2002"}}))
    assert link.is_symlink()
    assert real.read_bytes() == b"@misc{k, year = {2002}}\n"


def test_file_changed_on_disk_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    plan = plan_file(path, {"k": {"year": "2002"}})
    path.write_bytes(b"@misc{k, year = {2001}, note = {edited meanwhile}}\n")
    with pytest.raises(FixRefused, match="changed on disk"):
        apply_plan(plan)
    assert path.read_bytes() == b"@misc{k, year = {2001}, note = {edited meanwhile}}\n"


@pytest.mark.parametrize("failing", ["link", "replace"])  # the backup's, the file's
def test_failing_replace_leaves_the_old_file_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    path = tmp_path / "refs.bib"
    old = HOTT.read_bytes()
    path.write_bytes(old)
    plan = plan_file(path, {"BauerTaylor09": {"volume": "20"}})

    def flaky(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, failing, flaky)
    with pytest.raises(OSError):
        apply_plan(plan)
    assert path.read_bytes() == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_diff_shows_the_change(tmp_path: Path) -> None:
    plan = plan_bytes(JSS, JSS.read_bytes(), {"Mullahy1986": {"pages": "341--366"}})
    diff = plan.diff()
    assert diff.startswith(f"--- a/{JSS.as_posix()}\n+++ b/{JSS.as_posix()}\n")
    assert "-  pages   = {341--365},\n+  pages   = {341--366},\n" in diff


# ----------------------------------------------------------------------------------------
# Interrupted runs: killed at every step, and at random moments
# ----------------------------------------------------------------------------------------

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from citewarden.fix import run, write

    write._CHUNK = int(sys.argv[3])
    pause = sys.argv[2] == "pause"

    def hook(name, real):
        def wrapped(*args, **kwargs):
            if pause:
                print("step", name, flush=True)
                sys.stdin.readline()
            return real(*args, **kwargs)
        return wrapped

    if pause:
        for name in ("write", "fsync", "replace", "link", "fchmod", "unlink"):
            setattr(os, name, hook(name, getattr(os, name)))
    path = Path(sys.argv[1])
    plan = run.plan_file(path, {"BauerTaylor09": {"volume": "20", "doi": "10.1017/S0960129509007695"}})
    print("planned", flush=True)
    start = time.monotonic()
    write.apply_plan(plan)
    print("done", time.monotonic() - start, flush=True)
    """
)


def _expected_new(old: bytes) -> bytes:
    return old.replace(
        b"\tVolume = 19,\n\tYear = 2009}",
        b"\tVolume = 20,\n\tYear = 2009,\n\tDoi = {10.1017/S0960129509007695}}",
        1,
    )


def _assert_old_or_new(path: Path, old: bytes, new: bytes) -> bytes:
    data = path.read_bytes()
    assert data in (old, new)
    assert parse_bibtex(path, data.decode("utf-8")).complete
    return data


def _run_child(tmp_path: Path, mode: str, chunk: int) -> subprocess.Popen[str]:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "refs.bib"), mode, str(chunk)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_killed_at_every_step_leaves_old_or_new(tmp_path: Path) -> None:
    old = HOTT.read_bytes()
    new = _expected_new(old)
    path = tmp_path / "refs.bib"
    # First a full run, to count the steps.
    path.write_bytes(old)
    child = _run_child(tmp_path, "pause", 8192)
    steps = []
    assert child.stdout is not None and child.stdin is not None
    for line in child.stdout:
        if line.startswith("done"):
            break
        if not line.startswith("step"):
            continue
        steps.append(line.split()[1])
        child.stdin.write("\n")
        child.stdin.flush()
    child.wait(30)
    assert path.read_bytes() == new
    assert steps.count("link") == 1  # the backup, never replacing a file of its name
    assert steps.count("replace") == 1  # the file itself
    assert steps.count("write") >= 2 * (len(old) // 8192)
    # Then one run killed just before each step.
    final_replace = len(steps) - 1 - steps[::-1].index("replace")
    for kill_at in range(len(steps)):
        for p in tmp_path.iterdir():
            if p.name != "child.py":
                p.unlink()
        path.write_bytes(old)
        child = _run_child(tmp_path, "pause", 8192)
        assert child.stdout is not None and child.stdin is not None
        for _ in range(kill_at + 1):
            line = child.stdout.readline()
            while line.startswith("planned"):
                line = child.stdout.readline()
            assert line.startswith("step"), line
            if _ < kill_at:
                child.stdin.write("\n")
                child.stdin.flush()
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        left = _assert_old_or_new(path, old, new)
        # Killed before the final rename: the old file; after it: the new one.
        assert left == (old if kill_at <= final_replace else new), (kill_at, steps[kill_at])
        backup = tmp_path / "refs.bib.orig"
        if backup.exists():  # a backup, when present, is always complete
            assert backup.read_bytes() == old


def test_killed_at_random_moments_leaves_old_or_new(tmp_path: Path) -> None:
    """SIGKILL at random times while a large file is being fixed."""
    base = HOTT.read_text(encoding="utf-8")
    copies = [base]
    for n in range(1, 8):  # the same entries under other keys make a large file
        copies.append(re.sub(r"(@\w+\{)([^,\s]+),", lambda m, n=n: f"{m[1]}{m[2]}-{n},", base))
    old = "".join(copies).encode("utf-8")
    new = _expected_new(old)
    path = tmp_path / "refs.bib"
    # How long does writing take in an undisturbed run?
    path.write_bytes(old)
    child = _run_child(tmp_path, "run", 1024)
    out, _ = child.communicate(timeout=120)
    write_time = float(out.split()[-1])
    assert path.read_bytes() == new
    rng = random.Random(7)
    seen = set()
    for _ in range(8):
        for p in tmp_path.iterdir():
            if p.name != "child.py":
                p.unlink()
        path.write_bytes(old)
        child = _run_child(tmp_path, "run", 1024)
        assert child.stdout is not None
        assert child.stdout.readline().startswith("planned")
        time.sleep(rng.uniform(0.0, 1.2) * write_time)
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        seen.add(_assert_old_or_new(path, old, new) == new)
    assert seen  # every interrupted run left a complete file (old or new)


def test_temporary_files_of_a_killed_run_are_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "refs.bib"
    target.write_bytes(b"@misc{a, title = {A}}\n")
    stale = tmp_path / ".refs.bib.k3x9_q2a.tmp"  # what a killed write of refs.bib leaves
    fresh = tmp_path / ".refs.bib.m1n2o3p4.tmp"  # maybe a write running right now
    other = tmp_path / ".notes.bib.k3x9_q2a.tmp"  # another file's
    mine = tmp_path / ".refs.bib.backup-copy.tmp"  # not a name the fixer makes
    for path in (stale, fresh, other, mine):
        path.write_bytes(b"partial")
    old = time.time() - STALE_TEMP_AGE - 60
    for path in (stale, other, mine):
        os.utime(path, (old, old))
    write_atomically(target, b"@misc{a, title = {B}}\n")
    assert target.read_bytes() == b"@misc{a, title = {B}}\n"
    assert not stale.exists()
    assert fresh.exists() and other.exists() and mine.exists()


@pytest.mark.parametrize(
    ("written", "corrected", "styled"),
    [
        # the words the entry braces stay braced, in its spelling; a single letter only as
        # written (``{A}`` is not every "a")
        ("{RNeXML} for {R} users", "RNeXML for R users", "{RNeXML} for {R} users"),
        ("The {BERT} model, {A} note", "The Bert model: a note", "The {BERT} model: a note"),
        ("{Markov} chains", "{Markov} chains", "{Markov} chains"),  # already braced
        ("Caf{\\'e} and {G}{\\\"o}del", "Gödel cafés", "Gödel cafés"),  # accents protect nothing
        # a title braced whole stays braced whole
        ("{Old Title}", "{ImageNet} classification", "{{ImageNet} classification}"),
        ("{Old Title}", "{New Title}", "{New Title}"),
        ("{A} and {B}", "B and a", "{B} and a"),
        # an ordinary lower-case word is not the braced word of other capitals
        (
            "Why {US} Firms Fail: {IT} Matters",
            "Why {US} firms fail: let us count the ways it happens",
            "Why {US} firms fail: let us count the ways it happens",
        ),
        ("{BERT} and {GPT}", "bert and Gpt, then BERT", "bert and {GPT}, then {BERT}"),
        # the letter whose lower case is longer (İ: i and a dot) is found as written, and
        # as case-blind matching finds it (as an I)
        ("History of {İstanbul}", "History of İstanbul", "History of {İstanbul}"),
        ("{İ} and {İSTANBUL}", "İ and İstanbul", "{İ} and {İSTANBUL}"),
        ("{ISTANBUL} then", "İstanbul then", "{ISTANBUL} then"),
    ],
)
def test_a_corrected_title_is_protected_as_the_entry_protects_its_title(
    written: str, corrected: str, styled: str
) -> None:
    """BibTeX styles that lowercase titles print braced words as written: a correction
    that dropped the entry's ``{R}`` would print "r"."""
    assert styled_title(written, corrected) == styled


def test_every_word_a_title_braces_is_braced_in_its_correction() -> None:
    """Past the 64th braced word the words were left unbraced (a style lowercasing titles
    printed them lower-case); the longest braced word at a place is braced whole."""
    words = [f"Q{chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(100)]
    written = " ".join("{" + w + "}" for w in words)
    corrected = " ".join(w.lower().capitalize() for w in reversed(words))
    assert styled_title(written, corrected) == " ".join("{" + w + "}" for w in reversed(words))
    assert styled_title("{York} in {New York}", "A New York") == "A {New York}"


def test_the_reported_title_correction_is_the_one_fix_writes(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    original = b"@article{k,\n  title = {The {BERT} Model},\n  year = 2000\n}\n"
    entry = parse_bibtex(path, original.decode()).entries[0]
    shown = written_corrections(entry, {"title": "The Bert model revisited", "year": "2001"})
    assert shown == {"title": "The {BERT} model revisited", "year": "2001"}
    plan = plan_fix(parse_bibtex(path, original.decode()), original, {"k": shown})
    assert [c.new for c in plan.changes] == ["The {BERT} model revisited", "2001"]


def test_fix_writes_the_title_with_the_entrys_protections(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    original = b"@article{k,\n  title = {{A Study of {Markov} Chains}},\n  year = 2000\n}\n"
    path.write_bytes(original)
    bib = parse_bibtex(path, original.decode())
    plan = plan_fix(bib, original, {"k": {"title": "A study of Markov chains in {BERT}"}})
    assert b"title = {{A study of Markov chains in {BERT}}}," in plan.new
    verify_plan(plan, parse_bibtex)


#: write_atomically, as the unprivileged user nobody when started by root (root writes any
#: file): the module is imported first, while the interpreter is readable; prints "written"
#: or the refusal.
_AS_USER_WRITE = """
import os, sys
from pathlib import Path
from citewarden.fix.plan import FixRefused
from citewarden.fix.write import write_atomically
if os.geteuid() == 0:
    os.setgroups([]); os.setgid(65534); os.setuid(65534)
path = Path(sys.argv[1])
try:
    write_atomically(path, b"new\\n", expected=path.read_bytes(), backup=False)
except FixRefused as exc:
    print(exc.reason)
else:
    print("written")
"""


def test_a_read_only_file_is_not_replaced() -> None:
    """A file its owner made read-only (0444) is refused, as an editor refuses to save it,
    though the rename would need only the directory's permission; the same file writable
    (0644) is written."""
    import shutil
    import tempfile

    # pytest's own temporary folders are private to their owner; nobody owns this one
    directory = Path(tempfile.mkdtemp(prefix="citewarden-read-only-"))
    owner = (65534, 65534) if os.geteuid() == 0 else (os.geteuid(), os.getegid())
    try:
        os.chown(directory, *owner)
        results = {}
        for mode in (0o444, 0o644):
            path = directory / f"refs{mode:o}.bib"
            path.write_bytes(b"@misc{k, year = {2001}}\n")
            os.chown(path, *owner)
            path.chmod(mode)
            done = subprocess.run(
                [sys.executable, "-c", _AS_USER_WRITE, str(path)],
                env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "server")},
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert done.returncode == 0, done.stderr
            results[mode] = (done.stdout.strip(), path.read_bytes(), oct(path.stat().st_mode))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    reason = "the file is read-only (mode 0444); not written"
    assert results[0o444] == (reason, b"@misc{k, year = {2001}}\n", "0o100444")
    assert results[0o644] == ("written", b"new\n", "0o100644")


@pytest.mark.parametrize(
    ("mode", "read_only"),
    [
        (0o100444, True),
        (0o400, True),
        (0o555, True),
        (0o644, False),
        (0o200, False),
        (0o464, False),
    ],
)
def test_a_file_no_one_may_write_is_marked_read_only(mode: int, read_only: bool) -> None:
    assert write.marked_read_only(mode) is read_only


def test_a_file_marked_read_only_is_not_replaced_by_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Root may write any file, so access(2) allowed --fix to replace a file its owner made
    read-only (0444); a file no one may write is refused whoever runs (access answers as it
    answers root here)."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    path.chmod(0o444)
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: True)
    with pytest.raises(FixRefused, match=r"the file is read-only \(mode 0444\); not written"):
        apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert path.read_bytes() == b"@misc{k, year = {2001}}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs.bib"]
    path.chmod(0o644)
    assert apply_plan(plan_file(path, {"k": {"year": "2002"}})) is not None
    assert path.read_bytes() == b"@misc{k, year = {2002}}\n"


def test_planning_finds_the_lines_of_the_changes_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The line of each change comes from one index of the file's lines, not from counting
    the line breaks before it again for every change (quadratic in a large file)."""
    import citewarden.fix.plan as plan_module

    scanned = [0]
    counted = plan_module.count_line_breaks

    def counting(text: str, start: int = 0, end: int | None = None) -> int:
        scanned[0] += (len(text) if end is None else end) - start
        return counted(text, start, end)

    monkeypatch.setattr(plan_module, "count_line_breaks", counting)
    n = 300
    text = "".join(
        f"@article{{k{i},\n  volume = {{1}},\n  year = {{2000}}\n}}\n\n" for i in range(n)
    )
    corrections = {f"k{i}": {"volume": "2", "doi": f"10.1/{i}"} for i in range(n)}
    plan = plan_bytes(tmp_path / "refs.bib", text.encode(), corrections)
    assert len(plan.changes) == 2 * n
    # entry i starts on line 5i + 1: its volume is on the next line, its new doi after year
    assert [c.line for c in plan.changes] == [5 * i + d for i in range(n) for d in (2, 4)]
    assert scanned[0] < len(text)  # each change's own text, never the file before it


@pytest.mark.parametrize(
    ("entry", "inserted"),
    [
        # JabRef's layout: the last field has the longest name, its ``=`` one space after it
        (
            "@Article{a,\n  author    = {X},\n  title     = {Y},\n  timestamp = {2020.01.01},\n}\n",
            "  timestamp = {2020.01.01},\n  doi       = {10.1/x},\n}",
        ),
        (
            "@article{a,\n\tauthor = {X},\n\ttimestamp = {2020}\n}\n",  # tabs: no column
            "\ttimestamp = {2020},\n\tdoi = {10.1/x}\n}",
        ),
        ("@article{a,\n  author = {X},\n  year   = {2020}\n}\n", "  doi    = {10.1/x}\n}"),
        ("@article{a,\n  author = {X},\n  year = {2020}\n}\n", "  doi = {10.1/x}\n}"),
        ("@article{a,\n  author = {X},\n  editorship = {2020}\n}\n", "  doi = {10.1/x}\n}"),
    ],
)
def test_an_inserted_field_keeps_the_column_of_the_entrys_equals_signs(
    tmp_path: Path, entry: str, inserted: str
) -> None:
    plan = plan_bytes(tmp_path / "refs.bib", entry.encode(), {"a": {"doi": "10.1/x"}})
    verify_plan(plan, parse_bibtex)
    assert plan.new.decode().endswith(inserted + "\n")


def test_the_diff_of_a_cr_only_file_keeps_its_line_ends_so_patch_applies_it(
    tmp_path: Path,
) -> None:
    """A CR alone ends a line there: the diff shows it as the file has it (as diff(1) does),
    not as an escape that patch rejects; a control character is the file's own too, so
    patch applies the diff to the file as it is, and shown as an escape on a terminal."""
    import io
    import shutil

    from citewarden.fix.run import run_fix
    from citewarden.model import Match, Status, Tier, Verdict

    path = tmp_path / "refs.bib"
    old = "@article{k,\r  title = {A \x1b[2J title},\r  volume = {1},\r  year = {2000}\r}\r"
    path.write_bytes(old.encode())
    entry = parse_bibtex(path, old).entries[0]
    fixes = {"volume": "2"}
    verdict = Verdict("k", Status.MISMATCH, Tier.M, Match("crossref", 0.95), fixes)
    out, err = io.StringIO(), io.StringIO()
    assert run_fix([(entry, verdict)], diff=True, out=out, err=err, display=str, terminal=True) == 0
    shown = out.getvalue()
    assert "-" + old.replace("\x1b", "\\x1b") + "\n" in shown
    assert "+" + old.replace("{1}", "{2}").replace("\x1b", "\\x1b") + "\n" in shown
    assert "\\x0d" not in shown and "\x1b" not in shown
    assert "the diff shows \\x1b as escapes on the terminal" in err.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert run_fix([(entry, verdict)], diff=True, out=out, err=err, display=str) == 0
    diff = out.getvalue()
    assert "-" + old + "\n" in diff and "+" + old.replace("{1}", "{2}") + "\n" in diff
    assert "escapes" not in err.getvalue()
    if shutil.which("patch") is not None:
        patch = tmp_path / "fix.patch"
        patch.write_bytes(diff.replace(path.as_posix(), "refs.bib").encode())
        done = subprocess.run(
            ["patch", "-p1", "-i", str(patch)], cwd=tmp_path, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert path.read_bytes() == old.replace("{1}", "{2}").encode()


def test_a_value_whose_braces_bibtex_counts_unbalanced_is_not_written(tmp_path: Path) -> None:
    """BibTeX counts an escaped brace as a brace: ``{A \\{ B}`` never closes."""
    path = tmp_path / "refs.bib"
    old = b"@article{a,\n  title = {Old},\n  year = {2020}\n}\n"
    plan = plan_bytes(path, old, {"a": {"title": "A \\{ B", "year": "2021"}})
    assert [(s.field, s.reason) for s in plan.skipped] == [
        ("title", "corrected value has unbalanced braces")
    ]
    assert b"title = {Old}" in plan.new and b"year = {2021}" in plan.new


@pytest.mark.parametrize(
    "value", ["{\\B\\}", "{\\}", "\\B\\", "a\\", "x\\\\", "{\\B}", "\\{x\\}", "{x\\\\}"]
)
def test_a_corrected_value_is_written_only_as_bibtexparser_reads_it_back(
    tmp_path: Path, value: str
) -> None:
    """``{\\B\\}`` pairs up for BibTeX, which counts ``\\}`` as a brace; bibtexparser
    (and LaTeX) take it for an escaped brace and lost the entry (bibtexparser ``{x\\\\}``
    too): such a value is refused with the reason, every other one reads back as meant."""
    import bibtexparser

    path = tmp_path / "refs.bib"
    old = b"@article{a,\n  title = {Old},\n  year = {2020}\n}\n"
    plan = plan_bytes(path, old, {"a": {"title": value, "year": "2021"}})
    library = bibtexparser.parse_string(plan.new.decode())
    assert not library.failed_blocks
    (entry,) = library.entries
    assert entry["year"] == "2021"
    if value in ("{\\B\\}", "{\\}", "{x\\\\}"):
        assert [(s.field, s.reason) for s in plan.skipped] == [
            (
                "title",
                "corrected value's braces pair up only as BibTeX counts them: LaTeX and"
                " bibtexparser take \\{ and \\} for escaped braces, so it would not read back",
            )
        ]
        assert entry["title"] == "Old"
    else:
        assert not plan.skipped
        assert entry["title"].rstrip() == value


def test_a_value_bibtexparser_would_read_otherwise_is_not_written_whatever_let_it_through(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The corrected file is read back by bibtexparser too, as by the project's reader:
    a value the checks of a value let through (here, as they did before they knew of
    ``{\\B\\}``) is refused when bibtexparser would not read it back as planned."""
    import citewarden.fix.plan as plan_module

    monkeypatch.setattr(plan_module, "_escapes_balanced", lambda value: True)
    path = tmp_path / "refs.bib"
    old = b"@article{a,\n  title = {Old},\n  year = {2020}\n}\n"
    path.write_bytes(old)
    with pytest.raises(FixRefused, match="bibtexparser would not read the corrected entry a"):
        plan_file(path, {"a": {"title": "{\\B\\}"}})
    assert path.read_bytes() == old


@pytest.mark.parametrize(
    ("title", "value"),
    [("{{Old}}", "A\\"), ("{{Old}}", "and\\\\"), ("{{Old}}", "%\\"), ("{Old}", "A\\")],
)
def test_a_title_braced_as_the_entry_s_reads_back_whole(
    tmp_path: Path, title: str, value: str
) -> None:
    """A corrected title ending in a backslash, braced whole as the entry's title is,
    was written ``{{A\\}}``: the backslash took the closing brace for text, and
    bibtexparser lost the entry; a space keeps it apart, as for a value unbraced."""
    import bibtexparser

    path = tmp_path / "refs.bib"
    old = f"@article{{a,\n  title = {title},\n  year = {{2020}}\n}}\n".encode()
    plan = plan_bytes(path, old, {"a": {"title": value}})
    library = bibtexparser.parse_string(plan.new.decode())
    assert not library.failed_blocks and [e.key for e in library.entries] == ["a"]
    written = library.entries[0]["title"]
    assert written.strip("{} ") == value
    shown = written_corrections(parse_bibtex(path, old.decode()).entries[0], {"title": value})
    assert shown == {"title": plan.changes[0].new.rstrip()}  # the reports offer it so


@pytest.mark.parametrize("value", ["x\n@misc{y}", "x\n  @b(y)", '%c\n@{\\"o}'])
def test_a_corrected_value_with_a_line_starting_an_entry_is_not_written(
    tmp_path: Path, value: str
) -> None:
    """bibtexparser takes ``@name{`` at the start of a line for a new entry, inside a
    value too: the entry was lost.  Such a value is refused, with the reason."""
    path = tmp_path / "refs.bib"
    old = b"@article{a,\n  title = {Old},\n  year = {2020}\n}\n"
    plan = plan_bytes(path, old, {"a": {"note": value, "year": "2021"}})
    assert [(s.field, s.reason) for s in plan.skipped] == [
        (
            "note",
            "a line of the corrected value starts with '@', which bibtexparser reads as the"
            " start of another entry",
        )
    ]
    assert plan.new == old.replace(b"2020", b"2021")
    assert written_corrections(parse_bibtex(path, old.decode()).entries[0], {"note": value}) == {}


@pytest.mark.parametrize(
    ("entry", "corrections"),
    [
        ("@article{k, title = {T}, date = {2019-01-02}}", {"year": "2020"}),
        ('@string{j = "J"}\n@article{k, title = j # { x}, year = 2000}', {"title": "Y x"}),
        ("@article{k, title = {T}, pages = {1}, pages = {2}}", {"pages": "3--4"}),
        ("@article{k, title = {T}, journaltitle = {A}}", {"journal": "{B"}),
        ("@article{k, title = {T}, year = 2000}", {"year": "2000"}),
    ],
)
def test_the_reports_offer_no_correction_fix_skips_in_the_entry(
    tmp_path: Path, entry: str, corrections: dict[str, str]
) -> None:
    """A year beside a date, a value built from @string macros, a field given twice, an
    unbalanced value and a value already written: --fix writes none, so the reports
    (JSON, summary, HTML) offer none."""
    path = tmp_path / "refs.bib"
    original = (entry + "\n").encode()
    bib = parse_bibtex(path, entry + "\n")
    assert written_corrections(bib.entries[-1], corrections) == {}
    assert not plan_fix(bib, original, {"k": corrections}).changed


def test_the_reports_offer_what_fix_writes_beside_a_refused_field(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    text = "@article{k, title = {T}, date = {2019}, volume = {1}}\n"
    bib = parse_bibtex(path, text)
    corrections = {"year": "2020", "volume": "2", "pages": "3--4"}
    shown = written_corrections(bib.entries[0], corrections)
    assert shown == {"volume": "2", "pages": "3--4"}
    plan = plan_fix(bib, text.encode(), {"k": corrections})
    assert {c.field: c.new for c in plan.changes} == shown


def test_protecting_a_long_corrected_title_stays_linear() -> None:
    """Each occurrence of a braced word is braced by the depth counted on from the one
    before, not from the title's start: a 200 000-character title takes milliseconds."""
    corrected = "A " * 100_000
    started = time.process_time()
    styled = styled_title("{A} study", corrected)
    assert time.process_time() - started < 2.0
    assert styled == "{A} " * 100_000
    assert styled_title("{A} study", "A {x A} A } A") == "{A} {x A} {A} } A"


def test_the_reports_name_the_field_fix_writes_under_its_biblatex_spelling(
    tmp_path: Path,
) -> None:
    """A correction of journal (address) edits the entry's journaltitle (location) when
    only that is present; the reports named the field the correction came under."""
    path = tmp_path / "refs.bib"
    text = "@article{k, title = {T}, journaltitle = {A}, location = {P}}\n"
    bib = parse_bibtex(path, text)
    corrections = {"journal": "B", "address": "Q", "volume": "2"}
    shown = written_corrections(bib.entries[0], corrections)
    assert shown == {"journaltitle": "B", "location": "Q", "volume": "2"}
    plan = plan_fix(bib, text.encode(), {"k": corrections})
    assert {c.field: c.new for c in plan.changes} == shown


@pytest.mark.parametrize(
    "old",
    [
        '@misc{k,\n  title = "T",\n  url = "http://a"\n}\n',
        "@misc{k,\n  title = {T},\n  url = {http://a},\n}\n",
        "@misc(k,\n  title = {T},\n  url = {http://a}\n)\n",
    ],
)
def test_a_value_ending_in_a_backslash_keeps_its_closing_delimiter(
    old: str, tmp_path: Path
) -> None:
    """A URL and a new DOI ending in a backslash are read back as written by BibTeX and
    biber (which drop the space written after the backslash) and by bibtexparser 2, which
    took the backslash for an escape of the closing delimiter and dropped the entry."""
    import shutil

    import bibtexparser

    path = tmp_path / "refs.bib"
    path.write_text(old + "@misc{next, title = {N}}\n", encoding="utf-8")
    plan = plan_bytes(path, path.read_bytes(), {"k": {"url": "http://x\\", "doi": "10.1/y\\"}})
    verify_plan(plan, parse_bibtex)
    path.write_bytes(plan.new)
    library = bibtexparser.parse_string(plan.new.decode("utf-8"))
    assert not library.failed_blocks
    read = {e.key: {n: f.value.strip() for n, f in e.fields_dict.items()} for e in library.entries}
    assert read["k"]["url"] == "http://x\\" and read["k"]["doi"] == "10.1/y\\"
    assert read["next"] == {"title": "N"}
    biber = shutil.which("biber")
    assert biber is not None, "biber is missing (scripts/system-deps installs it)"
    done = subprocess.run(
        [biber, "--tool", "--output-file=out.bib", "refs.bib"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout
    out = (tmp_path / "out.bib").read_text(encoding="utf-8")
    assert "URL = {http://x\\}" in out and "DOI = {10.1/y\\}" in out and "{next," in out


@pytest.mark.parametrize("kind", ["fifo", "loop", "no folder"])
def test_a_file_that_is_no_longer_one_to_write_is_refused_without_waiting(
    tmp_path: Path, kind: str
) -> None:
    """The file read was read again before the write with no check of its kind: a FIFO put
    in its place held the write forever; a loop of symbolic links was a RuntimeError and a
    missing folder an error naming the temporary file."""
    path = tmp_path / "refs.bib"
    if kind == "fifo":
        os.mkfifo(path)
        said = "a named pipe"
    elif kind == "loop":
        path.symlink_to("other.bib")
        (tmp_path / "other.bib").symlink_to("refs.bib")
        said = "a loop of symbolic links"
    else:
        path = tmp_path / "gone" / "refs.bib"
        said = "no folder"

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("the write waited on the file")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(FixRefused, match=said):
            write_atomically(path, b"@misc{k}\n", expected=b"@misc{j}\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == []


def test_planning_reads_the_file_without_opening_a_fifo_put_in_its_place(tmp_path: Path) -> None:
    """--fix read the bibliography again with no check of its kind: a FIFO put in its
    place after the check held the run forever.  It is an error naming what is there."""
    from citewarden.files import NotRegularFile

    path = tmp_path / "refs.bib"
    os.mkfifo(path)

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError("planning waited on the file")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        with pytest.raises(NotRegularFile, match="a named pipe"):
            plan_file(path, {"k": {"year": "2002"}})
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize("stem", ["r" * 246, "é" * 125, "r" * 251])
def test_a_file_of_a_long_name_is_written_with_its_backup(tmp_path: Path, stem: str) -> None:
    """Names of a temporary file (.NAME.XXXXXXXX.tmp) or a backup (NAME.orig) longer than a
    file name may be made a file of a long name impossible to fix ("File name too long"):
    the NAME in them is cut to fit, and a temporary file left by a killed write of it is
    still found and removed."""
    target = tmp_path / f"{stem}.bib"
    target.write_bytes(b"@misc{a, title = {A}}\n")
    stale = tmp_path / f".{temp_stem(target.name)}.k3x9_q2a.tmp"
    stale.write_bytes(b"partial")
    old = time.time() - STALE_TEMP_AGE - 60
    os.utime(stale, (old, old))
    backup = write_atomically(target, b"@misc{a, title = {B}}\n")
    assert target.read_bytes() == b"@misc{a, title = {B}}\n"
    assert backup is not None and backup.read_bytes() == b"@misc{a, title = {A}}\n"
    assert backup.name.endswith(".orig") and len(os.fsencode(backup.name)) <= 255
    assert backup.name[:100] == target.name[:100]
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, backup.name])


#: A ``--fix`` write without hard links, killed (SIGKILL) right after it reserved the
#: backup's name and before it renamed the complete copy over it.
_KILLED_AT_RESERVATION = """
import errno, os, signal, sys
from pathlib import Path
from citewarden.fix.write import write_atomically

def no_link(*args, **kwargs):
    raise PermissionError(errno.EPERM, "hard links not supported")

real_replace = os.replace

def killed(src, dst, *args, **kwargs):
    if str(dst).endswith(".orig"):
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(src, dst, *args, **kwargs)

os.link = no_link
os.replace = killed
write_atomically(Path(sys.argv[1]), b"new\\n")
"""


@pytest.mark.parametrize("age", [write.STALE_TEMP_AGE + 60, 5.0], ids=["stale", "young"])
def test_an_empty_backup_left_by_a_killed_write_is_taken_again(tmp_path: Path, age: float) -> None:
    """A run killed between reserving ``refs.bib.orig`` and renaming the backup over it
    leaves the name empty: once older than a write could hold it, the next run takes the
    name again (where every later run moved on to ``refs.bib.orig.1``); a younger one may
    still be in use and is passed over."""
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_AT_RESERVATION, str(path)],
        capture_output=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "server")},
    )
    assert done.returncode == -signal.SIGKILL
    reserved = tmp_path / "refs.bib.orig"
    assert reserved.read_bytes() == b"" and path.read_bytes() == b"@misc{k, year = {2001}}\n"
    then = time.time() - age
    os.utime(reserved, (then, then))
    backup = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert backup is not None and backup.read_bytes() == b"@misc{k, year = {2001}}\n"
    assert path.read_bytes() == b"@misc{k, year = {2002}}\n"
    names = sorted(p.name for p in tmp_path.glob("refs.bib.orig*"))
    if age > write.STALE_TEMP_AGE:
        assert backup.name == "refs.bib.orig" and names == ["refs.bib.orig"]
    else:
        assert backup.name == "refs.bib.orig.1" and reserved.read_bytes() == b""
        assert names == ["refs.bib.orig", "refs.bib.orig.1"]


def test_an_old_backup_that_holds_bytes_is_never_taken_again(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    path.write_bytes(b"@misc{k, year = {2001}}\n")
    kept = tmp_path / "refs.bib.orig"
    kept.write_bytes(b"\n")
    then = time.time() - 10 * write.STALE_TEMP_AGE
    os.utime(kept, (then, then))
    backup = apply_plan(plan_file(path, {"k": {"year": "2002"}}))
    assert backup is not None and backup.name == "refs.bib.orig.1"
    assert kept.read_bytes() == b"\n"


def test_a_fifo_put_in_place_of_a_hard_linked_file_is_not_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A .bib with a second hard link is overwritten in place; a FIFO put in its place after
    its content was checked (another process, just then) is refused, where opening it
    waited for a reader for ever, Ctrl-C held until the write's end."""
    import threading

    path = tmp_path / "refs.bib"
    old = b"@misc{k, year = {2001}}\n"
    path.write_bytes(old)
    os.link(path, tmp_path / "linked.bib")
    real = write._now_in
    calls: list[Path] = []

    def racing(given: Path, target: Path, expected: bytes | None) -> bytes | None:
        found = real(given, target, expected)
        calls.append(target)
        if len(calls) == 2:  # the check just before the write: it held the old text
            target.unlink()
            os.mkfifo(target)
        return found

    monkeypatch.setattr(write, "_now_in", racing)
    outcome: list[BaseException | None] = []

    def fix() -> None:
        try:
            write_atomically(path, b"@misc{k, year = {2002}}\n", expected=old, backup=False)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    writer = threading.Thread(target=fix, daemon=True)
    writer.start()
    writer.join(10)
    if writer.is_alive():  # waiting for a reader: one comes, and the write goes on
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join(10)
    assert outcome and isinstance(outcome[0], FixRefused), outcome
    assert "named pipe" in outcome[0].reason
    assert (tmp_path / "linked.bib").read_bytes() == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
