"""No repr or str of a settings or configuration value shows an API key or the judge's
key: every dataclass field that holds one is left out of the repr (they reach logs and
tracebacks)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import re
from pathlib import Path
from subprocess import CompletedProcess

import pytest

import citewarden
from citewarden.settings import JudgeSettings, Settings, VerifySettings
from citewarden.verify.config import resolve_config
from cli_process import run_citewarden

#: Names of fields holding credentials (change tokens such as ``keys_token`` are not).
SECRET_NAME = re.compile(
    r"api_?key|secret|password|bearer|access_token|auth_token|credential", re.I
)


def test_settings_reprs_hold_no_secret() -> None:
    verify = VerifySettings(
        openalex_api_key="sekrit-oa", s2_api_key="sekrit-s2", ncbi_api_key="sekrit-ncbi"
    )
    settings = Settings(
        verify=verify, judge=JudgeSettings("http://127.0.0.1:9/v1", "m", "sekrit-j")
    )
    config = resolve_config(verify, env={})
    for value in (verify, settings, settings.judge, config):
        for text in (repr(value), str(value)):
            assert "sekrit" not in text, type(value).__name__
    assert "mailto=None" in repr(verify)  # the rest of the repr is still there
    assert config.openalex_api_key == "sekrit-oa"  # hidden, not dropped


def test_every_secret_field_is_out_of_its_repr() -> None:
    """A sweep of the package: a dataclass field named like a key, a token or a password
    must have ``repr=False``."""
    found = []
    for info in pkgutil.walk_packages(citewarden.__path__, "citewarden."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj):
                for f in dataclasses.fields(obj):
                    if SECRET_NAME.search(f.name):
                        found.append((obj.__qualname__, f.name, f.repr))
    assert ("VerifySettings", "openalex_api_key", False) in found
    assert [row for row in found if row[2]] == []


def _check_citing(tmp_path: Path, key: str, fmt: str) -> CompletedProcess[str]:
    """``check`` of a paper citing ``zz-KEY`` (defined nowhere: every report names it), with
    ``key`` as the run's Semantic Scholar key."""
    (tmp_path / "refs.bib").write_text("@misc{a, title = {A}}\n", encoding="utf-8")
    (tmp_path / "p.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{a} \\cite{zz-" + key + "}"
        "\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    env = {"CITEWARDEN_S2_API_KEY": key, "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
    done = run_citewarden(["check", "p.tex", "--offline", "--format", fmt], tmp_path, env)
    assert done.returncode == 1, done.stderr
    return done


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "html"])
def test_a_key_that_reaches_a_report_is_masked(tmp_path: Path, fmt: str) -> None:
    """The reports' last guard: a key value the run knows (here from the environment; the
    same holds for one a record or a judge echoes) is masked in every format."""
    key = "s2-key-Zq81xT0pLm"
    done = _check_citing(tmp_path, key, fmt)
    assert key not in done.stdout and key not in done.stderr
    assert "zz-***" in done.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif"])
@pytest.mark.parametrize("key", ["null", "line", "diagnostics-2024"])
def test_the_mask_leaves_a_json_report_readable(tmp_path: Path, fmt: str, key: str) -> None:
    """A key value that is also a word of the report (a placeholder "null" in a CI setting,
    a member name): a short one is not masked at all, a long one only inside string values,
    so the report stays valid JSON."""
    done = _check_citing(tmp_path, key, fmt)
    assert isinstance(json.loads(done.stdout), dict)
    masked = len(key) >= 8
    assert ("zz-***" in done.stdout) == masked
    assert (f"zz-{key}" in done.stdout) != masked
