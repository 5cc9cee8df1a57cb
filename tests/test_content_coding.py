"""Content codings are undone by citewarden itself, a piece at a time: httpx decoded a whole
chunk through every coding at once, so 2 KB sent as ``Content-Encoding: gzip, gzip`` became
1 GB in memory before the 8 MB body cap was looked at, past every deadline."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import threading
import zlib
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from citewarden.verify.http import Failure, Reply
from citewarden.verify.transport import CODINGS
from replay import fast_http, recorded

CROSSREF_ANSWER = "test-works__test_works_with_one_id.json"

ROOT = Path(__file__).resolve().parents[1]
#: The client process may map at most this much memory.
ADDRESS_SPACE = 1 << 30


def _gzip_zeros(size: int) -> bytes:
    """A gzip member of ``size`` zero bytes, compressed a megabyte at a time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    parts = [packer.compress(zeros) for _ in range(size >> 20)]
    return b"".join(parts) + packer.flush()


def _halves(name: str) -> tuple[bytes, bytes]:
    """A recorded Crossref answer cut in two at its middle."""
    body = recorded("crossref", name)
    return body[: len(body) // 2], body[len(body) // 2 :]


#: 1 GB of zeros in gzip in gzip: about 2 KB on the wire.
BOMB = gzip.compress(_gzip_zeros(1 << 30), 9)
#: A small answer followed, inside the outer coding, by 100 MB the inner coding never reads.
TRAILED = gzip.compress(gzip.compress(b'{"a": 1}') + bytes(100 << 20), 9)

ROUTES: dict[str, tuple[str, bytes]] = {
    "/bomb": ("gzip, gzip", BOMB),
    "/trailed": ("gzip, gzip", TRAILED),
    "/gzip": ("gzip", gzip.compress(b'{"a": 1}')),
    "/x-gzip": ("x-gzip", gzip.compress(b'{"a": 1}')),
    "/deflate": ("deflate", zlib.compress(b'{"a": 1}')),
    "/raw-deflate": ("deflate", zlib.compress(b'{"a": 1}', wbits=-15)),
    "/twice": ("gzip, deflate", zlib.compress(gzip.compress(b'{"a": 1}'))),
    "/identity": ("identity", b'{"a": 1}'),
    "/brotli": ("br", b"\x0b\x03\x80{}\x03"),
    "/broken": ("gzip", b"\x1f\x8b not gzip at all"),
    "/big-gzip": ("gzip", _gzip_zeros(9 << 20)),
    # Crossref's recorded answer in two gzip members, one after the other (RFC 1952, 2.2)
    "/members": ("gzip", b"".join(gzip.compress(half) for half in _halves(CROSSREF_ANSWER))),
    # a member followed by NUL padding, which is no member
    "/padded": ("gzip", gzip.compress(b'{"a": 1}') + bytes(64)),
    # nine members of a megabyte each: the cap counts them all
    "/big-members": ("gzip", _gzip_zeros(1 << 20) * 9),
    # Crossref's recorded answer, gzipped, its last 40 bytes not sent (a proxy cut it)
    "/cut": ("gzip", gzip.compress(recorded("crossref", CROSSREF_ANSWER))[:-40]),
}
#: Requests per path.
ASKED: Counter[str] = Counter()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        ASKED[self.path] += 1
        coding, body = ROUTES[self.path]
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # the client stopped reading
            pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


CLIENT = """
import asyncio, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
sys.path.insert(0, {tests!r})
from replay import fast_http

async def main():
    http = fast_http(timeout=20.0)
    reply = await http.get(sys.argv[1], lane="crossref")
    await http.aclose()
    print(getattr(reply, "reason", "a reply"))

asyncio.run(main())
"""


@pytest.mark.parametrize("path", ["/bomb", "/trailed"])
def test_a_body_coded_twice_is_cut_at_the_cap_in_bounded_memory(server: str, path: str) -> None:
    script = CLIENT.format(limit=ADDRESS_SPACE, tests=str(ROOT / "tests"))
    done = subprocess.run(
        [sys.executable, "-c", script, server + path],
        env={"PYTHONPATH": str(ROOT / "server")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "response body over 8 MB"


@pytest.mark.parametrize(
    "path", ["/gzip", "/x-gzip", "/deflate", "/raw-deflate", "/twice", "/identity"]
)
async def test_the_codings_asked_for_are_undone(server: str, path: str) -> None:
    http = fast_http()
    reply = await http.get(server + path, lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply), reply
    assert reply.json() == {"a": 1}


async def test_the_client_asks_only_for_the_codings_it_undoes() -> None:
    http = fast_http()
    asked = http._ensure_client().headers["accept-encoding"]
    await http.aclose()
    assert {c.strip() for c in asked.split(",")} <= set(CODINGS)


async def test_a_coding_not_asked_for_is_refused(server: str) -> None:
    http = fast_http()
    reply = await http.get(server + "/brotli", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "response in a content coding not asked for (br)"


async def test_a_body_that_is_not_its_coding_fails(server: str) -> None:
    http = fast_http()
    reply = await http.get(server + "/broken", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "malformed response: a body that is not the gzip it says it is"
    assert ASKED["/broken"] == 2  # asked again, as after a network error


async def test_a_small_body_decoding_past_the_cap_fails(server: str) -> None:
    http = fast_http()
    reply = await http.get(server + "/big-gzip", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "response body over 8 MB"


async def test_a_compressed_body_that_stops_part_way_is_asked_again_and_said(server: str) -> None:
    """A gzip stream that never ends (the body cut short): the connection dropped, and the
    request is sent again, where it was read as what came and failed as JSON that is not."""
    http = fast_http()
    reply = await http.get(server + "/cut", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "connection dropped: the compressed body ends part way"
    assert ASKED["/cut"] == 2  # once more, as after any dropped connection


async def test_a_gzip_body_of_several_members_is_read_whole(server: str) -> None:
    """Every member of a gzip body is read, where only the first was and the answer failed
    as JSON that is not."""
    http = fast_http()
    reply = await http.get(server + "/members", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply), reply
    assert reply.json() == json.loads(recorded("crossref", CROSSREF_ANSWER))


async def test_what_follows_the_last_gzip_member_that_is_no_member_is_ignored(
    server: str,
) -> None:
    http = fast_http()
    reply = await http.get(server + "/padded", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Reply), reply
    assert reply.json() == {"a": 1}


async def test_gzip_members_together_past_the_cap_fail(server: str) -> None:
    http = fast_http()
    reply = await http.get(server + "/big-members", lane="crossref")
    await http.aclose()
    assert isinstance(reply, Failure)
    assert reply.reason == "response body over 8 MB"


def test_gzip_members_sent_a_byte_at_a_time_are_read_whole() -> None:
    """A member's first bytes may come in a piece of their own."""
    from citewarden.verify.transport import _Decoder

    halves = _halves(CROSSREF_ANSWER)
    coded = b"".join(gzip.compress(half) for half in halves)
    decoder = _Decoder(["gzip"], 8 << 20)
    for i in range(len(coded)):
        decoder.feed(coded[i : i + 1])
    assert bytes(decoder.body) == b"".join(halves)
    assert not decoder.cut_short()


def test_gzip_members_that_hold_nothing_are_read_only_up_to_twice_the_cap() -> None:
    """Empty members decode to nothing: the coded body itself is capped, where they were
    read and decoded for as long as they came."""
    from citewarden.verify.transport import _Decoder, _OverCap

    empty = gzip.compress(b"")
    decoder = _Decoder(["gzip"], 64 * 1024)
    with pytest.raises(_OverCap):
        for _ in range(2 * 64 * 1024 // len(empty) + 1):
            decoder.feed(empty)
    assert not decoder.body
