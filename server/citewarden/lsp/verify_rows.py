"""What verification keeps per entry of a bibliography, carried over across edits.

Every check cycle merges the verification findings into the diagnostics.  Made from scratch,
that is a look at every entry: its fingerprint, its verdict, its findings, a few
milliseconds per thousand entries on every keystroke.  An edit re-reads a few entries; the
reader says which of the new entries are the old ones unchanged (``ParsedBibliography.
reused``: the first ``head`` as they were, the last ``tail`` moved by the edit).  Their rows
are carried over: the same for the first, moved for the last; only the rest are made again.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from citewarden.model import Finding, Fix, Location, ParsedBibliography, Related, Span, TextEdit

#: Entries next to the edit are made again even when the reader carried them over: what
#: their findings look at around them (the text before an entry on its line, for one) may
#: be where the edit was.
MARGIN = 1


def carried(old: ParsedBibliography, new: ParsedBibliography) -> tuple[int, int] | None:
    """``(head, tail)``: ``new``'s first ``head`` entries are ``old``'s first ones, at the
    same place, and its last ``tail`` are ``old``'s last ones, moved; None when ``new`` is
    not a re-read of ``old``, or when an ignore comment in either may change what is
    reported for an entry that moved."""
    reused = new.reused
    if reused is None or reused[0] != id(old.entries):
        return None
    if old.suppressed_lines or new.suppressed_lines:
        return None
    n_old, n_new = len(old.entries), len(new.entries)
    head = max(0, reused[1] - MARGIN)
    tail = max(0, reused[2] - MARGIN)
    if head + tail > min(n_old, n_new):
        return None
    return head, tail


def shift(old: ParsedBibliography, new: ParsedBibliography, tail: int) -> int:
    """How far the last ``tail`` entries moved from ``old`` to ``new`` (0 without any)."""
    if not tail:
        return 0
    return (
        new.entries[len(new.entries) - tail].span.start
        - old.entries[len(old.entries) - tail].span.start
    )


def spliced(rows: list[object], head: int, tail: int, middle: Sequence[object]) -> list[object]:
    """``rows[:head] + middle + rows[-tail:]`` (no tail when ``tail`` is 0)."""
    return rows[:head] + list(middle) + (rows[len(rows) - tail :] if tail else [])


def _span(span: Span, delta: int) -> Span:
    return Span(span.start + delta, span.end + delta)


def _moved_fix(fix: Fix, path: Path, delta: int) -> Fix:
    edits = tuple(
        [
            TextEdit(e.path, _span(e.span, delta), e.new_text)
            if e.path is path or e.path == path
            else e
            for e in fix.edits
        ]
    )
    return Fix(fix.title, edits, fix.preferred)


def moved(finding: Finding, delta: int) -> Finding:
    """``finding`` with every position in its own file moved by ``delta`` characters."""
    if not delta:
        return finding
    path = finding.location.path
    related = finding.related
    if related:
        related = tuple(
            [
                Related(Location(r.location.path, _span(r.location.span, delta)), r.message)
                if r.location.path == path
                else r
                for r in related
            ]
        )
    fixes = finding.fixes
    if fixes:
        fixes = tuple([_moved_fix(fix, path, delta) for fix in fixes])
    return Finding(
        finding.code,
        Location(path, _span(finding.location.span, delta)),
        finding.message,
        related,
        fixes,
        finding.data,
        finding.severity,
    )


def moved_rows(rows: Sequence[Sequence[Finding]], delta: int) -> list[Sequence[Finding]]:
    """Each row of findings moved by ``delta`` (empty rows are kept as they are)."""
    if not delta:
        return list(rows)
    return [tuple(moved(f, delta) for f in row) if row else row for row in rows]
