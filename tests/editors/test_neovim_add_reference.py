"""clients/neovim in real headless Neovim: "Add entry" on a dangling key, then
``:CitewardenAdd DOI``, against the real server searching the replay of real recorded dblp
and Crossref responses (tests/data/addref/api).  The entries land in refs.bib on disk."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from editor_env import ARTIFACTS, REPO, server_env, version_of
from test_neovim_e2e import NVIMS, PLUGIN, _nvim

import replay as replay_fixtures
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.verify.config import URL_ENV
from replay import ReplayServer

pytestmark = pytest.mark.editor

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

HARNESS = Path(__file__).parent / "nvim_addref.lua"
ADDREF_API = REPO / "tests" / "data" / "addref" / "api"
MAIN = "\\documentclass{article}\n\\begin{document}\nContinuous mappings \\cite{Funahashi:1989}.\n\\bibliography{refs}\n\\end{document}\n"
BIB = "@article{berman2000,\n  author = {Berman, H. M.},\n  title = {The Protein Data Bank},\n  year = {2000},\n  doi = {10.1093/nar/28.1.235},\n}\n"


@pytest.mark.parametrize(("nvim", "version", "mode", "fix"), NVIMS[:2])
def test_add_entry_and_citewarden_add_in_neovim(
    nvim: Path, version: str, mode: str, fix: str, tmp_path: Path, replay: ReplayServer
) -> None:
    nvim = _nvim(nvim, version, fix)
    replay.load(ADDREF_API)
    project = tmp_path / "paper"
    project.mkdir()
    (project / ".git").mkdir()  # the project root marker
    (project / "main.tex").write_text(MAIN, encoding="utf-8")
    (project / "refs.bib").write_text(BIB, encoding="utf-8")
    out = tmp_path / "nvim-addref.json"
    env = server_env(tmp_path)
    env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
    env.update(
        CITEWARDEN_MAILTO="tests@example.org",
        CITEWARDEN_NVIM_PLUGIN=str(PLUGIN),
        CITEWARDEN_E2E_KEY="Funahashi:1989",
        CITEWARDEN_E2E_ID="10.21105/joss.01450",
        CITEWARDEN_E2E_OUT=str(out),
    )
    proc = subprocess.run(
        [str(nvim), "--headless", "-u", str(HARNESS), "main.tex"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads(out.read_text()) if out.exists() else {}
    label = version_of(nvim).removeprefix("NVIM ").replace(" ", "_")
    keep = ARTIFACTS / f"neovim-{label}-add-reference.json"
    keep.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out, keep) if out.exists() else keep.write_text(proc.stderr)
    assert proc.returncode == 0 and result.get("ok"), (result.get("error"), proc.stderr[-2000:])
    assert result["chosen"].startswith("Add entry: Funahashi 1989, On the approximate realization")
    assert "Add entry from DOI / arXiv id / ISBN..." in result["offered"]
    text = (project / "refs.bib").read_text(encoding="utf-8")
    assert text.startswith(BIB)
    parsed = parse_bibtex(project / "refs.bib", text)
    assert not parsed.problems
    keys = {e.key: e for e in parsed.entries}
    assert keys["Funahashi:1989"].get("doi") == "10.1016/0893-6080(89)90003-8"
    assert keys["sullivan2019pyvista"].get("doi") == "10.21105/joss.01450"
    assert any("citewarden: added sullivan2019pyvista" in m for m in result["messages"])
    assert not replay.unmatched
