"""Lazy LaTeX -> Unicode decoding of single bibliography field values.

Decoding a whole library up front is far slower than reading it, and most values are never
shown or compared, so callers decode one value at a time, when they need it (verification
normalises only the fields it compares).  Results are memoised per value.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pylatexenc.latex2text import LatexNodes2Text

_PLAIN = re.compile(r"[^\\{}$~%&_^-]*")
_SPACES = re.compile(r"[ \t\r\n]+")
_MARKUP = re.compile(r"\\[A-Za-z]+\*?|[{}\\$]")

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


#: The longest value given to pylatexenc (about 20 µs a token): a longer one (no real field
#: is; a broken or hostile source's record can be) has its markup stripped instead.
MAX_DECODED = 20_000


@lru_cache(maxsize=1)
def _converter() -> LatexNodes2Text:
    # imported on first use: most values never need the full decoder
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    context = get_default_latex_context_db()
    logos = [MacroTextSpec(name, simplify_repl=text) for name, text in LOGOS.items()]
    context.add_context_category("citewarden-logos", macros=logos, prepend=True)
    return LatexNodes2Text(latex_context=context, math_mode="text", strict_latex_spaces=False)


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
        text = _converter().latex_to_text(value)
    except Exception:  # malformed LaTeX must never break a caller
        text = _MARKUP.sub("", value)
    return _SPACES.sub(" ", text).strip()
