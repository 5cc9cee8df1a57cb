"""LaTeX documents -> :class:`~citewarden.model.ParsedDocument`.

One left-to-right regex scan finds comments, escaped characters and the handful of commands
that matter (citations, includes, bibliography resources, ``\\bibitem``, ``\\documentclass``,
verbatim material); arguments are then read by small brace/bracket matchers.  Everything
else in the text is skipped by the regex engine, so the cost is close to one pass in C.

Recognised, as LaTeX, natbib, biblatex and apacite read them:

* citations: the ``\\cite`` family with starred and capitalised forms, natbib, biblatex
  (including the multicite commands with ``(..)(..)`` global notes and repeated
  ``[..][..]{keys}`` groups, and ``\\volcite[pre]{volume}[pages]{key}``), natbib aliases,
  apacite ``\\citeA<pre>[post]{k}``, ``\\nocite`` (``\\nocite{*}``
  sets ``nocite_all``), user commands given in ``extra_commands``, and wrapper macros the
  file defines (``\\newcommand{\\inlinecite}[1]{\\citen{#1}}``), which are also returned in
  ``citation_macros`` so a project can pass them on to the files it includes;
* links: ``\\input \\include \\subfile \\import \\subimport`` (and the ``*from`` variants of
  the import package), ``\\bibliography{a,b}``, ``\\addbibresource``, ``\\addglobalbib``,
  ``\\addsectionbib``;
* ``\\bibitem[label]{key}`` keys, ``% !TEX root =`` magic comments (or, failing one, the
  parent named by ``\\documentclass[main.tex]{subfiles}``), ``\\documentclass``;
* ``% citewarden: ignore`` suppresses findings on its own line and the next.

Ignored: comments (a ``%`` not escaped by a backslash), ``\\iffalse ... \\fi`` (up to a
matching ``\\else`` or ``\\fi``), ``\\verb`` (any delimiter, starred),
``\\lstinline``/``\\mintinline``/``\\url`` arguments, the verbatim, Verbatim, lstlisting, minted,
comment and filecontents environments, and everything after ``\\end{document}``.

Keys are split on commas and trimmed.  An empty slot (``\\cite{}``, ``\\cite{a,,b}``,
``\\cite{a,}``) yields a :class:`Citation` with key ``""`` and a zero-length span placed just
after the delimiter (``{`` or ``,``) that opens the empty slot, so checks can report
``empty-key`` there.  Keys containing ``#`` or ``\\`` (macro parameters and macros, as in a
``\\newcommand`` body) are not citations: their value is unknown.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from citewarden.model import (
    Citation,
    CitationKind,
    CitationMacro,
    CompletionContext,
    DocumentKind,
    LatexContext,
    Link,
    LinkKind,
    ParsedDocument,
    Span,
    sound_span,
)
from citewarden.parsing import latex_static

# ---------------------------------------------------------------------------------------
# Command tables
# ---------------------------------------------------------------------------------------

_CITE_BASE = (
    # LaTeX, cite package, natbib
    "cite", "citen", "citet", "citep", "citealt", "citealp", "citeauthor", "citefullauthor",
    "citeyear", "citeyearpar", "citenum", "citeonline", "mcite",
    # biblatex
    "parencite", "footcite", "footcitetext", "textcite", "smartcite", "supercite",
    "autocite", "fullcite", "footfullcite", "citetitle", "citeurl", "citedate",
    "citeurldate", "notecite", "pnotecite", "fnotecite", "citelist", "citefield",
    "citename",
    # natbib aliases
    "citetalias", "citepalias",
    # apacite and harvard-style packages
    "citeA", "citeNP", "citeN", "citeauthorNP", "citeyearNP", "shortcite", "shortciteNP",
    "shortciteA", "shortciteN", "shortciteauthor", "shortciteauthorNP", "fullciteNP",
    "fullciteA", "fullciteN", "fullciteauthor", "fullciteauthorNP", "maskcite",
    "maskciteNP", "maskciteA", "citeasnoun", "possessivecite",
)  # fmt: skip
_VOLCITE_BASE = (
    "volcite", "pvolcite", "fvolcite", "ftvolcite", "svolcite", "tvolcite", "avolcite",
)  # fmt: skip
_MULTICITE_BASE = (
    "cites", "parencites", "footcites", "footcitetexts", "smartcites", "textcites",
    "supercites", "autocites",
)  # fmt: skip


def _with_capitals(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(names) | {n[0].upper() + n[1:] for n in names}


CITE_COMMANDS: frozenset[str] = _with_capitals(_CITE_BASE)
MULTICITE_COMMANDS: frozenset[str] = _with_capitals(_MULTICITE_BASE)
#: biblatex ``\\volcite[pre]{volume}[pages]{key}`` and its relatives.
VOLCITE_COMMANDS: frozenset[str] = _with_capitals(_VOLCITE_BASE)

# roles of the commands the scanner stops at
_CITE, _MULTI, _NOCITE, _BIBITEM = "cite", "multi", "nocite", "bibitem"
_VOLCITE = "volcite"
_CITING = (_CITE, _MULTI, _NOCITE, _VOLCITE)
_SINGLE = (_CITE, _NOCITE)  # one key argument, read by :func:`_cite_groups`
_INCLUDE, _IMPORT, _BIBLIOGRAPHY, _BIBRESOURCE = "include", "import", "bibliography", "res"
_VERB, _INLINE_CODE, _MINTINLINE, _HREF = "verb", "inline", "mintinline", "href"
_BEGIN, _DOCUMENTCLASS = "begin", "documentclass"
#: a definition that may define a citation macro, read by latex_static.read_definition
_DEFINE = "define"
#: a macro of the document read by its :class:`CitationMacro` pattern
_MACRO = "macro"

_FIXED_ROLES: dict[str, str] = {
    "nocite": _NOCITE,
    "bibitem": _BIBITEM,
    "input": _INCLUDE,
    "include": _INCLUDE,
    "subfile": _INCLUDE,
    "import": _IMPORT,
    "subimport": _IMPORT,
    "inputfrom": _IMPORT,
    "includefrom": _IMPORT,
    "subinputfrom": _IMPORT,
    "subincludefrom": _IMPORT,
    "bibliography": _BIBLIOGRAPHY,
    "addbibresource": _BIBRESOURCE,
    "addglobalbib": _BIBRESOURCE,
    "addsectionbib": _BIBRESOURCE,
    "verb": _VERB,
    "lstinline": _INLINE_CODE,
    "url": _INLINE_CODE,
    "nolinkurl": _INLINE_CODE,
    "mintinline": _MINTINLINE,
    "href": _HREF,
    "begin": _BEGIN,
    "documentclass": _DOCUMENTCLASS,
    "documentstyle": _DOCUMENTCLASS,
    **dict.fromkeys(
        (
            "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def",
            "gdef", "edef", "xdef", "let", "NewDocumentCommand", "RenewDocumentCommand",
            "ProvideDocumentCommand", "DeclareDocumentCommand",
        ),
        _DEFINE,
    ),
}  # fmt: skip

#: Environments whose content LaTeX does not read as ordinary text.
VERBATIM_ENVIRONMENTS: frozenset[str] = frozenset(
    {
        "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim",
        "lstlisting", "minted", "comment", "filecontents", "filecontents*",
    }
)  # fmt: skip


def _trie_pattern(words: list[str]) -> str:
    """A regex alternation of ``words`` factored into a trie, so the regex engine decides at
    each backslash after a character or two instead of trying every name in turn."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict]) -> str:
        alternatives = [re.escape(ch) + build(node[ch]) for ch in sorted(node) if ch]
        if not alternatives:
            return ""
        if len(alternatives) == 1 and "" not in node:
            return alternatives[0]
        body = "(?:" + "|".join(alternatives) + ")"
        return body + "?" if "" in node else body

    return build(trie)


