"""VS Code ``contributes.configuration`` generated from :mod:`citewarden.settings`.

The server's typed settings are the one source of truth: every field of
:class:`~citewarden.settings.Settings` and :class:`~citewarden.settings.VerifySettings` becomes a
``citewarden.*`` property with its type and default read from the dataclass, plus the few
settings only an editor client reads (how to start the server, protocol tracing).

``python -m citewarden.settings_schema`` prints the JSON;
``python -m citewarden.settings_schema --update clients/vscode/package.json`` rewrites the
``contributes.configuration`` of that manifest in place.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from citewarden.model import Code
from citewarden.settings import (
    NUMBER_BOUNDS,
    SETTING,
    SEVERITY_NAMES,
    SOURCE_NAMES,
    Settings,
)

SECTION = "citewarden"

#: Severity names offered in the editor (``info`` is accepted as an alias but not offered).
SEVERITY_CHOICES = ("off", "hint", "information", "warning", "error")

#: One line of documentation per setting, by dotted path below the ``citewarden`` section.
DESCRIPTIONS: dict[str, str] = {
    "severity": (
        "Severity per finding code: off, hint, information, warning or error. "
        "Codes not listed keep their default severity."
    ),
    "citation_commands": (
        "Extra LaTeX citation commands (names without the backslash) whose argument is a "
        "list of citation keys."
    ),
    "ignore": "Glob patterns, relative to the workspace root, of files citewarden does not check.",
    "debounce_ms": "Milliseconds to wait after an edit before checking the document again.",
    "max_file_mb": (
        "Largest file citewarden reads, in megabytes; a larger one is reported as unreadable."
    ),
    "max_workspace_files": (
        "Most files of the workspace folders the language server indexes; the editor is "
        "told once when a folder holds more."
    ),
    "pandoc_version": (
        "The version of pandoc that reads Markdown projects, such as 3.6 (its BibTeX reader "
        "changed between versions); empty: the one installed here, Quarto's for a Quarto "
        "project."
    ),
    "verify.enabled": "Verify bibliography entries against scholarly metadata sources.",
    "verify.on_save": "Verify changed entries whenever a file is saved.",
    "verify.offline": (
        "Use only the cache and the snapshot file; never contact a metadata source. "
        "Entries that cannot be checked are reported as unverified."
    ),
    "verify.sources": "Metadata sources to consult, in this order.",
    "verify.snapshot": "Path of a JSON Lines snapshot of source records used before the network.",
    "verify.mailto": (
        "E-mail address sent to Crossref and OpenAlex to identify the client (polite pool)."
    ),
    "verify.openalex_api_key": "OpenAlex API key (also read from the environment).",
    "verify.s2_api_key": "Semantic Scholar API key (also read from the environment).",
    "verify.ncbi_api_key": "NCBI (PubMed) API key (also read from the environment).",
    "verify.concurrency": "How many entries are verified at the same time.",
    "verify.timeout": (
        "Seconds one request to a source may take, its whole answer included; all the requests "
        "of one entry get verify.entry_budget (by default three times this). Past either, the "
        "entry counts as unverified."
    ),
    "verify.entry_budget": (
        "Seconds all the requests made for one entry may take together (time on the wire and "
        "waits before retries); past it the entry counts as unverified. Empty: three times "
        "verify.timeout."
    ),
    "verify.breaker_failures": (
        "Requests to a source that may fail in a row (after their retries) before it is no "
        "longer asked: the entries that need it are then unverified, saying so. Two requests "
        "that time out one after the other also stop it."
    ),
    "verify.breaker_cooldown": (
        "Seconds a source that stopped answering is left alone before one request asks it "
        "again; an answer puts it back in use."
    ),
    "verify.base_urls": (
        "Base URL per source, to use a mirror or a local replay server instead of the public "
        "service."
    ),
    "verify.ignore_entries": "Keys of bibliography entries that are never verified.",
    "verify.tier_severity": (
        "Severity of an entry's verification findings by its risk tier (H high, E elevated, "
        "M moderate, D defensible): off, hint, information, warning or error."
    ),
    "verify.citation_sites": (
        "Also mark every citation of a likely fabricated (tier H) or retracted entry in the "
        "documents."
    ),
    "judge.url": (
        "Address (API base, e.g. http://127.0.0.1:8080/v1) of an OpenAI-compatible "
        "chat-completions endpoint asked whether each cited work supports its citing sentence. "
        "Off when empty: nothing is sent anywhere. Only the sentence and the cited record's "
        "metadata are sent."
    ),
    "judge.model": "Model name sent to the judge endpoint (the judge is off without one).",
    "judge.api_key": (
        "API key of the judge endpoint, sent as a bearer token (also read from "
        "CITEWARDEN_JUDGE_API_KEY); never logged."
    ),
    "judge.timeout": "Seconds to wait for the judge's answer; no answer means no verdict.",
}

#: Settings read by the editor clients only; they are never sent to the server.
CLIENT_PROPERTIES: dict[str, dict[str, Any]] = {
    "server.command": {
        "type": "array",
        "items": {"type": "string"},
        "default": [],
        "markdownDescription": (
            "Command and arguments that start the language server, for example "
            '`["/home/me/.venv/bin/citewarden", "serve"]`. Empty: `citewarden serve` found on '
            "`PATH`, else `python -m citewarden serve` with `#citewarden.server.python#` or the "
            "Python extension's interpreter."
        ),
        "scope": "machine-overridable",
    },
    "server.python": {
        "type": "string",
        "default": "",
        "markdownDescription": (
            "Python interpreter that has citewarden installed, used when `citewarden` is not on "
            "`PATH` and `#citewarden.server.command#` is empty."
        ),
        "scope": "machine-overridable",
    },
    "trace.server": {
        "type": "string",
        "enum": ["off", "messages", "verbose"],
        "default": "off",
        "description": "Log the messages between the editor and the language server.",
        "scope": "window",
    },
}

#: Top-level keys of the section that the VS Code client strips before sending settings.
CLIENT_ONLY_KEYS = ("server", "trace")


def _json_default(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _type_schema(path: str, annotation: Any) -> dict[str, Any]:
    """JSON schema for one field type (only the shapes the settings use)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if annotation is str:
        return {"type": "string"}
    if origin in (types.UnionType, typing.Union) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if rest == [str]:
            return {"type": ["string", "null"]}
        if rest == [float]:
            return {"type": ["number", "null"]}
    if origin is tuple and len(args) == 2 and args[0] is str and args[1] is Ellipsis:
        if path == "verify.sources":
            return {
                "type": "array",
                "items": {"type": "string", "enum": list(SOURCE_NAMES)},
                "uniqueItems": True,
            }
        return {"type": "array", "items": {"type": "string"}}
    if origin is Mapping and args and args[0] is str:
        if path == "severity":
            choices = [c for c in SEVERITY_CHOICES if c in SEVERITY_NAMES]
            return {
                "type": "object",
                "properties": {code.value: {"type": "string", "enum": choices} for code in Code},
                "additionalProperties": False,
            }
        if path == "verify.tier_severity":
            choices = [c for c in SEVERITY_CHOICES if c in SEVERITY_NAMES]
            return {
                "type": "object",
                "properties": {t: {"type": "string", "enum": choices} for t in "HEMD"},
                "additionalProperties": False,
            }
        if path == "verify.base_urls":
            return {
                "type": "object",
                "properties": {name: {"type": "string"} for name in SOURCE_NAMES},
                "additionalProperties": False,
            }
    raise TypeError(f"no JSON schema for setting {path!r} of type {annotation!r}")


