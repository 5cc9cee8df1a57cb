"""Inline fixtures with range markers.

A fixture text marks ranges with ``⟦`` and ``⟧``; an optional name follows the opening
bracket up to ``|``: ``\\cite{⟦a|foo⟧}``.  :func:`parse_markers` returns the clean text and the
spans (code-point offsets in the clean text) in order of appearance, and by name.

Multi-file fixtures are written as ``--- path`` headers followed by the file text; see
:func:`write_project`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from citewarden.model import Code, Finding, Span

OPEN, CLOSE, NAME_SEP = "⟦", "⟧", "|"


@dataclass
class Marked:
    text: str
    spans: list[Span]
    named: dict[str, Span]

    def slice(self, span: Span) -> str:
        return self.text[span.start : span.end]


def parse_markers(marked: str) -> Marked:
    out: list[str] = []
    spans: list[Span] = []
    named: dict[str, Span] = {}
    stack: list[tuple[int, str | None]] = []
    i = 0
    pos = 0
    while i < len(marked):
        ch = marked[i]
        if ch == OPEN:
            name = None
            j = marked.find(NAME_SEP, i + 1)
            k = marked.find(OPEN, i + 1)
            c = marked.find(CLOSE, i + 1)
            if (
                j != -1
                and (c == -1 or j < c)
                and (k == -1 or j < k)
                and marked[i + 1 : j].isidentifier()
            ):
                name = marked[i + 1 : j]
                i = j
            stack.append((pos, name))
        elif ch == CLOSE:
            start, name = stack.pop()
            span = Span(start, pos)
            spans.append(span)
            if name:
                named[name] = span
        else:
            out.append(ch)
            pos += 1
        i += 1
    if stack:
        raise ValueError("unbalanced range markers")
    spans.sort(key=lambda s: (s.start, s.end))
    return Marked("".join(out), spans, named)


def split_files(fixture: str) -> dict[str, str]:
    """``--- name`` headers followed by file text -> {name: marked text}."""
    files: dict[str, list[str]] = {}
    current: str | None = None
    for line in fixture.splitlines(keepends=True):
        if line.startswith("--- "):
            current = line[4:].strip()
            files[current] = []
        elif current is not None:
            files[current].append(line)
    return {name: "".join(lines) for name, lines in files.items()}


def write_project(root: Path, fixture: str) -> dict[str, Marked]:
    """Write a multi-file fixture under ``root``; return the parsed markers of each file."""
    result: dict[str, Marked] = {}
    for name, marked in split_files(fixture).items():
        m = parse_markers(marked)
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(m.text, encoding="utf-8")
        result[name] = m
    return result


def found_set(
    marks: dict[str, Marked], by_file: dict[str, list[Finding]]
) -> set[tuple[str, Code, str]]:
    """Findings as (file, code, marker name); a span with no marker fails the test."""
    out: set[tuple[str, Code, str]] = set()
    for name, findings in by_file.items():
        names = {span: n for n, span in marks[name].named.items()} if name in marks else {}
        for f in findings:
            span = f.location.span
            assert span in names, f"unmarked finding {f.code.value} at {name}{span}: {f.message}"
            out.add((name, f.code, names[span]))
    return out
