"""Verification in the editor, end to end: the real server process, verifying against the
loopback replay server of real recorded responses (tests/data/api).

The bibliography is built from real records: a real Crossref work written by hand (with
its DOI), real works from a recorded Crossref search page with and without their DOI, one
of them with its DOI replaced by another real recorded DOI (a different work) and one with
a digit swap in its pages, and a fabricated entry whose DOI doi.org answers with a real
recorded 404.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsp_editor import Editor, encoding_of, plain, wait_for, wait_for_async
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import replay as replay_fixtures
from citewarden.findings.policy import Policy
from citewarden.findings.verdicts import correction_fix, entry_findings, ignore_fix
from citewarden.lsp.verification import fingerprint
from citewarden.model import Code, Finding, Issue, Severity, Status, Tier, Verdict
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.project import Workspace
from citewarden.settings import Settings, VerifySettings, merge_settings
from citewarden.verify.config import URL_ENV
from conftest import CLIENTS, SERVER, Harness, make_client, stop_clients
from markers import write_project
from replay import ReplayServer

replay_server = replay_fixtures.replay_server
replay = replay_fixtures.replay

STATUS = "citewarden/status"
TITLE = "Verifying references"

#: Verification through Crossref and doi.org only (the sources the records come from).
INIT: dict[str, Any] = {"debounce_ms": 50, "verify": {"sources": ["crossref", "doi"]}}

PROJECT = r"""
--- main.tex
\documentclass{article}
\begin{document}
Forecasts \cite{boettiger2022}, noise \cite{boettiger2018}, transients \citep{boettiger2020}.
Methylphenidate \cite{sadasivan2012}; gravity waves \cite{⟦cite_fake|fake2023⟧}.
\bibliography{refs}
\end{document}
--- paper.md
---
title: Notes
bibliography: refs.bib
---

As @⟦md_fake|fake2023⟧ claims.
--- refs.bib
@article{⟦key_2022|boettiger2022⟧,
  author = {Boettiger, Carl},
  title = {The forecast trap},
  journal = {Ecology Letters},
  year = {2022},
  volume = {25},
  number = {7},
  pages = {1655--1664},
  doi = {⟦wrong_doi|10.1371/journal.ppat.1008184⟧},
}

@article{⟦key_2018|boettiger2018⟧,
  author = {Boettiger, Carl},
  title = {From noise to knowledge: how randomness generates novel phenomena and reveals information},
  journal = {Ecology Letters},
  year = {2018},
  volume = {21},
  number = {8},
  pages = {1255--1267},
}

@article{boettiger2020,
  author = {Boettiger, Carl},
  title = {Ecological management of stochastic systems with long transients},
  journal = {Theoretical Ecology},
  year = {2020},
  volume = {14},
  number = {4},
  pages = {⟦pages|663--617⟧},
}

@article{⟦key_sadasivan|sadasivan2012⟧,
  title = {Methylphenidate exposure induces dopamine neuron loss and activation of microglia in the basal ganglia of mice},
  author = {Sadasivan, Shankar and Pond, Brooks B. and others},
  journal = {{PLoS} {ONE}},
  year = {2012},
  volume = {7},
  number = {3},
  pages = {e33693},
  doi = {https://doi.org/10.1371/journal.pone.0033693},
}

@article{fake2023,
  author = {Roe, Richard},
  title = {⟦fake_title|Gravity waves from nowhere⟧},
  journal = {Journal of Imaginary Results},
  year = {2023},
  doi = {⟦fake_doi|10.1126/foo⟧},
}
"""

#: Five search-only entries: real works of the recorded Crossref search page.
MANY = r"""
--- main.tex
\documentclass{article}
\begin{document}
\nocite{*}
\bibliography{refs}
\end{document}
--- refs.bib
""" + "\n".join(
    f"@article{{w{n},\n  author = {{{author}}},\n  title = {{{title}}},\n  year = {{{year}}},\n}}\n"
    for n, (author, title, year) in enumerate(
        [
            ("Boettiger, Carl", "The forecast trap", 2022),
            (
                "Boettiger, Carl",
                "From noise to knowledge: how randomness generates novel phenomena and "
                "reveals information",
                2018,
            ),
            (
                "Boettiger, Carl",
                "Ecological management of stochastic systems with long transients",
                2020,
            ),
            (
                "Lapeyrolerie, Marcus and Boettiger, Carl",
                "Limits to ecological forecasting: Estimating uncertainty for critical "
                "transitions with deep learning",
                2022,
            ),
            (
                "Boettiger, Carl and Ross, Noam and Hastings, Alan",
                "Early warning signals: the charted and uncharted territories",
                2013,
            ),
            (
                "Norman, Kari E. A. and Chamberlain, Scott and Boettiger, Carl",
                "taxadb: A high-performance local taxonomic database interface",
                2020,
            ),
        ]
    )
)


# ----------------------------------------------------------------------------------------
# Harness
# ----------------------------------------------------------------------------------------


class VerifyHarness(Harness):
    statuses: list[dict[str, Any]]

    def verification(self, name: str) -> list[types.Diagnostic]:
        """The verification diagnostics of a file (codes of the verification engine)."""
        codes = {c.value for c in VERIFY_CODES}
        return [d for d in self.diagnostics(name) if d.code in codes]

    def by_code(self, name: str, code: Code) -> list[types.Diagnostic]:
        return [d for d in self.diagnostics(name) if d.code == code.value]

    def verify_progress(self) -> list[list[Any]]:
        """The notifications of each "Verifying references" progress token."""
        out = []
        for values in self.client.progress_reports.values():
            if values and getattr(values[0], "title", None) == TITLE:
                out.append(list(values))
        return out

    def verify_tokens(self) -> list[types.ProgressToken]:
        return [
            token
            for token, values in self.client.progress_reports.items()
            if values and getattr(values[0], "title", None) == TITLE
        ]

    def finished_runs(self) -> int:
        return sum(1 for values in self.verify_progress() if values[-1].kind == "end")


VERIFY_CODES = frozenset(
    {
        Code.DOI_NOT_FOUND,
        Code.DOI_OTHER_WORK,
        Code.NOT_FOUND,
        Code.TITLE_MISMATCH,
        Code.AUTHOR_ADDED,
        Code.AUTHOR_DROPPED,
        Code.AUTHOR_SUBSTITUTED,
        Code.YEAR_MISMATCH,
        Code.VENUE_MISMATCH,
        Code.VOLUME_MISMATCH,
        Code.ISSUE_MISMATCH,
        Code.PAGES_MISMATCH,
        Code.RETRACTED,
        Code.CORRECTED,
        Code.MISSING_DOI,
        Code.UNVERIFIED,
        Code.PREPRINT_PUBLISHED,
    }
)

VStart = Callable[..., Awaitable[VerifyHarness]]


def server_env(replay: ReplayServer, cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
    env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
    env["CITEWARDEN_CACHE_DIR"] = str(cache)
    env["CITEWARDEN_MAILTO"] = "tests@example.org"
    return env


def status_client() -> LanguageClient:
    client = make_client()
    client.statuses = []  # type: ignore[attr-defined]

    @client.feature(STATUS)
    def on_status(params: Any) -> None:
        client.statuses.append(plain(params))  # type: ignore[attr-defined]

    return client


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture
async def vstart(tmp_path: Path, replay: ReplayServer, client_name: str) -> AsyncIterator[VStart]:
    """``await vstart(files=PROJECT, init=INIT)``: the server verifying against the replay
    server, with a fresh cache in the test's directory."""
    running: list[LanguageClient] = []

    async def _start(files: str = PROJECT, init: Any = INIT) -> VerifyHarness:
        root = tmp_path / "ws"
        marks = write_project(root, files)
        config = ClientServerConfig(
            server_command=SERVER,
            client_factory=status_client,
            server_env=server_env(replay, tmp_path / "cache"),
        )
        client: LanguageClient = await config.start()  # type: ignore[assignment]
        running.append(client)
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities(client_name),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options=init,
            )
        )
        h = VerifyHarness(client, Editor(client, root, encoding_of(result)), root, marks, result)
        h.statuses = client.statuses  # type: ignore[attr-defined]
        return h

    yield _start
    await stop_clients(running)


