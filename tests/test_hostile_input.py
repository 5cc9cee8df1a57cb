"""Hostile input: what a workspace can hold that must not exhaust memory, hang, or reach a
terminal or a .bib file unescaped.

Every ``check`` here runs as a subprocess under an address-space limit and a timeout, so
that a regression shows as a failed test (killed, MemoryError, timeout), not as a machine
that swaps or a suite that never ends.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import urllib.parse
from collections.abc import Mapping
from pathlib import Path

import pytest

from citewarden.files import FileTooLarge, NotRegularFile, read_regular
from citewarden.parsing.bibtex import MAX_EXPANSION, MAX_STRING_DEPTH, parse_bibtex
from cli_process import run_as_nobody, run_citewarden

ROOT = Path(__file__).resolve().parents[1]
#: Address-space cap of one checked run: the interpreter with every import takes a few
#: hundred MB; an unbounded expansion or read takes gigabytes.
MEMORY_LIMIT = 1 << 30
TIMEOUT = 60.0


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def bounded_check(
    args: list[str], cwd: Path, env: Mapping[str, str] | None = None, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[str]:
    """``citewarden check ARGS`` under the memory limit and a timeout."""
    return subprocess.run(
        [sys.executable, "-m", "citewarden", "check", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=_limit_memory,
    )


def json_check(args: list[str], cwd: Path) -> dict[str, object]:
    done = bounded_check(["--no-verify", "--format", "json", "--fail-on", "never", *args], cwd)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def diagnostics(report: Mapping[str, object]) -> list[dict[str, object]]:
    found = report["diagnostics"]
    assert isinstance(found, list)
    return found


# ---- 1. @string expansion --------------------------------------------------------------


def doubling_strings(levels: int) -> str:
    lines = ['@string{s0 = "ab"}']
    lines += [f"@string{{s{i} = s{i - 1} # s{i - 1}}}" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def test_doubling_string_chain_is_bounded_and_the_rest_is_read(tmp_path: Path) -> None:
    bib = doubling_strings(40)  # 2 * 2**40 characters if expanded in full
    bib += "@article{bomb, title = s40, year = 2020}\n"
    bib += "@article{good, title = {Fine}, author = {A. Person}, year = 2020}\n"
    (tmp_path / "refs.bib").write_text(bib)
    (tmp_path / "main.tex").write_text("\\cite{good}\\cite{bomb}\n\\bibliography{refs}\n")
    report = json_check(["main.tex"], tmp_path)
    found = diagnostics(report)
    too_long = [d for d in found if "expands to more than" in str(d["message"])]
    assert len(too_long) == 1
    # the first macro over the bound: 2 * 2**i characters > MAX_EXPANSION
    first = next(i for i in range(41) if 2 * 2**i > MAX_EXPANSION)
    assert too_long[0]["code"] == "bib-syntax"
    assert too_long[0]["line"] == first + 1
    assert f"'s{first}'" in str(too_long[0]["message"])
    # both entries are still defined: nothing dangles
    assert not [d for d in found if d["code"] == "dangling-citation"]


def test_concatenated_field_is_bounded_on_its_entry(tmp_path: Path) -> None:
    big = "x" * (MAX_EXPANSION // 4)
    bib = f"@string{{big = {{{big}}}}}\n"
    bib += "@article{long, title = big # big # big # big # big, year = 2020}\n"
    bib += "@article{after, title = {Read}}\n"
    parsed = parse_bibtex(tmp_path / "refs.bib", bib)
    assert [e.key for e in parsed.entries] == ["long", "after"]
    (problem,) = parsed.problems
    assert "'title' expands to more than" in problem.message
    assert bib[problem.location.span.start :].startswith("big # big")
    assert parsed.entries[1].get("title") == "Read"


def test_string_nesting_depth_is_bounded() -> None:
    lines = ['@string{s0 = "a"}']
    lines += [f'@string{{s{i} = s{i - 1} # "a"}}' for i in range(1, MAX_STRING_DEPTH + 3)]
    lines.append("@misc{k, title = s3}")
    text = "\n".join(lines) + "\n"
    parsed = parse_bibtex(Path("deep.bib"), text)
    deep = [p for p in parsed.problems if "deep" in p.message]
    assert len(deep) == 1
    assert f"'s{MAX_STRING_DEPTH}'" in deep[0].message
    assert "s31" in parsed.strings and f"s{MAX_STRING_DEPTH}" not in parsed.strings
    assert parsed.entries[0].get("title") == "aaaa"


# ---- 2. special and huge files ---------------------------------------------------------


PAPER = "\\documentclass{article}\n\\begin{document}\n\\cite{a}\n%s\\bibliography{refs}\n\\end{document}\n"
REFS = "@misc{a, title = {A}}\n"


def test_thousands_of_citation_macros_are_read_in_one_pass(tmp_path: Path) -> None:
    """Each definition used to rebuild the reader's table of commands: 3 000 wrappers took
    over two minutes (bench/latex_macros_bench.py).  Every one of them still cites from
    its definition on."""

    def name(i: int) -> str:
        return "".join(chr(ord("a") + int(d)) for d in str(i))

    lines = ["\\documentclass{article}"]
    lines += [f"\\newcommand{{\\cm{name(i)}}}[1]{{\\cite{{#1}}}}" for i in range(3000)]
    lines += [f"\\newcites{{l{name(i)}}}{{List {i}}}" for i in range(1000)]
    lines += [
        "\\begin{document}",
        "\\cmcjjj{late} \\cmb{early} \\citeljjj{listed} \\cmzz{never}",
        "\\bibliography{refs}\\bibliographyljjj{refs}",
        "\\end{document}",
    ]
    (tmp_path / "main.tex").write_text("\n".join(lines) + "\n")
    (tmp_path / "refs.bib").write_text("@misc{early, title={E}}\n@misc{listed, title={L}}\n")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    # \cmzz is defined nowhere: not a citation; \cmcjjj (the last wrapper) cites "late";
    # "listed" is cited in the last list, which reads refs.bib too
    assert [(d["code"], str(d["message"]).split(";")[0]) for d in found] == [
        ("dangling-citation", "citation key 'late' is not defined in any bibliography")
    ]


def test_a_long_run_of_name_characters_in_an_entry_is_read_in_one_pass(tmp_path: Path) -> None:
    """A 200 000-character word where a field should start (``-->-->...``): the one-pass
    row pattern used to try a field name at every place of the run, scanning the rest of
    it each time (hours for this one).  The entry's problem is reported at its place and
    the next entry is read."""
    run = "-->" * 66_667
    (tmp_path / "refs.bib").write_text(
        "@article{a,\n  title = {T},\n " + run + "\n}\n\n@misc{b, title = {B}}\n"
    )
    (tmp_path / "main.tex").write_text(PAPER % "\\cite{b}\n")
    report = json_check(["main.tex"], tmp_path)
    found = [(d["code"], d["file"], d["line"]) for d in diagnostics(report)]
    assert found == [("bib-syntax", "refs.bib", 4)], found  # at the '}' where '=' was due
    assert "expected '=' after field name" in str(diagnostics(report)[0]["message"])


def test_a_long_run_of_equals_signs_after_a_key_is_read_in_one_pass(tmp_path: Path) -> None:
    """``@misc{k=====...`` with no comma: the pattern of a key holding "=" (which BibTeX
    reads as the key) tried every "=" of the run as the one in the key, scanning the rest
    of it each time (about 4 minutes for this one).  The entry's problem is reported at
    its place and the next entry is read."""
    (tmp_path / "refs.bib").write_text(
        "@misc{k"
        + "=" * 100_000
        + "}\n\n"
        + REFS
        + "@misc{b, title = {B}}\n@misc{c=d, title = {C}}\n"
    )
    (tmp_path / "main.tex").write_text(PAPER % "\\cite{b,c=d}\n")
    report = json_check(["main.tex"], tmp_path)
    found = [(d["code"], d["file"], d["line"]) for d in diagnostics(report)]
    assert found == [("bib-syntax", "refs.bib", 1)], found
    assert "missing entry key" in str(diagnostics(report)[0]["message"])


def test_a_long_run_of_spaces_in_an_author_name_is_split_in_one_pass(tmp_path: Path) -> None:
    """Spaces inside one name of an author list: the "et al." at its end was looked for
    with white space on both sides of an optional comma, and " and " from every place of
    the run (minutes for 4 000 spaces, and for the 200 000 here).  The entries are still checked."""
    spaces = " " * 200_000
    (tmp_path / "refs.bib").write_text(
        "@article{a, author = {Smith, John" + spaces + "Jones and others},"
        " title = {T}, journal = {J}, year = {2020}}\n"
        # braces in the list: the split walks the list itself, trying " and " at each place
        "@article{b, author = {{Group}" + spaces + "Jones and Ada Quill},"
        " title = {U}, journal = {J}, year = {2020}}\n"
    )
    (tmp_path / "main.tex").write_text(PAPER % "\\cite{b}\n")
    done = bounded_check(
        ["--offline", "--format", "json", "--fail-on", "never", "main.tex"], tmp_path
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    entries = json.loads(done.stdout)["entries"]
    assert [(e["key"], e["status"]) for e in entries] == [("a", "unverified"), ("b", "unverified")]


def test_runs_of_spaces_around_an_optional_sign_are_read_in_one_pass(tmp_path: Path) -> None:
    """``\\s*=?\\s*`` (``\\let\\a = \\b``), ``\\s*:?\\s*`` (``PMID: 123``) and
    ``[ \\t]*[,;]?[ \\t]*`` (a field after an entry's closing brace) tried every split of a
    run of spaces: 27 s, 90 s and 150 s for the 100 000 spaces of each here (found by
    bench/fuzz_inputs.py).  Each run is now one."""
    spaces = " " * 100_000
    (tmp_path / "refs.bib").write_text(
        "@article{a, title = {T}, journal = {J}, year = {2020}, pmid = {PMID" + spaces + "x}}\n"
        "@misc{b, title = {B}}" + spaces + "}\n"
    )
    (tmp_path / "main.tex").write_text(PAPER % ("\\let\\mycite" + spaces + "x\n\\cite{a,b}\n"))
    done = bounded_check(
        ["--offline", "--format", "json", "--fail-on", "never", "main.tex"], tmp_path
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert [e["key"] for e in report["entries"]] == ["a", "b"]
    assert not [d for d in diagnostics(report) if d["code"] == "dangling-citation"]


def test_white_space_on_both_sides_of_an_optional_part_is_read_once(tmp_path: Path) -> None:
    """``\\usepackage`` and ``\\documentclass`` with spaces on both sides of a missing
    ``[options]`` (25 s for 100 000 spaces), ``\\addbibresource[glob= ...]`` (77 s for
    500 spaces before a stray character) and a pandoc ``nocite:`` line whose value ends in
    spaces before a last word (2 minutes for 100 000): each tried every split of the run
    (bench/fuzz_inputs.py, and a scan of every pattern for neighbouring repeats).  The
    project is read and its citations checked."""
    spaces = " " * 100_000
    preamble = "\\documentclass" + spaces + "x\n\\usepackage" + spaces + "x\n"
    preamble += "\\usepackage[bibunits" + spaces[:2000] + "!]{biblatex}\n"
    preamble += "\\addbibresource[glob=" + spaces[:500] + "!]{refs.bib}\n"
    (tmp_path / "main.tex").write_text(preamble + PAPER % "\\cite{b}\n")
    (tmp_path / "refs.bib").write_text(REFS + "@misc{b, title = {B}}\n")
    (tmp_path / "paper.md").write_text(
        '---\ntitle: T\nnocite: "@a' + spaces + 'x"\nbibliography: refs.bib\n---\n\nText [@b].\n'
    )
    done = bounded_check(
        ["--no-verify", "--format", "json", "--fail-on", "never", "main.tex", "paper.md"], tmp_path
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    report = json.loads(done.stdout)
    assert not [d for d in diagnostics(report) if d["code"] == "dangling-citation"]


@pytest.mark.parametrize("comment", ["", "% note"], ids=["spaces", "spaces-and-comment"])
def test_an_entry_whose_last_gap_runs_to_the_next_entry_is_read_in_one_pass(
    tmp_path: Path, comment: str
) -> None:
    """An unclosed entry whose body ends in a run of spaces, or spaces and a comment, up to
    the next entry: the one-pass row pattern read the rest of the gap from every place of it
    and failed (23.7 s for the 147 kB case bench/fuzz_inputs.py made, minutes for these
    200 000 spaces).  The entry's problem is reported and the next entry is read, as BibTeX
    reads it: after spaces alone BibTeX takes ``@misc`` for a field name of ``a``, an error
    on the file's last line, where it stops (b is not found, checked with BibTeX); after a
    comment (``%`` cannot start a field name) it reads b."""
    gap = " " * 100_000 + comment + " " * 100_000
    (tmp_path / "refs.bib").write_text(
        "@article{a,\n  title = {T}," + gap + "\n@misc{b, title = {B}}\n"
    )
    (tmp_path / "main.tex").write_text(PAPER % "\\cite{b}\n")
    report = json_check(["main.tex"], tmp_path)
    found = [(d["code"], d["file"]) for d in diagnostics(report)]
    assert ("bib-syntax", "refs.bib") in found, found
    assert (("dangling-citation", "main.tex") in found) is (not comment), found


def test_an_entry_followed_by_many_comment_lines_is_read_in_linear_time(tmp_path: Path) -> None:
    """A field left without its value, then 40 000 short comment lines up to the next entry:
    the row pattern read the rest of the comments again from each of them (0.8 s for 3 000
    lines, about 2.5 minutes for these).  The entry's problem is reported and the next entry
    is read, well within the time limit."""
    comments = "%)\n\n" * 40_000
    (tmp_path / "refs.bib").write_text(
        "@article{a, title = " + comments + "@misc{b, title = {B}}\n", encoding="utf-8"
    )
    (tmp_path / "main.tex").write_text(PAPER % "\\cite{b}\n")
    report = json_check(["main.tex"], tmp_path)
    found = [(d["code"], d["file"]) for d in diagnostics(report)]
    assert ("bib-syntax", "refs.bib") in found, found
    assert ("dangling-citation", "main.tex") not in found, found


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` with the package on the path, under the timeout."""
    return subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def test_a_rate_limit_interval_header_is_read_in_one_pass() -> None:
    """``X-Rate-Limit-Interval: 5`` followed by 200 000 spaces and a stray character: the
    unit between two runs of spaces made the pattern try every split (minutes).  Run in a
    child process, so that a pattern that does not end is stopped by the timeout."""
    code = (
        "from citewarden.verify.rate_limit import parse_interval; "
        "print(parse_interval('5' + ' ' * 200_000 + 'x'), parse_interval(' 500 ms '))"
    )
    done = run_python(code)
    assert done.stdout.split() == ["None", "0.5"], done.stderr


def test_long_runs_in_a_title_a_sentence_and_a_glob_are_read_in_one_pass(tmp_path: Path) -> None:
    """Three patterns that split a long run in every way, each minutes on these inputs: a
    record's title word of 1 990 capitals (a BibTeX entry written for add-reference; 4 000
    took 243 s, and a longer title is no record's: ``records.MAX_TEXT``), a
    citing sentence of ``\\citecitecite...`` (its query words) and a glob of a comma run
    after ``{`` (``\\addbibresource[glob]``).  Run in a child process, so that a pattern
    that does not end is stopped by the timeout."""
    code = (
        "from citewarden.addref.bibtex_out import record_fields; "
        "from citewarden.addref.keys import context_words; "
        "from citewarden.project_links import glob_files; "
        "from citewarden.verify.records import WorkRecord; "
        "from pathlib import Path; "
        "title = 'DNA ' + 'A' * 1990 + '}'; "
        "fields = record_fields(WorkRecord(source='crossref', title=title)); "
        "print(fields['title'][:10], len(fields['title'])); "
        "print(context_words('\\\\' + 'cite' * 25_000 + ' protein folding')); "
        f"print(glob_files('{{' + ',' * 100_000, Path({str(tmp_path)!r})))"
    )
    done = run_python(code)
    lines = done.stdout.splitlines()
    assert lines[:2] == ["{DNA} {AAA 1998", "('protein', 'folding')"], done.stderr
    assert lines[2] == "([], True)", done.stderr  # no file, and that is all of them


def test_thousands_of_citations_among_unclosed_brackets_get_their_sentences(
    tmp_path: Path,
) -> None:
    """Markdown with 6 000 citations among unclosed ``[``: the link pattern of the citing
    sentence scanned from every ``[`` to the end of its window (over a minute here), and
    the check whether pandoc versions read it alike from every ``[`` to the next ``<``.
    Each citation still gets its sentence."""
    parts = [f"see @k{i} " + "[ x " * 40 for i in range(6000)] + ["a < b <i>"]
    (tmp_path / "paper.md").write_text("---\nbibliography: refs.bib\n---\n" + " ".join(parts))
    (tmp_path / "refs.bib").write_text("@misc{k0, title = {Zero}}\n")
    report = json_check(["paper.md"], tmp_path)
    citations = report["citations"]
    assert isinstance(citations, dict)
    cited = citations["cited"]
    assert len(cited) == 6000 and len(citations["dangling"]) == 5999
    # "@k0" is an author-in-text citation: the reader sees the author's name there
    assert cited[0]["context"]["sentence"].startswith("see [author] [ x [ x")
    assert all("see [author] [ x" in c["context"]["sentence"] for c in cited), cited[:3]


def test_a_block_right_before_a_bar_in_a_tables_header_row_is_read_once(tmp_path: Path) -> None:
    """A raw TeX block or a block element's tag right before a ``|`` of a pipe table's
    header row (``\\maketitle| @a | y |``): the cut of the row's cells at it never moved
    past that ``|``, and added the same cut again and again, without end and without bound
    on memory.  The keys are those pandoc 2.17, 3.6.1 and 3.9 cite."""
    (tmp_path / "paper.md").write_text(
        "\\maketitle| @a | y |\n|---|---|\n\n\\begin{center}\\end{center}| @b | z |\n"
        "|---|---|\n\nx \\par| @c | w |\n|---|---|\n\n| \\par| @d |\n|---|\n\n"
        "<div>| @e | v |\n|---|---|\n"
    )
    report = json_check(["paper.md"], tmp_path)
    citations = report["citations"]
    assert isinstance(citations, dict)
    assert [c["key"] for c in citations["cited"]] == ["a", "b", "c", "e"]


def test_input_of_dev_zero_is_refused_at_the_include(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "\\input{/dev/zero}\n")
    (tmp_path / "refs.bib").write_text(REFS)
    found = diagnostics(json_check(["main.tex"], tmp_path))
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert problem["file"] == "main.tex" and problem["line"] == 4
    assert "'/dev/zero' cannot be read: a device, not a regular file" in str(problem["message"])


def test_overlong_names_are_quoted_by_their_head_and_length(tmp_path: Path) -> None:
    """A file name longer than any path, and keys of 10 000 characters: each message that
    names them quotes their first characters and says how long they are."""
    long_include, long_key = "i" * 5000, "k" * 10_000
    (tmp_path / "main.tex").write_text(PAPER % f"\\input{{{long_include}}}\\cite{{{long_key}}}\n")
    (tmp_path / "refs.bib").write_text(
        REFS + f"@misc{{{long_key}x, title = {{X}}}}\n@misc{{{long_key}x, title = {{Y}}}}\n"
    )
    found = diagnostics(json_check(["main.tex", "refs.bib"], tmp_path))
    by_code = {str(d["code"]): str(d["message"]) for d in found}
    assert by_code["file-unreadable"].startswith("included file 'iii")
    assert "...' (5,000 characters) cannot be read: " in by_code["file-unreadable"]
    # an include that cannot be read hides what it cites: no entry is an orphan then
    assert "orphan-entry" not in by_code
    (tmp_path / "main.tex").write_text(PAPER % f"\\cite{{{long_key}}}\n")
    found += diagnostics(json_check(["main.tex", "refs.bib"], tmp_path))
    by_code = {str(d["code"]): str(d["message"]) for d in found}
    assert set(by_code) >= {"file-unreadable", "dangling-citation", "orphan-entry", "duplicate-key"}
    assert "...' (10,000 characters) is not defined" in by_code["dangling-citation"]
    assert "(10,001 characters)" in by_code["duplicate-key"]
    for d in found:
        assert len(str(d["message"])) < 1000, d["code"]


def test_a_glob_resource_that_would_walk_the_disk_is_not_followed(tmp_path: Path) -> None:
    """A pattern such as ``/*/*/*/*.bib`` would look at every folder below /: the
    expansion stops after its budget of directory entries (here one folder holds more), says
    so on the link, and reports nothing dangling (which keys it gives is not known)."""
    from citewarden.project_links import MAX_GLOB_ENTRIES

    wide = tmp_path / "wide" / "deeper"
    wide.mkdir(parents=True)
    for i in range(MAX_GLOB_ENTRIES + 10):
        (wide / f"e{i:05d}").touch()
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\usepackage{biblatex}\n"
        "\\addbibresource[glob]{*/*/*.bib}\n"
        "\\begin{document}\\cite{a}\\end{document}\n"
    )
    found = diagnostics(json_check(["main.tex"], tmp_path))
    assert [d["code"] for d in found] == ["bibliography-unresolved"]
    assert "directory entries to follow" in str(found[0]["message"])


def test_bibliography_symlinked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "")
    (tmp_path / "refs.bib").symlink_to("/dev/zero")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert problem["line"] == 4
    assert "bibliography file 'refs' cannot be read: a device" in str(problem["message"])
    # keys cannot be known, so nothing is called dangling
    assert not [d for d in found if d["code"] == "dangling-citation"]


