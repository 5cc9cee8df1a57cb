"""The HTML audit report (``citewarden check --format html --output report.html``).

One self-contained file: inline CSS and SVG, no scripts, no fonts or images from the
network, printable.  Sections: executive dashboard (score gauge, tier counts, % defensible,
dangling / orphan / duplicate counts), per-file summary, a flow diagram of how entries moved
through verification, the ranked suspicion index, the per-entry audit table, the citation
index findings, the cleaned reference list (corrected BibTeX and a formatted reference per
entry) and a methodology appendix.  Every piece of text from the user's files or from a
metadata source is HTML-escaped.
"""

from __future__ import annotations

import dataclasses
import html
import math
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from citewarden.context.collect import CitationContext
from citewarden.findings.score import score_summary
from citewarden.model import (
    BibFormat,
    Code,
    Entry,
    Finding,
    Severity,
    Status,
    Tier,
    Verdict,
    code_doc_url,
    document_score,
)
from citewarden.report.contexts import collect as collect_contexts
from citewarden.report.contexts import context_section, venue_html
from citewarden.report.references import STYLE, csl_item, format_references
from citewarden.report.sarif import rule_text
from citewarden.safe_text import visible_lines

if TYPE_CHECKING:
    from citewarden.audit import Audit
    from citewarden.project import Workspace
    from citewarden.settings import Settings

# ----------------------------------------------------------------------------------------
# Input
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EntryAudit:
    """One bibliography entry with its verdict (None when verification did not run)."""

    entry: Entry
    verdict: Verdict | None = None
    line: int = 0  # 1-based line of the entry
    source: str = ""  # the entry as written
    corrected: str = ""  # the entry with its anchored corrections applied ('' = unchanged)
    #: Citation index findings on this entry (orphan, duplicate key ...).
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True, slots=True)
class FileSummary:
    """One input file's row in the summary table."""

    path: Path
    kind: str  # "latex", "markdown", "bibtex", "csl-json" ...
    entries: int = 0
    citations: int = 0
    errors: int = 0
    warnings: int = 0
    notes: int = 0
    score: int | None = None  # for a bibliography whose entries were verified


@dataclass(frozen=True, slots=True)
class Located:
    """A finding with its 1-based line and column, for the citation index table."""

    finding: Finding
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class AuditData:
    """Everything the HTML report shows; built by the command line from one check run."""

    entries: tuple[EntryAudit, ...] = ()
    findings: tuple[Located, ...] = ()
    files: tuple[FileSummary, ...] = ()
    inputs: tuple[str, ...] = ()
    generated: datetime = field(default_factory=lambda: datetime.now().astimezone())
    version: str = ""
    root: Path | None = None
    verification: bool = True
    offline: bool = False
    sources: tuple[str, ...] = ()  # sources configured for the run
    thresholds: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    title: str = "Reference audit"
    #: Every citation's sentence and score (see :mod:`citewarden.report.contexts`).
    contexts: tuple[CitationContext, ...] = ()


# ----------------------------------------------------------------------------------------
# Classification
# ----------------------------------------------------------------------------------------


class Outcome:
    """Where an entry ended in the flow diagram."""

    VERIFIED = "verified"
    CORRECTED = "corrected"
    FLAGGED = "flagged"
    UNRESOLVABLE = "unresolvable"
    NOT_VERIFIABLE = "not verifiable"

    ORDER = (VERIFIED, CORRECTED, FLAGGED, UNRESOLVABLE, NOT_VERIFIABLE)


def outcome(verdict: Verdict | None) -> str:
    """verified / corrected / flagged / unresolvable / not verifiable."""
    if verdict is None or verdict.status is Status.SKIPPED:
        return Outcome.NOT_VERIFIABLE
    if verdict.status is Status.UNVERIFIED:
        return Outcome.UNRESOLVABLE
    if verdict.status in (Status.NOT_FOUND, Status.RETRACTED):
        return Outcome.FLAGGED
    if verdict.corrections:
        return Outcome.CORRECTED
    if verdict.status is Status.MISMATCH or verdict.tier in (Tier.H, Tier.E):
        return Outcome.FLAGGED
    return Outcome.VERIFIED


_TIER_RANK = {Tier.H: 0, Tier.E: 1, Tier.M: 2, Tier.D: 3}
_STATUS_RANK = {
    Status.NOT_FOUND: 0,
    Status.RETRACTED: 1,
    Status.MISMATCH: 2,
    Status.UNVERIFIED: 3,
    Status.VERIFIED: 4,
    Status.SKIPPED: 5,
}


def suspicion_rank(items: Iterable[EntryAudit]) -> list[EntryAudit]:
    """Entries above the defensible tier, worst first.

    Order: tier (H, E, M), then status (not found, retracted, mismatch ...), then the number
    of error-level issues (more first), then the identity score of the match (lower first).
    """

    def key(a: EntryAudit) -> tuple[int, int, int, float, str]:
        v = a.verdict
        assert v is not None
        errors = sum(1 for i in v.issues if i.effective_severity is Severity.ERROR)
        score = v.match.score if v.match is not None else 0.0
        return (_TIER_RANK[v.tier], _STATUS_RANK[v.status], -errors, score, a.entry.key)

    flagged = [a for a in items if a.verdict is not None and a.verdict.tier is not Tier.D]
    return sorted(flagged, key=key)


