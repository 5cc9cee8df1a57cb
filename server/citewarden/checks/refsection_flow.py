"""biblatex refsections followed across the files of a project, in reading order.

LaTeX reads an ``\\input`` or ``\\include``d file in line: a refsection begun in it
(``\\newrefsection[ch1.bib]``, or ``\\begin{refsection}[ch1.bib]`` whose
``\\end{refsection}`` is in a later file) runs on after the file, in the one that included
it, and one ended in it (``\\endrefsection``) no longer holds there.  So the section a
citation is in is found by walking the project from its root, through each include link
where it stands, from one start or end of a section (a document's
:attr:`~citewarden.model.ParsedDocument.refsection_marks`) to the next.

With biblatex's ``refsection=chapter`` option (or ``part``, ``section``, ...), each heading
of that level begins a section without resources of its own, which ends the one open
there (:mod:`~citewarden.parsing.latex_refsection_reset`).

A section is known by the document that began it and its unit there (start, end,
resources as written); None stands for one that reads the default resources: section 0,
or a section begun without resources of its own.  Each also has biblatex's number: 0 for
the document-wide section, then 1, 2, ... for the sections begun in reading order (with
resources or without), the order in which biber reads them.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import LinkKind, ParsedDocument
from citewarden.parsing.latex_refsection_reset import RESETS

#: a unit: its start, end and resources as written
Unit = tuple[int, int, tuple[str, ...]]
#: the section open at a point: (the document that began it, its unit), or None
State = tuple[Path, Unit] | None


@dataclass(frozen=True, slots=True)
class Regions:
    """The sections of one document: from each offset of ``starts`` on, ``states``'s."""

    starts: tuple[int, ...]
    states: tuple[State, ...]
    #: the number of the section from each offset of ``starts`` on
    numbers: tuple[int, ...] = ()

    def at(self, offset: int) -> State:
        return self.states[bisect.bisect_right(self.starts, offset) - 1]

    def number_at(self, offset: int) -> int:
        """biblatex's number of the section at ``offset`` (0: the document-wide one)."""
        return self.numbers[bisect.bisect_right(self.starts, offset) - 1]


def _opened(doc: ParsedDocument, starts: list[int], at: int) -> Unit | None:
    """The unit with resources of its own that the mark at ``at`` begins, if any (it
    starts after the mark, before the next one); ``starts``: the units' starts."""
    units = doc.refsections
    i = bisect.bisect_right(starts, at)
    if i == len(units):
        return None
    marks = doc.refsection_marks
    j = bisect.bisect_right(marks, at)
    if j < len(marks) and marks[j] < units[i][0]:
        return None
    return units[i]


def _heading_breaks(root: Path, documents: dict[Path, ParsedDocument]) -> dict[Path, list[int]]:
    """Where biblatex's ``refsection=`` option (the root's, else the first a document
    gives) begins a section at a heading, in each document."""
    order = sorted(documents.items(), key=lambda item: item[0] != root)
    option = next((doc.refsection_reset for _, doc in order if doc.refsection_reset), "")
    levels = RESETS.get(option, frozenset())
    if not levels:
        return {}
    return {
        path: [at for at, name in doc.headings if name in levels]
        for path, doc in documents.items()
        if doc.headings
    }


@dataclass(slots=True)
class _Reading:
    """A document being read: its events (offset, kind, included document) up to
    ``next``, and the sections found so far (``starts``, ``states``); ``included_at``:
    where the included document being read stands."""

    path: Path
    doc: ParsedDocument
    unit_starts: list[int]
    events: list[tuple[int, int, Path | None]]
    starts: list[int]
    states: list[State]
    numbers: list[int]
    next: int = 0
    included_at: int = 0


def refsection_flow(
    root: Path,
    documents: dict[Path, ParsedDocument],
    placed: Iterable[tuple[Path, Path, int]],
) -> dict[Path, Regions]:
    """The sections of each document read from ``root`` (``placed``: where each included
    document is read, :attr:`~citewarden.project_graph.Project.placed`), begun and ended
    by refsection commands and, with biblatex's ``refsection=`` option, at headings."""
    breaks = _heading_breaks(root, documents)
    children: dict[Path, list[tuple[int, Path]]] = {}
    for child, parent, index in placed:
        doc = documents.get(parent)
        if doc is None or child not in documents:
            continue
        includes = [link for link in doc.links if link.kind is LinkKind.INCLUDE]
        if index < len(includes):
            children.setdefault(parent, []).append((includes[index].span.start, child))
    found: dict[Path, Regions] = {}

    count = 0  # the sections begun so far

    def begin(path: Path, state: State, number: int) -> _Reading:
        doc = documents[path]
        events: list[tuple[int, int, Path | None]] = [(at, 0, None) for at in doc.refsection_marks]
        events += [(at, 1, None) for at in breaks.get(path, ())]
        events += [(at, 2, child) for at, child in children.get(path, ()) if child not in found]
        events.sort(key=lambda event: (event[0], event[1]))
        found[path] = Regions((0,), (state,), (number,))  # read once: a cycle stops here
        units = [unit[0] for unit in doc.refsections]
        return _Reading(path, doc, units, events, [0], [state], [number])

    if root not in documents:
        return found
    # an explicit stack of the documents being read, innermost last: a chain of includes
    # thousands deep is no deeper a recursion
    stack = [begin(root, None, 0)]
    while stack:
        reading = stack[-1]
        state = reading.states[-1]
        number = reading.numbers[-1]
        ends = reading.doc.refsection_ends
        descended = False
        while reading.next < len(reading.events):
            at, what, included = reading.events[reading.next]
            reading.next += 1
            if what == 0:
                unit = _opened(reading.doc, reading.unit_starts, at)
                state = (reading.path, unit) if unit is not None else None
                if unit is None and at in ends:
                    number = 0
                else:
                    count += 1
                    number = count
            elif what == 1:
                state = None
                count += 1
                number = count
            elif included is not None and included not in found:
                reading.included_at = at
                stack.append(begin(included, state, number))
                descended = True
                break
            reading.starts.append(at)
            reading.states.append(state)
            reading.numbers.append(number)
        if descended:
            continue
        found[reading.path] = Regions(
            tuple(reading.starts), tuple(reading.states), tuple(reading.numbers)
        )
        stack.pop()
        if stack:  # back where the document was included, in the section it ends in
            stack[-1].starts.append(stack[-1].included_at)
            stack[-1].states.append(state)
            stack[-1].numbers.append(number)
    return found


__all__ = ["Regions", "State", "refsection_flow"]
