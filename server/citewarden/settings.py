"""One typed settings schema for the CLI, the language server and the editor clients.

Settings come from (lowest to highest precedence) defaults, ``.citewarden.toml`` at the
workspace root (for the command line, the project's: :func:`find_config_dir`), LSP initializationOptions and ``workspace/configuration`` (section
``citewarden``), and command-line options.  :func:`load_settings` never raises on bad input:
each invalid value falls back to its default and is reported as a :class:`SettingsProblem`.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatch, translate
from functools import lru_cache
from pathlib import Path
from typing import Any

from citewarden.files import DEFAULT_MAX_FILE_MB, FileTooLarge, megabytes, read_regular
from citewarden.model import Code, Severity
from citewarden.pandoc_version import parse_version

SEVERITY_NAMES: dict[str, Severity | None] = {
    "off": None,
    "hint": Severity.HINT,
    "information": Severity.INFORMATION,
    "info": Severity.INFORMATION,
    "warning": Severity.WARNING,
    "error": Severity.ERROR,
}

SOURCE_NAMES = (
    "crossref",
    "doi",
    "openalex",
    "semanticscholar",
    "datacite",
    "arxiv",
    "pubmed",
    "dblp",
    "openlibrary",
    "doaj",
)

CONFIG_FILE = ".citewarden.toml"
#: The metadata key of a field of the settings that is no setting (``{SETTING: False}``):
#: the settings schema leaves it out.
SETTING = "setting"
#: The largest settings file read.
MAX_CONFIG_BYTES = 1 << 20

#: Default severity of verification findings by the entry's risk tier.
TIER_SEVERITY: Mapping[str, str] = {"H": "error", "E": "warning", "M": "warning", "D": "off"}


@dataclass(frozen=True, slots=True)
class SettingsProblem:
    """An invalid setting: where it came from, which key, and why."""

    origin: str
    key: str
    message: str
    #: the line of the settings file that sets it (1-based), when known
    line: int | None = None

    def __str__(self) -> str:
        where = self.origin if self.line is None else f"{self.origin}:{self.line}"
        return f"{where}: setting '{self.key}': {self.message}"


#: A request's timeout in seconds (``verify.timeout``).
DEFAULT_TIMEOUT = 20.0
#: Requests to a source that fail in a row before it is no longer asked, and seconds until
#: one request asks it again (``verify.breaker_failures``, ``verify.breaker_cooldown``).
DEFAULT_BREAKER_FAILURES = 5
DEFAULT_BREAKER_COOLDOWN = 60.0


@dataclass(frozen=True, slots=True)
class VerifySettings:
    enabled: bool = True
    on_save: bool = True
    offline: bool = False
    sources: tuple[str, ...] = SOURCE_NAMES
    snapshot: str | None = None
    mailto: str | None = None
    #: API keys: never logged, never shown in a repr.
    openalex_api_key: str | None = field(default=None, repr=False)
    s2_api_key: str | None = field(default=None, repr=False)
    ncbi_api_key: str | None = field(default=None, repr=False)
    concurrency: int = 8
    timeout: float = DEFAULT_TIMEOUT
    #: Seconds every request made for one entry may take in all (time on the wire and retry
    #: waits); ``None``: ``ENTRY_BUDGET_FACTOR`` (3) times ``timeout``.
    entry_budget: float | None = None
    #: Requests to a source that fail in a row (after their retries) before it is no longer
    #: asked, and seconds until one request asks it again (the breaker's, see
    #: :mod:`citewarden.verify.breaker`; two timeouts one after the other cut it off too).
    breaker_failures: int = DEFAULT_BREAKER_FAILURES
    breaker_cooldown: float = DEFAULT_BREAKER_COOLDOWN
    #: Base-URL overrides by source name (a mirror or a local replay server).
    base_urls: Mapping[str, str] = field(default_factory=dict)
    #: Keys of entries never to verify.
    ignore_entries: tuple[str, ...] = ()
    #: Severity of an entry's verification findings by its risk tier (H, E, M, D); a
    #: severity name or "off".  Notes (hints, information) keep their own severity.
    tier_severity: Mapping[str, str] = field(default_factory=lambda: dict(TIER_SEVERITY))
    #: Also mark every citation of an H-tier or retracted entry in .tex/.md documents.
    citation_sites: bool = True


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """The optional citation judge: an OpenAI-compatible chat-completions endpoint.  Off
    unless both ``url`` and ``model`` are set (here or in the ``CITEWARDEN_JUDGE_*``
    environment variables); nothing is sent anywhere otherwise."""

    #: API base, e.g. ``http://127.0.0.1:8080/v1`` (``/chat/completions`` is appended).
    url: str | None = None
    model: str | None = None
    #: Sent as a bearer token; never logged (nor shown in a repr).
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 30.0


#: Longest per-entry budget accepted (seconds).
MAX_ENTRY_BUDGET = 3600.0
#: Longest judge timeout accepted (seconds).
MAX_JUDGE_TIMEOUT = 600.0
#: Longest deadline of one request accepted (seconds): ``inf`` would wait for ever.
MAX_TIMEOUT = 600.0
#: Largest ``max_file_mb`` accepted: a file of this size already takes gigabytes to check.
MAX_FILE_MB = 1024.0


@dataclass(frozen=True, slots=True)
class Bounds:
    """The range of a numeric setting, both ends included."""

    low: float
    high: float
    #: What the number counts, as the problem names it ("seconds").
    unit: str
    whole: bool = False

    def expected(self) -> str:
        return f"expected {self.unit} from {self.low:g} to {self.high:g}"


#: Bounds of every numeric setting, by dotted path; the editor schema shows the same.
NUMBER_BOUNDS: Mapping[str, Bounds] = {
    "debounce_ms": Bounds(0, 10000, "milliseconds", whole=True),
    "max_file_mb": Bounds(0.001, MAX_FILE_MB, "megabytes"),
    "max_workspace_files": Bounds(1, 1_000_000, "files", whole=True),
    "verify.concurrency": Bounds(1, 64, "a whole number", whole=True),
    "verify.timeout": Bounds(0.1, MAX_TIMEOUT, "seconds"),
    "verify.entry_budget": Bounds(0.1, MAX_ENTRY_BUDGET, "seconds"),
    "verify.breaker_failures": Bounds(1, 1000, "a whole number", whole=True),
    "verify.breaker_cooldown": Bounds(1, 86400, "seconds"),
    "judge.timeout": Bounds(0.1, MAX_JUDGE_TIMEOUT, "seconds"),
}


def _number(path: str, value: Any, suffix: str = "") -> Any:
    """``value`` as the setting ``path`` takes it (a float unless whole); ValueError outside
    its :data:`NUMBER_BOUNDS` (nan and inf included) or when it is no number."""
    bounds = NUMBER_BOUNDS[path]
    kinds = int if bounds.whole else int | float
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise ValueError(bounds.expected() + suffix)
    if not bounds.low <= value <= bounds.high:  # also refuses nan
        raise ValueError(bounds.expected() + suffix)
    return value if bounds.whole else float(value)


@dataclass(frozen=True, slots=True)
class Settings:
    #: Per-code severity overrides; ``None`` turns a code off.
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    #: Extra LaTeX citation command names (without backslash), e.g. ``("mycite",)``.
    citation_commands: tuple[str, ...] = ()
    #: Glob patterns of files to ignore, relative to :attr:`ignore_base` (or matching a
    #: file's name alone).
    ignore: tuple[str, ...] = ()
    #: The folder the ignore patterns are relative to: that of the settings file that set
    #: them; None (the editor's own settings): each workspace folder (:func:`is_ignored`).
    ignore_base: Path | None = field(default=None, metadata={SETTING: False})
    #: Debounce before re-checking a changed document, in milliseconds.
    debounce_ms: int = 300
    #: Largest input file read, in megabytes; a larger one is reported, not read.
    max_file_mb: float = DEFAULT_MAX_FILE_MB
    #: Most files of the workspace folders the language server indexes.
    max_workspace_files: int = 10_000
    #: The version of pandoc that reads Markdown projects (``"3.6"``); empty: the one
    #: installed here (Quarto's for a Quarto project), as ``--version`` says.
    pandoc_version: str = ""
    verify: VerifySettings = field(default_factory=VerifySettings)
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    #: Where each address setting came from (the origin of the overlay that set it last: a
    #: file's path, ``initializationOptions`` ...), by dotted key (``verify.base_urls.crossref``,
    #: ``judge.url``), for the messages about those addresses.  Not part of the settings' value.
    origins: Mapping[str, str] = field(
        default_factory=dict, compare=False, repr=False, metadata={SETTING: False}
    )

    #: The settings file's line that set each address setting of :attr:`origins`, with that
    #: file (:func:`with_origin_lines`).  Not part of the settings' value.
    origin_lines: Mapping[str, tuple[str, int]] = field(
        default_factory=dict, compare=False, repr=False, metadata={SETTING: False}
    )

    def origin_of(self, key: str, default: str = "settings") -> str:
        """Where the address setting ``key`` came from (``default`` when no overlay set it)."""
        return self.origins.get(key, default)

    def problem(self, key: str, message: str) -> SettingsProblem:
        """A problem of the address setting ``key``, named with where it came from (the
        file and its line, for a settings file)."""
        origin = self.origin_of(key)
        file, line = self.origin_lines.get(key, (None, None))
        return SettingsProblem(origin, key, message, line if file == origin else None)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mb * (1 << 20))

    def severity_of(self, code: Code, default: Severity) -> Severity | None:
        """The configured severity for ``code`` (``None`` = off)."""
        if code.value in self.severity:
            return self.severity[code.value]
        return default


def _str_items(
    value: Any, key: str, origin: str, problems: list[SettingsProblem]
) -> tuple[str, ...]:
    """The strings of the list ``value`` (or ``value`` alone); each other item is a problem
    and the strings are kept, as every other setting's valid values are (ValueError when
    ``value`` is no string and no list)."""
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list | tuple):
        raise ValueError("expected a string or a list of strings")
    for n, item in enumerate(value, 1):
        if not isinstance(item, str):
            problems.append(
                SettingsProblem(origin, key, f"item {n} is not a string; the others are used")
            )
    return tuple(v for v in value if isinstance(v, str))


#: Why a mailto or a key is refused; the value is never shown (a key is a secret).
HEADER_VALUE_PROBLEM = (
    "expected printable ASCII characters without spaces, line breaks or control characters "
    "(the value is not shown)"
)


def header_value_problem(value: str) -> str | None:
    """Why ``value`` cannot go into a request header or URL as an e-mail address or API key
    (None when it can): any character but printable ASCII failed every request (an accent,
    a non-breaking space pasted with a key) or added a header (a line break)."""
    return None if all("!" <= c <= "~" for c in value) else HEADER_VALUE_PROBLEM


def _header_value(value: Any) -> str | None:
    """A mailto or key setting, stripped (None when empty); ValueError when it is no string
    or fails :func:`header_value_problem`."""
    if value is not None and not isinstance(value, str):
        raise ValueError("expected a string")
    text = (value or "").strip()
    if problem := header_value_problem(text):
        raise ValueError(problem)
    return text or None


def _merge_verify(
    base: VerifySettings,
    raw: Mapping[str, Any],
    origin: str,
    problems: list[SettingsProblem],
    origins: dict[str, str],
    folder: Path | None = None,
) -> VerifySettings:
    """``raw`` (the ``verify`` table) over ``base``; ``folder``: that of the settings file
    it was read from, the base of a relative ``snapshot`` path (None: the caller's)."""
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        path = f"verify.{key}"
        try:
            if name in {"enabled", "on_save", "offline", "citation_sites"}:
                if not isinstance(value, bool):
                    raise ValueError("expected true or false")
                changes[name] = value
            elif name == "sources":
                names = _str_items(value, path, origin, problems)
                unknown = [n for n in names if n not in SOURCE_NAMES]
                if unknown:
                    problems.append(
                        SettingsProblem(
                            origin,
                            path,
                            f"unknown source(s) {', '.join(unknown)}; known: "
                            f"{', '.join(SOURCE_NAMES)}; the others are used",
                        )
                    )
                known = tuple(n for n in names if n in SOURCE_NAMES)
                if known or not names:  # none known: the sources stay as they were
                    changes[name] = known
            elif name == "snapshot":
                if value is not None and not isinstance(value, str):
                    raise ValueError("expected a string")
                if value and folder is not None and not Path(value).expanduser().is_absolute():
                    value = str(folder / value)  # the settings file's, wherever it is read from
                changes[name] = value or None
            elif name in {"mailto", "openalex_api_key", "s2_api_key", "ncbi_api_key"}:
                changes[name] = _header_value(value)
            elif name in {"concurrency", "timeout", "breaker_failures", "breaker_cooldown"}:
                changes[name] = _number(f"verify.{name}", value)
            elif name == "entry_budget":
                changes[name] = (
                    None
                    if value is None
                    else _number(
                        "verify.entry_budget", value, " (or nothing: three times verify.timeout)"
                    )
                )
            elif name == "base_urls":
                if not isinstance(value, Mapping):
                    raise ValueError("expected a table of source name -> URL")
                urls = _base_urls(value, f"{path}.", origin, problems)
                changes[name] = {**base.base_urls, **urls}
                origins.update({f"verify.base_urls.{source}": origin for source in urls})
            elif name == "ignore_entries":
                changes[name] = _str_items(value, path, origin, problems)
            elif name == "tier_severity":
                if not isinstance(value, Mapping):
                    raise ValueError("expected a table of tier (H, E, M, D) -> severity")
                merged = dict(base.tier_severity)
                for tier, level in value.items():
                    if tier not in TIER_SEVERITY:
                        problems.append(SettingsProblem(origin, f"{path}.{tier}", "unknown tier"))
                    elif not isinstance(level, str) or level.lower() not in SEVERITY_NAMES:
                        problems.append(
                            SettingsProblem(
                                origin,
                                f"{path}.{tier}",
                                "expected one of off, hint, information, warning, error",
                            )
                        )
                    else:
                        merged[tier] = level.lower()
                changes[name] = merged
            else:
                raise ValueError("unknown setting")
        except ValueError as exc:
            problems.append(SettingsProblem(origin, path, str(exc)))
    return dataclasses.replace(base, **changes)


#: The longest address a setting may give.
MAX_URL = 2048


def _base_urls(
    raw: Mapping[str, Any], prefix: str, origin: str, problems: list[SettingsProblem]
) -> dict[str, str]:
    """The valid source addresses of the table ``raw``; each invalid one is a problem of
    its own key (the others are kept, as every other table's valid values are)."""
    urls: dict[str, str] = {}
    for source, url in raw.items():
        if source not in SOURCE_NAMES:
            why: str | None = f"unknown source; known: {', '.join(SOURCE_NAMES)}"
        elif not isinstance(url, str):
            why = "expected a URL string"
        else:
            why = _url_setting_problem(url.strip()) if url.strip() else None
        if why is None:
            urls[source] = url
        else:
            problems.append(SettingsProblem(origin, f"{prefix}{source}", why))
    return urls


def http_url_problem(url: str) -> str | None:
    """What makes ``url`` no address to send requests to, said of it (``"names no host"``),
    or None: the one rule for a source's or the judge's address, from a settings file or
    the environment.  An address is an http:// or https:// URL with a host and a valid port,
    at most ``MAX_URL`` characters, with no space, no control character (C0 or C1) and no
    lone surrogate (a byte that was not UTF-8)."""
    if len(url) > MAX_URL:
        return f"is longer than {MAX_URL} characters"
    if any(0xD800 <= ord(c) <= 0xDFFF for c in url):
        return "holds a byte that is not UTF-8"
    if any(c.isspace() or ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in url):
        return "holds a space or a control character"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not one
    except ValueError:
        return "cannot be read as a URL"
    if parts.scheme.lower() not in ("http", "https"):
        return "is no http or https address"
    if not parts.hostname:
        return "names no host"
    return None


def _url_setting_problem(url: str) -> str | None:
    """The settings problem of the address ``url`` (:func:`http_url_problem`), or None."""
    problem = http_url_problem(url)
    return f"expected an http:// or https:// address; this one {problem}" if problem else None


def _merge_judge(
    base: JudgeSettings,
    raw: Mapping[str, Any],
    origin: str,
    problems: list[SettingsProblem],
    origins: dict[str, str],
) -> JudgeSettings:
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        name = key.replace("-", "_")
        try:
            if name == "url":
                if value is not None and not isinstance(value, str):
                    raise ValueError("expected a string")
                url = (value or "").strip()
                if url and (problem := _url_setting_problem(url)):
                    raise ValueError(problem)
                changes[name] = url or None
                origins["judge.url"] = origin
            elif name == "model":
                if value is not None and not isinstance(value, str):
                    raise ValueError("expected a string")
                changes[name] = (value or "").strip() or None
            elif name == "api_key":
                changes[name] = _header_value(value)
            elif name == "timeout":
                changes[name] = _number("judge.timeout", value)
            else:
                raise ValueError("unknown setting")
        except ValueError as exc:
            problems.append(SettingsProblem(origin, f"judge.{key}", str(exc)))
    return dataclasses.replace(base, **changes)


def merge_settings(
    base: Settings,
    raw: Mapping[str, Any] | None,
    origin: str,
    folder: Path | None = None,
) -> tuple[Settings, list[SettingsProblem]]:
    """Overlay ``raw`` (a parsed TOML table or LSP settings object) on ``base``.

    ``folder``: that of the settings file ``raw`` was read from, the base of the ignore
    patterns it sets (None: the workspace folders).  Invalid values keep ``base``'s value
    and are reported; unknown keys are reported too.
    """
    problems: list[SettingsProblem] = []
    if raw is None:
        return base, problems
    if not isinstance(raw, Mapping):
        return base, [SettingsProblem(origin, "citewarden", "expected an object of settings")]
    changes: dict[str, Any] = {}
    origins = dict(base.origins)
    codes = {c.value for c in Code}
    for key, value in nested(raw).items():
        name = key.replace("-", "_")
        try:
            if name == "severity":
                if not isinstance(value, Mapping):
                    raise ValueError("expected a table of code -> severity")
                merged = dict(base.severity)
                for code, level in value.items():
                    if code not in codes:
                        problems.append(
                            SettingsProblem(origin, f"severity.{code}", "unknown finding code")
                        )
                        continue
                    if not isinstance(level, str) or level.lower() not in SEVERITY_NAMES:
                        problems.append(
                            SettingsProblem(
                                origin,
                                f"severity.{code}",
                                "expected one of off, hint, information, warning, error",
                            )
                        )
                        continue
                    merged[code] = SEVERITY_NAMES[level.lower()]
                changes["severity"] = merged
            elif name == "citation_commands":
                cmds = tuple(c.lstrip("\\") for c in _str_items(value, key, origin, problems))
                bad = [c for c in cmds if not c.isalpha()]
                if bad:
                    problems.append(
                        SettingsProblem(
                            origin,
                            key,
                            f"not a command name: {', '.join(bad)}; the others are used",
                        )
                    )
                changes[name] = tuple(c for c in cmds if c.isalpha())
            elif name == "ignore":
                changes[name] = _str_items(value, key, origin, problems)
                if len(changes[name]) > MAX_IGNORE:
                    message = (
                        f"{len(changes[name])} patterns, more than {MAX_IGNORE}; the first "
                        f"{MAX_IGNORE} are used"
                    )
                    problems.append(SettingsProblem(origin, key, message))
                    changes[name] = changes[name][:MAX_IGNORE]
                changes["ignore_base"] = folder
                for pattern in changes[name]:
                    if many_any_folders(pattern):
                        message = (
                            f"pattern {pattern[:80]!r} has more than {MAX_ANY_FOLDERS} '**/' "
                            f"apart; the first {MAX_ANY_FOLDERS} may stand for no folder, the "
                            "others stand for one folder or more"
                        )
                        problems.append(SettingsProblem(origin, key, message))
            elif name == "pandoc_version":
                if not isinstance(value, str) or (
                    value.strip() and parse_version(value.strip()) is None
                ):
                    raise ValueError(
                        'expected a version such as "3.6", or "" for the installed one'
                    )
                changes[name] = value.strip()
            elif name == "debounce_ms" or name == "debounce":
                changes["debounce_ms"] = _number("debounce_ms", value)
            elif name == "max_file_mb" or name == "max_workspace_files":
                changes[name] = _number(name, value)
            elif name == "verify":
                if not isinstance(value, Mapping):
                    raise ValueError("expected a table")
                changes["verify"] = _merge_verify(
                    base.verify, value, origin, problems, origins, folder
                )
            elif name == "judge":
                if not isinstance(value, Mapping):
                    raise ValueError("expected a table")
                changes["judge"] = _merge_judge(base.judge, value, origin, problems, origins)
            else:
                raise ValueError("unknown setting")
        except ValueError as exc:
            problems.append(SettingsProblem(origin, key, str(exc)))
    return dataclasses.replace(base, **changes, origins=origins), problems


def nested(raw: Mapping[str, Any]) -> dict[str, Any]:
    """``raw`` with each dotted key (``"verify.timeout"``, as VS Code names a setting, a
    quoted TOML key) read as the keys it names (``verify``, then ``timeout``), where it was
    an unknown setting; no setting's own keys hold a dot.  A dotted key whose part is empty,
    or names a value that is no table, is left as it is (and reported as unknown)."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if isinstance(value, Mapping):
            value = nested(value)
        parts = key.split(".") if isinstance(key, str) else [key]
        if len(parts) == 1 or not all(parts):
            _put(out, key, value)
            continue
        table: dict[str, Any] | None = out
        for part in parts[:-1]:
            inner = table.setdefault(part, {}) if table is not None else None
            table = inner if isinstance(inner, dict) else None
        if table is None:
            _put(out, key, value)
        else:
            _put(table, parts[-1], value)
    return out


def _put(table: dict[str, Any], key: str, value: Any) -> None:
    """``table[key] = value``, a table merged into the one already there."""
    held = table.get(key)
    if isinstance(held, dict) and isinstance(value, Mapping):
        table[key] = {**held, **value}
    else:
        table[key] = value


class ConfigSyntaxError(ValueError):
    """A settings file that is not TOML, not UTF-8, or nested deeper than the reader goes."""


def config_text(data: bytes) -> str:
    """The text of the settings file ``data``: UTF-8, a byte order mark before it dropped
    (editors on Windows write one; TOML readers refuse it as an invalid statement).
    :class:`UnicodeDecodeError` when it is not UTF-8."""
    return data.decode("utf-8-sig")


def parse_config(data: bytes) -> dict[str, Any]:
    """The TOML document ``data`` (:class:`ConfigSyntaxError` when it cannot be read:
    ``tomllib`` recurses, so 5 000 nested arrays were a RecursionError, and reads a
    5 000-digit integer with ``int()``, which refuses it)."""
    try:
        text = config_text(data)
    except UnicodeDecodeError as exc:
        raise ConfigSyntaxError(_not_utf8(exc)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigSyntaxError(_lone_cr(text, str(exc)) or str(exc)) from None
    except RecursionError:
        raise ConfigSyntaxError("nested too deep") from None
    except ValueError:  # int() of an integer of more digits than it reads
        raise ConfigSyntaxError("an integer of more than 4300 digits") from None


def _not_utf8(exc: UnicodeDecodeError) -> str:
    """Where a settings file stops being UTF-8, said as TOML's errors say where (its line
    and column), where Python's words gave the byte's offset in the file."""
    data, start = bytes(exc.object), exc.start
    line_start = data.rfind(b"\n", 0, start) + 1
    column = len(data[line_start:start].decode("utf-8", "replace")) + 1
    line = data.count(b"\n", 0, start) + 1
    return f"not UTF-8: byte 0x{data[start]:02x} (at line {line}, column {column})"


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)$")


def _lone_cr(text: str, error: str) -> str | None:
    """Why ``text`` is no TOML when a carriage return without a line feed after it (old Mac
    line endings) stands at or before the place ``tomllib``'s ``error`` names: TOML ends
    lines with LF or CRLF only, so the reader's own words ('Expected newline or end of
    document after a statement') named no cause."""
    at = re.search(r"\r(?!\n)", text)
    if at is None:
        return None
    line = text.count("\n", 0, at.start()) + 1
    column = at.start() - (text.rfind("\n", 0, at.start()) + 1) + 1
    reported = _TOML_AT.search(error)
    if reported is not None and (int(reported[1]), int(reported[2])) < (line, column):
        return None  # a mistake before it
    return (
        f"a carriage return (CR) without a line feed after it at line {line}, column "
        f"{column}: TOML ends lines with LF or CRLF only"
    )


