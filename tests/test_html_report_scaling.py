"""The HTML report's data grows linearly with the entries and files: each finding finds its
entry, and each file its entries, without scanning all of them."""

from __future__ import annotations

import dataclasses
from pathlib import Path, PosixPath

from checking import check
from citewarden.model import Entry, Finding, Location, Span, Status, Tier, Verdict
from citewarden.project import Workspace
from citewarden.report.html.build import build_audit, file_summaries
from citewarden.settings import Settings

PAPER = "\\documentclass{article}\\begin{document}x\\bibliography{refs}\\end{document}\n"


class CountedSpan:
    """A span that counts how often its start is read."""

    def __init__(self, span: Span, reads: list[int]) -> None:
        self._span, self._reads, self.end = span, reads, span.end

    @property
    def start(self) -> int:
        self._reads[0] += 1
        return self._span.start


def orphans(tmp_path: Path, n: int) -> tuple[Workspace, dict[Path, list[Finding]]]:
    """A bibliography of ``n`` entries a document cites none of: one orphan finding each."""
    (tmp_path / "main.tex").write_text(PAPER, encoding="utf-8")
    bib = "".join(f"@misc{{k{i}, title={{t {i}}}}}\n" for i in range(n))
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    return ws, check(ws)


def test_each_finding_finds_its_entry_without_scanning_the_file_s_entries(
    tmp_path: Path,
) -> None:
    n = 400
    ws, findings = orphans(tmp_path, n)
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None and len(bib.entries) == n
    reads = [0]
    counted = {
        path: [
            dataclasses.replace(
                f,
                location=Location(f.location.path, CountedSpan(f.location.span, reads)),  # type: ignore[arg-type]
            )
            for f in items
        ]
        for path, items in findings.items()
    }
    total = sum(map(len, counted.values()))
    assert total >= n  # an orphan finding on each entry
    data = build_audit(ws, counted, list(bib.entries), None)
    assert sum(len(row.findings) for row in data.entries) == n  # each one on its entry
    assert reads[0] <= 3 * total  # a few reads per finding, not one per entry


class CountedPath(PosixPath):
    """A path that counts how often it is compared."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        CountedPath.comparisons += 1
        return super().__eq__(other)

    __hash__ = PosixPath.__hash__


def test_each_file_s_summary_reads_only_its_own_entries(tmp_path: Path) -> None:
    files, per_file = 60, 5
    paths = [CountedPath(tmp_path / f"r{i}.bib") for i in range(files)]
    entries = [
        Entry(f"k{i}", "misc", path, Span(10 * i, 10 * i + 9), Span(10 * i, 10 * i + 2))
        for path in paths
        for i in range(per_file)
    ]
    tiers = [Tier.E if path is paths[0] else Tier.D for path in paths]
    verdicts = {
        e: Verdict(e.key, Status.VERIFIED, tier)
        for e, tier in zip(entries, (t for t in tiers for _ in range(per_file)), strict=True)
    }
    ws = Workspace(Settings(), root=tmp_path)
    CountedPath.comparisons = 0
    rows = file_summaries(ws, {Path(p): [] for p in paths}, verdicts, entries)
    assert [row.score for row in rows][:2] == [75, 100]  # r0: five elevated entries
    assert CountedPath.comparisons <= 4 * (files + len(entries))
