"""What of a LaTeX file's own definitions can be known without running TeX.

* citation macros: wrappers defined by ``\\newcommand`` and friends, ``\\def`` or
  ``\\NewDocumentCommand`` whose body passes parameters to the key argument of a citation
  command (any number of them, in any argument), ``\\let`` aliases of citation commands,
  and macros whose body cites fixed keys (those count only where the macro is used);
* ``\\newif`` flags and the values ``\\footrue`` / ``\\foofalse`` give them;
* conditionals whose value is known: ``\\iffalse``, ``\\iftrue``, ``\\ifnum`` between two
  integers, ``\\ifx`` of a token with itself, and flags with a known value.  The branch TeX
  skips is returned as a region the reader does not read.

Everything else (macros built by ``\\csname``, conditionals on counters, lengths or
package options, ``\\ifdefined``) cannot be known statically: the reader reads both
branches and treats the macro as unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable
from functools import lru_cache

from citewarden.model import CitationMacro, LatexContext, ParsedDocument
from citewarden.parsing.tex_closings import closings
from citewarden.parsing.tex_tokens import BRACE_TOKENS

# \newcommand{\name}[n][default]{body}, \def\name#1{body}, \NewDocumentCommand{\name}{spec}{body},
# \let\name\target (the "=" of \let\a = \b and the spaces after it are one optional group, so
# a long run of spaces is read once)
_DEFINITION = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*"
    r"(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))\s*(?:\[\s*(\d)\s*\]\s*)?(\[[^\]]*\]\s*)?\{"
    r"|\\[gex]?def\s*\\([A-Za-z@]+)((?:#\d)*)\s*\{"
    r"|\\(?:New|Renew|Provide|Declare)DocumentCommand\s*"
    r"(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))\s*\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}\s*\{"
    r"|\\let\s*\\([A-Za-z@]+)\s*(?:=\s*)?\\([A-Za-z@]+)(?![A-Za-z@])"
    r"|\\Declare(Multi)?CiteCommand(?!\*)\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
)
#: biblatex's own definitions of citation commands: a ``\\DeclareCiteCommand`` reads its
#: arguments as ``\\cite`` does, a ``\\DeclareMultiCiteCommand`` as ``\\cites`` (the
#: starred ``\\DeclareCiteCommand*{\\name}`` defines ``\\name*`` of an existing one)
_DECLARED_LIKE = {False: "cite", True: "cites"}


#: ``\\detokenize`` and the group it makes strings of (``\\detokenize\\expandafter{``)
_DETOKENIZE = re.compile(r"\\detokenize(?![A-Za-z@])\s*(?:\\expandafter\s*)?\{")
_FIRST_PARAMETER = re.compile(r"#1(?!\d)")
#: ``\\string#1``: a string of the argument's first token (the ``\\cite`` of ``\\cite{a}``)
_STRING_OF = re.compile(r"\\string\s*\Z")
#: a body passing its one argument to ``\\bibliography``
_PASSES_BIBLIOGRAPHY = re.compile(r"\\bibliography\s*\{\s*#1\s*\}")
#: an include command of a macro's body given its one argument in a file name (1: the
#: command, 2: the name, ``#1`` in it once)
_PASSES_INCLUDE = re.compile(r"\\(input|include|subfile)\s*\{\s*([^{}#\\%\s]*#1[^{}#\\%\s]*)\s*\}")
#: link commands a ``\\let`` alias reads like
_ALIASED_LINKS = frozenset({"bibliography"})
#: a command with its optional arguments and its first braced argument
_COMMAND_WITH_ARGUMENT = re.compile(
    r"\\([A-Za-z@]+)\*?(?:\s*(?:\[[^\]\n]*\]|<[^>\n]*>|\([^)\n]*\)))*\s*\{([^{}]*)\}"
)
_PARAMETER = re.compile(r"\s*#(\d)\s*")
_XPARSE_ARG = re.compile(r"\s*(\+?)(s|o|O\{[^{}]*\}|m)")
#: Longest definition body examined, in characters.
_MAX_BODY = 5000
#: closing braces a group's closing is counted over before the text's reading answers
_COUNTED_CLOSERS = 8


def _close_brace(text: str, i: int, limit: int) -> int:
    """``text[i] == "{"``: the offset after its matching ``}``, or -1.  A group that
    closes after a few closing braces with no escape or comment in the way is counted;
    any other is answered by the text's one reading (:mod:`~citewarden.parsing.tex_closings`),
    so that the openings of a file asked in turn cost one pass, however they nest."""
    end = min(len(text), i + limit)
    depth = 0
    pos = i
    for _ in range(_COUNTED_CLOSERS):
        c = text.find("}", pos, end)
        if c < 0:
            return -1
        if text[c - 1] == "\\" or text.find("\\{", pos, c) >= 0 or text.find("%", pos, c) >= 0:
            break
        depth += text.count("{", pos, c) - 1
        if depth <= 0:
            return c + 1 if depth == 0 else -1
        pos = c + 1
    answer = closings(text, i).close(i, limit)
    return _close_brace_tokens(text, i, limit) if answer is None else answer


def _close_brace_tokens(text: str, i: int, limit: int) -> int:
    """:func:`_close_brace` token by token (escaped braces, comments)."""
    depth = 0
    for m in BRACE_TOKENS.finditer(text, i, min(len(text), i + limit)):
        c = m.group()
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.end()
    return -1


def close_brace(text: str, i: int, limit: int) -> int:
    """``text[i] == "{"``: the offset after its matching ``}`` within ``limit`` characters
    (escaped braces and comments passed over), or -1."""
    return _close_brace(text, i, limit)


def in_comment(text: str, i: int) -> bool:
    """A ``%`` not escaped by a backslash stands before ``i`` on its line."""
    return _in_comment(text, i)


def _in_comment(text: str, i: int) -> bool:
    """A ``%`` not escaped by a backslash stands before ``i`` on its line.  The line's
    first such ``%`` is found once and kept with the line (see :func:`_line`)."""
    global _LAST_LINE
    line = _line(text, i)
    first = line[3]
    if first is None:
        first = _first_comment(text, line[1], line[2])
        _LAST_LINE = (text, line[1], line[2], first)
    return first < i


def line_end(text: str, i: int) -> int:
    """Where the line holding position ``i`` of ``text`` ends (its length for the last)."""
    return _line(text, i)[2]


#: (text, line start, line end, its first comment's ``%`` once asked for): the line asked
#: about last.  The questions come in order, so a long line is read once, not once a
#: question (``\iffalse`` or ``\verb|x|`` repeated on one line).
_LAST_LINE: tuple[str, int, int, int | None] = ("", 0, 0, None)


def _line(text: str, i: int) -> tuple[str, int, int, int | None]:
    """The line of ``text`` holding position ``i``, as :data:`_LAST_LINE` keeps it."""
    global _LAST_LINE
    last = _LAST_LINE
    if last[0] is text and last[1] <= i <= last[2]:
        return last
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    _LAST_LINE = last = (text, start, len(text) if end < 0 else end, None)
    return last


def _first_comment(text: str, start: int, end: int) -> int:
    """Where the first ``%`` not escaped by a backslash stands in ``text[start:end]``
    (``end`` when there is none)."""
    j = start
    while True:
        k = text.find("%", j, end)
        if k < 0:
            return end
        b = k
        while b > start and text[b - 1] == "\\":
            b -= 1
        if (k - b) % 2 == 0:
            return k
        j = k + 1


def _escaped_backslash(text: str, i: int) -> bool:
    """``text[i]`` is a backslash preceded by an odd number of backslashes (``\\\\if``)."""
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return (i - j) % 2 == 1


def _pattern(m: re.Match[str]) -> str | None:
    """The argument pattern of a definition (see :attr:`CitationMacro.pattern`)."""
    if m.group(1) or m.group(2):
        count = int(m.group(3) or 0)
        return ("o" + "m" * (count - 1)) if m.group(4) and count else "m" * count
    if m.group(5):
        return "m" * (len(m.group(6)) // 2)
    spec = m.group(9)
    letters: list[str] = []
    pos = 0
    while (arg := _XPARSE_ARG.match(spec, pos)) is not None:
        letters.append(arg.group(2)[0].lower())
        pos = arg.end()
    return "".join(letters) if not spec[pos:].strip() else None


def read_definition(
    text: str,
    start: int,
    is_citing: Callable[[str], bool],
    needles: tuple[str, ...],
    builtin: Container[str] = (),
) -> tuple[CitationMacro | None, int, int]:
    """The definition starting at ``text[start]`` (``\\newcommand``, ``\\def``,
    ``\\NewDocumentCommand``, ``\\let`` ...): the citation macro it defines, or None, and
    its body ``(start, end)`` (``(-1, -1)`` without one).  ``is_citing``: whether a name is a
    citation command (macros of the project included); ``needles``: words one of which
    stands in the name of every citation command (empty: examine every body);
    ``builtin``: names a definition does not turn into a macro (a redefined ``\\citet``
    stays ``\\citet``)."""
    m = _DEFINITION.match(text, start)
    if m is None:
        return None, -1, -1
    if m.group(13) or m.group(14):  # \DeclareCiteCommand{\name}: a citation command
        name = m.group(13) or m.group(14)
        if name in builtin:
            return None, -1, -1
        return CitationMacro(name, "", (), like=_DECLARED_LIKE[bool(m.group(12))]), -1, -1
    if m.group(10):
        name, target = m.group(10), m.group(11)
        if (is_citing(target) or target in _ALIASED_LINKS) and name not in builtin:
            return CitationMacro(name, "", (), like=target), -1, -1
        return None, -1, -1
    name = m.group(1) or m.group(2) or m.group(5) or m.group(7) or m.group(8)
    body_end = _close_brace(text, m.end() - 1, _MAX_BODY)
    if body_end < 0:
        return None, -1, -1
    body = (m.end(), body_end)
    if _PASSES_BIBLIOGRAPHY.search(text, *body) and _pattern(m) == "m" and name not in builtin:
        # \newcommand{\references}[1]{{\small\bibliography{#1}}}: read like \bibliography
        return CitationMacro(name, "", (), like="bibliography"), *body
    passed = _PASSES_INCLUDE.search(text, *body)
    if passed is not None and _pattern(m) == "m" and name not in builtin:
        # \newcommand{\chap}[1]{\input{chapters/#1}}: read like \input, of chapters/<arg>
        return CitationMacro(name, "", (), like=passed.group(1), template=passed.group(2)), *body
    if name not in builtin and _hides_first_argument(text, m, *body):
        # \newcommand{\code}[1]{\texttt{\detokenize{#1}}}: \code{\cite{a}} cites nothing
        return CitationMacro(name, "", (), like="href"), *body
    if name in builtin or (needles and all(text.find(w, *body) < 0 for w in needles)):
        return None, *body  # no citation command in the body: not a citation macro
    pattern = _pattern(m)
    if pattern is None:
        return None, *body
    keys: list[int] = []
    fixed = False
    calls: dict[str, None] = {}
    for use in _COMMAND_WITH_ARGUMENT.finditer(text, m.end(), body_end - 1):
        if not is_citing(use.group(1)):
            continue
        for item in use.group(2).split(","):
            parameter = _PARAMETER.fullmatch(item)
            if parameter is not None:
                number = int(parameter.group(1))
                if 0 < number <= len(pattern) and pattern[number - 1] in "mo":
                    keys.append(number)
                    calls[use.group(1)] = None
            elif "#" not in item and "\\" not in item and item.strip():
                fixed = True
                calls[use.group(1)] = None
    if 1 in keys and pattern.startswith("o") and optional_default(text, start) is not None:
        fixed = True  # \newcommand{\mc}[1][b]{\cite{#1}}: \mc cites b
    if keys or fixed:
        macro = CitationMacro(name, pattern, tuple(sorted(set(keys))), fixed=fixed, calls=(*calls,))
        return macro, *body
    return None, *body


def optional_default(text: str, start: int) -> tuple[int, int] | None:
    """Where the keys stand in the default of the optional first argument of the
    definition at ``text[start]`` (``[b]`` of ``\\newcommand{\\mc}[1][b]{...}``, ``O{b}`` of
    ``\\NewDocumentCommand{\\mc}{O{b}}{...}``): the text between its delimiters, when it
    is a plain key list (no ``#``, no command)."""
    m = _DEFINITION.match(text, start)
    if m is None:
        return None
    if m.group(9) is not None:  # \NewDocumentCommand{\mc}{O{b} m}{...}
        arg = _XPARSE_ARG.match(m.group(9))
        if arg is None or not arg.group(2).startswith("O"):
            return None
        a = m.start(9) + arg.start(2) + 2
        b = m.start(9) + arg.end(2) - 1
    elif m.group(4) is not None:
        a = m.start(4) + 1
        b = text.index("]", a)
    else:
        return None
    default = text[a:b]
    if not default.strip() or "#" in default or "\\" in default:
        return None
    return a, b


def _hides_first_argument(text: str, m: re.Match[str], start: int, end: int) -> bool:
    """The body ``text[start:end]`` of the definition ``m`` (its first parameter a braced
    argument) uses that argument only inside ``\\detokenize`` groups or after ``\\string``:
    TeX makes a string of what is given there (of its first token, for ``\\string``: the
    ``\\cite`` of ``\\cite{a}``), so the ``\\cite`` never runs."""
    pattern = _pattern(m)
    if not pattern or pattern[0] != "m":
        return False
    if text.find("\\detokenize", start, end) < 0 and text.find("\\string", start, end) < 0:
        return False
    groups: list[tuple[int, int]] = []
    for group in _DETOKENIZE.finditer(text, start, end):
        close = _close_brace(text, group.end() - 1, end - group.end() + 1)
        if close < 0:
            return False
        groups.append((group.end(), close))
    uses = [use.start() for use in _FIRST_PARAMETER.finditer(text, start, end)]
    return bool(uses) and all(
        any(a <= at < b for a, b in groups) or _STRING_OF.search(text, max(start, at - 20), at)
        for at in uses
    )


@lru_cache(maxsize=64)
def needles_for(citing: frozenset[str]) -> tuple[str, ...]:
    """Words for :func:`read_definition`: ``ite`` (in every built-in citation command's
    name) and the citing names that lack it; empty when they are too many to look for."""
    odd = tuple(sorted(name for name in citing if "ite" not in name))
    return ("ite", *odd) if len(odd) <= 8 else ()


_DEFINED_BEFORE = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand|[gex]?def|let"
    r"|(?:New|Renew|Provide|Declare)DocumentCommand)\*?\s*\{?\s*\Z"
)


