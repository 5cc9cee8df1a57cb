"""The cleaned reference list of the HTML report: CSL-JSON items and formatted references.

Entries (with their anchored corrections applied) become CSL-JSON items, which citeproc-py
formats with the Harvard ("Cite Them Right") style that citeproc-py ships.  The formatted
HTML is safe to embed: text from the bibliography can never become markup (see
:func:`format_references`).
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from typing import Any

from citewarden.model import Entry
from citewarden.safe_text import visible
from citewarden.verify.authors import csl_names
from citewarden.verify.identifiers import clean_doi
from citewarden.verify.normalize import parse_year
from citewarden.verify.plain_text import latex_to_text

#: citeproc-py's bundled author-date style.
STYLE = "harvard-cite-them-right"

#: The most references the HTML report formats with citeproc-py (about 3 ms an entry):
#: a larger bibliography has those with findings or corrections formatted first, the
#: others listed by key, and the report says so.
MAX_FORMATTED = 1000

_TYPES = {
    "article": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "book": "book",
    "mvbook": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "manual": "book",
    "online": "webpage",
    "www": "webpage",
    "proceedings": "book",
    "unpublished": "manuscript",
    "patent": "patent",
    "dataset": "dataset",
}

_CONTAINER = ("journal", "journaltitle", "booktitle")
_PRIVATE = {"<": "\ue000", ">": "\ue001", "&": "\ue002"}
_RESTORE = {"\ue000": "&lt;", "\ue001": "&gt;", "\ue002": "&amp;"}
_SAFE_TAG = re.compile(
    r"&lt;(/?)(i|b|sup|sub)&gt;|&lt;span style=&quot;font-variant:small-caps;&quot;&gt;|&lt;/span&gt;"
)


def _value(entry: Entry, corrections: Mapping[str, str], *names: str) -> str | None:
    for name in names:
        raw = corrections.get(name)
        if raw is None:
            raw = entry.get(name)
        if raw is not None and raw.strip():
            return latex_to_text(raw)
    return None


def _names(raw: str | None) -> list[dict[str, str]]:
    return csl_names(raw) if raw else []


def csl_item(entry: Entry, corrections: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A CSL-JSON item for ``entry`` with ``corrections`` ({field: BibTeX value}) applied."""
    fixes = corrections or {}
    kind = entry.csl_type or _TYPES.get(entry.entry_type, "article")
    item: dict[str, Any] = {"id": entry.key, "type": kind}
    author = fixes.get("author") or entry.get("author")
    editor = fixes.get("editor") or entry.get("editor")
    if author:
        item["author"] = _names(author)
    if editor:
        item["editor"] = _names(editor)
    simple = {
        "title": ("title",),
        "container-title": _CONTAINER,
        "volume": ("volume",),
        "issue": ("number", "issue"),
        "publisher": ("publisher", "institution", "school", "organization"),
        "publisher-place": ("address", "location"),
        "edition": ("edition",),
        "URL": ("url",),
    }
    for csl, names in simple.items():
        value = _value(entry, fixes, *names)
        if value:
            item[csl] = value
    pages = _value(entry, fixes, "pages")
    if pages:
        item["page"] = re.sub(r"\s*[-\u2013\u2014]+\s*", "-", pages)
    doi = clean_doi(fixes.get("doi") or entry.get("doi"))
    if doi:
        item["DOI"] = doi
    year = parse_year(fixes.get("year") or entry.get("year") or entry.get("date"))
    if year is not None:
        item["issued"] = {"date-parts": [[year]]}
    if item["type"] == "article-journal" and "container-title" not in item:
        item["type"] = "article"
    return item


def _shield(value: Any) -> Any:
    """Replace ``<``, ``>`` and ``&`` in every string by private-use stand-ins (and show
    control and bidirectional characters as escapes)."""
    if isinstance(value, str):
        return "".join(_PRIVATE.get(ch, ch) for ch in visible(value))
    if isinstance(value, list):
        return [_shield(v) for v in value]
    if isinstance(value, dict):
        return {k: (v if k == "id" else _shield(v)) for k, v in value.items()}
    return value


def _safe_html(rendered: str) -> str:
    """Escape citeproc's HTML, re-admit only its own formatting tags, restore shielded text."""
    escaped = html.escape(rendered, quote=True)
    escaped = _SAFE_TAG.sub(lambda m: html.unescape(m.group(0)), escaped)
    return "".join(_RESTORE.get(ch, ch) for ch in escaped)


def format_references(items: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Format CSL-JSON ``items`` as HTML snippets, keyed by item id.

    Bibliography text is shielded before formatting, so only the style's own ``<i>``, ``<b>``,
    ``<sup>``, ``<sub>`` and small-caps tags survive as markup.  An item citeproc cannot
    format gets a plain, escaped fallback.
    """
    from citeproc import (
        Citation,
        CitationItem,
        CitationStylesBibliography,
        CitationStylesStyle,
        formatter,
    )
    from citeproc.source.json import CiteProcJSON

    out: dict[str, str] = {}
    if not items:
        return out
    style = CitationStylesStyle(STYLE, validate=False)
    for item in items:
        key = str(item["id"])
        try:
            source = CiteProcJSON([_shield(dict(item, id="item"))])
            bib = CitationStylesBibliography(style, source, formatter.html)
            bib.register(Citation([CitationItem("item")]))
            rendered = "".join(str(part) for part in bib.bibliography()[0])
            out[key] = _safe_html(rendered)
        except Exception:  # a formatter failure must not lose the report
            out[key] = html.escape(visible(_fallback(item)))
    return out


def _fallback(item: Mapping[str, Any]) -> str:
    names = "; ".join(
        n.get("literal") or f"{n.get('family', '')}, {n.get('given', '')}"
        for n in item.get("author", [])
    )
    year = item.get("issued", {}).get("date-parts", [[""]])[0][0]
    parts = [p for p in (names, f"({year})" if year else "", item.get("title", "")) if p]
    return " ".join(str(p) for p in parts)
