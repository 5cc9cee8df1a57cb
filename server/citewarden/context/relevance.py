"""How well a cited work fits its citing sentence: a field-relative BM25F score (pure).

The corpus is the project's own works (title and abstract of every matched record), so a
word's weight is relative to the paper's field: in a bibliography on machine learning for
public health, "machine", "learning" and "health" say little, "suicide" or "hepatitis" a
lot.  Title and abstract are scored apart (BM25F: a title word counts more, and each field
is normalised by its own length); the words of the sentences around the citation count
too, with a lower weight.  The work's share of the sentence's weight is divided by the
square root of the share of the corpus work that fits the sentence best, so a sentence
whose words the field barely has does not score low against every work: 0 (nothing in
common) to 1, and scores of different citations compare.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citewarden.context.words import STOPWORDS, stem, terms

__all__ = ["DEFAULT", "STOPWORDS", "FieldCorpus", "Weights", "Work", "stem", "terms"]


@dataclass(frozen=True, slots=True)
class Weights:
    """The score's parameters (the defaults are the adopted ones; bench/context_bench.py
    measures the others)."""

    #: BM25 saturation.
    k1: float = 1.2
    #: Field weights and length normalisation (title, abstract); an author's surname
    #: counts as much as a title word.
    title: float = 2.5
    title_b: float = 0.3
    author: float = 2.5
    abstract: float = 1.0
    abstract_b: float = 0.75
    #: Weight of a word that only appears in the sentences around the citing one.
    around: float = 0.35
    #: Share of its idf a sentence word keeps when no work of the corpus has it (such a
    #: word lowers every work's score for that sentence alike).
    unseen: float = 0.5
    #: Weight of two adjacent sentence words that are adjacent in the work too (a phrase
    #: such as "membership inference"), relative to the words' mean idf.
    phrase: float = 0.0
    #: How far the score is relative to the work of the corpus that fits the sentence
    #: best: the share is divided by the best work's share raised to this power (0: not
    #: at all; 1: the best-fitting work scores 1).
    relative: float = 0.5


DEFAULT = Weights()
#: Sentences whose best-fitting work the corpus remembers.
BEST_MEMO = 4096
#: The works with the most of the sentence's weight that are scored in full (phrases
#: and the words left out of the search count there only).
CANDIDATES = 4
#: Words that more than a quarter of the corpus has (and more than 200 works) are left
#: out of the search for the best work: long postings, little weight.
COMMON_SHARE, COMMON_FROM = 4, 200


@dataclass(frozen=True, slots=True)
class Work:
    """What the score reads of a cited work."""

    title: str
    abstract: str | None = None
    #: Surnames of the authors ("the simplex method of Nelder and Mead" names its work).
    authors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Doc:
    title: Counter[str]
    abstract: Counter[str]
    title_len: int
    abstract_len: int
    authors: frozenset[str] = frozenset()
    pairs: frozenset[tuple[str, str]] = frozenset()


def _pairs(words: Sequence[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(words))


class FieldCorpus:
    """The project's works, as the corpus that weights words (see the module docstring)."""

    def __init__(self, works: Iterable[Work], weights: Weights = DEFAULT) -> None:
        self.weights = weights
        docs: list[_Doc] = []
        df: Counter[str] = Counter()
        for w in works:
            doc = self._doc(w)
            docs.append(doc)
            df.update(doc.title.keys() | doc.abstract.keys() | doc.authors)
        self.size = len(docs)
        self._df = df
        self._docs = docs
        #: The works that have each word, gathered on the first look for the best work.
        self._postings: dict[str, list[int]] | None = None
        self._best: dict[tuple[str, tuple[str, ...]], float] = {}
        self._sat: dict[str, list[tuple[int, float]]] = {}
        self._field_weights: list[tuple[float, float]] | None = None
        self._avg_title = max(1.0, sum(d.title_len for d in docs) / max(1, len(docs)))
        with_abstract = [d.abstract_len for d in docs if d.abstract_len]
        self._avg_abstract = max(1.0, sum(with_abstract) / max(1, len(with_abstract)))

    def idf(self, term: str) -> float:
        n, df = self.size, self._df.get(term, 0)
        idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return idf if df else idf * self.weights.unseen

    def _doc(self, work: Work) -> _Doc:
        t, a = terms(work.title), terms(work.abstract)
        names = frozenset(n for name in work.authors for n in terms(name))
        pairs = frozenset(_pairs(t) | _pairs(a)) if self.weights.phrase else frozenset()
        return _Doc(Counter(t), Counter(a), len(t), len(a), names, pairs)

    def _tf(self, doc: _Doc, term: str, per_count: tuple[float, float] | None = None) -> float:
        title, abstract = per_count or self._per_count(doc)
        tf = self.weights.author if term in doc.authors else 0.0
        return tf + title * doc.title.get(term, 0) + abstract * doc.abstract.get(term, 0)

    def query(self, sentence: str, around: Sequence[str] = ()) -> dict[str, float]:
        """Weight of every query word: 1 for the sentence's, ``Weights.around`` for words
        only in the sentences around it."""
        weights: dict[str, float] = {t: 1.0 for t in terms(sentence)}
        for text in around:
            for t in terms(text):
                weights.setdefault(t, self.weights.around)
        return weights

    def score(self, sentence: str, work: Work, around: Sequence[str] = ()) -> float:
        """0..1: the share of the sentence's (idf-weighted) words the work accounts for,
        relative to the best-fitting work of the corpus as ``Weights.relative`` says."""
        share = self._share(sentence, self._doc(work), around)
        power = self.weights.relative
        if not power or not share:
            return share
        best = max(share, self._best_share(sentence, tuple(around)))
        return share / best**power

    def _share(self, sentence: str, doc: _Doc, around: Sequence[str]) -> float:
        q = self.query(sentence, around)
        if not q:
            return 0.0
        k1 = self.weights.k1
        total = got = 0.0
        for term, weight in q.items():
            idf = self.idf(term) * weight
            total += idf
            tf = self._tf(doc, term)
            if tf:
                got += idf * tf * (k1 + 1.0) / (tf + k1)
        total *= k1 + 1.0
        if self.weights.phrase:
            for pair in _pairs(terms(sentence)):
                idf = self.weights.phrase * (self.idf(pair[0]) + self.idf(pair[1])) / 2.0
                total += idf
                if pair in doc.pairs:
                    got += idf
        return min(1.0, got / total) if total else 0.0

    def _best_share(self, sentence: str, around: tuple[str, ...]) -> float:
        """The share of the corpus work that fits the sentence best (remembered): the
        words' saturated frequencies summed over their works' postings."""
        key = (sentence, around)
        best = self._best.get(key)
        if best is None:
            got = [0.0] * self.size
            common = max(COMMON_FROM, self.size // COMMON_SHARE)
            for term, weight in self.query(sentence, around).items():
                if self._df.get(term, 0) > common:
                    continue  # cheap to leave out of the search: it weighs little
                idf = self.idf(term) * weight
                for index, saturated in self._saturated(term):
                    got[index] += idf * saturated
            ranked = heapq.nlargest(CANDIDATES, range(self.size), key=got.__getitem__)
            top = [self._docs[i] for i in ranked if got[i]]
            best = max((self._share(sentence, doc, around) for doc in top), default=0.0)
            if len(self._best) >= BEST_MEMO:
                self._best.clear()
            self._best[key] = best
        return best

    def _saturated(self, term: str) -> list[tuple[int, float]]:
        """(work, its saturated frequency of ``term``) for every work that has it, worked
        out on first use."""
        found = self._sat.get(term)
        if found is None:
            if self._field_weights is None:
                self._field_weights = [self._per_count(doc) for doc in self._docs]
            k1, per_count = self.weights.k1, self._field_weights
            found = []
            for index in self._posting(term):
                tf = self._tf(self._docs[index], term, per_count[index])
                found.append((index, tf * (k1 + 1.0) / (tf + k1)))
            self._sat[term] = found
        return found

    def _posting(self, term: str) -> list[int]:
        if self._postings is None:
            postings: dict[str, list[int]] = {}
            for index, doc in enumerate(self._docs):
                for t in doc.title.keys() | doc.abstract.keys() | doc.authors:
                    postings.setdefault(t, []).append(index)
            self._postings = postings
        return self._postings.pop(term, [])  # needed once: _saturated keeps what it gives

    def _per_count(self, doc: _Doc) -> tuple[float, float]:
        """What one occurrence in the title and in the abstract adds to ``_tf``."""
        w = self.weights
        title = abstract = 0.0
        if doc.title_len:
            title = w.title / (1.0 - w.title_b + w.title_b * doc.title_len / self._avg_title)
        if doc.abstract_len:
            norm = 1.0 - w.abstract_b + w.abstract_b * doc.abstract_len / self._avg_abstract
            abstract = w.abstract / norm
        return title, abstract
