"""Command line: ``citewarden check | serve | cache | add``.

``citewarden check PATH...`` reads the projects rooted at the given paths (a LaTeX root, a
Markdown document, a bibliography, or a directory to search), runs every check and prints
``file:line:col: severity code message`` lines (or a JSON report).  Exit status: 0 clean,
1 when a finding is at or above ``--fail-on``, 2 for a usage or read error or memory running out.
"""

from __future__ import annotations

import argparse
import dataclasses
import errno
import logging
import os
import re
import signal
import stat
import sys
import traceback
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import TracebackType
from typing import Any, NoReturn, TextIO

from citewarden import __version__
from citewarden.audit import Audit, InputError, Progress, run_audit
from citewarden.files import (
    refuse_special,
    replace_whole,
    temporary_files_removed_on_signals,
)
from citewarden.model import Entry, Finding, Severity, Verdict
from citewarden.output_paths import expanded_output, missing_folder
from citewarden.parsing import is_bibliography, is_document, is_metadata
from citewarden.parsing.bibtex import reader_kind
from citewarden.project import Workspace, normalize_path
from citewarden.redaction import RedactingFormatter, mask_registered
from citewarden.report.json_report import display_path, json_pieces, report_pieces
from citewarden.safe_text import visible, visible_lines
from citewarden.settings import (
    CONFIG_FILE,
    ConfigSyntaxError,
    Settings,
    SettingsProblem,
    config_text,
    find_config_dir,
    http_url_problem,
    load_settings,
    merge_settings,
    parse_config,
    placed,
    read_config_bytes,
    with_origin_lines,
)

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
#: The status of a run whose reader went away (``| head``): a program SIGPIPE ends has it.
EXIT_PIPE = 128 + 13
#: The status of a run interrupted (Ctrl-C, SIGINT) where it cannot end by SIGINT itself.
EXIT_INTERRUPTED = 128 + 2

FAIL_ON: dict[str, Severity | None] = {
    "error": Severity.ERROR,
    "warning": Severity.WARNING,
    "info": Severity.INFORMATION,
    "never": None,
}


CHECK_EXIT_STATUS = """\
exit status:
  0  no finding at or above --fail-on
  1  a finding at or above --fail-on (default: error)
  2  a usage error (a bad option, path or settings file), an input that cannot be
     read, a directory with nothing to check, a file --fix could not write, or
     memory running out (the max_file_mb setting bounds the files read)
  130  interrupted (Ctrl-C): it ends by SIGINT, as a shell shows; --fix leaves each file
       whole, old or new
  141  the reader of standard output went away (| head), as for a program SIGPIPE ends
  143, 129  ended by SIGTERM or SIGHUP (kill, timeout, a closed terminal): it cleans up
       as for Ctrl-C, then ends by that signal
"""


class UsageError(Exception):
    """A bad argument or an unreadable input: reported on stderr, exit status 2."""


