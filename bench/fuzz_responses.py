"""Mutation fuzzing of what sources answer: a source that lies about types, sizes and shapes.

Takes refchecker's real recorded answers (the Crossref, OpenAlex, Semantic Scholar and DBLP
bodies of tests/data/accuracy/refchecker, the data of ``bench/accuracy/real_refs.py``) and,
each round, damages a share of them the way a broken or hostile service could while still
sending JSON: a value of another type (``null``, a number where a string was, a list where
an object was, ``NaN``, ``1e308``, a 20-digit year), a key dropped, a string or a list
repeated up to a million characters, nesting hundreds deep, control, escape, bidirectional
characters and lone surrogates.  The damaged bodies go through the decoding every JSON
answer goes through and are converted as the sources convert them (``guard``: an
unexpected shape is a failed answer); the 609 real references, cited by one LaTeX paper,
are checked against them with the real engine, and the text, JSON, SARIF and HTML reports
are written.

Prints every exception that escaped a conversion, every entry the engine gave up on
("internal error while verifying": its last guard), every report that failed and every
control character that reached the text output (none is expected), and the slowest
rounds; a round over ``--stuck`` seconds prints its stack and ends the run (a hang is a
finding).  ``--replay N --seed S`` runs round N of seed S again and prints its tracebacks.

``--sources``: every look-up of each source's own code (all ten; the recorded answers of
tests/data/api, markup damaged as text for arXiv, PubMed and doi.org) answered with a
damaged answer, each record it gives compared with an entry.

Usage: ``python bench/fuzz_responses.py [--seconds 120] [--seed 1] [--share 0.2] [--sources]``
"""

from __future__ import annotations

import argparse
import copy
import faulthandler
import json
import logging
import random
import re
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))
sys.path.insert(0, str(ROOT / "bench" / "accuracy"))

import real_refs  # noqa: E402

from citewarden import cli  # noqa: E402
from citewarden.addref.bibtex_out import clean_value  # noqa: E402
from citewarden.audit import run_audit  # noqa: E402
from citewarden.safe_text import visible_lines  # noqa: E402
from citewarden.settings import Settings, VerifySettings  # noqa: E402
from citewarden.verify import engine  # noqa: E402
from citewarden.verify.engine import Verifier  # noqa: E402
from citewarden.verify.http import PUBLISHED_LIMITS, HttpClient, Limit, RetryPolicy  # noqa: E402
from citewarden.verify.records import Lookup, Query  # noqa: E402
from citewarden.verify.sources import (  # noqa: E402
    work_from_csl,
    work_from_dblp,
    work_from_openalex,
    work_from_s2,
)
from citewarden.verify.sources._common import guard, reply_json  # noqa: E402
from citewarden.verify.transport import Reply  # noqa: E402

