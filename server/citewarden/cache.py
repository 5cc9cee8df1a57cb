"""The persistent look-up cache (the only module that imports diskcache).

Format (``<cache dir>/lookups``, a diskcache store: SQLite plus files for large values): keys
are text built by the caller from :data:`SCHEMA_VERSION`, the source name and the normalised
request (never secrets); values are JSON *text* ``{"format": VALUE_FORMAT, "expires": t,
"stored": t, "value": ...}`` with their own expiry, so tests can inject a clock (diskcache's
own expiry, a day later, lets :func:`prune` reclaim space).  Nothing read back is ever
unpickled: :class:`TextDisk` refuses any row that is not plain text, so whoever can write the
cache directory can at worst make look-ups miss.

Recovery: a store SQLite finds corrupt (truncated, overwritten, random bytes) is moved aside
to ``lookups.damaged-<time>`` and rebuilt, as is one holding a diskcache setting other than
the default citewarden opens it with; :attr:`Cache.notice` says so (once, for the caller
to show).  A directory that cannot be created or written, and a sound store SQLite cannot use
now (a full disk, a lock held too long, an I/O error), raise :class:`CacheUnavailable` with
the reason and leave the store as it is.  Location: ``$CITEWARDEN_CACHE_DIR`` or the platform's user cache directory.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import diskcache
import platformdirs
from diskcache.core import MODE_RAW, MODE_TEXT, UNKNOWN

log = logging.getLogger("citewarden.cache")

#: Bump when the stored record shape changes, or what a stored answer means: old entries
#: are then simply never read.  2: a title-less record is a failed answer, a Crossref 404
#: no longer says a DOI does not exist, and OpenAlex's ``indexed_in`` never rules PubMed out.
SCHEMA_VERSION = 2
#: Version of the JSON envelope around each value; other versions are misses.
VALUE_FORMAT = 2

DAY = 86400.0
#: Time to live of positive results, "no such record" answers and notices/retraction status.
TTL_FOUND = 30 * DAY
TTL_NOT_FOUND = 1 * DAY
TTL_NOTICES = 1 * DAY

#: The longest an entry is kept (the longest TTL above): one stored with a longer lifetime
#: was not written by citewarden and is not read.
MAX_TTL = TTL_FOUND

#: Seconds an entry may have been stored after the clock's present reading (clocks of the
#: processes and machines sharing a cache differ a little); one stored later is not read.
CLOCK_SLACK = 3600.0

CACHE_DIR_ENV = "CITEWARDEN_CACHE_DIR"
STORE = "lookups"
#: A stored value larger than this is not read (the largest real one is a few hundred KB).
MAX_VALUE_BYTES = 16 * 1024 * 1024
#: Seconds reads or writes are not tried after one waited past :data:`LOCK_TIMEOUT`.
LOCKED_PAUSE = 60.0
#: Seconds a statement waits for a lock another process holds on the store (diskcache's own
#: default is a minute per write, and a minute per statement of its opening).
LOCK_TIMEOUT = 1.0


class CacheUnavailable(OSError):
    """The cache directory cannot be created or written (the message says why)."""


class TextDisk(diskcache.Disk):  # type: ignore[misc]
    """diskcache storage for text keys and text values only: never pickles, never unpickles."""

    def put(self, key: Any) -> tuple[Any, bool]:
        if not isinstance(key, str):
            raise TypeError("cache keys are text")
        return super().put(key)  # type: ignore[no-any-return]

    def get(self, key: Any, raw: bool) -> Any:
        if not raw or not isinstance(key, str):
            raise ValueError("refusing a cache key that is not plain text")
        return key

    def store(self, value: Any, read: bool, key: Any = UNKNOWN) -> Any:
        if not isinstance(value, str) or read:
            raise TypeError("cache values are JSON text")
        return super().store(value, read, key=key)

    def fetch(self, mode: int, filename: str | None, value: Any, read: bool) -> Any:
        if mode == MODE_RAW and isinstance(value, str) and not read:
            return value
        if mode == MODE_TEXT and filename and not read and self._inside(filename):
            text = _read_value_file(Path(self._directory), filename)
            if text is not None:
                return text
        raise ValueError("refusing a cache value that is not plain text")

    def _inside(self, filename: str) -> bool:
        parts = Path(filename).parts
        return not Path(filename).is_absolute() and ".." not in parts and len(parts) <= 3


#: How a value file is opened: never through a link, never waiting (a FIFO).
_VALUE_OPEN = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)


def _read_value_file(store: Path, filename: str) -> str | None:
    """The text of the value file ``filename`` of the store at ``store``; None unless it is
    a regular file of at most :data:`MAX_VALUE_BYTES` in the store itself (a link, or a
    folder on its way that is a link, to a file elsewhere is not read)."""
    path = store / filename
    try:
        if path.resolve() != store.resolve() / filename:  # a link on the way
            return None
        fd = os.open(path, _VALUE_OPEN | getattr(os, "O_CLOEXEC", 0))
    except (OSError, ValueError, RuntimeError):
        return None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_VALUE_BYTES:
            return None
        data = file.read(MAX_VALUE_BYTES + 1)
    if len(data) > MAX_VALUE_BYTES:
        return None
    return data.decode("utf-8")


def default_directory(environ: Mapping[str, str] | None = None) -> Path:
    """``$CITEWARDEN_CACHE_DIR`` (of ``environ``, the process's by default) with its ``~``
    expanded, or the user cache directory for citewarden; raises :class:`CacheUnavailable`
    naming the variable when its ``~user`` cannot be expanded."""
    env = (os.environ if environ is None else environ).get(CACHE_DIR_ENV, "").strip()
    if not env:
        return Path(platformdirs.user_cache_dir("citewarden", appauthor=False))
    try:
        return Path(env).expanduser()
    except RuntimeError as exc:  # ~nouser, or no home directory to put for ~
        raise CacheUnavailable(f"{CACHE_DIR_ENV}={env!r} cannot be used: {exc}") from exc


#: SQLite's primary result codes for a damaged file (the others say nothing of the file).
_CORRUPT_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)
_CORRUPT_WORDS = ("malformed", "not a database")
#: What SQLite says of a store whose tables have another layout (an older or foreign one).
_LAYOUT_WORDS = ("no such table", "no such column")


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the file itself is damaged (not full, locked or unreadable now)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in _CORRUPT_CODES:
        return True
    return any(word in str(exc) for word in _CORRUPT_WORDS)


def _unusable(path: Path, exc: sqlite3.DatabaseError) -> CacheUnavailable:
    return CacheUnavailable(f"the cache at {path} cannot be used now: {exc}")


def _locked(exc: BaseException) -> bool:
    """Whether ``exc`` says another process holds the store's lock (past the timeout)."""
    if isinstance(exc, diskcache.Timeout):
        return True
    return isinstance(exc, sqlite3.OperationalError) and (
        "locked" in str(exc) or "busy" in str(exc)
    )


def _check_lock(db: Path) -> None:
    """Raise :class:`CacheUnavailable` when another process holds the write lock of ``db`` for
    more than :data:`LOCK_TIMEOUT` (diskcache's opening would wait a minute per statement)."""
    if not db.is_file():
        return
    try:
        con = sqlite3.connect(
            db.resolve().as_uri(), uri=True, timeout=LOCK_TIMEOUT, isolation_level=None
        )
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("ROLLBACK")
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        if _locked(exc):
            raise _unusable(db.parent, exc) from exc
        # anything else is for the opening itself to find and judge


def _probe(db: Path) -> str | None:
    """Why SQLite finds ``db`` damaged (None when it reads as a sound database or is absent);
    raises :class:`CacheUnavailable` when SQLite cannot read it now for another reason."""
    if not db.exists() and not db.is_symlink():
        return None
    if not db.is_file():  # a FIFO, a device or a dangling link: never opened (could block)
        return "not a regular file"
    try:
        con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=LOCK_TIMEOUT)
        try:
            rows = con.execute("PRAGMA quick_check(1)").fetchall()
            sound = rows == [("ok",)]
            missing = _missing_column(con) if sound else None
            foreign = _foreign_setting(con) or _wrong_size(con) if sound and not missing else None
        finally:
            con.close()
    except sqlite3.DatabaseError as exc:
        if _corrupt(exc):
            return str(exc)
        raise _unusable(db.parent, exc) from exc
    if rows != [("ok",)]:
        return str(rows[0][0]) if rows else "integrity check failed"
    return f"no such column: {missing}" if missing else foreign


