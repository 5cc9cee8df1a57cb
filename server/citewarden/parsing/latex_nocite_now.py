"""Which loaded package makes a ``\\nocite`` in the preamble cite nothing.

LaTeX opens the .aux at ``\\begin{document}``; its own ``\\nocite`` (and biblatex's) keeps
one met before that for then.  natbib, cite and harvard define ``\\nocite`` anew, writing
to the .aux at once, so one in the preamble after they are loaded is lost.  They are
loaded by ``\\usepackage`` or by a class or package that loads them itself, in its own
body (not at ``\\begin{document}``), unless an option of it says not to: acmart (but
``natbib=false``), elsarticle (but ``nonatbib``), revtex4-1 and revtex4-2, iagproc and the
classes of the economic bundle load natbib; gbt7714, rsc and apacite with ``natbibapa``
load natbib, overcite and cell load cite.
"""

from __future__ import annotations

import re

#: Packages whose ``\\nocite`` writes to the .aux at once, so that one in the preamble
#: (after the package is loaded) is lost.
NOCITE_NOW = ("natbib", "cite", "harvard")

#: Classes that load a package of :data:`NOCITE_NOW` in their body: (the package, the class
#: option that stops it, "" for none; read in lower case, blanks taken out)
CLASSES: dict[str, tuple[str, str]] = {
    "acmart": ("natbib", "natbib=false"),
    "elsarticle": ("natbib", "nonatbib"),
    "revtex4-1": ("natbib", ""),
    "revtex4-2": ("natbib", ""),
    "iagproc": ("natbib", ""),
    **dict.fromkeys(
        (
            "agecon", "ajae", "apecon", "ecca", "erae", "itaxpf", "jrurstud", "njf",
            "oegatb", "pocoec", "regstud", "worlddev",
        ),
        ("natbib", ""),
    ),
}  # fmt: skip

#: Packages that load one of :data:`NOCITE_NOW`: (the package, the option that makes them
#: load it, "" for always)
PACKAGES: dict[str, tuple[str, str]] = {
    "gbt7714": ("natbib", ""),
    "rsc": ("natbib", ""),
    "apacite": ("natbib", "natbibapa"),
    "overcite": ("cite", ""),
    "cell": ("cite", ""),
}

#: ``\\documentclass[options]{name}`` at the start of a match
_CLASS = re.compile(r"\\documentclass\s*(?:\[([^\]]{0,2000})\]\s*)?\{\s*([^{}\s]{1,100})\s*\}")


def _options(raw: str) -> set[str]:
    return {re.sub(r"\s+", "", option).lower() for option in raw.split(",")}


def by_packages(packages: frozenset[str], options: str) -> str | None:
    """The package of :data:`NOCITE_NOW` a ``\\usepackage[options]{packages}`` loads,
    itself or through a package of :data:`PACKAGES`."""
    found = next((name for name in NOCITE_NOW if name in packages), None)
    if found is not None:
        return found
    for name in sorted(packages & PACKAGES.keys()):
        loaded, option = PACKAGES[name]
        if not option or option in _options(options):
            return loaded
    return None


def by_class(text: str, start: int) -> str | None:
    """The package of :data:`NOCITE_NOW` the class of the ``\\documentclass`` at
    ``text[start]`` loads (None: none, or an option says not to)."""
    m = _CLASS.match(text, start)
    if m is None or m.group(2) not in CLASSES:
        return None
    loaded, option = CLASSES[m.group(2)]
    if option and option in _options(m.group(1) or ""):
        return None
    return loaded
