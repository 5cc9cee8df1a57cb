"""Field values as plain, comparable text: LaTeX decoded, markup stripped, folded (pure)."""

from __future__ import annotations

import html
import re
import unicodedata
from functools import lru_cache

from citewarden.model import Entry
from citewarden.parsing.latex_decode import ACCENTS, decode_latex

_LATEX_TRIGGERS = ("\\", "$", "~")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:.-]*(?:\s[^<>]*)?/?>")
_SPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^\w]+")
_GREEK_NAMES = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ϵ": "epsilon",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "π": "pi",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "ϕ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "θ": "theta",
    "η": "eta",
    "ζ": "zeta",
    "ξ": "xi",
    "ρ": "rho",
    "ν": "nu",
}


_GREEK_TABLE = str.maketrans(_GREEK_NAMES)
_LETTER_TABLE = str.maketrans(
    {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ı": "i"}
)


_SYMBOL_ACCENT = re.compile(
    r"""\\(["'`^~=.])\s*(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"""
)
_LETTER_ACCENT = re.compile(r"\\([uvHckr])(?:\s*\{\s*(\\[ij]|[A-Za-z])\s*\}|\s+([A-Za-z]))")
_LETTERS = {
    "o": "ø",
    "O": "Ø",
    "aa": "å",
    "AA": "Å",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "l": "ł",
    "L": "Ł",
    "ss": "ß",
    "i": "ı",
    "j": "ȷ",
}
_LETTER_MACRO = re.compile(r"\\(aa|AA|ae|AE|oe|OE|ss|o|O|l|L|i|j)(?![A-Za-z])(?:\{\})?\s?")
_ESCAPES = re.compile(r"\\([&%_$#{}])")


def _accent(mark: str, base: str) -> str:
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + ACCENTS[mark])


def _fast_latex(value: str) -> str | None:
    """Decode the markup bibliographies mostly hold (accents, special letters, escapes)
    without the full parser; None when anything else remains."""
    text = _SYMBOL_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), value)
    text = _LETTER_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LETTER_MACRO.sub(lambda m: _LETTERS[m.group(1)], text)
    text = _ESCAPES.sub(lambda m: "\x00" + m.group(1), text)
    if "\\" in text or "$" in text:
        return None
    text = text.replace("{", "").replace("}", "").replace("~", " ").replace("\x00", "")
    return text


@lru_cache(maxsize=65536)
def latex_to_text(value: str) -> str:
    """Decode LaTeX markup in one field value to Unicode and drop grouping braces.

    Plain values (no backslash, ``$`` or ``~``) skip the decoder entirely; accents and
    special letters are decoded directly; anything else (TeX logos included) goes through
    :func:`citewarden.parsing.latex_decode.decode_latex`.
    """
    fast = None
    if not any(t in value for t in _LATEX_TRIGGERS):
        text = value.replace("{", "").replace("}", "")
    elif (fast := _fast_latex(value)) is not None:
        text = fast
    else:
        # the decoder keeps an escaped brace it cannot pair (``\{\``): drop it, as the
        # other two paths drop every brace
        text = decode_latex(value).replace("{", "").replace("}", "")
    text = text.replace("\u00a0", " ")
    return _SPACE.sub(" ", text).strip()


def strip_markup(value: str) -> str:
    """Remove HTML/JATS/MathML tags that services put into titles."""
    if "<" not in value and "&" not in value:
        return value
    return html.unescape(_HTML_TAG.sub("", value))


@lru_cache(maxsize=65536)
def fold(value: str) -> str:
    """Comparison key for free text: NFKC, case-folded, diacritics and punctuation removed."""
    if value.isascii():
        text = value.casefold().replace("&", " and ")
    else:
        text = unicodedata.normalize("NFKC", value).casefold()
        text = text.translate(_GREEK_TABLE).replace("&", " and ")
        text = text.translate(_LETTER_TABLE)
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = _NON_WORD.sub(" ", text.replace("_", " "))
    return _SPACE.sub(" ", text).strip()


def field_text(entry: Entry, *names: str) -> str | None:
    """The decoded text of the first present, non-empty field among ``names``."""
    for name in names:
        raw = entry.get(name)
        if raw is not None and raw.strip():
            return latex_to_text(raw)
    return None
