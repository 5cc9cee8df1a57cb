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
math holding one is escaped whole.  Of the control symbols (a backslash and one other
character) only those that typeset text are kept (:data:`TEXT_SYMBOLS`: ``\\&``, ``\\'``,
``\\-`` ...); ``\\(``, ``\\[``, ``\\{`` or ``\\|`` outside math would start math, end a group
LaTeX never opened or typeset a wrong glyph, and are written as text
(``\\textbackslash{}(``, ``\\textbackslash{}\\textbraceleft{}``).  The inverse is
:mod:`citewarden.parsing.latex_decode`.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from citewarden.parsing.pdflatex_spellings import PDFLATEX_SPELLINGS

#: Inline math: as pandoc reads it (a non-space after the opening dollar and before the
#: closing one, no digit after it, so "$5 and $10" is no math), or holding a TeX command
#: (``$ \\mathbb{Z}_{3}$``, as LaTeX reads it).
_MATH = r"\$(?=\S)[^$]*(?<=\S)\$(?!\d)|\$[^$\\]*\\[A-Za-z][^$]*\$"
#: A TeX command or control symbol (kept when it typesets text), a trailing backslash
#: (escaped), inline math (kept), or a special character (escaped).
_TOKEN = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z])|\\\Z|" + _MATH + r"|[&%#_$^~]")

_ASCII_LETTER = re.compile("[A-Za-z]")

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

#: The control symbols kept outside math: escaped specials, accents, the discretionary
#: hyphen, the italic correction, spaces and the line break.
TEXT_SYMBOLS = frozenset("&%#_$'\"^~`=.-/,;: \\")
#: A character after a backslash that is not kept, written as text: the backslash as
#: ``\\textbackslash{}`` and the character as itself, or as the command typesetting it
#: where pdflatex's default font would set another glyph (``|``, ``<``, ``>``) or BibTeX
#: would count a brace.
_SYMBOL_AS_TEXT = {
    "{": "\\textbraceleft{}",
    "}": "\\textbraceright{}",
    "|": "\\textbar{}",
    "<": "\\textless{}",
    ">": "\\textgreater{}",
}


def _control_symbol(token: str) -> str:
    """A backslash and one character that is no letter: kept when it typesets text
    (:data:`TEXT_SYMBOLS`), else written as text."""
    char = token[1]
    if char in TEXT_SYMBOLS:
        return token
    return "\\textbackslash{}" + _SYMBOL_AS_TEXT.get(char, _ESCAPED.get(char, char))


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
    if not braces_balanced(math):
        return False  # BibTeX counts ``\\{`` as a brace: an unmatched one breaks the file
    for m in _MATH_PARTS.finditer(math):
        if m.group(1) is None or m.group(1) not in typesetting_commands():
            return False
    return True


def braces_balanced(text: str) -> bool:
    """Whether every brace of ``text`` closes one before it, escaped or not (as BibTeX
    counts them)."""
    depth = 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _text_token(m: re.Match[str]) -> str:
    token = m.group()
    if len(token) == 2 and token[0] == "\\" and not _ASCII_LETTER.match(token[1]):
        return _control_symbol(token)
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


#: The characters beyond ASCII that pdflatex typesets with no package loaded (LaTeX's UTF-8
#: input with the OT1 and TS1 encodings of its default setup, TeX Live 2022), as ranges of
#: code points: Latin letters with accents, dashes, quotes, the euro sign ... but no Greek
#: letter, no other script and no emoji ("Unicode character not set up for use with LaTeX").
PDFLATEX_RANGES = (
    (0x00A0, 0x00AA),
    (0x00AC, 0x00BA),
    (0x00BC, 0x00CF),
    (0x00D1, 0x00DD),
    (0x00DF, 0x00EF),
    (0x00F1, 0x00FD),
    (0x00FF, 0x0103),
    (0x0106, 0x010F),
    (0x0112, 0x0117),
    (0x011A, 0x0125),
    (0x0128, 0x012D),
    (0x0130, 0x0137),
    (0x0139, 0x013E),
    (0x0141, 0x0148),
    (0x014C, 0x0165),
    (0x0168, 0x0171),
    (0x0174, 0x017E),
    (0x0192, 0x0192),
    (0x01C4, 0x01D4),
    (0x01E2, 0x01E3),
    (0x01E6, 0x01E9),
    (0x01F0, 0x01F0),
    (0x01F4, 0x01F5),
    (0x0218, 0x021B),
    (0x0232, 0x0233),
    (0x0237, 0x0237),
    (0x02C6, 0x02C7),
    (0x02D8, 0x02D9),
    (0x02DC, 0x02DD),
    (0x0E3F, 0x0E3F),
    (0x1E02, 0x1E03),
    (0x1E0D, 0x1E0D),
    (0x1E1E, 0x1E21),
    (0x1E25, 0x1E25),
    (0x1E30, 0x1E31),
    (0x1E37, 0x1E37),
    (0x1E43, 0x1E43),
    (0x1E45, 0x1E45),
    (0x1E47, 0x1E47),
    (0x1E5B, 0x1E5B),
    (0x1E63, 0x1E63),
    (0x1E6D, 0x1E6D),
    (0x1E8E, 0x1E91),
    (0x1E9E, 0x1E9E),
    (0x1EF2, 0x1EF3),
    (0x200C, 0x200C),
    (0x2010, 0x2016),
    (0x2018, 0x2019),
    (0x201C, 0x201D),
    (0x2020, 0x2022),
    (0x2026, 0x2026),
    (0x2030, 0x2031),
    (0x203B, 0x203B),
    (0x203D, 0x203D),
    (0x2044, 0x2044),
    (0x204E, 0x204E),
    (0x2052, 0x2052),
    (0x20A1, 0x20A1),
    (0x20A4, 0x20A4),
    (0x20A6, 0x20A6),
    (0x20A9, 0x20A9),
    (0x20AB, 0x20AC),
    (0x20B1, 0x20B1),
    (0x2103, 0x2103),
    (0x2116, 0x2117),
    (0x211E, 0x211E),
    (0x2120, 0x2120),
    (0x2122, 0x2122),
    (0x2126, 0x2127),
    (0x212E, 0x212E),
    (0x2190, 0x2193),
    (0x2329, 0x232A),
    (0x2422, 0x2423),
    (0x25E6, 0x25E6),
    (0x25EF, 0x25EF),
    (0x266A, 0x266A),
    (0x27E8, 0x27E9),
    (0x3008, 0x3009),
    (0xFB00, 0xFB06),
    (0xFEFF, 0xFEFF),
)
#: A character beyond what pdflatex typesets with no package loaded.
BEYOND_PDFLATEX = re.compile(
    "[^\\x00-\\x7f" + "".join(f"\\u{a:04x}-\\u{b:04x}" for a, b in PDFLATEX_RANGES) + "]"
)
#: LaTeX's accent command for each combining accent, those pdflatex sets over any letter in
#: OT1 (``\\k``, the ogonek, is T1's only).
_ACCENT_COMMANDS = {
    "\u0300": "`",
    "\u0301": "'",
    "\u0302": "^",
    "\u0303": "~",
    "\u0304": "=",
    "\u0306": "u",
    "\u0307": ".",
    "\u0308": '"',
    "\u030a": "r",
    "\u030b": "H",
    "\u030c": "v",
    "\u0323": "d",
    "\u0327": "c",
    "\u0331": "b",
}


def _spelt_char(char: str) -> str | None:
    """``char`` (one character) spelt for pdflatex: as it is when it typesets it, else by
    :data:`PDFLATEX_SPELLINGS`; None when neither does."""
    if not BEYOND_PDFLATEX.match(char):
        return char
    spelt = PDFLATEX_SPELLINGS.get(char)
    return None if spelt is None else "{" + spelt + "}"


#: What follows an emoji and goes with it: variation selectors (``❤️``).
_EMOJI_MARKS = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]*")


def _spelt(cluster: str) -> str:
    """``cluster`` (a character and the combining marks following it) spelt for pdflatex:
    by its spelling, as LaTeX accents over a letter pdflatex typesets, dropped when an
    emoji, else as it is: a mark is never left off (``x ≠ y`` is no ``x = y``)."""
    if len(cluster) == 1 and (spelt := _spelt_char(cluster)) is not None:
        return spelt
    decomposed = unicodedata.normalize("NFD", cluster)
    base, marks = decomposed[0], decomposed[1:]
    if (
        marks
        and unicodedata.category(base)[0] == "L"
        and not BEYOND_PDFLATEX.match(base)
        and all(mark in _ACCENT_COMMANDS for mark in marks)
    ):
        # a letter under accents: LaTeX's accent commands (``ễ`` as ``{\\~{\\^{e}}}``)
        for mark in marks:
            base = f"\\{_ACCENT_COMMANDS[mark]}{{{base}}}"
        return "{" + base + "}"
    category = unicodedata.category(cluster[0])
    if category[0] in "SC" and category != "Sm" and _EMOJI_MARKS.fullmatch(cluster, 1):
        return ""  # an emoji, its joiners and variation selectors: nothing LaTeX can set
    # a letter of a script LaTeX needs a package for, a symbol of math or a mark nothing
    # spells: kept, as the only spelling that keeps the meaning
    return cluster


def _clusters(text: str) -> list[str]:
    """``text`` as characters each with the combining marks following it."""
    clusters: list[str] = []
    for char in text:
        if clusters and unicodedata.category(char)[0] == "M":
            clusters[-1] += char
        else:
            clusters.append(char)
    return clusters


def pdflatex_text(text: str) -> str:
    """``text`` (BibTeX text) with each character pdflatex cannot typeset with no package
    loaded spelt in LaTeX (``α`` as ``{\\ensuremath{\\alpha}}``, ``ễ`` as ``{\\~{\\^{e}}}``, ``≠``
    as ``{\\ensuremath{\\neq}}``), an emoji dropped, anything no command spells exactly
    (Chinese, a letter under a mark LaTeX has no accent for) kept."""
    text = unicodedata.normalize("NFC", text)
    if not BEYOND_PDFLATEX.search(text):
        return text
    spelt = (_spelt(c) if BEYOND_PDFLATEX.search(c) else c for c in _clusters(text))
    return " ".join("".join(spelt).split())
