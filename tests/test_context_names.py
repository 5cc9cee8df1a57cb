"""A citation command that typesets the cited work's authors, year or title shows, in the
citing sentence a reader sees, what the entry says (``\\citet{a} showed`` reads ``Smith
and Jones showed``), while the score reads the placeholders (no word of the work)."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.context.collect import citation_contexts, works_of
from citewarden.context.names import named_works
from citewarden.context.sentence import CitingSentence, citing_sentences
from citewarden.model import Entry
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown
from citewarden.report.contexts import context_json
from test_context_corpus import MORE, edit, session_over

BIB = (
    "@article{a, author={Smith, John and Jones, Ann}, year={2020}, title={Deep {Nets}}}\n"
    "@article{b, author={Lee, K. and Kim, B. and Park, C.}, date={2019-01}, title={Other}}\n"
    "@article{c, author={Wu, Xi and others}, year=2001, title={Trees}}\n"
)
ENTRIES = parse_bibtex(Path("r.bib"), BIB).entries


def found(text: str, markdown: bool = False) -> dict[str, CitingSentence | None]:
    doc = parse_markdown(Path("p.md"), text) if markdown else parse_latex(Path("p.tex"), text)
    got = citing_sentences(text, doc.citations, doc.kind, names=named_works(ENTRIES))
    return {c.key: s for c, s in zip(doc.citations, got, strict=True)}


@pytest.mark.parametrize(
    ("text", "markdown", "key", "shown"),
    [
        ("\\citet{a} showed it.", False, "a", "Smith and Jones showed it."),
        (
            "Also \\citeauthor{b} in \\citeyear{b} wrote \\citetitle{a}.",
            False,
            "b",
            "Also Lee et al. in 2019 wrote Deep Nets.",
        ),
        ("As \\citet{a,b} showed.", False, "a", "As Smith and Jones; Lee et al. showed."),
        ("Lee et al. \\citeyearpar{b} wrote it.", False, "b", "Lee et al. (2019) wrote it."),
        ("\\citet*{b} showed it.", False, "b", "Lee, Kim, and Park showed it."),
        ("\\citefullauthor{b} showed it.", False, "b", "Lee, Kim, and Park showed it."),
        ("It was seen \\footnote{See \\citet{c}.} here.", False, "c", "See Wu et al."),
        ("@a's paper says so [@b].", True, "a", "Smith and Jones's paper says so."),
        (
            "Unknown \\citet{zz} and \\citet{a} here.",
            False,
            "a",
            "Unknown [author] and Smith and Jones here.",
        ),
    ],
)
def test_the_sentence_shows_the_entry_s_names_where_the_document_does(
    text: str, markdown: bool, key: str, shown: str
) -> None:
    """The authors' surnames (one, two, or the first and ``et al.``), the year and the title
    stand where the command typesets them, where ``[author]``, ``[year]`` and ``[title]``
    were shown; an unknown key keeps its placeholder; the scored text keeps them all."""
    sentence = found(text, markdown)[key]
    assert sentence is not None and sentence.shown == shown
    assert "[author]" in sentence.text or "[year]" in sentence.text


def test_a_placeholder_written_in_the_text_leaves_the_sentence_unnamed() -> None:
    sentence = found("The [author] field and \\citet{a} here.")["a"]
    assert sentence is not None and sentence.named is None
    assert sentence.shown == "The [author] field and [author] here."


def test_the_report_shows_the_names_and_the_score_does_not_read_them() -> None:
    """The JSON report's sentence shows the names; the score is that of the sentence with
    placeholders (the cited work's own surnames would make it fit by itself)."""
    text = "\\citet{a} train deep nets on images.\n"
    doc = parse_latex(Path("p.tex"), text)
    works = works_of(ENTRIES)
    named = citation_contexts([(doc, text)], works, names=named_works(ENTRIES))[0]
    plain = citation_contexts([(doc, text)], works)[0]
    assert context_json(named)["sentence"] == "Smith and Jones train deep nets on images."
    assert context_json(plain)["sentence"] == "[author] train deep nets on images."
    assert named.score == plain.score


async def test_the_hover_shows_the_names_of_the_entry_as_it_now_reads(tmp_path: Path) -> None:
    from citewarden.lsp.context_hover import ContextHover

    session = session_over(tmp_path)
    main = tmp_path / "main.tex"
    text = (
        (tmp_path / "main.tex")
        .read_text(encoding="utf-8")
        .replace("A system \\cite{lamport1994}", "As \\citet{lamport1994} wrote")
    )
    edit(session, main, text)
    hover = ContextHover(session, None)
    at = text.index("\\citet")
    shown = await session.run(lambda: hover.citation_hover(main, at, "lamport1994"))
    assert shown is not None and "> As Lamport wrote." in shown
    bib = tmp_path / "refs.bib"
    edit(
        session,
        bib,
        bib.read_text(encoding="utf-8").replace("Leslie Lamport", "Leslie Lamport and Ann Other"),
    )
    shown = await session.run(lambda: hover.citation_hover(main, at, "lamport1994"))
    assert shown is not None and "> As Lamport and Other wrote." in shown
    await hover.aclose()


@pytest.mark.parametrize("metadata", ["_quarto.yml", "_metadata.yml"])
def test_a_project_running_pandoc_crossref_makes_its_labels_references(
    tmp_path: Path, metadata: str
) -> None:
    """A ``_quarto.yml`` (or ``_metadata.yml``) that runs pandoc-crossref makes ``@fig:plot``
    of its documents a cross-reference: the sentence reads ``[ref]`` and the reference has no
    citing sentence of its own, where it read ``[author]`` and was a citation's sentence."""
    from citewarden.audit import collect_contexts
    from citewarden.project import Workspace

    (tmp_path / metadata).write_text(
        "bibliography: refs.bib\nfilters:\n  - pandoc-crossref\n", encoding="utf-8"
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    paper = tmp_path / "paper.qmd"
    paper.write_text("As @fig:plot shows, deep nets [@a] fit.\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    found = collect_contexts(ws, [paper], ws.all_entries(), None)
    assert [(c.citation.key, c.sentence.shown) for c in found] == [
        ("a", "As [ref] shows, deep nets fit.")
    ]


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("As @fig:plot shows, deep nets [@a] fit.", "As [ref] shows, deep nets fit."),
        ("Deep nets fit [@a] (see [@sec:intro; @tbl:x]).", "Deep nets fit (see [ref])."),
        (
            "As @a shows in @fig:plot, deep nets fit.",
            "As Smith and Jones shows in [ref], deep nets fit.",
        ),
    ],
)
def test_a_label_naming_no_entry_without_the_filter_is_a_reference(text: str, shown: str) -> None:
    """Without pandoc-crossref, ``@fig:plot`` that no entry of the bibliography has was meant
    for a figure (no build shows a name for it): it reads ``[ref]`` and gets no sentence of its
    own, where it showed ``[author]``."""
    got = found(text, markdown=True)
    assert got["a"] is not None and got["a"].shown == shown
    assert all(v is None for k, v in got.items() if k != "a")


def test_a_label_that_is_an_entry_s_key_stays_a_citation() -> None:
    bib = parse_bibtex(Path("r.bib"), "@misc{fig:plot, author={Ng, A.}, title={Plots}}\n")
    text = "As @fig:plot shows, it fits.\n"
    doc = parse_markdown(Path("p.qmd"), text)
    got = citing_sentences(text, doc.citations, doc.kind, names=named_works(bib.entries))
    assert got[0] is not None and got[0].shown == "As Ng shows, it fits."


async def test_hovers_on_other_citations_keep_each_citation_s_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The works cited near one citation are not those near another: hovering one, another
    and the first again finds each sentence once, where every hover on another citation
    dropped the sentences found in the document."""
    from citewarden.context import sentence as module
    from citewarden.lsp.context_hover import ContextHover

    session = session_over(tmp_path)
    main = tmp_path / "main.tex"
    far = "Filler words go on here. " * 200
    text = (
        (tmp_path / "main.tex")
        .read_text(encoding="utf-8")
        .replace(
            "A system \\cite{lamport1994}.",
            f"As \\citet{{lamport1994}} wrote. {far} A system \\cite{{lamport1994}} as"
            " \\citet{added} did.",
        )
    )
    edit(session, main, text)
    bib = tmp_path / "refs.bib"
    edit(session, bib, bib.read_text(encoding="utf-8") + MORE)
    calls: list[int | None] = []
    real = module.citing_sentences

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(kwargs.get("only"))  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "citing_sentences", counted)
    hover = ContextHover(session, None)
    first, second = text.index("\\citet"), text.rindex("\\cite{")
    for at in (first, second, first):
        shown = await session.run(lambda at=at: hover.citation_hover(main, at, "lamport1994"))
        assert shown is not None
    assert len(calls) == 2
    await hover.aclose()


CSL_JSON = (
    '[{"id": "w", "type": "report", "title": "Diabetes report",'
    ' "author": [{"literal": "World Health Organization"}, {"family": "van Gogh"},'
    ' {"family": "Smith", "given": "John"}]}]'
)
CSL_YAML = (
    "references:\n- id: w\n  type: report\n  title: Diabetes report\n  author:\n"
    "  - literal: World Health Organization\n  - family: van Gogh\n"
    "  - family: Smith\n    given: John\n"
)


@pytest.mark.parametrize(
    "entries",
    [
        parse_csl_json(Path("r.json"), CSL_JSON).entries,
        parse_csl_yaml(Path("r.yaml"), "---\n" + CSL_YAML + "...\n").entries,
    ],
    ids=["json", "yaml"],
)
def test_a_csl_literal_name_is_read_whole_in_the_sentence_and_the_scored_work(
    entries: tuple[Entry, ...],
) -> None:
    named = named_works(entries)["w"]
    assert named.all_authors == "World Health Organization, van Gogh, and Smith"
    assert works_of(entries)["w"].authors == ("World Health Organization", "van Gogh", "Smith")
    text = "\\citet*{w} showed it."
    doc = parse_latex(Path("p.tex"), text)
    (got,) = citing_sentences(text, doc.citations, doc.kind, names=named_works(entries))
    assert got is not None
    assert got.shown == "World Health Organization, van Gogh, and Smith showed it."


def test_a_braced_bibtex_name_is_read_whole() -> None:
    (entry,) = parse_bibtex(
        Path("r.bib"), "@report{w, author={{World Health Organization}}, title={R}}"
    ).entries
    assert named_works([entry])["w"].authors == "World Health Organization"
    assert works_of([entry])["w"].authors == ("World Health Organization",)


@pytest.mark.parametrize(
    ("version", "shown"), [("3.6.1", "Lee, Kim, and Park"), ("3.9", "Lee et al.")]
)
def test_the_report_names_the_work_of_at_a_as_the_project_s_pandoc_does(
    tmp_path: Path, version: str, shown: str
) -> None:
    """``As @b showed`` shows the three names pandoc before 3.8 typesets and the first and
    ``et al.`` from 3.8 on, as the project's ``pandoc_version`` says, where every project
    read as pandoc 3.9."""
    from citewarden.audit import collect_contexts
    from citewarden.project import Workspace
    from citewarden.settings import Settings

    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    paper = tmp_path / "paper.md"
    paper.write_text(
        "---\nbibliography: refs.bib\n---\n\nAs @b showed, deep nets fit.\n", encoding="utf-8"
    )
    ws = Workspace(Settings(pandoc_version=version), root=tmp_path)
    ws.add_folder(tmp_path)
    found = collect_contexts(ws, [paper], ws.all_entries(), None)
    assert [c.sentence.shown for c in found] == [f"As {shown} showed, deep nets fit."]


@pytest.mark.parametrize(
    ("version", "shown"), [("2.17", "Lee, Kim, and Park"), ("3.9", "Lee et al.")]
)
async def test_the_hover_names_the_work_of_at_a_as_the_project_s_pandoc_does(
    tmp_path: Path, version: str, shown: str
) -> None:
    from dataclasses import replace

    from citewarden.lsp.context_hover import ContextHover

    session = session_over(tmp_path)
    bib = tmp_path / "refs.bib"
    bib.write_text(bib.read_text(encoding="utf-8") + BIB, encoding="utf-8")
    paper = tmp_path / "paper.md"
    text = "---\nbibliography: refs.bib\n---\n\nAs @lamport1994 and @b showed, it fits.\n"
    paper.write_text(text, encoding="utf-8")
    work = session.project.fork()
    work.set_settings(replace(session.settings, pandoc_version=version))
    work.add_folder(tmp_path)
    session.commit(work)
    hover = ContextHover(session, None)
    at = text.index("@b")
    hovered = await session.run(lambda: hover.citation_hover(paper, at, "b"))
    await hover.aclose()
    assert hovered is not None and f"> As Lamport and {shown} showed, it fits." in hovered


def test_the_judge_reads_the_names_of_at_a_as_check_does(tmp_path: Path) -> None:
    """The judge in the editor is sent the names pandoc 2.17 typesets for ``@b`` (``Lee,
    Kim, and Park``), the sentence ``check`` sends, where it was sent pandoc 3.9's."""
    from dataclasses import replace

    from citewarden.audit import collect_contexts
    from citewarden.lsp.judging import JudgeService

    session = session_over(tmp_path)
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    paper = tmp_path / "paper.md"
    text = "---\nbibliography: refs.bib\n---\n\nAs @b showed, it fits.\n"
    paper.write_text(text, encoding="utf-8")
    work = session.project.fork()
    work.set_settings(replace(session.settings, pandoc_version="2.17"))
    work.add_folder(tmp_path)
    session.commit(work)
    doc = session.project.document(paper)
    assert doc is not None
    judge = JudgeService(session, None)  # type: ignore[arg-type]
    sent = [s.shown for s in judge._sentences_of(paper, doc, text) if s is not None]
    checked = collect_contexts(session.project, [paper], session.project.all_entries(), None)
    assert sent == [c.sentence.shown for c in checked] == ["As Lee, Kim, and Park showed, it fits."]
