"""A metadata string of lines of text alone is read without the block pass (its blocks are
paragraphs): the citations are those the block pass and the inline scan read."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citewarden.parsing.markdown_blocks import (
    _has_blocks,
    _Reader,
    scan_blocks,
    string_citations,
    unread_notes_dropped,
)

#: words a line of text is made of: citations, brackets, code, math, comments, raw TeX
WORDS = [
    "see", "@k1", "@k2", "[@k3", "p. 3]", "[see", "@k4;", "@k5]", "`code", "@k6`", "$x",
    "@k7$", "<!--", "@k8", "-->", "\\emph{", "@k9}", "word.", "-@k10", "[^n]", "^[note",
    "@k11]", "*x*@k12", "a@k13", "@{k14}", "[^n]:", "1.", "-", ">", "#", "|", "===",
]  # fmt: skip


def _line(rnd: random.Random, plain: bool) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(1, 6))]
    return " ".join(["see", *words] if plain else words)


def _block_pass_reading(value: str) -> tuple[list[tuple[str, int, int]], list[str]]:
    blocks = _Reader(Path(), value, metadata=False).read()
    scan = scan_blocks(value, blocks)
    pending = scan.pending
    if blocks.notes:
        pending = unread_notes_dropped(pending, blocks.notes, scan.note_refs)
    return [(p.key, p.span.start, p.span.end) for p in pending], [
        label for label, _ in scan.note_refs
    ]


@pytest.mark.parametrize("seed", range(20))
def test_a_string_without_blocks_reads_as_the_block_pass_reads_it(seed: int) -> None:
    rnd = random.Random(seed)
    checked = 0
    for _ in range(200):
        plain = rnd.random() < 0.5  # each line starts with a word
        lines = [_line(rnd, plain) if rnd.random() < 0.85 else "" for _ in range(rnd.randint(2, 6))]
        value = "\n".join(lines) + ("\n" if rnd.random() < 0.5 else "")
        assert string_citations(value) == _block_pass_reading(value), value
        checked += not _has_blocks(value)
    assert checked > 20  # the strings read without the block pass


def test_a_line_that_may_start_a_block_is_read_by_the_block_pass() -> None:
    for value in [
        "text\n    code @a",
        "text\n- item",
        "text\n1. item",
        "a) item\ntext",
        "text\n> quote",
        "Title\n===",
        "Term\n: definition",
        "a | b\n---|---",
        "text\n[^n]: note",
        "text\n<pre>",
        "```\ncode\n```",
    ]:
        assert _has_blocks(value), value
    assert not _has_blocks("First line @a,\nthe second [@b].\n\nAnother `x` paragraph.\n")
