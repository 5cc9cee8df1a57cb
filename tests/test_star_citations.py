"""A star where a key list stands, built by the real pdflatex, BibTeX and biber: ``\\cite{*}``
and ``\\nocite*{b}`` cite every entry as the tools read them (LaTeX and its citation packages
write ``\\citation{*}``; biber reads a cited ``*`` as every entry), and biblatex's
``\\nocite`` has no star (the oracle is the tools' own run, as in test_real_tools.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_real_tools import _require_tools, citewarden_answer, run_latex

BIB = "".join(
    f"@book{{{key},\n  author = {{A {key}}},\n  title = {{T{key}}},\n  year = 2001,\n}}\n"
    for key in ("a", "b", "c")
)
BIBTEX = "\\bibliographystyle{%s}\n\\bibliography{refs}\n"
BIBER = "\\printbibliography\n"

#: name -> (preamble, body, backend)
CASES: dict[str, tuple[str, str, str]] = {
    "kernel cite star": ("", "\\cite{*} \\cite{a}\n", "bibtex"),
    "natbib citep star": ("\\usepackage{natbib}\n", "\\citep{*}\n", "bibtex"),
    "natbib star in a list": ("\\usepackage{natbib}\n", "\\cite{a,*}\n", "bibtex"),
    "natbib wrapper star": (
        "\\usepackage{natbib}\n\\newcommand{\\mc}[1]{\\citep{#1}}\n",
        "\\mc{*}\n",
        "bibtex",
    ),
    "natbib nocite star": ("\\usepackage{natbib}\n", "\\cite{a}\\nocite*{b}\n", "bibtex"),
    "cite nocite star": ("\\usepackage{cite}\n", "\\cite{a}\\nocite*{b}\n", "bibtex"),
    "hyperref nocite star": ("\\usepackage{hyperref}\n", "\\cite{a}\\nocite*{b}\n", "bibtex"),
    "biblatex nocite star": ("\\usepackage{biblatex}\n", "\\cite{a}\\nocite*{b}\n", "biber"),
    "biblatex cite star": ("\\usepackage{biblatex}\n", "\\cite{a}\\cite{*}\n", "biber"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_star_cites_what_the_tools_cite(tmp_path: Path, name: str) -> None:
    _require_tools()
    preamble, body, backend = CASES[name]
    if backend == "biber":
        preamble += "\\addbibresource{refs.bib}\n"
        end = BIBER
    else:
        end = BIBTEX % ("plainnat" if "natbib" in preamble else "plain")
    main = tmp_path / "main.tex"
    main.write_text(
        f"\\documentclass{{article}}\n{preamble}\\begin{{document}}\n{body}{end}\\end{{document}}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    tools = run_latex(tmp_path, "main.tex", backend)
    ours = citewarden_answer([main])
    assert (sorted(ours.dangling), sorted(ours.orphans)) == (
        sorted(tools.dangling),
        sorted(tools.unused),
    )


@pytest.mark.parametrize("command", ["nocitesw", "citesw"])
def test_a_star_of_a_multibib_list_cites_the_lists_entries(tmp_path: Path, command: str) -> None:
    """``\\nocitesw{*}`` writes ``\\citation{*}`` to sw.aux: BibTeX lists every entry of
    the files of ``\\bibliographysw`` there, and the main list's entries stay uncited."""
    _require_tools()
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\usepackage{multibib}\n\\newcites{sw}{Software}\n"
        f"\\begin{{document}}\n\\cite{{a}} \\{command}{{*}}\n"
        "\\bibliographystylesw{plain}\n\\bibliographysw{sw}\n"
        f"{BIBTEX % 'plain'}\\end{{document}}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    sw = BIB.replace("{a,", "{e,").replace("{b,", "{f,").replace("{c,", "{g,")
    (tmp_path / "sw.bib").write_text(sw, encoding="utf-8")
    tools = run_latex(tmp_path, "main.tex", "bibtex")  # the main list: refs.bib
    ours = citewarden_answer([main])
    assert tools.unused == {"b", "c"}
    assert (sorted(ours.dangling), sorted(ours.orphans)) == (sorted(tools.dangling), ["b", "c"])


@pytest.mark.parametrize("body", ["\\cite{a}\\nocite*{b}\n", "\\cite{a}\\cite{*}\n"])
def test_a_star_in_a_chapter_is_read_as_the_roots_biblatex_reads_it(
    tmp_path: Path, body: str
) -> None:
    """A chapter that loads nothing reads a star as the root's packages do: biblatex's
    ``\\nocite`` has no star, and its ``\\cite{*}`` is an undefined '*' too."""
    _require_tools()
    main = tmp_path / "main.tex"
    main.write_text(
        "\\documentclass{article}\n\\usepackage{biblatex}\n\\addbibresource{refs.bib}\n"
        f"\\begin{{document}}\n\\input{{ch}}\n{BIBER}\\end{{document}}\n",
        encoding="utf-8",
    )
    (tmp_path / "ch.tex").write_text(body, encoding="utf-8")
    (tmp_path / "refs.bib").write_text(BIB, encoding="utf-8")
    tools = run_latex(tmp_path, "main.tex", "biber")
    ours = citewarden_answer([main])
    assert (sorted(ours.dangling), sorted(ours.orphans)) == (
        sorted(tools.dangling),
        sorted(tools.unused),
    )
