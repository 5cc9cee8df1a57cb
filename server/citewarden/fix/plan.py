"""Planning a fix (pure): the edits that write anchored corrections into a .bib's bytes.

:func:`plan_fix` computes the new bytes and :func:`verify_plan` re-parses them; nothing here
touches the disk.
"""

from __future__ import annotations

import difflib
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import BibFormat, Code, Entry, Field, ParsedBibliography
from citewarden.parsing.latex_args import group_end, wholly_braced
from citewarden.parsing.latex_encode import braces_balanced
from citewarden.safe_text import hidden_characters, unsafe_characters, without_unsafe
from citewarden.text import LineIndex, count_line_breaks, line_ending

#: biblatex spells some fields differently; a correction for the left name edits the right one
#: when only that one is present.
_ALIASES: Mapping[str, str] = {"journal": "journaltitle", "address": "location"}


class FixRefused(Exception):
    """The file ``path`` must not be rewritten, for ``reason`` (incomplete parse, not UTF-8,
    changed on disk ...); the caller names the file as its user knows it."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


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
    """Lines split on LF only, each keeping its ending (a CR stays part of its line): as
    diff(1) and patch(1) read a file, so that patch applies the diff of a CR-only file."""
    return re.findall(r"[^\n]*\n|[^\n]+", text)


@dataclass(frozen=True, slots=True)
class Edit:
    """One edit of a file's text: ``text`` replaces ``[start, end)``."""

    start: int
    end: int
    text: str


def decode(original: bytes, path: Path) -> tuple[str, str]:
    """``(bom, text)``: a leading UTF-8 byte-order mark (kept as is, '' if none) and the text
    the parser sees (without it, as the project's reader decodes files).  Only valid UTF-8
    files are rewritten, so their bytes round-trip exactly."""
    try:
        text = original.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FixRefused(
            path, f"not valid UTF-8 (byte {exc.start}); refusing to rewrite it"
        ) from None
    if "\x00" in text:
        raise FixRefused(path, "contains NUL bytes; refusing to rewrite it")
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
            bib.path,
            f"the file was not parsed completely{where}; "
            "refusing to rewrite it — fix the syntax first",
        )


@functools.lru_cache(maxsize=2)
def _line_index(text: str) -> LineIndex:
    """The line starts of ``text``, found once for all the changes planned in it."""
    return LineIndex(text)


def _line_of(text: str, offset: int) -> int:
    """The 1-based line holding ``offset`` in ``text``."""
    return _line_index(text).line_of(offset) + 1


def _protected_words(value: str) -> list[str]:
    """The top-level brace groups of a title that protect capitals (``{R}``, ``{RNeXML}``),
    not accents or commands (``{\\"o}``), each once, in the order written."""
    out: dict[str, None] = {}
    i = value.find("{")
    while i >= 0:
        close = group_end(value, i)
        if close < 0:
            break
        inner = value[i + 1 : close]
        if inner and inner[0] != "\\" and "{" not in inner and any(c.isupper() for c in inner):
            out.setdefault(inner)
        i = value.find("{", close + 1)
    return list(out)


def styled_title(written: str, corrected: str) -> str:
    """``corrected`` (a title as BibTeX text) protected as the entry protects the title it
    replaces: wholly braced when ``written`` is (``{{...}}``), and each word ``written``
    braces (``{R}``) braced in it too, so that a style lowercasing titles prints it as
    before.  Every braced word counts, however many the entry braces, in one pass over
    ``corrected`` (:func:`_brace_at_top`)."""
    if wholly_braced(written):  # (a final backslash would escape the brace closing it)
        return corrected if wholly_braced(corrected) else "{" + written_value(corrected) + "}"
    return _brace_at_top(corrected, _protected_words(written))


