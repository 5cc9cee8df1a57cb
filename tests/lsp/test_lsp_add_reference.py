"""Adding a reference from the editor, end to end: the real server process and a real LSP
client, searching the loopback replay of real recorded dblp searches and Crossref records
(tests/data/addref/api).

A LaTeX document cites one key of each common style, none of them defined; each gets an
"Add entry" action whose edit inserts the right work's entry (built from its DOI's Crossref
record, in the style of refs.bib); applying it removes the dangling diagnostic and the new
entry verifies clean.  A key naming no real work gets no "Add entry" action, only the
disabled one saying why and "Add entry from DOI / arXiv id / ISBN...".
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
import test_lsp_verify
import yaml
from lsp_editor import file_edits, wait_for
from lsprotocol import types
from test_lsp_verify import (
    VerifyHarness,
    VStart,
    code_actions,
    hover_text,
    run_command,
)

import replay as replay_fixtures
from citewarden.model import Code
from citewarden.parsing.bibtex import parse_bibtex
from conftest import CLIENTS
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay
vstart = test_lsp_verify.vstart

ADDREF_API = Path(__file__).parents[1] / "data" / "addref" / "api"
INIT: dict[str, Any] = {"debounce_ms": 50, "verify": {"sources": ["dblp", "crossref"]}}

PROJECT = r"""
--- main.tex
\documentclass{article}
\begin{document}
Sigmoids \cite{⟦gs|cybenko1989approximation⟧}.

Feedforward networks \cite{⟦dblp|DBLP:journals/nn/Hornik91⟧}.

Continuous mappings \cite{⟦colon|Funahashi:1989⟧}.

Functionals \cite{⟦jabref|Stinchcombe1999⟧}.

Questions \cite{⟦awy|sachan_self-training_2018⟧}.

Plotting \cite{⟦bbt|sullivanPyVista3DPlotting2019⟧}.