def test_fifo_in_the_workspace_never_blocks(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "")
    (tmp_path / "refs.bib").write_text(REFS)
    os.mkfifo(tmp_path / "f.bib")  # nobody ever writes: opening it to read would block
    found = diagnostics(json_check(["."], tmp_path))
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert problem["file"] == "f.bib"
    assert "a named pipe (FIFO), not a regular file" in str(problem["message"])


def test_fifo_named_on_the_command_line_is_a_usage_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "f.bib")
    done = bounded_check(["--no-verify", "f.bib"], tmp_path)
    assert done.returncode == 2
    assert "cannot read f.bib: a named pipe (FIFO)" in done.stderr


def test_file_over_the_size_cap_is_reported_not_read(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "")
    (tmp_path / "refs.bib").write_text(REFS + "% padding\n" * 20_000)  # ~200 kB
    (tmp_path / ".citewarden.toml").write_text("max_file_mb = 0.1\n")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert "larger than the 0.1 MB limit (setting max_file_mb)" in str(problem["message"])
    (tmp_path / ".citewarden.toml").write_text("max_file_mb = 1\n")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    assert not [d for d in found if d["code"] == "file-unreadable"]


def test_read_regular_refuses_before_opening_and_caps_the_read(tmp_path: Path) -> None:
    with pytest.raises(NotRegularFile, match="a device"):
        read_regular(Path("/dev/zero"), 1 << 20)
    with pytest.raises(NotRegularFile, match="a directory"):
        read_regular(tmp_path, 1 << 20)
    big = tmp_path / "big.bib"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(FileTooLarge, match="larger than"):
        read_regular(big, 1024)
    assert read_regular(big, 2048) == b"x" * 2048


