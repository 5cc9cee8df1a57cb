"""Search and rank over the replay server of real recorded responses (dblp searches and
Crossref work records; tests/data/addref/api), through the real sources, HTTP client and
cache."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

import replay as replay_fixtures
from citewarden.addref.keys import read_key
from citewarden.addref.lookup import (
    Ambiguous,
    describe,
    find_for_key,
    identifier_lookup,
    parse_identifier,
    score,
    title_works,
    work_identifier,
)
from citewarden.cache import Cache
from citewarden.verify.base import Source
from citewarden.verify.records import Lookup, Outcome, Person, WorkRecord
from citewarden.verify.search_order import MAX_QUERY_TITLE
from citewarden.verify.sources import (
    CachedSource,
    CrossrefSource,
    DataCiteSource,
    DblpSource,
    OpenAlexSource,
    SemanticScholarSource,
)
from replay import ReplayServer, fast_http

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

ADDREF_API = Path(__file__).parent / "data" / "addref" / "api"

#: key -> the DOI of the work it names (each a different key style)
KEYS = {
    "cybenko1989approximation": "10.1007/bf02551274",  # Google Scholar
    "DBLP:journals/nn/Hornik91": "10.1016/0893-6080(91)90009-t",  # DBLP
    "Hornik1991": "10.1016/0893-6080(91)90009-t",  # JabRef
    "Funahashi:1989": "10.1016/0893-6080(89)90003-8",  # Author:Year
    "sachan_self-training_2018": "10.18653/v1/n18-1058",  # author_word_year
    "sullivanPyVista3DPlotting2019": "10.21105/joss.01450",  # Better BibTeX
    "Stinchcombe1999": "10.1016/s0893-6080(98)00108-7",  # JabRef
}


@pytest.fixture
def server(replay: ReplayServer) -> ReplayServer:
    replay.load(ADDREF_API)
    return replay


@pytest_asyncio.fixture
async def sources(server: ReplayServer, tmp_path: Path) -> AsyncIterator[list[Source]]:
    http = fast_http()
    cache = Cache(tmp_path / "cache")
    made: list[Source] = [
        CachedSource(DblpSource(http, server.base_url("dblp")), cache),
        CachedSource(
            CrossrefSource(http, server.base_url("crossref"), mailto="t@example.org"), cache
        ),
    ]
    yield made
    await http.aclose()
    cache.close()


@pytest.mark.parametrize(("key", "doi"), sorted(KEYS.items()))
async def test_each_key_style_finds_its_work_doi_first(
    key: str, doi: str, sources: list[Source], server: ReplayServer
) -> None:
    found = await find_for_key(read_key(key), sources)
    assert found.candidates, found.why_nothing()
    best = found.candidates[0].record
    assert best.doi == doi
    assert best.source == "crossref"  # re-read from the DOI's own record
    assert {"dblp", "crossref"} <= set(found.candidates[0].sources)
    assert not server.unmatched and not found.failures


async def test_a_key_naming_no_work_has_no_candidate_and_says_why(
    sources: list[Source], server: ReplayServer
) -> None:
    found = await find_for_key(read_key("zzyzx2031quux"), sources)
    assert found.candidates == () and found.asked == ("dblp", "crossref")
    assert "no work by zzyzx 2031 agrees" in found.why_nothing()
    assert not server.unmatched


async def test_the_second_look_comes_from_the_cache(
    sources: list[Source], server: ReplayServer
) -> None:
    key = read_key("Funahashi:1989")
    await find_for_key(key, sources)
    before = len(server.log)
    again = await find_for_key(key, sources)
    assert len(server.log) == before
    assert again.candidates[0].record.doi == "10.1016/0893-6080(89)90003-8"


async def test_a_failed_source_is_not_no_such_work(
    sources: list[Source], server: ReplayServer
) -> None:
    server.inject("503", path="/dblp", times=10)
    server.inject("503", path="/crossref", times=10)
    found = await find_for_key(read_key("zzyzx2031quux"), sources)
    assert found.candidates == ()
    assert found.why_nothing().startswith("no source answered (dblp: ")


def test_candidates_must_agree_on_surname_year_and_a_title_word() -> None:
    rec = WorkRecord(
        source="dblp",
        title="Deep Residual Learning for Image Recognition",
        authors=(Person("He", "Kaiming"),),
        year=2016,
    )
    assert score(read_key("he2016deep"), rec) is not None
    assert score(read_key("he2017deep"), rec) is None  # year
    assert score(read_key("ho2016deep"), rec) is None  # surname
    assert score(read_key("he2016attention"), rec) is None  # title word
    pre = WorkRecord(source="dblp", title=rec.title, authors=rec.authors, year=2015, venue="CoRR")
    assert score(read_key("he2016deep"), pre) is not None  # a preprint a year earlier
    assert score(read_key("he2016deep"), rec) > score(read_key("he2016deep"), pre)  # type: ignore[operator]
    accented = WorkRecord(
        source="x", title="Über Dinge", authors=(Person("Gödel", "K."),), year=1931
    )
    assert score(read_key("godel1931uber"), accented) is not None


def test_identifiers_are_told_apart() -> None:
    assert parse_identifier("https://doi.org/10.1007/BF02551274") == ("doi", "10.1007/bf02551274")
    assert parse_identifier("arXiv:1706.03762v5") == ("arxiv", "1706.03762")
    assert parse_identifier("978-0-201-13448-3")[0] == "isbn"
    assert parse_identifier("PMID: 22431983") == ("pmid", "22431983")
    assert parse_identifier("Attention is all you need") == ("title", "Attention is all you need")


async def test_a_doi_is_looked_up_at_crossref(sources: list[Source]) -> None:
    found = await identifier_lookup("10.21105/joss.01450", sources)
    assert found.outcome is Outcome.FOUND and found.records[0].title.startswith("PyVista")
    label = describe(found.records[0])
    assert label.startswith("Sullivan and Kaszynski 2019, PyVista: 3D plotting")


async def test_offline_with_an_empty_cache_says_why(server: ReplayServer, tmp_path: Path) -> None:
    http = fast_http()
    cache = Cache(tmp_path / "offline-cache")
    try:
        offline: list[Source] = [
            CachedSource(DblpSource(http, server.base_url("dblp")), cache, offline=True),
            CachedSource(CrossrefSource(http, server.base_url("crossref")), cache, offline=True),
        ]
        found = await find_for_key(read_key("Funahashi:1989"), offline)
    finally:
        await http.aclose()
        cache.close()
    assert found.candidates == () and not server.log
    assert found.why_nothing() == (
        "no source answered (dblp: offline: not in cache; crossref: offline: not in cache)"
    )


def test_action_titles_hold_no_control_characters() -> None:
    rec = WorkRecord(
        source="x", title="Evil\u202e title\x1b[2J\nnext", authors=(Person("Roe"),), year=2001
    )
    assert describe(rec) == "Roe 2001, Evil title[2J next"


async def test_a_title_is_found_by_an_exactly_agreeing_search_hit(
    server: ReplayServer, sources: list[Source]
) -> None:
    dblp = [s for s in sources if s.name == "dblp"]
    asked = "3d human pose and shape estimation from lidar point clouds: A review"  # recorded
    found = await identifier_lookup(asked, dblp)
    title = "3D Human Pose and Shape Estimation from LiDAR Point Clouds: A Review"
    assert found.outcome is Outcome.FOUND and found.records[0].title == title
    assert found.records[0].authors[0].family == "Galaaoui"
    server.add_route(  # the same real answer, for a query no hit's title agrees with
        "https://dblp.org/search/publ/api?q=3d+human+pose&format=json&h=5",
        (
            ADDREF_API.parent.parent / "api" / "dblp" / "refchecker_search_30a6debc25.json"
        ).read_bytes(),
    )
    nothing = await identifier_lookup("3d human pose", dblp)
    assert nothing.outcome is Outcome.NOT_FOUND


async def _later_round(server: ReplayServer, third: Source, key: str) -> tuple[Any, list[str]]:
    http = third.http  # type: ignore[attr-defined]
    made: list[Source] = [
        DblpSource(http, server.base_url("dblp")),
        CrossrefSource(http, server.base_url("crossref")),
        third,
    ]
    found = await find_for_key(read_key(key), made)
    return found, [s.path.split("/")[1] for s in server.log]


async def test_openalex_answers_when_dblp_and_crossref_have_nothing(
    server: ReplayServer, tmp_path: Path
) -> None:
    http = fast_http()
    try:
        found, asked = await _later_round(
            server, OpenAlexSource(http, server.base_url("openalex")), "ioffe2015batch"
        )
    finally:
        await http.aclose()
    assert found.asked == ("dblp", "crossref", "openalex") and not server.unmatched
    assert asked == ["dblp", "crossref", "openalex"]  # one round after the other
    best = found.candidates[0].record
    assert best.source == "openalex" and best.title.startswith("Batch Normalization")
    assert best.doi == "10.48550/arxiv.1502.03167"


async def test_semantic_scholar_answers_when_dblp_and_crossref_have_nothing(
    server: ReplayServer, tmp_path: Path
) -> None:
    http = fast_http()
    try:
        found, _ = await _later_round(
            server,
            SemanticScholarSource(http, server.base_url("semanticscholar")),
            "gorishniy2021revisiting",
        )
    finally:
        await http.aclose()
    assert not server.unmatched
    best = found.candidates[0].record
    assert best.source == "semanticscholar"
    assert best.title == "Revisiting Deep Learning Models for Tabular Data" and best.year == 2021


async def test_a_title_several_works_have_is_not_resolved_to_the_first(
    sources: list[Source],
) -> None:
    """Crossref's answer holds Shannon's two papers of 1948, one title: the first was added."""
    crossref = [s for s in sources if s.name == "crossref"]
    found = await identifier_lookup("A mathematical theory of communication", crossref)
    assert isinstance(found, Ambiguous)
    assert [r.doi for r in found.records] == [
        "10.1002/j.1538-7305.1948.tb01338.x",
        "10.1002/j.1538-7305.1948.tb00917.x",
    ]
    assert found.message() == (
        "2 works are titled 'A mathematical theory of communication' (crossref):\n"
        "  Shannon 1948, A Mathematical Theory of Communication"
        " (DOI 10.1002/j.1538-7305.1948.tb01338.x)\n"
        "  Shannon 1948, A Mathematical Theory of Communication"
        " (DOI 10.1002/j.1538-7305.1948.tb00917.x)\n"
        "give the DOI of the one meant instead of its title"
    )


def test_a_preprint_of_a_titled_work_is_the_same_work() -> None:
    author = (Person("Kim", "J."),)
    published = WorkRecord(
        source="openalex", title="Binding Touch", authors=author, year=2024, doi="10.1109/x.1"
    )
    preprint = WorkRecord(
        source="openalex",
        title="Binding touch.",
        authors=author,
        year=2024,
        doi="10.48550/arxiv.2401.18084",
    )
    other = WorkRecord(source="crossref", title="Binding Touch", authors=(Person("Roe"),))
    assert title_works([preprint, published], "binding touch") == [published]
    assert title_works([preprint, published, other], "binding touch") == [published, other]


#: "Deep learning": three works (a paper with a DOI, two books with an ISBN and none) and a
#: paper an index lists with no identifier, as dblp and OpenAlex answer for such a title.
LECUN = WorkRecord(
    source="crossref",
    title="Deep learning",
    authors=(Person("LeCun", "Yann"), Person("Bengio", "Yoshua"), Person("Hinton", "Geoffrey")),
    year=2015,
    doi="10.1038/nature14539",
    venue="Nature",
    work_type="journal-article",
)
GOODFELLOW = WorkRecord(
    source="openalex",
    title="Deep Learning",
    authors=(Person("Goodfellow", "Ian"), Person("Bengio", "Yoshua"), Person("Courville", "Aaron")),
    year=2016,
    isbn=("9780262035613",),
    publisher="MIT Press",
    work_type="book",
)
KELLEHER_CHAPTER = WorkRecord(
    source="openalex",
    title="Deep Learning",
    authors=(Person("Kelleher", "John D."),),
    year=2019,
    isbn=("9780262537551",),  # the book's: it names the book, not this chapter
    work_type="book-chapter",
)
WORKSHOP = WorkRecord(
    source="dblp", title="Deep learning.", authors=(Person("Ng", "Andrew Y."),), year=2011
)


def test_works_of_one_title_are_named_by_any_identifier_add_reads() -> None:
    """The works without a DOI were listed with "no DOI" and the advice to give the DOI."""
    works = title_works([LECUN, GOODFELLOW, KELLEHER_CHAPTER, WORKSHOP], "deep learning")
    found = Ambiguous("Deep learning", "openalex", tuple(works))
    assert found.nameable
    assert found.message() == (
        "4 works are titled 'Deep learning' (openalex):\n"
        "  LeCun 2015, Deep learning (DOI 10.1038/nature14539)\n"
        "  Goodfellow 2016, Deep Learning (ISBN:9780262035613)\n"
        "  Kelleher 2019, Deep Learning (no DOI, arXiv id, PMID or ISBN to name it by)\n"
        "  Ng 2011, Deep learning. (no DOI, arXiv id, PMID or ISBN to name it by)\n"
        "give the DOI, arXiv id, PMID or ISBN shown of the one meant instead of its title\n"
        "a work with none can be added only by writing its entry"
    )
    preprint = WorkRecord(
        source="arxiv", title="Deep learning", authors=(Person("Roe"),), arxiv_id="1807.01234"
    )
    indexed = WorkRecord(source="pubmed", title="Deep learning", pmid="26017442")
    named = [work_identifier(r) for r in (LECUN, GOODFELLOW, preprint, indexed)]
    assert named == [
        "10.1038/nature14539",
        "ISBN:9780262035613",
        "arXiv:1807.01234",
        "PMID:26017442",
    ]
    assert [parse_identifier(n) for n in named if n] == [
        ("doi", "10.1038/nature14539"),
        ("isbn", "9780262035613"),
        ("arxiv", "1807.01234"),
        ("pmid", "26017442"),
    ]


def test_works_of_one_title_none_named_by_an_identifier_give_the_first_with_a_warning() -> None:
    found = Ambiguous("Deep learning", "dblp", (WORKSHOP, KELLEHER_CHAPTER))
    assert not found.nameable
    assert found.warning() == (
        "2 works are titled 'Deep learning' (dblp), none with a DOI, arXiv id, PMID or ISBN to"
        " choose it by: added the first, Ng 2011, Deep learning.; not the others:"
        " Kelleher 2019, Deep Learning"
    )


async def test_a_key_semantic_scholar_finds_nothing_for_has_no_failure(
    server: ReplayServer,
) -> None:
    """Semantic Scholar answers a search nothing matches with ``{"total": 0, "offset": 0}``
    (recorded; no ``data``): an answered search with no hits, not a failed source."""
    http = fast_http()
    try:
        found, asked = await _later_round(
            server,
            SemanticScholarSource(http, server.base_url("semanticscholar")),
            "zzyzx2031quux",
        )
    finally:
        await http.aclose()
    assert asked == ["dblp", "crossref", "semanticscholar"] and not server.unmatched
    assert found.candidates == () and found.failures == ()
    assert found.why_nothing() == "no work by zzyzx 2031 agrees with the key"


async def test_a_failed_doi_source_is_not_hidden_by_another_ones_not_found(
    server: ReplayServer,
) -> None:
    """Crossref fails (503, retries used up); DataCite answers its recorded 404 for the DOI.
    DataCite holds only its own DOIs, so the DOI is not "not found": Crossref said nothing."""
    doi = "10.4124/05f6c379-dd68-4cdb-880d-33d3e9576d52/1"  # DataCite's recorded 404
    server.inject("503", path="/crossref", times=10)
    http = fast_http()
    made: list[Source] = [
        CrossrefSource(http, server.base_url("crossref"), mailto="t@example.org"),
        DataCiteSource(http, server.base_url("datacite")),
    ]
    try:
        found = await identifier_lookup(doi, made)
    finally:
        await http.aclose()
    assert [s.path.split("/")[1] for s in server.log][-1] == "datacite"  # DataCite answered
    assert found.outcome is Outcome.FAILED and found.source == "crossref"
    assert found.reason is not None and "HTTP 503" in found.reason
    assert not server.unmatched


async def test_a_failed_search_is_not_hidden_by_another_ones_not_found(
    sources: list[Source], server: ReplayServer
) -> None:
    """A title: Crossref fails, dblp answers (its recorded hits, none titled so); the title
    is not "not found": Crossref said nothing."""
    server.add_route(  # the recorded answer of the title lookup test above
        "https://dblp.org/search/publ/api?q=3d+human+pose&format=json&h=5",
        (
            ADDREF_API.parent.parent / "api" / "dblp" / "refchecker_search_30a6debc25.json"
        ).read_bytes(),
    )
    server.inject("503", path="/crossref", times=10)
    found = await identifier_lookup("3d human pose", sources)
    assert isinstance(found, Lookup)
    assert found.outcome is Outcome.FAILED and found.source == "crossref"
    assert not server.unmatched


async def test_a_huge_title_is_searched_with_a_capped_query(
    server: ReplayServer, sources: list[Source]
) -> None:
    # 200 kB of words: the whole title in the address failed with InvalidURL at each source
    server.add_route(  # dblp's real answer to a search of the title's first words
        "https://dblp.org/search/publ/api",
        (
            ADDREF_API.parent.parent / "api" / "dblp" / "refchecker_search_30a6debc25.json"
        ).read_bytes(),
        any_query=True,
    )
    dblp = [s for s in sources if s.name == "dblp"]
    asked = "3d human pose and shape estimation from lidar point clouds " * 3500
    found = await identifier_lookup(asked, dblp)
    assert found.outcome is Outcome.NOT_FOUND
    asks = [s for s in server.log if s.path.startswith("/dblp/")]
    assert len(asks) == 1 and MAX_QUERY_TITLE < len(asks[0].query) < 2 * MAX_QUERY_TITLE
