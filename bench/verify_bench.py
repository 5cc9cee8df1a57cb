"""Verification speed against the floor the published limits allow with batching.

The loopback replay server serves real recorded records: Crossref work records
(tests/data/accuracy/records.jsonl, in Crossref's ``/works/{doi}`` envelope), the recorded
Crossref search page of tests/data/api (for entries without an identifier) and the recorded
arXiv feeds of tests/data/api/arxiv.  Batched requests (``filter=doi:``, ``id_list=a,b``) are
answered from those single records in the shape the services document (tests/batch_replay.py).
Every Crossref answer carries Crossref's recorded public-pool headers
(``x-rate-limit-limit: 5``, ``x-rate-limit-interval: 1s``, ``x-concurrency-limit: 1``; habanero
cassette test_works_with_one_id.yaml), and every request waits a fixed latency (100 ms).

Two bibliographies: ``doi`` (200 entries with DOIs) and ``mixed`` (DOIs, arXiv ids, entries
without an identifier found by search).  For each: cold wall time (empty cache), warm wall
time (persistent cache, a new process's view: memo caches cleared), requests per source and
lane, the peak rate per lane (most requests in any one-second window) and the floor.

The floor: the fewest requests the entries need when identifiers go in batches, Crossref
DOIs ``ceil(n / 20)`` requests on Crossref's list lane, arXiv ids ``ceil(n / 50)`` on arXiv's,
one search per entry without an identifier on Crossref's list lane; each lane then needs
``max((n - burst) / rate, n * latency / concurrency) + latency`` seconds at the limits in
force (the published limits, lowered by the advertised headers), lanes in parallel: the floor
is the slowest lane's time.  (The advertised Crossref limits hold for its two lanes together,
through one gate per host; the floor's Crossref requests all go on the list lane, so that
gate adds nothing to it.)  ``--hallmark`` also runs HALLMARK dev
(../shared/tools/hallmark-dev/run_hallmark.py, latency ``--hallmark-latency-ms``, 0 by default;
``--hallmark-crossref-or``: on a copy whose Crossref ORs repeated filters, as Crossref does)
and prints its wall time, requests per entry and per source and peak rate per source.

Usage: ``python bench/verify_bench.py [--entries 200] [--latency 0.1] [--hallmark]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit
from xml.etree import ElementTree

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench" / "accuracy"))

from build_set import bib_entry  # noqa: E402
from hallmark import harness_dir  # noqa: E402

from batch_replay import serve_batches  # noqa: E402
from citewarden.cache import Cache  # noqa: E402
from citewarden.model import Entry  # noqa: E402
from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.http import PUBLISHED_LIMITS, HttpClient, Limit  # noqa: E402
from citewarden.verify.normalize import make_entry  # noqa: E402
from citewarden.verify.sources.arxiv import ArxivSource, work_from_entry  # noqa: E402
from citewarden.verify.sources.cached import CachedSource  # noqa: E402
from citewarden.verify.sources.crossref import CrossrefSource, work_from_csl  # noqa: E402
from citewarden.verify.sources.doi import DoiSource  # noqa: E402
from hallmark_crossref_or import ored_copy  # noqa: E402
from replay import API_DATA, ReplayServer  # noqa: E402

RECORDS = ROOT / "tests" / "data" / "accuracy" / "records.jsonl"
SEARCH = API_DATA / "crossref" / "test-works__test_works_field_queries.json"
#: Crossref's public-pool headers as recorded (habanero test_works_with_one_id.yaml).
PUBLIC_POOL = {
    "x-api-pool": "public",
    "x-rate-limit-limit": "5",
    "x-rate-limit-interval": "1s",
    "x-concurrency-limit": "1",
}
#: Identifiers per batched request, as the sources send them.
CROSSREF_BATCH, ARXIV_BATCH = 20, 50
SEARCHES = 20


@dataclass
class Bibliography:
    name: str
    entries: list[Entry]
    dois: int
    arxiv: int
    searches: int


def crossref_entries(server: ReplayServer, count: int) -> list[Entry]:
    out: list[Entry] = []
    for i, line in enumerate(RECORDS.read_text(encoding="utf-8").splitlines()):
        if len(out) >= count:
            break
        row = json.loads(line)
        msg = row["message"]
        w = work_from_csl(msg)
        kinds = ("journal-article", "proceedings-article", "book-chapter")
        if w is None or not w.authors or not w.venue or w.work_type not in kinds:
            continue
        body = json.dumps({"status": "ok", "message-type": "work", "message": msg}).encode()
        server.add_route(f"https://api.crossref.org/works/{msg['DOI'].lower()}", body)
        e = bib_entry(row, i, with_doi=True)
        out.append(make_entry(f"doi{i}", e["entry_type"], e["fields"]))
    return out


def search_entries(server: ReplayServer, count: int) -> list[Entry]:
    server.add_route("https://api.crossref.org/works", SEARCH.read_bytes(), any_query=True)
    items = json.loads(SEARCH.read_text(encoding="utf-8"))["message"]["items"]
    out = []
    for i, item in enumerate(items[:count]):
        e = bib_entry({"message": item}, i, with_doi=False)
        out.append(make_entry(f"search{i}", e["entry_type"], e["fields"]))
    return out


def arxiv_entries() -> list[Entry]:
    """Entries for the recorded arXiv feeds (each cited by its identifier)."""
    out = []
    for row in json.loads((API_DATA / "arxiv" / "manifest.json").read_text(encoding="utf-8")):
        ident = row["uri"].partition("id_list=")[2].partition("&")[0].replace("%2F", "/")
        if not ident or "," in ident or re.search(r"v\d+$", ident):
            continue  # entries cite ids without a version (as the engine asks for them)
        root = ElementTree.fromstring((API_DATA / "arxiv" / row["file"]).read_bytes())
        found = root.findall("{http://www.w3.org/2005/Atom}entry")
        recs = [r for r in (work_from_entry(x) for x in found) if r and r.authors]
        if not recs:
            continue
        rec = recs[0]
        authors = " and ".join(f"{p.family}, {p.given}" for p in rec.authors)
        fields = {"title": rec.title, "author": authors, "eprint": ident, "archiveprefix": "arXiv"}
        if rec.year:
            fields["year"] = str(rec.year)
        out.append(make_entry(f"arxiv-{ident.replace('/', '-')}", "misc", fields))
    return out


def sources_for(server: ReplayServer, http: HttpClient, cache: Cache) -> list[Any]:
    base = server.base_url
    return [
        CachedSource(CrossrefSource(http, base("crossref"), mailto="bench@example.org"), cache),
        CachedSource(DoiSource(http, base("doi")), cache),
        CachedSource(ArxivSource(http, base("arxiv")), cache),
    ]


async def run(server: ReplayServer, entries: list[Entry], cache: Cache) -> tuple[float, Any]:
    http = HttpClient(timeout=10.0, user_agent="citewarden-bench (mailto:bench@example.org)")
    settings = VerifySettings(sources=("crossref", "doi", "arxiv"), concurrency=8)
    verifier = Verifier(sources_for(server, http, cache), settings)
    start = time.perf_counter()
    verdicts = await verifier.verify_many(entries)
    elapsed = time.perf_counter() - start
    await http.aclose()
    return elapsed, verdicts


def effective(lane: str) -> Limit:
    """The lane's limit in force: published, lowered by the headers the replay sends."""
    limit = PUBLISHED_LIMITS[lane]
    if lane.startswith("crossref"):
        advertised = float(PUBLIC_POOL["x-rate-limit-limit"])
        return Limit(
            min(limit.rate, advertised),
            limit.burst,
            min(limit.concurrency, int(PUBLIC_POOL["x-concurrency-limit"])),
        )
    return limit


