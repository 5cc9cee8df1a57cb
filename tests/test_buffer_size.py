"""An editor buffer is measured against ``max_file_mb`` as the file holding it is on disk:
in bytes of UTF-8, not in characters, so the editor and the command line find the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from checking import check
from citewarden import project
from citewarden.files import utf8_size
from citewarden.model import Finding
from citewarden.project import Workspace, normalize_path
from citewarden.settings import Settings

#: 10 485 bytes
SETTINGS = Settings(max_file_mb=0.01)
MAIN = "\\documentclass{article}\n\\begin{document}\n\\cite{k0001,zz}\n"
MAIN += "\\bibliography{refs}\n\\end{document}\n"


def _bib(title: str) -> str:
    return f"@book{{k0001, title={{{title}}}}}\n"


def _summary(result: dict[Path, list[Finding]]) -> list[tuple[object, ...]]:
    return sorted(
        (p.name, f.code.value, f.location.span.start, f.location.span.end, f.message)
        for p, fs in result.items()
        for f in fs
    )


def _on_disk(folder: Path, bib: str) -> Workspace:
    folder.mkdir()
    (folder / "main.tex").write_text(MAIN, encoding="utf-8")
    (folder / "refs.bib").write_text(bib, encoding="utf-8")
    ws = Workspace(SETTINGS, root=folder)
    ws.add_folder(folder)
    return ws


def test_a_buffer_is_measured_in_utf8_bytes_as_the_file_on_disk(tmp_path: Path) -> None:
    """6 000 accented letters: 6 000 characters, within the 10 485 the limit allows, but
    12 000 bytes, over it; the file on disk is refused, so the buffer is too."""
    big = _bib("é" * 6000)
    assert len(big) < SETTINGS.max_file_bytes < utf8_size(big)
    ws = _on_disk(tmp_path / "edited", _bib("small"))
    check(ws)
    refs = normalize_path(tmp_path / "edited" / "refs.bib")
    ws.set_text(refs, big)
    fresh = _on_disk(tmp_path / "fresh", big)
    assert _summary(check(ws)) == _summary(check(fresh))
    codes = {(p.name, f.code.value) for p, fs in check(ws).items() for f in fs}
    assert codes == {("main.tex", "file-unreadable"), ("refs.bib", "file-unreadable")}
    messages = {f.message for fs in check(ws).values() for f in fs}
    assert any("12 KB, larger than the 10 KB limit" in m for m in messages), messages


def test_edits_keep_the_measured_size_of_a_buffer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size of a buffer near the limit is carried along the editor's changes (what
    they left unchanged is not measured again); crossing the limit either way is seen."""
    measured: list[int] = []

    def measure(text: str) -> int:
        measured.append(len(text))
        return utf8_size(text)

    monkeypatch.setattr(project, "utf8_size", measure)
    ws = _on_disk(tmp_path / "edited", _bib("small"))
    refs = normalize_path(tmp_path / "edited" / "refs.bib")
    text = _bib("é" * 5000 + "😀" * 10 + "x" * 10)  # 10 073 bytes
    ws.set_text(refs, text)
    assert ws.read_error(refs) is None
    assert max(measured) == len(text)
    measured.clear()

    def x(t: str) -> int:
        return t.index("x")

    steps: list[Callable[[str], tuple[int, int, str]]] = [
        lambda t: (x(t), x(t), "ä" * 300),  # 600 bytes more: over
        lambda t: (x(t) - 300, x(t), ""),  # under again
        lambda t: (x(t), x(t), "\ud800" * 150),  # lone surrogates an editor sent: 3 bytes each
        lambda t: (0, 0, "%" * 10),
        lambda t: (x(t) - 140, x(t) + 5, "ab"),  # under
    ]
    for n, step in enumerate(steps):
        start, end, new = step(text)
        edited = text[:start] + new + text[end:]
        ws.set_text(refs, edited, unchanged=(start, len(text) - end))
        text = edited
        over = len(text.encode("utf-8", "surrogatepass")) > SETTINGS.max_file_bytes
        assert over == (n in (0, 2, 3))
        assert (ws.read_error(refs) is not None) == over, n
        assert max(measured) <= 500, n  # what changed, never the whole buffer again
        fresh = Workspace(SETTINGS, root=tmp_path)
        fresh.set_text(refs, text)
        assert (fresh.read_error(refs) is not None) == over, n
        measured.clear()
