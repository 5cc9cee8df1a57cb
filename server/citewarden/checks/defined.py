"""Which names a project defines (entry keys, ``ids`` aliases, ``\\bibitem`` keys), and
how a bibliography's keys changed in its last edit.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.checks import Ident, Memo
from citewarden.file_state import fold_key
from citewarden.model import BibFormat, Code, DocumentKind, Finding, ParsedBibliography, Span
from citewarden.parsing.bib_comments import commented_positions, skipped_regions, unique_keys_at
from citewarden.parsing.biber_syntax import (
    biber_rejections,
    biber_renamings,
    btparse_rejects,
    typed_entry_keys,
)
from citewarden.parsing.bibtex_last_line import entries_bibtex_skips
from citewarden.parsing.bibtex_recovery import (
    BibtexKeys,
    bibtex_keys,
    differing_at,
    differs_at,
    reach_back,
)
from citewarden.parsing.encoding import NOT_UTF8
from citewarden.parsing.pandoc_syntax import (
    PANDOC_2,
    PandocDialect,
    dialect_of,
    pandoc_skipped_keys,
)

if TYPE_CHECKING:
    from citewarden.file_state import BibIndex
    from citewarden.project import Project, Workspace


@dataclass(frozen=True, slots=True)
class KeyDelta:
    """How a bibliography's keys changed in its last edit, when that edit re-read entries
    ``[a, b)`` and left their number, their ``ids`` aliases and every crossref/xdata link
    as they were (a key typed into, the usual edit): what depends on the keys is updated
    from the previous answer instead of being computed again over every key."""

    #: the previous version's ``keys_token`` (:func:`key_delta`), or the project's previous
    #: :func:`defined_token` (:func:`project_delta`)
    previous: object
    a: int
    b: int
    #: keys of ``[a, b)`` before the edit that the bibliography no longer defines
    removed: frozenset[str]
    #: keys of ``[a, b)`` after the edit
    added: frozenset[str]


def key_delta(index: BibIndex, aliases: bool = True) -> KeyDelta | None:
    """The :class:`KeyDelta` of ``index``'s last edit, if it was such an edit (``aliases``:
    the ``ids`` aliases are names too, as for biber and pandoc)."""
    prev = index.previous
    if prev is None:
        return None
    old, a, b, b_old = prev
    if b != b_old or index.alias_rows is not old.alias_rows:
        return None
    if index.parent_rows is not old.parent_rows:
        return None
    rows = index.alias_rows, index.parent_rows
    if any(i in table for i in range(a, b) for table in rows):
        return None
    names = {alias for rows in index.alias_rows.values() for alias in rows} if aliases else set()
    removed = frozenset(k for k in old.keys[a:b] if k not in index.by_key and k not in names)
    return KeyDelta(old.keys_token, a, b, removed, frozenset(index.keys[a:b]))


def project_delta(ws: Workspace, project: Project, memo: Memo) -> KeyDelta | None:
    """The key delta of a project defined by one bibliography (and no ``\\bibitem``) of
    which its reader reads every entry, its ``previous`` the project's previous
    :func:`defined_token`: the previous answers it updates were made with every entry read
    too (an entry that became a comment, or stopped being one, changed the token)."""
    bibs = list(ws.project_bibliographies(project))
    if len(bibs) != 1:
        return None
    if any(doc.bibitems for _, doc in ws.project_documents(project)):
        return None
    path, _, index = bibs[0]
    delta = key_delta(index, aliases=not project.casefold_keys)
    if delta is None or unread_keys(ws, project, path, index, memo):
        return None  # keys the reader does not read: compute again (see defined_token)
    if project.casefold_keys and bibtex_reading(ws, path, index).added:
        return None
    if reader(project) == "biber" and biber_reading(ws, path, index).typed:
        return None  # (an edit may change the entries the reader skips)
    return replace(delta, previous=(reader(project), delta.previous))


class Defined:
    """The names a project defines: entry keys, ``ids`` aliases and ``\\bibitem`` keys.

    Held as the bibliography indexes' own sets (no copy of 20 000 keys per check); the
    pool of suggestions (:attr:`keys`, :attr:`folded_keys`) is made once, on the first
    dangling key.
    """

    __slots__ = (
        "_folded",
        "_folded_parts",
        "_folded_pool",
        "_keys",
        "_names",
        "_pool",
        "_unread",
    )

    def __init__(
        self,
        names: list[Collection[str]],
        folded: list[Collection[str]],
        pool: list[Sequence[str]],
        folded_parts: list[Callable[[], Sequence[str]]] | None = None,
        unread: Sequence[UnreadPart] = (),
    ) -> None:
        self._names = names
        self._folded = folded
        self._pool = pool
        self._unread = unread
        #: per part of ``pool``, a function giving its keys casefolded (an index's is
        #: carried over between versions of the bibliography)
        self._folded_parts = folded_parts
        self._keys: list[str] | None = None
        self._folded_pool: list[str] | None = None

    def __contains__(self, key: str) -> bool:
        return any(key in names for names in self._names)

    def missing(self, keys: frozenset[str]) -> frozenset[str]:
        """The ``keys`` defined nowhere (set operations only).

        One difference per collection: each then looks up only the (few) remaining keys,
        where a difference with several collections at once would walk every one of them.
        """
        for names in self._names:
            if not keys:
                break
            keys = keys.difference(names)
        return keys

    def missing_folded(self, folded_keys: frozenset[str]) -> frozenset[str]:
        """The casefolded ``folded_keys`` that no casefolded name matches."""
        for names in self._folded:
            if not folded_keys:
                break
            folded_keys = folded_keys.difference(names)
        return folded_keys

    def has_folded(self, folded_key: str) -> bool:
        return any(folded_key in names for names in self._folded)

    def unread_in(self, key: str) -> UnreadPart | None:
        """The bibliography whose entry of ``key`` the project's reader does not read (a
        comment for biber and pandoc, an entry BibTeX reads past), if there is one."""
        for part in self._unread:
            if key in part.keys:
                return part
        return None

    @property
    def keys(self) -> list[str]:
        """Every defined name in file order (the pool of "did you mean" suggestions; may
        repeat a duplicated key).  Made once; do not modify it."""
        if self._keys is None:
            if len(self._pool) == 1:
                part = self._pool[0]
                self._keys = part if isinstance(part, list) else list(part)
            else:
                self._keys = [key for part in self._pool for key in part]
        return self._keys

    @property
    def folded_keys(self) -> list[str]:
        """:attr:`keys` casefolded, made once (parts carried over between versions)."""
        if self._folded_pool is None:
            if self._folded_parts is None:
                self._folded_pool = [fold_key(k) for k in self.keys]
            elif len(self._folded_parts) == 1:
                part = self._folded_parts[0]()
                self._folded_pool = part if isinstance(part, list) else list(part)
            else:
                self._folded_pool = [k for part in self._folded_parts for k in part()]
        return self._folded_pool


def reader(project: Project) -> str:
    """What reads ``project``'s bibliographies: "bibtex", "biber" or "pandoc"."""
    if project.casefold_keys:
        return "bibtex"
    return "pandoc" if project.kind is DocumentKind.MARKDOWN else "biber"


