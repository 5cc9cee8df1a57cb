"""The names a citing sentence shows, as natbib typesets them (``\\citet``, ``\\citet*``)
and as the cited work's record gives them: particles, ``and others``, organisations."""

from __future__ import annotations

import re
import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest

from citewarden.context.collect import works_of
from citewarden.context.names import named_works, plain_field
from citewarden.context.sentence import citing_sentences
from citewarden.pandoc_version import parse_version
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml
from citewarden.parsing.latex import parse_latex
from citewarden.parsing.markdown import parse_markdown
from citewarden.settings import VerifySettings
from citewarden.verify.engine import Verifier
from citewarden.verify.normalize import make_entry
from paths import DATA, PANDOC_RELEASES

#: Names of every form BibTeX reads: particles in both orders, ``Jr.``, braces, ``others``.
BIB = r"""
@article{vdb, author={Jan van der Berg}, title={A}, journal={J}, year=2001}
@article{vdbc, author={van der Berg, Jan}, title={A}, journal={J}, year=2002}
@article{cruz, author={Maria de la Cruz and Ludwig van Beethoven}, title={B}, journal={J}, year=2002}
@article{font, author={Jean de La Fontaine}, title={B}, journal={J}, year=2002}
@article{jr, author={Steele, Jr., Guy L.}, title={C}, journal={J}, year=2003}
@article{jr2, author={Guy L. Steele Jr.}, title={C}, journal={J}, year=2003}
@article{who, author={{World Health Organization}}, title={D}, journal={J}, year=2004}
@article{whou, author={World Health Organization}, title={D}, journal={J}, year=2004}
@article{oth, author={Smith, John and others}, title={E}, journal={J}, year=2005}
@article{oth2, author={Smith, John and Jones, Ann and others}, title={E}, journal={J}, year=2006}
@article{fao, author={{Food and Agriculture Organization} and {World Health Organization}},
  title={F}, journal={J}, year=2006}
@article{von, author={von Neumann, John and Morgenstern, Oskar}, title={G}, journal={J}, year=2007}
@article{dv, author={Charles-Jean {\'E}tienne Gustave Nicolas de la Vall{\'e}e Poussin},
  title={H}, journal={J}, year=2008}
@article{lc, author={{\relax Ch}arles de Gaulle and {van Dam}, Andries}, title={I}, journal={J},
  year=2009}
@article{three, author={Lee, K. and Kim, B. and Park, C. and others}, title={J}, journal={J},
  year=2013}
@article{trio, author={Li, A. and Mo, B. and Ou, C.}, title={K}, journal={J}, year=2014}
@article{four, author={Ng, A. and Ho, B. and Yu, C. and Xu, D.}, title={L}, journal={J}, year=2015}
"""

#: natbib's label in plainnat's .bbl: ``\bibitem[Short(Year)Long]{key}`` (the long form
#: only where it differs from the short one)
_ITEM = re.compile(r"\\bibitem\[(.*?)\((\d{4})[^)]*\)(.*?)\]\{([^}]*)\}", re.S)


