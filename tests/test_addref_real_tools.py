"""Entries citewarden adds are read by the real tools: BibTeX (plain style), biber, and pandoc
--citeproc (BibTeX, CSL-JSON and CSL-YAML), built from real recorded Crossref records
(tests/data/addref/api/crossref) plus one record of hostile text."""

from __future__ import annotations

import json
import re
import shutil
import string
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.etree import ElementTree

import pytest

from citewarden.addref.insert import (
    apply,
    clashing_key,
    make_key,
    plan_insertion,
    valid_key,
)
from citewarden.parsing.latex_encode import (
    _ACCENT_COMMANDS,
    BEYOND_PDFLATEX,
    PDFLATEX_RANGES,
    pdflatex_text,
)
from citewarden.parsing.pdflatex_spellings import PDFLATEX_SPELLINGS
from citewarden.verify.records import Person, WorkRecord
from citewarden.verify.sources import work_from_csl, work_from_s2

DATA = Path(__file__).parent / "data"
CROSSREF = DATA / "addref" / "api" / "crossref"
#: Real records that broke the entries written for them: a DOI holding "_", a thesis and a
#: report (their university and issuer), a title in double quotes (accuracy/records.jsonl)
ODD_DOIS = (
    "10.1007/978-1-4614-7660-3_1",
    "10.14264/uql.2020.791",
    "10.1787/ba602d18-en",
    "10.1097/01.ruq.0000226876.42808.60",
)
#: Semantic Scholar titles written in TeX, math with braces and a space after the dollar
TEX_TITLES = ("Finding a Zero Path", "Long induced paths in $K")


def odd_records() -> list[WorkRecord]:
    """The records of :data:`ODD_DOIS`, :data:`TEX_TITLES`, and a CSL item whose URL
    holds a "~"."""
    out: list[WorkRecord] = []
    for line in (DATA / "accuracy" / "records.jsonl").read_text(encoding="utf-8").splitlines():
        message = json.loads(line)["message"]
        if message.get("DOI") in ODD_DOIS and (record := work_from_csl(message)) is not None:
            out.append(record)
    papers = json.loads((DATA / "titles" / "s2_recommended_papers_tex_titles.json").read_text())
    for paper in papers["recommendedPapers"]:
        if paper["title"].startswith(TEX_TITLES) and (record := work_from_s2(paper)):
            out.append(record)
    items = json.loads((DATA / "csl" / "deep-review-manual-references.json").read_text())
    tilde = work_from_csl(next(i for i in items if "~kriz" in i.get("URL", "")))
    assert tilde is not None
    out.append(tilde)
    assert len(out) == len(ODD_DOIS) + len(TEX_TITLES) + 1
    return out


def _records() -> list[WorkRecord]:
    out = odd_records()
    for path in sorted(CROSSREF.glob("crossref_doi_*.json")):
        record = work_from_csl(json.loads(path.read_text(encoding="utf-8"))["message"])
        assert record is not None
        out.append(record)
    out.append(
        WorkRecord(
            source="crossref",
            title="Fish & Chips: 100% of $5 #1 under_score {brace",
            authors=(Person("O'Brien", "Ann"), Person("Müller", "Jörg")),
            year=2020,
            venue="Journal of {Odd} Names",
            work_type="journal-article",
        )
    )
    out.append(
        WorkRecord(
            source="arxiv",
            title=(
                "Reading \\input{citewarden-secret} and $x^^5cinput{citewarden-secret}$, "
                '\\csname input\\endcsname{citewarden-secret} in $\\mathbb{R}^n$ for Schr\\"odinger'
            ),
            authors=(Person("Doe", "Jane"),),
            year=2024,
            venue="arXiv",
            work_type="posted-content",
        )
    )
    return out


#: The file a record's title asks TeX to read (it must not be read).
SECRET = "citewarden-secret.tex"


def _bibliography(suffix: str, tmp_path: Path) -> tuple[Path, dict[str, WorkRecord]]:
    path = tmp_path / f"refs{suffix}"
    text = ""
    keys: dict[str, WorkRecord] = {}
    for record in _records():
        key = make_key(record, set(keys))
        keys[key] = record
        text = apply(text, plan_insertion(path, text, record, key))
    path.write_text(text, encoding="utf-8")
    return path, keys


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing (scripts/system-deps installs it)", pytrace=False)
    return found