#: The columns diskcache reads from its tables (a table of an older or foreign layout lacks
#: some, and diskcache would fail on every use).
_COLUMNS = {
    "Settings": ("key", "value"),
    "Cache": (
        "key",
        "raw",
        "store_time",
        "expire_time",
        "access_time",
        "access_count",
        "tag",
        "size",
        "mode",
        "filename",
        "value",
    ),
}


def _missing_column(con: sqlite3.Connection) -> str | None:
    """The first column diskcache needs that a table of the store lacks (None when each
    table there has them all; a table not there yet is created on opening)."""
    for table, needed in _COLUMNS.items():
        have = {row[1] for row in con.execute(f"PRAGMA table_info({table})")}
        missing = [f"{table}.{column}" for column in needed if have and column not in have]
        if missing:
            return missing[0]
    return None


#: Settings diskcache keeps in the store that citewarden never changes from its defaults (the
#: pickle protocol, never used, follows the Python that made the store).
_OWN_SETTINGS = {
    key: value for key, value in diskcache.DEFAULT_SETTINGS.items() if key != "disk_pickle_protocol"
}


def _foreign_setting(con: sqlite3.Connection) -> str | None:
    """The first setting the store holds that citewarden never writes (``size_limit = 0``
    would drop every answer as it is stored, a ``sqlite_journal_mode`` of two statements
    would fail every opening), said as ``the setting key is value``; None when there is none
    (a store without a Settings table yet has none)."""
    try:
        stored = con.execute("SELECT key, value FROM Settings").fetchall()
    except sqlite3.OperationalError:
        return None  # no Settings table: created on opening
    for key, value in stored:
        if key in _OWN_SETTINGS and (
            value != _OWN_SETTINGS[key] or type(value) is not type(_OWN_SETTINGS[key])
        ):
            shown = repr(value)
            return f"the setting {key} is {shown[:60]}{'...' if len(shown) > 60 else ''}"
    return None


