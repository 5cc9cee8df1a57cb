"""The citing sentence of every citation, in LaTeX and Markdown (pure, bounded).

The sentence is found in the document's text around the citation command: it runs from the
previous sentence end (``.``, ``?``, ``!`` before white space, not after a common
abbreviation or an initial), paragraph break or structural command to the next one.  Every
citation command in the window is blanked out first, so ``\\citet{a} showed`` reads
``showed`` and the keys of other citations never count as words; comments, math and markup
are removed from the plain text.  The sentences before and after come with it (the words
around a citation help tell what it is cited for).

The argument of a LaTeX footnote, heading, caption or ``\\thanks``, and a pandoc inline
note (``^[...]``), is text of its own (an island): a citation inside one gets the island's
sentence (or, when the island holds nothing but citations, the sentence around it), and the
sentences around an island read on without its words.  Each row of a Markdown table is a
sentence.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from citewarden.model import Citation, CitationKind, DocumentKind, Span

#: How far to look either side of a citation for its sentence's ends (characters).
WINDOW = 1500
#: Longest plain sentence kept (characters).
MAX_SENTENCE = 600
#: A sentence cut at the window ends on a multiple of this, so that the citations of one
#: long run without a sentence break share their windows (each read once, in linear time).
_STEP = WINDOW // 4

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
        "sec",
        "ref",
        "refs",
        "no",
        "nos",
        "vol",
        "pp",
        "ch",
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
    ]
)


@dataclass(frozen=True, slots=True)
class CitingSentence:
    """The sentence around one citation: ``text`` plain, ``span`` its place in the file;
    ``before`` / ``after`` the plain neighbouring sentences (possibly empty)."""

    text: str
    span: Span
    before: str = ""
    after: str = ""


_LATEX_BREAK = re.compile(
    r"\n[ \t]*\n"
    r"|\\(?:part|chapter|(?:sub)*section|(?:sub)?paragraph|begin|end|bibliography|"
    r"printbibliography)\b\*?(?:\[[^\]]{0,200}\])?(?:\{[^{}]{0,200}\})?"
    r"|\\(?:caption|item|par|maketitle)\b\*?|\\\\"
)
_MD_BREAK = re.compile(
    r"\n[ \t]*\n|^[ \t]{0,3}(?:#{1,6}[ \t]|[-*+][ \t]|\d+[.)][ \t]|>|\|)"
    # rules, metadata delimiters and code fences stand on lines of their own
    r"|^[ \t]{0,3}(?:-{3,}|\*{3,}|_{3,}|\.{3}|`{3,}|~{3,})[^\n]*$",
    re.M,
)
#: the YAML metadata block a Markdown file starts with (front matter): not prose
_MD_FRONT = re.compile(r"\A---[ \t]*\n.*?^(?:---|\.\.\.)[ \t]*$", re.S | re.M)
_END = re.compile(r"[.!?]['\")\]}]*(?=\s)")
_WORD_BEFORE = re.compile(r"([A-Za-z.]+)\.$")


_NOT_NEWLINE = re.compile(r"[^\n]")


def _spaces(text: str) -> str:
    """``text`` as spaces, its line breaks kept (every offset stays where it was)."""
    if "\n" not in text:
        return " " * len(text)
    return _NOT_NEWLINE.sub(" ", text)


def _blank(m: re.Match[str]) -> str:
    """The match as spaces, its line breaks kept."""
    return _spaces(m.group())


def _blank_commands(text: str, spans: Sequence[Span]) -> str:
    """``text`` with each span (line breaks and all) replaced by spaces, built from slices:
    memory in proportion to the text and the number of spans, not one object a character."""
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for s in sorted(spans, key=lambda s: s.start):
        start, end = max(s.start, pos), min(s.end, len(text))
        if end > start:
            parts += (text[pos:start], " " * (end - start))
            pos = end
    parts.append(text[pos:])
    return "".join(parts)


def _mask(text: str, spans: Sequence[Span], kind: DocumentKind, whole: bool = True) -> str:
    """``text`` with citation commands (and LaTeX comments) replaced by spaces; ``whole``:
    ``text`` starts where the file does (a Markdown file's front matter is no prose)."""
    masked = _blank_commands(text, spans)
    if kind is DocumentKind.LATEX:
        masked = re.sub(r"(?<!\\)%[^\n]*", _blank, masked)
    elif whole:
        masked = _MD_FRONT.sub(_blank, masked, count=1)
    return masked


def _ends(masked: str, kind: DocumentKind) -> tuple[array[int], array[int]]:
    """Where every break between sentences in ``masked`` starts (a sentence ends) and where
    it ends (the next sentence starts), in order: two arrays, 16 bytes a break (a text of
    nothing but breaks takes a few times its size, not an object for each)."""
    breaks = _LATEX_BREAK if kind is DocumentKind.LATEX else _MD_BREAK
    ends, starts = array("q"), array("q")
    marks = ((m.start(), m.end()) for m in breaks.finditer(masked))
    for end, start in heapq.merge(marks, _full_stops(masked)):
        ends.append(end)
        starts.append(start)
    return ends, starts


def _full_stops(masked: str) -> Iterator[tuple[int, int]]:
    """(end, end) of every sentence-ending punctuation mark of ``masked``, in order."""
    for m in _END.finditer(masked):
        word = _WORD_BEFORE.search(masked, max(0, m.start() - 12), m.start() + 1)
        if word is not None and masked[m.start()] == ".":
            w = word.group(1).lower().rstrip(".")
            if w in ABBREVIATIONS or (len(w) == 1 and w.isalpha()):
                continue
        yield m.end(), m.end()


# No part of these scans past the next opening of its own kind: an opener left unclosed
# then costs the distance to the next one, not the rest of the window, every time.
_MATH = re.compile(
    r"\$\$.*?\$\$|\$[^$]*\$"
    r"|\\\((?:[^\\]|\\\\|\\(?![(\\]))*?\\\)|\\\[(?:[^\\]|\\\\|\\(?![\[\\]))*?\\\]",
    re.S,
)
_DROP_ARG = re.compile(
    r"\\(?:label|ref|eqref|autoref|cref|Cref|pageref|url|nolinkurl|href|doi|footnotemark)"
    r"\*?\{[^{}]*\}"
)
_COMMAND = re.compile(r"\\[A-Za-z@]+\*?(?:\[[^\[\]]*\])?")
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\((?:[^()]|\([^()]*\))*\)")
_MD_MARK = re.compile(r"[*_`#>|]+")
#: a footnote's mark (``[^1]``) or the label its text starts with (``[^1]:``)
_MD_NOTE_MARK = re.compile(r"\[\^[^\]\s]{1,100}\]:?")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"\w")
_LATEX_GROUPING = str.maketrans("", "", "{}[]")


