"""Navigation: hover, definition, references, rename, symbols, and the completion handlers
(the completion look-ups are in :mod:`.completion`).

Every handler first brings the project model up to the document's current version, then
does its lookup in the worker (the only place the model is touched) and converts positions
with the session's converter.
"""

from __future__ import annotations

import logging
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from citewarden.checks.dangling import markdown_place, replacement
from citewarden.checks.latex_keys import latex_unsafe
from citewarden.checks.nocite_edit import yaml_escaped
from citewarden.file_state import fold_key
from citewarden.lsp import entries as show
from citewarden.lsp.completion import (
    completion_items,
    definitions,
    markup_kind,
    resolve_item,
)
from citewarden.lsp.convert import path_of
from citewarden.lsp.isolation import isolated
from citewarden.lsp.markup import shown_as
from citewarden.lsp.session import Session
from citewarden.model import Citation, DocumentKind, Entry, Field, ParsedDocument, Span, TextEdit
from citewarden.parsing import is_bibliography, is_latex, is_markdown
from citewarden.parsing.pandoc_syntax import read_as_pandoc
from citewarden.project import Project
from citewarden.safe_text import clipped, markdown_code, visible

log = logging.getLogger(__name__)

MAX_WORKSPACE_SYMBOLS = 500

#: Characters BibTeX takes in no key, besides those LaTeX cannot cite
#: (:data:`citewarden.checks.latex_keys.LATEX_UNSAFE_KEY`).
_BAD_KEY = re.compile(r"[()\"'=]")


def _invalid_key(name: str, around: list[Project], bibs: Iterable[Path]) -> str | None:
    """Why the projects ``around``, reading the bibliographies ``bibs``, cannot take
    ``name`` as a citation key, or None, in the words of the reader that cannot: LaTeX and
    BibTeX for a LaTeX project (or no project), pandoc for a Markdown one."""
    if not name:
        return "a citation key cannot be empty"
    if visible(name) != name:  # shown escaped: a key that reads otherwise than it is
        return "it holds a control, line break or direction-changing character"
    if not around or any(p.kind is DocumentKind.LATEX for p in around):
        if (char := latex_unsafe(name)) is not None:
            return f"LaTeX cannot read {char!r} in a citation key"
        if (m := _BAD_KEY.search(name)) is not None:
            return f"BibTeX does not take {m.group()!r} in a citation key"
    if any(p.kind is not DocumentKind.LATEX for p in around) and any(
        is_bibliography(b) for b in bibs
    ):
        entry = f"@misc{{{name}, title={{x}}}}\n"
        rejected = read_as_pandoc(entry, ()).rejections
        if rejected:
            return f"pandoc cannot read it in a BibTeX bibliography: {rejected[0][1]}"
    return None


def _empty() -> list[Any]:
    return []


# ----------------------------------------------------------------------------------------
# Lookups (run in the worker)
# ----------------------------------------------------------------------------------------


def _hover_markup(session: Session) -> types.MarkupKind:
    td = session.server.client_capabilities.text_document
    return markup_kind(td.hover.content_format if td and td.hover else None)


def _key_at(session: Session, path: Path, offset: int) -> tuple[str, Span, Entry | None] | None:
    """The key under the cursor: a citation's key in a document, an entry's key in a .bib."""
    project = session.project
    if is_latex(path) or is_markdown(path):
        cit: Citation | None = project.citation_at(path, offset)
        if cit is None or not cit.span.contains(offset):
            own = project.inline_references(path) if is_markdown(path) else None
            for item in own.entries if own is not None else ():
                if item.key_span.contains(offset):  # the id of an item of references:
                    return item.key, item.key_span, item
            return None
        return cit.key, cit.span, None
    entry = project.entry_at(path, offset)
    if entry is None or not entry.key_span.contains(offset):
        return None
    return entry.key, entry.key_span, entry


def _hover(session: Session, path: Path, offset: int) -> types.Hover | None:
    found = _key_at(session, path, offset)
    if found is None:
        return None
    key, span, entry = found
    index = session.index_of(path)
    if index is None:
        return None
    if entry is not None:
        cited = len(session.project.citations_of(key))
        body = show.markdown(entry) + f"\n\nCited {cited} time{'s' if cited != 1 else ''}."
    else:
        defs = definitions(session, path, key)
        items = _bibitems(session, path, key) if not defs else []
        shown = markdown_code(clipped(key))
        if defs:
            body = "\n\n---\n\n".join(show.markdown(e) for e in defs)
        elif items:
            names = ", ".join(dict.fromkeys(markdown_code(clipped(p.name)) for p, _ in items))
            body = f"{shown} is defined by `\\bibitem` in {names}."
        else:
            body = f"{shown} is not defined in any bibliography of this document."
    for extra in session.features.hovers(path, key, entry):
        body += f"\n\n---\n\n{extra}"
    for extra in session.features.citation_hovers(path, offset, key) if entry is None else ():
        body += f"\n\n---\n\n{extra}"
    return types.Hover(
        contents=shown_as(_hover_markup(session), body),
        range=session.converter.range(index, span),
    )


