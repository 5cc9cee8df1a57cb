"""Turn a bibliography entry into comparable values (pure; no I/O).

LaTeX is decoded lazily, one field value at a time, and the results are memoised.  Confusable
characters (Cyrillic or Greek letters that look Latin, mixed into Latin words) are detected on
the raw text before any folding could hide them.  Identifiers are cleaned and validated:
DOIs from URLs and prefixes, arXiv ids (new and old style) from several fields, ISBN-10/13
with checksums, PMIDs.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote

from citewarden.model import Entry, Field, Span
from citewarden.parsing.latex_decode import decode_latex

# ----------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------

_LATEX_TRIGGERS = ("\\", "$", "~")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9:.-]*(?:\s[^<>]*)?/?>")
_SPACE = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^\w]+")
_GREEK_NAMES = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ϵ": "epsilon",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "π": "pi",
    "σ": "sigma",
    "τ": "tau",
    "φ": "phi",
    "ϕ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
    "θ": "theta",
    "η": "eta",
    "ζ": "zeta",
    "ξ": "xi",
    "ρ": "rho",
    "ν": "nu",
}


_GREEK_TABLE = str.maketrans(_GREEK_NAMES)
_LETTER_TABLE = str.maketrans(
    {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ı": "i"}
)


_ACCENTS = {
    '"': "\u0308",
    "'": "\u0301",
    "`": "\u0300",
    "^": "\u0302",
    "~": "\u0303",
    "=": "\u0304",
    ".": "\u0307",
    "u": "\u0306",
    "v": "\u030c",
    "H": "\u030b",
    "c": "\u0327",
    "k": "\u0328",
    "r": "\u030a",
}
_SYMBOL_ACCENT = re.compile(
    r"""\\(["'`^~=.])\s*(?:\{\s*(\\[ij]|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"""
)
_LETTER_ACCENT = re.compile(r"\\([uvHckr])(?:\s*\{\s*(\\[ij]|[A-Za-z])\s*\}|\s+([A-Za-z]))")
_LETTERS = {
    "o": "ø",
    "O": "Ø",
    "aa": "å",
    "AA": "Å",
    "ae": "æ",
    "AE": "Æ",
    "oe": "œ",
    "OE": "Œ",
    "l": "ł",
    "L": "Ł",
    "ss": "ß",
    "i": "ı",
    "j": "ȷ",
}
_LETTER_MACRO = re.compile(r"\\(aa|AA|ae|AE|oe|OE|ss|o|O|l|L|i|j)(?![A-Za-z])(?:\{\})?\s?")
_ESCAPES = re.compile(r"\\([&%_$#{}])")


def _accent(mark: str, base: str) -> str:
    base = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", base + _ACCENTS[mark])


def _fast_latex(value: str) -> str | None:
    """Decode the markup bibliographies mostly hold (accents, special letters, escapes)
    without the full parser; None when anything else remains."""
    text = _SYMBOL_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), value)
    text = _LETTER_ACCENT.sub(lambda m: _accent(m.group(1), m.group(2) or m.group(3)), text)
    text = _LETTER_MACRO.sub(lambda m: _LETTERS[m.group(1)], text)
    text = _ESCAPES.sub(lambda m: "\x00" + m.group(1), text)
    if "\\" in text or "$" in text:
        return None
    text = text.replace("{", "").replace("}", "").replace("~", " ").replace("\x00", "")
    return text


@lru_cache(maxsize=65536)
def latex_to_text(value: str) -> str:
    """Decode LaTeX markup in one field value to Unicode and drop grouping braces.

    Plain values (no backslash, ``$`` or ``~``) skip the decoder entirely; accents and
    special letters are decoded directly; anything else (TeX logos included) goes through
    :func:`citewarden.parsing.latex_decode.decode_latex`.
    """
    fast = None
    if not any(t in value for t in _LATEX_TRIGGERS):
        text = value.replace("{", "").replace("}", "")
    elif (fast := _fast_latex(value)) is not None:
        text = fast
    else:
        # the decoder keeps an escaped brace it cannot pair (``\{\``): drop it, as the
        # other two paths drop every brace
        text = decode_latex(value).replace("{", "").replace("}", "")
    text = text.replace("\u00a0", " ")
    return _SPACE.sub(" ", text).strip()


def strip_markup(value: str) -> str:
    """Remove HTML/JATS/MathML tags that services put into titles."""
    if "<" not in value and "&" not in value:
        return value
    return html.unescape(_HTML_TAG.sub("", value))


