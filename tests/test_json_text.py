"""The JSON and SARIF reports are written in pieces, with the text ``json.dumps(indent=2)``
gives, where the whole text was made at once by the pure-Python encoder."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from citewarden import cli
from citewarden.audit import run_audit
from citewarden.report.json_report import report_of
from citewarden.report.json_text import PIECE, Streamed, indented_json
from citewarden.report.sarif import sarif_of
from citewarden.settings import Settings

ODD = [
    {},
    [],
    None,
    "x\u202e\x00\u00e9",
    {"a": [], "b": {}, "c": [[], {}]},
    {"a": [1, [2, {}], {"b": [{"c": 1.5}]}]},
    {1: 2, None: 3, False: 4, 2.5: 5, "\u00e9": "\U0001f600"},
    {"n": float("nan"), "i": float("inf"), "z": -0.0, "big": 10**30},
    ("t", ("u", ()), [("v",)]),
]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([0, -7, "s", "\u200b\u00e9\n", None, True, False, 2.5, [], {}])
    if roll < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice("abcdef"): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_indented_json_is_the_text_json_dumps_writes(ensure_ascii: bool) -> None:
    rng = random.Random(7)
    values = ODD + [_random_value(rng) for _ in range(2000)]
    for value in values:
        text = "".join(indented_json(value, ensure_ascii=ensure_ascii))
        assert text == json.dumps(value, indent=2, ensure_ascii=ensure_ascii), value


def test_a_long_report_is_written_in_pieces_with_the_same_text(tmp_path: Path) -> None:
    body = "".join(f"\\cite{{k{i}}}" for i in range(3000))
    tex = f"\\begin{{document}}{body}\\bibliography{{refs}}\\end{{document}}\n"
    (tmp_path / "huge.tex").write_text(tex)
    (tmp_path / "refs.bib").write_text("@misc{k0, title = {T}}\n")
    audit = run_audit(["huge.tex"], Settings(), cwd=tmp_path, verify=False)
    for fmt, data, ascii_only in [
        ("json", report_of(audit, tmp_path), False),
        ("sarif", sarif_of(audit, root=tmp_path, version=cli.__version__), True),
    ]:
        pieces = list(cli._render(fmt, audit, tmp_path, ["huge.tex"]))
        assert len(pieces) > 10, fmt  # never the whole report at once
        assert max(len(p) for p in pieces) < 2 * PIECE
        text = "".join(pieces)
        assert text == json.dumps(data, indent=2, ensure_ascii=ascii_only) + "\n"
        found = json.loads(text)
        rows = found["runs"][0]["results"] if fmt == "sarif" else found["citations"]["dangling"]
        assert len(rows) == 2999


@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_a_streamed_list_is_written_as_the_list_of_its_members(ensure_ascii: bool) -> None:
    rng = random.Random(11)
    for members in [[], [1], *([_random_value(rng) for _ in range(4)] for _ in range(300))]:
        value = {"a": 1, "rows": Streamed(iter(members)), "after": [{"b": []}]}
        text = "".join(indented_json(value, ensure_ascii=ensure_ascii))
        listed = {**value, "rows": members}
        assert text == json.dumps(listed, indent=2, ensure_ascii=ensure_ascii), members


def test_the_sarif_log_is_made_as_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SARIF log of 300 000 citations was built whole (17 s and most of the run's memory)
    before its first piece was written: its results are now made as they are written, the
    artifacts they name listed after them, with the same text."""
    from citewarden.report import sarif

    body = "".join(f"\\cite{{k{i}}}" for i in range(3000))
    tex = f"\\begin{{document}}{body}\\bibliography{{refs}}\\end{{document}}\n"
    (tmp_path / "huge.tex").write_text(tex)
    (tmp_path / "refs.bib").write_text("@misc{k0, title = {T}}\n")
    audit = run_audit(["huge.tex"], Settings(), cwd=tmp_path, verify=False)
    made = 0
    shown = sarif.message_text

    def counted(text: str) -> str:
        nonlocal made
        made += 1
        return shown(text)

    monkeypatch.setattr(sarif, "message_text", counted)
    pieces = iter(cli._render("sarif", audit, tmp_path, ["huge.tex"]))
    first = next(pieces)
    assert 0 < made < 500, made  # a piece's worth of 2 999 results
    text = first + "".join(pieces)
    assert made > 2999
    found = json.loads(text)
    run = found["runs"][0]
    assert len(run["results"]) == 2999
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["huge.tex"]
