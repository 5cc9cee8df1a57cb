"""Agreement with the real tools on real documents (tests/data/documents, see PROVENANCE.md).

For each LaTeX project the oracle is LaTeX + BibTeX or biber, run here in a temporary copy:

* dangling = the citations the final LaTeX run still reports undefined, plus the keys
  BibTeX/biber report it "didn't find a database entry for" (this covers ``\\nocite``);
* orphans = the entries ``checkcites --unused`` lists; a bibliography shared by several roots
  has as orphans the entries unused by every one of them.  checkcites matches keys
  case-sensitively while BibTeX does not, and knows nothing of biblatex's sets, so an entry
  BibTeX or biber itself wrote into the .bbl is used, whatever checkcites says.

For each Markdown project the oracle is pandoc --citeproc:

* dangling = its ``[WARNING] Citeproc: citation KEY not found`` messages;
* orphans = the bibliography's entries (read by pandoc itself) that pandoc did not place in
  the rendered reference list.

Nothing is hard-coded: the tools are run and their answer is compared with citewarden's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bibtexparser
import pytest

from checking import check
from citewarden.fix.plan import plan_fix
from citewarden.model import Code, Entry
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace
from citewarden.settings import Settings
from citewarden.verify.compare import compare
from citewarden.verify.evidence import Evidence, IdKind, IdState
from citewarden.verify.normalize import normalize_entry
from citewarden.verify.sources.crossref import work_from_csl
from citewarden.verify.verdict import decide
from paths import DATA

DOCUMENTS = Path(__file__).parent / "data" / "documents"

REQUIRED = ("pdflatex", "bibtex", "biber", "checkcites", "pandoc")


def _require_tools() -> None:
    missing = [tool for tool in REQUIRED if shutil.which(tool) is None]
    if missing:
        pytest.fail(
            f"real tools missing: {', '.join(missing)} (scripts/system-deps installs them)",
            pytrace=False,
        )


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _require_tools()
    target = tmp_path_factory.mktemp("documents")
    shutil.copytree(DOCUMENTS, target, dirs_exist_ok=True)
    return target


# ---------------------------------------------------------------------------------------
# citewarden's answer
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    dangling: frozenset[str]
    orphans: frozenset[str]


def citewarden_answer(roots: list[Path], commands: tuple[str, ...] = ()) -> Answer:
    ws = Workspace(Settings(citation_commands=commands), root=roots[0].parent)
    paths = {ws.add_file(root) for root in roots}
    in_scope: set[Path] = set()
    for project in ws.projects():
        if project.root in paths:
            in_scope.update(project.sources)
            in_scope.update(project.bibliographies)
    findings = [f for path, fs in check(ws).items() if path in in_scope for f in fs]
    dangling = {str(f.data["key"]) for f in findings if f.code is Code.DANGLING}
    orphans = {str(f.data["key"]) for f in findings if f.code is Code.ORPHAN}
    return Answer(frozenset(dangling), frozenset(orphans))


# ---------------------------------------------------------------------------------------
# LaTeX + BibTeX / biber + checkcites
# ---------------------------------------------------------------------------------------

_UNDEFINED = re.compile(r"Citation [`'](.+?)' (?:on page \S+ )?undefined")
_BIBTEX_MISSING = re.compile(r'^Warning--I didn\'t find a database entry for "(.*)"$', re.M)
_BIBER_MISSING = re.compile(r"WARN - I didn't find a database entry for '(.*)'")
_BBL_ENTRY = re.compile(r"\\entry\{([^}]*)\}")
_BBL_BIBITEM = re.compile(r"\\bibitem(?:\[(?:[^\[\]]|\[[^\]]*\])*\])?\{([^}]*)\}")


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "max_print_line": "10000", "error_line": "254", "half_error_line": "238"}
    return subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )


def _checkcites(args: list[str], cwd: Path, section: str) -> set[str]:
    out = _run(["checkcites", *args], cwd).stdout
    keys: set[str] = set()
    active = False
    for line in out.splitlines():
        if line.startswith(("Unused references", "Undefined references")):
            active = line.startswith(section)
            continue
        if active and line.startswith("=> "):
            keys.add(line[3:].strip())
    return keys


@dataclass
class LatexRun:
    dangling: set[str]
    unused: set[str]


def run_latex(directory: Path, root: str, backend: str) -> LatexRun:
    job = Path(root).stem
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", root]
    _run(latex, directory)
    if backend == "biber":
        bib_log = _run(["biber", job], directory).stdout
        missing = set(_BIBER_MISSING.findall(bib_log))
    else:
        _run(["bibtex", job], directory)
        blg = (directory / f"{job}.blg").read_text(errors="replace")
        missing = set(_BIBTEX_MISSING.findall(blg))
    _run(latex, directory)
    _run(latex, directory)
    log = (directory / f"{job}.log").read_text(errors="replace")
    dangling = set(_UNDEFINED.findall(log)) | missing
    bbl = (directory / f"{job}.bbl").read_text(errors="replace")
    if backend == "biber":
        unused = _checkcites(["--unused", "--backend", "biber", f"{job}.bcf"], directory, "Unused")
        unused -= set(_BBL_ENTRY.findall(bbl))  # the members of a cited @set, say
    else:
        unused = _checkcites(["--unused", f"{job}.aux"], directory, "Unused")
        used = {k.strip().casefold() for k in _BBL_BIBITEM.findall(bbl)}
        unused = {k for k in unused if k.casefold() not in used}
    return LatexRun(dangling, unused)


@dataclass(frozen=True)
class LatexCase:
    directory: str
    roots: tuple[str, ...]
    backend: str
    commands: tuple[str, ...] = ()


LATEX_CASES = [
    # two roots (paper and supplement) sharing one bibliography: the per-project orphan rule
    LatexCase("sympy-paper", ("paper.tex", "supplement.tex"), "bibtex"),
    # \inlinecite is the paper's own citation command (a \newcommand around \citen)
    LatexCase("scipy-1.0-paper/scipy-1.0", ("paper.tex",), "bibtex", ("inlinecite",)),
    LatexCase("rescience2020-broman/article", ("article.tex",), "biber"),
    # the bibliographies and citation shorthands come from the project's own class and
    # package (labreport.cls, labmacros.sty)
    LatexCase("local-packages", ("paper.tex",), "biber"),
    # \let\bibfiles\bibliography, and a wrapper passing its argument to \bibliography
    LatexCase("aliased-bibliography", ("report.tex", "wrapped.tex"), "bibtex"),
]


_LATEX_CITE = re.compile(r"\\cite[pt]?\{([A-Za-z][^{},\s]*)[},]")
_PANDOC_CITE = re.compile(r"\[@([A-Za-z][A-Za-z0-9_]*)[;\],]")


def introduce_typo(files: list[Path], pattern: re.Pattern[str]) -> str:
    """Change the first key ``pattern`` finds in ``files`` (in order) to a misspelt one, the
    way an author's typo would; returns the new key."""
    for path in files:
        text = path.read_text(encoding="utf-8")
        m = pattern.search(text)
        if m:
            typo = m.group(1) + "x"
            path.write_text(text[: m.start(1)] + typo + text[m.end(1) :], encoding="utf-8")
            return typo
    raise AssertionError(f"no citation found in {files}")


def _workdir(documents: Path, tmp_path: Path, relative: str, variant: str) -> Path:
    """The directory to run in: the shared copy, or a private copy for the typo variant."""
    if variant == "as-is":
        return documents / relative
    top = relative.split("/")[0]
    shutil.copytree(documents / top, tmp_path / top)
    return tmp_path / relative


#: every project as it is, and (to have dangling keys to agree on) a copy with one
#: citation misspelt, for one BibTeX and one biber project
LATEX_RUNS = [(case, "as-is") for case in LATEX_CASES] + [
    (LATEX_CASES[1], "typo"),
    (LATEX_CASES[2], "typo"),
    (LATEX_CASES[3], "typo"),
]


