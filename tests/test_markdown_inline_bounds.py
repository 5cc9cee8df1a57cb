"""Attribute sets and raw TeX are read in bounded passes: pandoc reads attribute sets and
raw TeX commands that never close from each opener on, a reading that would go over the
rest of the text again for each."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citewarden.parsing import markdown_inline
from citewarden.parsing.markdown import parse_markdown
from citewarden.parsing.pandoc_syntax import PANDOC_2, PANDOC_3, PANDOC_3_9, PandocDialect

P = Path("doc.md")


@pytest.mark.parametrize(
    "text",
    [
        '[a]{k="' * 100_000,  # each span's set an unclosed quote holding the next
        "[a]{k={k=" * 100_000,  # each set's bare value holding the next
        '`a`{k="' * 100_000,
        "<http://a.b>{k='" * 50_000,
        "# " + '{k="@a" ' * 50_000,
        '::: {k="\n' * 50_000,
    ],
    ids=["span quotes", "bare values", "code spans", "autolinks", "heading", "fences"],
)
def test_attribute_sets_that_never_close_are_read_in_bounded_passes(text: str) -> None:
    """Half a megabyte of attribute sets that never close: each one's reading may go over
    the next ones, up to a budget.  The bound only catches a reading gone quadratic: it
    takes a second or two of CPU on the test machine."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n[@k]\n")
    assert time.process_time() - t0 < 20
    assert [c.key for c in doc.citations][-1:] == ["k"]


@pytest.mark.parametrize(
    "text",
    [
        "\\a{" * 200_000,  # each command's argument unclosed, holding the next
        "\\a[" * 200_000,
        "\\a[{" * 150_000,
        "\\a\n[" * 150_000,
        "\\a{%" * 150_000,
        "\\a" + "{" * 500_000,
        "\\" * 600_000,
        "\\verb|\\verb!" * 100_000,
        ("\\verb|" + "x" * 19_000 + "\n") * 30,
        "\\emph {\n" * 20_000,  # a braced group after white space, on the next line
        "> \\textbf {\n" * 20_000,
    ],
    ids=[
        "braces",
        "options",
        "braces in options",
        "options on lines",
        "comments",
        "deep",
        "backslashes",
        "verb",
        "verb lines",
        "braces after white space",
        "braces after white space in a block quote",
    ],
)
def test_raw_tex_arguments_that_never_close_are_read_in_bounded_passes(text: str) -> None:
    """Half a megabyte of raw TeX commands whose arguments never close: each one's
    reading may go over the next ones, up to a budget.  The bound only catches a reading
    gone quadratic (minutes): the slowest of these takes about four seconds of CPU on the
    test machine (``bench/raw_tex_bench.py`` prints the figures).  An optional argument
    left open takes the ``]`` of ``[@k]`` after the blank line as its own, so pandoc
    (2.17, 3.6, 3.9, with ten pieces and with seven thousand) cites nothing there; so does
    one holding ``{`` that never close, which are characters in it (pandoc, with one to two
    hundred pieces of ``\\a[{``; a thousand take it more than a minute)."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n[@k]\n")
    assert time.process_time() - t0 < 20
    cited = [] if text.endswith(("[", "[{")) else ["k"]
    assert [c.key for c in doc.citations][-1:] == cited


@pytest.mark.parametrize("n", [500, 2_000])
def test_a_nest_of_brackets_pandoc_3_reads_as_text_is_read_once(
    n: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Brackets nested ``n`` deep, each holding a nested braced key whose ``]`` balances
    it (pandoc 3 before 3.8 reads each ``[`` as text): each bracket's keys are looked at
    when it closes, not again for each bracket around it (which read the nest n times)."""
    looked_at = 0
    member_list = markdown_inline._Bracket.member_list

    def counted(self: markdown_inline._Bracket) -> list[markdown_inline._Pending]:
        nonlocal looked_at
        found = member_list(self)
        looked_at += len(found)
        return found

    monkeypatch.setattr(markdown_inline._Bracket, "member_list", counted)
    text = "[@{a{b{]}}}" * n + "]" * n + "\n\n[@k]\n"
    doc = parse_markdown(P, text, PANDOC_3)
    assert looked_at <= 4 * n
    assert [c.key for c in doc.citations][-1:] == ["k"]


