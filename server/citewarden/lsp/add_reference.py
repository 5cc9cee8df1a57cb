"""Adding a reference from the editor: "Add entry" code actions and ``citewarden.addReference``.

On a dangling citation the code actions are, for the best few works its key names
(:mod:`citewarden.addref.lookup`, through the verification service's sources and cache):
"Add entry: Hornik 1991, Approximation capabilities ... (Neural Networks)", one per
bibliography of the document when it has several; and always "Add entry from DOI / arXiv
id / ISBN..." (the command below; the client asks for the identifier).  When nothing is
found the actions say why (a disabled action with the reason).

The search runs on the verification engine's thread.  A code-action request waits for it
at most :data:`SEARCH_BUDGET` seconds and then answers without it; the search goes on and
its answer (kept in memory and in the cache) is there for the next request.  Other
requests are served meanwhile: nothing here blocks the event loop or the worker.

``citewarden.addReference`` takes ``{"id": DOI | arXiv id | ISBN | PMID | title, "key"?,
"uri"? (the citing document), "bib"? (path)}``, applies the edit through
``workspace/applyEdit`` and returns ``{"applied", "key", "bib", "title"}`` (or
``{"applied": false, "reason"}``; for a work ``bib`` already holds, no edit and
``{"applied": false, "present": true, "key"`` (the entry's), ``"bib", "title", "reason"}``;
every bibliography of the citing document is looked in).
When the client must choose (a title several works have; a document of several
bibliographies, or none named and several in the workspace, without ``bib``), the answer is
``{"applied": false, "reason", "choose": {"prompt", "choices": [{"label", "description",
"args"}]}}``: the command again with a choice's ``args`` over the first arguments does what
was asked (a work is offered by its DOI, arXiv id, PMID or a book's ISBN; one with none is
named in the reason only).  When no work of the title has any, the first is added and the
answer has a ``"warning"`` naming the others.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from citewarden.lsp.convert import path_of
from citewarden.lsp.features import Feature
from citewarden.lsp.session import Session
from citewarden.lsp.verification import VerificationService
from citewarden.model import Code, Fix, Span, TextEdit
from citewarden.safe_text import visible, visible_lines

if TYPE_CHECKING:
    from citewarden.addref.lookup import Ambiguous, KeyLookup
    from citewarden.verify.records import WorkRecord

log = logging.getLogger(__name__)

ADD_REFERENCE = "citewarden.addReference"
#: Seconds a code-action request waits for a search that is not in memory yet.
SEARCH_BUDGET = 1.5
#: Candidates offered per dangling key; dangling keys looked at per request.
MAX_CANDIDATES = 3
MAX_KEYS = 2
#: Finished searches kept in memory (the disk cache keeps the source answers).
MEMORY = 256
FROM_ID_TITLE = "Add entry from DOI / arXiv id / ISBN..."


@dataclass(frozen=True, slots=True)
class _Dangling:
    key: str
    path: Path
    span: Span
    context: tuple[str, ...]
    bibs: tuple[Path, ...]


def _overlaps(a: Span, b: Span) -> bool:
    if len(a) == 0 or len(b) == 0:
        return a.start <= b.end and b.start <= a.end
    return a.start < b.end and b.start < a.end


def _bibs_of(session: Session, path: Path) -> tuple[Path, ...]:
    found = [b for p in session.project.projects_of(path) for b in p.bibliographies]
    return tuple(dict.fromkeys(found))


def _dangling_at(session: Session, path: Path, range_: types.Range) -> list[_Dangling]:
    """The dangling citations under ``range_`` (worker only)."""
    index = session.index_of(path)
    text = session.project.text(path)
    if index is None or text is None:
        return []
    wanted = session.converter.span(index, range_)
    out: list[_Dangling] = []
    for finding in session.store.findings(path):
        if finding.code is not Code.DANGLING or not _overlaps(finding.location.span, wanted):
            continue
        key = str(finding.data.get("key") or "")
        if not key or any(d.key == key for d in out):
            continue
        from citewarden.addref.keys import context_words, sentence_around

        sentence = sentence_around(text, finding.location.span.start)
        out.append(
            _Dangling(
                key, path, finding.location.span, context_words(sentence), _bibs_of(session, path)
            )
        )
    return out[:MAX_KEYS]


def _insert_action(
    session: Session, bib: Path, record: WorkRecord, key: str, title: str
) -> types.CodeAction | str:
    """The code action adding ``record`` to ``bib`` (worker only), or why there is none."""
    text = session.project.text(bib)
    if text is None:
        return f"{bib.name} cannot be read"
    if session.index_of(bib) is None:
        return f"{bib.name} is not loaded"
    from citewarden.addref.insert import InsertError, clashing_key, plan_insertion

    there = clashing_key(key, _taken_keys(session, bib))
    if there is not None:  # a cited key differing in case only (biber, pandoc)
        return f"{bib.name} already has an entry {there} (keys are compared ignoring case)"
    try:
        change = plan_insertion(bib, text, record, key)
    except InsertError as exc:
        return str(exc)
    fix = Fix(title, (TextEdit(bib, Span(change.offset, change.offset), change.text),))
    return session.converter.code_action(fix, None) or f"{bib.name} cannot be edited"


def _none_found(key: str, reason: str) -> types.CodeAction:
    """A disabled action that says why there is no entry to add."""
    return types.CodeAction(
        title=visible(f"Add entry for {key}: none found"),
        kind=types.CodeActionKind.QuickFix,
        disabled=types.CodeActionDisabled(reason=visible(reason)),
    )


def _work_choices(found: Ambiguous) -> list[dict[str, Any]]:
    """The works of a title several works have that an identifier names, as choices (a
    work without one is named in the answer's reason only)."""
    from citewarden.addref.lookup import describe, work_identifier

    out: list[dict[str, Any]] = []
    for r in found.records:
        if (ident := work_identifier(r)) is not None:
            shown = f"DOI {ident}" if r.doi else ident
            out.append({"label": describe(r), "description": shown, "args": {"id": ident}})
    return out


def _taken_keys(session: Session, bib: Path) -> set[str]:
    parsed = session.project.bibliography(bib)
    return {e.key for e in parsed.entries} if parsed is not None else set()


def _present_in(
    session: Session, bibs: tuple[Path, ...], record: WorkRecord
) -> tuple[str, Path] | None:
    """The key and file of the first entry of ``bibs`` holding the work ``record`` names, if
    one does (worker only)."""
    from citewarden.addref.present import Present

    for bib in bibs:
        parsed = session.project.bibliography(bib)
        key = Present(parsed.entries).key_of(record) if parsed is not None else None
        if key is not None:
            return key, bib
    return None


class AddReference(Feature):
    """The feature: searches through the verification service, actions, the command."""

    def __init__(self, session: Session, service: VerificationService) -> None:
        self.session = session
        self.service = service
        self._done: OrderedDict[tuple[str, tuple[str, ...]], KeyLookup] = OrderedDict()
        self._running: dict[tuple[str, tuple[str, ...]], asyncio.Future[KeyLookup]] = {}
        self._verifier: Any = None

    async def _sources(self) -> list[Any]:
        verifier = await self.service._ensure_verifier()
        if verifier is not self._verifier:  # new settings: what was found may not hold
            self._verifier = verifier
            self._done.clear()
        return [verifier.sources[n] for n in verifier.order]

    async def search(self, key: str, context: tuple[str, ...], budget: float) -> KeyLookup | None:
        """The search for ``key``, or None when it takes longer than ``budget`` seconds."""
        sources = await self._sources()
        ident = (key, context)
        if ident in self._done:
            self._done.move_to_end(ident)
            return self._done[ident]
        future = self._running.get(ident)
        if future is None:
            from citewarden.addref.keys import read_key
            from citewarden.addref.lookup import find_for_key

            work = find_for_key(read_key(key), sources, context=context, limit=MAX_CANDIDATES)
            future = self.service.engine.submit(work)
            self._running[ident] = future
            future.add_done_callback(lambda f: self._finished(ident, f))
        try:
            return await asyncio.wait_for(asyncio.shield(future), budget)
        except TimeoutError:
            return None

    def _finished(
        self, ident: tuple[str, tuple[str, ...]], future: asyncio.Future[KeyLookup]
    ) -> None:
        self._running.pop(ident, None)
        if future.cancelled() or future.exception() is not None:
            if not future.cancelled():
                log.warning("search for %r failed: %r", ident[0], future.exception())
            return
        self._done[ident] = future.result()
        while len(self._done) > MEMORY:
            self._done.popitem(last=False)

    async def async_code_actions(self, path: Path, range_: types.Range) -> list[types.CodeAction]:
        session = self.session
        out: list[types.CodeAction] = []
        for d in await session.run(_dangling_at, session, path, range_):
            if not self.service.enabled:
                out.append(
                    _none_found(d.key, "verification is off (verify.enabled): no source is asked")
                )
                continue
            out += await self._actions_for(d)
        return out

    async def _actions_for(self, d: _Dangling) -> list[types.CodeAction]:
        session = self.session
        out: list[types.CodeAction] = []
        reason: str | None = None
        if not d.bibs:
            reason = "the document names no bibliography to add it to"
        else:
            found = await self.search(d.key, d.context, SEARCH_BUDGET)
            if found is None:
                reason = "still searching; ask again in a moment"
            elif not found.candidates:
                reason = found.why_nothing()
            else:
                from citewarden.addref.lookup import describe

                for cand in found.candidates:
                    for bib in d.bibs:
                        title = f"Add entry: {describe(cand.record)}"
                        if len(d.bibs) > 1:
                            title += f" to {bib.name}"
                        made = await session.run(
                            _insert_action, session, bib, cand.record, d.key, title
                        )
                        if isinstance(made, str):
                            reason = made
                        else:
                            out.append(made)
        if not out and reason:
            out.append(_none_found(d.key, reason))
        if d.bibs:
            args = {"key": d.key, "uri": session.uri_for(d.path)}
            out.append(
                types.CodeAction(
                    title=FROM_ID_TITLE,
                    kind=types.CodeActionKind.QuickFix,
                    command=types.Command(
                        title=FROM_ID_TITLE, command=ADD_REFERENCE, arguments=[args]
                    ),
                )
            )
        return out

    async def add(self, server: LanguageServer, args: Mapping[str, Any]) -> dict[str, Any]:
        """``citewarden.addReference``: look the identifier up and apply the edit."""
        ident = args.get("id")
        if not isinstance(ident, str) or not ident.strip() or len(ident) > 2000:
            raise JsonRpcInvalidParams(
                "citewarden.addReference expects an 'id' (DOI, arXiv id, ISBN, PMID or title)"
            )
        session = self.session
        await session.indexed_all.wait()  # every bibliography's keys known: no clash missed
        # the entry goes into the bibliography's current text (an edit not checked yet)
        await session.ensure_all_current()
        bib = await session.run(self._target, args)
        if isinstance(bib, str):
            return {"applied": False, "reason": bib}
        from citewarden.addref.insert import clashing_key, make_key
        from citewarden.addref.lookup import Ambiguous, describe, identifier_lookup
        from citewarden.verify.records import Lookup, Outcome

        sources = await self._sources()
        found = await self.service.engine.submit(identifier_lookup(ident, sources))
        warning: str | None = None
        if isinstance(found, Ambiguous) and found.nameable:
            return {
                "applied": False,
                "reason": found.message(),
                "choose": {"prompt": "Which work?", "choices": _work_choices(found)},
            }
        if isinstance(found, Ambiguous):  # no work to choose by an identifier: the best hit
            warning = found.warning()
            found = Lookup.found(found.source, [found.records[0]])
        if found.outcome is not Outcome.FOUND:
            what = "not found" if found.outcome is Outcome.NOT_FOUND else "could not be looked up"
            reason = f"{ident.strip()[:200]}: {what} ({found.source}{': ' + found.reason if found.reason else ''})"
            return {"applied": False, "reason": reason}
        record = found.records[0]
        present = await session.run(self._present, args, bib, record)
        if present is not None:
            held, holder = present
            return {
                "applied": False,
                "present": True,
                "key": held,
                "bib": str(holder),
                "title": describe(record),
                "reason": f"already present as {held} in {holder.name}",
            }
        if isinstance(bib, tuple):  # looked up first: a work already there needs no choice
            names = ", ".join(b.name for b in bib)
            return {
                "applied": False,
                "reason": f"several bibliographies ({names}): choose one, or pass 'bib'",
                "choose": {
                    "prompt": "Add to which bibliography?",
                    "choices": [
                        {"label": b.name, "description": str(b), "args": {"bib": str(b)}}
                        for b in bib
                    ],
                },
            }
        key = args.get("key")
        await session.ensure_all_current()  # typed while the work was looked up
        taken = await session.run(_taken_keys, session, bib)
        if not isinstance(key, str) or not key.strip():
            key = make_key(record, taken)
        elif (there := clashing_key(key, taken)) is not None:
            reason = f"{bib.name} already has an entry {there}"
            if there != key:
                reason += f", which {key} repeats (keys are compared ignoring case)"
            return {"applied": False, "reason": reason}
        title = f"Add entry: {describe(record)}"
        made = await session.run(_insert_action, session, bib, record, key, title)
        if isinstance(made, str) or made.edit is None:
            return {"applied": False, "reason": made if isinstance(made, str) else "no edit"}
        result = await server.workspace_apply_edit_async(
            types.ApplyWorkspaceEditParams(edit=made.edit, label=title)
        )
        answer = {
            "applied": bool(result and result.applied),
            "key": key,
            "bib": str(bib),
            "title": describe(record),
        }
        return answer if warning is None else {**answer, "warning": warning}

    def _present(
        self, args: Mapping[str, Any], bib: Path | tuple[Path, ...], record: WorkRecord
    ) -> tuple[str, Path] | None:
        """The key and file of an entry holding ``record``'s work in the target (or the
        targets to choose from) or another bibliography of the citing document (worker
        only): a work any of them holds is not added again."""
        uri = args.get("uri")
        doc = path_of(uri) if isinstance(uri, str) else None
        others = _bibs_of(self.session, doc) if doc is not None else ()
        bibs = (*(bib if isinstance(bib, tuple) else (bib,)), *others)
        return _present_in(self.session, tuple(dict.fromkeys(bibs)), record)

    def _target(self, args: Mapping[str, Any]) -> Path | str | tuple[Path, ...]:
        """The bibliography to add to (worker only), the document's bibliographies when it
        has several and ``bib`` does not name one (the client chooses), or why there is
        none."""
        session = self.session
        bib = args.get("bib")
        if isinstance(bib, str) and bib:
            path = Path(bib)
            if not path.is_absolute() and session.roots:
                path = session.roots[0] / path
            return (
                path
                if path in session.project.bibliography_paths()
                else f"{bib} is not a known bibliography"
            )
        uri = args.get("uri")
        doc = path_of(uri) if isinstance(uri, str) else None
        bibs = _bibs_of(session, doc) if doc is not None else ()
        if not bibs:
            bibs = tuple(session.project.bibliography_paths())
        if len(bibs) == 1:
            return bibs[0]
        return bibs if bibs else "no bibliography to add to"


def shown(answer: dict[str, Any]) -> dict[str, Any]:
    """``answer`` with the texts the client shows the user (``reason``, ``warning``) escaped
    as every message shows outside text (:func:`~citewarden.safe_text.visible_lines`): they
    quote the identifier and the bibliography the client sent, keys from the files and what
    a source answered (the command line escapes the same texts)."""
    out = dict(answer)
    for name in ("reason", "warning"):
        if isinstance(out.get(name), str):
            out[name] = visible_lines(out[name])
    return out


def register(
    server: LanguageServer, session: Session, service: VerificationService
) -> AddReference:
    """Create the feature and plug it into the session and the server."""
    feature = AddReference(session, service)
    session.features.add(feature)
    command: Callable[[str], Callable[..., Any]] = server.command

    @command(ADD_REFERENCE)
    async def add_reference(*args: Any) -> dict[str, Any]:
        first = args[0] if args else None
        if isinstance(first, list | tuple) and first:
            first = first[0]
        if isinstance(first, str):
            first = {"id": first}
        if not isinstance(first, Mapping):
            raise JsonRpcInvalidParams("citewarden.addReference expects {'id': ...}")
        return shown(await feature.add(server, first))

    return feature
