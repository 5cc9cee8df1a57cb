"""Small HTML helpers of the report: escaping, safe links, badges, paths."""

from __future__ import annotations

import html
import urllib.parse
from pathlib import Path

from citewarden.findings.score import COUNTED, NOT_COUNTED
from citewarden.model import Code, Severity, Status, Tier, Verdict, code_doc_url
from citewarden.safe_text import https_url, visible, visible_lines


def esc(value: object) -> str:
    return html.escape(visible_lines(str(value)), quote=True)


def safe_url(url: str | None) -> str | None:
    """``url`` as a link destination when it is an ``https`` URL with a host (as hovers
    link: :func:`citewarden.safe_text.https_url`), else None: never ``http``,
    ``javascript:``, ``data:``, ``file:`` and friends from outside data.  The attribute
    is escaped where it is written, so the URL itself is kept as given."""
    return url.strip() if url and https_url(url) else None


def doi_url(doi: str) -> str:
    return "https://doi.org/" + urllib.parse.quote(doi, safe="/:;()._-<>[]")


def link(url: str | None, text: str) -> str:
    ok = safe_url(url)
    if ok is None:
        return esc(text)
    return f'<a href="{esc(ok)}" rel="noreferrer noopener">{esc(text)}</a>'


STATUS_CLASS = {
    Status.VERIFIED: "ok",
    Status.MISMATCH: "warn",
    Status.NOT_FOUND: "bad",
    Status.RETRACTED: "bad",
    Status.UNVERIFIED: "muted",
    Status.SKIPPED: "muted",
}
TIER_LABEL = {Tier.H: "high", Tier.E: "elevated", Tier.M: "moderate", Tier.D: "defensible"}
SEVERITY_CLASS = {
    Severity.ERROR: "bad",
    Severity.WARNING: "warn",
    Severity.INFORMATION: "info",
    Severity.HINT: "muted",
}


def status_badge(verdict: Verdict | None) -> str:
    if verdict is None:
        return '<span class="badge muted">not checked</span>'
    cls = STATUS_CLASS[verdict.status]
    return f'<span class="badge {cls}">{esc(verdict.status.value.replace("_", " "))}</span>'


def tier_badge(verdict: Verdict | None) -> str:
    if verdict is None:
        return '<span class="tier none">–</span>'
    t = verdict.tier
    if verdict.status not in COUNTED:  # from the file alone: shown, not counted
        return (
            f'<span class="tier t{t.value} uncounted" title="{TIER_LABEL[t]}; '
            f'{esc(NOT_COUNTED)}">({t.value})</span>'
        )
    return f'<span class="tier t{t.value}" title="{TIER_LABEL[t]}">{t.value}</span>'


def code_link(code: Code) -> str:
    return f'<a class="code" href="{esc(code_doc_url(code))}">{esc(code.value)}</a>'


def rel_path(path: Path, root: Path | None) -> str:
    """``path`` relative to ``root`` when it is in it, on one line: its line breaks shown as
    escapes (:func:`~citewarden.safe_text.visible`), as the text report shows them.  A
    link is named as written, as the text and JSON reports name it (``refs.bib``, not the
    absolute path of the ``../shared/lib.bib`` it points to); a path in ``root`` only once
    both are resolved (``root`` given through a link) relative to it too."""
    if root is not None:
        for name, base in ((path, root), (path.resolve(), root.resolve())):
            try:
                return visible(name.relative_to(base).as_posix())
            except ValueError:
                pass
    return visible(str(path))


def plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def anchor(i: int) -> str:
    return f"entry-{i}"
