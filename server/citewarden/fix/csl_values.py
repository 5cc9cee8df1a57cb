"""How a value is written into a CSL item (pure): a JSON string or number; in YAML a plain
scalar where it reads back as the same text, else double-quoted, its Markdown escaped
(pandoc reads each CSL-YAML value as Markdown: ``C*-algebras`` would turn emphatic)."""

from __future__ import annotations

import json
import re

#: What a plain YAML scalar may hold to be kept plain (else it is double-quoted): no
#: indicator at its start, no ``: `` or `` #`` inside, no flow punctuation.
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9(][^:#,\[\]{}&*!|>'\"%@`\r\n\t]*")
#: The characters pandoc's Markdown would read as markup in a value (emphasis, links,
#: code, raw HTML and entities, math, sub- and superscripts, citations) and the backslash.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>&$~^@])")


def is_number(value: str) -> bool:
    """A whole number written without a leading zero (kept a number where one was)."""
    return value.isascii() and value.isdigit() and (value == "0" or not value.startswith("0"))


#: What pandoc's smart typography rewrites: dashes, ellipses, straight quotes.
_SMART = re.compile(r"-{2,}|\.{3,}|['\"]")


def markdown_escaped(value: str, verbatim: bool = False) -> str:
    """``value`` with a backslash before each character pandoc's Markdown would read as
    markup (:func:`citewarden.parsing.csl.markdown_unescaped` undoes it); for a
    ``verbatim`` value (a DOI, a URL) also before those its smart typography would turn
    into dashes, an ellipsis or curly quotes (``10.1000/a--b`` stays so)."""
    text = _MARKDOWN_SPECIAL.sub(r"\\\1", value)
    if verbatim:
        text = _SMART.sub(lambda m: "".join("\\" + c for c in m.group()), text)
    return text


def json_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def yaml_plain_ok(value: str, in_flow: bool) -> bool:
    """Whether ``value`` written as a plain YAML scalar reads back as the same string (not
    a number, a boolean, a date, null ...)."""
    if value != value.strip() or not _PLAIN_SAFE.fullmatch(value):
        return False
    if in_flow and re.search(r"[,\[\]{}]", value):
        return False
    if re.fullmatch(r"0o[0-7]+", value):  # an octal number to YAML 1.2 (pandoc's reader)
        return False
    try:  # a number to YAML 1.2 (pandoc's reader: ``1e3``), whatever PyYAML says
        float(value.replace("_", ""))
    except ValueError:
        pass
    else:
        return False
    import yaml

    from citewarden.parsing.csl import YAML_LOADER

    try:
        return bool(yaml.load(value, Loader=YAML_LOADER) == value)
    except yaml.YAMLError:
        return False


def yaml_scalar(value: str, in_flow: bool = False) -> str:
    """``value`` (already escaped for Markdown) as a YAML scalar: plain where that reads
    back the same, else double-quoted (a JSON string is a YAML double-quoted scalar)."""
    return value if yaml_plain_ok(value, in_flow) else json_string(value)
