"""Writing a planned fix: atomic replacement with a backup, or in place for hard-linked files
and files whose owner, ACL or extended attributes a new file cannot be given.

The only functions of the fixer that touch the disk.
"""

from __future__ import annotations

import errno
import glob
import os
import re
import stat
import time
from pathlib import Path

from citewarden.files import (
    NAME_MAX,
    FileTooLarge,
    NotRegularFile,
    forget_temporary,
    new_temp_file,
    read_regular,
    refuse_special,
    reserve,
    signals_held,
    temp_stem,
)
from citewarden.fix.plan import FixPlan, FixRefused

#: The backup of ``refs.bib`` is ``refs.bib.orig`` (or ``refs.bib.orig.1`` ... when a different
#: backup already exists; an existing backup is never overwritten).
BACKUP_SUFFIX = ".orig"

#: Write size of one chunk; small enough that a large file takes several writes.
_CHUNK = 1 << 16


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # not supported on this platform
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: A temporary file of an interrupted write is removed once it is this old (seconds); a
#: younger one may belong to a write still running.
STALE_TEMP_AGE = 600.0


def _stale_temp_pattern(name: str) -> re.Pattern[str]:
    """Names :func:`_write_temp` gives temporary files for ``name`` (eight random
    characters between the prefix and the suffix: :func:`~citewarden.files.new_temp_file`)."""
    return re.compile(rf"\.{re.escape(temp_stem(name))}\.[a-z0-9_]{{8}}\.tmp")


def remove_stale_temps(directory: Path, name: str, now: float | None = None) -> list[Path]:
    """Remove what writes of ``name`` that were killed midway left in ``directory``
    (temporary files older than :data:`STALE_TEMP_AGE`); -> the files removed."""
    pattern = _stale_temp_pattern(name)
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = list(directory.glob(f".{glob.escape(temp_stem(name))}.*.tmp"))
    except OSError:
        return removed
    for path in candidates:
        if not pattern.fullmatch(path.name):
            continue
        try:
            if now - path.lstat().st_mtime > STALE_TEMP_AGE and path.is_file():
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # gone meanwhile, or not ours to remove
    return removed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _copy_xattrs(source: Path, fd: int) -> bool:
    """Give the open file ``fd`` the extended attributes of ``source`` (its POSIX ACL,
    ``system.posix_acl_access``, among them) and none else; -> whether it has them (False
    when one could not be read or set: a ``security.*`` label only root may set)."""
    if not hasattr(os, "listxattr"):
        return True  # no extended attributes on this platform (macOS keeps its own API)
    try:
        names = os.listxattr(source)
    except OSError:
        names = None  # unsupported here: the new file can have none either
    try:
        theirs = os.listxattr(fd)
    except OSError:
        theirs = []
    if names is None:
        return not theirs
    try:
        for attribute in theirs:
            if attribute not in names:  # inherited from a default ACL of the folder
                os.removexattr(fd, attribute)
        for attribute in names:
            os.setxattr(fd, attribute, os.getxattr(source, attribute, follow_symlinks=False))
    except OSError:
        return False
    return True


def _write_temp(
    directory: Path,
    name: str,
    data: bytes,
    st: os.stat_result | None,
    like: Path | None = None,
) -> tuple[Path, bool]:
    """A temporary file holding ``data`` with the mode, owner and group of ``st`` and the
    extended attributes (ACL ...) of the file ``like``; -> the file, and whether it got them
    all (only root may give a file away; a file system may refuse an attribute).  A signal
    removes it until the caller calls :func:`~citewarden.files.forget_temporary`."""
    fd, tmp = new_temp_file(directory, name, tracked=True)
    owned = True
    try:
        _write_all(fd, data)
        if st is not None:
            mine = os.fstat(fd)
            if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    owned = False
            os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which may clear setgid
        if like is not None and not _copy_xattrs(like, fd):
            owned = False
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)  # (a signal's handler may have removed it first)
        forget_temporary(tmp)
        raise
    os.close(fd)
    return tmp, owned


