"""Search and rank: the works a citation key (or an identifier) most likely names.

Runs through the verification engine's sources (already wrapped in the cache, rate
limits and politeness), never an HTTP client of its own.  A key is searched as free text
(``Query.free_text``: dblp, then Crossref ``query.bibliographic`` + ``query.author``, and, when
those have nothing, OpenAlex, Semantic Scholar and arXiv; see ``ROUNDS``).  A candidate must agree with
the key's surname (first author) and year and, when the key has title words, with at least
one of them.  Candidates with a DOI are re-read from their DOI's record ("DOI first"), so
the entry built from it is the registry's.  Failed sources are reported, never mistaken
for "no such work".
"""

from __future__ import annotations

import asyncio
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from citewarden.addref.keys import KeyReading
from citewarden.verify.base import Source
from citewarden.verify.identifiers import clean_doi, clean_isbn
from citewarden.verify.records import Lookup, Outcome, Query, WorkRecord
from citewarden.verify.search_order import MAX_QUERY_AUTHOR, MAX_QUERY_TITLE, query_text
from citewarden.verify.source_calls import PARTIAL_SOURCES

#: Rounds of sources: the sources of a round are asked together; the next round only when
#: nothing agreed (dblp reads author-year keys best; Crossref covers every field).
ROUNDS = (("snapshot", "dblp"), ("crossref",), ("openalex", "semanticscholar", "arxiv"))
#: Sources whose DOI record is the one an entry is built from, in order.
DOI_SOURCES = ("crossref", "snapshot", "datacite", "doi")
ARXIV_DOI = "10.48550/arxiv."
PREPRINT_VENUES = frozenset({"corr", "arxiv", "biorxiv", "medrxiv", "ssrn"})
ROWS = 5

_LETTERS = re.compile(r"[^a-z]")
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A work that agrees with the key, with the sources that returned it."""

    record: WorkRecord
    score: float
    sources: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class KeyLookup:
    """What a key's search found: ranked candidates, the sources asked, and failures."""

    reading: KeyReading
    candidates: tuple[Candidate, ...] = ()
    asked: tuple[str, ...] = ()
    failures: tuple[tuple[str, str], ...] = ()  # (source, reason)
    offline: bool = False

    def why_nothing(self) -> str:
        """Why there is no candidate, in words for the user."""
        if not self.reading.searchable:
            return f"the key {self.reading.key!r} names no author to search for"
        if not self.asked:
            return "no source can search (check citewarden.verify.sources)"
        if self.failures and len(self.failures) == len(self.asked):
            reasons = "; ".join(f"{s}: {r}" for s, r in self.failures)
            return f"no source answered ({reasons})"
        if self.failures:
            reasons = "; ".join(f"{s}: {r}" for s, r in self.failures)
            return f"no work by {self.reading.surname} agrees with the key ({reasons})"
        return f"no work by {self.reading.surname} {self.reading.year or ''} agrees with the key"


def fold_name(text: str) -> str:
    """A surname as keys spell it: ASCII letters only, lower case."""
    return _LETTERS.sub("", _ascii(text).replace("ß", "ss"))


def _surname_forms(family: str) -> set[str]:
    words = [w for w in re.split(r"[\s-]+", family) if w]
    forms = {fold_name(family)}
    if words:
        forms |= {fold_name(words[0]), fold_name(words[-1])}
    return {f for f in forms if f}


def surname_agrees(surname: str, record: WorkRecord) -> bool:
    """True when the record's first author's surname is the key's."""
    if not record.authors:
        return False
    return fold_name(surname) in _surname_forms(record.authors[0].family)


def is_preprint(record: WorkRecord) -> bool:
    venue = (record.venue or "").strip().casefold()
    return record.work_type == "posted-content" or venue in PREPRINT_VENUES


def year_agrees(year: int | None, record: WorkRecord) -> bool:
    """Exact year, or one off for preprints (arXiv first, proceedings a year later)."""
    if year is None:
        return True
    if record.year is None:
        return False
    return record.year == year or (abs(record.year - year) == 1 and is_preprint(record))


def _ascii(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text.casefold())
    return "".join(c for c in plain if not unicodedata.combining(c))


