"""Reading a citation key: the surname, year and title words it most likely encodes.

Keys made by reference managers follow a few patterns::

    vaswani2017attention              Google Scholar  surname year firstword
    DBLP:conf/nips/VaswaniSPUJGKP17   DBLP            conf/venue/Surname+initials+yy
    vaswaniAttentionAllYou2017        Better BibTeX   surname TitleWords year
    Vaswani2017, Vaswani2017a         JabRef          Surname year [suffix]
    Hinton:2006fast, Hinton:2006      Author:Year     Surname:year[word]
    smith_deep_2020, smith-deep-2020  author_word_year (Zotero, Better BibTeX patterns)

:func:`read_key` returns a :class:`KeyReading` (``style="unknown"`` when no pattern fits,
with whatever words the key holds); :func:`context_words` picks query words from the
sentence around the citation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Longest key read at all (keys longer than this are not names of works).
MAX_KEY = 200
#: Most context words added to a query.
MAX_CONTEXT_WORDS = 6

_STOP_TEXT = """a an and are as at be by for from has have in into is it its of on or our that the
    their this to towards via we with without using use used based new not all you can
    et al see also e g i eg ie cf which these those such than then there here when where
    while both more most other some very between over under about after before through"""
STOP_WORDS = frozenset(_STOP_TEXT.split())

_YEAR = re.compile(r"(1[5-9]\d\d|20\d\d)")
_CAMEL = re.compile(r"[A-Z][a-z']*|[a-z']+")
_DBLP = re.compile(r"^DBLP:(?P<kind>[a-z]+)/(?P<venue>[^/]+)/(?P<rest>[^/]+)$", re.IGNORECASE)
_DBLP_AUTHOR = re.compile(r"^(?P<surname>(?:Mc|Mac|De|Le|La|Di|Van|Von)?[A-Z][a-z']+)")
_DBLP_ARXIV = re.compile(r"^abs-(\d{4})-(\d{4,5})$")
_SCHOLAR = re.compile(r"^(?P<surname>[a-z][a-z']*?)(?P<year>1[5-9]\d\d|20\d\d)(?P<word>[a-z]{2,})$")
_BBT = re.compile(
    r"^(?P<surname>[a-z][a-z']*)(?P<title>(?:[A-Z][a-z0-9']*)+)(?P<year>1[5-9]\d\d|20\d\d)$"
)
_JABREF = re.compile(
    r"^(?P<surname>[A-Z][A-Za-z']*?)(?P<year>1[5-9]\d\d|20\d\d)(?P<suffix>[a-z]?)$"
)
_COLON = re.compile(
    r"^(?P<surname>[A-Za-z][A-Za-z'-]*):(?P<year>1[5-9]\d\d|20\d\d)(?P<word>[A-Za-z]*)$"
)
_SEPARATED = re.compile(r"[_\-.]+")
_WORD = re.compile(r"[^\W\d_][^\W_]*", re.UNICODE)


@dataclass(frozen=True, slots=True)
class KeyReading:
    """What a key says about the work it names."""

    key: str
    style: str  # "google-scholar", "dblp", "better-bibtex", "jabref", "author-year",
    #               "author-word-year", "unknown"
    surname: str | None = None
    year: int | None = None
    words: tuple[str, ...] = ()  # title words, lower case
    arxiv_id: str | None = None  # DBLP CoRR keys (journals/corr/abs-1706-03762)
    venue: str | None = None  # DBLP venue part (nips, icml, ...)

    @property
    def searchable(self) -> bool:
        """True when the key names a surname (a search can be anchored on it)."""
        return bool(self.surname) or self.arxiv_id is not None


def _title_words(words: list[str]) -> tuple[str, ...]:
    out = [w.lower() for w in words if w and not w.isdigit()]
    return tuple(w for w in out if w not in STOP_WORDS or len(out) == 1)


def _dblp_year(two: str) -> int:
    yy = int(two)
    return 2000 + yy if yy <= 40 else 1900 + yy


def _read_dblp(key: str, m: re.Match[str]) -> KeyReading:
    rest = m.group("rest")
    venue = m.group("venue").lower()
    arxiv = _DBLP_ARXIV.match(rest)
    if venue == "corr" and arxiv:
        return KeyReading(key, "dblp", arxiv_id=f"{arxiv.group(1)}.{arxiv.group(2)}")
    author = _DBLP_AUTHOR.match(rest)
    tail = re.search(r"(\d{2})(?:-\d+)?[a-z]?$", rest)
    return KeyReading(
        key,
        "dblp",
        surname=author.group("surname") if author else None,
        year=_dblp_year(tail.group(1)) if tail else None,
        venue=venue,
    )


def read_key(key: str) -> KeyReading:
    """The surname, year and title words ``key`` most likely encodes."""
    key = key.strip()
    if not key or len(key) > MAX_KEY:
        return KeyReading(key[:MAX_KEY], "unknown")
    if m := _DBLP.match(key):
        return _read_dblp(key, m)
    if m := _SCHOLAR.match(key):
        return KeyReading(
            key, "google-scholar", m.group("surname"), int(m.group("year")), (m.group("word"),)
        )
    if m := _BBT.match(key):
        words = _CAMEL.findall(m.group("title"))
        return KeyReading(
            key, "better-bibtex", m.group("surname"), int(m.group("year")), _title_words(words)
        )
    if m := _JABREF.match(key):
        surname = _CAMEL.findall(m.group("surname"))
        # JabRef's [auth][year]; [authors2] keys (SmithJones2020) start with the first author
        first = surname[0] if surname and surname[0][:1].isupper() else m.group("surname")
        if first in {"Mc", "Mac", "De", "Le", "La", "Di", "Van", "Von"} and len(surname) > 1:
            first += surname[1]
        return KeyReading(key, "jabref", first, int(m.group("year")))
    if m := _COLON.match(key):
        word = m.group("word")
        said: tuple[str, ...] = (word.lower(),) if len(word) > 1 else ()
        return KeyReading(key, "author-year", m.group("surname"), int(m.group("year")), said)
    parts = [p for p in _SEPARATED.split(key) if p]
    if len(parts) >= 2:
        years = [i for i, p in enumerate(parts) if re.fullmatch(r"(1[5-9]\d\d|20\d\d)[a-z]?", p)]
        if years and _WORD.fullmatch(parts[0]) and years[0] > 0:
            year = int(parts[years[0]][:4])
            rest = [p for i, p in enumerate(parts) if i not in (0, years[0])]
            words = [w for p in rest for w in _CAMEL.findall(p)]
            return KeyReading(key, "author-word-year", parts[0], year, _title_words(words))
    words = _CAMEL.findall(key)
    found = _YEAR.search(key)
    return KeyReading(
        key, "unknown", year=int(found.group(1)) if found else None, words=_title_words(words)
    )


_LATEX_REF = re.compile(
    r"\\(?:ref|eqref|cref|Cref|autoref|label|url|href|input|include)\*?\{[^{}]*\}"
)
_LATEX_COMMAND = re.compile(r"\\[A-Za-z@]+\*?|[{}~]")
#: A citation command (its name read once, possessively, after a look for "cite" in it), a
#: bracketed Pandoc citation (up to its first "@"), or a bare "@key": each repeat stops where
#: the next part starts, so no run of letters or "@" is split in many ways.
_CITE = re.compile(
    r"\\(?=[A-Za-z]*cite)[A-Za-z]++\*?(?:\[[^\]]*\])*\{[^{}]*\}"
    r"|\[[^\]@]*@[^\]]*\]|@[\w:.#$%&+?<>~/-]+"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\\])|\n\s*\n")


def sentence_around(text: str, offset: int, *, reach: int = 400) -> str:
    """The sentence of ``text`` that contains ``offset`` (at most ``reach`` characters
    either side)."""
    lo, hi = max(0, offset - reach), min(len(text), offset + reach)
    window = text[lo:hi]
    at = offset - lo
    start, end = 0, len(window)
    for m in _SENTENCE_END.finditer(window):
        if m.end() <= at:
            start = m.end()
        elif m.start() >= at:
            end = m.start()
            break
    return window[start:end]


def context_words(sentence: str, *, limit: int = MAX_CONTEXT_WORDS) -> tuple[str, ...]:
    """Query words from a citing sentence: citations and commands removed, stop words and
    short words dropped, in order of appearance, at most ``limit``."""
    plain = _LATEX_COMMAND.sub(" ", _LATEX_REF.sub(" ", _CITE.sub(" ", sentence)))
    out: list[str] = []
    for w in _WORD.findall(plain):
        low = w.lower()
        if len(low) < 4 or low in STOP_WORDS or low in out:
            continue
        out.append(low)
        if len(out) >= limit:
            break
    return tuple(out)
