"""Markdown documents (pandoc, Quarto, R Markdown) -> :class:`~citewarden.model.ParsedDocument`.

Citation keys follow pandoc's grammar (``citeKey`` / ``simpleCiteIdentifier``):

* ``@key`` where the key starts with a letter, digit or ``_`` and goes on with letters,
  digits, ``_`` and single internal punctuation ``:.#$%&-+?<>~/`` (kept only when a key
  character follows; ``:`` and ``/`` are also kept before a ``/``), so trailing punctuation
  is not part of the key;
* ``@{key}``: anything without whitespace, braces balanced (``@{https://doi.org/...}``);
  ``@{}`` is a citation with an empty key (zero-length span inside the braces);
* the ``@`` (or the ``-`` of ``-@key``) must not follow a letter, digit or ``.``, so e-mail
  addresses (``foo@bar.com``) are not citations.

Citation ``command`` names the form: ``"normal"`` inside a bracketed group ``[see @a, p. 3;
@b]`` (``command_span`` is the group), ``"suppress-author"`` for ``-@a``, ``"in-text"`` for a
bare ``@a`` (``@a [p. 3]`` included; ``command_span`` is ``@a``), ``"nocite"`` for keys in a
YAML ``nocite:``.  The ids of the CSL items of a YAML ``references:`` field are keys the
document defines (:attr:`~citewarden.model.ParsedDocument.bibitems`); as in pandoc, a later
metadata block's ``references:`` (and ``nocite:`` and ``bibliography:``) replaces an earlier
one's.  A bracket is a citation group when every ``;``-separated part holds a
key and it does not open a link, a reference link, an attribute span or an inline note.
What pandoc versions read otherwise is a
:class:`~citewarden.parsing.pandoc_syntax.PandocDialect` (``-@a`` outside brackets, and
the ``]`` that ends a citation group).

Not read as text: inline code spans (any number of backticks), fenced (```` ``` ```` and
``~~~``) and indented code blocks, HTML comments, HTML tags and the content of ``<pre>``,
``<script>``, ``<style>`` and ``<textarea>`` elements, autolinks ``<...>``, link destinations
``](...)``, backslash escapes, Quarto shortcodes ``{{< ... >}}`` (an ``{{< include file >}}`` alone on its line is
an include link, which a Quarto project follows, as is a knitr chunk's ``child = "a.Rmd"``
in an R Markdown or Quarto document), pandoc example-list labels
(``(@good)``, ``@good.``, ``@good)`` starting a block) and references to them, footnote
references ``[^@x]``, footnotes no note reference names outside the footnotes (pandoc drops
them, and all but the last definition of a label), a braced key holding the ``]`` that ends the bracket around it
(``[@{a]b} ...``, a citation only in a citation group ``[@{a]b}]``), Quarto
cross-references in a ``.qmd`` document (``@fig-plot``, ``@sec-y`` ...; pandoc itself cites
them, and pandoc-crossref's ``@fig:plot``, as any key; in a ``.md`` file of a Quarto project
the dangling check leaves them out, and ``@fig:plot`` where the document runs pandoc-crossref:
:mod:`~citewarden.parsing.pandoc_filters`), and YAML metadata blocks (read as
metadata instead: front matter, and later blocks that parse as a YAML mapping).
``<!-- citewarden: ignore -->`` suppresses findings on its line and the next.

The block structure is found by :mod:`~citewarden.parsing.markdown_blocks`, citations by
the inline scan of :mod:`~citewarden.parsing.markdown_inline`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path

from citewarden.model import (
    Citation,
    CitationKind,
    Code,
    CompletionContext,
    DocumentKind,
    Entry,
    Finding,
    Link,
    LinkKind,
    Location,
    ParsedDocument,
    Span,
    quoted,
)
from citewarden.parsing import is_inline_r, is_markdown, pandoc_bibliography_format
from citewarden.parsing.markdown_blocks import (
    block_structure,
    read_blocks,
    string_citations,
    unread_notes_dropped,
)
from citewarden.parsing.markdown_inline import (
    _SIMPLE_KEY_RE,
    _Pending,
    dropped_by_brackets,
    is_quarto_crossref,
)
from citewarden.parsing.pandoc_syntax import PANDOC_2, PANDOC_3_9, PandocDialect
from citewarden.parsing.yamlmeta import read_metadata

# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


def parse_markdown(path: Path, text: str, dialect: PandocDialect = PANDOC_3_9) -> ParsedDocument:
    """Summarise one Markdown file: citations (text and YAML ``nocite``), bibliography links,
    ``nocite: '@*'``, inline ``references:``, suppressed lines and YAML problems, with exact
    spans, as the pandoc of ``dialect`` reads them.  Never raises."""
    blocks, scan = read_blocks(path, text, dialect)
    quarto = path.suffix.lower() == ".qmd"
    citations: list[Citation] = []
    links: list[Link] = []
    problems: list[Finding] = []
    nocite_all = False
    references: list[tuple[str, Span]] = []
    values: dict[str, list[Span]] = {}  # each top-level field's values read so far
    metadata_files: list[Link] = []
    for meta in blocks.metadata:
        replaced = [span for name in meta.fields for span in values.get(name, ())]
        if replaced:  # pandoc keeps the last block's field
            citations = _not_replaced(citations, replaced)
        for name, span in meta.fields.items():
            values.setdefault(name, []).append(span)
        if meta.sets_nocite:  # pandoc keeps the last block's field
            citations = [c for c in citations if c.kind is not CitationKind.NOCITE]
            nocite_all = meta.nocite_all
        citations.extend(meta.citations)
        if meta.sets_bibliography:  # pandoc keeps the last block's field
            links = []
        links.extend(meta.links)
        problems.extend(meta.problems)
        if meta.references is not None:  # pandoc keeps the last block's field
            references = meta.references
        metadata_files.extend(meta.metadata_files)
    examples = frozenset(blocks.examples)
    pending = scan.pending
    if dialect.brackets_across_paragraphs:
        pending = _not_dropped(pending, [(begin, end) for _, begin, end in scan.joined])
    if blocks.notes:
        labels = [label for meta in blocks.metadata for label in meta.note_labels]
        pending = unread_notes_dropped(pending, blocks.notes, scan.note_refs, labels)
    for p in pending:
        if examples and _is_example_reference(text, p, examples):
            continue
        if quarto and is_quarto_crossref(p.key):
            continue
        if p.group is not None:
            command = "suppress-author" if p.dash else "normal"
            command_span = p.group
        elif p.dash and dialect.bare_suppress_author:
            command, command_span = "suppress-author", Span(p.start, p.end)
        else:  # pandoc 2 reads the "-" of a bare -@key as text
            command, command_span = "in-text", Span(p.start + p.dash, p.end)
        citations.append(Citation(p.key, p.span, command, command_span, CitationKind.CITE))
    citations.sort(key=lambda c: c.span.start)
    includes = quarto_includes(text, blocks.skip) if "include" in text else []
    includes = [*metadata_files, *includes]
    if "child" in text:
        children = knitr_children(text, blocks.skip, blocks.indented)
        includes = sorted((*includes, *children), key=_at)
    unread = [_unread_bibliography(path, link, dialect) for link in links]
    stops = [problem for problem in unread if problem is not None]
    return ParsedDocument(
        path=path,
        kind=DocumentKind.MARKDOWN,
        citations=tuple(citations),
        links=(
            *(link for link, problem in zip(links, unread, strict=True) if problem is None),
            *includes,
        ),
        nocite_all=nocite_all,
        bibitems=tuple(references),
        suppressed_lines=frozenset(scan.suppressed),
        problems=(*problems, *stops),
        failed=bool(stops),
    )


#: a Quarto ``{{< include file >}}`` shortcode alone on its line
_INCLUDE = re.compile(
    r"^[ \t]*+\{\{<[ \t]++include[ \t]++"
    r"(?:\"([^\"\n]++)\"|'([^'\n]++)'|([^\s\"']\S*?))[ \t]*+>\}\}[ \t]*+\r?$",
    re.M,
)


def quarto_includes(text: str, skip: list[tuple[int, int]]) -> list[Link]:
    """The files the ``{{< include file >}}`` shortcodes of ``text`` name, each alone on its
    line outside the ``skip`` regions (code, comments): Quarto puts the file's text there
    before pandoc reads the document (a ``.qmd`` document, or any in a Quarto project:
    :class:`~citewarden.project_graph.ProjectGraph` follows them there only)."""
    found = []
    starts = [start for start, _ in skip]
    for m in _INCLUDE.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and m.start() < skip[k][1]:
            continue
        g = next(g for g in (1, 2, 3) if m.group(g) is not None)
        found.append(Link(LinkKind.INCLUDE, m.group(g), Span(m.start(g), m.end(g)), "include"))
    return found


#: a knitr code chunk's fence whose options name child documents (``child = "a.Rmd"``,
#: ``child = c("a.Rmd", "b.Rmd")``)
_CHILD_CHUNK = re.compile(
    r"^[ \t]*+(?:`{3,}+|~{3,}+)[ \t]*+\{[A-Za-z]++[ \t,][^}\n]*?\bchild[ \t]*+=[ \t]*+"
    r"(c\([^)\n]*+\)|\"[^\"\n]++\"|'[^'\n]++')",
    re.M,
)
_QUOTED = re.compile(r"\"([^\"\n]++)\"|'([^'\n]++)'")


def knitr_children(
    text: str, skip: list[tuple[int, int]], indented: list[tuple[int, int]]
) -> list[Link]:
    """The child documents the knitr code chunks of ``text`` name (``{r, child =
    "part.Rmd"}``), each a fenced code block of the ``skip`` regions, none of the
    ``indented`` ones: knitr puts each one's text, knitted, in the chunk's place before
    pandoc reads the document (an R Markdown or Quarto one:
    :class:`~citewarden.project_graph.ProjectGraph` follows them there only)."""
    found = []
    starts = {start for start, _ in skip} - {start for start, _ in indented}
    for m in _CHILD_CHUNK.finditer(text):
        if m.start() not in starts:
            continue  # no fenced code block starts there
        for q in _QUOTED.finditer(text, m.start(1), m.end(1)):
            g = 1 if q.group(1) is not None else 2
            found.append(Link(LinkKind.INCLUDE, q.group(g), Span(q.start(g), q.end(g)), "child"))
    return found


def _at(link: Link) -> int:
    return link.span.start


def _not_replaced(citations: list[Citation], replaced: list[Span]) -> list[Citation]:
    """``citations`` less those in the ``replaced`` values of metadata fields (``abstract:
    see @a``) that a later block sets again, whose value pandoc keeps instead."""
    return [
        c
        for c in citations
        if c.command != "metadata" or not any(s.start <= c.span.start < s.end for s in replaced)
    ]


def _unread_bibliography(path: Path, link: Link, dialect: PandocDialect) -> Finding | None:
    """The problem of a bibliography pandoc cannot tell the format of by its extension
    (pandoc stops at it, so no citation is found), or reads as RIS, which citewarden
    cannot: either way the keys of the document's project are not known.  None for one
    read as BibTeX, CSL-JSON or CSL-YAML, or downloaded (a URL)."""
    target = link.target
    if "://" in target or is_inline_r(target):
        return None
    fmt = pandoc_bibliography_format(target, dialect is PANDOC_2)
    if fmt == "ris":
        why = f"{quoted(target)} is a RIS file, which pandoc reads and citewarden cannot"
    elif fmt is None:
        why = (
            f"pandoc cannot read {quoted(target)}: it knows a bibliography's format by its "
            "extension (.bib, .bibtex, .biblatex, .json, .yaml, .yml"
            + (")" if dialect is PANDOC_2 else ", .ris)")
            + ' and stops at any other ("Could not determine bibliography format")'
        )
    else:
        return None
    return Finding(
        Code.FILE_UNREADABLE,
        Location(path, link.span),
        f"{why}; the keys the document's bibliographies define are not known, so no "
        "citation is reported as undefined",
    )


def inline_references(path: Path, text: str) -> tuple[Entry, ...]:
    """The CSL items of the ``references:`` field pandoc reads from the Markdown document
    or metadata file ``path`` (a document's last metadata block that sets it), as entries
    whose spans point into ``text``."""
    if not is_markdown(path):  # a metadata file, whatever its name
        meta = read_metadata(path, text, 0, len(text), string_citations, project=True)
        return tuple(meta.reference_entries)
    entries: list[Entry] = []
    for meta in block_structure(path, text).metadata:
        if meta.references is not None:  # pandoc keeps the last block's field
            entries = meta.reference_entries
    return tuple(entries)


def nocite_block(text: str) -> tuple[int, int] | None:
    """``(start, end)`` of the YAML text of the metadata block whose ``nocite`` pandoc
    reads: the last one that sets it (pandoc keeps the later block's field); None when
    none does."""
    blocks = block_structure(Path(), text)
    found = [r for r, m in zip(blocks.regions, blocks.metadata, strict=True) if m.sets_nocite]
    return found[-1] if found else None


#: what differs between the readings of :class:`PandocDialect`\ s (``-@`` and ``@{``, a
#: bibliography's extension pandoc 3 alone knows: ``.ris``, ``.bib`` and ``.json`` not in
#: lower case; ``\\expandafter``, a bracket before a ``[`` or ``{``; a tag in a bracket is
#: :func:`_tag_in_bracket`'s)
_DIALECT_SENSITIVE = re.compile(
    r"-@|@\{|\.(?:ris|(?!bib)[Bb][Ii][Bb]|(?!json)[Jj][Ss][Oo][Nn])(?![A-Za-z])"
    r"|\\expandafter|\][\[{]"
    # "@" in a raw TeX command's name (pandoc 2), \\hl and \\st's argument, \\hfill,
    # \\vfill and \\today's options (pandoc 3 reads none, nor \\newline's in 3.9),
    # \\caption's second option, \\hskip and \\vskip's arguments (pandoc 3 reads a
    # dimension only), a
    # definition's marker (pandoc 3.9 ends list items there, and reads one alone on its
    # line), a note's marker in a link reference definition's line (pandoc 3 reads
    # "[^a b]" there as a label)
    r"|\\[A-Za-z]++@|\\(?:hl|st|hfill|vfill|today|newline|caption|hskip|vskip)(?![A-Za-z])"
    r"|^[ \t>]*+[:~](?:[ \t]|\r?$)"
    r"|^[ \t>]*+\[[^\]\n]*+\]:[^\n]*?\[\^",
    re.M,
)


#: what decides whether a tag stands in a bracket
_BRACKET_OR_TAG = re.compile(r"[\[\]\n<]")


def _tag_in_bracket(text: str) -> bool:
    """Whether a ``[`` is followed on its line by a tag (``<`` and a letter or ``/``) with no
    ``]`` or other ``<`` between, read in one pass (pandoc 3 before 3.8 reads such a bracket
    as a citation group where the others drop its text up to the ``]``)."""
    if "<" not in text or "[" not in text:
        return False
    open_bracket = False
    for m in _BRACKET_OR_TAG.finditer(text):
        ch = m.group()
        if ch == "[":
            open_bracket = True
        elif ch == "<":
            after = text[m.end() : m.end() + 1]
            if open_bracket and (after == "/" or (after.isascii() and after.isalpha())):
                return True
            open_bracket = False
        else:
            open_bracket = False
    return False


#: a list item's marker at the start of a line (an HTML comment may go on over the items)
_LIST_ITEM = re.compile(r"^[ \t>]*(?:[-+*]|[0-9#]+[.)]|\(?[A-Za-z]{1,4}[.)])[ \t]", re.M)


#: a div fence with a class word (pandoc 2 reads it as text when no fence closes it)
_DIV_WORD_LINE = re.compile(r"^[ \t>]*+:{3,}+[ \t]*+[^\s:]", re.M)
#: a bracket ``[^...]:`` with white space in it (pandoc 3 alone reads a link reference
#: definition's label)
_CARET_LABEL = re.compile(r"\[\^[^\]\s]*+[ \t\r\f\v][^\]\n]*+\]:")


def reads_alike(text: str) -> bool:
    """Every pandoc version reads the citations and bibliography names of ``text`` alike
    (no ``-@key``, no braced key, no ``.ris``, ``.BIB`` ..., no HTML comment with a list
    item, no div fence with a class word, no ``[^a b]:``): no need to read it again for another
    :class:`PandocDialect`."""
    if "<!--" in text and _LIST_ITEM.search(text) is not None:
        return False
    if ":::" in text and _DIV_WORD_LINE.search(text) is not None:
        return False
    if "[^" in text and _CARET_LABEL.search(text) is not None:
        return False
    if dropped_by_brackets(text, []) or _tag_in_bracket(text):
        return False
    return _DIALECT_SENSITIVE.search(text) is None


def _not_dropped(pending: list[_Pending], dropped: list[tuple[int, int]]) -> list[_Pending]:
    """The citations of ``pending`` outside the sorted, disjoint ``dropped`` stretches."""
    if not dropped:
        return pending
    starts = [start for start, _ in dropped]
    kept = []
    for p in pending:
        k = bisect_right(starts, p.start) - 1
        if k < 0 or p.start >= dropped[k][1]:
            kept.append(p)
    return kept


def _is_example_reference(text: str, p: _Pending, labels: frozenset[str]) -> bool:
    """``(@good)`` or ``@good`` with an example-list label: a marker or a reference to one
    (pandoc prints the example's number), not a citation."""
    return p.key in labels and not p.dash and p.group is None


def parse_metadata_yaml(path: Path, text: str) -> ParsedDocument:
    """A Quarto ``_quarto.yml`` / ``_metadata.yml``, a file a ``metadata-files:`` names or
    a pandoc defaults file: its ``bibliography`` links, ``nocite`` keys, ``references``
    ids and ``metadata-files`` include links (kind MARKDOWN: it
    applies to the Markdown documents of its project)."""
    meta = read_metadata(path, text, 0, len(text), string_citations, project=True)
    return ParsedDocument(
        path=path,
        kind=DocumentKind.MARKDOWN,
        citations=tuple(meta.citations),
        links=(*meta.links, *meta.metadata_files),
        nocite_all=meta.nocite_all,
        bibitems=tuple(meta.references or ()),
        problems=tuple(meta.problems),
    )


_PARTIAL = re.compile(r"@(?:\{[^\s{}]*|[\w:.#$%&+?<>~/\-]*)\Z")
_BRACED_TAIL = re.compile(r"[^\s{}]*")


def completion_context(text: str, offset: int) -> CompletionContext | None:
    """The partial key at ``offset`` when the cursor is right after an ``@`` that starts a
    citation, or inside its key (not in e-mail addresses, code or comments)."""
    if not 0 <= offset <= len(text):
        return None
    line_start = text.rfind("\n", 0, offset) + 1
    m = _PARTIAL.search(text, line_start, offset)
    if m is None:
        return None
    at = m.start()
    _, scan = read_blocks(Path(), text)
    if at not in scan.at_signs:
        return None
    if text[at + 1 : at + 2] == "{":
        if offset < at + 2:  # between "@" and "{"
            return None
        start = at + 2
        tail = _BRACED_TAIL.match(text, offset)
        end = tail.end() if tail else offset
    else:
        start = at + 1
        key = _SIMPLE_KEY_RE.match(text, start)
        end = max(offset, key.end()) if key else offset
    return CompletionContext(text[start:offset], Span(start, end))
