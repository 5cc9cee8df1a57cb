"""The shared domain model: spans, citations, entries, findings, fixes and verdicts.

Every value here is a frozen dataclass or an enum.  Offsets are code-point offsets into the
text of one file (``str`` indices); conversion to lines/columns lives in :mod:`citewarden.text`,
and conversion to UTF-16 happens only at the LSP edge.

The vocabulary lives in modules named for what they hold and is imported from here:
:mod:`~citewarden.model.findings` (severities, codes, spans, fixes, findings),
:mod:`~citewarden.model.documents` (citations, links, macros, parsed documents),
:mod:`~citewarden.model.bibliography` (fields, entries, parsed bibliographies) and
:mod:`~citewarden.model.verdicts` (status, tiers, matches, issues, verdicts, the score).
"""

from citewarden.model.bibliography import (
    BibContext,
    BibFormat,
    Entry,
    Field,
    ParsedBibliography,
)
from citewarden.model.documents import (
    Citation,
    CitationKind,
    CitationMacro,
    CompletionContext,
    DocumentKind,
    EnvironmentChange,
    LatexContext,
    Link,
    LinkKind,
    ParsedDocument,
)
from citewarden.model.findings import (
    DEFAULT_SEVERITY,
    DOCS_URL,
    INDEX_CODES,
    Code,
    Finding,
    Fix,
    Location,
    Related,
    Severity,
    Span,
    TextEdit,
    code_doc_url,
    moved_finding,
    quoted,
    sound_span,
)
from citewarden.model.verdicts import (
    Issue,
    Match,
    Status,
    Tier,
    VenueInfo,
    Verdict,
    document_score,
)

__all__ = [
    "DEFAULT_SEVERITY",
    "DOCS_URL",
    "INDEX_CODES",
    "BibContext",
    "BibFormat",
    "Citation",
    "CitationKind",
    "CitationMacro",
    "Code",
    "CompletionContext",
    "DocumentKind",
    "Entry",
    "EnvironmentChange",
    "Field",
    "Finding",
    "Fix",
    "Issue",
    "LatexContext",
    "Link",
    "LinkKind",
    "Location",
    "Match",
    "ParsedBibliography",
    "ParsedDocument",
    "Related",
    "Severity",
    "Span",
    "Status",
    "TextEdit",
    "Tier",
    "VenueInfo",
    "Verdict",
    "code_doc_url",
    "document_score",
    "moved_finding",
    "quoted",
    "sound_span",
]
