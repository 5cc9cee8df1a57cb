"""The --fix / --diff step of ``citewarden check``: plan each file's corrections, then write
or print them.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TextIO

from citewarden.files import read_regular
from citewarden.fix.csl import Decoding, csl_field_refusal
from citewarden.fix.plan import (
    EditsOf,
    FixPlan,
    FixRefused,
    Skipped,
    check_complete,
    compared_key,
    decode,
    field_refusal,
    folds_keys,
    plan_fix,
    present_fields,
    refused_together,
    unsafe_reason,
    verify_plan,
    written_text,
    written_title,
    written_value,
)
from citewarden.fix.write import NO_LIMIT, apply_plan
from citewarden.model import BibFormat, Entry, ParsedBibliography, Verdict
from citewarden.safe_text import (
    c_quoted,
    hidden_characters,
    unsafe_characters,
    visible,
    visible_lines,
)

#: Suffixes of the bibliographies ``--fix`` rewrites: BibTeX, and CSL-JSON / CSL-YAML.
BIBTEX_SUFFIXES = (".bib", ".bibtex")
CSL_SUFFIXES = (".json", ".yaml", ".yml")


def front_matter_references(path: Path, text: str) -> ParsedBibliography:
    """The ``references:`` items a Markdown document or a Quarto metadata file defines
    (the ones pandoc reads), as a bibliography whose spans point into ``text``."""
    from citewarden.parsing.markdown import inline_references

    return ParsedBibliography(path, BibFormat.CSL_YAML, inline_references(path, text))


def csl_reader(path: Path) -> Callable[[Path, str], ParsedBibliography] | None:
    """How ``path``'s CSL items are read, when it holds some ``--fix`` rewrites: a CSL-JSON
    or CSL-YAML file, or the ``references:`` of a document or metadata file."""
    from citewarden.parsing import is_markdown, is_metadata

    if is_markdown(path) or is_metadata(path):
        return front_matter_references
    suffix = path.suffix.lower()
    if suffix not in CSL_SUFFIXES:
        return None
    from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml

    return parse_csl_json if suffix == ".json" else parse_csl_yaml


def plan_file(
    path: Path,
    corrections: Mapping[str, Mapping[str, str]],
    parse: Callable[[Path, str], ParsedBibliography] | None = None,
    decoding: Decoding | None = None,
    checked: Mapping[str, Entry] | None = None,
) -> FixPlan:
    """Read ``path``, parse it (BibTeX, or its CSL items (:func:`csl_reader`) when
    ``decoding`` reads the corrections' BibTeX text) and plan the corrections (verified).
    ``checked``: the entries as the check read them, by key; the corrections of one that
    reads otherwise now (edited since) are skipped, as they were made for other values."""
    edits_of: EditsOf | None = None
    csl = csl_reader(path) if decoding is not None else None
    if decoding is not None and csl is not None:
        from citewarden.fix.csl import entry_edits

        parse = csl
        edits_of = functools.partial(entry_edits, decoding=decoding)
    if parse is None:
        from citewarden.parsing.bibtex import parse_bibtex

        parse = parse_bibtex
    original = read_regular(path, NO_LIMIT)  # (a FIFO put in its place is never opened)
    _, text = decode(original, path)
    bib = parse(path, text)
    stale: tuple[Skipped, ...] = ()
    if checked is not None:
        corrections, stale = _still_as_checked(bib, corrections, checked)
    plan = plan_fix(bib, original, corrections, edits_of)
    verify_plan(plan, parse)
    return dataclasses.replace(plan, skipped=stale + plan.skipped) if stale else plan


#: Why the corrections of an entry edited since the check are not applied.
EDITED = "the entry changed on disk since it was checked (check it again)"


def _still_as_checked(
    bib: ParsedBibliography,
    corrections: Mapping[str, Mapping[str, str]],
    checked: Mapping[str, Entry],
) -> tuple[dict[str, Mapping[str, str]], tuple[Skipped, ...]]:
    """The ``corrections`` of the entries of ``bib`` that read as the check read them
    (``checked``), and the refusals of the others."""
    fold = folds_keys(bib)
    now: dict[str, Entry] = {}
    for read in bib.entries:
        now.setdefault(compared_key(read.key, fold), read)
    kept: dict[str, Mapping[str, str]] = {}
    stale: list[Skipped] = []
    for key, fields in corrections.items():
        entry, before = now.get(compared_key(key, fold)), checked.get(key)
        if entry is not None and before is not None and _reading(entry) != _reading(before):
            stale.append(Skipped(key, None, EDITED))
        else:
            kept[key] = fields
    return kept, tuple(stale)


def _reading(entry: Entry) -> tuple[str, tuple[tuple[str, str], ...]]:
    """What an entry says: its type and its fields, in order."""
    return entry.entry_type, tuple((f.name, f.text) for f in entry.fields)


def written_corrections(entry: Entry, corrections: Mapping[str, str]) -> dict[str, str]:
    """The corrections ``--fix`` writes into ``entry`` as far as the entry and the values
    decide (what the reports show): none when the title and the authors would change at
    once, none whose value holds control, bidirectional or hidden characters
    (:func:`~.plan.unsafe_reason`; the harmless invisible ones dropped), for a BibTeX entry
    none :func:`~.plan.field_refusal` refuses nor any its field already holds (the rules
    of :mod:`.plan`), for a CSL item none :func:`~.csl.csl_field_refusal` refuses; a
    title protected as the entry protects its own (:func:`~.plan.written_title`)."""
    if refused_together(entry, corrections, []):
        return {}
    out: dict[str, str] = {}
    for name, value in corrections.items():
        if unsafe_reason(value) is not None:
            continue
        value = written_text(value)
        if name.lower() == "title":
            value = written_title(entry, value)
        if entry.csl_type is None and not _bibtex_writes(entry, name.lower(), value):
            continue
        if entry.csl_type is not None and csl_field_refusal(entry, name.lower()) is not None:
            continue
        out[_written_name(entry, name)] = value
    return out


def _written_name(entry: Entry, name: str) -> str:
    """The field a correction of ``name`` writes: for a BibTeX entry that gives only the
    biblatex spelling (journaltitle for journal), that one (:func:`~.plan.present_fields`)."""
    if entry.csl_type is not None:
        return name
    present = present_fields(entry, name.lower())
    return present[0].name if present else name


def _bibtex_writes(entry: Entry, name: str, value: str) -> bool:
    """Whether ``--fix`` changes the BibTeX ``entry``'s field ``name`` to ``value``."""
    if field_refusal(entry, name, value) is not None:
        return False
    present = present_fields(entry, name)
    return not present or present[0].value != written_value(value)


def file_refusal(bib: ParsedBibliography) -> str | None:
    """Why ``--fix`` writes nothing into the bibliography ``bib`` whatever its corrections
    (None when it may): a file of a kind it does not rewrite, or one not read completely
    (:func:`~.plan.check_complete`).  The reports offer no correction of its entries."""
    if bib.path.suffix.lower() not in BIBTEX_SUFFIXES and csl_reader(bib.path) is None:
        return "only BibTeX and CSL files are fixed"
    try:
        check_complete(bib)
    except FixRefused as exc:
        return exc.reason
    return None


def corrections_by_file(
    verified: Iterable[tuple[Entry, Verdict]],
) -> dict[Path, dict[str, dict[str, str]]]:
    """Anchored corrections grouped by the file of the entry they belong to: each entry's
    own verdict's (a key defined in several files is corrected in each as its entry's
    verdict says)."""
    out: dict[Path, dict[str, dict[str, str]]] = {}
    for entry, verdict in verified:
        if verdict.corrections:
            out.setdefault(entry.path, {})[entry.key] = dict(verdict.corrections)
    return out


def run_fix(
    verified: Iterable[tuple[Entry, Verdict]],
    *,
    diff: bool,
    out: TextIO,
    err: TextIO,
    display: Callable[[Path], str] = str,
    parse: Callable[[Path, str], ParsedBibliography] | None = None,
    decoding: Decoding | None = None,
    terminal: bool = False,
) -> int:
    """Apply (or, with ``diff``, print) the anchored corrections of each verified entry
    (paired with its verdict); returns the number of files
    that could not be fixed (refused or failed to write).  CSL items (files, and the
    ``references:`` of documents) are corrected when ``decoding`` reads a correction's
    BibTeX text.  The diff holds the files' own characters, so that patch(1) applies it;
    when ``out`` is a ``terminal``, the controls and the characters drawn as nothing among
    them are shown as escapes (:func:`~citewarden.safe_text.visible_lines`) instead, and a
    line on ``err`` says so."""
    failures = 0
    changed = 0

    def tell(line: str) -> None:  # keys and paths come from the files: shown escaped
        err.write(visible(line.removesuffix("\n")) + "\n")

    def show(diff: str, name: str) -> None:
        text = visible_lines(diff, lone_cr=True) if terminal else diff
        if text != diff:  # (a file's lines end as they do: a lone CR is no escape)
            shown = ", ".join(_escaped(diff))
            tell(
                f"citewarden: {name}: the diff shows {shown} as escapes on the terminal, "
                "so it does not apply as shown; redirected (--diff > fix.patch) it holds "
                "the file's own characters\n"
            )
        binary = getattr(out, "buffer", None)
        if binary is None:
            out.write(text)
            return
        # UTF-8 bytes, as the files it changes are, whatever the output's encoding: a
        # character a cp1252 pipe lacks written as an escape made a diff patch applies wrongly
        out.flush()
        binary.write(text.encode("utf-8", "surrogateescape"))
        binary.flush()

    verified = list(verified)
    checked: dict[Path, dict[str, Entry]] = {}
    for entry, _ in verified:
        checked.setdefault(entry.path, {}).setdefault(entry.key, entry)
    done: dict[str, str] = {}  # each file once, under the first of its names (links)
    for path, corrections in sorted(corrections_by_file(verified).items()):
        name = visible(display(path))  # a name's line breaks too: one line each
        real = os.path.realpath(path)
        if real in done:
            tell(f"citewarden: {name}: the same file as {done[real]} (see there)\n")
            continue
        done[real] = name
        fixed = path.suffix.lower() in BIBTEX_SUFFIXES
        if not fixed and (decoding is None or csl_reader(path) is None):
            what = "BibTeX and CSL files and references: items" if decoding else "BibTeX files"
            tell(f"citewarden: {name}: only {what} are fixed; left unchanged\n")
            continue
        try:
            plan = plan_file(path, corrections, parse, decoding, checked.get(path, {}))
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
            show(_named(plan.diff(), plan.path, display(path)), name)
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
    """``diff`` with its header naming the file ``name``: between double quotes with C
    escapes when it holds a tab, a line break, a quote, a backslash or a character shown
    escaped (:func:`~citewarden.safe_text.c_quoted`, as GNU diff and git write it, so the
    header is one line that patch(1) reads back as that name, and no file named with the
    escape's own characters reads the same); else as it is, a name holding a space ending
    in a tab, as ``diff -u`` ends it (before the date): patch(1) reads a name up to the
    first blank unless a tab ends the line's name."""
    header = f"--- a/{path.as_posix()}\n+++ b/{path.as_posix()}\n"
    old, new = c_quoted(f"a/{name}"), c_quoted(f"b/{name}")
    if old is not None and new is not None:
        return f"--- {old}\n+++ {new}\n" + diff.removeprefix(header)
    end = "\t" if " " in name else ""
    return f"--- a/{name}{end}\n+++ b/{name}{end}\n" + diff.removeprefix(header)


def _escaped(diff: str) -> list[str]:
    """The distinct characters of ``diff`` a terminal is shown as escapes, as those escapes
    (a lone CR, a line's end in a diff, is not among them)."""
    found = {*unsafe_characters(diff), *hidden_characters(diff)} - {"\\x0d"}
    return sorted(found)
