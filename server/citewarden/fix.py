"""The safe fixer behind ``citewarden check --fix``: write anchored corrections into a .bib.

Only the value spans of corrected fields change (or one new field line is inserted in the
entry's own style, e.g. a missing ``doi``); every other byte of the file stays as it was:
formatting, comments, field order, unknown fields, line endings and encoding.  A file that was
not parsed completely is refused.  Writing is atomic: a temporary file in the same directory,
fsync, ``os.replace``, then an fsync of the directory; the original is kept as a backup first.
The new file keeps the old one's mode, owner and group.  A file with hard links (or one whose
owner this user cannot give a new file) is overwritten in place instead, once the temporary
copy holds the verified new bytes, so that every link sees the change.
A temporary file that a killed run left behind is removed by the next write of that file.

The pure part (:func:`plan_fix`) computes the new bytes; :func:`write_atomically` and
:func:`apply_plan` are the only functions here that touch the disk.
"""

from __future__ import annotations

import difflib
import glob
import itertools
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from citewarden.model import Code, Entry, Field, ParsedBibliography, Span, TextEdit, Verdict
from citewarden.safe_text import unsafe_characters, visible_lines

#: The backup of ``refs.bib`` is ``refs.bib.orig`` (or ``refs.bib.orig.1`` ... when a different
#: backup already exists; an existing backup is never overwritten).
BACKUP_SUFFIX = ".orig"

#: biblatex spells some fields differently; a correction for the left name edits the right one
#: when only that one is present.
_ALIASES: Mapping[str, str] = {"journal": "journaltitle", "address": "location"}

#: Write size of one chunk; small enough that a large file takes several writes.
_CHUNK = 1 << 16


class FixRefused(Exception):
    """The file must not be rewritten (incomplete parse, not UTF-8, changed on disk ...)."""


@dataclass(frozen=True, slots=True)
class Change:
    """One field written by the fixer.  ``old`` is None for an inserted field."""

    key: str
    field: str
    old: str | None
    new: str
    line: int  # 1-based line of the field (of the entry, for an insertion)


@dataclass(frozen=True, slots=True)
class Skipped:
    """A correction the fixer did not apply, and why."""

    key: str
    field: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class FixPlan:
    """What ``--fix`` would do to one file: the old and new bytes and a list of changes."""

    path: Path
    old: bytes
    new: bytes
    changes: tuple[Change, ...] = ()
    skipped: tuple[Skipped, ...] = ()

    @property
    def changed(self) -> bool:
        return self.old != self.new

    def diff(self) -> str:
        """Unified diff of the plan (empty when nothing changes)."""
        if not self.changed:
            return ""
        old = _lines(self.old.decode("utf-8"))
        new = _lines(self.new.decode("utf-8"))
        name = self.path.as_posix()
        lines = difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}")
        out = []
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


