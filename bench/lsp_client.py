"""Pieces shared by the benchmark language clients (bench/lsp_bench.py, lsp_verify_bench.py)."""

from __future__ import annotations

import gc
import statistics
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient


def answer_server_requests(client: LanguageClient) -> None:
    """Answer what the server asks of an editor: progress tokens, capability registrations
    and configuration (defaults); messages shown to the user go to stderr, logs are dropped."""

    @client.feature(types.WINDOW_WORK_DONE_PROGRESS_CREATE)
    def create(params: types.WorkDoneProgressCreateParams) -> None:
        return None

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:
        return None

    @client.feature(types.WORKSPACE_CONFIGURATION)
    def configuration(params: types.ConfigurationParams) -> list[Any]:
        return [None for _ in params.items]

    @client.feature(types.WINDOW_SHOW_MESSAGE)
    def show(params: types.ShowMessageParams) -> None:
        print("server says:", params.message, file=sys.stderr)

    @client.feature(types.WINDOW_LOG_MESSAGE)
    def log(params: types.LogMessageParams) -> None:
        return None


def percentiles(samples: list[float]) -> str:
    """p50 / p95 / max of ``samples`` (seconds), in milliseconds."""
    ms = sorted(s * 1000 for s in samples)
    p50 = statistics.median(ms)
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))]
    return f"p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   max {ms[-1]:7.1f} ms   (n={len(ms)})"


@contextmanager
def client_gc_paused() -> Iterator[None]:
    """Pause this (client) process's cyclic garbage collector while timing: parsing the
    server's large diagnostic lists makes it run often, and its pauses would be counted as
    the server's latency."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
