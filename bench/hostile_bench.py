"""Hostile sources: what a trickling, an endless and a huge answer cost one entry.

Runs the real verifier (Crossref + doi.org) against the misbehaving loopback server of the
tests (``tests/hostile_server.py``, real recorded bodies served badly) and prints, per case,
the wall time of one entry, its verdict and reason, and how much the process grew (peak RSS):

* trickle: every source answers a few bytes at a time (64 bytes every 0.5 s), with
  ``verify.timeout = 5`` -- the 93 s of the issue;
* endless: a chunked body that never ends (the 775 MB of the issue);
* huge: a 200 MB body (the 1.7 GB of the issue).

Usage: ``python bench/hostile_bench.py [--timeout 5]``
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests"))

from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.http import HttpClient  # noqa: E402
from citewarden.verify.normalize import make_entry  # noqa: E402
from citewarden.verify.sources.crossref import CrossrefSource  # noqa: E402
from citewarden.verify.sources.doi import DoiSource  # noqa: E402
from hostile_server import CROSSREF_DOI, Behaviour, HostileServer  # noqa: E402

PATHS = (f"/crossref/works/{CROSSREF_DOI}", "/crossref/works", f"/doi/{CROSSREF_DOI}")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def one(server: HostileServer, mode: str, timeout: float) -> None:
    for path in PATHS:
        server.route(path, Behaviour(mode, interval=0.5))
    http = HttpClient(timeout=timeout)
    sources = [
        CrossrefSource(http, server.url + "/crossref", mailto="bench@example.org"),
        DoiSource(http, server.url + "/doi"),
    ]
    verifier = Verifier(sources, VerifySettings(sources=("crossref", "doi"), timeout=timeout))
    entry = make_entry(
        "sadasivan2012",
        "article",
        {
            "title": "Methylphenidate exposure induces dopamine neuron loss and activation of "
            "microglia in the basal ganglia of mice",
            "author": "Sadasivan, Shankar",
            "year": "2012",
            "doi": CROSSREF_DOI,
        },
    )
    before = rss_mb()
    started = time.monotonic()
    verdict = await verifier.verify(entry)
    wall = time.monotonic() - started
    await http.aclose()
    sent = sum(server.sent.get(p, 0) for p in PATHS) / 1e6
    print(
        f"{mode:8s} wall {wall:5.1f} s   peak RSS +{rss_mb() - before:5.1f} MB   "
        f"served {sent:7.1f} MB   {verdict.status.value}: {verdict.reason}"
    )
    server.sent.clear()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=5.0, help="verify.timeout (seconds)")
    a = ap.parse_args(argv)
    print(f"verify.timeout = {a.timeout:g} s; entry budget {3 * a.timeout:g} s; body cap 8 MB")
    for mode in ("trickle", "endless", "huge"):
        server = HostileServer().start()
        try:
            asyncio.run(one(server, mode, a.timeout))
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
