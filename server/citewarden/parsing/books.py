"""Books: the chapter lists of bookdown (``_bookdown.yml``) and Quarto (``_quarto.yml``
with ``project: type: book``).  A book is one project: its chapters are read together
with the bibliography of the index / the project metadata, as bookdown (one merged
document) and Quarto (one citation scope for the book) render them.

* bookdown: ``rmd_files:`` as a list, or per output format (``html:`` first, else the first
  list given); without it, every ``.Rmd`` of the folder not starting with ``_``, in name
  order with ``index.Rmd`` first (bookdown's own default).
* Quarto: ``book: chapters:`` and ``book: appendices:``, entries as file names, or as
  ``part:`` groups with their own ``chapters:``; ``href:`` / ``file:`` entries too.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

BOOKDOWN_CONFIG = "_bookdown.yml"
QUARTO_CONFIGS = ("_quarto.yml", "_quarto.yaml")
#: Largest book configuration read, in characters.
MAX_CONFIG = 200_000
#: Most chapters taken from one configuration.
MAX_CHAPTERS = 2000


@functools.cache
def _loader() -> Any:
    """The safe YAML loader, with an integer of more digits than ``int()`` reads (a
    ``ValueError`` from its constructor) kept as written; built once, when a book
    configuration is first read (yaml is not loaded with every workspace)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def integer(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
        try:
            return loader.construct_yaml_int(node)
        except ValueError:
            return node.value

    Loader.add_constructor("tag:yaml.org,2002:int", integer)
    return Loader


def _load(text: str) -> Any:
    if len(text) > MAX_CONFIG:
        return None
    import yaml

    try:
        return yaml.load(text, Loader=_loader())  # a subclass of the safe loader
    except (yaml.YAMLError, RecursionError):  # RecursionError: nested past the reader
        return None  # the metadata reader reports the error


def quarto_chapters(text: str) -> list[str] | None:
    """The chapter files of a Quarto book configuration, or None when it is no book."""
    data = _load(text)
    if not isinstance(data, dict):
        return None
    project = data.get("project")
    book = data.get("book")
    if not (isinstance(project, dict) and project.get("type") == "book") or not isinstance(
        book, dict
    ):
        return None
    out: list[str] = []
    seen: set[int] = set()
    for name in ("chapters", "appendices"):
        _collect(book.get(name), out, 0, seen)
    return out[:MAX_CHAPTERS]


def _collect(entries: Any, out: list[str], depth: int, seen: set[int]) -> None:
    """The chapter files of ``entries`` into ``out``, up to :data:`MAX_CHAPTERS`; a list met
    again through a YAML alias (the same object, its id in ``seen``) is read once, so
    aliases of aliases of long lists cannot multiply the walk."""
    if not isinstance(entries, list) or depth > 3 or id(entries) in seen:
        return
    seen.add(id(entries))
    for entry in entries:
        if len(out) >= MAX_CHAPTERS:
            return
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, dict):
            for key in ("href", "file"):
                if isinstance(entry.get(key), str):
                    out.append(entry[key])
            if isinstance(entry.get("part"), str) and entry["part"].lower().endswith(
                (".qmd", ".md", ".rmd", ".ipynb")
            ):
                out.append(entry["part"])
            _collect(entry.get("chapters"), out, depth + 1, seen)


def bookdown_chapters(text: str, folder_files: Iterable[str]) -> list[str]:
    """The chapter files of a bookdown book: its ``rmd_files`` or bookdown's default."""
    data = _load(text)
    listed: Any = data.get("rmd_files") if isinstance(data, dict) else None
    if isinstance(listed, dict):
        listed = listed.get("html", next(iter(listed.values()), None))
    if isinstance(listed, list):
        return [f for f in listed if isinstance(f, str)][:MAX_CHAPTERS]
    names = sorted(f for f in folder_files if f.lower().endswith(".rmd") and not f.startswith("_"))
    index = [f for f in names if f.lower() == "index.rmd"]
    return (index + [f for f in names if f not in index])[:MAX_CHAPTERS]
