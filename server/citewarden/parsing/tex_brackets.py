"""Where the brace groups and optional arguments of raw TeX close, read once.

Pandoc reads a command's ``{..}`` argument up to its balanced closing brace, and its
``[..]`` argument up to the first ``]`` outside braces (a ``{`` that never closes is no
brace there), passing over escapes (``\\{``) and ``%`` comments.  Asked from each command
of a text, a reading from the argument's opening reads the same characters again for
every argument nested in an unclosed one (a text of ``\\def\\x{`` repeated is read once
per brace).  :class:`TexBrackets` reads the text once, left to right and only as far as
it is asked, and answers from a table: a text takes one pass however its arguments nest.

Its reading starts at the first opening asked about.  A later opening that this reading
took as part of an escape or a comment (``50% {x}`` in prose before it) is not in the
table: the caller reads that one itself.  Every answer is the one a reading from the
opening gives.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from citewarden.parsing.tex_tokens import ESCAPES_AND_COMMENTS

#: what matters to either kind of argument: braces, a closing bracket, an escape, a comment
_TOKENS = re.compile(ESCAPES_AND_COMMENTS + r"|[{}\]]")


class TexBrackets:
    """The closings of a text's ``{..}`` and ``[..]`` arguments, read on demand.

    ``span`` is the longest argument read: one that does not close within it (or before
    the ``cut`` a question names) does not close."""

    __slots__ = (
        "_bracket_tops",
        "_brackets",
        "_close",
        "_done",
        "_long_ends",
        "_long_starts",
        "_next",
        "_pos",
        "_span",
        "_stack",
        "_start",
        "_text",
    )

    def __init__(self, text: str, span: int) -> None:
        self._text = text
        self._span = span
        self._start = -1  #: where the reading began (-1: not yet)
        self._pos = 0  #: where the search for the next token goes on
        self._next: re.Match[str] | None = None  #: a token found and not yet taken in
        self._done = False
        #: each opening brace read -> the offset after its closing one (-1: none yet)
        self._close: dict[int, int] = {}
        self._brackets: list[int] = []  #: the closing brackets, in order
        #: the innermost opening brace still open at each closing bracket (-1: none)
        self._bracket_tops: list[int] = []
        self._stack: list[int] = []  #: the opening braces still open
        #: escapes and comments (tokens of more than one character): starts and ends
        self._long_starts: list[int] = []
        self._long_ends: list[int] = []

    def group(self, i: int, cut: int) -> int | None:
        """``text[i]`` is ``{``: the offset after its closing brace (-1: none within the
        span or before ``cut``); None when this reading did not take ``text[i]`` as an
        opening brace."""
        if not self._begin(i):
            return None
        self._read_to(i + 1)
        close = self._close.get(i)
        if close is None:
            return None
        limit = min(cut, i + self._span)
        if close < 0:
            self._read_to(limit)
            close = self._close[i]
        return close if 0 <= close <= limit else -1

    def option(self, i: int, cut: int) -> int | None:
        """``text[i]`` is ``[``: the offset after the ``]`` that closes it, outside braces
        (-1: none within the span or before ``cut``; a ``{`` that does not close there is
        no brace, as pandoc reads it); None when this reading took ``text[i]`` as part of
        an escape or a comment.  The first ``]`` after it whose innermost open ``{`` (opened
        after ``text[i]``) never closes closes it; a ``]`` in a group that closes is passed
        over with the group."""
        if not self._begin(i):
            return None
        self._read_to(i + 1)
        k = bisect_right(self._long_starts, i) - 1
        if k >= 0 and self._long_ends[k] > i:
            return None
        limit = min(cut, i + self._span)
        self._read_to(limit)
        brackets, tops = self._brackets, self._bracket_tops
        b = bisect_right(brackets, i)
        while b < len(brackets) and brackets[b] < limit:
            top = tops[b]
            if top <= i:
                return brackets[b] + 1
            inner = self.group(top, cut)  # an opening of this reading: answered
            if inner is None or inner > limit:
                return -1
            if inner < 0:  # the innermost "{" around it never closes: none around it does
                return brackets[b] + 1
            b = bisect_left(brackets, inner)
        return -1

    def _begin(self, i: int) -> bool:
        """Start the reading at ``i`` if none began; whether ``i`` is within it."""
        if self._start < 0:
            self._start = self._pos = i
        return i >= self._start

    def _read_to(self, limit: int) -> None:
        """Take in every token that starts before ``limit``."""
        text = self._text
        while True:
            m = self._next
            if m is None:
                if self._done:
                    return
                m = _TOKENS.search(text, self._pos)
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
                self._close[start] = -1
                self._stack.append(start)
            elif c == "}":
                if self._stack:
                    self._close[self._stack.pop()] = m.end()
            elif c == "]":
                self._brackets.append(start)
                self._bracket_tops.append(self._stack[-1] if self._stack else -1)
            else:
                self._long_starts.append(start)
                self._long_ends.append(m.end())
