"""DOIs as sources write them: escapes undone, so that a record's DOI is the entry's."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from citewarden.verify.identifiers import clean_doi
from citewarden.verify.sources.dblp import work_from_dblp
from citewarden.verify.sources.semanticscholar import work_from_s2
from paths import DATA

REFCHECKER = DATA / "accuracy" / "refchecker"
#: Tversky et al. (1994), an SICI DOI holding ``<`` and ``>``, as the entry writes it
SICI = "10.1002/(SICI)1097-4571(199410)45:9<656::AID-ASI3>3.0.CO;2-1"


def _objects(name: str) -> Iterator[dict[str, Any]]:
    for line in (REFCHECKER / name).read_text(encoding="utf-8").splitlines():
        stack: list[Any] = [json.loads(line)]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                yield item
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)


def _first(name: str, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    found = next((o for o in _objects(name) if wanted(o)), None)
    assert found is not None, name
    return found


def test_escaped_dois_of_dblp_and_semantic_scholar_are_the_entrys_doi() -> None:
    """dblp's JSON writes the DOI's ``<`` as ``&lt;`` and Semantic Scholar as ``%3C``
    (their real answers below): read as written, a correct DOI was "another work's", and
    an entry without one was offered a DOI that does not exist."""
    hit = _first(
        "dblp_search.jsonl",
        lambda o: isinstance(o.get("info"), dict) and "656::AID" in str(o["info"].get("doi")),
    )
    assert "&lt;" in hit["info"]["doi"]
    paper = _first(
        "semanticscholar_match_title.jsonl",
        lambda o: o.get("paperId") == "feb694824a0cd1dbfa09e627ef73a366a24cb6ab",
    )
    assert "%3C" in paper["externalIds"]["DOI"]
    dblp, s2 = work_from_dblp(hit), work_from_s2(paper)
    assert dblp is not None and s2 is not None
    assert dblp.doi == s2.doi == clean_doi(SICI)
