"""Reading BibTeX values and fields token by token: balanced groups, quoted and braced
values, macros and concatenations, every field of an entry with its spans, and the syntax
errors of each (the base of the scanner in :mod:`citewarden.parsing.bibtex_scan`).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

from citewarden.model import Code, Entry, Finding, Location, Related, sound_span
from citewarden.parsing.bibtex_patterns import (
    _BRACE,
    _F_NAME,
    _F_NE,
    _F_NS,
    _F_VALUE,
    _F_VS,
    _F_WIDTH,
    _FIELD_AFTER_CLOSE,
    _GAP_RE,
    _MACRO,
    _NAME,
    _NAME_EQ,
    _NL_AT,
    _NL_BLOCK,
    _NUMBER,
    _QUOTE_OR_BRACE,
    _SPACE,
    _SWALLOWED,
    MAX_EXPANSION,
    MONTH_MACROS,
)

#: a closing brace in a '%' comment (of a gap: line by line, never across a line break)
_COMMENTED_CLOSE = re.compile(r"%[^\n}]*\}")


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


def _too_long(field: str) -> str:
    """The error on a value whose macros expand past :data:`MAX_EXPANSION` (literal text,
    bounded by the size of the file, does not count)."""
    return (
        f"the value of '{field}' expands to more than {MAX_EXPANSION:,} characters of "
        "@string macros (macros repeated inside one another?); it is not read"
    )


class _FieldScanner:
    """The scanner's state over one text and its field- and value-level reading."""

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
        grown = 0  # characters the macros brought into the value so far
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
                grown += len(parts[-1])
                if grown > MAX_EXPANSION:
                    raise _Abort(first_start if count else start, pos, _too_long(field))
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
                why = f"missing '{close}' before the next entry"
                if _COMMENTED_CLOSE.search(text, gap.start(), pos) is not None:
                    why = (
                        f"its '{close}' is in a '%' comment (biber and pandoc read a '%' "
                        "comment to the end of the line; BibTeX stops at the '%')"
                    )
                raise _Abort(back, back, f"entry '{key}' is not closed: {why}", resync=pos)
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
