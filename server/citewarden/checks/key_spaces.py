"""A space after a citation key: LaTeX looks the key up with the space.

LaTeX's ``\\cite`` drops the spaces before each key of a list but keeps those after it
(a line break is a space too), and so do natbib, biblatex, apacite, harvard and the
others: ``\\cite{smith2020 }`` looks up ``smith2020␣``, which no entry defines, and the
document shows "?".  BibTeX stops on the ``\\citation`` line ("White space in argument")
and leaves the entries it names out of the bibliography; biber reads the key trimmed, so
with biblatex the entry is listed but the citation in the text is lost (and a ``\\nocite``
is reported undefined).  Only the cite bundle (``cite``, ``overcite``) trims the spaces.

A space before a ``%`` counts (``\\cite{a %note`` ends in a space); a ``%`` right after
the key does not (the comment swallows the line break).  The finding is on the key, and
its fix deletes the spaces.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

from citewarden.model import (
    Code,
    Finding,
    Fix,
    Location,
    ParsedDocument,
    Span,
    TextEdit,
    quoted,
)

_SPACES = " \t\r\n"


def key_space_findings(path: Path, doc: ParsedDocument, text: str, bibtex: bool) -> list[Finding]:
    """The citations of ``doc`` (``text`` its text) whose key is followed by a space;
    ``bibtex``: BibTeX reads the project's citations (the message says it skips them)."""
    found: list[Finding] = []
    for cit in doc.citations:
        start, end = cit.span.start, cit.span.end
        if not cit.key or end >= len(text) or text[end] not in _SPACES:
            continue
        if text[start:end] != cit.key:  # the key is not written here (a macro's body)
            continue
        stop = end
        while stop < len(text) and text[stop] in _SPACES:
            stop += 1
        if stop >= len(text) or text[stop] not in ",}%":
            continue  # not the end of a key in a list (an argument read another way)
        edit = TextEdit(path, Span(end, stop), "")
        shown = text[end:stop].replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
        found.append(
            Finding(
                Code.KEY_SPACE,
                Location(path, Span(start, end)),
                f"space after citation key {quoted(cit.key)} in \\{cit.command} "
                f"({quoted(shown)}): LaTeX looks the key up with the space, which no entry "
                "defines" + (", and BibTeX skips the citation" if bibtex else ""),
                fixes=(Fix("Delete the space after the key", (edit,), preferred=True),),
                data=MappingProxyType({"command": cit.command}),
            )
        )
    return found
