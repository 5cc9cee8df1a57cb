"""Author lists: BibTeX name parsing (von / last / jr / first), et al., placeholders (pure)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from citewarden.verify.plain_text import fold, latex_to_text

#: " and " between names; it starts where a run of white space starts (and takes all of
#: it), so a long run is not scanned again from each of its places
_AND = re.compile(r"(?<!\s)\s++and\s+", re.IGNORECASE)
_ETAL = re.compile(r"^(?:et\.?\s*al\.?|others|and others|u\.\s*a\.)$", re.IGNORECASE)
#: "et al." ending a name (no leading whitespace in the pattern: searched on a text with
#: a long run of spaces, ``\s*,?\s*`` would try every split of it at every start)
_TRAILING_ETAL = re.compile(r"\bet\.?\s*al\.?$", re.IGNORECASE)
_VON_WORD = re.compile(r"^[a-zà-ÿ]")
_COMMA = re.compile(r",")


@dataclass(frozen=True, slots=True)
class Author:
    """One author as written, with a surname key for matching."""

    raw: str
    family: str  # decoded, without von particles
    given: str
    von: str = ""
    corporate: bool = False
    #: the "Jr" part of ``von Last, Jr, First`` (decoded)
    jr: str = ""

    @property
    def key(self) -> str:
        return surname_key(self.family)

    def display(self) -> str:
        family = f"{self.von} {self.family}".strip()
        return f"{family}, {self.given}" if self.given else family


#: Generational suffixes written after a surname ("Steele Jr.", "Smith III"), folded.
_SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "2nd", "3rd"})


def is_name_suffix(word: str) -> bool:
    """Is ``word`` a generational suffix (``Jr.``, ``Sr``, ``III``)?"""
    return word.strip().rstrip(".").lower() in _SUFFIXES


def split_suffix(family: str) -> tuple[str, str]:
    """``("Steele", "Jr.")`` for a surname written with its generational suffix
    (``"Steele Jr."``: display names and BibTeX's ``Steele Jr., Guy L.``); ``(family, "")``
    for one without."""
    head, _, last = family.rstrip().rpartition(" ")
    if head.strip() and is_name_suffix(last):
        return head.rstrip(), last
    return family, ""


#: What BibTeX and biber read in a name list as the end of a name (``and`` between spaces)
#: or of a name part (a comma), when outside braces.
_NAME_BREAK = re.compile(r",|(?:^|\s)and(?:\s|$)", re.IGNORECASE)


def _name_part(part: str) -> str:
    """``part`` of a name, braced when it holds a comma or an "and" that BibTeX and biber
    would read as the end of the part or of the name (``{García, Márquez}``)."""
    return "{" + part + "}" if _NAME_BREAK.search(part) else part


def bibtex_name(family: str, given: str) -> str:
    """A person as one BibTeX name: ``Family, Given``; ``Family, Jr., Given`` with a
    generational suffix; ``{Family}`` alone (an organisation, braced so that BibTeX neither
    splits it at an "and" nor reads its last word as a surname).  A part holding a comma
    or an "and" is braced, so that it stays one part of one name."""
    if not given:
        return "{" + family + "}"
    base, suffix = split_suffix(family)
    if suffix:  # ("Smith, Jr." is the surname Smith too)
        return f"{_name_part(base.rstrip(' ,'))}, {suffix}, {_name_part(given)}"
    return f"{_name_part(family)}, {_name_part(given)}"


def surname_key(family: str) -> str:
    """A surname folded for matching: no diacritics, hyphens, spaces or generational
    suffix ("Steele Jr." is "steele")."""
    return fold(split_suffix(family)[0]).replace(" ", "")


def _split_top_level(value: str, sep: re.Pattern[str]) -> list[str]:
    """Split on ``sep`` outside braces."""
    if "{" not in value:
        return [p.strip() for p in sep.split(value)]
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = sep.match(value, i)
            if m and m.end() > m.start():
                parts.append(value[start:i])
                start = m.end()
                i = m.end()
                continue
        i += 1
    parts.append(value[start:])
    return [p.strip() for p in parts]


def comma_form(raw: str) -> bool:
    """Is the BibTeX name ``raw`` written ``Last, First`` (a comma outside braces)?"""
    return len(_split_top_level(raw, _COMMA)) > 1


def _tokens(value: str) -> list[str]:
    return [t for t in _split_top_level(value, re.compile(r"\s+")) if t]


def _is_von(token: str) -> bool:
    text = latex_to_text(token)
    return bool(text) and not token.startswith("{") and bool(_VON_WORD.match(text))


def parse_author(raw: str) -> Author:
    """Parse one BibTeX name: ``First von Last``, ``von Last, First``, ``von Last, Jr, First``."""
    raw = raw.strip()
    if raw.startswith("{") and raw.endswith("}") and _balanced_outer(raw):
        return Author(raw, latex_to_text(raw[1:-1]), "", corporate=True)
    parts = _split_top_level(raw, _COMMA)
    if len(parts) >= 2:
        last_tokens = _tokens(parts[0])
        given = parts[-1] if len(parts) == 2 else parts[2]
        von_tokens: list[str] = []
        while len(last_tokens) > 1 and _is_von(last_tokens[0]):
            von_tokens.append(last_tokens.pop(0))
        return Author(
            raw,
            latex_to_text(" ".join(last_tokens)),
            latex_to_text(given),
            latex_to_text(" ".join(von_tokens)),
            jr=latex_to_text(parts[1]) if len(parts) > 2 else "",
        )
    tokens = _tokens(raw)
    if len(tokens) <= 1:
        return Author(raw, latex_to_text(raw), "")
    # First von Last: 'von' starts at the first lower-case word after the first token.
    von_start = next((i for i in range(1, len(tokens) - 1) if _is_von(tokens[i])), None)
    if von_start is not None:
        von_end = von_start
        while von_end < len(tokens) - 1 and _is_von(tokens[von_end]):
            von_end += 1
        return Author(
            raw,
            latex_to_text(" ".join(tokens[von_end:])),
            latex_to_text(" ".join(tokens[:von_start])),
            latex_to_text(" ".join(tokens[von_start:von_end])),
        )
    return Author(raw, latex_to_text(tokens[-1]), latex_to_text(" ".join(tokens[:-1])))


def _balanced_outer(value: str) -> bool:
    depth = 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and i != len(value) - 1:
                return False
    return depth == 0


def _without_trailing_etal(part: str) -> str:
    """``part`` without a final "et al." and the comma and spaces before it."""
    body = part.rstrip()
    m = _TRAILING_ETAL.search(body)
    if m is None:
        return part
    head = body[: m.start()].rstrip()
    return head[:-1].rstrip() if head.endswith(",") else head


def split_authors(value: str) -> tuple[tuple[Author, ...], bool]:
    """Split an author field on top-level ``and``; returns (authors, truncated).

    ``and others`` / ``et al.`` mark an explicitly truncated list.
    """
    truncated = False
    authors: list[Author] = []
    for part in _split_top_level(value.strip(), _AND):
        if not part:
            continue
        text = latex_to_text(part)
        if _ETAL.match(text):
            truncated = True
            continue
        stripped = _without_trailing_etal(part)
        if stripped != part:
            truncated = True
            part = stripped
            if not part.strip():
                continue
        authors.append(parse_author(part))
    return tuple(authors), truncated


def csl_names(value: str) -> list[dict[str, str]]:
    """An author or editor field (BibTeX text) as CSL name objects: ``family`` and
    ``given`` (a particle as ``non-dropping-particle``, a generational suffix as
    ``suffix``), a ``literal`` for an organisation or a name without given names, and
    ``{"literal": "others"}`` for a list written as truncated."""
    authors, truncated = split_authors(value)
    out: list[dict[str, str]] = []
    for a in authors:
        if a.corporate or not a.given:
            out.append({"literal": a.family if a.corporate else a.display()})
            continue
        family, suffix = (a.family, a.jr) if a.jr else split_suffix(a.family)
        name = {"family": family, "given": a.given}
        if a.von:
            name["non-dropping-particle"] = a.von
        if suffix:
            name["suffix"] = suffix
        out.append(name)
    if truncated:
        out.append({"literal": "others"})
    return out


_PLACEHOLDER_FAMILIES = frozenset(
    {
        "author",
        "authors",
        "lastname",
        "surname",
        "familyname",
        "doe",
        "placeholder",
        "unknown",
        "tbd",
        "todo",
        "xxx",
        "name",
        "someone",
        "others",
    }
)
_PLACEHOLDER_GIVEN = frozenset({"firstname", "first", "given", "givenname", "author"})


def is_placeholder(author: Author) -> bool:
    """Names that stand in for real authors: "Doe, John", "Author, A.", "Lastname, Firstname",
    "Author1"."""
    if author.corporate:
        return fold(author.family) in {"author", "authors", "unknown", "placeholder"}
    family = surname_key(author.family)
    given = fold(author.given).replace(" ", "")
    if re.fullmatch(r"author\d*|name\d+|person\d+", family):
        return True
    if family in _PLACEHOLDER_FAMILIES:
        return family != "doe" or given in {"john", "jane", "j", "jd", "johnq", "janeq", ""}
    return given in _PLACEHOLDER_GIVEN and family in {"last", "lastname", "surname", "family"}