@pytest.mark.parametrize(
    ("case", "variant"), LATEX_RUNS, ids=[f"{c.directory}-{v}" for c, v in LATEX_RUNS]
)
def test_latex_projects_agree_with_latex_and_bibtex(
    documents: Path, tmp_path: Path, case: LatexCase, variant: str
) -> None:
    directory = _workdir(documents, tmp_path, case.directory, variant)
    if variant == "typo":
        files = sorted(directory.glob("*.tex"), key=lambda p: p.name not in case.roots)
        typo = introduce_typo(files, _LATEX_CITE)
        assert (
            typo in citewarden_answer([directory / r for r in case.roots], case.commands).dangling
        )
    runs = [run_latex(directory, root, case.backend) for root in case.roots]
    tools_dangling = set().union(*(r.dangling for r in runs))
    tools_orphans = set.intersection(*(r.unused for r in runs))

    ours = citewarden_answer([directory / r for r in case.roots], case.commands)

    assert sorted(ours.dangling) == sorted(tools_dangling)
    assert sorted(ours.orphans) == sorted(tools_orphans)


_BIBDATA = re.compile(r"\\bibdata\{([^}]*)\}")


def _bibtex_units(directory: Path, root: str, units: list[str]) -> tuple[set[str], set[str]]:
    """pdflatex, then BibTeX on each unit's .aux: the keys a .blg misses, and the entries
    no unit that reads their file prints (from each .aux's ``\\bibdata`` and its .bbl)."""
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", root], directory)
    dangling: set[str] = set()
    printed: dict[str, set[str]] = {}
    for name in units:
        _run(["bibtex", name], directory)
        blg = (directory / f"{name}.blg").read_text(errors="replace")
        dangling |= set(_BIBTEX_MISSING.findall(blg))
        aux = (directory / f"{name}.aux").read_text(errors="replace")
        bbl = (directory / f"{name}.bbl").read_text(errors="replace")
        keys = set(_BBL_BIBITEM.findall(bbl))
        for files in _BIBDATA.findall(aux):
            for file in files.split(","):
                printed.setdefault(file.strip(), set()).update(keys)
    unused = set()
    for file, keys in printed.items():
        text = (directory / f"{file}.bib").read_text(encoding="utf-8")
        unused |= set(re.findall(r"^@\w+\{([^,\s]+),", text, re.M)) - keys
    return dangling, unused


@pytest.mark.parametrize(
    ("directory", "root", "units", "expected"),
    [
        # multibib: \citesw goes to sw.aux, with the files of \bibliographysw
        ("multibib-cv", "cv.tex", ["cv", "sw", "talks"], {"goossens1994"}),
        # bibunits: each bibunit's citations go to its own bu<n>.aux, with \putbib's files
        (
            "bibunits-thesis",
            "thesis.tex",
            ["bu1", "bu2", "thesis"],
            {"patashnik1988", "goossens1994"},
        ),
        # \bibliographyunit[\chapter]: each chapter is a unit; one without \putbib has no
        # \bibdata, so BibTeX finds none of its citations
        (
            "bibunits-chapters",
            "book.tex",
            ["bu1", "bu2", "bu3", "book"],
            {"patashnik1988", "goossens1994", "knuth1984"},
        ),
        # a bare \putbib in an included chapter reads the root's \defaultbibliography
        ("bibunits-included", "thesis.tex", ["bu1", "bu2", "thesis"], {"lamport1994"}),
        # defaults in document order: a chapter's \defaultbibliography holds for the units
        # after its \include, in the root and in a later chapter that sets none
        (
            "bibunits-order",
            "handbook.tex",
            ["bu1", "bu2", "bu3", "bu4", "bu5"],
            {"knuth1984"},
        ),
        # no \defaultbibliography anywhere: a bare \putbib reads \jobname (notes.bib)
        ("bibunits-jobname", "notes.tex", ["bu1", "bu2", "notes"], {"makeindex", "biber"}),
        # globalcitecopy: the main list holds every unit's citations too
        (
            "bibunits-global",
            "report.tex",
            ["bu1", "bu2", "report"],
            {"patashnik1988", "biber", "makeindex"},
        ),
        # without it, \cite* and \nocite* copy their keys to the main list
        (
            "bibunits-starred",
            "report.tex",
            ["bu1", "bu2", "report"],
            {"patashnik1988", "makeindex"},
        ),
    ],
)
def test_units_of_bibtex_agree_with_latex_and_bibtex(
    documents: Path, directory: str, root: str, units: list[str], expected: set[str]
) -> None:
    """A key is dangling when its unit's .blg misses it, an entry unused when no unit that
    reads its file prints it."""
    folder = documents / directory
    dangling, unused = _bibtex_units(folder, root, units)
    assert dangling == expected and unused  # the project has both, as intended
    ours = citewarden_answer([folder / root])
    assert sorted(ours.dangling) == sorted(dangling)
    assert sorted(ours.orphans) == sorted(unused)


_BIBER_SOURCE = re.compile(r"INFO - Found BibTeX data source '(.*)'")


def _biber_read(directory: Path, root: str) -> tuple[set[str], set[str], list[str]]:
    """pdflatex, biber, pdflatex: the keys left undefined, the entries of the files biber
    says it read that its .bbl does not hold, and those files."""
    job = Path(root).stem
    latex = ["pdflatex", "-draftmode", "-interaction=nonstopmode", root]
    _run(latex, directory)
    biber_log = _run(["biber", job], directory).stdout
    _run(latex, directory)
    log = (directory / f"{job}.log").read_text(errors="replace")
    dangling = set(_UNDEFINED.findall(log)) | set(_BIBER_MISSING.findall(biber_log))
    sources = _BIBER_SOURCE.findall(biber_log)
    used = set(_BBL_ENTRY.findall((directory / f"{job}.bbl").read_text(errors="replace")))
    defined: set[str] = set()
    for source in sources:
        library = bibtexparser.parse_string((directory / source).read_text(encoding="utf-8"))
        defined |= {entry.key for entry in library.entries}
    return dangling, defined - used, sources


def test_glob_resources_agree_with_biber(documents: Path) -> None:
    """``\\addbibresource[glob]{bib/reading-*.bib}`` and ``[glob=true]{bib/{a,b}.bib}``:
    biber reads every file a pattern names.  checkcites does not expand patterns, so the
    unused entries are those of the files biber reports reading that its .bbl leaves out."""
    folder = documents / "globbed-resources"
    dangling, unused, sources = _biber_read(folder, "survey.tex")
    assert len(sources) == 4 and dangling and unused  # the project has both, as intended
    ours = citewarden_answer([folder / "survey.tex"])
    assert sorted(ours.dangling) == sorted(dangling)
    assert sorted(ours.orphans) == sorted(unused)


# ---------------------------------------------------------------------------------------
# pandoc --citeproc
# ---------------------------------------------------------------------------------------

_PANDOC_MISSING = re.compile(r"\[WARNING\] Citeproc: citation (.+?) not found")