def _wrong_size(con: sqlite3.Connection) -> str | None:
    """What is wrong with the size the store records of its entries when it is not their
    size (diskcache, taking the store for one past its size limit, would drop entries at
    every write: ``size = 10**15`` kept none); None when it is, or the store has no entries
    or no record of it yet."""
    try:
        rows = con.execute(
            "SELECT (SELECT value FROM Settings WHERE key = 'size'),"
            " (SELECT COALESCE(SUM(size), 0) FROM Cache)"
        ).fetchall()
    except sqlite3.OperationalError:
        return None  # no tables yet: created on opening
    recorded, actual = rows[0] if rows else (None, 0)
    if recorded is None or recorded == actual:
        return None
    shown = repr(recorded)
    return f"it records a size of {shown[:30]} for entries of {actual} bytes"


def _opening_damage(path: Path, exc: Exception) -> str:
    """What damage opening the store at ``path`` ran into: any failure that does not say the
    store cannot be used now (unwritable, full, locked, I/O), such as a setting of the wrong
    kind or a table of another layout, is the store's own.  Raises :class:`CacheUnavailable` otherwise."""
    text = str(exc)
    if isinstance(exc, sqlite3.OperationalError):
        if "readonly" in text or "unable to open" in text:
            raise CacheUnavailable(f"the cache at {path} is not writable: {exc}") from exc
        if any(word in text for word in _LAYOUT_WORDS):
            return text
    if isinstance(exc, sqlite3.DatabaseError) and not _corrupt(exc):
        raise _unusable(path, exc) from exc
    if isinstance(exc, OSError | diskcache.Timeout):
        raise CacheUnavailable(f"the cache at {path} cannot be used now: {exc}") from exc
    return text if isinstance(exc, sqlite3.DatabaseError) else f"{type(exc).__name__}: {text}"


