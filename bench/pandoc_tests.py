"""Agreement of citewarden's Markdown reader with pandoc on pandoc's own citation tests.

pandoc's test suite (``test/command/*.md`` in jgm/pandoc, GPL-2.0-or-later, so not copied
into this MIT repository) writes each test as a fenced block: a ``% pandoc ARGS`` line, the
input, ``^D``, the expected output.  For every block whose reader is pandoc Markdown and
whose input holds an ``@``, this runs ``pandoc -f <reader> -t json`` on the input and
compares the ``citationId`` of its ``Cite`` nodes (metadata included; ``*`` of
``nocite: '@*'`` as citewarden's "cites everything") with the keys citewarden reads.

    .venv/bin/python bench/pandoc_tests.py DIR [DIR ...]   # folders of pandoc's test files
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import differential
from citewarden.model import DocumentKind, ParsedDocument
from citewarden.parsing.dispatch import parse_file

_BLOCK = re.compile(r"^```+\n% pandoc([^\n]*)\n(.*?)\n\^D\n", re.M | re.S)
#: readers that are pandoc Markdown (with the citations extension on by default)
_MARKDOWN = re.compile(r"markdown(?![_a-z])")


def reader(args: str) -> str | None:
    """The ``-f`` / ``--from`` / ``-r`` value of a test's command line (``markdown`` when
    none is given), or None when it is not pandoc Markdown with citations."""
    try:
        words = shlex.split(args)
    except ValueError:
        return None
    value = "markdown"
    for i, word in enumerate(words):
        if word in ("-f", "-r", "--from", "--read") and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith(("--from=", "--read=")):
            value = word.split("=", 1)[1]
    if not _MARKDOWN.match(value) or "-citations" in value:
        return None
    return value


def ours(text: str) -> set[str]:
    doc = parse_file(Path("doc.md"), text)
    assert isinstance(doc, ParsedDocument) and doc.kind is DocumentKind.MARKDOWN
    keys = {c.key for c in doc.citations}
    return keys | {"*"} if doc.nocite_all else keys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    files = sorted(p for folder in args.folders for p in folder.rglob("*.md"))
    tally = differential.Tally()
    blocks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            for n, m in enumerate(_BLOCK.finditer(text), start=1):
                blocks += 1
                read_as = reader(m.group(1))
                source = m.group(2) + "\n"
                if read_as is None or "@" not in source:
                    continue
                (Path(tmp) / "doc.md").write_text(source, encoding="utf-8")
                out = differential._run(
                    ["pandoc", "-f", read_as, "-t", "json", "doc.md"], Path(tmp)
                )
                if out.returncode != 0:
                    tally.skipped.append(f"{path.name} #{n}")
                    continue
                oracle = set(differential._cites(json.loads(out.stdout)))
                tally.add(oracle, ours(source), f"{path.name} #{n}")
    print(f"{len(files)} files, {blocks} test blocks; Markdown blocks with an @:")
    print("pandoc -t json (Cite nodes):", tally.summary())


if __name__ == "__main__":
    main()
