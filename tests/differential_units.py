"""Seeded generator of biblatex projects with refsection units, compared with pdflatex +
biber: the citations biblatex leaves undefined once biber ran (the .log of a second
pdflatex run) and the entries no unit printed (the .bbl), against citewarden's dangling and orphan findings.

Each case: two to four .bib files, some named by ``\\addbibresource`` or
``\\addglobalbib``, one to three refsections with their own resources (with or without
``.bib``): environments, or ``\\newrefsection`` (now and then without resources), which
runs to the next one, the next environment or an ``\\endrefsection``, now and then begun
or ended in a file ``\\input`` or ``\\include``d there; citations inside
and outside them, now and then a key defined nowhere or a ``\\nocite{*}`` inside a
refsection, now and then in a file ``\\input`` there (which may read one more); now and
then a report with biblatex's ``refsection=`` option (``chapter``, ``part``, ``section+``,
...) and headings of every level, starred or not, anywhere.

And chapterbib projects compared with pdflatex + BibTeX run on each unit's .aux: the
citations LaTeX leaves undefined and the entries no .bbl printed.  Each case: a root that
loads chapterbib, one to three ``\\include``d chapters (some ``\\input`` a file of their
own, some have a ``\\bibliography``, now and then a ``\\nocite{*}``), and a root
``\\bibliography`` before, after or without the chapters.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.model import Code
from citewarden.parsing.latex_refsection_reset import RESETS
from differential import Tally, _run, folder_findings, run_cases

#: biblatex's warning on the run after biber, for a key its refsection did not find
_UNDEFINED = re.compile(r"Citation '([^']*)' on page \d+ undefined")
_ENTRY = re.compile(r"\\entry\{([^}]*)\}")


@dataclass
class UnitsCase:
    seed: int
    files: dict[str, str]
    #: every key the .bib files define
    defined: set[str]


def _bibs(
    rng: random.Random, files: tuple[int, int], keys: tuple[int, int], key: str, file: str
) -> dict[str, list[str]]:
    """.bib file names with their keys (``key`` numbered from 1 across the files)."""
    n = 0
    bibs: dict[str, list[str]] = {}
    for b in range(rng.randint(*files)):
        found = []
        for _ in range(rng.randint(*keys)):
            n += 1
            found.append(f"{key}{n}")
        bibs[f"{file}{b}"] = found
    return bibs


def _section(
    rng: random.Random,
    names: list[str],
    cites: Callable[[], list[str]],
    parts: dict[str, str],
) -> list[str]:
    """A refsection with its own resources: an environment, or a ``\\newrefsection`` (now
    and then without resources, reading the default ones) that runs to the next section
    or to an ``\\endrefsection``.  Now and then it begins, or ends, in a file read
    there (``\\input`` or ``\\include``): it runs on after that file."""
    own = ",".join(x + rng.choice((".bib", "")) for x in rng.sample(names, rng.randint(1, 2)))
    form = rng.choice(("environment", "command", "ended command"))
    if form == "environment":
        lines = [f"\\begin{{refsection}}[{own}]", *cites()]
    else:
        start = "\\newrefsection" if rng.random() < 0.2 else f"\\newrefsection[{own}]"
        lines = [start, *cites()]
    # an environment begun in an \include'd file leaves LaTeX's \include switch set (its
    # group closes after the file): the next \include is refused ("cannot be nested")
    lines = _in_file(rng, "sec", lines, parts, include=form != "environment")
    if rng.random() < 0.2:
        lines.append("\\nocite{*}")
    lines.append("\\printbibliography")
    if form == "environment":
        lines += _in_file(rng, "end", ["\\end{refsection}", *cites()], parts)
    elif form == "ended command":
        lines += _in_file(rng, "end", ["\\endrefsection", *cites()], parts)
    return lines


def _in_file(
    rng: random.Random, prefix: str, lines: list[str], parts: dict[str, str], include: bool = True
) -> list[str]:
    """``lines``, or now and then the ``\\input`` (or ``\\include``) of a file holding
    them."""
    if rng.random() >= 0.3:
        return lines
    name = f"{prefix}{len(parts)}"
    parts[f"{name}.tex"] = "\n".join(lines) + "\n"
    command = rng.choice(("input", "include")) if include else "input"
    return [f"\\{command}{{{name}}}"]


#: the headings a case writes (those of the ``refsection=`` option's level begin a section)
HEADINGS = ("part", "part*", "chapter", "chapter*", "section", "section*", "subsection")


def units_case(seed: int) -> UnitsCase:
    rng = random.Random(seed)
    bibs = _bibs(rng, (2, 4), (1, 4), "unitQ", "b")
    every = [k for keys in bibs.values() for k in keys] + ["unitQ0"]  # unitQ0: nowhere
    names = list(bibs)
    # now and then a report whose headings of a level begin refsections
    reset = rng.choice(sorted(RESETS.keys() - {"none"})) if rng.random() < 0.45 else ""

    parts: dict[str, str] = {}

    def cites() -> list[str]:
        lines = [f"\\cite{{{k}}}" for k in rng.sample(every, rng.randint(0, 3))]
        if reset and rng.random() < 0.6:  # mostly one that begins a section, before citations
            levels = sorted(RESETS[reset]) if rng.random() < 0.6 else HEADINGS
            lines.insert(rng.randint(0, len(lines) // 2), f"\\{rng.choice(levels)}{{H}}")
        if rng.random() < 0.3:  # the citations of a file read here, now and then its own
            name = f"part{len(parts)}"
            if rng.random() < 0.15:
                lines.append("\\nocite{*}")
            if rng.random() < 0.3:
                lines.append(f"\\input{{{name}sub}}")
                parts[f"{name}sub.tex"] = f"\\cite{{{rng.choice(every)}}}\n"
            parts[f"{name}.tex"] = "\n".join(lines) + "\n"
            return [f"\\input{{{name}}}"]
        return lines

    preamble = [f"\\documentclass{{{'report' if reset else 'article'}}}"]
    if reset and rng.random() < 0.3:
        preamble += [
            "\\usepackage[backend=biber]{biblatex}",
            f"\\ExecuteBibliographyOptions{{refsection={reset}}}",
        ]
    else:
        option = f",refsection={reset}" if reset else ""
        preamble.append(f"\\usepackage[backend=biber{option}]{{biblatex}}")
    for name in rng.sample(names, rng.randint(1, 2)):
        command = "addglobalbib" if rng.random() < 0.3 else "addbibresource"
        preamble.append(f"\\{command}{{{name}.bib}}")
    body = ["\\begin{document}", *cites()]
    for _ in range(rng.randint(1, 3)):
        body += _section(rng, names, cites, parts)
    body += ["\\printbibliography", "\\end{document}", ""]
    text = "\n".join(preamble + body)
    files = {"main.tex": text, **parts}
    defined: set[str] = set()
    tex = "\n".join(files.values())
    for name, keys in bibs.items():
        files[f"{name}.bib"] = "".join(f"@misc{{{k}, title={{T}}}}\n" for k in keys)
        if re.search(r"[\[{,]" + name + r"(?:\.bib)?[,\]}]", tex):  # else in no project
            defined.update(keys)
    return UnitsCase(seed, files, defined)


def units_oracle(case: UnitsCase, directory: Path) -> set[str] | None:
    """``dangling KEY`` for each citation biblatex leaves undefined after biber ran,
    ``orphan KEY`` for each entry no unit printed; None when biber failed."""
    for name, text in case.files.items():
        (directory / name).write_text(text, encoding="utf-8")
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], directory)
    if _run(["biber", "main"], directory).returncode != 0:
        return None  # biber 2.18 stops when the document-wide section reads no file
    blg = (directory / "main.blg").read_text(errors="replace")
    bbl_path = directory / "main.bbl"
    if "ERROR -" in blg or not bbl_path.exists():
        return None
    bbl = bbl_path.read_text(errors="replace")
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], directory)
    log = (directory / "main.log").read_text(errors="replace")
    orphans = case.defined - set(_ENTRY.findall(bbl))
    return {f"dangling {k}" for k in _UNDEFINED.findall(log)} | {f"orphan {k}" for k in orphans}


def units_ours(directory: Path, with_files: bool = False) -> set[str]:
    """``dangling KEY`` (with ``in FILE`` when ``with_files``) and ``orphan KEY`` findings."""
    found: set[str] = set()
    for f in folder_findings(directory):
        if f.code is Code.DANGLING:
            where = f" in {f.location.path.name}" if with_files else ""
            found.add(f"dangling {f.data['key']}{where}")
        elif f.code is Code.ORPHAN:
            found.add(f"orphan {f.data['key']}")
    return found


def _ours(_: UnitsCase, directory: Path) -> set[str]:
    return units_ours(directory)


def run_units(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "units", units_case, units_oracle, _ours)


#: LaTeX's warning for a citation no .bbl defined
_LATEX_UNDEFINED = re.compile(r"Citation `([^']*)' in file `([^']*)' on page \d+ undefined")
_BIBITEM = re.compile(r"\\bibitem(?:\[[^\]]*\])?\{([^}]*)\}")


def chapterbib_case(seed: int) -> UnitsCase:
    rng = random.Random(seed)
    bibs = _bibs(rng, (2, 3), (1, 4), "chapQ", "b")
    every = [k for keys in bibs.values() for k in keys] + ["chapQ0"]  # chapQ0: nowhere
    names = list(bibs)

    def cites() -> list[str]:
        return [f"\\cite{{{k}}}" for k in rng.sample(every, rng.randint(0, 3))]

    def bibliography() -> list[str]:
        own = ",".join(rng.sample(names, rng.randint(1, 2)))
        return ["\\bibliographystyle{plain}", f"\\bibliography{{{own}}}"]

    files: dict[str, str] = {}
    root_bib = rng.choice(("before", "after", "none"))
    body = ["\\begin{document}", *cites()]
    if root_bib == "before":
        body += bibliography()
    for c in range(1, rng.randint(1, 3) + 1):
        chapter = [*cites()]
        if rng.random() < 0.4:
            files[f"sub{c}.tex"] = "\n".join([*cites(), ""])
            chapter.append(f"\\input{{sub{c}}}")
        if rng.random() < 0.15:
            chapter.append("\\nocite{*}")
        if rng.random() < 0.75:
            chapter += bibliography()
        files[f"ch{c}.tex"] = "\n".join([*chapter, ""])
        body += [f"\\include{{ch{c}}}", *cites()]
    if root_bib == "after":
        body += bibliography()
    body += ["\\end{document}", ""]
    preamble = ["\\documentclass{article}", "\\usepackage{chapterbib}"]
    files["main.tex"] = "\n".join(preamble + body)
    text = "".join(files.values())
    defined: set[str] = set()
    for name, keys in bibs.items():
        files[f"{name}.bib"] = "".join(f"@misc{{{k}, title={{T}}}}\n" for k in keys)
        if re.search(r"[{,]" + name + r"[,}]", text):  # a file no unit names is in no project
            defined.update(keys)
    return UnitsCase(seed, files, defined)


def chapterbib_oracle(case: UnitsCase, directory: Path) -> set[str] | None:
    """``dangling KEY`` for each citation LaTeX leaves undefined once BibTeX ran on every
    unit's .aux, ``orphan KEY`` for each entry no .bbl printed; None when a run failed."""
    for name, text in case.files.items():
        (directory / name).write_text(text, encoding="utf-8")
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    if _run(latex, directory).returncode != 0:
        return None
    printed: set[str] = set()
    for aux in sorted(directory.glob("*.aux")):
        if "\\bibdata{" not in aux.read_text(errors="replace"):
            continue  # BibTeX stops at once: that unit has no bibliography
        _run(["bibtex", aux.stem], directory)  # two \bibdata in main.aux: it obeys the first
        bbl = directory / (aux.stem + ".bbl")
        if bbl.exists():
            printed.update(_BIBITEM.findall(bbl.read_text(errors="replace")))
    for _ in range(2):  # the first run writes the \\bibcite lines, the second reads them
        _run(latex, directory)
    log = (directory / "main.log").read_text(errors="replace")
    undefined = set(_LATEX_UNDEFINED.findall(log))
    orphans = case.defined - printed
    return {f"dangling {k} in {unit}" for k, unit in undefined} | {f"orphan {k}" for k in orphans}


