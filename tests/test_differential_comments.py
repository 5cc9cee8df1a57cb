"""``@comment`` groups and the last line of a .bib file: citewarden defines what BibTeX,
biber and pandoc read, on seeded generated files (see differential_comments.py; more seeds
in ``bench/agreement.py --comments N``).  Each run is bounded in time; a disagreement fails
with the list by class."""

from __future__ import annotations

import shutil

import pytest

import differential_comments

#: seconds each oracle may take in the suite (the bench runs more cases)
BUDGET = 45


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    missing = [t for t in ("pdflatex", "bibtex", "biber", "pandoc") if shutil.which(t) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)


def test_the_generators_are_seeded_and_reach_every_construct() -> None:
    assert differential_comments.comments_case(7) == differential_comments.comments_case(7)
    cases = [differential_comments.comments_case(seed) for seed in range(1000, 1060)]
    classes = {key.partition("Q")[0] for case in cases for key in case.keys}
    constructs = {
        "entry",
        "afterjunk",
        "oneline",
        "twoinline",
        "parens",
        "nobrace",
        "aftercomment",
        "nested",
        "email",
        "multiline",
        "multilinejunk",
        "sameline",
        "afterlines",
        "afterpreamble",
        "afterstring",
    }
    assert constructs <= classes
    # on the last line, after the block BibTeX reads there, and as that block
    assert {"samelinelast", "onelinelast", "entrylast"} <= classes
    texts = [case.files["refs.bib"] for case in cases]
    for ending in ("}\n", "}\r\n", "}\n\n", "}"):
        assert any(text.endswith(ending) for text in texts), ending
    reader = [differential_comments.reader_case(seed).files["refs.bib"] for seed in range(40)]
    assert reader == [differential_comments.reader_case(s).files["refs.bib"] for s in range(40)]
    assert any("\r" in text and "@string" in text for text in reader)


def test_bibtex_projects_define_the_keys_bibtex_finds() -> None:
    tally = differential_comments.run_comments(range(1000, 1200), budget=BUDGET)
    assert tally.cases >= 20, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_biber_and_pandoc_projects_define_the_keys_they_read() -> None:
    tally = differential_comments.run_readers(range(1000, 1200), budget=30)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_the_port_of_bibtex_reading_finds_the_keys_bibtex_finds() -> None:
    """The port (parsing/bibtex_last_line.py) on mutated blocks: syntax errors included."""
    tally = differential_comments.run_reader(range(1000, 1300), budget=30)
    assert tally.cases >= 50, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()
