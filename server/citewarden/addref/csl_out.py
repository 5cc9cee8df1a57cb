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

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _plain(text: str) -> str:
    return " ".join(_CONTROL.sub("", text).split())


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
    """Where and what to insert to add ``item`` to the CSL-JSON array in ``text``; None when
    ``text`` is not a JSON array."""
    stripped = text.rstrip()
    if not stripped:
        return 0, json.dumps([item], indent=2, ensure_ascii=False) + "\n"
    if not stripped.endswith("]") or not text.lstrip().startswith("["):
        return None
    close = len(stripped) - 1
    unit = _indent_of(text)
    body = json.dumps(item, indent=len(unit.expandtabs(4)) or 2, ensure_ascii=False)
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


def yaml_item(item: dict[str, Any], indent: str = "") -> str:
    """``item`` as one YAML list element (``- id: ...``), lines indented by ``indent``."""
    return "\n".join(_yaml_lines([item], indent))


def yaml_insertion(text: str, item: dict[str, Any]) -> tuple[int, str]:
    """Where and what to insert to add ``item`` to a CSL-YAML file: after the last item of
    its ``references:`` list (or of the top-level list), indented like the items there."""
    if not text.strip():
        return 0, "references:\n" + yaml_item(item) + "\n"
    items = list(re.finditer(r"^([ \t]*)- id:", text, re.MULTILINE))
    if not items:
        end = len(text.rstrip())
        head = "" if re.search(r"^references:[ \t]*$", text, re.M) else "\nreferences:"
        return end, head + "\n" + yaml_item(item)
    last = items[-1]
    indent = last.group(1)
    pos = text.find("\n", last.end())
    while pos != -1:
        nxt = text.find("\n", pos + 1)
        line = text[pos + 1 : nxt if nxt != -1 else len(text)]
        if line.strip() and len(line) - len(line.lstrip()) <= len(indent):
            break  # the next key, a document marker, or the end of the list
        pos = nxt
    end = len(text.rstrip()) if pos == -1 else len(text[:pos].rstrip())
    return end, "\n" + yaml_item(item, indent)
