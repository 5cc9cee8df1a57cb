"""Plan first: collect the identifiers of a batch of entries, fetch them in batches per source.

Before any entry is compared, :class:`Ahead` gathers every identifier the entries will be
looked up by (the same routing as the engine's identifier step: DOIs at Crossref, arXiv ids
and arXiv DOIs at arXiv, PMIDs at PubMed; and the DOIs of journal articles at OpenAlex, whose
record says which indexes hold the journal) and starts one task per batch, in the order the
entries were given (the editor's queue order).  The engine's per-entry steps then take the
answer of their identifier from here instead of sending a request of their own.  Sources are
wrapped in the cache, so a batch only asks for what the cache does not hold.

A batch that failed settles nothing: its entries ask on their own, as they would without a
plan; except that a batch whose answer was over the body cap is asked again in halves first
(:mod:`citewarden.verify.batch_split`), and an id still over it then asks by its single
look-up, not in a batch of the coalesced look-ups.  A batch request takes its source's
request slot (``verify.concurrency``) like any other request to it.

Crossref's ``filter=doi:`` answer is trusted for what it holds, and for a DOI it lacks only
when the answer is evidently an OR of its filters and the filter carries the DOI as it is
(:meth:`CrossrefSource.by_dois <citewarden.verify.sources.crossref.CrossrefSource.by_dois>`):
that DOI is "not at Crossref" and goes on to doi.org as after a 404 of ``/works/{doi}``.  Any
other DOI it lacks is looked up on its own afterwards (``/works/{doi}``), because "not at
Crossref" decides whether doi.org is asked.  arXiv's ``id_list`` and PubMed's efetch answer
for every id they were given.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

from citewarden.cache import TTL_FOUND, TTL_NOT_FOUND, TTL_NOTICES
from citewarden.verify.batch_split import BatchCall, in_halves, too_large
from citewarden.verify.normalize import NormalizedEntry
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.sources._common import normalize_doi
from citewarden.verify.transport import entry_budget

log = logging.getLogger("citewarden.verify")


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """How one source answers many identifiers at once."""

    single: str  # the per-entry method the batch stands in for
    batch: str  # the batch method (a dict of answers by identifier)
    size: int  # identifiers per request
    #: Asked ahead for a later step that only some entries reach (a second author list,
    #: the venue from the indexes), not for the identifier step every entry takes.
    later: bool = False


#: The batched look-ups the plan uses, by (source, single method).
BATCHES: dict[tuple[str, str], BatchSpec] = {
    # a batch method answers NOT_FOUND only for the absences it vouches for (Crossref's not
    # for every one), and leaves the others out: their entries ask on their own
    ("crossref", "by_doi"): BatchSpec("by_doi", "by_dois", 20),
    ("arxiv", "by_arxiv"): BatchSpec("by_arxiv", "by_arxivs", 50),
    ("pubmed", "by_pmid"): BatchSpec("by_pmid", "by_pmid_batch", 100),
    # every DOI, for the steps after a match (the venue's indexes of a journal article,
    # a second author list, the venue from the indexes): OpenAlex's filter=doi: matches
    # DOIs exactly, as /works/doi: does; Semantic Scholar's /paper/batch answers null for
    # an id it does not know, as /paper/DOI:{doi} answers 404
    ("openalex", "by_doi"): BatchSpec("by_doi", "by_dois", 50, later=True),
    ("semanticscholar", "by_doi"): BatchSpec("by_doi", "by_dois", 500, later=True),
    # an arXiv id: Semantic Scholar's record of the paper names its published venue (the
    # venue from the indexes), and stands in when arXiv has no answer
    ("semanticscholar", "by_arxiv"): BatchSpec("by_arxiv", "by_arxivs", 500, later=True),
}
#: A batch for a later step (``BatchSpec.later``) with fewer ids than this is not sent: the
#: few entries that reach the step ask on their own (a save that re-checks one entry costs
#: its identifier's look-up, not two more batch requests whose answers may go unused).
LATER_FROM = 8


#: Answers settled and not taken (an entry removed before its look-up ran) held at most;
#: beyond it the oldest are forgotten (their entries, if any, ask the cache).
MAX_UNTAKEN = 5000

#: Look-ups whose argument is a DOI (their answers are kept under the normalised DOI).
DOI_METHODS = frozenset({"by_doi", "notices"})


def answer_key(method: str, arg: str) -> str:
    """The key an identifier's answer is kept under (DOIs normalised, ids case-folded)."""
    if method in DOI_METHODS:
        return normalize_doi(arg) or arg.strip().casefold()
    return arg.strip().casefold()


