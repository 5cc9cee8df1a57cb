"""A verifier's sources and how it asks them: one slot per source, the identifiers
planned ahead (:mod:`citewarden.verify.plan`), look-ups batched with other entries'
(:mod:`citewarden.verify.coalesce`), and the cancel event of the entry being verified."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from citewarden.settings import VerifySettings
from citewarden.verify.base import Source
from citewarden.verify.batch_split import too_large
from citewarden.verify.coalesce import Coalescer
from citewarden.verify.evidence import Evidence
from citewarden.verify.http import ENTRY_BUDGET_FACTOR
from citewarden.verify.plan import Ahead
from citewarden.verify.records import Lookup, Outcome
from citewarden.verify.urgency import PrioritySlots, is_urgent

log = logging.getLogger("citewarden.verify")

#: Sources that hold only part of the literature: their "not found" is not evidence.
PARTIAL_SOURCES = frozenset({"snapshot"})

_CANCEL: contextvars.ContextVar[asyncio.Event | None] = contextvars.ContextVar(
    "citewarden_verify_cancel", default=None
)


class _Cancelled(Exception):
    """The run was cancelled before this request was sent."""


def _check_cancel() -> None:
    cancel = _CANCEL.get()
    if cancel is not None and cancel.is_set():
        raise _Cancelled


class SourceCalls:
    """A verifier's sources (already wrapped in the cache, if any) and its look-ups."""

    def __init__(
        self,
        sources: Sequence[Source],
        settings: VerifySettings | None = None,
        *,
        today: date | None = None,
    ) -> None:
        self.settings = settings or VerifySettings()
        self.sources: dict[str, Source] = {s.name: s for s in sources}
        order = [n for n in PARTIAL_SOURCES if n in self.sources]
        order += [n for n in self.settings.sources if n in self.sources]
        order += [n for n in self.sources if n not in order]
        self.order = order
        self.today = today or date.today()
        self._loop: int | None = None
        self._source_slots: dict[str, PrioritySlots] = {}
        self._ahead = Ahead(self._slot, entry_seconds(self.settings))
        self._coalescer = Coalescer(entry_seconds(self.settings), slot=self._slot)
        self._closers: list[Callable[[], Any]] = []
        #: What the user should be told once about this verifier (a rebuilt or missing cache).
        self.notices: list[str] = []
        #: (service, why) of the services that stopped answering so far (its HTTP
        #: client's breaker).
        self.cut_off: Callable[[], list[tuple[str, str]]] = list
        #: (service, why) of the services cut off now.
        self.stopped: Callable[[], list[tuple[str, str]]] = list

    def _bind_loop(self) -> None:
        """Slots and batches belong to one event loop; start afresh on another."""
        loop = id(asyncio.get_running_loop())
        if loop != self._loop:
            self._loop = loop
            self._source_slots = {}
            self._ahead = Ahead(self._slot, entry_seconds(self.settings))
            self._coalescer = Coalescer(entry_seconds(self.settings), slot=self._slot)

    def _slot(self, name: str) -> PrioritySlots:
        """Requests in flight to one source (``settings.concurrency``): each source has its
        own, so entries waiting on a strict source (arXiv) never hold up the others.  The
        plan's and the coalesced batch requests take it too.  The HTTP client keeps each
        lane at its published and advertised limits."""
        slot = self._source_slots.get(name)
        if slot is None:
            slot = self._source_slots[name] = PrioritySlots(self.settings.concurrency)
        return slot

    async def _ask(self, source: Any, name: str, method: str, *args: Any) -> Lookup:
        """One look-up: the plan's answer when it fetched it ahead, else in a batch with
        other entries' look-ups (:mod:`citewarden.verify.coalesce`), else on its own.  An id
        whose answer was over the body cap even alone in a batch is asked on its own, and so
        is an urgent look-up (:mod:`citewarden.verify.urgency`), first in its source's slot,
        unless a batch request holding its id is being sent (its answer is on the way)."""
        if len(args) == 1 and isinstance(args[0], str) and is_urgent():
            peek = getattr(source, "peek", None)
            hit = peek(method, args[0]) if callable(peek) else None
            if isinstance(hit, Lookup):  # the cache answers without a slot
                return hit
            sent = self._ahead.in_flight(name, method, args[0])
            early = await asyncio.shield(sent) if sent is not None else None
            if early is not None and not too_large(early):  # a batch being sent answers it
                return early
        elif len(args) == 1 and isinstance(args[0], str):
            ahead = self._ahead.take(name, method, args[0])
            # shielded: other entries citing the identifier wait for the same answer, which
            # this entry's cancellation (its text changed in the editor) must not cancel
            early = await asyncio.shield(ahead) if ahead is not None else None
            if early is None and Coalescer.handles(source, name, method):
                _check_cancel()
                early = await self._coalescer.ask(source, name, method, args[0])
            if early is not None and not too_large(early):
                return early
        async with self._slot(name):
            _check_cancel()
            lookup: Lookup = await getattr(source, method)(*args)
            return lookup

    async def _at_hand(self, name: str, method: str, arg: str) -> Lookup | None:
        """The answer of a look-up that needs no request of its own: brought by a batch of
        the plan (waited for while in flight), or in the cache; None when the source would
        have to be asked."""
        future = self._ahead.planned(name, method, arg)
        early = await asyncio.shield(future) if future is not None else None
        if early is not None and early.outcome is not Outcome.FAILED:
            return early
        peek = getattr(self.sources.get(name), "peek", None)
        hit = peek(method, arg) if callable(peek) else None
        if isinstance(hit, Lookup) and hit.outcome is not Outcome.FAILED:
            return hit
        return None

    async def _ask_safely(self, source: Any, name: str, method: str, *args: Any) -> Lookup:
        """:meth:`_ask`, a source that raised (sources promise not to) answering FAILED."""
        try:
            return await self._ask(source, name, method, *args)
        except _Cancelled:
            raise
        except Exception as exc:
            log.warning("%s.%s raised %s", name, method, type(exc).__name__)
            return Lookup.failed(name, f"internal error in {name}")

    async def _call(self, ev: Evidence, name: str, method: str, *args: Any) -> Lookup | None:
        """A look-up for ``ev``'s entry, recorded in its evidence (the sources asked, their
        failures); None when the source has no such look-up."""
        source = self.sources.get(name)
        fn = getattr(source, method, None) if source is not None else None
        if fn is None:
            return None
        lookup = await self._ask_safely(source, name, method, *args)
        if lookup.outcome is Outcome.FAILED and lookup.reason == "unsupported":
            return None
        ev.sources.append(name)
        if lookup.outcome is Outcome.FAILED:
            ev.fail(name, lookup.reason)
        elif lookup.notices_stale:
            ev.stale_notices.update(r.doi for r in lookup.records if r.doi)
        return lookup


def entry_seconds(settings: VerifySettings) -> float:
    """The time budget of one entry: ``verify.entry-budget``, else ``ENTRY_BUDGET_FACTOR``
    request timeouts."""
    if settings.entry_budget is not None:
        return settings.entry_budget
    return ENTRY_BUDGET_FACTOR * settings.timeout
