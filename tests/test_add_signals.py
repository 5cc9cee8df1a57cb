"""`citewarden add` under Ctrl-C, SIGTERM and SIGHUP, in a real process sent real signals
(looking the work up on the loopback replay server): the .bib holds its old or its new
bytes, never part of them, and no temporary file is left beside it."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import replay as replay_fixtures
from citewarden.verify.config import URL_ENV
from cli_process import run_citewarden
from replay import ReplayServer
from test_cli_reports import _appears
from test_fix_signals import FIRST, _left, slow_run

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

ADDREF_API = Path(__file__).parent / "data" / "addref" / "api"
BIB = b"@misc{taken,\n  title = {T},\n}\n"
ADD = ["add", "10.21105/joss.01450", "--bib", "refs.bib"]


def _sources(replay: ReplayServer, where: Path) -> dict[str, str]:
    """The sources on the replay server, serving the recorded answers; a cache in ``where``."""
    replay.load(ADDREF_API)
    env = {var: replay.base_url(name) for name, var in URL_ENV.items()}
    return {
        **env,
        "CITEWARDEN_CACHE_DIR": str(where / "cache"),
        "CITEWARDEN_MAILTO": "tests@example.org",
    }


def _added(replay: ReplayServer, tmp_path: Path) -> bytes:
    """The .bib a run of ``add`` that no signal interrupts writes."""
    where = tmp_path / "plain"
    where.mkdir()
    (where / "refs.bib").write_bytes(BIB)
    result = run_citewarden(ADD, where, _sources(replay, where))
    assert result.returncode == 0, result.stderr
    return (where / "refs.bib").read_bytes()


def _adding(replay: ReplayServer, where: Path, stop: str) -> subprocess.Popen[str]:
    """``add 10.21105/joss.01450 --bib refs.bib`` in ``where``, stopping at ``stop``
    (:data:`~test_fix_signals._SLOW_FIX`; add keeps no backup)."""
    return slow_run(ADD, where, stop, {**_sources(replay, where), "WRITES_BEFORE": "0"})


@FIRST
def test_a_second_ctrl_c_while_add_removes_its_temporary_file_leaves_none(
    tmp_path: Path, replay: ReplayServer, first: signal.Signals
) -> None:
    """A Ctrl-C while add removed the temporary file of the new text (after a first
    signal while it was written) cut the removal short, and .refs.bib.XXXXXXXX.tmp stayed
    beside the .bib: each signal now removes it first."""
    (tmp_path / "refs.bib").write_bytes(BIB)
    process = _adding(replay, tmp_path, "writing")
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
    assert (tmp_path / "refs.bib").read_bytes() == BIB
    assert _left(tmp_path) == ["refs.bib"]


@FIRST
def test_a_signal_while_add_overwrites_a_linked_bib_in_place_leaves_it_whole(
    tmp_path: Path, replay: ReplayServer, first: signal.Signals
) -> None:
    """A .bib with a second hard link is overwritten in place (a rename would part the
    links); a signal halfway through left it half new and half old: the write ends
    first, then the run ends by the signal, the temporary copy removed."""
    added = _added(replay, tmp_path)
    assert added.startswith(BIB) and b"sullivan2019pyvista" in added
    where = tmp_path / "project"
    where.mkdir()
    (where / "refs.bib").write_bytes(BIB)
    os.link(where / "refs.bib", where / "other.bib")
    process = _adding(replay, where, "in-place")
    try:
        _appears(where / "in-place", process)
        process.send_signal(first)
        (where / "go").touch()
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == -first, err
    assert (where / "refs.bib").read_bytes() == added
    assert (where / "other.bib").read_bytes() == added  # the same file still
    assert _left(where) == ["other.bib", "refs.bib"]
