"""The audit of a set of paths: one value every report and the command line read.

:func:`run_audit` reads the projects rooted at the given paths, runs every check, verifies
the entries the policy lets through, turns the verdicts into findings
(:mod:`citewarden.findings.verdicts`), sends every finding through the policy step
(:mod:`citewarden.findings.policy`) and sums the verdicts up in one score summary
(:mod:`citewarden.findings.score`).  The language server goes through the same three
modules, so both say the same thing about the same project.
"""

from __future__ import annotations

import errno
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from citewarden.checks import check_workspace
from citewarden.context.collect import (
    CitationContext,
    abstract_sources,
    citation_contexts,
    unsupported_finding,
    works_of,
)
from citewarden.context.names import named_works
from citewarden.context.project_texts import (
    crossref_documents,
    pandoc_versions,
    project_latex_texts,
)
from citewarden.findings.policy import Policy
from citewarden.findings.score import ScoreSummary, score_summary
from citewarden.findings.verdicts import (
    citation_findings,
    citations_of,
    entry_findings,
    marks_citations,
)
from citewarden.model import Entry, Finding, Verdict
from citewarden.parsing import (
    PROJECT_SUFFIXES,
    is_bibliography,
    is_csl,
    is_document,
    is_metadata,
)
from citewarden.project import Workspace, normalize_path, walks_into
from citewarden.settings import Settings

#: Input files ``check`` accepts by suffix (directories are searched).
CHECKABLE_SUFFIXES = PROJECT_SUFFIXES

#: Called with the number of entries to verify; the context it returns is entered while
#: they verify and is called with each verified key.
Progress = Callable[[int], AbstractContextManager[Callable[[str], None]]]
#: Receives a notice the user should see once (a rebuilt or unusable verification cache,
#: a source that stopped answering).
Notify = Callable[[str], None]


class InputError(Exception):
    """A path that does not exist, cannot be checked or cannot be read."""


@dataclass(frozen=True, slots=True)
class Verified:
    """What verifying a run's entries gave (:func:`verify_entries`)."""

    verdicts: list[Verdict]
    #: (source, why) of each source that stopped answering during the run.
    stopped: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Audit:
    """What one run found: the project, the findings after policy, the verdicts, the score."""

    workspace: Workspace
    settings: Settings
    policy: Policy
    #: The files whose findings are reported.
    scope: frozenset[Path]
    #: Findings after the policy step, by reported file (a clean file maps to ``[]``).
    findings: Mapping[Path, list[Finding]]
    #: The bibliography entries in scope, in file order.
    entries: tuple[Entry, ...]
    #: Verdicts of the verified entries (None when verification did not run).
    verdicts: tuple[Verdict, ...] | None
    #: The score summary of ``verdicts`` (None without verification).
    summary: ScoreSummary | None
    #: Every reported citation's context: sentence, score, the judge's verdict if any.
    contexts: tuple[CitationContext, ...] = ()
    #: Each verified entry with its own verdict, in file order (None: ``verdicts`` are
    #: paired with ``entries`` by key, in order, by :func:`pair_verdicts`).
    paired: tuple[tuple[Entry, Verdict], ...] | None = None
    #: (source, why) of each source that stopped answering during the verification: its
    #: entries' lookups failed at once (:mod:`citewarden.verify.breaker`).
    stopped: tuple[tuple[str, str], ...] = ()

    def files(self) -> set[Path]:
        """Every file of the checked projects: those reported on and those read."""
        return set(self.scope) | set(self.findings) | set(self.workspace.known_files())

    def replaced_by(self, target: Path) -> bool:
        """Whether writing ``target`` (absolute) would replace a file of the checked
        projects, under its own name or another one (a link)."""
        files = self.files()
        if normalize_path(target) in files:
            return True
        return target.exists() and any(_same_file(target, p) for p in files)

    def ordered(self) -> list[Finding]:
        """Every finding, sorted by file, place and code."""
        return sorted_findings(self.findings)

    def verdict_pairs(self) -> list[tuple[Entry, Verdict]]:
        """Each verified entry with its own verdict, in file order (a key two files define
        has two entries, each with its verdict)."""
        if self.paired is not None:
            return list(self.paired)
        return pair_verdicts(self.entries, self.verdicts or ())

    def entry_verdicts(self) -> dict[Entry, Verdict]:
        """The verdict of each verified entry, by entry."""
        return dict(self.verdict_pairs())


