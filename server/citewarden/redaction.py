"""Secrets never reach a log: masking of API keys in text, URLs and log records.

Two layers: every configured key value is registered (:func:`register_secrets`) and masked
wherever it appears; and secret-looking *names* are masked whatever their value -- query
parameters (``api_key=...``), headers (``x-api-key: ...``) and settings fields
(``"s2_api_key": "..."`` in a logged JSON-RPC message).  :class:`RedactingFormatter` applies
both to the whole formatted log line, traceback included.
"""

from __future__ import annotations

import json as json_module
import logging
import re
import threading
from collections.abc import Iterable

from citewarden.safe_text import visible_lines

MASK = "***"

#: Query parameters and headers whose values are secrets.
SECRET_PARAMS = frozenset({"api_key", "api-key", "apikey", "key", "token", "access_token"})
SECRET_HEADERS = frozenset({"x-api-key", "authorization"})

_PARAM = re.compile(
    r"(?i)([?&;](?:" + "|".join(re.escape(p) for p in sorted(SECRET_PARAMS)) + r")=)[^&#\s\"']*"
)
#: ``x-api-key: v`` / ``Authorization: Bearer v`` in logged headers.
_HEADER = re.compile(
    r"(?i)\b(x-api-key|authorization)(['\"]?\s*[:=]\s*['\"]?)(?:(?:bearer|basic|token)\s+)?"
    r"[^'\"\s,}]+"
)
#: A settings field whose name says it holds a key: ``"s2_api_key": "v"``, ``apiKey = 'v'``.
_FIELD = re.compile(
    r"(?i)(['\"]?[\w.-]*(?:api[_-]?key|apikey|access[_-]?token|secret)['\"]?\s*[:=]\s*)"
    r"(['\"])(?:\\.|(?!\2).)*\2"
)

_lock = threading.Lock()
_registered: set[str] = set()


def register_secrets(secrets: Iterable[str | None]) -> None:
    """Remember key values so every later log line masks them (values under 4 characters
    are masked by name only: replacing them everywhere would mangle the text)."""
    with _lock:
        _registered.update(s for s in secrets if s and len(s) >= 4)


def registered_secrets() -> tuple[str, ...]:
    with _lock:
        return tuple(sorted(_registered, key=len, reverse=True))


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every known secret value and every secret-named value masked."""
    for secret in (*secrets, *registered_secrets()):
        if secret:
            text = text.replace(secret, MASK)
    text = _PARAM.sub(lambda m: m.group(1) + MASK, text)
    text = _HEADER.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    return _FIELD.sub(lambda m: m.group(1) + m.group(2) + MASK + m.group(2), text)


#: The shortest key value a report masks: a shorter one ("null", "none", a placeholder in a
#: CI setting) would match the report's own words; real keys are long.
MIN_REPORT_SECRET = 8

#: A JSON string literal (the report's text between quotes, escapes included) and whether
#: a colon follows it (a member name, which is the report's own).
_JSON_STRING = re.compile(r'"(?:\\.|[^"\\])*"(\s*:)?')


def mask_registered(text: str, *, json: bool = False) -> str:
    """``text`` with every registered key value (of :data:`MIN_REPORT_SECRET` characters or
    more) masked, and nothing else changed: the last guard of a report, whose fields and
    addresses are the user's own text.  ``json``: ``text`` is JSON, and only the values of
    its strings are masked (never a member name, a number or a literal)."""
    secrets = [s for s in registered_secrets() if len(s) >= MIN_REPORT_SECRET]
    if not secrets:
        return text
    if not json:
        for secret in secrets:
            text = text.replace(secret, MASK)
        return text
    escaped = [_json_escaped(s) for s in secrets]

    def value(m: re.Match[str]) -> str:
        literal = m.group(0)
        if m.group(1) is not None:
            return literal
        for secret in escaped:
            literal = literal.replace(secret, MASK)
        return literal

    return _JSON_STRING.sub(value, text)


def _json_escaped(secret: str) -> str:
    return json_module.dumps(secret)[1:-1]


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line (message, arguments and traceback) is redacted, then
    escaped (:func:`~citewarden.safe_text.visible_lines`): a folder name or a value with a
    terminal control, a NUL or a lone surrogate reaches the log as a visible escape."""

    def format(self, record: logging.LogRecord) -> str:
        return visible_lines(redact(super().format(record)))