# ----------------------------------------------------------------------------------------
# argument parsing
# ----------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse's parser, saying a usage error with what the user typed escaped (an unknown
    option's terminal control, ``--x$'\\e]0;title\\a'``, reached the terminal as it was).
    Its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        super().error(visible(message))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="citewarden",
        description="Citation checks and reference verification for LaTeX, Markdown and BibTeX.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"citewarden {__version__} (BibTeX reader: {reader_kind()})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check",
        help="check projects and print findings",
        description="Check LaTeX roots, Markdown documents, bibliographies or directories.",
        epilog=CHECK_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a root .tex, a .md/.qmd/.Rmd, a .bib, or a directory (at least one, or --files-from)",
    )
    check.add_argument("--format", choices=("text", "json", "sarif", "html"), default="text")
    check.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE ('-': standard output, as without --output)",
    )
    check.add_argument(
        "--fail-on",
        choices=tuple(FAIL_ON),
        default="error",
        help="exit 1 when a finding is at least this severe (default: error)",
    )
    check.add_argument(
        "--config",
        metavar="FILE",
        help=f"settings file (default: {CONFIG_FILE} in the first PATH's folder or the nearest"
        " folder above it, up to the repository's root)",
    )
    check.add_argument("--no-verify", action="store_true", help="skip verification (no network)")
    check.add_argument("--offline", action="store_true", help="verify from the cache only")
    check.add_argument("--snapshot", metavar="FILE", help="JSONL snapshot of work records")
    check.add_argument("--quiet", "-q", action="store_true", help="no summary or warnings")
    # --- reports, batch input and --fix (citewarden.fix, citewarden.batch) ---------------
    check.add_argument(
        "--files-from",
        action="append",
        default=[],
        metavar="FILE",
        help="read more paths from FILE, one per line ('-' = standard input); "
        "'@FILE' as a PATH does the same",
    )
    check.add_argument(
        "--fix",
        action="store_true",
        help="write anchored corrections into the .bib, CSL-JSON and CSL-YAML files "
        "(a backup FILE.orig is kept)",
    )
    check.add_argument(
        "--diff",
        action="store_true",
        help="print the corrections --fix would write as a unified diff, alone on standard "
        "output (the text report and its summary on standard error); change nothing",
    )

    serve = sub.add_parser(
        "serve", help="run the language server (stdio by default)", add_help=False
    )
    serve.add_argument("rest", nargs=argparse.REMAINDER)

    cache = sub.add_parser("cache", help="inspect or empty the verification cache")
    cache.add_argument("action", choices=("stats", "clear", "prune"))

    _add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command; its exit status.  Memory running out is an error (status 2) whose
    message names the file being read when the traceback shows one."""
    if sys.stderr is None:  # started with it closed (2>&-): its lines go nowhere, not to stdout
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (for the run)
    serving = list(sys.argv[1:] if argv is None else argv)[:1] == ["serve"]
    kept = {} if serving else _catch_termination()  # (the server ends as it sees fit)
    try:
        return _main(argv)
    except BrokenPipeError:  # the reader of standard output went away (| head): no traceback
        _discard_stdout()
        return EXIT_PIPE
    except _Terminated as exc:  # kill, timeout, a closed terminal: cleaned up, said nothing
        _end_by_signal(exc.signum)
        return 128 + exc.signum
    except KeyboardInterrupt:  # Ctrl-C: one line, where a traceback of the event loop was
        print("citewarden: interrupted", file=sys.stderr)
        _end_by_signal(signal.SIGINT)
        return EXIT_INTERRUPTED
    except MemoryError as exc:
        path = _file_being_read(exc.__traceback__)
    finally:
        for signum, handler in kept.items():
            signal.signal(signum, handler)
    # the traceback and the text it held are released here, before the message is written
    where = f" while reading {visible(display_path(path))}" if path is not None else ""
    print(
        f"citewarden: error: ran out of memory{where}; a lower max_file_mb setting leaves "
        "larger files unread",
        file=sys.stderr,
    )
    return EXIT_USAGE


class _Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived: raised where the run is, so that what it was writing is
    cleaned up (a temporary file removed) as for Ctrl-C, whose way through the event loop
    it takes, before it ends by that signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminated(signum: int, frame: object) -> None:
    """Raise :class:`_Terminated`, once: a second SIGTERM or SIGHUP while the run cleans
    up is ignored (the run ends by the first), so it cannot cut the cleaning short and
    leave a temporary file behind."""
    for name in ("SIGTERM", "SIGHUP"):
        other = getattr(signal, name, None)
        if other is None:
            continue
        handler = signal.getsignal(other)
        if handler is _terminated or getattr(handler, "__wrapped__", None) is _terminated:
            signal.signal(other, signal.SIG_IGN)
    raise _Terminated(signum)


def _catch_termination() -> dict[int, Any]:
    """Have SIGTERM and SIGHUP raise :class:`_Terminated` (each left as it is unless its
    default action is set: ``nohup`` ignores SIGHUP); -> the handlers replaced, to put back.
    A run they killed outright left its temporary file beside the report for ever."""
    kept: dict[int, Any] = {}
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) is not signal.SIG_DFL:
            continue
        try:
            kept[signum] = signal.signal(signum, _terminated)
        except ValueError:  # not the main thread (main called from a thread)
            break
    return kept


def _end_by_signal(signum: int) -> None:
    """End the process by ``signum`` with its default action, once the run has cleaned up,
    so that what started it sees a program that signal ended (a shell loop running
    ``citewarden check`` stops on Ctrl-C, as it does for any program); returns only where
    that cannot be done (not on POSIX, not the main thread), and the exit status then says
    128 + ``signum``."""
    if os.name != "posix":
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):  # a reader gone, a closed stream: nothing more to say
            pass
    try:
        signal.signal(signum, signal.SIG_DFL)
    except ValueError:  # not the main thread (main called from a thread)
        return
    signal.raise_signal(signum)


def _discard_stdout() -> None:
    """Point standard output at the null device, so that what is left in its buffer, flushed
    at exit, raises no second broken pipe."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
        os.close(fd)
    except (OSError, ValueError, AttributeError):  # no file descriptor (a test's stream)
        pass


def _bad_address(environ: Mapping[str, str]) -> str | None:
    """Why the first variable that sets a source's address (``CITEWARDEN_CROSSREF_URL``
    ...) is refused (:func:`citewarden.settings.http_url_problem`, the rule a settings file's
    address follows too), where every request to the source failed (or a byte that is not
    UTF-8 ended the run in a misleading error about standard output).  The value is not
    shown: an address may hold a password."""
    from citewarden.verify.config import URL_ENV

    for var in URL_ENV.values():
        value = environ.get(var, "").strip()
        if value and (problem := http_url_problem(value)) is not None:
            return f"{var} {problem}; give an http or https address, or unset it"
    return None


#: Commands whose paths or identifiers may come before, between and after their options.
_INTERMIXED = ("check", "add")


