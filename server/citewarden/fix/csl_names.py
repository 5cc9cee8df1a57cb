"""A CSL name list written over the one an item has, in the layout of the list it replaces
(pure): a JSON array on one line or one member per line at the file's indentation, a YAML
flow list, or a YAML block list (``- family: ...`` lines under the first ``-``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from citewarden.fix.plan import Edit
from citewarden.text import line_ending, line_start_before

#: The order a name's parts are written in.
_PARTS = ("family", "given", "non-dropping-particle", "dropping-particle", "suffix", "literal")

Person = dict[str, str]


def _ordered(person: Person) -> Person:
    """The parts of a name in the order they are written (unknown ones last)."""
    rank = {part: i for i, part in enumerate(_PARTS)}
    return {k: person[k] for k in sorted(person, key=lambda k: (rank.get(k, len(rank)), k))}


def _indent(text: str, at: int) -> str:
    head = text[line_start_before(text, at) : at]
    return head[: len(head) - len(head.lstrip(" \t"))]


def json_names(text: str, start: int, end: int, people: Sequence[Person]) -> Edit | str:
    """The edit writing ``people`` over the JSON array ``text[start:end]``."""
    written = text[start:end]
    if not (written.startswith("[") and written.endswith("]")):
        return "the names are not written as a list; edit them by hand"
    ordered = [_ordered(p) for p in people]
    if "\n" not in written and "\r" not in written:
        return Edit(start, end, json.dumps(ordered, ensure_ascii=False))
    member = _indent(text, start)
    inner = re.match(r"\[[ \t]*\r?\n?\r?([ \t]*)", written)
    unit = inner.group(1)[len(member) :] if inner and inner.group(1).startswith(member) else ""
    if not unit or (unit.strip(" ") and unit.strip("\t")):
        unit = "  "
    lines = json.dumps(ordered, indent=unit, ensure_ascii=False).split("\n")
    newline = line_ending(written, "") or line_ending(text)
    return Edit(start, end, lines[0] + "".join(newline + member + line for line in lines[1:]))


def yaml_names(
    text: str,
    start: int,
    end: int,
    people: Sequence[Person],
    scalar: Callable[[str], str],
) -> Edit | str:
    """The edit writing ``people`` over the YAML list at ``text[start:end]`` (``end``: where
    its content ends), each value written by ``scalar``."""
    ordered = [_ordered(p) for p in people]
    first = text[start : start + 1]
    if first == "[":
        return Edit(start, end, json.dumps(ordered, ensure_ascii=False))
    if first != "-":
        return "the names are not written as a list; edit them by hand"
    column = " " * (start - line_start_before(text, start))
    if text[line_start_before(text, start) : start].strip():
        return "the names' list does not start its own line; edit them by hand"
    return Edit(start, end, block_list(people, column, line_ending(text), scalar))


def block_list(
    people: Sequence[Person], column: str, newline: str, scalar: Callable[[str], str]
) -> str:
    """``people`` as a YAML block list whose ``-`` are at ``column`` (the first line without
    it: it starts where the list goes)."""
    lines: list[str] = []
    for person in people:
        for i, (part, value) in enumerate(_ordered(person).items()):
            lines.append(f"{'- ' if i == 0 else '  '}{part}: {scalar(value)}")
    return (newline + column).join(lines)