@lru_cache(maxsize=65536)
def fold(value: str) -> str:
    """Comparison key for free text: NFKC, case-folded, diacritics and punctuation removed."""
    if value.isascii():
        text = value.casefold().replace("&", " and ")
    else:
        text = unicodedata.normalize("NFKC", value).casefold()
        text = text.translate(_GREEK_TABLE).replace("&", " and ")
        text = text.translate(_LETTER_TABLE)
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    text = _NON_WORD.sub(" ", text.replace("_", " "))
    return _SPACE.sub(" ", text).strip()


def field_text(entry: Entry, *names: str) -> str | None:
    """The decoded text of the first present, non-empty field among ``names``."""
    for name in names:
        raw = entry.get(name)
        if raw is not None and raw.strip():
            return latex_to_text(raw)
    return None


# ----------------------------------------------------------------------------------------
# Confusable characters
# ----------------------------------------------------------------------------------------

#: Cyrillic and Greek letters that render like Latin ones, with the Latin letter they mimic.
CONFUSABLE_TO_LATIN: dict[str, str] = dict(
    zip(
        "АВЕЅІЈКМНОРСТХУаеорсхуѕіјԁԛԝһӏΑΒΕΖΗΙΚΜΝΟΡΤΥΧοϲϳ",
        "ABESIJKMHOPCTXYaeopcxysijdqwhlABEZHIKMNOPTYXocj",
        strict=True,
    )
)
CONFUSABLES: frozenset[str] = frozenset(CONFUSABLE_TO_LATIN)
_DELATIN = str.maketrans(CONFUSABLE_TO_LATIN)


def replace_confusables(value: str) -> str:
    """Replace look-alike Cyrillic/Greek letters by the Latin letters they imitate."""
    return value.translate(_DELATIN)


_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Homoglyph:
    """A look-alike character found in a field value."""

    field: str
    char: str
    name: str  # Unicode character name, e.g. "CYRILLIC SMALL LETTER A"
    offset: int  # index in the raw field value
    word: str


def _script(ch: str) -> str:
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "OTHER"
    if name.startswith("LATIN"):
        return "LATIN"
    if name.startswith("CYRILLIC"):
        return "CYRILLIC"
    if name.startswith("GREEK"):
        return "GREEK"
    return "OTHER"


def find_homoglyphs(field: str, raw: str) -> list[Homoglyph]:
    """Confusable Cyrillic/Greek letters inside Latin words, or standing alone in a Latin
    text (a Cyrillic 'а' as the English article).  Genuine Greek (``α``-synuclein) and
    wholly Cyrillic or Greek text are left alone."""
    found: list[Homoglyph] = []
    if raw.isascii() or CONFUSABLES.isdisjoint(raw):
        return found
    letters = [ch for ch in raw if ch.isalpha()]
    if not letters:
        return found
    latin_share = sum(1 for ch in letters if _script(ch) == "LATIN") / len(letters)
    for m in _WORD.finditer(raw):
        word = m.group()
        scripts = {_script(ch) for ch in word}
        suspicious = [i for i, ch in enumerate(word) if ch in CONFUSABLES]
        if not suspicious:
            continue
        mixed = "LATIN" in scripts
        lone = scripts <= {"CYRILLIC", "GREEK"} and latin_share >= 0.8 and len(word) <= 3
        if mixed or lone:
            for i in suspicious:
                ch = word[i]
                found.append(Homoglyph(field, ch, unicodedata.name(ch, "?"), m.start() + i, word))
    return found


# ----------------------------------------------------------------------------------------
# Authors
# ----------------------------------------------------------------------------------------

_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
_ETAL = re.compile(r"^(?:et\.?\s*al\.?|others|and others|u\.\s*a\.)$", re.IGNORECASE)
_TRAILING_ETAL = re.compile(r"\s*,?\s*\bet\.?\s*al\.?\s*$", re.IGNORECASE)
_VON_WORD = re.compile(r"^[a-zà-ÿ]")


@dataclass(frozen=True, slots=True)
class Author:
    """One author as written, with a surname key for matching."""

    raw: str
    family: str  # decoded, without von particles
    given: str
    von: str = ""
    corporate: bool = False

    @property
    def key(self) -> str:
        return surname_key(self.family)

    def display(self) -> str:
        family = f"{self.von} {self.family}".strip()
        return f"{family}, {self.given}" if self.given else family


