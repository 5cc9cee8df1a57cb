"""Citing sentences (LaTeX and Markdown) and the field-relative relevance score."""

from __future__ import annotations

from pathlib import Path

import pytest

import citewarden.context.sentence as sentence_module
from citewarden.context.latex_macros import Macros
from citewarden.context.relevance import FieldCorpus, Work, stem, terms
from citewarden.context.sentence import MAX_SENTENCE, citing_sentences, plain
from citewarden.model import DocumentKind
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown

TEX = Path("/p/main.tex")
MD = Path("/p/paper.md")


def latex(text: str) -> dict[str, str]:
    doc = parse_latex(TEX, text)
    return {
        c.key: s.text if s else ""
        for c, s in zip(doc.citations, citing_sentences(text, doc.citations, doc.kind), strict=True)
    }


def test_latex_sentence_ends_and_abbreviations() -> None:
    text = (
        "\\section{Intro}\nNetworks approximate functions. A single layer of sigmoidal units,\n"
        "e.g. as in Fig. 2, suffices~\\citep[p.~3]{cyb}. % a comment \\cite{hidden}\n"
        "\\citet{hornik} showed more, cf.\\ the appendix; Hornik et al. agree.\n\nNext paragraph."
    )
    got = latex(text)
    assert got["cyb"] == "A single layer of sigmoidal units, e.g. as in Fig. 2, suffices."
    assert got["hornik"] == "[author] showed more, cf. the appendix; Hornik et al. agree."
    assert "hidden" not in got  # a commented-out citation is no citation


def test_citation_after_the_full_stop_belongs_to_the_sentence_before() -> None:
    got = latex("First claim here. Second claim is stated.~\\cite{b}\n\nAfter.")
    assert got["b"] == "Second claim is stated."


def test_latex_markup_math_and_other_citations_are_removed() -> None:
    text = (
        "We fit $f(x)=\\sum_i w_i x_i$ with \\emph{limited-memory} methods "
        "\\cite{a} as in Section~\\ref{sec:m} and \\cite{b}."
    )
    got = latex(text)
    assert got["a"] == got["b"] == "We fit [math] with limited-memory methods as in Section [ref]."


def test_paragraph_heading_and_environment_break_sentences() -> None:
    got = latex("\\paragraph{Methods.} The simplex search \\cite{nm} is old\n\\begin{itemize}")
    assert got["nm"] == "The simplex search is old"


def test_footnotes_headings_and_captions_are_sentences_of_their_own() -> None:
    text = (
        "\\section{Related work on \\emph{attention} \\cite{b}}\n"
        "Residual connections \\citet{c} help deep models.\n"
        "\\begin{figure}\\caption[Short]{Dropout rates as in \\cite{f}.}\\label{fig:x}\\end{figure}\n"
        "Language models\\footnote{Such as BERT \\cite{g}. See also the survey.} are common "
        "\\cite{h}. Models\\footnote{\\cite{i}} scale.\n"
    )
    got = latex(text)
    assert got["b"] == "Related work on attention"  # not run into the next paragraph
    assert got["c"] == "Residual connections [author] help deep models."
    assert got["f"] == "Dropout rates as in."
    assert got["g"] == "Such as BERT."
    assert got["h"] == "Language models are common."  # the footnote's words left out
    assert got["i"] == "Models scale."  # a footnote of citations only: the sentence it is in


def test_a_full_stop_before_a_footnote_ends_its_sentence() -> None:
    """sympy-paper's assumptions.tex: the footnote after the full stop is neither part of the
    sentence nor a reason to read the next sentence into it."""
    text = (
        "Deductions are made using the Rete\nalgorithm~\\cite{rete}.\\footnote{\\label{n}For\n"
        "  historical reasons, this algorithm is distinct.} Another claim follows here.\n"
    )
    assert latex(text)["rete"] == "Deductions are made using the Rete algorithm."


def test_island_spans_point_into_the_file() -> None:
    text = "Intro text.\\footnote{A note citing \\cite{k} here.} Done."
    doc = parse_latex(TEX, text)
    (s,) = citing_sentences(text, doc.citations, doc.kind)
    assert s is not None and s.text == "A note citing here."
    assert text[s.span.start : s.span.end] == "A note citing \\cite{k} here."


