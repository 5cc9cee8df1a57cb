"""A document's own words commands: ``\\newcommand{\\Coq}{\\textsc{Coq}\\xspace}`` typesets
``Coq`` wherever ``\\Coq`` stands, so a citing sentence shows it there (pure).

Only a command without parameters whose body is text is read: a body with a parameter
(``#1``), math (``$``, ``\\ensuremath``, ``\\math...``, ``^``, ``_``) or nothing but layout
(``\\bfseries``) is left out, and such a command shows nothing, as any other command.
Definitions are read from ``\\newcommand``, ``\\renewcommand``, ``\\providecommand``,
``\\DeclareRobustCommand`` and ``\\def`` (``\\gdef``, ``\\edef``, ``\\xdef``) outside
comments; a later one of the same name wins, as in TeX.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache

from citewarden.context.latex_text import latex_plain

_BODY = r"\{((?:[^{}#\n]|\{[^{}#\n]{0,100}\}){0,200})\}"
_DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*"
    r"(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))\s*"
    + _BODY
    + r"|\\[gex]?def\s*\\([A-Za-z@]+)\s*"
    + _BODY
)
_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
#: a body that is math: no text of a sentence
_MATH = re.compile(r"[$^_]|\\(?:ensuremath|math[A-Za-z]*|operatorname|text(?:super|sub)script)\b")
_WORD = re.compile(r"[^\W\d_]")  # a letter: a number or a length is no word


@dataclass(frozen=True, slots=True)
class Macros:
    """The text each words command of a document typesets, and the pattern of their uses."""

    texts: Mapping[str, str]
    uses: re.Pattern[str]

    def expand(self, text: str) -> str:
        """``text`` with each use of a words command (``\\Coq``, ``\\Coq{}``) replaced by
        the text it typesets."""
        if "\\" not in text:
            return text
        return self.uses.sub(lambda m: self.texts[m.group(1)], text)


def definitions(text: str) -> dict[str, str]:
    """name -> text of every words command ``text`` defines (see the module doc)."""
    if "def" not in text and "command" not in text:
        return {}
    found: dict[str, str] = {}
    for m in _DEFINITION.finditer(_COMMENT.sub("", text)):
        name = m.group(1) or m.group(2) or m.group(4)
        body = m.group(3) if m.group(3) is not None else m.group(5)
        if _MATH.search(body):
            found.pop(name, None)
            continue
        words = " ".join(latex_plain(body).split())
        if _WORD.search(words):
            found[name] = words
        else:
            found.pop(name, None)
    return found


def macros_of(texts: Iterable[str]) -> Macros | None:
    """The words commands that ``texts`` define, in order (None when there are none); each
    text's definitions are kept for the next call (a hover reads the project's files again)."""
    found: dict[str, str] = {}
    for text in texts:
        found.update(_definitions_kept(text))
    return _macros(tuple(sorted(found.items())))


@lru_cache(maxsize=64)
def _definitions_kept(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(definitions(text).items())


@lru_cache(maxsize=8)
def _macros(items: tuple[tuple[str, str], ...]) -> Macros | None:
    if not items:
        return None
    names = "|".join(re.escape(name) for name, _ in sorted(items, key=lambda i: -len(i[0])))
    uses = re.compile(r"\\(" + names + r")(?![A-Za-z@])\*?(?:\{\})?")
    return Macros(dict(items), uses)


@lru_cache(maxsize=4)
def document_macros(text: str) -> Macros | None:
    """:func:`macros_of` one document's text, kept for the next citation's sentence."""
    return macros_of((text,))
