"""A Crossref notice deposited without a title is still a notice: it is known by what it
updates (``update-to``: the work, the kind, the date), and an answer to ``filter=updates:``
that holds it, alone or beside titled records, keeps it.

Over the replay server (real recorded responses, the real HTTP client): the notices page is
composed by tests/batch_replay.py from the recorded ``/works/{doi}`` messages whose
``update-to`` names a DOI asked.  Two of them: PLoS Pathogens' real record
10.1371/journal.ppat.1008184 (titled; its ``update-to`` is a "new_version" of itself, so
``filter=updates:`` lists it, but it is no notice), and the correction notice
10.1371/annotation/c76da2c1-ccb8-4797-94c1-359d3ceceeda about PLoS ONE's
10.1371/journal.pone.0033693, DERIVED from the ``updated-by`` entry of PLoS ONE's recorded
record (tests/data/api/crossref/test-works__test_works_with_one_id.json): the same update
object, its DOI the work it updates, as Crossref mirrors ``update-to`` into ``updated-by``;
no title, which is how the notice is deposited in the case at hand."""

from __future__ import annotations

import json
from pathlib import Path

from batch_replay import serve_batches
from citewarden.cache import Cache
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Outcome, UpdateKind
from citewarden.verify.sources import CachedSource, CrossrefSource
from replay import ReplayServer, recorded_json, replay, replay_http, replay_server

__all__ = ["replay", "replay_http", "replay_server"]

WORK = "10.1371/journal.pone.0033693"
TITLED = "10.1371/journal.ppat.1008184"


def untitled_notice() -> tuple[str, dict[str, object]]:
    """The correction notice about PLoS ONE's record, as a work message with no title."""
    pone = recorded_json("crossref", "test-works__test_works_with_one_id.json")["message"]
    (update,) = pone["updated-by"]
    notice_doi = update["DOI"]
    return notice_doi, {
        "DOI": notice_doi,
        "type": "journal-article",
        "update-to": [{**update, "DOI": pone["DOI"]}],
    }


def serve(srv: ReplayServer) -> str:
    serve_batches(srv)
    notice_doi, message = untitled_notice()
    work = {"status": "ok", "message-type": "work", "message-version": "1.0.0", "message": message}
    srv.add_route(f"https://api.crossref.org/works/{notice_doi}", json.dumps(work).encode())
    return notice_doi.lower()


async def test_an_untitled_notice_beside_a_titled_record_is_kept(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    notice_doi = serve(replay)
    src = CrossrefSource(replay_http, replay.base_url("crossref"))
    out = await src.notices_many([TITLED, WORK])
    assert out[TITLED].outcome is Outcome.NOT_FOUND  # its own new version is no notice
    found = out[WORK]
    assert found.outcome is Outcome.FOUND
    (notice,) = found.records
    assert notice.is_notice and notice.title == "" and notice.doi == notice_doi
    assert [(u.kind, u.doi, u.date) for u in notice.updates] == [
        (UpdateKind.CORRECTION, WORK, "2012-05-08")
    ]
    assert replay.unmatched == []


async def test_a_page_of_one_untitled_notice_is_an_answer_kept_in_the_cache(
    replay: ReplayServer, replay_http: HttpClient, tmp_path: Path
) -> None:
    notice_doi = serve(replay)
    store = Cache(tmp_path / "cache")
    try:
        src = CachedSource(CrossrefSource(replay_http, replay.base_url("crossref")), store)
        first = await src.notices(WORK)
        again = await src.notices(WORK)
    finally:
        store.close()
    assert first.outcome is Outcome.FOUND and not first.from_cache
    assert again.from_cache and again.records == first.records
    assert [r.doi for r in again.records] == [notice_doi]
    assert [u.kind for u in again.records[0].updates] == [UpdateKind.CORRECTION]
