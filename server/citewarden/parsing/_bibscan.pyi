from collections.abc import Callable
from pathlib import Path
from typing import Any

def fields(
    text: str, body: int, limit: int, /
) -> tuple[int, tuple[str, ...], tuple[str, ...], tuple[str, ...] | None] | None: ...
def entries(
    text: str, pos: int, stop: int, path: Path, strings: dict[str, str], /
) -> tuple[list[tuple[Any, ...]], int]: ...
def configure(
    lower_cache: dict[str, str],
    lower: Callable[[str], str],
    names_cache: dict[tuple[str, ...], tuple[str, ...] | None],
    names: Callable[[tuple[str, ...]], tuple[str, ...] | None],
    months: dict[str, str],
    max_expansion: int,
    /,
) -> None: ...
