"""Identifiers cleaned and validated: DOIs, arXiv ids (new and old style), ISBN-10/13 with
checksums, PMIDs (pure).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from citewarden.model import Entry

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


#: The address form of a DOI (``https://doi.org/``, ``doi.org/``, ``dx.doi.org/``).
_DOI_ADDRESS = re.compile(r"^(?:https?://)?(?:dx\.|www\.)?doi\.org/", re.IGNORECASE)
#: What plainly ends an address and no DOI: a query of ``key=value`` pairs
#: (``?utm_source=x&utm_medium=y``), a fragment (``#sec1``), or both.
_ADDRESS_TAIL = re.compile(
    r"(?:\?[A-Za-z_][\w.-]*=[^&;#\s]*(?:[&;][A-Za-z_][\w.-]*=[^&;#\s]*)*)?(?:#\S*)?"
)


def doi_address_tail(value: str | None) -> tuple[str, str] | None:
    """For a DOI written as a doi.org address that ends in what is plainly the address's
    own query or fragment (``https://doi.org/10.1038/nature14539?utm_source=x``): the DOI
    without it and the tail as written (``10.1038/nature14539``, ``?utm_source=x``).  None
    otherwise.  Real DOIs may hold ``?`` and ``#``, so the DOI as written stays the one
    looked up first; this is the reading to try when its registry does not know it."""
    if not value:
        return None
    text = value.strip().replace("\\_", "_").replace("\\&", "&").replace("\\#", "#")
    text = text.replace("{", "").replace("}", "").strip()
    if not _DOI_ADDRESS.match(text):
        return None
    starts = [i for i in (text.find("?"), text.find("#")) if i > 0]
    if not starts:
        return None
    cut = min(starts)
    tail = text[cut:].rstrip(".,;")
    if not tail[1:] or not _ADDRESS_TAIL.fullmatch(tail):
        return None
    bare, whole = clean_doi(text[:cut]), clean_doi(text)
    if bare is None or bare == whole:
        return None
    return bare, tail


_ARXIV_NEW = re.compile(r"(?<![\d.])(\d{4}\.\d{4,5})(?:v\d+)?(?![\d])")
#: An old-style id: its archive, the subject class listings wrote after it
#: (``math.DG/0211159``; no part of the identifier, which is ``math/0211159``), its number.
_ARXIV_OLD = re.compile(
    r"(?<![A-Za-z-])(astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|"
    r"nucl-ex|nucl-th|physics|quant-ph|math|cs|q-bio|q-fin|stat|eess|econ|chao-dyn|"
    r"solv-int|patt-sol|adap-org|comp-gas|alg-geom|dg-ga|funct-an|q-alg|mtrl-th|supr-con|"
    r"chem-ph|atom-ph|plasm-ph|ao-sci|bayes-an|acc-phys)(\.[A-Z]{2})?/(\d{7})(?:v\d+)?"
)


def _arxiv_in(text: str, *, bare: bool) -> str | None:
    old = _ARXIV_OLD.search(text)
    if old:
        return f"{old.group(1)}/{old.group(3)}"
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


_ARXIV_VERSION = re.compile(r"v\d+$")


def strip_arxiv_version(arxiv_id: str) -> str:
    """An arXiv id without the version written at its end (``2101.00001v3`` is
    ``2101.00001``, ``math/0102001v2`` is ``math/0102001``).  The rest is kept as written: a
    version with a capital V stays, as does an ``arXiv:`` prefix (a caller folds case first
    to drop ``V3``)."""
    return _ARXIV_VERSION.sub("", arxiv_id)


def cited_arxiv_version(raw: str, arxiv_id: str | None) -> int | None:
    """The version number written after the id in the field it was read from."""
    if not arxiv_id:
        return None
    written = re.escape(arxiv_id).replace("/", r"(?:\.[A-Za-z]{2})?/", 1)
    m = re.search(written + r"v(\d{1,3})(?!\d)", raw, re.IGNORECASE)
    return int(m.group(1)) if m else None


def arxiv_from_entry(entry: Entry, doi: str | None) -> str | None:
    """The arXiv id of an entry, from eprint, an arXiv DOI, a URL or an ``arXiv:`` mention."""
    return arxiv_with_field(entry, doi)[0]


def arxiv_in_text(text: str) -> str | None:
    """The arXiv id a free-text field (a note, a URL) names, if any."""
    return _arxiv_in(text, bare=False)


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


ISBN_LIKE = re.compile(r"(?<![\dX])(?:97[89][\s‐-]?)?\d(?:[\s‐-]?\d){8}[\s‐-]?[\dXx](?![\dX])")


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


#: A PMID as entries write it ("12345", "PMID: 12345"); white space around an optional colon
#: is one run, not two (``\s*:?\s*`` tried every split of a long run of spaces).
_PMID = re.compile(r"(?i)\s*(?:pmid\s*(?::\s*)?)?(\d{1,9})\s*")


def clean_pmid(value: str | None) -> str | None:
    if not value:
        return None
    m = _PMID.fullmatch(value)
    if m is None:
        return None
    return m.group(1).lstrip("0") or None
