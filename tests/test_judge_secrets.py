"""A judge that echoes what it was sent (its API key, another source's key) in its answer:
the verdict that reaches the reports holds the key masked, never the key."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from citewarden.redaction import MASK, register_secrets
from citewarden.verify.judge import MAX_REASON, Judge, JudgeConfig
from test_judge import SENTENCE, WORK, ChatServer, completion

KEY = "sk-judge-echoed-0001"
OTHER_KEY = "s2-key-echoed-0002"  # a source's key, registered by its client


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.mark.parametrize(
    "reason",
    [
        f"you sent authorization: Bearer {KEY}",
        f"the key {KEY} and the key {OTHER_KEY}",
        "x" * (MAX_REASON - 10) + KEY,  # cut by the length bound: no prefix of it either
    ],
)
async def test_keys_echoed_by_the_judge_are_masked(chat: ChatServer, reason: str) -> None:
    register_secrets([OTHER_KEY])
    chat.answer = completion(json.dumps({"supported": False, "reason": reason}))
    judge = Judge(JudgeConfig(chat.url, f"model-{KEY}", api_key=KEY, timeout=5.0))
    try:
        verdict = await judge.judge(SENTENCE, WORK)
    finally:
        await judge.aclose()
    assert verdict is not None and verdict.supported is False
    for text in (verdict.reason, verdict.model):
        assert KEY[:8] not in text and OTHER_KEY[:8] not in text
    assert MASK in verdict.model and len(verdict.reason) <= MAX_REASON
