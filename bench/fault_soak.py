"""Fault soak: the same entries verified against a fault-free and a faulty replay of the APIs.

Runs ``citewarden check BIB --format json`` (a real process, real HTTP, a fresh on-disk cache)
on N HALLMARK dev entries against the loopback replay server of
``../shared/tools/hallmark-dev`` (its universe of real records), three times:

1. fault-free, one process;
2. with faults -- a share of requests answered 429 (``Retry-After: 1``), 503, or dropped
   without an answer (in equal parts), plus latency on every request -- one process;
3. the same faults, three processes at once sharing one cache directory (an editor and two
   CI jobs on one machine).

Printed per faulty run: verdicts changed against the fault-free run (a definite verdict
turned into another definite one although every source answered; target 0), claims withheld
(a verdict made weaker because a source failed after its retries, which the entry says),
abstentions (entries that became ``unverified``), wall time, and the peak request rate per source (busiest one-second window
and ten-second windows of request starts, all processes together) next to the published
limit, and the most requests in flight at once per source (all processes together) next to
the published caps of its lanes.

Usage: ``python bench/fault_soak.py [--entries 150] [--faults 0.30] [--latency-ms 50]
[--processes 3] [--seed 1] [--json-out FILE]``
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HALLMARK_DEV = ROOT.parent.parent / "shared" / "tools" / "hallmark-dev"
if not HALLMARK_DEV.exists():
    HALLMARK_DEV = Path("/work/shared/tools/hallmark-dev")
sys.path.insert(0, str(HALLMARK_DEV))
sys.path.insert(0, str(ROOT / "server"))

import hallmark_universe as hu  # noqa: E402
import replay_server  # noqa: E402
import truth  # noqa: E402
from run_hallmark import stratified, write_bib  # noqa: E402

from citewarden.verify.http import PUBLISHED_LIMITS  # noqa: E402

#: Replay-server prefix -> the lanes whose published limits apply to it (polite pools).
LANES = {
    "crossref": ("crossref", "crossref-query"),
    "doi": ("doi",),
    "openalex": ("openalex",),
    "s2": ("semanticscholar",),
    "datacite": ("datacite",),
    "arxiv": ("arxiv",),
    "pubmed": ("pubmed",),
    "dblp": ("dblp",),
    "openlibrary": ("openlibrary",),
}


def published(prefix: str) -> float:
    """Requests per second the service allows us over all our lanes to it."""
    return sum(PUBLISHED_LIMITS[lane].rate for lane in LANES.get(prefix, ()))


Verdict = tuple[str, "str | None"]


def verdicts(report: dict[str, Any]) -> dict[str, Verdict]:
    return {e["key"]: (e["status"], e.get("tier")) for e in report.get("entries", [])}


def withheld(report: dict[str, Any]) -> set[str]:
    """Entries that say a source could not be checked (a claim withheld, not contradicted)."""
    return {
        e["key"]
        for e in report.get("entries", [])
        if any(f.get("code") == "unverified" for f in e.get("findings", []))
    }


def run_checks(bib: Path, port: int, cache: Path, processes: int) -> tuple[list[dict], float]:
    """``processes`` concurrent checks of ``bib`` sharing ``cache``; their reports and the
    wall time until the last one finished."""
    env = dict(os.environ)
    env.update(replay_server.product_env(port))
    env.update(
        {
            "CITEWARDEN_CACHE_DIR": str(cache),
            "CITEWARDEN_MAILTO": "soak@example.org",
            "PYTHONPATH": str(ROOT / "server"),
            "NO_PROXY": "127.0.0.1,localhost",
        }
    )
    for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        env.pop(k, None)
    cmd = [sys.executable, "-m", "citewarden", "check", str(bib), "--format", "json", "--quiet"]
    started = time.monotonic()
    procs = [
        subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(processes)
    ]
    reports = []
    for p in procs:
        out, err = p.communicate(timeout=3600)
        if p.returncode not in (0, 1):
            raise SystemExit(f"check failed ({p.returncode}): {err[-2000:]}")
        reports.append(json.loads(out))
    return reports, time.monotonic() - started


def soak(
    bib: Path, workdir: Path, base: dict[str, Any], processes: int, faults: dict[str, float]
) -> dict[str, Any]:
    """One run against a fresh server (with ``faults``) and a fresh cache."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=workdir))
    log = cache.with_suffix(".requests.jsonl")
    srv = replay_server.start_in_thread(0, log=str(log), **base, **faults)
    try:
        reports, wall = run_checks(bib, srv.server_address[1], cache, processes)
        stats = srv.state.stats()
    finally:
        srv.shutdown()
    starts: dict[str, list[float]] = {}
    spans: dict[str, list[tuple[float, float]]] = {}
    for line in log.read_text().splitlines():
        row = json.loads(line)
        starts.setdefault(row["source"], []).append(float(row["t0"]))
        spans.setdefault(row["source"], []).append((float(row["t0"]), float(row["t1"])))
    return {
        "reports": reports,
        "wall_s": round(wall, 1),
        "server": stats,
        "starts": starts,
        "spans": spans,
    }


