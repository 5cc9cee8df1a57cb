"""BibTeX/BibLaTeX reader with exact spans, error recovery and incremental re-parsing.

Design
------
The index needs, for every entry, exact offsets of the key, of every field name and of every
field value, and it must read a 20 000-entry library within a fraction of a second and
re-read it after one edit within a few milliseconds.  bibtexparser 2 gives neither value
offsets nor that speed (it needs several seconds for such a file, see bench/index_bench.py), so
this module is a span-exact scanner of its own:

* Where the package was built with a C compiler, the common entry is read in C
  (:mod:`citewarden.parsing._bibscan`, an optional extension): from any point, it reads
  whole ``@type{key, name = value, ...}`` entries, with single braced, quoted, numeric or
  macro values, one after the other, and makes their records; it stops at anything else
  (another kind of block, a concatenation, an error, an ``ids`` field, an ``@`` in the
  body, ...), which the scan loop below then reads.  It reads exactly what the regular
  expressions read: tests parse real and random bibliographies both ways and compare every
  entry, field, span and problem.  Without the extension the same results come, more
  slowly, from the regular expressions alone.
* Compiled regular expressions do the rest.  A well-formed brace entry is read by one
  ``findall`` over its body (from after ``key,`` to the next line starting with ``@``) that
  yields every field (name and value: braced up to three levels of nesting, quoted, number,
  macro, and ``#`` concatenations of these), the closing brace, or the first character that
  fits neither; names and values are then taken with C-level ``zip``/``join``/``map``, not a
  Python loop per field (only concatenations are joined part by part).  Anything else
  (deeper nesting, duplicate fields, undefined macros, parentheses as delimiters, errors)
  takes a token-by-token path, which also writes the error messages; a property test checks
  that both paths read the same.
* Entries are built lazily.  The scanner keeps a compact record per entry (names, values,
  expansions, the entry's text); :class:`Entry` objects are a private subclass whose
  ``fields`` (with their spans) are built on first access, while ``get``/``field`` answer
  from the record.  Spans are computed on access from the record and a shift, and after an
  edit the entries behind it are not copied at all: the new entry sequence is made of runs
  of the old one, each moved by an offset, and a moved entry is made when it is first asked
  for (:mod:`citewarden.parsing.entry_runs`).  The cyclic garbage collector is paused while
  these acyclic objects are made, and they are then counted as old objects, so that the
  next collection of young objects does not walk them all once.
* bibtexparser 2 stays the reference: tests assert that on real .bib files our keys, entry
  types and field values equal those of ``bibtexparser.parse_string`` with its default
  middleware stack.  LaTeX is decoded lazily, one value at a time
  (:func:`citewarden.parsing.latex_decode.decode_latex`).

What is read, as BibTeX reads it
--------------------------------
``@type{key, name = value, ...}`` and ``@type(key, ...)``; text outside entries is ignored.
Values are ``{...}``, ``"..."``, numbers, macro names, and ``#`` concatenations of these.
``@string`` macros (which may use earlier ones), the standard month macros ``jan``..``dec``
(expanded to month names as the standard styles do), ``@preamble`` and ``@comment`` (skipped).
Macros must be defined before use, as in BibTeX and biber.  Field names and entry types are
lower-cased; keys are kept as written: BibTeX keys are case-insensitive, so compare them with
``str.casefold``.  Between fields, ``%`` starts a comment line (as biber reads it).

``Field.value`` is the raw text between the delimiters; for a concatenation it is the whole
expression as written (``"Proc. " # conf``) and ``value_span`` covers it, so a replacement
must bring its own delimiters.  ``Field.expanded`` holds the result of macro expansion and
concatenation when it differs from ``value``; an undefined macro expands to nothing inside a
concatenation and is left as written when it is the whole value.

Errors are findings, and reading goes on: after a syntax error the scanner resynchronises at
the next line that starts with ``@``.  The entry in which the error happened is kept with the
fields read before it (its key stays defined, as in BibTeX).  A missing comma between two
fields is reported and reading continues with the next field.  ``complete`` is False whenever
some text was not understood.  Entries with an empty key are reported and left out.
"""

from __future__ import annotations

import bisect
import gc
import os
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType
from typing import Any

from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Field,
    Finding,
    Location,
    ParsedBibliography,
    Related,
    Span,
    moved_finding,
    sound_span,
)
from citewarden.parsing.entry_runs import EntryRuns, splice

_ScanFields = Callable[
    [str, int, int], tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...] | None] | None
]
_ScanEntries = Callable[[str, int, int, Path, dict[str, str]], tuple[list[tuple[Any, ...]], int]]
_scan_fields: _ScanFields | None
_scan_entries: _ScanEntries | None
#: Set (to anything but "" or "0") to read without the C extension, as a build without a
#: compiler does: the same results, more slowly.
PURE_PYTHON_VARIABLE = "CITEWARDEN_PURE_PYTHON"
try:  # the one-pass scanner of well-formed entries, when the C extension was built
    if os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0"):
        raise ImportError(PURE_PYTHON_VARIABLE)
    from citewarden.parsing import _bibscan
    from citewarden.parsing._bibscan import entries as _scan_entries
    from citewarden.parsing._bibscan import fields as _scan_fields
except ImportError:  # a build without a C compiler, or the variable set
    _bibscan = None  # type: ignore[assignment]
    _scan_fields = _scan_entries = None


def reader_kind() -> str:
    """How .bib files are read here: "C extension" or "pure Python"."""
    return "pure Python" if _scan_entries is None else "C extension"


__all__ = [
    "MAX_EXPANSION",
    "MAX_STRING_DEPTH",
    "MONTH_MACROS",
    "parse_bibtex",
    "reader_kind",
    "reparse_bibtex",
]

#: The longest text (in characters) a macro or a concatenated value may expand to.  Each
#: ``@string`` can double the one before it, so without a bound 40 short lines expand to
#: terabytes; a definition or value that would be longer is an error on its entry.
MAX_EXPANSION = 100_000
#: How many ``@string`` macros may be defined in terms of one another, one inside the next.
MAX_STRING_DEPTH = 32

#: The macros every BibTeX style defines.
MONTH_MACROS: Mapping[str, str] = MappingProxyType(
    {
        "jan": "January",
        "feb": "February",
        "mar": "March",
        "apr": "April",
        "may": "May",
        "jun": "June",
        "jul": "July",
        "aug": "August",
        "sep": "September",
        "oct": "October",
        "nov": "November",
        "dec": "December",
    }
)

# ---------------------------------------------------------------------------------------
# Regular expressions
# ---------------------------------------------------------------------------------------

_ID = r"[^\s\"#%'(),={}@\\]"
_MAC = r"[^\s\"#%'(),={}@\\\d]" + _ID + "*"
_BR_IN = r"[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*"
_QU_IN = r'[^"{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^"{}]*)*'
_BRACED = r"\{(" + _BR_IN + r")\}"
_QUOTED = r'"(' + _QU_IN + r')"'
_GAP = r"\s*+(?:%[^\n]*+\s*+)*+"  # white space, %-comment lines (possessive: never half a comment)
_ATOM = r"(?:\{" + _BR_IN + r"\}|\"" + _QU_IN + r"\"|\d+|" + _MAC + ")"
# What follows the first part of a '#' concatenation ("" for a plain value).
_MORE = r"((?:\s*+#\s*+" + _ATOM + r")*)"
# The parts of that tail, one row each: (braced, quoted, number, macro).
_PARTS = re.compile(r"\{(" + _BR_IN + r")\}|\"(" + _QU_IN + r")\"|(\d+)|(" + _MAC + ")")

