"""Citation-context hover latency when the corpus must be rebuilt, this tree against a base.

The project has ``--entries`` entries (2 000 by default: as many works as the hover's corpus
holds) with the titles of the recorded Crossref works of tests/data/accuracy/records.jsonl
(repeated with a variant suffix past the 934 records), all cited from main.tex; verification
is off, so the corpus is built from the entries' titles.  The language server runs as a
subprocess (``PYTHONPATH`` at the tree's ``server/``), once for this tree and once for
``--base`` (a git ref exported with ``git archive``; the built C extension is copied in),
``--runs`` times each, interleaved (the machine is noisy).

In each run, after a first hover on a citation (which builds the first corpus in both), it
makes ``--rounds`` changes of the bibliography: an entry inserted at its top (among the
works the corpus samples), and, once the server has published the new entry's orphan
diagnostic (the check has committed it), it times

* the first hover on the citation (the base rebuilds the corpus in this request: the entry
  count changed);
* every hover sent in the next ``--window`` seconds, one every 20 ms (this tree rebuilds the
  corpus in the background meanwhile, about a second after the change);
* a hover once the server is quiet again.

Prints p50 / p95 / max of each, per tree.

Usage: ``.venv/bin/python bench/context_hover_bench.py [--entries 2000] [--rounds 8]
[--runs 2] [--base main]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lsp_client import client_gc_paused, percentiles  # noqa: E402
from lsp_verify_bench import RECORDS, _entry, _position, open_doc, start, stop  # noqa: E402

ORPHAN = "orphan-entry"
SENTENCE = "Papers are typeset with a document preparation system \\cite{lamport1994}."
LAMPORT = (
    "@book{lamport1994,\n  author = {Leslie Lamport},\n"
    "  title = {{\\LaTeX}: A Document Preparation System},\n  year = {1994},\n}\n"
)


def build(root: Path, entries: int) -> None:
    """Write main.tex (a sentence citing lamport1994, then every other key) and refs.bib."""
    records = [json.loads(line)["message"] for line in RECORDS.read_text().splitlines()]
    records = [r for r in records if r.get("title")]
    bib = [LAMPORT]
    keys: list[str] = []
    for i in range(entries - 1):
        rec = records[i % len(records)]
        suffix = "" if i < len(records) else f" (variant {i // len(records)})"
        key = f"w{i:04d}"
        bib.append(_entry(key, rec, doi=False, title_suffix=suffix))
        keys.append(key)
    (root / "refs.bib").write_text("\n".join(bib), encoding="utf-8")
    lines = ["\\documentclass{article}", "\\begin{document}", SENTENCE]
    for s in range(0, len(keys), 10):
        lines.append(f"See \\cite{{{','.join(keys[s : s + 10])}}}.")
    lines += ["\\bibliography{refs}", "\\end{document}"]
    (root / "main.tex").write_text("\n".join(lines) + "\n", encoding="utf-8")


def export(ref: str, into: Path) -> Path:
    """``ref``'s server/ tree under ``into``, with this tree's built C extension."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "server"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    for so in (ROOT / "server").rglob("*.so"):
        target = into / so.relative_to(ROOT)
        if target.parent.is_dir():
            shutil.copy2(so, target)
    return into / "server"


async def one_run(
    server: Path, args: argparse.Namespace, tmp: Path
) -> tuple[list[float], list[float], list[float]]:
    """-> (first hovers after a change, hovers in the window after it, quiet hovers)."""
    root = tmp / "project"
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    build(root, args.entries)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEWARDEN_")}
    env["CITEWARDEN_CACHE_DIR"] = str(tmp / "cache")
    env["PYTHONPATH"] = str(server)
    client = await start(root, env, verify=False)
    main_uri = open_doc(client, root / "main.tex", "latex")
    bib = root / "refs.bib"
    bib_uri = open_doc(client, bib, "bibtex")
    text = (root / "main.tex").read_text(encoding="utf-8")
    hover_at = _position(text, text.index("\\cite{lamport1994}") + len("\\cite{l"))
    params = types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=main_uri), position=hover_at
    )

    async def hover() -> float:
        t = time.perf_counter()
        result = await client.text_document_hover_async(params)
        took = time.perf_counter() - t
        assert result is not None and "Citation context" in str(result.contents)
        return took

    def orphans() -> int:
        for _, p in reversed(client.publishes):
            if p.uri == bib_uri:
                return sum(d.code == ORPHAN for d in p.diagnostics)
        return 0

    first: list[float] = []
    window: list[float] = []
    quiet: list[float] = []
    try:
        await hover()  # the first corpus, in both trees
        await asyncio.sleep(2)
        version = 1
        with client_gc_paused():
            for n in range(args.rounds):
                entry = f"@misc{{added{n},\n  title = {{Document typesetting {n}}},\n}}\n\n"
                version += 1
                at = types.Position(line=0, character=0)
                client.text_document_did_change(
                    types.DidChangeTextDocumentParams(
                        text_document=types.VersionedTextDocumentIdentifier(
                            uri=bib_uri, version=version
                        ),
                        content_changes=[
                            types.TextDocumentContentChangePartial(
                                range=types.Range(start=at, end=at), text=entry
                            )
                        ],
                    )
                )
                deadline = time.perf_counter() + 60
                while orphans() < n + 1 and time.perf_counter() < deadline:
                    await asyncio.sleep(0.005)
                first.append(await hover())
                until = time.perf_counter() + args.window
                while time.perf_counter() < until:
                    window.append(await hover())
                    await asyncio.sleep(0.02)
                await asyncio.sleep(1.0)
                quiet.append(await hover())
    finally:
        await stop(client)
    return first, window, quiet


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "base").mkdir()
        trees = {"base " + args.base: export(args.base, tmp / "base"), "this tree": ROOT / "server"}
        results: dict[str, tuple[list[float], list[float], list[float]]] = {
            name: ([], [], []) for name in trees
        }
        print(
            f"{args.entries} entries (titles only), {args.rounds} bibliography changes per run, "
            f"{args.runs} runs per tree, interleaved"
        )
        for n in range(args.runs):
            for name, server in trees.items():
                got = await one_run(server, args, tmp / f"run-{n}")
                for into, samples in zip(results[name], got, strict=True):
                    into.extend(samples)
                print(f"  run {n + 1} {name}: first hover after a change {percentiles(got[0])}")
        for name, (first, window, quiet) in results.items():
            print(f"{name}:")
            print(f"  first hover after a change:      {percentiles(first)}")
            print(f"  hovers in the {args.window:.1f} s after it:   {percentiles(window)}")
            print(f"  hover once quiet:                {percentiles(quiet)}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--entries", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--runs", type=int, default=2)
    p.add_argument("--window", type=float, default=2.0, help="seconds of hovers after a change")
    p.add_argument("--base", default="main", help="git ref of the tree to compare with")
    asyncio.run(run(p.parse_args()))


if __name__ == "__main__":
    main()