def test_markdown_notes_and_tables() -> None:
    text = (
        "Graph networks are popular.^[See the overview in @a for details.] Attention\n"
        "[@b] changed NLP. Residual learning[^1] helps depth [@h].\n\n"
        "[^1]: As shown by @c in vision.\n\n"
        "| Method | Source |\n|--------|--------|\n| Adam   | [@d]   |\n\n"
        "Models^[@e] scale.\n"
    )
    doc = parse_markdown(MD, text)
    got = {
        c.key: s.text if s else ""
        for c, s in zip(doc.citations, citing_sentences(text, doc.citations, doc.kind), strict=True)
    }
    assert got["a"] == "See the overview in [author] for details."
    assert got["b"] == "Attention changed NLP."
    assert got["h"] == "Residual learning helps depth."
    assert got["c"] == "As shown by [author] in vision."
    assert got["d"] == "Adam"
    assert got["e"] == "Models scale."


def test_an_item_label_is_a_word_without_its_brackets() -> None:
    got = latex("\\begin{description}\n\\item[Adam] An optimiser \\cite{d}.\n\\end{description}")
    assert got["d"] == "Adam An optimiser."


def test_link_targets_are_not_words() -> None:
    got = latex("See \\href{https://example.org/attention-paper}{the paper} by \\citet{b}.")
    assert got["b"] == "See the paper by [author]."


def test_unclosed_islands_are_read_once() -> None:
    """Thousands of ``\\footnote{`` left open: every brace is matched once, the text is
    read as if they were not there."""
    text = "\\footnote{ x " * 20_000 + "Claim \\cite{k}. " + "\\section{ y " * 20_000
    doc = parse_latex(TEX, text)
    (s,) = citing_sentences(text, doc.citations, doc.kind)
    assert s is not None and "Claim" in s.text


def test_markdown_sentences_and_neighbours() -> None:
    text = (
        "# Title\n\nThe convenience is real. A small network stands in for almost any "
        "response [@cyb; @hornik, p. 252]. The price is a blind default.\n\n"
        "## Next\n\n- [Nelder](http://x) and Mead's *simplex* search [-@nm] is old."
    )
    doc = parse_markdown(MD, text)
    sentences = citing_sentences(text, doc.citations, doc.kind)
    by_key = {c.key: s for c, s in zip(doc.citations, sentences, strict=True)}
    cyb = by_key["cyb"]
    assert cyb is not None and by_key["hornik"] == cyb
    assert cyb.text == "A small network stands in for almost any response."
    assert cyb.before == "The convenience is real."
    assert cyb.after == "The price is a blind default."
    assert text[cyb.span.start : cyb.span.end].startswith("A small network")
    nm = by_key["nm"]
    assert nm is not None and nm.text == "Nelder and Mead's simplex search is old."


def test_markdown_front_matter_rules_and_fences_are_not_prose() -> None:
    """A first paragraph right after the front matter (no blank line) starts its own
    sentence, and a rule or a code fence ends one."""
    text = (
        '---\ntitle: "A study. Of things"\nbibliography: refs.bib\n---\n'
        "Simplex search [@nm] is old.\n***\nGradients [@bfgs] help\n```\ncode\n```\n"
        "After code @nm again\n---\nLast words [@cyb]."
    )
    doc = parse_markdown(MD, text)
    got = [s.text if s else "" for s in citing_sentences(text, doc.citations, doc.kind)]
    assert got == [
        "Simplex search is old.",
        "Gradients help",
        "After code [author] again",
        "Last words.",
    ]


def test_latex_math_and_arguments_left_open_are_not_scanned_again_and_again() -> None:
    """Unclosed ``\\(``, ``\\[``, ``\\label{`` and Markdown ``[`` are left as text; a
    closed one, with ``\\\\`` and ``\\\\[2pt]`` inside display math, is removed."""
    assert plain(r"We show \[ a \\[2pt] b \] that \(x\) holds.", DocumentKind.LATEX) == (
        "We show [math] that [math] holds."
    )
    got = latex(r"Then \(x\) holds \cite{a}. \( \( \label{ end")
    assert got["a"] == "Then [math] holds."
    text = "[ [ see @k [a [link](https://e.org/a_(b)) c"
    doc = parse_markdown(MD, text)
    (s,) = citing_sentences(text, doc.citations, doc.kind)
    assert s is not None and s.text == "[ [ see [author] [a link c"


def test_sentences_are_bounded() -> None:
    text = "word " * 5000 + "\\cite{k} " + "word " * 5000
    (s,) = citing_sentences(text, parse_latex(TEX, text).citations, DocumentKind.LATEX)
    assert s is not None and len(s.text) <= MAX_SENTENCE + 4


def test_terms_fold_stem_and_drop_stopwords() -> None:
    assert terms("The Approximations of continuous functions, e.g. by networks") == [
        "approximate",
        "continuous",
        "function",
        "network",
    ]
    assert stem("approximates") == stem("approximation") == "approximate"
    assert stem("networks") == stem("network")


