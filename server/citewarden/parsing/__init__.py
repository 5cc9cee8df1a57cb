"""Parsers: text of one file -> a summary with exact spans.

This package's own module says what kind of file a path is (it imports none of the
readers); :func:`citewarden.parsing.dispatch.parse_file` picks the reader from the file
name.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

from citewarden.model import BibFormat, ParsedBibliography, ParsedDocument

Parsed = ParsedDocument | ParsedBibliography

LATEX_SUFFIXES = frozenset({".tex", ".ltx", ".latex"})
#: LaTeX packages and classes: read as LaTeX where a document loads them, not documents
PACKAGE_SUFFIXES = frozenset({".sty", ".cls"})
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".qmd", ".rmd"})
BIBTEX_SUFFIXES = frozenset({".bib", ".bibtex"})
CSL_JSON_SUFFIXES = frozenset({".json"})
YAML_SUFFIXES = frozenset({".yaml", ".yml"})
#: Every extension, in lower case and matched in any case, of a file the walk of a folder
#: takes and ``citewarden check`` accepts (the server watches these and the packages').
PROJECT_SUFFIXES = (
    LATEX_SUFFIXES | MARKDOWN_SUFFIXES | BIBTEX_SUFFIXES | CSL_JSON_SUFFIXES | YAML_SUFFIXES
)
#: Quarto / pandoc project metadata files (their ``bibliography:`` applies to documents below).
METADATA_NAMES = frozenset({"_quarto.yml", "_quarto.yaml", "_metadata.yml", "_metadata.yaml"})


#: knitr's inline R code, the whole of a metadata value
_INLINE_R = re.compile(r"`r[ \t][^`]*+`")


def is_inline_r(value: str) -> bool:
    """A front matter value that is knitr's inline R code (``bibliography: "`r
    here::here('refs.bib')`"``), which R Markdown and Quarto run before pandoc reads the
    document: what it names is known only then."""
    return _INLINE_R.fullmatch(value.strip()) is not None


def is_document(path: Path) -> bool:
    """True for a LaTeX or Markdown document."""
    suffix = path.suffix.lower()
    return suffix in LATEX_SUFFIXES or suffix in MARKDOWN_SUFFIXES


def is_latex(path: Path) -> bool:
    """A LaTeX document, package or class."""
    suffix = path.suffix.lower()
    return suffix in LATEX_SUFFIXES or suffix in PACKAGE_SUFFIXES


def is_markdown(path: Path) -> bool:
    return path.suffix.lower() in MARKDOWN_SUFFIXES


def is_metadata(path: Path) -> bool:
    return path.name.lower() in METADATA_NAMES


def is_bibliography(path: Path) -> bool:
    """True for a file that can only be a bibliography (.bib); CSL files are bibliographies
    only when a document names them or the command line names them to check."""
    return path.suffix.lower() in BIBTEX_SUFFIXES


def is_csl(path: Path) -> bool:
    """A CSL-JSON or CSL-YAML file by its name (not a project metadata file)."""
    suffix = path.suffix.lower()
    return (suffix in CSL_JSON_SUFFIXES or suffix in YAML_SUFFIXES) and not is_metadata(path)


def bibliography_format(path: Path) -> BibFormat:
    suffix = path.suffix.lower()
    if suffix in CSL_JSON_SUFFIXES:
        return BibFormat.CSL_JSON
    if suffix in YAML_SUFFIXES:
        return BibFormat.CSL_YAML
    return BibFormat.BIBTEX


#: what pandoc reads a bibliography as, by its extension as written (2.17, 3.6.1 and 3.9
#: checked); any other stops it: "Could not determine bibliography format"
_PANDOC_EXTENSIONS = {
    ".bib": "biblatex",
    ".biblatex": "biblatex",
    ".bibtex": "bibtex",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
}


def pandoc_bibliography_format(name: str, pandoc_2: bool) -> str | None:
    """The format pandoc reads the bibliography file ``name`` in, by its extension:
    ``"biblatex"``, ``"bibtex"``, ``"json"``, ``"yaml"`` or ``"ris"``; None where pandoc
    cannot tell and stops.  pandoc 2 knows the lower-case extensions alone; pandoc 3 also
    ``.ris``, and ``.bib`` and ``.json`` in any case (by their MIME types)."""
    suffix = PurePath(name).suffix
    found = _PANDOC_EXTENSIONS.get(suffix)
    if found is not None or pandoc_2:
        return found
    if suffix == ".ris":
        return "ris"
    return {".bib": "biblatex", ".json": "json"}.get(suffix.lower())
