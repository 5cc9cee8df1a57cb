"""What the workspace derives from one version of a file's text: its line index, a
bibliography's key index (:class:`BibIndex`, built once and updated after an edit) and a
document's extras (front matter, ``nocite``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from operator import is_
from typing import Any, TypeVar

from citewarden.model import (
    BibContext,
    BibFormat,
    DocumentKind,
    Entry,
    Finding,
    LatexContext,
    ParsedBibliography,
    ParsedDocument,
    Span,
)
from citewarden.parsing import Parsed
from citewarden.parsing.bib_comments import EntryBounds
from citewarden.parsing.bibtex import _common_prefix, _common_suffix
from citewarden.parsing.entry_runs import EntryRuns
from citewarden.parsing.pandoc_syntax import PandocDialect
from citewarden.text import LineIndex, line_ending, split_lines

#: name of the per-entry table of folded keys (:meth:`BibIndex.folded_keys`)
_FOLDED_KEYS = "key-folded"
#: ``rows`` entry of :meth:`BibIndex.bounds` (the starts and the ends of the entries)
_BOUNDS = "#bounds"


#: BibTeX's lower-casing: ASCII letters only
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold_key(key: str) -> str:
    """``key`` as BibTeX compares keys: A-Z lower-cased, every other character kept
    (``MÜLLER`` is ``mÜller``, not ``müller``; ``straße`` is not ``strasse``).  biber and
    pandoc compare keys exactly: this fold applies only where BibTeX reads the keys."""
    return key.lower() if key.isascii() else key.translate(_ASCII_LOWER)


def _folded_key(entry: Entry) -> str:
    return fold_key(entry.key)


@dataclass(slots=True, eq=False)
class BibIndex:
    """Lookup tables over one parsed bibliography, built once per version.

    Tables hold entry *positions* (indices into ``entries``), so that after an edit the
    tables of the previous version are patched where the edit was (see
    :func:`update_bib_index`) instead of being rebuilt from every entry.
    """

    #: the parse's own sequence (a tuple, or runs of moved entries after a re-read)
    entries: Sequence[Entry]
    #: entry keys in file order (parallel to ``entries``)
    keys: list[str]
    #: exact key -> positions of the entries defining it (more than one = duplicate)
    by_key: dict[str, list[int]]
    #: folded key (:func:`fold_key`) -> positions (BibTeX ignores the case of ASCII letters)
    folded: dict[str, list[int]]
    #: folded keys defined more than once
    repeated: set[str]
    #: position -> ``ids`` aliases, and position -> ``crossref``/``xdata``/``xref`` targets
    #: (and the members a ``@set`` entry's ``entryset`` names)
    alias_rows: dict[int, tuple[str, ...]]
    parent_rows: dict[int, tuple[str, ...]]
    #: position -> the ``crossref`` value alone (BibTeX's order rule reads no ``xdata``)
    crossref_rows: dict[int, str] = field(default_factory=dict)
    #: per-version tables of the checks, aligned with ``entries`` (spliced after an edit)
    rows: dict[str, list[Any]] = field(default_factory=dict)
    #: the same object as long as the keys and aliases stay the same (a cache key for
    #: what depends only on them, e.g. "did you mean" suggestions)
    keys_token: object = field(default_factory=object)
    #: (previous index, a, b, b_old): entries ``[:a]`` and ``[b:]`` are those of the
    #: previous index's ``[:a]`` and ``[b_old:]``; dropped once the rows are carried over
    previous: tuple[BibIndex, int, int, int] | None = None
    #: offset where the text of the last edit (the one ``previous`` names) begins to
    #: differ: the text before it is the previous version's
    edited_from: int = 0

    def table(
        self,
        name: str,
        make: Callable[[Entry], Any],
        make_many: Callable[[Sequence[Entry]], list[Any]] | None = None,
    ) -> list[Any]:
        """A per-entry table, ``make(entry)`` for each entry, computed once per version and
        carried over from the previous version for the entries an edit did not touch.
        ``make_many(entries)``, when given, computes the same rows for many entries at once
        (faster for a whole bibliography)."""
        rows = self.rows.get(name)
        if rows is None:
            prev = self.previous
            old_rows = prev[0].rows.get(name) if prev is not None else None
            if prev is not None and old_rows is not None:
                _, a, b, b_old = prev
                rows = old_rows[:a] + [make(e) for e in self.entries[a:b]] + old_rows[b_old:]
            elif make_many is not None:
                rows = make_many(self.entries)
            else:
                rows = [make(e) for e in self.entries]
            self.rows[name] = rows
        return rows

    @property
    def key_set(self) -> frozenset[str]:
        """Every key, as a set (built on first use, once per version)."""
        found = self.rows.get("#keys")
        if found is None:
            found = self.rows["#keys"] = [frozenset(self.by_key)]
        return found[0]  # type: ignore[no-any-return]

    def folded_keys(self) -> list[str]:
        """``keys`` folded (:func:`fold_key`; a per-entry table, carried over after an
        edit); do not modify it."""
        return self.table(_FOLDED_KEYS, _folded_key)

    def bounds(self) -> EntryBounds:
        """Where the entries start and end, and their keys, in file order (do not modify
        them): once per version, and after an edit carried over from the previous
        version's, moved by the edit, for the entries it did not touch (an edit in a
        20 000-entry file makes no moved entry to read where the others are)."""
        found = self.rows.get(_BOUNDS)
        if found is None:
            prev = self.previous
            old = prev[0].rows.get(_BOUNDS) if prev is not None else None
            if prev is not None and old is not None:
                _, a, b, b_old = prev
                old_starts, old_ends = old
                starts, ends = _spans(self.entries, a, b)
                starts[:0] = old_starts[:a]
                ends[:0] = old_ends[:a]
                if b < len(self.entries):
                    # every entry behind the edit is moved by as much as the text
                    delta = _start_of(self.entries, b) - old_starts[b_old]
                    starts += [s + delta for s in islice(old_starts, b_old, None)]
                    ends += [e + delta for e in islice(old_ends, b_old, None)]
            else:
                starts, ends = _spans(self.entries, 0, len(self.entries))
            found = self.rows[_BOUNDS] = [starts, ends]
        return EntryBounds(found[0], found[1], self.keys)

    def entries_of(self, key: str) -> list[Entry]:
        return [self.entries[i] for i in self.by_key.get(key, ())]

    @property
    def aliases(self) -> dict[str, Entry]:
        """``ids`` alias -> its entry."""
        out: dict[str, Entry] = {}
        for i, names in self.alias_rows.items():
            for alias in names:
                out.setdefault(alias, self.entries[i])
        return out


def _start_of(entries: Sequence[Entry], i: int) -> int:
    """``entries[i].span.start`` (without making a moved entry of a re-read bibliography)."""
    if isinstance(entries, EntryRuns):
        return entries.start_of(i)
    return entries[i].span.start


def _spans(entries: Sequence[Entry], lo: int, hi: int) -> tuple[list[int], list[int]]:
    """The starts and the ends of ``entries[lo:hi]`` (the entries a re-read bibliography
    moves are not made: their unmoved ones are read, and moved)."""
    starts: list[int] = []
    ends: list[int] = []
    if isinstance(entries, EntryRuns):
        before = 0
        for source, first, last, delta in entries.runs:
            end = before + last - first
            if end > lo and before < hi:
                for e in islice(source, first + max(0, lo - before), first + min(end, hi) - before):
                    span = e.span
                    starts.append(span.start + delta)
                    ends.append(span.end + delta)
            before = end
        return starts, ends
    for e in islice(entries, lo, hi):
        span = e.span
        starts.append(span.start)
        ends.append(span.end)
    return starts, ends


#: a row of :func:`_rows_of`'s tables
_Row = TypeVar("_Row", tuple[str, ...], str)


def _parent_row(*fields: str | None) -> tuple[str, ...]:
    """The keys an entry's ``crossref``, ``xdata``, ``xref`` (and a set's ``entryset``)
    fields name."""
    refs = ",".join(value for value in fields if value)
    return tuple(k.strip() for k in refs.split(",") if k.strip())


def _rows_of(
    entries: Sequence[Entry], start: int
) -> tuple[dict[int, tuple[str, ...]], dict[int, tuple[str, ...]], dict[int, str]]:
    """Alias, parent and ``crossref`` rows of ``entries`` (numbered from ``start``).

    Each entry is asked for its fields (a tuple look-up for the parser's entries); this is
    cheaper, in time and in peak memory, than first searching a lower-cased copy of a large
    file's text for the field names.
    """
    aliases: dict[int, tuple[str, ...]] = {}
    parents: dict[int, tuple[str, ...]] = {}
    crossrefs: dict[int, str] = {}
    for i, entry in enumerate(entries, start):
        names = entry.aliases
        if names:
            aliases[i] = tuple(names)
        crossref = entry.get("crossref")
        xdata = entry.get("xdata")
        # biber prints an entry the xref fields of cited entries name (from minxrefs of
        # them on): no entry one of them names is an orphan, nor is its removal offered
        xref = entry.get("xref")
        # biblatex's @set: biber prints the members of a cited set (of no other entry)
        members = entry.get("entryset") if entry.entry_type == "set" else None
        if crossref or xdata or xref or members:
            refs = _parent_row(crossref, xdata, xref, members)
            if refs:
                parents[i] = refs
            if crossref and crossref.strip():
                crossrefs[i] = crossref.strip()
    return aliases, parents, crossrefs


def _positions(keys: list[str]) -> dict[str, list[int]]:
    """key -> its positions in ``keys``, in order (built in C where keys are unique)."""
    last = len(keys) - 1
    table = dict(zip(reversed(keys), map(list, zip(range(last, -1, -1))), strict=True))
    if len(table) != len(keys):
        for i, k in enumerate(keys):
            places = table[k]
            if places[0] != i:
                places.append(i)
    return table


def _tables(
    keys: list[str],
) -> tuple[dict[str, list[int]], dict[str, list[int]], set[str], list[str]]:
    """By key, by folded key (:func:`fold_key`), the folded keys defined twice, and the
    keys folded (in file order)."""
    by_key = _positions(keys)
    folded_keys = list(map(fold_key, keys))
    folded = _positions(folded_keys)
    repeated = (
        {fk for fk, places in folded.items() if len(places) > 1}
        if len(folded) != len(keys)
        else set()
    )
    return by_key, folded, repeated, folded_keys


def build_bib_index(bib: ParsedBibliography, text: str | None = None) -> BibIndex:
    """The lookup tables of ``bib`` (``text``, its source, is accepted and not needed)."""
    entries = tuple(bib.entries)
    keys = [e.key for e in entries]
    by_key, folded, repeated, folded_keys = _tables(keys)
    aliases, parents, crossrefs = _rows_of(entries, 0)
    index = BibIndex(entries, keys, by_key, folded, repeated, aliases, parents, crossrefs)
    index.rows[_FOLDED_KEYS] = folded_keys
    return index


def changed_region(old: str, new: str) -> tuple[int, int, int]:
    """(start, old_end, new_end): ``old[start:old_end]`` became ``new[start:new_end]``."""
    start = _common_prefix(old, new)  # shared with the bibliography reparser
    # the common suffix may not overlap the common prefix
    suffix = _common_suffix(old, new, min(len(old), len(new)) - start)
    return start, len(old) - suffix, len(new) - suffix


_STRING_HEAD = re.compile(r"@[ \t]*string\s*[{(]", re.IGNORECASE)


def _touches_string(entries: Sequence[Entry], a: int, b: int, text: str) -> bool:
    """Whether an ``@string`` block lies between the entries before ``a`` and from ``b`` on,
    i.e. in the text around an edit that touches entries ``[a:b]`` (conservative)."""
    lo = entries[a - 1].span.end if a > 0 else 0
    hi = entries[b].span.start if b < len(entries) else len(text)
    return _STRING_HEAD.search(text, lo, max(lo, hi)) is not None


def update_bib_index(
    old: BibIndex,
    bib: ParsedBibliography,
    old_text: str,
    new_text: str,
    changed: tuple[int, int, int] | None = None,
) -> BibIndex:
    """The index of ``bib`` (parsed from ``new_text``), reusing ``old`` (of ``old_text``)
    for the entries the edit did not touch.  ``changed`` is
    ``changed_region(old_text, new_text)`` when the caller has it already."""
    from bisect import bisect_left, bisect_right

    entries = bib.entries
    n_old, n_new = len(old.entries), len(entries)
    start, old_end, new_end = changed or changed_region(old_text, new_text)
    # unchanged prefix: entries ending before the edit; unchanged tail: starting after it
    a = bisect_right(entries, start - 1, key=lambda e: e.span.end)
    b = bisect_left(entries, new_end + 1, key=lambda e: e.span.start)
    a_old = bisect_right(old.entries, start - 1, key=lambda e: e.span.end)
    b_old = bisect_left(old.entries, old_end + 1, key=lambda e: e.span.start)
    b = max(a, b)
    b_old = max(a_old, b_old)
    if a != a_old or n_new - b != n_old - b_old:
        return build_bib_index(bib, new_text)
    if _touches_string(old.entries, a_old, b_old, old_text) or _touches_string(
        entries, a, b, new_text
    ):
        # An @string changed: entries outside the edit that use the macro expand to new
        # values, so no per-entry table of the previous version may be carried over.
        return build_bib_index(bib, new_text)
    middle = entries[a:b]
    reused = bib.reused
    if reused is not None and reused[0] == id(old.entries) and reused[1] + reused[2] <= n_new:
        # the reader says which entries it carried over: their keys are known
        head, tail = reused[1], reused[2]
        keys = (
            old.keys[:head]
            + [e.key for e in entries[head : n_new - tail]]
            + old.keys[n_old - tail :]
        )
    elif all(map(is_, islice(entries, a), islice(old.entries, a))):
        head, tail = a, 0
        keys = old.keys[:a] + [e.key for e in islice(entries, a, None)]  # the same entries
    else:
        head, tail = 0, 0
        keys = [e.key for e in entries]
    # keys[:head] and the last ``tail`` are the old ones: compare only the rest outside [a, b)
    lo, hi = min(head, a), max(b, n_new - tail)
    if keys[lo:a] != old.keys[lo:a] or keys[b:hi] != old.keys[b_old : b_old + hi - b]:
        return build_bib_index(bib, new_text)  # the edit changed how later text parses
    shift = n_new - n_old
    aliases_mid, parents_mid, crossrefs_mid = _rows_of(middle, a)

    def splice(rows: dict[int, _Row], mid: dict[int, _Row]) -> dict[int, _Row]:
        if not shift:
            gone = [i for i in range(a, b_old) if i in rows]
            if not gone and not mid:
                return rows  # nothing in the edited entries, before or after
            out = rows.copy()
            for i in gone:
                del out[i]
            out.update(mid)
            return out
        out = {i: v for i, v in rows.items() if i < a}
        out.update(mid)
        out.update({i + shift: v for i, v in rows.items() if i >= b_old})
        return out

    alias_rows = splice(old.alias_rows, aliases_mid)
    parent_rows = splice(old.parent_rows, parents_mid)
    crossref_rows = splice(old.crossref_rows, crossrefs_mid)
    # the same objects while unchanged: checks use them (by identity) as cache keys
    if alias_rows == old.alias_rows:
        alias_rows = old.alias_rows
    if parent_rows == old.parent_rows:
        parent_rows = old.parent_rows
    folded_keys: list[str] | None = None
    if shift:
        by_key, folded, repeated, folded_keys = _tables(keys)
    else:
        by_key = old.by_key.copy()
        folded = old.folded.copy()
        repeated = set(old.repeated)
        touched: set[str] = set()
        for i in range(a, b_old):
            key = old.keys[i]
            by_key[key] = [j for j in by_key[key] if j != i]
            if not by_key[key]:
                del by_key[key]
            fk = fold_key(key)
            folded[fk] = [j for j in folded[fk] if j != i]
            if not folded[fk]:
                del folded[fk]
            touched.add(fk)
        for i in range(a, b):
            key = keys[i]
            by_key[key] = sorted([*by_key.get(key, ()), i])
            fk = fold_key(key)
            folded[fk] = sorted([*folded.get(fk, ()), i])
            touched.add(fk)
        for fk in touched:
            if len(folded.get(fk, ())) > 1:
                repeated.add(fk)
            else:
                repeated.discard(fk)
    index = BibIndex(
        entries, keys, by_key, folded, repeated, alias_rows, parent_rows, crossref_rows
    )
    if folded_keys is not None:
        index.rows[_FOLDED_KEYS] = folded_keys
    if keys == old.keys and alias_rows == old.alias_rows:
        index.keys_token = old.keys_token
    index.previous = (old, a, b, b_old)
    index.edited_from = start
    old.previous = None
    return index


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """Where a ``nocite`` addition goes in a Markdown document's YAML front matter."""

    #: offset of the closing ``---``/``...`` line (insert a new ``nocite:`` line there)
    close: int
    #: the span of the existing ``nocite:`` value (of a ``|`` or ``>`` block scalar, to the
    #: end of its last line)
    nocite_value: Span | None = None
    #: the front matter is one flow mapping (``{title: T, bibliography: refs.bib}``):
    #: ``close`` is then the offset of its closing brace, where ``, nocite: ...`` goes
    flow: bool = False


@dataclass(frozen=True, slots=True)
class DocumentExtras:
    """Positions the fixes need, found once per document version."""

    #: offset of the first ``\end{document}`` LaTeX reads (where it stops reading)
    end_document: int | None = None
    front_matter: FrontMatter | None = None
    #: the document's line break (``\r\n``, ``\r`` or ``\n``), for the lines fixes add
    newline: str = "\n"


_END_DOCUMENT = re.compile(r"\\end\s*\{document\}")
_FRONT_OPEN = re.compile(r"\A(?:\ufeff)?---[ \t]*\r?\n")
_FRONT_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)
#: (the value with its trailing white space: a lazy value before ``[ \t]*\r?$`` tried every
#: place of a long run of spaces)
_NOCITE_LINE = re.compile(r"^nocite:[ \t]*([^\n]*)$", re.MULTILINE)


