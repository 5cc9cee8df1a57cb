"""Where things are in a CSL item of a file (pure): the item as a document the CSL reader
reads alone, its members' names, where a YAML value's content ends, and the values an edit
must not touch (a YAML anchor, tag or alias)."""

from __future__ import annotations

import json
import re
from typing import Any

from citewarden.model import Entry, Field
from citewarden.parsing.csl_regions import (
    block_content_end,
    composed_item,
    is_json,
    item_region,
)

__all__ = [
    "block_content_end",
    "composed_item",
    "is_json",
    "item_region",
    "member_names",
    "untouchable",
    "value_content_end",
]


def value_content_end(text: str, entry: Entry, f: Field) -> int | None:
    """Where the content of the YAML value of ``f`` ends (a block list's own end lies at
    the next key)."""
    import yaml

    from citewarden.parsing.csl import content_end

    region = item_region(text, entry)
    item = composed_item(region[1]) if region is not None else None
    if region is None or not isinstance(item, yaml.MappingNode):
        return None
    for _, node in item.value:
        if region[0] + node.start_mark.index == f.value_span.start:
            return region[0] + int(content_end(node))
    return None


def member_names(text: str, entry: Entry) -> set[str] | None:
    """The case-folded names of the item's members, whatever their values (an empty
    ``DOI:``, a null, a date the reader takes no year from); None when not read."""
    region = item_region(text, entry)
    if region is None:
        return None
    if is_json(entry):
        tops: list[list[tuple[str, Any]]] = []

        def pairs(found: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
            tops.append(found)
            return found

        try:
            items = json.loads(region[1], object_pairs_hook=pairs)
        except ValueError:
            return None
        if not isinstance(items, list) or len(items) != 1 or not isinstance(items[0], list):
            return None
        return {str(name).casefold() for name, _ in items[0]}
    import yaml

    item = composed_item(region[1])
    if not isinstance(item, yaml.MappingNode):
        return None
    return {str(key.value).casefold() for key, _ in item.value}


def untouchable(text: str, entry: Entry, f: Field) -> str | None:
    """Why the value of ``f`` must not be edited in place, or None: written elsewhere (a
    YAML alias of another item's value), or carrying an anchor another value may name, or
    a tag."""
    if not (entry.span.start <= f.value_span.start <= f.value_span.end <= entry.span.end):
        return "the value is another item's (a YAML alias); edit it by hand"
    head = text[f.name_span.end : f.value_span.start]  # ": ", maybe "&a ", "!tag ", a quote
    first = "" if head.endswith(('"', "'")) else text[f.value_span.start : f.value_span.start + 1]
    if not is_json(entry) and (re.search(r"[&!]", head) or first in ("&", "!")):
        return "the value carries a YAML anchor or tag; edit it by hand"
    return None
