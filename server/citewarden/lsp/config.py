"""Settings for the server: ``.citewarden.toml``, initializationOptions, workspace/configuration.

All three go through one schema (:mod:`citewarden.settings`).  Invalid values fall back to
their defaults and come back as problems, which the server writes to the editor's log
(window/logMessage) each time they are made and shows with window/showMessage at most once
per :data:`REPEAT_SECONDS` for the same mistake (:class:`ProblemGate`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from time import monotonic
from typing import Any

from citewarden.safe_text import visible
from citewarden.settings import (
    CONFIG_FILE,
    ConfigText,
    Settings,
    SettingsProblem,
    find_config_dir,
    load_settings,
    read_config_text,
)

SECTION = "citewarden"

#: Seconds within which the same mistake, made again, is not shown in a message again (the
#: editor's log has it every time): settings flipped back and forth do not flood the user.
REPEAT_SECONDS = 60.0


def section_of(raw: Any) -> Mapping[str, Any] | None:
    """The ``citewarden`` section of a settings object.

    Clients send either the section itself or an object holding it under ``citewarden``
    (VS Code's didChangeConfiguration does the latter).  None when nothing is set.
    """
    if raw is None:
        return None
    if isinstance(raw, Mapping) and SECTION in raw:
        # the section itself, also when it is no object ({"citewarden": "x"}), which
        # merge_settings reports as such, where it was read as an unknown setting
        return raw[SECTION]
    return raw  # not a mapping: merge_settings reports it


@dataclass
class ProblemGate:
    """The settings problems made anew, and which of them to show in a message.

    A problem is made anew when the settings last resolved did not have it (one that stays
    is not made again).  It is shown unless the same mistake was shown less than
    ``window`` seconds ago; a mistake not shown within that time is always shown.
    """

    window: float = REPEAT_SECONDS
    #: The problems of the settings last resolved.
    standing: set[str] = field(default_factory=set)
    #: When each mistake was last shown (monotonic seconds), for those within the window.
    shown_at: dict[str, float] = field(default_factory=dict)

    def new_problems(
        self, problems: list[SettingsProblem], now: float
    ) -> tuple[list[SettingsProblem], list[SettingsProblem]]:
        """The problems made anew (to log), and those of them to show (and remember both)."""
        made = [p for p in problems if str(p) not in self.standing]
        self.standing = {str(p) for p in problems}
        self.shown_at = {k: t for k, t in self.shown_at.items() if now - t < self.window}
        show = [p for p in made if str(p) not in self.shown_at]
        self.shown_at.update((str(p), now) for p in show)
        return made, show


@dataclass
class ConfigSources:
    """Where the current settings came from; re-resolved whenever one of them changes."""

    root: Path | None = None
    #: The other workspace folders (their settings files are not read)
    others: tuple[Path, ...] = ()
    init_options: Mapping[str, Any] | None = None
    client: Mapping[str, Any] | None = None
    #: How :attr:`client` came: asked for, or sent by the editor unasked.
    client_origin: str = "workspace/configuration"
    #: Settings files not read, already reported (each is reported once).
    shown: set[str] = field(default_factory=set)
    #: Which of the settings' problems are made anew and which of those to show.
    gate: ProblemGate = field(default_factory=ProblemGate)
    #: The settings file last read whole, and its reading.
    last_good: tuple[Path, ConfigText] | None = None
    #: The settings file that could not be read whose reading :attr:`last_good` stands in
    #: for (None when the file was read).
    kept: Path | None = None

    @property
    def config_dir(self) -> Path | None:
        """The folder whose settings file the workspace reads: the first workspace folder,
        or the nearest above it holding one (up to the repository's root), as
        ``citewarden check`` finds a project's (:func:`~citewarden.settings.find_config_dir`)."""
        return find_config_dir(self.root) if self.root is not None else None

    def resolve(self) -> tuple[Settings, list[SettingsProblem]]:
        folder = self.config_dir
        settings, problems = load_settings(
            folder,
            (self.init_options, "initializationOptions"),
            (self.client, self.client_origin),
            file=self._read_file(folder / CONFIG_FILE) if folder is not None else None,
        )
        if settings.verify.enabled:
            from citewarden.verify.config import source_address_problems

            problems = [*problems, *source_address_problems(settings)]
        return settings, problems

    def _read_file(self, path: Path) -> ConfigText:
        """The settings file ``path`` read; when it is there but cannot be read (not TOML,
        not UTF-8, unreadable), its reading when it last could, with the problem: a file
        saved with a mistake in it leaves the settings as they were, not the defaults."""
        read = read_config_text(path)
        raw, _, problems = read
        self.kept = None
        if raw is not None or not problems:
            self.last_good = (path, read)
            return read
        if self.last_good is None or self.last_good[0] != path:
            return read
        self.kept = path
        kept_raw, kept_text, _ = self.last_good[1]
        return kept_raw, kept_text, problems

    def unread_files(self) -> list[Path]:
        """Settings files of the other workspace folders: one set of settings serves the
        whole workspace, the first folder's."""
        found = []
        used = self.config_dir
        for folder in self.others:
            candidate = folder / CONFIG_FILE
            if candidate.is_file() and folder != used:
                found.append(candidate)
        return found

    def new_unread_files(self) -> list[Path]:
        """:meth:`unread_files` not reported before (and remember them)."""
        fresh = [f for f in self.unread_files() if f"unread:{f}" not in self.shown]
        self.shown.update(f"unread:{f}" for f in fresh)
        return fresh

    def new_problems(
        self, problems: list[SettingsProblem], now: float | None = None
    ) -> tuple[list[SettingsProblem], list[SettingsProblem]]:
        """:meth:`ProblemGate.new_problems` of :attr:`gate`."""
        return self.gate.new_problems(problems, monotonic() if now is None else now)


#: The most settings problems one message names (a pop-up, a line of the log), and the most
#: characters it shows of each: a list of 100 000 wrong items made a pop-up of megabytes.
SHOWN_PROBLEMS = 5
LOGGED_PROBLEMS = 100
PROBLEM_CHARS = 300


def problem_message(
    problems: list[SettingsProblem], kept: Path | None = None, most: int = LOGGED_PROBLEMS
) -> str:
    """The settings problems as one line (the keys and values quoted from a settings file or
    the client shown escaped, as every message shows outside text), the first ``most`` of
    them, each cut at :data:`PROBLEM_CHARS`; ``kept``: the settings file that could not be
    read whose settings as last read stay in force."""
    unread = [p for p in problems if kept is not None and p.key == "file" and p.origin == str(kept)]
    invalid = [p for p in problems if p not in unread]
    parts = []
    if invalid:
        said = [_cut(str(p)) for p in invalid[:most]]
        if len(invalid) > most:
            said.append(f"and {len(invalid) - most} more")
        parts.append("invalid settings (defaults used instead): " + "; ".join(said))
    if unread:
        parts.append(
            "; ".join(map(str, unread)) + "; the settings it held when last read stay in force"
        )
    return visible("citewarden: " + "; ".join(parts))


def _cut(text: str) -> str:
    return text if len(text) <= PROBLEM_CHARS else text[: PROBLEM_CHARS - 1] + "\u2026"


def unread_message(files: list[Path], config_dir: Path | None) -> str:
    """The settings files of other workspace folders, not read (``config_dir``: the folder
    of the one read, :attr:`ConfigSources.config_dir`)."""
    used = f"{config_dir / CONFIG_FILE}" if config_dir is not None else "the first workspace folder"
    names = ", ".join(str(f) for f in files)
    return visible(
        f"citewarden: settings come from {used} (the first workspace folder's); not read: {names}"
    )