@dataclass(frozen=True, slots=True)
class _Tables:
    commands: re.Pattern[str]
    roles: dict[str, str]
    macros: dict[str, CitationMacro]
    #: names whose role cites
    citing: frozenset[str]


#: patterns a wrapper can have and still be read exactly like ``\\cite``
_CITE_LIKE = re.compile(r"s?o{0,3}m")


def _macro_role(macro: CitationMacro, roles: dict[str, str]) -> str | None:
    if macro.like:
        role = roles.get(macro.like)
        return role if role in _CITING else None
    if not macro.keys:
        return None  # cites only fixed keys, counted where it is defined
    if _CITE_LIKE.fullmatch(macro.pattern) and macro.keys == (len(macro.pattern),):
        return _CITE
    return _MACRO


@lru_cache(maxsize=64)
def _tables(extra_commands: tuple[str, ...], macros: tuple[CitationMacro, ...] = ()) -> _Tables:
    roles: dict[str, str] = {}
    for name in extra_commands:
        name = name.strip().lstrip("\\").rstrip("*")
        if re.fullmatch(r"[A-Za-z@]+", name):
            roles[name] = _CITE
    roles.update(dict.fromkeys(CITE_COMMANDS, _CITE))
    roles.update(dict.fromkeys(MULTICITE_COMMANDS, _MULTI))
    roles.update(dict.fromkeys(VOLCITE_COMMANDS, _VOLCITE))
    roles.update(_FIXED_ROLES)
    signatures: dict[str, CitationMacro] = {}
    for macro in macros:
        if macro.name in roles:
            continue  # a redefinition of a known command keeps its reading
        role = _macro_role(macro, roles)
        if role is not None:
            roles[macro.name] = role
            if role == _MACRO:
                signatures[macro.name] = macro
    # 1: \end{document}; 2: command name; 3: star.  "\\" and "\%" match too (no group) so
    # that neither is mistaken for the start of a command or a comment.
    commands = re.compile(
        r"\\(?:[\\%]|(end)[ \t]*\{document\}|("
        + _trie_pattern(list(roles))
        + r")(?![A-Za-z@])(\*)?)"
    )
    citing = frozenset(name for name, role in roles.items() if role in _CITING or role == _MACRO)
    return _Tables(commands, roles, signatures, citing)


