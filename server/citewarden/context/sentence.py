"""The citing sentence of every citation, in LaTeX and Markdown (pure, bounded).

The sentence is found in the document's text around the citation command: it runs from the
previous sentence end (see :mod:`citewarden.context.full_stops`), paragraph break or
structural break (a heading, a list item, a table's row or cell, see
:mod:`~citewarden.context.latex_text` and :mod:`~citewarden.context.markdown_text`) to the
next one.  Every citation command in the window is blanked out first, so the keys of
citations never count as words (a command that typesets the cited work's authors, year or
title leaves a placeholder the score does not read: ``\\citet{a} showed`` reads
``[author] showed``); comments,
math and markup are masked before the breaks are looked for, so that none of them ends or
joins a sentence, and are not in the plain text.  The sentences before and after come with
it (the words around a citation help tell what it is cited for).

The argument of a LaTeX footnote (an endnote, a side or margin note too), heading,
caption, front-matter command or ``\\thanks``, and a pandoc inline note (``^[...]``), is text of its own (an island): a citation inside one
gets the island's sentence (or, when the island holds nothing but citations, the sentence
around it), and the sentences around an island read on without its words.
"""

from __future__ import annotations

import heapq
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from citewarden.context.full_stops import ABBREVIATIONS as ABBREVIATIONS
from citewarden.context.full_stops import full_stops
from citewarden.context.latex_macros import Macros, document_macros
from citewarden.context.latex_text import MATH_STOP, REF, latex_breaks, latex_plain, mask_latex
from citewarden.context.markdown_crossref import crossrefs
from citewarden.context.markdown_text import (
    markdown_breaks,
    markdown_plain,
    mask_markdown,
    shown,
    table_cells,
)
from citewarden.context.names import Named, pandoc_authors
from citewarden.context.words import (
    AUTHOR_SHOWN,
    MATH_SHOWN,
    TITLE_SHOWN,
    YEAR_SHOWN,
    unshown,
)
from citewarden.model import Citation, CitationKind, DocumentKind, Span
from citewarden.pandoc_version import Version

#: How far to look either side of a citation for its sentence's ends (characters).
WINDOW = 1500
#: Longest plain sentence kept (characters).
MAX_SENTENCE = 600
#: A sentence cut at the window ends on a multiple of this, so that the citations of one
#: long run without a sentence break share their windows (each read once, in linear time).
_STEP = WINDOW // 4


@dataclass(frozen=True, slots=True)
class CitingSentence:
    """The sentence around one citation: ``text`` plain, ``span`` its place in the file;
    ``before`` / ``after`` the plain neighbouring sentences (possibly empty)."""

    text: str
    span: Span
    before: str = ""
    after: str = ""
    #: ``text`` as the rendered document reads it, the cited works' names, years and
    #: titles in place of the placeholders (:mod:`~citewarden.context.names`), when known
    named: str | None = None

    @property
    def shown(self) -> str:
        """The sentence as a reader sees it: :attr:`named`, else :attr:`text`."""
        return self.text if self.named is None else self.named


_NOT_NEWLINE = re.compile(r"[^\n]")


def _spaces(text: str) -> str:
    """``text`` as spaces, its line breaks kept (every offset stays where it was)."""
    if "\n" not in text:
        return " " * len(text)
    return _NOT_NEWLINE.sub(" ", text)


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


#: the locator after an in-text citation (``@a [p. 33]``), no link's text
_LOCATOR = re.compile(r"[ \t]?\[(?!@)[^\[\]\n]{0,100}\](?![(\[{:])")


def _locators(text: str, spans: Sequence[Span]) -> Iterator[Span]:
    """The locator right after each in-text citation (``@a``) of ``spans``."""
    for s in spans:
        if text.startswith("@", s.start) and (m := _LOCATOR.match(text, s.end)) is not None:
            yield Span(s.end, m.end())


