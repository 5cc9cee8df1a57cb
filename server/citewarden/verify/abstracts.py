"""Abstracts as the sources give them, turned into bounded plain text (pure).

OpenAlex sends an ``abstract_inverted_index`` (word -> positions), Crossref a JATS fragment
(``<jats:p>`` ...), Semantic Scholar, arXiv and PubMed plain or lightly tagged text.  Every
abstract is cut at :data:`MAX_ABSTRACT` characters so that a record stays small in the cache.
"""

from __future__ import annotations

import html
import re
from typing import Any

#: Longest abstract kept (characters); longer ones are cut at a word boundary.
MAX_ABSTRACT = 6000
#: Largest inverted index read (positions); a bigger one is not an abstract.
MAX_POSITIONS = 5000

#: A JATS, MathML or HTML tag: a name right after ``<`` (or ``</``), then attributes.  A
#: ``<`` or ``>`` of the text itself is no tag (``CD4 < 200 cells or VL >200``), nor is what
#: stands between them.  A CDATA section's marks go, its text stays.
_VALUE = r"(?:\"[^\"<>]{0,1000}\"|'[^'<>]{0,1000}'|[^\s\"'<>=`]{1,200})"
_TAG = re.compile(
    rf"</?[A-Za-z][\w:.-]{{0,50}}(?:\s+[A-Za-z_:][\w:.-]{{0,50}}(?:\s*=\s*{_VALUE})?){{0,30}}\s*/?>"
    r"|<!--.{0,300}?-->|<!\[CDATA\[|\]\]>",
    re.DOTALL,
)
_SPACE = re.compile(r"\s+")
_LEAD = re.compile(r"^(?:abstract|summary)\s*[:.\-]?\s+", re.IGNORECASE)


def _bounded(text: str) -> str | None:
    text = _SPACE.sub(" ", text).strip()
    text = _LEAD.sub("", text)
    if not text:
        return None
    if len(text) > MAX_ABSTRACT:
        cut = text.rfind(" ", 0, MAX_ABSTRACT)
        text = text[: cut if cut > 0 else MAX_ABSTRACT]
    return text


def clean_abstract(value: Any) -> str | None:
    """Plain text of an abstract given as text with JATS/HTML markup; None when empty or
    not a string."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = _TAG.sub(" ", value[: MAX_ABSTRACT * 4])
    if "&" in text:
        text = html.unescape(text)
    return _bounded(text)


def from_inverted_index(index: Any) -> str | None:
    """The text of an OpenAlex ``abstract_inverted_index`` (None when absent or malformed)."""
    if not isinstance(index, dict) or not index:
        return None
    slots: dict[int, str] = {}
    for word, positions in index.items():
        if not isinstance(word, str) or not isinstance(positions, list):
            return None
        for p in positions:
            if not isinstance(p, int) or p < 0 or p >= MAX_POSITIONS:
                continue
            slots.setdefault(p, word)
    if not slots:
        return None
    return _bounded(" ".join(slots[p] for p in sorted(slots)))
