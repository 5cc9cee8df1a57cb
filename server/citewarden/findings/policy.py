"""The one policy step: what is shown of a finding, and how loudly (pure).

Every finding, from the checks or from verification, goes through :meth:`Policy.apply`
on the command line and in the editor alike.  The steps, in this order:

1. **ignore globs** (``ignore = ["drafts/*"]``): findings in a file matching a pattern,
   relative to a workspace root (or by file name), are dropped;
2. **suppression comments** (``% citewarden: ignore``): findings starting on a suppressed
   line are dropped (an entry whose first line is suppressed is not verified at all,
   :meth:`Policy.verifies`);
3. **per-code severity** (``[severity] pages-mismatch = "error"``): a configured code gets
   that severity, ``"off"`` drops it; this is final;
4. **tier severity** (``[verify.tier-severity]``): a verification finding that is not a
   note (hint or information) takes the more serious of its own severity and its entry's
   risk tier's (H error, E warning, M warning, D off by default; the severity scale of
   :mod:`citewarden.verify.severity`); notes and index findings keep their own.

The table behind step 4 is :func:`scale`, the one place today's defaults live.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from citewarden.model import Entry, Finding, ParsedBibliography, ParsedDocument, Severity
from citewarden.settings import SEVERITY_NAMES, TIER_SEVERITY, Settings, is_ignored
from citewarden.text import LineIndex
from citewarden.verify.severity import shown_severity

_NOTES = (Severity.HINT, Severity.INFORMATION)


class Texts(Protocol):
    """What the policy reads of a workspace: suppressed lines and line numbers."""

    def parsed(self, path: Path) -> ParsedDocument | ParsedBibliography | None: ...

    def line_index(self, path: Path) -> LineIndex | None: ...


def scale(own: Severity, tier: str | None, tiers: Mapping[str, str]) -> Severity | None:
    """The default severity of a finding: its own, or for a verification finding that is
    not a note, the more serious of its own and its entry's tier's (``tiers`` maps H/E/M/D
    to a severity name; a tier set to "off" silences it).  The scale itself is
    :mod:`citewarden.verify.severity`."""
    if tier is None or own in _NOTES:
        return own
    name = tiers.get(tier, TIER_SEVERITY.get(tier, "warning")).lower()
    level = SEVERITY_NAMES.get(name, SEVERITY_NAMES[TIER_SEVERITY.get(tier, "warning")])
    return shown_severity(own, level)


def tier_of(finding: Finding) -> str | None:
    """The risk tier of the entry a verification finding is about (None: index finding)."""
    data = finding.data
    if data.get("verification") is not True:
        return None
    tier = data.get("tier")
    return tier if isinstance(tier, str) else None


class Policy:
    """The policy of one set of settings and workspace roots."""

    __slots__ = ("_ignored", "_overrides", "_tiers", "roots", "settings")

    def __init__(self, settings: Settings, roots: Sequence[Path] = ()) -> None:
        self.settings = settings
        self.roots = tuple(roots)
        self._overrides: Mapping[str, Severity | None] = dict(settings.severity)
        self._tiers: Mapping[str, str] = settings.verify.tier_severity
        self._ignored: dict[Path, bool] = {}

    # -- 1. ignore globs ---------------------------------------------------------------
    def ignored(self, path: Path) -> bool:
        """Whether ``path`` matches an ignore glob (:func:`~citewarden.settings.is_ignored`)."""
        if not self.settings.ignore:
            return False
        known = self._ignored.get(path)
        if known is None:
            known = self._ignored[path] = is_ignored(self.settings, path, self.roots)
        return known

    # -- 2. suppression comments -------------------------------------------------------
    @staticmethod
    def suppressed_line(ws: Texts, path: Path, offset: int) -> bool:
        """Whether ``offset`` of ``path`` lies on a line an ignore comment suppresses."""
        parsed = ws.parsed(path)
        lines = parsed.suppressed_lines if parsed is not None else frozenset()
        if not lines:
            return False
        index = ws.line_index(path)
        return index is not None and index.line_of(offset) in lines

    # -- 3 and 4. severity ---------------------------------------------------------------
    def severity(self, finding: Finding) -> Severity | None:
        """The severity a finding is shown with (None: not shown)."""
        code = finding.code.value
        if code in self._overrides:
            return self._overrides[code]
        return scale(finding.effective_severity, tier_of(finding), self._tiers)

    def verifies(self, ws: Texts, entry: Entry) -> bool:
        """Whether ``entry`` is verified at all: not in an ignored file, not on a
        suppressed line, not in ``verify.ignore-entries``."""
        if self.ignored(entry.path):
            return False
        suppressed = self.suppressed_line(ws, entry.path, entry.span.start)
        return self.verifies_key(entry.key, suppressed=suppressed)

    def verifies_key(self, key: str, *, suppressed: bool) -> bool:
        """:meth:`verifies` for an entry of a file that is not ignored, given whether its
        line is suppressed (for a caller that knows it already, as the editor does)."""
        return bool(key) and not suppressed and key not in self.settings.verify.ignore_entries

    # -- the step ------------------------------------------------------------------------
    def apply(self, ws: Texts, findings: Iterable[Finding]) -> list[Finding]:
        """``findings`` after the four steps, in their order."""
        out: list[Finding] = []
        last: Path | None = None
        skip = False
        lines: frozenset[int] = frozenset()
        index: LineIndex | None = None
        overrides, tiers = self._overrides, self._tiers
        for finding in findings:
            path = finding.location.path
            if path is not last:
                last = path
                skip = self.ignored(path)
                parsed = ws.parsed(path)
                lines = parsed.suppressed_lines if parsed is not None else frozenset()
                index = ws.line_index(path) if lines else None
            if skip:
                continue
            if index is not None and index.line_of(finding.location.span.start) in lines:
                continue
            code = finding.code
            if code.value in overrides:
                wanted = overrides[code.value]
            else:
                wanted = scale(finding.effective_severity, tier_of(finding), tiers)
            if wanted is None:
                continue
            if wanted is not finding.effective_severity:
                finding = dataclasses.replace(finding, severity=wanted)
            out.append(finding)
        return out

    def apply_by_file(
        self, ws: Texts, findings: Mapping[Path, Sequence[Finding]]
    ) -> dict[Path, list[Finding]]:
        """:meth:`apply` file by file; every file not ignored stays (maybe with no finding),
        so a client can clear stale results."""
        return {
            path: self.apply(ws, items)
            for path, items in findings.items()
            if not self.ignored(path)
        }
