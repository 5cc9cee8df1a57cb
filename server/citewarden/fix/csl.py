"""Anchored corrections written into CSL-JSON and CSL-YAML items (pure).

A correction names a BibTeX field and holds BibTeX text (what the verdict offers for a
.bib); in a CSL item it edits the variable the reader took that field from
(``journal`` -> ``container-title``, ``pages`` -> ``page``, ``year`` -> the year of
``issued``), as plain text quoted the way the value is written: inside its JSON or YAML
double quotes, its YAML single quotes, or as a plain YAML scalar when it reads back the
same (else double-quoted).  A variable the item lacks is added after its last member, in
the item's own layout (one member per line, or all on one line).  Every item edited is
read back alone with the CSL reader: only the planned fields may change, to the planned
values, or nothing is edited.  A name list (``author``, ``editor``) is written as CSL name
objects in the layout of the list it replaces (:mod:`citewarden.fix.csl_names`).  A date
written as text, a YAML block scalar and an arXiv version (CSL has no ``eprint``) are left
to the user, each with its reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citewarden.fix.csl_names import Person, block_list, json_names, yaml_names
from citewarden.fix.plan import Change, Edit, Skipped
from citewarden.model import Entry, Field, Span, TextEdit
from citewarden.safe_text import unsafe_characters
from citewarden.text import count_line_breaks, line_ending, line_start_before

#: A correction's BibTeX field -> the CSL variable added when the item has none.
CSL_VARIABLES: Mapping[str, str] = {
    "title": "title",
    "doi": "DOI",
    "journal": "container-title",
    "journaltitle": "container-title",
    "booktitle": "container-title",
    "volume": "volume",
    "number": "issue",
    "pages": "page",
    "year": "issued",
    "publisher": "publisher",
    "address": "publisher-place",
    "location": "publisher-place",
    "url": "URL",
    "isbn": "ISBN",
    "issn": "ISSN",
    "pmid": "PMID",
    "edition": "edition",
}

#: A correction's BibTeX field -> the field the CSL reader names that variable (see
#: :mod:`citewarden.parsing.csl`), where the two differ.
_READ_AS: Mapping[str, str] = {
    "journaltitle": "journal",
    "booktitle": "journal",
    "location": "address",
}

#: Fields left to the user, and why.
_BY_HAND: Mapping[str, str] = {
    "eprint": "a CSL item has no eprint variable; edit the arXiv identifier by hand",
}
#: Name lists.
_NAMES = frozenset({"author", "editor"})


@dataclass(frozen=True, slots=True)
class Decoding:
    """How a correction's BibTeX text is read (the readers live above this layer)."""

    #: a field's value as plain text (LaTeX decoded, braces dropped)
    text: Callable[[str], str]
    #: a name list as CSL name objects (family, given, particle, suffix, literal)
    names: Callable[[str], list[dict[str, str]]]


