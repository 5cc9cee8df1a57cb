"""A CSL-JSON or CSL-YAML bibliography is verified as a .bib is: the command line gives its
entries the same verdicts as the same references written in BibTeX (the editor always
verified them), and a CSL item type counts as the BibTeX type of the same kind of work."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from citewarden.parsing.csl import BIBTEX_TYPES, parse_csl_json
from citewarden.report.references import csl_item
from citewarden.settings import VerifySettings
from citewarden.verify.engine import skip_reason
from citewarden.verify.normalize import normalize_entry
from paths import ROOT

SNAPSHOT = ROOT / "examples" / "snapshot.jsonl"
OFFLINE = ("--format", "json", "--snapshot", str(SNAPSHOT), "--offline")

#: Two references of the example (examples/latex-paper/refs.bib): a real one, and the
#: fabricated one whose DOI belongs to another work; then a book without a DOI.
ITEMS: list[dict[str, Any]] = [
    {
        "id": "cybenko1989",
        "type": "article-journal",
        "title": "Approximation by Superpositions of a Sigmoidal Function",
        "author": [{"family": "Cybenko", "given": "George"}],
        "container-title": "Mathematics of Control, Signals and Systems",
        "volume": "2",
        "issue": "4",
        "page": "303-314",
        "issued": {"date-parts": [[1989]]},
        "DOI": "10.1007/BF02551274",
    },
    {
        "id": "okafor2017",
        "type": "article-journal",
        "title": "Curvature-Aware Step Sizes for Training Shallow Sigmoidal Networks",
        "author": [
            {"family": "Okafor", "given": "Adaeze"},
            {"family": "Lindqvist", "given": "Tor"},
        ],
        "container-title": "Nature Communications",
        "volume": "8",
        "page": "1121",
        "issued": {"date-parts": [[2017]]},
        "DOI": "10.1038/s41467-021-22732-w",
    },
]

BIBTEX = """\
@article{cybenko1989,
  title = {Approximation by Superpositions of a Sigmoidal Function},
  author = {Cybenko, George},
  journal = {Mathematics of Control, Signals and Systems},
  volume = {2}, number = {4}, pages = {303-314}, year = {1989},
  doi = {10.1007/BF02551274}
}
@article{okafor2017,
  title = {Curvature-Aware Step Sizes for Training Shallow Sigmoidal Networks},
  author = {Okafor, Adaeze and Lindqvist, Tor},
  journal = {Nature Communications},
  volume = {8}, pages = {1121}, year = {2017},
  doi = {10.1038/s41467-021-22732-w}
}
"""


def _check(project: Path, *paths: str) -> dict[str, Any]:
    env = {**os.environ, "CITEWARDEN_CACHE_DIR": str(project / ".cache")}
    done = subprocess.run(
        [sys.executable, "-m", "citewarden", "check", *paths, *OFFLINE],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _verdicts(report: dict[str, Any]) -> dict[str, tuple[str, str, list[str]]]:
    return {
        e["key"]: (e["status"], e["tier"], sorted(f["code"] for f in e["findings"]))
        for e in report["entries"]
    }


def _paper(project: Path, bibliography: str) -> None:
    project.mkdir()
    (project / "paper.md").write_text(
        f"---\nbibliography: {bibliography}\n---\n\nA result [@cybenko1989; @okafor2017].\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_a_csl_bibliography_gets_the_verdicts_of_the_same_bibtex(tmp_path: Path, form: str) -> None:
    _paper(tmp_path / "bib", "refs.bib")
    (tmp_path / "bib" / "refs.bib").write_text(BIBTEX, encoding="utf-8")
    _paper(tmp_path / "csl", f"refs.{form}")
    text = json.dumps(ITEMS, indent=1) if form == "json" else yaml.safe_dump(ITEMS)
    (tmp_path / "csl" / f"refs.{form}").write_text(text, encoding="utf-8")

    bib = _verdicts(_check(tmp_path / "bib", "paper.md"))
    csl_report = _check(tmp_path / "csl", "paper.md")
    csl = _verdicts(csl_report)
    assert bib["cybenko1989"][0] == "verified"
    assert bib["okafor2017"][:2] == ("mismatch", "H")
    assert "doi-other-work" in bib["okafor2017"][2]
    assert csl == bib
    # the finding points into the CSL file, at the DOI's value
    found = [d for d in csl_report["diagnostics"] if d["code"] == "doi-other-work"]
    assert any(d["file"] == f"refs.{form}" for d in found), found
    csl_text = (tmp_path / "csl" / f"refs.{form}").read_text(encoding="utf-8")
    line = next(d["line"] for d in found if d["file"] == f"refs.{form}")
    assert "s41467-021-22732-w" in csl_text.splitlines()[line - 1]


def test_a_csl_file_named_on_the_command_line_is_verified(tmp_path: Path) -> None:
    (tmp_path / "refs.json").write_text(json.dumps(ITEMS), encoding="utf-8")
    report = _check(tmp_path, "refs.json")
    verdicts = _verdicts(report)
    assert verdicts["cybenko1989"][0] == "verified"
    assert verdicts["okafor2017"][0] == "mismatch"


def test_csl_types_count_as_the_bibtex_type_of_the_same_kind_of_work() -> None:
    items = [
        {"id": "p", "type": "paper-conference", "title": "A Paper", "container-title": "Proc."},
        {"id": "pre", "type": "article", "title": "A Preprint", "URL": "https://example.org/x"},
        {"id": "web", "type": "webpage", "title": "A Page", "URL": "https://example.org"},
        {"id": "talk", "type": "speech", "title": "A Talk"},
        {"id": "none", "title": "No Type"},
    ]
    bib = parse_csl_json(Path("refs.json"), json.dumps(items))
    kinds = {e.key: (e.entry_type, e.csl_type) for e in bib.entries}
    assert kinds == {
        "p": ("inproceedings", "paper-conference"),
        "pre": ("misc", "article"),
        "web": ("online", "webpage"),
        "talk": ("misc", "speech"),
        "none": ("misc", "document"),
    }
    by_key = {e.key: e for e in bib.entries}
    assert normalize_entry(by_key["p"]).entry_type == "inproceedings"
    # a web page is not looked up, as an @online entry is not
    assert skip_reason(by_key["web"], VerifySettings()) is not None
    # the CSL export keeps the item's own type
    assert csl_item(by_key["pre"])["type"] == "article"
    assert csl_item(by_key["p"])["type"] == "paper-conference"
    assert set(BIBTEX_TYPES) >= {"article-journal", "chapter", "thesis", "report"}


def test_the_references_a_document_defines_get_the_verdicts_of_the_same_bibtex(
    tmp_path: Path,
) -> None:
    _paper(tmp_path / "bib", "refs.bib")
    (tmp_path / "bib" / "refs.bib").write_text(BIBTEX, encoding="utf-8")
    inline = tmp_path / "inline"
    inline.mkdir()
    front = yaml.safe_dump({"title": "Notes", "references": ITEMS}, sort_keys=False)
    (inline / "paper.md").write_text(
        f"---\n{front}---\n\nA result [@cybenko1989; @okafor2017].\n", encoding="utf-8"
    )
    report = _check(inline, "paper.md")
    assert _verdicts(report) == _verdicts(_check(tmp_path / "bib", "paper.md"))
    text = (inline / "paper.md").read_text(encoding="utf-8").splitlines()
    found = [d for d in report["diagnostics"] if d["code"] == "doi-other-work"]
    # on the item's DOI, and (a fabricated reference, tier H) at its citation
    assert sorted(text[d["line"] - 1].strip()[:6] for d in found) == ["A resu", "DOI: 1"]