#: (source, recorded file, table of RecordedSource, converter)
FILES: tuple[tuple[str, str, str, Callable[[Any, str], Any]], ...] = (
    ("crossref", "crossref_get_by_doi.jsonl", "doi", work_from_csl),
    ("crossref", "crossref_search_works.jsonl", "titles", work_from_csl),
    ("openalex", "openalex_get_by_doi.jsonl", "doi", work_from_openalex),
    ("openalex", "openalex_search_works.jsonl", "titles", work_from_openalex),
    ("semanticscholar", "semanticscholar_get_by_doi.jsonl", "doi", work_from_s2),
    ("semanticscholar", "semanticscholar_get_by_arxiv.jsonl", "arxiv", work_from_s2),
    ("semanticscholar", "semanticscholar_match_title.jsonl", "titles", work_from_s2),
    ("semanticscholar", "semanticscholar_search_paper.jsonl", "titles", work_from_s2),
    ("dblp", "dblp_search.jsonl", "titles", work_from_dblp),
)
HOSTILE_TEXT = (
    "", " ", "\x1b[2J\x1b]0;owned\x07", "\u202ebidi\u202c", "<script>alert(1)</script>",
    "\x00", "\ud800", "}{\\", "et al.", "0", "-1", "NaN", "9" * 40, "\n" * 50, "a" * 5000,
    "9" * 5000, "\u00b2", "\u0663\u0664", "12-\u00b2",
)  # fmt: skip
HOSTILE_VALUES: tuple[Any, ...] = (
    None, True, 0, -1, 10**20, 1e308, float("nan"), float("inf"), [], {}, [None], [[]], {"": ""},
)  # fmt: skip
#: Where a JSON number starts after a key (made 5 000 digits longer by the damage).
LONG_NUMBER = re.compile(r'(?<=": )-?[0-9]')
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def recorded() -> list[tuple[str, str, str, Callable[[Any, str], Any], str, Any]]:
    """Every recorded row: (source, file, table, converter, key, body)."""
    rows = []
    for source, name, table, convert in FILES:
        path = real_refs.DATA / name
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            rows.append(
                (source, name, table, convert, real_refs._key(row["cache_query"]), row["body"])
            )
    return rows


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths to every value inside ``node`` (dict keys and list indexes)."""
    out = [path]
    if len(path) > 30:
        return out
    if isinstance(node, dict):
        for k, v in node.items():
            out += _places(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:50]):
            out += _places(v, (*path, i))
    return out


def _get(node: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        node = node[step]
    return node


def _nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


def mutate(body: Any, rnd: random.Random) -> Any:
    """``body`` damaged in 1-4 places (the body itself may be replaced)."""
    body = before = copy.deepcopy(body)
    for _ in range(rnd.randint(1, 4)):
        places = _places(body)
        path = rnd.choice(places)
        old = _get(body, path)
        op = rnd.random()
        if op < 0.3:
            new: Any = copy.deepcopy(rnd.choice(HOSTILE_VALUES))
        elif op < 0.5:
            new = rnd.choice(HOSTILE_TEXT)
        elif op < 0.6 and isinstance(old, str):
            new = (old or "x") * (rnd.randint(1_000, 1_000_000) // max(1, len(old)))
        elif op < 0.7 and isinstance(old, list) and old and len(json.dumps(old)) < 50_000:
            new = old * (rnd.randint(1_000, 1_000_000) // len(json.dumps(old)))
        elif op < 0.75:
            new = _nested(rnd.randint(50, 400))
        elif op < 0.85 and isinstance(old, dict):
            new = list(old.values())
        elif op < 0.95 and isinstance(old, str):
            at = rnd.randrange(len(old) + 1)
            new = old[:at] + rnd.choice(HOSTILE_TEXT) + old[at:]
        else:
            new = {"value": old}
        if not path:
            body = new if rnd.random() < 0.2 else body
        elif rnd.random() < 0.1 and isinstance(parent := _get(body, path[:-1]), dict):
            parent.pop(path[-1], None)
        else:
            _get(body, path[:-1])[path[-1]] = new
        try:  # a value put inside itself cannot be sent: dropped
            body = json.loads(json.dumps(body))
        except ValueError:
            body = copy.deepcopy(before)
        before = body
    return body


def _convert(source: str, body: Any, convert: Callable[[Any, str], Any]) -> Lookup:
    """The body as a source turns it into an answer: an unexpected shape fails the answer."""

    reply = Reply(200, {}, json.dumps(body).encode(), "")
    data = reply_json(source, reply)  # the decoding every JSON answer goes through
    if isinstance(data, Lookup):
        return data

    def build() -> Lookup:
        return Lookup.found(source, real_refs._records(data, convert, source))

    return guard(source, build)


class Errors(logging.Handler):
    """Collects the tracebacks the engine logs when it gives up on an entry."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.seen.append("".join(traceback.format_exception(*record.exc_info)))


def _where(tb: str) -> str:
    """The last frame inside citewarden and the exception line of a traceback."""
    frames = [
        ln.strip()
        for ln in tb.splitlines()
        if ln.strip().startswith("File ") and "citewarden" in ln
    ]
    last = tb.strip().splitlines()[-1]
    return f"{frames[-1] if frames else '?'} -> {last[:160]}"


def write_project(entries: list[Any], folder: Path) -> None:
    """The references as a .bib file and a LaTeX paper citing each of them once."""
    fields = ("title", "author", "year", "journal", "url", "doi")
    lines = []
    for e in entries:
        body = ",\n".join(f"  {n} = {{{clean_value(e.get(n))}}}" for n in fields if e.get(n))
        lines.append(f"@{e.entry_type}{{{e.key},\n{body}\n}}\n")
    (folder / "refs.bib").write_text("\n".join(lines), encoding="utf-8")
    cites = "\n".join(f"As shown before \\cite{{{e.key}}}." for e in entries)
    (folder / "paper.tex").write_text(
        "\\documentclass{article}\n\\begin{document}\n"
        f"{cites}\n\\bibliography{{refs}}\n\\end{{document}}\n",
        encoding="utf-8",
    )


