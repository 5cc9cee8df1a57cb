"""clients/vscode in real VS Code (code-server + chromium): "Add entry" on a dangling key.

The extension's self-test opens main.tex, waits for the dangling-citation diagnostic of a
DBLP-style key, applies the "Add entry: ..." quick fix through VS Code's own code action and
edit machinery, saves, and the browser keeps screenshots of the squiggle, the quick fix
menu with the action and the editor afterwards (artifacts/editors/vscode-add-reference/).
The server searches the replay of real recorded dblp and Crossref responses
(tests/data/addref/api).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from editor_env import ARTIFACTS, REPO
from test_vscode_e2e import USER_SETTINGS, drive, run_code_server, vsix

import replay as replay_fixtures
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.verify.config import URL_ENV
from replay import ReplayServer

pytestmark = pytest.mark.editor

replay_server = replay_fixtures.replay_server
__all__ = ["vsix"]  # the packaged extension (module fixture of test_vscode_e2e)

ADDREF_API = REPO / "tests" / "data" / "addref" / "api"
SHOTS = ARTIFACTS / "vscode-add-reference"
KEY = "DBLP:journals/nn/Hornik91"
DOI = "10.1016/0893-6080(91)90009-t"
MAIN = (
    "\\documentclass{article}\n\\begin{document}\n"
    f"Feedforward networks are universal approximators \\cite{{{KEY}}}.\n"
    "\\bibliography{refs}\n\\end{document}\n"
)
BIB = (
    "@article{berman2000,\n  author = {Berman, H. M.},\n  title = {The Protein Data Bank},\n"
    "  year = {2000},\n  doi = {10.1093/nar/28.1.235},\n}\n"
)


@pytest.fixture(scope="module")
def session(
    vsix: Path, tmp_path_factory: pytest.TempPathFactory, replay_server: ReplayServer
) -> Iterator[dict[str, Any]]:
    replay_server.load(ADDREF_API)
    replay_server.clear()
    tmp_path = tmp_path_factory.mktemp("vscode-addref")
    project = tmp_path / "paper"
    project.mkdir()
    (project / "main.tex").write_text(MAIN, encoding="utf-8")
    (project / "refs.bib").write_text(BIB, encoding="utf-8")
    settings = dict(USER_SETTINGS)
    settings["citewarden.verify.offline"] = False
    settings["citewarden.verify.sources"] = ["dblp", "crossref"]
    extra = {var: replay_server.base_url(name) for name, var in URL_ENV.items()}
    extra["CITEWARDEN_MAILTO"] = "tests@example.org"
    with run_code_server(vsix, tmp_path, project, settings, extra) as cs:
        spec = {
            "file": "main.tex",
            "code": "dangling-citation",
            "key": KEY,
            "fixPrefix": "Add entry: ",
            "pause": True,
            "saveAll": True,
            "readBack": ["refs.bib"],
            "problemFilters": [KEY],
        }
        result, ui = drive(cs, spec, SHOTS)
        yield {
            "result": result,
            "ui": ui,
            "project": project,
            "unmatched": list(replay_server.unmatched),
        }


def test_add_entry_action_is_offered_applied_and_saved(session: dict[str, Any]) -> None:
    result, ui = session["result"], session["ui"]
    # what the user saw: the squiggle, then the quick fix menu with the action
    assert ui["phases"]["diagnostics"].get("squiggles", 0) >= 1, ui["phases"]["diagnostics"]
    menu = ui["phases"]["quickfix"].get("menu", [])
    assert any(
        row.startswith("Add entry: Hornik 1991, Approximation capabilities") for row in menu
    ), ui["phases"]["quickfix"]
    assert "Add entry from DOI / arXiv id / ISBN..." in result["codeActions"]
    assert result["appliedTitle"].startswith("Add entry: Hornik 1991")
    assert result["applied"] is True and result["savedAll"] is True
    # on disk: the file as it was, and the entry from the DOI's record
    bib = result["readBack"]["refs.bib"]
    assert bib.startswith(BIB)
    assert (session["project"] / "refs.bib").read_text(encoding="utf-8") == bib
    parsed = parse_bibtex(session["project"] / "refs.bib", bib)
    assert not parsed.problems
    entry = next(e for e in parsed.entries if e.key == KEY)
    assert entry.get("doi") == DOI and entry.get("journal") == "Neural Networks"
    # the dangling diagnostic went away in VS Code
    assert not any(
        d["code"] == "dangling-citation" and KEY in d["message"] for d in result["diagnosticsAfter"]
    )
    for shot in ("02_diagnostics.png", "03_quickfix_menu.png", "04_after_fix.png"):
        assert (SHOTS / shot).stat().st_size > 10_000
    assert not session["unmatched"], session["unmatched"]
