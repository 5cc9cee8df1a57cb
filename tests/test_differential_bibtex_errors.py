""".bib files with syntax errors: a BibTeX project defines the keys BibTeX reads, on seeded
generated files (see differential_bibtex_errors.py; more seeds in
``bench/agreement.py --errors N``).  Each run is bounded in time; a disagreement fails with
the list by class."""

from __future__ import annotations

import shutil

import pytest

import differential_bibtex_errors

#: seconds the oracle may take in the suite (the bench runs more cases)
BUDGET = 45


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    missing = [t for t in ("pdflatex", "bibtex") if shutil.which(t) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)


def test_the_generator_is_seeded_and_reaches_every_construct() -> None:
    case = differential_bibtex_errors.errors_case
    assert case(7) == case(7)
    cases = [case(seed) for seed in range(60)]
    classes = {key.partition("Q")[0] for c in cases for key in c.keys}
    assert classes == {
        "entry",
        "nocomma",
        "unclosed",
        "noclose",
        "email",
        "inner",
        "innerin",
        "twoinline",
        "paren",
        "percent",
        "doubled",
        "junk",
    }
    texts = [c.files["refs.bib"] for c in cases]
    assert any("medium.com/@user" in text for text in texts)
    assert all(f"\\nocite{{{','.join(c.cited)}}}" in c.files["main.tex"] for c in cases)


def test_bibtex_projects_define_the_keys_bibtex_reads_after_errors() -> None:
    tally = differential_bibtex_errors.run_errors(range(2000, 2200), budget=BUDGET)
    assert tally.cases >= 20, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()
