"""Abstracts collected with the record, from real recorded responses replayed over loopback
(OpenAlex inverted index, Crossref JATS, Semantic Scholar, arXiv, PubMed), and kept through
the cache's plain-data round trip."""

from __future__ import annotations

import re

import replay as replay_fixtures
from citewarden.verify.abstracts import MAX_ABSTRACT, clean_abstract, from_inverted_index
from citewarden.verify.http import HttpClient
from citewarden.verify.records import Query, record_from_dict, record_to_dict
from citewarden.verify.sources import (
    ArxivSource,
    CrossrefSource,
    DoiSource,
    OpenAlexSource,
    PubMedSource,
    SemanticScholarSource,
)
from replay import ReplayServer, recorded, recorded_json

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
replay_http = replay_fixtures.replay_http


async def test_openalex_inverted_index_becomes_text(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    work = recorded_json("openalex", "test-openalex_reader__test_journal_article.json")
    index = work["abstract_inverted_index"]
    src = OpenAlexSource(replay_http, replay.base_url("openalex"))
    rec = (await src.by_doi("10.1371/journal.pone.0000030")).records[0]
    assert rec.abstract is not None
    assert rec.abstract.startswith("Triosephosphate isomerase (TPI) deficiency is an autosomal")
    # every position of the index is one word of the text, in order
    assert len(rec.abstract.split(" ")) == sum(len(p) for p in index.values())
    assert rec.abstract.split(" ")[index["glycolytic"][0]] == "glycolytic"
    # the venue flags this record carries
    assert rec.venue_kind == "journal"
    assert "doaj" in rec.venue_indexes and "pubmed" in rec.venue_indexes


async def test_crossref_jats_abstract_is_plain_text(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    csl = recorded_json(
        "crossref", "test-content_negotation__test_content_negotiation_citeproc_json__01.json"
    )
    assert csl["abstract"].startswith("<jats:p>")
    rec = (
        await DoiSource(replay_http, replay.base_url("doi")).by_doi("10.1126/science.169.3946.635")
    ).records[0]
    assert rec.abstract is not None and "<" not in rec.abstract
    assert rec.abstract.startswith("The train of thought pursued in this article")


async def test_crossref_search_abstract_drops_its_heading(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    page = recorded_json("crossref", "test-works__test_works_field_queries.json")
    with_abstract = {i["DOI"].lower() for i in page["message"]["items"] if i.get("abstract")}
    src = CrossrefSource(replay_http, replay.base_url("crossref"))
    result = await src.search(Query("ecology", authors=("carl boettiger",)))
    got = {r.doi: r.abstract for r in result.records if r.abstract}
    assert set(got) == with_abstract
    for text in got.values():
        assert not text.lower().startswith("abstract") and "jats" not in text


async def test_semantic_scholar_abstract(replay: ReplayServer, replay_http: HttpClient) -> None:
    paper = recorded_json("semanticscholar", "refchecker_get_by_doi_b20a1aea0a.json")
    src = SemanticScholarSource(replay_http, replay.base_url("semanticscholar"))
    rec = (await src.by_doi("10.1038/s41467-021-22732-w")).records[0]
    assert rec.abstract == re.sub(r"\s+", " ", paper["abstract"]).strip()
    assert "abstract" in replay.log[0].query  # the field was asked for


async def test_arxiv_summary(replay: ReplayServer, replay_http: HttpClient) -> None:
    feed = recorded("arxiv", "id_1605.08386_s0_m100_199195aa31ad.xml").decode()
    summary = re.search(r"<summary>(.*?)</summary>", feed, re.S)
    assert summary is not None
    rec = (await ArxivSource(replay_http, replay.base_url("arxiv")).by_arxiv("1605.08386")).records[
        0
    ]
    assert rec.abstract == re.sub(r"\s+", " ", summary.group(1)).strip()
    assert rec.venue_kind == "repository"


async def test_pubmed_abstract_sections(replay: ReplayServer, replay_http: HttpClient) -> None:
    rec = (await PubMedSource(replay_http, replay.base_url("pubmed")).by_pmid("20301577")).records[
        0
    ]
    assert rec.abstract is not None
    assert rec.abstract.startswith("Clinical characteristics: The clinical manifestations of")
    assert "Diagnosis/testing: The diagnosis of a CACNA1C-related disorder" in rec.abstract
    assert "<i>" not in rec.abstract and len(rec.abstract) <= MAX_ABSTRACT


def test_abstract_and_venue_survive_the_cache_round_trip() -> None:
    from citewarden.verify.sources.openalex import work_from_openalex

    work = recorded_json("openalex", "test-openalex_reader__test_journal_article.json")
    rec = work_from_openalex(work)
    assert rec is not None and rec.abstract
    assert record_from_dict(record_to_dict(rec)) == rec


def test_malformed_and_huge_abstracts_are_bounded() -> None:
    assert from_inverted_index({"a": [0], "b": "x"}) is None
    assert from_inverted_index([]) is None
    assert from_inverted_index({"far": [10**9]}) is None
    assert clean_abstract(None) is None and clean_abstract("  <p> </p> ") is None
    long = clean_abstract("word " * 10_000)
    assert long is not None and len(long) <= MAX_ABSTRACT and long.endswith("word")


async def test_a_less_than_sign_in_an_abstract_is_text_not_a_tag(
    replay: ReplayServer, replay_http: HttpClient
) -> None:
    """PubMed's abstract says ``CD4 < 200 cells/mm<sup>3</sup> or VL >200``: the signs are
    the text's own, and nothing between them is a tag to drop."""
    rec = (await PubMedSource(replay_http, replay.base_url("pubmed")).by_pmid("37424520")).records[
        0
    ]
    assert rec.abstract is not None
    assert "uncontrolled HIV (CD4 < 200 cells/mm3 or VL >200 copies/mL)" in rec.abstract


def test_tags_are_dropped_and_comparison_signs_kept() -> None:
    jats = (
        '<jats:p>A <jats:italic>b</jats:italic> &lt; 3 and <mml:math xmlns:mml="http://www.w3.'
        'org/1998/Math/MathML" display="inline"><mml:mi>x</mml:mi></mml:math><br/></jats:p>'
    )
    assert clean_abstract(jats) == "A b < 3 and x"
    assert clean_abstract("p <0.05 in n = 12; age > 65 <!-- a > b --> years") == (
        "p <0.05 in n = 12; age > 65 years"
    )


def test_a_cdata_sections_marks_go_and_its_text_stays() -> None:
    """Copernicus deposits its abstracts as ``<jats:p><![CDATA[Abstract. ...]]></jats:p>``
    (corpus crossref/bolognese_decoded, posted_content_copernicus): the marks are no text."""
    jats = (
        "<jats:p><![CDATA[Abstract. During the early last glacial termination (17.2–15 ka) "
        "atmospheric δ13C declined sharply by 0.3–0.4 ‰ as atmospheric pCO2 rose.]]></jats:p>"
    )
    text = clean_abstract(jats)
    assert text is not None and text.startswith("During the early last glacial termination")
    assert "CDATA" not in text and not text.endswith("]]>")
