"""Diagnostics: findings per file -> protocol diagnostics, and what to publish.

:class:`DiagnosticStore` remembers, for every file, the findings and text a diagnostic list
was made from, so unchanged files are neither converted nor published again, and files
whose findings went away get an empty list (stale diagnostics are cleared).

Delivery: push (``textDocument/publishDiagnostics``) always works.  When the client supports
pull diagnostics *and* can be asked to refresh them, open documents are served by pull
(``textDocument/diagnostic``) and everything else is pushed; a document's pushed list is
cleared when it opens, so it never shows twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from citewarden.lsp.convert import Converter, TextIndex
from citewarden.model import Finding
from citewarden.text import LineIndex


@dataclass
class FileDiagnostics:
    """The diagnostics of one file, with what they were computed from."""

    findings: Sequence[Finding]
    text: str
    diagnostics: list[types.Diagnostic]
    #: Bumped whenever ``diagnostics`` changes; used as the pull ``resultId``.
    generation: int = 0


@dataclass
class DiagnosticStore:
    """Current diagnostics of every file that has (or had) findings."""

    files: dict[Path, FileDiagnostics] = field(default_factory=dict)
    _generation: int = 0

    def update(
        self,
        findings: Mapping[Path, Sequence[Finding]],
        text_of: Callable[[Path], TextIndex | None],
        converter: Converter,
        dirty: set[Path] | None = None,
        force: bool = False,
    ) -> set[Path]:
        """Take a new full set of findings; return the files whose diagnostics changed.

        A file missing from ``findings`` has none any more (its list becomes empty).
        ``text_of`` gives the line index of the text a file's spans refer to; it is asked
        only for files whose findings changed or whose text may have (``dirty``; None
        means any).  ``force`` reconverts everything (e.g. after a settings change).
        """
        changed: set[Path] = set()
        for path in set(self.files) | set(findings):
            new = list(findings.get(path, ()))
            old = self.files.get(path)
            if not new:
                if old is not None and old.diagnostics:
                    self._generation += 1
                    self.files[path] = FileDiagnostics([], "", [], self._generation)
                    changed.add(path)
                elif old is not None:
                    old.findings = []
                continue
            maybe_moved = dirty is None or path in dirty
            if not force and old is not None and not maybe_moved and old.findings == new:
                continue
            index = text_of(path)
            text = index.text if index is not None else ""
            if (
                not force
                and old is not None
                and (old.text is text or old.text == text)
                and old.findings == new
            ):
                continue
            # without the text, spans cannot be placed (an empty index puts them at 0:0)
            diagnostics = converter.diagnostics(new, index if index is not None else LineIndex(""))
            if old is not None and old.diagnostics == diagnostics:
                old.findings, old.text = new, text
                continue
            self._generation += 1
            self.files[path] = FileDiagnostics(new, text, diagnostics, self._generation)
            changed.add(path)
        return changed

    def get(self, path: Path) -> FileDiagnostics | None:
        return self.files.get(path)

    def findings(self, path: Path) -> Sequence[Finding]:
        entry = self.files.get(path)
        return entry.findings if entry is not None else ()

    def clear(self) -> None:
        self.files.clear()


def pull_supported(capabilities: types.ClientCapabilities) -> bool:
    """True when the client pulls diagnostics and can be told to pull again."""
    text = capabilities.text_document
    ws = capabilities.workspace
    return bool(
        text is not None
        and text.diagnostic is not None
        and ws is not None
        and ws.diagnostics is not None
        and ws.diagnostics.refresh_support
    )


def pull_report(
    entry: FileDiagnostics | None, previous_result_id: str | None
) -> types.RelatedFullDocumentDiagnosticReport | types.RelatedUnchangedDocumentDiagnosticReport:
    """The answer to ``textDocument/diagnostic`` for one document."""
    if entry is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[], result_id="0")
    result_id = str(entry.generation)
    if previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=entry.diagnostics, result_id=result_id)
