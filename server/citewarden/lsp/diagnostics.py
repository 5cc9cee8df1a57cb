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
from citewarden.text import LineIndex, count_line_breaks, next_line_start


@dataclass
class FileDiagnostics:
    """The diagnostics of one file, with what they were computed from."""

    findings: Sequence[Finding]
    text: str
    diagnostics: list[types.Diagnostic]
    #: Bumped whenever ``diagnostics`` changes; used as the pull ``resultId``.
    generation: int = 0
    #: The diagnostic of each finding (None: its code is off), parallel to ``findings``.
    per_finding: list[types.Diagnostic | None] = field(default_factory=list)
    #: JSON text of each diagnostic, made when first published and kept while it is reused.
    json: dict[int, str] = field(default_factory=dict)


def _placed_before(finding: Finding, path: Path, limit: float, dirty: set[Path] | None) -> bool:
    """True when nothing that places ``finding`` (its span, related spans) can have moved:
    it lies before ``limit`` (text of ``path`` unchanged up to there) and its related
    locations are there too or in files whose text did not change."""
    if finding.location.span.end >= limit:
        return False
    for rel in finding.related:
        loc = rel.location
        if loc.path == path:
            if loc.span.end >= limit:
                return False
        elif dirty is None or loc.path in dirty:
            return False
    return True


def _finding_key(finding: Finding) -> tuple[object, ...]:
    """What a diagnostic shows of a finding, apart from where it is."""
    data = finding.data
    return (
        finding.code,
        finding.message,
        finding.severity,
        data.get("key"),
        data.get("record_url"),
        data.get("record_source"),
    )


class _Moved:
    """Diagnostics of the old findings that an edit moved without changing their line and
    column: those starting on a line after the edited lines, when the edit added or removed
    no line break.  A new finding equal to one of them, shifted, reuses its diagnostic."""

    def __init__(
        self,
        path: Path,
        old: FileDiagnostics,
        text: str,
        region: tuple[int, int],
        dirty: set[Path] | None,
    ) -> None:
        self.path, self.dirty = path, dirty
        self.table: dict[tuple[object, ...], int] = {}
        prefix, tail = region
        old_text = old.text
        old_end, new_end = len(old_text) - tail, len(text) - tail
        self.prefix = prefix
        self.line_after = -1  # offset (new text) of the line break ending the edited lines
        if not (0 <= prefix <= min(old_end, new_end) and tail >= 0):
            return
        after = next_line_start(text, new_end)  # the start of the line after the edit
        old_after = after - (new_end - old_end)
        if after == -1 or old_text[old_end:old_after] != text[new_end:after]:
            return
        # a \r before the edit and a \n after it may have joined or parted: count from there
        lo = max(0, prefix - 1)
        if count_line_breaks(old_text, lo, old_after) != count_line_breaks(text, lo, after):
            return  # lines were added or removed: every later line number moved
        nl = after - 1
        self.delta = delta = new_end - old_end
        self.line_after = nl
        old_nl = nl - delta
        for n, f in enumerate(old.findings):
            span = f.location.span
            if span.start <= old_nl or old.per_finding[n] is None:
                continue
            related: list[object] = []
            for rel in f.related:
                loc = rel.location
                shift = delta if loc.path == path and loc.span.start > old_nl else 0
                related.append(
                    (loc.path, loc.span.start + shift, loc.span.end + shift, rel.message)
                )
            key = (*_finding_key(f), span.start + delta, span.end + delta, tuple(related))
            self.table.setdefault(key, n)

    def find(self, finding: Finding) -> int:
        """Index of the old finding whose diagnostic ``finding`` can reuse, or -1."""
        if self.line_after < 0 or finding.location.span.start <= self.line_after:
            return -1
        related: list[object] = []
        for rel in finding.related:
            loc = rel.location
            if loc.path == self.path:
                if self.prefix <= loc.span.start <= self.line_after or (
                    loc.span.start < self.prefix < loc.span.end
                ):
                    return -1  # placed by the edited lines
            elif self.dirty is None or loc.path in self.dirty:
                return -1  # another file that changed
            related.append((loc.path, loc.span.start, loc.span.end, rel.message))
        span = finding.location.span
        key = (*_finding_key(finding), span.start, span.end, tuple(related))
        return self.table.get(key, -1)


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
        stable: Mapping[Path, int] | None = None,
        edits: Mapping[Path, tuple[str, int, int]] | None = None,
    ) -> set[Path]:
        """Take a new full set of findings; return the files whose diagnostics changed.

        A file missing from ``findings`` has none any more (its list becomes empty).
        ``text_of`` gives the line index of the text a file's spans refer to; it is asked
        only for files whose findings changed or whose text may have (``dirty``; None
        means any).  ``stable`` says, for a dirty file, up to which offset its text is
        unchanged: a finding object seen before that lies there keeps its diagnostic, so an
        edit near the end of a large file converts only what it moved.  ``edits`` says,
        for a dirty file, what an editor changed: ``(before, prefix, suffix)``, the text
        before and the lengths of the start and end left unchanged since; when the
        diagnostics were made from ``before``, a finding after the edit that only moved
        with the text keeps its diagnostic too.  ``force``
        reconverts everything (e.g. after a settings change).
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
                    old.findings, old.per_finding = [], []
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
            old_text = old.text if old is not None else None
            limit: float = float("inf") if not maybe_moved else (stable or {}).get(path, 0)
            reuse: dict[int, int] = {}
            if old is not None and not force and limit > 0 and old.per_finding:
                reuse = {id(f): n for n, f in enumerate(old.findings)}
            # without the text, spans cannot be placed (an empty index puts them at 0:0)
            where: TextIndex = index if index is not None else LineIndex("")
            region = (edits or {}).get(path) if maybe_moved else None
            moved: _Moved | None = None
            if (
                region is not None
                and region[0] is old_text
                and old is not None
                and not force
                and old.per_finding
                and index is not None
            ):
                moved = _Moved(path, old, text, region[1:], dirty)
            per_finding: list[types.Diagnostic | None] = []
            kept: set[int] = set()
            for finding in new:
                n = reuse.get(id(finding), -1)
                if not (
                    old is not None
                    and n >= 0
                    and old.findings[n] is finding
                    and _placed_before(finding, path, limit, dirty)
                ):
                    n = moved.find(finding) if moved is not None else -1
                if n >= 0 and old is not None:
                    reused = old.per_finding[n]
                    per_finding.append(reused)
                    if reused is not None:
                        kept.add(id(reused))
                else:
                    per_finding.append(converter.diagnostic(finding, where))
            diagnostics = [d for d in per_finding if d is not None]
            if old is not None and old.diagnostics == diagnostics:
                old.findings, old.text, old.per_finding = new, text, per_finding
                continue
            self._generation += 1
            json_of: dict[int, str] = {}
            if old is not None and kept:
                # only the reused objects: a new object may have the id of a dead one
                json_of = {k: v for k, v in list(old.json.items()) if k in kept}
            self.files[path] = FileDiagnostics(
                new, text, diagnostics, self._generation, per_finding, json_of
            )
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