def surname_key(family: str) -> str:
    """A surname folded for matching: no diacritics, hyphens or spaces."""
    return fold(family).replace(" ", "")


def _split_top_level(value: str, sep: re.Pattern[str]) -> list[str]:
    """Split on ``sep`` outside braces."""
    if "{" not in value:
        return [p.strip() for p in sep.split(value)]
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            m = sep.match(value, i)
            if m and m.end() > m.start():
                parts.append(value[start:i])
                start = m.end()
                i = m.end()
                continue
        i += 1
    parts.append(value[start:])
    return [p.strip() for p in parts]


def _tokens(value: str) -> list[str]:
    return [t for t in _split_top_level(value, re.compile(r"\s+")) if t]


def _is_von(token: str) -> bool:
    text = latex_to_text(token)
    return bool(text) and not token.startswith("{") and bool(_VON_WORD.match(text))


def parse_author(raw: str) -> Author:
    """Parse one BibTeX name: ``First von Last``, ``von Last, First``, ``von Last, Jr, First``."""
    raw = raw.strip()
    if raw.startswith("{") and raw.endswith("}") and _balanced_outer(raw):
        return Author(raw, latex_to_text(raw[1:-1]), "", corporate=True)
    parts = _split_top_level(raw, re.compile(r","))
    if len(parts) >= 2:
        last_tokens = _tokens(parts[0])
        given = parts[-1] if len(parts) == 2 else parts[2]
        von_tokens: list[str] = []
        while len(last_tokens) > 1 and _is_von(last_tokens[0]):
            von_tokens.append(last_tokens.pop(0))
        return Author(
            raw,
            latex_to_text(" ".join(last_tokens)),
            latex_to_text(given),
            latex_to_text(" ".join(von_tokens)),
        )
    tokens = _tokens(raw)
    if len(tokens) <= 1:
        return Author(raw, latex_to_text(raw), "")
    # First von Last: 'von' starts at the first lower-case word after the first token.
    von_start = next((i for i in range(1, len(tokens) - 1) if _is_von(tokens[i])), None)
    if von_start is not None:
        von_end = von_start
        while von_end < len(tokens) - 1 and _is_von(tokens[von_end]):
            von_end += 1
        return Author(
            raw,
            latex_to_text(" ".join(tokens[von_end:])),
            latex_to_text(" ".join(tokens[:von_start])),
            latex_to_text(" ".join(tokens[von_start:von_end])),
        )
    return Author(raw, latex_to_text(tokens[-1]), latex_to_text(" ".join(tokens[:-1])))


def _balanced_outer(value: str) -> bool:
    depth = 0
    for i, ch in enumerate(value):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0 and i != len(value) - 1:
                return False
    return depth == 0


def split_authors(value: str) -> tuple[tuple[Author, ...], bool]:
    """Split an author field on top-level ``and``; returns (authors, truncated).

    ``and others`` / ``et al.`` mark an explicitly truncated list.
    """
    truncated = False
    authors: list[Author] = []
    for part in _split_top_level(value.strip(), _AND):
        if not part:
            continue
        text = latex_to_text(part)
        if _ETAL.match(text):
            truncated = True
            continue
        stripped = _TRAILING_ETAL.sub("", part)
        if stripped != part:
            truncated = True
            part = stripped
            if not part.strip():
                continue
        authors.append(parse_author(part))
    return tuple(authors), truncated


_PLACEHOLDER_FAMILIES = frozenset(
    {
        "author",
        "authors",
        "lastname",
        "surname",
        "familyname",
        "doe",
        "placeholder",
        "unknown",
        "tbd",
        "todo",
        "xxx",
        "name",
        "someone",
        "others",
    }
)
_PLACEHOLDER_GIVEN = frozenset({"firstname", "first", "given", "givenname", "author"})


def is_placeholder(author: Author) -> bool:
    """Names that stand in for real authors: "Doe, John", "Author, A.", "Lastname, Firstname",
    "Author1"."""
    if author.corporate:
        return fold(author.family) in {"author", "authors", "unknown", "placeholder"}
    family = surname_key(author.family)
    given = fold(author.given).replace(" ", "")
    if re.fullmatch(r"author\d*|name\d+|person\d+", family):
        return True
    if family in _PLACEHOLDER_FAMILIES:
        return family != "doe" or given in {"john", "jane", "j", "jd", "johnq", "janeq", ""}
    return given in _PLACEHOLDER_GIVEN and family in {"last", "lastname", "surname", "family"}


