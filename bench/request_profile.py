"""Where the requests of a ``citewarden check`` run go: per entry, source and step.

Two parts.  ``run`` is a command for the HALLMARK harness (``run_hallmark.py --cmd``): it
runs ``citewarden`` in this process with a hook on the HTTP client that writes one line per
request sent (entry key, verification step, source, URL) to ``$CITEWARDEN_PROFILE_OUT``.
The step is the innermost step of the engine on the request's call chain (identifier
look-up, search, corroboration, venue opinions, venue registry, notices, venue records,
journal records, the plan's batches).  ``report`` groups those lines by the harness's labels
(valid / each hallucination type) x source x step, and counts the requests whose URL an
earlier request had already asked (same query asked twice).  Nothing here ships in the
package: the hook is installed only by this script.

Usage::

    CITEWARDEN_PROFILE_OUT=/tmp/p.jsonl python3 run_hallmark.py \\
        --cmd "python bench/request_profile.py run" --workdir W
    python bench/request_profile.py report /tmp/p.jsonl W/labels.json
"""

from __future__ import annotations

import collections
import contextvars
import json
import os
import sys
from pathlib import Path
from typing import Any

#: Engine functions that name a step (the innermost one a request is sent under wins).
STEPS = {
    "_identify": "id look-up",
    "_search": "search",
    "_corroborate": "corroboration",
    "_venue_opinions": "venue opinion",
    "_venue_registry": "venue registry",
    "_notices": "notices",
    "_venue_records": "venue records",
}

_KEY: contextvars.ContextVar[str] = contextvars.ContextVar("profile_key", default="")
_STEP: contextvars.ContextVar[str] = contextvars.ContextVar("profile_step", default="other")


def _stepped(fn: Any, step: str) -> Any:
    async def wrapper(*args: Any, **kw: Any) -> Any:
        token = _STEP.set(step)
        try:
            return await fn(*args, **kw)
        finally:
            _STEP.reset(token)

    return wrapper


def run(argv: list[str]) -> int:
    """``citewarden`` with the request hook installed."""
    import httpx

    from citewarden import cli
    from citewarden.verify import engine
    from citewarden.verify.coalesce import Coalescer
    from citewarden.verify.engine import Verifier
    from citewarden.verify.plan import Ahead

    out = open(os.environ["CITEWARDEN_PROFILE_OUT"], "a", encoding="utf-8")  # noqa: SIM115
    send = httpx.AsyncClient.send

    async def hooked(self: httpx.AsyncClient, request: httpx.Request, **kw: Any) -> Any:
        row = {"key": _KEY.get(), "step": _STEP.get(), "host": request.url.path.split("/")[1]}
        row["url"] = str(request.url.copy_with(scheme="http", host="h", port=None))
        out.write(json.dumps(row) + "\n")
        out.flush()
        return await send(self, request, **kw)

    httpx.AsyncClient.send = hooked  # type: ignore[method-assign]
    verify = Verifier._verify_within_budget

    async def keyed(self: Verifier, entry: Any) -> Any:
        _KEY.set(entry.key)
        return await verify(self, entry)

    Verifier._verify_within_budget = keyed  # type: ignore[method-assign]
    for name, step in STEPS.items():
        setattr(Verifier, name, _stepped(getattr(Verifier, name), step))
    engine.journal_records = _stepped(engine.journal_records, "journal records")
    Ahead._fetch = _stepped(Ahead._fetch, "plan batch")  # type: ignore[method-assign]
    # a coalesced batch runs in a fresh context: it is named as such
    Coalescer._run = _stepped(Coalescer._run, "coalesced batch")  # type: ignore[method-assign]
    return cli.main(argv)


def report(log: Path, labels_path: Path) -> None:
    labels = json.loads(labels_path.read_text(encoding="utf-8"))

    def kind(key: str) -> str:
        lab = labels.get(key) or {}
        if lab.get("label") == "VALID":
            return "valid"
        return str(lab.get("hallucination_type") or ("?" if key else "(no entry)"))

    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    entries = collections.Counter(kind(k) for k in labels)
    by_kind: collections.Counter[str] = collections.Counter()
    cells: collections.Counter[tuple[str, str, str]] = collections.Counter()
    seen: set[str] = set()
    repeats: collections.Counter[tuple[str, str]] = collections.Counter()
    for row in rows:
        k = kind(row["key"])
        by_kind[k] += 1
        cells[(k, row["host"], row["step"])] += 1
        if row["url"] in seen:
            repeats[(row["host"], row["step"])] += 1
        seen.add(row["url"])
    print(f"{len(rows)} requests, {len(labels)} entries: {len(rows) / len(labels):.2f} per entry")
    print("\nper entry class: requests (entries, per entry)")
    for k, n in by_kind.most_common():
        print(f"  {k:26} {n:5}  ({entries.get(k, 0)}, {n / max(1, entries.get(k, 0)):.2f})")
    steps: collections.Counter[str] = collections.Counter()
    hosts: collections.Counter[tuple[str, str]] = collections.Counter()
    for (_, host, step), n in cells.items():
        steps[step] += n
        hosts[(host, step)] += n
    print("\nper step:", ", ".join(f"{s} {n}" for s, n in steps.most_common()))
    print("\nper source x step:")
    for (host, step), n in sorted(hosts.items(), key=lambda x: -x[1]):
        print(f"  {host:10} {step:16} {n:5}")
    print("\nper class x source x step (>= 5):")
    for (k, host, step), n in sorted(cells.items(), key=lambda x: -x[1]):
        if n >= 5:
            print(f"  {k:26} {host:10} {step:16} {n:5}")
    print("\nURL asked again (source, step):", dict(repeats.most_common()))


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        return run(sys.argv[2:])
    if len(sys.argv) == 4 and sys.argv[1] == "report":
        report(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
