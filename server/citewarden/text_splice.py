"""Replace a slice of a large string, copying its characters once.

An editor's change to an open 18 MB bibliography is applied to the text on every
keystroke.  ``text[:a] + new + text[b:]`` (or ``"".join`` of the same) copies the unchanged
text twice, once into the two slices and once into the result: about 13 ms for such a
file, a quarter of what the language server then spends on the whole check.  On CPython,
:func:`splice` builds the result with the interpreter's own ``PyUnicode_New`` and
``PyUnicode_CopyCharacters`` instead: one copy.

CPython stores a string in the narrowest of four layouts that holds its widest character,
and equal strings in different layouts do not compare equal, so the result must get the
layout the interpreter would have chosen.  It takes that of the widest of the old text and
the inserted text; when the removed slice held characters as wide as the old text's widest,
the result may be narrower, and the ordinary join is used, as it is for texts with
characters beyond the Basic Multilingual Plane.  Any failure falls back to it too.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable

__all__ = ["splice"]

#: Below this size the ordinary join is as fast.
MIN_FAST = 1 << 16
#: Larger removed or inserted pieces are joined: their characters are looked at one by one.
MAX_PIECE = 1 << 16

_HEADER = sys.getsizeof("\xe9") - 2  # a compact non-ASCII string: header + (length + 1) units


def _layout(s: str) -> int:
    """0 ASCII, 1 Latin-1, 2 two bytes per character, or -1 (four, or unknown), from the
    size CPython reports.  That size also counts a cached UTF-8 copy when one exists, which
    can only make a string look wider: never narrower than it is, and never two bytes wide
    when it is not (its UTF-8 form is longer than its length), so only 4 is ambiguous."""
    if s.isascii():
        return 0
    units, rest = divmod(sys.getsizeof(s) - _HEADER, len(s) + 1)
    if rest == 0 and units in (1, 2):
        return units
    return -1


def _class_of(s: str) -> int:
    """0 ASCII, 1 Latin-1, 2 BMP, 3 beyond: the layout ``s`` needs (a short string)."""
    if s.isascii():
        return 0
    top = max(map(ord, s))
    return 1 if top < 0x100 else 2 if top < 0x10000 else 3


_MAXCHAR = (0x7F, 0xFF, 0xFFFF, 0x10FFFF)


def _plain(text: str, start: int, end: int, new: str) -> str:
    return "".join((text[:start], new, text[end:]))


def _native() -> Callable[[str, int, int, str], str] | None:
    if sys.implementation.name != "cpython":
        return None
    try:
        api = ctypes.pythonapi
        make = api.PyUnicode_New
        copy = api.PyUnicode_CopyCharacters
        release = api.Py_DecRef
    except AttributeError:
        return None
    make.restype = ctypes.c_void_p
    make.argtypes = [ctypes.c_ssize_t, ctypes.c_uint32]
    # The target is passed as a bare pointer: a py_object argument would hold a second
    # reference, and CPython refuses to write into a string that is shared.
    copy.restype = ctypes.c_ssize_t
    copy.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ssize_t,
        ctypes.py_object,
        ctypes.c_ssize_t,
        ctypes.c_ssize_t,
    ]
    release.restype = None
    release.argtypes = [ctypes.c_void_p]

    def fast(text: str, start: int, end: int, new: str) -> str:
        cls = _layout(text)
        if cls < 0:
            return _plain(text, start, end, new)
        if cls and _class_of(text[start:end]) >= cls:
            return _plain(text, start, end, new)  # its widest characters may be gone
        cls = max(cls, _class_of(new))
        size = len(text) - (end - start) + len(new)
        ptr = make(size, _MAXCHAR[cls])
        if not ptr:
            return _plain(text, start, end, new)
        try:
            copy(ptr, 0, text, 0, start)
            copy(ptr, start, new, 0, len(new))
            copy(ptr, start + len(new), text, end, len(text) - end)
            out: str = ctypes.cast(ptr, ctypes.py_object).value
        except Exception:
            return _plain(text, start, end, new)
        finally:
            release(ptr)
        return out

    return fast


_FAST = _native()


def splice(text: str, start: int, end: int, new: str) -> str:
    """``text[:start] + new + text[end:]`` (``0 <= start <= end <= len(text)``)."""
    if _FAST is None or len(text) < MIN_FAST or end - start > MAX_PIECE or len(new) > MAX_PIECE:
        return _plain(text, start, end, new)
    return _FAST(text, start, end, new)