def chapterbib_ours(directory: Path) -> set[str]:
    """:func:`units_ours` with each dangling key's unit, named as LaTeX names it (the .aux
    of the chapter the file belongs to: ``sub2.tex`` is read by ``ch2``)."""
    found: set[str] = set()
    for item in units_ours(directory, with_files=True):
        if item.startswith("dangling "):
            key, _, path = item[len("dangling ") :].partition(" in ")
            stem = Path(path).stem
            unit = "ch" + stem[3:] if stem.startswith("sub") else stem
            found.add(f"dangling {key} in {unit}")
        else:
            found.add(item)
    return found


def run_chapterbib(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(
        seeds,
        budget,
        "chapterbib",
        chapterbib_case,
        chapterbib_oracle,
        lambda _, directory: chapterbib_ours(directory),
    )


# ---------------------------------------------------------------------------------------
# bibunits: units and defaults across included files, against BibTeX on each bu<n>.aux
# ---------------------------------------------------------------------------------------

_BLG_MISSING = re.compile(r'I didn\'t find a database entry for "([^"]*)"')
_AUX_CITATION = re.compile(r"\\citation\{([^}]*)\}")


def bibunits_case(seed: int) -> UnitsCase:
    """A report with bibunits: ``\\defaultbibliography`` in the preamble (now and then in a
    file ``\\input`` there), the root's body and the chapters (``\\include``d or
    ``\\input``), units with a bare ``\\putbib`` or ``\\putbib[files]`` in each file, every
    key cited at most once (so a dangling key names its unit), now and then a key defined
    nowhere."""
    rng = random.Random(seed)
    bibs = _bibs(rng, (2, 4), (2, 5), "buQ", "d")
    pool = [k for keys in bibs.values() for k in keys] + ["buQ0"]  # buQ0: nowhere
    rng.shuffle(pool)
    names = list(bibs)

    def default() -> str:
        return f"\\defaultbibliography{{{rng.choice(names)}}}"

    def unit() -> list[str]:
        cited = [pool.pop() for _ in range(min(len(pool), rng.randint(1, 2)))]
        putbib = "\\putbib"
        if rng.random() < 0.25:
            putbib += "[" + ",".join(rng.sample(names, rng.randint(1, 2))) + "]"
        return ["\\begin{bibunit}", *(f"\\cite{{{k}}}" for k in cited), putbib, "\\end{bibunit}"]

    def stretch() -> list[str]:
        lines: list[str] = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.35:
                lines.append(default())
            lines += unit()
        return lines

    files: dict[str, str] = {}
    preamble = ["\\documentclass{report}", "\\usepackage{bibunits}"]
    preamble.append("\\defaultbibliographystyle{plain}")
    if rng.random() < 0.5:
        preamble.append(default())
    body = ["\\begin{document}", *stretch()]
    for c in range(1, rng.randint(1, 3) + 1):
        files[f"ch{c}.tex"] = "\n".join([*stretch(), ""])
        command = "include" if rng.random() < 0.6 else "input"
        body += [f"\\{command}{{ch{c}}}"]
        if rng.random() < 0.5:
            body += stretch()
    if rng.random() < 0.3:
        # a preamble kept in a file of its own: its default is the preamble's
        files["pre.tex"] = default() + "\n"
        preamble.insert(rng.randint(2, len(preamble)), "\\input{pre}")
    if not any("\\defaultbibliography{" in t for t in [*files.values(), *preamble, *body]):
        body.insert(1, default())  # a default somewhere: \jobname.bib is not generated
    body += ["\\end{document}", ""]
    files["main.tex"] = "\n".join(preamble + body)
    defined: set[str] = set()
    for name, keys in bibs.items():
        files[f"{name}.bib"] = "".join(f"@misc{{{k}, title={{T}}}}\n" for k in keys)
        defined.update(keys)
    return UnitsCase(seed, files, defined)


def bibunits_oracle(case: UnitsCase, directory: Path) -> set[str] | None:
    """``dangling KEY`` for each citation BibTeX did not find for its unit (the second
    run's ``bu<n>.aux``: the first writes the defaults to the .aux that the second reads at
    ``\\begin{document}``), ``orphan KEY`` for each entry of a file a unit read that no
    unit printed; None when a run failed."""
    for name, text in case.files.items():
        (directory / name).write_text(text, encoding="utf-8")
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"]
    for _ in range(2):
        if _run(latex, directory).returncode != 0:
            return None
    dangling: set[str] = set()
    printed: set[str] = set()
    read: set[str] = set()
    for aux in sorted(directory.glob("bu*.aux")):
        text = aux.read_text(errors="replace")
        data = re.search(r"\\bibdata\{([^}]*)\}", text)
        if data is None:
            return None
        read.update(name.strip() for name in data.group(1).split(","))
        _run(["bibtex", aux.stem], directory)
        blg = (directory / (aux.stem + ".blg")).read_text(errors="replace")
        dangling.update(_BLG_MISSING.findall(blg))
        bbl = directory / (aux.stem + ".bbl")
        if bbl.exists():
            printed.update(_BIBITEM.findall(bbl.read_text(errors="replace")))
    in_read = {
        key
        for name in read
        if (directory / f"{name}.bib").exists()
        for key in re.findall(r"@misc\{([^,]*),", (directory / f"{name}.bib").read_text())
    }
    orphans = in_read - printed
    return {f"dangling {k}" for k in dangling} | {f"orphan {k}" for k in orphans}


def run_bibunits(seeds: Iterable[int], budget: float = 1e9) -> Tally:
    return run_cases(seeds, budget, "bibunits", bibunits_case, bibunits_oracle, _ours)
