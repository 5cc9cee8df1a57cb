"""Text from a record as a BibTeX value that LaTeX typesets as that text (pure).

BibTeX and biber copy a field into the ``.bbl`` as written, so a character LaTeX gives a
meaning to breaks the bibliography: ``&`` stops the run ("Misplaced alignment tab
character"), ``%`` drops the rest of the line, ``#``, ``_`` and ``^`` stop it too.  Records
are plain Unicode, except that arXiv (and the services copying its titles) keep TeX: math
between dollars and commands such as ``\\'e``.  Those are kept as written when they only
typeset text (:func:`typesetting_commands`); every other special character is escaped.
Anyone can write a record's title (an arXiv or Zenodo upload), and LaTeX runs what the
.bib hands it: ``\\input{/etc/passwd}`` or ``^^5cinput`` in a title would read a file into
the document, so any other command is written as text (``\\textbackslash{}input``) and
math holding one is escaped whole.  The inverse is
:mod:`citewarden.parsing.latex_decode`.
"""

from __future__ import annotations

import functools
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


#: Commands that set text in a font, a box or a structure of math (with the ones that stand
#: for a character, :func:`typesetting_commands`).
_MARKUP_NAMES = """emph textit textbf textrm textsf texttt textsc textup textmd textsl textnormal
    textsuperscript textsubscript mbox text mathrm mathbf mathit mathsf mathtt mathcal
    mathbb mathfrak mathscr mathnormal boldsymbol bm operatorname frac dfrac tfrac binom
    sqrt hat widehat tilde widetilde bar overline underline vec dot ddot check breve acute
    grave left right big Big bigg Bigg bigl bigr Bigl Bigr middle log ln exp lg sin cos
    tan cot sec csc arcsin arccos arctan sinh cosh tanh min max sup inf lim liminf limsup
    arg det dim ker deg gcd Pr mod bmod pmod to mid ldots dots cdots vdots ddots quad qquad
    prime lvert rvert lVert rVert lfloor lceil rfloor rceil
    uparrow downarrow rightarrow leftarrow le ge ne emptyset ast neg Re Im dagger ddagger
    aa AA j b d t S P dag ddag pounds copyright"""
_MARKUP_COMMANDS = frozenset(_MARKUP_NAMES.split())
#: What math may not keep: a command not in the set, or ``^^`` (TeX reads ``^^5c`` as a backslash).
_MATH_PARTS = re.compile(r"\\([A-Za-z]+)|\^\^")
#: The tokens of text outside math (a dollar is escaped).
_TEXT_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z])|\\\Z|[&%#_$^~]")


@functools.lru_cache(maxsize=1)
def typesetting_commands() -> frozenset[str]:
    """The TeX commands a value may keep: those standing for a character (pylatexenc's
    table of them: accents, letters, symbols of math), the markup of
    :data:`_MARKUP_COMMANDS` and the TeX logos."""
    # imported on first use: most values hold no command
    from pylatexenc.latexencode import get_builtin_uni2latex_dict

    from citewarden.parsing.latex_decode import LOGOS

    found: set[str] = set()
    for written in get_builtin_uni2latex_dict().values():
        found.update(re.findall(r"\\([A-Za-z]+)", written))
    return frozenset(found) | _MARKUP_COMMANDS | frozenset(LOGOS)


def _math_kept(math: str) -> bool:
    for m in _MATH_PARTS.finditer(math):
        if m.group(1) is None or m.group(1) not in typesetting_commands():
            return False
    return True


def _text_token(m: re.Match[str]) -> str:
    token = m.group()
    if token[0] == "\\" and token[1:2].isalpha() and token[1:] not in typesetting_commands():
        return "\\textbackslash{}" + token[1:]
    return _ESCAPED.get(token, token)


def _token(m: re.Match[str]) -> str:
    token = m.group()
    if token[0] == "$" and len(token) > 1:
        return token if _math_kept(token) else _TEXT_TOKEN.sub(_text_token, token)
    return _text_token(m)


def latex_text(text: str) -> str:
    """``text`` with the characters LaTeX would read as markup escaped (``R&D`` ->
    ``R\\&D``), its math and the commands that typeset text kept (``$\\alpha$-stable``,
    ``Schr{\\"o}dinger``), any other command written as text."""
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
