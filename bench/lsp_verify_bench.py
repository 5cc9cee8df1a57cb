"""Verification in the editor: is the server responsive while entries verify?

Starts the loopback replay server of tests/replay.py over the real recorded responses in
tests/data/api, with 100 ms latency per request, and the language server as a subprocess
pointed at it (``CITEWARDEN_*_URL``, a fresh ``CITEWARDEN_CACHE_DIR``, Crossref and doi.org
as sources, the published rate limits in force).  The project has ``--entries`` entries
(500 by default) built from the recorded records: half cite works by DOI (the six recorded
Crossref works, with their real metadata, some with a volume or pages changed), half are
search-only (the twenty works of a recorded Crossref search page, most with a variation in
the title, so each is its own search), cited from one LaTeX file.

Prints:

* completion (inside ``\\cite{}``) and hover (on a citation key) latency, p50/p95/max over
  ``--requests`` requests each, first with verification off (baseline) and then while the
  entries verify in the background, with how many entries verified meanwhile;
* the time from ``didSave`` of an edited entry (its volume changed) to the first
  publishDiagnostics carrying its verification finding, while the background run goes on
  (p50/max over ``--saves`` saves);
* first of all, for a separate project of ``--first-entries`` entries (200 by default) that
  all cite distinct recorded Crossref works by DOI (tests/data/accuracy/records.jsonl; every
  tenth with a wrong volume), with Crossref's recorded public-pool headers on every answer
  and batched ``filter=doi:`` requests answered from those records (tests/batch_replay.py):
  the time from ``didOpen`` of the document to the first publishDiagnostics carrying a
  verification finding, and to the last of them, with the requests sent.

Usage: ``.venv/bin/python bench/lsp_verify_bench.py [--entries 500] [--requests 100]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "lsp"))

from lsp_editor import plain  # noqa: E402

from batch_replay import serve_batches  # noqa: E402
from citewarden.verify.config import URL_ENV  # noqa: E402
from lsp_client import answer_server_requests, client_gc_paused, percentiles  # noqa: E402
from replay import API_DATA, ReplayServer  # noqa: E402

RECORDS = ROOT / "tests" / "data" / "accuracy" / "records.jsonl"
#: Crossref's public-pool headers as recorded (habanero test_works_with_one_id.yaml).
PUBLIC_POOL = {
    "x-api-pool": "public",
    "x-rate-limit-limit": "5",
    "x-rate-limit-interval": "1s",
    "x-concurrency-limit": "1",
}

#: Recorded Crossref works (``/works/{doi}``) whose records the DOI entries copy.
WORKS = (
    "test-works__test_works_with_one_id.json",
    "test-metadata__test_list_of_pids__02.json",
    "test-bibtex_writer__test_article_with_pages__01.json",
    "refchecker_get_by_doi_efb3cb1d62.json",
    "refchecker_get_by_doi_a6fdc5bb97.json",
    "refchecker_get_by_doi_16c5689e90.json",
)
SEARCH_PAGE = "test-works__test_works_field_queries.json"
VERIFY_CODES = {"volume-mismatch"}


def _bib_value(text: str) -> str:
    return text.replace("{", "").replace("}", "").replace("\n", " ").strip()


def _authors(item: dict[str, Any]) -> str:
    names = []
    for a in item.get("author", []):
        if "family" in a:
            names.append(f"{a['family']}, {a.get('given', '')}".strip(", "))
    return " and ".join(names) or "Anonymous"


def _year(item: dict[str, Any]) -> int | None:
    for key in ("published-print", "issued", "published-online"):
        parts = (item.get(key) or {}).get("date-parts") or [[None]]
        if parts and parts[0] and parts[0][0]:
            return int(parts[0][0])
    return None


def _entry(key: str, item: dict[str, Any], *, doi: bool, title_suffix: str = "") -> str:
    fields = {
        "author": _authors(item),
        "title": _bib_value((item.get("title") or ["Untitled"])[0]) + title_suffix,
        "journal": _bib_value((item.get("container-title") or [""])[0]),
        "year": str(_year(item) or ""),
        "volume": item.get("volume") or "",
        "number": item.get("issue") or "",
        "pages": (item.get("page") or "").replace("-", "--"),
    }
    if doi:
        fields["doi"] = item["DOI"]
    body = ",\n".join(f"  {k} = {{{v}}}" for k, v in fields.items() if v)
    return f"@article{{{key},\n{body},\n}}\n"


def build(root: Path, entries: int) -> tuple[list[str], list[str]]:
    """Write main.tex and refs.bib; return (all keys, keys of the DOI entries)."""
    works = [json.loads((API_DATA / "crossref" / f).read_text())["message"] for f in WORKS]
    page = json.loads((API_DATA / "crossref" / SEARCH_PAGE).read_text())["message"]["items"]
    page = [it for it in page if it.get("author") and it.get("title")]
    bib: list[str] = []
    keys: list[str] = []
    doi_keys: list[str] = []
    for i in range(entries):
        if i % 2 == 0:
            key = f"doi{i:04d}"
            bib.append(_entry(key, works[(i // 2) % len(works)], doi=True))
            doi_keys.append(key)
        else:
            n = i // 2
            item = page[n % len(page)]
            suffix = "" if n < len(page) else f" (variant {n // len(page)})"
            key = f"search{i:04d}"
            bib.append(_entry(key, item, doi=False, title_suffix=suffix))
        keys.append(key)
    (root / "refs.bib").write_text("\n".join(bib), encoding="utf-8")
    lines = ["\\documentclass{article}", "\\begin{document}"]
    for start in range(0, len(keys), 10):
        lines.append(f"See \\cite{{{','.join(keys[start : start + 10])}}}.")
    lines += ["Last \\cite{}.", "\\bibliography{refs}", "\\end{document}"]
    (root / "main.tex").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return keys, doi_keys


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("citewarden-verify-bench", "1")
        self.indexed = asyncio.Event()
        self.progress_titles: dict[Any, str] = {}
        self.verify_begun = asyncio.Event()
        self.statuses: list[dict[str, Any]] = []
        self.publishes: list[tuple[float, types.PublishDiagnosticsParams]] = []
        answer_server_requests(self)

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            self.publishes.append((time.perf_counter(), params))

        @self.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            get = value.get if isinstance(value, dict) else lambda k: getattr(value, k, None)
            if get("kind") == "begin":
                self.progress_titles[params.token] = get("title") or ""
                if get("title") == "Verifying references":
                    self.verify_begun.set()
            elif get("kind") == "end" and "index" in self.progress_titles.get(params.token, ""):
                self.indexed.set()

        @self.feature("citewarden/status")
        def status(params: Any) -> None:
            self.statuses.append(plain(params))


def _position(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return types.Position(line=line, character=col)


async def start(root: Path, env: dict[str, str], verify: bool, log: str | None = None) -> Client:
    client = Client()
    log_args = ["--log-file", log, "--log-level", "debug"] if log else []
    await client.start_io(sys.executable, "-m", "citewarden.lsp", "--stdio", *log_args, env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True),
                text_document=types.TextDocumentClientCapabilities(
                    publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                        version_support=True
                    ),
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
                ),
            ),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            initialization_options={
                "debounce_ms": 0,
                "verify": {"enabled": verify, "sources": ["crossref", "doi"]},
            },
        )
    )
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(client.indexed.wait(), timeout=120)
    return client


def open_doc(client: Client, path: Path, language: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id=language, version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )
    return uri


async def measure(client: Client, main: Path, requests: int) -> tuple[list[float], list[float]]:
    """Completion in the empty ``\\cite{}`` and hover on a citation key, interleaved."""
    text = main.read_text(encoding="utf-8")
    uri = main.as_uri()
    complete_at = _position(text, text.index("Last \\cite{") + len("Last \\cite{"))
    hover_at = _position(text, text.index("\\cite{") + len("\\cite{") + 2)
    completions: list[float] = []
    hovers: list[float] = []
    doc = types.TextDocumentIdentifier(uri=uri)
    with client_gc_paused():
        for n in range(requests + 3):
            t = time.perf_counter()
            result = await client.text_document_completion_async(
                types.CompletionParams(text_document=doc, position=complete_at)
            )
            took = time.perf_counter() - t
            assert result is not None
            if n >= 3:  # the first few warm caches
                completions.append(took)
            t = time.perf_counter()
            hover = await client.text_document_hover_async(
                types.HoverParams(text_document=doc, position=hover_at)
            )
            took = time.perf_counter() - t
            assert hover is not None
            if n >= 3:
                hovers.append(took)
            await asyncio.sleep(0.05)
    return completions, hovers


async def stop(client: Client) -> None:
    try:
        await asyncio.wait_for(client.shutdown_async(None), timeout=10)
        client.exit(None)
    finally:
        await client.stop()


def build_first(root: Path, replay: ReplayServer, entries: int) -> tuple[int, int]:
    """A project citing ``entries`` distinct recorded works by DOI, every tenth with a wrong
    volume; the records are served at ``/works/{doi}``.  -> (entries, wrong volumes)."""
    bib: list[str] = []
    keys: list[str] = []
    wrong = 0
    for line in RECORDS.read_text(encoding="utf-8").splitlines():
        if len(keys) >= entries:
            break
        msg = json.loads(line)["message"]
        if not (msg.get("author") and msg.get("title") and msg.get("container-title")):
            continue
        body = json.dumps({"status": "ok", "message-type": "work", "message": msg}).encode()
        replay.add_route(f"https://api.crossref.org/works/{msg['DOI'].lower()}", body)
        item = dict(msg)
        volume = str(msg.get("volume") or "")
        if len(keys) >= 10 * (wrong + 1) - 1 and volume.isdigit():
            item["volume"] = str(int(volume) + 100)
            wrong += 1
        key = f"w{len(keys):04d}"
        bib.append(_entry(key, item, doi=True))
        keys.append(key)
    (root / "refs.bib").write_text("\n".join(bib), encoding="utf-8")
    lines = ["\\documentclass{article}", "\\begin{document}"]
    for start in range(0, len(keys), 10):
        lines.append(f"See \\cite{{{','.join(keys[start : start + 10])}}}.")
    lines += ["\\bibliography{refs}", "\\end{document}"]
    (root / "main.tex").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(keys), wrong


async def first_diagnostics(args: argparse.Namespace, tmp: Path, env: dict[str, str]) -> None:
    """Open a bibliography's document: how soon do its verification findings show?"""
    replay = ReplayServer().start()
    try:
        root = tmp / "first"
        root.mkdir()
        total, wrong = build_first(root, replay, args.first_entries)
        serve_batches(replay)
        replay.extra_headers = {"/crossref": dict(PUBLIC_POOL)}
        replay.latency = args.latency
        env = {**env, **{var: replay.base_url(name) for name, var in URL_ENV.items()}}
        env["CITEWARDEN_CACHE_DIR"] = str(tmp / "first-cache")
        client = await start(root, env, verify=True, log=args.server_log)
        bib_uri = (root / "refs.bib").as_uri()
        seen = len(client.publishes)
        t = time.perf_counter()
        open_doc(client, root / "main.tex", "latex")
        deadline = t + 120
        found: dict[int, float] = {}
        while len(found) < wrong and time.perf_counter() < deadline:
            for when, p in client.publishes[seen:]:
                if p.uri == bib_uri:
                    for d in p.diagnostics:
                        if d.code in VERIFY_CODES:
                            found.setdefault(d.range.start.line, when)
            await asyncio.sleep(0.01)
        await stop(client)
        if not found:
            print(f"[{total} entries] no verification diagnostic within 120 s")
            return
        times = sorted(w - t for w in found.values())
        print(
            f"[{total} DOI entries, public-pool headers] didOpen -> first "
            f"verification diagnostic {times[0]:.2f} s (target <= 2 s); all {len(times)} of "
            f"{wrong}: {times[-1]:.2f} s; requests {len(replay.log)} "
            f"({dict(replay.counts.most_common(3))} ...)"
        )
    finally:
        replay.stop()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
        env["CITEWARDEN_MAILTO"] = "bench@example.org"
        env["PYTHONPATH"] = str(args.server)
        if not args.skip_first:
            await first_diagnostics(args, Path(tmp), env)
    if args.first_only:
        return
    replay = serve_batches(ReplayServer()).start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"
            root.mkdir()
            keys, doi_keys = build(root, args.entries)
            env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
            env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
            env["CITEWARDEN_CACHE_DIR"] = str(Path(tmp) / "cache")
            env["CITEWARDEN_MAILTO"] = "bench@example.org"
            env["PYTHONPATH"] = str(args.server)
            main = root / "main.tex"
            print(
                f"project: {len(keys)} entries ({len(doi_keys)} with a DOI, "
                f"{len(keys) - len(doi_keys)} search-only); replay latency "
                f"{args.latency * 1000:.0f} ms per request"
            )

            # baseline: the same project without verification
            client = await start(root, env, verify=False)
            open_doc(client, main, "latex")
            comp, hov = await measure(client, main, args.requests)
            print(f"verification off   completion: {percentiles(comp)}")
            print(f"verification off   hover:      {percentiles(hov)}")
            await stop(client)

            replay.clear()
            replay.latency = args.latency
            t0 = time.perf_counter()
            client = await start(root, env, verify=True, log=args.server_log)
            open_doc(client, main, "latex")
            await asyncio.wait_for(client.verify_begun.wait(), timeout=60)
            comp, hov = await measure(client, main, args.requests)
            elapsed = time.perf_counter() - t0
            done = client.statuses[-1]["verified"] if client.statuses else 0
            print(f"while verifying    completion: {percentiles(comp)}")
            print(f"while verifying    hover:      {percentiles(hov)}")
            print(
                f"  meanwhile: {done} of {len(keys)} entries verified in {elapsed:.1f} s, "
                f"{replay.requests_to('/')} requests to the replay server"
            )

            # save -> first verification diagnostic, while the background run goes on
            bib = root / "refs.bib"
            bib_uri = open_doc(client, bib, "bibtex")
            text = bib.read_text(encoding="utf-8")
            version = 1
            waits: list[float] = []
            with_volume = [
                k
                for k in doi_keys
                if "  volume = {"
                in text[
                    text.index(f"@article{{{k},") : text.index("\n}", text.index(f"@article{{{k},"))
                ]
            ]
            for n in range(args.saves):
                key = with_volume[n]
                start_at = text.index(f"@article{{{key},")
                vol = text.index("  volume = {", start_at) + len("  volume = {")
                end = text.index("}", vol)
                new_volume = str(900 + n)
                line = text.count("\n", 0, vol)
                entry_line = text.count("\n", 0, start_at)
                first = _position(text, vol)
                last = _position(text, end)
                text = text[:vol] + new_volume + text[end:]
                version += 1
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=bib_uri, version=version
                        ),
                        content_changes=[
                            types.TextDocumentContentChangePartial(
                                range=types.Range(start=first, end=last), text=new_volume
                            )
                        ],
                    )
                )
                seen = len(client.publishes)
                t = time.perf_counter()
                client.text_document_did_save(
                    types.DidSaveTextDocumentParams(
                        text_document=types.TextDocumentIdentifier(uri=bib_uri)
                    )
                )

                def found(since: int = seen, at: int = line, top: int = entry_line) -> float | None:
                    for when, p in client.publishes[since:]:
                        if p.uri != bib_uri:
                            continue
                        for d in p.diagnostics:
                            if d.code in VERIFY_CODES and top <= d.range.start.line <= at:
                                return when
                    return None

                deadline = time.perf_counter() + 60
                while (when := found()) is None and time.perf_counter() < deadline:
                    await asyncio.sleep(0.005)
                if when is None:
                    print(f"  save {n}: no verification diagnostic within 60 s")
                    continue
                waits.append(when - t)
            if waits:
                print(f"save -> first verification diagnostic: {percentiles(waits)}")
            await stop(client)
    finally:
        replay.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--entries", type=int, default=500)
    p.add_argument("--requests", type=int, default=100)
    p.add_argument("--saves", type=int, default=10)
    p.add_argument("--latency", type=float, default=0.1, help="seconds per replayed request")
    p.add_argument("--server-log", metavar="FILE", help="the verifying server's debug log")
    p.add_argument("--first-entries", type=int, default=200)
    p.add_argument("--first-only", action="store_true", help="only the first-diagnostics run")
    p.add_argument("--skip-first", action="store_true", help="no first-diagnostics run")
    p.add_argument(
        "--server", type=Path, default=ROOT / "server", help="the server tree to run (PYTHONPATH)"
    )
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
