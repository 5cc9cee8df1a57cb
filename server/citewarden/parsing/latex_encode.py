"""Text from a record as a BibTeX value that LaTeX typesets as that text (pure).

BibTeX and biber copy a field into the ``.bbl`` as written, so a character LaTeX gives a
meaning to breaks the bibliography: ``&`` stops the run ("Misplaced alignment tab
character"), ``%`` drops the rest of the line, ``#``, ``_`` and ``^`` stop it too.  Records
are plain Unicode, except that arXiv (and the services copying its titles) keep TeX: math
between dollars and commands such as ``\\'e``.  Those are kept as written; every other
special character is escaped.  The inverse is :mod:`citewarden.parsing.latex_decode`.
"""

from __future__ import annotations

import re

#: A TeX command or escaped character (kept), a trailing backslash (escaped), inline math
#: as pandoc reads it (kept: a non-space after the opening dollar and before the closing
#: one, no digit after it, so "$5 and $10" is no math), or a special character (escaped).
_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z])|\\\Z|\$(?=\S)[^$]*(?<=\S)\$(?!\d)|[&%#_$^~]")

_ESCAPED = {
    "&": "\\&",
    "%": "\\%",
    "#": "\\#",
    "_": "\\_",
    "$": "\\$",
    "^": "\\textasciicircum{}",
    "~": "\\textasciitilde{}",
    "\\": "\\textbackslash{}",
}


def _token(m: re.Match[str]) -> str:
    token = m.group()
    return _ESCAPED.get(token, token)


def latex_text(text: str) -> str:
    """``text`` with the characters LaTeX would read as markup escaped (``R&D`` ->
    ``R\\&D``), its math and TeX commands kept (``$\\alpha$-stable``)."""
    return _TOKEN.sub(_token, text)
