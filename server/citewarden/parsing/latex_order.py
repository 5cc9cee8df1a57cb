"""Document order of a LaTeX project's macro definitions.

TeX reads a project as one stream: the root, and each included file in place of the
``\\input`` that reads it.  A citation macro applies from its definition on; a use before it
is an undefined command, not a citation.  Given where each file is included (its parent and
the number of the parent's include link) and where each file defines its macros (after how
many of its own include links), this says, per file, from where each macro defined in
another file applies (:attr:`~citewarden.model.LatexContext.starts`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeVar

File = TypeVar("File", bound=Hashable)


def macro_starts(
    order: Sequence[File],
    placed: Mapping[File, tuple[File, int]],
    definitions: Mapping[File, tuple[tuple[str, int], ...]],
) -> dict[File, tuple[tuple[str, int], ...]]:
    """Per file of ``order`` (the root first, each file before the files it includes):
    ``(name, -1)`` for each macro defined before the file is read, ``(name, i)`` for one
    defined by what its include link ``i`` reads.  ``placed``: file -> (parent, number of
    the parent's include link that reads it); ``definitions``: file -> (macro name, number
    of the file's include links before the definition)."""
    children: dict[File, list[tuple[int, File]]] = {}
    for path in order:
        if path in placed:
            parent, index = placed[path]
            children.setdefault(parent, []).append((index, path))
    # the macros each file and the files it includes define, in document order
    subtree: dict[File, list[str]] = {}
    for path in reversed(order):
        events: list[tuple[int, int, list[str]]] = [
            (links, 0, [name]) for name, links in definitions.get(path, ())
        ]
        events += [(index, 1, subtree.get(child, [])) for index, child in children.get(path, [])]
        events.sort(key=lambda e: (e[0], e[1]))
        subtree[path] = [name for _, _, names in events for name in names]
    before: dict[File, set[str]] = {}
    starts: dict[File, tuple[tuple[str, int], ...]] = {}
    for path in order:
        known = before.get(path, set())
        found: dict[str, int] = dict.fromkeys(sorted(known), -1)
        own = definitions.get(path, ())
        seen = set(known)
        for index, child in sorted(children.get(path, []), key=lambda c: c[0]):
            before[child] = seen | {name for name, links in own if links <= index}
            for name in subtree.get(child, []):
                found.setdefault(name, index)
            seen = seen | set(subtree.get(child, []))
        starts[path] = tuple(found.items())
    return starts


Change = tuple[str, int, bool]
#: :attr:`~citewarden.model.ParsedDocument.silenced`'s: (name, number of include links,
#: silences, lasting)
Event = tuple[str, int, bool, bool]


def silencing(
    order: Sequence[File],
    placed: Mapping[File, tuple[File, int]],
    events: Mapping[File, tuple[Event, ...]],
    grouped: Mapping[File, tuple[int, ...]],
) -> dict[File, tuple[Change, ...]]:
    """Per file of ``order`` (as for :func:`macro_starts`): the citation commands silenced
    where it starts, ``(name, -1, True)``, and what the file its include link ``i`` reads
    does to them, ``(name, i, silences)`` (the last change to each name in that file and
    those it includes, which a group of the file holding the link ends).  ``events``:
    file -> its :attr:`~citewarden.model.ParsedDocument.silenced`; ``grouped``: file ->
    the numbers of its include links read in a group."""
    children: dict[File, list[tuple[int, File]]] = {}
    for path in order:
        if path in placed:
            parent, index = placed[path]
            children.setdefault(parent, []).append((index, path))
    # what each file and the files it includes leave silenced (True) or defined (False)
    net: dict[File, dict[str, bool]] = {}
    for path in reversed(order):
        in_group = set(grouped.get(path, ()))
        steps: list[tuple[int, int, dict[str, bool]]] = [
            (links, 0, {name: silences})
            for name, links, silences, lasting in events.get(path, ())
            if lasting
        ]
        steps += [
            (index, 1, net.get(child, {}))
            for index, child in children.get(path, [])
            if index not in in_group
        ]
        steps.sort(key=lambda e: (e[0], e[1]))
        net[path] = {name: value for _, _, done in steps for name, value in done.items()}
    at_start: dict[File, frozenset[str]] = {}
    found: dict[File, tuple[Change, ...]] = {}
    for path in order:
        state = set(at_start.get(path, frozenset()))
        changes: list[Change] = [(name, -1, True) for name in sorted(state)]
        own = [e for e in events.get(path, ()) if e[3]]
        # what a group of the file sets where its include link stands, per link
        scoped: dict[int, list[tuple[str, bool]]] = {}
        for name, number, silences, lasting in events.get(path, ()):
            if not lasting:
                scoped.setdefault(number, []).append((name, silences))
        in_group = set(grouped.get(path, ()))
        read = 0  # the file's own events applied
        for index, child in sorted(children.get(path, []), key=lambda c: c[0]):
            while read < len(own) and own[read][1] <= index:
                name, _, silences, _ = own[read]
                read += 1
                (state.add if silences else state.discard)(name)
            start = set(state)
            for name, silences in scoped.get(index, ()):
                (start.add if silences else start.discard)(name)
            at_start.setdefault(child, frozenset(start))
            for name, silences in net.get(child, {}).items():
                changes.append((name, index, silences))
                if index not in in_group:
                    (state.add if silences else state.discard)(name)
        found[path] = tuple(changes)
    return found


__all__ = ["macro_starts", "silencing"]