#: BibTeX and biber skip any white space between "@" and the type, line breaks included
_BLOCK = re.compile(r"@\s*([A-Za-z_][\w\-.:+]*)\s*([{(])?")
# The usual start of an entry, "@type{key,", in one match (the fast lane of the scanner).
_HEAD = re.compile(r"@[ \t]*([A-Za-z_][\w\-.:+]*)\s*\{\s*([^\s,{}=]+)\s*,")
_SPECIAL = frozenset({"comment", "preamble", "string"})
_KEY_BRACE = re.compile(r"\s*([^\s,{}=]*)\s*")
_KEY_PAREN = re.compile(r"\s*([^\s,{}()=]*)\s*")
#: a key with "=" in it (``@misc{a=b,``), which BibTeX reads as the key
_KEY_WITH_EQUALS = re.compile(r"([^\s,{}()]*=[^\s,{}()]*)\s*,")
# One pass over an entry body, from after "key," up to the next line starting with '@':
# fields (name, braced, quoted, number, macro, concatenation tail, comma), the closing brace with the space
# before it and what follows it (gap, close, tail), or the first character that fits
# neither (bad).
_ROWS = re.compile(
    "(?:"
    + _GAP
    + "("
    + _ID
    + r"+)\s*=\s*(?:"
    + _BRACED
    + "|"
    + _QUOTED
    + r"|(\d+)|("
    + _MAC
    + r"))"
    + _MORE
    + r"\s*(,?)|("
    + _GAP
    + r")(\})((?s:.*))|"
    + _GAP
    + r"(\S))"
)
# Same, with positions wanted (materialising the fields of one entry).
_ROW_POS = re.compile(
    _GAP
    + "("
    + _ID
    + r"+)\s*=\s*(?:\{("
    + _BR_IN
    + r")\}|\"("
    + _QU_IN
    + r")\"|(\d+|"
    + _MAC
    + r"))"
    + _MORE
    + r"\s*,?"
)
_GAP_RE = re.compile(_GAP)
_NAME = re.compile(_ID + "+")
_NAME_EQ = re.compile(_ID + r"+\s*=")
_SPACE = re.compile(r"\s*")
_NUMBER = re.compile(r"\d+")
_MACRO = re.compile(_MAC)
_BRACE = re.compile(r"[{}]")
_QUOTE_OR_BRACE = re.compile(r'["{}]')
_LINE_BLOCK = re.compile(r"^[ \t]*@[A-Za-z_][\w\-.:+]*[ \t]*[{(]", re.M)
# The same two searches led by a literal newline, which the regex engine scans for quickly.
_NL_AT = re.compile(r"\n[ \t]*@")
_NL_BLOCK = re.compile(r"\n[ \t]*@[A-Za-z_][\w\-.:+]*[ \t]*[{(]")
_STRING_BLOCK = re.compile(r"@[ \t]*string\s*[{(]", re.I)
_IGNORE = re.compile(r"[ \t]*%+[ \t]*citewarden:[ \t]*ignore\b", re.I)
_SWALLOWED = re.compile(r"\n[ \t]*" + _ID + r"+[ \t]*=")
_FIELD_AFTER_CLOSE = re.compile(r"[ \t]*[,;]?[ \t]*" + _ID + r"+[ \t]*=")

# Field record layout in the flat list the slow path builds (absolute offsets).
_F_NAME, _F_NS, _F_NE, _F_VALUE, _F_VS, _F_VE, _F_EXP = range(7)
_F_WIDTH = 7

_new = object.__new__


# ---------------------------------------------------------------------------------------
# Lazy entries
# ---------------------------------------------------------------------------------------

# Entry record (shared by an entry and its shifted copies; offsets in ``_R_POS`` and the
# key span are relative to the entry start):
# (type, key, start, end, key_start, key_end, path, aliases, names, values, expanded, raw, pos)
# ``expanded`` is None when no value needed expansion; ``raw`` is the entry text when the
# field offsets are still to be found (``pos`` None), else ``pos`` holds them, four per field.
(
    _R_TYPE,
    _R_KEY,
    _R_START,
    _R_END,
    _R_KS,
    _R_KE,
    _R_PATH,
    _R_ALIASES,
    _R_NAMES,
    _R_VALUES,
    _R_EXP,
    _R_RAW,
    _R_POS,
) = range(13)


def _positions(raw: str, body: int, count: int) -> tuple[int, ...]:
    """Field name and value offsets (relative) of a well-formed entry text."""
    out: list[int] = []
    match = _ROW_POS.match
    pos = body
    for _ in range(count):
        m = match(raw, pos)
        assert m is not None, "entry text changed since it was read"
        g = 2 if m.start(2) != -1 else 3 if m.start(3) != -1 else 4
        if m.end(5) != m.start(5):  # a concatenation: its span covers the delimiters
            out += (m.start(1), m.end(1), m.start(g) - (g != 4), m.end(5))
        else:
            out += (m.start(1), m.end(1), m.start(g), m.end(g))
        pos = m.end()
    return tuple(out)