def crowded(spans: list[tuple[float, float]]) -> int:
    """Requests that began while another request to the same source was still in flight."""
    ends: list[float] = []
    n = 0
    for t0, t1 in sorted(spans):
        while ends and ends[0] <= t0:
            heapq.heappop(ends)
        n += bool(ends)
        heapq.heappush(ends, t1)
    return n


def compare(clean: dict[str, Verdict], report: dict[str, Any]) -> dict[str, Any]:
    """How the faulty run's verdicts differ from the fault-free run's.

    ``changed``: a definite verdict became another one although every source answered;
    ``withheld``: it became another one because a source failed after its retries and the
    claim that needed it was not made (e.g. "not found" said only by the registries that
    answered); ``abstentions``: it became ``unverified``.
    """
    faulty, partial = verdicts(report), withheld(report)
    changed, weaker, abstained = [], [], []
    for key, before in clean.items():
        after = faulty.get(key)
        if after is None or after == before or before[0] == "unverified":
            continue
        if after[0] == "unverified":
            abstained.append(key)
        elif key in partial:
            weaker.append(f"{key}: {before} -> {after}")
        else:
            changed.append(f"{key}: {before} -> {after}")
    return {
        "changed": changed,
        "withheld": weaker,
        "abstentions": abstained,
        "missing": sorted(set(clean) - set(faulty)),
    }


def busiest(starts: list[float], window: float) -> int:
    """Most request starts in any window of ``window`` seconds."""
    starts = sorted(starts)
    best, j = 0, 0
    for i, t in enumerate(starts):
        while t - starts[j] >= window:
            j += 1
        best = max(best, i - j + 1)
    return best


def published_in_flight(prefix: str) -> int:
    """Requests in flight the published caps of our lanes to the service allow together."""
    return sum(PUBLISHED_LIMITS[lane].concurrency for lane in LANES.get(prefix, ()))


