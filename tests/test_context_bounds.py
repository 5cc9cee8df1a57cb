"""Citing sentences of big texts: memory in proportion to the text's size, not an object for
each of its characters, sentence breaks or braces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from citewarden.context import sentence
from citewarden.context.sentence import _mask, citing_sentences
from citewarden.model import DocumentKind, Span
from citewarden.parsing.markdown import parse_markdown

ROOT = Path(__file__).resolve().parents[1]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mask_per_character(
    text: str, spans: Sequence[Span], kind: DocumentKind, whole: bool = True
) -> str:
    """The reference: the citation commands blanked one list item per character, then
    what is no prose masked."""
    from citewarden.context.latex_text import mask_latex
    from citewarden.context.markdown_text import mask_markdown

    chars = list(text)
    for s in spans:
        chars[s.start : s.end] = " " * (s.end - s.start)
    masked = "".join(chars)
    if kind is DocumentKind.LATEX:
        return mask_latex(masked)
    return mask_markdown(masked, whole, text)


_PIECES = st.sampled_from(
    ["a", " ", "\n", "%", "\\", "\\%", "α", "中", "\\cite{k}", "---\n", "...\n", "title: x\n"]
)


@st.composite
def _masking_inputs(draw: st.DrawFn) -> tuple[str, list[Span]]:
    text = "".join(draw(st.lists(_PIECES, max_size=40)))
    bounds = st.integers(0, len(text))
    pairs = draw(st.lists(st.tuples(bounds, bounds), max_size=6))
    spans = [Span(min(a, b), max(a, b)) for a, b in pairs]
    if draw(st.booleans()):
        spans.sort(key=lambda s: s.start)
    return text, spans


@SETTINGS
@given(_masking_inputs(), st.sampled_from(list(DocumentKind)), st.booleans())
def test_mask_equals_the_per_character_masking(
    case: tuple[str, list[Span]], kind: DocumentKind, whole: bool
) -> None:
    text, spans = case
    assert _mask(text, spans, kind, whole) == _mask_per_character(text, spans, kind, whole)


def _note_islands_per_bracket(masked: str) -> tuple[list[int], list[int], list[int]]:
    """The reference: the inline notes of a Markdown text as first found, every note (empty
    ones too) matched bracket by bracket."""
    import re

    starts: list[int] = []
    ends: list[int] = []
    cuts: list[int] = []
    notes = {m.end() - 1 for m in re.finditer(r"\^\[", masked)}
    stack: list[int] = []
    for m in re.finditer(r"(?<!\\)[\[\]]", masked):
        at = m.start()
        if masked[at] == "[":
            stack.append(at)
        elif stack:
            opened = stack.pop()
            if opened in notes and at - opened <= sentence.MAX_ISLAND:
                while starts and starts[-1] > opened:
                    del starts[-1], ends[-1], cuts[-1]
                starts.append(opened + 1)
                ends.append(at)
                cuts.append(opened - 1)
    return starts, ends, cuts


def _around_notes_per_span(
    masked: str, kind: DocumentKind, starts: list[int], ends: list[int], cuts: list[int]
) -> str:
    """The reference: each note of ``masked`` blanked on its own, closing bracket included."""
    chars = list(masked)
    for cut, end in zip(cuts, ends, strict=True):
        chars[cut : end + 1] = [c if c == "\n" else " " for c in chars[cut : end + 1]]
    return "".join(chars)


_NOTE_PIECES = st.sampled_from(
    ["a", "Word", " ", ". ", "\n", "\n\n", "^[", "^[]", "[", "]", "\\", "^", "[@k]", "@m"]
)


@SETTINGS
@given(st.lists(_NOTE_PIECES, max_size=40).map("".join))
@example("A note^[with ^[] inside [@k] here^[]] ends. \\^[] [@m]")
@example("Text. ^[" + "word " * 1300 + "[@k] ^[] more^[]] and [@m].")  # a note too long
def test_inline_notes_empty_or_not_give_the_sentences_of_the_reference(text: str) -> None:
    """Empty notes (``^[]``), passed over in runs and blanked at once, leave every citing
    sentence as matching each note bracket by bracket does: nested, unclosed or escaped."""
    doc = parse_markdown(Path("p.md"), text)
    got = citing_sentences(text, doc.citations, doc.kind)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sentence, "_note_islands", _note_islands_per_bracket)
        patch.setattr(sentence, "_around_islands", _around_notes_per_span)
        assert got == citing_sentences(text, doc.citations, doc.kind)


#: The address space the sentences may take beyond what the process holds before (bytes):
#: a few copies of each text below and 8 to 24 bytes for each of its sentence breaks,
#: braces or islands, far below an object for each (40 to 500 bytes).
_BUDGET = 64 << 20

_CHILD = """
import json, resource, sys
from pathlib import Path

from citewarden.context.sentence import citing_sentences
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown

