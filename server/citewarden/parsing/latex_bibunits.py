"""bibunits: which citations BibTeX reads for which list, and from which files.

A unit is a ``bibunit`` environment, or (after ``\\bibliographyunit[\\chapter]``) the text
from one ``\\chapter`` (or ``\\chapter*``) to the next, to a bare ``\\bibliographyunit``
(which ends the automatic units) or to ``\\end{document}``.  The citations of a unit go to
its own ``bu<n>.aux``, which BibTeX resolves against the files of the unit's
``\\putbib[a,b]``; a unit without ``\\putbib`` has no ``\\bibdata`` at all, so its
citations stay undefined.  bibunits copies some of them to the main list too
(:func:`copied`).

A bare ``\\putbib`` reads the default bibliography: ``\\defaultbibliography{c}`` (and,
while automatic units are on, ``\\bibliography{c}`` too) writes it to the main .aux,
which the next run reads at ``\\begin{document}``.  So a bare ``\\putbib`` reads the last
default set in the body before it; failing that, the last one set anywhere in the body;
failing that, the preamble's.  A file that sets none (an included chapter) leaves the
choice to the project (:data:`FROM_PROJECT`); when no file of the project sets one, the
default is ``\\jobname``: BibTeX reads the .bib named after the root document
(:data:`JOBNAME_DEFAULT`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from citewarden.model import Link, LinkKind, Span
from citewarden.parsing import latex_static
from citewarden.parsing.latex_args import CodeRegions, _split_keys

#: (start, end, the files its list reads) of each unit
Unit = tuple[int, int, tuple[str, ...]]

_AUTO = re.compile(r"\\bibliographyunit\s*\[\s*\\([A-Za-z]+)\s*\]")
_EVENTS = (
    r"\\(begin|end)\s*\{(bibunit|document)\}(?:\s*\[[^\[\]{}]{0,200}\])?"
    r"|\\putbib\b\s*(?:\[([^\[\]{}]{0,2000})\])?"
    r"|\\defaultbibliography\s*\{([^{}]{0,2000})\}"
    r"|\\bibliography\*?\s*\{([^{}]{0,2000})\}"
    r"|\\bibliographyunit\b(?:\s*\[\s*\\([A-Za-z]+)\s*\])?"
)
#: the group of each event
_BEGIN_END, _ENVIRONMENT, _PUTBIB, _DEFAULT, _BIBLIOGRAPHY, _AUTO_ON = 1, 2, 3, 4, 5, 6
_AUTO_COMMAND = 7


@dataclass(slots=True)
class _Default:
    """A default bibliography set at ``at``; ``linked``: its files are links already."""

    at: int
    items: list[tuple[str, int, int]]
    in_body: bool
    linked: bool


@dataclass(slots=True)
class _Open:
    """A unit being read: where it starts and its first ``\\putbib`` (``bare``: without
    files, at ``putbib_at``)."""

    start: int
    names: tuple[str, ...] | None = None
    bare: bool = False
    putbib_at: int = 0


_PACKAGES = re.compile(r"\\usepackage\s*(?:\[([^\[\]{}]{0,2000})\]\s*)?\{([^{}]{0,2000})\}")
#: :func:`copy_option` of a file: bibunits with ``globalcitecopy``, natbib, neither
ALL, NATBIB = "all", "natbib"
#: :func:`copied`: which unit citations go to the main list too
STARRED = "starred"


def copy_option(text: str) -> str:
    """What the packages ``text`` loads say about the citations bibunits copies to the
    main list: :data:`ALL` (bibunits with ``globalcitecopy``), :data:`NATBIB` (natbib is
    loaded, whose starred commands are its own), or ``""``."""
    if "globalcitecopy" not in text and "natbib" not in text:
        return ""
    option = ""
    for m in _PACKAGES.finditer(text):
        if latex_static.in_comment(text, m.start()):
            continue
        names = {name.strip() for name in m.group(2).split(",")}
        options = {o.strip() for o in (m.group(1) or "").split(",")}
        if "bibunits" in names and "globalcitecopy" in options:
            return ALL
        if "natbib" in names:
            option = NATBIB
    return option


def copied(options: set[str]) -> str:
    """Which citations of a unit also go to the main list, from the :func:`copy_option`
    of a project's files: all with ``globalcitecopy``; else those of ``\\cite*`` and
    ``\\nocite*``, unless natbib is loaded (``""``: none)."""
    if ALL in options:
        return ALL
    return "" if NATBIB in options else STARRED


def _events(text: str) -> re.Pattern[str]:
    commands = sorted(set(_AUTO.findall(text)))
    if not commands:
        return re.compile(_EVENTS)
    return re.compile(_EVENTS + r"|\\(" + "|".join(commands) + r")(?![A-Za-z])")


def _items(text: str, m: re.Match[str], group: int) -> list[tuple[str, int, int]]:
    return [item for item in _split_keys(text, m.start(group), m.end(group)) if item[0]]


class _Defaults:
    """Which default bibliography a bare ``\\putbib`` reads."""

    def __init__(self, defaults: list[_Default]) -> None:
        self._body = [d for d in defaults if d.in_body]
        self._at = [d.at for d in self._body]
        self._preamble = defaults[-1] if defaults else None  # used when none is in the body

    def read_at(self, at: int) -> _Default | None:
        """The last default set in the body before ``at``, else the last one set in the
        body, else the preamble's."""
        before = bisect.bisect_left(self._at, at)
        if before:
            return self._body[before - 1]
        return self._body[-1] if self._body else self._preamble

    def left(self) -> _Default | None:
        """The default the file leaves: its last in the body, else its preamble's."""
        return self._body[-1] if self._body else self._preamble