def _lines(text: str) -> list[str]:
    """Lines split on LF only, each keeping its ending (a CR stays part of its line)."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


@dataclass(frozen=True, slots=True)
class _Edit:
    start: int
    end: int
    text: str


# ----------------------------------------------------------------------------------------
# Planning (pure)
# ----------------------------------------------------------------------------------------


def decode(original: bytes, path: Path) -> tuple[str, str]:
    """``(bom, text)``: a leading UTF-8 byte-order mark (kept as is, '' if none) and the text
    the parser sees (without it, as the project's reader decodes files).  Only valid UTF-8
    files are rewritten, so their bytes round-trip exactly."""
    try:
        text = original.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FixRefused(
            f"{path}: not valid UTF-8 (byte {exc.start}); refusing to rewrite it"
        ) from None
    if "\x00" in text:
        raise FixRefused(f"{path}: contains NUL bytes; refusing to rewrite it")
    if text.startswith("\ufeff"):
        return "\ufeff", text[1:]
    return "", text


def check_complete(bib: ParsedBibliography) -> None:
    """Raise :class:`FixRefused` unless every byte of the file was understood."""
    errors = [p for p in bib.problems if p.code in (Code.BIB_SYNTAX, Code.FILE_ENCODING)]
    if not bib.complete or errors:
        where = ""
        if errors:
            where = f" ({len(errors)} syntax/encoding problem(s), first: {errors[0].message})"
        raise FixRefused(
            f"{bib.path}: the file was not parsed completely{where}; "
            "refusing to rewrite it — fix the syntax first"
        )


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _balanced(value: str) -> bool:
    depth = 0
    escaped = False
    for ch in value:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _quote_at_top_level(value: str) -> bool:
    depth = 0
    for ch in value:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == '"' and depth == 0:
            return True
    return False


def _replace_edit(text: str, f: Field, value: str) -> _Edit:
    """The edit that replaces ``f``'s value by ``value``, keeping the delimiters if possible."""
    start, end = f.value_span.start, f.value_span.end
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if before == "{" and after == "}":
        return _Edit(start, end, value)
    if before == '"' and after == '"':
        if _quote_at_top_level(value):  # switch to braces rather than break the quotes
            return _Edit(start - 1, end + 1, "{" + value + "}")
        return _Edit(start, end, value)
    # A bare value (a number): keep it bare only if the new one is a number too.
    return _Edit(start, end, value if value.isdigit() else "{" + value + "}")


def _name_style(written: str, name: str) -> str:
    if written.isupper():
        return name.upper()
    if written[:1].isupper():
        return name.capitalize()
    return name


def _insert_edit(text: str, entry: Entry, name: str, value: str) -> _Edit | None:
    """A new ``name = {value}`` line after the entry's last field, in the entry's own style."""
    if not entry.fields:
        return None
    last = max(entry.fields, key=lambda f: f.name_span.start)
    # Separator before the last field: whitespace between its preceding comma and its name.
    i = last.name_span.start
    while i > entry.span.start and text[i - 1] in " \t\r\n":
        i -= 1
    gap = text[i : last.name_span.start] if i > entry.span.start and text[i - 1] == "," else ""
    if not gap:
        gap = "\r\n  " if "\r\n" in text[entry.span.start : entry.span.end] else "\n  "
    # Between name and value: `` = `` as the last field writes it.
    j = last.name_span.end
    while j < len(text) and text[j] in " \t=":
        j += 1
    equals = text[last.name_span.end : j]
    if "=" not in equals:
        equals = " = "
    written = text[last.name_span.start : last.name_span.end]
    styled = _name_style(written, name)
    pre = len(equals) - len(equals.lstrip(" \t"))
    if pre > 1 and "\t" not in equals:  # aligned ``=`` signs: keep the column
        equals = " " * max(1, len(written) + pre - len(styled)) + equals.lstrip(" ")
    new_field = f"{styled}{equals}{{{value}}}"
    if text[entry.span.end - 1] not in "})":
        return None
    # Right after the last field's value (and its closing delimiter) ...
    start, end = last.value_span.start, last.value_span.end
    opener = text[start - 1] if start > 0 else ""
    anchor = end + 1 if (opener, text[end : end + 1]) in (("{", "}"), ('"', '"')) else end
    k = anchor
    while k < entry.span.end - 1 and text[k] in " \t":
        k += 1
    # ... or after its trailing comma, keeping the comma style of the entry.
    if text[k] == ",":
        return _Edit(k + 1, k + 1, gap + new_field + ",")
    return _Edit(anchor, anchor, "," + gap + new_field)


def _entry_edits(
    text: str,
    entry: Entry,
    fields: Mapping[str, str],
    changes: list[Change],
    skipped: list[Skipped],
) -> list[_Edit]:
    names = {n.lower() for n in fields}
    if "title" in names and names & {"author", "editor"}:
        skipped.append(
            Skipped(entry.key, None, "title and authors would change at once; not applied")
        )
        return []
    edits: list[_Edit] = []
    for raw_name, value in fields.items():
        name = raw_name.lower()
        if not _balanced(value):
            skipped.append(Skipped(entry.key, name, "corrected value has unbalanced braces"))
            continue
        bad = unsafe_characters(value)
        if bad:
            reason = f"corrected value holds control or bidirectional characters ({', '.join(bad)})"
            skipped.append(Skipped(entry.key, name, reason))
            continue
        present = [f for f in entry.fields if f.name == name]
        if not present and name in _ALIASES:
            present = [f for f in entry.fields if f.name == _ALIASES[name]]
        if name == "year" and not present and entry.field("date") is not None:
            skipped.append(
                Skipped(entry.key, name, "the entry gives a date field; edit it by hand")
            )
            continue
        if len(present) > 1:
            skipped.append(Skipped(entry.key, name, "the field is given more than once"))
            continue
        if present:
            f = present[0]
            if f.expanded is not None:
                skipped.append(
                    Skipped(entry.key, name, "the value uses @string macros or concatenation")
                )
                continue
            if text[f.value_span.start : f.value_span.end] != f.value:
                raise FixRefused(f"{entry.path}: parsed positions do not match the file's bytes")
            if f.value == value:
                continue
            edits.append(_replace_edit(text, f, value))
            line = _line_of(text, f.value_span.start)
            changes.append(Change(entry.key, f.name, f.value, value, line))
        else:
            edit = _insert_edit(text, entry, name, value)
            if edit is None:
                skipped.append(Skipped(entry.key, name, "no place to insert a new field"))
                continue
            edits.append(edit)
            line = _line_of(text, edit.start) + edit.text.count("\n") - value.count("\n")
            changes.append(Change(entry.key, name, None, value, line))
    return edits


def plan_fix(
    bib: ParsedBibliography, original: bytes, corrections: Mapping[str, Mapping[str, str]]
) -> FixPlan:
    """Compute the corrected bytes of one bibliography file.

    ``bib`` must be the parse of exactly ``original`` (decoded as UTF-8); ``corrections`` maps
    entry keys to ``{field: value}`` (anchored corrections from the verdicts; keys absent from
    this file are ignored).  Raises :class:`FixRefused` for a file that was not parsed
    completely or whose parse does not match its bytes.
    """
    check_complete(bib)
    bom, text = decode(original, bib.path)
    by_key: dict[str, list[Entry]] = {}
    for entry in bib.entries:
        if text[entry.key_span.start : entry.key_span.end] != entry.key:
            raise FixRefused(f"{bib.path}: parsed positions do not match the file's bytes")
        by_key.setdefault(entry.key.lower(), []).append(entry)
    changes: list[Change] = []
    skipped: list[Skipped] = []
    edits: list[_Edit] = []
    for key, fields in corrections.items():
        found = by_key.get(key.lower())
        if not found or not fields:
            continue
        if len(found) > 1:
            skipped.append(Skipped(key, None, "the key is defined more than once in this file"))
            continue
        edits.extend(_entry_edits(text, found[0], fields, changes, skipped))
    edits.sort(key=lambda e: (e.start, e.end))
    for a, b in itertools.pairwise(edits):
        if b.start < a.end:
            raise FixRefused(f"{bib.path}: overlapping edits; refusing to rewrite it")
    pieces: list[str] = []
    pos = 0
    for e in edits:
        pieces.append(text[pos : e.start])
        pieces.append(e.text)
        pos = e.end
    pieces.append(text[pos:])
    new = (bom + "".join(pieces)).encode("utf-8")
    changes.sort(key=lambda c: (c.line, c.key, c.field))
    return FixPlan(bib.path, original, new, tuple(changes), tuple(skipped))


def corrected_entry(
    text: str, entry: Entry, fields: Mapping[str, str]
) -> tuple[str, tuple[Change, ...], tuple[Skipped, ...]]:
    """The text of one entry with ``fields`` applied as ``--fix`` would write them.

    ``text`` is the whole file's text (``entry``'s spans point into it).  Returns the entry's
    new text, the changes made and the corrections skipped.
    """
    changes: list[Change] = []
    skipped: list[Skipped] = []
    try:
        edits = sorted(_entry_edits(text, entry, fields, changes, skipped), key=lambda e: e.start)
    except FixRefused as exc:
        return text[entry.span.start : entry.span.end], (), (Skipped(entry.key, None, str(exc)),)
    pieces: list[str] = []
    pos = entry.span.start
    for e in edits:
        pieces.append(text[pos : e.start])
        pieces.append(e.text)
        pos = e.end
    pieces.append(text[pos : entry.span.end])
    return "".join(pieces), tuple(changes), tuple(skipped)


def correction_edits(text: str, entry: Entry, fields: Mapping[str, str]) -> list[TextEdit]:
    """The text edits ``--fix`` would make to ``entry`` for ``fields`` (none when unsafe)."""
    changes: list[Change] = []
    skipped: list[Skipped] = []
    try:
        edits = _entry_edits(text, entry, fields, changes, skipped)
    except FixRefused:
        return []
    return [TextEdit(entry.path, Span(e.start, e.end), e.text) for e in edits]


def verify_plan(plan: FixPlan, parse: Callable[[Path, str], ParsedBibliography]) -> None:
    """Re-parse the new text and check that only the planned fields changed.

    Raises :class:`FixRefused` when the new file would not parse completely, loses or gains an
    entry, or differs from the old one in any field that was not planned.
    """
    if not plan.changed:
        return
    before = parse(plan.path, decode(plan.old, plan.path)[1])
    after = parse(plan.path, decode(plan.new, plan.path)[1])
    try:
        check_complete(after)
    except FixRefused:
        raise FixRefused(f"{plan.path}: the corrected file would not parse; not written") from None
    if [e.key for e in before.entries] != [e.key for e in after.entries]:
        raise FixRefused(f"{plan.path}: the corrected file would change the entries; not written")
    planned = {(c.key.lower(), c.field): c.new for c in plan.changes}
    for old_entry, new_entry in zip(before.entries, after.entries, strict=True):
        old_fields = {f.name: f.text for f in old_entry.fields}
        new_fields = {f.name: f.text for f in new_entry.fields}
        for name in old_fields.keys() | new_fields.keys():
            want = planned.get((old_entry.key.lower(), name))
            if want is not None:
                if new_fields.get(name) != want:
                    raise FixRefused(
                        f"{plan.path}: {old_entry.key}.{name} did not come out as planned"
                    )
            elif old_fields.get(name) != new_fields.get(name):
                raise FixRefused(
                    f"{plan.path}: {old_entry.key}.{name} would change unexpectedly; not written"
                )


# ----------------------------------------------------------------------------------------
# Writing (the only I/O)
# ----------------------------------------------------------------------------------------


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # not supported on this platform
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: A temporary file of an interrupted write is removed once it is this old (seconds); a
#: younger one may belong to a write still running.
STALE_TEMP_AGE = 600.0


def _stale_temp_pattern(name: str) -> re.Pattern[str]:
    """Names :func:`_write_temp` gives temporary files for ``name`` (``mkstemp``'s eight
    random characters between the prefix and the suffix)."""
    return re.compile(rf"\.{re.escape(name)}\.[a-z0-9_]{{8}}\.tmp")


def remove_stale_temps(directory: Path, name: str, now: float | None = None) -> list[Path]:
    """Remove what writes of ``name`` that were killed midway left in ``directory``
    (temporary files older than :data:`STALE_TEMP_AGE`); -> the files removed."""
    pattern = _stale_temp_pattern(name)
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        candidates = list(directory.glob(f".{glob.escape(name)}.*.tmp"))
    except OSError:
        return removed
    for path in candidates:
        if not pattern.fullmatch(path.name):
            continue
        try:
            if now - path.lstat().st_mtime > STALE_TEMP_AGE and path.is_file():
                path.unlink()
                removed.append(path)
        except OSError:
            continue  # gone meanwhile, or not ours to remove
    return removed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_CHUNK])
        view = view[written:]


