"""Citing sentences: where sentences end (paragraphs, headings, full stops, abbreviations,
initials, citations after the full stop, table rows, blocks) in LaTeX and Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from citewarden.context.sentence import CitingSentence, citing_sentences
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown


def sentences(text: str, markdown: bool = False) -> dict[str, CitingSentence | None]:
    doc = parse_markdown(Path("p.md"), text) if markdown else parse_latex(Path("p.tex"), text)
    found = citing_sentences(text, doc.citations, doc.kind)
    return {c.key: s for c, s in zip(doc.citations, found, strict=True)}


def sentence(text: str, markdown: bool = False, key: str = "a") -> str:
    found = sentences(text, markdown)[key]
    return "" if found is None else found.text


@pytest.mark.parametrize("markdown", [False, True])
def test_a_blank_line_with_carriage_returns_ends_a_paragraph(markdown: bool) -> None:
    cite = "[@a]" if markdown else "\\cite{a}"
    text = f"First paragraph has no full stop\r\n\r\nSecond paragraph cites {cite} here.\r\n"
    assert sentence(text, markdown) == "Second paragraph cites here."


def test_a_markdown_heading_ends_at_its_line_end() -> None:
    got = sentences("# Introduction\nDeep learning [@a] is popular. Next.", markdown=True)["a"]
    assert got is not None and got.text == "Deep learning is popular."
    assert got.before == "Introduction"
    assert sentence("Setext heading\n===\nBody text [@a] here.", markdown=True) == (
        "Body text here."
    )
    assert sentence("Setext heading [@a]\n===\nBody.", markdown=True) == "Setext heading"


def test_a_full_stop_before_a_tilde_or_an_index_entry_ends_the_sentence() -> None:
    text = "It is in Coq.\\index{proof!assistant!Coq@Coq}\nSuch an approach \\cite{a} is general."
    assert sentence(text) == "Such an approach is general."
    text = "Here.\\label{s:x} We \\cite{a} draw \\includegraphics[w=2]{f.png} it."
    assert sentence(text) == "We draw it."


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("Deep networks generalise well.\\supercite{a} Then we go on. Last.", False),
        ("Deep networks generalise well.~\\cite{a} Then we go on. Last.", False),
        ("Deep networks generalise well.[@a] Then we go on. Last.", True),
    ],
)
def test_a_citation_right_after_the_full_stop_belongs_to_the_sentence_before(
    text: str, markdown: bool
) -> None:
    got = sentences(text, markdown)["a"]
    assert got is not None and got.text == "Deep networks generalise well."
    assert got.after == "Then we go on."


def test_a_citation_alone_in_its_paragraph_does_not_reach_across_the_blank_line() -> None:
    text = "Results of the first study are shown\n\n\\cite{a}.\n\nNext paragraph here."
    got = sentences(text)["a"]
    assert got is not None and got.text == "Results of the first study are shown"
    assert "\n" not in text[got.span.start : got.span.end]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("See Sect. 3 for details \\cite{a}. Next.", "See Sect. 3 for details."),
        ("As in Eqn. 2, a bound \\cite{a}. Next.", "As in Eqn. 2, a bound."),
        ("Consider Alg. 1 and Tab. 2 \\cite{a}. Next.", "Consider Alg. 1 and Tab. 2."),
        ("See Suppl. Fig. 2 and App. B \\cite{a}. Next.", "See Suppl. Fig. 2 and App. B."),
        ("They used a U.S. dataset \\cite{a}. Next.", "They used a U.S. dataset."),
        ("Etwa z.B. hier \\cite{a}. Next.", "Etwa z.B. hier."),
        ("At 3 p.m. the run ended \\cite{a}. Next.", "At 3 p.m. the run ended."),
        ("Attention is by \u0141. Kaiser \\cite{a}. Next.", "Attention is by \u0141. Kaiser."),
        (
            "As shown by \u00c9. Durand \\cite{a}, it works. N.",
            "As shown by \u00c9. Durand, it works.",
        ),
        ("In 2019, \\citeauthor{a} proposed X. Next sentence.", "In 2019, [author] proposed X."),
        ("It is in Appendix A. Smith \\cite{a} proved it. Last.", "Smith proved it."),
        ("The work of John F. Kennedy \\cite{a}. Next.", "The work of John F. Kennedy."),
        ("It is written in R. One \\cite{a} uses it. Next.", "One uses it."),
        ("Prior work is good. \\citet{a} showed it. Next.", "[author] showed it."),
        ("It works. Next one \\cite{a}.", "Next one."),
    ],
)
def test_abbreviations_initials_and_full_stops(text: str, expected: str) -> None:
    assert sentence(text) == expected


def test_an_ellipsis_before_a_lower_case_word_goes_on() -> None:
    assert sentence("Ends with ... [@a] and more. Next.", markdown=True) == (
        "Ends with... and more."
    )


def test_math_is_one_unit_of_its_sentence() -> None:
    text = "We set $f(x) = \\begin{cases} 1 & x>0. \\\\ 0 \\end{cases}$ as in \\cite{a}. Next."
    assert sentence(text) == "We set [math] as in."
    text = "The matrix \\[ A = \\begin{pmatrix} 1. \\\\ 2 \\end{pmatrix} \\] is in \\cite{a}. N."
    assert sentence(text) == "The matrix [math] is in."
    text = (
        "The loss of the network is\n\\begin{equation}\n  L = \\sum_i x_i\n\\end{equation}\n"
        "where $x$ is the input \\cite{a}. Next."
    )
    assert sentence(text) == "The loss of the network is [math] where [math] is the input."
    text = "The loss is\n\\begin{align}\n  L = x.\n\\end{align}\nThen we \\cite{a} go. Next."
    assert sentence(text) == "Then we go."
    text = "The loss is $$ L = x. $$ then \\cite{a} goes on. Next."
    assert sentence(text) == "The loss is [math] then goes on."


def test_comments_urls_and_dollars() -> None:
    text = "Data is at \\url{http://x.org/a%20b} as described \\cite{a}. Next."
    assert sentence(text) == "Data is at as described."
    assert sentence("First line \\\\% comment here\nsecond line \\cite{a}. Next.") == (
        "First line second line."
    )
    # a comment line does not end a paragraph (TeX eats its line break)
    assert sentence("We show\n% TODO: check\nthat it holds \\cite{a}. Next.") == (
        "We show that it holds."
    )
    assert sentence("It costs \\$5 and \\$7 as reported \\cite{a}. Next.") == (
        "It costs $5 and $7 as reported."
    )
    assert sentence("It costs $5 and $7 as reported [@a]. Next.", markdown=True) == (
        "It costs $5 and $7 as reported."
    )
    assert sentence("We \\iffalse hidden. words \\fi show \\todo{fix it. now} this \\cite{a}.") == (
        "We show this."
    )
    assert sentence("We use \\verb|a. b| here \\cite{a}. Next.") == "We use here."


def test_accents_and_discretionary_hyphens_keep_words_whole() -> None:
    assert sentence("Prof. Dr. M\\\"uller and caf\\'e \\cite{a}. Next.") == (
        "Prof. Dr. Müller and café."
    )
    assert sentence('A cat\\-e\\-go\\-ry by Martin-L\\"of and {\\v{S}}imon \\cite{a}. N.') == (
        "A category by Martin-Löf and Šimon."
    )


def test_table_cells_are_no_part_of_the_text_around_them() -> None:
    text = (
        "Body text here.\n\\begin{table}\n\\begin{tabular}{ll}\nA & B \\cite{a} \\\\\n"
        "\\end{tabular}\n\\end{table}"
    )
    assert sentence(text) == "B"
    assert sentence("A line\\\\[2pt] next \\cite{a} one. N.") == "A line next one."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We show this \\\\ and more \\cite{a} here. Next.", "We show this and more here."),
        ("Line one of prose\\\\\nline two \\cite{a} here.", "Line one of prose line two here."),
        ("A first\\newline second line \\cite{a}. Next.", "A first second line."),
        ("\\begin{tabular}{l}Row one \\\\ Row two \\cite{a}\\end{tabular}", "Row two"),
        ("\\begin{tabularx}{5cm}{X}A \\\\ B \\cite{a}\\\\\\end{tabularx} Then.", "B"),
        ("\\begin{tabbing}One \\\\ two \\cite{a} \\\\ three\\end{tabbing}", "two"),
        ("\\begin{tabular}{l}x\\end{tabular} Prose \\\\ on \\cite{a}.", "Prose on."),
    ],
)
def test_a_line_break_ends_a_sentence_in_a_table_only(text: str, shown: str) -> None:
    """``\\\\`` and ``\\newline`` break a line of prose, which a reader reads on, and end a
    table's (or a tabbing's) row, which stands alone."""
    assert sentence(text) == shown


def test_front_matter_commands_end_sentences() -> None:
    text = "\\title{Title here}\n\\author{A. Author}\nBody text \\cite{a} here."
    assert sentence(text) == "Body text here."


def test_markdown_comments_tags_spans_and_divs_are_no_text() -> None:
    assert sentence("<!-- private. note -->\nText [@a] here. Next.", markdown=True) == (
        "Text here."
    )
    assert sentence("Text <span class='x'>inside</span> as in [@a]. N.", markdown=True) == (
        "Text inside as in."
    )
    assert sentence("[R]{.proglang} is great [@a]. Next.", markdown=True) == "R is great."
    got = sentences("::: {.note}\nFenced div text [@a].\n:::\nNext.", markdown=True)["a"]
    assert got is not None and got.text == "Fenced div text." and got.after == "Next."


def test_markdown_code_links_and_escapes_do_not_split_sentences() -> None:
    assert sentence("Use `a.b() Then` then [@a]. Next.", markdown=True) == ("Use a.b() Then then.")
    assert sentence("With ![a caption. Fig](img.png) and [@a]. N.", markdown=True) == (
        "With a caption. Fig."
    )
    assert sentence("Use \\*literal\\* and \\[brackets\\] as [@a]. N.", markdown=True) == (
        "Use *literal* and [brackets] as."
    )
    assert sentence("It is v1\\. Then more [@a]. N.", markdown=True) == "It is v1. Then more."


def test_markdown_blocks_start_only_where_a_block_can() -> None:
    text = (
        "The approach of Smith and Jones (first published in\n2019) shows [@a] that it works. Next."
    )
    assert sentence(text, markdown=True) == (
        "The approach of Smith and Jones (first published in 2019) shows that it works."
    )
    text = "Quote:\n\n> Deep learning is a method that learns many\n> layers of features [@a]. N."
    assert sentence(text, markdown=True) == (
        "Deep learning is a method that learns many layers of features."
    )
    text = "Items:\n\n- first item [@a]\n- second item [@b]\n"
    got = sentences(text, markdown=True)
    assert [got[k].text for k in "ab"] == ["first item", "second item"]  # type: ignore[union-attr]


def test_markdown_table_rows_are_sentences_of_their_own() -> None:
    text = "Intro text.\n\nMethod | Source\n-------|-------\nAdam | [@d]\nSGD | [@e]\n"
    got = sentences(text, markdown=True)
    assert got["d"] is not None and got["d"].text == "Adam"
    assert got["d"].before == "Method Source"
    assert got["e"] is not None and got["e"].text == "SGD"


def test_markdown_reference_definitions_are_no_sentence() -> None:
    text = "Body text [@a] here.\n\n[@tag:X]: doi:10.1/abc\n[@tag:Y]: doi:10.1/def\n"
    got = sentences(text, markdown=True)
    assert got["a"] is not None and got["a"].after == ""
    assert got["tag:X"] is None and got["tag:Y"] is None
    text = "Body text [@a] here.\n\n[@tag:X]:\n  doi:10.1/abc\n"
    got = sentences(text, markdown=True)
    assert got["a"] is not None and got["a"].after == "" and got["tag:X"] is None
    # followed by a paragraph: its sentence is not the definition's (it was)
    text = "Body [@a] here.\n\n[@x]: doi:10.1/abc\n\nNext sentence about cats [@b].\n"
    got = sentences(text, markdown=True)
    assert got["x"] is None
    assert got["b"] is not None and got["b"].text == "Next sentence about cats."


def test_a_sentence_cut_in_a_long_run_is_the_same_for_one_citation_and_for_all() -> None:
    text = (
        ("Intro sentence here.\n\n" * 3000)
        + ("word " * 700)
        + "claim \\cite{a} "
        + ("more " * 700)
        + ".\n\n"
        + ("Tail sentence.\n\n" * 3000)
    )
    doc = parse_latex(Path("x.tex"), text)
    every = citing_sentences(text, doc.citations, doc.kind)[0]
    one = citing_sentences(text, doc.citations, doc.kind, only=0)[0]
    assert every is not None and one is not None and every.span == one.span
    assert every.text == one.text


def test_a_citation_on_a_line_of_its_own_makes_no_paragraph_break() -> None:
    text = "A monotone interpolator is built.\n\\cite{a}\n"
    assert sentence(text) == "A monotone interpolator is built."
    text = "We build a monotone\n\\cite{a}\ninterpolator here \\cite{b}. Next."
    assert sentence(text) == sentence(text, key="b") == "We build a monotone interpolator here."


def test_the_locator_of_an_in_text_citation_is_no_text() -> None:
    assert sentence("As @a [p. 33] says, it holds. Next.", markdown=True) == (
        "As [author] says, it holds."
    )
    assert sentence("As @a [see](https://x.org) says. N.", markdown=True) == (
        "As [author] see says."
    )


def test_code_blocks_and_heading_attributes_are_no_text() -> None:
    text = (
        "Text before.\n\n```{=latex}\n\\addtolength{x}% a. B\n```\n\nSee [@a] here.\n\n"
        "# Intro {#sec:intro .unnumbered}\n\nMore [@c].\n"
    )
    got = sentences(text, markdown=True)
    assert got["a"] is not None and got["a"].before == "Text before."
    assert got["a"].after == "Intro"


def test_verbatim_environments_are_no_text() -> None:
    text = (
        "We ran it \\cite{a}.\n\\begin{verbatim}\nx = f(a). Then \\cite{b}\n\\end{verbatim}\n"
        "It worked."
    )
    got = sentences(text)["a"]
    assert got is not None and got.text == "We ran it." and got.after == "It worked."


def test_an_abbreviation_before_a_citation_keeps_one_full_stop() -> None:
    assert sentence("Other methods, e.g.~\\cite{a}. Next.") == "Other methods, e.g."


@pytest.mark.parametrize(
    ("text", "markdown", "shown"),
    [
        ("We use the method of Smith et al.~\\cite{a}. It works.", False, "Smith et al."),
        ("Shown in Fig.~\\ref{f} and Tab.~\\ref{t} \\cite{a}. Next.", False, "and Tab. [ref]."),
        ("Proposed by Vaswani et al. [@a]. It works.", True, "Vaswani et al."),
    ],
)
def test_an_abbreviation_of_any_length_keeps_one_full_stop(
    text: str, markdown: bool, shown: str
) -> None:
    """A citation or a reference between an abbreviation's full stop and the sentence's
    leaves one full stop, as the reader sees it: ``et al.``, not ``et al..``."""
    got = sentence(text, markdown)
    assert got.endswith(shown) and ".." not in got


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We use R's *lme4*\\ package [@a]. Next.", "We use R's lme4 package."),
        ("A hard\\\nline break [@a]. Next.", "A hard line break."),
        ("A hard\\\r\nline break [@a]. Next.", "A hard line break."),
        ("It ~~was~~ is H~2~O at 2^10^ K [@a]. Next.", "It was is H2O at 210 K."),
        ("An escaped \\~ and \\^ stay [@a]. Next.", "An escaped ~ and ^ stay."),
        ("About ~5 and ~6 people [@a]. Next.", "About ~5 and ~6 people."),
    ],
)
def test_markdown_escapes_and_scripts_show_as_typeset(text: str, shown: str) -> None:
    """pandoc's non-breaking space (``\\ ``), hard line break (a backslash at the line's
    end), strikeout, superscript and subscript show as their text, no mark left."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We \\textcolor{red}{improve} the method \\cite{a}. Next.", "We improve the method."),
        ("A \\multicolumn{2}{c}{Method} cell \\cite{a} here \\\\", "A Method cell here"),
        ("We \\setlength{\\parskip}{3pt} test it \\cite{a}. Next.", "We test it."),
        ("A \\resizebox{\\linewidth}{!}{big} table \\cite{a}. Next.", "A big table."),
        ("He said \\foreignlanguage{german}{Zeitgeist} \\cite{a}. Next.", "He said Zeitgeist."),
        ("See \\hyperlink{sec:x}{the section} \\cite{a}. Next.", "See the section."),
        ("We \\hyphenation{al-go-rithm} go \\cite{a}. Next.", "We go."),
        ("A \\rotatebox[origin=c]{90}{label} \\cite{a}. Next.", "A label."),
        ("\\selectlanguage{german} Wir \\cite{a} gehen. Next.", "Wir gehen."),
        ("Our \\newterm{CNN}{networks} win \\cite{a}. Next.", "Our CNN networks win."),
        ("The `best' model \\cite{a} wins. Next.", "The 'best' model wins."),
    ],
)
def test_latex_layout_arguments_are_no_words(text: str, shown: str) -> None:
    """A colour, a length, a column count or specification, an angle, a language's name, a
    link's target or words to hyphenate is no word of the sentence, two
    arguments side by side are not glued into one word, and a single left quote is a quote."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("A [*Nature* paper](http://x.org) says so [@a]. Next.", "A Nature paper says so."),
        ("See [**bold** link][ref] [@a]. Next.", "See bold link."),
        ("Images ![a *fig*](x.png) here [@a]. Next.", "Images a fig here."),
        ("A [*em* span]{.x} [@a]. Next.", "A em span."),
        (
            "The platform ([`greenelab/deep-review`](https://github.com/x)) [@a], which works.",
            "The platform (greenelab/deep-review), which works.",
        ),
        ("Code [`a*b`](x) stays [@a]. Next.", "Code a*b stays."),
    ],
)
def test_markup_inside_a_link_or_a_span_is_not_shown(text: str, shown: str) -> None:
    """deep-review's ``([`greenelab/deep-review`](https://...))``: the emphasis marks and
    code ticks of a link's, an image's or a span's text go as they do outside one."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("The \\LaTeX{} system \\cite{a} is good. Next.", "The LaTeX system is good."),
        ("Entries in \\BibTeX\\ files \\cite{a}. Next.", "Entries in BibTeX files."),
        ("As noted \\ldots{} it works \\cite{a}. Next.", "As noted … it works."),
        ("See \\S~3 and \\textendash{} more \\cite{a}. Next.", "See § 3 and - more."),
    ],
)
def test_latex_commands_that_typeset_words_show_them(text: str, shown: str) -> None:
    """\\LaTeX, \\BibTeX, \\ldots, \\S ... typeset a word or a sign: the sentence shows (and
    scores) it, where the command was dropped like one that typesets nothing."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    ("text", "markdown", "shown"),
    [
        ("Many people say so, etc. The claim \\cite{a} holds. Next.", False, "The claim holds."),
        ("The answer is no. Our method [@a] works. Next.", True, "Our method works."),
        ("It holds for mobile apps. Our study \\cite{a} shows it.", False, "Our study shows it."),
        ("See No. 5 of the series \\cite{a}. Next.", False, "See No. 5 of the series."),
        ("See App. B for the proof \\cite{a}. Next.", False, "See App. B for the proof."),
        ("Tools, models, etc. are used \\cite{a}. Next.", False, "Tools, models, etc. are used."),
    ],
)
def test_a_word_that_is_also_an_abbreviation_ends_its_sentence_before_a_capital(
    text: str, markdown: bool, shown: str
) -> None:
    """``etc.`` closes a list, and ``no.`` or ``apps.`` written in lower case are words: a
    capital after them starts the next sentence, which is not read into the one before."""
    assert sentence(text, markdown) == shown


@pytest.mark.parametrize(
    ("text", "markdown", "shown"),
    [
        (
            "The question ``Can machines think?'' posed by Turing \\cite{a} is old. Next.",
            False,
            'The question "Can machines think?" posed by Turing is old.',
        ),
        (
            'The paper "Is attention all you need?" argues this [@a]. Next.',
            True,
            'The paper "Is attention all you need?" argues this.',
        ),
        ("The Yahoo! search engine \\cite{a} was popular.", False, "The Yahoo! search engine"),
        ("Is it true? Yes \\cite{a}. Next.", False, "Yes."),
    ],
)
def test_a_question_or_exclamation_mark_before_a_lower_case_word_ends_no_sentence(
    text: str, markdown: bool, shown: str
) -> None:
    """A quoted title's question mark or a name's exclamation mark: the words after it are
    the same sentence's, where the sentence started after the mark."""
    assert sentence(text, markdown).startswith(shown)


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("We tried . . . and it failed \\cite{a}. Next.", False),
        ("We tried .~.~. and it failed \\cite{a}. Next.", False),
        ("We tried . . . and it failed [@a]. Next.", True),
    ],
)
def test_a_spaced_ellipsis_is_one_mark(text: str, markdown: bool) -> None:
    """``. . .`` (Chicago's ellipsis) before a lower-case word goes on as ``...`` does,
    where each of its dots ended a sentence."""
    got = sentences(text, markdown)["a"]
    assert got is not None and got.text.startswith("We tried") and got.text.endswith("failed.")