def sources_of(rows: list[Any], rnd: random.Random, share: float) -> tuple[list[Any], Counter[str]]:
    """The recorded sources of one round, a share of their answers damaged."""
    problems: Counter[str] = Counter()
    made: dict[str, real_refs.RecordedSource] = {}
    for source, _name, table, convert, key, body in rows:
        src = made.setdefault(source, real_refs.RecordedSource(source))
        tab = getattr(src, table)
        if key in tab and tab[key].records:
            continue
        if rnd.random() < share:
            body = mutate(body, rnd)
        try:
            tab[key] = _convert(source, body, convert)
        except Exception:  # what the bench looks for
            problems["conversion: " + _where(traceback.format_exc())] += 1
    return list(made.values()), problems


def one_round(
    rows: list[Any], rnd: random.Random, share: float, folder: Path, errors: Errors
) -> tuple[Counter[str], float]:
    """Check the paper against damaged answers, then write every report of it."""
    sources, problems = sources_of(rows, rnd, share)
    settings = Settings(verify=VerifySettings(sources=tuple(s.name for s in sources)))

    def recorded_verifier(*_args: Any, **_kw: Any) -> Verifier:
        return Verifier(sources, settings.verify, today=real_refs.AS_OF)

    engine.build_verifier = recorded_verifier  # type: ignore[assignment]
    errors.seen.clear()
    t0 = time.perf_counter()
    try:
        audit = run_audit([str(folder)], settings, cwd=folder)
    except Exception:  # what the bench looks for
        problems["audit: " + _where(traceback.format_exc())] += 1
        return problems, time.perf_counter() - t0
    for tb in errors.seen:
        problems["engine: " + _where(tb)] += 1
    for fmt in ("text", "json", "sarif", "html"):
        try:
            out = "".join(cli._render(fmt, audit, folder, [str(folder)]))
            if fmt == "text":
                # as ``check`` writes it to the terminal
                out += visible_lines(cli._verification_summary(audit, folder))
            if fmt in ("json", "sarif"):
                json.loads(out)
        except Exception:  # what the bench looks for
            problems[f"{fmt} report: " + _where(traceback.format_exc())] += 1
            continue
        bad = CONTROL.search(out.replace("\n", "")) if fmt == "text" else None
        if bad is not None:
            line = next(ln for ln in out.splitlines() if bad.group() in ln)
            problems[f"text report: {bad.group()!r} reached the terminal in {line[:100]!r}"] += 1
        if fmt == "html" and "<script>alert" in out:
            problems["html report: a source's markup was written unescaped"] += 1
    return problems, time.perf_counter() - t0


# -- every source's own reading of its answers (--sources) ------------------------------

API = ROOT / "tests" / "data" / "api"
#: What a damaged XML or HTML answer gains (arXiv, PubMed, doi.org)
MARKUP = (
    "<", ">", "&", "&amp;", "&#0;", "&#xD800;", "]]>", "<![CDATA[", "<!--", "<entry>", "</entry>",
    "<title>", '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">]>', "&a;", "\x00", "\u202e", "9" * 40,
)  # fmt: skip


def answers_of(source: str) -> list[tuple[bytes, str]]:
    """The recorded answers of one source (tests/data/api) and their content types."""
    manifest = json.loads((API / source / "manifest.json").read_text(encoding="utf-8"))
    return [
        ((API / source / r["file"]).read_bytes(), r.get("content_type", "application/json"))
        for r in manifest
    ]