def read_config_bytes(path: Path) -> bytes:
    """The bytes of the settings file ``path``, at most :data:`MAX_CONFIG_BYTES`
    (:class:`~citewarden.files.FileTooLarge` naming that limit above it)."""
    try:
        return read_regular(path, MAX_CONFIG_BYTES)
    except FileTooLarge as exc:
        limit = megabytes(MAX_CONFIG_BYTES)
        message = f"larger than the {limit} a settings file may hold; it is not read"
        raise FileTooLarge(exc.errno, message, str(path)) from None


#: A settings file as read: its table (None when missing or unreadable), its text, and
#: why it could not be read (:func:`read_config_text`).
ConfigText = tuple[Mapping[str, Any] | None, str, list[SettingsProblem]]


def read_config_file(root: Path) -> tuple[Mapping[str, Any] | None, list[SettingsProblem]]:
    """Read ``.citewarden.toml`` in ``root``; a syntax error is a problem, not an exception."""
    raw, _, problems = read_config_text(root / CONFIG_FILE)
    return raw, problems


def read_config_text(path: Path) -> ConfigText:
    """The settings file ``path`` read, its text, and why it could not be."""
    try:
        data = read_config_bytes(path)
    except FileNotFoundError:
        return None, "", []
    except OSError as exc:
        return None, "", [SettingsProblem(str(path), "file", f"cannot read: {exc.strerror}")]
    try:
        return parse_config(data), config_text(data), []
    except ConfigSyntaxError as exc:
        return None, "", [SettingsProblem(str(path), "file", f"invalid TOML: {exc}")]


