"""A source that stopped answering is not asked again for a while (a circuit breaker).

One place decides it for the HTTP client (:mod:`citewarden.verify.http`), per service
(``crossref``, ``semanticscholar`` ...) on its host:

* Each request ends as an answer (any status but 429 and 5xx: a 404 *is* an answer), a
  failure of the source (5xx after the retries, a timeout, a refused or dropped
  connection, a malformed response), or neither (429 and the client's own limits: the
  rate limiter's business; a deadline the entry's budget cut to less than half the
  request timeout says nothing).
* After :data:`FAILURES` failures in a row with no answer in between, the service is
  *open*: its requests fail at once with :meth:`Breaker.refusal`'s reason, so the entries
  that needed it are ``unverified`` with that reason (a failed source has said nothing;
  it never makes "not found").  A source that stalls opens it sooner: each of its
  failures costs a whole request timeout, so two timeouts one after the other (the second
  request sent after the first had timed out) are enough.  Timeouts of requests sent
  together (a moment of slowness) count only towards :data:`FAILURES`.
* A host the service hands a request over to with a redirect (doi.org to a DOI's
  registration agency) is a service of its own, ``data.medra.org (via doi)``: the
  service answered, what came after is the agency's.
* After :data:`COOLDOWN` seconds one request (the probe) is sent again; an answer closes
  the breaker, a failure opens it for another cool-down.  A long-lived language server so
  comes back by itself once the source does.

Random faults (a few 503s and dropped connections among answers) never open it: every
request is retried first, and only consecutive failed requests count.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import Enum

from citewarden.settings import DEFAULT_BREAKER_COOLDOWN, DEFAULT_BREAKER_FAILURES
from citewarden.verify.rate_limit import Clock
from citewarden.verify.transport import CUT_SHORT, Failure, Reply

#: Requests in a row that failed after their retries before a service is no longer asked
#: (by default: the setting ``verify.breaker_failures``).
FAILURES = DEFAULT_BREAKER_FAILURES
#: Seconds an open service is left alone before one request probes it again (by default:
#: ``verify.breaker_cooldown``).
COOLDOWN = DEFAULT_BREAKER_COOLDOWN

#: How the client words a failure of the source itself (no answer, or a broken one).
_SOURCE_FAILURES = (
    "timeout",
    "cannot connect",
    "connection dropped",
    "malformed response",
    "network error",
    CUT_SHORT,
)
#: Of those, a body cut short or damaged on the way, which comes with its status line's
#: status (200): no answer either.
_BROKEN_BODIES = ("malformed response", CUT_SHORT)


class Kind(Enum):
    """What one request's outcome says of the source."""

    ANSWERED = "answered"
    FAILED = "failed"
    #: Nothing either way (429, the client's own limits, a deadline the budget cut short).
    NEITHER = "neither"


def judge(outcome: Reply | Failure, *, cut_short: bool = False) -> Kind:
    """What ``outcome`` of one attempt says of its source; ``cut_short``: the attempt's
    deadline was the rest of the entry's budget, less than half the request timeout (a
    source silent for so short a time may only be slow)."""
    status = outcome.status
    if status == 429:
        return Kind.NEITHER
    if isinstance(outcome, Failure) and outcome.reason.startswith(_BROKEN_BODIES):
        return Kind.FAILED  # (its status line came whole; the answer did not)
    if status is not None:
        return Kind.FAILED if 500 <= status <= 599 else Kind.ANSWERED
    assert isinstance(outcome, Failure)  # a reply always has a status
    if not outcome.reason.startswith(_SOURCE_FAILURES):
        return Kind.NEITHER
    if cut_short and outcome.reason.startswith("timeout"):
        return Kind.NEITHER
    return Kind.FAILED


@dataclass
class _State:
    """One service: its failures in a row, and since when it is open."""

    failures: int = 0
    opened: float | None = None
    #: A probe request is out (the cool-down is over; the others still wait for it).
    probing: bool = False
    #: The failure that opened it (named in the refusals), and the failures in a row then
    #: (0: it was never opened).
    cause: str = ""
    count: int = 0
    #: When the first timeout since the last answer ended (a request sent after it that
    #: times out too is a second round of silence).
    silent_since: float | None = None


