"""Comparison of a .bib author list with a record's (pure): the people matched, added,
dropped or substituted, and the group names standing in an author list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz.distance import OSA

from citewarden.verify.authors import split_suffix
from citewarden.verify.normalize import Author, fold, scripts, strip_markup, surname_key
from citewarden.verify.records import Person

#: Surnames at least this long may be misspelled by one letter; shorter ones one letter
#: apart are other people (Li, Lu, Liu; Chen, Chan; Wang, Wan).
MISSPELLING_FROM = 6


#: The letters of TeX's letter accents (``\k{a}`` ogonek, ``\v{c}`` caron, ``\c{c}`` cedilla,
#: ``\u{a}`` breve, ``\H{o}`` double acute, ``\r{a}`` ring, ``\d``, ``\b``, ``\t``),
#: folded: a converter that reads the macro as text leaves its letter before the accented
#: one (Semantic Scholar's "Mkadry" for ``M\k{a}dry``).
TEX_ACCENT_LETTERS = "kvcuhrdbt"


def _loose(key: str) -> str:
    return key.replace("ue", "u").replace("oe", "o").replace("ae", "a")


@lru_cache(maxsize=16384)
def accent_residue(family: str, record_key: str) -> bool:
    """Is ``record_key`` the surname ``family`` (decoded) with a TeX accent macro's letter
    left in front of one of its accented letters ("Mkadry" for "Mądry", "Dvzeroski" for
    "Džeroski")?  Only where the entry has an accented letter, so "Mkadry" never stands
    for a plain "Madry"."""
    if family.isascii() or len(record_key) != len(surname_key(family)) + 1:
        return False
    for i, ch in enumerate(family):
        if ch.isascii() or not ch.isalpha():
            continue
        head, tail = family[:i], family[i:]
        if any(surname_key(head + x + tail) == record_key for x in TEX_ACCENT_LETTERS):
            return True
    return False


@lru_cache(maxsize=65536)
def _person_keys(p: Person) -> tuple[str, str, str]:
    """(surname key, last-token key, given-name key) of a record person."""
    family = strip_markup(p.family or "").strip()
    given = strip_markup(p.given or "").strip()
    if not family and given:
        family, given = given.split()[-1], " ".join(given.split()[:-1])
    tokens = fold(split_suffix(family)[0]).split()
    return surname_key(family), (tokens[-1] if tokens else ""), fold(given).replace(" ", "")


@lru_cache(maxsize=65536)
def _author_keys(author: Author) -> tuple[str, str, str, str]:
    """(surname key, key with particles, last-token key, given-name key) of a .bib author."""
    key = author.key
    with_von = surname_key(f"{author.von} {author.family}") if author.von else key
    tokens = fold(split_suffix(author.family)[0]).split()
    return key, with_von, (tokens[-1] if tokens else ""), fold(author.given).replace(" ", "")


def author_matches(author: Author, person: Person) -> bool:
    """Does a .bib author denote this record person (by surname, tolerant of particles,
    compound surnames, transliterated umlauts, a TeX accent read as a letter and swapped
    given/family order)?"""
    key, with_von, last_token, entry_given = _author_keys(author)
    if not key:
        return False
    full, last, given = _person_keys(person)
    if not full:
        return False
    if key in (full, last) or with_von == full:
        return True
    if last_token == last and len(last) > 2:
        return True
    if _loose(key) in (_loose(full), _loose(last)):
        return True
    if accent_residue(author.family, full):
        return True
    if (
        len(full) > 3
        and (full.endswith(key) or key.endswith(full))
        and min(len(key), len(full)) > 3
    ):
        return True
    # given and family written the other way round (common for East Asian names)
    return bool(entry_given) and key == given and entry_given == full


def misspelled(author: Author, person: Person) -> bool:
    """Is ``author`` the record's ``person`` with the surname one letter apart (a letter
    added, dropped, replaced, or two swapped: "Koutrisw" for "Koutris", "Schmidthuber" for
    "Schmidhuber")?  Only for surnames of :data:`MISSPELLING_FROM` letters or more, and
    given names that agree (the same first letter when either is an initial)."""
    key, _, _, entry_given = _author_keys(author)
    full, _, given = _person_keys(person)
    if min(len(key), len(full)) < MISSPELLING_FROM or OSA.distance(key, full) != 1:
        return False
    if not entry_given or not given:
        return False
    if len(entry_given) == 1 or len(given) == 1:
        return entry_given[0] == given[0]
    return entry_given == given


@dataclass(frozen=True, slots=True)
class AuthorComparison:
    first_ok: bool
    matched: int
    added: tuple[str, ...] = ()  # .bib authors absent from the record
    dropped: tuple[str, ...] = ()  # record authors absent from the .bib list
    substituted: tuple[tuple[str, str], ...] = ()  # (.bib author, record author) same slot
    #: (.bib author, record author): the same person in the same slot, one letter apart.
    misspelled: tuple[tuple[str, str], ...] = ()
    entry_count: int = 0
    record_count: int = 0
    #: The record's whole list (three names or more) is the start of the entry's longer
    #: one, in order: a record that lists the first authors only, or names added after
    #: the real ones; either way the entry's authors are the record's, not another
    #: work's.
    record_prefix: bool = False

    @property
    def exact(self) -> bool:
        return self.first_ok and not (
            self.added or self.dropped or self.substituted or self.misspelled
        )

    @property
    def agree(self) -> bool:
        """Enough overlap to say the author list belongs to this record."""
        if self.entry_count == 0:
            return False
        if self.record_prefix:
            return True
        leading = self.first_ok or (self.entry_count >= 3 and self.overlap >= 0.8)
        return leading and self.matched * 2 >= self.entry_count

    @property
    def short_record(self) -> bool:
        """The record lists the first authors of a list more than twice as long, or as
        many as an index's cap: it may be the one cut short, so the entry's is not
        rewritten."""
        return self.record_prefix and (
            self.matched * 2 < self.entry_count or self.record_count >= LIST_CAP
        )

    @property
    def minor(self) -> bool:
        """A small difference in a long list (one name in five or more): typical of
        versions of a work, not of a fabricated reference."""
        if not self.agree or self.exact:
            return False
        changed = len(self.added) + len(self.dropped) + len(self.substituted) + len(self.misspelled)
        return self.entry_count >= 5 and self.overlap >= 0.8 and changed * 5 <= self.entry_count + 1

    @property
    def overlap(self) -> float:
        return self.matched / self.entry_count if self.entry_count else 0.0


#: A record's list this long or longer that starts the entry's is the work's own list.
PREFIX_FROM = 3
#: Where indexes cut long author lists: OpenAlex's list endpoints (searches, DOI
#: batches) give the first 100 authorships of a work.
LIST_CAP = 100

_ORG_WORDS = frozenset(
    {
        "team",
        "consortium",
        "group",
        "collaboration",
        "initiative",
        "network",
        "project",
        "committee",
        "organization",
        "organisation",
        "society",
        "association",
        "investigators",
    }
)
#: Words of an institution's name, when it stands whole in an author list with no given
#: name (Crossref's organisation authors: "USDOE Office of Electricity (OE)").
_INSTITUTION_WORDS = frozenset(
    {
        "office",
        "department",
        "institute",
        "institutes",
        "centre",
        "center",
        "agency",
        "ministry",
        "commission",
        "council",
        "university",
        "laboratory",
        "foundation",
        "administration",
    }
)


@lru_cache(maxsize=65536)
def is_group_author(family: str, given: str = "") -> bool:
    """An organisation standing in an author list ("for the ADNI", "Gemma Team",
    "DeepSeek-AI")."""
    words = set(fold(f"{given} {family}").split())
    if words & _ORG_WORDS or fold(family).startswith("for the "):
        return True
    if not given.strip() and len(words) >= 3 and words & _INSTITUTION_WORDS:
        return True
    name = family.strip()
    return not given.strip() and " " not in name and any(c.isupper() for c in name[1:])


@lru_cache(maxsize=65536)
def _is_group(author: Author, sole: bool = False) -> bool:
    """A group name on the .bib side: braced, with an organisation word, a one-word name
    with inner capitals ("OpenAI", "DeepMind"), or the only author given by one word
    ("Anthropic")."""
    if author.corporate or is_group_author(author.family, author.given):
        return True
    if author.given.strip() or " " in author.family.strip():
        return False
    family = author.family.strip()
    return sole or any(c.isupper() for c in family[1:])


def given_agrees(author: Author, person: Person) -> bool:
    """Do the given names of a .bib author and a record person agree, as far as both are
    written: the same name, or initials that fit it ("Y. K." for "YK", "M." for
    "Mingchuan")?  True when either side has none."""
    entry_given = _author_keys(author)[3]
    given = _person_keys(person)[2]
    if not entry_given or not given:
        return True
    if entry_given[0] != given[0]:
        return False
    return (
        entry_given == given
        or min(len(entry_given), len(given)) == 1
        or (entry_given.startswith(given) or given.startswith(entry_given))
    )


def _align(authors: Sequence[Author], people: Sequence[Person]) -> list[int | None]:
    """The record person each .bib author denotes (None: not on the record).  Authors whose
    given names also agree are paired first, then the rest by surname alone, each at its
    own place in the list when it can be: of two "Zhang"s on the entry and one on the
    record, the one with the record's given name is the one on the record."""
    match_of: list[int | None] = [None] * len(authors)
    used: set[int] = set()
    for strict in (True, False):
        for i, a in enumerate(authors):
            if match_of[i] is not None:
                continue
            order = ([i] if i < len(people) else []) + list(range(len(people)))
            for j in order:
                if j in used or not author_matches(a, people[j]):
                    continue
                if strict and not given_agrees(a, people[j]):
                    continue
                match_of[i] = j
                used.add(j)
                break
    return match_of