#: a bare key, a basic string (its escaped quotes within it) or a literal string
_TOML_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\\n]|\\.)*"|'[^'\n]*')"""
_DOTTED = rf"{_TOML_KEY}(?:[ \t]*\.[ \t]*{_TOML_KEY})*"
#: a table header (``[verify]``, ``[[x]]``) or a key set on its line (``a.b = ...``)
_TABLE_LINE = re.compile(rf"[ \t]*\[\[?[ \t]*({_DOTTED})[ \t]*\]")
_KEY_LINE = re.compile(rf"[ \t]*({_DOTTED})[ \t]*=")
_KEY_PART = re.compile(_TOML_KEY)


def _dotted(text: str) -> str:
    return ".".join(_key_part(part) for part in _KEY_PART.findall(text))


def _key_part(part: str) -> str:
    """One part of a dotted TOML key as TOML reads it (a quoted one's escapes decoded)."""
    if part.startswith('"') and "\\" in part:
        try:
            return next(iter(tomllib.loads(f"{part} = 0")))
        except (tomllib.TOMLDecodeError, StopIteration):
            pass
    return part.strip("\"'")


def key_lines(text: str) -> dict[str, int]:
    """Each table and key the TOML document ``text`` sets, dotted from its table -> the line
    (1-based) that sets it first: enough to say where a setting's problem is (the lines of a
    multi-line string are not read as keys)."""
    lines: dict[str, int] = {}
    table = ""
    in_string: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if in_string is not None:
            in_string = _open_string(line, in_string)
            continue
        header = _TABLE_LINE.match(line)
        if header is not None:
            table = _dotted(header.group(1))
            names = table.split(".")
            for end in range(1, len(names) + 1):
                lines.setdefault(".".join(names[:end]), number)
        elif (key := _KEY_LINE.match(line)) is not None:
            # a.b.c = 1 sets the tables a and a.b on its line too, as does "a.b".c = 1
            # (read as the settings read it, :func:`nested`)
            parts = [_key_part(part) for part in _KEY_PART.findall(key.group(1))]
            names = ".".join([table, *parts]).lstrip(".").split(".")
            for end in range(1, len(names) + 1):
                lines.setdefault(".".join(names[:end]), number)
        in_string = _open_string(line)
    return lines


