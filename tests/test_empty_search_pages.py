"""A search page without hits is "no hits" only when it counts none.

Each service's real search page counts its hits (OpenAlex ``meta.count``, DataCite
``meta.total``, PubMed's ``<Count>``, arXiv's ``opensearch:totalResults``).  A page without
hits that does not count them (an answer of another shape, damaged on the way), or that counts
hits it does not hold (a partial page), says nothing: the search FAILED, never NOT_FOUND.
The loopback server serves real recorded pages, whole and damaged."""

from __future__ import annotations

import json
import re
from typing import Any

from citewarden.verify.http import HttpClient
from citewarden.verify.records import Lookup, Outcome, Query
from citewarden.verify.sources import (
    ArxivSource,
    CrossrefSource,
    DataCiteSource,
    OpenAlexSource,
    PubMedSource,
    SemanticScholarSource,
)
from hostile_server import Behaviour, HostileServer, hostile
from paths import DATA
from replay import recorded, recorded_json

__all__ = ["hostile"]

QUERY = Query("Deep learning for the masses")


def _served(hostile: HostileServer, path: str, page: Any) -> None:
    hostile.route(path, Behaviour("ok", body=json.dumps(page).encode()))


async def _openalex(hostile: HostileServer) -> Lookup:
    http = HttpClient()
    try:
        return await OpenAlexSource(http, hostile.url).search(QUERY)
    finally:
        await http.aclose()


async def _datacite(hostile: HostileServer) -> Lookup:
    http = HttpClient()
    try:
        return await DataCiteSource(http, hostile.url).search(QUERY)
    finally:
        await http.aclose()


async def test_an_openalex_search_page_without_works_or_count_says_nothing(
    hostile: HostileServer,
) -> None:
    """OpenAlex's search page counts its works (``meta.count``); the recorded page whose
    ``meta`` has no count, its works left out, is no "no hits"."""
    page = recorded_json("openalex", "refchecker_search_works.json")
    assert "count" not in page["meta"]
    _served(hostile, "/works", page)
    assert (await _openalex(hostile)).outcome is Outcome.FOUND
    _served(hostile, "/works", {**page, "results": []})
    got = await _openalex(hostile)
    assert got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a page without hits that does not count them"


async def test_a_datacite_search_page_without_works_says_nothing_unless_it_counts_none(
    hostile: HostileServer,
) -> None:
    """DataCite's ``/dois`` search page counts its works (``meta.total``): the recorded page
    with its works left out is a partial page, and with its count left out too, an answer
    of another shape; neither says the search has no hits."""
    page = recorded_json("datacite", "rdatacite_dc_dois.json")
    _served(hostile, "/dois", page)
    assert (await _datacite(hostile)).outcome is Outcome.FOUND
    _served(hostile, "/dois", {**page, "data": []})
    got = await _datacite(hostile)
    assert got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a page without the 18666188 hits it counts"
    _served(hostile, "/dois", {"data": [], "links": page["links"]})
    got = await _datacite(hostile)
    assert got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a page without hits that does not count them"


async def _esearch(hostile: HostileServer, body: bytes) -> list[str] | Lookup:
    hostile.route("/entrez/eutils/esearch.fcgi", Behaviour("ok", body=body))
    http = HttpClient()
    try:
        return await PubMedSource(http, hostile.url).esearch("biopython", limit=20)
    finally:
        await http.aclose()


async def test_an_esearch_answer_without_ids_is_no_hits_only_when_it_counts_none(
    hostile: HostileServer,
) -> None:
    """PubMed's esearch answer counts its hits (``<Count>``): the recorded answer with its
    ids left out is a partial answer, and with its ``<Count>`` left out too an answer of
    another shape; both FAILED, where they were read as "no PMID matches"."""
    real = recorded("pubmed", "esearch1.xml")
    assert isinstance(await _esearch(hostile, real), list)
    no_ids = re.sub(rb"<IdList>.*</IdList>", b"<IdList></IdList>", real, flags=re.DOTALL)
    got = await _esearch(hostile, no_ids)
    assert isinstance(got, Lookup) and got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a page without the 63 hits it counts"
    uncounted = no_ids.replace(b"<Count>63</Count>", b"", 1)
    got = await _esearch(hostile, uncounted)
    assert isinstance(got, Lookup) and got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a page without hits that does not count them"


def _uncounted(feed: bytes) -> bytes:
    """An arXiv feed with its ``opensearch:totalResults`` left out."""
    out = re.sub(rb"<opensearch:totalResults[^>]*>[0-9]+</opensearch:totalResults>", b"", feed)
    assert out != feed
    return out


