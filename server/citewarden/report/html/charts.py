"""The report's inline SVG: the score gauge and the verification flow diagram."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from citewarden.model import Status
from citewarden.report.html.data import EntryAudit, Outcome, outcome
from citewarden.report.html.markup import esc


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
        end = outcome(a)
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