def _write_in_place(target: Path, data: bytes, copy: Path) -> None:
    """Overwrite ``target`` itself (its inode, so hard links and owner stay), once the
    temporary ``copy`` is verified to hold ``data``; the copy is removed afterwards.  A
    signal (Ctrl-C) that comes meanwhile waits for the end of the write
    (:func:`~citewarden.files.signals_held`): cut short, it left the file partly new."""
    with signals_held():
        if copy.read_bytes() != data:
            raise FixRefused(target, "the temporary copy does not hold the new text; not written")
        fd = _open_in_place(target)
        try:
            _write_all(fd, data)
            os.ftruncate(fd, len(data))
            os.fsync(fd)
        finally:
            os.close(fd)
        copy.unlink()
        forget_temporary(copy)


#: What the in-place write finds put in the file's place since it was read, as it is said.
_NOT_REGULAR = "{}, not a regular file; not written"


def _open_in_place(target: Path) -> int:
    """``target`` open for writing, never waited on: a FIFO or a device another process put
    in its place since it was read is refused (:class:`FixRefused`), where opening a FIFO
    waited for a reader for ever, with Ctrl-C held for the write."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(target, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | nonblocking)
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # (a FIFO no one reads)
            raise
        raise FixRefused(target, _NOT_REGULAR.format("a named pipe (FIFO)")) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        try:
            refuse_special(target, mode)
        except NotRegularFile as exc:
            kind = (exc.strerror or "").split(", not a regular file", 1)[0]
            raise FixRefused(target, _NOT_REGULAR.format(kind)) from None
    if nonblocking:
        os.set_blocking(fd, True)
    return fd


def backup_path_for(path: Path, original: bytes, now: float | None = None) -> tuple[Path, bool]:
    """Where the backup of ``path`` goes, and whether an identical backup already exists.
    A name taken by anything (a dangling link too) is never written to: the next is tried,
    unless it is the empty reservation of a backup killed before it was made
    (:func:`_leftover_reservation`), which is removed and its name taken again."""
    candidate = path.with_name(_fitted(path.name, BACKUP_SUFFIX))
    n = 0
    leftover: Path | None = None
    while os.path.lexists(candidate):
        if _holds_copy(candidate, path, original):
            return candidate, True
        if leftover is None and _leftover_reservation(candidate, now):
            leftover = candidate
        n += 1
        candidate = path.with_name(_fitted(path.name, f"{BACKUP_SUFFIX}.{n}"))
    if leftover is not None and _remove_leftover(leftover, now):
        return leftover, False
    return candidate, False


def _leftover_reservation(candidate: Path, now: float | None) -> bool:
    """``candidate`` is what a backup made without hard links leaves when the run is killed
    between reserving the name and renaming the complete copy over it (:func:`_link_new`):
    an empty regular file of this user's, not linked elsewhere, unchanged for longer than
    :data:`STALE_TEMP_AGE` (the reservation lives for one rename: no write holds it so long).
    A backup that holds a byte is never one."""
    now = time.time() if now is None else now
    try:
        st = os.lstat(candidate)
    except OSError:
        return False
    return (
        stat.S_ISREG(st.st_mode)
        and st.st_size == 0
        and st.st_nlink == 1
        and st.st_uid == os.geteuid()
        and now - st.st_mtime > STALE_TEMP_AGE
    )


def _remove_leftover(candidate: Path, now: float | None) -> bool:
    """Remove the leftover reservation ``candidate`` once more found to be one; -> whether
    its name is free now."""
    if not _leftover_reservation(candidate, now):
        return False
    try:
        candidate.unlink()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return not os.path.lexists(candidate)


#: How many backup names are tried when each one chosen is taken before the backup is made.
_BACKUP_TRIES = 20

#: Errors of ``os.link`` that say the file system has no hard links (FAT: EPERM).
_NO_HARD_LINKS = frozenset(
    {errno.EPERM, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP), errno.ENOSYS}
)


def _keep_backup(path: Path, target: Path, old: bytes, st: os.stat_result | None) -> Path:
    """Save ``old`` (what ``target`` holds) as its backup; -> the backup.  The backup is made
    under a free name by a hard link to a complete temporary file (a rename of it over the
    name, reserved by an exclusive creation, where the file system has no hard links: no
    byte is ever written under the name itself), so a file someone else made under that name
    after :func:`backup_path_for` chose it is never replaced: the next free name is taken.
    Raises :class:`FixRefused` when every name tried was taken so."""
    kept, exists = backup_path_for(target, old)
    if exists:
        return kept
    tmp, _ = _write_temp(target.parent, target.name, old, st, target)
    try:
        first = kept
        for _ in range(_BACKUP_TRIES):
            tried = kept
            try:
                _link_new(tmp, tried)
                return tried
            except FileExistsError:
                kept, exists = backup_path_for(target, old)  # made meanwhile: look again
                if exists:
                    return kept
    finally:
        tmp.unlink(missing_ok=True)
        forget_temporary(tmp)
    raise FixRefused(
        path,
        f"every backup name tried ({first.name} to {tried.name}) was taken by another"
        " file while writing; not written",
    )


def _link_new(tmp: Path, name: Path) -> None:
    """Give the complete temporary file ``tmp`` the name ``name`` too, never replacing a
    file of that name (:class:`FileExistsError`).  Where the file system has no hard links
    (:data:`_NO_HARD_LINKS`), ``name`` is reserved by an exclusive creation and ``tmp`` is
    renamed over it, so that a write killed midway never leaves a partial file under
    ``name`` (``tmp`` keeps its mode, owner and attributes); a signal removes the empty
    name reserved, never the complete file renamed over it."""
    try:
        os.link(tmp, name, follow_symlinks=False)
        return
    except OSError as exc:
        if isinstance(exc, FileExistsError) or exc.errno not in _NO_HARD_LINKS:
            raise
    reserve(name)
    with signals_held():  # (renamed over and forgotten at once)
        try:
            os.replace(tmp, name)
        except BaseException:
            name.unlink(missing_ok=True)
            raise
        finally:
            forget_temporary(name)


def _fitted(name: str, suffix: str) -> str:
    """``name`` + ``suffix``, ``name`` cut at a character where the whole would be longer
    than a file name may be (:data:`~citewarden.files.NAME_MAX` bytes)."""
    room = NAME_MAX - len(suffix)
    while len(os.fsencode(name)) > room:
        name = name[:-1]
    return name + suffix


def _holds_copy(candidate: Path, path: Path, original: bytes) -> bool:
    """``candidate`` is a backup of ``path`` holding ``original``: a regular file of its own
    (not a link, nor ``path`` itself under another name), read no further than the size of
    ``original``; a FIFO, a device or a larger file is none, and never read whole."""
    try:
        st = os.lstat(candidate)
        if stat.S_ISLNK(st.st_mode) or os.path.samestat(st, os.stat(path)):
            return False
        refuse_special(candidate, st.st_mode)
        return read_regular(candidate, len(original)) == original
    except OSError:  # NotRegularFile and FileTooLarge among them
        return False


def may_write(path: Path) -> bool:
    """Whether this process may write the existing file ``path`` itself, as an editor asks
    before saving: the rename that replaces a file needs only the directory's permission,
    and would overwrite a read-only file (mode 0444) its owner has not unlocked."""
    effective = os.access in os.supports_effective_ids
    return os.access(path, os.W_OK, effective_ids=effective)


def marked_read_only(mode: int) -> bool:
    """Whether a file of ``mode`` has no write permission for anyone (0444, 0400): marked
    read-only by its owner, which root, whom permissions do not stop, is refused too."""
    return not stat.S_IMODE(mode) & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)


def refuse_unwritable(path: Path, target: Path, st: os.stat_result) -> None:
    """Raise :class:`FixRefused` when the existing file ``target`` (``path`` through its
    links; its status ``st``) is not to be replaced: no one may write it
    (:func:`marked_read_only`), or this process may not (:func:`may_write`)."""
    if marked_read_only(st.st_mode):
        mode = f"{stat.S_IMODE(st.st_mode):04o}"
        raise FixRefused(path, f"the file is read-only (mode {mode}); not written")
    if not may_write(target):
        raise FixRefused(path, "the file is read-only (no permission to write it); not written")


class _Absent:
    """The type of :data:`ABSENT`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"