def _natbib_names(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """key -> (what ``\\citet`` shows, what ``\\citet*`` shows), as BibTeX writes them."""
    bibtex = shutil.which("bibtex")
    if bibtex is None:
        pytest.fail("bibtex is missing (scripts/system-deps installs it)", pytrace=False)
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    (tmp_path / "n.aux").write_text(
        "\\citation{*}\n\\bibstyle{plainnat}\n\\bibdata{refs}\n", encoding="utf-8"
    )
    subprocess.run([bibtex, "n"], cwd=tmp_path, capture_output=True, timeout=60, check=True)
    bbl = (tmp_path / "n.bbl").read_text(encoding="utf-8")
    out = {}
    for m in _ITEM.finditer(bbl):
        short, long = (" ".join(plain_field(m.group(g)).split()) for g in (1, 3))
        out[m.group(4)] = (short, long or short)
    return out


def test_the_names_shown_are_those_natbib_typesets(tmp_path: Path) -> None:
    """Every name's surname as natbib shows it with ``\\citet`` and ``\\citet*``: the
    particles of ``Jan van der Berg`` kept (``van der Berg``), where its last word was
    shown (``Berg``), and a list cut with ``and others`` of several names listed with a
    comma before ``et al.`` (``Smith, Jones, et al.``), where it had none."""
    typeset = _natbib_names(tmp_path)
    named = named_works(parse_bibtex(Path("refs.bib"), BIB).entries)
    assert set(typeset) == set(named)
    assert {k: (n.authors, n.all_authors) for k, n in named.items()} == typeset
    assert typeset["vdb"] == ("van der Berg", "van der Berg")
    assert typeset["oth2"] == ("Smith et al.", "Smith, Jones, et al.")


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing (scripts/system-deps installs it)", pytrace=False)
    return found


#: The entries whose names every pandoc release shows alike (pandoc 2.17 and 3.6.1 list
#: three names and the two of ``Smith and Jones and others``, 3.9 the first and ``et al.``;
#: and pandoc reads ``{\'E}tienne`` of ``dv`` as a given name and ``de la`` as none)
_PANDOC_ALIKE = (
    "vdb",
    "vdbc",
    "cruz",
    "font",
    "jr",
    "jr2",
    "who",
    "whou",
    "oth",
    "fao",
    "von",
    "lc",
)


def test_the_names_pandoc_shows_are_shown_for_at_a(tmp_path: Path) -> None:
    """``@vdb says`` shows the surnames as pandoc typesets them, without their particles
    (``Berg``, ``Cruz and Beethoven``, ``Neumann and Morgenstern``), where it showed
    ``van der Berg`` for ``van der Berg, Jan``."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    text = "---\nbibliography: refs.bib\n---\n\n" + "".join(
        f"@{k} says so.\n\n" for k in _PANDOC_ALIKE
    )
    (tmp_path / "p.md").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [_tool("pandoc"), "--citeproc", "-t", "plain", "--wrap=none", "p.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    paragraphs = [p for p in done.stdout.split("\n\n") if p.endswith("says so.")]
    typeset = [re.sub(r" \(\d{4}[a-z]?\)", "", p) for p in paragraphs]
    doc = parse_markdown(Path("p.md"), text)
    names = named_works(parse_bibtex(Path("refs.bib"), BIB).entries)
    found = citing_sentences(text, doc.citations, doc.kind, names=names)
    assert [s.shown if s is not None else None for s in found] == typeset
    assert typeset[:2] == ["Berg says so.", "Berg says so."]


def _pandoc_of(release: str) -> tuple[str, tuple[int, ...]]:
    """The program of the pandoc ``release`` ("system": the one on the search path) and its
    version, as it says."""
    program = _tool("pandoc") if release == "system" else str(PANDOC_RELEASES[release])
    first = subprocess.run(
        [program, "--version"], capture_output=True, text=True, timeout=60, check=True
    ).stdout.split()[1]
    version = parse_version(first)
    assert version is not None
    return program, version


@pytest.mark.parametrize("release", ["system", "3.6.1", "3.9"])
def test_the_names_of_at_a_follow_the_project_s_pandoc(tmp_path: Path, release: str) -> None:
    """``@trio says`` shows what the project's pandoc typesets: its default style names
    three authors before 3.8 (``Li, Mo, and Ou``, ``Smith, Jones, et al.``) and the first
    and ``et al.`` from 3.8, where every version was read as 3.9."""
    program, version = _pandoc_of(release)
    keys = [*_PANDOC_ALIKE, "oth2", "three", "trio", "four"]
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    text = "---\nbibliography: refs.bib\n---\n\n" + "".join(f"@{k} says so.\n\n" for k in keys)
    (tmp_path / "p.md").write_text(text, encoding="utf-8")
    done = subprocess.run(
        [program, "--citeproc", "-t", "plain", "--wrap=none", "p.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    paragraphs = [p for p in done.stdout.split("\n\n") if p.endswith("says so.")]
    typeset = [re.sub(r" \(\d{4}[a-z]?\) says so\.", "", p) for p in paragraphs]
    doc = parse_markdown(Path("p.md"), text)
    names = named_works(parse_bibtex(Path("refs.bib"), BIB).entries)
    found = citing_sentences(text, doc.citations, doc.kind, names=names, pandoc=version)
    assert [s.shown if s is not None else None for s in found] == [f"{t} says so." for t in typeset]
    older = version < (3, 8)
    assert typeset[-4:] == (
        ["Smith, Jones, et al.", "Lee et al.", "Li, Mo, and Ou", "Ng et al."]
        if older
        else ["Smith et al.", "Lee et al.", "Li et al.", "Ng et al."]
    )


#: a character of a box pdflatex shows (``.\\OT1/cmr/m/n/10 L``, a ligature's letters after
#: it: ``^^L (ligature fi)``), or the glue between words
_BOX_ITEM = re.compile(r"^\.\\(?:[A-Z0-9]+/[^ ]+ (?:\S+ \(ligature (\S+)\)|(\S))|(glue))", re.M)


def _textcites(tmp_path: Path, cites: list[str]) -> list[str]:
    """What biblatex (authoryear) typesets for each ``\\textcite{...}`` of ``cites``, the
    years in parentheses left out, read from the boxes pdflatex shows."""
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    boxes = "".join(f"\\setbox0\\hbox{{\\textcite{{{c}}}}}\\showbox0\n" for c in cites)
    (tmp_path / "t.tex").write_text(
        "\\documentclass{article}\\usepackage[backend=biber,style=authoryear]{biblatex}"
        "\\addbibresource{refs.bib}\\showboxdepth=9 \\showboxbreadth=100000\n"
        f"\\begin{{document}}\n{boxes}\\end{{document}}\n",
        encoding="utf-8",
    )
    latex = [_tool("pdflatex"), "-interaction=nonstopmode", "t.tex"]
    subprocess.run(latex, cwd=tmp_path, capture_output=True, timeout=120)
    subprocess.run(
        [_tool("biber"), "t"], cwd=tmp_path, capture_output=True, timeout=120, check=True
    )
    subprocess.run(latex, cwd=tmp_path, capture_output=True, timeout=120)
    log = (tmp_path / "t.log").read_text(encoding="latin-1")
    shown = []
    for box in re.findall(r"^> \\box0=\n(.*?)^! OK", log, re.S | re.M):
        text = "".join(m[0] or m[1] or " " for m in _BOX_ITEM.findall(box))
        shown.append(" ".join(re.sub(r"\(\d{4}\)", "", text).split()).replace(" ,", ","))
    assert len(shown) == len(cites)
    return shown


def test_the_names_biblatex_typesets_are_shown_for_textcite(tmp_path: Path) -> None:
    """``\\textcite`` shows what biblatex typesets: up to three names, without their
    particles, and several works listed ``A, B, and C``, where it showed natbib's (``Lee et
    al.`` for three names, ``van der Berg``, works parted by ``;``)."""
    ascii_keys = [k for k in re.findall(r"@article\{(\w+)", BIB) if k != "dv"]
    cites = [*ascii_keys, "vdb,von", "trio,four,cruz"]
    typeset = _textcites(tmp_path, cites)
    names = named_works(parse_bibtex(Path("refs.bib"), BIB).entries)
    text = "".join(f"\\textcite{{{c}}} says so.\n\n" for c in cites)
    doc = parse_latex(Path("p.tex"), text)
    found = citing_sentences(text, doc.citations, doc.kind, names=names)
    by_command: dict[int, str] = {}
    for c, s in zip(doc.citations, found, strict=True):
        assert s is not None
        by_command.setdefault(c.command_span.start, s.shown)
    assert list(by_command.values()) == [f"{t} says so." for t in typeset]
    assert typeset[-2:] == [
        "Berg and Neumann and Morgenstern",
        "Li, Mo, and Ou, Ng et al., and Cruz and Beethoven",
    ]


def test_a_sentence_shows_the_particles_of_a_name() -> None:
    named = named_works(parse_bibtex(Path("refs.bib"), BIB).entries)
    text = "As \\citet{cruz} and \\citet*{three} showed it."
    doc = parse_latex(Path("p.tex"), text)
    got = citing_sentences(text, doc.citations, doc.kind, names=named)[0]
    assert got is not None
    assert got.shown == "As de la Cruz and van Beethoven and Lee, Kim, Park, et al. showed it."


CSL_JSON = (
    '[{"id": "f", "type": "report", "title": "Food report", "author":'
    ' [{"literal": "Food and Agriculture Organization"}, {"literal": "World Health Organization"},'
    ' {"family": "Smith and Sons"}]}]'
)
CSL_YAML = (
    "---\nreferences:\n- id: f\n  type: report\n  title: Food report\n  author:\n"
    "  - literal: Food and Agriculture Organization\n  - literal: World Health Organization\n"
    "  - family: Smith and Sons\n...\n"
)


@pytest.mark.parametrize(
    "entries",
    [
        parse_csl_json(Path("r.json"), CSL_JSON).entries,
        parse_csl_yaml(Path("r.yaml"), CSL_YAML).entries,
    ],
    ids=["json", "yaml"],
)
def test_a_csl_name_holding_and_is_one_name(entries: tuple[object, ...]) -> None:
    """A CSL name holding `` and `` (``literal: Food and Agriculture Organization``) is one
    name, where it was read as two (``Food``, ``Agriculture Organization``)."""
    named = named_works(entries)["f"]  # type: ignore[arg-type]
    assert named.authors == "Food and Agriculture Organization et al."
    assert named.all_authors == (
        "Food and Agriculture Organization, World Health Organization, and Smith and Sons"
    )
    assert works_of(entries)["f"].authors == (  # type: ignore[arg-type]
        "Food and Agriculture Organization",
        "World Health Organization",
        "Smith and Sons",
    )


async def test_an_organisation_of_the_matched_record_is_read_whole(tmp_path: Path) -> None:
    """The cited work's surnames read from the record it was matched to (a real Crossref
    record whose author is ``{"name": "The Inspection Panel"}``) hold an organisation's
    whole name, where only its last word (``Panel``) was read."""
    from citewarden.verify.sources.snapshot import SnapshotSource

    snapshot = SnapshotSource(DATA / "accuracy" / "records.jsonl", tmp_path)
    verifier = Verifier([snapshot], VerifySettings(sources=()), today=date(2026, 11, 29))
    entry = make_entry(
        "panel",
        "book",
        {
            "title": "Consultation, Participation, and Disclosure of Information",
            "author": "{The Inspection Panel}",
            "doi": "10.1596/28895",
        },
    )
    try:
        verdict = await verifier.verify(entry)
    finally:
        snapshot.close()
    assert verdict.match is not None and verdict.match.authors == ("The Inspection Panel",)
    assert works_of([entry], {"panel": verdict})["panel"].authors == ("The Inspection Panel",)