def written_title(entry: Entry, corrected: str) -> str:
    """The title ``--fix`` writes into the BibTeX ``entry`` for the correction ``corrected``:
    protected as the entry's own title (:func:`styled_title`) when it gives one plain title
    field; as corrected otherwise (a CSL item, a title from @string macros)."""
    if entry.csl_type is not None:
        return corrected
    present = [f for f in entry.fields if f.name == "title"]
    if len(present) != 1 or present[0].expanded is not None:
        return corrected
    return styled_title(present[0].value, corrected)


def _same_word(found: str, words: str) -> bool:
    """Whether ``found`` in a record's title is clearly the word the entry braced as
    ``words``: spelt the same, or in other capitals when it is no ordinary lower-case word
    (``Bert`` for ``{BERT}``, but not "us" for ``{US}`` nor "it" for ``{IT}``); a single
    letter only as written (``{A}`` is not every ``a``)."""
    if found == words:
        return True
    return len(words) > 1 and not found.islower()


def _brace_at_top(text: str, words: list[str]) -> str:
    """``text`` with each whole-word occurrence of one of ``words`` outside every brace
    group braced, in the spelling of that word, where it is the same word
    (:func:`_same_word`): a word of several letters found in any case, the first of
    ``words`` spelt so, a single letter only as written; the longest word at a place
    first.  One pass: each start of a word is tried at the lengths of ``words``, a length
    whose first letters differ at once."""
    folded = _folded(text)
    wanted: dict[tuple[int, str], str] = {}
    for w in words:
        if len(w) <= len(text):
            wanted.setdefault((len(w), _folded(w) if len(w) > 1 else w), w)
    if not wanted:
        return text
    starts = {(n, _folded(key[:_PREFIX])) for n, key in wanted}
    lengths = sorted({n for n, _ in wanted}, reverse=True)
    out: list[str] = []
    depth = done = i = 0
    while i < len(text):
        ch = text[i]
        if ch in "{}":
            depth += 1 if ch == "{" else -1
        elif i == 0 or not (_word_char(text[i - 1]) or text[i - 1] in "{\\"):
            prefix = folded[i : i + _PREFIX]
            for n in lengths:
                end = i + n
                if end > len(text) or (
                    end < len(text) and (_word_char(text[end]) or text[end] == "}")
                ):
                    continue
                if (n, prefix[:n]) not in starts:
                    continue
                found = text[i:end]
                word = wanted.get((n, folded[i:end] if n > 1 else found))
                if word is None:
                    continue
                if depth == 0 and _same_word(found, word):
                    out.append(text[done:i] + "{" + word + "}")
                    done = end
                depth += found.count("{") - found.count("}")
                i = end
                break
            else:
                i += 1
            continue
        i += 1
    out.append(text[done:])
    return "".join(out)


def _folded(text: str) -> str:
    """``text`` in lower case, as long as ``text`` (its places are the text's): ``İ``, the
    one letter whose lower case is longer (i and a dot), as ``i``, its simple lower case,
    which the regular expressions of case-blind matching take too."""
    return text.replace("\u0130", "I").lower()


#: How many first letters of a word :func:`_brace_at_top` compares before the whole word.
_PREFIX = 4


def _word_char(ch: str) -> bool:
    """Whether ``ch`` is a word's (a letter, a digit, ``_``): no braced word is found
    next to one."""
    return ch.isalnum() or ch == "_"


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


def written_value(value: str) -> str:
    """``value`` as written between a field's delimiters: with a space after a final
    backslash, so that the backslash cannot escape the closing ``}`` or ``"`` for a reader
    that takes ``\\}`` for an escape (bibtexparser drops the entry); BibTeX and biber
    drop the space, as they drop all white space around a value."""
    return value + " " if value.endswith("\\") else value