# ---- 9. unreadable includes ------------------------------------------------------------


def test_unreadable_include_says_unreadable_not_missing() -> None:
    # pytest's own temporary folders are private to their owner; this one others may enter
    tmp_path = Path(tempfile.mkdtemp(prefix="citewarden-unreadable-"))
    try:
        tmp_path.chmod(0o755)
        (tmp_path / "main.tex").write_text(PAPER % "\\input{secret}\n")
        (tmp_path / "refs.bib").write_text(REFS)
        secret = tmp_path / "secret.tex"
        secret.write_text("\\cite{a}\n")
        secret.chmod(0)
        args = ["check", "--no-verify", "--format", "json", "--fail-on", "never", "main.tex"]
        if os.geteuid() == 0:  # root reads any file: check as an unprivileged user would
            done = run_as_nobody(args, tmp_path)
        else:
            done = run_citewarden(args, tmp_path)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        found = diagnostics(json.loads(done.stdout))
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)
    assert not [d for d in found if d["code"] == "missing-include"]
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert "included file 'secret' cannot be read: Permission denied" in str(problem["message"])


def test_include_that_is_a_directory_says_unreadable(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "\\input{chapter.tex}\n")
    (tmp_path / "refs.bib").write_text(REFS)
    (tmp_path / "chapter.tex").mkdir()
    found = diagnostics(json_check(["main.tex"], tmp_path))
    assert not [d for d in found if d["code"] == "missing-include"]
    (problem,) = [d for d in found if d["code"] == "file-unreadable"]
    assert "'chapter.tex' cannot be read: a directory" in str(problem["message"])