def _title_words(record: WorkRecord) -> list[str]:
    return _WORD.findall(_ascii(f"{record.title} {record.subtitle or ''}"))


def _word_in(word: str, words: Sequence[str]) -> bool:
    """True when a title word starts with ``word``, or a run of title words spells it
    (``costaware`` for "Cost-aware", ``chainofthought`` for "Chain-of-Thought")."""
    for i, t in enumerate(words):
        if t.startswith(word) or (
            word.startswith(t) and "".join(words[i : i + 6]).startswith(word)
        ):
            return True
    return False


def score(reading: KeyReading, record: WorkRecord, context: Sequence[str] = ()) -> float | None:
    """How well ``record`` fits the key; None when it does not agree at all."""
    if reading.surname is None or not surname_agrees(reading.surname, record):
        return None
    if not year_agrees(reading.year, record):
        return None
    words = _title_words(record)
    total = 10.0
    if reading.words:
        hits = [w for w in reading.words if _word_in(w, words)]
        if not hits:
            return None
        total += 3.0 * len(hits) / len(reading.words)
        significant = [w for w in words if len(w) > 2]
        if significant and significant[0].startswith(reading.words[0]):
            total += 1.0  # Google Scholar's word is the title's first significant word
    if context:
        total += sum(1 for c in context if any(t.startswith(c[:6]) for t in words)) / len(context)
    if reading.year is not None and record.year == reading.year:
        total += 2.0
    if record.doi:
        total += 1.0
    if not is_preprint(record):
        total += 0.5
    return total


def _identity(record: WorkRecord) -> str:
    if record.doi:
        return f"doi:{record.doi.lower()}"
    return f"title:{' '.join(_title_words(record))}|{record.year}"


def rank(
    reading: KeyReading, lookups: Iterable[Lookup], context: Sequence[str] = ()
) -> list[Candidate]:
    """The agreeing records of ``lookups``, one per work, best first."""
    best: dict[str, Candidate] = {}
    order: list[str] = []
    for lookup in lookups:
        if lookup.outcome is not Outcome.FOUND:
            continue
        for position, record in enumerate(lookup.records):
            value = score(reading, record, context)
            if value is None:
                continue
            value -= position * 0.01  # the service's own order breaks ties
            ident = _identity(record)
            old = best.get(ident)
            if old is None:
                order.append(ident)
                best[ident] = Candidate(record, value, (record.source,))
            else:
                sources = tuple(dict.fromkeys((*old.sources, record.source)))
                keep = old.record if old.score >= value else record
                best[ident] = Candidate(keep, max(old.score, value) + 0.1, sources)
    return sorted((best[i] for i in order), key=lambda c: -c.score)


def _by_name(sources: Sequence[Source]) -> dict[str, Source]:
    return {s.name: s for s in sources}


async def _ask(source: Source, query: Query) -> Lookup:
    try:
        return await source.search(query)
    except Exception as exc:  # a source must not take the request down
        return Lookup.failed(source.name, f"error: {type(exc).__name__}")


def key_query(reading: KeyReading, context: Sequence[str], source: str) -> Query:
    """The free-text query for one source (context words only where ranking is loose)."""
    words = list(reading.words)
    if source == "dblp":  # dblp matches every word (as a prefix): the surest ones only
        words = words[:1]
    if source == "crossref":
        words += [c for c in context if c not in words]
    return Query(
        title=query_text(" ".join(words), MAX_QUERY_TITLE),
        authors=(query_text(reading.surname, MAX_QUERY_AUTHOR),) if reading.surname else (),
        year=reading.year,
        limit=ROWS,
        free_text=True,
    )


async def doi_record(doi: str, sources: Sequence[Source]) -> Lookup:
    """The DOI's own record from the first DOI source that has it; when none has it, what
    the answers say together (:func:`no_record`: doi.org's "no such DOI" is final, any
    other source's is not when another failed)."""
    named = _by_name(sources)
    answers: list[Lookup] = []
    for name in DOI_SOURCES:
        source = named.get(name)
        if source is None:
            continue
        try:
            found = await source.by_doi(doi)
        except Exception as exc:
            found = Lookup.failed(name, f"error: {type(exc).__name__}")
        if found.outcome is Outcome.FOUND:
            return found
        answers.append(found)
    return no_record(answers, final=("doi",)) or Lookup.failed("doi", "no DOI source configured")


