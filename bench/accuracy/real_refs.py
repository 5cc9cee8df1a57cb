"""Real references, real search answers: how the engine judges the reference lists of nine
accepted OpenReview papers, answered from refchecker's recorded API cache.

Data (tests/data/accuracy/refchecker, MIT, from markrussinovich/refchecker): the extracted
reference lists (title, authors, year, venue, URL/DOI as the papers cite them) and the real
Crossref / OpenAlex / Semantic Scholar / DBLP responses refchecker recorded for those titles,
DOIs and arXiv ids.  A request that was never recorded fails (as a timeout would), so those
entries come out ``unverified``: abstentions, not verdicts.

The references are not labelled; almost all are real works.  The script prints the status
and tier distribution and every entry reported as ``not_found`` or with a warning or error,
so each alarm can be read and judged.

Usage: ``python bench/accuracy/real_refs.py [--show N]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.model import Entry, Severity, Status, Verdict  # noqa: E402
from citewarden.settings import VerifySettings  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.normalize import fold, make_entry  # noqa: E402
from citewarden.verify.records import Lookup, Query, WorkRecord  # noqa: E402
from citewarden.verify.sources import (  # noqa: E402
    work_from_csl,
    work_from_dblp,
    work_from_openalex,
    work_from_s2,
)

DATA = ROOT / "tests" / "data" / "accuracy" / "refchecker"
#: The papers were reviewed in 2025; references are judged as of then.
AS_OF = date(2025, 11, 1)
NOT_RECORDED = "not recorded"

Convert = Callable[[Any, str], WorkRecord | None]


def _key(text: str) -> str:
    return fold(text.split("|")[0])


def _records(body: Any, convert: Convert, source: str) -> list[WorkRecord]:
    items = body if isinstance(body, list) else [body]
    return [r for r in (convert(item, source) for item in items if item) if r is not None]


class RecordedSource:
    """Answers from recorded responses only; anything else fails as 'not recorded'."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.doi: dict[str, Lookup] = {}
        self.arxiv: dict[str, Lookup] = {}
        self.titles: dict[str, Lookup] = {}

    def load(self, path: Path, table: dict[str, Lookup], convert: Convert) -> None:
        if not path.exists():
            return
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            key = _key(row["cache_query"])
            if key in table and table[key].records:
                continue
            table[key] = Lookup.found(self.name, _records(row["body"], convert, self.name))

    async def by_doi(self, doi: str) -> Lookup:
        return self.doi.get(fold(doi)) or Lookup.failed(self.name, NOT_RECORDED)

    async def by_arxiv(self, arxiv_id: str) -> Lookup:
        if self.name != "semanticscholar":
            return Lookup.failed(self.name, "unsupported")
        return self.arxiv.get(fold(arxiv_id)) or Lookup.failed(self.name, NOT_RECORDED)

    async def search(self, query: Query) -> Lookup:
        return self.titles.get(fold(query.title)) or Lookup.failed(self.name, NOT_RECORDED)


def sources() -> list[RecordedSource]:
    crossref = RecordedSource("crossref")
    crossref.load(DATA / "crossref_get_by_doi.jsonl", crossref.doi, work_from_csl)
    crossref.load(DATA / "crossref_search_works.jsonl", crossref.titles, work_from_csl)
    openalex = RecordedSource("openalex")
    openalex.load(DATA / "openalex_get_by_doi.jsonl", openalex.doi, work_from_openalex)
    openalex.load(DATA / "openalex_search_works.jsonl", openalex.titles, work_from_openalex)
    s2 = RecordedSource("semanticscholar")
    s2.load(DATA / "semanticscholar_get_by_doi.jsonl", s2.doi, work_from_s2)
    s2.load(DATA / "semanticscholar_get_by_arxiv.jsonl", s2.arxiv, work_from_s2)
    s2.load(DATA / "semanticscholar_match_title.jsonl", s2.titles, work_from_s2)
    s2.load(DATA / "semanticscholar_search_paper.jsonl", s2.titles, work_from_s2)
    dblp = RecordedSource("dblp")
    dblp.load(DATA / "dblp_search.jsonl", dblp.titles, work_from_dblp)
    return [crossref, openalex, s2, dblp]


