"""Every citation's context in a set of documents: sentence, cited work and score (pure).

The cited work is what verification matched (title, abstract, authors of the record) when
there is a verdict with a match, else what the entry itself says (title, author surnames).
The corpus that weights words is the set of all those works: the project's own field.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from citewarden.context.latex_macros import Macros, macros_of
from citewarden.context.names import Named, entry_surnames, plain_field
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
from citewarden.pandoc_version import Version
from citewarden.text import LineIndex


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


def works_of(
    entries: Iterable[Entry], verdicts: Mapping[str, Verdict] | None = None
) -> dict[str, Work]:
    """key -> the work it cites (the matched record when verified, else the entry; the
    abstract as :func:`abstract_of` says)."""
    works: dict[str, Work] = {}
    for entry in entries:
        if entry.key in works:
            continue
        verdict = verdicts.get(entry.key) if verdicts else None
        match = verdict.match if verdict is not None else None
        abstract = abstract_of(entry, verdict)[0]
        if match is not None and match.title:
            # the record's family names (an organisation's whole), else each name's last word
            families = match.families or tuple(a.split()[-1] for a in match.authors if a.split())
            works[entry.key] = Work(match.title, abstract, families)
        else:  # the surnames proper: a particle (de, van) is no word of the work's
            surnames = entry_surnames(entry, particles=False)
            works[entry.key] = Work(plain_field(entry.get("title")), abstract, surnames)
    return works


#: The ``abstract_source`` of an abstract read from the entry's own ``abstract`` field.
OWN_ABSTRACT = "bibliography"
#: Longest abstract read from an entry (characters, as a source's record keeps); the field
#: is cut at a word boundary.
MAX_OWN_ABSTRACT = 6000


def abstract_of(entry: Entry, verdict: Verdict | None) -> tuple[str | None, str | None]:
    """(abstract, the source that gave it): the matched record's when it has one, else the
    entry's own ``abstract`` field (as reference managers export it), as plain text."""
    match = verdict.match if verdict is not None else None
    if match is not None and match.abstract:
        return match.abstract, match.abstract_source or match.source
    raw = entry.get("abstract")
    if not raw:
        return None, None
    text = " ".join(plain_field(raw[: MAX_OWN_ABSTRACT * 4]).split())
    if len(text) > MAX_OWN_ABSTRACT:
        cut = text.rfind(" ", 0, MAX_OWN_ABSTRACT)
        text = text[: cut if cut > 0 else MAX_OWN_ABSTRACT]
    return (text, OWN_ABSTRACT) if text else (None, None)


def abstract_sources(entries: Iterable[Entry], verdicts: Mapping[str, Verdict]) -> dict[str, str]:
    """key -> the source of the abstract its work is scored with (see :func:`abstract_of`)."""
    out: dict[str, str] = {}
    for entry in entries:
        if entry.key not in out:
            source = abstract_of(entry, verdicts.get(entry.key))[1]
            if source is not None:
                out[entry.key] = source
    return out


def citation_contexts(
    documents: Iterable[tuple[ParsedDocument, str]],
    works: Mapping[str, Work],
    sources: Mapping[str, str] | None = None,
    definitions: Iterable[str] = (),
    names: Mapping[str, Named] | None = None,
    crossref: Collection[Path] = (),
    pandoc: Mapping[Path, Version | None] | None = None,
) -> list[CitationContext]:
    """The context of every citation of ``documents`` (document, text), in order;
    ``sources`` names the source of each key's abstract (:func:`abstract_sources`);
    ``definitions``: the texts of the project's other LaTeX files, whose words commands
    (``\\newcommand{\\Coq}{Coq}``) the sentences show, as those of ``documents`` (see
    :mod:`~citewarden.context.latex_macros`); ``names``: what citation commands typeset of
    each key's work (:func:`~citewarden.context.names.named_works`), shown in the sentences
    (never scored); ``crossref``: the documents that run pandoc-crossref, as their
    projects say (:func:`~citewarden.context.project_texts.crossref_documents`);
    ``pandoc``: the version of pandoc of each document, whose default style the names of
    ``@a`` follow (:func:`~citewarden.context.project_texts.pandoc_versions`; not known
    when not given).  The corpus is built for the first citation scored: none when nothing
    is cited."""
    corpus: FieldCorpus | None = None
    out: list[CitationContext] = []
    documents = list(documents)
    latex = [text for doc, text in documents if doc.kind is DocumentKind.LATEX]
    macros = macros_of((*definitions, *latex)) if latex else None
    for doc, text in documents:
        version = (pandoc or {}).get(doc.path)
        sentences = document_sentences(doc, text, macros, names, doc.path in crossref, version)
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


def document_sentences(
    doc: ParsedDocument,
    text: str,
    macros: Macros | None,
    names: Mapping[str, Named] | None,
    crossref: bool,
    pandoc: Version | None = None,
) -> Sequence[CitingSentence | None]:
    """The citing sentences of ``doc`` as the reports and the judge read them: with the
    project's words commands, what each entry's work typesets (a label no entry has reads
    ``[ref]``), whether its project runs pandoc-crossref (else its front matter says) and
    the version of its pandoc (None: not known)."""
    return citing_sentences(
        text,
        doc.citations,
        doc.kind,
        macros=macros,
        names=names,
        crossref=crossref or None,
        pandoc=pandoc,
    )


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
