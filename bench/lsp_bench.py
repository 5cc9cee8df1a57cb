"""Language server bench: a real client talking to ``python -m citewarden.lsp`` over stdio.

Builds the 20k-entry project of ``bench/index_bench.py`` (real entry shapes sampled from
tests/data/bibs, a root .tex and 49 chapters citing every key, one dangling key), starts the
server, and prints:

* time from server start to the end of initial indexing (``$/progress`` end), with the
  server's CPU time until then, and to the first diagnostics;
* for a single-character edit in a chapter (a space typed before the dangling citation, and
  deleted again) and in the .bib (a letter typed into a cited entry's key, making it an
  orphan and its citation dangling, and deleted again; and a letter typed into an entry
  not closed yet, a syntax error, into its key), the time from sending
  ``didChange`` to receiving ``publishDiagnostics`` for that new version (p50/p95 over
  100 edits): the message read whole and parsed by ``json.loads``, as an editor's native
  JSON parser would; also printed, the time until pygls's own parse of it ends (its
  per-object hook makes that several milliseconds longer for a 760-diagnostic list).  The debounce is set to 0 ms, so the figures are the work after the
  debounce (add the configured debounce, 300 ms by default, for what a user waits);
* completion latency inside ``\\cite{}`` with the 20k keys (p50/p95 over 100 requests),
  with an empty prefix and with a two-letter prefix;
* the server's peak RSS.

Usage: ``.venv/bin/python bench/lsp_bench.py [--entries 20000] [--chapters 50] [--edits 100]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.protocol import LanguageServerProtocol

from lsp_client import answer_server_requests, client_gc_paused, percentiles

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))
from lsp_editor import plain

SURNAMES = [
    "Smith",
    "Garcia",
    "Müller",
    "Rossi",
    "Nguyen",
    "Kowalski",
    "Tanaka",
    "Okafor",
    "Silva",
    "Johansson",
    "Dubois",
    "Novak",
    "Kim",
    "Patel",
    "Cohen",
    "Haddad",
    "Ivanova",
    "Larsen",
    "Moreau",
    "Schmidt",
    "Yilmaz",
    "Chen",
    "Ahmed",
    "Fischer",
    "Lopez",
]
GIVEN = [
    "Ana",
    "Ben",
    "Chloé",
    "David",
    "Elena",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kofi",
    "Lena",
    "Marta",
    "Nils",
    "Olga",
]
WORDS = [
    "adaptive",
    "analysis",
    "approach",
    "bayesian",
    "benchmark",
    "citation",
    "corpus",
    "data",
    "deep",
    "detection",
    "efficient",
    "estimation",
    "evaluation",
    "framework",
    "graph",
    "inference",
    "language",
    "learning",
    "model",
    "network",
    "neural",
    "optimal",
    "parallel",
    "retrieval",
    "robust",
    "sampling",
    "scalable",
    "semantic",
    "sparse",
    "statistical",
    "structure",
    "survey",
    "temporal",
    "theory",
    "transfer",
    "uncertainty",
    "verification",
]
JOURNALS = (
    "Journal of Machine Learning Research",
    "Nature Communications",
    "Physical Review Letters",
    "Communications of the ACM",
    "Bioinformatics",
    "The Annals of Statistics",
)


def generate(root: Path, entries: int, chapters: int, seed: int = 7) -> list[str]:
    """Write the project under ``root``; return its keys.

    Uses ``index_bench.build`` when it is there; otherwise writes a synthetic project of the
    same shape (every key cited, one dangling key in the first chapter).
    """
    try:
        from index_bench import build
    except ImportError:
        return _synthetic(root, entries, chapters, seed)
    _, keys = build(root, entries, chapters, seed)
    return keys


def _synthetic(root: Path, entries: int, chapters: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    keys: list[str] = []
    bib: list[str] = []
    for i in range(entries):
        surname = rng.choice(SURNAMES)
        year = rng.randint(1960, 2024)
        key = f"{surname.lower().replace('ü', 'u')}{year}{i:05d}"
        keys.append(key)
        authors = " and ".join(
            f"{rng.choice(SURNAMES)}, {rng.choice(GIVEN)}" for _ in range(rng.randint(1, 4))
        )
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 10))).capitalize()
        first = rng.randint(1, 900)
        bib.append(
            f"@article{{{key},\n"
            f"  author = {{{authors}}},\n"
            f"  title = {{{title}}},\n"
            f"  journal = {{{rng.choice(JOURNALS)}}},\n"
            f"  year = {{{year}}},\n"
            f"  volume = {{{rng.randint(1, 80)}}},\n"
            f"  pages = {{{first}--{first + rng.randint(5, 30)}}},\n"
            f"  doi = {{10.{rng.randint(1000, 9999)}/bench.{i}}},\n"
            f"}}\n"
        )
    (root / "refs.bib").write_text("\n".join(bib), encoding="utf-8")
    cited = keys
    per = max(1, len(cited) // chapters)
    (root / "chapters").mkdir(parents=True, exist_ok=True)
    includes = []
    for c in range(chapters):
        mine = cited[c * per : (c + 1) * per] if c < chapters - 1 else cited[c * per :]
        lines = [f"\\section{{Chapter {c + 1}}}", ""]
        i = 0
        while i < len(mine):
            group = mine[i : i + rng.randint(1, 3)]
            i += len(group)
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14)))
            lines.append(f"The {words} was studied before \\cite{{{','.join(group)}}}.")
        if c == 0:
            lines.append("A dangling one: \\cite{no-such-key-2024}.")
        name = f"ch{c + 1:02d}"
        (root / "chapters" / f"{name}.tex").write_text("\n".join(lines) + "\n", encoding="utf-8")
        includes.append(f"\\input{{chapters/{name}}}")
    main = [
        "\\documentclass{article}",
        "\\begin{document}",
        *includes,
        "\\bibliographystyle{plain}",
        "\\bibliography{refs}",
        "\\end{document}",
    ]
    (root / "main.tex").write_text("\n".join(main) + "\n", encoding="utf-8")
    return keys


class TimingProtocol(LanguageServerProtocol):
    """Notes when pygls has finished parsing a publishDiagnostics message (its JSON parse
    calls this hook for every object of the message, which for 760 diagnostics takes this
    Python client several milliseconds that an editor's native JSON parser does not)."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        if data.get("method") == types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            params = data.get("params") or {}
            client = self._server
            if isinstance(client, BenchClient):
                client.parsed_at[(params.get("uri") or "", params.get("version"))] = (
                    time.perf_counter()
                )
        return super().structure_message(data)


class BenchClient(LanguageClient):
    """A pygls client that records diagnostics by (uri, version) and progress."""

    def __init__(self) -> None:
        super().__init__("citewarden-bench", "1", protocol_cls=TimingProtocol)
        self.waiters: dict[tuple[str, int | None], asyncio.Future[float]] = {}
        self.first_publish: float | None = None
        #: (uri, version) -> when pygls's own parse of that publishDiagnostics ended
        self.parsed_at: dict[tuple[str, int | None], float] = {}
        self.indexed = asyncio.Event()
        #: set when a status says every entry in scope has been verified
        self.verified = asyncio.Event()
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        answer_server_requests(self)

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)

        @self.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
            if kind == "end":
                self.indexed.set()

        @self.feature("citewarden/status")
        def status(params: Any) -> None:
            value = plain(params)
            if (
                isinstance(value, dict)
                and value.get("total")
                and value.get("verified", 0) >= value["total"]
                and not value.get("verifying")
            ):
                self.verified.set()

    async def start_io(self, cmd: str, *args: Any, **kwargs: Any) -> None:
        await super().start_io(cmd, *args, **kwargs)
        stdout = self._server.stdout if self._server is not None else None
        if stdout is not None:
            read = stdout.readexactly

            async def readexactly(n: int) -> bytes:
                body = await read(n)
                if b"textDocument/publishDiagnostics" in body:
                    # arrived: read whole and parsed by a plain JSON parser
                    params = json.loads(body).get("params") or {}
                    self.arrived(params.get("uri"), params.get("version"), time.perf_counter())
                return body

            stdout.readexactly = readexactly  # type: ignore[method-assign]

    def arrived(self, uri: str | None, version: int | None, now: float) -> None:
        if self.first_publish is None:
            self.first_publish = now
        fut = self.waiters.pop((uri or "", version), None)
        if fut is not None and not fut.done():
            fut.set_result(now)

    def expect(self, uri: str, version: int) -> asyncio.Future[float]:
        fut: asyncio.Future[float] = asyncio.get_running_loop().create_future()
        self.waiters[(uri, version)] = fut
        return fut


