"""The keys a set of documents cites, memoised per run while the documents are unchanged."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from citewarden.checks import Ident, Memo
from citewarden.checks.orphans import doc_folded, doc_keys
from citewarden.model import ParsedDocument


def keys_of(docs: Iterable[ParsedDocument], memo: Memo, folded: bool = False) -> frozenset[str]:
    """The keys ``docs`` cite (casefolded with ``folded``): one set, made once while the
    documents are unchanged."""
    docs = tuple(docs)
    name, each = ("cited-folded", doc_folded) if folded else ("cited", doc_keys)
    return memo.get((f"{name}-all", *map(Ident, docs)), _union, docs, name, each, memo)


def _union(
    docs: tuple[ParsedDocument, ...],
    name: str,
    each: Callable[[ParsedDocument], frozenset[str]],
    memo: Memo,
) -> frozenset[str]:
    return frozenset().union(*(memo.get((name, Ident(doc)), each, doc) for doc in docs))


__all__ = ["keys_of"]