See \cite{⟦none|zzyzx2031quux⟧}.
\bibliography{refs}
\end{document}
--- refs.bib
@article{berman2000,
  author    = {Berman, H. M.},
  title     = {The Protein Data Bank},
  journal   = {Nucleic Acids Research},
  year      = {2000},
  volume    = {28},
  number    = {1},
  pages     = {235--242},
  doi       = {10.1093/nar/28.1.235},
}
"""

#: mark -> (key, DOI of the work it names)
FOUND = {
    "gs": ("cybenko1989approximation", "10.1007/bf02551274"),
    "dblp": ("DBLP:journals/nn/Hornik91", "10.1016/0893-6080(91)90009-t"),
    "colon": ("Funahashi:1989", "10.1016/0893-6080(89)90003-8"),
    "jabref": ("Stinchcombe1999", "10.1016/s0893-6080(98)00108-7"),
    "awy": ("sachan_self-training_2018", "10.18653/v1/n18-1058"),
    "bbt": ("sullivanPyVista3DPlotting2019", "10.21105/joss.01450"),
}

Start = Callable[..., Awaitable[VerifyHarness]]


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture
async def start(replay: ReplayServer, vstart: VStart) -> Start:
    """``await start(files=PROJECT, init=INIT)``: the verifying server of the verification
    tests, with the recorded search answers of this module added to the replay server."""
    replay.load(ADDREF_API)

    async def _start(files: str = PROJECT, init: Any = INIT) -> VerifyHarness:
        return await vstart(files=files, init=init)

    return _start


def dangling_keys(h: VerifyHarness) -> set[str]:
    return {h.editor.slice("main.tex", d.range) for d in h.by_code("main.tex", Code.DANGLING)}


async def test_each_key_style_gets_its_entry_and_it_verifies_clean(
    start: Start, replay: ReplayServer
) -> None:
    h = await start()
    h.editor.open("main.tex")
    keys = {key for key, _ in FOUND.values()} | {"zzyzx2031quux"}
    await wait_for(lambda: dangling_keys(h) == keys, timeout=30)

    for mark, (key, doi) in FOUND.items():
        actions = await code_actions(h, "main.tex", h.mark("main.tex", mark))
        adds = [a for a in actions if a.title.startswith("Add entry: ")]
        assert adds, [a.title for a in actions]
        best = adds[0]
        assert best.edit is not None
        [(uri, edits)] = file_edits(best.edit).items()
        assert uri == h.uri("refs.bib")
        [edit] = edits
        assert f"{{{key}," in edit.new_text and f"doi       = {{{doi}}}" in edit.new_text
        assert any(a.title == "Add entry from DOI / arXiv id / ISBN..." for a in actions)
        h.editor.apply(best.edit)
        await wait_for(lambda key=key: key not in dangling_keys(h), timeout=15)

    # the key naming nothing: no "Add entry", the reason, and the identifier action
    actions = await code_actions(h, "main.tex", h.mark("main.tex", "none"))
    titles = [a.title for a in actions]
    assert not [t for t in titles if t.startswith("Add entry: ")]
    assert "Add entry from DOI / arXiv id / ISBN..." in titles
    [why] = [a for a in actions if a.title == "Add entry for zzyzx2031quux: none found"]
    assert why.disabled is not None and "no work by zzyzx 2031 agrees" in why.disabled.reason

    # the inserted entries parse, keep the file's alignment, and verify clean
    text = h.editor.text("refs.bib")
    parsed = parse_bibtex(h.root / "refs.bib", text)
    assert not parsed.problems and len(parsed.entries) == 7
    assert "  author    = {Hornik, Kurt}," in text
    h.client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri("refs.bib"))
        )
    )
    await wait_for(
        lambda: h.statuses and not h.statuses[-1]["verifying"] and h.statuses[-1]["total"] == 7,
        timeout=60,
    )
    bad = [
        d
        for d in h.verification("refs.bib")
        if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)
    ]
    assert not bad, [(d.code, d.message) for d in bad]
    assert h.statuses[-1]["tiers"]["H"] == 0 and h.statuses[-1]["tiers"]["E"] == 0
    # hover on a new entry shows the record it was built from
    at = text.index("{DBLP:journals/nn/Hornik91,") + 2
    shown = await hover_text(h, "refs.bib", h.editor.position("refs.bib", at))
    assert "**Verification:** verified" in shown and "10.1016/0893-6080(91)90009-t" in shown.lower()
    assert not replay.unmatched, replay.unmatched


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_add_reference_command_adds_an_entry_from_a_doi(
    start: Start, replay: ReplayServer
) -> None:
    h = await start()
    h.editor.open("main.tex")
    await wait_for(lambda: "zzyzx2031quux" in dangling_keys(h), timeout=30)
    applied: list[types.ApplyWorkspaceEditParams] = []

    @h.client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        applied.append(params)
        h.editor.apply(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    result = await run_command(
        h,
        "citewarden.addReference",
        {
            "id": "https://doi.org/10.21105/joss.01450",
            "key": "zzyzx2031quux",
            "uri": h.uri("main.tex"),
        },
    )
    assert result["applied"] is True and result["key"] == "zzyzx2031quux"
    assert result["title"].startswith("Sullivan and Kaszynski 2019, PyVista")
    assert "@article{zzyzx2031quux," in h.editor.text("refs.bib")
    await wait_for(lambda: "zzyzx2031quux" not in dangling_keys(h), timeout=15)
    again = await run_command(
        h, "citewarden.addReference", {"id": "doi:10.21105/JOSS.01450", "uri": h.uri("main.tex")}
    )
    assert again["applied"] is False and again["present"] is True
    assert again["key"] == "zzyzx2031quux" and again["bib"].endswith("refs.bib")
    assert again["reason"] == "already present as zzyzx2031quux in refs.bib"
    assert len(applied) == 1  # the work is there: no second edit
    missing = await run_command(h, "citewarden.addReference", {"id": "10.1371/notarealdoi"})
    assert missing["applied"] is False and "10.1371/notarealdoi" in missing["reason"]
    asked = {"id": "A mathematical theory of communication", "uri": h.uri("main.tex")}
    several = await run_command(h, "citewarden.addReference", asked)
    assert several["applied"] is False and len(applied) == 1  # Shannon's two parts of 1948
    assert several["reason"].startswith("2 works are titled")
    choices = several["choose"]["choices"]
    assert [c["args"] for c in choices] == [
        {"id": "10.1002/j.1538-7305.1948.tb01338.x"},
        {"id": "10.1002/j.1538-7305.1948.tb00917.x"},
    ]
    assert choices[1]["label"] == (
        "Shannon 1948, A Mathematical Theory of Communication (Bell System Technical Journal)"
    )


MARKDOWN = {
    "json": """