class _LazyEntry(Entry):
    """An :class:`Entry` read from a compact record; fields are built on first access.

    ``_d`` shifts every offset (entries after an edit share the record of the old parse).
    It compares and hashes like a plain Entry, and pickles as one.
    """

    __slots__ = ("_d", "_f", "_p", "_r")

    _r: tuple[Any, ...]
    _d: int
    _f: tuple[Field, ...] | None
    _p: tuple[int, ...] | None

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        # dataclasses.replace() and copy land here with ordinary arguments: make a plain Entry.
        return Entry(*args, **kwargs)

    @property  # type: ignore[misc]
    def key(self) -> str:  # type: ignore[override]
        return self._r[_R_KEY]  # type: ignore[no-any-return]

    @property  # type: ignore[misc]
    def entry_type(self) -> str:  # type: ignore[override]
        return self._r[_R_TYPE]  # type: ignore[no-any-return]

    @property  # type: ignore[misc]
    def path(self) -> Path:  # type: ignore[override]
        return self._r[_R_PATH]  # type: ignore[no-any-return]

    @property  # type: ignore[misc]
    def span(self) -> Span:  # type: ignore[override]
        r, d = self._r, self._d
        return sound_span(r[_R_START] + d, r[_R_END] + d)

    @property  # type: ignore[misc]
    def key_span(self) -> Span:  # type: ignore[override]
        r = self._r
        base = r[_R_START] + self._d
        return sound_span(base + r[_R_KS], base + r[_R_KE])

    @property  # type: ignore[misc]
    def aliases(self) -> tuple[str, ...]:  # type: ignore[override]
        return self._r[_R_ALIASES]  # type: ignore[no-any-return]

    def _pos(self) -> tuple[int, ...]:
        p = self._p
        if p is None:
            r = self._r
            p = r[_R_POS]
            if p is None:
                raw = r[_R_RAW]
                p = _positions(raw, raw.index(",", r[_R_KE]) + 1, len(r[_R_NAMES]))
            object.__setattr__(self, "_p", p)
        return p

    def _field_at(self, i: int) -> Field:
        r = self._r
        p = self._pos()
        base = r[_R_START] + self._d
        exp = r[_R_EXP]
        j = 4 * i
        return Field(
            r[_R_NAMES][i],
            r[_R_VALUES][i],
            sound_span(base + p[j], base + p[j + 1]),
            sound_span(base + p[j + 2], base + p[j + 3]),
            None if exp is None else exp[i],
        )

    @property  # type: ignore[misc]
    def fields(self) -> tuple[Field, ...]:  # type: ignore[override]
        f = self._f
        if f is None:
            f = tuple([self._field_at(i) for i in range(len(self._r[_R_NAMES]))])
            object.__setattr__(self, "_f", f)
        return f

    def field(self, name: str) -> Field | None:
        names = self._r[_R_NAMES]
        name = name.lower()
        if name not in names:  # (a look-up that fails is as usual as one that succeeds)
            return None
        return self._field_at(names.index(name))

    def get(self, name: str, default: str | None = None) -> str | None:
        r = self._r
        names = r[_R_NAMES]
        name = name.lower()
        if name not in names:
            return default
        i = names.index(name)
        exp = r[_R_EXP]
        if exp is not None and exp[i] is not None:
            return exp[i]  # type: ignore[no-any-return]
        return r[_R_VALUES][i]  # type: ignore[no-any-return]

    def field_texts(self) -> tuple[tuple[str, str], ...]:
        r = self._r
        exp = r[_R_EXP]
        values = r[_R_VALUES] if exp is None else map(_text_of, r[_R_VALUES], exp)
        return tuple(zip(r[_R_NAMES], values, strict=True))

    def _astuple(self) -> tuple[Any, ...]:
        return (
            self.key,
            self.entry_type,
            self.path,
            self.span,
            self.key_span,
            self.fields,
            self.aliases,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Entry):
            return NotImplemented
        if isinstance(other, _LazyEntry):
            return _lazy_eq(self, other)
        return self._astuple() == (
            other.key,
            other.entry_type,
            other.path,
            other.span,
            other.key_span,
            other.fields,
            other.aliases,
        )

    __hash__ = Entry.__hash__  # (defining __eq__ would otherwise make it unhashable)

    def __repr__(self) -> str:
        return (
            f"Entry(key={self.key!r}, entry_type={self.entry_type!r}, path={self.path!r}, "
            f"span={self.span!r}, key_span={self.key_span!r}, fields={self.fields!r}, "
            f"aliases={self.aliases!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (Entry, self._astuple())

    def __copy__(self) -> _LazyEntry:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _LazyEntry:
        return self


def _lazy_eq(a: _LazyEntry, b: _LazyEntry) -> bool:
    ra, rb = a._r, b._r
    if a._d + ra[_R_START] != b._d + rb[_R_START]:
        return False
    if ra is rb:
        return True
    for i in (
        _R_TYPE,
        _R_KEY,
        _R_END,
        _R_KS,
        _R_KE,
        _R_PATH,
        _R_ALIASES,
        _R_NAMES,
        _R_VALUES,
        _R_EXP,
    ):
        if i == _R_END:
            if ra[i] - ra[_R_START] != rb[i] - rb[_R_START]:
                return False
        elif ra[i] != rb[i]:
            return False
    if ra[_R_RAW] is not None and ra[_R_RAW] == rb[_R_RAW]:
        return True
    return a._pos() == b._pos()


_set_r = _LazyEntry.__dict__["_r"].__set__
_set_d = _LazyEntry.__dict__["_d"].__set__
_set_f = _LazyEntry.__dict__["_f"].__set__
_set_p = _LazyEntry.__dict__["_p"].__set__


def _text_of(value: str, expanded: str | None) -> str:
    return value if expanded is None else expanded


def _lazy_entry(rec: tuple[Any, ...], delta: int = 0, positions: Any = None) -> _LazyEntry:
    e: _LazyEntry = _new(_LazyEntry)
    _set_r(e, rec)
    _set_d(e, delta)
    _set_f(e, None)
    _set_p(e, positions)
    return e


def _shifted(entry: Entry, delta: int) -> Entry:
    if delta == 0:
        return entry
    if isinstance(entry, _LazyEntry):
        return _lazy_entry(entry._r, entry._d + delta, entry._p)
    return Entry(
        entry.key,
        entry.entry_type,
        entry.path,
        sound_span(entry.span.start + delta, entry.span.end + delta),
        sound_span(entry.key_span.start + delta, entry.key_span.end + delta),
        tuple(
            Field(
                f.name,
                f.value,
                sound_span(f.name_span.start + delta, f.name_span.end + delta),
                sound_span(f.value_span.start + delta, f.value_span.end + delta),
                f.expanded,
            )
            for f in entry.fields
        ),
        entry.aliases,
    )


# ---------------------------------------------------------------------------------------
# @string table
# ---------------------------------------------------------------------------------------


class _StringTable(Mapping[str, str]):
    """``@string`` macros by lower-case name; also remembers where each was defined."""

    __slots__ = ("_defs", "_values")

    def __init__(self, defs: tuple[tuple[int, str, str], ...]) -> None:
        self._defs = defs  # (offset of '@', name, expanded value) in file order
        self._values = {name: value for _, name, value in defs}

    def __getitem__(self, name: str) -> str:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"StringTable({self._values!r})"

    def before(self, offset: int) -> dict[str, str]:
        return {name: value for at, name, value in self._defs if at < offset}


# ---------------------------------------------------------------------------------------
# The scanner
# ---------------------------------------------------------------------------------------


class _Abort(Exception):
    """A syntax error inside a block: where, what, and where reading may resume."""

    def __init__(self, offset: int, end: int, message: str, resync: int | None = None) -> None:
        super().__init__(message)
        self.offset = offset
        self.end = end
        self.message = message
        self.resync = resync


def _describe(text: str, pos: int) -> str:
    if pos >= len(text):
        return "the end of the file"
    ch = text[pos]
    if ch == "\n" or ch == "\r":
        return "the end of the line"
    return f"'{ch}'"


class _Scanner:
    def __init__(self, path: Path, text: str, strings: dict[str, str]) -> None:
        self.path = path
        self.text = text
        self.n = len(text)
        self.strings = strings
        self.string_defs: list[tuple[int, str, str]] = []
        #: nesting depth of the macros defined by this scan (a macro of literals is 1;
        #: macros inherited from an earlier scan count 1: a re-read that defines a macro
        #: is read again in full)
        self._depths: dict[str, int] = {}
        #: the deepest macro used by the value being read
        self._used_depth = 0
        self.entries: list[Entry] = []
        self.problems: list[Finding] = []
        self.complete = True
        # Memos of the last "next line starting with '@'" searches: (from, result).
        self._at_memo = (1, -1)
        self._block_memo = (1, -1)

    # -- findings -----------------------------------------------------------------------

    def _finding(
        self,
        code: Code,
        start: int,
        end: int,
        message: str,
        related: tuple[Related, ...] = (),
        **data: object,
    ) -> None:
        n = self.n
        start = min(start, n)
        self.problems.append(
            Finding(
                code,
                Location(self.path, sound_span(start, min(max(start, end), n))),
                message,
                related,
                data=MappingProxyType(data),
            )
        )

    def _syntax(self, start: int, end: int, message: str) -> None:
        self.complete = False
        self._finding(Code.BIB_SYNTAX, start, max(start, end), message)

    def _fail(self, abort: _Abort, at: int) -> int:
        """Report a syntax error in the block starting at ``at``; return where reading resumes.

        The finding stays inside the broken block (before the line where reading resumes),
        so that the problems of a block move with it when an edit elsewhere shifts it.
        """
        resync = abort.resync
        if resync is None:
            resync = self._resync(max(abort.offset, at + 1))
        start, end = abort.offset, abort.end
        if start >= resync and resync < self.n:
            start = resync
            while start > at + 1 and self.text[start - 1] in " \t\r\n":
                start -= 1
            end = start
        self._syntax(start, end, abort.message)
        return resync

    def _resync(self, pos: int) -> int:
        """Offset of the '@' of the next line that starts with '@' at or after ``pos``."""
        m = _NL_AT.search(self.text, max(pos - 1, 0))
        return m.end() - 1 if m else self.n

    def _line_start(self, pos: int) -> bool:
        i = pos - 1
        text = self.text
        while i >= 0 and text[i] in " \t":
            i -= 1
        return i < 0 or text[i] == "\n"

    # -- top level ----------------------------------------------------------------------

    def scan(self, pos: int, stops: list[int] | None = None) -> int:
        """Read blocks from ``pos``; return EOF, or the first of ``stops`` met at top level."""
        text, n = self.text, self.n
        si = 0
        while True:
            if _scan_entries is not None:
                # the common entries from here on, in one call (it stops before any stop)
                if stops is not None:
                    while si < len(stops) and stops[si] < pos:
                        si += 1
                stop = stops[si] if stops is not None and si < len(stops) else n
                records, pos = _scan_entries(text, pos, stop, self.path, self.strings)
                if records:
                    self.entries.extend(map(_lazy_entry, records))
            at = text.find("@", pos)
            if at == -1:
                return n
            if stops is not None:
                while si < len(stops) and stops[si] < at:
                    si += 1
                if si < len(stops) and stops[si] == at:
                    return at
            tried = False
            h = _HEAD.match(text, at)
            if h is not None:
                kind = _lower(h.group(1))
                if kind not in _SPECIAL:
                    end = self._fast_entry(at, kind, h.group(2), h.start(2), h.end(2), h.end())
                    if end is not None:
                        pos = end
                        continue
                    tried = True
            m = _BLOCK.match(text, at)
            if m is None or m.group(2) is None:
                # "@comment" without braces comments out the rest of its line, as in BibTeX.
                if m is not None and self._line_start(at) and m.group(1).lower() != "comment":
                    self._syntax(
                        m.end(1),
                        m.end(1) + 1,
                        f"expected '{{' or '(' after '@{m.group(1)}', found "
                        f"{_describe(text, m.end())}",
                    )
                    pos = self._resync(at + 1)
                else:
                    pos = at + 1
                continue
            kind = m.group(1).lower()
            try:
                if kind == "comment":
                    pos = self._comment(m)
                elif kind == "preamble":
                    pos = self._preamble(m)
                elif kind == "string":
                    pos = self._string(m)
                else:
                    pos = self._entry(m, kind, try_fast=not tried)
            except _Abort as abort:
                pos = self._fail(abort, at)

    # -- balanced groups ------------------------------------------------------------------

    def _limit(self, pos: int) -> int:
        """Where a value that opened before ``pos`` must have closed: the start of the next
        line that starts a block (``@type{``), else the end of the file."""
        start, found = self._block_memo
        if start <= pos and (pos < found or found == self.n):
            return found  # the block line found from ``start`` is also the next one from pos
        m = _NL_BLOCK.search(self.text, pos)
        found = m.start() + 1 if m else self.n
        self._block_memo = (pos, found)
        return found

    def _next_line_at(self, pos: int) -> int:
        """Offset of the newline before the next line that starts with '@' (else EOF)."""
        start, found = self._at_memo
        if start <= pos <= found:
            return found
        m = _NL_AT.search(self.text, pos)
        found = m.start() if m else self.n
        self._at_memo = (pos, found)
        return found

    def _close_brace(self, open_pos: int, limit: int) -> int:
        """Offset of the '}' matching the '{' at ``open_pos``, or -1 before ``limit``."""
        depth = 0
        for m in _BRACE.finditer(self.text, open_pos, limit):
            if m.group() == "{":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    return m.start()
        return -1

    def _close_quote(self, open_pos: int, limit: int) -> int:
        depth = 0
        for m in _QUOTE_OR_BRACE.finditer(self.text, open_pos + 1, limit):
            c = m.group()
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    return -1
                depth -= 1
            elif depth == 0:
                return m.start()
        return -1

    def _skip_group(self, m: re.Match[str]) -> int:
        """Skip a @comment/@preamble body; return the offset after its closing delimiter."""
        open_pos = m.end() - 1
        limit = self._limit(open_pos)
        if m.group(2) == "{":
            close = self._close_brace(open_pos, limit)
            return close + 1 if close != -1 else -1
        depth = 0
        for t in re.finditer(r"[{}()]", self.text[open_pos + 1 : limit]):
            c = t.group()
            if c in "{(":
                depth += 1
            elif depth == 0 and c == ")":
                return open_pos + 1 + t.start() + 1
            else:
                depth = max(0, depth - 1)
        return -1

    def _comment(self, m: re.Match[str]) -> int:
        end = self._skip_group(m)
        return end if end != -1 else self._resync(m.start() + 1)

    def _preamble(self, m: re.Match[str]) -> int:
        end = self._skip_group(m)
        if end == -1:
            close = "}" if m.group(2) == "{" else ")"
            raise _Abort(m.end() - 1, m.end(), f"@preamble is not closed: missing '{close}'")
        return end

    # -- values ---------------------------------------------------------------------------

    def _value(self, pos: int, field: str) -> tuple[int, int, str, str | None, int]:
        """Read a value expression at ``pos`` (after '=' and white space).

        Returns (value_start, value_end, value, expanded, pos after the expression).
        """
        text, n = self.text, self.n
        parts: list[str] = []
        first_start = -1
        last_end = -1
        single_inner: tuple[int, int] | None = None
        count = 0
        total = 0  # characters of the expansion so far
        while True:
            if pos >= n:
                raise _Abort(
                    pos, pos, f"expected a value for field '{field}', found the end of the file"
                )
            c = text[pos]
            if c == "{":
                limit = self._limit(pos)
                close = self._close_brace(pos, limit)
                if close == -1:
                    where = "the next entry" if limit < n else "the end of the file"
                    raise _Abort(
                        pos,
                        pos + 1,
                        f"unclosed '{{' in the value of field '{field}': no matching '}}' "
                        f"before {where}",
                        resync=limit if limit < n else None,
                    )
                parts.append(text[pos + 1 : close])
                inner = (pos + 1, close)
                start, pos = pos, close + 1
            elif c == '"':
                limit = self._limit(pos)
                close = self._close_quote(pos, limit)
                if close == -1:
                    raise _Abort(
                        pos,
                        pos + 1,
                        f"unbalanced '\"' in the value of field '{field}': no closing '\"' "
                        "(braces inside quotes must be balanced)",
                        resync=limit if limit < n else None,
                    )
                parts.append(text[pos + 1 : close])
                inner = (pos + 1, close)
                start, pos = pos, close + 1
            elif c.isdecimal():  # exactly what _NUMBER (\d) matches
                t = _NUMBER.match(text, pos)
                assert t is not None
                parts.append(t.group())
                inner = t.span()
                start, pos = pos, t.end()
            else:
                t = _MACRO.match(text, pos)
                if t is None:
                    raise _Abort(
                        pos,
                        pos + 1,
                        f"expected a value for field '{field}' ({{...}}, \"...\", a number "
                        f"or a macro name), found {_describe(text, pos)}",
                    )
                name = t.group()
                parts.append(self._expand_macro(name, t.start(), t.end(), count == 0))
                inner = t.span()
                start, pos = pos, t.end()
            total += len(parts[-1])
            if total > MAX_EXPANSION:
                raise _Abort(
                    first_start if count else start,
                    pos,
                    f"the value of '{field}' expands to more than {MAX_EXPANSION:,} "
                    "characters (@string macros repeated inside one another?); it is not read",
                )
            if count == 0:
                first_start = start
                single_inner = inner
            count += 1
            last_end = pos
            sp = _SPACE.match(text, pos)
            assert sp is not None
            if sp.end() < n and text[sp.end()] == "#":
                pos = _SPACE.match(text, sp.end() + 1).end()  # type: ignore[union-attr]
                continue
            break
        if count == 1:
            assert single_inner is not None
            vs, ve = single_inner
            value = text[vs:ve]
            expanded: str | None = None
            kind = text[first_start]
            if kind not in '{"' and not kind.isdecimal():
                expanded = self._macro_value(value.lower())
                if expanded == value:
                    expanded = None
            return vs, ve, value, expanded, last_end
        value = text[first_start:last_end]
        joined = "".join(parts)
        return first_start, last_end, value, (joined if joined != value else None), last_end

    def _macro_value(self, lname: str) -> str | None:
        v = self.strings.get(lname)
        if v is None:
            v = MONTH_MACROS.get(lname)
        return v

    def _expand_macro(self, name: str, start: int, end: int, first: bool) -> str:
        lname = name.lower()
        v = self._macro_value(lname)
        if v is not None and lname in self.strings:
            self._used_depth = max(self._used_depth, self._depths.get(lname, 1))
        if v is None:
            self._finding(
                Code.UNDEFINED_STRING,
                start,
                end,
                f"undefined @string macro '{name}'",
                name=name,
            )
            return ""
        return v

    # -- @string ----------------------------------------------------------------------------

    def _string(self, m: re.Match[str]) -> int:
        text, n = self.text, self.n
        close = "}" if m.group(2) == "{" else ")"
        pos = _SPACE.match(text, m.end()).end()  # type: ignore[union-attr]
        t = _NAME.match(text, pos)
        if t is None:
            raise _Abort(
                pos,
                pos + 1,
                f"expected a macro name after '@string{m.group(2)}', found {_describe(text, pos)}",
            )
        name = t.group()
        pos = _SPACE.match(text, t.end()).end()  # type: ignore[union-attr]
        if pos >= n or text[pos] != "=":
            raise _Abort(
                pos,
                pos + 1,
                f"expected '=' after @string name '{name}', found {_describe(text, pos)}",
            )
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        self._used_depth = 0
        vs, _, value, expanded, pos = self._value(pos, name)
        depth = self._used_depth + 1
        if depth > MAX_STRING_DEPTH:
            raise _Abort(
                vs,
                pos,
                f"@string '{name}' nests macros {depth} deep (at most {MAX_STRING_DEPTH}); "
                "it is not defined",
            )
        pos = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= n or text[pos] != close:
            raise _Abort(
                pos,
                pos + 1,
                f"expected '{close}' to close @string '{name}', found {_describe(text, pos)}",
            )
        lname = name.lower()
        full = expanded if expanded is not None else value
        self.strings[lname] = full
        self._depths[lname] = depth
        self.string_defs.append((m.start(), lname, full))
        return pos + 1

    # -- entries ----------------------------------------------------------------------------

    def _entry(self, m: re.Match[str], etype: str, try_fast: bool = True) -> int:
        text, n = self.text, self.n
        at = m.start()
        close = "}" if m.group(2) == "{" else ")"
        km = (_KEY_BRACE if close == "}" else _KEY_PAREN).match(text, m.end())
        assert km is not None
        key = km.group(1)
        ks, ke = km.span(1)
        pos = km.end()
        c = text[pos] if pos < n else ""
        empty_key = False
        if c == "," or c == close:
            if not key:
                empty_key = True
                self._finding(
                    Code.EMPTY_KEY,
                    at,
                    pos + 1,
                    f"entry '@{m.group(1)}' has an empty key; it cannot be cited",
                )
        elif c == "=" and (eq := _KEY_WITH_EQUALS.match(text, ks)) is not None:
            key = eq.group(1)
            ks, ke = eq.span(1)
            pos = eq.end() - 1
            c = ","
        elif c == "=":
            raise _Abort(
                ks,
                max(ke, ks + 1),
                f"missing entry key: '@{m.group(1)}{m.group(2)}' is followed by the field '{key}'",
            )
        elif c == "":
            raise _Abort(pos, pos, f"unexpected end of file after the key of entry '{key}'")
        else:
            raise _Abort(
                pos,
                pos + 1,
                f"expected ',' after the key of entry '{key}', found {_describe(text, pos)}",
            )

        if try_fast and c == "," and close == "}" and not empty_key:
            fast = self._fast_entry(at, etype, key, ks, ke, pos + 1)
            if fast is not None:
                return fast
        fields: list[Any] = []
        seen: dict[str, int] = {}
        end = -1
        resync: int | None = None
        if c == close:
            end = pos + 1
        else:
            try:
                end = self._fields(pos + 1, close, key, fields, seen)
            except _Abort as abort:
                resync = self._fail(abort, at)
        if resync is not None:
            # A broken entry still defines its key (as in BibTeX); it ends where reading resumes.
            stop = resync
            while stop > at and text[stop - 1] in " \t\r\n":
                stop -= 1
            span_end = max(stop, pos)
            next_pos = resync
        else:
            span_end = end
            next_pos = end
            self._check_after_close(end, key)
        if not empty_key:
            names = tuple(fields[0::_F_WIDTH])
            values = tuple(fields[_F_VALUE::_F_WIDTH])
            exps = tuple(fields[_F_EXP::_F_WIDTH])
            positions: list[int] = []
            for i in range(0, len(fields), _F_WIDTH):
                positions += (
                    fields[i + _F_NS] - at,
                    fields[i + _F_NE] - at,
                    fields[i + _F_VS] - at,
                    fields[i + _F_VE] - at,
                )
            self._add_entry(
                etype,
                key,
                at,
                span_end,
                ks - at,
                ke - at,
                names,
                values,
                exps if any(x is not None for x in exps) else None,
                None,
                tuple(positions),
            )
        return next_pos

    def _add_entry(
        self,
        etype: str,
        key: str,
        at: int,
        end: int,
        ks: int,
        ke: int,
        names: tuple[str, ...],
        values: tuple[str, ...],
        exps: tuple[str | None, ...] | None,
        raw: str | None,
        positions: tuple[int, ...] | None,
    ) -> None:
        aliases: tuple[str, ...] = ()
        if "ids" in names:
            i = names.index("ids")
            ids = values[i]
            if exps is not None:
                ids = exps[i] or ids
            aliases = tuple(a.strip() for a in ids.split(",") if a.strip())
        self.entries.append(
            _lazy_entry(
                (
                    etype,
                    key,
                    at,
                    end,
                    ks,
                    ke,
                    self.path,
                    aliases,
                    names,
                    values,
                    exps,
                    raw,
                    positions,
                )
            )
        )

    def _fast_entry(self, at: int, etype: str, key: str, ks: int, ke: int, body: int) -> int | None:
        """Read a well-formed brace entry in one C-level pass; None: use the slow path."""
        text = self.text
        # The body ends before the next line that starts with '@' (usually the next entry).
        nxt = text.find("\n@", body, body + 8192)
        limit = nxt if nxt != -1 else self._next_line_at(body)
        got = _scan_fields(text, body, limit) if _scan_fields is not None else None
        if got is None:
            return self._pattern_entry(at, etype, key, ks, ke, body, limit)
        end, raw_names, values, macro = got
        names = _field_names(raw_names)
        if names is None:
            return None  # a duplicate field: the slow path reports it with both positions
        exps = None
        if macro is not None:
            exps = self._macro_values(macro)
            if exps is None:
                return None
        return self._fast_done(at, etype, key, ks, ke, body, end, names, values, exps)

    def _pattern_entry(
        self, at: int, etype: str, key: str, ks: int, ke: int, body: int, limit: int
    ) -> int | None:
        """``_fast_entry`` with the row pattern (every case the one-pass scanner leaves)."""
        text = self.text
        rows = _ROWS.findall(text, body, limit)
        if not rows:
            return None
        # Transpose in C: one tuple per group, the closing row last.
        # (findall gives rows of equal width, so zip needs no strict check.)
        raw_names, braced, quoted, number, macro, more, sep, gap, close, tail, bad = zip(
            *rows, strict=False
        )
        count = len(rows) - 1  # fields
        if not close[-1] or bad[-1] or (count and (not raw_names[-2] or any(bad))):
            return None  # not closed, or something that is not a field: the slow path reports it
        if count > 1 and sep[: count - 1].count(",") != count - 1:
            return None  # a missing comma: the slow path reports it
        if count and not sep[count - 1] and "%" in gap[-1]:
            return None  # a comment between a value and the closing brace: not BibTeX
        end = limit - len(tail[-1])
        names = _field_names(raw_names[:count])
        if names is None:
            return None  # a duplicate field: the slow path reports it with both positions
        values = tuple(map("".join, zip(braced, quoted, number, macro, strict=True)))[:count]
        exps: tuple[str | None, ...] | None = None
        if count and more.count("") != len(more):
            concat = self._concatenations(values, braced, quoted, number, macro, more[:count])
            if concat is None:
                return None
            values, exps = concat
        elif count and macro.count("") != len(macro):
            exps = self._macro_values(macro[:count])
            if exps is None:
                return None
        return self._fast_done(at, etype, key, ks, ke, body, end, names, values, exps)

    def _macro_values(self, macro: Sequence[str]) -> tuple[str | None, ...] | None:
        """Expansion of each field's macro ("" for a field without one, None for a macro
        that expands to its own name); None when one is undefined: the slow path reports
        it at its place."""
        expanded: list[str | None] = []
        for name in macro:
            exp = self._macro_value(name.lower()) if name else None
            if name and exp is None:
                return None
            expanded.append(exp if exp != name else None)
        return tuple(expanded)

    def _fast_done(
        self,
        at: int,
        etype: str,
        key: str,
        ks: int,
        ke: int,
        body: int,
        end: int,
        names: tuple[str, ...],
        values: tuple[str, ...],
        exps: tuple[str | None, ...] | None,
    ) -> int | None:
        """Record an entry the fast lane read; None: a value runs into the next entry."""
        text = self.text
        if text.find("@", body, end) != -1 and _LINE_BLOCK.search(text, body, end):
            return None  # a value runs into the next entry: the slow path reports it
        self._add_entry(
            etype,
            key,
            at,
            end,
            ks - at,
            ke - at,
            names,
            values,
            exps,
            text[at:end],
            None,
        )
        self._check_after_close(end, key)
        return end

    def _concatenations(
        self,
        values: tuple[str, ...],
        braced: tuple[str, ...],
        quoted: tuple[str, ...],
        number: tuple[str, ...],
        macro: tuple[str, ...],
        more: tuple[str, ...],
    ) -> tuple[tuple[str, ...], tuple[str | None, ...]] | None:
        """Values and expansions of fields some of which are '#' concatenations (``more``:
        the text after each field's first part); None: leave the entry to the slow path."""
        out_values: list[str] = []
        out_exps: list[str | None] = []
        for i, rest in enumerate(more):
            name = macro[i]
            if not rest:
                exp = None
                if name:
                    exp = self._macro_value(name.lower())
                    if exp is None:
                        return None  # the slow path reports the undefined macro
                    if exp == name:
                        exp = None
                out_values.append(values[i])
                out_exps.append(exp)
                continue
            if braced[i]:
                first, part = "{" + braced[i] + "}", braced[i]
            elif quoted[i]:
                first, part = '"' + quoted[i] + '"', quoted[i]
            elif number[i]:
                first = part = number[i]
            elif name and not name[0].isdigit():
                first = name
                found = self._macro_value(name.lower())
                if found is None:
                    return None
                part = found
            else:
                return None  # an empty first part ({} or ""), or an unusual digit
            parts = [part]
            for b, q, n, m in _PARTS.findall(rest):
                if m:
                    if m[0].isdigit():
                        return None
                    found = self._macro_value(m.lower())
                    if found is None:
                        return None
                    parts.append(found)
                else:
                    parts.append(b or q or n)
            if sum(map(len, parts)) > MAX_EXPANSION:
                return None  # the slow path reports it
            value = first + rest
            joined = "".join(parts)
            out_values.append(value)
            out_exps.append(joined if joined != value else None)
        return tuple(out_values), tuple(out_exps)

    def _check_after_close(self, end: int, key: str) -> None:
        """A field right after the closing brace means a stray '}' ended the entry early."""
        if self.text.startswith("\n", end):
            return  # the usual case; the pattern cannot match across a line break
        t = _FIELD_AFTER_CLOSE.match(self.text, end)
        if t is not None:
            self._syntax(
                end - 1,
                end,
                f"entry '{key}' ends here, but a field follows: unbalanced '}}' in a value? "
                "The text after it is ignored",
            )

    def _fields(self, pos: int, close: str, key: str, out: list[Any], seen: dict[str, int]) -> int:
        """Read fields from ``pos`` (after the key's comma); return the offset after the entry."""
        text, n = self.text, self.n
        while True:
            gap = _GAP_RE.match(text, pos)
            assert gap is not None
            pos = gap.end()
            if pos >= n:
                raise _Abort(
                    pos,
                    pos,
                    f"entry '{key}' is not closed: missing '{close}' at the end of the file",
                )
            c = text[pos]
            if c == close:
                return pos + 1
            if c == "@" and self._line_start(pos):
                self._unclosed_value(out, key, pos)
                back = pos
                while back > 0 and text[back - 1] in " \t\r\n":
                    back -= 1
                raise _Abort(
                    back,
                    back,
                    f"entry '{key}' is not closed: missing '{close}' before the next entry",
                    resync=pos,
                )
            nm = _NAME.match(text, pos)
            if nm is None:
                raise _Abort(
                    pos,
                    pos + 1,
                    f"expected a field name or '{close}' in entry '{key}', found {_describe(text, pos)}",
                )
            name = nm.group()
            ns, ne = nm.span()
            pos = _SPACE.match(text, ne).end()  # type: ignore[union-attr]
            if pos >= n or text[pos] != "=":
                raise _Abort(
                    pos,
                    pos + 1,
                    f"expected '=' after field name '{name}' in entry '{key}', found {_describe(text, pos)}",
                )
            pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
            vs, ve, value, exp, pos = self._value(pos, name.lower())
            self._add_field(out, seen, key, _lower(name), ns, ne, value, vs, ve, exp)
            after = _SPACE.match(text, pos).end()  # type: ignore[union-attr]
            c = text[after] if after < n else ""
            if c == ",":
                pos = after + 1
            elif c == close:
                return after + 1
            elif c == "@" and self._line_start(after):
                self._unclosed_value(out, key, after)
                raise _Abort(
                    pos,
                    pos,
                    f"entry '{key}' is not closed: missing '{close}' before the next entry",
                    resync=after,
                )
            elif c and _NAME_EQ.match(text, after):
                self._syntax(
                    pos,
                    pos,
                    f"missing ',' after the value of field '{name.lower()}' in entry '{key}'",
                )
                pos = after
            elif c == "":
                raise _Abort(
                    after,
                    after,
                    f"entry '{key}' is not closed: missing '{close}' at the end of the file",
                )
            else:
                raise _Abort(
                    after,
                    after + 1,
                    f"expected ',' or '{close}' after the value of field '{name.lower()}' in entry '{key}', found {_describe(text, after)}",
                )

    def _unclosed_value(self, out: list[Any], key: str, resync: int) -> None:
        """The entry ran into the next one: blame the last value if it swallowed fields."""
        if not out:
            return
        value, vs = out[-_F_WIDTH + _F_VALUE], out[-_F_WIDTH + _F_VS]
        opener = self.text[vs - 1] if vs > 0 else ""
        if opener in '{"' and _SWALLOWED.search(value):
            name = out[-_F_WIDTH + _F_NAME]
            del out[-_F_WIDTH:]  # the value is not what the author meant: drop the field
            what = "'{'" if opener == "{" else "'\"'"
            raise _Abort(
                vs - 1,
                vs,
                f"unclosed {what} in the value of field '{name}' of entry '{key}': it runs "
                "over the following fields and closes only at the end of the entry",
                resync=resync,
            )

    def _add_field(
        self,
        out: list[Any],
        seen: dict[str, int],
        key: str,
        lname: str,
        ns: int,
        ne: int,
        value: str,
        vs: int,
        ve: int,
        exp: str | None,
    ) -> None:
        first = seen.get(lname)
        if first is None:
            seen[lname] = len(out)
        else:
            self._finding(
                Code.DUPLICATE_FIELD,
                ns,
                ne,
                f"duplicate field '{lname}' in entry '{key}'; BibTeX keeps the first one and "
                "ignores this one",
                (
                    Related(
                        Location(self.path, sound_span(out[first + _F_NS], out[first + _F_NE])),
                        f"first '{lname}' field",
                    ),
                ),
                key=key,
                field=lname,
            )
        out.extend((lname, ns, ne, value, vs, ve, exp))


_LOWER: dict[str, str] = {}
_intern = sys.intern
# Field-name sequences as written -> lower-cased, interned names (None: a duplicate name).
# Entries of one file mostly repeat a few sequences, so this spares the per-entry work.
_NAMES: dict[tuple[str, ...], tuple[str, ...] | None] = {}


def _field_names(raw: tuple[str, ...]) -> tuple[str, ...] | None:
    """Lower-cased, interned field names of ``raw``; None when a name occurs twice."""
    try:
        return _NAMES[raw]
    except KeyError:
        pass
    names: tuple[str, ...] | None = (
        tuple(map(_intern, " ".join(raw).lower().split(" "))) if raw else ()
    )
    if names is not None and len(set(names)) != len(raw):
        names = None
    if len(_NAMES) < 4096:
        _NAMES[raw] = names
    return names


def _lower(name: str) -> str:
    """Lower-case field name, shared between entries (bounded cache)."""
    cached = _LOWER.get(name)
    if cached is not None:
        return cached
    lname = name.lower()
    if len(_LOWER) < 4096:
        lname = _LOWER.setdefault(lname, lname)
        _LOWER[name] = lname
    return lname


if _bibscan is not None:
    _bibscan.configure(_LOWER, _lower, _NAMES, _field_names, dict(MONTH_MACROS))


def _suppressed(text: str) -> set[int]:
    """0-based lines silenced by ``% citewarden: ignore`` (that line and the next).

    The marker is matched case-insensitively; plain ``find`` for the two usual spellings of
    its tail keeps this from costing a regular-expression pass over a large file.
    """
    lines: set[int] = set()
    for needle in ("itewarden:", "ITEWARDEN:"):
        pos = text.find(needle)
        while pos != -1:
            line_start = text.rfind("\n", 0, pos) + 1
            if _IGNORE.match(text, line_start):
                line = text.count("\n", 0, line_start)
                lines.update((line, line + 1))
            pos = text.find(needle, pos + 1)
    return lines


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    A large library makes hundreds of thousands of small tuples; with the collector running,
    each burst of allocations also triggers passes over every object alive, which costs more
    than the reading itself.  Nothing built here forms a cycle.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] >= _AGE_ABOVE:
                _age_young_objects()
            gc.enable()