def _replace_edit(text: str, f: Field, value: str) -> Edit:
    """The edit that replaces ``f``'s value by ``value``, keeping the delimiters if possible."""
    start, end = f.value_span.start, f.value_span.end
    before = text[start - 1] if start > 0 else ""
    after = text[end] if end < len(text) else ""
    if before == "{" and after == "}":
        return Edit(start, end, value)
    if before == '"' and after == '"':
        if _quote_at_top_level(value):  # switch to braces rather than break the quotes
            return Edit(start - 1, end + 1, "{" + value + "}")
        return Edit(start, end, value)
    # A bare value (a number): keep it bare only if the new one is a number too.
    bare = value.isascii() and value.isdigit()  # what BibTeX reads as a number
    return Edit(start, end, value if bare else "{" + value + "}")


def _name_style(written: str, name: str) -> str:
    if written.isupper():
        return name.upper()
    if written[:1].isupper():
        return name.capitalize()
    return name


def _column(text: str, offset: int) -> int | None:
    """The column of ``offset`` in its line of ``text``; None when a tab comes before it
    in the line (no column to align to)."""
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    return None if "\t" in text[start:offset] else offset - start


def _equals_column(text: str, entry: Entry) -> int | None:
    """The column every field of ``entry`` has its ``=`` in, if they share one."""
    columns: set[int | None] = set()
    for f in entry.fields:
        j = f.name_span.end
        while j < f.value_span.start and text[j] in " \t":
            j += 1
        columns.add(_column(text, j) if text[j : j + 1] == "=" else None)
        if len(columns) > 1:
            return None
    return columns.pop() if columns else None


def _delimiter(text: str, entry: Entry) -> str:
    """The delimiter (``{`` or ``"``) of the last of ``entry``'s values written with one;
    ``{`` when none is."""
    for f in sorted(entry.fields, key=lambda f: f.value_span.start, reverse=True):
        start, end = f.value_span.start, f.value_span.end
        pair = (text[start - 1 : start], text[end : end + 1])
        if pair in (("{", "}"), ('"', '"')):
            return pair[0]
    return "{"


def _insert_edit(text: str, entry: Entry, name: str, value: str) -> Edit | None:
    """A new ``name = {value}`` field after the entry's last, in the entry's own layout: its
    last field's separator, ``=`` spacing, name case and delimiter."""
    if not entry.fields:
        return None
    last = max(entry.fields, key=lambda f: f.name_span.start)
    # Separator before the last field: whitespace between its preceding comma and its name.
    i = last.name_span.start
    while i > entry.span.start and text[i - 1] in " \t\r\n":
        i -= 1
    after_comma = i > entry.span.start and text[i - 1] == ","
    gap = text[i : last.name_span.start] if after_comma else ""
    if not after_comma:  # the entry's own line break, else the file's
        gap = line_ending(text[entry.span.start : entry.span.end], line_ending(text)) + "  "
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
    column = _equals_column(text, entry)
    indent = _column(gap, len(gap)) if "\n" in gap or "\r" in gap else None
    if column is not None and indent is not None and len(entry.fields) > 1:
        # the ``=`` signs of all the fields aligned: the new one too
        equals = " " * max(1, column - indent - len(styled)) + equals.lstrip(" ")
    elif pre > 1 and "\t" not in equals:  # aligned ``=`` signs: keep the column
        equals = " " * max(1, len(written) + pre - len(styled)) + equals.lstrip(" ")
    quoted = _delimiter(text, entry) == '"' and not _quote_at_top_level(value)
    new_field = f'{styled}{equals}"{value}"' if quoted else f"{styled}{equals}{{{value}}}"
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
        return Edit(k + 1, k + 1, gap + new_field + ",")
    return Edit(anchor, anchor, "," + gap + new_field)


def refused_together(entry: Entry, fields: Mapping[str, str], skipped: list[Skipped]) -> bool:
    """Whether ``fields`` would change the title and the authors at once (a different
    work, not a correction): then none is applied, and the refusal is appended."""
    names = {n.lower() for n in fields}
    if "title" in names and names & {"author", "editor"}:
        skipped.append(
            Skipped(entry.key, None, "title and authors would change at once; not applied")
        )
        return True
    return False


