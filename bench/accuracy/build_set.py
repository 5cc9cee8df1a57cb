"""Build the labelled accuracy set from real recorded Crossref records (deterministic).

Reads the recorded responses under ``../shared/corpus/api/crossref`` (MIT-licensed recordings
only), keeps the work records usable as references, and writes

* ``tests/data/accuracy/records.jsonl`` - the records (Crossref work messages reduced to the
  fields a ``select=`` query returns) with their provenance;
* ``tests/data/accuracy/entries.jsonl`` - BibTeX-style entries: valid ones written the way
  authors write them, and manipulated ones of every kind, each with its label, the finding
  code that must be reported and the correction that must be offered.

Usage: ``python bench/accuracy/build_set.py [--corpus DIR] [--out DIR]``
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import re
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "server"))

from citewarden.verify.normalize import fold  # noqa: E402
from citewarden.verify.sources.crossref import work_from_csl  # noqa: E402

SEED = 20260501
KEEP = [
    "DOI",
    "title",
    "subtitle",
    "author",
    "issued",
    "published-print",
    "published-online",
    "container-title",
    "short-container-title",
    "ISSN",
    "volume",
    "issue",
    "page",
    "type",
    "publisher",
    "URL",
    "update-to",
    "updated-by",
    "relation",
]
USABLE_TYPES = {"journal-article", "proceedings-article", "book-chapter"}
LICENSED = {"MIT"}
TODAY_YEAR = 2026

LATEX = {
    "é": "{\\'e}",
    "è": "{\\`e}",
    "á": "{\\'a}",
    "à": "{\\`a}",
    "ó": "{\\'o}",
    "í": "{\\'\\i}",
    "ú": "{\\'u}",
    "ö": '{\\"o}',
    "ü": '{\\"u}',
    "ä": '{\\"a}',
    "Ö": '{\\"O}',
    "Ü": '{\\"U}',
    "ñ": "{\\~n}",
    "ç": "{\\c{c}}",
    "ø": "{\\o}",
    "å": "{\\aa}",
    "ł": "{\\l}",
    "ß": "{\\ss}",
}
CYRILLIC = {"a": "а", "e": "е", "o": "о", "c": "с", "p": "р", "x": "х"}


# ----------------------------------------------------------------------------------------
# Reading the corpus
# ----------------------------------------------------------------------------------------


def _reduce(msg: dict[str, Any]) -> dict[str, Any]:
    out = {k: msg[k] for k in KEEP if k in msg}
    if "author" in out:
        out["author"] = [
            {k: a[k] for k in ("given", "family", "name", "sequence") if k in a}
            for a in out["author"]
            if isinstance(a, dict)
        ]
    return out


def read_records(corpus: Path) -> list[dict[str, Any]]:
    """Every Crossref work message in MIT-licensed recordings, first occurrence per DOI."""
    found: dict[str, dict[str, Any]] = {}

    def add(msg: Any, prov: dict[str, str]) -> None:
        if isinstance(msg, dict) and msg.get("DOI") and msg.get("title"):
            doi = str(msg["DOI"]).lower()
            if doi not in found:
                found[doi] = {"provenance": prov, "message": _reduce(msg)}

    for manifest in sorted(glob.glob(str(corpus / "api/crossref/*_decoded/manifest.json"))):
        base = os.path.dirname(manifest)
        for row in json.loads(Path(manifest).read_text(encoding="utf-8")):
            if str(row.get("status")) != "200" or not row["file"].endswith(".json"):
                continue
            if row.get("license") not in LICENSED:
                continue
            try:
                data = json.loads(Path(base, row["file"]).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            msg = data.get("message") if isinstance(data, dict) else None
            prov = {
                "repo": row.get("source_repo", ""),
                "path": row.get("source_path", ""),
                "commit": row.get("source_commit", ""),
                "license": row.get("license", ""),
                "uri": row.get("uri", ""),
            }
            if isinstance(msg, dict):
                for item in msg.get("items", [msg]):
                    add(item, prov)
    for name in ("get_by_doi.jsonl", "search_works.jsonl"):
        path = corpus / "api/crossref/refchecker_cache" / name
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            prov = {
                "repo": "markrussinovich/refchecker",
                "path": "tests/fixtures/test_cache/api_cache/crossref/" + row["cache_file"],
                "commit": "40892ed2081e",
                "license": "MIT",
                "uri": row["request"]["url"],
            }
            body = row["body"]
            for item in body if isinstance(body, list) else [body]:
                add(item, prov)
    return [found[k] for k in sorted(found)]


def usable(rec: dict[str, Any]) -> bool:
    w = work_from_csl(rec["message"])
    if w is None or w.work_type not in USABLE_TYPES or w.is_notice:
        return False
    if not w.authors or any(not p.family or " " in p.family.strip() for p in w.authors[:1]):
        return False
    if w.year is None or not w.venue or len(fold(w.title).split()) < 4:
        return False
    if any(not fold(p.family) for p in w.authors):
        return False
    return all(p.given for p in w.authors) and len(w.authors) <= 40


# ----------------------------------------------------------------------------------------
# Writing entries the way authors write them
# ----------------------------------------------------------------------------------------


def latexify(text: str) -> str:
    return "".join(LATEX.get(ch, ch) for ch in text)


def latex_free(text: str) -> str:
    """Undo :func:`latexify` (accents back to Unicode) and drop protective braces."""
    for ch, macro in LATEX.items():
        text = text.replace(macro, ch)
    return text.replace("{", "").replace("}", "")


def ascii_fold(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def author_field(people: list[dict[str, str]], style: int, truncate: int | None = None) -> str:
    names = []
    shown = people[:truncate] if truncate else people
    for p in shown:
        family, given = p["family"], p.get("given", "")
        if style == 0:
            names.append(f"{latexify(family)}, {latexify(given)}")
        elif style == 1:
            names.append(f"{latexify(given)} {latexify(family)}")
        else:
            initials = " ".join(f"{g[0]}." for g in re.split(r"[\s-]+", given) if g)
            names.append(f"{latexify(family)}, {initials}")
    if truncate:
        names.append("others")
    return " and ".join(names)


def title_field(title: str, i: int) -> str:
    if i % 3 == 0:
        # protect capitalised words the way BibTeX users do
        title = re.sub(r"\b([A-Z][A-Za-z]*[A-Z][A-Za-z]*)\b", r"{\1}", title)
    return latexify(title)


def bib_entry(rec: dict[str, Any], i: int, *, with_doi: bool) -> dict[str, Any]:
    w = work_from_csl(rec["message"])
    assert w is not None
    msg = rec["message"]
    people = [{"family": p.family, "given": p.given} for p in w.authors if p.family]
    truncate = 3 if len(people) >= 6 and i % 4 == 1 else None
    fields: dict[str, str] = {
        "title": title_field(w.title + (f": {w.subtitle}" if w.subtitle else ""), i),
        "author": author_field(people, i % 3, truncate),
        "year": str(w.year),
    }
    venue = w.venue or ""
    if w.venue_short and i % 2 == 1:
        venue = w.venue_short[0]
    if w.work_type == "journal-article":
        entry_type, venue_field = "article", "journal"
    elif w.work_type == "proceedings-article":
        entry_type, venue_field = "inproceedings", "booktitle"
    else:
        entry_type, venue_field = "incollection", "booktitle"
    fields[venue_field] = latexify(venue)
    if w.volume:
        fields["volume"] = w.volume
    if w.issue and i % 2 == 0:
        fields["number"] = w.issue
    if w.pages:
        fields["pages"] = w.pages.replace("-", "--")
    if with_doi:
        fields["doi"] = f"https://doi.org/{msg['DOI']}" if i % 5 == 0 else msg["DOI"]
    return {"entry_type": entry_type, "fields": fields, "venue_field": venue_field}


# ----------------------------------------------------------------------------------------
# Manipulations
# ----------------------------------------------------------------------------------------


def swap_digits(value: str, rng: random.Random) -> str | None:
    digits = [i for i in range(len(value) - 1) if value[i].isdigit() and value[i + 1].isdigit()]
    rng.shuffle(digits)
    for i in digits:
        if value[i] != value[i + 1]:
            return value[:i] + value[i + 1] + value[i] + value[i + 2 :]
    return None


def build(corpus: Path, out: Path, seed: int = SEED) -> tuple[int, int]:
    rng = random.Random(seed)
    records = read_records(corpus)
    pool = [r for r in records if usable(r)]
    # distinct titles only: two records with one title would make labels ambiguous
    seen: dict[str, dict[str, Any]] = {}
    for r in pool:
        key = fold(work_from_csl(r["message"]).title)  # type: ignore[union-attr]
        seen.setdefault(key, r)
    pool = list(seen.values())
    works = {r["message"]["DOI"].lower(): work_from_csl(r["message"]) for r in pool}
    rng.shuffle(pool)
    entries: list[dict[str, Any]] = []

    def emit(
        kind: str,
        label: str,
        rec: dict[str, Any],
        e: dict[str, Any],
        code: str | None,
        corrections: dict[str, str] | None = None,
    ) -> None:
        entries.append(
            {
                "key": f"{kind}-{len(entries):04d}",
                "kind": kind,
                "label": label,
                "entry_type": e["entry_type"],
                "fields": e["fields"],
                "expect_code": code,
                "expect_corrections": corrections or {},
                "doi": rec["message"]["DOI"].lower(),
            }
        )

    # valid entries: every record once
    for i, rec in enumerate(pool):
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        kind = "valid-doi" if "doi" in e["fields"] else "valid-search"
        emit(kind, "valid", rec, e, None)

    n = len(pool)
    per_kind = 25
    # valid entries with the variations real bibliographies have
    for i, rec in enumerate(pool[:per_kind]):
        w = works[rec["message"]["DOI"].lower()]
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["year"] = str(w.year + (1 if i % 2 else -1))
        emit("valid-year-off-by-one", "valid", rec, e, None)
    shown = [
        r
        for r in pool
        if ": " in works[r["message"]["DOI"].lower()].title
        or works[r["message"]["DOI"].lower()].subtitle
    ]
    for i, rec in enumerate(shown[:per_kind]):
        w = works[rec["message"]["DOI"].lower()]
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["title"] = latexify(w.title.split(": ")[0])
        emit("valid-no-subtitle", "valid", rec, e, None)
    for i, rec in enumerate(pool[per_kind : 2 * per_kind]):
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["title"] = latex_free(e["fields"]["title"]).capitalize()
        e["fields"]["author"] = ascii_fold(latex_free(e["fields"]["author"]))
        emit("valid-plain-ascii", "valid", rec, e, None)
    paged = [
        r for r in pool if re.fullmatch(r"\d+-\d+", works[r["message"]["DOI"].lower()].pages or "")
    ]
    for i, rec in enumerate(paged[:per_kind]):
        w = works[rec["message"]["DOI"].lower()]
        first, last = (w.pages or "").split("-")
        e = bib_entry(rec, i, with_doi=False)
        common = 0
        while common < min(len(first), len(last)) - 1 and first[common] == last[common]:
            common += 1
        e["fields"]["pages"] = f"pp. {first}--{last[common:]}" if i % 2 else first
        emit("valid-short-pages", "valid", rec, e, None)

    def pick(cond: Any) -> list[tuple[int, dict[str, Any]]]:
        idx = [i for i in range(n) if cond(pool[i])]
        rng.shuffle(idx)
        return [(i, pool[i]) for i in idx[:per_kind]]

    def w_of(rec: dict[str, Any]) -> Any:
        return works[rec["message"]["DOI"].lower()]

    def other(rec: dict[str, Any], cond: Any = lambda r: True) -> dict[str, Any]:
        while True:
            cand = pool[rng.randrange(n)]
            if cand is not rec and cond(cand):
                return cand

    # DOI pointing at another work
    for i, rec in pick(lambda r: True):
        e = bib_entry(rec, i + 7, with_doi=False)
        e["fields"]["doi"] = other(rec)["message"]["DOI"]
        emit(
            "doi-other-work",
            "manipulated",
            rec,
            e,
            "doi-other-work",
            {"doi": rec["message"]["DOI"].lower()},
        )
    # DOI that does not exist (suffix altered so no registry holds it)
    for i, rec in pick(lambda r: True):
        e = bib_entry(rec, i + 7, with_doi=False)
        doi = rec["message"]["DOI"]
        prefix, _, suffix = doi.partition("/")
        e["fields"]["doi"] = f"{prefix}/{suffix}.x{rng.randrange(10**6):06d}"
        emit("doi-not-found", "manipulated", rec, e, "doi-not-found", {"doi": doi.lower()})
    # near-miss title: one significant word changed or dropped
    swaps = {
        "for": "towards",
        "towards": "for",
        "with": "without",
        "using": "via",
        "via": "using",
        "of": "in",
        "learning": "training",
        "deep": "shallow",
        "neural": "graph",
        "networks": "models",
        "network": "model",
        "model": "network",
        "models": "networks",
        "analysis": "study",
        "efficient": "effective",
        "and": "or",
        "a": "the",
        "the": "a",
        "on": "for",
        "in": "of",
    }
    for i, rec in pick(lambda r: len(fold(w_of(r).title).split()) >= 5):
        w = w_of(rec)
        words = w.title.split()
        cand = [j for j, t in enumerate(words) if t.lower() in swaps]
        if cand:
            j = cand[rng.randrange(len(cand))]
            repl = swaps[words[j].lower()]
            words[j] = repl.capitalize() if words[j][0].isupper() else repl
        else:
            j = rng.randrange(1, len(words))
            del words[j]
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["title"] = latexify(" ".join(words))
        emit(
            "near-miss-title",
            "manipulated",
            rec,
            e,
            "title-mismatch",
            {"title": w.title + (f": {w.subtitle}" if w.subtitle else "")},
        )

    def people(rec: dict[str, Any]) -> list[dict[str, str]]:
        return [{"family": p.family, "given": p.given} for p in w_of(rec).authors]

    def correct_authors(rec: dict[str, Any]) -> str:
        return " and ".join(f"{p['family']}, {p['given']}" for p in people(rec))

    for i, rec in pick(lambda r: 2 <= len(w_of(r).authors) <= 12):
        ps = people(rec)
        intruder = people(other(rec, lambda r: bool(w_of(r).authors)))[-1]
        if any(fold(p["family"]) == fold(intruder["family"]) for p in ps):
            continue
        ps.insert(rng.randrange(1, len(ps) + 1), intruder)
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["author"] = author_field(ps, i % 3)
        emit(
            "author-added", "manipulated", rec, e, "author-added", {"author": correct_authors(rec)}
        )
    for i, rec in pick(lambda r: 3 <= len(w_of(r).authors) <= 12):
        ps = people(rec)
        del ps[rng.randrange(1, len(ps))]
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["author"] = author_field(ps, i % 3)
        emit(
            "author-dropped",
            "manipulated",
            rec,
            e,
            "author-dropped",
            {"author": correct_authors(rec)},
        )
    for i, rec in pick(lambda r: 3 <= len(w_of(r).authors) <= 12):
        ps = people(rec)
        intruder = people(other(rec, lambda r: bool(w_of(r).authors)))[0]
        if any(fold(p["family"]) == fold(intruder["family"]) for p in ps):
            continue
        ps[rng.randrange(1, len(ps))] = intruder
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["author"] = author_field(ps, i % 3)
        emit(
            "author-substituted",
            "manipulated",
            rec,
            e,
            "author-substituted",
            {"author": correct_authors(rec)},
        )
    placeholders = [
        "Doe, John and Roe, Jane",
        "Author, A. and Author, B.",
        "Lastname, Firstname",
        "Doe, J. and Smith, A.",
    ]
    for i, rec in pick(lambda r: True):
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["author"] = placeholders[i % len(placeholders)]
        emit("placeholder-authors", "manipulated", rec, e, "placeholder-authors")
    for i, rec in pick(lambda r: w_of(r).year is not None and w_of(r).year < 2021):
        w = w_of(rec)
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        delta = rng.choice([-5, -4, -3, -2, 2, 3, 4])
        e["fields"]["year"] = str(w.year + delta)
        emit("year-wrong", "manipulated", rec, e, "year-mismatch", {"year": str(w.year)})
    for i, rec in pick(lambda r: True):
        w = w_of(rec)
        swapped = swap_digits(str(w.year), rng)
        if swapped is None or int(swapped) > TODAY_YEAR or abs(int(swapped) - w.year) < 2:
            continue
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["year"] = swapped
        emit("year-digit-swap", "manipulated", rec, e, "year-mismatch", {"year": str(w.year)})
    for i, rec in pick(lambda r: w_of(r).work_type == "journal-article"):
        w = w_of(rec)
        alt = other(
            rec,
            lambda r, w=w: (
                w_of(r).work_type == "journal-article"
                and fold(w_of(r).venue) != fold(w.venue)
                and not set(w_of(r).issn) & set(w.issn)
            ),
        )
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["journal"] = latexify(w_of(alt).venue)
        emit("venue-wrong", "manipulated", rec, e, "venue-mismatch", {"journal": w.venue})
    for i, rec in pick(lambda r: bool(w_of(r).volume and w_of(r).volume.isdigit())):
        w = w_of(rec)
        swapped = swap_digits(w.volume, rng) if len(w.volume) > 1 else None
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["volume"] = swapped or str(int(w.volume) + rng.randrange(1, 9))
        emit("volume-wrong", "manipulated", rec, e, "volume-mismatch", {"volume": w.volume})
    for i, rec in pick(lambda r: bool(w_of(r).pages and re.fullmatch(r"\d+-\d+", w_of(r).pages))):
        w = w_of(rec)
        first, last = w.pages.split("-")
        swapped = swap_digits(first, rng)
        if swapped is None:
            swapped = str(int(first) + 10)
            last = str(int(last) + 10)
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        e["fields"]["pages"] = f"{swapped}--{last}"
        emit(
            "pages-wrong",
            "manipulated",
            rec,
            e,
            "pages-mismatch",
            {"pages": w.pages.replace("-", "--")},
        )
    for i, rec in pick(lambda r: re.search(r"[aeocpx]", w_of(r).title) is not None):
        w = w_of(rec)
        e = bib_entry(rec, i, with_doi=i % 2 == 0)
        title = e["fields"]["title"]
        spots = [
            k for k, ch in enumerate(title) if ch in CYRILLIC and k > 0 and title[k - 1].isalpha()
        ]
        k = spots[rng.randrange(len(spots))]
        e["fields"]["title"] = title[:k] + CYRILLIC[title[k]] + title[k + 1 :]
        emit("homoglyph", "manipulated", rec, e, "homoglyph")
    for i, rec in pick(lambda r: True):
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["year"] = str(TODAY_YEAR + rng.randrange(2, 6))
        emit("future-year", "manipulated", rec, e, "temporal-impossibility")
    for i, rec in pick(lambda r: len(w_of(r).authors) >= 1):
        alt = other(
            rec,
            lambda r, rec=rec: (
                not {fold(p.family) for p in w_of(r).authors}
                & {fold(p.family) for p in w_of(rec).authors}
            ),
        )
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["author"] = author_field(people(alt), i % 3)
        emit("chimeric", "manipulated", rec, e, "chimeric-entry")
    # fabricated: a title stitched from two real titles, authors from a third work
    for i, rec in pick(lambda r: len(w_of(r).title.split()) >= 6):
        a = w_of(rec).title.split()
        b = w_of(other(rec)).title.split()
        title = " ".join(a[: len(a) // 2] + b[len(b) // 2 :])
        e = bib_entry(rec, i, with_doi=False)
        e["fields"]["title"] = latexify(title)
        e["fields"]["author"] = author_field(people(other(rec)), i % 3)
        emit("fabricated", "manipulated", rec, e, "reference-not-found")
    # real correction notices attached to recorded works
    for i, rec in enumerate(pool):
        w = w_of(rec)
        if any(u.kind.value == "correction" for u in w.updates):
            emit("corrected", "manipulated", rec, bib_entry(rec, i, with_doi=True), "corrected")

    # preprints whose record names the published version (Crossref relation is-preprint-of)
    for i, rec in enumerate(records):
        w = work_from_csl(rec["message"])
        if w is None or w.work_type != "posted-content" or not w.authors or not w.year:
            continue
        if "is-preprint-of" not in dict(w.extra) or any(not fold(p.family) for p in w.authors):
            continue
        fields = {
            "title": latexify(w.title),
            "author": author_field(
                [{"family": p.family, "given": p.given} for p in w.authors], i % 3
            ),
            "year": str(w.year),
            "howpublished": "Preprint",
        }
        emit(
            "preprint-published",
            "manipulated",
            rec,
            {"entry_type": "misc", "fields": fields},
            "preprint-published",
        )

    # labelled third-party cases whose records are available offline
    universe = {fold(w.title): w for w in (work_from_csl(r["message"]) for r in records) if w}
    regression = corpus / "labeled/refchecker/hallucination_regression_refs.json"
    for case in json.loads(regression.read_text(encoding="utf-8")):
        cited = case["error_entry"]
        record = universe.get(fold(cited["ref_title"]))
        if record is None:
            continue
        names = [n.strip() for n in cited["ref_authors_cited"].split(",") if n.strip()]
        fields = {
            "title": cited["ref_title"],
            "author": " and ".join(names),
            "year": cited["ref_year_cited"],
            "booktitle": cited["ref_venue_cited"],
        }
        label = "manipulated" if case["expect_should_check"] else "valid"
        entries.append(
            {
                "key": f"refchecker-{case['id']}",
                "kind": "labelled-refchecker" if label == "manipulated" else "valid-labelled",
                "label": label,
                "entry_type": "inproceedings",
                "fields": fields,
                "expect_code": "chimeric-entry" if label == "manipulated" else None,
                "expect_corrections": {},
                "doi": record.doi,
                "source": "markrussinovich/refchecker tests/fixtures/"
                "hallucination_regression_refs.json (MIT)",
            }
        )

    out.mkdir(parents=True, exist_ok=True)
    with open(out / "records.jsonl", "w", encoding="utf-8") as fh:
        # every recorded work is in the searchable universe: the others act as distractors
        for r in sorted(records, key=lambda r: r["message"]["DOI"].lower()):
            fh.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")
    with open(out / "entries.jsonl", "w", encoding="utf-8") as fh:
        for e in entries:
            fh.write(json.dumps(e, ensure_ascii=False, sort_keys=True) + "\n")
    return len(records), len(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--out", type=Path, default=ROOT / "tests" / "data" / "accuracy")
    parser.add_argument(
        "--seed",
        type=int,
        default=SEED,
        help="another seed writes a held-out set of the same kinds (the tests keep the default)",
    )
    args = parser.parse_args(argv)
    records, entries = build(args.corpus, args.out, args.seed)
    print(f"{records} records, {entries} entries -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