def sorted_findings(findings: Mapping[Path, Sequence[Finding]]) -> list[Finding]:
    out = [f for path in sorted(findings) for f in findings[path]]
    out.sort(key=lambda f: (str(f.location.path), f.location.span.start, f.code.value))
    return out


def _workspace_root(paths: list[Path], cwd: Path) -> Path:
    if all(p.is_relative_to(cwd) for p in paths):
        return cwd
    first = paths[0]
    return first if first.is_dir() else first.parent


def _display(path: Path, cwd: Path) -> str:
    try:
        return path.relative_to(cwd).as_posix()
    except ValueError:
        return str(path)


def load_workspace(
    raw_paths: Sequence[str], settings: Settings, cwd: Path
) -> tuple[Workspace, set[Path], list[Path], list[Path]]:
    """A workspace holding the given paths, the files whose findings are reported (those
    of the projects the paths belong to), the roots ignore globs are relative to (the
    workspace root, and each folder outside it), and the files named; raises :class:`InputError` for a path that does
    not exist, cannot be read, or holds nothing to check."""
    paths: list[Path] = []
    for raw in raw_paths:
        if not raw:
            raise InputError("an empty path names no file (give a file or a directory)")
        path = normalize_path(cwd / raw)
        if not path.exists():
            raise InputError(_missing(raw, path))
        if path.is_file() and path.suffix.lower() not in CHECKABLE_SUFFIXES:
            raise InputError(
                f"cannot check {raw}: not a LaTeX, Markdown or bibliography file "
                "(.tex, .latex, .md, .qmd, .Rmd, .bib, .bibtex, .json, .yaml)"
            )
        paths.append(path)
    root = _workspace_root(paths, cwd)
    ws = Workspace(settings, root=root)
    files: list[Path] = []
    folders: list[Path] = []
    for path in paths:
        if path.is_dir():
            folders.append(path)
            # a folder in the workspace root is walked by the root's rules (its ignore
            # globs are relative to the root, as in the editor); another is its own root
            inside = walks_into(root, path)
            found = ws.add_folder(root, under=path) if inside else ws.add_folder(path)
            if not any(map(_checkable, found)):
                raise InputError(_nothing_in(raw, settings))
        else:
            files.append(ws.add_file(path))
            error = ws.read_error(path)
            if error is not None:
                reason = error.strerror or str(error)
                raise InputError(f"cannot read {_display(path, cwd)}: {reason}")
    scope: set[Path] = set()
    for folder in folders:
        scope.update(p for p in ws.known_files() if p.is_relative_to(folder))
    if folders:  # the projects of the documents found there, their bibliographies too
        for project in ws.projects():
            if any(s.is_relative_to(f) for s in project.sources for f in folders):
                scope.update(project.sources)
                scope.update(project.bibliographies)
    for path in files:
        scope.add(path)
        for project in ws.projects_of(path):
            scope.update(project.sources)
            scope.update(project.bibliographies)
    return ws, scope, [root, *(f for f in folders if not walks_into(root, f))], files


def _missing(raw: str, path: Path) -> str:
    """Why the path ``raw`` (``path``) names nothing to read: no such file, a symbolic
    link to none, or a loop of symbolic links.  A path with spaces at its ends (or only
    spaces) is shown between quotes, where its spaces could not be seen."""
    if raw.strip() != raw:
        raw = f"'{raw}'"
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"cannot read {raw}: a loop of symbolic links (too many levels)"
    if path.is_symlink():
        return f"no such file or directory: {raw} (a symbolic link to a missing file)"
    return f"no such file or directory: {raw}"


def _checkable(path: Path) -> bool:
    """A file a folder is checked for (a CSL file there is read only when a document names it)."""
    return is_document(path) or is_bibliography(path) or is_metadata(path)


def _nothing_in(raw: str, settings: Settings) -> str:
    why = "it is a directory with no LaTeX, Markdown or .bib file"
    if settings.ignore:
        why += " outside the ignore setting's patterns"
    return (
        f"nothing to check in {raw}: {why} (a CSL .json or .yaml file is read when a "
        "document names it, or when it is given as the PATH)"
    )


def _named_csl(ws: Workspace, files: Sequence[Path]) -> dict[Path, list[Finding]]:
    """The problems of each CSL file named on the command line that no document names
    (named, it is a bibliography; found in a folder, only a document makes it one)."""
    in_use = {b for project in ws.projects() for b in project.bibliographies}
    out: dict[Path, list[Finding]] = {}
    for path in files:
        if is_csl(path) and path not in in_use:
            bib = ws.bibliography(path)
            out[path] = [*ws.read_problems(path), *(bib.problems if bib is not None else ())]
    return out


