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

from citewarden.model import Finding, ParsedBibliography, moved_finding

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


def moved_row(row: Sequence[Finding], delta: int) -> Sequence[Finding]:
    """One entry's findings moved by ``delta`` (an empty row is kept as it is)."""
    return tuple([moved_finding(f, delta) for f in row]) if row and delta else row


def moved_rows(rows: Sequence[Sequence[Finding]], delta: int) -> list[Sequence[Finding]]:
    """Each row of findings moved by ``delta`` (empty rows are kept as they are)."""
    if not delta:
        return list(rows)
    return [moved_row(row, delta) for row in rows]
