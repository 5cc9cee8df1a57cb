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
  sources, from its .blg) read that no .bbl prints, no ``\\citation`` / ``\\nocite{*}`` of
  a unit reading the file names (BibTeX matches keys without case), and no such entry takes
  its data from (``crossref``, ``xdata``, the members of a ``@set``, transitively).

A document whose bibliography file is not there (citewarden reports missing-bibliography
where the tools leave every citation undefined) is counted apart.

A document is skipped (counted) when no .aux is written, a run times out, or LaTeX stops
("Emergency stop", "Fatal error").  Whether it compiled is kept in ``WORK/<name>/
oracle.json``, and the tools' files are read again on each run, so a second run does not
compile (``--rerun`` compiles anew).

    .venv/bin/python bench/texlive_documents.py [--work /tmp/tldocs] [--only SUBSTRING]
        [--skip SUBSTRING] [--limit N] [--jobs 2] [--rerun] [--verbose] [--texmf TREE]
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

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace
from citewarden.settings import Settings

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
    r"|\\begin\{btSect\}\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}"
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
        names = (m.group(1) or m.group(2) or m.group(3) or m.group(4) or "").split(",")
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


_FIELD_KEYS = re.compile(
    r"\b(crossref|xdata|entryset)\s*=\s*(?:\{([^{}]*)\}|\"([^\"]*)\"|([\w:./-]+))", re.I
)


def bib_entries(path: Path) -> dict[str, tuple[str, set[str]]]:
    """key -> (entry type, the keys its crossref / xdata / (a @set's) entryset name)."""
    if not path.is_file():
        return {}
    text = path.read_text(errors="replace")
    found: dict[str, tuple[str, set[str]]] = {}
    matches = list(_BIB_ENTRY.finditer(text))
    for n, m in enumerate(matches):
        kind, key = m.group(1).lower(), m.group(2)
        if kind in _NOT_ENTRIES or key in found:
            continue
        body = text[m.end() : matches[n + 1].start() if n + 1 < len(matches) else len(text)]
        targets = set()
        for f in _FIELD_KEYS.finditer(body):
            if f.group(1).lower() == "entryset" and kind != "set":
                continue
            value = f.group(2) or f.group(3) or f.group(4) or ""
            targets.update(k.strip() for k in value.split(",") if k.strip())
        found[key] = (kind, targets)
    return found


def _with_data(used: set[str], entries: dict[str, tuple[str, set[str]]], fold: bool) -> set[str]:
    """``used`` and the entries whose data they take (crossref, xdata, a set's members),
    transitively: the tool read those to write what it printed."""
    norm = str.casefold if fold else str
    by_key = {norm(k): v for k, v in entries.items()}
    done = {norm(k) for k in used}
    todo = list(done)
    while todo:
        for target in by_key.get(todo.pop(), ("", set()))[1]:
            if norm(target) not in done:
                done.add(norm(target))
                todo.append(norm(target))
    return done


@dataclass(frozen=True)
class Answer:
    dangling: frozenset[str]
    orphans: frozenset[str]
    #: the project names a bibliography file that is not there (citewarden then reports
    #: missing-bibliography, not the citations LaTeX leaves undefined)
    missing_bibliography: bool


def citewarden_answer(root: Path) -> Answer:
    """citewarden's dangling keys and orphans in ``root``'s project (as
    tests/test_real_tools.py asks)."""
    ws = Workspace(Settings(), root=root.parent)
    path = ws.add_file(root)
    scope: set[Path] = set()
    for project in ws.projects():
        if project.root == path:
            scope.update(project.sources, project.bibliographies)
    found = [f for p, fs in check(ws).items() if p in scope for f in fs]
    return Answer(
        frozenset(str(f.data["key"]) for f in found if f.code is Code.DANGLING),
        frozenset(str(f.data["key"]) for f in found if f.code is Code.ORPHAN),
        any(f.code is Code.MISSING_BIBLIOGRAPHY for f in found),
    )


@dataclass
class Oracle:
    status: str  # "ok" or why it was skipped
    backend: str = ""
    dangling: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)


def compile_document(root: Path) -> Oracle:
    """Run the tools on ``root`` (in its folder): the status and the backend."""
    folder, job = root.parent, root.stem
    engine = engine_of(root.read_text(errors="replace"))
    if shutil.which(engine) is None:
        return Oracle(f"{engine} not installed")
    latex = [
        engine,
        "-draftmode",
        "-interaction=nonstopmode",
        root.name,
    ]
    if _run(latex, folder) is None:
        return Oracle("LaTeX timed out")
    if not (folder / f"{job}.aux").exists():
        return Oracle("no .aux")
    if (folder / f"{job}.bcf").exists():
        backend = "biber"
        if _run(["biber", job], folder) is None:
            return Oracle("biber timed out")
        if not (folder / f"{job}.bbl").exists():
            return Oracle("biber wrote no .bbl")
    else:
        backend = "bibtex"
        units = [
            aux
            for aux in sorted(folder.glob("*.aux"))
            if _AUX_BIBDATA.search(aux.read_text(errors="replace"))
        ]
        if not units:
            return Oracle("no \\bibdata")
        for aux in units:
            if _run(["bibtex", aux.stem], folder) is None:
                return Oracle("bibtex timed out")
    for _ in range(2):
        if _run(latex, folder) is None:
            return Oracle("LaTeX timed out")
    log = (folder / f"{job}.log").read_text(errors="replace")
    if "Emergency stop" in log or "Fatal error" in log or "==> Fatal" in log:
        return Oracle("LaTeX stopped")
    return Oracle("ok", backend)


