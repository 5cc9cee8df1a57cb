"""Features layered on the index (verification today), and the one list a session keeps.

A :class:`Feature` overrides the hooks it needs; the base class does nothing for the
others.  The session calls every registered feature at the same points of its cycle:

* :meth:`Feature.findings` (worker): findings merged into each file's diagnostics, already
  through the policy step;
* :meth:`Feature.on_save`: a document was saved;
* :meth:`Feature.on_checked` (event loop): a check cycle delivered diagnostics for these
  paths;
* :meth:`Feature.hover` (worker): extra Markdown for a hover on a key;
* :meth:`Feature.citation_hover` (worker): extra Markdown for a hover on the citation of a
  key at an offset of a document;
* :meth:`Feature.code_actions` (worker): extra code actions for a range;
* :meth:`Feature.async_code_actions` (event loop): code actions that wait for something (a
  search), awaited after the worker's;
* :meth:`Feature.aclose` (event loop): the server is shutting down: close what the feature
  holds open (HTTP clients and their connections).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from lsprotocol import types

from citewarden.model import Entry, Finding, Span

log = logging.getLogger(__name__)


class Feature:
    """A feature's hooks into the session (each optional)."""

    def findings(self) -> Mapping[Path, Sequence[Finding]]:
        return {}

    async def on_save(self, path: Path) -> None:
        return None

    def on_checked(self, delivered: set[Path]) -> None:
        return None

    def hover(self, path: Path, key: str, entry: Entry | None) -> str | None:
        return None

    def citation_hover(self, path: Path, offset: int, key: str) -> str | None:
        return None

    def code_actions(self, path: Path, span: Span) -> list[types.CodeAction]:
        return []

    async def async_code_actions(self, path: Path, range_: types.Range) -> list[types.CodeAction]:
        return []

    async def aclose(self) -> None:
        return None


class Features:
    """The features of one session, called in the order they were added."""

    def __init__(self) -> None:
        self._all: list[Feature] = []

    def add(self, feature: Feature) -> None:
        self._all.append(feature)

    def __bool__(self) -> bool:
        return bool(self._all)

    def merged(
        self, findings: Mapping[Path, Sequence[Finding]]
    ) -> Mapping[Path, Sequence[Finding]]:
        """``findings`` with every feature's findings added to their files (worker)."""
        if not self._all:
            return findings
        merged: dict[Path, Sequence[Finding]] = dict(findings)
        for feature in self._all:
            try:
                extra = feature.findings()
            except Exception:
                log.exception("the findings of %s failed", type(feature).__name__)
                continue
            for path, items in extra.items():
                if items:
                    merged[path] = [*merged.get(path, ()), *items]
        return merged

    async def saved(self, path: Path) -> None:
        for feature in self._all:
            await feature.on_save(path)

    def checked(self, delivered: set[Path]) -> None:
        for feature in self._all:
            feature.on_checked(delivered)

    def hovers(self, path: Path, key: str, entry: Entry | None) -> list[str]:
        return self._texts("hover", lambda f: f.hover(path, key, entry))

    def citation_hovers(self, path: Path, offset: int, key: str) -> list[str]:
        return self._texts("citation hover", lambda f: f.citation_hover(path, offset, key))

    def _texts(self, what: str, call: Callable[[Feature], str | None]) -> list[str]:
        """Every feature's non-empty text from ``call``; a feature that fails is logged."""
        out: list[str] = []
        for feature in self._all:
            try:
                text = call(feature)
            except Exception:
                log.exception("the %s of %s failed", what, type(feature).__name__)
                continue
            if text:
                out.append(text)
        return out

    def code_actions(self, path: Path, span: Span) -> list[types.CodeAction]:
        out: list[types.CodeAction] = []
        for feature in self._all:
            try:
                out += feature.code_actions(path, span)
            except Exception:
                log.exception("the code actions of %s failed", type(feature).__name__)
        return out

    async def async_code_actions(self, path: Path, range_: types.Range) -> list[types.CodeAction]:
        out: list[types.CodeAction] = []
        for feature in self._all:
            try:
                out += await feature.async_code_actions(path, range_)
            except Exception:
                log.exception("the code actions of %s failed", type(feature).__name__)
        return out

    async def aclose(self) -> None:
        """Close every feature; one that fails to close does not keep the others open."""
        for feature in self._all:
            try:
                await feature.aclose()
            except Exception:
                log.exception("closing %s failed", type(feature).__name__)