@pytest.mark.parametrize(
    "text",
    ["x " + "\\emph %c\n" * 100_000 + "y @k z\n", "x " + "\\emph " * 300_000 + "y @k z\n"],
    ids=["a line each", "one line"],
)
def test_a_chain_of_commands_read_as_arguments_is_read_once(text: str) -> None:
    """A command that takes one character (``\\emph``) takes the command after it as its
    argument, past white space and comments, so each of a chain holds the rest.  Asked line
    by line, each read the chain after it again, 32 deep: 11 s of CPU for the first text,
    against 1.7 s since; the chain's depth costs no stack."""
    t0 = time.process_time()
    doc = parse_markdown(P, text)
    assert time.process_time() - t0 < 8
    assert [c.key for c in doc.citations] == ["k"]


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("x " + "\\bf y " * 100_000 + "@a", []),
        ("x " + "\\bf y\n" * 100_000 + "@a", []),
        ("x " + "{\\bf y} " * 100_000 + "@a", ["a"]),
        ("x " + "{\\bf y " * 100_000 + "@a", []),
        ("x " + "{\\bf " * 50_000 + "}" * 50_000 + " @a", ["a"]),
        ("x " + "\\emph\\bf y " * 50_000 + "@a", []),
    ],
    ids=[
        "on one line",
        "a line each",
        "in groups",
        "in groups never closed",
        "nested",
        "as arguments",
    ],
)
def test_the_text_font_switches_take_is_read_once(text: str, cited: list[str]) -> None:
    """A font switch (``\\bf``) takes the text after it up to a blank line, a ``}`` closing
    a group around it ...: those it meets end where it does, and the blank line is looked
    up once for the text.  Looked up from each switch, the switches in groups took 30 s
    of CPU; 1.3 s at most since."""
    _read_in_bounds(text + "\n\n[@k]\n", [*cited, "k"])


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("x " + "\\si m " * 100_000 + "@a", []),
        ("x " + "\\si m\n" * 100_000 + "@a", []),
        ("x " + "\\SI{1} m\n\n" * 100_000 + "@a", []),
        ("x " + "\\si{m } " * 100_000 + "@a", []),
        ("x " + "{\\si m " * 100_000 + "@a", []),
        ("x " + "\\si m \\bf y\n\n" * 50_000 + "@a", []),
        ("x " + "[@b \\si m; " * 50_000 + "@a", ["b"]),
        ("x \\si " + "{" * 5_000 + "m " + "}" * 5_000 + " @a", ["a"]),
    ],
    ids=[
        "on one line",
        "a line each",
        "over blank lines",
        "groups that hold no unit",
        "in groups never closed",
        "with font switches",
        "in brackets",
        "nested groups",
    ],
)
def test_units_without_braces_are_read_once(text: str, cited: list[str]) -> None:
    """siunitx's ``\\si m`` reads its unit on over blank lines, a part at a time, and a
    ``\\si`` among the parts reads the rest again: each such reading is remembered, and
    units nested 32 deep end with the one they are in (without the memo, a chain of them
    asked line by line was read again from each line: 34 s of CPU for 2 000 lines; 2 s
    for 100 000 with it)."""
    _read_in_bounds(text + "\n\n# H\n\n[@k]\n", [*cited, "k"])


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("x " + "\\emph{y} \\textbf{@a \\gls} " * 20_000, ["a"] * 20_000),
        ("x " + "\\href{u}{\\footnote{@a\\gls}} " * 20_000, ["a"] * 20_000),
        ("x " + "\\emph{y $ @a} " * 20_000, ["a"] * 20_000),
        ("x \\emph{" + "\\textbf{y} " * 1_500 + "@a}", []),  # within the longest group read
    ],
    ids=["failing commands", "failing in failing", "dollars left open", "in one group"],
)
def test_braces_read_as_text_are_read_once(text: str, cited: list[str]) -> None:
    """The braces pandoc reads as inline text or as blocks (``\\textbf{..}``,
    ``\\footnote{..}``) are read through for what fails there, each command in them read
    once: a command whose reading failed is text, and read again from where it starts,
    its braces' answer remembered."""
    _read_in_bounds(text + "\n\n# H\n\n[@k]\n", [*cited, "k"])


