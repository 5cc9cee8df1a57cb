"""What biber's reader (btparse) rejects in a .bib file that BibTeX and citewarden read.

One such syntax error makes biber drop the whole file (it reads no entry of it, and says so
only in its log), where BibTeX and :func:`~citewarden.parsing.bibtex.parse_bibtex` read
every entry.  Found by running biber 2 on each case:

* a key holding ``"``, ``#``, ``%``, ``(``, ``)`` or ``=`` (``@misc{a=b,``), or an
  apostrophe or a backslash btparse cannot pass over: it skips either with the (ASCII)
  character after it wherever it stands, so the key is the first name after such pairs
  and only pairs may stand between it and the comma (``d'Aspremont-1998``, ``x'``, ``'x``
  are errors; ``x'y``, ``x''``, ``ab'c'd``, ``'ab`` and ``a\\b`` are read as ``x``, ``x``,
  ``ab``, ``b`` and ``a``: :func:`biber_renamed_keys`);
* a field name that starts with a digit (``2title = {x}``);
* an entry without a comma after its key (``@index{information}``, as bib2gls writes them),
  or without a key (``@Manual{, title = ...}``);
* a ``@comment{`` or ``@comment(`` never closed: btparse reads the rest of the file as the
  comment, then finds the file ended inside it (BibTeX skips the word ``@comment`` alone
  and reads on);
* ``\\char125`` or ``\\char123``, which biber turns into a brace before it parses, so the
  braces of the entry no longer match;
* an ``@`` outside the entries that does not start one: btparse reads every ``@`` at top
  level as the start of an entry, so ``jane.doe@example.org`` on a line between entries,
  ``foo @ bar`` or ``@comment`` without braces (BibTeX skips them all) is an entry type
  with no ``{`` or ``(`` after it.  Not so: an ``@`` in a ``%`` comment (a ``%`` at the
  start of a line or after white space; ``50%`` is not one), one followed by an entry's
  ``@`` with only white space between (``@@article{``), or the file's last character.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence

from citewarden.model import Code, Entry, Finding, Span, quoted
from citewarden.parsing.bib_comments import BIBER_BREAK, commented_positions
from citewarden.parsing.bibtex_patterns import _FIELD_AFTER_CLOSE

#: an entry's key as btparse reads it: an apostrophe or a backslash with the (ASCII)
#: character after it is skipped wherever it stands, the key is the first name after such
#: pairs, and only pairs and white space may stand between it and the comma
_PAIR = r"['\\][\x00-\x7f]"
_BIBER_KEY = re.compile("(?:" + _PAIR + r""")*([^\s"#%'(),={}\\]+)(?:""" + _PAIR + r"|\s)*,")
_CHAR_BRACE = re.compile(r"\\char\s*12[35](?!\d)")
_AFTER_KEY = re.compile(r"\s*([})])")

#: a ``%`` comment, up to a line break as biber has them (a lone ``\r`` too: biber turns
#: each into a line feed before btparse reads the file)
_COMMENT = r"%[^\n\v\f\r\x85\u2028\u2029]*"
#: btparse at top level: an ``@``, or a ``%`` comment where a token starts (``50%`` is junk)
_TOP = re.compile(r"@|(?<![^ \t\n\v\f\r\x85\u2028\u2029])" + _COMMENT)
#: btparse inside an entry: a name (entry type; ``~``, ``@`` and characters past ASCII in
#: it too: ``@misc~{``, ``@@article{`` and ``@miscé{`` are entries of such a type, while
#: ``@comment~{`` is no comment) ...
_NAME = re.compile(r"[A-Za-z0-9!$&*+\-./:;<>?\[\]^_`|~@\x80-\x84\x86-\u2027\u202a-\U0010ffff]+")
#: ... and what it skips before a token: white space, ``%`` comments, an apostrophe or a
#: backslash with the (ASCII) character after it, characters that start no token
_SKIPPED = re.compile(
    r"(?:\s+|"
    + _COMMENT
    + "|"
    + _PAIR
    + r"""|[^\sA-Za-z0-9!$&*+\-./:;<>?\[\]^_`|~@\x80-\x84\x86-\u2027\u202a-\U0010ffff{}()=#,"%'\\])*"""
)
_GROUP = re.compile(r'[{}()"]')
_WORD = re.compile(r'[^\s{}()"#%=,@]+')


def biber_key(text: str, entry: Entry) -> str | None:
    """The key biber reads for ``entry`` of ``text`` (None: btparse rejects it)."""
    m = _BIBER_KEY.match(text, entry.key_span.start)
    return None if m is None else m.group(1)


#: the positions of the entries biber reads as comments, asked for when needed (the
#: caller's answer, kept per version of the file)
Commented = Callable[[], Sequence[int]]


def read_by_biber(
    text: str, entries: Sequence[Entry], flagged: list[int], commented: Commented | None = None
) -> list[int]:
    """The ``flagged`` indices of ``entries`` that biber reads: not those after a ``%`` on
    their line or in an ``@comment`` group, which it skips whatever they hold (the comments
    are only looked for when an entry is flagged: ``commented()``, else found here)."""
    if not flagged:
        return flagged
    if commented is None:
        skipped = set(commented_positions(text, entries, groups=True, biber=True))
    else:
        skipped = set(commented())
    return [i for i in flagged if i not in skipped]


def biber_renamings(
    text: str, entries: Sequence[Entry], commented: Commented | None = None
) -> list[tuple[int, str]]:
    """Each entry of ``text`` (its index in ``entries``) whose key biber reads as another
    (``x'y`` as ``x``), with the key biber reads (``commented`` as for
    :func:`read_by_biber`)."""
    renamed = {
        i: read
        for i, entry in enumerate(entries)
        if ("'" in entry.key or "\\" in entry.key)
        and (read := biber_key(text, entry)) not in (None, entry.key)
    }
    return [(i, renamed[i] or "") for i in read_by_biber(text, entries, list(renamed), commented)]


def biber_renamed_keys(
    text: str, entries: Sequence[Entry], commented: Commented | None = None
) -> list[tuple[Span, str]]:
    """Each key of ``text`` that biber reads as another (``x'y`` as ``x``), with why
    (``commented`` as for :func:`read_by_biber`)."""
    return [renamed_key(entries[i], read) for i, read in biber_renamings(text, entries, commented)]


def renamed_key(entry: Entry, read: str) -> tuple[Span, str]:
    """Where the key of ``entry`` is, and why its citations find no entry: biber reads it
    as ``read``."""
    key = entry.key
    return (
        entry.key_span,
        f"biber reads the key {quoted(key)} as {quoted(read)}: it skips an apostrophe or a "
        f"backslash with the character after it, so a citation of {quoted(key)} finds no "
        "entry",
    )


def biber_rejections(
    text: str,
    entries: Sequence[Entry],
    commented: Commented | None = None,
    read: list[str] | None = None,
) -> list[tuple[Span, str]]:
    """Each place of ``text`` biber cannot read, with why, in order (``commented`` as for
    :func:`read_by_biber`; ``read``: as for :func:`stray_at_signs`)."""
    found: list[tuple[Span, str]] = []
    rejected = [i for i, entry in enumerate(entries) if biber_key(text, entry) is None]
    for i in read_by_biber(text, entries, rejected, commented):
        entry = entries[i]
        if _AFTER_KEY.match(text, entry.key_span.end):
            why = f"biber needs a comma after the key {quoted(entry.key)} (no fields)"
        else:
            why = f"biber cannot read the key {quoted(entry.key)}"
        found.append((entry.key_span, why))
    found += _digit_field_names(text, entries)
    if "\\char" in text:
        for m in _CHAR_BRACE.finditer(text):
            found.append((Span(m.start(), m.end()), "biber reads \\char125 / \\char123 as a brace"))
    found += stray_at_signs(text, entries, read)
    found.sort(key=lambda item: item[0].start)
    return found


#: btparse's name characters: a bare value is a name (a macro) where BibTeX reads a number
#: and then stops at the first other character (``year = 2020a``, ``pages = 10-20``)
_NAME_ON = re.compile(r"[A-Za-z0-9!$&*+\-./:;<>?\[\]^_`|]")
_NUMBER_BEFORE = re.compile(r"[=#][ \t\r\n]*[0-9]+$")


def btparse_rejects(text: str, problems: Sequence[Finding]) -> bool:
    """Whether one of the syntax errors BibTeX finds in ``text`` (``problems``) is one for
    btparse too, which then drops the file: not a bare number run on into name characters,
    which btparse reads as a name (an undefined macro, a warning), nor what
    :func:`_btparse_reads_on` passes, nor a field after the
    ``}`` that closes an entry, which btparse skips as junk between entries (a warning),
    nor a ``%`` comment inside an entry (``% note = {x},`` on a line of its own), which
    btparse skips where BibTeX stops."""
    for problem in problems:
        if problem.code is not Code.BIB_SYNTAX:
            continue
        at = problem.location.span.start
        if text.startswith("}", at) and _FIELD_AFTER_CLOSE.match(text, at + 1):
            continue
        if text.startswith("%", at) and not _closes_in_comment(text, at):
            continue
        if _btparse_reads_on(text, at):
            continue
        if not (
            0 < at < len(text)
            and _NAME_ON.match(text, at)
            and _NUMBER_BEFORE.search(text, max(0, at - 64), at)
        ):
            return True
    return False


#: a bare value up to an ``@`` in it: btparse reads ``@`` as a name character there
_NAME_BEFORE_AT = re.compile(r"[=#][ \t\r\n]*[A-Za-z0-9!$&*+\-./:;<>?\[\]^_`|@]+$")
#: an ``@`` and the entry type's start, up to an apostrophe or a backslash
_ENTRY_TYPE = re.compile(r"@[ \t]*[A-Za-z]+")
#: blanks between an entry's type and a ``%`` comment after it
_TYPE_GAP = re.compile(r"[ \t\n\v\f\r\x85\u2028\u2029]*")
#: white space before an entry's key
_BLANKS = re.compile(r"\s*")
#: the entry types btparse reads as blocks of their own, with no key
_BLOCKS = frozenset({"comment", "string", "preamble"})
#: what stands before a ``)`` that btparse reads as an entry's end: a field's end or the
#: comma after it (not ``=`` or ``#``, where it wants a value)
_CLOSABLE = re.compile(r"[^=#\s][ \t\r\n]*$")


def _btparse_reads_on(text: str, at: int) -> bool:
    """Whether the BibTeX syntax error at ``at`` is none for btparse: an ``@`` in a bare
    value (``month = j@n``: a name, an undefined macro), a ``)`` where a field or the
    entry's end may stand (``title={B},)``: it ends the entry, with a warning), or an
    entry type btparse reads on (:func:`_typed_entry`)."""
    if text.startswith("@", at) and _NAME_BEFORE_AT.search(text, max(0, at - 64), at):
        return True
    if text.startswith(")", at):
        return _CLOSABLE.search(text, max(0, at - 64), at) is not None
    return _typed_entry(text, at) is not None


def _typed_entry(text: str, at: int) -> tuple[int, str | None] | None:
    """The block biber reads where BibTeX finds an apostrophe or a backslash (at ``at``)
    in an entry's type and skips the entry: btparse skips the pair and reads the type and
    the key on (``@articl'e{a,`` is an entry ``a`` of type ``articl``; ``@art'icle{`` is an
    error, a name after the type).  So where a ``%`` comment follows the type (``@misc %
    x``, a line break, ``{q,``), which btparse skips, or a ``~`` or ``@`` right after it,
    which btparse reads into the type (``@misc~{q,``: an entry ``q``; ``@misc ~ {`` is an
    error, a name after the type).  Its ``@``'s position and the key biber reads (None: a
    block without one, ``@comment'x{``), or None where btparse finds an error."""
    if not text.startswith(("'", "\\", "~", "@"), at):
        # a '%' comment after the type, blanks before it or none: btparse skips it
        gap = _TYPE_GAP.match(text, at).end()  # type: ignore[union-attr]
        if not text.startswith("%", gap):
            return None
    start = text.rfind("@", max(0, at - 64), at)
    if start < 0 or _ENTRY_TYPE.fullmatch(text, start, at) is None:
        return None
    opener, why = _entry_start(text, start)
    if why is not None or opener == start:
        return None
    name = _NAME.match(text, _SKIPPED.match(text, start + 1).end())  # type: ignore[union-attr]
    if name is None or name.group().lower() in _BLOCKS:
        return start, None
    key = _BIBER_KEY.match(text, _BLANKS.match(text, opener + 1).end())  # type: ignore[union-attr]
    return None if key is None else (start, key.group(1))


def typed_entry_keys(text: str, problems: Sequence[Finding]) -> list[tuple[int, str]]:
    """The entries of :func:`_typed_entry` at the syntax errors ``problems``: (the
    ``@``'s position, the key biber reads), in order."""
    found: list[tuple[int, str]] = []
    for problem in problems:
        if problem.code is Code.BIB_SYNTAX:
            entry = _typed_entry(text, problem.location.span.start)
            if entry is not None and entry[1] is not None and entry not in found:
                found.append((entry[0], entry[1]))
    return found


#: a field name that starts with a digit (BibTeX reads it, btparse does not), or text
#: that looks like one inside a value (told apart by the entries' fields)
_DIGIT_FIELD = re.compile(r"[,{(][ \t\r\n]*([0-9][^\s=,{}()\"#%']*)[ \t\r\n]*=")


def _digit_field_names(text: str, entries: Sequence[Entry]) -> list[tuple[Span, str]]:
    """Each field name of ``entries`` that starts with a digit: btparse rejects it
    ("invalid field name ... cannot start with digit")."""
    if _DIGIT_FIELD.search(text) is None:
        return []
    starts = [entry.span.start for entry in entries]
    found: list[tuple[Span, str]] = []
    for m in _DIGIT_FIELD.finditer(text):
        i = bisect.bisect_right(starts, m.start(1)) - 1
        if i >= 0 and any(f.name_span.start == m.start(1) for f in entries[i].fields):
            why = f"biber cannot read the field name {quoted(m.group(1))}: it starts with a digit"
            found.append((Span(m.start(1), m.end(1)), why))
    return found


def _closes_in_comment(text: str, at: int) -> bool:
    """Whether the ``%`` comment at ``at`` holds more closing braces or parentheses than
    opening ones: the entry's own closer is in it, so btparse finds the entry not closed."""
    brk = BIBER_BREAK.search(text, at)
    comment = text[at : brk.start() if brk is not None else len(text)]
    opened = comment.count("{") + comment.count("(")
    return comment.count("}") + comment.count(")") > opened


def stray_at_signs(
    text: str, entries: Sequence[Entry], read: list[str] | None = None
) -> list[tuple[Span, str]]:
    """Each ``@`` outside the ``entries`` that btparse, biber's reader, takes for the start
    of an entry and then rejects (the first of its line), with why; the key of each one it
    reads as an entry is appended to ``read``, if given (``@'article{d,`` is an entry ``d``
    of type ``rticle``: btparse skips an apostrophe with the character after it, where
    BibTeX finds no entry type and skips the entry).

    btparse skips anything at top level up to an ``@`` (or a ``%`` comment), then wants an
    entry type and ``{`` or ``(``.  Its blocks are skipped by the entries' spans, or else
    (``@string``, ``@comment``, ``@preamble``) by their braces.
    """
    if "@" not in text:
        return []
    ends = {entry.span.start: entry.span.end for entry in entries}
    found: list[tuple[Span, str]] = []
    n = len(text)
    pos = 0
    while pos < n:
        if text[pos] == "%":  # right after an entry, where a token starts
            brk = BIBER_BREAK.search(text, pos)
            if brk is None:
                break
            pos = brk.start()
        m = _TOP.search(text, pos)
        if m is None:
            break
        at = m.start()
        if text[at] == "%":
            pos = m.end()
            continue
        end = ends.get(at)
        if end is not None:
            pos = end
            continue
        opener, why = _entry_start(text, at)
        if why is None:
            if _KEYLESS.match(text, opener + 1) and not _is_block(text, at, opener):
                found.append((Span(at, opener + 1), "biber cannot read an entry without a key"))
            elif opener > at and not _is_block(text, at, opener):
                key = _BIBER_KEY.match(text, _BLANKS.match(text, opener + 1).end())  # type: ignore[union-attr]
                if key is None:  # ``@comment~{ @misc{q,``: an entry of type comment~
                    word = _WORD.match(text, at + 1)
                    what = quoted("@" + word.group()) if word is not None else "'@'"
                    found.append((Span(at, opener + 1), f"biber cannot read the key after {what}"))
                elif read is not None:
                    read.append(key.group(1))
            end = _group_end(text, opener)
            if end is None:  # btparse reads the rest as this block
                if _is_comment(text, at, opener):
                    found.append((Span(at, opener + 1), _UNCLOSED_COMMENT))
                break
            pos = end
            continue
        found.append((Span(at, at + 1), why))
        brk = BIBER_BREAK.search(text, at)
        pos = n if brk is None else brk.start()
    return found


_UNCLOSED_COMMENT = (
    "@comment never closed: biber reads the rest of the file as the comment (BibTeX skips "
    "the word @comment alone)"
)


_KEYLESS = re.compile(r"\s*,")


def _block_type(text: str, at: int, opener: int) -> str:
    """The type of the block from the ``@`` at ``at`` to its opener at ``opener``, lower
    case, as btparse reads it past what it skips (``@comment'x{`` is a ``@comment``)."""
    name = _NAME.match(text, _SKIPPED.match(text, at + 1, opener).end(), opener)  # type: ignore[union-attr]
    return name.group().lower() if name is not None else ""


def _is_comment(text: str, at: int, opener: int) -> bool:
    """Whether the block from the ``@`` at ``at`` to its opener at ``opener`` is a
    ``@comment``."""
    return _block_type(text, at, opener) == "comment"


def _is_block(text: str, at: int, opener: int) -> bool:
    """Whether the block from ``at`` to ``opener`` is a ``@comment``, ``@string`` or
    ``@preamble`` (no entry, so no key)."""
    return _block_type(text, at, opener) in _BLOCKS


def _entry_start(text: str, at: int) -> tuple[int, str | None]:
    """Where the block starting with the ``@`` at ``at`` opens, or why btparse rejects it."""
    if at == len(text) - 1:  # btparse stops at the end of the file before it reads on
        return at, None
    pos = _SKIPPED.match(text, at + 1).end()  # type: ignore[union-attr]
    name = _NAME.match(text, pos)
    if name is None or name.group().isdigit():  # digits alone are a number, not a name
        return at, "'@' outside an entry: biber reads an entry type after it, and finds none"
    pos = _SKIPPED.match(text, name.end()).end()  # type: ignore[union-attr]
    if pos < len(text) and text[pos] in "{(":
        return pos, None
    if name.group().lower() == "comment":
        return at, "@comment without '{' or '(' (BibTeX skips its line, biber does not)"
    word = _WORD.match(text, name.start()).group()  # type: ignore[union-attr]
    return at, (
        f"'@' outside an entry: biber reads {quoted('@' + word)} as the start of an entry, "
        "with no '{' or '(' after it"
    )


def _group_end(text: str, opener: int) -> int | None:
    """Just after the ``}`` or ``)`` that closes the block opened at ``opener``."""
    braces = parens = 0
    in_quotes = False
    by_paren = text[opener] == "("
    for m in _GROUP.finditer(text, opener + 1):
        c = m.group()
        if c == "{":
            braces += 1
        elif c == "}":
            if braces == 0 and not by_paren:
                return m.end()
            braces = max(braces - 1, 0)
        elif braces or not by_paren:
            continue
        elif c == '"':
            in_quotes = not in_quotes
        elif in_quotes:
            continue
        elif c == "(":  # @comment(...) nests them
            parens += 1
        elif parens:
            parens -= 1
        else:
            return m.end()
    return None


__all__ = ["biber_rejections", "stray_at_signs", "typed_entry_keys"]
