"""SARIF 2.1.0 output for code-scanning UIs (``citewarden check --format sarif``).

One run, with rule metadata for every finding code (id, name, short and full description,
help link, default level) and one result per finding.  Regions are 1-based lines and
columns counted in Unicode code points (``run.columnKind = "unicodeCodePoints"``).  Artifact
URIs are relative to the project root under the ``SRCROOT`` base id, as code-scanning UIs
expect.  Fixes carried by findings become SARIF ``fixes`` with text replacements.
"""

from __future__ import annotations

import hashlib
import os
import re
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citewarden.findings.score import score_summary
from citewarden.model import (
    DEFAULT_SEVERITY,
    INDEX_CODES,
    Code,
    Finding,
    Fix,
    Location,
    Severity,
    Span,
    Verdict,
    code_doc_url,
)
from citewarden.report.json_text import Streamed
from citewarden.safe_text import visible, visible_lines
from citewarden.text import LineIndex

if TYPE_CHECKING:
    from citewarden.audit import Audit

SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
SARIF_VERSION = "2.1.0"
TOOL_NAME = "citewarden"
INFORMATION_URI = "https://github.com/citewarden/citewarden"
#: The id of the notification that a source stopped answering during the run.
STOPPED_DESCRIPTOR = "source-stopped"
ROOT_BASE_ID = "SRCROOT"

#: One line per finding code: what it means.  Also used by the HTML report's appendix.
RULE_TEXT: Mapping[Code, str] = {
    Code.DANGLING: "A citation key is cited but defined in no bibliography of the project.",
    Code.ORPHAN: "A bibliography entry is defined but cited by no document of the project.",
    Code.DUPLICATE_KEY: "The same entry key is defined more than once.",
    Code.DUPLICATE_FIELD: "An entry gives the same field more than once.",
    Code.DUPLICATE_WORK: "Two entries describe the same work (same DOI, or same title and year).",
    Code.MISSING_BIBLIOGRAPHY: "A bibliography file named by a document does not exist.",
    Code.MISSING_INCLUDE: "An included document (\\input, \\include ...) does not exist.",
    Code.EMPTY_KEY: "A citation or entry has an empty key.",
    Code.BIB_SYNTAX: "The bibliography file has a syntax error here.",
    Code.UNDEFINED_STRING: "A field uses an @string macro that is not defined.",
    Code.MISSING_CROSSREF: "The crossref/xdata target of an entry is not defined.",
    Code.CROSSREF_LOOP: (
        "A cited entry's crossref/xdata chain loops: pandoc never finishes, biber stops."
    ),
    Code.FILE_ENCODING: "The file is not valid in the expected text encoding.",
    Code.FILE_UNREADABLE: "The file could not be read.",
    Code.YAML_SYNTAX: "The YAML front matter or metadata file has a syntax error.",
    Code.BIB_OUTSIDE_ROOT: (
        "A bibliography file outside the project root is used: its entries count, but its "
        "text is kept out of SARIF snippets."
    ),
    Code.DOI_NOT_FOUND: "The DOI does not resolve: no such DOI is registered.",
    Code.DOI_OTHER_WORK: "The DOI resolves to a different work than the entry describes.",
    Code.NOT_FOUND: "Every source answered and none knows a work matching this entry.",
    Code.TITLE_MISMATCH: "The title differs from the matched record's title (a near miss).",
    Code.AUTHOR_ADDED: "The entry lists an author the matched record does not have.",
    Code.AUTHOR_DROPPED: "The entry omits an author of the matched record.",
    Code.AUTHOR_SUBSTITUTED: "An author of the entry differs from the matched record's author.",
    Code.AUTHOR_MISSPELLED: (
        "An author's surname is spelled differently from the matched record's (one letter)."
    ),
    Code.PLACEHOLDER_AUTHORS: "The author list is a placeholder (e.g. 'John Doe', 'et al.' only).",
    Code.YEAR_MISMATCH: "The year differs from the matched record's publication year.",
    Code.VENUE_MISMATCH: "The journal or venue differs from the matched record's venue.",
    Code.VOLUME_MISMATCH: "The volume differs from the matched record's volume.",
    Code.ISSUE_MISMATCH: "The issue number differs from the matched record's issue.",
    Code.PAGES_MISMATCH: "The pages differ from the matched record's pages.",
    Code.HOMOGLYPH: "The entry contains look-alike characters from another script.",
    Code.TEMPORAL_IMPOSSIBILITY: "The year is impossible (in the future, or before the venue existed).",
    Code.CHIMERIC: "The entry combines the title of one work with the authors of another.",
    Code.RETRACTED: "The cited work has been retracted.",
    Code.CORRECTED: "The cited work has a published correction.",
    Code.EXPRESSION_OF_CONCERN: "The cited work carries an expression of concern.",
    Code.PREPRINT_PUBLISHED: "The cited preprint has since been published; cite the version of record.",
    Code.MISSING_DOI: "The work has a DOI that the entry does not give.",
    Code.INVALID_IDENTIFIER: "An identifier (DOI, ISBN, arXiv id, PMID) is malformed.",
    Code.UNVERIFIED: "The entry could not be checked (sources offline, rate limited or failing).",
    Code.VENUE_UNINDEXED: "The journal is indexed in none of DOAJ, PubMed and Scopus, by a "
    "source's own account, and shows a second sign (not a core source, or no known publisher).",
    Code.VENUE_NOT_FOUND: "OpenAlex or Crossref, asked for the journal by its ISSN, holds no "
    "such journal, and no record of the work names one.",
    Code.CITATION_UNSUPPORTED: "The configured judge says the cited work's abstract does not "
    "support the sentence that cites it.",
    Code.PREPRINT_AS_PUBLISHED: "Only preprint records of the work exist, but it is cited as published at a venue.",
    Code.ARXIV_VERSION: "The arXiv version or year cited does not match the arXiv listing.",
    Code.NONEXISTENT_VENUE: "No venue registry knows the cited venue, and the matched record "
    "names another.",
    Code.BIB_UNRESOLVED: (
        "A bibliography is named by a macro the project does not define as a file name, or is "
        "a remote resource or a pattern too wide to follow: its entries are unknown, so no "
        "citation of the project is reported dangling."
    ),
    Code.NOCITE_IN_PREAMBLE: (
        "A \\nocite in the preamble after natbib, cite or harvard is loaded cites nothing: "
        "BibTeX never sees its keys."
    ),
    Code.BIBLIOGRAPHY_IGNORED: (
        "A \\bibliography after the first in a BibTeX document: BibTeX reads only the files "
        "of the first \\bibdata, so the files only this one names are not read."
    ),
    Code.KEY_SPACE: (
        "A space follows a citation key: LaTeX looks the key up with the space, so the "
        "citation is undefined, and BibTeX skips the citation."
    ),
}

