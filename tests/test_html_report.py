"""The HTML audit report: content, escaping, self-containment, and rendering in Chromium."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from checking import check
from citewarden.fix.plan import REPEATED_KEY
from citewarden.model import Code, Issue, Match, Severity, Status, Tier, Verdict
from citewarden.project import Workspace
from citewarden.report.html.build import build_audit
from citewarden.report.html.charts import flow_counts, gauge_svg
from citewarden.report.html.data import AuditData, EntryAudit, Outcome, outcome, suspicion_rank
from citewarden.report.html.page import render_html
from citewarden.settings import Settings
from paths import DATA

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WHEN = datetime(2026, 11, 29, 12, 30, tzinfo=UTC)

PAPER = r"""\documentclass{article}
\begin{document}
Count models \citep{Mullahy1986, CameronTrivedi2013} and \citet{Yee2009}.
See also \cite{Zeileis2008typo} and \cite{R, StasinopoulosRigby2007, Jackman2015}.
\cite{McCullaghNelder1989,VenablesRipley2002,Wood2006,ChambersHastie1992}
\bibliography{refs}
\end{document}
"""

EVIL_TITLE = '<script>alert("x")</script> & <b>bold</b>'


def verdicts() -> list[Verdict]:
    """Verdicts as the engine produces them (test data for the renderer)."""
    return [
        Verdict(
            "Mullahy1986",
            Status.MISMATCH,
            Tier.M,
            Match(
                "crossref",
                0.97,
                doi="10.1016/0304-4076(86)90002-3",
                title="Specification and testing of some modified count data models",
                authors=("John Mullahy",),
                year=1986,
                venue="Journal of Econometrics",
            ),
            corrections={"pages": "341--366"},
            issues=(
                Issue(Code.PAGES_MISMATCH, "pages 341--365 differ: record has 341-366", "pages"),
            ),
            sources=("crossref",),
        ),
        Verdict(
            "CameronTrivedi2013",
            Status.VERIFIED,
            Tier.D,
            Match("openlibrary", 0.93, title="Regression Analysis of Count Data"),
            corrections={"doi": "10.1017/CBO9781139013567"},
            issues=(Issue(Code.MISSING_DOI, "the record has DOI 10.1017/CBO9781139013567", "doi"),),
            sources=("crossref", "openlibrary"),
        ),
        Verdict(
            "Yee2009",
            Status.VERIFIED,
            Tier.D,
            Match("crossref", 1.0, doi="10.18637/jss.v032.i10", url="javascript:alert(1)"),
            sources=("crossref",),
        ),
        Verdict(
            "StasinopoulosRigby2007",
            Status.NOT_FOUND,
            Tier.H,
            issues=(
                Issue(Code.DOI_NOT_FOUND, "DOI 10.18637/jss.v023.i07 does not resolve", "doi"),
            ),
            sources=("crossref", "doi", "openalex"),
        ),
        Verdict(
            "ZeileisKleiberJackman2008",
            Status.MISMATCH,
            Tier.E,
            Match("crossref", 0.91, doi="10.18637/jss.v027.i08", title=EVIL_TITLE),
            issues=(
                Issue(Code.AUTHOR_SUBSTITUTED, f"author differs: {EVIL_TITLE}", "author"),
                Issue(Code.YEAR_MISMATCH, "year 2008 vs 2007", "year", Severity.WARNING),
            ),
            sources=("crossref",),
        ),
        Verdict(
            "Jackman2015",
            Status.SKIPPED,
            Tier.D,
            reason="software manual: not verifiable",
        ),
        Verdict(
            "R",
            Status.UNVERIFIED,
            Tier.D,
            issues=(Issue(Code.UNVERIFIED, "crossref: timed out"),),
            sources=("crossref",),
            reason="timed out",
        ),
        Verdict("McCullaghNelder1989", Status.RETRACTED, Tier.H, Match("crossref", 0.99)),
    ]


@pytest.fixture
def audit(tmp_path: Path) -> AuditData:
    (tmp_path / "paper.tex").write_text(PAPER, encoding="utf-8")
    bib_text = (DATA / "fix" / "jss-bibliography.bib").read_text(encoding="utf-8")
    # One entry title carrying markup, to prove that bibliography text is escaped.
    bib_text = bib_text.replace(
        "title  = {pscl: Classes", "title  = {<img src=x onerror=alert(1)> pscl: Classes"
    )
    (tmp_path / "refs.bib").write_text(bib_text, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "paper.tex")
    ws.add_file(tmp_path / "refs.bib")
    findings = check(ws)
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None and len(bib.entries) == 11
    return build_audit(
        ws,
        findings,
        list(bib.entries),
        verdicts(),
        inputs=("paper.tex",),
        settings=Settings(),
        version="0.1.0",
        root=tmp_path,
        generated=WHEN,
    )


class Collector(HTMLParser):
    """Records tags with attributes and the text of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Collector:
    c = Collector()
    c.feed(page)
    return c


