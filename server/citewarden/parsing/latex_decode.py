"""Lazy LaTeX -> Unicode decoding of single bibliography field values.

Decoding a whole library up front is far slower than reading it, and most values are never
shown or compared, so callers decode one value at a time, when they need it (verification
normalises only the fields it compares).  Results are memoised per value.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text
    from pylatexenc.macrospec import LatexContextDb

_PLAIN = re.compile(r"[^\\{}$~%&_^-]*")
_SPACES = re.compile(r"[ \t\r\n]+")
_MARKUP = re.compile(r"\\[A-Za-z]+\*?|[{}\\$]")

#: LaTeX's accent commands and the combining mark each puts on its letter (``\\'e``,
#: ``\\v{s}``), for readers that decode accents without pylatexenc.
ACCENTS = {
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    '"': "\u0308",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
    "d": "\u0323",
    "b": "\u0331",
}

#: The TeX family logos, which pylatexenc would otherwise drop as unknown macros.
LOGOS = {
    "TeX": "TeX",
    "LaTeX": "LaTeX",
    "LaTeXe": "LaTeX2e",
    "BibTeX": "BibTeX",
    "BibLaTeX": "BibLaTeX",
    "XeTeX": "XeTeX",
    "XeLaTeX": "XeLaTeX",
    "LuaTeX": "LuaTeX",
    "LuaLaTeX": "LuaLaTeX",
    "pdfTeX": "pdfTeX",
    "pdfLaTeX": "pdfLaTeX",
    "ConTeXt": "ConTeXt",
    "AmSTeX": "AmSTeX",
    "AmS": "AmS",
}


#: Macros that typeset their argument as text, in another font or box: pylatexenc knows
#: their arguments but has no text for them, and would drop ``\\texttt{RNeXML}`` whole.
KEPT_ARGUMENT = ("texttt", "textsf", "textup", "textmd", "mbox")
#: Macros that typeset their last argument, the others saying how (a link's target, a
#: language, a box's width), with their arguments as pylatexenc reads them.
ARGUMENTS = {"href": "[{{", "foreignlanguage": "[{{", "makebox": "[[{"}
#: ``\\texorpdfstring{TeX}{PDF}``: the bibliography typesets the TeX one.
FIRST_ARGUMENT = ("texorpdfstring",)
#: The sorting macros a .bib's ``@preamble`` defines to typeset nothing
#: (``{\\noopsort{1983}}``): their argument only steers BibTeX's sorting.
SORT_ONLY = ("noopsort", "sortnoop", "SortNoop", "noop")


def _last_argument(node: Any, l2tobj: Any) -> str:
    args = [a for a in node.nodeargd.argnlist if a is not None] if node.nodeargd else []
    return str(l2tobj.nodelist_to_text(args[-1:]))


def _first_argument(node: Any, l2tobj: Any) -> str:
    args = [a for a in node.nodeargd.argnlist if a is not None] if node.nodeargd else []
    return str(l2tobj.nodelist_to_text(args[:1]))


#: The longest value given to pylatexenc (about 20 µs a token): a longer one (no real field
#: is; a broken or hostile source's record can be) has its markup stripped instead.
MAX_DECODED = 20_000


@lru_cache(maxsize=1)
def _converter() -> tuple[LatexNodes2Text, LatexContextDb]:
    """The text converter, and the parser's macros (pylatexenc's, with the arguments of the
    macros below)."""
    # imported on first use: most values never need the full decoder
    from pylatexenc import latexwalker
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db
    from pylatexenc.macrospec import MacroSpec

    context = get_default_latex_context_db()
    logos = [MacroTextSpec(name, simplify_repl=text) for name, text in LOGOS.items()]
    context.add_context_category("citewarden-logos", macros=logos, prepend=True)
    # macros pylatexenc parses but has no text for, so it drops their argument with them
    kept = [MacroTextSpec(name, discard=False) for name in KEPT_ARGUMENT]
    last = [MacroTextSpec(name, simplify_repl=_last_argument) for name in ARGUMENTS]
    first = [MacroTextSpec(name, simplify_repl=_first_argument) for name in FIRST_ARGUMENT]
    silent = [MacroTextSpec(name, discard=True) for name in SORT_ONLY]
    context.add_context_category(
        "citewarden-text", macros=kept + last + first + silent, prepend=True
    )
    parsing = latexwalker.get_default_latex_context_db()
    args = [MacroSpec(name, spec) for name, spec in ARGUMENTS.items()]
    args += [MacroSpec(name, "{") for name in SORT_ONLY]
    parsing.add_context_category("citewarden-arguments", macros=args, prepend=True)
    text = LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)
    return text, parsing


@lru_cache(maxsize=65536)
def decode_latex(value: str) -> str:
    """Turn one raw field value into plain Unicode text.

    Accents and symbols become characters (``{\\'e}`` -> ``é``), grouping braces are removed,
    ``--``/``---`` become en/em dashes, ``~`` a no-break space, TeX logos are spelled out
    (``{\\TeX}book`` -> ``TeXbook``, ``\\LaTeXe`` -> ``LaTeX2e``); runs of white space
    collapse to one space.  A value that pylatexenc cannot read, or longer than
    :data:`MAX_DECODED`, is returned with control words, braces and ``$`` stripped.
    """
    if _PLAIN.fullmatch(value):
        return _SPACES.sub(" ", value).strip()
    if len(value) > MAX_DECODED:
        return _SPACES.sub(" ", _MARKUP.sub("", value)).strip()
    try:
        converter, parsing = _converter()
        text = converter.latex_to_text(value, latex_context=parsing, tolerant_parsing=True)
    except Exception:  # malformed LaTeX must never break a caller
        text = _MARKUP.sub("", value)
    return _SPACES.sub(" ", text).strip()