@pytest.mark.parametrize("suffix", [".bib", ".json", ".yaml"])
def test_pandoc_reads_every_added_entry(suffix: str, tmp_path: Path) -> None:
    bib, keys = _bibliography(suffix, tmp_path)
    doc = tmp_path / "paper.md"
    doc.write_text(" ".join(f"[@{k}]" for k in keys) + "\n", encoding="utf-8")
    proc = subprocess.run(
        [_tool("pandoc"), "--citeproc", "--bibliography", str(bib), "-t", "plain", str(doc)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr
    flat = " ".join(proc.stdout.split())
    assert "approximation capabilities of multilayer feedforward networks" in flat.lower()
    # (the styles may change the case; the special characters arrive as themselves)
    assert "fish & chips: 100% of $5 #1 under_score" in flat.lower()
    assert "O’Brien" in flat or "O'Brien" in flat


@pytest.mark.parametrize("backend", ["bibtex", "biber"])
def test_latex_reads_every_added_entry(backend: str, tmp_path: Path) -> None:
    _, keys = _bibliography(".bib", tmp_path)
    cites = ",".join(keys)
    if backend == "bibtex":
        tex = (
            "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{amssymb}"
            "\\begin{document}"
            f"\\cite{{{cites}}}\\bibliographystyle{{plain}}\\bibliography{{refs}}\\end{{document}}\n"
        )
    else:
        tex = (
            "\\documentclass{article}\\usepackage[T1]{fontenc}\\usepackage{amssymb}"
            "\\usepackage[backend=biber]{biblatex}"
            f"\\addbibresource{{refs.bib}}\\begin{{document}}\\cite{{{cites}}}"
            "\\printbibliography\\end{document}\n"
        )
    (tmp_path / "main.tex").write_text(tex, encoding="utf-8")
    (tmp_path / SECRET).write_text("SECRETMARKER\n", encoding="utf-8")

    def run(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(  # TeX writes a box's text in the font's encoding
            list(cmd),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=180,
            check=False,
        )

    latex = [_tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "main.tex"]
    first = run(*latex)
    assert first.returncode == 0, first.stdout[-2000:]
    tool = run(_tool(backend), "main")
    assert tool.returncode == 0, tool.stdout[-3000:] + tool.stderr[-2000:]
    log = tool.stdout + tool.stderr
    assert "error" not in log.lower().replace("0 error", ""), log[-3000:]
    # a thesis names its school, a report its institution (plain.bst warns when empty)
    for key, record in keys.items():
        if record.publisher:
            assert f"empty school in {key}" not in log, log[-3000:]
            assert f"empty institution in {key}" not in log, log[-3000:]
    if backend == "biber":  # verbatim fields reach the .bbl as written: no "3\_1" link
        bbl = (tmp_path / "main.bbl").read_text(encoding="utf-8")
        assert "7660-3_1" in bbl and "7660-3\\_1" not in bbl
        assert "/~kriz/" in bbl
    run(*latex)
    last = run(*latex)
    assert last.returncode == 0, last.stdout[-2000:]
    assert "undefined" not in last.stdout.lower(), last.stdout[-2000:]
    # a record's title runs no command: the file it names is never read
    log = (tmp_path / "main.log").read_text(encoding="latin-1")
    assert SECRET not in log and "SECRETMARKER" not in log, log[-3000:]


def _pandocs() -> list[str]:
    """The system's pandoc and the releases of .tools that are there."""
    from paths import PANDOC_RELEASES

    return [_tool("pandoc")] + [str(p) for p in PANDOC_RELEASES.values() if p.exists()]


SOURCE_BIB = """@article{knuth1984,
  author = {Knuth, Donald},
  title = {Literate Programming},
  journal = {Comput. J.},
  year = {1984},
}

@book{lamport1994,
  author = {Lamport, Leslie},
  title = {LaTeX: A Document Preparation System},
  publisher = {Addison-Wesley},
  year = {1994},
}
"""


def test_csl_yaml_written_by_pandoc_takes_the_new_item_in_its_list(tmp_path: Path) -> None:
    """pandoc writes a .bib as CSL-YAML between --- markers, each item starting with its
    first key (- author:); the new item goes inside that list, which pandoc reads, not
    after the closing --- (pandoc reads the first document only)."""
    (tmp_path / "src.bib").write_text(SOURCE_BIB, encoding="utf-8")
    record = next(r for r in _records() if r.title.startswith("Fish & Chips"))
    for pandoc in _pandocs():
        made = subprocess.run(
            [pandoc, "src.bib", "-s", "-f", "biblatex", "-t", "markdown"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        ).stdout
        assert made.startswith("---\n") and "\n- author:" in made and "\n- id:" not in made
        bib = tmp_path / "refs.yaml"
        bib.write_text(apply(made, plan_insertion(bib, made, record, "obrien2020fish")))
        doc = tmp_path / "paper.md"
        doc.write_text("[@knuth1984] [@lamport1994] [@obrien2020fish]\n", encoding="utf-8")
        proc = subprocess.run(
            [pandoc, "--citeproc", "--bibliography", str(bib), "-t", "plain", str(doc)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        assert "not found" not in proc.stderr and "WARNING" not in proc.stderr, proc.stderr
        assert "obrien2020fish?" not in proc.stdout and "Fish & Chips" in proc.stdout
        assert "Knuth" in proc.stdout and "Lamport" in proc.stdout


#: Characters tried in a key: every ASCII punctuation mark, letters of other scripts, a
#: superscript digit, and what is no letter (an emoji, a no-break space, a combining accent).
KEY_CANDIDATES = (*string.punctuation, "ß", "α", "中", "²", "😀", "\u00a0", "\u0301")


def _tools_reading_key(key: str, directory: Path) -> dict[str, bool]:
    """Which of BibTeX, each pandoc and biber read the entry ``key`` (and the entry after
    it) from a .bib holding the two (biber asked only when all the others read it)."""
    directory.mkdir()
    (directory / "refs.bib").write_text(
        f"@misc{{{key},\n  title = {{T}},\n}}\n\n@misc{{second,\n  title = {{S}},\n}}\n",
        encoding="utf-8",
    )
    (directory / "main.aux").write_text("\\citation{*}\n\\bibdata{refs}\n\\bibstyle{plain}\n")

    def run(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(cmd), cwd=directory, capture_output=True, text=True, errors="replace", timeout=120
        )

    def read(name: str) -> str:
        found = directory / name
        return found.read_text(encoding="utf-8", errors="replace") if found.exists() else ""

    seen: dict[str, bool] = {}
    done = run(_tool("bibtex"), "main")
    bbl = read("main.bbl")
    seen["bibtex"] = done.returncode == 0 and f"\\bibitem{{{key}}}" in bbl and "{second}" in bbl
    for pandoc in _pandocs():
        done = run(pandoc, "refs.bib", "-f", "bibtex", "-t", "csljson")
        ids = [i["id"] for i in json.loads(done.stdout)] if done.returncode == 0 else []
        seen[pandoc] = ids == [key, "second"]
    if all(seen.values()):  # (biber, the slowest, only where it decides)
        done = run(_tool("biber"), "--tool", "--output-file=out.bib", "refs.bib")
        out = read("out.bib")
        seen["biber"] = done.returncode == 0 and "ERROR" not in done.stdout
        seen["biber"] &= f"{{{key}," in out and "{second," in out
    return seen


def test_a_key_is_valid_when_bibtex_biber_and_every_pandoc_read_it(tmp_path: Path) -> None:
    """valid_key accepts a character in a key exactly when BibTeX, biber and pandoc (2.17,
    3.6.1, 3.9) all read the entry with it; pandoc fails the whole file at a "<"."""
    keys = {c: f"a{c}b" for c in KEY_CANDIDATES}
    with ThreadPoolExecutor(8) as pool:
        found = dict(
            zip(
                keys,
                pool.map(lambda c: _tools_reading_key(keys[c], tmp_path / f"c{ord(c)}"), keys),
                strict=True,
            )
        )
    assert len(found["!"]) == 2 + len(_pandocs())
    read_by_all = {c for c, seen in found.items() if all(seen.values())}
    assert {c for c in KEY_CANDIDATES if valid_key(keys[c])} == read_by_all, found
    assert {"<", ">", "|", "^", "~", "#", "%", "\\"} <= set(KEY_CANDIDATES) - read_by_all
    assert {"ß", "α", "中", "-", ":", "/", "_"} <= read_by_all


#: A style that writes, for each entry, its number of authors and each one's family and
#: given parts as BibTeX reads them.
NAMES_BST = """ENTRY { author } {} {}
INTEGERS { n i }
FUNCTION {default.type} {
  author num.names$ 'n :=
  cite$ ":" * n int.to.str$ * write$ newline$
  #1 'i :=
  { i n #1 + < }
  { author i "{vv }{ll}|{jj}|{ff}" format.name$ write$ newline$
    i #1 + 'i := }
  while$
}
FUNCTION {article} { default.type }
READ
ITERATE {default.type}
"""

#: Name parts holding a comma or an "and" (as a record may give them), and what must be
#: read back: (family, suffix, given) of each person.
ODD_NAMES = (
    (Person("García, Márquez", "Gabriel"), ("García, Márquez", "", "Gabriel")),
    (Person("Smith and Wesson", "Ann"), ("Smith and Wesson", "", "Ann")),
    (Person("Doe", "Jane, Mary"), ("Doe", "", "Jane, Mary")),
    (Person("Roe AND Poe", "Bo"), ("Roe AND Poe", "", "Bo")),
    (Person("Steele, Jr.", "Guy and L."), ("Steele", "Jr.", "Guy and L.")),
    (Person("Lee", "Ann"), ("Lee", "", "Ann")),
)


def test_name_parts_with_a_comma_or_and_are_read_as_one_person(tmp_path: Path) -> None:
    """BibTeX and biber read each author of the entry as one person, with the family and
    given names the record has, though a part holds a comma or an "and"."""
    record = WorkRecord(
        source="crossref",
        title="Names",
        authors=tuple(p for p, _ in ODD_NAMES),
        year=2020,
        venue="J",
        work_type="journal-article",
    )
    bib = tmp_path / "refs.bib"
    bib.write_text(apply("", plan_insertion(bib, "", record, "names2020")), encoding="utf-8")
    expected = [want for _, want in ODD_NAMES]

    (tmp_path / "names.bst").write_text(NAMES_BST, encoding="utf-8")
    (tmp_path / "main.aux").write_text("\\citation{*}\n\\bibdata{refs}\n\\bibstyle{names}\n")
    done = subprocess.run(
        [_tool("bibtex"), "main"], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout
    lines = (tmp_path / "main.bbl").read_text(encoding="utf-8").splitlines()
    assert lines[0] == f"names2020:{len(expected)}"
    unbraced = (line.replace("{", "").replace("}", "") for line in lines[1:])
    assert [tuple(line.split("|")) for line in unbraced] == expected

    done = subprocess.run(
        [
            _tool("biber"),
            "--tool",
            "--output-format=biblatexml",
            "--output-file=out.bltxml",
            "refs.bib",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "ERROR" not in done.stdout, done.stdout
    ns = {"bltx": "http://biblatex-biber.sourceforge.net/biblatexml"}
    root = ElementTree.parse(tmp_path / "out.bltxml").getroot()
    people = root.findall(".//bltx:names[@type='author']/bltx:name", ns)

    def part(name: ElementTree.Element, kind: str) -> str:
        found = name.find(f"bltx:namepart[@type='{kind}']", ns)
        return " ".join("".join(found.itertext()).split()) if found is not None else ""

    assert [(part(p, "family"), part(p, "suffix"), part(p, "given")) for p in people] == expected


def _pdflatex_errors(body_lines: list[str], directory: Path) -> dict[int, str]:
    """pdflatex's errors (no package loaded) over a document of ``body_lines``, each a
    paragraph: the index of the line each error is on, and the error."""
    head = ["\\documentclass{article}", "\\begin{document}"]
    tex = "\n".join([*head, *(f"{line}\\par" for line in body_lines), "\\end{document}"])
    (directory / "chars.tex").write_text(tex + "\n", encoding="utf-8")
    subprocess.run(
        [_tool("pdflatex"), "-interaction=nonstopmode", "chars.tex"],
        cwd=directory,
        capture_output=True,
        timeout=180,
        check=False,
    )
    log = (directory / "chars.log").read_text(encoding="latin-1")
    found = re.findall(r"^! (.*)\n(?:.*\n)*?l\.(\d+) ", log, re.MULTILINE)
    return {int(line) - len(head) - 1: error for error, line in found}


def test_pdflatex_typesets_the_characters_written_raw(tmp_path: Path) -> None:
    """Each character PDFLATEX_RANGES holds is typeset by pdflatex with no package loaded,
    and a Greek letter, an emoji and a Chinese one are not ("not set up")."""
    inside = [chr(c) for a, b in PDFLATEX_RANGES for c in range(a, b + 1)]
    beyond = ["α", "😀", "中"]
    assert all(BEYOND_PDFLATEX.match(c) for c in beyond)
    assert not any(BEYOND_PDFLATEX.match(c) for c in inside)
    errors = _pdflatex_errors([f"x{c}x" for c in inside + beyond], tmp_path)
    assert sorted(errors) == list(range(len(inside), len(inside) + len(beyond))), errors
    assert all("LaTeX Error: Unicode character" in e for e in errors.values()), errors


def test_every_spelling_of_pdflatex_text_is_typeset_by_pdflatex(tmp_path: Path) -> None:
    """Each spelling PDFLATEX_SPELLINGS allows, and each accent command over each letter
    pdflatex typesets, is typeset by pdflatex with no package loaded (plain OT1) without an
    error or a missing character: nothing written past this check stops a document."""
    inside = [chr(c) for a, b in PDFLATEX_RANGES for c in range(a, b + 1)]
    letters = [c for c in string.ascii_letters + "".join(inside) if c.isalpha()]
    written = [pdflatex_text(c) for c in PDFLATEX_SPELLINGS]
    assert not any(BEYOND_PDFLATEX.search(w) for w in written)
    accented = (pdflatex_text(c + mark) for mark in _ACCENT_COMMANDS for c in letters)
    # a letter under a mark with no command (ș, a comma below, under a grave) is kept
    written += [w for w in accented if not BEYOND_PDFLATEX.search(w)]
    assert written[0] == "{" + next(iter(PDFLATEX_SPELLINGS.values())) + "}"
    head = ["\\documentclass{article}", "\\tracinglostchars=1", "\\begin{document}"]
    body = [f"\\typeout{{@@{i}}}x{w}x\\par" for i, w in enumerate(written)]
    tex = "\n".join([*head, *body, "\\typeout{@@end}\\end{document}"])
    (tmp_path / "spelt.tex").write_text(tex + "\n", encoding="utf-8")
    subprocess.run(
        [_tool("pdflatex"), "-interaction=nonstopmode", "spelt.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
        check=False,
    )
    log = (tmp_path / "spelt.log").read_text(encoding="latin-1")
    assert "@@end" in log, log[-3000:]
    failed = {}
    for part in re.split(r"^@@", log, flags=re.MULTILINE)[1:]:
        index, _, rest = part.partition("\n")
        if "\n! " in "\n" + rest or "Missing character" in rest or "Warning" in rest:
            failed[index] = written[int(index)] if index != "end" else rest[:500]
    assert not failed, failed


def test_characters_beyond_pdflatex_are_spelt_in_latex(tmp_path: Path) -> None:
    """In a file of ASCII text, a Greek letter, a letter under two accents and an emoji are
    written so that pdflatex with no package loaded and plain BibTeX typeset the entry; in
    a file already holding a Greek letter they stay as they are (it is meant for biber,
    XeLaTeX or LuaLaTeX)."""
    record = WorkRecord(
        source="crossref",
        title="α-stable laws in Ω-logic, tiếng Việt and a 😀 in José's title",
        authors=(Person("Ωmega", "Αλέξανδρος"), Person("Nguyễn", "Văn")),
        year=2021,
        venue="Journal of ε",
        work_type="journal-article",
    )
    bib = tmp_path / "refs.bib"
    bib.write_text(apply("", plan_insertion(bib, "", record, "omega2021stable")))
    written = bib.read_text(encoding="utf-8")
    assert "α" not in written and "😀" not in written and "José" in written, written
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{omega2021stable}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    latex = [_tool("pdflatex"), "-interaction=nonstopmode", "-halt-on-error", "main.tex"]
    for command in (latex, [_tool("bibtex"), "main"], latex, latex):
        done = subprocess.run(
            command, cwd=tmp_path, capture_output=True, text=True, errors="replace", check=False
        )
        assert done.returncode == 0, done.stdout[-3000:]
    log = (tmp_path / "main.log").read_text(encoding="latin-1")
    assert "not set up" not in log and "undefined" not in log.lower(), log[-3000:]

    greek = "@misc{old,\n  title = {Über α},\n}\n"
    new = apply(greek, plan_insertion(bib, greek, record, "omega2021stable"))
    assert "{α-stable laws in Ω-logic, tiếng Việt and a 😀 in José's title}" in new


#: Pairs of keys differing in case or spelling: BibTeX repeats an entry whose key differs
#: in the case of ASCII letters, biber warns of a case mismatch (lower-cased), and none of
#: them nor pandoc reads "ß" as "ss" or "ﬁ" as "fi".
KEY_PAIRS = (
    ("Straße2020", "straße2020"),
    ("straße2020", "strasse2020"),
    ("Élan2020", "élan2020"),
    ("ABC", "abc"),
    ("ﬁx2020", "fix2020"),
    ("smith2020", "smith2021"),
)


def test_keys_clash_as_bibtex_and_biber_read_them(tmp_path: Path) -> None:
    """A new key clashes with one in the file exactly when BibTeX reads the second entry as
    a repeat of the first or biber warns that they may be one key in two cases; pandoc
    reads both keys in every pair."""
    for n, (first, second) in enumerate(KEY_PAIRS):
        directory = tmp_path / f"p{n}"
        directory.mkdir()
        (directory / "refs.bib").write_text(
            f"@misc{{{first},\n  title = {{A}},\n}}\n\n@misc{{{second},\n  title = {{B}},\n}}\n",
            encoding="utf-8",
        )
        (directory / "main.aux").write_text("\\citation{*}\n\\bibdata{refs}\n\\bibstyle{plain}\n")

        def run(*cmd: str, where: Path = directory) -> str:
            done = subprocess.run(
                list(cmd), cwd=where, capture_output=True, text=True, errors="replace", check=False
            )
            return done.stdout + done.stderr

        repeated = "Repeated entry" in run(_tool("bibtex"), "main")
        mismatch = "case mismatch" in run(
            _tool("biber"), "--tool", "--output-file=o.bib", "refs.bib"
        )
        for pandoc in _pandocs():
            ids = [
                i["id"]
                for i in json.loads(run(pandoc, "refs.bib", "-f", "bibtex", "-t", "csljson"))
            ]
            assert ids == [first, second], pandoc
        clash = clashing_key(second, {first})
        assert (clash is not None) == (repeated or mismatch), (first, second, repeated, mismatch)
    assert clashing_key("strasse2020", {"straße2020"}) is None
    assert (
        make_key(
            WorkRecord(
                source="crossref", title="Words", authors=(Person("Strasse", "A"),), year=2020
            ),
            {"straße2020words", "STRASSE2020words"},
        )
        == "strasse2020wordsa"
    )


def test_a_byte_order_mark_is_refused_in_csl_json_and_kept_in_csl_yaml(tmp_path: Path) -> None:
    """pandoc reads no CSL-JSON file that starts with a UTF-8 byte-order mark, so adding to
    one is refused saying so (not "not a CSL-JSON array"); a CSL-YAML file with the mark,
    which pandoc reads, keeps it and takes the new item."""
    from citewarden.addref.insert import InsertError

    record = next(r for r in _records() if r.title.startswith("Fish & Chips"))
    doc = tmp_path / "paper.md"
    doc.write_text("[@old] [@obrien2020fish]\n", encoding="utf-8")

    def cite(pandoc: str, bib: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [pandoc, "--citeproc", "--bibliography", str(bib), "-t", "plain", str(doc)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    bib = tmp_path / "refs.json"
    text = '\ufeff[\n  {"id": "old", "type": "book", "title": "Old"}\n]\n'
    bib.write_text(text, encoding="utf-8")
    for pandoc in _pandocs():
        assert cite(pandoc, bib).returncode != 0, pandoc
    try:
        plan_insertion(bib, text, record, "obrien2020fish")
    except InsertError as error:
        assert "refs.json starts with a byte-order mark" in str(error)
    else:
        raise AssertionError("a CSL-JSON file with a byte-order mark was written to")

    bib = tmp_path / "refs.yaml"
    text = "\ufeffreferences:\n- id: old\n  type: book\n  title: Old\n"
    new = apply(text, plan_insertion(bib, text, record, "obrien2020fish"))
    assert new.startswith("\ufeffreferences:\n") and new.count("\ufeff") == 1
    bib.write_text(new, encoding="utf-8")
    for pandoc in _pandocs():
        done = cite(pandoc, bib)
        assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
        assert "Fish & Chips" in done.stdout and "Old" in done.stdout, done.stdout
