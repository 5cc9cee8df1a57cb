"""The editor's verification hover shows an entry's corrections as the quick fix and --fix
write them into it."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from citewarden.findings.verdicts import correction_fix
from citewarden.lsp.verify_actions import _hover
from citewarden.lsp.verify_hover import hover_markdown
from citewarden.model import Status, Tier, Verdict
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_yaml
from citewarden.safe_text import markdown_text
from citewarden.verify.field_check import bibtex_ready

BIB = (
    "@article{k,\n"
    "  title = {{Deep} learning for {Germany}: a study},\n"
    "  journal = {Computers and Education},\n"
    "}\n"
)

#: What verification offers for the record "Deep learning in Germany: a 50% study of R&D"
#: in "Computers & Education": BibTeX text, & and % escaped.
CORRECTIONS = bibtex_ready(
    {"title": "Deep learning in Germany: a 50% study of R&D", "journal": "Computers & Education"}
)


def _offered(hover: str) -> str:
    """The hover's line of corrections, after its label."""
    (line,) = [part for part in hover.split("\n\n") if part.startswith("Corrections available: ")]
    return line.removeprefix("Corrections available: ")


def test_the_hover_shows_a_correction_as_the_fix_writes_it() -> None:
    """The hover showed the title as the record gives it (Deep learning in Germany ...),
    where the quick fix and --fix write it protected as the entry protects its own
    ({Deep} learning in {Germany} ...): it shows what they write, & and % escaped."""
    entry = parse_bibtex(Path("refs.bib"), BIB).entries[0]
    verdict = Verdict("k", Status.MISMATCH, Tier.M, corrections=CORRECTIONS)
    written = {}
    for name, value in CORRECTIONS.items():
        fix = correction_fix(entry, BIB, name, value)
        assert fix is not None and len(fix.edits) == 1
        written[name] = fix.edits[0].new_text
    assert written["title"] == r"{Deep} learning in {Germany}: a 50\% study of R\&D"
    assert written["journal"] == r"Computers \& Education"
    shown = _offered(hover_markdown(verdict, entry=entry))
    assert shown == ", ".join(f"{n} → {markdown_text(v)}" for n, v in written.items())
    assert shown.startswith(r"title → {Deep} learning in {Germany}: a 50\\% study of R\\\&D")


def test_the_hover_names_a_csl_items_corrections_as_it_gets_them_from_its_entry() -> None:
    """A CSL item's corrections are named and written as the item gets them, its type
    read from the item itself."""
    text = "- id: a\n  type: article-journal\n  title: Old\n  page: 10-21\n"
    entry = parse_csl_yaml(Path("refs.yaml"), text).entries[0]
    verdict = Verdict("a", Status.MISMATCH, Tier.M, corrections={"pages": "10--20"})
    assert _offered(hover_markdown(verdict, entry=entry)) == "page → 10-20"


def test_the_editors_hover_on_an_entry_shows_what_its_quick_fix_writes() -> None:
    """The hover the editor asks for on the entry's key (its verdict as the verification
    service holds it) shows the title the quick fix writes."""
    parsed = parse_bibtex(Path("refs.bib"), BIB)
    entry = parsed.entries[0]
    verdict = Verdict("k", Status.MISMATCH, Tier.M, corrections=CORRECTIONS)
    service: Any = SimpleNamespace(
        enabled=True,
        settings=SimpleNamespace(ignore_entries=()),
        verdict_for=lambda e: (verdict if e is entry else None, False),
    )
    session: Any = SimpleNamespace(project=SimpleNamespace(bibliography=lambda p: parsed))
    text = _hover(service, session, entry.path, "k", entry)
    assert text is not None
    assert _offered(text).startswith(r"title → {Deep} learning in {Germany}: a 50\\% study")


def test_the_quick_fix_names_the_title_it_writes() -> None:
    """The quick fix "Set title to ..." named the record's title, and wrote it protected as
    the entry protects its own: it names what it writes."""
    entry = parse_bibtex(Path("refs.bib"), BIB).entries[0]
    fix = correction_fix(entry, BIB, "title", CORRECTIONS["title"])
    assert fix is not None
    assert fix.title == f"Set title to “{fix.edits[0].new_text}”"
    assert fix.title == r"Set title to “{Deep} learning in {Germany}: a 50\% study of R\&D”"
