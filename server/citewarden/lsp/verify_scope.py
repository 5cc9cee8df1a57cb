"""What background verification looks at: the entries in scope and their findings.

:class:`VerificationScope` (a base of :class:`~citewarden.lsp.verification.VerificationService`)
reads the model in the session's worker only: it fingerprints the entries of the project's
bibliographies, plans which ones to verify and with what priority, and turns the verdicts of
the current fingerprints into findings, carrying over the rows of the entries an edit did not
touch.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewarden.findings.verdicts import (
    citation_findings,
    citations_of,
    entry_findings,
    marks_citations,
)
from citewarden.lsp.session import Session
from citewarden.lsp.verify_rows import carried, moved_row, moved_rows, shift, spliced
from citewarden.lsp.verify_state import Job, _FileMemo, _FileRows, fingerprint
from citewarden.model import Entry, Finding, ParsedBibliography, Verdict
from citewarden.parsing import is_latex, is_markdown
from citewarden.settings import Settings

#: Priorities: cited in an open document, in an open bibliography, anything else.
CITED_OPEN, OPEN_BIB, OTHER = 0, 1, 2


class VerificationScope:
    """The entries in scope, their fingerprints and priorities, and their findings (a base
    of :class:`~citewarden.lsp.verification.VerificationService`, which holds the state)."""

    session: Session
    #: Verdicts by fingerprint.
    verdicts: dict[str, Verdict]
    #: Bumped whenever a verdict (or what findings depend on) changes.
    generation: int
    _queue: dict[str, Job]
    _running: dict[str, asyncio.Future[Any]]
    _files: dict[Path, _FileMemo]
    _fp_by_text: dict[str, str]
    _rows: dict[Path, _FileRows]
    _current: list[str]
    _current_set: frozenset[str]
    loop: asyncio.AbstractEventLoop | None

    if TYPE_CHECKING:  # provided by VerificationQueue and VerificationService

        @property
        def enabled(self) -> bool: ...
        def _cancel_outdated(self) -> None: ...

    # -- planning ---------------------------------------------------------------------------
    def _fingerprints(self, path: Path, bib: ParsedBibliography) -> _FileMemo:
        """Fingerprints and ignore marks of ``bib``'s entries (worker only; memoised per
        parse, and carried over from the previous parse for the entries an edit did not
        touch)."""
        memo = self._files.get(path)
        if memo is not None and memo.bib is bib:
            return memo
        ws = self.session.project
        text = ws.text(path) or ""
        known = self._fp_by_text
        span = carried(memo.bib, bib) if memo is not None else None
        if memo is not None and span is not None:
            head, tail = span
            entries = bib.entries
            middle = [
                self._fingerprint(entries[i], text, known) for i in range(head, len(entries) - tail)
            ]
            fps = spliced(memo.fps, head, tail, middle)  # type: ignore[arg-type]
            ignored = [False] * len(fps)  # carried over only without ignore comments
        else:
            ignored = []
            index = ws.line_index(path) if bib.suppressed_lines else None
            for entry in bib.entries:
                line = index.line_of(entry.span.start) if index is not None else -1
                ignored.append(line in bib.suppressed_lines)
            fps = [self._fingerprint(entry, text, known) for entry in bib.entries]
        if len(known) > 4 * max(1, sum(len(m.fps) for m in self._files.values()) + len(fps)):
            keep = {text[e.span.start : e.span.end] for e in bib.entries}
            self._fp_by_text = {k: v for k, v in known.items() if k in keep}
        memo = _FileMemo(bib, fps, ignored)  # type: ignore[arg-type]
        self._files[path] = memo
        return memo

    @staticmethod
    def _fingerprint(entry: Entry, text: str, known: dict[str, str]) -> str:
        raw = text[entry.span.start : entry.span.end]
        fp = known.get(raw) if raw else None
        if fp is None:
            fp = fingerprint(entry)  # builds the entry's fields: only for new text
            if raw:
                known[raw] = fp
        return fp

    def _scope(self) -> list[tuple[Path, ParsedBibliography, _FileMemo]]:
        """The bibliographies in scope with their fingerprints (worker only)."""
        ws = self.session.project
        out = []
        for bib in ws.verified_bibliographies():
            path = bib.path
            if self.session.ignored(path):
                continue
            out.append((path, bib, self._fingerprints(path, bib)))
        for gone in set(self._files) - {p for p, _, _ in out}:
            del self._files[gone]
        return out

    def _wanted(self, key: str, ignored: bool) -> bool:
        """Whether the entry with ``key`` (on an ignored line or not) is verified at all."""
        return self.session.policy.verifies_key(key, suppressed=ignored)

    def _plan(self, open_paths: Sequence[Path]) -> tuple[list[Job], list[str]]:
        """Every entry to verify with its priority, and the fingerprints in scope (worker)."""
        ws = self.session.project
        cited: set[str] = set()
        open_bibs: set[Path] = set()
        for path in open_paths:
            if is_latex(path) or is_markdown(path):
                doc = ws.document(path)
                if doc is not None:
                    cited.update(c.key for c in doc.citations)
            else:
                open_bibs.add(path)
        jobs: list[Job] = []
        current: list[str] = []
        for path, bib, memo in self._scope():
            for entry, fp, ignored in zip(bib.entries, memo.fps, memo.ignored, strict=True):
                if not self._wanted(entry.key, ignored):
                    continue
                current.append(fp)
                if entry.key in cited:
                    prio = CITED_OPEN
                elif path in open_bibs:
                    prio = OPEN_BIB
                else:
                    prio = OTHER
                jobs.append(Job(fp, entry, prio, 0))
        self._current, self._current_set = current, frozenset(current)
        return jobs, current

    # -- findings (worker) -------------------------------------------------------------------
    def findings(self) -> dict[Path, list[Finding]]:
        """Verification findings by file for the current text (runs in the session's worker
        as part of every check cycle)."""
        if not self.enabled:
            return {}
        ws = self.session.project
        settings = self.session.settings
        verify = settings.verify
        out: dict[Path, list[Finding]] = {}
        marked: list[tuple[Entry, Verdict]] = []
        rows: dict[Path, _FileRows] = {}
        for path, bib, memo in self._scope():
            mine = rows[path] = self._rows_of(path, bib, memo, settings)
            for i in mine.marked:
                verdict = mine.verdicts[i]
                if verdict is not None:
                    marked.append((bib.entries[i], verdict))
            if mine.found:
                out[path] = mine.found
        if rows.keys() != self._rows.keys() or any(rows[p] is not self._rows[p] for p in rows):
            current = [fp for r in rows.values() for fp in r.wanted]
            self._current, self._current_set = current, frozenset(current)
        self._rows = rows
        sites: list[Finding] = []
        if marked and verify.citation_sites:
            cited = citations_of(ws, marked)
            for entry, verdict in marked:
                sites += citation_findings(entry, verdict, cited.get(entry.key, []))
        for f in self.session.policy.apply(ws, sites) if sites else []:
            out.setdefault(f.location.path, []).append(f)
        if self.loop is not None and (self._running or self._queue):
            self.loop.call_soon_threadsafe(self._cancel_outdated)
        return out

    def _rows_of(
        self, path: Path, bib: ParsedBibliography, memo: _FileMemo, settings: Settings
    ) -> _FileRows:
        """The per-entry verdicts and findings of one bibliography (worker only)."""
        generation, token = self.generation, id(self.session.policy)
        prev = self._rows.get(path)
        if prev is not None and prev.settings_token != token:
            prev = None
        if prev is not None and prev.bib is bib and prev.generation == generation:
            return prev
        span = carried(prev.bib, bib) if prev is not None and prev.bib is not bib else None
        if prev is not None and span is not None and prev.generation == generation:
            return self._carried_rows(path, prev, bib, memo, settings, span)
        fps, n = memo.fps, len(memo.fps)
        index = self.session.project.bib_index(path)
        keys = index.keys if index is not None else [e.key for e in bib.entries]
        flags = [self._wanted(k, ig) for k, ig in zip(keys, memo.ignored, strict=True)]
        get = self.verdicts.get
        verdicts = [get(fp) if wanted else None for fp, wanted in zip(fps, flags, strict=True)]
        # where each entry's previous row is, and how far it has moved: (position, delta)
        origin: list[tuple[int, int] | None]
        if prev is not None and prev.bib is bib:
            origin = [(i, 0) for i in range(n)]
        elif prev is not None and span is not None:
            head, tail = span
            delta = shift(prev.bib, bib, tail)
            first_old = len(prev.rows) - tail
            origin = [(i, 0) for i in range(head)]
            origin += [None] * (n - head - tail)
            origin += [(first_old + k, delta) for k in range(tail)]
        else:
            origin = [None] * n
        text = self.session.project.text(path)
        rows: list[Sequence[Finding]] = []
        for i, verdict in enumerate(verdicts):
            if verdict is None:
                rows.append(())
                continue
            at = origin[i]
            if at is not None and prev is not None and prev.verdicts[at[0]] is verdict:
                rows.append(moved_row(prev.rows[at[0]], at[1]))
            else:
                rows.append(self._row(bib.entries[i], verdict, text, settings))
        marked = [i for i, v in enumerate(verdicts) if v is not None and marks_citations(v)]
        return _FileRows(bib, generation, token, fps, flags, verdicts, rows, marked)

    def _carried_rows(
        self,
        path: Path,
        prev: _FileRows,
        bib: ParsedBibliography,
        memo: _FileMemo,
        settings: Settings,
        span: tuple[int, int],
    ) -> _FileRows:
        """The rows of ``bib``, a re-read of ``prev.bib`` with no verdict changed since:
        those of the entries the edit did not touch are carried over, not looked at."""
        head, tail = span
        entries, fps = bib.entries, memo.fps
        n, n_old = len(fps), len(prev.rows)
        text = self.session.project.text(path)
        flags: list[bool] = []
        verdicts: list[Verdict | None] = []
        rows: list[Sequence[Finding]] = []
        marked: list[int] = [i for i in prev.marked if i < head]
        for i in range(head, n - tail):
            entry = entries[i]
            wanted = self._wanted(entry.key, memo.ignored[i])
            verdict = self.verdicts.get(fps[i]) if wanted else None
            flags.append(wanted)
            verdicts.append(verdict)
            if verdict is None:
                rows.append(())
                continue
            if marks_citations(verdict):
                marked.append(i)
            rows.append(self._row(entry, verdict, text, settings))
        moved_by = n - n_old
        marked += [i + moved_by for i in prev.marked if i >= n_old - tail]
        delta = shift(prev.bib, bib, tail)
        return _FileRows(
            bib,
            prev.generation,
            prev.settings_token,
            fps,
            spliced(prev.flags, head, tail, flags),  # type: ignore[arg-type]
            spliced(prev.verdicts, head, tail, verdicts),  # type: ignore[arg-type]
            prev.rows[:head] + rows + moved_rows(prev.rows[n_old - tail :] if tail else [], delta),
            marked,
        )

    def _row(
        self, entry: Entry, verdict: Verdict, text: str | None, settings: Settings
    ) -> Sequence[Finding]:
        """The findings of one entry's verdict after the policy step."""
        found = entry_findings(entry, verdict, text)
        return tuple(self.session.policy.apply(self.session.project, found)) if found else ()

    def verdict_for(self, entry: Entry) -> tuple[Verdict | None, bool]:
        """(verdict, still pending) of an entry's current fingerprint (worker only)."""
        fp = fingerprint(entry)
        return self.verdicts.get(fp), fp in self._queue or fp in self._running