def tier_counts(items: Iterable[EntryAudit]) -> dict[Tier, int]:
    """Tier counts of the entries the score counts (:mod:`citewarden.findings.score`)."""
    return dict(score_summary(a.verdict for a in items if a.verdict is not None).tiers)


# ----------------------------------------------------------------------------------------
# Small HTML helpers
# ----------------------------------------------------------------------------------------


def esc(value: object) -> str:
    return html.escape(visible_lines(str(value)), quote=True)


def safe_url(url: str | None) -> str | None:
    """``url`` if it is an http(s) URL (never ``javascript:`` and friends), else None."""
    if not url:
        return None
    parsed = urllib.parse.urlsplit(url.strip())
    if parsed.scheme.lower() not in ("http", "https") or not parsed.netloc:
        return None
    return url.strip()


def doi_url(doi: str) -> str:
    return "https://doi.org/" + urllib.parse.quote(doi, safe="/:;()._-<>[]")


def _link(url: str | None, text: str) -> str:
    ok = safe_url(url)
    if ok is None:
        return esc(text)
    return f'<a href="{esc(ok)}" rel="noreferrer noopener">{esc(text)}</a>'


_STATUS_CLASS = {
    Status.VERIFIED: "ok",
    Status.MISMATCH: "warn",
    Status.NOT_FOUND: "bad",
    Status.RETRACTED: "bad",
    Status.UNVERIFIED: "muted",
    Status.SKIPPED: "muted",
}
_TIER_LABEL = {Tier.H: "high", Tier.E: "elevated", Tier.M: "moderate", Tier.D: "defensible"}
_SEVERITY_CLASS = {
    Severity.ERROR: "bad",
    Severity.WARNING: "warn",
    Severity.INFORMATION: "info",
    Severity.HINT: "muted",
}


def _status_badge(verdict: Verdict | None) -> str:
    if verdict is None:
        return '<span class="badge muted">not checked</span>'
    cls = _STATUS_CLASS[verdict.status]
    return f'<span class="badge {cls}">{esc(verdict.status.value.replace("_", " "))}</span>'


def _tier_badge(verdict: Verdict | None) -> str:
    if verdict is None:
        return '<span class="tier none">–</span>'
    t = verdict.tier
    return f'<span class="tier t{t.value}" title="{_TIER_LABEL[t]}">{t.value}</span>'


def _code_link(code: Code) -> str:
    return f'<a class="code" href="{esc(code_doc_url(code))}">{esc(code.value)}</a>'


