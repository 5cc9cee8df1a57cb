"""Files of TeX's trees found through kpsewhich: a file found is kept while it is there, an
answer of none is asked again after a minute (a file installed meanwhile is found)."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest

from citewarden import tex_trees


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    runs: list[list[str]] = []
    real = subprocess.Popen

    def popen(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
        runs.append(list(args))
        return real(args, **kwargs)  # type: ignore[call-overload,no-any-return]

    monkeypatch.setattr(subprocess, "Popen", popen)
    monkeypatch.setattr(tex_trees, "_answers", {})
    return runs


def test_a_file_found_is_kept_while_it_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("kpsewhich") is None:
        pytest.fail("real tools missing: kpsewhich", pytrace=False)
    trees = tmp_path / "trees"
    trees.mkdir()
    style = trees / "citewardenkept.cbx"
    style.write_text("\\ProvidesFile{citewardenkept.cbx}\n", encoding="utf-8")
    monkeypatch.setenv("TEXINPUTS", f"{trees}:")
    runs = _counting(monkeypatch)
    found = tex_trees.find_in_trees("citewardenkept.cbx", "tex")
    assert found is not None and found.samefile(style) and len(runs) == 1
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + 3600)
    assert tex_trees.find_in_trees("citewardenkept.cbx", "tex") == found
    assert tex_trees.answer_is_fresh("citewardenkept.cbx", "tex")
    assert len(runs) == 1  # no kpsewhich run for a file still there
    style.unlink()
    assert not tex_trees.answer_is_fresh("citewardenkept.cbx", "tex")
    assert tex_trees.find_in_trees("citewardenkept.cbx", "tex") is None
    assert len(runs) == 2


def test_an_answer_of_none_is_asked_again_after_a_minute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("kpsewhich") is None:
        pytest.fail("real tools missing: kpsewhich", pytrace=False)
    trees = tmp_path / "trees"
    trees.mkdir()
    monkeypatch.setenv("TEXINPUTS", f"{trees}:")
    runs = _counting(monkeypatch)
    assert tex_trees.find_in_trees("citewardenlater.cbx", "tex") is None
    (trees / "citewardenlater.cbx").write_text("x\n", encoding="utf-8")
    assert tex_trees.find_in_trees("citewardenlater.cbx", "tex") is None  # kept a minute
    assert len(runs) == 1
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + 61)
    found = tex_trees.find_in_trees("citewardenlater.cbx", "tex")
    assert found is not None and found.name == "citewardenlater.cbx" and len(runs) == 2
