"""Which source to search first for an entry without a usable identifier.

The most selective index for the kind of work answers first: DBLP for computer-science
venues, PubMed for biomedicine, Crossref for the rest (the configured order otherwise
stands).  An index of another field is not asked at all: PubMed holds no computer-science
venue, DBLP no biomedical journal, so their "nothing found" says nothing about such an entry.
The kind of work is read from the venue (journal or booktitle) and a PMID, written out or
abbreviated the ISO 4 way ("Mach. Learn.", "J. Biol. Chem."); an entry whose venue says
nothing keeps the configured order and every source.

A "not found" rests on a quorum of independent answers (:data:`NOT_FOUND_QUORUM`): the
field's own index and the general indexes that cover works without a DOI, each answered
with no plausible record.  The search stops there instead of asking every remaining
source.  A source that failed said nothing: then every source is asked, as without a
quorum, and the entry cannot be "not found".

What is searched is bounded (:func:`query_text`): the first :data:`MAX_QUERY_TITLE`
characters of the title and :data:`MAX_QUERY_AUTHOR` of each surname, cut at a word
boundary, which is plenty to match a work and what every service takes in an address.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from enum import StrEnum

from citewarden.verify.normalize import NormalizedEntry

#: The most characters of a title a search sends (the services match on far fewer; an
#: address of hundreds of kilobytes is refused before it is sent).
MAX_QUERY_TITLE = 300
#: The most characters of one author's surname a search sends.
MAX_QUERY_AUTHOR = 100


def query_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at the last word boundary within them
    (at ``limit`` itself when its first word is longer), surrounding spaces dropped."""
    text = text.strip()
    if len(text) <= limit:
        return text
    if text[limit].isspace():
        return text[:limit].rstrip()
    cut = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
    return (text[:cut] if cut > 0 else text[:limit]).rstrip()


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
    r"pattern recognition|algorithms?|cryptolog\w*|programming languages?|"
    # the conferences' and fields' own names, and the societies' acronyms not above
    r"learning representations|representation learning|deep learning|reinforcement learning|"
    r"robot learning|language models?|neural networks?|tacl|icra|iros|corl|mlsys|sysml|"
    r"icdm|ecml|pkdd|ijcnn|icann|"
    # ISO 4 abbreviations (the venue's full stops are read as spaces)
    r"comput|mach learn|artif intell|mach intell|softw|robot|pattern recognit|"
    r"knowl discov|nat lang|data min|neural netw|program lang|cryptol)\b",
    re.IGNORECASE,
)
#: Venue words that are computer science only as a capitalised acronym ("AI Magazine",
#: "Journal of AI Research"; "ai" is a word of other languages).
_COMPUTING_ACRONYMS = re.compile(r"\bAI\b")
#: Venue words of biomedicine.
_BIOMEDICINE = re.compile(
    r"\b(?:medic\w*|clinic\w*|lancet|jama|bmj|nejm|n engl j med|health|cancer|oncol\w*|"
    r"cardiol\w*|neurosci\w*|neurol\w*|psychiatr\w*|pharmac\w*|immunol\w*|genet\w*|"
    r"genom\w*|bioinformatics|biochem\w*|biolog\w*|cell|pediatr\w*|paediatr\w*|surg\w*|"
    r"nurs\w*|epidemiol\w*|infect\w*|virol\w*|microbiol\w*|physiol\w*|patholog\w*|"
    r"radiol\w*|dermatol\w*|endocrinol\w*|gastroenterol\w*|nutrition|plos|bmc)\b",
    re.IGNORECASE,
)
#: Abbreviations of biomedical venues taken as such only where the venue is written
#: abbreviated: with a full stop (ISO 4: "J. Biol. Chem.", "Clin. Infect. Dis.") or beside
#: "J" for journal (NLM: "N Engl J Med", "J Biol Chem").  Alone, "med" is a word of the
#: Scandinavian languages and CLIN, MED are computer-science conferences.
_BIOMEDICINE_ABBREVIATED = re.compile(r"\b(?:med|clin|biol|pathol)\.", re.IGNORECASE)
_BIOMEDICINE_NLM = re.compile(
    r"\bj (?:med|clin|biol|pathol)\b|\b(?:med|clin|biol|pathol) j\b", re.IGNORECASE
)
#: Full stops and other punctuation between a venue's words (read as spaces).
_PUNCTUATION = re.compile(r"[^\w&]+")

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

#: The sources a "not found" rests on, by kind of work: each answered, and none of the
#: answers held a plausible record.  The field's own index (DBLP lists computer science,
#: PubMed biomedicine, Crossref every DOI) and the two general indexes that hold works of
#: every field with or without a DOI (OpenAlex, Semantic Scholar); for biomedicine Crossref
#: in Semantic Scholar's place (a journal article there has a DOI).  Sources outside the
#: quorum are asked only when it is not met.
NOT_FOUND_QUORUM: dict[Field, frozenset[str]] = {
    Field.COMPUTING: frozenset({"dblp", "openalex", "semanticscholar"}),
    Field.BIOMEDICINE: frozenset({"pubmed", "crossref", "openalex"}),
    Field.OTHER: frozenset({"crossref", "openalex", "semanticscholar"}),
}
#: A computer-science venue of a publisher that registers DOIs for its proceedings: Crossref
#: holds its papers (and finds a title written another way, "Maxpooling" for "Max-pooling",
#: where the title searches of the indexes miss it), so it is part of the quorum.
_DOI_PUBLISHERS = re.compile(
    r"\b(?:ieee|acm|springer|lncs|lecture notes|elsevier|usenix|siam)\b", re.IGNORECASE
)


def quorum(entry: NormalizedEntry) -> frozenset[str]:
    """The sources whose answers settle ``entry``'s "not found"."""
    field = field_of(entry)
    names = NOT_FOUND_QUORUM[field]
    if field is Field.COMPUTING and _DOI_PUBLISHERS.search(entry.venue or ""):
        names = names | {"crossref"}
    return names


def field_of(entry: NormalizedEntry) -> Field:
    """The kind of work an entry's venue names (biomedicine wins a tie: "computational
    biology" journals are indexed by PubMed, not DBLP); a PubMed id says biomedicine."""
    return Field.BIOMEDICINE if entry.pmid else _venue_field(entry.venue or "")


@functools.lru_cache(maxsize=4096)
def _venue_field(written: str) -> Field:
    """The kind of work the venue ``written`` names (read once per venue: a search asks it
    for its order and its quorum, and a bibliography cites few venues many times)."""
    venue = _PUNCTUATION.sub(" ", written)
    if _BIOMEDICINE.search(venue):
        return Field.BIOMEDICINE
    if _BIOMEDICINE_ABBREVIATED.search(written) or _BIOMEDICINE_NLM.search(venue):
        return Field.BIOMEDICINE
    if _COMPUTING.search(venue) or _COMPUTING_ACRONYMS.search(venue):
        return Field.COMPUTING
    return Field.OTHER


def by_field(entry: NormalizedEntry, names: Sequence[str]) -> list[str]:
    """``names`` (the searchable sources in configured order) with the indexes of other
    fields left out (unless nothing else would remain), the most selective source for the
    entry's kind of work first, then the rest of its "not found" quorum, then the others,
    each in configured order."""
    field = field_of(entry)
    kept = [n for n in names if n not in OUT_OF_FIELD[field]] or list(names)
    first = FIRST[field]
    if first not in kept:
        return kept
    wanted = quorum(entry)
    rest = [n for n in kept if n != first]
    return [first, *(n for n in rest if n in wanted), *(n for n in rest if n not in wanted)]
