"""The sections of the HTML report, each rendered from the report data."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

from citewarden.model import INDEX_CODES, Code, Severity, Tier, Verdict, document_score
from citewarden.report.contexts import venue_html
from citewarden.report.html.charts import flow_svg, gauge_svg
from citewarden.report.html.data import (
    AuditData,
    EntryAudit,
    Located,
    Outcome,
    outcome,
    suspicion_rank,
    tier_counts,
)
from citewarden.report.html.markup import (
    SEVERITY_CLASS,
    TIER_LABEL,
    code_link,
    doi_url,
    esc,
    link,
    rel_path,
    safe_url,
    status_badge,
    tier_badge,
)
from citewarden.report.references import MAX_FORMATTED, STYLE, csl_item, format_references
from citewarden.report.sarif import rule_text
from citewarden.safe_text import visible


def _count_codes(findings: Iterable[Located], *codes: Code) -> int:
    wanted = set(codes)
    return sum(1 for f in findings if f.finding.code in wanted)


def dashboard(data: AuditData) -> str:
    tiers = tier_counts(data.entries)
    checked = sum(tiers.values())
    score = document_score(tiers)
    defensible = 100.0 * tiers[Tier.D] / checked if checked else 0.0
    outcomes = Counter(outcome(a) for a in data.entries)
    # keys, not citations: a key cited three times is one dangling key
    dangling = len(
        {f.finding.data.get("key") for f in data.findings if f.finding.code is Code.DANGLING}
    )
    orphans = _count_codes(data.findings, Code.ORPHAN)
    duplicates = _count_codes(data.findings, Code.DUPLICATE_KEY, Code.DUPLICATE_WORK)
    tier_cards = "".join(
        f'<div class="card tier-card t{t.value}" data-tier="{t.value}">'
        f'<div class="num">{tiers[t]}</div><div class="lbl">{t.value} · {TIER_LABEL[t]}</div>'
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
        f"</div>{_stopped_html(data)}</section>"
    )


def _stopped_html(data: AuditData) -> str:
    """The sources that stopped answering during the run (empty when none did)."""
    if not data.stopped:
        return ""
    named = "; ".join(f"<b>{esc(name)}</b> ({esc(why)})" for name, why in data.stopped)
    return (
        f'<p class="note" id="sources-stopped">Stopped answering during this run: {named}. '
        "The entries that needed them are unverified; check again later.</p>"
    )


def files_table(data: AuditData) -> str:
    if not data.files:
        return ""
    rows = []
    for f in data.files:
        score = "–" if f.score is None else str(f.score)
        rows.append(
            f"<tr><td class='path'>{esc(rel_path(f.path, data.root))}</td><td>{esc(f.kind)}</td>"
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


def flow_section(data: AuditData) -> str:
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
            cls = SEVERITY_CLASS[issue.effective_severity]
            fld = f" <span class='field'>[{esc(issue.field)}]</span>" if issue.field else ""
            items.append(
                f"<li class='{cls}'>{code_link(issue.code)}{fld} {esc(issue.message)}</li>"
            )
        if a.verdict.reason:
            items.append(f"<li class='muted'>{esc(a.verdict.reason)}</li>")
    for f in a.findings:
        cls = SEVERITY_CLASS[f.effective_severity]
        items.append(f"<li class='{cls}'>{code_link(f.code)} {esc(f.message)}</li>")
    return f"<ul class='issues'>{''.join(items)}</ul>" if items else "–"


def _match_html(verdict: Verdict | None) -> str:
    if verdict is None or verdict.match is None:
        return "–"
    m = verdict.match
    bits = []
    if m.title:
        target = m.url if safe_url(m.url) else (doi_url(m.doi) if m.doi else None)
        bits.append(f"<div class='m-title'>{link(target, m.title)}</div>")
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
        bits.append(f"<div class='m-doi'>{link(doi_url(m.doi), 'doi:' + m.doi)}</div>")
    bits.append(f"<div class='m-src'>{esc(m.source)} · identity {m.score:.2f}</div>")
    bits.append(venue_html(verdict.venue))
    return "".join(bits)


def _entry_label(a: EntryAudit, data: AuditData) -> str:
    where = rel_path(a.entry.path, data.root) + (f":{a.line}" if a.line else "")
    return f"<div class='key'>{esc(a.entry.key)}</div><div class='where'>{esc(where)}</div>"


def suspicion_section(data: AuditData, anchors: Mapping[int, str]) -> Iterator[str]:
    """The ranked suspicion index, a row at a time."""
    yield '<section id="suspicion"><h2>Suspicion index (worst first)</h2>'
    ranked = suspicion_rank(data.entries) if data.verification else []
    if not data.verification:
        yield '<p class="note">Verification was not run.</p>'
    elif not ranked:
        yield '<p class="note ok">No entry is above the defensible tier.</p>'
    else:
        yield (
            "<table class='suspicion'><thead><tr><th>#</th><th>Tier</th><th>Entry</th>"
            "<th>Status</th><th>Main reason</th></tr></thead><tbody>"
        )
        for n, a in enumerate(ranked, 1):
            v = a.verdict
            assert v is not None
            first = v.issues[0].message if v.issues else (v.reason or "")
            yield (
                f"<tr><td class='n'>{n}</td><td>{tier_badge(v)}</td>"
                f"<td><a href='#{anchors[id(a)]}'>{esc(a.entry.key)}</a></td>"
                f"<td>{status_badge(v)}</td><td>{esc(first)}</td></tr>"
            )
        yield "</tbody></table>"
    yield "</section>"


def audit_section(data: AuditData, anchors: Mapping[int, str]) -> Iterator[str]:
    """The audit table of every entry, a row at a time."""
    if not data.entries:
        yield '<section id="audit"><h2>Audit of every entry</h2><p>No entries.</p></section>'
        return
    yield (
        '<section id="audit"><h2>Audit of every entry</h2>'
        "<table class='audit'><thead><tr><th>Entry</th><th>Status</th><th>Tier</th>"
        "<th>Findings</th><th>Sources consulted</th><th>Matched record</th></tr></thead>"
        "<tbody>"
    )
    for a in data.entries:
        v = a.verdict
        sources = ", ".join(v.sources) if v is not None and v.sources else "–"
        yield (
            f"<tr id='{anchors[id(a)]}' class='entry o-{outcome(a).replace(' ', '-')}'>"
            f"<td>{_entry_label(a, data)}</td><td>{status_badge(v)}</td>"
            f"<td>{tier_badge(v)}</td><td>{_issues_html(a)}</td>"
            f"<td class='sources'>{esc(sources)}</td><td>{_match_html(v)}</td></tr>"
        )
    yield "</tbody></table></section>"


def index_section(data: AuditData) -> Iterator[str]:
    """The citation index findings, a row at a time."""
    yield '<section id="citations"><h2>Citation index</h2>'
    shown = [f for f in data.findings if f.finding.code in INDEX_CODES]
    if not shown:
        yield '<p class="note ok">No dangling keys, orphans, duplicates or file problems.</p>'
    else:
        yield (
            "<table class='index'><thead><tr><th>Where</th><th>Severity</th><th>Code</th>"
            "<th>Message</th></tr></thead><tbody>"
        )
        for loc in sorted(shown, key=lambda x: (str(x.finding.location.path), x.line, x.column)):
            f = loc.finding
            where = f"{rel_path(f.location.path, data.root)}:{loc.line}:{loc.column}"
            cls = SEVERITY_CLASS[f.effective_severity]
            yield (
                f"<tr class='{cls}'><td class='path'>{esc(where)}</td>"
                f"<td>{esc(f.effective_severity.label)}</td><td>{code_link(f.code)}</td>"
                f"<td>{esc(f.message)}</td></tr>"
            )
        yield "</tbody></table>"
    yield "</section>"


def _noted(a: EntryAudit) -> bool:
    """Whether the report shows something to act on for ``a``: a finding or a correction."""
    v = a.verdict
    return bool(a.findings or a.written or a.not_applied or (v is not None and v.issues))


def _worst(a: EntryAudit) -> int:
    """The most severe of ``a``'s findings and issues (:class:`Severity` value, lower is
    worse); one past the least severe for an entry with a correction only."""
    v = a.verdict
    severities = [f.effective_severity for f in a.findings]
    if v is not None:
        severities += [i.effective_severity for i in v.issues]
    return min(severities, default=max(Severity) + 1)


def formatted_entries(entries: Sequence[EntryAudit], cap: int | None = None) -> list[int]:
    """Indices (in order) of the entries whose reference is formatted with citeproc-py:
    all of them up to ``cap`` (:data:`MAX_FORMATTED`); of more, those with findings or
    corrections first, the worst first (by their most severe finding, then in file order),
    then the others in order, ``cap`` in all."""
    cap = MAX_FORMATTED if cap is None else cap
    if len(entries) <= cap:
        return list(range(len(entries)))
    noted = [i for i, a in enumerate(entries) if _noted(a)]
    if len(noted) > cap:
        noted.sort(key=lambda i: (_worst(entries[i]), i))
    elif len(noted) < cap:
        taken = set(noted)
        noted += [i for i in range(len(entries)) if i not in taken][: cap - len(noted)]
    return sorted(noted[:cap])


def references_section(data: AuditData, anchors: Mapping[int, str]) -> Iterator[str]:
    """The cleaned reference list, an entry at a time."""
    if not data.entries:
        return
    chosen = formatted_entries(data.entries)
    items = []
    for i in chosen:
        a = data.entries[i]
        item = csl_item(a.entry, a.written)  # the corrections as --fix writes them
        item["id"] = f"r{i}"
        items.append(item)
    formatted = format_references(items)
    left = len(data.entries) - len(chosen)
    how = f"formatted with the {esc(STYLE)} style"
    if left:
        how += (
            f": {len(chosen):,} of {len(data.entries):,} entries, those with findings or"
            f" corrections first; the other {left:,} are listed by key with their source"
            f" (formatting is limited to {MAX_FORMATTED:,} entries a report)"
        )
    yield (
        '<section id="references"><h2>Cleaned reference list</h2>'
        f"<p class='note'>Anchored corrections applied; {how}.</p><ol class='refs'>"
    )
    for i, a in enumerate(data.entries):
        changed = bool(a.corrected) and a.corrected != a.source
        bibtex = a.corrected if changed else a.source
        mark = '<span class="badge info">corrected</span> ' if changed else ""
        if a.not_applied:
            mark = f'<span class="badge warn">not corrected: {esc(a.not_applied)}</span> '
        label = "BibTeX" if a.source.lstrip().startswith("@") else "Source"
        original = ""
        if changed:
            original = (
                "<details class='orig'><summary>as written</summary>"
                f"<pre>{esc(a.source)}</pre></details>"
            )
        shown = formatted.pop(f"r{i}", None)
        yield (
            f"<li class='ref' id='ref-{i}'>"
            f"<div class='formatted{'' if shown is not None else ' plain'}'>{mark}"
            f"{shown if shown is not None else esc(a.entry.key)} "
            f"<a class='back' href='#{anchors[id(a)]}'>[{esc(a.entry.key)}]</a></div>"
            f"<details class='bib'{' open' if changed else ''}><summary>{label}</summary>"
            f"<pre>{esc(bibtex)}</pre></details>{original}</li>"
        )
    yield "</ol></section>"


def methodology(data: AuditData) -> str:
    sources_used = sorted({s for a in data.entries if a.verdict for s in a.verdict.sources})
    configured = ", ".join(data.sources) if data.sources else "–"
    thresholds = "".join(
        f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in data.thresholds.items()
    )
    codes = "".join(f"<tr><td>{code_link(c)}</td><td>{esc(rule_text(c))}</td></tr>" for c in Code)
    mode = "offline (cache and snapshot only)" if data.offline else "online"
    if not data.verification:
        mode = "citation index only (verification not run)"
    return (
        '<section id="methodology" class="appendix"><h2>Methodology</h2>'
        f"<p>Checked on <time datetime='{esc(data.generated.isoformat())}'>"
        f"{esc(data.generated.strftime('%Y-%m-%d %H:%M %Z').strip())}</time> with citewarden "
        f"{esc(data.version)}; mode: {esc(mode)}.</p>"
        f"<p>Inputs: {esc(', '.join(map(visible, data.inputs)) or '–')}.</p>"
        "<h3>Sources</h3>"
        f"<p>Configured: {esc(configured)}. Consulted in this run: "
        f"{esc(', '.join(sources_used) or '–')}.</p>"
        + (
            "<p class='note'>Asked at an address other than the service's own (what it "
            "answered is reported as that source's): "
            + "; ".join(f"{esc(name)} at <code>{esc(url)}</code>" for name, url in data.addresses)
            + ".</p>"
            if data.addresses
            else ""
        )
        + "<p>Each entry is looked up by identifier first (DOI, arXiv id, ISBN, PMID), then by a "
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
        "<p>Document score = 100 − 12·H − 5·E − 2·M, floored at 0, over the entries some "
        "source answered for. An unverified or skipped entry shows its tier in parentheses, "
        "from the file's own findings (placeholder authors, say); it is not counted. "
        "Defensible share = D entries / verified-or-checked entries.</p>"
        f"<h3>Finding codes</h3><table class='codes'>{codes}</table>"
        "</section>"
    )
