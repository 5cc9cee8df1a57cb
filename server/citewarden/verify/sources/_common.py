"""Helpers shared by the source modules: text clean-up, DOIs, dates, replies to data."""

from __future__ import annotations

import dataclasses
import html
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, TypeVar
from urllib.parse import unquote
from xml.etree.ElementTree import Element

from defusedxml import ElementTree as SafeET
from defusedxml.common import DefusedXmlException

from citewarden.verify.author_compare import is_group_author
from citewarden.verify.authors import is_name_suffix
from citewarden.verify.http import BodyError, Failure, Reply
from citewarden.verify.records import (
    DamagedRecord,
    Lookup,
    Outcome,
    Person,
    Query,
    UpdateKind,
    WorkRecord,
)
from citewarden.verify.sources.missing import NotFoundAnswer, read_404

T = TypeVar("T")

_TAG = re.compile(r"</?[A-Za-z][\w:.-]*(?:\s[^<>]*)?/?>")
_SPACE = re.compile(r"\s+")
#: Markup that survives as escaped text (``&lt;i&gt;``) in some records: removed after
#: unescaping, by name only, so that a literal "x < y > z" in a title is kept.
_ESCAPED_TAG = re.compile(
    r"</?(?:i|b|u|em|strong|sub|sup|scp|sc|span|p|br|italic|bold|tt|(?:jats|mml):[\w.-]+)"
    r"(?:\s[^<>]*)?/?>",
    re.IGNORECASE,
)
_DOI = re.compile(r"10\.\d{4,9}/\S+", re.IGNORECASE)


def clean_text(value: Any) -> str:
    """Plain text from a metadata string: HTML/JATS/MathML tags removed, entities decoded,
    whitespace collapsed.  Non-strings give ``""``."""
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), "")
    if not isinstance(value, str):
        return ""
    text = _TAG.sub("", value)
    if "&" in text:
        text = _ESCAPED_TAG.sub("", html.unescape(text))
    return _SPACE.sub(" ", text).strip()


def first_text(value: Any) -> str | None:
    """The first non-empty string of a string-or-list field, cleaned."""
    text = clean_text(value)
    return text or None


#: The most strings a record keeps of one list field (titles, venue names, ISSNs, ISBNs):
#: real records carry a few, and each venue name costs a comparison with the entry's (a
#: broken answer repeating a list of names 100 000 times took 11 s to compare).
MAX_TEXTS = 32


def all_texts(value: Any) -> tuple[str, ...]:
    """The distinct non-empty strings of a string-or-list field, cleaned, in their order;
    the first ``MAX_TEXTS`` of them."""
    items = value if isinstance(value, list) else [value]
    out: dict[str, None] = {}
    for item in items:
        text = clean_text(item)
        if text:
            out[text] = None
            if len(out) == MAX_TEXTS:
                break
    return tuple(out)


def normalize_doi(value: Any) -> str | None:
    """``10.x/y`` lower-cased, with URL / ``doi:`` prefixes removed and the escapes some
    sources write undone (dblp's ``&lt;``, Semantic Scholar's ``%3C`` in an SICI DOI's
    ``<``); ``None`` if not a DOI."""
    if not isinstance(value, str):
        return None
    if "&" in value:
        value = html.unescape(value)
    if "%" in value:
        value = unquote(value)
    m = _DOI.search(value.strip())
    if not m:
        return None
    doi = m.group(0).rstrip(".,;")
    return doi.lower()


def clean_doi(value: str) -> str:
    """The DOI in ``value`` with URL / ``doi:`` prefixes removed, case preserved (for
    requests); ``value`` stripped when it holds no DOI."""
    m = _DOI.search(value.strip())
    return m.group(0).rstrip(".,;") if m else value.strip()


def year_from_parts(value: Any) -> int | None:
    """The year of a CSL/Crossref date (``{"date-parts": [[2012, 3]]}``), tolerating
    ``[[null]]``, empty lists, strings and ``raw`` dates."""
    if not isinstance(value, dict):
        return None
    parts = value.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        first = parts[0][0]
        try:
            year = None if isinstance(first, bool) else int(first)
        except (TypeError, ValueError, OverflowError):  # OverflowError: 1e999 is infinity
            year = None
        if year is not None and 0 < year < 3000:
            return year
    for key in ("raw", "literal", "date-time"):
        raw = value.get(key)
        if isinstance(raw, str):
            m = re.search(r"\b(1[0-9]{3}|20[0-9]{2})\b", raw)
            if m:
                return int(m.group(1))
    return None


