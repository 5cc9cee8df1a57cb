"""Citation context in `citewarden check --format json` and in the HTML report."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import pytest

from citewarden import cli
from citewarden.context.collect import citation_contexts, least_related, works_of
from citewarden.model import Match, Status, Tier, Verdict
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.latex import parse_latex

PAPER = r"""\documentclass{article}
\begin{document}
The simplex search of Nelder and Mead needs no derivatives \cite{nm}.
Hidden layers of sigmoidal units approximate any continuous function~\cite{cyb}.
A <script>alert(1)</script> sentence cites \cite{pv}.
\bibliography{refs}
\end{document}
"""

BIB = r"""@article{nm, author = {Nelder, John A. and Mead, Roger}, title = {A Simplex Method for
  Function Minimization}, journal = {The Computer Journal}, year = {1965}}
@article{cyb, author = {Cybenko, George}, title = {Approximation by Superpositions of a
  {Sigmoidal} Function}, journal = {Math. Control Signals Systems}, year = {1989}}
@misc{pv, author = {Sullivan, Bane}, title = {{PyVista}: 3D plotting}, year = {2019}}
"""


def project(where: Path) -> None:
    (where / "main.tex").write_text(PAPER, encoding="utf-8")
    (where / "refs.bib").write_text(BIB, encoding="utf-8")


def test_json_report_carries_every_citations_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--no-verify", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    cited = {row["key"]: row for row in report["citations"]["cited"]}
    assert set(cited) == {"nm", "cyb", "pv"}
    nm = cited["nm"]
    assert (nm["file"], nm["line"]) == ("main.tex", 3)
    assert nm["context"]["sentence"] == (
        "The simplex search of Nelder and Mead needs no derivatives."
    )
    assert nm["context"]["basis"] == "title"
    assert 0 < cited["cyb"]["context"]["score"] <= 1
    # the unrelated sentence scores below the two that fit their works
    assert cited["pv"]["context"]["score"] < min(
        cited["nm"]["context"]["score"], cited["cyb"]["context"]["score"]
    )
    # the existing keys stay (schema compatible)
    assert set(report["citations"]) >= {"dangling", "orphans", "duplicates"}


def test_json_report_lists_citations_without_a_sentence_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``citations.cited`` left out the citations with no citing sentence (a
    ``\\nocite``, a table cell), though it is documented as every citation."""
    project(tmp_path)
    paper = PAPER.replace("\\bibliography", "\\nocite{pv}\n\\bibliography")
    (tmp_path / "main.tex").write_text(paper, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--no-verify", "--format", "json"])
    rows = json.loads(capsys.readouterr().out)["citations"]["cited"]
    assert [(row["key"], row["line"]) for row in rows] == [
        ("nm", 3),
        ("cyb", 4),
        ("pv", 5),
        ("pv", 6),
    ]
    assert rows[3]["context"] is None
    assert rows[2]["context"]["sentence"]


def test_html_section_ranks_least_related_first_and_escapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--no-verify", "--format", "html", "--output", "r.html"])
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="context">') :]
    section = section[: section.index("</section>")]
    assert "<script>" not in section and "&lt;script&gt;" in section
    assert section.index("<code>pv</code>") < section.index("<code>nm</code>")
    assert "href='#context'" in page


def test_a_matched_records_abstract_is_what_the_sentence_is_compared_with() -> None:
    bib = parse_bibtex(Path("/p/refs.bib"), BIB)
    text = PAPER.replace("needs no derivatives", "reflects and contracts a polytope")
    doc = parse_latex(Path("/p/main.tex"), text)
    abstract = (
        "A method is described in which a simplex of points is reflected, expanded and contracted."
    )
    match = Match(
        "crossref",
        1.0,
        title="A Simplex Method for Function Minimization",
        authors=("J. A. Nelder", "R. Mead"),
        abstract=abstract,
    )
    verdicts = {"nm": Verdict("nm", Status.VERIFIED, Tier.D, match=match)}
    plain = {c.citation.key: c for c in citation_contexts([(doc, text)], works_of(bib.entries))}
    full = {
        c.citation.key: c for c in citation_contexts([(doc, text)], works_of(bib.entries, verdicts))
    }
    assert full["nm"].basis == "title+abstract" and full["nm"].abstract == abstract
    assert plain["nm"].basis == "title"
    assert full["nm"].score is not None and plain["nm"].score is not None
    assert full["nm"].score > plain["nm"].score
    assert least_related(full.values())[0].citation.key == "pv"


#: The entry's own abstract, as reference managers export it (with LaTeX markup).
OWN_ABSTRACT = (
    r"A simplex of $n+1$ points is reflected, expanded and contracted so that it adapts "
    r"itself to the local landscape and closes in on the minimum, without derivatives~(see "
    r"\emph{Spendley})."
)


def test_an_entrys_own_abstract_is_compared_when_no_record_gives_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The ``abstract`` field of an entry was never read: without verification (or with a
    record that has no abstract) every work was scored by its title alone."""
    project(tmp_path)
    paper = PAPER.replace("needs no derivatives", "reflects and contracts a polytope")
    (tmp_path / "main.tex").write_text(paper, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--no-verify", "--format", "json"])
    before = {r["key"]: r for r in json.loads(capsys.readouterr().out)["citations"]["cited"]}
    bib = BIB.replace("year = {1965}", "year = {1965},\n  abstract = {" + OWN_ABSTRACT + "}")
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    cli.main(["check", "main.tex", "--no-verify", "--format", "json"])
    after = {r["key"]: r for r in json.loads(capsys.readouterr().out)["citations"]["cited"]}
    nm = after["nm"]["context"]
    assert (nm["basis"], nm["abstract_source"]) == ("title+abstract", "bibliography")
    assert before["nm"]["context"]["basis"] == "title"
    assert nm["score"] > before["nm"]["context"]["score"]
    assert after["pv"]["context"]["abstract_source"] is None
    cli.main(["check", "main.tex", "--no-verify", "--format", "html", "--output", "r.html"])
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "the local landscape and closes in on the minimum, without derivatives (see" in page
    assert "(abstract from the bibliography entry)" in page


def test_a_records_abstract_comes_before_the_entrys_and_a_long_field_is_cut() -> None:
    from citewarden.context.collect import MAX_OWN_ABSTRACT, abstract_of

    bib = parse_bibtex(
        Path("/p/refs.bib"),
        "@misc{a, title = {T}, abstract = {" + "word " * 5000 + "}}\n"
        "@misc{b, title = {T}, abstract = {Own words.}}\n",
    )
    long, own = bib.entries
    text, source = abstract_of(long, None)
    assert source == "bibliography" and text is not None
    assert MAX_OWN_ABSTRACT - 5 <= len(text) <= MAX_OWN_ABSTRACT and text.endswith("word")
    match = Match("pubmed", 1.0, title="T", abstract="The record's.")
    verdict = Verdict("b", Status.VERIFIED, Tier.D, match=match)
    assert abstract_of(own, verdict) == ("The record's.", "pubmed")
    assert abstract_of(own, Verdict("b", Status.VERIFIED, Tier.D, match=None)) == (
        "Own words.",
        "bibliography",
    )
    assert works_of([own], {"b": verdict})["b"].abstract == "The record's."


def test_html_report_shows_the_venue_evidence() -> None:
    from citewarden.model import VenueInfo
    from citewarden.report.contexts import venue_html

    venue = VenueInfo(
        "A <b>journal</b>",
        ("2278-3784",),
        "journal",
        (),
        ("not in DOAJ (OpenAlex)", "not in Scopus (OpenAlex)"),
    )
    html = venue_html(venue)
    assert "<li>not in DOAJ (OpenAlex)</li>" in html and "no index known" in html
    assert venue_html(None) == ""
    assert "<b>" not in venue_html(dataclasses.replace(venue, evidence=("<b>x</b>",)))


def test_html_section_shows_control_and_bidi_characters_as_escapes() -> None:
    """The sentence, the key, the cited work and the venue evidence are outside text: a
    right-to-left override or an ESC in them is shown as an escape, as in the rest of the
    page, never written as it is."""
    from citewarden.context.collect import CitationContext
    from citewarden.context.sentence import CitingSentence
    from citewarden.model import Citation, Span, VenueInfo
    from citewarden.report.contexts import context_section, venue_html

    hostile = "cats \u202eevil\u202c like \x1b[31mred"
    citation = Citation("k\u202ey", Span(0, 5), "cite", Span(0, 10))
    sentence = CitingSentence(hostile, Span(0, 10), "", "")
    context = CitationContext(
        Path("/p/main.tex"), citation, sentence, 0.2, "title+abstract", hostile, hostile
    )
    venue = VenueInfo("J", (), "journal", (), (hostile,))
    for page in (context_section([context], Path("/p")), venue_html(venue)):
        assert "\u202e" not in page and "\x1b" not in page
        assert "cats \\u202eevil\\u202c like \\x1b[31mred" in page


def test_html_report_of_a_document_named_in_bytes_that_are_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The citation context names the citing file: a name that is not UTF-8 is shown with
    its byte escaped (``m\\xff.tex``), on stdout and in the file, which is written."""
    project(tmp_path)
    odd = os.fsdecode(b"m\xff.tex")
    (tmp_path / "main.tex").rename(tmp_path / odd)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", odd, "--no-verify", "--format", "html", "--output", "r.html"])
    page = (tmp_path / "r.html").read_bytes().decode("utf-8")  # strict: valid UTF-8
    section = page[page.index('<section id="context">') :]
    assert "<small>m\\xff.tex:3</small>" in section
    cli.main(["check", odd, "--no-verify", "--format", "html"])
    shown = capsys.readouterr().out
    assert "<small>m\\xff.tex:3</small>" in shown and "\udcff" not in shown


def test_a_report_that_cannot_be_written_keeps_the_earlier_one(tmp_path: Path) -> None:
    """The report file is replaced whole: a failure while writing it leaves the earlier
    report as it was, not a file cut short."""
    earlier = tmp_path / "r.html"
    earlier.write_text("the earlier report", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        cli._write("a new report\udcff", str(earlier))
    assert earlier.read_text(encoding="utf-8") == "the earlier report"
    cli._write("the new report", str(earlier))
    assert earlier.read_text(encoding="utf-8") == "the new report"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]  # no temporary file left


def test_html_section_names_each_citations_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each row names the file and the line of the citation (as the JSON report does), where
    it named the file alone: a sentence cannot be found in a long file without it."""
    project(tmp_path)
    monkeypatch.chdir(tmp_path)
    cli.main(["check", "main.tex", "--no-verify", "--format", "html", "--output", "r.html"])
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="context">') :]
    for key, line in (("nm", 3), ("cyb", 4), ("pv", 5)):
        row = section[section.index(f"<code>{key}</code>") :]
        assert row[: row.index("</td>")].endswith(f"<small>main.tex:{line}</small>")
