"""The one HTTP client every source uses: politeness, retries and failure as data.

* Requests are grouped into *lanes* (``crossref``, ``crossref-query``, ``arxiv`` ...).  Each lane
  has a token bucket (requests per second, burst) and a concurrency cap, seeded with the
  service's published limits (:data:`~citewarden.verify.rate_limit.PUBLISHED_LIMITS`) and
  lowered when the service says so
  (``x-rate-limit-limit`` / ``x-rate-limit-interval``; ``x-ratelimit-remaining: 0`` with
  ``x-ratelimit-reset`` pauses the lane).  What a host advertises (rate, concurrency) also
  holds for all of the service's lanes on it together: a host gate every request of those
  lanes passes after its lane's own limits (Crossref's single-record and list lanes).
* 429 and 503 honour ``Retry-After`` (seconds or an HTTP date); other transient failures back
  off exponentially (capped).  The number of retries is bounded.
* Every request is bounded (:mod:`citewarden.verify.transport`): a total deadline per attempt
  (``timeout``), a body cap (:data:`MAX_BODY`), redirects only to the source's own hosts and
  never with keys to another origin; inside :func:`entry_budget` all requests made for one
  entry share a time budget (time on the wire plus retry waits; waiting for a politeness
  slot does not count), and a deadline or body-cap failure is not retried.
* A service that failed 5 requests in a row, or timed out twice one request after the
  other, is not asked for a while (:mod:`citewarden.verify.breaker`).
* With ``shared_dir`` (a directory under the cache) lane spacing, host pauses, advertised
  concurrency and the caps on requests in flight are shared with other processes on the
  machine (:mod:`citewarden.verify.shared_rate`, :mod:`citewarden.verify.shared_slots`); a
  request that cannot get a slot within its deadline fails with the reason.
* Nothing raises for network or data problems: :meth:`HttpClient.get` returns a :class:`Reply`
  or a :class:`Failure` with a short reason.
* Secrets (API keys) are redacted from every logged URL and every failure reason; a logged
  URL also leaves out the user name and password of its address and the operator's e-mail
  address (:func:`redact_url`), and httpx's own loggers, which log whole URLs, are quiet.

Clock and sleep are injectable so tests can check spacing without real waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx

from citewarden.redaction import SECRET_HEADERS, SECRET_PARAMS, redact, register_secrets
from citewarden.settings import DEFAULT_TIMEOUT, header_value_problem
from citewarden.verify.breaker import Breaker, Kind, judge
from citewarden.verify.rate_limit import (
    PUBLISHED_LIMITS,
    Clock,
    Limit,
    PausedTooLong,
    Sleep,
    TokenBucket,
    parse_retry_after,
    server_clock,
)
from citewarden.verify.shared_rate import SharedRate, family_of
from citewarden.verify.shared_slots import SharedSlots, SlotTimeout
from citewarden.verify.transport import (
    ACCEPT_ENCODING,
    ENTRY_BUDGET_FACTOR,
    MAX_BODY,
    REDIRECT_HOSTS,
    BodyError,
    Budget,
    Failure,
    Reply,
    connect_timeout,
    current_budget,
    entry_budget,
    exchange,
    may_redirect,
)

log = logging.getLogger("citewarden.http")
# httpx logs every request's full URL at INFO (a user name, password or mailto in it), and
# httpcore its connections at DEBUG: they log nothing below a warning, whatever the root's
# level; this module logs each request itself, redacted (:func:`redact_url`).
for _name in ("httpx", "httpcore"):
    logging.getLogger(_name).setLevel(logging.WARNING)


__all__ = [
    "ENTRY_BUDGET_FACTOR",
    "MAX_BODY",
    "PUBLISHED_LIMITS",
    "REDIRECT_HOSTS",
    "SECRET_HEADERS",
    "SECRET_PARAMS",
    "BodyError",
    "Failure",
    "Limit",
    "Reply",
    "entry_budget",
    "redact",
]


#: Headers by which a service advertises limits for all its lanes on one host.
ADVERTISED = ("x-rate-limit-limit", "x-concurrency-limit")
#: The seed of a host's gate: only what the host advertises lowers it.
UNLIMITED = Limit(1000.0, 1, 1000)


#: Query parameters holding the operator's e-mail address (the polite pools' ``mailto``,
#: NCBI's ``email``): not a key, but no one else's to read in a log.
MAIL_PARAMS = frozenset({"mailto", "email"})


def redact_url(url: str, secrets: Iterable[str] = ()) -> str:
    """A URL safe to log: no user name or password, the values of secret and e-mail
    parameters masked (and every known secret, wherever it stands)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact(_without_login_or_query(url), secrets)
    masked = SECRET_PARAMS | MAIL_PARAMS
    query = [
        (k, "***" if k.lower() in masked else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    netloc = parts.netloc.rpartition("@")[2]
    clean = urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="*")))
    return redact(clean, secrets)


