"""Anchored corrections written into CSL-JSON and CSL-YAML items (pure).

A correction names a BibTeX field and holds BibTeX text (what the verdict offers for a
.bib); in a CSL item it edits the variable the reader took that field from
(``journal`` -> ``container-title``, ``pages`` -> ``page``, ``year`` -> the year of
``issued``), as plain text written the way the value there is (:mod:`.csl_edits`,
:mod:`.csl_values`; in YAML with its Markdown escaped, as pandoc reads YAML values as
Markdown).  A variable the item lacks is added after its last member, in the item's own
layout; a name list (``author``, ``editor``) is written as CSL name objects in the layout of
the list it replaces (:mod:`.csl_names`).  Every item edited is read back alone with the CSL
reader: only the planned fields may change, to the planned values, or nothing is edited.
A value that is another's (a YAML alias) or carries an anchor or tag, a member the reader
takes nothing from (an empty ``DOI:``, a date without a year), a date written as text, a
YAML block scalar and an arXiv version (CSL has no ``eprint``) are left to the user, each
with its reason.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from citewarden.fix.csl_edits import YEAR, insert_member, replace_names, replace_value
from citewarden.fix.csl_layout import is_json, item_region, member_names, untouchable
from citewarden.fix.csl_names import Person
from citewarden.fix.csl_values import markdown_escaped
from citewarden.fix.plan import (
    Change,
    Edit,
    Skipped,
    refused_together,
    unsafe_reason,
    written_text,
)
from citewarden.model import Entry, Field, Span, TextEdit
from citewarden.text import LineIndex, count_line_breaks

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


#: Fields whose corrections are written as they are (the verifier gives them verbatim).
_VERBATIM = frozenset({"doi", "url"})
#: Fields that are identifiers: in YAML, kept from pandoc's smart typography too.
_IDENTIFIERS = frozenset({"doi", "url", "isbn", "issn", "pmid"})
#: Item types whose BibTeX ``number`` is the CSL ``issue`` (elsewhere it is ``number``:
#: a report's, a standard's, a patent's).
_ISSUE_TYPES = frozenset(
    {"article-journal", "article-magazine", "article-newspaper", "periodical", "review"}
)


def csl_value(name: str, value: str, plain: Callable[[str], str]) -> str:
    """A correction's BibTeX text as the plain text a CSL variable holds (``plain`` decodes
    LaTeX; a DOI or URL is taken as it is); page ranges with a single hyphen."""
    text = value if name in _VERBATIM else plain(value)
    if name == "pages":
        text = re.sub(r"\s*[-\u2013\u2014]+\s*", "-", text)
    return text


def csl_correction(
    name: str, value: str, decoding: Decoding, csl_type: str | None = None
) -> tuple[str, str]:
    """A correction (BibTeX field, BibTeX text) as an item of ``csl_type`` gets it: the
    variable written and its value as plain text (a name list as the CSL reader reads it
    back)."""
    if name in _NAMES:
        people = decoding.names(value)
        return name, (names_text(people) if people else None) or decoding.text(value)
    return _variable(name, csl_type) or name, csl_value(name, value, decoding.text)


def _variable(name: str, csl_type: str | None) -> str | None:
    """The CSL variable a correction of ``name`` writes in an item of ``csl_type``."""
    if name in _NAMES:
        return name
    if name == "number":
        return "issue" if csl_type in _ISSUE_TYPES else "number"
    return CSL_VARIABLES.get(name)


def names_text(people: list[Person]) -> str | None:
    """How the CSL reader reads ``people`` back (``Family, Given and ...``)."""
    from citewarden.parsing.csl import parse_csl_json

    item = json.dumps([{"id": "x", "author": people}], ensure_ascii=False)
    entries = parse_csl_json(Path("names.json"), item).entries
    return entries[0].get("author") if entries else None


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
    region = item_region(text, entry)
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
    if len(after.fields) - len(new) > len(before.fields) - len(old):
        return "a field would be given twice"
    for name in old.keys() | new.keys() | wanted.keys():
        want = wanted.get(name)
        if (new.get(name) != want) if want is not None else (old.get(name) != new.get(name)):
            return f"{name} would not come out as planned"
    return None


def _for_yaml(people: list[Person]) -> list[Person]:
    return [{part: markdown_escaped(v) for part, v in person.items()} for person in people]


def csl_field_refusal(entry: Entry, name: str) -> str | None:
    """Why a correction of ``name`` (lower-case BibTeX field) is not written into the CSL
    item ``entry`` whatever its value (None when it may be): a field left to the user, a
    variable the item gives twice.  What ``--fix`` skips and the reports do not offer."""
    if name in _BY_HAND:
        return _BY_HAND[name]
    read_as = _READ_AS.get(name, name)
    if sum(1 for f in entry.fields if f.name == read_as) > 1:
        return "the field is given more than once"
    return None


def entry_edits(
    text: str,
    entry: Entry,
    fields: Mapping[str, str],
    changes: list[Change],
    skipped: list[Skipped],
    *,
    decoding: Decoding,
) -> list[Edit]:
    """The edits writing ``fields`` ({BibTeX field: BibTeX text}) into the CSL item
    ``entry`` (whose spans point into ``text``), checked by reading the item back; the
    changes made and the corrections skipped are appended."""
    if refused_together(entry, fields, skipped):
        return []
    edits: list[Edit] = []
    planned: list[Change] = []
    wanted: dict[str, str] = {}
    written: set[str] = set()
    for raw_name, raw_value in fields.items():
        name = raw_name.lower()
        if (refusal := csl_field_refusal(entry, name)) is not None:
            skipped.append(Skipped(entry.key, name, refusal))
            continue
        raw_value = written_text(raw_value)
        people = decoding.names(raw_value) if name in _NAMES else None
        value = names_text(people) if people else csl_value(name, raw_value, decoding.text)
        if value is None or (name in _NAMES and not people):
            skipped.append(Skipped(entry.key, name, "no names could be read from it"))
            continue
        if (reason := unsafe_reason(value)) is not None:
            skipped.append(Skipped(entry.key, name, reason))
            continue
        read_as = _READ_AS.get(name, name)
        present = [f for f in entry.fields if f.name == read_as]
        if present and present[0].text == value:
            continue
        made = _edit(text, entry, name, value, people, present[0] if present else None)
        if not isinstance(made, str) and read_as in written:
            made = f"another correction writes {read_as}"
        if isinstance(made, str):
            skipped.append(Skipped(entry.key, _variable(name, entry.csl_type) or name, made))
            continue
        edits.append(made)
        written.add(read_as)
        wanted[read_as] = value
        old = present[0].text if present else None
        line = _line(text, made.start) + count_line_breaks(made.text, 0, _lead(made.text))
        planned.append(Change(entry.key, read_as, old, value, line))
    if not edits:
        return []
    why = _reads_back(text, entry, edits, wanted)
    if why is not None:
        skipped.append(Skipped(entry.key, None, f"{why}; not applied"))
        return []
    changes.extend(planned)
    return edits


def _lead(inserted: str) -> int:
    """Where the new member starts in the text inserted (after its comma and line break)."""
    return len(inserted) - len(inserted.lstrip(", \t\r\n"))


def _edit(
    text: str,
    entry: Entry,
    name: str,
    value: str,
    people: list[Person] | None,
    present: Field | None,
) -> Edit | str:
    """The edit writing the correction of ``name`` (``value``, or the names ``people``)
    into the item, over the field ``present`` or as a new member; or why there is none."""
    yaml = not is_json(entry)
    if present is not None:
        why = untouchable(text, entry, present)
        if why is not None:
            return why
        if people:
            return replace_names(text, entry, present, _for_yaml(people) if yaml else people)
        written = markdown_escaped(value, name in _IDENTIFIERS) if yaml else value
        return replace_value(text, entry, present, written)
    variable = _variable(name, entry.csl_type)
    if variable is None:
        return f"a CSL item has no variable for {name}; add it by hand"
    if name == "year" and not YEAR.fullmatch(value):
        return "the corrected year is not a year; add it by hand"
    members = member_names(text, entry)
    if members is None:
        return "the item's layout was not understood; add the field by hand"
    if variable.casefold() in members:
        return f"the item's {variable} is empty or not read; edit it by hand"
    if people:
        return insert_member(text, entry, variable, _for_yaml(people) if yaml else people)
    written = markdown_escaped(value, name in _IDENTIFIERS) if yaml else value
    return insert_member(text, entry, variable, written)


@functools.lru_cache(maxsize=2)
def _lines(text: str) -> LineIndex:
    return LineIndex(text)


def _line(text: str, offset: int) -> int:
    return _lines(text).position(offset).line + 1


def corrected_item(text: str, entry: Entry, fields: Mapping[str, str], decoding: Decoding) -> str:
    """The text of the CSL item ``entry`` with ``fields`` applied as ``--fix`` would write
    them (as written when none can be)."""
    edits = sorted(
        entry_edits(text, entry, fields, [], [], decoding=decoding), key=lambda e: e.start
    )
    pieces: list[str] = []
    pos = entry.span.start
    for e in edits:
        pieces += [text[pos : e.start], e.text]
        pos = e.end
    pieces.append(text[pos : entry.span.end])
    return "".join(pieces)


def correction_edits(
    text: str, entry: Entry, fields: Mapping[str, str], decoding: Decoding
) -> list[TextEdit]:
    """The text edits ``--fix`` would make to the CSL item ``entry`` (none when unsafe)."""
    edits = entry_edits(text, entry, fields, [], [], decoding=decoding)
    return [TextEdit(entry.path, Span(e.start, e.end), e.text) for e in edits]
