"""add-reference and the writer it shares with --fix: linear time on hostile files, a file
made during the look-up, LaTeX control symbols, keys, invisible characters, extended
attributes."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import time
from io import StringIO
from pathlib import Path

import pytest
import yaml

from citewarden import cli_add
from citewarden.addref.bibtex_out import _closing_marks, bibtex_entry, clean_value, detect_style
from citewarden.addref.csl_out import markdown_reads_otherwise
from citewarden.addref.insert import InsertError, make_key, plan_insertion
from citewarden.fix import write as write_module
from citewarden.fix.plan import FixRefused
from citewarden.fix.write import ABSENT, write_atomically
from citewarden.parsing.csl import YAML_LOADER, content_end
from citewarden.parsing.latex_encode import latex_text
from citewarden.safe_text import without_unsafe
from citewarden.verify.records import Person, WorkRecord
from citewarden.verify.sources.crossref import work_from_csl
from paths import DATA

RECORD = WorkRecord(
    source="crossref", title="Deep nets", authors=(Person("Smith", "J"),), year=2020, doi="10.1/x"
)


def _add(
    bib: Path,
    records: list[WorkRecord],
    monkeypatch: pytest.MonkeyPatch,
    keys: list[str] | None = None,
    during: object = None,
) -> tuple[int, str, str]:
    async def look_up(
        ids: list[str], settings: object, notices: object
    ) -> list[tuple[str, WorkRecord]]:
        if callable(during):
            during()
        return list(zip(ids, records, strict=True))

    monkeypatch.setattr(cli_add, "_look_up", look_up)
    args = argparse.Namespace(
        ids=[f"id{i}" for i in range(len(records))],
        bib=str(bib),
        key=keys,
        offline=True,
        dry_run=False,
    )
    out, err = StringIO(), StringIO()
    status = cli_add.run_add(args, out, err)
    return status, out.getvalue(), err.getvalue()


# ---- 1. aliases sharing nodes: each node read once -------------------------------------


def _nested_aliases(depth: int) -> str:
    lines = ["title: x", "a0: &a0", "  - 1", "  - 1"]
    for i in range(1, depth):
        lines += [f"a{i}: &a{i}", f"  - *a{i - 1}", f"  - *a{i - 1}"]
    return "\n".join(lines) + "\n"


def test_nested_aliases_take_linear_time_to_add_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _nested_aliases(30)  # 2**30 paths to the first list
    start = time.monotonic()
    change = plan_insertion(Path("refs.yaml"), text, RECORD, "k")
    assert time.monotonic() - start < 2
    assert change.offset == len(text) - 1
    bib = tmp_path / "refs.yaml"
    bib.write_text(_nested_aliases(23), encoding="utf-8")
    start = time.monotonic()
    status, _, err = _add(bib, [RECORD], monkeypatch)
    assert time.monotonic() - start < 5
    assert status == 0, err
    assert 'references:\n- id: "smith2020deep"' in bib.read_text(encoding="utf-8")


def test_an_item_ending_in_an_alias_on_its_own_line_takes_the_new_item_after_it() -> None:
    text = (
        "references:\n- id: a\n  author: &p\n    - family: X\n"
        "- id: b\n  author:\n    - *p\n    - *p\nlink-citations: true\n"
    )
    change = plan_insertion(Path("refs.yaml"), text, RECORD, "k")
    assert text[: change.offset].endswith("    - *p\n    - *p")
    new = text[: change.offset] + change.text + text[change.offset :]
    loaded = yaml.safe_load(new)
    assert [item["id"] for item in loaded["references"]] == ["a", "b", "k"]
    assert loaded["link-citations"] is True


def test_content_end_of_a_node_holding_an_alias_of_itself() -> None:
    root = yaml.compose("a: &a\n  - x\n  - *a\nb: y\n", Loader=YAML_LOADER)
    assert root is not None
    seq = root.value[0][1]
    assert content_end(seq) == len("a: &a\n  - x")
    assert content_end(root) == len("a: &a\n  - x\n  - *a\nb: y")


# ---- 2. the .bib style read in linear time ----------------------------------------------


def test_a_long_run_of_blanks_is_read_in_linear_time() -> None:
    text = "@article{x,\n  title = {a},\n}\n%" + " " * 400_000 + "x\n"
    start = time.monotonic()
    style = detect_style(text)
    assert time.monotonic() - start < 2
    assert style.trailing_comma


@pytest.mark.parametrize(
    ("text", "marks"),
    [
        ("@a{x,\n  t = {a},\n}\n", [","]),
        ("@a{x,\r\n  t = {a}  \r\n  }\r\n", ["}"]),
        ('@a{x,\r  t = "a"\r}', ['"']),
        ("@a{x,\n  t = 2020\n}\n", [""]),
        ("@a{x,\n  t = {a},\n\n}\n", [""]),
        ("}\n", []),
    ],
)
def test_the_last_field_end_before_a_closing_brace(text: str, marks: list[str]) -> None:
    assert _closing_marks(text) == marks


# ---- 3. a file made while the look-up ran is not overwritten ----------------------------


def test_a_bibliography_made_during_the_look_up_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bib = tmp_path / "refs.bib"
    mine = "@article{mine,\n  title = {My only copy},\n}\n"
    status, _, err = _add(
        bib, [RECORD], monkeypatch, during=lambda: bib.write_text(mine, encoding="utf-8")
    )
    assert status == 2
    assert "changed on disk since it was read" in err
    assert bib.read_text(encoding="utf-8") == mine


def test_a_missing_bibliography_is_created(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bib = tmp_path / "refs.bib"
    status, _, err = _add(bib, [RECORD], monkeypatch)
    assert status == 0, err
    assert "{smith2020deep," in bib.read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["refs.bib"]  # no temporary file left


def test_a_file_expected_absent_is_never_replaced(tmp_path: Path) -> None:
    target = tmp_path / "refs.bib"
    target.write_bytes(b"theirs")
    with pytest.raises(FixRefused, match="changed on disk since it was read"):
        write_atomically(target, b"ours", expected=ABSENT, backup=False)
    assert target.read_bytes() == b"theirs"
    # made between the test and the creation: the hard link fails, nothing is replaced
    other = tmp_path / "other.bib"
    real_link = os.link

    def racing_link(src: Path, dst: Path, **kwargs: object) -> None:
        Path(dst).write_bytes(b"raced")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as m:
        m.setattr(os, "link", racing_link)
        with pytest.raises(FixRefused, match="changed on disk since it was read"):
            write_atomically(other, b"ours", expected=ABSENT, backup=False)
    assert other.read_bytes() == b"raced"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.bib", "refs.bib"]


def test_without_hard_links_a_missing_file_is_created_exclusively(tmp_path: Path) -> None:
    target = tmp_path / "refs.bib"

    def no_link(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "hard links not supported")

    with pytest.MonkeyPatch.context() as m:
        m.setattr(os, "link", no_link)
        write_atomically(target, b"ours", expected=ABSENT, backup=False)
    assert target.read_bytes() == b"ours"
    assert [p.name for p in tmp_path.iterdir()] == ["refs.bib"]


# ---- 4. LaTeX control symbols -------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Solving \\( x", "Solving \\textbackslash{}( x"),
        ("z \\) w", "z \\textbackslash{}) w"),
        ("A \\[ b \\]", "A \\textbackslash{}[ b \\textbackslash{}]"),
        ("a \\{b\\}", "a \\textbackslash{}\\textbraceleft{}b\\textbackslash{}\\textbraceright{}"),
        (
            "a \\| b \\< c \\> d",
            "a \\textbackslash{}\\textbar{} b \\textbackslash{}\\textless{}"
            " c \\textbackslash{}\\textgreater{} d",
        ),
        ("x \\+ y \\! z \\@", "x \\textbackslash{}+ y \\textbackslash{}! z \\textbackslash{}@"),
        # kept: they typeset text
        ("R\\&D \\% \\# \\_ \\$", "R\\&D \\% \\# \\_ \\$"),
        ("it\\'s \\\"o \\^o \\~n \\`e \\=a \\.z", "it\\'s \\\"o \\^o \\~n \\`e \\=a \\.z"),
        ("a\\-b \\/ \\, \\; \\: \\ x \\\\ y", "a\\-b \\/ \\, \\; \\: \\ x \\\\ y"),
        # math keeps its escaped braces when they balance; else it is written as text
        ("$\\{x\\}$", "$\\{x\\}$"),
        ("$\\{x$ y", "\\$\\textbackslash{}\\textbraceleft{}x\\$ y"),
    ],
)
def test_only_control_symbols_that_typeset_text_are_kept(text: str, written: str) -> None:
    assert latex_text(text) == written


def test_an_escaped_brace_is_no_group_in_the_balance() -> None:
    assert clean_value("a \\{b}") == "a \\textbackslash{}\\textbraceleft{}b"
    assert clean_value("a \\\\{b}") == "a \\\\{b}"  # a line break, then a group


# ---- 5 and 9. keys ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("authors", "key"),
    [
        ((Person("", "Anonymous"),), "anon2020deep"),
        ((Person("", "X"), Person("Ørsted", "H")), "orsted2020deep"),
        ((), "anon2020deep"),
        ((Person("Steele Jr.", "Guy L."),), "steele2020deep"),
        ((Person("Smith III", "J"),), "smith2020deep"),
        ((Person("Smith, Jr.", "J"),), "smith2020deep"),
        ((Person("Østergaard", "X"),), "ostergaard2020deep"),
        ((Person("Łukasiewicz", "J"),), "lukasiewicz2020deep"),
        ((Person("Straße", "X"),), "strasse2020deep"),
        ((Person("Đorđević", "X"),), "dordevic2020deep"),
        ((Person("Æsir", "X"),), "aesir2020deep"),
        ((Person("Œuvre", "X"),), "oeuvre2020deep"),
        ((Person("Þórsson", "X"),), "thorsson2020deep"),
    ],
)
def test_the_key_takes_the_first_surname_without_its_suffix(
    authors: tuple[Person, ...], key: str
) -> None:
    record = WorkRecord(source="crossref", title="Deep nets", authors=authors, year=2020)
    assert make_key(record) == key


def test_a_first_author_without_a_surname_is_added(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bib = tmp_path / "refs.bib"
    record = WorkRecord(
        source="datacite", title="Große Daten", authors=(Person("", "Anonymous"),), year=2021
    )
    status, out, err = _add(bib, [record], monkeypatch)
    assert status == 0, err
    assert "added anon2021grosse" in out


# ---- 7. CSL-YAML ids pandoc's Markdown reads as other text --------------------------


@pytest.mark.parametrize("key", ["m$n$o", "a*b*c", "s--t", "s...t", "a`b`", "_a", "@x", "a&amp;b"])
def test_a_csl_yaml_key_markdown_reads_otherwise_is_refused(
    key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert markdown_reads_otherwise(key)
    with pytest.raises(InsertError, match="pandoc reads the id as Markdown"):
        plan_insertion(Path("refs.yaml"), "", RECORD, key)
    bib = tmp_path / "refs.yaml"
    status, _, err = _add(bib, [RECORD], monkeypatch, keys=[key])
    assert status == 2
    assert "pandoc reads the id as Markdown" in err
    assert not bib.exists()
    # BibTeX and CSL-JSON read the key as written
    plan_insertion(Path("refs.bib"), "", RECORD, key)
    plan_insertion(Path("refs.json"), "", RECORD, key)


@pytest.mark.parametrize("key", ["a_b", "x@y", "p[q]", "a-b", "a.b:c", "u&v", "smith2020deep"])
def test_a_csl_yaml_key_markdown_reads_as_itself_is_written_as_it_is(key: str) -> None:
    assert not markdown_reads_otherwise(key)
    text = plan_insertion(Path("refs.yaml"), "", RECORD, key).text
    assert f'- id: "{key}"' in text


# ---- 8. bidirectional and invisible characters ------------------------------------------


INVISIBLE = "\u061c\u2060\u2061\u2062\u2063\u2064\u200b\u202e\ufeff"


@pytest.mark.parametrize("suffix", [".bib", ".json", ".yaml"])
def test_bidi_and_invisible_characters_are_not_written(suffix: str) -> None:
    record = WorkRecord(
        source="crossref",
        title="Title abc" + INVISIBLE + "def",
        authors=(Person("Sm\u061cith", "J\u2060"),),
        year=2020,
        doi="10.1/x\u2063",
    )
    text = plan_insertion(Path("refs" + suffix), "", record, "k").text
    assert not any(c in text for c in INVISIBLE), ascii(text)
    assert "abcdef" in text and "Smith" in text


def _recorded_cybenko(title: str) -> WorkRecord:
    """The recorded Crossref record of Cybenko (1989), its title as given."""
    data = json.loads((DATA / "api" / "crossref" / CYBENKO).read_text(encoding="utf-8"))
    record = work_from_csl({**data.get("message", data), "title": [title]})
    assert record is not None
    return record


CYBENKO = "refchecker_get_by_doi_efb3cb1d62.json"
TITLE = "Approximation by superpositions of a sigmoidal function"


@pytest.mark.parametrize("suffix", [".bib", ".json", ".yaml"])
def test_a_records_soft_hyphen_is_dropped_and_tag_characters_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    soft = _recorded_cybenko("Approxi\u00admation by super\u00adpositions of a sigmoidal function")
    text = plan_insertion(Path("refs" + suffix), "", soft, "k").text
    assert TITLE in text and "\u00ad" not in text
    tagged = _recorded_cybenko(TITLE + "\U000e0049\U000e0047\U000e004e")
    with pytest.raises(InsertError, match=r"drawn as nothing \(\\U000e0047, .*refs"):
        plan_insertion(Path("refs" + suffix), "", tagged, "k")
    bib = tmp_path / ("refs" + suffix)
    bib.write_text("", encoding="utf-8")
    status, _, err = _add(bib, [tagged], monkeypatch)
    assert status == 2 and "drawn as nothing" in err and "nothing added" in err
    assert bib.read_text(encoding="utf-8") == ""


def test_one_definition_of_what_is_not_written() -> None:
    assert without_unsafe("a\u2028b\u061cc\u2064d\x1be\tf") == "a bcde\tf"
    entry = bibtex_entry(
        WorkRecord(source="crossref", title="x\u2062y", authors=(), year=2020), "k"
    )
    assert "title = {xy}" in entry


# ---- 6. extended attributes and the POSIX ACL -------------------------------------------


def _xattrs_supported(directory: Path) -> bool:
    probe = directory / "probe"
    probe.write_bytes(b"")
    try:
        os.setxattr(probe, "user.citewarden.probe", b"1")
    except (OSError, AttributeError):
        return False
    finally:
        probe.unlink()
    return True


def _xattr_dir(tmp_path: Path) -> Path:
    for candidate in (tmp_path, Path.home(), Path.cwd()):
        try:
            folder = candidate / f".citewarden-xattr-{os.getpid()}"
            folder.mkdir(exist_ok=True)
        except OSError:
            continue
        if _xattrs_supported(folder):
            return folder
        folder.rmdir()
    pytest.fail("no writable file system with user extended attributes found", pytrace=False)


@pytest.fixture
def xattr_dir(tmp_path: Path) -> object:
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes on this platform")
    folder = _xattr_dir(tmp_path)
    yield folder
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


#: An access ACL granting user 12345 read and write (the Linux xattr encoding).
_ACL = struct.pack("<I", 2) + b"".join(
    struct.pack("<HHI", tag, perm, qualifier)
    for tag, perm, qualifier in [
        (1, 6, 0xFFFFFFFF),
        (2, 6, 12345),
        (4, 4, 0xFFFFFFFF),
        (0x10, 6, 0xFFFFFFFF),
        (0x20, 4, 0xFFFFFFFF),
    ]
)


def test_a_fix_keeps_the_files_extended_attributes_and_acl(xattr_dir: Path) -> None:
    target = xattr_dir / "refs.bib"
    target.write_bytes(b"@article{a, title={x}}\n")
    os.setxattr(target, "user.xdg.origin.url", b"https://example.org")
    try:
        os.setxattr(target, "system.posix_acl_access", _ACL)
        acl = True
    except OSError:  # a file system without ACLs: the user attribute alone
        acl = False
    before = {n: os.getxattr(target, n) for n in os.listxattr(target)}
    backup = write_atomically(target, b"@article{a, title={y}}\n", expected=target.read_bytes())
    assert target.read_bytes() == b"@article{a, title={y}}\n"
    assert {n: os.getxattr(target, n) for n in os.listxattr(target)} == before
    assert ("system.posix_acl_access" in before) == acl
    assert backup is not None
    assert os.getxattr(backup, "user.xdg.origin.url") == b"https://example.org"


def test_attributes_a_new_file_cannot_be_given_mean_writing_in_place(
    xattr_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = xattr_dir / "refs.bib"
    target.write_bytes(b"old\n")
    os.setxattr(target, "user.kept", b"yes")
    inode = target.stat().st_ino

    def refused(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "not permitted")

    monkeypatch.setattr(write_module.os, "setxattr", refused)
    write_atomically(target, b"new\n", expected=b"old\n", backup=False)
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_ino == inode  # written in place, so nothing is lost
    assert os.getxattr(target, "user.kept") == b"yes"
    assert [p.name for p in xattr_dir.iterdir()] == ["refs.bib"]


def test_add_keeps_the_files_extended_attributes(
    xattr_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bib = xattr_dir / "refs.bib"
    bib.write_text("@article{a,\n  title = {A},\n}\n", encoding="utf-8")
    os.setxattr(bib, "user.xdg.origin.url", b"https://example.org")
    status, _, err = _add(bib, [RECORD], monkeypatch)
    assert status == 0, err
    assert "smith2020deep" in bib.read_text(encoding="utf-8")
    assert os.getxattr(bib, "user.xdg.origin.url") == b"https://example.org"


# ---- with the real tools --------------------------------------------------------------


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is missing (scripts/system-deps installs it)", pytrace=False)
    return found


CONTROL_TITLES = [
    "Solving \\( x",
    "Closing \\) y",
    "Display \\[ z \\]",
    "Brace \\{set}",
    "close \\} b",
    "Bar \\| c \\+ d \\< e \\> f",
    "Sets $\\{x \\mid x>0\\}$ here",
    "half $\\{x$ set",
    "it\\'s \\/ ok a\\-b \\, c \\; d \\: e \\ f \\\\ g",
    'R\\&D 50\\% \\#1 a\\_b \\$5 \\^{o} \\~{n} \\`{e} \\={a} \\.{z} \\"{u}',
    "trail \\",
]


def test_pdflatex_and_bibtex_set_every_title_with_control_symbols(tmp_path: Path) -> None:
    entries = [
        bibtex_entry(
            WorkRecord(source="arxiv", title=t, authors=(Person("Smith", "J"),), year=2020),
            f"k{i}",
        )
        for i, t in enumerate(CONTROL_TITLES)
    ]
    (tmp_path / "refs.bib").write_text("\n\n".join(entries) + "\n", encoding="utf-8")
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\nocite{*}"
        "\\bibliographystyle{plain}\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )

    def run(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            list(cmd),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=180,
            check=False,
        )

    pdflatex = _tool("pdflatex")
    run(pdflatex, "-interaction=nonstopmode", "main")
    bibtex = run(_tool("bibtex"), "main")
    assert "error" not in bibtex.stdout.lower(), bibtex.stdout
    final = run(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "main")
    assert final.returncode == 0, final.stdout[-3000:]
    log = (tmp_path / "main.log").read_text(encoding="utf-8", errors="replace")
    assert "\n! " not in log


def test_pandoc_cites_a_csl_yaml_key_written_as_it_is(tmp_path: Path) -> None:
    keys = ["a_b", "x@y", "p[q]", "u&v", "a.b:c"]
    text = ""
    for key in keys:
        change = plan_insertion(tmp_path / "refs.yaml", text, RECORD, key)
        text = text[: change.offset] + change.text + text[change.offset :]
    (tmp_path / "refs.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "paper.md").write_text(
        " ".join(f"[@{{{k}}}]" for k in keys) + "\n", encoding="utf-8"
    )
    proc = subprocess.run(
        [_tool("pandoc"), "--citeproc", "--bibliography", "refs.yaml", "-t", "plain", "paper.md"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stderr, proc.stderr


def test_joiners_that_scripts_need_are_kept() -> None:
    from citewarden.safe_text import without_unsafe

    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ inside a word
    family = "\U0001f468\u200d\U0001f469"  # an emoji sequence joined by ZWJ
    assert without_unsafe(persian) == persian
    assert without_unsafe(family) == family
    assert without_unsafe("a\u200bb\u2062c\ufeff") == "abc"
