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

#: Inline math: as pandoc reads it (a non-space after the opening dollar and before the
#: closing one, no digit after it, so "$5 and $10" is no math), or holding a TeX command
#: (``$ \\mathbb{Z}_{3}$``, as LaTeX reads it).
_MATH = r"\$(?=\S)[^$]*(?<=\S)\$(?!\d)|\$[^$\\]*\\[A-Za-z][^$]*\$"
#: A TeX command or escaped character (kept), a trailing backslash (escaped), inline math
#: (kept), or a special character (escaped).
_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z])|\\\Z|" + _MATH + r"|[&%#_$^~]")

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


#: Inline math, a TeX command, or a whole word not already braced (read once: possessive;
#: a pattern asking for the capitals itself tried every split of a long word among its
#: three repeats, minutes for a title word of 4 000 capitals).
_PROTECTABLE = re.compile(_MATH + r"|\\[A-Za-z]+|(?<![{\w\\])\w++(?![}\w])")
_CAPITALS = re.compile(r"[A-Z][^A-Z]*[A-Z]")


def _protected(m: re.Match[str]) -> str:
    token = m.group()
    if token[0] == "\\":
        return token  # a command: \LaTeX stays a command
    if token[0] == "$":
        return "{" + token + "}" if any(c.isupper() for c in token) else token
    return "{" + token + "}" if _CAPITALS.search(token) else token


def protect_capitals(title: str) -> str:
    """``title`` (BibTeX text) with each word of two or more capitals (``ImageNet``,
    ``BERT``) and each math holding a capital braced: BibTeX styles that lowercase a title
    leave braced text as it is."""
    return _PROTECTABLE.sub(_protected, title)
