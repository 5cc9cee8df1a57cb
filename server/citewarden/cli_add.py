"""``citewarden add ID... --bib FILE``: add entries for DOIs, arXiv ids, ISBNs, PMIDs or
titles to a bibliography.

Each identifier is looked up through the verification sources (cache, rate limits,
politeness; ``--offline`` answers from the cache and the snapshot only).  The entry is
built from the registry's record, under ``--key`` or a new Google Scholar style key, in the
style of the file (BibTeX, CSL-JSON or CSL-YAML by its suffix), and appended.  Nothing is
written with ``--dry-run`` (the entries are printed instead).  A work the file already
holds (a shared DOI, arXiv id, PMID or book ISBN: :mod:`citewarden.addref.present`), or one
named twice in a run, is not added again: it is reported as already present under its key.
See :data:`ADD_EXIT_STATUS`.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from citewarden.addref.insert import (
    InsertError,
    apply,
    clashing_key,
    file_key_refusal,
    format_refusal,
    key_refusal,
    make_key,
    plan_insertion,
)
from citewarden.addref.lookup import Ambiguous, describe, identifier_lookup
from citewarden.addref.present import Present, record_ids
from citewarden.files import read_regular, temporary_files_removed_on_signals
from citewarden.fix.plan import FixRefused, check_complete
from citewarden.fix.write import ABSENT, refuse_unwritable, write_atomically, write_target
from citewarden.model import BibFormat, Entry, ParsedBibliography
from citewarden.model.findings import MAX_QUOTED
from citewarden.parsing.dispatch import parse_file
from citewarden.project import normalize_path
from citewarden.safe_text import visible, visible_lines
from citewarden.settings import Settings, find_config_dir, load_settings
from citewarden.verify.records import Outcome, WorkRecord

EXIT_ADDED, EXIT_MISSING, EXIT_USAGE = 0, 1, 2


def _existing(path: Path, text: str, settings: Settings) -> Sequence[Entry]:
    """The entries of the bibliography ``text``.  Raises :class:`FixRefused` for a BibTeX
    file not read completely (:func:`~citewarden.fix.plan.check_complete`): BibTeX would
    read an entry added at its end as part of one left open (``title = {x`` with no
    closing brace), and lose it."""
    parsed = parse_file(path, text, settings)
    if isinstance(parsed, ParsedBibliography) and parsed.format is BibFormat.BIBTEX:
        check_complete(parsed)
    entries: Sequence[Entry] = getattr(parsed, "entries", ())
    return entries


def _read(path: Path, limit: int) -> bytes | None:
    """The bibliography's bytes (None when it does not exist yet), through the one bounded,
    never-blocking reader of workspace files, at most ``limit`` bytes (the project's
    ``max_file_mb``, as ``check`` reads it)."""
    if not path.exists():
        return None
    return read_regular(path, limit)


async def _look_up(
    ids: Sequence[str], settings: Settings, notices: list[str]
) -> list[tuple[str, WorkRecord | Ambiguous | str]]:
    """What each of ``ids`` names; what the verifier says of its cache (a cache it cannot
    use, one rebuilt) is added to ``notices``."""
    from citewarden.verify.engine import build_verifier

    verifier = build_verifier(settings, offline=settings.verify.offline)
    notices.extend(verifier.notices)
    try:
        sources = [verifier.sources[n] for n in verifier.order]
        results = await asyncio.gather(*(identifier_lookup(i, sources) for i in ids))
    finally:
        await verifier.aclose()
    out: list[tuple[str, WorkRecord | Ambiguous | str]] = []
    for ident, found in zip(ids, results, strict=True):
        if isinstance(found, Ambiguous):
            out.append((ident, found))
        elif found.outcome is Outcome.FOUND:
            out.append((ident, found.records[0]))
        elif found.outcome is Outcome.NOT_FOUND:
            out.append((ident, f"not found ({found.source} answered)"))
        else:
            reason = found.reason or "failed"
            if not reason.startswith(f"{found.source}: "):  # several sources' name their own
                reason = f"{found.source}: {reason}"
            out.append((ident, f"could not be looked up ({reason})"))
    return out


def _shown(ident: str) -> str:
    """An identifier as a message names it: escaped, and by its head and length when longer
    than :data:`~citewarden.model.findings.MAX_QUOTED` characters (a pasted page)."""
    if len(ident) <= MAX_QUOTED:
        return visible(ident)
    return f"{visible(ident[:MAX_QUOTED])}... ({len(ident):,} characters)"


def _cannot(err: TextIO, path: Path, exc: Exception, *, writing: bool = False) -> int:
    """Say why the bibliography ``path`` cannot be written (a refusal of the writer, or an
    error of the system while ``writing``) or read (bytes that are not UTF-8, an error of
    the system); -> the exit status of a file error."""
    if isinstance(exc, FixRefused):
        doing, reason = "write", exc.reason.removesuffix("; not written")
    elif isinstance(exc, UnicodeDecodeError):
        doing, reason = "read", f"not valid UTF-8 (byte {exc.start})"
    else:
        doing = "write" if writing else "read"
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc)
    then = "; nothing added" if writing else ""
    print(f"citewarden add: cannot {doing} {visible(str(path))}: {visible(reason)}{then}", file=err)
    return EXIT_USAGE


def _names_folder(raw: str) -> bool:
    """Whether the path ``raw`` names a folder by how it is written: ending in a slash, or
    in ``.`` or ``..`` as its last part (a Path reads 'refs.bib/.' as 'refs.bib')."""
    return raw.endswith(("/", os.sep)) or raw.replace(os.sep, "/").rsplit("/", 1)[-1] in (".", "..")


def run_add(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """The ``add`` command: what it says goes to ``out`` and ``err`` (standard output and
    error by default, as they are when it runs).  With standard output closed (``>&-``),
    "added" and "already present" go to standard error, and ``--dry-run``, whose entries
    are its only result, is refused before any look-up."""
    err = err if err is not None else sys.stderr
    if out is None and sys.stdout is None and args.dry_run:
        print("citewarden add: standard output is closed; --dry-run shows nothing", file=err)
        return EXIT_USAGE
    out = out if out is not None else sys.stdout or err
    path = Path(args.bib)
    keys = list(args.key or [])
    if len(keys) > len(args.ids):
        print("citewarden add: more --key options than identifiers", file=err)
        return EXIT_USAGE
    if any(not ident.strip() for ident in args.ids):
        print("citewarden add: an identifier is empty", file=err)
        return EXIT_USAGE
    # the settings of the bibliography's project, wherever the command runs
    settings, problems = load_settings(find_config_dir(normalize_path(path).parent))
    for problem in problems:
        print(f"citewarden add: warning: {visible(str(problem))}", file=err)
    if args.offline:
        verify = dataclasses.replace(settings.verify, offline=True)
        settings = dataclasses.replace(settings, verify=verify)
    # what makes the file one no entry can be added to is said before any look-up
    if not args.bib:  # (an unset variable: it was refused as a file named '')
        print("citewarden add: --bib names no file (an empty path)", file=err)
        return EXIT_USAGE
    if _names_folder(args.bib):  # (a Path drops the slash: 'refs.bib/' made a file)
        print(f"citewarden add: --bib {visible(args.bib)} names a folder; give a file", file=err)
        return EXIT_USAGE
    if (refusal := format_refusal(path)) is not None:
        print(f"citewarden add: {visible(refusal)}", file=err)
        return EXIT_USAGE
    try:
        target = write_target(path)
        if target.exists():  # a file it may not write is said before the look-up too
            refuse_unwritable(path, target, target.stat())
        original = _read(path, settings.max_file_bytes)
        text = "" if original is None else original.decode("utf-8")
        entries = _existing(path, text, settings) if text else ()
    except (FixRefused, UnicodeDecodeError, OSError) as exc:
        return _cannot(err, path, exc)
    taken = {e.key for e in entries}
    present = Present(entries)
    for n, key in enumerate(keys):
        if (refusal := key_refusal(key)) is not None:  # said before any look-up
            print(f"citewarden add: --key: {visible(refusal)}", file=err)
            return EXIT_USAGE
        there = clashing_key(key, taken)
        if there is not None:
            also = (
                "" if there == key else f" as '{visible(there)}' (keys are compared ignoring case)"
            )
            print(
                f"citewarden add: {visible(str(path))}: the key '{visible(key)}' is already"
                f" there{also}",
                file=err,
            )
            return EXIT_USAGE
        if (refusal := file_key_refusal(path, key)) is not None:
            print(f"citewarden add: {visible(str(path))}: {visible(refusal)}", file=err)
            return EXIT_USAGE
        if clashing_key(key, keys[:n]) is not None:
            print(f"citewarden add: the key '{visible(key)}' is given twice", file=err)
            return EXIT_USAGE
    notices: list[str] = []
    found = asyncio.run(_look_up(args.ids, settings, notices))
    for notice in notices:  # as check says them (it said nothing of a cache it could not use)
        print(f"citewarden add: warning: {visible(notice)}", file=err)
    status = EXIT_ADDED
    new = text
    # what standard output says is said once the file holds it: "added" only when written
    said: list[str] = []
    say = said.append
    for n, (ident, result) in enumerate(found):
        if isinstance(result, str):
            print(f"citewarden add: {_shown(ident)}: {visible(result)}", file=err)
            status = EXIT_MISSING
            continue
        if isinstance(result, Ambiguous) and result.nameable:  # cleaned; its line feeds its own
            print(f"citewarden add: {_shown(ident)}: {visible_lines(result.message())}", file=err)
            status = EXIT_MISSING
            continue
        if isinstance(result, Ambiguous):  # no work to choose by an identifier: the best hit
            print(
                f"citewarden add: {_shown(ident)}: warning: {visible(result.warning())}", file=err
            )
            result = result.records[0]
        if (there := present.key_of(result)) is not None:
            say(f"{_shown(ident)}: already present as {visible(there)}")
            continue
        key = keys[n] if n < len(keys) else make_key(result, taken)
        taken.add(key)
        present.add(key, record_ids(result))
        try:
            change = plan_insertion(path, new, result, key)
        except InsertError as exc:
            print(f"citewarden add: {visible(str(exc))}; nothing added", file=err)
            return EXIT_USAGE
        new = apply(new, change)
        if args.dry_run:
            say(visible_lines(change.text.strip("\n")))
        say(f"added {visible(key)}: {visible(describe(result))} [{result.source}]")
    if not args.dry_run and new != text:
        # through a symbolic link to the file, never replacing it; a new temporary file; a
        # file that did not exist is created, never over one made during the look-up
        # (a signal removes the temporary file first, and waits for an in-place write's end)
        expected = ABSENT if original is None else original
        try:
            with temporary_files_removed_on_signals():
                write_atomically(path, new.encode("utf-8"), expected=expected, backup=False)
        except (FixRefused, OSError) as exc:
            return _cannot(err, path, exc, writing=True)
    return _said(said, out, err, "" if args.dry_run or new == text else str(path)) or status


def _said(lines: Sequence[str], out: TextIO, err: TextIO, written: str) -> int | None:
    """Write ``lines`` to ``out``; None, or :data:`EXIT_USAGE` when ``out`` cannot take them
    (a full disk: ``> /dev/full``), said on ``err`` with the file ``written`` if one was, where
    the run ended in a traceback with the exit status of a work not found."""
    try:
        for line in lines:
            print(line, file=out)
        out.flush()
    except BrokenPipeError:  # the reader went away (| head): the caller's exit status
        raise
    except OSError as exc:
        then = f"; {visible(written)} was written" if written else ""
        reason = visible(exc.strerror or type(exc).__name__)
        print(f"citewarden add: cannot write to standard output: {reason}{then}", file=err)
        return EXIT_USAGE
    return None