async def code_actions(h: Harness, name: str, range_: types.Range) -> list[Any]:
    result = await h.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)),
            range=range_,
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    # (the test client reads an action that carries only a command as a Command: the
    # lsprotocol union is ambiguous there; both have a title)
    return list(result or [])


async def current(h: Harness, name: str) -> None:
    """Wait until the diagnostics of an open file are those of its current version."""
    uri = h.uri(name)

    def done() -> bool:
        mine = [p for p in h.published if p.uri == uri]
        return bool(mine) and mine[-1].version == h.editor.versions[uri]

    await wait_for(done)


async def run_command(h: Harness, name: str, *arguments: Any) -> Any:
    result = await h.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=name, arguments=list(arguments) or None)
    )
    assert result is not None
    return result


def save(h: Harness, name: str) -> None:
    h.client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=h.uri(name)))
    )


async def hover_text(h: Harness, name: str, position: types.Position) -> str:
    result = await h.client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=h.uri(name)), position=position
        )
    )
    assert result is not None
    contents = result.contents
    assert isinstance(contents, types.MarkupContent)
    return contents.value


def inside(range_: types.Range) -> types.Position:
    return types.Position(line=range_.start.line, character=range_.start.character + 1)


# ----------------------------------------------------------------------------------------
# The main flow
# ----------------------------------------------------------------------------------------