def unread_keys(
    ws: Workspace, project: Project, path: Path, index: BibIndex, memo: Memo
) -> frozenset[str]:
    """Keys of the bibliography ``index`` that ``project``'s reader does not read: those
    BibTeX skips on the file's last line (:func:`bibtex_skipped_keys`), or those biber and
    pandoc read as comments (:func:`commented_keys`, once per version of the file)."""
    if project.casefold_keys:
        return bibtex_skipped_keys(ws, path, index)
    if project.kind is not DocumentKind.MARKDOWN:
        if biber_undecodable(ws, project, path):
            return frozenset(index.by_key)
        return memo.get(("biber-unread", Ident(index)), biber_unread_keys, ws, path, index)
    dialect = dialect_of(project.pandoc_version)
    return memo.get(
        ("commented", Ident(index), False, dialect),
        commented_keys,
        ws,
        path,
        index,
        False,
        dialect,
    )


def defined_token(ws: Workspace, project: Project, memo: Memo) -> tuple[object, ...]:
    """Changes whenever what ``project`` defines may have changed: its reader (the answers
    of a BibTeX project are not those of a biber one that shares its documents), the keys
    of its bibliographies, those of them its reader does not read (an edit that keeps every
    key may change them: ``%`` typed before an entry, an entry wrapped in ``@comment{...}``,
    text after it on the last line) and its ``\\bibitem`` keys."""
    bibs = list(ws.project_bibliographies(project))
    token: list[object] = [reader(project)]
    token += [index.keys_token for _, _, index in bibs]
    for i, (path, _, index) in enumerate(bibs):
        unread = unread_keys(ws, project, path, index, memo)
        if unread:  # (and whether a syntax error is why, which the message says)
            token.append(("unread", i, unread, _broken(ws, project, path, index)))
        added = added_keys(ws, project, path, index)
        if added:
            token.append(("added", i, added))
    for _, doc in ws.project_documents(project):
        if doc.bibitems:
            token.append(tuple(k for k, _ in doc.bibitems))
    return tuple(token)


