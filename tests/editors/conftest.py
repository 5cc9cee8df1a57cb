"""Registers the ``editor`` marker of the tests that drive real editors."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "editor: drives a real editor (Neovim, or VS Code through code-server); in the default run",
    )