def _bibitems(session: Session, path: Path, key: str) -> list[tuple[Path, Span]]:
    """Where the ``\\bibitem``s of the LaTeX projects of ``path`` define ``key`` (a
    ``thebibliography`` environment written out: keys LaTeX matches exactly)."""
    ws = session.project
    found: dict[tuple[Path, int], Span] = {}
    for p in ws.projects_of(path):
        if p.kind is not DocumentKind.LATEX:
            continue
        for doc_path, doc in ws.project_documents(p):
            for item, span in doc.bibitems:
                if item == key:
                    found.setdefault((doc_path, span.start), span)
    return [(doc_path, span) for (doc_path, _), span in found.items()]


def _entry_locations(session: Session, found: list[Entry]) -> list[types.Location]:
    out = []
    for entry in found:
        index = session.index_of(entry.path)
        if index is not None:
            out.append(
                types.Location(
                    uri=session.uri_for(entry.path),
                    range=session.converter.range(index, entry.key_span),
                )
            )
    return out


def _definition(session: Session, path: Path, offset: int) -> list[types.Location]:
    found = _key_at(session, path, offset)
    if found is None:
        return []
    key, _, entry = found
    if entry is not None:
        return _entry_locations(session, [entry])
    located = _entry_locations(session, definitions(session, path, key))
    for doc_path, span in _bibitems(session, path, key) if not located else ():
        index = session.index_of(doc_path)
        if index is not None:
            located.append(
                types.Location(
                    uri=session.uri_for(doc_path), range=session.converter.range(index, span)
                )
            )
    return located


def _citation_locations(session: Session, key: str) -> list[types.Location]:
    out = []
    for doc_path, cit in session.project.citations_of(key):
        index = session.index_of(doc_path)
        if index is not None:
            out.append(
                types.Location(
                    uri=session.uri_for(doc_path), range=session.converter.range(index, cit.span)
                )
            )
    return out


def _references(
    session: Session, path: Path, offset: int, include_declaration: bool
) -> list[types.Location]:
    found = _key_at(session, path, offset)
    if found is None:
        return []
    key, _, entry = found
    result = []
    if include_declaration:
        defs = [entry] if entry is not None else definitions(session, path, key)
        result += _entry_locations(session, defs)
    result += _citation_locations(session, key)
    return result


#: Fields naming other entries by key (biblatex; BibTeX reads ``crossref``): a renamed key
#: is renamed in them too.  ``ids`` holds the entry's own aliases (see :func:`_rename`).
_KEY_FIELDS = ("crossref", "xref", "xdata", "related", "entryset")
_LISTED_KEY = re.compile(r"[^,\s]+")


class RenameRefused(Exception):
    """A new name the project cannot take (it is already a key, or a document's reader
    cannot read it there)."""


def _same(a: str, b: str, fold: bool) -> bool:
    return a == b or (fold and fold_key(a) == fold_key(b))


def _listed_keys(fld: Field) -> Iterator[tuple[str, Span]]:
    """The keys a field's value lists (``{k1, k2}``) with their spans; none when the value
    is not written out (a macro)."""
    span = fld.value_span
    if fld.expanded is not None or span.end - span.start != len(fld.value):
        return
    for m in _LISTED_KEY.finditer(fld.value):
        yield m.group(), Span(span.start + m.start(), span.start + m.end())


def _prepare_rename(
    session: Session, path: Path, offset: int
) -> types.PrepareRenamePlaceholder | None:
    found = _key_at(session, path, offset)
    if found is None:
        return None
    key, span, _ = found
    index = session.index_of(path)
    if index is None:
        return None
    return types.PrepareRenamePlaceholder(
        range=session.converter.range(index, span), placeholder=key
    )


