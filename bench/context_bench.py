"""Citation context: how well the relevance score ranks fitting citations above unfitting ones.

Two labelled sets, each scored three ways in the same run:

* ``field BM25F``: :class:`citewarden.context.relevance.FieldCorpus` (the set's own works as
  the corpus, title and abstract apart, the sentences around the citation included);
* ``... sentence only``: the same without the surrounding sentences;
* ``TF-IDF cosine``: the plain baseline, cosine of TF-IDF vectors of the sentence and the
  work's title + abstract (idf over the same works, no stemming, no fields).

Sets:

* ``ml-public-health``: 37 citing sentences written for this bench (one per work, the way an
  author cites it) over the abstracts of a real OpenAlex search page ("machine learning AND
  public health", bench/data/context/openalex_ml_public_health.json, read with the real
  OpenAlex record reader).  Every sentence is paired with its own work (fits) and with each
  of the 36 other works of the same field (does not fit).
* ``examples``: every citation of the two example papers (examples/), its sentence taken by
  the real citing-sentence reader, paired with the entry it cites (fits) and with every other
  entry of the bibliography it does not cite there (does not fit).  The works are known by
  their titles only (the recordings hold no abstract for them).

Prints the ROC AUC of each score on each set (the probability that a fitting pair scores
above an unfitting one; ties count half).

Also prints what the editor's hover pays: building the corpus of 2 000 and 20 000 works
(the hover samples at most 2 000) and taking one citation's sentence in a document of 3 000
citations.

Usage: ``python bench/context_bench.py``
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from xml.etree.ElementTree import Element

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.context.relevance import STOPWORDS, FieldCorpus, Work  # noqa: E402
from citewarden.context.sentence import citing_sentences  # noqa: E402
from citewarden.parsing.bibtex import parse_bibtex  # noqa: E402
from citewarden.parsing.latex import parse_latex  # noqa: E402
from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.verify.normalize import normalize_entry  # noqa: E402
from citewarden.verify.records import WorkRecord  # noqa: E402
from citewarden.verify.sources._common import parse_xml  # noqa: E402
from citewarden.verify.sources.arxiv import ATOM, strip_version, work_from_entry  # noqa: E402
from citewarden.verify.sources.openalex import work_from_openalex  # noqa: E402
from citewarden.verify.sources.semanticscholar import work_from_s2  # noqa: E402

DATA = ROOT / "bench" / "data" / "context"

#: (sentence, sentences around it, work, label)
Pair = tuple[str, tuple[str, ...], Work, int]


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
            pairs.append((row["sentence"], (), by_doi[other["doi"]], int(other is row)))
    return pairs, corpus


def _rows(name: str) -> list[dict[str, str]]:
    text = (DATA / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _same_page_pairs(
    rows: list[dict[str, str]], key: str, pages: list[dict[str, Work]]
) -> list[Pair]:
    """Each sentence with its own work (fits) and every other work of its page (does not)."""
    pairs: list[Pair] = []
    for row in rows:
        page = next(p for p in pages if row[key] in p)
        for wid, work in page.items():
            pairs.append((row["sentence"], (), work, int(wid == row[key])))
    return pairs


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
                group.setdefault(strip_version(record.arxiv_id), work_of(record))
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
                    pairs.append((s.text, around, work, int(key == c.key)))
    return pairs, list(works.values())


def evaluate(pairs: list[Pair], corpus: list[Work]) -> dict[str, float]:
    field = FieldCorpus(corpus)
    tfidf = TfIdf(corpus)
    scores: dict[str, Callable[[Pair], float]] = {
        "field BM25F": lambda p: field.score(p[0], p[2], p[1]),
        "field BM25F, sentence only": lambda p: field.score(p[0], p[2]),
        "TF-IDF cosine": lambda p: tfidf.cosine(p[0], p[2]),
    }
    return {name: roc_auc([(fn(p), p[3]) for p in pairs]) for name, fn in scores.items()}


def timings() -> None:
    import time

    from citewarden.context.words import _terms, stem

    words = [w.title for w in ml_public_health()[1]]
    for n in (2000, 20000):
        stem.cache_clear()
        _terms.cache_clear()
        works = [Work(f"{words[i % len(words)]} {i}", None, ("Smith",)) for i in range(n)]
        started = time.perf_counter()
        FieldCorpus(works)
        print(f"corpus of {n} works: {1000 * (time.perf_counter() - started):.0f} ms")
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
        "examples": examples(),
    }
    print(
        f"{'set':<18} {'pairs (fit/not)':>16}  "
        + "  ".join(
            f"{n:>27}" for n in ("field BM25F", "field BM25F, sentence only", "TF-IDF cosine")
        )
    )
    for name, (pairs, corpus) in sets.items():
        fits = sum(p[3] for p in pairs)
        auc = evaluate(pairs, corpus)
        counts = f"{fits}/{len(pairs) - fits}"
        print(f"{name:<18} {counts:>16}  " + "  ".join(f"{v:>27.4f}" for v in auc.values()))
    timings()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
