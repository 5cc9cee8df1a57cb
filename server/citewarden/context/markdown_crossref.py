"""pandoc-crossref's references in a Markdown citing sentence (pure): in a document whose
front matter runs the filter (``filters: [pandoc-crossref]``, a ``- pandoc-crossref`` item,
``--filter pandoc-crossref`` among pandoc's arguments), ``@fig:plot``, ``[@tbl:a]`` and
``[-@sec:x]`` are cross-references the filter turns into a number (``fig. 1``), no
citations: they read :data:`~citewarden.context.words.REF_SHOWN`, as a LaTeX ``\\ref`` does,
and have no citing sentence of their own.  A group that mixes them with citations is left
to pandoc's citation processing, as the filter leaves it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewarden.model import Citation, DocumentKind, Span

#: the prefixes of pandoc-crossref's labels (figures, sections, tables, equations, listings),
#: the first letter capital at a sentence's start (``@Fig:plot``)
_LABEL = re.compile(r"[fF]ig|[sS]ec|[tT]bl|[eE]q|[lL]st")
_FRONT_MATTER = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*$", re.S | re.M)
_RUNS = re.compile(
    r"^[ \t]*-[ \t]+[\"']?pandoc-crossref[\"']?[ \t]*(?:#.*)?$"  # a list item
    r"|filters?[\"']?[ \t]*:[ \t]*\[[^\]\n]*\bpandoc-crossref\b"  # a flow list
    r"|filters?[\"']?[ \t]*:[ \t]*[\"']?pandoc-crossref\b"  # a single value
    r"|(?:--filter|-F)[\"']?[ \t,=]+[\"']?pandoc-crossref\b",  # pandoc's arguments
    re.M,
)


def runs_pandoc_crossref(text: str) -> bool:
    """Whether the front matter of the Markdown document ``text`` runs pandoc-crossref."""
    if "pandoc-crossref" not in text[:20_000]:
        return False
    m = _FRONT_MATTER.match(text[:20_000])
    return m is not None and _RUNS.search(m.group(1)) is not None


def is_label(key: str) -> bool:
    """``key`` is a pandoc-crossref label (``fig:plot``, ``sec:intro``, ``Tbl:x``)."""
    head, colon, rest = key.partition(":")
    return bool(colon and rest) and _LABEL.fullmatch(head) is not None


def crossrefs(text: str, citations: Sequence[Citation], kind: DocumentKind) -> frozenset[Span]:
    """The command spans of ``citations`` that are pandoc-crossref's references in ``text``:
    each citation group (or in-text citation) whose keys are all labels."""
    if kind is DocumentKind.LATEX or not runs_pandoc_crossref(text):
        return frozenset()
    groups: dict[Span, bool] = {}
    for c in citations:
        groups[c.command_span] = groups.get(c.command_span, True) and is_label(c.key)
    return frozenset(span for span, labels in groups.items() if labels)