def _parse(parser: argparse.ArgumentParser, args_list: list[str]) -> argparse.Namespace:
    """``args_list`` read by ``parser``; the arguments of ``check`` and ``add`` by their own
    parser, intermixed, so a path after an option (``check a.md --offline b.bib``) is one
    of the paths, where it was refused as an unrecognized argument.  With ``--`` (after which
    every argument is a path) they are read as before: an intermixed reading drops them."""
    command = args_list[0] if args_list else None
    if command not in _INTERMIXED or "--" in args_list:
        return parser.parse_args(args_list)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            args = action.choices[command].parse_intermixed_args(args_list[1:])
            args.command = command
            return args
    return parser.parse_args(args_list)


def _lost_working_directory() -> str | None:
    """Why the working directory cannot be had (removed since the shell entered it), or
    None: relative paths, the settings and the report's names all start from it."""
    try:
        os.getcwd()
    except OSError as exc:
        return f"the working directory cannot be found ({exc.strerror}); cd to the project first"
    return None


#: Modules whose local ``path`` is the file they read.
_READERS = ("citewarden.files", "citewarden.project", "citewarden.parsing")


def _file_being_read(tb: TracebackType | None) -> Path | None:
    """The ``path`` of the innermost reading or parsing frame of ``tb``, if any."""
    found: Path | None = None
    for frame, _ in traceback.walk_tb(tb):
        module = str(frame.f_globals.get("__name__", ""))
        path = frame.f_locals.get("path")
        if module.startswith(_READERS) and isinstance(path, Path):
            found = path
    return found


class _EscapedStderr(logging.Handler):
    """Python's last-resort handler (warnings, when no log is configured), each line
    redacted and escaped as the server's log is: an exception's text can hold what a
    response or a file said (a terminal control, a key).  A record's first line is said as
    the CLI says its own messages (``citewarden: warning: ...``), where the last-resort
    handler wrote the bare message."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(RedactingFormatter("%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            level = visible(record.levelname.lower())
            sys.stderr.write(f"citewarden: {level}: {self.format(record)}\n")
        except Exception:
            self.handleError(record)


def _main(argv: Sequence[str] | None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["serve"]:
        return _serve(args_list[1:])
    logging.lastResort = _EscapedStderr()
    parser = _parser()
    try:
        args = _parse(parser, args_list)
    except SystemExit as exc:
        return EXIT_CLEAN if exc.code in (0, None) else EXIT_USAGE
    if args.command in ("check", "add") and (lost := _lost_working_directory()) is not None:
        print(f"citewarden: error: {lost}", file=sys.stderr)
        return EXIT_USAGE
    verifies = args.command == "add" or (args.command == "check" and not args.no_verify)
    if verifies and (bad := _bad_address(os.environ)) is not None:
        print(f"citewarden: error: {bad}", file=sys.stderr)
        return EXIT_USAGE
    if args.command == "check":
        try:
            return run_check(args)
        except UsageError as exc:
            print(f"citewarden: error: {visible(str(exc))}", file=sys.stderr)
            return EXIT_USAGE
        except UnicodeEncodeError as exc:
            print(f"citewarden: error: {_unencodable(exc)}", file=sys.stderr)
            return EXIT_USAGE
    if args.command == "cache":
        return _cache(args.action)
    if args.command == "add":
        from citewarden.cli_add import run_add

        return run_add(args)
    parser.print_help(sys.stderr)
    return EXIT_USAGE


# ----------------------------------------------------------------------------------------
# serve / cache (implemented elsewhere, imported only when asked for)
# ----------------------------------------------------------------------------------------


def _serve(argv: list[str]) -> int:
    try:
        from citewarden.lsp.server import main as serve_main
    except ImportError as exc:
        print(f"citewarden: error: the language server is not available: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return int(serve_main(argv) or 0)


def _cache(action: str) -> int:
    try:
        from citewarden import cache
    except ImportError as exc:
        print(f"citewarden: error: the cache is not available: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from citewarden.verify.shared_rate import RATE_DIR, SharedRate
    from citewarden.verify.sources import snapshot

    try:
        with cache.Cache() as store:
            indexes = store.directory / snapshot.INDEX_DIR
            if store.notice:  # damaged, moved aside and rebuilt
                _warn(store.notice)
            if action == "stats":  # the directory comes from the environment: shown escaped
                for key, value in store.stats().items():
                    print(visible(f"{key}: {value}"))
            elif action == "clear":
                print(f"removed {store.clear()} cache entries")
                if damaged := store.drop_damaged():
                    print(f"removed {damaged} damaged cache stor{'es' if damaged != 1 else 'e'}")
                _said_indexes("removed", snapshot.clear_indexes(indexes))
                _said_pauses(SharedRate(store.directory / RATE_DIR).lift_pauses())
            else:
                print(f"pruned {store.prune()} expired cache entries")
                _said_indexes("pruned", snapshot.prune_indexes(indexes))
    except OSError as exc:  # an uncreatable or unwritable cache directory
        print(f"citewarden: error: {visible(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_CLEAN


def _said_indexes(done: str, count: int) -> None:
    """The line of ``cache clear|prune`` on snapshot indexes, when there were any."""
    if count:
        print(f"{done} {count} snapshot index{'es' if count != 1 else ''}")


def _said_pauses(count: int) -> None:
    """The line of ``cache clear`` on the services' pauses it lifted, when there were any."""
    if count:
        print(f"lifted {count} pause{'s' if count != 1 else ''} a service asked for (Retry-After)")


