"""A ``\\nocite`` in the preamble after natbib, cite or harvard is loaded: it cites nothing.

LaTeX opens the .aux at ``\\begin{document}``, and LaTeX's own ``\\nocite`` keeps one
written before that for then.  natbib, cite and harvard define ``\\nocite`` anew, writing
to the .aux at once: in the preamble that goes nowhere, so BibTeX never sees the keys
(``\\nocite{*}`` included) and their entries are left out of the bibliography.  The
parser leaves such keys out of the citations (``ParsedDocument.lost_nocites``), so an
entry cited nowhere else is an orphan; this finding says why, and its fix moves the
command just after ``\\begin{document}``.  One inside ``\\AtBeginDocument{...}``, a
definition or a conditional is not at the preamble's top level and is read as before.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from citewarden.model import Code, Finding, Fix, Location, ParsedDocument, Span, TextEdit
from citewarden.text import line_ending

#: ``\\begin{document}`` as the parser finds it (``ParsedDocument.body_start``)
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")


def preamble_nocite_findings(path: Path, doc: ParsedDocument, text: str) -> list[Finding]:
    """A warning on each lost ``\\nocite`` of ``doc`` (``text`` its text), with a fix that
    moves it into the document."""
    found: list[Finding] = []
    begin = _BEGIN_DOCUMENT.match(text, doc.body_start) if doc.body_start >= 0 else None
    for span, package in doc.lost_nocites:
        command = text[span.start : span.end]
        fixes: tuple[Fix, ...] = ()
        if begin is not None and begin.start() >= span.end:
            after = begin.end()
            fixes = (
                Fix(
                    "Move it after \\begin{document}",
                    (
                        TextEdit(path, span, ""),
                        TextEdit(path, Span(after, after), line_ending(text) + command),
                    ),
                    preferred=True,
                ),
            )
        found.append(
            Finding(
                Code.NOCITE_IN_PREAMBLE,
                Location(path, span),
                f"\\nocite in the preamble cites nothing once {package} is loaded: its "
                "\\nocite writes to the .aux, which LaTeX opens at \\begin{document}, so "
                "BibTeX never sees these keys",
                fixes=fixes,
                data=MappingProxyType({"package": package}),
            )
        )
    return found
