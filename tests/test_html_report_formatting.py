"""The HTML report's cleaned reference list formats a bounded number of references with
citeproc-py: those with findings or corrections first, the others listed by key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code, Issue, Match, Severity, Status, Tier, Verdict
from citewarden.project import Workspace
from citewarden.report.html import sections
from citewarden.report.html.build import build_audit
from citewarden.report.html.page import render_html
from citewarden.settings import Settings


def entry(i: int) -> str:
    return (
        f"@article{{k{i},\n  author = {{Surname{i}, Given}},\n  title = {{Title number {i}}},\n"
        f"  journal = {{Journal of Things}},\n  year = {{{2000 + i}}}\n}}\n"
    )


def report(tmp_path: Path, n: int, verdicts: list[Verdict]) -> str:
    (tmp_path / "refs.bib").write_text("".join(map(entry, range(n))), encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    page = render_html(build_audit(ws, check(ws), list(bib.entries), verdicts))
    return page[page.index('id="references"') : page.index('id="methodology"')]


def formatted(refs: str) -> dict[int, bool]:
    """Each reference's index -> whether citeproc formatted it."""
    found = re.findall(r"<li class='ref' id='ref-(\d+)'><div class='formatted( plain)?'>", refs)
    return {int(i): not plain for i, plain in found}


def flagged(key: str) -> Verdict:
    issue = Issue(Code.PAGES_MISMATCH, "pages differ", "pages")
    return Verdict(key, Status.MISMATCH, Tier.M, Match("crossref", 0.9), issues=(issue,))


def test_over_the_cap_entries_with_findings_are_formatted_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "MAX_FORMATTED", 3)
    verdicts = [flagged("k5"), flagged("k7")]
    verdicts += [Verdict(f"k{i}", Status.VERIFIED, Tier.D) for i in (0, 1, 2, 3, 4, 6)]
    refs = report(tmp_path, 8, verdicts)
    shown = formatted(refs)
    assert sorted(shown) == list(range(8))  # every entry is listed, with its source
    assert sorted(i for i, done in shown.items() if done) == [0, 5, 7]
    assert re.search(r"Surname5, G\. \(2005\)", refs)  # formatted by citeproc
    assert "Surname3, G." not in refs  # listed by its key only
    assert "<pre>@article{k3," in refs
    assert "3 of 8 entries, those with findings or corrections first" in refs
    assert "the other 5 are listed by key" in refs


def test_over_the_cap_the_first_entries_with_findings_are_formatted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "MAX_FORMATTED", 2)
    refs = report(tmp_path, 6, [flagged(f"k{i}") for i in (1, 3, 4)])
    assert sorted(i for i, done in formatted(refs).items() if done) == [1, 3]
    assert "2 of 6 entries" in refs


def test_over_the_cap_of_entries_with_findings_the_worst_are_formatted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "MAX_FORMATTED", 2)
    gone = Issue(Code.NOT_FOUND, "no record", severity=Severity.ERROR)
    worst = [Verdict(f"k{i}", Status.NOT_FOUND, Tier.H, issues=(gone,)) for i in (4, 2)]
    refs = report(tmp_path, 6, [flagged("k0"), flagged("k1"), *worst, flagged("k5")])
    # the two errors, though three warnings come before them in the file
    assert sorted(i for i, done in formatted(refs).items() if done) == [2, 4]
    assert re.search(r"Surname4, G\. \(2004\)", refs)
    assert "Surname0, G." not in refs


def test_up_to_the_cap_every_entry_is_formatted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sections, "MAX_FORMATTED", 4)
    refs = report(tmp_path, 4, [])
    assert formatted(refs) == dict.fromkeys(range(4), True)
    assert " of 4 entries" not in refs and "listed by key" not in refs
