"""The venue registry: real venues (acronyms, official and past names, the year each began)
and the comparison of venue names (pure).

One table (:data:`citewarden.verify.venue_table.BUNDLED`) lists venues that bibliographies
cite often; the names sources give for a work's venue (dblp's venue and stream, OpenAlex's
source, Semantic Scholar's venue and publicationVenue, Crossref's container titles) are the
other half of what is known (:func:`is_known`).  :func:`venue_search_text` gives the words
to ask the venue searches for a venue neither knows.  Venue names are compared through :func:`venue_agrees`, which accepts
acronyms, abbreviations (``Phys. Rev. Lett.``), proceedings prefixes and the aliases the
registry gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from citewarden.verify.normalize import fold
from citewarden.verify.venue_table import BUNDLED, Venue, VenueKind


def _build_aliases(venues: Iterable[Venue]) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for v in venues:
        key = fold(v.acronym)
        if " " in key:
            continue
        others = tuple(fold(n) for n in v.names if fold(n) != key)
        out[key] = others
        for name in v.names:
            alt = fold(name)
            if " " not in alt and alt != key:
                out[alt] = (*others, key)
    return out


#: Acronym -> the names it stands for (folded), from the registry.
VENUE_ALIASES: Mapping[str, tuple[str, ...]] = _build_aliases(BUNDLED)


def _build_first_years(venues: Iterable[Venue]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in venues:
        if v.first_year is None:
            continue
        for name in (v.acronym, *v.names):
            out[fold(name)] = v.first_year
    return out


#: First year of each venue, by folded acronym and name.
VENUE_FIRST_YEAR: Mapping[str, int] = _build_first_years(BUNDLED)


def _build_kinds(venues: Iterable[Venue]) -> dict[str, str]:
    out: dict[str, str] = {}
    for v in venues:
        for name in (v.acronym, *v.names):
            out.setdefault(fold(name), v.kind)
    return out


#: The kind of each venue of the registry (:class:`VenueKind`), by folded acronym and name.
VENUE_KINDS: Mapping[str, str] = _build_kinds(BUNDLED)
_EDITION = re.compile(r"^(?:proceedings of (?:the )?)?(?:\d+(?:st|nd|rd|th)? )?|(?: \d+)+$")


def registry_kind(name: str) -> str | None:
    """What the registry knows a venue name for: conference, journal or preprint (None
    when it does not list it).  A "Proceedings of the" prefix, an edition number and a
    trailing volume or year are read past: ``Advances in Neural Information Processing
    Systems 33`` is NeurIPS."""
    key = fold(name)
    return VENUE_KINDS.get(key) or VENUE_KINDS.get(_EDITION.sub("", key).strip())


def _compact(text: str) -> str:
    return text.replace(" ", "")


_STOP = frozenset(
    {"of", "the", "and", "on", "in", "for", "de", "la", "le", "der", "und", "a", "an", "to", "at"}
)
_GENERIC = frozenset(
    {
        "proceedings",
        "proc",
        "annual",
        "conference",
        "conf",
        "international",
        "int",
        "intl",
        "symposium",
        "symp",
        "workshop",
        "meeting",
        "track",
        "papers",
        "volume",
        "vol",
        "part",
    }
)


#: Words that say what kind of periodical a name is, none of them a name alone.
_KIND_WORDS = frozenset(
    {
        "journal",
        "letters",
        "transactions",
        "bulletin",
        "annals",
        "reports",
        "review",
        "reviews",
        "communications",
        "magazine",
        "series",
    }
)


def _abbrev_token(short: str, full: str) -> bool:
    if short == full:
        return True
    if not short or not full or short[0] != full[0] or len(short) > len(full):
        return False
    if full.startswith(short):
        return True
    # a contraction drops many letters ("Natl", "Mgmt"); one letter less is another word
    # ("ICML" is not "ICQML")
    if len(short) > 0.75 * len(full):
        return False
    it = iter(full)
    return all(ch in it for ch in short)


def abbreviation_of(short: str, full: str) -> bool:
    """Is ``short`` an abbreviation of ``full`` (``Phys. Rev. Lett.`` of ``Physical Review
    Letters``, ``Proc. Natl. Acad. Sci.`` of ...)?  Both are folded; every significant word of
    ``full`` must be accounted for, in order."""
    s_tokens = _initials_kept(fold(short).split())
    f_tokens = [t for t in fold(full).split() if t not in _STOP]
    if not s_tokens or not f_tokens:
        return False
    i = j = 0
    while j < len(f_tokens):
        if i < len(s_tokens) and _abbrev_token(s_tokens[i], f_tokens[j]):
            i, j = i + 1, j + 1
            continue
        # initials written as one word stand for as many words (USA)
        run = s_tokens[i] if i < len(s_tokens) else ""
        if 2 <= len(run) <= 4 and run.isalpha() and _initials_of(f_tokens[j : j + len(run)]) == run:
            i, j = i + 1, j + len(run)
            continue
        return False
    return i == len(s_tokens)


def _initials_kept(tokens: list[str]) -> list[str]:
    """``tokens`` without stop words, but for single letters in a run of them: initials
    (the "a" of "u s a" is America's)."""
    out = []
    for n, t in enumerate(tokens):
        single = len(t) == 1
        in_run = single and any(
            0 <= m < len(tokens) and len(tokens[m]) == 1 for m in (n - 1, n + 1)
        )
        if t not in _STOP or in_run:
            out.append(t)
    return out


def _initials_of(words: list[str]) -> str:
    return "".join(w[0] for w in words)


#: Spelled ordinals and numbers ("The Fourteenth International Conference ...").
_SPELLED_NUMBERS = frozenset(
    [
        "first",
        "second",
        "third",
        "fourth",
        "fifth",
        "sixth",
        "seventh",
        "eighth",
        "ninth",
        "tenth",
        "eleventh",
        "twelfth",
        "thirteenth",
        "fourteenth",
        "fifteenth",
        "sixteenth",
        "seventeenth",
        "eighteenth",
        "nineteenth",
        "twentieth",
        "thirtieth",
        "fortieth",
        "fiftieth",
        "sixtieth",
        "seventieth",
        "eightieth",
        "ninetieth",
        "hundredth",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "sixty",
        "seventy",
        "eighty",
        "ninety",
    ]
)
#: Organisations that prefix a venue's name without changing the venue ("IEEE/CVF ...").
_SPONSORS = frozenset({"ieee", "acm", "cvf", "usenix", "siam", "ifip", "rsj", "aaai"})


def _numeral(token: str) -> bool:
    return token in _SPELLED_NUMBERS or bool(
        re.fullmatch(r"\d+|\d+(?:st|nd|rd|th)|(?:19|20)\d\d", token)
    )


#: The leading parts of a name looked at (before the first separators): a venue's name, a
#: place, a date or a subtitle come first; a name split a thousand times is not a venue.
MAX_PARTS = 12


def _unparenthesised(text: str) -> str:
    """``text`` with each "(" up to the next ")" replaced by a space, in one pass."""
    out: list[str] = []
    at = 0
    while (start := text.find("(", at)) >= 0:
        end = text.find(")", start)
        if end < 0:
            break
        out += (text[at:start], " ")
        at = end + 1
    out.append(text[at:])
    return "".join(out)


def _core(text: str) -> list[str]:
    tokens = fold(_unparenthesised(text)).split()
    return [t for t in tokens if t not in _STOP and t not in _GENERIC and not _numeral(t)]


def _unsponsored(core: Sequence[str]) -> tuple[str, ...]:
    """A core without its sponsors and ACM SIG names ("ACM SIGSAC Conference on Computer
    and Communications Security" is dblp's "ACM Conference on ..."): the same venue."""
    return tuple(t for t in core if t not in _SPONSORS and not re.fullmatch(r"sig[a-z]{2,}", t))


def _head_cores(text: str) -> list[tuple[str, ...]]:
    """The cores of the name and of each of its leading parts before a comma, colon or
    semicolon (a place, a date or a subtitle that follows the venue's name), sponsors left
    out: ``International Conference on Machine Learning, Vienna`` gives the core of the
    whole and ``("machine", "learning")``."""
    parts = re.split(r"[,:;]", _unparenthesised(text), maxsplit=MAX_PARTS)[:MAX_PARTS]
    out = []
    for i in range(1, len(parts) + 1):
        core = tuple(t for t in _core(",".join(parts[:i])) if t not in _SPONSORS)
        if core:
            out.append(core)
    return out


def _acronyms(text: str) -> set[str]:
    """The acronyms of a venue name, with the workshops' form of an acronym followed by
    "Workshop(s)" ("CVPR Workshops" is also CVPRW)."""
    found = {w.lower() for w in _WORD.findall(text) if _acronym_like(w)}
    found |= {m.lower() + "w" for m in _BEFORE_WORKSHOP.findall(text) if _acronym_like(m)}
    return {a for a in found if 3 <= len(a) <= 10}


#: Whole words, and the word before "Workshop(s)": matched as runs and judged in
#: :func:`_acronym_like`, so that a long run of letters costs one pass (a pattern that
#: looks for capitals inside the word tries every split of it).
_WORD = re.compile(r"\w+")
_BEFORE_WORKSHOP = re.compile(r"\b(\w+)\s+(?i:workshops?)\b")


def _acronym_like(word: str) -> bool:
    """An ASCII word of letters with a capital first and another capital after it."""
    return (
        word.isascii()
        and word.isalpha()
        and word[0].isupper()
        and any(c.isupper() for c in word[1:])
    )


def _acronym_of(short: str, full: str) -> bool:
    """``IoTDI`` for "... Internet of Things Design and Implementation", ``ICML`` for
    "Proceedings of the 38th International Conference on Machine Learning": the letters of
    an acronym-like name are the initials of the other's words, in order, and every word
    they leave out is a generic one (proceedings, conference, of, 38th, IEEE...).  A word
    such as "Quantum" left out names another venue.  A sponsor before the acronym says
    nothing more ("IEEE TPAMI", "ACM TOG")."""
    words = short.split()
    while len(words) > 1 and fold(words[0]) in _SPONSORS:
        words = words[1:]
    text = " ".join(words).strip()
    if not (2 <= len(text) <= 10 and text.isalpha() and sum(c.isupper() for c in text) >= 2):
        return False
    if " " in text or len(full.split()) < 2:
        return False
    letters = text.lower()
    parts = re.split(r"[,:;]", _unparenthesised(full), maxsplit=MAX_PARTS)[:MAX_PARTS]
    for i in range(1, len(parts) + 1):
        words = fold(",".join(parts[:i])).split()
        if len(words) >= 2 and _initials_cover(letters, words):
            return True
    return False


def _skippable(word: str) -> bool:
    return word in _STOP or word in _GENERIC or word in _SPONSORS or _numeral(word)


def _initials_cover(letters: str, words: Sequence[str]) -> bool:
    """Can ``letters`` be spelled by the initials of ``words`` in order, skipping only
    generic words?"""
    reached = {0}  # how many letters the words so far can have spelled
    for word in words:
        skip = _skippable(word)
        reached = {
            k
            for i in reached
            for k in ((i + 1,) if i < len(letters) and word[0] == letters[i] else ())
            + ((i,) if skip else ())
        }
        if not reached:
            return False
    return len(letters) in reached


def _alias_hit(a: str, b: str) -> bool:
    """Does ``a`` (an acronym or single-word name of a registry venue) stand for ``b``?
    ``b`` must be one of the venue's names up to generic words (proceedings, ordinals,
    years, sponsors, a place after a comma); a name that adds a word of its own
    ("International Conference on Quantum Machine Learning") is another venue."""
    heads = _head_cores(b)
    fb = fold(b)
    for acro in _acronyms(a) | {fold(a)}:
        for phrase in VENUE_ALIASES.get(acro, ()):
            core = tuple(t for t in _core(phrase) if t not in _SPONSORS)
            if core and core in heads:
                return True
            if phrase in fb.split() or phrase == fb:
                return True
    return False


def _head_match(core: Sequence[str], other: str) -> bool:
    """Is ``core`` (three words or more) the core of a leading part of ``other``?"""
    bare = tuple(t for t in core if t not in _SPONSORS)
    return len(bare) >= 3 and bare in _head_cores(other)


def _leading_parts(text: str) -> set[str]:
    """The folded leading parts of a name before a subtitle separator (colon, comma,
    semicolon, parenthesis or a spaced dash): "Journal of X: Y" gives "journal of x".  A
    longer name without a separator ("... Computer Vision and Graphics") has none."""
    parts = re.split(r"[,:;(]|\s[-\u2013\u2014]\s", text, maxsplit=MAX_PARTS)
    return {fold(" ".join(parts[:i])) for i in range(1, min(len(parts), MAX_PARTS + 1))}


def venue_agrees(entry_venue: str, names: Sequence[str]) -> bool:
    """Does the .bib venue name one of the record's container names?"""
    return _venue_agrees(entry_venue, tuple(names))


@lru_cache(maxsize=16384)
def _venue_agrees(entry_venue: str, names: tuple[str, ...]) -> bool:
    fe = fold(entry_venue)
    if not fe:
        return True
    ce = _core(entry_venue)
    for name in names:
        fn = fold(name)
        if not fn:
            continue
        if _compact(fe) == _compact(fn):
            return True
        if abbreviation_of(entry_venue, name) or abbreviation_of(name, entry_venue):
            return True
        cn = _core(name)
        if ce and cn and (ce == cn or abbreviation_of(" ".join(ce), " ".join(cn))):
            return True
        if ce and cn and _unsponsored(ce) and _unsponsored(ce) == _unsponsored(cn):
            return True
        if ce and cn and abbreviation_of(" ".join(cn), " ".join(ce)):
            return True
        # a shared acronym, not a shared sponsor ("ACM", "IEEE" name many venues)
        if (_acronyms(entry_venue) & _acronyms(name)) - _SPONSORS:
            return True
        # the record's name with a subtitle the entry leaves out (or the other way round)
        shorter, longer = sorted((entry_venue, name), key=lambda t: len(fold(t)))
        if len(fold(shorter).split()) >= 3 and fold(shorter) in _leading_parts(longer):
            return True
        # ... a name of one or two words only before a colon, and not a generic one
        # ("Ambio" for "AMBIO: A Journal of the Human Environment"; not "Proceedings")
        if (
            ":" in longer
            and fold(shorter) == fold(longer.split(":", 1)[0])
            and set(_core(shorter)) - _KIND_WORDS
        ):
            return True
        # ... compared word for word, a parenthesised part left out ("Journal of the Royal
        # Statistical Society: Series B (Methodological)", Crossref's "... Series B:
        # Statistical Methodology", the journal's name since 2023)
        if _head_match(ce, name) or _head_match(cn, entry_venue):
            return True
        if _acronym_of(name, entry_venue) or _acronym_of(entry_venue, name):
            return True
        if _alias_hit(entry_venue, name) or _alias_hit(name, entry_venue):
            return True
    return False


def venue_first_year(venue: str | None) -> int | None:
    """The year the cited venue began, when the registry knows it."""
    if not venue:
        return None
    key = fold(venue)
    if key in VENUE_FIRST_YEAR:
        return VENUE_FIRST_YEAR[key]
    tokens = key.split()
    for name, year in VENUE_FIRST_YEAR.items():
        if " " not in name and name in tokens:
            return year
    return None


@lru_cache(maxsize=16384)
def registry_venue(name: str) -> Venue | None:
    """The bundled venue ``name`` names (by acronym, official or past name), if any."""
    if not fold(name):
        return None
    for venue in BUNDLED:
        if venue_agrees(name, (venue.acronym, *venue.names)):
            return venue
    return None


def is_preprint_venue(name: str | None) -> bool:
    venue = registry_venue(name or "")
    return venue is not None and venue.kind == VenueKind.PREPRINT


def is_known(name: str, seen: Iterable[str] = ()) -> bool:
    """Is ``name`` a venue the registry knows: bundled, or named by a source's record of
    some work (``seen``: the venue names the sources gave)?"""
    return registry_venue(name) is not None or venue_agrees(name, tuple(seen))


#: Words of a venue search at most (the most distinctive come first in a venue's name).
_SEARCH_WORDS = 8
#: Words a venue's own name in a registry does not carry ("In Proceedings of the ...").
_NOT_SEARCHED = frozenset({"proceedings", "proc", "in"})


def venue_search_text(name: str) -> str | None:
    """The words to look a cited venue up by in the venue searches: its name before a
    comma or semicolon (a place or a date follows), without "proceedings of the", ordinals,
    years, sponsors or parenthesised parts.  dblp's venue search wants every word as the prefix of a
    word of the venue's name, so abbreviated words ("Intl.", "Natl.") are left out while
    full words remain.  None when nothing is left to search for."""
    head = re.split(r"[,;]", _unparenthesised(name))[0]
    full: list[str] = []
    short: list[str] = []
    for raw in head.split():
        for word in fold(raw).split():
            if word in _STOP or word in _NOT_SEARCHED or _numeral(word):
                continue
            (short if raw.endswith(".") else full).append(word)
    words = full or short
    # registries often name a venue without its sponsor or ACM SIG ("ACM SIGSAC Conference
    # on Computer and Communications Security" is dblp's "... (CCS)" without either)
    plain = list(_unsponsored(words))
    words = plain if len(plain) >= 2 else words
    if not words or (len(words) == 1 and len(words[0]) < 3):
        return None
    return " ".join(words[:_SEARCH_WORDS])