async def test_an_arxiv_feed_that_does_not_count_says_no_id_absent(
    hostile: HostileServer,
) -> None:
    """Every arXiv feed counts its entries (``opensearch:totalResults``).  The recorded
    answer to a batch of two ids, which holds one, says the other absent; without its count
    it says nothing of it (nor does a search feed without its count say "no hits")."""
    batch = recorded("arxiv", "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af.xml")
    http = HttpClient()
    src = ArxivSource(http, hostile.url)
    try:
        hostile.route("/api/query", Behaviour("ok", body=batch))
        got = await src.by_arxivs(["0808.05394", "1707.08567"])
        assert got["0808.05394"].outcome is Outcome.NOT_FOUND
        assert got["1707.08567"].outcome is Outcome.FOUND
        hostile.route("/api/query", Behaviour("ok", body=_uncounted(batch)))
        got = await src.by_arxivs(["0808.05394", "1707.08567"])
        assert {a.outcome for a in got.values()} == {Outcome.FAILED}
        assert got["0808.05394"].reason == "malformed response: a feed that does not count"
        search = recorded("arxiv", "search_del_maestro_quantum_criticality.xml")
        empty = re.sub(rb"<entry>.*</entry>", b"", _uncounted(search), flags=re.DOTALL)
        hostile.route("/api/query", Behaviour("ok", body=empty))
        found = await src.search(Query("quantum criticality", authors=("del Maestro",)))
        assert found.outcome is Outcome.FAILED
    finally:
        await http.aclose()


def _venue_page(name: str) -> Any:
    return json.loads((DATA / "venue_search" / name).read_text(encoding="utf-8"))


async def test_a_venue_search_page_without_venues_says_none_only_when_it_counts_none(
    hostile: HostileServer,
) -> None:
    """A venue no registry lists is said not to exist: OpenAlex's ``/sources`` page that
    counts no source says so, but the recorded OpenAlex list page whose ``meta`` does not
    count, its items left out, and Crossref's ``/journals`` page (which does not count
    either) with its journals left out say nothing."""
    http = HttpClient()
    openalex, crossref = OpenAlexSource(http, hostile.url), CrossrefSource(http, hostile.url)
    try:
        _served(hostile, "/sources", _venue_page("openalex/documented_sources_no_results.json"))
        assert (await openalex.venues("Quantum Privacy")).outcome is Outcome.NOT_FOUND
        page = recorded_json("openalex", "refchecker_search_works.json")
        _served(hostile, "/sources", {**page, "results": []})
        got = await openalex.venues("Quantum Privacy")
        assert got.outcome is Outcome.FAILED
        assert got.reason == "malformed response: a page without hits that does not count them"
        journals = _venue_page("crossref/documented_journals_prl.json")
        _served(hostile, "/journals", journals)
        assert (await crossref.venues("Phys Rev Lett")).outcome is Outcome.FOUND
        emptied = {**journals, "message": {**journals["message"], "items": []}}
        _served(hostile, "/journals", emptied)
        assert (await crossref.venues("Phys Rev Lett")).outcome is Outcome.FAILED
    finally:
        await http.aclose()


async def test_a_journal_search_answer_of_another_kind_says_no_venue_absent(
    hostile: HostileServer,
) -> None:
    """Crossref's documented ``/journals`` page with none of its journals and a count of
    none, under an envelope that is not an ok journal list (an error sent with HTTP 200,
    another resource's answer): no answer, where the count of none said no journal has
    the name."""
    journals = _venue_page("crossref/documented_journals_prl.json")
    none = {**journals["message"], "items": [], "total-results": 0}
    http = HttpClient()
    crossref = CrossrefSource(http, hostile.url)
    try:
        _served(hostile, "/journals", {**journals, "message": none})
        assert (await crossref.venues("Phys Rev Lett")).outcome is Outcome.NOT_FOUND
        for envelope, why in (
            ({"status": "failed"}, "a Crossref answer whose status is not ok"),
            ({"message-type": "work-list"}, "a Crossref answer that is not a journal-list"),
        ):
            _served(hostile, "/journals", {**journals, **envelope, "message": none})
            got = await crossref.venues("Phys Rev Lett")
            assert got.outcome is Outcome.FAILED
            assert got.reason == f"malformed response: {why}"
    finally:
        await http.aclose()


async def test_an_nlm_catalog_answer_without_ids_or_count_is_no_answer(
    hostile: HostileServer,
) -> None:
    """An E-utilities esearch answer counts its hits (``count``; PubMed's recorded ones
    all do): the catalog answer with its ids left out and no count says nothing, never
    the "no such journal" that counts as "not in PubMed"."""
    body = recorded_json("pubmed", "documented_nlmcatalog_esearch_0090-0036.json")
    assert "count" not in body["esearchresult"]
    body["esearchresult"]["idlist"] = []
    hostile.route("/entrez/eutils/esearch.fcgi", Behaviour("ok", json.dumps(body).encode()))
    http = HttpClient()
    try:
        answer = await PubMedSource(http, hostile.url).journal("0090-0036")
    finally:
        await http.aclose()
    assert answer.outcome is Outcome.FAILED
    assert answer.reason == "malformed response: a page without hits that does not count them"
    assert not hostile.seen("/entrez/eutils/esummary.fcgi")