--- paper.md
---
title: Notes
bibliography: refs.json
---

Continuous mappings [@⟦colon|Funahashi:1989⟧].
--- refs.json
[
  {
    "id": "berman2000",
    "type": "article-journal",
    "title": "The Protein Data Bank",
    "DOI": "10.1093/nar/28.1.235"
  }
]
""",
    "yaml": """
--- paper.md
---
title: Notes
bibliography: refs.yaml
---

Continuous mappings [@⟦colon|Funahashi:1989⟧].
--- refs.yaml
references:
- id: berman2000
  type: article-journal
  title: The Protein Data Bank
  DOI: 10.1093/nar/28.1.235
""",
}


@pytest.mark.parametrize("client_name", ["neovim"])
@pytest.mark.parametrize("kind", sorted(MARKDOWN))
async def test_markdown_project_gets_a_csl_item(start: Start, kind: str) -> None:
    h = await start(files=MARKDOWN[kind])
    h.editor.open("paper.md")
    await wait_for(lambda: h.by_code("paper.md", Code.DANGLING), timeout=30)
    actions = await code_actions(h, "paper.md", h.mark("paper.md", "colon"))
    [add] = [a for a in actions if a.title.startswith("Add entry: ")]
    assert add.title.startswith("Add entry: Funahashi 1989, On the approximate realization")
    assert add.edit is not None
    h.editor.apply(add.edit)
    await wait_for(lambda: not h.by_code("paper.md", Code.DANGLING), timeout=15)
    text = h.editor.text(f"refs.{kind}")
    if kind == "json":
        items = json.loads(text)
        assert [i["id"] for i in items] == ["berman2000", "Funahashi:1989"]
        assert items[1]["DOI"] == "10.1016/0893-6080(89)90003-8"
    else:
        refs = yaml.safe_load(text)["references"]
        assert [r["id"] for r in refs] == ["berman2000", "Funahashi:1989"]
        assert refs[1]["container-title"] == "Neural Networks"


CASE_CLASH = """
--- paper.md
---
title: Notes
bibliography: refs.json
---

