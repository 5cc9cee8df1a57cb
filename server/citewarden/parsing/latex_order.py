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


__all__ = ["macro_starts"]