#: a macro without parameters whose body is plain text (``\\newcommand{\\bibfile}{refs}``,
#: ``\\def\\chapters{parts/}``): what a file name written with it stands for
_TEXT_MACRO = re.compile(
    r"\\(?:(?:re)?newcommand|providecommand)\*?\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
    r"\s*\{([^{}\\#%\n]{0,500})\}"
    r"|\\[gex]?def\s*\\([A-Za-z@]+)\s*\{([^{}\\#%\n]{0,500})\}"
)


def read_text_macro(text: str, start: int) -> tuple[str, str] | None:
    """The definition at ``text[start]`` as (name, body) when it defines a macro without
    parameters whose body is plain text (no command, group or parameter), else None."""
    m = _TEXT_MACRO.match(text, start)
    if m is None:
        return None
    if m.group(4) is not None:
        return m.group(4), m.group(5).strip()
    return m.group(1) or m.group(2), m.group(3).strip()


#: a redefinition of a command whose body holds no command nor group (``\\renewcommand
#: \\cite[1]{}``, ``\\def\\cite#1{[#1]}``), or a ``\\let`` to one doing nothing: the
#: command then writes nothing to the .aux (1-6: the name)
_SILENCING = re.compile(
    r"\\(?:renewcommand|DeclareRobustCommand)\*?\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
    r"\s*(?:\[\s*\d\s*\]\s*)?(?:\[[^\]\\{}]*\]\s*)?\{[^\\{}]*\}"
    r"|\\[gex]?def\s*\\([A-Za-z@]+)(?:#\d)*\s*\{[^\\{}]*\}"
    r"|\\(?:Renew|Declare)DocumentCommand\s*(?:\{\s*\\([A-Za-z@]+)\s*\}|\\([A-Za-z@]+))"
    r"\s*\{[^{}]*\}\s*\{[^\\{}]*\}"
    r"|\\let\s*\\([A-Za-z@]+)\s*(?:=\s*)?\\(?:relax|@gobble|@empty)(?![A-Za-z@])"
)


