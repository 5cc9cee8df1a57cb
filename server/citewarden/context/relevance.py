"""How well a cited work fits its citing sentence: a field-relative BM25F score (pure).

The corpus is the project's own works (title and abstract of every matched record), so a
word's weight is relative to the paper's field: in a bibliography on machine learning for
public health, "machine", "learning" and "health" say little, "suicide" or "hepatitis" a
lot.  Title and abstract are scored apart (BM25F: a title word counts more, and each field
is normalised by its own length); the words of the sentences around the citation count
too, with a lower weight.  The work's share of the sentence's weight is divided by the
square root of the share of the corpus work that fits the sentence best (looked for among
the few works that give each sentence word its largest weights, kept per word when the
corpus is built), so a sentence whose words the field barely has does not score low
against every work: 0 (nothing in common) to 1, and scores of different citations compare.
"""

from __future__ import annotations

import heapq
import itertools
import math
from array import array
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
    #: How far the score is relative to the corpus work that fits the sentence best: the
    #: share is divided by that work's share (see ``FieldCorpus.best``) raised to this
    #: power (0: not at all; 1: the best-fitting work scores 1).
    relative: float = 0.5


DEFAULT = Weights()
#: Works kept per word (those giving it the largest saturated frequencies): the best-fitting
#: work of a sentence is looked for among them.
TOP_WORKS = 8


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


def _saturated(tf: float, k1: float) -> float:
    return tf * (k1 + 1.0) / (tf + k1)


def _pairs(words: Sequence[str]) -> set[tuple[str, str]]:
    return set(itertools.pairwise(words))


class FieldCorpus:
    """The project's works, as the corpus that weights words (see the module docstring).

    It keeps, per word, how many works have it and the ``TOP_WORKS`` works that give it
    the largest saturated frequencies (with those frequencies), in flat arrays; the works
    themselves are let go once the corpus is built."""

    top_works = TOP_WORKS

    def __init__(self, works: Iterable[Work], weights: Weights = DEFAULT) -> None:
        self.weights = weights
        docs = [self._doc(w) for w in works]
        self.size = len(docs)
        self._avg_title = max(1.0, sum(d.title_len for d in docs) / max(1, len(docs)))
        with_abstract = [d.abstract_len for d in docs if d.abstract_len]
        self._avg_abstract = max(1.0, sum(with_abstract) / max(1, len(with_abstract)))
        #: Each word's slot in the arrays: its df, and where its top works start.
        self._slot: dict[str, int] = {}
        self._df = array("I")
        self._start = array("I", [0])
        self._work = array("I")
        self._weight = array("f")
        self._index(docs)

    def _index(self, docs: Sequence[_Doc]) -> None:
        """Count each word's works and keep the ``top_works`` with its largest saturated
        frequencies.  Most words of a work occur once, in its abstract only, at the same
        frequency for all of them; visiting the works from the highest such frequency
        down, a word's first ``top_works`` works are its best, and a word that has them
        is skipped by one set difference.  The other words are ranked one by one."""
        k1, keep = self.weights.k1, self.top_works
        df: Counter[str] = Counter()
        #: Per word, (saturated frequency, -work) of its best works so far.
        plain: dict[str, list[tuple[float, int]]] = {}
        other: dict[str, list[tuple[float, int]]] = {}
        full: set[str] = set()
        per_counts = [self._per_count(doc) for doc in docs]
        order = sorted(range(len(docs)), key=lambda i: (-per_counts[i][1], i))
        for index in order:
            doc, per_count = docs[index], per_counts[index]
            df.update(doc.title.keys() | doc.abstract.keys() | doc.authors)
            rest = doc.title.keys() | doc.authors
            rest |= {t for t, n in doc.abstract.items() if n > 1}
            once = _saturated(per_count[1], k1)
            for term in doc.abstract.keys() - rest - full:
                found = plain.setdefault(term, [])
                found.append((once, -index))
                if len(found) == keep:
                    full.add(term)
            title, abstract = per_count
            authors, weight = doc.authors, self.weights.author
            for term in rest:  # _tf and _saturated, inlined: the build's inner loop
                tf = title * doc.title.get(term, 0) + abstract * doc.abstract.get(term, 0)
                if term in authors:
                    tf += weight
                item = (tf * (k1 + 1.0) / (tf + k1), -index)
                found = other.setdefault(term, [])
                if len(found) < keep:
                    heapq.heappush(found, item)
                elif item > found[0]:
                    heapq.heapreplace(found, item)
        for term, count in df.items():
            self._slot[term] = len(self._df)
            self._df.append(count)
            best = plain.pop(term, [])
            if term in other:
                best = heapq.nlargest(keep, best + other.pop(term))
            for saturated, index in best:
                self._work.append(-index)
                self._weight.append(saturated)
            self._start.append(len(self._work))

    def df(self, term: str) -> int:
        """How many works of the corpus have ``term``."""
        slot = self._slot.get(term)
        return 0 if slot is None else self._df[slot]

    def idf(self, term: str) -> float:
        """BM25's idf of ``term`` over the corpus (``Weights.unseen`` of it if no work has it)."""
        return self._idf(self.df(term))

    def top(self, term: str) -> float:
        """The largest saturated frequency of ``term`` in a work of the corpus (0 to k1 + 1)."""
        slot = self._slot.get(term)
        if slot is None:
            return 0.0
        return max(self._weight[self._start[slot] : self._start[slot + 1]])

    def _idf(self, df: int) -> float:
        idf = math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))
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
        relative to the best-fitting corpus work's as ``Weights.relative`` says."""
        share, best = self.shares(sentence, work, around)
        power = self.weights.relative
        if not power or not share:
            return share
        return share / max(share, best) ** power

    def best(self, sentence: str, around: Sequence[str] = ()) -> float:
        """The estimated share of the corpus work that fits the sentence best: each work's
        share counted over the words it is one of the ``TOP_WORKS`` works of."""
        return self.shares(sentence, Work(""), around)[1]

    def shares(self, sentence: str, work: Work, around: Sequence[str] = ()) -> tuple[float, float]:
        """(the work's share of the sentence, the best-fitting corpus work's, estimated as
        :meth:`best` says)."""
        q = self.query(sentence, around)
        if not q:
            return 0.0, 0.0
        doc, k1 = self._doc(work), self.weights.k1
        per_count = self._per_count(doc)
        total = got = 0.0
        best: dict[int, float] = {}
        credit = best.get
        slots, dfs, starts = self._slot, self._df, self._start
        works, weights = self._work, self._weight
        for term, weight in q.items():
            slot = slots.get(term)
            if slot is None:
                idf = self._idf(0) * weight
            else:
                idf = self._idf(dfs[slot]) * weight
                kept = slice(starts[slot], starts[slot + 1])
                for index, saturated in zip(works[kept], weights[kept], strict=True):
                    best[index] = credit(index, 0.0) + idf * saturated
            total += idf
            tf = self._tf(doc, term, per_count)
            if tf:
                got += idf * tf * (k1 + 1.0) / (tf + k1)
        total *= k1 + 1.0
        if self.weights.phrase:
            for pair in _pairs(terms(sentence)):
                idf = self.weights.phrase * (self.idf(pair[0]) + self.idf(pair[1])) / 2.0
                total += idf
                if pair in doc.pairs:
                    got += idf
        if not total:
            return 0.0, 0.0
        return min(1.0, got / total), min(1.0, max(best.values(), default=0.0) / total)

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