@pytest.mark.parametrize(
    ("text", "markdown", "shown"),
    [
        ("Some claim. \\cite{a} Another claim. Next.", False, "Some claim."),
        ("Some claim. \\cite{a} \\cite{b} Another claim. Next.", False, "Some claim."),
        ("Some claim.\n\\cite{a}\nAnother claim.", False, "Some claim."),
        ("Some claim. [@a] Another claim. Next.", True, "Some claim."),
        # before a lower-case word the citation is the next sentence's subject
        ("Some claim. \\cite{a} showed more. Next.", False, "showed more."),
        ("Some claim. @a showed more. Next.", True, "[author] showed more."),
        # a paragraph's first citation is its own paragraph's
        ("Some claim.\n\n\\cite{a} Another claim.", False, "Another claim."),
    ],
)
def test_a_citation_after_a_full_stop_and_before_a_capital_is_the_sentence_befores(
    text: str, markdown: bool, shown: str
) -> None:
    """``shown. \\cite{a} The next``: the citation closes the sentence it follows (as
    ``shown.~\\cite{a}`` does), where it was given the next sentence."""
    assert sentence(text, markdown) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Text and &amp; entity &mdash; here [@a]. Next.", "Text and & entity — here."),
        ("Caf&eacute; &#233; &#xE9; data [@a]. Next.", "Café é é data."),
        ("A &lt;tag&gt; and &#42;stars&#42; [@a]. Next.", "A <tag> and *stars*."),
        ("AT&T and &copy2020 stay [@a]. Next.", "AT&T and &copy2020 stay."),
        ("Code `&amp;` stays [@a]. Next.", "Code &amp; stays."),
    ],
)
def test_markdown_html_entities_show_as_their_characters(text: str, shown: str) -> None:
    """pandoc writes the character an entity (with its semicolon) stands for, and no
    markup comes of it; code keeps its text as written."""
    assert sentence(text, markdown=True) == shown


