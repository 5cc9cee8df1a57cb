"""pandoc-crossref's references in a Markdown citing sentence (pure): in a document whose
front matter runs the filter (``filters: [pandoc-crossref]``, a ``- pandoc-crossref`` item,
``--filter pandoc-crossref`` among pandoc's arguments, or a metadata file of its project,
such as Quarto's ``_quarto.yml``, that says so), ``@fig:plot``, ``[@tbl:a]`` and
``[-@sec:x]`` are cross-references the filter turns into a number (``fig. 1``), no
citations: they read :data:`~citewarden.context.words.REF_SHOWN`, as a LaTeX ``\\ref`` does,
and have no citing sentence of their own.  A group that mixes them with citations is left
to pandoc's citation processing, as the filter leaves it.  Without the filter a label that
names no entry of the bibliography (``@fig:plot`` in a Quarto document, whose own labels
are ``@fig-plot``) reads so too: it was meant for a figure, and no build shows a name for it.
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from citewarden.model import Citation, DocumentKind, Span
from citewarden.parsing.pandoc_filters import is_label, runs_pandoc_crossref


def crossrefs(
    text: str,
    citations: Sequence[Citation],
    kind: DocumentKind,
    runs: bool | None = None,
    known: Container[str] | None = None,
) -> frozenset[Span]:
    """The command spans of ``citations`` that are pandoc-crossref's references in ``text``:
    each citation group (or in-text citation) whose keys are all labels; ``runs``: whether
    the document runs the filter (its project's ``_quarto.yml`` may say so), read from its
    front matter when not given.  Without the filter, a group whose keys are all labels that
    no entry of ``known`` (the keys of the bibliography, when given) has is one too: the
    document meant a figure or a section, and no build shows a name for it (pandoc shows
    ``fig:plot?``)."""
    if kind is DocumentKind.LATEX:
        return frozenset()
    if runs is None:
        runs = runs_pandoc_crossref(text)
    if not runs and known is None:
        return frozenset()
    groups: dict[Span, bool] = {}
    for c in citations:
        label = is_label(c.key) and (runs or (known is not None and c.key not in known))
        groups[c.command_span] = groups.get(c.command_span, True) and label
    return frozenset(span for span, labels in groups.items() if labels)