def _write_temp(
    directory: Path, name: str, data: bytes, st: os.stat_result | None
) -> tuple[Path, bool]:
    """A temporary file holding ``data`` with the mode, owner and group of ``st``; -> the
    file, and whether it got that owner and group (only root may give a file away)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    owned = True
    try:
        _write_all(fd, data)
        if st is not None:
            mine = os.fstat(fd)
            if (mine.st_uid, mine.st_gid) != (st.st_uid, st.st_gid):
                try:
                    os.fchown(fd, st.st_uid, st.st_gid)
                except OSError:
                    owned = False
            os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which may clear setgid
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    return Path(tmp), owned


def _write_in_place(target: Path, data: bytes, copy: Path) -> None:
    """Overwrite ``target`` itself (its inode, so hard links and owner stay), once the
    temporary ``copy`` is verified to hold ``data``; the copy is removed afterwards."""
    if copy.read_bytes() != data:
        raise FixRefused(f"{target}: the temporary copy does not hold the new text; not written")
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        _write_all(fd, data)
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    finally:
        os.close(fd)
    copy.unlink()


def backup_path_for(path: Path, original: bytes) -> tuple[Path, bool]:
    """Where the backup of ``path`` goes, and whether an identical backup already exists."""
    candidate = path.with_name(path.name + BACKUP_SUFFIX)
    n = 0
    while candidate.exists():
        try:
            if candidate.read_bytes() == original:
                return candidate, True
        except OSError:
            pass
        n += 1
        candidate = path.with_name(f"{path.name}{BACKUP_SUFFIX}.{n}")
    return candidate, False


def write_atomically(path: Path, data: bytes, *, expected: bytes | None = None) -> Path | None:
    """Replace ``path`` by ``data`` atomically, keeping a backup of the old content.

    ``expected`` is the content the caller read; if the file changed since, nothing is written
    (:class:`FixRefused`).  Returns the backup path (None when ``path`` did not exist).  At every
    instant the file holds either the old or the new bytes.
    """
    target = path.resolve()  # write through a symlink, never replace the link itself
    directory = target.parent
    remove_stale_temps(directory, target.name)
    try:
        st = target.stat()
        old = target.read_bytes()
    except FileNotFoundError:
        st, old = None, None
    if expected is not None and old != expected:
        raise FixRefused(f"{path}: the file changed on disk since it was read; not written")
    backup: Path | None = None
    if old is not None:
        backup, exists = backup_path_for(target, old)
        if not exists:
            tmp, _ = _write_temp(directory, target.name, old, st)
            try:
                os.replace(tmp, backup)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
    tmp, owned = _write_temp(directory, target.name, data, st)
    try:
        if expected is not None and target.read_bytes() != expected:
            raise FixRefused(f"{path}: the file changed on disk while fixing; not written")
        if st is not None and (st.st_nlink > 1 or not owned):
            # a rename would break the hard links or give the file to this user
            _write_in_place(target, data, tmp)
        else:
            os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(directory)
    return backup


def apply_plan(plan: FixPlan) -> Path | None:
    """Write a plan's new bytes (if anything changed); returns the backup path."""
    if not plan.changed:
        return None
    return write_atomically(plan.path, plan.new, expected=plan.old)


