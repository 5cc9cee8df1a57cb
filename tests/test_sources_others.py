"""doi.org, OpenAlex, Semantic Scholar, DataCite, arXiv, PubMed and dblp against real
recorded responses replayed over loopback."""

from __future__ import annotations

import json
from urllib.parse import parse_qs
from xml.etree import ElementTree

import replay as replay_fixtures
from citewarden.verify.field_check import bibtex_authors
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Outcome, Query
from citewarden.verify.sources import (
    ArxivSource,
    DataCiteSource,
    DblpSource,
    DoiSource,
    OpenAlexSource,
    PubMedSource,
    SemanticScholarSource,
    work_from_pubmed_article,
)
from replay import ReplayServer, recorded, recorded_json

# -- doi.org ----------------------------------------------------------------------------------

# the loopback replay fixtures
replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


async def test_doi_content_negotiation_follows_redirect(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    csl = recorded_json(
        "crossref", "test-content_negotation__test_content_negotiation_citeproc_json__01.json"
    )
    result = await DoiSource(replay_http, replay.base_url("doi")).by_doi(
        "10.1126/science.169.3946.635"
    )
    assert result.outcome is Outcome.FOUND
    rec = result.records[0]
    assert rec.source == "doi"
    assert rec.title == csl["title"] == "The Structure of Ordinary Water"
    assert rec.authors[0].family == csl["author"][0]["family"]
    assert rec.year == csl["published-print"]["date-parts"][0][0] == 1970
    assert rec.venue == csl["container-title"]
    assert rec.subtitle == csl["subtitle"][0]
    # the request asked for CSL-JSON and went through the redirect
    assert replay.log[0].headers["accept"] == "application/vnd.citationstyles.csl+json"
    assert [s.path.split("/")[1] for s in replay.log] == ["doi", "crossref"]


async def test_doi_org_404_means_no_such_doi(replay: ReplayServer, replay_http: HttpClient) -> None:
    assert b"DOI Not Found" in recorded(
        "doi",
        "test-content_negotation__test_content_negotiation_raises_an_http_error_with_bad_requests.html",
    )
    result = await DoiSource(replay_http, replay.base_url("doi")).by_doi("10.1126/foo")
    assert result.outcome is Outcome.NOT_FOUND


async def test_doi_source_does_not_search(replay: ReplayServer, replay_http: HttpClient) -> None:
    result = await DoiSource(replay_http, replay.base_url("doi")).search(Query("x"))
    assert result.outcome is Outcome.FAILED and result.reason == "unsupported"
    assert replay.log == []


# -- OpenAlex ---------------------------------------------------------------------------------


async def test_openalex_by_doi(replay: ReplayServer, replay_http: HttpClient) -> None:
    work = recorded_json("openalex", "test-openalex_reader__test_journal_article.json")
    src = OpenAlexSource(
        replay_http, replay.base_url("openalex"), mailto="team@example.org", api_key="oa-secret-key"
    )
    result = await src.by_doi("10.1371/journal.pone.0000030")
    rec = result.records[0]
    assert rec.title == work["title"]
    assert rec.authors[0].family == work["authorships"][0]["author"]["display_name"].split()[-1]
    assert rec.year == work["publication_year"]
    assert rec.doi == "10.1371/journal.pone.0000030"
    assert rec.venue == work["primary_location"]["source"]["display_name"]
    assert rec.record_id == work["id"].rsplit("/", 1)[-1]
    params = parse_qs(replay.log[0].query)
    assert params["api_key"] == ["oa-secret-key"] and params["mailto"] == ["team@example.org"]
    assert replay.log[0].path == "/openalex/works/doi:10.1371/journal.pone.0000030"


async def test_openalex_title_search_uses_filter(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    page = recorded_json("openalex", "refchecker_search_works.json")
    result = await OpenAlexSource(replay_http, replay.base_url("openalex")).search(
        Query("A gift from knowledge distillation")
    )
    assert [r.title for r in result.records] == [w["title"] for w in page["results"]]
    assert parse_qs(replay.log[0].query)["filter"] == [
        "title.search:A gift from knowledge distillation"
    ]


async def test_openalex_batch_request_is_one_or_filter(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # the served page holds real works; DOIs absent from it are NOT_FOUND, present ones FOUND
    page = recorded_json("openalex", "refchecker_search_works.json")
    present = next(w["doi"].split("doi.org/")[1] for w in page["results"] if w.get("doi"))
    src = OpenAlexSource(replay_http, replay.base_url("openalex"))
    out = await src.by_dois([present.upper(), "10.1371/journal.pone.0000030"])
    assert out[present.lower()].outcome is Outcome.FOUND
    assert out["10.1371/journal.pone.0000030"].outcome is Outcome.NOT_FOUND
    (seen,) = replay.log
    assert parse_qs(seen.query)["filter"] == [f"doi:{present.lower()}|10.1371/journal.pone.0000030"]


# -- Semantic Scholar -------------------------------------------------------------------------


async def test_s2_by_doi_and_arxiv(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = SemanticScholarSource(
        replay_http, replay.base_url("semanticscholar"), api_key="s2-secret"
    )
    result = await src.by_doi("10.1038/s41467-021-22732-w")
    rec = result.records[0]
    assert (
        rec.title == "Protein design and variant prediction using autoregressive generative models"
    )
    assert (rec.authors[0].family, rec.authors[0].given) == ("Shin", "Jung-Eun")
    assert rec.year == 2021 and rec.venue == "Nature Communications" and rec.pmid == "33893299"
    assert replay.log[0].headers["x-api-key"] == "s2-secret"
    result = await src.by_arxiv("1404.1100")
    assert result.records[0].title == "A Tutorial on Principal Component Analysis"
    assert result.records[0].arxiv_id == "1404.1100"


async def test_s2_unknown_paper_is_not_found(replay: ReplayServer, replay_http: HttpClient) -> None:
    assert recorded_json("semanticscholar", "test_not_found__00.json") == {
        "error": "Paper with id 0 not found"
    }
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    assert (await src._paper("0")).outcome is Outcome.NOT_FOUND


async def test_s2_title_match(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    result = await src.search(Query("mining association rules between"))
    recorded_match = recorded_json("semanticscholar", "test_search_paper_match_title.json")["data"][
        0
    ]
    assert result.records[0].title == recorded_match["title"]
    assert result.records[0].relevance == recorded_match["matchScore"]


async def test_s2_batch_maps_positions_and_nulls(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    answer = recorded_json("semanticscholar", "test_get_papers_return_not_found.json")
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    # four ids in the recorded order; the first was unknown to the service (null)
    dois = [
        "10.0000/unknown-to-s2",
        "10.2139/ssrn.288970",
        "10.2139/ssrn.2250500",
        "10.1257/rct.1355",
    ]
    out = await src.by_dois(dois)
    assert out["10.0000/unknown-to-s2"].outcome is Outcome.NOT_FOUND
    assert out["10.2139/ssrn.288970"].records[0].title == answer[1]["title"]
    assert out["10.1257/rct.1355"].records[0].doi == "10.1257/rct.1355"
    (seen,) = replay.log
    assert seen.method == "POST"
    assert json.loads(seen.body) == {"ids": [f"DOI:{d}" for d in dois]}


async def test_s2_arxiv_batch_sends_arxiv_ids(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    # the recorded /paper/batch answer (four papers, the first null) stands in for any ids:
    # only the request and the mapping by position are checked here
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    ids = ["2101.00001", " 1404.1100 ", "2301.12345v2", "1706.03762"]
    out = await src.by_arxivs(ids)
    (seen,) = replay.log
    assert seen.method == "POST" and seen.path.endswith("/paper/batch")
    assert json.loads(seen.body) == {"ids": [f"ARXIV:{i.strip()}" for i in ids]}
    assert list(out) == [i.strip() for i in ids]
    assert out["2101.00001"].outcome is Outcome.NOT_FOUND  # null at its position


# -- DataCite ---------------------------------------------------------------------------------


async def test_datacite_dataset(replay: ReplayServer, replay_http: HttpClient) -> None:
    attrs = recorded_json("datacite", "get_datacite_metadata__Dataset__01.json")["data"][
        "attributes"
    ]
    result = await DataCiteSource(replay_http, replay.base_url("datacite")).by_doi(
        "10.5061/DRYAD.8515"
    )
    rec = result.records[0]
    assert rec.title == attrs["titles"][0]["title"]
    assert (rec.authors[0].family, rec.authors[0].given) == ("Ollomo", "Benjamin")
    assert len(rec.authors) == len(attrs["creators"])
    assert rec.year == attrs["publicationYear"] == 2011
    assert rec.publisher == "Dryad" and rec.work_type == "dataset"


async def test_datacite_not_found_and_odd_years(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    src = DataCiteSource(replay_http, replay.base_url("datacite"))
    missing = await src.by_doi("10.4124/05f6c379-dd68-4cdb-880d-33d3e9576d52/1")
    assert missing.outcome is Outcome.NOT_FOUND
    thai = await src.by_doi("10.14457/kmitl.res.2006.17")
    rec = thai.records[0]
    # only a full name is recorded ("given surname"): split at the last space
    assert (rec.authors[0].family, rec.authors[0].given) == ("แซ่เตียว", "กัญจนา")
    assert rec.year is None  # recorded publicationYear 2549 (Buddhist era) is not a CE year


# -- arXiv ------------------------------------------------------------------------------------


async def test_arxiv_by_id(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = ArxivSource(replay_http, replay.base_url("arxiv"))
    result = await src.by_arxiv("1605.08386")
    rec = result.records[0]
    assert rec.title == "Heat-bath random walks with Markov bases"
    assert [str(a) for a in rec.authors] == ["Caprice Stanley", "Tobias Windisch"]
    assert rec.year == 2016 and rec.arxiv_id == "1605.08386" and rec.record_id == "1605.08386v1"
    old = (await src.by_arxiv("astro-ph/0601001")).records[0]
    assert old.title.startswith("Frequency of Hot Jupiters and Very Hot Jupiters")
    assert old.authors[0].family == "Gould" and old.year == 2006
    assert ("journal_ref", "ActaAstron.56:1-50,2006") in old.extra


async def test_arxiv_empty_feed_is_not_found_and_error_entry_failed(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    src = ArxivSource(replay_http, replay.base_url("arxiv"))
    assert (await src.by_arxiv("0000.0000")).outcome is Outcome.NOT_FOUND
    # "abc" is not an id: refused locally, no request
    assert (await src.by_arxiv("abc")).outcome is Outcome.NOT_FOUND
    assert replay.requests_to("/arxiv") == 1


async def test_arxiv_error_feed_is_failed(replay: ReplayServer, replay_http: HttpClient) -> None:
    # the recorded 400 error feed for id_list=abc, reached directly
    reply = await replay_http.get(
        replay.base_url("arxiv") + "/api/query",
        lane="arxiv",
        params={"id_list": "abc", "max_results": "1"},
    )
    src = ArxivSource(replay_http, replay.base_url("arxiv"))
    assert getattr(reply, "status", None) == 400
    result = await src._query({"id_list": "abc", "max_results": "1"})
    assert result.outcome is Outcome.FAILED


async def test_arxiv_search_and_doi_support(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = ArxivSource(replay_http, replay.base_url("arxiv"))
    result = await src.search(Query("Quantum criticality for extended nodes", ("Del Maestro",)))
    assert len(result.records) == 2
    assert result.records[0].title.startswith(
        "Quantum Criticality for Extended Nodes on a Bethe Lattice"
    )
    query = parse_qs(replay.log[0].query)["search_query"][0]
    assert query == 'ti:"Quantum criticality for extended nodes" AND au:"Del Maestro"'
    assert (await src.by_doi("10.1000/xyz")).reason == "unsupported"
    found = await src.by_doi("10.48550/arXiv.1605.08386")
    assert found.records[0].arxiv_id == "1605.08386"


# -- PubMed -----------------------------------------------------------------------------------


async def test_pubmed_efetch_record(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = PubMedSource(
        replay_http, replay.base_url("pubmed"), mailto="team@example.org", api_key="ncbi-secret"
    )
    result = await src.by_pmid("11618220")
    rec = result.records[0]
    assert (
        rec.title
        == "Eroticism in late Ming, early Qing fiction: the beauteous realm and the sexual battlefield"
    )
    assert (rec.authors[0].family, rec.authors[0].given) == ("McMahon", "K")
    assert (rec.year, rec.volume, rec.issue, rec.pages) == (
        1987,
        "73",
        "4-5",
        "217-264",
    )  # StartPage-EndPage, not MedlinePgn
    assert rec.doi == "10.1163/156853287x00032" and rec.venue == "T'ung pao. T'oung pao"
    assert "Toung Pao" in rec.venue_short
    params = parse_qs(replay.log[0].query)
    assert params["tool"] == ["citewarden"] and params["email"] == ["team@example.org"]
    assert replay_http.stats.requests == {"pubmed-key": 1}


async def test_pubmed_empty_article_set_is_not_found(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    assert b"<PubmedArticle>" not in recorded("pubmed", "efetch_37909814.xml")
    result = await PubMedSource(replay_http, replay.base_url("pubmed")).by_pmid("37909814")
    assert result.outcome is Outcome.NOT_FOUND


async def test_pubmed_esummary_and_esearch(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = PubMedSource(replay_http, replay.base_url("pubmed"))
    result = await src.summaries(["11850928", "11482001"])
    first = result.records[0]
    assert first.title == "Zirconium granuloma following treatment of rhus dermatitis"
    # "Hambrick GW Jr": initials as BibTeX reads them, the suffix kept with the surname
    assert [(a.family, a.given) for a in first.authors] == [
        ("LoPresti", "P. J."),
        ("Hambrick Jr", "G. W."),
    ]
    # MEDLINE's abbreviated "188-91" written whole
    assert (first.year, first.volume, first.pages) == (1965, "92", "188-191")
    assert (first.venue, first.venue_short) == ("Archives of dermatology", ("Arch Dermatol",))
    ids = await src.esearch("biopython", limit=20)
    assert isinstance(ids, list) and len(ids) == 20 and ids[0] == "41282813"


# -- dblp -------------------------------------------------------------------------------------


async def test_dblp_search(replay: ReplayServer, replay_http: HttpClient) -> None:
    src = DblpSource(replay_http, replay.base_url("dblp"))
    result = await src.search(Query("1d convolutional neural networks and applications: A survey"))
    rec = result.records[0]
    assert rec.title == "1D Convolutional Neural Networks and Applications: A Survey"
    assert (rec.authors[0].family, rec.authors[0].given) == ("Kiranyaz", "Serkan")
    assert rec.year == 2019 and rec.venue == "CoRR" and rec.arxiv_id == "1905.03554"
    assert rec.work_type == "posted-content"
    empty = await src.search(
        Query(
            "3d breast scanning in plastic surgery utilizing free iphone lidar applications and standard consumer devices: A comparative analysis"
        )
    )
    assert empty.outcome is Outcome.NOT_FOUND
    assert replay.unmatched == []


async def test_pubmed_book_article(replay: ReplayServer, replay_http: HttpClient) -> None:
    result = await PubMedSource(replay_http, replay.base_url("pubmed")).by_pmid("20301577")
    rec = result.records[0]
    assert rec.title == "CACNA1C-Related Disorders"
    assert [a.family for a in rec.authors] == ["Napolitano", "Priori"]  # not the series editors
    assert rec.venue == "GeneReviews®" and rec.work_type == "book-chapter"
    assert rec.publisher == "University of Washington, Seattle"


def test_a_pubmed_suffix_stays_with_the_surname_and_is_written_where_bibtex_reads_it() -> None:
    """PubMed's ``<Suffix>Jr</Suffix>`` (a real efetch answer): Artino Jr, Anthony R.  The
    suffix used to be dropped, so a correction wrote "Artino, Anthony R"."""
    [article] = ElementTree.fromstring(recorded("pubmed", "efetch_31789841.xml")).findall(
        "PubmedArticle"
    )
    record = work_from_pubmed_article(article)
    assert record is not None
    assert [(a.family, a.given) for a in record.authors][-1] == ("Artino Jr", "Anthony R")
    assert bibtex_authors(record).endswith(" and Artino, Jr, Anthony R")


async def test_datacite_search_sends_a_title_as_words(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """DataCite reads ``query`` as an Elasticsearch query string: a title's ``:``, ``!``,
    ``/``, brackets and upper-case AND/OR/NOT are syntax there and would change the
    search or break it (an unbalanced bracket is a 400)."""
    src = DataCiteSource(replay_http, replay.base_url("datacite"))
    await src.search(Query('Yahoo! Answers: (Q/A) [data] "AND" NOT a~b* c^2 x-y_z'))
    sent = [parse_qs(s.query)["query"][0] for s in replay.log if s.path.endswith("/dois")]
    assert sent == ["titles.title:(yahoo answers q a data and not a b c 2 x y z)"]
