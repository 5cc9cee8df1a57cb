"""Whether a Markdown document runs the pandoc-crossref filter, and which of its citations
the filter takes (pure, no YAML loaded).

pandoc-crossref turns each citation whose key is one of its labels (``@fig:plot``,
``[@tbl:a]``, ``[-@sec:x]``, ``@Eq:one`` at a sentence's start) into a number, or into
``¿fig:x?`` for a label no element has, before citeproc runs: they are no citations then,
and in a group that mixes them with citations (``[@fig:a; @smith]``) only the labels are
taken.  A document runs it when its front matter or a project metadata file
(``_quarto.yml``, ``_metadata.yml``) names it: ``filters: [pandoc-crossref]``, a
``- pandoc-crossref`` item, or ``--filter pandoc-crossref`` among pandoc's arguments
(R Markdown's ``pandoc_args``), and citeproc does not come before it there: pandoc runs
filters, ``citeproc`` among them, and ``--citeproc`` in the order given.
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


#: an item of a list or a word of pandoc's arguments
_WORD = re.compile(r"[^\s,\[\]\"'#]+")
#: citeproc as a filter or pandoc's option
_CITEPROC = frozenset({"citeproc", "--citeproc", "-C"})
_ITEM = re.compile(r"[ \t]*-[ \t]")


def runs_pandoc_crossref(text: str) -> bool:
    """Whether the front matter of the Markdown document ``text`` runs pandoc-crossref
    before citeproc."""
    if "pandoc-crossref" not in text[:_REACH]:
        return False
    m = _FRONT_MATTER.match(text[:_REACH])
    return m is not None and names_pandoc_crossref(m.group(1))


def names_pandoc_crossref(yaml_text: str) -> bool:
    """Whether the YAML ``yaml_text`` (a front matter, a ``_quarto.yml``) runs
    pandoc-crossref before citeproc: not where citeproc comes first in its list of filters
    (``filters: [citeproc, pandoc-crossref]``) or pandoc's arguments (``--citeproc
    --filter pandoc-crossref``), as pandoc runs them in the order given; then citeproc
    reads ``@fig:x`` as a citation."""
    if "pandoc-crossref" not in yaml_text:
        return False
    return any(not _after_citeproc(yaml_text, m) for m in _RUNS.finditer(yaml_text))


def _after_citeproc(text: str, m: re.Match[str]) -> bool:
    """Whether citeproc comes before the pandoc-crossref that ``m`` found, in its list:
    a flow list from its ``[``, a block list from its first item, else its line."""
    at = text.rfind("pandoc-crossref", m.start(), m.end())
    line = text.rfind("\n", 0, at) + 1
    bracket = text.rfind("[", line, at)
    start = bracket if bracket >= 0 else line
    if bracket < 0 and _ITEM.match(text, line):
        indent = text[line : text.index("-", line)]
        while line > 0:
            above = text.rfind("\n", 0, line - 1) + 1
            if not text.startswith(indent + "-", above) or not _ITEM.match(text, above):
                break
            line = start = above
    return any(word in _CITEPROC for word in _WORD.findall(text, start, at))


def is_label(key: str) -> bool:
    """``key`` is a pandoc-crossref label (``fig:plot``, ``sec:intro``, ``Tbl:x``)."""
    head, colon, rest = key.partition(":")
    return bool(colon and rest) and _LABEL.fullmatch(head) is not None


__all__ = ["is_label", "names_pandoc_crossref", "runs_pandoc_crossref"]
