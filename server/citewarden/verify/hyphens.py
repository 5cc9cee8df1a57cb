"""Hyphens in titles (pure): which hyphenation differences change a title's words.

Sources and bibliographies write compounds differently: joined or hyphenated ("Pretraining",
"Pre-training") is a spelling variant.  A compound the record hyphenates, written as two
words ("Schema Variable" for "Schema-Variable"), is not: it is how near-miss titles are
made, and :func:`citewarden.verify.compare.compare_title` reports it as one.
"""

from __future__ import annotations

import unicodedata

_HYPHENS = frozenset("-\u2010\u2011")


def _letters_and_gaps(text: str) -> tuple[str, tuple[str, ...]]:
    """The letters and digits of ``text`` (lower case, accents dropped) and what separates
    each from the one before: "-" (a hyphen right after a letter, "multi- agent" too),
    " " (space, or a dash between spaces: "Data - Analytic"), or "" (nothing, or other
    punctuation)."""
    letters: list[str] = []
    gaps: list[str] = []
    gap = ""
    for ch in unicodedata.normalize("NFKD", text.lower()):
        if ch.isalnum():
            letters.append(ch)
            gaps.append(gap)
            gap = ""
        elif ch in _HYPHENS:
            gap = "-" if gap == "" and letters else " "
        elif ch.isspace() and gap != "-":
            gap = " "
    return "".join(letters), tuple(gaps)


def splits_compound(entry_title: str, record_title: str) -> bool:
    """The entry writes as two words what the record's title joins with a hyphen
    ("Schema Variable" for "Schema-Variable", "Chain of-Thought" for "Chain-of-Thought"),
    all else equal.  Joining a compound ("Pretraining" for "Pre-training") or hyphenating
    words is a spelling variant; splitting one changes the words.  Only hyphens between
    letters count ("1-1/e" is arithmetic)."""
    e_letters, e_gaps = _letters_and_gaps(entry_title)
    r_letters, r_gaps = _letters_and_gaps(record_title)
    if e_letters != r_letters:
        return False
    return any(
        r == "-" and e == " " and r_letters[i - 1].isalpha() and r_letters[i].isalpha()
        for i, (e, r) in enumerate(zip(e_gaps, r_gaps, strict=True))
        if i > 0
    )
