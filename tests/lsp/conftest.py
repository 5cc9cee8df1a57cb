"""End-to-end fixtures: the real server process driven by pytest-lsp's client.

Every test that uses ``start`` runs twice, once with VS Code's and once with Neovim's client
capabilities (pytest-lsp's bundled capability sets).
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsp_editor import Editor, encoding_of, wait_for
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from markers import Marked, write_project

SERVER = [sys.executable, "-m", "citewarden.lsp", "--stdio", "--log-level", "info"]

#: A LaTeX paper with a chapter, a Markdown paper, and the bibliography both use.
#: Non-ASCII text (accents, CJK, an emoji) stands before a dangling key in the chapter.
PROJECT = r"""
--- main.tex
\documentclass{article}
\begin{document}
See \cite{knuth1984} and \citep{dup2000}.
\input{chapters/intro}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
--- chapters/intro.tex
\section{Introduction}
Café, 日本語 and 😀 before \cite{lamport1994,⟦dangling|knuht1984⟧}.
--- refs.bib
@book{⟦knuth|knuth1984⟧,
  author = {Donald E. Knuth},
  title = {The {\TeX}book},
  publisher = {Addison-Wesley},
  year = {1984},
}

@book{lamport1994,
  author = {Leslie Lamport},
  title = {{\LaTeX}: A Document Preparation System},
  publisher = {Addison-Wesley},
  year = {1994},
}

@article{⟦orphan|unused2001⟧,
  author = {Jane Roe and John Doe},
  title = {An Entry Nobody Cites},
  journal = {Journal of Examples},
  year = {2001},
}

@misc{dup2000,
  title = {First of Two},
  year = {2000},
}

@misc{⟦dup|dup2000⟧,
  title = {Second of Two},
  year = {2000},
}
--- paper.md
---
title: A paper
bibliography: refs.bib
---

As shown by @lamport1994 and [@knuth1984; @⟦mdangling|missing2020⟧, p. 3].
"""

CLIENTS = ["visual-studio-code", "neovim"]


@dataclass
class Harness:
    """A started server, its client, the editor buffers and the project on disk."""

    client: LanguageClient
    editor: Editor
    root: Path
    marks: dict[str, Marked]
    result: types.InitializeResult

    @property
    def registrations(self) -> list[types.Registration]:
        return self.client.registrations  # type: ignore[attr-defined,no-any-return]

    @property
    def published(self) -> list[types.PublishDiagnosticsParams]:
        return self.client.published  # type: ignore[attr-defined,no-any-return]

    def uri(self, name: str) -> str:
        return self.editor.uri(name)

    def diagnostics(self, name: str) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(self.uri(name), []))

    def codes(self, name: str) -> list[str]:
        return sorted(str(d.code) for d in self.diagnostics(name))

    def mark(self, name: str, mark: str) -> types.Range:
        return self.editor.range(name, self.marks[name].named[mark])


def make_client() -> LanguageClient:
    """pytest-lsp's test client plus handlers recording registrations and every publish."""
    client = LanguageClient(converter_factory=default_converter)
    client.registrations = []  # type: ignore[attr-defined]
    client.published = []  # type: ignore[attr-defined]
    features = dict(DEFAULT_CLIENT_FEATURES)
    default_publish = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        default_publish(client, params)
        client.published.append(params)  # type: ignore[attr-defined]

    def register(client: LanguageClient, params: types.RegistrationParams) -> None:
        client.registrations.extend(params.registrations)  # type: ignore[attr-defined]

    def unregister(client: LanguageClient, params: types.UnregistrationParams) -> None:
        return None

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = publish
    features[types.CLIENT_REGISTER_CAPABILITY] = register
    features[types.CLIENT_UNREGISTER_CAPABILITY] = unregister
    register_lsp_features(client, features)
    return client


Start = Callable[..., Awaitable[Harness]]


@pytest.fixture(params=CLIENTS)
def client_name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest_asyncio.fixture
async def start(tmp_path: Path, client_name: str) -> AsyncIterator[Start]:
    """``await start(files=PROJECT, init=None, config=None, capabilities=None)``."""
    running: list[LanguageClient] = []

    async def _start(
        files: str = PROJECT,
        init: Any = None,
        config: Any = None,
        capabilities: types.ClientCapabilities | None = None,
        wait_ready: bool = True,
    ) -> Harness:
        root = tmp_path / "ws"
        marks = write_project(root, files)
        # The index tests run without verification (tests/lsp/test_lsp_verify.py covers it
        # against the replay server); no cache outside the test's directory.
        env = {**os.environ, "CITEWARDEN_CACHE_DIR": str(tmp_path / "cache")}
        if not (isinstance(init, dict) and "verify" in init):
            init = {**(init or {}), "verify": {"enabled": False}}
        client = await ClientServerConfig(
            server_command=SERVER, client_factory=make_client, server_env=env
        ).start()
        running.append(client)
        if config is not None:
            client.set_configuration(config, section="citewarden")
        caps = capabilities or client_capabilities(client_name)
        result = await client.initialize_session(
            types.InitializeParams(
                capabilities=caps,
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
                initialization_options=init,
            )
        )
        harness = Harness(client, Editor(client, root, encoding_of(result)), root, marks, result)
        if wait_ready:
            await wait_indexed(harness)
        return harness

    yield _start
    await stop_clients(running)


async def open_folder(client: LanguageClient, root: Path, init: Any) -> None:
    """Initialize ``client``'s session as VS Code does, on the one workspace folder
    ``root``, with ``init`` as its initializationOptions."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=init,
        )
    )


async def stop_clients(clients: list[LanguageClient]) -> None:
    """Shut each client's server down and stop the client (a fixture's teardown)."""
    for client in clients:
        try:
            await client.shutdown_session()
        finally:
            await client.stop()


def progress_kinds(h: Harness) -> list[list[str]]:
    """The kinds (begin/report/end) of each progress token's notifications, in order."""
    return [[v.kind for v in values] for values in h.client.progress_reports.values()]


async def wait_indexed(h: Harness) -> None:
    """Wait until the initial indexing progress has ended."""
    await wait_for(lambda: any(k and k[-1] == "end" for k in progress_kinds(h)))