def test_report_sections_and_dashboard(audit: AuditData) -> None:
    page = render_html(audit)
    doc = parse(page)
    ids = {a.get("id") for _, a in doc.tags}
    for section in (
        "dashboard",
        "files",
        "flow",
        "suspicion",
        "audit",
        "citations",
        "references",
        "methodology",
        "defensible",
        "count-dangling",
        "count-orphans",
        "count-duplicates",
    ):
        assert section in ids, section
    text = " ".join(doc.text)
    # Tiers exclude the skipped and the unverified entry (no source answered for it):
    # H=2, E=1, M=1, D=2 -> 100 - 24 - 5 - 2 = 69.
    assert "document score 69 of 100" in page.lower().replace("document score", "document score")
    assert re.search(r'id="defensible">33%<', page)  # 2 of 6
    tiers = {a["data-tier"]: a for t, a in doc.tags if t == "div" and "data-tier" in a}
    assert set(tiers) == {"H", "E", "M", "D"}
    # The paper cites one undefined key; ten entries are cited, one (Zeileis...) is not.
    assert re.search(r'id="count-dangling"><div class="num">1<', page)
    assert re.search(r'id="count-orphans"><div class="num">1<', page)
    assert "Zeileis2008typo" in text
    assert "Checked on" in text and "2026-11-29 12:30" in text


def test_audit_table_has_every_entry_with_sources_and_match(audit: AuditData) -> None:
    page = render_html(audit)
    rows = re.findall(r"<tr id='entry-\d+' class='entry o-([a-z-]+)'>", page)
    assert len(rows) == 11
    assert rows.count("flagged") == 3  # not found, retracted, mismatch without correction
    assert rows.count("corrected") == 2
    assert rows.count("not-verifiable") == 4  # skipped + three entries without a verdict
    assert "crossref, doi, openalex" in page
    assert 'href="https://doi.org/10.1016/0304-4076(86)90002-3"' in page
    assert "refs.bib:26" in page  # file:line of Mullahy1986


def test_everything_is_escaped_and_self_contained(audit: AuditData) -> None:
    page = render_html(audit)
    doc = parse(page)
    tags = {t for t, _ in doc.tags}
    assert "script" not in tags and "img" not in tags and "link" not in tags
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    for _, attrs in doc.tags:
        for name, value in attrs.items():
            assert not name.startswith("on")
            if name in ("href", "src"):
                assert value is not None
                assert value.startswith(("#", "https://")), value
                assert "javascript:" not in value
    assert "url(" not in page and "@import" not in page
    assert "Content-Security-Policy" in page


def test_suspicion_index_is_worst_first(audit: AuditData) -> None:
    ranked = [a.entry.key for a in suspicion_rank(audit.entries)]
    assert ranked == [
        "StasinopoulosRigby2007",  # H, not found
        "McCullaghNelder1989",  # H, retracted
        "ZeileisKleiberJackman2008",  # E
        "Mullahy1986",  # M
    ]
    page = render_html(audit)
    section = page[page.index('id="suspicion"') : page.index('id="audit"')]
    positions = [section.index(k) for k in ranked]
    assert positions == sorted(positions)


