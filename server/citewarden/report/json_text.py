"""JSON text written in pieces, as ``json.dumps(value, indent=2)`` writes it, character for
character, but with the C encoder and without holding the whole text.

``json.dumps`` with an ``indent`` runs the pure-Python encoder, which makes a string of
every token and joins them at the end: a report of 300 000 citations took half a minute
and well over a gigabyte.  Here each container whose members are all scalars (or empty
containers), which is nearly every one of a report, is one call of the C encoder whose
item separator carries the line break and the indentation; only the containers above
them are walked in Python.  A :class:`Streamed` list (a SARIF log's results) is written
as its members come, so that it is never held whole either.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable, Iterator
from typing import Any

#: about how many characters each piece given out holds
PIECE = 1 << 16

_Container = dict[Any, Any] | list[Any] | tuple[Any, ...]


class Streamed:
    """A list whose members are made as it is written (:func:`indented_json` writes it as
    ``json.dumps`` writes the list of them), so that no more than a piece of it is held at
    once; it is written once."""

    __slots__ = ("members",)

    def __init__(self, members: Iterable[Any]) -> None:
        self.members = members


_CONTAINERS = frozenset((dict, list, tuple, Streamed))
_END = object()


def _is_flat(value: _Container) -> bool:
    """Whether no member of ``value`` is a container (an empty one neither: it is written
    ``[]`` or ``{}`` either way; a :class:`Streamed` one, whose members are not known yet,
    counts as full)."""
    members = value.values() if isinstance(value, dict) else value
    if _CONTAINERS.isdisjoint(map(type, members)):
        return True
    return not any(
        type(m) is Streamed or (isinstance(m, dict | list | tuple) and m) for m in members
    )


class _Encoder:
    def __init__(self, ensure_ascii: bool, indent: int) -> None:
        self.ensure_ascii = ensure_ascii
        self.indent = indent
        self.scalar = json.JSONEncoder(ensure_ascii=ensure_ascii, check_circular=False)
        self.flat: dict[int, json.JSONEncoder] = {}

    def _pad(self, depth: int) -> str:
        return "\n" + " " * (self.indent * depth)

    def _flat(self, value: _Container, depth: int) -> str:
        encoder = self.flat.get(depth)
        if encoder is None:
            separators = ("," + self._pad(depth + 1), ": ")
            encoder = json.JSONEncoder(
                ensure_ascii=self.ensure_ascii, check_circular=False, separators=separators
            )
            self.flat[depth] = encoder
        text = encoder.encode(value)
        return f"{text[0]}{self._pad(depth + 1)}{text[1:-1]}{self._pad(depth)}{text[-1]}"

    def _key(self, key: Any) -> str:
        if not isinstance(key, str):  # made a string, as json.dumps makes a key one
            key = "null" if key is None else self.scalar.encode(key)
        return self.scalar.encode(key)

    def walk(self, value: Any, depth: int) -> Iterator[str]:
        if type(value) is Streamed:
            members = iter(value.members)
            first = next(members, _END)
            if first is _END:
                yield "[]"
            else:
                yield from self._list(itertools.chain((first,), members), depth)
            return
        if not isinstance(value, dict | list | tuple) or not value:
            yield self.scalar.encode(value)
            return
        if _is_flat(value):
            yield self._flat(value, depth)
            return
        if isinstance(value, dict):
            pad = "," + self._pad(depth + 1)
            yield "{"
            for i, (key, member) in enumerate(value.items()):
                yield f"{pad[i == 0 :]}{self._key(key)}: "
                yield from self.walk(member, depth + 1)
            yield self._pad(depth) + "}"
        else:
            yield from self._list(value, depth)

    def _list(self, members: Iterable[Any], depth: int) -> Iterator[str]:
        """A list of at least one member, the members taken as they come."""
        pad = "," + self._pad(depth + 1)
        yield "["
        for i, member in enumerate(members):
            yield pad[i == 0 :]
            if type(member) is dict and member and _is_flat(member):  # a report's row
                yield self._flat(member, depth + 1)
            else:
                yield from self.walk(member, depth + 1)
        yield self._pad(depth) + "]"


def indented_json(value: Any, *, ensure_ascii: bool = False, indent: int = 2) -> Iterator[str]:
    """The text of ``json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)`` in pieces
    of about :data:`PIECE` characters; no string of the data is cut between two."""
    held: list[str] = []
    size = 0
    for piece in _Encoder(ensure_ascii, indent).walk(value, 0):
        held.append(piece)
        size += len(piece)
        if size >= PIECE:
            yield "".join(held)
            held.clear()
            size = 0
    if held:
        yield "".join(held)
