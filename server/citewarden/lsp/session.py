"""The state of one client connection: settings, and the wiring of document sync
(:mod:`.document_sync`), the check cycle (:mod:`.check_cycle`) and publishing
(:mod:`.publishing`).

Every change goes the same way: the handler records nothing but schedules a refresh for the
document (debounced per URI); the refresh reads the document's *current* text and version
and hands it to the check cycle, which changes and checks a fork of the project model in
its own thread and commits it; back on the event loop the publisher sends only what changed
and only for documents whose version is still the one that was checked.  Stale work is
cancelled by the task registry.

Requests read the committed project model (:class:`citewarden.project.Workspace`) in the
request worker (:meth:`Session.run`), one at a time, and never wait for a check.
"""

from __future__ import annotations

import asyncio
import logging
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from citewarden.findings.policy import Policy
from citewarden.lsp import indexing, progress
from citewarden.lsp.check_cycle import CheckCycle
from citewarden.lsp.client_answers import NoAnswer, answer
from citewarden.lsp.config import (
    SHOWN_PROBLEMS,
    ConfigSources,
    problem_message,
    section_of,
    unread_message,
)
from citewarden.lsp.convert import (
    Converter,
    document_changes_supported,
    encoding_of,
    path_of,
    uri_of,
)
from citewarden.lsp.diagnostics import DiagnosticStore, pull_supported
from citewarden.lsp.document_sync import DocumentSync
from citewarden.lsp.documents import DocumentStore, SparseIndex
from citewarden.lsp.features import Features
from citewarden.lsp.memory import CHECKS_PER_COLLECTION, IDLE_COLLECTION, settle_heap
from citewarden.lsp.publishing import Publisher
from citewarden.lsp.scheduling import TaskRegistry, Worker
from citewarden.model import Code, Finding
from citewarden.project import Workspace
from citewarden.safe_text import visible
from citewarden.settings import Settings, SettingsProblem

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Task registry group of the workspace's own work (the re-checks are
#: :data:`citewarden.lsp.document_sync.CHECK`).
WORKSPACE = "workspace"


