"""The offline snapshot source: a JSONL file of real Crossref work records indexed into
SQLite FTS5 on first use, queried by DOI and by title."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path

import pytest

from citewarden.settings import VerifySettings
from citewarden.verify.records import Outcome, Query, UpdateKind
from citewarden.verify.sources import CachedSource, SnapshotSource, build_sources
from cli_process import run_citewarden

DATA = Path(__file__).parent / "data" / "snapshot" / "crossref-works.jsonl"


def works() -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        out.extend(d.get("items", [d]))
    return out


@pytest.fixture
def snap(tmp_path: Path) -> SnapshotSource:
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    return SnapshotSource(path, tmp_path / "index")


async def test_by_doi(snap: SnapshotSource) -> None:
    work = next(w for w in works() if w["DOI"] == "10.1145/3448016.3452841")
    result = await snap.by_doi("https://doi.org/10.1145/3448016.3452841")
    assert result.outcome is Outcome.FOUND
    rec = result.records[0]
    assert rec.source == "snapshot"
    assert rec.title == work["title"][0]  # type: ignore[index]
    assert rec.subtitle == work["subtitle"][0]  # type: ignore[index]
    assert rec.authors[0].family == work["author"][0]["family"]  # type: ignore[index]
    assert rec.year == 2021


async def test_unknown_doi_not_found(snap: SnapshotSource) -> None:
    assert (await snap.by_doi("10.9999/not.in.snapshot")).outcome is Outcome.NOT_FOUND


async def test_every_record_is_indexed_including_page_lines(snap: SnapshotSource) -> None:
    for w in works():
        result = await snap.by_doi(str(w["DOI"]))
        assert result.outcome is Outcome.FOUND, w["DOI"]


async def test_search_by_title(snap: SnapshotSource) -> None:
    result = await snap.search(
        Query("approximation by superpositions of a sigmoidal function", limit=3)
    )
    assert result.records[0].doi == "10.1007/bf02551274"
    assert result.records[0].relevance is not None
    # words in another order, one missing, different case
    result = await snap.search(Query("PROTEIN data bank the", limit=3))
    assert result.records[0].title == "The Protein Data Bank"


async def test_search_with_authors_ranks_the_right_work(snap: SnapshotSource) -> None:
    result = await snap.search(Query("forecast trap", ("Boettiger",), limit=5))
    assert result.records[0].title == "The forecast trap"


async def test_search_that_matches_nothing(snap: SnapshotSource) -> None:
    result = await snap.search(Query("zzzqqq xxyyzz"))
    assert result.outcome is Outcome.NOT_FOUND
    assert (await snap.search(Query("the of and"))).outcome is Outcome.NOT_FOUND


async def test_notices_none_in_snapshot(snap: SnapshotSource) -> None:
    # the ppat record's update-to points at itself (new_version): not a notice about it
    result = await snap.notices("10.1371/journal.ppat.1008184")
    assert result.outcome is Outcome.NOT_FOUND


async def test_index_is_built_once_and_rebuilt_on_change(tmp_path: Path) -> None:
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    first = SnapshotSource(path, tmp_path / "index")
    await first.by_doi("10.1093/nar/28.1.235")
    index = first.index_path()
    assert index.exists()
    stamp = index.stat().st_mtime_ns
    first.close()
    second = SnapshotSource(path, tmp_path / "index")
    assert (await second.by_doi("10.1093/nar/28.1.235")).outcome is Outcome.FOUND
    assert index.stat().st_mtime_ns == stamp  # reused
    second.close()
    # keep only the first line: a new index, and the dropped works are gone
    path.write_text(DATA.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    third = SnapshotSource(path, tmp_path / "index")
    assert third.index_path() != index
    assert (await third.by_doi("10.1093/nar/28.1.235")).outcome is Outcome.NOT_FOUND
    assert (await third.by_doi("10.1371/journal.pone.0033693")).outcome is Outcome.FOUND
    third.close()


async def test_bad_lines_are_skipped(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    lines = DATA.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "works.jsonl"
    # a line cut in half (as by an interrupted download) between two good ones
    path.write_text(
        "\n".join([lines[0], lines[1][: len(lines[1]) // 2], lines[5]]) + "\n", encoding="utf-8"
    )
    snap = SnapshotSource(path, tmp_path / "index")
    assert (await snap.by_doi("10.1093/nar/28.1.235")).outcome is Outcome.FOUND
    assert (await snap.by_doi("10.1145/3448016.3452841")).outcome is Outcome.NOT_FOUND
    assert snap.skipped == 1
    snap.close()
    # said once, where it was counted and never said
    said = [r.getMessage() for r in caplog.records if r.name == "citewarden.snapshot"]
    assert said == [
        f"the snapshot {path}: 1 work skipped (a line that is not JSON or too long, or a work"
        " with no DOI or no usable record), the first on line 2"
    ]


async def test_missing_file_is_failed(tmp_path: Path) -> None:
    snap = SnapshotSource(tmp_path / "nope.jsonl", tmp_path / "index")
    result = await snap.by_doi("10.1093/nar/28.1.235")
    assert result.outcome is Outcome.FAILED and "snapshot" in (result.reason or "")


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
async def test_a_snapshot_that_is_not_a_regular_file_fails_at_once(
    tmp_path: Path, special: str
) -> None:
    """A snapshot named in settings (a cloned repository's file can name one) that is a
    FIFO blocked the run for ever, and /dev/zero read one endless line into memory."""
    import os

    path = Path(special)
    if special == "fifo":
        path = tmp_path / "works.jsonl"
        os.mkfifo(path)
    snap = SnapshotSource(path, tmp_path / "index")
    result = await asyncio.wait_for(snap.by_doi("10.1093/nar/28.1.235"), 30)
    assert result.outcome is Outcome.FAILED
    kind = "a device" if special == "/dev/zero" else "a named pipe (FIFO)"
    assert result.reason == f"snapshot unreadable: {kind}, not a regular file; it is not read"
    snap.close()


async def test_a_line_longer_than_the_cap_is_skipped_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewarden.verify.sources import snapshot

    monkeypatch.setattr(snapshot, "MAX_LINE", 100_000)
    lines = DATA.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "works.jsonl"
    path.write_text("\n".join([lines[0], "[" * 200_000, lines[5]]) + "\n", encoding="utf-8")
    snap = SnapshotSource(path, tmp_path / "index")
    assert (await snap.by_doi("10.1093/nar/28.1.235")).outcome is Outcome.FOUND
    assert snap.skipped == 1
    snap.close()


async def test_registry_puts_snapshot_first(tmp_path: Path) -> None:
    settings = VerifySettings(sources=("crossref", "openalex"), snapshot=str(DATA), offline=True)
    sources = build_sources(settings, cache=None, snapshot_index_dir=tmp_path / "idx", env={})
    assert [s.name for s in sources] == ["snapshot", "crossref", "openalex"]
    assert isinstance(sources[0], SnapshotSource)
    assert all(isinstance(s, CachedSource) and s.offline for s in sources[1:])
    assert (await sources[0].by_doi("10.1093/nar/28.1.235")).outcome is Outcome.FOUND
    sources[0].close()


async def test_a_work_without_a_usable_record_is_held_not_missing(tmp_path: Path) -> None:
    """A snapshot work of which no record can be made (a real journal issue with no title)
    was left out of the index, so its DOI was "not found" although the file holds it: a
    failure that says nothing of the DOI, while the works beside it are found as before."""
    page = json.loads(
        (DATA.parent.parent / "api" / "crossref")
        .joinpath("test-crossref_reader__test_get_random_crossref_id__00.json")
        .read_text(encoding="utf-8")
    )
    (issue,) = page["message"]["items"]
    assert "title" not in issue
    path = tmp_path / "works.jsonl"
    lines = DATA.read_text(encoding="utf-8").splitlines()
    path.write_text(f"{lines[0]}\n{json.dumps(issue)}\n", encoding="utf-8")
    snap = SnapshotSource(path, tmp_path / "index")
    held = await snap.by_doi(str(issue["DOI"]).upper())
    assert held.outcome is Outcome.FAILED
    assert held.reason == "the snapshot holds no usable record of it"
    assert (await snap.by_doi("10.9999/not.in.snapshot")).outcome is Outcome.NOT_FOUND
    assert (await snap.by_doi(json.loads(lines[0])["DOI"])).outcome is Outcome.FOUND
    assert snap.skipped == 1
    snap.close()


async def test_a_notice_without_a_title_answers_for_the_work_it_updates(tmp_path: Path) -> None:
    """A notice deposited without a title is known by what it updates, as on Crossref's
    own notices look-up: the snapshot keeps it (the correction notice about PLoS ONE's
    recorded 10.1371/journal.pone.0033693, as tests/test_untitled_notices.py derives it)."""
    from test_untitled_notices import WORK, untitled_notice

    notice_doi, notice = untitled_notice()
    pone = json.loads(
        (
            DATA.parent.parent / "api" / "crossref" / "test-works__test_works_with_one_id.json"
        ).read_text(encoding="utf-8")
    )["message"]
    path = tmp_path / "works.jsonl"
    path.write_text(f"{json.dumps(pone)}\n{json.dumps(notice)}\n", encoding="utf-8")
    snap = SnapshotSource(path, tmp_path / "index")
    found = await snap.notices(WORK)
    assert found.outcome is Outcome.FOUND, found.reason
    (record,) = found.records
    assert record.is_notice and record.title == "" and record.doi == notice_doi.lower()
    assert [(u.kind, u.doi, u.date) for u in record.updates] == [
        (UpdateKind.CORRECTION, WORK, "2012-05-08")
    ]
    assert snap.skipped == 0
    # the notice's own DOI is held, with no record to compare: no "not found"
    assert (await snap.by_doi(notice_doi)).outcome is Outcome.FAILED
    snap.close()


@pytest.mark.parametrize("damage", ["truncated", "random", "empty", "fifo"])
async def test_a_damaged_index_is_built_again_and_said_once(
    tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An index SQLite cannot use is removed and built again, where every look-up of the
    snapshot failed on every run until the snapshot itself changed."""
    path = tmp_path / "works.jsonl"
    shutil.copy(DATA, path)
    first = SnapshotSource(path, tmp_path / "index")
    assert (await first.by_doi("10.1145/3448016.3452841")).outcome is Outcome.FOUND
    first.close()
    index = first.index_path()
    if damage == "truncated":
        index.write_bytes(index.read_bytes()[:1000])
    elif damage == "random":
        index.write_bytes(os.urandom(8192))
    elif damage == "empty":
        index.write_bytes(b"")
    else:  # opened, a FIFO would block reading
        index.unlink()
        os.mkfifo(index)
    again = SnapshotSource(path, tmp_path / "index")
    found = await asyncio.wait_for(again.by_doi("10.1145/3448016.3452841"), 30)
    assert found.outcome is Outcome.FOUND, found
    assert (await again.by_doi("10.9999/not.in.snapshot")).outcome is Outcome.NOT_FOUND
    again.close()
    said = [r for r in caplog.records if "building it again" in r.getMessage()]
    assert len(said) == 1


def test_check_says_the_works_a_snapshot_skips(tmp_path: Path) -> None:
    """A file that is no snapshot (a .bib given by mistake) ran silently: every line was
    skipped and every entry unverified with no word why."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n\n@misc{b, title = {B}}\n")
    done = run_citewarden(
        ["check", "refs.bib", "--offline", "--snapshot", "refs.bib", "--fail-on", "never"],
        tmp_path,
        {"CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 0, done.stderr
    assert (
        f"citewarden: warning: the snapshot {tmp_path / 'refs.bib'}: 2 works skipped (a line"
        " that is not JSON or too long, or a work with no DOI or no usable record), the first"
        " on line 1"
    ) in done.stderr.splitlines()
