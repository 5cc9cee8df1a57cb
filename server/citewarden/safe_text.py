"""Text from outside (files, metadata sources), made safe to show and to write back.

Citation keys, field values and records fetched from a source can hold control characters
(ESC starts terminal escape sequences: a changed window title, a cleared screen, a spoofed
hyperlink; BEL, C1 controls) and bidirectional formatting characters (U+202E turns the rest
of a line around, so what is shown is not what is there); a name that is not UTF-8 holds
surrogates, which no output can encode.  Every output shows such a character as a visible
escape (``\\x1b``, ``\\u202e``, a name's byte 0xFE as ``\\xfe``): :func:`visible` for one line of text,
:func:`visible_lines` for text whose line breaks are kept, :func:`json_safe` for JSON text
(the escapes JSON itself defines, so the data is unchanged).  :func:`unsafe_characters`
tells corrections that carry them apart, which are refused (see :mod:`citewarden.fix`).
"""

from __future__ import annotations

import re

#: C0 controls but tab and line feed, DEL, C1 controls, bidirectional marks, embeddings,
#: overrides and isolates, the Unicode line and paragraph separators, and surrogates (no
#: character, and no encoding can write one: in a file name that is not UTF-8, Python holds
#: each byte that is not as U+DC80..U+DCFF).
_UNSAFE = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
    "\ud800-\udfff"
)
#: Characters that show nothing and are no text of their own, dropped from what is written
#: into a file (:func:`without_unsafe`): the soft hyphen (a place a word may break), the
#: zero-width space, the word joiner and the invisible operators (U+2060..U+2064), a
#: byte-order mark inside text.  The zero-width non-joiner and joiner stay: Persian, Urdu
#: and Indic scripts and emoji sequences need them.
_INVISIBLE = "\xad\u200b\u2060-\u2064\ufeff"
_UNSAFE_OR_INVISIBLE = re.compile(f"[{_UNSAFE}{_INVISIBLE}]")
#: Characters a renderer draws as nothing, shown as escapes too (:func:`visible`): the
#: other format characters (Unicode category Cf: soft hyphen, zero-width space, word
#: joiner, invisible operators, byte-order mark, the tag characters U+E0000..U+E007F that
#: can spell a hidden text, interlinear annotation marks ...) and the other default
#: ignorable ones (combining grapheme joiner, Hangul fillers, U+FFF0..U+FFF8).
_HIDDEN = (
    "\xad\u034f\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5"
    "\u180e\u200b\u2060-\u2065\u206a-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3"
    "\U0001d173-\U0001d17a\U000e0000-\U000e00ff\U000e01f0-\U000e0fff"
)
#: What a script or an emoji needs between or after its own characters: the zero-width
#: non-joiner and joiner (Persian, Indic scripts, emoji sequences) and the variation
#: selectors (text or emoji presentation, CJK variants, Mongolian).  Kept where they do
#: that work, after a visible character that is not ASCII (and, for the joiners, before
#: one), and shown as escapes anywhere else: ``k\u200dey`` is not the key ``key``.
_JOINERS = "\u200c\u200d"
_SELECTORS = "\u180b-\u180d\u180f\ufe00-\ufe0f\U000e0100-\U000e01ef"
_SHOWN = re.compile(f"[^\\x00-\\x7f\\s{_UNSAFE}{_HIDDEN}]")
_WORKING = re.compile(f"[{_JOINERS}{_SELECTORS}]")
#: every character that may be shown as an escape (one class: text is scanned fast)
_ESCAPED = f"{_UNSAFE}{_HIDDEN}{_JOINERS}{_SELECTORS}"
_UNSAFE_IN_LINE = re.compile(f"[\n\r{_ESCAPED}]")
#: the same, but line feeds and CR LF line ends are kept
_UNSAFE_KEEPING_LINES = re.compile(f"\r(?!\n)|[{_ESCAPED}]")
#: the same, but every CR is kept (a lone one ends a line of a CR-only file)
_UNSAFE_KEEPING_BREAKS = re.compile(f"[{_ESCAPED}]")
_UNSAFE_JSON = re.compile(f"[\r{_ESCAPED}]")
#: what :func:`unsafe_characters` names: controls, bidirectional marks, surrogates
_UNSAFE_TO_WRITE = re.compile(f"\r(?!\n)|[{_UNSAFE}]")
#: what :func:`hidden_characters` names: characters drawn as nothing, joiners and selectors
_HIDDEN_TO_WRITE = re.compile(f"[{_HIDDEN}{_JOINERS}{_SELECTORS}]")