async def test_findings_on_the_fields_then_the_doi_quick_fix_verifies_clean(
    vstart: VStart, replay: ReplayServer
) -> None:
    h = await vstart()
    # progress begins and ends, counting the entries
    await wait_for(lambda: h.finished_runs() >= 1, timeout=60)
    [run] = h.verify_progress()
    assert run[0].kind == "begin" and run[0].cancellable
    assert run[-1].kind == "end"
    reports = [v.message for v in run if v.kind == "report" and v.message]
    assert reports and reports[-1] == "5 of 5"

    await wait_for(lambda: h.by_code("refs.bib", Code.DOI_OTHER_WORK), timeout=30)
    await wait_for(lambda: h.by_code("main.tex", Code.NOT_FOUND), timeout=30)

    # the manipulated entry: an error on the DOI value (the scale's severity of a DOI of
    # another work, above its tier E's warning), saying what Crossref says
    [other] = h.by_code("refs.bib", Code.DOI_OTHER_WORK)
    assert other.range == h.mark("refs.bib", "wrong_doi")
    assert other.severity == types.DiagnosticSeverity.Error
    assert other.message.startswith("Crossref: DOI 10.1371/journal.ppat.1008184 belongs to")
    assert "10.1111/ele.14024" in other.message
    related = [r.location.uri for r in other.related_information or []]
    assert "https://doi.org/10.1111/ele.14024" in related

    # the fabricated entry: errors (tier H) on its DOI and its title ...
    [gone] = h.by_code("refs.bib", Code.DOI_NOT_FOUND)
    assert gone.range == h.mark("refs.bib", "fake_doi")
    assert gone.severity == types.DiagnosticSeverity.Error
    assert gone.message.startswith("doi.org: DOI 10.1126/foo does not exist")
    [missing] = h.by_code("refs.bib", Code.NOT_FOUND)
    assert missing.range == h.mark("refs.bib", "fake_title")
    assert missing.severity == types.DiagnosticSeverity.Error
    # ... and at every citation of it, in LaTeX and in Markdown
    [site] = h.by_code("main.tex", Code.NOT_FOUND)
    assert site.range == h.mark("main.tex", "cite_fake")
    assert site.severity == types.DiagnosticSeverity.Error
    assert site.related_information
    assert site.related_information[0].location.uri == h.uri("refs.bib")
    assert site.related_information[0].location.range == h.mark("refs.bib", "fake_title")
    await wait_for(lambda: h.by_code("paper.md", Code.NOT_FOUND))
    [md_site] = h.by_code("paper.md", Code.NOT_FOUND)
    assert md_site.range == h.mark("paper.md", "md_fake")

    # the digit swap: a warning (tier M, the severity scale) on the pages value; the real
    # work without DOI: a hint on its key offering the DOI
    [pages] = h.by_code("refs.bib", Code.PAGES_MISMATCH)
    assert pages.range == h.mark("refs.bib", "pages")
    assert pages.severity == types.DiagnosticSeverity.Warning
    assert "digit swap" in pages.message
    hints = {h.editor.slice("refs.bib", d.range) for d in h.by_code("refs.bib", Code.MISSING_DOI)}
    assert hints == {"boettiger2018", "boettiger2020"}
    # the real entry: verified, only the correction notice Crossref records for it
    assert [
        d.code for d in h.verification("refs.bib") if d.range == h.mark("refs.bib", "key_sadasivan")
    ] == [Code.CORRECTED.value]
    # nothing on the verified works but notes
    for d in h.verification("refs.bib"):
        if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning):
            assert d.code in {
                Code.DOI_OTHER_WORK,
                Code.DOI_NOT_FOUND,
                Code.NOT_FOUND,
                Code.PAGES_MISMATCH,
            }

    # the status notification: 5 entries, tiers H 1 (fabricated), E 1 (other DOI),
    # M 1 (pages), D 2 -> score 100 - 12 - 5 - 2
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False)
    last = h.statuses[-1]
    assert last["tiers"] == {"H": 1, "E": 1, "M": 1, "D": 2}
    assert last["score"] == 81
    assert (last["verified"], last["total"]) == (5, 5)
    assert any(s["verifying"] for s in h.statuses)
    command = await run_command(h, "citewarden.status")
    assert command["score"] == 81 and command["tiers"] == last["tiers"]

    # hover on the citation of the fabricated entry and on the real entry's key
    text = await hover_text(h, "main.tex", inside(h.mark("main.tex", "cite_fake")))
    assert "no such work found" in text and "risk tier H" in text
    h.editor.open("refs.bib")
    text = await hover_text(h, "refs.bib", inside(h.mark("refs.bib", "key_sadasivan")))
    assert "Matched Crossref record" in text and "10.1371/journal.pone.0033693" in text

    # the quick fixes on the DOI: replace it (preferred), open the record, ignore the entry
    actions = await code_actions(h, "refs.bib", h.mark("refs.bib", "wrong_doi"))
    titles = [a.title for a in actions]
    assert "Replace DOI with 10.1111/ele.14024" in titles
    assert "Open record at Crossref" in titles
    assert any(t.startswith("Ignore this entry") for t in titles)
    fix = next(a for a in actions if a.title == "Replace DOI with 10.1111/ele.14024")
    assert fix.is_preferred and fix.edit is not None
    before = replay.requests_to("/crossref")
    h.editor.apply(fix.edit)
    assert "doi = {10.1111/ele.14024}," in h.editor.text("refs.bib")
    # the entry changed: its old verdict is gone at once (never shown on the new text)
    await wait_for(lambda: not h.by_code("refs.bib", Code.DOI_OTHER_WORK))
    # saving verifies it again: clean
    save(h, "refs.bib")
    await wait_for(lambda: h.finished_runs() >= 2, timeout=60)
    await wait_for(
        lambda: h.statuses[-1]["verifying"] is False and h.statuses[-1]["tiers"]["E"] == 0
    )
    assert replay.requests_to("/crossref") > before, "the changed entry was verified again"
    key_line = h.mark("refs.bib", "key_2022").start.line
    doi_line = key_line + 8
    assert not [d for d in h.verification("refs.bib") if key_line <= d.range.start.line <= doi_line]
    assert h.statuses[-1]["score"] == 86
    text = await hover_text(h, "refs.bib", inside(h.mark("refs.bib", "key_2022")))
    assert "**Verification:** verified" in text
    # the other entries were not verified again (their identity did not change)
    second = h.verify_progress()[1]
    assert [v.message for v in second if v.kind == "report" and v.message][-1] == "1 of 1"


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_findings_of_entries_an_edit_moved_move_with_them(vstart: VStart) -> None:
    """A line typed in front of verified entries: their findings (carried over, not made
    again) land on the same text one line down, and their fixes still apply there."""
    h = await vstart()
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False, timeout=60)
    await wait_for(lambda: h.by_code("refs.bib", Code.PAGES_MISMATCH), timeout=30)
    h.editor.open("refs.bib")
    await current(h, "refs.bib")

    def seen() -> list[tuple[object, str, str, int]]:
        return sorted(
            (d.code, d.message, h.editor.slice("refs.bib", d.range), d.range.start.line)
            for d in h.verification("refs.bib")
        )

    before = seen()
    assert len(before) >= 5
    first_line = h.mark("refs.bib", "key_2018").start.line  # the second entry's line
    # a comment line between the first two entries, then a key typed into (and back)
    h.editor.replace("refs.bib", "\n@article{boettiger2018", "\n% moved\n@article{boettiger2018")
    await current(h, "refs.bib")
    after = seen()
    expected = sorted(
        (code, message, text, line + 1 if line >= first_line else line)
        for code, message, text, line in before
    )
    assert after == expected
    h.editor.replace("refs.bib", "@article{boettiger2022", "@article{boettiger2022x")
    await current(h, "refs.bib")
    h.editor.replace("refs.bib", "@article{boettiger2022x", "@article{boettiger2022")
    await current(h, "refs.bib")
    assert seen() == expected
    # the moved entry's correction edits the moved text
    [pages] = h.by_code("refs.bib", Code.PAGES_MISMATCH)
    assert h.editor.slice("refs.bib", pages.range) == "663--617"
    actions = await code_actions(h, "refs.bib", pages.range)
    fix = next(a for a in actions if a.title.startswith("Set pages to"))
    h.editor.apply(fix.edit)
    assert "pages = {663--671}," in h.editor.text("refs.bib")
    assert "% moved\n@article{boettiger2018" in h.editor.text("refs.bib")


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_bibliography_changed_on_disk_is_verified_again(
    vstart: VStart, replay: ReplayServer
) -> None:
    h = await vstart()
    await wait_for(lambda: h.by_code("refs.bib", Code.DOI_OTHER_WORK), timeout=60)
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False)
    before = replay.requests_to("/crossref")
    # another program corrects the DOI in the file, which is not open in the editor
    bib = h.root / "refs.bib"
    text = bib.read_text(encoding="utf-8")
    bib.write_text(text.replace("10.1371/journal.ppat.1008184", "10.1111/ele.14024"), "utf-8")
    h.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=h.uri("refs.bib"), type=types.FileChangeType.Changed)]
        )
    )
    await wait_for(lambda: not h.by_code("refs.bib", Code.DOI_OTHER_WORK), timeout=30)
    await wait_for(
        lambda: h.statuses[-1]["verifying"] is False and h.statuses[-1]["tiers"]["E"] == 0,
        timeout=60,
    )
    assert replay.requests_to("/crossref") > before, "the changed entry was verified again"
    assert h.statuses[-1]["verified"] == h.statuses[-1]["total"] == 5


