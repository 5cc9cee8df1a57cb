"""Document sync: which documents the client has open, and what its notifications do.

The buffers themselves (texts, versions, the edits not yet handed over) are the
:class:`~citewarden.lsp.documents.DocumentStore`'s, which the protocol updates as each
notification arrives.  :class:`DocumentSync` holds that store, which documents are open
(under which URI) and which version of each the project model holds, and turns didOpen /
didChange / didSave / didClose and workspace folder changes into changes of the project
model and (debounced) re-checks through the session's check cycle
(:meth:`~citewarden.lsp.session.Session.refresh`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from citewarden.lsp import indexing
from citewarden.lsp.convert import path_of, uri_of
from citewarden.lsp.documents import DocumentStore
from citewarden.lsp.memory import release_free_memory
from citewarden.lsp.progress import WorkProgress
from citewarden.project import Workspace, walks_into

if TYPE_CHECKING:
    from citewarden.lsp.session import Session

#: Task registry group of the re-checks.
CHECK = "check"


class DocumentSync:
    """The open documents of one session and the handling of the client's document and
    workspace folder notifications."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.documents = DocumentStore()
        #: Open documents: path -> the client's URI (of the buffer opened or changed last,
        #: when the client opened the file under more than one URI).
        self.open: dict[Path, str] = {}
        #: Every URI the file is open under, the one of :attr:`open` last.
        self.uris: dict[Path, list[str]] = {}
        #: Version of each open document's text that the project model holds.
        self.indexed: dict[Path, int] = {}
        #: Serial (:attr:`~citewarden.lsp.documents.Document.serial`) of that text: a
        #: client may send another text under the same version.
        self.checked: dict[Path, int] = {}

    def did_open(self, uri: str) -> None:
        path = path_of(uri)
        if path is None:
            return
        self._use(path, uri)
        self.forget(path)  # a document opened again may keep its version number
        # Delivered again for the opened version (pushed with it, or pulled).
        self.session.publisher.sent.pop(path, None)
        if self.session.pull_mode:
            # Its pushed list (if any) goes; the client pulls from now on.
            self.session.publisher.push(uri, None, None)
        self.schedule(path, delay=0)

    def did_change(self, uri: str) -> None:
        path = path_of(uri)
        if path is not None and uri in self.uris.get(path, ()):
            self._use(path, uri)
            self.schedule(path, delay=self.session.settings.debounce_ms / 1000)

    async def did_save(self, uri: str) -> None:
        path = path_of(uri)
        if path is None:
            return
        await self.session.features.saved(path)

    def did_close(self, uri: str) -> None:
        path = path_of(uri)
        if path is None:
            return
        uris = self.uris.get(path, [])
        if uri in uris:
            uris.remove(uri)
        if uris:  # still open under another URI: that buffer counts now
            if self.open.get(path) != uri:
                self.session.publisher.push(uri, None, None)
            self._use(path, uris[-1])
            self.schedule(path)
        else:
            self._back_to_disk(path)
            if uri != uri_of(path):
                # the file's diagnostics go to its own URI from now on: none stay under
                # the other spelling the buffer was opened by (``%69ntro.tex``, ``a/../b``)
                self.session.publisher.push(uri, None, None)

    def _back_to_disk(self, path: Path) -> None:
        """``path`` is open under no URI any more: the file on disk counts again."""
        self.uris.pop(path, None)
        self.open.pop(path, None)
        self.forget(path)
        self.session.tasks.cancel(CHECK, str(path))
        # Delivered again below as a file on disk (pushed, without a version).
        self.session.publisher.sent.pop(path, None)

        def back_to_disk(work: Workspace) -> None:
            work.close(path)
            if not self._in_a_folder(path):
                self._forget_unopened_strays(work)
            self.session.cycle.mark_dirty([path])
            # e.g. completion catalogs holding the buffer's entries
            self.session.caches.clear()

        async def reload() -> None:
            await self.session.cycle.change(back_to_disk)
            await self.session.refresh(None, force_paths={path})
            await self.session.worker.run(release_free_memory)  # the buffer's text and parse

        self.session.tasks.spawn(CHECK, str(path), reload())

    def _in_a_folder(self, path: Path) -> bool:
        """Whether the walk of a workspace folder finds ``path`` (:func:`walks_into`)."""
        return any(walks_into(root, path.parent) for root in self.session.roots)

    def _forget_unopened_strays(self, work: Workspace) -> None:
        """Forget the files outside every workspace folder, known only because they were
        open, whose projects hold no open document any more: their diagnostics (and those
        of the files they link to) go.  A file something still links to is found by the
        link."""
        strays = [p for p in work.known_files() if p not in self.open and not self._in_a_folder(p)]
        if not strays:
            return
        needed: set[Path] = set()
        for project in work.projects():
            files = (*project.documents, *project.bibliographies, *project.metadata)
            if any(p in self.open for p in files):
                needed.update(files)
        for stray in strays:
            if stray not in needed:
                work.remove(stray)

    def _use(self, path: Path, uri: str) -> None:
        """Check and publish the buffer of ``uri`` for ``path`` from now on."""
        uris = self.uris.setdefault(path, [])
        if uris[-1:] != [uri]:
            if uri in uris:
                uris.remove(uri)
            uris.append(uri)
        before = self.open.get(path)
        self.open[path] = uri
        if before is not None and before != uri:
            # the diagnostics go to the other URI; the buffer's text is another
            self.forget(path)
            self.session.publisher.sent.pop(path, None)
            self.session.publisher.push(before, None, None)

    def forget(self, path: Path) -> None:
        """The project model holds no buffer text of ``path`` that is current."""
        self.indexed.pop(path, None)
        self.checked.pop(path, None)

    def checked_text(self, path: Path, serial: int, version: int) -> None:
        """The project model now holds the buffer text ``serial`` (of ``version``) of
        ``path``: recorded while it is still the open buffer's (closed or opened again
        meanwhile, a newer check follows)."""
        uri = self.open.get(path)
        doc = self.documents.get(uri) if uri is not None else None
        if doc is not None and doc.serial == serial:
            self.indexed[path] = version
            self.checked[path] = serial

    def current(self, path: Path) -> bool:
        """Whether the project model holds the open buffer's current text of ``path``."""
        uri = self.open.get(path)
        doc = self.documents.get(uri) if uri is not None else None
        return doc is not None and self.checked.get(path) == doc.serial

    async def folders_changed(self, added: list[str], removed: list[str]) -> None:
        """Workspace folders added (indexed now) or removed (their files forgotten).  Each
        addition counts: a folder added twice is removed by its second removal."""
        opens = self.session.root_opens
        before = set(opens)
        opens.update(p for p in map(path_of, added) if p is not None)
        opens.subtract(p for p in map(path_of, removed) if p is not None and p in opens)
        for folder in [f for f, n in opens.items() if n <= 0]:
            del opens[folder]
        gone = [r for r in self.session.roots if r not in opens]
        new = [r for r in opens if r not in before]
        self.session.roots = [r for r in self.session.roots if r in opens] + new
        if not gone and not new:
            return
        self.session.say_unusable_folders(new)
        self.session.roots_to_config()
        # the first folder's settings file may be another
        await self.session.settings_changed(None)

        def update(work: Workspace) -> None:
            for folder in gone:
                work.remove_folder(folder)
            for known in work.known_files():
                if self._left_behind(known, gone):
                    work.remove(known)

        await self.session.cycle.change(update)
        self.session.indexed_all.clear()
        try:
            async with WorkProgress(self.session.server, "citewarden: indexing") as progress:
                await indexing.index(
                    self.session, await indexing.walk(self.session, new, progress), progress
                )
        finally:
            self.session.indexed_all.set()

    def _left_behind(self, path: Path, gone: list[Path]) -> bool:
        """Whether ``path`` was in a removed folder and is in no folder left (nor open)."""
        return (
            any(path.is_relative_to(folder) for folder in gone)
            and path not in self.open
            and not any(path.is_relative_to(root) for root in self.session.roots)
        )

    def schedule(self, path: Path | None, delay: float = 0.0) -> None:
        """Re-check after ``delay`` seconds; a new call for the same file restarts the wait."""
        key = str(path) if path is not None else "*"
        self.session.tasks.debounce(CHECK, key, delay, lambda: self._refresh_when_ready(path))

    async def _refresh_when_ready(self, path: Path | None) -> None:
        # A document opened while the workspace is still being indexed is checked once its
        # bibliographies are known: no flash of false "dangling" diagnostics.
        await self.session.ready.wait()
        await self.session.refresh(path)
