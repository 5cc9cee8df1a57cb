"""The progress bar draws on a terminal only, and never with --quiet."""

from __future__ import annotations

import io
import os
import select
import unicodedata

from citewarden.report import progress as progress_mod
from citewarden.report.progress import Progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_not_a_terminal() -> None:
    stream = io.StringIO()
    with Progress(5, "verifying", stream=stream) as bar:
        for _ in range(5):
            bar.advance(note="key")
    assert not bar.enabled
    assert stream.getvalue() == ""


def test_silent_with_quiet_on_a_terminal() -> None:
    stream = FakeTerminal()
    with Progress(3, "verifying", stream=stream, quiet=True) as bar:
        bar.advance()
    assert stream.getvalue() == ""


def test_draws_and_erases_on_a_terminal(monkeypatch: object) -> None:
    stream = FakeTerminal()
    with Progress(4, "verifying", stream=stream, width=60) as bar:
        for key in ("a", "b", "c", "d"):
            bar.advance(note=key)
        final = bar.line()
    out = stream.getvalue()
    assert out.startswith("\r")
    assert "4/4" in out
    assert out.endswith("\r\x1b[K")  # erased at the end: later output starts clean
    assert "[" + "#" * (final.index("]") - final.index("[") - 1) + "]" in final


def test_line_fills_proportionally_and_fits_the_width() -> None:
    bar = Progress(10, "verify", stream=io.StringIO(), width=50)
    bar.done = 5
    line = bar.line(note="a-very-long-entry-key-that-cannot-fit-in-the-remaining-space")
    inner = line[line.index("[") + 1 : line.index("]")]
    assert inner.count("#") == len(inner) // 2
    assert len(line) <= 49
    assert "5/10" in line


def test_redraws_are_throttled(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    clock = [100.0]
    monkeypatch.setattr(progress_mod.time, "monotonic", lambda: clock[0])
    stream = FakeTerminal()
    bar = Progress(1000, stream=stream, width=60)
    bar.draw(force=True)
    for _ in range(50):
        bar.advance()  # same instant: no redraw
    assert stream.getvalue().count("\r") == 1
    clock[0] += 1.0
    bar.advance()
    assert stream.getvalue().count("\r") == 2


def test_real_pseudo_terminal_is_detected() -> None:
    master, slave = os.openpty()
    try:
        with os.fdopen(slave, "w", closefd=False) as tty:
            bar = Progress(2, "x", stream=tty, width=40)
            assert bar.enabled
            bar.advance()
            bar.advance()
            bar.close()
        data = b""
        while select.select([master], [], [], 1.0)[0]:  # read everything the pty holds
            chunk = os.read(master, 4096)
            if not chunk:
                break
            data += chunk
            if data.endswith(b"\r\x1b[K"):
                break
        assert b"2/2" in data
        assert data.endswith(b"\r\x1b[K")
    finally:
        os.close(master)
        os.close(slave)


def _columns(text: str) -> int:
    """Terminal columns of ``text``: wide characters two, combining marks none."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def test_a_note_of_wide_characters_fits_on_the_terminal_line() -> None:
    """A key of CJK characters takes two columns a character: clipped by code points it
    wrapped onto a second line, which the next redraw's carriage return leaves behind."""
    bar = Progress(10, "verifying", stream=FakeTerminal(), width=100)
    for note in ("中文文献" * 20, "e\u0301" * 80, "key-中" * 30):
        line = bar.line(note)
        assert _columns(line) <= 99
        assert line.endswith("…")
    assert bar.line("中文").endswith("  中文")


class GoneTerminal(FakeTerminal):
    """A terminal whose window was shut: every write fails with EIO."""

    def write(self, text: str) -> int:
        raise OSError(5, "Input/output error")


def test_a_terminal_gone_ends_the_bar_and_not_the_run() -> None:
    """A write to a terminal gone raised, and the bar's erasing, done while a run ended on
    SIGHUP, put that error in the place of the signal's."""
    stream = GoneTerminal()
    with Progress(3, "verifying", stream=stream) as bar:
        bar.advance(note="a")
        bar.advance(note="b")
    assert not bar.enabled