def no_record(answers: Sequence[Lookup], *, final: Sequence[str] = ()) -> Lookup | None:
    """What answers without a record say together: "not found" only when every source
    answered (a failed source has said nothing, so it is never hidden behind another's
    "not found"), unless a registry named in ``final`` (doi.org for a DOI) said so; else
    FAILED with every failed source's reason.  None when there is no answer."""
    for answer in answers:
        if answer.source in final and answer.outcome is Outcome.NOT_FOUND:
            return answer
    failed = [a for a in answers if a.outcome is Outcome.FAILED]
    if len(failed) == 1:
        return failed[0]
    if failed:
        reasons = "; ".join(f"{a.source}: {a.reason or 'failed'}" for a in failed)
        return Lookup.failed(failed[0].source, reasons)
    whole = [a for a in answers if a.source not in PARTIAL_SOURCES]  # not a partial index's
    return (whole or list(answers))[-1] if answers else None


def _same_work(a: WorkRecord, b: WorkRecord) -> bool:
    """True when two records of one DOI describe the same work (first author, title words)."""
    if a.authors and b.authors and not surname_agrees(a.authors[0].family, b):
        return False
    wa, wb = set(_title_words(a)), set(_title_words(b))
    return bool(wa and wb) and len(wa & wb) * 2 >= min(len(wa), len(wb))


async def _doi_first(candidate: Candidate, sources: Sequence[Source]) -> Candidate:
    rec = candidate.record
    if not rec.doi or rec.source in DOI_SOURCES or rec.doi.startswith(ARXIV_DOI):
        return candidate  # (an arXiv DOI's record is the arXiv listing the hit came from)
    found = await doi_record(rec.doi, sources)
    if found.outcome is not Outcome.FOUND:
        return candidate
    better = found.records[0]
    if not _same_work(rec, better):
        return candidate  # the hit's DOI names another work: keep what the search found
    if better.arxiv_id is None and rec.arxiv_id:
        better = replace(better, arxiv_id=rec.arxiv_id)
    return Candidate(
        better, candidate.score, tuple(dict.fromkeys((*candidate.sources, better.source)))
    )


async def find_for_key(
    reading: KeyReading,
    sources: Sequence[Source],
    *,
    context: Sequence[str] = (),
    limit: int = 3,
) -> KeyLookup:
    """The works ``reading`` most likely names, best first (at most ``limit``)."""
    named = _by_name(sources)
    if reading.arxiv_id:
        found = await _by_identifier("arxiv", reading.arxiv_id, sources)
        cands = tuple(Candidate(r, 10.0, (r.source,)) for r in found.records[:1])
        fails = () if found.outcome is not Outcome.FAILED else ((found.source, found.reason or ""),)
        return KeyLookup(reading, cands, (found.source,), fails)
    if not reading.searchable:
        return KeyLookup(reading)
    asked: list[str] = []
    failures: list[tuple[str, str]] = []
    ranked: list[Candidate] = []
    lookups: list[Lookup] = []
    for names in ROUNDS:
        present = [n for n in names if n in named]
        if not present:
            continue
        asked += present
        results = await asyncio.gather(
            *(_ask(named[n], key_query(reading, context, n)) for n in present)
        )
        for name, result in zip(present, results, strict=True):
            if result.outcome is Outcome.FAILED:
                failures.append((name, result.reason or "failed"))
        lookups += results
        ranked = rank(reading, lookups, context)
        if ranked:
            break
    top = await asyncio.gather(*(_doi_first(c, sources) for c in ranked[:limit]))
    return KeyLookup(reading, tuple(top), tuple(asked), tuple(failures))


# -- identifiers ---------------------------------------------------------------------------

_ARXIV = re.compile(
    r"^(?:arxiv:|https?://arxiv\.org/(?:abs|pdf)/)?(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?(?:\.pdf)?$",
    re.IGNORECASE,
)
_PMID = re.compile(r"^(?:pmid:\s*)?(\d{1,9})$", re.IGNORECASE)