def identifiers(entry: NormalizedEntry) -> list[tuple[str, str, str]]:
    """(source, single method, identifier) look-ups the engine will make for ``entry`` that a source can
    answer in batches: the identifier step's first look-up, and for a DOI, OpenAlex's and
    Semantic Scholar's records of it (the venue's indexes of a journal article, the second
    author list before an author difference is reported, the venue from the indexes).
    Both answer 50 and 500 DOIs a request: asked ahead for every DOI, a bibliography's
    later look-ups cost a few requests instead of one per entry that reaches them; an
    arXiv id goes to arXiv and to Semantic Scholar alike."""
    if entry.doi and not (entry.doi.startswith("10.48550/arxiv.") and entry.arxiv_id):
        return [
            ("crossref", "by_doi", entry.doi),
            ("openalex", "by_doi", entry.doi),
            ("semanticscholar", "by_doi", entry.doi),
        ]
    if entry.arxiv_id:
        return [
            ("arxiv", "by_arxiv", entry.arxiv_id),
            ("semanticscholar", "by_arxiv", entry.arxiv_id),
        ]
    if entry.pmid:
        return [("pubmed", "by_pmid", entry.pmid)]
    return []


#: The request slot of a source, by name (``SourceCalls._slot``): a batch request takes one
#: like any other request to the source.
Slot = Callable[[str], AbstractAsyncContextManager[Any]]


def no_slot(name: str) -> AbstractAsyncContextManager[Any]:
    return contextlib.nullcontext()


def _settled(answer: Lookup | None) -> Lookup | None:
    """The batch's answer for one id when it settles the look-up, else None (the entry asks
    on its own): a failed batch says nothing about its members (one id the service rejects
    can fail the whole request), and an id the answer leaves out (an absence the source does
    not vouch for) is no answer.  An answer over the body cap even alone is passed on as it
    is: the entry then asks by its single look-up, never in another batch."""
    if too_large(answer):
        return answer
    if answer is None or answer.outcome is Outcome.FAILED:
        return None
    return answer


