"""Every regular expression of the package, scanned for the shape that made nine of them
take seconds to minutes on a run of spaces: two unbounded repeats of one character each,
side by side or with only optional parts between, that can match the same character
(``\\s*=?\\s*``, ``\\s*(?:\\[...\\])?\\s*``); and for repeated groups whose iterations
can split a run in many ways (``(?:\\w+\\s?)+``).  On a long run of such characters that
is then not followed by what the pattern wants, the engine tries every split of the run:
quadratic time from one start, cubic for a search.  A pattern of that shape that is safe
says why in ``SAFE``; any other fails the test.

The scan reads patterns with CPython's own parser (``re._parser``)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import re._constants as C
import re._parser as sre
from collections.abc import Iterator, Sequence
from typing import Any

import citewarden

#: Characters a repeat is tried on: enough to tell the classes the package uses apart.
SAMPLE = [chr(c) for c in range(32, 127)] + ["\t", "\n", "\r", "\u00a0", "\u00e9"]

#: Patterns of the shape that cannot take long, and why.
SAFE = {
    # the key pattern of an entry head: nothing follows the last repeat, so the first try
    # matches and nothing is tried again
    "citewarden.parsing.bibtex_blocks._KEY_BRACE": "cannot fail",
    "citewarden.parsing.bibtex_blocks._KEY_PAREN": "cannot fail",
    "citewarden.parsing.bibtex_patterns._KEY_BRACE": "cannot fail",
    "citewarden.parsing.bibtex_patterns._KEY_PAREN": "cannot fail",
    # searched in the 40 characters before a command only
    "citewarden.parsing.latex_args._DEFINITION_BEFORE": "40 characters",
    "citewarden.parsing.latex_static._DEFINED_BEFORE": "40 characters",
    # ends in \s+ after the optional sign: any run of spaces matches at the first try
    "citewarden.verify.abstracts._LEAD": "cannot fail once a space follows",
}

_CATEGORIES: dict[Any, Any] = {
    C.CATEGORY_SPACE: str.isspace,
    C.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
    C.CATEGORY_DIGIT: str.isdigit,
    C.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    C.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    C.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
}


def _matches(item: tuple[Any, Any], ch: str) -> bool | None:
    """Does the one-character item match ``ch`` (None: not a one-character item)?"""
    op, av = item
    if op is C.LITERAL:
        return ch == chr(av)
    if op is C.NOT_LITERAL:
        return ch != chr(av)
    if op is C.ANY:
        return ch != "\n"
    if op is C.IN:
        negate, hit = False, False
        for o, a in av:
            if o is C.NEGATE:
                negate = True
            elif o is C.LITERAL:
                hit |= ch == chr(a)
            elif o is C.RANGE:
                hit |= a[0] <= ord(ch) <= a[1]
            elif o is C.CATEGORY:
                hit |= bool(_CATEGORIES.get(a, lambda c: False)(ch))
        return hit != negate
    return None


def _characters(item: tuple[Any, Any]) -> set[str] | None:
    """The sample characters an unbounded repeat of one character can match, or None."""
    op, av = item
    # a possessive repeat (not listed) gives nothing back
    if op not in (C.MAX_REPEAT, C.MIN_REPEAT) or av[1] is not C.MAXREPEAT or len(av[2]) != 1:
        return None
    inner = av[2][0]
    if _matches(inner, "a") is None:
        return None
    return {ch for ch in SAMPLE if _matches(inner, ch)}


def _shortest(items: Sequence[tuple[Any, Any]]) -> int:
    try:
        return int(sre.SubPattern(sre.State(), list(items)).getwidth()[0])
    except Exception:  # a group reference: its width is not known here
        return 1


def _sequences(items: Sequence[tuple[Any, Any]]) -> Iterator[Sequence[tuple[Any, Any]]]:
    """``items`` and every sequence nested in it."""
    yield items
    for op, av in items:
        if op is C.SUBPATTERN:
            yield from _sequences(list(av[-1]))
        elif op is C.BRANCH:
            for branch in av[1]:
                yield from _sequences(list(branch))
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            yield from _sequences(list(av[2]))
        elif op in (C.ASSERT, C.ASSERT_NOT):
            yield from _sequences(list(av[1]))


def _between(items: Sequence[tuple[Any, Any]]) -> list[set[str]] | None:
    """The sample characters of each required one-character part of ``items`` (what lies
    between two repeats; optional parts left out), or None when a required part is longer.
    A run that repeats one character of each part, in order, can then be split at any of
    its repetitions: ``====`` for ``[^,]*=[^,]*``, ``citecite`` for ``[a-z]*cite[a-z]*``."""
    out: list[set[str]] = []
    for item in items:
        if _shortest([item]) == 0:
            continue  # optional
        op, av = item
        if op in (C.MAX_REPEAT, C.MIN_REPEAT) and len(av[2]) == 1:
            item = av[2][0]  # x{1,3}: one character, repeated
        if _matches(item, "a") is None:
            return None
        out.append({ch for ch in SAMPLE if _matches(item, ch)})
    return out


def neighbouring_repeats(pattern: re.Pattern[str]) -> list[str]:
    """The characters two neighbouring repeats of ``pattern`` share, per such pair, when
    what lies between them can match those characters too."""
    found: list[str] = []
    for items in _sequences(list(sre.parse(pattern.pattern, pattern.flags))):
        repeats = [(i, chars) for i, item in enumerate(items) if (chars := _characters(item))]
        for n, (a, first) in enumerate(repeats):
            for b, second in repeats[n + 1 :]:
                between = _between(items[a + 1 : b])
                if between is None:
                    break  # something longer that must match lies between
                shared = first & second
                if shared and all(shared & part for part in between):
                    found.append("".join(sorted(shared))[:12])
    return found


def _edge(items: Sequence[tuple[Any, Any]], from_end: bool) -> set[str]:
    """The characters the repeats at one end of ``items`` can match, up to the first part
    that must match something else."""
    out: set[str] = set()
    for item in reversed(items) if from_end else items:
        chars = _characters(item)
        if chars is None:
            if _shortest([item]) > 0:
                break
            continue
        out |= chars
        if item[1][0] > 0:
            break
    return out


def ambiguous_groups(pattern: re.Pattern[str]) -> list[str]:
    """Unbounded repeats of a group that can match nothing (``(?:\\s*x?)*``) or whose end and
    start can match the same character (``(?:\\w+\\s?)+``): a run splits between iterations
    in every way."""
    found: list[str] = []
    for items in _sequences(list(sre.parse(pattern.pattern, pattern.flags))):
        for op, av in items:
            if op not in (C.MAX_REPEAT, C.MIN_REPEAT) or av[1] is not C.MAXREPEAT:
                continue
            body = list(av[2])
            if len(body) == 1 and body[0][0] is C.SUBPATTERN:
                body = list(body[0][1][-1])
            elif len(body) == 1:
                continue  # one character repeated: neighbouring_repeats looks at it
            if _shortest(body) == 0:
                found.append("a repeated group that can match nothing")
            elif shared := _edge(body, True) & _edge(body, False):
                found.append("".join(sorted(shared))[:12])
    return found


def _patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    for module in pkgutil.walk_packages(citewarden.__path__, "citewarden."):
        if module.name.endswith("__main__"):
            continue
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                yield f"{module.name}.{name}", value


def test_the_scan_finds_the_shapes_that_were_slow() -> None:
    for slow in (
        r"\\let\s*\\([A-Za-z@]+)\s*=?\s*\\([A-Za-z@]+)",
        r"\\usepackage\s*(?:\[([^\]]{0,2000})\])?\s*\{",
        r"=\s*\{?\s*(\w*)\s*\}?\s*(?:,|$)",
        r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$",
        r"[ \t]*[,;]?[ \t]*x",
        r"([^\s,{}()]*=[^\s,{}()]*)\s*,",  # a run of "=" splits at any of them
        r"\\[A-Za-z]*cite[A-Za-z]*\{",  # and a run of "cite" at any of its repetitions
    ):
        assert neighbouring_repeats(re.compile(slow)), slow
    for slow in (r"(?:\s*\w+\s*)*", r"(?:\s*x?)*", r"(?:\w+\s?)+$"):
        assert ambiguous_groups(re.compile(slow)), slow
    for fixed in (
        r"\\let\s*\\([A-Za-z@]+)\s*(?:=\s*)?\\([A-Za-z@]+)",
        r"\\usepackage\s*(?:\[([^\]]{0,2000})\]\s*)?\{",
        r"\s*+(?:%[^\n]*+\s*+)*+",  # possessive: nothing is given back
        r"\w*\s*",  # no character in common
        r"([^\s,{}()=]*=[^\s,{}()]*)\s*,",  # the first "=" ends the first repeat
        r"\\(?=[A-Za-z]*cite)[A-Za-z]++\{",  # the name read once
    ):
        assert not neighbouring_repeats(re.compile(fixed)), fixed
        assert not ambiguous_groups(re.compile(fixed)), fixed


def test_no_pattern_of_the_package_has_repeats_that_can_split_a_run_in_many_ways() -> None:
    seen = dict(_patterns())
    assert len(seen) > 200  # the scan reached the package's patterns
    unsafe = {
        name: shared
        for name, pattern in seen.items()
        if name not in SAFE
        and (shared := neighbouring_repeats(pattern) + ambiguous_groups(pattern))
    }
    assert not unsafe, unsafe
    assert set(SAFE) <= set(seen), set(SAFE) - set(seen)  # no stale exception
