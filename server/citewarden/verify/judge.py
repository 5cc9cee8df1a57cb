"""The optional citation judge: an OpenAI-compatible chat-completions endpoint, asked
whether a cited work's abstract supports the sentence that cites it.

Off unless a URL is configured (a local llama.cpp, Ollama or vLLM server, or a hosted one).
Only the citing sentence and the record's metadata (title, authors, year, venue, abstract)
are sent; never the document, the file names or the entry key.  Anything but a clear answer
(a refusal, a timeout, an HTTP error, malformed JSON, an answer without a verdict) gives no
verdict, and no verdict is never a finding.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from citewarden.model import Match
from citewarden.redaction import redact, register_secrets
from citewarden.settings import JudgeSettings
from citewarden.verify.config import JUDGE_KEY_ENV, env_value, key_may_go_to

if TYPE_CHECKING:
    from citewarden.verify.http import HttpClient

#: Longest reason kept from the judge's answer (characters).
MAX_REASON = 300
#: Longest abstract sent (characters).
MAX_ABSTRACT_SENT = 3000

#: Environment variables that turn the judge on (``URL`` and ``MODEL`` both needed).
URL_ENV, MODEL_ENV, KEY_ENV = "CITEWARDEN_JUDGE_URL", "CITEWARDEN_JUDGE_MODEL", JUDGE_KEY_ENV
#: Citations judged at once.
CONCURRENCY = 4
#: Requests in a row that got no answer (a timeout, a refused connection, an HTTP error)
#: after which :func:`judge_all` asks about no more citations: a judge that is down or
#: overloaded costs a run one timeout, not one for every four citations.
MAX_FAILURES = CONCURRENCY

log = logging.getLogger("citewarden.verify")
#: Fewest words of a sentence the judge is asked about: fewer make a table cell, a heading
#: or a label (``Adam``), no claim a work could support.
MIN_WORDS = 4
_WORD = re.compile(r"[^\W\d_]{2,}")

SYSTEM = (
    "You check citations in scholarly writing. You are given a sentence from a manuscript "
    "and the metadata of the work it cites. Decide whether the cited work, as its title and "
    "abstract describe it, supports what the sentence attributes to it. Answer with one JSON "
    'object only: {"supported": true or false, "reason": "one short sentence"}.'
)


@dataclass(frozen=True, slots=True)
class JudgeConfig:
    """Where the judge is and how to ask it (``url`` is the API base, e.g.
    ``http://127.0.0.1:8080/v1``; ``/chat/completions`` is appended)."""

    url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    supported: bool
    reason: str
    model: str


@dataclass(frozen=True, slots=True)
class JudgeAnswer:
    """What came of asking the judge: its verdict, if any; ``failed`` when no answer came
    (a timeout, a refused connection, an HTTP error), unlike an answer without a verdict."""

    verdict: JudgeVerdict | None
    failed: bool = False


def completions_url(base: str) -> str:
    """The chat-completions endpoint of the API base ``base``: ``/chat/completions`` added
    to its path, unless the path already ends with it; a query (``?api-version=...``) is
    kept after the path."""
    parts = urlsplit(base.strip())
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path += "/chat/completions"
    return urlunsplit(parts._replace(path=path))


def request_body(config: JudgeConfig, sentence: str, work: Match) -> dict[str, Any]:
    """The chat-completions request: the sentence and the record's metadata, nothing else."""
    meta = {
        "title": work.title,
        "authors": list(work.authors[:20]),
        "year": work.year,
        "venue": work.venue,
        "abstract": (work.abstract or "")[:MAX_ABSTRACT_SENT] or None,
    }
    user = (
        f"Sentence: {sentence}\n\nCited work: {json.dumps(meta, ensure_ascii=False)}\n\n"
        "Does the cited work support the sentence?"
    )
    return {
        "model": config.model,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "temperature": 0,
        "max_tokens": 200,
    }


#: How much of the answer's text is searched for the verdict (its end: a model that reasons
#: first answers last), and how many of its ``{`` are tried as the start of one.
MAX_CONTENT, MAX_OBJECTS = 65536, 64
_DECODER = json.JSONDecoder()


def _verdict_object(content: str) -> dict[str, Any] | None:
    """The JSON object with a boolean ``supported`` in ``content`` (a model may wrap it in
    prose or a code fence); None when there is none, or several that disagree.  Each ``{``
    is tried as an object's start, outside the objects already read, at most
    ``MAX_OBJECTS`` of them: bounded time whatever the text."""
    text = content[-MAX_CONTENT:]
    found: list[dict[str, Any]] = []
    start, tried = text.find("{"), 0
    while start >= 0 and tried < MAX_OBJECTS:
        tried += 1
        try:
            value, end = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict) and isinstance(value.get("supported"), bool):
            found.append(value)
        start = text.find("{", end)
    if not found or len({v["supported"] for v in found}) > 1:
        return None
    return found[-1]


