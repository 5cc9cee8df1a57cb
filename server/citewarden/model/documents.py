"""Parsed documents: citations, links, citation macros and the summary of one .tex /
.md file (:class:`ParsedDocument`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from citewarden.model.findings import Finding, Span


class CitationKind(StrEnum):
    CITE = "cite"  # an ordinary citation that appears in the text
    NOCITE = "nocite"  # \nocite{k} / YAML nocite: a reference listed without a citation


@dataclass(frozen=True, slots=True)
class Citation:
    """One cited key at one place.  ``span`` covers the key only; ``command_span`` the whole
    command (``\\citep[p.~3]{a,b}``) or the whole bracketed pandoc group."""

    key: str
    span: Span
    command: str
    command_span: Span
    kind: CitationKind = CitationKind.CITE


@dataclass(frozen=True, slots=True)
class CompletionContext:
    """Where a citation key is being typed: ``prefix`` is the part of the key before the
    cursor, ``span`` the whole partial key a completion replaces (it extends right over key
    characters after the cursor)."""

    prefix: str
    span: Span


class LinkKind(StrEnum):
    INCLUDE = "include"  # \input, \include, \subfile, \import, \subimport
    BIBLIOGRAPHY = "bibliography"  # \bibliography, \addbibresource, YAML bibliography


@dataclass(frozen=True, slots=True)
class Link:
    """A reference from a document to another file, as written (``target`` is unresolved).

    ``base`` is the directory given by ``\\import{dir}{file}`` style commands, if any.
    ``glob`` marks a biblatex resource whose name is a pattern (``\\addbibresource[glob]``).
    ``beside`` marks a path relative to the file naming it (subfiles' ``\\subfix{path}``);
    other bibliography names are read from the root document's folder.
    """

    kind: LinkKind
    target: str
    span: Span
    command: str
    base: str | None = None
    glob: bool = False
    beside: bool = False


class DocumentKind(StrEnum):
    LATEX = "latex"
    MARKDOWN = "markdown"


@dataclass(frozen=True, slots=True)
class CitationMacro:
    """A LaTeX macro whose use cites: a wrapper (``\\newcommand{\\mt}[2]{\\cite{#1} and
    \\cite{#2}}``), an alias (``\\let\\ml\\citep``) or a macro whose body cites fixed keys
    (``\\newcommand{\\wn}{\\cite{a}}``: those count only where the macro is used)."""

    name: str
    #: the arguments, one letter each: ``o`` optional ``[..]``, ``m`` mandatory ``{..}``,
    #: ``s`` an optional star (the spec letters of ``\\NewDocumentCommand``)
    pattern: str = "m"
    #: 1-based numbers of the parameters (positions in ``pattern``) that hold keys
    keys: tuple[int, ...] = (1,)
    #: ``\\let`` alias: read exactly like this citation command
    like: str = ""
    #: the body cites keys of its own
    fixed: bool = False
    #: a macro read like an include command (:attr:`like` ``input``, ``include``,
    #: ``subfile``): the name it passes to it, ``#1`` standing for its argument
    #: (``\\newcommand{\\chap}[1]{\\input{chapters/#1}}``: ``chapters/#1``)
    template: str = ""
    #: the citation commands its body gives keys to (``cite`` for ``\\cite{#1}``): where
    #: every one of them is silenced, the macro cites nothing
    calls: tuple[str, ...] = ()


#: a redefinition in an environment's begin code: (the command, whether it makes it write
#: nothing, whether it is global, the command a ``\\let`` copies into it or "")
EnvironmentChange = tuple[str, bool, bool, str]


@dataclass(frozen=True, slots=True)
class LatexContext:
    """What a LaTeX file inherits from the files of its project read before it."""

    macros: tuple[CitationMacro, ...] = ()
    #: ``\\newif`` flags with a value known for the whole project
    flags: tuple[tuple[str, bool], ...] = ()
    #: names of macros with :attr:`CitationMacro.fixed` bodies used somewhere in the project
    used: frozenset[str] = frozenset()
    #: where each macro of ``macros`` defined outside this file applies from, in document
    #: order: (name, -1) from the start, (name, i) after the file's include link number
    #: ``i`` (0-based); a macro not listed does not apply here.  None: all apply everywhere.
    starts: tuple[tuple[str, int], ...] | None = None
    #: names of the ``\\newif`` flags the files of the project define or set: a file
    #: without a ``\\newif`` of its own is searched for settings of these only
    flag_names: frozenset[str] = frozenset()
    #: how the project's packages read braces in citation keys (``"biblatex"``, ``"cite"``;
    #: ``""``: as LaTeX's own ``\\cite``), for a file that loads none of them itself
    key_braces: str = ""
    #: the verbatim-like environments the files of the project define
    #: (``\\DefineVerbatimEnvironment{code}{Verbatim}{}`` and the like), skipped everywhere
    verbatim_envs: frozenset[str] = frozenset()
    #: the ``label=`` of the biblatex resources the files of the project declare, with the
    #: resource: a refsection of any of them may name one
    resource_labels: tuple[tuple[str, str], ...] = ()
    #: the characters the files of the project make short verbatim (``\\MakeShortVerb``)
    short_verbs: frozenset[str] = frozenset()
    #: the root's ``\\cite`` is LaTeX's own in its body (one optional argument, then the
    #: key list undelimited), so in the files it includes too
    plain_cite: bool = False
    #: a file of the project has bibunits' units, whose package defines ``\\nocite*``
    bibunits: bool = False
    #: the file is read at the root's preamble's top level after a package whose
    #: ``\\nocite`` writes at once (natbib, cite, harvard; its name): a ``\\nocite`` at
    #: the file's top level cites nothing
    lost_nocite: str = ""
    #: multibib's ``\\newcites`` suffixes of the project's files: ``\\nocitesw{*}`` cites
    #: the entries of the ``\\bibliographysw`` files only, in any file
    newcites: tuple[str, ...] = ()
    #: the plain-text macros of the project's files defined one way only, (name, body):
    #: a citation key written with them is cited expanded (``\\cite{\\mainref}``)
    text_macros: tuple[tuple[str, str], ...] = ()
    #: where each of ``text_macros`` defined outside this file applies from, in document
    #: order, as :attr:`starts` says it of ``macros``.  None: all apply everywhere.
    text_macro_starts: tuple[tuple[str, int], ...] | None = None
    #: a file of the project loads jurabib, whose ``\\citefield[..]{field}{keys}`` cites
    #: its second argument
    jurabib: bool = False
    #: citation commands the files of the project read before this one, or through its
    #: include links, redefine to write nothing (``\\renewcommand\\cite[1]{}``) or define
    #: again, in document order: (name, -1, True) silenced where the file starts, (name,
    #: i, silences) after the file's include link number ``i`` (0-based)
    silenced: tuple[tuple[str, int, bool], ...] = ()
    #: the environments the files of the project define whose begin code redefines a
    #: command (:attr:`ParsedDocument.environment_codes`), the last definition of each name
    environment_codes: tuple[tuple[str, tuple[EnvironmentChange, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class ParsedDocument:
    """Summary of one .tex / .md / .qmd / .Rmd file: everything the checks need."""

    path: Path
    kind: DocumentKind
    citations: tuple[Citation, ...] = ()
    links: tuple[Link, ...] = ()
    #: ``\\nocite{*}`` or YAML ``nocite: '@*'`` present.
    nocite_all: bool = False
    #: ``% !TEX root = ../main.tex`` value, as written.
    magic_root: str | None = None
    #: True for a LaTeX document with ``\\documentclass`` (a root candidate).
    is_root: bool = False
    #: Keys the document defines itself, with their spans: ``\\bibitem`` keys of a
    #: thebibliography environment and the biblatex entry sets the document makes
    #: (``\\defbibentryset{set}{..}``, ``\\mcite{set,*a,*b}``) (LaTeX), the ``id`` of each
    #: CSL item of a YAML ``references:`` field (Markdown, metadata files).
    bibitems: tuple[tuple[str, Span], ...] = ()
    #: 0-based line numbers on which findings are suppressed by an ignore comment.
    suppressed_lines: frozenset[int] = frozenset()
    #: Problems found while reading (encoding, unreadable ...).
    problems: tuple[Finding, ...] = ()
    #: LaTeX macros this file defines around citation commands
    #: (``\\newcommand{\\inlinecite}[1]{\\citen{#1}}``, ``\\let\\ml\\citep``); a project
    #: passes them on (a :class:`LatexContext`) to the files read after this one.
    citation_macros: tuple[CitationMacro, ...] = ()
    #: ``\\newif`` flags: (name, value) for each value this file sets a flag to, (name,
    #: None) for a flag it defines without setting it.
    flags: tuple[tuple[str, bool | None], ...] = ()
    #: the ``backend=`` option of ``\\usepackage[...]{biblatex}``, lower case, if given.
    bib_backend: str | None = None
    #: the encoding the file declares for the .bib files biber reads (biblatex's
    #: ``bibencoding=``, else inputenc's option), lower case; ``""``: none
    bib_encoding: str = ""
    #: resources of the biblatex refsections in which a ``\\nocite{*}`` stands (it cites
    #: every entry of those bibliographies only), as written
    nocite_all_in: tuple[str, ...] = ()
    #: biblatex refsections with resources of their own, and bibunits' units: (start,
    #: end, resources as written); a citation between ``start`` and ``end`` reads those
    #: resources only (none: a unit without ``\\putbib``)
    refsections: tuple[tuple[int, int, tuple[str, ...]], ...] = ()
    #: where each biblatex refsection start or end stands, with resources or without
    #: (:func:`~citewarden.parsing.latex_refsections.marks`): a section open when the file
    #: is read ends there, one begun in it runs on after it in the file including it
    refsection_marks: tuple[int, ...] = ()
    #: those of :attr:`refsection_marks` that end a section (``\\end{refsection}``,
    #: ``\\endrefsection``); the others begin one
    refsection_ends: tuple[int, ...] = ()
    #: where each ``\\nocite{*}`` stands (it cites every entry of the section it is in)
    nocite_all_at: tuple[int, ...] = ()
    #: biblatex's ``refsection=`` option as this file gives it (``"chapter"``, ...; ``""``:
    #: not given), and where each ``\\part``, ``\\chapter``, ``\\section`` and
    #: ``\\subsection`` stands, with its name (``chapter*`` when starred): with the option,
    #: those of its level begin a new refsection
    #: (:mod:`~citewarden.parsing.latex_refsection_reset`)
    refsection_reset: str = ""
    headings: tuple[tuple[int, str], ...] = ()
    #: the units of :attr:`refsections` are bibunits' (``bibunit`` environments, or the
    #: sections of ``\\bibliographyunit[\\chapter]``), BibTeX's, not biblatex's
    bibunits: bool = False
    #: bibunits' default bibliography this file leaves (the files of its last
    #: ``\\defaultbibliography``), and whether it is set in the body, so written to the
    #: .aux, rather than in the preamble; a bare ``\\putbib`` of a file that sets none
    #: reads the project's
    default_bibliography: tuple[str, ...] = ()
    default_in_body: bool = False
    #: every bibunits default the file sets: (offset, its files as written with their
    #: spans, set in the body); and each
    #: unit with a bare ``\\putbib``: (the unit's start, the ``\\putbib``'s offset).  The
    #: project reads them in document order (a default set in an included file holds for
    #: the units after the ``\\include``).
    bibunit_defaults: tuple[tuple[int, tuple[tuple[str, int, int], ...], bool], ...] = ()
    bare_putbibs: tuple[tuple[int, int], ...] = ()
    #: where ``\\begin{document}`` stands (-1: the file has none, as an included file); a
    #: file ``\\input`` before it is read in the preamble
    body_start: int = -1
    #: where the file's ``\\end{document}`` stands, at which TeX stops reading the whole
    #: document (-1: none); in a file read through ``\\input`` what its includers hold
    #: after the link is not read either
    document_end: int = -1
    #: a root whose body reads ``\\cite`` as LaTeX's own (one optional argument, then the
    #: key list undelimited): what its included files inherit
    plain_cite: bool = False
    #: what the packages this file loads say about the bibunits citations copied to the
    #: main list: ``"all"`` (bibunits with ``globalcitecopy``), ``"natbib"`` (natbib is
    #: loaded: its starred commands are its own), or ``""``
    cite_copy: str = ""
    #: loads a package that trims the spaces around citation keys (``cite``, ``overcite``)
    cite_trims: bool = False
    #: how the packages this file loads read braces in citation keys (``"biblatex"``,
    #: ``"cite"``; ``""``: it loads neither), and whether a key list of it holds braces
    key_braces: str = ""
    braced_keys: bool = False
    #: ``\\nocite`` commands of the preamble, at its top level, after a package whose
    #: ``\\nocite`` writes nothing there (natbib, cite, harvard): (command span, package);
    #: their keys are not citations
    lost_nocites: tuple[tuple[Span, str], ...] = ()
    #: where the preamble loads the first package whose ``\\nocite`` writes at once, and
    #: its name ((-1, ""): none): a file included at the top level after it loses its
    #: ``\\nocite`` commands too
    nocite_now_at: tuple[int, str] = (-1, "")
    #: the verbatim-like environments this file defines (the project's other files skip
    #: them too)
    verbatim_envs: frozenset[str] = frozenset()
    #: the ``label=`` of each biblatex resource this file declares, with the resource
    resource_labels: tuple[tuple[str, str], ...] = ()
    #: the folders of the LaTeX ``\\input@path`` this file sets
    #: (``\\def\\input@path{{chapters/}{figures/}}``), where LaTeX looks for the files it
    #: includes after the folder it runs in and TEXINPUTS
    input_path: tuple[str, ...] = ()
    #: the characters ``\\MakeShortVerb`` leaves short verbatim at the end of this file
    short_verbs: frozenset[str] = frozenset()
    #: loads chapterbib (without ``gather``, ``duplicate`` or ``rootbib``): each
    #: ``\\include``d file is a unit with its own .aux and bibliography
    chapterbib: bool = False
    #: each citation macro this file defines, with the number of include links before its
    #: definition (where it starts to apply, in document order)
    macro_links: tuple[tuple[str, int], ...] = ()
    #: macros without parameters whose body is plain text, (name, body) in the order
    #: defined: a file name may be written with them (``\\bibliography{\\bibfile}``)
    text_macros: tuple[tuple[str, str], ...] = ()
    #: each of :attr:`text_macros` with the number of include links before its definition
    text_macro_links: tuple[tuple[str, int], ...] = ()
    #: the macros a citation key of the file is written with (``\\cite{\\mainref}``):
    #: LaTeX writes the key expanded, so the project's :attr:`text_macros` apply to it
    macro_keys: tuple[str, ...] = ()
    #: loads jurabib (its ``\\citefield`` names the field first, then the keys)
    jurabib: bool = False
    #: the citation commands the file redefines at its top level (or globally) to write
    #: nothing (``\\renewcommand\\cite[1]{}``, ``\\let\\nocite\\@gobble``) or defines again,
    #: in order: (name, number of its include links before it, whether it silences, True);
    #: and those a group of it silences (or defines again) where its include link number
    #: ``i`` stands: (name, i, silences, False)
    silenced: tuple[tuple[str, int, bool, bool], ...] = ()
    #: the numbers of its include links read inside a group: what their files redefine
    #: ends with the group
    grouped_includes: tuple[int, ...] = ()
    #: each ``\\newenvironment`` (or ``\\renewenvironment``) whose begin code redefines a
    #: command, in order: (its name, the redefinitions), which hold where the environment
    #: begins, in its group, in any file of the project
    environment_codes: tuple[tuple[str, tuple[EnvironmentChange, ...]], ...] = ()
    #: multibib's ``\\newcites`` suffixes: ``\\citesw`` cites for the bibliography of
    #: ``\\bibliographysw``, which BibTeX makes from ``sw.aux``
    newcites: tuple[str, ...] = ()
    #: each ``\\bibliographystyle{name}`` (the style BibTeX reads is the first of the
    #: project's .aux): the name as TeX writes it to the .aux, comments dropped, and the
    #: span of the argument
    bib_styles: tuple[tuple[str, Span], ...] = ()
    #: the files of the biblatex styles and packages it loads that may declare citation
    #: commands (``chicago-notes.cbx``, ``biblatex-chicago.sty``;
    #: :mod:`~citewarden.parsing.cite_styles`)
    style_files: tuple[str, ...] = ()
    #: The file was read but could not be parsed (memory ran out, the parser failed):
    #: what it cites, links and defines is not known (its ``file-unreadable`` problem
    #: says why).
    failed: bool = False