def unsafe_reason(value: str) -> str | None:
    """Why a corrected ``value`` is not written: control or bidirectional characters, or
    characters drawn as nothing that :func:`written_text` does not drop (a tag character,
    a joiner inside an ASCII word), which would hide text in the file."""
    bad = unsafe_characters(value)
    if bad:
        return f"corrected value holds control or bidirectional characters ({', '.join(bad)})"
    hidden = hidden_characters(without_unsafe(value))
    if hidden:
        return f"corrected value holds characters drawn as nothing ({', '.join(hidden)})"
    return None


def written_text(value: str) -> str:
    """A corrected ``value`` as it is written: the characters drawn as nothing that are no
    text of their own (a soft hyphen, U+200B, a word joiner:
    :func:`~citewarden.safe_text.without_unsafe`) dropped, unless :func:`unsafe_reason`
    refuses it (then it is left as it is, to be refused)."""
    return value if unsafe_characters(value) else without_unsafe(value)


#: A line of a value that starts with '@' (after blanks): bibtexparser takes ``@b{`` there
#: for the start of an entry, whatever the braces around it.
_ENTRY_LINE = re.compile(r"[\n\r][ \t]*@")


def braces_read_alike(value: str) -> bool:
    """Whether BibTeX, LaTeX and bibtexparser all pair the braces of ``value`` up (see
    :func:`_escapes_balanced`): a value written between braces reads back whole in each."""
    return braces_balanced(value) and _escapes_balanced(value)


def _escapes_balanced(value: str) -> bool:
    """Whether the braces of ``value`` pair up as LaTeX reads them, a backslash escaping the
    character after it (``\\}`` is a brace of text, ``\\\\}`` a line break and a brace
    that closes), and as bibtexparser does, which takes every brace after a backslash for
    text: ``{\\B\\}`` pairs up for BibTeX only, LaTeX reads on past the value's end and
    bibtexparser drops the entry."""
    latex = after_backslash = 0
    escaped = False
    for i, ch in enumerate(value):
        if ch in "{}":
            step = 1 if ch == "{" else -1
            latex += 0 if escaped else step
            after_backslash += 0 if i and value[i - 1] == "\\" else step
            if latex < 0 or after_backslash < 0:
                return False
        escaped = not escaped and ch == "\\"
    return latex == 0 and after_backslash == 0


def present_fields(entry: Entry, name: str) -> list[Field]:
    """The fields of ``entry`` a correction of ``name`` (lower-case) edits: its own, else
    those of its biblatex spelling (:data:`_ALIASES`)."""
    present = [f for f in entry.fields if f.name == name]
    if not present and name in _ALIASES:
        present = [f for f in entry.fields if f.name == _ALIASES[name]]
    return present


def field_refusal(entry: Entry, name: str, value: str) -> str | None:
    """Why the correction ``name = value`` (lower-case name) is not written into the BibTeX
    ``entry`` as far as the entry's fields decide (None when it is): what ``--fix`` skips
    and the reports therefore do not offer."""
    if not braces_balanced(value):
        return "corrected value has unbalanced braces"
    if not _escapes_balanced(value):
        return (
            "corrected value's braces pair up only as BibTeX counts them: LaTeX and"
            " bibtexparser take \\{ and \\} for escaped braces, so it would not read back"
        )
    if _ENTRY_LINE.search(value) is not None:
        return (
            "a line of the corrected value starts with '@', which bibtexparser reads as the"
            " start of another entry"
        )
    if (reason := unsafe_reason(value)) is not None:
        return reason
    present = present_fields(entry, name)
    if name == "year" and not present and entry.field("date") is not None:
        return "the entry gives a date field; edit it by hand"
    if len(present) > 1:
        return "the field is given more than once"
    if present and present[0].expanded is not None:
        return "the value uses @string macros or concatenation"
    if not present and not entry.fields:
        return "no place to insert a new field"
    return None


