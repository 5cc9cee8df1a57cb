"""The LaTeX reader's command tables and lexer: which commands it stops at (citations,
includes, bibliography resources, definitions, verbatim material) and in what role, built
per set of citation settings and macros, and the scanner that yields them and comments in
order.  See :mod:`~citewarden.parsing.latex`."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from citewarden.model import CitationMacro

_CITE_BASE = (
    # LaTeX, cite package, natbib
    "cite", "citen", "citet", "citep", "citealt", "citealp", "citeauthor", "citefullauthor",
    "citeyear", "citeyearpar", "citenum", "citeonline",
    # biblatex
    "parencite", "footcite", "footcitetext", "textcite", "smartcite", "supercite",
    "autocite", "fullcite", "footfullcite", "citetitle", "citeurl", "citedate",
    "notecite", "pnotecite", "fnotecite", "citelist", "citefield", "citename",
    # natbib aliases
    "citetalias", "citepalias",
    # apacite and harvard-style packages
    "citeA", "citeNP", "citeN", "citeauthorNP", "citeyearNP", "shortcite", "shortciteNP",
    "shortciteA", "shortciteN", "shortciteauthor", "shortciteauthorNP", "fullciteNP",
    "fullciteA", "fullciteN", "fullciteauthor", "fullciteauthorNP", "maskcite",
    "maskciteNP", "maskciteA", "citeasnoun", "possessivecite",
    # bibentry: the whole entry in the text (it cites the key)
    "bibentry",
)  # fmt: skip
_VOLCITE_BASE = (
    "volcite", "pvolcite", "fvolcite", "ftvolcite", "svolcite", "tvolcite", "avolcite",
)  # fmt: skip
#: their multicite forms: ``(pre)(post)`` and then ``[prenote]{volume}[pages]{key}`` groups
_MULTIVOLCITE_BASE = (
    "volcites", "pvolcites", "fvolcites", "ftvolcites", "svolcites", "tvolcites", "avolcites",
)  # fmt: skip
#: biblatex's mcite commands (its ``mcite`` option): in a key list, ``*key`` entries are the
#: members of a set the key before them names (``\\mcite{set,*a,*b}``)
_MCITE_BASE = (
    "mcite", "mparencite", "mfootcite", "mfootcitetext", "mtextcite", "msupercite",
    "mautocite",
)  # fmt: skip
_MULTICITE_BASE = (
    "cites", "parencites", "footcites", "footcitetexts", "smartcites", "textcites",
    "supercites", "autocites",
)  # fmt: skip


#: the capitalised forms a package defines (biblatex, natbib, apacite, biblatex-chicago's
#: ``\\Shortcite``); the others (``\\Citeurl``, ``\\Fullcite``, ``\\Supercite``, ``\\Citeyear``,
#: ``\\Msmartcite`` ...) are undefined, so LaTeX writes no citation for them
_CAPITALISED = frozenset(
    {
        "Cite", "Citet", "Citep", "Citealt", "Citealp", "Citeauthor", "Citefullauthor",
        "Parencite", "Footcite", "Footcitetext", "Textcite", "Smartcite", "Autocite",
        "Citetitle", "Notecite", "Pnotecite", "Fnotecite", "Shortcite",
        "Cites", "Parencites", "Footcites", "Footcitetexts", "Smartcites", "Textcites",
        "Autocites",
        "Mcite", "Mparencite", "Mtextcite", "Mautocite",
    }
)  # fmt: skip


#: the citation commands multibib's ``\\newcites{sw}{...}`` makes a list's own of
#: (``\\citesw``, ``\\citepsw`` ...: its ``\\@mb@citenamelist``), beside ``\\nocitesw``
MULTIBIB_CITES = ("cite", "citep", "citet", "citealp", "citealt")


def multibib_list(command: str, suffixes: Iterable[str]) -> str | None:
    """The suffix of the multibib list of ``suffixes`` that ``\\command`` cites in
    (``citepsw``, ``nocitesw``: ``sw``), if it is one's."""
    for suffix in suffixes:
        if command.endswith(suffix) and command[: len(command) - len(suffix)] in _LIST_CITES:
            return suffix
    return None


