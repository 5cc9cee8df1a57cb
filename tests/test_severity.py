"""The severity scale of verification findings (verify/severity.py)."""

from __future__ import annotations

import pytest

from citewarden.model import DEFAULT_SEVERITY, Code, Issue, Severity, Tier
from citewarden.settings import SEVERITY_NAMES
from citewarden.settings import TIER_SEVERITY as TIER_SETTING
from citewarden.verify.severity import CODE_TIER, SCALE, TIER_SEVERITY, finding_severity

INDEX_CODES_APPENDED = {
    Code.BIB_OUTSIDE_ROOT,
    Code.BIB_UNRESOLVED,
    Code.KEY_SPACE,
    Code.NOCITE_IN_PREAMBLE,
    Code.BIBLIOGRAPHY_IGNORED,
    Code.CROSSREF_LOOP,
}
VERIFICATION = [
    c
    for c in Code
    if list(Code).index(c) >= list(Code).index(Code.DOI_NOT_FOUND) and c not in INDEX_CODES_APPENDED
]


def test_every_verification_code_is_on_the_scale_and_the_defaults_follow_it() -> None:
    assert set(SCALE) == set(VERIFICATION)
    for code, (severity, _) in SCALE.items():
        assert DEFAULT_SEVERITY[code] is severity, code  # the model mirrors the scale
    for tier, severity in TIER_SEVERITY.items():
        assert SEVERITY_NAMES[TIER_SETTING[tier.value]] is severity


@pytest.mark.parametrize(
    "code",
    [
        Code.AUTHOR_ADDED,
        Code.AUTHOR_DROPPED,
        Code.AUTHOR_SUBSTITUTED,
        Code.YEAR_MISMATCH,
        Code.VENUE_MISMATCH,
        Code.DOI_NOT_FOUND,
        Code.DOI_OTHER_WORK,
        Code.PAGES_MISMATCH,
        Code.VOLUME_MISMATCH,
    ],
)
def test_serious_codes_are_warnings_or_errors_whatever_the_tier(code: Code) -> None:
    issue = Issue(code, "x", "author")
    for tier in (Tier.H, Tier.E, Tier.M):
        shown = finding_severity(issue, TIER_SEVERITY[tier])
        assert shown is not None and shown <= Severity.WARNING, (code, tier)
    assert finding_severity(issue, None) is None  # a tier configured off silences it


def test_only_notes_and_suggestions_are_hints() -> None:
    hints = {c for c, (s, _) in SCALE.items() if s is Severity.HINT}
    assert hints == {Code.CORRECTED, Code.PREPRINT_PUBLISHED, Code.MISSING_DOI, Code.UNVERIFIED}
    assert all(CODE_TIER.get(c) is None for c in hints)
    note = Issue(Code.CORRECTED, "a correction was published")
    assert finding_severity(note, Severity.ERROR) is Severity.HINT