_LEVEL = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "note",
    Severity.HINT: "note",
}

#: Decides a finding's severity (None drops it); the default is the finding's own.
SeverityOf = Callable[[Finding], Severity | None]


#: What a SARIF viewer reads as an embedded link (``[text](destination)``: GitHub code
#: scanning links ``[text](0)`` to related location 0).
_EMBEDDED_LINK = re.compile(r"\[(?:[^\[\]\\]|\\.)*\]\(")


def message_text(text: str) -> str:
    """``text`` (a finding's message, which quotes keys and values from the files) as a
    SARIF plain text message: visible escapes (:func:`~citewarden.safe_text.visible`),
    and, where it holds what a viewer would read as an embedded link (a key ``[x](0)``),
    its square brackets, and a backslash before one, escaped with a backslash."""
    shown = visible(text)
    if _EMBEDDED_LINK.search(shown) is None:
        return shown
    return re.sub(r"\\(?=[\[\]])|[\[\]]", lambda m: "\\" + m.group(), shown)


def _effective(finding: Finding) -> Severity | None:
    return finding.effective_severity


def rule_text(code: Code) -> str:
    """What a code means (a generic sentence for a code added without a description)."""
    return RULE_TEXT.get(code) or f"citewarden finding: {code.value.replace('-', ' ')}."


def rule_name(code: Code) -> str:
    """``dangling-citation`` -> ``DanglingCitation`` (SARIF's human-readable rule name)."""
    return "".join(part.capitalize() for part in code.value.split("-"))


def rules() -> list[dict[str, Any]]:
    """Rule metadata for every finding code, in :class:`Code` order."""
    out: list[dict[str, Any]] = []
    for code in Code:
        text = rule_text(code)
        out.append(
            {
                "id": code.value,
                "name": rule_name(code),
                "shortDescription": {"text": text.split(":")[0].rstrip(".") + "."},
                "fullDescription": {"text": text},
                "helpUri": code_doc_url(code),
                "help": {"text": f"{text} See {code_doc_url(code)}"},
                "defaultConfiguration": {"level": _LEVEL[DEFAULT_SEVERITY[code]]},
                "properties": {
                    "tags": ["citations" if code in INDEX_CODES else "verification"],
                },
            }
        )
    return out


def run_properties(verdicts: Iterable[Verdict] | None) -> dict[str, Any] | None:
    """The run's property bag: the score summary (None without verification)."""
    if verdicts is None:
        return None
    return score_summary(verdicts).as_json()


