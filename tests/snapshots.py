"""A snapshot of recorded Crossref answers, as ``citewarden check --snapshot`` reads it: the
CLI tests verify against it offline, with no server."""

from __future__ import annotations

import json
from pathlib import Path

from paths import DATA

#: Offline verification against ``snapshot.jsonl`` (see :func:`write_snapshot`).
VERIFY = ["--offline", "--snapshot", "snapshot.jsonl"]


def write_snapshot(folder: Path, *names: str) -> Path:
    """``folder/snapshot.jsonl`` holding the works of the recorded Crossref answers
    ``names`` (files of ``tests/data/api/crossref``), one a line; -> the file."""
    lines = []
    for name in names:
        data = json.loads((DATA / "api" / "crossref" / name).read_text(encoding="utf-8"))
        lines.append(json.dumps({"message": data.get("message", data)}))
    path = folder / "snapshot.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
