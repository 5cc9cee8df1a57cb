"""biblatex reference sections with resources of their own.

biblatex starts a reference section at ``\\begin{refsection}[ch1.bib]``, at
``\\newrefsection[ch1.bib]`` and at the ``\\refsection[ch1.bib]`` command (the environment's
opening); each first ends the section open before it, if any (``\\newrefsection`` quietly,
the other two with a "Nested 'refsection'" error, after which LaTeX goes on the same way).
``\\end{refsection}`` and ``\\endrefsection`` end the open section and go back to the
document-wide section 0; a section not ended runs to the end of the document.  LaTeX
reads an ``\\input`` or ``\\include``d file in line, so a section begun in one runs on
after it in the file that included it (:func:`marks` says where each file starts or
ends one; the project follows them in reading order).

A section with a non-blank optional argument reads those resources (``.bib`` added to a
name that lacks it) and the ``\\addglobalbib`` ones only; one without reads the default
resources, as section 0 does, so it is not a unit of its own here.  A name in the list
that a resource of the file declares as its ``label=`` (``\\addbibresource[label=second]
{a2.bib}``) is that resource, before any file of the name.  A start in a macro's body
(``[#1]``) is passed over.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from citewarden.model import Link, LinkKind, Span
from citewarden.parsing import latex_static
from citewarden.parsing.latex_args import CodeRegions, _is_definition, _split_keys

#: (start, end, resources as written) of a section with resources of its own
Section = tuple[int, int, tuple[str, ...]]

#: group 1: the resources of a section's start; group ``end``: an end
_EVENT = re.compile(
    r"\\(?:begin\s*\{refsection\}|(?:new)?refsection(?![A-Za-z@]))"
    r"(?:\s*\[([^\[\]{}]{0,2000})\])?"
    r"|(?P<end>\\end\s*\{refsection\}|\\endrefsection(?![A-Za-z@]))"
)


#: a resource command with options: 1: the options (braces one deep), 2: the resource
_LABELLED = re.compile(
    r"\\add(?:bibresource|globalbib|sectionbib)[ \t]*(?:\r?\n[ \t]*)?"
    r"\[((?:[^\[\]{}\n]|\{[^{}\n]{0,500}\}){0,2000})\][ \t]*(?:\r?\n[ \t]*)?"
    r"\{([^{}\n]{1,1000})\}"
)


def _labels(text: str) -> dict[str, str]:
    """The ``label=`` of each resource of ``text`` that declares one -> the resource."""
    if "label" not in text:
        return {}
    found: dict[str, str] = {}
    for m in _LABELLED.finditer(text):
        if latex_static.in_comment(text, m.start()) or _is_definition(text, m.start()):
            continue
        for option in _split_keys(text, m.start(1), m.end(1)):
            key, eq, value = option[0].partition("=")
            label = value.strip().removeprefix("{").removesuffix("}").strip()
            resource = m.group(2).strip()
            if eq and key.strip() == "label" and label and resource and "#" not in resource:
                found.setdefault(label, resource)
    return found


def _events(text: str) -> Iterator[re.Match[str]]:
    """The starts and ends of reference sections LaTeX reads in ``text`` (not in a
    comment, code, a definition or a macro's body)."""
    code = CodeRegions(text)
    for m in _EVENT.finditer(text):
        at = m.start()
        if latex_static.in_comment(text, at) or code.holds(at) or _is_definition(text, at):
            continue
        if m.group(1) is not None and "#" in m.group(1):
            continue  # in a macro's body: where it starts a section is not known
        yield m


def resource_labels(text: str) -> tuple[tuple[str, str], ...]:
    """The ``label=`` of each resource of ``text`` that declares one, with the resource,
    in order: a section of any file of the project may name it."""
    return tuple(_labels(text).items())


def refsections(
    text: str, links: list[Link], inherited: tuple[tuple[str, str], ...] = ()
) -> list[Section]:
    """The reference sections of ``text`` with resources of their own, by start; each
    resource is added to ``links`` (command ``refsection``).  ``inherited``: the labels
    the project's other files declare (:func:`resource_labels`)."""
    if "refsection" not in text:
        return []
    found: list[Section] = []
    opened: tuple[int, tuple[str, ...]] | None = None
    labels = dict(inherited)
    labels.update(_labels(text))
    for m in _events(text):
        at = m.start()
        if opened is not None:  # a start or an end: the open section ends here
            found.append((opened[0], at, opened[1]))
            opened = None
        if m.group("end") is None:
            names = _resources(text, m, links, labels)
            opened = (m.end(), names) if names else None
    if opened is not None:
        found.append((opened[0], len(text), opened[1]))
    return found


def marks(text: str) -> tuple[int, ...]:
    """Where each start or end of a reference section of ``text`` stands, with resources
    or without: the section open before it, maybe begun in another file, ends there."""
    if "refsection" not in text:
        return ()
    return tuple(m.start() for m in _events(text))


def ends(text: str) -> tuple[int, ...]:
    """Where each end of a reference section of ``text`` stands (of :func:`marks`)."""
    if "refsection" not in text:
        return ()
    return tuple(m.start() for m in _events(text) if m.group("end") is not None)


def _resources(
    text: str, m: re.Match[str], links: list[Link], labels: dict[str, str]
) -> tuple[str, ...]:
    """The resources of the section start ``m`` (a label as the resource it names); each
    name without a macro is added to ``links``, at the name as written."""
    if m.group(1) is None:
        return ()
    items = [(labels.get(name, name), a, b) for name, a, b in _split_keys(text, *m.span(1))]
    for name, a, b in items:
        if name and "\\" not in name:
            links.append(Link(LinkKind.BIBLIOGRAPHY, name, Span(a, b), "refsection"))
    return tuple(name for name, _, _ in items if name)


__all__ = ["Section", "ends", "marks", "refsections", "resource_labels"]
