"""The BibTeX reader's limits, standard macros and compiled regular expressions."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

#: The most text (in characters) macros may bring into one definition or value.  Each
#: ``@string`` can double the one before it, so without a bound 40 short lines expand to
#: terabytes; a definition or value whose macros would bring more is an error on its entry.
#: Literal text does not count: the size of the file bounds it.
MAX_EXPANSION = 100_000
#: How many ``@string`` macros may be defined in terms of one another, one inside the next.
MAX_STRING_DEPTH = 32

#: The macros every BibTeX style defines.
MONTH_MACROS: Mapping[str, str] = MappingProxyType(
    {
        "jan": "January",
        "feb": "February",
        "mar": "March",
        "apr": "April",
        "may": "May",
        "jun": "June",
        "jul": "July",
        "aug": "August",
        "sep": "September",
        "oct": "October",
        "nov": "November",
        "dec": "December",
    }
)

# ---------------------------------------------------------------------------------------
# Regular expressions
# ---------------------------------------------------------------------------------------

_ID = r"[^\s\"#%'(),={}@\\]"
_MAC = r"[^\s\"#%'(),={}@\\\d]" + _ID + "*"
_BR_IN = r"[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*"
_QU_IN = r'[^"{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^"{}]*)*'
_BRACED = r"\{(" + _BR_IN + r")\}"
_QUOTED = r'"(' + _QU_IN + r')"'
_GAP = r"\s*+(?:%[^\n]*+\s*+)*+"  # white space, %-comment lines (possessive: never half a comment)
_ATOM = r"(?:\{" + _BR_IN + r"\}|\"" + _QU_IN + r"\"|\d+|" + _MAC + ")"
# What follows the first part of a '#' concatenation ("" for a plain value).
_MORE = r"((?:\s*+#\s*+" + _ATOM + r")*)"
# The parts of that tail, one row each: (braced, quoted, number, macro).
_PARTS = re.compile(r"\{(" + _BR_IN + r")\}|\"(" + _QU_IN + r")\"|(\d+)|(" + _MAC + ")")

#: BibTeX and biber skip any white space between "@" and the type, line breaks included
_BLOCK = re.compile(r"@\s*([A-Za-z_][\w\-.:+]*)\s*([{(])?")
# The usual start of an entry, "@type{key,", in one match (the fast lane of the scanner).
_HEAD = re.compile(r"@[ \t]*([A-Za-z_][\w\-.:+]*)\s*\{\s*([^\s,{}=]+)\s*,")
_SPECIAL = frozenset({"comment", "preamble", "string"})
_KEY_BRACE = re.compile(r"\s*([^\s,{}=]*)\s*")
_KEY_PAREN = re.compile(r"\s*([^\s,{}()=]*)\s*")
#: a key with "=" in it (``@misc{a=b,``), which BibTeX reads as the key
_KEY_WITH_EQUALS = re.compile(r"([^\s,{}()=]*=[^\s,{}()]*)\s*,")
# One pass over an entry body, from after "key," up to the next line starting with '@':
# fields (name, braced, quoted, number, macro, concatenation tail, comma), the closing brace with the space
# before it and what follows it (gap, close, tail), or the first character that fits
# neither (bad), or (an empty row) white space of a gap that runs to the end.
_ROWS = re.compile(
    "(?:"
    + _GAP
    # a name starts where a run of name characters starts: tried inside a long run (after
    # a character that fits nothing), it would scan the rest of the run from every place
    + r"(?<!"
    + _ID
    + ")("
    + _ID
    + r"+)\s*=\s*(?:"
    + _BRACED
    + "|"
    + _QUOTED
    + r"|(\d+)|("
    + _MAC
    + r"))"
    + _MORE
    + r"\s*(,?)|("
    + _GAP
    + r")(\})((?s:.*))|"
    + _GAP
    # ... or, where the rest is white space and comments (every other branch failed after
    # reading it all), the white space up to a comment's "%" or the end: a row of empty
    # groups, dropped by the reader (:data:`EMPTY_ROW`), so that each place is read once and
    # the comment's text is read after it as before
    + r"(\S)|(?=[\s%])\s*+(?:%|\Z))"
)
#: The row of the last branch of ``_ROWS``.
EMPTY_ROW = ("",) * _ROWS.groups
# Same, with positions wanted (materialising the fields of one entry).
_ROW_POS = re.compile(
    _GAP
    + "("
    + _ID
    + r"+)\s*=\s*(?:\{("
    + _BR_IN
    + r")\}|\"("
    + _QU_IN
    + r")\"|(\d+|"
    + _MAC
    + r"))"
    + _MORE
    + r"\s*,?"
)
_GAP_RE = re.compile(_GAP)
_NAME = re.compile(_ID + "+")
_NAME_EQ = re.compile(_ID + r"+\s*=")
_SPACE = re.compile(r"\s*")
_NUMBER = re.compile(r"\d+")
_MACRO = re.compile(_MAC)
_BRACE = re.compile(r"[{}]")
_QUOTE_OR_BRACE = re.compile(r'["{}]')
_LINE_BLOCK = re.compile(r"^[ \t]*@[A-Za-z_][\w\-.:+]*[ \t]*[{(]", re.M)
# The same two searches led by a literal newline, which the regex engine scans for quickly.
_NL_AT = re.compile(r"\n[ \t]*@")
_NL_BLOCK = re.compile(r"\n[ \t]*@[A-Za-z_][\w\-.:+]*[ \t]*[{(]")
_STRING_BLOCK = re.compile(r"@[ \t]*string\s*[{(]", re.I)
_IGNORE = re.compile(r"[ \t]*%+[ \t]*citewarden:[ \t]*ignore\b", re.I)
_SWALLOWED = re.compile(r"\n[ \t]*" + _ID + r"+[ \t]*=")
#: (a separator and its white space are one optional group: ``[ \t]*[,;]?[ \t]*`` tried
#: every split of a long run of spaces)
_FIELD_AFTER_CLOSE = re.compile(r"[ \t]*(?:[,;][ \t]*)?" + _ID + r"+[ \t]*=")

# Field record layout in the flat list the slow path builds (absolute offsets).
_F_NAME, _F_NS, _F_NE, _F_VALUE, _F_VS, _F_VE, _F_EXP = range(7)
_F_WIDTH = 7
