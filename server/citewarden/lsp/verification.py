"""Background verification of the project's bibliography entries.

On start-up (once the workspace is indexed) and on every save, the entries of the project's
bibliographies are queued for verification through the persistent cache: entries cited in
the open documents first, then the entries of open bibliographies, then the rest.

* Each entry is known by a *fingerprint* of its identity fields (type, title, authors, year,
  venue, volume, number, pages, identifiers ...).  Verdicts are stored by fingerprint, so an
  entry is verified again only when one of those fields changes, and a verdict can never be
  shown on an entry whose identity changed since: findings are always made from the current
  parse (exact current spans) and the verdict of the current fingerprint.
* When the text changes, verifications of fingerprints that no longer exist are cancelled.
* Work is done by ``concurrency`` workers pulling from a priority queue.  The engine (async
  I/O, plus parsing of replies and comparisons) runs on its own event loop in a thread of
  its own, so the server's loop stays free to answer hover and completion while hundreds of
  entries verify; the model is read in the session's worker thread only.
* ``$/progress`` "Verifying references" reports "37 of 120"; cancelling it from the client
  cancels every verification in flight and empties the queue (no further requests).
* ``citewarden/status`` notifications (and the ``citewarden.status`` command) carry
  ``{score, tiers: {H, E, M, D}, verified, total, verifying, ...}``: ``verified`` counts the
  entries whose verification finished (whatever the outcome), ``total`` the entries to verify.

The service plugs into the session as one typed feature
(:class:`citewarden.lsp.verify_actions.VerificationFeature`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import heapq
import itertools
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citewarden.findings.score import score_summary
from citewarden.findings.verdicts import (
    citation_findings,
    citations_of,
    entry_findings,
    marks_citations,
)
from citewarden.lsp import progress
from citewarden.lsp.session import Session
from citewarden.lsp.verify_rows import carried, moved_row, moved_rows, shift, spliced
from citewarden.lsp.verify_state import (
    EngineThread,
    Job,
    _FileMemo,
    _FileRows,
    fingerprint,
)
from citewarden.lsp.wire import notify
from citewarden.model import (
    Entry,
    Finding,
    ParsedBibliography,
    Status,
    Verdict,
)
from citewarden.parsing import is_latex, is_markdown
from citewarden.settings import Settings, VerifySettings

log = logging.getLogger(__name__)

#: Task registry group of the verification pump.
VERIFY = "verify"
STATUS_METHOD = "citewarden/status"
PROGRESS_TITLE = "Verifying references"

#: Least time between two republications while verdicts stream in (the first one after a
#: quiet spell goes out at once); a republication that took longer is followed by a pause
#: as long.
REPUBLISH_INTERVAL = 0.4
#: Least time between two progress reports.
REPORT_INTERVAL = 0.1

#: Priorities: cited in an open document, in an open bibliography, anything else.
CITED_OPEN, OPEN_BIB, OTHER = 0, 1, 2
#: Workers added for urgent entries (just saved) while all workers are busy.
EXPRESS_WORKERS = 2


class VerificationService:
    """Verifies entries in the background and provides their findings to the session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: Verdicts by fingerprint.
        self.verdicts: dict[str, Verdict] = {}
        #: Bumped whenever a verdict (or what findings depend on) changes.
        self.generation = 0
        self._queue: dict[str, Job] = {}
        self._heap: list[tuple[int, int, int, str]] = []
        self._batch = 0
        self._seq = itertools.count()
        self._running: dict[str, asyncio.Future[Any]] = {}
        self._workers: set[asyncio.Task[None]] = set()
        self._verifier: Any = None
        self._engine: EngineThread | None = None
        self._verifier_settings: VerifySettings | None = None
        self._verifier_lock = asyncio.Lock()
        #: Cache notices already shown (each is said once per server).
        self._told: set[str] = set()
        self._files: dict[Path, _FileMemo] = {}
        # the engine's modules load while the workspace is indexed, not after it
        threading.Thread(target=_preload_engine, name="citewarden-preload", daemon=True).start()
        #: Fingerprints by the entry's source text, so unchanged entries are not looked at.
        self._fp_by_text: dict[str, str] = {}
        #: Per bibliography: its entries' verdicts and findings, as last merged.
        self._rows: dict[Path, _FileRows] = {}
        #: Fingerprints of the entries in scope, one per entry (from the last look).
        self._current: list[str] = []
        #: The same as a set: the newest look at the text (set in the worker only).
        self._current_set: frozenset[str] = frozenset()
        self.total = 0
        self.done = 0
        self._started = False
        self._republish_task: asyncio.Task[None] | None = None
        self._republish_again = False
        #: Set when a verdict the author is waiting for (after a save) arrives.
        self._urgent = asyncio.Event()
        self._last_status: dict[str, Any] | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    # -- settings -------------------------------------------------------------------------
    @property
    def settings(self) -> VerifySettings:
        verify: VerifySettings = self.session.settings.verify
        return verify

    @property
    def enabled(self) -> bool:
        return bool(self.settings.enabled)

    @property
    def verifying(self) -> bool:
        return bool(self._queue or self._running)

    def _resolved(self, settings: Settings) -> Settings:
        """Settings with a relative snapshot path resolved against the workspace root."""
        snap = settings.verify.snapshot
        roots = self.session.roots
        if snap and roots and not Path(snap).expanduser().is_absolute():
            verify = dataclasses.replace(settings.verify, snapshot=str(roots[0] / snap))
            return dataclasses.replace(settings, verify=verify)
        return settings

    async def _ensure_verifier(self) -> Any:
        """The verifier for the current settings (rebuilt, and verdicts dropped, when the
        verification settings change)."""
        async with self._verifier_lock:
            wanted = self.settings
            if self._verifier is not None and self._verifier_settings == wanted:
                return self._verifier
            old = self._verifier
            if old is not None:
                self.cancel_all()
                self.verdicts.clear()
                self.generation += 1
                with contextlib.suppress(Exception):
                    await self.engine.submit(old.aclose())
            settings = self._resolved(self.session.settings)
            # the verification modules are imported there too, off the loop that answers
            self._verifier = await asyncio.to_thread(_build_verifier, settings)
            self._verifier_settings = wanted
            self._tell(self._verifier.notices)
            return self._verifier

    def _tell(self, notices: Sequence[str]) -> None:
        """Show each notice (a rebuilt or unusable cache) once."""
        from lsprotocol import types

        for notice in notices:
            if notice in self._told:
                continue
            self._told.add(notice)
            with contextlib.suppress(Exception):
                self.session.server.window_show_message(
                    types.ShowMessageParams(
                        type=types.MessageType.Warning, message=f"citewarden: {notice}"
                    )
                )

    @property
    def engine(self) -> EngineThread:
        if self._engine is None:
            self._engine = EngineThread()
        return self._engine

    async def aclose(self) -> None:
        self.cancel_all()
        if self._verifier is not None:
            with contextlib.suppress(Exception):
                await self.engine.submit(self._verifier.aclose())
            self._verifier = None
        if self._engine is not None:
            self._engine.stop()
            self._engine = None

    # -- session hooks ----------------------------------------------------------------------
    def on_checked(self, delivered: set[Path]) -> None:
        """After every check cycle: start verifying once the workspace is ready; follow
        changes of the verification settings."""
        if not self.enabled:
            if self.verifying:
                self.cancel_all()
            return
        self.loop = asyncio.get_running_loop()
        if not self._started:
            self._started = True
            self.session.tasks.spawn(VERIFY, "startup", self._startup())
        elif self._verifier_settings is not None and self._verifier_settings != self.settings:
            self.session.tasks.spawn(VERIFY, "settings", self.verify())

    async def _startup(self) -> None:
        await self.session.ready.wait()
        await self.verify()

    async def on_save(self, path: Path) -> None:
        """A file was saved: verify what changed (when ``verify.on_save``)."""
        if not self.enabled or not self.settings.on_save:
            return
        self.loop = asyncio.get_running_loop()
        self.session.tasks.spawn(VERIFY, "save", self._after_save(path))

    async def _after_save(self, path: Path) -> None:
        await self.session.ready.wait()
        await self.session.ensure_current(path)
        await self.verify()

    # -- planning ---------------------------------------------------------------------------
    def _fingerprints(self, path: Path, bib: ParsedBibliography) -> _FileMemo:
        """Fingerprints and ignore marks of ``bib``'s entries (worker only; memoised per
        parse, and carried over from the previous parse for the entries an edit did not
        touch)."""
        memo = self._files.get(path)
        if memo is not None and memo.bib is bib:
            return memo
        ws = self.session.project
        text = ws.text(path) or ""
        known = self._fp_by_text
        span = carried(memo.bib, bib) if memo is not None else None
        if memo is not None and span is not None:
            head, tail = span
            entries = bib.entries
            middle = [
                self._fingerprint(entries[i], text, known) for i in range(head, len(entries) - tail)
            ]
            fps = spliced(memo.fps, head, tail, middle)  # type: ignore[arg-type]
            ignored = [False] * len(fps)  # carried over only without ignore comments
        else:
            ignored = []
            index = ws.line_index(path) if bib.suppressed_lines else None
            for entry in bib.entries:
                line = index.line_of(entry.span.start) if index is not None else -1
                ignored.append(line in bib.suppressed_lines)
            fps = [self._fingerprint(entry, text, known) for entry in bib.entries]
        if len(known) > 4 * max(1, sum(len(m.fps) for m in self._files.values()) + len(fps)):
            keep = {text[e.span.start : e.span.end] for e in bib.entries}
            self._fp_by_text = {k: v for k, v in known.items() if k in keep}
        memo = _FileMemo(bib, fps, ignored)  # type: ignore[arg-type]
        self._files[path] = memo
        return memo

    @staticmethod
    def _fingerprint(entry: Entry, text: str, known: dict[str, str]) -> str:
        raw = text[entry.span.start : entry.span.end]
        fp = known.get(raw) if raw else None
        if fp is None:
            fp = fingerprint(entry)  # builds the entry's fields: only for new text
            if raw:
                known[raw] = fp
        return fp

    def _scope(self) -> list[tuple[Path, ParsedBibliography, _FileMemo]]:
        """The bibliographies in scope with their fingerprints (worker only)."""
        ws = self.session.project
        out = []
        for path in ws.bibliography_paths():
            if self.session.ignored(path):
                continue
            bib = ws.bibliography(path)
            if bib is None:
                continue
            out.append((path, bib, self._fingerprints(path, bib)))
        for gone in set(self._files) - {p for p, _, _ in out}:
            del self._files[gone]
        return out

    def _wanted(self, key: str, ignored: bool) -> bool:
        """Whether the entry with ``key`` (on an ignored line or not) is verified at all."""
        return self.session.policy.verifies_key(key, suppressed=ignored)

    def _plan(self, open_paths: Sequence[Path]) -> tuple[list[Job], list[str]]:
        """Every entry to verify with its priority, and the fingerprints in scope (worker)."""
        ws = self.session.project
        cited: set[str] = set()
        open_bibs: set[Path] = set()
        for path in open_paths:
            if is_latex(path) or is_markdown(path):
                doc = ws.document(path)
                if doc is not None:
                    cited.update(c.key for c in doc.citations)
            else:
                open_bibs.add(path)
        jobs: list[Job] = []
        current: list[str] = []
        for path, bib, memo in self._scope():
            for entry, fp, ignored in zip(bib.entries, memo.fps, memo.ignored, strict=True):
                if not self._wanted(entry.key, ignored):
                    continue
                current.append(fp)
                if entry.key in cited:
                    prio = CITED_OPEN
                elif path in open_bibs:
                    prio = OPEN_BIB
                else:
                    prio = OTHER
                jobs.append(Job(fp, entry, prio, 0))
        self._current, self._current_set = current, frozenset(current)
        return jobs, current

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
        task = self.engine.submit(self._verifier.verify(job.entry))
        self._running[job.fp] = task
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._running.pop(job.fp, None)
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

    def cancel_all(self) -> None:
        """Stop every verification in flight and forget the queue."""
        self._queue.clear()
        self._heap.clear()
        for task in list(self._running.values()):
            task.cancel()

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

    # -- findings (worker) -------------------------------------------------------------------
    def findings(self) -> dict[Path, list[Finding]]:
        """Verification findings by file for the current text (runs in the session's worker
        as part of every check cycle)."""
        if not self.enabled:
            return {}
        ws = self.session.project
        settings = self.session.settings
        verify = settings.verify
        out: dict[Path, list[Finding]] = {}
        marked: list[tuple[Entry, Verdict]] = []
        rows: dict[Path, _FileRows] = {}
        for path, bib, memo in self._scope():
            mine = rows[path] = self._rows_of(path, bib, memo, settings)
            for i in mine.marked:
                verdict = mine.verdicts[i]
                if verdict is not None:
                    marked.append((bib.entries[i], verdict))
            if mine.found:
                out[path] = mine.found
        if rows.keys() != self._rows.keys() or any(rows[p] is not self._rows[p] for p in rows):
            current = [fp for r in rows.values() for fp in r.wanted]
            self._current, self._current_set = current, frozenset(current)
        self._rows = rows
        sites: list[Finding] = []
        if marked and verify.citation_sites:
            cited = citations_of(ws, marked)
            for entry, verdict in marked:
                sites += citation_findings(entry, verdict, cited.get(entry.key, []))
        for f in self.session.policy.apply(ws, sites) if sites else []:
            out.setdefault(f.location.path, []).append(f)
        if self.loop is not None and (self._running or self._queue):
            self.loop.call_soon_threadsafe(self._cancel_outdated)
        return out

    def _rows_of(
        self, path: Path, bib: ParsedBibliography, memo: _FileMemo, settings: Settings
    ) -> _FileRows:
        """The per-entry verdicts and findings of one bibliography (worker only)."""
        generation, token = self.generation, id(self.session.policy)
        prev = self._rows.get(path)
        if prev is not None and prev.settings_token != token:
            prev = None
        if prev is not None and prev.bib is bib and prev.generation == generation:
            return prev
        span = carried(prev.bib, bib) if prev is not None and prev.bib is not bib else None
        if prev is not None and span is not None and prev.generation == generation:
            return self._carried_rows(path, prev, bib, memo, settings, span)
        fps, n = memo.fps, len(memo.fps)
        index = self.session.project.bib_index(path)
        keys = index.keys if index is not None else [e.key for e in bib.entries]
        flags = [self._wanted(k, ig) for k, ig in zip(keys, memo.ignored, strict=True)]
        get = self.verdicts.get
        verdicts = [get(fp) if wanted else None for fp, wanted in zip(fps, flags, strict=True)]
        # where each entry's previous row is, and how far it has moved: (position, delta)
        origin: list[tuple[int, int] | None]
        if prev is not None and prev.bib is bib:
            origin = [(i, 0) for i in range(n)]
        elif prev is not None and span is not None:
            head, tail = span
            delta = shift(prev.bib, bib, tail)
            first_old = len(prev.rows) - tail
            origin = [(i, 0) for i in range(head)]
            origin += [None] * (n - head - tail)
            origin += [(first_old + k, delta) for k in range(tail)]
        else:
            origin = [None] * n
        text = self.session.project.text(path)
        rows: list[Sequence[Finding]] = []
        for i, verdict in enumerate(verdicts):
            if verdict is None:
                rows.append(())
                continue
            at = origin[i]
            if at is not None and prev is not None and prev.verdicts[at[0]] is verdict:
                rows.append(moved_row(prev.rows[at[0]], at[1]))
            else:
                rows.append(self._row(bib.entries[i], verdict, text, settings))
        marked = [i for i, v in enumerate(verdicts) if v is not None and marks_citations(v)]
        return _FileRows(bib, generation, token, fps, flags, verdicts, rows, marked)

    def _carried_rows(
        self,
        path: Path,
        prev: _FileRows,
        bib: ParsedBibliography,
        memo: _FileMemo,
        settings: Settings,
        span: tuple[int, int],
    ) -> _FileRows:
        """The rows of ``bib``, a re-read of ``prev.bib`` with no verdict changed since:
        those of the entries the edit did not touch are carried over, not looked at."""
        head, tail = span
        entries, fps = bib.entries, memo.fps
        n, n_old = len(fps), len(prev.rows)
        text = self.session.project.text(path)
        flags: list[bool] = []
        verdicts: list[Verdict | None] = []
        rows: list[Sequence[Finding]] = []
        marked: list[int] = [i for i in prev.marked if i < head]
        for i in range(head, n - tail):
            entry = entries[i]
            wanted = self._wanted(entry.key, memo.ignored[i])
            verdict = self.verdicts.get(fps[i]) if wanted else None
            flags.append(wanted)
            verdicts.append(verdict)
            if verdict is None:
                rows.append(())
                continue
            if marks_citations(verdict):
                marked.append(i)
            rows.append(self._row(entry, verdict, text, settings))
        moved_by = n - n_old
        marked += [i + moved_by for i in prev.marked if i >= n_old - tail]
        delta = shift(prev.bib, bib, tail)
        return _FileRows(
            bib,
            prev.generation,
            prev.settings_token,
            fps,
            spliced(prev.flags, head, tail, flags),  # type: ignore[arg-type]
            spliced(prev.verdicts, head, tail, verdicts),  # type: ignore[arg-type]
            prev.rows[:head] + rows + moved_rows(prev.rows[n_old - tail :] if tail else [], delta),
            marked,
        )

    def _row(
        self, entry: Entry, verdict: Verdict, text: str | None, settings: Settings
    ) -> Sequence[Finding]:
        """The findings of one entry's verdict after the policy step."""
        found = entry_findings(entry, verdict, text)
        return tuple(self.session.policy.apply(self.session.project, found)) if found else ()

    def verdict_for(self, entry: Entry) -> tuple[Verdict | None, bool]:
        """(verdict, still pending) of an entry's current fingerprint (worker only)."""
        fp = fingerprint(entry)
        return self.verdicts.get(fp), fp in self._queue or fp in self._running

    # -- publishing --------------------------------------------------------------------------
    def request_republish(self) -> None:
        """Merge the new verdicts into the diagnostics soon (coalesced while they stream)."""
        if self._republish_task is not None and not self._republish_task.done():
            self._republish_again = True
            return
        self._republish_task = asyncio.ensure_future(self._republish())

    async def _republish(self) -> None:
        try:
            while True:
                self._republish_again = False
                started = time.monotonic()
                await self.session.republish()
                log.debug("republished in %.1f ms", (time.monotonic() - started) * 1000)
                self.send_status()
                if not self._republish_again:
                    return
                # at least as long again as this one took: merging verdicts into a large
                # file's diagnostics never takes more than half of the server's time
                took = time.monotonic() - started
                wait = max(REPUBLISH_INTERVAL - took, took)
                if wait > 0 and not self._urgent.is_set():
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._urgent.wait(), wait)
                self._urgent.clear()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("publishing verification findings failed")

    # -- status ------------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        """``{score, tiers, verified, total, verifying, statuses, counted, unverified,
        skipped}`` of the entries in scope: the score summary ``check`` prints."""
        current = self._current
        known = [v for v in map(self.verdicts.get, current) if v is not None]
        return {
            **score_summary(known).as_json(),
            "verified": len(known),
            "total": len(current),
            "verifying": self.verifying,
            "enabled": self.enabled,
            "offline": bool(self.settings.offline),
        }

    def send_status(self, force: bool = False) -> None:
        status = self.status()
        if status == self._last_status and not force:
            return
        self._last_status = status
        notify(self.session.server, STATUS_METHOD, status)

    # -- cache ------------------------------------------------------------------------------
    async def clear_cache(self) -> int:
        """Forget every cached look-up and every verdict; verify everything again."""
        self.cancel_all()
        from citewarden import cache as disk_cache

        verifier = self._verifier
        removed = 0
        for source in getattr(verifier, "sources", {}).values() if verifier else ():
            store = getattr(source, "cache", None)
            if store is not None:
                removed = await asyncio.to_thread(store.clear)
                break
        else:
            removed = await asyncio.to_thread(disk_cache.clear)
        self.verdicts.clear()
        self.generation += 1
        self.request_republish()
        return removed


def verdicts_by_key(
    service: VerificationService, entries: Sequence[Entry]
) -> Mapping[str, Verdict]:
    """The current verdict of each entry, by key (worker only)."""
    out: dict[str, Verdict] = {}
    for entry in entries:
        verdict = service.verdicts.get(fingerprint(entry))
        if verdict is not None and entry.key not in out:
            out[entry.key] = dataclasses.replace(verdict, key=entry.key)
    return out


def _log_failure(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("planning verification failed: %r", future.exception())


def _build_verifier(settings: Settings) -> Any:
    from citewarden.verify.engine import build_verifier

    return build_verifier(settings)


def _preload_engine() -> None:
    """Import the verification engine and its sources (a second or more on a busy machine),
    so that building the verifier after indexing does not wait for it."""
    try:
        import citewarden.verify.engine
        import citewarden.verify.sources.registry  # noqa: F401
    except Exception:  # importing again later reports the problem where it matters
        log.debug("preloading the verification engine failed", exc_info=True)
