"""The entries of a re-read bibliography as runs of earlier entry sequences.

After an edit, every entry behind it moves by the same number of characters.  Making a
moved copy of each (about 10 000 for an edit in the middle of a 20 000-entry file) was most
of what an incremental re-read cost.  :class:`EntryRuns` instead keeps, per run, the
sequence the entries come from, the slice, and the offset to add; a moved entry is made
when it is first asked for (and kept).  What one edit reads (a few entries around it, those
with findings) is made; the rest never is, unless someone walks the whole sequence.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from typing import Any, overload

from citewarden.model import Entry

#: Moves an entry by a number of characters (returns the entry itself for 0).
Mover = Callable[[Entry, int], Entry]

#: One run: entries ``source[lo:hi]``, each moved by ``delta``.
Run = tuple[tuple[Entry, ...], int, int, int]

#: Beyond this many runs, a splice makes a plain tuple again (scattered edits split runs).
MAX_RUNS = 48


class EntryRuns(Sequence[Entry]):
    """An immutable sequence of entries made of runs of other entry tuples, moved lazily.

    It compares equal to any sequence (tuple, list, other runs) with equal entries, hashes
    as the tuple of its entries, and pickles as that tuple.
    """

    __slots__ = ("_ends", "_made", "_move", "_runs")

    def __init__(self, runs: Sequence[Run], move: Mover) -> None:
        self._runs: tuple[Run, ...] = tuple(r for r in runs if r[2] > r[1])
        ends: list[int] = []
        total = 0
        for _, lo, hi, _ in self._runs:
            total += hi - lo
            ends.append(total)
        self._ends = ends
        self._made: list[Entry | None] | None = None
        self._move = move

    @property
    def runs(self) -> tuple[Run, ...]:
        return self._runs

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def _locate(self, i: int) -> tuple[Run, int]:
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("entry index out of range")
        r = bisect.bisect_right(self._ends, i)
        run = self._runs[r]
        before = self._ends[r - 1] if r else 0
        return run, run[1] + i - before

    def _entry(self, i: int) -> Entry:
        if i < 0:
            i += len(self)
        run, j = self._locate(i)
        source, _, _, delta = run
        if not delta:
            return source[j]
        made = self._made
        if made is None:
            made = self._made = [None] * len(self)
        e = made[i]
        if e is None:
            e = made[i] = self._move(source[j], delta)
        return e

    @overload
    def __getitem__(self, i: int) -> Entry: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Entry, ...]: ...

    def __getitem__(self, i: int | slice) -> Entry | tuple[Entry, ...]:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                return tuple(self.between(start, stop))
            return tuple(self._entry(k) for k in range(start, stop, step))
        return self._entry(i)

    def __iter__(self) -> Iterator[Entry]:
        return self.between(0, len(self))

    def between(self, start: int, stop: int) -> Iterator[Entry]:
        """The entries ``[start:stop]`` (0 <= start <= stop <= len), in order."""
        before = 0
        for r, (source, lo, hi, delta) in enumerate(self._runs):
            end = self._ends[r]
            if end <= start:
                before = end
                continue
            if before >= stop:
                return
            a = lo + max(0, start - before)
            b = lo + min(hi - lo, stop - before)
            if not delta:
                yield from islice(source, a, b)
            else:
                for j in range(a, b):
                    yield self._entry(before + j - lo)
            before = end

    def unmoved(self, i: int) -> tuple[Entry, int]:
        """The entry ``self[i]`` is made from, and by how much it is moved."""
        (source, _, _, delta), j = self._locate(i)
        return source[j], delta

    def start_of(self, i: int) -> int:
        """``self[i].span.start``, without making a moved entry."""
        entry, delta = self.unmoved(i)
        return entry.span.start + delta

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, (tuple, list, EntryRuns)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (tuple, (tuple(self),))

    def __repr__(self) -> str:
        return f"EntryRuns({len(self)} entries in {len(self._runs)} runs)"


def _runs_of(entries: Sequence[Entry], start: int, stop: int, delta: int) -> list[Run]:
    """``entries[start:stop]`` moved by ``delta``, as runs."""
    if start >= stop:
        return []
    if not isinstance(entries, EntryRuns):
        source = entries if isinstance(entries, tuple) else tuple(entries)
        return [(source, start, stop, delta)]
    out: list[Run] = []
    before = 0
    for source, lo, hi, d in entries.runs:
        end = before + hi - lo
        if end > start and before < stop:
            a = lo + max(0, start - before)
            b = lo + min(hi - lo, stop - before)
            out.append((source, a, b, d + delta))
        before = end
    return out


def splice(
    entries: Sequence[Entry],
    start: int,
    stop: int,
    middle: Sequence[Entry],
    delta: int,
    move: Mover,
) -> Sequence[Entry]:
    """``entries[:start] + middle + entries[stop:]``, the last part moved by ``delta``
    characters; moved entries are made on first access."""
    runs = _runs_of(entries, 0, start, 0)
    if middle:
        runs.append((tuple(middle), 0, len(middle), 0))
    runs += _runs_of(entries, stop, len(entries), delta)
    merged: list[Run] = []
    for run in runs:
        if merged:
            source, lo, hi, d = merged[-1]
            if run[0] is source and run[1] == hi and run[3] == d:
                merged[-1] = (source, lo, run[2], d)
                continue
        merged.append(run)
    if len(merged) == 1 and merged[0][3] == 0:
        source, lo, hi, _ = merged[0]
        return source if (lo, hi) == (0, len(source)) else source[lo:hi]
    result = EntryRuns(merged, move)
    if len(merged) > MAX_RUNS:
        return tuple(result)
    return result