def _walk(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def _front_matter_bibliographies(doc: Path) -> list[Path]:
    meta = _run(["pandoc", "-f", "markdown", "-t", "json", doc.name], doc.parent)
    data = json.loads(meta.stdout)
    bib = data["meta"].get("bibliography")
    if bib is None:
        return []
    items = bib["c"] if bib["t"] == "MetaList" else [bib]
    paths = []
    for item in items:
        text = "".join(
            part["c"] if part["t"] == "Str" else " "
            for part in (item["c"] if item["t"] == "MetaInlines" else [])
        )
        if item["t"] == "MetaString":
            text = item["c"]
        paths.append(doc.parent / text.strip())
    return paths


def run_pandoc(doc: Path) -> tuple[set[str], set[str]]:
    """(keys pandoc did not find, entries pandoc left out of the reference list)."""
    result = _run(["pandoc", "-f", "markdown", "--citeproc", "-t", "json", doc.name], doc.parent)
    assert result.returncode == 0, result.stderr
    dangling = set(_PANDOC_MISSING.findall(result.stderr))
    rendered = {
        str(node["c"][0][0])[4:]
        for node in _walk(json.loads(result.stdout))
        if node.get("t") == "Div" and str(node["c"][0][0]).startswith("ref-")
    }
    # the document's own references: items, as pandoc reads them
    inline = _run(["pandoc", "-f", "markdown", "-t", "csljson", doc.name], doc.parent)
    assert inline.returncode == 0, inline.stderr
    defined = {str(item["id"]) for item in json.loads(inline.stdout)}
    for bib in _front_matter_bibliographies(doc):
        items = _run(["pandoc", "-f", "bibtex", "-t", "csljson", bib.name], bib.parent)
        assert items.returncode == 0, items.stderr
        defined.update(str(item["id"]) for item in json.loads(items.stdout))
    return dangling, defined - rendered


MARKDOWN_CASES = [
    "refchecker-joss-paper/paper/paper.md",
    "jss-quarto-demo/template.qmd",
    "rticles-skeletons/aea/skeleton.Rmd",
    "rticles-skeletons/agu/skeleton.Rmd",
    "rticles-skeletons/ams/skeleton.Rmd",
    "rticles-skeletons/asa/skeleton.Rmd",
    "rticles-skeletons/jedm/skeleton.Rmd",
]


#: Quarto resolves ``@fig-x``, ``@tbl-x`` ... as cross-references before citeproc runs;
#: plain pandoc, run on a .qmd file here, reports them as missing citations.
QUARTO_CROSSREF = re.compile(r"^(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr)-")


#: the documents that cite with pandoc syntax also get a misspelt copy
MARKDOWN_RUNS = [(name, "as-is") for name in MARKDOWN_CASES] + [
    (name, "typo") for name in [*MARKDOWN_CASES[:2], "rticles-skeletons/asa/skeleton.Rmd"]
]


@pytest.mark.parametrize(
    ("name", "variant"), MARKDOWN_RUNS, ids=[f"{n}-{v}" for n, v in MARKDOWN_RUNS]
)
def test_markdown_projects_agree_with_pandoc(
    documents: Path, tmp_path: Path, name: str, variant: str
) -> None:
    doc = _workdir(documents, tmp_path, name, variant)
    if variant == "typo":
        typo = introduce_typo([doc], _PANDOC_CITE)
        assert typo in citewarden_answer([doc]).dangling
    tools_dangling, tools_orphans = run_pandoc(doc)
    if doc.suffix == ".qmd":
        tools_dangling = {k for k in tools_dangling if not QUARTO_CROSSREF.match(k)}

    ours = citewarden_answer([doc])

    assert sorted(ours.dangling) == sorted(tools_dangling)
    assert sorted(ours.orphans) == sorted(tools_orphans)


_ITEMS = "- id: {0}\n  type: book\n  title: Title of {0}\n"

#: documents with inline CSL items in a ``references:`` field, beside refs.bib (a, b)
REFERENCES_CASES = {
    "front matter, with a bibliography": (
        "---\nbibliography: refs.bib\nreferences:\n"
        + _ITEMS.format("inl")
        + _ITEMS.format("spare")
        + "---\n\nText @inl, @a, [@b; @nowhere] and @123.\n"
    ),
    "flow style, numeric ids, no bibliography": (
        "---\nreferences: [{id: inl, type: book, title: T}, {id: 123, type: book, title: N},"
        " {id: spare, type: book, title: S}]\n---\n\nText @inl and @123 but @a.\n"
    ),
    "a later metadata block replaces the front matter's": (
        "---\nreferences:\n"
        + _ITEMS.format("early")
        + "---\n\nText @early and @late.\n\n---\nreferences:\n"
        + _ITEMS.format("late")
        + _ITEMS.format("spare")
        + "...\n"
    ),
    "a mapping is no list of items": (
        "---\nbibliography: refs.bib\nreferences:\n  id: single\n  type: book\n---\n\n"
        "Text @single and @a.\n"
    ),
    "nocite cites them": (
        "---\nbibliography: refs.bib\nnocite: '@spare, @b'\nreferences:\n"
        + _ITEMS.format("spare")
        + _ITEMS.format("other")
        + "---\n\nText @a.\n"
    ),
}


@pytest.mark.parametrize("name", sorted(REFERENCES_CASES))
def test_inline_references_define_what_pandoc_resolves(tmp_path: Path, name: str) -> None:
    _require_tools()
    doc = tmp_path / "paper.md"
    doc.write_text(REFERENCES_CASES[name], encoding="utf-8")
    bib = "@misc{a, title={Alpha}, year={2001}}\n@misc{b, title={Bravo}, year={2002}}\n"
    (tmp_path / "refs.bib").write_text(bib, encoding="utf-8")
    tools_dangling, tools_orphans = run_pandoc(doc)
    ours = citewarden_answer([doc])
    assert sorted(ours.dangling) == sorted(tools_dangling)
    assert sorted(ours.orphans) == sorted(tools_orphans)


def test_parent_folders_after_a_link_or_a_missing_folder_are_resolved_as_tex_does(
    tmp_path: Path,
) -> None:
    """``\\input{link/../chapter}`` goes up from the link's target, and ``x/../chapter`` is
    no file when ``x`` does not exist: TeX asks the system, so citewarden does too (the
    path was normalised as text: the first was not found, the second was read)."""
    _require_tools()
    (tmp_path / "real" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "deep")
    (tmp_path / "real" / "chapter.tex").write_text("In the chapter \\cite{inchapter}.\n")
    (tmp_path / "chapter.tex").write_text("The wrong chapter \\cite{wrongchapter}.\n")
    (tmp_path / "refs.bib").write_text(
        "".join(
            f"@misc{{{key},\n  title = {{{key.title()}}},\n  year = {{2020}},\n}}\n"
            for key in ("inchapter", "wrongchapter", "intext")
        )
    )
    body = "\\documentclass{article}\n\\begin{document}\nText \\cite{intext}.\n%s\n"
    tail = "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    (tmp_path / "linked.tex").write_text(body % "\\input{link/../chapter}" + tail)
    tex = run_latex(tmp_path, "linked.tex", "bibtex")
    assert (tex.dangling, tex.unused) == (set(), {"wrongchapter"})
    ours = citewarden_answer([tmp_path / "linked.tex"])
    assert (set(ours.dangling), set(ours.orphans)) == (tex.dangling, tex.unused)

    (tmp_path / "missing.tex").write_text(body % "\\input{x/../chapter}" + tail)
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "missing.tex"], tmp_path)
    assert "File `x/../chapter.tex' not found" in (tmp_path / "missing.log").read_text()
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "missing.tex")
    found = check(ws)[tmp_path / "missing.tex"]
    assert [(f.code, f.message) for f in found if f.code is Code.MISSING_INCLUDE] == [
        (Code.MISSING_INCLUDE, "included file 'x/../chapter' not found")
    ]


#: a document reading ``refs.bib`` through a biblatex command (``{name}``: as written)
_RESOURCE_DOCUMENTS = {
    "addbibresource": "\\addbibresource{{{name}}}\n\\begin{{document}}\n\\cite{{a}}\n",
    "addglobalbib": "\\addglobalbib{{{name}}}\n\\begin{{document}}\n\\cite{{a}}\n",
    # a refsection's list: biblatex adds .bib to a name that is not a declared resource
    "refsection": "\\begin{{document}}\n\\begin{{refsection}}[{name}]\\cite{{a}}\n",
}


@pytest.mark.parametrize(
    ("backend", "written", "command"),
    [
        *(
            ("biber", name, command)
            for name in ("refs", "refs.bib")
            for command in _RESOURCE_DOCUMENTS
        ),
        # BibTeX (biblatex's bibtex backend) adds .bib to every resource
        ("bibtex", "refs", "addbibresource"),
        ("bibtex", "refs.bib", "addbibresource"),
    ],
)
def test_a_resource_named_without_its_extension_is_missing_where_biber_misses_it(
    tmp_path: Path, backend: str, written: str, command: str
) -> None:
    """biber looks up an ``\\addbibresource`` or ``\\addglobalbib`` by its full name
    (``\\addbibresource{refs}``: "Cannot find 'refs'!"); BibTeX adds .bib, and so does
    biblatex to a refsection's list: the tool's own run says whether the file was read."""
    _require_tools()
    body = _RESOURCE_DOCUMENTS[command].format(name=written)
    end = "\\end{refsection}\n" if command == "refsection" else ""
    (tmp_path / "refs.bib").write_text("@misc{a, title={T}}\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n\\usepackage[backend={backend}]{{biblatex}}\n{body}"
        f"\\printbibliography\n{end}\\end{{document}}\n",
        encoding="utf-8",
    )
    _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    tool = _run([backend, "main"], tmp_path)
    read = "refs.bib" in tool.stdout  # biber: data source 'refs.bib'; BibTeX: file #1
    assert ("Cannot find 'refs'" in tool.stdout) == (not read)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    missing = [f for f in check(ws)[tmp_path / "main.tex"] if f.code is Code.MISSING_BIBLIOGRAPHY]
    assert bool(missing) == (not read)
    for finding in missing:  # its fix names the file as biber reads it
        [fix] = finding.fixes
        [edit] = fix.edits
        text = (tmp_path / "main.tex").read_text()
        fixed = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
        assert f"\\{command}{{refs.bib}}" in fixed