def test_a_definition_lists_term_and_definitions_are_sentences_of_their_own() -> None:
    """pandoc reads ``Term`` then ``: Definition`` as a definition list: the term is not
    read into its definition's sentence, nor one definition into the next; a colon line
    after a paragraph of two lines is the paragraph's text (pandoc 3)."""
    text = "Intro.\n\nTerm one [@b]\n:   A definition citing [@a].\n:   Another one [@c].\n"
    got = sentences(text, markdown=True)
    assert got["b"] is not None and got["b"].text == "Term one"
    assert got["a"] is not None and got["a"].text == "A definition citing."
    assert got["c"] is not None and got["c"].text == "Another one."
    assert sentence("Approx\n~ 5 people came [@a].", markdown=True) == "5 people came."
    text = "A paragraph of two lines\nthat goes on\n: with a colon line [@a]."
    assert sentence(text, markdown=True).startswith("A paragraph of two lines")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Current methods achieve relatively high (>99%) precision [@a]. Next.",
            "Current methods achieve relatively high (>99%) precision.",
        ),
        ("We use C# with snake_case names [@a]. Next.", "We use C# with snake_case names."),
        ("It is 2 * 3 = 6 and *so* on [@a]. Next.", "It is 2 * 3 = 6 and so on."),
        ("> > A nested quote [@a] here.", "A nested quote here."),
        ("## A heading [@a] ##\n\nText.", "A heading"),
    ],
)
def test_markdown_signs_inside_a_line_are_text(text: str, shown: str) -> None:
    """deep-review's ``relatively high (>99%) precision``: a ``>`` or ``#`` inside a line, an
    underscore inside a word and a ``*`` between spaces are text, where they were removed as
    markup (``(99%)``); a quote's ``>`` and a heading's closing ``#`` still go."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("The interval [0, 1] is compact \\cite{a}. Next.", "The interval [0, 1] is compact."),
        ("As in [12], the model works \\cite{a}. Next.", "As in [12], the model works."),
        ("The set \\{a, b\\} is finite \\cite{a}. Next.", "The set {a, b} is finite."),
        ("\\begin{description}\n\\item[Adam] an optimizer \\cite{a}.", "Adam an optimizer."),
    ],
)
def test_latex_brackets_and_escaped_braces_are_text(text: str, shown: str) -> None:
    """LaTeX typesets a bracket of the text and ``\\{``: the sentence shows them, where
    ``[0, 1]`` read ``0, 1``; an item's label is read without its brackets."""
    assert sentence(text) == shown


def test_nested_list_items_and_task_boxes_in_markdown() -> None:
    """A nested item (indented four spaces under its parent) is a sentence of its own, where
    the parent's and its nested items' text were read as one; a task's box is no text."""
    text = "- Item one [@a]\n    - Nested item [@b]\n    - Another nested [@c]\n- Item two [@d]\n"
    got = {k: s.text if s else "" for k, s in sentences(text, markdown=True).items()}
    assert got == {"a": "Item one", "b": "Nested item", "c": "Another nested", "d": "Item two"}
    assert sentence("- [ ] A task [@a]\n- [x] Done [@b]\n", markdown=True) == "A task"
    # a paragraph's line that starts like an item is no item (pandoc)
    text = "Some paragraph text\n- not a list [@a] in pandoc\n"
    assert sentence(text, markdown=True) == "Some paragraph text - not a list in pandoc"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("See \\nameref{sec:intro} and \\vref{fig:a} \\cite{a}. Next.", "See [ref] and [ref]."),
        (
            "As \\figref{fig:b} and \\crefrange{e:1}{e:3} show \\cite{a}. Next.",
            "As [ref] and [ref] show.",
        ),
        ("A \\hyperref[sec:x]{link text} here \\cite{a}. Next.", "A link text here."),
    ],
)
def test_every_cross_references_label_is_no_word(text: str, shown: str) -> None:
    """A label (``sec:intro``) is no word of the sentence, whatever the cross-reference
    command (nameref, vref, a template's figref, crefrange): the reference reads ``[ref]``,
    where it stands for the number a reader sees; \\hyperref's text stays."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    "begin",
    [
        "\\begin{minipage}[t]{0.5\\textwidth}",
        "\\begin{multicols}{2}",
        "\\begin{wrapfigure}{r}{0.4\\textwidth}",
        "\\begin{subfigure}[b]{0.45\\linewidth}",
    ],
)
def test_a_box_or_columns_size_is_no_word(begin: str) -> None:
    """The width of a minipage, the count of multicols ... are no words of the sentence
    that follows (``0.5 Text cites here``)."""
    assert sentence(f"{begin}\nText cites \\cite{{a}} here.\n") == "Text cites here."


@pytest.mark.parametrize("note", ["sidenote", "marginnote", "endnote"])
def test_a_side_margin_or_end_note_is_text_of_its_own(note: str) -> None:
    """tufte-latex's \\sidenote and \\marginnote and \\endnote are notes like \\footnote: the
    sentence around reads on without them, a citation in one gets the note's sentence,
    where the note's full stop cut the sentence around it in two."""
    text = f"Models scale well\\{note}{{As a survey shows \\cite{{b}}.}} in practice \\cite{{a}}. Next."
    got = sentences(text)
    assert got["a"] is not None and got["a"].text == "Models scale well in practice."
    assert got["b"] is not None and got["b"].text == "As a survey shows."


