"""The one interface every metadata source implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from citewarden.verify.records import Lookup, Query


@runtime_checkable
class Source(Protocol):
    """A scholarly metadata service.  Methods never raise for network or data problems:
    they return ``Lookup.failed(...)``.  A source that cannot answer a kind of request
    (e.g. Open Library has no DOI look-up) returns ``Lookup.failed(name, "unsupported")``.
    """

    name: str

    async def by_doi(self, doi: str) -> Lookup: ...

    async def search(self, query: Query) -> Lookup: ...