name, head, unit, count, tail, budget = json.loads(sys.argv[1])
text = head + unit * count + tail
doc = (parse_latex if name.endswith(".tex") else parse_markdown)(Path(name), text)
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
limit = size * 1024 + budget
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
found = citing_sentences(text, doc.citations, doc.kind)
print(found[0].text[:7] if found[0] is not None else None)
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.parametrize(
    ("name", "head", "unit", "count", "tail", "sentence"),
    [
        # 5 MB of text outside Latin-1 (two bytes a character)
        ("p.tex", "Text ", "\u03b1", 2_500_000, " \\cite{k}. More.\n", "ααααααα"),
        # 2 MB of paragraph breaks
        ("p.tex", "Text shown \\cite{k}.", "\n\n", 1_000_000, "", "Text sh"),
        # 2.5 MB of unclosed braces after a footnote's
        ("p.tex", "Text shown \\cite{k}. \\footnote{", "{", 2_500_000, "", "Text sh"),
        # 3.3 MB of empty footnotes, 1.2 MB of empty inline notes
        ("p.tex", "Text shown \\cite{k}. ", "\\footnote{}", 300_000, "", "Text sh"),
        ("p.md", "Text shown [@k]. ", "^[]", 400_000, "", "Text sh"),
    ],
)
def test_sentences_of_a_long_text_take_memory_in_proportion_to_its_size(
    name: str, head: str, unit: str, count: int, tail: str, sentence: str
) -> None:
    case = json.dumps([name, head, unit, count, tail, _BUDGET])
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, case],
        env={**os.environ, "PYTHONPATH": str(ROOT / "server")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == sentence


def test_a_run_of_backticks_is_tried_as_code_once() -> None:
    """Each backtick of a run opened a code span of its own, searched up to 2 000
    characters: 7 000 backticks cost a second."""
    import time

    text = "Text [@a] here.\n\n" + ("x" + "`" * 2000 + " a" * 750 + "\n\n") * 20
    doc = parse_markdown(Path("x.md"), text)
    started = time.perf_counter()
    citing_sentences(text, doc.citations, doc.kind)
    assert time.perf_counter() - started < 1.5


@pytest.mark.parametrize(
    ("unit", "size", "bound"),
    [
        ("~~a " * 100 + "[@a] ", 300_000, 4.0),  # strikeout opened and never closed
        (("[" + "`" * 499 + "](x) ") * 4 + "[@a] ", 600_000, 2.5),  # backticks in links' text
    ],
)
def test_unclosed_strikeouts_and_backticks_in_links_cost_linear_time(
    unit: str, size: int, bound: float
) -> None:
    """Each ``~~`` searched 500 characters for its close, and each backtick of a link's
    text its own code span to the text's end: 8.7 and 4.8 s of CPU for these texts, against
    1.1 and 0.5 s since (bounds with room for a slower machine, in CPU time so that
    another process's load does not count)."""
    import time

    text = (unit + "\n") * (size // len(unit))
    doc = parse_markdown(Path("x.md"), text)
    started = time.process_time()
    citing_sentences(text, doc.citations, doc.kind)
    assert time.process_time() - started < bound


@pytest.mark.parametrize("kind", ["latex", "markdown"])
def test_full_stops_far_from_any_citation_are_read_once(kind: str) -> None:
    """Each full stop copied the text up to the next citation to see whether the citation
    was attached to it: a megabyte of short sentences before one citation took a minute."""
    import time

    from citewarden.parsing.latex import parse_latex

    cite = "\\cite{k}" if kind == "latex" else "[@k]"
    text = "x. " * 330_000 + f"end {cite}."
    path = Path("x.tex" if kind == "latex" else "x.md")
    doc = parse_latex(path, text) if kind == "latex" else parse_markdown(path, text)
    started = time.process_time()
    [found] = citing_sentences(text, doc.citations, doc.kind)
    assert time.process_time() - started < 20.0
    assert found is not None and found.text == "end."


@pytest.mark.parametrize(
    ("kind", "opening", "closing"),
    [
        ("latex", "\\iffalse\n", "\\fi\n"),
        ("latex", "\\begin{comment}\n", "\\end{comment}\n"),
        ("markdown", "<!--\n", "-->\n\n"),
    ],
)
def test_one_citations_sentence_never_holds_a_hidden_block_opened_far_before(
    kind: str, opening: str, closing: str
) -> None:
    """One citation's sentence (the hover's) is read from a stretch around it; a comment
    or hidden block opened before that stretch was read as prose, its private text in the
    sentence before the citation's."""
    from citewarden.parsing.latex import parse_latex

    hidden = "".join(f"Old draft sentence {i} is private SECRET.\n" for i in range(400))
    later = "".join(f"Later prose sentence {i} continues.\n" for i in range(1500))
    cite = "\\cite{a}" if kind == "latex" else "[@a]"
    text = f"Intro text.\n{opening}{hidden}{closing}Deep nets work {cite}.\n{later}"
    path = Path("x.tex" if kind == "latex" else "x.md")
    doc = parse_latex(path, text) if kind == "latex" else parse_markdown(path, text)
    assert len(text) > 4 * sentence.REACH  # the stretch is not the whole file
    [one] = citing_sentences(text, doc.citations, doc.kind, only=0)
    [every] = citing_sentences(text, doc.citations, doc.kind)
    assert one is not None and every is not None
    assert one.text == every.text == "Deep nets work." and one.span == every.span
    assert "SECRET" not in one.before + one.text + one.after


@pytest.mark.parametrize("unit", [",", ", ", ":", " and"])
def test_runs_of_separators_beside_citations_are_read_once(unit: str) -> None:
    """What blanked citations leave (separators and conjunctions) was looked for from
    every place of a run of them, each read to the run's end: 14 kB of commas from a
    damaged file took 4 s, these (20 citations beside 2 500 commas) 12 s."""
    import time

    from citewarden.parsing.latex import parse_latex

    text = ("A \\cite{k} b. " + unit * 2_500 + " c.\n") * 20
    doc = parse_latex(Path("x.tex"), text)
    started = time.process_time()
    found = citing_sentences(text, doc.citations, doc.kind)
    assert time.process_time() - started < 2.0
    assert [s.text if s else None for s in found] == ["A b."] * 20