# ----------------------------------------------------------------------------------------
# check
# ----------------------------------------------------------------------------------------


def _load_settings(args: argparse.Namespace, cwd: Path) -> tuple[Settings, list[SettingsProblem]]:
    """The settings of ``--config``, or of the project of the first PATH (not of the working
    directory: a project checked from elsewhere reads its own settings)."""
    for option, value in (("--config", args.config), ("--snapshot", args.snapshot)):
        if value is not None and not value:  # an unset variable: no file, not the default
            raise UsageError(f"{option} names no file (an empty path)")
    if args.config:
        path = Path(args.config)
        try:
            data = read_config_bytes(path)
            raw = parse_config(data)
        except FileNotFoundError:
            raise UsageError(f"config file not found: {args.config}") from None
        except OSError as exc:
            raise UsageError(f"cannot read config file {args.config}: {exc.strerror}") from None
        except ConfigSyntaxError as exc:
            raise UsageError(f"invalid config file {args.config}: {exc}") from None
        settings, problems = merge_settings(Settings(), raw, str(path), normalize_path(path).parent)
        settings = with_origin_lines(settings, str(path), config_text(data))
        problems = placed(problems, config_text(data))  # each with its line
    else:
        first = normalize_path(cwd / args.paths[0])
        settings, problems = load_settings(
            find_config_dir(first if first.is_dir() else first.parent)
        )
    verify = settings.verify
    changes: dict[str, Any] = {}
    if args.no_verify:
        changes["enabled"] = False
    if args.offline:
        changes["offline"] = True
    if args.snapshot:
        snapshot = Path(args.snapshot)
        try:
            refuse_special(snapshot, snapshot.stat().st_mode)  # a FIFO, a device, a folder
        except FileNotFoundError:
            raise UsageError(f"snapshot file not found: {args.snapshot}") from None
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise UsageError(f"cannot read snapshot file {args.snapshot}: {reason}") from None
        changes["snapshot"] = str(snapshot.resolve())
    if changes:
        settings = dataclasses.replace(settings, verify=dataclasses.replace(verify, **changes))
    if settings.verify.enabled:
        from citewarden.verify.config import source_address_problems

        problems = [*problems, *source_address_problems(settings)]
    return settings, problems


def _exit_status(findings: Sequence[Finding], fail_on: str) -> int:
    threshold = FAIL_ON[fail_on]
    if threshold is None:
        return EXIT_CLEAN
    worst = min((f.effective_severity for f in findings), default=None)
    return EXIT_FINDINGS if worst is not None and worst <= threshold else EXIT_CLEAN


def format_text(findings: Sequence[Finding], ws: Workspace, cwd: Path) -> str:
    lines = []
    for f in findings:
        index = ws.line_index(f.location.path)
        line = column = 1
        if index is not None:
            pos = index.position(f.location.span.start)
            line, column = pos.line + 1, pos.column + 1
        where = visible(display_path(f.location.path, cwd))
        lines.append(
            f"{where}:{line}:{column}: {f.effective_severity.label} {f.code.value} "
            + visible(f.message)
        )
    return "\n".join(lines) + ("\n" if lines else "")


def _summary(findings: Sequence[Finding], files: int) -> str:
    counts: dict[str, int] = {}
    for f in findings:
        label = f.effective_severity.label
        counts[label] = counts.get(label, 0) + 1
    if not findings:
        return f"no findings in {files} file{'s' if files != 1 else ''}"
    parts = [
        f"{counts[label]} {label}{'s' if counts[label] != 1 and label != 'info' else ''}"
        for label in ("error", "warning", "info", "hint")
        if label in counts
    ]
    return f"{', '.join(parts)} in {files} file{'s' if files != 1 else ''}"


def _fixes_shown(corrections: Mapping[str, str], csl_type: str | None) -> str:
    """Corrections as ``name = value; ...`` (as a CSL item of ``csl_type`` gets them:
    ``page = 303-314``), each name and value escaped onto the line."""
    shown: Iterable[tuple[str, str]] = corrections.items()
    if csl_type is not None:
        from citewarden.findings.verdicts import csl_decoding
        from citewarden.fix.csl import csl_correction

        decoding = csl_decoding()
        shown = (csl_correction(name, value, decoding, csl_type) for name, value in shown)
    return "; ".join(f"{visible(name)} = {visible(value)}" for name, value in shown)


def _file_refusal(ws: Workspace, path: Path, found: dict[Path, str | None]) -> str | None:
    """Why --fix rewrites the bibliography ``path`` not at all (None when it may), found
    once a file (kept in ``found``)."""
    from citewarden.fix.run import file_refusal

    if path not in found:
        parsed = ws.bibliography(path)
        found[path] = file_refusal(parsed) if parsed is not None else None
    return found[path]


