"""The HTML report is made and written a section or a row at a time, so a report of many
entries is never held whole (``bench/report_bench.py --case big`` measures the memory)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from checking import check
from citewarden import cli
from citewarden.project import Workspace
from citewarden.report.html.build import build_audit
from citewarden.report.html.page import html_chunks, render_html
from citewarden.settings import Settings


def project(where: Path, n: int) -> None:
    bib = "".join(f"@misc{{k{i}, title={{Title {i}}}, year={{2000}}}}\n" for i in range(n))
    (where / "refs.bib").write_text(bib, encoding="utf-8")


def test_the_page_comes_in_pieces_of_a_row_each(tmp_path: Path) -> None:
    project(tmp_path, 600)
    ws = Workspace(Settings(), root=tmp_path)
    ws.add_file(tmp_path / "refs.bib")
    bib = ws.bibliography(tmp_path / "refs.bib")
    assert bib is not None
    data = build_audit(ws, check(ws), list(bib.entries), None)
    pieces = list(html_chunks(data))
    page = "".join(pieces)
    assert page == render_html(data)
    assert page.count("<li class='ref'") == 600
    assert len(pieces) > 1200  # a row of the audit table and a reference each, at least
    # the head, the appendix: some kilobytes whatever the entries; a row is less
    assert max(map(len, pieces)) < 20_000 < len(page) / 15


def test_check_writes_the_html_report_as_it_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, 600)
    monkeypatch.chdir(tmp_path)
    written: list[int] = []
    replace = cli.replace_whole

    def recorded(path: Path, data: bytes | Iterable[bytes]) -> None:
        def pieces(given: Iterable[bytes]) -> Iterable[bytes]:
            for piece in given:
                written.append(len(piece))
                yield piece

        replace(path, pieces([data] if isinstance(data, bytes) else data))

    monkeypatch.setattr(cli, "replace_whole", recorded)
    args = ["check", "refs.bib", "--no-verify", "--format", "html", "-o", "r.html"]
    assert cli.main(args) == 0
    page = (tmp_path / "r.html").read_bytes()
    assert page.startswith(b"<!DOCTYPE html>") and page.count(b"<li class='ref'") == 600
    assert sum(written) == len(page)
    assert max(written) < 20_000 < len(page) / 15
    assert capsys.readouterr().out == ""
