"""The venue registry: real venues (acronyms, official and past names, the year each began)
and the comparison of venue names (pure).

One table (:data:`BUNDLED`) lists venues that bibliographies cite often; the names sources
give for a work's venue (dblp's venue and stream, OpenAlex's source, Semantic Scholar's venue
and publicationVenue, Crossref's container titles) are the other half of what is known
(:func:`is_known`).  Venue names are compared through :func:`venue_agrees`, which accepts
acronyms, abbreviations (``Phys. Rev. Lett.``), proceedings prefixes and the aliases the
registry gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from citewarden.verify.normalize import fold


class VenueKind:
    CONFERENCE = "conference"
    JOURNAL = "journal"
    PREPRINT = "preprint"


@dataclass(frozen=True, slots=True)
class Venue:
    """One real venue: its acronym, official name first, then past and other names."""

    acronym: str
    kind: str
    first_year: int | None
    names: tuple[str, ...]


def _v(acronym: str, kind: str, first_year: int | None, *names: str) -> Venue:
    return Venue(acronym, kind, first_year, names)


_C, _J, _P = VenueKind.CONFERENCE, VenueKind.JOURNAL, VenueKind.PREPRINT

#: Venues often cited by acronym alone, with the year their series began (for "year before
#: the venue existed").  Facts about the venues themselves, from their own histories.
BUNDLED: tuple[Venue, ...] = (
    _v(
        "NeurIPS",
        _C,
        1987,
        "Advances in Neural Information Processing Systems",
        "Neural Information Processing Systems",
        "NIPS",
    ),
    _v("ICML", _C, 1980, "International Conference on Machine Learning"),
    _v("ICLR", _C, 2013, "International Conference on Learning Representations"),
    _v(
        "CVPR",
        _C,
        1983,
        "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
        "Computer Vision and Pattern Recognition",
    ),
    _v(
        "ICCV",
        _C,
        1987,
        "IEEE/CVF International Conference on Computer Vision",
        "International Conference on Computer Vision",
    ),
    _v("ECCV", _C, 1990, "European Conference on Computer Vision"),
    _v("WACV", _C, 1992, "IEEE/CVF Winter Conference on Applications of Computer Vision"),
    _v("BMVC", _C, 1990, "British Machine Vision Conference"),
    _v(
        "ACL",
        _C,
        1963,
        "Annual Meeting of the Association for Computational Linguistics",
        "Association for Computational Linguistics",
    ),
    _v(
        "EMNLP",
        _C,
        1996,
        "Conference on Empirical Methods in Natural Language Processing",
        "Empirical Methods in Natural Language Processing",
    ),
    _v(
        "NAACL", _C, 2000, "North American Chapter of the Association for Computational Linguistics"
    ),
    _v("EACL", _C, 1983, "European Chapter of the Association for Computational Linguistics"),
    _v("COLING", _C, 1965, "International Conference on Computational Linguistics"),
    _v("CoNLL", _C, 1997, "Conference on Computational Natural Language Learning"),
    _v("TACL", _J, 2013, "Transactions of the Association for Computational Linguistics"),
    _v(
        "AAAI",
        _C,
        1980,
        "AAAI Conference on Artificial Intelligence",
        "Association for the Advancement of Artificial Intelligence",
    ),
    _v("IJCAI", _C, 1969, "International Joint Conference on Artificial Intelligence"),
    _v(
        "KDD",
        _C,
        1995,
        "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
        "Knowledge Discovery and Data Mining",
    ),
    _v(
        "SIGIR",
        _C,
        1978,
        "International ACM SIGIR Conference on Research and Development in Information Retrieval",
        "Research and Development in Information Retrieval",
    ),
    _v("WWW", _C, 1994, "The Web Conference", "International World Wide Web Conference"),
    _v("WSDM", _C, 2008, "International Conference on Web Search and Data Mining"),
    _v("CIKM", _C, 1992, "International Conference on Information and Knowledge Management"),
    _v(
        "AISTATS",
        _C,
        1985,
        "International Conference on Artificial Intelligence and Statistics",
        "Artificial Intelligence and Statistics",
    ),
    _v(
        "UAI",
        _C,
        1985,
        "Conference on Uncertainty in Artificial Intelligence",
        "Uncertainty in Artificial Intelligence",
    ),
    _v("COLT", _C, 1988, "Conference on Learning Theory", "Computational Learning Theory"),
    _v("CoRL", _C, 2017, "Conference on Robot Learning"),
    _v("ICRA", _C, 1984, "IEEE International Conference on Robotics and Automation"),
    _v("IROS", _C, 1988, "IEEE/RSJ International Conference on Intelligent Robots and Systems"),
    _v("MICCAI", _C, 1998, "Medical Image Computing and Computer Assisted Intervention"),
    _v(
        "ICASSP",
        _C,
        1976,
        "IEEE International Conference on Acoustics, Speech and Signal Processing",
    ),
    _v("CHI", _C, 1982, "CHI Conference on Human Factors in Computing Systems"),
    _v("SIGMOD", _C, 1975, "International Conference on Management of Data"),
    _v("VLDB", _C, 1975, "International Conference on Very Large Data Bases"),
    _v("STOC", _C, 1969, "Symposium on Theory of Computing"),
    _v("FOCS", _C, 1960, "Symposium on Foundations of Computer Science"),
    _v("SODA", _C, 1990, "Symposium on Discrete Algorithms"),
    _v("JMLR", _J, 2000, "Journal of Machine Learning Research"),
    _v("TMLR", _J, 2022, "Transactions on Machine Learning Research"),
    _v("TPAMI", _J, 1979, "IEEE Transactions on Pattern Analysis and Machine Intelligence"),
    _v("PNAS", _J, 1915, "Proceedings of the National Academy of Sciences"),
    _v("PLOS ONE", _J, 2006, "PLOS ONE", "PLoS ONE"),
    _v("eLife", _J, 2012, "eLife"),
    _v("Sci. Rep.", _J, 2011, "Scientific Reports"),
    _v("Nat. Commun.", _J, 2010, "Nature Communications"),
    _v("Nat. Mach. Intell.", _J, 2019, "Nature Machine Intelligence"),
    _v("PeerJ", _J, 2013, "PeerJ"),
    _v("PeerJ Comput. Sci.", _J, 2015, "PeerJ Computer Science"),
    _v("Front. Psychol.", _J, 2010, "Frontiers in Psychology"),
    _v("JOSS", _J, 2016, "Journal of Open Source Software"),
    _v("Nurs. Womens Health", _J, 2007, "Nursing for Women's Health"),
    _v("arXiv", _P, 1991, "arXiv", "CoRR", "arXiv (Cornell University)", "arXiv.org"),
    _v("bioRxiv", _P, 2013, "bioRxiv"),
    _v("medRxiv", _P, 2019, "medRxiv"),
    _v("SSRN", _P, 1994, "SSRN Electronic Journal", "Social Science Research Network"),
)


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
    s_tokens = [t for t in fold(short).split() if t not in _STOP]
    f_tokens = [t for t in fold(full).split() if t not in _STOP]
    if not s_tokens or not f_tokens:
        return False
    i = 0
    for ft in f_tokens:
        if i < len(s_tokens) and _abbrev_token(s_tokens[i], ft):
            i += 1
            continue
        # a run of initials may stand for several words (U.S.A.)
        return False
    return i == len(s_tokens)


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


def _core(text: str) -> list[str]:
    tokens = fold(re.sub(r"\([^)]*\)", " ", text)).split()
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
    parts = re.split(r"[,:;]", re.sub(r"\([^)]*\)", " ", text))
    out = []
    for i in range(1, len(parts) + 1):
        core = tuple(t for t in _core(",".join(parts[:i])) if t not in _SPONSORS)
        if core:
            out.append(core)
    return out


def _acronyms(text: str) -> set[str]:
    found = {m.lower() for m in re.findall(r"\b([A-Z][A-Za-z]*[A-Z]{1,}[A-Za-z]*)\b", text)}
    return {a for a in found if 3 <= len(a) <= 10 and a.isalpha()}


def _acronym_of(short: str, full: str) -> bool:
    """``IoTDI`` for "... Internet of Things Design and Implementation", ``ICML`` for
    "Proceedings of the 38th International Conference on Machine Learning": the letters of
    an acronym-like name are the initials of the other's words, in order, and every word
    they leave out is a generic one (proceedings, conference, of, 38th, IEEE...).  A word
    such as "Quantum" left out names another venue."""
    text = short.strip()
    if not (2 <= len(text) <= 10 and text.isalpha() and sum(c.isupper() for c in text) >= 2):
        return False
    if " " in text or len(full.split()) < 2:
        return False
    letters = text.lower()
    parts = re.split(r"[,:;]", re.sub(r"\([^)]*\)", " ", full))
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

    @cache
    def step(i: int, j: int) -> bool:
        if j == len(words):
            return i == len(letters)
        word = words[j]
        if i < len(letters) and word[0] == letters[i] and step(i + 1, j + 1):
            return True
        return _skippable(word) and step(i, j + 1)

    return step(0, 0)


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


def _leading_parts(text: str) -> set[str]:
    """The folded leading parts of a name before a subtitle separator (colon, comma,
    semicolon, parenthesis or a spaced dash): "Journal of X: Y" gives "journal of x".  A
    longer name without a separator ("... Computer Vision and Graphics") has none."""
    parts = re.split(r"[,:;(]|\s[-\u2013\u2014]\s", text)
    return {fold(" ".join(parts[:i])) for i in range(1, len(parts))}


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
    head = re.split(r"[,;]", re.sub(r"\([^)]*\)", " ", name))[0]
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