def damaged_answer(body: bytes, ctype: str, rnd: random.Random) -> bytes:
    """``body`` damaged: its JSON values (see :func:`mutate`), or its markup as text."""
    if "json" in ctype:
        try:
            text = json.dumps(mutate(json.loads(body), rnd))
        except ValueError:
            pass
        else:
            if rnd.random() < 0.05:  # a number of more digits than int() reads by default
                text = LONG_NUMBER.sub(lambda m: m.group(0) + "9" * 5000, text, count=1)
            return text.encode()
    text = body.decode("utf-8", "replace")
    for _ in range(rnd.randint(1, 6)):
        at = rnd.randrange(len(text) + 1)
        op = rnd.random()
        if op < 0.5:
            text = text[:at] + rnd.choice(MARKUP) + text[at:]
        elif op < 0.7:
            text = text[:at] + text[at + rnd.randint(1, 300) :]
        elif op < 0.85:
            end = min(len(text), at + rnd.randint(1, 400))
            text = text[:at] + text[at:end] * rnd.randint(2, 2_000) + text[end:]
        else:
            text = text[:at] + rnd.choice(MARKUP) * rnd.randint(100, 100_000) + text[at:]
    return text.encode("utf-8", "surrogatepass")


def _calls(src: Any) -> list[tuple[str, Any]]:
    """Every look-up a source has, with an argument of the right kind."""
    args: list[tuple[str, Any]] = [
        ("by_doi", "10.1371/journal.pone.0033693"),
        ("by_dois", ["10.1371/journal.pone.0033693", "10.1038/nature12373"]),
        ("search", Query("Methylphenidate exposure induces dopamine neuron loss", ("Sadasivan",))),
        ("by_arxiv", "1605.08386"),
        ("by_arxivs", ["1605.08386", "1707.08567"]),
        ("by_pmid", "11618220"),
        ("by_pmid_batch", ["11618220", "22457769"]),
        ("by_isbn", "9780262033848"),
        ("journal", "1932-6203"),
        ("venues", "International Conference on Machine Learning"),
        ("notices", "10.1371/journal.pone.0033693"),
    ]
    return [(name, arg) for name, arg in args if hasattr(src, name)]


async def _source_case(
    name: str, body: bytes, ctype: str, outcomes: Counter[str]
) -> tuple[Counter[str], float]:
    """Every look-up of one source answered with ``body``; each record compared with an
    entry, each look-up's outcome counted in ``outcomes``.  Nothing may raise, and no
    look-up may fail as a client error (an exception the HTTP client caught)."""
    import httpx

    from citewarden.verify import sources as all_sources
    from citewarden.verify.compare import compare
    from citewarden.verify.field_check import field_issues
    from citewarden.verify.normalize import make_entry, normalize_entry
    from citewarden.verify.sources.doaj import DoajSource

    def answer(_request: httpx.Request) -> httpx.Response:
        # a stream, as the network gives it: the client reads the body a piece at a time
        stream = httpx.ByteStream(body)
        return httpx.Response(200, stream=stream, headers={"content-type": ctype})

    unlimited = {lane: Limit(1000.0, 1000, 16) for lane in PUBLISHED_LIMITS}
    http = HttpClient(
        transport=httpx.MockTransport(answer), limits=unlimited, retry=RetryPolicy(0, 0)
    )
    classes = {
        "arxiv": all_sources.ArxivSource, "crossref": all_sources.CrossrefSource,
        "datacite": all_sources.DataCiteSource, "dblp": all_sources.DblpSource,
        "doaj": DoajSource, "doi": all_sources.DoiSource,
        "openalex": all_sources.OpenAlexSource, "openlibrary": all_sources.OpenLibrarySource,
        "pubmed": all_sources.PubMedSource, "semanticscholar": all_sources.SemanticScholarSource,
    }  # fmt: skip
    src = classes[name](http, "https://example.org")
    entry = normalize_entry(
        make_entry(
            "k",
            "article",
            {
                "title": "Methylphenidate exposure induces dopamine neuron loss",
                "author": "Sadasivan, Shankar and Pond, Brooks B.",
                "year": "2012",
                "journal": "PLoS ONE",
                "doi": "10.1371/journal.pone.0033693",
            },
        )
    )
    problems: Counter[str] = Counter()
    t0 = time.perf_counter()
    for method, arg in _calls(src):
        try:
            got = await getattr(src, method)(arg)
            lookups = list(got.values()) if isinstance(got, dict) else [got]
            for lookup in lookups:
                outcomes[lookup.outcome.value] += 1
                if (lookup.reason or "").startswith("client error: "):  # escaped the reading
                    problems[f"{name}.{method}: {lookup.reason}"] += 1
                for record in lookup.records:
                    field_issues(entry, compare(entry, record), anchored_by_id=True)
        except Exception:  # what the bench looks for
            problems[f"{name}.{method}: " + _where(traceback.format_exc())] += 1
    await http.aclose()
    return problems, time.perf_counter() - t0