def verify_entries(
    entries: Sequence[Entry],
    settings: Settings,
    progress: Progress | None = None,
    notify: Notify | None = None,
    *,
    abstracts: bool = False,
) -> Verified:
    """One verdict per entry, in order, through the persistent cache (an entry whose key
    an earlier entry has too is verified on its own, as the editor does), and the sources
    that stopped answering.  ``notify`` is told, once each, what the user should know about
    the cache (rebuilt, unusable) and, after the entries, about a source that stopped
    answering.  ``abstracts``: ask for the abstract of a matched work whose record has none
    (there are citing sentences to score)."""
    import asyncio

    from citewarden.verify.engine import build_verifier

    rounds: list[list[Entry]] = []  # each round holds each key once
    seen: dict[str, int] = {}
    for entry in entries:
        n = seen.get(entry.key, 0)
        seen[entry.key] = n + 1
        if n == len(rounds):
            rounds.append([])
        rounds[n].append(entry)
    bar = progress(len(entries)) if progress is not None else nullcontext(lambda _key: None)
    stopped: list[tuple[str, str]] = []

    async def verify_all() -> list[dict[str, Verdict]]:
        verifier = build_verifier(settings, offline=settings.verify.offline, abstracts=abstracts)
        if notify is not None:
            for notice in verifier.notices:
                notify(notice)
        try:
            with bar as advance:
                done = [
                    await verifier.verify_many(batch, on_result=lambda key, _v: advance(key))
                    for batch in rounds
                ]
            stopped.extend(verifier.cut_off())
            return done
        finally:
            await verifier.aclose()

    results = asyncio.run(verify_all())
    out: list[Verdict] = []
    for n, batch in enumerate(rounds):
        out += [results[n][e.key] for e in batch if e.key in results[n]]
    if notify is not None:
        from citewarden.verify.breaker import stopped_notice

        for service, why in stopped:
            notify(stopped_notice(service, why))
    return Verified(out, tuple(stopped))


def verdict_findings(
    ws: Workspace,
    verified: Iterable[tuple[Entry, Verdict]],
    *,
    citation_sites: bool = True,
) -> list[Finding]:
    """The verification findings of each (entry, verdict) on the entry, and at the
    citations of H-tier or retracted entries; before policy."""
    out: list[Finding] = []
    marked: list[tuple[Entry, Verdict]] = []
    for entry, verdict in verified:
        out += entry_findings(entry, verdict, ws.text(entry.path))
        if citation_sites and marks_citations(verdict):
            marked.append((entry, verdict))
    if marked:
        cited = citations_of(ws, marked)
        for entry, verdict in marked:
            out += citation_findings(entry, verdict, cited.get(entry.key, []))
    return out


def run_audit(
    paths: Sequence[str],
    settings: Settings,
    *,
    cwd: Path | None = None,
    verify: bool = True,
    progress: Progress | None = None,
    notify: Notify | None = None,
) -> Audit:
    """Check and (unless ``verify`` is false or ``verify.enabled`` is off) verify the
    projects rooted at ``paths``; raises :class:`InputError` for a bad path.  ``notify``
    receives notices about the verification cache and the sources (see
    :func:`verify_entries`)."""
    base = normalize_path(cwd or Path.cwd())
    ws, scope, roots, files = load_workspace(paths, settings, base)
    policy = Policy(settings, roots)
    raw: dict[Path, list[Finding]] = {
        p: list(fs) for p, fs in check_workspace(ws).items() if p in scope
    }
    named_csl = _named_csl(ws, files)
    for path, problems in named_csl.items():
        raw.setdefault(path, []).extend(problems)
    # every bibliography a document uses (.bib, CSL-JSON, CSL-YAML) and the references:
    # items documents define, as the editor verifies, and the CSL files named here
    named = [b for p in named_csl if (b := ws.bibliography(p)) is not None]
    entries = tuple(
        e
        for bib in [*ws.verified_bibliographies(), *named]
        if bib.path in scope
        for e in bib.entries
    )
    verdicts: list[Verdict] | None = None
    stopped: tuple[tuple[str, str], ...] = ()
    pairs: list[tuple[Entry, Verdict]] | None = None
    wanted = [e for e in entries if policy.verifies(ws, e)]
    if verify and settings.verify.enabled and wanted:
        verified = verify_entries(wanted, settings, progress, notify, abstracts=_cites(ws, scope))
        verdicts, stopped = verified.verdicts, verified.stopped
        pairs = pair_verdicts(wanted, verdicts)
        extra = verdict_findings(ws, pairs, citation_sites=settings.verify.citation_sites)
        for finding in extra:
            if finding.location.path in scope:
                raw.setdefault(finding.location.path, []).append(finding)
    contexts = collect_contexts(ws, scope, entries, verdicts)
    if verdicts is not None and not settings.verify.offline:
        contexts = judge_contexts(contexts, verdicts, settings)
        for c in contexts:
            if c.judge is not None and c.judge.get("supported") is False and c.path in scope:
                finding = unsupported_finding(c, str(c.judge["model"]), str(c.judge["reason"]))
                raw.setdefault(c.path, []).append(finding)
    findings = policy.apply_by_file(ws, raw)
    return Audit(
        workspace=ws,
        settings=settings,
        policy=policy,
        scope=frozenset(scope),
        findings=findings,
        entries=entries,
        verdicts=tuple(verdicts) if verdicts is not None else None,
        summary=score_summary(verdicts) if verdicts is not None else None,
        contexts=tuple(contexts),
        paired=tuple(pairs) if pairs is not None else None,
        stopped=stopped,
    )


