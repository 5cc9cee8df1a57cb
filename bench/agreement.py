"""Agreement of citewarden's reading with the real tools (pdflatex, pandoc, biber).

Prints, per oracle, the share of generated cases (or .bib files) on which citewarden reads
exactly the keys the tool reads, and the disagreements by class.  The generators and the
oracles are those of the differential tests (tests/differential.py).

    .venv/bin/python bench/agreement.py [--latex N] [--markdown N] [--raw-tex N]
    [--raw-tex-commands N] [--raw-tex-lines N] [--units N]
        [--chapterbib N] [--bibunits N] [--strings N] [--crossref N] [--comments N]
        [--reader N] [--errors N] [--bib N] [--max-bytes B]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import differential
import differential_bibtex_errors
import differential_comments
import differential_crossref
import differential_strings
import differential_units

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latex", type=int, default=60, help="generated LaTeX projects")
    parser.add_argument("--markdown", type=int, default=300, help="generated Markdown documents")
    parser.add_argument(
        "--raw-tex",
        type=int,
        default=300,
        help="Markdown documents of raw TeX pieces, with each pandoc installed",
    )
    parser.add_argument(
        "--raw-tex-commands",
        type=int,
        default=300,
        help="Markdown documents of commands of each kind and their arguments, with each pandoc",
    )
    parser.add_argument(
        "--raw-tex-lines",
        type=int,
        default=300,
        help="Markdown documents of raw TeX where blocks start and end, with each pandoc",
    )
    parser.add_argument("--units", type=int, default=40, help="generated refsection projects")
    parser.add_argument("--chapterbib", type=int, default=40, help="chapterbib projects")
    parser.add_argument("--bibunits", type=int, default=40, help="bibunits projects")
    parser.add_argument(
        "--strings", type=int, default=60, help="projects using @string macros across .bib files"
    )
    parser.add_argument(
        "--crossref", type=int, default=100, help="BibTeX projects with crossref targets"
    )
    parser.add_argument(
        "--comments",
        type=int,
        default=200,
        help=".bib files mixing @comment forms and entries (BibTeX, and biber + pandoc)",
    )
    parser.add_argument(
        "--reader",
        type=int,
        default=2000,
        help="mutated .bib files for the port of BibTeX's reading",
    )
    parser.add_argument(
        "--errors",
        type=int,
        default=300,
        help=".bib files with syntax errors (the keys BibTeX reads after them)",
    )
    parser.add_argument(
        "--bib", type=int, default=1000, help="TeX Live .bib files (smallest first)"
    )
    parser.add_argument(
        "--max-bytes", type=int, default=700_000, help="largest .bib given to biber"
    )
    parser.add_argument("--seed", type=int, default=0, help="first seed")
    args = parser.parse_args()
    missing = differential.missing_tools()
    if missing:
        sys.exit(f"missing tools: {', '.join(missing)}")
    seeds = range(args.seed, args.seed + args.latex)
    t0 = time.perf_counter()
    print("pdflatex (.aux / .bcf keys):", differential.run_latex(seeds).summary())
    seeds = range(args.seed, args.seed + args.markdown)
    print("pandoc -t json (Cite nodes):", differential.run_markdown(seeds).summary())
    generators = [
        (args.raw_tex, differential.raw_tex_case, "raw TeX pieces"),
        (args.raw_tex_commands, differential.raw_tex_command_case, "raw TeX commands"),
        (args.raw_tex_lines, differential.raw_tex_line_case, "raw TeX lines"),
    ]
    pandocs = ["pandoc", *sorted(str(p) for p in (ROOT / ".tools").glob("pandoc-*/pandoc"))]
    for count, make, what in generators:
        seeds = range(args.seed, args.seed + count)
        for pandoc in pandocs:
            version = differential.pandoc_version_of(pandoc)
            tally = differential.run_markdown(seeds, pandoc=pandoc, make=make)
            print(f"pandoc {version} -t json ({what}):", tally.summary())
    generated = [
        (
            args.units,
            differential_units.run_units,
            "pdflatex + biber (refsection units: undefined, unprinted)",
        ),
        (
            args.chapterbib,
            differential_units.run_chapterbib,
            "pdflatex + bibtex (chapterbib units: undefined, unprinted)",
        ),
        (
            args.bibunits,
            differential_units.run_bibunits,
            "pdflatex x2 + bibtex (bibunits defaults: undefined, unprinted)",
        ),
        (
            args.strings,
            differential_strings.run_strings,
            "bibtex / biber (undefined @string macros across .bib files)",
        ),
        (
            args.crossref,
            differential_crossref.run_crossref,
            "bibtex (crossref targets it reports missing)",
        ),
        (
            args.comments,
            differential_comments.run_comments,
            "pdflatex + bibtex (@comment groups, the last line: the keys it finds)",
        ),
        (
            args.comments,
            differential_comments.run_readers,
            "biber --tool / pandoc -t csljson (the same .bib files: the keys they read)",
        ),
        (
            args.reader,
            differential_comments.run_reader,
            "bibtex (mutated .bib files: the keys the port of its reading finds)",
        ),
        (
            args.errors,
            differential_bibtex_errors.run_errors,
            "pdflatex + bibtex (.bib files with syntax errors: the keys it finds)",
        ),
    ]
    for count, run, label in generated:
        print(f"{label}:", run(range(args.seed, args.seed + count)).summary())
    every = differential.texlive_bib_files()
    files = [f for f in every if f.stat().st_size <= args.max_bytes][: args.bib]
    if args.bib and len(files) < len(every):
        print(f"({len(every) - len(files)} .bib files larger than {args.max_bytes} bytes left out)")
    tally, kinds = differential.run_bib(files)
    print("biber --tool (entry keys of TeX Live .bib files):", tally.summary())
    for kind, count in sorted(kinds.items()):
        print(f"  {kind}: {count}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