async def test_update_entry_and_add_doi_and_ignore(vstart: VStart) -> None:
    h = await vstart()
    await wait_for(lambda: h.finished_runs() >= 1, timeout=60)
    await wait_for(lambda: h.by_code("refs.bib", Code.DOI_NOT_FOUND), timeout=30)
    h.editor.open("refs.bib")
    # the digit swap: fix the pages alone, or update the entry from Crossref
    actions = await code_actions(h, "refs.bib", h.mark("refs.bib", "pages"))
    titles = [a.title for a in actions]
    assert "Set pages to “663--671”" in titles
    assert "Update entry from Crossref" in titles
    update = next(a for a in actions if a.title == "Update entry from Crossref")
    assert update.edit is not None
    h.editor.apply(update.edit)
    text = h.editor.text("refs.bib")
    assert "pages = {663--671}," in text
    assert "doi = {10.1007/s12080-020-00477-4}" in text
    assert "@article{boettiger2020,\n  author = {Boettiger, Carl}," in text  # key, fields kept

    # the DOI a real entry lacks: one keystroke adds the field
    await current(h, "refs.bib")
    [hint] = [
        d
        for d in h.by_code("refs.bib", Code.MISSING_DOI)
        if d.range == h.mark("refs.bib", "key_2018")
    ]
    assert hint.severity == types.DiagnosticSeverity.Hint
    actions = await code_actions(h, "refs.bib", hint.range)
    add = next(a for a in actions if a.title == "Add DOI 10.1111/ele.13085")
    assert add.edit is not None
    h.editor.apply(add.edit)
    assert "pages = {1255--1267},\n  doi = {10.1111/ele.13085}" in h.editor.text("refs.bib")

    # ignore the fabricated entry: a comment line above it; its findings go everywhere
    await current(h, "refs.bib")
    [gone] = h.by_code("refs.bib", Code.DOI_NOT_FOUND)
    actions = await code_actions(h, "refs.bib", gone.range)
    ignore = next(a for a in actions if a.title.startswith("Ignore this entry"))
    assert ignore.edit is not None
    h.editor.apply(ignore.edit)
    assert "\n% citewarden: ignore\n@article{fake2023," in h.editor.text("refs.bib")
    await wait_for(lambda: not h.by_code("refs.bib", Code.DOI_NOT_FOUND))
    await wait_for(lambda: not h.by_code("main.tex", Code.NOT_FOUND))
    assert not h.by_code("refs.bib", Code.NOT_FOUND)
    # each file's diagnostics are a notification of their own: paper.md's may come next
    await wait_for(lambda: not h.by_code("paper.md", Code.NOT_FOUND))