# ---- 7. control and bidirectional characters in every output ---------------------------

ESC_KEY = "a\x1b]0;owned\x07\x1b[2J"  # sets the window title, then clears the screen
BIDI_KEY = "evil\u202ekcatta"  # shows as "evilattack", reversed
HOSTILE = (
    "\\documentclass{article}\n\\begin{document}\n"
    f"\\cite{{{ESC_KEY}}} \\cite{{{BIDI_KEY}}} \\cite{{x\x9b31m}}\n"
    "\\bibliography{refs}\n\\end{document}\n"
)
RAW = ("\x1b", "\x07", "\u202e", "\x9b")


def hostile_project(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(HOSTILE)
    (tmp_path / "refs.bib").write_text(f"@misc{{{BIDI_KEY}x, title = {{T\u202eT}}}}\n")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html"])
def test_no_output_carries_raw_control_or_bidi_characters(tmp_path: Path, fmt: str) -> None:
    hostile_project(tmp_path)
    done = bounded_check(["--no-verify", "--format", fmt, "main.tex"], tmp_path)
    assert done.returncode == 1, done.stderr  # the dangling keys are errors
    for ch in RAW:
        assert ch not in done.stdout and ch not in done.stderr, (fmt, repr(ch))
    if fmt in ("text", "html"):  # shown, as visible escapes
        assert "\\x1b]0;owned\\x07" in done.stdout
        assert "evil\\u202ekcatta" in done.stdout
    if fmt == "json":  # JSON escapes: the data itself is unchanged
        data = json.loads(done.stdout)
        keys = {d["key"] for d in data["citations"]["dangling"]}
        assert {ESC_KEY, BIDI_KEY} <= keys
    if fmt == "sarif":  # messages and snippets show the escapes
        results = json.loads(done.stdout)["runs"][0]["results"]
        texts = [r["message"]["text"] for r in results]
        texts += [
            loc["physicalLocation"]["region"].get("snippet", {}).get("text", "")
            for r in results
            for loc in r["locations"]
        ]
        for ch in RAW:
            assert not [t for t in texts if ch in t]
        assert any("\\x1b]0;owned\\x07" in t for t in texts)
        assert any("evil\\u202ekcatta" in t for t in texts)


#: keys that show as "key" and "ab": a tag character (U+E0041), a zero-width space, a soft
#: hyphen, a word joiner and a byte-order mark, each drawn as nothing
HIDDEN_KEYS = ("key\U000e0041", "a\u200bb\u00ad\u2060\ufeff")
HIDDEN = ("\U000e0041", "\u200b", "\u00ad", "\u2060", "\ufeff")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html"])
def test_no_output_carries_raw_invisible_characters(tmp_path: Path, fmt: str) -> None:
    dangling, orphan = HIDDEN_KEYS
    (tmp_path / "main.tex").write_text(f"\\cite{{{dangling}}}\n\\bibliography{{refs}}\n")
    (tmp_path / "refs.bib").write_text(f"@misc{{{orphan}, title = {{T}}}}\n")
    done = bounded_check(["--no-verify", "--format", fmt, "main.tex"], tmp_path)
    assert done.returncode == 1, done.stderr
    for ch in HIDDEN:
        assert ch not in done.stdout and ch not in done.stderr, (fmt, repr(ch))
    if fmt == "json":  # JSON escapes: the data itself is unchanged
        data = json.loads(done.stdout)
        assert dangling in {d["key"] for d in data["citations"]["dangling"]}
        return
    if fmt == "sarif":
        runs = json.loads(done.stdout)["runs"]
        shown = "\n".join(r["message"]["text"] for r in runs[0]["results"])
    else:
        shown = done.stdout
    assert "key\\U000e0041" in shown
    assert "a\\u200bb\\xad\\u2060\\ufeff" in shown


def test_visible_shows_every_format_character_and_keeps_scripts_and_emoji() -> None:
    import unicodedata

    from citewarden.safe_text import visible

    hidden = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Cf"]
    assert [repr(ch) for ch in hidden if visible(f"a{ch}b") == f"a{ch}b"] == []
    assert visible("k\U000e0041") == "k\\U000e0041"
    assert visible("k\u200dey \u2764\ufe0f a\ufe0f") == "k\\u200dey \u2764\ufe0f a\\ufe0f"
    kept = [
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",  # a family: joined emoji
        "\U0001f3f3\ufe0f\u200d\U0001f308",  # a rainbow flag
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, with its non-joiner
        "Gödel, Erdős, 中文, Ελληνικά",
    ]
    assert [visible(text) for text in kept] == kept


def test_diff_names_holding_invisible_characters_are_quoted_for_patch() -> None:
    """A file name with a zero-width space or a soft hyphen went into a diff's header as
    it is, and the header's escapes then named another file."""
    from citewarden.safe_text import c_quoted, visible_lines

    assert c_quoted("a/r\u200bs.bib") == '"a/r\\342\\200\\213s.bib"'
    assert c_quoted("b/\u00adrefs.bib") == '"b/\\302\\255refs.bib"'
    quoted = c_quoted("a/\U0001f468\u200d\U0001f469.bib")
    assert quoted is not None and visible_lines(quoted) == quoted
    assert c_quoted("a/caf\u00e9.bib") is None


def test_progress_line_escapes_its_note() -> None:
    from citewarden.report.progress import Progress

    bar = Progress(10, "verifying", width=80)
    line = bar.line(note=ESC_KEY)
    assert "\x1b" not in line and "\x07" not in line
    assert "\\x1b" in line


def unescaped(pattern: str, markdown: str) -> bool:
    """True when ``pattern`` occurs in ``markdown`` without a backslash before it."""
    return re.search(r"(?<!\\)(?:" + pattern + ")", markdown) is not None


def test_hover_markdown_links_only_https_and_escapes_markup(tmp_path: Path) -> None:
    from citewarden.lsp.entries import markdown

    bib = (
        "@misc{k1, title = {Click ![x](https://evil.example/p.png) <img src=x>}, "
        "doi = {10.1/x) [run](command:workbench.action.terminal.new}}\n"
        "@misc{k2, title = {T}, url = {command:workbench.action.terminal.new}}\n"
        "@misc{k3, title = {T}, url = {file:///etc/passwd}}\n"
        "@misc{k4, title = {T}, url = {https://example.org/a b)(c}}\n"
        "@misc{k5, title = {T\x1b[2J}, url = {http://example.org/plain}}\n"
    )
    entries = {e.key: e for e in parse_bibtex(tmp_path / "refs.bib", bib).entries}
    one = markdown(entries["k1"])
    assert not unescaped(r"!\[|<", one)  # no image, no HTML
    assert not unescaped(r"\]\(command:", one)
    assert "(https://doi.org/10.1/x%29%20%5Brun%5D%28command:workbench" in one
    for key in ("k2", "k3", "k5"):
        shown = markdown(entries[key])
        assert not unescaped(r"\]\(|<", shown), shown
    assert "\x1b" not in markdown(entries["k5"])
    assert "](https://example.org/a%20b%29%28c)" in markdown(entries["k4"])


def test_hover_markdown_links_no_bare_address_of_a_field(tmp_path: Path) -> None:
    """A bare address in a title, author or venue (http://, www., an e-mail address) is
    no link a GFM renderer (VS Code's hovers) makes of it: a title could send the reader
    to a page the entry never named, over plain http too."""
    from citewarden.lsp.entries import markdown
    from citewarden.lsp.verify_hover import hover_markdown
    from citewarden.model import Match, Status, Tier, Verdict

    bib = (
        "@misc{k, title = {Log in at http://evil.example/login or www.evil.example},\n"
        "  author = {Doe, J. at me@evil.example}, journal = {ftp://evil.example/j}}\n"
    )
    shown = markdown(parse_bibtex(tmp_path / "refs.bib", bib).entries[0])
    match = Match("openalex", 0.9, url="https://openalex.org/W1", title="See https://x.example")
    record = hover_markdown(Verdict("k", Status.VERIFIED, Tier.D, match=match))
    for text in (shown, record.replace("](https://openalex.org/W1)", "")):
        assert not unescaped(r"[a-z]://|www\.|@evil", text), text
    assert "http\\://evil.example/login or www\\.evil.example" in shown
    assert "](https://openalex.org/W1)" in record


def test_a_records_line_breaks_read_as_spaces_in_a_hover() -> None:
    """A source's title, authors, venue and abstract broken over lines (Crossref's titles
    and JATS abstracts are) read with a space for each run of breaks and blanks, where each
    break was shown as a \\x0a escape."""
    from citewarden.context.relevance import Work
    from citewarden.context.sentence import CitingSentence
    from citewarden.lsp.context_hover import _context_lines
    from citewarden.lsp.verify_hover import hover_markdown
    from citewarden.model import Match, Status, Tier, Verdict

    match = Match(
        "crossref",
        0.9,
        url="https://doi.org/10.1/x",
        title="A title\n\t\t\tbroken",
        authors=("Doe,\nJane", "Roe"),
        venue="Journal\r\nof X",
    )
    shown = hover_markdown(Verdict("k", Status.VERIFIED, Tier.D, match=match))
    assert "[A title broken](https://doi.org/10.1/x) — Doe, Jane et al., Journal of X" in shown
    sentence = CitingSentence("We cite it.", "", "")
    lines = _context_lines(sentence, Work("T", "First\n\nsecond  part."), 0.5, "crossref")
    assert lines[-1] == "Abstract (Crossref): First second part."
    assert "\\x0a" not in shown + "".join(lines)


def test_a_citing_sentence_starting_like_a_block_is_shown_as_text_in_the_hover() -> None:
    """The hover quotes the citing sentence as '> sentence': one starting with '1. ', '2) ',
    '- ', '+ ', '# ' or '> ' rendered as a list, a heading or a nested quote inside the
    quote; its leading marker is escaped, and only at the start."""
    from citewarden.context.relevance import Work
    from citewarden.context.sentence import CitingSentence
    from citewarden.lsp.context_hover import _context_lines

    def quoted(text: str) -> str:
        return _context_lines(CitingSentence(text, "", ""), Work("T", ""), 0.5)[1]

    assert quoted("1. We cite it, 2. again.") == "> 1\\. We cite it, 2. again."
    assert quoted("2019) showed it.") == "> 2019\\) showed it."
    assert quoted("- We cite it - twice.") == "> \\- We cite it - twice."
    assert quoted("+ We cite it.") == "> \\+ We cite it."
    assert quoted("# We cite it.") == "> \\# We cite it."
    assert quoted("> We cite it.") == "> \\> We cite it."
    assert quoted("=== We cite it.") == "> \\=== We cite it."
    assert quoted("We cite 1. it.") == "> We cite 1. it."
    assert quoted("  - We cite it.") == "> \\- We cite it."


def test_verification_hover_links_only_https_records() -> None:
    from citewarden.findings.verdicts import record_url
    from citewarden.lsp.verify_hover import hover_markdown
    from citewarden.model import Match, Status, Tier, Verdict

    def verdict(url: str) -> Verdict:
        match = Match("openalex", 0.9, url=url, title="A [t](command:x)\x1b]8;;file:///\x07")
        return Verdict("k", Status.VERIFIED, Tier.D, match=match)

    for url in ("command:workbench.action.terminal.new", "file:///etc/passwd", "http://x.org"):
        assert record_url(verdict(url)) is None
        text = hover_markdown(verdict(url))
        assert not unescaped(r"\]\(", text) and "\x1b" not in text
    text = hover_markdown(verdict("https://openalex.org/W1"))
    assert "](https://openalex.org/W1)" in text


def test_hovers_show_a_huge_value_by_its_head_and_length(tmp_path: Path) -> None:
    """A title, author list, venue and DOI of 100 000 characters and more (a pasted page)
    made a hover of 240 kB; each value is cut near 1 000 characters, its length said, and
    a DOI that long is shown, not linked."""
    from citewarden.lsp.entries import markdown
    from citewarden.lsp.verify_hover import hover_markdown
    from citewarden.model import Match, Status, Tier, Verdict

    words = "Word " * 40_000
    bib = (
        f"@misc{{k, title = {{{words}}}, author = {{{'Doe, J and ' * 5000}Roe, K}},\n"
        f"  journal = {{{words}}}, doi = {{10.1234/{'x' * 100_000}}}}}\n"
    )
    entry = parse_bibtex(tmp_path / "refs.bib", bib).entries[0]
    shown = markdown(entry)
    assert len(shown) < 5000
    assert shown.count("characters)") == 4  # title, authors, venue, DOI
    assert "… (199,999 characters)" in shown and "(https://doi.org/" not in shown
    from citewarden.lsp.entries import detail

    assert len(detail(entry)) < 250 and detail(entry).startswith("Doe et al. Word Word")
    match = Match("openalex", 0.9, url="https://openalex.org/W1", title=words, venue=words)
    record = hover_markdown(Verdict("k", Status.VERIFIED, Tier.D, match=match))
    assert len(record) < 3000 and "](https://openalex.org/W1)" in record


def test_corrections_with_control_or_bidi_characters_are_refused(tmp_path: Path) -> None:
    from citewarden.fix.plan import plan_fix

    text = "@article{k, title = {Old}, journal = {J}, year = {2000}}\n"
    original = text.encode()
    bib = parse_bibtex(tmp_path / "refs.bib", text)
    plan = plan_fix(bib, original, {"k": {"title": "New\x1b[31m", "journal": "J\u202eX"}})
    assert not plan.changed
    reasons = sorted(s.reason for s in plan.skipped)
    assert reasons == [
        "corrected value holds control or bidirectional characters (\\u202e)",
        "corrected value holds control or bidirectional characters (\\x1b)",
    ]
    plan = plan_fix(bib, original, {"k": {"year": "2001", "title": "Line one\nline two"}})
    assert plan.changed and not plan.skipped


# ---- 9. --fix keeps owner, mode and hard links -----------------------------------------


def test_fix_write_keeps_owner_mode_and_hard_links(tmp_path: Path) -> None:
    from citewarden.fix.write import write_atomically

    bib = tmp_path / "refs.bib"
    bib.write_bytes(b"@misc{k, year = {2000}}\n")
    bib.chmod(0o640)
    link = tmp_path / "shared.bib"
    os.link(bib, link)
    before = bib.stat()
    if os.geteuid() == 0:  # a file of another user, in a directory root writes to
        os.chown(bib, 4321, 4321)
        before = bib.stat()
    backup = write_atomically(bib, b"@misc{k, year = {2001}}\n", expected=bib.read_bytes())
    after = bib.stat()
    assert link.read_bytes() == b"@misc{k, year = {2001}}\n"  # the link sees the change
    assert after.st_ino == before.st_ino and after.st_nlink == 2
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    assert stat.S_IMODE(after.st_mode) == 0o640
    assert backup is not None and backup.read_bytes() == b"@misc{k, year = {2000}}\n"
    assert (backup.stat().st_uid, stat.S_IMODE(backup.stat().st_mode)) == (before.st_uid, 0o640)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["refs.bib", "refs.bib.orig", "shared.bib"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_write_keeps_the_owner_of_a_single_link_file(tmp_path: Path) -> None:
    from citewarden.fix.write import write_atomically

    bib = tmp_path / "refs.bib"
    bib.write_bytes(b"@misc{k, year = {2000}}\n")
    os.chown(bib, 4321, 4322)
    write_atomically(bib, b"@misc{k, year = {2001}}\n", expected=bib.read_bytes())
    st = bib.stat()
    assert (st.st_uid, st.st_gid) == (4321, 4322)
    assert bib.read_bytes() == b"@misc{k, year = {2001}}\n"


# ---- 9. bibliographies outside the project root ---------------------------------------


def test_bibliography_outside_the_root_is_flagged_and_kept_out_of_sarif(tmp_path: Path) -> None:
    paper = tmp_path / "project" / "paper"
    paper.mkdir(parents=True)
    (tmp_path / "shared.bib").write_text(
        "@misc{outkey, title = {Secret Title}}\n@misc{unused, note = {Private Note}}\n"
    )
    (paper / "main.tex").write_text("\\cite{outkey}\\cite{a}\n\\bibliography{../../shared,refs}\n")
    (paper / "refs.bib").write_text(REFS)
    done = bounded_check(["--no-verify", "--format", "sarif", "main.tex"], paper)
    assert done.returncode == 0, done.stderr
    assert "Secret Title" not in done.stdout and "Private Note" not in done.stdout
    results = json.loads(done.stdout)["runs"][0]["results"]
    (flag,) = [r for r in results if r["ruleId"] == "bibliography-outside-root"]
    where = flag["locations"][0]["physicalLocation"]
    assert where["artifactLocation"]["uri"] == "main.tex"
    assert where["region"]["startLine"] == 2
    assert str(tmp_path / "shared.bib") in flag["message"]["text"]
    # the entries are read: outkey is defined, and the unused one is an orphan there
    assert not [r for r in results if r["ruleId"] == "dangling-citation"]
    (orphan,) = [r for r in results if r["ruleId"] == "orphan-entry"]
    assert "snippet" not in orphan["locations"][0]["physicalLocation"]["region"]


def test_bibliography_inside_the_root_is_not_flagged(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(PAPER % "")
    (tmp_path / "refs.bib").write_text(REFS)
    found = diagnostics(json_check(["main.tex"], tmp_path))
    assert not [d for d in found if d["code"] == "bibliography-outside-root"]


def test_closing_a_buffer_of_a_file_not_on_disk_frees_its_parse(tmp_path: Path) -> None:
    import gc

    from citewarden.checks import Checker
    from citewarden.model import ParsedBibliography
    from citewarden.project import Workspace

    def alive() -> int:
        gc.collect()
        return sum(
            1 for o in gc.get_objects() if isinstance(o, ParsedBibliography) and o.path == path
        )

    ws = Workspace(root=tmp_path)
    checker = Checker()
    path = tmp_path / "unsaved.bib"
    ws.set_text(path, "".join(f"@misc{{k{i}, title = {{T}}}}\n" for i in range(100)))
    checker.check(ws)
    bib = ws.bibliography(path)
    assert bib is not None and len(bib.entries) == 100
    del bib
    assert alive() == 1
    ws.close(path)
    checker.check(ws)
    assert alive() == 0


def test_completion_detail_is_escaped(tmp_path: Path) -> None:
    from citewarden.lsp.entries import detail

    bib = f"@misc{{{BIDI_KEY}, author = {{Doe\x1b[8m, J.}}, title = {{T\u202eT}}, year = 2020}}\n"
    (entry,) = parse_bibtex(tmp_path / "refs.bib", bib).entries
    shown = detail(entry)
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "T\\u202eT" in shown


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://doi.org/10.1/x", "https://doi.org/10.1/x"),
        ("  HTTPS://example.org/a b  ", "https://example.org/a%20b"),
        ("https://example.org/x)[y](command:z)", "https://example.org/x%29%5By%5D%28command:z%29"),
        ("https://example.org/\u202eevil", "https://example.org/%E2%80%AEevil"),
        ("http://example.org/", None),
        ("command:workbench.action.terminal.new", None),
        ("file:///etc/passwd", None),
        ("javascript:alert(1)", None),
        ("https:///no-host", None),
        ("https://", None),
        ("", None),
    ],
)
def test_https_url_allows_only_https_and_encodes_what_would_end_a_link(
    url: str, expected: str | None
) -> None:
    from citewarden.safe_text import https_url

    assert https_url(url) == expected


def test_visible_json_safe_and_unsafe_characters() -> None:
    from citewarden.safe_text import json_safe, unsafe_characters, visible, visible_lines

    assert visible("a\x1b[2Jb\tc\nd\r") == "a\\x1b[2Jb\tc\\x0ad\\x0d"
    assert visible_lines("one\r\ntwo\rthree\n\u2066x") == "one\r\ntwo\\x0dthree\n\\u2066x"
    text = json.dumps({"k": "\u202e\x85\x1b"}, ensure_ascii=False)
    safe = json_safe(text)
    assert safe.isascii() and json.loads(safe) == {"k": "\u202e\x85\x1b"}
    assert unsafe_characters("ok\nline") == []
    assert unsafe_characters("x\x07\u200f\x07") == ["\\u200f", "\\x07"]


def non_utf8_project(root: Path) -> None:
    """A project beside two files whose names are not UTF-8 (bytes 0xFE, 0xFF): one cites a
    key no bibliography has, the other is an unclosed entry."""
    (root / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
    (root / "refs.bib").write_text("@misc{a, title = {A}}\n")
    raw = os.fsencode(root)
    with open(raw + b"/x\xfe.tex", "wb") as out:
        out.write(b"\\cite{a,zz}\n\\bibliography{refs}\n")
    with open(raw + b"/\xffbad.bib", "wb") as out:
        out.write(b"@misc{b, title = {B}\n")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html"])
def test_names_that_are_not_utf8_reach_every_output_escaped(tmp_path: Path, fmt: str) -> None:
    """Python holds such a name with surrogates, which no encoding writes: every report,
    on the terminal and in a file, shows the name's bytes (``\\xfe``), or keeps them
    exactly where the format can (JSON escapes, SARIF percent-encoding)."""
    non_utf8_project(tmp_path)
    shown = bounded_check(["--no-verify", "--format", fmt, "."], tmp_path)
    written = bounded_check(["--no-verify", "--format", fmt, "-o", f"out.{fmt}", "."], tmp_path)
    for done in (shown, written):
        assert done.returncode == 1, done.stderr  # the dangling key, the unclosed entry
        assert "Traceback" not in done.stderr
    text = (tmp_path / f"out.{fmt}").read_bytes().decode("utf-8")  # strict: valid UTF-8
    if fmt != "html":  # the page carries the time it was made
        assert text == shown.stdout
    if fmt in ("text", "html"):
        assert "x\\xfe.tex" in text and "\\xffbad.bib" in text
        assert "x\\xfe.tex" in shown.stdout
    if fmt == "json":
        files = {os.fsencode(d["file"]) for d in json.loads(text)["diagnostics"]}
        assert {b"x\xfe.tex", b"\xffbad.bib"} <= files  # the names themselves, losslessly
    if fmt == "sarif":
        run = json.loads(text)["runs"][0]
        uris = {a["location"]["uri"] for a in run["artifacts"]}
        assert {"x%FE.tex", "%FFbad.bib"} <= uris
        assert all(
            (tmp_path / os.fsdecode(urllib.parse.unquote_to_bytes(u))).exists() for u in uris
        )


def test_lone_surrogates_from_the_client_become_replacement_characters() -> None:
    """What a language client sends as ``"\\ud800"`` JSON escapes: every string of the
    decoded objects, keys and nested lists included, is made text, in place."""
    from citewarden.lsp.incoming import clean_object

    deep: list[object] = ["x\udcfe"]
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = [deep]
    data = {"k\ud800": "a\udfffb", "list": ["ok", ["\ud83d"], 3], "deep": deep, "same": "é"}
    same = data["same"]
    cleaned = clean_object(data)
    assert cleaned is data
    assert data == {"k\ufffd": "a\ufffdb", "list": ["ok", ["\ufffd"], 3], "deep": deep, "same": "é"}
    assert data["same"] is same
    inner: object = deep
    while isinstance(inner, list) and isinstance(inner[0], list):
        inner = inner[0]
    assert inner == ["x\ufffd"]


def test_uris_of_names_that_are_not_utf8_keep_their_bytes() -> None:
    from citewarden.lsp.convert import path_of, uri_of

    odd = Path(os.fsdecode(b"/tmp/p/x\xfe y.tex"))
    assert uri_of(odd) == "file:///tmp/p/x%FE%20y.tex"
    assert path_of(uri_of(odd)) == odd
    assert uri_of(Path("/tmp/p/café.tex")) == "file:///tmp/p/caf%C3%A9.tex"
    assert path_of("file:///tmp/p/caf%C3%A9.tex") == Path("/tmp/p/café.tex")


def test_names_that_are_not_utf8_and_lone_surrogates_are_shown_escaped() -> None:
    from citewarden.safe_text import https_url, visible, without_surrogates

    assert visible(os.fsdecode(b"x\xfe.tex")) == "x\\xfe.tex"
    assert visible("a\ud800b") == "a\\ud800b"
    assert without_surrogates("a\ud800b\udcfe") == "a\ufffdb\ufffd"
    assert https_url("https://doi.org/10.1/\ud800x") == "https://doi.org/10.1/%EF%BF%BDx"


def laughs(name: str, leaf: str, fan: int = 20, levels: int = 8, indent: str = "") -> str:
    """YAML anchors ``{name}0`` .. ``{name}{levels}``, each a list of ``fan`` aliases of the
    one before (a "billion laughs": ``fan ** levels`` leaves when expanded)."""
    lines = [f"{indent}{name}0: &{name}0 [{leaf}]"]
    for i in range(1, levels + 1):
        lines.append(
            f"{indent}{name}{i}: &{name}{i} [" + ", ".join([f"*{name}{i - 1}"] * fan) + "]"
        )
    return "\n".join(lines) + "\n"


def test_front_matter_aliases_are_read_once_not_expanded(tmp_path: Path) -> None:
    """Citations in the prose fields of pandoc metadata (20 ** 8 scalars once expanded: the
    walk never ended); an alias is its anchor's node, read once."""
    (tmp_path / "doc.md").write_text(
        "---\nbibliography: refs.bib\nabstract:\n"
        + laughs("a", '"as @k1 shows"', indent="  ")
        + "nocite: &n ['@k2']\ndescription: *n\n---\n\nText.\n"
    )
    (tmp_path / "refs.bib").write_text(
        "@misc{k1, title={T}}\n@misc{k2, title={U}}\n@misc{k3, title={V}}\n"
    )
    report = json_check(["doc.md"], tmp_path)
    cited = report["citations"]
    assert isinstance(cited, dict)
    assert [o["key"] for o in cited["orphans"]] == ["k3"]  # k1 (abstract) and k2 (nocite) cited


def test_csl_yaml_whose_aliases_expand_past_its_length_is_refused_at_the_anchor(
    tmp_path: Path,
) -> None:
    (tmp_path / "refs.yaml").write_text(
        "---\nreferences:\n- id: early\n  title: Read before\n"
        "---\n" + laughs("a", "{family: Lol}") + "references:\n- id: k1\n  author: *a8\n"
    )
    (tmp_path / "ok.yaml").write_text(  # aliases as people use them: kept
        "references:\n- id: one\n  author: &who [{family: Doe, given: Jane}]\n"
        "- id: two\n  author: *who\n"
    )
    (tmp_path / "doc.md").write_text(
        "---\nbibliography: [refs.yaml, ok.yaml]\n---\n\n[@early; @k1; @one; @two]\n"
    )
    report = json_check(["doc.md"], tmp_path)
    diagnostics = report["diagnostics"]
    assert isinstance(diagnostics, list)
    refused = [d for d in diagnostics if d["code"] == "bib-syntax"]
    assert [(d["file"], d["line"]) for d in refused] == [("refs.yaml", 6)]  # a0, its first key
    # pandoc reads the first document only (and so never expands the bomb)
    assert "pandoc reads the first document" in refused[0]["message"]
    cited = report["citations"]
    assert isinstance(cited, dict)
    assert [d["key"] for d in cited["dangling"]] == ["k1"]  # the bomb's entry is not read
    from citewarden.parsing.csl import parse_csl_yaml

    bomb = laughs("a", "{family: Lol}") + "references:\n- id: k1\n  author: *a8\n"
    first = parse_csl_yaml(tmp_path / "bomb.yaml", bomb)
    (problem,) = first.problems
    assert "its aliases expand it past" in problem.message and first.entries == ()
    assert "\n" not in bomb[: problem.location.span.start]  # on the line of the anchor a0
    ok = parse_csl_yaml(tmp_path / "ok.yaml", (tmp_path / "ok.yaml").read_text())
    authors = {e.key: f.value for e in ok.entries if (f := e.field("author")) is not None}
    assert authors == {"one": "Doe, Jane", "two": "Doe, Jane"} and not ok.problems


def test_quarto_book_chapters_through_aliases_stop_at_the_chapter_cap(tmp_path: Path) -> None:
    """Parts of parts of parts, each list 1 000 aliases of the one before: a billion
    chapters once expanded, in a configuration of 50 kB."""
    levels = ["c0: &c0 [index.qmd]"]
    for i in range(1, 4):
        levels.append(f"c{i}: &c{i} [" + ", ".join([f"{{chapters: *c{i - 1}}}"] * 1000) + "]")
    (tmp_path / "_quarto.yml").write_text(
        "project:\n  type: book\n" + "\n".join(levels) + "\nbook:\n  title: Lol\n  chapters: *c3\n"
    )
    (tmp_path / "index.qmd").write_text("---\nbibliography: refs.bib\n---\n\n[@a]\n")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n@misc{b, title={B}}\n")
    report = json_check(["."], tmp_path)
    cited = report["citations"]
    assert isinstance(cited, dict)
    assert [o["key"] for o in cited["orphans"]] == ["b"]


def test_integers_of_thousands_of_digits_are_read_as_text_or_reported(tmp_path: Path) -> None:
    """``int()`` refuses a string of more than 4 300 digits.  A 5 000-digit integer in a
    Quarto book's configuration, in a CSL-JSON entry or in the settings file was a
    traceback (or lost the whole bibliography): the first two keep it as written, the
    settings file is reported where it is, and the book's chapters are read."""
    number = "9" * 5000
    (tmp_path / "_quarto.yml").write_text(
        f"project:\n  type: book\nbook:\n  chapters: [index.qmd, two.qmd]\n  n: {number}\n"
    )
    (tmp_path / "index.qmd").write_text("---\nbibliography: refs.json\n---\n\n[@a]\n")
    (tmp_path / "two.qmd").write_text("See @b.\n")
    (tmp_path / "refs.json").write_text(
        f'[{{"id": "a", "type": "book", "title": "A", "volume": {number}}},'
        '{"id": "b", "type": "book", "title": "B"}, {"id": "c", "type": "book", "title": "C"}]'
    )
    (tmp_path / ".citewarden.toml").write_text(f"[verify]\nconcurrency = {number}\n")
    args = ["--no-verify", "--format", "json", "--fail-on", "never", "."]
    done = bounded_check(args, tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "invalid TOML: an integer of more than 4300 digits" in done.stderr
    cited = json.loads(done.stdout)["citations"]
    assert isinstance(cited, dict)
    assert cited["dangling"] == [] and [o["key"] for o in cited["orphans"]] == ["c"]


def test_log_lines_show_controls_nuls_and_surrogates_as_escapes() -> None:
    """The server logs a folder it could not index by its name (``/tmp/a\\x00b`` from a
    client), and an exception's text may quote a value: neither reaches the log raw."""
    import logging

    from citewarden.redaction import RedactingFormatter

    formatter = RedactingFormatter("%(levelname)s %(message)s")
    try:
        raise ValueError("bad \x1b]0;title\x07 value")
    except ValueError:
        info = sys.exc_info()
    record = logging.LogRecord(
        "citewarden", logging.ERROR, "x", 1, "indexing %s failed", ("/tmp/a\x00b\udcfe",), info
    )
    line = formatter.format(record)
    assert line.startswith("ERROR indexing /tmp/a\\x00b\\xfe failed\nTraceback")
    assert "ValueError: bad \\x1b]0;title\\x07 value" in line
    assert not {"\x00", "\x1b", "\x07", "\udcfe"} & set(line)


@pytest.mark.parametrize("piece", ["\\iffalse \\cite{no}\\fi ", "\\verb|x| "])
def test_a_long_line_of_conditionals_or_verbatim_is_read_in_one_pass(piece: str) -> None:
    """Each \\iffalse asked whether a comment stands before it on its line, and each
    \\verb looked for its line's end, both from scratch: 4 MB on one line took 30 and
    15 s.  The line's comment and end are now found once."""
    import time

    from citewarden.parsing.latex import parse_latex

    text = piece * (4_000_000 // len(piece)) + " \\cite{k}.\n% \\cite{hidden}\n"
    started = time.process_time()
    doc = parse_latex(Path("/x.tex"), text)
    assert time.process_time() - started < 5.0
    assert [c.key for c in doc.citations] == ["k"]


def test_unclosed_etoolbox_tests_of_a_known_toggle_are_read_in_linear_time(
    tmp_path: Path,
) -> None:
    """200 000 ``\\iftoggle{x}{`` of a toggle set false, none closed: each looked through
    5 000 characters for its closing brace (about 90 s); the braces looked through are
    bounded by the text's length, and the tests past that read both branches."""
    tests = "\\iftoggle{x}{" * 200_000
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{etoolbox}\n\\newtoggle{x}\\togglefalse{x}\n"
        "\\begin{document}\n\\iftoggle{x}{\\cite{a}}{\\cite{b}}\n" + tests + "\n\\end{document}\n",
        encoding="utf-8",
    )
    report = json_check(["main.tex"], tmp_path)
    assert isinstance(report, dict)


def test_many_at_signs_each_before_a_comment_on_one_line_are_read_in_one_pass(
    tmp_path: Path,
) -> None:
    """``@%@%@%...`` on one line of a bibliography biber reads: each ``@`` might open an
    ``@comment`` after the ``%`` comment (biber skips one there), and the reading of the
    comment to the line's end was done again from each of them (3 s for 40 000, hours for
    these).  The stray ``@`` is reported where it stands, and, as biber then reads no entry
    of the file, the citation of the entry before it is dangling."""
    (tmp_path / "refs.bib").write_text(
        "@misc{a, title = {A}}\n" + "@%" * 300_000 + "\n", encoding="utf-8"
    )
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        "\\begin{document}\n\\cite{a}\n\\printbibliography\n\\end{document}\n",
        encoding="utf-8",
    )
    report = json_check(["main.tex"], tmp_path)
    found = [(d["code"], d["file"], d["line"]) for d in diagnostics(report)]
    assert found == [("dangling-citation", "main.tex", 5), ("bib-syntax", "refs.bib", 2)], found


def test_a_citation_macro_with_a_long_name_is_read(tmp_path: Path) -> None:
    """The reader's table of commands was built one call deep per character of a name: a
    wrapper named with 5 000 letters lost the whole file to a RecursionError."""
    long = "c" * 5000
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n"
        f"\\newcommand{{\\{long}}}[1]{{\\cite{{#1}}}}\n"
        f"\\begin{{document}}\\{long}{{gone}} \\{long}x{{not}} \\cite{{here}}\n"
        "\\bibliography{refs}\\end{document}\n"
    )
    (tmp_path / "refs.bib").write_text("@misc{here, title={H}}\n")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    assert [(d["code"], str(d["message"]).split(";")[0]) for d in found] == [
        ("dangling-citation", "citation key 'gone' is not defined in any bibliography")
    ]


def test_thousands_of_citation_macros_each_the_start_of_the_next_are_read(
    tmp_path: Path,
) -> None:
    """Names each the start of the next (\\ca, \\caa, \\caaa ...) nested the table's groups
    as deep as there are names, past what the regex compiler takes; past a depth the table
    matches any name and the reader looks it up."""
    names = ["c" + "a" * i for i in range(1, 1501)]
    lines = ["\\documentclass{article}"]
    lines += [f"\\newcommand{{\\{n}}}[1]{{\\cite{{#1}}}}" for n in names]
    lines += [
        "\\begin{document}",
        f"\\{names[-1]}{{last}} \\{names[700]}{{deep}} \\{names[-1]}a{{past}} \\ca{{first}}",
        "\\bibliography{refs}\\end{document}",
    ]
    (tmp_path / "main.tex").write_text("\n".join(lines) + "\n")
    (tmp_path / "refs.bib").write_text("@misc{first, title={F}}\n@misc{deep, title={D}}\n")
    found = diagnostics(json_check(["main.tex"], tmp_path))
    # \caa...a (1 502 a's) is defined nowhere: its argument cites nothing
    assert [(d["code"], str(d["message"]).split(";")[0]) for d in found] == [
        ("dangling-citation", "citation key 'last' is not defined in any bibliography")
    ]
