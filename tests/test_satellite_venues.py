"""A workshop or Findings paper cited as a paper of the conference that hosts it is a venue
difference; a citation that names the satellite of a work an index files under the host is
not.  Records are real recorded answers (refchecker's dblp, Crossref and OpenAlex caches,
tests/data/accuracy/refchecker), read by the sources' own parsers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from citewarden.model import Code
from citewarden.verify.compare import Agreement, compare
from citewarden.verify.normalize import make_entry, normalize_entry
from citewarden.verify.records import WorkRecord
from citewarden.verify.satellite_venues import (
    names_satellite,
    satellite_cited_as_host,
    satellite_host,
)
from citewarden.verify.sources.crossref import work_from_csl
from citewarden.verify.sources.dblp import work_from_dblp
from citewarden.verify.sources.openalex import work_from_openalex
from citewarden.verify.venue_check import publisher_venue
from paths import DATA

REFCHECKER = DATA / "accuracy" / "refchecker"


def _rows(name: str) -> list[dict[str, Any]]:
    text = (REFCHECKER / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def dblp_record(title_start: str) -> WorkRecord:
    for row in _rows("dblp_search.jsonl"):
        for hit in row["body"] or []:
            if str(hit["info"]["title"]).startswith(title_start):
                rec = work_from_dblp(hit)
                assert rec is not None
                return rec
    raise AssertionError(f"no recorded dblp hit for {title_start!r}")


def crossref_record(title_start: str) -> WorkRecord:
    for row in _rows("crossref_search_works.jsonl"):
        for item in row["body"] or []:
            if (item.get("title") or [""])[0].startswith(title_start):
                rec = work_from_csl(item)
                assert rec is not None
                return rec
    raise AssertionError(f"no recorded Crossref item for {title_start!r}")


def cite(rec: WorkRecord, venue: str) -> Any:
    """A citation of ``rec`` as recorded, with ``venue`` as its booktitle."""
    fields = {
        "title": rec.title,
        "author": " and ".join(f"{a.family}, {a.given}" for a in rec.authors),
        "year": str(rec.year),
        "booktitle": venue,
    }
    return normalize_entry(make_entry("k", "inproceedings", fields))


@pytest.mark.parametrize(
    ("name", "satellite", "host"),
    [
        # venue names as sources record them
        ("CVPR Workshops", True, "CVPR"),
        (
            "2017 IEEE International Conference on Software Architecture Workshops (ICSAW)",
            True,
            "2017 IEEE International Conference on Software Architecture",
        ),
        ("MICCAI Brain Lesion Workshop 2015", True, "MICCAI Brain Lesion"),
        ("ICCVW", True, "ICCV"),
        ("Workshop on Efficient Natural Language Processing at NeurIPS 2023", True, "NeurIPS 2023"),
        (
            "Findings of the Association for Computational Linguistics: EMNLP 2023",
            True,
            "EMNLP 2023",
        ),
        ("EMNLP (Findings)", True, "EMNLP"),
        ("Findings of EMNLP", True, "EMNLP"),
        # workshops of their own: no host conference to confuse them with
        ("2021 IEEE Spoken Language Technology Workshop (SLT)", True, None),
        ("International Workshop on Multi-Agent Systems and Agent-Based Simulation", True, None),
        ("Proceedings of the 2nd Workshop on Representation Learning for NLP", True, None),
        ("Proceedings of the 15th IEEE Computer Security Foundations Workshop", True, None),
        # not workshops
        ("WWW", False, None),
        ("International Conference and Workshop on Computing and Communication", False, None),
        ("CVPR", False, None),
        ("Advances in Neural Information Processing Systems", False, None),
    ],
)
def test_satellite_names_and_their_host_conference(
    name: str, satellite: bool, host: str | None
) -> None:
    assert names_satellite(name) is satellite
    assert satellite_host(name) == host


def test_a_workshop_paper_cited_as_the_host_conference_differs_at_dblp() -> None:
    # Chen and Srivastava, SrvfRegNet, CVPR Workshops 2021 (dblp conf/cvpr/ChenS21); the
    # citing paper's own reference names the workshops
    rec = dblp_record("SrvfRegNet")
    assert rec.venue == "CVPR Workshops"
    as_cited = (
        "2021 IEEE/CVF Conference on Computer Vision and Pattern Recognition Workshops (CVPRW)"
    )
    assert compare(cite(rec, as_cited), rec).venue_raw is Agreement.EQUAL
    for host in (
        "2021 IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)",
        "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition",
        "CVPR",
    ):
        cmp = compare(cite(rec, host), rec)
        # an index's venue: the indexes' opinions settle it (venue_raw starts them)
        assert cmp.venue_raw is Agreement.DIFFERENT and cmp.venue is Agreement.UNKNOWN


def test_a_workshop_paper_cited_as_the_host_conference_is_a_mismatch_at_crossref() -> None:
    # ActivFORMS, 2017 IEEE International Conference on Software Architecture Workshops
    # (Crossref 10.1109/icsaw.2017.21): the publisher's container title settles it
    rec = crossref_record("ActivFORMS")
    assert rec.venue is not None and "Workshops (ICSAW)" in rec.venue
    entry = cite(rec, "2017 IEEE International Conference on Software Architecture (ICSA)")
    cmp = compare(entry, rec)
    assert cmp.venue is Agreement.DIFFERENT
    issues, corrections = publisher_venue(entry, cmp)
    assert [i.code for i in issues] == [Code.VENUE_MISMATCH]
    assert corrections == {"booktitle": rec.venue}
    assert compare(cite(rec, rec.venue), rec).venue is Agreement.EQUAL
    assert compare(cite(rec, "ICSA Workshops"), rec).venue is Agreement.EQUAL


def test_a_citation_naming_the_workshop_of_a_work_filed_under_the_host_agrees() -> None:
    # an index that files a paper under the main conference says nothing against a
    # citation of one of its workshops (indexes often file workshop papers so)
    rec = dblp_record("Class Attention Transfer Based Knowledge Distillation")
    assert rec.venue == "CVPR"
    assert compare(cite(rec, "CVPR Workshops"), rec).venue_raw is Agreement.EQUAL
    assert not satellite_cited_as_host("CVPR Workshops", ["CVPR"])
    assert satellite_cited_as_host("CVPR", ["CVPR Workshops"])


def openalex_record(title_start: str) -> WorkRecord:
    for row in _rows("openalex_search_works.jsonl"):
        body = row["body"]
        for work in body.get("results") or [] if isinstance(body, dict) else body or []:
            if str(work.get("title") or "").startswith(title_start):
                rec = work_from_openalex(work)
                assert rec is not None
                return rec
    raise AssertionError(f"no recorded OpenAlex work for {title_start!r}")


def test_a_findings_paper_cited_as_the_main_conference_differs() -> None:
    # Li et al., "Multi-step Jailbreaking Privacy Attacks on ChatGPT", Findings of EMNLP
    # 2023 (10.18653/v1/2023.findings-emnlp.272), as OpenAlex records it
    rec = openalex_record("Multi-step Jailbreaking Privacy Attacks on ChatGPT")
    names = [n for n in (rec.venue, *rec.venue_short) if n]
    assert any("Findings" in n for n in names), names
    for main in (
        "EMNLP",
        "Proceedings of the 2023 Conference on Empirical Methods in Natural Language Processing",
    ):
        assert compare(cite(rec, main), rec).venue_raw is Agreement.DIFFERENT
    for findings in (
        "Findings of the Association for Computational Linguistics: EMNLP 2023",
        "Findings of EMNLP 2023",
    ):
        assert compare(cite(rec, findings), rec).venue_raw is Agreement.EQUAL
