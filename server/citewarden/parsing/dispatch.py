"""Text of one file -> its summary, by the reader the file name calls for.

:func:`parse_file` raises only MemoryError: any other parser failure becomes a finding on
an empty summary, so one bad file cannot drop a whole project.  Memory running out is the
caller's to report: the command line ends with status 2 (as it does when reading runs out),
a workspace that outlives it (the language server's) makes it :func:`out_of_memory`.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from citewarden.model import (
    BibContext,
    BibFormat,
    Code,
    DocumentKind,
    Finding,
    LatexContext,
    Location,
    ParsedBibliography,
    ParsedDocument,
    Span,
)
from citewarden.pandoc_version import parse_version
from citewarden.parsing import (
    Parsed,
    bibliography_format,
    is_latex,
    is_markdown,
    is_metadata,
)
from citewarden.parsing.pandoc_syntax import PandocDialect, dialect_of
from citewarden.settings import Settings
from citewarden.text import has_lone_cr

_LONE_CR = re.compile(r"\r(?!\n)")

log = logging.getLogger(__name__)


#: What a file inherits from the files of its project read before it, or (a Markdown
#: document) the reading of its project's pandoc.
Context = LatexContext | BibContext | PandocDialect


def parse_file(
    path: Path, text: str, settings: Settings | None = None, context: Context | None = None
) -> Parsed:
    """Parse ``text`` (the content of ``path``) with the parser its name calls for.

    .tex/.ltx -> LaTeX; .md/.markdown/.qmd/.Rmd -> Markdown; _quarto.yml/_metadata.yml ->
    project metadata; .json -> CSL-JSON; other .yaml/.yml -> CSL-YAML; anything else
    (.bib, unknown) -> BibTeX.  ``context``: what a LaTeX file inherits from its project,
    or the ``@string`` macros a .bib file inherits, or the reading of the pandoc a Markdown
    document's project runs (:func:`markdown_dialect`).  A file given a LaTeX context is
    LaTeX whatever its name: its project reads it through ``\\input`` (``notes.txt``).
    """
    settings = settings or Settings()
    try:
        return _dispatch(path, text, settings, context)
    except MemoryError:
        raise
    except Exception as exc:  # a parser bug must not drop the file
        log.exception("parser failed on %s", path)
        return _failed(path, text, exc, isinstance(context, LatexContext))


def _dispatch(path: Path, text: str, settings: Settings, context: Context | None = None) -> Parsed:
    if is_latex(path) or isinstance(context, LatexContext):
        from citewarden.parsing.latex import parse_latex

        latex = context if isinstance(context, LatexContext) else None
        return parse_latex(path, tex_lines(text), settings.citation_commands, latex)
    if is_markdown(path):
        from citewarden.parsing.markdown import parse_markdown

        return parse_markdown(path, text, markdown_dialect(settings, context))
    if is_metadata(path):
        from citewarden.parsing.markdown import parse_metadata_yaml

        return parse_metadata_yaml(path, text)
    fmt = bibliography_format(path)
    if fmt is BibFormat.CSL_JSON:
        from citewarden.parsing.csl import parse_csl_json

        return parse_csl_json(path, text)
    if fmt is BibFormat.CSL_YAML:
        from citewarden.parsing.csl import parse_csl_yaml

        return parse_csl_yaml(path, text)
    from citewarden.parsing.bibtex import parse_bibtex

    return parse_bibtex(path, text, _macros(context))


def markdown_dialect(settings: Settings, context: Context | None) -> PandocDialect:
    """The pandoc a Markdown document is read as: the ``context``'s (its project's pandoc,
    passed on by the project), else that of the ``pandoc_version`` setting, else
    :func:`~citewarden.parsing.pandoc_syntax.dialect_of` an unknown version."""
    if isinstance(context, PandocDialect):
        return context
    return dialect_of(parse_version(settings.pandoc_version) if settings.pandoc_version else None)


def tex_lines(text: str) -> str:
    """``text`` with each lone ``\\r`` read as the line break TeX reads it as (TeX Live
    ends an input line at ``\\r``, ``\\n`` or ``\\r\\n``; a ``%`` comment ends there too).
    One character for one, so every offset stays the same.  pandoc, unlike TeX, drops a
    lone ``\\r``: Markdown is read as it is."""
    return _LONE_CR.sub("\n", text) if has_lone_cr(text) else text


def _macros(context: Context | None) -> tuple[tuple[str, str], ...]:
    return context.macros if isinstance(context, BibContext) else ()


def reparse_file(
    path: Path,
    old: Parsed,
    old_text: str,
    new_text: str,
    settings: Settings | None = None,
    changed: tuple[int, int, int] | None = None,
    context: Context | None = None,
) -> Parsed:
    """Parse a new version of a file, reusing ``old`` where the parser supports it (BibTeX).

    ``changed`` is the edited region when the caller knows it: ``(start, old_end,
    new_end)``, ``old_text[start:old_end]`` replaced by ``new_text[start:new_end]``.
    """
    if isinstance(old, ParsedBibliography) and old.format is BibFormat.BIBTEX:
        try:
            from citewarden.parsing.bibtex import reparse_bibtex

            return reparse_bibtex(old, old_text, new_text, changed, _macros(context))
        except MemoryError:
            raise
        except Exception as exc:
            log.exception("incremental parse failed on %s", path)
            return _failed(path, new_text, exc, isinstance(context, LatexContext))
    return parse_file(path, new_text, settings, context)


def out_of_memory(path: Path) -> Parsed:
    """The empty summary of ``path`` whose parse ran out of memory, with the finding that
    says so in the command line's words."""
    return _unparsed(
        path,
        f"ran out of memory while reading {path.name}; a lower max_file_mb setting leaves "
        "larger files unread",
    )


def _failed(path: Path, text: str, exc: Exception, latex: bool = False) -> Parsed:
    """The empty summary of ``path`` whose parse failed (``latex``: read as LaTeX)."""
    message = f"could not parse {path.name}: {type(exc).__name__}: {exc}"
    return _unparsed(path, message, latex)


def _unparsed(path: Path, message: str, latex: bool = False) -> Parsed:
    problem = Finding(Code.FILE_UNREADABLE, Location(path, Span(0, 0)), message)
    if latex or is_latex(path):
        return ParsedDocument(path, DocumentKind.LATEX, problems=(problem,), failed=True)
    if is_markdown(path) or is_metadata(path):
        return ParsedDocument(path, DocumentKind.MARKDOWN, problems=(problem,), failed=True)
    return ParsedBibliography(
        path, bibliography_format(path), problems=(problem,), complete=False, failed=True
    )