def _find_comment(text: str, pos: int) -> int:
    """Offset of the next ``%`` at or after ``pos`` not escaped by a backslash, or len."""
    while True:
        i = text.find("%", pos)
        if i < 0:
            return len(text)
        j = i
        while j > 0 and text[j - 1] == "\\":
            j -= 1
        if (i - j) % 2 == 0:
            return i
        pos = i + 1


class _Lexer:
    """Yields comments and interesting commands in order; two literal-prefix searches (for
    ``%`` and for ``\\``) keep the regex engine on its fast path."""

    __slots__ = ("_comment", "_exhausted", "_match", "commands", "text")

    def __init__(self, text: str, commands: re.Pattern[str]) -> None:
        self.text = text
        self.commands = commands
        self._comment = -1
        self._match: re.Match[str] | None = None
        self._exhausted = False  # no command after the last search position

    def next(
        self, pos: int, endpos: int, directives_only: bool = False
    ) -> tuple[int, int, re.Match[str] | None] | None:
        """The next token at or after ``pos`` starting before ``endpos``: (start, end,
        match), ``match`` None for a comment (``end`` is its line end).  With
        ``directives_only``, comments without a ``:`` (which no ``citewarden:`` directive
        lacks) are passed over."""
        text = self.text
        while True:
            if self._comment < pos:
                self._comment = _find_comment(text, pos)
            m = self._match
            if not self._exhausted and (m is None or m.start() < pos):
                m = self._match = self.commands.search(text, pos)
                self._exhausted = m is None
            start = m.start() if m is not None else len(text)
            if self._comment >= start:
                break
            start = self._comment
            if start >= endpos:
                return None
            end = text.find("\n", start)
            if end < 0:
                end = len(text)
            if not directives_only or text.find(":", start, end) >= 0:
                return start, end, None
            pos = end
        if m is None or start >= endpos:
            return None
        return start, m.end(), m


# ---------------------------------------------------------------------------------------
# Argument readers
# ---------------------------------------------------------------------------------------

#: Spaces, single newlines and comments between a command and its arguments (a blank line
#: ends the argument list, as ``\par`` does in TeX).
_SKIP = re.compile(r"(?:[ \t]+|%[^\n]*|\r?\n(?![ \t]*\r?\n))*")
_PAR = r"\n[ \t]*\r?\n"
_BRACE_TOKENS = re.compile(r"\\[\s\S]|%[^\n]*|[{}]|" + _PAR)
_RAW_BRACE_TOKENS = re.compile(r"\\[\s\S]|[{}]|" + _PAR)
_DELIM_TOKENS = {
    "[": re.compile(r"\\[\s\S]|%[^\n]*|[{}\[\]]|" + _PAR),
    "(": re.compile(r"\\[\s\S]|%[^\n]*|[{}()]|" + _PAR),
    "<": re.compile(r"\\[\s\S]|%[^\n]*|[{}<>]|" + _PAR),
}
_CLOSER = {"[": "]", "(": ")", "<": ">"}
_ARG_COMMENT = re.compile(r"(?<!\\)%[^\n]*")
_BEGIN_NAME = re.compile(r"[ \t]*\{([^{}\n]{0,100})\}")
_INPUT_BARE = re.compile(r"[ \t]+([^\s{}%\\]{1,1000})")
_DEFINITION_BEFORE = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand|(?:New|Renew|Provide|Declare)"
    r"DocumentCommand|g?def|let)\*?\s*\{?\s*\Z"
)
_MAGIC_ROOT = re.compile(r"[ \t]*%+[ \t]*![ \t]*tex[ \t]+root[ \t]*=([^\n]*)", re.I)
_MAGIC_ROOT_AFTER_NEWLINE = re.compile(r"\n[ \t]*%+[ \t]*![ \t]*tex[ \t]+root[ \t]*=([^\n]*)", re.I)
_SUBFIX = re.compile(
    r"[ \t]*(?:\[[^\]{}\n]{0,500}\][ \t]*)?\{\s*\\subfix\s*\{([^{}\n]{1,1000})\}\s*\}"
)
_SUBFILES_CLASS = re.compile(r"\s*\[([^\]{}\n]{0,500})\]\s*\{subfiles\}")
_IGNORE = re.compile(r"citewarden:\s*ignore\b", re.I)


