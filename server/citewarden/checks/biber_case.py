"""Keys that differ in case only, in the bibliographies of a project biber reads.

biber matches keys exactly, so ``Smith`` and ``smith`` are two entries, but as it reads a
file it compares each key with the last spelling of the same key in any case it has read
(in that file or an earlier one) and warns "Possible typo (case mismatch) between
datasource keys: 'smith' and 'Smith'" (``Biber::Input::file::bibtex``, ``has_badcasekey``):
a ``duplicate-key`` warning on the later key, naming the spelling before it.  An exact
repeat is skipped after that test and leaves the last spelling as it was.  Entries biber
skips (in comments) are not read, nor is a file after the point where every cited key has
been found (unless ``\\nocite{*}``): biber reads the files in order and stops there.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from types import MappingProxyType

from citewarden.file_state import BibIndex
from citewarden.model import Code, Entry, Finding, Location, Related, Severity, quoted

#: an entry: (its file's position among the bibliographies, its position in the file)
_Place = tuple[int, int]


def case_variant_findings(
    bibs: Sequence[tuple[Path, BibIndex]],
    skips: Sequence[frozenset[int]] = (),
    wanted: frozenset[str] | None = None,
) -> list[Finding]:
    """A warning for each key of ``bibs`` (in the order biber reads them) that biber reads
    after another spelling of it, leaving out the entries at the positions ``skips`` (per
    file) and the files biber does not read: those after the one where the last of the
    ``wanted`` keys (the cited ones; None: every entry, ``\\nocite{*}``) is found."""
    read = files_read(bibs, wanted)
    groups = {n: _by_lower(bibs[n][1]) for n in read}
    candidates: set[str] = set()
    seen: set[str] = set()
    for n in read:
        index, group = bibs[n][1], groups[n]
        if len(group) != len(index.by_key):  # a key in two spellings
            candidates.update(lower for lower, at in group.items() if len(at) > 1)
        if seen:
            candidates.update(seen.intersection(group))
        seen.update(group)
    found: list[Finding] = []
    for lower in candidates:
        places = [
            (n, i) for n in read for i in groups[n].get(lower, ()) if not skips or i not in skips[n]
        ]
        found += _variants(bibs, places)
    found.sort(key=lambda f: (str(f.location.path), f.location.span.start))
    return found


def _lower_key(entry: Entry) -> str | None:
    """A non-ASCII key lower-cased as Perl's ``lc`` does (None: an ASCII key)."""
    return None if entry.key.isascii() else entry.key.lower()


def _by_lower(index: BibIndex) -> dict[str, list[int]]:
    """The positions of the entries of ``index`` by key as biber compares them for case,
    every letter lower-cased (``lc``: ``Äb`` is ``äb``), where BibTeX's fold keeps
    non-ASCII letters (:attr:`BibIndex.folded`)."""
    lowered = index.table("biber_lower_key", _lower_key)
    if not any(lowered):
        return index.folded
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(index.keys):
        groups.setdefault(lowered[i] or key.lower(), []).append(i)
    return groups


def files_read(bibs: Sequence[tuple[Path, BibIndex]], wanted: frozenset[str] | None) -> list[int]:
    """The positions of the files of ``bibs`` biber reads looking for ``wanted``."""
    read: list[int] = []
    remaining = wanted
    for n, (_, index) in enumerate(bibs):
        if remaining is not None and not remaining:
            break
        read.append(n)
        if remaining is not None:
            remaining = remaining.difference(index.by_key)
            if index.alias_rows:
                remaining = remaining.difference(index.aliases)
    return read


def _variants(bibs: Sequence[tuple[Path, BibIndex]], places: list[_Place]) -> Iterator[Finding]:
    """The warnings biber gives reading the entries at ``places`` (one key's, in order)."""
    keys = [bibs[n][1].keys[i] for n, i in places]
    if len(set(keys)) < 2:
        return
    seen: set[str] = set()
    last: int | None = None
    for j, key in enumerate(keys):
        if last is not None and keys[last] != key:
            yield _finding(bibs, places[j], places[last])
        if key not in seen:
            seen.add(key)
            last = j


def _finding(bibs: Sequence[tuple[Path, BibIndex]], at: _Place, before: _Place) -> Finding:
    path, index = bibs[at[0]]
    other_path, other_index = bibs[before[0]]
    entry, other = index.entries[at[1]], other_index.entries[before[1]]
    message = (
        f"key {quoted(entry.key)} differs from {quoted(other.key)} in case only: biber reads "
        "two entries and warns of a possible typo (case mismatch between datasource keys)"
    )
    return Finding(
        Code.DUPLICATE_KEY,
        Location(path, entry.key_span),
        message,
        related=(
            Related(Location(other_path, other.key_span), f"{quoted(other.key)} read before"),
        ),
        data=MappingProxyType({"key": entry.key, "first": other.key}),
        severity=Severity.WARNING,
    )


__all__ = ["case_variant_findings", "files_read"]
