"""The field step of a verdict: issues and corrections from comparing an entry with the
record it is anchored to, notices about the work, and the BibTeX text of corrections (pure).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from citewarden.model import Code, Issue, Severity
from citewarden.parsing.latex_encode import latex_text, protect_capitals
from citewarden.verify.author_compare import misspelled
from citewarden.verify.authors import Author, bibtex_name, comma_form, split_suffix
from citewarden.verify.compare import Agreement, Comparison, ValueComparison, digit_swap
from citewarden.verify.normalize import NormalizedEntry, fold, strip_markup, surname_key
from citewarden.verify.records import Person, Update, UpdateKind, WorkRecord
from citewarden.verify.venue_check import publisher_venue

#: Fields whose value styles print verbatim (biblatex's verbatim fields, and ``\\url`` in
#: BibTeX styles): their corrections are written as they are.
VERBATIM_FIELDS = frozenset({"doi", "eprint", "url"})
#: Corrections written as BibTeX already: the verbatim fields, and the author list, whose
#: names :func:`bibtex_authors` escapes one by one (a name kept as the entry writes it keeps
#: its TeX).
_WRITTEN = VERBATIM_FIELDS | {"author"}


def bibtex_ready(fixes: dict[str, str]) -> dict[str, str]:
    """``fixes`` (field -> a record's text) as BibTeX values: LaTeX's special characters
    escaped (``Computers & Education`` -> ``Computers \\& Education``) except in verbatim
    fields, so that the bibliography a correction is written into still builds, and a
    title's words of several capitals braced, as BibTeX styles that lowercase titles need
    (``{ImageNet}``)."""
    out = {k: v if k in _WRITTEN else latex_text(v) for k, v in fixes.items()}
    if "title" in out:
        out["title"] = protect_capitals(out["title"])
    return out


def bibtex_authors(record: WorkRecord, written: Sequence[Author] = ()) -> str:
    """The record's authors as a BibTeX ``author`` value (``Family, Given and ...``; a
    generational suffix in BibTeX's place, ``Steele, Jr., Guy L.``), LaTeX's special
    characters escaped.  A person the entry already names (``written``: the same surname,
    given names that say at least what the record's do) keeps the entry's spelling:
    ``Smith, John A.`` is not corrected to the record's ``Smith, J A``."""
    by_surname: dict[str, list[int]] = {}  # each entry author under its surname keys
    for i, a in enumerate(written):
        for key in dict.fromkeys((a.key, surname_key(f"{a.von} {a.family}"))):
            by_surname.setdefault(key, []).append(i)
    used: set[int] = set()
    names = []
    for n, p in enumerate(record.authors):
        candidates = by_surname.get(surname_key(p.family), ())
        i = next((i for i in candidates if i not in used and _says_as_much(written[i], p)), -1)
        if i < 0:
            slot = written[n] if n < len(written) and n not in used else None
            if slot is not None and misspelled(slot, p) and _given_as_much(slot, p):
                # the record's surname, the entry's fuller given names ("Koutrisw, Paraschos"
                # for the record's "Koutris, P.")
                used.add(n)
                names.append(bibtex_name(latex_text(p.family), latex_text(slot.given)))
            else:
                names.append(bibtex_name(latex_text(p.family), latex_text(p.given)))
            continue
        used.add(i)
        same = written[i]
        if comma_form(same.raw) or same.corporate:
            names.append(same.raw)  # as written, its TeX included
        else:
            family = f"{same.von} {same.family}".strip()
            names.append(bibtex_name(latex_text(family), latex_text(same.given)))
    return " and ".join(names)


def _initials(given: str) -> list[str]:
    """The folded parts of a given name; compact initials (``JA``, as PubMed writes them)
    one letter each."""
    if given.isupper() and given.isalpha() and len(given) <= 3:
        return list(given.lower())
    return fold(given).split()


def _says_as_much(author: Author, person: Person) -> bool:
    """Does the entry's ``author`` name ``person`` with at least the record's given names
    (``John A.`` for ``J. A.``) and its generational suffix?"""
    theirs_key = surname_key(person.family)
    with_von = surname_key(f"{author.von} {author.family}")
    if not author.key or theirs_key not in (author.key, with_von):
        return False
    suffix = split_suffix(person.family)[1]
    if suffix and fold(suffix) not in fold(author.raw).split():
        return False
    return _given_as_much(author, person)


def _given_as_much(author: Author, person: Person) -> bool:
    """Do the entry's given names say at least what the record's do (``John A.`` for
    ``J. A.``)?"""
    mine, theirs = fold(author.given).split(), _initials(person.given)
    return len(mine) >= len(theirs) and all(
        m.startswith(t) for m, t in zip(mine, theirs, strict=False)
    )


def bibtex_pages(pages: str) -> str:
    return re.sub(r"\s*[-–—]+\s*", "--", pages.strip())


def bibtex_title(record: WorkRecord) -> str:
    title = strip_markup(record.title)
    if record.subtitle:
        title = f"{title}: {strip_markup(record.subtitle)}"
    return title


def record_label(record: WorkRecord) -> str:
    first = record.authors[0].family if record.authors else "?"
    year = record.year or "n.d."
    return f"“{strip_markup(record.title)}” ({first}, {year})"


def _value_issue(
    code: Code, label: str, bib_field: str, cmp: ValueComparison
) -> tuple[Issue, str] | None:
    if cmp.agreement is not Agreement.DIFFERENT or cmp.record is None:
        return None
    swap = " (a digit swap)" if cmp.swap else ""
    return (
        Issue(code, f"{label} is {cmp.entry}, the record says {cmp.record}{swap}", bib_field),
        cmp.record,
    )


def field_issues(
    entry: NormalizedEntry, cmp: Comparison, *, anchored_by_id: bool
) -> tuple[list[Issue], dict[str, str]]:
    """Issues and corrections from comparing an entry with the record it is anchored to."""
    rec = cmp.record
    issues: list[Issue] = []
    fixes: dict[str, str] = {}
    title_changed = False

    if cmp.title is not None and not cmp.title.exact:
        kind = "near-miss title" if cmp.title.near else "title does not match"
        issues.append(
            Issue(
                Code.TITLE_MISMATCH,
                f"{kind}: the record's title is “{bibtex_title(rec)}”",
                "title",
            )
        )
        fixes["title"] = bibtex_title(rec)
        title_changed = True

    a = cmp.authors
    if a is not None and not a.exact:
        if a.overlap < 0.5 and not a.record_prefix and cmp.title is not None and cmp.title.exact:
            issues.append(
                Issue(
                    Code.CHIMERIC,
                    f"the title is that of {record_label(rec)}, but the authors are not its "
                    "authors",
                    "author",
                )
            )
        if a.substituted:
            pairs = "; ".join(f"{e} instead of {r}" for e, r in a.substituted)
            issues.append(Issue(Code.AUTHOR_SUBSTITUTED, f"author substituted: {pairs}", "author"))
        if a.misspelled:
            pairs = "; ".join(f"{e} for {r}" for e, r in a.misspelled)
            issues.append(
                Issue(Code.AUTHOR_MISSPELLED, f"author name spelled differently: {pairs}", "author")
            )
        if not a.first_ok and not a.substituted:
            first = (cmp.author_record or rec).authors[0]
            if a.matched == a.entry_count:
                # the same people in another order: the record may be the one that is wrong
                issues.append(
                    Issue(
                        Code.AUTHOR_SUBSTITUTED,
                        f"author order differs: the record's first author is {first}",
                        "author",
                        Severity.INFORMATION,
                    )
                )
            else:
                issues.append(
                    Issue(
                        Code.AUTHOR_SUBSTITUTED,
                        f"first author differs: the record's first author is {first}",
                        "author",
                    )
                )
        if a.added and a.short_record:
            shown = ", ".join(a.added[:5]) + (" ..." if len(a.added) > 5 else "")
            issues.append(
                Issue(
                    Code.AUTHOR_ADDED,
                    f"the record lists the first {a.record_count} of the entry's "
                    f"{a.entry_count} authors; not on it: {shown}",
                    "author",
                )
            )
        elif a.added:
            issues.append(
                Issue(
                    Code.AUTHOR_ADDED,
                    f"author(s) not on the record: {', '.join(a.added)}",
                    "author",
                )
            )
        if a.dropped:
            shown = ", ".join(a.dropped[:5]) + (" ..." if len(a.dropped) > 5 else "")
            issues.append(
                Issue(Code.AUTHOR_DROPPED, f"author(s) missing from the entry: {shown}", "author")
            )
        # never rewrite title and authors at once; authors only when identity is anchored
        people = cmp.author_record or rec
        # a record listing only the entry's first authors may be the one cut short
        if (
            not title_changed
            and (anchored_by_id or a.agree)
            and people.authors
            and not a.short_record
        ):
            fixes["author"] = bibtex_authors(people, entry.authors)

    if cmp.year is Agreement.NEAR and rec.year is not None:
        issues.append(
            Issue(
                Code.YEAR_MISMATCH,
                f"year {entry.year}, the record says {rec.year} (preprint, online and print "
                "versions often differ by a year or more)",
                "year",
                Severity.HINT,
            )
        )
    elif cmp.year is Agreement.DIFFERENT and rec.year is not None:
        swap = " (a digit swap)" if digit_swap(str(entry.year), str(rec.year)) else ""
        issues.append(
            Issue(
                Code.YEAR_MISMATCH, f"year {entry.year}, the record says {rec.year}{swap}", "year"
            )
        )
        fixes["year"] = str(rec.year)

    venue_issues, venue_fixes = publisher_venue(entry, cmp)
    issues += venue_issues
    fixes.update(venue_fixes)

    for code, label, name, vc in (
        (Code.VOLUME_MISMATCH, "volume", "volume", cmp.volume),
        (Code.ISSUE_MISMATCH, "issue", "number", cmp.issue),
        (Code.PAGES_MISMATCH, "pages", "pages", cmp.pages),
    ):
        found = _value_issue(code, label, name, vc)
        if found:
            issue, value = found
            issues.append(issue)
            fixes[name] = bibtex_pages(value) if name == "pages" else value
    return issues, fixes


def notice_issues(record: WorkRecord, more: Iterable[Update] = ()) -> list[Issue]:
    """Retraction / correction / expression-of-concern findings, one per notice."""
    issues: list[Issue] = []
    seen: set[tuple[UpdateKind, str | None]] = set()
    for u in (*record.updates, *more):
        if (u.kind, u.doi) in seen:
            continue
        seen.add((u.kind, u.doi))
        where = f" ({u.doi})" if u.doi else ""
        when = f" on {u.date}" if u.date else ""
        if u.kind in (UpdateKind.RETRACTION, UpdateKind.WITHDRAWAL):
            issues.append(Issue(Code.RETRACTED, f"this work was retracted{when}{where}", "doi"))
        elif u.kind is UpdateKind.CORRECTION:
            issues.append(
                Issue(Code.CORRECTED, f"a correction to this work was published{when}{where}")
            )
        elif u.kind is UpdateKind.EXPRESSION_OF_CONCERN:
            issues.append(
                Issue(
                    Code.EXPRESSION_OF_CONCERN,
                    f"an expression of concern about this work was published{when}{where}",
                )
            )
    return issues
