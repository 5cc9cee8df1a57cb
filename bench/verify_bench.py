"""Verification speed: 200 entries against the loopback replay server.

The replay server serves real recorded Crossref work records (tests/data/accuracy/records.jsonl,
wrapped in Crossref's ``/works/{doi}`` envelope) and the recorded Crossref search response of
tests/data/api, with a fixed latency per request (default 100 ms).  The real HTTP client runs
with the services' published rate limits (Crossref polite pool: 10 req/s for single records,
3 req/s and 3 concurrent for queries).

Prints the cold wall time against the bound the rate limits imply (each lane's requests at its
rate, lanes in parallel, plus one latency), the warm wall time (every answer from the
persistent cache), and the requests per source.

Usage: ``python bench/verify_bench.py [--entries 200] [--latency 0.1]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench" / "accuracy"))

from build_set import bib_entry  # noqa: E402

from citewarden.cache import Cache  # noqa: E402
from citewarden.model import Entry  # noqa: E402
from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.http import PUBLISHED_LIMITS, HttpClient  # noqa: E402
from citewarden.verify.normalize import make_entry  # noqa: E402
from citewarden.verify.sources.cached import CachedSource  # noqa: E402
from citewarden.verify.sources.crossref import CrossrefSource, work_from_csl  # noqa: E402
from citewarden.verify.sources.doi import DoiSource  # noqa: E402
from replay import ReplayServer  # noqa: E402

RECORDS = ROOT / "tests" / "data" / "accuracy" / "records.jsonl"
SEARCH = ROOT / "tests" / "data" / "api" / "crossref" / "test-works__test_works_field_queries.json"
SEARCH_ENTRIES = 20
#: CPU seconds of each run (the machine may be shared: wall time includes waiting for a core).
CPU_TIMES: list[float] = []


def prepare(server: ReplayServer, count: int) -> list[Entry]:
    """Routes for the records and the entries that cite them (some found only by search)."""
    entries: list[Entry] = []
    items = json.loads(SEARCH.read_text(encoding="utf-8"))["message"]["items"]
    server.add_route(
        "https://api.crossref.org/works",
        SEARCH.read_bytes(),
        any_query=True,
    )
    for i, item in enumerate(items[:SEARCH_ENTRIES]):
        rec = {"message": item}
        e = bib_entry(rec, i, with_doi=False)
        entries.append(make_entry(f"search{i}", e["entry_type"], e["fields"]))
    for i, line in enumerate(RECORDS.read_text(encoding="utf-8").splitlines()):
        if len(entries) >= count:
            break
        row = json.loads(line)
        msg = row["message"]
        w = work_from_csl(msg)
        if (
            w is None
            or not w.authors
            or not w.venue
            or w.work_type
            not in (
                "journal-article",
                "proceedings-article",
                "book-chapter",
            )
        ):
            continue
        body = json.dumps({"status": "ok", "message-type": "work", "message": msg}).encode()
        server.add_route(f"https://api.crossref.org/works/{msg['DOI'].lower()}", body)
        e = bib_entry(row, i, with_doi=True)
        entries.append(make_entry(f"doi{i}", e["entry_type"], e["fields"]))
    return entries


def bound(requests: Counter[str], latency: float) -> tuple[float, dict[str, float]]:
    """Seconds the published limits need: per lane (requests - burst) / rate, in parallel."""
    per_lane: dict[str, float] = {}
    for lane, n in requests.items():
        limit = PUBLISHED_LIMITS[lane]
        rate_time = max(0.0, n - limit.burst) / limit.rate
        conc_time = n * latency / limit.concurrency
        per_lane[lane] = max(rate_time, conc_time) + latency
    return (max(per_lane.values()) if per_lane else 0.0), per_lane


async def run(server: ReplayServer, entries: list[Entry], cache: Cache) -> tuple[float, Any]:
    http = HttpClient(timeout=10.0, user_agent="citewarden-bench (mailto:bench@example.org)")
    base = server.base_url
    sources = [
        CachedSource(CrossrefSource(http, base("crossref"), mailto="bench@example.org"), cache),
        CachedSource(DoiSource(http, base("doi")), cache),
    ]
    verifier = Verifier(sources, VerifySettings(sources=("crossref", "doi"), concurrency=8))
    start, cpu = time.perf_counter(), time.process_time()
    verdicts = await verifier.verify_many(entries)
    elapsed = time.perf_counter() - start
    CPU_TIMES.append(time.process_time() - cpu)
    await http.aclose()
    return elapsed, verdicts


def clear_memo() -> None:
    from citewarden.verify import compare, normalize

    for fn in (
        normalize.normalize_entry,
        normalize.latex_to_text,
        normalize.fold,
        compare._person_keys,
        compare._author_keys,
        compare._venue_agrees,
        compare.is_group_author,
        compare._is_group,
    ):
        fn.cache_clear()


def lanes_of(server: ReplayServer) -> Counter[str]:
    lanes: Counter[str] = Counter()
    for seen in server.log:
        if seen.path.startswith("/crossref/works/"):
            lanes["crossref"] += 1
        elif seen.path.rstrip("/") == "/crossref/works":
            lanes["crossref-query"] += 1
        elif seen.path.startswith("/doi/"):
            lanes["doi"] += 1
    return lanes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=5, help="warm runs (the median is shown)")
    args = parser.parse_args(argv)
    server = ReplayServer(ROOT / "tests" / "data" / "api").start()
    server.latency = args.latency
    try:
        entries = prepare(server, args.entries)
        with tempfile.TemporaryDirectory() as tmp:
            cache = Cache(tmp)
            cold, verdicts = asyncio.run(run(server, entries, cache))
            lanes = lanes_of(server)
            per_source = Counter(seen.path.split("/")[1] for seen in server.log)
            limit, per_lane = bound(lanes, args.latency)
            server.clear()
            warm_times: list[float] = []
            hot_times: list[float] = []
            warm_cpu: list[float] = []
            for _ in range(args.repeat):
                clear_memo()  # as in a new process: only the persistent cache is warm
                warm, warm_verdicts = asyncio.run(run(server, entries, cache))
                warm_times.append(warm)
                warm_cpu.append(CPU_TIMES[-1])
                hot, _ = asyncio.run(run(server, entries, cache))
                hot_times.append(hot)
            warm_requests = len(server.log)
            warm, hot = statistics.median(warm_times), statistics.median(hot_times)
            cache.close()
    finally:
        server.stop()
    statuses = Counter(v.status.value for v in verdicts.values())
    same = all(warm_verdicts[k].status == v.status for k, v in verdicts.items())
    print(
        f"entries: {len(entries)} ({SEARCH_ENTRIES} found by search, the rest by DOI); "
        f"latency {args.latency * 1000:.0f} ms per request"
    )
    print(f"statuses: {dict(statuses)}")
    print(f"requests per source (cold): {dict(per_source)}; per lane: {dict(lanes)}")
    print(
        "bound from published limits: "
        + ", ".join(f"{lane} {t:.2f} s" for lane, t in per_lane.items())
        + f" -> {limit:.2f} s"
    )
    print(f"cold wall time: {cold:.2f} s = {cold / limit:.2f} x bound (target <= 1.2)")
    print(
        f"warm wall time, median of {args.repeat} (new process: entries decoded again, "
        f"answers from the cache): "
        f"{warm:.3f} s (CPU {statistics.median(warm_cpu):.3f} s); requests: {warm_requests}; "
        f"same verdicts: {same}"
    )
    print(
        f"warm wall time, median of {args.repeat} (entries already decoded in this process): "
        f"{hot:.3f} s (target <= 0.5 s)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