def folder_problem(path: Path) -> str | None:
    """Why the workspace folder ``path`` is none (``"is a named pipe (FIFO)"``, ``"cannot
    be read: No such file or directory"``), None when it is a folder."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError) as exc:
        return f"cannot be read: {getattr(exc, 'strerror', None) or exc}"
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return "is a file"
    if stat.S_ISFIFO(mode):
        return "is a named pipe (FIFO)"
    return "is a socket" if stat.S_ISSOCK(mode) else "is a device"


def without_orphans(findings: Sequence[Finding]) -> Sequence[Finding]:
    """``findings`` but the orphan entries."""
    if not any(f.code is Code.ORPHAN for f in findings):
        return findings
    return [f for f in findings if f.code is not Code.ORPHAN]


class Session:
    """Per-connection state: settings, project model, diagnostics, background tasks."""

    def __init__(self, server: LanguageServer) -> None:
        self.server = server
        self.tasks = TaskRegistry()
        self.worker = Worker()
        self.config = ConfigSources()
        self.settings = Settings()
        #: The workspace folders :meth:`say_unusable_folders` looked at.
        self._said_folders: set[Path] = set()
        #: The warnings :meth:`say_once` gave.
        self._said: set[str] = set()
        self._project = Workspace(settings=self.settings, outlives_memory_errors=True)
        #: Changes and checks the project model, on a fork, one at a time.
        self.cycle = CheckCycle(self)
        self.store = DiagnosticStore()
        #: The open documents and the handling of the client's notifications about them.
        self.sync = DocumentSync(self)
        #: Line indexes of texts that are not (current) editor buffers, by path.
        self._indexes: dict[Path, SparseIndex] = {}
        #: Feature caches (worker only), by name.
        self.caches: dict[str, dict[Path, Any]] = {}
        self.converter = Converter(
            encoding_of(None), self.settings, self.index_of, self.uri_for, self.text_version
        )
        self.roots: list[Path] = []
        #: The watchers of the settings files above the first folder, registered last.
        self.settings_watchers: list[types.FileSystemWatcher] = []
        #: How many times each root is open: a folder the client added twice is a root
        #: until it is removed twice (see :meth:`DocumentSync.folders_changed`).
        self.root_opens: Counter[Path] = Counter()
        #: The policy step every finding goes through (rebuilt with settings and roots).
        self.policy = Policy(self.settings, self.roots)
        #: Checks since the last full garbage collection (see :mod:`citewarden.lsp.memory`).
        self._checks_since_collection = 0
        #: Delivers diagnostics (push or pull) for the files whose diagnostics changed.
        self.publisher = Publisher(self)
        #: Set once the first slice of the workspace is checked: requests about an open
        #: document are answered from then on.
        self.ready = asyncio.Event()
        #: Set while no folder is being indexed: what edits files or must see every file
        #: of the workspace (rename, references, code actions, add-reference) waits for it,
        #: so a key cited only in a file not yet read is neither missed nor called an orphan.
        self.indexed_all = asyncio.Event()
        self._pending_problems: list[SettingsProblem] = []
        #: how many times the editor was asked for its settings (a late answer to an
        #: earlier asking is not taken)
        self._settings_asked = 0
        #: Features layered on the index (verification), wired in server.create_server.
        self.features = Features()

    @property
    def project(self) -> Workspace:
        """The project model: as last committed by the check cycle (what requests read),
        or, in the check cycle's own thread, the fork it is changing and checking."""
        work = self.cycle.model()
        return work if work is not None else self._project

    def commit(self, work: Workspace) -> None:
        """Make ``work`` (a checked fork) the project model (in the request worker)."""
        self._project = work

    @property
    def documents(self) -> DocumentStore:
        """The client's buffers (the document sync's)."""
        return self.sync.documents

    @property
    def open(self) -> dict[Path, str]:
        """Open documents: path -> the client's URI (the document sync's)."""
        return self.sync.open

    @property
    def indexed(self) -> dict[Path, int]:
        """Version of each open document's text that the project model holds (the document
        sync's)."""
        return self.sync.indexed

    # -- setup --------------------------------------------------------------------------
    def initialize(self, params: types.InitializeParams) -> None:
        """Record what the client told us; decide encoding and diagnostics delivery."""
        ws = self.server.workspace
        self.converter.encoding = encoding_of(ws.position_encoding)
        self.documents.encoding = self.converter.encoding
        self.converter.document_changes = document_changes_supported(params.capabilities)
        folders = params.workspace_folders or []
        roots = [path_of(f.uri) for f in folders]
        if not roots and params.root_uri:
            roots = [path_of(params.root_uri)]
        elif not roots and params.root_path:
            roots = [Path(params.root_path)]
        self.root_opens = Counter(r for r in roots if r is not None)
        self.roots = list(self.root_opens)
        self.roots_to_config()
        options = params.initialization_options
        self.config.init_options = section_of(options)
        self.publisher.pull_mode = pull_supported(params.capabilities)
        self.apply_settings(show=False)

    async def start(self) -> None:
        """After ``initialized``: fetch settings, index the workspace with progress."""
        try:
            await self.fetch_client_settings()
            await self.cycle.change(Workspace.set_settings, self.settings)
            self.say_unusable_folders(self.roots)
            async with progress.WorkProgress(self.server, "citewarden: indexing") as work:
                await indexing.index(self, await indexing.walk(self, self.roots, work), work)
        finally:
            # requests wait for these; they must not wait forever if indexing failed
            self.ready.set()
            self.indexed_all.set()
        await self.worker.run(settle_heap)

    # -- settings -------------------------------------------------------------------------
    def client_supports_configuration(self) -> bool:
        ws = self.server.client_capabilities.workspace
        return bool(ws is not None and ws.configuration)

    async def fetch_client_settings(self) -> None:
        if not self.client_supports_configuration():
            return
        self._settings_asked += 1
        asked = self._settings_asked
        try:
            result = await answer(
                self.server.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="citewarden")])
                ),
                "workspace/configuration",
                late=lambda late: self._late_client_settings(asked, late),
            )
        except NoAnswer:
            return  # logged; the settings known so far apply until the answer comes
        except Exception:
            log.warning("workspace/configuration failed", exc_info=True)
            return
        self._take_client_settings(result)

    def _take_client_settings(self, result: Sequence[Any] | None) -> None:
        value = result[0] if result else None
        self.config.client = section_of(value) if value is not None else None
        self.config.client_origin = "workspace/configuration"
        self.apply_settings()

    def _late_client_settings(self, asked: int, result: Sequence[Any] | None) -> None:
        """The editor's settings, answered after the server went on without them: taken
        and the workspace checked again, unless they were asked for again since."""
        if asked != self._settings_asked:
            return

        async def take() -> None:
            self._take_client_settings(result)
            await self.cycle.change(Workspace.set_settings, self.settings)
            await self.refresh(None, force=True)

        self.tasks.spawn("workspace", "late settings", take())

    def roots_to_config(self) -> None:
        """The workspace roots changed: the settings sources and the policy follow them."""
        self.config.root = self.roots[0] if self.roots else None
        self.config.others = tuple(self.roots[1:])
        self.policy = Policy(self.settings, self.roots)

    def apply_settings(self, show: bool = True) -> bool:
        """Resolve the settings from every source; report invalid values. True if changed."""
        settings, problems = self.config.resolve()
        if show:
            self._show_unread_files()
            self._report_problems(problems)
        elif problems:
            self._pending_problems = problems
        if settings == self.settings:
            return False
        self.settings = settings
        self.converter.settings = settings
        self.policy = Policy(settings, self.roots)
        return True

    def say_unusable_folders(self, folders: Iterable[Path]) -> None:
        """Say, in one message, which workspace folders are none (a file, a FIFO, a device,
        a path that does not exist): nothing in them is checked.  Each is said once."""
        fresh = [f for f in folders if f not in self._said_folders]
        self._said_folders.update(fresh)
        said = [f"{folder} {why}" for folder in fresh if (why := folder_problem(folder))]
        if said:
            self.warn(
                visible(
                    "citewarden: not a workspace folder, nothing in it is checked: "
                    + "; ".join(said)
                )
            )

    def say_once(self, text: str) -> None:
        """Warn the editor with ``text``, unless it was said already."""
        if text not in self._said:
            self._said.add(text)
            self.warn(text)

    def warn(self, text: str) -> None:
        """Log ``text`` (said safely already) and show it in the editor as a warning."""
        log.warning("%s", text)
        self.server.window_show_message(
            types.ShowMessageParams(type=types.MessageType.Warning, message=text)
        )

    def _show_unread_files(self) -> None:
        unread = self.config.new_unread_files()
        if unread:
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Info,
                    message=unread_message(unread, self.config.config_dir),
                )
            )

    def show_pending_problems(self) -> None:
        self._show_unread_files()
        problems = self._pending_problems
        if problems:
            self._pending_problems = []
            self._report_problems(problems)

    def _report_problems(self, problems: list[SettingsProblem]) -> None:
        """Write the problems made anew to the log and the editor's log, and show those not
        shown in the last :data:`~citewarden.lsp.config.REPEAT_SECONDS` in a message."""
        made, show = self.config.new_problems(problems)
        if made:
            text = problem_message(made, self.config.kept)
            log.warning("%s", text)
            self.server.window_log_message(
                types.LogMessageParams(type=types.MessageType.Warning, message=text)
            )
        if show:
            self.server.window_show_message(
                types.ShowMessageParams(
                    type=types.MessageType.Warning,
                    message=problem_message(show, self.config.kept, SHOWN_PROBLEMS),
                )
            )

    async def settings_changed(self, raw: Any) -> None:
        """workspace/didChangeConfiguration or a changed .citewarden.toml."""
        if self.client_supports_configuration():
            await self.fetch_client_settings()
        elif raw is not None:
            self.config.client = section_of(raw)
            self.config.client_origin = "workspace/didChangeConfiguration"
            self.apply_settings()
        else:
            self.apply_settings()
        await self.cycle.change(Workspace.set_settings, self.settings)
        await self.refresh(None, force=True)

    # -- documents ------------------------------------------------------------------------
    def uri_for(self, path: Path) -> str:
        return self.open.get(path) or uri_of(path)

    def index_of(self, path: Path, project: Workspace | None = None) -> SparseIndex | None:
        """Line index of the text ``project`` (by default the committed project model)
        holds for ``path`` (in the worker, or in the check cycle's lane for its fork)."""
        text = (project or self.project).text(path)
        if text is None:
            self._indexes.pop(path, None)
            return None
        uri = self.open.get(path)
        doc = self.documents.get(uri) if uri is not None else None
        if doc is not None and doc.text is text:
            return doc.index
        cached = self._indexes.get(path)
        if cached is not None and cached.text is text:
            return cached
        index = SparseIndex(text)
        self._indexes[path] = index
        return index

    def document_version(self, path: Path) -> int | None:
        uri = self.open.get(path)
        doc = self.documents.get(uri) if uri is not None else None
        return doc.version if doc is not None else None

    def text_version(self, path: Path) -> int | None:
        """The version of the open document ``path`` whose text the project model holds
        (None for a file that is not open)."""
        return self.indexed.get(path) if path in self.open else None

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the request worker (the way requests read the committed
        project model; changes go through :attr:`cycle`)."""
        return await self.worker.run(fn, *args)

    async def change(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(model, *args)`` on the project model in the check cycle's lane."""
        return await self.cycle.change(fn, *args)

    async def ensure_current(self, path: Path | None) -> None:
        """Bring the project model up to the open document's current version."""
        if path is not None and path in self.open and not self.sync.current(path):
            await self.refresh(path)

    async def ensure_all_current(self) -> None:
        """Bring the project model up to every open document's current text (for an edit
        that may reach any of them)."""
        for path in list(self.open):
            await self.ensure_current(path)

    # -- the check cycle ------------------------------------------------------------------
    async def refresh(
        self, path: Path | None, force: bool = False, force_paths: set[Path] | None = None
    ) -> None:
        """Give the project ``path``'s current text (if open), check, publish what changed."""
        text: str | None = None
        version: int | None = None
        serial: int | None = None
        if path is not None and path in self.open:
            doc = self.documents.get(self.open[path])
            if doc is not None:
                version = doc.version
                if force or not self.sync.current(path):
                    text, serial = doc.text, doc.serial
        indexed = await self.cycle.change(self.cycle.check, path, text, version, force)
        if serial is not None and path in indexed:
            self.sync.checked_text(path, serial, indexed[path])
        self._deliver(force_paths or set(), first=path)
        self._checks_since_collection += 1
        if self._checks_since_collection >= CHECKS_PER_COLLECTION:
            self._checks_since_collection = 0
            await self.worker.run(settle_heap)
        self.tasks.debounce(WORKSPACE, "collect", IDLE_COLLECTION, self._collect_when_idle)

    async def _collect_when_idle(self) -> None:
        self._checks_since_collection = 0
        await self.worker.run(settle_heap)

    async def republish(self) -> None:
        """Publish what changed in the features' findings, without checking again."""
        await self.cycle.change(self.cycle.republish)
        self._deliver(set())

    def mark_dirty(self, paths: Iterable[Path]) -> None:
        """The text of ``paths`` may have changed (in the check cycle's lane)."""
        self.cycle.mark_dirty(paths)

    def visible(self, findings: Mapping[Path, Sequence[Finding]]) -> dict[Path, Sequence[Finding]]:
        """Drop the files the ignore globs name (the checks' findings went through the whole
        policy step already, the providers' through theirs), and, until every file of the
        workspace folders is read, the orphans: an entry cited only in a file not yet read
        is no orphan (:func:`indexing.index` publishes them once the last file is)."""
        shown = dict(findings)
        if self.settings.ignore:
            shown = {p: f for p, f in shown.items() if not self.policy.ignored(p)}
        if not self.indexed_all.is_set():
            shown = {p: without_orphans(f) for p, f in shown.items()}
        return shown

    def ignored(self, path: Path) -> bool:
        return self.policy.ignored(path)

    def _deliver(self, force_paths: set[Path], first: Path | None = None) -> None:
        """Publish what changed, then tell the features which files were delivered."""
        delivered = self.publisher.deliver(force_paths, first)
        self.features.checked(delivered)

    @property
    def pull_mode(self) -> bool:
        return self.publisher.pull_mode

    async def pull_diagnostics(self, params: types.DocumentDiagnosticParams) -> Any:
        return await self.publisher.pull_diagnostics(params)

    async def close(self) -> None:
        """``shutdown``: stop the background work, close the features' clients."""
        await self.tasks.close()
        await self.features.aclose()
        self.cycle.close()
