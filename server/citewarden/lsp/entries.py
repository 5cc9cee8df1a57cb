"""Human-readable text for bibliography entries: completion details, hovers, symbols.

Field values are decoded from LaTeX lazily, only for the entries being shown.
"""

from __future__ import annotations

from citewarden.model import Entry
from citewarden.safe_text import (
    MAX_SHOWN,
    clipped,
    doi_url,
    https_url,
    markdown_code,
    markdown_link,
    markdown_text,
    visible,
)


def decode(raw: str) -> str:
    """Field text for display: LaTeX decoded to Unicode (TeX logos spelled out), braces
    dropped."""
    from citewarden.verify.normalize import latex_to_text  # not needed before a hover

    return latex_to_text(raw)


def _text(entry: Entry, *names: str) -> str | None:
    for name in names:
        raw = entry.get(name)
        if raw is not None and raw.strip():
            return decode(raw)
    return None


def authors_short(entry: Entry) -> str | None:
    """``Doe``, ``Doe and Roe`` or ``Doe et al.`` (:func:`~citewarden.context.names.short_authors`)."""
    from citewarden.context.names import short_authors  # loaded when first asked

    return short_authors(entry) or None


def year(entry: Entry) -> str | None:
    value = _text(entry, "year", "date")
    return value[:4] if value else None


def title(entry: Entry) -> str | None:
    return _text(entry, "title", "booktitle")


#: The most characters of an entry's one-line description (completion items' detail).
DETAIL_CHARS = 200


def type_shown(entry: Entry) -> str:
    """The entry's type as its file writes it (a CSL item's own type)."""
    return entry.csl_type or entry.entry_type


def detail(entry: Entry) -> str:
    """One line: ``Doe et al. (2020) A Title`` (control and bidi characters escaped)."""
    parts = []
    who = authors_short(entry)
    if who:
        parts.append(who)
    when = year(entry)
    if when:
        parts.append(f"({when})")
    what = title(entry)
    if what:
        parts.append(what)
    return visible(clipped(" ".join(parts) or type_shown(entry), DETAIL_CHARS))


_escape = markdown_text


def markdown(entry: Entry) -> str:
    """The entry as Markdown: title, authors, venue and year, identifiers, source file."""
    lines = []
    what = title(entry)
    lines.append(f"**{_escape(clipped(what))}**" if what else markdown_code(clipped(entry.key)))
    raw_authors = entry.get("author") or entry.get("editor")
    if raw_authors:
        from citewarden.verify.normalize import split_authors

        try:
            authors, truncated = split_authors(raw_authors)
            names = ", ".join(a.display() for a in authors)
            if truncated:
                names += ", et al."
        except Exception:
            names = decode(raw_authors)
        lines.append(_escape(clipped(names), line_start=True))
    venue = _text(
        entry, "journal", "journaltitle", "booktitle", "publisher", "school", "institution"
    )
    when = year(entry)
    venue_shown = f"*{_escape(clipped(venue))}*" if venue else None
    # the year begins the line when there is no venue
    shown_when = _escape(when, line_start=not venue_shown) if when else None
    tail = ", ".join(p for p in (venue_shown, shown_when) if p)
    if tail:
        lines.append(tail)
    doi = entry.get("doi")
    if doi:
        doi = doi.strip()
        linked = len(doi) <= MAX_SHOWN  # past that no DOI: shown, not linked
        lines.append(
            "DOI: " + (markdown_link(doi, doi_url(doi)) if linked else markdown_code(clipped(doi)))
        )
    else:
        url = entry.get("url")
        if url:  # a link only to a https address of sane length; anything else as text
            url = url.strip()
            linked = https_url(url) is not None and len(url) <= MAX_SHOWN
            lines.append(markdown_link(url, url) if linked else markdown_code(clipped(url)))
    where = markdown_text(entry.path.name)
    lines.append(f"{markdown_code(clipped(f'@{type_shown(entry)}{{{entry.key}}}'))} in {where}")
    return "\n\n".join(lines)
