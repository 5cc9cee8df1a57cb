"""What a citation command typesets of the work it cites, read from its entry (pure): the
authors' surnames (``Smith``, ``Smith and Jones``, ``Smith et al.``), the year and the
title, shown in a citing sentence where the rendered document shows them (``\\citet{a}
showed`` reads ``Smith et al. showed``).  The relevance score never reads them: the cited
work's own names in its sentence would make it fit by itself."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from citewarden.model import Entry
from citewarden.parsing.latex_decode import decode_latex

#: What separates the names of a BibTeX name list (`` and ``).
_NAMES = re.compile(r"(?<!\s)\s+and\s+")
_COMMA = re.compile(",")
_WHITE = re.compile(r"[\s~]+")
#: A word's first letter outside braces, or a special character's (``{\\'e}``, ``{\\relax
#: Ch}``: the first letter after its command's name)
_CASE = re.compile(r"\{\\(?:[A-Za-z]+|.)[^A-Za-z{}]*([A-Za-z])|\{[^{}]*\}|([^\W\d_])")
_YEAR = re.compile(r"\d{4}")
#: The longest name, year or title shown (characters).
MAX_NAMED = 200


@dataclass(frozen=True, slots=True)
class Named:
    """What citation commands typeset of one entry's work (empty when the entry lacks it)."""

    authors: str
    year: str
    title: str
    #: every author's surname (natbib's ``\\citet*``, ``\\citeauthor*``)
    all_authors: str = ""
    #: ``authors`` without the surnames' particles (``Berg`` for ``van der Berg``), as
    #: pandoc's ``@a`` shows them from pandoc 3.8 on (see :func:`pandoc_authors`)
    bare_authors: str = ""
    #: the surnames without their particles as biblatex's ``\\textcite`` shows them (its
    #: default ``maxcitenames=3``): up to three (``Lee, Kim, and Park``), else the first and
    #: ``et al.``, a list cut with ``and others`` as natbib's ``\\citet*`` does
    biblatex_authors: str = ""
    #: the surnames without their particles as pandoc's ``@a`` shows them before 3.8: up to
    #: three (``Lee, Kim, and Park``), else the first and ``et al.``, a list cut with ``and
    #: others`` as natbib's ``\\citet*`` does when it holds two names or one
    bare_three_authors: str = ""


#: The first pandoc whose default style is the Chicago author-date 18th edition's, which
#: shows the first name of three and ``et al.`` (its ``default.csl`` of 2 September 2025);
#: the 17th edition's, before it, shows three names and cuts four.
PANDOC_CMOS_18 = (3, 8)


def pandoc_authors(named: Named, pandoc: tuple[int, ...] | None) -> str:
    """What pandoc ``pandoc`` (None: not known, read as pandoc 3 before 3.8, the pandoc
    Quarto and RStudio ship) shows of ``named``'s authors for ``@a``."""
    if pandoc is not None and pandoc >= PANDOC_CMOS_18:
        return named.bare_authors or named.authors
    return named.bare_three_authors or named.authors


def plain_field(value: str | None) -> str:
    """A field's value as plain text (accents decoded, braces and commands gone)."""
    return decode_latex(value) if value else ""


