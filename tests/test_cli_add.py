"""``citewarden add``: the real command in a subprocess against the replay server."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import replay as replay_fixtures
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.verify.config import URL_ENV
from cli_process import run_citewarden
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

ADDREF_API = Path(__file__).parent / "data" / "addref" / "api"
JSS = Path(__file__).parent / "data" / "fix" / "jss-bibliography.bib"


@pytest.fixture
def env(replay: ReplayServer, tmp_path: Path) -> dict[str, str]:
    replay.load(ADDREF_API)
    out = {var: replay.base_url(name) for name, var in URL_ENV.items()}
    out["CITEWARDEN_CACHE_DIR"] = str(tmp_path / "cache")
    out["CITEWARDEN_MAILTO"] = "tests@example.org"
    return out


def test_add_dois_to_a_bib_in_its_style(
    env: dict[str, str], tmp_path: Path, replay: ReplayServer
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(JSS.read_text(encoding="utf-8"), encoding="utf-8")
    result = run_citewarden(
        [
            "add",
            "10.1016/0893-6080(91)90009-T",
            "https://doi.org/10.21105/joss.01450",
            "--bib",
            "refs.bib",
        ],
        tmp_path,
        env,
    )
    assert result.returncode == 0, result.stderr
    assert "added hornik1991approximation: Hornik 1991, Approximation capabilities" in result.stdout
    assert "added sullivan2019pyvista: Sullivan and Kaszynski 2019, PyVista" in result.stdout
    text = bib.read_text(encoding="utf-8")
    assert text.startswith(JSS.read_text(encoding="utf-8"))
    parsed = parse_bibtex(bib, text)
    assert not parsed.problems
    entry = next(e for e in parsed.entries if e.key == "hornik1991approximation")
    assert (
        entry.get("doi") == "10.1016/0893-6080(91)90009-t"
        and entry.get("journal") == "Neural Networks"
    )
    assert "  author  = {Hornik, Kurt},\n  title   = {Approx" in text  # aligned per entry
    assert not replay.unmatched


def test_missing_doi_is_reported_and_the_rest_added(
    env: dict[str, str], tmp_path: Path, replay: ReplayServer
) -> None:
    (tmp_path / ".citewarden.toml").write_text(
        '[verify]\nsources = ["crossref"]\n', encoding="utf-8"
    )
    out = tmp_path / "refs.json"
    result = run_citewarden(
        [
            "add",
            "10.1371/notarealdoi",
            "10.1016/0893-6080(89)90003-8",
            "--key",
            "nothing",
            "--key",
            "funahashi",
            "--bib",
            "refs.json",
        ],
        tmp_path,
        env,
    )
    assert result.returncode == 1
    assert "10.1371/notarealdoi: " in result.stderr
    items = json.loads(out.read_text(encoding="utf-8"))
    assert [i["id"] for i in items] == ["funahashi"]
    assert (
        items[0]["DOI"] == "10.1016/0893-6080(89)90003-8" and items[0]["type"] == "article-journal"
    )


def test_dry_run_writes_nothing_and_a_taken_key_is_refused(
    env: dict[str, str], tmp_path: Path
) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{taken,\n  title = {T},\n}\n", encoding="utf-8")
    result = run_citewarden(
        ["add", "10.21105/joss.01450", "--bib", "refs.bib", "--dry-run"], tmp_path, env
    )
    assert result.returncode == 0 and "@article{sullivan2019pyvista," in result.stdout
    assert bib.read_text(encoding="utf-8") == "@misc{taken,\n  title = {T},\n}\n"
    refused = run_citewarden(
        ["add", "10.21105/joss.01450", "--key", "taken", "--bib", "refs.bib"], tmp_path, env
    )
    assert refused.returncode == 2 and "already there" in refused.stderr


def test_a_key_differing_from_a_taken_one_in_case_only_is_not_repeated(
    env: dict[str, str], tmp_path: Path
) -> None:
    """BibTeX compares keys ignoring case: beside ``Hornik1991approximation`` the new key
    was ``hornik1991approximation`` ("Repeated entry", and a duplicate-key finding)."""
    bib = tmp_path / "refs.bib"
    before = "@article{Hornik1991approximation,\n  title = {T},\n}\n"
    bib.write_text(before, encoding="utf-8")
    refused = run_citewarden(
        [
            *("add", "10.1016/0893-6080(91)90009-T"),
            *("--key", "HORNIK1991approximation", "--bib", "refs.bib"),
        ],
        tmp_path,
        env,
    )
    assert refused.returncode == 2
    assert (
        "the key 'HORNIK1991approximation' is already there as 'Hornik1991approximation'"
        " (keys are compared ignoring case)" in refused.stderr
    )
    assert bib.read_text(encoding="utf-8") == before
    twice = run_citewarden(
        [
            *("add", "10.1016/0893-6080(91)90009-T", "10.21105/joss.01450"),
            *("--key", "new", "--key", "NEW", "--bib", "refs.bib"),
        ],
        tmp_path,
        env,
    )
    assert twice.returncode == 2 and "the key 'NEW' is given twice" in twice.stderr
    result = run_citewarden(
        ["add", "10.1016/0893-6080(91)90009-T", "--bib", "refs.bib"], tmp_path, env
    )
    assert result.returncode == 0, result.stderr
    assert "added hornik1991approximationa: Hornik 1991" in result.stdout
    parsed = parse_bibtex(bib, bib.read_text(encoding="utf-8"))
    assert [e.key for e in parsed.entries] == [
        "Hornik1991approximation",
        "hornik1991approximationa",
    ]


def test_outside_text_is_shown_with_the_one_escaping_rule(
    env: dict[str, str], tmp_path: Path
) -> None:
    """Identifiers, keys and answers reach the terminal as every other output shows them
    (``safe_text.visible``): a control or bidirectional character as a visible escape."""
    (tmp_path / ".citewarden.toml").write_text(
        '[verify]\nsources = ["crossref"]\n', encoding="utf-8"
    )
    hostile = "10.1371/not\x1b]0;pwned\x07\u202ereal"
    result = run_citewarden(["add", hostile, "--bib", "refs.bib", "--dry-run"], tmp_path, env)
    assert result.returncode == 1
    assert "10.1371/not\\x1b]0;pwned\\x07\\u202ereal: " in result.stderr
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert "\ufffd" not in result.stderr  # escaped, not replaced
    bad_key = run_citewarden(
        ["add", "10.21105/joss.01450", "--key", "k\x1b[2J", "--bib", "refs.bib"], tmp_path, env
    )
    assert bad_key.returncode == 2 and "cannot be an entry key" in bad_key.stderr
    assert "\x1b" not in bad_key.stderr


def test_an_empty_identifier_is_a_usage_error_and_a_long_one_is_named_by_its_head(
    env: dict[str, str], tmp_path: Path
) -> None:
    (tmp_path / ".citewarden.toml").write_text(
        '[verify]\nsources = ["crossref"]\n', encoding="utf-8"
    )
    empty = run_citewarden(["add", "10.21105/joss.01450", " ", "--bib", "refs.bib"], tmp_path, env)
    assert (empty.returncode, empty.stderr) == (2, "citewarden add: an identifier is empty\n")
    pasted = "A pasted page " * 5000  # 70 000 characters, looked up as a title
    long = run_citewarden(
        ["add", pasted, "--bib", "refs.bib", "--dry-run", "--offline"], tmp_path, env
    )
    assert long.returncode == 1
    assert f"{pasted[:120]}... (70,000 characters): could not be looked up" in long.stderr
    assert len(long.stderr) < 1000


def test_a_file_planted_where_the_old_writer_put_its_copy_is_left_alone(
    env: dict[str, str], tmp_path: Path
) -> None:
    """The new text went to ``.refs.bib.citewarden-add`` first, a fixed name: a cloned
    repository holding that name as a link to one of the user's files had it overwritten.
    The copy is a new file now, and the bibliography's link is written through."""
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    real = repo / "real.bib"
    real.write_text("@misc{taken,\n  title = {T},\n}\n", encoding="utf-8")
    (repo / "refs.bib").symlink_to(real)
    (repo / ".refs.bib.citewarden-add").symlink_to(victim)
    (repo / ".real.bib.citewarden-add").symlink_to(victim)
    result = run_citewarden(["add", "10.21105/joss.01450", "--bib", "refs.bib"], repo, env)
    assert result.returncode == 0, result.stderr
    assert victim.read_text(encoding="utf-8") == "the user's own file\n"
    assert (repo / "refs.bib").is_symlink()
    text = real.read_text(encoding="utf-8")
    assert text.startswith("@misc{taken,") and "@article{sullivan2019pyvista," in text
    assert sorted(p.name for p in repo.iterdir()) == [
        ".real.bib.citewarden-add",
        ".refs.bib.citewarden-add",
        "real.bib",
        "refs.bib",
    ]  # no backup, no temporary file left


