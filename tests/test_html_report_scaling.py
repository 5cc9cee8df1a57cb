"""The HTML report's data grows linearly with the entries and files: each finding finds its
entry, and each file its entries, without scanning all of them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from checking import check
from citewarden.model import Finding, Location, Span
from citewarden.project import Workspace
from citewarden.report.html.build import build_audit
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
