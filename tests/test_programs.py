"""Asking an installed program: its output within a time and a size bound."""

from __future__ import annotations

import sys
import time

from citewarden.programs import program_output


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_output_of_a_program_that_answers() -> None:
    assert program_output(_python("print('pandoc 3.6.1')"), 30) == "pandoc 3.6.1\n"


def test_a_program_that_fails_or_is_missing_says_nothing(tmp_path) -> None:
    assert program_output(_python("import sys; print('x'); sys.exit(3)"), 30) is None
    assert program_output([str(tmp_path / "no-such-program")], 30) is None


def test_output_past_the_limit_is_not_read() -> None:
    # 50 MB written: the program is stopped once more than the limit has been read
    started = time.monotonic()
    code = "import sys\nfor _ in range(50):\n    sys.stdout.write('x' * 1_000_000)\n"
    assert program_output(_python(code), 60, limit=1000) is None
    assert program_output(_python("print('x' * 999)"), 60, limit=1000) == "x" * 999 + "\n"
    assert time.monotonic() - started < 50


def test_a_program_that_hangs_is_stopped_at_the_time_bound() -> None:
    started = time.monotonic()
    assert program_output(_python("import time; time.sleep(60)"), 1.0) is None
    assert time.monotonic() - started < 30


def test_a_program_that_writes_then_hangs_is_stopped() -> None:
    code = "import sys, time; print('half', flush=True); time.sleep(60)"
    started = time.monotonic()
    assert program_output(_python(code), 1.0) is None
    assert time.monotonic() - started < 30


def test_output_bytes_that_are_not_utf8_are_replaced() -> None:
    code = "import sys; sys.stdout.buffer.write(b'pandoc \\xff3.6\\n')"
    assert program_output(_python(code), 30) == "pandoc \ufffd3.6\n"