def _works(m: re.Match[str]) -> bool:
    """Whether the joiner or variation selector ``m`` found joins or selects visible
    characters that are not ASCII (kept), rather than hiding in a key or a word."""
    at = m.start()
    if _WORKING.match(m.group()) is None or at == 0 or not _SHOWN.match(m.string, at - 1):
        return False
    return m.group() not in _JOINERS or _SHOWN.match(m.string, at + 1) is not None


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8: shown as that byte
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return f"\\x{code:02x}"
    if _works(m):
        return m.group()
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _json_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if _works(m):
        return m.group()
    if code < 0x10000:
        return f"\\u{code:04x}"
    high, low = divmod(code - 0x10000, 0x400)  # JSON writes it as a UTF-16 pair
    return f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}"


def visible(text: str) -> str:
    """``text`` as one line: every control, line break, bidirectional and invisible
    character shown as an escape (``\\x1b``, ``\\u200b``, ``\\U000e0041``); tabs, and
    joiners and variation selectors doing their work in a script or an emoji, are kept."""
    if _UNSAFE_IN_LINE.search(text) is None:
        return text
    return _UNSAFE_IN_LINE.sub(_escape, text)


def visible_lines(text: str, *, lone_cr: bool = False) -> str:
    """:func:`visible`, keeping line feeds and CR LF pairs (for multi-line output such as
    a report or a diff); with ``lone_cr``, a CR alone too: the line end of a file whose
    lines end in CR, in a diff of that file (as diff(1) writes it, so that patch applies it)."""
    unsafe = _UNSAFE_KEEPING_BREAKS if lone_cr else _UNSAFE_KEEPING_LINES
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(_escape, text)


#: What a C string literal writes with a backslash, as diff(1) and git quote a file name.
_C_ESCAPES = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
_NEEDS_QUOTES = re.compile(f'[\\\\"\t\n\r{_ESCAPED}]')