def redefined(text: str, start: int) -> tuple[str, bool] | None:
    """The command the definition at ``text[start]`` defines, and whether it then writes
    nothing (:data:`_SILENCING`); None: no definition read."""
    m = _SILENCING.match(text, start)
    if m is not None:
        return next(g for g in m.groups() if g is not None), True
    m = _DEFINITION.match(text, start)
    if m is None:
        return None
    name = next((m.group(g) for g in (1, 2, 5, 7, 8, 10, 13, 14) if m.group(g)), None)
    return None if name is None else (name, False)


def is_used(text: str, name: str, start: int = 0, bare: bool = False) -> bool:
    """``\\name`` stands in ``text`` from ``start`` on, outside a comment and not as the
    name a definition defines (``bare``: with no optional argument after it)."""
    if "\\" + name not in text:
        return False
    after = r"(?![A-Za-z@])" + (r"(?!\s*\[)" if bare else "")
    for m in re.compile(r"\\" + re.escape(name) + after).finditer(text, start):
        at = m.start()
        if _DEFINED_BEFORE.search(text, max(0, at - 40), at) is None and not _in_comment(text, at):
            return True
    return False


def cites_default(macro: CitationMacro) -> bool:
    """Whether ``macro`` cites the default of its optional first argument when used
    without it (:func:`optional_default`): its fixed keys count only where it is so used."""
    return macro.fixed and macro.pattern.startswith("o") and 1 in macro.keys


# ---------------------------------------------------------------------------------------
# Flags and conditionals
# ---------------------------------------------------------------------------------------

_NEWIF = re.compile(r"\\newif\s*\\if([A-Za-z@]+)")
_COMMAND_BEFORE = re.compile(r"\\([A-Za-z@]+)\Z")


#: etoolbox's booleans (``\\newbool{draft}`` is ``\\newif\\ifdraft``) and toggles, which
#: are flags of their own (:data:`TOGGLE` before the name): 1: the command, 2: the name,
#: 3: the value ``\\settoggle`` or ``\\setbool`` gives
_ETOOLBOX_SETTING = re.compile(
    r"\\(newtoggle|providetoggle|toggletrue|togglefalse|settoggle|newbool|providebool"
    r"|booltrue|boolfalse|setbool)\s*\{\s*([A-Za-z@]+)\s*\}(?:\s*\{\s*(true|false)\s*\})?"
)
#: an etoolbox test with two branches: 1: the command, 2: the flag's name
_ETOOLBOX_TEST = re.compile(r"\\(iftoggle|nottoggle|ifbool|notbool)\s*\{\s*([A-Za-z@]+)\s*\}")
#: what stands before an etoolbox toggle's name among the flags: no ``\\newif`` name has it
TOGGLE = "toggle "


def _etoolbox_flags(text: str) -> tuple[dict[str, set[bool]], set[str]]:
    """The values ``text`` gives etoolbox's booleans and toggles (each name once per value)
    and those it defines (a toggle's name after :data:`TOGGLE`)."""
    seen: dict[str, set[bool]] = {}
    defined: set[str] = set()
    if "toggle" not in text and "bool" not in text:
        return seen, defined
    for m in _ETOOLBOX_SETTING.finditer(text):
        if _in_comment(text, m.start()) or _DEFINED_BEFORE.search(
            text, max(0, m.start() - 40), m.start()
        ):
            continue
        command, name, value = m.groups()
        flag = (TOGGLE if "toggle" in command else "") + name
        if command.startswith(("new", "provide")):
            defined.add(flag)
        elif command.startswith("set"):
            if value is not None:
                seen.setdefault(flag, set()).add(value == "true")
        else:
            seen.setdefault(flag, set()).add(command.endswith("true"))
    return seen, defined


