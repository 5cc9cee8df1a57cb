"""citewarden against LaTeX + BibTeX / biber on the example documents TeX Live ships.

Every ``.tex`` (or ``.tex.gz``) under ``texmf-dist/doc`` that has a ``\\documentclass``,
cites, and names a bibliography (``\\bibliography``, ``\\addbibresource``,
``\\bibliographystyle``, biblatex) is copied with its folder to ``WORK/<name>/`` (PDFs of
the folder's own documents left out, ``.gz`` files decompressed, a bibliography found
only by kpsewhich copied next to it, so that the tools and citewarden read the same
files).  There it is compiled: LaTeX (pdflatex, or lualatex / xelatex when the document
asks for them), biber when LaTeX wrote a ``.bcf``, else BibTeX on every ``.aux`` with a
``\\bibdata``, then LaTeX twice; each run at most 120 s.

* dangling = the citations the last LaTeX run reports undefined, plus the keys BibTeX or
  biber "didn't find a database entry for";
* orphans = the entries of the .bib files BibTeX (``\\bibdata``) or biber (its data
  sources) read that no .bbl prints and no ``\\citation`` / ``\\nocite{*}`` of a unit
  reading the file names (BibTeX matches keys without case).

A document is skipped (counted) when no .aux is written, a run times out, or LaTeX stops
("Emergency stop", "Fatal error").  The tools' answers are kept in ``WORK/<name>/
oracle.json``, so a second run only asks citewarden again (``--rerun`` compiles anew).

    .venv/bin/python bench/texlive_documents.py [--work /tmp/tldocs] [--only SUBSTRING]
        [--skip SUBSTRING] [--limit N] [--jobs 2] [--rerun] [--verbose]
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_real_tools import citewarden_answer

DOC = Path("/usr/share/texlive/texmf-dist/doc")
TIMEOUT = 120
#: texmf trees the tools read besides the installed ones (``--texmf``), never citewarden
EXTRA_TREES: list[str] = []

_CITE = re.compile(r"\\(?:[A-Za-z]*cite[A-Za-z]*\*?|nocite)\s*(?:\[[^\]]*\]\s*)*\{")
_BIBLIOGRAPHY = re.compile(
    r"\\(?:bibliography\{|addbibresource|bibliographystyle|addglobalbib)"
    r"|\\usepackage(?:\[[^\]]*\])?\{[^}]*biblatex"
)
_RESOURCE = re.compile(
    r"\\(?:addbibresource|addglobalbib|addsectionbib)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}"
    r"|\\(?:bibliography|putbib|defaultbibliography|bibliography[A-Za-z]+)\s*(?:\[[^\]]*\])?"
    r"\s*\{([^}]*)\}"
    r"|\\begin\{refsection\}\[([^\]]*)\]"
)
_UNICODE_ENGINE = re.compile(
    r"\\usepackage(?:\[[^\]]*\])?\{[^}]*\b(?:fontspec|unicode-math|luacode|polyglossia|xeCJK|ctex|luatexja)\b"
)
_PROGRAM = re.compile(r"%\s*!\s*TeX\s+(?:TS-)?program\s*=\s*(\w+)", re.I)
_UNDEFINED = re.compile(r"Citation [`'](.+?)' (?:on page \S+ )?undefined")
_BIBTEX_MISSING = re.compile(r'^Warning--I didn\'t find a database entry for "(.*)"$', re.M)
_BIBER_MISSING = re.compile(
    r"WARN - I didn't find a database entry for '(.*?)'(?: \(section|$)", re.M
)
_BIBER_SOURCE = re.compile(r"INFO - Found BibTeX data source '(.*)'")
_BBL_BIBITEM = re.compile(r"\\bibitem(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\s*\{([^}]*)\}")
_BBL_ENTRY = re.compile(r"\\entry\{([^}]*)\}")
_AUX_CITATION = re.compile(r"\\citation\{([^}]*)\}")
_AUX_BIBDATA = re.compile(r"\\bibdata\{([^}]*)\}")
_BIB_ENTRY = re.compile(r"^[ \t]*@[ \t]*([A-Za-z][\w-]*)[ \t]*[{(][ \t]*([^,\s{}()]+)[ \t]*,", re.M)
_NOT_ENTRIES = {"string", "preamble", "comment"}


def candidates() -> list[Path]:
    """The documents of TeX Live's doc tree that cite and name a bibliography."""
    found = []
    for path in sorted([*DOC.rglob("*.tex"), *DOC.rglob("*.tex.gz")]):
        text = read(path)
        if (
            "\\documentclass" in text
            and "\\begin{document}" in text
            and _CITE.search(text)
            and _BIBLIOGRAPHY.search(text)
        ):
            found.append(path)
    return found


