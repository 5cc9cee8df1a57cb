"""One bounded HTTP exchange: total deadline, body cap, redirects only where they belong.

:func:`exchange` sends one request under a total deadline (a trickling or endless body
cannot stretch it), reads the body up to a cap counted after decompression, and follows
redirects by hand: only to the request's own host or the lane's known hosts
(:data:`REDIRECT_HOSTS`), never from https to plain http, and with keys (secret headers and
query parameters) dropped whenever the origin changes.  :func:`entry_budget` gives every
request made for one entry a shared time budget.  Politeness and retries are
:mod:`citewarden.verify.http`'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx

from citewarden.redaction import SECRET_HEADERS, SECRET_PARAMS

#: Largest response body read (after decompression); the largest real answer a source
#: gives (a 20-record search with abstracts) is well under 1 MB.
MAX_BODY = 8 * 1024 * 1024
#: An entry's budget is this many request timeouts (see :func:`entry_budget`).
ENTRY_BUDGET_FACTOR = 3.0
MAX_REDIRECTS = 5
#: Seconds a connection (TCP and TLS) may take to be made, at least: a quarter of the request
#: timeout when that is longer.  The kernel has sent the connection request three times by
#: then; a network that drops what it is sent (a firewall, a captive portal) costs this, not
#: the whole request timeout.
CONNECT_TIMEOUT = 5.0


def connect_timeout(timeout: float) -> float:
    """Seconds a connection may take to be made, for a request ``timeout``."""
    return min(timeout, max(CONNECT_TIMEOUT, timeout / 4))


#: Hosts a lane may be redirected to besides the request's own host.  doi.org content
#: negotiation hands over to the registration agencies' metadata services.
REDIRECT_HOSTS: dict[str, frozenset[str]] = {
    "doi": frozenset(
        {
            "doi.org",
            "dx.doi.org",
            "api.crossref.org",
            "data.crossref.org",
            "api.datacite.org",
            "data.datacite.org",
            "data.medra.org",
            "data.jalc.org",
            "api.japanlinkcenter.org",
        }
    ),
    "arxiv": frozenset({"export.arxiv.org", "arxiv.org"}),
}


@dataclass(frozen=True, slots=True)
class Reply:
    """A complete HTTP response."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    url: str  # redacted
    #: redirects followed to get it (the server first asked answered with another place)
    redirects: int = 0

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        """The decoded JSON body; raises ``ValueError`` when the body is not JSON, or
        nests deeper than the decoder's recursion allows (``[[[[...`` is valid JSON).
        A lone surrogate (``"\\ud800"`` is valid JSON, but no character: it cannot be
        written as UTF-8, so a report holding it could not be written) becomes U+FFFD."""
        try:
            text = self.content.decode(json.detect_encoding(self.content), "surrogatepass")
        except UnicodeDecodeError:
            raise BodyError("not valid text") from None
        if _SURROGATE.search(text):
            text = _LONE_SURROGATE.sub(_replace_lone, _SURROGATE_CHAR.sub("\ufffd", text))
        try:
            return json.loads(text)
        except RecursionError:
            raise BodyError("JSON nested too deep") from None


class BodyError(ValueError):
    """A body that cannot be decoded, with what is wrong with it (for the failure's reason)."""


#: A surrogate in JSON text, as a character or as an escape (quick test).
_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")
_SURROGATE_CHAR = re.compile(r"[\ud800-\udfff]")
#: An escaped backslash (kept, so that the "u" after it is not read as an escape), an
#: escaped surrogate pair (a character: kept), or a lone escaped surrogate.
_LONE_SURROGATE = re.compile(
    r"\\\\|\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|\\u[dD][89a-fA-F][0-9a-fA-F]{2}"
)


def _replace_lone(m: re.Match[str]) -> str:
    return "\\ufffd" if len(m.group()) == 6 else m.group()


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a request produced no usable response (never contains secrets)."""

    reason: str
    status: int | None = None


@dataclass(slots=True)
class Budget:
    """Seconds one entry's requests may still spend (on the wire and in retry waits)."""

    seconds: float
    spent: float = 0.0

    def remaining(self) -> float:
        return self.seconds - self.spent


