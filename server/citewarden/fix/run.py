"""The --fix / --diff step of ``citewarden check``: plan each file's corrections, then write
or print them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TextIO

from citewarden.fix.plan import (
    Change,
    Edit,
    EditsOf,
    FixPlan,
    FixRefused,
    Skipped,
    decode,
    plan_fix,
    verify_plan,
)
from citewarden.fix.write import apply_plan
from citewarden.model import Entry, ParsedBibliography, Verdict
from citewarden.safe_text import visible, visible_lines

#: Suffixes of the bibliographies ``--fix`` rewrites: BibTeX, and CSL-JSON / CSL-YAML.
BIBTEX_SUFFIXES = (".bib", ".bibtex")
CSL_SUFFIXES = (".json", ".yaml", ".yml")


def plan_file(
    path: Path,
    corrections: Mapping[str, Mapping[str, str]],
    parse: Callable[[Path, str], ParsedBibliography] | None = None,
    plain: Callable[[str], str] | None = None,
) -> FixPlan:
    """Read ``path``, parse it (BibTeX, or CSL by its suffix when ``plain`` decodes the
    corrections' BibTeX text) and plan the corrections (verified)."""
    edits_of: EditsOf | None = None
    if plain is not None and path.suffix.lower() in CSL_SUFFIXES:
        from citewarden.fix.csl import entry_edits
        from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml

        parse = parse_csl_json if path.suffix.lower() == ".json" else parse_csl_yaml

        def edits_of(
            text: str,
            entry: Entry,
            fields: Mapping[str, str],
            changes: list[Change],
            skipped: list[Skipped],
        ) -> list[Edit]:
            return entry_edits(text, entry, fields, plain, changes, skipped)

    if parse is None:
        from citewarden.parsing.bibtex import parse_bibtex

        parse = parse_bibtex
    original = path.read_bytes()
    _, text = decode(original, path)
    plan = plan_fix(parse(path, text), original, corrections, edits_of)
    verify_plan(plan, parse)
    return plan


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
    plain: Callable[[str], str] | None = None,
) -> int:
    """Apply (or, with ``diff``, print) the anchored corrections; returns the number of files
    that could not be fixed (refused or failed to write).  CSL-JSON and CSL-YAML files are
    corrected when ``plain`` turns a correction's BibTeX text into plain text."""
    failures = 0
    changed = 0

    def tell(line: str) -> None:  # keys and paths come from the files: shown escaped
        err.write(visible(line.removesuffix("\n")) + "\n")

    def show(text: str) -> None:
        out.write(visible_lines(text))

    for path, corrections in sorted(corrections_by_file(entries, verdicts).items()):
        name = visible(display(path))  # a name's line breaks too: one line each
        fixed = BIBTEX_SUFFIXES + (CSL_SUFFIXES if plain is not None else ())
        if path.suffix.lower() not in fixed:
            what = "BibTeX, CSL-JSON and CSL-YAML files" if plain else "BibTeX files"
            tell(f"citewarden: {name}: only {what} are fixed; left unchanged\n")
            continue
        try:
            plan = plan_file(path, corrections, parse, plain)
        except FixRefused as exc:
            tell(f"citewarden: not fixed: {name}: {exc.reason}\n")
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
            show(_named(plan.diff(), plan.path, name))
            tell(f"citewarden: {name}: would correct {summary}\n")
            continue
        try:
            backup = apply_plan(plan)
        except FixRefused as exc:
            tell(f"citewarden: not fixed: {name}: {exc.reason}\n")
            failures += 1
            continue
        except OSError as exc:
            tell(f"citewarden: not fixed: cannot write {name}: {exc.strerror}\n")
            failures += 1
            continue
        kept = f" (original kept as {visible(display(backup))})" if backup is not None else ""
        tell(f"citewarden: {name}: corrected {summary}{kept}\n")
    if not changed and not failures:
        tell("citewarden: nothing to fix\n")
    out.flush()
    return failures


def _named(diff: str, path: Path, name: str) -> str:
    """``diff`` with its header naming the file ``name`` (shown escaped, on one line)."""
    header = f"--- a/{path.as_posix()}\n+++ b/{path.as_posix()}\n"
    return f"--- a/{name}\n+++ b/{name}\n" + diff.removeprefix(header)