# ----------------------------------------------------------------------------------------
# Staleness, cancellation, offline, failures (one client is enough)
# ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_editing_while_verifying_publishes_nothing_stale(
    vstart: VStart, replay: ReplayServer
) -> None:
    replay.latency = 0.8
    h = await vstart()
    uri = h.editor.open("refs.bib")
    await wait_for(lambda: h.verify_progress(), timeout=30)
    # change the fabricated entry's DOI while its first look-up is still on the wire
    h.editor.replace("refs.bib", "10.1126/foo", "10.1126/bar")
    await wait_for(lambda: h.finished_runs() >= 1, timeout=90)
    replay.latency = 0.0
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False)
    # the other entries get their verdicts (published just after the run's last status)
    await wait_for(lambda: h.by_code("refs.bib", Code.DOI_OTHER_WORK))
    published = [p for p in h.published if p.uri == uri]
    assert published
    # the verdict on the old DOI was never published: its work was cancelled
    for p in published:
        assert not [d for d in p.diagnostics if d.code == Code.DOI_NOT_FOUND.value]
    assert replay.requests_to("/doi/10.1126/foo") == 0
    # every publish after the edit is for the edited version
    after_edit = [p for p in published if p.version == h.editor.versions[uri]]
    assert after_edit
    assert all(
        p.version == h.editor.versions[uri] for p in published[published.index(after_edit[0]) :]
    )


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_cancelling_progress_stops_requests(vstart: VStart, replay: ReplayServer) -> None:
    replay.latency = 0.7
    h = await vstart(
        files=MANY, init={**INIT, "verify": {"sources": ["crossref"], "concurrency": 1}}
    )
    await wait_for(lambda: replay.requests_to("/crossref") >= 1, timeout=30)
    [token] = h.verify_tokens()
    h.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    await wait_for(lambda: h.finished_runs() >= 1, timeout=30)
    settled = replay.requests_to("/crossref")
    replay.latency = 0.0
    await asyncio.sleep(2.0)
    # nothing more was asked once the run ended; not every entry was verified
    assert replay.requests_to("/crossref") == settled
    assert settled < 6
    status = await run_command(h, "citewarden.status")
    assert status["verifying"] is False
    assert status["verified"] < status["total"] == 6


@pytest.mark.parametrize("client_name", ["neovim"])
async def test_offline_mode_gives_hints_not_errors(vstart: VStart, replay: ReplayServer) -> None:
    h = await vstart(init={**INIT, "verify": {"sources": ["crossref", "doi"], "offline": True}})
    await wait_for(lambda: h.finished_runs() >= 1, timeout=30)
    await wait_for(lambda: len(h.by_code("refs.bib", Code.UNVERIFIED)) == 5)
    for d in h.verification("refs.bib"):
        assert d.code == Code.UNVERIFIED.value
        assert d.severity == types.DiagnosticSeverity.Hint
        assert "offline" in d.message
    assert not h.verification("main.tex")
    assert replay.requests_to("/") == 0, "offline: no request reached a source"
    assert h.statuses[-1]["statuses"] == {"unverified": 5}
    assert h.statuses[-1]["score"] == 100


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_source_failing_mid_run_gives_unverified_never_fabricated(
    vstart: VStart, replay: ReplayServer
) -> None:
    replay.latency = 0.4
    h = await vstart(
        files=MANY, init={**INIT, "verify": {"sources": ["crossref"], "concurrency": 2}}
    )
    await wait_for(lambda: replay.requests_to("/crossref") >= 1, timeout=30)
    replay.inject("503", path="/crossref", times=10_000, retry_after="0")
    await wait_for(lambda: h.finished_runs() >= 1, timeout=90)
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False)
    diags = h.verification("refs.bib")
    unverified = [d for d in diags if d.code == Code.UNVERIFIED.value]
    assert unverified, "entries checked after the failure are unverified"
    assert all(d.severity == types.DiagnosticSeverity.Hint for d in unverified)
    assert any("503" in d.message for d in unverified)
    assert not [d for d in diags if d.code in (Code.NOT_FOUND.value, Code.DOI_NOT_FOUND.value)]
    assert not [
        d
        for d in diags
        if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)
    ]
    status = h.statuses[-1]
    assert status["tiers"]["H"] == 0 and status["score"] == 100


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_report_command_writes_the_verdicts(vstart: VStart, tmp_path: Path) -> None:
    h = await vstart()
    await wait_for(lambda: h.finished_runs() >= 1, timeout=60)
    await wait_for(lambda: h.by_code("refs.bib", Code.DOI_NOT_FOUND))
    result = await run_command(h, "citewarden.report", "json")
    path = Path(result["path"])
    assert path == h.root / "citewarden-report.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    by_key = {e["key"]: e for e in data["entries"]}
    assert by_key["fake2023"]["tier"] == "H"
    assert by_key["boettiger2022"]["corrections"] == {"doi": "10.1111/ele.14024"}
    assert data["score"] == 81
    (h.root / "out").mkdir()  # (no folder is made for a report)
    html = await run_command(h, "citewarden.report", {"format": "html", "path": "out/r.html"})
    page = Path(html["path"]).read_text(encoding="utf-8")
    assert Path(html["path"]) == h.root / "out" / "r.html"
    assert "fake2023" in page and "<html" in page.lower()


