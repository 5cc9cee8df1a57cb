"""An included document that is there but cannot be read (too large, a FIFO) cites keys
no one knows: no entry of its project is reported never cited, as no citation is reported
dangling while a bibliography cannot be read.  A file that is not there cites nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_process import run_citewarden

BIB = "@misc{a, title={A}}\n@misc{b, title={B}}\n"
BIBITEMS = r"\begin{thebibliography}{9}\bibitem{a} A.\bibitem{b} B.\end{thebibliography}"


def _project(root: Path, ending: str) -> None:
    (root / "refs.bib").write_text(BIB, encoding="utf-8")
    (root / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{a}\\input{chapter}"
        + ending
        + "\\end{document}\n",
        encoding="utf-8",
    )


ENDINGS = {
    "bib": r"\bibliographystyle{plain}\bibliography{refs}",
    "thebibliography": BIBITEMS,
}


def _codes(root: Path) -> list[str]:
    done = run_citewarden(["check", "--no-verify", "--format", "json", "main.tex"], root, {})
    assert "Traceback" not in done.stderr, done.stderr
    return [d["code"] for d in json.loads(done.stdout)["diagnostics"]]


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_no_orphan_while_an_included_file_is_too_large_to_read(tmp_path: Path, ending: str) -> None:
    _project(tmp_path, ENDINGS[ending])
    (tmp_path / "chapter.tex").write_text("\\cite{b}\n" + "%" * 30_000 + "\n", encoding="utf-8")
    (tmp_path / ".citewarden.toml").write_text("max_file_mb = 0.01\n", encoding="utf-8")
    codes = _codes(tmp_path)
    assert "file-unreadable" in codes and "orphan-entry" not in codes, codes
    # read, the chapter cites b; without the limit nothing is an orphan either
    (tmp_path / ".citewarden.toml").unlink()
    assert "orphan-entry" not in _codes(tmp_path)


def test_no_orphan_while_an_included_file_is_a_fifo(tmp_path: Path) -> None:
    _project(tmp_path, ENDINGS["bib"])
    os.mkfifo(tmp_path / "chapter.tex")
    codes = _codes(tmp_path)
    assert "file-unreadable" in codes and "orphan-entry" not in codes, codes


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_an_included_file_that_is_not_there_cites_nothing(tmp_path: Path, ending: str) -> None:
    _project(tmp_path, ENDINGS[ending])
    codes = _codes(tmp_path)
    assert "missing-include" in codes and codes.count("orphan-entry") == 1, codes


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_a_document_the_parser_failed_on_leaves_no_orphan_and_no_dangling(
    tmp_path: Path,
    ending: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A chapter whose parse failed cites (and may define) what no one knows: no entry of
    its project is never cited and no citation of it is dangling; its finding says why."""
    from citewarden.cli import main as cli_main
    from citewarden.parsing import latex

    real = latex.parse_latex

    def failing(path: Path, *args: object, **kwargs: object) -> object:
        if path.name == "chapter.tex":
            raise RuntimeError("a parser bug")
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(latex, "parse_latex", failing)
    _project(tmp_path, ENDINGS[ending].replace(r"\cite{a}", "") + r"\cite{zz}")
    (tmp_path / "chapter.tex").write_text("\\cite{b}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert cli_main(["check", "main.tex", "--no-verify"]) == 1
    out = capsys.readouterr().out
    assert "could not parse chapter.tex: RuntimeError" in out
    assert "orphan-entry" not in out and "dangling-citation" not in out, out
