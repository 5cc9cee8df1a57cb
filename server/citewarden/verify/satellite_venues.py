"""Satellite venues: the workshops and the Findings a conference hosts beside its main
track (pure).

A paper of "CVPR Workshops", of "ICML Workshop on ...", or of "Findings of the Association
for Computational Linguistics: EMNLP 2023" is not a paper of CVPR, ICML or EMNLP, yet the
names agree through the host's acronym or words.  :func:`satellite_cited_as_host` tells a
citation that names the host for a record that names one of its satellites (a venue
difference); a citation naming the satellite of a work a record files under the host is
not one (indexes often file satellite papers so).  A workshop of its own ("IEEE Spoken
Language Technology Workshop", "Workshop on Machine Translation") has no host to be
confused with.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from citewarden.verify.normalize import fold
from citewarden.verify.venue_table import VenueKind
from citewarden.verify.venues import registry_venue, venue_agrees

#: "Workshop(s)" or "Findings" as a word, but not in the name of a conference that holds
#: workshops too ("International Conference and Workshop on ...").
_SATELLITE_WORD = re.compile(r"\b(?:workshops?|findings)\b", re.IGNORECASE)
_HOST_AND_WORKSHOP = re.compile(
    r"\b(?:conferences?|symposi(?:um|a)|congress(?:es)?)\s+(?:and|&)\s+workshops?\b"
    r"|\bworkshops?\s+(?:and|&)\s+(?:conferences?|symposi(?:um|a)|congress(?:es)?)\b",
    re.IGNORECASE,
)
#: A conference's acronym with a final W for its workshops: CVPRW, ICCVW, ECCVW ("WWW", the
#: Web Conference, is not one).
_WORKSHOP_ACRONYM = re.compile(r"\b[A-Z]{2,}[A-VX-Z]W\b")
#: Where a satellite names its host after itself: "Findings of the ACL: EMNLP 2023",
#: "Findings of EMNLP", "Workshop on ... at NeurIPS 2023", "... (co-located with ACL 2020)".
#: The colon first: "Findings of the Association for Computational Linguistics: EMNLP 2023"
#: are EMNLP's.
_HOST_AFTER = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r":",
        r"\bat\b|\bco-?located\s+with\b|\bin\s+conjunction\s+with\b",
        r"\bof(?:\s+the)?\b",
    )
)
_CONFERENCE_WORD = re.compile(r"\b(?:conference|symposium|congress)\b", re.IGNORECASE)
_TRIM = " ,:;-()\u2013\u2014"


def names_satellite(name: str) -> bool:
    """Does the venue ``name`` name a workshop or Findings ("CVPR Workshops", "CVPRW",
    "ICML Workshop on ...", "Workshop on Machine Translation", "EMNLP (Findings)")?"""
    plain = _HOST_AND_WORKSHOP.sub(" ", name)
    return bool(_SATELLITE_WORD.search(plain) or _WORKSHOP_ACRONYM.search(plain))


def _is_conference(host: str) -> bool:
    """A conference of the bundled table, or a name that says it is a conference."""
    if not fold(host):
        return False
    venue = registry_venue(host)
    if venue is not None:
        return venue.kind == VenueKind.CONFERENCE
    return bool(_CONFERENCE_WORD.search(host))


@lru_cache(maxsize=4096)
def satellite_host(name: str) -> str | None:
    """The conference whose workshop or Findings ``name`` names, as written there: before
    the satellite ("CVPR" of "CVPR Workshops", "CVPR" of "CVPRW", "EMNLP" of "EMNLP
    (Findings)", "... Conference on Computer Vision and Pattern Recognition" of "...
    Workshops (CVPRW)"), or after it ("EMNLP 2023" of "Findings of the Association for
    Computational Linguistics: EMNLP 2023", "NeurIPS 2023" of "Workshop on ... at NeurIPS
    2023").  None for a workshop of its own, or a name that names no satellite."""
    if _HOST_AND_WORKSHOP.search(name):
        return None
    candidates: list[str] = []
    word = _SATELLITE_WORD.search(name)
    if word is not None:
        candidates.append(name[: word.start()].strip(_TRIM))
        rest = name[word.end() :]
        for after in _HOST_AFTER:
            candidates += [rest[m.end() :].strip(_TRIM) for m in after.finditer(rest)]
    candidates += [m.group(0)[:-1] for m in _WORKSHOP_ACRONYM.finditer(name)]
    return next((host for host in candidates if _is_conference(host)), None)


def satellite_cited_as_host(entry_venue: str, names: Sequence[str]) -> bool:
    """One of the record's names is a satellite of a host conference
    (:func:`satellite_host`) that the citation names, and the citation names no
    satellite: a workshop or Findings paper cited as a paper of the main conference."""
    if names_satellite(entry_venue):
        return False
    for name in names:
        host = satellite_host(name)
        if host is not None and venue_agrees(entry_venue, (host,)):
            return True
    return False