#: ``boettiger2022`` defined in two bibliographies, the second time for an invented work.
TWICE = r"""
--- main.tex
\documentclass{article}
\begin{document}
Forecasts \cite{boettiger2022}.
\bibliography{refs,other}
\end{document}
--- refs.bib
@article{boettiger2022,
  author = {Boettiger, Carl},
  title = {The forecast trap},
  journal = {Ecology Letters},
  year = {2022},
  volume = {25},
  number = {7},
  pages = {1655--1664},
  doi = {10.1111/ele.14024},
}
--- other.bib
@article{boettiger2022,
  author = {Roe, Richard},
  title = {Gravity waves from nowhere},
  journal = {Journal of Imaginary Results},
  year = {2023},
  doi = {10.1126/foo},
}
"""


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_report_command_gives_each_entry_of_a_key_defined_twice_its_own_verdict(
    vstart: VStart,
) -> None:
    h = await vstart(files=TWICE)
    await wait_for(lambda: h.finished_runs() >= 1, timeout=60)
    await wait_for(lambda: h.by_code("other.bib", Code.DOI_NOT_FOUND))
    result = await run_command(h, "citewarden.report", "json")
    data = json.loads(Path(result["path"]).read_text(encoding="utf-8"))
    rows = {Path(e["file"]).name: e for e in data["entries"] if e["key"] == "boettiger2022"}
    assert set(rows) == {"refs.bib", "other.bib"}
    assert rows["refs.bib"]["status"] == "verified"
    assert rows["other.bib"]["tier"] == "H"


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_report_command_never_follows_a_link_or_opens_a_fifo_planted_in_the_folder(
    vstart: VStart, tmp_path: Path
) -> None:
    """A cloned repository may hold ``citewarden-report.html`` as a link to one of the
    user's files, or as a FIFO: the report used to be written through the link (the file
    overwritten with HTML) and to wait for ever on the FIFO."""
    from pygls.exceptions import JsonRpcException

    h = await vstart()
    await wait_for(lambda: h.finished_runs() >= 1, timeout=60)
    victim = tmp_path / "victim.txt"
    victim.write_text("the user's own file\n", encoding="utf-8")
    (h.root / "citewarden-report.html").symlink_to(victim)
    os.mkfifo(h.root / "citewarden-report.json")
    with pytest.raises(JsonRpcException, match="a symbolic link, not a regular file"):
        await run_command(h, "citewarden.report", "html")
    with pytest.raises(JsonRpcException, match="a named pipe \\(FIFO\\), not a regular file"):
        await asyncio.wait_for(run_command(h, "citewarden.report", "json"), 30)
    assert victim.read_text(encoding="utf-8") == "the user's own file\n"
    assert (h.root / "citewarden-report.html").is_symlink()
    written = await run_command(h, "citewarden.report", {"format": "html", "path": "r.html"})
    assert "<html" in Path(written["path"]).read_text(encoding="utf-8").lower()
    assert not [p.name for p in h.root.iterdir() if p.name.endswith(".tmp")]

    # a file of the project is never replaced by the report, under any name
    bib = (h.root / "refs.bib").read_bytes()
    (h.root / "alias.bib").symlink_to(h.root / "refs.bib")
    for target in ("refs.bib", str(h.root / "refs.bib"), "alias.bib"):
        with pytest.raises(JsonRpcException, match="is a file of the project") as refused:
            await run_command(h, "citewarden.report", {"format": "json", "path": target})
        assert refused.value.code == -32602
    assert (h.root / "refs.bib").read_bytes() == bib
    # arguments of the wrong kind are the client's mistake: InvalidParams, no traceback
    # and so are a misspelt name, a third argument and a folder: each wrote a report (at the
    # default name, or as a file named as the folder)
    (h.root / "citewarden-report.json").unlink()
    for bad in (
        {"format": ["html"]},
        {"format": {}},
        {"path": "a\x00b"},
        {"path": 3},
        {"format": "json", "output": "mine.json"},
        {"format": "json", "path": "folder/"},
    ):
        with pytest.raises(JsonRpcException) as wrong:
            await run_command(h, "citewarden.report", bad)
        assert wrong.value.code == -32602, bad
        assert "Traceback" not in str(wrong.value.data or ""), bad
    with pytest.raises(JsonRpcException) as wrong:
        await run_command(h, "citewarden.report", "json", "r.json", "extra")
    assert wrong.value.code == -32602
    assert not (h.root / "citewarden-report.json").exists()
    assert not (h.root / "folder").exists() and not (h.root / "mine.json").exists()


# ----------------------------------------------------------------------------------------
# The pieces on their own (no server process)
# ----------------------------------------------------------------------------------------

BIB = """@string{el = {Ecology Letters}}

@article{boettiger2022,
  author = {Boettiger, Carl},
  title = {The forecast trap},
  journal = el,
  year = {2022},
  pages = {1655--1664},
  note = {Read twice},
  doi = {10.1371/journal.ppat.1008184},
}
"""


def _verdict(tier: Tier, *issues: Issue, **kw: Any) -> Verdict:
    status = kw.pop("status", Status.MISMATCH)
    return Verdict("boettiger2022", status, tier, issues=issues, **kw)


def test_severity_follows_the_tier_and_the_settings(tmp_path: Path) -> None:
    bib_path = tmp_path / "refs.bib"
    bib_path.write_text(BIB, encoding="utf-8")
    ws = Workspace(Settings())
    ws.add_file(bib_path)
    entry = parse_bibtex(bib_path, BIB).entries[0]
    other = Issue(Code.DOI_OTHER_WORK, "DOI 10.1371/journal.ppat.1008184 belongs to ...", "doi")
    note = Issue(Code.UNVERIFIED, "could not be checked: timeout (crossref)")
    verdict = _verdict(Tier.E, other, note, sources=("crossref",))

    def shown(verify: VerifySettings, v: Verdict = verdict) -> list[Finding]:
        return Policy(Settings(verify=verify)).apply(ws, entry_findings(entry, v, BIB))

    found = shown(VerifySettings())
    assert [(f.code, f.severity) for f in found] == [
        (Code.DOI_OTHER_WORK, Severity.ERROR),  # the scale: never below the code's own
        (Code.UNVERIFIED, Severity.HINT),  # a note keeps its own severity
    ]
    doi = entry.field("doi")
    assert doi is not None and found[0].location.span == doi.value_span
    assert found[0].message.startswith("Crossref: DOI 10.1371")
    assert found[1].location.span == entry.key_span
    louder = VerifySettings(tier_severity={"E": "error"})
    assert shown(louder)[0].severity is Severity.ERROR
    quiet = VerifySettings(tier_severity={"E": "off"})
    assert [f.code for f in shown(quiet)] == [Code.UNVERIFIED]
    assert shown(louder, _verdict(Tier.D, status=Status.VERIFIED)) == []