#: Stand where a citation command puts the cited work's authors, its year or its title
#: into the text (read as :data:`AUTHOR_SHOWN`, :data:`YEAR_SHOWN`, :data:`TITLE_SHOWN`).
AUTHOR, YEAR, TITLE = "\x05", "\x06", "\x07"
_MARKS = (AUTHOR, YEAR, TITLE)
_NAMED = str.maketrans(
    {AUTHOR: f" {AUTHOR_SHOWN}", YEAR: f" {YEAR_SHOWN}", TITLE: f" {TITLE_SHOWN}"}
)
#: What each command that typesets words of the cited work shows of it (lower case, no
#: star): natbib's and biblatex's author and year commands, pandoc's author-in-text ``@a``
_WORDS_OF_WORK = {
    **dict.fromkeys(
        ("citet", "citealt", "citeauthor", "citefullauthor", "textcite", "textcites", "in-text"),
        AUTHOR,
    ),
    **dict.fromkeys(("citeyear", "citeyearpar", "citedate"), YEAR),
    "citetitle": TITLE,
}


def _marks(
    citations: Iterable[Citation], offset: int = 0, refs: frozenset[Span] = frozenset()
) -> tuple[tuple[int, str], ...]:
    """(where, mark) of each citation command of ``citations`` that typesets words of the
    cited work (``\\citeauthor{a}`` the authors' names) or is a cross-reference (``refs``,
    :func:`~citewarden.context.markdown_crossref.crossrefs`): one mark on its last
    character, so that what follows it joins it as it joins the names (``@a's paper``)."""
    found: dict[int, str] = {}
    for c in citations:
        if c.command_span in refs:
            mark: str | None = REF
        else:
            mark = _WORDS_OF_WORK.get(c.command.lower().rstrip("*"))
        if mark is not None:
            found.setdefault(c.command_span.end - 1 - offset, mark)
    return tuple(sorted(found.items()))


#: natbib's commands that name every author (``\\citet*{a}``: ``Smith, Jones, and Lee``)
_EVERY_AUTHOR = frozenset(["citet*", "citealt*", "citeauthor*", "citefullauthor"])
#: biblatex's commands that show the authors (without the surnames' particles, up to three
#: of them) and list several works ``A, B, and C``
_BIBLATEX_AUTHORS = frozenset(["textcite", "textcites"])


def _named_marks(
    citations: Iterable[Citation],
    names: Mapping[str, Named],
    offset: int = 0,
    pandoc: Version | None = None,
) -> tuple[array[int], list[str | None]]:
    """(where, what) of each mark of :func:`_marks` that stands for the authors, the year or
    the title of works whose entries are known (``names``): the names of each cited work
    (``Smith and Jones``, ``Lee et al.``), joined by ``;`` when the command cites several,
    as natbib's ``\\citet{a,b}``, in parentheses for ``\\citeyearpar`` (None when a work
    of it is unknown or lacks what it shows), in order; ``pandoc``: the version of pandoc
    that typesets a Markdown document's (:func:`~citewarden.context.names.pandoc_authors`)."""
    keys: dict[int, tuple[str, str, list[str]]] = {}
    for c in citations:
        command = c.command.lower()
        mark = _WORDS_OF_WORK.get(command.rstrip("*"))
        if mark is not None:
            where = c.command_span.end - 1 - offset
            keys.setdefault(where, (mark, command, []))[2].append(c.key)
    at, what = array("q"), []
    for where in sorted(keys):
        mark, command, cited = keys[where]
        found = [names.get(k) for k in dict.fromkeys(cited)]
        said = [_shown(n, mark, command, pandoc) for n in found]
        at.append(where)
        joined = _joined(said, command.rstrip("*") in _BIBLATEX_AUTHORS) if all(said) else None
        what.append(f"({joined})" if joined and command.startswith("citeyearpar") else joined)
    return at, what


def _shown(named: Named | None, mark: str, command: str, pandoc: Version | None) -> str:
    """What ``command`` typesets of the work ``named`` where it stands (its ``mark``): its
    authors, year or title ("" when the work is unknown); ``pandoc``: see
    :func:`_named_marks`."""
    if named is None:
        return ""
    if mark != AUTHOR:
        return named.year if mark == YEAR else named.title
    if command in _EVERY_AUTHOR:
        return named.all_authors
    if command.rstrip("*") in _BIBLATEX_AUTHORS:
        return named.biblatex_authors or named.authors
    if command == "in-text":  # pandoc's ``@a``: the surnames without their particles
        return pandoc_authors(named, pandoc)
    return named.authors


