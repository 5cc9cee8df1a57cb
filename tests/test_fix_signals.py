"""`citewarden check --fix` under Ctrl-C, SIGTERM and SIGHUP, in a real process sent real
signals: the .bib holds its old or its new bytes, never part of them, and no temporary file
nor an empty backup name is left beside it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from snapshots import VERIFY, write_snapshot
from test_cli_reports import BIB, FIXED, RECORDS, ROOT, _appears

#: ``citewarden ARGS`` (``check --fix``; ``add``, with WRITES_BEFORE=0 as it keeps no
#: backup) whose writer says where it got ("writing" while it writes the temporary file
#: of the new text, "in-place" halfway through overwriting a hard-linked .bib, "reserved"
#: once a backup's name is reserved where the file system has no hard links) and waits there until the file "go" exists; and whose first removal of a
#: temporary file or reserved name once the file "sent" exists (a signal is on its way)
#: says "cleaning" and takes its time, where a second Ctrl-C finds it.
_SLOW_FIX = """
import errno, os, signal, sys, time, types
from pathlib import Path
from citewarden.fix import write

signal.signal(signal.SIGINT, signal.default_int_handler)  # (as a terminal's Ctrl-C finds it)

STOP = os.environ["STOP_AT"]
BEFORE = int(os.environ.get("WRITES_BEFORE", "1"))  # the backup's (add keeps none)

def pause(label):
    Path(label).touch()
    for _ in range(1200):
        if Path("go").exists():
            return
        time.sleep(0.05)

def cleaning():
    if Path("sent").exists() and not Path("cleaning").exists():
        Path("cleaning").touch()
        time.sleep(60)

calls = []
write_all = write._write_all

