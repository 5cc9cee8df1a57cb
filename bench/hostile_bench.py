"""Hostile sources: what a trickling, an endless and a huge answer cost one entry.

Runs the real verifier (Crossref + doi.org) against the misbehaving loopback server of the
tests (``tests/hostile_server.py``, real recorded bodies served badly) and prints, per case,
the wall time of one entry, its verdict and reason, and how much the process grew (peak RSS):

* trickle: every source answers a few bytes at a time (64 bytes every 0.5 s), with
  ``verify.timeout = 5`` -- the 93 s of the issue;
* endless: a chunked body that never ends (the 775 MB of the issue);
* huge: a 200 MB body (the 1.7 GB of the issue).

With ``--outage``, instead, ``citewarden check`` (a real process) on a generated .bib with
every source at the server (:data:`~citewarden.verify.config.URL_ENV`), ``verify.timeout = 3``:

* stall: 60 entries, every source reads the request and never answers (a dead source);
* 503: 5 entries, every source answers 503 with ``Retry-After: 0``;
* drop: 60 entries, every source at an address that drops connection requests (a firewall
  or a dead network: the client hears nothing, not even a refusal).

Before the breaker (:mod:`citewarden.verify.breaker`) and the queue waits charged to the
entry's budget, the stall check took 100 s and the 503 check 31 s on the bench machine.

Usage: ``python bench/hostile_bench.py [--timeout 5] [--outage [--outage-timeout 3]]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests"))

from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.config import URL_ENV  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.http import HttpClient  # noqa: E402
from citewarden.verify.normalize import make_entry  # noqa: E402
from citewarden.verify.sources.crossref import CrossrefSource  # noqa: E402
from citewarden.verify.sources.doi import DoiSource  # noqa: E402
from hostile_server import CROSSREF_DOI, Behaviour, HostileServer, dropping_address  # noqa: E402

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


def outage_bib(n: int) -> str:
    """``n`` articles, every other one with a DOI (the rest are searched for)."""
    return "\n".join(
        f"@article{{e{i},\n  title = {{A study of thing number {i} in the wild}},\n"
        "  author = {Smith, John and Doe, Jane},\n  journal = {Journal of Things},\n"
        + (f"  doi = {{10.1234/x{i}}},\n" if i % 2 == 0 else "")
        + "  year = {2019}\n}\n"
        for i in range(n)
    )


def outage(mode: str, entries: int, timeout: float) -> None:
    """``citewarden check`` of ``entries`` entries with every source at a server in ``mode``."""
    server = HostileServer(fallback=Behaviour(mode, retry_after="0")).start()
    assert server._server is not None  # connections the client gave up on are no news
    server._server.handle_error = lambda request, address: None  # type: ignore[method-assign]
    try:
        wall, report = check_against(server.url, entries, timeout)
        print(f"{mode:5s} {entries:3d} entries  wall {wall:5.1f} s   requests {len(server.log):4d}"
              f"   {summary(report)}")  # fmt: skip
    finally:
        server.stop()


def outage_dropped(entries: int, timeout: float) -> None:
    """``citewarden check`` of ``entries`` entries with every source at an address that
    drops connection requests."""
    with dropping_address() as origin:
        wall, report = check_against(origin, entries, timeout)
    print(f"drop  {entries:3d} entries  wall {wall:5.1f} s   requests    -   {summary(report)}")


def check_against(origin: str, entries: int, timeout: float) -> tuple[float, dict[str, Any]]:
    """Wall time and JSON report of ``citewarden check`` with every source at ``origin``."""
    folder = Path(tempfile.mkdtemp(prefix="cw-outage-"))
    (folder / "refs.bib").write_text(outage_bib(entries))
    (folder / ".citewarden.toml").write_text(f"[verify]\ntimeout = {timeout:g}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
    env.update({var: f"{origin}/{name}" for name, var in URL_ENV.items()})
    env.update(
        {
            "PYTHONPATH": str(ROOT / "server"),
            "CITEWARDEN_CACHE_DIR": str(folder / "cache"),
            "CITEWARDEN_MAILTO": "bench@example.org",
        }
    )
    cmd = [sys.executable, "-m", "citewarden", "check", "refs.bib", "--format", "json"]
    started = time.monotonic()
    done = subprocess.run(
        cmd, cwd=folder, env=env, capture_output=True, text=True, timeout=3600, check=False
    )
    return time.monotonic() - started, json.loads(done.stdout)


def summary(report: dict[str, Any]) -> str:
    """The entries' statuses, and how many name a source that stopped answering."""
    statuses = Counter(e["status"] for e in report["entries"])
    said = [" ".join(f["message"] for f in e["findings"]) for e in report["entries"]]
    cut = sum("stopped answering" in text for text in said)
    return f"{dict(statuses)}; {cut} name a source that stopped answering"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=5.0, help="verify.timeout (seconds)")
    ap.add_argument("--outage", action="store_true", help="checks with every source dead")
    ap.add_argument(
        "--outage-timeout", type=float, default=3.0, help="verify.timeout of --outage (seconds)"
    )
    a = ap.parse_args(argv)
    if a.outage:
        outage("stall", 60, a.outage_timeout)
        outage("503", 5, a.outage_timeout)
        outage_dropped(60, a.outage_timeout)
        return 0
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