def c_quoted(name: str) -> str | None:
    """``name`` as GNU diff and git write a file name that holds a tab, a line break, a
    quote, a backslash or a character :func:`visible` may show escaped (an invisible one,
    a joiner too, wherever it stands): between double quotes, each
    of those as a C escape (its UTF-8 bytes in octal, ``\\342\\200\\256`` for U+202E),
    which patch(1) and ``git apply`` read back; None when ``name`` needs no quotes."""
    if _NEEDS_QUOTES.search(name) is None:
        return None
    out = []
    for char in name:
        if char in _C_ESCAPES:
            out.append(_C_ESCAPES[char])
        elif _NEEDS_QUOTES.match(char):
            out.extend(f"\\{byte:03o}" for byte in char.encode("utf-8", "surrogateescape"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def json_safe(text: str) -> str:
    """JSON text with every unsafe character written as a ``\\uXXXX`` escape.

    Valid for the output of ``json.dumps``: outside strings it writes only ASCII, and
    inside a string the escape stands for the same character, so the data is unchanged.
    """
    if text.isascii() and "\x7f" not in text:  # (JSON escapes the other ASCII controls)
        return text
    if _UNSAFE_JSON.search(text) is None:
        return text
    return _UNSAFE_JSON.sub(_json_escape, text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """``text`` with each surrogate (half of a pair on its own: no character, and no
    encoding can write it) as U+FFFD; its length, in code points and in UTF-16 units, is
    unchanged, so positions in it still hold."""
    if text.isascii() or _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", text)


#: The most characters of one value (a title, an author list, a sentence) a hover shows.
MAX_SHOWN = 1000


def clipped(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` cut to about ``limit`` characters (at a space when one is near the end) with
    ``…`` and its whole length, so that a value of 200 000 characters does not become a
    hover of as many."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return f"{cut} … ({len(text):,} characters)"


def without_unsafe(text: str) -> str:
    """``text`` from outside (a record's title, a name) as it may be written into a file:
    every unsafe character (:func:`unsafe_characters`: controls, bidirectional marks,
    surrogates) and every invisible one removed, the line and paragraph separators
    (U+2028, U+2029) made spaces; tabs and line breaks kept."""
    if _UNSAFE_OR_INVISIBLE.search(text) is None:
        return text
    return _UNSAFE_OR_INVISIBLE.sub(lambda m: " " if m.group() in "\u2028\u2029" else "", text)


def unsafe_characters(text: str) -> list[str]:
    """The distinct unsafe characters in ``text`` (line breaks allowed), as escapes."""
    return sorted({_escape(m) for m in _UNSAFE_TO_WRITE.finditer(text)})


def hidden_characters(text: str) -> list[str]:
    """The distinct characters in ``text`` drawn as nothing that :func:`visible` shows as
    escapes (a tag character, a joiner inside an ASCII word), as those escapes; joiners and
    variation selectors doing their work in a script or an emoji are not among them."""
    found = (_escape(m) for m in _HIDDEN_TO_WRITE.finditer(text))
    return sorted({e for e in found if e.startswith("\\")})


# ---- Markdown (hovers, completion documentation) ------------------------------------------

#: ASCII punctuation that can start Markdown syntax (emphasis, code, links and images,
#: which need a '[', autolinks and HTML, headings, tables, entities, strikethrough).
_MARKDOWN_SPECIAL = re.compile(r"[\\`*_\[\]<>#|&~]")
#: Where a GFM autolink starts without Markdown syntax (``https://x``, ``www.x``,
#: ``a@b.org``): the ``:`` before ``//``, the ``.`` after ``www`` and every ``@`` are escaped.
_BARE_LINK = re.compile(r"(?<=[A-Za-z0-9+.-]):(?=//)|(?<=(?<![\w.-])[Ww]{3})\.|@")
#: what a link destination must not hold unencoded
_URL_UNSAFE = re.compile(r"[^A-Za-z0-9\-._~:/?#@!$&'*+,;=%]")


#: A list item's marker (``1.``, ``1)``, ``-``, ``+``) or a setext underline (``=``) that
#: would start a block at the beginning of a line (``*``, ``#``, ``>`` are escaped anyway).
_BLOCK_START = re.compile(r"(\d{1,9})([.)])|([-+=])")


def markdown_text(text: str, *, line_start: bool = False) -> str:
    """``text`` shown literally in Markdown: no emphasis, link (a bare address a renderer
    would link included), image, HTML or heading can start in it, and unsafe characters
    are escaped (:func:`visible`).  ``line_start``: the text begins a line (after a quote's
    ``> `` or a list item's marker), so no list item or underline starts there either."""
    escaped = _MARKDOWN_SPECIAL.sub(lambda m: "\\" + m.group(), visible(text))
    escaped = _BARE_LINK.sub(lambda m: "\\" + m.group(), escaped)
    if line_start and (m := _BLOCK_START.match(escaped)):
        marker = f"{m[1]}\\{m[2]}" if m[1] else f"\\{m[3]}"
        escaped = marker + escaped[m.end() :]
    return escaped


def https_url(url: str | None) -> str | None:
    """``url`` as a link destination when it is an ``https`` URL with a host, percent-encoded
    so that it cannot end the link early; None for any other scheme (``http``, ``file``,
    ``command``, ``javascript`` ...) or anything that is not a URL."""
    if not url:
        return None
    url = url.strip()
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() != "https" or not rest or rest[0] in "/?#":
        return None
    return "https://" + _URL_UNSAFE.sub(lambda m: _percent(m.group()), rest)


def _percent(ch: str) -> str:
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a name that is not UTF-8: that byte
        data = bytes([code - 0xDC00])
    elif 0xD800 <= code <= 0xDFFF:  # a lone surrogate: no character, shown as U+FFFD
        data = "\ufffd".encode()
    else:
        data = ch.encode()
    return "".join(f"%{b:02X}" for b in data)


def markdown_code(text: str) -> str:
    """``text`` as an inline code span (nothing in it is a link), escaped (:func:`visible`)."""
    shown = visible(text)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def markdown_link(label: str, url: str | None) -> str:
    """A Markdown link to ``url`` labelled ``label`` if the URL is https (see
    :func:`https_url`); otherwise the label alone, as text."""
    target = https_url(url)
    shown = markdown_text(label)
    return f"[{shown}]({target})" if target is not None else shown


def doi_url(doi: str) -> str:
    """The https://doi.org/ address of ``doi``, percent-encoded where needed."""
    return "https://doi.org/" + _URL_UNSAFE.sub(lambda m: _percent(m.group()), doi.strip())
