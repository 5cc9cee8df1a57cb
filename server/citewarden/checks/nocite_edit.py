"""Where and how a key is added to a Markdown document's YAML ``nocite:``, written as pandoc
reads it: the citation ``@key`` (``@{key}`` where pandoc would not read the bare key whole),
escaped for the YAML scalar it goes into.  A form of ``nocite`` not edited safely line by
line (a multi-line quoted or flow value, an anchor, a tag) gets no edit."""

from __future__ import annotations

import re

from citewarden.file_state import FrontMatter
from citewarden.parsing.markdown_inline import _BRACED_KEY, _SIMPLE_KEY_RE

#: An "add to nocite" edit: (offset, text before the citation, text after it, how the
#: citation is escaped: ``"`` / ``'`` inside such a quoted scalar, ``""`` as it is)
NocitePlan = tuple[int, str, str, str]

_NOCITE_KEY = re.compile(r"nocite:[ \t]*")
#: a block scalar header: ``|`` or ``>``, chomping and indentation indicators, a comment
_BLOCK_HEADER = re.compile(r"[|>](?:[1-9][-+]?|[-+][1-9]?)?(?:[ \t]+#.*)?")
_COMMENT = re.compile(r"(?:\A|[ \t]+)#.*")
_SEQUENCE_ITEM = re.compile(r"( *)-[ \t]+(\S.*)")
#: characters that start no plain scalar (YAML indicators)
_INDICATORS = "-?:,[]{}#&*!|>'\"%@`"


def markdown_citation(key: str) -> str | None:
    """``@key`` as pandoc reads it whole: bare when pandoc reads the bare key whole, braced
    otherwise; None for a key no citation holds (white space, unbalanced braces)."""
    if _SIMPLE_KEY_RE.fullmatch(key):
        return f"@{key}"
    if _BRACED_KEY.fullmatch(f"{{{key}}}"):
        return f"@{{{key}}}"
    return None


def yaml_escaped(text: str, style: str) -> str:
    """``text`` inside a YAML scalar quoted with ``style`` (``"``, ``'``, or ``""``: none)."""
    if style == '"':
        return text.replace("\\", "\\\\").replace('"', '\\"')
    if style == "'":
        return text.replace("'", "''")
    return text


def nocite_insertion(plan: NocitePlan, key: str) -> str | None:
    """The text ``plan`` inserts for ``key``."""
    _, before, after, style = plan
    cite = markdown_citation(key)
    return None if cite is None else before + yaml_escaped(cite, style) + after


def nocite_plan(text: str, fm: FrontMatter, newline: str) -> NocitePlan | None:
    """How a key is added to the front matter ``fm`` of ``text``, or None."""
    if fm.nocite_value is None:
        if fm.flow:  # into the flow mapping, before its closing brace
            return (fm.close, ', nocite: "', '"', '"')
        return (fm.close, 'nocite: "', '"' + newline, '"')
    start = text.rfind("\n", 0, fm.nocite_value.start) + 1
    end = text.find("\n", start, fm.close)
    header = text[start : fm.close if end < 0 else end]
    key = _NOCITE_KEY.match(header)
    if key is None:
        return None
    at = start + key.end()
    rest = header[key.end() :].rstrip(" \t\r")
    items = not rest or rest.startswith("#")
    lines = _nested_lines(text, fm.close if end < 0 else end + 1, fm.close, items)
    if lines is None:
        return None
    if rest[:1] in ("|", ">"):
        return _block_scalar(rest, at, lines, newline)
    nested = [(s, line) for s, line in lines if line.strip()]
    if items:
        return _block_sequence(text, rest, at, nested, newline)
    if nested:
        return None  # a value going on over several lines
    if rest[0] in "\"'":
        return _quoted(rest, at)
    if rest[0] == "[":
        return _flow_sequence(rest, at)
    if rest[0] in _INDICATORS:
        return None
    comment = _COMMENT.search(rest)
    value = rest[: comment.start()] if comment else rest
    return (at + len(value), ", ", "", "")