def read_answer(root: Path, oracle: Oracle) -> Oracle:
    """The tools' answer, read from the files they wrote in ``root``'s folder."""
    folder, job = root.parent, root.stem
    read = _read_biber if oracle.backend == "biber" else _read_bibtex
    missing, orphans = read(folder, job)
    log = (folder / f"{job}.log").read_text(errors="replace")
    dangling = sorted(missing | set(_UNDEFINED.findall(log)))
    return Oracle(oracle.status, oracle.backend, dangling, sorted(orphans))


def _read_biber(folder: Path, job: str) -> tuple[set[str], set[str]]:
    blg = (folder / f"{job}.blg").read_text(errors="replace")
    missing = set(_BIBER_MISSING.findall(blg))
    printed = set(_BBL_ENTRY.findall((folder / f"{job}.bbl").read_text(errors="replace")))
    entries: dict[str, tuple[str, set[str]]] = {}
    for source in dict.fromkeys(_BIBER_SOURCE.findall(blg)):
        for key, value in bib_entries(folder / source).items():
            entries.setdefault(key, value)
    used = _with_data(printed, entries, fold=False)
    return missing, {key for key in entries if key not in used}


def _read_bibtex(folder: Path, job: str) -> tuple[set[str], set[str]]:
    missing: set[str] = set()
    used: dict[Path, set[str]] = {}  # .bib file -> keys (casefolded) some unit uses
    everything: set[Path] = set()
    for aux in sorted(folder.glob("*.aux")):
        text = aux.read_text(errors="replace")
        data = _AUX_BIBDATA.findall(text)
        if not data:
            continue
        blg = folder / f"{aux.stem}.blg"
        if blg.exists():
            missing |= set(_BIBTEX_MISSING.findall(blg.read_text(errors="replace")))
        cited = {k.strip() for c in _AUX_CITATION.findall(text) for k in c.split(",")}
        bbl = folder / f"{aux.stem}.bbl"
        if bbl.exists():
            cited |= {k.strip() for k in _BBL_BIBITEM.findall(bbl.read_text(errors="replace"))}
        for name in data[0].split(","):
            file = name.strip() if name.strip().endswith(".bib") else f"{name.strip()}.bib"
            path = folder / file
            if not path.exists():
                found = subprocess.run(
                    ["kpsewhich", file], cwd=folder, capture_output=True, text=True, check=False
                ).stdout.strip()
                if not found:
                    continue
                path = Path(found)
            used.setdefault(path, set()).update(cited)
            if "*" in cited:
                everything.add(path)
    orphans = set()
    for path, cited in used.items():
        if path in everything:
            continue
        entries = bib_entries(path)
        reached = _with_data(cited, entries, fold=True)
        orphans |= {key for key in entries if key.casefold() not in reached}
    return missing, orphans


def oracle_of(source: Path, work: Path, rerun: bool) -> tuple[Path, Oracle]:
    """Compile ``source`` in ``work`` (or take the status kept there) and read the tools'
    answer."""
    cache = work / "oracle.json"
    root = work / source.name.removesuffix(".gz")
    if not rerun and cache.exists():
        oracle = Oracle(**json.loads(cache.read_text()))
    else:
        root = prepare(source, work)
        try:
            oracle = compile_document(root)
        except (OSError, UnicodeError) as exc:
            oracle = Oracle(f"error: {exc}")
        cache.write_text(json.dumps({"status": oracle.status, "backend": oracle.backend}))
    if oracle.status == "ok" and oracle.backend == "biber":
        oracle.status = _biber_stopped(root.parent / f"{root.stem}.blg") or oracle.status
    return root, read_answer(root, oracle) if oracle.status == "ok" else oracle


def _biber_stopped(blg: Path) -> str:
    """Why biber read no data (an error other than a data source it cannot find, such as
    biblatex-ms's control file, which needs biber-ms), or ""."""
    text = blg.read_text(errors="replace") if blg.exists() else ""
    errors = [line for line in text.splitlines() if "ERROR - " in line]
    if errors and not _BIBER_SOURCE.search(text) and "Cannot find" not in text:
        if "control file version" in errors[0]:
            return "biber stopped: a .bcf of another version (biblatex-ms needs biber-ms)"
        return "biber stopped: " + errors[0].split("ERROR - ", 1)[1][:60]
    return ""


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
    missing_bib: list[str] = []
    for source, root, oracle in results:
        if oracle.status != "ok":
            skipped[oracle.status] += 1
            continue
        ours = citewarden_answer(root)
        diff = {
            "dangling only for citewarden": sorted(ours.dangling - set(oracle.dangling)),
            "dangling only for the tools": sorted(set(oracle.dangling) - ours.dangling),
            "orphan only for citewarden": sorted(ours.orphans - set(oracle.orphans)),
            "orphan only for the tools": sorted(set(oracle.orphans) - ours.orphans),
        }
        if ours.missing_bibliography and diff["dangling only for the tools"]:
            # the tools leave every citation undefined; citewarden says the file is missing
            missing_bib.append(name_of(source))
            continue
        if not any(diff.values()):
            agree += 1
            continue
        rows.append((name_of(source), oracle.backend, diff))
        for kind, keys in diff.items():
            if keys:
                classes[kind] += 1
    compared = agree + len(rows) + len(missing_bib)
    print(f"compared: {compared}; agree: {agree}; disagree: {len(rows)}")
    if missing_bib:
        print(
            f"  a bibliography not found (citewarden: missing-bibliography): {len(missing_bib)}"
            f" ({', '.join(missing_bib)})"
        )
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
