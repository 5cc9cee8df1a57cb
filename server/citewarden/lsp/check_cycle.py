"""The check cycle: change the project model, check it, convert the findings, commit.

Every change of the project model (an editor buffer, a folder, settings, files changed on
disk) and every check runs in one *lane*, one at a time, on a fork of the model
(:meth:`citewarden.project.Workspace.fork`) in a thread of its own.  The session's model
stays as it was meanwhile, so requests (hover, completion, ...) go on being answered from
the last completed index in the session's request worker, whatever a big document costs to
read and check.  When the work is done the fork becomes the session's model (the commit
waits for the request running at that moment, never for a check).  Once the first index is
done (requests wait for it), the lane's thread runs at a lower scheduling priority, so that
on a busy machine the threads answering requests get the processor (and the interpreter
lock, which is handed over every millisecond while another thread waits for it) first.

The check's findings go through the policy step, the features' findings are merged in, and
the diagnostic store gets what changed; publishing them is the publisher's part.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from citewarden.checks import Checker
from citewarden.lsp.documents import SparseIndex
from citewarden.lsp.memory import collector_paused, exempt_survivors
from citewarden.lsp.scheduling import finish_even_if_cancelled
from citewarden.model import Finding
from citewarden.project import Workspace

if TYPE_CHECKING:
    from citewarden.lsp.session import Session

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How much nicer (in ``nice`` steps) the lane's thread is than the rest of the server.
LANE_NICENESS = 5
#: Seconds a thread holds the interpreter lock while another waits for it (Python's
#: default is 5 ms: a request behind a check would wait that long at every hand-over).
SWITCH_INTERVAL = 0.001


def favour_requests() -> None:
    """Hand the interpreter lock over sooner (the server's process-wide setting)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def lower_priority() -> None:
    """Make the calling thread nicer than the others (Linux schedules threads apart): by
    :data:`LANE_NICENESS` steps more than the server runs with (a server started with
    ``nice`` keeps its lane below itself, never above)."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        thread = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(now + LANE_NICENESS, 19))


class CheckCycle:
    """The lane of changes and checks of one session's project model."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: Runs the checks over the model, keeping what its next run can reuse (lane only).
        self.checker = Checker()
        self._lane = asyncio.Lock()
        #: The fork the lane's thread is working on (see :meth:`model`).
        self._local = threading.local()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="check-cycle")
        #: The lane's thread is nicer than the rest once the first index is done (lane only):
        #: until then every request waits for that index, which nothing should slow down.
        self._lowered = False
        #: Files whose text may have changed since the last check (lane only).
        self._dirty: set[Path] = set()
        #: The last check's own findings after policy (before the features' are merged in).
        self.checked: Mapping[Path, Sequence[Finding]] | None = None

    @property
    def busy(self) -> bool:
        return self._lane.locked()

    async def change(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(model, *args)`` on a fork of the model in the lane's thread, then make
        the fork the session's model.

        Cancelling the caller does not cancel the work: a change half made would be lost
        (the dirty files and the editor's edit records it consumed with it)."""
        return await finish_even_if_cancelled(self._in_lane(fn, *args))

    async def _in_lane(self, fn: Callable[..., T], *args: Any) -> T:
        session = self.session
        async with self._lane:
            work = session.project.fork()
            loop = asyncio.get_running_loop()
            with collector_paused():
                result = await loop.run_in_executor(self._thread, self._run, fn, work, args)
            await session.worker.run(self._commit, work)
            return result

    def _run(self, fn: Callable[..., T], work: Workspace, args: tuple[Any, ...]) -> T:
        if not self._lowered and self.session.ready.is_set():
            lower_priority()
            self._lowered = True
        self._local.work = work
        try:
            return fn(work, *args)
        finally:
            self._local.work = None

    def model(self) -> Workspace | None:
        """The fork being changed and checked, in the lane's thread (None elsewhere): what
        the session's model is for the code a check runs (the policy step, the features'
        findings, line indexes), while requests elsewhere read the committed one."""
        return getattr(self._local, "work", None)

    def _commit(self, work: Workspace) -> None:
        self.session.commit(work)

    def close(self) -> None:
        """Let the lane's thread end once its work (if any) is done."""
        self._thread.shutdown(wait=False, cancel_futures=True)

    def mark_dirty(self, paths: Iterable[Path]) -> None:
        """The text of ``paths`` may have changed, under each of their names (lane only)."""
        work = self.model()
        for path in paths:
            self._dirty.update(work.names(path) if work is not None else (path,))

    # -- one check ----------------------------------------------------------------------
    def check(
        self,
        work: Workspace,
        path: Path | None,
        text: str | None,
        version: int | None,
        force: bool,
    ) -> dict[Path, int]:
        """Give ``work`` the buffer ``text`` of ``path`` (if any), check, update the store.
        -> the versions of open documents the checked model holds (lane thread)."""
        session = self.session
        dirty = self._dirty
        self._dirty = set()
        stable: dict[Path, int] = {}
        edits: dict[Path, tuple[str, int, int]] = {}
        indexed: dict[Path, int] = {}
        if path is not None and text is not None:
            edited: tuple[int, int] | None = None
            if version is not None:
                uri = session.open.get(path)
                doc = session.documents.get(uri) if uri is not None else None
                edited = doc.take_edits(version) if doc is not None else None
                if edited is not None:
                    stable[path] = edited[0]
                    before = work.buffer(path)
                    if before is not None:
                        edits[path] = (before, *edited)
            work.set_text(path, text, unchanged=edited)
            dirty.update(work.names(path))  # a link to the file reads the buffer too
            if version is not None:
                indexed[path] = version
        started = time.perf_counter()
        checked = self.checker.check(work)
        exempt_survivors()  # the new version of the index, out of the collector's way
        self.checked = session.policy.apply_by_file(work, checked)
        findings = session.visible(session.features.merged(self.checked))
        converted = time.perf_counter()
        lookup = self.index_lookup(work)
        changed = session.store.update(
            findings,
            lookup,
            session.converter.with_indexes(lookup),
            dirty=None if force else dirty,
            force=force,
            stable=stable,
            edits=edits,
        )
        session.publisher.prepare(changed)
        log.debug(
            "check %.1f ms, conversion and serialisation %.1f ms (%d files changed)",
            (converted - started) * 1000,
            (time.perf_counter() - converted) * 1000,
            len(changed),
        )
        return indexed

    def republish(self, work: Workspace) -> None:
        """Update the store with the features' current findings, without checking again
        (lane thread)."""
        if self.checked is None:
            return  # nothing checked yet: the first check merges the features
        session = self.session
        findings = session.visible(session.features.merged(self.checked))
        lookup = self.index_lookup(work)
        changed = session.store.update(
            findings, lookup, session.converter.with_indexes(lookup), dirty=set()
        )
        session.publisher.prepare(changed)

    def index_lookup(self, work: Workspace) -> Callable[[Path], SparseIndex | None]:
        """The session's line index of each path of ``work``, remembered for one conversion
        pass, during which the model's texts do not change."""
        memo: dict[Path, SparseIndex | None] = {}
        index_of = self.session.index_of

        def lookup(path: Path) -> SparseIndex | None:
            if path in memo:
                return memo[path]
            index = memo[path] = index_of(path, work)
            return index

        return lookup
