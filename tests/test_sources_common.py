"""Shared conversion helpers: text clean-up, DOIs, names, dates, notice kinds."""

from __future__ import annotations

import pytest

from citewarden.verify.records import Lookup, Person, UpdateKind
from citewarden.verify.sources._common import (
    clean_doi,
    clean_text,
    normalize_doi,
    parse_xml,
    person_from_csl,
    person_from_name,
    update_kind,
    year_from_parts,
)


@pytest.mark.parametrize(
    ("raw", "text"),
    [
        ("The role of\n   <scp>AI</scp>\n   in ecology", "The role of AI in ecology"),
        ("<jats:title>Heat &amp; light</jats:title>", "Heat & light"),
        ("c<sub><i>p</i></sub> – C<sub>v</sub>", "cp – Cv"),
        ("Escaped &lt;i&gt;C. elegans&lt;/i&gt; aging", "Escaped C. elegans aging"),
        ("When x &lt; y &gt; z holds", "When x < y > z holds"),
        (["", "Second"], "Second"),
        (None, ""),
    ],
)
def test_clean_text(raw: object, text: str) -> None:
    assert clean_text(raw) == text


def test_dois() -> None:
    assert normalize_doi("https://doi.org/10.1007/BF02551274") == "10.1007/bf02551274"
    assert normalize_doi("doi:10.1145/3448016.3452841.") == "10.1145/3448016.3452841"
    assert normalize_doi("not a doi") is None and normalize_doi(None) is None
    assert clean_doi("https://dx.doi.org/10.1007/BF02551274") == "10.1007/BF02551274"


@pytest.mark.parametrize(
    ("name", "person"),
    [
        ("Serkan Kiranyaz", Person("Kiranyaz", "Serkan")),
        ("Wei Wang 0001", Person("Wang", "Wei")),
        ("Ollomo, Benjamin", Person("Ollomo", "Benjamin")),
        ("Ludwig van Beethoven", Person("van Beethoven", "Ludwig")),
        ("Plato", Person("Plato")),
    ],
)
def test_person_from_name(name: str, person: Person) -> None:
    assert person_from_name(name) == person


def test_person_from_csl() -> None:
    assert person_from_csl(
        {"family": "Beethoven", "given": "L.", "non-dropping-particle": "van"}
    ) == Person("van Beethoven", "L.")
    assert person_from_csl({"name": "OLYMPUS Collaboration"}) == Person("OLYMPUS Collaboration")
    assert person_from_csl({"literal": "World Health Organization"}) == Person(
        "World Health Organization"
    )
    assert person_from_csl({}) is None


def test_years() -> None:
    assert year_from_parts({"date-parts": [[2012, 3, 21]]}) == 2012
    assert year_from_parts({"date-parts": [[None]]}) is None
    assert year_from_parts({"date-parts": [[]]}) is None
    assert year_from_parts({"date-parts": [["2019"]]}) == 2019
    assert year_from_parts({"raw": "Spring 1998"}) == 1998
    assert year_from_parts(None) is None


def test_update_kinds() -> None:
    assert update_kind("retraction") is UpdateKind.RETRACTION
    assert update_kind("expression_of_concern") is UpdateKind.EXPRESSION_OF_CONCERN
    assert update_kind("Erratum") is UpdateKind.CORRECTION
    assert update_kind("new_version") is UpdateKind.OTHER


def test_xml_entity_expansion_is_refused() -> None:
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><r>&b;</r>'
    )
    result = parse_xml("arxiv", bomb)
    assert isinstance(result, Lookup) and "forbidden" in (result.reason or "")
    external = (
        b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>'
    )
    assert isinstance(parse_xml("arxiv", external), Lookup)