@pytest.mark.parametrize(
    "text",
    [
        "\\begin{columns}[T]\\column{.5\\textwidth}Deep nets \\cite{a} work.\\end{columns}",
        "\\begin{frame}{Motivation}Deep nets \\cite{a} work.\\end{frame}",
        "\\begin{frame}[fragile]{Motivation}{Why}\nDeep nets \\cite{a} work.\n\\end{frame}",
        "\\begin{frame}\\frametitle{Motivation}Deep nets \\cite{a} work.\\end{frame}",
        "\\begin{block}<2->{Key result}\nDeep nets \\cite{a} work.\n\\end{block}",
        "\\begin{itemize}\\item<2-> Deep nets \\cite{a} work.\\end{itemize}",
        "Deep \\only<2>{nets} \\cite{a} \\alert<3>{work}.",
        "\\begin{tcolorbox}[title={Key \\textbf{idea}}, fonttitle=\\bfseries]\n"
        "Deep nets \\cite{a} work.\n\\end{tcolorbox}",
        "\\begin{mybox}[colback=red!5]{Key idea}\nDeep nets \\cite{a} work.\n\\end{mybox}",
        "\\begin{tcolorbox}Upper part\\tcblower Deep nets \\cite{a} work.\\end{tcolorbox}",
        "\\tcbset{colback=red} Deep nets \\cite{a} work.",
    ],
)
def test_beamer_and_tcolorbox_arguments_are_no_part_of_the_sentence(text: str) -> None:
    """A column's width, an overlay specification (``<2->``), a box's options (braces two
    deep) and settings are no words; a frame's, a block's or a box's title and a tcolorbox's
    upper part stand apart from the sentence, as a heading does."""
    assert sentence(text) == "Deep nets work."