def _joined(said: Sequence[str], biblatex: bool) -> str:
    """What one command shows of each of the works it cites, joined: by ``;`` as natbib's
    ``\\citet{a,b}``, as a list for biblatex's ``\\textcite{a,b,c}`` (``A, B, and C``)."""
    if not biblatex or len(said) == 1:
        return "; ".join(said)
    if len(said) == 2:
        return " and ".join(said)
    return f"{', '.join(said[:-1])}, and {said[-1]}"


#: a placeholder for a cited work's words, and a full stop after it (which ``et al.``
#: ends the sentence with)
_PLACED = re.compile(
    "|".join(re.escape(p) for p in (AUTHOR_SHOWN, YEAR_SHOWN, TITLE_SHOWN)).join("()") + r"(\.?)"
)


def _said(word: str | None, m: re.Match[str]) -> str:
    if word is None:
        return m.group()
    return word + ("" if word.endswith(".") else m.group(2))


def _named(text: str, said: Sequence[str | None]) -> str | None:
    """``text`` with its placeholders for the words of works (:data:`AUTHOR_SHOWN` ...) in
    turn replaced by ``said`` (a None kept as it is); None when their number is not that of
    ``said`` (a placeholder written in the text, or one cut off a long sentence)."""
    found = _PLACED.findall(text)
    if len(found) != len(said) or all(s is None for s in said):
        return None
    words = iter(said)
    return _PLACED.sub(lambda m: _said(next(words), m), text)


def _marked(text: str, marks: Sequence[tuple[int, str]]) -> str:
    """``text`` with each mark of ``marks`` in place of the character where it stands."""
    parts: list[str] = []
    pos = 0
    for at, mark in marks:
        if pos <= at < len(text):
            parts += (text[pos:at], mark)
            pos = at + 1
    parts.append(text[pos:])
    return "".join(parts)


def _mask(
    text: str,
    spans: Sequence[Span],
    kind: DocumentKind,
    whole: bool = True,
    marks: Sequence[tuple[int, str]] = (),
) -> str:
    """``text`` with citation commands replaced by spaces and what is no prose masked
    (:func:`mask_latex`, :func:`mask_markdown`); ``whole``: ``text`` starts where the file
    does (a Markdown file's front matter is no prose); ``marks``: where a command stood that
    typesets words of the cited work (:func:`_marks`)."""
    if kind is not DocumentKind.LATEX:  # ``@a [p. 33]``: the locator goes with its citation
        spans = [*spans, *_locators(text, spans)]
    masked = _blank_commands(text, spans)
    if marks:
        masked = _marked(masked, marks)
    if kind is DocumentKind.LATEX:
        return mask_latex(masked)
    return mask_markdown(masked, whole, text)


@lru_cache(maxsize=1)
def _masked_file(
    text: str,
    spans: tuple[Span, ...],
    kind: DocumentKind,
    marks: tuple[tuple[int, str], ...] = (),
) -> str:
    """:func:`_mask` of a whole file, kept for the next citation's sentence in the same
    text (an editor hovering over one citation after another)."""
    return _mask(text, spans, kind, marks=marks)


def _ends(
    masked: str, kind: DocumentKind, commands: Sequence[Span] = ()
) -> tuple[array[int], array[int]]:
    """Where every break between sentences in ``masked`` starts (a sentence ends) and where
    it ends (the next sentence starts), in order: two arrays, 16 bytes a break (a text of
    nothing but breaks takes a few times its size, not an object for each).  A break inside
    another is dropped, and so is a blank line that is one only because a citation on it
    was blanked (``text\\n\\cite{a}\\nmore``)."""
    marks = latex_breaks(masked) if kind is DocumentKind.LATEX else markdown_breaks(masked)
    firsts = [c.start for c in commands]
    ends, starts = array("q"), array("q")
    for end, start in heapq.merge(marks, full_stops(masked, commands)):
        if start > end and firsts and not masked[end:start].strip():
            k = bisect_left(firsts, end)
            if k < len(firsts) and firsts[k] < start:
                continue
        if starts and end <= starts[-1]:
            starts[-1] = max(starts[-1], start)
            continue
        ends.append(end)
        starts.append(start)
    return ends, starts