_LIST_CITES = frozenset((*MULTIBIB_CITES, "nocite"))


def _with_capitals(names: tuple[str, ...]) -> frozenset[str]:
    """``names`` with the capitalised forms of them that a package defines."""
    return frozenset(names) | ({n[0].upper() + n[1:] for n in names} & _CAPITALISED)


CITE_COMMANDS: frozenset[str] = _with_capitals(_CITE_BASE)
MULTICITE_COMMANDS: frozenset[str] = _with_capitals(_MULTICITE_BASE)
#: biblatex ``\\volcite[pre]{volume}[pages]{key}`` and its relatives (every one capitalised).
VOLCITE_COMMANDS: frozenset[str] = frozenset(
    {m for n in _VOLCITE_BASE for m in (n, n[0].upper() + n[1:])}
)
#: biblatex ``\\volcites(pre)(post)[pre]{volume}[pages]{key}...`` and its relatives.
MULTIVOLCITE_COMMANDS: frozenset[str] = frozenset(
    {m for n in _MULTIVOLCITE_BASE for m in (n, n[0].upper() + n[1:])}
)
MCITE_COMMANDS: frozenset[str] = _with_capitals(_MCITE_BASE)

# roles of the commands the scanner stops at
_CITE, _MULTI, _NOCITE, _BIBITEM = "cite", "multi", "nocite", "bibitem"
_VOLCITE, _MULTIVOL, _MCITE = "volcite", "multivol", "mcite"
_CITING = (_CITE, _MULTI, _NOCITE, _VOLCITE, _MULTIVOL, _MCITE)
_SINGLE = (_CITE, _NOCITE)  # one key argument, read by :func:`_cite_groups`
_INCLUDE, _IMPORT, _BIBLIOGRAPHY, _BIBRESOURCE = "include", "import", "bibliography", "res"
_VERB, _INLINE_CODE, _MINTINLINE, _HREF = "verb", "inline", "mintinline", "href"
_BEGIN, _DOCUMENTCLASS = "begin", "documentclass"
#: ``\\LoadClass`` (a class built on another): read like ``\\documentclass``, not a root
_LOADCLASS = "loadclass"
#: ``\\endinput``: TeX reads the rest of its line, then no more of the file
_ENDINPUT = "endinput"
#: multibib's ``\\newcites{sw}{Software}``: ``\\citesw``, ``\\nocitesw`` and
#: ``\\bibliographysw`` from there on, for a bibliography of its own
_NEWCITES = "newcites"
#: a definition that may define a citation macro, read by latex_static.read_definition
_DEFINE = "define"
#: ``\\usepackage``: the biblatex backend and chapterbib are read from it
_PACKAGE = "package"
#: a macro of the document read by its :class:`CitationMacro` pattern
_MACRO = "macro"
#: biblatex's ``\\newrefsection`` and ``\\refsection``: a reference section starts
_REFSECTION = "refsection"
#: biblatex's ``\\defbibentryset{set}{a,b}``: an entry set of the document, its members cited
_ENTRYSET = "entryset"
#: ``\\bibliographystyle{plain}``: the style BibTeX reads (its ``MACRO`` definitions)
_BIBSTYLE = "bibstyle"
#: bibtopic's ``\\btPrintAll`` and ``\\btPrintNotCited``: a ``btSect`` prints entries no
#: one cites, read as ``\\nocite{*}``
_PRINT_ALL = "printall"
#: ``\\csname cite\\endcsname``: the command it names
_CSNAME = "csname"