def find_flags(
    text: str, names: frozenset[str] = frozenset()
) -> tuple[dict[str, bool | None], frozenset[str]]:
    """:func:`_find_flags`, with etoolbox's booleans and toggles."""
    sets, defined = _find_flags(text, names)
    seen, more = _etoolbox_flags(text)
    if not seen and not more:
        return sets, defined
    for name, values in seen.items():
        if name in sets:
            before = sets[name]
            if before is None:
                continue  # set both ways already
            values = values | {before}
        sets[name] = next(iter(values)) if len(values) == 1 else None
    return sets, defined | frozenset(more)


def _find_flags(
    text: str, names: frozenset[str] = frozenset()
) -> tuple[dict[str, bool | None], frozenset[str]]:
    """The values ``text`` gives ``\\newif`` flags (``\\drafttrue``; None when set both
    ways) and the flags it defines.  A file without a ``\\newif`` is searched for settings
    of the flags ``names`` only (those the project defines or sets).  A flag is only
    recognised as set when it is defined by this file or ``known`` to the project, see
    :func:`flag_values`."""
    if "\\newif" not in text:
        return _settings_of(text, names), frozenset()
    defined = frozenset(
        m.group(1) for m in _NEWIF.finditer(text) if not _in_comment(text, m.start())
    )
    seen: dict[str, set[bool]] = {}
    for word in ("true", "false"):
        at = text.find(word)
        while at >= 0:
            end = at + len(word)
            before = text[at - 1] if at else " "
            if (before.isalpha() or before == "@") and (
                end >= len(text) or not (text[end].isalpha() or text[end] == "@")
            ):
                command = _COMMAND_BEFORE.search(text, max(0, at - 60), at)
                if (
                    command is not None
                    and command.group(1) != "if"
                    and not _in_comment(text, command.start())
                ):
                    seen.setdefault(command.group(1), set()).add(word == "true")
            at = text.find(word, end)
    sets = {name: next(iter(v)) if len(v) == 1 else None for name, v in seen.items()}
    return sets, defined


def _settings_of(text: str, names: frozenset[str]) -> dict[str, bool | None]:
    """:func:`find_flags` for the flags ``names`` alone: ``\\drafttrue``, ``\\draftfalse``."""
    sets: dict[str, bool | None] = {}
    for name in names:
        values: set[bool] = set()
        for word in ("true", "false"):
            command = "\\" + name + word
            at = text.find(command)
            while at >= 0:
                end = at + len(command)
                after = text[end] if end < len(text) else " "
                if not (after.isalpha() or after == "@") and not _in_comment(text, at):
                    values.add(word == "true")
                at = text.find(command, end)
        if values:
            sets[name] = next(iter(values)) if len(values) == 1 else None
    return sets


def flag_values(
    inherited: Iterable[tuple[str, bool]], sets: dict[str, bool | None], defined: frozenset[str]
) -> dict[str, bool]:
    """Flags with a known value in a file: what the project knows, what the file sets, and
    ``False`` for a flag the file defines without anyone setting it (as ``\\newif`` starts it)."""
    known = dict(inherited)
    for name, value in sets.items():
        if value is None:
            known.pop(name, None)
        else:
            known[name] = value
    for name in defined:
        if name not in sets:
            known.setdefault(name, False)
    return known


_CONDITIONAL_TOKENS = re.compile(r"\\(if[A-Za-z@]*|fi|else|or)(?![A-Za-z@])")
#: ``\\if...`` names that are commands taking arguments, not TeX conditionals closed by \\fi.
NOT_CONDITIONALS = frozenset(
    {"ifthenelse", "ifpackageloaded", "ifclassloaded", "iftoggle", "ifbool", "ifstrequal",
     "ifdefstring", "ifdefempty", "ifstrempty", "ifcsdef", "ifcsundef", "ifundef", "ifdef",
     "ifpdf", "ifxetex", "ifluatex", "ifdefmacro", "ifnumcomp", "ifdimcomp", "ifblank",
     "iffileexists", "ifdefined",
     # etoolbox
     "ifndef", "ifcsmacro", "ifdefparam", "ifcsparam", "ifdefprefix", "ifcsprefix",
     "ifdefprotected", "ifcsprotected", "ifdefltxprotect", "ifcsltxprotect", "ifcsempty",
     "ifdefvoid", "ifcsvoid", "ifdefequal", "ifcsequal", "ifcsstring", "ifdefstrequal",
     "ifcsstrequal", "ifdefcounter", "ifcscounter", "ifltxcounter", "ifdeflength",
     "ifcslength", "ifdefdimen", "ifcsdimen", "ifnumequal", "ifnumgreater", "ifnumless",
     "ifnumodd", "ifdimequal", "ifdimgreater", "ifdimless", "ifboolexpr", "ifboolexpe",
     "ifinlist", "ifinlistcs", "ifrmnum", "ifpatchable",
     # biblatex's tests in styles and preambles
     "iffieldundef", "iflistundef", "ifnameundef", "iffieldequals", "iffieldequalstr",
     "iffieldsequal", "iflistequals", "ifnameequals", "ifentrytype", "ifkeyword",
     "ifentrykeyword", "ifcategory", "ifentrycategory", "ifciteseen", "ifentryseen",
     "ifcitation", "ifbibliography", "iffootnote", "ifnatbibmode", "ifbibstring",
     "ifbibmacroundef", "iffieldint", "iffieldnum", "ifinteger", "ifnumeral", "ifpages",
     "ifcapital", "ifuseauthor", "ifuseeditor", "ifusetranslator", "ifuseprefix",
     "ifsingletitle", "ifuniquetitle", "ifuniquework", "ifandothers", "ifmorenames",
     "ifmoreitems", "iffirstonpage", "ifsamepage", "iffirstcitekey", "iflastcitekey"}
)  # fmt: skip
_IFNUM = re.compile(r"\s*(-?\d+)\s*([<=>])\s*(-?\d+)(?!\d)")
#: The largest number TeX reads (2^31 - 1), and the most characters one of its numbers in
#: an ``\ifnum`` can take (a sign and ten digits) before it is not read as a number here.
_TEX_MAX_NUMBER = 2_147_483_647
_NUMBER_DIGITS = 11
#: the two tokens ``\\ifx`` compares: spaces after a control word are skipped, but a space
#: after a character is a token of its own (``\\ifx a a`` compares ``a`` with a space)
_IFX = re.compile(r"\s*(?:(\\[A-Za-z@]+)\s*|(\S))(\\[A-Za-z@]+|\s|\S)")
#: the two characters of ``\\if01`` or ``\\ifx ab``: letters and digits only, which no
#: package makes active (babel's shorthands make ``"``, ``:``, ``!`` ... macros)
_PLAIN_CHAR = re.compile(r"[A-Za-z0-9]")
_IF_CHARS = re.compile(r"\s*([A-Za-z0-9])([A-Za-z0-9])")
#: the number of ``\\ifcase 2`` and ``\\ifodd 3``, written out (an optional space after
#: it is part of it)
_NUMBER = re.compile(r"\s*(-?\d{1,10})(?!\d) ?")
_KNOWN_TEST = re.compile(r"\\(?:if(?:false|true|num|x|case|odd)?|unless)(?![A-Za-z@])")
#: ``\\unless`` just before a conditional: it inverts the test (e-TeX)
_UNLESS = re.compile(r"\\unless\s*\Z")
#: an ``\\if..`` token that is being defined, not tested
_DEFINED_HERE = re.compile(r"\\(?:newif|let|[gex]?def|(?:re)?newcommand\*?\s*\{?)\s*\Z")
#: :data:`NOT_CONDITIONALS` that are TeX conditionals all the same, closed by ``\\fi``
_CLOSED_BY_FI = frozenset({"ifpdf", "ifxetex", "ifluatex", "ifdefined"})
_TOP_LEVEL_TOKENS = re.compile(r"\\(if[A-Za-z@]*|fi)(?![A-Za-z@])|" + BRACE_TOKENS.pattern)