@dataclass(frozen=True, slots=True)
class UnreadPart:
    """Entries of a project's bibliography that its reader does not read."""

    path: Path
    #: their keys
    keys: frozenset[str]
    #: "bibtex", "biber" or "pandoc" (:func:`reader`); "biber-key": keys biber reads as
    #: others; "biber-encoding": biber cannot decode the file (:func:`biber_undecodable`)
    reader: str
    #: the reader found a syntax error in the file (BibTeX reads on from it, biber reads
    #: no entry of the file)
    broken: bool


def _broken(ws: Workspace, project: Project, path: Path, index: BibIndex) -> bool:
    """Whether ``project``'s reader found a syntax error in the bibliography ``path``."""
    if reader(project) == "biber":
        return biber_drops(ws, project, path, index)
    parsed = ws.bibliography(path)
    return parsed is not None and not parsed.complete


def biber_drops(ws: Workspace, project: Project, path: Path, index: BibIndex) -> bool:
    """Whether biber, reading the bibliography ``path`` (of ``index``) for ``project``,
    reads no entry of it: a syntax error for btparse, or a file it cannot decode."""
    return biber_reading(ws, path, index).dropped or biber_undecodable(ws, project, path)


#: the names of UTF-8 as biblatex's ``bibencoding`` and inputenc give it
_UTF8 = frozenset({"utf8", "utf-8", "utf8x", "auto"})


def biber_undecodable(ws: Workspace, project: Project, path: Path) -> bool:
    """Whether biber, reading the bibliography ``path`` for ``project``, cannot decode it
    and so reads no entry of it ("cannot be read in encoding 'utf8'"): the file is not valid
    UTF-8 (or is UTF-16) and no document of the project names another encoding for it
    (biblatex's ``bibencoding=``, or inputenc's option, which its default ``auto`` takes)."""
    if reader(project) != "biber" or not any(
        p.code is Code.FILE_ENCODING and p.data.get("encoding") in NOT_UTF8
        for p in ws.read_problems(path)
    ):
        return False
    declared = {doc.bib_encoding for _, doc in ws.project_documents(project)}
    return declared <= _UTF8 | {""}


def added_keys(ws: Workspace, project: Project, path: Path, index: BibIndex) -> frozenset[str]:
    """Keys ``project``'s reader defines in the bibliography ``path`` that the reader does
    not: those BibTeX reads after a syntax error, or the keys biber reads in place of the
    written ones (``d`` for ``d'A``) and in entries with an apostrophe in their type."""
    if project.casefold_keys:
        return bibtex_reading(ws, path, index).added
    if project.kind is DocumentKind.MARKDOWN:
        return frozenset()
    reading = biber_reading(ws, path, index)
    if reading.dropped or not (reading.renamings or reading.typed):
        return frozenset()
    if biber_undecodable(ws, project, path):
        return frozenset()
    read = {key for _, key in reading.renamings} | reading.typed
    return frozenset(read).difference(index.by_key)


def _unread_parts(
    ws: Workspace, project: Project, path: Path, index: BibIndex, unread: frozenset[str]
) -> list[UnreadPart]:
    """The :class:`UnreadPart` of the ``unread`` keys of the bibliography ``path``: those
    biber reads as other keys apart."""
    if biber_undecodable(ws, project, path):
        return [UnreadPart(path, unread, "biber-encoding", True)]
    broken = _broken(ws, project, path, index)
    if reader(project) != "biber" or broken:
        return [UnreadPart(path, unread, reader(project), broken)]
    renamed = frozenset(index.keys[i] for i, _ in biber_reading(ws, path, index).renamings)
    renamed &= unread
    parts = [UnreadPart(path, unread - renamed, "biber", False)] if unread - renamed else []
    if renamed:
        parts.append(UnreadPart(path, renamed, "biber-key", False))
    return parts