def _skip(text: str, i: int) -> int:
    m = _SKIP.match(text, i)
    return m.end() if m else i


#: Longest argument read, in characters.  Together with flat key groups (no nested braces)
#: this keeps pathological input, such as thousands of unclosed groups in one paragraph,
#: close to linear.
_MAX_ARG = 20_000
_MAX_OPTIONAL = 2_000
_MAX_CODE = 5_000
#: Deepest nesting of brackets (and of braces) inside an optional argument.
_MAX_NESTING = 4
#: Deepest nesting of braces read in a group.
_MAX_BRACE_NESTING = 32


def _close_brace(
    text: str, i: int, raw: bool = False, flat: bool = False, limit: int = _MAX_ARG
) -> int:
    """``text[i] == "{"``: the offset after its matching ``}``, or -1 when it does not close
    before a blank line, the end of the text or ``limit`` characters.  ``flat``: a nested
    ``{`` makes the group malformed (key lists and file names hold none)."""
    depth = 0
    tokens = _RAW_BRACE_TOKENS if raw else _BRACE_TOKENS
    for m in tokens.finditer(text, i, min(len(text), i + limit)):
        c = m.group()[0]
        if c == "{":
            if (flat and depth) or depth > _MAX_BRACE_NESTING:
                return -1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.end()
        elif c == "\n":
            return -1
    return -1


def _close_delimited(text: str, i: int) -> int:
    """``text[i]`` is ``[``, ``(`` or ``<``: the offset after the matching closer, braces
    nested inside counted, or -1 (also beyond :data:`_MAX_OPTIONAL` characters)."""
    opener = text[i]
    closer = _CLOSER[opener]
    braces = depth = 0
    for m in _DELIM_TOKENS[opener].finditer(text, i, min(len(text), i + _MAX_OPTIONAL)):
        c = m.group()[0]
        if c == "{":
            braces += 1
            if braces > _MAX_NESTING:
                return -1
        elif c == "}":
            braces -= 1
            if braces < 0:
                return -1
        elif c == "\n":
            return -1
        elif braces == 0 and c == opener:
            depth += 1
            if depth > _MAX_NESTING:
                return -1
        elif braces == 0 and c == closer:
            depth -= 1
            if depth == 0:
                return m.end()
    return -1


def _cite_groups(text: str, i: int, multi: bool) -> tuple[list[tuple[int, int]], int]:
    """Read citation arguments starting at ``i`` (just after the command name).

    Returns the key groups as ``(content_start, content_end)`` -- ``content_end`` is -1 for a
    group that never closes -- and the offset after the last complete argument.
    """
    n = len(text)
    groups: list[tuple[int, int]] = []
    if multi:
        for _ in range(2):  # (global prenote)(global postnote)
            j = _skip(text, i)
            if j < n and text[j] == "(":
                k = _close_delimited(text, j)
                if k < 0:
                    return groups, i
                i = k
            else:
                break
    while True:
        j = _skip(text, i)
        optionals = 0
        while j < n and optionals < 3 and (text[j] == "[" or (text[j] == "<" and not multi)):
            k = _close_delimited(text, j)
            if k < 0:
                return groups, i
            j = _skip(text, k)
            optionals += 1
        if j >= n or text[j] != "{":
            return groups, i
        k = _close_brace(text, j, flat=True)
        if k < 0:
            groups.append((j + 1, -1))
            return groups, j + 1
        groups.append((j + 1, k - 1))
        i = k
        if not multi:
            return groups, i


def _volcite_groups(text: str, i: int) -> tuple[list[tuple[int, int]], int]:
    """``[prenote]{volume}[pages]{key}`` after ``\\volcite``; same result as
    :func:`_cite_groups`."""
    n = len(text)
    j = _skip(text, i)
    if j < n and text[j] == "[":
        k = _close_delimited(text, j)
        if k < 0:
            return [], i
        j = _skip(text, k)
    if j >= n or text[j] != "{":
        return [], i
    k = _close_brace(text, j, flat=True)
    if k < 0:
        return [], i
    end = k
    j = _skip(text, k)
    if j < n and text[j] == "[":
        k = _close_delimited(text, j)
        if k < 0:
            return [], end
        j = _skip(text, k)
    if j >= n or text[j] != "{":
        return [], end
    k = _close_brace(text, j, flat=True)
    if k < 0:
        return [(j + 1, -1)], j + 1
    return [(j + 1, k - 1)], k


