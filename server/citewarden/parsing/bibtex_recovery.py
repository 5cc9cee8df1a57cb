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

For such a file (:func:`may_differ`), :func:`bibtex_keys` reads it whole with the port of
BibTeX's scanner (:func:`~citewarden.parsing.bibtex_last_line.entries_bibtex_reads`, linear
in the file's length) and compares the keys with the reader's entries.  Any other file is
read alike by both, but for its last line (:mod:`~citewarden.parsing.bibtex_last_line`).
"""

from __future__ import annotations

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


def may_differ(text: str, complete: bool) -> bool:
    """Whether BibTeX may define other keys in ``text`` than the reader, apart from its last
    line: the reader found a syntax error (``complete`` False), or one of the readings that
    differ without one is there."""
    return not complete or _DIFFERS.search(text) is not None


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
