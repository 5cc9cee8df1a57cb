"""Reading files a workspace names, bounded: regular files only, never blocking, capped in size.

A workspace can name anything as an input or a bibliography: a FIFO (opening it for reading
waits for a writer), ``/dev/zero`` or a symlink to it (reading never ends), a 20 GB log file.
:func:`read_regular` reads only regular files, opens them without blocking, and reads at most
``limit`` bytes; everything else raises an :class:`OSError` whose ``strerror`` says why, which
callers report the way they report any unreadable file.
"""

from __future__ import annotations

import errno
import os
import secrets
import signal
import stat
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Generic, TypeVar

#: Default size cap of one input file, in megabytes (setting ``max_file_mb``).
DEFAULT_MAX_FILE_MB = 50.0

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_CHUNK = 1 << 20

T = TypeVar("T")


class NotRegularFile(OSError):
    """The path is a directory, FIFO, socket or device (or a symlink to one)."""


class FileTooLarge(OSError):
    """The file is larger than the configured cap."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def megabytes(size: int) -> str:
    """``52428800`` -> ``"50 MB"`` (decimal places only when needed); below 0.1 MB in KB
    (``10485`` -> ``"10 KB"``), below 1 KB in bytes."""
    for unit, scale, least in (("MB", 1 << 20, 0.1), ("KB", 1 << 10, 1)):
        n = round(size / scale, 1)  # max_file_mb = 0.1 allows 104857 bytes: "0.1 MB"
        if n >= least:
            return f"{n:.0f} {unit}" if n >= 10 or n == int(n) else f"{n:.1f} {unit}"
    return "1 byte" if size == 1 else f"{size} bytes"


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8, as a file holding it has them (a lone surrogate, which an
    editor may send, counts the three bytes ``surrogatepass`` writes)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def refuse_special(path: Path, mode: int) -> None:
    """Raise :class:`NotRegularFile`, saying what ``path`` is, unless ``mode`` is a
    regular file's."""
    if not stat.S_ISREG(mode):
        kind = _kind(mode)
        raise NotRegularFile(errno.EINVAL, f"{kind}, not a regular file; it is not read", str(path))


def too_large(path: Path, size: int, limit: int) -> FileTooLarge:
    shown, cap = megabytes(size), megabytes(limit)
    if shown == cap:  # rounded to the same: in bytes, which tell them apart
        shown, cap = f"{size:,} bytes", f"{limit:,} bytes"
    return FileTooLarge(
        errno.EFBIG,
        f"{shown}, larger than the {cap} limit (setting max_file_mb); it is not read",
        str(path),
    )


def open_regular(path: Path) -> int:
    """A read-only descriptor of the regular file ``path``, opened without blocking; the
    caller closes it.  Raises :class:`NotRegularFile` for a FIFO, a device or a folder,
    checked before opening (so that one is never opened) and again on the descriptor."""
    return open_checked(path, _OPEN_FLAGS)