def _rename(session: Session, path: Path, offset: int, new_name: str) -> types.WorkspaceEdit | None:
    """Rename the key under the cursor so that the project stays as it was: the entry
    (or the ``ids`` alias) defining it, every citation matching it as the project's backend
    matches keys (ignoring case where BibTeX reads the bibliography), and the
    crossref/xref/xdata/related/entryset fields naming it.  A new name that is already a
    key or alias of another entry (compared ignoring case, as the duplicate-key check
    does) is refused with :class:`RenameRefused`."""
    found = _key_at(session, path, offset)
    if found is None:
        return None
    key, _, entry = found
    ws = session.project
    projects = ws.projects()
    if entry is not None:
        renamed = [entry]
        # a bibliography's entry, or the item of a document's own references:
        around = [p for p in projects if entry.path in (*p.bibliographies, *p.sources)]
    else:
        around = ws.projects_of(path)
        fold = any(p.casefold_keys for p in around)
        renamed = [
            e
            for e in definitions(session, path, key)
            if _same(e.key, key, fold) or key in e.aliases
        ]
        places = {e.path for e in renamed}
        around += [
            p
            for p in projects
            if not any(p is q for q in around)
            and places.intersection((*p.bibliographies, *p.sources))
        ]
    bibs: dict[Path, bool] = {e.path: False for e in renamed}  # path -> keys fold there
    for p in around:
        for b in p.bibliographies:
            bibs[b] = bibs.get(b, False) or p.casefold_keys
    if (why := _invalid_key(new_name, around, bibs)) is not None:
        raise RenameRefused(f"'{new_name}' is not a valid citation key: {why}")
    if renamed:
        _refuse_collision(session, bibs, renamed, key, new_name)
        _refuse_own_collision(session, around, renamed, new_name)

    edits: list[TextEdit] = []
    for target in renamed:
        if key in target.aliases and target.key != key:  # an alias: renamed in the ids field
            ids = target.field("ids")
            if ids is not None:
                edits += [
                    TextEdit(target.path, sp, new_name) for k, sp in _listed_keys(ids) if k == key
                ]
        elif is_markdown(target.path) or target.path.suffix.lower() in _YAML_SUFFIXES:
            # the id of an item of a references: field (or of a CSL-YAML bibliography)
            written = _yaml_id(ws.text(target.path), target.key_span, new_name)
            edits.append(TextEdit(target.path, target.key_span, written))
        else:
            edits.append(TextEdit(target.path, target.key_span, new_name))
    for p in around:
        for doc_path, doc in ws.project_documents(p):
            for cit in doc.citations:
                if _same(cit.key, key, p.casefold_keys):
                    edits.append(
                        TextEdit(
                            doc_path,
                            cit.span,
                            _written(doc_path, ws.text(doc_path), doc, cit, new_name),
                        )
                    )
    for b, fold in bibs.items():
        edits += _field_edits(session, b, key, fold, new_name)
    seen: set[tuple[Path, int, int]] = set()
    unique = []
    for e in edits:
        ident = (e.path, e.span.start, e.span.end)
        if ident not in seen:
            seen.add(ident)
            unique.append(e)
    return session.converter.workspace_edit(unique)


def _written(
    path: Path, text: str | None, doc: ParsedDocument, cit: Citation, new_name: str
) -> str:
    """``new_name`` as written in place of the citation ``cit`` of ``doc``: braced in
    Markdown where pandoc would not read the bare key whole (``@{smith2020.}``), escaped
    in YAML; refused with :class:`RenameRefused` where pandoc cannot read it."""
    if doc.kind is not DocumentKind.MARKDOWN:
        return new_name
    written = replacement(new_name, markdown_place(text, cit))
    if written is None:
        raise RenameRefused(f"pandoc cannot read '{new_name}' as a citation key in {path.name}")
    return written


def _field_edits(
    session: Session, path: Path, key: str, fold: bool, new_name: str
) -> list[TextEdit]:
    """Edits renaming ``key`` where the fields of :data:`_KEY_FIELDS` in the bibliography
    ``path`` name it (only the entries whose text holds the key are looked into)."""
    text = session.project.text(path)
    bib = session.project.bibliography(path)
    if text is None or bib is None:
        return []
    found = re.compile(re.escape(key), re.IGNORECASE if fold else 0)
    at = [m.start() for m in found.finditer(text)]
    edits: list[TextEdit] = []
    if not at:
        return edits
    for entry in bib.entries:
        i = bisect_left(at, entry.span.start)
        if i == len(at) or at[i] >= entry.span.end:
            continue
        for name in _KEY_FIELDS:
            fld = entry.field(name)
            if fld is not None:
                edits += [
                    TextEdit(path, sp, new_name)
                    for k, sp in _listed_keys(fld)
                    if _same(k, key, fold)
                ]
    return edits


#: an id YAML reads as the same string when written plain (no indicator first, nothing
#: that ends a plain scalar or a flow collection, not a number nor a boolean)
_PLAIN_ID = re.compile(r"[A-Za-z_][\w.\-/:]*")
_YAML_WORDS = frozenset({"true", "false", "yes", "no", "on", "off", "null", "y", "n"})
_YAML_SUFFIXES = (".yaml", ".yml")