#: ``expected`` of :func:`write_atomically` for a file that did not exist when read: it is
#: created, and never replaces a file made meanwhile (an editor saving it during a look-up).
ABSENT = _Absent()

_CHANGED = "the file changed on disk since it was read; not written"


def write_target(path: Path) -> Path:
    """The file a write to ``path`` replaces: a symbolic link's target (a write goes
    through the link, never replacing it).  Raises :class:`FixRefused` for a loop of
    symbolic links and for a target whose folder does not exist."""
    try:
        target = path.resolve()
    except (RuntimeError, OSError) as exc:  # (Python 3.11 raises RuntimeError for a loop)
        if isinstance(exc, OSError) and exc.errno != errno.ELOOP:
            raise
        raise FixRefused(path, "a loop of symbolic links; not written") from None
    if not target.parent.is_dir():
        raise FixRefused(path, f"no folder {target.parent} to write it in; not written")
    return target


def write_atomically(
    path: Path, data: bytes, *, expected: bytes | _Absent | None = None, backup: bool = True
) -> Path | None:
    """Replace ``path`` by ``data`` atomically, keeping a backup of the old content (unless
    ``backup`` is false).

    ``expected`` is the content the caller read, or :data:`ABSENT` when there was no file;
    if the file changed since (or exists now), nothing is written (:class:`FixRefused`);
    nor when this process may not write the file (:func:`may_write`), nor, even as root,
    a file no one may write (:func:`marked_read_only`).  A file expected
    absent is created by a hard link to the temporary file, which fails if a file of that
    name appeared meanwhile (no window between the test and the creation).  Returns the backup path (None when ``path`` did not exist or no
    backup was asked for).  At every instant the file holds either the old or the new bytes;
    the temporary file is new (``mkstemp``), so nothing planted beside ``path`` is written to.
    """
    target = write_target(path)
    directory = target.parent
    remove_stale_temps(directory, target.name)
    try:
        st = target.stat()
        old = _now_in(path, target, expected)
    except FileNotFoundError:
        st, old = None, None
    if isinstance(expected, _Absent):
        if old is not None or os.path.lexists(target):
            raise FixRefused(path, _CHANGED)
        _create(path, target, data)
        _fsync_dir(directory)
        return None
    if expected is not None and old != expected:
        raise FixRefused(path, _CHANGED)
    if st is not None:
        refuse_unwritable(path, target, st)
    kept: Path | None = None
    if old is not None and backup:
        kept = _keep_backup(path, target, old, st)
    tmp, owned = _write_temp(directory, target.name, data, st, target if st else None)
    try:
        if expected is not None and _now_in(path, target, expected) != expected:
            raise FixRefused(path, "the file changed on disk while fixing; not written")
        if st is not None and (st.st_nlink > 1 or not owned):
            # a rename would break the hard links, give the file to this user or drop its
            # ACL or extended attributes
            _write_in_place(target, data, tmp)
        else:
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        forget_temporary(tmp)
    _fsync_dir(directory)
    return kept