_FIXED_ROLES: dict[str, str] = {
    "nocite": _NOCITE,
    "bibitem": _BIBITEM,
    "input": _INCLUDE,
    # \InputIfFileExists{f}{then}{else}: \input of f when there is one (both branches read)
    "InputIfFileExists": _INCLUDE,
    "include": _INCLUDE,
    "subfile": _INCLUDE,
    "import": _IMPORT,
    "subimport": _IMPORT,
    "inputfrom": _IMPORT,
    "includefrom": _IMPORT,
    "subinputfrom": _IMPORT,
    "subincludefrom": _IMPORT,
    "bibliography": _BIBLIOGRAPHY,
    # bibentry's: \bibliography that prints nothing (its starred form names no file)
    "nobibliography": _BIBLIOGRAPHY,
    "bibliographystyle": _BIBSTYLE,
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
    "usepackage": _PACKAGE,
    "RequirePackage": _PACKAGE,
    "RequirePackageWithOptions": _PACKAGE,
    "LoadClass": _LOADCLASS,
    "LoadClassWithOptions": _LOADCLASS,
    "endinput": _ENDINPUT,
    "newcites": _NEWCITES,
    "defbibentryset": _ENTRYSET,
    "btPrintAll": _PRINT_ALL,
    "btPrintNotCited": _PRINT_ALL,
    "newrefsection": _REFSECTION,
    "refsection": _REFSECTION,
    "csname": _CSNAME,
    # LaTeX's own \cite reads its arguments with \@citex[note]{keys} (\makeatletter)
    "@citex": _CITE,
    **dict.fromkeys(
        (
            "newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "def",
            "gdef", "edef", "xdef", "let", "NewDocumentCommand", "RenewDocumentCommand",
            "ProvideDocumentCommand", "DeclareDocumentCommand", "DeclareCiteCommand",
            "DeclareMultiCiteCommand",
        ),
        _DEFINE,
    ),
}  # fmt: skip

#: Environments whose content LaTeX does not read as ordinary text.
VERBATIM_ENVIRONMENTS: frozenset[str] = frozenset(
    {
        "verbatim", "verbatim*", "Verbatim", "Verbatim*", "BVerbatim", "LVerbatim",
        "lstlisting", "minted", "comment", "filecontents", "filecontents*",
        # listings environments of the documentation kits of biblatex styles (ltxdockit)
        # and of showexpl, whose examples are whole documents
        "ltxexample", "ltxcode", "LTXexample",
    }
)  # fmt: skip


#: How deep the trie's groups nest (Python's regex compiler recurses once per nested group)
#: before the rest of a branch is matched as any name, which the reader then looks up.
_TRIE_DEPTH = 200


def _trie_pattern(words: list[str]) -> str:
    """A regex alternation of ``words`` factored into a trie, so the regex engine decides at
    each backslash after a character or two instead of trying every name in turn.

    A run of characters with one way on is written as one literal, so a name's length costs
    no nesting.  Below :data:`_TRIE_DEPTH` nested groups (thousands of names each the start
    of the next) a branch matches any name, so the pattern may match a name not in
    ``words``: its users look every name up and pass over one they do not know."""
    trie: dict[str, dict] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, dict], depth: int) -> str:
        literal: list[str] = []
        while len(node) == 1 and "" not in node:
            ((ch, node),) = node.items()
            literal.append(ch)
        head = re.escape("".join(literal))
        if all(not ch for ch in node):
            return head
        if depth >= _TRIE_DEPTH:
            return head + "[A-Za-z@]*"
        alternatives = [re.escape(ch) + build(node[ch], depth + 1) for ch in sorted(node) if ch]
        body = "(?:" + "|".join(alternatives) + ")"
        return head + (body + "?" if "" in node else body)

    return build(trie, 0)


