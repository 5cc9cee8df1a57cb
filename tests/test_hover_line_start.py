"""A hover line that begins with outside text (an issue's message, a venue's evidence, an
entry's authors or year) shows that text as text: its leading '1. ', '2) ', '- ', '+ ', '#'
or '>' starts no list, heading or quote in the hover's Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citewarden.lsp.context_hover import venue_markdown
from citewarden.lsp.entries import markdown
from citewarden.lsp.verify_hover import hover_markdown
from citewarden.model import Code, Issue, Status, Tier, VenueInfo, Verdict
from citewarden.parsing.bibtex import parse_bibtex

STARTS = ["1. step one", "2) two", "- dash", "+ plus", "# heading", "> quoted", "= under"]
#: What starts a block in CommonMark at a line's start (or a list item's content's).
BLOCK = re.compile(r" {0,3}(?:\d{1,9}[.)]|[-+*]|#{1,6}|>)(?: |$)")


def _items(text: str) -> list[str]:
    """The contents of the hover's list items ('- ' lines)."""
    return [line[2:] for line in text.splitlines() if line.startswith("- ")]


@pytest.mark.parametrize("start", STARTS)
def test_an_issue_message_in_the_list_of_issues_is_text(start: str) -> None:
    issues = (
        Issue(Code.INVALID_IDENTIFIER, f"{start} of the message", "doi"),
        Issue(Code.HOMOGLYPH, "plain", "title"),
    )
    items = _items(hover_markdown(Verdict("k", Status.MISMATCH, Tier.D, issues=issues)))
    assert len(items) == 2
    assert items[0].replace("\\", "") == f"{start} of the message"
    assert not BLOCK.match(items[0]), items[0]


@pytest.mark.parametrize("start", STARTS)
def test_a_venue_evidence_line_is_text(start: str) -> None:
    venue = VenueInfo("J", kind="journal", evidence=(f"{start} said", "other"))
    items = _items(venue_markdown(venue) or "")
    assert [i.replace("\\", "") for i in items] == [f"{start} said", "other"]
    assert not BLOCK.match(items[0]), items[0]


@pytest.mark.parametrize("start", ["1. Group", "2) Team", "- Team", "+ Team"])
def test_an_entrys_authors_and_year_lines_are_text(tmp_path: Path, start: str) -> None:
    when = f"{start.split()[0]} x"
    bib = f"@misc{{k, title = {{T}}, author = {{{{{start}}}}}, year = {{{when}}}}}\n"
    entry = parse_bibtex(tmp_path / "refs.bib", bib).entries[0]
    lines = markdown(entry).split("\n\n")
    shown = [line for line in lines if line.replace("\\", "") in (start, when)]
    assert len(shown) == 2, lines
    for line in shown:
        assert not BLOCK.match(line), line
