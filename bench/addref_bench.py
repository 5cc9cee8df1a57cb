"""Adding a reference: time from a code-action request on a dangling key to its actions.

Starts the loopback replay server of tests/replay.py with ``--latency`` (100 ms) per
request, serving real recorded dblp searches and Crossref work records
(tests/data/accuracy/refchecker: refchecker's recorded answers).  Each of ``--keys`` (20)
works becomes a Google Scholar style key built from its recorded dblp hit (citewarden's own
``make_key``); the recorded search is served for that key's search, the Crossref record for
its DOI.  A LaTeX document cites all of them, none defined.  The language server runs as a
subprocess (sources dblp and Crossref, the published rate limits in force, a fresh cache).

Prints, p50 / p95 / max over the keys:

* cold: the first code-action request on each key (the search runs; requests one after the
  other, as an author moves from key to key);
* warm: the same requests again (answers in memory);
* warm, new process: a new server over the same cache directory (answers from the cache);
* hover latency on another citation while cold searches run (requests sent while each cold
  code-action request is pending): the search does not block other requests;
* how many keys got an "Add entry" action naming their work.

Usage: ``.venv/bin/python bench/addref_bench.py [--keys 20] [--latency 0.1]``
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
from urllib.parse import urlencode

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from citewarden.addref.insert import make_key  # noqa: E402
from citewarden.addref.keys import read_key  # noqa: E402
from citewarden.addref.lookup import key_query  # noqa: E402
from citewarden.verify.config import URL_ENV  # noqa: E402
from citewarden.verify.sources import work_from_dblp  # noqa: E402
from lsp_client import answer_server_requests, percentiles  # noqa: E402
from replay import ReplayServer  # noqa: E402

RECORDED = ROOT / "tests" / "data" / "accuracy" / "refchecker"


def _rows(name: str) -> list[dict[str, Any]]:
    with (RECORDED / name).open(encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def build_routes(replay: ReplayServer, wanted: int) -> list[tuple[str, str]]:
    """Routes for ``wanted`` keys; -> [(key, title of the work it names)]."""
    by_doi = {r["cache_query"].lower(): r for r in _rows("crossref_get_by_doi.jsonl")}
    out: list[tuple[str, str]] = []
    taken: set[str] = set()
    for row in _rows("dblp_search.jsonl"):
        if not row["body"]:
            continue
        record = work_from_dblp(row["body"][0])
        if record is None or not record.authors or not record.year:
            continue
        if record.doi and record.doi not in by_doi:
            continue  # its DOI's record was not recorded
        key = make_key(record, taken)
        reading = read_key(key)
        if reading.style != "google-scholar" or any(k.startswith(key[:-1]) for k in taken):
            continue
        query = key_query(reading, (), "dblp")
        q = " ".join(p for p in (*query.authors, query.title, str(query.year)) if p.strip())
        body = json.dumps({"result": {"hits": {"hit": row["body"]}}}).encode()
        replay.add_route(
            "https://dblp.org/search/publ/api?" + urlencode({"q": q, "format": "json", "h": "5"}),
            body,
        )
        if record.doi:
            work = by_doi[record.doi]["body"]
            env = {"status": "ok", "message-type": "work", "message": work}
            replay.add_route(by_doi[record.doi]["request"]["url"], json.dumps(env).encode())
        taken.add(key)
        out.append((key, record.title))
        if len(out) >= wanted:
            break
    return out


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("citewarden-addref-bench", "1")
        self.indexed = asyncio.Event()
        self.titles: dict[Any, str] = {}
        answer_server_requests(self)

        @self.feature(types.PROGRESS)
        def progress(params: types.ProgressParams) -> None:
            value = params.value
            get = value.get if isinstance(value, dict) else lambda k: getattr(value, k, None)
            if get("kind") == "begin":
                self.titles[params.token] = get("title") or ""
            elif get("kind") == "end" and "index" in self.titles.get(params.token, ""):
                self.indexed.set()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            return None


async def start(root: Path, env: dict[str, str]) -> Client:
    client = Client()
    await client.start_io(sys.executable, "-m", "citewarden.lsp", "--stdio", env=env)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                window=types.WindowClientCapabilities(work_done_progress=True),
                text_document=types.TextDocumentClientCapabilities(
                    hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown])
                ),
            ),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
            initialization_options={"debounce_ms": 0, "verify": {"sources": ["dblp", "crossref"]}},
        )
    )
    client.initialized(types.InitializedParams())
    await asyncio.wait_for(client.indexed.wait(), timeout=120)
    return client


async def stop(client: Client) -> None:
    try:
        await asyncio.wait_for(client.shutdown_async(None), timeout=10)
        client.exit(None)
    finally:
        await client.stop()


def _position(text: str, offset: int) -> types.Position:
    line = text.count("\n", 0, offset)
    return types.Position(line=line, character=offset - (text.rfind("\n", 0, offset) + 1))


async def round_of(
    client: Client, main: Path, keys: list[tuple[str, str]], hovers: list[float] | None
) -> tuple[list[float], int]:
    """One code-action request per key; -> (latencies, keys whose work was offered)."""
    text = main.read_text(encoding="utf-8")
    doc = types.TextDocumentIdentifier(uri=main.as_uri())
    hover_at = _position(text, text.index("\\cite{known}") + len("\\cite{k"))
    times: list[float] = []
    offered = 0
    for key, title in keys:
        at = _position(text, text.index("{" + key + "}") + 2)
        params = types.CodeActionParams(
            text_document=doc,
            range=types.Range(start=at, end=at),
            context=types.CodeActionContext(diagnostics=[]),
        )
        t = time.perf_counter()
        pending = asyncio.ensure_future(client.text_document_code_action_async(params))
        if hovers is not None:  # other requests while this one searches
            while not pending.done():
                h = time.perf_counter()
                await client.text_document_hover_async(
                    types.HoverParams(text_document=doc, position=hover_at)
                )
                hovers.append(time.perf_counter() - h)
                await asyncio.sleep(0.02)
        result = await pending
        times.append(time.perf_counter() - t)
        names = [a.title for a in result or []]
        if any(n.startswith("Add entry: ") and title[:30] in n for n in names):
            offered += 1
        elif hovers is None and os.environ.get("ADDREF_BENCH_DEBUG"):
            print("  not offered:", key, title[:60], names)
    return times, offered


async def run(args: argparse.Namespace) -> None:
    replay = ReplayServer(data_dir=Path("/nonexistent")).start()
    try:
        keys = build_routes(replay, args.keys)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "project"
            root.mkdir()
            lines = ["\\documentclass{article}", "\\begin{document}", "See \\cite{known}."]
            lines += [f"Work \\cite{{{key}}}.\n" for key, _ in keys]
            lines += ["\\bibliography{refs}", "\\end{document}"]
            main = root / "main.tex"
            main.write_text("\n".join(lines) + "\n", encoding="utf-8")
            (root / "refs.bib").write_text(
                "@online{known,\n  title = {A known page},\n  url = {https://example.org},\n}\n",
                encoding="utf-8",
            )
            env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
            env.update({var: replay.base_url(name) for name, var in URL_ENV.items()})
            env["CITEWARDEN_CACHE_DIR"] = str(Path(tmp) / "cache")
            env["CITEWARDEN_MAILTO"] = "bench@example.org"
            env["PYTHONPATH"] = str(ROOT / "server")
            print(f"{len(keys)} keys; replay latency {args.latency * 1000:.0f} ms per request")
            replay.latency = args.latency
            client = await start(root, env)
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=main.as_uri(),
                        language_id="latex",
                        version=1,
                        text=main.read_text(encoding="utf-8"),
                    )
                )
            )
            await asyncio.sleep(1.0)  # the first check and the verification start
            hovers: list[float] = []
            cold, offered = await round_of(client, main, keys, hovers)
            print(
                f"cold               code action: {percentiles(cold)}   offered {offered}/{len(keys)}"
            )
            print(f"hover during cold  searches:    {percentiles(hovers)}")
            warm, offered = await round_of(client, main, keys, None)
            print(
                f"warm (memory)      code action: {percentiles(warm)}   offered {offered}/{len(keys)}"
            )
            await stop(client)
            seen = len(replay.log)
            client = await start(root, env)
            client.text_document_did_open(
                types.DidOpenTextDocumentParams(
                    text_document=types.TextDocumentItem(
                        uri=main.as_uri(),
                        language_id="latex",
                        version=1,
                        text=main.read_text(encoding="utf-8"),
                    )
                )
            )
            await asyncio.sleep(1.0)
            disk, offered = await round_of(client, main, keys, None)
            print(
                f"warm (new process) code action: {percentiles(disk)}   offered {offered}/{len(keys)}"
                f"   search requests {sum(1 for s in replay.log[seen:] if '/search/' in s.path)}"
            )
            await stop(client)
            print(f"unmatched requests: {len(replay.unmatched)}")
            if args.verbose:
                print("\n".join(replay.unmatched))
                for (key, _), c, w, d in zip(keys, cold, warm, disk, strict=True):
                    print(f"  {key:40s} {c * 1000:7.1f} {w * 1000:7.1f} {d * 1000:7.1f} ms")
    finally:
        replay.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--keys", type=int, default=20)
    p.add_argument("--latency", type=float, default=0.1, help="seconds per replayed request")
    p.add_argument("--verbose", action="store_true", help="unmatched requests, per-key times")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
