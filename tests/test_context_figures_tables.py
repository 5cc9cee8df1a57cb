"""Citing sentences around figures and tables: a subfigure in running text ends the sentence
before it, and a grid table's row reads its cells one after the other."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citewarden.context.names import named_works
from citewarden.context.sentence import CitingSentence, citing_sentences
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown


def sentences(text: str, markdown: bool = False) -> dict[str, CitingSentence | None]:
    doc = parse_markdown(Path("p.md"), text) if markdown else parse_latex(Path("p.tex"), text)
    found = citing_sentences(text, doc.citations, doc.kind)
    return {c.key: s for c, s in zip(doc.citations, found, strict=True)}


@pytest.mark.parametrize(
    "figure",
    [
        "\\subfloat[Loss of deep nets \\cite{b}]{\\includegraphics{x}}",
        "\\subfloat[Loss]{\\includegraphics{x}}\\hfill\n\\subfloat[Gain]{\\includegraphics{y}}",
        "\\subfigure[Loss of deep nets]{\\includegraphics{x}}",
        "\\subfloat{\\includegraphics{x}}",
    ],
)
def test_a_subfigure_in_a_paragraph_parts_the_prose_around_it(figure: str) -> None:
    """The prose before a subfigure standing in a paragraph and the prose after it are two
    sentences, where they ran on into one (``We train nets Then trees grow.``)."""
    text = f"Intro.\n\nWe train nets \\cite{{a}}\n{figure}\nThen trees grow \\cite{{c}}. Done.\n"
    got = sentences(text)
    a, c = got["a"], got["c"]
    assert a is not None and c is not None
    assert (a.before, a.text, a.after) == ("Intro.", "We train nets", "Then trees grow.")
    assert (c.before, c.text, c.after) == ("We train nets", "Then trees grow.", "Done.")
    if "b" in got:
        b = got["b"]
        assert b is not None and (b.before, b.text, b.after) == ("", "Loss of deep nets", "")


@pytest.mark.parametrize("entry", ["", "Loss"])
def test_subfig_s_caption_after_the_list_entry_is_a_sentence_of_its_own(entry: str) -> None:
    """subfig's ``\\subfloat[list entry][caption]{...}``: the caption in the second bracket is
    text of its own, as the first is, where it ran on into the prose after the subfigure
    (``[Loss of nets ] Then trees grow.``)."""
    text = (
        "We train nets \\cite{x}.\n"
        f"\\subfloat[{entry}][Loss of deep nets \\cite{{a}}]{{\\includegraphics{{x}}}}\n"
        "Then trees grow \\cite{c}. Done.\n"
    )
    got = sentences(text)
    a, c = got["a"], got["c"]
    assert a is not None and c is not None
    assert (a.before, a.text, a.after) == ("", "Loss of deep nets", "")
    assert (c.before, c.text, c.after) == ("We train nets.", "Then trees grow.", "Done.")


def test_a_command_named_like_a_subfigure_is_no_break() -> None:
    got = sentences("We use \\subfloatstyle nets \\cite{a} here. Done.\n")["a"]
    assert got is not None and got.text == "We use nets here."


GRID = """Intro text here.

+---------------+------------------------+
| Model         | Source                 |
+===============+========================+
| deep residual | trained on images      |
| nets          | of cats [@a]           |
+---------------+------------------------+
| boosted       | fit to tables [@b]     |
| trees         | of sales               |
+---------------+------------------------+
| one line      | row [@c]               |
+---------------+------------------------+
| a cell across the two columns [@d]     |
| reads on here                          |
+---------------+------------------------+