def _cites(ws: Workspace, paths: Iterable[Path]) -> bool:
    """Whether a document among ``paths`` cites anything (its contexts will be scored)."""
    for path in paths:
        doc = ws.document(path) if is_document(path) else None
        if doc is not None and doc.citations:
            return True
    return False


def collect_contexts(
    ws: Workspace,
    paths: Iterable[Path],
    entries: Sequence[Entry],
    verdicts: Sequence[Verdict] | Mapping[str, Verdict] | None,
) -> list[CitationContext]:
    """The contexts of the citations in the documents among ``paths`` (the cited work is the
    matched record when verified, else the entry)."""
    if isinstance(verdicts, Mapping):
        by_key = dict(verdicts)
    else:
        by_key = {}
        for v in verdicts or ():
            by_key.setdefault(v.key, v)
    works = works_of(entries, by_key)
    docs = []
    for path in sorted(paths):
        if not is_document(path):
            continue
        doc, text = ws.document(path), ws.text(path)
        if doc is not None and text is not None and doc.citations:
            docs.append((doc, text))
    # the words commands of the projects' other files too (a macros file cites nothing)
    defined = project_latex_texts(ws, [doc.path for doc, _ in docs])
    sources = abstract_sources(entries, by_key)
    crossref = crossref_documents(ws, [doc.path for doc, _ in docs])
    pandoc = pandoc_versions(ws, [doc.path for doc, _ in docs])
    names = named_works(entries)
    return citation_contexts(docs, works, sources, defined, names, crossref, pandoc)


def judge_contexts(
    contexts: list[CitationContext], verdicts: Sequence[Verdict], settings: Settings
) -> list[CitationContext]:
    """With a judge configured (``[judge]`` settings or the environment), its verdict on
    each citation of a matched work (the sentence and the record's metadata are all it is
    sent)."""
    import asyncio
    import dataclasses

    from citewarden.verify.judge import judge_all, judge_config

    config = judge_config(settings.judge)
    if config is None:
        return contexts
    matches = {v.key: v.match for v in verdicts if v.match is not None}
    todo = [i for i, c in enumerate(contexts) if c.citation.key in matches]
    items = [(contexts[i].sentence.text, matches[contexts[i].citation.key]) for i in todo]
    answers = asyncio.run(judge_all(config, items)) if items else []
    out = list(contexts)
    for i, answer in zip(todo, answers, strict=True):
        if answer is not None:
            judged = {"supported": answer.supported, "reason": answer.reason, "model": answer.model}
            out[i] = dataclasses.replace(out[i], judge=judged)
    return out


def pair_verdicts(
    entries: Sequence[Entry], verdicts: Sequence[Verdict]
) -> list[tuple[Entry, Verdict]]:
    """Each entry with its verdict, the nth verdict of a key going to the nth entry with
    that key (an entry verification left out has none); in the order of ``entries``."""
    pending: dict[str, deque[Verdict]] = {}
    for v in verdicts:
        pending.setdefault(v.key, deque()).append(v)
    out: list[tuple[Entry, Verdict]] = []
    for entry in entries:
        queue = pending.get(entry.key)
        if queue:
            out.append((entry, queue.popleft()))
    return out


def _same_file(a: Path, b: Path) -> bool:
    """Are ``a`` and ``b`` one file under two names (a link)?"""
    try:
        return a.samefile(b)
    except OSError:
        return False
