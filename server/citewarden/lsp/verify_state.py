"""What background verification keeps: entry fingerprints, queued jobs, per-file memos,
and the thread the engine runs in.

* Each entry is known by a *fingerprint* of its identity fields (:func:`fingerprint`);
  verdicts are stored by fingerprint, so an entry is verified again only when one of those
  fields changes.
* :class:`EngineThread` is an event loop in a daemon thread where the engine runs, so the
  server's loop stays free while hundreds of entries verify.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from citewarden.model import Entry, Finding, ParsedBibliography, Verdict
from citewarden.verify.identifiers import arxiv_in_text

#: Fields whose change makes an entry a different claim about the literature: every field
#: verification reads (a verdict is reused while they stay the same).
IDENTITY_FIELDS = frozenset(
    {
        "title",
        "subtitle",
        "author",
        "editor",
        "year",
        "date",
        "journal",
        "journaltitle",
        "booktitle",
        "series",
        "venue",
        "entrysubtype",
        "publisher",
        "howpublished",
        "volume",
        "number",
        "issue",
        "pages",
        "doi",
        "eprint",
        "eprinttype",
        "archiveprefix",
        "arxiv",
        "arxivid",
        "isbn",
        "issn",
        "pmid",
        "url",
    }
)


#: Free-text fields verification reads an identifier from, and only that: their other
#: edits keep the verdict.
ID_TEXT_FIELDS = frozenset({"note"})


def _name_of(item: tuple[str, str]) -> str:
    return item[0]


def fingerprint(entry: Entry) -> str:
    """A digest of the entry's type and identity fields (whitespace-insensitive)."""
    parts = [entry.entry_type.lower()]
    for name, text in sorted(entry.field_texts(), key=_name_of):
        if name in IDENTITY_FIELDS:
            parts.append(f"{name}={' '.join(text.split())}")
        elif name in ID_TEXT_FIELDS:
            parts.append(f"{name}~arxiv={arxiv_in_text(text)}")
    return hashlib.blake2b(
        "\x1f".join(parts).encode("utf-8", "replace"), digest_size=12
    ).hexdigest()


#: Interpreter thread switch interval while the engine thread runs: the loop that answers
#: the editor waits at most this long for the interpreter lock when the engine is busy.
SWITCH_INTERVAL = 0.001


class EngineThread:
    """An event loop in a daemon thread where the verification engine runs."""

    def __init__(self) -> None:
        if sys.getswitchinterval() > SWITCH_INTERVAL:
            sys.setswitchinterval(SWITCH_INTERVAL)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name="citewarden-verify", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def submit(self, work: Any) -> asyncio.Future[Any]:
        """Run the coroutine ``work`` there; cancelling the result cancels it there too."""
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


@dataclass
class Job:
    fp: str
    entry: Entry
    priority: int
    seq: int
    #: The run that queued it: within a priority, newer runs (the last save) go first.
    batch: int = 0


@dataclass
class _FileMemo:
    bib: ParsedBibliography
    fps: list[str]
    ignored: list[bool]


@dataclass
class _FileRows:
    """Per entry of one parse of a bibliography (aligned with its entries): whether it is
    verified at all, its verdict, its findings; made for one verdict generation and one
    settings object."""

    bib: ParsedBibliography
    generation: int
    settings_token: int
    fps: list[str]
    flags: list[bool]
    verdicts: list[Verdict | None]
    rows: list[Sequence[Finding]]
    #: positions of the entries whose citations are marked too
    marked: list[int]
    found: list[Finding] = dataclasses.field(init=False)
    #: fingerprints of the entries verified at all, in order
    wanted: list[str] = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        self.found = list(itertools.chain.from_iterable(self.rows))
        self.wanted = list(itertools.compress(self.fps, self.flags))
