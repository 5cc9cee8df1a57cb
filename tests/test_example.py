"""The bundled example project, checked by the real command offline against its snapshot.

Expectations are read from the example files (entry and field positions, the snapshot's
records) and from examples/PROVENANCE.md's list of deliberate mistakes, not hard-coded
line numbers.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from cli_process import run_citewarden

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
BIB = Path("examples/latex-paper/refs.bib")
METHODS = Path("examples/latex-paper/sections/methods.tex")
PAPERS = ["examples/latex-paper/main.tex", "examples/markdown-paper/paper.md"]

DANGLING, INTENDED = "nelder_simplex_1956", "nelder_simplex_1965"
ORPHAN = "kraft_software_1988"
DUPLICATE = "byrd_limited_1995"
VALID = ("cybenko_approximation_1989", "stinchcombe_neural_1999")
NO_DOI = "funahashi_approximate_1989"
PAGES_SWAP = "hornik_approximation_1991"
OTHER_DOI = "sullivan_pyvista_2019"
FABRICATED = "okafor_curvature_2017"
#: Real references of the example whose records are not in the snapshot.
NO_RECORD = (INTENDED, DUPLICATE, ORPHAN)


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_citewarden(args, cwd, env={"CITEWARDEN_CACHE_DIR": str(cwd / "cache")}, timeout=300)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("example")
    shutil.copytree(EXAMPLES, root / "examples")
    return root


def check(project: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return run(
        ["check", *PAPERS, "--snapshot", "examples/snapshot.jsonl", "--offline", *extra],
        project,
    )


@pytest.fixture(scope="module")
def report(project: Path) -> dict[str, Any]:
    result = check(project, "--format", "json")
    assert result.returncode == 1, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture(scope="module")
def text(project: Path) -> subprocess.CompletedProcess[str]:
    result = check(project)
    assert result.returncode == 1, result.stderr
    return result


def bib_text(project: Path) -> str:
    return (project / BIB).read_text(encoding="utf-8")


def entry_lines(text: str, key: str) -> list[int]:
    """1-based lines where ``@type{key,`` starts an entry."""
    pattern = re.compile(r"^@\w+\{" + re.escape(key) + r",", re.MULTILINE)
    return [text.count("\n", 0, m.start()) + 1 for m in pattern.finditer(text)]


def field_line(text: str, key: str, name: str) -> int:
    """1-based line of field ``name`` inside entry ``key``."""
    start = entry_lines(text, key)[0]
    lines = text.splitlines()
    for number in range(start, len(lines) + 1):
        if re.match(rf"\s*{name}\s*=", lines[number - 1]):
            return number
        if number > start and lines[number - 1].startswith("@"):
            break
    raise AssertionError(f"no {name} field in {key}")


def bib_field(text: str, key: str, name: str) -> str:
    line = text.splitlines()[field_line(text, key, name) - 1]
    m = re.search(r"=\s*\{(.*)\},?\s*$", line)
    assert m, line
    return m.group(1)


def snapshot_records(project: Path) -> list[dict[str, Any]]:
    path = project / "examples" / "snapshot.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def record_by_doi(project: Path, doi: str) -> dict[str, Any]:
    return next(r for r in snapshot_records(project) if r["DOI"].lower() == doi.lower())


def record_by_title(project: Path, prefix: str) -> dict[str, Any]:
    return next(r for r in snapshot_records(project) if r["title"][0].startswith(prefix))


def entries(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The report's row of each key's first entry (the one BibTeX and biber read)."""
    out: dict[str, dict[str, Any]] = {}
    for e in report["entries"]:
        out.setdefault(e["key"], e)
    return out


def codes(entry: dict[str, Any]) -> set[str]:
    return {f["code"] for f in entry["findings"]}


def diagnostics(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [d for d in report["diagnostics"] if d["code"] == code]


# --------------------------------------------------------------------------------------
# the citation index: dangling, orphan, duplicate
# --------------------------------------------------------------------------------------


def test_dangling_orphan_and_duplicate(report: dict[str, Any], project: Path) -> None:
    methods = (project / METHODS).read_text(encoding="utf-8")
    offset = methods.index(DANGLING)
    line = methods.count("\n", 0, offset) + 1
    column = offset - methods.rfind("\n", 0, offset)
    bib = bib_text(project)
    first, second = entry_lines(bib, DUPLICATE)
    citations = report["citations"]
    assert [(d["key"], d["file"], d["line"], d["column"]) for d in citations["dangling"]] == [
        (DANGLING, str(METHODS), line, column)
    ]
    assert citations["dangling"][0]["suggestions"][0] == INTENDED
    assert [(o["key"], o["line"]) for o in citations["orphans"]] == [
        (ORPHAN, entry_lines(bib, ORPHAN)[0])
    ]
    assert [d["line"] for d in diagnostics(report, "duplicate-key")] == [second]
    assert (
        f"first defined at refs.bib:{first}" in diagnostics(report, "duplicate-key")[0]["message"]
    )


# --------------------------------------------------------------------------------------
# verification against the snapshot
# --------------------------------------------------------------------------------------


def test_every_entry_has_a_verdict_on_its_own_line(report: dict[str, Any], project: Path) -> None:
    """One row per entry, a key defined twice (byrd_limited_1995) on each of its lines."""
    bib = bib_text(project)
    keys = re.findall(r"^@\w+\{([^,]+),", bib, re.MULTILINE)
    assert [e["key"] for e in report["entries"]] == keys
    assert len(keys) > len(set(keys))
    seen: dict[str, int] = {}
    for entry in report["entries"]:
        key = entry["key"]
        assert entry["file"] == str(BIB)
        assert entry["line"] == entry_lines(bib, key)[seen.get(key, 0)]
        seen[key] = seen.get(key, 0) + 1


def test_valid_references_are_verified(report: dict[str, Any], project: Path) -> None:
    bib = bib_text(project)
    for key in VALID:
        entry = entries(report)[key]
        assert (entry["status"], entry["tier"], entry["corrections"]) == ("verified", "D", {})
        assert entry["match"]["source"] == "snapshot"
        assert entry["match"]["doi"] == bib_field(bib, key, "doi").lower()
        assert entry["findings"] == []


def test_entry_without_its_doi_is_verified_and_the_doi_suggested(
    report: dict[str, Any], project: Path
) -> None:
    bib = bib_text(project)
    title = bib_field(bib, NO_DOI, "title")
    record = record_by_title(project, title.split()[0])
    assert record["title"][0].lower() == title.lower()
    entry = entries(report)[NO_DOI]
    assert (entry["status"], entry["tier"]) == ("verified", "D")
    assert entry["corrections"] == {"doi": record["DOI"]}
    assert codes(entry) == {"missing-doi"}


def test_pages_digit_swap_is_a_mismatch_with_its_correction(
    report: dict[str, Any], project: Path
) -> None:
    bib = bib_text(project)
    record = record_by_doi(project, bib_field(bib, PAGES_SWAP, "doi"))
    right = record["page"].replace("-", "--")
    written = bib_field(bib, PAGES_SWAP, "pages")
    assert written != right and sorted(written) == sorted(right)  # the same digits
    entry = entries(report)[PAGES_SWAP]
    assert (entry["status"], entry["tier"]) == ("mismatch", "M")
    assert entry["corrections"] == {"pages": right}
    [finding] = entry["findings"]
    assert (finding["code"], finding["field"]) == ("pages-mismatch", "pages")
    assert "digit swap" in finding["message"]
    [diag] = [d for d in diagnostics(report, "pages-mismatch") if d["file"] == str(BIB)]
    assert diag["line"] == field_line(bib, PAGES_SWAP, "pages")


def test_doi_of_another_work_is_found_and_the_right_doi_offered(
    report: dict[str, Any], project: Path
) -> None:
    bib = bib_text(project)
    borrowed = bib_field(bib, OTHER_DOI, "doi")
    owner = record_by_doi(project, borrowed)
    real = record_by_title(project, "PyVista")
    assert bib_field(bib, OTHER_DOI, "title").startswith("{PyVista}")
    entry = entries(report)[OTHER_DOI]
    assert (entry["status"], entry["tier"]) == ("mismatch", "E")
    assert entry["corrections"] == {"doi": real["DOI"]}
    assert entry["match"]["doi"] == real["DOI"]
    [finding] = [f for f in entry["findings"] if f["code"] == "doi-other-work"]
    assert finding["field"] == "doi"
    assert owner["title"][0] in finding["message"]
    lines = [d["line"] for d in diagnostics(report, "doi-other-work")]
    assert field_line(bib, OTHER_DOI, "doi") in lines


def test_fabricated_reference_is_high_risk_and_never_corrected(
    report: dict[str, Any], project: Path
) -> None:
    bib = bib_text(project)
    title = bib_field(bib, FABRICATED, "title").lower()
    assert all(r["title"][0].lower() != title for r in snapshot_records(project))
    entry = entries(report)[FABRICATED]
    assert entry["tier"] == "H"
    assert entry["status"] in {"not_found", "mismatch"}
    assert entry["status"] != "verified" and entry["match"] is None
    assert entry["corrections"] == {}
    flagged = {f["code"] for f in entry["findings"] if f["severity"] in {"error", "warning"}}
    assert flagged & {"reference-not-found", "doi-other-work", "doi-not-found"}
    lines = [d["line"] for d in diagnostics(report, "doi-other-work")]
    assert field_line(bib, FABRICATED, "doi") in lines


def test_references_without_records_are_unverified_not_fabricated(
    report: dict[str, Any],
) -> None:
    for key in NO_RECORD:
        entry = entries(report)[key]
        assert (entry["status"], entry["tier"], entry["match"]) == ("unverified", "D", None)
        assert codes(entry) == {"unverified"}
        assert "offline" in entry["findings"][0]["message"]


def test_score_and_tiers(report: dict[str, Any]) -> None:
    tiers = {t: 0 for t in "HEMD"}
    left_out = 0
    for entry in report["entries"]:
        if entry["status"] in ("skipped", "unverified"):  # no source answered: not counted
            left_out += 1
        else:
            tiers[entry["tier"]] += 1
    assert left_out > 0
    counted = len(report["entries"]) - left_out
    assert report["tiers"] == tiers == {"H": 1, "E": 1, "M": 1, "D": counted - 3}
    assert report["score"] == 100 - 12 * tiers["H"] - 5 * tiers["E"] - 2 * tiers["M"]
    assert report["summary"]["counted"] == counted


def test_text_output_shows_the_verdicts(text: subprocess.CompletedProcess[str]) -> None:
    out, err = text.stdout, text.stderr
    assert f"{BIB}:" in out and " error doi-other-work " in out
    # severities follow the severity scale, as in the editor: a page difference is a
    # warning (tier M), a DOI of another work an error even in a tier-E entry
    assert " warning pages-mismatch " in out and " hint missing-doi " in out
    assert " info " not in out
    assert re.search(r"references: score 81, tiers H1 E1 M1 D\d+", err), err
    at_risk = [line.split()[:3] for line in err.splitlines() if line.startswith("  ")]
    assert at_risk[:3] == [
        ["H", FABRICATED, "mismatch"],
        ["E", OTHER_DOI, "mismatch"],
        ["M", PAGES_SWAP, "mismatch"],
    ]


# --------------------------------------------------------------------------------------
# the snapshot itself
# --------------------------------------------------------------------------------------


def _builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_snapshot", EXAMPLES / "build_snapshot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_snapshot_is_regenerated_identically_from_recorded_responses() -> None:
    built, unmatched = _builder().build()
    assert built == (EXAMPLES / "snapshot.jsonl").read_text(encoding="utf-8")
    assert sorted(unmatched) == sorted(NO_RECORD)


def test_snapshot_records_are_unaltered_recordings() -> None:
    builder = _builder()
    recorded = {json.dumps(w, sort_keys=True) for w in builder.recorded_works()}
    lines = (EXAMPLES / "snapshot.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        assert json.dumps(json.loads(line), sort_keys=True) in recorded