def lane_time(lane: str, n: int, latency: float) -> float:
    if n <= 0:
        return 0.0
    limit = effective(lane)
    return max(max(0, n - limit.burst) / limit.rate, n * latency / limit.concurrency) + latency


def floor(bib: Bibliography, latency: float) -> tuple[float, dict[str, int]]:
    """Seconds and requests per lane the limits allow with batching (see the module text)."""
    need = {
        "crossref-query": math.ceil(bib.dois / CROSSREF_BATCH) + bib.searches,
        "arxiv": math.ceil(bib.arxiv / ARXIV_BATCH),
    }
    need = {lane: n for lane, n in need.items() if n}
    return max((lane_time(lane, n, latency) for lane, n in need.items()), default=0.0), need


def lane_of(path: str, query: str) -> str:
    if path.startswith("/crossref/works/"):
        return "crossref"
    if path.rstrip("/") == "/crossref/works":
        return "crossref-query"
    return path.split("/")[1]


def peak_rate(server: ReplayServer) -> dict[str, int]:
    """Most requests per lane in any one-second window."""
    times: dict[str, list[float]] = {}
    for seen in server.log:
        times.setdefault(lane_of(seen.path, seen.query), []).append(seen.at)
    peaks = {}
    for lane, ts in times.items():
        ts.sort()
        best, lo = 0, 0
        for hi, t in enumerate(ts):
            while t - ts[lo] >= 1.0:
                lo += 1
            best = max(best, hi - lo + 1)
        peaks[lane] = best
    return peaks