def _without_login_or_query(url: str) -> str:
    """An address ``urlsplit`` cannot read, without what precedes an ``@`` of its
    authority, its query and its fragment."""
    scheme, sep, rest = url.partition("://")
    rest = rest.split("?", 1)[0].split("#", 1)[0]
    authority, slash, path = rest.partition("/")
    return scheme + sep + authority.rpartition("@")[2] + slash + path


#: Seconds by which a service's pause in the shared directory may end before the one this
#: process wrote there (clocks read apart) without being taken as lifted.
LIFTED_SLACK = 1.0

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass
class RetryPolicy:
    """Bounded retries with capped exponential backoff."""

    max_retries: int = 3  # retries after the first attempt for 429/5xx
    transport_retries: int = 2  # retries after a silent server / dropped connections
    backoff_base: float = 1.0
    backoff_cap: float = 30.0
    #: Give up (FAILED) rather than wait longer than this for a Retry-After.
    max_retry_after: float = 120.0

    def backoff(self, attempt: int) -> float:
        return float(min(self.backoff_cap, self.backoff_base * (2**attempt)))


@dataclass
class _Call:
    """One request as the breaker sees it: its service, what its attempts said of the
    source (the last that said anything), and whether it is the probe of an open service."""

    key: tuple[str, str] | None = None
    kind: Kind = Kind.NEITHER
    reason: str = ""
    probe: bool = False
    #: When that attempt was sent, if it timed out (the breaker's rounds of silence).
    timed_out_from: float | None = None
    #: Seconds the agency the request was handed over to still asked to wait for (the
    #: request waits, then is sent again).
    held_back: float | None = None
    #: The host the service handed the request over to (doi.org to a DOI's registration
    #: agency), a service of its own to the breaker: what the request said of it.
    handed: _Call | None = None


@dataclass
class HttpStats:
    requests: dict[str, int] = field(default_factory=dict)  # per lane, attempts on the wire
    retries: int = 0
    failures: int = 0