def _rel(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


# ----------------------------------------------------------------------------------------
# SVG: score gauge and flow diagram
# ----------------------------------------------------------------------------------------


def score_colour(score: int) -> str:
    if score >= 90:
        return "#1a7f37"
    if score >= 70:
        return "#b35900"
    return "#c62828"


def gauge_svg(score: int) -> str:
    """A half-circle gauge from 0 to 100 with the score in the middle."""
    score = max(0, min(100, score))
    cx, cy, r = 110, 110, 90
    angle = math.pi * (1 - score / 100)
    x = cx + r * math.cos(angle)
    y = cy - r * math.sin(angle)
    colour = score_colour(score)
    value_arc = ""
    if score > 0:
        value_arc = (
            f'<path class="gauge-value" d="M {cx - r} {cy} A {r} {r} 0 0 1 {x:.2f} {y:.2f}" '
            f'stroke="{colour}" stroke-width="18" fill="none" stroke-linecap="butt"/>'
        )
    return (
        f'<svg class="gauge" viewBox="0 0 220 130" width="220" height="130" role="img" '
        f'aria-label="Document score {score} of 100">'
        f"<title>Document score {score} of 100</title>"
        f'<path d="M {cx - r} {cy} A {r} {r} 0 0 1 {cx + r} {cy}" stroke="#e3e6ea" '
        f'stroke-width="18" fill="none"/>'
        f"{value_arc}"
        f'<text x="{cx}" y="{cy - 12}" text-anchor="middle" class="gauge-score" '
        f'fill="{colour}">{score}</text>'
        f'<text x="{cx}" y="{cy + 14}" text-anchor="middle" class="gauge-label">of 100</text>'
        f'<text x="{cx - r}" y="{cy + 16}" text-anchor="middle" class="gauge-tick">0</text>'
        f'<text x="{cx + r}" y="{cy + 16}" text-anchor="middle" class="gauge-tick">100</text>'
        "</svg>"
    )


_FLOW_COLOUR = {
    "entries": "#57606a",
    "matched": "#0969da",
    "no record": "#c62828",
    "could not check": "#8c959f",
    Outcome.VERIFIED: "#1a7f37",
    Outcome.CORRECTED: "#0969da",
    Outcome.FLAGGED: "#c62828",
    Outcome.UNRESOLVABLE: "#8c959f",
    Outcome.NOT_VERIFIABLE: "#afb8c1",
}


def flow_counts(items: Sequence[EntryAudit]) -> dict[tuple[str, str], int]:
    """Links of the flow diagram: (from, to) -> number of entries."""
    links: Counter[tuple[str, str]] = Counter()
    for a in items:
        v = a.verdict
        end = outcome(v)
        if end == Outcome.NOT_VERIFIABLE:
            links[("entries", Outcome.NOT_VERIFIABLE)] += 1
        elif end == Outcome.UNRESOLVABLE:
            links[("entries", "could not check")] += 1
            links[("could not check", Outcome.UNRESOLVABLE)] += 1
        elif v is not None and v.status is Status.NOT_FOUND:
            links[("entries", "no record")] += 1
            links[("no record", Outcome.FLAGGED)] += 1
        else:
            links[("entries", "matched")] += 1
            links[("matched", end)] += 1
    return dict(links)


def flow_svg(items: Sequence[EntryAudit]) -> str:
    """A three-column flow (Sankey) diagram: entries -> checked how -> outcome."""
    links = flow_counts(items)
    total = len(items)
    columns: list[list[str]] = [
        ["entries"],
        ["matched", "no record", "could not check"],
        list(Outcome.ORDER),
    ]
    value: Counter[str] = Counter()
    value["entries"] = total
    for (_src, dst), n in links.items():
        value[dst] += n
    width, height, top, node_w, gap = 760, 300, 28, 16, 16
    xs = [20, 330, 600]
    usable = height - top - 10
    min_h = 3.0
    shown = [[n for n in col if ci != 1 or value[n] > 0] for ci, col in enumerate(columns)]
    # The scale that lets the fullest column fit: gaps and minimum heights come first.
    scale = 0.0
    if total:
        scale = min(
            (usable - gap * (len(col) - 1) - min_h * sum(1 for n in col if value[n] == 0)) / total
            for col in shown
        )
    pos: dict[str, tuple[float, float, float]] = {}  # name -> (x, y, h)
    for ci, col in enumerate(shown):
        y = float(top)
        for name in col:
            h = max(min_h, value[name] * scale) if value[name] else min_h
            pos[name] = (xs[ci], y, h)
            y += h + gap
    parts = [
        f'<svg class="flow" viewBox="0 0 {width} {height}" width="100%" role="img" '
        'aria-label="How entries moved through verification">'
        "<title>How entries moved through verification</title>"
    ]
    out_offset: dict[str, float] = dict.fromkeys(pos, 0.0)
    in_offset: dict[str, float] = dict.fromkeys(pos, 0.0)
    order = {name: i for i, name in enumerate(c for col in columns for c in col)}
    for (src, dst), n in sorted(links.items(), key=lambda kv: (order[kv[0][0]], order[kv[0][1]])):
        if n == 0 or src not in pos or dst not in pos:
            continue
        sx, sy, _ = pos[src]
        dx, dy, _ = pos[dst]
        band = max(1.0, n * scale)
        y0 = sy + out_offset[src]
        y1 = dy + in_offset[dst]
        out_offset[src] += band
        in_offset[dst] += band
        x0, x1 = sx + node_w, dx
        mid = (x0 + x1) / 2
        d = (
            f"M {x0} {y0:.1f} C {mid} {y0:.1f} {mid} {y1:.1f} {x1} {y1:.1f} "
            f"L {x1} {y1 + band:.1f} C {mid} {y1 + band:.1f} {mid} {y0 + band:.1f} {x0} "
            f"{y0 + band:.1f} Z"
        )
        parts.append(
            f'<path class="flow-link" d="{d}" fill="{_FLOW_COLOUR[dst]}" fill-opacity="0.28">'
            f"<title>{esc(src)} → {esc(dst)}: {n}</title></path>"
        )
    for name, (x, y, h) in pos.items():
        colour = _FLOW_COLOUR[name]
        parts.append(
            f'<rect class="flow-node" data-node="{esc(name)}" x="{x}" y="{y:.1f}" '
            f'width="{node_w}" height="{h:.1f}" fill="{colour}"/>'
        )
        label = f"{name} ({value[name]})"
        if x == xs[0]:  # the first column's label sits above its node
            tx, ty = x, y - 8
        else:
            tx, ty = x + node_w + 6, y + h / 2 + 4
        parts.append(f'<text x="{tx}" y="{ty:.1f}" class="flow-label">{esc(label)}</text>')
    parts.append("</svg>")
    return "".join(parts)


# ----------------------------------------------------------------------------------------
# Sections
# ----------------------------------------------------------------------------------------


def _count_codes(findings: Iterable[Located], *codes: Code) -> int:
    wanted = set(codes)
    return sum(1 for f in findings if f.finding.code in wanted)


def _dashboard(data: AuditData) -> str:
    tiers = tier_counts(data.entries)
    checked = sum(tiers.values())
    score = document_score(tiers)
    defensible = 100.0 * tiers[Tier.D] / checked if checked else 0.0
    outcomes = Counter(outcome(a.verdict) for a in data.entries)
    dangling = _count_codes(data.findings, Code.DANGLING)
    orphans = _count_codes(data.findings, Code.ORPHAN)
    duplicates = _count_codes(data.findings, Code.DUPLICATE_KEY, Code.DUPLICATE_WORK)
    tier_cards = "".join(
        f'<div class="card tier-card t{t.value}" data-tier="{t.value}">'
        f'<div class="num">{tiers[t]}</div><div class="lbl">{t.value} · {_TIER_LABEL[t]}</div>'
        "</div>"
        for t in Tier
    )
    if data.verification and checked:
        gauge = gauge_svg(score)
        defensible_html = f'<div class="num" id="defensible">{defensible:.0f}%</div>'
    else:
        gauge = '<p class="note">Verification was not run; no score.</p>'
        defensible_html = '<div class="num" id="defensible">–</div>'
    index_cards = "".join(
        f'<div class="card index-card {"bad" if n else "ok"}" id="count-{ident}">'
        f'<div class="num">{n}</div><div class="lbl">{label}</div></div>'
        for ident, label, n in (
            ("dangling", "dangling keys", dangling),
            ("orphans", "orphan entries", orphans),
            ("duplicates", "duplicates", duplicates),
        )
    )
    outcome_list = "".join(
        f"<li><span>{esc(o)}</span> <b>{outcomes.get(o, 0)}</b></li>" for o in Outcome.ORDER
    )
    return (
        '<section id="dashboard" class="dashboard">'
        "<h2>Summary</h2>"
        '<div class="dash-grid">'
        f'<div class="card gauge-card">{gauge}<div class="lbl">document score '
        "(100 − 12·H − 5·E − 2·M)</div></div>"
        f'<div class="tiers">{tier_cards}'
        f'<div class="card">{defensible_html}<div class="lbl">defensible</div></div></div>'
        f'<div class="index-cards">{index_cards}'
        f'<div class="card outcomes"><div class="lbl">{len(data.entries)} entries</div>'
        f'<ul class="outcome-list">{outcome_list}</ul></div></div>'
        "</div></section>"
    )


def _files_table(data: AuditData) -> str:
    if not data.files:
        return ""
    rows = []
    for f in data.files:
        score = "–" if f.score is None else str(f.score)
        rows.append(
            f"<tr><td class='path'>{esc(_rel(f.path, data.root))}</td><td>{esc(f.kind)}</td>"
            f"<td class='n'>{f.entries}</td><td class='n'>{f.citations}</td>"
            f"<td class='n'>{f.errors}</td><td class='n'>{f.warnings}</td>"
            f"<td class='n'>{f.notes}</td><td class='n'>{score}</td></tr>"
        )
    return (
        '<section id="files"><h2>Files</h2>'
        '<table class="files"><thead><tr><th>File</th><th>Kind</th><th>Entries</th>'
        "<th>Citations</th><th>Errors</th><th>Warnings</th><th>Notes</th><th>Score</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></section>"
    )


def _flow_section(data: AuditData) -> str:
    if not data.verification:
        body = '<p class="note">Verification was not run (<code>--no-verify</code>).</p>'
    elif not data.entries:
        body = '<p class="note">No bibliography entries.</p>'
    else:
        body = flow_svg(data.entries)
    return (
        '<section id="flow"><h2>How entries moved through verification</h2>'
        f"{body}"
        '<p class="legend">Matched: a record agreeing on identifier, or on title and authors. '
        "No record: every source answered and none matches. Could not check: a source did "
        "not answer (offline, rate limited, errors) — never counted as fabricated. Not "
        "verifiable: web pages, software and entries excluded by the user.</p></section>"
    )


def _issues_html(a: EntryAudit) -> str:
    items = []
    if a.verdict is not None:
        for issue in a.verdict.issues:
            cls = _SEVERITY_CLASS[issue.effective_severity]
            fld = f" <span class='field'>[{esc(issue.field)}]</span>" if issue.field else ""
            items.append(
                f"<li class='{cls}'>{_code_link(issue.code)}{fld} {esc(issue.message)}</li>"
            )
        if a.verdict.reason:
            items.append(f"<li class='muted'>{esc(a.verdict.reason)}</li>")
    for f in a.findings:
        cls = _SEVERITY_CLASS[f.effective_severity]
        items.append(f"<li class='{cls}'>{_code_link(f.code)} {esc(f.message)}</li>")
    return f"<ul class='issues'>{''.join(items)}</ul>" if items else "–"


def _match_html(verdict: Verdict | None) -> str:
    if verdict is None or verdict.match is None:
        return "–"
    m = verdict.match
    bits = []
    if m.title:
        target = m.url if safe_url(m.url) else (doi_url(m.doi) if m.doi else None)
        bits.append(f"<div class='m-title'>{_link(target, m.title)}</div>")
    meta = []
    if m.authors:
        names = ", ".join(m.authors[:3]) + (" et al." if len(m.authors) > 3 else "")
        meta.append(esc(names))
    if m.year:
        meta.append(esc(m.year))
    if m.venue:
        meta.append(f"<i>{esc(m.venue)}</i>")
    if meta:
        bits.append(f"<div class='m-meta'>{' · '.join(meta)}</div>")
    if m.doi:
        bits.append(f"<div class='m-doi'>{_link(doi_url(m.doi), 'doi:' + m.doi)}</div>")
    bits.append(f"<div class='m-src'>{esc(m.source)} · identity {m.score:.2f}</div>")
    bits.append(venue_html(verdict.venue))
    return "".join(bits)


def _entry_label(a: EntryAudit, data: AuditData) -> str:
    where = _rel(a.entry.path, data.root) + (f":{a.line}" if a.line else "")
    return f"<div class='key'>{esc(a.entry.key)}</div><div class='where'>{esc(where)}</div>"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _anchor(i: int) -> str:
    return f"entry-{i}"


def _suspicion_section(data: AuditData, anchors: Mapping[int, str]) -> str:
    ranked = suspicion_rank(data.entries)
    if not data.verification:
        body = '<p class="note">Verification was not run.</p>'
    elif not ranked:
        body = '<p class="note ok">No entry is above the defensible tier.</p>'
    else:
        rows = []
        for n, a in enumerate(ranked, 1):
            v = a.verdict
            assert v is not None
            first = v.issues[0].message if v.issues else (v.reason or "")
            rows.append(
                f"<tr><td class='n'>{n}</td><td>{_tier_badge(v)}</td>"
                f"<td><a href='#{anchors[id(a)]}'>{esc(a.entry.key)}</a></td>"
                f"<td>{_status_badge(v)}</td><td>{esc(first)}</td></tr>"
            )
        body = (
            "<table class='suspicion'><thead><tr><th>#</th><th>Tier</th><th>Entry</th>"
            f"<th>Status</th><th>Main reason</th></tr></thead><tbody>{''.join(rows)}"
            "</tbody></table>"
        )
    return f'<section id="suspicion"><h2>Suspicion index (worst first)</h2>{body}</section>'


def _audit_section(data: AuditData, anchors: Mapping[int, str]) -> str:
    rows = []
    for a in data.entries:
        v = a.verdict
        sources = ", ".join(v.sources) if v is not None and v.sources else "–"
        rows.append(
            f"<tr id='{anchors[id(a)]}' class='entry o-{outcome(v).replace(' ', '-')}'>"
            f"<td>{_entry_label(a, data)}</td><td>{_status_badge(v)}</td>"
            f"<td>{_tier_badge(v)}</td><td>{_issues_html(a)}</td>"
            f"<td class='sources'>{esc(sources)}</td><td>{_match_html(v)}</td></tr>"
        )
    if not rows:
        return '<section id="audit"><h2>Audit of every entry</h2><p>No entries.</p></section>'
    return (
        '<section id="audit"><h2>Audit of every entry</h2>'
        "<table class='audit'><thead><tr><th>Entry</th><th>Status</th><th>Tier</th>"
        "<th>Findings</th><th>Sources consulted</th><th>Matched record</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></section>"
    )


def _index_section(data: AuditData) -> str:
    index_codes = {
        Code.DANGLING,
        Code.ORPHAN,
        Code.DUPLICATE_KEY,
        Code.DUPLICATE_FIELD,
        Code.DUPLICATE_WORK,
        Code.MISSING_BIBLIOGRAPHY,
        Code.MISSING_INCLUDE,
        Code.EMPTY_KEY,
        Code.BIB_SYNTAX,
        Code.UNDEFINED_STRING,
        Code.MISSING_CROSSREF,
        Code.FILE_ENCODING,
        Code.FILE_UNREADABLE,
        Code.YAML_SYNTAX,
        Code.BIB_OUTSIDE_ROOT,
    }
    shown = [f for f in data.findings if f.finding.code in index_codes]
    if not shown:
        body = '<p class="note ok">No dangling keys, orphans, duplicates or file problems.</p>'
    else:
        rows = []
        for loc in sorted(shown, key=lambda x: (str(x.finding.location.path), x.line, x.column)):
            f = loc.finding
            where = f"{_rel(f.location.path, data.root)}:{loc.line}:{loc.column}"
            cls = _SEVERITY_CLASS[f.effective_severity]
            rows.append(
                f"<tr class='{cls}'><td class='path'>{esc(where)}</td>"
                f"<td>{esc(f.effective_severity.label)}</td><td>{_code_link(f.code)}</td>"
                f"<td>{esc(f.message)}</td></tr>"
            )
        body = (
            "<table class='index'><thead><tr><th>Where</th><th>Severity</th><th>Code</th>"
            f"<th>Message</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    return f'<section id="citations"><h2>Citation index</h2>{body}</section>'


def _references_section(data: AuditData, anchors: Mapping[int, str]) -> str:
    if not data.entries:
        return ""
    items = []
    for i, a in enumerate(data.entries):
        corrections = a.verdict.corrections if a.verdict is not None else {}
        item = csl_item(a.entry, corrections)
        item["id"] = f"r{i}"
        items.append(item)
    formatted = format_references(items)
    rows = []
    for i, a in enumerate(data.entries):
        changed = bool(a.corrected) and a.corrected != a.source
        bibtex = a.corrected if changed else a.source
        mark = '<span class="badge info">corrected</span> ' if changed else ""
        label = "BibTeX" if a.source.lstrip().startswith("@") else "Source"
        original = ""
        if changed:
            original = (
                "<details class='orig'><summary>as written</summary>"
                f"<pre>{esc(a.source)}</pre></details>"
            )
        rows.append(
            f"<li class='ref' id='ref-{i}'><div class='formatted'>{mark}"
            f"{formatted.get(f'r{i}', esc(a.entry.key))} "
            f"<a class='back' href='#{anchors[id(a)]}'>[{esc(a.entry.key)}]</a></div>"
            f"<details class='bib'{' open' if changed else ''}><summary>{label}</summary>"
            f"<pre>{esc(bibtex)}</pre></details>{original}</li>"
        )
    return (
        '<section id="references"><h2>Cleaned reference list</h2>'
        f"<p class='note'>Anchored corrections applied; formatted with the "
        f"{esc(STYLE)} style.</p>"
        f"<ol class='refs'>{''.join(rows)}</ol></section>"
    )


def _methodology(data: AuditData) -> str:
    sources_used = sorted({s for a in data.entries if a.verdict for s in a.verdict.sources})
    configured = ", ".join(data.sources) if data.sources else "–"
    thresholds = "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in data.thresholds.items()
    )
    codes = "".join(f"<tr><td>{_code_link(c)}</td><td>{esc(rule_text(c))}</td></tr>" for c in Code)
    mode = "offline (cache and snapshot only)" if data.offline else "online"
    if not data.verification:
        mode = "citation index only (verification not run)"
    return (
        '<section id="methodology" class="appendix"><h2>Methodology</h2>'
        f"<p>Checked on <time datetime='{esc(data.generated.isoformat())}'>"
        f"{esc(data.generated.strftime('%Y-%m-%d %H:%M %Z').strip())}</time> with citewarden "
        f"{esc(data.version)}; mode: {esc(mode)}.</p>"
        f"<p>Inputs: {esc(', '.join(data.inputs) or '–')}.</p>"
        "<h3>Sources</h3>"
        f"<p>Configured: {esc(configured)}. Consulted in this run: "
        f"{esc(', '.join(sources_used) or '–')}.</p>"
        "<p>Each entry is looked up by identifier first (DOI, arXiv id, ISBN, PMID), then by a "
        "fielded bibliographic search. A search hit is only a candidate: it counts as a match "
        "when it agrees on the identifier, or on both title and authors. Fields are then "
        "compared one by one. A correction is offered only for an anchored match, one field "
        "at a time, and never title and authors at once.</p>"
        + (f"<h3>Thresholds</h3><table class='kv'>{thresholds}</table>" if thresholds else "")
        + "<h3>Statuses</h3><ul>"
        "<li><b>verified</b>: a record agrees with the entry.</li>"
        "<li><b>mismatch</b>: a real work, some fields wrong (with corrections).</li>"
        "<li><b>not found</b>: every source answered and nothing matches.</li>"
        "<li><b>retracted</b>: the work was retracted.</li>"
        "<li><b>unverified</b>: coverage incomplete (offline, rate limited, errors); never "
        "reported as fabricated or as verified.</li>"
        "<li><b>skipped</b>: not verifiable (web page, software) or excluded by the user.</li>"
        "</ul><h3>Risk tiers and score</h3><ul>"
        "<li><b>H</b> (high): likely fabricated or manipulated.</li>"
        "<li><b>E</b> (elevated): a serious discrepancy with the matched record.</li>"
        "<li><b>M</b> (moderate): minor discrepancies or incomplete coverage.</li>"
        "<li><b>D</b> (defensible): nothing to object to.</li></ul>"
        "<p>Document score = 100 − 12·H − 5·E − 2·M, floored at 0. "
        "Defensible share = D entries / verified-or-checked entries.</p>"
        f"<h3>Finding codes</h3><table class='codes'>{codes}</table>"
        "</section>"
    )


_CSS = """
:root { --fg:#1f2328; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --soft:#f6f8fa;
  --ok:#1a7f37; --warn:#9a6700; --bad:#c62828; --info:#0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial,
  "Noto Sans", "Liberation Sans", sans-serif; color: var(--fg); background: var(--bg);
  margin: 0; }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; border-bottom: 1px solid var(--line); }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 10px; border-bottom: 1px solid var(--line);
  padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.sub { color: var(--muted); margin: 0 0 12px; }
nav { margin: 8px 0 12px; }
nav a { margin-right: 14px; color: var(--info); text-decoration: none; }
a { color: var(--info); }
.dash-grid { display: grid; grid-template-columns: 240px 1fr; gap: 14px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px;
  background: var(--soft); }
.card .num { font-size: 26px; font-weight: 700; }
.card .lbl { color: var(--muted); font-size: 12px; }
.gauge-card { grid-row: span 2; text-align: center; background: var(--bg); }
.gauge-score { font-size: 40px; font-weight: 700; }
.gauge-label, .gauge-tick { font-size: 12px; fill: #57606a; }
.tiers, .index-cards { display: grid; grid-template-columns: repeat(5, 1fr); gap: 10px; }
.index-cards { grid-template-columns: repeat(3, 1fr) 2fr; }
.tier-card.tH .num { color: var(--bad); } .tier-card.tE .num { color: #b35900; }
.tier-card.tM .num { color: var(--warn); } .tier-card.tD .num { color: var(--ok); }
.index-card.bad .num { color: var(--bad); } .index-card.ok .num { color: var(--ok); }
.outcome-list { list-style: none; margin: 4px 0 0; padding: 0; columns: 2; }
.outcome-list li { display: flex; justify-content: space-between; gap: 8px;
  padding-right: 14px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left;
  vertical-align: top; }
thead th { background: var(--soft); font-size: 12px; text-transform: uppercase;
  letter-spacing: .03em; color: var(--muted); }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
td.path, .where { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas,
  "Liberation Mono", monospace; font-size: 12px; color: var(--muted); word-break: break-all; }
.key { font-family: ui-monospace, Menlo, Consolas, "Liberation Mono", monospace;
  font-weight: 600; overflow-wrap: anywhere; }
table.audit td:first-child { min-width: 190px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.badge.ok, li.ok, .note.ok { color: var(--ok); } .badge.warn, li.warn { color: var(--warn); }
.badge.bad, li.bad { color: var(--bad); } .badge.info, li.info { color: var(--info); }
.badge.muted, li.muted { color: var(--muted); }
.tier { display: inline-block; width: 24px; height: 24px; line-height: 24px;
  text-align: center; border-radius: 50%; color: #fff; font-weight: 700; }
.tier.tH { background: var(--bad); } .tier.tE { background: #d1661a; }
.tier.tM { background: #bf8700; } .tier.tD { background: var(--ok); }
.tier.none { background: #d0d7de; color: var(--muted); }
ul.issues { margin: 0; padding-left: 16px; } ul.issues li { margin: 2px 0; }
ul.issues li span.field { color: var(--muted); }
a.code { font-family: ui-monospace, Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12px; }
.sources { color: var(--muted); font-size: 12px; }
.m-title { font-weight: 600; } .m-meta, .m-src, .m-doi { font-size: 12px; color: var(--muted); }
tr.o-flagged td:first-child { border-left: 4px solid var(--bad); }
tr.o-corrected td:first-child { border-left: 4px solid var(--info); }
tr.o-verified td:first-child { border-left: 4px solid var(--ok); }
tr.o-unresolvable td:first-child, tr.o-not-verifiable td:first-child {
  border-left: 4px solid #afb8c1; }
svg.flow { max-width: 900px; display: block; }
.flow-label { font-size: 12px; fill: #1f2328; paint-order: stroke; stroke: #fff;
  stroke-width: 3px; stroke-linejoin: round; }
.legend, .note { color: var(--muted); font-size: 13px; }
ol.refs li { margin: 8px 0; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px;
  padding: 8px; overflow-x: auto; font-size: 12px; white-space: pre-wrap;
  word-break: break-word; }
details summary { cursor: pointer; color: var(--muted); font-size: 12px; }
table.kv th { width: 30%; text-transform: none; font-size: 13px; }
footer { max-width: 1200px; margin: 30px auto; padding: 0 24px; color: var(--muted);
  font-size: 12px; }
@media print {
  @page { size: A4; margin: 14mm; }
  body { font-size: 10.5pt; }
  nav { display: none; }
  header, main, footer { max-width: none; padding: 0; }
  a { color: inherit; text-decoration: none; }
  .card, pre { background: #fff; }
  tr, li.ref, .card, svg { break-inside: avoid; page-break-inside: avoid; }
  h2 { break-after: avoid; page-break-after: avoid; }
  section#methodology { break-before: page; page-break-before: always; }
  details > summary { display: none; }
  details > pre { display: block; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
@media screen and (max-width: 800px) {
  .dash-grid { grid-template-columns: 1fr; }
  .tiers, .index-cards { grid-template-columns: repeat(2, 1fr); }
}
"""


def render_html(data: AuditData) -> str:
    """The whole report as one HTML document."""
    anchors = {id(a): _anchor(i) for i, a in enumerate(data.entries)}
    when = data.generated.strftime("%Y-%m-%d %H:%M %Z").strip()
    nav = (
        "<nav><a href='#dashboard'>Summary</a><a href='#files'>Files</a>"
        "<a href='#flow'>Flow</a><a href='#suspicion'>Suspicion index</a>"
        "<a href='#audit'>Entries</a><a href='#citations'>Citation index</a>"
        "<a href='#references'>References</a>"
        + ("<a href='#context'>Citation context</a>" if data.contexts else "")
        + "<a href='#methodology'>Methodology</a></nav>"
    )
    body = "".join(
        (
            _dashboard(data),
            _files_table(data),
            _flow_section(data),
            _suspicion_section(data, anchors),
            _audit_section(data, anchors),
            _index_section(data),
            _references_section(data, anchors),
            context_section(data.contexts, data.root),
            _methodology(data),
        )
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="generator" content="citewarden">'
        f"<title>{esc(data.title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{esc(data.title)}</h1>"
        f"<p class='sub'>{_plural(len(data.entries), 'entry', 'entries')} · "
        f"{_plural(len(data.files), 'file', 'files')} · "
        f"checked {esc(when)}</p>{nav}</header>"
        f"<main>{body}</main>"
        f"<footer>citewarden {esc(data.version)} · {esc(when)}</footer>"
        "</body></html>\n"
    )


# ----------------------------------------------------------------------------------------
# Building the report data from a check run
# ----------------------------------------------------------------------------------------

#: Codes of the citation index that belong to one entry (shown in its audit row).
_ENTRY_CODES = frozenset(
    {Code.ORPHAN, Code.DUPLICATE_KEY, Code.DUPLICATE_FIELD, Code.DUPLICATE_WORK}
)


def default_thresholds() -> dict[str, str]:
    """The matching thresholds of the verification engine, as shown in the appendix."""
    out: dict[str, str] = {}
    try:
        from citewarden.verify.compare import TITLE_NEAR
    except ImportError:  # verification not installed
        return out
    out["Same work by title"] = (
        f"normalised title similarity ≥ {TITLE_NEAR:.2f} (below 1.00: a near-miss title)"
    )
    out["Authors"] = "compared by surname; the first author must match"
    out["Year"] = "from the issued / print date; ±1 year is a note, not an error"
    out["Volume, issue, pages"] = "exact; swapped digits are named"
    out["Corrections"] = (
        "only when identity is anchored (identifier agrees, or title and authors agree)"
    )
    return out


def _kind_of(ws: Workspace, path: Path) -> str:
    doc = ws.document(path)
    if doc is not None:
        return doc.kind.value
    bib = ws.bibliography(path)
    if bib is not None:
        return bib.format.value
    return path.suffix.lstrip(".") or "file"


def file_summaries(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    verdicts: Mapping[str, Verdict],
    entries: Sequence[Entry],
) -> list[FileSummary]:
    """One summary row per reported file (score only for a bibliography with verdicts)."""
    files: list[FileSummary] = []
    for path in sorted(findings):
        counts = Counter(f.effective_severity for f in findings[path])
        doc = ws.document(path)
        bib = ws.bibliography(path)
        checked = [
            EntryAudit(e, verdicts[e.key]) for e in entries if e.path == path and e.key in verdicts
        ]
        score = document_score(tier_counts(checked)) if checked else None
        files.append(
            FileSummary(
                path=path,
                kind=_kind_of(ws, path),
                entries=len(bib.entries) if bib is not None else 0,
                citations=len(doc.citations) if doc is not None else 0,
                errors=counts[Severity.ERROR],
                warnings=counts[Severity.WARNING],
                notes=counts[Severity.INFORMATION] + counts[Severity.HINT],
                score=score,
            )
        )
    return files


def summary_table(files: Sequence[FileSummary], display: Callable[[Path], str] = str) -> str:
    """The per-file summary as a plain-text table (for batch runs on a terminal)."""
    head = ("file", "kind", "entries", "citations", "errors", "warnings", "notes", "score")
    rows = [
        (
            display(f.path),
            f.kind,
            str(f.entries),
            str(f.citations),
            str(f.errors),
            str(f.warnings),
            str(f.notes),
            "-" if f.score is None else str(f.score),
        )
        for f in files
    ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [
            c.rjust(w) if i > 1 else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            if i
        ]
        return "  ".join([first, *rest]).rstrip()

    return "\n".join([line(head), *(line(r) for r in rows)]) + "\n"


def build_audit(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    entries: Sequence[Entry],
    verdicts: Sequence[Verdict] | Mapping[str, Verdict] | None,
    *,
    inputs: Sequence[str] = (),
    settings: Settings | None = None,
    version: str = "",
    root: Path | None = None,
    generated: datetime | None = None,
) -> AuditData:
    """Collect what the HTML report shows from one ``citewarden check`` run.

    ``findings`` are the reported findings by file (verification findings included),
    ``entries`` the bibliography entries in scope, ``verdicts`` their verdicts (None when
    verification did not run).
    """
    from citewarden.fix import corrected_entry

    if isinstance(verdicts, Mapping):
        by_key: dict[str, Verdict] = dict(verdicts)
    else:
        by_key = {v.key: v for v in verdicts or ()}
    located: list[Located] = []
    entry_findings: dict[tuple[Path, int], list[Finding]] = {}
    starts: dict[Path, list[tuple[int, int]]] = {}
    for e in entries:
        starts.setdefault(e.path, []).append((e.span.start, e.span.end))
    for path, items in findings.items():
        index = ws.line_index(path)
        for f in items:
            line = column = 1
            if index is not None:
                pos = index.position(f.location.span.start)
                line, column = pos.line + 1, pos.column + 1
            located.append(Located(f, line, column))
            if f.code in _ENTRY_CODES:
                for start, end in starts.get(f.location.path, ()):
                    if start <= f.location.span.start < end:
                        entry_findings.setdefault((f.location.path, start), []).append(f)
                        break
    rows: list[EntryAudit] = []
    for e in entries:
        text = ws.text(e.path) or ""
        index = ws.line_index(e.path)
        line = index.position(e.span.start).line + 1 if index is not None else 0
        verdict = by_key.get(e.key)
        source = text[e.span.start : e.span.end]
        corrected = ""
        parsed = ws.bibliography(e.path)
        bibtex = parsed is not None and parsed.format is BibFormat.BIBTEX
        if verdict is not None and verdict.corrections and text and bibtex:
            corrected = corrected_entry(text, e, verdict.corrections)[0]
        rows.append(
            EntryAudit(
                entry=e,
                verdict=verdict,
                line=line,
                source=source,
                corrected=corrected,
                findings=tuple(entry_findings.get((e.path, e.span.start), ())),
            )
        )
    files = file_summaries(ws, findings, by_key, entries)
    verify = settings.verify if settings is not None else None
    return AuditData(
        entries=tuple(rows),
        findings=tuple(located),
        files=tuple(files),
        inputs=tuple(inputs),
        generated=generated or datetime.now().astimezone(),
        version=version,
        root=root,
        verification=verdicts is not None,
        offline=bool(verify and verify.offline),
        sources=tuple(verify.sources) if verify is not None else (),
        thresholds=default_thresholds() if verdicts is not None else {},
    )


def html_page(
    ws: Workspace,
    findings: Mapping[Path, Sequence[Finding]],
    entries: Sequence[Entry],
    verdicts: Sequence[Verdict] | Mapping[str, Verdict] | None,
    *,
    inputs: Sequence[str] = (),
    settings: Settings | None = None,
    root: Path | None = None,
    contexts: Sequence[CitationContext] | None = None,
) -> str:
    """The HTML report of one ``citewarden check`` run (what ``--format html`` writes);
    ``contexts`` are the citations' contexts (collected here when not given)."""
    from citewarden import __version__

    data = build_audit(
        ws,
        findings,
        entries,
        verdicts,
        inputs=inputs,
        settings=settings,
        version=__version__,
        root=root,
    )
    if contexts is None:
        contexts = collect_contexts(ws, findings, entries, verdicts)
    return render_html(dataclasses.replace(data, contexts=tuple(contexts)))


def html_of(audit: Audit, *, inputs: Sequence[str] = (), root: Path | None = None) -> str:
    """The HTML report of an audit."""
    return html_page(
        audit.workspace,
        audit.findings,
        audit.entries,
        audit.verdict_map() if audit.verdicts is not None else None,
        inputs=inputs,
        settings=audit.settings,
        root=root,
        contexts=audit.contexts,
    )
