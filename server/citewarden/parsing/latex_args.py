"""Argument readers of the LaTeX reader: brace, bracket and delimiter matchers bounded in
length and nesting, citation key groups (single, multicite, volcite, wrapper macros), file
links (``\\input``, ``\\import``, ``\\subfix``) and the code arguments skipped
unread.  See :mod:`~citewarden.parsing.latex`."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterator
from typing import Literal

from citewarden.model import (
    Citation,
    CitationKind,
    CitationMacro,
    Link,
    LinkKind,
    Span,
    sound_span,
)
from citewarden.parsing.latex_commands import _BIBRESOURCE, _INCLUDE, VERBATIM_ENVIRONMENTS
from citewarden.parsing.latex_options import PARAGRAPH_BREAK, close_delimited
from citewarden.parsing.latex_static import in_comment, line_end, verbatim_environments
from citewarden.parsing.tex_tokens import BRACE_TOKENS

#: Spaces, single newlines and comments between a command and its arguments (a blank line
#: ends the argument list, as ``\par`` does in TeX).
_SKIP = re.compile(r"(?:[ \t]+|%[^\n]*|\r?\n(?![ \t]*\r?\n))*")
_PAR = PARAGRAPH_BREAK
_BRACE_TOKENS = re.compile(BRACE_TOKENS.pattern + "|" + _PAR)
_RAW_BRACE_TOKENS = re.compile(r"\\[\s\S]|[{}]|" + _PAR)
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
_MAX_CODE = 5_000
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


#: Deepest nesting of braces in a key list (``\\cite{{a}b}`` is 2).
_MAX_KEY_NESTING = 3
_KEY_TOKENS = re.compile(r"\\[A-Za-z@]|" + BRACE_TOKENS.pattern + "|" + _PAR)


def _close_keys(text: str, i: int) -> int:
    """``text[i] == "{"`` opens a key list: the offset after its matching ``}``, or -1.
    Braces may nest in it (``\\cite{{a},b}``, which LaTeX reads as ``a,b``) up to
    :data:`_MAX_KEY_NESTING`; once one has, a command word ends the list as malformed, so
    an unclosed list ends at the next command (``\\cite{{\\cite{{...``), and
    reading a file's citations stays linear: the list of the next ``\\cite{`` nests in
    this one, which then ends at the next command.  It has no length limit: LaTeX reads a
    ``\\nocite`` of thousands of keys whole."""
    depth = 0
    nested = False
    for m in _KEY_TOKENS.finditer(text, i):
        token = m.group()
        c = token[0]
        if c == "{":
            if depth:
                nested = True
                if depth >= _MAX_KEY_NESTING:
                    return -1
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return m.end()
        elif c == "\n" or (nested and c == "\\" and token[1:].isalpha()):
            return -1
    return -1


def _cite_groups(
    text: str, i: int, multi: bool, nest: bool = False
) -> tuple[list[tuple[int, int]], int]:
    """Read citation arguments starting at ``i`` (just after the command name): optional
    arguments end at their first ``]``, as TeX's delimited arguments do (``nest``: at the
    matching one, as those of a command defined by ``\\NewDocumentCommand`` do).

    Returns the key groups as ``(content_start, content_end)`` -- ``content_end`` is -1 for a
    group that never closes -- and the offset after the last complete argument.
    """
    n = len(text)
    groups: list[tuple[int, int]] = []
    if multi:
        for _ in range(2):  # (global prenote)(global postnote)
            j = _skip(text, i)
            if j < n and text[j] == "(":
                k = close_delimited(text, j)
                if k < 0:
                    return groups, i
                i = k
            else:
                break
    while True:
        j = _skip(text, i)
        optionals = 0
        while j < n and optionals < 3 and (text[j] == "[" or (text[j] == "<" and not multi)):
            k = close_delimited(text, j, nest=nest or text[j] != "[")
            if k < 0:
                return groups, i
            j = _skip(text, k)
            optionals += 1
        if optionals and not nest and j < n and text[j] == "]":
            # the optional argument ended at an earlier "]" (``[see [4]]``): TeX reads
            # this one as the key list, an undelimited argument
            groups.append((j, j + 1))
            i = j + 1
            if not multi:
                return groups, i
            continue
        if j >= n or text[j] != "{":
            return groups, i
        k = _close_keys(text, j)
        if k < 0:
            groups.append((j + 1, -1))
            return groups, j + 1
        groups.append((j + 1, k - 1))
        i = k
        if not multi:
            return groups, i


def past_group(text: str, i: int) -> int:
    """After the optional ``[..]`` and the braced group that follow ``i`` (jurabib's
    ``\\citefield[pages]{field}``, before its keys); ``i`` when no group follows."""
    j = _skip(text, i)
    if j < len(text) and text[j] == "[":
        k = close_delimited(text, j)
        if k < 0:
            return i
        j = _skip(text, k)
    if j < len(text) and text[j] == "{":
        k = _close_brace(text, j)
        return k if k >= 0 else i
    return i


#: natbib's commands that read their first optional argument twice (``\\NAT@citetp``)
NATBIB_REREAD = frozenset(
    {
        "cite", "citep", "citet", "citealt", "citealp", "citeauthor", "Citet", "Citep",
        "Citealt", "Citealp", "Citeauthor", "citeyear", "citeyearpar",
    }
)  # fmt: skip


def reread_option_key(text: str, i: int) -> tuple[int, int, int] | None:
    """LaTeX's own ``\\cite`` and natbib's :data:`NATBIB_REREAD` read a sole optional
    argument twice: TeX strips the braces of one that is a brace group wholly, and the
    second reading ends it at the first ``]`` inside; the key list is then what follows
    that ``]`` (``\\cite[{see [4]}]{a}`` cites ``]``, ``\\cite[{p]q}]{a}`` cites ``q``).
    -> (key list start, its end, where reading goes on), or None where none is so read."""
    j = _skip(text, i)
    n = len(text)
    if j + 1 >= n or text[j] != "[" or text[j + 1] != "{":
        return None
    k = close_delimited(text, j, nest=False)
    if k < 0 or group_end(text, j + 1) != k - 2:
        return None  # not one brace group wholly
    after = _skip(text, k)
    if after < n and text[after] == "[":
        return None  # a second optional argument: read once
    depth = 0
    for p in range(j + 2, k - 2):
        c = text[p]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth == 0 and text[p - 1] != "\\":
            break
    else:
        return None  # no "]" inside: the second reading is the first's
    q = p + 1
    while q < k - 2 and text[q] in " \t\n":
        q += 1
    if q >= k - 2:
        return k - 1, k, k  # the argument's own closing "]"
    if text[q] == "{":
        close = group_end(text, q)
        return (q + 1, close, k) if 0 < close < k - 2 else None
    return None if text[q] == "\\" else (q, q + 1, k)


def plain_key_bracket(text: str, i: int) -> int:
    """Where LaTeX's own ``\\cite``, which reads one optional argument and then its key
    list as an undelimited argument, reads a ``[`` as the key: a second ``[...]`` after the
    first, at ``i`` (``\\cite[see][]{a}`` cites ``[``, and ``a`` is text); -1: none."""
    j = _skip(text, i)
    n = len(text)
    if j >= n or text[j] != "[":
        return -1
    k = close_delimited(text, j, nest=False)
    if k < 0:
        return -1
    j = _skip(text, k)
    return j if j < n and text[j] == "[" else -1


def _volcite_groups(text: str, i: int, multi: bool = False) -> tuple[list[tuple[int, int]], int]:
    """``[prenote]{volume}[pages]{key}`` after ``\\volcite`` (``multi``: after
    ``\\volcites``, its ``(pre)(post)`` global notes, then such groups as long as one
    follows); same result as :func:`_cite_groups`."""
    groups: list[tuple[int, int]] = []
    if multi:
        n = len(text)
        for _ in range(2):  # (global prenote)(global postnote)
            j = _skip(text, i)
            if j >= n or text[j] != "(":
                break
            k = close_delimited(text, j)
            if k < 0:
                return groups, i
            i = k
    while True:
        group, end = _volcite_group(text, i)
        groups += group
        if not multi or not group or group[-1][1] < 0:
            return groups, end
        i = end


def _volcite_group(text: str, i: int) -> tuple[list[tuple[int, int]], int]:
    """One ``[prenote]{volume}[pages]{key}`` group at ``i``; same result as
    :func:`_cite_groups`."""
    n = len(text)
    j = _skip(text, i)
    if j < n and text[j] == "[":
        k = close_delimited(text, j)
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
        k = close_delimited(text, j)
        if k < 0:
            return [], end
        j = _skip(text, k)
    if j >= n or text[j] != "{":
        return [], end
    k = _close_keys(text, j)
    if k < 0:
        return [(j + 1, -1)], j + 1
    return [(j + 1, k - 1)], k


#: How a package reads braces in a citation key (see :func:`_braced_key`).
KeyBraces = Literal["latex", "cite", "biblatex"]


def _split_keys(
    text: str, start: int, end: int, braces: KeyBraces = "latex"
) -> Iterator[tuple[str, int, int]]:
    """Comma-separated, trimmed items of ``text[start:end]`` as (key, start, end); an empty
    item is ``("", p, p)`` with ``p`` just after its opening delimiter.  Braces in an item
    are read as ``braces`` says (see :func:`_braced_key`)."""
    segment = text[start:end]
    if "%" in segment:
        segment = _ARG_COMMENT.sub(lambda m: " " * len(m.group()), segment)
    offset = start
    for piece in _top_level_items(segment) if "{" in segment else segment.split(","):
        item = piece.strip()
        if item:
            lead = offset + len(piece) - len(piece.lstrip())
            key = item if "{" not in item else _braced_key(piece, braces)
            yield key, lead, lead + len(item)
        else:
            yield "", offset, offset
        offset += len(piece) + 1


def _top_level_items(segment: str) -> list[str]:
    """``segment`` split at the commas outside braces."""
    items: list[str] = []
    depth = begin = 0
    for i, c in enumerate(segment):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "," and depth == 0:
            items.append(segment[begin:i])
            begin = i + 1
    items.append(segment[begin:])
    return items


def wholly_braced(text: str) -> bool:
    """Is ``text`` one brace group (``{a b}``, not ``{a} {b}``)?"""
    return text.startswith("{") and group_end(text, 0) == len(text) - 1


def group_end(text: str, i: int) -> int:
    """``text[i] == "{"``: the offset of its matching ``}``, or -1."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _braced_key(piece: str, braces: KeyBraces) -> str:
    """The key a package reads from a list item holding braces.  biblatex keeps them
    (``{c}`` is the key).  The cite package's loop strips the braces around an item that
    is one group exactly (a TeX delimited argument): ``{c}`` reads ``c``, ``{{c}}`` reads
    ``{c}``, ``{a}b`` stays; it trims the item's spaces first.  LaTeX's own ``\\cite`` (and natbib's) then also strips
    those of the group the item starts with (``\\@firstofone``): ``{{c}}`` reads ``c``,
    ``{a}b`` reads ``ab``."""
    if braces == "biblatex":
        return piece.strip()
    if braces == "cite":
        piece = piece.strip()  # it trims the spaces first
    if wholly_braced(piece):
        piece = piece[1:-1]
    item = piece.strip()
    if braces == "latex" and item.startswith("{") and (close := group_end(item, 0)) > 0:
        item = item[1:close] + item[close + 1 :]
    return item.strip()


class IncludeLinks:
    """Where the include commands of a file's links stand (each one's backslash; a link's
    span is its argument's), read on as its reader appends links to the list (it puts
    those of refsections, which include nothing, first, once)."""

    __slots__ = ("_first", "_known", "_links", "_text", "offsets")

    def __init__(self, text: str, links: list[Link]) -> None:
        self._text = text
        self._links = links
        self._known = 0
        self._first: Link | None = None
        self.offsets: list[int] = []

    def read(self) -> list[int]:
        """The offsets of the include commands of the links so far, in order."""
        links = self._links
        if len(links) != self._known or (links and links[0] is not self._first):
            if links and links[0] is self._first:
                new = links[self._known :]
            else:
                new, self.offsets = links, []
            self.offsets += [
                max(0, self._text.rfind("\\", 0, link.span.start))
                for link in new
                if link.kind is LinkKind.INCLUDE
            ]
            self._known, self._first = len(links), links[0] if links else None
        return self.offsets


class KeyMacros:
    """The plain-text macros a citation key may be written with where it stands (name ->
    body), and the names the file's keys were written with.  The keys expanded in a file
    are at most ``budget`` characters in all (past it a key so written is skipped), so a
    short key list of a long list's macro does not make a file hold far more citations
    than characters."""

    __slots__ = ("_includes", "_own", "_starts", "budget", "read", "used", "values")

    def __init__(
        self,
        values: dict[str, str],
        budget: int,
        starts: tuple[tuple[str, int], ...] | None = None,
        includes: IncludeLinks | None = None,
    ) -> None:
        self.values = values
        self.used: dict[str, None] = {}
        self.read = 0  # how many of the file's own definitions are in ``values``
        self.budget = budget
        #: where each macro of ``values`` applies from in document order (as
        #: :attr:`~citewarden.model.LatexContext.starts`), after how many ``includes``
        self._starts = None if starts is None else dict(starts)
        self._includes = includes
        self._own: set[str] = set()

    def define(self, own: list[tuple[str, str]]) -> None:
        """Take in the definitions of ``own`` (the file's, in order) not yet read: each
        holds from where it stands."""
        self.values.update(own[self.read :])
        self._own.update(name for name, _ in own[self.read :])
        self.read = len(own)

    def _body(self, name: str) -> str | None:
        """The body of ``name`` where the reading stands: the file's own definition, or
        the project's one defined before in document order."""
        body = self.values.get(name)
        if body is None or name in self._own or self._starts is None:
            return body
        after = self._starts.get(name)
        if after is None:
            return None
        if after < 0:
            return body
        read = len(self._includes.read()) if self._includes is not None else 0
        return body if read > after else None

    def expand(self, key: str) -> list[str] | None:
        """The keys LaTeX writes for ``key`` written with macros: each macro replaced by
        its body (spaces after its name dropped), then split at the commas, as BibTeX
        and biber read the list written out; None when a macro has no known body (or the
        keys would be longer than an argument may be)."""
        parts: list[str] = []
        at = size = 0
        known = True
        for m in _KEY_MACRO.finditer(key):
            name = m.group(1)
            if name is None:
                return None  # a control symbol: not a plain-text key
            self.used[name] = None
            body = self._body(name)
            known = known and body is not None and size < _MAX_ARG
            if known:
                parts += (key[at : m.start()], body or "")
                size += len(body or "")
            at = m.end()
        if not known or size > self.budget:
            return None
        self.budget -= size
        parts.append(key[at:])
        return [k for k in (k.strip() for k in "".join(parts).split(",")) if k]


_KEY_MACRO = re.compile(r"\\(?:([A-Za-z@]+)\s*|.)", re.S)


_new = object.__new__
_CITATION_SLOTS = tuple(
    getattr(Citation, name).__set__ for name in ("key", "span", "command", "command_span", "kind")
)


#: in :attr:`~citewarden.model.ParsedDocument.nocite_all_in`, before a multibib list's
#: suffix: its ``\\nocitesw{*}`` cites every entry of the list's files
LIST_STAR = "\x00"


def _add_keys(
    citations: list[Citation],
    text: str,
    start: int,
    end: int,
    command: str,
    command_span: Span,
    kind: CitationKind,
    braces: KeyBraces = "latex",
    macros: KeyMacros | None = None,
) -> bool:
    """Append a :class:`Citation` per key of ``text[start:end]`` (as :func:`_split_keys`
    splits and reads them; keys holding ``#`` skipped, and those holding ``\\`` unless
    ``macros`` expands them, ``*`` too for ``\\nocite``).  Returns whether a ``*`` was among them: BibTeX and biber read
    ``\\cite{*}`` as ``\\nocite{*}``, every entry (the citation of ``*`` is kept, which
    biblatex finds undefined)."""
    set_key, set_span, set_command, set_command_span, set_kind = _CITATION_SLOTS
    nocite = kind is CitationKind.NOCITE
    nocite_all = False
    for key, ks, ke in _keys_expanded(_split_keys(text, start, end, braces), macros):
        if key == "*":
            nocite_all = True
            if nocite:
                continue
        elif key and ("#" in key or "\\" in key):
            continue
        citation = _new(Citation)
        set_key(citation, key)
        set_span(citation, sound_span(ks, ke))
        set_command(citation, command)
        set_command_span(citation, command_span)
        set_kind(citation, kind)
        citations.append(citation)
    return nocite_all


def _keys_expanded(
    keys: Iterator[tuple[str, int, int]], macros: KeyMacros | None
) -> Iterator[tuple[str, int, int]]:
    """``keys``, each written with macros (no ``#``) replaced by the keys ``macros``
    expands it to, on its span."""
    for key, ks, ke in keys:
        if macros is None or "\\" not in key or "#" in key:
            yield key, ks, ke
            continue
        expanded = macros.expand(key)
        if expanded is None:
            yield key, ks, ke  # skipped by the caller
            continue
        for written in expanded:
            yield written, ks, ke


def _mcite_sets(citations: list[Citation], first: int, sets: list[tuple[str, Span]]) -> None:
    """Read the keys of a biblatex mcite command, ``citations[first:]``, as it does: a
    ``*key`` is a member of the set the key before it names (the set is appended to
    ``sets``), cited under its own name; one no key precedes is dropped."""
    keys = citations[first:]
    del citations[first:]
    head: Citation | None = None
    for i, citation in enumerate(keys):
        if not citation.key.startswith("*"):
            head = citation
            citations.append(citation)
            continue
        if head is None or len(citation.key) == 1:
            continue
        if i == 0 or not keys[i - 1].key.startswith("*"):
            sets.append((head.key, head.span))
        span = citation.span
        member = Citation(
            citation.key[1:],
            sound_span(span.start + 1, span.end),
            citation.command,
            citation.command_span,
            citation.kind,
        )
        citations.append(member)


#: The usual citation arguments, ``[opt]{keys}`` or ``{keys}`` on one line with nothing
#: to match inside (no braces, brackets, backslash or comment): read by one match, with the
#: same result as :func:`_cite_groups` (within its length limits).
_SIMPLE_CITE_ARGS = re.compile(
    r"[ \t]*(?:\[[^\[\]{}\\%\n]{0,1998}\][ \t]*)?\{([^{}\\%\n]{0,19998})\}"
)


def _single_arg(text: str, i: int, flat: bool = True) -> tuple[int, int, int] | None:
    """A mandatory ``{...}`` argument at ``i`` (after optional ``[...]``s): (content start,
    content end, offset after it), or None; ``flat``: one holding braces is malformed."""
    j = _skip(text, i)
    n = len(text)
    while j < n and text[j] == "[":
        k = close_delimited(text, j)
        if k < 0:
            return None
        j = _skip(text, k)
    if j >= n or text[j] != "{":
        return None
    k = _close_brace(text, j, flat=flat)
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
    end = line_end(text, i + 1)
    close = text.find(delim, i + 1, end)
    return close + 1 if close >= 0 else end


def _skip_inline_code(text: str, i: int, mint: bool) -> int:
    """``\\lstinline[opts]{code}``, ``\\url|code|``, ``\\mintinline[opts]{lang}{code}``."""
    n = len(text)
    j = _skip(text, i)
    if j < n and text[j] == "[":
        k = close_delimited(text, j)
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


def _skip_environment(text: str, i: int, defined: frozenset[str] = frozenset()) -> int:
    """After ``\\begin``: if a verbatim-like environment opens (one LaTeX knows, or one of
    ``defined``, the document's), the offset after its end."""
    m = _BEGIN_NAME.match(text, i)
    if m is None or (m.group(1) not in VERBATIM_ENVIRONMENTS and m.group(1) not in defined):
        return i
    end = text.find("\\end{" + m.group(1) + "}", m.end())
    return len(text) if end < 0 else end + len(m.group(1)) + 6


#: verbatim environments that read no option: the rest of the ``\\begin`` line is theirs
_NO_OPTIONS = frozenset({"verbatim", "verbatim*", "comment", "filecontents", "filecontents*"})
_OPTION_AFTER = re.compile(r"[ \t]*\[")


def verbatim_options(text: str, i: int) -> tuple[int, int] | None:
    """After ``\\begin`` of a verbatim environment (:func:`_skip_environment`): its
    ``[options]`` on that line, which TeX reads before the verbatim text, so a citation in
    them cites (``\\begin{lstlisting}[caption={From \\cite{a}}]``); None: none."""
    m = _BEGIN_NAME.match(text, i)
    if m is None or m.group(1) in _NO_OPTIONS or (o := _OPTION_AFTER.match(text, m.end())) is None:
        return None
    end = close_delimited(text, o.end() - 1, nest=False)
    return None if end < 0 else (o.end() - 1, end)


_CODE_START = re.compile(r"\\(?:verb(?![A-Za-z])\*?|lstinline(?![A-Za-z])|begin(?=\s*\{))")


class CodeRegions:
    """The verbatim environments and ``\\verb`` / ``\\lstinline`` code of a text, which
    LaTeX does not read as commands (found outside comments, in one pass)."""

    def __init__(self, text: str) -> None:
        self._regions: list[tuple[int, int]] = []
        pos = 0
        defined = verbatim_environments(text)
        for m in _CODE_START.finditer(text):
            if m.start() < pos or in_comment(text, m.start()):
                continue
            written = m.group()
            if written.startswith("\\begin"):
                end = _skip_environment(text, m.end(), defined)
                if end == m.end():
                    continue  # not a verbatim environment
            elif written.startswith("\\verb"):
                end = _skip_delimited_code(text, m.end())
            else:
                end = _skip_inline_code(text, m.end(), mint=False)
            self._regions.append((m.start(), end))
            pos = end
        self._starts = [start for start, _ in self._regions]

    def holds(self, i: int) -> bool:
        """``i`` is inside code."""
        at = bisect.bisect_right(self._starts, i) - 1
        return at >= 0 and i < self._regions[at][1]


def _is_definition(text: str, start: int) -> bool:
    return _DEFINITION_BEFORE.search(text, max(0, start - 40), start) is not None


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
                k = close_delimited(text, j)
                if k < 0:
                    break
                if number in macro.keys:  # \newcommand{\mc}[1][]{\cite{#1}}: \mc[a]
                    groups.append((j + 1, k - 1))
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


def _magic_root_at(text: str, comment: int) -> str | None:
    """The value of a ``% !TEX root = file`` comment starting at ``comment`` (only spaces
    before it on its line), or None."""
    line = text.rfind("\n", 0, comment) + 1
    m = _MAGIC_ROOT.match(text, line)
    if m is None or m.start(1) < comment:
        return None
    return m.group(1).strip() or None


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
            links.append(Link(kind, item[0], Span(item[1], item[2]), name, beside=True))
        return subfix.end()
    # biblatex reads a resource's name verbatim, braces and all (``bib/{a,b}.bib``)
    arg = _single_arg(text, pos, flat=False) if role == _BIBRESOURCE else None
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
    if item is not None and "#" not in item[0]:  # \chapters/intro: the project may define it
        glob = role == _BIBRESOURCE and _globbed(text, pos, arg[0])
        links.append(Link(kind, item[0], Span(item[1], item[2]), name, glob=glob))
    return arg[2]


#: The value of biblatex's ``glob`` option: a word, braced or not.
_GLOB_VALUE = re.compile(r"\w*")


def glob_option(options: str) -> str | None:
    """The value of the first ``glob`` key of a key=value list (``glob`` alone is ``true``;
    ``glob = {false}`` is ``false``), read part by part: a pattern with white space on both
    sides of each optional brace took 77 s for 500 spaces."""
    for part in options.split(","):
        key, eq, value = part.partition("=")
        if key.strip() != "glob":
            continue
        if not eq:
            return "true"
        word = value.strip().removeprefix("{").removesuffix("}").strip()
        if _GLOB_VALUE.fullmatch(word):
            return word or "true"
    return None


def _globbed(text: str, pos: int, arg_start: int) -> bool:
    """Do the options of ``\\addbibresource[...]{...}`` between ``pos`` and the argument
    at ``arg_start`` ask biber to expand the name as a pattern (``glob``, ``glob=true``)?"""
    options = text[pos:arg_start].strip().removesuffix("{").strip()
    if not options.startswith("[") or not options.endswith("]"):
        return False
    return (glob_option(options[1:-1]) or "").lower() == "true"


#: ``\\usepackage[options]{a,b}``, ``\\documentclass[options]{c}`` and friends at the start
#: of a match: the names
_LOAD = re.compile(r"\\[A-Za-z]+\s*(?:\[[^\]]{0,2000}\]\s*)?\{([^{}]{0,2000})\}")


def _read_load_links(text: str, start: int, name: str, links: list[Link]) -> None:
    """``\\usepackage{a,b}``, ``\\RequirePackage``, ``\\documentclass{c}``, ``\\LoadClass``:
    an include link to each package or class named (the project reads those of them it
    has as ``.sty`` / ``.cls`` files, as TeX would; the others come from the TeX
    distribution and are not looked for)."""
    m = _LOAD.match(text, start)
    if m is None or _is_definition(text, start):
        return
    for target, ts, te in _split_keys(text, m.start(1), m.end(1)):
        if target and "#" not in target and "\\" not in target:
            links.append(Link(LinkKind.INCLUDE, target, Span(ts, te), name))


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
    if item is not None and "#" not in item[0] + base:
        links.append(Link(LinkKind.INCLUDE, item[0], Span(item[1], item[2]), name, base=base))
    return second[2]