def parse_identifier(text: str) -> tuple[str, str]:
    """``(kind, value)`` for a DOI, arXiv id, ISBN or PMID; ``("title", text)`` otherwise."""
    text = text.strip()
    if doi := clean_doi(text):
        return "doi", doi
    if m := _ARXIV.match(text):
        return "arxiv", m.group(1)
    bare = re.sub(r"^isbn[:\s]*", "", text, flags=re.I)
    if re.fullmatch(r"[\d\s-]{9,17}[\dXx]", bare) and (isbn := clean_isbn(bare)):
        return "isbn", isbn
    if m := _PMID.match(text):
        return "pmid", m.group(1)
    return "title", " ".join(text.split())


#: Work types an ISBN names (of a chapter or a paper, it names the book holding it).
_BOOKS = frozenset({"book", "monograph", "edited-book", "reference-book"})
#: The identifiers a work of a title several works have can be chosen by.
_ANY_ID = "DOI, arXiv id, PMID or ISBN"


def work_identifier(record: WorkRecord) -> str | None:
    """An identifier :func:`parse_identifier` reads that names ``record``'s work (its DOI,
    arXiv id, PMID or, of a book, ISBN), or None when it has none."""
    if record.doi:
        return record.doi
    if record.arxiv_id:
        return f"arXiv:{record.arxiv_id}"
    if record.pmid:
        return f"PMID:{record.pmid}"
    if record.isbn and record.work_type in _BOOKS:
        return f"ISBN:{record.isbn[0]}"
    return None


def _work_line(record: WorkRecord) -> str:
    """First author, year and title of ``record`` on one line, cleaned."""
    who = next((p.family for p in record.authors if p.family), "Anonymous")
    return _UNSAFE.sub("", " ".join(f"{who} {record.year or 'n.d.'}, {record.title}".split()))


@dataclass(frozen=True, slots=True)
class Ambiguous:
    """A title several works answer alike (same words, no version of one another): the
    caller must not choose for the user, unless no work has an identifier to be chosen by
    (:attr:`nameable` false): then the first, the best hit, is added with :meth:`warning`."""

    title: str
    source: str
    records: tuple[WorkRecord, ...]

    @property
    def nameable(self) -> bool:
        """True when some work has an identifier (:func:`work_identifier`) to choose it by."""
        return any(work_identifier(r) for r in self.records)

    def message(self) -> str:
        """The works, one a line (first author, year, title, identifier), and how to choose."""
        lines = [f"{len(self.records)} works are titled {self.title!r} ({self.source}):"]
        for r in self.records:
            ident = work_identifier(r)
            shown = f"DOI {ident}" if r.doi else ident or f"no {_ANY_ID} to name it by"
            lines.append(f"  {_work_line(r)} ({shown})")
        if all(r.doi for r in self.records):
            lines.append("give the DOI of the one meant instead of its title")
        else:
            lines.append(f"give the {_ANY_ID} shown of the one meant instead of its title")
        if not all(work_identifier(r) for r in self.records):
            lines.append("a work with none can be added only by writing its entry")
        return "\n".join(lines)

    def warning(self) -> str:
        """What adding the first work says when no work has an identifier to choose by."""
        others = "; ".join(_work_line(r) for r in self.records[1:])
        return (
            f"{len(self.records)} works are titled {self.title!r} ({self.source}), none with"
            f" a {_ANY_ID} to choose it by: added the first, {_work_line(self.records[0])};"
            f" not the others: {others}"
        )


def _listing(record: WorkRecord) -> bool:
    """A preprint (an arXiv DOI too) or a record without a DOI: a version of a work."""
    return is_preprint(record) or not record.doi or record.doi.startswith(ARXIV_DOI)


def _is_version(a: WorkRecord, b: WorkRecord) -> bool:
    """True when two records of one title are one work: the same first author, and one of
    them a preprint or without a DOI (a listing of the other)."""
    if not (a.authors and b.authors and surname_agrees(a.authors[0].family, b)):
        return False
    return _listing(a) or _listing(b)


