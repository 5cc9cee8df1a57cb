"""The message that says what is wrong with the settings stays a line: a list of 100 000
wrong items (or one item of a megabyte) made a pop-up of megabytes in the editor."""

from __future__ import annotations

import time
from pathlib import Path

from test_lsp_hostile import WAIT, small_project_client

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


def test_settings_the_editor_sends_unasked_are_named_by_how_they_came(tmp_path: Path) -> None:
    """An editor that cannot be asked for its settings sends them with
    didChangeConfiguration: a problem in them was said to come from the
    workspace/configuration answer the server never asked for."""
    with small_project_client(tmp_path) as client:
        settings = {"citewarden": {"debounce_ms": -1}}
        client.send(
            {"method": "workspace/didChangeConfiguration", "params": {"settings": settings}}
        )
        deadline = time.time() + WAIT
        while True:
            client._sort()
            said = [
                n["params"]["message"]
                for n in client.notifications
                if n["method"] == "window/showMessage"
            ]
            if said:
                break
            assert client._pump(deadline), "no message"
    assert said == [
        "citewarden: invalid settings (defaults used instead): "
        "workspace/didChangeConfiguration: setting 'debounce_ms': expected milliseconds "
        "from 0 to 10000"
    ]
