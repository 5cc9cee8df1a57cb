"""Attribute sets and raw TeX are read in bounded passes: pandoc reads attribute sets and
raw TeX commands that never close from each opener on, a reading that would go over the
rest of the text again for each."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from citewarden.parsing.markdown import parse_markdown

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
    the next ones, up to a budget.  The bound is generous: the reading takes under a
    second."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n[@k]\n")
    assert time.process_time() - t0 < 5
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
    ],
)
def test_raw_tex_arguments_that_never_close_are_read_in_bounded_passes(text: str) -> None:
    """Half a megabyte of raw TeX commands whose arguments never close: each one's
    reading may go over the next ones, up to a budget.  The bound is generous: the
    reading takes about a second."""
    t0 = time.process_time()
    doc = parse_markdown(P, text + "\n\n[@k]\n")
    assert time.process_time() - t0 < 5
    assert [c.key for c in doc.citations][-1:] == ["k"]