def _split_keys(text: str, start: int, end: int) -> Iterator[tuple[str, int, int]]:
    """Comma-separated, trimmed items of ``text[start:end]`` as (item, start, end); an empty
    item is ``("", p, p)`` with ``p`` just after its opening delimiter."""
    segment = text[start:end]
    if "%" in segment:
        segment = _ARG_COMMENT.sub(lambda m: " " * len(m.group()), segment)
    offset = start
    for piece in segment.split(","):
        item = piece.strip()
        if item:
            lead = offset + len(piece) - len(piece.lstrip())
            yield item, lead, lead + len(item)
        else:
            yield "", offset, offset
        offset += len(piece) + 1


_new = object.__new__
_CITATION_SLOTS = tuple(
    getattr(Citation, name).__set__ for name in ("key", "span", "command", "command_span", "kind")
)


def _add_keys(
    citations: list[Citation],
    text: str,
    start: int,
    end: int,
    command: str,
    command_span: Span,
    kind: CitationKind,
) -> bool:
    """Append a :class:`Citation` per key of ``text[start:end]`` (as :func:`_split_keys`
    splits them; keys holding ``#`` or ``\\`` skipped, ``*`` too for ``\\nocite``).
    Returns whether a ``\\nocite{*}`` was among them."""
    set_key, set_span, set_command, set_command_span, set_kind = _CITATION_SLOTS
    nocite = kind is CitationKind.NOCITE
    nocite_all = False
    for key, ks, ke in _split_keys(text, start, end):
        if key and ("#" in key or "\\" in key or (nocite and key == "*")):
            nocite_all = nocite_all or key == "*"
            continue
        citation = _new(Citation)
        set_key(citation, key)
        set_span(citation, sound_span(ks, ke))
        set_command(citation, command)
        set_command_span(citation, command_span)
        set_kind(citation, kind)
        citations.append(citation)
    return nocite_all


#: The usual citation arguments, ``[opt]{keys}`` or ``{keys}`` on one line with nothing
#: to match inside (no braces, brackets, backslash or comment): read by one match, with the
#: same result as :func:`_cite_groups` (within its length limits).
_SIMPLE_CITE_ARGS = re.compile(
    r"[ \t]*(?:\[[^\[\]{}\\%\n]{0,1998}\][ \t]*)?\{([^{}\\%\n]{0,19998})\}"
)


def _single_arg(text: str, i: int) -> tuple[int, int, int] | None:
    """A mandatory ``{...}`` argument at ``i`` (after optional ``[...]``s): (content start,
    content end, offset after it), or None."""
    j = _skip(text, i)
    n = len(text)
    while j < n and text[j] == "[":
        k = _close_delimited(text, j)
        if k < 0:
            return None
        j = _skip(text, k)
    if j >= n or text[j] != "{":
        return None
    k = _close_brace(text, j, flat=True)
    if k < 0:
        return None
    return j + 1, k - 1, k


def _trimmed(text: str, start: int, end: int) -> tuple[str, int, int] | None:
    piece = text[start:end]
    item = piece.strip()
    if not item:
        return None
    lead = start + len(piece) - len(piece.lstrip())
    return item, lead, lead + len(item)


def _skip_delimited_code(text: str, i: int) -> int:
    """After ``\\verb``-like commands: skip ``|code|`` (same delimiter, same line)."""
    if i >= len(text) or text[i] in " \t\r\n":
        return i
    delim = text[i]
    line_end = text.find("\n", i + 1)
    if line_end < 0:
        line_end = len(text)
    close = text.find(delim, i + 1, line_end)
    return close + 1 if close >= 0 else line_end


def _skip_inline_code(text: str, i: int, mint: bool) -> int:
    """``\\lstinline[opts]{code}``, ``\\url|code|``, ``\\mintinline[opts]{lang}{code}``."""
    n = len(text)
    j = _skip(text, i)
    if j < n and text[j] == "[":
        k = _close_delimited(text, j)
        if k < 0:
            return i
        j = _skip(text, k)
    if mint:
        if j >= n or text[j] != "{":
            return j
        k = _close_brace(text, j, flat=True)
        if k < 0:
            return j
        j = k
    if j < n and text[j] == "{":
        k = _close_brace(text, j, raw=True, limit=_MAX_CODE)
        return k if k >= 0 else j + 1
    return _skip_delimited_code(text, j)


