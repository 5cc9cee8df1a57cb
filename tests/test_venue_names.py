"""Venue-name comparison, table-driven: the usual forms of a real venue agree with it; a name
that adds a distinguishing word to a real venue's name is another venue.

The record-side names are the ones real sources gave in recorded responses under tests/data
(Semantic Scholar venues in accuracy/refchecker/openreview_*.bibliography.json, OpenAlex
sources in accuracy/refchecker/openalex_search_works.jsonl, Crossref container titles in
api/crossref/refchecker_get_by_doi_*.json, dblp venues in venue/dblp)."""

from __future__ import annotations

import pytest

from citewarden.verify.venues import registry_venue, venue_agrees

#: (cited venue, a name a source gave for the same venue)
SAME_VENUE = [
    ("ICML", "International conference on machine learning"),
    ("ICML", "Proceedings of the 38th International Conference on Machine Learning"),
    ("ICLR", "The Fourteenth International Conference on Learning Representations"),
    ("ICLR", "International Conference on Learning Representations (ICLR)"),
    ("NeurIPS", "Advances in Neural Information Processing Systems (NeurIPS)"),
    ("NIPS", "Advances in neural information processing systems"),
    ("NeurIPS", "Neural Information Processing Systems"),
    ("CVPR", "Proceedings of the Computer Vision and Pattern Recognition Conference"),
    ("CVPR", "Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition"),
    ("ICCV", "Proceedings of the IEEE/CVF international conference on computer vision"),
    (
        "ACL",
        "Proceedings of the 62nd Annual Meeting of the Association for Computational "
        "Linguistics (Volume 1: Long Papers)",
    ),
    ("ACL", "Meeting of the Association for Computational Linguistics"),
    (
        "EMNLP",
        "Proceedings of the 2021 Conference on Empirical Methods in Natural Language Processing",
    ),
    ("AAAI", "Proceedings of the AAAI Conference on Artificial Intelligence"),
    ("STOC", "Proceedings of the 55th Annual ACM Symposium on Theory of Computing"),
    ("ICASSP", "IEEE International Conference on Acoustics, Speech, and Signal Processing"),
    ("SP", "IEEE Symposium on Security and Privacy"),
    (
        "International Conference on Machine Learning",
        "Proceedings of the 38th International Conference on Machine Learning",
    ),
    (
        "Proceedings of the Thirty-Eighth International Conference on Machine Learning",
        "ICML",
    ),
    ("International Conference on Machine Learning, Vienna, Austria", "ICML"),
    # a shared sponsor with the SIG name left out: dblp's name of the same venue
    (
        "ACM SIGSAC Conference on Computer and Communications Security",
        "ACM Conference on Computer and Communications Security (CCS)",
    ),
    ("Proc. Natl. Acad. Sci.", "Proceedings of the National Academy of Sciences"),
    # NLM's full title (a recorded Crossref reference's journal-title) and abbreviations
    # whose initials stand for "United States of America"
    (
        "Proceedings of the National Academy of Sciences of the United States of America",
        "Proc. Natl. Acad. Sci. U.S.A.",
    ),
    (
        "Proc Natl Acad Sci U S A",
        "Proceedings of the National Academy of Sciences of the United States of America",
    ),
    (
        "Proc. Natl. Acad. Sci. USA",
        "Proceedings of the National Academy of Sciences of the United States of America",
    ),
    # a sponsor before the acronym (a real reference's "IEEE TPAMI", dblp's name)
    ("IEEE TPAMI", "IEEE Trans. Pattern Anal. Mach. Intell."),
    # a journal's short name, Crossref's with its subtitle (accuracy/records.jsonl)
    ("Ambio", "AMBIO: A Journal of the Human Environment"),
    ("Industrial Robot", "Industrial Robot: An International Journal"),
    # the 1979 name of a journal, Crossref's current one (recorded, Gittins 1979)
    (
        "Journal of the Royal Statistical Society: Series B (Methodological)",
        "Journal of the Royal Statistical Society Series B: Statistical Methodology",
    ),
]

#: (a fabricated or different venue, the real venue it borrows words from)
OTHER_VENUE = [
    ("International Conference on Quantum Machine Learning", "ICML"),
    (
        "International Conference on Quantum Machine Learning",
        "International Conference on Machine Learning",
    ),
    ("International Conference on Learning Representations for Robotics", "ICLR"),
    ("Conference on Neural Information Processing Systems in Medicine", "NeurIPS"),
    ("European Conference on Computer Vision and Graphics", "ECCV"),
    ("International Conference on Federated Machine Learning", "ICML"),
    ("Annual Meeting of the Association for Quantum Computational Linguistics", "ACL"),
    ("Journal of Statistical Machine Learning Theory", "ICML"),
    ("Journal of Statistical Machine Learning Theory", "Journal of Machine Learning Research"),
    # one letter more is another acronym, a shared sponsor is not a shared venue
    ("ICQML", "ICML"),
    ("IEEE TIP", "IEEE Trans. Pattern Anal. Mach. Intell."),
    (
        "Journal of the Royal Statistical Society: Series A (Statistics in Society)",
        "Journal of the Royal Statistical Society Series B: Statistical Methodology",
    ),
    ("ACM SIGSAC Conference on Computer and Communications Security", "KDD"),
    # a series letter is no initial of a word
    (
        "Phil. Trans. R. Soc. A",
        "Philosophical Transactions of the Royal Society B: Biological Sciences",
    ),
    # a word saying what kind of periodical names none before a subtitle
    ("Proceedings", "Proceedings: Mathematical and Physical Sciences"),
    ("Letters", "Letters: Applied Microbiology"),
    (
        "ACM SIGSAC Conference on Computer and Communications Security",
        "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
    ),
]


@pytest.mark.parametrize(("cited", "record"), SAME_VENUE)
def test_usual_forms_of_a_real_venue_agree(cited: str, record: str) -> None:
    assert venue_agrees(cited, [record])
    assert venue_agrees(record, [cited])


@pytest.mark.parametrize(("cited", "record"), OTHER_VENUE)
def test_a_name_that_adds_a_distinguishing_word_is_another_venue(cited: str, record: str) -> None:
    assert not venue_agrees(cited, [record])
    assert not venue_agrees(record, [cited])


@pytest.mark.parametrize("cited", [c for c, _ in OTHER_VENUE])
def test_a_fabricated_venue_is_not_a_registry_venue(cited: str) -> None:
    assert registry_venue(cited) is None
