"""The citation commands a LaTeX text has silenced, as TeX's groups scope definitions.

A redefinition that makes a citation command write nothing (``\\renewcommand\\cite[1]{}``)
holds from where it stands to the end of the group it stands in: a brace group (or
``\\bgroup``/``\\egroup``), a ``\\begingroup``/``\\endgroup`` and an environment
(``\\begin``/``\\end``; the document's own is no group here: its body is read as the
preamble's level).  ``\\gdef``, ``\\xdef`` and ``\\global`` make one hold to the end, and
so do the braces of ``\\AtBeginDocument``, ``\\AtEndPreamble`` and ``\\AfterEndPreamble``,
whose text LaTeX runs at the body's start.  One in an environment's begin code
(``\\newenvironment``) holds where the environment begins, in its group.  One inside a
conditional is not read (which branch TeX takes may not be known).

The text is scanned once, up to the last offset asked, but the verbatim material its reader
passes over (``\\verb|{|``, a verbatim environment, ``\\MakeShortVerb``'s ``|{|``: no group,
no conditional there); a closer with no opener of its kind in the innermost brace group (as
in a definition's body) is passed over, and at most :data:`MAX_DEPTH` groups are remembered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from citewarden.model import CitationMacro, EnvironmentChange
from citewarden.parsing.latex_args import IncludeLinks
from citewarden.parsing.latex_static import (
    close_brace,
    conditional_opens,
    in_comment,
    redefined,
)
from citewarden.parsing.tex_tokens import BRACE_TOKENS

#: groups nested deeper than this are counted, their definitions not undone
MAX_DEPTH = 256

_TOKENS = re.compile(
    r"\\(begingroup|endgroup|bgroup|egroup)(?![A-Za-z@])"
    r"|\\(begin|end)[ \t]*\{[ \t]*([^{}\s]{1,100})[ \t]*\}"
    r"|\\(if[A-Za-z@]*|fi)(?![A-Za-z@])"
    r"|" + BRACE_TOKENS.pattern
)
_OPENS = {"begingroup": "semi", "bgroup": "brace"}
#: a hook's argument, which LaTeX runs at the body's start (at once in the body): what it
#: redefines is not undone by its braces
_HOOK = re.compile(r"\\(?:AtBeginDocument|AtEndPreamble|AfterEndPreamble)\s*\{")
_CLOSES = {"endgroup": "semi", "egroup": "brace"}
_GLOBAL = re.compile(r"\\global\s*(?:\\long\s*)?\Z")


def is_global(text: str, start: int) -> bool:
    """The definition at ``text[start]`` is global (``\\gdef``, ``\\xdef``, ``\\global``)."""
    return text.startswith(("\\gdef", "\\xdef"), start) or (
        _GLOBAL.search(text, max(0, start - 20), start) is not None
    )


class SilencedScopes:
    """The names silenced at offsets of a text asked in increasing order."""

    __slots__ = (
        "_deep",
        "_hooks",
        "_ifs",
        "_next",
        "_pos",
        "_saved",
        "_skips",
        "_text",
        "current",
    )

    def __init__(
        self,
        text: str,
        start: set[str],
        passed: list[tuple[int, int]] | None = None,
        verbatim: Sequence[tuple[int, int]] = (),
    ) -> None:
        self._text = text
        self._pos = 0
        #: the verbatim material read past, each in order: what its reader passes over (it
        #: appends to the list) and the short verbatim text (``|{|``) known before
        self._skips = (passed if passed is not None else [], verbatim)
        self._next = [0, 0]  # of each, the first not behind the scan
        self._ifs = 0
        self._deep = 0  # groups past MAX_DEPTH, not remembered
        #: per open group: its kind and the names silenced where it opened
        self._saved: list[tuple[str, set[str]]] = []
        self.current = set(start)
        #: where the braces of hooks' arguments open
        self._hooks = {m.end() - 1 for m in _HOOK.finditer(text)} if "\\A" in text else set()

    def at(self, offset: int) -> set[str]:
        """The names silenced at ``offset``."""
        while self._pos < offset:
            stop, past = offset, self._pos
            for n, regions in enumerate(self._skips):
                k = self._next[n]
                while k < len(regions) and regions[k][1] <= self._pos:
                    k += 1
                self._next[n] = k
                if k < len(regions):
                    if regions[k][0] <= self._pos:
                        past = max(past, regions[k][1])
                    stop = min(stop, regions[k][0])
            if past > self._pos:
                self._pos = past  # verbatim: nothing there opens or closes
                continue
            self._scan(self._pos, stop)
            self._pos = stop
        return self.current

    def _scan(self, start: int, stop: int) -> None:
        """Read the groups and conditionals from ``start`` to ``stop``."""
        text = self._text
        for m in _TOKENS.finditer(text, start, stop):
            word, env, condition = m.group(1), m.group(2), m.group(4)
            if condition == "fi":
                self._ifs = max(0, self._ifs - 1)
            elif condition is not None:
                if conditional_opens(text, condition, m.start()):
                    self._ifs += 1
            elif env is not None:
                if m.group(3) != "document":
                    self._open("env") if env == "begin" else self._close("env")
            elif word is not None:
                self._open(_OPENS[word]) if word in _OPENS else self._close(_CLOSES[word])
            elif m.group() == "{":
                self._open("hook" if m.start() in self._hooks else "brace")
            elif m.group() == "}":
                self._close("brace")

    def top_level(self, offset: int) -> bool:
        """``offset`` stands outside every group (a hook's braces aside) and conditional."""
        self.at(offset)
        hooks = all(kind == "hook" for kind, _ in self._saved)
        return hooks and not self._deep and not self._ifs

    def define(self, offset: int, name: str, silences: bool, everywhere: bool = False) -> bool:
        """A definition at ``offset`` silences ``name`` (or defines it again), to the end of
        its group (``everywhere``: global); False: in a conditional, not read."""
        self.at(offset)
        if self._ifs:
            return False
        tail = 0 if everywhere else len(self._saved)
        while tail and self._saved[tail - 1][0] == "hook":
            tail -= 1  # LaTeX runs a hook's text outside its braces
        for names in [self.current, *(saved for _, saved in self._saved[tail:])]:
            if silences:
                names.add(name)
            else:
                names.discard(name)
        return True

    def _open(self, kind: str) -> None:
        if len(self._saved) >= MAX_DEPTH:
            self._deep += 1
        else:
            self._saved.append((kind, set(self.current)))

    def _close(self, kind: str) -> None:
        if self._deep:
            self._deep -= 1
            return
        for i in range(len(self._saved) - 1, -1, -1):
            open_kind = self._saved[i][0]
            if open_kind == kind or (kind == "brace" and open_kind == "hook"):
                self.current = self._saved[i][1]
                del self._saved[i:]
                return
            if open_kind in ("brace", "hook"):
                return  # no opener of its kind in this brace group: passed over


#: ``\\newenvironment{name}[1][x]{``: 1: the name (the match ends at its begin code's brace)
_NEW_ENV = re.compile(
    r"\\(?:re)?newenvironment\*?\s*\{\s*([^{}\s]{1,100})\s*\}"
    r"\s*(?:\[\s*\d\s*\]\s*)?(?:\[[^\]{}]{0,200}\]\s*)?\{"
)
#: where a redefinition may stand in a begin code (:func:`~.latex_static.redefined` reads it)
_REDEFINES = re.compile(
    r"\\(?:renewcommand|DeclareRobustCommand|[gex]?def|RenewDocumentCommand"
    r"|DeclareDocumentCommand|let)(?![A-Za-z@])"
)
#: the longest begin code read
MAX_BEGIN_CODE = 5000


def environment_silencings(text: str) -> list[tuple[int, str, tuple[EnvironmentChange, ...]]]:
    """Per ``\\newenvironment`` (or ``\\renewenvironment``) of ``text``, in order: where it
    stands, its environment's name, and the redefinitions of its begin code, which take
    effect in the environment's group where it begins (in this file or another).  One
    pass: a definition in another's begin code (or in the :data:`MAX_BEGIN_CODE`
    characters read of one never closed) is passed over."""
    if "environment" not in text:
        return []
    found: list[tuple[int, str, tuple[EnvironmentChange, ...]]] = []
    last = 0  # the end of the begin code read last
    for m in _NEW_ENV.finditer(text):
        if m.start() < last or in_comment(text, m.start()):
            continue
        opens = m.end() - 1
        closes = close_brace(text, opens, MAX_BEGIN_CODE)
        # read once: the next is looked for after it
        last = opens + MAX_BEGIN_CODE if closes < 0 else closes - 1
        if closes < 0:
            continue
        end = closes - 1  # its "}"
        changes: list[EnvironmentChange] = []
        for d in _REDEFINES.finditer(text, m.end(), end):
            redefinition = redefined(text, d.start())
            if redefinition is not None:
                alias = _LET.match(text, d.start())
                copied = alias.group(2) if alias is not None else ""
                changes.append((*redefinition, is_global(text, d.start()), copied))
        found.append((m.start(), m.group(1), tuple(changes)))
    return found


#: ``\\let\\alias\\target``: 1: the alias, 2: the target
_LET = re.compile(r"\\let\s*\\([A-Za-z@]+)\s*(?:=\s*)?\\([A-Za-z@]+)(?![A-Za-z@])")
#: how many wrappers deep a macro's calls are followed
_MAX_CALLS = 8

Change = tuple[str, int, bool]
#: a change of :attr:`~citewarden.model.ParsedDocument.silenced`: (name, number of include
#: links, silences, lasting)
Event = tuple[str, int, bool, bool]


class Silencing:
    """The citation commands silenced in one file, read left to right: its own
    redefinitions, as its groups scope them, and those of the files of its project read
    before it (``inherited``, :attr:`~citewarden.model.LatexContext.silenced`), applied
    where its include links stand.  :attr:`events` and :attr:`grouped`: what the file
    passes on (:attr:`~citewarden.model.ParsedDocument.silenced`)."""

    __slots__ = (
        "_includes",
        "_lasting",
        "_next",
        "_passed",
        "_pending",
        "_scopes",
        "_seen",
        "_text",
        "_verbatim",
        "events",
        "grouped",
    )

    def __init__(
        self,
        text: str,
        inherited: tuple[Change, ...],
        includes: IncludeLinks,
        verbatim: Sequence[tuple[int, int]] = (),
    ) -> None:
        """``verbatim``: the short verbatim text (``\\MakeShortVerb``'s), in order."""
        self._text = text
        self._verbatim = verbatim
        start = {name for name, index, silences in inherited if index < 0 and silences}
        self._pending = sorted((c for c in inherited if c[1] >= 0), key=lambda c: c[1])
        self._next = 0
        self._seen = 0  # include links read
        self._includes = includes  # of the file's links, which its reader appends to
        self._passed: list[tuple[int, int]] = []  # the verbatim material read past
        self._scopes = (
            SilencedScopes(text, start, self._passed, verbatim) if start or self._pending else None
        )
        self._lasting = set(start)  # silenced at the top level
        self.events: list[Event] = []
        #: the include links read inside a group, whose files' redefinitions end with it
        self.grouped: list[int] = []

    def names(self, offset: int) -> set[str]:
        """The names silenced at ``offset``."""
        if self._scopes is None:
            return set()
        includes = self._includes.read()
        while self._seen < len(includes) and includes[self._seen] < offset:
            self._include(self._seen, includes[self._seen])
        return self._scopes.at(offset)

    def passed(self, start: int, end: int) -> None:
        """The reader passed over the verbatim material from ``start`` to ``end`` (after
        every offset asked so far)."""
        if end > start and (not self._passed or self._passed[-1][1] <= start):
            self._passed.append((start, end))

    def finish(self) -> None:
        """Read the include links after the last offset asked."""
        self.names(len(self._text) + 1)

    def _include(self, index: int, at: int) -> None:
        """The include link ``index`` at ``at``: what its file starts with, if a group of
        this file sets it, then what its file (and those it includes) do."""
        scopes = self._scopes
        assert scopes is not None
        self._seen = index + 1
        now = scopes.at(at)
        top = scopes.top_level(at)
        if not top:
            self.grouped.append(index)
        self.events += [(name, index, True, False) for name in sorted(now - self._lasting)]
        self.events += [(name, index, False, False) for name in sorted(self._lasting - now)]
        while self._next < len(self._pending) and self._pending[self._next][1] <= index:
            name, number, silences = self._pending[self._next]
            self._next += 1
            if number == index and scopes.define(at, name, silences) and top:
                (self._lasting.add if silences else self._lasting.discard)(name)

    def define(
        self,
        offset: int,
        name: str,
        silences: bool,
        citing: bool,
        written: tuple[bool, str] | None = None,
    ) -> None:
        """A redefinition of ``name`` at ``offset`` that makes it write nothing
        (``silences``) or defines it anew; ``citing``: ``name`` is a citation command;
        ``written``: whether it is global and the command a ``\\let`` copies into it
        (or ""), when its text stands elsewhere (an environment's begin code)."""
        now = self.names(offset)
        if written is None:
            alias = _LET.match(self._text, offset)
            written = is_global(self._text, offset), alias.group(2) if alias is not None else ""
        everywhere, copied = written
        if copied and copied in now:
            silences = citing = True  # \let copies the silenced meaning
        if not (citing or name in now) or (silences and not citing):
            return
        if not silences and name not in now:
            return  # a citation command defined anew while it writes: nothing changes
        if self._scopes is None:
            self._scopes = SilencedScopes(self._text, set(), self._passed, self._verbatim)
            self._seen = len(self._includes.read())  # read with nothing silenced
        top = self._scopes.top_level(offset)
        if self._scopes.define(offset, name, silences, everywhere) and (top or everywhere):
            (self._lasting.add if silences else self._lasting.discard)(name)
            self.events.append((name, self._seen, silences, True))

    def silences(
        self, name: str, offset: int, macros: Callable[[str], CitationMacro | None]
    ) -> bool:
        """``\\name`` at ``offset`` writes nothing: it is silenced, or it is a macro each
        citation command of whose body is (as TeX expands it where it is used; ``macros``:
        the citation macro of a name, if any)."""
        if self._scopes is None:
            return False
        now = self.names(offset)
        return bool(now) and _silenced(name, now, macros, _MAX_CALLS)


def _silenced(
    name: str, now: set[str], macros: Callable[[str], CitationMacro | None], depth: int
) -> bool:
    if name in now:
        return True
    macro = macros(name)
    return (
        depth > 0
        and macro is not None
        and bool(macro.calls)
        and all(_silenced(call, now, macros, depth - 1) for call in macro.calls)
    )


__all__ = [
    "MAX_BEGIN_CODE",
    "MAX_DEPTH",
    "Event",
    "SilencedScopes",
    "Silencing",
    "environment_silencings",
    "is_global",
]