def _yaml_id(text: str | None, span: Span, new_name: str) -> str:
    """``new_name`` written in place of a ``references:`` item's id at ``span``: escaped
    within the quotes around it, else plain when YAML reads it so, else double-quoted."""
    quote = text[span.start - 1 : span.start] if text is not None else ""
    if quote in ('"', "'") and text is not None and text[span.end : span.end + 1] == quote:
        return yaml_escaped(new_name, quote)
    plain = _PLAIN_ID.fullmatch(new_name) and not new_name.endswith(":")
    if plain and new_name.casefold() not in _YAML_WORDS:
        return new_name
    return '"' + yaml_escaped(new_name, '"') + '"'


def _refuse_own_collision(
    session: Session, around: list[Any], renamed: list[Entry], new_name: str
) -> None:
    """Raise :class:`RenameRefused` when ``new_name`` is the id of an item of a document's
    own ``references:`` in the projects ``around``, other than the one renamed."""
    wanted = fold_key(new_name)
    mine = {(e.path, e.key_span.start) for e in renamed}
    for p in around:
        for source in p.sources:
            own = session.project.inline_references(source)
            for item in own.entries if own is not None else ():
                if fold_key(item.key) == wanted and (item.path, item.key_span.start) not in mine:
                    raise RenameRefused(
                        f"'{new_name}' is already the id of a reference in {source.name}"
                    )


def _refuse_collision(
    session: Session, bibs: dict[Path, bool], renamed: list[Entry], key: str, new_name: str
) -> None:
    """Raise :class:`RenameRefused` when ``new_name`` is a key or alias in ``bibs`` other
    than the one renamed (``key`` of the ``renamed`` entries)."""
    wanted = new_name.casefold()
    as_key = {(e.path, e.key_span.start) for e in renamed if e.key == key or key not in e.aliases}
    as_alias = {(e.path, e.key_span.start) for e in renamed} - as_key
    for b in bibs:
        index = session.project.bib_index(b)
        if index is None:
            continue
        for i in index.folded.get(wanted, ()):
            other = index.entries[i]
            if (other.path, other.key_span.start) not in as_key:
                raise RenameRefused(f"'{new_name}' is already the key of an entry in {b.name}")
        for alias, other in index.aliases.items():
            if alias.casefold() == wanted and not (
                alias == key and (other.path, other.key_span.start) in as_alias
            ):
                raise RenameRefused(f"'{new_name}' is already an alias (ids) in {b.name}")


#: The most characters of a field's value shown beside its name in the outline.
_VALUE_CHARS = 80


def _one_line(value: str) -> str:
    """A field's value as the outline shows it: on one line (its line breaks and runs of
    blanks one space), control and bidirectional characters escaped, clipped."""
    return visible(" ".join(value[: _VALUE_CHARS * 4].split())[:_VALUE_CHARS])


def _document_symbols(session: Session, path: Path) -> list[types.DocumentSymbol]:
    if is_latex(path) or is_markdown(path):
        return []
    bib = session.project.bibliography(path)
    index = session.index_of(path)
    if bib is None or index is None:
        return []
    conv = session.converter
    symbols = []
    for entry in bib.entries:
        children = [
            types.DocumentSymbol(
                name=visible(f.name),
                detail=_one_line(f.value),
                kind=types.SymbolKind.Field,
                range=conv.range(
                    index, Span(f.name_span.start, max(f.value_span.end, f.name_span.end))
                ),
                selection_range=conv.range(index, f.name_span),
            )
            for f in entry.fields
        ]
        symbols.append(
            types.DocumentSymbol(
                name=visible(entry.key) or "(no key)",
                detail=f"@{visible(show.type_shown(entry))} {show.detail(entry)}",
                kind=types.SymbolKind.Object,
                range=conv.range(index, entry.span),
                selection_range=conv.range(index, entry.key_span),
                children=children or None,
            )
        )
    return symbols


def _workspace_symbols(session: Session, query: str) -> list[types.WorkspaceSymbol]:
    needle = query.casefold()
    out: list[types.WorkspaceSymbol] = []
    for entry in session.project.all_entries():
        if needle and needle not in entry.key.casefold():
            t = show.title(entry) if len(out) < MAX_WORKSPACE_SYMBOLS else None
            if t is None or needle not in t.casefold():
                continue
        index = session.index_of(entry.path)
        if index is None:
            continue
        out.append(
            types.WorkspaceSymbol(
                name=visible(entry.key),
                kind=types.SymbolKind.Object,
                location=types.Location(
                    uri=session.uri_for(entry.path),
                    range=session.converter.range(index, entry.key_span),
                ),
                container_name=visible(entry.path.name),
            )
        )
        if len(out) >= MAX_WORKSPACE_SYMBOLS:
            break
    return out