def _open_store(path: Path) -> diskcache.Cache:
    store = diskcache.Cache(str(path), disk=TextDisk, timeout=LOCK_TIMEOUT)
    try:
        _check_settings(store)
    except ValueError:
        store.close()
        raise
    return store


def _check_settings(store: diskcache.Cache) -> None:
    """Raise ValueError for a setting read from the store that is not of its default's type
    (``size_limit = 'abc'`` would make every write fail)."""
    for key, default in diskcache.DEFAULT_SETTINGS.items():
        value = getattr(store, key, default)
        if type(value) is not type(default):
            raise ValueError(f"the setting {key} is {value!r}")


def _no_directory(path: Path) -> bool:
    """Whether something that is no directory (a file, a link to nothing or to itself) is at
    ``path``."""
    return (path.exists() or path.is_symlink()) and not path.is_dir()


def _why_no_directory(path: Path, exc: OSError) -> str:
    """Why no directory could be made at ``path``: what is there instead when something is
    (``File exists`` says nothing of a file, or of a link to itself), else what ``exc`` says."""
    if isinstance(exc, FileExistsError):
        try:
            info = path.stat()
        except OSError as why:  # a link to itself (or a loop of links), to nowhere
            return f"{why.strerror or why}" + (" (a symbolic link)" if path.is_symlink() else "")
        if stat.S_ISREG(info.st_mode):
            return "it is a file, not a directory"
        return "it is a device, a FIFO or a socket, not a directory"
    return str(exc.strerror or exc)


#: The files SQLite keeps beside a database in WAL mode.
_COMPANIONS = ("-wal", "-shm")


def _odd_companion(db: Path) -> str | None:
    """What is wrong with a file SQLite keeps beside ``db`` that is a link or not a regular
    file (a FIFO, a folder, a link to a device): SQLite cannot open the store then, and it
    would be unusable on every run."""
    for suffix in _COMPANIONS:
        companion = db.with_name(db.name + suffix)
        if companion.is_symlink() or (companion.exists() and not companion.is_file()):
            return f"{companion.name} is not a regular file"
    return None


#: Damaged stores kept for inspection (the newest); older ones are removed, so a store
#: damaged again and again cannot fill the disk with copies.
KEEP_DAMAGED = 3
_DAMAGED_NAME = re.compile(rf"{STORE}\.damaged-[0-9]{{8}}T[0-9]{{6}}-[0-9]+")


def _drop_old_damaged(directory: Path, keep: int = KEEP_DAMAGED) -> int:
    """Remove all but the newest ``keep`` damaged stores moved aside in ``directory`` (a
    link among them is removed, never followed); how many were removed."""
    try:
        names = sorted(
            (e.name for e in os.scandir(directory) if _DAMAGED_NAME.fullmatch(e.name)),
            key=lambda name: (name.split("-")[1], int(name.rsplit("-", 1)[1])),
        )
    except OSError:
        return 0
    removed = 0
    for name in names[: len(names) - keep]:
        path = directory / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
            removed += 1
        except OSError as exc:
            log.info("cannot remove the damaged cache %s: %s", path, exc)
    return removed


