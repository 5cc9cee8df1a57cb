"""Property tests: the document parsers never raise, and every span they return lies inside
the text and slices to what it names."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from citewarden.model import ParsedDocument, Span
from citewarden.parsing.latex import completion_context as latex_completion
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import completion_context as markdown_completion
from citewarden.parsing.markdown import parse_markdown, parse_metadata_yaml
from citewarden.parsing.yamlmeta import markdown_text

SETTINGS = settings(max_examples=250, deadline=None)
YAML_SETTINGS = settings(max_examples=120, deadline=None)

LATEX_PIECES = [
    "\\cite", "\\citep", "\\citeA", "\\cites", "\\parencites", "\\nocite", "\\nocite{*}",
    "\\bibitem", "\\input", "\\input ", "\\include", "\\import", "\\bibliography",
    "\\addbibresource", "\\documentclass", "\\verb", "\\verb*", "\\url", "\\lstinline",
    "\\mintinline", "\\href", "\\begin{verbatim}", "\\end{verbatim}", "\\begin{minted}",
    "\\end{document}", "\\newcommand", "\\\\", "\\%", "\\", "{", "}", "[", "]", "(", ")",
    "<", ">", "%", "% !TEX root = m.tex", "% citewarden: ignore", "|", "*", ",", ",,",
    "#1", "a", "key:1.x", "Müller", "😀", " ", "\t", "\n", "\n\n", "\r\n",
]  # fmt: skip
MARKDOWN_PIECES = [
    "@", "-@", "@a", "@{", "}", "{", "[", "]", "(", ")", "<", ">", ";", ",", ".", ":", "/",
    "`", "``", "```", "~~~", "<!--", "-->", "<!-- citewarden: ignore -->", "\\", "\\@",
    "---", "...", "bibliography: ", "nocite: ", "'@*'", '"', "'", "- ", "    ", "\t", "^",
    "mail@x.org", "<a@b.c>", "](", "http://x/@y", "key", "Müller", "日本", "😀", "#", "%",
    "*", "|", " ", "\n", "\n\n", "\r\n",
]  # fmt: skip


def pieces(alphabet: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.lists(st.sampled_from(alphabet), max_size=60).map("".join),
        st.text(max_size=200),
    )


def check_document(doc: ParsedDocument, text: str) -> None:
    n = len(text)

    def inside(span: Span) -> None:
        assert 0 <= span.start <= span.end <= n

    for c in doc.citations:
        inside(c.span)
        inside(c.command_span)
        assert c.command_span.start <= c.span.start <= c.span.end <= c.command_span.end
        if c.key:
            assert text[c.span.start : c.span.end] == c.key
        else:
            assert len(c.span) == 0
    for link in doc.links:
        inside(link.span)
        written = text[link.span.start : link.span.end]
        # YAML may write a value with escapes ("a\x41", 'it''s') or fold it over lines
        assert written == link.target or any(ch in written for ch in "\\'\n\"")
    for key, span in doc.bibitems:
        inside(span)
        assert text[span.start : span.end] == key
    for finding in doc.problems:
        inside(finding.location.span)
    assert all(line >= 0 for line in doc.suppressed_lines)


@SETTINGS
@given(pieces(LATEX_PIECES))
def test_latex_parser_total_and_spans_exact(text: str) -> None:
    doc = parse_latex(Path("x.tex"), text, ("mycite",))
    check_document(doc, text)
    for link in doc.links:
        assert text[link.span.start : link.span.end] == link.target
    for c in doc.citations:
        assert "," not in c.key and "{" not in c.key and "}" not in c.key


@SETTINGS
@given(pieces(MARKDOWN_PIECES))
def test_markdown_parser_total_and_spans_exact(text: str) -> None:
    check_document(parse_markdown(Path("x.md"), text), text)


@YAML_SETTINGS
@given(pieces(MARKDOWN_PIECES))
def test_metadata_parser_total(text: str) -> None:
    check_document(parse_metadata_yaml(Path("_quarto.yml"), text), text)


@st.composite
def text_and_offset(draw: st.DrawFn, alphabet: list[str]) -> tuple[str, int]:
    text = draw(pieces(alphabet))
    return text, draw(st.integers(min_value=0, max_value=len(text)))


def check_completion(text: str, offset: int, ctx: object) -> None:
    if ctx is None:
        return
    from citewarden.model import CompletionContext

    assert isinstance(ctx, CompletionContext)
    assert 0 <= ctx.span.start <= offset <= ctx.span.end <= len(text)
    assert ctx.prefix == text[ctx.span.start : offset]


@SETTINGS
@given(text_and_offset(LATEX_PIECES))
def test_latex_completion_total(case: tuple[str, int]) -> None:
    text, offset = case
    check_completion(text, offset, latex_completion(text, offset))


@SETTINGS
@given(text_and_offset(MARKDOWN_PIECES))
def test_markdown_completion_total(case: tuple[str, int]) -> None:
    text, offset = case
    check_completion(text, offset, markdown_completion(text, offset))


@YAML_SETTINGS
@given(
    st.lists(
        st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_:./-]{0,12}", fullmatch=True), min_size=1, max_size=4
    ),
    st.sampled_from(["plain", "single", "double"]),
)
def test_yaml_bibliography_spans_slice_to_targets(names: list[str], style: str) -> None:
    quote = {"plain": "", "single": "'", "double": '"'}[style]
    items = ", ".join(f"{quote}{name}.bib{quote}" for name in names)
    text = f"---\nbibliography: [{items}]\n---\n\nBody.\n"
    doc = parse_markdown(Path("x.md"), text)
    if not doc.problems:  # some plain names are not valid YAML scalars (e.g. "a: b")
        # pandoc reads a name as Markdown text (``a--b`` has an en dash)
        assert [link.target for link in doc.links] == [
            markdown_text(f"{name}.bib") for name in names
        ]
        for link, name in zip(doc.links, names, strict=True):
            assert text[link.span.start : link.span.end] == f"{name}.bib"


# ---- large degenerate inputs: read completely, with the same answers as small ones -----

N = 4000


def test_many_unclosed_latex_groups() -> None:
    text = "\\cite{a " * N + "\n\n\\cite{k}"
    assert [c.key for c in parse_latex(Path("x.tex"), text).citations] == ["k"]
    text = "\\cite[a " * N + "\n\n\\cites(x" * N + "\n\n\\citep[p]{k}"
    assert [c.key for c in parse_latex(Path("x.tex"), text).citations] == ["k"]
    text = "\\iffalse " * N + "\\cite{k}"
    assert [c.key for c in parse_latex(Path("x.tex"), text).citations] == ["k"]
    text = "\\newcommand{\\x}[1]{{#1}" * N + "\\cite{k}"
    assert [c.key for c in parse_latex(Path("x.tex"), text).citations] == ["k"]


def test_many_unclosed_markdown_constructs() -> None:
    assert [c.key for c in parse_markdown(Path("x.md"), "@{" * N + " @k").citations] == ["k"]
    text = "<!-- " * N + "@k"
    assert [c.key for c in parse_markdown(Path("x.md"), text).citations] == ["k"]
    text = "`a " * (N + 1) + "@k"  # pairs make code spans; the last backtick is literal
    assert [c.key for c in parse_markdown(Path("x.md"), text).citations] == ["k"]
    text = "[@a " * N
    assert len(parse_markdown(Path("x.md"), text).citations) == N
    text = "<pre> <script> <style>x</style> `<!--` <textarea> --> " * N + "@k"
    assert [c.key for c in parse_markdown(Path("x.md"), text).citations] == ["k"]
