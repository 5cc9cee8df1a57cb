"""The corpus of the citation-context hover is rebuilt in the background, end to end: the
real server process and pytest-lsp's client.  A hover after the bibliography changed is
answered from the last corpus built, and shows the new one's score once it is rebuilt; a
hover sent while a rebuild runs is answered meanwhile (the server's debug log says when the
rebuild began and ended, and what was sent in between)."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest_asyncio
from lsp_editor import Editor, encoding_of, wait_for
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from citewarden.model import Code
from conftest import Harness, Start, make_client, stop_clients, wait_indexed

BIB = r"""@book{lamport1994,
  author = {Leslie Lamport},
  title = {{\LaTeX}: A Document Preparation System},
  publisher = {Addison-Wesley},
  year = {1994},
}

@book{knuth1984,
  author = {Donald E. Knuth},
  title = {The {\TeX}book},
  publisher = {Addison-Wesley},
  year = {1984},
}

@article{codd1970,
  author = {E. F. Codd},
  title = {A Relational Model of Data for Large Shared Data Banks},
  journal = {Communications of the ACM},
  year = {1970},
}
"""

FILES = (
    "--- main.tex\n"
    "\\documentclass{article}\n"
    "\\begin{document}\n"
    "Papers are typeset with a document preparation system \\cite{lamport1994}.\n"
    "Data banks \\cite{codd1970} and books \\cite{knuth1984}.\n"
    "\\bibliography{refs}\n"
    "\\end{document}\n"
    "--- refs.bib\n" + BIB
)

#: A work that fits the sentence better than the cited one: the field's best fit changes.
BETTER = r"""
@book{better2020,
  author = {Ann Example},
  title = {Typesetting Papers with a Document Preparation System},
  publisher = {Example Press},
  year = {2020},
}
"""

SCORE = re.compile(r"\*\*Citation context:\*\* relevance (\d\.\d\d)")


def doc(h: Harness, name: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=h.uri(name))


async def hover_text(h: Harness, name: str, needle: str) -> str:
    at = h.editor.position(name, h.editor.find(name, needle, within=2))
    hover = await h.client.text_document_hover_async(
        types.HoverParams(text_document=doc(h, name), position=at)
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    return hover.contents.value


def score_of(text: str) -> str:
    found = SCORE.search(text)
    assert found is not None, text
    return found.group(1)


def orphans(h: Harness, key: str) -> list[types.Diagnostic]:
    return [
        d
        for d in h.diagnostics("refs.bib")
        if d.code == Code.ORPHAN.value and key in h.editor.slice("refs.bib", d.range)
    ]


async def test_a_hover_after_the_bibliography_gains_works_uses_the_last_corpus_until_rebuilt(
    start: Start,
) -> None:
    """The new entry reaches the model with its check; the next hover is answered from the
    corpus built before it (the rebuild waits for the debounce, 3 s here), and once the
    corpus is rebuilt in the background the hover's score is the new corpus's: a better
    fitting work in the field lowers the cited work's relative score."""
    h = await start(files=FILES, init={"debounce_ms": 3000})
    h.editor.open("main.tex")
    h.editor.open("refs.bib")
    before = score_of(await hover_text(h, "main.tex", "lamport1994"))

    end = len(h.editor.text("refs.bib"))
    at = h.editor.position("refs.bib", end)
    h.editor.edit(h.uri("refs.bib"), [types.TextEdit(types.Range(at, at), BETTER)])
    await wait_for(lambda: orphans(h, "better2020"), timeout=20)  # checked and committed
    assert score_of(await hover_text(h, "main.tex", "lamport1994")) == before

    loop = asyncio.get_running_loop()
    deadline = loop.time() + 20
    after = before
    while after == before and loop.time() < deadline:
        await asyncio.sleep(0.1)
        after = score_of(await hover_text(h, "main.tex", "lamport1994"))
    assert float(after) < float(before)


# -- a hover while a rebuild runs ----------------------------------------------------------

#: Words of the generated entries' titles (a field of its own, so that the corpus is large).
WORDS = [
    "adaptive",
    "bayesian",
    "clustering",
    "dynamic",
    "efficient",
    "graph",
    "hierarchical",
    "inference",
    "kernel",
    "latent",
    "markov",
    "neural",
    "optimal",
    "parallel",
    "probabilistic",
    "random",
    "robust",
    "scalable",
    "sparse",
    "spectral",
    "stochastic",
    "structured",
    "temporal",
    "variational",
    "networks",
    "models",
    "estimation",
    "learning",
    "sampling",
    "regression",
    "embeddings",
    "retrieval",
    "signals",
    "images",
    "proteins",
    "genomes",
    "climate",
    "traffic",
    "markets",
    "languages",
    "speech",
    "sensors",
    "robots",
    "circuits",
    "compilers",
    "databases",
]
#: Entries of the large bibliography (the corpus holds at most 2 000 works).
GENERATED = 2000