def clear_memo() -> None:
    from citewarden.verify import author_compare, compare, normalize

    for fn in (normalize.normalize_entry, normalize.latex_to_text, normalize.fold):
        fn.cache_clear()
    for module, name in (
        (author_compare, "_person_keys"),
        (author_compare, "_author_keys"),
        (compare, "_venue_agrees"),
        (author_compare, "is_group_author"),
        (author_compare, "_is_group"),
    ):
        fn = getattr(module, name, None)
        if fn is not None and hasattr(fn, "cache_clear"):
            fn.cache_clear()


def verdict_rows(name: str, verdicts: dict[str, Any]) -> list[dict[str, Any]]:
    """Verdicts in the shape of the JSON report's ``entries`` (for compare_verdicts.py)."""
    return [
        {
            "key": f"{name}:{v.key}",
            "status": v.status.value,
            "tier": v.tier.value,
            "corrections": dict(v.corrections),
            "findings": [{"code": i.code.value, "message": i.message} for i in v.issues],
        }
        for v in verdicts.values()
    ]


def measure(
    server: ReplayServer, bib: Bibliography, latency: float, repeat: int
) -> list[dict[str, Any]]:
    server.clear()
    serve_batches(server)
    server.extra_headers = {"/crossref": dict(PUBLIC_POOL)}
    server.latency = latency
    with tempfile.TemporaryDirectory() as tmp:
        cache = Cache(tmp)
        cold, verdicts = asyncio.run(run(server, bib.entries, cache))
        per_source = Counter(seen.path.split("/")[1] for seen in server.log)
        lanes = Counter(lane_of(seen.path, seen.query) for seen in server.log)
        peaks = peak_rate(server)
        cold_requests = len(server.log)
        server.log.clear()
        warm_times = []
        for _ in range(repeat):
            clear_memo()  # as in a new process: only the persistent cache is warm
            warm, warm_verdicts = asyncio.run(run(server, bib.entries, cache))
            warm_times.append(warm)
        warm_requests = len(server.log)
        cache.close()
    limit, need = floor(bib, latency)
    statuses = Counter(v.status.value for v in verdicts.values())
    same = all(warm_verdicts[k] == v for k, v in verdicts.items())
    print(
        f"[{bib.name}] {len(bib.entries)} entries ({bib.dois} DOIs, {bib.arxiv} arXiv ids, "
        f"{bib.searches} without an identifier); latency {latency * 1000:.0f} ms"
    )
    print(f"  statuses: {dict(statuses)}")
    print(
        f"  cold requests: {cold_requests}; per source {dict(per_source)}; per lane {dict(lanes)}"
    )
    print(f"  peak requests in one second, per lane: {peaks}")
    print(
        "  floor with batching: "
        + ", ".join(
            f"{lane} {n} requests {lane_time(lane, n, latency):.2f} s" for lane, n in need.items()
        )
        + f" -> {limit:.2f} s"
    )
    print(f"  cold wall time: {cold:.2f} s = {cold / limit:.2f} x floor")
    print(
        f"  warm wall time, median of {repeat}: {statistics.median(warm_times):.3f} s; "
        f"requests {warm_requests}; same verdicts as cold: {same}"
    )
    return verdict_rows(bib.name, verdicts)