def test_tier_severity_setting_is_checked() -> None:
    settings, problems = merge_settings(
        Settings(), {"verify": {"tier_severity": {"H": "warning", "X": "error", "M": "loud"}}}, "t"
    )
    assert settings.verify.tier_severity["H"] == "warning"
    assert settings.verify.tier_severity["M"] == "warning"  # the invalid value fell back
    assert sorted(p.key for p in problems) == ["verify.tier_severity.M", "verify.tier_severity.X"]


def test_ignore_comment_suppresses_the_entry_for_the_parser() -> None:
    path = Path("/p/refs.bib")
    bib = parse_bibtex(path, BIB)
    entry = bib.entries[0]
    fix = ignore_fix(entry, BIB)
    assert fix is not None
    [edit] = fix.edits
    text = BIB[: edit.span.start] + edit.new_text + BIB[edit.span.end :]
    assert "\n% citewarden: ignore\n@article{boettiger2022," in text
    again = parse_bibtex(path, text)
    line = text.count("\n", 0, again.entries[0].span.start)
    assert line in again.suppressed_lines
    assert ignore_fix(entry, BIB) is not None
    csl = dataclasses.replace(entry, path=Path("/p/refs.json"))
    assert ignore_fix(csl, BIB) is None


def test_corrections_are_minimal_edits_and_macros_are_left_alone() -> None:
    entry = parse_bibtex(Path("/p/refs.bib"), BIB).entries[0]
    fix = correction_fix(entry, BIB, "doi", "10.1111/ele.14024")
    assert fix is not None and fix.title == "Replace DOI with 10.1111/ele.14024"
    [edit] = fix.edits
    assert BIB[edit.span.start : edit.span.end] == "10.1371/journal.ppat.1008184"
    # a value written with an @string macro is not rewritten
    assert correction_fix(entry, BIB, "journal", "Ecology letters") is None


def test_fingerprint_changes_with_identity_fields_only() -> None:
    path = Path("/p/refs.bib")
    base = fingerprint(parse_bibtex(path, BIB).entries[0])
    renamed = BIB.replace("boettiger2022", "forecast").replace("Read twice", "Read once")
    assert fingerprint(parse_bibtex(path, renamed).entries[0]) == base
    for old, new in (("1655--1664", "1655--1646"), ("{2022}", "{2021}"), ("ppat", "pbio")):
        changed = parse_bibtex(path, BIB.replace(old, new)).entries[0]
        assert fingerprint(changed) != base, old


def test_the_fingerprint_covers_every_field_verification_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The editor reuses a verdict while the fingerprint stays the same, so every field the
    verification reads must be in it: an edited ISSN, series or arXiv note re-verifies
    the entry, as `check` would.  Entries lacking the usual fields make the fall-backs
    (series for a venue, an arXiv id in arxiv / arxivid / note) be read too."""
    import sys
    from datetime import date

    from citewarden.lsp.verify_state import ID_TEXT_FIELDS, IDENTITY_FIELDS
    from citewarden.model.bibliography import Entry
    from citewarden.verify.engine import Verifier
    from citewarden.verify.normalize import make_entry
    from citewarden.verify.records import Person, WorkRecord

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench" / "accuracy"))
    from memory_source import MemorySource

    read: set[str] = set()
    field = Entry.field

    def recording(self: Entry, name: str) -> Any:
        read.add(name.lower())
        return field(self, name)

    monkeypatch.setattr(Entry, "field", recording)
    work = WorkRecord(
        "crossref",
        "A study of widgets",
        (Person("Smith", "Jane"),),
        2020,
        doi="10.1234/w.2020",
        venue="Journal of Widgets",
        issn=("0090-0036",),
        work_type="journal-article",
    )
    rich = {"title": work.title, "author": "Smith, Jane", "year": "2020", "doi": "10.1234/w.2020"}
    entries = [
        ("article", {**rich, "journal": "Journal of Widgets", "issn": "0090-0036"}),
        ("inproceedings", {"title": work.title, "series": "LNCS", "note": "arXiv:2001.00001"}),
        ("misc", {"title": work.title, "arxivid": "2001.00001", "howpublished": "online"}),
        ("online", {"title": work.title, "arxiv": "2001.00001", "url": "https://x.org/"}),
        ("book", {"title": work.title, "isbn": "978-3-16-148410-0", "date": "2020"}),
    ]

    async def verify_all() -> None:
        settings = VerifySettings(sources=("crossref",))
        verifier = Verifier([MemorySource("crossref", [work])], settings, today=date(2026, 1, 1))
        for kind, fields in entries:
            await verifier.verify(make_entry("k", kind, fields))

    asyncio.run(verify_all())
    assert {"issn", "series", "note", "arxivid", "arxiv", "isbn"} <= read
    assert read - {""} <= IDENTITY_FIELDS | ID_TEXT_FIELDS
    # a note counts by the arXiv id it names
    note = parse_bibtex(Path("/p/refs.bib"), BIB).entries[0]
    with_id = parse_bibtex(Path("/p/refs.bib"), BIB.replace("Read twice", "arXiv:2001.00001"))
    assert fingerprint(with_id.entries[0]) != fingerprint(note)


def _connections_to(pid: int, port: int) -> int:
    """Established TCP connections of process ``pid`` to 127.0.0.1:``port``."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    count = 0
    for line in Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        remote, state, inode = fields[2], fields[3], fields[9]
        if state == "01" and inode in inodes and int(remote.split(":")[1], 16) == port:
            count += 1
    return count


