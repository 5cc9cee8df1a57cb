"""Citing sentences hold only typeset prose: no front matter, metadata, comments or other
hidden text of LaTeX and Markdown."""

from __future__ import annotations

from test_context_breaks import sentences


def read(text: str, markdown: bool = False, key: str = "a") -> str:
    """The citing sentence of ``key`` with the sentences around it."""
    found = sentences(text, markdown)[key]
    return "" if found is None else " ".join((found.before, found.text, found.after))


def test_front_matter_ending_in_a_block_scalar_citation_is_no_prose() -> None:
    for field in ("nocite: |\n  @x\n", "abstract: |\n  Nets work [@x].\n"):
        text = f"---\ntitle: Draft\nnote: SECRET\n{field}---\n\nWe show this result [@a].\n"
        got = read(text, markdown=True)
        assert "SECRET" not in got and "title" not in got
        assert "We show this result." in got


def test_a_later_yaml_metadata_block_is_no_prose() -> None:
    got = read("We show this result [@a].\n\n---\nreviewer-notes: SECRET\n---\n", markdown=True)
    assert "SECRET" not in got and "reviewer" not in got
    text = "We show this [@a].\n\n---\nsecret: SECRET\n...\n\nVisible [@b].\n"
    assert "SECRET" not in read(text, markdown=True)
    text = "\n---\ntitle: SECRET\n---\n\nWe show this [@a].\n"
    assert "SECRET" not in read(text, markdown=True)
    # a rule between paragraphs stays a break, its text read
    text = "First part.\n\n---\n\nWe show this [@a].\n"
    assert "We show this." in read(text, markdown=True)


def test_an_html_comment_ends_at_its_first_closer_whatever_it_holds() -> None:
    text = "We show <!-- TODO: SECRET <!-- old --> this result [@a].\n"
    assert read(text, markdown=True).strip() == "We show this result."
    text = "We show this result [@a].\n\n<!-- SECRET\n\nmore SECRET\n"
    assert "SECRET" not in read(text, markdown=True)
    text = "We show <!-- SECRET\n\nmore SECRET2 --> this result [@a].\n"
    assert "SECRET" not in read(text, markdown=True)


def test_iffalse_counts_nested_conditionals_reads_no_comment_and_keeps_its_else() -> None:
    text = "We show \\iffalse draft \\ifnum1=1 x\\fi SECRET remark \\fi this result \\cite{a}.\n"
    assert read(text).strip() == "We show this result."
    text = "We show \\iffalse SECRET % \\fi\nSECRET2 \\fi this \\cite{a}.\n"
    assert read(text).strip() == "We show this."
    assert read("We show \\iffalse old \\else new \\fi results \\cite{a}.\n").strip() == (
        "We show new results."
    )
    text = "We show this \\cite{a}. Then \\iffalse SECRET never closed.\n\nSECRET2 too.\n"
    assert "SECRET" not in read(text)


def test_an_argument_that_is_no_prose_is_dropped_whatever_its_braces_nest() -> None:
    text = "We show \\todo{SECRET \\textbf{check {this {deep {er}}}}} this result \\cite{a}.\n"
    assert read(text).strip() == "We show this result."
    text = "We show \\index{SECRET \\} {x}} this result \\cite{a}.\n"
    assert read(text).strip() == "We show this result."


def test_raw_code_links_autolinks_shortcodes_and_script_elements_are_no_prose() -> None:
    for raw in ("`\\todo{SECRET}`{=latex}", "`<b>SECRET</b>`{=html}"):
        assert read(f"We show {raw} this result [@a].\n", markdown=True).strip() == (
            "We show this result."
        )
    text = "We use [PyTorch][pt] for training [@a].\n\n[pt]: https://pytorch.org\n"
    assert read(text, markdown=True).strip() == "We use PyTorch for training."
    text = "Code is at <https://github.com/x/SECRET> as released [@a].\n"
    assert read(text, markdown=True).strip() == "Code is at as released."
    text = "We use the {{< meta SECRET >}} pipeline [@a].\n"
    assert read(text, markdown=True).strip() == "We use the pipeline."
    for element in ("script", "style"):
        text = f"We show this result [@a].\n\n<{element}>\nvar token = 'SECRET';\n</{element}>\n"
        assert read(text, markdown=True).strip() == "We show this result."


def test_a_paragraph_starting_with_a_citation_is_no_indented_code() -> None:
    text = "First part.\n\n[@smith2020] shows that nets work [@a].\n"
    assert read(text, markdown=True).strip() == "First part. shows that nets work."


def test_latex_list_options_preamble_file_names_code_and_definitions_are_no_prose() -> None:
    text = "Intro.\n\\begin{itemize}[leftmargin=*, label=--]\n\\item Deep nets work \\cite{a}.\n"
    assert read(text).strip() == "Intro. Deep nets work."
    text = "Deep nets work \\cite{a}.\n\\input{sections/SECRET.tex}\n\\include{SECRET2}\n"
    assert read(text).strip() == "Deep nets work."
    text = (
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        "\\addbibresource{refs.bib}\n\\title{SECRET}\n\\begin{document}\nDeep nets work \\cite{a}.\n"
    )
    assert read(text).strip() == "Deep nets work."
    text = "\\begin{pyverbatim}\nx = SECRET(1)\n\\end{pyverbatim}\nDeep nets work \\cite{a}.\n"
    assert read(text).strip() == "Deep nets work."
    for definition in ("\\newcommand{\\note}[1]{SECRET #1}", "\\def\\note#1{SECRET {#1}}"):
        assert read(f"{definition}\nDeep nets work \\cite{{a}}.\n").strip() == "Deep nets work."


def test_an_indented_code_block_is_no_prose_but_an_indented_continuation_is() -> None:
    text = "We fit the model [@a].\n\n    token = load('SECRET')\n\nThen we stop.\n"
    got = read(text, markdown=True)
    assert "SECRET" not in got and "token" not in got
    assert "We fit the model." in got and "Then we stop." in got
    # a list item's indented paragraph and a wrapped line are prose, no code
    text = "- First item [@a].\n\n    More of the item here.\n"
    assert "More of the item here." in read(text, markdown=True)
    text = "We fit\n    the model [@a].\n"
    assert read(text, markdown=True).strip() == "We fit the model."
    # code in a list item (four columns past its text) and in a block quote is no prose
    text = "1. We fit the model [@a]:\n\n        token = load('SECRET')\n\n>     x = SECRET2\n"
    got = read(text, markdown=True)
    assert "SECRET" not in got and "We fit the model" in got


def test_a_rule_opening_the_file_is_no_front_matter() -> None:
    # "---" and a blank line: a horizontal rule (pandoc reads no metadata), prose after it
    text = "---\n\nWe fit the model [@a].\n\n---\n"
    assert read(text, markdown=True).strip() == "We fit the model."