def _nested_lines(text: str, pos: int, close: int, items: bool) -> list[tuple[int, str]] | None:
    """The lines after the ``nocite:`` line that belong to its value (indented, blank, or
    sequence items when ``items``): (offset, line without its line break); None when a
    comment at the left margin stands between them and more of them."""
    lines: list[tuple[int, str]] = []
    after_comment = False
    while pos < close:
        end = text.find("\n", pos, close)
        end = close if end < 0 else end
        line = text[pos:end].rstrip("\r")
        if line[:1] in (" ", "\t") or not line or (items and line[:1] == "-"):
            if after_comment and line.strip():
                return None
            if not after_comment:
                lines.append((pos, line))
        elif line[:1] == "#":
            after_comment = True
        else:
            break
        pos = end + 1
    return lines


def _block_scalar(
    header: str, at: int, lines: list[tuple[int, str]], newline: str
) -> NocitePlan | None:
    """A new line at the end of a literal or folded block scalar, at its indentation."""
    if not _BLOCK_HEADER.fullmatch(header):
        return None
    content = [(s, line) for s, line in lines if line.strip()]
    digit = re.search(r"[1-9]", header.split("#", 1)[0])
    if digit:
        indent = " " * int(digit.group())
    elif content:
        first = content[0][1]
        indent = first[: len(first) - len(first.lstrip(" \t"))]
    else:
        indent = "  "
    if "\t" in indent or any(not line.startswith(indent) for _, line in content):
        return None
    end = content[-1][0] + len(content[-1][1]) if content else at + len(header)
    return (end, newline + indent, "", "")


def _block_sequence(
    text: str, rest: str, at: int, nested: list[tuple[int, str]], newline: str
) -> NocitePlan | None:
    """A new item after the last one of a block sequence; a quoted value for an empty one."""
    if not nested:
        if rest and text[at - 1] == ":":
            return None
        before = ' "' if text[at - 1] == ":" else '"'
        return (at, before, '" ' if rest else '"', '"')
    indents: set[str] = set()
    last: int | None = None
    for s, line in nested:
        if line.lstrip().startswith("#"):
            continue
        item = _SEQUENCE_ITEM.fullmatch(line)
        if item is None or not _single_line_item(item.group(2)):
            return None
        indents.add(item.group(1))
        last = s + len(line)
    if last is None or len(indents) != 1:
        return None
    return (last, f'{newline}{indents.pop()}- "', '"', '"')


def _single_line_item(item: str) -> bool:
    """A sequence item that is a scalar ending on its line."""
    if item[0] in "\"'":
        close = _closing_quote(item, 0)
        return close is not None and _only_comment(item[close + 1 :])
    return item[0] not in _INDICATORS


def _quoted(rest: str, at: int) -> NocitePlan | None:
    """``, @key`` before the closing quote of a quoted scalar that ends on its line."""
    close = _closing_quote(rest, 0)
    if close is None or not _only_comment(rest[close + 1 :]):
        return None
    return (at + close, ", " if rest[1:close].strip() else "", "", rest[0])


def _flow_sequence(rest: str, at: int) -> NocitePlan | None:
    """A quoted item before the ``]`` of a flow sequence of scalars written on one line."""
    i = 1
    while i < len(rest):
        c = rest[i]
        if c in "\"'":
            close = _closing_quote(rest, i)
            if close is None:
                return None
            i = close + 1
        elif c == "#" and rest[i - 1] in " \t":
            return None  # a comment: the sequence goes on on a later line
        elif c in "[]{}":
            if c != "]" or not _only_comment(rest[i + 1 :]):
                return None
            inner = rest[1:i].rstrip()
            sep = "" if not inner.strip() or inner.endswith(",") else ","
            return (at + i, f'{sep}{" " if inner.strip() else ""}"', '"', '"')
        else:
            i += 1
    return None


def _closing_quote(text: str, i: int) -> int | None:
    """Where the quoted scalar opening at ``text[i]`` closes, or None (not on this line)."""
    quote = text[i]
    j = i + 1
    while j < len(text):
        c = text[j]
        escaped = c == "\\" if quote == '"' else c == "'" and text[j + 1 : j + 2] == "'"
        if escaped:  # \x in a double-quoted scalar, '' in a single-quoted one
            j += 2
        elif c == quote:
            return j
        else:
            j += 1
    return None


def _only_comment(text: str) -> bool:
    """Nothing but white space and a comment after a value."""
    return not text.strip() or _COMMENT.fullmatch(text.rstrip()) is not None
