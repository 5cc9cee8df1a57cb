"""Keys of one .bib file that differ in case only, in a project biber reads.

biber matches keys exactly, so ``Smith`` and ``smith`` are two entries, but as it reads a
file it compares each key with the last spelling of the same key in any case it has read
and warns "Possible typo (case mismatch) between datasource keys: 'smith' and 'Smith'"
(``Biber::Input::file::bibtex``, ``has_badcasekey``): a ``duplicate-key`` warning on the
later key, naming the spelling before it.  An exact repeat is skipped after that test and
leaves the last spelling as it was.  Entries biber skips (in comments) are not read.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import MappingProxyType

from citewarden.file_state import BibIndex
from citewarden.model import Code, Finding, Location, Related, Severity, quoted


def case_variant_findings(
    bibs: Sequence[tuple[Path, BibIndex]], skips: Sequence[frozenset[int]] = ()
) -> list[Finding]:
    """A warning for each key of ``bibs`` that biber reads after another spelling of it in
    the same file (leaving out the entries at the positions ``skips``, per file)."""
    found: list[Finding] = []
    for n, (path, index) in enumerate(bibs):
        if len(index.folded) == len(index.by_key):  # no key in two spellings
            continue
        skip = skips[n] if skips else frozenset()
        for folded in index.repeated:
            places = index.folded[folded]
            found += _variants(path, index, [i for i in places if i not in skip])
    found.sort(key=lambda f: (str(f.location.path), f.location.span.start))
    return found


def _variants(path: Path, index: BibIndex, places: list[int]) -> Iterator[Finding]:
    """The warnings biber gives reading the entries at ``places`` (one key's, in order)."""
    if len({index.keys[i] for i in places}) < 2:
        return
    seen: set[str] = set()
    last: int | None = None
    for i in places:
        key = index.keys[i]
        if last is not None and index.keys[last] != key:
            yield _finding(path, index, i, last)
        if key not in seen:
            seen.add(key)
            last = i


def _finding(path: Path, index: BibIndex, i: int, before: int) -> Finding:
    entry, other = index.entries[i], index.entries[before]
    message = (
        f"key {quoted(entry.key)} differs from {quoted(other.key)} in case only: biber reads "
        "two entries and warns of a possible typo (case mismatch between datasource keys)"
    )
    return Finding(
        Code.DUPLICATE_KEY,
        Location(path, entry.key_span),
        message,
        related=(Related(Location(path, other.key_span), f"{quoted(other.key)} read before"),),
        data=MappingProxyType({"key": entry.key, "first": other.key}),
        severity=Severity.WARNING,
    )


__all__ = ["case_variant_findings"]