#: Young objects from which a parse's objects are counted as old at once (a whole large
#: file); a re-read entry or a small file leaves the collector's usual course alone.
_AGE_ABOVE = 20_000


def _age_young_objects() -> None:
    """Count the objects built so far as old: the next collection of young objects would
    otherwise walk every one of them once (about a third of the reading time of a large
    file), only to find what is known here, that they live as long as the bibliography.
    Full collections still see them.  Left alone when something else holds objects frozen.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()  # every tracked object to the permanent generation ...
        gc.unfreeze()  # ... and from there into the oldest one


def keys_on_comment_lines(text: str, entries: Sequence[Entry]) -> frozenset[str]:
    """Keys of the ``entries`` whose ``@`` follows a ``%`` on its line.  biber and pandoc
    read such a line as a comment, so the entry does not exist for them; BibTeX, which has
    no comment character, reads it (and so does :func:`parse_bibtex`)."""
    if "%" not in text:
        return frozenset()
    found: set[str] = set()
    kept: set[str] = set()  # a key also defined by an entry on an ordinary line stays
    for entry in entries:
        at = entry.span.start
        if text.find("%", text.rfind("\n", 0, at) + 1, at) >= 0:
            found.add(entry.key)
        else:
            kept.add(entry.key)
    return frozenset(found - kept)


def parse_bibtex(path: Path, text: str) -> ParsedBibliography:
    """Read a .bib file's text into entries, @string macros and problems (never raises)."""
    with _no_gc():
        return _parse(path, text)


