"""The loops of pandoc's crossref/xdata resolution (:func:`pandoc_loops`): resolving every
cited entry of a file at once, with the answers shared between entries alike, gives each
entry the loop its own resolution gives.  (tests/test_crossref_loops.py checks the loops
against pandoc itself.)"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from citewarden.model import Entry
from citewarden.parsing import pandoc_crossref
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.pandoc_crossref import Loop, pandoc_loops

_TYPES = ("book", "inbook", "mvbook", "collection", "incollection", "xdata", "misc")
_FIELDS = ("title", "subtitle", "author", "booktitle", "note")
_KEYS = tuple(f"k{i}" for i in range(8))


def _bib(rng: random.Random) -> str:
    """A small .bib of entries of a few types and fields, naming one another (a key
    defined twice, a key defined nowhere, several keys in one value) in crossref and
    xdata fields."""
    entries = []
    for _ in range(rng.randint(4, 12)):
        fields = [f"{name}={{V}}" for name in _FIELDS if rng.random() < 0.4]
        for name in ("crossref", "xdata"):
            if rng.random() < 0.5:
                named = rng.sample([*_KEYS, "none"], rng.randint(1, 3))
                fields.append(f"{name}={{{', '.join(named)}}}")
        entries.append(f"@{rng.choice(_TYPES)}{{{rng.choice(_KEYS)}, {', '.join(fields)}}}\n")
    return "".join(entries)


def _one_by_one(entries: list[Entry]) -> list[tuple[Entry, Loop]]:
    """Each entry's loop from a resolution of its key alone, in file order."""
    loops: dict[int, tuple[Entry, Loop]] = {}
    for key in dict.fromkeys(e.key for e in entries):
        for entry, loop in pandoc_loops(entries, {key}):
            loops[id(entry)] = (entry, loop)
    return [loops[id(e)] for e in entries if id(e) in loops]


@pytest.mark.parametrize("seed", range(4))
def test_shared_answers_leave_each_entry_s_loop_as_it_is(seed: int) -> None:
    rng = random.Random(seed)
    with_loops = 0
    for _ in range(150):
        entries = list(parse_bibtex(Path("refs.bib"), _bib(rng)).entries)
        found = pandoc_loops(entries, None)
        assert found == _one_by_one(entries)
        with_loops += bool(found)
    assert with_loops >= 30  # many of the files loop


def test_a_long_chain_cited_everywhere_is_resolved_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # every entry of a chain k0 -> ... -> k300 cited, and an entry naming itself: each
    # entry's resolution reads the rest of the chain, answered once for all of them
    n = 300
    text = "".join(f"@book{{k{i}, title={{T}}, crossref={{k{i + 1}}}}}\n" for i in range(n))
    entries = list(parse_bibtex(Path("refs.bib"), text + "@book{z, crossref={z}}\n").entries)
    requests: list[tuple[str, ...]] = []
    resolve = pandoc_crossref._Resolution._fields_of

    def counted(self: pandoc_crossref._Resolution, keys: tuple[str, ...]) -> object:
        requests.append(keys)
        return resolve(self, keys)

    monkeypatch.setattr(pandoc_crossref._Resolution, "_fields_of", counted)
    found = pandoc_loops(entries, None)
    assert [(entry.key, [e.key for e, _ in loop.steps]) for entry, loop in found] == [("z", ["z"])]
    # each key of the chain asked for once; z once, asking for itself again is the loop
    assert sorted(requests) == sorted([(f"k{i}",) for i in range(1, n + 1)] + [("z",)])
