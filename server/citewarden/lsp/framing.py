"""The editor's byte stream, read within bounds before pygls frames it.

pygls reads a header line with ``readline()`` and a body with ``read(Content-Length)``.
Unbounded, a header line without a line break is held whole, a ``Content-Length`` of
thousands of digits fails the reading loop (Python refuses to convert it), and a large one
has the whole body allocated at once (``Content-Length: 99999999999`` is a MemoryError):
each ends the server.  :class:`BoundedInput` gives pygls at most ``MAX_HEADER_LINE``
bytes of a header line (the rest of a longer one is let go: it matches no header), and
reads a body over ``limit()`` bytes in chunks and lets it go, handing pygls in its place a
``TOO_LARGE`` notification that says how large it was and, if its first bytes tell, which
request it was, so that the request gets an error answer (:func:`refusal`).
The stand-in carries a token of this process, so a client cannot send one.
:class:`BoundedStream` applies the same bounds to a TCP connection.

Both read the header block themselves (:class:`Headers`) and hand pygls, whose reading loop
takes only ``Content-Length: N\r\n`` as it is spelt here, that line and an empty one: a
header's name is read in any case, with spaces after its value and lines ended by a bare
line feed.  A message that cannot be framed (a header block without ``Content-Length``, a
line that is no header, the bytes a body shorter than its ``Content-Length`` left over) is
logged once and the bytes up to the next ``Content-Length:`` header are let go, even one that
starts within a line: the server was otherwise deaf for good, each body running into the
next header line.  A ``Content-Length`` a few bytes over its body takes the start of the
next message into it: such a body ends where its JSON ends when the start of a header
block follows (:func:`spilled`), and those bytes are read again as the next message's (the
body is read, as every server reads it, once those bytes have come: with the next message).
A body within the limit that memory runs out reading is let go too, and a stand-in says so.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from citewarden.safe_text import visible

log = logging.getLogger(__name__)

#: The longest header line passed on whole (headers are ``Content-Length: N`` and
#: ``Content-Type: ...``); a number of more digits than this never reaches ``int()``.
MAX_HEADER_LINE = 1024
#: The body of a message too large to read is let go in pieces of this size.
CHUNK = 1 << 20
#: How much of such a body is kept to find its ``id`` and ``method``.
HEAD = 4096
#: The notification that stands in for a body over the limit.
TOO_LARGE = "$/citewarden/messageTooLarge"
#: Marks the stand-in as this process's own.
TOKEN = secrets.token_hex(16)
#: The smallest limit of a message body, whatever the settings.
MIN_MESSAGE = 64 << 20
#: Seconds a body whose bytes so far are a whole JSON value waits for the rest of its
#: ``Content-Length`` before it is read as it is (:func:`whole_json`).
STALL = 1.0
#: After this many ``STALL`` waits without a byte inside a body whose JSON is not whole,
#: the server logs that it waits for the rest (once a body).
STALLS_LOGGED = 10


def message_limit(max_file_bytes: int) -> int:
    """The largest message body read: room for a buffer of ``max_file_bytes`` characters
    written as JSON with every character escaped (``\\u0000``, 6 bytes), at least
    ``MIN_MESSAGE``; a buffer over ``max_file_bytes`` is then read and reported as too large,
    as a file is."""
    return max(MIN_MESSAGE, 6 * max_file_bytes + (1 << 20))


#: The longest ``Content-Length`` taken, in digits (a body's size is then at most 10**19
#: bytes, read and let go as :class:`BoundedInput` does any body over the limit).
MAX_DIGITS = 19
_TOKEN = rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_HEADER = re.compile(rb"(" + _TOKEN + rb")[ \t]*:[ \t]*(.*)", re.DOTALL)
_LENGTH = re.compile(rb"[0-9]{1,%d}" % MAX_DIGITS)
#: A ``Content-Length`` header at the end of a line, what comes before it let go.
_RESYNC = re.compile(rb"content-length[ \t]*:[ \t]*([0-9]{1,%d})\Z" % MAX_DIGITS, re.IGNORECASE)


class Headers:
    """The header block of each message, read a line at a time (:meth:`line`)."""

    def __init__(self) -> None:
        self._length: int | None = None
        self._in_block = False
        self._lost = False
        #: The lines still to hand pygls for the message framed last, the next one last.
        self._handing: list[bytes] = []

    def held(self) -> bytes | None:
        """The next line still to hand pygls for the message framed last, if any."""
        return self._handing.pop() if self._handing else None

    def take(self, line: bytes, cut: bool = False) -> bytes | None:
        """Take the header line ``line`` (see :meth:`line`); once a message is framed, the
        first line to hand pygls: its exact ``Content-Length`` line, then (:meth:`held`)
        the empty line after it, which its strict header pattern reads."""
        length = self.line(line, cut)
        if length is None:
            return None
        self._handing = [b"\r\n", b"Content-Length: %d\r\n" % length]
        return self._handing.pop()

    def line(self, line: bytes, cut: bool = False) -> int | None:
        """Take the header line ``line`` (with or without its line break; ``cut`` when only
        its end is given, a longer line's); the body's length once the block has ended."""
        text = line.rstrip(b" \t\r\n")
        if not self._lost:
            if not text and not cut:
                return self._end()
            header = None if cut else _HEADER.fullmatch(text)
            ends_in_length = _RESYNC.search(text) is not None
            if header is not None:
                name, value = header.group(1).lower(), header.group(2)
                if name == b"content-length" and _LENGTH.fullmatch(value):
                    self._length, self._in_block = int(value), True
                    return None
                if name != b"content-length" and not ends_in_length:
                    self._in_block = True  # Content-Type, or one LSP does not know
                    return None
            if not ends_in_length:  # else bytes before a Content-Length header (below)
                self._lose(
                    "a Content-Length that is no number"
                    if header is not None
                    else "a line that is no header"
                )
                return None
        resync = _RESYNC.search(text)
        if resync is not None:
            if self._lost:
                log.debug("the editor's messages are framed again")
            else:
                self._lose("bytes before a Content-Length header")
            self._lost = False
            self._length, self._in_block = int(resync.group(1)), True
        return None

    def _end(self) -> int | None:
        length, in_block = self._length, self._in_block
        self._length, self._in_block = None, False
        if length is None:
            if in_block:
                self._lose("a header block without Content-Length")
            return None  # an empty line between messages
        if length == 0:
            log.warning("a message from the editor with Content-Length 0 was let go")
            return None
        return length

    def _lose(self, reason: str) -> None:
        log.warning(
            "a message from the editor could not be framed (%s): what follows up to the "
            "next Content-Length header is let go",
            reason,
        )
        self._lost, self._length, self._in_block = True, None, False


def _tail(line: bytes) -> bytes:
    return line[-MAX_HEADER_LINE:]


class Source(Protocol):
    """A byte stream as :class:`BoundedInput` reads it (a buffered reader, or
    :class:`~citewarden.lsp.pipe.PipeReader`, whose ``wait`` lets a short body end)."""

    def readline(self, limit: int, /) -> bytes: ...

    def read(self, size: int, /) -> bytes: ...

    def read1(self, size: int, /) -> bytes: ...


class BoundedInput:
    """``stream`` (the editor's stdin) as pygls reads it, with the bounds and the header
    reading of the module docstring; ``limit`` is asked for each body (the settings may
    change it)."""

    def __init__(self, stream: Source, limit: Callable[[], int]) -> None:
        self._stream = stream
        self._limit = limit
        self._headers = Headers()
        #: Bytes read as a body that were the next message's (:func:`spilled`), read again.
        self._back = b""

    def readline(self) -> bytes:
        """The next line pygls reads: a message's ``Content-Length`` line and the empty line
        after it, or ``b""`` at the end of the stream."""
        handed = self._headers.held()
        while handed is None:
            read = self._line()
            if read is None:
                return b""
            handed = self._headers.take(*read)
        return handed

    def _line(self) -> tuple[bytes, bool] | None:
        """A line of the stream, or its last ``MAX_HEADER_LINE`` bytes and True for a longer
        one (the rest read and let go); None at the end of the stream."""
        line = self._readline(MAX_HEADER_LINE)
        if not line:
            return None
        if line.endswith(b"\n"):
            return line, False
        cut = False
        while True:
            rest = self._readline(CHUNK)
            if not rest:
                return line, cut
            line, cut = _tail(line + rest), True
            if rest.endswith(b"\n"):
                return line, cut

    def _readline(self, limit: int) -> bytes:
        back = self._back
        if not back:
            return self._stream.readline(limit)
        end = back.find(b"\n", 0, limit) + 1 or min(len(back), limit)
        self._back = back[end:]
        line = back[:end]
        if line.endswith(b"\n") or len(line) == limit:
            return line
        return line + self._stream.readline(limit - len(line))

    def _read(self, size: int) -> bytes:
        back = self._back
        if not back:
            return self._stream.read(size)
        self._back = back[size:]
        if len(back) >= size:
            return back[:size]
        return back + self._stream.read(size - len(back))

    def read(self, size: int) -> bytes:
        limit = self._limit()
        self.last = (size, b"")
        if size <= limit:  # in pieces: memory grows with what arrives, not what is announced
            return self._end_of(self._read_pieces(size, limit))
        head, stalled = self._piece(HEAD, [])
        if stalled:  # a whole JSON value, far short of its length: read as it is
            _log_stalled(size - len(head), size)
            return head
        if len(head) < HEAD:
            return b""
        if not self._let_go(size - HEAD):
            return b""  # the end of the stream: the reading loop ends, as at any end
        return stand_in(size, limit, head)

    def _read_pieces(self, size: int, limit: int) -> bytes:
        """A body within the limit read in pieces; when memory runs out on the way, the rest
        is let go (the stream stays in step) and :func:`stand_in` says so."""
        pieces: list[bytes] = []
        left = size
        head = b""
        try:
            while left > 0:
                chunk, stalled = self._piece(min(left, CHUNK), pieces)
                left -= len(chunk)  # read, whatever happens next: not to be let go again
                if not pieces:
                    head = chunk[:HEAD]
                    self.last = (size, head)
                pieces.append(chunk)
                if stalled:
                    _log_stalled(left, size)
                    break
                if not chunk:
                    return b""  # the end of the stream
            return b"".join(pieces)
        except MemoryError:
            pieces.clear()
            if not self._let_go(left):
                return b""
            return stand_in(size, limit, head, out_of_memory=True)

    def _piece(self, size: int, before: list[bytes]) -> tuple[bytes, bool]:
        """At most ``size`` bytes of a body whose earlier pieces are ``before``, and whether
        the body ended short of its length: its bytes so far are a whole JSON value and no
        more came for ``STALL`` seconds (the stream must tell, :meth:`PipeReader.wait
        <citewarden.lsp.pipe.PipeReader.wait>`).  Fewer bytes at the end of the stream."""
        wait = getattr(self._stream, "wait", None)
        if wait is None:
            return self._read(size), False
        body = BodySoFar(before)
        while body.count < size:
            if not self._back and not wait(STALL):
                if body.stalled():
                    return body.piece(), True
                continue
            piece = self._read1(size - body.count)
            if not piece:
                break
            body.add(piece)
        return body.piece(), False

    def _read1(self, size: int) -> bytes:
        """At most ``size`` bytes, those read again first, else those the stream has."""
        if self._back:
            piece, self._back = self._back[:size], self._back[size:]
            return piece
        return self._stream.read1(size)

    def _end_of(self, body: bytes) -> bytes:
        """``body`` up to the end of its JSON when what follows is the start of the next
        message (:func:`spilled`), which is read from there."""
        split = spilled(body)
        if split is None:
            return body
        self._back = split[1] + self._back
        _log_spilled(len(split[1]))
        return split[0]

    #: The size and first bytes of the last body read (what :func:`top_level_fields` reads
    #: the request's id from when decoding the body fails).
    last: tuple[int, bytes] = (0, b"")

    def _let_go(self, left: int) -> bool:
        """Read ``left`` bytes of the stream and let them go; False at its end."""
        while left > 0:
            chunk = self._read(min(left, CHUNK))
            if not chunk:
                return False
            left -= len(chunk)
        return True


class BoundedStream:
    """The same bounds and header reading for a TCP connection (``citewarden serve --tcp``):
    pygls reads it with ``readline()`` and ``readexactly(n)``; asyncio's reader holds at
    most 64 KiB of a line and fails on a longer one, which ended the connection."""

    def __init__(self, reader: asyncio.StreamReader, limit: Callable[[], int]) -> None:
        self._reader = reader
        self._limit = limit
        self._headers = Headers()
        #: Bytes read as a body that were the next message's (:func:`spilled`), read again.
        self._back = b""

    async def readline(self) -> bytes:
        handed = self._headers.held()
        while handed is None:
            read = await self._line()
            if read is None:
                return b""
            handed = self._headers.take(*read)
        return handed

    async def _line(self) -> tuple[bytes, bool] | None:
        line, cut = self._back, False
        self._back = b""
        if b"\n" in line:
            line, _, self._back = line.partition(b"\n")
            return _tail(line + b"\n"), len(line) >= MAX_HEADER_LINE
        while True:
            try:
                piece = await self._reader.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                if not line and not end.partial:
                    return None
                piece = end.partial
            except asyncio.LimitOverrunError as over:
                piece = await self._reader.readexactly(over.consumed)
                line, cut = _tail(line + piece), True
                continue
            whole = line + piece
            return _tail(whole), cut or len(whole) > MAX_HEADER_LINE

    #: The size and first bytes of the last body read (see :attr:`BoundedInput.last`).
    last: tuple[int, bytes] = (0, b"")

    async def readexactly(self, size: int) -> bytes:
        limit = self._limit()
        self.last = (size, b"")
        if size <= limit:
            return await self._read_whole(size, limit)
        head, stalled = await self._piece(HEAD, [])
        if stalled:  # a whole JSON value, far short of its length: read as it is
            _log_stalled(size - len(head), size)
            return head
        if len(head) < HEAD or not await self._let_go(size - HEAD):
            return b""  # the end of the stream
        return stand_in(size, limit, head)

    async def _read_whole(self, size: int, limit: int) -> bytes:
        """A body within the limit, a large one in pieces (asyncio's reader would hold it
        whole in a buffer that grows as it arrives); when memory runs out reading it, the
        rest is let go (the stream stays in step) and :func:`stand_in` says so."""
        pieces: list[bytes] = []
        left = size
        head = b""
        try:
            while left > 0:
                chunk, stalled = await self._piece(min(left, CHUNK), pieces)
                left -= len(chunk)  # read, whatever happens next: not to be let go again
                if not pieces:
                    head = chunk[:HEAD]
                    self.last = (size, head)
                pieces.append(chunk)
                if stalled:
                    _log_stalled(left, size)
                    break
                if not chunk:
                    return b""
            return self._end_of(b"".join(pieces))
        except MemoryError:
            pieces.clear()
            if not await self._let_go(left):
                return b""
            return stand_in(size, limit, head, out_of_memory=True)

    async def _piece(self, size: int, before: list[bytes]) -> tuple[bytes, bool]:
        """:meth:`BoundedInput._piece` for this stream."""
        body = BodySoFar(before)
        while body.count < size:
            if self._back:
                piece = await self._some(size - body.count)
            else:
                try:
                    piece = await asyncio.wait_for(self._reader.read(size - body.count), STALL)
                except TimeoutError:
                    if body.stalled():
                        return body.piece(), True
                    continue
            if not piece:
                break
            body.add(piece)
        return body.piece(), False

    async def _some(self, size: int) -> bytes:
        """At most ``size`` bytes (none at the end), those read again first."""
        if self._back:
            back, self._back = self._back[:size], self._back[size:]
            return back
        return await self._reader.read(size)

    def _end_of(self, body: bytes) -> bytes:
        """:meth:`BoundedInput._end_of` for this stream."""
        split = spilled(body)
        if split is None:
            return body
        self._back = split[1] + self._back
        _log_spilled(len(split[1]))
        return split[0]

    async def _let_go(self, left: int) -> bool:
        while left > 0:
            chunk = await self._some(min(left, CHUNK))
            if not chunk:
                return False
            left -= len(chunk)
        return True


def stand_in(size: int, limit: int, head: bytes, out_of_memory: bool = False) -> bytes:
    """The ``TOO_LARGE`` notification for a body of ``size`` bytes that starts with ``head``,
    over the limit or (``out_of_memory``) beyond the memory left to read it."""
    params: dict[str, Any] = {"bytes": size, "limit": limit, "token": TOKEN}
    if out_of_memory:
        params["memory"] = True
    params.update(top_level_fields(head.decode("utf-8", "replace")))
    return json.dumps({"jsonrpc": "2.0", "method": TOO_LARGE, "params": params}).encode()


#: The start of a header block (or of a line break before it): a body a Content-Length
#: over its length left these after its JSON
_NEXT_HEADER = re.compile(
    rb"[ \t\r\n]*(?:content-[a-z]|c(?:o(?:n(?:t(?:e(?:n(?:t(?:-)?)?)?)?)?)?)?\Z)", re.IGNORECASE
)


def whole_json(pieces: list[bytes]) -> bool:
    """Whether the body read so far, ``pieces``, is a whole JSON object (ends in ``}`` and
    decodes): one whose ``Content-Length`` counted more than it holds."""
    body = b"".join(pieces).rstrip(b" \t\r\n")
    if not body.endswith(b"}"):
        return False
    try:
        json.loads(body)
    except (ValueError, RecursionError, MemoryError):
        return False
    return True


class BodySoFar:
    """The piece of a body being read, after its earlier ``before``, and what a wait of
    ``STALL`` seconds without a byte means for it (the one rule :class:`BoundedInput` and
    :class:`BoundedStream` read a stalled body by)."""

    def __init__(self, before: list[bytes]) -> None:
        self._before = before
        self._got: list[bytes] = []
        #: The bytes of the piece so far.
        self.count = 0
        self._stalls = 0

    def add(self, piece: bytes) -> None:
        self._got.append(piece)
        self.count += len(piece)
        self._stalls = 0

    def piece(self) -> bytes:
        return b"".join(self._got)

    def stalled(self) -> bool:
        """A wait without a byte: True when the body so far is a whole JSON object, to be
        read as it is (:func:`whole_json`); else the server waits on, and the
        ``STALLS_LOGGED``-th such wait in a row is logged."""
        pieces = [*self._before, *self._got]
        if whole_json(pieces):
            return True
        self._stalls += 1
        if self._stalls == STALLS_LOGGED:
            log.warning(
                "a message from the editor stopped %d bytes into its body, its JSON not "
                "whole, %g s ago: the server waits for the rest of its Content-Length",
                sum(len(piece) for piece in pieces),
                self._stalls * STALL,
            )
        return False


def _log_stalled(missing: int, size: int) -> None:
    log.warning(
        "a message from the editor stopped %d bytes short of its Content-Length (%d) with "
        "its JSON whole, and nothing more came for %g s: it is read as it is",
        missing,
        size,
        STALL,
    )


def _log_spilled(over: int) -> None:
    log.warning(
        "a message from the editor was %d bytes shorter than its Content-Length: it ends "
        "where its JSON ends, and the next message is read from there",
        over,
    )


def spilled(body: bytes) -> tuple[bytes, bytes] | None:
    """``(message, next)`` when ``body`` is a JSON value followed by the start of the next
    message's header block (its Content-Length was over its length by as much), else None.
    A body ending in ``}``, as every JSON-RPC message does, is not looked into."""
    if body.endswith(b"}") or b"}" not in body:
        return None
    try:
        text = body.decode("utf-8")
        _, end = json.JSONDecoder().raw_decode(text)
    except (ValueError, RecursionError):
        return None
    cut = len(text[:end].encode("utf-8"))
    rest = body[cut:]
    if not rest.strip(b" \t\r\n") or _NEXT_HEADER.match(rest) is None:
        return None
    return body[:cut], rest


def top_level_fields(head: str) -> dict[str, Any]:
    """The ``id`` (a number or a string) and ``method`` (a string) of the JSON object whose
    start is ``head``, when they come before ``head`` ends; keys of nested objects are not
    taken for them."""
    found: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    depth, i, n = 0, 0, len(head)
    while i < n and len(found) < 2:
        c = head[i]
        if c == '"':
            try:
                text, end = decoder.raw_decode(head, i)
            except ValueError:
                break
            colon = _after_spaces(head, end)
            if depth == 1 and colon < n and head[colon] == ":" and text in ("id", "method"):
                value_at = _after_spaces(head, colon + 1)
                try:
                    value, end = decoder.raw_decode(head, value_at)
                except (ValueError, RecursionError):  # cut short, or nested too deep
                    break
                if _fits(text, value):
                    found[text] = value
            i = end
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
        i += 1
    return found


def _after_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _fits(key: str, value: Any) -> bool:
    if key == "method":
        return isinstance(value, str) and len(value) <= 200
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and len(value) <= 200)


@dataclass(frozen=True, slots=True)
class Refusal:
    """What the server says of a message it did not read."""

    text: str
    #: The request's id, when it was a request (it gets an error answer).
    request_id: int | str | None
    #: The message was within the limit but memory ran out reading or decoding it (the
    #: server's failing, not the client's mistake).
    out_of_memory: bool = False


def refusal(params: Any) -> Refusal | None:
    """The refusal a ``TOO_LARGE`` notification's ``params`` stand for; None unless they come
    from this process's :class:`BoundedInput` (they carry its ``TOKEN``: a client cannot
    send one of its own)."""
    if not isinstance(params, dict) or params.get("token") != TOKEN:
        return None
    if params.get("memory") is True:
        return out_of_memory(params, params.get("bytes"))
    text = (
        f"{_what(params)} of {_mb(params.get('bytes'))} from the editor is over the limit of "
        f"{_mb(params.get('limit'))} (6 x max_file_mb, at least 64 MB); it was not read"
    )
    return Refusal(text, _request_id(params))


def out_of_memory(fields: dict[str, Any], size: object, doing: str = "reading") -> Refusal:
    """What the server says of a message of ``size`` bytes, whose ``id`` and ``method`` are
    those of ``fields`` (:func:`top_level_fields`), that memory ran out ``doing`` (reading
    or decoding)."""
    text = (
        f"{_what(fields)} of {_mb(size)} from the editor could not be read: the server ran out "
        f"of memory {doing} it, and let it go"
    )
    return Refusal(text, _request_id(fields), out_of_memory=True)


def _what(fields: dict[str, Any]) -> str:
    """A refused message named by its method (escaped), when it gave one."""
    method = fields.get("method")
    return f"a {visible(method)} message" if isinstance(method, str) else "a message"


def _request_id(fields: dict[str, Any]) -> Any:
    """The id a refusal answers, when the message gave one a response can carry."""
    request_id = fields.get("id")
    return request_id if _fits("id", request_id) else None


def _mb(size: object) -> str:
    if not isinstance(size, int) or isinstance(size, bool):
        return "unknown size"
    return f"{size / (1 << 20):,.1f} MB"
