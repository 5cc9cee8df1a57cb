"""Where a CSL item lies in its file's text (pure): the item as a document the CSL reader
reads alone, where a YAML item's content ends, and what removing it takes."""

from __future__ import annotations

import re
from typing import Any

from citewarden.model import Entry, Span
from citewarden.text import line_start_before, next_line_start


def is_json(entry: Entry) -> bool:
    """An item of a CSL-JSON file (else of CSL-YAML: a file, or a document's front matter)."""
    return entry.path.suffix.lower() == ".json"


def item_region(text: str, entry: Entry) -> tuple[int, str] | None:
    """``(offset, text)`` of the item as a document the CSL reader reads alone: a JSON
    array of it, or a YAML list of it (its own ``- `` line, or one made for a flow mapping);
    None when its layout is neither."""
    start, end = entry.span.start, entry.span.end
    if is_json(entry):
        return start - 1, "[" + text[start:end] + "]"
    if text[start : start + 1] == "{":
        return start - 2, "- " + text[start:end]
    head_start = line_start_before(text, start)
    if re.fullmatch(r"[ ]*-[ ]+", text[head_start:start]):
        return head_start, text[head_start:end]
    return None


def composed_item(region: str) -> Any:
    """The item node of a YAML list of one item (None when it is not one)."""
    import yaml

    from citewarden.parsing.csl import YAML_LOADER

    try:
        root = yaml.compose(region, Loader=YAML_LOADER)
    except yaml.YAMLError:
        return None
    if not isinstance(root, yaml.SequenceNode) or len(root.value) != 1:
        return None
    return root.value[0]


def block_content_end(region: str) -> int | None:
    """In a YAML list of one block-mapping item, where the item's content ends."""
    from citewarden.parsing.csl import content_end

    item = composed_item(region)
    return None if item is None else content_end(item)


#: A YAML anchor (``&name`` where a node starts), which an alias elsewhere may name.
_ANCHOR = re.compile(r"(?:^|(?<=[\s:\-\[{,]))&[^\s,\[\]{}]")


def _skip_blank(text: str, at: int, step: int) -> int:
    """The first index from ``at`` (going by ``step``) whose character is not white space
    (``-1`` or ``len(text)`` past either end)."""
    while 0 <= at < len(text) and text[at] in " \t\r\n":
        at += step
    return at


def item_removal(text: str, entry: Entry) -> tuple[Span, int] | None:
    """The text that removing the item takes, and how far that was read (see
    :func:`citewarden.project.removal_extent`): in CSL-JSON the object with the comma that
    separates it from the next item (else from the previous one), in CSL-YAML the lines of
    an item that starts its own ``- `` line, to the end of its content's line; None for any
    other layout (an item of a flow list)."""
    start, end = entry.span.start, entry.span.end
    if is_json(entry):
        after = _skip_blank(text, end, 1)
        before = _skip_blank(text, start - 1, -1)
        if after < len(text) and text[after] == ",":
            nxt = _skip_blank(text, after + 1, 1)
            return Span(start, nxt), nxt + 1
        if before >= 0 and text[before] == "," and after < len(text) and text[after] == "]":
            return Span(before, end), end + 1
        if before >= 0 and text[before] == "[" and after < len(text) and text[after] == "]":
            return Span(before + 1, after), after + 1
        return None
    line = line_start_before(text, start)
    if not re.fullmatch(r"[ ]*-[ ]+", text[line:start]):
        return None
    if text[start : start + 1] == "{":
        content = end
    else:
        found = block_content_end(text[line:end])
        if found is None:
            return None
        content = line + len(text[line : line + found].rstrip())
    stop = next_line_start(text, content)
    stop = len(text) if stop < 0 else stop
    if _ANCHOR.search(text, line, stop):  # another item's alias may name it
        return None
    return Span(line, stop), stop + 1
