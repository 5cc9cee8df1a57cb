"""Whatever opening the cache raises, verification goes on without it and says so once: a
cache problem never stops a run nor turns into a verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

import citewarden.cache as cache_module
from citewarden.settings import Settings
from citewarden.verify.engine import build_verifier


@pytest.mark.parametrize("error", [RuntimeError("no home"), KeyError("bogus"), OSError("full")])
async def test_a_cache_that_cannot_be_opened_is_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    def failing(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setenv(cache_module.CACHE_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(cache_module, "Cache", failing)
    verifier = build_verifier(Settings(), offline=True)
    try:
        assert len(verifier.notices) == 1
        assert verifier.notices[0].startswith("verifying without a cache:")
        assert str(error.args[0]) in verifier.notices[0]
    finally:
        await verifier.aclose()
