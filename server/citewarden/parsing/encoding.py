"""Bytes -> text for every file citewarden reads, with problems reported as findings.

Files should be UTF-8.  Anything else is still read, never refused:

* a UTF-8 byte-order mark is dropped (offsets then count from the first real character);
* a UTF-16 or UTF-32 file (recognised by its byte-order mark) is decoded and reported;
* bytes that are not valid UTF-8 are decoded one by one as Windows-1252 (Latin-1 for the five
  bytes cp1252 leaves undefined), so a Latin-1 file, or a UTF-8 file with a few stray Latin-1
  bytes, reads as its author meant it; one finding points at the first bad byte;
* NUL characters are replaced by U+FFFD (same length, so later offsets stay put) and reported.

Finding spans are code-point offsets into the returned text.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from types import MappingProxyType

from citewarden.model import Code, Finding, Location, Span
from citewarden.text import count_line_breaks, line_start_before

_BOM_UTF8 = codecs.BOM_UTF8
# UTF-32's marks begin with UTF-16's (FF FE 00 00), so they are looked for first.
_BOM_UTF32 = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)

NOT_UTF8 = frozenset({"cp1252", "utf-16", "utf-32"})
"""The ``encoding`` a ``file-encoding`` finding names when the file is not UTF-8 at all,
which biber (without a declared encoding) and pandoc cannot read."""
_MAX_NUL_FINDINGS = 20


def _byte_char(byte: int) -> str:
    single = bytes([byte])
    try:
        return single.decode("cp1252")
    except UnicodeDecodeError:
        return single.decode("latin-1")


# Bytes that are not UTF-8 come back from "surrogateescape" as U+DC80..U+DCFF; this table
# turns each into the character that byte stands for in Windows-1252 (else Latin-1).
_FALLBACK = {0xDC00 + byte: _byte_char(byte) for byte in range(0x80, 0x100)}
_ESCAPED = re.compile("[\udc80-\udcff]")
_UTF8_PAIR = re.compile(rb"[\xc2-\xf4][\x80-\xbf]")
_HIGH_BYTES = bytes(range(0x80, 0x100))
_CP1252_UNDEFINED = (b"\x81", b"\x8d", b"\x8f", b"\x90", b"\x9d")


def _unescape(m: re.Match[str]) -> str:
    return _FALLBACK[ord(m.group())]


def _fallback_decode(data: bytes, first_bad: int) -> tuple[str, int, int]:
    """Decode bytes that are not all UTF-8: (text, offset of the first bad byte, bad bytes).

    A file with no UTF-8 multi-byte sequence at all is an 8-bit file: decoded whole as
    Windows-1252.  Otherwise valid UTF-8 stays as it is and each stray byte is read alone.
    """
    if _UTF8_PAIR.search(data) is None:
        text = data.decode("cp1252", errors="surrogateescape")
        if any(data.find(byte) != -1 for byte in _CP1252_UNDEFINED):
            text = _ESCAPED.sub(_unescape, text)
        return text, first_bad, len(data) - len(data.translate(None, _HIGH_BYTES))
    escaped = data.decode("utf-8", errors="surrogateescape")
    first = _ESCAPED.search(escaped)
    offset = first.start() if first else len(data[:first_bad].decode("utf-8", "replace"))
    count = len(_ESCAPED.findall(escaped))
    return _ESCAPED.sub(_unescape, escaped), offset, count


def _finding(path: Path, start: int, end: int, message: str, **data: object) -> Finding:
    return Finding(
        Code.FILE_ENCODING,
        Location(path, Span(start, end)),
        message,
        data=MappingProxyType(dict(data)),
    )


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of ``offset`` (for messages only)."""
    return count_line_breaks(text, 0, offset) + 1, offset - line_start_before(text, offset) + 1


def _utf16_without_bom(data: bytes) -> str | None:
    """``"utf-16-le"`` or ``"utf-16-be"`` when ``data`` is UTF-16 text with no byte order
    mark (as some editors save it): of its first 4 096 bytes, taken in pairs, at least 60%
    have a NUL high byte (ASCII in UTF-16) and at most one in twenty a NUL low byte (a
    character such as U+4E00 ``一`` or U+0100 ``Ā``); else None.  An odd last byte (a line
    feed a tool appended) does not make it another encoding."""
    pairs = min(len(data), 4096) // 2
    if pairs < 2:
        return None
    sample = data[: 2 * pairs]
    first, second = sample[0::2].count(0), sample[1::2].count(0)
    if second >= 0.6 * pairs and first <= pairs // 20:
        return "utf-16-le"
    if first >= 0.6 * pairs and second <= pairs // 20:
        return "utf-16-be"
    return None


def decode_bytes(path: Path, data: bytes) -> tuple[str, list[Finding]]:
    """Decode a file's bytes; return the text and the encoding problems found."""
    findings: list[Finding] = []
    skipped = 0  # bytes of a UTF-8 byte-order mark left out
    if data.startswith(_BOM_UTF8):
        data = data[len(_BOM_UTF8) :]
        skipped = len(_BOM_UTF8)
    with_bom = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    utf16 = None if with_bom else _utf16_without_bom(data)
    if data.startswith(_BOM_UTF32):
        text = data.decode("utf-32", errors="replace")
        findings.append(
            _finding(
                path,
                0,
                min(1, len(text)),
                "file is encoded in UTF-32; BibTeX and LaTeX expect UTF-8 (read as UTF-32)",
                encoding="utf-32",
            )
        )
    elif with_bom or utf16 is not None:
        text = data.decode(utf16 or "utf-16", errors="replace")
        how = "" if utf16 is None else f" ({utf16[-2:].upper()}, no byte order mark)"
        findings.append(
            _finding(
                path,
                0,
                min(1, len(text)),
                f"file is encoded in UTF-16{how}; BibTeX and LaTeX expect UTF-8 (read as UTF-16)",
                encoding="utf-16",
            )
        )
    else:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            text, offset, bad_count = _fallback_decode(data, error.start)
            bad = data[error.start]
            line, col = _line_col(text, offset)
            more = f" ({bad_count} invalid bytes in all)" if bad_count > 1 else ""
            findings.append(
                _finding(
                    path,
                    offset,
                    offset + 1,
                    f"file is not valid UTF-8: byte 0x{bad:02X} at line {line}, column {col}"
                    f"{more}; read as Windows-1252/Latin-1, save the file as UTF-8",
                    encoding="cp1252",
                    byte=bad,
                    byte_offset=skipped + error.start,
                    invalid_bytes=bad_count,
                )
            )
    if "\x00" in text:
        text = _report_nuls(path, text, findings)
    return text, findings


def _report_nuls(path: Path, text: str, findings: list[Finding]) -> str:
    total = text.count("\x00")
    pos = text.find("\x00")
    reported = 0
    while pos != -1 and reported < _MAX_NUL_FINDINGS:
        end = pos
        while end < len(text) and text[end] == "\x00":
            end += 1
        line, col = _line_col(text, pos)
        findings.append(
            _finding(
                path,
                pos,
                end,
                f"NUL byte{'s' if end - pos > 1 else ''} at line {line}, column {col} "
                f"({total} in the file); replaced by U+FFFD — the file may be corrupt",
                nul_count=total,
            )
        )
        reported += 1
        pos = text.find("\x00", end)
    return text.replace("\x00", "\ufffd")
