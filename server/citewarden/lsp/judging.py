"""The optional citation judge in the editor: ``citation-unsupported`` warnings on citations.

Off unless ``judge.url`` and ``judge.model`` are set (or the ``CITEWARDEN_JUDGE_*``
environment variables).  The check cycle (:meth:`JudgeService.findings`, worker) only reads
answers already received and lists the citations still to ask about; the asking runs in a
background task on the event loop, at most :data:`~citewarden.verify.judge.CONCURRENCY` at
once, and republishes the diagnostics as answers arrive.  No request ever waits for it.
Answers are remembered by (endpoint, model, sentence, cited record), so an edit elsewhere
does not ask again; a request that failed is made again at a later check, after a pause
that doubles with each failure.  The findings go through the session's policy step like every other.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.lsp.features import Feature
from citewarden.lsp.session import Session
from citewarden.lsp.verification import VerificationService, verdicts_by_key
from citewarden.model import Entry, Finding, Match, ParsedDocument
from citewarden.parsing import is_document
from citewarden.verify.judge import (
    CONCURRENCY,
    Judge,
    JudgeAnswer,
    JudgeConfig,
    JudgeVerdict,
    judge_config,
)

if TYPE_CHECKING:
    from citewarden.context.names import Named
    from citewarden.context.sentence import CitingSentence

log = logging.getLogger(__name__)

#: Task registry group of the judge's background work.
JUDGE = "judge"
#: Answers remembered at most (the oldest are forgotten first).
MAX_ANSWERS = 20000
#: Citations waiting for the judge at most (more are asked about at a later check).
MAX_PENDING = 2000

#: Seconds before a citation whose request failed is asked about again (doubled with each
#: failure, up to ``RETRY_MAX``): a judge server started after the editor is still used.
RETRY_AFTER, RETRY_MAX = 30.0, 600.0

_now = time.monotonic

#: The answer of a citation not asked about yet.
_UNASKED = object()

#: (url, model, sentence, digest of the record's metadata)
AnswerKey = tuple[str, str, str, str]


def _record_digest(work: Match) -> str:
    parts = [work.title or "", work.venue or "", str(work.year or ""), work.abstract or ""]
    parts += list(work.authors[:20])
    return hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()


class JudgeService(Feature):
    """Answers of the configured judge and the findings they give."""

    def __init__(self, session: Session, verification: VerificationService) -> None:
        self.session = session
        self.verification = verification
        self.answers: dict[AnswerKey, JudgeVerdict | None] = {}
        self._pending: dict[AnswerKey, tuple[str, Match]] = {}
        self._asked: set[AnswerKey] = set()
        #: Citations whose request failed: (when to ask again, failures so far).
        self._failed: dict[AnswerKey, tuple[float, int]] = {}
        #: Citing sentences per parsed document, with the project's commands, crossref
        #: setting and entries' names they were read with (read again when one changes).
        self._sentences: dict[Path, tuple[tuple[object, ...], Sequence[CitingSentence | None]]] = {}
        #: What citation commands typeset of every entry's work, with the entries read.
        self._named: tuple[tuple[Entry, ...], Mapping[str, Named]] | None = None
        self._judge: Judge | None = None
        self._task: asyncio.Task[None] | None = None
        self._task_config: JudgeConfig | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def config(self) -> JudgeConfig | None:
        settings = self.session.settings
        if not settings.verify.enabled or settings.verify.offline:
            return None
        return judge_config(settings.judge)

    def on_checked(self, delivered: set[Path]) -> None:
        self.loop = asyncio.get_running_loop()

    def _names(self, entries: tuple[Entry, ...]) -> Mapping[str, Named]:
        """What citation commands typeset of every entry's work, read again when the
        entries change (a label that no entry has reads ``[ref]``, as in ``check``)."""
        from citewarden.context.names import named_works

        if self._named is None or self._named[0] != entries:
            self._named = (entries, named_works(entries))
        return self._named[1]

    def _sentences_of(
        self, path: Path, doc: ParsedDocument, text: str, entries: Sequence[Entry] | None = None
    ) -> Sequence[CitingSentence | None]:
        """The citing sentences of ``doc`` as ``check`` reads them (with the project's
        commands, crossref setting and entries), so both send the judge the same ones;
        ``entries``: the workspace's, read from it when not given."""
        from citewarden.context.collect import document_sentences  # with a judge only
        from citewarden.context.project_texts import crossref_documents, pandoc_versions
        from citewarden.lsp.context_corpus import project_macros

        ws = self.session.project
        # the project's commands: an edit of another file's definitions changes them
        macros = project_macros(ws, path, doc)
        crossref = path in crossref_documents(ws, [path])
        pandoc = pandoc_versions(ws, [path])[path]
        names = self._names(tuple(ws.all_entries() if entries is None else entries))
        read_with = (doc, macros, crossref, names, pandoc)
        memo = self._sentences.get(path)
        if memo is not None and all(a is b for a, b in zip(memo[0], read_with, strict=True)):
            return memo[1]
        found = document_sentences(doc, text, macros, names, crossref, pandoc)
        self._sentences[path] = (read_with, found)
        return found

    def findings(self) -> dict[Path, list[Finding]]:
        """``citation-unsupported`` findings from the answers received so far, after the
        policy step (worker); the citations not asked about yet are handed to the asker."""
        config = self.config()
        if config is None:
            return {}
        ws = self.session.project
        entries = ws.all_entries()
        verdicts = verdicts_by_key(self.verification.verdicts, entries)
        matches = {k: v.match for k, v in verdicts.items() if v.match is not None}
        if not matches:
            return {}
        found: list[Finding] = []
        todo: dict[AnswerKey, tuple[str, Match]] = {}
        for path in ws.known_files():
            if not is_document(path):
                continue
            doc, text = ws.document(path), ws.text(path)
            if doc is None or text is None or not doc.citations:
                continue
            if not any(c.key in matches for c in doc.citations):
                continue
            sentences = self._sentences_of(path, doc, text, entries)
            for citation, sentence in zip(doc.citations, sentences, strict=True):
                work = matches.get(citation.key)
                if sentence is None or work is None or not work.title:
                    continue
                key = (config.url, config.model, sentence.text, _record_digest(work))
                answer = self.answers.get(key, _UNASKED)  # (written on the event loop)
                if answer is not _UNASKED:
                    if isinstance(answer, JudgeVerdict) and not answer.supported:
                        from citewarden.context.collect import (
                            CitationContext,
                            unsupported_finding,
                        )

                        context = CitationContext(path, citation, sentence, None, None)
                        found.append(unsupported_finding(context, answer.model, answer.reason))
                elif key not in self._asked and len(todo) < MAX_PENDING and self._due(key):
                    todo[key] = (sentence.text, work)
        if todo and self.loop is not None:
            self.loop.call_soon_threadsafe(self._enqueue, config, todo)
        out: dict[Path, list[Finding]] = {}
        for f in self.session.policy.apply(ws, found) if found else []:
            out.setdefault(f.location.path, []).append(f)
        return out

    def verdict_on(self, sentence: str, work: Match) -> JudgeVerdict | None:
        """The judge's answer on a sentence and a cited record, if it has given one."""
        config = self.config()
        if config is None:
            return None
        return self.answers.get((config.url, config.model, sentence, _record_digest(work)))

    # -- asking (event loop) ----------------------------------------------------------------
    def _enqueue(self, config: JudgeConfig, todo: dict[AnswerKey, tuple[str, Match]]) -> None:
        for key, item in todo.items():
            if key not in self._asked and len(self._pending) < MAX_PENDING:
                self._asked.add(key)
                self._pending[key] = item
        running = self._task is not None and not self._task.done()
        if self._pending and (not running or self._task_config != config):
            # a new task cancels one asking under settings since changed
            self._task_config = config
            self._task = self.session.tasks.spawn(JUDGE, "ask", self._ask(config))

    async def _ask(self, config: JudgeConfig) -> None:
        if self._judge is None or self._judge.config != config:
            if self._judge is not None:
                await self._judge.aclose()
            self._judge = Judge(config)
        judge = self._judge
        slots = asyncio.Semaphore(CONCURRENCY)

        async def one(key: AnswerKey, sentence: str, work: Match) -> None:
            async with slots:
                try:
                    asked = await judge.ask(sentence, work)
                except Exception:
                    log.warning("the judge could not be asked")
                    asked = JudgeAnswer(None, failed=True)
            if asked.failed:  # no answer: asked again at a later check, after a pause
                self._retry_later(key)
                return
            answer = asked.verdict
            self._failed.pop(key, None)
            self._remember(key, answer)
            if answer is not None and not answer.supported:
                self.verification.request_republish()

        while self._pending:
            batch = list(self._pending.items())
            self._pending.clear()
            try:
                await asyncio.gather(*(one(k, s, w) for k, (s, w) in batch))
            except asyncio.CancelledError:
                for k, _ in batch:  # not answered: ask again at the next check
                    if k not in self.answers:
                        self._asked.discard(k)
                raise

    def _due(self, key: AnswerKey) -> bool:
        """Whether a citation not answered yet may be asked about now (not while the pause
        after a failed request lasts)."""
        retry = self._failed.get(key)
        return retry is None or retry[0] <= _now()

    def _retry_later(self, key: AnswerKey) -> None:
        failures = (self._failed.get(key) or (0.0, 0))[1] + 1
        pause = min(RETRY_MAX, RETRY_AFTER * 2 ** (failures - 1))
        if len(self._failed) >= MAX_ANSWERS:
            self._failed.clear()
        self._failed[key] = (_now() + pause, failures)
        self._asked.discard(key)

    def _remember(self, key: AnswerKey, answer: JudgeVerdict | None) -> None:
        if len(self.answers) >= MAX_ANSWERS:
            for old in list(self.answers)[: MAX_ANSWERS // 10]:
                del self.answers[old]
                self._asked.discard(old)
        self.answers[key] = answer

    async def aclose(self) -> None:
        if self._judge is not None:
            with contextlib.suppress(Exception):
                await self._judge.aclose()
            self._judge = None


def register(session: Session, verification: VerificationService) -> JudgeService:
    """Create the judge service of ``session`` and plug it into its seams."""
    service = JudgeService(session, verification)
    session.features.add(service)
    return service
