"""Which citation keys LaTeX can cite as written: the one rule the fixes that write a key
into LaTeX (``\\nocite{key}``, "Change to") and a rename follow.

In a ``\\cite`` argument ``%`` starts a comment, ``#`` is a macro parameter (an error),
``\\`` starts a command, ``~`` is an active character (written to the .aux expanded),
braces group, a comma ends the key and white space is read into it or dropped.  A key
holding one of them (BibTeX itself takes ``~`` and ``\\``) cannot be written into LaTeX.
"""

from __future__ import annotations

import re

#: The characters no key written into a LaTeX citation may hold.
LATEX_UNSAFE_KEY = re.compile(r"[\s,{}%#~\\]")


def latex_unsafe(key: str) -> str | None:
    """The first character of ``key`` LaTeX cannot read in a citation, or None."""
    m = LATEX_UNSAFE_KEY.search(key)
    return None if m is None else m.group()


def latex_citable(key: str) -> bool:
    """``key`` can be written into ``\\cite{...}`` or ``\\nocite{...}`` as it is."""
    return bool(key) and LATEX_UNSAFE_KEY.search(key) is None