def server_cpu(client: LanguageClient) -> float:
    """CPU seconds (user + system, all threads) the server process has used so far."""
    server = client._server
    if server is None:
        return 0.0
    try:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime, stime


class Buffer:
    """An open document on the client side."""

    def __init__(self, client: BenchClient, path: Path, language: str) -> None:
        self.client = client
        self.uri = path.as_uri()
        self.text = path.read_text(encoding="utf-8")
        self.version = 1
        self._starts: dict[int, int] = {0: 0}
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=self.uri, language_id=language, version=1, text=self.text
                )
            )
        )

    def line_of(self, needle: str) -> int:
        return self.text[: self.text.index(needle)].count("\n")

    def _line_start(self, line: int) -> int:
        start = self._starts.get(line)
        if start is None:
            start = 0
            for _ in range(line):
                start = self.text.index("\n", start) + 1
            self._starts[line] = start
        return start

    def edit(self, line: int, col: int, end_col: int, new: str) -> float:
        """Replace columns [col, end_col) of ``line`` (ASCII) with ``new`` and send it.

        Returns the time it was sent (the client's own bookkeeping happens before)."""
        at = self._line_start(line)
        self.text = self.text[: at + col] + new + self.text[at + end_col :]
        self._starts = {n: o for n, o in self._starts.items() if n <= line}
        self.version += 1
        params = types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=line, character=col),
                        end=types.Position(line=line, character=end_col),
                    ),
                    text=new,
                )
            ],
        )
        sent = time.perf_counter()
        self.client.text_document_did_change(params)
        return sent