def plain(raw: str, kind: DocumentKind) -> str:
    """The readable words of a stretch of (masked) source text."""
    if kind is DocumentKind.LATEX:
        text = _MATH.sub(" ", raw)
        text = _DROP_ARG.sub(" ", text)
        text = _COMMAND.sub(" ", text)
        text = re.sub(r"\\([%&_#$])", r"\1", text)
        text = re.sub(r"\\[^A-Za-z]", " ", text)  # control spaces and symbols
        # braces and the brackets of an optional argument left (``\\item[Adam]``) are no words
        text = text.replace("~", " ").translate(_LATEX_GROUPING)
        text = text.replace("``", '"').replace("''", '"').replace("---", "-").replace("--", "-")
    else:
        text = _MD_NOTE_MARK.sub(" ", raw) if "[^" in raw else raw
        text = _MD_LINK.sub(r"\1", text)
        text = _MATH.sub(" ", text)
        text = _MD_MARK.sub("", text)
    text = _SPACE.sub(" ", text).strip()
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s*[,;]?\s*\)", "", text).strip()
    if len(text) > MAX_SENTENCE:
        text = text[:MAX_SENTENCE].rsplit(" ", 1)[0] + " ..."
    return text


#: Commands whose (last) argument is text of its own: footnotes, headings, captions.
_ISLAND = re.compile(
    r"\\(?:(footnote|footnotetext|thanks)|caption|part|chapter|(?:sub)*section|(?:sub)?paragraph)"
    r"\*?(?:\[[^\[\]{}]{0,200}\])?\s{0,20}\{"
)
#: an inline note's opening (its ``^`` read even when escaped), another bracket, or a run of
#: empty notes (``^[]``: no text of their own, passed over at once; possessive, so that
#: :mod:`re` keeps no frame for each)
_MD_BRACKETS = re.compile(r"(?:\^\[\])++|\^\[|(?<!\\)[\[\]]")
_EMPTY_NOTE = "^[]"
#: The longest island read as one (characters); a longer argument is left in the text.
MAX_ISLAND = 4 * WINDOW
_BRACES = re.compile(r"(?<!\\)[{}]")


