"""Words no longer than real words, and no corpus when nothing is cited."""

from __future__ import annotations

from pathlib import Path

import pytest

import citewarden.context.collect as collect_module
from citewarden.context.collect import citation_contexts
from citewarden.context.relevance import Work
from citewarden.context.words import MAX_WORD, terms
from citewarden.parsing.latex import parse_latex


def test_a_token_longer_than_any_word_is_no_term() -> None:
    text = "Gradient descent converges for convex losses"
    for long in ("x" * 10_000, "colour" * 2_000, "α" * (MAX_WORD + 1)):
        assert terms(f"{text} {long}") == terms(text)
        assert terms(f"{long}-driven {text}") == terms(f"driven {text}")
    assert terms("a " + "b" * MAX_WORD) == ["b" * MAX_WORD]


def test_no_corpus_is_built_when_nothing_is_cited(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("corpus built")

    monkeypatch.setattr(collect_module, "FieldCorpus", refuse)
    works = {"k": Work("A title", "An abstract")}
    doc = parse_latex(Path("p.tex"), "No citation here.")
    assert citation_contexts([], works) == []
    assert citation_contexts([(doc, "No citation here.")], works) == []
