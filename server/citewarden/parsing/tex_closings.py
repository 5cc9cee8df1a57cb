"""Where the brace groups of a LaTeX text close, read forward once for questions asked in
text order.

The reader of a file's own definitions asks, for each ``\\def``, ``\\newcommand`` ...,
where its body's ``{`` closes, looking at most a few thousand characters ahead.  Asked
from each opening, a text of definitions whose bodies never close (``\\def\\x{`` repeated,
a ``}`` after every few thousand characters) is read again for each one: a pass of the
look-ahead per definition.  :class:`Closings` reads the text once, left to right and only
as far as a question's look-ahead goes, and answers from what it saw.  It keeps only the
openings at or after the last question (none before it is asked again), so what it holds
is bounded by the look-ahead, not by the text.

A question about an opening before the last one, or about a ``{`` that this reading took
as part of an escape or a comment, gets no answer (None): the caller reads that one
itself.  Every answer is the one a reading from the opening gives.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left

from citewarden.parsing.tex_tokens import BRACE_TOKENS

#: answers kept before those of openings behind the last question are dropped
_KEPT = 4096


class Closings:
    """The closings of one text's ``{`` groups, read on demand from the first question."""

    __slots__ = ("_closes", "_done", "_floor", "_next", "_pos", "_stack", "_text")

    def __init__(self, text: str, start: int) -> None:
        self._text = text
        self._floor = start  #: the last question's opening: none before it is answered
        self._pos = start  #: where the search for the next token goes on
        self._next: re.Match[str] | None = None  #: a token found and not yet taken in
        self._done = False
        #: each opening read at or after the floor -> the offset after its closing brace
        #: (-1: not closed yet)
        self._closes: dict[int, int] = {}
        self._stack: list[int] = []  #: the openings at or after the floor still open

    @property
    def text(self) -> str:
        return self._text

    @property
    def floor(self) -> int:
        """The opening asked about last: none before it is answered."""
        return self._floor

    def close(self, i: int, limit: int) -> int | None:
        """``text[i]`` is ``{``: the offset after its closing brace if that lies within
        ``limit`` characters of it, else -1; None when ``i`` is before an opening asked
        about already or this reading did not take ``text[i]`` as an opening brace."""
        if i < self._floor:
            return None
        if i > self._floor:
            self._move_floor(i)
        self._read_to(i + 1)
        close = self._closes.get(i)
        if close is None:
            return None
        end = min(len(self._text), i + limit)
        if close < 0:
            self._read_to(end)
            close = self._closes[i]
        return close if 0 <= close <= end else -1

    def _move_floor(self, i: int) -> None:
        """Forget the openings before ``i``: no later question asks about them, and a
        closing brace that would close one of them closes none of those kept."""
        self._floor = i
        stack = self._stack
        if stack and stack[0] < i:
            del stack[: bisect_left(stack, i)]
        if len(self._closes) > _KEPT:
            self._closes = {k: v for k, v in self._closes.items() if k >= i}

    def _read_to(self, limit: int) -> None:
        """Take in every token that starts before ``limit``."""
        text = self._text
        closes, stack = self._closes, self._stack
        while True:
            m = self._next
            if m is None:
                if self._done:
                    return
                m = BRACE_TOKENS.search(text, self._pos)
                if m is None:
                    self._done = True
                    return
                self._next = m
            start = m.start()
            if start >= limit:
                return
            self._next = None
            self._pos = m.end()
            c = text[start]
            if c == "{":
                closes[start] = -1
                stack.append(start)
            elif c == "}" and stack:
                closes[stack.pop()] = m.end()


_LOCAL = threading.local()


def closings(text: str, i: int) -> Closings:
    """The reading of ``text`` that answers a question about its opening ``i``: the one
    kept for this thread if it is of this text and has not passed ``i``, else a new one
    from ``i``."""
    kept: Closings | None = getattr(_LOCAL, "closings", None)
    if kept is None or kept.text is not text or i < kept.floor:
        kept = Closings(text, i)
        _LOCAL.closings = kept
    return kept