def _document_extras(kind: DocumentKind, text: str) -> DocumentExtras:
    extras = _fix_positions(kind, text)
    newline = line_ending(text)
    return extras if newline == "\n" else replace(extras, newline=newline)


def _fix_positions(kind: DocumentKind, text: str) -> DocumentExtras:
    if kind is DocumentKind.LATEX:
        return DocumentExtras(end_document=_read_end_document(text))
    opened = _FRONT_OPEN.match(text)
    if not opened:
        return DocumentExtras()
    closed = _FRONT_CLOSE.search(text, opened.end())
    if not closed:
        return DocumentExtras()
    start, end = opened.end(), closed.start()
    if text.find("nocite", closed.end()) >= 0:
        from citewarden.parsing.markdown import nocite_block

        read = nocite_block(text)  # the block pandoc reads nocite from, when a later one
        if read is not None and read[0] > start:
            start, end = read
    front = _front_matter(text, start, end)
    return DocumentExtras() if front is None else DocumentExtras(front_matter=front)


def _read_end_document(text: str) -> int | None:
    """The offset of the first ``\\end{document}`` LaTeX reads: not in a comment, in
    verbatim material or code, or in a branch TeX skips (LaTeX reads nothing after it)."""
    found = [m.start() for m in _END_DOCUMENT.finditer(text)]
    if not found:
        return None
    from citewarden.parsing.latex_args import CodeRegions
    from citewarden.parsing.latex_static import conditional_skips, in_comment, short_verbatim

    code = CodeRegions(text)
    hidden = short_verbatim(text) + conditional_skips(text, {})
    for at in found:
        if not (
            in_comment(text, at)
            or _escaped(text, at)
            or code.holds(at)
            or any(start <= at < end for start, end in hidden)
        ):
            return at
    return None


