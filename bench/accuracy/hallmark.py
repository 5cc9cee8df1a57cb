"""HALLMARK dev through the shared harness (``run_hallmark.py`` of ``hallmark-dev``): the
product and, when a peer interpreter is given, the peer bibtex-updater on the same split
and the same replay options, printed side by side.

The harness serves HALLMARK's record universe on a loopback replay of the real APIs (see
its README, "Limits of the emulation"); it is a development benchmark, not a test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[2]
ENV = "CITEWARDEN_HALLMARK_DEV"


def harness_dir() -> Path | None:
    """``$CITEWARDEN_HALLMARK_DEV``, else ``shared/tools/hallmark-dev`` beside or above the
    checkout."""
    given = os.environ.get(ENV)
    candidates = [Path(given)] if given else []
    candidates += [p / "shared" / "tools" / "hallmark-dev" for p in ROOT.parents]
    return next((c for c in candidates if (c / "run_hallmark.py").is_file()), None)


def _run(harness: Path, out: Path, args: list[str], timeout: float) -> dict[str, Any] | str:
    cmd = [sys.executable, str(harness / "run_hallmark.py"), "--json-out", str(out), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if not out.exists():
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-5:])
        return f"could not run (exit {proc.returncode}): {tail}"
    data: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return data


def run(
    faults: list[str],
    peer_python: str | None,
    limit: int | None,
    timeout: float,
    keep: Path | None = None,
) -> dict[str, dict[str, Any] | str]:
    """Metrics per tool (``citewarden``, ``peer``), or why a tool could not run.  ``keep``:
    a directory that keeps the cases, reports and request logs."""
    harness = harness_dir()
    if harness is None:
        return {"citewarden": f"hallmark-dev not found (set {ENV})"}
    common = [*faults, *(["--limit", str(limit)] if limit else [])]
    results: dict[str, dict[str, Any] | str] = {}
    with tempfile.TemporaryDirectory(prefix="cw-hallmark-") as tmp:
        work = keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        product = f"{sys.executable} -m citewarden"
        results["citewarden"] = _run(
            harness,
            work / "citewarden.json",
            ["--cmd", product, "--workdir", str(work / "cw"), *common],
            timeout,
        )
        if peer_python:
            results["peer"] = _run(
                harness,
                work / "peer.json",
                ["--peer", "--peer-python", peer_python, "--workdir", str(work / "peer"), *common],
                timeout,
            )
    return results


class Outcome(NamedTuple):
    """What a kept report says of an entry."""

    status: str
    #: the codes of its findings, apart from ``unverified``
    codes: frozenset[str]
    #: it says a source could not be checked (an ``unverified`` finding)
    withheld: bool


def statuses(workdir: Path) -> dict[str, Outcome]:
    """Entry key -> outcome in a kept citewarden report (empty when there is none)."""
    path = workdir / "cw" / "stdout.json"
    if not path.exists():
        return {}
    report = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Outcome] = {}
    for e in report.get("entries", []):
        codes = frozenset(f.get("code", "") for f in e.get("findings", []))
        out[e["key"]] = Outcome(e.get("status", ""), codes - {"unverified"}, "unverified" in codes)
    return out


def flips(clean: dict[str, Outcome], faulty: dict[str, Outcome], labels: Path) -> dict[str, int]:
    """How injected faults changed verdicts.  Allowed: abstentions (``to_unverified``), and
    ``withheld``: another status because a source failed and the claim that needed it was
    not made, the entry saying so, with no finding the fault-free run did not make (a
    "not found" that needs three registries becomes the "mismatch" of the one that
    answered).  The rest are not."""
    label = {k: v["label"] for k, v in json.loads(labels.read_text(encoding="utf-8")).items()}
    flagged = {"mismatch", "not_found", "retracted"}
    out = {
        "to_unverified": 0,
        "withheld": 0,
        "flagged_to_verified": 0,
        "valid_to_flagged": 0,
        "other": 0,
    }
    for key, before in clean.items():
        after = faulty.get(key, Outcome("", frozenset(), False))
        if after.status == before.status:
            continue
        if after.status == "unverified":
            out["to_unverified"] += 1
        elif before.status in flagged and after.status == "verified":
            out["flagged_to_verified"] += 1
        elif label.get(key) == "VALID" and after.status in flagged:
            out["valid_to_flagged"] += 1
        elif after.withheld and after.codes <= before.codes:
            out["withheld"] += 1
        else:
            out["other"] += 1
    return out


def print_side_by_side(results: dict[str, dict[str, Any] | str], title: str) -> None:
    print(f"HALLMARK dev ({title}):")
    ok = {name: r for name, r in results.items() if isinstance(r, dict)}
    for name, r in results.items():
        if isinstance(r, str):
            print(f"  {name}: {r}")
    if not ok:
        return
    names = list(ok)
    print(f"  {'hallucination type':<26}" + "".join(f"{n:>14}" for n in names))
    types = sorted({t for r in ok.values() for t in r["per_type"]})
    for t in types:
        cells = []
        for n in names:
            v = ok[n]["per_type"].get(t)
            cells.append(f"{v['detected']:>4}/{v['n']:<3} {v['rate']:.2f}" if v else "-")
        print(f"  {t:<26}" + "".join(f"{c:>14}" for c in cells))
    rows = [
        ("detection", "detect"),
        ("false alarms (valid)", "fpr"),
        ("abstentions (valid)", "abstain"),
        ("abstentions (hallucinated)", "hallucinated_abstain"),
        ("F1", "f1"),
        ("MCC", "mcc"),
    ]
    for label, key in rows:
        print(f"  {label:<26}" + "".join(f"{ok[n][key]:>14.3f}" for n in names))
    targets = ok.get("citewarden")
    if targets:
        worst = min(v["rate"] for v in targets["per_type"].values())
        print(
            "  targets (citewarden): detection >= 0.97 "
            f"{'ok' if targets['detect'] >= 0.97 else 'BELOW'}, every type >= 0.90 "
            f"{'ok' if worst >= 0.90 else 'BELOW'}, false alarms <= 0.01 "
            f"{'ok' if targets['fpr'] <= 0.01 else 'ABOVE'}, abstentions <= 0.02 "
            f"{'ok' if targets['abstain'] <= 0.02 else 'ABOVE'}"
        )