def read_answer(data: Any, model: str, secrets: Iterable[str] = ()) -> JudgeVerdict | None:
    """The verdict in a chat-completions response body, or None (refusal, malformed ...);
    its text holds ``secrets`` and every registered key masked (a judge may echo them)."""
    try:
        choice = data["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(message, dict) or message.get("refusal"):
        return None
    if choice.get("finish_reason") == "content_filter":
        return None
    content = message.get("content")
    if not isinstance(content, str):
        return None
    answer = _verdict_object(content)
    if answer is None:
        return None
    reason = answer.get("reason")
    secrets = tuple(secrets)
    reason = " ".join(reason.split()) if isinstance(reason, str) else ""
    reason = redact(reason, secrets)[:MAX_REASON]  # masked before it is cut: no key's prefix
    return JudgeVerdict(answer["supported"], reason, redact(model, secrets))


class Judge:
    """Asks the configured endpoint; one request per citation, no retries on timeouts."""

    def __init__(self, config: JudgeConfig, http: HttpClient | None = None) -> None:
        # the HTTP stack is loaded with the first judge, not with the language server
        from citewarden.verify.http import HttpClient, Limit, RetryPolicy

        self.config = config
        secrets = [config.api_key] if config.api_key else []
        self.http = http or HttpClient(
            timeout=config.timeout,
            limits={"judge": Limit(4.0, 4)},
            retry=RetryPolicy(max_retries=1, transport_retries=0),
            secrets=secrets,
        )
        self.url = completions_url(config.url)

    async def judge(self, sentence: str, work: Match) -> JudgeVerdict | None:
        """The judge's verdict on one citation, or None when it gave none."""
        return (await self.ask(sentence, work)).verdict

    async def ask(self, sentence: str, work: Match) -> JudgeAnswer:
        """The judge's answer on one citation: its verdict (None when it gave none), and
        whether the request failed (no answer came: worth asking again later)."""
        if len(_WORD.findall(sentence)) < MIN_WORDS or not work.title:
            return JudgeAnswer(None)  # a cell, a heading, a label: no claim to judge
        headers = {"content-type": "application/json"}
        if self.config.api_key:
            headers["authorization"] = f"Bearer {self.config.api_key}"
        reply = await self.http.request(
            "POST",
            self.url,
            lane="judge",
            headers=headers,
            json_body=request_body(self.config, sentence, work),
        )
        from citewarden.verify.http import Failure

        if isinstance(reply, Failure) or reply.status != 200:
            return JudgeAnswer(None, failed=True)
        try:
            data = reply.json()
        except ValueError:  # not JSON, not text, or nested too deep
            return JudgeAnswer(None)
        secrets = [self.config.api_key] if self.config.api_key else []
        return JudgeAnswer(read_answer(data, self.config.model, secrets))

    async def aclose(self) -> None:
        await self.http.aclose()


def config_from_env(env: Mapping[str, str] | None = None) -> JudgeConfig | None:
    """The judge the environment configures, or None (the default: no judge, nothing sent)."""
    return judge_config(JudgeSettings(), env)


def judge_config(
    settings: JudgeSettings, env: Mapping[str, str] | None = None
) -> JudgeConfig | None:
    """The judge the settings configure, each unset value read from the environment
    (``CITEWARDEN_JUDGE_URL`` / ``_MODEL`` / ``_API_KEY``); None (the default: no judge,
    nothing sent) without both a URL and a model.  The environment's key goes only to the
    environment's URL, never to one from settings (a cloned repository's file can set it)."""
    env = os.environ if env is None else env
    url = (settings.url or env.get(URL_ENV) or "").strip()
    model = (settings.model or env.get(MODEL_ENV) or "").strip()
    if not url or not model or not url.startswith(("http://", "https://")):
        return None
    key = (settings.api_key or "").strip() or None
    url_from_settings = bool((settings.url or "").strip())
    if key is None and key_may_go_to(url, None, url_from_settings):
        key = env_value(env, KEY_ENV)  # the environment's key: its own URL only
    register_secrets([key])
    return JudgeConfig(url, model, key, settings.timeout)


async def judge_all(
    config: JudgeConfig, items: Sequence[tuple[str, Match]]
) -> list[JudgeVerdict | None]:
    """The judge's verdict on each (sentence, work), at most :data:`CONCURRENCY` at once;
    after :data:`MAX_FAILURES` requests in a row got no answer, the citations not yet asked
    about get no verdict without a request."""
    judge = Judge(config)
    slots = asyncio.Semaphore(CONCURRENCY)
    failures = 0

    async def one(sentence: str, work: Match) -> JudgeVerdict | None:
        nonlocal failures
        async with slots:
            if failures >= MAX_FAILURES:
                return None
            answer = await judge.ask(sentence, work)
            failures = failures + 1 if answer.failed else 0
            if failures == MAX_FAILURES:
                log.warning(
                    "the judge gave no answer %d times in a row: the other citations are "
                    "not asked about",
                    failures,
                )
            return answer.verdict

    try:
        return list(await asyncio.gather(*(one(s, w) for s, w in items)))
    finally:
        await judge.aclose()
