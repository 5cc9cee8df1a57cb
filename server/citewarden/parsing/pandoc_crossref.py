"""Where pandoc's ``crossref``/``xdata`` resolution in a .bib file never ends.

pandoc 2.17 (``Text.Pandoc.Citeproc.BibTeX``: ``resolveCrossRef``, ``getXrefFields``) gives
each cited entry the fields of the entries its ``crossref`` and ``xdata`` values name
(split at spaces and commas, keys matched exactly, every entry of the file with that key,
an ``@xdata`` one or not), and, for a named entry's own ``crossref``/``xdata`` value, the
fields of the entries that value names, and so on, with no check for a loop: ``a`` naming
``b`` and ``b`` naming ``a`` (or ``a`` naming itself) makes pandoc follow them until it runs
out of memory.  Only the entries a document cites are resolved: a loop no cited entry
leads into is harmless.

One detail decides whether a loop is reached: a value naming several keys deeper in the
chain (``xdata = {x1, x2}`` in a named entry) is followed key by key, and when the fields
``x1`` gives are none (``x1`` is not defined, or each of its fields is one the cited entry
has already, after biblatex's renaming: a ``@book``'s ``title`` is an ``@inbook``'s
``booktitle``), ``x2`` is not followed at all.  This module computes those fields, as
pandoc's list comprehension does, to find the loops pandoc really enters.
"""

from __future__ import annotations

from collections.abc import Collection, Generator, Mapping, Sequence
from dataclasses import dataclass

from citewarden.model import Entry, Field

#: the fields whose value names other entries
LINKS = ("crossref", "xdata")
#: field names pandoc's reader renames
_ALIASES = {"archiveprefix": "eprinttype", "primaryclass": "eprintclass"}
#: fields never inherited (``transformKey``)
_NOT_INHERITED = frozenset(
    (
        *("ids", "crossref", "xref", "entryset", "entrysubtype", "execute", "label"),
        *("options", "presort", "related", "relatedoptions", "relatedstring"),
        *("relatedtype", "shorthand", "shorthandintro", "sortkey"),
    )
)
_DROPPED_TITLES = ("shorttitle", "sorttitle", "indextitle", "indexsorttitle")
_MAIN = {"title": "maintitle", "subtitle": "mainsubtitle", "titleaddon": "maintitleaddon"}
_BOOK = {"title": "booktitle", "subtitle": "booksubtitle", "titleaddon": "booktitleaddon"}
_JOURNAL = {"title": "journaltitle", "subtitle": "journalsubtitle"}


@dataclass(frozen=True, slots=True)
class Loop:
    """A loop pandoc follows without end: each step is an entry and its field naming the
    entry of the next step, the last naming the first."""

    steps: tuple[tuple[Entry, Field], ...]


def split_keys(value: str) -> tuple[str, ...]:
    """The keys a ``crossref``/``xdata`` value names, as pandoc splits it."""
    return tuple(k for k in value.replace(",", " ").split(" ") if k)


def pandoc_loops(
    entries: Sequence[Entry], cited: Collection[str] | None
) -> list[tuple[Entry, Loop]]:
    """The cited entries (``cited`` None: all) whose resolution never ends, each with the
    first loop pandoc enters; ``entries``: those pandoc reads in one file."""
    table = _Table(entries)
    if not _has_cycle(table):
        return []  # the usual file: nothing to follow step by step
    found: list[tuple[Entry, Loop]] = []
    # the fields a request gives depend on the cited entry's type and field names only:
    # the resolutions of entries alike share their finished answers
    shared: dict[tuple[str, frozenset[str]], dict[_Request, frozenset[str]]] = {}
    for entry in entries:
        if entry.entry_type == "xdata" or (cited is not None and entry.key not in cited):
            continue
        if not any(f.name in LINKS for f in entry.fields):
            continue
        alike = (entry.entry_type, frozenset(table.fields(entry)))
        loop = _Resolution(table, entry, shared.setdefault(alike, {})).loop()
        if loop is not None:
            found.append((entry, loop))
    return found


def _has_cycle(table: _Table) -> bool:
    """Whether the keys the entries' links name, followed from key to key, ever come back
    (a loop some resolution may enter)."""
    edges: dict[str, set[str]] = {}
    for key, entries in table.by_key.items():
        for entry in entries:
            links = {name: text for name, text in entry.field_texts() if name in LINKS}
            for text in links.values():  # the last of a repeated field
                edges.setdefault(key, set()).update(
                    k for k in split_keys(text) if k in table.by_key
                )
    return has_cycle(edges)


def has_cycle(edges: Mapping[str, Collection[str]]) -> bool:
    """Whether following ``edges`` (key -> the keys it names) from some key comes back."""
    done: set[str] = set()
    for start in edges:
        if start in done:
            continue
        on_path = {start}
        todo = [(start, iter(edges[start]))]
        while todo:
            key, rest = todo[-1]
            nxt = next(rest, None)
            if nxt is None:
                todo.pop()
                on_path.discard(key)
                done.add(key)
            elif nxt in on_path:
                return True
            elif nxt not in done:
                on_path.add(nxt)
                todo.append((nxt, iter(edges.get(nxt, ()))))
    return False


