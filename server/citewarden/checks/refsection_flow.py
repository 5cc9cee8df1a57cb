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
or a section begun without resources of its own.
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

    def at(self, offset: int) -> State:
        return self.states[bisect.bisect_right(self.starts, offset) - 1]


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

    def walk(path: Path, state: State) -> State:
        doc = documents[path]
        events: list[tuple[int, int, Path | None]] = [(at, 0, None) for at in doc.refsection_marks]
        events += [(at, 1, None) for at in breaks.get(path, ())]
        events += [(at, 2, child) for at, child in children.get(path, ()) if child not in found]
        events.sort(key=lambda event: (event[0], event[1]))
        unit_starts = [unit[0] for unit in doc.refsections]
        starts, states = [0], [state]
        found[path] = Regions((0,), (state,))  # read once: a cycle stops here
        for at, what, child in events:
            if what == 0:
                unit = _opened(doc, unit_starts, at)
                state = (path, unit) if unit is not None else None
            elif what == 1:
                state = None
            elif child is not None and child not in found:
                state = walk(child, state)
            starts.append(at)
            states.append(state)
        found[path] = Regions(tuple(starts), tuple(states))
        return state

    if root in documents:
        walk(root, None)
    return found


__all__ = ["Regions", "State", "refsection_flow"]
