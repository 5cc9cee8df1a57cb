"""The keys BibTeX defines in a .bib file with syntax errors.

citewarden's reader resumes after a syntax error at the next line that starts with ``@``.
BibTeX 0.99d (``bibtex.web``) instead skips to the next ``@`` wherever it is: on the same
line, or inside the rest of the broken entry (an e-mail address, a medium.com/@user URL,
an entry-like text in a field), and stops once it has read the file's last line.  So after
an error it may define a key the reader does not see, and lose one the reader defines::

    @misc{a, title={X} note={see @misc{b, title={Y}}}}   <- BibTeX defines a and b
    @misc{c, title={X},                                  <- never closed: the error is at
    @misc{d, title={Y}}                                     the @ of the last line, where
                                                            BibTeX stops: d is undefined

A few readings differ without an error the reader reports: the key of a parenthesised
entry runs to a comma or white space (``@misc(work)`` defines ``work)``), ``@@misc{k,...}``
is an entry of type ``@misc``, so is ``@\\misc{k,...}`` (a type the reader takes for
text), and ``%`` starts no comment (a ``%`` line in an entry is an error, and BibTeX
resumes at an ``@`` on it).

An ``@`` after a ``%`` between entries (``% old: @misc{k, ...}``) is read alike by both:
only one inside an entry differs (:func:`differs_at`).  Where such readings begin is found
once per version, and after an edit around it only (:func:`differing_at`,
:func:`reach_back`).

For a file with a syntax error or such a reading, :func:`bibtex_keys` reads it whole with the port of
BibTeX's scanner (:func:`~citewarden.parsing.bibtex_last_line.entries_bibtex_reads`, linear
in the file's length) and compares the keys with the reader's entries.  Any other file is
read alike by both, but for its last line (:mod:`~citewarden.parsing.bibtex_last_line`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from citewarden.model import Entry
from citewarden.parsing.bibtex_last_line import entries_bibtex_reads

#: what the reader reads, with no syntax error, otherwise than BibTeX: ``@misc(key)``,
#: ``@@misc``, an ``@`` after a ``%`` on its line, and a block whose type the reader
#: takes for text (``@\\string{...}``, ``@\u00e9{...}``).  Types up to 64 characters and
#: keys up to 256 are looked at: each ``@`` and ``%`` is looked at in bounded time.
_DIFFERS = re.compile(
    r"@[ \t\r\n]*+[A-Za-z_][\w\-.:+]*+[ \t\r\n]*+\([ \t\r\n]*+[^,\s()]{0,255}+\)"
    r"|@[ \t\r\n]*+@"
    r"|%[^\n\r@%]*+@"
    r"|@[ \t\r\n]*+(?![A-Za-z_][\w\-.:+]*+\s*+[{(])"
    r"[^\x00-\x1f \"#%'(),={}0-9][^\x00-\x1f \"#%'(),={}]{0,63}+[ \t\r\n]*+[{(]"
)


@dataclass(frozen=True, slots=True)
class BibtexKeys:
    """How the keys BibTeX defines in a file differ from those of the reader's entries."""

    #: keys of entries BibTeX does not read (and reads nowhere else in the file)
    unread: frozenset[str] = frozenset()
    #: keys BibTeX defines that no entry has (``work)``, an entry inside a field)
    added: frozenset[str] = frozenset()
    #: entry position -> the key BibTeX reads for that entry, where it is another one
    renamed: Mapping[int, str] = field(default_factory=lambda: MappingProxyType({}))


#: where a reading of :data:`_DIFFERS` may begin
_CANDIDATE = re.compile(r"[@%]")
#: non-white characters a reading of :data:`_DIFFERS` spans at most (types of 64, keys of
#: 256, and a few more); its runs of white space and a ``%`` line are not bounded
_MAX_SPAN = 400


def differing_at(text: str, start: int = 0, end: int | None = None) -> list[int]:
    """Offsets from ``start`` (up to ``end``) where a reading that differs without a syntax
    error begins (:data:`_DIFFERS`), each ``@`` and ``%`` tried: whether one begins at an
    offset depends on the text from there on only."""
    stop = len(text) if end is None else end
    return [
        m.start()
        for m in _CANDIDATE.finditer(text, start, stop)
        if _DIFFERS.match(text, m.start()) is not None
    ]


def reach_back(text: str, offset: int) -> int:
    """An offset before which no reading of :data:`_DIFFERS` begins that reaches
    ``offset``: back over :data:`_MAX_SPAN` characters other than white space (white space
    costs nothing), and to the start of ``offset``'s line (a ``%`` line)."""
    pos, budget = offset, _MAX_SPAN
    while pos > 0 and budget > 0:
        pos -= 1
        if text[pos] not in " \t\r\n":
            budget -= 1
    line = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    return min(pos, line)


def differs_at(
    text: str, offsets: Sequence[int], starts: Sequence[int], ends: Sequence[int]
) -> bool:
    """Whether one of the readings at ``offsets`` (:func:`differing_at`) makes BibTeX read
    otherwise than the reader of entries spanning ``starts``/``ends``: each does but an
    ``@`` after a ``%`` between entries, which both read (BibTeX has no comments; the
    reader reads an entry after such a ``%`` too, where inside an entry it reads a comment
    and BibTeX an error)."""
    for at in offsets:
        if text[at] != "%":
            return True
        i = bisect.bisect_right(starts, at) - 1
        if i >= 0 and at < ends[i]:
            return True
    return False


def bibtex_keys(text: str, entries: Sequence[Entry], keys: Sequence[str]) -> BibtexKeys:
    """The :class:`BibtexKeys` of ``text``, whose reader's ``entries`` have the ``keys``."""
    found = [(at, key) for at, key in entries_bibtex_reads(text) if key]
    read = {key for _, key in found}
    known = set(keys)
    added = read - known
    renamed: dict[int, str] = {}
    if added:
        starts = {e.span.start: i for i, e in enumerate(entries)}
        for at, key in found:
            i = starts.get(at)
            if i is not None and key in added:
                renamed[i] = key
    return BibtexKeys(frozenset(known - read), frozenset(added), MappingProxyType(renamed))
