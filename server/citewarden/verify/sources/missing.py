"""What each service answers when it holds no such record: the only 404 that means "not found".

A 404 says "no such record" only when its body is the service's own not-found answer.  A
404 from anything else on the way -- a proxy's or a gateway's error page, a wrong base URL
(another server, or the service asked at a path it does not serve), an empty body -- is a
failure that says nothing, and its reason says what came back (:func:`read_404`).  The
answers, as the real recordings in tests/data/api show them:

* Crossref (``/works/{doi}``, ``/journals/{issn}``): the plain text ``Resource not found.``,
  labelled ``text/plain`` or, in older answers, ``application/json;charset=utf-8``.
* Semantic Scholar (``/paper/{id}``): a JSON object whose ``error`` names the paper id,
  ``{"error": "Paper with id 0 not found"}`` (its author look-up's ``"Author with id 0 not
  found"``, a gateway's ``"Route not found"`` are no answer about a paper); the title match
  (``/paper/search/match``), ``{"error": "Title match not found"}``, as its documentation
  gives it (no recording of it exists).
* DataCite (``/dois/{doi}``): a JSON:API error document, ``{"errors": [{"status": "404",
  "title": "The resource you are looking for doesn't exist."}]}``, that title included (any
  JSON:API server's 404 is such a document).
* OpenAlex (``/works/doi:{doi}``, ``/sources/issn:{issn}``): none.  Its server answers a
  work or source it does not hold with its web framework's stock 404, the one it also answers
  at any address it does not serve, as does any server of its kind (and a JSON object with an
  ``error`` member is what many APIs answer at an unknown route), so no 404 of its is read as
  "not found" (:data:`OPENALEX`); its ``filter=doi:`` page that counts its works says which
  it lacks.
* doi.org (``/{doi}``): its "DOI Not Found" page (``<title>Error: DOI Not Found</title>``),
  from doi.org itself (a 404 after a redirect is the agency's; see :mod:`.doi`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from citewarden.verify.http import Reply
from citewarden.verify.records import Lookup

#: A status that asks for a not-found answer to be read.
NOT_FOUND_STATUS = 404
#: The longest body read as a not-found answer: the real ones are short (doi.org's page is
#: about 10 kB); a longer 404 body is not one of them.
MAX_ANSWER = 64 * 1024


@dataclass(frozen=True, slots=True)
class NotFoundAnswer:
    """How one service says it holds no such record."""

    service: str  # named in the reason of a 404 that is not this answer
    says_missing: Callable[[Reply], bool] | None  # None: no answer of its can be told apart

    def read(self, source: str, reply: Reply) -> Lookup:
        """NOT_FOUND when the 404 ``reply`` is this service's own answer, else FAILED with
        what came back."""
        if self.says_missing is None:
            return Lookup.failed(
                source,
                f"HTTP 404 ({describe_body(reply)}): {self.service} answers a record it does"
                " not hold as it answers an address it does not serve, so it says nothing",
            )
        if len(reply.content) <= MAX_ANSWER and self.says_missing(reply):
            return Lookup.not_found(source)
        return Lookup.failed(
            source,
            f"HTTP 404 that is not {self.service}'s not-found answer ({describe_body(reply)}):"
            " a proxy or a wrong base URL?",
        )


def read_404(source: str, reply: object, answer: NotFoundAnswer) -> Lookup | None:
    """The meaning of ``reply`` when it is a 404 (see :meth:`NotFoundAnswer.read`); None
    for any other reply (a failure, another status)."""
    if isinstance(reply, Reply) and reply.status == NOT_FOUND_STATUS:
        return answer.read(source, reply)
    return None


_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9.+-]{0,40}/[a-z0-9][a-z0-9.+-]{0,60}")


def describe_body(reply: Reply) -> str:
    """What a body is, in a few words for a failure's reason (never its text: it may be
    anything a stranger wrote)."""
    head = reply.content.lstrip()[:64].lower()
    media = reply.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not head:
        return "an empty body"
    if "html" in media or head.startswith((b"<!doctype html", b"<html")):
        return "an HTML page"
    if len(reply.content) <= MAX_ANSWER and _json_object(reply) is not None:
        return "a JSON object of another shape"
    if _MEDIA_TYPE.fullmatch(media):
        return f"a {media} body"
    return "a body of no known type"


def _json_object(reply: Reply) -> dict[str, Any] | None:
    try:
        data = reply.json()
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _crossref(reply: Reply) -> bool:
    return reply.content.strip() == b"Resource not found."


#: Semantic Scholar's ``error`` for a paper id it does not hold.
_S2_NO_PAPER = re.compile(r"Paper with id \S.{0,500} not found", re.DOTALL)


def _s2_error(reply: Reply) -> str | None:
    data = _json_object(reply)
    error = data.get("error") if data is not None else None
    return error.strip() if isinstance(error, str) else None


def _semantic_scholar(reply: Reply) -> bool:
    error = _s2_error(reply)
    return error is not None and _S2_NO_PAPER.fullmatch(error) is not None


def _semantic_scholar_match(reply: Reply) -> bool:
    return _s2_error(reply) == "Title match not found"


#: DataCite's ``title`` of the error of a DOI it does not hold (a JSON:API error document:
#: any JSON:API server answers a 404 with one, ``{"status": "404", "title": "Not Found"}``).
_DATACITE_NO_DOI = "The resource you are looking for doesn't exist."


def _datacite(reply: Reply) -> bool:
    data = _json_object(reply)
    errors = data.get("errors") if data is not None else None
    if not isinstance(errors, list):
        return False
    return any(
        isinstance(e, dict) and e.get("status") == "404" and e.get("title") == _DATACITE_NO_DOI
        for e in errors
    )


#: doi.org's page for a DOI it does not know (its ``<title>``).
_DOI_NOT_FOUND = re.compile(rb"<title>\s*Error:\s*DOI Not Found\s*</title>", re.IGNORECASE)


def _doi_org(reply: Reply) -> bool:
    return _DOI_NOT_FOUND.search(reply.content) is not None


CROSSREF = NotFoundAnswer("Crossref", _crossref)
SEMANTIC_SCHOLAR = NotFoundAnswer("Semantic Scholar", _semantic_scholar)
SEMANTIC_SCHOLAR_MATCH = NotFoundAnswer("Semantic Scholar", _semantic_scholar_match)
DATACITE = NotFoundAnswer("DataCite", _datacite)
OPENALEX = NotFoundAnswer("OpenAlex", None)
DOI_ORG = NotFoundAnswer("doi.org", _doi_org)