def _open_string(line: str, quotes: str | None = None) -> str | None:
    """The quotes of the multi-line string still open at the end of ``line`` (``quotes``:
    of the one open at its start), read as TOML reads strings: three quotes within a
    one-line string, or in a comment, open none, where they hid every key after them."""
    i, n = 0, len(line)
    while i < n:
        if quotes is not None:  # find the end of the open string
            end = line.find(quotes, i)
            while end > 0 and quotes == '"""' and _escaped(line, end):
                end = line.find(quotes, end + 1)
            if end == -1:
                return quotes
            i = end + 3
            while i < n and line[i] == quotes[0]:  # up to two quotes of the value's own
                i += 1
            quotes = None
        elif line.startswith(('"""', "'''"), i):
            quotes, i = line[i : i + 3], i + 3
        elif line[i] == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
        elif line[i] == "'":
            end = line.find("'", i + 1)
            i = n if end == -1 else end + 1
        elif line[i] == "#":
            return None
        else:
            i += 1
    return quotes


def _escaped(line: str, at: int) -> bool:
    """Whether an odd run of backslashes stands before ``line[at]``."""
    start = at
    while start > 0 and line[start - 1] == "\\":
        start -= 1
    return (at - start) % 2 == 1


def placed(problems: list[SettingsProblem], text: str) -> list[SettingsProblem]:
    """``problems`` of the settings file ``text`` with the line of each one's setting (or
    of the table or inline table holding it), where it is found (:func:`key_lines`)."""
    if not problems:
        return problems
    lines = _lines_of(text)
    out = []
    for problem in problems:
        line = _line_in(lines, problem.key)
        out.append(problem if line is None else dataclasses.replace(problem, line=line))
    return out


