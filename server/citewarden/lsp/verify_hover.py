"""The verification part of a hover on an entry or a citation of it (Markdown)."""

from __future__ import annotations

from citewarden.findings.score import COUNTED
from citewarden.findings.verdicts import record_url, source_label
from citewarden.model import Code, Entry, Status, Verdict
from citewarden.safe_text import clipped, markdown_link, markdown_text

_STATUS_TEXT = {
    Status.VERIFIED: "verified",
    Status.MISMATCH: "a real work with wrong metadata",
    Status.NOT_FOUND: "no such work found",
    Status.RETRACTED: "retracted",
    Status.UNVERIFIED: "could not be checked",
    Status.SKIPPED: "not verified",
}


def _md(text: str, *, line_start: bool = False) -> str:
    """Outside text as literal Markdown on one line, at most
    :data:`~citewarden.safe_text.MAX_SHOWN` characters of it (:func:`_flat`); ``line_start``:
    it begins a line, where its '1. ' or '- ' would start a list."""
    return markdown_text(clipped(_flat(text)), line_start=line_start)


def _flat(text: str) -> str:
    """``text`` with each run of blanks and line breaks one space, as a record's title or
    an abstract reads (a source's line breaks and tabs were shown as ``\\x0a`` escapes)."""
    return " ".join(text.split())


def hover_markdown(
    verdict: Verdict | None,
    pending: bool = False,
    csl_type: str | None = None,
    *,
    entry: Entry | None = None,
) -> str:
    """The verification section of a hover on an entry or a citation of it; the ``entry``'s
    corrections as the quick fix and ``--fix`` write them into it
    (:func:`~citewarden.fix.run.written_corrections`: its title's protected words braced,
    none it refuses), a CSL item's (``csl_type``, the entry's) named as the item gets them."""
    if verdict is None:
        return "**Verification:** in progress" if pending else "**Verification:** not yet run"
    # an unverified or skipped entry's tier comes from the file alone: not in the score
    counted = "" if verdict.status in COUNTED else ", not counted in the score"
    lines = [
        f"**Verification:** {_STATUS_TEXT[verdict.status]} "
        f"(risk tier {verdict.tier.value}{counted})"
    ]
    m = verdict.match
    if m is not None:
        shown = markdown_link(clipped(_flat(m.title or "untitled")), record_url(verdict))
        who = _md(m.authors[0]) + (" et al." if len(m.authors) > 1 else "") if m.authors else ""
        bits = ", ".join(str(b) for b in (who, m.year, _md(m.venue or "")) if b)
        lines.append(
            f"Matched {source_label(m.source)} record: {shown}"
            + (f" — {bits}" if bits else "")
            + (f" (doi:{_md(m.doi)})" if m.doi else "")
            + f", match score {m.score:.2f}"
        )
    for issue in verdict.issues:
        if issue.code is Code.RETRACTED:
            lines.append(f"⚠ **Retraction notice:** {_md(issue.message)}")
    others = [i for i in verdict.issues if i.code is not Code.RETRACTED]
    if others:
        lines.append("\n".join(f"- {_md(i.message, line_start=True)}" for i in others))
    corrections = verdict.corrections
    if entry is not None and corrections:
        from citewarden.fix.run import written_corrections

        corrections, csl_type = written_corrections(entry, corrections), entry.csl_type
    if corrections:
        offered = list(corrections.items())
        if csl_type is not None:
            from citewarden.findings.verdicts import csl_decoding
            from citewarden.fix.csl import csl_correction

            decoding = csl_decoding()
            offered = [csl_correction(k, v, decoding, csl_type) for k, v in offered]
        fixes = ", ".join(f"{_md(k)} → {_md(v)}" for k, v in offered)
        lines.append(f"Corrections available: {fixes}")
    if verdict.status in (Status.UNVERIFIED, Status.SKIPPED) and verdict.reason:
        lines.append(f"Reason: {_md(verdict.reason)}")
    if verdict.sources:
        lines.append("Sources consulted: " + ", ".join(source_label(s) for s in verdict.sources))
    from citewarden.lsp.context_hover import venue_markdown

    venue = venue_markdown(verdict.venue)
    if venue:
        lines.append(venue)
    return "\n\n".join(lines)