def test_a_new_bibliography_gets_the_mode_of_any_new_file(
    env: dict[str, str], tmp_path: Path
) -> None:
    """Created through an exclusive temporary file: with the user's umask applied, as a
    plain write would (``mkstemp`` alone would leave it readable by its owner only)."""
    import os
    import stat

    umask = os.umask(0o022)
    try:
        result = run_citewarden(["add", "10.21105/joss.01450", "--bib", "new.bib"], tmp_path, env)
    finally:
        os.umask(umask)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((tmp_path / "new.bib").stat().st_mode) == 0o644


def test_a_work_already_in_the_file_is_not_added_again(env: dict[str, str], tmp_path: Path) -> None:
    """A DOI in another case or form names the work an entry holds: it was added again
    under ``sullivan2019pyvistaa`` (and once more for each further form in the run)."""
    bib = tmp_path / "refs.bib"
    first = run_citewarden(["add", "10.21105/joss.01450", "--bib", "refs.bib"], tmp_path, env)
    assert first.returncode == 0, first.stderr
    before = bib.read_text(encoding="utf-8")
    again = run_citewarden(
        [
            *("add", "10.21105/JOSS.01450", "https://doi.org/10.21105/joss.01450"),
            *("--bib", "refs.bib"),
        ],
        tmp_path,
        env,
    )
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        "10.21105/JOSS.01450: already present as sullivan2019pyvista\n"
        "https://doi.org/10.21105/joss.01450: already present as sullivan2019pyvista\n"
    )
    assert bib.read_text(encoding="utf-8") == before
    held = tmp_path / "held.bib"
    held.write_text(
        "@misc{pyvista,\n  url = {https://doi.org/10.21105/JOSS.01450},\n}\n", encoding="utf-8"
    )
    by_url = run_citewarden(["add", "doi:10.21105/joss.01450", "--bib", "held.bib"], tmp_path, env)
    assert (by_url.returncode, by_url.stdout) == (
        0,
        "doi:10.21105/joss.01450: already present as pyvista\n",
    )