# ----------------------------------------------------------------------------------------
# Identifiers
# ----------------------------------------------------------------------------------------

_DOI_PREFIX = re.compile(
    r"^(?:doi\s*:\s*|(?:https?://)?(?:dx\.|www\.)?doi\.org/|https?://doi\.[a-z]+\.org/)",
    re.IGNORECASE,
)
_DOI_SHAPE = re.compile(r"^10\.\d{4,9}/\S+$")


def clean_doi(value: str | None) -> str | None:
    """A bare lower-case DOI from ``doi:``/URL forms, or None when it is not a DOI."""
    if not value:
        return None
    text = value.strip().replace("\\_", "_").replace("\\&", "&").replace("{", "").replace("}", "")
    text = unquote(text).strip()
    for _ in range(2):
        text = _DOI_PREFIX.sub("", text).strip()
    text = text.rstrip(".,;")
    return text.lower() if _DOI_SHAPE.match(text) else None


_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
_ARXIV_OLD = re.compile(
    r"(?<![A-Za-z-])((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|"
    r"nucl-ex|nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat|eess|econ|chao-dyn|"
    r"solv-int|patt-sol|adap-org|comp-gas|alg-geom|dg-ga|funct-an|q-alg|mtrl-th|supr-con|"
    r"chem-ph|atom-ph|plasm-ph|ao-sci|bayes-an|acc-phys)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
)


def _arxiv_in(text: str, *, bare: bool) -> str | None:
    old = _ARXIV_OLD.search(text)
    if old:
        return old.group(1)
    if bare:
        m = _ARXIV_NEW.fullmatch(text.strip())
        if m:
            return _valid_new_arxiv(m.group(1))
    m = re.search(r"arxiv(?:\.org/(?:abs|pdf)/|\s*:\s*|\s+preprint\s+arxiv\s*:\s*)", text, re.I)
    if m:
        n = _ARXIV_NEW.match(text, m.end())
        if n:
            return _valid_new_arxiv(n.group(1))
    return None


def _valid_new_arxiv(ident: str) -> str | None:
    yymm = ident.split(".")[0]
    month = int(yymm[2:])
    return ident if 1 <= month <= 12 else None


def cited_arxiv_version(raw: str, arxiv_id: str | None) -> int | None:
    """The version number written after the id in the field it was read from."""
    if not arxiv_id:
        return None
    m = re.search(re.escape(arxiv_id) + r"v(\d{1,3})(?!\d)", raw, re.IGNORECASE)
    return int(m.group(1)) if m else None


def arxiv_from_entry(entry: Entry, doi: str | None) -> str | None:
    """The arXiv id of an entry, from eprint, an arXiv DOI, a URL or an ``arXiv:`` mention."""
    return arxiv_with_field(entry, doi)[0]


def arxiv_with_field(entry: Entry, doi: str | None) -> tuple[str | None, str | None]:
    """The arXiv id of an entry and the field it was read from."""
    eprint = entry.get("eprint")
    if eprint:
        prefix = (entry.get("archiveprefix") or entry.get("eprinttype") or "arxiv").lower()
        if "arxiv" in prefix:
            found = _arxiv_in(eprint.strip(), bare=True)
            if found:
                return found, "eprint"
    if doi and doi.startswith("10.48550/arxiv."):
        found = _arxiv_in(doi[len("10.48550/arxiv.") :], bare=True)
        if found:
            return found, "doi"
    for name in ("arxiv", "arxivid"):
        value = entry.get(name)
        if value:
            found = _arxiv_in(value.strip(), bare=True)
            if found:
                return found, name
    for name in ("url", "journal", "journaltitle", "note", "howpublished", "booktitle"):
        value = entry.get(name)
        if value:
            found = _arxiv_in(value, bare=False)
            if found:
                return found, name
    return None, None


_ISBN_LIKE = re.compile(r"(?<![\dX])(?:97[89][\s‐-]?)?\d(?:[\s‐-]?\d){8}[\s‐-]?[\dXx](?![\dX])")


def clean_isbn(value: str | None) -> str | None:
    """The ISBN-13 form of a valid ISBN-10 or ISBN-13, or None when the checksum fails."""
    if not value:
        return None
    text = re.sub(r"(?i)^isbn(?:-1[03])?:?\s*", "", value.strip())
    chars = re.sub(r"[\s\-‐-―]", "", text).upper()
    if re.fullmatch(r"\d{9}[\dX]", chars):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(chars))
        if total % 11 != 0:
            return None
        core = "978" + chars[:9]
        return core + _isbn13_check(core)
    if re.fullmatch(r"97[89]\d{10}", chars):
        return chars if _isbn13_check(chars[:12]) == chars[12] else None
    return None


