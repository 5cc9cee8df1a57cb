"""The cited work of an unverified entry: its title and surnames as plain text."""

from __future__ import annotations

from pathlib import Path

from citewarden.context.collect import works_of
from citewarden.parsing.bibtex import parse_bibtex


def test_an_entry_s_title_and_surnames_are_decoded_and_braced_names_kept_whole() -> None:
    bib = (
        "@article{a, title={Une m{\\'e}thode for {N}a{C}l},"
        ' author={M{\\"u}ller, J{\\"o}rg and {\\v{S}}imon, P. and {World Health Organization}'
        " and Jan de Vries and van der Berg, Jan and others}}"
    )
    (work,) = works_of(parse_bibtex(Path("r.bib"), bib).entries).values()
    assert work.title == "Une méthode for NaCl"
    # the surnames proper, written either way: their particles are no words of the work
    assert work.authors == ("Müller", "Šimon", "World Health Organization", "Vries", "Berg")


def test_an_entry_without_title_or_authors_gives_empty_ones() -> None:
    (work,) = works_of(parse_bibtex(Path("r.bib"), "@misc{a, year={2020}}").entries).values()
    assert work.title == "" and work.authors == ()
