"""The policy step: ignore globs, suppression comments, per-code severity, tier severity."""

from __future__ import annotations

from pathlib import Path

from citewarden.findings.policy import Policy
from citewarden.findings.verdicts import entry_findings
from citewarden.model import Code, Finding, Issue, Location, Severity, Span, Status, Tier, Verdict
from citewarden.project import Workspace
from citewarden.settings import Settings, merge_settings

BIB = """\
@article{kept,
  title = {Kept},
  year = {2011},
  pages = {1--2},
}

% citewarden: ignore
@article{quiet,
  title = {Quiet},
  year = {2011},
}
"""


def _workspace(tmp_path: Path, settings: Settings) -> tuple[Workspace, Path]:
    (tmp_path / "drafts").mkdir()
    for name in ("refs.bib", "drafts/old.bib"):
        (tmp_path / name).write_text(BIB, encoding="utf-8")
    ws = Workspace(settings, root=tmp_path)
    for name in ("refs.bib", "drafts/old.bib"):
        ws.add_file(tmp_path / name)
    return ws, tmp_path / "refs.bib"


def _settings(raw: dict[str, object]) -> Settings:
    settings, problems = merge_settings(Settings(), raw, "test")
    assert problems == []
    return settings


def _verdict(key: str, tier: Tier, *issues: Issue) -> Verdict:
    return Verdict(key, Status.MISMATCH, tier, issues=issues, sources=("crossref",))


YEAR = Issue(Code.YEAR_MISMATCH, "year 2011, the record says 2015", "year")
PAGES = Issue(Code.PAGES_MISMATCH, "pages 1-2, the record says 1-3", "pages")
NOTE = Issue(Code.MISSING_DOI, "the work has a DOI", "doi")


def _shown(ws: Workspace, policy: Policy, path: Path, verdict: Verdict) -> list[Finding]:
    bib = ws.bibliography(path)
    assert bib is not None
    entry = next(e for e in bib.entries if e.key == verdict.key)
    return policy.apply(ws, entry_findings(entry, verdict, ws.text(path)))


def test_tier_severity_for_verification_findings_notes_keep_their_own(tmp_path: Path) -> None:
    ws, bib = _workspace(tmp_path, Settings())
    policy = Policy(Settings(), [tmp_path])
    found = _shown(ws, policy, bib, _verdict("kept", Tier.M, YEAR, NOTE))
    assert [(f.code, f.severity) for f in found] == [
        (Code.YEAR_MISMATCH, Severity.WARNING),  # a year error is serious, at tier M too
        (Code.MISSING_DOI, Severity.HINT),
    ]
    found = _shown(ws, policy, bib, _verdict("kept", Tier.H, YEAR))
    assert [f.severity for f in found] == [Severity.ERROR]
    assert _shown(ws, policy, bib, _verdict("kept", Tier.D, YEAR)) == []  # D is off


def test_a_per_code_severity_wins_over_the_tier(tmp_path: Path) -> None:
    settings = _settings(
        {"severity": {"pages-mismatch": "error", "year-mismatch": "off"}, "verify": {}}
    )
    ws, bib = _workspace(tmp_path, settings)
    found = _shown(ws, Policy(settings, [tmp_path]), bib, _verdict("kept", Tier.M, YEAR, PAGES))
    assert [(f.code, f.severity) for f in found] == [(Code.PAGES_MISMATCH, Severity.ERROR)]


def test_suppression_comments_and_ignore_globs_come_first(tmp_path: Path) -> None:
    settings = _settings({"ignore": ["drafts/*"], "severity": {"orphan-entry": "error"}})
    ws, bib = _workspace(tmp_path, settings)
    policy = Policy(settings, [tmp_path])
    text = ws.text(bib)
    assert text is not None
    quiet_at = text.index("@article{quiet")
    on_quiet = Finding(Code.ORPHAN, Location(bib, Span(quiet_at + 9, quiet_at + 14)), "q")
    on_kept = Finding(Code.ORPHAN, Location(bib, Span(9, 13)), "k")
    old = tmp_path / "drafts" / "old.bib"
    in_drafts = Finding(Code.ORPHAN, Location(old, Span(9, 13)), "d")
    shown = policy.apply(ws, [on_kept, on_quiet, in_drafts])
    assert [(f.message, f.severity) for f in shown] == [("k", Severity.ERROR)]
    assert policy.ignored(old) and not policy.ignored(bib)
    assert policy.apply_by_file(ws, {bib: [on_kept], old: [in_drafts]}).keys() == {bib}
    bib_entries = ws.bibliography(bib)
    assert bib_entries is not None
    wanted = {e.key: policy.verifies(ws, e) for e in bib_entries.entries}
    assert wanted == {"kept": True, "quiet": False}  # a suppressed entry is not verified
    ignored_settings = _settings({"verify": {"ignore_entries": ["kept"]}})
    assert not Policy(ignored_settings, [tmp_path]).verifies(ws, bib_entries.entries[0])


def test_the_editor_asks_the_policy_which_entries_it_verifies(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from citewarden.lsp.verification import VerificationService

    asked: list[tuple[str, bool]] = []

    class Recording(Policy):
        def verifies_key(self, key: str, *, suppressed: bool) -> bool:
            asked.append((key, suppressed))
            return super().verifies_key(key, suppressed=suppressed)

    settings = _settings({"verify": {"ignore_entries": ["skipped"]}})
    session = SimpleNamespace(policy=Recording(settings, [tmp_path]), settings=settings)
    service = VerificationService(session)  # type: ignore[arg-type]
    assert [service._wanted(k, s) for k, s in [("a", False), ("a", True), ("skipped", False)]] == [
        True,
        False,
        False,
    ]
    assert asked == [("a", False), ("a", True), ("skipped", False)]