def rates(
    starts: dict[str, list[float]],
    in_flight: dict[str, int],
    spans: dict[str, list[tuple[float, float]]],
) -> dict[str, dict[str, float]]:
    """Peak rate per source over 1 s and over 10 s windows, next to the published limit, the
    most requests in flight at once (as the server counted them) and how many began while
    another to the source was in flight."""
    return {
        src: {
            "peak_1s": float(busiest(times, 1.0)),
            "peak_10s_rps": busiest(times, 10.0) / 10.0,
            "published_rps": round(published(src), 2),
            "peak_in_flight": float(in_flight.get(src, 0)),
            "published_in_flight": float(published_in_flight(src)),
            "crowded_starts": float(crowded(spans.get(src, []))),
        }
        for src, times in sorted(starts.items())
        if src in LANES
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=150)
    ap.add_argument("--faults", type=float, default=0.30, help="share of requests faulted")
    ap.add_argument("--latency-ms", type=float, default=50.0)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workdir")
    ap.add_argument("--json-out")
    a = ap.parse_args(argv)
    workdir = Path(a.workdir or tempfile.mkdtemp(prefix="cw-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)

    hroot = hu.hallmark_root(None)
    rows = stratified(hu.read_jsonl(hroot, hu.DEV, "HEAD"), a.entries, a.seed)
    bib = workdir / "soak.bib"
    write_bib(rows, str(bib))
    universe, _ = hu.build_universe(hroot, "HEAD")
    base = {
        "records": truth.load_records(),
        "extra_records": universe,
        "venues": hu.venue_registry(universe),
    }
    share = a.faults / 3
    faults = {
        "p429": share,
        "p503": share,
        "pdrop": share,
        "fault_seed": a.seed,
        "latency_ms": a.latency_ms,
    }
    print(
        f"fault soak: {len(rows)} entries; faults {a.faults:.0%} (429 / 503 / dropped, equal "
        f"parts), latency {a.latency_ms:g} ms; workdir {workdir}"
    )

    clean_run = soak(bib, workdir, base, 1, {})
    clean = verdicts(clean_run["reports"][0])
    (workdir / "clean.json").write_text(json.dumps(clean_run["reports"][0], indent=1))
    print(
        f"fault-free, 1 process: wall {clean_run['wall_s']} s; "
        f"statuses {dict(Counter(s for s, _ in clean.values()))}"
    )
    results: dict[str, Any] = {"entries": len(rows), "clean": {"wall_s": clean_run["wall_s"]}}
    for label, processes in (
        ("faulty, 1 process", 1),
        (f"faulty, {a.processes} processes", a.processes),
    ):
        run = soak(bib, workdir, base, processes, faults)
        per_process = [compare(clean, r) for r in run["reports"]]
        for i, report in enumerate(run["reports"]):
            (workdir / f"faulty-{processes}p-{i}.json").write_text(json.dumps(report, indent=1))
        injected = run["server"].get("injected", {})
        out = {
            "processes": processes,
            "wall_s": run["wall_s"],
            "verdicts_changed": sum(len(c["changed"]) for c in per_process),
            "withheld": [len(c["withheld"]) for c in per_process],
            "abstentions": [len(c["abstentions"]) for c in per_process],
            "changes": [x for c in per_process for x in c["changed"]][:20],
            "withheld_examples": [x for c in per_process for x in c["withheld"]][:20],
            "injected": injected,
            "requests": run["server"].get("requests"),
            "rates": rates(
                run["starts"], run["server"].get("max_concurrency_by_source", {}), run["spans"]
            ),
        }
        results[label] = out
        print(
            f"{label}: wall {out['wall_s']} s; verdicts changed {out['verdicts_changed']} "
            f"(target 0); per process: claims withheld for a failed source "
            f"{out['withheld']}, abstentions {out['abstentions']}; injected {injected}"
        )
        for change in out["changes"]:
            print(f"  changed {change}")
        for change in out["withheld_examples"]:
            print(f"  withheld {change}")
        for src, r in out["rates"].items():
            over = r["peak_10s_rps"] > r["published_rps"] + 0.1
            print(
                f"  {src:12s} busiest 1 s: {r['peak_1s']:3.0f} requests; busiest 10 s: "
                f"{r['peak_10s_rps']:5.2f} req/s; published {r['published_rps']:5.2f} req/s; "
                f"most in flight {r['peak_in_flight']:2.0f} (lanes' caps "
                f"{r['published_in_flight']:2.0f}); {r['crowded_starts']:3.0f} begun while "
                "another was in flight" + ("  OVER THE LIMIT" if over else "")
            )
    if a.json_out:
        Path(a.json_out).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