def conditional_opens(text: str, name: str, start: int) -> bool:
    """``\\<name>`` at ``text[start]`` (``name`` starting with ``if``) opens a conditional
    that a ``\\fi`` closes: a TeX conditional, not a name a definition gives."""
    return (name not in NOT_CONDITIONALS or name in _CLOSED_BY_FI) and (
        _DEFINED_HERE.search(text, max(0, start - 20), start) is None
    )


class TopLevel:
    """Whether offsets of a text, asked in increasing order, stand outside every brace
    group and every conditional (known or not): where TeX acts on an ``\\endinput``
    whatever the conditionals' values.  The text is scanned once, up to the last offset
    asked."""

    __slots__ = ("_braces", "_ifs", "_pos", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._pos = 0
        self._braces = 0
        self._ifs = 0

    def at(self, offset: int) -> bool:
        text = self._text
        for m in _TOP_LEVEL_TOKENS.finditer(text, self._pos, max(self._pos, offset)):
            name = m.group(1)
            if name == "fi":
                self._ifs = max(0, self._ifs - 1)
            elif name is not None:
                if conditional_opens(text, name, m.start()):
                    self._ifs += 1
            elif m.group() == "{":
                self._braces += 1
            elif m.group() == "}":
                self._braces = max(0, self._braces - 1)
        self._pos = max(self._pos, offset)
        return self._braces == 0 and self._ifs == 0

    def endinput_end(self, start: int, pos: int) -> int | None:
        """Where the file ends for an ``\\endinput`` from ``start`` to ``pos``: at the end
        of its line, which TeX still reads; None inside a group or a conditional (read
        on)."""
        if not self.at(start):
            return None
        line_end = self._text.find("\n", pos)
        return len(self._text) if line_end < 0 else line_end


def _value(text: str, name: str, end: int, flags: dict[str, bool]) -> bool | None:
    if name == "iffalse":
        return False
    if name == "iftrue":
        return True
    if name == "ifnum":
        m = _IFNUM.match(text, end)
        if m is None:
            return None
        if len(m.group(1)) > _NUMBER_DIGITS or len(m.group(3)) > _NUMBER_DIGITS:
            return None  # TeX stops on it ("Number too big"): its branch is not known
        a, op, b = int(m.group(1)), m.group(2), int(m.group(3))
        if max(abs(a), abs(b)) > _TEX_MAX_NUMBER:
            return None
        return a < b if op == "<" else a > b if op == ">" else a == b
    if name == "ifx":
        m = _IFX.match(text, end)
        if m is None:
            return None
        first, second = m.group(1) or m.group(2), m.group(3)
        if first == second:
            return True
        # two different characters that are no macros are different tokens
        plain = _PLAIN_CHAR.fullmatch
        return False if plain(first) and (second.isspace() or plain(second)) else None
    if name == "if":
        m = _IF_CHARS.match(text, end)
        return None if m is None else m.group(1) == m.group(2)
    if name == "ifodd":
        m = _NUMBER.match(text, end)
        return None if m is None else int(m.group(1)) % 2 == 1
    return flags.get(name[2:])


def _case(text: str, end: int) -> int | None:
    """The number an ``\\ifcase`` ending at ``end`` tests, when written out."""
    m = _NUMBER.match(text, end)
    return None if m is None else int(m.group(1))


#: what the short-verbatim scan stops at: a comment, a (Make|Delete)ShortVerb (groups 1-3),
#: any other escaped character or command start (passed over), then the active characters
_SHORT_VERB = r"%|\\(?:(Make|Delete)ShortVerb\*?[ \t]*(?:\{[ \t]*\\(.)[ \t]*\}|\\(.))|.)"
#: the ltxdoc class says ``\\AtBeginDocument{\\MakeShortVerb{\\|}}``
_LTXDOC = re.compile(r"\\documentclass[ \t]*(?:\[[^\]]*\][ \t]*)?\{ltxdoc\}")


def short_verbatim(text: str, inherited: frozenset[str] = frozenset()) -> list[tuple[int, int]]:
    """Regions that shortvrb's (and doc's) ``\\MakeShortVerb{\\|}`` makes verbatim, in
    order: from a ``|`` after it (not ``\\|``, not in a comment) to the next ``|`` on its
    line, or the line's end, until ``\\DeleteShortVerb{\\|}``.  The ltxdoc class makes
    ``|`` so at ``\\begin{document}``; ``inherited``: the characters the project's other
    files make so (:func:`short_verbs`).  One pass, in time linear in the text."""
    return _short_verbatim(text, inherited)[0]


def short_verbs(text: str) -> frozenset[str]:
    """The characters ``\\MakeShortVerb`` leaves verbatim at the end of ``text``, for the
    files read after it (LaTeX reads a project as one stream)."""
    if "ShortVerb" not in text:
        return frozenset()
    return frozenset(_short_verbatim(text, frozenset())[1])


def _short_verbatim(text: str, inherited: frozenset[str]) -> tuple[list[tuple[int, int]], set[str]]:
    """:func:`short_verbatim`, and the characters still verbatim at the end."""
    inherited = frozenset(c for c in inherited if c in text)
    if "ShortVerb" not in text and "ltxdoc" not in text and not inherited:
        return [], set()
    later: list[int] = []  # where ltxdoc makes | short-verbatim
    cls = _LTXDOC.search(text)
    if cls is not None:
        begin = text.find("\\begin{document}", cls.end())
        if begin >= 0:
            later.append(begin + len("\\begin{document}"))
    regions: list[tuple[int, int]] = []
    active: set[str] = set(inherited)
    chars = "".join("|" + re.escape(c) for c in sorted(active))
    scan = re.compile(_SHORT_VERB + chars, re.S)
    pos, n = 0, len(text)
    while pos < n:
        stop = later[0] if later else n
        m = scan.search(text, pos, max(stop, pos))
        if m is None:
            if not later:
                break
            pos = max(pos, later.pop(0))
            active.add("|")
            scan = re.compile(_SHORT_VERB + "|" + "|".join(map(re.escape, sorted(active))), re.S)
            continue
        token = m.group()
        if token == "%":  # a comment, to the end of its line
            end = text.find("\n", m.end())
            pos = n if end < 0 else end
        elif m.group(1):
            char = m.group(2) or m.group(3)
            (active.add if m.group(1) == "Make" else active.discard)(char)
            chars = "".join("|" + re.escape(c) for c in sorted(active))
            scan = re.compile(_SHORT_VERB + chars, re.S)
            pos = m.end()
        elif token.startswith("\\"):
            pos = m.end()
        else:  # an active character: verbatim to the next one on its line
            close = text.find(token, m.end())
            line_end = text.find("\n", m.end(), n if close < 0 else close)
            end = line_end if line_end >= 0 else n if close < 0 else close + 1
            regions.append((m.start(), end))
            pos = end
    return regions, active


def merged(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The union of two ordered lists of regions, ordered and without overlaps."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(a + b):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _etoolbox_skips(text: str, flags: dict[str, bool]) -> list[tuple[int, int]]:
    """The branch TeX skips of each etoolbox test of a known flag (``\\iftoggle{x}{..}{..}``,
    ``\\nottoggle``, ``\\ifbool``, ``\\notbool``): the braced argument not taken."""
    regions: list[tuple[int, int]] = []
    # the braces looked through, bounded so that unclosed tests keep the scan linear
    budget = 4 * len(text) + 200_000
    for m in _ETOOLBOX_TEST.finditer(text):
        if budget <= 0:
            break  # the tests left are read with both branches
        command, name = m.groups()
        value = flags.get((TOGGLE if "toggle" in command else "") + name)
        if value is None or _in_comment(text, m.start()):
            continue
        if _DEFINED_BEFORE.search(text, max(0, m.start() - 40), m.start()):
            continue
        first = _skip_spaces(text, m.end())
        if first >= len(text) or text[first] != "{":
            continue
        first_end = _close_brace(text, first, _MAX_BODY)
        budget -= first_end - first if first_end > 0 else min(_MAX_BODY, len(text) - first)
        second = _skip_spaces(text, first_end) if first_end > 0 else -1
        if second < 0 or second >= len(text) or text[second] != "{":
            continue
        second_end = _close_brace(text, second, _MAX_BODY)
        budget -= second_end - second if second_end > 0 else min(_MAX_BODY, len(text) - second)
        if second_end < 0:
            continue
        taken = value is command.startswith("if")
        regions.append((second, second_end) if taken else (first, first_end))
    return regions


def _skip_spaces(text: str, pos: int) -> int:
    """The first offset at or after ``pos`` that is no white space."""
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def conditional_skips(text: str, flags: dict[str, bool]) -> list[tuple[int, int]]:
    """Regions of ``text`` in a branch TeX skips, ``(start, end)`` in order, not nested:
    from a false conditional to its ``\\else`` or ``\\fi``, or from the ``\\else`` of a
    true one to its ``\\fi``, and the branch an etoolbox test of a known flag does not
    take.  Unmatched conditionals skip nothing."""
    skipped = _etoolbox_skips(text, flags) if flags and ("toggle" in text or "bool" in text) else []
    if _KNOWN_TEST.search(text) is None and not any("\\if" + f in text for f in flags):
        return _merged_regions(skipped)
    regions: list[tuple[int, int]] = skipped
    # (start of the \if, value, start of a pending skipped region or -1, the branches of
    # an \ifcase of a known number still to pass before its own, else -1)
    stack: list[tuple[int, bool | None, int, int]] = []
    for m in _CONDITIONAL_TOKENS.finditer(text):
        name = m.group(1)
        if _in_comment(text, m.start()) or _escaped_backslash(text, m.start()):
            continue
        if name == "fi":
            if stack:
                _, _, skip_from, _ = stack.pop()
                if skip_from >= 0:
                    regions.append((skip_from, m.end()))
        elif name == "or":
            if stack and stack[-1][3] >= 0:  # \ifcase: its branch starts, or ends
                start, value, skip_from, left = stack[-1]
                if left == 1:  # its own branch: read from here, to the next \or
                    regions.append((skip_from, m.end()))
                    stack[-1] = (start, True, -1, 0)
                elif left == 0:  # its branch ran: the rest is skipped to the \fi
                    stack[-1] = (start, None, m.start(), -1)
                else:
                    stack[-1] = (start, value, skip_from, left - 1)
        elif name == "else":
            if stack:
                start, value, skip_from, left = stack[-1]
                if value is False and skip_from >= 0:
                    regions.append((skip_from, m.end()))
                    stack[-1] = (start, None, -1, -1)
                elif value is True:
                    stack[-1] = (start, None, m.start(), -1)
        elif conditional_opens(text, name, m.start()):
            if name == "ifcase":
                case = _case(text, m.end())
                if case is not None:  # a negative number takes the \else branch
                    left = case if case >= 0 else len(text)
                    stack.append((m.start(), left == 0, -1 if left == 0 else m.start(), left))
                    continue
            value = _value(text, name, m.end(), flags)
            if value is not None and _UNLESS.search(text, max(0, m.start() - 40), m.start()):
                value = not value
            stack.append((m.start(), value, m.start() if value is False else -1, -1))
    return _merged_regions(regions)


def _merged_regions(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``regions`` in order, overlapping ones joined."""
    regions.sort()
    merged: list[tuple[int, int]] = []
    for a, b in regions:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


#: ``\\usepackage[options]{names}`` (or ``\\RequirePackage``) at the start of a match
_PACKAGE = re.compile(
    r"\\(?:usepackage|RequirePackage)\s*(?:\[([^\]]{0,2000})\]\s*)?\{([^{}]{0,2000})\}"
)
_BACKEND = re.compile(r"(?:^|,)\s*backend\s*=\s*([A-Za-z0-9]+)")
#: chapterbib options that change which .aux a bibliography reads (read as one unit)
_CHAPTERBIB_GATHERING = frozenset({"gather", "duplicate", "rootbib"})


#: Packages that trim the spaces around each key of a citation list (the cite bundle):
#: LaTeX's own ``\\cite``, natbib, biblatex and the others keep a space after a key.
TRIMMING = frozenset({"cite", "overcite"})

#: Document classes that leave LaTeX's own ``\\cite`` as it is: one optional argument,
#: then the key list, an undelimited argument (``\\cite[see][]{a}`` cites ``[``)
PLAIN_CITE_CLASSES = frozenset(
    {
        "article", "report", "book", "letter", "proc", "minimal", "amsart", "amsbook",
        "amsproc", "scrartcl", "scrreprt", "scrbook", "extarticle", "extreport", "extbook",
    }
)  # fmt: skip
#: Packages that leave it so (the cite bundle's ``\\cite`` reads one optional argument
#: too); natbib, biblatex, jurabib and the others read two
PLAIN_CITE_PACKAGES = frozenset(
    {
        "amsmath", "amssymb", "amsthm", "amsfonts", "graphicx", "graphics", "hyperref", "url",
        "xcolor", "color", "geometry", "inputenc", "fontenc", "babel", "lmodern", "times",
        "mathptmx", "booktabs", "array", "tabularx", "longtable", "multirow", "caption",
        "subcaption", "float", "enumitem", "xspace", "microtype", "fancyhdr", "setspace",
        "cite", "overcite", "verbatim", "listings", "comment", "textcomp", "lipsum",
    }
)  # fmt: skip
_CLASS = re.compile(r"\\documentclass\s*(?:\[[^\]]{0,500}\]\s*)?\{\s*([^{}\s]{1,100})\s*\}")


def document_class(text: str, start: int) -> str | None:
    """The class the ``\\documentclass`` at ``text[start]`` loads."""
    m = _CLASS.match(text, start)
    return m.group(1) if m else None


def package_names(text: str, start: int) -> frozenset[str]:
    """The packages the ``\\usepackage`` at ``text[start]`` loads."""
    m = _PACKAGE.match(text, start)
    return frozenset(name.strip() for name in m.group(2).split(",")) if m else frozenset()


def package_options(text: str, start: int) -> str:
    """The options of the ``\\usepackage`` at ``text[start]`` (``""``: none)."""
    m = _PACKAGE.match(text, start)
    return (m.group(1) or "") if m else ""


def read_package(text: str, start: int) -> tuple[str | None, bool | None]:
    """The ``\\usepackage`` at ``text[start]``: the ``backend=`` option (lower case) when it
    loads biblatex with one, and whether it loads chapterbib without an option that
    gathers or duplicates the chapters' citations in the root's bibliography (None: it
    does not load chapterbib)."""
    m = _PACKAGE.match(text, start)
    if m is None:
        return None, None
    packages = {name.strip() for name in m.group(2).split(",")}
    options = m.group(1) or ""
    backend = None
    if "biblatex" in packages and (found := _BACKEND.search(options)) is not None:
        backend = found.group(1).lower()
    chapterbib = None
    if "chapterbib" in packages:
        chapterbib = not {o.strip() for o in options.split(",")} & _CHAPTERBIB_GATHERING
    return backend, chapterbib


#: biblatex's ``bibencoding=`` option (of the package, ``\\ExecuteBibliographyOptions`` or a
#: resource) and inputenc's encoding option
_BIBENCODING = re.compile(r"bibencoding\s*=\s*(?:\{\s*)?([A-Za-z0-9_.:-]+)")
_INPUTENC = re.compile(r"\\usepackage\s*\[\s*([A-Za-z0-9_.:-]+)\s*\]\s*\{\s*inputenc\s*\}")


def bib_encoding(text: str) -> str:
    """The encoding ``text`` declares for the .bib files biber reads, lower case (``""``:
    none): biblatex's ``bibencoding=`` option, else (its default ``auto``) inputenc's."""
    found = ""
    if "bibencoding" in text:
        for m in _BIBENCODING.finditer(text):
            if not in_comment(text, m.start()) and m.group(1).lower() != "auto":
                return m.group(1).lower()
    if "inputenc" in text:
        for m in _INPUTENC.finditer(text):
            if not in_comment(text, m.start()):
                found = found or m.group(1).lower()
    return found


def project_context(documents: list[tuple[ParsedDocument, str]]) -> LatexContext:
    """What every document of a project (given with its text) inherits: the citation macros
    of all of them, the flags whose value the project knows (set one way only, or defined
    and never set), the fixed-key macros used anywhere, and how the packages read braces in
    citation keys (biblatex before cite), the verbatim-like environments any of them
    defines, the labels of the resources they declare and the plain-text macros they
    define one way only, the environments whose begin code redefines a command (the last
    definition of each), and whether one loads jurabib."""
    values: dict[str, set[bool]] = {}
    for doc, _ in documents:
        for name, value in doc.flags:
            states = values.setdefault(name, set())
            if value is not None:
                states.add(value)
    flags = tuple((name, True in v) for name, v in values.items() if len(v) < 2)
    macros = tuple(dict.fromkeys(m for doc, _ in documents for m in doc.citation_macros))
    fixed = [(m.name, cites_default(m)) for m in macros if m.fixed]
    used = frozenset(
        name for name, bare in fixed if any(is_used(text, name, bare=bare) for _, text in documents)
    )
    readings = {doc.key_braces for doc, _ in documents}
    braces = next((b for b in ("biblatex", "cite") if b in readings), "")
    verbatim = frozenset(name for doc, _ in documents for name in doc.verbatim_envs)
    short = frozenset(c for doc, _ in documents for c in doc.short_verbs)
    labels: dict[str, str] = {}
    for doc, _ in documents:
        for label, resource in doc.resource_labels:
            labels.setdefault(label, resource)
    plain_cite = any(doc.plain_cite for doc, _ in documents)
    bibunits = any(doc.bibunits for doc, _ in documents)
    newcites = tuple(dict.fromkeys(s for doc, _ in documents for s in doc.newcites))
    bodies: dict[str, set[str]] = {}
    for doc, _ in documents:
        for name, body in doc.text_macros:
            bodies.setdefault(name, set()).add(body)
    text_macros = tuple((name, next(iter(b))) for name, b in bodies.items() if len(b) == 1)
    environments = {name: codes for doc, _ in documents for name, codes in doc.environment_codes}
    return LatexContext(
        macros,
        flags,
        used,
        flag_names=frozenset(values),
        key_braces=braces,
        verbatim_envs=verbatim,
        resource_labels=tuple(labels.items()),
        short_verbs=short,
        plain_cite=plain_cite,
        bibunits=bibunits,
        newcites=newcites,
        text_macros=text_macros,
        jurabib=any(doc.jurabib for doc, _ in documents),
        environment_codes=tuple(environments.items()),
    )


#: ``\\cite`` with an optional argument or a star, ``\\nocite`` with a star
_CITE_OPTION = re.compile(r"\\(?:no)?cite\s*[\[*]")
_NOCITE_STAR = re.compile(r"\\nocite\s*\*")


def context_applies(text: str, doc: ParsedDocument, context: LatexContext) -> bool:
    """Whether parsing ``text`` (parsed as ``doc``) with ``context`` can give another parse
    than without it.  It cannot when the file defines no citation macro and no flag of its
    own, ``text`` names none of the context's macros and flags (not even inside a longer
    name) and none of its verbatim-like environments in braces, and no braced key of it is
    read by the context's packages: every use of the context is through one of those."""
    if doc.citation_macros or doc.flags:
        return True
    if doc.braced_keys and context.key_braces and not doc.key_braces:
        return True  # the project's packages read its braced keys
    if any("{" + name + "}" in text for name in context.verbatim_envs - doc.verbatim_envs):
        return True  # it uses an environment another file defines
    if any(c in text for c in context.short_verbs - doc.short_verbs):
        return True  # a character another file makes short verbatim
    if any("{" + name + "}" in text for name, _ in context.environment_codes):
        return True  # it uses an environment whose begin code redefines a command
    if context.plain_cite and _CITE_OPTION.search(text):
        return True  # LaTeX's own \\cite may read a second option's "[" or a star as its key
    if (context.bibunits or context.key_braces == "biblatex") and _NOCITE_STAR.search(text):
        return True  # bibunits' \\nocite* reads keys, biblatex's \\nocite has no star
    if context.key_braces == "biblatex" != doc.key_braces and doc.nocite_all_at:
        return True  # biblatex warns of \\cite{*}: the citation of '*' is kept
    if doc.macro_keys and not {n for n, _ in context.text_macros}.isdisjoint(doc.macro_keys):
        return True  # a key written with a macro another file defines
    if any(name in text or link >= 0 for name, link, _ in context.silenced):
        # a citation command another file redefines to write nothing, or one a file its
        # include links read does: a group of it holding the link ends the redefinition
        return True
    if context.jurabib and not doc.jurabib and "citefield" in text:
        return True  # jurabib's \\citefield names the field first
    if any(f"nocite{suffix}" in text for suffix in context.newcites):
        return True  # \\nocitesw{*} cites the files of another file's list
    if context.lost_nocite and "nocite" in text:
        return True  # read in a preamble where \\nocite writes nothing
    if context.resource_labels and "refsection" in text:
        own = dict(doc.resource_labels)
        if any(label in text for label, _ in context.resource_labels if label not in own):
            return True  # a section of it may name a resource another file labels
    names = [m.name for m in context.macros]
    names += context.flag_names
    names += (name for name, _ in context.flags)
    return any(name.removeprefix(TOGGLE) in text for name in names)


def document_flags(
    sets: dict[str, bool | None], defined: frozenset[str]
) -> tuple[tuple[str, bool | None], ...]:
    """What a file tells its project of flags (:attr:`ParsedDocument.flags`): each value it
    sets them to (both, when set both ways), and None for a flag it defines and leaves."""
    out: list[tuple[str, bool | None]] = []
    for name, value in sets.items():
        out += [(name, True), (name, False)] if value is None else [(name, value)]
    out += [(name, None) for name in sorted(defined) if name not in sets]
    return tuple(out)


#: Commands that make an environment whose content LaTeX does not read as commands (or
#: skips, as the comment package's excluded ones): fancyvrb's ``\\DefineVerbatimEnvironment``,
#: listings' ``\\lstnewenvironment``, tcolorbox's ``\\newtcblisting`` and
#: ``\\DeclareTCBListing``, the comment package's ``\\excludecomment``; 1: the command,
#: 2: an optional argument, 3: the first mandatory one.
_VERBATIM_DEFINITION = re.compile(
    r"\\(DefineVerbatimEnvironment|lstnewenvironment|newtcblisting|DeclareTCBListing"
    r"|excludecomment|newminted)(?![A-Za-z@])\*?[ \t]*(?:\r?\n[ \t]*)?"
    r"(?:\[([^\[\]{}\n]{0,200})\][ \t]*(?:\r?\n[ \t]*)?)?\{[ \t]*([^{}\\#%\s]{1,100})[ \t]*\}"
)
_VERBATIM_NEEDLES = ("Verbatim", "lstnew", "tcblisting", "TCBListing", "xcludecomment", "minted")


#: a definition of LaTeX's ``\\input@path``: 1: its body (one group deep)
_INPUT_PATH = re.compile(
    r"\\(?:[gex]?def|(?:re|provide|new)command\*?)\s*(?:\{\s*)?\\input@path\s*(?:\}\s*)?"
    r"\{((?:[^{}]|\{[^{}]*\}){0,2000})\}"
)
_INPUT_PATH_ENTRY = re.compile(r"\{\s*([^{}\\#%]*?/)\s*\}")


def input_path(text: str) -> tuple[str, ...]:
    """The folders of the ``\\input@path`` definitions of ``text`` (outside comments),
    in order: each braced entry that ends in ``/`` (LaTeX puts the entry before the file
    name, so one without a slash names no folder)."""
    if "input@path" not in text:
        return ()
    found: list[str] = []
    for m in _INPUT_PATH.finditer(text):
        if not in_comment(text, m.start()):
            found += _INPUT_PATH_ENTRY.findall(m.group(1))
    return tuple(dict.fromkeys(found))


def verbatim_environments(text: str) -> frozenset[str]:
    """The names of the verbatim-like environments ``text`` defines (outside comments):
    ``\\DefineVerbatimEnvironment{code}{Verbatim}{}`` and the like, minted's
    ``\\newminted{py}{}`` (the ``pycode`` and ``pycode*`` environments, or the name its
    optional argument gives)."""
    if not any(needle in text for needle in _VERBATIM_NEEDLES):
        return frozenset()
    names: set[str] = set()
    for m in _VERBATIM_DEFINITION.finditer(text):
        if in_comment(text, m.start()):
            continue
        name = m.group(3)
        if m.group(1) == "newminted":  # and its starred form
            name = (m.group(2) or "").strip() or name + "code"
            names.add(name + "*")
        names.add(name)
    return frozenset(names)