_SPACE = re.compile(r"\s+")
_EMPTY_GROUP = re.compile(
    r"\s*(?:\(|\[)(?:[\s,;]*(?:e\.\s?g\.|i\.\s?e\.|cf\.|see(?: also)?|viz\.|for example"
    r"|among others|and|or|&)){0,3}[\s,;]*(?:\)|\])",
    re.I,
)
#: what blanked citations leave before the sentence's end or a closing bracket: separators
#: and a conjunction (``see \cite{a} and \cite{b}.``, ``see, for example, \cite{a}.``,
#: ``unit: \cite{a}.``), and a comma doubled (``$T$, \cite{a}, which``)
_CONJUNCTION = r"(?<![/-])\b(?:and|or)\b"  # a word of its own (``and/or`` is no conjunction)
_DANGLING = re.compile(
    # (a run read from its start, or from a semicolon a match before it stopped at: from
    # every place inside it, it was read to its end once per place, 4 s for 2 300 commas)
    r"(?:(?<![,;:\s])(?<!(?<![/-])\band)(?<!(?<![/-])\bor)|(?=\s*;))(?:"
    r"(?:\s*(?:[,;:]|" + _CONJUNCTION + r"))+(?=\s*[.!?;)\]])"
    # a conjunction that ends a sentence with no full stop (``See @a and @b or [@c]``)
    r"|(?:\s*(?:[,;:]|" + _CONJUNCTION + r"))*\s*" + _CONJUNCTION + r"\Z)",
    re.I,
)
_DOUBLED = re.compile(r",(?:\s*,)+")
_POSSESSIVE = re.compile(r"(?:^|\s+)['\u2019]s(?![^\W_])")
_WORD = re.compile(r"\w")
#: math and a hyphen before a word, which the space the math's placeholder takes parted
_MATH_COMPOUND = re.compile(re.escape(MATH_SHOWN) + r" -(?=[^\W_])")
#: a mark that ends a clause after white space, before white space or the text's end
_SPACED_STOP = re.compile(r"\s+([,.;:!?])(?=\s|\Z)")


def plain(raw: str, kind: DocumentKind) -> str:
    """The readable words of a stretch of source text."""
    return _plain(_mask(raw, (), kind, whole=False), kind)


def _plain(raw: str, kind: DocumentKind, macros: Macros | None = None) -> str:
    """The readable words of a stretch of masked source text (see :func:`_mask`), the
    document's words commands (``macros``) showing their text."""
    latex = kind is DocumentKind.LATEX
    if latex and macros is not None:
        raw = macros.expand(raw)
    text = latex_plain(raw) if latex else markdown_plain(raw)
    text = text.translate(_NAMED)  # what citation commands typeset of the cited work
    if MATH_STOP in text:  # displayed math's full stop: the sentence's end, or nothing
        text = text.replace(MATH_STOP, " ") + ("." if text.rstrip()[-1] == MATH_STOP else "")
    text = _SPACE.sub(" ", text).strip()
    if f"{MATH_SHOWN} -" in text:  # ``$k$-nearest``: a compound, no dash (``$x$ - $y$``)
        text = _MATH_COMPOUND.sub(f"{MATH_SHOWN}-", text)
    # what a blanked citation leaves: a bracket or parenthesis holding only separators and a
    # prefix (``(e.g., \\cite{a})``, ``[@a;; @b]``), a possessive after it (``@a's paper``)
    text = _EMPTY_GROUP.sub("", text)
    text = _POSSESSIVE.sub("", text)
    if "," in text or ":" in text or ";" in text or " and" in text or " or" in text:
        text = _DOUBLED.sub(",", _DANGLING.sub("", text))
    # one full stop after an abbreviation that a citation or a reference stood after
    # (``e.g.~\\cite{a}.``, ``et al.~\\cite{a}.``, ``Fig.~\\ref{f}.``, ``et al. [@a].``)
    text = re.sub(r"(?<=[^\W_]\.)\s+\.(?!\.)", "", text)
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)  # ``([`repo`](url))`` reads ``(repo)``
    text = re.sub(r"\(\s*[,;]?\s*\)", "", text).strip()
    if len(text) > MAX_SENTENCE:
        text = text[:MAX_SENTENCE].rsplit(" ", 1)[0] + " ..."
    if latex:
        return text
    # a link's or an image's hidden punctuation shown, with no space a blanked citation left
    # before it (``![Caption [@a].](f.png)``)
    return _SPACED_STOP.sub(r"\1", shown(text))


