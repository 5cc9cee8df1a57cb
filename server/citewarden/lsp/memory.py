"""Memory tuning for a server that keeps a large index and replaces large texts per keystroke.

* An open 20 MB bibliography is a 20-40 MB Python string, and every edit makes a new one.
  glibc serves blocks that large with fresh memory mappings, so each copy pays a page fault
  per 4 KB page (several times the cost of the copy itself) and each release unmaps them
  again.  Served from the heap instead, a freed text's memory is reused by the next one.
* The index of a large workspace is millions of objects, and each check makes thousands
  more (findings, diagnostics, the entries an edit re-read).  What survives a check is
  moved out of the cyclic garbage collector's sight, so that its passes, which an edit's
  allocations trigger, do not scan it again and again (in a 20k-entry bibliography that
  was tens of milliseconds per keystroke).  Almost nothing the index holds forms a cycle
  (refcounting frees it); what might is collected in one full pass when the editor has
  been idle for a while, or after every so many checks.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import sys
from collections.abc import Iterator

log = logging.getLogger(__name__)

#: ``mallopt`` parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
#: Free memory at the top of the heap kept for reuse instead of returned to the system.
TRIM_THRESHOLD = 256 * 1024 * 1024
#: Seconds without a check after which one full collection runs.
IDLE_COLLECTION = 30.0
#: Checks after which a full collection runs even without a pause (typing on and on).
CHECKS_PER_COLLECTION = 200


def reuse_large_blocks() -> bool:
    """Serve large allocations from the heap and keep freed ones for reuse (glibc only;
    elsewhere nothing changes).  -> whether the allocator was tuned."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (e.g. musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    tuned = mallopt(_M_MMAP_MAX, 0) == 1 and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
    log.debug("allocator tuned for large texts: %s", tuned)
    return tuned


def settle_heap() -> None:
    """Collect everything (e.g. what indexing left behind, or when idle), then exempt every
    surviving object from later collector passes (they are still freed when no longer
    referenced)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def release_free_memory() -> bool:
    """:func:`settle_heap`, then hand the heap's free memory back to the system (after a
    large document closed; glibc only).  -> whether memory was returned."""
    settle_heap()
    if not sys.platform.startswith("linux"):
        return False
    try:
        malloc_trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    malloc_trim.argtypes = [ctypes.c_size_t]
    malloc_trim.restype = ctypes.c_int
    return bool(malloc_trim(0))


def exempt_survivors() -> None:
    """Exempt every object alive now from later collector passes (a check's results)."""
    gc.freeze()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No automatic collector pass inside (a check's work); what survives it is exempted
    from later passes when it ends.

    A pass triggered while a large document is read scans every object alive, in one
    go that holds the interpreter lock for hundreds of milliseconds, so no request could
    be answered meanwhile.  Cycles made inside wait for the next :func:`settle_heap`."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was_enabled:
            gc.enable()
