"""Completion ranking over the keys of a project: exact prefix, then case-insensitive prefix,
then keys containing the typed text; capped, with the list marked incomplete."""

from __future__ import annotations

from citewarden.lsp import completion
from citewarden.lsp.completion import KeyCatalog


def catalog(keys: list[str]) -> KeyCatalog:
    ordered = sorted(keys)
    return KeyCatalog((), {}, ordered, [k.casefold() for k in ordered])


def test_ranking_order() -> None:
    cat = catalog(["Smith2020", "smith2019", "blacksmith2001", "smoke1999", "jones2000"])
    found, incomplete = cat.matching("smith")
    assert found == ["smith2019", "Smith2020", "blacksmith2001"]
    assert not incomplete
    assert cat.matching("Sm") == (["Smith2020", "smith2019", "smoke1999", "blacksmith2001"], False)
    assert cat.matching("zzz") == ([], False)


def test_empty_prefix_and_cap() -> None:
    keys = [f"k{i:05d}" for i in range(completion.MAX_COMPLETIONS + 50)]
    cat = catalog(keys)
    found, incomplete = cat.matching("")
    assert found == keys[: completion.MAX_COMPLETIONS] and incomplete
    found, incomplete = cat.matching("k0")
    assert len(found) == completion.MAX_COMPLETIONS and incomplete
    found, incomplete = cat.matching("k0024")
    assert found == [f"k0024{i}" for i in range(10)] and not incomplete
