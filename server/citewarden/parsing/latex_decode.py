"""Lazy LaTeX -> Unicode decoding of single bibliography field values.

Decoding a whole library up front is far slower than reading it, and most values are never
shown or compared, so callers decode one value at a time, when they need it (verification
normalises only the fields it compares).  Results are memoised per value.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc.latex2text import LatexNodes2Text

_PLAIN = re.compile(r"[^\\{}$~%&_^-]*")
_SPACES = re.compile(r"[ \t\r\n]+")


@lru_cache(maxsize=1)
def _converter() -> LatexNodes2Text:
    return LatexNodes2Text(math_mode="text", strict_latex_spaces=False)


@lru_cache(maxsize=65536)
def decode_latex(value: str) -> str:
    """Turn one raw field value into plain Unicode text.

    Accents and symbols become characters (``{\\'e}`` -> ``é``), grouping braces are removed,
    ``--``/``---`` become en/em dashes, ``~`` a no-break space; runs of white space collapse
    to one space.  A value that pylatexenc cannot read is returned with braces stripped.
    """
    if _PLAIN.fullmatch(value):
        return _SPACES.sub(" ", value).strip()
    try:
        text = _converter().latex_to_text(value)
    except Exception:  # malformed LaTeX must never break a caller
        text = value.replace("{", "").replace("}", "")
    return _SPACES.sub(" ", text).strip()
