"""BibTeX/BibLaTeX reader with exact spans, error recovery and incremental re-parsing.

Design
------
The index needs, for every entry, exact offsets of the key, of every field name and of every
field value, and it must read a 20 000-entry library within a fraction of a second and
re-read it after one edit within a few milliseconds.  bibtexparser 2 gives neither value
offsets nor that speed (it needs several seconds for such a file, see bench/index_bench.py), so
this module is a span-exact scanner of its own:

* Where the package was built with a C compiler, the common entry is read in C
  (:mod:`citewarden.parsing._bibscan`, an optional extension): from any point, it reads
  whole ``@type{key, name = value, ...}`` entries, with single braced, quoted, numeric or
  macro values, one after the other, and makes their records; it stops at anything else
  (another kind of block, a concatenation, an error, an ``ids`` field, an ``@`` in the
  body, ...), which the scan loop below then reads.  It reads exactly what the regular
  expressions read: tests parse real and random bibliographies both ways and compare every
  entry, field, span and problem.  Without the extension the same results come, more
  slowly, from the regular expressions alone.
* Compiled regular expressions do the rest.  A well-formed brace entry is read by one
  ``findall`` over its body (from after ``key,`` to the next line starting with ``@``) that
  yields every field (name and value: braced up to three levels of nesting, quoted, number,
  macro, and ``#`` concatenations of these), the closing brace, or the first character that
  fits neither; names and values are then taken with C-level ``zip``/``join``/``map``, not a
  Python loop per field (only concatenations are joined part by part).  Anything else
  (deeper nesting, duplicate fields, undefined macros, parentheses as delimiters, errors)
  takes a token-by-token path, which also writes the error messages; a property test checks
  that both paths read the same.
* Entries are built lazily.  The scanner keeps a compact record per entry (names, values,
  expansions, the entry's text); :class:`Entry` objects are a private subclass whose
  ``fields`` (with their spans) are built on first access, while ``get``/``field`` answer
  from the record.  Spans are computed on access from the record and a shift, and after an
  edit the entries behind it are not copied at all: the new entry sequence is made of runs
  of the old one, each moved by an offset, and a moved entry is made when it is first asked
  for (:mod:`citewarden.parsing.entry_runs`).  The cyclic garbage collector is paused while
  these acyclic objects are made, and they are then counted as old objects, so that the
  next collection of young objects does not walk them all once.
* bibtexparser 2 stays the reference: tests assert that on real .bib files our keys, entry
  types and field values equal those of ``bibtexparser.parse_string`` with its default
  middleware stack.  LaTeX is decoded lazily, one value at a time
  (:func:`citewarden.parsing.latex_decode.decode_latex`).

What is read, as BibTeX reads it
--------------------------------
``@type{key, name = value, ...}`` and ``@type(key, ...)``; text outside entries is ignored.
Values are ``{...}``, ``"..."``, numbers, macro names, and ``#`` concatenations of these.
``@string`` macros (which may use earlier ones), the standard month macros ``jan``..``dec``
(expanded to month names as the standard styles do), ``@preamble`` (skipped) and the word
``@comment`` (alone: BibTeX reads the entries in what looks like its argument, and so does
this reader; entries BibTeX skips on a file's last line: :mod:`.bibtex_last_line`).
Macros must be defined before use, as in BibTeX and biber.  Field names and entry types are
lower-cased; keys are kept as written: BibTeX keys are case-insensitive, so compare them with
``str.casefold``.  Between fields, ``%`` starts a comment line (as biber reads it).

``Field.value`` is the raw text between the delimiters; for a concatenation it is the whole
expression as written (``"Proc. " # conf``) and ``value_span`` covers it, so a replacement
must bring its own delimiters.  ``Field.expanded`` holds the result of macro expansion and
concatenation when it differs from ``value``; an undefined macro expands to nothing inside a
concatenation and is left as written when it is the whole value.

Errors are findings, and reading goes on: after a syntax error the scanner resynchronises at
the next line that starts with ``@`` (BibTeX resumes at the next ``@`` anywhere: the keys a
BibTeX project then defines are :mod:`.bibtex_recovery`'s).  The entry in which the error happened is kept with the
fields read before it (its key stays defined, as in BibTeX, also when the error
follows the key right away).  A missing comma between two
fields is reported and reading continues with the next field.  ``complete`` is False whenever
some text was not understood.  Entries with an empty key are reported and left out.

Modules: this one holds the public functions (:func:`parse_bibtex`, :func:`reparse_bibtex`);
:mod:`~citewarden.parsing.bib_comments` the text biber and pandoc read as comments
(:func:`keys_in_comments`); :mod:`~citewarden.parsing.bibtex_patterns` the limits and the
regular expressions, :mod:`~citewarden.parsing.bibtex_entries` the lazy entries and the
``@string`` table, :mod:`~citewarden.parsing.bibtex_scan` the scanner's top level, its fast
lanes and the C extension's hooks, :mod:`~citewarden.parsing.bibtex_blocks` its block- and
entry-level reading token by token, :mod:`~citewarden.parsing.bibtex_fields` its field- and
value-level reading.
"""