def test_a_frame_title_is_a_sentence_of_its_own() -> None:
    got = sentences("\\begin{frame}{Deep nets \\cite{a}}\nBody \\cite{b} here.\n\\end{frame}")
    assert got["a"] is not None and got["a"].text == "Deep nets"
    assert got["b"] is not None and got["b"].text == "Body here."
    got = sentences("\\begin{frame}\\frametitle{Deep nets \\cite{a}} Body \\cite{b} here.")
    assert got["a"] is not None and got["a"].text == "Deep nets"
    assert got["b"] is not None and got["b"].text == "Body here."


def test_a_heading_command_given_as_an_argument_starts_no_heading() -> None:
    """bibunits' ``\\bibliographyunit[\\chapter]`` names the heading that starts a unit: no
    heading starts there, so its closing bracket is no part of the next sentence."""
    text = "\\bibliographyunit[\\chapter]\nBefore the first chapter: \\cite{a}. Next."
    assert sentence(text) == "Before the first chapter."
    assert sentence("\\section{Intro} Text \\cite{a} here.") == "Text here."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Text ![Cap](x.png){width=50%} here [@a]. Next.", "Text Cap here."),
        ('A [link](http://x.org){.external target="_blank"} here [@a]. Next.', "A link here."),
        ("A [link](http://x.org) {not attr} here [@a]. Next.", "A link {not attr} here."),
        ("As Figure \\@ref(fig:plot) shows [@a]. Next.", "As Figure [ref] shows."),
    ],
)
def test_markdown_link_attributes_and_bookdown_references_read_as_shown(
    text: str, shown: str
) -> None:
    """A link's or an image's attributes are no words (pandoc writes ``Text [Cap] here.``,
    ``A link here.``; braces after a space are text); bookdown's ``\\@ref(fig:plot)`` is a
    cross-reference, read ``[ref]`` as LaTeX's ``\\ref`` is."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("As @fig-plot and @sec-intro show [@a]. Next.\n", "As [ref] and [ref] show."),
        ("As shown [-@tbl-x] here [@a]. Next.\n", "As shown [ref] here."),
        ("See ?@fig-missing and @Fig-b, [@a]. Next.\n", "See [ref] and [ref]."),
        ("Mail x@fig-a.org about @fig:plot [@a]. Next.\n", "Mail x@fig-a.org about [author]."),
    ],
)
def test_a_quarto_cross_reference_reads_as_a_placeholder(text: str, shown: str) -> None:
    """In a ``.qmd`` document ``@fig-plot`` is a cross-reference, no citation: it reads
    ``[ref]`` (a reader sees ``Figure 1``), where ``@fig-plot`` was shown as it is written;
    pandoc-crossref's ``@fig:plot`` is a citation to Quarto."""
    doc = parse_markdown(Path("p.qmd"), text)
    found = citing_sentences(text, doc.citations, doc.kind)
    assert [s.text if s else "" for s in found][-1] == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Water, H\\textsubscript{2}O, and E=mc\\textsuperscript{2} \\cite{a}.",
            "Water, H2O, and E=mc2.",
        ),
        ("Use \\makebox[2cm][l]{boxed} text \\cite{a}.", "Use boxed text."),
        ("We \\emph{really} do it \\cite{a}.", "We really do it."),
        ("Type \\lstinline|x = 1| here \\cite{a}.", "Type here."),
        ("Type \\lstinline[language=C]{int x;} here \\cite{a}.", "Type here."),
        ("Type \\mintinline{python}{x = 1} here \\cite{a}.", "Type here."),
        ("Type \\Verb!a.b! here \\cite{a}.", "Type here."),
    ],
)
def test_a_command_and_its_options_show_only_its_text(text: str, shown: str) -> None:
    """A command joins the text of its argument to the word before it, as TeX typesets it
    (``H2O``, where ``H 2O`` was shown), all its options are no words (``[l]`` was shown),
    and inline code (listings, minted, fancyvrb) is read as ``\\verb``'s is: not at all,
    where its delimiters and its language were shown."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Text \\textbf{bold} here, \\ref{s} and \\emph{x} [@a]. Next.",
            "Text bold here, [ref] and x.",
        ),
        ("A \\textcolor{red}{warm} day \\newpage on [@a]. Next.", "A warm day on."),
        ("Code `\\textbf{x}` and \\\\ here [@a]. Next.", "Code \\textbf{x} and \\ here."),
    ],
)
def test_raw_tex_in_markdown_reads_as_latex_typesets_it(text: str, shown: str) -> None:
    """pandoc reads ``\\textbf{bold}`` in Markdown as raw TeX (``RawInline (Format "tex")``),
    which a PDF typesets: its text is shown, its command and a colour are not, a reference
    reads ``[ref]``, where the source was shown as written; code and an escaped backslash
    stay as they are."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("The data has `r nrow(df)` rows [@a]. Next.", "The data has rows."),
        ("The data has `{python} len(x)` rows [@a]. Next.", "The data has rows."),
        ("Run `rm -rf` or `r` and `read()` [@a]. Next.", "Run rm -rf or r and read()."),
    ],
)
def test_inline_code_run_when_rendered_shows_no_source(text: str, shown: str) -> None:
    """R Markdown's `` `r x` `` and Quarto's `` `{python} x` `` show a value computed when the
    document is rendered, not their source (``r nrow(df)`` was shown); other code stays."""
    assert sentence(text, markdown=True) == shown


