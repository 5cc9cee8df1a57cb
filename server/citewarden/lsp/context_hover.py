"""Hover additions of the seeds' checks: a citation's context (its sentence's relevance to
the cited work) and an entry's venue evidence (heuristic 10).

``register`` adds the citation hover feature to the session; :func:`venue_markdown` is called by
the verification hover.  The corpus that weights words (every entry's work) is kept by
:class:`~citewarden.lsp.context_corpus.CorpusKeeper`: rebuilt in the background when verdicts
arrive or the entries change, a hover uses the last one built.  A citation's sentence and
its score are found once per version of the document, the cited work and the corpus, and
only when the cited work has a title or an abstract to compare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.findings.verdicts import source_label
from citewarden.lsp.completion import definitions
from citewarden.lsp.context_corpus import CorpusKeeper, project_macros
from citewarden.lsp.features import Feature
from citewarden.lsp.session import Session
from citewarden.lsp.verification import VerificationService
from citewarden.lsp.verify_hover import _md
from citewarden.model import Entry, Match, ParsedDocument, VenueInfo, Verdict
from citewarden.safe_text import clipped

if TYPE_CHECKING:
    from citewarden.context.latex_macros import Macros
    from citewarden.context.names import Named
    from citewarden.context.relevance import FieldCorpus, Work
    from citewarden.context.sentence import CitingSentence
    from citewarden.pandoc_version import Version
    from citewarden.verify.judge import JudgeVerdict

#: Abstract characters a hover shows.
HOVER_ABSTRACT = 400

INDEX_NAMES = {
    "doaj": "DOAJ",
    "pubmed": "PubMed",
    "medline": "MEDLINE",
    "scopus": "Scopus",
    "core": "OpenAlex core",
}


def venue_markdown(venue: VenueInfo | None) -> str | None:
    """The venue line(s) of an entry's hover, or None when nothing is known."""
    if venue is None:
        return None
    name = _md(venue.name or "unnamed venue")
    lines = [f"**Venue:** {name} ({_md(venue.kind)})"]
    if venue.indexed_in:
        lines.append(
            "Indexed in " + ", ".join(INDEX_NAMES.get(i, _md(i)) for i in venue.indexed_in)
        )
    if venue.evidence:
        lines.append("\n".join(f"- {_md(e, line_start=True)}" for e in venue.evidence))
    return "\n\n".join(lines)


@dataclass(slots=True)
class _Context:
    """A citation's context hover as last built, with what it was built from: the cited
    work (compared by value: a bibliography read again gives new entries of the same
    works) and the corpus (by identity: a rebuilt corpus is a new object)."""

    work: Work
    corpus: FieldCorpus
    lines: list[str]


@dataclass(slots=True)
class _DocumentMemo:
    """What the hovers found in one version of a document: the citing sentence of each
    citation asked about, and the context hover built for it."""

    doc: ParsedDocument
    text: str
    #: the words commands of the document's project (read when the sentences were found)
    macros: Macros | None
    #: whether the document's project runs pandoc-crossref (a ``_quarto.yml`` may say so)
    crossref: bool
    #: the version of the document's pandoc, whose default style the names of ``@a`` follow
    pandoc: Version | None
    sentences: dict[int, CitingSentence | None]
    built: dict[int, _Context]
    #: what the citation commands near each citation asked about typeset of their works
    #: when its sentence was found (an entry edited since asks for the sentence again)
    names: dict[int, dict[str, Named]] = field(default_factory=dict)


#: Documents whose hover memo is kept (the most recently hovered ones).
MEMO_DOCUMENTS = 8