def test_field_relative_weights_favour_the_distinctive_word() -> None:
    works = [
        Work("Machine learning for public health: suicide ideation", "machine learning health"),
        Work("Machine learning for public health: hepatitis screening", "machine learning health"),
        Work("Machine learning in public health surveillance", "machine learning health"),
    ]
    corpus = FieldCorpus(works)
    sentence = "Machine learning has been used to screen for hepatitis in public health."
    scores = [corpus.score(sentence, w) for w in works]
    assert scores[1] == max(scores) and scores[1] > 2 * scores[0]
    assert corpus.idf("hepatitis") > corpus.idf("health")
    assert min(scores) >= 0.0 and max(scores) <= 1.0
    assert corpus.score("", works[0]) == 0.0


def test_title_counts_more_than_abstract_and_authors_count() -> None:
    corpus = FieldCorpus([Work("Simplex search", "other words"), Work("Other", "simplex search")])
    sentence = "the simplex search"
    assert corpus.score(sentence, Work("Simplex search", "other words")) > corpus.score(
        sentence, Work("Other", "simplex search")
    )
    named = Work("A method for function minimization", None, ("Nelder", "Mead"))
    assert corpus.score("the method of Nelder and Mead", named) > corpus.score(
        "the method of Nelder and Mead", Work("A method for function minimization")
    )


def test_words_around_the_sentence_help_with_a_lower_weight() -> None:
    works = [Work("Limited memory bound constrained optimization"), Work("Sigmoidal networks")]
    corpus = FieldCorpus(works)
    alone = corpus.score("Quasi-Newton methods use curvature.", works[0])
    around = corpus.score(
        "Quasi-Newton methods use curvature.", works[0], ("It handles bound constraints.",)
    )
    assert alone == 0.0 and around > 0.0


def test_one_citations_sentence_is_read_from_its_stretch_of_a_large_file() -> None:
    """The hover asks for one citation's sentence: read from the lines within ``REACH`` of
    it, it is the one the whole file gives, footnotes, headings and notes included."""
    from citewarden.context.sentence import REACH

    parts = []
    for i in range(6000):
        parts.append(f"Claim {i} on \\emph{{models}} \\cite{{k{i % 50}}}.")
        if i % 7 == 0:
            parts.append(f"\\footnote{{A note \\cite{{n{i}}} with \\textbf{{more}}.}}")
        if i % 100 == 0:
            parts.append(f"\n\n\\section{{Part {i} \\cite{{s{i}}}}}\n")
        if i % 3 == 0:
            parts.append("\n")
    tex = " ".join(parts)
    md = "---\ntitle: x\n---\n" + "".join(
        f"Claim {i} holds [@k{i % 50}].^[Note {i} cites @n{i}.]" + ("\n\n" if i % 5 else " ")
        for i in range(4000)
    )
    for text, doc in ((tex, parse_latex(TEX, tex)), (md, parse_markdown(MD, md))):
        assert len(text) > 4 * REACH
        whole = citing_sentences(text, doc.citations, doc.kind)
        for i in range(0, len(doc.citations), max(1, len(doc.citations) // 97)):
            one = citing_sentences(text, doc.citations, doc.kind, only=i)
            assert one[i] == whole[i] and one.count(None) == len(one) - 1, i


def test_citations_of_one_long_run_share_their_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    """A run of thousands of citations without a sentence break (a damaged or hostile file)
    is read in linear time: windows cut inside the run fall on a grid, so the citations of
    one stretch of it read the same text once (before: every citation read 3 000
    characters of its own, 16 s for 40 000 citations)."""
    calls = []
    real = sentence_module._plain

    def counting(raw: str, kind: DocumentKind, macros: Macros | None = None) -> str:
        calls.append(len(raw))
        return real(raw, kind, macros)

    monkeypatch.setattr(sentence_module, "_plain", counting)
    text = "Text " + "@article{" * 20_000
    doc = parse_markdown(MD, text)
    found = citing_sentences(text, doc.citations, doc.kind)
    assert len(doc.citations) == 20_000
    # each citation's sentence is its own or, where that has no word, the one before it
    assert all(
        s is None or s.span.start <= c.command_span.start
        for s, c in zip(found, doc.citations, strict=True)
    )
    assert sum(s is not None for s in found) > 100
    assert 0 < len(calls) < 3 * len(text) // sentence_module._STEP


def _markdown_sentences(text: str) -> list[str]:
    doc = parse_markdown(MD, text)
    found = citing_sentences(text, doc.citations, doc.kind)
    return [s.text if s else "" for s in found]


def test_a_blanked_citation_leaves_no_brackets_separators_or_possessive() -> None:
    assert _markdown_sentences("The method of @a's paper works.") == [
        "The method of [author]'s paper works."
    ]
    assert latex("It works (e.g., \\cite{a}).")["a"] == "It works."
    # pandoc reads each as an author-in-text citation: no group
    assert set(_markdown_sentences("Text [@a;; @b; @c] here.")) == {
        "Text [ [author]; [author]; [author]] here."
    }
    assert latex("It works (see, e.g., \\cite{a}) here.")["a"] == "It works here."
    assert latex("A bound [0, 1] holds (see Table 2) \\cite{a}.")["a"] == (
        "A bound [0, 1] holds (see Table 2)."
    )


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We use it (\\cite{a} and \\cite{b}) here.", "We use it here."),
        ("It holds (see \\cite{a}, \\cite{b}, or \\cite{c}) here.", "It holds here."),
        ("For the construction, see \\cite{a} and \\cite{b}.", "For the construction, see."),
        (
            "The outlines emerge; see, for example, \\cite{a}.",
            "The outlines emerge; see, for example.",
        ),
        ("Outside every unit: \\cite{a}.", "Outside every unit."),
        ("Cats or \\cite{a}; we go on.", "Cats; we go on."),
        (
            "Gödel's system $T$, \\cite{a}, which was analysed.",
            "Gödel's system [math], which was analysed.",
        ),
    ],
)
def test_a_blanked_citation_leaves_no_conjunction_or_separator_before_an_end(
    text: str, shown: str
) -> None:
    """The conjunctions and separators that stood between or before citations are not left
    holding nothing: no ``(and)``, ``see and.``, ``unit:.`` or ``[math],,``."""
    assert latex(text)["a"] == shown


