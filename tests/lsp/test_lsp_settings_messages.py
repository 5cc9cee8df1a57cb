"""The message that says what is wrong with the settings stays a line: a list of 100 000
wrong items (or one item of a megabyte) made a pop-up of megabytes in the editor."""

from __future__ import annotations

from citewarden.lsp.config import LOGGED_PROBLEMS, PROBLEM_CHARS, SHOWN_PROBLEMS, problem_message
from citewarden.settings import Settings, merge_settings


def test_a_pop_up_names_the_first_problems_and_counts_the_others() -> None:
    raw = {"severity": {f"code{i}": "error" for i in range(100_000)}}
    _, problems = merge_settings(Settings(), raw, "initializationOptions")
    assert len(problems) == 100_000
    shown = problem_message(problems, most=SHOWN_PROBLEMS)
    assert shown.count("unknown finding code") == SHOWN_PROBLEMS
    assert shown.endswith(f"; and {100_000 - SHOWN_PROBLEMS} more")
    logged = problem_message(problems)
    assert logged.count("unknown finding code") == LOGGED_PROBLEMS
    assert logged.endswith(f"; and {100_000 - LOGGED_PROBLEMS} more")


def test_a_long_problem_is_cut() -> None:
    _, problems = merge_settings(Settings(), {"citation_commands": ["c-" * 500_000]}, "cfg.toml")
    [problem] = problems
    message = problem_message(problems, most=SHOWN_PROBLEMS)
    assert str(problem)[: PROBLEM_CHARS - 1] + "\u2026" in message
    assert len(message) < 2 * PROBLEM_CHARS


def test_a_few_short_problems_are_said_whole() -> None:
    raw = {"debounce_ms": -1, "max_file_mb": "big"}
    _, problems = merge_settings(Settings(), raw, "cfg.toml")
    assert problem_message(problems, most=SHOWN_PROBLEMS) == (
        "citewarden: invalid settings (defaults used instead): "
        + "; ".join(str(p) for p in problems)
    )