After the table.
"""


def test_a_grid_table_row_reads_its_cells_one_after_the_other() -> None:
    """A grid table's row whose cells span lines reads each cell's lines together, a cell
    after the other, as the rendered table shows them, where it read across the columns
    line by line (``deep residual trained on images nets of cats``)."""
    got = sentences(GRID, markdown=True)
    assert {k: (s.before, s.text, s.after) for k, s in got.items() if s is not None} == {
        "a": (
            "Model Source",
            "deep residual nets trained on images of cats",
            "boosted trees fit to tables of sales",
        ),
        "b": (
            "deep residual nets trained on images of cats",
            "boosted trees fit to tables of sales",
            "one line row",
        ),
        "c": (
            "boosted trees fit to tables of sales",
            "one line row",
            "a cell across the two columns reads on here",
        ),
        "d": ("one line row", "a cell across the two columns reads on here", "After the table."),
    }


def test_the_names_in_a_grid_table_s_cells_stand_where_they_are_read() -> None:
    """The names an in-text citation shows stand where the cell that holds it is read."""
    bib = (
        "@article{a, author={Smith, John and Jones, Ann}, year=2020, title={T}}\n"
        "@article{b, author={Lee, K.}, year=2019, title={U}}\n"
    )
    names = named_works(parse_bibtex(Path("r.bib"), bib).entries)
    text = (
        "Intro.\n\n+--------------+-------------------+\n"
        "| As @a        | and @b show,      |\n| report, nets | trees fit [@c]    |\n"
        "+--------------+-------------------+\n\nDone.\n"
    )
    doc = parse_markdown(Path("p.md"), text)
    found = citing_sentences(text, doc.citations, doc.kind, names=names)
    assert {s.shown for s in found if s is not None} == {
        "As Smith and Jones report, nets and Lee show, trees fit"
    }


@pytest.mark.parametrize("prefix", ["> ", "    "], ids=["block quote", "list item"])
def test_a_grid_table_in_a_block_quote_or_a_list_item_is_read_as_one(prefix: str) -> None:
    """A grid table in a block quote or a list item reads as one at the margin does, where
    its rules were read as words and its rows across the columns line by line
    (``+------+------+ deep trained``, ``nets on cats``)."""
    table = [
        "+-------+--------------+",
        "| deep  | trained      |",
        "| nets  | on cats [@a] |",
        "+-------+--------------+",
    ]
    lead = "> Intro.\n>\n" if prefix == "> " else "- Intro.\n\n"
    text = lead + "".join(f"{prefix}{line}\n" for line in table) + "\nDone.\n"
    got = sentences(text, markdown=True)["a"]
    assert got is not None
    assert (got.before, got.text, got.after) == ("Intro.", "deep nets trained on cats", "Done.")


MULTILINE = """Intro text here.

-------------------------------------------
 Model           Source
---------------- --------------------------
 deep residual   trained on images
 nets            of cats [@a]

 boosted         fit to tables [@b]
 trees           of sales
-------------------------------------------

After the table.
"""


def test_a_multiline_table_row_reads_its_cells_one_after_the_other() -> None:
    """A multiline table's row reads each cell's lines together, a cell after the other, as
    a grid table's does, where it read across the columns line by line."""
    got = sentences(MULTILINE, markdown=True)
    assert {k: (s.before, s.text, s.after) for k, s in got.items() if s is not None} == {
        "a": (
            "Model Source",
            "deep residual nets trained on images of cats",
            "boosted trees fit to tables of sales",
        ),
        "b": (
            "deep residual nets trained on images of cats",
            "boosted trees fit to tables of sales",
            "After the table.",
        ),
    }


def test_a_table_s_columns_without_its_closing_line_are_read_as_written() -> None:
    """Without the line of dashes that ends a multiline table there is none: the text under
    its header is read as it stands."""
    text = MULTILINE.replace("-------------------------------------------\n\nAfter", "\nAfter")
    got = sentences(text, markdown=True)["a"]
    assert got is not None and got.text == "deep residual trained on images nets of cats"


@pytest.mark.parametrize(
    ("table", "rows"),
    [
        ("-" * 20 + "\nh  h\n-- --\n" + "The @k nets. x\n" * 36_000 + "-" * 20 + "\n", 36_000),
        (
            "+" + "---+" * 48_000 + "\n|" + " Deep nets use @k. |" * 48_000 + "\n"
            + ("|" + " a |" * 48_000 + "\n") * 3
            + "+" + "---+" * 48_000 + "\n",
            48_000,
        ),
    ],
    ids=["multiline row of many lines", "grid row of many cells"],
)  # fmt: skip
def test_a_table_row_of_many_cells_is_read_a_sentence_at_a_time(table: str, rows: int) -> None:
    """A table's row of thousands of cells spanning lines: each sentence in it reads the
    cells it holds, where it went over every cell of the row (24 000 lines: 30 s, these:
    about a minute).  The bound is generous: the reading takes a few seconds."""
    doc = parse_markdown(Path("p.md"), table)
    t0 = time.process_time()
    found = citing_sentences(table, doc.citations, doc.kind)
    assert time.process_time() - t0 < 20
    assert len(doc.citations) == rows and all(s is not None for s in found)
