"""Whether a Markdown document runs the pandoc-crossref filter, and which of its citations
the filter takes (pure, no YAML loaded).

pandoc-crossref turns each citation whose key is one of its labels (``@fig:plot``,
``[@tbl:a]``, ``[-@sec:x]``, ``@Eq:one`` at a sentence's start) into a number, or into
``¿fig:x?`` for a label no element has, before citeproc runs: they are no citations then,
and in a group that mixes them with citations (``[@fig:a; @smith]``) only the labels are
taken.  A document runs it when its front matter or a project metadata file
(``_quarto.yml``, ``_metadata.yml``) names it: ``filters: [pandoc-crossref]``, a
``- pandoc-crossref`` item, or ``--filter pandoc-crossref`` among pandoc's arguments
(R Markdown's ``pandoc_args``).
"""

from __future__ import annotations

import re

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
#: how far into a document its front matter is looked for
_REACH = 20_000


def runs_pandoc_crossref(text: str) -> bool:
    """Whether the front matter of the Markdown document ``text`` runs pandoc-crossref."""
    if "pandoc-crossref" not in text[:_REACH]:
        return False
    m = _FRONT_MATTER.match(text[:_REACH])
    return m is not None and _RUNS.search(m.group(1)) is not None


def names_pandoc_crossref(yaml_text: str) -> bool:
    """Whether the project metadata file ``yaml_text`` (``_quarto.yml``) runs pandoc-crossref."""
    return "pandoc-crossref" in yaml_text and _RUNS.search(yaml_text) is not None


def is_label(key: str) -> bool:
    """``key`` is a pandoc-crossref label (``fig:plot``, ``sec:intro``, ``Tbl:x``)."""
    head, colon, rest = key.partition(":")
    return bool(colon and rest) and _LABEL.fullmatch(head) is not None


__all__ = ["is_label", "names_pandoc_crossref", "runs_pandoc_crossref"]