def read(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except OSError:
            return ""
    return data.decode("utf-8", errors="replace")


def name_of(path: Path) -> str:
    rel = path.relative_to(DOC).as_posix().removesuffix(".gz").removesuffix(".tex")
    return rel.replace("/", "__")


def prepare(source: Path, work: Path) -> Path:
    """Copy ``source``'s folder to ``work`` (see module doc); return the root's copy."""
    if work.exists():
        shutil.rmtree(work)
    folder = source.parent
    stems = {p.name.split(".")[0] for p in folder.iterdir() if ".tex" in p.name}
    for path in folder.rglob("*"):
        if not path.is_file() or path.stat().st_size > 20_000_000:
            continue
        rel = path.relative_to(folder)
        if len(rel.parts) > 3:
            continue
        if path.suffix == ".pdf" and (path.stem in stems or path.stem.rsplit("-", 1)[0] in stems):
            continue
        target = work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".gz":
            with contextlib.suppress(OSError):
                target.with_suffix("").write_bytes(gzip.decompress(path.read_bytes()))
        else:
            shutil.copyfile(path, target)
    root = work / source.name.removesuffix(".gz")
    _copy_resources(root)
    return root


def _copy_resources(root: Path) -> None:
    """Copy the bibliographies ``root`` names that only kpsewhich finds next to it."""
    text = root.read_text(errors="replace")
    for m in _RESOURCE.finditer(text):
        names = (m.group(1) or m.group(2) or m.group(3) or "").split(",")
        for name in names:
            name = name.strip()
            if not name or "\\" in name or "#" in name:
                continue
            file = name if name.endswith(".bib") else f"{name}.bib"
            if (root.parent / file).exists():
                continue
            found = subprocess.run(
                ["kpsewhich", file], capture_output=True, text=True, check=False
            ).stdout.strip()
            if found:
                shutil.copyfile(found, root.parent / Path(file).name)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str] | None:
    env = {**os.environ, "max_print_line": "10000", "error_line": "254", "half_error_line": "238"}
    if EXTRA_TREES:  # their ls-R only (mktexlsr TREE), as for the installed trees
        env["TEXMFAUXTREES"] = "".join(f"!!{tree}," for tree in EXTRA_TREES)
        env["TEXMFDBS"] = ":".join([*EXTRA_TREES, _kpse_var("TEXMFDBS")])
    try:
        return subprocess.run(
            args,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None


def _kpse_var(name: str) -> str:
    return subprocess.run(
        ["kpsewhich", "-var-value", name], capture_output=True, text=True, check=False
    ).stdout.strip()


def engine_of(text: str) -> str:
    m = _PROGRAM.search(text)
    if m and m.group(1).lower() in {"lualatex", "xelatex", "pdflatex"}:
        return m.group(1).lower()
    return "lualatex" if _UNICODE_ENGINE.search(text) else "pdflatex"


def bib_keys(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    text = path.read_text(errors="replace")
    return {key for kind, key in _BIB_ENTRY.findall(text) if kind.lower() not in _NOT_ENTRIES}


@dataclass
class Oracle:
    status: str  # "ok" or why it was skipped
    backend: str = ""
    dangling: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)


def compile_document(root: Path) -> Oracle:
    """Run the tools on ``root`` (in its folder) and read their answer."""
    folder, job = root.parent, root.stem
    latex = [
        engine_of(root.read_text(errors="replace")),
        "-draftmode",
        "-interaction=nonstopmode",
        root.name,
    ]
    if _run(latex, folder) is None:
        return Oracle("LaTeX timed out")
    if not (folder / f"{job}.aux").exists():
        return Oracle("no .aux")
    if (folder / f"{job}.bcf").exists():
        oracle = _run_biber(folder, job)
    else:
        oracle = _run_bibtex(folder, job)
    if oracle.status != "ok":
        return oracle
    for _ in range(2):
        if _run(latex, folder) is None:
            return Oracle("LaTeX timed out")
    log = (folder / f"{job}.log").read_text(errors="replace")
    if "Emergency stop" in log or "Fatal error" in log or "==> Fatal" in log:
        return Oracle("LaTeX stopped")
    oracle.dangling = sorted(set(oracle.dangling) | set(_UNDEFINED.findall(log)))
    return oracle


def _run_biber(folder: Path, job: str) -> Oracle:
    run = _run(["biber", job], folder)
    if run is None:
        return Oracle("biber timed out")
    bbl = folder / f"{job}.bbl"
    if not bbl.exists():
        return Oracle("biber wrote no .bbl")
    missing = set(_BIBER_MISSING.findall(run.stdout))
    printed = set(_BBL_ENTRY.findall(bbl.read_text(errors="replace")))
    defined: set[str] = set()
    for source in dict.fromkeys(_BIBER_SOURCE.findall(run.stdout)):
        defined |= bib_keys(folder / source)
    return Oracle("ok", "biber", sorted(missing), sorted(defined - printed))


def _run_bibtex(folder: Path, job: str) -> Oracle:
    missing: set[str] = set()
    used: dict[Path, set[str]] = {}  # .bib file -> keys (casefolded) some unit uses
    everything: set[Path] = set()
    units = 0
    for aux in sorted(folder.glob("*.aux")):
        text = aux.read_text(errors="replace")
        data = _AUX_BIBDATA.findall(text)
        if not data:
            continue
        units += 1
        if _run(["bibtex", aux.stem], folder) is None:
            return Oracle("bibtex timed out")
        blg = folder / f"{aux.stem}.blg"
        if blg.exists():
            missing |= set(_BIBTEX_MISSING.findall(blg.read_text(errors="replace")))
        cited = {k.strip().casefold() for c in _AUX_CITATION.findall(text) for k in c.split(",")}
        bbl = folder / f"{aux.stem}.bbl"
        if bbl.exists():
            cited |= {
                k.strip().casefold() for k in _BBL_BIBITEM.findall(bbl.read_text(errors="replace"))
            }
        for name in data[0].split(","):
            path = folder / (
                name.strip() if name.strip().endswith(".bib") else f"{name.strip()}.bib"
            )
            if not path.exists():
                found = subprocess.run(
                    ["kpsewhich", path.name],
                    cwd=folder,
                    capture_output=True,
                    text=True,
                    check=False,
                ).stdout.strip()
                if not found:
                    continue
                path = Path(found)
            used.setdefault(path, set()).update(cited)
            if "*" in cited:
                everything.add(path)
    if not units:
        return Oracle("no \\bibdata")
    orphans = {
        key
        for path, keys in used.items()
        if path not in everything
        for key in bib_keys(path)
        if key.casefold() not in keys
    }
    return Oracle("ok", "bibtex", sorted(missing), sorted(orphans))


def oracle_of(source: Path, work: Path, rerun: bool) -> tuple[Path, Oracle]:
    cache = work / "oracle.json"
    root = work / source.name.removesuffix(".gz")
    if not rerun and cache.exists():
        return root, Oracle(**json.loads(cache.read_text()))
    root = prepare(source, work)
    try:
        oracle = compile_document(root)
    except (OSError, UnicodeError) as exc:
        oracle = Oracle(f"error: {exc}")
    cache.write_text(json.dumps(oracle.__dict__))
    return root, oracle


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path, default=Path("/tmp/tldocs"))
    parser.add_argument("--only", default="", help="documents whose path holds this")
    parser.add_argument("--skip", action="append", default=[], help="leave out paths holding this")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--rerun", action="store_true", help="compile again")
    parser.add_argument("--verbose", action="store_true", help="list every disagreement")
    parser.add_argument(
        "--texmf",
        action="append",
        default=[],
        help="a texmf tree of packages the documents need (e.g. texlive-latex-extra "
        "unpacked with dpkg -x, then mktexlsr TREE), read by the tools only",
    )
    args = parser.parse_args()
    EXTRA_TREES.extend(args.texmf)
    t0 = time.perf_counter()
    docs = [
        p for p in candidates() if args.only in str(p) and not any(s in str(p) for s in args.skip)
    ]
    if args.limit:
        docs = docs[: args.limit]
    print(f"{len(docs)} candidate documents under {DOC}")
    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(
            pool.map(lambda p: (p, *oracle_of(p, args.work / name_of(p), args.rerun)), docs)
        )
    skipped: Counter[str] = Counter()
    agree = 0
    classes: Counter[str] = Counter()
    rows = []
    for source, root, oracle in results:
        if oracle.status != "ok":
            skipped[oracle.status] += 1
            continue
        ours = citewarden_answer([root])
        diff = {
            "dangling only for citewarden": sorted(ours.dangling - set(oracle.dangling)),
            "dangling only for the tools": sorted(set(oracle.dangling) - ours.dangling),
            "orphan only for citewarden": sorted(ours.orphans - set(oracle.orphans)),
            "orphan only for the tools": sorted(set(oracle.orphans) - ours.orphans),
        }
        if not any(diff.values()):
            agree += 1
            continue
        rows.append((name_of(source), oracle.backend, diff))
        for kind, keys in diff.items():
            if keys:
                classes[kind] += 1
    compared = agree + len(rows)
    print(f"compared: {compared}; agree: {agree}; disagree: {len(rows)}")
    print(
        f"skipped: {sum(skipped.values())} ({', '.join(f'{k}: {n}' for k, n in skipped.most_common())})"
    )
    for kind, count in classes.most_common():
        print(f"  {kind}: {count} documents")
    for name, backend, diff in rows:
        print(f"{name} ({backend})")
        for kind, keys in diff.items():
            if keys:
                shown = keys if args.verbose else keys[:8]
                more = "" if len(shown) == len(keys) else f" ... ({len(keys)} in all)"
                print(f"    {kind}: {', '.join(shown)}{more}")
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
