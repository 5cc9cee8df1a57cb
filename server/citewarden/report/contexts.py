"""Citation context in the reports: the JSON rows and the HTML "citation context" section;
and the venue evidence (heuristic 10) of an entry in the HTML report.

The JSON report lists every citation under ``citations.cited``::

    {"key", "file", "line", "column",
     "context": {"sentence", "score": 0..1 | null, "basis": "title+abstract" | "title" | null,
                 "abstract_source": the source whose record gave the abstract | null,
                 "judge": {"supported", "reason", "model"}  (only with a judge configured)}}

The HTML section ranks the least related citations first (those the judge, when one is
configured, says are unsupported before all), the sentence and the judge's verdict beside
the cited work's title and abstract.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from citewarden.audit import collect_contexts as collect
from citewarden.context.collect import CitationContext, least_related
from citewarden.findings.verdicts import source_label
from citewarden.model import Citation, Location, VenueInfo
from citewarden.report.html.markup import esc as _esc
from citewarden.report.html.markup import rel_path

__all__ = [
    "cited_rows",
    "collect",
    "context_json",
    "context_section",
    "judge_html",
    "venue_html",
]

#: How many citations the HTML section shows.
HTML_ROWS = 100
#: Abstract characters shown beside a sentence.
HTML_ABSTRACT = 900


def context_json(c: CitationContext) -> dict[str, Any]:
    row: dict[str, Any] = {
        "sentence": c.sentence.shown,
        "score": round(c.score, 4) if c.score is not None else None,
        "basis": c.basis,
        "abstract_source": c.abstract_source,
    }
    if c.judge is not None:
        row["judge"] = dict(c.judge)
    return row


def cited_rows(
    contexts: Iterable[CitationContext],
    place: Any,
    citations: Iterable[tuple[Path, Citation]] | None = None,
) -> list[dict[str, Any]]:
    """``citations.cited`` rows; ``place(location)`` gives ``{"file", "line", "column"}``.
    With ``citations`` (every citation, in order), one row each, ``"context": null`` for
    those without a citing sentence (a ``\\nocite``, a table cell); else one row per
    context."""
    if citations is None:
        return [_row(c.path, c.citation, c, place) for c in contexts]
    by_place = {(c.path, c.citation.span.start): c for c in contexts}
    return [_row(path, cit, by_place.get((path, cit.span.start)), place) for path, cit in citations]


def _row(path: Path, cit: Citation, c: CitationContext | None, place: Any) -> dict[str, Any]:
    return {
        "key": cit.key,
        **place(Location(path, cit.span)),
        "context": context_json(c) if c is not None else None,
    }


def context_section(contexts: Sequence[CitationContext], root: Path | None = None) -> str:
    """The HTML "citation context" section (empty when there is nothing scored)."""
    # the citations the judge says are unsupported first, then the least related
    ranked = sorted(
        least_related(contexts),
        key=lambda c: c.judge is None or c.judge.get("supported") is not False,
    )
    if not ranked:
        return ""
    rows: list[str] = []
    for c in ranked[:HTML_ROWS]:
        abstract = c.abstract or ""
        if len(abstract) > HTML_ABSTRACT:
            abstract = abstract[:HTML_ABSTRACT].rsplit(" ", 1)[0] + " …"
        work = f"<b>{_esc(c.title or '')}</b>"
        where = rel_path(c.path, root) + (f":{c.line}" if c.line else "")  # file:line
        if abstract:
            lender = f" <small>(abstract from {_esc(source_label(c.abstract_source))})</small>"
            work += f"<br>{_esc(abstract)}{lender if c.abstract_source else ''}"
        else:
            work += "<br><i>no abstract known</i>"
        rows.append(
            f"<tr><td class='num'>{c.score:.3f}</td><td><code>{_esc(c.citation.key)}</code>"
            f"<br><small>{_esc(where)}</small></td>"
            f"<td>{_esc(c.sentence.shown)}{judge_html(c.judge)}</td><td>{work}</td></tr>"
        )
    more = len(ranked) - HTML_ROWS
    note = f"<p>{more} more citations are not shown.</p>" if more > 0 else ""
    return (
        '<section id="context"><h2>Citation context</h2>'
        "<p>Each citation's sentence beside the work it cites, the least related first. "
        "The score (0 to 1) is the share of the sentence's words, weighted by how rare they "
        "are among this bibliography's works, that the work's title, abstract and authors "
        "account for; a low score asks for a second look, it does not say the citation is "
        "wrong. With a judge configured, its verdict is under the sentence, and the citations "
        "it says the work does not support come first.</p>"
        "<table><thead><tr><th>score</th><th>citation</th><th>sentence</th>"
        f"<th>cited work</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{note}</section>"
    )


def judge_html(judge: Mapping[str, object] | None) -> str:
    """The judge's verdict under a citing sentence (empty without one)."""
    if judge is None:
        return ""
    supported = judge.get("supported") is True
    label = "supports the sentence" if supported else "does not support the sentence"
    reason = str(judge.get("reason") or "")
    return (
        f"<div class='judge {'judge-yes' if supported else 'judge-no'}'>"
        f"judge ({_esc(judge.get('model') or '')}): the cited work {label}"
        + (f" — {_esc(reason)}" if reason else "")
        + "</div>"
    )


def venue_html(venue: VenueInfo | None) -> str:
    """The venue lines under an entry's matched record: kind, indexes, evidence."""
    if venue is None:
        return ""
    indexed = ", ".join(venue.indexed_in) if venue.indexed_in else "no index known"
    evidence = "".join(f"<li>{_esc(e)}</li>" for e in venue.evidence)
    return (
        f"<div class='m-venue'>venue: {_esc(venue.kind)} · indexed in: {_esc(indexed)}"
        + (f"<ul class='venue-evidence'>{evidence}</ul>" if evidence else "")
        + "</div>"
    )