def test_a_blanked_citation_leaves_no_conjunction_at_a_sentence_end_without_a_stop() -> None:
    """A line that ends in citations joined by conjunctions (``See @a and @b or [@c]``) reads
    ``See``, where ``See and or`` was shown."""
    assert set(_markdown_sentences("See @a and @b or [@c]\n\nNext.")) == {
        "See [author] and [author]"
    }
    assert latex("We compare, and \\cite{a}\n\nNext.")["a"] == "We compare"
    assert _markdown_sentences("Rock and roll [@a]\n") == ["Rock and roll"]


def test_separators_of_the_text_itself_stay() -> None:
    text = "The rules are: \\cite{a}\n\\begin{itemize}\\item one\\end{itemize}"
    assert latex(text)["a"] == "The rules are:"
    assert latex("Rock and roll, and more \\cite{a}; it goes on.")["a"] == (
        "Rock and roll, and more; it goes on."
    )
    assert latex("Use one and/or the other \\cite{a}.")["a"] == "Use one and/or the other."
    assert latex("Take it and/or \\cite{a}.")["a"] == "Take it and/or."


def test_a_cross_reference_reads_as_a_placeholder_that_is_not_scored() -> None:
    """``Section~\\ref{s} and \\cite{b}`` reads ``Section [ref]``, as a reader sees
    ``Section 3 and [2]``, where ``Section and.`` was shown."""
    got = latex("As in Section~\\ref{s} and \\cite{b}. Next.")["b"]
    assert got == "As in Section [ref]."
    assert latex("Table~\\ref{t} and \\cref{f} list it \\cite{a}.")["a"] == (
        "Table [ref] and [ref] list it."
    )
    assert terms(got) == terms("As in Section")
    assert latex("\\ref{t}\\cite{a}.\n\nMore.")["a"] == ""  # no word: no sentence


def test_enquote_is_shown_with_its_quotation_marks() -> None:
    assert latex("He wrote \\enquote{the best} \\cite{a}.")["a"] == 'He wrote "the best".'
    assert latex("It is \\enquote*{so {called}} here \\cite{a}.")["a"] == "It is 'so called' here."


def test_inline_math_reads_as_a_placeholder_that_is_not_scored() -> None:
    got = _markdown_sentences("We use $\\alpha$, $\\beta$, and $\\gamma$ here [@a].")
    assert got == ["We use [math], [math], and [math] here."]
    got_tex = latex("The sets $A$, $B$, etc.\\ were used \\cite{a}.")
    assert got_tex["a"] == "The sets [math], [math], etc. were used."
    assert terms(got[0]) == terms("We use, and here.")
    assert terms("the [math] model") == terms("the model") == [stem("model")]