@pytest.mark.parametrize("client_name", ["visual-studio-code"])
async def test_shutdown_closes_the_verification_clients(
    vstart: VStart, replay: ReplayServer
) -> None:
    """After ``shutdown`` (before ``exit``) no connection to a source is left open."""
    h = await vstart()
    await wait_for(lambda: h.statuses and h.statuses[-1]["verifying"] is False, timeout=60)
    server = h.client._server  # the server process pytest-lsp started
    assert server is not None
    port = int(replay.url.rsplit(":", 1)[1].split("/")[0])
    assert _connections_to(server.pid, port) > 0, "verifying kept connections to reuse"
    await h.client.shutdown_async(None)
    try:
        assert _connections_to(server.pid, port) == 0
    finally:
        h.client.exit(None)
        await asyncio.wait_for(server.wait(), 30)
        h.client.capabilities = None  # shut down here: the fixture's teardown need not


# ----------------------------------------------------------------------------------------
# The citation's hover reads the abstract another record of the work lends
# ----------------------------------------------------------------------------------------

FILTERS = r"""
--- main.tex
\documentclass{article}
\begin{document}
Buckets of fingerprints answer membership queries quickly \cite{⟦cite_vqf|pandey2021⟧}.
\bibliography{refs}
\end{document}
--- refs.bib
@inproceedings{pandey2021,
  title = {Vector Quotient Filters},
  author = {Pandey, Prashant and Conway, Alex and Durie, Joe and Bender, Michael A. and Farach-Colton, Martin and Johnson, Rob},
  booktitle = {Proceedings of the 2021 International Conference on Management of Data},
  year = {2021},
  doi = {10.1145/3448016.3452841},
}
"""


async def test_the_citation_hover_shows_the_abstract_openalex_lends(
    vstart: VStart, replay: ReplayServer
) -> None:
    """Crossref's record of the paper has no abstract; OpenAlex's record of its DOI has
    one, asked in a batch, and the hover scores the sentence against it and names it."""
    init = {"debounce_ms": 50, "verify": {"sources": ["crossref", "openalex"]}}
    h = await vstart(files=FILTERS, init=init)
    h.editor.open("main.tex")
    await wait_for(lambda: h.statuses and h.statuses[-1].get("verified") == 1, timeout=30)
    await wait_for(lambda: h.statuses[-1]["verifying"] is False, timeout=30)
    at = inside(h.mark("main.tex", "cite_vqf"))

    async def lent() -> str | None:
        text = await hover_text(h, "main.tex", at)
        return text if "Abstract (OpenAlex):" in text else None

    text = await wait_for_async(lent, timeout=30)  # asked after the verdict was shown
    assert "Matched Crossref record" in text
    assert "cited work's title and abstract" in text
    assert any(s.path == "/openalex/works" and "filter=doi" in s.query for s in replay.log), (
        "the abstract was asked in OpenAlex's batch"
    )


async def test_the_verdict_is_shown_before_the_abstract_is_lent(
    vstart: VStart, replay: ReplayServer
) -> None:
    """OpenAlex answers 3 s late: the verdict (and its diagnostics) does not wait for the
    abstract, which only the citation context reads; the hover has it once it came."""
    replay.latencies["/openalex"] = 3.0
    init = {"debounce_ms": 50, "verify": {"sources": ["crossref", "openalex"]}}
    h = await vstart(files=FILTERS, init=init)
    h.editor.open("main.tex")
    await wait_for(lambda: h.statuses and h.statuses[-1].get("verified") == 1, timeout=30)
    at = inside(h.mark("main.tex", "cite_vqf"))
    first = await hover_text(h, "main.tex", at)
    assert "Matched Crossref record" in first and "Abstract (OpenAlex):" not in first

    async def lent() -> str | None:
        text = await hover_text(h, "main.tex", at)
        return text if "Abstract (OpenAlex):" in text else None

    await wait_for_async(lent, timeout=30)


INLINE = r"""
--- paper.md
---
title: Notes
references:
- id: boettiger2022
  type: article-journal
  author:
  - family: Boettiger
    given: Carl
  title: The forecast trap
  container-title: Ecology Letters
  issued:
    date-parts: [[2022]]
  DOI: ⟦inline_doi|10.1371/journal.ppat.1008184⟧
---

Forecasts [@boettiger2022].
"""


async def test_the_references_a_markdown_document_defines_are_verified(vstart: VStart) -> None:
    """A `references:` item in the document's own metadata is verified as a .bib entry is:
    the DOI of another work is found on its DOI, the status counts it, and the quick fix
    writes the right DOI into the item's YAML (then nothing is left to report)."""
    h = await vstart(files=INLINE)
    await wait_for(lambda: h.by_code("paper.md", Code.DOI_OTHER_WORK), timeout=60)
    [other] = h.by_code("paper.md", Code.DOI_OTHER_WORK)
    assert other.range == h.mark("paper.md", "inline_doi")
    assert "10.1111/ele.14024" in other.message
    await wait_for(lambda: h.statuses and h.statuses[-1]["total"] == 1)
    h.editor.open("paper.md")
    actions = await code_actions(h, "paper.md", other.range)
    fix = next(a for a in actions if a.title == "Replace DOI with 10.1111/ele.14024")
    assert fix.edit is not None
    h.editor.apply(fix.edit)
    assert "  DOI: 10.1111/ele.14024\n---\n" in h.editor.text("paper.md")
    await wait_for(lambda: not h.by_code("paper.md", Code.DOI_OTHER_WORK), timeout=30)