async def test_an_efetch_article_without_a_usable_record_is_no_not_found(
    hostile: HostileServer,
) -> None:
    """PubMed's efetch answer holding the PMID asked (``<PMID>``) but whose article gives
    no record (a damaged answer: its ``<ArticleTitle>`` left out) says PubMed holds it: the
    look-up FAILED, where it said the PMID does not exist."""
    real = recorded("pubmed", "efetch_11618220.xml")
    damaged = re.sub(rb"<ArticleTitle>.*?</ArticleTitle>", b"", real)
    assert damaged != real
    http = HttpClient()
    src = PubMedSource(http, hostile.url)
    try:
        hostile.route("/entrez/eutils/efetch.fcgi", Behaviour("ok", body=real))
        assert (await src.by_pmid("11618220")).outcome is Outcome.FOUND
        hostile.route("/entrez/eutils/efetch.fcgi", Behaviour("ok", body=damaged))
        single = await src.by_pmid("11618220")
        batch = await src.by_pmid_batch(["11618220", "11618221"])
    finally:
        await http.aclose()
    assert single.outcome is Outcome.FAILED
    assert single.reason == "malformed response: a record without a title"
    assert batch["11618220"].outcome is Outcome.FAILED
    assert batch["11618221"].outcome is Outcome.NOT_FOUND  # not in the answer


async def test_an_efetch_article_of_no_readable_pmid_names_no_pmid_absent(
    hostile: HostileServer,
) -> None:
    """PubMed's efetch answer for 11618220 with its ``<PMID>`` emptied (a damaged answer):
    its article may be any PMID's asked, so no PMID of the batch is said not to exist."""
    real = recorded("pubmed", "efetch_11618220.xml")
    damaged = real.replace(b'<PMID Version="1">11618220</PMID>', b'<PMID Version="1"></PMID>')
    assert damaged != real
    http = HttpClient()
    try:
        hostile.route("/entrez/eutils/efetch.fcgi", Behaviour("ok", body=damaged))
        batch = await PubMedSource(http, hostile.url).by_pmid_batch(["11618220", "11618221"])
    finally:
        await http.aclose()
    assert {p: a.outcome for p, a in batch.items()} == {
        "11618220": Outcome.FAILED,
        "11618221": Outcome.FAILED,
    }
    assert batch["11618220"].reason == "malformed response: an article whose PMID is unreadable"


async def test_an_arxiv_entry_without_a_usable_record_is_no_not_found(
    hostile: HostileServer,
) -> None:
    """An arXiv feed holding an entry for the id asked whose record is unusable (a damaged
    answer: the entry's ``<title>`` left out) says arXiv holds it: the look-up FAILED,
    alone and in a batch, where it said the id does not exist."""
    real = recorded("arxiv", "id_1605.08386_s0_m100_199195aa31ad.xml")
    head, entry = real.split(b"<entry>", 1)
    damaged = head + b"<entry>" + re.sub(rb"<title>.*?</title>", b"", entry, flags=re.DOTALL)
    assert damaged != real
    http = HttpClient()
    src = ArxivSource(http, hostile.url)
    try:
        hostile.route("/api/query", Behaviour("ok", body=real))
        assert (await src.by_arxiv("1605.08386")).outcome is Outcome.FOUND
        hostile.route("/api/query", Behaviour("ok", body=damaged))
        single = await src.by_arxiv("1605.08386")
        batch = await src.by_arxivs(["1605.08386"])
    finally:
        await http.aclose()
    assert single.outcome is Outcome.FAILED
    assert single.reason == "malformed response: a record without a title"
    assert batch["1605.08386"].outcome is Outcome.FAILED


async def test_a_semantic_scholar_title_match_without_a_paper_is_no_answer(
    hostile: HostileServer,
) -> None:
    """Semantic Scholar answers a title nothing matches with its 404 (``Title match not
    found``); its 200 always holds the paper matched.  The recorded match with its paper
    left out says nothing, where it was read as "no paper has this title"."""
    page = recorded_json("semanticscholar", "test_search_paper_match_title.json")
    http = HttpClient()
    src = SemanticScholarSource(http, hostile.url)
    try:
        _served(hostile, "/graph/v1/paper/search/match", page)
        assert (await src.search(QUERY)).outcome is Outcome.FOUND
        _served(hostile, "/graph/v1/paper/search/match", {**page, "data": []})
        got = await src.search(QUERY)
    finally:
        await http.aclose()
    assert got.outcome is Outcome.FAILED
    assert got.reason == "malformed response: a title match without a paper"
