"""Checks: the workspace's parsed summaries and project graph -> findings per file.

:func:`check_workspace` runs every check and returns findings for every known file, an
empty list for a clean one, so a client can clear stale results.  The findings carry their
codes' default severities: suppression comments, ignore globs and configured severities are
the policy step's (:mod:`citewarden.findings.policy`), applied by the caller.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from citewarden.model import Code, Finding

if TYPE_CHECKING:
    from citewarden.project import Workspace

T = TypeVar("T")


class Memo:
    """Reuses results between runs while their inputs are unchanged.

    Keys name everything a result depends on; results not asked for in a run are dropped.
    """

    def __init__(self, previous: dict[tuple[object, ...], Any]) -> None:
        self._previous = previous
        self.current: dict[tuple[object, ...], Any] = {}

    def previous(self, key: tuple[object, ...]) -> Any:
        """What the previous run stored under ``key`` (None if nothing)."""
        return self.current.get(key, self._previous.get(key))

    def get(self, key: tuple[object, ...], make: Callable[..., T], *args: object) -> T:
        """The result stored under ``key``, else ``make(*args)``."""
        found = self.current.get(key)
        if found is None:
            found = self._previous.get(key)
            if found is None:
                found = make(*args)
            self.current[key] = found
        return found  # type: ignore[no-any-return]


class Ident:
    """Wraps an object so that it hashes and compares by identity (a cheap cache key that
    also keeps the object alive while the key exists)."""

    __slots__ = ("obj",)

    def __init__(self, obj: object) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ident) and other.obj is self.obj


class Checker:
    """Runs every check over a workspace, reusing the results of its previous run whose
    inputs are unchanged (the caller owns it: one per workspace it checks again and again)."""

    def __init__(self) -> None:
        self._cache: dict[tuple[object, ...], Any] = {}

    def check(self, ws: Workspace) -> dict[Path, list[Finding]]:
        """Every finding of the workspace, by file; every known file present.

        Within a file, findings come in the order the checks produce them (reports sort
        them).
        """
        # a run allocates many small acyclic objects; the cyclic collector would scan the
        # whole (large) heap again and again meanwhile, so it waits until the run is over
        paused = gc.isenabled()
        gc.disable()
        try:
            return self._check(ws)
        finally:
            if paused:
                gc.enable()

    def _check(self, ws: Workspace) -> dict[Path, list[Finding]]:
        memo = Memo(self._cache)
        ws.recheck_styles()
        with ws.unchanged():
            found = _check_workspace(ws, memo)
        self._cache = memo.current
        return found


def check_workspace(ws: Workspace) -> dict[Path, list[Finding]]:
    """Every finding of the workspace, by file, checked once (no cache kept)."""
    return Checker().check(ws)


def _check_workspace(ws: Workspace, memo: Memo) -> dict[Path, list[Finding]]:
    from citewarden.checks.biber import biber_findings
    from citewarden.checks.citations import citation_findings
    from citewarden.checks.crossref_loops import crossref_loop_findings
    from citewarden.checks.crossref_order import crossref_order_findings
    from citewarden.checks.duplicates import duplicate_findings
    from citewarden.checks.outside import outside_root_findings
    from citewarden.checks.pandoc import pandoc_encoding, pandoc_findings
    from citewarden.checks.styles import read_entries
    from citewarden.checks.xdata_citations import xdata_citation_findings

    projects = ws.projects()
    raw: list[Finding] = []
    raw += file_problems(ws)
    raw += citation_findings(ws, projects, memo)
    raw += xdata_citation_findings(ws, projects, memo)
    raw += outside_root_findings(ws, projects)
    raw += duplicate_findings(ws, projects, memo)
    raw += biber_findings(ws, projects, memo)
    raw += pandoc_findings(ws, projects, memo)
    raw += crossref_order_findings(ws, projects, memo)
    raw += crossref_loop_findings(ws, projects, memo)
    raw = read_entries(ws, projects, raw)
    raw = pandoc_encoding(ws, projects, raw, memo)
    result: dict[Path, list[Finding]] = {p: [] for p in ws.known_files()}
    seen: set[tuple[object, ...]] = set()
    last_path: Path | None = None
    found: list[Finding] = []
    for finding in raw:
        loc = finding.location
        if finding.code is not Code.ORPHAN:  # one orphan per entry by construction
            ident = (loc.path, loc.span.start, loc.span.end, finding.code, finding.message)
            if ident in seen:
                continue  # the same place reached through two projects
            seen.add(ident)
        if loc.path is not last_path:
            last_path = loc.path
            found = result.setdefault(loc.path, [])
        found.append(finding)
    return result


def file_problems(ws: Workspace) -> list[Finding]:
    """Reading and parsing problems of each file in use (decoding, syntax, duplicate fields);
    the undefined macros of a file read only with styles not known here are information,
    none is in a field BibTeX does not read, and the month names a known style lacks are
    undefined (:mod:`~citewarden.checks.styles`)."""
    from citewarden.checks.skipped_text import bib_readers, read_problems
    from citewarden.checks.styles import (
        lacking_months,
        read_by_bibtex,
        read_fields,
        uncertain_strings,
        undefined_months,
        unknown_styles,
    )
    from citewarden.model import Code, Location, Span
    from citewarden.parsing import is_bibliography, is_document

    unknown = unknown_styles(ws.projects())
    months = lacking_months(ws.projects())
    fields = read_fields(ws.projects())
    readers = bib_readers(ws.projects())
    in_use: dict[Path, None] = {}
    for project in ws.projects():
        in_use.update(dict.fromkeys(project.sources))
        in_use.update(dict.fromkeys(project.bibliographies))
    for path in ws.known_files():
        if is_document(path) or is_bibliography(path):
            in_use.setdefault(path, None)
    found: list[Finding] = []
    for path in in_use:
        error = ws.read_error(path)
        if error is not None:
            if not isinstance(error, FileNotFoundError):
                reason = error.strerror or str(error)
                found.append(
                    Finding(
                        Code.FILE_UNREADABLE,
                        Location(path, Span(0, 0)),
                        f"cannot read {path.name}: {reason}",
                    )
                )
            continue
        found += ws.read_problems(path)
        parsed = ws.parsed(path)
        if parsed is not None:
            problems: Sequence[Finding] = parsed.problems
            if path in readers:  # none in text that biber and pandoc skip
                problems = read_problems(ws, path, problems, readers[path])
            if path in fields:
                problems = read_by_bibtex(ws, path, problems, fields[path])
            style = unknown.get(path)
            if style is None:
                found += problems
            else:
                found += uncertain_strings(ws, problems, style)
            if path in months:
                found += undefined_months(ws, path, months[path])
    return found