def _lines_of(text: str) -> dict[str, int]:
    """:func:`key_lines` of ``text``, each key spelled with ``_`` for ``-`` (the settings
    take both)."""
    lines: dict[str, int] = {}
    for key, line in key_lines(text).items():
        lines.setdefault(key.replace("-", "_"), line)
    return lines


def _line_in(lines: Mapping[str, int], key: str) -> int | None:
    """The line of ``key`` (or of the table holding it) in :func:`_lines_of`' ``lines``."""
    key = key.replace("-", "_")
    while key and key not in lines:
        key = key.rpartition(".")[0]
    return lines[key] if key else None


def with_origin_lines(settings: Settings, origin: str, text: str) -> Settings:
    """``settings`` knowing the line of the settings file ``origin`` (its ``text``) that
    set each address setting it set (:meth:`Settings.problem`)."""
    lines = _lines_of(text)
    found = {
        key: (origin, line)
        for key, where in settings.origins.items()
        if where == origin and (line := _line_in(lines, key)) is not None
    }
    return dataclasses.replace(settings, origin_lines={**settings.origin_lines, **found})


def find_config_dir(start: Path) -> Path | None:
    """The folder whose ``.citewarden.toml`` a project in the folder ``start`` reads:
    ``start`` or the nearest folder above it that holds one, looking no higher than the
    repository's root (a folder holding ``.git``: a file above it is not the project's);
    None when there is none."""
    for folder in (start, *start.parents):
        config = folder / CONFIG_FILE
        if config.exists() or config.is_symlink():  # one that cannot be read is reported
            return folder
        if (folder / ".git").exists():
            return None
    return None