class _Table:
    """The entries of a file by key, with their fields as pandoc holds them."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.by_key: dict[str, list[Entry]] = {}
        for entry in entries:
            self.by_key.setdefault(entry.key, []).append(entry)
        self._fields: dict[int, dict[str, Field]] = {}

    def fields(self, entry: Entry) -> dict[str, Field]:
        """The fields by name, sorted, the last of a repeated name kept."""
        found = self._fields.get(id(entry))
        if found is None:
            named = {_ALIASES.get(f.name, f.name): f for f in entry.fields}
            found = self._fields[id(entry)] = dict(sorted(named.items()))
        return found


#: what a step of the resolution asks for: the fields of the entries these keys name
_Request = tuple[str, ...]
#: its answer: the names of the fields it gives, or a loop
_Answer = frozenset[str] | Loop
_Steps = Generator[_Request, _Answer, _Answer]


class _Resolution:
    """One cited entry's resolution, step by step on an explicit stack (a chain may be
    as long as the file).  ``done``: the answers of the requests finished so far, by this
    resolution or one of an entry of the same type and field names (a finished request
    led into no loop, so it leads into none from any other entry either)."""

    def __init__(self, table: _Table, base: Entry, done: dict[_Request, frozenset[str]]) -> None:
        self.table = table
        self.base = base
        self.base_fields = table.fields(base)
        self.done = done
        #: per open step, the entry and field it is following
        self.at: list[tuple[Entry, Field] | None] = []

    def loop(self) -> Loop | None:
        for name, fld in self.base_fields.items():
            if name in LINKS:
                answer = self._run(split_keys(fld.text))
                if isinstance(answer, Loop):
                    return answer
        return None

    def _run(self, request: _Request) -> _Answer:
        finished = self.done.get(request)
        if finished is not None:
            return finished
        stack: list[tuple[_Request, _Steps]] = [(request, self._fields_of(request))]
        on_stack = {request: 0}  # each open request, with its place on the stack
        self.at = [None]
        answer: _Answer | None = None
        while stack:
            req, steps = stack[-1]
            try:
                asked = steps.send(answer) if answer is not None else next(steps)
            except StopIteration as stop:
                stack.pop()
                self.at.pop()
                del on_stack[req]
                answer = stop.value
                if isinstance(answer, Loop):
                    return answer
                self.done[req] = answer
                continue
            answer = self.done.get(asked)
            if answer is not None:
                continue
            first = on_stack.get(asked)
            if first is not None:
                return Loop(tuple(step for step in self.at[first:] if step is not None))
            on_stack[asked] = len(stack)
            stack.append((asked, self._fields_of(asked)))
            self.at.append(None)
        assert answer is not None and not isinstance(answer, Loop)
        return answer

    def _fields_of(self, keys: _Request) -> _Steps:
        """``getXrefFields``: the names of the fields the entries ``keys`` name give."""
        depth = len(self.at) - 1
        names: set[str] = set()
        named = self.table.by_key
        matching = sorted(
            (e for key in set(keys) for e in named.get(key, ())), key=lambda e: e.span.start
        )
        for entry in matching:  # in file order
            own = self.table.fields(entry)
            for name, fld in own.items():
                if name not in LINKS:
                    names.update(
                        k
                        for k in _inherited(entry.entry_type, self.base.entry_type, name)
                        if k not in self.base_fields
                    )
                    continue
                given: set[str] = set()
                for part in split_keys(fld.text):
                    self.at[depth] = (entry, fld)
                    got = yield (part,)
                    if isinstance(got, Loop):
                        return got
                    if not got:  # no field: the keys after it are not followed
                        given = set()
                        break
                    given |= got
                names.update(n for n in given if n not in own)
        return frozenset(names)


def _inherited(source: str, target: str, name: str) -> tuple[str, ...]:
    """``transformKey``: the names a field ``name`` of a ``source`` entry takes in a
    ``target`` entry (none: not inherited)."""
    if name in _NOT_INHERITED:
        return ()
    if name == "author" and (
        (source in ("mvbook", "book") and target in ("inbook", "bookinbook", "suppbook"))
        or (source == "mvbook" and target == "book")
    ):
        return ("bookauthor", "author")
    if (
        (source == "mvbook" and target in ("book", "inbook", "bookinbook", "suppbook"))
        or (
            source in ("mvcollection", "mvreference")
            and target
            in ("collection", "reference", "incollection", "inreference", "suppcollection")
        )
        or (source == "mvproceedings" and target in ("proceedings", "inproceedings"))
    ):
        return _renamed(_MAIN, name)
    if (
        (source == "book" and target in ("inbook", "bookinbook", "suppbook"))
        or (
            source in ("collection", "reference")
            and target in ("incollection", "inreference", "suppcollection")
        )
        or (source == "proceedings" and target == "inproceedings")
    ):
        return _renamed(_BOOK, name)
    if source == "periodical" and target in ("article", "suppperiodical"):
        return _renamed(_JOURNAL, name)
    return (name,)


def _renamed(names: Mapping[str, str], name: str) -> tuple[str, ...]:
    if name in _DROPPED_TITLES:
        return ()
    return (names.get(name, name),)


__all__ = ["LINKS", "Loop", "has_cycle", "pandoc_loops", "split_keys"]
