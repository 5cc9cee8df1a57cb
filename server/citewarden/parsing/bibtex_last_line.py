"""The entries BibTeX never reads because they start on the last line of their .bib file.

BibTeX 0.99d reads a database file with one loop (``bibtex.web``, "Read the .bib file(s)")::

    while not eof(bib_file) do get_bib_command_or_entry_and_process;

and each call skips to the next ``@`` (reading lines as it needs them), reads the command or
the entry there and returns, leaving the position where it stopped.  The test is for the end
of the *file*, not of what was read: once the file's last line is in the buffer, the call
that read it is the last one, and whatever starts after it on that line is never looked at.
So on the last line BibTeX reads the block that starts at its first ``@`` when it reached
that line between blocks, and nothing when a block (a multi-line entry, ``@string`` or
``@preamble``, or one that ended there in an error) was still being read there::

    @misc{a, title={A}} @misc{b, title={B}}      <- the last line: b is not read

``@comment`` is a block of its word alone (BibTeX then skips to the next ``@``, which may
stand in what looks like its argument), so ``@comment{@misc{x, ...}}`` defines ``x`` on any
line but the last.  A line ends at each ``\\n`` and at each ``\\r`` (``\\r\\n`` is two line
ends, an empty line between them).  The last line is the text after the last line end, or
when the file ends with one, the line that one ends: the line of ``}`` in ``...}\\n``, an
empty line in ``...}\\n\\n`` and in ``...}\\r\\n`` (where nothing is lost).  biber and pandoc
read the whole line.

:func:`entries_bibtex_skips` finds these entries: it reads, as BibTeX does (:class:`_Reader`,
a port of the scanner of ``bibtex.web``, compared with BibTeX 0.99d on thousands of random
files by ``tests/differential_comments.py``), from the last entry that starts before the
last line, so what it reads is usually one entry.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from citewarden.model import Entry

#: characters an identifier (entry type, field or macro name) cannot hold: BibTeX's
#: ``illegal_id_char`` (control characters, space, tab, ``"#%'(),={}``)
_IDENTIFIER = re.compile(r"[^\x00-\x1f \"#%'(),={}]*")
_DIGITS = re.compile(r"[0-9]*")
#: what ends a line for BibTeX (each character once: ``\r\n`` is two line ends)
_EOL = re.compile(r"[\r\n]")
#: the next character that is not white space (``lex_class = white_space``) or a line end
_NOT_WHITE = re.compile(r"[^ \t\r\n]")
_KEY_BRACE = re.compile(r"[^, \t\r\n}]*")
_KEY_PAREN = re.compile(r"[^, \t\r\n]*")
#: text with braces balanced to three levels, skipped at once (each brace beyond is read
#: one at a time): inside braces, and inside quotes outside braces (a '"' ends those)
_BALANCED = r"\{[^{}]*+(?:\{[^{}]*+(?:\{[^{}]*+\}[^{}]*+)*+\}[^{}]*+)*+\}"
_SKIP_BRACED = re.compile(rf"[^{{}}]*+(?:{_BALANCED}[^{{}}]*+)*+")
_SKIP_QUOTED = re.compile(rf'[^{{}}"]*+(?:{_BALANCED}[^{{}}"]*+)*+')
_OPENERS = {"{": "}", "(": ")"}

# A whole well-formed braced entry as BibTeX reads it (white space and line ends between
# tokens, values braced to three levels, quoted, numbers, macros, ``#``), matched from its
# ``@``: the fast lane of :meth:`_Reader.block`.  Anything else fails to match, and is
# read token by token.
_W = r"[ \t\r\n]*+"
_ID = r"[^\x00-\x1f \"#%'(),={}0-9][^\x00-\x1f \"#%'(),={}]*+"
_IN = r"[^{}]*+(?:\{[^{}]*+(?:\{[^{}]*+\}[^{}]*+)*+\}[^{}]*+)*+"
_TOKEN = (
    r"(?:\{" + _IN + r"\}"
    r'|"[^"{}]*+(?:\{' + _IN + r'\}[^"{}]*+)*+"'
    r"|[0-9]++"
    r"|" + _ID + r"(?=[ \t\r\n,}#]))"
)
_VALUE = _TOKEN + _W + r"(?:#" + _W + _TOKEN + _W + r")*+"
_ENTRY = re.compile(
    r"@"
    + _W
    + r"("
    + _ID
    + r")"
    + _W
    + r"\{"
    + _W
    + r"([^, \t\r\n}]*+)"
    + _W
    + r"(?:,"
    + _W
    + _ID
    + _W
    + r"="
    + _W
    + _VALUE
    + r")*+(?:,"
    + _W
    + r")?\}"
)
_SPECIAL = frozenset({"comment", "preamble", "string"})


def last_line_start(text: str) -> int:
    """Offset where BibTeX's last line of ``text`` starts (``len(text)`` for an empty one)."""
    end = len(text)
    if end and text[end - 1] in "\r\n":
        end -= 1  # that line break ends the last line
    nl = text.rfind("\n", 0, end)
    # a \r after the last \n (looked for there only: a file without one is not read again)
    return max(nl, text.rfind("\r", max(nl, 0), end)) + 1