def _skip_environment(text: str, i: int) -> int:
    """After ``\\begin``: if a verbatim-like environment opens, the offset after its end."""
    m = _BEGIN_NAME.match(text, i)
    if m is None or m.group(1) not in VERBATIM_ENVIRONMENTS:
        return i
    end = text.find("\\end{" + m.group(1) + "}", m.end())
    return len(text) if end < 0 else end + len(m.group(1)) + 6


def _is_definition(text: str, start: int) -> bool:
    return _DEFINITION_BEFORE.search(text, max(0, start - 40), start) is not None


# ---------------------------------------------------------------------------------------
# The parser
# ---------------------------------------------------------------------------------------


def find_citation_macros(
    text: str, extra_commands: tuple[str, ...] = (), inherited: tuple[CitationMacro, ...] = ()
) -> tuple[CitationMacro, ...]:
    """The citation macros ``text`` defines (see :mod:`~citewarden.parsing.latex_static`)."""
    context = LatexContext(inherited)
    return parse_latex(Path("macros.tex"), text, extra_commands, context).citation_macros


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
    extra = tuple(extra_commands)
    tables = _tables(extra, context.macros)
    roles = tables.roles
    builtin = _tables(extra)
    # citation macros this file defines, each applying from its definition on (read in
    # the scan: the tables grow as they are found); those of the project apply from where
    # they are defined in document order (before an include of this file, or in it)
    own: dict[str, CitationMacro] = {}
    defined_at: dict[str, int] = {}
    order = _MacroOrder(defined_at, context.starts, builtin.roles) if context.macros else None
    sets, defined = latex_static.find_flags(text, context.flag_names)
    known_flags = latex_static.flag_values(context.flags, sets, defined)
    skips = latex_static.conditional_skips(text, known_flags)
    skip_index = 0
    # bodies of fixed-key macros never used: their citations do not count
    unused: list[tuple[int, int]] = []
    lexer = _Lexer(text, tables.commands)
    citations: list[Citation] = []
    links: list[Link] = []
    refsections = _refsections(text, links)
    nocite_in: list[str] = []
    bibitems: list[tuple[str, Span]] = []
    suppressed: set[int] = set()
    nocite_all = is_root = False
    subfiles_parent: str | None = None
    counted_to = counted_line = 0  # line numbers of ignore comments, counted incrementally
    n = len(text)
    pos = 0
    while pos < n:
        token = lexer.next(pos, n, directives_only=True)
        if token is None:
            break
        start, pos, m = token
        if skips:
            while skip_index < len(skips) and skips[skip_index][1] <= start:
                skip_index += 1
            if skip_index < len(skips) and skips[skip_index][0] <= start:
                pos = skips[skip_index][1]
                continue
        if m is None:
            if _IGNORE.search(text, start, pos):
                counted_line += text.count("\n", counted_to, start)
                counted_to = start
                suppressed.update((counted_line, counted_line + 1))
            continue
        name = m.group(2)
        if name is None:
            if m.group(1) is not None:  # \end{document}: TeX reads no further
                break
            continue  # "\\" or "\%"
        role = roles[name]
        if role == _DEFINE:
            citing = tables.citing
            macro, a, b = latex_static.read_definition(
                text, start, citing.__contains__, latex_static.needles_for(citing), builtin.citing
            )
            if macro is not None:
                defined_at.setdefault(macro.name, start)
                own[macro.name] = macro
                tables = _tables(extra, context.macros + tuple(own.values()))
                roles = tables.roles
                lexer = _Lexer(text, tables.commands)
                if macro.fixed and not (
                    macro.name in context.used or latex_static.is_used(text, macro.name, b)
                ):
                    unused.append((a, b))
            continue  # the body is read on: a citation of fixed keys in it counts if used
        if role in _CITING or role == _MACRO:
            if _is_definition(text, start) or text.endswith("\\string", 0, start):
                continue
            if unused and any(a <= start < b for a, b in unused):
                continue
            if order is not None and not order.applies(name, start, links):
                continue  # used before its definition: TeX stops on an undefined command
        if role == _MACRO:
            full = name + ("*" if m.group(3) else "")
            groups, end = _macro_groups(text, pos, tables.macros[name])
            command_span = sound_span(start, end)
            for content_start, content_end in groups:
                _add_keys(
                    citations,
                    text,
                    content_start,
                    content_end,
                    full,
                    command_span,
                    CitationKind.CITE,
                )
            pos = max(pos, end)
        elif role in _CITING:
            full = name + ("*" if m.group(3) else "")
            kind = CitationKind.NOCITE if role == _NOCITE else CitationKind.CITE
            simple = _SIMPLE_CITE_ARGS.match(text, pos) if role in _SINGLE else None
            if simple is not None:
                end = simple.end()
                command_span = sound_span(start, end)
                if _add_keys(citations, text, *simple.span(1), full, command_span, kind):
                    nocite_all = _nocite_star(start, refsections, nocite_in) or nocite_all
                pos = end
                continue
            if role == _VOLCITE:
                groups, end = _volcite_groups(text, pos)
            else:
                groups, end = _cite_groups(text, pos, role == _MULTI)
            command_span = sound_span(start, end)
            for content_start, content_end in groups:
                if content_end < 0:
                    end = content_start  # unclosed: keep scanning inside it
                    continue
                if _add_keys(citations, text, content_start, content_end, full, command_span, kind):
                    nocite_all = _nocite_star(start, refsections, nocite_in) or nocite_all
            pos = max(pos, end)
        elif role == _BIBITEM:
            arg = _single_arg(text, pos)
            if arg is not None:
                item = _trimmed(text, arg[0], arg[1])
                if item is not None and "#" not in item[0]:
                    bibitems.append((item[0], Span(item[1], item[2])))
                pos = arg[2]
        elif role in (_INCLUDE, _BIBRESOURCE):
            pos = _read_file_link(text, pos, name, role, links, start)
        elif role == _IMPORT:
            pos = _read_import(text, pos, name, links, start)
        elif role == _BIBLIOGRAPHY:
            arg = _single_arg(text, pos)
            if arg is not None and not _is_definition(text, start):
                for target, ts, te in _split_keys(text, arg[0], arg[1]):
                    if target and "#" not in target and "\\" not in target:
                        links.append(Link(LinkKind.BIBLIOGRAPHY, target, Span(ts, te), name))
                pos = arg[2]
        elif role == _VERB:
            pos = _skip_delimited_code(text, pos)
        elif role == _INLINE_CODE:
            pos = _skip_inline_code(text, pos, mint=False)
        elif role == _MINTINLINE:
            pos = _skip_inline_code(text, pos, mint=True)
        elif role == _HREF:
            j = _skip(text, pos)
            if j < n and text[j] == "{":
                k = _close_brace(text, j, raw=True, limit=_MAX_CODE)
                pos = k if k >= 0 else j + 1
        elif role == _BEGIN:
            pos = _skip_environment(text, pos)
        elif role == _DOCUMENTCLASS:
            is_root = True
            sub = _SUBFILES_CLASS.match(text, pos)
            if sub is not None and sub.group(1).strip():
                subfiles_parent = sub.group(1).strip()
    magic = _magic_root(text) or subfiles_parent
    return ParsedDocument(
        path=path,
        kind=DocumentKind.LATEX,
        citations=tuple(citations),
        links=tuple(links),
        nocite_all=nocite_all,
        magic_root=magic,
        is_root=is_root,
        bibitems=tuple(bibitems),
        suppressed_lines=frozenset(suppressed),
        citation_macros=tuple(own.values()),
        flags=latex_static.document_flags(sets, defined),
        nocite_all_in=tuple(dict.fromkeys(nocite_in)),
        refsections=tuple(refsections),
        bib_backend=latex_static.bib_backend(text),
        chapterbib=latex_static.loads_chapterbib(text),
        macro_links=_macro_links(tuple(own.values()), defined_at, links),
    )


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


