"""Citation commands a biblatex style declares (``\\headlesscite`` of biblatex-chicago,
``\\citefilm`` of biblatex-fiwi): read from the style's .cbx, found as LaTeX finds it,
and compared with what pdflatex writes to the .bcf."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from checking import check
from citewarden.citation_styles import (
    MAX_STYLE_BYTES,
    find_style_file,
    style_commands,
    style_shape,
)
from citewarden.model import Code
from citewarden.parsing.cite_styles import (
    loaded_style_files,
    read_style_commands,
    style_file_names,
)
from citewarden.project import Workspace
from differential import LatexCase, latex_oracle, latex_ours, missing_tools

# ---------------------------------------------------------------------------------------
# reading a style file
# ---------------------------------------------------------------------------------------


def test_a_style_file_declares_its_commands_and_the_styles_it_loads() -> None:
    text = r"""\ProvidesFile{film.cbx}
\RequireCitationStyle{verbose}
% \DeclareCiteCommand{\commentedcite}{}{}{}{}
\DeclareCiteCommand{\filmcite}[\mkbibparens]{\usebibmacro{prenote}}{x}{}{}
\DeclareCiteCommand*{\filmcite}{}{x}{}{}
\DeclareMultiCiteCommand{\filmcites}{\filmcite}{\multicitedelim}
\DeclareCiteCommand{\cite}{}{x}{}{}
\DeclareCiteCommand{\cbx@inner}{}{x}{}{}
\RequirePackage[style=authoryear,citestyle=chicago-notes]{biblatex}
"""
    found = read_style_commands(text)
    assert [(m.name, m.like) for m in found.macros] == [
        ("filmcite", "cite"),
        ("filmcites", "cites"),
    ]
    assert found.requires == ("verbose.cbx", "chicago-notes.cbx")


def test_the_files_a_usepackage_loads() -> None:
    assert style_file_names("backend=biber, style = verbose-trad1,citestyle=fiwi") == ("fiwi.cbx",)
    assert style_file_names("citestyle=fiwi, style = verbose-trad1") == ("verbose-trad1.cbx",)
    assert style_file_names("backend=biber,bibstyle=authoryear") == ()
    assert loaded_style_files("style=apa", frozenset({"biblatex"})) == ("apa.cbx",)
    assert loaded_style_files("notes", frozenset({"biblatex-chicago"})) == ("biblatex-chicago.sty",)
    assert loaded_style_files("style=apa", frozenset({"natbib"})) == ()


def test_style_files_are_found_in_the_folders_first_and_bounded(tmp_path: Path) -> None:
    (tmp_path / "near.cbx").write_text("\\DeclareCiteCommand{\\nearcite}{}{}{}{}\n")
    assert find_style_file("near.cbx", [tmp_path]) == tmp_path / "near.cbx"
    assert find_style_file("../near.cbx", [tmp_path]) is None
    assert find_style_file("-near.cbx", [tmp_path]) is None
    big = tmp_path / "big.cbx"
    big.write_text("\\DeclareCiteCommand{\\bigcite}{}{}{}{}\n" + " " * MAX_STYLE_BYTES)
    assert [m.name for m in style_commands(["near.cbx", "big.cbx"], [tmp_path])] == ["nearcite"]
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "pipe.cbx")
        assert style_commands(["pipe.cbx"], [tmp_path]) == ()


def test_a_loop_of_styles_ends(tmp_path: Path) -> None:
    (tmp_path / "a.cbx").write_text("\\RequireCitationStyle{b}\\DeclareCiteCommand{\\acite}{}\n")
    (tmp_path / "b.cbx").write_text("\\RequireCitationStyle{a}\\DeclareCiteCommand{\\bcite}{}\n")
    assert [m.name for m in style_commands(["a.cbx"], [tmp_path])] == ["acite", "bcite"]


# ---------------------------------------------------------------------------------------
# a project with a style of its own, and pdflatex as the oracle
# ---------------------------------------------------------------------------------------

#: a citation style of the project's own: a command of its own, a multicite one, and its
#: parent, a style of TeX's trees (numeric)
_FILM_CBX = r"""\ProvidesFile{film.cbx}
\RequireCitationStyle{numeric}
\DeclareCiteCommand{\filmcite}
  {\usebibmacro{prenote}}
  {\usebibmacro{citeindex}\printfield{title}}
  {\multicitedelim}
  {\usebibmacro{postnote}}
