"""Regenerate ``examples/snapshot.jsonl``: the real Crossref records the example needs.

Reads every ``.bib`` file under ``examples/`` and, from the recorded Crossref work messages
in ``tests/data`` (see ``SOURCES``), keeps each record whose DOI is the DOI an entry gives,
or whose title is the entry's title.  So an entry written without its DOI, or with the DOI
of another work, still finds the record of the work it describes, and a DOI borrowed from
another work brings that work's record along.  Records are written unchanged, one work
object per line (the shape of Crossref's public data file), in the order of the entries.

Run from the repository root: ``.venv/bin/python examples/build_snapshot.py``.
``--check`` exits 1 when the file on disk differs from what would be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.parsing.bibtex import parse_bibtex  # noqa: E402
from citewarden.verify.normalize import normalize_entry  # noqa: E402
from citewarden.verify.plain_text import fold  # noqa: E402
from citewarden.verify.sources._common import normalize_doi  # noqa: E402

EXAMPLES = ROOT / "examples"
TARGET = EXAMPLES / "snapshot.jsonl"
#: Recorded Crossref responses to take records from (provenance: tests/data/PROVENANCE.md).
SOURCES = (
    ROOT / "tests/data/accuracy/refchecker/crossref_get_by_doi.jsonl",
    ROOT / "tests/data/api/crossref",
)


def recorded_works() -> Iterator[dict[str, Any]]:
    """Every Crossref work message in the recorded responses, in a fixed order."""
    for source in SOURCES:
        if source.is_dir():
            for path in sorted(source.glob("*.json")):
                yield from _messages(json.loads(path.read_text(encoding="utf-8")))
        else:
            for line in source.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    yield from _messages(json.loads(line))


def _messages(data: Any) -> Iterator[dict[str, Any]]:
    """Work objects of one response: ``{"message": work}``, a page of ``items``, or a
    cached-response line whose ``body`` is the work."""
    if not isinstance(data, dict):
        return
    body = data.get("message", data.get("body"))
    if isinstance(body, dict) and isinstance(body.get("items"), list):
        yield from (w for w in body["items"] if isinstance(w, dict) and w.get("DOI"))
    elif isinstance(body, dict) and body.get("DOI"):
        yield body


def _title_key(text: str | None) -> str:
    return " ".join(fold(text or "").split())


def build() -> tuple[str, list[str]]:
    """The snapshot text, and the keys of entries no recorded work matches."""
    by_doi: dict[str, dict[str, Any]] = {}
    by_title: dict[str, list[dict[str, Any]]] = {}
    for work in recorded_works():
        doi = normalize_doi(work["DOI"])
        if doi is None or doi in by_doi:
            continue
        by_doi[doi] = work
        for title in work.get("title") or []:
            by_title.setdefault(_title_key(title), []).append(work)
    chosen: dict[str, dict[str, Any]] = {}
    unmatched: list[str] = []
    for bib in sorted(EXAMPLES.rglob("*.bib")):
        parsed = parse_bibtex(bib, bib.read_text(encoding="utf-8"))
        for entry in parsed.entries:
            norm = normalize_entry(entry)
            found = [by_doi[norm.doi]] if norm.doi in by_doi else []
            found += by_title.get(_title_key(norm.title), [])
            if not found:
                unmatched.append(entry.key)
            for work in found:
                chosen.setdefault(normalize_doi(work["DOI"]) or work["DOI"], work)
    lines = [json.dumps(work, ensure_ascii=False) for work in chosen.values()]
    return "".join(line + "\n" for line in lines), sorted(set(unmatched))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    text, unmatched = build()
    count = text.count("\n")
    if args.check:
        same = TARGET.is_file() and TARGET.read_text(encoding="utf-8") == text
        print(f"{TARGET.relative_to(ROOT)} is {'up to date' if same else 'out of date'}")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {count} records to {TARGET.relative_to(ROOT)}")
    if unmatched:
        print(f"entries without a recorded record: {', '.join(unmatched)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