async def measure_edits(what: str, buf: Buffer, at: tuple[int, int], char: str, count: int) -> None:
    """Print the latency of ``count`` edits at ``at`` (after 4 that warm the caches) and
    the server's CPU time per edit."""
    await timed_edits(buf, *at, char, 4)
    cpu = server_cpu(buf.client)
    samples, in_pygls = await timed_edits(buf, *at, char, count)
    cpu = (server_cpu(buf.client) - cpu) / len(samples) * 1000
    print(f"{what} -> publishDiagnostics: {percentiles(samples)}")
    print(f"    ... until pygls has parsed it: {percentiles(in_pygls)}")
    print(f"    server CPU per edit (mean): {cpu:.1f} ms")


async def timed_edits(
    buf: Buffer, line: int, col: int, char: str, count: int
) -> tuple[list[float], list[float]]:
    """Type ``char`` at (line, col), then delete it, and so on (``count`` edits); time each
    edit to the diagnostics of its version: when the message has arrived (read and parsed
    by ``json.loads``), and when pygls's own parse of it has ended."""
    samples: list[float] = []
    in_pygls: list[float] = []
    with client_gc_paused():
        for n in range(count):
            insert = n % 2 == 0
            version = buf.version + 1
            fut = buf.client.expect(buf.uri, version)
            t0 = buf.edit(line, col, col if insert else col + 1, char if insert else "")
            t1 = await asyncio.wait_for(fut, timeout=60)
            samples.append(t1 - t0)
            parsed = buf.client.parsed_at.pop((buf.uri, version), None)
            if parsed is not None:
                in_pygls.append(parsed - t0)
    return samples, in_pygls


