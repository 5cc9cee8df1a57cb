"""Where a sentence ends at a full stop (``.``, ``?``, ``!``, an ellipsis) in masked text.

A full stop before white space (or ``~``) ends its sentence, but not after an abbreviation
(``Fig.``, ``e.g.``) or an initial (``J. Smith``, ``by Ł. Kaiser``; a capital after a
lower-case word or a label, ``proposed X.``, ``Appendix A.``, is no initial), nor before a
number (``Sect. 3``) or, after a dotted or short capitalised abbreviation, a lower-case
word (``U.S. data``); an ellipsis before a lower-case word goes on too.  A citation right
after the mark (``.\\supercite{a}``, ``.[@a]``) ends the sentence with it, and so does a
footnote's mark (``.[^1]``, ``.\\footnotemark``).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence

from citewarden.context.latex_text import MATH_STOP
from citewarden.model import Span

#: Words a full stop follows without ending the sentence (lower-cased, inner dots kept).
ABBREVIATIONS = frozenset(
    [
        "al",
        "e.g",
        "i.e",
        "cf",
        "vs",
        "etc",
        "fig",
        "figs",
        "eq",
        "eqs",
        "eqn",
        "eqns",
        "sec",
        "secs",
        "sect",
        "sects",
        "ref",
        "refs",
        "no",
        "nos",
        "vol",
        "pp",
        "ch",
        "chap",
        "chaps",
        "approx",
        "resp",
        "dr",
        "prof",
        "mr",
        "ms",
        "st",
        "jr",
        "sr",
        "viz",
        "ca",
        "tab",
        "tabs",
        "alg",
        "algs",
        "app",
        "apps",
        "suppl",
        "thm",
        "lem",
        "def",
        "defn",
        "prop",
        "cor",
        "fn",
        "ed",
        "eds",
        "ibid",
        "op",
        "cit",
        "p.m",
        "a.m",
        "z.b",
        "u.s",
        "u.k",
        # conference styles' abbreviation commands (``\\etal.``, ``\\eg.``) and their words
        "etal",
        "eg",
        "ie",
        "wrt",
        "aka",
    ]
)


#: Abbreviations that are English words too (``no``, ``app``): as a word, lower-case.
_WORDS_TOO = frozenset(["no", "nos", "app", "apps"])

#: a sentence-ending mark; an ellipsis spaced or not (``...``, ``. . .``, ``.~.~.``) is one;
#: a footnote's mark after it goes with it (``end.[^1] Next``, ``end.\\footnotemark{} Next``),
#: and so do closing quotes, brackets and Markdown emphasis (``**Note.** Next``)
_END = re.compile(
    r"(?:\.(?:[ ~]?\.){2}|…|[.!?\x04])['\")\]}’”*_]*"
    r"(?:(?:\[\^[^\]\s]{1,100}\]|\\footnotemark(?![A-Za-z@])(?:\[[^\]\s]{0,20}\])?(?:\{\})?)"
    r"['\")\]}’”*_]*)?(?=[\s~])"
)
#: the word a full stop follows, dotted (``e.g``, ``U.S``) or not
_WORD_BEFORE = re.compile(r"(?<![\w.])([^\W\d_](?:[^\W\d_]|\.)*)\.$")
#: the word before an initial
_PREVIOUS = re.compile(r"([^\s~]{1,30})[\s~]+$")
_GAP = re.compile(r"[\s~]*")
#: initials written without spaces between them (``A.B``, ``J.R.R``; the last full stop apart)
_INITIALS = re.compile(r"[^\W\d_](?:\.[^\W\d_])+")
#: Words after which a capital and a full stop are an initial (``by J. Smith``).  In the
#: real documents a capital after another lower-case word was a name, no initial (``written
#: in R. One``, ``in C. The``), and one after a capitalised word a given name's initial.
_BEFORE_INITIAL = frozenset(
    [
        "by",
        "and",
        "of",
        "with",
        "from",
        "et",
        "see",
        "cf",
        "und",
        "von",
        "van",
        "de",
        "da",
        "di",
        "del",
        "der",
        "den",
        "la",
        "le",
        "du",
        "dos",
        "des",
        "y",
        "e",
    ]
)
#: Words after which a capital and a full stop are a label (``Appendix A.``), no initial.
_LABELS = frozenset(
    [
        "appendix",
        "appendices",
        "section",
        "sect",
        "table",
        "tab",
        "figure",
        "fig",
        "chapter",
        "part",
        "theorem",
        "lemma",
        "corollary",
        "definition",
        "proposition",
        "step",
        "phase",
        "type",
        "class",
        "group",
        "model",
        "case",
        "condition",
        "variant",
        "option",
        "experiment",
        "study",
        "scenario",
        "algorithm",
        "annex",
        "exhibit",
        "box",
        "panel",
        "equation",
        "category",
        "level",
        "grade",
        "stage",
        "plan",
        "site",
        "zone",
        "region",
        "area",
        "dataset",
        "task",
        "track",
        "vitamin",
    ]
)


_PARAGRAPH = re.compile(r"\n[ \t\r]*\n")
#: Ties between a mark and a citation attached to it (``.~\\cite{a}``).
_TILDES = re.compile("~*")


def _ties_end(masked: str, at: int) -> int:
    """Where the run of ties (``~``) from ``at`` ends: read once per mark, not copied."""
    found = _TILDES.match(masked, at)
    return found.end() if found is not None else at


def full_stops(masked: str, commands: Sequence[Span] = ()) -> Iterator[tuple[int, int]]:
    """(end, end) of every sentence-ending punctuation mark of ``masked``, in order; a
    citation right after the mark (``.\\supercite{a}``, ``.[@a]``) ends the sentence with
    it.  ``commands``: the citation commands, in order (blanked in ``masked``)."""
    firsts = [c.start for c in commands]
    for m in _END.finditer(masked):
        at = m.start()
        end = m.end()
        gap = _GAP.match(masked, end).end()  # type: ignore[union-attr]
        following = masked[gap] if gap < len(masked) else ""
        if masked[at] == "." and not _ellipsis(m.group()) and _no_end_after(masked, at, following):
            continue
        k = bisect_left(firsts, end)
        cited = k < len(firsts) and firsts[k] < gap
        if gap < len(masked) and _goes_on(masked, at, m.group(), masked[gap], cited):
            continue
        # a citation after the mark and before a capital (or the paragraph's end) is the
        # sentence's (``shown. \\cite{a} The next``); one before a lower-case word is the
        # next sentence's subject (``shown. \\cite{a} showed``)
        loose = not following.islower()
        while k < len(firsts) and end <= firsts[k]:
            if firsts[k] > _ties_end(masked, end) and not (
                loose and commands[k].end <= gap and not _PARAGRAPH.search(masked, end, firsts[k])
            ):
                break
            end = commands[k].end  # attached to the mark: read with the sentence before
            k += 1
        yield end, end


def _ellipsis(mark: str) -> bool:
    """Whether the mark (see ``_END``) is an ellipsis."""
    return mark[0] == "…" or mark.count(".") >= 3


def _goes_on(masked: str, at: int, mark: str, following: str, cited: bool) -> bool:
    """Whether the sentence goes on past the mark ``mark`` at ``at`` to the character
    ``following`` (``cited``: a citation stands between them): a number after a full stop
    (``Sect. 3``), a lower-case word after an ellipsis (``... and``), after a question or
    an exclamation mark (a quoted title's, a name's: ``"Can machines think?" asked``),
    after a dotted or a short capitalised abbreviation (``U.S. data``, ``Suppl. data``),
    unless a citation starts the next sentence.  A lower-case word after another word's
    full stop starts a sentence (``... modelling. scikit-image provides``)."""
    if _ellipsis(mark):
        return following.islower()
    if mark[0] == MATH_STOP:  # displayed math's full stop before ``where``
        return following.islower() or following.isdigit()
    if mark[0] in "?!":  # ``think?'' posed``, ``Yahoo! search``
        return not cited and following.islower()
    if mark[0] != "." or cited:
        return False
    if following.isdigit():
        return True
    if not following.islower():
        return False
    word = _WORD_BEFORE.search(masked, max(0, at - 12), at + 1)
    w = "" if word is None else word.group(1)
    return "." in w or (len(w) <= 5 and w[:1].isupper())


def _no_end_after(masked: str, at: int, following: str = "") -> bool:
    """Whether the full stop at ``at`` follows an abbreviation or an initial (``following``:
    the first character after the white space after it)."""
    word = _WORD_BEFORE.search(masked, max(0, at - 12), at + 1)
    if word is None:
        return False
    w = word.group(1)
    if w.lower() in ABBREVIATIONS:
        # a list's last word, or a word written as the abbreviation is not, before a capital
        # ends its sentence (``so on, etc. The``, ``the answer is no. We``, ``mobile apps.
        # Our``); ``No. 5``, ``App. B`` and ``etc. and`` go on
        ends = w.lower() == "etc" or (w.lower() in _WORDS_TOO and w.islower())
        return not (ends and following.isupper())
    if not (len(w) == 1 or _INITIALS.fullmatch(w)) or not w.isupper():
        return False
    # one capital, or capitals with full stops and no spaces between (``A.B. Smith``): an
    # initial (``Ł. Kaiser``, ``John F. Kennedy``, ``by J. Smith``, ``by A.B. Smith``) unless
    # a lower-case word or a label comes before it (``proposed X.``, ``Appendix A.``)
    previous = _PREVIOUS.search(masked, max(0, word.start() - 40), word.start())
    if previous is None:
        return True
    before = previous.group(1).strip("\"'()[],;:")
    lowered = before.lower()
    if lowered in _LABELS:
        return False
    return not (before.isalpha() and before.islower() and lowered not in _BEFORE_INITIAL)