def defined_names(ws: Workspace, project: Project, memo: Memo) -> Defined:
    names: list[Collection[str]] = []
    folded: list[Collection[str]] = []
    pool: list[Sequence[str]] = []
    folded_parts: list[Callable[[], Sequence[str]]] = []
    unread_parts: list[UnreadPart] = []
    for bib_path, _, index in ws.project_bibliographies(project):
        unread = unread_keys(ws, project, bib_path, index, memo)
        if unread:
            unread_parts += _unread_parts(ws, project, bib_path, index, unread)
        if unread:  # biber and pandoc read no comment, BibTeX no skipped entry
            names.append(index.by_key.keys() - unread)
            folded.append({fold_key(k) for k in names[-1]})
        else:
            # the index's own dicts: look-ups and set differences need no copy of the keys
            names.append(index.by_key)
            folded.append(index.folded)
        if unread:  # nor is such a key a suggestion ("did you mean" a commented-out key)
            pool.append([k for k in index.keys if k not in unread])
            folded_parts.append(partial(_casefolded, pool[-1]))
        else:
            pool.append(index.keys)
            folded_parts.append(index.folded_keys)
        dropped = reader(project) == "biber" and (
            biber_reading(ws, bib_path, index).dropped or biber_undecodable(ws, project, bib_path)
        )
        # (BibTeX knows no ids field, and biber reads none of a file it drops)
        if index.alias_rows and not project.casefold_keys and not dropped:
            aliases = index.aliases
            names.append(frozenset(aliases))
            folded.append({fold_key(a) for a in aliases})
            pool.append(list(aliases))
            folded_parts.append(partial(_casefolded, pool[-1]))
        added = added_keys(ws, project, bib_path, index)
        if added:  # keys BibTeX reads where the reader reads none, biber's in place of some
            names.append(added)
            folded.append({fold_key(k) for k in added})
            pool.append(sorted(added))
            folded_parts.append(partial(_casefolded, pool[-1]))
    for _, doc in ws.project_documents(project):
        if doc.bibitems:
            items = [k for k, _ in doc.bibitems]
            names.append(frozenset(items))
            folded.append({fold_key(k) for k in items})
            pool.append(items)
            folded_parts.append(partial(_casefolded, items))
    return Defined(names, folded, pool, folded_parts, unread_parts)


@dataclass(frozen=True, slots=True)
class BiberReading:
    """How biber reads a .bib file otherwise than the reader does."""

    #: the places biber rejects, with why (:func:`biber_rejections`)
    rejections: list[tuple[Span, str]]
    #: the entries whose key biber reads as another: (position, the key biber reads)
    renamings: list[tuple[int, str]]
    #: biber reads no entry of the file: it rejects a place, or the file has a syntax error
    #: for btparse (biber drops the whole file on one, where BibTeX reads on from it)
    dropped: bool
    #: the keys of the entries the reader skips at an apostrophe or a backslash in their
    #: type, which biber reads (``@articl'e{a,``: :func:`typed_entry_keys`; ``@'article{d,``:
    #: :func:`~citewarden.parsing.biber_syntax.stray_at_signs`)
    typed: frozenset[str] = frozenset()


#: ``BibIndex.rows`` entry of :func:`biber_reading` (one answer, per version)
_BIBER_READING = "#biber-reading"