def plan_file(
    path: Path,
    corrections: Mapping[str, Mapping[str, str]],
    parse: Callable[[Path, str], ParsedBibliography] | None = None,
) -> FixPlan:
    """Read ``path``, parse it with the BibTeX parser and plan the corrections (verified)."""
    if parse is None:
        from citewarden.parsing.bibtex import parse_bibtex

        parse = parse_bibtex
    original = path.read_bytes()
    _, text = decode(original, path)
    plan = plan_fix(parse(path, text), original, corrections)
    verify_plan(plan, parse)
    return plan


# ----------------------------------------------------------------------------------------
# The --fix / --diff step of `citewarden check`
# ----------------------------------------------------------------------------------------


def corrections_by_file(
    entries: Iterable[Entry], verdicts: Iterable[Verdict]
) -> dict[Path, dict[str, dict[str, str]]]:
    """Anchored corrections grouped by the file of the entry they belong to.

    A key defined in several files is corrected in the first one only (the entry that was
    verified).
    """
    first: dict[str, Entry] = {}
    for entry in entries:
        first.setdefault(entry.key, entry)
    out: dict[Path, dict[str, dict[str, str]]] = {}
    for verdict in verdicts:
        target = first.get(verdict.key)
        if target is None or not verdict.corrections:
            continue
        out.setdefault(target.path, {})[target.key] = dict(verdict.corrections)
    return out