from __future__ import annotations

import bisect
import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Finding,
    ParsedBibliography,
    moved_finding,
)
from citewarden.parsing.bib_comments import keys_in_comments, keys_on_comment_lines
from citewarden.parsing.bibtex_entries import _R_START, _LazyEntry, _shifted, _StringTable
from citewarden.parsing.bibtex_patterns import (
    _IGNORE,
    _STRING_BLOCK,
    MAX_EXPANSION,
    MAX_STRING_DEPTH,
    MONTH_MACROS,
)
from citewarden.parsing.bibtex_scan import _Scanner, reader_kind
from citewarden.parsing.entry_runs import EntryRuns, splice
from citewarden.text import count_line_breaks, line_start_before

__all__ = [
    "MAX_EXPANSION",
    "MAX_STRING_DEPTH",
    "MONTH_MACROS",
    "keys_in_comments",
    "keys_on_comment_lines",
    "parse_bibtex",
    "reader_kind",
    "reparse_bibtex",
]


def _suppressed(text: str) -> set[int]:
    """0-based lines silenced by ``% citewarden: ignore`` (that line and the next).

    The marker is matched case-insensitively; plain ``find`` for the two usual spellings of
    its tail keeps this from costing a regular-expression pass over a large file.
    """
    lines: set[int] = set()
    for needle in ("itewarden:", "ITEWARDEN:"):
        pos = text.find(needle)
        while pos != -1:
            line_start = line_start_before(text, pos)
            if _IGNORE.match(text, line_start):
                line = count_line_breaks(text, 0, line_start)
                lines.update((line, line + 1))
            pos = text.find(needle, pos + 1)
    return lines


# ---------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------


@contextmanager
def _no_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many acyclic objects.

    A large library makes hundreds of thousands of small tuples; with the collector running,
    each burst of allocations also triggers passes over every object alive, which costs more
    than the reading itself.  Nothing built here forms a cycle.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] >= _AGE_ABOVE:
                _age_young_objects()
            gc.enable()


#: Young objects from which a parse's objects are counted as old at once (a whole large
#: file); a re-read entry or a small file leaves the collector's usual course alone.
_AGE_ABOVE = 20_000