def relative_uri(path: Path) -> str:
    """A relative path as a URI reference: its bytes (a name that is not UTF-8 keeps its own)
    percent-encoded where a URI needs it (a space, ``%``, ``#``, ``?``), ``/`` kept."""
    return urllib.parse.quote(os.fsencode(path.as_posix()), safe="/")


class _Artifacts:
    """Artifact table: one entry per file, URIs relative to the root when possible."""

    def __init__(self, root: Path | None) -> None:
        self.root = root.resolve() if root is not None else None
        self.index: dict[Path, int] = {}
        self.uris: dict[Path, dict[str, Any]] = {}
        self.table: list[dict[str, Any]] = []

    def uri(self, path: Path) -> dict[str, Any]:
        resolved = path.resolve()
        if self.root is not None:
            try:
                rel = resolved.relative_to(self.root)
            except ValueError:
                pass
            else:
                return {"uri": relative_uri(rel), "uriBaseId": ROOT_BASE_ID}
        return {"uri": resolved.as_uri()}

    def location(self, path: Path) -> dict[str, Any]:
        """The artifact location of ``path`` with its index (its URI made once a file: a
        report of 300 000 findings in one file resolved its path 300 000 times)."""
        found = self.index.get(path)
        if found is None:
            found = self.index[path] = len(self.table)
            self.uris[path] = self.uri(path)
            self.table.append({"location": self.uris[path]})
        return {**self.uris[path], "index": found}


def _region(index: LineIndex | None, span: Span) -> dict[str, Any]:
    if index is None:
        return {"startLine": 1}
    start = index.position(span.start)
    end = index.position(span.end)
    region: dict[str, Any] = {
        "startLine": start.line + 1,
        "startColumn": start.column + 1,
        "endLine": end.line + 1,
        "endColumn": end.column + 1,
        "charOffset": span.start,
        "charLength": len(span),
    }
    if span.end > span.start:
        region["snippet"] = {"text": visible_lines(index.text[span.start : span.end][:500])}
    return region


#: Where a message says a place (``refs.bib:12``, ``line 3, column 7``, pandoc's ``at byte
#: offset 29``).
_AT = re.compile(r"(?<=\S)(?::\d+)+\b")
_LINE_OR_COLUMN = re.compile(
    r"\b(line|column|byte offset)s?\s+\d+(?:\s*[-\u2013]\s*\d+)?", re.IGNORECASE
)
#: A dangling key's "did you mean" keys, which change with the other entries.
_SUGGESTED = re.compile(r"; did you mean .*\?\Z", re.DOTALL)


def _identity(finding: Finding) -> str:
    """The message without what changes while the finding stays the same: the places it
    names and the keys it suggests (a message with neither is kept as it is)."""
    message = _LINE_OR_COLUMN.sub(r"\1", _AT.sub("", finding.message))
    if finding.data.get("suggestions"):
        message = _SUGGESTED.sub("", message)
    return message


def _fingerprint(finding: Finding, artifact_uri: str) -> str:
    """Code, file, key, field and message (:func:`_identity`): stable while lines are added
    or removed elsewhere in the file."""
    key = finding.data.get("key", "")
    field = finding.data.get("field", "")
    raw = f"{finding.code.value}\0{artifact_uri}\0{key}\0{field}\0{_identity(finding)}"
    return _digest(raw)


def _digest(raw: str) -> str:
    # "surrogatepass": a file name that is not UTF-8 holds surrogates (the same bytes each run)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


class _Fingerprints:
    """:func:`_fingerprint` of each finding, told apart from the earlier ones (in document
    order) that share it by its place among them: the first keeps the plain one (so do the
    alerts made of it), the n-th (n > 0) is that fingerprint with ``n``."""

    def __init__(self) -> None:
        self._seen: Counter[str] = Counter()

    def __call__(self, finding: Finding, artifact_uri: str) -> str:
        plain = _fingerprint(finding, artifact_uri)
        n = self._seen[plain]
        self._seen[plain] += 1
        return plain if n == 0 else _digest(f"{plain}\0{n}")


