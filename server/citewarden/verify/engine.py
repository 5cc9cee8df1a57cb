"""The verification pipeline: identifier first, then fielded search, then a verdict.

For each entry: normalise (only the fields verification needs); decide whether it can be
verified at all (``skipped``); look its identifier up (DOI via Crossref then doi.org; arXiv
id via arXiv; ISBN via Open Library; PMID via PubMed); when there is no identifier, or it
points at another work, search the sources in the configured order and stop at the first
candidate whose title and authors agree.  A search hit is only a candidate: it must pass
the comparison.  Failed look-ups are remembered so that "could not check" never turns into
"no such work".
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path

from citewarden.model import Code, Entry, Issue, Status, Tier, Verdict
from citewarden.settings import Settings, VerifySettings
from citewarden.verify import urgency
from citewarden.verify.abstract_steps import AbstractSteps
from citewarden.verify.evidence import Evidence
from citewarden.verify.http import entry_budget
from citewarden.verify.id_lookup import IdLookup
from citewarden.verify.journals import journal_records
from citewarden.verify.legitimacy import with_venue
from citewarden.verify.normalize import normalize_entry
from citewarden.verify.records import UpdateKind, WorkRecord
from citewarden.verify.search_steps import SearchSteps
from citewarden.verify.source_calls import _CANCEL, _Cancelled, entry_seconds
from citewarden.verify.verdict import decide, skipped

log = logging.getLogger("citewarden.verify")

#: Entry types that describe things no bibliographic source verifies.
UNVERIFIABLE_TYPES = frozenset(
    {"online", "www", "webpage", "electronic", "software", "codebase", "dataset", "patent"}
)

OnResult = Callable[[str, Verdict], Awaitable[None] | None]


def skip_reason(entry: Entry, settings: VerifySettings) -> str | None:
    """Why an entry is not verified, or None when it should be."""
    if entry.key in settings.ignore_entries:
        return "listed in verify.ignore_entries"
    has_id = any((entry.get(n) or "").strip() for n in ("doi", "eprint", "isbn", "pmid"))
    url = (entry.get("url") or entry.get("howpublished") or "").lower()
    if not re.search(r"://|\\url|www\.", url):
        url = ""
    if "arxiv.org/" in url or "doi.org/10." in url:
        has_id = True
    kind = entry.entry_type.lower()
    if has_id:
        return None
    if kind in UNVERIFIABLE_TYPES:
        return f"@{kind} entries are not indexed by bibliographic sources"
    if not (entry.get("title") or "").strip():
        return "no title or identifier to verify"
    if (
        kind == "misc"
        and url
        and not any(
            (entry.get(n) or "").strip() for n in ("journal", "booktitle", "publisher", "author")
        )
    ):
        return "a web page (only a title and a URL)"
    if (
        kind == "misc"
        and url
        and not any((entry.get(n) or "").strip() for n in ("journal", "booktitle", "publisher"))
    ):
        return "a web page or software (a URL without a venue or publisher)"
    return None


class Verifier(IdLookup, SearchSteps, AbstractSteps):
    """Verifies entries against sources (already wrapped in the cache, if any)."""

    async def prefetch(self, entries: Iterable[Entry]) -> None:
        """Plan the identifiers of ``entries`` and fetch them in batches per source, in
        their order (see :mod:`citewarden.verify.plan`); :meth:`verify` then uses the
        answers.  Each batch is sent as soon as it is full, while the rest is planned."""
        self._bind_loop()
        ahead = self._ahead
        for entry in entries:
            if skip_reason(entry, self.settings) is not None:
                continue
            try:
                norm = normalize_entry(entry)
            except Exception:  # verification reports it for this entry
                continue
            if ahead.add(self.sources, norm):
                await asyncio.sleep(0)  # let the batch go out
        ahead.flush(self.sources)

    async def aclose(self) -> None:
        """Release what :func:`build_verifier` opened (HTTP client, cache, snapshot)."""
        for source in self.sources.values():
            close = getattr(source, "close", None)
            if callable(close):
                close()
        self._ahead.cancel()
        self._coalescer.cancel()
        for closer in self._closers:
            result = closer()
            if asyncio.iscoroutine(result):
                await result
        self._closers.clear()

    # ------------------------------------------------------------------------------------

    async def verify(self, entry: Entry, *, urgent: bool = False) -> Verdict:
        """The verdict for one entry.  Never raises for network or data problems.
        ``urgent``: the author waits for it (just saved): its requests go first."""
        with urgency.urgent(urgent):
            verdict = await self._verify(entry, None)
        assert verdict is not None
        return verdict

    async def lend_abstract(self, verdict: Verdict) -> Verdict:
        """``verdict`` with its match's abstract asked of the other records of the work
        when no record at hand lent one (see :mod:`citewarden.verify.abstract_steps`),
        within an entry's time budget.  The editor publishes a verdict first and asks this
        after it: the citation context waits for the abstract, the diagnostics do not.
        Never raises: a failure leaves ``verdict`` as it was."""
        self._bind_loop()
        _CANCEL.set(None)
        with entry_budget(entry_seconds(self.settings)):
            try:
                return await self._with_abstract(verdict, ask=True)
            except _Cancelled:
                return verdict
            except Exception:
                log.exception("asking for the abstract of %s failed", verdict.key)
                return verdict

    async def _verify(self, entry: Entry, cancel: asyncio.Event | None) -> Verdict | None:
        """The verdict, or None when ``cancel`` was set before the work started."""
        reason = skip_reason(entry, self.settings)
        if reason is not None:
            return skipped(entry.key, reason)
        if cancel is not None and cancel.is_set():
            return None
        self._bind_loop()
        _CANCEL.set(cancel)
        # every request for this entry shares one time budget (see verify.http)
        with entry_budget(entry_seconds(self.settings)):
            return await self._verify_within_budget(entry)

    async def _verify_within_budget(self, entry: Entry) -> Verdict | None:
        try:
            norm = normalize_entry(entry)
            ev = Evidence(norm, today=self.today)
            await self._identify(ev)
            if ev.id_comparison is None or not ev.id_comparison.title_ok:
                await self._search(ev)
            await self._corroborate(ev)
            await self._venue_opinions(ev)
            await self._venue_registry(ev)
            self._published_version(ev)
            await self._notices(ev)
            venue_records = await self._venue_records(ev)
            venue_records += await journal_records(
                self.sources, ev.entry, venue_records, self._ask_safely
            )
            verdict = with_venue(decide(ev, entry.key), ev.entry, venue_records, faulted=ev.faulted)
            return await self._with_abstract(verdict)
        except _Cancelled:
            return None
        except Exception:  # one bad entry must not stop the others
            log.exception("verification of %s failed", entry.key)
            return Verdict(
                entry.key,
                Status.UNVERIFIED,
                Tier.D,
                issues=(Issue(Code.UNVERIFIED, "internal error while verifying"),),
                reason="internal error",
            )

    async def verify_many(
        self,
        entries: Iterable[Entry],
        *,
        on_result: OnResult | None = None,
        cancel_event: asyncio.Event | None = None,
    ) -> dict[str, Verdict]:
        """Verify entries concurrently: identifiers first, fetched in batches per source
        (:meth:`prefetch`), then each entry's comparisons and searches, at most
        ``settings.concurrency`` requests in flight per source.

        ``on_result(key, verdict)`` is called as each verdict is ready.  Setting
        ``cancel_event`` stops further look-ups; entries not finished by then are left out.
        """
        results: dict[str, Verdict] = {}
        unique: dict[str, Entry] = {}
        for e in entries:
            unique.setdefault(e.key, e)

        async def one(entry: Entry) -> None:
            verdict = await self._verify(entry, cancel_event)
            if verdict is None:
                return
            results[entry.key] = verdict
            if on_result is not None:
                try:
                    maybe = on_result(entry.key, verdict)
                    if asyncio.iscoroutine(maybe):
                        await maybe
                except Exception:  # a failing listener must not stop verification
                    log.exception("on_result callback failed for %s", entry.key)

        if cancel_event is None or not cancel_event.is_set():
            await self.prefetch(unique.values())
        await asyncio.gather(*(one(e) for e in unique.values()))
        return results


def notices_of(records: Iterable[WorkRecord]) -> set[UpdateKind]:
    return {u.kind for r in records for u in r.updates}


# ----------------------------------------------------------------------------------------
# Construction from settings
# ----------------------------------------------------------------------------------------


def build_verifier(
    settings: Settings,
    *,
    offline: bool = False,
    snapshot: Path | None = None,
    abstracts: bool = False,
) -> Verifier:
    """A verifier over the configured sources behind the persistent cache.

    ``offline`` answers from the cache (and the snapshot, if any) only.  ``abstracts``
    asks the sources for the abstract of a matched work whose record has none (a run with
    citing sentences to score; see :mod:`citewarden.verify.abstract_steps`).  Close it with
    ``await verifier.aclose()`` (releases the HTTP client and the cache).
    """
    from citewarden.cache import Cache
    from citewarden.verify.config import resolve_config
    from citewarden.verify.shared_rate import RATE_DIR
    from citewarden.verify.sources.registry import build_sources, make_http

    config = resolve_config(settings.verify)
    notices: list[str] = []
    try:
        cache: Cache | None = Cache()
    except Exception as exc:  # any cache problem: said once, then verify without one
        cache = None
        reason = str(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        notices.append(f"verifying without a cache: {reason}")
    if cache is not None and cache.notice:
        notices.append(cache.notice)
    # request rates are shared with other processes through the cache directory
    shared_dir = cache.directory / RATE_DIR if cache is not None else None
    http = make_http(config, shared_dir=shared_dir)
    sources = build_sources(
        config,
        http,
        cache=cache,
        offline=offline or settings.verify.offline,
        snapshot=snapshot,
    )
    verifier = Verifier(sources, settings.verify)
    verifier.abstracts = abstracts
    verifier.notices = notices
    verifier.cut_off = http.breaker.cut_off
    verifier.stopped = http.breaker.stopped
    verifier._closers.append(http.aclose)
    if cache is not None:
        verifier._closers.append(cache.close)
    return verifier


def verdict_counts(verdicts: Mapping[str, Verdict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in verdicts.values():
        counts[v.status.value] = counts.get(v.status.value, 0) + 1
    return counts