_BUDGET: ContextVar[Budget | None] = ContextVar("citewarden_entry_budget", default=None)


@contextlib.contextmanager
def entry_budget(seconds: float) -> Iterator[Budget]:
    """Every request made inside the ``with`` block (in this task) shares one budget."""
    budget = Budget(seconds)
    token = _BUDGET.set(budget)
    try:
        yield budget
    finally:
        _BUDGET.reset(token)


def _origin(url: httpx.URL) -> tuple[str, str, int | None]:
    return (url.scheme, url.host, url.port)


def _without_secret_params(url: httpx.URL) -> httpx.URL:
    kept = [(k, v) for k, v in url.params.multi_items() if k.lower() not in SECRET_PARAMS]
    return url.copy_with(query=urlencode(kept).encode() or None)


def current_budget() -> Budget | None:
    """The budget of the entry being verified in this task (None outside one)."""
    return _BUDGET.get()


#: Why a redirect to an address that is no web address is not followed.
NON_WEB_REDIRECT = "redirect to a non-web address refused"


def may_redirect(
    lane: str, start: httpx.URL, target: httpx.URL, redirect_hosts: Mapping[str, frozenset[str]]
) -> str | None:
    """Why a redirect from ``start`` to ``target`` is refused (None when allowed)."""
    if target.scheme not in {"http", "https"}:
        return NON_WEB_REDIRECT
    if start.scheme == "https" and target.scheme != "https":
        return "redirect from https to plain http refused"
    allowed = redirect_hosts.get(lane.split("-")[0], frozenset())
    if target.host != start.host and target.host not in allowed:
        host = target.host if re.fullmatch(r"[a-z0-9.-]{1,253}", target.host) else "?"
        return f"redirect off the source's hosts refused ({host})"
    return None


#: How httpx words its error for a redirect whose Location header is no URL.
_BAD_LOCATION = "Invalid URL in location header"
#: How httpx words its errors for a connection closed before the answer was whole.
_DROPPED = ("Server disconnected", "peer closed connection")

#: An outcome, and whether a failure is final (not worth retrying: deadline, body cap,
#: refused redirect) or transient.
Outcome = tuple["Reply | Failure", bool]


async def exchange(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    lane: str,
    deadline: float,
    max_body: int = MAX_BODY,
    redirect_hosts: Mapping[str, frozenset[str]] = REDIRECT_HOSTS,
    safe_url: Callable[[str], str] = str,
    hosts: list[str] | None = None,
    hand_over: Callable[[str], Failure | None] | None = None,
) -> Outcome:
    """Send ``request`` and read its answer under a total ``deadline``; never raises for
    network trouble.  ``safe_url`` turns the final URL into its loggable form; ``hosts``
    gets the host of each request sent (the first, then each redirect's); ``hand_over``
    is asked before a redirect to another host of the lane is followed (doi.org handing a
    DOI to its registration agency): why not (a failure, final), or None."""
    try:
        async with asyncio.timeout(deadline):
            return await _send(
                client,
                request,
                lane,
                max_body,
                redirect_hosts,
                safe_url,
                [] if hosts is None else hosts,
                hand_over,
            )
    except TimeoutError:
        return Failure(f"timeout: no complete response within {deadline:g} s"), True
    except httpx.ConnectTimeout:
        # the kernel asked again meanwhile: another attempt would only double the wait
        seconds = client.timeout.connect
        return Failure(f"timeout: no connection made within {seconds or deadline:g} s"), True
    except httpx.TimeoutException:
        return Failure("timeout"), False
    except httpx.InvalidURL:
        # httpx makes the next request of every redirect before it is read; a Location
        # with a scheme and no host (``mailto:``, ``data:``, ``urn:``) makes none
        return Failure(NON_WEB_REDIRECT), True
    except httpx.RemoteProtocolError as exc:
        said = str(exc)
        if said.startswith(_BAD_LOCATION):
            # the service answered, with a redirect to no address: asking again changes nothing
            return Failure("redirect to an address that is no URL"), True
        if said.startswith(_DROPPED):
            return Failure("connection dropped"), False
        # an illegal status line or chunk header, headers past httpx's buffer
        return Failure("malformed response: not HTTP as it is written"), False
    except (httpx.ReadError, httpx.WriteError):
        return Failure("connection dropped"), False
    except httpx.ConnectError:
        return Failure("cannot connect"), False
    except httpx.HTTPError as exc:
        return Failure(f"network error: {type(exc).__name__}"), False


