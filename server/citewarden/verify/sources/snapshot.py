"""Offline source: a JSONL file of Crossref-format work records, indexed into SQLite FTS5.

Each line holds one work (the ``message`` of ``/works/{doi}``), an envelope
``{"message": work}``, or a page ``{"items": [work, ...]}`` as in Crossref's public data
file.  The index is built on first use next to the cache (``<dir>/snapshots/``) and rebuilt
when the file changes, replacing the index of the file's earlier state; lines that are not
valid records are skipped.  :func:`clear_indexes` and :func:`prune_indexes` serve
``citewarden cache clear`` and ``prune``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from citewarden.files import open_regular, refuse_special
from citewarden.verify.records import DamagedRecord, Lookup, Query, WorkRecord
from citewarden.verify.sources._common import guard, normalize_doi
from citewarden.verify.sources.crossref import notice_from_csl, work_from_csl

log = logging.getLogger("citewarden.snapshot")

#: Bumped when what an index holds changes (2: the DOIs of works without a usable record;
#: 3: what untitled notices update).
INDEX_VERSION = 3
#: The directory of the indexes, inside the cache directory.
INDEX_DIR = "snapshots"
#: ``snapshot-<digest of the file's path>-<digest of its state>.sqlite``; a build writes
#: ``....tmp<pid>`` first.  (Names of one digest are those of earlier versions.)
_INDEX_NAME = re.compile(
    r"snapshot-(?:(?P<path>[0-9a-f]{16})-)?[0-9a-f]+\.(?:sqlite|tmp(?P<pid>\d+))"
)
_WORD = re.compile(r"\w+", re.UNICODE)
_STOP = frozenset(
    {"a", "an", "the", "of", "and", "in", "on", "for", "to", "with", "by", "at", "or"}
)


#: The longest line read (a page of a thousand works is a few MB); longer ones are skipped.
MAX_LINE = 64 << 20


def _works(line: str) -> Iterator[dict[str, Any]]:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(data, dict):
        return
    if isinstance(data.get("items"), list):
        yield from (w for w in data["items"] if isinstance(w, dict))
    elif isinstance(data.get("message"), dict):
        yield data["message"]
    else:
        yield data


def _lines(fh: TextIO) -> Iterator[str | None]:
    """The lines of ``fh``, each at most :data:`MAX_LINE` characters: a longer one is read
    past in pieces and given as None (never held whole)."""
    while True:
        line = fh.readline(MAX_LINE)
        if not line:
            return
        if len(line) < MAX_LINE or line.endswith("\n"):
            yield line
            continue
        while line and not line.endswith("\n"):
            line = fh.readline(MAX_LINE)
        yield None


class SnapshotSource:
    """Answers ``by_doi``, ``search`` and ``notices`` from a local snapshot file."""

    name = "snapshot"

    def __init__(self, path: str | os.PathLike[str], index_dir: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.index_dir = Path(index_dir)
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._problem: str | None = None
        #: Works skipped while indexing (not JSON, no DOI, or no usable record: the DOI of
        #: such a work is held all the same, and answered as a failure, never "not found").
        self.skipped = 0

    # -- index ------------------------------------------------------------------------------

    def index_path(self) -> Path:
        st = self.path.stat()
        refuse_special(self.path, st.st_mode)  # a FIFO would block, /dev/zero never end
        state = f"{st.st_size}|{st.st_mtime_ns}|{INDEX_VERSION}"
        return self.index_dir / f"snapshot-{self._path_digest()}-{_digest(state)}.sqlite"

    def _path_digest(self) -> str:
        return _digest(str(self.path.resolve()))

    def _open(self) -> sqlite3.Connection | None:
        """Open (building if needed) the index; ``None`` with :attr:`_problem` set on error."""
        if self._conn is not None:
            return self._conn
        try:
            target = self.index_path()
        except OSError as exc:
            self._problem = f"snapshot unreadable: {exc.strerror or exc}"
            return None
        if not target.exists():
            try:
                self._build(target)
            except (OSError, sqlite3.Error) as exc:
                self._problem = f"snapshot index failed: {exc}"
                return None
            self._remove_stale(target)
        self._conn = sqlite3.connect(str(target), check_same_thread=False)
        return self._conn

    def _build(self, target: Path) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(str(tmp))
        try:
            conn.executescript(
                """
                CREATE TABLE works (doi TEXT PRIMARY KEY, json TEXT NOT NULL);
                CREATE TABLE updates (target TEXT NOT NULL, doi TEXT NOT NULL);
                CREATE INDEX updates_target ON updates(target);
                CREATE VIRTUAL TABLE fts USING fts5(doi UNINDEXED, title, authors);
                """
            )
            first: int | None = None  # the line of the first work skipped
            with open(open_regular(self.path), encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(_lines(fh), 1):
                    before = self.skipped
                    if line is None:  # over MAX_LINE
                        self.skipped += 1
                    elif line.strip():
                        works = list(_works(line))
                        if not works:
                            self.skipped += 1
                        for work in works:
                            self._add(conn, work)
                    if first is None and self.skipped > before:
                        first = number
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, target)
        if first is not None:
            log.warning(
                "the snapshot %s: %d %s skipped (a line that is not JSON or too long, or a "
                "work with no DOI or no usable record), the first on line %d",
                self.path,
                self.skipped,
                "work" if self.skipped == 1 else "works",
                first,
            )

    def _remove_stale(self, target: Path) -> None:
        """Remove the indexes of this file's earlier states and what dead builds left."""
        mine = self._path_digest()
        _remove(
            path
            for path, match in _index_files(self.index_dir)
            if path != target and (match["path"] == mine or _dead_build(match))
        )

    def _add(self, conn: sqlite3.Connection, work: dict[str, Any]) -> None:
        try:
            rec = work_from_csl(work, self.name)
        except DamagedRecord:
            rec = None
        doi = rec.doi if rec is not None else _doi_of(work)
        if doi is None:
            self.skipped += 1
            return
        cur = conn.execute(
            "INSERT OR IGNORE INTO works VALUES (?, ?)",
            (doi, json.dumps(work, ensure_ascii=False)),
        )
        if rec is None:  # held, so its DOI is no "not found"; nothing to search it by
            if cur.rowcount and _notice(work, self.name) is not None:
                # a notice deposited without a title is known by what it updates, as on
                # Crossref's own notices look-up
                _add_updates(conn, work, doi)
            else:
                self.skipped += 1
            return
        if cur.rowcount == 0:
            return
        title = " ".join(t for t in (rec.title, rec.subtitle) if t)
        conn.execute(
            "INSERT INTO fts VALUES (?, ?, ?)",
            (rec.doi, title, " ".join(p.family for p in rec.authors)),
        )
        _add_updates(conn, work, doi)

    # -- queries ----------------------------------------------------------------------------

    def _run(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]] | None:
        """The rows of ``sql``; an index SQLite cannot use (truncated, overwritten, a FIFO,
        tables missing) is removed and built again once, said in the log."""
        with self._lock:
            for rebuilt in (False, True):
                try:
                    conn = self._open()
                    if conn is None:
                        return None
                    return conn.execute(sql, args).fetchall()
                except sqlite3.DatabaseError as exc:
                    if rebuilt:
                        raise
                    self._discard(exc)
            return None  # not reached

    def _discard(self, exc: sqlite3.DatabaseError) -> None:
        """Close and remove the index that failed with ``exc``: the next use builds it."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        try:
            target = self.index_path()
            target.unlink(missing_ok=True)
        except OSError as why:
            log.warning("cannot remove the snapshot index that failed (%s): %s", exc, why)
            raise exc from why
        log.warning("the snapshot index %s could not be read (%s); building it again", target, exc)

    async def _query(
        self,
        sql: str,
        args: tuple[Any, ...],
        read: Callable[[Any, str], WorkRecord | None] = work_from_csl,
    ) -> Lookup:
        try:
            rows = await asyncio.to_thread(self._run, sql, args)
        except sqlite3.Error as exc:
            return Lookup.failed(self.name, f"snapshot query failed: {exc}")
        if rows is None:
            return Lookup.failed(self.name, self._problem or "snapshot unavailable")

        def build() -> Lookup:
            records = []
            for row in rows:
                rec = read(json.loads(row[0]), self.name)
                if rec is not None:
                    if len(row) > 1 and row[1] is not None:
                        rec = _with_relevance(rec, -float(row[1]))
                    records.append(rec)
            if rows and not records:
                return Lookup.failed(self.name, "the snapshot holds no usable record of it")
            return Lookup.found(self.name, records)

        return guard(self.name, build)

    async def by_doi(self, doi: str) -> Lookup:
        key = normalize_doi(doi) or doi.strip().lower()
        return await self._query("SELECT json FROM works WHERE doi = ?", (key,))

    async def notices(self, doi: str) -> Lookup:
        key = normalize_doi(doi) or doi.strip().lower()
        return await self._query(
            "SELECT w.json FROM updates u JOIN works w ON w.doi = u.doi WHERE u.target = ?",
            (key,),
            notice_from_csl,
        )

    async def search(self, query: Query) -> Lookup:
        words = [w for w in _WORD.findall(query.title.casefold()) if w not in _STOP]
        if not words:
            return Lookup.not_found(self.name)
        match = "title : (" + " OR ".join(f'"{w}"' for w in dict.fromkeys(words)) + ")"
        if query.authors:
            names = " OR ".join(f'"{a.casefold()}"' for a in query.authors if _WORD.search(a))
            if names:
                match = f"({match}) OR (authors : ({names}))"
        sql = (
            "SELECT w.json, bm25(fts, 0.0, 1.0, 0.3) AS score FROM fts JOIN works w ON w.doi = fts.doi "
            "WHERE fts MATCH ? ORDER BY score LIMIT ?"
        )
        return await self._query(sql, (match, max(1, query.limit)))

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _index_files(index_dir: Path) -> Iterator[tuple[Path, re.Match[str]]]:
    """The indexes and build files in ``index_dir`` (nothing when it cannot be listed)."""
    try:
        entries = list(index_dir.iterdir())
    except OSError:
        return
    for path in entries:
        name = path.name.removesuffix("-journal")
        match = _INDEX_NAME.fullmatch(name)
        if match is not None and (name == path.name or match["pid"] is not None):
            yield path, match  # a journal only of a build (an index is never written after)


def _dead_build(match: re.Match[str]) -> bool:
    """Whether the name is that of a build whose process is gone."""
    pid = match["pid"]
    if pid is None:
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False  # alive, but another user's
    return False


def clear_indexes(index_dir: str | os.PathLike[str]) -> int:
    """Remove every index in ``index_dir`` and what dead builds left; how many were removed
    (a build still running is left alone)."""
    found = _index_files(Path(index_dir))
    return _remove(path for path, match in found if match["pid"] is None or _dead_build(match))


def prune_indexes(index_dir: str | os.PathLike[str]) -> int:
    """Remove the indexes no snapshot is read from any more -- all but the newest of each
    file, and those named as by earlier versions -- and what dead builds left."""
    newest: dict[str, Path] = {}
    stale: list[Path] = []
    for path, match in _index_files(Path(index_dir)):
        key = match["path"]
        if match["pid"] is not None or key is None:
            if key is None or _dead_build(match):
                stale.append(path)
            continue
        kept = newest.setdefault(key, path)
        if kept != path:
            older, newest[key] = sorted((kept, path), key=_mtime)
            stale.append(older)
    return _remove(stale)


def _mtime(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return 0


def _remove(paths: Iterable[Path]) -> int:
    """Remove ``paths``; how many were removed (one in use or not ours is left as it is)."""
    removed = 0
    for path in paths:
        try:
            path.unlink()
        except OSError:
            continue
        removed += 1
    return removed


def _with_relevance(rec: Any, score: float) -> Any:
    import dataclasses

    return dataclasses.replace(rec, relevance=score)


def _notice(work: dict[str, Any], source: str) -> WorkRecord | None:
    """The record of a notice deposited without a title; None for any other work."""
    try:
        return notice_from_csl(work, source)
    except DamagedRecord:
        return None


def _add_updates(conn: sqlite3.Connection, work: dict[str, Any], doi: str) -> None:
    """Index the works ``work`` updates (``update-to``), so it answers their notices."""
    for u in work.get("update-to") or []:
        target = normalize_doi(u.get("DOI")) if isinstance(u, dict) else None
        if target and target != doi:
            conn.execute("INSERT INTO updates VALUES (?, ?)", (target, doi))


def _doi_of(work: dict[str, Any]) -> str | None:
    """The DOI of a work its record could not be made of (no title, a damaged value)."""
    doi = work.get("DOI")
    return normalize_doi(doi) if isinstance(doi, str) else None
