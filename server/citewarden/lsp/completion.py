"""Completion of citation keys: the context at the cursor, the catalog of the keys a
document sees, the completion list and the resolved item (look-ups run in the session's
request worker; :mod:`.navigation` registers the handlers)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types

from citewarden.checks.latex_keys import latex_citable
from citewarden.checks.nocite_edit import markdown_citation
from citewarden.file_state import build_bib_index
from citewarden.lsp import entries as show
from citewarden.lsp.convert import PlainJson, TextIndex
from citewarden.lsp.markup import shown_as
from citewarden.lsp.session import Session
from citewarden.model import CompletionContext, DocumentKind, Entry, ParsedBibliography, Span
from citewarden.parsing import is_latex, is_markdown
from citewarden.parsing.dispatch import tex_lines
from citewarden.project import BibIndex, Workspace
from citewarden.safe_text import visible
from citewarden.text import has_lone_cr

#: Completion answers at most this many items; more makes the list incomplete, so the
#: client asks again as the user types.
MAX_COMPLETIONS = 200
#: how far around the cursor a LaTeX completion context is looked for (the reader looks
#: back at most 8 000 characters, to the start of the paragraph)
_TEX_WINDOW = 9000


def completion_context(
    session: Session, path: Path, text: str, offset: int
) -> CompletionContext | None:
    if is_latex(path):
        from citewarden.parsing.latex import completion_context as latex_context

        commands = session.settings.citation_commands
        lo, hi = max(0, offset - _TEX_WINDOW), min(len(text), offset + _TEX_WINDOW)
        if not has_lone_cr(text, lo, hi):
            return latex_context(text, offset, extra_commands=commands)
        # lines ending in a lone \r: read (around the cursor) with TeX's line ends
        found = latex_context(tex_lines(text[lo:hi]), offset - lo, extra_commands=commands)
        if found is None:
            return None
        span = Span(found.span.start + lo, found.span.end + lo)
        return CompletionContext(found.prefix, span)
    if is_markdown(path):
        from citewarden.parsing.markdown import completion_context as markdown_context

        return markdown_context(text, offset)
    return None


@dataclass
class KeyCatalog:
    """The keys visible from a document, sorted, with their entries; rebuilt only when the
    bibliographies it was built from change."""

    #: what it was built from: each bibliography's index, and each document's own
    #: ``references:`` parse (identical objects as long as those are unchanged)
    token: tuple[tuple[Path, object], ...]
    entries: dict[str, Entry]
    keys: list[str]
    folded: list[str]
    #: the look-up tables of each of those (of a ``references:`` field: made from it)
    indexes: tuple[BibIndex | None, ...] = ()
    #: completion detail of each key, made when first shown
    details: dict[str, str] = field(default_factory=dict)

    def matching(self, prefix: str) -> tuple[list[str], bool]:
        """Keys starting with ``prefix`` (case-sensitively, then not), then containing it;
        at most :data:`MAX_COMPLETIONS`.  -> (keys, whether some were left out)."""
        if not prefix:
            return self.keys[:MAX_COMPLETIONS], len(self.keys) > MAX_COMPLETIONS
        pre = prefix.casefold()
        # the sorted key list makes the exact-prefix matches one slice
        lo = bisect_left(self.keys, prefix)
        hi = lo
        while hi < len(self.keys) and self.keys[hi].startswith(prefix):
            hi += 1
        found = self.keys[lo:hi]
        if len(found) <= MAX_COMPLETIONS:
            chosen = set(found)
            starts: list[str] = []
            inner: list[str] = []
            for key, folded in zip(self.keys, self.folded, strict=True):
                at = folded.find(pre)
                if at == 0:
                    if key not in chosen:
                        starts.append(key)
                elif at > 0:
                    inner.append(key)
            found += starts + inner
        return found[:MAX_COMPLETIONS], len(found) > MAX_COMPLETIONS


def key_catalog(session: Session, path: Path) -> KeyCatalog:
    project = session.project
    bibs: dict[Path, None] = {}
    for pr in project.projects_of(path):
        bibs.update(dict.fromkeys(pr.bibliographies))
    own = own_references(project, path)
    if not bibs and not own:  # a document outside any project: every key of the workspace
        bibs = dict.fromkeys(project.bibliography_paths())
    # the index objects are rebuilt whenever a bibliography changes (and the parses of
    # the references: fields with their documents); the catalog holds them (through the
    # token), so their ids cannot be reused while it lives
    token: tuple[tuple[Path, object], ...] = (
        *((b, project.bib_index(b)) for b in bibs),
        *own,
    )
    cached = session.caches.get("catalog", {}).get(path)
    if (
        cached is not None
        and len(cached.token) == len(token)
        and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(cached.token, token, strict=True))
    ):
        return cached
    indexes: list[BibIndex | None] = [
        idx if isinstance(idx, BibIndex) else None for _, idx in token[: len(bibs)]
    ]
    indexes += [build_bib_index(refs) for _, refs in own]
    entries: dict[str, Entry] = {}
    for idx in indexes:
        if idx is None:
            continue
        for key, entry in zip(idx.keys, idx.entries, strict=True):
            entries.setdefault(key, entry)
        for alias, entry in idx.aliases.items():
            entries.setdefault(alias, entry)
    keys = sorted(entries)
    catalog = KeyCatalog(token, entries, keys, [k.casefold() for k in keys], tuple(indexes))
    session.caches.setdefault("catalog", {})[path] = catalog
    return catalog


def own_references(project: Workspace, path: Path) -> list[tuple[Path, ParsedBibliography]]:
    """The ``references:`` fields that the Markdown documents and metadata files of the
    projects of ``path`` define themselves (their ids are keys of those projects)."""
    found: dict[Path, ParsedBibliography] = {}
    for pr in project.projects_of(path):
        if pr.kind is not DocumentKind.MARKDOWN:
            continue
        for source in pr.sources:
            if source not in found and (refs := project.inline_references(source)) is not None:
                found[source] = refs
    return [(source, refs) for source, refs in found.items() if refs.entries]


def definitions(session: Session, path: Path, key: str) -> list[Entry]:
    """Entries defining ``key`` for ``path``: exact (or an alias), else case-insensitive
    (through the catalog of the path's bibliographies and of its documents' own
    ``references:``, remembered per version of them)."""
    found: list[Entry] = []
    for idx in key_catalog(session, path).indexes:
        if idx is None:
            continue
        found += idx.entries_of(key)
        alias = idx.aliases.get(key)
        if alias is not None and alias not in found:
            found.append(alias)
    return found or session.project.lookup(path, key)


def markup_kind(formats: Sequence[types.MarkupKind] | None) -> types.MarkupKind:
    if formats is None or types.MarkupKind.Markdown in formats:
        return types.MarkupKind.Markdown
    return types.MarkupKind.PlainText


def _completion_markup(session: Session) -> types.MarkupKind:
    td = session.server.client_capabilities.text_document
    item = td.completion.completion_item if td and td.completion else None
    return markup_kind(item.documentation_format if item else None)


def completion_items(
    session: Session,
    path: Path,
    index: TextIndex,
    offset: int,
    catalog: KeyCatalog | None = None,
) -> dict[str, Any] | None:
    """Completion at ``offset`` of the buffer ``index``; with ``catalog`` given, the project
    model is not touched (safe outside the worker).

    The answer is a ``CompletionList`` in its JSON form: with thousands of keys, building
    protocol objects (whose fields are validated one by one) would cost more than the search.
    """
    ctx = completion_context(session, path, index.text, offset)
    if ctx is None:
        return None
    if catalog is None:
        catalog = key_catalog(session, path)
    keys, incomplete = catalog.matching(ctx.prefix)
    text = index.text
    # after a bare '@' a key pandoc would not read whole goes in braces; in '@{' as it is
    bare = is_markdown(path) and text[ctx.span.start - 1 : ctx.span.start] == "@"
    latex = is_latex(path)
    start = index.position(ctx.span.start, session.converter.encoding)
    end = index.position(max(ctx.span.end, offset), session.converter.encoding)
    replace = {
        "start": {"line": start.line, "character": start.column},
        "end": {"line": end.line, "character": end.column},
    }
    items = []
    for n, key in enumerate(keys):
        written = key
        if latex and not latex_citable(key):
            continue  # '%' would comment the rest of the line out, '#' stop LaTeX, ...
        if bare:
            cite = markdown_citation(key)
            if cite is None:
                continue  # no citation in Markdown holds it
            written = cite[1:]
        entry = catalog.entries[key]
        detail = catalog.details.get(key)
        if detail is None:
            detail = catalog.details[key] = show.detail(entry)
        items.append(
            {
                "label": visible(key),  # the key shown as the diagnostics show it
                "kind": int(types.CompletionItemKind.Reference),
                "detail": detail,
                "sortText": f"{n:05d}",
                "filterText": key,
                "textEdit": {"range": replace, "newText": written},
                "data": {"key": key, "path": str(entry.path)},
            }
        )
    return PlainJson(isIncomplete=incomplete, items=items)


def resolve_item(session: Session, item: types.CompletionItem) -> types.CompletionItem:
    data = item.data if isinstance(item.data, dict) else {}
    key, where = data.get("key"), data.get("path")
    if not isinstance(key, str) or not isinstance(where, str):
        return item
    bib = Path(where)
    if not any(bib in project.bibliographies for project in session.project.projects()):
        return item  # no file of the workspace's projects (gone since, or never one of them)
    idx = session.project.bib_index(bib)
    if idx is None:
        return item
    found = idx.entries_of(key) or ([idx.aliases[key]] if key in idx.aliases else [])
    if found:
        kind = _completion_markup(session)
        item.documentation = shown_as(kind, show.markdown(found[0]))
    return item