def test_a_tab_command_in_a_tabbing_sets_no_accent() -> None:
    """In a tabbing environment ``\\=`` and ``\\>`` set tab stops, not a macron: the word
    after them stays whole (``Deep nets``, where ``Deep n\u0304ets`` was shown), and
    ``\\=`` outside one is still a macron."""
    text = "\\begin{tabbing}Deep \\= nets \\cite{a} \\\\ next \\> row\\end{tabbing}"
    assert sentence(text) == "Deep nets"
    assert sentence("M\\=uller outside \\cite{a}. Next.") == "M\u016bller outside."


@pytest.mark.parametrize(
    ("text", "markdown", "shown"),
    [
        (
            "As \\citeauthor{a} showed in \\citeyear{a}. Next.",
            False,
            "As [author] showed in [year].",
        ),
        ("As \\citeauthor*{a} and \\Citet{b} show. Next.", False, "As [author] and [author] show."),
        (
            "\\textcite{a} wrote \\citetitle{a} \\citeyearpar{a}. Next.",
            False,
            "[author] wrote [title] [year].",
        ),
        ("Since \\citedate{a}, \\citealt{b} agree. Next.", False, "Since [year], [author] agree."),
        ("\\citeauthor{a}'s method works. Next.", False, "[author]'s method works."),
        ("As @a shows [@b]. Next.", True, "As [author] shows."),
    ],
)
def test_a_citation_that_typesets_words_of_the_cited_work_shows_a_placeholder(
    text: str, markdown: bool, shown: str
) -> None:
    """A reader sees the cited work's authors, year or title where ``\\citeauthor``,
    ``\\citeyear``, ``\\citetitle`` or pandoc's ``@a`` stands: the sentence shows a
    placeholder there (``As [author] showed in [year].``), where it read ``As showed in.``."""
    assert sentence(text, markdown) == shown


def test_the_placeholders_of_a_citations_words_are_no_words_of_the_score() -> None:
    from citewarden.context.words import terms

    assert terms("As [author] showed in [year], [title] holds") == terms("As showed holds")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("A mass of \\SI{5}{\\kilo\\gram} here \\cite{a}.", "A mass of 5 kg here."),
        (
            "It falls at \\qty{9.81}{\\metre\\per\\second\\squared} \\cite{a}.",
            "It falls at 9.81 m s⁻².",
        ),
        (
            "Speeds of \\SIrange{1}{5}{\\kilo\\metre\\per\\hour} \\cite{a}.",
            "Speeds of 1 km h⁻¹ to 5 km h⁻¹.",
        ),
        ("In \\si{\\mega\\hertz} and \\unit{\\square\\metre} \\cite{a}.", "In MHz and m²."),
        ("About \\num{1.5e-3} or \\num{12+-3} \\cite{a}.", "About 1.5 × 10⁻³ or 12 ± 3."),
        ("Angles \\numlist{1;2;3} of \\ang{30} \\cite{a}.", "Angles 1, 2 and 3 of 30°."),
        (
            "A share of \\SI[round-mode=places]{10}{\\percent} in \\qty{3}{km/h} \\cite{a}.",
            "A share of 10 % in 3 km/h.",
        ),
        ("Then \\num{5} {apples} fall \\cite{a}.", "Then 5 apples fall."),
    ],
)
def test_siunitx_numbers_and_units_read_as_typeset(text: str, shown: str) -> None:
    """siunitx's ``\\SI{5}{\\kilo\\gram}`` reads ``5 kg`` as the document typesets it (units
    as powers, ranges and lists with siunitx's words), where ``5`` alone was shown."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We \\ifthenelse{\\boolean{long}}{show}{state} it \\cite{a}.", "We show it."),
        (
            "It \\ifthenelse{\\equal{\\value{c}}{2}}{holds \\ifbool{x}{twice}{once}}{fails} here \\cite{a}.",
            "It holds twice here.",
        ),
        ("A \\iftoggle{draft}{rough}{} sketch \\cite{a}.", "A rough sketch."),
        ("An \\ifthenelse{\\boolean{x}}{open branch \\cite{a}.", "An x open branch."),
    ],
)
def test_a_conditional_on_a_flag_reads_as_its_first_branch(text: str, shown: str) -> None:
    """``\\ifthenelse{\\boolean{x}}{yes}{no}`` reads ``yes``: neither its condition nor
    both branches, where ``x yes no`` was shown; one never closed is left as it is."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Short \\ifthenelse{\\boolean{long}}{wording}{form. Of it} here \\cite{a}.",
        "Short \\iftoggle{long}{wording}{form.\n\nOf it} here \\cite{a}.",
        "Short \\ifthenelse{\\equal{a.}{b. C}}{wording}{} here \\cite{a}.",
    ],
)
def test_a_break_in_a_conditional_s_skipped_branch_ends_no_sentence(text: str) -> None:
    """A full stop or a blank line in the condition or the second branch of a conditional
    on a flag, which the sentence does not read, ends no sentence, where it cut the
    sentence there (``Of it here.``)."""
    assert sentence(text) == "Short wording here."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Pass \\texttt{--verbose} to it \\cite{a}.", "Pass --verbose to it."),
        (
            "Run {\\ttfamily git log --all} or {\\tt a---b} \\cite{a}.",
            "Run git log --all or a---b.",
        ),
        ("Type \\texttt{``x''} -- then go \\cite{a}.", "Type ``x'' - then go."),
    ],
)
def test_typewriter_text_keeps_its_dashes_and_quotes(text: str, shown: str) -> None:
    """A typewriter font has no ligatures: ``\\texttt{--foo}`` reads ``--foo``, where an en
    dash (``-foo``) was shown; outside it ``--`` still reads as a dash."""
    assert sentence(text) == shown


CROSSREF_FRONT = "---\ntitle: X\nfilters:\n  - pandoc-crossref\n---\n\n"