def _parse(path: Path, text: str) -> ParsedBibliography:
    scanner = _Scanner(path, text, {})
    scanner.scan(0)
    return _result(
        scanner, tuple(scanner.entries), tuple(scanner.problems), frozenset(_suppressed(text))
    )


def _result(
    scanner: _Scanner,
    entries: Sequence[Entry],
    problems: tuple[Finding, ...],
    suppressed: frozenset[int],
    defs: tuple[tuple[int, str, str], ...] | None = None,
    reused: tuple[int, int, int] | None = None,
) -> ParsedBibliography:
    complete = not any(p.code in _INCOMPLETE for p in problems)
    return ParsedBibliography(
        path=scanner.path,
        format=BibFormat.BIBTEX,
        entries=entries,
        strings=_StringTable(tuple(scanner.string_defs) if defs is None else defs),
        suppressed_lines=suppressed,
        problems=problems,
        complete=complete,
        reused=reused,
    )


_INCOMPLETE = frozenset({Code.BIB_SYNTAX})


_CHUNK = 1 << 18


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b`` (chunked C comparisons, one copy)."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n:
        hi = min(n, lo + _CHUNK)
        if b.startswith(a[lo:hi], lo):
            lo = hi
            continue
        while hi - lo > 32:  # the first difference is in [lo, hi)
            mid = (lo + hi) // 2
            if b.startswith(a[lo:mid], lo):
                lo = mid
            else:
                hi = mid
        while lo < hi and a[lo] == b[lo]:
            lo += 1
        return lo
    return n


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    la, lb = len(a), len(b)
    k = 0
    while k < limit:
        m = min(limit, k + _CHUNK)
        if b.endswith(a[la - m : la - k], 0, lb - k):
            k = m
            continue
        lo, hi = k, m  # common suffix length is in [lo, hi)
        while hi - lo > 32:
            mid = (lo + hi) // 2
            if b.endswith(a[la - mid : la - lo], 0, lb - lo):
                lo = mid
            else:
                hi = mid
        while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
            lo += 1
        return lo
    return limit


