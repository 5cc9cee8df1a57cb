"""Keep secrets out of the language server's log.

pygls logs whole messages when debugging (the ``initialize`` parameters with their
``initializationOptions``, the settings the client answers): any value of a setting whose
name says it is a secret (``api_key``, ``openalex_api_key``, ``apiKey``, ``token``,
``password``, ``secret``, ``authorization``) is replaced by ``***`` in every record the server writes, in the
``'key': 'value'`` form of a Python repr and the ``"key": "value"`` form of JSON alike.
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


def redact(text: str) -> str:
    """``text`` with the value of every secret-named key replaced by ``***``."""
    if not any(w in text.lower() for w in ("key", "token", "password", "secret", "authorization")):
        return text
    return _SECRET_VALUE.sub(lambda m: f"{m['head']}{m['v'][0]}***{m['v'][0]}", text)


class RedactingFilter(logging.Filter):
    """A handler filter that redacts each record's message (see :func:`redact`)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:
            return True  # let the handler report the broken record as it would
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True