def test_flow_counts_and_outcomes(audit: AuditData) -> None:
    counts = flow_counts(audit.entries)
    assert counts[("entries", "matched")] == 5
    assert counts[("matched", Outcome.CORRECTED)] == 2
    assert counts[("matched", Outcome.VERIFIED)] == 1
    assert counts[("matched", Outcome.FLAGGED)] == 2
    assert counts[("no record", Outcome.FLAGGED)] == 1
    assert counts[("could not check", Outcome.UNRESOLVABLE)] == 1
    assert counts[("entries", Outcome.NOT_VERIFIABLE)] == 4
    assert sum(n for (src, _), n in counts.items() if src == "entries") == 11
    assert outcome(EntryAudit(audit.entries[0].entry)) == Outcome.NOT_VERIFIABLE
    page = render_html(audit)
    nodes = set(re.findall(r'data-node="([^"]+)"', page))
    assert {"entries", "matched", "verified", "corrected", "flagged", "unresolvable"} <= nodes


def test_cleaned_reference_list_applies_corrections(audit: AuditData) -> None:
    page = render_html(audit)
    refs = page[page.index('id="references"') : page.index('id="methodology"')]
    assert refs.count("<li class='ref'") == 11
    # Corrected BibTeX, in the entry's own style, with the original kept for comparison.
    assert "pages   = {341--366}" in refs
    assert "pages   = {341--365}" in refs  # the 'as written' copy
    assert "doi       = {10.1017/CBO9781139013567}" in refs
    # A formatted reference (citeproc, Harvard): authors, year, title, italic venue.
    assert re.search(r"Mullahy, J\. \(1986\) .Specification and Testing", refs)
    assert "<i>Journal of Econometrics</i>" in refs
    assert "pp. 341–366" in refs


