"""Politeness shared by every citewarden process on a machine, through the cache directory.

One small JSON file per host (``<cache>/rate/<host>.json``), read and written under an
exclusive ``flock``, holds the earliest time (epoch seconds) at which each lane of that host
may send next and until when each service on the host is paused (``Retry-After``; a service
is a lane family: ``crossref`` for ``crossref``, ``crossref-query``, ``crossref-public`` ...,
so a loopback server standing in for several services pauses only the one that asked).  A
process that wants to send reserves the next free slot of its lane --
``max(now, next, paused_until)`` -- and moves ``next`` one interval (``1 / rate``) further,
so an editor and two CI jobs together keep to one published rate instead of three.  The
file also holds when it was last written: times written by a clock running ahead of the
reader's are moved back by the difference, so a skewed clock never holds requests back.

Where file locks are unavailable (no ``fcntl``) or the directory cannot be written, the
state is kept in-process only; this is said once in the log.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from citewarden.verify.shared_dir import SharedDirectory, open_shared, safe_name

try:  # POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("citewarden.http")

#: The folder of the cache directory that holds the shared state files.
RATE_DIR = "rate"
#: A reservation never looks further ahead than this (a corrupt or hostile state file
#: cannot stall a process for longer).
MAX_AHEAD = 24 * 3600.0
#: State files are tiny; anything larger is damage and is reset.
MAX_STATE_BYTES = 64 * 1024
#: Seconds the state may have been written after this process's clock reading before its
#: times are taken as those of a clock running ahead (see :func:`_rebase`).
CLOCK_SLACK = 2.0
#: An advertised concurrency holds this long after the last reply that carried it.
ADVERTISED_FOR = 3600.0


def _file_name(host: str) -> str:
    return f"{safe_name(host)}.json"


class SharedRate(SharedDirectory):
    """Per-host send slots and pauses shared through files in ``directory``."""

    def __init__(
        self, directory: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ):
        self._clock = clock
        self._local: dict[str, dict[str, Any]] = {}
        super().__init__(directory, "request rates")

    @contextmanager
    def _state(self, host: str) -> Iterator[dict[str, Any]]:
        """The host's state, locked for the duration of the ``with`` block and saved after;
        a file that cannot be read or written turns sharing off and the state goes on
        in-process."""
        fd = self._locked(host) if self._shared else None
        if fd is None:
            yield self._local.setdefault(host, {})
            return
        try:
            state = self._load(host, fd)
            if state is None:
                yield self._local.setdefault(host, {})
                return
            _rebase(state, self._clock())
            yield state
            state["written"] = self._clock()
            self._save(host, fd, state)
        finally:
            os.close(fd)  # closing releases the lock

    def _locked(self, host: str) -> int | None:
        """An open descriptor of the host's file, locked; None (sharing off) when it fails."""
        path = self.directory / _file_name(host)
        try:
            fd = open_shared(path)
        except OSError as exc:
            self._disable(f"cannot open {path}: {exc.strerror or exc}")
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            os.close(fd)
            self._disable(f"cannot lock {path}: {exc.strerror or exc}")
            return None
        return fd

    def _load(self, host: str, fd: int) -> dict[str, Any] | None:
        """The state in ``fd`` ({} when damaged); None (sharing off) when it cannot be read."""
        try:
            raw = os.read(fd, MAX_STATE_BYTES + 1)
        except OSError as exc:
            self._disable(f"cannot read {self.directory / _file_name(host)}: {exc.strerror or exc}")
            return None
        try:
            state = json.loads(raw) if raw and len(raw) <= MAX_STATE_BYTES else {}
        except ValueError:
            state = {}
        return state if isinstance(state, dict) else {}

    def _save(self, host: str, fd: int, state: dict[str, Any]) -> None:
        """Write ``state`` back; when that fails (a full disk), it goes on in-process."""
        data = json.dumps(state, sort_keys=True).encode()
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            os.ftruncate(fd, 0)
            os.write(fd, data)
        except OSError as exc:
            self._local[host] = state
            self._disable(
                f"cannot write {self.directory / _file_name(host)}: {exc.strerror or exc}"
            )

    def _number(self, value: Any, now: float) -> float:
        """A time read from the state: at most :data:`MAX_AHEAD` from now, 0 for what is
        no number (NaN too, which would make every comparison false: a pause set on it
        was lost)."""
        if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
            return min(float(value), now + MAX_AHEAD)
        return 0.0

    def _pause_of(self, state: dict[str, Any], family: str, now: float) -> float:
        paused = state.get("paused")
        return self._number(paused.get(family), now) if isinstance(paused, dict) else 0.0

    def reserve(self, host: str, lane: str, interval: float) -> float:
        """Take the next send slot of ``lane`` on ``host``; seconds to wait before sending."""
        now = self._clock()
        with self._state(host) as state:
            lanes = state.get("lanes")
            if not isinstance(lanes, dict):
                lanes = state["lanes"] = {}
            slot = max(
                now,
                self._number(lanes.get(lane), now),
                self._pause_of(state, family_of(lane), now),
            )
            lanes[lane] = slot + max(0.0, interval)
        return slot - now

    def pause(self, host: str, family: str, seconds: float) -> float:
        """No lane of service ``family`` on ``host`` sends for ``seconds``, in any process.
        -> the seconds the service is paused for now."""
        now = self._clock()
        with self._state(host) as state:
            paused = state.get("paused")
            if not isinstance(paused, dict):
                paused = state["paused"] = {}
            until = max(self._pause_of(state, family, now), now + seconds)
            paused[family] = min(until, now + MAX_AHEAD)
        return float(paused[family]) - now

    def advertise(self, host: str, family: str, concurrency: int) -> None:
        """Service ``family`` on ``host`` said it allows ``concurrency`` requests in flight
        (``x-concurrency-limit``): every process adopts it for :data:`ADVERTISED_FOR`."""
        if concurrency < 1:
            return
        now = self._clock()
        with self._state(host) as state:
            table = state.get("concurrency")
            if not isinstance(table, dict):
                table = state["concurrency"] = {}
            table[family] = [concurrency, now + ADVERTISED_FOR]

    def advertised(self, host: str, family: str) -> int | None:
        """The concurrency service ``family`` on ``host`` last advertised, while it holds."""
        now = self._clock()
        with self._state(host) as state:
            table = state.get("concurrency")
            entry = table.get(family) if isinstance(table, dict) else None
        if not (isinstance(entry, list) and len(entry) == 2):
            return None
        n, until = entry
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            return None
        return n if self._number(until, now) > now else None

    def paused_for(self, host: str, family: str) -> float:
        """Seconds until service ``family`` on ``host`` may be sent to again."""
        now = self._clock()
        with self._state(host) as state:
            return max(0.0, self._pause_of(state, family, now) - now)

    def lift_pauses(self) -> int:
        """End every pause held in the directory (``Retry-After``, by any process), under
        each file's lock; lane spacing and advertised limits stay.  -> how many services
        were paused."""
        if not self._shared:
            return 0
        now = self._clock()
        lifted = 0
        for path in sorted(self.directory.glob("*.json")):
            if path.is_symlink() or not path.is_file():
                continue  # never opened (open_shared refuses it: sharing would end)
            host = path.name.removesuffix(".json")
            if _file_name(host) != path.name:
                continue  # not a file of this module's
            with self._state(host) as state:
                paused = state.pop("paused", None)
                if isinstance(paused, dict):
                    lifted += sum(self._number(v, now) > now for v in paused.values())
        return lifted


def _time(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _rebase(state: dict[str, Any], now: float) -> None:
    """Move the times of ``state`` to this process's clock when it was written at a time
    after ``now`` (by more than :data:`CLOCK_SLACK`): the writer's clock ran ahead of this
    one (another machine sharing the directory, or this clock put back since), and its
    send slots and pauses, read as they are, would hold every request back by the
    clocks' difference (up to :data:`MAX_AHEAD`)."""
    written = state.get("written")
    if not isinstance(written, int | float) or isinstance(written, bool):
        return
    shift = float(written) - now
    if not shift > CLOCK_SLACK:  # NaN too
        return
    for table in (state.get("lanes"), state.get("paused")):
        if isinstance(table, dict):
            for name, value in table.items():
                if _time(value):
                    table[name] = float(value) - shift
    advertised = state.get("concurrency")
    if isinstance(advertised, dict):
        for name, entry in advertised.items():
            if isinstance(entry, list) and len(entry) == 2 and _time(entry[1]):
                advertised[name] = [entry[0], float(entry[1]) - shift]


def family_of(lane: str) -> str:
    """The service a lane belongs to: ``crossref-query-public`` -> ``crossref``."""
    return lane.split("-")[0]