@pytest.mark.parametrize(
    ("backend", "command", "where"),
    [
        ("bibtex", "\\bibliography{refs}", "ch"),
        ("bibtex", "\\bibliography{refs}", "."),
        ("biber", "\\addbibresource{refs.bib}", "ch"),
        ("biber", "\\addbibresource{refs.bib}", "."),
    ],
)
def test_a_bibliography_named_in_an_included_file_is_looked_for_from_the_root(
    tmp_path: Path, backend: str, command: str, where: str
) -> None:
    """BibTeX and biber run in the root document's folder: a file ``ch/part.tex`` that
    names ``refs`` means ``./refs.bib``, not ``ch/refs.bib``.  The tool's own run says
    whether the file was read; where it was not, citewarden's fix names it so that it is."""
    _require_tools()
    (tmp_path / "ch").mkdir()
    (tmp_path / where / "refs.bib").write_text("@misc{a, title={T}}\n", encoding="utf-8")
    if backend == "biber":  # a resource is named in the preamble
        head, body = "\\usepackage{biblatex}\n\\input{ch/part}\n", "\\printbibliography\n"
    else:
        head, body = "", "\\input{ch/part}\n\\bibliographystyle{plain}\n"
    (tmp_path / "ch" / "part.tex").write_text(f"{command}\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{head}\\begin{{document}}\n\\cite{{a}}\n{body}"
        "\\end{document}\n",
        encoding="utf-8",
    )

    def tool_reads() -> bool:
        for name in ("main.aux", "main.bcf"):
            (tmp_path / name).unlink(missing_ok=True)
        _run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
        out = _run([backend, "main"], tmp_path).stdout
        return "refs.bib" in out and "couldn't open" not in out and "Cannot find" not in out

    read = tool_reads()
    assert read == (where == ".")
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    part = tmp_path / "ch" / "part.tex"
    missing = [f for f in check(ws)[part] if f.code is Code.MISSING_BIBLIOGRAPHY]
    assert bool(missing) == (not read)
    for finding in missing:
        [fix] = finding.fixes
        [edit] = fix.edits
        text = part.read_text()
        part.write_text(text[: edit.span.start] + edit.new_text + text[edit.span.end :])
        assert tool_reads()  # the fixed name is the one the tool finds


_KEY_SPACE_PREAMBLES = {
    "kernel": "",
    "natbib": "\\usepackage{natbib}\n",
    "hyperref": "\\usepackage{hyperref}\n",
    "cite": "\\usepackage{cite}\n",
    "overcite": "\\usepackage{overcite}\n",
    "biblatex": "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n",
}
_KEY_SPACE_BODY = (
    "\\cite{ok1, ok2}\\cite{ sp1}\\cite{sp2 }\\cite{ok3,\n   ok4}\\cite{sp3\n  ,ok5}\n"
    "\\cite{sp4 %a note\n}\\cite{ok6%a note\n}\\nocite{nc1 }\n"
)