def _other_scripts(authors: Sequence[Author], people: Sequence[Person]) -> bool:
    """Are the entry's names and the record's written in different scripts, with no
    script in common (one side romanised, the other not)?"""
    mine = frozenset().union(*(scripts(a.raw) for a in authors))
    theirs = frozenset().union(*(scripts(f"{p.family} {p.given}") for p in people))
    return bool(mine) and bool(theirs) and not mine & theirs


def compare_authors(
    authors: Sequence[Author], truncated: bool, people: Sequence[Person]
) -> AuthorComparison | None:
    """Align the .bib author list with the record's; None when either side has no authors.

    Group authors ("Gemma Team", "for the ... Initiative") that only one side lists are not
    counted as added or dropped, and do not take the first-author place.
    """
    people = [p for p in people if _person_keys(p)[0]]
    if not authors or not people:
        return None
    if _other_scripts(authors, people):
        return None  # "王小龙" and "Wang, Xiaolong", "Паршин" and "Parshin": not comparable
    if all(_is_group(a, sole=len(authors) == 1) for a in authors) and not any(
        author_matches(a, p) for a in authors for p in people
    ):
        return None  # "OpenAI", "Gemma Team": a group stands for a list the record spells out
    # "Qwen Team" in a list stands for the members it does not name: like "and others"
    truncated = truncated or any(_is_group(a) for a in authors)
    match_of = _align(authors, people)
    used = {m for m in match_of if m is not None}
    first_entry = next((i for i, a in enumerate(authors) if not _is_group(a)), 0)
    # the record's first person: a group is not one, unless an entry author is the person
    # it is run into (Semantic Scholar's "Gemma Team Aishwarya Kamath")
    first_person = next(
        (j for j, p in enumerate(people) if j in used or not is_group_author(p.family, p.given)),
        0,
    )
    first_ok = match_of[0] == 0 or match_of[first_entry] == first_person
    # the named people (a group's place in the list is not one of the record's)
    counted = [a for a in authors if not _is_group(a)] or list(authors)
    horizon = len(people)
    if truncated:
        # the named people, less the names the entry has before its last match that the
        # record lacks: each shifts the rest of the list by one place of the record's
        last = max((i for i, m in enumerate(match_of) if m is not None), default=-1)
        inserted = sum(1 for i in range(last) if match_of[i] is None and not _is_group(authors[i]))
        horizon = max([len(counted) - inserted] + [m + 1 for m in match_of if m is not None])
        horizon = min(horizon, len(people))
    unmatched_entry = [i for i, m in enumerate(match_of) if m is None and not _is_group(authors[i])]
    unmatched_record = [
        j
        for j in range(horizon)
        if j not in used and not is_group_author(people[j].family, people[j].given)
    ]
    substituted: list[tuple[str, str]] = []
    spelled: list[tuple[str, str]] = []
    for i in list(unmatched_entry):
        if i in unmatched_record:
            pair = (authors[i].display(), str(people[i]))
            if misspelled(authors[i], people[i]):
                spelled.append(pair)
                match_of[i] = i  # the same person: matched for the list's agreement
                if i == first_entry and i == first_person:
                    first_ok = True
            else:
                substituted.append(pair)
            unmatched_entry.remove(i)
            unmatched_record.remove(i)
    # the same number left over on both sides of a complete list: substitutions in other slots
    if not truncated and len(unmatched_entry) == len(unmatched_record):
        for i, j in zip(unmatched_entry, unmatched_record, strict=True):
            substituted.append((authors[i].display(), str(people[j])))
        unmatched_entry, unmatched_record = [], []
    prefix = PREFIX_FROM <= len(people) < len(authors) and match_of[: len(people)] == list(
        range(len(people))
    )
    return AuthorComparison(
        first_ok=first_ok,
        matched=sum(
            1 for i, m in enumerate(match_of) if m is not None and not _is_group(authors[i])
        )
        or sum(1 for m in match_of if m is not None),
        added=tuple(authors[i].display() for i in unmatched_entry),
        dropped=tuple(str(people[j]) for j in unmatched_record),
        substituted=tuple(substituted),
        misspelled=tuple(spelled),
        entry_count=len(counted),
        record_count=len(people),
        record_prefix=prefix,
    )
