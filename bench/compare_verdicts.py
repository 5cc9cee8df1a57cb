"""Compare the verdicts of two ``citewarden check --format json`` reports.

Verdicts are the same when every entry has the same status, tier, corrections and finding
codes in both reports (the matched record's source and score may differ: the same work can
come from a batch answer, a single one or another index).  Findings whose message differs
with the same code are listed apart (e.g. "found in" naming the sources in the order they
were asked).  Prints each difference and a summary; exits 1 when a verdict differs or an
entry is missing from one report.

Usage: ``python bench/compare_verdicts.py BEFORE.json AFTER.json``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def verdicts(path: Path) -> dict[str, dict[str, Any]]:
    """The comparable part of each entry of a report, by key."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for row in data.get("entries") or []:
        out[str(row["key"])] = {
            "status": row.get("status"),
            "tier": row.get("tier"),
            "corrections": row.get("corrections") or {},
            "codes": sorted(str(f.get("code")) for f in row.get("findings") or []),
            "messages": sorted(str(f.get("message")) for f in row.get("findings") or []),
        }
    return out


def differences(
    before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], fields: tuple[str, ...]
) -> list[str]:
    lines = []
    for key in sorted(before.keys() | after.keys()):
        a, b = before.get(key), after.get(key)
        if a is None or b is None:
            lines.append(f"{key}: only in {'after' if a is None else 'before'}")
            continue
        for name in fields:
            if a[name] != b[name]:
                lines.append(f"{key}: {name} {a[name]!r} -> {b[name]!r}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--messages", action="store_true", help="list message differences")
    args = parser.parse_args(argv)
    before, after = verdicts(args.before), verdicts(args.after)
    diff = differences(before, after, ("status", "tier", "corrections", "codes"))
    wording = differences(before, after, ("messages",)) if args.messages else []
    for line in diff + wording:
        print(line)
    changed = len({line.split(":", 1)[0] for line in diff})
    reworded = len({line.split(":", 1)[0] for line in differences(before, after, ("messages",))})
    print(
        f"entries: {len(before)} before, {len(after)} after; verdicts differing: {changed}; "
        f"finding messages differing: {reworded}"
    )
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
