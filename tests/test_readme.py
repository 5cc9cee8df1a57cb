"""The README documents every finding code and the commands it promises."""

from __future__ import annotations

import re

from citewarden.model import DEFAULT_SEVERITY, Code
from paths import TESTS

README = (TESTS.parent / "README.md").read_text(encoding="utf-8")
ROW = re.compile(r'^\| <a id="([a-z-]+)"></a>`([a-z-]+)` \| [^|]+ \| (\w+) \|', re.MULTILINE)


def test_every_code_has_a_row_with_its_anchor_and_default_severity() -> None:
    rows = {m.group(1): (m.group(2), m.group(3)) for m in ROW.finditer(README)}
    assert set(rows) == {c.value for c in Code}
    for code in Code:
        name, severity = rows[code.value]
        assert name == code.value
        assert severity == {"info": "information"}.get(
            DEFAULT_SEVERITY[code].label, DEFAULT_SEVERITY[code].label
        )


def test_quick_start_commands_exist() -> None:
    for script in ("scripts/demo", "scripts/test"):
        assert f"./{script}" in README
        assert (TESTS.parent / script).stat().st_mode & 0o111
    ci = (TESTS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "./scripts/test" in ci