Continuous mappings [@⟦colon|Funahashi:1989⟧].
--- refs.json
[
  {"id": "FUNAHASHI:1989", "type": "article-journal", "title": "One"},
  {"id": "Funahashi1989approximate", "type": "article-journal", "title": "Two"}
]
"""


@pytest.mark.parametrize("client_name", ["neovim"])
async def test_keys_differing_in_case_only_are_not_added_twice(start: Start) -> None:
    """Keys are compared ignoring case, as BibTeX and the duplicate-key check do: pandoc
    reads ``@Funahashi:1989`` as dangling beside ``FUNAHASHI:1989``, and adding it, or a
    new ``funahashi1989approximate``, repeated a key."""
    h = await start(files=CASE_CLASH)
    h.editor.open("paper.md")
    await wait_for(lambda: h.by_code("paper.md", Code.DANGLING), timeout=30)
    actions = await code_actions(h, "paper.md", h.mark("paper.md", "colon"))
    assert not [a for a in actions if a.title.startswith("Add entry: ")]
    [why] = [a for a in actions if a.title == "Add entry for Funahashi:1989: none found"]
    assert why.disabled is not None
    assert why.disabled.reason == (
        "refs.json already has an entry FUNAHASHI:1989 (keys are compared ignoring case)"
    )
    applied: list[types.ApplyWorkspaceEditParams] = []

    @h.client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        applied.append(params)
        h.editor.apply(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    doi, uri = "10.1016/0893-6080(89)90003-8", h.uri("paper.md")
    refused = await run_command(
        h, "citewarden.addReference", {"id": doi, "key": "funahashi:1989", "uri": uri}
    )
    assert refused == {
        "applied": False,
        "reason": "refs.json already has an entry FUNAHASHI:1989, which funahashi:1989"
        " repeats (keys are compared ignoring case)",
    }
    assert not applied
    result = await run_command(h, "citewarden.addReference", {"id": doi, "uri": uri})
    assert result["applied"] is True and result["key"] == "funahashi1989approximatea"
    ids = [i["id"] for i in json.loads(h.editor.text("refs.json"))]
    assert ids == ["FUNAHASHI:1989", "Funahashi1989approximate", "funahashi1989approximatea"]


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_with_verification_off_the_action_says_why(
    start: Start, replay: ReplayServer
) -> None:
    h = await start(init={"debounce_ms": 50, "verify": {"enabled": False}})
    h.editor.open("main.tex")
    await wait_for(lambda: "Funahashi:1989" in dangling_keys(h), timeout=30)
    actions = await code_actions(h, "main.tex", h.mark("main.tex", "colon"))
    [why] = [a for a in actions if a.title == "Add entry for Funahashi:1989: none found"]
    assert why.disabled is not None and why.disabled.reason.startswith("verification is off")
    assert not [a for a in actions if a.title.startswith("Add entry: ")]
    assert not replay.log  # nothing was asked


TWO_BIBS = r"""
--- main.tex
\documentclass{article}
\begin{document}
Continuous mappings \cite{⟦colon|Funahashi:1989⟧}.
\bibliography{refs,more}
\end{document}
--- refs.bib
@misc{one,
  title = {One},
  url = {https://example.org/one},
}
--- more.bib
@Misc{two,
	Title = "Two",
	Url = "https://example.org/two",
}
"""


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_with_two_bibliographies_each_gets_its_action_in_its_style(start: Start) -> None:
    h = await start(files=TWO_BIBS)
    h.editor.open("main.tex")
    await wait_for(lambda: "Funahashi:1989" in dangling_keys(h), timeout=30)
    actions = await code_actions(h, "main.tex", h.mark("main.tex", "colon"))
    adds = {a.title.rsplit(" to ", 1)[1]: a for a in actions if a.title.startswith("Add entry: ")}
    assert set(adds) == {"refs.bib", "more.bib"}
    [(_, [to_more])] = file_edits(adds["more.bib"].edit).items()  # type: ignore[arg-type]
    # more.bib's style: type and field case, tabs, quotes, its field order (title first)
    assert to_more.new_text.startswith(
        '\n@Article{Funahashi:1989,\n\tTitle = "On the approximate realization'
    )
    assert '\tAuthor = "Funahashi, Ken-Ichi",' in to_more.new_text
    with pytest.raises(Exception, match="expects an 'id'"):
        await h.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="citewarden.addReference", arguments=[{"key": "x"}])
        )


@pytest.mark.parametrize("client_name", ["neovim"])
async def test_with_two_bibliographies_the_command_asks_which(start: Start) -> None:
    """The command wrote to the document's first bibliography without a word."""
    h = await start(files=TWO_BIBS)
    h.editor.open("main.tex")
    await wait_for(lambda: "Funahashi:1989" in dangling_keys(h), timeout=30)
    applied: list[types.ApplyWorkspaceEditParams] = []

    @h.client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        applied.append(params)
        h.editor.apply(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    doi, uri = "10.1016/0893-6080(89)90003-8", h.uri("main.tex")
    asked = {"id": doi, "key": "Funahashi:1989", "uri": uri}
    which = await run_command(h, "citewarden.addReference", asked)
    assert which["applied"] is False and not applied
    assert which["reason"] == (
        "several bibliographies (refs.bib, more.bib): choose one, or pass 'bib'"
    )
    choices = which["choose"]["choices"]
    assert [c["label"] for c in choices] == ["refs.bib", "more.bib"]
    done = await run_command(h, "citewarden.addReference", {**asked, **choices[1]["args"]})
    assert done["applied"] is True and Path(done["bib"]).name == "more.bib"
    assert "@Article{Funahashi:1989," in h.editor.text("more.bib")
    assert "Funahashi" not in h.editor.text("refs.bib")
    await wait_for(lambda: "Funahashi:1989" not in dangling_keys(h), timeout=15)
    again = await run_command(h, "citewarden.addReference", {"id": doi, "uri": uri})
    assert again["present"] is True and again["key"] == "Funahashi:1989"
    assert Path(again["bib"]).name == "more.bib" and len(applied) == 1


def test_a_disabled_action_shows_its_key_and_reason_as_the_diagnostic_does() -> None:
    """A key's control and bidirectional characters are escapes in the title and the
    reason, as in the diagnostic it answers (they would turn the title around)."""
    from citewarden.lsp.add_reference import _none_found

    action = _none_found("evil\u202eoof\u202c", "refs\u202e.bib cannot be edited\x1b[2J")
    assert action.title == "Add entry for evil\\u202eoof\\u202c: none found"
    assert action.disabled is not None
    assert action.disabled.reason == "refs\\u202e.bib cannot be edited\\x1b[2J"


def test_works_of_one_title_are_offered_by_any_identifier_add_reads() -> None:
    """The choices held the works with a DOI only: none when dblp or OpenAlex answered."""
    from citewarden.addref.lookup import Ambiguous
    from citewarden.lsp.add_reference import _work_choices
    from citewarden.verify.records import Person, WorkRecord

    book = WorkRecord(
        source="openalex",
        title="Deep Learning",
        authors=(Person("Goodfellow", "Ian"),),
        year=2016,
        isbn=("9780262035613",),
        publisher="MIT Press",
        work_type="book",
    )
    preprint = WorkRecord(
        source="dblp",
        title="Deep learning",
        authors=(Person("Roe", "Ann"),),
        year=2018,
        arxiv_id="1807.01234",
    )
    listed = WorkRecord(source="dblp", title="Deep learning.", authors=(Person("Ng", "A."),))
    found = Ambiguous("Deep learning", "openalex", (book, preprint, listed))
    choices = _work_choices(found)
    assert [(c["description"], c["args"]) for c in choices] == [
        ("ISBN:9780262035613", {"id": "ISBN:9780262035613"}),
        ("arXiv:1807.01234", {"id": "arXiv:1807.01234"}),
    ]
    assert choices[0]["label"].startswith("Goodfellow 2016, Deep Learning")
    assert "Ng n.d., Deep learning. (no DOI, arXiv id, PMID or ISBN" in found.message()


async def test_add_reference_command_inserts_into_the_current_text(
    start: Start, replay: ReplayServer
) -> None:
    """An edit typed just before the command, not checked yet (a long debounce), is where
    the entry is inserted from: it goes after the last entry, not into it."""
    h = await start(init={**INIT, "debounce_ms": 5000})
    h.editor.open("main.tex")
    await wait_for(lambda: "zzyzx2031quux" in dangling_keys(h), timeout=30)
    uri = h.editor.open("refs.bib")
    await asyncio.sleep(0.5)
    start_of_file = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=0, character=0)
    )
    notes = "% my notes on these works\n@misc{mine, title = {Mine}}\n\n"
    h.editor.edit(uri, [types.TextEdit(range=start_of_file, new_text=notes)])
    refused: list[list[str]] = []

    @h.client.feature(types.WORKSPACE_APPLY_EDIT)
    def on_apply(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        refused.append(h.editor.stale(params.edit))
        if refused[-1]:  # a client refuses an edit made on another version
            return types.ApplyWorkspaceEditResult(applied=False)
        h.editor.apply(params.edit)
        return types.ApplyWorkspaceEditResult(applied=True)

    result = await run_command(
        h,
        "citewarden.addReference",
        {
            "id": "https://doi.org/10.21105/joss.01450",
            "key": "zzyzx2031quux",
            "uri": h.uri("main.tex"),
        },
    )
    assert refused == [[]]
    assert result["applied"] is True
    text = h.editor.text("refs.bib")
    assert text.startswith(notes)
    parsed = parse_bibtex(h.root / "refs.bib", text)
    assert [e.key for e in parsed.entries] == ["mine", "berman2000", "zzyzx2031quux"]
    assert not parsed.problems


async def test_the_commands_reasons_show_what_they_quote_escaped(start: Start) -> None:
    """The reason the command gives quotes what the client sent (and keys, sources'
    answers): a control or bidirectional character reached the user's message as it was."""
    h = await start()
    odd = "nope\u202e\x1b[2J.bib"
    answer = await run_command(h, "citewarden.addReference", {"id": "10.1/x", "bib": odd})
    assert answer["applied"] is False
    assert answer["reason"] == "nope\\u202e\\x1b[2J.bib is not a known bibliography"
