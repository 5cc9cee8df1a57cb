"""The items the real pandoc reads from a bibliography or a document, as CSL-JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest


def pandoc_on_path() -> str:
    """The pandoc on the PATH (2.17, which scripts/test installs)."""
    pandoc = shutil.which("pandoc")
    if pandoc is None:
        pytest.fail("pandoc is needed (scripts/test installs it)", pytrace=False)
    return pandoc


def csljson(directory: Path, *args: str, pandoc: str | None = None) -> list[dict[str, Any]]:
    """``pandoc ARGS -t csljson`` run in ``directory``: the items it reads (``-f csljson
    refs.json`` for a CSL-JSON file, ``-f markdown doc.md`` for a document's
    ``references:``)."""
    run = subprocess.run(
        [pandoc or pandoc_on_path(), *args, "-t", "csljson"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    items: list[dict[str, Any]] = json.loads(run.stdout)
    return items