_REFSECTION = re.compile(
    r"\\begin\s*\{refsection\}(?:\s*\[([^\[\]{}]{0,2000})\])?|\\end\s*\{refsection\}"
)


def _refsections(text: str, links: list[Link]) -> list[tuple[int, int, tuple[str, ...]]]:
    """biblatex ``refsection`` environments with their own resources
    (``\\begin{refsection}[ch1.bib]``): (start, end, resources); each resource is added to
    ``links``."""
    if "refsection" not in text:
        return []
    found: list[tuple[int, int, tuple[str, ...]]] = []
    opened: tuple[int, tuple[str, ...]] | None = None
    for m in _REFSECTION.finditer(text):
        if m.group().startswith("\\begin"):
            names: tuple[str, ...] = ()
            if m.group(1) is not None:
                items = list(_split_keys(text, m.start(1), m.end(1)))
                names = tuple(name for name, _, _ in items if name)
                for name, a, b in items:
                    if name and "\\" not in name and "#" not in name:
                        links.append(Link(LinkKind.BIBLIOGRAPHY, name, Span(a, b), "refsection"))
            opened = (m.end(), names) if names else None
        elif opened is not None:
            found.append((opened[0], m.start(), opened[1]))
            opened = None
    if opened is not None:
        found.append((opened[0], len(text), opened[1]))
    return found


