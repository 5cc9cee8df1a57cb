"""The server's memory tuning: survivors of a check are out of the collector's passes, and
the full pass (idle, or every so many checks) still collects cycles among them."""

from __future__ import annotations

import gc
import platform
import sys
import weakref

from citewarden.lsp.memory import exempt_survivors, reuse_large_blocks, settle_heap


class _Node:
    def __init__(self) -> None:
        self.me = self


def test_a_cycle_exempted_by_a_check_is_collected_by_the_full_pass() -> None:
    try:
        node = _Node()
        ref = weakref.ref(node)
        exempt_survivors()  # as after a check: the cycle is out of the collector's passes
        del node
        gc.collect()
        assert ref() is not None, "an ordinary collection leaves exempted objects alone"
        settle_heap()  # the idle / periodic full pass
        assert ref() is None
    finally:
        gc.unfreeze()


def test_the_allocator_is_tuned_on_glibc_and_texts_stay_right() -> None:
    on_glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert reuse_large_blocks() is on_glibc
    text = "é" * 3_000_000
    for n in range(5):
        text = "".join((text[: 1000 * n], "x", text[1000 * n :]))
    assert len(text) == 3_000_005 and text.count("x") == 5