#: the files of a bare ``\\putbib`` whose file sets no default: the project's
FROM_PROJECT = ("\\defaultbibliography",)
#: the command of the link a file with such a ``\\putbib`` adds for the default's
#: default, ``\\jobname`` (read only when no file of the project sets a default)
JOBNAME_DEFAULT = "putbib-jobname"


@dataclass(frozen=True, slots=True)
class BibUnits:
    """What a file says about bibunits."""

    #: the units, with the files each list reads (none for a unit without ``\\putbib``;
    #: :data:`FROM_PROJECT` for a bare one whose file sets no default)
    units: list[Unit]
    #: the default bibliography the file leaves for the next run, and whether it is set in
    #: the body (so written to the .aux) rather than in the preamble
    default: tuple[str, ...] = ()
    default_in_body: bool = False
    #: every default the file sets: (offset, its files with their spans, set in the body)
    defaults: tuple[tuple[int, tuple[tuple[str, int, int], ...], bool], ...] = ()
    #: each unit with a bare ``\\putbib``: (the unit's start, the ``\\putbib``'s offset)
    bare: tuple[tuple[int, int], ...] = ()


def bibunits(text: str, links: list[Link]) -> BibUnits:
    """The units of ``text`` and its default bibliography.  The files of ``\\putbib[a,b]``,
    of each default bibliography a bare ``\\putbib`` reads and of the default the file
    leaves are added to ``links`` (commands ``putbib``, ``defaultbibliography``)."""
    if (
        "bibunit" not in text
        and "\\bibliographyunit" not in text
        and "\\defaultbibliography" not in text
    ):
        return BibUnits([])
    in_body = "\\begin{document}" not in text  # an included file: all of it is body
    auto: str | None = None
    defaults: list[_Default] = []
    opened: _Open | None = None
    read: list[_Open] = []
    ends: list[int] = []

    def close(at: int) -> None:
        nonlocal opened
        if opened is not None:
            read.append(opened)
            ends.append(at)
            opened = None

    code = CodeRegions(text)
    for m in _events(text).finditer(text):
        if latex_static.in_comment(text, m.start()) or code.holds(m.start()):
            continue
        if m.group(_ENVIRONMENT) == "document":
            if m.group(_BEGIN_END) == "begin":
                in_body = True
            else:
                close(m.start())
                break
        elif m.group(_ENVIRONMENT) == "bibunit":
            close(m.start())
            if m.group(_BEGIN_END) == "begin":
                opened = _Open(m.end())
        elif m.group().startswith("\\putbib"):
            if opened is not None and opened.names is None:
                if m.group(_PUTBIB) is not None:
                    items = _items(text, m, _PUTBIB)
                    opened.names = tuple(name for name, _, _ in items)
                    links.extend(
                        Link(LinkKind.BIBLIOGRAPHY, name, Span(a, b), "putbib")
                        for name, a, b in items
                        if "#" not in name
                    )
                else:
                    opened.names, opened.bare, opened.putbib_at = (), True, m.start()
        elif m.group(_DEFAULT) is not None:
            defaults.append(_Default(m.start(), _items(text, m, _DEFAULT), in_body, False))
        elif m.group(_BIBLIOGRAPHY) is not None:
            if in_body and auto is not None:
                defaults.append(_Default(m.start(), _items(text, m, _BIBLIOGRAPHY), True, True))
        elif m.group().startswith("\\bibliographyunit"):
            if m.group(_AUTO_ON) is not None:
                auto = m.group(_AUTO_ON)
            else:
                auto = None
                close(m.start())
        elif m.group(_AUTO_COMMAND) is not None and m.group(_AUTO_COMMAND) == auto:
            close(m.start())
            opened = _Open(m.start())
    close(len(text))
    return _resolved(read, ends, defaults, links)


def _resolved(
    read: list[_Open], ends: list[int], defaults: list[_Default], links: list[Link]
) -> BibUnits:
    """Each unit with the files of its ``\\putbib``; the defaults read become links."""
    found: list[Unit] = []
    linked: set[int] = set()

    def link(default: _Default) -> None:
        if not default.linked and default.at not in linked:
            linked.add(default.at)
            links.extend(
                Link(LinkKind.BIBLIOGRAPHY, name, Span(a, b), "defaultbibliography")
                for name, a, b in default.items
                if "#" not in name
            )

    known = _Defaults(defaults)
    jobname = False
    for unit, end in zip(read, ends, strict=True):
        names = unit.names or ()
        if unit.bare:
            default = known.read_at(unit.putbib_at)
            names = FROM_PROJECT if default is None else _names(default)
            if default is not None:
                link(default)
            elif not jobname:  # the first such \putbib stands for the file's
                jobname = True
                at = unit.putbib_at
                links.append(
                    Link(LinkKind.BIBLIOGRAPHY, "\\jobname", Span(at, at + 7), JOBNAME_DEFAULT)
                )
        found.append((unit.start, end, names))
    left = known.left()
    every = tuple((d.at, tuple(d.items), d.in_body) for d in defaults)
    bare = tuple((unit.start, unit.putbib_at) for unit in read if unit.bare)
    if left is None:
        return BibUnits(found, defaults=every, bare=bare)
    link(left)
    return BibUnits(found, _names(left), left.in_body, every, bare)


def _names(default: _Default) -> tuple[str, ...]:
    return tuple(name for name, _, _ in default.items)


__all__ = [
    "ALL",
    "FROM_PROJECT",
    "JOBNAME_DEFAULT",
    "NATBIB",
    "STARRED",
    "BibUnits",
    "Unit",
    "bibunits",
    "copied",
    "copy_option",
]
