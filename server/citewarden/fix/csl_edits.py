"""The edits of one CSL item (pure): a value written over the one there, quoted as that one
is; a member added after the last one, in the item's layout; a name list written over the
one there (:mod:`citewarden.fix.csl_names`)."""

from __future__ import annotations

import functools
import json
import re

from citewarden.fix.csl_layout import (
    block_content_end,
    is_json,
    item_region,
    value_content_end,
)
from citewarden.fix.csl_names import Person, block_list, json_names, yaml_names
from citewarden.fix.csl_values import is_number, json_string, yaml_plain_ok, yaml_scalar
from citewarden.fix.plan import Edit
from citewarden.model import Entry, Field
from citewarden.text import count_line_breaks, line_ending, line_start_before

YEAR = re.compile(r"[0-9]{4}")


@functools.lru_cache(maxsize=2)
def file_newline(text: str) -> str:
    """The line break ``text`` uses (found once per text)."""
    return line_ending(text)


#: Variables a new member writes as a bare number when the value is one.
_NUMBERS = frozenset({"volume", "issue", "edition", "number"})


def replace_value(text: str, entry: Entry, f: Field, value: str) -> Edit | str:
    """The edit writing ``value`` (as the file's text should hold it) over ``f``'s value,
    or why there is none."""
    start, end = f.value_span.start, f.value_span.end
    before = text[start - 1] if start > 0 else ""
    after = text[end : end + 1]
    if f.name == "year":
        if not (YEAR.fullmatch(text[start:end]) and YEAR.fullmatch(value)):
            return "the date is not written as a number or a year; edit it by hand"
        return Edit(start, end, value)
    if before == '"' and after == '"':  # a JSON string, a YAML double-quoted scalar
        return Edit(start, end, json_string(value)[1:-1])
    if is_json(entry):  # a bare JSON number
        return Edit(start, end, value if is_number(value) else json_string(value))
    if before == "'" and after == "'":
        return Edit(start, end, value.replace("'", "''"))
    if text[start : start + 1] in ("|", ">"):
        return "the value is a YAML block scalar; edit it by hand"
    in_flow = text[entry.span.start : entry.span.start + 1] == "{"
    if is_number(value) or yaml_plain_ok(value, in_flow):
        return Edit(start, end, value)
    return Edit(start, end, json_string(value))


def replace_names(text: str, entry: Entry, f: Field, people: list[Person]) -> Edit | str:
    """The edit writing ``people`` over the name list ``f``, or why there is none."""
    start, end = f.value_span.start, f.value_span.end
    if is_json(entry):
        return json_names(text, start, end, people)
    if text[start : start + 1] == "-":
        found = value_content_end(text, entry, f)
        if found is None:
            return "the item's layout was not understood; edit the names by hand"
        end = start + len(text[start:found].rstrip())  # a block scalar's breaks stay
    return yaml_names(text, start, end, people, yaml_scalar)


def _member(variable: str, value: str | list[Person], yaml_block: bool) -> str:
    """The new member ``variable: value``: JSON (which a YAML flow mapping reads too), or in
    a YAML block mapping a plain key and the value plain where it reads back the same."""
    if not isinstance(value, str):  # names: a JSON array, a YAML flow list
        rendered = json.dumps(value, ensure_ascii=False)
    elif variable == "issued":
        rendered = '{"date-parts": [[' + value + "]]}"
    elif (variable in _NUMBERS and is_number(value)) or (
        yaml_block and yaml_plain_ok(value, in_flow=False)
    ):
        rendered = value
    else:
        rendered = json_string(value)
    if yaml_block:
        return f"{variable}: {rendered}"
    return f"{json_string(variable)}: {rendered}"


def _object_end(text: str, close: int) -> int:
    """Just after the last non-blank character before ``close``."""
    at = close
    while at > 0 and text[at - 1] in " \t\r\n":
        at -= 1
    return at


def insert_member(text: str, entry: Entry, variable: str, value: str | list[Person]) -> Edit | str:
    """The edit adding ``variable`` to the item after its last member, or why there is
    none."""
    start, end = entry.span.start, entry.span.end
    newline = line_ending(text[start:end], "") or file_newline(text)
    if is_json(entry) or text[start : start + 1] == "{":  # one object: before its brace
        close = end - 1
        if text[close : close + 1] != "}":
            return "the item's end was not found; add the field by hand"
        at = _object_end(text, close)
        member = _member(variable, value, yaml_block=False)
        head = text[line_start_before(text, entry.key_span.start, start) : entry.key_span.start]
        indent = re.fullmatch(r"([ \t]*)\"?id\"?[ \t]*:[ \t]*[\"']?", head, re.IGNORECASE)
        if indent is not None and count_line_breaks(text, start, close):
            return Edit(at, at, f",{newline}{indent.group(1)}{member}")
        return Edit(at, at, f", {member}")
    region = item_region(text, entry)
    content = block_content_end(region[1]) if region is not None else None
    if region is None or content is None:
        return "the item's layout was not understood; add the field by hand"
    at = _object_end(text, region[0] + content)
    line_end = re.compile(r"[\r\n]").search(text, at)
    at = line_end.start() if line_end is not None else len(text)
    column = " " * (start - line_start_before(text, start))
    if not isinstance(value, str):  # names: a block list under the key
        names = block_list(value, column, newline, yaml_scalar)
        return Edit(at, at, f"{newline}{column}{variable}:{newline}{column}{names}")
    return Edit(at, at, f"{newline}{column}{_member(variable, value, yaml_block=True)}")
