"""Keep secrets out of the language server's log.

pygls logs whole messages when debugging (the ``initialize`` parameters with their
``initializationOptions``, the settings the client answers): any value of a setting whose
name says it is a secret (``api_key``, ``openalex_api_key``, ``apiKey``, ``token``,
``password``, ``secret``, ``authorization``) is replaced by ``***`` in every record the server writes, in the
``'key': 'value'`` form of a Python repr and the ``"key": "value"`` form of JSON alike.

A record longer than :data:`MAX_RECORD_CHARS` (a whole ``didOpen`` of a large buffer, say)
keeps its head and says how much was left out: the log stays readable and bounded.
"""

from __future__ import annotations

import logging
import re

#: A secret-named key, its separator and a quoted value (repr or JSON, either quote).
_SECRET_VALUE = re.compile(
    r"""(?P<head>(?P<q>['"])[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|token|password|secret|authorization)(?P=q)"""
    r"""\s*[:=]\s*)(?P<v>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""",
    re.IGNORECASE,
)


#: The longest message a record keeps; the rest is replaced by a note of its length.
MAX_RECORD_CHARS = 16_384


def redact(text: str) -> str:
    """``text`` with the value of every secret-named key replaced by ``***``."""
    if not any(w in text.lower() for w in ("key", "token", "password", "secret", "authorization")):
        return text
    return _SECRET_VALUE.sub(lambda m: f"{m['head']}{m['v'][0]}***{m['v'][0]}", text)


def shorten(text: str, limit: int = MAX_RECORD_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note of how many were left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} ... [{len(text) - limit} more characters not logged]"


class RedactingFilter(logging.Filter):
    """A handler filter that redacts each record's message (see :func:`redact`), then
    shortens it (see :func:`shorten`): redacted first, so a cut never splits a secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True  # let the handler report the broken record as it would
        cleaned = shorten(redact(message))
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
