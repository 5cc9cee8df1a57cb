"""Accuracy of verification on the labelled set (tests/data/accuracy).

Prints, per kind of manipulation, the detection rate (the expected finding code reported and
the entry not called verified; a static finding such as a homoglyph counts even when the
network part could not be checked); the false-alarm rate on valid entries (any warning or error, or
a status other than verified); abstentions (unverified); and correction accuracy (expected
corrections offered with the right value, and no wrong value offered for any field).

Usage: ``python bench/accuracy/run.py [--data DIR] [--show-misses] [--hallmark
[--peer-python PEER/bin/python] [--faults "..."] [--hallmark-limit N]]``: with ``--hallmark``
also HALLMARK dev through the shared harness (hallmark.py), citewarden and the peer in the
same run, without and with injected faults.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import sys
import tempfile
import time
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from memory_source import FlakySource, MemorySource, load_records  # noqa: E402

from citewarden.model import Severity, Status, Verdict  # noqa: E402
from citewarden.parsing.latex_decode import decode_latex  # noqa: E402
from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.normalize import fold, make_entry  # noqa: E402

TARGETS = {"detection": 0.98, "false_alarms": 0.01, "corrections": 0.98}
TODAY = date(2026, 11, 29)
#: Codes that are notes, not errors: the entry may still be verified.
NOTES = {"corrected", "preprint-published"}


def load_entries(data: Path) -> list[dict[str, Any]]:
    lines = (data / "entries.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def same_value(field: str, got: str | None, want: str) -> bool:
    """Does the correction ``got`` (BibTeX text) say the record's ``want``?"""
    if got is None:
        return False
    if field in ("author", "title", "journal", "booktitle"):
        got = decode_latex(got)  # "M{\"u}hlen" as the entry writes it, "\&", "{BERT}"
    if field == "author":
        g = [fold(n.split(",")[0]) for n in got.split(" and ")]
        w = [fold(n.split(",")[0]) for n in want.split(" and ")]
        return g == w
    if field in ("title", "journal", "booktitle"):
        return fold(got) == fold(want)
    return got.strip().lower() == want.strip().lower()


