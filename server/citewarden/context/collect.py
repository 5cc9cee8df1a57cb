"""Every citation's context in a set of documents: sentence, cited work and score (pure).

The cited work is what verification matched (title, abstract, authors of the record) when
there is a verdict with a match, else what the entry itself says (title, author surnames).
The corpus that weights words is the set of all those works: the project's own field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.context.latex_macros import macros_of
from citewarden.context.relevance import FieldCorpus, Work
from citewarden.context.sentence import CitingSentence, citing_sentences
from citewarden.model import (
    Citation,
    Code,
    DocumentKind,
    Entry,
    Finding,
    Location,
    ParsedDocument,
    Verdict,
)
from citewarden.parsing.latex_decode import decode_latex
from citewarden.text import LineIndex

#: What separates the names of a BibTeX name list (`` and ``).
_NAMES = re.compile(r"(?<!\s)\s+and\s+")


@dataclass(frozen=True, slots=True)
class CitationContext:
    """One citation: where it is, its sentence, and how well the cited work fits it
    (``score`` None when no work is known for the key)."""

    path: Path
    citation: Citation
    sentence: CitingSentence
    score: float | None
    #: "title+abstract" or "title": what of the work the score could read.
    basis: str | None
    #: The abstract the sentence was compared with, if any (for the side-by-side view).
    abstract: str | None = None
    title: str | None = None
    #: The judge's verdict, when one is configured: {"supported", "reason", "model"}.
    judge: Mapping[str, object] | None = None
    #: The source whose record gave ``abstract``.
    abstract_source: str | None = None
    #: The 1-based line of the citation's key (what the reports show beside the file).
    line: int | None = None


def _plain(value: str | None) -> str:
    """A field's value as plain text (accents decoded, braces and commands gone)."""
    return decode_latex(value) if value else ""


def _top_level(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``text`` split at the matches of ``pattern`` outside braces."""
    depth, cuts = 0, [0]
    outside = bytearray(len(text))  # 1 where the character is outside every brace
    for i, ch in enumerate(text):
        depth = depth + 1 if ch == "{" else max(0, depth - 1) if ch == "}" else depth
        outside[i] = depth == 0 and ch != "}"
    for m in pattern.finditer(text):
        if outside[m.start()] and m.start() >= cuts[-1]:
            cuts += (m.start(), m.end())
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts[::2], cuts[1::2], strict=True)]


_COMMA = re.compile(",")
_WHITE = re.compile(r"\s+")


def _surnames(authors: str | None) -> tuple[str, ...]:
    """The family names of a BibTeX name list: the part before the first comma, else the
    last word, braces kept together (``{World Health Organization}`` is one name)."""
    names: list[str] = []
    for name in _top_level((authors or "").strip(), _NAMES):
        name = name.strip()
        if not name or name.lower() == "others":
            continue
        parts = _top_level(name, _COMMA)
        family = parts[0] if len(parts) > 1 else _top_level(name, _WHITE)[-1]
        if plain := _plain(family.strip()):
            names.append(plain)
    return tuple(names)


def works_of(
    entries: Iterable[Entry], verdicts: Mapping[str, Verdict] | None = None
) -> dict[str, Work]:
    """key -> the work it cites (the matched record when verified, else the entry)."""
    works: dict[str, Work] = {}
    for entry in entries:
        if entry.key in works:
            continue
        verdict = verdicts.get(entry.key) if verdicts else None
        match = verdict.match if verdict is not None else None
        if match is not None and match.title:
            surnames = tuple(a.split()[-1] for a in match.authors if a.split())
            works[entry.key] = Work(match.title, match.abstract, surnames)
        else:
            works[entry.key] = Work(
                _plain(entry.get("title")), None, _surnames(entry.get("author"))
            )
    return works


def abstract_sources(verdicts: Mapping[str, Verdict]) -> dict[str, str]:
    """key -> the source whose record gave the matched work's abstract."""
    out: dict[str, str] = {}
    for key, verdict in verdicts.items():
        match = verdict.match
        if match is not None and match.abstract:
            out[key] = match.abstract_source or match.source
    return out


def citation_contexts(
    documents: Iterable[tuple[ParsedDocument, str]],
    works: Mapping[str, Work],
    sources: Mapping[str, str] | None = None,
    definitions: Iterable[str] = (),
) -> list[CitationContext]:
    """The context of every citation of ``documents`` (document, text), in order;
    ``sources`` names the source of each key's abstract (:func:`abstract_sources`);
    ``definitions``: the texts of the project's other LaTeX files, whose words commands
    (``\\newcommand{\\Coq}{Coq}``) the sentences show, as those of ``documents`` (see
    :mod:`~citewarden.context.latex_macros`).  The corpus is built for the first citation
    scored: none when nothing is cited."""
    corpus: FieldCorpus | None = None
    out: list[CitationContext] = []
    documents = list(documents)
    latex = [text for doc, text in documents if doc.kind is DocumentKind.LATEX]
    macros = macros_of((*definitions, *latex)) if latex else None
    for doc, text in documents:
        sentences: Sequence[CitingSentence | None] = citing_sentences(
            text, doc.citations, doc.kind, macros=macros
        )
        lines = LineIndex(text)
        for citation, sentence in zip(doc.citations, sentences, strict=True):
            if sentence is None:
                continue
            line = lines.line_of(citation.span.start) + 1
            work = works.get(citation.key)
            if work is None or not (work.title or work.abstract):
                out.append(CitationContext(doc.path, citation, sentence, None, None, line=line))
                continue
            if corpus is None:
                corpus = FieldCorpus(w for w in works.values() if w.title or w.abstract)
            score = corpus.score(sentence.text, work, (sentence.before, sentence.after))
            basis = "title+abstract" if work.abstract else "title"
            source = (sources or {}).get(citation.key) if work.abstract else None
            out.append(
                CitationContext(
                    doc.path,
                    citation,
                    sentence,
                    score,
                    basis,
                    work.abstract,
                    work.title,
                    abstract_source=source,
                    line=line,
                )
            )
    return out


def least_related(contexts: Iterable[CitationContext]) -> list[CitationContext]:
    """Scored contexts, the least related first."""
    scored = [c for c in contexts if c.score is not None]
    scored.sort(key=lambda c: (c.score, str(c.path), c.citation.span.start))
    return scored


def unsupported_finding(context: CitationContext, model: str, reason: str) -> Finding:
    """``citation-unsupported`` on the citation's key: the judge's verdict, with its reason."""
    why = f": {reason}" if reason else ""
    return Finding(
        Code.CITATION_UNSUPPORTED,
        Location(context.path, context.citation.span),
        f"the judge ({model}) says the cited work does not support this sentence{why}",
        data={"key": context.citation.key},
    )
