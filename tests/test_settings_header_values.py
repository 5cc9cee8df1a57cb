"""The e-mail address and the API keys go into request headers and URLs: one with a
character outside printable ASCII (an accent, a non-breaking space pasted with a key, a line
break) made every request fail, and a CRLF could add a header.  Such a value is a settings
problem naming the setting (never showing a key), and is not sent."""

from __future__ import annotations

import pytest

from citewarden.settings import Settings, merge_settings
from citewarden.verify.config import resolve_config, source_address_problems
from citewarden.verify.http import user_agent

BAD = ["jos\u00e9@example.org", "a@example.org\r\nX-Injected: 1", "abcd\u00a0efgh1234", "ab cd"]
KEYS = ["openalex_api_key", "s2_api_key", "ncbi_api_key"]


@pytest.mark.parametrize("value", BAD)
@pytest.mark.parametrize("name", ["mailto", *KEYS])
def test_a_verify_value_outside_printable_ascii_is_refused(name: str, value: str) -> None:
    settings, problems = merge_settings(Settings(), {"verify": {name: value}}, "cfg.toml")
    assert [(p.origin, p.key) for p in problems] == [("cfg.toml", f"verify.{name}")]
    assert getattr(settings.verify, name) is None
    assert value not in str(problems[0])
    assert "printable ASCII" in str(problems[0])


@pytest.mark.parametrize("value", BAD)
def test_a_judge_key_outside_printable_ascii_is_refused(value: str) -> None:
    settings, problems = merge_settings(Settings(), {"judge": {"api_key": value}}, "cfg.toml")
    assert [p.key for p in problems] == ["judge.api_key"]
    assert settings.judge.api_key is None
    assert value not in str(problems[0])


def test_good_values_are_kept() -> None:
    raw = {"verify": {"mailto": " me@example.org ", "s2_api_key": "Ab-12_x.Y~z"}}
    settings, problems = merge_settings(Settings(), raw, "cfg.toml")
    assert problems == []
    assert settings.verify.s2_api_key == "Ab-12_x.Y~z"
    assert resolve_config(settings.verify, {}).mailto == "me@example.org"


@pytest.mark.parametrize(
    ("variable", "field"),
    [
        ("CITEWARDEN_MAILTO", "mailto"),
        ("CITEWARDEN_OPENALEX_API_KEY", "openalex_api_key"),
        ("CITEWARDEN_S2_API_KEY", "s2_api_key"),
        ("CITEWARDEN_NCBI_API_KEY", "ncbi_api_key"),
    ],
)
def test_an_environment_value_outside_printable_ascii_is_reported_and_not_sent(
    variable: str, field: str
) -> None:
    env = {variable: "abcd\u00a0efgh1234"}
    assert getattr(resolve_config(Settings().verify, env), field) is None
    problems = source_address_problems(Settings(), env)
    assert [p.key for p in problems] == [variable]
    assert "efgh1234" not in str(problems[0])


def test_the_user_agent_never_holds_a_line_break() -> None:
    assert "\r" not in user_agent("a@example.org\r\nX-Injected: 1")
    assert user_agent("jos\u00e9@example.org").isascii()
    assert user_agent("me@example.org").endswith("(mailto:me@example.org)")


def test_a_judge_key_from_the_environment_outside_printable_ascii_is_not_sent() -> None:
    """The judge's key variable is held to the rule of the other keys: reported by name
    (never its value) and counted as unset, where every judge request failed unseen."""
    from citewarden.settings import JudgeSettings
    from citewarden.verify.judge import judge_config

    env = {
        "CITEWARDEN_JUDGE_URL": "https://judge.example/v1",
        "CITEWARDEN_JUDGE_MODEL": "m",
        "CITEWARDEN_JUDGE_API_KEY": "sk-ab\u00e9cd",
    }
    config = judge_config(JudgeSettings(), env)
    assert config is not None and config.api_key is None
    problems = source_address_problems(Settings(), env)
    assert [p.key for p in problems] == ["CITEWARDEN_JUDGE_API_KEY"]
    assert "sk-ab" not in problems[0].message
    good = judge_config(JudgeSettings(), {**env, "CITEWARDEN_JUDGE_API_KEY": "sk-abcd"})
    assert good is not None and good.api_key == "sk-abcd"
