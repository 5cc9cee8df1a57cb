"""Replacing a slice of a text with one copy gives exactly the string a join gives."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citewarden import text_splice
from citewarden.text_splice import splice

# characters from each of CPython's string layouts
ALPHABET = st.sampled_from(["a", "{", "\n", "é", "ÿ", "–", "⊤", "中", "😀", "\x00"])
texts = st.text(ALPHABET, max_size=60)


@pytest.fixture(autouse=True)
def small_texts_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_splice, "MIN_FAST", 0)


@settings(max_examples=400, deadline=None)
@given(texts, st.data(), texts)
def test_splice_equals_the_join(text: str, data: st.DataObject, new: str) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    expected = text[:start] + new + text[end:]
    got = splice(text, start, end, new)
    assert got == expected
    assert hash(got) == hash(expected)
    assert sys.getsizeof(got) == sys.getsizeof(expected)  # the same layout
    assert got.isascii() == expected.isascii()
    assert {got: 1}[expected] == 1


def test_a_large_bmp_text_is_spliced_by_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    assert text_splice._FAST is not None  # CPython: the native path is there
    joined: list[int] = []
    plain = text_splice._plain

    def spy(*args: object) -> str:
        joined.append(1)
        return plain(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(text_splice, "_plain", spy)
    text = ("title = {Gödel – ⊤}\n" * 5000) + "x"
    out = splice(text, 100, 105, "é")
    assert joined == []
    assert out == text[:100] + "é" + text[105:]
    assert sys.getsizeof(out) == sys.getsizeof(text[:100] + "é" + text[105:])
    # removing the only wide character narrows the layout: still right
    narrow = "a" * 70000 + "⊤" + "b" * 10
    assert splice(narrow, 70000, 70001, "") == "a" * 70000 + "b" * 10
    assert splice(narrow, 70000, 70001, "").isascii()
    assert joined == [1, 1]  # those two were joined