def test_a_work_named_twice_in_one_run_is_added_once(env: dict[str, str], tmp_path: Path) -> None:
    result = run_citewarden(
        ["add", "10.21105/joss.01450", "DOI:10.21105/JOSS.01450", "--bib", "new.bib"],
        tmp_path,
        env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == (
        "DOI:10.21105/JOSS.01450: already present as sullivan2019pyvista"
    )
    parsed = parse_bibtex(tmp_path / "new.bib", (tmp_path / "new.bib").read_text("utf-8"))
    assert [e.key for e in parsed.entries] == ["sullivan2019pyvista"]


def test_help_names_the_exit_status_of_a_work_already_present(tmp_path: Path) -> None:
    result = run_citewarden(["add", "--help"], tmp_path, {})
    assert "already present in the file" in result.stdout


def test_a_title_several_works_have_is_refused_with_the_works(
    env: dict[str, str], tmp_path: Path
) -> None:
    """Crossref's answer holds Shannon's two papers of 1948, one title: the first was added."""
    (tmp_path / ".citewarden.toml").write_text(
        '[verify]\nsources = ["crossref"]\n', encoding="utf-8"
    )
    result = run_citewarden(
        ["add", "A mathematical theory of communication", "--bib", "refs.bib"], tmp_path, env
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "citewarden add: A mathematical theory of communication: 2 works are titled"
        " 'A mathematical theory of communication' (crossref):\n"
        "  Shannon 1948, A Mathematical Theory of Communication"
        " (DOI 10.1002/j.1538-7305.1948.tb01338.x)\n"
        "  Shannon 1948, A Mathematical Theory of Communication"
        " (DOI 10.1002/j.1538-7305.1948.tb00917.x)\n"
        "give the DOI of the one meant instead of its title\n"
    )
    assert not (tmp_path / "refs.bib").exists()


def test_a_title_whose_works_have_no_identifier_adds_the_first_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lookup (in process) answers two works of one title, neither with a DOI, arXiv id,
    PMID or a book's ISBN: giving "the DOI of the one meant" could not be done."""
    from io import StringIO

    from citewarden import cli_add
    from citewarden.addref.lookup import Ambiguous
    from citewarden.verify.records import Person, WorkRecord

    first = WorkRecord(
        source="dblp", title="Deep learning.", authors=(Person("Ng", "Andrew Y."),), year=2011
    )
    other = WorkRecord(
        source="dblp", title="Deep Learning", authors=(Person("Kelleher", "John D."),), year=2019
    )

    async def look_up(
        ids: list[str], settings: object, notices: object
    ) -> list[tuple[str, Ambiguous]]:
        return [(i, Ambiguous("Deep learning", "dblp", (first, other))) for i in ids]

    monkeypatch.setattr(cli_add, "_look_up", look_up)
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(
        ids=["Deep learning"], bib="refs.bib", key=None, offline=True, dry_run=False
    )
    out, err = StringIO(), StringIO()
    assert cli_add.run_add(args, out, err) == 0
    assert err.getvalue() == (
        "citewarden add: Deep learning: warning: 2 works are titled 'Deep learning' (dblp),"
        " none with a DOI, arXiv id, PMID or ISBN to choose it by: added the first,"
        " Ng 2011, Deep learning.; not the others: Kelleher 2019, Deep Learning\n"
    )
    assert out.getvalue() == "added ng2011deep: Ng 2011, Deep learning. [dblp]\n"
    entries = parse_bibtex(tmp_path / "refs.bib", (tmp_path / "refs.bib").read_text()).entries
    assert [(e.key, e.get("title")) for e in entries] == [("ng2011deep", "Deep learning.")]


def test_the_settings_are_the_bibliographys_projects_with_their_problems_shown(
    env: dict[str, str], tmp_path: Path
) -> None:
    """``add`` reads the .citewarden.toml of the bibliography's project, not the working
    directory's, and says what in it is wrong (a bad value was passed over in silence)."""
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".citewarden.toml").write_text(
        'debounce_ms = -5\n[verify]\nsources = ["crossref"]\n', encoding="utf-8"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_citewarden(
        ["add", "10.1371/notarealdoi", "--bib", "../proj/refs.bib", "--dry-run"], elsewhere, env
    )
    assert result.returncode == 1
    assert (
        f"citewarden add: warning: {project / '.citewarden.toml'}:1: setting 'debounce_ms': "
        in result.stderr
    )
    assert "not found (crossref answered)" in result.stderr


@pytest.mark.parametrize(
    ("bib", "said"),
    [
        ("loop.bib", "cannot write loop.bib: a loop of symbolic links\n"),
        ("dangling.bib", "cannot write dangling.bib: no folder {tmp}/nowhere to write it in\n"),
        ("gone/refs.bib", "cannot write gone/refs.bib: no folder {tmp}/gone to write it in\n"),
        ("refs.txt", "refs.txt: not a bibliography format entries can be added to\n"),
        # named as given: --bib /dev/zero was named 'zero'
        ("gone/refs.txt", "gone/refs.txt: not a bibliography format entries can be added to\n"),
        (
            "fifo.bib",
            "cannot read fifo.bib: a named pipe (FIFO), not a regular file; it is not read\n",
        ),
        ("locked.bib", "cannot write locked.bib: the file is read-only (mode 0444)\n"),
        ("new.bib/", "--bib new.bib/ names a folder; give a file\n"),  # it made new.bib
        (  # BibTeX would read the new entry as part of the one left open, and lose it
            "open.bib",
            "cannot write open.bib: the file was not parsed completely (1 syntax/encoding"
            " problem(s), first: unclosed '{{' in the value of field 'title': no matching '}}'"
            " before the end of the file); refusing to rewrite it — fix the syntax first\n",
        ),
    ],
)
def test_a_bibliography_no_entry_can_be_written_to_is_refused_before_any_look_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bib: str, said: str
) -> None:
    """A loop of symbolic links ended the command with a traceback after the look-up, a
    missing folder failed after it naming the temporary file, a FIFO was named with the
    errno and the path again, a read-only file was refused only after the look-up, and an
    entry was added after one left open: each is said before anything is asked."""
    import os
    from io import StringIO

    from citewarden import cli_add

    async def look_up(ids: list[str], settings: object, notices: object) -> list[tuple[str, str]]:
        raise AssertionError("looked up")

    monkeypatch.setattr(cli_add, "_look_up", look_up)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop.bib").symlink_to("loop2.bib")
    (tmp_path / "loop2.bib").symlink_to("loop.bib")
    (tmp_path / "dangling.bib").symlink_to("nowhere/refs.bib")
    os.mkfifo(tmp_path / "fifo.bib")
    (tmp_path / "locked.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    (tmp_path / "locked.bib").chmod(0o444)  # refused to root too: its owner locked it
    (tmp_path / "open.bib").write_text("@article{a, title = {x\n", encoding="utf-8")
    args = argparse.Namespace(ids=["10.1/x"], bib=bib, key=None, offline=True, dry_run=False)
    out, err = StringIO(), StringIO()
    assert cli_add.run_add(args, out, err) == 2
    assert err.getvalue() == "citewarden add: " + said.format(tmp=tmp_path.resolve())
    assert out.getvalue() == ""


@pytest.mark.parametrize(("limit", "refused"), [("0.001", True), ("1", False)])
def test_a_bibliography_is_read_within_the_project_s_max_file_mb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: str, refused: bool
) -> None:
    """add read at most 64 MB of any bibliography, whatever the project's max_file_mb
    (50 MB unless set), and named the setting when it refused: it reads as check does."""
    from io import StringIO

    from citewarden import cli_add

    async def look_up(ids: list[str], settings: object, notices: object) -> list[tuple[str, str]]:
        return [(i, "not found (crossref answered)") for i in ids]

    monkeypatch.setattr(cli_add, "_look_up", look_up)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".citewarden.toml").write_text(f"max_file_mb = {limit}\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title = {%s}}\n" % ("x" * 3000), encoding="utf-8")
    args = argparse.Namespace(ids=["10.1/x"], bib="refs.bib", key=None, offline=True, dry_run=False)
    out, err = StringIO(), StringIO()
    status = cli_add.run_add(args, out, err)
    if refused:
        assert status == 2
        assert err.getvalue() == (
            "citewarden add: cannot read refs.bib: 3 KB, larger than the 1 KB limit"
            " (setting max_file_mb); it is not read\n"
        )
    else:
        assert status == 1 and "not found (crossref answered)" in err.getvalue()