def config_dirs_above(start: Path) -> list[Path]:
    """The folders above ``start`` whose ``.citewarden.toml`` :func:`find_config_dir` would
    read, were it there: up to the repository's root (the files to watch, besides the
    folder's own)."""
    found: list[Path] = []
    for folder in (start, *start.parents):
        if folder != start:
            found.append(folder)
        if (folder / ".git").exists():
            break
    return found


def load_settings(
    root: Path | None,
    *overlays: tuple[Mapping[str, Any] | None, str],
    file: ConfigText | None = None,
) -> tuple[Settings, list[SettingsProblem]]:
    """Defaults, then ``.citewarden.toml`` in ``root``, then each (raw, origin) overlay.
    ``file``: that file as read already (:func:`read_config_text`), where it is not read."""
    settings = Settings()
    problems: list[SettingsProblem] = []
    if root is not None:
        raw, text, file_problems = file or read_config_text(root / CONFIG_FILE)
        problems += file_problems
        settings, more = merge_settings(settings, raw, str(root / CONFIG_FILE), root)
        settings = with_origin_lines(settings, str(root / CONFIG_FILE), text)
        problems += placed(more, text)
    for raw, origin in overlays:
        settings, more = merge_settings(settings, raw, origin)
        problems += more
    return settings, problems


