"""Hover and completion texts for a client that shows no Markdown (``plaintext`` alone in
its ``contentFormat``): the Markdown the server writes, as the text it stands for."""

from __future__ import annotations

import re

from lsprotocol import types

_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_TICKS = re.compile(r"`+")


def shown_as(kind: types.MarkupKind, markdown: str) -> types.MarkupContent:
    """``markdown`` as the content of kind ``kind``: as it is, or (:func:`plain_text`)."""
    value = markdown if kind is types.MarkupKind.Markdown else plain_text(markdown)
    return types.MarkupContent(kind=kind, value=value)


def plain_text(markdown: str) -> str:
    """The Markdown of :mod:`citewarden.safe_text` (backslash escapes, code spans, ``*``
    emphasis, ``[label](address)`` links) as plain text: escapes and emphasis marks
    dropped, a code span's text as it is, a link as its label and ``(address)``."""
    out: list[str] = []
    i, n = 0, len(markdown)
    in_label = False
    while i < n:
        c = markdown[i]
        if c == "\\" and i + 1 < n and markdown[i + 1] in _PUNCTUATION:
            out.append(markdown[i + 1])
            i += 2
        elif c == "`":
            run = _TICKS.match(markdown, i)
            assert run is not None
            fence = run.group()
            close = _closing(markdown, run.end(), len(fence))
            if close is None:
                out.append(fence)
                i = run.end()
                continue
            code = markdown[run.end() : close]
            if len(code) > 1 and code[0] == code[-1] == " " and code.strip(" "):
                code = code[1:-1]
            out.append(code)
            i = close + len(fence)
        elif c == "*":
            i += 1
        elif c == "[":
            in_label = True
            i += 1
        elif c == "]" and in_label and markdown.startswith("(", i + 1):
            end = markdown.find(")", i + 2)
            end = n if end == -1 else end
            out.append(f" ({markdown[i + 2 : end]})")
            in_label = False
            i = end + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _closing(markdown: str, start: int, width: int) -> int | None:
    """Where the run of exactly ``width`` backticks that closes a code span opened before
    ``start`` begins; None when none does."""
    for run in _TICKS.finditer(markdown, start):
        if len(run.group()) == width:
            return run.start()
    return None