def open_checked(path: Path, flags: int, mode: int = 0o666, *, creates: bool = False) -> int:
    """``os.open(path, flags, mode)`` of a regular file only: what ``path`` is, is checked
    before opening (so that a FIFO or a device is never opened; a link itself when
    ``flags`` hold ``O_NOFOLLOW``) and again on the descriptor (replaced in between).
    ``creates``: a missing ``path`` is no error before the open (``flags`` create it)."""
    try:
        st = os.lstat(path) if flags & getattr(os, "O_NOFOLLOW", 0) else os.stat(path)
    except FileNotFoundError:
        if not creates:
            raise
    else:
        refuse_special(path, st.st_mode)
    fd = os.open(path, flags, mode)
    try:
        refuse_special(path, os.fstat(fd).st_mode)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (symlinks followed), at most ``limit`` of them.

    Raises :class:`NotRegularFile` for anything else (checked before opening, so that a FIFO
    or a device is never opened, and again on the open descriptor), :class:`FileTooLarge`
    above ``limit``, and the usual :class:`OSError`\\ s (missing, permission denied).
    """
    fd = open_regular(path)
    try:
        st = os.fstat(fd)
        if st.st_size > limit:
            raise too_large(path, st.st_size, limit)
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, min(_CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while being read
                raise too_large(path, total, limit)
        return b"".join(chunks)
    finally:
        os.close(fd)


#: What the eight characters of a temporary file's name are drawn from (as ``mkstemp``'s).
_TEMP_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
_TEMP_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


#: The longest name of a file (in bytes) the usual file systems take.
NAME_MAX = 255


def temp_stem(name: str) -> str:
    """What names the temporary files written beside the file ``name`` (``.STEM.XXXXXXXX.tmp``):
    ``name``, cut at a character so that their names fit in :data:`NAME_MAX` bytes (a
    file of a long name could not be written, its temporary file's name too long)."""
    room = NAME_MAX - len("..XXXXXXXX.tmp")
    stem = name
    while len(os.fsencode(stem)) > room:
        stem = stem[:-1]
    return stem


#: The temporary files being written (:func:`replace_whole`, the writes of ``--fix``) and
#: the names reserved for a file not yet complete (:func:`reserve`), each known from the
#: moment it is made until it is renamed or removed (:func:`forget_temporary`), so that
#: :func:`remove_temporary_files` leaves none of them, wherever a signal finds the write
#: (its cleanup included).
_WRITING: set[Path] = set()

#: How many writes that must not be cut short are under way (:func:`signals_held`; a
#: thread's too, under the lock), and the signals held back meanwhile (:func:`hold`),
#: raised again when the last is done.
_holding = 0
_holding_lock = threading.Lock()
_held: list[int] = []


def new_temp_file(directory: Path, name: str, *, tracked: bool = False) -> tuple[int, Path]:
    """A new file ``.NAME.XXXXXXXX.tmp`` in ``directory`` (NAME cut to fit: :func:`temp_stem`),
    open for writing: created exclusively (never a file or a link already there under that
    name) with the mode any new file gets (0666 less the umask, applied by the system); the
    caller closes it.  ``tracked``: one :func:`remove_temporary_files` removes from the
    moment it is made, until the caller calls :func:`forget_temporary` (renamed or gone)."""
    stem = temp_stem(name)
    for _ in range(100):
        suffix = "".join(secrets.choice(_TEMP_CHARS) for _ in range(8))
        path = directory / f".{stem}.{suffix}.tmp"
        try:
            with signals_held():  # (made and known at once: no signal between the two)
                fd = os.open(path, _TEMP_FLAGS, 0o666)
                if tracked:
                    _WRITING.add(path)
            return fd, path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(directory))


def reserve(path: Path) -> None:
    """Create ``path`` as an empty file of this user's (mode 0600), exclusively
    (:class:`FileExistsError` when any file has that name), as the name of a complete
    file renamed over it next; :func:`remove_temporary_files` removes it from the moment
    it is made until :func:`forget_temporary` (call it under :func:`signals_held` with
    the rename: the name then holds the file renamed, which no signal may remove)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with signals_held():
        fd = os.open(path, flags, 0o600)
        _WRITING.add(path)
    os.close(fd)


def forget_temporary(path: Path) -> None:
    """``path`` is no temporary file any more (renamed, or removed): no signal removes it."""
    _WRITING.discard(path)


def remove_temporary_files() -> None:
    """Remove the temporary files being written and the names reserved (:data:`_WRITING`):
    what a handler of SIGINT, SIGTERM or SIGHUP does first, so that a second signal that
    cuts the write's own cleanup short (a second Ctrl-C) cannot leave one behind."""
    for path in tuple(_WRITING):
        with suppress(OSError):  # renamed or removed meanwhile
            os.unlink(path)


@contextmanager
def signals_held() -> Iterator[None]:
    """A write that must not be cut short (a file overwritten in place, a rename and the
    forgetting of its name): a signal whose handler asks :func:`hold` meanwhile waits, and
    is raised again once the outermost such write is done."""
    global _holding
    with _holding_lock:  # (a handler, run between two steps of the main thread, takes none)
        _holding += 1
    try:
        yield
    finally:
        with _holding_lock:
            _holding -= 1
            done = not _holding
        if done and _held:
            pending = tuple(_held)
            _held.clear()
            for signum in pending:
                signal.raise_signal(signum)


def hold(signum: int) -> bool:
    """Whether the signal ``signum`` is to wait for the end of a write that must not be
    cut short (:func:`signals_held`); it is then raised again at its end.  For a handler
    to ask first."""
    if not _holding:
        return False
    if signum not in _held:
        _held.append(signum)
    return True