def _isbn13_check(first12: str) -> str:
    total = sum((1 if i % 2 == 0 else 3) * int(c) for i, c in enumerate(first12))
    return str((10 - total % 10) % 10)


def clean_pmid(value: str | None) -> str | None:
    if not value:
        return None
    m = re.fullmatch(r"(?i)\s*(?:pmid\s*:?\s*)?(\d{1,9})\s*", value)
    if m is None:
        return None
    return m.group(1).lstrip("0") or None


# ----------------------------------------------------------------------------------------
# Numbers
# ----------------------------------------------------------------------------------------


def parse_year(value: str | None) -> int | None:
    """The year of a ``year`` or biblatex ``date`` value (``2020``, ``2020-05-01``, ``{2020}``)."""
    if not value:
        return None
    m = re.search(r"(?<!\d)(\d{4})(?!\d)", value)
    return int(m.group(1)) if m else None


def clean_pages(value: str | None) -> str | None:
    """``123--145`` / ``123–145`` / ``pp. 123-45`` -> ``123-145``; article numbers kept."""
    if not value:
        return None
    text = latex_to_text(value)
    text = re.sub(r"(?i)^pp?\.?\s*", "", text.strip())
    text = re.sub(r"\s*(?:-+|–|—|‐|‑)\s*", "-", text)
    parts = text.split("-")
    if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
        first, last = parts
        if len(last) < len(first):
            expanded = first[: len(first) - len(last)] + last
            if int(expanded) >= int(first):
                last = expanded
        return f"{first}-{last}"
    return text.strip() or None


def first_page(pages: str | None) -> str | None:
    if not pages:
        return None
    return pages.split("-")[0].strip().lower() or None


# ----------------------------------------------------------------------------------------
# Entry
# ----------------------------------------------------------------------------------------

VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "series")
TEXT_FIELDS = ("title", "subtitle", "author", "editor", "journal", "journaltitle", "booktitle")


@dataclass(frozen=True, slots=True)
class InvalidIdentifier:
    field: str
    value: str
    reason: str


@dataclass(frozen=True, slots=True)
class NormalizedEntry:
    """What verification compares: decoded text, surname keys and clean identifiers."""

    key: str
    entry_type: str
    title: str | None
    authors: tuple[Author, ...]
    truncated: bool
    year: int | None
    venue: str | None
    venue_field: str | None
    volume: str | None
    issue: str | None
    pages: str | None
    doi: str | None
    arxiv_id: str | None
    isbn: str | None
    pmid: str | None
    issn: tuple[str, ...]
    url: str | None
    homoglyphs: tuple[Homoglyph, ...]
    invalid_ids: tuple[InvalidIdentifier, ...]
    #: The field the arXiv id was read from (eprint, doi, url, journal ...).
    arxiv_field: str | None = None
    #: The arXiv version the entry cites (``2106.01234v2`` -> 2), if it names one.
    arxiv_version: int | None = None

    @property
    def surnames(self) -> tuple[str, ...]:
        return tuple(a.family for a in self.authors)


def _clean_homoglyph_words(raw: str) -> str:
    """Replace confusables only inside the words where they were flagged."""
    flagged = {(h.offset) for h in find_homoglyphs("", raw)}
    return "".join(CONFUSABLE_TO_LATIN[ch] if i in flagged else ch for i, ch in enumerate(raw))


#: A complete HTML character reference (``&amp;``, ``&apos;``, ``&#39;``): bibliographies
#: exported from web pages carry them, and in BibTeX a bare ``&`` is no text of its own.
_HTML_REFERENCE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def html_references_to_text(value: str) -> str:
    """``Ch&apos;ng`` -> ``Ch'ng``; values without a complete reference are returned as is."""
    if "&" not in value or not _HTML_REFERENCE.search(value):
        return value
    return _HTML_REFERENCE.sub(lambda m: html.unescape(m.group(0)), value)


