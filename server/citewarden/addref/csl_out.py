"""CSL items built from a work record, and where they go in a CSL-JSON or CSL-YAML file.

:func:`csl_item` is the item (a plain dict, CSL 1.0.2 variable names);
:func:`json_insertion` and :func:`yaml_insertion` return ``(offset, text)`` for adding it to
an existing bibliography without rewriting what is there (the file's indentation is kept).
Values are plain Unicode with control characters removed; JSON and YAML quoting is done
here, so nothing from a record can break out of its value.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from citewarden.fix.csl_values import markdown_escaped
from citewarden.parsing.csl import YAML_LOADER, content_end, items_array
from citewarden.safe_text import without_unsafe
from citewarden.text import line_start_before
from citewarden.verify.authors import split_suffix
from citewarden.verify.records import Person, WorkRecord

CSL_TYPES = {
    "journal-article": "article-journal",
    "proceedings-article": "paper-conference",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "book-chapter": "chapter",
    "book-section": "chapter",
    "dissertation": "thesis",
    "report": "report",
    "posted-content": "article",
    "dataset": "dataset",
}


def _plain(text: str) -> str:
    return " ".join(without_unsafe(text).split())


def _csl_name(person: Person) -> dict[str, str]:
    """A CSL name; a generational suffix in its own ``suffix`` ("Jr.")."""
    family = _plain(person.family)
    family, suffix = split_suffix(family) if person.given else (family, "")
    name = {"family": family}
    if person.given:
        name["given"] = _plain(person.given)
    if suffix:
        name["suffix"] = suffix
    return name


def csl_item(record: WorkRecord, key: str) -> dict[str, Any]:
    """The CSL item for ``record`` with id ``key``."""
    kind = CSL_TYPES.get(record.work_type or "", "article-journal" if record.venue else "article")
    item: dict[str, Any] = {"id": key, "type": kind}
    authors = [_csl_name(p) for p in record.authors if _plain(p.family)]
    if authors:
        item["author"] = authors
    title = _plain(record.title)
    if record.subtitle:
        title = f"{title}: {_plain(record.subtitle)}"
    item["title"] = title
    if record.venue:
        item["container-title"] = _plain(record.venue)
    if record.year:
        item["issued"] = {"date-parts": [[record.year]]}
    for name, value in (("volume", record.volume), ("issue", record.issue), ("page", record.pages)):
        if value:
            item[name] = _plain(value)
    if record.publisher:
        item["publisher"] = _plain(record.publisher)
    if record.doi:
        item["DOI"] = _plain(record.doi)
    if record.isbn:
        item["ISBN"] = _plain(record.isbn[0])
    if record.pmid:
        item["PMID"] = _plain(record.pmid)
    if record.arxiv_id:
        item["number"] = f"arXiv:{_plain(record.arxiv_id)}"
    if record.url and not record.doi:
        item["URL"] = _plain(record.url)
    return item


def _indent_of(text: str) -> str:
    m = re.search(r"\n([ \t]+)[\[{\"]", text)
    return m.group(1) if m else "  "


def json_insertion(text: str, item: dict[str, Any]) -> tuple[int, str] | None:
    """Where and what to insert to add ``item`` to the CSL-JSON items in ``text``: after the
    last of its array, or of its ``"items"`` array (an object pandoc 3 reads); None when
    ``text`` is neither."""
    stripped = text.rstrip()
    if not stripped:
        return 0, json.dumps([item], indent=2, ensure_ascii=False) + "\n"
    if stripped.endswith("]") and text.lstrip().startswith("["):
        unit = _indent_of(text)
        step = len(unit.expandtabs(4)) or 2
        return _array_insertion(text, len(stripped), unit, step, item)
    found = items_array(text)
    if found is None:
        return None
    inside = text[found.start : found.end]
    unit = _indent_of(inside)
    steps = re.search(r"\n([ \t]*)\{[ \t]*\r?\n([ \t]+)\"", inside)
    step = len(steps.group(2)) - len(steps.group(1)) if steps else 0
    return _array_insertion(text, found.end, unit, step if step > 0 else 2, item)


def _array_insertion(
    text: str, end: int, unit: str, step: int, item: dict[str, Any]
) -> tuple[int, str]:
    """Where and what to insert to add ``item`` last to the array ending at ``end`` (just
    after its ``]``), its lines indented by ``unit`` and each level by ``step``."""
    close = end - 1
    body = json.dumps(item, indent=step, ensure_ascii=False)
    body = "\n".join(unit + line for line in body.splitlines())
    before = text[:close].rstrip()
    lead = "\n" if before.endswith("[") else ",\n"
    start = len(before)
    tail = "" if "\n" in text[start:close] else "\n"
    return start, lead + body + tail


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)  # a JSON string is a YAML scalar


def _yaml_lines(value: Any, indent: str) -> list[str]:
    lines: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list):
                lines.append(f"{indent}{k}:")
                lines += _yaml_lines(v, indent + "  ")
            else:
                lines.append(f"{indent}{k}: {_yaml_scalar(v)}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict | list):
                sub = _yaml_lines(v, indent + "  ")
                sub[0] = f"{indent}- " + sub[0][len(indent) + 2 :]
                lines += sub
            else:
                lines.append(f"{indent}- {_yaml_scalar(v)}")
    return lines


#: Identifiers, kept from pandoc's smart typography too (``10.1000/a--b``).
_IDENTIFIERS = frozenset({"DOI", "URL", "ISBN", "ISSN", "PMID", "PMCID"})


def _escaped(value: Any, verbatim: bool = False) -> Any:
    """``value`` with what pandoc's Markdown would read as markup escaped in every string
    (pandoc reads each CSL-YAML value as Markdown: ``C*-algebras`` would turn emphatic)."""
    if isinstance(value, str):
        return markdown_escaped(value, verbatim)
    if isinstance(value, list):
        return [_escaped(v) for v in value]
    if isinstance(value, dict):
        return {k: _escaped(v) for k, v in value.items()}
    return value


#: What in a key pandoc's Markdown reads as markup or turns typographic (math, emphasis,
#: code, an entity, a citation, a dash, an ellipsis, a list marker), conservatively: no key
#: of the key alphabet (:data:`~citewarden.addref.insert.KEY_PUNCTUATION`) outside it is
#: read otherwise (checked against pandoc 2.17's reading of 2 500 random keys).
_MARKDOWN_IN_KEY = re.compile(
    r"[$*`\\]|--|\.\.\.|&#?\w+;|(?<![A-Za-z0-9])[_@]|_(?![A-Za-z0-9])|^(?:[-+]|\d+[.)])$"
)


def markdown_reads_otherwise(key: str) -> bool:
    """Whether pandoc's Markdown may read ``key`` as other text (``m$n$o``, ``a*b*c``,
    ``s--t``, ``s...t``).  pandoc finds a CSL-YAML file's item by its id as written but
    names it by the id read as Markdown (pandoc 2.17: the citation is "not found" whether
    the id is written plain or escaped), so such a key cannot be cited from CSL-YAML."""
    return _MARKDOWN_IN_KEY.search(key) is not None


def yaml_item(item: dict[str, Any], indent: str = "") -> str:
    """``item`` as one YAML list element (``- id: ...``), lines indented by ``indent``; its
    values escaped for Markdown but its id and type: an id Markdown would read as other
    text is refused before (:func:`markdown_reads_otherwise`), and the type is a CSL name."""
    kept = {
        k: v if k in ("id", "type") else _escaped(v, k in _IDENTIFIERS) for k, v in item.items()
    }
    return "\n".join(_yaml_lines([kept], indent))


class YamlLayoutError(ValueError):
    """A CSL-YAML file whose list of items cannot be found (the message says why)."""


def _line_end(text: str, at: int) -> int:
    """The end of the line holding the last non-blank character before ``at`` (before its
    ``\r`` or ``\n``)."""
    at = len(text[:at].rstrip())
    found = re.compile(r"[\r\n]").search(text, at)
    return found.start() if found else len(text)


def _written_end(text: str, node: yaml.Node) -> int:
    """Where the last thing written in ``node`` ends (:func:`content_end`), an alias
    (``- *a``) at its end counted where it is written, not where its anchor is (the
    composed node of an alias is its anchor's, marks and all)."""
    end = content_end(node)
    stop = int(node.end_mark.index)
    if "*" not in text[end:stop]:
        return end
    start = line_start_before(text, int(node.start_mark.index))  # the item's "- " with it
    try:
        for token in yaml.scan(text[start:stop], Loader=YAML_LOADER):
            if isinstance(token, yaml.AliasToken):
                end = max(end, start + int(token.end_mark.index))
    except yaml.YAMLError:  # a slice cut inside a token: the anchors' ends stand
        pass
    return end


def _block_list_end(text: str, items: yaml.SequenceNode) -> tuple[int, str]:
    """Where a new item goes after the last of the block list ``items``, and the indent
    of its ``-``."""
    last = items.value[-1]
    start = int(last.start_mark.index)
    head = text[line_start_before(text, start) : start]
    dash = re.fullmatch(r"([ ]*)-[ ]+", head)
    if dash is None:
        raise YamlLayoutError("its last item does not start its own line with '- '")
    return _line_end(text, _written_end(text, last)), dash.group(1)


def yaml_insertion(text: str, item: dict[str, Any]) -> tuple[int, str]:
    """Where and what to insert to add ``item`` to a CSL-YAML file: after the last item of
    the list pandoc reads (its first document's ``references:`` list, or the list that
    document is), indented like the items there, before any ``---`` or ``...`` ending the
    document; a ``references:`` list started when the document is a mapping without one.
    The list is found by the YAML structure (node marks), so items may start with any key.
    Raises :class:`YamlLayoutError` when the file is no such document (not YAML, a flow
    ``[...]`` list, ``references:`` holding something else)."""
    if text.startswith("\ufeff"):  # a byte-order mark, kept (libyaml's marks skip it)
        offset, body = yaml_insertion(text[1:], item)
        return offset + 1, body
    if not text.strip():
        return 0, "references:\n" + yaml_item(item) + "\n"
    try:
        root = next(iter(yaml.compose_all(text, Loader=YAML_LOADER)), None)
    except yaml.YAMLError as error:
        raise YamlLayoutError(f"it is not YAML that can be read: {error}") from None
    if root is None or (isinstance(root, yaml.ScalarNode) and root.value in ("", "~", "null")):
        raise YamlLayoutError("its first document, the one pandoc reads, is empty")
    if isinstance(root, yaml.SequenceNode) and not root.flow_style and root.value:
        return _with_item(text, _block_list_end(text, root), item)
    if not isinstance(root, yaml.MappingNode) or root.flow_style:
        raise YamlLayoutError("it is neither a list of items nor a block mapping")
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value == "references"):
            continue
        if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
            return _with_item(text, _block_list_end(text, value), item)
        after_key = text[key.end_mark.index : _line_end(text, key.end_mark.index + 1)]
        if isinstance(value, yaml.ScalarNode) and re.fullmatch(r"[ ]*:[ ]*(#.*)?", after_key):
            # "references:" with nothing after it: the list starts on the next line
            at = _line_end(text, key.end_mark.index + 1)
            return at, "\n" + yaml_item(item, " " * key.start_mark.column)
        raise YamlLayoutError("its references: is not a list written one item per line")
    at = _line_end(text, _written_end(text, root))
    indent = " " * root.start_mark.column
    return at, f"\n{indent}references:\n" + yaml_item(item, indent)


def _with_item(text: str, place: tuple[int, str], item: dict[str, Any]) -> tuple[int, str]:
    return place[0], "\n" + yaml_item(item, place[1])