def reparse_bibtex(
    old: ParsedBibliography,
    old_text: str,
    new_text: str,
    changed: tuple[int, int, int] | None = None,
) -> ParsedBibliography:
    """Re-read ``new_text`` reusing ``old`` (the parse of ``old_text``) outside the edit.

    Only the entries that overlap the changed region are read again; those after it are
    shifted.  The result equals ``parse_bibtex(old.path, new_text)``.  Edits that touch an
    @string definition, or an ``old`` not made by :func:`parse_bibtex`, fall back to a full
    parse.

    ``changed`` may give the edited region when the caller already knows it (an editor's
    change event): ``(start, old_end, new_end)`` with ``old_text[start:old_end]`` replaced
    by ``new_text[start:new_end]`` and the rest equal; a larger region is fine.  Without it
    the region is found by comparing the texts.
    """
    with _no_gc():
        return _reparse(old, old_text, new_text, changed)


def _reparse(
    old: ParsedBibliography,
    old_text: str,
    new_text: str,
    changed: tuple[int, int, int] | None,
) -> ParsedBibliography:
    path = old.path
    if old.format is not BibFormat.BIBTEX or not isinstance(old.strings, _StringTable):
        return _parse(path, new_text)
    delta = len(new_text) - len(old_text)
    if changed is not None and _plausible(changed, len(old_text), len(new_text)):
        prefix, old_end, _ = changed
    else:
        if old_text == new_text:
            return old
        prefix = _common_prefix(old_text, new_text)
        suffix = _common_suffix(old_text, new_text, min(len(old_text), len(new_text)) - prefix)
        old_end = len(old_text) - suffix  # old[prefix:old_end] became new[prefix:old_end+delta]

    entries = old.entries
    starts = _EntryStarts(entries)
    # Restart at the last entry that starts strictly before the change (a top-level point).
    # Reading the entry before it may have looked at its "@type{" (to find where a broken
    # entry ends), so when the change touches that header, restart one entry earlier.
    i = bisect.bisect_left(starts, prefix) - 1
    while i >= 0 and prefix <= entries[i].key_span.start:
        i -= 1
    restart = starts[i] if i >= 0 else 0
    first_reused_before = i if i >= 0 else 0  # entries[:first] are kept as they are
    # Candidate resume points: old entry starts at or after the change, shifted.
    j = bisect.bisect_left(starts, old_end)
    stops = [starts[k] + delta for k in range(j, min(len(entries), j + 256))]

    table = old.strings
    scanner = _Scanner(path, new_text, table.before(restart))
    resume = scanner.scan(restart, stops)
    if resume >= len(new_text):
        resume_old = len(old_text)
        k = len(entries)
    else:
        resume_old = resume - delta
        k = bisect.bisect_left(starts, resume_old)
    # Any @string in the re-read region changes what later entries expand to: read it all.
    if scanner.string_defs or _STRING_BLOCK.search(old_text, restart, resume_old):
        return _parse(path, new_text)

    head = first_reused_before
    tail = len(entries) - k
    new_entries = splice(entries, head, k, scanner.entries, delta, _shifted)

    before = [f for f in old.problems if f.location.span.start < restart]
    after = (
        [moved_finding(f, delta) for f in old.problems if f.location.span.start >= resume_old]
        if resume < len(new_text)
        else []  # read to the end: nothing of the old parse is reused after the edit
    )
    problems = (*before, *scanner.problems, *after)

    window = new_text[max(0, restart - 64) : resume].lower()
    if old.suppressed_lines or "citewarden:" in window:
        suppressed = frozenset(_suppressed(new_text))
    else:
        suppressed = frozenset()
    defs = tuple((o + delta if o >= resume_old else o, nm, v) for o, nm, v in table._defs)
    return _result(scanner, new_entries, problems, suppressed, defs, (id(entries), head, tail))


def _plausible(changed: tuple[int, int, int], old_len: int, new_len: int) -> bool:
    start, old_end, new_end = changed
    return (
        0 <= start <= old_end <= old_len
        and start <= new_end <= new_len
        and old_len - old_end == new_len - new_end
    )


class _EntryStarts:
    """Sequence view of entry start offsets, for bisect without building a list."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Sequence[Entry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i: int) -> int:
        entries = self._entries
        if isinstance(entries, EntryRuns):
            e, delta = entries.unmoved(i)
        else:
            e, delta = entries[i], 0
        if type(e) is _LazyEntry:
            return e._r[_R_START] + e._d + delta  # type: ignore[attr-defined,no-any-return]
        return e.span.start + delta