def _top_level(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``text`` split at the matches of ``pattern`` outside braces."""
    depth, cuts = 0, [0]
    outside = bytearray(len(text))  # 1 where the character is outside every brace
    for i, ch in enumerate(text):
        depth = depth + 1 if ch == "{" else max(0, depth - 1) if ch == "}" else depth
        outside[i] = depth == 0 and ch != "}"
    for m in pattern.finditer(text):
        if outside[m.start()] and m.start() >= cuts[-1]:
            cuts += (m.start(), m.end())
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts[::2], cuts[1::2], strict=True)]


def _lower(word: str) -> bool:
    """Whether BibTeX reads ``word`` of a name as a particle (``van``, ``{\\'e}tienne``):
    its first letter outside braces, or a special character's, is a lower-case one."""
    for m in _CASE.finditer(word):
        letter = m.group(1) or m.group(2)
        if letter:
            return letter.islower()
    return False


def _family(name: str, whole: bool, particles: bool) -> str:
    """The surname of one BibTeX name: the part before its first comma (``von Last``), else
    (``First von Last``) from its first particle on (``Jan van der Berg``: ``van der
    Berg``), else its last word; without ``particles``, those after its last particle
    (``Berg``); with ``whole``, a name without a comma whole and particles kept."""
    parts = _top_level(name, _COMMA)
    comma = len(parts) > 1
    if whole or (comma and particles):
        return parts[0]
    words = [w for w in _top_level(parts[0], _WHITE) if w]
    lower = [i for i, w in enumerate(words[:-1]) if _lower(w)]  # the particles' words
    if not lower:
        return parts[0] if comma else words[-1] if words else ""
    return " ".join(words[lower[0] if particles else lower[-1] + 1 :])


def surnames(authors: str | None, whole: bool = False, particles: bool = True) -> tuple[str, ...]:
    """The family names of a BibTeX name list as natbib shows them (:func:`_family`), braces
    kept together (``{World Health Organization}`` is one name); without ``particles``, as
    biblatex and pandoc show them (``Berg`` for ``Jan van der Berg`` and ``van der Berg,
    Jan``); with ``whole``, a name without a comma is read whole (a CSL item's ``literal``
    name), its particles kept (a CSL family name holds the ones shown)."""
    names: list[str] = []
    for name in _top_level((authors or "").strip(), _NAMES):
        name = name.strip()
        if not name or name.lower() == "others":
            continue
        if plain := plain_field(_family(name, whole, particles).strip()):
            names.append(plain)
    return tuple(names)


def entry_surnames(entry: Entry, field: str = "author", particles: bool = True) -> tuple[str, ...]:
    """The family names of ``entry``'s ``field``: a CSL item's names come as ``family,
    given`` or whole (``literal: World Health Organization``, a family name alone), never
    as BibTeX's ``Given Family``; ``particles``: see :func:`surnames`."""
    return surnames(entry.get(field), entry.csl_type is not None, particles)


def _clean(text: str) -> str:
    """``text`` on one line, without control characters, at most :data:`MAX_NAMED` long."""
    text = "".join(" " if unicodedata.category(c)[0] == "C" else c for c in text)
    text = " ".join(text.split())
    return text if len(text) <= MAX_NAMED else text[:MAX_NAMED].rsplit(" ", 1)[0] + " ..."


def _authors(names: Sequence[str], truncated: bool) -> str:
    """The names as an author-year style shows them in the text: one, two joined by
    ``and``, the first and ``et al.`` for three or more (or a list cut with ``and others``)."""
    if not names:
        return ""
    if len(names) > 2 or (truncated and len(names) > 0):
        return f"{names[0]} et al."
    return " and ".join(names)


def _all_authors(names: Sequence[str], truncated: bool) -> str:
    """Every name, as natbib's starred commands list them (``Smith, Jones, and Lee``; a list
    cut with ``and others``: ``Smith et al.``, ``Smith, Jones, et al.``)."""
    if truncated and names:
        return f"{', '.join(names)}{',' if len(names) > 1 else ''} et al."
    if len(names) <= 2:
        return " and ".join(names)
    return f"{', '.join(names[:-1])}, and {names[-1]}"


def _pandoc_three(names: Sequence[str], truncated: bool) -> str:
    """The names as the Chicago author-date 17th edition shows them in the text: up to
    three all (``Lee, Kim, and Park``), else the first and ``et al.``; ``others`` counts
    as a name (``Smith, Jones, et al.``, but the first and ``et al.`` for three and
    ``others``)."""
    if names and len(names) + truncated > 3:
        return f"{names[0]} et al."
    return _all_authors(names, truncated)


def _people(entry: Entry) -> tuple[str, bool]:
    """The field naming ``entry``'s work (its authors, else its editors) and whether its
    list is cut with ``and others``."""
    field = "author" if entry.get("author") else "editor"
    people = entry.get(field) or ""
    return field, bool(re.search(r"\band\s+others\s*$", people.strip()))


def short_authors(entry: Entry) -> str:
    """``Doe``, ``Doe and Roe`` or ``Doe et al.``: the surnames of ``entry``'s authors (else
    editors) as an author-year style shows them in the text, a braced or literal name
    whole (``Food and Agriculture Organization``); empty when it has none."""
    field, truncated = _people(entry)
    return _clean(_authors(entry_surnames(entry, field), truncated))


def named_works(entries: Iterable[Entry]) -> dict[str, Named]:
    """key -> what citation commands typeset of its entry's work (the first entry of a key)."""
    out: dict[str, Named] = {}
    for entry in entries:
        if entry.key in out:
            continue
        field, truncated = _people(entry)
        year = entry.get("year") or ""
        if not year.strip():
            found = _YEAR.search(entry.get("date") or "")
            year = found.group() if found else ""
        families = entry_surnames(entry, field)
        bare = entry_surnames(entry, field, particles=False)
        out[entry.key] = Named(
            _clean(_authors(families, truncated)),
            _clean(plain_field(year)),
            _clean(plain_field(entry.get("title"))),
            _clean(_all_authors(families, truncated)),
            _clean(_authors(bare, truncated)),
            _clean(_all_authors(bare, truncated) if len(bare) <= 3 else f"{bare[0]} et al."),
            _clean(_pandoc_three(bare, truncated)),
        )
    return out