def entries() -> list[Entry]:
    out: list[Entry] = []
    for path in sorted(DATA.glob("openreview_*.bibliography.json")):
        paper = path.name.split(".")[0].removeprefix("openreview_")
        for i, ref in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            if not ref.get("title"):
                continue
            names = [a for a in ref.get("authors") or [] if a]
            names = ["others" if fold(a) in {"et al", "others"} else a for a in names]
            fields = {"title": ref["title"], "author": " and ".join(names)}
            if ref.get("year"):
                fields["year"] = str(ref["year"])
            if ref.get("venue"):
                fields["journal"] = ref["venue"]
            if ref.get("url"):
                fields["url"] = ref["url"]
            if ref.get("doi"):
                fields["doi"] = ref["doi"]
            # as a .bib would hold it: a URL without a venue is a web page (@misc)
            url = ref.get("url") or ""
            kind = "misc" if url and not ref.get("venue") and "arxiv.org" not in url else "article"
            out.append(make_entry(f"{paper}-{i:03d}", kind, fields))
    return out


def abstract_coverage(verdicts: Iterable[Verdict]) -> str:
    """How many matched works the citation context can read an abstract of: the matched
    record's own, one another record of the work lent (by source), none."""
    matched = [v.match for v in verdicts if v.match is not None]
    own = sum(1 for m in matched if m.abstract and not m.abstract_source)
    lent = Counter(m.abstract_source for m in matched if m.abstract and m.abstract_source)
    none = sum(1 for m in matched if not m.abstract)
    asked = sum(1 for m in matched if not m.abstract and m.doi)
    by_source = ", ".join(f"{name} {n}" for name, n in lent.most_common())
    return (
        f"abstracts of the {len(matched)} matched works: the matched record's own {own}, "
        f"lent by another record of the work {sum(lent.values())} ({by_source or 'none'}), "
        f"none {none} ({asked} of them with a DOI the lenders were asked by)"
    )


async def run(show: int) -> int:
    settings = VerifySettings(sources=("crossref", "openalex", "semanticscholar", "dblp"))
    verifier = Verifier(sources(), settings, today=AS_OF)
    verifier.abstracts = True  # as a run with citing sentences to score asks
    items = entries()
    verdicts = await verifier.verify_many(items)
    statuses = Counter(v.status.value for v in verdicts.values())
    tiers = Counter(v.tier.value for v in verdicts.values() if v.status is not Status.SKIPPED)
    codes = Counter(
        i.code.value
        for v in verdicts.values()
        for i in v.issues
        if i.effective_severity <= Severity.WARNING
    )
    print(f"{len(items)} real references from 9 papers (answers: refchecker's recorded cache)")
    print(f"statuses: {dict(statuses.most_common())}")
    print(f"tiers:    {dict(sorted(tiers.items()))}")
    print(f"warning/error codes: {dict(codes.most_common())}")
    print(abstract_coverage(verdicts.values()))
    by_key = {e.key: e for e in items}
    shown = 0
    for key, v in verdicts.items():
        alarms = [i for i in v.issues if i.effective_severity <= Severity.WARNING]
        if v.status is Status.NOT_FOUND or alarms:
            if shown >= show:
                break
            shown += 1
            entry = by_key[key]
            print(f"\n{key} [{v.status.value}/{v.tier.value}] {entry.get('title')!r}")
            print(f"   cited: {entry.get('author')!r} {entry.get('year')} {entry.get('journal')!r}")
            if v.match:
                print(
                    f"   match: {v.match.source} {v.match.title!r} {v.match.year} {v.match.venue!r}"
                )
            for i in alarms:
                print(f"   - {i.code.value}: {i.message}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=200, help="alarms to print")
    args = parser.parse_args(argv)
    return asyncio.run(run(args.show))


if __name__ == "__main__":
    raise SystemExit(main())