def keys_bibtex_skips(text: str, entries: Sequence[Entry]) -> frozenset[str]:
    """Keys of the ``entries`` (as :func:`~citewarden.parsing.bibtex.parse_bibtex` reads
    ``text``) that BibTeX does not read: they start on the file's last line after the block
    BibTeX reads there.  A key also defined by an entry BibTeX reads is not one of them."""
    skipped = entries_bibtex_skips(text, entries)
    if not skipped:
        return frozenset()
    gone = set(skipped)
    keys = {entries[i].key for i in skipped}
    kept = {e.key for i, e in enumerate(entries) if i not in gone and e.key in keys}
    return frozenset(keys - kept)


def entries_bibtex_skips(text: str, entries: Sequence[Entry]) -> list[int]:
    """Positions in ``entries`` of those BibTeX does not read (see :func:`keys_bibtex_skips`),
    in file order; looks at the entries of the last line (and the one before it) only."""
    start = last_line_start(text)
    if text.find("@", start) == -1 or not entries:
        return []  # the usual answer: no entry starts on the last line
    first = bisect.bisect_left(entries, start, key=lambda e: e.span.start)
    if first == len(entries):
        return []
    # read from the last entry before that line (a point between blocks), else the start
    origin = entries[first - 1].span.start if first else 0
    read = {at for at, _ in _Reader(text, origin).run() if at >= start}
    return [i for i in range(first, len(entries)) if entries[i].span.start not in read]


def entries_bibtex_reads(text: str) -> list[tuple[int, str]]:
    """(offset of the ``@``, key) of each entry BibTeX reads in ``text``, in file order
    (syntax errors and the last line included): the whole file read as BibTeX reads it."""
    return _Reader(text, 0).run()