@lru_cache(maxsize=4096)
def normalize_entry(entry: Entry) -> NormalizedEntry:
    """Decode and clean the fields verification needs (only those).  Memoised per entry
    value, so re-verifying an unchanged entry does not decode it again."""
    homoglyphs: list[Homoglyph] = []
    for name in TEXT_FIELDS:
        raw = entry.get(name)
        if raw:
            homoglyphs += find_homoglyphs(name, raw)

    def clean(name: str) -> str | None:
        raw = entry.get(name)
        if raw is None or not raw.strip():
            return None
        if any(h.field == name for h in homoglyphs):
            raw = _clean_homoglyph_words(raw)
        return latex_to_text(html_references_to_text(raw))

    title = clean("title")
    subtitle = clean("subtitle")
    if title and subtitle:
        title = f"{title}: {subtitle}"

    author_raw = entry.get("author")
    if author_raw and any(h.field == "author" for h in homoglyphs):
        author_raw = _clean_homoglyph_words(author_raw)
    if author_raw:
        author_raw = html_references_to_text(author_raw)
    authors, truncated = split_authors(author_raw) if author_raw else ((), False)

    venue_field = next((n for n in VENUE_FIELDS if (entry.get(n) or "").strip()), None)
    venue = clean(venue_field) if venue_field else None

    invalid: list[InvalidIdentifier] = []
    doi_raw = entry.get("doi")
    doi = clean_doi(doi_raw)
    if doi_raw and doi_raw.strip() and doi is None:
        invalid.append(InvalidIdentifier("doi", doi_raw, "not a DOI (expected 10.NNNN/...)"))
    if doi is None:
        url = entry.get("url") or ""
        if re.search(r"doi\.org/10\.", url, re.IGNORECASE):
            doi = clean_doi(url)

    isbn_raw = entry.get("isbn")
    isbn = None
    if isbn_raw and isbn_raw.strip():
        candidates = _ISBN_LIKE.findall(isbn_raw)
        isbn = next((c for c in map(clean_isbn, candidates) if c), None)
        if isbn is None:
            reason = (
                "ISBN checksum does not add up" if candidates else "not an ISBN (10 or 13 digits)"
            )
            invalid.append(InvalidIdentifier("isbn", isbn_raw, reason))

    pmid_raw = entry.get("pmid")
    pmid = clean_pmid(pmid_raw)
    if pmid_raw and pmid_raw.strip() and pmid is None:
        invalid.append(InvalidIdentifier("pmid", pmid_raw, "not a PubMed id"))

    issn_raw = entry.get("issn") or ""
    issn = tuple(
        m.group(0).replace("-", "").upper() for m in re.finditer(r"\d{4}-?\d{3}[\dXx]", issn_raw)
    )

    volume = field_text(entry, "volume")
    issue = field_text(entry, "number", "issue")
    arxiv_id, arxiv_field = arxiv_with_field(entry, doi)
    return NormalizedEntry(
        key=entry.key,
        entry_type=entry.entry_type.lower(),
        title=title,
        authors=authors,
        truncated=truncated,
        year=parse_year(entry.get("year") or entry.get("date")),
        venue=venue,
        venue_field=venue_field,
        volume=volume.strip() if volume else None,
        issue=issue.strip() if issue else None,
        pages=clean_pages(entry.get("pages")),
        doi=doi,
        arxiv_id=arxiv_id,
        arxiv_field=arxiv_field,
        arxiv_version=cited_arxiv_version(entry.get(arxiv_field or "") or "", arxiv_id),
        isbn=isbn,
        pmid=pmid,
        issn=issn,
        url=(entry.get("url") or "").strip() or None,
        homoglyphs=tuple(homoglyphs),
        invalid_ids=tuple(invalid),
    )


def make_entry(
    key: str, entry_type: str, fields: dict[str, str], path: Path | None = None
) -> Entry:
    """Build an :class:`Entry` from plain field values (spans are synthetic but consistent),
    for callers that hold metadata rather than a parsed .bib file."""
    parts: list[Field] = []
    offset = len(entry_type) + len(key) + 3
    for name, value in fields.items():
        name_span = Span(offset, offset + len(name))
        value_start = name_span.end + 4
        parts.append(
            Field(name.lower(), value, name_span, Span(value_start, value_start + len(value)))
        )
        offset = value_start + len(value) + 3
    return Entry(
        key=key,
        entry_type=entry_type.lower(),
        path=path or Path("<memory>"),
        span=Span(0, offset + 1),
        key_span=Span(len(entry_type) + 2, len(entry_type) + 2 + len(key)),
        fields=tuple(parts),
    )