def hallmark(latency_ms: float, workdir: Path | None, crossref_or: bool = False) -> None:
    """HALLMARK dev through its replay harness: wall time, requests, peak rate per source,
    and the Crossref single look-ups that followed a batch asking for the same DOI.
    ``crossref_or``: through a copy of the harness whose Crossref ORs repeated filters, as
    Crossref does (:mod:`hallmark_crossref_or`)."""
    harness = harness_dir()
    if harness is None:
        print("[hallmark dev] harness not found (set CITEWARDEN_HALLMARK_DEV)")
        return
    cmd = ROOT / ".venv" / "bin" / "citewarden"
    with tempfile.TemporaryDirectory() as tmp:
        if crossref_or:
            harness = ored_copy(harness, Path(tmp))
            print("[hallmark dev] Crossref's repeated filters ORed, as Crossref answers them")
        work = workdir or Path(tmp) / "work"
        work.mkdir(parents=True, exist_ok=True)
        out = work / "metrics.json"
        start = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                str(harness / "run_hallmark.py"),
                "--cmd",
                str(cmd),
                "--workdir",
                str(work),
                "--json-out",
                str(out),
                "--latency-ms",
                str(latency_ms),
            ],
            check=False,
            env={**os.environ},
        )
        wall = time.perf_counter() - start
        metrics = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
        log = work / "requests.jsonl"
        after_batch = singles_after_batch(log) if log.exists() else None
    server = metrics.get("server") or {}
    n = int(metrics.get("n") or 0)
    total = int(server.get("total") or 0)
    print(
        f"[hallmark dev] {n} entries; citewarden check {float(metrics.get('wall_s') or 0):.1f} s "
        f"(harness {wall:.1f} s); requests {total} = {total / max(1, n):.2f} per entry"
    )
    print(f"  requests per source: {server.get('requests')}")
    print(f"  peak requests in one second per source: {server.get('peak_rps_by_source')}")
    print(f"  detect {metrics.get('detect')}, false alarms {metrics.get('fpr')}")
    if after_batch is not None:
        found, missing = after_batch
        print(
            f"  Crossref /works/{{doi}} after a batch that asked for the DOI: {found} found "
            f"(a batch answered as Crossref documents would have held them: "
            f"{total - found} requests = {(total - found) / max(1, n):.2f} per entry), "
            f"{missing} not found (asked on their own either way)"
        )


def singles_after_batch(log: Path) -> tuple[int, int]:
    """(found, not found) Crossref single look-ups of DOIs an earlier ``filter=doi:`` batch
    asked for, from the harness's request log."""
    batched: set[str] = set()
    found = missing = 0
    for line in log.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("source") != "crossref":
            continue
        path = urlsplit(row["path"])
        if path.path.rstrip("/") == "/crossref/works":
            flt = parse_qs(path.query).get("filter", [""])[0]
            batched |= {f[4:].lower() for f in flt.split(",") if f.startswith("doi:")}
        elif path.path.startswith("/crossref/works/"):
            doi = unquote(path.path[len("/crossref/works/") :]).lower()
            if doi in batched:
                found += row.get("status") == 200
                missing += row.get("status") == 404
    return found, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3, help="warm runs (the median is shown)")
    parser.add_argument("--hallmark", action="store_true", help="also run HALLMARK dev")
    parser.add_argument("--hallmark-latency-ms", type=float, default=0.0)
    parser.add_argument("--hallmark-workdir", type=Path, help="keep the harness's files here")
    parser.add_argument(
        "--hallmark-crossref-or",
        action="store_true",
        help="run HALLMARK dev on a copy of the harness whose Crossref ORs repeated filters",
    )
    parser.add_argument(
        "--verdicts-out", type=Path, help="write the verdicts (report shape) for compare_verdicts"
    )
    args = parser.parse_args(argv)
    server = ReplayServer(API_DATA).start()
    try:
        dois = crossref_entries(server, args.entries)
        rows = measure(
            server, Bibliography("doi", dois, len(dois), 0, 0), args.latency, args.repeat
        )
        preprints = arxiv_entries()
        found = search_entries(server, SEARCHES)
        half = dois[: args.entries // 2]
        mixed = Bibliography(
            "mixed", half + preprints + found, len(half), len(preprints), len(found)
        )
        rows += measure(server, mixed, args.latency, args.repeat)
    finally:
        server.stop()
    if args.verdicts_out:
        args.verdicts_out.write_text(json.dumps({"entries": rows}, indent=1), encoding="utf-8")
    if args.hallmark:
        hallmark(args.hallmark_latency_ms, args.hallmark_workdir, args.hallmark_crossref_or)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
