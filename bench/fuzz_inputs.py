"""Mutation fuzzing of the readers: what a damaged or hostile file costs, and whether it fails.

Takes the project's own real documents and bibliographies (tests/data, examples) as seeds,
damages each many times (inserts, cuts, repeats a stretch, or writes one token thousands of
times: braces, ``@``, ``\\cite{``, ``[@``, ``\\(``, runs of spaces, ``-->`` ...) and reads
the result as citewarden does before any request: the BibTeX reader, the entry
normalisation, the static checks and the comparison of each entry with the one before it,
the LaTeX and Markdown readers and the citing sentence of every citation, the CSL-JSON,
CSL-YAML and pandoc metadata readers; now and then a YAML block of aliases of aliases (a
"billion laughs") is put in first.

Prints the cases read per second, every exception (none is expected: errors are data) and
the slowest cases; a case slower than ``--slow`` seconds is written to ``--out`` so that it
can be read again (``python bench/fuzz_inputs.py --replay FILE`` times one file).
``--big MB`` instead times the reading of documents of ``MB`` megabytes made of one
repeated piece (:data:`BIG`), such as a file of nothing but empty inline notes.

Usage: ``python bench/fuzz_inputs.py [--seconds 120] [--seed 1] [--slow 1.0] [--out DIR]``
or ``python bench/fuzz_inputs.py --big 33``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.context.sentence import citing_sentences  # noqa: E402
from citewarden.parsing.bibtex import parse_bibtex  # noqa: E402
from citewarden.parsing.dispatch import parse_file  # noqa: E402
from citewarden.parsing.latex import parse_latex  # noqa: E402
from citewarden.parsing.markdown import parse_markdown  # noqa: E402
from citewarden.parsing.pandoc_syntax import (  # noqa: E402
    PANDOC_3,
    PANDOC_3_9,
    pandoc_skips,
    read_as_pandoc,
)
from citewarden.verify.compare import compare  # noqa: E402
from citewarden.verify.field_check import field_issues  # noqa: E402
from citewarden.verify.normalize import NormalizedEntry, normalize_entry  # noqa: E402
from citewarden.verify.records import DamagedRecord, Person, WorkRecord  # noqa: E402
from citewarden.verify.static_checks import static_issues  # noqa: E402

SUFFIXES = (".bib", ".tex", ".md", ".qmd", ".Rmd", ".yaml", ".yml", ".json")
#: what the damage writes: the characters and commands the readers give meaning to
TOKENS = (
    "{", "}", "\\", "@", ",", "=", '"', "%", "#", "\n", "$", "$$", "~", "\x00", "\u202e",
    "é", "\\cite{", "[@", "@article{", "\\begin{", "\\end{", "\\input{", "\\bibliography{",
    "\\verb|", "\\iffalse", "\\fi", "\\def\\x{", "\\newcommand", "\\(", "\\[", "\\\\",
    "---\n", "```", "<!--", "-->", " " * 50, "and ", "others", "et al.", '{\\"o}', "A", "(", ":",
    "&a ", "*a", "- ", "[", "]", "{id: k}", "<<: *a", "\\footnote{", "\\section{", "^[", "|",
    "[^1]", "1234567890", "\u00b2", "\u0663", "\\ifnum ", "<", "--", "pp. ", "X",
)  # fmt: skip
#: YAML anchors each a list of twenty aliases of the one before (20 ** 8 nodes expanded)
LAUGHS = "".join(
    f"l{i}: &l{i} [" + (", ".join([f"*l{i - 1}"] * 20) if i else "'@k'") + "]\n" for i in range(9)
)
TODAY = date(2026, 12, 1)
#: the longest stretch of a seed read at once (a long seed is read in windows)
WINDOW = 60_000
#: big documents of one repeated piece (``--big``): what they are, their head, the piece,
#: and what closes each piece, as many times after them all ("" for nothing)
BIG = (
    ("empty inline notes", "", "^[]", ""),
    ("a citation, then empty inline notes", "Text shown [@k]. ", "^[]", ""),
    ("a citation, then inline notes of a word", "Text shown [@k]. ", "^[x]", ""),
    ("a citation, then dollar signs that close no math", "Text shown [@k]. ", "$x ", ""),
    ("a citation, then shortcodes that never close", "Text shown [@k]. ", "{{<", ""),
    ("a citation, then nested brackets of keys and semicolons", "Text shown [@k]. ", "[@a;", "]"),
    ("a citation, then nested citation groups", "Text shown [@k]. ", "[@a ", "]"),
)


def seeds() -> list[Path]:
    found = [
        p
        for base in (ROOT / "tests" / "data", ROOT / "examples")
        for p in base.rglob("*")
        if p.suffix in SUFFIXES and p.is_file() and p.stat().st_size < 300_000
    ]
    return sorted(found)


def damage(text: str, rnd: random.Random) -> str:
    if rnd.random() < 0.03:  # aliases of aliases, in a YAML file or a front matter block
        head = text.find("---\n") + 4 if text.startswith("---\n") else 0
        text = text[:head] + LAUGHS + text[head:]
    for _ in range(rnd.randint(1, 8)):
        at = rnd.randrange(len(text) + 1)
        op = rnd.random()
        if op < 0.4:
            text = text[:at] + rnd.choice(TOKENS) + text[at:]
        elif op < 0.7:
            text = text[:at] + text[min(len(text), at + rnd.randint(1, 200)) :]
        elif op < 0.85:
            end = min(len(text), at + rnd.randint(1, 500))
            text = text[:at] + text[at:end] * rnd.randint(2, 20) + text[end:]
        else:
            text = text[:at] + rnd.choice(TOKENS) * rnd.randint(50, 3000) + text[at:]
    return text


def _record(entry: NormalizedEntry) -> WorkRecord | None:
    """The entry as a source's record, to compare the next entry with; None when no
    source's record could hold its values (a record over the bounds is a malformed
    answer: :class:`~citewarden.verify.records.DamagedRecord`)."""
    people = tuple(Person(a.family, a.given) for a in entry.authors)
    try:
        return WorkRecord(
            "fuzz",
            entry.title or "",
            people,
            entry.year,
            venue=entry.venue,
            volume=entry.volume,
            pages=entry.pages,
            doi=entry.doi,
        )
    except DamagedRecord:
        return None


def read(path: Path, text: str) -> None:
    """Everything citewarden does with a file before it asks a source."""
    if path.suffix == ".bib":
        before: NormalizedEntry | None = None
        entries = parse_bibtex(path, text).entries
        pandoc_skips(read_as_pandoc(text, entries), entries)  # as a Markdown project reads it
        for raw in entries:
            entry = normalize_entry(raw)
            static_issues(entry, TODAY)
            record = _record(before) if before is not None else None
            if record is not None:
                field_issues(entry, compare(entry, record), anchored_by_id=bool(entry.doi))
            before = entry
        return
    if path.suffix in (".yaml", ".yml", ".json"):  # CSL bibliographies, pandoc metadata
        parse_file(path, text)
        return
    doc = parse_latex(path, text) if path.suffix == ".tex" else parse_markdown(path, text)
    citing_sentences(text, doc.citations, doc.kind)


def run(seconds: float, seed: int, slow: float, out: Path) -> int:
    rnd = random.Random(seed)
    files = seeds()
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    cases = failures = 0
    slowest: list[tuple[float, int, str]] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        path = rnd.choice(files)
        text = texts[path]
        if len(text) > WINDOW:
            at = rnd.randrange(len(text) - WINDOW)
            text = text[at : at + WINDOW]
        text = damage(text, rnd)
        t0 = time.perf_counter()
        try:
            read(path, text)
        except Exception:  # what the bench looks for
            failures += 1
            saved = _save(out, f"fail-{seed}-{cases}{path.suffix}", text)
            print(f"EXCEPTION {path.relative_to(ROOT)} -> {saved}")
            print("  " + traceback.format_exc().strip().splitlines()[-1])
        took = time.perf_counter() - t0
        slowest = sorted([*slowest, (took, len(text), str(path.relative_to(ROOT)))])[-5:]
        if took > slow:
            print(f"SLOW {took:.2f} s, {len(text)} chars, from {path.relative_to(ROOT)} -> "
                  f"{_save(out, f'slow-{seed}-{cases}{path.suffix}', text)}")  # fmt: skip
        cases += 1
    wall = time.perf_counter() - started
    print(f"{cases} damaged files from {len(files)} seeds in {wall:.0f} s "
          f"({cases / wall:.0f} per second), {failures} exceptions")  # fmt: skip
    print(
        "slowest: " + "; ".join(f"{t * 1000:.0f} ms ({n} chars, {p})" for t, n, p in slowest[::-1])
    )
    return 1 if failures else 0


def _save(out: Path, name: str, text: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return path


def replay(path: Path) -> int:
    text = path.read_text(encoding="utf-8", errors="surrogatepass")
    t0 = time.perf_counter()
    read(path, text)
    print(f"{path}: {len(text)} chars read in {(time.perf_counter() - t0) * 1000:.0f} ms")
    return 0


def big(mb: float) -> int:
    """Time the reading of each of :data:`BIG`, ``mb`` megabytes of its piece: the Markdown
    reader as pandoc 3.9 and as pandoc 3.0-3.7 read it (``check`` without a pandoc on the
    path), then the citing sentences."""
    path = Path("big.md")
    for name, head, unit, close in BIG:
        count = int(mb * 1_000_000) // len(unit + close)
        text = head + unit * count + close * count
        took: list[float] = []
        for dialect in (PANDOC_3_9, PANDOC_3):
            t0 = time.process_time()
            doc = parse_markdown(path, text, dialect)
            took.append(time.process_time() - t0)
        t0 = time.process_time()
        citing_sentences(text, doc.citations, doc.kind)
        took.append(time.process_time() - t0)
        print(f"{name}, {len(text) / 1e6:.0f} MB ({count} pieces), CPU: reading "
              f"{took[0]:.2f} s (pandoc 3.9) / {took[1]:.2f} s (3.0-3.7), sentences "
              f"{took[2]:.2f} s; {sum(took[1:]) / count * 1e6:.2f} us a piece")  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slow", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-cases"))
    parser.add_argument("--replay", type=Path)
    parser.add_argument("--big", type=float, metavar="MB")
    args = parser.parse_args(argv)
    if args.replay is not None:
        return replay(args.replay)
    if args.big is not None:
        return big(args.big)
    return run(args.seconds, args.seed, args.slow, args.out)


if __name__ == "__main__":
    raise SystemExit(main())
