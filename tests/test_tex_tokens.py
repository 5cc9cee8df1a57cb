"""The one set of tokens that pairs TeX's braces (parsing/tex_tokens.py), which every
reader of groups and arguments builds on."""

from __future__ import annotations

import re

from citewarden.context.latex_conditionals import brace_pairs
from citewarden.parsing import latex_args, latex_options, latex_static, tex_brackets
from citewarden.parsing.tex_tokens import BRACE_TOKENS, ESCAPES_AND_COMMENTS


def test_escapes_and_comments_hold_no_brace() -> None:
    text = "a{\\{b\\}%c}\n}{\\\n}"
    assert [m.group() for m in BRACE_TOKENS.finditer(text)] == [
        "{",
        "\\{",
        "\\}",
        "%c}",
        "}",
        "{",
        "\\\n",
        "}",
    ]


def test_a_comment_ends_at_its_line() -> None:
    assert re.fullmatch(ESCAPES_AND_COMMENTS, "% a { b")
    assert not re.fullmatch(ESCAPES_AND_COMMENTS, "% a\n{")


def test_every_reader_pairs_braces_alike() -> None:
    """The readers of LaTeX groups, optional arguments, raw TeX in Markdown and the
    sentence's conditionals agree on where a group with escaped braces and comments in it
    closes."""
    text = "{a \\} b % }\n {c} \\% }"
    close = len(text)
    assert latex_static.close_brace(text, 0, 100) == close
    assert latex_args._close_brace(text, 0) == close
    assert brace_pairs(text) == {0: close - 1, 13: 15}
    assert tex_brackets.TexBrackets(text, 100).group(0, len(text)) == close
    assert latex_options.close_delimited("[" + text + "]", 0) == close + 2