def _verification_summary(audit: Audit, cwd: Path) -> str:
    """The references' score, risk tiers and statuses, then one line per entry at risk
    or with a correction: tier, key, status, where, and the corrections offered."""
    from citewarden.findings.score import COUNTED, NOT_COUNTED
    from citewarden.model import Tier

    ws = audit.workspace
    summary = audit.summary
    assert summary is not None
    left_out = [
        f"{n} {what}"
        for n, what in ((summary.unverified, "unverified"), (summary.skipped, "skipped"))
        if n
    ]
    lines = [
        f"references: score {summary.score}, tiers "
        + " ".join(f"{t.value}{n}" for t, n in summary.tiers)
        + " ("
        + ", ".join(f"{n} {s}" for s, n in summary.statuses)
        + ")"
        + (f"; not counted: {', '.join(left_out)}" if left_out else "")
    ]
    from citewarden.fix.plan import REPEATED_KEY, compared_key, repeated_keys
    from citewarden.fix.run import written_corrections
    from citewarden.report.progress import padded, width

    repeated: dict[Path, frozenset[str]] = {}
    refusals: dict[Path, str | None] = {}
    rank = {Tier.H: 0, Tier.E: 1, Tier.M: 2, Tier.D: 3}
    # each verdict with its own entry (a key defined twice has two of each)
    shown: list[tuple[Verdict, Entry | None]] = [
        (v, entry) for entry, v in audit.verdict_pairs() if v.tier is not Tier.D or v.corrections
    ]
    # a key, a path and a value come from the files and the records: each on its line
    key_columns = max((width(visible(v.key)) for v, _ in shown), default=0)
    offered = False
    uncounted = any(v.status not in COUNTED for v, _ in shown)
    tier_columns = 3 if uncounted else 1  # "(H)": a tier the counts above leave out
    # the entries the tiers above count first, then the ones they leave out
    for v, entry in sorted(shown, key=lambda p: (p[0].status not in COUNTED, rank[p[0].tier])):
        where = ""
        fixes = ""
        if entry is not None:
            # as --fix writes them: a value it refuses is not offered
            fixes = _fixes_shown(written_corrections(entry, v.corrections), entry.csl_type)
            index = ws.line_index(entry.path)
            line = index.position(entry.span.start).line + 1 if index is not None else 1
            where = f"  {visible(display_path(entry.path, cwd))}:{line}"
            fold = entry.csl_type is None  # BibTeX keys compare lower-cased, CSL ids not
            if fixes and entry.path not in repeated:
                parsed = ws.bibliography(entry.path)
                repeated[entry.path] = repeated_keys(parsed.entries if parsed else (), fold)
            if fixes and compared_key(entry.key, fold) in repeated[entry.path]:
                fixes = ""
                where += f"  not corrected: {REPEATED_KEY}"
            elif fixes and (refusal := _file_refusal(ws, entry.path, refusals)) is not None:
                fixes = ""
                where += f"  not corrected: {visible(refusal)}"
        offered = offered or bool(fixes)
        tier = v.tier.value if v.status in COUNTED else f"({v.tier.value})"
        lines.append(
            f"  {tier:<{tier_columns}}  {padded(visible(v.key), key_columns)}  {v.status.value:<10}{where}"
            + (f"  fix: {fixes}" if fixes else "")
        )
    if uncounted:
        lines.append(f"  ({NOT_COUNTED})")
    if offered:
        lines.append("  (--diff shows the corrections, --fix applies them)")
    return "\n".join(lines) + "\n"


def _progress(quiet: bool) -> Progress:
    """A progress bar on stderr while entries verify (terminal only, not --quiet)."""
    from citewarden.report.progress import Progress as Bar

    @contextmanager
    def bar(total: int) -> Iterator[Callable[[str], None]]:
        with Bar(total, "verifying", quiet=quiet) as shown:
            yield lambda key: shown.advance(note=key)

    return bar


def _warn(notice: str) -> None:
    """A notice about the verification cache (rebuilt, unusable) or a source that stopped
    answering, on stderr (escaped: a path from the environment, a failure's reason)."""
    print(f"citewarden: warning: {visible(notice)}", file=sys.stderr)


def _unencodable(exc: UnicodeEncodeError) -> str:
    """Why the output stopped: a character its encoding has no code for."""
    char = visible(ascii(exc.object[exc.start : exc.end]))
    return (
        f"standard output ({exc.encoding}) cannot write the character {char}; set "
        "PYTHONIOENCODING=utf-8 or give --output FILE"
    )