@pytest.mark.parametrize(
    ("front", "runs"),
    [
        (CROSSREF_FRONT, True),
        ("---\nfilters: [pandoc-citeproc, pandoc-crossref]\n---\n\n", True),
        (
            '---\noutput:\n  pdf_document:\n    pandoc_args: ["--filter", "pandoc-crossref"]\n---\n\n',
            True,
        ),
        ("---\ntitle: On pandoc-crossref\n---\n\n", False),
        ("", False),
    ],
)
def test_pandoc_crossref_references_read_as_placeholders(front: str, runs: bool) -> None:
    """In a document whose front matter runs pandoc-crossref, ``@fig:plot`` and
    ``[@tbl:a; @tbl:b]`` are cross-references: they read ``[ref]`` and get no sentence of
    their own, where ``As shows.`` was shown; elsewhere they are citations as pandoc reads
    them."""
    text = front + "As @fig:plot shows [@a]. See [@tbl:a; @tbl:b] or [-@Sec:x] [@b].\n"
    doc = parse_markdown(Path("p.md"), text)
    found = dict(
        zip(
            [c.key for c in doc.citations],
            citing_sentences(text, doc.citations, doc.kind),
            strict=True,
        )
    )
    shown = {k: s.text if s else None for k, s in found.items()}
    if runs:
        assert shown == {
            "fig:plot": None,
            "a": "As [ref] shows.",
            "tbl:a": None,
            "tbl:b": None,
            "Sec:x": None,
            "b": "See [ref] or [ref].",
        }
        one = citing_sentences(text, doc.citations, doc.kind, only=1)[1]
        assert one is not None and one.text == "As [ref] shows."
    else:
        assert shown["a"] == "As [author] shows." and shown["b"] == "See."


def test_code_a_block_tag_in_a_paragraph_lets_start_is_no_sentence() -> None:
    """A block element's tag in a paragraph's text ends it, and an indented line after it
    is code, as the Markdown reader finds it: the citing sentence reads neither, where the
    code's full stop cut the sentence and its words were read (``Run it then we cite``)."""
    text = "Intro <div>\n    x = f(1). Run it\nthen we cite [@a] here.\n"
    got = sentences(text, markdown=True)["a"]
    assert got is not None and got.text == "then we cite here."
    assert got.before == "Intro"


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("Text before.[^1] Then we cite [@a] here.\n\n[^1]: A note.", True),
        ("Text before.[^long-note] Then we cite [@a] here.\n\n[^long-note]: A note.", True),
        ("Text before.\\footnotemark{} Then we cite \\cite{a} here.", False),
        ("Text before.\\footnotemark[2] Then we cite \\cite{a} here.", False),
    ],
)
def test_a_footnote_mark_after_a_full_stop_ends_the_sentence_with_it(
    text: str, markdown: bool
) -> None:
    """A footnote's mark right after a full stop (``before.[^1] Then``) goes with the
    sentence it ends, where the sentence read on over it (``Text before. Then we cite``)."""
    assert sentence(text, markdown) == "Then we cite here."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("![Accuracy by model [@a].](fig.png)\n\nNext.", "Accuracy by model."),
        ("See [the survey [@a], ch. 2](https://x.org) here. Next.", "See the survey, ch. 2 here."),
    ],
)
def test_a_citation_in_a_link_s_text_leaves_no_space_before_its_punctuation(
    text: str, shown: str
) -> None:
    """A citation blanked before the full stop or comma of an image's caption or a link's
    text leaves no space before it, as it leaves none elsewhere, where ``Accuracy by model
    .`` was shown."""
    assert sentence(text, markdown=True) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We use \\eg deep nets \\cite{a}. Next.", "We use e.g. deep nets."),
        ("Smith \\etal~\\cite{a} showed it. Next.", "Smith et al. showed it."),
        ("Smith \\etal. showed it \\cite{a}. Next.", "Smith et al. showed it."),
        ("Nets, CNNs, \\etc. are used \\cite{a}. Next.", "Nets, CNNs, etc. are used."),
        ("Compare A \\vs B \\wrt speed \\cite{a}. Next.", "Compare A vs. B w.r.t. speed."),
        (
            "\\newcommand{\\eg}{for example}We use \\eg nets \\cite{a}. Next.",
            "We use for example nets.",
        ),
    ],
)
def test_a_conference_style_s_abbreviation_commands_read_as_their_words(
    text: str, shown: str
) -> None:
    """cvpr.sty's ``\\eg``, ``\\etal``, ``\\etc`` ... that the project does not define read
    as the abbreviation they typeset, one full stop each, and end no sentence, where they
    were left out (``We use deep nets``) and ``\\etal.`` ended the sentence."""
    assert sentence(text) == shown


@pytest.mark.parametrize("markdown", [False, True])
def test_math_joined_to_a_word_by_a_hyphen_stays_joined(markdown: bool) -> None:
    """``$k$-nearest`` reads ``[math]-nearest``, where the space the placeholder takes
    parted the compound (``[math] -nearest``); a spaced dash stays spaced."""
    cite = "[@a]" if markdown else "\\cite{a}"
    text = f"The $k$-nearest search and $x$ - $y$ {cite}. Next."
    assert sentence(text, markdown) == "The [math]-nearest search and [math] - [math]."


@pytest.mark.parametrize("layout", ["\\medskip", "\\bigskip{}", "\\newpage", "\\linebreak[3]"])
def test_a_layout_command_right_after_a_full_stop_lets_it_end_the_sentence(layout: str) -> None:
    """Spacing and page layout commands set no words: a full stop right before one ends its
    sentence, where the sentence read on into the next (``We train nets. Next.``)."""
    assert sentence(f"We train nets \\cite{{a}}.{layout} Next one here.") == "We train nets."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("We \\ifdraft train\\else fit\\fi{} nets \\cite{a}. Next.", "We train nets."),
        ("We train nets \\cite{a}\\ifarxiv\\else. Hidden\\fi{} more. Next.", "We train nets more."),
        (
            "We \\iflong train \\ifdraft deep\\else wide\\fi{} \\else fit\\fi nets \\cite{a}. Next.",
            "We train deep nets.",
        ),
        ("We \\ifdef{\\x}{train}{fit} nets \\cite{a}. Next.", "We train fit nets."),
    ],
)
def test_a_tex_conditional_reads_as_its_first_branch(text: str, shown: str) -> None:
    """``\\ifdraft yes\\else no\\fi`` reads ``yes`` as a conditional on a flag does, and a
    full stop in its ``\\else`` branch ends no sentence, where both branches were read
    (``We train fit nets``); a command with braced arguments is no such conditional."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "We \\ifdraft deep \\iffalse x\\else wide\\fi nets\\else C. Hidden\\fi{} \\cite{a}. Next.",
            "We deep wide nets.",
        ),
        ("We \\ifdraft deep \\iffalse x\\fi nets\\else C\\fi{} \\cite{a}. Next.", "We deep nets."),
        (
            "We \\ifdraft A\\else B \\iffalse x\\else y\\fi C\\fi{} nets \\cite{a}. Next.",
            "We A nets.",
        ),
    ],
)
def test_an_iffalse_in_a_tex_conditional_leaves_its_else_branch_hidden(
    text: str, shown: str
) -> None:
    """An ``\\iffalse`` with an ``\\else`` inside ``\\ifdraft A ... \\else C\\fi`` closes with
    its own ``\\fi``: ``C`` stays hidden, where the inner ``\\fi`` closed the outer
    conditional and ``C`` was read."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    "table",
    [
        "  Method   Source\n  -------- --------\n  CNN      here [@a]\n  RNN      there\n",
        "  -------- --------\n  CNN      here [@a]\n  RNN      there\n  -------- --------\n",
    ],
)
def test_each_row_of_a_simple_table_is_a_sentence(table: str) -> None:
    """A simple table's rows are sentences of their own, as a pipe table's are, where the
    rows under the columns' dashes were read as one (``CNN here RNN there``)."""
    assert sentence(f"Before text.\n\n{table}\nAfter text.", markdown=True) == "CNN here"