async def _send(
    client: httpx.AsyncClient,
    request: httpx.Request,
    lane: str,
    max_body: int,
    redirect_hosts: Mapping[str, frozenset[str]],
    safe_url: Callable[[str], str],
    hosts: list[str],
    hand_over: Callable[[str], Failure | None] | None,
) -> Outcome:
    start = request.url
    for hop in range(MAX_REDIRECTS + 1):
        hosts.append(request.url.host)
        response = await client.send(request, stream=True)
        try:
            location = response.headers.get("location")
            if response.status_code in {301, 302, 303, 307, 308} and location:
                target = request.url.join(location)
                refused = may_redirect(lane, start, target, redirect_hosts)
                handed = target.host not in (start.host, request.url.host)
                if refused is None and handed and hand_over is not None:
                    refused_by = hand_over(target.host)
                    refused = refused_by.reason if refused_by is not None else None
                if refused is not None:
                    return Failure(refused, response.status_code), True
                request = _follow(request, target, start, response.status_code)
                continue
            content = await _read_capped(response, max_body)
        finally:
            await response.aclose()
        if isinstance(content, Failure):
            # a body cut short or damaged on the way may come whole when asked again; a
            # coding not undone will not
            again = content.reason == CUT_SHORT or content.reason.startswith("malformed")
            return Failure(content.reason, response.status_code), not again
        if content is None:
            cap = max_body / (1024 * 1024)
            return Failure(f"response body over {cap:g} MB", response.status_code), True
        hdrs = {k.lower(): v for k, v in response.headers.items()}
        url = safe_url(str(response.url))
        return Reply(response.status_code, hdrs, content, url, redirects=hop), False
    return Failure("too many redirects"), True


def _follow(
    request: httpx.Request, target: httpx.URL, start: httpx.URL, status: int
) -> httpx.Request:
    """The request a redirect asks for; keys never go to another origin."""
    headers = {
        k: v for k, v in request.headers.items() if k.lower() not in {"host", "content-length"}
    }
    if _origin(target) != _origin(start):
        headers = {k: v for k, v in headers.items() if k.lower() not in SECRET_HEADERS}
        target = _without_secret_params(target)
    if status in {307, 308}:  # method and body kept
        return httpx.Request(request.method, target, headers=headers, content=request.content)
    headers = {k: v for k, v in headers.items() if k.lower() != "content-type"}
    return httpx.Request("GET", target, headers=headers)


#: Content codings undone (the client asks for gzip and deflate only), by their names.
CODINGS = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}
#: The Accept-Encoding header sent: the codings undone here.
ACCEPT_ENCODING = "gzip, deflate"
#: Most content codings one body may come in.
MAX_CODINGS = 3
#: Largest piece one decoding step produces.
_PIECE = 64 * 1024


#: Why a body whose compressed stream stops part way says nothing (asked again).
CUT_SHORT = "connection dropped: the compressed body ends part way"


class _OverCap(Exception):
    """A body, or a stage of its decoding, larger than the cap."""


class _NotItsCoding(Exception):
    """A body that is not in the content coding it names (the coding's name)."""


#: How each gzip member begins (RFC 1952, 2.3.1).
_GZIP_MAGIC = b"\x1f\x8b"