def _nocite_star(
    at: int, refsections: list[tuple[int, int, tuple[str, ...]]], nocite_in: list[str]
) -> bool:
    """A ``\\nocite{*}`` at ``at``: True when it covers every bibliography; inside a
    refsection with its own resources it covers those only (added to ``nocite_in``)."""
    for start, end, names in refsections:
        if start <= at < end:
            nocite_in.extend(names)
            return False
    return True


def _macro_groups(text: str, i: int, macro: CitationMacro) -> tuple[list[tuple[int, int]], int]:
    """The key arguments of a use of ``macro`` at ``i`` (after its name) as ``(content start,
    content end)``, and the offset after its last argument read."""
    n = len(text)
    groups: list[tuple[int, int]] = []
    for number, letter in enumerate(macro.pattern, start=1):
        j = _skip(text, i)
        if letter == "s":
            if j < n and text[j] == "*":
                i = j + 1
            continue
        if letter == "o":
            if j < n and text[j] == "[":
                k = _close_delimited(text, j)
                if k < 0:
                    break
                i = k
            continue
        if j >= n or text[j] != "{":
            break
        is_key = number in macro.keys
        k = _close_brace(text, j, flat=is_key)
        if k < 0:
            break
        if is_key:
            groups.append((j + 1, k - 1))
        i = k
    return groups, i


def _magic_root(text: str) -> str | None:
    """The value of the first ``% !TEX root = file`` line (``%!TeX root=`` too)."""
    first = _MAGIC_ROOT.match(text)
    lines = _MAGIC_ROOT_AFTER_NEWLINE.finditer(text)
    for m in lines if first is None else itertools.chain((first,), lines):
        value = m.group(1).strip()
        if value:
            return value
    return None


def _read_file_link(
    text: str, pos: int, name: str, role: str, links: list[Link], start: int
) -> int:
    """``\\input{f}`` / ``\\input f`` / ``\\include{f}`` / ``\\addbibresource[..]{f}``."""
    kind = LinkKind.INCLUDE if role == _INCLUDE else LinkKind.BIBLIOGRAPHY
    subfix = _SUBFIX.match(text, pos)
    if subfix is not None and not _is_definition(text, start):
        # subfiles: \subfix{path} names a path relative to the subfile itself
        item = _trimmed(text, subfix.start(1), subfix.end(1))
        if item is not None and "#" not in item[0] and "\\" not in item[0]:
            links.append(Link(kind, item[0], Span(item[1], item[2]), name))
        return subfix.end()
    arg = _single_arg(text, pos) if role == _BIBRESOURCE else None
    if role == _INCLUDE:
        j = _skip(text, pos)
        if j < len(text) and text[j] == "{":
            arg = _single_arg(text, j)
        elif name == "input":
            bare = _INPUT_BARE.match(text, pos)
            if bare is not None:
                links.append(Link(kind, bare.group(1), Span(bare.start(1), bare.end(1)), name))
                return bare.end()
    if arg is None or _is_definition(text, start):
        return pos
    item = _trimmed(text, arg[0], arg[1])
    if item is not None and "#" not in item[0] and "\\" not in item[0]:
        links.append(Link(kind, item[0], Span(item[1], item[2]), name))
    return arg[2]


def _read_import(text: str, pos: int, name: str, links: list[Link], start: int) -> int:
    """``\\import{dir}{file}`` and friends: the link's target is the file, ``base`` the dir."""
    first = _single_arg(text, pos)
    if first is None:
        return pos
    second = _single_arg(text, first[2])
    if second is None or _is_definition(text, start):
        return first[2]
    base = text[first[0] : first[1]].strip()
    item = _trimmed(text, second[0], second[1])
    if item is not None and "#" not in item[0] + base and "\\" not in item[0] + base:
        links.append(Link(LinkKind.INCLUDE, item[0], Span(item[1], item[2]), name, base=base))
    return second[2]


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
        role = roles[name]
        if role in _CITING:
            if role == _VOLCITE:
                groups, end = _volcite_groups(text, pos)
            else:
                groups, end = _cite_groups(text, pos, role == _MULTI)
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
            pos = _skip_environment(text, pos)
    return None


def _key_at(text: str, start: int, end: int, offset: int) -> CompletionContext | None:
    head = _KEY_HEAD.search(text, start, offset)
    ps = head.start() if head else offset
    if ps > start and text[ps - 1] == "\\":
        return None  # in the name of a command that follows an unclosed group
    tail = _KEY_TAIL.match(text, offset, end)
    pe = tail.end() if tail else offset
    return CompletionContext(text[ps:offset], Span(ps, pe))
