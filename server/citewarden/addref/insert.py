"""Where a new entry goes: one insertion (offset and text) into a bibliography file.

The format follows the file: BibTeX / BibLaTeX for ``.bib`` (in the file's own style, see
:mod:`.bibtex_out`), CSL-JSON for ``.json``, CSL-YAML for ``.yaml`` / ``.yml``.  Nothing
is written here: the caller turns the insertion into an editor edit or writes the file
after the user asked for it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from citewarden.addref.bibtex_out import bibtex_entry, detect_style, insertion
from citewarden.addref.csl_out import (
    YamlLayoutError,
    csl_item,
    json_insertion,
    markdown_reads_otherwise,
    yaml_insertion,
)
from citewarden.addref.keys import STOP_WORDS
from citewarden.safe_text import hidden_characters, without_unsafe
from citewarden.text import line_ending
from citewarden.verify.authors import split_suffix
from citewarden.verify.records import WorkRecord

BIBTEX_SUFFIXES = frozenset({".bib", ".bibtex"})
JSON_SUFFIXES = frozenset({".json"})
YAML_SUFFIXES = frozenset({".yaml", ".yml"})
#: Characters a new key may hold (BibTeX, biber and pandoc all accept these).
_KEY_SAFE = re.compile(r"[^A-Za-z0-9_:.\-]")


@dataclass(frozen=True, slots=True)
class Insertion:
    """Insert ``text`` at code-point ``offset`` of ``path``."""

    path: Path
    offset: int
    text: str
    key: str


class InsertError(ValueError):
    """The file cannot take a new entry (its format, or a broken CSL-JSON array), or the
    record would hide text in it."""


#: The punctuation a key may hold: what BibTeX, biber and pandoc (2.17, 3.6.1, 3.9) all read
#: in a key.  Of the rest, BibTeX ends a key at ``,`` and ``}``, biber drops the entry at
#: ``" # % ' ( ) = \\ {``, and pandoc fails the whole file at ``" # % < > \\ ^ { | ~``.
KEY_PUNCTUATION = frozenset("!$&*+-./:;?@[]_`")
#: Most characters in a key.
MAX_KEY_LENGTH = 200


def valid_key(key: str) -> bool:
    """True when ``key`` can be written as an entry key in every format: letters and digits
    (any script's: all three read ``straße``, ``α``, ``中``, not an emoji, a combining
    accent or a no-break space) and :data:`KEY_PUNCTUATION`."""
    return 0 < len(key) <= MAX_KEY_LENGTH and all(c.isalnum() or c in KEY_PUNCTUATION for c in key)


def key_refusal(key: str) -> str | None:
    """Why ``key`` cannot be an entry key, or None when it can."""
    if valid_key(key):
        return None
    shown = f"{key[:60]!r}{'...' if len(key) > 60 else ''}"
    if not key:
        return "an empty key cannot be an entry key"
    if len(key) > MAX_KEY_LENGTH:
        return f"{shown} cannot be an entry key: longer than {MAX_KEY_LENGTH} characters"
    bad = next(c for c in key if not (c.isalnum() or c in KEY_PUNCTUATION))
    return (
        f"{shown} cannot be an entry key: {bad!r} is not read in a key by all of BibTeX, "
        "biber and pandoc (letters, digits and " + "".join(sorted(KEY_PUNCTUATION)) + " are)"
    )


def file_key_refusal(path: Path, key: str) -> str | None:
    """Why ``key`` (a valid key: :func:`key_refusal`) cannot be the key of an entry added to
    the bibliography ``path``, or None: in CSL-YAML, a key pandoc's Markdown reads as other
    text (:func:`~citewarden.addref.csl_out.markdown_reads_otherwise`)."""
    if path.suffix.lower() in YAML_SUFFIXES and markdown_reads_otherwise(key):
        return (
            f"{key[:60]!r} cannot be the id of a CSL-YAML item: pandoc reads the id as "
            "Markdown (math, emphasis, code, a dash, an ellipsis), so no citation finds the "
            "item, escaped or not; choose a key without $ * ` -- ... &name; and without _ or "
            "@ at the edge of a word"
        )
    return None


def format_refusal(path: Path) -> str | None:
    """Why no entry can be added to ``path`` for its kind (None when one can): a file
    neither BibTeX, CSL-JSON nor CSL-YAML by its suffix."""
    if path.suffix.lower() in BIBTEX_SUFFIXES | JSON_SUFFIXES | YAML_SUFFIXES:
        return None
    return f"{path}: not a bibliography format entries can be added to"


def plan_insertion(path: Path, text: str, record: WorkRecord, key: str) -> Insertion:
    """The insertion that adds ``record`` under ``key`` to the bibliography ``text``, its
    lines ended as the file's are (``\\r\\n`` in a CRLF file).  The harmless invisible
    characters of the record are dropped (:func:`~citewarden.safe_text.without_unsafe`); one
    that would hide text (a tag character, a joiner inside an ASCII word) refuses it."""
    if hidden := hidden_text(record):
        raise InsertError(
            f"the record holds characters drawn as nothing ({', '.join(hidden)}), which would"
            f" hide text in {path.name}"
        )
    change = _insertion(path, text, record, key)
    newline = line_ending(text)
    if newline == "\n":
        return change
    return Insertion(path, change.offset, change.text.replace("\n", newline), key)


def hidden_text(record: WorkRecord) -> list[str]:
    """The characters drawn as nothing (:func:`~citewarden.safe_text.hidden_characters`)
    left in the values of ``record`` an added entry writes, in BibTeX as in CSL, once the
    harmless ones are dropped (:func:`~citewarden.safe_text.without_unsafe`)."""
    values = [record.title, record.subtitle, record.venue, record.volume, record.issue]
    values += [record.pages, record.publisher, record.doi, record.arxiv_id, record.pmid]
    values += [record.url, *record.isbn, *(n for p in record.authors for n in (p.family, p.given))]
    return hidden_characters(without_unsafe("\n".join(v for v in values if v)))


def _insertion(path: Path, text: str, record: WorkRecord, key: str) -> Insertion:
    if (refusal := key_refusal(key)) is not None:
        raise InsertError(refusal)
    suffix = path.suffix.lower()
    if suffix in BIBTEX_SUFFIXES:
        style = detect_style(text)
        offset, body = insertion(text, bibtex_entry(record, key, style), style)
        return Insertion(path, offset, body, key)
    if suffix in JSON_SUFFIXES:
        if text.startswith("\ufeff"):
            raise InsertError(
                f"{path.name} starts with a byte-order mark, which makes it no JSON to pandoc "
                "(2.17, 3.6.1 and 3.9 read no entry from it): remove the mark first"
            )
        place = json_insertion(text, csl_item(record, key))
        if place is None:
            raise InsertError(
                f"{path.name} is not a CSL-JSON array, nor an object with an array of items"
            )
        return Insertion(path, place[0], place[1], key)
    if suffix in YAML_SUFFIXES:
        if (refusal := file_key_refusal(path, key)) is not None:
            raise InsertError(refusal)
        try:
            offset, body = yaml_insertion(text, csl_item(record, key))
        except YamlLayoutError as error:
            raise InsertError(
                f"{path.name}: no CSL-YAML list of items to add to ({error})"
            ) from None
        return Insertion(path, offset, body, key)
    raise InsertError(format_refusal(path) or "")


def apply(text: str, change: Insertion) -> str:
    """``text`` with ``change`` made."""
    return text[: change.offset] + change.text + text[change.offset :]


def same_key(key: str) -> str:
    """``key`` as keys are compared: lower-cased, as biber does when it warns of a "case
    mismatch" (BibTeX's "Repeated entry" lower-cases ASCII letters only); not casefolded,
    so ``straße2020`` and ``strasse2020`` differ, as they do for BibTeX, biber and pandoc."""
    return key.lower()


def clashing_key(key: str, taken: Iterable[str]) -> str | None:
    """The key of ``taken`` that ``key`` would repeat, or None (compared by
    :func:`same_key`): a new ``hornik1991approximation`` repeats
    ``Hornik1991approximation``."""
    lowered = same_key(key)
    return next((k for k in taken if same_key(k) == lowered), None)


#: Letters NFKD does not take apart, as the ASCII letters they are written with when
#: accents cannot be (``Østergaard`` is ``ostergaard``, ``Straße`` ``strasse``).
_TRANSLITERATED = str.maketrans(
    {
        "ø": "o",
        "Ø": "O",
        "ł": "l",
        "Ł": "L",
        "ß": "ss",
        "ẞ": "SS",
        "đ": "d",
        "Đ": "D",
        "ð": "d",
        "Ð": "D",
        "æ": "ae",
        "Æ": "AE",
        "œ": "oe",
        "Œ": "OE",
        "þ": "th",
        "Þ": "Th",
        "ı": "i",
        "ħ": "h",
        "Ħ": "H",
        "ŧ": "t",
        "Ŧ": "T",
    }
)


def _ascii_word(text: str) -> str:
    """``text`` in lower-case ASCII letters: accents dropped, the letters of
    :data:`_TRANSLITERATED` spelt out, anything else left out."""
    plain = unicodedata.normalize("NFKD", text.translate(_TRANSLITERATED))
    return re.sub(r"[^a-z]", "", "".join(c for c in plain if c.isascii()).lower())


def _surname(record: WorkRecord) -> str:
    """The last word of the first author's surname, without a generational suffix
    (``Steele Jr.`` is ``Steele``, ``Smith III`` ``Smith``); the first author with a
    surname is taken (a registry may list one with none: DataCite's ``, Anonymous``, an
    empty PubMed collective name); "" when none has one."""
    family = next((p.family for p in record.authors if p.family.strip()), "")
    base = split_suffix(family)[0].rstrip(" ,")
    words = base.split()
    return words[-1] if words else ""


def make_key(record: WorkRecord, taken: Iterable[str] = frozenset()) -> str:
    """A Google Scholar style key (``surname2017word``) that no key of ``taken`` repeats,
    compared ignoring case (:func:`same_key`): ``base``, ``basea``, ``baseb``..."""

    surname = _ascii_word(_surname(record))
    words = [_ascii_word(w) for w in re.split(r"[\s\-\u2010-\u2015/]+", record.title)]
    word = next((w for w in words if w and w not in STOP_WORDS), "")
    base = _KEY_SAFE.sub("", f"{surname or 'anon'}{record.year or ''}{word}") or "entry"
    lowered = {same_key(k) for k in taken}
    key, n = base, 0
    while same_key(key) in lowered:
        n += 1
        key = f"{base}{chr(ord('a') + n - 1)}" if n <= 26 else f"{base}{n}"
    return key