# ----------------------------------------------------------------------------------------
# Handlers
# ----------------------------------------------------------------------------------------


async def _at(session: Session, uri: str, position: types.Position) -> tuple[Path, int] | None:
    """(path, offset in the model's current text) for a position in an open document."""
    path = path_of(uri)
    if path is None:
        return None
    await session.ready.wait()
    await session.ensure_current(path)

    def offset() -> int | None:
        index = session.index_of(path)
        return None if index is None else session.converter.offset(index, position)

    off = await session.run(offset)
    return None if off is None else (path, off)


def register(server: LanguageServer, session: Session) -> None:
    feature: Callable[..., Any] = server.feature

    @feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=["{", ",", "@", ";"], resolve_provider=True),
    )
    @isolated()
    async def completion(params: types.CompletionParams) -> dict[str, Any] | None:
        path = path_of(params.text_document.uri)
        if path is None:
            return None
        # The live buffer decides the context, so completion works before the debounce.
        doc = session.documents.get(params.text_document.uri)
        if doc is None:
            return None
        index = doc.index
        offset = session.converter.offset(index, params.position)
        await session.ready.wait()
        cached = session.caches.get("catalog", {}).get(path)
        if cached is not None and session.worker.busy:
            # a check is running: answer now from the keys known before it
            return completion_items(session, path, index, offset, cached)
        return await session.run(completion_items, session, path, index, offset)

    @feature(types.COMPLETION_ITEM_RESOLVE)
    async def resolve(item: types.CompletionItem) -> types.CompletionItem:
        try:
            return await session.run(resolve_item, session, item)
        except Exception:
            log.exception("completion resolve failed")
            return item

    @feature(types.TEXT_DOCUMENT_HOVER)
    @isolated()
    async def hover(params: types.HoverParams) -> types.Hover | None:
        at = await _at(session, params.text_document.uri, params.position)
        return None if at is None else await session.run(_hover, session, *at)

    @feature(types.TEXT_DOCUMENT_DEFINITION)
    @isolated(_empty)
    async def definition(params: types.DefinitionParams) -> list[types.Location]:
        # the entry may be in another open file with edits not checked yet: its place in
        # the editor's text counts
        await session.ready.wait()
        await session.ensure_all_current()
        at = await _at(session, params.text_document.uri, params.position)
        return [] if at is None else await session.run(_definition, session, *at)

    @feature(types.TEXT_DOCUMENT_REFERENCES)
    @isolated(_empty)
    async def references(params: types.ReferenceParams) -> list[types.Location]:
        # citations in every file of the workspace, open ones as the editor holds them
        await session.indexed_all.wait()
        await session.ensure_all_current()
        at = await _at(session, params.text_document.uri, params.position)
        if at is None:
            return []
        return await session.run(_references, session, *at, params.context.include_declaration)

    @feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @isolated()
    async def prepare_rename(params: types.PrepareRenameParams) -> Any:
        at = await _at(session, params.text_document.uri, params.position)
        return None if at is None else await session.run(_prepare_rename, session, *at)

    @feature(types.TEXT_DOCUMENT_RENAME)
    async def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        new_name = params.new_name.strip()
        if not new_name:
            raise JsonRpcInvalidParams(
                visible(f"'{params.new_name}' is not a valid citation key: it is empty")
            )
        try:
            # the edit spans the project: every file read, every open file's current text
            await session.indexed_all.wait()
            await session.ensure_all_current()
            at = await _at(session, params.text_document.uri, params.position)
            if at is None:
                return None
            return await session.run(_rename, session, *at, new_name)
        except RenameRefused as exc:  # the new name and file names shown as one line
            raise JsonRpcInvalidParams(visible(str(exc))) from None
        except Exception:
            log.exception("rename failed")
            return None

    @feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @isolated(_empty)
    async def document_symbols(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        path = path_of(params.text_document.uri)
        if path is None:
            return []
        await session.ready.wait()
        await session.ensure_current(path)
        return await session.run(_document_symbols, session, path)

    @feature(types.WORKSPACE_SYMBOL)
    @isolated(_empty)
    async def workspace_symbols(params: types.WorkspaceSymbolParams) -> list[types.WorkspaceSymbol]:
        await session.ready.wait()
        await session.ensure_all_current()
        return await session.run(_workspace_symbols, session, params.query)