def run_fix(
    entries: Iterable[Entry],
    verdicts: Iterable[Verdict],
    *,
    diff: bool,
    out: TextIO,
    err: TextIO,
    display: Callable[[Path], str] = str,
    parse: Callable[[Path, str], ParsedBibliography] | None = None,
) -> int:
    """Apply (or, with ``diff``, print) the anchored corrections; returns the number of files
    that could not be fixed (refused or failed to write)."""
    failures = 0
    changed = 0

    def tell(line: str) -> None:  # keys and paths come from the files: shown escaped
        err.write(visible_lines(line))

    def show(text: str) -> None:
        out.write(visible_lines(text))

    for path, corrections in sorted(corrections_by_file(entries, verdicts).items()):
        name = display(path)
        if path.suffix.lower() not in (".bib", ".bibtex"):
            tell(f"citewarden: {name}: only BibTeX files are fixed; left unchanged\n")
            continue
        try:
            plan = plan_file(path, corrections, parse)
        except FixRefused as exc:
            tell(f"citewarden: not fixed: {exc}\n")
            failures += 1
            continue
        except OSError as exc:
            tell(f"citewarden: not fixed: cannot read {name}: {exc.strerror}\n")
            failures += 1
            continue
        for s in plan.skipped:
            where = f"{s.key}.{s.field}" if s.field else s.key
            tell(f"citewarden: {name}: {where} not corrected: {s.reason}\n")
        if not plan.changed:
            continue
        changed += 1
        entries_changed = len({c.key for c in plan.changes})
        summary = (
            f"{len(plan.changes)} field{'s' if len(plan.changes) != 1 else ''} in "
            f"{entries_changed} entr{'ies' if entries_changed != 1 else 'y'}"
        )
        if diff:
            show(
                plan.diff()
                .replace(f"a/{plan.path.as_posix()}", f"a/{name}")
                .replace(f"b/{plan.path.as_posix()}", f"b/{name}")
            )
            tell(f"citewarden: {name}: would correct {summary}\n")
            continue
        try:
            backup = apply_plan(plan)
        except FixRefused as exc:
            tell(f"citewarden: not fixed: {exc}\n")
            failures += 1
            continue
        except OSError as exc:
            tell(f"citewarden: not fixed: cannot write {name}: {exc.strerror}\n")
            failures += 1
            continue
        kept = f" (original kept as {display(backup)})" if backup is not None else ""
        tell(f"citewarden: {name}: corrected {summary}{kept}\n")
    if not changed and not failures:
        tell("citewarden: nothing to fix\n")
    out.flush()
    return failures
