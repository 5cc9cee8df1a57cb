"""Single look-ups asked at about the same time, sent to a source as one batch request.

The plan (:mod:`citewarden.verify.plan`) fetches ahead what it can know before any entry is
compared: the identifiers of the entries.  Later steps ask by identifiers found on the way
(the DOI of a record matched at another source, an arXiv id arXiv does not hold): OpenAlex
for the venue of a journal article, Semantic Scholar for an arXiv id arXiv lacks, a second
source's author list, Crossref for the notices about a work matched at dblp or OpenAlex.
Many entries reach those steps together, so :class:`Coalescer` lets their look-ups wait for
one another: per source and method, at most one batch request is in flight; the ids asked
meanwhile (and within a short window before the first) go in the next one (OpenAlex
``filter=doi:a|b``, Semantic Scholar ``POST /paper/batch``, Crossref
``filter=updates:a,updates:b``).

Cache hits never wait (:meth:`CachedSource.peek`).  A batch request takes the source's
request slot like any other request to it.  The batch runs under its own time budget
(the entry's would charge one entry for every other's answer).  An id whose batch answer is
FAILED is asked again on its own by its entry, under that entry's budget: one id a service
rejects can fail the request for all.  A batch whose answer was over the body cap is first
asked again in halves, one after the other, within the batch's budget
(:mod:`citewarden.verify.batch_split`); an id still over the cap after that is asked by its
single look-up, never in another batch.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
from dataclasses import dataclass
from typing import Any

from citewarden.verify.batch_split import in_halves, too_large
from citewarden.verify.plan import Slot, answer_key, in_slot, no_slot
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.transport import entry_budget

log = logging.getLogger("citewarden.verify")

#: (source, single method) -> (batch method, ids per request).  Both real services answer
#: these for many ids at once, each id as its single look-up would.
COALESCED: dict[tuple[str, str], tuple[str, int]] = {
    # the retraction, correction and concern notices of a work matched at another source
    ("crossref", "notices"): ("notices_many", 20),
    ("openalex", "by_doi"): ("by_dois", 50),
    ("semanticscholar", "by_doi"): ("by_dois", 100),
    ("semanticscholar", "by_arxiv"): ("by_arxivs", 100),
    # the registration agency of the prefix of a DOI Crossref does not hold (doi.org's
    # /ra/a,b answers each prefix as /ra/a does)
    ("doi", "agency"): ("agencies", 50),
}
#: Seconds the first id of a batch waits for others (entries reaching the same step).
WINDOW = 0.02


@dataclass(slots=True)
class _Batch:
    ids: dict[str, str]  # key -> id as asked
    futures: dict[str, asyncio.Future[Lookup | None]]


class Coalescer:
    """Batches of single look-ups, by (source, method).  ``budget`` is the time budget of
    one batch request (seconds); each request takes its source's request slot (``slot``)."""

    def __init__(self, budget: float, window: float = WINDOW, slot: Slot = no_slot) -> None:
        self.budget = budget
        self._slot = slot
        self.window = window
        self._pending: dict[tuple[str, str], _Batch] = {}
        self._busy: dict[tuple[str, str], asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Batch requests sent, by source (for diagnostics and tests).
        self.batches: dict[str, int] = {}

    @staticmethod
    def handles(source: Any, name: str, method: str) -> bool:
        spec = COALESCED.get((name, method))
        return spec is not None and callable(getattr(source, spec[0], None))

    async def ask(self, source: Any, name: str, method: str, arg: str) -> Lookup | None:
        """The answer for ``arg`` from a batch, or None when the batch did not settle it
        (the caller then asks on its own)."""
        peek = getattr(source, "peek", None)
        if callable(peek):
            hit = peek(method, arg)
            if isinstance(hit, Lookup):
                return hit
        slot = (name, method)
        key = answer_key(method, arg)
        batch = self._pending.get(slot)
        if batch is None:
            batch = self._pending[slot] = _Batch({}, {})
            self._start(source, slot, batch)
        future = batch.futures.get(key)
        if future is None:
            future = batch.futures[key] = asyncio.get_running_loop().create_future()
            batch.ids[key] = arg
            size = COALESCED[slot][1]
            if len(batch.ids) >= size:
                self._pending.pop(slot, None)  # full: later ids start the next batch
        return await asyncio.shield(future)

    def _start(self, source: Any, slot: tuple[str, str], batch: _Batch) -> None:
        previous = self._busy.get(slot)
        run = self._run(source, slot, batch, previous)
        # a fresh context: no entry's budget or cancel flag applies to the shared request
        task = asyncio.get_running_loop().create_task(run, context=contextvars.Context())
        self._busy[slot] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(
        self,
        source: Any,
        slot: tuple[str, str],
        batch: _Batch,
        previous: asyncio.Task[None] | None,
    ) -> None:
        answers: dict[str, Lookup] = {}
        try:
            await asyncio.sleep(self.window)
            if previous is not None:
                await asyncio.wait([previous])  # one batch in flight per source and method
            if self._pending.get(slot) is batch:
                del self._pending[slot]  # closed: later ids start the next batch
            ids = list(batch.ids.values())
            call = in_slot(self._slot(slot[0]), getattr(source, COALESCED[slot][0]))
            self.batches[slot[0]] = self.batches.get(slot[0], 0) + 1
            with entry_budget(self.budget):
                answers = await in_halves(call, ids, functools.partial(answer_key, slot[1]))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # sources promise not to raise; the entries ask on their own
            log.warning("%s.%s raised %s", slot[0], COALESCED[slot][0], type(exc).__name__)
        finally:
            for key, fut in batch.futures.items():
                if not fut.done():
                    fut.set_result(_settled(answers.get(key)))
            if self._busy.get(slot) is asyncio.current_task():
                del self._busy[slot]

    def cancel(self) -> None:
        """Stop the batches in flight; their entries ask on their own."""
        for task in list(self._tasks):
            task.cancel()
        for batch in self._pending.values():
            for fut in batch.futures.values():
                if not fut.done():
                    fut.set_result(None)
        self._pending.clear()


def _settled(answer: Lookup | None) -> Lookup | None:
    """A batch answer settles its id unless it failed (or is missing); an answer over the
    body cap even alone is passed on, for the entry to ask by its single look-up."""
    if too_large(answer):
        return answer
    if answer is None or answer.outcome is Outcome.FAILED:
        return None
    return answer