def _now_in(path: Path, target: Path, expected: bytes | _Absent | None) -> bytes | None:
    """What ``target`` holds now, read as the file was (:func:`read_regular`): a FIFO or a
    device put in its place is not opened (a FIFO would hold the write forever), and of a
    file longer than ``expected`` no more than one byte past it is read (None then: it
    changed)."""
    limit = len(expected) if isinstance(expected, bytes) else NO_LIMIT
    try:
        return read_regular(target, limit)
    except NotRegularFile as exc:
        kind = (exc.strerror or "not a regular file").removesuffix("; it is not read")
        raise FixRefused(path, f"{kind}; not written") from None
    except FileTooLarge:
        return None


#: The most bytes read of a file whose content is not known beforehand.
NO_LIMIT = 1 << 62


def _create(path: Path, target: Path, data: bytes) -> None:
    """Create ``target`` holding ``data``, never replacing a file that exists: the complete
    temporary file is hard-linked to the name (renamed over it, the name reserved first,
    where the file system has no hard links: :func:`_link_new`)."""
    tmp, _ = _write_temp(target.parent, target.name, data, None)
    try:
        _link_new(tmp, target)
    except FileExistsError:
        raise FixRefused(path, _CHANGED) from None
    finally:
        tmp.unlink(missing_ok=True)
        forget_temporary(tmp)


def apply_plan(plan: FixPlan) -> Path | None:
    """Write a plan's new bytes (if anything changed); returns the backup path."""
    if not plan.changed:
        return None
    return write_atomically(plan.path, plan.new, expected=plan.old)
