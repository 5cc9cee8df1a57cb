"""What biber's reader (btparse) rejects in a .bib file that BibTeX and citewarden read.

One such syntax error makes biber drop the whole file (it reads no entry of it, and says so
only in its log), where BibTeX and :func:`~citewarden.parsing.bibtex.parse_bibtex` read
every entry.  Found by running biber 2 on each case:

* a key holding ``"``, ``#``, ``(``, ``)``, ``=`` or ``\\`` (``@misc{a=b,``), or an
  apostrophe followed by two characters or more (``d'Aspremont-1998``);
* an entry without a comma after its key (``@index{information}``, as bib2gls writes them);
* ``\\char125`` or ``\\char123``, which biber turns into a brace before it parses, so the
  braces of the entry no longer match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citewarden.model import Entry, Span, quoted

_KEY_REJECTED = re.compile(r"""["#()=\\]|'[^,\s]{2}""")
_CHAR_BRACE = re.compile(r"\\char\s*12[35](?!\d)")
_AFTER_KEY = re.compile(r"\s*([})])")


def biber_rejections(text: str, entries: Sequence[Entry]) -> list[tuple[Span, str]]:
    """Each place of ``text`` biber cannot read, with why, in order."""
    found: list[tuple[Span, str]] = []
    for entry in entries:
        if _KEY_REJECTED.search(entry.key):
            found.append((entry.key_span, f"biber cannot read the key {quoted(entry.key)}"))
        elif _AFTER_KEY.match(text, entry.key_span.end):
            found.append(
                (
                    entry.key_span,
                    f"biber needs a comma after the key {quoted(entry.key)} (no fields)",
                )
            )
    if "\\char" in text:
        for m in _CHAR_BRACE.finditer(text):
            found.append((Span(m.start(), m.end()), "biber reads \\char125 / \\char123 as a brace"))
    found.sort(key=lambda item: item[0].start)
    return found


__all__ = ["biber_rejections"]