#: Commands whose (last) argument is text of its own: footnotes, headings, captions.
_ISLAND = re.compile(
    r"\\(?:(footnote|footnotetext|tablefootnote|thanks|endnote|sidenote|marginnote)|part|chapter"
    # ``\\captionof{figure}{...}``, ``\\subcaption{...}`` and ``\\subcaptionbox{...}{...}`` too
    r"|(?:sub)?caption(?:of\s{0,20}\{[A-Za-z*]{1,30}\}|box)?"
    r"|(?:sub)*section|(?:sub)?paragraph"
    r"|title|subtitle|author|date|affiliation|affil|address|institute|keywords|frametitle"
    r"|framesubtitle)"
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
#: A command whose bracketed argument is a caption (subfig's ``\\subfloat[Loss]{...}``, the
#: subfigure package's ``\\subfigure[Loss]{...}``): text of its own, as a caption is.
_BRACKET_ISLAND = re.compile(r"\\sub(?:float|figure|table)(?![A-Za-z@])\*?\s{0,20}\[")
_BRACKET_END = re.compile(r"(?<!\\)[{}\]]")


#: the second bracket of subfig's ``\\subfloat[list entry][caption]{...}``
_SECOND_BRACKET = re.compile(r"\s{0,20}\[")


def _bracket_end(masked: str, start: int) -> int | None:
    """Where the bracket opened before ``start`` closes, if within :data:`MAX_ISLAND`
    characters (braces in it counted: ``[Loss \\textbf{[x]}]`` is one)."""
    depth = 0
    for b in _BRACKET_END.finditer(masked, start, min(len(masked), start + MAX_ISLAND)):
        c = b.group()
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return None
        if c == "]" and depth == 0:
            return b.start()
    return None


def _bracket_islands(masked: str) -> list[tuple[int, int]]:
    """(start, end) of the text of each bracketed caption of ``masked`` (see
    :data:`_BRACKET_ISLAND`) that closes (:func:`_bracket_end`), and of the caption in the
    bracket after it (``\\subfloat[Loss][Loss of nets]{...}``: the list of figures' entry
    and the caption), each text of its own."""
    found: list[tuple[int, int]] = []
    for m in _BRACKET_ISLAND.finditer(masked):
        if found and m.start() < found[-1][1]:
            continue
        start, end = m.end(), _bracket_end(masked, m.end())
        if end is None:
            continue
        found.append((start, end))
        second = _SECOND_BRACKET.match(masked, end + 1)
        last = _bracket_end(masked, second.end()) if second is not None else None
        if second is not None and last is not None:
            found.append((second.end(), last))
    return found


def _with_bracket_islands(
    masked: str, islands: tuple[array[int], array[int], array[int]]
) -> tuple[array[int], array[int], array[int]]:
    """``islands`` and the bracketed captions of ``masked``, in order, the outermost kept."""
    extra = _bracket_islands(masked) if "\\sub" in masked else []
    if not extra:
        return islands
    every = sorted([*zip(*islands, strict=True), *((a, b, -1) for a, b in extra)])
    starts, ends, cuts = array("q"), array("q"), array("q")
    for a, b, cut in every:
        if ends and a < ends[-1]:
            continue  # inside an island already kept
        starts.append(a)
        ends.append(b)
        cuts.append(cut)
    return starts, ends, cuts


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
    return _with_bracket_islands(masked, _brace_islands(masked))


def _brace_islands(masked: str) -> tuple[array[int], array[int], array[int]]:
    """The islands of a LaTeX text whose text is a brace group (see :func:`_islands`)."""
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

    def __init__(
        self,
        masked: str,
        kind: DocumentKind,
        offset: int = 0,
        commands: Sequence[Span] = (),
        macros: Macros | None = None,
        said: tuple[Sequence[int], Sequence[str | None]] = ((), ()),
    ) -> None:
        self.masked, self.kind, self.offset, self.macros = masked, kind, offset, macros
        #: where each mark of a cited work's words still stands in ``masked``, and what it
        #: says (:func:`_named_marks`)
        kept = [(at, what) for at, what in zip(*said, strict=True) if masked[at] in _MARKS]
        self.said_at = [at for at, _ in kept]
        self.said_as = [what for _, what in kept]
        #: where each break between sentences starts (a sentence ends) and where it ends
        self.ends, self.starts = _ends(masked, kind, commands)
        #: the rows of grid and multiline tables whose cells span lines, read a cell after
        #: the other
        self.rows = table_cells(masked) if kind is not DocumentKind.LATEX else []
        self.row_ends = [b for _, b, _ in self.rows]
        #: per row of :attr:`rows` asked for: its cells by offset (disjoint), each with its
        #: place in the reading order, and their ends
        self._by_offset: dict[int, tuple[list[tuple[int, int, int]], list[int]]] = {}
        #: The readable words of each stretch read so far: the citations of one sentence,
        #: and neighbours' sentences before and after, share them.
        self._read: dict[tuple[int, int], tuple[str, bool]] = {}

    def plain(self, start: int, end: int) -> tuple[str, bool]:
        """:func:`plain` of ``masked[start:end]`` and whether it holds a word, each stretch
        read once."""
        found = self._read.get((start, end))
        if found is None:
            pieces = self._pieces(start, end)
            raw = "\n".join(self.masked[a:b] for a, b in pieces) if pieces else None
            text = _plain(self.masked[start:end] if raw is None else raw, self.kind, self.macros)
            words = unshown(text)
            found = self._read[start, end] = (text, _WORD.search(words) is not None)
        return found

    def named(self, start: int, end: int, text: str) -> str | None:
        """``text``, the plain words of ``masked[start:end]``, with the cited works' words
        in place of its placeholders (:func:`_named`), None when none is known."""
        lo, hi = bisect_left(self.said_at, start), bisect_left(self.said_at, end)
        if lo == hi:
            return None
        pieces = self._pieces(start, end)
        if not pieces:
            return _named(text, self.said_as[lo:hi])
        at = self.said_at
        return _named(
            text,
            [
                self.said_as[k]
                for a, b in pieces
                for k in range(bisect_left(at, a), bisect_left(at, b))
            ],
        )

    def _pieces(self, start: int, end: int) -> list[tuple[int, int]] | None:
        """The stretches of ``masked[start:end]`` in the order a reader reads them, the
        cells of a table's rows one after the other (:func:`table_cells`); None when
        it holds no such row (read as it stands)."""
        k = bisect_right(self.row_ends, start)
        if k == len(self.rows) or self.rows[k][0] >= end:
            return None
        pieces: list[tuple[int, int]] = []
        pos = start
        while k < len(self.rows) and self.rows[k][0] < end:
            a, b, _ = self.rows[k]
            if a > pos:
                pieces.append((pos, a))
            pieces += self._cells_in(k, start, end)
            pos, k = max(pos, b), k + 1
        if pos < end:
            pieces.append((pos, end))
        return pieces

    def _cells_in(self, k: int, start: int, end: int) -> list[tuple[int, int]]:
        """The parts of row ``k``'s cells within ``masked[start:end]``, in reading order:
        found by offset, so that a row of many cells costs a stretch no more than the cells
        it holds."""
        found = self._by_offset.get(k)
        if found is None:
            spots = sorted((x, y, i) for i, (x, y) in enumerate(self.rows[k][2]))
            found = self._by_offset[k] = (spots, [y for _, y, _ in spots])
        spots, ends = found
        inside = []
        for j in range(bisect_right(ends, start), len(spots)):
            x, y, i = spots[j]
            if x >= end:
                break
            inside.append((i, max(x, start), min(y, end)))
        return [(x, y) for _, x, y in sorted(inside)]

    def around(self, command: Span) -> CitingSentence | None:
        d = self.offset
        found = _around(self, Span(command.start - d, command.end - d))
        if found is None or not d:
            return found
        return CitingSentence(
            found.text,
            Span(found.span.start + d, found.span.end + d),
            found.before,
            found.after,
            found.named,
        )


#: How far from a citation its sentence, the sentences around it and an island holding it
#: can reach: one citation's sentence is read from a stretch of this much either side.
REACH = 3 * WINDOW + MAX_ISLAND + 1000


def citing_sentences(
    text: str,
    citations: Sequence[Citation],
    kind: DocumentKind,
    only: int | None = None,
    macros: Macros | None = None,
    names: Mapping[str, Named] | None = None,
    crossref: bool | None = None,
    pandoc: Version | None = None,
) -> tuple[CitingSentence | None, ...]:
    """The citing sentence of each of ``citations`` (None for ``\\nocite`` ones and where
    nothing readable surrounds the citation), in the same order; with ``only``, just that
    citation's (the others None), read from the lines within :data:`REACH` of it.
    ``macros``: the words commands of the document's project (those of ``text`` when not
    given; see :mod:`~citewarden.context.latex_macros`); ``names``: what citation commands
    typeset of each key's work (:func:`~citewarden.context.names.named_works`), which the
    sentences' :attr:`~CitingSentence.named` show; ``crossref``: whether the Markdown
    document runs pandoc-crossref, as its project says (read from its front matter when not
    given; see :mod:`~citewarden.context.markdown_crossref`); ``pandoc``: the version of
    pandoc of the document's project, whose default style the names of ``@a`` follow
    (None: not known; :func:`~citewarden.context.names.pandoc_authors`)."""
    if macros is None and kind is DocumentKind.LATEX:
        macros = document_macros(text)
    refs = crossrefs(text, citations, kind, crossref, names)
    if only is None or len(text) <= 4 * REACH or citations[only].kind is not CitationKind.CITE:
        return _sentences(
            text, citations, kind, only, macros=macros, refs=refs, names=names, pandoc=pandoc
        )
    at = citations[only].command_span
    lo = text.rfind("\n", 0, max(0, at.start - REACH)) + 1
    hi = text.find("\n", at.end + REACH)
    hi = len(text) if hi < 0 else hi + 1
    nearby = [c for c in citations if lo <= c.command_span.start and c.command_span.end <= hi]
    # the file is masked whole (a comment or a hidden block may open before the stretch),
    # once for all the hovers of one text
    every = tuple(sorted({c.command_span for c in citations}, key=lambda s: s.start))
    masked = _masked_file(text, every, kind, _marks(citations, 0, refs))[lo:hi]
    k = nearby.index(citations[only])
    found = _sentences(text[lo:hi], nearby, kind, k, lo, masked, macros, refs, names, pandoc)
    out: list[CitingSentence | None] = [None] * len(citations)
    out[only] = next((s for s in found if s is not None), None)
    return tuple(out)


def _sentences(
    text: str,
    citations: Sequence[Citation],
    kind: DocumentKind,
    only: int | None = None,
    offset: int = 0,
    masked: str | None = None,
    macros: Macros | None = None,
    refs: frozenset[Span] = frozenset(),
    names: Mapping[str, Named] | None = None,
    pandoc: Version | None = None,
) -> tuple[CitingSentence | None, ...]:
    """:func:`citing_sentences` of ``text``, the stretch of the file from ``offset``
    (the citations' spans are the file's), ``masked`` the stretch of the masked file when
    the caller has it; ``refs``: the command spans that are cross-references (no citing
    sentence of their own)."""
    commands = sorted(
        {Span(c.command_span.start - offset, c.command_span.end - offset) for c in citations},
        key=lambda s: s.start,
    )
    if masked is None:
        marks = _marks(citations, offset, refs)
        masked = _mask(text, commands, kind, whole=not offset, marks=marks)
    starts, ends, cuts = _islands(masked, kind)
    said = _named_marks(citations, names, offset, pandoc) if names else (array("q"), [])
    around = _around_islands(masked, kind, starts, ends, cuts)
    main = _Text(around, kind, offset, commands, macros, said)
    inner: dict[int, _Text] = {}
    out: list[CitingSentence | None] = []
    for i, c in enumerate(citations):
        if (
            c.kind is not CitationKind.CITE
            or (only is not None and i != only)
            or c.command_span in refs
        ):
            out.append(None)
            continue
        k = bisect_right(starts, c.command_span.start - offset) - 1
        found = None
        if k >= 0 and c.command_span.end - offset <= ends[k]:
            if k not in inner:
                a, b = starts[k], ends[k]
                within = [Span(s.start - a, s.end - a) for s in commands if a <= s.start < b]
                lo, hi = bisect_left(said[0], a), bisect_left(said[0], b)
                here = ([at - a for at in said[0][lo:hi]], said[1][lo:hi])
                inner[k] = _Text(masked[a:b], kind, offset + a, within, macros, here)
            found = inner[k].around(c.command_span)
        out.append(found or main.around(c.command_span))
    return tuple(out)


def _sentence_at(
    ends: Sequence[int], starts: Sequence[int], pos: int, size: int, offset: int = 0
) -> tuple[int, int, int, int]:
    """(start, end, index of the break that ends it, index of the break that starts it or
    -1) of the sentence holding ``pos``, cut between ``WINDOW - _STEP`` and ``WINDOW``
    characters either side of it, on multiples of ``_STEP`` counted from the file's start
    (``offset``: where the text starts in the file); ``ends`` and ``starts``: where each
    break starts and ends (see :func:`_ends`)."""
    i = bisect_left(starts, pos + 1) - 1  # the last break ending at or before pos
    start = max(starts[i] if i >= 0 else 0, -(-(pos + offset - WINDOW) // _STEP) * _STEP - offset)
    j = i + 1
    while j < len(ends) and ends[j] < pos:
        j += 1
    end = min(ends[j] if j < len(ends) else size, (pos + offset + WINDOW) // _STEP * _STEP - offset)
    return start, end, j, i


def _around(text: _Text, command: Span) -> CitingSentence | None:
    masked, ends, starts, read = text.masked, text.ends, text.starts, text.plain
    size, d = len(masked), text.offset
    pos = command.start
    k = bisect_left(starts, pos + 1)  # the first break that ends after the citation
    # a citation inside a break (a reference definition, an environment's argument): the
    # sentence after it
    inside = k < len(ends) and ends[k] <= pos
    if text.kind is not DocumentKind.LATEX and masked.startswith(":", command.end):
        line = masked.rfind("\n", 0, pos) + 1
        if pos - line <= 3 and not masked[line:pos].strip():
            return None  # ``[@x]: doi:...`` defines a link: no sentence cites there
    start, end, j, i = _sentence_at(ends, starts, starts[k] if inside else pos, size, d)
    sentence, worded = read(start, end)
    if not worded and not inside and i >= 0 and start == starts[i] and ends[i] > 0:
        # a citation standing after its sentence's end (``... shown. \cite{a}``): the
        # sentence before, up to its end
        start, end, j, i = _sentence_at(ends, starts, ends[i] - 1, size, d)
        sentence, worded = read(start, end)
    if not worded:
        return None
    before, at, k = "", start, i
    for _ in range(3):  # the worded sentence before, past empty ones (a table's rule)
        if k < 0 or at != starts[k] or ends[k] <= 0:
            break
        at, b_end, _, k = _sentence_at(ends, starts, ends[k] - 1, size, d)
        before, worded = read(at, b_end)
        if worded:
            break
    after, k = "", j
    for _ in range(3):  # the worded sentence after, past empty ones
        if k >= len(ends):
            break
        a_start, a_end, k, _ = _sentence_at(ends, starts, starts[k] + 1, size, d)
        if a_start < end:
            break
        after, worded = read(a_start, a_end)
        if worded:
            break
        after = ""
    named = text.named(start, end, sentence)
    kept = masked[start:end].rstrip(" \t\r\n~")  # the span without the spaces at its ends
    end = start + len(kept)
    start += len(kept) - len(kept.lstrip())
    return CitingSentence(sentence, Span(start, end), before, after, named)
