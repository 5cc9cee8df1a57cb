"""The optional citation judge against a loopback server speaking the chat-completions API
(the response shapes of OpenAI's documented chat.completion object): request shape, a
supported and an unsupported verdict, a refusal, a timeout and malformed JSON."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

import replay as replay_fixtures
from citewarden.model import Match
from citewarden.verify.judge import (
    CONCURRENCY,
    MAX_FAILURES,
    MAX_REASON,
    Judge,
    JudgeConfig,
    judge_all,
)

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

WORK = Match(
    "crossref",
    1.0,
    doi="10.1093/comjnl/7.4.308",
    title="A Simplex Method for Function Minimization",
    authors=("J. A. Nelder", "R. Mead"),
    year=1965,
    venue="The Computer Journal",
    abstract="A method is described for the minimization of a function of n variables.",
)
SENTENCE = "The simplex search of Nelder and Mead needs no derivatives."


def completion(content: str | None, refusal: str | None = None, finish: str = "stop") -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764547200,
        "model": "local-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "logprobs": None,
                "finish_reason": finish,
            }
        ],
        "usage": {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140},
    }
    return json.dumps(body).encode()


class ChatServer:
    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], Any]] = []
        self.answer: bytes = b""
        self.status = 200
        self.delay = 0.0
        #: Called before each answer (to change it from one request to the next).
        self.on_request: Any = None
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                server.requests.append(
                    (self.path, {k.lower(): v for k, v in self.headers.items()}, json.loads(raw))
                )
                if server.on_request is not None:
                    server.on_request()
                time.sleep(server.delay)
                try:
                    self.send_response(server.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(server.answer)))
                    self.end_headers()
                    self.wfile.write(server.answer)
                except OSError:
                    pass

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"


@pytest.fixture
def chat() -> Iterator[ChatServer]:
    server = ChatServer()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


async def ask(chat: ChatServer, timeout: float = 5.0) -> Any:
    judge = Judge(JudgeConfig(chat.url, "local-model", api_key="sk-judge-secret", timeout=timeout))
    try:
        return await judge.judge(SENTENCE, WORK)
    finally:
        await judge.aclose()


async def test_request_shape_and_an_unsupported_verdict(chat: ChatServer) -> None:
    chat.answer = completion(
        '{"supported": false, "reason": "The paper minimises functions; it says nothing of '
        + "x" * 1000
        + '"}'
    )
    verdict = await ask(chat)
    assert verdict is not None and verdict.supported is False and verdict.model == "local-model"
    assert verdict.reason.startswith("The paper minimises") and len(verdict.reason) <= MAX_REASON
    ((path, headers, body),) = chat.requests
    assert path == "/v1/chat/completions"
    assert headers["authorization"] == "Bearer sk-judge-secret"
    assert headers["content-type"] == "application/json"
    assert body["model"] == "local-model" and body["temperature"] == 0
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user"]
    user = body["messages"][1]["content"]
    # only the sentence and the record's metadata go out
    assert SENTENCE in user and WORK.abstract in user and "The Computer Journal" in user
    assert "main.tex" not in json.dumps(body) and "nelder1965" not in json.dumps(body)


async def test_a_supported_verdict_inside_prose(chat: ChatServer) -> None:
    chat.answer = completion(
        'Here is my answer: {"supported": true, "reason": "It is the source."}'
    )
    verdict = await ask(chat)
    assert verdict is not None and verdict.supported and verdict.reason == "It is the source."


async def test_a_refusal_gives_no_verdict(chat: ChatServer) -> None:
    chat.answer = completion(None, refusal="I'm sorry, I can't help with that.")
    assert await ask(chat) is None
    chat.answer = completion('{"supported": false}', finish="content_filter")
    assert await ask(chat) is None


async def test_a_timeout_gives_no_verdict(chat: ChatServer) -> None:
    chat.answer = completion('{"supported": false, "reason": "late"}')
    chat.delay = 1.5
    started = time.monotonic()
    assert await ask(chat, timeout=0.3) is None
    assert time.monotonic() - started < 1.4  # gave up at the timeout, no retry
    assert len(chat.requests) == 1


@pytest.mark.parametrize(
    "answer",
    [
        b'{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assist',
        completion("supported: no"),
        completion('{"supported": "no", "reason": "a string, not a boolean"}'),
        completion('{"supported": false, "reason": "unterminated'),
        b"[]",
    ],
)
async def test_malformed_json_gives_no_verdict(chat: ChatServer, answer: bytes) -> None:
    chat.answer = answer
    assert await ask(chat) is None


async def test_an_answer_nested_too_deep_gives_no_verdict(chat: ChatServer) -> None:
    """A body or a content nested deeper than the decoder recurses: no verdict, no crash."""
    chat.answer = b"[" * 100_000 + b"]" * 100_000
    assert await ask(chat) is None
    chat.answer = completion('{"supported": true, "reason": ' + "[" * 100_000 + "]" * 100_000)
    assert await ask(chat) is None


async def test_an_answer_of_many_braces_is_read_in_bounded_time(chat: ChatServer) -> None:
    """Text that opens objects it never closes costs time linear in its length (a search
    from every brace to the last one was quadratic: minutes for a megabyte)."""
    chat.answer = completion("{" * 2_000_000)
    started = time.monotonic()
    assert await ask(chat) is None
    assert time.monotonic() - started < 5.0
    chat.answer = completion('{"supported": {"supported": ' * 100_000)
    assert await ask(chat) is None


async def test_the_verdict_after_an_echoed_template_is_read(chat: ChatServer) -> None:
    """The instruction's template is no JSON; the object after it is the verdict."""
    chat.answer = completion(
        'You asked for {"supported": true or false, "reason": "one short sentence"}. '
        'My answer: {"supported": false, "reason": "It is about optimisation."}'
    )
    verdict = await ask(chat)
    assert verdict is not None and verdict.supported is False
    assert verdict.reason == "It is about optimisation."


