"""The one converter between domain values and protocol types.

Tags, the ``source`` string, the code's documentation link and related information are
decided here and nowhere else; the severity is the finding's own, which the policy step
(:mod:`citewarden.findings.policy`) decided.  Positions are converted through
:class:`citewarden.text.LineIndex` in the encoding negotiated with the client.
"""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import cattrs
from cattrs.cols import is_sequence, list_structure_factory
from lsprotocol import types
from pygls import IS_WIN
from pygls.protocol import default_converter
from pygls.uris import from_fs_path, to_fs_path

from citewarden.model import Code, Finding, Fix, Location, Severity, Span, TextEdit, code_doc_url
from citewarden.project import normalize_path
from citewarden.safe_text import https_url, visible
from citewarden.settings import Settings
from citewarden.text import Encoding, Position

SOURCE = "citewarden"


class PlainJson(dict):  # type: ignore[type-arg]
    """A result already in its JSON form (plain dicts, lists, strings and numbers): sent
    as it is, without the protocol converter walking every nested value again."""


def plain_json_converter() -> cattrs.Converter:
    """pygls' converter, with :class:`PlainJson` passed through unchanged, and LSP's
    arrays, strings and integers read from JSON values of their kind only
    (:func:`_arrays_only`, :func:`_string`, :func:`_integer`)."""
    converter = default_converter()
    converter.register_unstructure_hook(PlainJson, _same)
    converter.register_structure_hook_factory(is_sequence, _arrays_only)
    converter.register_structure_hook(str, _string)
    converter.register_structure_hook(int, _integer)
    converter.register_structure_hook(bool, _boolean)  # else read as an int (a subclass)
    return converter


class WrongKind(ValueError):
    """A JSON value of another kind than LSP's type of it (an object for a string)."""


def _arrays_only(kind: Any, converter: cattrs.Converter) -> Callable[[Any, Any], Any]:
    """cattrs' reading of the list type ``kind``, refusing any other value: it read any
    iterable, so executeCommand's arguments "abc" were the arguments a, b, c (a lookup of
    the reference 'a' for citewarden.addReference) and an object its keys."""
    read = list_structure_factory(kind, converter)

    def hook(value: Any, kind: Any) -> Any:
        if not isinstance(value, list | tuple):
            raise WrongKind(f"expected an array, not {_json_kind(value)}")
        return read(value, kind)

    return hook


def _string(value: Any, kind: Any) -> str:
    """A string of LSP's: cattrs made one of anything (``str(value)``), so a rename's
    newName {"a": 1} renamed a key to "{'a': 1}" and a uri 5 was the document "5"."""
    if not isinstance(value, str):
        raise WrongKind(f"expected a string, not {_json_kind(value)}")
    return value


def _integer(value: Any, kind: Any) -> int:
    """An integer of LSP's (a number with no fraction): cattrs took "12" and true too."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise WrongKind(f"expected an integer, not {_json_kind(value)}")
    return value


def _boolean(value: Any, kind: Any) -> bool:
    """A boolean of LSP's: cattrs took any value for its truth ("false" was true)."""
    if not isinstance(value, bool):
        raise WrongKind(f"expected true or false, not {_json_kind(value)}")
    return value


def _json_kind(value: Any) -> str:
    """What JSON value ``value`` is, in words."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, list | tuple):
        return "an array"
    return "a number" if isinstance(value, int | float) else "null"


def _same(value: PlainJson) -> PlainJson:
    return value


class TextIndex(Protocol):
    """Offset <-> position conversion for one text (:class:`LineIndex` or a sparse one)."""

    @property
    def text(self) -> str: ...

    def position(self, offset: int, encoding: Encoding = ...) -> Position: ...

    def offset(self, position: Position, encoding: Encoding = ...) -> int: ...


#: Looks up the line index of a file's current text (None when the file is unknown).
IndexLookup = Callable[[Path], TextIndex | None]
#: Looks up the version of an open document whose text the edits are made on (None for a
#: file that is not open: its text on disk).
VersionLookup = Callable[[Path], int | None]


def _no_version(path: Path) -> int | None:
    return None


def document_changes_supported(capabilities: types.ClientCapabilities) -> bool:
    """The client takes ``documentChanges`` (versioned edits) in a WorkspaceEdit."""
    ws = capabilities.workspace
    edit = ws.workspace_edit if ws is not None else None
    return bool(edit is not None and edit.document_changes)


_ENCODINGS = {
    types.PositionEncodingKind.Utf8: Encoding.UTF8,
    types.PositionEncodingKind.Utf16: Encoding.UTF16,
    types.PositionEncodingKind.Utf32: Encoding.UTF32,
}

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFORMATION: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}

_UNNECESSARY = frozenset({Code.ORPHAN})


def encoding_of(kind: str | None) -> Encoding:
    """The :class:`Encoding` for a negotiated ``positionEncoding`` (UTF-16 when absent)."""
    if kind is None:
        return Encoding.UTF16
    return _ENCODINGS.get(types.PositionEncodingKind(kind), Encoding.UTF16)


def uri_of(path: Path) -> str:
    """The ``file:`` URI of ``path``; a name that is not UTF-8 keeps its own bytes
    percent-encoded (``x%FE.tex``), as Neovim writes it."""
    try:
        uri = from_fs_path(str(path))
    except UnicodeEncodeError:  # surrogates: the bytes of a name that is not UTF-8
        uri = None
    return uri if uri is not None else path.as_uri()


def path_of(uri: str) -> Path | None:
    """The file system path of a ``file:`` URI (None for other schemes); percent-escapes
    that are not UTF-8 are the bytes of the name (the inverse of :func:`uri_of`)."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    if fs and "\ufffd" in fs and not IS_WIN:
        parts = urllib.parse.urlsplit(uri)
        if not parts.netloc:
            fs = os.fsdecode(urllib.parse.unquote_to_bytes(parts.path))
    return normalize_path(fs) if fs else None


