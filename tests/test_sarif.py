"""SARIF 2.1.0 output: valid against the official schema, rule metadata, 1-based regions."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import jsonschema
import pytest

from citewarden.findings.verdicts import entry_findings
from citewarden.model import (
    DEFAULT_SEVERITY,
    INDEX_CODES,
    Code,
    Entry,
    Field,
    Finding,
    Fix,
    Issue,
    Location,
    Related,
    Severity,
    Span,
    Status,
    TextEdit,
    Tier,
    Verdict,
    code_doc_url,
)
from citewarden.report.sarif import (
    RULE_TEXT,
    message_text,
    rule_text,
    rules,
    run_properties,
    sarif_log,
)
from paths import DATA

SCHEMA_PATH = DATA / "sarif" / "sarif-schema-2.1.0.json"

BIB = (
    "% references\n"
    "@article{smith2020,\n"
    "  title = {Caf\u00e9 \U0001d49c lattices},\n"
    "  author = {Smith, Jane and Doe, John},\n"
    "  year = {2021},\n"
    "}\n"
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft4Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema)


def span_of(text: str, needle: str) -> Span:
    start = text.index(needle)
    return Span(start, start + len(needle))


def project(tmp_path: Path) -> tuple[Path, Path, dict[Path, str]]:
    bib = tmp_path / "refs" / "refs.bib"
    tex = tmp_path / "paper.tex"
    tex_text = "\\documentclass{article}\n\\cite{smyth2020}\n\\bibliography{refs/refs}\n"
    return bib, tex, {bib: BIB, tex: tex_text}


def sample_findings(bib: Path, tex: Path, texts: dict[Path, str]) -> list[Finding]:
    year = span_of(BIB, "2021")
    key = span_of(texts[tex], "smyth2020")
    return [
        Finding(
            Code.DANGLING,
            Location(tex, key),
            "citation key 'smyth2020' is not defined; did you mean 'smith2020'?",
            related=(Related(Location(bib, span_of(BIB, "smith2020")), "closest key"),),
            fixes=(Fix("Change to 'smith2020'", (TextEdit(tex, key, "smith2020"),), True),),
            data=MappingProxyType({"key": "smyth2020", "suggestions": ("smith2020",)}),
        ),
        Finding(
            Code.YEAR_MISMATCH,
            Location(bib, year),
            "year 2021 differs from the record's 2020",
            fixes=(Fix("Set year to 2020", (TextEdit(bib, year, "2020"),)),),
            data=MappingProxyType({"key": "smith2020", "field": "year"}),
        ),
        Finding(Code.ORPHAN, Location(bib, span_of(BIB, "smith2020")), "never cited"),
        Finding(Code.UNVERIFIED, Location(bib, span_of(BIB, "smith2020")), "offline"),
    ]


def test_log_is_valid_against_the_official_schema(
    tmp_path: Path, validator: jsonschema.Draft4Validator
) -> None:
    bib, tex, texts = project(tmp_path)
    log = sarif_log(
        sample_findings(bib, tex, texts),
        texts,
        root=tmp_path,
        version="0.1.0",
        properties={"score": 88, "tiers": {"H": 1, "E": 0, "M": 0, "D": 3}},
    )
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert errors == [], [f"{list(e.path)}: {e.message}" for e in errors]
    assert log["version"] == "2.1.0"
    assert len(log["runs"][0]["results"]) == 4
    # The log is plain JSON.
    assert json.loads(json.dumps(log)) == log


def test_empty_log_is_valid(validator: jsonschema.Draft4Validator) -> None:
    log = sarif_log([], {})
    assert list(validator.iter_errors(log)) == []
    assert log["runs"][0]["results"] == []


def test_sources_that_stopped_answering_are_warnings_of_the_invocation(
    validator: jsonschema.Draft4Validator,
) -> None:
    """No result says that a source stopped answering (its entries are unverified): the
    run's invocation carries a warning for each, valid SARIF, its text escaped."""
    stopped = [
        ("crossref", "2 requests in a row failed (timeout)"),
        ("data.medra.org (via doi)", "5 requests in a row failed (HTTP 503)"),
    ]
    log = sarif_log([], {}, stopped=stopped)
    assert list(validator.iter_errors(log)) == []
    [invocation] = log["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    notes = invocation["toolExecutionNotifications"]
    assert [(n["level"], n["descriptor"]["id"]) for n in notes] == [
        ("warning", "source-stopped"),
        ("warning", "source-stopped"),
    ]
    assert [n["properties"] for n in notes] == [{"source": s, "reason": why} for s, why in stopped]
    assert notes[1]["message"]["text"] == (
        "data.medra.org (via doi) stopped answering (5 requests in a row failed (HTTP 503)): "
        "the entries that needed it are unverified; check again later"
    )
    assert "toolExecutionNotifications" not in sarif_log([], {})["runs"][0]["invocations"][0]


def test_a_broken_log_is_rejected_by_the_schema(validator: jsonschema.Draft4Validator) -> None:
    """The validator really checks: a result with a 0-based line is not SARIF."""
    log: dict[str, Any] = sarif_log([], {})
    log["runs"][0]["results"].append(
        {
            "message": {"text": "x"},
            "locations": [{"physicalLocation": {"region": {"startLine": 0}}}],
        }
    )
    assert list(validator.iter_errors(log))


def test_rules_cover_every_code_with_metadata() -> None:
    table = rules()
    assert [r["id"] for r in table] == [c.value for c in Code]
    levels = {"error": Severity.ERROR, "warning": Severity.WARNING}
    for rule, code in zip(table, Code, strict=True):
        assert rule["helpUri"] == code_doc_url(code)
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"] == rule_text(code)
        level = rule["defaultConfiguration"]["level"]
        expected = DEFAULT_SEVERITY[code]
        if level in levels:
            assert levels[level] is expected
        else:
            assert level == "note" and expected in (Severity.INFORMATION, Severity.HINT)
    assert set(RULE_TEXT) <= set(Code)
    # Every code of the model at the time of writing has its own sentence.
    assert all(not rule_text(c).startswith("citewarden finding:") for c in RULE_TEXT)


def test_rules_are_tagged_by_what_found_them() -> None:
    """Codes of the citation index added after the verification codes (key-space,
    crossref-loop ...) are tagged "citations" all the same, as the HTML report groups them."""
    tags = {rule["id"]: rule["properties"]["tags"] for rule in rules()}
    for code in (Code.DANGLING, Code.KEY_SPACE, Code.CROSSREF_LOOP, Code.BIBLIOGRAPHY_IGNORED):
        assert tags[code.value] == ["citations"], code
    for code in (Code.DOI_NOT_FOUND, Code.PREPRINT_AS_PUBLISHED, Code.VENUE_UNINDEXED):
        assert tags[code.value] == ["verification"], code
    assert {c for c in Code if tags[c.value] == ["citations"]} == INDEX_CODES


def test_regions_are_one_based_code_point_columns(tmp_path: Path) -> None:
    bib, tex, texts = project(tmp_path)
    log = sarif_log(sample_findings(bib, tex, texts), texts, root=tmp_path)
    run = log["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    year = by_rule["year-mismatch"]["locations"][0]["physicalLocation"]
    # "  year = {2021}," is line 5 of BIB; '2021' starts at column 11 (1-based).
    assert year["region"]["startLine"] == 5
    assert year["region"]["startColumn"] == 11
    assert year["region"]["endColumn"] == 15
    assert year["region"]["snippet"]["text"] == "2021"
    assert year["artifactLocation"]["uri"] == "refs/refs.bib"
    assert year["artifactLocation"]["uriBaseId"] == "SRCROOT"
    dangling = by_rule["dangling-citation"]
    assert dangling["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
    assert dangling["locations"][0]["physicalLocation"]["region"]["startColumn"] == 7
    assert dangling["relatedLocations"][0]["message"]["text"] == "closest key"
    assert dangling["level"] == "error"
    assert by_rule["orphan-entry"]["level"] == "warning"
    assert by_rule["unverified"]["level"] == "note"
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tmp_path.resolve().as_uri() + "/"
    assert sorted(a["location"]["uri"] for a in run["artifacts"]) == ["paper.tex", "refs/refs.bib"]


def test_columns_count_code_points_after_astral_characters(tmp_path: Path) -> None:
    text = "@misc{k, title = {\U0001d49c\U0001d49c x}}\n"
    path = tmp_path / "a.bib"
    finding = Finding(Code.HOMOGLYPH, Location(path, span_of(text, "x")), "look-alike")
    region = sarif_log([finding], {path: text}, root=tmp_path)["runs"][0]["results"][0][
        "locations"
    ][0]["physicalLocation"]["region"]
    assert region["startColumn"] == text.index("x") + 1  # code points, not UTF-16 units


def test_fixes_become_replacements(tmp_path: Path) -> None:
    bib, tex, texts = project(tmp_path)
    log = sarif_log(sample_findings(bib, tex, texts), texts, root=tmp_path)
    year = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "year-mismatch")
    (fix,) = year["fixes"]
    (change,) = fix["artifactChanges"]
    (rep,) = change["replacements"]
    assert rep["insertedContent"]["text"] == "2020"
    assert rep["deletedRegion"]["startLine"] == 5
    assert change["artifactLocation"]["uri"] == "refs/refs.bib"


def test_severity_override_and_off(tmp_path: Path) -> None:
    bib, tex, texts = project(tmp_path)

    def severity_of(f: Finding) -> Severity | None:
        if f.code is Code.ORPHAN:
            return None
        if f.code is Code.UNVERIFIED:
            return Severity.ERROR
        return f.effective_severity

    results = sarif_log(sample_findings(bib, tex, texts), texts, severity_of=severity_of)["runs"][
        0
    ]["results"]
    assert "orphan-entry" not in {r["ruleId"] for r in results}
    assert next(r for r in results if r["ruleId"] == "unverified")["level"] == "error"


def test_files_outside_the_root_get_absolute_uris(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    other = tmp_path / "elsewhere.bib"
    finding = Finding(Code.BIB_SYNTAX, Location(other, Span(0, 1)), "unexpected character")
    loc = sarif_log([finding], {other: "x\n"}, root=root)["runs"][0]["results"][0]["locations"][0]
    assert loc["physicalLocation"]["artifactLocation"]["uri"] == other.resolve().as_uri()
    assert "uriBaseId" not in loc["physicalLocation"]["artifactLocation"]


def test_fingerprints_are_stable_and_distinct(tmp_path: Path) -> None:
    bib, tex, texts = project(tmp_path)
    a = sarif_log(sample_findings(bib, tex, texts), texts, root=tmp_path)
    b = sarif_log(sample_findings(bib, tex, texts), texts, root=tmp_path)
    prints = [r["partialFingerprints"]["citewarden/v1"] for r in a["runs"][0]["results"]]
    assert prints == [r["partialFingerprints"]["citewarden/v1"] for r in b["runs"][0]["results"]]
    assert len(set(prints)) == len(prints)


def test_verdict_issues_land_on_the_field_at_fault(tmp_path: Path) -> None:
    path = tmp_path / "refs.bib"
    year = span_of(BIB, "2021")
    entry = Entry(
        key="smith2020",
        entry_type="article",
        path=path,
        span=Span(BIB.index("@"), len(BIB) - 1),
        key_span=span_of(BIB, "smith2020"),
        fields=(Field("year", "2021", span_of(BIB, "year"), year),),
    )
    verdict = Verdict(
        key="smith2020",
        status=Status.MISMATCH,
        tier=Tier.M,
        issues=(
            Issue(Code.YEAR_MISMATCH, "year differs", field="year"),
            Issue(Code.MISSING_DOI, "the record has a DOI", field="doi"),
        ),
    )
    findings = entry_findings(entry, verdict, None)
    assert [f.location.span for f in findings] == [year, entry.key_span]
    assert all(not f.fixes for f in findings)
    corrected = Verdict(
        "smith2020", Status.MISMATCH, Tier.M, corrections={"year": "2020"}, issues=verdict.issues
    )
    year_fix = entry_findings(entry, corrected, BIB)[0].fixes[0]  # then 'Ignore this entry'
    assert [(e.span, e.new_text) for e in year_fix.edits] == [(year, "2020")]
    assert findings[0].data["field"] == "year"
    log = sarif_log(findings, {path: BIB})
    regions = [
        r["locations"][0]["physicalLocation"]["region"]["startLine"]
        for r in log["runs"][0]["results"]
    ]
    assert regions == [2, 5]  # sorted by position: key (line 2) then year (line 5)


def test_run_properties_score_and_tiers() -> None:
    verdicts = [
        Verdict("a", Status.NOT_FOUND, Tier.H),
        Verdict("b", Status.MISMATCH, Tier.E),
        Verdict("c", Status.SKIPPED, Tier.D),
        Verdict("d", Status.VERIFIED, Tier.D),
    ]
    props = run_properties(verdicts)
    assert props == {
        "score": 100 - 12 - 5,
        "tiers": {"H": 1, "E": 1, "M": 0, "D": 1},
        "statuses": {"not_found": 1, "mismatch": 1, "skipped": 1, "verified": 1},
        "counted": 3,
        "unverified": 0,
        "skipped": 1,
    }
    assert run_properties(None) is None


def test_verdict_issue_on_a_field_the_entry_names_otherwise(tmp_path: Path) -> None:
    """An issue about the journal lands on biblatex's ``journaltitle``, as in the editor."""
    text = "@article{lee2019,\n  journaltitle = {Nature},\n}\n"
    value = span_of(text, "Nature")
    entry = Entry(
        key="lee2019",
        entry_type="article",
        path=tmp_path / "refs.bib",
        span=Span(0, len(text) - 1),
        key_span=span_of(text, "lee2019"),
        fields=(Field("journaltitle", "Nature", span_of(text, "journaltitle"), value),),
    )
    verdict = Verdict(
        "lee2019",
        Status.MISMATCH,
        Tier.M,
        issues=(Issue(Code.VENUE_MISMATCH, "the venue differs", field="journal"),),
    )
    [finding] = entry_findings(entry, verdict, None)
    assert finding.location.span == value


def test_relative_uris_are_percent_encoded() -> None:
    """A SARIF ``uri`` is a URI reference: a space, ``#`` or ``%`` in a name would cut it or
    change it; a name that is not UTF-8 keeps its bytes."""
    import os

    from citewarden.report.sarif import relative_uri

    assert relative_uri(Path("refs/my paper#1 100%.bib")) == "refs/my%20paper%231%20100%25.bib"
    assert relative_uri(Path("café.tex")) == "caf%C3%A9.tex"
    assert relative_uri(Path(os.fsdecode(b"x\xfe.tex"))) == "x%FE.tex"


FINGERPRINT_TEX = (
    "\\documentclass{article}\n\\begin{document}\n\\cite{knuth1984,knuht1984}\n"
    "\\bibliography{refs}\n\\end{document}\n"
)
TWICE = "@book{knuth1984, title = {T}, year = {1984}}\n" * 2


def _prints(root: Path, bib: str, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[str, str]]:
    """Message and fingerprint of each dangling and duplicate-key result."""
    from citewarden import cli

    (root / "refs.bib").write_text(bib, encoding="utf-8")
    cli.main(["check", "main.tex", "--no-verify", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    return {
        r["ruleId"]: (r["message"]["text"], r["partialFingerprints"]["citewarden/v1"])
        for r in results
        if r["ruleId"] in (Code.DANGLING.value, Code.DUPLICATE_KEY.value)
    }


def test_fingerprints_do_not_follow_positions_or_suggestions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Lines added above a duplicate key move the first definition its message names
    (``refs.bib:1``, then ``refs.bib:4``) and a new entry adds a "did you mean" to a dangling
    key's message: neither finding is another one, so neither fingerprint changes."""
    (tmp_path / "main.tex").write_text(FINGERPRINT_TEX, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    before = _prints(tmp_path, TWICE, capsys)
    after = _prints(tmp_path, "% c\n\n@book{knuht1985, title = {U}}\n" + TWICE, capsys)
    assert set(before) == set(after) == {Code.DANGLING.value, Code.DUPLICATE_KEY.value}
    for rule in before:
        assert before[rule][0] != after[rule][0]  # the messages differ ...
        assert before[rule][1] == after[rule][1]  # ... the fingerprints do not


def test_fingerprints_of_messages_without_positions_are_kept(tmp_path: Path) -> None:
    """A message that says no position is fingerprinted as it always was: code, artifact
    URI, key, field and message (existing code-scanning alerts stay matched)."""
    import hashlib

    bib = tmp_path / "refs.bib"
    data = MappingProxyType({"key": "smith2020", "field": "year"})
    finding = Finding(
        Code.YEAR_MISMATCH, Location(bib, span_of(BIB, "2021")), "year is 2021", data=data
    )
    result = sarif_log([finding], {bib: BIB}, root=tmp_path)["runs"][0]["results"][0]
    raw = f"{Code.YEAR_MISMATCH.value}\0refs.bib\0smith2020\0year\0year is 2021"
    expected = hashlib.sha256(raw.encode()).hexdigest()[:32]
    assert result["partialFingerprints"]["citewarden/v1"] == expected


#: A paper with text ``above`` its citation of two keys and ``again`` after it.
ALIKE_TEX = (
    "\\documentclass{{article}}\n\\begin{{document}}\n{above}\\cite{{knuth1984,nemo}}\n"
    "{again}\\bibliography{{refs}}\n\\end{{document}}\n"
)


def _dangling_prints(root: Path, tex: str, capsys: pytest.CaptureFixture[str]) -> list[str]:
    from citewarden import cli

    (root / "main.tex").write_text(tex, encoding="utf-8")
    cli.main(["check", "main.tex", "--no-verify", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    dangling = [r for r in results if r["ruleId"] == Code.DANGLING.value]
    assert len({r["message"]["text"] for r in dangling}) == 1  # alike but for the place
    return [r["partialFingerprints"]["citewarden/v1"] for r in dangling]


def test_findings_alike_in_all_but_place_have_distinct_stable_fingerprints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key cited twice and defined nowhere: two dangling findings of the same code, file,
    key and message.  Each has its own fingerprint (its place among them), the first that of
    the key cited once, and lines added above or between them change neither."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "refs.bib").write_text("@book{knuth1984, title = {T}}\n", encoding="utf-8")
    twice = "\nAgain \\cite{nemo}.\n"
    once = _dangling_prints(tmp_path, ALIKE_TEX.format(above="", again=""), capsys)
    before = _dangling_prints(tmp_path, ALIKE_TEX.format(above="", again=twice), capsys)
    assert len(before) == len(set(before)) == 2
    assert before[0] == once[0]
    moved = ALIKE_TEX.format(above="Some text.\n\n% a comment\n", again="\n\n" + twice)
    assert _dangling_prints(tmp_path, moved, capsys) == before


def test_a_file_encoding_fingerprint_does_not_follow_the_byte_offset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """pandoc 3's "at byte offset N" in a file-encoding message moves with a line added
    above the byte: the same finding, so the same fingerprint."""
    from citewarden import cli

    (tmp_path / ".citewarden.toml").write_text('pandoc_version = "3.6"\n', encoding="utf-8")
    (tmp_path / "doc.md").write_text("---\nbibliography: refs.bib\n---\nSee [@k].\n")
    monkeypatch.chdir(tmp_path)

    def encoding_result(bib: bytes) -> tuple[str, str]:
        (tmp_path / "refs.bib").write_bytes(bib)
        cli.main(["check", "doc.md", "--no-verify", "--format", "sarif"])
        results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
        (found,) = [r for r in results if r["ruleId"] == Code.FILE_ENCODING.value]
        return found["message"]["text"], found["partialFingerprints"]["citewarden/v1"]

    before = encoding_result(b"% comment\n@misc{k, title={Caf\xe9}}\n")
    after = encoding_result(b"% comment\n% another\n@misc{k, title={Caf\xe9}}\n")
    assert "byte offset 29" in before[0] and "byte offset 39" in after[0]
    assert before[1] == after[1]


def test_a_key_shaped_as_an_embedded_link_is_no_link_in_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """GitHub code scanning reads "[text](0)" in a message as a link to related location
    0: a key 'k[y](0)' made one.  Its brackets are escaped; other brackets stay as they
    are."""
    from citewarden import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "main.tex").write_text(
        "\\documentclass{article}\\begin{document}\\cite{a[x](0)}\\cite{b[1]}"
        "\\bibliography{refs}\\end{document}\n",
        encoding="utf-8",
    )
    (tmp_path / "refs.bib").write_text(
        "@misc{k[y](0), title={A}}\n@misc{k[y](0), title={B}}\n", encoding="utf-8"
    )
    cli.main(["check", "main.tex", "--no-verify", "--format", "sarif"])
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    texts = [r["message"]["text"] for r in results]
    texts += [x["message"]["text"] for r in results for x in r.get("relatedLocations", [])]
    assert "citation key 'b[1]' is not defined in any bibliography" in texts
    assert "duplicate key 'k\\[y\\](0)' (first defined at refs.bib:1)" in texts
    assert "first definition of 'k\\[y\\](0)'" in texts
    assert not any("[x](" in t or "[y](" in t for t in texts)
    assert message_text("a\\](0) [b\\](1)") == "a\\](0) [b\\](1)"  # no link: as it is
    assert message_text("[k\\]](0)") == "\\[k\\\\\\]\\](0)"