def year_from_string(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 3000:
        return value
    if isinstance(value, str):
        m = re.search(r"\b(1[0-9]{3}|2[0-9]{3})\b", value)
        if m:
            return int(m.group(1))
    return None


def person_from_name(name: str) -> Person | None:
    """A person from a display name: ``"Last, First"`` or ``"First Middle Last"``; an
    organisation's name (``"World Health Organization"``, which OpenAlex gives as it gives
    a person's) whole, as its family name, so that it is compared and written whole."""
    name = clean_text(name)
    name = re.sub(r"\s+\d{4}$", "", name)  # dblp disambiguation suffix: "Wei Wang 0001"
    if not name:
        return None
    if " " in name and is_group_author(name):
        return Person(name)
    commas = [part.strip() for part in name.split(",")]
    if len(commas) == 3 and is_name_suffix(commas[1]):  # "Steele, Jr., Guy L."
        return Person(f"{commas[0]} {commas[1]}", commas[2])
    if len(commas) == 2 and is_name_suffix(commas[1]):  # "Guy L. Steele, Jr."
        name = f"{commas[0]} {commas[1]}"
    elif "," in name:
        family, _, given = name.partition(",")
        return Person(family.strip(), given.strip())
    parts = name.split(" ")
    # a generational suffix stays with the surname ("Guy L. Steele Jr.": "Steele Jr.")
    suffix = parts.pop() if len(parts) > 2 and is_name_suffix(parts[-1]) else ""
    if len(parts) == 1:
        return Person(f"{parts[0]} {suffix}".strip())
    # Keep particles with the family name ("Ludwig van Beethoven" -> "van Beethoven").
    i = len(parts) - 1
    while i > 1 and parts[i - 1].lower() in {
        "van",
        "von",
        "de",
        "der",
        "den",
        "da",
        "di",
        "le",
        "la",
        "du",
        "del",
        "dos",
        "ter",
        "ten",
    }:
        i -= 1
    return Person(" ".join([*parts[i:], suffix]).strip(), " ".join(parts[:i]))


def dotted_initials(initials: str) -> str:
    """Initials written together, as PubMed writes them (``"GW"``), as a given name BibTeX
    reads as two (``"G. W."``); anything else as it is."""
    if 1 < len(initials) <= 4 and initials.isascii() and initials.isalpha() and initials.isupper():
        return " ".join(f"{c}." for c in initials)
    if len(initials) == 1 and initials.isascii() and initials.isupper():
        return f"{initials}."
    return initials


def person_from_csl(item: Any) -> Person | None:
    """A person from a CSL/Crossref author object (``family``/``given``, ``name`` for
    organisations, ``literal``)."""
    if not isinstance(item, dict):
        return None
    family = clean_text(item.get("family"))
    given = clean_text(item.get("given"))
    if family:
        particle = clean_text(item.get("non-dropping-particle"))
        if particle:
            family = f"{particle} {family}"
        suffix = clean_text(item.get("suffix"))  # "Jr.": kept with the surname
        return Person(f"{family} {suffix}" if suffix else family, given)
    for key in ("name", "literal"):
        name = clean_text(item.get(key))
        if name:
            return Person(name)  # organisations / literal names: whole string as family
    if given:
        return Person(given)
    return None


UPDATE_KINDS: dict[str, UpdateKind] = {
    "retraction": UpdateKind.RETRACTION,
    "retracted": UpdateKind.RETRACTION,
    "removal": UpdateKind.RETRACTION,
    "partial_retraction": UpdateKind.RETRACTION,
    "correction": UpdateKind.CORRECTION,
    "erratum": UpdateKind.CORRECTION,
    "corrigendum": UpdateKind.CORRECTION,
    "addendum": UpdateKind.CORRECTION,
    "clarification": UpdateKind.CORRECTION,
    "expression_of_concern": UpdateKind.EXPRESSION_OF_CONCERN,
    "expression-of-concern": UpdateKind.EXPRESSION_OF_CONCERN,
    "withdrawal": UpdateKind.WITHDRAWAL,
    "withdrawn": UpdateKind.WITHDRAWAL,
}


def update_kind(value: Any) -> UpdateKind:
    key = str(value or "").strip().lower().replace(" ", "_")
    return UPDATE_KINDS.get(key, UpdateKind.OTHER)


def reply_json(source: str, reply: Reply | Failure) -> Any | Lookup:
    """Decode a JSON reply for a FOUND path; any other status or bad body -> a Lookup.

    404 and 410 are *not* handled here (each source decides what they mean).
    """
    if isinstance(reply, Failure):
        return Lookup.failed(source, reply.reason)
    if reply.status != 200:
        return Lookup.failed(source, f"HTTP {reply.status}")
    try:
        return reply.json()
    except BodyError as exc:
        return Lookup.failed(source, f"malformed response: {exc}")
    except ValueError:
        return Lookup.failed(source, "malformed response: not JSON")


def reply_xml(source: str, reply: Reply | Failure) -> Element | Lookup:
    """Parse an XML reply safely (no entity expansion, no external resources)."""
    if isinstance(reply, Failure):
        return Lookup.failed(source, reply.reason)
    if reply.status != 200:
        return Lookup.failed(source, f"HTTP {reply.status}")
    return parse_xml(source, reply.content)


def parse_xml(source: str, content: bytes) -> Element | Lookup:
    try:
        root: Element = SafeET.fromstring(content, forbid_dtd=False)
    except DefusedXmlException:
        return Lookup.failed(source, "malformed response: forbidden XML construct")
    except Exception:  # xml.etree.ElementTree.ParseError and friends
        return Lookup.failed(source, "malformed response: not XML")
    return root


def convert_all(source: str, items: Iterable[Any], convert: Callable[[Any], T | None]) -> list[T]:
    """Convert items, skipping the ones that are not usable records (e.g. no title)."""
    out: list[T] = []
    for item in items:
        rec = convert(item)
        if rec is not None:
            out.append(rec)
    return out


class OddAnswer(ValueError):
    """An answer that is not of the shape the service gives (a list where it sends an
    object, an error inside a 200, a page that does not say what it holds), named in the
    reason: it says nothing about the work."""


def guard(source: str, build: Callable[[], Lookup]) -> Lookup:
    """Run a conversion; unexpected shapes in a response become FAILED, never a crash
    (``ArithmeticError``: a number no field can hold; ``RecursionError``: nesting deeper
    than the conversion can walk; :class:`DamagedRecord`: a value no real record holds, and
    :class:`OddAnswer`: an answer of a shape the service never gives, named in the reason)."""
    try:
        return build()
    except (DamagedRecord, OddAnswer) as exc:
        return Lookup.failed(source, f"malformed response: {exc}")
    except (
        KeyError,
        TypeError,
        ValueError,
        AttributeError,
        IndexError,
        ArithmeticError,
        RecursionError,
    ) as exc:
        return Lookup.failed(source, f"malformed response: {type(exc).__name__}")


def one_work(
    source: str,
    reply: Reply | Failure,
    convert: Callable[[Any], WorkRecord | None],
    missing: NotFoundAnswer,
) -> Lookup:
    """A reply about one work: the service's own not-found answer (``missing``) ->
    NOT_FOUND, any other 404 -> FAILED (a proxy's page, a wrong base URL); the record
    ``convert`` makes of the JSON body -> FOUND; anything else -> FAILED, a record it cannot
    use (no title) included: the service holds the work, so its answer is no "not found"."""
    absent = read_404(source, reply, missing)
    if absent is not None:
        return absent
    data = reply_json(source, reply)
    if isinstance(data, Lookup):
        return data
    return guard(source, lambda: usable_work(source, convert(data)))


#: Why a record a service holds cannot be compared with an entry.
UNUSABLE = "malformed response: a record without a title"


def usable_work(source: str, record: WorkRecord | None) -> Lookup:
    """FOUND with ``record``; FAILED when the service gave a record that is not usable
    (``None``: no title), never NOT_FOUND: it holds the work."""
    if record is None:
        return Lookup.failed(source, UNUSABLE)
    return Lookup.found(source, [record])


#: Why a list of hits none of which can be compared with an entry says nothing.
UNUSABLE_HITS = "malformed response: hits without a usable record"
#: The most items a page of results holds: the most any request asks for (Crossref's
#: notices, ``rows=1000``).  Each is made a record and compared with the entry, on the
#: event loop: 100 000 small items of a page under the body cap took 5 s.
MAX_PAGE_ITEMS = 1000


def within_page(items: list[T]) -> list[T]:
    """``items``, the hits of one page of results; :class:`OddAnswer` when there are more
    than any page asked for holds (:data:`MAX_PAGE_ITEMS`)."""
    if len(items) > MAX_PAGE_ITEMS:
        raise OddAnswer(f"a page of {len(items)} hits, more than any request asks for")
    return items


def works_found(source: str, items: Any, convert: Callable[[Any], WorkRecord | None]) -> Lookup:
    """FOUND with the usable records of a list of result items (for :func:`guard`: a
    TypeError when ``items`` is not a list); FAILED when it holds items but no usable
    record (none with a title): the service answered with hits, so the answer is no "no
    hits", and none of them can be compared; FAILED too when it holds more items than
    any page asked for (:data:`MAX_PAGE_ITEMS`): no answer of the service's."""
    if not isinstance(items, list):
        raise TypeError("results")
    records = convert_all(source, within_page(items), convert)
    if items and not records:
        return Lookup.failed(source, UNUSABLE_HITS)
    return Lookup.found(source, records)


_COUNT = re.compile(r"[0-9]{1,18}")


def hit_count(value: Any) -> int | None:
    """A count of hits as an answer gives it: a number, or its digits as text (an XML
    element, dblp's ``"@total"``); None for anything else (absent, negative, not a count)."""
    if isinstance(value, str):
        text = value.strip()
        return int(text) if _COUNT.fullmatch(text) else None
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def no_hits(source: str, count: Any) -> Lookup:
    """What a search page that holds no hit says: NOT_FOUND only when it counts none
    (``count`` 0).  A page that does not count (an answer of another shape, an error) or
    counts hits it does not hold (a partial page) says nothing: :class:`OddAnswer`."""
    hits = hit_count(count)
    if hits is None:
        raise OddAnswer("a page without hits that does not count them")
    if hits:
        raise OddAnswer(f"a page without the {hits} hits it counts")
    return Lookup.not_found(source)


def page_found(
    source: str, items: Any, count: Any, convert: Callable[[Any], WorkRecord | None]
) -> Lookup:
    """:func:`works_found` for a search page whose hits are ``items`` and which counts them
    as ``count``: a page without items is :func:`no_hits`."""
    if isinstance(items, list) and not items:
        return no_hits(source, count)
    return works_found(source, items, convert)


def per_doi(
    source: str,
    dois: Iterable[str],
    answer: Lookup,
    *,
    complete: bool = True,
    held: Iterable[str] = (),
) -> dict[str, Lookup]:
    """Split the answer to a batch of normalised DOIs: each DOI gets its record (FOUND) or
    NOT_FOUND when the answer lacks it; a FAILED answer stands for every DOI.  When the
    answer is not ``complete`` (a page that holds fewer results than it counts), a DOI it
    lacks gets no answer (no key): it is asked on its own, and so is a DOI ``held`` by an
    item of the answer no record was made of (no title): the service holds it."""
    if answer.outcome is Outcome.FAILED:
        return {d: answer for d in dois}
    found = {r.doi: r for r in answer.records if r.doi}
    unusable = set(held)
    out: dict[str, Lookup] = {}
    for d in dois:
        rec = found.get(d)
        if rec:
            out[d] = Lookup.found(source, [rec])
        elif complete and d not in unusable:
            out[d] = Lookup.not_found(source)
    return out


def fold(text: str) -> str:
    """Case- and accent-insensitive key for cache requests."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _SPACE.sub(" ", text).strip()


def used_query(query: Query, *, authors: int | None = 0, limit: bool = True) -> Query:
    """``query`` reduced to what a source's search request is built from (the cache key of
    its answer), so that entries differing only in what the request leaves out (the venue,
    the year, later authors) share one request.  ``authors``: how many surnames the
    request sends (None: all).  A ``free_text`` query sends all but the venue."""
    if query.free_text:
        return dataclasses.replace(query, venue=None)
    names = query.authors if authors is None else query.authors[:authors]
    used = Query(title=query.title, authors=names)
    return dataclasses.replace(used, limit=query.limit) if limit else used
