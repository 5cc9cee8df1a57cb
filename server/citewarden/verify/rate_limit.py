"""Politeness per lane: published limits, token buckets, concurrency slots, and the rate
headers services send (``Retry-After``, ``x-rate-limit-*``, ``x-ratelimit-reset``).
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from citewarden.verify.urgency import PrioritySlots

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Limit:
    """A lane's politeness policy."""

    rate: float  # requests per second
    burst: int = 1  # tokens available at once
    concurrency: int = 1  # requests in flight at once


#: Published limits per lane.  ``*-public`` lanes are used when no mailto identifies us, and
#: ``*-key`` lanes when an API key is configured.  Bursts are 1: requests are spaced evenly,
#: so no window of a second ever sees more than the published rate (plus one).
PUBLISHED_LIMITS: dict[str, Limit] = {
    # Crossref (since December 2025).  Polite pool (mailto): 10 req/s for single records,
    # 3 req/s and 3 concurrent for queries; public pool: 5 req/s and 1 req/s, concurrency 1.
    "crossref": Limit(10.0, 1, 3),
    "crossref-query": Limit(3.0, 1, 3),
    "crossref-public": Limit(5.0, 1, 1),
    "crossref-query-public": Limit(1.0, 1, 1),
    # doi.org content negotiation redirects to the registration agency; stay modest.
    "doi": Limit(5.0, 1, 2),
    # OpenAlex: at most 10 requests per second.
    "openalex": Limit(10.0, 1, 5),
    # Semantic Scholar: 1 request per second with a key; the shared unauthenticated pool
    # is throttled hard, so the same spacing is kept without one.
    "semanticscholar": Limit(1.0, 1, 1),
    "semanticscholar-key": Limit(1.0, 1, 1),
    # DataCite REST API: 3000 requests per 5 minutes per client (10 req/s).
    "datacite": Limit(10.0, 1, 4),
    # arXiv API terms: one request every three seconds, a single connection.
    "arxiv": Limit(1 / 3, 1, 1),
    # NCBI E-utilities: 3 requests per second, 10 with an API key.
    "pubmed": Limit(3.0, 1, 3),
    "pubmed-key": Limit(10.0, 1, 10),
    # dblp publishes no figure but rate-limits bursts; keep it gentle.
    "dblp": Limit(2.0, 1, 1),
    # Open Library: identified clients up to 3 req/s, anonymous 1 req/s.
    "openlibrary": Limit(3.0, 1, 1),
    "openlibrary-public": Limit(1.0, 1, 1),
    # DOAJ's public API (v4, at /api): asked once per journal in question; keep it gentle.
    "doaj": Limit(2.0, 1, 1),
}


