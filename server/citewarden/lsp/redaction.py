"""Keep secrets out of the language server's log.

pygls logs whole messages when debugging (the ``initialize`` parameters with their
``initializationOptions``, the settings the client answers): any value of a setting whose
name says it is a secret (``api_key``, ``openalex_api_key``, ``apiKey``, ``token``,
``password``, ``secret``, ``authorization``) is replaced by ``***`` in every record the
server writes, in the ``'key': 'value'`` form of a Python repr and the ``"key": "value"``
form of JSON alike, whatever the value's type: a secret given as a list, an object or a
number (a setting of the wrong type, refused, so never registered as a secret) is masked
too.

A record longer than :data:`MAX_RECORD_CHARS` (a whole ``didOpen`` of a large buffer, say)
keeps its head and says how much was left out: the log stays readable and bounded.
"""

from __future__ import annotations

import logging
import re

#: A secret-named key and its separator (repr or JSON, either quote); the value follows.
_SECRET_KEY = re.compile(
    r"""(?P<q>['"])[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|token|password|secret|authorization)(?P=q)"""
    r"""\s*[:=]\s*""",
    re.IGNORECASE,
)
#: A quoted value (either quote, backslash escapes), or a bare one (a number, a name).
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_BARE = re.compile(r"[^\s,)}\]]*")
_CLOSE = {"[": "]", "{": "}", "(": ")"}


#: The longest message a record keeps; the rest is replaced by a note of its length.
MAX_RECORD_CHARS = 16_384


def redact(text: str) -> str:
    """``text`` with the value of every secret-named key replaced by ``***``."""
    if not any(w in text.lower() for w in ("key", "token", "password", "secret", "authorization")):
        return text
    out: list[str] = []
    done = 0
    for m in _SECRET_KEY.finditer(text):
        if m.start() < done:  # inside a value already masked
            continue
        start = m.end()
        end = _value_end(text, start)
        quote = text[start] if start < len(text) and text[start] in "'\"" else ""
        out += [text[done:start], f"{quote}***{quote}"]
        done = end
    return "".join(out) + text[done:] if out else text


def _value_end(text: str, i: int) -> int:
    """Where the value starting at ``i`` ends: a quoted string, a bracketed list, object
    or tuple (nested, with quoted strings inside), or a bare word."""
    if i < len(text) and text[i] in _CLOSE:
        stack = [_CLOSE[text[i]]]
        j = i + 1
        while j < len(text) and stack:
            if text[j] in "'\"":
                found = _QUOTED.match(text, j)
                j = found.end() if found else len(text)
                continue
            if text[j] in _CLOSE:
                stack.append(_CLOSE[text[j]])
            elif text[j] == stack[-1]:
                stack.pop()
            j += 1
        return j
    found = _QUOTED.match(text, i) or _BARE.match(text, i)
    return found.end() if found else i


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
