"""Settings for the server: ``.citewarden.toml``, initializationOptions, workspace/configuration.

All three go through one schema (:mod:`citewarden.settings`).  Invalid values fall back to
their defaults and come back as problems, which the server shows with window/showMessage.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from citewarden.safe_text import visible
from citewarden.settings import (
    CONFIG_FILE,
    Settings,
    SettingsProblem,
    find_config_dir,
    load_settings,
)

SECTION = "citewarden"


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
class ConfigSources:
    """Where the current settings came from; re-resolved whenever one of them changes."""

    root: Path | None = None
    #: The other workspace folders (their settings files are not read)
    others: tuple[Path, ...] = ()
    init_options: Mapping[str, Any] | None = None
    client: Mapping[str, Any] | None = None
    #: Settings files not read, already reported (each is reported once).
    shown: set[str] = field(default_factory=set)
    #: The problems of the settings last resolved, shown: a mistake is not shown again
    #: while it stays, and is again once mended and made anew.
    standing: set[str] = field(default_factory=set)

    @property
    def config_dir(self) -> Path | None:
        """The folder whose settings file the workspace reads: the first workspace folder,
        or the nearest above it holding one (up to the repository's root), as
        ``citewarden check`` finds a project's (:func:`~citewarden.settings.find_config_dir`)."""
        return find_config_dir(self.root) if self.root is not None else None

    def resolve(self) -> tuple[Settings, list[SettingsProblem]]:
        settings, problems = load_settings(
            self.config_dir,
            (self.init_options, "initializationOptions"),
            (self.client, "workspace/configuration"),
        )
        if settings.verify.enabled:
            from citewarden.verify.config import source_address_problems

            problems = [*problems, *source_address_problems(settings)]
        return settings, problems

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

    def new_problems(self, problems: list[SettingsProblem]) -> list[SettingsProblem]:
        """The problems of the settings just resolved that the last ones had not (and
        remember these)."""
        fresh = [p for p in problems if str(p) not in self.standing]
        self.standing = {str(p) for p in problems}
        return fresh


def problem_message(problems: list[SettingsProblem]) -> str:
    """The settings problems as one line (the keys and values quoted from a settings file or
    the client shown escaped, as every message shows outside text)."""
    lines = [str(p) for p in problems]
    return visible("citewarden: invalid settings (defaults used instead): " + "; ".join(lines))


def unread_message(files: list[Path], config_dir: Path | None) -> str:
    """The settings files of other workspace folders, not read (``config_dir``: the folder
    of the one read, :attr:`ConfigSources.config_dir`)."""
    used = f"{config_dir / CONFIG_FILE}" if config_dir is not None else "the first workspace folder"
    names = ", ".join(str(f) for f in files)
    return visible(
        f"citewarden: settings come from {used} (the first workspace folder's); not read: {names}"
    )