class _Inflater:
    """One content coding being undone, its output produced in pieces of at most
    ``_PIECE`` bytes (``deflate`` as zlib data, else as raw deflate, as httpx reads it).
    A gzip body is every member of it (RFC 1952, 2.2: members one after another, as
    ``gzip -d`` reads them); what follows the last member that is no member (NUL padding)
    is ignored, as after a deflate stream."""

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self.wbits = zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS
        self.inflate = zlib.decompressobj(self.wbits)
        self.started = False
        #: Bytes after a gzip member too few to say whether another member begins.
        self.held = b""
        #: Whether what follows the coded stream is no member: ignored.
        self.ignoring = False

    def _next_member(self, data: bytes) -> bytes | None:
        """After a member has ended: the data of the next one, with a new decoder for it,
        or None when there is none (yet, or at all)."""
        data, self.held = self.held + data, b""
        if self.coding != "gzip" or self.ignoring or not data:
            return None
        if not data.startswith(_GZIP_MAGIC[: len(data)]):
            self.ignoring = True
            return None
        if len(data) < len(_GZIP_MAGIC):
            self.held = data
            return None
        self.inflate = zlib.decompressobj(self.wbits)
        return data

    def pieces(self, data: bytes) -> Iterator[bytes]:
        """What ``data`` decodes to; nothing once the coded stream has ended."""
        while True:
            if self.inflate.eof:
                following = self._next_member(data)
                if following is None:
                    return
                data = following
            try:
                out = self.inflate.decompress(data, _PIECE)
            except zlib.error:
                if self.coding == "deflate" and not self.started:  # raw deflate
                    self.started = True
                    self.inflate = zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise _NotItsCoding(self.coding) from None
            self.started = True
            data = self.inflate.unused_data if self.inflate.eof else self.inflate.unconsumed_tail
            if out:
                yield out
            if not data and (self.inflate.eof or len(out) < _PIECE):
                return


class _Decoder:
    """A body's content codings undone, the last applied first: the body at most ``cap``
    bytes, each stage before it at most twice that (coded data is never much larger than
    what it holds), so a body coded twice cannot grow past the cap in memory or time."""

    def __init__(self, codings: list[str], cap: int) -> None:
        self.stages = [_Inflater(CODINGS[c]) for c in reversed(codings)]
        self.sizes = [0] * len(self.stages)
        self.cap = cap
        self.raw = 0
        self.body = bytearray()

    def cut_short(self) -> bool:
        """Whether a coded stream began and did not end: the body stopped part way."""
        return any(s.started and not s.inflate.eof for s in self.stages)

    def feed(self, data: bytes, stage: int = 0) -> None:
        """Decode ``data`` through the stages from ``stage``; :class:`_OverCap` past a cap
        (the coded body itself at most twice the cap too: gzip members holding nothing
        would otherwise be read and decoded without end)."""
        if stage == 0 and self.stages:
            self.raw += len(data)
            if self.raw > 2 * self.cap:
                raise _OverCap
        if stage == len(self.stages):
            self.body += data
            if len(self.body) > self.cap:
                raise _OverCap
            return
        for piece in self.stages[stage].pieces(data):
            self.sizes[stage] += len(piece)
            if self.sizes[stage] > 2 * self.cap:
                raise _OverCap
            self.feed(piece, stage + 1)


def _codings(response: httpx.Response) -> list[str] | Failure:
    """The content codings of ``response`` to undo, in the order applied (identity left
    out); a :class:`Failure` for one not asked for, or too many."""
    named = response.headers.get_list("content-encoding", split_commas=True)
    codings = [c.strip().lower() for c in named if c.strip().lower() not in {"", "identity"}]
    for coding in codings:
        if coding not in CODINGS:
            shown = coding if re.fullmatch(r"[a-z0-9._-]{1,20}", coding) else "?"
            return Failure(f"response in a content coding not asked for ({shown})")
    if len(codings) > MAX_CODINGS:
        return Failure(f"response in more than {MAX_CODINGS} content codings")
    return codings


async def _read_capped(response: httpx.Response, max_body: int) -> bytes | Failure | None:
    """The decoded body, None when it is (or says it will be) over the cap, or a
    :class:`Failure` for a content coding not undone.  The raw body is read and decoded a
    piece at a time (:class:`_Decoder`), never a whole chunk through every coding at once."""
    declared = response.headers.get("content-length", "")
    if (
        declared.isascii()
        and declared.isdigit()
        and (len(declared) > 18 or int(declared) > max_body)
    ):
        return None
    codings = _codings(response)
    if isinstance(codings, Failure):
        return codings
    decoder = _Decoder(codings, max_body)
    try:
        async for chunk in response.aiter_raw():
            decoder.feed(chunk)
    except _OverCap:
        return None
    except _NotItsCoding as exc:
        return Failure(f"malformed response: a body that is not the {exc} it says it is")
    if decoder.cut_short():
        return Failure(CUT_SHORT)
    return bytes(decoder.body)