async def test_two_verdicts_that_disagree_give_none(chat: ChatServer) -> None:
    chat.answer = completion(
        '{"supported": true, "reason": "At first sight."} On reflection: '
        '{"supported": false, "reason": "It is about optimisation."}'
    )
    assert await ask(chat) is None


async def test_an_http_error_gives_no_verdict(chat: ChatServer) -> None:
    chat.status = 401
    chat.answer = (
        b'{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}}'
    )
    assert await ask(chat) is None


async def test_a_judge_that_stops_answering_is_not_asked_about_every_citation(
    chat: ChatServer,
) -> None:
    """A judge that times out: after a few requests in a row without an answer, the other
    citations get no verdict without a request (not one timeout for every four citations)."""
    chat.answer = completion('{"supported": false, "reason": "late"}')
    chat.delay = 1.0
    config = JudgeConfig(chat.url, "local-model", timeout=0.2)
    verdicts = await judge_all(config, [(f"{SENTENCE} ({i})", WORK) for i in range(40)])
    assert verdicts == [None] * 40
    assert len(chat.requests) < MAX_FAILURES + CONCURRENCY


async def test_a_judge_that_answers_is_asked_about_every_citation(chat: ChatServer) -> None:
    chat.answer = completion('{"supported": true, "reason": "It is."}')
    config = JudgeConfig(chat.url, "local-model", timeout=5.0)
    verdicts = await judge_all(config, [(f"{SENTENCE} ({i})", WORK) for i in range(12)])
    assert len(chat.requests) == 12
    assert all(v is not None and v.supported for v in verdicts)


@pytest.mark.parametrize("suffix", ["/chat/completions", "/", "?api-version=2024-06-01"])
async def test_the_endpoint_is_the_api_base_with_chat_completions_once(
    chat: ChatServer, suffix: str
) -> None:
    """A URL that already names the endpoint is asked as it is (not .../chat/completions
    twice, a 404 every time), and a query stays after the path."""
    chat.answer = completion('{"supported": true, "reason": "It is."}')
    judge = Judge(JudgeConfig(chat.url + suffix, "local-model", timeout=5.0))
    try:
        verdict = await judge.judge(SENTENCE, WORK)
    finally:
        await judge.aclose()
    assert verdict is not None and verdict.supported
    ((path, _, _),) = chat.requests
    query = suffix if suffix.startswith("?") else ""
    assert path == "/v1/chat/completions" + query


@pytest.mark.parametrize("sentence", ["Adam", "Method A 0.5", "SGD [12]", "Table 3."])
async def test_a_cell_or_a_label_is_not_sent_to_the_judge(chat: ChatServer, sentence: str) -> None:
    """A table cell's or a label's text makes no claim: the judge is not asked (an answer
    "unsupported" would be a warning on a citation that claims nothing)."""
    chat.answer = completion('{"supported": false, "reason": "The sentence makes no claim."}')
    judge = Judge(JudgeConfig(chat.url, "local-model", timeout=5.0))
    try:
        answer = await judge.ask(sentence, WORK)
        assert answer.verdict is None and not answer.failed and chat.requests == []
        assert (await judge.judge(SENTENCE, WORK)) is not None  # a sentence is asked about
    finally:
        await judge.aclose()


# -- end to end: `citewarden check` with a judge configured in the environment -------------