@pytest.mark.parametrize("package", sorted(_KEY_SPACE_PREAMBLES))
def test_a_space_after_a_citation_key_is_an_error_where_latex_keeps_it(
    tmp_path: Path, package: str
) -> None:
    """LaTeX keeps a space written after a key (``\\cite{a }`` looks up ``a␣``), and so do
    natbib and biblatex; the cite bundle trims it.  The keys LaTeX reports undefined, and
    those BibTeX skips ("White space in argument"), are the keys citewarden says are
    followed by a space; its fix makes the document compile clean."""
    _require_tools()
    keys = ["ok1", "ok2", "ok3", "ok4", "ok5", "ok6", "sp1", "sp2", "sp3", "sp4", "nc1"]
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{{k}, title={{T {k}}}, author={{A, B}}, year={{2000}}}}\n" for k in keys),
        encoding="utf-8",
    )
    biblatex = package == "biblatex"
    ending = (
        "\\printbibliography\n"
        if biblatex
        else "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    )
    source = (
        f"\\documentclass{{article}}\n{_KEY_SPACE_PREAMBLES[package]}\\begin{{document}}\n"
        f"{_KEY_SPACE_BODY}{ending}\\end{{document}}\n"
    )
    main = tmp_path / "main.tex"
    main.write_text(source, encoding="utf-8")

    def tools_report() -> set[str]:
        run = run_latex(tmp_path, "main.tex", "biber" if biblatex else "bibtex")
        skipped: set[str] = set()
        if not biblatex:  # the keys of the \citation lines BibTeX skipped
            blg = (tmp_path / "main.blg").read_text(errors="replace")
            skipped = set(re.findall(r"\\citation\{([^\s,}]+)", blg))
        return {k.strip() for k in run.dangling} | skipped

    reported = tools_report()
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = [f for f in check(ws)[main] if f.code is Code.KEY_SPACE]
    flagged = {source[f.location.span.start : f.location.span.end] for f in found}
    # natbib writes one \citation line per command: BibTeX skips ok5 with sp3
    assert flagged | ({"ok5"} if package == "natbib" and flagged else set()) == reported
    if package in ("cite", "overcite"):
        assert not reported
    else:  # the space before a comment counts; the comment right after a key does not
        assert flagged == {"sp2", "sp3", "sp4", "nc1"}
    fixed = source
    for finding in sorted(found, key=lambda f: -f.location.span.start):
        [fix] = finding.fixes
        [edit] = fix.edits
        fixed = fixed[: edit.span.start] + edit.new_text + fixed[edit.span.end :]
    main.write_text(fixed, encoding="utf-8")
    assert tools_report() == set()


_NOCITE_PLACES = {
    "preamble, before the package": "\\nocite{{{keys}}}\n{package}",
    "preamble, after the package": "{package}\\nocite{{{keys}}}\n",
    "preamble, in \\AtBeginDocument": "{package}\\AtBeginDocument{{\\nocite{{{keys}}}}}\n",
    "preamble, in a definition used in the body": "{package}\\newcommand{{\\all}}{{\\nocite{{{keys}}}}}\n",
}


@pytest.mark.parametrize("keys", ["b1", "*"])
@pytest.mark.parametrize("place", sorted(_NOCITE_PLACES))
@pytest.mark.parametrize("package", ["", "natbib", "cite", "harvard", "hyperref"])
def test_a_nocite_in_the_preamble_cites_what_bibtex_reads(
    tmp_path: Path, package: str, place: str, keys: str
) -> None:
    """LaTeX keeps a preamble ``\\nocite`` for ``\\begin{document}``; natbib, cite and
    harvard write it at once, to an .aux not open yet, so it is lost.  The entries BibTeX
    lists are those citewarden counts as cited (the others are orphans), and a lost
    ``\\nocite`` gets a warning whose fix makes BibTeX list them."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{{k}, title={{T}}, author={{A, B}}, year={{2000}}}}\n" for k in "abc")
        .replace("{a,", "{a1,")
        .replace("{b,", "{b1,")
        .replace("{c,", "{c1,"),
        encoding="utf-8",
    )
    loaded = f"\\usepackage{{{package}}}\n" if package else ""
    preamble = _NOCITE_PLACES[place].format(package=loaded, keys=keys)
    use = "\\all\n" if "definition" in place else ""
    main = tmp_path / "main.tex"
    source = (
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{use}x \\cite{{a1}}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n"
    )
    main.write_text(source, encoding="utf-8")

    def listed() -> set[str]:
        run_latex(tmp_path, "main.tex", "bibtex")
        bbl = (tmp_path / "main.bbl").read_text(errors="replace")
        return {k.strip() for k in _BBL_BIBITEM.findall(bbl)}

    def orphans_and_lost() -> tuple[set[str], list[Any]]:
        ws = Workspace(Settings(), root=tmp_path)
        ws.add_file(main)
        found = check(ws)
        orphans = {
            f.data["key"] for f in found.get(tmp_path / "refs.bib", []) if f.code is Code.ORPHAN
        }
        lost = [f for f in found.get(main, []) if f.code is Code.NOCITE_IN_PREAMBLE]
        return orphans, lost

    orphans, lost = orphans_and_lost()
    assert {"a1", "b1", "c1"} - listed() == orphans
    assert bool(lost) == (package in ("natbib", "cite", "harvard") and "after" in place)
    if lost:
        [finding] = lost
        [fix] = finding.fixes
        fixed = source
        for edit in sorted(fix.edits, key=lambda e: -e.span.start):
            fixed = fixed[: edit.span.start] + edit.new_text + fixed[edit.span.end :]
        main.write_text(fixed, encoding="utf-8")
        assert listed() == ({"a1", "b1", "c1"} if keys == "*" else {"a1", "b1"})
        orphans, lost = orphans_and_lost()
        assert not lost and {"a1", "b1", "c1"} - listed() == orphans


#: Real Crossref records (tests/data/accuracy) whose venue or title holds ``&`` or ``#``,
#: or a word the entry protects from a style's lowercasing, and an entry of each that their
#: verification corrects.
_SPECIAL_CHARACTER_ENTRIES = {
    "kogan": (
        "10.1121/1.420820",
        "article",
        {
            "title": "Automated bird song recognition using dynamic time warping and hidden "
            "{Markov} models",
            "author": "Kogan, Joseph A. and Margoliash, Daniel",
            "journal": "The Journal of the Acoustical Society of America",
        },
    ),
    "rokach": (
        "10.1016/j.csda.2009.07.017",
        "article",
        {
            "title": "Taxonomy for characterizing ensemble methods in classification tasks: "
            "A review and annotated bibliography",
            "author": "Rokach, Lior",
            "journal": "Computational Statistics and Data Analysis Letters",
            "year": "2010",
        },
    ),
    "bergh": (
        "10.1109/emc-b.2017.8260404",
        "inproceedings",
        {
            "title": "Verifying powerline emissions and immunity test systems per IEC "
            "standards and technical report",
            "author": "van den Bergh, Mathieu",
            "booktitle": "2017 IEEE 5th International Symposium on Electromagnetic "
            "Compatibility (EMC-Beijing)",
            "year": "2017",
        },
    ),
    "roychoudhury": (
        "10.18653/v1/2021.smm4h-1.30",
        "inproceedings",
        {
            "title": "Fine-tuning BERT to classify COVID19 tweets containing symptoms",
            "author": "Roychoudhury, Rajarshi and Naskar, Sudip",
            "booktitle": "Proceedings of the Sixth Social Media Mining for Health Workshop",
            "year": "2021",
        },
    ),
}


def test_corrections_holding_latex_special_characters_build_the_bibliography(
    tmp_path: Path,
) -> None:
    """A record's ``Computational Statistics & Data Analysis`` or ``(#SMM4H)``, written by
    ``--fix`` as it is, stops LaTeX on the bibliography ("Misplaced alignment tab character
    &"; 23 of the accuracy set's 934 real records hold such a character).  The corrections
    are escaped: LaTeX and BibTeX build the bibliography without an error, it prints the
    record's text, and the corrected entries, verified again, need no correction.  A
    corrected title keeps the words the entry braced (``{Markov}``), which the plain style
    would otherwise print lowercased."""
    _require_tools()
    records = {}
    for line in (DATA / "accuracy" / "records.jsonl").read_text(encoding="utf-8").splitlines():
        record = work_from_csl(json.loads(line)["message"])
        if record is not None and record.doi:
            records[record.doi] = record

    def corrections_of(entries: list[Entry]) -> dict[str, dict[str, str]]:
        out = {}
        for entry in entries:
            norm = normalize_entry(entry)
            ev = Evidence(norm, searched=True, sources=["crossref"])
            ev.id_kind, ev.id_value, ev.id_state = IdKind.DOI, norm.doi, IdState.FOUND
            ev.id_comparison = compare(norm, records[norm.doi or ""])
            verdict = decide(ev, entry.key)
            out[entry.key] = dict(verdict.corrections)
        return out

    bib = tmp_path / "refs.bib"
    bib.write_text(
        "".join(
            f"@{kind}{{{key},\n"
            + "".join(f"  {name} = {{{value}}},\n" for name, value in fields.items())
            + f"  doi = {{{doi}}}\n}}\n\n"
            for key, (doi, kind, fields) in _SPECIAL_CHARACTER_ENTRIES.items()
        ),
        encoding="utf-8",
    )
    original = bib.read_bytes()
    corrections = corrections_of(list(parse_bibtex(bib, original.decode()).entries))
    assert corrections["rokach"] == {"journal": "Computational Statistics \\& Data Analysis"}
    assert corrections["bergh"]["title"].count("\\&") == 2
    assert "(\\#SMM4H)" in corrections["roychoudhury"]["booktitle"]
    plan = plan_fix(parse_bibtex(bib, original.decode()), original, corrections)
    assert corrections["kogan"]["title"].endswith("hidden Markov models")
    assert not plan.skipped and len(plan.changes) == 4
    assert "using dynamic time warping and hidden {Markov} models}" in plan.new.decode()
    bib.write_bytes(plan.new)
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n\\nocite{*}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "bibtex")
    log = (tmp_path / "main.log").read_text(errors="replace")
    assert not re.findall(r"^! .*", log, re.MULTILINE)
    bbl = (tmp_path / "main.bbl").read_text(errors="replace")
    assert "Computational Statistics \\& Data Analysis" in bbl
    assert "(\\#SMM4H)" in bbl
    assert "hidden {Markov} models" in bbl  # the style lowercased the rest of the title
    fixed = parse_bibtex(bib, bib.read_text(encoding="utf-8")).entries
    assert corrections_of(list(fixed)) == {key: {} for key in _SPECIAL_CHARACTER_ENTRIES}


def test_a_key_cited_in_two_spellings_is_undefined_where_latex_says(tmp_path: Path) -> None:
    """BibTeX matches keys whatever their case but writes ``\\bibitem`` for the spelling
    it meets first in the .aux (an included file's citations in place of its link);
    LaTeX leaves the other spellings undefined.  citewarden's dangling keys are LaTeX's,
    and its fixes make the document compile clean."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "@book{knuth, author={Knuth, Donald}, title={The Art}, publisher={AW}, year=1968}\n"
        "@book{lamport, author={Lamport, Leslie}, title={LaTeX}, publisher={AW}, year=1986}\n"
        "@book{solo, author={Solo, Han}, title={Alone}, publisher={AW}, year=1977}\n",
        encoding="utf-8",
    )
    # the chapter, read at its \input, cites Knuth before the root's knuth; Lamport's
    # first spelling is a \nocite's, and LaTeX looks up a \nocite's keys too
    (tmp_path / "ch.tex").write_text("See \\cite{Knuth} and \\cite{Solo}.\n", encoding="utf-8")
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\begin{document}\n\\nocite{LAMPORT}\n"
        "\\input{ch}\nAlso \\cite{knuth}, \\cite{Lamport}, \\nocite{KNUTH}\\cite{KNUTH}.\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    reported = run_latex(tmp_path, "main.tex", "bibtex").dangling
    assert reported == {"knuth", "KNUTH", "Lamport"}
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = [f for f in check(ws)[main] if f.code is Code.DANGLING]
    assert {str(f.data["key"]) for f in found} == reported
    text = main.read_text(encoding="utf-8")
    for finding in sorted(found, key=lambda f: -f.location.span.start):
        [edit] = finding.fixes[0].edits
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    main.write_text(text, encoding="utf-8")
    assert run_latex(tmp_path, "main.tex", "bibtex").dangling == set()


#: documents naming ``one`` and ``two`` by ``\bibliography``: (preamble, body, included
#: file ``ch.tex``)
_BIBDATA_LAYOUTS = {
    "two commands": ("", "\\bibliography{one}\n\\bibliography{two}\n", ""),
    "natbib, two commands": (
        "\\usepackage{natbib}\n",
        "\\bibliography{one}\n\\bibliography{two}\n",
        "",
    ),
    "an included file's first": ("", "\\input{ch}\n\\bibliography{one}\n", "\\bibliography{two}\n"),
    "an \\include'd file's first": (
        "",
        "\\include{ch}\n\\bibliography{one}\n",
        "\\bibliography{two}\n",
    ),
    "one command, a comment in its list": ("", "\\bibliography{one,% other\n two}\n", ""),
    "the same file twice": ("", "\\bibliography{one}\n\\bibliography{one}\n", ""),
    # the .aux opens at \begin{document}: a \bibliography before it writes nothing
    "one in the preamble, one in the body": ("\\bibliography{two}\n", "\\bibliography{one}\n", ""),
    "natbib, one in the preamble only": ("\\usepackage{natbib}\n\\bibliography{one}\n", "", ""),
    "a preamble file's": ("\\input{ch}\n", "\\bibliography{one}\n", "\\bibliography{two}\n"),
}


@pytest.mark.parametrize("layout", sorted(_BIBDATA_LAYOUTS))
def test_a_second_bibliography_is_ignored_as_bibtex_ignores_it(tmp_path: Path, layout: str) -> None:
    """BibTeX obeys the first ``\\bibdata`` of the .aux ("Illegal, another \\bibdata
    command"): the keys only a later ``\\bibliography``'s files define are undefined.
    citewarden's dangling keys are those LaTeX and BibTeX leave undefined, and it warns on
    each ``\\bibliography`` BibTeX skips."""
    _require_tools()
    preamble, body, chapter = _BIBDATA_LAYOUTS[layout]
    entry = "@misc{{{}, title={{T}}, author={{A, B}}, year={{2000}}}}\n"
    (tmp_path / "one.bib").write_text(entry.format("a1") + entry.format("b1"), encoding="utf-8")
    (tmp_path / "two.bib").write_text(entry.format("x2") + entry.format("b1"), encoding="utf-8")
    (tmp_path / "ch.tex").write_text(chapter, encoding="utf-8")
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n"
        f"\\cite{{a1}} \\cite{{b1}} \\cite{{x2}}\n\\bibliographystyle{{plain}}\n{body}"
        "\\end{document}\n",
        encoding="utf-8",
    )
    run = run_latex(tmp_path, "main.tex", "bibtex")
    blg = (tmp_path / "main.blg").read_text(errors="replace")
    ours = citewarden_answer([main])
    assert sorted(ours.dangling) == sorted(run.dangling)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = check(ws)
    ignored = [f for fs in found.values() for f in fs if f.code is Code.BIBLIOGRAPHY_IGNORED]
    # BibTeX skips a later \bibdata; one the preamble's \bibliography wrote went to the log
    log = (tmp_path / "main.log").read_text(errors="replace")
    assert bool(ignored) == ("Illegal, another \\bibdata command" in blg or "\\bibdata{" in log)


@pytest.mark.parametrize(
    ("preamble", "backend"),
    [
        ("\\usepackage[backend=biber]{biblatex}\n\\bibliography{refs}\n", "biber"),
        ("\\usepackage{biblatex}\n\\bibliography{refs}\n", "biber"),
        ("\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n", "biber"),
        ("\\usepackage[backend=bibtex]{biblatex}\n\\bibliography{refs}\n", "bibtex"),
        ("", "bibtex"),
    ],
)
def test_keys_match_as_the_backend_reading_the_bibliography_matches_them(
    tmp_path: Path, preamble: str, backend: str
) -> None:
    """biblatex's ``\\bibliography{refs}`` is ``\\addbibresource{refs.bib}``: with biber,
    ``\\cite{A}`` finds no entry ``a`` ("I didn't find a database entry for 'A'"), with
    BibTeX it does.  The dangling keys are those the tools report."""
    _require_tools()
    entry = "@misc{{{}, title={{T}}, author={{A, B}}, year={{2000}}}}\n"
    (tmp_path / "refs.bib").write_text(entry.format("a") + entry.format("b"), encoding="utf-8")
    ending = (
        "\\printbibliography\n"
        if preamble
        else "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    )
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n\\cite{{A}} \\cite{{b}}\n"
        f"{ending}\\end{{document}}\n",
        encoding="utf-8",
    )
    run = run_latex(tmp_path, "main.tex", backend)
    assert run.dangling == ({"A"} if backend == "biber" else set())
    assert sorted(citewarden_answer([main]).dangling) == sorted(run.dangling)
    if backend == "biber":  # biber says the keys differ in case only: so does the finding
        biber_log = (tmp_path / "main.blg").read_text(errors="replace")
        assert "case mismatch) between citation and datasource keys: 'A' and 'a'" in biber_log
        ws = Workspace(Settings(), root=tmp_path)
        ws.add_file(main)
        [finding] = [f for fs in check(ws).values() for f in fs if f.code is Code.DANGLING]
        assert "'a' differs from it in case only" in finding.message
        assert finding.fixes[0].preferred


_ENTRY_BODY = "title={T}, author={A, B}, journal={J}, year=2000}\n"

#: .bib files the three tools read differently: (text, keys cited, backends compared;
#: biber and pandoc read no entry of a file with a syntax error, so such files are
#: compared with BibTeX only)
BIB_READING_CASES = {
    # BibTeX knows no ids field; biber resolves the aliases
    "ids-aliases": (
        "@article{a, ids={b, c}, " + _ENTRY_BODY,
        ("a", "b", "c"),
        ("bibtex", "biber"),
    ),
    # biber and pandoc skip an @comment group whole; BibTeX reads the entries inside
    "comment-group": (
        "@article{a, " + _ENTRY_BODY + "\n@comment{\n  Old entries:\n"
        "  @article{x, " + _ENTRY_BODY + "  @article{oldy, " + _ENTRY_BODY + "}\n"
        "@article{z, " + _ENTRY_BODY,
        ("a", "x", "oldy", "z"),
        ("bibtex", "biber", "pandoc"),
    ),
    # biber skips an @comment(...) group too, pandoc does not
    "comment-parens": (
        "@article{a, " + _ENTRY_BODY + "@comment(\n@article{x, " + _ENTRY_BODY + ")\n",
        ("a", "x"),
        ("bibtex", "biber", "pandoc"),
    ),
    # a '}' on a %-line closes the group: biber and pandoc read x
    "comment-group-closed-on-a-comment-line": (
        "@comment{\n% }\n@article{x, " + _ENTRY_BODY + "}\n",
        ("x",),
        ("bibtex", "biber", "pandoc"),
    ),
    # BibTeX reads the word @comment alone, and x after it; biber skips the group to its
    # matching brace or parenthesis, pandoc a braced one only
    "comment-one-line": (
        "@comment{ see @article{x, " + _ENTRY_BODY[:-1] + " }\n"
        "@comment(@article{p, " + _ENTRY_BODY[:-1] + ")\n@article{a, " + _ENTRY_BODY,
        ("x", "p", "a"),
        ("bibtex", "biber", "pandoc"),
    ),
    # BibTeX stops once it has read the last line: it reads c there, not b after it (nor
    # x after the word @comment); biber and pandoc read the line whole
    "last-line": (
        f"@article{{a, {_ENTRY_BODY}@article{{c, {_ENTRY_BODY[:-1]} @article{{b, "
        f"{_ENTRY_BODY[:-1]} @comment{{@article{{x, {_ENTRY_BODY[:-1]}}}\n",
        ("a", "b", "c", "x"),
        ("bibtex", "biber", "pandoc"),
    ),
    # BibTeX keeps the key of an entry without a comma after it
    "no-comma-after-key": (
        "@article{smith2020\n  " + _ENTRY_BODY + "@misc{a b, title={x}}\n@misc{e",
        ("smith2020", "a", "e"),
        ("bibtex",),
    ),
}

BIB_READING_RUNS = [
    (name, backend) for name, (_, _, backends) in BIB_READING_CASES.items() for backend in backends
]


@pytest.mark.parametrize(
    ("name", "backend"), BIB_READING_RUNS, ids=[f"{n}-{b}" for n, b in BIB_READING_RUNS]
)
def test_entries_are_defined_where_the_backend_reads_them(
    tmp_path: Path, name: str, backend: str
) -> None:
    """``ids`` aliases, entries inside ``@comment`` groups and an entry whose key no comma
    follows: the dangling citations are those the tool reports."""
    _require_tools()
    text, keys, _ = BIB_READING_CASES[name]
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    # \cite: biblatex leaves a \nocite of an alias undefined in the .aux (a LaTeX warning
    # that biber's log does not give)
    cites = "".join(f"\\cite{{{k}}}\n" for k in keys)
    if backend == "pandoc":
        doc = tmp_path / "main.md"
        doc.write_text(
            "---\nbibliography: refs.bib\n---\n\n" + "".join(f"Text [@{k}].\n\n" for k in keys),
            encoding="utf-8",
        )
        expected = run_pandoc(doc)[0]
    else:
        preamble = (
            "\\usepackage[backend=biber]{biblatex}\n\\addbibresource{refs.bib}\n"
            if backend == "biber"
            else ""
        )
        ending = (
            "\\printbibliography\n"
            if backend == "biber"
            else "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
        )
        doc = tmp_path / "main.tex"
        doc.write_text(
            f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{cites}{ending}"
            "\\end{document}\n",
            encoding="utf-8",
        )
        expected = run_latex(tmp_path, "main.tex", backend).dangling
    assert sorted(citewarden_answer([doc]).dangling) == sorted(expected)


_BIBER_NO_PARENT = re.compile(
    r"WARN - I didn't find a database entry for (?:crossref|xref) '(.*)' in entry '(.*)'"
)
_PRINTED_ENTRY = "@book{{{}, author={{A, B}}, title={{T}}, year=2001, publisher={{P}}}}\n"

#: .bib files whose keys the backends compare in their own ways: (entries, keys cited,
#: backend)
KEY_COMPARISON_CASES = {
    # BibTeX lower-cases ASCII letters only: MÜLLER is not müller, straße not strasse
    "bibtex-non-ascii": (
        "".join(_PRINTED_ENTRY.format(k) for k in ("müller", "strasse", "straße")),
        ("MÜLLER", "strasse", "straße"),
        "bibtex",
    ),
    # two spellings differing in a non-ASCII letter are two keys, not one key cited in
    # two spellings: müller is found, MÜLLER is not
    "bibtex-non-ascii-spellings": (
        _PRINTED_ENTRY.format("müller"),
        ("MÜLLER", "müller"),
        "bibtex",
    ),
    # biber compares keys exactly: straße and strasse, Smith and smith are two entries (it
    # warns of the second spelling of Smith)
    "biber-non-ascii": (
        "".join(_PRINTED_ENTRY.format(k) for k in ("strasse", "straße")),
        ("strasse", "straße"),
        "biber",
    ),
    "biber-case": (
        "".join(_PRINTED_ENTRY.format(k) for k in ("Smith", "smith")),
        ("Smith", "smith"),
        "biber",
    ),
    # nor does it find a crossref target written in another case
    "biber-crossref-case": (
        "@inproceedings{c1, author={C One}, title={Child}, crossref={Proc}, pages={1--2}}\n"
        "@inproceedings{c2, author={C Two}, title={Child2}, crossref={Proc}, pages={1--2}}\n"
        "@proceedings{proc, title={Proceedings}, year=2001, editor={E Ed}, publisher={P}}\n",
        ("c1", "c2"),
        "biber",
    ),
}


@pytest.mark.parametrize("name", sorted(KEY_COMPARISON_CASES))
def test_keys_compare_as_the_backend_compares_them(tmp_path: Path, name: str) -> None:
    _agree_with_the_backend(tmp_path, *KEY_COMPARISON_CASES[name])


#: entries linked by biblatex's ``xref`` field: (entries, keys cited, backend)
XREF_CASES = {
    # two cited children (biblatex's minxrefs=2): biber prints the parent
    "two-children": (
        "@inproceedings{c1, author={C One}, title={Child}, xref={proc}, pages={1--2}}\n"
        "@inproceedings{c2, author={C Two}, title={Child2}, xref={proc}, pages={1--2}}\n"
        "@proceedings{proc, title={Proceedings}, year=2001, editor={E Ed}, publisher={P}}\n",
        ("c1", "c2"),
        "biber",
    ),
    # a target defined nowhere, or in another case only
    "undefined-targets": (
        "@inproceedings{c1, author={C One}, title={Child}, xref={nowhere}, pages={1--2}}\n"
        "@inproceedings{c2, author={C Two}, title={Child2}, xref={Proc}, pages={1--2}}\n"
        "@proceedings{proc, title={Proceedings}, year=2001, editor={E Ed}, publisher={P}}\n",
        ("c1", "c2"),
        "biber",
    ),
}


@pytest.mark.parametrize("name", sorted(XREF_CASES))
def test_xref_targets_are_read_as_biber_reads_them(tmp_path: Path, name: str) -> None:
    _agree_with_the_backend(tmp_path, *XREF_CASES[name])


#: ``ids`` aliases biber reads or skips: (entries, keys cited, backend)
ALIAS_CASES = {
    # an alias that is also a key: "Citekey alias 'b' is also a real entry key,
    # skipping", and \cite{b} cites the entry b alone
    "alias-also-a-key": (
        "".join(_PRINTED_ENTRY.format(k) for k in ("a, ids={b}", "b", "c, ids={d, e}")),
        ("b", "d", "e"),
        "biber",
    ),
}


@pytest.mark.parametrize("name", sorted(ALIAS_CASES))
def test_aliases_cite_as_biber_reads_them(tmp_path: Path, name: str) -> None:
    _agree_with_the_backend(tmp_path, *ALIAS_CASES[name])


def _agree_with_the_backend(tmp_path: Path, text: str, keys: tuple[str, ...], backend: str) -> None:
    """The dangling citations are those LaTeX and the backend report, the orphans the
    entries the backend leaves out of the .bbl, a duplicate key one the backend reports
    ("Repeated entry", "Duplicate entry key", biber's "Possible typo (case mismatch)
    between datasource keys"), a missing crossref one biber reports ("I
    didn't find a database entry for crossref 'Proc' in entry 'c1'")."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(text, encoding="utf-8")
    cites = " ".join(f"\\cite{{{k}}}" for k in keys)
    preamble, ending = (
        ("\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n", "\\printbibliography\n")
        if backend == "biber"
        else ("", "\\bibliographystyle{plain}\n\\bibliography{refs}\n")
    )
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{cites}\n{ending}"
        "\\end{document}\n",
        encoding="utf-8",
    )
    run = run_latex(tmp_path, "main.tex", backend)
    bbl = (tmp_path / "main.bbl").read_text(errors="replace")
    log = (tmp_path / "main.blg").read_text(errors="replace")
    printed = set((_BBL_ENTRY if backend == "biber" else _BBL_BIBITEM).findall(bbl))
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(main)
    found = [f for fs in check(ws).values() for f in fs]
    ours = {code: {str(f.data["key"]) for f in found if f.code is code} for code in Code}
    assert sorted(ours[Code.DANGLING]) == sorted(run.dangling)
    defined = {e.key for e in parse_bibtex(tmp_path / "refs.bib", text).entries}
    assert sorted(ours[Code.ORPHAN]) == sorted(defined - printed)
    repeated = ("Repeated entry", "Duplicate entry key", "(case mismatch) between datasource")
    assert bool(ours[Code.DUPLICATE_KEY]) == any(said in log for said in repeated)
    missing_parents = {
        (str(f.data["key"]), str(f.data["target"]))
        for f in found
        if f.code is Code.MISSING_CROSSREF
    }
    assert missing_parents == {(e, p) for p, e in _BIBER_NO_PARENT.findall(log)}


@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_a_file_includeonly_leaves_out_cites_what_its_kept_aux_cites(
    tmp_path: Path, backend: str
) -> None:
    """``\\includeonly`` is a drafting device: LaTeX does not read the files it leaves out
    but keeps their .aux from the run that read them, so BibTeX still reads their
    citations; biblatex writes the .bcf afresh, so biber sees only the files read.
    citewarden reads every ``\\include``d file, as the whole document reads them: the
    dangling keys and the orphans are those of the run without ``\\includeonly``."""
    _require_tools()
    entry = "@misc{{{},\n  title={{T}}, author={{A, B}}, year={{2000}}}}\n"
    (tmp_path / "refs.bib").write_text("".join(entry.format(k) for k in ("a", "b", "c")))
    (tmp_path / "c1.tex").write_text("\\cite{a}\n", encoding="utf-8")
    (tmp_path / "c2.tex").write_text("\\cite{b} \\cite{gone}\n", encoding="utf-8")
    if backend == "biber":
        preamble, ending = (
            "\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n",
            "\\printbibliography\n",
        )
    else:
        preamble, ending = "", "\\bibliographystyle{plain}\n\\bibliography{refs}\n"
    source = (
        f"\\documentclass{{article}}\n{preamble}%ONLY\n\\begin{{document}}\n"
        f"\\include{{c1}}\n\\include{{c2}}\n{ending}\\end{{document}}\n"
    )
    main = tmp_path / "main.tex"
    main.write_text(source, encoding="utf-8")
    full = run_latex(tmp_path, "main.tex", backend)
    main.write_text(source.replace("%ONLY", "\\includeonly{c1}"), encoding="utf-8")
    draft = run_latex(tmp_path, "main.tex", backend)
    assert full.dangling == {"gone"}
    ours = citewarden_answer([main])
    assert ours.dangling == {"gone"}
    assert ours.orphans == {"c"}
    assert full.unused == {"c"}
    if backend == "bibtex":  # the kept c2.aux still cites b and gone: BibTeX reads them
        assert draft.dangling == {"gone"} and draft.unused == {"c"}
    else:  # the .bcf holds the citations of the files read: the draft leaves b out
        assert draft.dangling == set() and draft.unused == {"b", "c"}


@pytest.mark.parametrize(
    "broken",
    [
        b"@book{b1, title={X}}\n@book{b2, title={Y} year=1991}\n@book{b3, title={Z}}\n",
        b"@book{b1, title={X}}\n@book{b2, title={Caf\xe9}}\n@book{b3, title={Z}}\n",
    ],
    ids=["syntax-error", "not-utf8"],
)
def test_no_entry_of_a_file_biber_drops_is_an_orphan(tmp_path: Path, broken: bytes) -> None:
    """biber reads no entry of a .bib file with a syntax error for btparse or that is not
    UTF-8 (its log says ERROR): the file defines nothing, so its uncited entries are no
    orphans, while those of the file it reads still are."""
    _require_tools()
    (tmp_path / "refs.bib").write_text(
        "@misc{a, title={A}}\n@misc{unused, title={U}}\n", encoding="utf-8"
    )
    (tmp_path / "bad.bib").write_bytes(broken)
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        "\\addbibresource{bad.bib}\n\\begin{document}\n\\cite{a,b1}\n\\printbibliography\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    run_latex(tmp_path, "main.tex", "biber")
    assert "ERROR - " in (tmp_path / "main.blg").read_text(errors="replace")
    assert "\\entry{b" not in (tmp_path / "main.bbl").read_text(errors="replace")
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == ({"b1"}, {"unused"})


@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_a_bibliography_named_with_spaces_is_the_file_latex_writes(
    tmp_path: Path, backend: str
) -> None:
    """LaTeX's ``\\bibliography{refs, more refs}`` writes ``\\bibdata{refs,morerefs}``
    (it drops the spaces), so BibTeX reads morerefs.bib; biblatex's keeps them, and biber
    reads "more refs.bib"."""
    _require_tools()
    for name, key in (("refs", "a"), ("more refs", "spaced"), ("morerefs", "joined")):
        (tmp_path / f"{name}.bib").write_text(f"@misc{{{key}, title={{T}}}}\n", encoding="utf-8")
    preamble, ending = (
        ("", "\\bibliographystyle{plain}\n\\bibliography{refs, more refs}\n")
        if backend == "bibtex"
        else ("\\usepackage{biblatex}\n\\bibliography{refs, more refs}\n", "\\printbibliography\n")
    )
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n"
        f"\\cite{{a,spaced,joined}}\n{ending}\\end{{document}}\n",
        encoding="utf-8",
    )
    tools = run_latex(tmp_path, "main.tex", backend)
    assert tools.dangling == ({"spaced"} if backend == "bibtex" else {"joined"})
    assert citewarden_answer([tmp_path / "main.tex"]).dangling == tools.dangling


def _bibtex_run(folder: Path, files: dict[str, str]) -> LatexRun:
    """Write ``files`` into ``folder`` and build its main.tex with pdflatex and BibTeX."""
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return run_latex(folder, "main.tex", "bibtex")


def test_jurabibs_citefield_cites_its_second_argument(tmp_path: Path) -> None:
    """jurabib's ``\\citefield[pages]{field}{keys}`` names the field first (biblatex's
    ``\\citefield{key}{field}`` the key): in the file loading it and in a file it includes."""
    _require_tools()
    files = {
        "refs.bib": "".join(f"@book{{{k}, author={{A {k}}}, title={{T}}}}\n" for k in "abc"),
        "main.tex": "\\documentclass{article}\n\\usepackage{jurabib}\n\\begin{document}\n"
        "\\citefield{title}{a}\n\\input{ch}\n\\bibliographystyle{jurabib}\n"
        "\\bibliography{refs}\n\\end{document}\n",
        "ch.tex": "\\citefield[12]{author}{b}\n",
    }
    _bibtex_run(tmp_path, files)
    aux = (tmp_path / "main.aux").read_text(errors="replace")
    cited = set(re.findall(r"\\citation\{([^}]*)\}", aux))
    assert cited == {"a", "b"}
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == (set(), {"c"})


def test_a_file_read_if_it_exists_is_read_as_latex_reads_it(tmp_path: Path) -> None:
    """``\\InputIfFileExists{f}{then}{else}`` reads f.tex where there is one, and is no
    missing file where there is none (LaTeX reads the else branch)."""
    _require_tools()
    files = {
        "refs.bib": "".join(f"@misc{{{k}, title={{T}}}}\n" for k in ("a", "b", "c")),
        "main.tex": "\\documentclass{article}\n\\begin{document}\n"
        "\\InputIfFileExists{ch}{}{}\n\\InputIfFileExists{absent}{}{\\cite{b}}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        "ch.tex": "\\cite{a} \\cite{nokey}\n",
    }
    tools = _bibtex_run(tmp_path, files)
    assert (tools.dangling, tools.unused) == ({"nokey"}, {"c"})
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "main.tex")
    findings = [f for fs in check(ws).values() for f in fs]
    assert not [f for f in findings if f.code is Code.MISSING_INCLUDE]
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused)


@pytest.mark.parametrize("package", ["", "natbib"])
def test_a_braced_optional_argument_is_read_twice_as_latex_reads_it(
    tmp_path: Path, package: str
) -> None:
    """LaTeX's own ``\\cite`` and natbib's commands read a sole optional argument twice,
    the braces of a wholly braced one stripped the first time: ``\\cite[{see [4]}]{a}``
    cites ``]`` and ``\\cite[{p]q}]{c}`` cites ``q``; a second optional argument is read
    once (natbib's ``\\citep[{see [x]}][p.~3]{d}`` cites d)."""
    _require_tools()
    load, style = ("\\usepackage{natbib}\n", "plainnat") if package else ("", "plain")
    natbib = "\\citep[{see [x]}][p.~3]{d} \\citet[{see [4]}]{e}\n" if package else ""
    files = {
        "refs.bib": "".join(f"@misc{{{k},\n  author={{A}},\n  title={{T}}}}\n" for k in "abcdef"),
        "main.tex": f"\\documentclass{{article}}\n{load}\\begin{{document}}\n"
        f"\\cite[{{see [4]}}]{{a}} \\cite[{{x}}]{{b}} \\cite[{{p]q}}]{{c}}\n{natbib}"
        f"\\bibliographystyle{{{style}}}\n\\bibliography{{refs}}\n\\end{{document}}\n",
    }
    tools = _bibtex_run(tmp_path, files)
    assert "]" in tools.dangling and "b" not in tools.unused
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused)