def run_sources(seconds: float, seed: int, slow: float, stuck: float) -> int:
    """Damaged answers read by each source's own code, for ``seconds``."""
    import asyncio

    rnd = random.Random(seed)
    seeds = [
        (d.name, b, c) for d in sorted(API.iterdir()) if d.is_dir() for b, c in answers_of(d.name)
    ]
    total: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    cases = 0
    slowest: list[tuple[float, str]] = []
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        name, body, ctype = rnd.choice(seeds)
        damaged = damaged_answer(body, ctype, rnd)
        faulthandler.dump_traceback_later(stuck, exit=True)
        problems, took = asyncio.run(_source_case(name, damaged, ctype, outcomes))
        faulthandler.cancel_dump_traceback_later()
        for what, n in problems.items():
            if what not in total:
                print(f"case {cases}: {what} (x{n})")
        if took > slow:
            print(f"case {cases}: {name} slow, {took:.1f} s for {len(damaged)} bytes")
        total.update(problems)
        slowest = sorted([*slowest, (took, f"{name}, {len(damaged)} bytes")])[-3:]
        cases += 1
    wall = time.perf_counter() - started
    print(f"{cases} damaged answers from {len(seeds)} recorded ones in {wall:.0f} s: "
          f"{sum(total.values())} problems, {len(total)} distinct")  # fmt: skip
    print("look-ups: " + ", ".join(f"{n} {o}" for o, n in sorted(outcomes.items())))
    print("slowest: " + "; ".join(f"{t * 1000:.0f} ms ({w})" for t, w in slowest[::-1]))
    return 1 if total else 0


def run(
    seconds: float,
    seed: int,
    share: float,
    replay: int | None,
    folder: Path,
    slow: float,
    stuck: float,
) -> int:
    rows = recorded()
    entries = real_refs.entries()
    folder = folder.resolve()  # the audit reads it relative to itself
    folder.mkdir(parents=True, exist_ok=True)
    write_project(entries, folder)
    errors = Errors()
    logging.getLogger("citewarden").addHandler(errors)
    logging.getLogger("citewarden").propagate = False
    total: Counter[str] = Counter()
    rounds = 0
    slowest: list[tuple[float, int]] = []
    started = time.perf_counter()
    while replay is not None or time.perf_counter() - started < seconds:
        number = rounds if replay is None else replay
        rnd = random.Random(f"{seed}-{number}")
        # a round that hangs is a finding: its stack is printed and the run ends
        faulthandler.dump_traceback_later(stuck, exit=True)
        problems, took = one_round(rows, rnd, share, folder, errors)
        faulthandler.cancel_dump_traceback_later()
        for what, n in problems.items():
            if what not in total or replay is not None:
                print(f"round {number}: {what} (x{n})")
        if replay is not None:
            for tb in errors.seen[:3]:
                print(tb)
        total.update(problems)
        slowest = sorted([*slowest, (took, number)])[-3:]
        if took > slow:
            print(f"round {number}: slow, {took:.1f} s")
        rounds += 1
        if replay is not None:
            break
    wall = time.perf_counter() - started
    print(f"{rounds} rounds of {len(entries)} references against {len(rows)} recorded answers "
          f"({share:.0%} damaged each round) in {wall:.0f} s: {sum(total.values())} problems, "
          f"{len(total)} distinct")  # fmt: skip
    print("slowest rounds: " + "; ".join(f"{t:.1f} s (round {r})" for t, r in slowest[::-1]))
    return 1 if total else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--share", type=float, default=0.2, help="share of answers damaged")
    parser.add_argument("--slow", type=float, default=10.0, help="report a round slower than this")
    parser.add_argument("--stuck", type=float, default=120.0, help="a round this long hangs")
    parser.add_argument("--replay", type=int, help="run this round of --seed again")
    parser.add_argument(
        "--dir", type=Path, default=Path("fuzz-responses"), help="the paper's folder"
    )
    parser.add_argument("--sources", action="store_true", help="each source's own reading")
    args = parser.parse_args(argv)
    if args.sources:
        return run_sources(args.seconds, args.seed, args.slow, args.stuck)
    return run(args.seconds, args.seed, args.share, args.replay, args.dir, args.slow, args.stuck)


if __name__ == "__main__":
    raise SystemExit(main())