def is_builtin(name: str) -> bool:
    """Whether ``\\name`` is a command the reader knows without a definition (a citation
    command of LaTeX, natbib, biblatex ..., or one of the other commands it reads)."""
    return (
        name in CITE_COMMANDS
        or name in MULTICITE_COMMANDS
        or name in VOLCITE_COMMANDS
        or name in MULTIVOLCITE_COMMANDS
        or name in MCITE_COMMANDS
        or name in _FIXED_ROLES
    )


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
        if role == _INCLUDE:
            return role if macro.template else None
        return role if role in _CITING or role in (_BIBLIOGRAPHY, _HREF) else None
    if not macro.keys:
        return None  # cites only fixed keys, counted where it is defined
    if _CITE_LIKE.fullmatch(macro.pattern) and macro.keys == (len(macro.pattern),):
        return _CITE
    return _MACRO


def add_macro_role(roles: dict[str, str], macro: CitationMacro) -> str | None:
    """Give ``macro`` its role in ``roles``; -> that role, or None (not a command the
    reader stops at, or a name ``roles`` has: a redefinition keeps the known reading)."""
    if macro.name in roles:
        return None
    role = _macro_role(macro, roles)
    if role is not None:
        roles[macro.name] = role
    return role


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
    roles.update(dict.fromkeys(MULTIVOLCITE_COMMANDS, _MULTIVOL))
    roles.update(dict.fromkeys(MCITE_COMMANDS, _MCITE))
    roles.update(_FIXED_ROLES)
    signatures: dict[str, CitationMacro] = {}
    for macro in macros:
        if add_macro_role(roles, macro) == _MACRO:
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


#: the roles the first reading of a file stops at: definitions, and what hides text from
#: TeX's reading of commands (verbatim material, code, URLs), ``\\endinput``
_DEFINITION_ROLES = frozenset(
    {_DEFINE, _NEWCITES, _BEGIN, _VERB, _INLINE_CODE, _MINTINLINE, _HREF, _ENDINPUT}
)


@lru_cache(maxsize=8)
def _definition_tables() -> tuple[re.Pattern[str], dict[str, str]]:
    """The scanner of a file's first reading (its definitions) and the roles it stops at."""
    roles = {name: role for name, role in _FIXED_ROLES.items() if role in _DEFINITION_ROLES}
    commands = re.compile(
        r"\\(?:[\\%]|(end)[ \t]*\{document\}|("
        + _trie_pattern(list(roles))
        + r")(?![A-Za-z@])(\*)?)"
    )
    return commands, roles


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

    __slots__ = ("_comment", "_exhausted", "_match", "_starts", "_verbatim", "commands", "text")

    def __init__(
        self, text: str, commands: re.Pattern[str], verbatim: list[tuple[int, int]] | None = None
    ) -> None:
        self.text = text
        self.commands = commands
        self._comment = -1
        self._match: re.Match[str] | None = None
        self._exhausted = False  # no command after the last search position
        #: ordered regions where a ``%`` starts no comment (short-verbatim text)
        self._verbatim = verbatim or []
        self._starts = [start for start, _ in self._verbatim]

    def _comment_after(self, pos: int) -> int:
        """The next comment's ``%`` at or after ``pos`` (outside verbatim regions), or len."""
        while True:
            i = _find_comment(self.text, pos)
            k = bisect.bisect_right(self._starts, i) - 1 if self._starts else -1
            if k < 0 or i >= self._verbatim[k][1]:
                return i
            pos = self._verbatim[k][1]

    def next(
        self, pos: int, endpos: int, directives_only: bool = False
    ) -> tuple[int, int, re.Match[str] | None] | None:
        """The next token at or after ``pos`` starting before ``endpos``: (start, end,
        match), ``match`` None for a comment (``end`` is its line end).  With
        ``directives_only``, comments without a ``:`` (which no ``citewarden:`` directive
        lacks) or a ``!`` (which no ``% !TEX root`` comment lacks) are passed over."""
        text = self.text
        while True:
            if self._comment < pos:
                self._comment = self._comment_after(pos)
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
            if (
                not directives_only
                or text.find(":", start, end) >= 0
                or text.find("!", start, end) >= 0
            ):
                return start, end, None
            pos = end
        if m is None or start >= endpos:
            return None
        return start, m.end(), m
