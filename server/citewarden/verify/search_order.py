"""Which source to search first for an entry without a usable identifier.

The most selective index for the kind of work answers first: DBLP for computer-science
venues, PubMed for biomedicine, Crossref for the rest (the configured order otherwise
stands).  An index of another field is not asked at all: PubMed holds no computer-science
venue, DBLP no biomedical journal, so their "nothing found" says nothing about such an entry.
The kind of work is read from the venue (journal or booktitle) and a PMID; an entry whose
venue says nothing keeps the configured order and every source.

A "not found" rests on a quorum of independent answers (:data:`NOT_FOUND_QUORUM`): the
field's own index and a general one that covers works without a DOI, both answered with no
plausible record.  The search stops there instead of asking every remaining source; a
source that failed said nothing, so the other sources are asked as before (another member
of its group, when there is one, completes the quorum).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

from citewarden.verify.normalize import NormalizedEntry


class Field(StrEnum):
    COMPUTING = "computing"
    BIOMEDICINE = "biomedicine"
    OTHER = "other"


#: Venue words of computer science: the societies, the big conferences and their series.
_COMPUTING = re.compile(
    r"\b(?:acm|ieee|usenix|aaai|ijcai|neurips|nips|icml|iclr|colt|aistats|uai|kdd|sigmod|"
    r"sigir|sigcomm|sigplan|sigkdd|vldb|icde|www|wsdm|cikm|acl|naacl|eacl|emnlp|coling|"
    r"interspeech|icassp|cvpr|iccv|eccv|bmvc|wacv|siggraph|chi|uist|popl|pldi|oopsla|icse|"
    r"fse|ase|issta|stoc|focs|soda|icalp|lics|cav|tacas|crypto|eurocrypt|ccs|ndss|osdi|sosp|"
    r"nsdi|eurosys|isca|micro|asplos|hpca|dac|lncs|lipics|corr|jmlr|tmlr|tpami|"
    r"lecture notes in computer science|machine learning|neural information processing|"
    r"computer|computing|computational|informatics|software|artificial intelligence|"
    r"robotics|data mining|knowledge discovery|natural language|computer vision|"
    r"pattern recognition|algorithms?|cryptolog\w*|programming languages?)\b",
    re.IGNORECASE,
)
#: Venue words of biomedicine.
_BIOMEDICINE = re.compile(
    r"\b(?:medic\w*|clinic\w*|lancet|jama|bmj|nejm|n engl j med|health|cancer|oncol\w*|"
    r"cardiol\w*|neurosci\w*|neurol\w*|psychiatr\w*|pharmac\w*|immunol\w*|genet\w*|"
    r"genom\w*|bioinformatics|biochem\w*|biolog\w*|cell|pediatr\w*|paediatr\w*|surg\w*|"
    r"nurs\w*|epidemiol\w*|infect\w*|virol\w*|microbiol\w*|physiol\w*|patholog\w*|"
    r"radiol\w*|dermatol\w*|endocrinol\w*|gastroenterol\w*|nutrition|plos|bmc)\b",
    re.IGNORECASE,
)

#: Indexes that hold nothing of a kind of work (not searched for it).
OUT_OF_FIELD: dict[Field, frozenset[str]] = {
    Field.COMPUTING: frozenset({"pubmed"}),
    Field.BIOMEDICINE: frozenset({"dblp"}),
    Field.OTHER: frozenset(),
}

#: The source searched first for each kind of work.
FIRST: dict[Field, str] = {
    Field.COMPUTING: "dblp",
    Field.BIOMEDICINE: "pubmed",
    Field.OTHER: "crossref",
}

#: The general index of a quorum: OpenAlex holds works of every field, with or without a
#: DOI (conference proceedings, preprints), and its title search answers with the nearest
#: titles.  Crossref knows no work without a DOI; Semantic Scholar's title match answers
#: only a title it matches closely, and its "no match" is recorded for works it holds
#: (Kingma and Ba's "Adam"), so neither is the general index (both are still asked when
#: the quorum is not met).
GENERAL = frozenset({"openalex"})
#: The answers a "not found" rests on, by kind of work: one source of each group answered
#: and none of the answers held a plausible record.  DBLP lists computer science, PubMed
#: biomedicine, Crossref every DOI (a biomedical journal article has one).
NOT_FOUND_QUORUM: dict[Field, tuple[frozenset[str], ...]] = {
    Field.COMPUTING: (frozenset({"dblp"}), GENERAL),
    Field.BIOMEDICINE: (frozenset({"pubmed"}), GENERAL | {"crossref"}),
    Field.OTHER: (frozenset({"crossref"}), GENERAL),
}


def field_of(entry: NormalizedEntry) -> Field:
    """The kind of work an entry's venue names (biomedicine wins a tie: "computational
    biology" journals are indexed by PubMed, not DBLP)."""
    venue = entry.venue or ""
    if entry.pmid or _BIOMEDICINE.search(venue):
        return Field.BIOMEDICINE
    if _COMPUTING.search(venue):
        return Field.COMPUTING
    return Field.OTHER


def quorum_met(entry: NormalizedEntry, answered: Iterable[str], also: Iterable[str] = ()) -> bool:
    """Whether the sources that answered ``entry``'s search (with no plausible record) are
    enough for its "not found": one of each group of its kind of work, and each of
    ``also`` (the registries of a kind of entry the general indexes do not cover: Open
    Library for books, DataCite for data, software and reports)."""
    have = set(answered)
    groups = [*NOT_FOUND_QUORUM[field_of(entry)], *(frozenset({n}) for n in also)]
    return all(have & group for group in groups)


def by_field(entry: NormalizedEntry, names: Sequence[str]) -> list[str]:
    """``names`` (the searchable sources in configured order) with the indexes of other
    fields left out (unless nothing else would remain), and the sources of the entry's
    "not found" quorum first: the most selective source for its kind of work, then the
    first general index; the rest stay in configured order."""
    field = field_of(entry)
    kept = [n for n in names if n not in OUT_OF_FIELD[field]] or list(names)
    lead: list[str] = []
    for group in NOT_FOUND_QUORUM[field]:
        first = next((n for n in kept if n in group and n not in lead), None)
        if first is not None:
            lead.append(first)
    if FIRST[field] not in lead:
        return kept
    return [*lead, *(n for n in kept if n not in lead)]