@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("x " + "[\\section @a " * 20_000, ["a"] * 20_000),
        ("x " + "[y \\par @a] " * 20_000, []),
        ("x " + "[\\section{y " * 20_000 + "@a", ["a"]),
        ("x " + "[\\begin{e} @a " * 20_000, ["a"] * 20_000),
        ("x " + "".join(f"[\\begin{{e{i}}} @a " for i in range(20_000)), ["a"] * 20_000),
        ("x [" + "\\begin{e} @a " * 20_000 + "\\end{e}]", []),
        ("x [" + "\\parbox{y}" * 20_000 + " @a]", ["a"]),  # one group each
        ("x " + "\\footnote{@a \\section} " * 20_000, ["a"] * 20_000),
        ("x \\foo" + "\\xspace " * 20_000 + "[@a]", []),
        ("x " + "\\xspace" * 20_000 + " [@a]", ["a"]),
    ],
    ids=[
        "no group, brackets open",
        "blocks, brackets closed",
        "groups left open",
        "environments never closed",
        "environments of many names",
        "environments closed once",
        "groups after groups",
        "blocks failing in blocks",
        "xspaces after a command",
        "xspaces alone",
    ],
)
def test_raw_tex_blocks_in_brackets_are_found_in_bounds(text: str, cited: list[str]) -> None:
    """A raw TeX block in a bracket (a block command, one with its groups or token, a
    closed environment) ends pandoc's reading of the bracket's text; each command in a
    bracket is asked once, with no walk over the brackets open around it, the groups'
    closings and the environments' ends looked up. The ``\\xspace`` commands pandoc
    drops after a command are passed over once for it, not from each of them."""
    _read_in_bounds(text + "\n\n# H\n\n[@k]\n", [*cited, "k"])


@pytest.mark.parametrize(
    ("text", "dialect", "cited"),
    [
        ("[\\b [x\n\n" * 20_000 + "@a", PANDOC_2, ["a"]),
        ("x [" + "\\textbf{[}\n\n" * 20_000 + "@a]", PANDOC_2, []),
        ("x [" + "\\textbf{[}\n\n" * 20_000 + "@a]", PANDOC_3_9, ["a"]),
        ("x [" + "\\textbf{[} " * 20_000 + "@a]", PANDOC_3_9, ["a"]),
        ("x " + "[\\section{@a]} " * 20_000, PANDOC_2, ["a"] * 20_000),
        ("x " + "[\\section{@a]} " * 20_000, PANDOC_3_9, ["a"] * 20_000),
    ],
    ids=[
        "tokens over paragraphs",
        "groups over paragraphs",
        "groups over paragraphs, pandoc 3",
        "groups in one bracket",
        "blocks past the bracket",
        "blocks past the bracket, pandoc 3",
    ],
)
def test_raw_tex_in_brackets_is_passed_over_in_bounds(
    text: str, dialect: PandocDialect, cited: list[str]
) -> None:
    """Where pandoc looks for a bracket's ``]`` (pandoc 2 over blank lines), each raw TeX
    command is read once and passed over with its arguments, in one pass over the text;
    each command in a bracket is read up to the bracket's ``]``, once."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n# H\n\n[@k]\n", dialect)
    assert time.process_time() - t0 < 8
    assert [c.key for c in doc.citations] == [*cited, "k"]


@pytest.mark.parametrize("dialect", [PANDOC_2, PANDOC_3_9], ids=["pandoc 2", "pandoc 3.9"])
@pytest.mark.parametrize(
    ("text", "cited"),
    [
        ("x " + "\\maketitle\\bf $y @b$ " * 20_000 + "@a", []),
        ("x " + "\\par @b " * 20_000 + "@a", ["b"] * 20_000 + ["a"]),
        ("x " + "<div> @b " * 20_000 + "@a", ["b"] * 20_000 + ["a"]),
        ("| x | " + "\\par @b | " * 20_000 + "\n|" + "---|" * 20_001 + "\n", []),
        ("x \\par\n@b. y @c \\par\n" * 10_000 + "@a", ["c"] * 10_000 + ["a"]),
        ("> x \\par\n" * 20_000 + "> @a", ["a"]),
        ("\\newpage\n@b. y @c\n\n\\par @d\n: e\n\n" * 10_000 + "@a", ["c", "d"] * 10_000 + ["a"]),
    ],
    ids=[
        "blocks after blocks",
        "raw TeX blocks",
        "tags",
        "in a table's cells",
        "blocks on the lines after",
        "lines after in a quote",
        "raw TeX blocks where blocks start",
    ],
)
def test_blocks_in_a_paragraphs_text_are_found_in_bounds(
    text: str, cited: list[str], dialect: PandocDialect
) -> None:
    """Each raw TeX block and block element's tag in a paragraph's text ends the text and
    starts a block after it (in a table's cell, the rest is dropped): the block pass reads
    the line once for them all, what opens right after one reads on from there (a command,
    math), and nothing is read twice from the same place."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n# H\n\n[@k]\n", dialect)
    assert time.process_time() - t0 < 8
    assert [c.key for c in doc.citations] == [*cited, "k"]


def _read_in_bounds(text: str, cited: list[str]) -> None:
    """Read ``text`` within 8 s of CPU and check that it cites ``cited``."""
    t0 = time.process_time()
    doc = parse_markdown(P, text)
    assert time.process_time() - t0 < 8
    assert [c.key for c in doc.citations] == cited
