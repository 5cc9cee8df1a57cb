"""LaTeX documents -> :class:`~citewarden.model.ParsedDocument`.

One left-to-right regex scan finds comments, escaped characters and the handful of commands
that matter (citations, includes, bibliography resources, ``\\bibitem``, ``\\documentclass``,
verbatim material; :mod:`~citewarden.parsing.latex_commands`); arguments are then read by
small brace/bracket matchers (:mod:`~citewarden.parsing.latex_args`).  Everything
else in the text is skipped by the regex engine, so the cost is close to one pass in C.

Recognised, as LaTeX, natbib, biblatex and apacite read them:

* citations: the ``\\cite`` family with starred and capitalised forms, natbib, biblatex
  (including the multicite commands with ``(..)(..)`` global notes and repeated
  ``[..][..]{keys}`` groups, and ``\\volcite[pre]{volume}[pages]{key}`` with its
  multicite forms ``\\volcites(..)(..)[pre]{volume}[pages]{key}...``), natbib aliases,
  apacite ``\\citeA<pre>[post]{k}``, ``\\nocite`` (``\\nocite{*}``
  sets ``nocite_all``), user commands given in ``extra_commands``, and wrapper macros the
  file defines (``\\newcommand{\\inlinecite}[1]{\\citen{#1}}``), which are also returned in
  ``citation_macros`` so a project can pass them on to the files it includes;
* links: ``\\input \\include \\subfile \\import \\subimport`` (and the ``*from`` variants of
  the import package), ``\\bibliography{a,b}``, ``\\addbibresource``, ``\\addglobalbib``,
  ``\\addsectionbib``;
* biblatex entry sets, keys of the document (in ``bibitems``) whose members are cited:
  ``\\defbibentryset{set}{a,b}`` and the mcite commands' ``\\mcite{set,*a,*b}``;
* ``\\bibitem[label]{key}`` keys, ``% !TEX root =`` magic comments (or, failing one, the
  parent named by ``\\documentclass[main.tex]{subfiles}``), ``\\documentclass``;
* ``% citewarden: ignore`` suppresses findings on its own line and the next.

Ignored: comments (a ``%`` not escaped by a backslash), ``\\iffalse ... \\fi`` (up to a
matching ``\\else`` or ``\\fi``), ``\\verb`` (any delimiter, starred),
``\\lstinline``/``\\mintinline``/``\\url`` arguments, the verbatim, Verbatim, lstlisting, minted,
comment and filecontents environments and those the file defines verbatim
(:func:`~citewarden.parsing.latex_static.verbatim_environments`; fancyvrb's given
``commandchars`` with the backslash read commands:
:mod:`~citewarden.parsing.latex_commandchars`), and everything after
``\\end{document}``.

Keys are split on commas and trimmed.  An empty slot (``\\cite{}``, ``\\cite{a,,b}``,
``\\cite{a,}``) yields a :class:`Citation` with key ``""`` and a zero-length span placed just
after the delimiter (``{`` or ``,``) that opens the empty slot, so checks can report
``empty-key`` there.  Keys containing ``#`` (macro parameters, as in a ``\\newcommand``
body) are not citations: their value is unknown.  A key written with macros of plain text
(``\\newcommand\\mainref{knuth84}``, of this file or of the project, before it in document
order) is cited expanded, as LaTeX writes it to the .aux; one with any other macro is not a
citation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from citewarden.model import (
    Citation,
    CitationKind,
    CitationMacro,
    Code,
    CompletionContext,
    DocumentKind,
    EnvironmentChange,
    Finding,
    LatexContext,
    Link,
    LinkKind,
    Location,
    ParsedDocument,
    Span,
    sound_span,
)
from citewarden.parsing import (
    cite_styles,
    latex_bibunits,
    latex_commandchars,
    latex_nocite_now,
    latex_refsection_reset,
    latex_refsections,
    latex_scopes,
    latex_static,
)
from citewarden.parsing.latex_args import (
    _IGNORE,
    _MAX_ARG,
    _MAX_CODE,
    _PAR,
    _SIMPLE_CITE_ARGS,
    _SUBFILES_CLASS,
    LIST_STAR,
    NATBIB_REREAD,
    IncludeLinks,
    KeyBraces,
    KeyMacros,
    _add_keys,
    _cite_groups,
    _close_brace,
    _is_definition,
    _macro_groups,
    _magic_root,
    _magic_root_at,
    _mcite_sets,
    _read_file_link,
    _read_import,
    _read_load_links,
    _single_arg,
    _skip,
    _skip_delimited_code,
    _skip_environment,
    _skip_inline_code,
    _split_keys,
    _trimmed,
    _volcite_groups,
    past_group,
    plain_key_bracket,
    reread_option_key,
    verbatim_options,
)
from citewarden.parsing.latex_commands import (
    _BEGIN,
    _BIBITEM,
    _BIBLIOGRAPHY,
    _BIBRESOURCE,
    _BIBSTYLE,
    _CITING,
    _CSNAME,
    _DEFINE,
    _DOCUMENTCLASS,
    _ENDINPUT,
    _ENTRYSET,
    _HREF,
    _IMPORT,
    _INCLUDE,
    _INLINE_CODE,
    _LOADCLASS,
    _MACRO,
    _MCITE,
    _MINTINLINE,
    _MULTI,
    _MULTIVOL,
    _NEWCITES,
    _NOCITE,
    _PACKAGE,
    _PRINT_ALL,
    _REFSECTION,
    _SINGLE,
    _VERB,
    _VOLCITE,
    MULTIBIB_CITES,
    _definition_tables,
    _Lexer,
    _tables,
    add_macro_role,
    is_builtin,
    multibib_list,
)
from citewarden.text import count_line_breaks

# ---------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------


def find_citation_macros(
    text: str, extra_commands: tuple[str, ...] = (), inherited: tuple[CitationMacro, ...] = ()
) -> tuple[CitationMacro, ...]:
    """The citation macros ``text`` defines (see :mod:`~citewarden.parsing.latex_static`)."""
    context = LatexContext(inherited)
    return parse_latex(Path("macros.tex"), text, extra_commands, context).citation_macros


#: Citation macros a file may define with the reader's table of commands rebuilt at each
#: definition; after that many, the rest of the file's definitions are read ahead and
#: the table is built once more.  A rebuild costs some milliseconds, more the more names
#: the table holds: 3 000 definitions, each followed by one, took over two minutes.
MANY_MACROS = 16


#: roles of commands whose argument TeX does not read as commands (code, URLs)
_CODE = frozenset({_VERB, _INLINE_CODE, _MINTINLINE, _HREF})


def _past_code(text: str, role: str, pos: int) -> int:
    """After ``\\verb``, ``\\lstinline``, ``\\url``, ``\\mintinline`` or ``\\href`` (a
    role of :data:`_CODE`; its name ends at ``pos``): where reading goes on."""
    if role == _VERB:
        return _skip_delimited_code(text, pos)
    if role != _HREF:
        return _skip_inline_code(text, pos, mint=role == _MINTINLINE)
    j = _skip(text, pos)
    if j < len(text) and text[j] == "{":
        k = _close_brace(text, j, raw=True, limit=_MAX_CODE)
        return k if k >= 0 else j + 1
    return pos


class _Skipped:
    """The branches TeX skips (:func:`~citewarden.parsing.latex_static.conditional_skips`,
    in order), asked about offsets in increasing order."""

    __slots__ = ("_at", "_regions")

    def __init__(self, regions: list[tuple[int, int]]) -> None:
        self._regions = regions
        self._at = 0

    def end_at(self, offset: int) -> int | None:
        """The end of the skipped branch holding ``offset``, or None."""
        regions = self._regions
        while self._at < len(regions) and regions[self._at][1] <= offset:
            self._at += 1
        if self._at < len(regions) and regions[self._at][0] <= offset:
            return regions[self._at][1]
        return None


@dataclass(slots=True)
class _Definitions:
    """What a file defines: its citation macros (the last definition of each name), where
    each is first defined, the bodies of fixed-key macros never used, its plain-text
    macros and its multibib lists."""

    own: dict[str, CitationMacro] = field(default_factory=dict)
    defined_at: dict[str, int] = field(default_factory=dict)
    unused: list[tuple[int, int]] = field(default_factory=list)
    text_macros: list[tuple[str, str]] = field(default_factory=list)
    newcites: list[str] = field(default_factory=list)


def _definition_at(
    text: str,
    start: int,
    pos: int,
    role: str,
    found: _Definitions,
    is_citing: Callable[[str], bool],
    needles: tuple[str, ...],
    builtin: frozenset[str],
    used: frozenset[str],
) -> list[CitationMacro]:
    """Read the definition (or ``\\newcites``) at ``text[start]`` (its name ends at
    ``pos``) into ``found``; -> the citation macros it defines."""
    if role == _NEWCITES:
        suffixes = _newcites(text, pos) if not _is_definition(text, start) else []
        found.newcites.extend(suffixes)
        macros = [
            CitationMacro(like + suffix, "", (), like=like)
            for suffix in suffixes
            for like in (*MULTIBIB_CITES, "nocite", "bibliography")
        ]
    else:
        named = latex_static.read_text_macro(text, start)
        if named is not None:
            found.text_macros.append(named)
        macro, a, b = latex_static.read_definition(text, start, is_citing, needles, builtin)
        macros = [] if macro is None else [macro]
        if (
            macro is not None
            and macro.fixed
            and not (macro.name in used or latex_static.is_used(text, macro.name, b))
        ):
            found.unused.append((a, b))
    for macro in macros:
        found.defined_at.setdefault(macro.name, start)
        found.own[macro.name] = macro
    return macros


def _read_ahead(
    text: str,
    extra: tuple[str, ...],
    context: LatexContext,
    skips: list[tuple[int, int]],
    found: _Definitions,
    pos: int,
) -> None:
    """Read the definitions of ``text`` from ``pos`` on into ``found``, each with the
    citation commands known where it stands, stopping where the reader does (verbatim
    material, code, skipped branches, ``\\end{document}``, ``\\endinput``)."""
    known = _tables(extra, context.macros + tuple(found.own.values()))
    builtin = _tables(extra).citing
    roles = dict(known.roles)
    citing = set(known.citing)
    odd = sorted(name for name in citing if "ite" not in name)
    commands, stops = _definition_tables()
    lexer = _Lexer(text, commands)
    skipped = _Skipped(skips)
    verbatim_envs = latex_static.verbatim_environments(text) | context.verbatim_envs
    top: latex_static.TopLevel | None = None
    n = len(text)
    while pos < n:
        token = lexer.next(pos, n, directives_only=True)
        if token is None:
            break
        start, pos, m = token
        if skips and (end := skipped.end_at(start)) is not None:
            pos = end
            continue
        if m is None:
            continue
        name = m.group(2)
        if name is None:
            if m.group(1) is not None:  # \end{document}
                break
            continue
        role = stops.get(name)
        if role is None:
            continue  # a name the scanner matched past its table's nesting
        if role in (_DEFINE, _NEWCITES):
            needles = ("ite", *odd) if len(odd) <= 8 else ()
            macros = _definition_at(
                text, start, pos, role, found, citing.__contains__, needles, builtin, context.used
            )
            for macro in macros:
                given = add_macro_role(roles, macro)
                if given in _CITING or given == _MACRO:
                    citing.add(macro.name)
                    if "ite" not in macro.name:
                        odd.append(macro.name)
        elif role in _CODE:
            pos = _past_code(text, role, pos)
        elif role == _BEGIN:
            pos = _skip_environment(text, pos, verbatim_envs)
        elif role == _ENDINPUT:
            top = top or latex_static.TopLevel(text)
            if (end := top.endinput_end(start, pos)) is not None:
                n = end


#: TeX's notation for the backslash's character code (lowercase hexadecimal digits only)
_CARET_BACKSLASH = "^^5c"


def parse_latex(
    path: Path,
    text: str,
    extra_commands: tuple[str, ...] = (),
    context: LatexContext | None = None,
) -> ParsedDocument:
    """Summarise one LaTeX file: citations, links, ``\\bibitem`` keys, root hints and
    suppressed lines, all with exact code-point spans.  Never raises on any input.

    ``context``: what the files of the project read before this one define (citation
    macros, ``\\newif`` flags) and which fixed-key macros the project uses."""
    context = context or LatexContext()
    if _CARET_BACKSLASH in text:
        # TeX reads ^^5c as a backslash (^^5ccite{a} is \cite{a}): as long, spaces before
        text = text.replace(_CARET_BACKSLASH, "   \\")
    # fancyvrb's verbatim text that reads commands (commandchars), with LaTeX's characters
    command_envs = latex_commandchars.command_environments(text)
    command_bodies = latex_commandchars.command_bodies(text, command_envs)
    text = latex_commandchars.read_as_tex(text, command_bodies)
    extra = tuple(extra_commands)
    tables = _tables(extra, context.macros)
    roles = tables.roles
    builtin = _tables(extra)
    # citation macros this file defines, each applying from its definition on (read in
    # the scan: the tables grow as they are found); those of the project apply from where
    # they are defined in document order (before an include of this file, or in it)
    sets, defined = latex_static.find_flags(text, context.flag_names)
    known_flags = latex_static.flag_values(context.flags, sets, defined)
    skips = latex_static.conditional_skips(text, known_flags)
    short = latex_static.short_verbatim(text, context.short_verbs)
    verbatim = short
    # as LaTeX's, for other files, the environments reading commands with a backslash
    reading = frozenset(name for name, chars in command_envs.items() if chars[0] == "\\")
    own_verbatim_envs = latex_static.verbatim_environments(text) - reading
    verbatim_envs = own_verbatim_envs | context.verbatim_envs
    if verbatim:
        skips = latex_static.merged(skips, verbatim)
    skipped = _Skipped(skips)
    if command_bodies:  # fancyvrb's verbatim text read: "%" starts no comment there
        verbatim = latex_static.merged(verbatim, sorted(b[:2] for b in command_bodies.values()))
    definitions = _Definitions()
    # the plain-text macros a key may be written with: the project's, then the file's own
    own = definitions.own
    defined_at = definitions.defined_at
    # bodies of fixed-key macros never used: their citations do not count
    unused = definitions.unused
    read_ahead = False  # the file's definitions were all read (MANY_MACROS)
    order = _MacroOrder(defined_at, context.starts, builtin.roles) if context.macros else None
    lexer = _Lexer(text, tables.commands, verbatim)
    citations: list[Citation] = []
    links: list[Link] = []
    includes = IncludeLinks(text, links)
    key_macros = KeyMacros(
        dict(context.text_macros), len(text) + _MAX_ARG, context.text_macro_starts, includes
    )
    text_macro_links: list[tuple[str, int]] = []  # each of the file's, after how many includes
    # read when the first \begin{refsection}, \newrefsection or \refsection is met (the
    # resources' links go first)
    refsections: list[tuple[int, int, tuple[str, ...]]] = []
    refsections_read = False
    units = latex_bibunits.BibUnits([])
    magic: str | None = None  # the first % !TEX root comment's value
    backend: str | None = None
    chapterbib: bool | None = None
    nocite_in: list[str] = []
    nocite_at: list[int] = []  # where each \nocite{*} stands
    bibitems: list[tuple[str, Span]] = []
    entry_sets: list[tuple[str, Span]] = []  # biblatex sets the file defines
    problems: list[Finding] = []
    styles: list[tuple[str, Span]] = []
    suppressed: set[int] = set()
    nocite_all = is_root = False
    body_start = -1  # where \begin{document} stands
    document_end = -1  # where \end{document} stands
    # \cite is LaTeX's own in the body (:func:`_plain_cite`): the class and packages so far
    plain_class, plain_packages = False, True
    # in an included file: as in the root's body, which reads it
    plain_cite = context.plain_cite
    root_plain_cite = False
    # a package whose \nocite writes at once, loaded in the preamble: (package, \nocite
    # commands after it at the preamble's top level, which cite nothing)
    nocite_now: str | None = context.lost_nocite or None
    nocite_now_at = -1
    cite_trims = False  # loads a package that trims citation keys
    own_jurabib = False  # loads jurabib
    natbib = False  # loads natbib
    jurabib = context.jurabib  # it or the project: \citefield[..]{field}{keys}
    # citation commands redefined to write nothing: the project's, where its files are
    # read, and the file's own, to the end of their group
    silencing = latex_scopes.Silencing(text, context.silenced, includes, short)
    # environments whose begin code redefines a command: where each is defined, in order
    env_codes = latex_scopes.environment_silencings(text)
    env_read = 0  # of them, those before the scan
    # (the project's other files' first: a file that defines one uses its own from there)
    begin_codes: dict[str, tuple[EnvironmentChange, ...]] = dict(context.environment_codes)
    project_macros = {macro.name: macro for macro in reversed(context.macros)}
    loads_bibunits = False  # whose \nocite* reads a key list
    style_files: list[str] = []  # biblatex style files that may declare citation commands
    # how the packages loaded read braces in citation keys: this file's own, else its
    # project's (the root's \usepackage of biblatex holds for the chapters it includes)
    own_braces: KeyBraces | None = None
    braces: KeyBraces = "biblatex" if context.key_braces == "biblatex" else "latex"
    if context.key_braces == "cite":
        braces = "cite"
    braced_keys = False  # a key list of the file holds braces
    lost_nocites: list[tuple[Span, str]] = []
    preamble_top: latex_static.TopLevel | None = None
    subfiles_parent: str | None = None
    counted_to = counted_line = 0  # line numbers of ignore comments, counted incrementally
    # the verbatim text after the options of an environment just read: skipped
    verbatim_body: tuple[int, int] | None = None
    n = len(text)
    top: latex_static.TopLevel | None = None  # for \endinput
    # automatic units, known before the first citation; a default for other files' units
    if "\\bibliographyunit" in text or "\\defaultbibliography" in text:
        refsections_read = True
        refsections, units = _units(text, links, context.resource_labels)
    pos = 0
    while pos < n:
        token = lexer.next(pos, n, directives_only=True)
        if token is None:
            break
        start, pos, m = token
        if skips and (end := skipped.end_at(start)) is not None:
            pos = end
            continue
        if verbatim_body is not None and start >= verbatim_body[0]:
            body_end = verbatim_body[1]
            verbatim_body = None
            if start < body_end:
                pos = body_end
                continue
        if m is None:
            if _IGNORE.search(text, start, pos):
                counted_line += count_line_breaks(text, counted_to, start)
                counted_to = start
                suppressed.update((counted_line, counted_line + 1))
            elif magic is None and text.find("!", start, pos) >= 0:
                magic = _magic_root_at(text, start)
            continue
        name = m.group(2)
        if name is None:
            if m.group(1) is not None:  # \end{document}: TeX reads no further
                if magic is None:
                    magic = _magic_root(text[start:])  # a magic comment may follow it
                document_end = start
                break
            continue  # "\\" or "\%"
        role = roles.get(name)
        if role is None:
            continue  # a name the scanner matched past its table's nesting
        if role == _CSNAME:  # \csname cite\endcsname{a} is \cite{a}
            csname = _CSNAME_NAME.match(text, pos)
            role = roles.get(csname.group(1), "") if csname is not None else ""
            if csname is None or (role not in _CITING and role != _MACRO):
                continue
            name, pos = csname.group(1), csname.end()
        if role == _DEFINE and (redefinition := latex_static.redefined(text, start)) is not None:
            # silenced, or defined again (\let\cite\relax, then \newcommand)
            gone, silences = redefinition
            silencing.define(start, gone, silences, gone in tables.citing)
        if role in (_DEFINE, _NEWCITES):
            macros = (
                []
                if read_ahead
                else _definition_at(
                    text,
                    start,
                    pos,
                    role,
                    definitions,
                    tables.citing.__contains__,
                    latex_static.needles_for(tables.citing),
                    builtin.citing,
                    context.used,
                )
            )
            key_macros.define(definitions.text_macros)
            if len(text_macro_links) < len(definitions.text_macros):
                before = _includes_before(links, start)
                text_macro_links += [
                    (name, before) for name, _ in definitions.text_macros[len(text_macro_links) :]
                ]
            # a name the table has (the project's macro read again, a redefinition) keeps
            # its reading: the table would be the same
            if any(macro.name not in roles for macro in macros):
                if len(own) > MANY_MACROS:
                    # one more table, with every macro of the file: each applies from its
                    # definition on (the order says where)
                    _read_ahead(text, extra, context, skips, definitions, pos)
                    read_ahead = True
                    order = _MacroOrder(defined_at, context.starts, builtin.roles)
                tables = _tables(extra, context.macros + tuple(own.values()))
                roles = tables.roles
                lexer = _Lexer(text, tables.commands, verbatim)
            for macro in macros:
                default = (
                    latex_static.optional_default(text, start)
                    if latex_static.cites_default(macro)
                    else None
                )
                if default is not None and (
                    macro.name in context.used
                    or latex_static.is_used(text, macro.name, pos, bare=True)
                ):  # its default cites where the macro is used without the argument
                    span = Span(*default)
                    _add_keys(citations, text, *default, macro.name, span, CitationKind.CITE)
            continue  # the body is read on: a citation of fixed keys in it counts if used
        if role in _CITING or role == _MACRO:
            if _is_definition(text, start) or text.endswith("\\string", 0, start):
                continue
            if unused and any(a <= start < b for a, b in unused):
                continue
            if order is not None and not order.applies(name, start, links):
                continue  # used before its definition: TeX stops on an undefined command
            if silencing.silences(name, start, lambda n: own.get(n) or project_macros.get(n)):
                continue  # redefined to write nothing (or a macro calling such commands)
        if role == _MACRO:
            full = name + ("*" if m.group(3) else "")
            groups, end = _macro_groups(text, pos, tables.macros[name])
            command_span = sound_span(start, end)
            for content_start, content_end in groups:
                if _add_keys(
                    citations,
                    text,
                    content_start,
                    content_end,
                    full,
                    command_span,
                    CitationKind.CITE,
                    braces,
                    key_macros,
                ):
                    nocite_all = (
                        _nocite_star(start, refsections, nocite_in, nocite_at) or nocite_all
                    )
            pos = max(pos, end)
        elif role in _CITING:
            full = name + ("*" if m.group(3) else "")
            kind = CitationKind.NOCITE if role == _NOCITE else CitationKind.CITE
            if (
                kind is CitationKind.NOCITE
                and nocite_now
                and body_start < 0
                and (is_root or bool(context.lost_nocite))
            ):
                preamble_top = preamble_top or latex_static.TopLevel(text)
                if preamble_top.at(start):  # not in a hook, a definition or a conditional
                    groups, end = _cite_groups(text, pos, False)
                    lost_nocites.append((sound_span(start, end), nocite_now))
                    pos = max(pos, end)
                    continue
            if name == "@citex" and braces == "biblatex":
                continue  # LaTeX's own, which biblatex leaves: biber is never told
            if m.group(3) and name == "nocite" and braces == "biblatex":
                continue  # biblatex's \nocite has no star ("doesn't match its definition")
            if m.group(3) and (
                _star_is_key(name, plain_cite)
                or (name == "nocite" and not (context.bibunits or loads_bibunits))
                or (natbib and braces == "latex" and name in _NATBIB_UNSTARRED)
            ):
                # LaTeX's own \cite*{a} and \nocite*{f} cite "*": every entry; so does the
                # \nocite*{f} of any package but bibunits (and biblatex) that keeps it, and
                # natbib's \citeyear*{a}
                nocite_all = _nocite_star(start, refsections, nocite_in, nocite_at) or nocite_all
                continue
            if (
                name == "nocite"
                and not (context.bibunits or loads_bibunits)
                and (at := _skip(text, pos)) < n
                and text[at] == "["
            ):
                # \nocite has no optional argument: LaTeX's (natbib's ...) cites "[" and
                # biblatex's stops ("doesn't match its definition"); {keys} is text
                if braces != "biblatex":
                    span = Span(at, at + 1)
                    citations.append(Citation("[", span, full, sound_span(start, at + 1), kind))
                pos = at + 1
                continue
            if jurabib and name == "citefield":
                pos = past_group(text, pos)  # jurabib's: the field, then the keys
            simple = _SIMPLE_CITE_ARGS.match(text, pos) if role in _SINGLE else None
            if simple is not None:
                end = simple.end()
                command_span = sound_span(start, end)
                if _add_keys(citations, text, *simple.span(1), full, command_span, kind):
                    suffix = _list_suffix(name, [*definitions.newcites, *context.newcites])
                    nocite_all = (
                        _nocite_star(start, refsections, nocite_in, nocite_at, suffix) or nocite_all
                    )
                pos = end
                continue
            if plain_cite and name == "cite" and not m.group(3):
                at = plain_key_bracket(text, pos)
                if at >= 0:  # LaTeX's own \cite: [see][]{a} cites "[" (a is text)
                    span = Span(at, at + 1)
                    citations.append(Citation("[", span, full, sound_span(start, at + 1), kind))
                    pos = at + 1
                    continue
            rereads = (plain_cite and name == "cite" and not m.group(3)) or (
                natbib and name in NATBIB_REREAD
            )
            if (
                rereads
                and braces == "latex"
                and (reread := reread_option_key(text, pos)) is not None
            ):
                ks, ke, pos = reread
                _add_keys(citations, text, ks, ke, full, sound_span(start, pos), kind)
                continue
            if role in (_VOLCITE, _MULTIVOL):
                groups, end = _volcite_groups(text, pos, role == _MULTIVOL)
            else:
                groups, end = _cite_groups(text, pos, role == _MULTI, not is_builtin(name))
            command_span = sound_span(start, end)
            first = len(citations)
            for ks, ke in groups:
                if ke < 0:
                    end = ks  # unclosed: keep scanning inside it
                    continue
                braced_keys = braced_keys or text.find("{", ks, ke) >= 0
                if _add_keys(citations, text, ks, ke, full, command_span, kind, braces, key_macros):
                    suffix = _list_suffix(name, [*definitions.newcites, *context.newcites])
                    nocite_all = (
                        _nocite_star(start, refsections, nocite_in, nocite_at, suffix) or nocite_all
                    )
            if role == _MCITE:
                _mcite_sets(citations, first, entry_sets)
            pos = max(pos, end)
        elif role == _ENTRYSET:
            pos = _read_entry_set(text, start, pos, name, citations, entry_sets)
        elif role == _BIBITEM:
            arg = _single_arg(text, pos)
            if arg is not None:
                item = _trimmed(text, arg[0], arg[1])
                if item is not None and "#" not in item[0]:
                    bibitems.append((item[0], Span(item[1], item[2])))
                pos = arg[2]
        elif role in (_INCLUDE, _BIBRESOURCE):
            if role == _BIBRESOURCE and 0 <= body_start < start:
                late = len(links)
                pos = _read_file_link(text, pos, name, role, links, start)
                problems += _preamble_only(path, name, links[late:])
                del links[late:]
                continue
            wrapper = own.get(name) or _macro_named(context.macros, name)
            if wrapper is not None and wrapper.template:
                pos = _read_wrapped_include(text, pos, wrapper, links, start)
                continue
            pos = _read_file_link(text, pos, name, role, links, start)
        elif role == _IMPORT:
            pos = _read_import(text, pos, name, links, start)
        elif role == _BIBLIOGRAPHY:
            # multibib's \bibliographysw keeps its name; a \let alias is \bibliography
            command = name if name.startswith("bibliography") else "bibliography"
            arg = _single_arg(text, pos)
            if arg is not None and not _is_definition(text, start):
                named = [
                    Link(
                        LinkKind.BIBLIOGRAPHY, _bibdata_name(target, braces), Span(ts, te), command
                    )
                    for target, ts, te in _split_keys(text, arg[0], arg[1])
                    if target and "#" not in target  # \bibfile: the project may define it
                ]
                if own_braces == "biblatex" and 0 <= body_start < start:
                    problems += _preamble_only(path, command, named)
                else:
                    links += named
                pos = arg[2]
        elif role == _BIBSTYLE:
            arg = _single_arg(text, pos)
            if arg is not None and not _is_definition(text, start):
                styles.append((_as_written(text[arg[0] : arg[1]]), Span(arg[0], arg[1])))
                pos = arg[2]
        elif role in _CODE:
            pos = _past_code(text, role, pos)
            silencing.passed(start, pos)  # "\\verb|{|" opens no group
        elif role == _REFSECTION:
            if not refsections_read:
                refsections_read = True
                refsections, units = _units(text, links, context.resource_labels)
        elif role == _BEGIN and start in command_bodies:
            pos = command_bodies[start][0]  # its options, then its text, are read
        elif role == _BEGIN:
            while env_read < len(env_codes) and env_codes[env_read][0] < start:
                _, env_name, changes = env_codes[env_read]
                begin_codes[env_name] = changes
                env_read += 1
            if begin_codes and (env := _BEGIN_NAME.match(text, start)) is not None:
                # its begin code's redefinitions hold in its group (as it is read)
                for gone, silences, everywhere, copied in begin_codes.get(env.group(1), ()):
                    written = (everywhere, copied)
                    silencing.define(env.end(), gone, silences, gone in tables.citing, written)
            opens = _skip(text, pos) + 1
            if body_start < 0 and text.startswith("document}", opens):
                preamble_top = preamble_top or latex_static.TopLevel(text)
                if preamble_top.at(start):  # not in a definition, a group or a conditional
                    body_start = start
                    plain_cite = _plain_cite(plain_class and plain_packages, context, links)
                    root_plain_cite = plain_cite
            if not refsections_read and text.startswith(("refsection}", "bibunit}"), opens):
                refsections_read = True
                refsections, units = _units(text, links, context.resource_labels)
            if text.startswith("btSect}", opens):
                pos = _read_btsect(text, opens + len("btSect}"), links)
            elif (end := _skip_environment(text, pos, verbatim_envs)) > pos and (
                listed := verbatim_options(text, pos)
            ):
                pos, verbatim_body = listed[0], (listed[1], end)  # its options are read
                silencing.passed(start, end)
            else:
                if end > pos:
                    silencing.passed(start, end)  # verbatim: its braces open no group
                pos = end
        elif role == _PRINT_ALL:
            nocite_all = True
            nocite_at.append(start)
        elif role == _PACKAGE:
            packages = latex_static.package_names(text, start)
            plain_packages = plain_packages and packages <= latex_static.PLAIN_CITE_PACKAGES
            cite_trims = cite_trims or bool(packages & latex_static.TRIMMING)
            loads_bibunits = loads_bibunits or "bibunits" in packages
            natbib = natbib or "natbib" in packages
            if "jurabib" in packages:
                jurabib = own_jurabib = True
            if "biblatex" in packages:
                braces = own_braces = "biblatex"
            elif own_braces is None and packages & latex_static.TRIMMING:
                braces = own_braces = "cite"
            options = latex_static.package_options(text, start)
            if body_start < 0 and nocite_now is None:
                nocite_now = latex_nocite_now.by_packages(packages, options)
                nocite_now_at = start if nocite_now else -1
            style_files += cite_styles.loaded_style_files(options, packages)
            package_backend, package_chapterbib = latex_static.read_package(text, start)
            backend = backend or package_backend
            chapterbib = package_chapterbib if chapterbib is None else chapterbib
            _read_load_links(text, start, name, links)
        elif role == _DOCUMENTCLASS:
            is_root = True
            plain_cite = False  # a document of its own: its body decides
            plain_class = (
                latex_static.document_class(text, start) in latex_static.PLAIN_CITE_CLASSES
            )
            if body_start < 0 and nocite_now is None:
                nocite_now = latex_nocite_now.by_class(text, start)
                nocite_now_at = start if nocite_now else -1
            sub = _SUBFILES_CLASS.match(text, pos)
            if sub is not None and sub.group(1).strip():
                subfiles_parent = sub.group(1).strip()
            _read_load_links(text, start, name, links)
        elif role == _LOADCLASS:
            _read_load_links(text, start, name, links)
        elif role == _ENDINPUT:
            top = top or latex_static.TopLevel(text)
            if (end := top.endinput_end(start, pos)) is not None:
                n = end
                if magic is None:
                    magic = _magic_root(text[start:])  # a magic comment may follow it
    magic = magic or subfiles_parent
    silencing.finish()
    if nocite_at and "biblatex" not in (braces, own_braces, context.key_braces):
        # \cite{*}: LaTeX and its citation packages write \citation{*} and warn of no
        # undefined citation (biblatex does)
        citations = [c for c in citations if c.key != "*"]
    return ParsedDocument(
        path=path,
        kind=DocumentKind.LATEX,
        citations=tuple(citations),
        links=tuple(links),
        nocite_all=nocite_all,
        magic_root=magic,
        is_root=is_root,
        bibitems=(*bibitems, *_first_of_each(entry_sets)),
        problems=tuple(problems),
        suppressed_lines=frozenset(suppressed),
        citation_macros=tuple(own.values()),
        flags=latex_static.document_flags(sets, defined),
        nocite_all_in=tuple(dict.fromkeys(nocite_in)),
        refsections=tuple(refsections),
        refsection_marks=tuple(at for at in latex_refsections.marks(text) if at < n),
        refsection_ends=tuple(at for at in latex_refsections.ends(text) if at < n),
        nocite_all_at=tuple(nocite_at),
        refsection_reset=latex_refsection_reset.reset_option(text),
        headings=tuple(h for h in latex_refsection_reset.headings(text) if h[0] < n),
        bibunits=bool(units.units),
        default_bibliography=units.default,
        default_in_body=units.default_in_body,
        bibunit_defaults=units.defaults,
        bare_putbibs=units.bare,
        body_start=body_start,
        document_end=document_end,
        plain_cite=root_plain_cite,
        cite_copy=latex_bibunits.copy_option(text),
        cite_trims=cite_trims,
        key_braces=own_braces or "",
        braced_keys=braced_keys,
        lost_nocites=tuple(lost_nocites),
        nocite_now_at=(nocite_now_at, nocite_now or "") if is_root else (-1, ""),
        bib_backend=backend,
        bib_encoding=latex_static.bib_encoding(text if n == len(text) else text[:n]),
        chapterbib=bool(chapterbib),
        verbatim_envs=own_verbatim_envs,
        environment_codes=tuple((name, changes) for _, name, changes in env_codes if changes),
        resource_labels=latex_refsections.resource_labels(text),
        input_path=latex_static.input_path(text),
        short_verbs=latex_static.short_verbs(text),
        macro_links=_macro_links(tuple(own.values()), defined_at, links),
        text_macros=tuple(definitions.text_macros),
        text_macro_links=tuple(text_macro_links),
        macro_keys=tuple(key_macros.used),
        jurabib=own_jurabib,
        silenced=tuple(silencing.events),
        grouped_includes=tuple(silencing.grouped),
        newcites=tuple(dict.fromkeys(definitions.newcites)),
        bib_styles=tuple(styles),
        style_files=tuple(dict.fromkeys(style_files)),
    )


def _plain_cite(plain: bool, context: LatexContext, links: list[Link]) -> bool:
    """Whether ``\\cite`` in the body of a root file is LaTeX's own (one optional argument):
    its class and packages leave it so (``plain``), no other file of its project loads
    biblatex and its preamble reads none (which might load natbib)."""
    return (
        plain
        and context.key_braces != "biblatex"
        and not any(link.kind is LinkKind.INCLUDE and link.command not in _LOADS for link in links)
    )


_LOADS = frozenset({"usepackage", "RequirePackage", "RequirePackageWithOptions", "documentclass"})


#: a comment with its line break and the blanks that start the next line
_ARG_COMMENT = re.compile(r"(?<!\\)%[^\r\n]*(?:(?:\r\n?|\n)[ \t]*)?")
#: a line break with the blanks around it: one space for TeX
_ARG_BREAK = re.compile(r"[ \t]*(?:\r\n?|\n)[ \t]*")


def _as_written(argument: str) -> str:
    """An argument as TeX writes it to a file: comments dropped, a line break one space."""
    if "%" in argument:
        argument = _ARG_COMMENT.sub("", argument)
    if "\n" in argument or "\r" in argument:
        argument = _ARG_BREAK.sub(" ", argument)
    return argument


_SUFFIX = re.compile(r"[A-Za-z]+")


def _newcites(text: str, pos: int) -> list[str]:
    """The suffixes of ``\\newcites{a,b}{Title A,Title B}`` (letters only, as TeX's
    command names take them)."""
    arg = _single_arg(text, pos)
    if arg is None:
        return []
    return [s for s, _, _ in _split_keys(text, arg[0], arg[1]) if _SUFFIX.fullmatch(s)]


class _MacroOrder:
    """Whether a citation macro of the project applies at an offset of the file."""

    __slots__ = ("_builtin", "_defined_at", "_starts")

    def __init__(
        self,
        defined_at: dict[str, int],
        starts: tuple[tuple[str, int], ...] | None,
        builtin: dict[str, str],
    ) -> None:
        self._defined_at = defined_at
        self._starts = None if starts is None else dict(starts)
        self._builtin = builtin

    def applies(self, name: str, at: int, links: list[Link]) -> bool:
        if name in self._builtin:
            return True
        own = self._defined_at.get(name)
        if own is not None and own <= at:
            return True
        if self._starts is None:
            return own is None  # inherited with no order known: everywhere
        after = self._starts.get(name)
        if after is None:
            return False
        return after < 0 or _includes_before(links, at) > after


def _includes_before(links: list[Link], at: int) -> int:
    return sum(1 for link in links if link.kind is LinkKind.INCLUDE and link.span.start < at)


def _macro_links(
    macros: tuple[CitationMacro, ...], defined_at: dict[str, int], links: list[Link]
) -> tuple[tuple[str, int], ...]:
    """:attr:`ParsedDocument.macro_links`."""
    return tuple((m.name, _includes_before(links, defined_at.get(m.name, 0))) for m in macros)


def _units(
    text: str, links: list[Link], labels: tuple[tuple[str, str], ...] = ()
) -> tuple[list[tuple[int, int, tuple[str, ...]]], latex_bibunits.BibUnits]:
    """The refsections and bibunits' units of ``text`` (see :attr:`ParsedDocument.refsections`)
    and what the file says about bibunits; their resources' links go first in ``links``
    (``labels``: the resource labels of the project's other files)."""
    found: list[Link] = []
    sections = latex_refsections.refsections(text, found, labels)
    units = latex_bibunits.bibunits(text, found)
    links[0:0] = sorted(found, key=lambda link: link.span.start)
    return sorted(sections + units.units), units


def _macro_named(macros: tuple[CitationMacro, ...], name: str) -> CitationMacro | None:
    """The macro of ``macros`` named ``name`` (the first), if any."""
    return next((macro for macro in macros if macro.name == name), None)


def _read_wrapped_include(
    text: str, pos: int, macro: CitationMacro, links: list[Link], start: int
) -> int:
    """A use of a macro that passes its argument to an include command in a file name
    (``\\chap{intro}`` of ``\\newcommand{\\chap}[1]{\\input{chapters/#1}}``): a link
    of that command to the name its argument makes, at the argument."""
    arg = _single_arg(text, pos)
    if arg is None or _is_definition(text, start):
        return pos
    item = _trimmed(text, arg[0], arg[1])
    if item is not None and "#" not in item[0] and "\\" not in item[0]:
        target = macro.template.replace("#1", item[0])
        links.append(Link(LinkKind.INCLUDE, target, Span(item[1], item[2]), macro.like))
    return arg[2]


def _preamble_only(path: Path, command: str, links: list[Link]) -> list[Finding]:
    """biblatex's resource commands (and its ``\\bibliography``) after the top-level
    ``\\begin{document}``: LaTeX stops with "Can be used only in preamble", and biber reads
    none of the files ``links`` name."""
    if not links:
        return []
    span = Span(links[0].span.start, links[-1].span.end)
    message = (
        f"\\{command} after \\begin{{document}} is ignored: biblatex reads bibliographies "
        "in the preamble only"
    )
    targets = [link.target for link in links]
    data = MappingProxyType({"targets": targets})
    return [Finding(Code.BIBLIOGRAPHY_IGNORED, Location(path, span), message, data=data)]


def _read_entry_set(
    text: str,
    start: int,
    pos: int,
    name: str,
    citations: list[Citation],
    sets: list[tuple[str, Span]],
) -> int:
    """biblatex's ``\\defbibentryset{set}{a,b}`` (its name ends at ``pos``): the set is
    one of the document's keys, and biber lists it and its members (a member no entry has
    is reported) whether or not it is cited; -> where reading goes on."""
    first = _single_arg(text, pos)
    if first is None or _is_definition(text, start):
        return pos
    members = _single_arg(text, first[2])
    item = _trimmed(text, first[0], first[1])
    if members is None or item is None or "#" in item[0] or "\\" in item[0]:
        return first[2]
    span = sound_span(start, members[2])
    set_span = Span(item[1], item[2])
    sets.append((item[0], set_span))
    citations.append(Citation(item[0], set_span, name, span, CitationKind.NOCITE))
    _add_keys(citations, text, members[0], members[1], name, span, CitationKind.NOCITE)
    return members[2]


def _first_of_each(sets: list[tuple[str, Span]]) -> tuple[tuple[str, Span], ...]:
    """``sets`` with each name once, where it is first defined."""
    first: dict[str, Span] = {}
    for name, span in sets:
        first.setdefault(name, span)
    return tuple(first.items())


def _read_btsect(text: str, pos: int, links: list[Link]) -> int:
    """bibtopic's ``\\begin{btSect}[style]{a,b}`` (its name ends at ``pos``): a list of
    bibliographies, as ``\\bibliography`` names them (BibTeX reads them from an .aux of
    their own, each key looked up in every section); -> where reading goes on."""
    arg = _single_arg(text, pos)
    if arg is None:
        return pos
    for target, ts, te in _split_keys(text, arg[0], arg[1]):
        if target and "#" not in target:
            links.append(Link(LinkKind.BIBLIOGRAPHY, target, Span(ts, te), "btSect"))
    return arg[2]


_SPACES = re.compile(r"\s+")
#: ``\\begin{name}``, as :mod:`~citewarden.parsing.latex_scopes` opens its group: 1: the name
_BEGIN_NAME = re.compile(r"\\begin[ \t]*\{[ \t]*([^{}\s]{1,100})[ \t]*\}")
#: the name ``\\csname`` makes a command of, up to ``\\endcsname``
_CSNAME_NAME = re.compile(r"\s*([A-Za-z]{1,100})\s*\\endcsname(?![A-Za-z@])")


def _bibdata_name(target: str, braces: KeyBraces) -> str:
    """The file name ``\\bibliography`` writes to the .aux for ``target``: LaTeX's (and
    multibib's, natbib's, bibentry's) drops the spaces (``\\zap@space``: ``{more refs}``
    is ``morerefs.bib`` for BibTeX); biblatex's keeps them."""
    if braces == "biblatex" or not _SPACES.search(target):
        return target
    return _SPACES.sub("", target)


#: natbib's commands without a starred form: ``\\citeyear*{a}`` cites ``*``
_NATBIB_UNSTARRED = frozenset(
    {"citeyear", "citeyearpar", "citenum", "citetalias", "citefullauthor"}
)


def _star_is_key(name: str, plain_cite: bool) -> bool:
    """Whether the star after ``\\name`` is its key list, an undelimited argument: LaTeX's
    own ``\\cite`` and ``\\nocite`` (:func:`_plain_cite`: no package that may define a
    starred form, as bibunits does) have none."""
    return plain_cite and name in ("cite", "nocite")


def _list_suffix(name: str, suffixes: list[str]) -> str | None:
    """The multibib list ``\\name`` cites in (``nocitesw``: ``sw``), if it is one's."""
    return multibib_list(name, suffixes)


def _nocite_star(
    at: int,
    refsections: list[tuple[int, int, tuple[str, ...]]],
    nocite_in: list[str],
    nocite_at: list[int],
    suffix: str | None = None,
) -> bool:
    """A ``\\nocite{*}`` at ``at`` (added to ``nocite_at``): True when it covers every
    bibliography; inside a refsection with its own resources it covers those only (added
    to ``nocite_in``), in a multibib list (``\\nocitesw{*}``, ``suffix``) the list's files
    only (:data:`~citewarden.parsing.latex_args.LIST_STAR` and the suffix in
    ``nocite_in``)."""
    nocite_at.append(at)
    if suffix is not None:
        nocite_in.append(LIST_STAR + suffix)
        return False
    for start, end, names in refsections:
        if start <= at < end:
            nocite_in.extend(names)
            return False
    return True


# ---------------------------------------------------------------------------------------
# Completion
# ---------------------------------------------------------------------------------------

_PAR_BREAK = re.compile(_PAR)
# key characters: a partial key stops at white space, a backslash, a comma or a brace
_KEY_TAIL = re.compile(r"[^,{}\s%\\]*")
_KEY_HEAD = re.compile(r"[^,{}\s%\\]*\Z")


def completion_context(
    text: str, offset: int, extra_commands: tuple[str, ...] = ()
) -> CompletionContext | None:
    """The partial key at ``offset`` when the cursor is inside the key argument of a
    citation command (in any group of a multicite, after a comma too), else None."""
    if not 0 <= offset <= len(text):
        return None
    tables = _tables(tuple(extra_commands))
    roles = tables.roles
    # start at the beginning of the paragraph (arguments never cross a blank line)
    lo = max(0, offset - 8000)
    for brk in _PAR_BREAK.finditer(text, lo, offset):
        lo = brk.end()
    if lo > 0 and text[lo - 1] != "\n":
        nl = text.find("\n", lo, offset)
        if nl < 0:
            return None
        lo = nl + 1
    lexer = _Lexer(text, tables.commands)
    verbatim_envs = latex_static.verbatim_environments(text)
    pos = lo
    while pos <= offset:
        token = lexer.next(pos, offset)
        if token is None:
            return None
        _start, pos, m = token
        if m is None:
            if pos >= offset:
                return None  # in a comment
            continue
        name = m.group(2)
        if name is None:
            continue
        role = roles.get(name)
        if role is None:
            continue  # a name the scanner matched past its table's nesting
        if role in _CITING:
            if role in (_VOLCITE, _MULTIVOL):
                groups, end = _volcite_groups(text, pos, role == _MULTIVOL)
            else:
                groups, end = _cite_groups(text, pos, role == _MULTI, not is_builtin(name))
            for cs, ce in groups:
                if ce < 0:
                    tail = _PAR_BREAK.search(text, cs)
                    ce = tail.start() if tail else len(text)
                    if "}" in text[cs:offset] or "{" in text[cs:offset]:
                        continue
                if cs <= offset <= ce:
                    return _key_at(text, cs, ce, offset)
            pos = max(pos, end)
        elif role == _VERB:
            pos = _skip_delimited_code(text, pos)
        elif role in (_INLINE_CODE, _MINTINLINE):
            pos = _skip_inline_code(text, pos, mint=role == _MINTINLINE)
        elif role == _BEGIN:
            pos = _skip_environment(text, pos, verbatim_envs)
    return None


def _key_at(text: str, start: int, end: int, offset: int) -> CompletionContext | None:
    head = _KEY_HEAD.search(text, start, offset)
    ps = head.start() if head else offset
    if ps > start and text[ps - 1] == "\\":
        return None  # in the name of a command that follows an unclosed group
    tail = _KEY_TAIL.match(text, offset, end)
    pe = tail.end() if tail else offset
    return CompletionContext(text[ps:offset], Span(ps, pe))
