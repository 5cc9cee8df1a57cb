"""Generated .bib files with syntax errors, with BibTeX as the oracle of which keys a
BibTeX project defines (used by test_differential_bibtex_errors.py and bench/agreement.py).

After a syntax error BibTeX 0.99d skips to the next ``@``, on the same line or inside the
rest of the broken entry, and stops once it has read the file's last line (see
``parsing/bibtex_recovery.py``).  A case is one .bib file of well-formed entries mixed
with damaged ones: a missing comma between fields, an unclosed brace or quote, a missing
closing brace, an ``@`` in a field (an e-mail address, a medium.com/@user URL) after an
error, an entry-like text in a field after an error, two entries on one line after an
error, ``@misc(key)`` (whose key is ``key)`` for BibTeX), a ``%`` line in an entry, ``@@``
and junk between entries; and a document citing every key, and each key with ``)`` after
it, with ``\\nocite`` (pdflatex, then BibTeX with plain.bst).  The oracle is the cited keys
BibTeX finds (every one but those of its "I didn't find a database entry" warnings),
compared with those citewarden defines (every one it does not report as dangling).

A key names its construct (``nocommaQ3``: an entry with a missing comma).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import Code
from differential import Tally, _run, folder_findings, run_cases, written_and_run


@dataclass
class ErrorsCase:
    seed: int
    files: dict[str, str]
    #: every generated key, in file order
    keys: list[str]

    @property
    def cited(self) -> list[str]:
        """The keys the document cites: each key, and each with ``)`` after it."""
        return [k for key in self.keys for k in (key, key + ")")]


#: a placeholder for the key of a generated entry: its class
_SLOT = re.compile(r"\x00([a-z]+)\x00")


def _key(cls: str) -> str:
    return f"\x00{cls}\x00"


def _fields(rng: random.Random) -> str:
    return rng.choice(
        [
            "title={X}",
            'title = "Q", year = 2000',
            "title={A {nested} title}, note={x}",
            "author = {A. Author},\n  title = {T},\n  year = 2001",
        ]
    )


def _entry(rng: random.Random, cls: str, fields: str | None = None) -> str:
    kind = rng.choice(["misc", "article", "Book"])
    return f"@{kind}{{{_key(cls)}, {fields or _fields(rng)}}}"


_Block = Callable[[random.Random], str]


def _blocks() -> list[_Block]:
    def entry(r: random.Random) -> str:
        return _entry(r, "entry")

    def nocomma(r: random.Random) -> str:
        sep = r.choice([" ", "\n  "])
        return _entry(r, "nocomma", f"title={{X}}{sep}year = 2000")

    def unclosed(r: random.Random) -> str:
        value = r.choice(["{A {b} c", '"A b', "{A"])
        return _entry(r, "unclosed", f"title={value}, year = 2000")

    def noclose(r: random.Random) -> str:
        return f"@misc{{{_key('noclose')}, title={{X}},\n  year = 2000\n"

    def email(r: random.Random) -> str:
        at = r.choice(
            [
                "note = {me@example.org}",
                "url = {https://medium.com/@user/post}",
                "author = me@example.org",
                "url = https://medium.com/@user/post",
            ]
        )
        broken = r.choice(["title={X} ", "title={X}, "])
        return _entry(r, "email", f"{broken}{at}, year = 2000")

    def inner(r: random.Random) -> str:
        gap = r.choice([" ", ", "])
        quoted = f"note = {{see @misc{{{_key('innerin')}, title={{Y}}}} here}}"
        return _entry(r, "inner", f"title={{X}}{gap}{quoted}")

    def twoinline(r: random.Random) -> str:
        first = _entry(r, "twoinline", "title={X} year = 2000")
        return first + r.choice([" ", " x ", ", "]) + _entry(r, "twoinline")

    def paren(r: random.Random) -> str:
        return r.choice(
            [
                f"@misc({_key('paren')})",
                f"@misc({_key('paren')}, title={{x}})",
                f"@misc({_key('paren')},title={{x}}}}",
                f"@misc( {_key('paren')} )",
            ]
        )

    def percent(r: random.Random) -> str:
        line = r.choice(["% note = {x},", "% mail me@example.org", "%@misc{old, x}"])
        return _entry(r, "percent", f"title={{X}},\n  {line}\n  year = 2000")

    def doubled(r: random.Random) -> str:
        return "@" + _entry(r, "doubled")

    def junk(r: random.Random) -> str:
        text = r.choice(["x ", "} ", "{ ", "a@b.org ", "@ ", "@misc ", "text, "])
        return text + _entry(r, "junk")

    return [
        entry,
        entry,
        nocomma,
        unclosed,
        noclose,
        email,
        inner,
        twoinline,
        paren,
        percent,
        doubled,
        junk,
    ]


def errors_case(seed: int) -> ErrorsCase:
    """A .bib file of 2 to 8 blocks and a document that cites each key (and ``key)``)."""
    rng = random.Random(seed)
    blocks = _blocks()
    parts: list[str] = []
    for i in range(rng.randint(2, 8)):
        if i:
            parts.append(rng.choice(["\n", "\n", "\n\n", " ", "\n% c\n"]))
        parts.append(rng.choice(blocks)(rng))
    text = "".join(parts) + rng.choice(["\n", "\n", "\n\n", "", "\r\n"])
    keys: list[str] = []

    def name(m: re.Match[str]) -> str:
        keys.append(f"{m.group(1)}Q{len(keys) + 1}")
        return keys[-1]

    text = _SLOT.sub(name, text)
    case = ErrorsCase(seed, {"refs.bib": text}, keys)
    case.files["main.tex"] = (
        "\\documentclass{article}\n\\begin{document}\n"
        f"\\nocite{{{','.join(case.cited)}}}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )
    return case


_NOT_FOUND = re.compile(r'I didn\'t find a database entry for "([^"]*)"')


def errors_oracle(case: ErrorsCase, directory: Path) -> set[str] | None:
    """The cited keys BibTeX finds; None when pdflatex failed."""
    if not written_and_run(case.files, directory):
        return None
    _run(["bibtex", "main"], directory)
    blg = (directory / "main.blg").read_text(errors="replace")
    return set(case.cited) - set(_NOT_FOUND.findall(blg))


def errors_ours(case: ErrorsCase, directory: Path) -> set[str]:
    dangling = {str(f.data["key"]) for f in folder_findings(directory) if f.code is Code.DANGLING}
    return set(case.cited) - dangling


def run_errors(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "errors", errors_case, errors_oracle, errors_ours)