def _title_rank(record: WorkRecord, position: int) -> float:
    """:func:`score`'s tie-breaks for records of one title: a DOI, the published version,
    then the service's order."""
    published = not (is_preprint(record) or (record.doi or "").startswith(ARXIV_DOI))
    return (1.0 if record.doi else 0.0) + (0.5 if published else 0.0) - position * 0.01


def title_works(records: Sequence[WorkRecord], wanted: str) -> list[WorkRecord]:
    """The works among ``records`` titled ``wanted`` (words compared), one record each
    (the published version, with a DOI, before a preprint or an index's listing), best
    first."""
    hits = [
        (r, _title_rank(r, n)) for n, r in enumerate(records) if " ".join(_title_words(r)) == wanted
    ]
    hits.sort(key=lambda h: -h[1])
    works: list[WorkRecord] = []
    for record, _ in hits:
        if not any(_identity(w) == _identity(record) or _is_version(w, record) for w in works):
            works.append(record)
    return works


async def _by_identifier(kind: str, value: str, sources: Sequence[Source]) -> Lookup:
    """The record of a DOI, arXiv id, ISBN or PMID (a source that failed is reported, never
    hidden behind another's "not found": :func:`no_record`)."""
    if kind == "doi":
        return await doi_record(value, sources)
    method = {"arxiv": "by_arxiv", "isbn": "by_isbn", "pmid": "by_pmid"}[kind]
    answers: list[Lookup] = []
    for source in sources:
        if hasattr(source, method):
            found = await getattr(source, method)(value)
            if found.outcome is Outcome.FOUND:
                return found
            answers.append(found)
    return no_record(answers) or Lookup.failed(kind, f"no source looks up {kind} identifiers")


async def identifier_lookup(text: str, sources: Sequence[Source]) -> Lookup | Ambiguous:
    """The record a DOI, arXiv id, ISBN, PMID or title names.  A title: the search hit whose
    title agrees, or :class:`Ambiguous` when several works' titles agree alike."""
    kind, value = parse_identifier(text)
    if kind != "title":
        return await _by_identifier(kind, value, sources)
    named = _by_name(sources)
    query = Query(title=query_text(value, MAX_QUERY_TITLE), limit=ROWS)
    wanted = " ".join(_WORD.findall(_ascii(value)))
    answers: list[Lookup] = []
    for name in ("snapshot", "crossref", "openalex", "dblp"):
        searcher = named.get(name)
        if searcher is None:
            continue
        last = await _ask(searcher, query)
        works = title_works(last.records, wanted) if last.outcome is Outcome.FOUND else []
        if len(works) > 1:
            return Ambiguous(value, last.source, tuple(works))
        if works:
            best = await _doi_first(Candidate(works[0], 0.0, (works[0].source,)), sources)
            return Lookup.found(best.record.source, [best.record])
        if last.outcome is Outcome.FOUND:
            last = Lookup.not_found(last.source)  # hits, none of them titled so
        answers.append(last)
    return no_record(answers) or Lookup.failed("search", "no source can search")


_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def describe(record: WorkRecord) -> str:
    """``Vaswani et al. 2017, Attention Is All You Need (NeurIPS)`` for an action title
    (control and bidi characters of the record removed)."""
    return _UNSAFE.sub("", " ".join(_describe(record).split()))


def _describe(record: WorkRecord) -> str:
    names = [p.family for p in record.authors if p.family]
    who = names[0] if names else "Anonymous"
    if len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    elif len(names) > 2:
        who += " et al."
    title = record.title if len(record.title) <= 90 else record.title[:87].rstrip() + "..."
    venue = ""
    short = [v for v in record.venue_short if v and len(v) <= 20]
    paren = re.findall(r"\(([A-Z][A-Za-z]{1,12})\)", record.venue or "")
    if paren:
        venue = paren[-1]
    elif short:
        venue = short[0]
    elif record.venue:
        venue = record.venue if len(record.venue) <= 40 else record.venue[:37].rstrip() + "..."
    text = f"{who} {record.year or 'n.d.'}, {title}"
    return f"{text} ({venue})" if venue else text