def _properties(cls: type, prefix: str) -> dict[str, dict[str, Any]]:
    hints = typing.get_type_hints(cls)
    instance = cls()
    props: dict[str, dict[str, Any]] = {}
    for f in dataclasses.fields(cls):
        if not f.metadata.get(SETTING, True):  # bookkeeping, no setting
            continue
        path = f"{prefix}{f.name}"
        annotation = hints[f.name]
        if dataclasses.is_dataclass(annotation):
            props.update(_properties(annotation, f"{path}."))  # type: ignore[arg-type]
            continue
        if path not in DESCRIPTIONS:
            raise KeyError(f"setting {path!r} has no description in citewarden.settings_schema")
        schema = _type_schema(path, annotation)
        schema["default"] = _json_default(getattr(instance, f.name))
        schema["description"] = DESCRIPTIONS[path]
        if path in NUMBER_BOUNDS:  # the bounds the server enforces
            schema["minimum"] = NUMBER_BOUNDS[path].low
            schema["maximum"] = NUMBER_BOUNDS[path].high
        props[path] = schema
    return props


def server_properties() -> dict[str, dict[str, Any]]:
    """Schemas of the server settings, keyed by dotted path below ``citewarden``."""
    return _properties(Settings, "")


def vscode_configuration() -> dict[str, Any]:
    """The ``contributes.configuration`` object of the VS Code extension manifest."""
    props: dict[str, dict[str, Any]] = {}
    for path, schema in server_properties().items():
        props[f"{SECTION}.{path}"] = schema
    for path, schema in CLIENT_PROPERTIES.items():
        props[f"{SECTION}.{path}"] = dict(schema)
    return {"title": "citewarden", "properties": props}


def update_manifest(path: Path) -> bool:
    """Rewrite ``contributes.configuration`` in the package.json at ``path``; True if changed."""
    text = path.read_text(encoding="utf-8")
    manifest = json.loads(text)
    manifest.setdefault("contributes", {})["configuration"] = vscode_configuration()
    new = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m citewarden.settings_schema",
        description="Print (or write into a package.json) the VS Code settings schema.",
    )
    parser.add_argument("--update", type=Path, metavar="PACKAGE_JSON")
    args = parser.parse_args(argv)
    if args.update is not None:
        changed = update_manifest(args.update)
        print(f"{args.update}: {'updated' if changed else 'up to date'}", file=sys.stderr)
        return 0
    json.dump(vscode_configuration(), sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
