"""A BibTeX entry built from a work record, in the style of the file it goes into.

:func:`detect_style` reads an existing .bib text (indentation, ``{}`` or ``""``
delimiters, field-name and entry-type case, ``=`` alignment, field order, trailing comma,
blank lines between entries); :func:`bibtex_entry` writes one entry for a record with the
cited key; :func:`insertion` says where the entry goes and what text to insert.

Every value from outside is made safe for BibTeX and LaTeX: control characters dropped,
braces removed (an unbalanced brace would swallow the rest of the file), ``& % # _ $``
escaped, words with inner capitals (``ImageNet``, ``BERT``) protected with braces,
characters pdflatex does not typeset by default spelt in LaTeX (``α``), unless the file
holds such characters raw already (:attr:`BibStyle.raw_unicode`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from citewarden.fix.plan import braces_read_alike, written_value
from citewarden.parsing.latex_encode import (
    BEYOND_PDFLATEX,
    latex_text,
    pdflatex_text,
    protect_capitals,
)
from citewarden.safe_text import without_unsafe
from citewarden.verify.authors import bibtex_name
from citewarden.verify.records import WorkRecord

#: Field order used when the target file shows none.
DEFAULT_ORDER = (
    "author",
    "title",
    "journal",
    "booktitle",
    "year",
    "volume",
    "number",
    "pages",
    "publisher",
    "doi",
    "eprint",
    "archiveprefix",
    "isbn",
    "pmid",
    "url",
)

ENTRY_TYPES = {
    "journal-article": "article",
    "proceedings-article": "inproceedings",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "book-chapter": "incollection",
    "book-section": "incollection",
    "book-part": "incollection",
    "dissertation": "phdthesis",
    "report": "techreport",
    "posted-content": "misc",
}

_FIELD_LINE = re.compile(r"^([ \t]*)([A-Za-z][\w-]*)([ \t]*)=[ \t]*([{\"]?)", re.MULTILINE)
_ENTRY_HEAD = re.compile(r"^@([A-Za-z]+)\s*[{(]", re.MULTILINE)
#: The line breaks a file may use (the inserted text is written with "\n" and turned into
#: the file's own by :func:`citewarden.addref.insert.plan_insertion`).
_BREAKS = ("\r\n", "\r", "\n")


#: ``BibStyle.align`` value: align ``=`` within each entry (one space after the longest name).
PER_ENTRY = -1


@dataclass(frozen=True, slots=True)
class BibStyle:
    """How the entries of one .bib file are written."""

    indent: str = "  "
    quotes: bool = False  # "value" instead of {value}
    field_case: str = "lower"  # "lower", "upper", "title"
    type_case: str = "lower"
    #: pad field names to this width; 0 = no alignment; PER_ENTRY = to the entry's longest name
    align: int = 0
    order: tuple[str, ...] = DEFAULT_ORDER
    trailing_comma: bool = True
    blank_line: bool = True
    protect_title: bool = False  # the whole title in a second pair of braces
    #: characters beyond what pdflatex typesets by default are written as they are (the file
    #: holds such characters already: it is meant for biber, XeLaTeX or LuaLaTeX), not
    #: spelt in LaTeX (:func:`~citewarden.parsing.latex_encode.pdflatex_text`)
    raw_unicode: bool = False
    extra: dict[str, str] = field(default_factory=dict)


def _case_of(names: list[str]) -> str:
    counts = Counter(
        "upper" if n.isupper() else "title" if n[:1].isupper() else "lower" for n in names
    )
    return counts.most_common(1)[0][0] if counts else "lower"


def detect_style(text: str) -> BibStyle:
    """The style of the entries in ``text`` (the defaults for an empty file)."""
    lines = _FIELD_LINE.findall(text[:400_000])
    raw_unicode = BEYOND_PDFLATEX.search(text[:400_000]) is not None
    if not lines:
        return BibStyle(raw_unicode=raw_unicode)
    indents = Counter(m[0] for m in lines)
    delims = Counter(m[3] for m in lines if m[3])
    order: dict[str, list[int]] = {}
    columns: list[int] = []  # the = column of each aligned entry
    entries = 0
    for head in _ENTRY_HEAD.finditer(text[:400_000]):
        body_end = text.find("\n@", head.end())
        body = text[head.end() : body_end if body_end >= 0 else len(text)]
        found = list(_FIELD_LINE.finditer(body))
        for i, m in enumerate(found):
            order.setdefault(m.group(2).lower(), []).append(i)
        widths = {len(m.group(2)) + len(m.group(3)) for m in found}
        if len(found) > 1:
            entries += 1
            if len(widths) == 1 and any(len(m.group(3)) > 1 for m in found):
                columns.append(widths.pop())
    align = 0
    if columns and len(columns) * 2 > entries:
        align = columns[0] if len(set(columns)) == 1 else PER_ENTRY
    seen = sorted(order, key=lambda n: sum(order[n]) / len(order[n]))
    merged = [n for n in seen] + [n for n in DEFAULT_ORDER if n not in order]
    trailing = Counter(c == "," for c in _closing_marks(text[:400_000]))
    types = [m.group(1) for m in _ENTRY_HEAD.finditer(text[:400_000])]
    titles = re.findall(r"^[ \t]*title[ \t]*=[ \t]*(\{\{?)", text[:400_000], re.I | re.M)
    return BibStyle(
        indent=indents.most_common(1)[0][0] or "  ",
        quotes=delims.get('"', 0) > delims.get("{", 0),
        field_case=_case_of([m[1] for m in lines]),
        type_case=_case_of(types),
        align=align,
        order=tuple(merged),
        trailing_comma=trailing.most_common(1)[0][0] if trailing else True,
        blank_line=any(f"{nl}{nl}@" in text for nl in _BREAKS) or text.count("@") <= 1,
        protect_title=bool(titles) and sum(t == "{{" for t in titles) > len(titles) / 2,
        raw_unicode=raw_unicode,
    )


#: An entry's closing brace on a line of its own (found from line starts only, the blanks
#: read once: a pattern starting at every blank of a long run took minutes).
_CLOSING_LINE = re.compile(r"(?:(?<=[\r\n])|\A)[ \t]*+}[ \t]*+(?=[\r\n]|\Z)")


def _closing_marks(text: str) -> list[str]:
    """For each entry's closing brace on a line of its own, the last character of the line
    before it (the last field's end) when that is ``,``, ``}`` or ``"``, else ``""``; in any
    of the line breaks (a ``\r`` before the ``\n`` of a CRLF file is no end of the field).
    Linear: each line's trailing blanks are read back from its end, once."""
    marks: list[str] = []
    for m in _CLOSING_LINE.finditer(text):
        at = m.start()
        if at == 0:
            continue
        at -= 2 if text.startswith("\r\n", at - 2) else 1
        while at > 0 and text[at - 1] in " \t":
            at -= 1
        before = text[at - 1] if at > 0 else ""
        marks.append(before if before in (",", "}", '"') else "")
    return marks


def clean_value(text: str) -> str:
    """``text`` from a record, safe inside a BibTeX value and in LaTeX output: no control
    characters or unbalanced braces (those of math and command arguments stay), LaTeX's
    special characters escaped outside math
    (:func:`~citewarden.parsing.latex_encode.latex_text`)."""
    return latex_text(verbatim_value(text))


def verbatim_value(text: str) -> str:
    """``text`` from a record as a value styles print verbatim (``doi``, ``eprint``,
    ``url``): as written, but for control characters, runs of spaces and the braces that
    would end the value early."""
    return _balanced(" ".join(without_unsafe(text).split()))


def _balanced(text: str) -> str:
    """``text`` without the braces that close nothing or are never closed; an escaped
    brace (``\\{``, a control symbol, written as text or kept in math that balances it:
    :func:`~citewarden.parsing.latex_encode.latex_text`) is no group's."""
    if "{" not in text and "}" not in text:
        return text
    dropped: set[int] = set()
    opened: list[int] = []
    escaped = False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "{":
            opened.append(i)
        elif ch == "}":
            if opened:
                opened.pop()
            else:
                dropped.add(i)
    dropped.update(opened)
    return "".join(ch for i, ch in enumerate(text) if i not in dropped)


#: Backslashes before a brace, which LaTeX and bibtexparser take for its escape.
_ESCAPING = re.compile(r"\\+(?=[{}])")


def readable(value: str) -> str:
    """``value`` as it is when BibTeX, LaTeX and bibtexparser pair its braces up alike
    (:func:`~citewarden.fix.plan.braces_read_alike`); else without the backslashes before
    its braces and the braces that are then unpaired, so that the entry reads back whole in
    each (a record's ``10.1/x\\}`` or ``\\\\{`` had bibtexparser lose the entry)."""
    if braces_read_alike(value):
        return value
    return _balanced(_ESCAPING.sub("", value))


def _name(record: WorkRecord, clean: Callable[[str], str]) -> str:
    parts = []
    for p in record.authors:
        family, given = clean(p.family), clean(p.given)
        if not family:
            continue
        parts.append(bibtex_name(family, given))
    return " and ".join(parts)


#: The field naming a record's publisher, by entry type.
_PUBLISHER_FIELD = {
    "book": "publisher",
    "incollection": "publisher",
    "phdthesis": "school",
    "techreport": "institution",
}


def entry_type(record: WorkRecord) -> str:
    """The BibTeX entry type for ``record``."""
    kind = ENTRY_TYPES.get(record.work_type or "", "misc")
    if kind == "misc" and record.venue and record.work_type not in {"posted-content"}:
        return "article"
    return kind


def record_fields(record: WorkRecord, *, raw_unicode: bool = False) -> dict[str, str]:
    """The fields of the entry for ``record`` (values already cleaned), by lower-case name;
    characters pdflatex does not typeset by default spelt in LaTeX unless ``raw_unicode``."""

    def clean(text: str) -> str:
        value = clean_value(text)
        return value if raw_unicode else pdflatex_text(value)

    kind = entry_type(record)
    out: dict[str, str] = {}
    names = _name(record, clean)
    if names:
        out["author"] = names
    title = clean(record.title)
    if record.subtitle:
        title = f"{title}: {clean(record.subtitle)}"
    out["title"] = protect_capitals(title)
    venue = clean(record.venue or "")
    if venue and kind == "article":
        out["journal"] = venue
    elif venue and kind in {"inproceedings", "incollection"}:
        out["booktitle"] = venue
    if record.year:
        out["year"] = str(record.year)
    for name, value in (
        ("volume", record.volume),
        ("number", record.issue),
        ("pages", record.pages),
    ):
        if value:
            out[name] = clean(value)
    if "pages" in out:
        out["pages"] = re.sub(r"\s*[-\u2010-\u2015]+\s*", "--", out["pages"])
    if record.publisher and kind in _PUBLISHER_FIELD:
        # a thesis's university is its school, a report's issuer its institution
        out[_PUBLISHER_FIELD[kind]] = clean(record.publisher)
    if record.doi:
        out["doi"] = verbatim_value(record.doi)
    if record.arxiv_id:
        out["eprint"] = verbatim_value(record.arxiv_id)
        out["archiveprefix"] = "arXiv"
    if record.isbn and kind in {"book", "incollection"}:
        out["isbn"] = clean(record.isbn[0])
    if record.pmid:
        out["pmid"] = clean(record.pmid)
    if not record.doi and not record.arxiv_id and record.url:
        out["url"] = verbatim_value(record.url)
    return out


def _cased(name: str, case: str) -> str:
    if case == "upper":
        return name.upper()
    if case == "title":
        return name[:1].upper() + name[1:]
    return name


def bibtex_entry(record: WorkRecord, key: str, style: BibStyle | None = None) -> str:
    """One BibTeX entry for ``record`` under ``key``, written in ``style`` (no trailing
    newline)."""
    style = style or BibStyle()
    fields = record_fields(record, raw_unicode=style.raw_unicode)
    rank = {n: i for i, n in enumerate(style.order)}
    names = sorted(fields, key=lambda n: (rank.get(n, len(rank)), n))
    kind = _cased(entry_type(record), style.type_case)
    lines = [f"@{kind}{{{key},"]
    width = style.align
    if width == PER_ENTRY:
        width = max(len(n) for n in names) + 1
    for i, name in enumerate(names):
        value = readable(fields[name])
        if name == "title" and style.protect_title:  # (a final backslash would escape it)
            value = "{" + written_value(value) + "}"
        value = written_value(value)
        shown = _cased(name, style.field_case)
        if width > 0:
            shown = shown.ljust(width)
        else:
            shown += " "
        # a value holding a double quote is braced: it would end a quoted one
        body = f'"{value}"' if style.quotes and '"' not in value else f"{{{value}}}"
        last = i == len(names) - 1
        comma = "," if not last or style.trailing_comma else ""
        lines.append(f"{style.indent}{shown}= {body}{comma}")
    lines.append("}")
    return "\n".join(lines)


def insertion(text: str, entry: str, style: BibStyle | None = None) -> tuple[int, str]:
    """Where to put ``entry`` in the .bib ``text`` (its end) and the text to insert there."""
    style = style or detect_style(text)
    stripped = text.rstrip()
    if not stripped:
        return len(text), entry + "\n"
    end = len(text)
    lead = "" if text.endswith(_BREAKS) else "\n"
    if style.blank_line:
        lead += "\n" if not text.endswith(tuple(nl + nl for nl in _BREAKS)) else ""
    return end, lead + entry + "\n"