def slow_write_all(fd, data):
    calls.append(fd)
    if STOP == "writing" and len(calls) == BEFORE + 1:  # (after the backup's)
        pause("writing")
    if STOP == "in-place" and len(calls) == BEFORE + 2:  # backup, temporary copy, the file
        write_all(fd, data[: len(data) // 2])
        pause("in-place")
        data = data[len(data) // 2 :]
    write_all(fd, data)

write._write_all = slow_write_all

class Os(types.ModuleType):
    def __getattr__(self, name):
        return getattr(os, name)

    def link(self, *args, **kw):
        if STOP == "reserved":  # a file system without hard links (FAT)
            raise OSError(errno.EPERM, "Operation not permitted")
        return os.link(*args, **kw)

    def replace(self, source, target, *args, **kw):
        if STOP == "reserved" and str(target).endswith(".orig"):
            pause("reserved")
        return os.replace(source, target, *args, **kw)

    def unlink(self, path, *args, **kw):
        cleaning()
        return os.unlink(path, *args, **kw)

write.os = Os("os")
unlink = Path.unlink

def slow_unlink(self, *args, **kw):
    if self.name.endswith((".tmp", ".orig")):
        cleaning()
    return unlink(self, *args, **kw)

Path.unlink = slow_unlink
from citewarden import cli
sys.exit(cli.main(sys.argv[1:]))
"""


def _project(where: Path) -> None:
    """refs.bib, with corrections the recorded records make."""
    write_snapshot(where, *RECORDS)
    (where / "refs.bib").write_bytes(BIB.encode())


def slow_run(args: list[str], where: Path, stop: str, env: dict[str, str]) -> subprocess.Popen[str]:
    """``citewarden ARGS`` in ``where`` with ``env`` added to this one's, its writer stopping
    at ``stop`` (:data:`_SLOW_FIX`)."""
    return subprocess.Popen(
        [sys.executable, "-c", _SLOW_FIX, *args],
        cwd=where,
        env={**os.environ, "PYTHONPATH": str(ROOT / "server"), "STOP_AT": stop, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _fixing(where: Path, stop: str) -> subprocess.Popen[str]:
    """``check refs.bib --fix`` in ``where`` (verified offline against recorded records),
    stopping at ``stop``."""
    args = ["check", "refs.bib", *VERIFY, "--fix"]
    return slow_run(args, where, stop, {"CITEWARDEN_CACHE_DIR": str(where / "cache")})


def _left(where: Path) -> list[str]:
    """The files beside the .bib but the test's own (snapshot, cache, the markers)."""
    ours = {"snapshot.jsonl", "cache", "go", "sent", "cleaning", "writing", "in-place", "reserved"}
    return sorted(p.name for p in where.iterdir() if p.name not in ours)


FIRST = pytest.mark.parametrize(
    "first", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["Ctrl-C", "SIGTERM", "SIGHUP"]
)


@FIRST
def test_a_second_ctrl_c_while_fix_removes_its_temporary_file_leaves_none(
    tmp_path: Path, first: signal.Signals
) -> None:
    """A Ctrl-C while --fix removed the temporary file of the new text (after a first
    signal while it was written) cut the removal short, and the file stayed beside the
    .bib until a run 10 minutes later: each signal now removes it first."""
    _project(tmp_path)
    process = _fixing(tmp_path, "writing")
    try:
        _appears(tmp_path / "writing", process)
        assert list(tmp_path.glob(".refs.bib.*.tmp")), "no temporary file"
        (tmp_path / "sent").touch()
        process.send_signal(first)
        _appears(tmp_path / "cleaning", process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT, err
    assert err.endswith("citewarden: interrupted\n"), err
    assert (tmp_path / "refs.bib").read_bytes() == BIB.encode()
    assert (tmp_path / "refs.bib.orig").read_bytes() == BIB.encode()  # made before
    assert _left(tmp_path) == ["refs.bib", "refs.bib.orig"]


@FIRST
def test_a_signal_while_fix_overwrites_a_linked_bib_in_place_leaves_it_whole(
    tmp_path: Path, first: signal.Signals
) -> None:
    """A .bib with a second hard link is overwritten in place (a rename would part the
    links); a signal halfway through left it half new and half old: the write ends
    first, then the run ends by the signal, the temporary copy removed."""
    _project(tmp_path)
    os.link(tmp_path / "refs.bib", tmp_path / "linked.bib")
    process = _fixing(tmp_path, "in-place")
    try:
        _appears(tmp_path / "in-place", process)
        process.send_signal(first)
        (tmp_path / "go").touch()
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == -first, err
    assert (tmp_path / "refs.bib").read_bytes() == FIXED
    assert (tmp_path / "linked.bib").read_bytes() == FIXED  # the same file still
    assert (tmp_path / "refs.bib.orig").read_bytes() == BIB.encode()
    assert _left(tmp_path) == ["linked.bib", "refs.bib", "refs.bib.orig"]


@FIRST
def test_a_second_ctrl_c_while_a_backup_is_named_leaves_no_empty_name(
    tmp_path: Path, first: signal.Signals
) -> None:
    """Where the file system has no hard links, the backup's name is reserved by an empty
    file and the complete copy renamed over it: a signal between the two, then a Ctrl-C
    while the run removed the reservation, left an empty refs.bib.orig that no run took
    for 10 minutes.  The rename is done before the signal is acted on, and no signal
    removes the backup it made."""
    _project(tmp_path)
    process = _fixing(tmp_path, "reserved")
    try:
        _appears(tmp_path / "reserved", process)
        (tmp_path / "sent").touch()
        process.send_signal(first)
        (tmp_path / "go").touch()
        _appears(tmp_path / "cleaning", process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == -signal.SIGINT, err
    assert err.endswith("citewarden: interrupted\n"), err
    assert (tmp_path / "refs.bib").read_bytes() == BIB.encode()
    assert (tmp_path / "refs.bib.orig").read_bytes() == BIB.encode()
    assert _left(tmp_path) == ["refs.bib", "refs.bib.orig"]