async def timed_completions(
    client: BenchClient, buf: Buffer, line: int, col: int, count: int
) -> tuple[list[float], int, bool]:
    samples = []
    size = 0
    incomplete = False
    with client_gc_paused():
        for _ in range(count):
            t0 = time.perf_counter()
            result = await client.text_document_completion_async(
                types.CompletionParams(
                    text_document=types.TextDocumentIdentifier(uri=buf.uri),
                    position=types.Position(line=line, character=col),
                )
            )
            samples.append(time.perf_counter() - t0)
            assert isinstance(result, types.CompletionList), result
            size = len(result.items)
            incomplete = result.is_incomplete
    return samples, size, incomplete


def check_times(root: Path, keys: list[str], edits: int) -> dict[str, list[float]]:
    """The same edits in this process, timing only ``Workspace.set_text`` + ``check()``: the
    share of the round trip that is the citation index's, not the server's."""
    from citewarden.checks import Checker
    from citewarden.project import Workspace

    ws = Workspace()
    checker = Checker()
    ws.add_folder(root)
    checker.check(ws)
    out: dict[str, list[float]] = {}
    chapter = root / "chapters" / "ch01.tex"
    bib = root / "refs.bib"
    key = keys[len(keys) // 2]
    for name, path, anchor, shift in (
        ("chapter", chapter, "A dangling", 0),
        ("bib", bib, "{" + key + ",", 1),
    ):
        text = ws.text(path) or ""
        at = text.index(anchor) + shift
        if shift == 0:
            at = text.rfind("\n", 0, at) + 1
        samples = []
        for n in range(edits):
            new = text[:at] + ("x" if shift else " ") + text[at:] if n % 2 == 0 else text
            t0 = time.perf_counter()
            ws.set_text(path, new, unchanged=(at, len(text) - at))  # as the server does
            checker.check(ws)
            samples.append(time.perf_counter() - t0)
        out[name] = samples
        ws.set_text(path, text)
        checker.check(ws)
    return out


def peak_rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


async def run(args: argparse.Namespace) -> None:
    t = time.perf_counter()
    sum(range(10**6))
    print(f"machine reference: sum(range(10**6)) = {(time.perf_counter() - t) * 1000:.1f} ms")
    with tempfile.TemporaryDirectory(prefix="citewarden-lsp-bench-") as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        keys = generate(root, args.entries, args.chapters)
        size = (root / "refs.bib").stat().st_size / 1e6
        print(
            f"project: {args.entries} entries ({size:.1f} MB .bib), {args.chapters} chapters, "
            f"generated in {time.perf_counter() - t:.1f} s"
        )
        client = BenchClient()
        t_start = time.perf_counter()
        log_args = (
            ["--log-file", args.server_log, "--log-level", "debug"] if args.server_log else []
        )
        env = dict(os.environ, CITEWARDEN_CACHE_DIR=str(root / ".cache"))  # a cache of its own
        await client.start_io(sys.executable, "-m", "citewarden.lsp", "--stdio", *log_args, env=env)
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    general=types.GeneralClientCapabilities(
                        position_encodings=[types.PositionEncodingKind.Utf16]
                    ),
                    window=types.WindowClientCapabilities(work_done_progress=True),
                    text_document=types.TextDocumentClientCapabilities(
                        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        ),
                        completion=types.CompletionClientCapabilities(
                            completion_item=types.ClientCompletionItemOptions(
                                documentation_format=[types.MarkupKind.Markdown]
                            )
                        ),
                    ),
                ),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
                # verification has its own bench (lsp_verify_bench); it is kept out of these
                # figures unless --verify-offline turns it on (no source is asked: what a
                # check cycle costs with verification's bookkeeping)
                initialization_options={
                    "debounce_ms": 0,
                    "verify": (
                        {"enabled": True, "offline": True}
                        if args.verify_offline
                        else {"enabled": False}
                    ),
                },
            )
        )
        client.initialized(types.InitializedParams())
        await asyncio.wait_for(client.indexed.wait(), timeout=600)
        t_indexed = time.perf_counter()
        print(f"initial indexing (start -> progress end): {t_indexed - t_start:.2f} s")
        # the steadier figure on a shared machine: what the server itself spent to get there
        # (start-up and imports included)
        print(f"    server CPU until then: {server_cpu(client):.2f} s")
        if client.first_publish is not None:
            print(
                f"first diagnostics after start:           {client.first_publish - t_start:.2f} s"
            )

        chapter = Buffer(client, root / "chapters" / "ch01.tex", "latex")
        await asyncio.wait_for(client.expect(chapter.uri, 1), timeout=120)
        bib = Buffer(client, root / "refs.bib", "bibtex")
        await asyncio.wait_for(client.expect(bib.uri, 1), timeout=120)
        if args.verify_offline:
            # the figures below are for the steady state: every entry has its verdict
            await asyncio.wait_for(client.verified.wait(), timeout=1800)
            print(f"every entry verified (offline) after:    {time.perf_counter() - t_start:.2f} s")

        dangling = chapter.line_of("no-such-key-2024")
        await measure_edits("edit in a chapter", chapter, (dangling, 0), " ", args.edits)

        key = keys[len(keys) // 2]
        key_line = bib.line_of("{" + key + ",")
        col = bib.text.split("\n")[key_line].index("{" + key) + 1
        await measure_edits("edit in the .bib", bib, (key_line, col), "x", args.edits)

        # an entry being typed before that one, not closed yet: BibTeX's reading of the
        # file after a syntax error runs on every version
        # (a letter typed into its key: an orphan of another name each time)
        typed = "@article{new2024, title = {A new "
        at_key = len("@article{new2024")
        fut = client.expect(bib.uri, bib.version + 1)
        bib.edit(key_line, 0, 0, typed)
        await asyncio.wait_for(fut, timeout=120)
        await measure_edits(
            "edit in an unclosed .bib entry", bib, (key_line, at_key), "x", args.edits
        )
        fut = client.expect(bib.uri, bib.version + 1)
        bib.edit(key_line, 0, len(typed), "")
        await asyncio.wait_for(fut, timeout=120)

        # completion inside a fresh \cite{} at the end of the chapter
        last = chapter.text.count("\n")
        chapter.edit(last, 0, 0, "\\cite{}")
        await timed_completions(client, chapter, last, len("\\cite{"), 3)
        cpu = server_cpu(client)
        samples, n_items, incomplete = await timed_completions(
            client, chapter, last, len("\\cite{"), args.edits
        )
        cpu = (server_cpu(client) - cpu) / len(samples) * 1000
        print(
            f"completion, empty prefix ({len(keys)} keys): {percentiles(samples)}"
            f"   ({n_items} items, incomplete={incomplete})"
        )
        print(f"    server CPU per request (mean): {cpu:.1f} ms")
        prefix = keys[len(keys) // 3][:2]
        chapter.edit(last, len("\\cite{"), len("\\cite{"), prefix)
        await timed_completions(client, chapter, last, len("\\cite{") + len(prefix), 3)
        cpu = server_cpu(client)
        samples, n_items, incomplete = await timed_completions(
            client, chapter, last, len("\\cite{") + len(prefix), args.edits
        )
        cpu = (server_cpu(client) - cpu) / len(samples) * 1000
        print(
            f"completion, prefix {prefix!r}:               {percentiles(samples)}"
            f"   ({n_items} items, incomplete={incomplete})"
        )
        print(f"    server CPU per request (mean): {cpu:.1f} ms")
        server = client._server
        if server is not None:
            rss = peak_rss_mb(server.pid)
            if rss is not None:
                print(f"server peak RSS: {rss:.0f} MB")
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        if args.check_edits:
            inner = check_times(root, keys, args.check_edits)
            print("of which the citation index (same edits in process, set_text + check()):")
            print(f"  chapter:  {percentiles(inner['chapter'])}")
            print(f"  .bib:     {percentiles(inner['bib'])}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--entries", type=int, default=20000)
    parser.add_argument("--chapters", type=int, default=50, help="files (root + chapters)")
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--server-log", help="let the server write a debug log here")
    parser.add_argument(
        "--verify-offline",
        action="store_true",
        help="turn verification on, offline (nothing is asked of any source)",
    )
    parser.add_argument(
        "--check-edits",
        type=int,
        default=20,
        help="edits timed in process for the index's share (0: skip)",
    )
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