class Renamed:
    """Another source under the name "crossref" (a stand-in holding every record here)."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name
        self.calls: dict[str, int] = {"by_doi": 0, "search": 0}

    async def by_doi(self, doi: str) -> Any:
        self.calls["by_doi"] += 1
        lookup = await self.inner.by_doi(doi)
        return dataclasses.replace(lookup, source=self.name)

    async def search(self, query: Any) -> Any:
        self.calls["search"] += 1
        lookup = await self.inner.search(query)
        return dataclasses.replace(lookup, source=self.name)


def build_verifier(
    data: Path, fail_rate: float = 0.0, search: str = "memory", index_dir: Path | None = None
) -> tuple[Verifier, list[Any]]:
    records = load_records(data / "records.jsonl")
    crossref: Any = MemorySource("crossref", records)
    if search == "snapshot":
        # the project's snapshot source (SQLite FTS5 search) over the same records
        from citewarden.verify.sources.snapshot import SnapshotSource

        assert index_dir is not None
        crossref = Renamed(SnapshotSource(data / "records.jsonl", index_dir), "crossref")
    doi = MemorySource("doi", records, searchable=False)
    settings = VerifySettings(sources=("crossref", "doi"), concurrency=8)
    sources: list[Any] = [crossref, doi]
    if fail_rate > 0:
        sources = [FlakySource(crossref, fail_rate), FlakySource(doi, fail_rate)]
    return Verifier(sources, settings, today=TODAY), [crossref, doi]


def detected(row: dict[str, Any], v: Verdict) -> bool:
    codes = {i.code.value for i in v.issues}
    if row["expect_code"] in NOTES:
        return row["expect_code"] in codes
    if v.status in (Status.VERIFIED, Status.SKIPPED):
        return False
    return row["expect_code"] in codes


def false_alarm(v: Verdict) -> bool:
    if v.status in (Status.MISMATCH, Status.NOT_FOUND, Status.RETRACTED):
        return True
    return any(
        i.effective_severity <= Severity.WARNING
        for i in v.issues
        if i.code.value not in {"unverified"}
    )


async def evaluate(
    data: Path, show: bool, fail_rate: float = 0.0, search: str = "memory"
) -> dict[str, Any]:
    rows = load_entries(data)
    with tempfile.TemporaryDirectory() as tmp:
        verifier, sources = build_verifier(data, fail_rate, search, Path(tmp))
        return await _evaluate(rows, verifier, sources, show)


async def _evaluate(
    rows: list[dict[str, Any]], verifier: Verifier, sources: list[Any], show: bool
) -> dict[str, Any]:
    entries = [make_entry(r["key"], r["entry_type"], r["fields"]) for r in rows]
    start = time.perf_counter()
    verdicts = await verifier.verify_many(entries)
    elapsed = time.perf_counter() - start
    per_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # hit, total, abstain
    fa = valid = abstain_valid = 0
    corr_ok = corr_total = corr_wrong = 0
    misses: list[str] = []
    for row in rows:
        v = verdicts[row["key"]]
        if row["label"] == "valid":
            valid += 1
            if v.status is Status.UNVERIFIED:
                abstain_valid += 1
            elif false_alarm(v):
                fa += 1
                misses.append(
                    f"FALSE ALARM {row['key']}: {v.status} {[i.message for i in v.issues]}"
                )
            continue
        stats = per_kind[row["kind"]]
        stats[1] += 1
        if v.status is Status.UNVERIFIED:
            stats[2] += 1
        if detected(row, v):
            stats[0] += 1
        else:
            misses.append(
                f"MISS {row['key']} want {row['expect_code']}: {v.status} "
                f"{[(i.code.value, i.message) for i in v.issues]}"
            )
        for name, want in row["expect_corrections"].items():
            corr_total += 1
            got = v.corrections.get(name)
            if same_value(name, got, want):
                corr_ok += 1
            else:
                misses.append(f"CORRECTION {row['key']} {name}: got {got!r} want {want!r}")
        # any offered correction must be right: compare with the record's own values
        for name, got in v.corrections.items():
            want = row["expect_corrections"].get(name)
            if want is not None and not same_value(name, got, want):
                corr_wrong += 1
    total_hit = sum(s[0] for s in per_kind.values())
    total = sum(s[1] for s in per_kind.values())
    report = {
        "entries": len(rows),
        "seconds": round(elapsed, 2),
        "per_kind": {
            k: {"detected": s[0], "total": s[1], "abstained": s[2]}
            for k, s in sorted(per_kind.items())
        },
        "detection": total_hit / total if total else 0.0,
        "valid": valid,
        "false_alarms": fa / valid if valid else 0.0,
        "abstentions_valid": abstain_valid,
        "corrections": corr_ok / corr_total if corr_total else 1.0,
        "corrections_total": corr_total,
        "wrong_corrections": corr_wrong,
        "requests": {s.name: dict(s.calls) for s in sources},
    }
    if show:
        for m in misses:
            print(m)
    return report


def hallmark_static(data: Path) -> dict[str, tuple[int, int]]:
    """HALLMARK dev: what the checks that need no records catch (its records are not
    available offline), as of the date the entries were added to the benchmark."""
    path = data / "hallmark_dev_public.jsonl"
    if not path.exists():
        return {}
    from citewarden.verify.normalize import normalize_entry
    from citewarden.verify.verdict import static_issues

    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        fields = {k: str(v) for k, v in row["fields"].items() if v is not None}
        entry = make_entry(row["bibtex_key"], row["bibtex_type"], fields)
        as_of = date.fromisoformat(row.get("added_to_benchmark") or "2026-02-14")
        flagged = any(
            i.effective_severity <= Severity.WARNING
            for i in static_issues(normalize_entry(entry), as_of)
        )
        kind = row.get("hallucination_type") or "VALID"
        counts[kind][1] += 1
        counts[kind][0] += int(flagged)
    return {k: (v[0], v[1]) for k, v in sorted(counts.items())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "tests" / "data" / "accuracy")
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--fail-rate",
        type=float,
        default=0.0,
        help="share of requests that fail like a timeout (checks abstention instead of alarms)",
    )
    parser.add_argument(
        "--search",
        choices=("memory", "snapshot"),
        default="memory",
        help="search engine standing in for Crossref: a fuzzy in-memory ranker, or the "
        "project's SQLite FTS5 snapshot source over the same records",
    )
    parser.add_argument(
        "--hallmark",
        action="store_true",
        help="also run HALLMARK dev through the shared hallmark-dev harness "
        "(env CITEWARDEN_HALLMARK_DEV), without and with injected faults",
    )
    parser.add_argument(
        "--peer-python",
        help="interpreter with bibtex-updater 1.12 installed: the peer runs in the same run",
    )
    parser.add_argument("--hallmark-limit", type=int, help="stratified HALLMARK subset")
    parser.add_argument(
        "--hallmark-workdir", type=Path, help="keep HALLMARK cases, reports and request logs here"
    )
    parser.add_argument(
        "--faults",
        default="--p429 0.15 --p503 0.05 --pdrop 0.03",
        help="replay fault options of the second HALLMARK run ('' for none)",
    )
    args = parser.parse_args(argv)
    r = asyncio.run(evaluate(args.data, args.show_misses, args.fail_rate, args.search))
    if args.json:
        print(json.dumps(r, indent=2))
        return 0
    print(
        f"accuracy set: {r['entries']} entries ({r['valid']} valid), {r['seconds']} s, "
        f"search: {args.search}"
        + (f", {args.fail_rate:.0%} of requests failing" if args.fail_rate else "")
    )
    print(f"{'kind':<22} {'detected':>9} {'rate':>7} {'abstained':>10}")
    for kind, s in r["per_kind"].items():
        rate = s["detected"] / s["total"] if s["total"] else 0.0
        print(f"{kind:<22} {s['detected']:>4}/{s['total']:<4} {rate:>7.3f} {s['abstained']:>10}")
    ok = lambda good: "ok" if good else "BELOW TARGET"  # noqa: E731
    print(
        f"detection rate        {r['detection']:.3f}  (target >= 0.98: {ok(r['detection'] >= 0.98)})"
    )
    print(
        f"false-alarm rate      {r['false_alarms']:.3f}  (target <= 0.01: {ok(r['false_alarms'] <= 0.01)})"
    )
    print(f"abstentions (valid)   {r['abstentions_valid']}")
    print(
        f"correct corrections   {r['corrections']:.3f} of {r['corrections_total']}  "
        f"(target >= 0.98: {ok(r['corrections'] >= 0.98)}); wrong values offered: {r['wrong_corrections']}"
    )
    print(f"requests              {r['requests']}")
    if args.hallmark:
        import hallmark

        runs = [("no faults", [])]
        if args.faults.strip():
            runs.append((f"faults {args.faults}", args.faults.split()))
        with tempfile.TemporaryDirectory(prefix="cw-hallmark-") as tmp:
            keep = args.hallmark_workdir or Path(tmp)
            seen = []
            for i, (title, faults) in enumerate(runs):
                work = keep / f"run{i}"
                results = hallmark.run(faults, args.peer_python, args.hallmark_limit, 3600, work)
                hallmark.print_side_by_side(results, title)
                seen.append(hallmark.statuses(work))
            if len(seen) == 2 and all(seen):
                changed = hallmark.flips(seen[0], seen[1], keep / "run0" / "cw" / "labels.json")
                print(
                    f"HALLMARK dev, verdicts changed by the faults: {changed} "
                    "(only to_unverified and withheld are allowed)"
                )
    static = hallmark_static(args.data)
    if static:
        print("HALLMARK dev, checks that need no records (its records are not in the corpus):")
        for kind, (hit, total) in static.items():
            what = "false alarms" if kind == "VALID" else "flagged"
            print(f"  {kind:<24} {what} {hit}/{total}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