def entry_edits(
    text: str,
    entry: Entry,
    fields: Mapping[str, str],
    changes: list[Change],
    skipped: list[Skipped],
) -> list[Edit]:
    """The edits writing ``fields`` into the BibTeX entry ``entry``; the changes made and
    the corrections skipped are appended."""
    if refused_together(entry, fields, skipped):
        return []
    edits: list[Edit] = []
    for raw_name, raw_value in fields.items():
        name, value = raw_name.lower(), written_text(raw_value)
        if name == "title":  # the value as written is the one checked, braces added and all
            value = written_title(entry, value)
        if (reason := field_refusal(entry, name, value)) is not None:
            skipped.append(Skipped(entry.key, name, reason))
            continue
        present = present_fields(entry, name)
        if present:
            f = present[0]
            if text[f.value_span.start : f.value_span.end] != f.value:
                raise FixRefused(entry.path, "parsed positions do not match the file's bytes")
            value = written_value(value)
            if f.value == value:
                continue
            edits.append(_replace_edit(text, f, value))
            line = _line_of(text, f.value_span.start)
            changes.append(Change(entry.key, f.name, f.value, value, line))
        else:
            value = written_value(value)
            edit = _insert_edit(text, entry, name, value)
            if edit is None:
                skipped.append(Skipped(entry.key, name, "no place to insert a new field"))
                continue
            edits.append(edit)
            line = (
                _line_of(text, edit.start) + count_line_breaks(edit.text) - count_line_breaks(value)
            )
            changes.append(Change(entry.key, name, None, value, line))
    return edits


#: Why a correction of a key defined more than once in a file is not applied.
REPEATED_KEY = "the key is defined more than once in this file"