def parse_retry_after(value: str | None, now_epoch: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date, read
    against ``now_epoch``: the reply's :func:`server_clock` when it has one)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        # a negative, infinite or NaN delay is no delay the header can give: without one,
        # the retries back off as they do without the header (never at once, never for ever)
        return seconds if 0.0 <= seconds < math.inf else None
    try:
        when = email.utils.parsedate_to_datetime(value)
        stamp = when.timestamp() if when is not None else None
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        # OverflowError: a zone offset no date can hold (``+9999999999999``)
        return None
    if stamp is None:
        return None
    now = time.time() if now_epoch is None else now_epoch
    return max(0.0, stamp - now)


def server_clock(headers: Mapping[str, str]) -> float | None:
    """When (epoch seconds) a reply says it was sent, by its ``Date`` header: the clock of
    the dates and epoch times its other headers give (``Retry-After``,
    ``x-ratelimit-reset``), so that a local clock set wrong neither stretches nor shortens
    the wait they ask for.  None without a readable date with its zone."""
    value = headers.get("date")
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when is None or when.tzinfo is None:
        return None
    try:
        return when.timestamp()
    except (OverflowError, ValueError, OSError):
        return None


_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(?:(ms|s|m|h)\s*)?$")


def parse_interval(value: str) -> float | None:
    """``"1s"`` -> 1.0, ``"500ms"`` -> 0.5, ``"2"`` -> 2.0; ``None`` when unreadable."""
    m = _INTERVAL.match(value)
    if not m:
        return None
    n = float(m.group(1))
    unit = m.group(2) or "s"
    return n * {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}[unit]


class Slots(PrioritySlots):
    """A concurrency cap that a service can lower while requests are in flight (Crossref's
    ``x-concurrency-limit``); requests already sent finish, new ones wait for the new cap.
    The requests of a verification the author waits for go first
    (:mod:`citewarden.verify.urgency`)."""


#: The lowest rate a service's headers set: one request every 2 minutes, the longest
#: ``Retry-After`` waited for (``x-rate-limit-interval: 100000h`` would wait for ever).
MIN_ADOPTED_RATE = 1 / 120


class PausedTooLong(Exception):
    """A pause set while a request waited for its token (another request's ``Retry-After``),
    or a rate lowered meanwhile (``interval``: the seconds between requests it allows), that
    would hold it longer than it may wait."""

    def __init__(self, seconds: float, interval: float | None = None) -> None:
        super().__init__(seconds)
        self.seconds = seconds
        self.interval = interval


class TokenBucket:
    """Token bucket with a concurrency cap and a pause (for Retry-After / exhausted budgets).

    Acquisition order is FIFO so queued requests are served fairly, urgent ones first
    (:mod:`citewarden.verify.urgency`).
    """

    def __init__(
        self,
        limit: Limit,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        min_rate: float = MIN_ADOPTED_RATE,
    ):
        self.seed = limit
        self.rate = limit.rate
        #: The lowest advertised rate adopted (a lower one is taken as this).
        self.min_rate = min_rate
        self.burst = max(1, limit.burst)
        self._tokens = float(self.burst)
        self._clock = clock
        self._sleep = sleep
        self._stamp = clock()
        self._paused_until = 0.0
        #: The end of the pauses the lane took of its own (not its service's, ``held``).
        self._own_until = 0.0
        self._lock = PrioritySlots(1)
        self._slots = Slots(max(1, limit.concurrency))
        #: Clock readings at which tokens were granted (most recent last; for diagnostics).
        self.grants: list[float] = []

    def _refill(self) -> None:
        now = self._clock()
        if now > self._stamp:
            self._tokens = min(float(self.burst), self._tokens + (now - self._stamp) * self.rate)
            self._stamp = now

    async def acquire(self, max_pause: float = math.inf) -> None:
        """Wait for a token (respecting any pause); :class:`PausedTooLong` when a pause, or
        the lane's rate, holds the request more than ``max_pause`` seconds from now (set
        while it waited behind others: it was let go before)."""
        async with self._lock:
            while True:
                now = self._clock()
                if now < self._paused_until:
                    if self._paused_until - now > max_pause:
                        raise PausedTooLong(self._paused_until - now)
                    await self._sleep(self._paused_until - now)
                    continue
                self._refill()
                if self._tokens >= 1.0 - 1e-9:  # tolerate float rounding
                    self._tokens = max(0.0, self._tokens - 1.0)
                    self.grants.append(now)
                    del self.grants[:-1000]
                    return
                wait = max((1.0 - self._tokens) / self.rate, 1e-3)
                if wait > max_pause:
                    raise PausedTooLong(wait, 1.0 / self.rate)
                await self._sleep(wait)

    @property
    def concurrency(self) -> int:
        return self._slots.limit

    def slot(self) -> Slots:
        """The concurrency cap (use as ``async with bucket.slot():``)."""
        return self._slots

    def paused_for(self) -> float:
        """Seconds until the lane may send again because of a pause (0 when not paused)."""
        return max(0.0, self._paused_until - self._clock())

    def pause(self, seconds: float, *, held: bool = False) -> None:
        """Grant no token for ``seconds`` from now (keeps the longest pause); ``held``: the
        pause of the whole service, which :meth:`lift_held` ends."""
        until = self._clock() + seconds
        if not held:
            self._own_until = max(self._own_until, until)
        self._paused_until = max(self._paused_until, until)
        self._tokens = 0.0
        self._stamp = max(self._stamp, self._paused_until)

    def lift_held(self) -> None:
        """End the service's pause (lifted elsewhere); the lane's own pauses stay."""
        self._paused_until = min(self._paused_until, self._own_until)
        self._stamp = min(self._stamp, max(self._clock(), self._paused_until))

    def token_wait(self) -> float:
        """Seconds until the next token, a pause included (requests already waiting for
        theirs aside)."""
        self._refill()
        return self.paused_for() + max(0.0, 1.0 - self._tokens) / self.rate

    def lower_rate(self, rate: float) -> None:
        """Adopt a lower rate announced by the service (never above the published seed,
        never below :attr:`min_rate`)."""
        rate = max(rate, self.min_rate)
        if 0 < rate < self.rate:
            self.rate = rate
            self.burst = max(1, min(self.burst, int(rate) or 1))
            self._tokens = min(self._tokens, float(self.burst))

    def adapt(self, headers: Mapping[str, str]) -> None:
        """Adapt to rate-limit headers of a response."""
        limit = headers.get("x-rate-limit-limit")
        interval = headers.get("x-rate-limit-interval")
        if limit and interval:
            seconds = parse_interval(interval)
            try:
                n = float(limit)
            except ValueError:
                n = 0.0
            if seconds and n > 0:
                self.lower_rate(n / seconds)
        concurrency = headers.get("x-concurrency-limit")
        if concurrency and _DIGITS.fullmatch(concurrency.strip()):
            self._slots.lower(int(concurrency.strip()))
        remaining = headers.get("x-ratelimit-remaining")
        if remaining is not None and _is_zero(remaining):
            wait = parse_reset(headers.get("x-ratelimit-reset"), server_clock(headers))
            self.pause(min(wait if wait is not None else 60.0, 86400.0))


#: A concurrency header's value: ASCII digits only (``str.isdigit`` also takes "²", which
#: ``int`` refuses), short enough to be a count.
_DIGITS = re.compile(r"[0-9]{1,6}")


def _is_zero(value: str) -> bool:
    try:
        return float(value.strip()) <= 0
    except ValueError:
        return False


def parse_reset(value: str | None, now_epoch: float | None = None) -> float | None:
    """Seconds until a budget resets: delta seconds ("30", "1s"), epoch seconds, or a date."""
    if not value:
        return None
    value = value.strip()
    try:
        n = float(value)
    except ValueError:
        seconds = parse_interval(value)
        return seconds if seconds is not None else parse_retry_after(value, now_epoch)
    if not math.isfinite(n):
        return None  # "inf", "nan", 400 digits: no time, so the wait of an unreadable reset
    if n > 1e9:  # an epoch timestamp
        now = time.time() if now_epoch is None else now_epoch
        return max(0.0, n - now)
    return max(0.0, n)


def rate_bound(requests: Mapping[str, int], limits: Mapping[str, Limit] | None = None) -> float:
    """The least wall time the published limits allow for ``requests`` (per lane counts):
    lanes run in parallel, each needs ``(n - burst) / rate`` seconds."""
    table = PUBLISHED_LIMITS if limits is None else limits
    bound = 0.0
    for lane, n in requests.items():
        limit = table.get(lane) or table.get(lane.split("-")[0]) or Limit(1.0)
        bound = max(bound, max(0, n - max(1, limit.burst)) / limit.rate)
    return bound