def stopped_notice(service: str, why: str, then: str = "check again later") -> str:
    """What the user is told once of a service cut off (``why``: :meth:`Breaker.cut_off`'s),
    ``then``: what to do about it."""
    return f"{service} stopped answering ({why}): the entries that needed it are unverified; {then}"


class Breaker:
    """Failures in a row per service, and whether a request may be sent to it."""

    def __init__(
        self,
        *,
        failures: int = FAILURES,
        cooldown: float = COOLDOWN,
        clock: Clock = time.monotonic,
    ) -> None:
        self.failures = max(1, failures)
        self.cooldown = cooldown
        self._clock = clock
        self._states: dict[tuple[str, str], _State] = {}

    def _state(self, key: tuple[str, str]) -> _State:
        return self._states.setdefault(key, _State())

    def refusal(self, key: tuple[str, str]) -> Failure | None:
        """Why a request to service ``key`` (host, name) fails at once, or None when it
        may wait for its turn (closed, or the cool-down is over)."""
        state = self._states.get(key)
        if state is None or state.opened is None:
            return None
        if state.probing or self._clock() - state.opened < self.cooldown:
            return self._failure(key[1], state)
        return None

    def admit(self, key: tuple[str, str]) -> tuple[Failure | None, bool]:
        """As :meth:`refusal`, just before the request is sent: (refusal, whether the
        request is the probe of an open service, which :meth:`record` must settle)."""
        refused = self.refusal(key)
        if refused is not None:
            return refused, False
        state = self._states.get(key)
        if state is None or state.opened is None:
            return None, False
        state.probing = True
        return None, True

    def now(self) -> float:
        """The breaker's clock (``timed_out_from`` of :meth:`record` is read on it)."""
        return self._clock()

    def record(
        self,
        key: tuple[str, str],
        kind: Kind,
        reason: str,
        *,
        probe: bool,
        timed_out_from: float | None = None,
    ) -> None:
        """Count what one request ended as (``reason``: its failure's, for the refusals;
        ``timed_out_from``: when its last attempt was sent, if that attempt timed out)."""
        state = self._state(key)
        if probe:
            state.probing = False
        if kind is Kind.ANSWERED:
            state.failures, state.opened, state.silent_since = 0, None, None
        elif kind is Kind.FAILED:
            state.failures += 1
            now = self._clock()
            rounds = False
            if timed_out_from is not None:
                since = state.silent_since
                rounds = since is not None and timed_out_from >= since
                if since is None:
                    state.silent_since = now
            enough = state.failures >= self.failures or rounds
            if enough and (state.opened is None or probe):
                state.opened, state.cause, state.count = now, reason, state.failures

    def cut_off(self) -> list[tuple[str, str]]:
        """(service, why: the last time) of each service that was cut off at some point:
        what a run's summary tells the user once, beside the entries' own reasons."""
        return [(name, self._why(state)) for name, state in self._named() if state.count]

    def stopped(self) -> list[tuple[str, str]]:
        """(service, why) of each service cut off now (until a probe gets an answer): what
        the editor's status shows.  Read from another thread than the one recording."""
        return [
            (name, self._why(state)) for name, state in self._named() if state.opened is not None
        ]

    def _named(self) -> tuple[tuple[str, _State], ...]:
        """(service name, state) of every service seen, a snapshot (safe beside the thread
        that records)."""
        return tuple((name, state) for (_, name), state in tuple(self._states.items()))

    def _why(self, state: _State) -> str:
        cause = f" ({state.cause})" if state.cause else ""
        if state.count == 1:
            return f"1 request failed{cause}"
        return f"{state.count} requests in a row failed{cause}"

    def _failure(self, name: str, state: _State) -> Failure:
        return Failure(
            f"{name} stopped answering: {self._why(state)}; not asked again for {self.cooldown:g} s"
        )
