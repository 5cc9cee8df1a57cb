"""Parsed bibliographies: fields, entries and the summary of one .bib / CSL file
(:class:`ParsedBibliography`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType

from citewarden.model.findings import Finding, Span


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a bibliography entry.

    ``value`` is the raw text between the delimiters (braces/quotes removed, nothing decoded);
    ``value_span`` covers exactly that text, so an edit replacing it keeps the delimiters.
    ``expanded`` is the value with @string macros and ``#`` concatenation resolved, when it
    differs from ``value`` (else None).
    """

    name: str  # lower-case
    value: str
    name_span: Span
    value_span: Span
    expanded: str | None = None

    @property
    def text(self) -> str:
        return self.expanded if self.expanded is not None else self.value


@dataclass(frozen=True, slots=True)
class Entry:
    """One bibliography entry (@article{key, ...}, or a CSL-JSON/YAML item)."""

    key: str
    entry_type: str  # lower-case: article, inproceedings, ...
    path: Path
    span: Span  # the whole entry, from '@' to the closing delimiter
    key_span: Span
    fields: tuple[Field, ...] = ()
    #: Alternative keys from the biblatex ``ids`` field.
    aliases: tuple[str, ...] = ()
    #: A CSL item's own type (``article-journal``); ``entry_type`` is then the BibTeX type
    #: it stands for (``article``), the one every check and verification reasons with.
    csl_type: str | None = None

    def field(self, name: str) -> Field | None:
        name = name.lower()
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def get(self, name: str, default: str | None = None) -> str | None:
        f = self.field(name)
        return f.text if f is not None else default

    def __hash__(self) -> int:
        # Equal entries have equal keys, types, paths and spans: hashing those alone spares
        # a parsed entry building its fields (and their positions) to be hashed.
        return hash((self.key, self.entry_type, self.path, self.span))

    def field_texts(self) -> tuple[tuple[str, str], ...]:
        """``(name, text)`` of every field in order: what the fields say, without their
        positions (a parsed entry answers without building its Field objects)."""
        return tuple((f.name, f.text) for f in self.fields)


class BibFormat(StrEnum):
    BIBTEX = "bibtex"
    CSL_JSON = "csl-json"
    CSL_YAML = "csl-yaml"


@dataclass(frozen=True, slots=True)
class BibContext:
    """What a .bib file inherits from the files its LaTeX projects read before it: the
    ``@string`` macros they define (lower-case name, expanded value).  BibTeX and biber read
    a project's .bib files one after the other, and a macro defined in one holds in the
    files read after it (``\\bibliography{IEEEabrv,refs}``); pandoc reads each on its own."""

    macros: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedBibliography:
    path: Path
    format: BibFormat
    #: A tuple, or after an incremental re-read runs of earlier tuples whose entries are
    #: moved on access (:class:`citewarden.parsing.entry_runs.EntryRuns`).
    entries: Sequence[Entry] = ()
    #: @string macros, name (lower-case) -> expanded value.
    strings: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: 0-based line numbers on which findings are suppressed by an ignore comment.
    suppressed_lines: frozenset[int] = frozenset()
    #: Syntax errors, duplicate fields, encoding problems ... as findings with positions.
    problems: tuple[Finding, ...] = ()
    #: True when every byte of the file was understood (a --fix precondition).
    complete: bool = True
    #: True when the file was not parsed at all (memory ran out in the language server, or
    #: the parser failed): which keys it defines is not known.
    failed: bool = False
    #: Set by an incremental re-read: ``(id of the previous parse's entries tuple, head,
    #: tail)``: the first ``head`` entries are that parse's first ones, the last ``tail``
    #: ones its last ones moved by the edit (same keys and contents).
    reused: tuple[int, int, int] | None = field(default=None, compare=False, repr=False)
