"""CSL-JSON and CSL-YAML bibliographies -> :class:`ParsedBibliography` with source spans.

Each item becomes an :class:`Entry`: the ``id`` is the key (``key_span`` covers the id value
without quotes), the CSL ``type`` the entry type, and fields take BibTeX-like names where the
mapping is obvious (``container-title`` -> ``journal``, ``issue`` -> ``number``, ``page`` ->
``pages``, ``DOI`` -> ``doi``, ``issued`` -> ``year``; names become ``author``/``editor`` as
``Family, Given and Family, Given``).  Other scalar fields keep their CSL name, lower-cased.

Spans point into the source: at a string's characters (inside its quotes), at the year in
``date-parts``, or at the whole value for composed fields (names).  For a JSON string with
escapes, ``value`` is the decoded text while ``value_span`` covers the escaped source.

JSON positions come from a small tokenizer of our own (:mod:`json` keeps none); YAML
positions from PyYAML's node marks (``yaml.compose``).  Malformed input yields a
``bib-syntax`` finding at the offending position; items read before it are kept.  So is
the first CSL-JSON value pandoc's reader stops at (``"note": null``, ``"author": "Smith"``:
:data:`VARIABLE_KINDS`), the items all read; pandoc reads any value in CSL-YAML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Field,
    Finding,
    Location,
    ParsedBibliography,
    Span,
)

__all__ = [
    "BIBTEX_TYPES",
    "VARIABLE_KINDS",
    "YAML_LOADER",
    "bare_list",
    "bibtex_type",
    "content_end",
    "csl_yaml_items",
    "items_array",
    "items_object",
    "markdown_unescaped",
    "parse_csl_json",
    "parse_csl_yaml",
]

#: CSL item types (CSL 1.0.2) -> the BibTeX / biblatex type of the same kind of work, for the
#: code that reasons by entry type (verification: journal article, proceedings paper,
#: preprint, grey literature ...); the item's own type is kept as ``Entry.csl_type``.
BIBTEX_TYPES: MappingProxyType[str, str] = MappingProxyType(
    {
        "article-journal": "article",
        "article-magazine": "article",
        "article-newspaper": "article",
        "review": "article",
        "review-book": "article",
        "periodical": "periodical",
        # "A self-contained work ... not published in a journal": preprints, working papers
        "article": "misc",
        "paper-conference": "inproceedings",
        "book": "book",
        "classic": "book",
        "collection": "collection",
        "chapter": "incollection",
        "entry": "incollection",
        "entry-dictionary": "incollection",
        "entry-encyclopedia": "incollection",
        "pamphlet": "booklet",
        "report": "techreport",
        "thesis": "thesis",
        "manuscript": "unpublished",
        "webpage": "online",
        "post": "online",
        "post-weblog": "online",
        "dataset": "dataset",
        "software": "software",
        "patent": "patent",
        "standard": "standard",
    }
)


def bibtex_type(csl_type: str) -> str:
    """The BibTeX type a CSL item type stands for (``misc`` for one without a counterpart,
    such as ``speech`` or ``legal_case``, or a type CSL does not define)."""
    return BIBTEX_TYPES.get(csl_type.lower(), "misc")


_RENAME = {
    "container-title": "journal",
    "issue": "number",
    "page": "pages",
    "doi": "doi",
    "url": "url",
    "isbn": "isbn",
    "issn": "issn",
    "pmid": "pmid",
    "pmcid": "pmcid",
    "collection-title": "series",
    "publisher-place": "address",
    "number-of-pages": "pagetotal",
}
_NAME_FIELDS = {"author", "editor", "translator", "container-author", "collection-editor"}
_DATE_FIELDS = {"issued": "year", "accessed": "urldate", "original-date": "origdate"}
_YEAR = re.compile(r"(?<!\d)(\d{4})(?!\d)")

#: The CSL variables pandoc's CSL-JSON reader (citeproc, pandoc 2.17, 3.6.1 and 3.9) knows,
#: by the kind of value it reads, under their case-folded names (it compares names so):
#: CSL 1.0.2's standard, number, date and name variables, ``id`` and ``type``, citeproc's
#: ``container`` date and the names citeproc-js wrote for ``container-title-short``.  A
#: standard or number variable is text or a whole number, ``note`` text, a date text or an
#: object, names a list; of any other member pandoc reads text and whole numbers and
#: ignores the rest (``custom``, ``categories``, a null).  See :func:`_value_stop`.
VARIABLE_KINDS: MappingProxyType[str, str] = MappingProxyType(
    {
        name.casefold(): kind
        for kind, names in (
            (
                "standard",
                "id type abstract annote archive archive_collection archive_location "
                "archive-place authority call-number citation-key citation-label "
                "collection-title container-title container-title-short dimensions "
                "division DOI event event-place event-title genre ISBN ISSN jurisdiction "
                "keyword language license medium original-publisher original-publisher-place "
                "original-title part-title PMCID PMID publisher publisher-place references "
                "reviewed-genre reviewed-title scale source status title title-short URL "
                "volume-title year-suffix journalAbbreviation shortTitle",
            ),
            (
                "number",
                "chapter-number citation-number collection-number edition "
                "first-reference-note-number issue locator number number-of-pages "
                "number-of-volumes page page-first part-number printing-number section "
                "supplement-number version volume",
            ),
            ("note", "note"),
            (
                "date",
                "accessed available-date container event-date issued original-date submitted",
            ),
            (
                "name",
                "author chair collection-editor compiler composer container-author "
                "contributor curator director editor editorial-director editor-translator "
                "executive-producer guest host illustrator interviewer narrator organizer "
                "original-author performer producer recipient reviewed-author script-writer "
                "series-creator translator",
            ),
        )
        for name in names.split()
    }
)
# libyaml's loader when PyYAML has it: same node marks (character offsets), much faster.
YAML_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NULL_TAG = "tag:yaml.org,2002:null"
_STR_TAG = "tag:yaml.org,2002:str"
#: a node's properties before its value: its tag and anchor (``!!str &a 2020``)
_PROPERTIES = re.compile(r"(?:[!&]\S*[ \t]+)+")


class _Inexact(str):
    """A JSON number that is no whole number of 64 bits (``1.5``, ``1e-2``, twenty digits),
    which pandoc reads as no integer: kept as written."""


#: the whole numbers pandoc reads (a Haskell Int)
_INT_MIN, _INT_MAX = -(2**63), 2**63 - 1


class _NotText(str):
    """A plain (unquoted) YAML scalar that pandoc's YAML reader reads as a number or a
    boolean, not as text (:data:`_NOT_TEXT`): kept as written."""


#: the plain scalars pandoc's YAML reader (the ``yaml`` package: libyaml) reads as no text:
#: a boolean, a hexadecimal or octal whole number, a decimal number (``1.``, ``+5`` and
#: ``007`` too; not ``.5``, ``1_000``, ``0X1A``, ``.inf``)
_NOT_TEXT = re.compile(
    r"(?:[yYnN]|yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)"
    r"|(?P<number>0x[0-9A-Fa-f]+|0o[0-7]+|[-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
)


def _number(token: str) -> int | _Inexact:
    """A JSON number token as pandoc reads it: the int its value is (``1e3`` is 1000,
    ``1.0`` is 1) if that is a whole number of 64 bits, else the token."""
    value = Decimal(token)
    if _INT_MIN <= value <= _INT_MAX and value == value.to_integral_value():
        return int(value)
    return _Inexact(token)


@dataclass
class _Node:
    """A parsed value with the source span of its text (strings: inside the quotes)."""

    value: Any  # str | int | _Inexact | bool | None | list[_Node] | dict[str, tuple[_Node, _Node]]
    span: Span


# ---------------------------------------------------------------------------------------
# Items -> entries (shared by JSON and YAML)
# ---------------------------------------------------------------------------------------


def _scalar(node: _Node) -> str | None:
    v = node.value
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (str, int, float)):
        return str(v)
    return None


#: What BibTeX reads in a name list as the end of a name (``and`` between spaces) or of a
#: name part (a comma), when outside braces.
_NAME_BREAK = re.compile(r",|(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def _part(text: str) -> str:
    """A CSL name's part as one part of one BibTeX-like name: braced when it holds a comma
    or an ``and`` (``literal: Food and Agriculture Organization``), kept whole."""
    return "{" + text + "}" if _NAME_BREAK.search(text) else text


def _names(node: _Node) -> str | None:
    if not isinstance(node.value, list):
        return _scalar(node)
    out = []
    for person in node.value:
        if not isinstance(person.value, dict):
            text = _scalar(person)
            if text:
                out.append(text)
            continue
        parts = {k: _part(_scalar(v) or "") for k, (_, v) in person.value.items()}
        if parts.get("literal"):
            out.append(parts["literal"])
            continue
        family = " ".join(
            p for p in (parts.get("non-dropping-particle", ""), parts.get("family", "")) if p
        )
        given = " ".join(
            p for p in (parts.get("given", ""), parts.get("dropping-particle", "")) if p
        )
        suffix = parts.get("suffix", "")
        name = ", ".join(p for p in (family, suffix, given) if p)
        if name:
            out.append(name)
    return " and ".join(out) if out else None


def _year(node: _Node) -> tuple[str, Span] | None:
    """The year of a CSL date (date-parts, raw, literal, EDTF string, YAML list form)."""
    v = node.value
    if isinstance(v, (str, int)) and not isinstance(v, bool):
        m = _YEAR.search(str(v))
        if m is None:
            return None
        if isinstance(v, str) and node.span.end - node.span.start == len(v):
            start = node.span.start + m.start(1)
            return m.group(1), Span(start, start + 4)
        return m.group(1), node.span
    if isinstance(v, list):
        for item in v:  # pandoc's YAML: issued: [{year: 2018, month: 3}]
            found = _year(item)
            if found:
                return found
        return None
    if not isinstance(v, dict):
        return None
    for key in ("date-parts", "year", "raw", "literal"):
        pair = v.get(key)
        if pair is None:
            continue
        sub = pair[1]
        if key == "date-parts":
            first = sub.value[0] if isinstance(sub.value, list) and sub.value else None
            if first is not None and isinstance(first.value, list) and first.value:
                year = first.value[0]
                text = _scalar(year)
                if text and _YEAR.fullmatch(text.strip()):
                    return text.strip(), year.span
            continue
        found = _year(sub)
        if found:
            return found
    return None


#: A Markdown backslash escape: pandoc reads each CSL-YAML value as Markdown, where a
#: backslash before any ASCII punctuation stands for that character.
_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def markdown_unescaped(value: str) -> str:
    """A CSL-YAML value as pandoc reads its text: Markdown backslash escapes undone
    (``C\\*-algebras`` is ``C*-algebras``)."""
    return _MARKDOWN_ESCAPE.sub(r"\1", value) if "\\" in value else value


def _member(
    mapping: dict[str, tuple[_Node, _Node]], name: str, folded: bool
) -> tuple[_Node, _Node] | None:
    """The member ``name`` of an item; ``folded``, as pandoc's CSL-JSON reader finds it:
    of the members whose names case-fold to ``name`` (``"ID"``), the one sorting first."""
    if not folded:
        return mapping.get(name)
    names = [n for n in mapping if n.casefold() == name]
    return mapping[min(names)] if names else None


def _entry(
    path: Path,
    item: _Node,
    problems: list[Finding],
    folded: bool = False,
    markdown_id: bool = False,
) -> Entry | None:
    """The entry of a CSL ``item``, its ``id`` and ``type`` found case-folded if ``folded``
    (CSL-JSON; pandoc's YAML reader reads ``id`` only).  A CSL-YAML value is read as pandoc
    reads it, as Markdown (its backslash escapes undone); so is the id of an item of a
    document's ``references:`` (``markdown_id``), not that of a CSL-YAML file's item.

    An unquoted id pandoc's YAML reader reads as no text (:data:`_NOT_TEXT`) is no id in a
    CSL-YAML file: pandoc (2.17, 3.6.1 and 3.9) reads no entry from the item (``id: 2020``:
    "citation 2020 not found"), a problem at the id.  In ``references:`` a number is the
    text pandoc writes for it (``010`` is ``10``, ``1e3`` is ``1000``, ``3.10`` is
    ``3.1``), a boolean (``yes``, ``on``, ``n``) no id."""
    mapping = item.value
    if not isinstance(mapping, dict):
        return None
    id_pair = _member(mapping, "id", folded)
    key = _scalar(id_pair[1]) if id_pair else None
    if id_pair and isinstance(id_pair[1].value, _NotText):
        written = id_pair[1].value
        key = _metadata_number(written) if markdown_id else None
        if key is None:
            text_of = _NOT_TEXT.fullmatch(written)
            kind = "a number" if text_of and text_of["number"] else "true or false"
            what = "the item" if markdown_id else "pandoc reads no entry from the item, which"
            problems.append(
                Finding(
                    Code.EMPTY_KEY,
                    Location(path, id_pair[1].span),
                    f"the id {written} is {kind} to pandoc's YAML reader, not text: {what} "
                    f"cannot be cited (write id: '{written}')",
                )
            )
            return None
    elif key and markdown_id and id_pair and isinstance(id_pair[1].value, str):
        key = markdown_unescaped(key)
    if not key:
        problems.append(
            Finding(
                Code.EMPTY_KEY,
                Location(path, id_pair[1].span if id_pair else item.span),
                "CSL item without an 'id'; it cannot be cited",
            )
        )
        return None
    type_pair = _member(mapping, "type", folded)
    etype = (_scalar(type_pair[1]) if type_pair else None) or "document"
    fields: list[Field] = []
    for raw_name, (name_node, value_node) in mapping.items():
        lname = raw_name.lower()
        if lname in ("id", "type"):
            continue
        value: str | None
        span = value_node.span
        if lname in _NAME_FIELDS:
            name = lname
            value = _names(value_node)
            if value is not None and not folded:
                value = markdown_unescaped(value)
        elif lname in _DATE_FIELDS:
            name = _DATE_FIELDS[lname]
            found = _year(value_node)
            value, span = found if found else (None, span)
        else:
            name = _RENAME.get(lname, lname)
            value = _scalar(value_node)
            if value is not None and not folded and isinstance(value_node.value, str):
                value = markdown_unescaped(value)
        if value is None:
            continue
        fields.append(Field(name, value, name_node.span, span))
    return Entry(
        key=key,
        entry_type=bibtex_type(etype),
        csl_type=etype.lower(),
        path=path,
        span=item.span,
        key_span=id_pair[1].span if id_pair else item.span,
        fields=tuple(fields),
    )


def _metadata_number(written: str) -> str | None:
    """The text pandoc makes of a number of a metadata field written ``written`` (a match of
    :data:`_NOT_TEXT`; None for a boolean, or a number too long to be worth writing out):
    a whole number of 64 bits as such, any other as Haskell's ``Scientific`` shows it
    (``0.5``, ``1234567.5``, ``5.0e-2``, ``1.0e22``)."""
    found = _NOT_TEXT.fullmatch(written)
    if found is None or found["number"] is None or len(written) > 1000:
        return None
    negative = written[0] == "-"
    if written[:2] in ("0x", "0o"):
        digits, power = str(int(written[2:], 16 if written[1] == "x" else 8)), 0
    else:
        number = _DECIMAL.fullmatch(written.lstrip("+-"))
        assert number is not None
        whole, fraction, exponent = number.groups("")
        digits, power = whole + fraction, int(exponent or 0) - len(fraction)
    # the value is digits times ten to the power ``power``
    digits = digits.lstrip("0")
    zeros = len(digits) - len(digits.rstrip("0"))
    digits, power = digits.rstrip("0"), power + zeros
    if not digits:
        return "0"
    e = len(digits) + power  # the value is 0.<digits> times ten to the power e
    if power >= 0 and e <= 19:  # a whole number: of 64 bits, written as such
        value = int(digits) * 10**power * (-1 if negative else 1)
        if _INT_MIN <= value <= _INT_MAX:
            return str(value)
    if e < 0 or e > 7:
        text = f"{digits[0]}.{digits[1:] or '0'}e{e - 1}"
    elif e == 0:
        text = f"0.{digits}"
    else:
        text = f"{digits[:e].ljust(e, '0')}.{digits[e:] or '0'}"
    return "-" + text if negative else text


#: a decimal number of :data:`_NOT_TEXT` without its sign: whole part, fraction, exponent
_DECIMAL = re.compile(r"([0-9]+)(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?")


def _result(
    path: Path,
    fmt: BibFormat,
    items: list[_Node],
    problems: list[Finding],
    complete: bool,
) -> ParsedBibliography:
    entries = []
    for item in items:
        e = _entry(path, item, problems, fmt is BibFormat.CSL_JSON)
        if e is not None:
            entries.append(e)
    return ParsedBibliography(
        path=path,
        format=fmt,
        entries=tuple(entries),
        problems=tuple(problems),
        complete=complete,
    )


def _syntax(path: Path, offset: int, end: int, message: str) -> Finding:
    return Finding(
        Code.BIB_SYNTAX,
        Location(path, Span(offset, max(offset, end))),
        message,
        data=MappingProxyType({}),
    )


# ---------------------------------------------------------------------------------------
# JSON
# ---------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"""[ \t\r\n]*(?:
      ("(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
    | (-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    | (true|false|null)
    | ([{}\[\]:,])
    )""",
    re.X,
)
_WS = re.compile(r"[ \t\r\n]*")
_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
_OBJECT_START = re.compile(r"[ \t\r\n]*\{")


class _JsonError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


class _Json:
    """Recursive-descent JSON reader that keeps the source span of every value."""

    def __init__(self, text: str, on_item: Callable[[_Node], None] | None = None) -> None:
        self.text = text
        self.pos = 0
        self.on_item = on_item
        self.depth = 0

    def _next(self) -> tuple[re.Match[str], str]:
        m = _TOKEN.match(self.text, self.pos)
        if m is None:
            start = _WS.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if start >= len(self.text):
                raise _JsonError(start, "unexpected end of the file")
            raise _JsonError(start, f"unexpected character {self.text[start]!r}")
        self.pos = m.end()
        return m, m.group(m.lastindex or 0)

    def value(self) -> _Node:
        m, tok = self._next()
        kind = m.lastindex
        start = m.start(kind or 0)
        if kind == 1:
            value = tok[1:-1] if "\\" not in tok else json.loads(tok)
            return _Node(value, Span(start + 1, m.end() - 1))
        if kind == 2:
            return _Node(_number(tok), Span(start, m.end()))
        if kind == 3:
            return _Node(_LITERALS[tok], Span(start, m.end()))
        if tok == "[":
            return self._array(start)
        if tok == "{":
            return self._object(start)
        raise _JsonError(start, f"expected a value, found {tok!r}")

    def _array(self, start: int) -> _Node:
        items: list[_Node] = []
        self.depth += 1
        top = self.depth == 1
        m, tok = self._peek()
        if tok == "]":
            self.pos = m.end()
        else:
            while True:
                item = self.value()
                if top and self.on_item is not None:
                    self.on_item(item)
                else:
                    items.append(item)
                m, tok = self._next()
                if tok == "]":
                    break
                if tok != ",":
                    raise _JsonError(
                        m.start(m.lastindex or 0), f"expected ',' or ']', found {tok!r}"
                    )
        self.depth -= 1
        return _Node(items, Span(start, self.pos))

    def _object(self, start: int) -> _Node:
        members: dict[str, tuple[_Node, _Node]] = {}
        self.depth += 1
        m, tok = self._peek()
        if tok == "}":
            self.pos = m.end()
        else:
            while True:
                km, ktok = self._next()
                if km.lastindex != 1:
                    raise _JsonError(
                        km.start(km.lastindex or 0),
                        f"expected a member name in quotes, found {ktok!r}",
                    )
                name = ktok[1:-1] if "\\" not in ktok else json.loads(ktok)
                key = _Node(name, Span(km.start(1) + 1, km.end() - 1))
                cm, ctok = self._next()
                if ctok != ":":
                    raise _JsonError(
                        cm.start(cm.lastindex or 0),
                        f"expected ':' after {key.value!r}, found {ctok!r}",
                    )
                value = self.value()
                # a member named twice: the first counts, as pandoc reads it (aeson)
                members.setdefault(key.value, (key, value))
                m, tok = self._next()
                if tok == "}":
                    break
                if tok != ",":
                    raise _JsonError(
                        m.start(m.lastindex or 0), f"expected ',' or '}}', found {tok!r}"
                    )
        self.depth -= 1
        return _Node(members, Span(start, self.pos))

    def _peek(self) -> tuple[re.Match[str], str]:
        saved = self.pos
        m, tok = self._next()
        self.pos = saved
        return m, tok


#: what pandoc makes of a CSL-JSON object without "items" (2.17: "parsing [] failed,
#: expected Array, but encountered Object"; 3.6.1 and 3.9: 'key "items" not found')
_ONE_OBJECT = (
    'CSL-JSON must be an array of items, or an object whose "items" are one (pandoc 3), '
    "not an object without them (one item is written [{...}]): pandoc stops with an "
    "error at this file, and no citation of the document is found"
)
#: and of its "items" that are no array (3.6.1 and 3.9: 'Error in $.items: parsing []
#: failed, expected Array, but encountered Object')
_ITEMS_NO_ARRAY = (
    'the "items" of a CSL-JSON object must be an array of items: pandoc stops with an '
    "error at this file, and no citation of the document is found"
)


#: and of an element of the array that is no object (2.17, 3.6.1 and 3.9: "parsing Map
#: failed, expected Object, but encountered String")
_NO_ITEM = (
    "a CSL-JSON item must be an object ({...}): pandoc stops with an error at this file, "
    "and no citation of the document is found"
)


#: what pandoc says of a value its CSL-JSON reader does not read (2.17, 3.6.1 and 3.9:
#: "expected String or Number, but encountered Null", "parsing Int failed")
_STOPS = ": pandoc stops with an error at this file, and no citation of the document is found"
#: the members of a CSL name that are text, and those read as true or false
_NAME_TEXT = ("family", "given", "dropping-particle", "non-dropping-particle", "suffix")
_NAME_FLAGS = ("comma-suffix", "static-ordering")
#: a date part written as text that pandoc reads (3.9 also reads a minus sign, which 2.17
#: and 3.6.1 stop at: read as 3.9 reads it)
_DATE_PART = re.compile(r"-?[0-9]+")


def _what(node: _Node) -> str:
    """The kind of a JSON value, for a message."""
    v = node.value
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, _Inexact):
        return str(v)
    if isinstance(v, int):
        return "a number"
    if isinstance(v, str):
        return f"the text {json.dumps(v)}"
    return "a list" if isinstance(v, list) else "an object"


def _is_text(node: _Node) -> bool:
    """A JSON string (not a number kept as written)."""
    return isinstance(node.value, str) and not isinstance(node.value, _Inexact)


def _value_stop(name: str, kind: str | None, node: _Node) -> tuple[Span, str] | None:
    """Where and why pandoc stops at the value ``node`` of the CSL variable ``name`` of
    ``kind`` (:data:`VARIABLE_KINDS`, None for a variable pandoc does not know), or None."""
    v = node.value
    if kind is None:
        if not isinstance(v, _Inexact):
            return None
        return node.span, f'the number of "{name}" must be a whole one of 64 bits, not {v}'
    if kind in ("standard", "number"):
        if _is_text(node) or type(v) is int:
            return None
        return node.span, (f'"{name}" must be text or a whole number of 64 bits, not {_what(node)}')
    if kind == "note":
        if _is_text(node):
            return None
        return node.span, f'"{name}" must be text, not {_what(node)}'
    if kind == "date":
        if _is_text(node):
            return None
        if isinstance(v, dict):
            return _date_stop(name, v)
        return node.span, (
            f'the date "{name}" must be text or an object ({{"date-parts": [[2004, 3]]}}), '
            f"not {_what(node)}"
        )
    if isinstance(v, list):
        return next(filter(None, (_name_stop(name, person) for person in v)), None)
    return node.span, (
        f'the names "{name}" must be a list ([{{"family": "Smith", "given": "Jane"}}]), '
        f"not {_what(node)}"
    )


def _date_stop(name: str, members: dict[str, tuple[_Node, _Node]]) -> tuple[Span, str] | None:
    """Where pandoc stops in a CSL date object: a text ``raw`` is read alone, else its
    ``date-parts`` must be lists of whole numbers (or digits), its ``literal`` text."""
    raw = members.get("raw")
    if raw is not None and _is_text(raw[1]):
        return None
    parts = members.get("date-parts")
    if parts is not None and parts[1].value is not None:
        ranges = parts[1].value
        lists = ranges if isinstance(ranges, list) else [parts[1]]
        for dates in lists:
            if not isinstance(dates.value, list):
                return dates.span, (
                    f'the "date-parts" of the date "{name}" must be a list of lists '
                    f"([[2004, 3]]), not {_what(dates)}"
                )
            for part in dates.value:
                v = part.value
                if type(v) is int or (_is_text(part) and _DATE_PART.fullmatch(v or "0")):
                    continue
                return part.span, (
                    f'a date part of the date "{name}" must be a whole number, not {_what(part)}'
                )
    literal = members.get("literal")
    if literal is not None and literal[1].value is not None and not _is_text(literal[1]):
        node = literal[1]
        return node.span, f'the "literal" of the date "{name}" must be text, not {_what(node)}'
    return None


def _name_stop(name: str, person: _Node) -> tuple[Span, str] | None:
    """Where pandoc stops in one name of the CSL names ``name``: text is a name, an object
    has text parts (or nulls) and flags that are no list or object."""
    v = person.value
    if _is_text(person):
        return None
    if not isinstance(v, dict):
        return person.span, (
            f'a name of "{name}" must be an object ({{"family": "Smith", "given": "Jane"}}) '
            f"or text, not {_what(person)}"
        )
    for part in (*_NAME_TEXT, *_NAME_FLAGS, "literal"):
        pair = v.get(part)
        if pair is None or pair[1].value is None:
            continue
        value = pair[1]
        if part in _NAME_FLAGS:
            if not isinstance(value.value, (list, dict)):
                continue
            return value.span, (
                f'the "{part}" of a name of "{name}" must be true or false, not {_what(value)}'
            )
        if not _is_text(value):
            return value.span, (
                f'the "{part}" of a name of "{name}" must be text, not {_what(value)}'
            )
    return None


def _item_stop(item: _Node) -> tuple[Span, str] | None:
    """Where and why pandoc stops reading a CSL-JSON file at its ``item`` (an element of
    the array of items), or None.  Of members whose names differ in case only pandoc reads
    the one whose name sorts first, and the variables in the order of their case-folded
    names."""
    members = item.value
    if not isinstance(members, dict):
        return item.span, _NO_ITEM
    chosen: dict[str, tuple[str, _Node]] = {}
    for name, (_, value) in members.items():
        folded = name.casefold()
        if folded not in chosen or name < chosen[folded][0]:
            chosen[folded] = (name, value)
    for folded in sorted(chosen):
        name, value = chosen[folded]
        found = _value_stop(name, VARIABLE_KINDS.get(folded), value)
        if found is not None:
            return found[0], f"{found[1]}{_STOPS}"
    return None


def _object_items(root: _Node) -> tuple[list[_Node], tuple[Span, str] | None]:
    """The items of a CSL-JSON object, its ``"items"`` array as pandoc 3 reads it (the
    first ``"items"`` member of several, other members ignored), or none and the place
    pandoc stops at: its ``{`` (no ``"items"``), the name of ``"items"`` not an array."""
    members = root.value
    if "items" not in members:
        return [], (Span(root.span.start, root.span.start + 1), _ONE_OBJECT)
    name, items = members["items"]
    if not isinstance(items.value, list):
        return [], (name.span, _ITEMS_NO_ARRAY)
    return items.value, None


def _items_member(text: str) -> tuple[_Node, _Node] | None:
    """The ``"items"`` member (name, array) of a CSL-JSON ``text`` that is an object with
    an array of items; None for any other text."""
    if _OBJECT_START.match(text) is None:
        return None
    try:
        root = _Json(text).value()
    except (_JsonError, RecursionError):
        return None
    if not isinstance(root.value, dict):
        return None
    _, problem = _object_items(root)
    return root.value["items"] if problem is None else None


def items_object(text: str) -> Span | None:
    """The name ``"items"`` of a CSL-JSON ``text`` that is an object with an array of
    items, which pandoc 3 reads and pandoc 2 stops at ("parsing [] failed, expected
    Array, but encountered Object"); None for any other text."""
    found = _items_member(text)
    return found[0].span if found is not None else None


def items_array(text: str) -> Span | None:
    """The ``[...]`` of the items of a CSL-JSON ``text`` that is an object with an array of
    items (pandoc 3 reads them); None for any other text."""
    found = _items_member(text)
    return found[1].span if found is not None else None


def parse_csl_json(path: Path, text: str) -> ParsedBibliography:
    """Read a CSL-JSON file, an array of items or (pandoc 3) an object whose ``"items"``
    are one; a file that is neither, or the first item or value pandoc stops at, is a
    problem at its place.  Never raises."""
    items: list[_Node] = []
    problems: list[Finding] = []
    reader = _Json(text, items.append)
    complete = True
    try:
        root = reader.value()
        rest = _WS.match(text, reader.pos).end()  # type: ignore[union-attr]
        if rest < len(text):
            raise _JsonError(rest, "unexpected text after the end of the JSON value")
        if isinstance(root.value, dict):
            found, problem = _object_items(root)
            items.extend(found)
            if problem is not None:
                span, why = problem
                problems.append(_syntax(path, span.start, span.end, why))
                complete = False
        elif not isinstance(root.value, list):
            problems.append(
                _syntax(path, root.span.start, root.span.end, "CSL-JSON must be an array of items")
            )
            complete = False
    except _JsonError as error:
        end = min(len(text), error.offset + 1)
        problems.append(_syntax(path, error.offset, end, f"invalid JSON: {error.message}"))
        complete = False
    except RecursionError:
        problems.append(_syntax(path, 0, 0, "invalid JSON: nested too deeply"))
        complete = False
    stop = next(filter(None, map(_item_stop, items)), None)
    if stop is not None:  # pandoc stops at the first; the items are read all the same
        problems.insert(0, _syntax(path, stop[0].start, stop[0].end, stop[1]))
        complete = False
    return _result(path, BibFormat.CSL_JSON, items, problems, complete)


# ---------------------------------------------------------------------------------------
# YAML
# ---------------------------------------------------------------------------------------


class _TooManyNodes(Exception):
    """Aliases expand the document past its node budget (at ``node``)."""

    def __init__(self, node: yaml.Node, budget: int) -> None:
        super().__init__(node, budget)
        self.node = node
        self.budget = budget


def _node_budget(length: int) -> int:
    """The most nodes a document ``length`` characters long may expand to: without aliases
    every node takes a character or more, so only aliases (``*a``, each its anchor's whole
    subtree again: ten of ten of ten ... is a "billion laughs") can go past it."""
    return 2 * length + 1000


def _yaml_node(node: yaml.Node, budget: list[int], base: int = 0, text: str | None = None) -> _Node:
    """``node`` with its spans (``base`` added to its marks), its aliases expanded;
    ``text``, the text its marks count in (with ``base``), tells its tag and anchor."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooManyNodes(node, budget[1])
    start, end = base + node.start_mark.index, base + node.end_mark.index
    if isinstance(node, yaml.ScalarNode):
        properties = _PROPERTIES.match(text, start, end) if text is not None else None
        if properties is not None:  # the value stands after its tag and anchor
            start = properties.end()
        if node.style in ("'", '"') and end - start >= 2:
            start, end = start + 1, end - 1
        # a null (``~``, ``null``, nothing) by its tag: libyaml's loader gives a plain
        # scalar the style '' where PyYAML's own gives None, and a quoted one is a string
        value: Any = None if node.tag == _NULL_TAG else node.value
        # text when tagged so (``!!str 2020``), as pandoc reads it (not ``! 2020``)
        tagged = properties is not None and node.tag == _STR_TAG
        if (
            node.style in (None, "")
            and value
            and _NOT_TEXT.fullmatch(value)
            and not (tagged and properties and _tagged_str(properties.group()))
        ):
            value = _NotText(value)
        return _Node(value, Span(start, end))
    if isinstance(node, yaml.SequenceNode):
        return _Node([_yaml_node(n, budget, base, text) for n in node.value], Span(start, end))
    members: dict[str, tuple[_Node, _Node]] = {}
    for k, v in node.value:
        key = _yaml_node(k, budget, base, text)
        if isinstance(key.value, str):
            members[key.value] = (key, _yaml_node(v, budget, base, text))
    return _Node(members, Span(start, end))


def _tagged_str(properties: str) -> bool:
    """A node's properties name the ``str`` tag: ``!!str`` or ``!<tag:yaml.org,2002:str>``."""
    return any(p in ("!!str", "!<tag:yaml.org,2002:str>") for p in properties.split())


def content_end(node: yaml.Node) -> int:
    """Where the last thing written in ``node`` ends: the end of its last scalar or flow
    collection (a block collection's own end mark lies at the next token, which may be a
    ``---``, a later key or the next item).

    Each node is visited once, however many aliases share it (``&a2 [*a1, *a1]`` nested
    twenty levels deep is a million paths to the same few nodes): the answer for a node is
    kept by its identity, so the time is linear in the length of the text.  A node holding
    an alias of itself (``&a [*a]``) counts without that alias."""
    done: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    opened: set[int] = set()
    while stack:
        current, expanded = stack.pop()
        ident = id(current)
        if ident in done:
            continue
        if isinstance(current, yaml.ScalarNode) or getattr(current, "flow_style", False):
            done[ident] = int(current.end_mark.index)
            continue
        children = _children(current)
        if expanded:
            ends = [done[id(c)] for c in children if id(c) in done]
            done[ident] = max(ends, default=int(current.end_mark.index))
            opened.discard(ident)
            continue
        if ident in opened:
            continue  # an alias of a node being read, inside it: no end of its own
        opened.add(ident)
        stack.append((current, True))
        stack.extend((c, False) for c in children if id(c) not in done and id(c) not in opened)
    return done[id(node)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes ``node`` holds: a sequence's items, a mapping's keys and values."""
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def csl_yaml_items(
    path: Path, node: yaml.SequenceNode, base: int, length: int, text: str | None = None
) -> tuple[list[Entry], list[Finding]]:
    """The entries of a YAML list of CSL items composed from a text ``length`` characters
    long (pandoc's ``references:`` metadata field), spans ``base`` characters on, with the
    problems of items that cannot be cited; an item whose aliases expand it past the node
    budget ends the list with a problem, an alias of an item read (``- *x``) is that item,
    at its place: read once.  ``text``: the text the marks count in (from ``base``)."""
    problems: list[Finding] = []
    entries: list[Entry] = []
    limit = _node_budget(length)
    budget = [limit, limit]
    seen: set[int] = set()
    for item in node.value:
        if id(item) in seen:
            continue
        seen.add(id(item))
        try:
            converted = _yaml_node(item, budget, base, text)
        except (_TooManyNodes, RecursionError):
            offset = base + item.start_mark.index
            problems.append(
                _syntax(path, offset, offset + 1, "CSL item too large to read; read no further")
            )
            break
        entry = _entry(path, converted, problems, markdown_id=True)
        if entry is not None:
            entries.append(entry)
    return entries, problems


def _yaml_items(root: _Node) -> tuple[list[_Node], tuple[Span, str] | None]:
    """The items of one YAML document: its ``references:`` list or the list it is (none
    when it, or its ``references:``, is empty); else none, and where and why (pandoc reads
    no entry from it: a mapping without ``references:``, one item not in a list, a
    ``references:`` that is one item or no list)."""
    value = root.value
    if isinstance(value, dict) and "references" in value:
        name, refs = value["references"]
        if isinstance(refs.value, list):
            return refs.value, None
        if _blank(refs):
            return [], None
        return [], (name.span, "references: is not a list of CSL items; pandoc reads none")
    if isinstance(value, list):
        return value, None
    if isinstance(value, dict) and value:
        first = next(iter(value.values()))[0]
        return [], (first.span, _ONE_ITEM if "id" in value else _NO_REFERENCES)
    if _blank(root):
        return [], None
    return [], (root.span, "CSL-YAML must be a list of items, or a mapping with references:")


#: what a mapping that is no CSL item lacks
_NO_REFERENCES = (
    "a CSL-YAML mapping without references: (the list of items); pandoc reads no entry from it"
)
#: and one that is an item
_ONE_ITEM = (
    "a CSL-YAML item not in a list: pandoc reads the items of a references: list "
    "(references:, then - id: ...), and no entry from this"
)


#: what pandoc reads of a YAML document after the first (2.17, 3.6.1 and 3.9)
_LATER = (
    "a second YAML document (after ---): pandoc reads the first document of a CSL-YAML "
    "file only, and no entry from this one"
)


def _blank_node(node: yaml.Node) -> bool:
    """A YAML document with nothing in it (``---`` and no value, or a null)."""
    return isinstance(node, yaml.ScalarNode) and (node.tag == _NULL_TAG or node.value == "")


def _head(text: str, node: yaml.Node) -> tuple[int, int]:
    """Where a YAML document begins: its first key, else the rest of its first line (at
    most 80 characters)."""
    if isinstance(node, yaml.MappingNode) and node.value:
        key = node.value[0][0]
        return key.start_mark.index, key.end_mark.index
    start = node.start_mark.index
    end = text.find("\n", start, start + 80)
    return start, min(len(text), start + 80) if end < 0 else end


def bare_list(text: str) -> Span | None:
    """The first line of a CSL-YAML ``text`` whose first document is a list of items, not
    under ``references:`` (which pandoc 3 reads, and pandoc 2 reads no entry from); None
    for any other text (one YAML cannot read too)."""
    try:
        for doc in yaml.compose_all(text, Loader=YAML_LOADER):
            if isinstance(doc, yaml.SequenceNode) and doc.value:
                return Span(*_head(text, doc))
            return None
    except yaml.YAMLError:
        return None
    return None


def _blank(node: _Node) -> bool:
    """An empty YAML document or value (null, or nothing written)."""
    return node.value is None or node.value == ""


def parse_csl_yaml(path: Path, text: str) -> ParsedBibliography:
    """Read CSL-YAML: a ``references:`` list (pandoc), or a bare list of items, of the first
    YAML document (pandoc reads no other); a document that is neither, or a later one not
    empty (pandoc reads no entry from it), is a problem at its place.  Never raises."""
    problems: list[Finding] = []
    items: list[_Node] = []
    complete = True
    try:
        limit = _node_budget(len(text))
        budget = [limit, limit]  # what is left, and the whole (shared by the documents)
        first = True
        for doc in yaml.compose_all(text, Loader=YAML_LOADER):
            if doc is None:
                continue
            if not first:  # pandoc reads the first document only (a later one's syntax too)
                if not _blank_node(doc):
                    start, end = _head(text, doc)
                    problems.append(_syntax(path, start, end, _LATER))
                    complete = False
                continue
            first = False
            found, problem = _yaml_items(_yaml_node(doc, budget, 0, text))
            items.extend(found)
            if problem is not None:
                problems.append(_syntax(path, problem[0].start, problem[0].end, problem[1]))
                complete = False
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        offset = min(mark.index, len(text)) if mark is not None else 0
        what = error.problem or error.context or "malformed YAML"
        problems.append(_syntax(path, offset, min(len(text), offset + 1), f"invalid YAML: {what}"))
        complete = False
    except _TooManyNodes as error:
        offset = min(error.node.start_mark.index, len(text))
        problems.append(
            _syntax(
                path,
                offset,
                min(len(text), offset + 1),
                f"invalid YAML: its aliases expand it past {error.budget} nodes "
                "(twice its length in characters); read no further",
            )
        )
        complete = False
    except (yaml.YAMLError, RecursionError) as error:
        problems.append(_syntax(path, 0, 0, f"invalid YAML: {error}"))
        complete = False
    return _result(path, BibFormat.CSL_YAML, items, problems, complete)