PAPER = r"""\documentclass{article}
\begin{document}
Sigmoidal networks approximate continuous functions \cite{cybenko}.
\bibliography{refs}
\end{document}
"""
BIB = """@article{cybenko, author = {Cybenko, G.}, title = {Approximation by superpositions of a
  sigmoidal function}, journal = {Mathematics of Control, Signals, and Systems},
  year = {1989}, volume = {2}, number = {4}, pages = {303--314}, doi = {10.1007/BF02551274}}
"""


def test_check_sends_the_sentence_and_reports_the_judges_verdict(
    chat: ChatServer,
    replay: Any,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from citewarden import cli

    (tmp_path / "main.tex").write_text(PAPER, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / ".citewarden.toml").write_text(
        f'[verify]\nsources = ["crossref"]\nbase_urls = {{ crossref = "{replay.base_url("crossref")}" }}\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("CITEWARDEN_JUDGE_URL", chat.url)
    monkeypatch.setenv("CITEWARDEN_JUDGE_MODEL", "local-model")
    monkeypatch.chdir(tmp_path)
    chat.answer = completion('{"supported": false, "reason": "The paper is about chess."}')
    cli.main(["check", "main.tex", "--format", "json", "--quiet"])
    report = json.loads(capsys.readouterr().out)
    (row,) = report["citations"]["cited"]
    assert row["context"]["judge"] == {
        "supported": False,
        "reason": "The paper is about chess.",
        "model": "local-model",
    }
    (finding,) = [d for d in report["diagnostics"] if d["code"] == "citation-unsupported"]
    assert (finding["file"], finding["line"], finding["severity"]) == ("main.tex", 3, "warning")
    assert "The paper is about chess." in finding["message"]
    ((_, _, body),) = chat.requests
    user = body["messages"][1]["content"]
    assert "Sigmoidal networks approximate continuous functions." in user
    assert "cybenko" not in user and "main.tex" not in user


def test_no_judge_configured_sends_nothing(
    chat: ChatServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from citewarden.verify.judge import config_from_env

    assert config_from_env({}) is None
    assert config_from_env({"CITEWARDEN_JUDGE_URL": chat.url}) is None  # no model
    assert (
        config_from_env({"CITEWARDEN_JUDGE_URL": "file:///x", "CITEWARDEN_JUDGE_MODEL": "m"})
        is None
    )
    assert chat.requests == []


# -- the judge as a setting ------------------------------------------------------------------


def test_the_judge_is_a_setting_and_bad_values_fall_back_with_a_message() -> None:
    from citewarden.settings import JudgeSettings, Settings, merge_settings
    from citewarden.verify.judge import judge_config

    raw = {"judge": {"url": "http://127.0.0.1:8080/v1", "model": "m", "api-key": "k", "timeout": 5}}
    settings, problems = merge_settings(Settings(), raw, "test")
    assert problems == []
    assert settings.judge == JudgeSettings("http://127.0.0.1:8080/v1", "m", "k", 5.0)
    config = judge_config(settings.judge, {})
    assert config is not None and (config.url, config.model, config.api_key) == (
        "http://127.0.0.1:8080/v1",
        "m",
        "k",
    )
    assert config.timeout == 5.0
    # the settings win over the environment; what they leave unset comes from it
    env = {
        "CITEWARDEN_JUDGE_URL": "http://elsewhere/v1",
        "CITEWARDEN_JUDGE_MODEL": "env-model",
        "CITEWARDEN_JUDGE_API_KEY": "env-key",
    }
    config = judge_config(JudgeSettings(model="m"), env)
    assert config is not None
    assert (config.url, config.model, config.api_key) == ("http://elsewhere/v1", "m", "env-key")
    assert judge_config(JudgeSettings(), {}) is None  # off by default
    assert judge_config(JudgeSettings(url="http://127.0.0.1:1/v1"), {}) is None  # no model

    bad = {"judge": {"url": "file:///etc/passwd", "model": 3, "timeout": 0, "colour": "red"}}
    settings, problems = merge_settings(Settings(), bad, "test")
    assert settings.judge == JudgeSettings()
    assert sorted(p.key for p in problems) == [
        "judge.colour",
        "judge.model",
        "judge.timeout",
        "judge.url",
    ]
    assert "http:// or https://" in str(next(p for p in problems if p.key == "judge.url"))
    settings, problems = merge_settings(Settings(), {"judge": "on"}, "test")
    assert [p.key for p in problems] == ["judge"] and settings.judge == JudgeSettings()


def test_the_api_key_is_in_no_repr() -> None:
    from citewarden.settings import JudgeSettings

    assert "sk-judge-secret" not in repr(JudgeSettings("http://x/v1", "m", "sk-judge-secret"))
    assert "sk-judge-secret" not in repr(JudgeConfig("http://x/v1", "m", "sk-judge-secret"))


def test_check_with_the_judge_in_settings_shows_its_verdict_and_never_logs_the_key(
    chat: ChatServer,
    replay: Any,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    import logging

    from citewarden import cli

    (tmp_path / "main.tex").write_text(PAPER, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / ".citewarden.toml").write_text(
        "[verify]\n"
        'sources = ["crossref"]\n'
        f'base_urls = {{ crossref = "{replay.base_url("crossref")}" }}\n'
        "[judge]\n"
        f'url = "{chat.url}"\n'
        'model = "local-model"\n'
        'api_key = "sk-judge-secret"\n'
        "timeout = 5\n",
        encoding="utf-8",
    )
    for name in [n for n in __import__("os").environ if n.startswith("CITEWARDEN_JUDGE")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CITEWARDEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    # the first answer is a server error (retried once, and logged), the second the verdict
    answers = iter(
        [
            (500, b'{"error": {"message": "The server had an error", "type": "server_error"}}'),
            (200, completion('{"supported": false, "reason": "The paper is about chess."}')),
        ]
    )

    def next_answer() -> None:
        chat.status, chat.answer = next(answers)

    chat.on_request = next_answer
    cli.main(["check", "main.tex", "--format", "html", "--output", "report.html", "--quiet"])
    out, err = capsys.readouterr()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="context">') :]
    section = section[: section.index("</section>")]
    assert "judge (local-model): the cited work does not support the sentence" in section
    assert "The paper is about chess." in section
    assert len(chat.requests) == 2
    assert all(h["authorization"] == "Bearer sk-judge-secret" for _, h, _ in chat.requests)
    assert "chat/completions" in caplog.text  # the requests were logged ...
    for seen in (caplog.text, out, err, page):
        assert "sk-judge-secret" not in seen  # ... and the key never


def test_the_server_log_filter_redacts_secret_settings() -> None:
    import logging

    from citewarden.lsp.redaction import RedactingFilter, redact

    logged = "InitializeParams(initialization_options={'judge': {'url': 'http://h/v1', 'api_key': 'sk-1'}, 'verify': {'openalex_api_key': 'oa-2'}})"
    assert redact(logged) == (
        "InitializeParams(initialization_options={'judge': {'url': 'http://h/v1', 'api_key': "
        "'***'}, 'verify': {'openalex_api_key': '***'}})"
    )
    wire = '{"params": {"settings": {"judge": {"apiKey": "sk-3", "model": "m"}}}}'
    assert redact(wire) == '{"params": {"settings": {"judge": {"apiKey": "***", "model": "m"}}}}'
    assert redact("a monkey's keyboard") == "a monkey's keyboard"
    record = logging.LogRecord("pygls", logging.INFO, "x", 1, "Received %s", (wire,), None)
    assert RedactingFilter().filter(record) and "sk-3" not in record.getMessage()
    # a secret given with the wrong type (refused as a setting, so never registered as
    # a secret) is masked all the same: a list, an object, a number, nested brackets
    wrong = (
        "{'verify': {'s2_api_key': ['SEK1'], 'mailto': 'm@x.org'}, 'judge': {'api_key': "
        "{'v': 'SEK2]'}, 'timeout': 1}, 'token': 12345, 'apiKey': ('SEK3', ['x'])}"
    )
    assert redact(wrong) == (
        "{'verify': {'s2_api_key': ***, 'mailto': 'm@x.org'}, 'judge': {'api_key': ***, "
        "'timeout': 1}, 'token': ***, 'apiKey': ***}"
    )
    assert redact('{"api_key": [["SEK4", {"a": "]"}]], "x": 2}') == '{"api_key": ***, "x": 2}'
    assert redact("{'secret': 'SEK5") == "{'secret': '***'"  # cut short: masked to the end


def test_the_html_section_shows_the_verdict_escaped_and_unsupported_first() -> None:
    from pathlib import Path

    from citewarden.context.collect import CitationContext
    from citewarden.context.sentence import CitingSentence
    from citewarden.model import Citation, Span
    from citewarden.report.contexts import context_section

    def context(key: str, score: float, judge: dict[str, object] | None) -> CitationContext:
        citation = Citation(key, Span(0, 5), "cite", Span(0, 10))
        sentence = CitingSentence(f"Sentence citing {key}.", Span(0, 10), "", "")
        return CitationContext(
            Path("/p/main.tex"), citation, sentence, score, "title", None, "T", judge
        )

    low = context("low", 0.1, None)
    bad = context(
        "bad", 0.9, {"supported": False, "reason": "<script>alert(1)</script>", "model": "m<1>"}
    )
    page = context_section([low, bad], Path("/p"))
    assert page.index("<code>bad</code>") < page.index("<code>low</code>")  # unsupported first
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "judge (m&lt;1&gt;): the cited work does not support the sentence" in page
    assert "judge (" not in context_section([low], Path("/p"))