def test_a_multiline_table_s_rows_read_over_their_lines() -> None:
    table = (
        "-------------------\n Method   Source\n -------- --------\n CNN      here\n"
        "          more [@a]\n\n RNN      there\n-------------------\n"
    )
    assert sentence(f"Before text.\n\n{table}\nAfter text.", markdown=True) == "CNN here more"


@pytest.mark.parametrize(
    "text",
    [
        "**Setup.** We train nets [@a]. Next.",
        "We use *deep nets.* We train nets [@a]. Next.",
        "We use __deep nets.__ We train nets [@a]. Next.",
    ],
)
def test_a_full_stop_inside_markdown_emphasis_ends_the_sentence(text: str) -> None:
    """A full stop before the emphasis that closes round it (``**Setup.** We``) ends its
    sentence, where the sentence read on into the next (``Setup. We train nets``); an
    abbreviation in emphasis (``*et al.*``) still ends none."""
    assert sentence(text, markdown=True) == "We train nets."
    assert sentence("Smith *et al.* train nets [@a]. Next.", markdown=True) == (
        "Smith et al. train nets."
    )


def test_a_caption_s_short_form_is_no_sentence_of_the_text() -> None:
    """``\\caption[Short]{Long}``: the short form shows in the list of figures only, so it
    is neither a sentence of the text around the figure nor of the caption, where it was
    read as the sentence between them (``Short list title``)."""
    text = (
        "Text before \\cite{b}.\n\\begin{figure}\\caption[Short list title]{Accuracy of"
        " models \\cite{a}.}\\end{figure}\nAfter the figure we cite \\cite{c} here."
    )
    found = sentences(text)
    assert found["a"] is not None and found["a"].text == "Accuracy of models."
    assert found["c"] is not None and found["c"].before == "Text before."
    assert found["b"] is not None and found["b"].after == "After the figure we cite here."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Before here. \\captionof{figure}{Loss of models \\cite{a}.} After the text.",
            "Loss of models.",
        ),
        (
            "Before here. We train nets\\tablefootnote{See \\cite{a} for it.} here today.",
            "See for it.",
        ),
    ],
)
def test_captionof_and_tablefootnote_are_text_of_their_own(text: str, shown: str) -> None:
    """``\\captionof{figure}{...}`` is a caption, its float's kind no word, and
    ``\\tablefootnote{...}`` a footnote, where the kind was read into the caption (``figure
    Loss of models``) and the note into the sentence around it (``We train netsSee``)."""
    assert sentence(text) == shown


@pytest.mark.parametrize(
    "items",
    [
        "(@) First example cites [@a].\n(@) Second example.\n",
        "(a) First item cites [@a].\n(b) Second item.\n",
        "A.  First item cites [@a].\nB.  Second item.\n",
        "iv) First item cites [@a].\nv) Second item.\n",
    ],
)
def test_pandoc_s_fancy_and_example_list_markers_are_no_words(items: str) -> None:
    """An example list's ``(@)`` and a fancy list's ``(a)``, ``A.`` (two spaces after it)
    or ``iv)`` start an item and are no words of it, where the marker was read as the
    sentence's first word (``(@) First example cites``)."""
    got = sentence(f"Intro.\n\n{items}", markdown=True)
    assert got in ("First example cites.", "First item cites.")


def test_texorpdfstring_reads_as_the_text_the_page_shows() -> None:
    """hyperref's ``\\texorpdfstring{typeset}{bookmark}`` reads as its first argument, where
    both were read (``the [math] alpha value``)."""
    text = (
        "We use the \\texorpdfstring{$\\alpha$ \\emph{level}}{alpha level} value \\cite{a}. Next."
    )
    assert sentence(text) == "We use the [math] level value."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Prev. A proof by A.B. Smith is cited \\cite{a}. Next.",
            "A proof by A.B. Smith is cited.",
        ),
        (
            "Prev. Written by J.R.R. Tolkien \\cite{a} it is. Next.",
            "Written by J.R.R. Tolkien it is.",
        ),
        ("Prev. It was made in the U.S.A. The data \\cite{a} show it. Next.", "The data show it."),
    ],
)
def test_initials_without_spaces_end_no_sentence(text: str, shown: str) -> None:
    """Initials written without spaces (``by A.B. Smith``) are initials as ``A. B.`` are,
    where the sentence was cut after them (``Smith is cited``); after a lower-case word
    they still end one (``in the U.S.A. The``)."""
    assert sentence(text) == shown


def test_a_bookdown_text_reference_s_label_is_no_word() -> None:
    """A bookdown text reference (``(ref:cap) The caption``) reads without its label, where
    the label was read as the sentence's first word."""
    text = "Intro.\n\n(ref:cap) A caption of the plot [@a].\n\nNext."
    assert sentence(text, markdown=True) == "A caption of the plot."


@pytest.mark.parametrize(
    "caption",
    [
        "\\subfloat[Loss of deep nets \\cite{a}]{\\includegraphics{x}}",
        "\\subfloat[Loss of deep nets \\cite{a}][Long]{\\includegraphics{x}}",
        "\\subfigure[Loss of \\textbf{deep} nets \\cite{a}]{\\includegraphics{x}}",
        "\\subcaptionbox{Loss of deep nets \\cite{a}}{\\includegraphics{x}}",
        "\\includegraphics{x} \\subcaption{Loss of deep nets \\cite{a}}",
    ],
)
def test_a_subfigure_s_caption_is_a_sentence_of_its_own(caption: str) -> None:
    """subfig's ``\\subfloat[Loss]{...}`` and subcaption's ``\\subcaption{Loss}`` are captions,
    text of their own, where the citation got no sentence or the one after the figure."""
    text = f"We train nets.\n\\begin{{figure}}\n{caption} After it.\n\\end{{figure}}\nNext one.\n"
    got = sentences(text)["a"]
    assert got is not None
    assert (got.before, got.text, got.after) == ("", "Loss of deep nets", "")


def test_a_grid_table_row_spanning_lines_is_one_sentence() -> None:
    """A grid table's row whose cells span lines is a sentence of its own, as a one-line
    row is, where each line of it was one (``| nets | [@a] |`` read ``nets``)."""
    text = (
        "Intro text here.\n\n+-------+--------+\n| Model | Source |\n+=======+========+\n"
        "| deep  |        |\n| nets  | [@a]   |\n+-------+--------+\n| trees | [@b]   |\n"
        "+-------+--------+\n\nAfter the table.\n"
    )
    got = sentences(text, markdown=True)
    assert got["a"] is not None and got["b"] is not None
    assert (got["a"].before, got["a"].text, got["a"].after) == (
        "Model Source",
        "deep nets",
        "trees",
    )
    assert got["b"].text == "trees"