def _islands(masked: str, kind: DocumentKind) -> tuple[array[int], array[int], array[int]]:
    """(start, end, cut) of the text of every outermost island of ``masked`` (after the
    opening brace, before the closing one), in order, as three arrays (24 bytes an island);
    ``cut``: where a note's command (or ``^[``) starts, which the text around it reads
    without, closing brace included (a full stop before a note still ends its sentence),
    else -1 (a heading's or a caption's command stays: it ends a sentence).  One pass over
    the braces (brackets in Markdown): each opening one is matched once, so an unclosed
    argument costs nothing more."""
    if kind is not DocumentKind.LATEX:
        return _note_islands(masked)
    starts, ends, cuts = array("q"), array("q"), array("q")
    if "\\" not in masked:
        return starts, ends, cuts
    #: the opening brace of each island's command, in order, and its cut
    braces, cut_of = array("q"), array("q")
    for m in _ISLAND.finditer(masked):
        braces.append(m.end() - 1)
        cut_of.append(m.start() if m.start(1) != -1 else -1)
    if not braces:
        return starts, ends, cuts
    stack = array("q")  # 8 bytes an open brace
    for m in _BRACES.finditer(masked):
        at = m.start()
        if masked[at] == "{":
            stack.append(at)
        elif stack:
            opened = stack.pop()
            k = bisect_left(braces, opened)
            if k < len(braces) and braces[k] == opened and at - opened <= MAX_ISLAND:
                while starts and starts[-1] > opened:
                    starts.pop()  # an island inside this one: the outermost is kept
                    ends.pop()
                    cuts.pop()
                starts.append(opened + 1)
                ends.append(at)
                cuts.append(cut_of[k])
    return starts, ends, cuts


def _note_islands(masked: str) -> tuple[array[int], array[int], array[int]]:
    """:func:`_islands` of a Markdown text: its inline notes but the empty ones (``^[]``),
    which hold no text and are cut out of the text around them by :func:`_around_islands`
    (a run of them is passed over in one match)."""
    starts, ends, cuts = array("q"), array("q"), array("q")
    if "^[" not in masked:
        return starts, ends, cuts
    stack = array("q")  # 9 bytes an open bracket: its offset, and whether it opens a note
    notes = array("b")
    for m in _MD_BRACKETS.finditer(masked):
        at = m.start()
        if masked[at] != "]":
            if masked[m.end() - 1] != "]":  # not a run of empty notes
                stack.append(m.end() - 1)
                notes.append(masked[at] == "^")
        elif stack:
            opened = stack.pop()
            if notes.pop() and at - opened <= MAX_ISLAND:
                if starts and starts[-1] > opened:  # islands inside this one: the
                    k = bisect_right(starts, opened)  # outermost is kept
                    del starts[k:], ends[k:], cuts[k:]
                starts.append(opened + 1)
                ends.append(at)
                cuts.append(opened - 1)
    return starts, ends, cuts


def _around_islands(
    masked: str, kind: DocumentKind, starts: array[int], ends: array[int], cuts: array[int]
) -> str:
    """``masked`` without the text of its islands (see :func:`_islands`): the text the
    sentences around them are read from."""
    if kind is not DocumentKind.LATEX and _EMPTY_NOTE in masked:
        masked = masked.replace(_EMPTY_NOTE, " " * len(_EMPTY_NOTE))
    if not starts:
        return masked
    blanked = (
        (a, b) if cut < 0 else (cut, b + 1) for a, b, cut in zip(starts, ends, cuts, strict=True)
    )
    return _blank_spans(masked, blanked)


