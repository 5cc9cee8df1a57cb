"""Key reading: the surname, year and title words of each common key style."""

from __future__ import annotations

import pytest

from citewarden.addref.keys import context_words, read_key, sentence_around

CASES = [
    # key, style, surname, year, words
    ("vaswani2017attention", "google-scholar", "vaswani", 2017, ("attention",)),
    ("lecun1998gradient", "google-scholar", "lecun", 1998, ("gradient",)),
    ("he2016deep", "google-scholar", "he", 2016, ("deep",)),
    ("DBLP:conf/nips/VaswaniSPUJGKP17", "dblp", "Vaswani", 2017, ()),
    ("DBLP:conf/cvpr/HeZRS16", "dblp", "He", 2016, ()),
    ("DBLP:conf/icml/IoffeS15", "dblp", "Ioffe", 2015, ()),
    ("DBLP:journals/cacm/KrizhevskySH17", "dblp", "Krizhevsky", 2017, ()),
    ("DBLP:conf/aistats/McMahanMRHA17", "dblp", "McMahan", 2017, ()),
    ("DBLP:journals/neco/HintonOT06", "dblp", "Hinton", 2006, ()),
    ("DBLP:conf/stoc/Knuth98", "dblp", "Knuth", 1998, ()),
    ("vaswaniAttentionAllYou2017", "better-bibtex", "vaswani", 2017, ("attention",)),
    ("heDeepResidualLearning2016", "better-bibtex", "he", 2016, ("deep", "residual", "learning")),
    ("Vaswani2017", "jabref", "Vaswani", 2017, ()),
    ("Ioffe2015a", "jabref", "Ioffe", 2015, ()),
    ("McMahan2017", "jabref", "McMahan", 2017, ()),
    ("IoffeSzegedy2015", "jabref", "Ioffe", 2015, ()),
    ("Hinton:2006fast", "author-year", "Hinton", 2006, ("fast",)),
    ("Kingma:2015", "author-year", "Kingma", 2015, ()),
    ("Kingma:2015a", "author-year", "Kingma", 2015, ()),
    ("smith_deep_2020", "author-word-year", "smith", 2020, ("deep",)),
    ("krizhevsky_imagenet_2017", "author-word-year", "krizhevsky", 2017, ("imagenet",)),
    ("he-residual-2016", "author-word-year", "he", 2016, ("residual",)),
    (
        "ioffe_batch_normalization_2015",
        "author-word-year",
        "ioffe",
        2015,
        ("batch", "normalization"),
    ),
    ("kingma_2015", "author-word-year", "kingma", 2015, ()),
]


@pytest.mark.parametrize(("key", "style", "surname", "year", "words"), CASES)
def test_each_key_style_is_read(
    key: str, style: str, surname: str, year: int, words: tuple[str, ...]
) -> None:
    r = read_key(key)
    assert (r.style, r.surname, r.year, r.words) == (style, surname, year, words)
    assert r.searchable


def test_dblp_corr_key_gives_the_arxiv_id() -> None:
    r = read_key("DBLP:journals/corr/abs-1706-03762")
    assert r.arxiv_id == "1706.03762" and r.surname is None and r.searchable


@pytest.mark.parametrize("key", ["missing1", "fig:overview", "zz", "x" * 500, ""])
def test_keys_naming_no_one_are_not_searchable(key: str) -> None:
    r = read_key(key)
    assert r.style == "unknown" and r.surname is None and not r.searchable


def test_a_key_without_a_year_keeps_its_words() -> None:
    assert read_key("missing1").words == ("missing",)


def test_context_words_drop_citations_commands_and_stop_words() -> None:
    s = r"The \emph{Transformer} architecture~\cite{vaswani2017attention} relies on self-attention."
    assert context_words(s) == ("transformer", "architecture", "relies", "self", "attention")
    md = "Residual networks [@he2016deep; see @other] train very deep models."
    assert context_words(md) == ("residual", "networks", "train", "deep", "models")


def test_sentence_around_finds_the_citing_sentence() -> None:
    text = "First sentence here. Residual networks \\cite{he2016deep} are deep. Last one."
    at = text.index("he2016deep")
    assert sentence_around(text, at) == "Residual networks \\cite{he2016deep} are deep."
