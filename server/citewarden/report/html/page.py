"""The HTML report as one self-contained document: its stylesheet and layout."""

from __future__ import annotations

from collections.abc import Iterator

from citewarden.report.contexts import context_section
from citewarden.report.html.data import AuditData
from citewarden.report.html.markup import anchor, esc, plural
from citewarden.report.html.sections import (
    audit_section,
    dashboard,
    files_table,
    flow_section,
    index_section,
    methodology,
    references_section,
    suspicion_section,
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
.tier.uncounted { width: auto; padding: 0 5px; border-radius: 12px; opacity: .65; }
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
    return "".join(html_chunks(data))


def html_chunks(data: AuditData) -> Iterator[str]:
    """The report as :func:`render_html` makes it, in pieces of a section or a row each,
    so that a report of many entries is written without being held whole."""
    anchors = {id(a): anchor(i) for i, a in enumerate(data.entries)}
    when = data.generated.strftime("%Y-%m-%d %H:%M %Z").strip()
    nav = (
        "<nav><a href='#dashboard'>Summary</a><a href='#files'>Files</a>"
        "<a href='#flow'>Flow</a><a href='#suspicion'>Suspicion index</a>"
        "<a href='#audit'>Entries</a><a href='#citations'>Citation index</a>"
        "<a href='#references'>References</a>"
        + ("<a href='#context'>Citation context</a>" if data.contexts else "")
        + "<a href='#methodology'>Methodology</a></nav>"
    )
    yield (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="generator" content="citewarden">'
        f"<title>{esc(data.title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{esc(data.title)}</h1>"
        f"<p class='sub'>{plural(len(data.entries), 'entry', 'entries')} · "
        f"{plural(len(data.files), 'file', 'files')} · "
        f"checked {esc(when)}</p>{nav}</header><main>"
    )
    yield dashboard(data)
    yield files_table(data)
    yield flow_section(data)
    yield from suspicion_section(data, anchors)
    yield from audit_section(data, anchors)
    yield from index_section(data)
    yield from references_section(data, anchors)
    yield context_section(data.contexts, data.root)
    yield methodology(data)
    yield (f"</main><footer>citewarden {esc(data.version)} · {esc(when)}</footer></body></html>\n")
