"""The relevance score on real records: a recorded arXiv answer (10 works for "testing")."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest

from citewarden.context.relevance import (
    DEFAULT,
    TOP_WORKS,
    FieldCorpus,
    Work,
    stem,
    terms,
)
from citewarden.verify.sources._common import parse_xml
from citewarden.verify.sources.arxiv import ATOM, work_from_entry

PAGE = Path(__file__).parent / "data" / "context" / "arxiv_testing_page1.xml"
MICRO = "An on-board microcontroller can both generate the test patterns and analyse the responses of each core in a system on chip."
REST = "Automated test generation tools for REST APIs were compared on open-source web services."
#: Cites 2302.03287 (ChatGPT and software testing education) in words the page barely has.
SPARSE = (
    "Undergraduates curious about pedagogy consulted a conversational chatbot whose replies "
    "nonetheless sometimes misled them."
)


@pytest.fixture(scope="module")
def works() -> dict[str, Work]:
    root = parse_xml("arxiv", PAGE.read_bytes())
    assert isinstance(root, Element)
    out: dict[str, Work] = {}
    for entry in root.findall(f"{ATOM}entry"):
        record = work_from_entry(entry)
        assert record is not None and record.arxiv_id and record.abstract
        out[record.arxiv_id] = Work(
            record.title, record.abstract, tuple(p.family for p in record.authors)
        )
    assert len(out) == 10
    return out


def absolute(works: dict[str, Work]) -> FieldCorpus:
    return FieldCorpus(works.values(), replace(DEFAULT, relative=0.0))


def test_the_best_fitting_work_scores_the_root_of_its_share(works: dict[str, Work]) -> None:
    corpus, shares = FieldCorpus(works.values()), absolute(works)
    best = shares.score(MICRO, works["1205.1866"])
    assert 0.0 < best < 1.0
    assert corpus.score(MICRO, works["1205.1866"]) == pytest.approx(math.sqrt(best))
    for key, work in works.items():
        if key != "1205.1866":
            share = shares.score(MICRO, work)
            assert share < best
            assert corpus.score(MICRO, work) == pytest.approx(share / math.sqrt(best))


def test_a_fit_in_few_field_words_outranks_a_misfit_in_many(works: dict[str, Work]) -> None:
    """The sparse sentence's own work shares little of it in absolute terms (most of its
    words no work has), less than the REST sentence shares with a survey it does not cite;
    relative to each sentence's best-fitting work the order is right."""
    corpus, shares = FieldCorpus(works.values()), absolute(works)
    fit, misfit = (SPARSE, works["2302.03287"]), (REST, works["1812.11470"])
    assert shares.score(*fit) < shares.score(*misfit)
    assert corpus.score(*fit) > corpus.score(*misfit)
    # the sparse sentence's best-fitting work is its own
    assert max(corpus.score(SPARSE, w) for w in works.values()) == corpus.score(*fit)


def test_a_word_no_work_has_counts_half(works: dict[str, Work]) -> None:
    corpus = FieldCorpus(works.values())
    n = corpus.size
    assert corpus.idf("pedagogy") == pytest.approx(0.5 * math.log(1.0 + (n + 0.5) / 0.5))
    full = FieldCorpus(works.values(), replace(DEFAULT, unseen=1.0))
    assert full.idf("pedagogy") == pytest.approx(2 * corpus.idf("pedagogy"))
    assert full.idf("test") == corpus.idf("test")


def test_a_work_outside_the_corpus_that_fits_better_scores_at_most_one(
    works: dict[str, Work],
) -> None:
    corpus = FieldCorpus(list(works.values())[:3])
    outside = works["1205.1866"]
    share = absolute(dict(list(works.items())[:3])).score(MICRO, outside)
    assert corpus.score(MICRO, outside) == pytest.approx(math.sqrt(share))
    assert corpus.score(MICRO, outside) <= 1.0
    assert corpus.score(MICRO, outside) == corpus.score(MICRO, outside)  # remembered alike


def keeping(works: dict[str, Work], top: int) -> FieldCorpus:
    """A corpus that keeps ``top`` works per word instead of ``TOP_WORKS``."""
    kind = type(f"Top{top}", (FieldCorpus,), {"top_works": top})
    return kind(works.values())


def test_with_every_work_kept_the_best_fitting_work_is_found_exactly(
    works: dict[str, Work],
) -> None:
    assert len(works) > TOP_WORKS
    every, shares = keeping(works, len(works)), absolute(works)
    for sentence in (MICRO, REST, SPARSE):
        assert every.best(sentence) == pytest.approx(
            max(shares.score(sentence, w) for w in works.values())
        )


def test_fewer_works_kept_per_word_find_a_share_no_larger(works: dict[str, Work]) -> None:
    """A work is credited only with the words it is one of the kept works of, so the best
    share found grows with the works kept, up to the exact one; a one-word sentence finds
    its word's best work whatever is kept."""
    every, default, one = keeping(works, len(works)), FieldCorpus(works.values()), keeping(works, 1)
    for sentence in (MICRO, REST, SPARSE):
        assert 0.0 < one.best(sentence) <= default.best(sentence) <= every.best(sentence)
    assert one.best(REST) < every.best(REST)  # one kept work per word is not enough here
    assert every.best("microcontroller") > 0.0
    assert one.best("microcontroller") == pytest.approx(every.best("microcontroller"))


def test_the_corpus_keeps_at_most_the_top_works_of_each_word(works: dict[str, Work]) -> None:
    corpus = FieldCorpus(works.values())
    assert corpus.df("test") == len(works) > TOP_WORKS  # every work of the page has it
    assert len(corpus._work) <= TOP_WORKS * len(corpus._slot)
    assert 0.0 < corpus.top("test") <= DEFAULT.k1 + 1.0
    assert corpus.top("pedagogy") == 0.0  # no work has it


def test_british_and_american_spellings_meet() -> None:
    british = (
        "The behaviour of modelled tumours, their optimisation, analysed in paediatric centres"
    )
    american = "The behavior of modeled tumors, their optimization, analyzed in pediatric centers"
    assert terms(british) == terms(american)
    assert stem("defences") == stem("defenses")
    assert stem("catalogue") == stem("catalog")
    # words the folds touch that have no American twin still meet themselves
    assert stem("promise") == stem("promise") and stem("four") == "four"


def test_a_record_in_british_spelling_meets_a_sentence_in_american(
    works: dict[str, Work],
) -> None:
    tcp = works["2405.13786"]  # "... prioritising test cases", "... to analyse the similarity"
    assert tcp.abstract is not None and "prioritising" in tcp.abstract
    record_words = set(terms(tcp.abstract))
    sentence = "Prioritizing tests with learned rankers raises the need to analyze why."
    assert {stem("prioritizing"), stem("analyze")} <= record_words & set(terms(sentence))