def biber_reading(ws: Workspace, path: Path, index: BibIndex) -> BiberReading:
    """How biber reads the bibliography ``path`` (of ``index``), once per version."""
    found = index.rows.get(_BIBER_READING)
    if found is None:
        parsed = ws.bibliography(path)
        if parsed is None or parsed.format is not BibFormat.BIBTEX:
            index.rows[_BIBER_READING] = [BiberReading([], [], False)]
            return index.rows[_BIBER_READING][0]  # type: ignore[no-any-return]
        text = ws.text(path) or ""
        commented = partial(commented_entries, ws, path, index, True)
        read: list[str] = []  # entries biber reads where the reader reads none
        rejections = biber_rejections(text, index.entries, commented, read)
        problems = [] if parsed.complete else _read_problems(parsed, index, commented)
        dropped = bool(rejections) or btparse_rejects(text, problems)
        renamings = [] if dropped else biber_renamings(text, index.entries, commented)
        typed: frozenset[str] = frozenset()
        if (problems or read) and not dropped:
            skipped = skipped_regions_of(ws, path, index, True)
            typed = frozenset(
                key
                for at, key in typed_entry_keys(text, problems)
                if not any(a <= at < b for a, b, _ in skipped)
            ).union(read)
        reading = BiberReading(rejections, renamings, dropped, typed)
        found = index.rows[_BIBER_READING] = [reading]
    return found[0]  # type: ignore[no-any-return]


def _read_problems(
    parsed: ParsedBibliography, index: BibIndex, commented: Callable[[], Sequence[int]]
) -> list[Finding]:
    """The problems of ``parsed`` in the entries biber reads: not in one it reads as a
    comment (``commented()``: after a ``%`` on its line, in an ``@comment`` group), whose
    lines after the first are junk between entries to it."""
    skipped = set(commented())
    if not skipped:
        return list(parsed.problems)
    starts = index.bounds().starts
    kept: list[Finding] = []
    for problem in parsed.problems:
        at = problem.location.span.start
        i = bisect.bisect_right(starts, at) - 1
        if i < 0 or i not in skipped:
            kept.append(problem)
    return kept


def biber_unread_keys(ws: Workspace, path: Path, index: BibIndex) -> frozenset[str]:
    """Keys of the bibliography ``path`` (of ``index``) that biber does not read: every
    key of a file it drops (:class:`BiberReading`), else those of entries it reads as
    comments (:func:`commented_keys`) or whose key it reads as another."""
    reading = biber_reading(ws, path, index)
    if reading.dropped:
        return frozenset(index.by_key)
    keys = commented_keys(ws, path, index)
    if reading.renamings:
        keys |= unique_keys_at(index.keys, [i for i, _ in reading.renamings])
    return keys


def commented_keys(
    ws: Workspace,
    path: Path,
    index: BibIndex,
    biber: bool = True,
    dialect: PandocDialect = PANDOC_2,
) -> frozenset[str]:
    """Keys of the entries biber (``biber``) or pandoc reads as comments (BibTeX reads
    them): their ``@`` stands after a ``%`` on its line, or inside an ``@comment{...}`` group
    (biber: or an ``@comment(...)`` one, and its lines end at a lone carriage return too;
    pandoc before 3.9 (``dialect``) skips an entry whose type starts with the word
    comment, ``@commentary{...}``; see :mod:`~citewarden.parsing.bib_comments`)."""
    keys = unique_keys_at(index.keys, commented_entries(ws, path, index, biber))
    if not biber:
        text = ws.text(path) or ""
        skipped = pandoc_skipped_keys(text, index.entries, dialect)
        if skipped:
            keys = keys | skipped
    return keys


def skipped_regions_of(
    ws: Workspace, path: Path, index: BibIndex, biber: bool
) -> list[tuple[int, int, bool]]:
    """The text of the bibliography ``path`` (of ``index``) that biber (``biber``) or pandoc
    skips (:func:`~citewarden.parsing.bib_comments.skipped_regions`), once per version."""
    name = "#skipped-biber" if biber else "#skipped-pandoc"
    found = index.rows.get(name)
    if found is None:
        text = ws.text(path) or ""
        regions = skipped_regions(text, index.entries, biber, index.bounds())
        found = index.rows[name] = [regions]
    return found[0]  # type: ignore[no-any-return]


def commented_entries(ws: Workspace, path: Path, index: BibIndex, biber: bool) -> list[int]:
    """Positions of the entries of the bibliography ``path`` (of ``index``) that biber
    (``biber``) or pandoc reads as comments, in order, once per version (see
    :func:`~citewarden.parsing.bib_comments.commented_positions`)."""
    name = "#commented-biber" if biber else "#commented-pandoc"
    found = index.rows.get(name)
    if found is None:
        regions = skipped_regions_of(ws, path, index, biber)
        text = ws.text(path) or ""
        positions = commented_positions(text, index.entries, True, biber, index.bounds(), regions)
        found = index.rows[name] = [positions]
    return found[0]  # type: ignore[no-any-return]


