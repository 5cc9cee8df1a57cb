"""Reading BibTeX blocks token by token: ``@comment``, ``@preamble``, ``@string``
definitions and entries, with exact spans, error recovery and the syntax errors of each
(the slow path of the scanner in :mod:`citewarden.parsing.bibtex_scan`, which reads the
common entries in its fast lanes first).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from citewarden.model import Code
from citewarden.parsing.bibtex_entries import _lazy_entry
from citewarden.parsing.bibtex_fields import _Abort, _describe, _FieldScanner
from citewarden.parsing.bibtex_patterns import (
    _F_EXP,
    _F_NE,
    _F_NS,
    _F_VALUE,
    _F_VE,
    _F_VS,
    _F_WIDTH,
    _KEY_BRACE,
    _KEY_PAREN,
    _KEY_WITH_EQUALS,
    _NAME,
    _SPACE,
    MAX_STRING_DEPTH,
)


class _BlockScanner(_FieldScanner):
    """The blocks of a .bib file read token by token (the base of
    :class:`~citewarden.parsing.bibtex_scan._Scanner`)."""

    if TYPE_CHECKING:  # the fast lane of the scanner

        def _fast_entry(
            self, at: int, etype: str, key: str, ks: int, ke: int, body: int
        ) -> int | None: ...

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

    # -- comments and preambles ---------------------------------------------------------

    def _comment(self, m: re.Match[str]) -> int:
        """BibTeX reads the word ``@comment`` and nothing after it: reading goes on right
        there, so an entry in what looks like its argument (``@comment{@misc{x, ...}}``)
        is read (biber and pandoc skip the group: ``keys_in_comments``)."""
        return m.end(1)

    def _preamble(self, m: re.Match[str]) -> int:
        end = self._skip_group(m)
        if end == -1:
            close = "}" if m.group(2) == "{" else ")"
            raise _Abort(m.end() - 1, m.end(), f"@preamble is not closed: missing '{close}'")
        return end

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
        else:
            if c == "":
                abort = _Abort(pos, pos, f"unexpected end of file after the key of entry '{key}'")
            else:
                abort = _Abort(
                    pos,
                    pos + 1,
                    f"expected ',' after the key of entry '{key}', found {_describe(text, pos)}",
                )
            if not key:
                raise abort
            # BibTeX has stored the key when it finds no ',' after it: the entry (without
            # fields) is defined ("I was expecting a `,' or a `}'", yet it is in the .bbl)
            return self._keep_key(m, etype, key, ks, ke, pos, self._fail(abort, at))

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

    def _keep_key(
        self, m: re.Match[str], etype: str, key: str, ks: int, ke: int, pos: int, resync: int
    ) -> int:
        """Add the entry ``key`` whose fields could not be read (an error right after its
        key), ending where reading resumes at ``resync``; return ``resync``."""
        at = m.start()
        stop = resync
        while stop > at and self.text[stop - 1] in " \t\r\n":
            stop -= 1
        self._add_entry(etype, key, at, max(stop, pos), ks - at, ke - at, (), (), None, None, ())
        return resync

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
