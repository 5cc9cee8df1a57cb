"""Citation metadata in YAML: pandoc front matter, Quarto ``_quarto.yml`` / ``_metadata.yml``
and pandoc defaults files.

Reads ``bibliography:`` (a string or a list), ``nocite:`` (strings or lists of strings
holding ``@key`` citations, ``@*`` for all) and ``references:`` (a list of CSL items, read
as in a CSL-YAML file: their ``id`` values are the keys they define) at the top level,
under ``metadata:`` (in project metadata and pandoc defaults files, not in a document: pandoc
reads a front matter's ``metadata:`` as just another field) and under each ``format:
<name>:`` (Quarto per-format metadata: in a ``.qmd`` document or a project file, not in
other documents, whose pandoc ignores it); and the
citations pandoc's citeproc finds in a document's other metadata, every string at any depth
but under a field whose name ends in ``_`` (pandoc drops it), and in a project file's
top-level prose fields (``title``, ``abstract`` ...), with command ``"metadata"``. The
files a top-level ``metadata-files:`` names (Quarto merges their metadata in) are links.  A
string is read as pandoc reads it: its value, as YAML makes it (quotes, escapes, folding
and indentation undone), read as Markdown by the scanner given, each key's span mapped
back to where it is written.  Spans come from PyYAML's node marks, so they are exact offsets into
the file's text.  A YAML error is returned as a ``yaml-syntax`` finding, never raised.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from citewarden.model import (
    Citation,
    CitationKind,
    Code,
    Entry,
    Finding,
    Link,
    LinkKind,
    Location,
    Span,
)
from citewarden.parsing import is_inline_r, is_metadata
from citewarden.parsing.csl import csl_yaml_items

#: Top-level fields of a project metadata file whose text pandoc renders as prose,
#: citations included (a document's metadata is prose at any depth: :func:`_prose_scalars`).
PROSE_FIELDS = frozenset(
    {"title", "subtitle", "abstract", "description", "summary", "thanks", "dedication"}
)
#: Fields of a metadata scope whose values are not prose to citeproc: read on their own
#: (``bibliography``, ``nocite``, ``references``) or a file name (``csl``).
NOT_PROSE = frozenset({"bibliography", "nocite", "references", "csl"})

#: Quarto's fields naming YAML files whose metadata it merges into the file's.
METADATA_FILES = frozenset({"metadata-files", "metadata-file"})

#: libyaml when present (about ten times faster); its marks count code points too.
_LOADER: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: Reads a metadata string as pandoc reads it, as Markdown: its citations, (key, key start,
#: key end) in the string, and the labels of the footnote references in it.
KeyScanner = Callable[[str], tuple[list[tuple[str, int, int]], list[str]]]


@dataclass(slots=True)
class Metadata:
    """What a YAML block says about citations."""

    links: list[Link] = field(default_factory=list)
    citations: list[Citation] = field(default_factory=list)
    nocite_all: bool = False
    problems: list[Finding] = field(default_factory=list)
    #: The block parsed and its top level is a mapping.
    is_mapping: bool = False
    #: pandoc reads the block as metadata: its top level is a mapping or nothing (only
    #: comments), or it is no YAML (pandoc stops: "YAML parse exception"); a scalar or a
    #: list at its top level makes it text
    is_metadata: bool = True
    #: The ids of the CSL items of its ``references:`` lists, with their spans (None: the
    #: block sets no ``references:``).
    references: list[tuple[str, Span]] | None = None
    #: Those items as entries (CSL-YAML read as a bibliography file's), for verification.
    reference_entries: list[Entry] = field(default_factory=list)
    #: The block sets ``nocite:`` (a later block's replaces it, as in pandoc).
    sets_nocite: bool = False
    #: The block sets ``bibliography:`` (a later block's replaces it, as in pandoc).
    sets_bibliography: bool = False
    #: The labels of the footnote references in its strings (``[^1]``).
    note_labels: list[str] = field(default_factory=list)
    #: Its top-level fields, each with the span of its value (a later block's field
    #: replaces them, as in pandoc).
    fields: dict[str, Span] = field(default_factory=dict)
    #: The files its top-level ``metadata-files:`` (or ``metadata-file:``) names, include
    #: links with command ``"metadata-files"``: Quarto merges their metadata into it.
    metadata_files: list[Link] = field(default_factory=list)


def read_metadata(
    path: Path, text: str, start: int, end: int, scan_keys: KeyScanner, project: bool = False
) -> Metadata:
    """Compose ``text[start:end]`` as YAML and collect bibliography links and nocite keys
    with spans in ``text``'s offsets; ``project``: read as a project metadata file
    whatever its name (one a ``metadata-files:`` names)."""
    meta = Metadata()
    try:
        root = yaml.compose(text[start:end], Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        where = start + mark.index if mark is not None else start
        where = min(max(where, start), end)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        meta.problems.append(
            Finding(
                Code.YAML_SYNTAX,
                Location(path, Span(where, min(where + 1, end))),
                f"YAML metadata could not be read: {problem}",
            )
        )
        return meta
    except RecursionError:
        meta.problems.append(
            Finding(
                Code.YAML_SYNTAX,
                Location(path, Span(start, start)),
                "YAML metadata could not be read: nested too deeply",
            )
        )
        return meta
    if not isinstance(root, yaml.MappingNode):
        meta.is_metadata = root is None
        return meta
    meta.is_mapping = True
    for key_node, value in _members(root):
        if isinstance(key_node, yaml.ScalarNode):
            meta.fields[str(key_node.value)] = Span(
                start + value.start_mark.index, start + value.end_mark.index
            )
    # an alias is its anchor's node again: each node is read once for each thing it can be
    scopes_seen: set[int] = set()
    seen: dict[str, set[int]] = {
        "bibliography": set(),
        "nocite": set(),
        "prose": set(),
        "references": set(),
        "metadata-files": set(),
    }
    project_file = project or is_metadata(path)
    scopes = list(_scopes(root, scopes_seen, project_file, project_file or _is_qmd(path)))
    knitted = path.suffix.lower() in (".rmd", ".qmd")
    for mapping in scopes:
        for key_node, value in _members(mapping):
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            if key_node.value == "bibliography":
                meta.sets_bibliography = True
                for scalar in _scalars(value, seen["bibliography"]):
                    located = _scalar_span(text, start, scalar)
                    if located is not None:
                        target, span = located
                        # pandoc reads the name as Markdown text; R code is run before
                        if not project_file and not (knitted and is_inline_r(target)):
                            target = markdown_text(target)
                        meta.links.append(Link(LinkKind.BIBLIOGRAPHY, target, span, "bibliography"))
            elif key_node.value == "nocite":
                meta.sets_nocite = True
                for scalar in _scalars(value, seen["nocite"]):
                    s = start + scalar.start_mark.index
                    e = start + scalar.end_mark.index
                    for key, ks, ke in _string_keys(text, start, scalar, scan_keys, meta):
                        if key == "*":
                            meta.nocite_all = True
                            continue
                        meta.citations.append(
                            Citation(key, Span(ks, ke), "nocite", Span(s, e), CitationKind.NOCITE)
                        )
            elif key_node.value == "references":
                _read_references(path, text, start, end, value, meta, seen["references"])
            elif mapping is root and key_node.value in METADATA_FILES:
                for scalar in _scalars(value, seen["metadata-files"]):
                    located = _scalar_span(text, start, scalar)
                    if located is not None:
                        target, span = located
                        meta.metadata_files.append(
                            Link(LinkKind.INCLUDE, target, span, "metadata-files")
                        )
            elif project_file and mapping is root and key_node.value in PROSE_FIELDS:
                _read_prose(text, start, _all_scalars(value, seen["prose"]), scan_keys, meta)
    if not project_file:
        scope_ids = {id(mapping) for mapping in scopes}
        _read_prose(text, start, _prose_scalars(root, scope_ids, seen["prose"]), scan_keys, meta)
    return meta


def _read_prose(
    text: str, start: int, scalars: Iterator[yaml.ScalarNode], scan_keys: KeyScanner, meta: Metadata
) -> None:
    """The citations of ``scalars``, metadata pandoc reads as Markdown."""
    for scalar in scalars:
        s = start + scalar.start_mark.index
        e = start + scalar.end_mark.index
        for key, ks, ke in _string_keys(text, start, scalar, scan_keys, meta):
            meta.citations.append(Citation(key, Span(ks, ke), "metadata", Span(s, e)))


def _string_keys(
    text: str, base: int, scalar: yaml.ScalarNode, scan_keys: KeyScanner, meta: Metadata
) -> Iterator[tuple[str, int, int]]:
    """The citations of the string ``scalar`` as pandoc reads them: its value (YAML's
    quoting, escapes, folding and indentation undone) read as Markdown, each key's span
    where the key stands in ``text`` (the YAML starting at ``base``); its footnote
    references are noted in ``meta``."""
    value = scalar.value
    if not isinstance(value, str) or ("@" not in value and "[^" not in value):
        return
    keys, labels = scan_keys(value)
    meta.note_labels.extend(labels)
    if not keys:
        return
    where = _source_offsets(
        text, base + scalar.start_mark.index, base + scalar.end_mark.index, scalar.style, value
    )
    for key, vs, ve in keys:
        ks = where[vs]
        yield key, ks, (where[ve - 1] + 1 if ve > vs else ks)


_ESCAPES = {
    "0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
    "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
    "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
}  # fmt: skip
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _source_offsets(text: str, s: int, e: int, style: str | None, value: str) -> list[int]:
    """Where each character of the string ``value`` stands in ``text``, whose YAML
    ``text[s:e]`` it is (``style``: its quoting, ``|`` or ``>`` for a block scalar): the
    characters are matched in order, what YAML drops passed over (quotes, indentation, a
    folded line break, a block scalar's header), an escape matched to the character it
    stands for, a line break YAML folds to a space matched where it was."""
    out: list[int] = []
    j = s
    if style in ("'", '"'):
        j += 1
        e -= 1
    elif style in ("|", ">"):
        nl = text.find("\n", j, e)
        j = e if nl < 0 else nl + 1  # after the header line (indicators, a comment)
    n = len(value)
    i = 0
    while i < n:
        c = value[i]
        if j >= e:
            out.append(min(j, e))
            i += 1
            continue
        t = text[j]
        if t == "\\" and style == '"' and j + 1 < e:
            nxt = text[j + 1]
            width = _HEX_ESCAPES.get(nxt)
            if width is not None:
                size = 2 + width
                try:
                    decoded = chr(int(text[j + 2 : j + size], 16))
                except ValueError:
                    decoded = ""
            else:
                size, decoded = 2, _ESCAPES.get(nxt, "")
            if decoded == c:
                out.append(j)
                i += 1
            j += size  # an escaped line break, or an escape of another character
        elif t == c:
            out.append(j)
            j += 1
            i += 1
        elif t in " \t\r\n" or (t == "'" and style == "'"):
            j += 1  # indentation, a folded line break, a quote's quote
        elif c in " \n":
            out.append(j)  # a line break folded: where the line went on
            i += 1
        else:
            j += 1
    out.append(min(j, e))
    return out


def _prose_scalars(
    root: yaml.MappingNode, scopes: set[int], seen: set[int]
) -> Iterator[yaml.ScalarNode]:
    """Every scalar of a document's metadata pandoc reads as Markdown, in document order,
    at any depth: not under a field whose name ends in ``_``, nor the values of a
    :data:`NOT_PROSE` field of the ``scopes`` mappings (ids)."""
    stack: list[yaml.Node] = [root]
    while stack:
        node = stack.pop()
        if not _first_time(node, seen):
            continue
        if isinstance(node, yaml.ScalarNode):
            yield node
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, yaml.MappingNode):
            skipped = NOT_PROSE if id(node) in scopes else frozenset()
            stack.extend(
                value
                for key, value in reversed(_members(node))
                if isinstance(key, yaml.ScalarNode)
                and not str(key.value).endswith("_")
                and key.value not in skipped
            )


def _members(mapping: yaml.MappingNode) -> list[tuple[yaml.Node, yaml.Node]]:
    """The members of ``mapping`` pandoc reads: of a key given twice, the last."""
    pairs: list[tuple[yaml.Node, yaml.Node]] = mapping.value
    if len(pairs) < 2:
        return pairs
    last = {k.value: i for i, (k, _) in enumerate(pairs) if isinstance(k, yaml.ScalarNode)}
    if len(last) == len(pairs):
        return pairs
    return [
        (k, v)
        for i, (k, v) in enumerate(pairs)
        if not isinstance(k, yaml.ScalarNode) or last[k.value] == i
    ]


def _read_references(
    path: Path,
    text: str,
    start: int,
    end: int,
    value: yaml.Node,
    meta: Metadata,
    seen: set[int],
) -> None:
    """A ``references:`` field: the ids of its CSL items (pandoc reads a list only)."""
    if meta.references is None:
        meta.references = []
    if not isinstance(value, yaml.SequenceNode) or not _first_time(value, seen):
        return
    entries, problems = csl_yaml_items(path, value, start, end - start, text)
    meta.references.extend((entry.key, entry.key_span) for entry in entries)
    meta.reference_entries.extend(entries)
    meta.problems.extend(problems)


def _first_time(node: yaml.Node, seen: set[int]) -> bool:
    """True the first time ``node`` is met: an alias (``*a``) is the anchored node itself,
    so ten aliases of ten aliases of ... (a "billion laughs") are read once each, not
    expanded; the same node gives the same spans, so nothing is lost."""
    if id(node) in seen:
        return False
    seen.add(id(node))
    return True


def _all_scalars(node: yaml.Node, seen: set[int], depth: int = 0) -> Iterator[yaml.ScalarNode]:
    if isinstance(node, yaml.ScalarNode):
        if _first_time(node, seen):
            yield node
    elif depth < 8 and isinstance(node, yaml.SequenceNode) and _first_time(node, seen):
        for item in node.value:
            yield from _all_scalars(item, seen, depth + 1)
    elif depth < 8 and isinstance(node, yaml.MappingNode) and _first_time(node, seen):
        for _, item in node.value:
            yield from _all_scalars(item, seen, depth + 1)


def _is_qmd(path: Path) -> bool:
    """A ``.qmd`` document, whose ``format: <name>:`` scopes Quarto reads (a project
    file's too; other documents' pandoc ignores them)."""
    return path.suffix.lower() == ".qmd"


def _scopes(
    root: yaml.MappingNode, seen: set[int], metadata: bool, formats: bool
) -> Iterator[yaml.MappingNode]:
    """The top level, and ``metadata:`` and every ``format: <name>:`` mapping where the
    file has those scopes."""
    yield root
    for key_node, value in _members(root):
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        if metadata and key_node.value == "metadata" and isinstance(value, yaml.MappingNode):
            if _first_time(value, seen):
                yield value
        elif formats and key_node.value == "format" and isinstance(value, yaml.MappingNode):
            for _, per_format in _members(value):
                if isinstance(per_format, yaml.MappingNode) and _first_time(per_format, seen):
                    yield per_format


def _scalars(node: yaml.Node, seen: set[int]) -> Iterator[yaml.ScalarNode]:
    if not _first_time(node, seen):
        return
    if isinstance(node, yaml.ScalarNode):
        yield node
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.ScalarNode) and _first_time(item, seen):
                yield item


#: what may make pandoc's reading of a name as Markdown text differ from the name
_MARKDOWN_SPECIAL = re.compile(r"--|\.\.\.|\s\s|[\\`$<&*_~^'\"\t\n]")
#: what pandoc reads as no text or as other text: an escape, raw TeX, a code span (from a
#: whole run of backticks, so that a long run is not tried from each of its backticks),
#: TeX math, an HTML comment, tag or entity
_MARKDOWN_TOKEN = re.compile(
    r"\\(?P<escaped>[!-/:-@\[-`{-~])"
    r"|(?P<tex>\\[A-Za-z]+(?:\[[^\[\]]*\]|\{[^{}]*\})*)"
    r"|(?<!`)(?P<ticks>`++)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
    r"|\$(?P<math>[^$\s](?:[^$]*[^$\s])?)\$(?!\d)"
    r"|(?P<html><!--.*?-->|</?[A-Za-z][^<>]*>)"
    r"|(?P<entity>&(?:#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);)"
)
#: emphasis, strong, strikeout, sub- and superscript around text (``_`` not inside a word)
_MARKDOWN_SPANS = re.compile(
    r"(?P<stars>\*{1,3})(?=\S)(?P<s>.+?)(?<=\S)(?P=stars)"
    r"|(?<![^\W_])(?P<lines>_{1,3})(?=\S)(?P<u>.+?)(?<=\S)(?P=lines)(?![^\W_])"
    r"|~~(?P<strike>.+?)~~|~(?P<sub>[^~\s]+)~|\^(?P<sup>[^^\s]+)\^"
)
_SMART = (
    (re.compile(r"---"), "\u2014"),
    (re.compile(r"--"), "\u2013"),
    (re.compile(r"\.\.\."), "\u2026"),
    (re.compile(r'"([^"]+)"'), "\u201c\\1\u201d"),
    (re.compile(r"(?<!\w)'([^']+)'(?!\w)"), "\u2018\\1\u2019"),
    (re.compile(r"'"), "\u2019"),
)


def markdown_text(name: str) -> str:
    """The text pandoc makes of a metadata string it reads as Markdown and writes out as
    plain text (its ``stringify``), as it does a ``bibliography:`` name: escapes undone,
    raw TeX and HTML tags dropped, code and math kept as written, emphasis marks dropped,
    entities decoded, and its smart punctuation (``--`` an en dash, ``---`` an em dash,
    ``...`` an ellipsis, quotes curly): ``a--b.bib`` is ``a\u2013b.bib``."""
    if _MARKDOWN_SPECIAL.search(name) is None:
        return name
    parts: list[str] = []
    pos = 0
    for m in _MARKDOWN_TOKEN.finditer(name):
        parts.append(_smart(name[pos : m.start()]))
        if m.group("escaped") is not None:
            parts.append(m.group("escaped"))
        elif m.group("code") is not None:
            parts.append(m.group("code").strip())
        elif m.group("math") is not None:
            parts.append(m.group("math"))
        elif m.group("entity") is not None:
            parts.append(html.unescape(m.group("entity")))
        pos = m.end()
    parts.append(_smart(name[pos:]))
    return " ".join("".join(parts).split())


def _smart(text: str) -> str:
    """``text`` without emphasis marks, its punctuation made smart as pandoc makes it."""
    while True:
        stripped = _MARKDOWN_SPANS.sub(_span_text, text)
        if stripped == text:
            break
        text = stripped
    for pattern, replacement in _SMART:
        text = pattern.sub(replacement, text)
    return text


def _span_text(m: re.Match[str]) -> str:
    """The text inside the marks of a match of :data:`_MARKDOWN_SPANS`."""
    for name in ("s", "u", "strike", "sub", "sup"):
        inside = m.group(name)
        if inside is not None:
            return inside
    return m.group()


def _scalar_span(text: str, base: int, node: yaml.ScalarNode) -> tuple[str, Span] | None:
    """A scalar's value (trimmed) and its span in ``text``: the value as written inside the
    quotes, or where it appears verbatim in the scalar's source; for a value written with
    escapes, the scalar's whole source range."""
    value = str(node.value).strip()
    if not value:
        return None
    s = base + node.start_mark.index
    e = base + node.end_mark.index
    if node.style in ("'", '"') and e - s >= 2:
        s, e = s + 1, e - 1
    found = text.find(value, s, e)
    if found >= 0:
        return value, Span(found, found + len(value))
    return value, Span(s, e)
