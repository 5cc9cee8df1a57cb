"""How well a cited work fits its citing sentence: a field-relative BM25F score (pure).

The corpus is the project's own works (title and abstract of every matched record), so a
word's weight is relative to the paper's field: in a bibliography on machine learning for
public health, "machine", "learning" and "health" say little, "suicide" or "hepatitis" a
lot.  Title and abstract are scored apart (BM25F: a title word counts more, and each field
is normalised by its own length); the words of the sentences around the citation count
too, with a lower weight.  The score is the share of the sentence's weight the work
accounts for, 0 (nothing in common) to 1, so scores of different citations compare.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citewarden.context.words import STOPWORDS, stem, terms

__all__ = ["STOPWORDS", "FieldCorpus", "Work", "stem", "terms"]

#: BM25 saturation.
K1 = 1.2
#: Field weights and length normalisation (title, abstract); an author's surname counts
#: as much as a title word.
TITLE_WEIGHT, TITLE_B = 2.5, 0.3
AUTHOR_WEIGHT = 2.5
ABSTRACT_WEIGHT, ABSTRACT_B = 1.0, 0.75
#: Weight of a word that only appears in the sentences around the citing one.
AROUND_WEIGHT = 0.35


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


class FieldCorpus:
    """The project's works, as the corpus that weights words (see the module docstring)."""

    def __init__(self, works: Iterable[Work]) -> None:
        docs: list[_Doc] = []
        df: Counter[str] = Counter()
        for w in works:
            doc = self._doc(w)
            docs.append(doc)
            df.update(set(doc.title) | set(doc.abstract) | doc.authors)
        self.size = len(docs)
        self._df = df
        self._avg_title = max(1.0, sum(d.title_len for d in docs) / max(1, len(docs)))
        with_abstract = [d.abstract_len for d in docs if d.abstract_len]
        self._avg_abstract = max(1.0, sum(with_abstract) / max(1, len(with_abstract)))

    def idf(self, term: str) -> float:
        n, df = self.size, self._df.get(term, 0)
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    @staticmethod
    def _doc(work: Work) -> _Doc:
        t, a = terms(work.title), terms(work.abstract)
        names = frozenset(n for name in work.authors for n in terms(name))
        return _Doc(Counter(t), Counter(a), len(t), len(a), names)

    def _tf(self, doc: _Doc, term: str) -> float:
        tf = AUTHOR_WEIGHT if term in doc.authors else 0.0
        if doc.title_len:
            norm = 1.0 - TITLE_B + TITLE_B * doc.title_len / self._avg_title
            tf += TITLE_WEIGHT * doc.title.get(term, 0) / norm
        if doc.abstract_len:
            norm = 1.0 - ABSTRACT_B + ABSTRACT_B * doc.abstract_len / self._avg_abstract
            tf += ABSTRACT_WEIGHT * doc.abstract.get(term, 0) / norm
        return tf

    def query(self, sentence: str, around: Sequence[str] = ()) -> dict[str, float]:
        """Weight of every query word: 1 for the sentence's, ``AROUND_WEIGHT`` for words
        only in the sentences around it."""
        weights: dict[str, float] = {t: 1.0 for t in terms(sentence)}
        for text in around:
            for t in terms(text):
                weights.setdefault(t, AROUND_WEIGHT)
        return weights

    def score(self, sentence: str, work: Work, around: Sequence[str] = ()) -> float:
        """0..1: the share of the sentence's (idf-weighted) words the work accounts for."""
        q = self.query(sentence, around)
        if not q:
            return 0.0
        doc = self._doc(work)
        total = got = 0.0
        for term, weight in q.items():
            idf = self.idf(term) * weight
            total += idf
            tf = self._tf(doc, term)
            if tf:
                got += idf * tf * (K1 + 1.0) / (tf + K1)
        return min(1.0, got / ((K1 + 1.0) * total)) if total else 0.0
