"""A key list of any length is read whole, as LaTeX reads it: a ``\\nocite`` of thousands
of keys (over 20 000 characters) cites each of them, where it was read as no citation."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from checking import check
from citewarden.model import Code
from citewarden.project import Workspace

KEYS = [f"key{i:04d}" for i in range(2600)]
_CITATION = re.compile(r"\\citation\{([^}]*)\}")


@pytest.mark.parametrize("command", ["nocite", "cite"])
def test_a_list_of_thousands_of_keys_cites_them_all(tmp_path: Path, command: str) -> None:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is needed", pytrace=False)
    keys = ",\n".join(KEYS) if command == "cite" else ",".join(KEYS)
    (tmp_path / "main.tex").write_text(
        f"\\documentclass{{article}}\n\\begin{{document}}\n\\{command}{{{keys}}}\n"
        "\\bibliographystyle{plain}\n\\bibliography{refs}\n\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(
        "".join(f"@misc{{{k}, title={{T}}}}\n" for k in [*KEYS, "other"]), encoding="utf-8"
    )
    subprocess.run(
        ["pdflatex", "-draftmode", "-interaction=nonstopmode", "main.tex"],
        cwd=tmp_path,
        capture_output=True,
        timeout=120,
        check=False,
    )
    cited = set(_CITATION.findall((tmp_path / "main.aux").read_text(errors="replace")))
    assert cited == set(KEYS)
    ws = Workspace(root=tmp_path)
    ws.add_folder(tmp_path)
    orphans = {str(f.data["key"]) for fs in check(ws).values() for f in fs if f.code is Code.ORPHAN}
    assert orphans == {"other"}