def repeated_keys(entries: Iterable[Entry], fold: bool = True) -> frozenset[str]:
    """The keys that more than one of a file's ``entries`` define, lower-cased when ``fold``
    (BibTeX compares keys so; pandoc compares CSL ids exactly): ``--fix`` corrects none of
    them (which entry is meant?)."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for entry in entries:
        key = compared_key(entry.key, fold)
        (repeated if key in seen else seen).add(key)
    return frozenset(repeated)


def compared_key(key: str, fold: bool) -> str:
    """``key`` as keys are compared: lower-cased when ``fold`` (BibTeX), else as written."""
    return key.lower() if fold else key


def folds_keys(bib: ParsedBibliography) -> bool:
    """Whether the keys of ``bib`` compare case-folded (BibTeX) or exactly (CSL ids)."""
    return bib.format not in (BibFormat.CSL_JSON, BibFormat.CSL_YAML)


#: The edits of one entry for its corrections (appending the changes made and the
#: corrections skipped): :func:`entry_edits` for BibTeX.
EditsOf = Callable[[str, Entry, Mapping[str, str], list[Change], list[Skipped]], list[Edit]]


def plan_fix(
    bib: ParsedBibliography,
    original: bytes,
    corrections: Mapping[str, Mapping[str, str]],
    edits_of: EditsOf | None = None,
) -> FixPlan:
    """Compute the corrected bytes of one bibliography file.

    ``bib`` must be the parse of exactly ``original`` (decoded as UTF-8); ``corrections`` maps
    entry keys to ``{field: value}`` (anchored corrections from the verdicts; keys absent from
    this file are ignored); ``edits_of`` makes an entry's edits (BibTeX's by default).
    Raises :class:`FixRefused` for a file that was not parsed completely or whose parse
    does not match its bytes.
    """
    edits_of = edits_of or entry_edits
    check_complete(bib)
    bom, text = decode(original, bib.path)
    fold = folds_keys(bib)
    by_key: dict[str, Entry] = {}
    for entry in bib.entries:  # (a CSL item is read back whole by its own edits' check)
        if fold and text[entry.key_span.start : entry.key_span.end] != entry.key:
            raise FixRefused(bib.path, "parsed positions do not match the file's bytes")
        by_key.setdefault(compared_key(entry.key, fold), entry)
    repeated = repeated_keys(bib.entries, fold)
    changes: list[Change] = []
    skipped: list[Skipped] = []
    edits: list[Edit] = []
    for key, fields in corrections.items():
        found = by_key.get(compared_key(key, fold))
        if found is None or not fields:
            continue
        if compared_key(key, fold) in repeated:
            skipped.append(Skipped(key, None, REPEATED_KEY))
            continue
        edits.extend(edits_of(text, found, fields, changes, skipped))
    edits.sort(key=lambda e: (e.start, e.end))
    for a, b in itertools.pairwise(edits):
        if b.start < a.end:
            raise FixRefused(bib.path, "overlapping edits; refusing to rewrite it")
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
        edits = sorted(entry_edits(text, entry, fields, changes, skipped), key=lambda e: e.start)
    except FixRefused as exc:
        return text[entry.span.start : entry.span.end], (), (Skipped(entry.key, None, exc.reason),)
    pieces: list[str] = []
    pos = entry.span.start
    for e in edits:
        pieces.append(text[pos : e.start])
        pieces.append(e.text)
        pos = e.end
    pieces.append(text[pos : entry.span.end])
    return "".join(pieces), tuple(changes), tuple(skipped)


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
        raise FixRefused(plan.path, "the corrected file would not parse; not written") from None
    if [e.key for e in before.entries] != [e.key for e in after.entries]:
        raise FixRefused(plan.path, "the corrected file would change the entries; not written")
    fold = folds_keys(before)
    planned: dict[str, dict[str, str]] = {}
    for c in plan.changes:
        planned.setdefault(compared_key(c.key, fold), {})[c.field] = c.new
    for old_entry, new_entry in zip(before.entries, after.entries, strict=True):
        ours = planned.get(compared_key(old_entry.key, fold), {})
        old_fields = {f.name: f.text for f in old_entry.fields}
        new_fields = {f.name: f.text for f in new_entry.fields}
        for name in old_fields.keys() | new_fields.keys() | ours.keys():
            want = ours.get(name)
            if want is not None:
                if new_fields.get(name) != want:
                    raise FixRefused(
                        plan.path, f"{old_entry.key}.{name} did not come out as planned"
                    )
            elif old_fields.get(name) != new_fields.get(name):
                raise FixRefused(
                    plan.path, f"{old_entry.key}.{name} would change unexpectedly; not written"
                )
    if after.format is BibFormat.BIBTEX:
        _read_back_by_bibtexparser(plan.path, decode(plan.new, plan.path)[1], after, planned, fold)


def _read_back_by_bibtexparser(
    path: Path,
    text: str,
    after: ParsedBibliography,
    planned: Mapping[str, Mapping[str, str]],
    fold: bool,
) -> None:
    """Raise :class:`FixRefused` unless bibtexparser, the other reader of .bib files in
    Python, reads each corrected entry of ``text`` (read as ``after``) back whole with its
    planned values: a value BibTeX pairs up one way and bibtexparser another (``{\\B\\}``)
    had it lose the entry."""
    import bibtexparser

    for entry in after.entries:
        ours = planned.get(compared_key(entry.key, fold))
        if not ours:
            continue
        library = bibtexparser.parse_string(text[entry.span.start : entry.span.end])
        if library.failed_blocks or len(library.entries) != 1:
            raise FixRefused(
                path, f"bibtexparser would not read the corrected entry {entry.key}; not written"
            )
        read = {name.lower(): f.value for name, f in library.entries[0].fields_dict.items()}
        for name, want in ours.items():
            if str(read.get(name.lower(), "")).strip() != want.strip():
                raise FixRefused(
                    path, f"bibtexparser would read {entry.key}.{name} otherwise; not written"
                )