def _identity(path: Path) -> tuple[int, int] | None:
    """What ``path`` is (device and inode, not following a link); None when nothing is."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK | os.X_OK)


class Cache:
    """A small TTL key-value store on disk.  Safe to share between processes."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = Path(directory) if directory is not None else default_directory()
        self._clock = clock
        #: Said once by the caller: the store was damaged and has been rebuilt.
        self.notice: str | None = None
        #: Said once by the caller: the store failed while in use (its first failure).
        self.trouble: str | None = None
        self._warned = False
        #: What is not tried after a lock held past the timeout ("read", "write"), until
        #: when (a :func:`time.monotonic` reading).
        self._given_up: dict[str, float] = {}
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            why = _why_no_directory(self.directory, exc)
            raise CacheUnavailable(
                f"cannot create the cache directory {self.directory}: {why}"
            ) from exc
        self._store = self._open()
        self.hits = 0
        self.misses = 0

    def _open(self) -> diskcache.Cache:
        path = self.directory / STORE
        seen = _identity(path)
        for target in (self.directory, path):
            if target.is_dir() and not _writable(target):
                raise CacheUnavailable(f"the cache directory {target} is not writable")
        db = path / "cache.db"
        if db.is_file() and not os.access(db, os.R_OK | os.W_OK):
            raise CacheUnavailable(f"the cache file {db} is not writable")
        damage = "not a directory" if _no_directory(path) else _odd_companion(db) or _probe(db)
        if damage is None:
            _check_lock(db)
            try:
                return _open_store(path)
            except Exception as exc:
                damage = _opening_damage(path, exc)
        aside = path.with_name(f"{STORE}.damaged-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
        moved = seen is None or _identity(path) == seen  # else another process began anew
        try:
            if moved:
                path.rename(aside)
        except FileNotFoundError:
            moved = False  # another process moved it first
        except OSError as exc:
            raise CacheUnavailable(
                f"the cache at {path} is damaged ({damage}) and cannot be moved aside: "
                f"{exc.strerror or exc}"
            ) from exc
        if moved:
            _drop_old_damaged(self.directory)
        done = f"moved it to {aside.name}" if moved else "another process moved it aside"
        self.notice = f"the cache at {path} was damaged ({damage}); {done} and started a new one"
        log.info("%s", self.notice)  # the caller tells the user, once
        try:
            return _open_store(path)
        except Exception as exc:
            raise CacheUnavailable(f"cannot rebuild the cache at {path}: {exc}") from exc

    def _trouble(self, action: str, exc: Exception) -> None:
        """A store that fails while in use: say it once, then go on without it.  After a lock
        held past the timeout, writes (and, if a read waited, reads) are not tried for
        :data:`LOCKED_PAUSE` seconds, so each does not wait again; then they are (another
        process's long write has ended: an editor's session gets its cache back)."""
        if _locked(exc):
            until = time.monotonic() + LOCKED_PAUSE
            for what in ("read", "write") if action == "read" else ("write",):
                self._given_up[what] = until
        if not self._warned:
            self._warned = True
            reason = str(exc) or "locked by another process"
            log.warning("cache %s failed (%s): %s", action, type(exc).__name__, reason)
            self.trouble = (
                f"the cache at {self.directory} failed to {action} ({reason}); "
                "references are looked up without it"
            )

    def _paused(self, action: str) -> bool:
        """Whether ``action`` is not tried now (see :meth:`_trouble`)."""
        until = self._given_up.get(action)
        if until is None:
            return False
        if time.monotonic() < until:
            return True
        del self._given_up[action]
        return False

    def key(self, *parts: str) -> str:
        """A cache key from request parts, prefixed with the schema version."""
        return "|".join((f"v{SCHEMA_VERSION}", *parts))

    def _entry(self, key: str) -> dict[str, Any] | None:
        if self._paused("read"):
            return None
        try:
            text = self._store.get(key)
        except (ValueError, TypeError):
            return None  # a row that is not plain text: never interpreted
        except Exception as exc:  # a damaged cache is a miss, never a crash
            self._trouble("read", exc)
            return None
        if not isinstance(text, str):
            return None
        try:
            entry = json.loads(text)
        except ValueError:
            return None
        if not isinstance(entry, dict) or entry.get("format") != VALUE_FORMAT:
            return None
        return entry

    def get(self, key: str) -> Any | None:
        """The stored value, or ``None`` when absent or expired (by the injected clock)."""
        aged = self.get_aged(key)
        return aged[0] if aged is not None else None

    def get_aged(self, key: str) -> tuple[Any, float] | None:
        """The stored value and its age in seconds (since it was stored, by the injected
        clock), or ``None`` when absent or expired."""
        entry = self._entry(key)
        now = self._clock()
        if entry is None or not _current(entry, now):
            self.misses += 1
            return None
        self.hits += 1
        return entry.get("value"), max(0.0, now - float(entry["stored"]))

    def set(self, key: str, value: Any, ttl: float) -> None:
        """Store ``value`` (JSON-compatible data) for ``ttl`` seconds."""
        now = self._clock()
        entry = {"format": VALUE_FORMAT, "expires": now + ttl, "stored": now, "value": value}
        if self._paused("write"):
            return
        try:
            text = json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
            # diskcache's own expiry trails ours so that prune() reclaims dead entries.
            self._store.set(key, text, expire=ttl + DAY)
        except Exception as exc:  # a full or read-only disk must not stop verification
            self._trouble("write", exc)

    @contextlib.contextmanager
    def _admin(self, action: str) -> Iterator[None]:
        """Run a command on the whole store (stats, clear, prune): a store that fails meanwhile
        (locked past the timeout, a full disk, damaged since it was opened) raises
        :class:`CacheUnavailable` with what SQLite said, for the command to report."""
        try:
            yield
        except (sqlite3.Error, diskcache.Timeout) as exc:
            reason = str(exc) or "locked by another process"
            raise CacheUnavailable(
                f"cannot {action} the cache at {self.directory / STORE}: {reason}"
            ) from exc

    def stats(self) -> dict[str, Any]:
        with self._admin("read"):
            entries, size = len(self._store), int(self._store.volume())
        return {
            "directory": str(self.directory),
            "entries": entries,
            "size_bytes": size,
            "hits": self.hits,
            "misses": self.misses,
            "schema_version": SCHEMA_VERSION,
            "value_format": VALUE_FORMAT,
        }

    def clear(self) -> int:
        with self._admin("clear"):
            return int(self._store.clear())

    def drop_damaged(self) -> int:
        """Remove every damaged store moved aside beside this one; how many were removed."""
        return _drop_old_damaged(self.directory, keep=0)

    def prune(self) -> int:
        """Remove expired and unreadable entries (by the injected clock and by diskcache's
        expiry), and those of earlier schema versions; a later version's are left to it."""
        with self._admin("prune"):
            return self._prune()

    def _prune(self) -> int:
        removed = int(self._store.expire())
        now = self._clock()
        try:
            keys = list(self._store.iterkeys())
        except (ValueError, TypeError):  # a key that is not text: start over
            return removed + int(self._store.clear())
        for key in keys:
            if _newer(key):
                continue  # a later version's: for it to judge (diskcache's expiry ends it)
            entry = self._entry(key)
            if entry is None or not _current(entry, now):
                removed += int(self._store.delete(key))
        return removed

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Cache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_VERSIONED_KEY = re.compile(r"v([0-9]{1,9})\|")


def _newer(key: str) -> bool:
    """Whether ``key`` is one a later schema version writes (a newer citewarden sharing the
    directory: the editor's and the command line's may differ)."""
    match = _VERSIONED_KEY.match(key)
    return match is not None and int(match[1]) > SCHEMA_VERSION


def _current(entry: Mapping[str, Any], now: float) -> bool:
    """Whether a stored entry is still to be used at ``now``: stored at most
    :data:`CLOCK_SLACK` after ``now`` and not expired.  An entry stored while the clock ran
    ahead (set wrong, then put right; another machine sharing the directory) would
    otherwise live its lifetime plus the clock's error: a day's "no such record" for a
    year.  An entry given a lifetime longer than :data:`MAX_TTL` is never current."""
    expires, stored = entry.get("expires"), entry.get("stored")
    if not isinstance(expires, int | float) or not isinstance(stored, int | float):
        return False
    if not float(expires) - float(stored) <= MAX_TTL:  # NaN too
        return False
    return float(stored) - CLOCK_SLACK <= now < float(expires)


# -- module-level commands for ``citewarden cache stats|clear|prune`` -----------------------


def stats(directory: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Entries, size on disk and location of the cache."""
    with Cache(directory) as cache:
        return cache.stats()


def clear(directory: str | os.PathLike[str] | None = None) -> int:
    """Remove every entry; returns how many were removed."""
    with Cache(directory) as cache:
        return cache.clear()


def prune(directory: str | os.PathLike[str] | None = None) -> int:
    """Remove expired entries; returns how many were removed."""
    with Cache(directory) as cache:
        return cache.prune()