#: The signals that end a run after it cleans up (Ctrl-C, kill, a closed terminal).
_ENDING = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextmanager
def temporary_files_removed_on_signals() -> Iterator[None]:
    """While a report, the files of ``check --fix`` or the .bib of ``add`` are written: each
    of SIGINT, SIGTERM and SIGHUP handled in Python (Ctrl-C's KeyboardInterrupt, the CLI's
    handler of the others) first removes the temporary files
    (:func:`remove_temporary_files`), then does what it did; during a write that must not
    be cut short (a file overwritten in place), once it is done (:func:`hold`).  A second
    Ctrl-C during the cleanup that followed the first cut it short and left a temporary
    file beside the report or the .bib for ever; whatever a signal interrupts now, the
    file is gone.  The handler replaced is the new one's ``__wrapped__``."""
    placed: dict[int, tuple[Any, Any]] = {}
    for signum in _ENDING:
        previous = signal.getsignal(signum)
        if not callable(previous):  # ignored (nohup), or its default (not the main thread)
            continue

        def removing(signum: int, frame: Any, previous: Callable[..., Any] = previous) -> Any:
            if hold(signum):  # raised again when the write is done
                return None
            remove_temporary_files()
            return previous(signum, frame)

        removing.__wrapped__ = previous  # type: ignore[attr-defined]
        try:
            signal.signal(signum, removing)
        except ValueError:  # not the main thread (main called from a thread)
            break
        placed[signum] = (removing, previous)
    try:
        yield
    finally:
        for signum, (removing, previous) in placed.items():
            if signal.getsignal(signum) is removing:  # (as it was: a handler may ignore more)
                signal.signal(signum, previous)


def write_new_regular(path: Path, data: bytes) -> None:
    """Write ``data`` as the regular file ``path``, atomically: a temporary file beside it,
    renamed over it.  An existing ``path`` that is not a regular file (a symbolic link, a
    FIFO, a device, a folder) is refused with :class:`NotRegularFile`: a report written into
    a folder someone else made (a cloned repository) must not follow a link planted there
    to one of the user's files, nor wait for ever on a FIFO.  No folder is made for it."""
    try:
        mode: int | None = os.lstat(path).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise NotRegularFile(
            errno.EINVAL, f"{_kind(mode)}, not a regular file; not written", str(path)
        )
    replace_whole(path, data)


def replace_whole(path: Path, data: bytes | Iterable[bytes]) -> None:
    """``data`` (or its pieces, written as they come) as the file ``path``, whole or not at
    all: written to a temporary file beside it, then renamed over it (the temporary file
    goes when the write fails, and :func:`remove_temporary_files` removes it meanwhile).  A
    file ``path`` replaces keeps its permission bits (a report made private stays private)."""
    mode = _permissions(path)
    fd, tmp = new_temp_file(path.parent, path.name, tracked=True)
    try:
        if mode is not None:
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as out:
            for piece in [data] if isinstance(data, bytes) else data:
                out.write(piece)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        forget_temporary(tmp)  # renamed or removed: nothing left for a signal to remove


def _permissions(path: Path) -> int | None:
    """The permission bits of the file ``path``; None when there is none."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        return None


#: A file's version as a stat sees it: modification time (ns) and size.
Stamp = tuple[int, int]


def file_stamp(path: Path) -> Stamp | None:
    """The version of ``path`` (:data:`Stamp`); None when it cannot be looked at."""
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_mtime_ns, st.st_size


class ReadPerVersion(Generic[T]):
    """What ``read`` makes of a file, read once per version: kept per path, modification
    time and size, at most ``limit`` files (all forgotten when full); safe across threads."""

    def __init__(self, read: Callable[[Path], T], limit: int = 256) -> None:
        self._read = read
        self._limit = limit
        self._lock = threading.Lock()
        self._known: dict[tuple[Path, int, int], T] = {}

    def __call__(self, path: Path) -> T:
        """What ``read`` makes of ``path`` now; raises :class:`OSError` (or ValueError, for
        a path the system cannot take) when it cannot be looked at."""
        st = path.stat()
        key = (path, st.st_mtime_ns, st.st_size)
        with self._lock:
            if key in self._known:
                return self._known[key]
        found = self._read(path)
        with self._lock:
            if len(self._known) >= self._limit:
                self._known.clear()
            self._known[key] = found
        return found
