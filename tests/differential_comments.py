"""Generated .bib files mixing ``@comment`` forms with entries, with BibTeX as the oracle of
which entries a BibTeX project defines (used by test_differential_comments.py and
bench/agreement.py).

BibTeX reads the word ``@comment`` and nothing after it, and stops reading a file once its
last line is read (see ``parsing/bibtex_last_line.py``): an entry inside a one-line
``@comment{...}`` is read, one after another entry on the file's last line is not.  A case
is one .bib file of entries on their own lines, after junk or another entry on the same
line, inside ``@comment`` groups (one-line, spanning lines, in parentheses, without braces,
upper case, after nested braces or an e-mail address), after a multi-line ``@preamble``
or entry that ends on the same line, and a document citing every generated key with
``\\nocite`` (pdflatex, then BibTeX with plain.bst).  The oracle is the keys BibTeX finds
(every key but those of its "I didn't find a database entry" warnings), compared with
those citewarden defines (every key it does not report as a dangling citation).

The same files read by biber (``biber --tool``) and pandoc (``-t csljson``), which skip an
``@comment`` group whole (pandoc only a braced one) and read the last line whole, are
compared with the keys citewarden defines for them (``keys_in_comments``; none where it
finds a place biber cannot read, as biber then reads no entry of the file; a file pandoc
cannot read is left out).

A key names its construct (``onelineQ3``: inside a one-line ``@comment{...}``), with
``last`` after it when its entry starts on the file's last line (``onelinelastQ3``).

And the port of BibTeX's reading that finds what it skips on the last line (``_Reader``)
compared with BibTeX itself on every key of a file (no pdflatex: the .aux is written here),
on entries, ``@string``, ``@preamble`` and ``@comment`` blocks mutated at random (characters
deleted, tokens inserted: unclosed braces and quotes, stray delimiters, line breaks of each
kind), so that syntax errors and BibTeX's resumption after them are compared too.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from checking import check
from citewarden.model import Code
from citewarden.parsing.biber_syntax import biber_rejections
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.bibtex_last_line import _Reader, last_line_start
from citewarden.project import Workspace
from citewarden.settings import Settings
from differential import (
    Tally,
    _run,
    biber_oracle,
    folder_findings,
    run_cases,
    written_and_run,
)


@dataclass
class CommentsCase:
    seed: int
    files: dict[str, str]
    #: every generated key, in file order
    keys: list[str]


#: a placeholder for the key of a generated entry: (class, its number)
_SLOT = re.compile(r"\x00([a-z]+)\x00")


def _entry(rng: random.Random, cls: str, lines: bool = False) -> str:
    """A well-formed entry whose key is a slot of class ``cls`` (``lines``: a field on a
    line of its own, the closing brace on the next)."""
    kind = rng.choice(["misc", "article", "MISC", "Book", "misc "])
    fields = rng.choice(
        [
            "title={X}",
            'title = "Q", year = 2000',
            "title={A {nested} title}, note={x}",
            "title = {T} # { and } # jan",
            "title={T},",
        ]
    )
    if lines:
        fields = fields.replace(", ", ",\n  ") + "\n"
    opener, closer = ("(", ")") if rng.random() < 0.15 else ("{", "}")
    return f"@{kind}{opener}\x00{cls}\x00, {fields}{closer}"


def _comment_word(rng: random.Random) -> str:
    return rng.choice(["@comment", "@comment", "@Comment", "@COMMENT", "@comment ", "@ comment"])


#: blocks: each makes a piece of .bib text whose entries are slots named by their class
_Block = Callable[[random.Random], str]


def _blocks() -> list[_Block]:
    def entry(r: random.Random) -> str:
        return _entry(r, "entry", lines=r.random() < 0.4)

    def afterjunk(r: random.Random) -> str:
        junk = r.choice(["x ", "} ", "{ ", ") ", "% ", "text, ", "a@b.org ", "@ "])
        return junk + _entry(r, "afterjunk")

    def oneline(r: random.Random) -> str:
        before = r.choice(["", " ", "a ", "a", "{b} ", "x} "])
        after = r.choice(["", " ", " b ", " }"])
        return f"{_comment_word(r)}{{{before}{_entry(r, 'oneline')}{after}}}"

    def twoinline(r: random.Random) -> str:
        first, second = _entry(r, "twoinline"), _entry(r, "twoinline")
        return f"{_comment_word(r)}{{ a {first} b {second} }}"

    def parens(r: random.Random) -> str:
        return f"{_comment_word(r)}( {_entry(r, 'parens')} )"

    def nobrace(r: random.Random) -> str:
        return f"{_comment_word(r)} {_entry(r, 'nobrace')}"

    def aftercomment(r: random.Random) -> str:
        return f"{_comment_word(r)}{{x}} {_entry(r, 'aftercomment')}"

    def nested(r: random.Random) -> str:
        return f"{_comment_word(r)}{{ {{a {{b}} c}} {_entry(r, 'nested')} {{d}} }}"

    def email(r: random.Random) -> str:
        return f"{_comment_word(r)}{{ mail me@example.org {_entry(r, 'email')} }}"

    def multiline(r: random.Random) -> str:
        inner = "\n".join(_entry(r, "multiline") for _ in range(r.randint(1, 2)))
        return f"{_comment_word(r)}{{\n{inner}\n}}"

    def multilinejunk(r: random.Random) -> str:
        return f"{_comment_word(r)}{{\n  Old: {_entry(r, 'multilinejunk')} gone }}"

    def sameline(r: random.Random) -> str:
        sep = r.choice([" ", "", " } ", " x ", ", "])
        return _entry(r, "sameline") + sep + _entry(r, "sameline")

    def afterlines(r: random.Random) -> str:
        # an entry ending on the line where the next one starts
        return _entry(r, "afterlines", lines=True) + " " + _entry(r, "afterlines")

    def afterpreamble(r: random.Random) -> str:
        return '@preamble{"a"\n # "b"} ' + _entry(r, "afterpreamble")

    def afterstring(r: random.Random) -> str:
        return "@string{s = {S}} " + _entry(r, "afterstring")

    return [
        entry,
        entry,
        afterjunk,
        oneline,
        oneline,
        twoinline,
        parens,
        nobrace,
        aftercomment,
        nested,
        email,
        multiline,
        multilinejunk,
        sameline,
        afterlines,
        afterpreamble,
        afterstring,
    ]


def comments_case(seed: int) -> CommentsCase:
    """A .bib file of 2 to 8 blocks and a document that cites each of its keys."""
    rng = random.Random(seed)
    blocks = _blocks()
    parts: list[str] = []
    for i in range(rng.randint(2, 8)):
        if i:
            parts.append(rng.choice(["\n", "\n", "\n\n", " ", "  ", "\n% c\n"]))
        parts.append(rng.choice(blocks)(rng))
    # how the file ends decides its last line: "\r\n" ends with an empty one for BibTeX
    text = "".join(parts) + rng.choice(["", "\n", "\n", "\n\n", "\r\n", " "])
    last = last_line_start(text)
    keys: list[str] = []

    def name(m: re.Match[str]) -> str:
        cls = m.group(1) + ("last" if m.start() >= last else "")
        keys.append(f"{cls}Q{len(keys) + 1}")
        return keys[-1]

    text = _SLOT.sub(name, text)
    package = rng.choice(["", "\\usepackage{natbib}\n"])
    main = (
        f"\\documentclass{{article}}\n{package}\\begin{{document}}\n"
        f"\\nocite{{{','.join(keys)}}}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )
    return CommentsCase(seed, {"main.tex": main, "refs.bib": text}, keys)


_NOT_FOUND = re.compile(r'I didn\'t find a database entry for "([^"]*)"')


def comments_oracle(case: CommentsCase, directory: Path) -> set[str] | None:
    """The generated keys BibTeX finds; None when pdflatex failed."""
    if not written_and_run(case.files, directory):
        return None
    _run(["bibtex", "main"], directory)
    blg = (directory / "main.blg").read_text(errors="replace")
    return set(case.keys) - set(_NOT_FOUND.findall(blg))


def comments_ours(case: CommentsCase, directory: Path) -> set[str]:
    dangling = {str(f.data["key"]) for f in folder_findings(directory) if f.code is Code.DANGLING}
    return set(case.keys) - dangling


def run_comments(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "comments", comments_case, comments_oracle, comments_ours)


def readers_oracle(case: CommentsCase, directory: Path) -> set[str]:
    """``biber:KEY`` for each generated key biber reads, ``pandoc:KEY`` for pandoc."""
    bib = directory / "refs.bib"
    bib.write_text(case.files["refs.bib"], encoding="utf-8")
    keys = set(case.keys)
    biber, _ = biber_oracle(bib, directory)
    found = {f"biber:{k}" for k in biber & keys}
    out = _run(["pandoc", "refs.bib", "-f", "bibtex", "-t", "csljson"], directory)
    if out.returncode == 0:
        read = {item["id"] for item in json.loads(out.stdout)}
        found |= {f"pandoc:{k}" for k in read & keys}
    else:  # pandoc cannot read the file (not compared): the keys citewarden defines
        found |= {k for k in readers_ours(case, directory) if k.startswith("pandoc:")}
    return found


def readers_ours(case: CommentsCase, directory: Path) -> set[str]:
    """The keys a biblatex project and a pandoc one citing every key define (none for
    biber where citewarden finds a place biber cannot read: biber then reads no entry)."""
    folder = directory / "ours"
    folder.mkdir(exist_ok=True)
    text = case.files["refs.bib"]
    (folder / "refs.bib").write_text(text, encoding="utf-8")
    (folder / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[backend=biber]{biblatex}\n"
        f"\\addbibresource{{refs.bib}}\n\\begin{{document}}\n\\cite{{{','.join(case.keys)}}}\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    cites = "; ".join(f"@{k}" for k in case.keys)
    (folder / "doc.md").write_text(f"---\nbibliography: refs.bib\n---\n\n[{cites}]\n")
    ws = Workspace(Settings(), root=folder)
    for name in ("main.tex", "doc.md", "refs.bib"):
        ws.add_file(folder / name)
    dangling: dict[str, set[str]] = {"main.tex": set(), "doc.md": set()}
    for path, findings in check(ws).items():
        for f in findings:
            if f.code is Code.DANGLING:
                dangling[path.name].add(str(f.data["key"]))
    found = {f"pandoc:{k}" for k in set(case.keys) - dangling["doc.md"]}
    if not biber_rejections(text, parse_bibtex(Path("refs.bib"), text).entries):
        found |= {f"biber:{k}" for k in set(case.keys) - dangling["main.tex"]}
    return found


def run_readers(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "readers", comments_case, readers_oracle, readers_ours)


# ---------------------------------------------------------------------------------------
# The port of BibTeX's reading, on mutated blocks
# ---------------------------------------------------------------------------------------

#: what the mutations insert
_TOKENS = (
    *("@", "@", "misc", "comment", "COMMENT", "string", "preamble", "x", "jan", "12"),
    *("{", "}", "{", "}", "(", ")", '"', ",", ",", "=", "#", "%", "\\", "a b", "\u00e9"),
    *(" ", " ", "\t", "\n", "\n", "\r", "\r\n"),
)
_BODIES = (
    "{k}, title = {{a {{b}} c}}",
    '{k}, title = "a {{"}} b", year = 12',
    '{k}, t = jan # "x" # {{y}}',
    "{k}, t = 12 # jan",
    "{k}",
    "{k},t={{x}},",
    "{k},\n t\n =\n {{x\n}}\n",
    "{k} = {{S}}",
    '{k} = "S" # jan',
    '"p" # {{q}}',
)

_GAPS = (" ", "\n", "\n\n", "\r\n", "\r", " junk ", "\n% x @ y\n", "}", "")


def reader_case(seed: int) -> CommentsCase:
    """One .bib file of 1 to 10 mutated blocks; its keys are ``readerQ<n>``."""
    rng = random.Random(seed)
    keys: list[str] = []
    parts: list[str] = []
    for _ in range(rng.randint(1, 10)):
        keys.append(f"readerQ{len(keys) + 1}")
        opener, closer = rng.choice([("{", "}"), ("(", ")")])
        kind = rng.choice(["misc", "Misc", "string", "preamble", "comment"])
        # the key is one placeholder while mutating, so that it stays whole
        chars = list(f"@{kind}{opener}{rng.choice(_BODIES).format(k=chr(0))}{closer}")
        for _ in range(rng.choice([0, 0, 1, 2, 3])):
            at = rng.randrange(len(chars) + 1)
            if at < len(chars) and chars[at] != chr(0) and rng.random() < 0.5:
                del chars[at]
            else:
                chars.insert(at, rng.choice(_TOKENS))
        parts.append("".join(chars).replace(chr(0), keys[-1]))
        parts.append(rng.choice(_GAPS))
    return CommentsCase(seed, {"refs.bib": "".join(parts)}, keys)


def reader_oracle(case: CommentsCase, directory: Path) -> set[str]:
    """The keys BibTeX finds, every key cited (the .aux written here)."""
    (directory / "refs.bib").write_bytes(case.files["refs.bib"].encode())
    citations = "".join(f"\\citation{{{k}}}\n" for k in case.keys)
    aux = f"\\relax\n{citations}\\bibstyle{{plain}}\n\\bibdata{{refs}}\n"
    (directory / "main.aux").write_text(aux, encoding="utf-8")
    _run(["bibtex", "main"], directory)
    blg = (directory / "main.blg").read_text(errors="replace")
    return set(case.keys) - set(_NOT_FOUND.findall(blg))


def reader_ours(case: CommentsCase, directory: Path) -> set[str]:
    return {key for _, key in _Reader(case.files["refs.bib"], 0).run()} & set(case.keys)


def run_reader(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "reader", reader_case, reader_oracle, reader_ours)