class Converter:
    """Converts spans, findings and fixes for one client (encoding) and settings."""

    def __init__(
        self,
        encoding: Encoding,
        settings: Settings,
        indexes: IndexLookup,
        uris: Callable[[Path], str] = uri_of,
        versions: VersionLookup = _no_version,
    ) -> None:
        self.encoding = encoding
        self.settings = settings
        self._indexes = indexes
        self.uri = uris
        self._versions = versions
        #: WorkspaceEdits carry ``documentChanges`` with each open document's version, so
        #: that the client refuses an edit made on an older text (else plain ``changes``).
        self.document_changes = False

    def with_indexes(self, indexes: IndexLookup) -> Converter:
        """The same converter looking line indexes up through ``indexes``."""
        out = Converter(self.encoding, self.settings, indexes, self.uri, self._versions)
        out.document_changes = self.document_changes
        return out

    # -- positions --------------------------------------------------------------------
    def position(self, index: TextIndex, offset: int) -> types.Position:
        pos = index.position(offset, self.encoding)
        return types.Position(line=pos.line, character=pos.column)

    def range(self, index: TextIndex, span: Span) -> types.Range:
        return types.Range(
            start=self.position(index, span.start), end=self.position(index, span.end)
        )

    def offset(self, index: TextIndex, position: types.Position) -> int:
        return index.offset(Position(position.line, position.character), self.encoding)

    def span(self, index: TextIndex, range_: types.Range) -> Span:
        start = self.offset(index, range_.start)
        end = self.offset(index, range_.end)
        return Span(min(start, end), max(start, end))

    def location(self, location: Location) -> types.Location | None:
        index = self._indexes(location.path)
        if index is None:
            return None
        return types.Location(uri=self.uri(location.path), range=self.range(index, location.span))

    # -- findings ---------------------------------------------------------------------
    def severity(self, finding: Finding) -> types.DiagnosticSeverity | None:
        """The protocol severity of a finding (the policy step decided it already)."""
        return _SEVERITY[finding.effective_severity]

    def diagnostic(self, finding: Finding, index: TextIndex) -> types.Diagnostic | None:
        """A diagnostic for ``finding`` located in the file indexed by ``index``."""
        severity = self.severity(finding)
        if severity is None:
            return None
        related = []
        for rel in finding.related:
            loc = self.location(rel.location)
            if loc is not None:
                related.append(
                    types.DiagnosticRelatedInformation(location=loc, message=visible(rel.message))
                )
        record = finding.data.get("record_url")
        record = https_url(record) if isinstance(record, str) else None
        if record is not None:  # a verification finding: link the matched record (https)
            start = types.Position(line=0, character=0)
            related.append(
                types.DiagnosticRelatedInformation(
                    location=types.Location(uri=record, range=types.Range(start=start, end=start)),
                    message=f"the record at {finding.data.get('record_source') or 'the source'}",
                )
            )
        data: dict[str, object] = {"code": finding.code.value}
        key = finding.data.get("key")
        if isinstance(key, str):
            data["key"] = key
        return types.Diagnostic(
            range=self.range(index, finding.location.span),
            message=visible(finding.message),
            severity=severity,
            code=finding.code.value,
            code_description=types.CodeDescription(href=code_doc_url(finding.code)),
            source=SOURCE,
            tags=[types.DiagnosticTag.Unnecessary] if finding.code in _UNNECESSARY else None,
            related_information=related or None,
            data=data,
        )

    def diagnostics(self, findings: Iterable[Finding], index: TextIndex) -> list[types.Diagnostic]:
        out = []
        for finding in findings:
            diag = self.diagnostic(finding, index)
            if diag is not None:
                out.append(diag)
        return out

    # -- edits ------------------------------------------------------------------------
    def workspace_edit(self, edits: Iterable[TextEdit]) -> types.WorkspaceEdit | None:
        """A WorkspaceEdit of ``edits`` (None when a file's text is unknown): versioned
        ``documentChanges`` where the client takes them, else ``changes``."""
        by_path: dict[Path, list[types.TextEdit]] = {}
        for edit in edits:
            index = self._indexes(edit.path)
            if index is None:
                return None
            by_path.setdefault(edit.path, []).append(
                types.TextEdit(range=self.range(index, edit.span), new_text=edit.new_text)
            )
        if not self.document_changes:
            return types.WorkspaceEdit(
                changes={self.uri(path): made for path, made in by_path.items()}
            )
        return types.WorkspaceEdit(
            document_changes=[
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(
                        uri=self.uri(path), version=self._versions(path)
                    ),
                    edits=list(made),
                )
                for path, made in by_path.items()
            ]
        )

    def code_action(self, fix: Fix, diagnostic: types.Diagnostic | None) -> types.CodeAction | None:
        edit = self.workspace_edit(fix.edits)
        if edit is None:
            return None
        return types.CodeAction(
            title=visible(fix.title),  # keys in it are shown as the diagnostic shows them
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic] if diagnostic is not None else None,
            is_preferred=fix.preferred or None,
            edit=edit,
        )
