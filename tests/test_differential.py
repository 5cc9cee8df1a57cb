"""citewarden reads what the real tools read, on seeded generated documents (see
differential.py): pdflatex for LaTeX, pandoc for Markdown, biber for the .bib files of TeX
Live.  Each run is bounded in time; a disagreement fails with the list by class."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import differential
import differential_crossref
import differential_strings
import differential_units
from citewarden.parsing.latex import parse_latex

#: seconds each oracle may take in the suite (the bench runs more cases)
BUDGET = 45


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    missing = differential.missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)


#: Keys in braces: LaTeX's \cite (and natbib's) reads c1, a1, d1, e1f1, g1, h1, i1 and
#: {j1}k1; the cite package strips only the braces around a whole item ({e1}f1 and {g1}
#: stay); biblatex keeps them all (``{c1}`` is then a key no entry has).
BRACED = (
    r"X \cite{{c1}} \cite{a1,{d1}} \cite{{e1}f1} \cite{{{g1}}} \cite{ {h1} , i1} \cite{{{j1}}k1}."
)
_PACKAGES = {
    "": "",
    "natbib": "\\usepackage{natbib}",
    "cite": "\\usepackage{cite}",
    "biblatex": "\\usepackage[backend=biber]{biblatex}",
}


def _aux_keys(aux: str) -> set[str]:
    """The keys of the ``\\citation{...}`` lines of an .aux file, braces matched."""
    keys: set[str] = set()
    for line in aux.splitlines():
        if line.startswith("\\citation{") and line.endswith("}"):
            keys.update(k.strip() for k in line[len("\\citation{") : -1].split(","))
    return keys - {""}


@pytest.mark.parametrize("included", [False, True], ids=["one-file", "included"])
@pytest.mark.parametrize("package", list(_PACKAGES))
def test_braced_keys_read_as_the_package_reads_them(
    tmp_path: Path, package: str, included: bool
) -> None:
    """In the file that loads the package, or in a chapter the root includes (which reads
    them as its project's packages do)."""
    body = "\\input{sec}" if included else BRACED
    text = (
        f"\\documentclass{{article}}\n{_PACKAGES[package]}\n"
        f"\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )
    main = tmp_path / "main.tex"
    main.write_text(text, encoding="utf-8")
    (tmp_path / "sec.tex").write_text(BRACED + "\n", encoding="utf-8")
    differential._run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    if package == "biblatex":
        bcf = (tmp_path / "main.bcf").read_text(errors="replace")
        oracle = {k.strip() for k in differential._BCF_CITEKEY.findall(bcf)}
        assert "{c1}" in oracle
    else:
        oracle = _aux_keys((tmp_path / "main.aux").read_text(errors="replace"))
        assert {"c1", "d1"} <= oracle and ("e1f1" in oracle) is (package != "cite")
    if not included:
        assert {c.key for c in parse_latex(main, text).citations} == oracle
    assert differential.latex_ours(tmp_path) == oracle


#: conditionals whose test TeX decides from what is written: \\ifcase and \\ifodd of a
#: number, \\if and \\ifx of two letters or digits (a space after a character is a token
#: of its own), \\unless before a test
LITERAL_TESTS = r"""
\ifcase 1 \cite{cz0}\or \cite{cz1}\or \cite{cz2}\else \cite{cze}\fi
\ifcase 0 \cite{co0}\or \cite{co1}\fi
\ifcase 5 \cite{cf0}\or \cite{cf1}\else \cite{cfe}\fi
\ifcase -1 \cite{cn0}\else \cite{cne}\fi
\ifcase2\cite{ct0}\or\ifcase 1 \cite{ci0}\or \cite{ci1}\fi\or\cite{ct2}\or\cite{ct3}\fi
\if01 \cite{i01}\else \cite{i01e}\fi
\if00 \cite{i00}\else \cite{i00e}\fi
\if ab \cite{iab}\else \cite{iabe}\fi
\ifx ab \cite{xab}\else \cite{xabe}\fi
\ifx aa \cite{xaa}\else \cite{xaae}\fi
\ifx a a \cite{xasa}\else \cite{xasae}\fi
\ifodd 3 \cite{o3}\else \cite{o3e}\fi
\ifodd 2 \cite{o2}\else \cite{o2e}\fi
\unless\iffalse \cite{uf}\else \cite{ufe}\fi
\unless\ifnum 1<2 \cite{un}\else \cite{une}\fi
\iffalse \ifcase 1 \or \cite{hidden}\fi \cite{hidden2}\else \cite{shown}\fi
"""


def test_conditionals_tex_decides_from_their_text_cite_what_pdflatex_records(
    tmp_path: Path,
) -> None:
    text = "\\documentclass{article}\n\\begin{document}\n" + LITERAL_TESTS + "\\end{document}\n"
    main = tmp_path / "main.tex"
    main.write_text(text, encoding="utf-8")
    differential._run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    oracle = _aux_keys((tmp_path / "main.aux").read_text(errors="replace"))
    assert {"cz1", "co0", "cfe", "cne", "ct2", "i01e", "uf", "une", "shown"} <= oracle
    assert {c.key for c in parse_latex(main, text).citations} == oracle


#: etoolbox's toggles and booleans set one way in the project (in the root, read in an
#: included file too): the branch their tests do not take cites nothing
ETOOLBOX_MAIN = r"""\documentclass{article}
\usepackage{etoolbox}
\newtoggle{long}\togglefalse{long}
\newtoggle{arxiv}
\settoggle{arxiv}{true}
\newbool{final}\booltrue{final}
\providetoggle{unset}
\begin{document}
\iftoggle{long}{\cite{longT}}{\cite{longF}}
\nottoggle{long}{\cite{notlongT}}{\cite{notlongF}}
\iftoggle{arxiv} {\cite{arxT}} {\cite{arxF}}
\ifbool{final}{\cite{finT}}{\cite{finF}}
\notbool{final}{\cite{nfinT}}{\cite{nfinF}}
\iftoggle{unset}{\cite{unsetT}}{\cite{unsetF}}
\iffinal \cite{iffinal}\else\cite{iffinalElse}\fi
\input{sec}
\end{document}
"""


def test_etoolbox_toggles_and_booleans_cite_what_pdflatex_records(tmp_path: Path) -> None:
    (tmp_path / "main.tex").write_text(ETOOLBOX_MAIN, encoding="utf-8")
    sec = "\\iftoggle{arxiv}{\\cite{secT}}{\\cite{secF}}\n"
    (tmp_path / "sec.tex").write_text(sec, encoding="utf-8")
    differential._run(["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"], tmp_path)
    oracle = _aux_keys((tmp_path / "main.aux").read_text(errors="replace"))
    assert {"longF", "notlongT", "arxT", "finT", "nfinF", "unsetF", "secT"} <= oracle
    assert differential.latex_ours(tmp_path) == oracle


def test_latex_projects_cite_what_pdflatex_records() -> None:
    tally = differential.run_latex(range(1000, 1040), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_markdown_documents_cite_what_pandoc_reads() -> None:
    tally = differential.run_markdown(range(1000, 1300), budget=BUDGET)
    assert tally.cases >= 50
    assert tally.classes == {}, tally.summary()


def test_refsection_units_leave_undefined_and_unprinted_what_biber_does() -> None:
    tally = differential_units.run_units(range(1000, 1100), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_chapterbib_units_leave_undefined_and_unprinted_what_bibtex_does() -> None:
    tally = differential_units.run_chapterbib(range(1000, 1100), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_bibunits_defaults_across_files_leave_undefined_and_unprinted_what_bibtex_does() -> None:
    tally = differential_units.run_bibunits(range(1000, 1100), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_string_macros_of_earlier_bib_files_hold_as_in_bibtex_and_biber() -> None:
    tally = differential_strings.run_strings(range(1000, 1060), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_crossref_targets_are_missing_where_bibtex_skips_them() -> None:
    tally = differential_crossref.run_crossref(range(1000, 1080), budget=BUDGET)
    assert tally.cases >= 8, "too few cases ran in the time budget"
    assert tally.classes == {}, tally.summary()


def test_the_crossref_generator_puts_targets_before_and_after_their_entries() -> None:
    cases = [differential_crossref.crossref_case(seed) for seed in range(1000, 1040)]
    assert differential_crossref.crossref_case(5) == differential_crossref.crossref_case(5)
    found = {
        differential_crossref._finding(case, child, parent).split()[0]
        + ("-before" if case.places.get(parent, (9, 9)) < case.places[child] else "")
        for case in cases
        for child, parent in (
            (m.group(1), m.group(2))
            for text in case.files.values()
            for m in re.finditer(r"\{(c\d+),[^@]*crossref = \{(\w+)\}", text)
        )
    }
    assert found >= {"nowhereQ", "samefileQ", "samefileQ-before", "otherfileQ", "otherfileQ-before"}
    assert any("\\nocite{*}" in case.files["main.tex"] for case in cases)


def test_the_string_macro_generator_writes_every_construct() -> None:
    cases = [differential_strings.strings_case(seed) for seed in range(1000, 1020)]
    assert differential_strings.strings_case(3) == differential_strings.strings_case(3)
    assert {case.biblatex for case in cases} == {True, False}
    assert any(case.order != sorted(case.order) for case in cases)
    texts = ["\n".join(case.files.values()) for case in cases]
    assert any("note = mnowhere" in text for text in texts)
    # a macro used in a file named before and in one named after the file defining it
    uses = {
        differential_strings._finding(case, f"{name}.bib", macro).split()[0]
        for case in cases
        for name in case.order
        for macro in re.findall(r"note = (\w+)", case.files[f"{name}.bib"])
    }
    assert uses == {"ownQ", "earlierQ", "laterQ", "nowhereQ"}


def test_texlive_bib_files_define_the_keys_biber_reads() -> None:
    # the bibliographies TeX Live installs for use; its packages' documentation holds more
    # (bib2gls glossaries among them), compared by bench/agreement.py
    files = differential.texlive_bib_files(documentation=False)
    assert files, "no .bib file under TeX Live"
    tally, _ = differential.run_bib(files, budget=BUDGET)
    assert tally.cases >= 5
    assert tally.classes == {}, tally.summary()


def test_the_generators_are_seeded_and_reach_every_construct() -> None:
    """Same seed, same document; and the seeds the suite runs write every construct the
    generators know (so a class cannot silently drop out of the comparison)."""
    assert differential.latex_case(7) == differential.latex_case(7)
    assert differential.markdown_case(7) == differential.markdown_case(7)
    latex = {
        differential.key_class(k)
        for seed in range(1000, 1040)
        for text in differential.latex_case(seed).files.values()
        for k in differential.GENERATED_KEY.findall(text)
    }
    assert {"wraptwo", "let", "xparse", "ifdraft", "noarg", "string", "multi", "braced"} <= latex
    assert {"usedbefore", "laterdef", "subdefined"} <= latex
    markdown = {
        differential.key_class(k)
        for seed in range(1000, 1300)
        for k in differential.GENERATED_KEY.findall(differential.markdown_case(seed).text)
    }
    assert {"footnote", "math", "htmlattr", "rawtex", "atat", "yamlescaped"} <= markdown
    assert differential_units.units_case(7) == differential_units.units_case(7)
    units = [
        "\n".join(differential_units.units_case(seed).files.values()) for seed in range(1000, 1030)
    ]
    for construct in (
        "\\addglobalbib",
        "\\nocite{*}",
        "unitQ0",
        "\\begin{refsection}[b",
        "\\newrefsection[b",
        "\\newrefsection\n",
        "\\endrefsection",
        "\\input{part",
        "\\input{sec",
        "\\include{sec",
        "\\input{end",
        "\\include{end",
        "refsection=chapter",
        "refsection=part",
        "refsection=section+",
        "\\ExecuteBibliographyOptions{refsection=",
        "\\part{",
        "\\part*{",
        "\\chapter*{",
        "\\section{",
        "\\subsection{",
    ):
        assert any(construct in text for text in units), construct
    assert differential_units.chapterbib_case(7) == differential_units.chapterbib_case(7)
    chapters = [
        "\n".join(differential_units.chapterbib_case(seed).files.values())
        for seed in range(1000, 1010)
    ]
    for construct in ("\\nocite{*}", "chapQ0", "\\input{sub", "\\include{ch2}"):
        assert any(construct in text for text in chapters), construct
    roots = [differential_units.chapterbib_case(s).files["main.tex"] for s in range(1000, 1010)]
    assert any(r.index("\\bibliography") < r.index("\\include") for r in roots if "\\bibl" in r)
    assert any(r.index("\\bibliography") > r.index("\\include") for r in roots if "\\bibl" in r)
    assert any("\\bibliography" not in r for r in roots)
    assert differential_units.bibunits_case(7) == differential_units.bibunits_case(7)
    projects = [differential_units.bibunits_case(seed).files for seed in range(1000, 1010)]
    texts = ["\n".join(files.values()) for files in projects]
    for construct in (
        "\\putbib[",
        "\\putbib\n",
        "buQ0",
        "\\include{ch",
        "\\input{ch",
        "\\input{pre}",
    ):
        assert any(construct in text for text in texts), construct
    # a chapter's default, and one set in the preamble
    assert any("\\defaultbibliography{" in f.get("ch1.tex", "") for f in projects)
    assert any(
        f["main.tex"].index("\\defaultbibliography{") < f["main.tex"].index("\\begin{document}")
        for f in projects
        if "\\defaultbibliography{" in f["main.tex"]
    )
