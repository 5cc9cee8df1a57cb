"""A batch look-up whose answer was over the body cap, asked again in halves.

Every response is capped (:data:`citewarden.verify.transport.MAX_BODY`, counted after
decompression).  A batch of many ids can go over the cap where the answer for each id alone
would not (author-heavy papers with abstracts and tl;drs at Semantic Scholar, 500 to a
request): the request then fails for every id in it.  :func:`in_halves` asks the ids whose
answer failed *because the body was too large* again in two halves, one half after the
other, and a half that fails so again in halves, down to :data:`LEAST` ids.  An id left
alone is not sent as a batch of one: it is asked by its single look-up (its entry's own
request), whose answer is the same record.

Only a body over the cap splits a batch.  A timeout, a 429 or a server error says nothing
about the size of the answer; splitting then would only multiply requests.  The halves are
requests like any other: they go through the same client lanes, rate limits and caps.  At
most :data:`LEVELS` levels of halves are asked (six requests added to a batch), and only while
answers keep coming back over the cap; the ids still without an answer then ask on their
own, as after any failed batch.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from citewarden.verify.evidence import FailureKind, failure_kind
from citewarden.verify.records import Lookup, Outcome

log = logging.getLogger("citewarden.verify")

#: The fewest ids sent again as a batch; an id alone is asked by its single look-up.
LEAST = 2
#: How many times a batch is halved at most (its halves, then theirs: six requests).
LEVELS = 2

#: A source's batch method (``by_dois``, ``by_arxivs`` ...): answers by identifier.
BatchCall = Callable[[list[str]], Awaitable[Mapping[str, Lookup]]]


def too_large(answer: Lookup | None) -> bool:
    """Whether ``answer`` failed because the response body was over the cap."""
    return (
        answer is not None
        and answer.outcome is Outcome.FAILED
        and failure_kind(answer.reason) is FailureKind.TOO_LARGE
    )


async def in_halves(
    call: BatchCall, ids: Sequence[str], key: Callable[[str], str], levels: int = LEVELS
) -> dict[str, Lookup]:
    """The answers of ``call(ids)`` by ``key(id)``; the ids whose answer was too large are
    asked again in halves, ``levels`` times at most (see the module's description).  An id
    still too large at the end keeps that failure (its entry then asks on its own)."""
    raw = await call(list(ids))
    answers = {key(k): v for k, v in raw.items()}
    over = list({key(i): i for i in ids if too_large(answers.get(key(i)))}.values())
    if len(over) < LEAST or levels <= 0:
        return answers
    half = (len(over) + 1) // 2
    log.info("a batch answer of %d ids was over the body cap: asking them in halves", len(over))
    for part in (over[:half], over[half:]):
        if len(part) >= LEAST:
            answers.update(await in_halves(call, part, key, levels - 1))
    return answers
