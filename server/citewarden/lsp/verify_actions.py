"""Verification in the editor: wiring, code actions, hover, commands.

:func:`register` creates the :class:`~.verification.VerificationService` of a session and
adds it to the session's features as one :class:`VerificationFeature`:

* findings -> merged into each file's diagnostics; their fixes (apply a correction,
  "Update entry from <source>", "Ignore this entry") come back as quick fixes through the
  session's code actions;
* "Open record at <source>" (``window/showDocument`` of the record's address) on an entry
  or a citation of it;
* verification status, matched record, source and retraction notice in hovers;
* the optional citation judge's ``citation-unsupported`` warnings (:mod:`.judging`);
* commands: ``citewarden.verifyAll``, ``citewarden.verifyEntry`` (``key``),
  ``citewarden.clearCache``, ``citewarden.report`` (``"html"`` or ``"json"``, optional
  output path; returns ``{"path": ...}``), ``citewarden.status`` (the same object as the
  ``citewarden/status`` notification) and ``citewarden.openRecord`` (``url``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from citewarden.files import write_new_regular
from citewarden.findings.score import score_summary
from citewarden.findings.verdicts import record_url, source_label
from citewarden.lsp import context_hover, judging
from citewarden.lsp.features import Feature
from citewarden.lsp.session import Session
from citewarden.lsp.verification import VerificationService, entry_verdicts
from citewarden.lsp.verify_hover import hover_markdown
from citewarden.model import Entry, Finding, Span
from citewarden.output_paths import expanded_output, missing_folder
from citewarden.parsing import is_latex, is_markdown
from citewarden.safe_text import visible

if TYPE_CHECKING:
    from citewarden.audit import Audit

log = logging.getLogger(__name__)

VERIFY_ALL = "citewarden.verifyAll"
VERIFY_ENTRY = "citewarden.verifyEntry"
CLEAR_CACHE = "citewarden.clearCache"
REPORT = "citewarden.report"
STATUS = "citewarden.status"
OPEN_RECORD = "citewarden.openRecord"
COMMANDS = (VERIFY_ALL, VERIFY_ENTRY, CLEAR_CACHE, REPORT, STATUS, OPEN_RECORD)

REPORT_NAMES = {"html": "citewarden-report.html", "json": "citewarden-report.json"}


def _entries_at(session: Session, path: Path, span: Span) -> list[Entry]:
    """The entry under ``span`` in a bibliography, or the entries a citation there names."""
    ws = session.project
    if is_latex(path) or is_markdown(path):
        cit = ws.citation_at(path, span.start)
        return ws.lookup(path, cit.key) if cit is not None else []
    entry = ws.entry_at(path, span.start)
    return [entry] if entry is not None else []


def _open_record_actions(
    service: VerificationService, session: Session, path: Path, span: Span
) -> list[types.CodeAction]:
    if not service.enabled:
        return []
    out = []
    seen: set[str] = set()
    for entry in _entries_at(session, path, span):
        verdict, _ = service.verdict_for(entry)
        url = record_url(verdict) if verdict is not None else None
        if url is None or url in seen or verdict is None or verdict.match is None:
            continue
        seen.add(url)
        title = f"Open record at {source_label(verdict.match.source)}"
        out.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                command=types.Command(title=title, command=OPEN_RECORD, arguments=[url]),
            )
        )
    return out


def _hover(
    service: VerificationService, session: Session, path: Path, key: str, entry: Entry | None
) -> str | None:
    if not service.enabled:
        return None
    if entry is None:
        found = session.project.lookup(path, key)
        if not found:
            return None
        entry = found[0]
    if entry.key in service.settings.ignore_entries:
        return "**Verification:** off for this entry (verify.ignore_entries)"
    bib = session.project.bibliography(entry.path)
    if bib is not None and bib.suppressed_lines:
        index = session.project.line_index(entry.path)
        if index is not None and index.line_of(entry.span.start) in bib.suppressed_lines:
            return "**Verification:** off for this entry (ignore comment)"
    verdict, pending = service.verdict_for(entry)
    return hover_markdown(verdict, pending, entry=entry)


def session_audit(service: VerificationService, session: Session) -> Audit:
    """The editor's current state as an :class:`~citewarden.audit.Audit`: the findings it
    shows (after policy), the verdicts it holds, the score its status bar shows (worker)."""
    ws = session.project
    entries = tuple(ws.all_entries())
    # each entry with its own verdict, as ``check`` pairs them (a key two files define)
    paired = tuple(entry_verdicts(service.verdicts, entries)) if service.enabled else None
    verdicts = tuple(v for _, v in paired) if paired is not None else None
    findings = {p: list(session.store.findings(p)) for p in list(session.store.files)}
    from citewarden.audit import Audit  # the report commands only

    return Audit(
        workspace=ws,
        settings=session.settings,
        policy=session.policy,
        scope=frozenset(findings),
        findings=findings,
        entries=entries,
        verdicts=verdicts,
        summary=score_summary(verdicts) if verdicts is not None else None,
        paired=paired,
    )


class ReportRefused(ValueError):
    """A report the command will not write (it would replace a file of the project)."""


def _write_report(service: VerificationService, session: Session, fmt: str, target: Path) -> Path:
    """Write the project's report (worker only)."""
    audit = session_audit(service, session)
    if audit.replaced_by(target):
        raise ReportRefused(
            f"{visible(str(target))} is a file of the project; the report would replace it"
        )
    root = session.roots[0] if session.roots else None
    if fmt == "json":
        from citewarden.report.json_report import report_text

        text = report_text(audit, root)
    else:
        from citewarden.report.html.build import html_of

        text = html_of(audit, root=root)
    write_new_regular(target, text.encode("utf-8"))
    return target