class Ahead:
    """Answers fetched ahead in batches, by (source, single method, key).

    Futures resolve to the :class:`Lookup` of one identifier, or to ``None`` when the batch
    did not settle it (the engine then asks on its own).  Each answer is taken once, but
    while its batch is in flight every entry asking for the identifier (entries citing the
    same work) waits for it rather than sending the single look-up.  Each batch request
    takes its source's request slot (``slot``) while it is sent.

    An answer settled and not taken (its entry removed before its look-up ran, in a long
    editor session) lives as long as the cache keeps it (:func:`lifetime`, by ``clock``),
    its notices marked stale after their day as the cache marks them; at most
    :data:`MAX_UNTAKEN` are held, the oldest forgotten first."""

    def __init__(
        self,
        slot: Slot = no_slot,
        budget: float | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._slot = slot
        self._clock = clock
        #: When each settled answer not taken yet was settled, oldest first.
        self._untaken: dict[tuple[str, str, str], float] = {}
        #: The time budget of one batch (seconds; an entry's): the entries waiting for its
        #: answer are held no longer than their own look-ups could take.  None: unbounded.
        self.budget = budget
        self._answers: dict[tuple[str, str, str], asyncio.Future[Lookup | None]] = {}
        #: Futures taken by an entry whose batch is still in flight, by the same keys.
        self._taken: dict[tuple[str, str, str], asyncio.Future[Lookup | None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Ids planned but not yet sent, with their futures, by (source, single method).
        self._pending: dict[tuple[str, str], list[tuple[str, asyncio.Future[Lookup | None]]]] = {}
        #: Every future not settled yet (taken by an entry or not).
        self._unsettled: set[asyncio.Future[Lookup | None]] = set()
        #: Look-ups in a request being sent (its slot held), by (source, method, key).
        self._sending: set[tuple[str, str, str]] = set()
        #: Batch requests started, by source (for diagnostics and tests).
        self.batches: dict[str, int] = {}

    def take(self, source: str, method: str, arg: str) -> asyncio.Future[Lookup | None] | None:
        """The future of a planned look-up, taken: a later take gets it only while its batch
        is in flight (another entry citing the same identifier waits for that answer instead
        of asking again; once it is in, the cache has it)."""
        key = (source, method, answer_key(method, arg))
        future = self._current(key)
        self._answers.pop(key, None)
        settled = self._untaken.pop(key, None)
        if future is None:
            return self._taken.get(key)
        if settled is not None:
            return _aged(future, self._clock() - settled)
        if not future.done():
            self._taken[key] = future
            future.add_done_callback(functools.partial(self._settle_taken, key))
        return future

    def _settle_taken(self, key: tuple[str, str, str], future: asyncio.Future[Any]) -> None:
        if self._taken.get(key) is future:
            del self._taken[key]

    def planned(self, source: str, method: str, arg: str) -> asyncio.Future[Lookup | None] | None:
        """The future of a planned look-up, without taking it (None when not planned, or
        taken and settled)."""
        key = (source, method, answer_key(method, arg))
        future = self._current(key)
        if future is not None and key in self._untaken:
            return _aged(future, self._clock() - self._untaken[key])
        return future or self._taken.get(key)

    def _current(self, key: tuple[str, str, str]) -> asyncio.Future[Lookup | None] | None:
        """The planned future of ``key``, forgotten (None) when its answer, settled and not
        taken, has outlived the cache's lifetime of it."""
        future = self._answers.get(key)
        settled = self._untaken.get(key)
        if future is None or settled is None:
            return future
        if self._clock() - settled < lifetime(future.result()):
            return future
        del self._answers[key], self._untaken[key]
        return None

    def _settled(self, key: tuple[str, str, str]) -> None:
        """Note that the answer of ``key`` settled while nobody had taken it; forget the
        oldest such answers beyond :data:`MAX_UNTAKEN`, and those at the front that have
        outlived the longest lifetime."""
        now = self._clock()
        self._untaken[key] = now
        while self._untaken:
            oldest, when = next(iter(self._untaken.items()))
            if len(self._untaken) <= MAX_UNTAKEN and now - when < TTL_FOUND:
                break
            del self._untaken[oldest]
            self._answers.pop(oldest, None)

    def in_flight(self, source: str, method: str, arg: str) -> asyncio.Future[Lookup | None] | None:
        """The future of a planned look-up whose batch request is being sent (holding its
        source's slot: its answer is on the way), without taking it; None otherwise (not
        planned, or its batch not sent yet and maybe queued behind other requests)."""
        key = (source, method, answer_key(method, arg))
        if key not in self._sending:
            return None
        return self._answers.get(key) or self._taken.get(key)

    def _marked(self, name: str, spec: BatchSpec, call: BatchCall) -> BatchCall:
        """``call``, its ids marked as being sent while it runs (see :meth:`in_flight`)."""

        async def marked(ids: list[str]) -> Mapping[str, Lookup]:
            keys = {(name, spec.single, answer_key(spec.single, i)) for i in ids}
            self._sending |= keys
            try:
                return await call(ids)
            finally:
                self._sending -= keys

        return marked

    def add(self, sources: Mapping[str, Any], entry: NormalizedEntry) -> bool:
        """Plan the look-ups of ``entry``; start a batch once a source has a full one.
        -> whether a batch was started."""
        started = False
        for name, method, value in identifiers(entry):
            started |= self._plan(sources, (name, method), value)
        return started

    def _plan(self, sources: Mapping[str, Any], slot: tuple[str, str], value: str) -> bool:
        spec = BATCHES[slot]
        name = slot[0]
        source = sources.get(name)
        if source is None or getattr(source, spec.batch, None) is None:
            return False
        key = (name, spec.single, answer_key(spec.single, value))
        if self._current(key) is not None:
            return False
        self._untaken.pop(key, None)
        future: asyncio.Future[Lookup | None] = asyncio.get_running_loop().create_future()
        self._answers[key] = future
        self._unsettled.add(future)
        future.add_done_callback(self._unsettled.discard)
        pending = self._pending.setdefault(slot, [])
        pending.append((value, future))
        if len(pending) < spec.size:
            return False
        self._launch(sources, slot)
        return True

    def flush(self, sources: Mapping[str, Any]) -> None:
        """Start the batches that are not full yet, but for a later step's batch of fewer
        than :data:`LATER_FROM` ids, whose entries ask on their own if they reach it."""
        for slot, pending in list(self._pending.items()):
            spec = BATCHES[slot]
            if spec.later and len(pending) < LATER_FROM:
                del self._pending[slot]
                for ident, fut in pending:
                    # forgotten, so that a later plan holding the id asks for it again
                    self._answers.pop((slot[0], spec.single, answer_key(spec.single, ident)), None)
                    if not fut.done():
                        fut.set_result(None)
                continue
            self._launch(sources, slot)

    def start(self, sources: Mapping[str, Any], entries: Iterable[NormalizedEntry]) -> None:
        """Plan every identifier of ``entries`` (in their order) and start their batches."""
        for entry in entries:
            self.add(sources, entry)
        self.flush(sources)

    def _launch(self, sources: Mapping[str, Any], slot: tuple[str, str]) -> None:
        chunk = self._pending.pop(slot, [])
        if not chunk:
            return
        name = slot[0]
        task = asyncio.ensure_future(self._fetch(sources, name, BATCHES[slot], chunk))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        self.batches[name] = self.batches.get(name, 0) + 1

    async def _fetch(
        self,
        sources: Mapping[str, Any],
        name: str,
        spec: BatchSpec,
        planned: list[tuple[str, asyncio.Future[Lookup | None]]],
    ) -> None:
        """Fetch one batch and settle the futures of its ids (each exactly once, even when
        an entry took its future before this task ran)."""
        chunk = [ident for ident, _ in planned]
        answers: dict[str, Lookup] = {}
        # its own budget (this task's context): retries and Retry-After waits a service asks
        # for end in a failed batch, whose entries then ask on their own, within theirs
        budget = entry_budget(self.budget) if self.budget is not None else contextlib.nullcontext()
        try:
            with budget:
                answers = await self._batch_answers(sources, name, spec, chunk)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # sources promise not to raise; the entries ask on their own
            log.warning("%s.%s raised %s", name, spec.batch, type(exc).__name__)
        finally:
            for ident, fut in planned:
                if fut.done():
                    continue
                fut.set_result(_settled(answers.get(answer_key(spec.single, ident))))
                key = (name, spec.single, answer_key(spec.single, ident))
                if self._answers.get(key) is fut:  # nobody has taken it yet
                    self._settled(key)

    async def _batch_answers(
        self, sources: Mapping[str, Any], name: str, spec: BatchSpec, chunk: list[str]
    ) -> dict[str, Lookup]:
        """The answers of one batch of ``chunk`` (by :func:`answer_key`)."""
        ask = await self._not_in_snapshot(sources, name, chunk)
        if len(ask) == 1:
            # a batch of one is its single look-up, whose "not found" settles it
            # (a single look-up says "not found" for any id, a filter answer not always);
            # a failure settles nothing: the entry asks on its own, in its budget
            (only,) = ask
            single = getattr(sources[name], spec.single)

            async def one(ids: list[str]) -> Mapping[str, Lookup]:
                return {answer_key(spec.single, ids[0]): await single(ids[0])}

            return dict(await in_slot(self._slot(name), self._marked(name, spec, one))([only]))
        if ask:
            batch = getattr(sources[name], spec.batch)
            call = in_slot(self._slot(name), self._marked(name, spec, batch))
            return dict(await in_halves(call, ask, functools.partial(answer_key, spec.single)))
        return {}

    async def _not_in_snapshot(
        self, sources: Mapping[str, Any], name: str, chunk: list[str]
    ) -> list[str]:
        """DOIs of ``chunk`` an offline snapshot does not hold (it is asked first)."""
        snapshot = sources.get("snapshot")
        if name != "crossref" or snapshot is None:
            return chunk
        out = []
        for doi in chunk:
            found = await snapshot.by_doi(doi)
            if found.outcome is not Outcome.FOUND:
                out.append(doi)
        return out

    def cancel(self) -> None:
        """Stop the batches in flight; their entries ask on their own."""
        for task in list(self._tasks):
            task.cancel()
        for fut in list(self._unsettled):
            if not fut.done():
                fut.set_result(None)
        self._answers.clear()
        self._taken.clear()
        self._pending.clear()
        self._untaken.clear()


def lifetime(answer: Lookup | None) -> float:
    """How long the cache keeps ``answer`` (seconds): a plan's answer not taken lives no
    longer.  One that settled nothing (None, a failure) is kept as briefly as "not found"."""
    if answer is not None and answer.outcome is Outcome.FOUND:
        return TTL_FOUND
    return TTL_NOT_FOUND


def _aged(future: asyncio.Future[Lookup | None], age: float) -> asyncio.Future[Lookup | None]:
    """``future`` (settled), its answer marked ``notices_stale`` when ``age`` is past the
    notices' lifetime, as the cache marks an answer read back after it."""
    answer = future.result()
    if answer is None or age < TTL_NOTICES or answer.notices_stale:
        return future
    aged: asyncio.Future[Lookup | None] = asyncio.get_running_loop().create_future()
    aged.set_result(dataclasses.replace(answer, notices_stale=True))
    return aged


def in_slot(slot: AbstractAsyncContextManager[Any], call: BatchCall) -> BatchCall:
    """``call`` (a batch method), each request of it sent while holding ``slot`` (the
    halves of a split batch take it one after the other, never all at once)."""

    async def held(ids: list[str]) -> Mapping[str, Lookup]:
        async with slot:
            return await call(ids)

    return held
