"""Block structure of a pandoc Markdown document for the Markdown reader: fenced and
indented code blocks, raw HTML blocks of a ``<pre>``, ``<script>``, ``<style>`` or
``<textarea>`` element, and YAML metadata blocks (read as metadata), as pandoc delimits
them.  See :mod:`~citewarden.parsing.markdown`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from citewarden.parsing.markdown_inline import Verbatim, scan_keys
from citewarden.parsing.yamlmeta import Metadata, read_metadata

_FENCE_OPEN = re.compile(r"[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})([^\n]*)")
_LISTISH = re.compile(
    r"[ \t]|\[\^[^\]\s]+\]:|(?:[-+*]|\d+[.)]|#[.)]|\(?(?:[A-Za-z]|[ivxlcdmIVXLCDM]+)[.)]"
    r"|\(@[\w-]*\)|[:~])"
    r"(?:[ \t]|\r?$)"
)
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
#: a line that starts with a verbatim element (its content may hold what looks like a
#: fence or a metadata block: it is neither)
_VERBATIM_LINE = re.compile(r" {0,3}<(?:pre|script|style|textarea)(?=[\s/>])", re.I)


@lru_cache(maxsize=64)
def _fence_close(char: str, length: int) -> re.Pattern[str]:
    return re.compile(
        r"^[ \t]*(?:>[ \t]?)*" + re.escape(char) + "{" + str(length) + r",}[ \t]*\r?$", re.M
    )


@dataclass(slots=True)
class Blocks:
    #: Sorted, disjoint ``(start, end)`` regions not to read as text.
    skip: list[tuple[int, int]] = field(default_factory=list)
    metadata: list[Metadata] = field(default_factory=list)
    #: ``(start, end)`` of the YAML text of each of :attr:`metadata`, between its fences.
    regions: list[tuple[int, int]] = field(default_factory=list)
    #: The indented code blocks of :attr:`skip`.
    indented: list[tuple[int, int]] = field(default_factory=list)


def block_structure(path: Path, text: str) -> Blocks:
    """One pass over the lines: fenced and indented code blocks, verbatim HTML elements,
    YAML metadata blocks."""
    out = Blocks()
    verbatim: Verbatim | None = None
    n = len(text)
    pos = 0
    prev_blank = True
    prev_listish = False
    first = True
    if text.startswith("\ufeff"):
        pos = 1
    while pos < n:
        nl = text.find("\n", pos)
        line_end = n if nl < 0 else nl
        next_pos = n if nl < 0 else nl + 1
        line = text[pos:line_end]
        if not line.strip():
            prev_blank = True
            first = False
            pos = next_pos
            continue
        # YAML metadata block: "---" after a blank line (or first line), not followed by a
        # blank line, closed by "---" or "...".
        if prev_blank and line.rstrip() == "---" and next_pos < n:
            nl2 = text.find("\n", next_pos)
            following = text[next_pos : n if nl2 < 0 else nl2]
            close = _YAML_CLOSE.search(text, next_pos) if following.strip() else None
            if close is not None:
                meta = read_metadata(path, text, next_pos, close.start(), scan_keys)
                # front matter always counts (its errors are reported); a later block only
                # when it is a YAML mapping, as pandoc decides
                if first or meta.is_mapping:
                    out.metadata.append(meta)
                    out.regions.append((next_pos, close.start()))
                    end = text.find("\n", close.end())
                    end = n if end < 0 else end + 1
                    out.skip.append((pos, end))
                    pos = end
                    prev_blank = True
                    first = False
                    continue
        first = False
        fence = _FENCE_OPEN.match(line)
        if fence is not None and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            closer = _fence_close(fence.group(1)[0], len(fence.group(1))).search(text, next_pos)
            end = n if closer is None else min(n, closer.end() + 1)
            out.skip.append((pos, end))
            pos = end
            prev_blank = True
            prev_listish = False
            continue
        if line.lstrip(" ").startswith("<") and _VERBATIM_LINE.match(line):
            verbatim = verbatim or Verbatim(text)
            element_end = verbatim.end(text.index("<", pos))
            if element_end > 0:
                out.skip.append((pos, element_end))
                pos = _line_start_after(text, element_end)
                prev_blank = not text[element_end:pos].strip()
                prev_listish = False
                continue
        if prev_blank and not prev_listish and _indent(line) >= 4:
            start = pos
            end = pos
            while pos < n:
                nl = text.find("\n", pos)
                line_end = n if nl < 0 else nl
                line = text[pos:line_end]
                if line.strip() and _indent(line) < 4:
                    break
                if line.strip():
                    end = line_end
                pos = n if nl < 0 else nl + 1
            out.skip.append((start, end))
            out.indented.append((start, end))
            prev_blank = True  # stopped at a non-indented line after blank/code lines
            prev_listish = False
            # re-read the stopping line normally
            pos = _line_start_after(text, end)
            continue
        prev_listish = _LISTISH.match(line) is not None
        prev_blank = False
        pos = next_pos
    return out


def _line_start_after(text: str, offset: int) -> int:
    nl = text.find("\n", offset)
    return len(text) if nl < 0 else nl + 1


def _indent(line: str) -> int:
    width = 0
    for c in line:
        if c == " ":
            width += 1
        elif c == "\t":
            width += 4 - width % 4
        else:
            break
    return width