class HttpClient:
    """Async HTTP with per-lane politeness.  One instance per process (or per run).

    ``transport`` lets tests plug an httpx transport; the normal path uses a real connection
    pool.  ``secrets`` are strings never to be logged (API keys).  ``timeout`` is both the
    silence timeout and the total deadline of one attempt; ``max_body`` caps a response body;
    ``shared_dir`` shares lane spacing and host pauses with other processes; ``breaker``
    stops asking a service that stopped answering (:mod:`citewarden.verify.breaker`).
    """

    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        user_agent: str = "citewarden",
        limits: Mapping[str, Limit] | None = None,
        retry: RetryPolicy | None = None,
        secrets: Iterable[str] = (),
        transport: httpx.AsyncBaseTransport | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
        max_connections: int = 32,
        max_body: int = MAX_BODY,
        shared_dir: str | os.PathLike[str] | None = None,
        redirect_hosts: Mapping[str, frozenset[str]] | None = None,
        anonymous: Iterable[str] = (),
        breaker: Breaker | None = None,
    ) -> None:
        self.timeout = timeout
        self.user_agent = user_agent
        #: Addresses (base URLs) sent a User-Agent without the operator's contact address.
        self.anonymous = tuple(a.rstrip("/") for a in anonymous if a)
        self.limits = dict(PUBLISHED_LIMITS if limits is None else limits)
        self.retry = retry or RetryPolicy()
        self.secrets = tuple(s for s in secrets if s)
        register_secrets(self.secrets)
        self.max_body = max_body
        self.redirect_hosts = dict(REDIRECT_HOSTS if redirect_hosts is None else redirect_hosts)
        self.shared = SharedRate(shared_dir) if shared_dir is not None else None
        self.slots = SharedSlots(shared_dir) if shared_dir is not None else None
        self._transport = transport
        self._clock = clock
        self._sleep = sleep
        self._max_connections = max_connections
        self._client: httpx.AsyncClient | None = None
        self._buckets: dict[str, TokenBucket] = {}
        self._lane_hosts: dict[str, str] = {}
        #: (host, service) -> clock reading until which its every lane waits (Retry-After).
        self._host_paused: dict[tuple[str, str], float] = {}
        #: (host, service) -> clock reading until which this process paused it in the
        #: shared directory: a shared pause that ends sooner was lifted (cache clear).
        self._shared_paused: dict[tuple[str, str], float] = {}
        #: (host, service) -> the limits the host advertised (rate-limit and concurrency
        #: headers), held by all the service's lanes on that host together.
        self._host_gates: dict[tuple[str, str], TokenBucket] = {}
        self.breaker = breaker or Breaker(clock=clock)
        self.stats = HttpStats()

    # -- lifecycle --------------------------------------------------------------------------

    def _ensure_client(self) -> httpx.AsyncClient:
        if self._client is None or self._client.is_closed:
            self._client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout, connect=connect_timeout(self.timeout)),
                # only the codings transport undoes itself, a piece at a time
                headers={"User-Agent": self.user_agent, "Accept-Encoding": ACCEPT_ENCODING},
                follow_redirects=False,  # followed by hand: transport.exchange
                transport=self._transport,
                limits=httpx.Limits(max_connections=self._max_connections),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # -- politeness -------------------------------------------------------------------------

    def bucket(self, lane: str) -> TokenBucket:
        """The token bucket of ``lane`` (created from :attr:`limits` on first use)."""
        b = self._buckets.get(lane)
        if b is None:
            limit = self.limits.get(lane) or self.limits.get(lane.split("-")[0]) or Limit(1.0)
            b = TokenBucket(limit, clock=self._clock, sleep=self._sleep, min_rate=self._min_rate)
            self._buckets[lane] = b
        return b

    @property
    def _min_rate(self) -> float:
        """The lowest advertised rate adopted: one request per ``max_retry_after``."""
        return 1.0 / max(self.retry.max_retry_after, 1e-3)

    def _slow_lane(self, lane: str, host: str, budget: Budget | None) -> Failure | None:
        """A failure when the rate the service set puts the next token after the entry's
        budget (or after ``max_retry_after``): waiting would only use the budget up."""
        gate = self._host_gates.get((host, family_of(lane)))
        buckets = [self.bucket(lane), *([gate] if gate is not None else [])]
        wait = max(b.token_wait() for b in buckets)
        limit = self._wait_limit(budget)
        if wait <= limit:
            return None
        paused = max(b.paused_for() for b in buckets)
        interval = 1.0 / min(b.rate for b in buckets)
        if paused >= interval:  # the pause the service asked for, not its rate, is the wait
            return Failure(f"rate limited: retry after {paused:.0f} s", 429)
        return Failure(_per_request(interval))

    def _wait_limit(self, budget: Budget | None) -> float:
        """The longest a request may wait for its lane: ``max_retry_after``, within the
        entry's budget."""
        limit = self.retry.max_retry_after
        return min(limit, budget.remaining()) if budget is not None else limit

    def _paused_for(self, lane: str, host: str) -> float:
        if self.shared is None:
            return self.bucket(lane).paused_for()
        key = (host, family_of(lane))
        shared = self.shared.paused_for(host, key[1])
        until = self._shared_paused.get(key)
        lifted = until is not None and self._clock() + shared < until - LIFTED_SLACK
        if lifted and self.shared.shared:  # read from the directory, not kept in-process
            self._lift(key)  # lifted there (cache clear): by every process sharing it
        return max(self.bucket(lane).paused_for(), shared)

    def _lift(self, key: tuple[str, str]) -> None:
        """The pause of service ``key`` ends here too; each lane's own pauses stay."""
        host, family = key
        self._shared_paused.pop(key, None)
        self._host_paused.pop(key, None)
        for lane, lane_host in self._lane_hosts.items():
            if lane_host == host and family_of(lane) == family:
                self.bucket(lane).lift_held()

    async def _acquire(self, lane: str, host: str, max_pause: float) -> None:
        """A local token, then (when shared) this machine's next slot for the lane;
        :class:`PausedTooLong` when a pause (this or another process's) holds the lane past
        ``max_pause``."""
        bucket = self.bucket(lane)
        await bucket.acquire(max_pause)
        if self.shared is None:
            return
        interval = 1.0 / bucket.rate
        for _ in range(3):
            wait = self.shared.reserve(host, lane, interval)
            slot = time.time() + wait
            if wait > max_pause and self.shared.paused_for(host, family_of(lane)) > max_pause:
                raise PausedTooLong(wait)  # paused by another process since the checks
            if wait > 0:
                await self._sleep(wait)
            # woken too late (a busy machine): sending now would crowd the next slot,
            # which another process may be using on time -- take a fresh one
            if time.time() - slot <= interval / 2:
                return

    def host_gate(self, host: str, lane: str) -> TokenBucket | None:
        """The advertised limits of ``lane``'s service on ``host``, shared by its lanes
        (None until the host advertised any)."""
        key = (host, family_of(lane))
        if self.shared is not None:
            advertised = self.shared.advertised(host, key[1])  # by this or another process
            if advertised is not None:
                self._gate(key).adapt({"x-concurrency-limit": str(advertised)})
        return self._host_gates.get(key)

    def _gate(self, key: tuple[str, str]) -> TokenBucket:
        gate = self._host_gates.get(key)
        if gate is None:
            gate = self._host_gates[key] = TokenBucket(
                UNLIMITED, clock=self._clock, sleep=self._sleep, min_rate=self._min_rate
            )
        return gate

    def _adopt(self, host: str, lane: str, headers: Mapping[str, str]) -> None:
        """Adapt the lane to a reply's headers; advertised rate and concurrency also hold
        for the service's lanes on ``host`` together (Crossref's single-record and list
        lanes share the pool its headers describe)."""
        self.bucket(lane).adapt(headers)
        if not any(h in headers for h in ADVERTISED):
            return
        key = (host, family_of(lane))
        self._gate(key).adapt(headers)
        concurrency = _count(headers.get("x-concurrency-limit"))
        if self.shared is not None and concurrency is not None:
            self.shared.advertise(host, key[1], concurrency)

    async def _hold(
        self, held: contextlib.AsyncExitStack, host: str, name: str, count: int, until: float
    ) -> None:
        """When shared, one of this machine's ``count`` in-flight slots of cap ``name``
        (:class:`SlotTimeout` when none is free before ``until``, a monotonic reading)."""
        if self.slots is not None:
            wait = until - time.monotonic()
            await held.enter_async_context(self.slots.hold(host, name, count, wait))

    def pause_host(self, host: str, lane: str, seconds: float) -> None:
        """Every lane of ``lane``'s service on ``host`` (``crossref`` and ``crossref-query``
        alike), in this process and, when shared, in others, waits ``seconds``."""
        key = (host, family_of(lane))
        self._host_paused[key] = max(self._host_paused.get(key, 0.0), self._clock() + seconds)
        for other, other_host in self._lane_hosts.items():
            if other_host == host and family_of(other) == key[1]:
                self.bucket(other).pause(seconds, held=True)
        if self.shared is not None:
            shared = self.shared.pause(host, key[1], seconds)
            self._shared_paused[key] = self._clock() + shared

    # -- requests ---------------------------------------------------------------------------

    async def get(
        self,
        url: str,
        *,
        lane: str,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply | Failure:
        return await self.request("GET", url, lane=lane, params=params, headers=headers)

    async def request(
        self,
        method: str,
        url: str,
        *,
        lane: str,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        json_body: Any = None,
    ) -> Reply | Failure:
        """Send one request with politeness and bounded retries; never raises."""
        call = _Call()
        try:
            return await self._request(method, url, lane, params, headers, json_body, call)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug or an exotic transport error: still data
            self.stats.failures += 1
            log.warning("%s %s: unexpected %s", method, self._safe(url), type(exc).__name__)
            return Failure(f"client error: {type(exc).__name__}")
        finally:
            for said in (call, call.handed):
                if said is not None and said.key is not None:
                    self.breaker.record(
                        said.key,
                        said.kind,
                        said.reason,
                        probe=said.probe,
                        timed_out_from=said.timed_out_from,
                    )

    def _hand_over(self, call: _Call, family: str, host: str) -> Failure | None:
        """Whether the request may follow its service's redirect to ``host`` (one of the
        lane's hosts: a registration agency), itself cut off when it stopped answering or
        paused when it asked for a wait: why not, or None (it is then
        :attr:`_Call.handed`)."""
        key = (host, f"{host} (via {family})")
        before = call.handed
        if before is not None and before.probe and before.key is not None:
            if before.key == key:
                return None  # the probe of the agency is this request (asked again)
            # sent on elsewhere this time: that probe said nothing, another may go
            self.breaker.record(before.key, Kind.NEITHER, "", probe=True)
            call.handed = None
        paused = self._agency_paused(host, family)
        if paused > 0:  # the request waits for it, as for its own service (see _request)
            call.held_back = paused
            return Failure(f"rate limited: {host} asked to retry after {_wait(paused)}", 429)
        refused, probe = self.breaker.admit(key)
        if refused is not None:
            return refused
        call.handed = _Call(key=key, probe=probe)
        return None

    def _agency_paused(self, host: str, family: str) -> float:
        """Seconds the agency at ``host`` (handed requests of service ``family``) asked this
        process, or another sharing its pauses, to wait still (0: none).  When shared, the
        cache directory's record is the truth (``cache clear`` lifts it for every process)."""
        if self.shared is not None:
            return max(0.0, self.shared.paused_for(host, family))
        return max(0.0, self._host_paused.get((host, family), 0.0) - self._clock())

    def _safe(self, url: str) -> str:
        return redact_url(url, self.secrets)

    async def _request(
        self,
        method: str,
        url: str,
        lane: str,
        params: Mapping[str, str] | None,
        headers: Mapping[str, str] | None,
        json_body: Any,
        call: _Call,
    ) -> Reply | Failure:
        client = self._ensure_client()
        if self._is_anonymous(url):
            headers = {**(headers or {}), "User-Agent": user_agent(None)}
        bucket = self.bucket(lane)
        host = httpx.URL(url).host
        service = call.key = (host, family_of(lane))
        if self._lane_hosts.setdefault(lane, host) == host:
            # a lane first used while its host is paused waits like the others
            pending = self._host_paused.get((host, family_of(lane)), 0.0) - self._clock()
            if pending > 0:
                bucket.pause(pending, held=True)
        budget = current_budget()
        status_attempts = 0
        transport_attempts = 0
        while True:
            # the service stopped answering: not asked for a while (the probe's own
            # retries excepted: it is retried as any request is)
            refused = None if call.probe else self.breaker.refusal(service)
            if refused is not None:
                return self._fail(method, url, refused)
            paused = self._paused_for(lane, host)
            if paused > self.retry.max_retry_after:
                # the service asked us to stay away (Retry-After, exhausted budget): fail fast
                return self._fail(
                    method, url, Failure(f"rate limited: retry after {paused:.0f} s", 429)
                )
            if budget is not None and budget.remaining() <= 0:
                return self._fail(method, url, self._budget_failure(budget))
            if (slow := self._slow_lane(lane, host, budget)) is not None:
                return self._fail(method, url, slow)
            async with contextlib.AsyncExitStack() as held:
                await held.enter_async_context(bucket.slot())
                # this machine's slots: waited for within the request's deadline
                until = time.monotonic() + (
                    budget.remaining() if budget is not None else self.timeout
                )
                try:
                    await self._hold(held, host, f"lane-{lane}", bucket.concurrency, until)
                    await self._acquire(lane, host, self._wait_limit(budget))
                    # looked up once the lane lets the request go: the host may have
                    # advertised its limits while the request waited
                    gate = self.host_gate(host, lane)
                    if gate is not None:
                        await held.enter_async_context(gate.slot())
                        name = f"service-{family_of(lane)}"
                        await self._hold(held, host, name, gate.concurrency, until)
                        await gate.acquire(self._wait_limit(budget))
                except SlotTimeout as exc:
                    why = f"no free request slot for {host} within {exc.waited:.1f} s"
                    return self._fail(method, url, Failure(f"{why} (other requests hold it)"))
                except PausedTooLong as exc:
                    why = f"rate limited: retry after {_wait(exc.seconds)}"
                    if exc.interval is not None:
                        why = _per_request(exc.interval)
                    return self._fail(method, url, Failure(why, 429))
                if not call.probe:  # the service may have stopped answering meanwhile
                    refused, call.probe = self.breaker.admit(service)
                    if refused is not None:
                        return self._fail(method, url, refused)
                self.stats.requests[lane] = self.stats.requests.get(lane, 0) + 1
                deadline = self.timeout
                if budget is not None:
                    deadline = max(0.001, min(deadline, budget.remaining()))
                started, sent = time.monotonic(), self.breaker.now()
                hosts: list[str] = []
                request = client.build_request(
                    method, url, params=params, headers=headers, json=json_body
                )
                outcome, final = await exchange(
                    client,
                    request,
                    lane=lane,
                    deadline=deadline,
                    max_body=self.max_body,
                    redirect_hosts=self.redirect_hosts,
                    safe_url=self._safe,
                    hosts=hosts,
                    hand_over=functools.partial(self._hand_over, call, family_of(lane)),
                )
                kind = judge(outcome, cut_short=deadline < self.timeout / 2)
                handed = call.handed
                said = call
                agency = None
                if handed is not None and handed.key is not None and hosts[-1:] == [handed.key[0]]:
                    # the service answered, handing the request over: what came after is
                    # the agency's (one agency down is not doi.org down)
                    call.kind, call.reason, call.timed_out_from = Kind.ANSWERED, "", None
                    said, agency = handed, handed.key[0]
                if kind is not Kind.NEITHER:
                    said.kind, said.reason = kind, _said(outcome)
                    said.timed_out_from = sent if _is_deadline(outcome) else None
                if budget is not None:
                    budget.spent += time.monotonic() - started
                    if final and deadline < self.timeout and _is_deadline(outcome):
                        outcome = self._budget_failure(budget)
                if isinstance(outcome, Reply):
                    self._adopt(host, lane, outcome.headers)
            if call.held_back is not None:  # the agency asked for a wait: this request waits
                wait, call.held_back = call.held_back, None
                assert isinstance(outcome, Failure)  # the redirect refused (see _hand_over)
                why = outcome.reason
                if status_attempts >= self.retry.max_retries or wait > self.retry.max_retry_after:
                    return self._fail(method, url, Failure(why, 429))
                if not self._spend(budget, wait):
                    return self._fail(method, url, self._budget_failure(budget, why))
                status_attempts += 1
                self.stats.retries += 1
                await self._sleep(wait)
                continue
            if isinstance(outcome, Failure):
                if final or transport_attempts >= self.retry.transport_retries:
                    return self._fail(method, url, outcome)
                transport_attempts += 1
                wait = self.retry.backoff(transport_attempts - 1)
                if not self._spend(budget, wait):
                    return self._fail(method, url, self._budget_failure(budget, outcome.reason))
                self.stats.retries += 1
                await self._sleep(wait)
                continue
            if outcome.status not in RETRY_STATUSES:
                log.debug("%s %s -> %s", method, outcome.url, outcome.status)
                return outcome
            # 429 / 5xx: honour Retry-After, otherwise back off exponentially.
            retry_after = parse_retry_after(
                outcome.headers.get("retry-after"), server_clock(outcome.headers)
            )
            label = "rate limited" if outcome.status == 429 else f"HTTP {outcome.status}"
            if retry_after is not None and outcome.status in {429, 503}:
                # the whole service waits -- every lane, here and in other processes; an
                # agency's answer pauses the agency, not the service handing over to it
                self.pause_host(agency or host, lane, min(retry_after, 86400.0))
            if status_attempts >= self.retry.max_retries:
                return self._fail(method, url, Failure(label, outcome.status))
            wait = retry_after if retry_after is not None else self.retry.backoff(status_attempts)
            if wait > self.retry.max_retry_after:
                return self._fail(
                    method, url, Failure(f"{label}: retry after {_wait(wait)}", outcome.status)
                )
            if retry_after is None and outcome.status in {429, 503} and agency is None:
                bucket.pause(wait)  # every request on this lane waits, not only this one
            if not self._spend(budget, wait):
                return self._fail(method, url, self._budget_failure(budget, label))
            status_attempts += 1
            self.stats.retries += 1
            log.info("%s %s -> %s, retrying in %.1f s", method, outcome.url, outcome.status, wait)
            await self._sleep(wait)

    def _is_anonymous(self, url: str) -> bool:
        """Whether ``url`` is at an address sent no contact address (see ``anonymous``)."""
        return any(url == a or url.startswith(a + "/") for a in self.anonymous)

    @staticmethod
    def _spend(budget: Budget | None, seconds: float) -> bool:
        """Charge a wait to the entry's budget; False when it does not fit."""
        if budget is None:
            return True
        if seconds > budget.remaining():
            return False
        budget.spent += seconds
        return True

    @staticmethod
    def _budget_failure(budget: Budget | None, after: str | None = None) -> Failure:
        seconds = budget.seconds if budget is not None else 0.0
        why = f"entry time budget of {seconds:g} s used up"
        return Failure(f"{why} ({after})" if after else why)

    def _may_redirect(self, lane: str, start: httpx.URL, target: httpx.URL) -> str | None:
        return may_redirect(lane, start, target, self.redirect_hosts)

    def _fail(self, method: str, url: str, failure: Failure) -> Failure:
        self.stats.failures += 1
        log.info("%s %s failed: %s", method, self._safe(url), failure.reason)
        return Failure(redact(failure.reason, self.secrets), failure.status)


def _count(value: str | None) -> int | None:
    """A positive count from a header (``"1"``), or None."""
    text = (value or "").strip()
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        return None
    return int(text) or None


def _said(outcome: Reply | Failure) -> str:
    """What an attempt's outcome was, as a failure's reason begins (``timeout``,
    ``cannot connect``, ``HTTP 503``), without its figures."""
    if isinstance(outcome, Failure):
        return outcome.reason.split(":", 1)[0]
    return f"HTTP {outcome.status}"


def _is_deadline(outcome: Reply | Failure) -> bool:
    return isinstance(outcome, Failure) and outcome.reason.startswith("timeout: ")


def user_agent(mailto: str | None) -> str:
    """The User-Agent identifying citewarden (and its operator, for polite pools)."""
    from citewarden import __version__

    sent = mailto and not header_value_problem(mailto)  # never a line break in a header
    return f"citewarden/{__version__}" + (f" (mailto:{mailto})" if sent else "")


def _per_request(interval: float) -> str:
    """Why a request is not sent: its source's rate puts the next one ``interval`` away
    (a rate of several a second said as such, not as one request per 0 s)."""
    if interval < 0.95:
        return f"rate limited: the source allows {round(1 / interval, 2):g} requests a second"
    return f"rate limited: the source asks for one request per {round(interval, 1):g} s"


def _wait(seconds: float) -> str:
    """A wait a service asked for, as a reason says it (``30 s``); past the day a pause
    lasts at most, ``more than a day`` (``Retry-After: 1e308`` is no number to print)."""
    return f"{seconds:.0f} s" if seconds <= 86400 else "more than a day"
