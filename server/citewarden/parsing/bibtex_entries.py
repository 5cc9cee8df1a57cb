"""Lazy BibTeX entries (fields built on first access, spans moved by a shift) and the
``@string`` table of a read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from citewarden.model import (
    Entry,
    Field,
    Span,
    sound_span,
)
from citewarden.parsing.bibtex_patterns import _ROW_POS, _ROWS, EMPTY_ROW

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
        if m is None:  # the rows were read where this pattern skips a comment
            return _row_positions(raw, body, count)
        g = 2 if m.start(2) != -1 else 3 if m.start(3) != -1 else 4
        if m.end(5) != m.start(5):  # a concatenation: its span covers the delimiters
            out += (m.start(1), m.end(1), m.start(g) - (g != 4), m.end(5))
        else:
            out += (m.start(1), m.end(1), m.start(g), m.end(g))
        pos = m.end()
    return tuple(out)


def _row_positions(raw: str, body: int, count: int) -> tuple[int, ...]:
    """:func:`_positions` read with the reader's own row pattern, row for row.

    An entry whose body ends in a gap of comments is read by the row pattern from inside a
    comment's text (``@article{g, % title = {X}}``): the positions pattern, which skips a
    comment whole, does not find those fields, so they are found as the reader found them.
    """
    out: list[int] = []
    for m in _ROWS.finditer(raw, body):
        if len(out) == 4 * count:
            break
        if m.start(1) == -1:  # the closing row, or an empty row of a gap
            if m.groups("") != EMPTY_ROW:
                break
            continue
        g = next(i for i in (2, 3, 4, 5) if m.start(i) != -1)
        if m.end(6) != m.start(6):  # a concatenation: its span covers the delimiters
            out += (m.start(1), m.end(1), m.start(g) - (g < 4), m.end(6))
        else:
            out += (m.start(1), m.end(1), m.start(g), m.end(g))
    if len(out) != 4 * count:
        raise ValueError("entry text changed since it was read")
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

    @property  # type: ignore[misc]
    def csl_type(self) -> str | None:  # type: ignore[override]
        return None

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
    """``@string`` macros by lower-case name (the file's own); also remembers where each
    was defined, and the macros the file was read with from other files (``inherited``)."""

    __slots__ = ("_defs", "_values", "inherited")

    def __init__(
        self,
        defs: tuple[tuple[int, str, str], ...],
        inherited: tuple[tuple[str, str], ...] = (),
    ) -> None:
        self._defs = defs  # (offset of '@', name, expanded value) in file order
        self._values = {name: value for _, name, value in defs}
        self.inherited = inherited

    def __getitem__(self, name: str) -> str:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"StringTable({self._values!r})"

    def before(self, offset: int) -> dict[str, str]:
        """The macros in force at ``offset``: the inherited ones, then the file's own
        defined before it."""
        found = dict(self.inherited)
        found.update((name, value) for at, name, value in self._defs if at < offset)
        return found