def sarif_log(
    findings: Iterable[Finding],
    texts: Mapping[Path, str],
    *,
    root: Path | None = None,
    version: str = "0",
    severity_of: SeverityOf = _effective,
    properties: Mapping[str, Any] | None = None,
    streamed: bool = False,
    stopped: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """A SARIF 2.1.0 log of ``findings``.

    ``texts`` gives each file's text (for line/column regions; a file missing from it gets a
    line-1 region); ``root`` makes artifact URIs relative (``SRCROOT``); ``severity_of`` applies
    configured severities (None drops a finding); ``properties`` go into the run's property bag
    (e.g. the document score and tier counts).  ``streamed``: the run's results are a
    :class:`~citewarden.report.json_text.Streamed` list, each made as it is written (by
    :func:`~citewarden.report.json_text.indented_json`, once), so that the log of 300 000
    findings is never held whole; the artifacts, which come after them, are listed as they
    are written.  ``stopped``: (source, why) of each source that stopped answering during
    the run, a warning of the invocation each (``toolExecutionNotifications``).
    """
    rule_list = rules()
    rule_index = {code: i for i, code in enumerate(Code)}
    artifacts = _Artifacts(root)
    indexes: dict[Path, LineIndex | None] = {}

    def index_of(path: Path) -> LineIndex | None:
        if path not in indexes:
            text = texts.get(path)
            indexes[path] = LineIndex(text) if text is not None else None
        return indexes[path]

    def physical(loc: Location) -> dict[str, Any]:
        where = artifacts.location(loc.path)
        region = _region(index_of(loc.path), loc.span)
        if artifacts.root is not None and "uriBaseId" not in where:
            region.pop("snippet", None)  # a file outside the root: its text stays out
        return {"physicalLocation": {"artifactLocation": where, "region": region}}

    fingerprint = _Fingerprints()
    ordered: Sequence[Finding] = sorted(
        findings, key=lambda f: (str(f.location.path), f.location.span.start, f.code.value)
    )

    def result_of(finding: Finding, severity: Severity) -> dict[str, Any]:
        location = physical(finding.location)
        result: dict[str, Any] = {
            "ruleId": finding.code.value,
            "ruleIndex": rule_index[finding.code],
            "level": _LEVEL[severity],
            "message": {"text": message_text(finding.message)},
            "locations": [location],
            "partialFingerprints": {
                "citewarden/v1": fingerprint(
                    finding, location["physicalLocation"]["artifactLocation"]["uri"]
                )
            },
        }
        if finding.related:
            result["relatedLocations"] = [
                {"id": i, **physical(r.location), "message": {"text": message_text(r.message)}}
                for i, r in enumerate(finding.related)
            ]
        fixes = [fix for fix in finding.fixes if fix.edits]
        if fixes:
            result["fixes"] = [_fix(fix, artifacts, index_of) for fix in fixes]
        data = {k: v for k, v in finding.data.items() if isinstance(v, str | int | float | bool)}
        if data:
            result["properties"] = data
        return result

    made = (
        result_of(finding, severity)
        for finding in ordered
        if (severity := severity_of(finding)) is not None
    )
    results: Streamed | list[dict[str, Any]] = Streamed(made) if streamed else list(made)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": version,
                "semanticVersion": version,
                "informationUri": INFORMATION_URI,
                "rules": rule_list,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
        "invocations": [_invocation(stopped)],
    }
    if root is not None:
        run["originalUriBaseIds"] = {ROOT_BASE_ID: {"uri": root.resolve().as_uri() + "/"}}
    run["artifacts"] = artifacts.table
    if properties:
        run["properties"] = dict(properties)
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _invocation(stopped: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """The run's one invocation: it succeeded, with a warning for each source that stopped
    answering (its entries are unverified, which no result says of the source)."""
    from citewarden.verify.breaker import stopped_notice

    invocation: dict[str, Any] = {"executionSuccessful": True}
    if stopped:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "warning",
                "message": {"text": message_text(stopped_notice(source, why))},
                "descriptor": {"id": STOPPED_DESCRIPTOR},
                "properties": {"source": source, "reason": why},
            }
            for source, why in stopped
        ]
    return invocation


def _fix(
    fix: Fix, artifacts: _Artifacts, index_of: Callable[[Path], LineIndex | None]
) -> dict[str, Any]:
    by_file: dict[Path, list[dict[str, Any]]] = {}
    for edit in fix.edits:
        region = _region(index_of(edit.path), edit.span)
        region.pop("snippet", None)
        by_file.setdefault(edit.path, []).append(
            {"deletedRegion": region, "insertedContent": {"text": edit.new_text}}
        )
    return {
        "description": {"text": message_text(fix.title)},
        "artifactChanges": [
            {"artifactLocation": artifacts.location(path), "replacements": reps}
            for path, reps in by_file.items()
        ],
    }


def sarif_of(
    audit: Audit, *, root: Path | None = None, version: str = "0", streamed: bool = False
) -> dict[str, Any]:
    """The SARIF log of an audit: its findings after policy, its score summary (its results
    made as they are written with ``streamed``: :func:`sarif_log`)."""
    ws = audit.workspace
    texts = {p: t for p in audit.findings if (t := ws.text(p)) is not None}
    properties = audit.summary.as_json() if audit.summary is not None else None
    return sarif_log(
        audit.ordered(),
        texts,
        root=root,
        version=version,
        properties=properties,
        streamed=streamed,
        stopped=audit.stopped,
    )
