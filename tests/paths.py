"""Paths of the test data (import this, never ``conftest``)."""

from pathlib import Path

TESTS = Path(__file__).parent
DATA = TESTS / "data"
ROOT = TESTS.parent
#: pandoc releases besides the system's, by version (scripts/install-pandoc-versions)
PANDOC_RELEASES = {
    version: ROOT / ".tools" / f"pandoc-{version}" / "pandoc" for version in ("3.6.1", "3.9")
}
