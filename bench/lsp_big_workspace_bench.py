"""Language server bench: a hover on an open document while a big workspace is indexed.

Starts the server with one workspace folder (``--folder``, e.g. ``/``; by default a folder
of ``--files`` generated Markdown files of about 6 KB), opens a small LaTeX project in a
temporary folder inside it, hovers over its citation, and prints the seconds from
``initialized`` to the hover's answer and to the end of the indexing progress, with the
number of files the indexing counted and the server's warnings.

Usage: ``.venv/bin/python bench/lsp_big_workspace_bench.py [--folder /] [--files 3000]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))
from test_lsp_big_workspace import _big_folder, _initialize, _open, _progress, _wait_for_end
from test_lsp_hostile import ROOT, RawClient


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--folder", type=Path, help="the workspace folder (default: generated)")
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--wait", type=float, default=600.0, help="seconds to wait at most")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as tmp:
        project = Path(tmp, "paper")
        project.mkdir()
        (project / "main.tex").write_text("\\cite{a}\n\\bibliography{refs}\n")
        (project / "refs.bib").write_text("@misc{a, title = {A}}\n")
        folder = args.folder
        if folder is None:
            folder = Path(tmp)
            _big_folder(folder, args.files)
        client = RawClient(project, Path(tmp, "cache"))
        client.close()  # replaced by a server without the tests' memory limit, logging
        log_file = Path(tmp, "server.log")
        client.proc = subprocess.Popen(
            [sys.executable, "-m", "citewarden.lsp", "--stdio", "--log-file", str(log_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={
                **os.environ,
                "PYTHONPATH": str(ROOT / "server"),
                "CITEWARDEN_CACHE_DIR": str(Path(tmp, "cache")),
            },
        )
        try:
            started = time.time()
            _initialize(client, project, [folder.resolve()])
            _open(client, project / "main.tex")
            hover = client.hover("main.tex", 0, 7, timeout=args.wait)
            answered = time.time() - started
            print(f"hover answered after {answered:.2f} s: {str(hover.get('result'))[:60]}")
            _wait_for_end(client, args.wait)
            counted = [r.get("message", "") for r in _progress(client, "report")]
            print(f"indexing ended after {time.time() - started:.2f} s ({counted[-1]})")
        finally:
            client.close()
            for line in log_file.read_text(errors="replace").splitlines():
                if " WARNING " in line or " ERROR " in line:
                    print("server:", line[:300])


if __name__ == "__main__":
    main()