\DeclareMultiCiteCommand{\filmcites}{\filmcite}{\multicitedelim}
"""

_BIB = "".join(
    f"@misc{{{key}, title = {{Title {key}}}, author = {{A. Author}}, year = {{2001}}}}\n"
    for key in ("alpha", "beta", "gamma", "delta", "unused")
)


def _film_project(directory: Path, citestyle: str = "film") -> Path:
    (directory / "film.cbx").write_text(_FILM_CBX, encoding="utf-8")
    (directory / "refs.bib").write_text(_BIB, encoding="utf-8")
    main = directory / "main.tex"
    main.write_text(
        "\\documentclass{article}\n"
        f"\\usepackage[bibstyle=numeric,citestyle={citestyle},backend=biber]{{biblatex}}\n"
        "\\addbibresource{refs.bib}\n"
        "\\begin{document}\n"
        "\\filmcite[see][12]{alpha} and \\filmcites{beta}[3]{gamma}.\n"
        "\\input{chapter}\n"
        "\\printbibliography\n"
        "\\end{document}\n",
        encoding="utf-8",
    )
    (directory / "chapter.tex").write_text("Later \\filmcite{delta, nosuch}.\n", encoding="utf-8")
    return main


def _findings(ws: Workspace) -> dict[Code, set[str]]:
    found: dict[Code, set[str]] = {}
    for findings in check(ws).values():
        for f in findings:
            found.setdefault(f.code, set()).add(str(f.data.get("key", "")))
    return found


def test_a_command_of_the_projects_style_cites(tmp_path: Path) -> None:
    main = _film_project(tmp_path)
    ws = Workspace(root=tmp_path)
    ws.add_file(main)
    found = _findings(ws)
    assert found.get(Code.DANGLING) == {"nosuch"}
    assert found.get(Code.ORPHAN) == {"unused"}


def test_the_projects_style_agrees_with_pdflatex(tmp_path: Path) -> None:
    missing = missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    _film_project(tmp_path)
    case = LatexCase(seed=0, biblatex=True, files={})
    oracle = latex_oracle(case, tmp_path)
    assert oracle == {"alpha", "beta", "gamma", "delta", "nosuch"}
    assert latex_ours(tmp_path) == oracle


def test_changing_the_style_in_the_editor_reads_its_commands(tmp_path: Path) -> None:
    main = _film_project(tmp_path, citestyle="numeric")
    ws = Workspace(root=tmp_path)
    ws.add_file(main)
    assert _findings(ws).get(Code.DANGLING) is None  # \filmcite is no citation command
    text = main.read_text()
    ws.set_text(main, text.replace("citestyle=numeric", "citestyle=film"))
    assert _findings(ws).get(Code.DANGLING) == {"nosuch"}
    ws.set_text(main, text)
    assert _findings(ws).get(Code.DANGLING) is None


# ---------------------------------------------------------------------------------------
# styles of TeX's trees
# ---------------------------------------------------------------------------------------

_TREE_STYLES = {
    # biblatex-fiwi, a style of biblatex
    "fiwi": (
        "\\usepackage[style=fiwi,backend=biber]{biblatex}",
        "\\citefilm{alpha} \\citefullfilm{beta} \\inparencite{gamma} "
        "\\citeepisode{delta} \\citefilm{nosuch}",
    ),
}


@pytest.mark.parametrize("style", sorted(_TREE_STYLES))
def test_commands_of_styles_in_texs_trees_agree_with_pdflatex(tmp_path: Path, style: str) -> None:
    missing = missing_tools() + [t for t in ("kpsewhich",) if shutil.which(t) is None]
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    package, body = _TREE_STYLES[style]
    (tmp_path / "refs.bib").write_text(_BIB, encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n{package}\n\\addbibresource{{refs.bib}}\n"
        f"\\begin{{document}}\n{body}\n\\end{{document}}\n",
        encoding="utf-8",
    )
    oracle = latex_oracle(LatexCase(seed=0, biblatex=True, files={}), tmp_path)
    assert oracle == {"alpha", "beta", "gamma", "delta", "nosuch"}
    assert latex_ours(tmp_path) == oracle


def test_a_package_built_on_biblatex_passes_on_its_styles_commands(tmp_path: Path) -> None:
    """biblatex-chicago loads biblatex with its chicago-notes style, whose .cbx declares
    ``\\headlesscite`` and others (pdflatex is not the oracle here: biblatex-chicago needs
    packages of TeX Live beyond those the tests install)."""
    if shutil.which("kpsewhich") is None or find_style_file("chicago-notes.cbx", []) is None:
        pytest.fail("real tools missing: kpsewhich, biblatex-chicago", pytrace=False)
    (tmp_path / "refs.bib").write_text(_BIB, encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\n\\usepackage[notes,backend=biber]{biblatex-chicago}\n"
        "\\addbibresource{refs.bib}\n\\begin{document}\n"
        "\\headlesscite{alpha} \\runcite{beta} \\headlessfullcite{gamma} "
        "\\surnamecites{delta}{nosuch}\n\\end{document}\n",
        encoding="utf-8",
    )
    assert latex_ours(tmp_path) == {"alpha", "beta", "gamma", "delta", "nosuch"}


def test_a_style_shapes_the_project_only_by_the_commands_it_declares(tmp_path: Path) -> None:
    """Naming biblatex's numeric style (which declares no command of its own) keeps the
    project as it is, where a style declaring commands, or one not found, may change it."""
    (tmp_path / "film.cbx").write_text(_FILM_CBX, encoding="utf-8")
    if shutil.which("kpsewhich") is None:
        pytest.fail("real tools missing: kpsewhich", pytrace=False)
    assert style_shape([], tmp_path) == ()
    assert style_shape(["numeric.cbx"], tmp_path) == ()
    assert style_shape(["film.cbx"], tmp_path) == ("filmcite", "filmcites")
    assert style_shape(["citewardennosuch.cbx"], tmp_path) == ("?citewardennosuch.cbx",)


def test_the_options_are_read_as_tex_reads_them() -> None:
    """A ``%`` comment ends an option line (and TeX skips the next line's leading spaces);
    a value may be braced; an escaped ``\\%`` is no comment."""
    assert style_file_names("backend=biber,%\n  style=film") == ("film.cbx",)
    assert style_file_names("%\n style=film,% the style\n") == ("film.cbx",)
    assert style_file_names("style={film}, citestyle = { fiwi }") == ("fiwi.cbx",)
    assert style_file_names("style=film% citestyle=fiwi\n") == ("film.cbx",)


def test_comments_in_a_style_file_hide_declarations_on_their_line_only() -> None:
    text = (
        "x % \\DeclareCiteCommand{\\incomment}{}{}{}{}\n"
        "\\DeclareCiteCommand{\\after}{}{}{}{}\n"
        "50\\% \\DeclareCiteCommand{\\escaped}{}{}{}{}\n"
        "\\\\% \\DeclareCiteCommand{\\afterbreak}{}{}{}{}\n"
    )
    assert [m.name for m in read_style_commands(text).macros] == ["after", "escaped"]


def test_a_commented_option_list_agrees_with_pdflatex(tmp_path: Path) -> None:
    missing = missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    main = _film_project(tmp_path)
    text = main.read_text(encoding="utf-8")
    main.write_text(
        text.replace(
            "[bibstyle=numeric,citestyle=film,", "[bibstyle=numeric,%\n  citestyle={film},%\n"
        ),
        encoding="utf-8",
    )
    oracle = latex_oracle(LatexCase(seed=0, biblatex=True, files={}), tmp_path)
    assert oracle == {"alpha", "beta", "gamma", "delta", "nosuch"}
    assert latex_ours(tmp_path) == oracle


def test_a_style_file_changed_on_disk_is_read_again(tmp_path: Path) -> None:
    """Nothing tells the editor of a style file changed outside the workspace: each check
    looks whether the files it read are still those, unchanged."""
    main = _film_project(tmp_path)
    cbx = tmp_path / "film.cbx"
    cbx.write_text("\\RequireCitationStyle{numeric}\n", encoding="utf-8")
    ws = Workspace(root=tmp_path)
    ws.add_file(main)
    assert _findings(ws).get(Code.DANGLING) is None
    cbx.write_text(_FILM_CBX, encoding="utf-8")
    os.utime(cbx, ns=(cbx.stat().st_atime_ns, cbx.stat().st_mtime_ns + 10**9))
    assert _findings(ws).get(Code.DANGLING) == {"nosuch"}
    cbx.unlink()
    assert _findings(ws).get(Code.DANGLING) is None


@pytest.mark.parametrize(
    ("options", "cites"),
    [("bibstyle=numeric,citestyle=film", True), ("citestyle=film,style=numeric", False)],
)
def test_the_last_style_option_names_the_citation_style(
    tmp_path: Path, options: str, cites: bool
) -> None:
    """biblatex reads ``style=`` and ``citestyle=`` in order and loads the .cbx of the last
    one: after ``citestyle=film,style=numeric`` there is no ``\\filmcite`` (LaTeX stops on
    it as an undefined command, and cites nothing)."""
    missing = missing_tools()
    if missing:
        pytest.fail(f"real tools missing: {', '.join(missing)}", pytrace=False)
    main = _film_project(tmp_path)
    text = main.read_text(encoding="utf-8")
    main.write_text(text.replace("bibstyle=numeric,citestyle=film", options), encoding="utf-8")
    oracle = latex_oracle(LatexCase(seed=0, biblatex=True, files={}), tmp_path)
    assert bool(oracle) is cites
    assert latex_ours(tmp_path) == oracle