def is_ignored(settings: Settings, path: Path, folders: Sequence[Path]) -> bool:
    """Whether an ignore pattern names ``path``: by its name, or by its path relative to
    the settings' :attr:`~Settings.ignore_base`, or when none, to any of ``folders`` (the
    workspace folders).  The one rule the command line and the editor match by."""
    if not settings.ignore:
        return False
    names = [path.name]
    bases = folders if settings.ignore_base is None else (settings.ignore_base,)
    names += [path.relative_to(b).as_posix() for b in bases if path.is_relative_to(b)]
    matches = _ignore_matcher(settings.ignore)
    return any(matches(name) for name in names)


#: The most ignore patterns a setting holds: each file is matched against them all.
MAX_IGNORE = 1000


@lru_cache(maxsize=16)
def _ignore_matcher(patterns: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    """One expression for every reading of ``patterns`` (:func:`glob_match`), built once:
    matched a pattern at a time, each file took as long as a few thousand patterns are
    read, and its cache of 256 readings was no help past that many patterns."""
    ways = dict.fromkeys(way for pattern in patterns for way in _readings(pattern))
    return re.compile("|".join(translate(way) for way in ways)).match


#: The ``**/`` of an ignore pattern that may each stand for no folder at all, the first so
#: many of them (a pattern is read in 2 ** n ways); those after stand for one folder or more.
MAX_ANY_FOLDERS = 4
_ANY_FOLDERS_RUN = re.compile(r"(?:\*\*/){2,}")


def glob_match(name: str, pattern: str) -> bool:
    """Whether the relative path ``name`` matches the ignore pattern ``pattern``, read by
    ``fnmatch`` where each ``**/`` also stands for no folder at all, as in a .gitignore
    or VS Code's ``files.exclude``: ``**/drafts/*`` names ``drafts/a.tex`` and
    ``**/*.bak.bib`` a ``refs.bak.bib`` beside the settings file, which they did not."""
    return any(fnmatch(name, way) for way in _readings(pattern))


@lru_cache(maxsize=256)
def _readings(pattern: str) -> tuple[str, ...]:
    """``pattern`` with each choice of its first :data:`MAX_ANY_FOLDERS` ``**/`` dropped, a
    run of them read as one (``**/**/`` names what ``**/`` does): each was dropped in
    every order, so ten of them took 17 seconds a file and a few more hung the server."""
    parts = _ANY_FOLDERS_RUN.sub("**/", pattern).split("**/")
    head, rest = parts[: MAX_ANY_FOLDERS + 1], parts[MAX_ANY_FOLDERS + 1 :]
    tail = "".join("**/" + part for part in rest)
    ways = [head[0]]
    for part in head[1:]:
        ways = [w + sep + part for w in ways for sep in ("**/", "")]
    return tuple(dict.fromkeys(w + tail for w in ways))


def many_any_folders(pattern: str) -> bool:
    """Whether more ``**/`` of ``pattern`` than :data:`MAX_ANY_FOLDERS` are read as one
    folder or more only (:func:`_readings`)."""
    return _ANY_FOLDERS_RUN.sub("**/", pattern).count("**/") > MAX_ANY_FOLDERS
