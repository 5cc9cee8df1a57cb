"""Markdown parser: pandoc citation grammar, code and comments, YAML metadata, completion.

Fixtures mark every expected key with ``⟦...⟧`` (``⟦⟧`` is an empty key); the parser must
report exactly those keys, in order, with exactly those spans.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from citewarden.model import CitationKind, Code, DocumentKind, LinkKind, Severity
from citewarden.parsing.markdown import completion_context, parse_markdown, parse_metadata_yaml
from citewarden.parsing.pandoc_syntax import PANDOC_3, PANDOC_3_9, PandocDialect
from markers import parse_markers

P = Path("paper.md")


def check_keys(marked: str) -> None:
    m = parse_markers(marked)
    doc = parse_markdown(P, m.text)
    got = [(c.key, c.span) for c in doc.citations]
    want = [(m.slice(s), s) for s in m.spans]
    assert got == want
    for c in doc.citations:
        assert c.command_span.start <= c.span.start and c.span.end <= c.command_span.end


CITATION_CASES = {
    "bracketed group": "Known [@⟦a⟧; @⟦b⟧, p. 3].",
    "prefixes and locators": "[see @⟦a⟧, pp. 33-35; also @⟦b⟧, chap. 1]",
    "suppress author": "Smith says [-@⟦smith04⟧].",
    "narrative": "@⟦smith04⟧ says so, and @⟦jones⟧ [p. 3] too.",
    "braced keys": "@{⟦weird.key.⟧} and [@{⟦https://doi.org/10.1000/xyz⟧}] and @{⟦a{b}c⟧}",
    "braced key with a space is no citation": "@{weird key} and @{open",
    "empty braced key": "[@{⟦⟧}]",
    "trailing punctuation": "(@⟦a⟧), @⟦b⟧; @⟦Foo_bar.baz⟧. @⟦c⟧? @⟦d⟧'s @⟦e⟧:",
    "internal punctuation": "@⟦a:b⟧ @⟦a#b$c%d&e-f+g?h<i>j~k/l⟧ @⟦x.y.z⟧",
    "double punctuation ends a key": "@⟦Foo_bar⟧--baz @⟦a⟧..b",
    "colon and slash before a slash": "@⟦http://x.org/a⟧ and @⟦doi:10.1000/182⟧",
    "digit and underscore starts": "@⟦2019report⟧ @⟦_private⟧",
    "e-mail addresses": "Mail foo@bar.com or first.last@x.org, x.@y but _@⟦k⟧ and a-@⟦m⟧.",
    "autolinks": "<foo@bar.com> <mailto:x@y.org> <https://x.org/@user> @⟦k⟧",
    "code spans": "`@a` and ``x `@b` y`` and ```@c``` but @⟦d⟧",
    "unmatched backtick is literal": "a ` b @⟦k⟧",
    "code span does not cross a paragraph": "a ` b\n\n@⟦k⟧ `",
    "fenced code": "```python\n@decorator\n```\n\n~~~~\n@x\n~~~\n@y\n~~~~\n\n@⟦after⟧",
    "fence with info in braces (R Markdown)": "```{r}\nx@y; @z\n```\n`r 1+1` [@⟦k⟧]",
    "an unclosed fence is text": "@⟦a⟧\n\n```\n@⟦b⟧\n\n~~~~\n@⟦c⟧\n~~~\n\nAs @⟦d⟧ shows.\n",
    "indented code after a paragraph": "Text.\n\n    @code\n    more @code2\n\n@⟦after⟧",
    "indented list continuation is text": "- item\n\n    continued [@⟦a⟧]\n\n    again @⟦b⟧",
    "definition list": "Term\n\n:   Definition [@⟦a⟧]\n\n    More @⟦b⟧",
    "indented code in a list item": (
        "As @⟦a⟧ shows:\n\n1. Decorate the function:\n\n        @lru_cache\n"
        "        def fib(n): ...\n\n2. Install the types:\n\n        npm install @types/node\n\n"
        "   then @⟦b⟧.\n"
    ),
    "indented code in nested list items": (
        "- item @⟦a⟧\n\n      @code\n\n  - nested @⟦b⟧\n\n        @code2\n\n      more @⟦c⟧\n"
    ),
    "a list item's content column": (
        "10. ten @⟦a⟧\n\n    more @⟦b⟧\n\n        @code\n\n1.      @code2\n\n   para @⟦c⟧\n"
    ),
    "indented code in a block quote": ">     npm @install\n\n> quote @⟦a⟧\n>\n>     @code\n",
    "a line without a block quote's marks is in it": (
        "> quote @⟦a⟧\n    lazy @⟦b⟧\n\n>\n    lazy @⟦c⟧\n"
    ),
    "indented code after a heading, a rule, a table": (
        "# Heading @⟦a⟧\n    @code\n\n* * *\n    @code2\n\nTitle @⟦b⟧\n=====\n    @code3\n\n"
        "| x | y |\n|---|---|\n| @⟦c⟧ | 2 |\n    @code4\n"
    ),
    "indented code in a definition": (
        "Term @⟦a⟧\n\n:   Definition @⟦b⟧\n\n        @code\n\n    More @⟦c⟧\n"
    ),
    "indented code after a fenced div's fence and a reference definition": (
        "::: note\n    @code\n:::\n    @code2\n\n[x]: http://a\n    @code3\n\n@⟦a⟧\n"
    ),
    "tabs stop every four columns": "- a @⟦a⟧\n\n\tpara @⟦b⟧\n\n\t  @code\n",
    "a tilde fence goes on in a paragraph, not in a list item": (
        "text @⟦a⟧\n~~~\n@⟦b⟧\n~~~\n\n- item @⟦c⟧\n~~~\n@d\n~~~\n"
    ),
    "an indented paragraph at the top is code": "  text @⟦a⟧\n\n    @code\n",
    "indented code after an HTML comment or an end tag, not after a start tag": (
        "<!-- citewarden: ignore -->\n    @code\n\n<!--\n@x\n-->\n    @code2\n\n"
        "<p>\ntext @⟦a⟧\n</p>\n    @code3\n\n<section>\n    more @⟦b⟧\n"
    ),
    "html comments": "<!-- @a -->\n<!--\n[@b]\n-->\n[@⟦c⟧] <!-- unclosed @⟦d⟧",
    "escapes": r"\@a and \[@⟦b⟧\]",
    "link destinations": "[see @⟦a⟧](http://x.org/@notme) and [text](<y@z>) @⟦b⟧",
    "link reference definitions": (
        "[foo]: http://x.org/@user\n  [bar]: <http://y>\n[@⟦key⟧]: url:https://x.org/1\n"
        "Text [foo] and @⟦k⟧: more"
    ),
    "inline note": "Text^[see @⟦a⟧, p. 3].",
    "empty brackets and notes before a link, a label or a code block": (
        "^[]^[][](see @k) ^[]^[]: @⟦m⟧\n[]: @⟦n⟧\n^[][@⟦a⟧; @⟦b⟧]^[] [^[]@e] ^[^[]@⟦d⟧]^[]\n"
        "```\n@f\n```\n^[]^[]\n\n    @g\n"
    ),
    "CRLF": "[@⟦a⟧;\r\n @⟦b⟧]\r\n\r\n```\r\n@c\r\n```\r\n@⟦d⟧\r\n",
    "non-ASCII": "日本語 😀 [@⟦Müller2020⟧] und @⟦東京⟧.",
    "LaTeX citations are not pandoc citations": "\\cite{a} @⟦b⟧",
    "dash before at": "--@⟦a⟧ [--@⟦b⟧]",
    "cross-references are citations outside Quarto": (
        "See @⟦fig-plot⟧, [@⟦tbl-data⟧], @⟦sec:intro⟧ and @⟦eq-energy⟧, @⟦figueroa2020⟧ [@⟦def⟧]."
    ),
    "Quarto shortcodes": "{{< video https://x.org/@chan >}} {{< meta title >}} @⟦k⟧",
    "example lists": "(@good) An example.\n(@) Another.\n\nAs (@good) shows, (@⟦other⟧) is a key.",
    "a bare reference to an example label": "(@good) An example.\n\nAs @good shows, @⟦k⟧.",
    "footnote definitions are text": "See.[^1]\n\n[^1]: See @⟦a⟧ and [@⟦b⟧].\n[x]: http://y/@⟦c⟧",
    "TeX math": "$@a$ and $$@b$$ and $$\n@c\n$$ but $ @⟦d⟧$ and $5 or @⟦e⟧ $6",
    "raw HTML attributes": "<span title=\"@a\" data-x='@b'>@⟦c⟧</span> <br/> a < b @⟦d⟧",
    "verbatim HTML blocks": (
        "<style>\n@media print { body { font-size: 10pt; } }\n\n@import url(x.css);\n</style>"
        '\n\n<PRE class="x">\n@a\n\n@b\n</pre> after @⟦c⟧\n\n'
        '<script>\nx = "@d";\n\ny = "@e";\n</script>\n<textarea>\n@f\n</textarea>\n@⟦g⟧'
    ),
    "verbatim elements inside a paragraph": (
        "Text <pre>@a</pre> @⟦b⟧, <code>@⟦c⟧</code> and <script>\n@d\n\n@e</script>."
    ),
    "verbatim elements close where their tags balance": (
        "<pre>@a <pre>@b</pre> @c</pre> @⟦d⟧ <style>@e <!-- </style> --> @f</style> @⟦g⟧ "
        '<script>s = "<script>"; @h</script> @⟦i⟧ <pre title="</pre>">@j</pre > @⟦k⟧'
    ),
    "unclosed or self-closing verbatim elements are text": "<pre/> @⟦a⟧ <textarea> @⟦b⟧",
    "a verbatim block holds no fence nor metadata": (
        "<pre>\n```\n@a\n\n---\nnocite: '@b'\n---\n</pre>\n@⟦c⟧\n\n> <pre>\n> @d\n> </pre>"
    ),
    "a bracket around a verbatim element is no citation group": "[@⟦a⟧ <pre>x</pre>]",
    "raw TeX": "\\emph{@a} \\cite[p]{@b} \\foo @⟦c⟧\n\n\\begin{figure}\n@d\n\\end{figure}\n@⟦e⟧",
    "two citations without a space": "@⟦a⟧@⟦b⟧ but x@y",
    "a braced key with a bracket": "[@{⟦a]b⟧}] and @⟦c⟧",
}


@pytest.mark.parametrize("marked", CITATION_CASES.values(), ids=CITATION_CASES.keys())
def test_citations(marked: str) -> None:
    check_keys(marked)


def test_quarto_cross_references_are_not_citations_in_a_qmd_document() -> None:
    text = "See @fig-plot, [@tbl-data], @eq-energy, @sec:intro, @figueroa2020 [@def]."
    doc = parse_markdown(Path("paper.qmd"), text)
    assert [c.key for c in doc.citations] == ["sec:intro", "figueroa2020", "def"]


def test_quarto_reads_a_cross_reference_by_its_type_in_any_case() -> None:
    """Quarto's crossref filter takes a citation's letters up to its first "-", lower-cased,
    as its type: ``@Fig-plot`` (capitalised at a sentence's start) is a cross-reference,
    as are algorithms (Quarto 1.8), proofs and callouts; ``@figure-x`` is a citation."""
    text = (
        "@Fig-plot and @TBL-x, @alg-sort, @prf-main, @nte-a, @Sec-intro; "
        "@figure-x, @algo-y, @fig_z, @x-fig-w, @fig:v."
    )
    doc = parse_markdown(Path("paper.qmd"), text)
    assert [c.key for c in doc.citations] == ["figure-x", "algo-y", "fig_z", "x-fig-w", "fig:v"]


def test_a_quarto_projects_markdown_cross_references_are_not_dangling(tmp_path: Path) -> None:
    """The dangling check leaves out what Quarto reads as a cross-reference, by the same
    reading as the .qmd parse (``@Fig-x``, ``@alg-x`` too), in a Markdown file of a
    Quarto project."""
    from checking import check
    from citewarden.project import Workspace

    (tmp_path / "_quarto.yml").write_text("bibliography: refs.bib\n", encoding="utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    (tmp_path / "paper.md").write_text(
        "See @Fig-plot, @alg-sort, @prf-a, @tbl-data and @a; but @fig:x and @figure-y.\n",
        encoding="utf-8",
    )
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    dangling = sorted(
        str(f.data["key"]) for fs in check(ws).values() for f in fs if f.code is Code.DANGLING
    )
    assert dangling == ["fig:x", "figure-y"]


def _dangling_by_file(folder: Path) -> dict[str, list[str]]:
    """The dangling keys of each file of ``folder``, sorted, by file name."""
    from checking import check
    from citewarden.project import Workspace

    ws = Workspace(root=folder)
    ws.add_folder(folder)
    found: dict[str, list[str]] = {}
    for path, fs in check(ws).items():
        keys = sorted(str(f.data["key"]) for f in fs if f.code is Code.DANGLING)
        if keys:
            found[Path(path).name] = keys
    return found


CROSSREF_RUNS = {
    "front matter list": "---\nbibliography: refs.bib\nfilters:\n  - pandoc-crossref\n---\n",
    "front matter flow list": "---\nbibliography: refs.bib\nfilters: [pandoc-crossref]\n---\n",
    "R Markdown pandoc_args": (
        "---\nbibliography: refs.bib\noutput:\n  pdf_document:\n"
        '    pandoc_args: ["--filter", "pandoc-crossref"]\n---\n'
    ),
}


@pytest.mark.parametrize("front", CROSSREF_RUNS.values(), ids=CROSSREF_RUNS.keys())
def test_pandoc_crossref_labels_are_not_dangling_where_the_filter_runs(
    tmp_path: Path, front: str
) -> None:
    """pandoc-crossref turns @fig:x, [@tbl:a; @b] (its part of the group) and @Sec:s into
    numbers before citeproc runs: only the other keys can be dangling then."""
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    body = "See @fig:plot, [@tbl:x; @b], @Sec:intro, @eq:one and @a; but @figure:y.\n"
    (tmp_path / "paper.md").write_text(front + body, encoding="utf-8")
    (tmp_path / "plain.md").write_text("---\nbibliography: refs.bib\n---\n" + body, "utf-8")
    assert _dangling_by_file(tmp_path) == {
        "paper.md": ["b", "figure:y"],
        # pandoc without the filter cites every one of them
        "plain.md": ["Sec:intro", "b", "eq:one", "fig:plot", "figure:y", "tbl:x"],
    }


def test_pandoc_crossref_in_a_quarto_projects_filters(tmp_path: Path) -> None:
    """A project's _quarto.yml that runs pandoc-crossref takes the labels of each of its
    documents."""
    (tmp_path / "_quarto.yml").write_text(
        "bibliography: refs.bib\nfilters:\n  - pandoc-crossref\n", encoding="utf-8"
    )
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    (tmp_path / "paper.qmd").write_text("See @fig:plot, @fig-x, @lst:code and @a, @b.\n", "utf-8")
    assert _dangling_by_file(tmp_path) == {"paper.qmd": ["b"]}


def test_pandoc_crossref_in_the_filters_of_a_project_file_naming_no_bibliography(
    tmp_path: Path,
) -> None:
    """A _quarto.yml or _metadata.yml that only runs pandoc-crossref takes the labels of
    the documents below it too, and a _quarto.yml makes them Quarto documents."""
    (tmp_path / "_quarto.yml").write_text("project:\n  type: default\n", encoding="utf-8")
    (tmp_path / "_metadata.yml").write_text("filters:\n  - pandoc-crossref\n", "utf-8")
    (tmp_path / "refs.bib").write_text("@misc{a, title={A}}\n", encoding="utf-8")
    (tmp_path / "paper.md").write_text(
        "---\nbibliography: refs.bib\n---\nSee @fig:plot, @fig-x and @a, @b.\n", "utf-8"
    )
    assert _dangling_by_file(tmp_path) == {"paper.md": ["b"]}


def test_citation_modes_and_command_spans() -> None:
    text = (
        "[see @a, p. 3; @b] [-@c] @d [p. 3] [@e; no key] [@f](http://x.org) [@g]{.cls}"
        " ^[note @h] [@i]"
    )
    doc = parse_markdown(P, text)
    rows = [
        (c.key, c.command, text[c.command_span.start : c.command_span.end]) for c in doc.citations
    ]
    assert rows == [
        ("a", "normal", "[see @a, p. 3; @b]"),
        ("b", "normal", "[see @a, p. 3; @b]"),
        ("c", "suppress-author", "[-@c]"),
        ("d", "in-text", "@d"),
        ("e", "in-text", "@e"),
        ("f", "in-text", "@f"),
        ("g", "in-text", "@g"),
        ("h", "in-text", "@h"),
        ("i", "normal", "[@i]"),
    ]
    assert all(c.kind is CitationKind.CITE for c in doc.citations)
    assert doc.kind is DocumentKind.MARKDOWN


# ---- YAML metadata ---------------------------------------------------------------------


def test_front_matter_bibliography_list_and_nocite() -> None:
    m = parse_markers(
        "---\n"
        'title: "A paper"\n'
        "bibliography:\n"
        "  - ⟦b|refs.bib⟧\n"
        '  - "⟦b|other refs.bib⟧"\n'
        "nocite: |\n"
        "  @⟦n|n1⟧, @⟦n|n2⟧\n"
        "---\n"
        "\n"
        "Body [@⟦c|a⟧].\n"
    )
    doc = parse_markdown(P, m.text)
    assert [(link.kind, link.target, link.command) for link in doc.links] == [
        (LinkKind.BIBLIOGRAPHY, "refs.bib", "bibliography"),
        (LinkKind.BIBLIOGRAPHY, "other refs.bib", "bibliography"),
    ]
    for link in doc.links:
        assert m.text[link.span.start : link.span.end] == link.target
    rows = [(c.key, c.kind, m.text[c.span.start : c.span.end]) for c in doc.citations]
    assert rows == [
        ("n1", CitationKind.NOCITE, "n1"),
        ("n2", CitationKind.NOCITE, "n2"),
        ("a", CitationKind.CITE, "a"),
    ]
    assert [c.span for c in doc.citations] == m.spans[2:]
    assert not doc.nocite_all and doc.problems == ()


@pytest.mark.parametrize(
    ("front", "targets"),
    [
        ("bibliography: refs.bib", ["refs.bib"]),
        ("bibliography: [a.bib, 'b c.bib', \"d.json\"]", ["a.bib", "b c.bib", "d.json"]),
        # pandoc reads the name as Markdown: its apostrophe is a curly one
        ("bibliography: 'it''s.bib'", ["it\u2019s.bib"]),
        ("bibliography:", []),
        ("format:\n  html:\n    bibliography: per-format.bib", []),
        ("metadata:\n  bibliography: other.bib", []),
    ],
)
def test_front_matter_bibliography_forms(front: str, targets: list[str]) -> None:
    text = f"---\n{front}\n...\n\ntext\n"
    doc = parse_markdown(P, text)
    assert [link.target for link in doc.links] == targets
    for link in doc.links:
        if link.target != "it\u2019s.bib":
            assert text[link.span.start : link.span.end] == link.target
        else:
            assert text[link.span.start : link.span.end] == "it''s.bib"


def test_a_qmd_documents_per_format_bibliography() -> None:
    text = "---\nformat:\n  html:\n    bibliography: per-format.bib\n---\n"
    assert [link.target for link in parse_markdown(Path("a.qmd"), text).links] == ["per-format.bib"]


def test_a_later_blocks_bibliography_replaces_the_front_matters() -> None:
    text = "---\nbibliography: [a.bib, b.bib]\n---\n\nText.\n\n---\nbibliography: c.bib\n---\n"
    assert [link.target for link in parse_markdown(P, text).links] == ["c.bib"]


@pytest.mark.parametrize(
    ("nocite", "all_", "keys"),
    [
        ("nocite: '@*'", True, []),
        ('nocite: "@a, @*"', True, ["a"]),
        ('nocite: ["@a", "@b"]', False, ["a", "b"]),
        ("nocite: |\n  @a\n  @{weird.key}", False, ["a", "weird.key"]),
        ("nocite: 'mail x@y.org'", False, []),
    ],
)
def test_front_matter_nocite(nocite: str, all_: bool, keys: list[str]) -> None:
    text = f"---\n{nocite}\n---\n"
    doc = parse_markdown(P, text)
    assert doc.nocite_all is all_
    assert [c.key for c in doc.citations] == keys
    for c in doc.citations:
        assert c.kind is CitationKind.NOCITE and c.command == "nocite"
        assert text[c.span.start : c.span.end] == c.key


def test_yaml_error_is_a_finding_and_the_body_is_still_read() -> None:
    text = "---\ntitle: [unclosed\nbibliography: refs.bib\n---\n\n[@a] and @b\n"
    doc = parse_markdown(P, text)
    assert [c.key for c in doc.citations] == ["a", "b"]
    assert len(doc.problems) == 1
    problem = doc.problems[0]
    assert problem.code is Code.YAML_SYNTAX
    assert problem.effective_severity is Severity.WARNING
    assert 4 <= problem.location.span.start < text.index("\n---\n", 4) + 1
    assert problem.location.path == P


def test_later_yaml_block_and_horizontal_rules() -> None:
    text = (
        "Intro @a.\n\n---\nbibliography: late.bib\nnocite: '@n'\n---\n\n"
        "Text.\n\n---\n\nMore @b.\n\n---\nJust a line\n---\n\n@c"
    )
    doc = parse_markdown(P, text)
    assert [link.target for link in doc.links] == ["late.bib"]
    assert [(c.key, c.kind) for c in doc.citations] == [
        ("a", CitationKind.CITE),
        ("n", CitationKind.NOCITE),
        ("b", CitationKind.CITE),
        ("c", CitationKind.CITE),
    ]


def test_front_matter_escaped_at_signs_do_not_cite() -> None:
    m = parse_markers("---\nabstract: See \\@a and @⟦b⟧.\n---\nText.\n")
    doc = parse_markdown(Path("d.md"), m.text)
    assert [(c.key, c.span) for c in doc.citations] == [("b", m.spans[0])]


def test_front_matter_fields_cite_but_those_ending_in_an_underscore() -> None:
    m = parse_markers(
        "---\n"
        "title: 'On @⟦t⟧'\n"
        "author: 'me @⟦a⟧'\n"
        "abstract: |\n  Inspired by @⟦Zeileis2008⟧, see [@⟦b⟧; @⟦c⟧].\n"
        "raw_: '@notakey'\n"
        "deep: [{x: '@⟦d⟧', y_: ['@nokey']}]\n"
        "csl: '@style.csl'\n"
        "---\n"
        "`@code` and @⟦k⟧\n"
    )
    doc = parse_markdown(P, m.text)
    assert [(c.key, c.span) for c in doc.citations] == [(m.slice(s), s) for s in m.spans]
    assert [c.command for c in doc.citations] == ["metadata"] * 6 + ["in-text"]


def test_metadata_files() -> None:
    text = (
        "project:\n  type: book\n"
        "bibliography: references.bib\n"
        "nocite: |\n  @extra\n"
        "metadata:\n  bibliography: [defaults.bib]\n"
        "format:\n  pdf:\n    bibliography: pdf.bib\n  html: default\n"
    )
    doc = parse_metadata_yaml(Path("_quarto.yml"), text)
    assert [link.target for link in doc.links] == ["references.bib", "defaults.bib", "pdf.bib"]
    assert [(c.key, c.kind) for c in doc.citations] == [("extra", CitationKind.NOCITE)]
    for link in doc.links:
        assert text[link.span.start : link.span.end] == link.target
    bad = parse_metadata_yaml(Path("_metadata.yml"), "bibliography: [a.bib\n")
    assert [p.code for p in bad.problems] == [Code.YAML_SYNTAX]
    assert parse_metadata_yaml(Path("_quarto.yml"), "- just\n- a list\n").links == ()


REFERENCES_CASES = {
    "block list": (
        '---\nreferences:\n- id: ⟦inl⟧\n  type: book\n- type: book\n  id: "⟦q u⟧"\n---\n'
    ),
    "flow list, numeric id": "---\nreferences: [{id: ⟦inl⟧, type: book}, {id: ⟦2020⟧}]\n---\n",
    "a mapping is no list": "---\nreferences:\n  id: single\n---\n",
    "a later block replaces the front matter's": (
        "---\nreferences: [{id: early}]\n---\n\nText.\n\n---\nreferences:\n- id: ⟦late⟧\n...\n"
    ),
    "an empty later list too": "---\nreferences: [{id: early}]\n---\n\n---\nreferences: []\n---\n",
    "anchors are read once": ("---\nreferences:\n- &x {id: ⟦a⟧}\n- *x\ntitle: t\n---\n"),
}


@pytest.mark.parametrize("marked", REFERENCES_CASES.values(), ids=REFERENCES_CASES.keys())
def test_references_items_define_their_ids(marked: str) -> None:
    m = parse_markers(marked)
    doc = parse_markdown(P, m.text)
    assert [(key, span) for key, span in doc.bibitems] == [(m.slice(s), s) for s in m.spans]
    assert doc.citations == () and doc.problems == ()


def test_references_item_without_an_id_is_a_problem_where_it_stands() -> None:
    text = "---\nreferences:\n- id: a\n- title: No id\n  type: book\n---\n"
    doc = parse_markdown(P, text)
    assert [k for k, _ in doc.bibitems] == ["a"]
    assert [p.code for p in doc.problems] == [Code.EMPTY_KEY]
    assert doc.problems[0].location.span.start == text.index("title: No id")


def test_references_ids_pandoc_reads_as_numbers_or_booleans() -> None:
    """pandoc (2.17, 3.6.1 and 3.9) writes a number of the front matter as its YAML
    reader reads it: ``010`` is 10, ``1e3`` 1000, ``3.10`` 3.1, ``+5`` 5, where the id was
    kept as written; a boolean (``yes``, ``on``, ``n``) is no id: the item cannot be
    cited.  Quoted, or no number to it (``.5``, ``1_000``), an id is its text
    (tests/test_csl_pandoc.py has pandoc read them)."""
    m = parse_markers(
        "---\nreferences:\n- id: ⟦n|010⟧\n- {id: ⟦e|1e3⟧}\n- id: ⟦f|3.10⟧\n- id: ⟦p|+5⟧\n"
        "- id: '⟦q|010⟧'\n- id: ⟦t|.5⟧\n- id: ⟦u|1_000⟧\n- id: ⟦b|yes⟧\n---\n"
    )
    doc = parse_markdown(P, m.text)
    assert list(doc.bibitems) == [
        ("10", m.named["n"]),
        ("1000", m.named["e"]),
        ("3.1", m.named["f"]),
        ("5", m.named["p"]),
        ("010", m.named["q"]),
        (".5", m.named["t"]),
        ("1_000", m.named["u"]),
    ]
    (problem,) = doc.problems
    assert problem.code is Code.EMPTY_KEY and problem.location.span == m.named["b"]
    assert problem.message == (
        "the id yes is true or false to pandoc's YAML reader, not text: the item cannot be "
        "cited (write id: 'yes')"
    )


def test_metadata_file_references() -> None:
    text = (
        "references:\n- {id: top}\nmetadata:\n  references: [{id: defaults}]\n"
        "format:\n  html:\n    references:\n    - id: per-format\n"
    )
    doc = parse_metadata_yaml(Path("_quarto.yml"), text)
    assert [k for k, _ in doc.bibitems] == ["top", "defaults", "per-format"]
    for key, span in doc.bibitems:
        assert text[span.start : span.end] == key


def test_ignore_comment_suppresses_its_line_and_the_next() -> None:
    text = "a\n<!-- citewarden: ignore -->\n@x\nb\n`<!-- citewarden: ignore -->`\n"
    assert parse_markdown(P, text).suppressed_lines == frozenset({1, 2})


# ---- completion ------------------------------------------------------------------------

COMPLETION_CASES = {
    "inside a bracketed key": "[@⟦k|ab⟦c|⟧cd⟧]",
    "just typed the at sign": "As shown by @⟦k|⟦c|⟧⟧",
    "second key of a group": "[see @a; @⟦k|b⟦c|⟧⟧]",
    "suppress author": "[-@⟦k|x⟦c|⟧⟧]",
    "braced key": "@{⟦k|https://do⟦c|⟧i.org⟧}",
    "key with internal punctuation": "@⟦k|doi:10.1⟦c|⟧/x⟧ text",
}


@pytest.mark.parametrize("marked", COMPLETION_CASES.values(), ids=COMPLETION_CASES.keys())
def test_completion_context(marked: str) -> None:
    m = parse_markers(marked)
    cursor, key = m.named["c"], m.named["k"]
    ctx = completion_context(m.text, cursor.start)
    assert ctx is not None
    assert ctx.span == key
    assert ctx.prefix == m.text[key.start : cursor.start]


NO_COMPLETION_CASES = {
    "e-mail": "foo@ba⟦c|⟧r.com",
    "code span": "`@a⟦c|⟧`",
    "fenced code": "```\n@a⟦c|⟧\n```",
    "html comment": "<!-- @a⟦c|⟧ -->",
    "escaped": r"\@a⟦c|⟧",
    "plain text": "some te⟦c|⟧xt",
    "after a space": "@a ⟦c|⟧",
}


@pytest.mark.parametrize("marked", NO_COMPLETION_CASES.values(), ids=NO_COMPLETION_CASES.keys())
def test_no_completion_context(marked: str) -> None:
    m = parse_markers(marked)
    assert completion_context(m.text, m.named["c"].start) is None


# ---- real documents (copied from the shared corpus, see tests/data/PROVENANCE.md) -------

JSS = Path(__file__).parent / "data" / "documents" / "jss-quarto-demo"


def test_real_quarto_article() -> None:
    """The JSS Quarto demo: citations in the abstract and the body, cross-references to
    figures and tables that are not citations, code chunks, and a project _quarto.yml."""
    path = JSS / "template.qmd"
    text = path.read_text(encoding="utf-8")
    doc = parse_markdown(path, text)
    assert [link.target for link in doc.links] == ["bibliography.bib"]
    keys = [c.key for c in doc.citations]
    assert "ZeileisKleiberJackman2008" in keys
    assert doc.citations[0].command == "metadata"  # cited in the abstract
    assert "@fig-quine" in text and "@tbl-overview" in text
    assert not any(k.startswith(("fig-", "tbl-")) for k in keys)
    assert "`@cite`" in text and "cite" not in keys
    for c in doc.citations:
        assert text[c.span.start : c.span.end] == c.key
    assert doc.problems == ()
    meta = parse_metadata_yaml(JSS / "_quarto.yml", (JSS / "_quarto.yml").read_text())
    assert meta.problems == ()


DOCUMENTS = Path(__file__).parent / "data" / "documents"
MARKDOWN_DOCUMENTS = sorted(
    p for p in DOCUMENTS.rglob("*") if p.suffix.lower() in {".md", ".qmd", ".rmd"}
)
#: Cross-reference labels, which citewarden deliberately does not read as citations.
CROSSREF_LABEL = re.compile(r"^(?:fig|tbl|lst|eq|sec|thm|lem|cor|prp|cnj|def|exm|exr)[-:]")


def _pandoc_citation_ids(node: Any, out: list[str]) -> None:
    if isinstance(node, dict):
        if node.get("t") == "Cite":
            out.extend(str(c["citationId"]) for c in node["c"][0])
        for value in node.values():
            _pandoc_citation_ids(value, out)
    elif isinstance(node, list):
        for value in node:
            _pandoc_citation_ids(value, out)


@pytest.mark.parametrize(
    "path", MARKDOWN_DOCUMENTS, ids=[str(p.relative_to(DOCUMENTS)) for p in MARKDOWN_DOCUMENTS]
)
def test_real_documents_cite_what_pandoc_cites(path: Path) -> None:
    """Every citation pandoc's own reader finds (text, metadata and nocite), no more."""
    if shutil.which("pandoc") is None:
        pytest.fail("pandoc is missing (scripts/system-deps installs it)", pytrace=False)
    result = subprocess.run(
        ["pandoc", "-f", "markdown", "-t", "json", path.name],
        cwd=path.parent,
        capture_output=True,
        text=True,
        check=True,
    )
    ast = json.loads(result.stdout)
    ids: list[str] = []
    _pandoc_citation_ids(ast["meta"], ids)
    _pandoc_citation_ids(ast["blocks"], ids)
    theirs = Counter(i for i in ids if not CROSSREF_LABEL.match(i))
    ours = Counter(c.key for c in parse_markdown(path, path.read_text(encoding="utf-8")).citations)
    assert ours == theirs


def _growing_tick_runs(size: int) -> str:
    runs: list[str] = []
    length = total = 0
    while total < size:
        length += 1
        runs.append("`" * length + " ")
        total += length + 1
    return "".join(runs)


@pytest.mark.parametrize(
    ("text", "keys"),
    [
        ("$x " * 300_000 + "[@k] @b", ["k", "b"]),  # minutes: each "$" read to the end
        ("$x\n" * 300_000 + "[@k] @b", ["k", "b"]),
        ("$$ " + "$x " * 300_000 + "[@k]", ["k"]),
        ("{{<" * 300_000 + " [@k]", ["k"]),  # each shortcode read to the end of its line
        (_growing_tick_runs(4_000_000) + "[@k]", ["k"]),  # a pass for each length
    ],
    ids=["dollars", "dollar lines", "display then dollars", "shortcodes", "tick runs"],
)
def test_unclosed_math_shortcodes_and_code_spans_are_read_in_one_pass(
    text: str, keys: list[str]
) -> None:
    """A paragraph of a megabyte of what opens and never closes: each opener's search for
    its closer went on from where the last one stopped, where it read the rest of the
    paragraph again (``$x `` repeated: 11.5 s for 48 kB, about half an hour for these).
    The bound is generous (the slowest, tick runs, takes 12 s of CPU on a slow machine):
    it tells one pass from a pass per opener."""
    t0 = time.process_time()
    doc = parse_markdown(P, text)
    assert time.process_time() - t0 < 60
    assert [c.key for c in doc.citations] == keys


@pytest.mark.parametrize(
    ("text", "cites"),
    [
        # every "]" read back to its "[": the keys and semicolons of the whole nest
        ("[@a;" * 100_000 + "]" * 100_000 + " [@k]", {("a", "in-text"): 100_000}),
        ("[@a " * 100_000 + "]" * 100_000 + " [@k]", {("a", "normal"): 100_000}),
        ("[; @a " * 100_000 + "]" * 100_000 + " [@k]", {("a", "in-text"): 100_000}),
        (
            "[@a; [@b] ; " * 50_000 + "]" * 50_000 + " [@k]",
            {("a", "in-text"): 50_000, ("b", "normal"): 50_000},
        ),
        ("^[@a " * 100_000 + "]" * 100_000 + " [@k]", {("a", "in-text"): 100_000}),
        ("[^@a;" * 100_000 + "]" * 100_000 + " [@k]", {}),
    ],
    ids=["semicolons", "groups", "empty first parts", "groups inside", "notes", "note labels"],
)
@pytest.mark.parametrize("dialect", [PANDOC_3_9, PANDOC_3], ids=["3.9", "3.0-3.7"])
def test_nested_brackets_are_read_in_one_pass(
    text: str, cites: dict[tuple[str, str], int], dialect: PandocDialect
) -> None:
    """Half a megabyte of nested brackets: each "]" adds what its bracket holds to the
    bracket around it, where it read again every key and semicolon since its "["
    (``[@a;`` nested: 2.2 s for 32 kB; minutes to half an hour for these).  The bound only
    catches that: the reading takes a few seconds of CPU on the test machine
    (``bench/markdown_brackets_bench.py`` prints the figures)."""
    t0 = time.process_time()
    doc = parse_markdown(P, text, dialect)
    assert time.process_time() - t0 < 20
    assert Counter((c.key, c.command) for c in doc.citations) == {**cites, ("k", "normal"): 1}


@pytest.mark.parametrize(
    "text",
    [
        '---\nabstract: "Escaped \\u0040k1 here and @k2, tab\\t@k3 \\x40k4 \\"@k5\\""\n---\n',
        "---\nsubtitle: 'Single ''@k1'' quoted @k2'\n---\n",
        '---\nthanks: "line one\n  @k1 continues\n\n  @k2"\n---\n',
        "---\nabstract: |\n  See:\n\n  and @k1 and\n    @k2 more\n---\n",
        "---\nabstract: >-\n  Folded @k1\n  text\n\n  more @k2\n    indented @k3\n---\n",
        "---\nabstract: | # a comment @no\n  @k1\n---\n",
        "---\nabstract: Plain @k1\n  continued @k2\n\n  para @k3\n---\n",
        "---\nnocite: |\n  @k1, @k2\n---\n",
        "---\nx: |2\n    @k1 two more\n---\n",
        "---\nx:\n  - '@{k1}'\n  - y: \"[@k2; @k3]\"\n---\n",
    ],
)
def test_a_metadata_strings_keys_stand_where_they_are_written(text: str) -> None:
    """A metadata string is read as Markdown once YAML has made its value; each key's span
    is where the key is written in the file (quotes, escapes, folding and indentation
    passed over), so that a finding and a fix stand on it."""
    doc = parse_markdown(P, text)
    keys = [c.key for c in doc.citations]
    assert keys == [f"k{i}" for i in range(1, len(keys) + 1)] and keys
    for c in doc.citations:
        assert text[c.span.start : c.span.end] == c.key
        assert c.command_span.start <= c.span.start < c.span.end <= c.command_span.end