def _age_young_objects() -> None:
    """Count the objects built so far as old: the next collection of young objects would
    otherwise walk every one of them once (about a third of the reading time of a large
    file), only to find what is known here, that they live as long as the bibliography.
    Full collections still see them.  Left alone when something else holds objects frozen.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()  # every tracked object to the permanent generation ...
        gc.unfreeze()  # ... and from there into the oldest one


def parse_bibtex(
    path: Path, text: str, inherited: tuple[tuple[str, str], ...] = ()
) -> ParsedBibliography:
    """Read a .bib file's text into entries, @string macros and problems (never raises).
    ``inherited``: the macros of the files read before it (:class:`~citewarden.model.BibContext`),
    in force from its start."""
    with _no_gc():
        return _parse(path, text, inherited)


def _parse(
    path: Path, text: str, inherited: tuple[tuple[str, str], ...] = ()
) -> ParsedBibliography:
    scanner = _Scanner(path, text, dict(inherited))
    scanner.scan(0)
    return _result(
        scanner,
        tuple(scanner.entries),
        tuple(scanner.problems),
        frozenset(_suppressed(text)),
        inherited=inherited,
    )


def _result(
    scanner: _Scanner,
    entries: Sequence[Entry],
    problems: tuple[Finding, ...],
    suppressed: frozenset[int],
    defs: tuple[tuple[int, str, str], ...] | None = None,
    reused: tuple[int, int, int] | None = None,
    inherited: tuple[tuple[str, str], ...] = (),
) -> ParsedBibliography:
    complete = not any(p.code in _INCOMPLETE for p in problems)
    return ParsedBibliography(
        path=scanner.path,
        format=BibFormat.BIBTEX,
        entries=entries,
        strings=_StringTable(tuple(scanner.string_defs) if defs is None else defs, inherited),
        suppressed_lines=suppressed,
        problems=problems,
        complete=complete,
        reused=reused,
    )


_INCOMPLETE = frozenset({Code.BIB_SYNTAX})


_CHUNK = 1 << 18


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix of ``a`` and ``b`` (chunked C comparisons, one copy)."""
    n = min(len(a), len(b))
    lo = 0
    while lo < n:
        hi = min(n, lo + _CHUNK)
        if b.startswith(a[lo:hi], lo):
            lo = hi
            continue
        while hi - lo > 32:  # the first difference is in [lo, hi)
            mid = (lo + hi) // 2
            if b.startswith(a[lo:mid], lo):
                lo = mid
            else:
                hi = mid
        while lo < hi and a[lo] == b[lo]:
            lo += 1
        return lo
    return n


def _common_suffix(a: str, b: str, limit: int) -> int:
    """Length of the common suffix of ``a`` and ``b``, at most ``limit``."""
    la, lb = len(a), len(b)
    k = 0
    while k < limit:
        m = min(limit, k + _CHUNK)
        if b.endswith(a[la - m : la - k], 0, lb - k):
            k = m
            continue
        lo, hi = k, m  # common suffix length is in [lo, hi)
        while hi - lo > 32:
            mid = (lo + hi) // 2
            if b.endswith(a[la - mid : la - lo], 0, lb - lo):
                lo = mid
            else:
                hi = mid
        while lo < hi and a[la - lo - 1] == b[lb - lo - 1]:
            lo += 1
        return lo
    return limit


def reparse_bibtex(
    old: ParsedBibliography,
    old_text: str,
    new_text: str,
    changed: tuple[int, int, int] | None = None,
    inherited: tuple[tuple[str, str], ...] | None = None,
) -> ParsedBibliography:
    """Re-read ``new_text`` reusing ``old`` (the parse of ``old_text``) outside the edit.

    Only the entries that overlap the changed region are read again; those after it are
    shifted.  The result equals ``parse_bibtex(old.path, new_text, inherited)``
    (``inherited`` None: the macros ``old`` was read with).  Edits that touch an @string
    definition, other inherited macros, or an ``old`` not made by :func:`parse_bibtex` fall
    back to a full parse.

    ``changed`` may give the edited region when the caller already knows it (an editor's
    change event): ``(start, old_end, new_end)`` with ``old_text[start:old_end]`` replaced
    by ``new_text[start:new_end]`` and the rest equal; a larger region is fine.  Without it
    the region is found by comparing the texts.
    """
    with _no_gc():
        return _reparse(old, old_text, new_text, changed, inherited)