def test_added_is_said_only_of_what_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the file changed during the look-up the write is refused, but "added KEY" had
    been printed for each work already, as if it were in the file."""
    from io import StringIO

    from citewarden import cli_add
    from citewarden.verify.records import Person, WorkRecord

    work = WorkRecord(
        source="crossref", title="Deep learning", authors=(Person("LeCun", "Yann"),), year=2015
    )
    bib = tmp_path / "refs.bib"
    bib.write_text("@misc{a, title = {A}}\n", encoding="utf-8")

    async def look_up(
        ids: list[str], settings: object, notices: object
    ) -> list[tuple[str, WorkRecord]]:
        bib.write_text("@misc{a, title = {A, edited}}\n", encoding="utf-8")  # an editor saves
        return [(i, work) for i in ids]

    monkeypatch.setattr(cli_add, "_look_up", look_up)
    monkeypatch.chdir(tmp_path)
    args = argparse.Namespace(
        ids=["10.1038/nature14539"], bib="refs.bib", key=None, offline=True, dry_run=False
    )
    out, err = StringIO(), StringIO()
    assert cli_add.run_add(args, out, err) == 2
    assert out.getvalue() == ""
    assert err.getvalue().endswith(
        "citewarden add: cannot write refs.bib: the file changed on disk since it was read;"
        " nothing added\n"
    )
    assert bib.read_text(encoding="utf-8") == "@misc{a, title = {A, edited}}\n"
    # unchanged meanwhile, the same run writes it and says so
    monkeypatch.setattr(cli_add, "_look_up", lambda ids, settings, notices: _answer(ids, work))
    assert cli_add.run_add(args, out, err) == 0
    assert out.getvalue() == "added lecun2015deep: LeCun 2015, Deep learning [crossref]\n"


async def _answer(ids: list[str], work: object) -> list[tuple[str, object]]:
    return [(i, work) for i in ids]


def test_with_standard_output_closed_added_is_said_on_standard_error(
    env: dict[str, str], tmp_path: Path, replay: ReplayServer
) -> None:
    """Started with standard output closed (>&-), the "added" lines went nowhere while the
    file was written; they are said on standard error, as check says its summary."""
    import subprocess

    from cli_process import started

    bib = tmp_path / "refs.bib"
    args = ["add", "10.1016/0893-6080(91)90009-T", "--bib", "refs.bib"]
    done = started(args, tmp_path, closed=1, env=env, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("added hornik1991approximation: Hornik 1991, Approximation")
    assert "@article{hornik1991approximation," in bib.read_text(encoding="utf-8")
    again = started(args, tmp_path, closed=1, env=env, stderr=subprocess.PIPE, text=True)
    assert "already present as hornik1991approximation" in again.stderr


def test_a_dry_run_with_standard_output_closed_is_refused_before_any_look_up(
    env: dict[str, str], tmp_path: Path, replay: ReplayServer
) -> None:
    import subprocess

    from cli_process import started

    args = ["add", "10.1016/0893-6080(91)90009-T", "--bib", "refs.bib", "--dry-run"]
    done = started(args, tmp_path, closed=1, env=env, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr == "citewarden add: standard output is closed; --dry-run shows nothing\n"
    assert replay.log == [] and not (tmp_path / "refs.bib").exists()


@pytest.mark.parametrize("dry_run", [False, True], ids=["added", "dry run"])
def test_a_standard_output_that_cannot_be_written_is_said_with_what_was_written(
    env: dict[str, str], tmp_path: Path, dry_run: bool
) -> None:
    """Standard output on a full disk (> /dev/full) ended the run in a traceback with the
    exit status of a work not found (1), after the file was written."""
    import subprocess

    from cli_process import started

    bib = tmp_path / "refs.bib"
    args = ["add", "10.1016/0893-6080(91)90009-T", "--bib", "refs.bib"]
    with open("/dev/full", "w", encoding="utf-8") as full:
        done = started(
            args + (["--dry-run"] if dry_run else []),
            tmp_path,
            env=env,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 2
    written = "" if dry_run else "; refs.bib was written"
    assert done.stderr == (
        f"citewarden add: cannot write to standard output: No space left on device{written}\n"
    )
    assert bib.exists() is not dry_run