@pytest.mark.parametrize(
    "command", ["citeyear", "citeyearpar", "citenum", "citetalias", "citefullauthor"]
)
def test_a_star_natbib_has_no_form_for_is_the_key(tmp_path: Path, command: str) -> None:
    """natbib's ``\\citeyear`` (and the others here) has no starred form: ``\\citeyear*{b}``
    cites ``*``, which BibTeX reads as every entry, so none is an orphan."""
    _require_tools()
    files = {
        "refs.bib": "".join(f"@misc{{{k},\n  author={{A}},\n  title={{T}}}}\n" for k in "abc"),
        "main.tex": "\\documentclass{article}\n\\usepackage{natbib}\n\\begin{document}\n"
        f"\\cite{{a}} \\{command}*{{b}}\n\\bibliographystyle{{plainnat}}\n"
        "\\bibliography{refs}\n\\end{document}\n",
    }
    tools = _bibtex_run(tmp_path, files)
    assert "]{c}\n" in (tmp_path / "main.bbl").read_text(errors="replace")  # c is listed
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused) == (set(), set())


@pytest.mark.parametrize("package", ["", "natbib"])
def test_an_optional_argument_of_nocite_is_its_key(tmp_path: Path, package: str) -> None:
    """``\\nocite`` has no optional argument: ``\\nocite[x]{b}`` cites ``[`` and b is text."""
    _require_tools()
    load, style = ("\\usepackage{natbib}\n", "plainnat") if package else ("", "plain")
    files = {
        "refs.bib": "".join(f"@misc{{{k},\n  author={{A}},\n  title={{T}}}}\n" for k in "abc"),
        "main.tex": f"\\documentclass{{article}}\n{load}\\begin{{document}}\n"
        f"\\cite{{a}}\\nocite[x]{{b}}\n\\bibliographystyle{{{style}}}\n\\bibliography{{refs}}\n"
        "\\end{document}\n",
    }
    tools = _bibtex_run(tmp_path, files)
    assert (tools.dangling, tools.unused) == ({"["}, {"b", "c"})
    ours = citewarden_answer([tmp_path / "main.tex"])
    assert (ours.dangling, ours.orphans) == (tools.dangling, tools.unused)