class ContextHover(Feature):
    """The citation hover feature.  The corpus may lag the entries and verdicts by a rebuild
    (a stale corpus only shifts word weights a little); the cited work itself is read
    afresh on every hover."""

    def __init__(self, session: Session, service: VerificationService | None) -> None:
        self.session = session
        self.service = service
        #: The corpus: built at the first hover on a citation (the context modules load
        #: then), rebuilt in the background after that.
        self.keeper = CorpusKeeper(session, service)
        self._memo: dict[Path, _DocumentMemo] = {}
        #: The judge's answer on (sentence, cited record), when a judge is configured.
        self.judge: Callable[[str, Match], JudgeVerdict | None] | None = None

    def _verdicts(self, entries: list[Entry]) -> dict[str, Verdict]:
        if self.service is None or not self.service.enabled:
            return {}
        out: dict[str, Verdict] = {}
        for entry in entries:
            verdict, _ = self.service.verdict_for(entry)
            if verdict is not None:
                out[entry.key] = verdict
        return out

    def on_checked(self, delivered: set[Path]) -> None:
        """After every check and republication: the entries or verdicts may have changed."""
        self.keeper.changed()

    async def aclose(self) -> None:
        self.keeper.close()

    def _names(self, path: Path, doc: ParsedDocument, at: int) -> dict[str, Named]:
        """What the citation commands near ``doc.citations[at]`` (those its sentence may
        hold) typeset of their works, read from the entries they cite."""
        from citewarden.context.names import named_works
        from citewarden.context.sentence import WINDOW

        here = doc.citations[at].command_span
        keys = {
            c.key
            for c in doc.citations
            if here.start - WINDOW <= c.command_span.start
            and c.command_span.end <= here.end + WINDOW
        }
        return named_works(e for k in sorted(keys) for e in definitions(self.session, path, k)[:1])

    def _document_memo(
        self,
        path: Path,
        doc: ParsedDocument,
        text: str,
        macros: Macros | None,
        crossref: bool,
        pandoc: Version | None,
    ) -> _DocumentMemo:
        memo = self._memo.pop(path, None)
        if (
            memo is None
            or memo.doc is not doc
            or memo.text is not text
            or memo.macros != macros
            or memo.crossref != crossref
            or memo.pandoc != pandoc
        ):
            memo = _DocumentMemo(doc, text, macros, crossref, pandoc, {}, {})
        self._memo[path] = memo  # the most recent last
        while len(self._memo) > MEMO_DOCUMENTS:
            del self._memo[next(iter(self._memo))]
        return memo

    def citation_hover(self, path: Path, offset: int, key: str) -> str | None:
        ws = self.session.project
        doc, text = ws.document(path), ws.text(path)
        if doc is None or text is None:
            return None
        at = next(
            (
                i
                for i, c in enumerate(doc.citations)
                if c.key == key and c.command_span.contains(offset)
            ),
            None,
        )
        if at is None:
            return None
        found = definitions(self.session, path, key)
        if not found:
            return None
        entry = found[0]
        verdicts = self._verdicts(found[:1])
        verdict = verdicts.get(entry.key)
        from citewarden.context.collect import abstract_of, works_of
        from citewarden.context.sentence import citing_sentences

        work = works_of(found[:1], verdicts).get(entry.key)
        if work is None or not (work.title or work.abstract):
            return None  # nothing to compare the sentence with: it is not looked for
        from citewarden.context.project_texts import crossref_documents, pandoc_versions

        names = self._names(path, doc, at)
        crossref = path in crossref_documents(ws, [path])
        pandoc = pandoc_versions(ws, [path])[path]
        macros = project_macros(ws, path, doc)
        memo = self._document_memo(path, doc, text, macros, crossref, pandoc)
        if at not in memo.sentences or memo.names.get(at) != names:
            memo.names[at] = names
            memo.built.pop(at, None)
            memo.sentences[at] = citing_sentences(
                text,
                doc.citations,
                doc.kind,
                only=at,
                macros=memo.macros,
                names=names,
                crossref=crossref or None,
                pandoc=pandoc,
            )[at]
        sentence = memo.sentences[at]
        if sentence is None:
            return None
        corpus = self.keeper.corpus()
        built = memo.built.get(at)
        if built is None or built.corpus is not corpus or built.work != work:
            score = corpus.score(sentence.text, work, (sentence.before, sentence.after))
            lender = abstract_of(entry, verdict)[1] if work.abstract else None
            built = _Context(work, corpus, _context_lines(sentence, work, score, lender))
            memo.built[at] = built
        lines = list(built.lines)
        match = verdict.match if verdict is not None else None
        answer = self.judge(sentence.text, match) if self.judge and match else None
        if answer is not None:
            said = "supports" if answer.supported else "does not support"
            why = f": {_md(answer.reason)}" if answer.reason else ""
            lines.append(
                f"**Judge** ({_md(answer.model)}): the cited work {said} this sentence{why}"
            )
        return "\n\n".join(lines)


def _context_lines(
    sentence: CitingSentence, work: Work, score: float, lender: str | None = None
) -> list[str]:
    """The citation-context part of a hover: the score, the sentence and the abstract
    (with the source that gave it)."""
    basis = "title and abstract" if work.abstract else "title"
    lines = [
        f"**Citation context:** relevance {score:.2f} (0 to 1, the sentence against the "
        f"cited work's {basis}, words weighted by this bibliography's field)",
        f"> {_md(clipped(sentence.shown), line_start=True)}",
    ]
    if work.abstract:
        shown = work.abstract[:HOVER_ABSTRACT]
        if len(work.abstract) > HOVER_ABSTRACT:
            shown = shown.rsplit(" ", 1)[0] + " …"
        label = f"Abstract ({_md(source_label(lender))})" if lender else "Abstract"
        lines.append(f"{label}: {_md(shown)}")
    return lines


def register(session: Session, service: VerificationService | None) -> ContextHover:
    hover = ContextHover(session, service)
    session.features.add(hover)
    return hover
