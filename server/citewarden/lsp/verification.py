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
(:class:`citewarden.lsp.verify_actions.VerificationFeature`).  It holds the state, the
verifier, the session hooks, publishing, status and the cache; its bases hold the queue and
workers (:mod:`citewarden.lsp.verify_queue`) and the entries in scope with their findings
(:mod:`citewarden.lsp.verify_scope`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from citewarden.findings.score import score_summary
from citewarden.lsp.session import Session
from citewarden.lsp.verify_queue import VERIFY, VerificationQueue
from citewarden.lsp.verify_state import (
    EngineThread,
    Job,
    _FileMemo,
    _FileRows,
    fingerprint,
)
from citewarden.lsp.wire import notify
from citewarden.model import Entry, Verdict
from citewarden.safe_text import visible
from citewarden.settings import Settings, VerifySettings

log = logging.getLogger(__name__)

STATUS_METHOD = "citewarden/status"

#: What to do about a source that stopped answering, in the editor.
STOPPED_THEN = "they are verified again on the next save, or by verifying all references"

#: Least time between two republications while verdicts stream in (the first one after a
#: quiet spell goes out at once); a republication that took longer is followed by a pause
#: as long.
REPUBLISH_INTERVAL = 0.4


class VerificationService(VerificationQueue):
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
        #: Abstracts asked after their verdicts were shown (see ``_lend_abstract``).
        self._lending: set[asyncio.Future[Any]] = set()
        self._workers: set[asyncio.Task[None]] = set()
        self._verifier: Any = None
        self._engine: EngineThread | None = None
        self._verifier_settings: VerifySettings | None = None
        self._verifier_lock = asyncio.Lock()
        #: Cache notices already shown (each is said once per server).
        self._told: set[str] = set()
        #: The sources cut off when last told (one that answered since is told again).
        self._stopped_told: set[str] = set()
        self._files: dict[Path, _FileMemo] = {}
        self._preloading = False
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

    def preload(self) -> None:
        """When verification is on, load the engine's modules in a thread while the
        workspace is indexed, not after it; when it is off they would only slow the index
        down (the import holds the interpreter lock for most of a second)."""
        if self.enabled and not self._preloading:
            self._preloading = True
            threading.Thread(target=_preload_engine, name="citewarden-preload", daemon=True).start()

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

    def _tell_cache_trouble(self) -> None:
        """Show the first failure of the cache in use, once (look-ups go on without it)."""
        trouble = getattr(self._store(), "trouble", None)
        if trouble:
            self._tell([trouble])

    def _store(self) -> Any:
        """The verifier's cache, None when it has none."""
        verifier = self._verifier
        for source in getattr(verifier, "sources", {}).values() if verifier else ():
            store = getattr(source, "cache", None)
            if store is not None:
                return store
        return None

    def _tell(self, notices: Sequence[str]) -> None:
        """Show each notice (a rebuilt, unusable or failing cache) once, escaped."""
        for notice in notices:
            if notice in self._told:
                continue
            self._told.add(notice)
            self._say(notice)

    def _say(self, notice: str) -> None:
        """Show ``notice`` as a warning, escaped."""
        from lsprotocol import types

        with contextlib.suppress(Exception):
            self.session.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning, message=f"citewarden: {visible(notice)}"
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
            "stopped": [{"source": s, "reason": why} for s, why in self._stopped()],
        }

    def _stopped(self) -> list[tuple[str, str]]:
        """(service, why) of the sources cut off now: no request goes to them until one
        gets an answer after the cool-down."""
        verifier = self._verifier
        return verifier.stopped() if verifier is not None else []

    def send_status(self, force: bool = False) -> None:
        status = self.status()
        self._tell_stopped(status["stopped"])
        if status == self._last_status and not force:
            return
        self._last_status = status
        notify(self.session.server, STATUS_METHOD, status)

    def _tell_stopped(self, stopped: Sequence[Mapping[str, str]]) -> None:
        """Say once that a source stopped answering; again only after it answered since."""
        from citewarden.verify.breaker import stopped_notice

        now = {s["source"] for s in stopped}
        for s in stopped:
            if s["source"] not in self._stopped_told:
                self._say(stopped_notice(s["source"], s["reason"], STOPPED_THEN))
        self._stopped_told = now

    # -- cache ------------------------------------------------------------------------------
    async def clear_cache(self) -> int:
        """Forget every cached look-up and every verdict; verify everything again."""
        self.cancel_all()
        from citewarden import cache as disk_cache

        store = self._store()
        clear = store.clear if store is not None else disk_cache.clear
        removed = await asyncio.to_thread(clear)
        self.verdicts.clear()
        self.generation += 1
        self.request_republish()
        return removed


def entry_verdicts(
    verdicts: Mapping[str, Verdict], entries: Sequence[Entry]
) -> list[tuple[Entry, Verdict]]:
    """Each entry that has a verdict in ``verdicts`` (by fingerprint: the service's, read
    in the worker only, or a copy of them) with that verdict under the entry's key, in
    the order of ``entries``: a key two files define has two entries, each with its own."""
    out: list[tuple[Entry, Verdict]] = []
    for entry in entries:
        verdict = verdicts.get(fingerprint(entry))
        if verdict is not None:
            out.append((entry, dataclasses.replace(verdict, key=entry.key)))
    return out


def verdicts_by_key(
    verdicts: Mapping[str, Verdict], entries: Sequence[Entry]
) -> Mapping[str, Verdict]:
    """The verdict of each key's first entry (see :func:`entry_verdicts`)."""
    out: dict[str, Verdict] = {}
    for entry, verdict in entry_verdicts(verdicts, entries):
        out.setdefault(entry.key, verdict)
    return out


def _build_verifier(settings: Settings) -> Any:
    """The editor's verifier.  Its citations' hovers score sentences against the cited
    works, so a matched work's abstract is asked for when its record has none, but after
    the verdict is shown (``VerificationQueue._lend_abstract``): ``verify`` itself only
    takes an abstract a record at hand lends."""
    from citewarden.verify.engine import build_verifier

    return build_verifier(settings, abstracts=False)


def _preload_engine() -> None:
    """Import the verification engine and its sources (a second or more on a busy machine),
    so that building the verifier after indexing does not wait for it."""
    try:
        import citewarden.verify.engine
        import citewarden.verify.sources.registry  # noqa: F401
    except Exception:  # importing again later reports the problem where it matters
        log.debug("preloading the verification engine failed", exc_info=True)