class _Reader:
    """BibTeX's reading of a .bib file from a point between blocks, as ``bibtex.web`` does
    it ("Reading the database file(s)"): which entries it reads, and where each starts.
    Errors end a block where they are found (BibTeX: "I'm skipping whatever remains of
    this entry"); the next block is then looked for from there."""

    __slots__ = ("end", "fast", "found", "le", "n", "nxt", "p", "t")

    def __init__(self, text: str, start: int, fast: bool = True) -> None:
        self.t = text
        self.n = len(text)
        #: the fast lane reads the entries that end before the last line (where BibTeX's
        #: reading stops after a block: they are read token by token); 0 without it
        self.fast = last_line_start(text) if fast else 0
        #: (offset of the ``@``, key) of each entry read
        self.found: list[tuple[int, str]] = []
        if start == 0:
            self.p = self.le = self.nxt = 0  # no line read yet
        else:
            self.p = start
            self._line_at(start)

    # -- lines ------------------------------------------------------------------------------

    def _line_at(self, pos: int) -> None:
        """The line holding ``pos`` is the one in the buffer (those before it were read)."""
        m = _EOL.search(self.t, pos)
        if m is None:
            self.le = self.nxt = self.n
        else:
            self.le, self.nxt = m.start(), m.end()

    def _move(self, pos: int) -> None:
        if pos >= self.le:
            self._line_at(pos)
        self.p = pos

    def _at_end(self) -> bool:
        """Every line was read: an error "Illegal end of database file"."""
        self.p = self.le = self.nxt = self.n
        return False

    def eof(self) -> bool:
        return self.nxt >= self.n

    def eat_white(self) -> bool:
        """``eat_bib_white_space``: to the next character that is no white space, reading
        lines as needed; False at the end of the file."""
        m = _NOT_WHITE.search(self.t, self.p)
        if m is None:
            return self._at_end()
        self._move(m.start())
        return True

    def char(self) -> str:
        return self.t[self.p] if self.p < self.le else ""

    def identifier(self, *ends: str) -> str | None:
        """``scan_identifier``: the identifier at the position, None when there is none or
        a character other than white space, the line's end or one of ``ends`` follows it."""
        t, p = self.t, self.p
        if p < self.le and "0" <= t[p] <= "9":
            return None  # an identifier cannot start with a digit
        q = _IDENTIFIER.match(t, p, self.le).end()  # type: ignore[union-attr]
        self.p = q
        if q == p:
            return None
        if q >= self.le or t[q] in " \t" or t[q] in ends:
            return t[p:q]
        return None

    # -- blocks -----------------------------------------------------------------------------

    def run(self) -> list[tuple[int, str]]:
        while not self.eof():
            if self.p < self.fast:
                self.entries()
            self.block()
        return self.found

    def entries(self) -> None:
        """The well-formed braced entries from the position on that end before the last
        line, one match each (:data:`_ENTRY`): BibTeX reads each as one block, and the
        end of the file is not reached there."""
        t, p, fast, found = self.t, self.p, self.fast, self.found
        while True:
            at = t.find("@", p, fast)
            if at == -1:
                break
            m = _ENTRY.match(t, at, fast)
            if m is None or m.group(1).lower() in _SPECIAL:
                break
            found.append((at, m.group(2)))
            p = m.end()
        if p != self.p:
            self._move(p)

    def block(self) -> None:
        """``get_bib_command_or_entry_and_process``."""
        at = self.t.find("@", self.p)
        if at == -1:
            self._at_end()
            return
        self._move(at + 1)
        if not self.eat_white():
            return
        word = self.identifier("{", "(")
        if word is None:
            return
        word = word.lower()
        if word == "comment":
            return  # the word alone
        if not self.eat_white():
            return
        close = _OPENERS.get(self.char())
        if close is None:
            return
        self.p += 1
        if not self.eat_white():
            return
        if word == "preamble":
            if self.value(close) and self.char() == close:
                self.p += 1
            return
        if word == "string":
            if self.identifier("=") is None or not self.eat_white() or self.char() != "=":
                return
            self.p += 1
            if self.eat_white() and self.value(close) and self.char() == close:
                self.p += 1
            return
        key = (_KEY_PAREN if close == ")" else _KEY_BRACE).match(self.t, self.p, self.le)
        assert key is not None
        self.p = key.end()
        self.found.append((at, key.group()))  # defined, whatever follows
        self.fields(close)

    def fields(self, close: str) -> None:
        if not self.eat_white():
            return
        while self.char() != close:
            if self.char() != ",":
                return
            self.p += 1
            if not self.eat_white():
                return
            if self.char() == close:
                break
            if self.identifier("=") is None or not self.eat_white() or self.char() != "=":
                return
            self.p += 1
            if not self.eat_white() or not self.value(close):
                return
        self.p += 1

    def value(self, close: str) -> bool:
        """``scan_and_store_the_field_value_and_eat_white``: tokens joined by ``#``."""
        if not self.token(close):
            return False
        while self.char() == "#":
            self.p += 1
            if not self.eat_white() or not self.token(close):
                return False
        return True

    def token(self, close: str) -> bool:
        c = self.char()
        if c == "{" or c == '"':
            if not self.delimited(c):
                return False
        elif "0" <= c <= "9":
            self.p = _DIGITS.match(self.t, self.p, self.le).end()  # type: ignore[union-attr]
        elif self.identifier(",", close, "#") is None:
            return False  # a macro name
        return self.eat_white()

    def delimited(self, opener: str) -> bool:
        """``scan_balanced_braces``: a braced or quoted string, over lines."""
        quote = opener == '"'
        t, n = self.t, self.n
        level = 0
        pos = self.p + 1
        while True:
            pos = (_SKIP_QUOTED if quote and not level else _SKIP_BRACED).match(t, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                return self._at_end()
            c = t[pos]
            if c == "{":
                level += 1
            elif level:  # '}' (a '"' inside braces is skipped as a character)
                level -= 1
            elif c == "}" and quote:
                self._move(pos)
                return False  # "Unbalanced braces"
            else:  # the closing '}' or '"'
                self._move(pos + 1)
                return True
            pos += 1
