"""The words the relevance score compares: case-folded, stemmed content words (pure)."""

from __future__ import annotations

import functools
import re

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "although",
        "am",
        "among",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "done",
        "down",
        "during",
        "each",
        "either",
        "et",
        "al",
        "etc",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "however",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "let",
        "may",
        "me",
        "might",
        "more",
        "most",
        "much",
        "must",
        "my",
        "neither",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "one",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "per",
        "rather",
        "same",
        "she",
        "should",
        "since",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "though",
        "through",
        "thus",
        "to",
        "too",
        "two",
        "under",
        "until",
        "up",
        "upon",
        "us",
        "use",
        "used",
        "uses",
        "using",
        "very",
        "via",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "whether",
        "which",
        "while",
        "who",
        "whom",
        "whose",
        "why",
        "will",
        "with",
        "within",
        "without",
        "would",
        "yet",
        "you",
        "your",
        "e",
        "g",
        "i",
        "ie",
        "eg",
        "cf",
        "fig",
        "figure",
        "table",
        "section",
        "shown",
        "show",
        "shows",
        "showed",
        "paper",
        "work",
        "works",
        "study",
        "studies",
        "approach",
        "method",
        "methods",
        "result",
        "results",
        "based",
        "new",
        "well",
        "many",
        "often",
    ]
)

_WORD = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")
#: The longest term (characters).  The longest words of English (45 letters) and the long
#: German compounds a title may hold (a 63-letter law name) are shorter; a longer run of
#: letters is no word (an encoded blob, a pasted hash, one letter repeated) and is not
#: stemmed, which takes time in proportion to its length.
MAX_WORD = 64


#: British spellings folded into American ones, so that a sentence written with "modelled",
#: "behaviour" or "optimisation" meets a record that says "modeled", "behavior",
#: "optimization" (the rules apply to both sides, so a word they touch that has no
#: American twin still meets itself).
_SPELLING = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (r"^(.{3,})is(e|es|ed|ing|er|ers|ation|ations)$", r"\1iz\2"),
        (r"^(.{2,})ys(e|es|ed|ing|er|ers)$", r"\1yz\2"),
        (r"^(.{3,})our(s|ed|ing|ite|ites|hood|hoods|less|ful)?$", r"\1or\2"),
        (r"^(.{3,})elled$", r"\1eled"),
        (r"^(.{3,})elling$", r"\1eling"),
        (r"^(.{3,})eller(s)?$", r"\1eler\2"),
        (r"^(.{2,})tre(s)?$", r"\1ter\2"),
        (r"^(.{2,})tred$", r"\1tered"),
        (r"^(.{3,})ogue(s)?$", r"\1og\2"),
        (r"^(def|off|pret)ence(s)?$", r"\1ense\2"),
        (r"^(program)me(s)?$", r"\1\2"),
        (r"(h|an|leuk|isch|septic|p|gyn)ae(?=m|d|c)", r"\1e"),
        (r"^oe(soph|str|dem)", r"e\1"),
        (r"^aetiol", "etiol"),
    )
)


#: Any of the patterns (most words have none: one search tells).
_ANY_SPELLING = re.compile("|".join(f"(?:{p.pattern})" for p, _ in _SPELLING))


def american(word: str) -> str:
    """``word`` with British spellings folded (see ``_SPELLING``)."""
    if not _ANY_SPELLING.search(word):
        return word
    for pattern, repl in _SPELLING:
        word = pattern.sub(repl, word)
    return word


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English suffix stripper (plurals, -ing, -ed, -ly, -ation ...), after
    British spellings are folded (:func:`american`)."""
    if len(word) <= 3 or word.isdigit():
        return word
    word = american(word)
    for suffix, repl in (
        ("ational", "ate"),
        ("ization", "ize"),
        ("isation", "ize"),
        ("ations", "ate"),
        ("ation", "ate"),
        ("ities", "ity"),
        ("ies", "y"),
        ("sses", "ss"),
        ("ness", ""),
        ("ments", "ment"),
        ("ingly", ""),
        ("edly", ""),
        ("ing", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", "e"),
        ("s", ""),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: len(word) - len(suffix)] + repl
    return word


def terms(text: str | None) -> list[str]:
    """The content words of ``text``, case-folded and stemmed."""
    if not text:
        return []
    return list(_terms(text))


#: What a citing sentence shows for a piece of math: no word of it (never scored).
MATH_SHOWN = "[math]"
#: What a citing sentence shows for a cross-reference's number (``Section~\\ref{s}`` reads
#: ``Section [ref]``): no word of it either.
REF_SHOWN = "[ref]"


#: What a citing sentence shows for the words a citation command puts into it: the cited
#: work's authors (``\\citeauthor{a}``, ``\\citet{a}``, pandoc's ``@a``), its year
#: (``\\citeyear{a}``) and its title (``\\citetitle{a}``).  No word either: the cited
#: work's own author or title in the sentence would make any work fit its citation.
AUTHOR_SHOWN = "[author]"
YEAR_SHOWN = "[year]"
TITLE_SHOWN = "[title]"
_PLACEHOLDERS = re.compile(r"\[(?:math|ref|author|year|title)\]")


def unshown(text: str) -> str:
    """``text`` without the placeholders a citing sentence shows for math, references and
    the words of citation commands."""
    if "[" not in text:
        return text
    return _PLACEHOLDERS.sub(" ", text)


@functools.lru_cache(maxsize=1 << 15)
def _terms(text: str) -> tuple[str, ...]:
    out: list[str] = []
    text = unshown(text)
    for w in _WORD.findall(text.casefold()):
        for part in w.split("-"):
            if 1 < len(part) <= MAX_WORD and part not in STOPWORDS and not part.isdigit():
                out.append(stem(part))
    return tuple(out)
