"""The queue of background verification: jobs, workers, the pump and its progress.

:class:`VerificationQueue` (a base of :class:`~citewarden.lsp.verification.VerificationService`)
queues the entries to verify by priority, runs them on the engine's thread with
``concurrency`` workers (plus express workers for what was just saved), reports
``$/progress`` "Verifying references" and cancels the work of fingerprints no longer in the
text.  Once a verdict is shown, the abstract its matched record lacks is asked for (the
citation context reads it; the diagnostics do not wait for it).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import time
from typing import TYPE_CHECKING, Any

from citewarden.lsp import progress
from citewarden.lsp.verify_scope import OTHER, VerificationScope
from citewarden.lsp.verify_state import EngineThread, Job
from citewarden.model import Status, Verdict

if TYPE_CHECKING:
    from citewarden.settings import VerifySettings

log = logging.getLogger("citewarden.lsp.verification")

#: Task registry group of the verification pump.
VERIFY = "verify"
PROGRESS_TITLE = "Verifying references"

#: Least time between two progress reports.
REPORT_INTERVAL = 0.1

#: Workers added for urgent entries (just saved) while all workers are busy.
EXPRESS_WORKERS = 2


class VerificationQueue(VerificationScope):
    """Queues entries by priority and verifies them with workers (a base of
    :class:`~citewarden.lsp.verification.VerificationService`, which holds the state)."""

    _heap: list[tuple[int, int, int, str]]
    _lending: set[asyncio.Future[Any]]
    _batch: int
    _seq: itertools.count[int]
    _workers: set[asyncio.Task[None]]
    _verifier: Any
    _urgent: asyncio.Event
    total: int
    done: int

    if TYPE_CHECKING:  # provided by VerificationService

        @property
        def settings(self) -> VerifySettings: ...
        @property
        def engine(self) -> EngineThread: ...
        async def _ensure_verifier(self) -> Any: ...
        def status(self) -> dict[str, Any]: ...
        def send_status(self, force: bool = False) -> None: ...
        def request_republish(self) -> None: ...
        def _tell_cache_trouble(self) -> None: ...

    # -- running ------------------------------------------------------------------------------
    async def verify(
        self,
        *,
        force: bool = False,
        keys: set[str] | None = None,
    ) -> dict[str, Any]:
        """Queue the entries in scope that have no verdict yet (or an ``unverified`` one);
        ``force`` queues them all, ``keys`` only those keys.  -> the status."""
        if not self.enabled:
            return self.status()
        self.loop = asyncio.get_running_loop()
        await self._ensure_verifier()
        jobs, _ = await self.session.run(self._plan, list(self.session.open))
        self._cancel_outdated()
        self._batch += 1
        urgent = 0
        for job in jobs:
            job.batch = self._batch
            if keys is not None and job.entry.key not in keys:
                continue
            known = self.verdicts.get(job.fp)
            if known is not None and not force and known.status is not Status.UNVERIFIED:
                continue
            self._enqueue(job)
            urgent += job.priority < OTHER
        if self._queue:
            self._prefetch()
            # what the author is looking at does not wait for busy workers to free up
            self._start(urgent=min(urgent, EXPRESS_WORKERS) if keys is None else 1)
        self.send_status()
        return self.status()

    def _prefetch(self) -> None:
        """Fetch the identifiers of the queued entries in batches, in queue order (cited in
        open documents first), before the workers compare them one by one."""
        verifier = self._verifier
        if verifier is None:
            return
        live = [t for t in self._heap if t[3] in self._queue and self._queue[t[3]].seq == t[2]]
        entries = [self._queue[fp].entry for *_, fp in sorted(live)]
        self.engine.submit(verifier.prefetch(entries)).add_done_callback(_log_failure)

    def _enqueue(self, job: Job) -> None:
        if job.fp in self._running:
            return
        queued = self._queue.get(job.fp)
        if queued is not None and queued.priority <= job.priority:
            return
        if queued is None:
            self.total += 1
        job.seq = next(self._seq)
        self._queue[job.fp] = job
        heapq.heappush(self._heap, (job.priority, -job.batch, job.seq, job.fp))

    def _pop(self) -> Job | None:
        while self._heap:
            _, _, seq, fp = heapq.heappop(self._heap)
            job = self._queue.get(fp)
            if job is not None and job.seq == seq:
                del self._queue[fp]
                return job
        return None

    def _start(self, urgent: int = 0) -> None:
        """Start the pump (progress and workers) unless it runs; else top its workers up and
        start ``urgent`` one-job workers for what was just queued first."""
        pump = self.session.tasks.get(VERIFY, "pump")
        if pump is None or pump.done():
            self.session.tasks.spawn(VERIFY, "pump", self._pump())
            return
        self._top_up()
        for _ in range(urgent):
            self._workers.add(asyncio.ensure_future(self._express()))

    def _top_up(self) -> None:
        want = max(1, self.settings.concurrency)
        self._workers = {w for w in self._workers if not w.done()}
        while len(self._workers) < want and len(self._workers) < len(self._queue) + len(
            self._running
        ):
            self._workers.add(asyncio.ensure_future(self._worker()))

    async def _pump(self) -> None:
        async with progress.WorkProgress(
            self.session.server, PROGRESS_TITLE, cancellable=True
        ) as work:
            self._top_up()
            last = ""
            last_at = 0.0
            try:
                while self._queue or self._running or any(not w.done() for w in self._workers):
                    if work.cancelled:
                        log.info("verification cancelled by the client")
                        self.cancel_all()
                        break
                    message = f"{self.done} of {self.total}"
                    now = time.monotonic()
                    if message != last and now - last_at >= REPORT_INTERVAL:
                        work.report(message, self.done * 100 // max(1, self.total))
                        last, last_at = message, now
                    if not any(not w.done() for w in self._workers) and self._queue:
                        self._top_up()
                    pending = [w for w in self._workers if not w.done()]
                    if pending:
                        await asyncio.wait(pending, timeout=0.05)
                    else:
                        await asyncio.sleep(0.01)
                work.report(f"{self.done} of {self.total}", 100)
            finally:
                for w in self._workers:
                    w.cancel()
                self._workers.clear()
                self.total = self.done = 0
        self.request_republish()
        self.send_status(force=True)

    async def _worker(self) -> None:
        while True:
            job = self._pop()
            if job is None or self._verifier is None:
                return
            await self._run_job(job)

    async def _express(self) -> None:
        """One job, the most urgent, without waiting for a busy worker to free up."""
        job = self._pop()
        if job is not None and self._verifier is not None:
            await self._run_job(job)

    async def _run_job(self, job: Job) -> None:
        log.debug("verifying %s (priority %d)", job.entry.key, job.priority)
        # an entry a save queued asks its sources ahead of the run still going on
        urgent = job.batch > 1 and job.batch == self._batch
        task = self.engine.submit(self._verifier.verify(job.entry, urgent=urgent))
        self._running[job.fp] = task
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._running.pop(job.fp, None)
        self._tell_cache_trouble()
        if task.cancelled():
            self.total = max(self.done, self.total - 1)
            return
        try:
            verdict = task.result()
        except Exception:
            log.exception("verification of %s failed", job.entry.key)
            self.total = max(self.done, self.total - 1)
            return
        log.debug("verified %s: %s, tier %s", job.entry.key, verdict.status, verdict.tier)
        self.verdicts[job.fp] = verdict
        self.generation += 1
        self.done += 1
        if job.batch > 1 and job.batch == self._batch:  # after a save: show it now
            self._urgent.set()
        self.request_republish()
        self._lend_abstract(job.fp, verdict)

    def _lend_abstract(self, fp: str, verdict: Verdict) -> None:
        """Ask, once ``verdict`` is shown, for its matched work's abstract when no record at
        hand lent one (only the citation context reads it); the verdict with the abstract
        replaces the one shown, if that is still the verdict of ``fp``."""
        match = verdict.match
        if match is None or match.abstract or not match.doi:
            return
        lend = getattr(self._verifier, "lend_abstract", None)
        if lend is None:
            return
        future = self.engine.submit(lend(verdict))
        self._lending.add(future)

        def done(finished: asyncio.Future[Any]) -> None:
            self._lending.discard(finished)
            if finished.cancelled() or finished.exception() is not None:
                return
            lent = finished.result()
            if lent is verdict or self.verdicts.get(fp) is not verdict:
                return  # nothing lent, or the entry was verified again since
            self.verdicts[fp] = lent
            self.generation += 1
            self.request_republish()

        future.add_done_callback(done)

    def cancel_all(self) -> None:
        """Stop every verification in flight and forget the queue."""
        self._queue.clear()
        self._heap.clear()
        for task in list(self._running.values()):
            task.cancel()
        for future in list(self._lending):
            future.cancel()

    def _cancel_outdated(self) -> None:
        """Cancel the work for fingerprints no longer in the text (the entry changed).

        Reads the newest look at the text, whenever it is called: a call scheduled from an
        older look must not cancel what a newer one queued."""
        current = self._current_set
        for fp in [fp for fp in self._queue if fp not in current]:
            del self._queue[fp]
            self.total = max(self.done, self.total - 1)
        for fp, task in list(self._running.items()):
            if fp not in current:
                task.cancel()


def _log_failure(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("planning verification failed: %r", future.exception())
