"""The BibTeX scanner: blocks, entries, fields and values read with exact spans and error
recovery, the common entries in C when the extension was built (:mod:`citewarden.parsing._bibscan`).

One state machine over the text (:class:`_Scanner`): the top level and the fast lanes of
the common entries here, blocks, ``@string`` definitions and entries token by token in its
base (:class:`~citewarden.parsing.bibtex_blocks._BlockScanner`), fields and values in that
one's base (:class:`~citewarden.parsing.bibtex_fields._FieldScanner`); their methods share
the position, the macro table and the findings of one read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from citewarden.parsing.bib_comments import on_comment_line
from citewarden.parsing.bibtex_blocks import _BlockScanner
from citewarden.parsing.bibtex_entries import _lazy_entry
from citewarden.parsing.bibtex_fields import (
    _LOWER,
    _NAMES,
    _Abort,
    _describe,
    _field_names,
    _lower,
)
from citewarden.parsing.bibtex_patterns import (
    _BLOCK,
    _HEAD,
    _LINE_BLOCK,
    _PARTS,
    _ROWS,
    _SPECIAL,
    EMPTY_ROW,
    MAX_EXPANSION,
    MONTH_MACROS,
)

#: Characters the C extension reads per call (a few milliseconds' work).
_C_SLICE = 1 << 18

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


#: what the rows of ``_ROWS`` after an empty row can read and still be empty rows only
_GAP_REST = re.compile(r"[\s%]*")
#: the rows read after an empty row, at most (each may read the rest of a long gap again)
_ROWS_AFTER_GAP = 64


def _rows(text: str, body: int, limit: int) -> list[tuple[str, ...]] | None:
    """``_ROWS.findall(text, body, limit)``, read only as far as the reader needs it: once
    an empty row (white space and comments) is read, the rest is empty rows only if it is
    white space and ``%`` alone, which one match tells, and otherwise the reader takes the
    slow path unless the entry stands on a comment line, whose rows after a gap are read on
    (at most ``_ROWS_AFTER_GAP`` of them; more: None, the slow path).  Each row after a gap
    may read the whole gap again, so reading them all made a long run of comment lines in
    an entry quadratic."""
    rows: list[tuple[str, ...]] = []
    after = -1
    for m in _ROWS.finditer(text, body, limit):
        row = m.groups("")
        rows.append(row)
        if after >= 0:
            after += 1
            if after > _ROWS_AFTER_GAP:
                return None
        elif row == EMPTY_ROW:
            end = m.end()
            rest = _GAP_REST.match(text, end, limit)
            if rest is not None and rest.end() == limit:
                return rows  # the rest would read as empty rows only
            after = 0
    return rows


class _Scanner(_BlockScanner):
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
                # a slice at a time: the call holds the interpreter lock, which the
                # language server's other threads need to answer meanwhile
                stop = min(stop, pos + _C_SLICE)
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
        rows = _rows(text, body, limit)
        if rows is None:
            return None
        if EMPTY_ROW in rows:
            after = rows[rows.index(EMPTY_ROW) + 1 :]
            if after.count(EMPTY_ROW) != len(after) and not on_comment_line(text, at):
                # rows read in a comment's text (the entry's "}" is in a comment): the slow
                # path says it is not closed, as biber and pandoc read it (an entry on a
                # commented-out line is read as before: keys_on_comment_lines)
                return None
            rows = [row for row in rows if row != EMPTY_ROW]
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
        that expands to its own name); None when one is undefined or longer than
        :data:`MAX_EXPANSION`: the slow path reports it at its place."""
        expanded: list[str | None] = []
        for name in macro:
            exp = self._macro_value(name.lower()) if name else None
            if name and (exp is None or len(exp) > MAX_EXPANSION):
                return None  # undefined or too long: the slow path reports it
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
                    if exp is None or len(exp) > MAX_EXPANSION:
                        return None  # the slow path reports it (undefined or too long)
                    if exp == name:
                        exp = None
                out_values.append(values[i])
                out_exps.append(exp)
                continue
            grown = 0  # characters the macros bring into the value
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
                grown += len(found)
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
                    grown += len(found)
                else:
                    parts.append(b or q or n)
            if grown > MAX_EXPANSION:
                return None  # the macros expand too far: the slow path reports it
            value = first + rest
            joined = "".join(parts)
            out_values.append(value)
            out_exps.append(joined if joined != value else None)
        return tuple(out_values), tuple(out_exps)


if _bibscan is not None:
    _bibscan.configure(_LOWER, _lower, _NAMES, _field_names, dict(MONTH_MACROS), MAX_EXPANSION)