def _blank_spans(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces (line breaks kept), joined a thousand
    pieces at a time: many short spans take memory in proportion to the text."""
    chunks: list[str] = []
    parts: list[str] = []
    pos = 0
    for a, b in spans:
        parts += (text[pos:a], _spaces(text[a:b]))
        pos = b
        if len(parts) >= 1000:
            chunks.append("".join(parts))
            parts.clear()
    parts.append(text[pos:])
    chunks.append("".join(parts))
    return "".join(chunks)


class _Text:
    """A masked text with its sentence breaks, read from ``offset`` of the file."""

    def __init__(self, masked: str, kind: DocumentKind, offset: int = 0) -> None:
        self.masked, self.kind, self.offset = masked, kind, offset
        #: where each break between sentences starts (a sentence ends) and where it ends
        self.ends, self.starts = _ends(masked, kind)
        #: The readable words of each stretch read so far: the citations of one sentence,
        #: and neighbours' sentences before and after, share them.
        self._read: dict[tuple[int, int], tuple[str, bool]] = {}

    def plain(self, start: int, end: int) -> tuple[str, bool]:
        """:func:`plain` of ``masked[start:end]`` and whether it holds a word, each stretch
        read once."""
        found = self._read.get((start, end))
        if found is None:
            text = plain(self.masked[start:end], self.kind)
            found = self._read[start, end] = (text, _WORD.search(text) is not None)
        return found

    def around(self, command: Span) -> CitingSentence | None:
        d = self.offset
        found = _around(self, Span(command.start - d, command.end - d))
        if found is None or not d:
            return found
        return CitingSentence(
            found.text, Span(found.span.start + d, found.span.end + d), found.before, found.after
        )


#: How far from a citation its sentence, the sentences around it and an island holding it
#: can reach: one citation's sentence is read from a stretch of this much either side.
REACH = 3 * WINDOW + MAX_ISLAND + 1000


def citing_sentences(
    text: str, citations: Sequence[Citation], kind: DocumentKind, only: int | None = None
) -> tuple[CitingSentence | None, ...]:
    """The citing sentence of each of ``citations`` (None for ``\\nocite`` ones and where
    nothing readable surrounds the citation), in the same order; with ``only``, just that
    citation's (the others None), read from the lines within :data:`REACH` of it."""
    if only is None or len(text) <= 4 * REACH or citations[only].kind is not CitationKind.CITE:
        return _sentences(text, citations, kind, only)
    at = citations[only].command_span
    lo = text.rfind("\n", 0, max(0, at.start - REACH)) + 1
    hi = text.find("\n", at.end + REACH)
    hi = len(text) if hi < 0 else hi + 1
    nearby = [c for c in citations if lo <= c.command_span.start and c.command_span.end <= hi]
    found = _sentences(text[lo:hi], nearby, kind, nearby.index(citations[only]), lo)
    out: list[CitingSentence | None] = [None] * len(citations)
    out[only] = next((s for s in found if s is not None), None)
    return tuple(out)


def _sentences(
    text: str,
    citations: Sequence[Citation],
    kind: DocumentKind,
    only: int | None = None,
    offset: int = 0,
) -> tuple[CitingSentence | None, ...]:
    """:func:`citing_sentences` of ``text``, the stretch of the file from ``offset``
    (the citations' spans are the file's)."""
    commands = sorted(
        {Span(c.command_span.start - offset, c.command_span.end - offset) for c in citations},
        key=lambda s: s.start,
    )
    masked = _mask(text, commands, kind, whole=not offset)
    starts, ends, cuts = _islands(masked, kind)
    main = _Text(_around_islands(masked, kind, starts, ends, cuts), kind, offset)
    inner: dict[int, _Text] = {}
    out: list[CitingSentence | None] = []
    for i, c in enumerate(citations):
        if c.kind is not CitationKind.CITE or (only is not None and i != only):
            out.append(None)
            continue
        k = bisect_right(starts, c.command_span.start - offset) - 1
        found = None
        if k >= 0 and c.command_span.end - offset <= ends[k]:
            if k not in inner:
                inner[k] = _Text(masked[starts[k] : ends[k]], kind, offset + starts[k])
            found = inner[k].around(c.command_span)
        out.append(found or main.around(c.command_span))
    return tuple(out)


def _sentence_at(
    ends: Sequence[int], starts: Sequence[int], pos: int, size: int
) -> tuple[int, int, int]:
    """(start, end, index of the break that ends it) of the sentence holding ``pos``, cut
    between ``WINDOW - _STEP`` and ``WINDOW`` characters either side of it; ``ends`` and
    ``starts``: where each break starts and ends (see :func:`_ends`)."""
    i = bisect_left(starts, pos + 1) - 1  # the last break ending at or before pos
    start = max(starts[i] if i >= 0 else 0, -(-(pos - WINDOW) // _STEP) * _STEP)
    j = i + 1
    while j < len(ends) and ends[j] < pos:
        j += 1
    end = min(ends[j] if j < len(ends) else size, (pos + WINDOW) // _STEP * _STEP)
    return start, end, j


def _around(text: _Text, command: Span) -> CitingSentence | None:
    masked, ends, starts, read = text.masked, text.ends, text.starts, text.plain
    start, end, j = _sentence_at(ends, starts, command.start, len(masked))
    sentence, worded = read(start, end)
    if not worded and start > 0:
        # a citation standing after its sentence's full stop (``... shown. \\cite{a}``)
        start, end, j = _sentence_at(ends, starts, max(0, start - 1), len(masked))
        sentence, worded = read(start, end)
    if not worded:
        return None
    b_start, b_end, _ = _sentence_at(ends, starts, max(0, start - 2), len(masked))
    before = read(b_start, b_end)[0] if start > 0 and b_end <= start else ""
    after = ""
    if j < len(ends):
        a_start, a_end, _ = _sentence_at(ends, starts, starts[j] + 1, len(masked))
        if a_start >= end:
            after = read(a_start, a_end)[0]
    kept = masked[start:end].rstrip()  # the span without the spaces at its ends
    end = start + len(kept)
    start += len(kept) - len(kept.lstrip())
    return CitingSentence(sentence, Span(start, end), before, after)