#: ``BibIndex.rows`` entry of :func:`bibtex_reading` (one answer, per version)
_BIBTEX_KEYS = "#bibtex-keys"


def bibtex_skipped_keys(ws: Workspace, path: Path, index: BibIndex) -> frozenset[str]:
    """Keys of the entries BibTeX does not read although the reader does (see
    :func:`bibtex_reading`)."""
    return bibtex_reading(ws, path, index).unread


def bibtex_defined_keys(ws: Workspace, path: Path, index: BibIndex) -> set[str]:
    """The keys BibTeX defines in the bibliography ``index``."""
    reading = bibtex_reading(ws, path, index)
    return (index.by_key.keys() - reading.unread) | reading.added


def bibtex_reading(ws: Workspace, path: Path, index: BibIndex) -> BibtexKeys:
    """How the keys BibTeX defines differ from the reader's, once per version of the
    bibliography.  In a file with a syntax error (or another reading BibTeX does
    otherwise, :func:`~citewarden.parsing.bibtex_recovery.differs_at`) BibTeX resumes at
    the next ``@``, wherever it is: the whole file is read as BibTeX reads it
    (:mod:`citewarden.parsing.bibtex_recovery`).  In any other one the keys differ only on
    its last line, where BibTeX reads just the first block (``@misc{a, ...} @misc{b, ...}``
    as the last line defines ``a`` only; :mod:`citewarden.parsing.bibtex_last_line`),
    usually at once: no entry starts there."""
    found = index.rows.get(_BIBTEX_KEYS)
    if found is None:
        text = ws.text(path) or ""
        parsed = ws.bibliography(path)
        complete = parsed is not None and parsed.complete
        bounds = index.bounds()
        # looked for in every version, so that the next one looks around its edit only
        offsets = _differing(index, text)
        if not complete or differs_at(text, offsets, bounds.starts, bounds.ends):
            reading = bibtex_keys(text, index.entries, index.keys)
        else:
            skipped = entries_bibtex_skips(text, index.entries)
            keys = {index.keys[i] for i in skipped}
            # a key also defined by an entry BibTeX reads stays defined
            kept = {k for k in keys if not set(index.by_key[k]) <= set(skipped)}
            reading = BibtexKeys(unread=frozenset(keys - kept))
        found = index.rows[_BIBTEX_KEYS] = [reading]
    return found[0]  # type: ignore[no-any-return]


#: ``BibIndex.rows`` entry of :func:`_differing`: (offsets, length of the text)
_DIFFERING = "#bibtex-differing"


def _differing(index: BibIndex, text: str) -> list[int]:
    """Where a reading BibTeX does otherwise without a syntax error begins in ``text``
    (:func:`~citewarden.parsing.bibtex_recovery.differing_at`), once per version: after an
    edit only the text around it is looked at again, the offsets before and behind it are
    the previous version's (an 18 MB file is not searched on every keystroke)."""
    found = index.rows.get(_DIFFERING)
    if found is not None:
        return found[0]  # type: ignore[no-any-return]
    prev = index.previous
    old = prev[0].rows.get(_DIFFERING) if prev is not None else None
    if prev is None or old is None:
        offsets = differing_at(text)
    else:
        old_offsets, old_length = old
        _, _, b, _ = prev
        delta = len(text) - old_length
        # the text behind the edit is the previous version's from its first untouched entry
        tail = index.bounds().starts[b] if b < len(index.entries) else len(text)
        head = reach_back(text, min(index.edited_from, tail))
        keep = bisect.bisect_left(old_offsets, head)
        behind = bisect.bisect_left(old_offsets, tail - delta)
        offsets = old_offsets[:keep] + differing_at(text, head, tail)
        offsets += [at + delta for at in old_offsets[behind:]]
    index.rows[_DIFFERING] = [offsets, len(text)]
    return offsets


def _casefolded(keys: Sequence[str]) -> list[str]:
    return [fold_key(k) for k in keys]