def _reparse(
    old: ParsedBibliography,
    old_text: str,
    new_text: str,
    changed: tuple[int, int, int] | None,
    inherited: tuple[tuple[str, str], ...] | None,
) -> ParsedBibliography:
    path = old.path
    if old.format is not BibFormat.BIBTEX or not isinstance(old.strings, _StringTable):
        return _parse(path, new_text, inherited or ())
    if inherited is None:
        inherited = old.strings.inherited
    elif inherited != old.strings.inherited:
        return _parse(path, new_text, inherited)
    delta = len(new_text) - len(old_text)
    if changed is not None and _plausible(changed, len(old_text), len(new_text)):
        prefix, old_end, _ = changed
    else:
        if old_text == new_text:
            return old
        prefix = _common_prefix(old_text, new_text)
        suffix = _common_suffix(old_text, new_text, min(len(old_text), len(new_text)) - prefix)
        old_end = len(old_text) - suffix  # old[prefix:old_end] became new[prefix:old_end+delta]

    entries = old.entries
    starts = _EntryStarts(entries)
    # Restart at the last entry that starts strictly before the change (a top-level point).
    # Reading the entry before it may have looked at its "@type{" (to find where a broken
    # entry ends), so when the change touches that header, restart one entry earlier.
    i = bisect.bisect_left(starts, prefix) - 1
    while i >= 0 and prefix <= entries[i].key_span.start:
        i -= 1
    restart = starts[i] if i >= 0 else 0
    first_reused_before = i if i >= 0 else 0  # entries[:first] are kept as they are
    # Candidate resume points: old entry starts at or after the change, shifted.
    j = bisect.bisect_left(starts, old_end)
    stops = [starts[k] + delta for k in range(j, min(len(entries), j + 256))]

    table = old.strings
    scanner = _Scanner(path, new_text, table.before(restart))
    resume = scanner.scan(restart, stops)
    if resume >= len(new_text):
        resume_old = len(old_text)
        k = len(entries)
    else:
        resume_old = resume - delta
        k = bisect.bisect_left(starts, resume_old)
    # Any @string in the re-read region changes what later entries expand to: read it all.
    if scanner.string_defs or _STRING_BLOCK.search(old_text, restart, resume_old):
        return _parse(path, new_text, inherited)

    head = first_reused_before
    tail = len(entries) - k
    new_entries = splice(entries, head, k, scanner.entries, delta, _shifted)

    before = [f for f in old.problems if f.location.span.start < restart]
    after = (
        [moved_finding(f, delta) for f in old.problems if f.location.span.start >= resume_old]
        if resume < len(new_text)
        else []  # read to the end: nothing of the old parse is reused after the edit
    )
    problems = (*before, *scanner.problems, *after)

    window = new_text[max(0, restart - 64) : resume].lower()
    if old.suppressed_lines or "citewarden:" in window:
        suppressed = frozenset(_suppressed(new_text))
    else:
        suppressed = frozenset()
    defs = tuple((o + delta if o >= resume_old else o, nm, v) for o, nm, v in table._defs)
    return _result(
        scanner, new_entries, problems, suppressed, defs, (id(entries), head, tail), inherited
    )


def _plausible(changed: tuple[int, int, int], old_len: int, new_len: int) -> bool:
    start, old_end, new_end = changed
    return (
        0 <= start <= old_end <= old_len
        and start <= new_end <= new_len
        and old_len - old_end == new_len - new_end
    )


class _EntryStarts:
    """Sequence view of entry start offsets, for bisect without building a list."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Sequence[Entry]) -> None:
        self._entries = entries

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, i: int) -> int:
        entries = self._entries
        if isinstance(entries, EntryRuns):
            e, delta = entries.unmoved(i)
        else:
            e, delta = entries[i], 0
        if type(e) is _LazyEntry:
            return e._r[_R_START] + e._d + delta  # type: ignore[attr-defined,no-any-return]
        return e.span.start + delta
