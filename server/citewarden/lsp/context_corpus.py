"""The corpus that weights the words of citation-context hovers, kept off the request path.

The corpus (:class:`citewarden.context.relevance.FieldCorpus` over every entry's work: the
matched record when the entry was verified, else the entry) is built once for the first
citation hover, in that request: a hover asked for a score, and building before anyone
asks would cost every session a build and the context modules' import.  From then on,
when verdicts arrive or the bibliography changes (the session's ``on_checked`` hook, after
every check and republication), a rebuild is scheduled:

* debounced: it starts ``debounce_ms`` after the change that asked for it (at least
  :data:`LEAST_PAUSE`, and at least :data:`PAUSE_FACTOR` times the last build's duration,
  so that while verdicts stream in rebuilds take a bounded share of the processor);
  changes meanwhile are folded into it, changes during it ask for one more;
* what the corpus is built from (the first :data:`MAX_CORPUS` entries, the verdicts) is
  read in the request worker, where requests read the project model (a few milliseconds);
  nothing is built when it is the same as the current corpus's;
* the build runs in a thread of its own at a lower scheduling priority, never in the request
  worker, so a hover that arrives meanwhile is answered at once from the last corpus built;
* the corpus is never changed once built: the new one replaces the old by one reference
  swap (:class:`Built`), which a hover reads once;
* when the works read are those of the current corpus, in the same order (an edit of the
  bibliography that changes no title, author or abstract, a verdict that matched the
  entry's own work), the current corpus is kept, and with it the scores hovers found.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from citewarden.lsp.check_cycle import lower_priority
from citewarden.lsp.session import Session
from citewarden.lsp.verification import verdicts_by_key
from citewarden.model import DocumentKind, Entry, ParsedDocument, Verdict
from citewarden.project import Workspace

if TYPE_CHECKING:
    from pathlib import Path

    from citewarden.context.latex_macros import Macros
    from citewarden.context.relevance import FieldCorpus, Work
    from citewarden.lsp.verification import VerificationService

log = logging.getLogger(__name__)

#: Works the corpus holds at most (the first ones: a sample of a large bibliography weights
#: words much as the whole does, and bounds the first hover's cost and each rebuild's).
MAX_CORPUS = 2000
#: Least seconds between the change that calls for a rebuild and the rebuild.
LEAST_PAUSE = 1.0
#: The pause before a rebuild is at least this many times the last build's duration.
PAUSE_FACTOR = 4.0
#: Task registry name of the scheduled rebuild.
GROUP, KEY = "context", "corpus"


@dataclass(frozen=True, slots=True)
class Inputs:
    """What a corpus is built from: the sampled entries, a copy of the verdicts by
    fingerprint, and the verification state they were read at."""

    entries: tuple[Entry, ...]
    verdicts: Mapping[str, Verdict]
    generation: int
    verifying: bool

    def same_as(self, other: Inputs) -> bool:
        """True if ``other`` would build the same corpus (entries compared by identity: an
        entry is a new object when its bibliography was read again)."""
        return (
            self.generation == other.generation
            and self.verifying == other.verifying
            and len(self.entries) == len(other.entries)
            and all(a is b for a, b in zip(self.entries, other.entries, strict=True))
        )


@dataclass(frozen=True, slots=True)
class Built:
    """A corpus, the works it holds and what they were read from (swapped whole)."""

    corpus: FieldCorpus
    works: tuple[Work, ...]
    inputs: Inputs
    seconds: float


def build(inputs: Inputs, previous: Built | None = None) -> tuple[FieldCorpus, tuple[Work, ...]]:
    """The corpus of ``inputs`` and its works; ``previous``'s corpus when it holds the same
    works in the same order (pure; in any thread: it reads nothing but its arguments)."""
    from citewarden.context.collect import works_of
    from citewarden.context.relevance import FieldCorpus

    by_key = verdicts_by_key(inputs.verdicts, inputs.entries) if inputs.verifying else {}
    works = tuple(w for w in works_of(inputs.entries, by_key).values() if w.title or w.abstract)
    if previous is not None and previous.works == works:
        return previous.corpus, previous.works
    return FieldCorpus(works), works


class CorpusKeeper:
    """The last corpus built, and the scheduling of the next (see the module docstring)."""

    def __init__(self, session: Session, service: VerificationService | None) -> None:
        self.session = session
        self.service = service
        #: The last corpus built (read by hovers in the request worker, swapped whole).
        self.built: Built | None = None
        #: Set by the first hover that wants a corpus: rebuilds are scheduled from then on.
        self.wanted = False
        #: Rebuilds done in the background (the log says so too).
        self.rebuilds = 0
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._thread: ThreadPoolExecutor | None = None
        self._closed = False

    # -- the request worker ---------------------------------------------------------------
    def inputs(self) -> Inputs:
        """What the corpus would be built from now (request worker: reads the model)."""
        entries = tuple(self.session.project.all_entries()[:MAX_CORPUS])
        service = self.service
        if service is None or not service.enabled:
            return Inputs(entries, {}, 0, False)
        # the generation first: a verdict that lands while the map is copied then makes the
        # corpus's generation older than the service's, so the next check rebuilds
        generation = service.generation
        return Inputs(entries, dict(service.verdicts), generation, True)

    def corpus(self) -> FieldCorpus:
        """The last corpus built; the first one is built here, once (request worker)."""
        self.wanted = True
        built = self.built
        if built is None:
            inputs = self.inputs()
            started = time.perf_counter()
            corpus, works = build(inputs)
            took = time.perf_counter() - started
            built = self.built = Built(corpus, works, inputs, took)
            log.debug(
                "context corpus built for the first hover: %d works in %.1f ms",
                corpus.size,
                took * 1000,
            )
        return built.corpus

    def _changed_inputs(self) -> Inputs | None:
        """The inputs of a rebuild, or None when they are the current corpus's."""
        inputs = self.inputs()
        built = self.built
        return None if built is not None and built.inputs.same_as(inputs) else inputs

    # -- the event loop -------------------------------------------------------------------
    def changed(self) -> None:
        """Verdicts or entries may have changed: rebuild soon (event loop)."""
        if not self.wanted or self._closed:
            return
        if self._task is not None and not self._task.done():
            self._again = True
            return
        self._task = self.session.tasks.spawn(GROUP, KEY, self._rebuild())

    @property
    def scheduled(self) -> asyncio.Task[None] | None:
        """The scheduled or running rebuild, if any (event loop)."""
        task = self._task
        return task if task is not None and not task.done() else None

    def pause(self) -> float:
        """Seconds before the next rebuild starts."""
        last = self.built.seconds if self.built is not None else 0.0
        debounce = self.session.settings.debounce_ms / 1000
        return max(debounce, LEAST_PAUSE, PAUSE_FACTOR * last)

    async def _rebuild(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.pause())
            self._again = False  # what changed until now is read next
            inputs = await self.session.run(self._changed_inputs)
            if inputs is not None and not self._closed:
                log.debug("rebuilding the context corpus in the background")
                if self._thread is None:
                    self._thread = ThreadPoolExecutor(
                        max_workers=1,
                        thread_name_prefix="context-corpus",
                        initializer=lower_priority,
                    )
                previous = self.built
                started = time.perf_counter()
                corpus, works = await loop.run_in_executor(self._thread, build, inputs, previous)
                took = time.perf_counter() - started
                kept = previous if previous is not None and corpus is previous.corpus else None
                # a kept corpus keeps the pause its build called for
                self.built = Built(corpus, works, inputs, kept.seconds if kept else took)
                self.rebuilds += 1
                log.debug(
                    "context corpus %s in the background: %d works in %.1f ms",
                    "kept (the same works)" if kept else "rebuilt",
                    corpus.size,
                    took * 1000,
                )
            if not self._again:
                return

    def close(self) -> None:
        """Stop scheduling (for good); let the build thread end once its build (if any)
        is done."""
        self._closed = True
        self.wanted = False
        if self._task is not None:
            self._task.cancel()
        if self._thread is not None:
            self._thread.shutdown(wait=False, cancel_futures=True)
            self._thread = None


def project_macros(ws: Workspace, path: Path, doc: ParsedDocument) -> Macros | None:
    """The words commands of the LaTeX document ``path``'s projects (those of its own text
    alone when it is in none), read from the texts the workspace holds; each file's
    definitions are read once per version (:func:`~citewarden.context.latex_macros.macros_of`),
    and the same commands give the same object."""
    if doc.kind is not DocumentKind.LATEX:
        return None
    from citewarden.context.latex_macros import macros_of
    from citewarden.context.project_texts import project_latex_texts

    texts = project_latex_texts(ws, [path])
    own = ws.text(path)
    if own is not None and not any(t is own for t in texts):
        texts.append(own)
    return macros_of(texts)