#: What a plain YAML scalar may hold to be kept plain (else it is double-quoted): no
#: indicator at its start, no ``: `` or `` #`` inside, no flow punctuation.
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9(][^:#,\[\]{}&*!|>'\"%@`\r\n\t]*")
_YEAR = re.compile(r"[0-9]{4}")
#: Variables a new member writes as a bare number when the value is one.
_NUMBERS = frozenset({"volume", "issue", "edition"})


def csl_value(name: str, value: str, plain: Callable[[str], str]) -> str:
    """A correction's BibTeX text as the plain text a CSL variable holds (``plain`` decodes
    LaTeX); page ranges with a single hyphen, as CSL writes them."""
    text = plain(value)
    if name == "pages":
        text = re.sub(r"\s*[-\u2013\u2014]+\s*", "-", text)
    return text


def csl_correction(name: str, value: str, decoding: Decoding) -> tuple[str, str]:
    """A correction (BibTeX field, BibTeX text) as a CSL item gets it: the variable written
    and its value as plain text (a name list as the CSL reader reads it back)."""
    if name in _NAMES:
        people = decoding.names(value)
        return name, (names_text(people) if people else None) or decoding.text(value)
    return CSL_VARIABLES.get(name, name), csl_value(name, value, decoding.text)


def _is_json(entry: Entry) -> bool:
    return entry.path.suffix.lower() == ".json"


def _yaml_plain_ok(value: str, in_flow: bool) -> bool:
    """Whether ``value`` written as a plain YAML scalar reads back as the same string (not
    a number, a boolean, a date, null ...)."""
    if value != value.strip() or not _PLAIN_SAFE.fullmatch(value):
        return False
    if in_flow and re.search(r"[,\[\]{}]", value):
        return False
    try:  # a number to YAML 1.2 (pandoc's reader: ``1e3``), whatever PyYAML says
        float(value.replace("_", ""))
    except ValueError:
        pass
    else:
        return False
    import yaml

    from citewarden.parsing.csl import YAML_LOADER

    try:
        return bool(yaml.load(value, Loader=YAML_LOADER) == value)
    except yaml.YAMLError:
        return False


def _number(value: str) -> bool:
    return value.isascii() and value.isdigit() and (value == "0" or not value.startswith("0"))


def _replace(text: str, entry: Entry, f: Field, value: str) -> Edit | str:
    """The edit writing ``value`` over ``f``'s value, or why there is none."""
    start, end = f.value_span.start, f.value_span.end
    before = text[start - 1] if start > 0 else ""
    after = text[end : end + 1]
    if f.name == "year":
        if not (_YEAR.fullmatch(text[start:end]) and _YEAR.fullmatch(value)):
            return "the date is not written as a number or a year; edit it by hand"
        return Edit(start, end, value)
    if before == '"' and after == '"':  # a JSON string, a YAML double-quoted scalar
        return Edit(start, end, json.dumps(value, ensure_ascii=False)[1:-1])
    if _is_json(entry):  # a bare JSON number
        return Edit(start, end, value if _number(value) else json.dumps(value, ensure_ascii=False))
    if before == "'" and after == "'":
        return Edit(start, end, value.replace("'", "''"))
    if text[start : start + 1] in ("|", ">"):
        return "the value is a YAML block scalar; edit it by hand"
    in_flow = text[entry.span.start : entry.span.start + 1] == "{"
    if _number(value) or _yaml_plain_ok(value, in_flow):
        return Edit(start, end, value)
    return Edit(start, end, json.dumps(value, ensure_ascii=False))


def _member(variable: str, value: str | list[Person], yaml_block: bool) -> str:
    """The new member ``variable: value``: JSON (which a YAML flow mapping reads too), or in
    a YAML block mapping a plain key and the value plain where it reads back the same."""
    if not isinstance(value, str):  # names: a JSON array, a YAML flow list
        rendered = json.dumps(value, ensure_ascii=False)
    elif variable == "issued":
        rendered = '{"date-parts": [[' + value + "]]}"
    elif (variable in _NUMBERS and _number(value)) or (
        yaml_block and _yaml_plain_ok(value, in_flow=False)
    ):
        rendered = value
    else:
        rendered = json.dumps(value, ensure_ascii=False)
    if yaml_block:
        return f"{variable}: {rendered}"
    return f"{json.dumps(variable)}: {rendered}"


def _item_region(text: str, entry: Entry) -> tuple[int, str] | None:
    """``(offset, text)`` of the item as a document the CSL reader reads alone: a JSON
    array of it, or a YAML list of it (its own ``- `` line, or one made for a flow mapping);
    None when its layout is neither."""
    start, end = entry.span.start, entry.span.end
    if _is_json(entry):
        return start - 1, "[" + text[start:end] + "]"
    if text[start : start + 1] == "{":
        return start - 2, "- " + text[start:end]
    head_start = line_start_before(text, start)
    if re.fullmatch(r"[ ]*-[ ]+", text[head_start:start]):
        return head_start, text[head_start:end]
    return None


def _composed_item(region: str) -> Any:
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


def _block_content_end(region: str) -> int | None:
    """In a YAML list of one block-mapping item, where the item's content ends."""
    from citewarden.parsing.csl import content_end

    item = _composed_item(region)
    return None if item is None else content_end(item)


def _value_content_end(text: str, entry: Entry, f: Field) -> int | None:
    """Where the content of the YAML value of ``f`` ends (a block list's own end lies at
    the next key)."""
    from citewarden.parsing.csl import content_end

    region = _item_region(text, entry)
    item = _composed_item(region[1]) if region is not None else None
    if region is None or item is None or not hasattr(item, "value"):
        return None
    for _, node in item.value if isinstance(item.value, list) else ():
        if region[0] + node.start_mark.index == f.value_span.start:
            return region[0] + int(content_end(node))
    return None


def _yaml_scalar(value: str) -> str:
    return value if _yaml_plain_ok(value, in_flow=False) else json.dumps(value, ensure_ascii=False)


def _replace_names(text: str, entry: Entry, f: Field, people: list[Person]) -> Edit | str:
    """The edit writing ``people`` over the name list ``f``, or why there is none."""
    start, end = f.value_span.start, f.value_span.end
    if _is_json(entry):
        return json_names(text, start, end, people)
    if text[start : start + 1] == "-":
        found = _value_content_end(text, entry, f)
        if found is None:
            return "the item's layout was not understood; edit the names by hand"
        end = found
    return yaml_names(text, start, end, people, _yaml_scalar)


def names_text(people: list[Person]) -> str | None:
    """How the CSL reader reads ``people`` back (``Family, Given and ...``)."""
    from citewarden.parsing.csl import parse_csl_json

    item = json.dumps([{"id": "x", "author": people}], ensure_ascii=False)
    entries = parse_csl_json(Path("names.json"), item).entries
    return entries[0].get("author") if entries else None


def _insert(text: str, entry: Entry, name: str, value: str | list[Person]) -> Edit | str:
    """The edit adding the variable for ``name`` to the item, or why there is none."""
    variable = name if name in _NAMES else CSL_VARIABLES.get(name)
    if variable is None:
        return f"a CSL item has no variable for {name}; add it by hand"
    if name == "year" and not (isinstance(value, str) and _YEAR.fullmatch(value)):
        return "the corrected year is not a year; add it by hand"
    start, end = entry.span.start, entry.span.end
    newline = line_ending(text[start:end], line_ending(text))
    if _is_json(entry) or text[start : start + 1] == "{":  # one object: before its brace
        close = end - 1
        if text[close : close + 1] != "}":
            return "the item's end was not found; add the field by hand"
        at = len(text[:close].rstrip())
        member = _member(variable, value, yaml_block=False)
        head = text[line_start_before(text, entry.key_span.start) : entry.key_span.start]
        indent = re.fullmatch(r"([ \t]*)\"?id\"?[ \t]*:[ \t]*[\"']?", head, re.IGNORECASE)
        if indent is not None and count_line_breaks(text, start, close):
            return Edit(at, at, f",{newline}{indent.group(1)}{member}")
        return Edit(at, at, f", {member}")
    region = _item_region(text, entry)
    content = _block_content_end(region[1]) if region is not None else None
    if region is None or content is None:
        return "the item's layout was not understood; add the field by hand"
    at = region[0] + len(region[1][:content].rstrip())
    line_end = re.compile(r"[\r\n]").search(text, at)
    at = line_end.start() if line_end is not None else len(text)
    column = " " * (start - line_start_before(text, start))
    if not isinstance(value, str):  # names: a block list under the key
        names = block_list(value, column, newline, _yaml_scalar)
        return Edit(at, at, f"{newline}{column}{variable}:{newline}{column}{names}")
    return Edit(at, at, f"{newline}{column}{_member(variable, value, yaml_block=True)}")


def _read_alone(path: Path, region: str) -> Entry | None:
    """The single entry the CSL reader finds in ``region`` (None unless exactly one)."""
    from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml

    parse = parse_csl_json if path.suffix.lower() == ".json" else parse_csl_yaml
    bib = parse(path, region)
    if bib.problems or len(bib.entries) != 1:
        return None
    return bib.entries[0]


def _reads_back(
    text: str, entry: Entry, edits: list[Edit], wanted: Mapping[str, str]
) -> str | None:
    """None when the item, edited, reads back with exactly the ``wanted`` fields changed
    to their values; else why not."""
    region = _item_region(text, entry)
    if region is None:
        return "the item's layout was not understood"
    offset, body = region
    pieces: list[str] = []
    pos = 0
    for e in sorted(edits, key=lambda e: e.start):
        lo, hi = e.start - offset, e.end - offset
        if not 0 <= lo <= hi <= len(body):
            return "an edit falls outside the item"
        pieces += [body[pos:lo], e.text]
        pos = hi
    pieces.append(body[pos:])
    before, after = _read_alone(entry.path, body), _read_alone(entry.path, "".join(pieces))
    if before is None or after is None or before.key != after.key:
        return "the item would not read back as the same item"
    old = {f.name: f.text for f in before.fields}
    new = {f.name: f.text for f in after.fields}
    for name in old.keys() | new.keys():
        want = wanted.get(name)
        if (new.get(name) != want) if want is not None else (old.get(name) != new.get(name)):
            return f"{name} would not come out as planned"
    return None


def entry_edits(
    text: str,
    entry: Entry,
    fields: Mapping[str, str],
    decoding: Decoding,
    changes: list[Change],
    skipped: list[Skipped],
) -> list[Edit]:
    """The edits writing ``fields`` ({BibTeX field: BibTeX text}) into the CSL item
    ``entry`` (whose spans point into ``text``), checked by reading the item back; the
    changes made and the corrections skipped are appended."""
    names = {n.lower() for n in fields}
    if "title" in names and names & {"author", "editor"}:
        skipped.append(
            Skipped(entry.key, None, "title and authors would change at once; not applied")
        )
        return []
    edits: list[Edit] = []
    planned: list[Change] = []
    wanted: dict[str, str] = {}
    for raw_name, raw_value in fields.items():
        name = raw_name.lower()
        if name in _BY_HAND:
            skipped.append(Skipped(entry.key, name, _BY_HAND[name]))
            continue
        people = decoding.names(raw_value) if name in _NAMES else None
        value = names_text(people) if people else csl_value(name, raw_value, decoding.text)
        if value is None or (name in _NAMES and not people):
            skipped.append(Skipped(entry.key, name, "no names could be read from it"))
            continue
        bad = unsafe_characters(value)
        if bad:
            reason = f"corrected value holds control or bidirectional characters ({', '.join(bad)})"
            skipped.append(Skipped(entry.key, name, reason))
            continue
        read_as = _READ_AS.get(name, name)
        present = [f for f in entry.fields if f.name == read_as]
        if len(present) > 1:
            skipped.append(Skipped(entry.key, name, "the field is given more than once"))
            continue
        if present and present[0].value == value:
            continue
        made: Edit | str
        if people:
            made = (
                _replace_names(text, entry, present[0], people)
                if present
                else _insert(text, entry, name, people)
            )
        elif present:
            made = _replace(text, entry, present[0], value)
        else:
            made = _insert(text, entry, name, value)
        if isinstance(made, str):
            skipped.append(Skipped(entry.key, name, made))
            continue
        edits.append(made)
        wanted[read_as] = value
        old = present[0].value if present else None
        planned.append(Change(entry.key, read_as, old, value, _line(text, made.start)))
    if not edits:
        return []
    why = _reads_back(text, entry, edits, wanted)
    if why is not None:
        skipped.append(Skipped(entry.key, None, f"{why}; not applied"))
        return []
    changes.extend(planned)
    return edits


def _line(text: str, offset: int) -> int:
    return count_line_breaks(text, 0, offset) + 1


def correction_edits(
    text: str, entry: Entry, fields: Mapping[str, str], decoding: Decoding
) -> list[TextEdit]:
    """The text edits ``--fix`` would make to the CSL item ``entry`` (none when unsafe)."""
    edits = entry_edits(text, entry, fields, decoding, [], [])
    return [TextEdit(entry.path, Span(e.start, e.end), e.text) for e in edits]