def _escaped(text: str, at: int) -> bool:
    """The backslash at ``at`` ends a run of backslashes of even length (``\\\\``)."""
    start = at
    while start > 0 and text[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


def _front_matter(text: str, start: int, close: int) -> FrontMatter | None:
    """Where a ``nocite`` addition goes in the metadata block of YAML ``text[start:close]``
    (``close``: the offset of its closing line); None inside a flow mapping with one."""
    body = text[start:close].strip()
    if body.startswith("{") and body.endswith("}"):
        if "nocite" in body:
            return None  # an existing nocite inside the mapping: left alone
        return FrontMatter(text.rindex("}", start, close), flow=True)
    nocite = _NOCITE_LINE.search(text, start, close)
    if nocite is None:
        return FrontMatter(close)
    value = nocite.group(1).rstrip(" \t\r")
    value_start = nocite.start(1)
    end_of_value = value_start + len(value)
    if value[:1] not in ("|", ">"):
        return FrontMatter(close, Span(value_start, end_of_value))
    # a block scalar ends before the first following line that is not indented
    pos = nocite.end() + 1
    end = pos
    for line in split_lines(text[pos:close]):
        if line.strip() and not line[:1].isspace():
            break
        if line.strip():
            end = pos + len(line.rstrip("\r\n"))
        pos += len(line)
    return FrontMatter(close, Span(end_of_value, max(end, end_of_value)))


@dataclass(slots=True)
class FileState:
    text: str
    read_problems: tuple[Finding, ...]
    parsed: Parsed
    #: what a LaTeX document inherits from the files of its project read before it, the
    #: ``@string`` macros a .bib file inherits, or the reading of a Markdown document's pandoc
    context: LatexContext | BibContext | PandocDialect | None = None
    _index: LineIndex | None = None
    _bib_index: BibIndex | None = None
    _extras: DocumentExtras | None = None
    _references: ParsedBibliography | None = None

    @property
    def line_index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    @property
    def bib_index(self) -> BibIndex:
        if self._bib_index is None:
            assert isinstance(self.parsed, ParsedBibliography)
            self._bib_index = build_bib_index(self.parsed, self.text)
        return self._bib_index

    @property
    def defines_references(self) -> bool:
        """Whether the file is a Markdown document or metadata file defining ``references:``
        items of its own (a LaTeX document's ``\\bibitem`` keys are none)."""
        parsed = self.parsed
        return (
            isinstance(parsed, ParsedDocument)
            and bool(parsed.bibitems)
            and parsed.kind is not DocumentKind.LATEX
        )

    @property
    def references(self) -> ParsedBibliography:
        """A Markdown document's or metadata file's own ``references:`` items, read as a
        CSL-YAML bibliography (none for any other file)."""
        if self._references is None:
            parsed = self.parsed
            entries: tuple[Entry, ...] = ()
            if self.defines_references:
                from citewarden.parsing.markdown import inline_references

                entries = inline_references(parsed.path, self.text)
            self._references = ParsedBibliography(
                parsed.path,
                BibFormat.CSL_YAML,
                entries,
                suppressed_lines=parsed.suppressed_lines if entries else frozenset(),
            )
        return self._references

    @property
    def extras(self) -> DocumentExtras:
        if self._extras is None:
            assert isinstance(self.parsed, ParsedDocument)
            self._extras = _document_extras(self.parsed.kind, self.text)
        return self._extras