def _escape_unencodable(stream: TextIO) -> None:
    """Let ``stream`` write a character its encoding lacks as a backslash escape (as
    standard error does) rather than stop midway (a cp1252 console or pipe)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


def run_check(args: argparse.Namespace, cwd: Path | None = None) -> int:
    cwd = normalize_path(cwd or Path.cwd())
    _escape_unencodable(sys.stdout)
    if args.output == "-" or (args.output and _names_standard_output(args.output)):
        args.output = None  # standard output, as --files-from - reads standard input
    given = list(args.paths)
    args.paths = _expand_inputs(args, cwd)
    for raw in args.paths:
        _refuse_unnamable(raw, cwd, "check")
    if args.output is not None:
        _refuse_unnamable(args.output, cwd, "write")
        if not args.output:
            raise UsageError("--output names no file (an empty path)")
        if args.output.endswith(("/", os.sep)):  # (it wrote the report as a file 'out')
            raise UsageError(f"--output {args.output} names a folder; give a file")
        try:
            args.output = expanded_output(args.output)
        except ValueError as exc:
            raise UsageError(f"--output {visible(args.output)}: {visible(str(exc))}") from None
        if (missing := missing_folder(Path(args.output), cwd)) is not None:
            raise UsageError(f"--output {visible(args.output)}: {visible(missing)}")
    settings, problems = _load_settings(args, cwd)
    if not args.quiet:
        for problem in problems:
            print(f"citewarden: warning: {visible(str(problem))}", file=sys.stderr)
    _check_fix_options(args, settings)
    if args.output is not None:
        _refuse_read_file_as_output(args.output, _files_read(given, args, settings, cwd), cwd)
        with suppress(OSError):  # (a link refused before the run, not after it; else at the write)
            _output_way(Path(args.output))
    try:
        audit = run_audit(
            args.paths,
            settings,
            cwd=cwd,
            verify=not args.no_verify,
            progress=_progress(args.quiet),
            notify=None if args.quiet else _warn,
        )
    except InputError as exc:
        raise UsageError(str(exc)) from None
    if args.output is not None:
        _refuse_input_as_output(args.output, audit, cwd)
    output = _render(args.format, audit, cwd, args.paths)
    # a key that reached a record or a message (in JSON and SARIF: in string values only);
    # a piece of the HTML report is a section or a row, which holds a value whole
    json_text = args.format in ("json", "sarif")
    masked = (mask_registered(piece, json=json_text) for piece in output)
    # with --diff, standard output holds the diff alone (> fix.patch, | git apply): the text
    # report goes to standard error unless --output names its file
    _write(masked, args.output, args.format != "text", aside=args.diff)
    verified = audit.verdict_pairs() if audit.verdicts is not None else None
    if (args.fix or args.diff) and _fix(verified, args, cwd):
        return EXIT_USAGE
    ordered = audit.ordered()
    if args.format == "text" and not args.quiet:
        checked = sum(
            1
            for p in audit.findings
            if is_document(p) or is_bibliography(p) or is_metadata(p) or p in audit.scope
        )
        # beside a report on standard output, on standard error; to standard error too when
        # standard output is closed (>&-) or holds the diff alone
        aside = args.output is None or sys.stdout is None or args.diff
        stream = sys.stderr if aside else sys.stdout
        if len(args.paths) > 1:  # batch input: one summary row per file
            stream.write(visible_lines(_batch_table(audit, cwd)))
        if audit.verdicts:
            stream.write(visible_lines(_verification_summary(audit, cwd)))
        print(_summary(ordered, checked), file=stream)
    return _exit_status(ordered, args.fail_on)


# --- batch input and --fix / --diff ------------------------------------------------------


def _expand_inputs(args: argparse.Namespace, cwd: Path) -> list[str]:
    """PATH arguments with ``@list`` files and ``--files-from`` expanded."""
    from citewarden.batch import ListFileError, expand_inputs

    if not args.paths and not args.files_from:
        raise UsageError("nothing to check: give a PATH or --files-from FILE")
    if "" in args.files_from:  # (it read the working directory as the list file)
        raise UsageError("--files-from names no file (an empty path)")
    try:
        paths = expand_inputs(args.paths, args.files_from, cwd=cwd)
    except ListFileError as exc:
        raise UsageError(str(exc)) from None
    if not paths:
        raise UsageError("no paths to check (the list files are empty)")
    return paths


def _refuse_unnamable(raw: str, cwd: Path, doing: str) -> None:
    """A path the system cannot even look up (a name or a path too long) is a usage error,
    said before anything is read, with the head of the name: it ended the run in a
    traceback wherever it was first looked at."""
    try:
        os.lstat(cwd / raw)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            shown = raw if len(raw) <= 80 else f"{raw[:80]}... ({len(raw):,} characters)"
            raise UsageError(f"cannot {doing} {shown}: {exc.strerror}") from None


def _check_fix_options(args: argparse.Namespace, settings: Settings) -> None:
    """--fix and --diff are alternatives that need verification (refused before any
    report is written); --diff shares standard output with the report, so a machine format
    needs --output."""
    if args.fix and args.diff:
        raise UsageError("--fix and --diff are alternatives: --diff shows what --fix would write")
    option = "--fix" if args.fix else "--diff" if args.diff else None
    if option is not None and not settings.verify.enabled:
        why = "drop --no-verify" if args.no_verify else "the setting verify.enabled is false"
        raise UsageError(f"{option} needs verification ({why}); nothing is checked or changed")
    if args.diff and args.output is None and args.format != "text":
        raise UsageError(
            f"--diff prints to standard output; give --output for the {args.format} report"
        )


def _batch_table(audit: Audit, cwd: Path) -> str:
    from citewarden.report.html.build import file_summaries, summary_table

    rows = file_summaries(audit.workspace, audit.findings, audit.entry_verdicts(), audit.entries)
    return summary_table(rows, lambda p: visible(display_path(p, cwd)))


def _fix(
    verified: Sequence[tuple[Entry, Verdict]] | None,
    args: argparse.Namespace,
    cwd: Path,
) -> int:
    """Run --fix / --diff on each verified entry (with its verdict); returns the number of
    files that could not be fixed."""
    from citewarden.findings.verdicts import csl_decoding
    from citewarden.fix.run import run_fix
    from citewarden.report.progress import stream_is_terminal

    if verified is None:  # nothing to verify (verification off is refused beforehand)
        return 0
    if args.diff and sys.stdout is None:  # started with it closed (>&-)
        raise UsageError("standard output is closed; the diff is not shown")
    try:
        with temporary_files_removed_on_signals():
            return run_fix(
                verified,
                diff=args.diff,
                out=sys.stdout or sys.stderr,  # (closed with --fix: nothing is written to it)
                err=sys.stderr,
                display=lambda p: display_path(p, cwd),
                decoding=csl_decoding(),
                terminal=args.diff and stream_is_terminal(sys.stdout),
            )
    except BrokenPipeError:  # the reader went away (| head): it wanted no more
        raise
    except OSError as exc:  # (a file run_fix cannot read or write is its own message)
        raise UsageError(f"cannot write the diff to standard output: {exc.strerror}") from None


def _render(fmt: str, audit: Audit, cwd: Path, inputs: Sequence[str]) -> Iterable[str]:
    """The report in pieces: one for text; a section or a row each for HTML, and about
    64 KB each for JSON and SARIF, whose report of many entries is never held whole (nor,
    for SARIF, its log: its results are made as they are written)."""
    if fmt == "text":
        return [format_text(audit.ordered(), audit.workspace, cwd)]
    if fmt == "sarif":
        from citewarden.report.sarif import sarif_of

        log = sarif_of(audit, root=cwd, version=__version__, streamed=True)
        return json_pieces(log, ensure_ascii=True)
    if fmt == "html":
        from citewarden.report.html.build import html_chunks_of

        return html_chunks_of(audit, inputs=inputs, root=cwd)
    return report_pieces(audit, cwd)


def _files_read(
    given: Sequence[str], args: argparse.Namespace, settings: Settings, cwd: Path
) -> list[Path]:
    """The files a run reads besides its projects': the settings file, the list files
    (``@list``, ``--files-from``) and the snapshot."""
    if args.config:
        read = [cwd / args.config]
    else:
        first = normalize_path(cwd / args.paths[0])
        folder = find_config_dir(first if first.is_dir() else first.parent)
        read = [folder / CONFIG_FILE] if folder is not None else []
    read += [cwd / raw[1:] for raw in given if raw.startswith("@") and len(raw) > 1]
    read += [cwd / name for name in args.files_from or () if name != "-"]
    if settings.verify.snapshot:
        read.append(cwd / settings.verify.snapshot)
    return read


def _refuse_read_file_as_output(target: str, read: Sequence[Path], cwd: Path) -> None:
    """--output naming a file the run reads (``-o .citewarden.toml``, a list file, the
    snapshot) would replace it with the report: refused, before anything is checked."""
    path = cwd / target
    for file in read:
        if normalize_path(path) == normalize_path(file) or _one_file(path, file):
            raise UsageError(
                f"--output {target} is a file this run reads; the report would replace it "
                "(give another file)"
            )


def _one_file(a: Path, b: Path) -> bool:
    """Are ``a`` and ``b`` one file under two names (a link)?"""
    try:
        return a.samefile(b)
    except (OSError, ValueError):
        return False


def _refuse_input_as_output(target: str, audit: Audit, cwd: Path) -> None:
    """--output naming a file of the checked projects (a slip of ``-o refs.bib``) would
    replace it with the report: refused, before anything is written."""
    if audit.replaced_by(cwd / target):
        raise UsageError(
            f"--output {target} is a file of the checked project; the report would replace "
            "it (give another file)"
        )


def _write(
    output: Iterable[str], target: str | None, utf8: bool = False, aside: bool = False
) -> None:
    """Write the report's pieces as they come to ``target`` (UTF-8), or to standard
    output (standard error, ``aside``: it holds the diff): as UTF-8 bytes with ``utf8``
    (JSON, SARIF and HTML are UTF-8 whatever the terminal's encoding), else as text in its
    encoding."""
    if target is None:
        if sys.stdout is None and not aside:  # started with it closed (>&-): Python gives None
            raise UsageError("standard output is closed; the report is not written (give --output)")
        out: TextIO = sys.stderr if aside else sys.stdout
        where = "standard error" if aside else "standard output"
        binary = getattr(out, "buffer", None) if utf8 else None
        try:
            if binary is None:
                for piece in output:
                    out.write(piece)
            else:
                out.flush()
                for piece in output:
                    binary.write(piece.encode("utf-8"))
                binary.flush()
            out.flush()
        except BrokenPipeError:  # the reader went away (| head): it wanted no more
            raise
        except OSError as exc:  # a full disk, an I/O error: the report is not all there
            raise UsageError(f"cannot write the report to {where}: {exc.strerror}") from None
        return
    try:
        with temporary_files_removed_on_signals():
            _replace_file(Path(target), (piece.encode("utf-8") for piece in output))
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from None


def _replace_file(path: Path, data: Iterable[bytes]) -> None:
    """Write ``data``'s pieces as ``path`` whole or not at all: a temporary file beside it,
    renamed over it, so that a run that fails keeps the earlier report; or as it is
    (:func:`_output_way`)."""
    as_is, regular = _output_way(path)
    if as_is:
        _write_as_is(path, data, append=regular)
    else:
        replace_whole(path, data)


def _output_way(path: Path) -> tuple[bool, bool]:
    """Whether the report is written into ``path`` as it is (a FIFO, a device, a name the
    system gives an open file: ``/dev/fd/3``), and whether ``path`` is a regular file (or
    none).  A symbolic link is refused (but for those names), as the backups of --fix never
    write through one: a link planted where a report goes (a cloned repository) would have
    the report replace one of the user's files, or write over a disk (``/dev/sda``)."""
    linked, mode = False, stat.S_IFREG
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
        mode = path.stat().st_mode
    except FileNotFoundError:  # no file, or a link to none
        pass
    system, regular = _system_name(path), stat.S_ISREG(mode)
    if linked and not system:
        raise UsageError(
            f"--output {path} is a symbolic link; the report is not written through it "
            "(give the file it names, or remove the link)"
        )
    if stat.S_ISSOCK(mode):  # (opening one fails: 'No such device or address')
        raise UsageError(f"--output {path} is a socket; the report is not written")
    return system or not regular, regular


#: The names the system gives an open file: /dev/stdout, /dev/fd/3, /proc/self/fd/1 ...
_OPEN_FILE_NAME = re.compile(
    r"/dev/std(?:in|out|err)|/(?:dev|proc/(?:self|thread-self|\d+))/fd/\d+"
)


def _system_name(path: Path) -> bool:
    """Whether ``path`` is a name the system gives an open file (:data:`_OPEN_FILE_NAME`): a
    link written through as it is, never replaced by a new file (a file of /dev/shm is
    written as any other)."""
    return _OPEN_FILE_NAME.fullmatch(os.path.abspath(path)) is not None


def _write_as_is(path: Path, data: Iterable[bytes], *, append: bool) -> None:
    """Write ``data`` into the existing ``path`` itself (after what a regular file holds
    with ``append``: one a shell opened for it, ``3>>log``), never creating it.  A FIFO
    no process reads is refused at once, where the run waited for a reader for ever."""
    flags = os.O_WRONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | (os.O_APPEND if append else 0))
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        raise UsageError(
            f"--output {path} is a named pipe (FIFO) that no process reads; the report is "
            "not written"
        ) from None
    os.set_blocking(fd, True)
    with os.fdopen(fd, "wb") as out:
        for piece in data:
            out.write(piece)