def test_a_key_defined_twice_is_shown_uncorrected_as_fix_leaves_it(tmp_path: Path) -> None:
    """--fix corrects no key defined more than once in a file (which entry is meant?): the
    cleaned list shows both entries as written, saying why, and formats neither with the
    correction."""
    entry = "@article{a,\n  author = {Smith, John},\n  title = {A Study},\n  pages = {11--21},\n  year = {2020}\n}\n"
    (tmp_path / "refs.bib").write_text(entry + "\n" + entry.replace("{a,", "{A,"), encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    fixed = Verdict("a", Status.MISMATCH, Tier.M, corrections={"pages": "11--20"})
    data = build_audit(ws, check(ws), list(bib.entries), [fixed], generated=WHEN)
    assert [a.not_applied for a in data.entries] == [REPEATED_KEY, ""]  # (A has no verdict)
    page = render_html(data)
    refs = page[page.index('id="references"') : page.index('id="methodology"')]
    assert "11--20" not in refs and "11–20" not in refs
    assert 'badge info">corrected' not in refs
    assert f"not corrected: {REPEATED_KEY}" in refs
    assert outcome(data.entries[0]) == Outcome.FLAGGED  # a mismatch --fix leaves as it is


def test_an_entry_whose_corrections_fix_refuses_is_flagged_not_corrected(tmp_path: Path) -> None:
    entry = "@article{a,\n  author = {Smith, John},\n  title = {A Study},\n  pages = {11--21},\n  year = {2020}\n}\n"
    (tmp_path / "refs.bib").write_text(entry, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    for value, expected in (("11--20\x1b[31m", Outcome.FLAGGED), ("11--20", Outcome.CORRECTED)):
        fixed = Verdict("a", Status.MISMATCH, Tier.M, corrections={"pages": value})
        data = build_audit(ws, check(ws), list(bib.entries), [fixed], generated=WHEN)
        assert outcome(data.entries[0]) == expected
        audit_rows = render_html(data)
        assert ("class='entry o-corrected'" in audit_rows) is (expected == Outcome.CORRECTED)


def test_gauge_geometry() -> None:
    full = gauge_svg(100)
    assert "A 90 90 0 0 1 200.00 110.00" in full
    empty = gauge_svg(0)
    assert "gauge-value" not in empty
    half = gauge_svg(50)
    assert "A 90 90 0 0 1 110.00 20.00" in half


def test_empty_run_renders() -> None:
    page = render_html(AuditData(generated=WHEN))
    assert "No bibliography entries." in page
    assert "0 entries · 0 files" in page
    assert page.rstrip().endswith("</html>")


def test_no_verification_report(tmp_path: Path) -> None:
    (tmp_path / "refs.bib").write_text("@misc{a, title = {T}}\n", encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    data = build_audit(ws, check(ws), list(bib.entries), None, generated=WHEN)
    page = render_html(data)
    assert "Verification was not run" in page
    assert '<svg class="gauge"' not in page


# ----------------------------------------------------------------------------------------
# Headless Chromium
# ----------------------------------------------------------------------------------------


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    profile = tmp_path / "profile"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, timeout=180, check=False)


def test_renders_in_headless_chromium(audit: AuditData, tmp_path: Path) -> None:
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is required for this test (scripts/system-deps installs it)")
    report = tmp_path / "report.html"
    report.write_text(render_html(audit), encoding="utf-8")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "html-report.png"
    shot.unlink(missing_ok=True)
    done = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri())
    assert shot.exists(), done.stderr.decode(errors="replace")[-2000:]
    header = shot.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", header[16:24])
    assert (width, height) == (1280, 2000)
    assert shot.stat().st_size > 20_000  # a real page, not a blank one
    # The DOM after Chromium parsed and laid it out.
    dom = _chromium(tmp_path, "--dump-dom", report.as_uri()).stdout.decode("utf-8")
    assert '<section id="dashboard"' in dom
    assert '<svg class="gauge"' in dom and '<svg class="flow"' in dom
    assert len(re.findall(r'<tr id="entry-\d+"', dom)) == 11
    assert dom.count('<li class="ref"') == 11
    assert "<script>" not in dom.split("</style>", 1)[1]  # escaped text stayed text


def test_prints_to_pdf_in_headless_chromium(audit: AuditData, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(render_html(audit), encoding="utf-8")
    pdf = tmp_path / "report.pdf"
    _chromium(tmp_path, f"--print-to-pdf={pdf}", "--no-pdf-header-footer", report.as_uri())
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", data))
    assert pages >= 2  # the methodology appendix starts on its own page
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(pdf, ARTIFACTS / "html-report.pdf")


def test_links_from_outside_data_are_https_only(tmp_path: Path) -> None:
    """A record's URL and a .bib url field become links only when they are https (as in
    hovers): http, javascript and data URLs are shown as text or not at all; doi.org links
    are https."""
    (tmp_path / "paper.tex").write_text("\\cite{a,b,c,d}\n\\bibliography{refs}\n", encoding="utf-8")
    bib = "".join(
        f"@misc{{{key},\n  title = {{T {key}}},\n  url = {{{url}}},\n}}\n"
        for key, url in (
            ("a", "http://example.org/a"),
            ("b", "javascript:alert(1)"),
            ("c", "data:text/html;base64,PHNjcmlwdD4="),
            ("d", "https://example.org/d"),
        )
    )
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "paper.tex")
    ws.add_file(tmp_path / "refs.bib")
    entries = list(ws.bibliography(tmp_path / "refs.bib").entries)  # type: ignore[union-attr]
    found = [
        Verdict(
            "a", Status.VERIFIED, Tier.D, Match("x", 1.0, title="A", url="http://example.org/a")
        ),
        Verdict(
            "b", Status.VERIFIED, Tier.D, Match("x", 1.0, title="B", url="javascript:alert(1)")
        ),
        Verdict(
            "c",
            Status.VERIFIED,
            Tier.D,
            Match("x", 1.0, title="C", url="data:text/html;base64,PHNjcmlwdD4=", doi="10.1/c"),
        ),
        Verdict(
            "d", Status.VERIFIED, Tier.D, Match("x", 1.0, title="D", url="https://example.org/d")
        ),
    ]
    page = render_html(
        build_audit(
            ws,
            check(ws),
            entries,
            found,
            inputs=("paper.tex",),
            settings=Settings(),
            version="0.1.0",
            root=tmp_path,
            generated=WHEN,
        )
    )
    hrefs = [a["href"] for t, a in parse(page).tags if t == "a" and a.get("href")]
    outside = [h for h in hrefs if h and not h.startswith("#") and "#" not in h[:1]]
    assert "https://example.org/d" in outside and "https://doi.org/10.1/c" in outside
    for href in outside:
        assert href is not None and href.startswith("https://"), href
    assert not any("example.org/a" in (h or "") for h in hrefs)
    assert "javascript:" not in " ".join(h or "" for h in hrefs)
    assert "data:" not in " ".join(h or "" for h in hrefs)
    assert "http://example.org/a" in page  # still shown, as text


def test_a_csl_item_is_shown_corrected_as_fix_writes_it(tmp_path: Path) -> None:
    """A CSL-JSON item with anchored corrections: the cleaned list shows the item as
    --fix would write it (the CSL variables, plain values), the original as written."""
    text = '[\n  {\n    "id": "a",\n    "type": "article-journal",\n    "title": "A Study",\n    "page": "11-21"\n  }\n]\n'
    (tmp_path / "refs.json").write_text(text, encoding="utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.json")
    bib = ws.bibliography(tmp_path / "refs.json")
    assert bib is not None
    fixed = Verdict("a", Status.MISMATCH, Tier.M, corrections={"pages": "11--20", "doi": "10.1/x"})
    data = build_audit(ws, check(ws), list(bib.entries), [fixed], generated=WHEN)
    [row] = data.entries
    assert '"page": "11-20",\n    "DOI": "10.1/x"\n  }' in row.corrected
    page = render_html(data)
    refs = page[page.index('id="references"') : page.index('id="methodology"')]
    assert 'badge info">corrected' in refs and "as written" in refs
    assert "&quot;DOI&quot;: &quot;10.1/x&quot;" in refs


def test_the_corrections_fix_writes_are_found_once_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard, the audit table, the flow chart and the cleaned list each asked for
    the corrections --fix writes (four times an entry); they are found once, when the
    report's data is built, and each shows them as that once found them."""
    from citewarden.fix import run
    from citewarden.report.html import build

    entry = "@article{a,\n  author = {Smith, John},\n  title = {A Study},\n  pages = {11--21},\n  year = {2020}\n}\n"
    (tmp_path / "refs.bib").write_text(entry + "\n" + entry.replace("{a,", "{b,"), "utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    asked: list[str] = []

    def counted(entry: Any, corrections: Any) -> dict[str, str]:
        asked.append(entry.key)
        return run.written_corrections(entry, corrections)

    monkeypatch.setattr(build, "written_corrections", counted, raising=False)
    for module in ("data", "sections", "charts"):
        monkeypatch.setattr(
            f"citewarden.report.html.{module}.written_corrections", counted, raising=False
        )
    fixed = [Verdict(key, Status.MISMATCH, Tier.M, corrections={"pages": "11--20"}) for key in "ab"]
    data = build_audit(ws, check(ws), list(bib.entries), fixed, generated=WHEN)
    page = render_html(data)
    assert sorted(asked) == ["a", "b"]
    assert [outcome(a) for a in data.entries] == [Outcome.CORRECTED] * 2
    refs = page[page.index('id="references"') : page.index('id="methodology"')]
    assert refs.count("pp. 11–20") == 2 and refs.count("pages = {11--20}") == 2


def test_whether_fix_rewrites_a_file_is_found_once_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each entry with corrections asked whether --fix rewrites its file, which counts the
    file's problems: entries times problems for a large bibliography."""
    from citewarden.fix import run
    from citewarden.report.html import build

    entry = "@article{a,\n  title = {A Study},\n  pages = {11--21},\n  year = {2020}\n}\n"
    text = "".join(entry.replace("{a,", f"{{k{i},") for i in range(5))
    (tmp_path / "refs.bib").write_text(text, "utf-8")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    asked: list[Path] = []

    def counted(parsed: Any) -> str | None:
        asked.append(parsed.path)
        return run.file_refusal(parsed)

    monkeypatch.setattr(build, "file_refusal", counted)
    fixed = [
        Verdict(e.key, Status.MISMATCH, Tier.M, corrections={"pages": "11--20"})
        for e in bib.entries
    ]
    data = build_audit(ws, check(ws), list(bib.entries), fixed, generated=WHEN)
    assert len(asked) == 1
    assert [outcome(a) for a in data.entries] == [Outcome.CORRECTED] * 5