def _argument(args: tuple[Any, ...], name: str, position: int = 0) -> Any:
    """A command argument given positionally or in an object: ``["x"]`` / ``[{"name": "x"}]``."""
    if len(args) > position:
        value = args[position]
        if isinstance(value, Mapping):
            return value.get(name)
        return value
    return None


#: The names an object of ``citewarden.report``'s arguments may hold.
_REPORT_ARGUMENTS = ("format", "path")


def report_arguments(args: tuple[Any, ...], root: Path) -> tuple[str, Path]:
    """The format and the file of ``citewarden.report``'s arguments (``"json"``, ``["html",
    "out/r.html"]`` or ``{"format": ..., "path": ...}``; a relative path from ``root``, a
    leading ``~`` the home folder, as ``check --output`` reads it).
    Anything else is refused with :class:`JsonRpcInvalidParams` before a file is written: a
    name misspelt (``{"output": "r.json"}``), a third argument, a path naming a folder or
    in a folder that is not there (:func:`~citewarden.output_paths.missing_folder`)."""
    if len(args) > 2:
        raise JsonRpcInvalidParams("citewarden.report expects a format and a path, no more")
    unknown = sorted(
        repr(visible(str(name)))
        for arg in args
        if isinstance(arg, Mapping)
        for name in arg
        if name not in _REPORT_ARGUMENTS
    )
    if unknown:
        raise JsonRpcInvalidParams(
            f"citewarden.report expects 'format' and 'path' only, not {', '.join(unknown)}"
        )
    fmt = _argument(args, "format")
    fmt = "html" if fmt is None or fmt == "" else fmt
    if not isinstance(fmt, str) or fmt not in REPORT_NAMES:
        raise JsonRpcInvalidParams("citewarden.report expects the format 'html' or 'json'")
    out = _argument(args, "path", 1) if len(args) > 1 else None
    if out is None and args and isinstance(args[0], Mapping):
        out = args[0].get("path")
    if out is not None and (not isinstance(out, str) or "\x00" in out):
        raise JsonRpcInvalidParams("citewarden.report expects the path of a file to write")
    if out and (out.endswith(("/", os.sep)) or Path(out).name in ("", ".", "..")):
        raise JsonRpcInvalidParams(
            f"citewarden.report expects the path of a file; {visible(out)} names a folder"
        )
    try:
        target = Path(expanded_output(out)) if out else root / REPORT_NAMES[fmt]
    except ValueError as exc:
        raise JsonRpcInvalidParams(f"citewarden.report: {visible(str(exc))}") from None
    if (missing := missing_folder(target, root)) is not None:
        raise JsonRpcInvalidParams(f"citewarden.report: {visible(missing)}")
    return fmt, target if target.is_absolute() else root / target


class VerificationFeature(Feature):
    """Verification's hooks into the session: its findings, saves, check cycles, the
    verification part of hovers and "Open record" actions."""

    def __init__(self, service: VerificationService, session: Session) -> None:
        self.service = service
        self.session = session

    def findings(self) -> Mapping[Path, Sequence[Finding]]:
        return self.service.findings()

    async def on_save(self, path: Path) -> None:
        await self.service.on_save(path)

    def on_checked(self, delivered: set[Path]) -> None:
        self.service.on_checked(delivered)

    def hover(self, path: Path, key: str, entry: Entry | None) -> str | None:
        return _hover(self.service, self.session, path, key, entry)

    def code_actions(self, path: Path, span: Span) -> list[types.CodeAction]:
        return _open_record_actions(self.service, self.session, path, span)

    async def aclose(self) -> None:
        await self.service.aclose()


def register(server: LanguageServer, session: Session) -> VerificationService:
    """Create the verification service of ``session`` and register its features."""
    service = VerificationService(session)
    session.features.add(VerificationFeature(service, session))
    hover = context_hover.register(session, service)
    hover.judge = judging.register(session, service).verdict_on
    command: Callable[[str], Callable[..., Any]] = server.command

    @command(VERIFY_ALL)
    async def verify_all(*args: Any) -> dict[str, Any]:
        await session.ready.wait()
        return await service.verify(force=True)

    @command(VERIFY_ENTRY)
    async def verify_entry(*args: Any) -> dict[str, Any]:
        key = _argument(args, "key")
        if not isinstance(key, str) or not key:
            raise JsonRpcInvalidParams("citewarden.verifyEntry expects a citation key")
        await session.ready.wait()
        return await service.verify(force=True, keys={key})

    @command(CLEAR_CACHE)
    async def clear_cache(*args: Any) -> dict[str, Any]:
        await session.ready.wait()
        removed = await service.clear_cache()
        status = await service.verify(force=True)
        return {"removed": removed, **status}

    @command(REPORT)
    async def report(*args: Any) -> dict[str, Any]:
        root = session.roots[0] if session.roots else Path.cwd()
        fmt, target = report_arguments(args, root)
        await session.ready.wait()
        try:
            written = await session.run(_write_report, service, session, fmt, target)
        except ReportRefused as exc:
            raise JsonRpcInvalidParams(f"report not written: {exc}") from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            message = f"report not written: {visible(str(target))}: {reason}"
            raise JsonRpcInternalError(message) from None
        return {"path": str(written), "format": fmt}

    @command(STATUS)
    def status(*args: Any) -> dict[str, Any]:
        return service.status()

    @command(OPEN_RECORD)
    async def open_record(*args: Any) -> bool:
        url = _argument(args, "url")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            raise JsonRpcInvalidParams("citewarden.openRecord expects an http(s) address")
        result = await server.window_show_document_async(
            types.ShowDocumentParams(uri=url, external=True, take_focus=True)
        )
        return bool(result and result.success)

    return service
