"""The venue search step of verification: does the cited venue exist at all?

Asked only for a cited venue the matched record contradicts and the bundled table does not
know (:func:`citewarden.verify.venue_check.venue_contradicted`): dblp ``/search/venue/api``,
OpenAlex ``/sources?search=`` and Crossref ``/journals?query=``, each source that is
configured and has the endpoint, at the same time, cached like works (see
:mod:`citewarden.verify.sources.cached`) and asked like every other look-up of the entry
(``SourceCalls._ask_safely``): in the source's request slot, so its concurrency limit holds
for all of its requests; not sent once the run is cancelled; within the entry's time budget
and the client's size limits.  Each answer becomes a :class:`VenueAnswer`; a search that
failed gives none (it is evidence of nothing) but its :class:`Failure`, which keeps the
other searches' answers from settling that the venue does not exist.  Only a registry
that would list the venue is asked: dblp (computer science) for a work dblp holds,
Crossref's journals for a venue cited as a journal, OpenAlex (every kind of venue) always.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from citewarden.verify.evidence import Failure, VenueAnswer
from citewarden.verify.records import Lookup, Outcome, WorkRecord
from citewarden.verify.venues import venue_search_text

#: How a look-up is asked: ``ask(source, name, method, arg)`` (``SourceCalls._ask_safely``:
#: a source that raised answers FAILED).
Ask = Callable[[Any, str, str, str], Awaitable[Lookup]]

#: Sources with a venue search, in the order their answers are listed.
VENUE_REGISTRIES = ("dblp", "openalex", "crossref")


def _names(record: WorkRecord) -> tuple[str, ...]:
    return tuple(n for n in dict.fromkeys((record.venue or record.title, *record.venue_short)) if n)


def registries(*, journal: bool, in_dblp: bool) -> tuple[str, ...]:
    """The venue searches whose "no such venue" means something for this citation."""
    covers = {"dblp": in_dblp, "openalex": True, "crossref": journal}
    return tuple(name for name in VENUE_REGISTRIES if covers[name])


async def venue_answers(
    sources: Mapping[str, Any], cited: str, *, journal: bool, in_dblp: bool, ask: Ask
) -> tuple[list[VenueAnswer], list[Failure]]:
    """The answers of the venue searches for ``cited``, and the failures of those that did
    not answer (both empty when there is nothing distinctive to search for).  ``journal``:
    cited as a journal; ``in_dblp``: dblp holds the work; ``ask``: how the engine asks a
    source (its slot, the run's cancellation)."""
    text = venue_search_text(cited)
    if text is None:
        return [], []
    names = registries(journal=journal, in_dblp=in_dblp)
    asked = [(name, s) for name in names if hasattr(s := sources.get(name), "venues")]
    answers: list[VenueAnswer] = []
    failures: list[Failure] = []
    lookups = await asyncio.gather(*(ask(s, name, "venues", text) for name, s in asked))
    for (name, _), lookup in zip(asked, lookups, strict=True):
        if lookup.outcome is Outcome.FAILED:
            failures.append(Failure.of(name, lookup.reason))
            continue
        answers.append(VenueAnswer(lookup.source, tuple(_names(r) for r in lookup.records)))
    return answers, failures