def large_project() -> str:
    keys = [f"g{i:04d}" for i in range(GENERATED)]
    bib = [BIB]
    for i, key in enumerate(keys):
        title = " ".join(WORDS[(i * (n + 7) + n * n) % len(WORDS)] for n in range(9))
        bib.append(
            f"@article{{{key},\n  title = {{{title.capitalize()}}},\n  year = {{2001}},\n}}\n"
        )
    cites = [f"See \\cite{{{','.join(keys[s : s + 10])}}}." for s in range(0, len(keys), 10)]
    return (
        "--- main.tex\n\\documentclass{article}\n\\begin{document}\n"
        "Papers are typeset with a document preparation system \\cite{lamport1994}.\n"
        "Data banks \\cite{codd1970} and books \\cite{knuth1984}.\n"
        + "\n".join(cites)
        + "\n\\bibliography{refs}\n\\end{document}\n--- refs.bib\n"
        + "\n".join(bib)
    )


LStart = Callable[[str, dict[str, Any]], Awaitable[tuple[Harness, Path]]]


@pytest_asyncio.fixture
async def logged_start(tmp_path: Path) -> AsyncIterator[LStart]:
    """The server with a debug log (tmp_path/server.log), verification off."""
    running: list[LanguageClient] = []

    async def _start(files: str, init: dict[str, Any]) -> tuple[Harness, Path]:
        from markers import write_project

        root = tmp_path / "ws"
        marks = write_project(root, files)
        env = {**os.environ, "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
        log = tmp_path / "server.log"
        command = [sys.executable, "-m", "citewarden.lsp", "--stdio", "--log-level", "debug"]
        client: LanguageClient = await ClientServerConfig(  # type: ignore[assignment]
            server_command=[*command, "--log-file", str(log)],
            client_factory=make_client,
            server_env=env,
        ).start()
        running.append(client)
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("visual-studio-code"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options={**init, "verify": {"enabled": False}},
            )
        )
        h = Harness(client, Editor(client, root, encoding_of(result)), root, marks, result)
        await wait_indexed(h)
        return h, log

    yield _start
    await stop_clients(running)


BEGUN = "rebuilding the context corpus in the background"
ENDED = "context corpus rebuilt in the background"


def answered_during_rebuilds(log: str) -> list[str]:
    """The context hovers the server sent between a background rebuild's start and end."""
    inside = False
    sent: list[str] = []
    for line in log.splitlines():
        if BEGUN in line:
            inside = True
        elif ENDED in line:
            inside = False
        elif inside and "Sending data" in line and "Citation context" in line:
            sent.append(line)
    return sent


async def test_a_hover_sent_while_the_corpus_is_rebuilt_is_answered_meanwhile(
    logged_start: LStart,
) -> None:
    h, log_path = await logged_start(large_project(), {"debounce_ms": 50})
    h.editor.open("main.tex")
    h.editor.open("refs.bib")

    def log() -> str:
        return log_path.read_text(encoding="utf-8", errors="replace")

    score_of(await hover_text(h, "main.tex", "lamport1994"))  # builds the first corpus
    assert "context corpus built for the first hover: 2000 works" in log()
    hovers = 0
    for n in range(5):  # a rebuild takes a tenth of a second or more: a hover lands in one
        begun = log().count(BEGUN)
        ended = log().count(ENDED)
        at = h.editor.position("refs.bib", 0)  # among the works the corpus samples
        entry = f"@misc{{added{n},\n  title = {{Document preparation {n}}},\n}}\n\n"
        h.editor.edit(h.uri("refs.bib"), [types.TextEdit(types.Range(at, at), entry)])
        await wait_for(lambda b=begun: log().count(BEGUN) > b, timeout=30)  # type: ignore[misc]
        while log().count(ENDED) == ended:
            text = await hover_text(h, "main.tex", "lamport1994")
            hovers += 1
            assert "Citation context" in text
        if answered_during_rebuilds(log()):
            break
    during = answered_during_rebuilds(log())
    assert during, f"no hover of {hovers} landed in a rebuild"
    assert all(SCORE.search(line) for line in during)  # with its score, from the last corpus