def _names_standard_output(raw: str) -> bool:
    """Whether the file ``raw`` is standard output's (``-o /dev/stdout``): the report is
    then written to standard output itself, where a second opening of its file wrote the
    report where the summary then wrote over it (or, through a rename, took /dev/stdout)."""
    try:
        return os.path.samestat(os.stat(raw), os.fstat(sys.stdout.fileno()))
    except (OSError, ValueError, AttributeError):  # no file, no descriptor (a test's stream)
        return False


ADD_EXIT_STATUS = """\
exit status:
  0  every identifier added, or already present in the file (then nothing is written
     for it: "ID: already present as KEY"); of a title several works have, none with
     an identifier to choose it by, the first is added with a warning
  1  some identifier not found or not looked up, or a title that several works
     have (they are listed: give the DOI, arXiv id, PMID or ISBN of the one meant);
     the rest are added
  2  a usage or file error
  130  interrupted (Ctrl-C), or 143 and 129 for SIGTERM and SIGHUP: it ends by that
       signal; the file holds all or none of the entries
  141  the reader of standard output went away (| head)
"""


def _add_parser(sub: argparse._SubParsersAction[_Parser]) -> None:
    """Register ``add`` on the ``citewarden`` argument parser."""
    add = sub.add_parser(
        "add",
        help="add bibliography entries for DOIs, arXiv ids, ISBNs, PMIDs or titles",
        description="Look each identifier up and add its entry to the bibliography.",
        epilog=ADD_EXIT_STATUS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add.add_argument("ids", nargs="+", metavar="ID", help="DOI, arXiv id, ISBN, PMID or title")
    add.add_argument("--bib", required=True, metavar="FILE", help=".bib, .json or .yaml file")
    add.add_argument("--key", action="append", metavar="KEY", help="key of each entry, in order")
    add.add_argument("--offline", action="store_true", help="answer from the cache only")
    add.add_argument("--dry-run", action="store_true", help="print the entries, write nothing")
