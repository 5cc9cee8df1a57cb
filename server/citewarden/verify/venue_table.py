"""The bundled venue table: venues bibliographies cite often, with their acronyms, official
and past names, and the year each series began (pure data).

Facts about the venues themselves, from their own histories.  :mod:`citewarden.verify.venues`
builds its aliases and first years from it.
"""

from __future__ import annotations

from dataclasses import dataclass


class VenueKind:
    CONFERENCE = "conference"
    JOURNAL = "journal"
    PREPRINT = "preprint"


@dataclass(frozen=True, slots=True)
class Venue:
    """One real venue: its acronym, official name first, then past and other names."""

    acronym: str
    kind: str
    first_year: int | None
    names: tuple[str, ...]


def _v(acronym: str, kind: str, first_year: int | None, *names: str) -> Venue:
    return Venue(acronym, kind, first_year, names)


_C, _J, _P = VenueKind.CONFERENCE, VenueKind.JOURNAL, VenueKind.PREPRINT

#: Venues often cited by acronym alone, with the year their series began (for "year before
#: the venue existed").  Facts about the venues themselves, from their own histories.
BUNDLED: tuple[Venue, ...] = (
    _v(
        "NeurIPS",
        _C,
        1987,
        "Advances in Neural Information Processing Systems",
        "Neural Information Processing Systems",
        "NIPS",
    ),
    _v("ICML", _C, 1980, "International Conference on Machine Learning"),
    _v("ICLR", _C, 2013, "International Conference on Learning Representations"),
    _v(
        "CVPR",
        _C,
        1983,
        "IEEE/CVF Conference on Computer Vision and Pattern Recognition",
        "Computer Vision and Pattern Recognition",
    ),
    _v(
        "ICCV",
        _C,
        1987,
        "IEEE/CVF International Conference on Computer Vision",
        "International Conference on Computer Vision",
    ),
    _v("ECCV", _C, 1990, "European Conference on Computer Vision"),
    _v("WACV", _C, 1992, "IEEE/CVF Winter Conference on Applications of Computer Vision"),
    _v("BMVC", _C, 1990, "British Machine Vision Conference"),
    _v(
        "ACL",
        _C,
        1963,
        "Annual Meeting of the Association for Computational Linguistics",
        "Association for Computational Linguistics",
    ),
    _v(
        "EMNLP",
        _C,
        1996,
        "Conference on Empirical Methods in Natural Language Processing",
        "Empirical Methods in Natural Language Processing",
    ),
    _v(
        "NAACL", _C, 2000, "North American Chapter of the Association for Computational Linguistics"
    ),
    _v("EACL", _C, 1983, "European Chapter of the Association for Computational Linguistics"),
    _v("COLING", _C, 1965, "International Conference on Computational Linguistics"),
    _v("CoNLL", _C, 1997, "Conference on Computational Natural Language Learning"),
    _v("TACL", _J, 2013, "Transactions of the Association for Computational Linguistics"),
    _v(
        "AAAI",
        _C,
        1980,
        "AAAI Conference on Artificial Intelligence",
        "Association for the Advancement of Artificial Intelligence",
    ),
    _v("IJCAI", _C, 1969, "International Joint Conference on Artificial Intelligence"),
    _v(
        "KDD",
        _C,
        1995,
        "ACM SIGKDD Conference on Knowledge Discovery and Data Mining",
        "Knowledge Discovery and Data Mining",
    ),
    _v(
        "SIGIR",
        _C,
        1978,
        "International ACM SIGIR Conference on Research and Development in Information Retrieval",
        "Research and Development in Information Retrieval",
    ),
    _v("WWW", _C, 1994, "The Web Conference", "International World Wide Web Conference"),
    _v("WSDM", _C, 2008, "International Conference on Web Search and Data Mining"),
    _v("CIKM", _C, 1992, "International Conference on Information and Knowledge Management"),
    _v(
        "AISTATS",
        _C,
        1985,
        "International Conference on Artificial Intelligence and Statistics",
        "Artificial Intelligence and Statistics",
    ),
    _v(
        "UAI",
        _C,
        1985,
        "Conference on Uncertainty in Artificial Intelligence",
        "Uncertainty in Artificial Intelligence",
    ),
    _v("COLT", _C, 1988, "Conference on Learning Theory", "Computational Learning Theory"),
    _v("CoRL", _C, 2017, "Conference on Robot Learning"),
    _v("ICRA", _C, 1984, "IEEE International Conference on Robotics and Automation"),
    _v("IROS", _C, 1988, "IEEE/RSJ International Conference on Intelligent Robots and Systems"),
    _v("MICCAI", _C, 1998, "Medical Image Computing and Computer Assisted Intervention"),
    _v(
        "ICASSP",
        _C,
        1976,
        "IEEE International Conference on Acoustics, Speech and Signal Processing",
    ),
    _v("CHI", _C, 1982, "CHI Conference on Human Factors in Computing Systems"),
    _v("SIGMOD", _C, 1975, "International Conference on Management of Data"),
    _v("VLDB", _C, 1975, "International Conference on Very Large Data Bases"),
    _v("STOC", _C, 1969, "Symposium on Theory of Computing"),
    _v("FOCS", _C, 1960, "Symposium on Foundations of Computer Science"),
    _v("SODA", _C, 1990, "Symposium on Discrete Algorithms"),
    _v("JMLR", _J, 2000, "Journal of Machine Learning Research"),
    _v("TMLR", _J, 2022, "Transactions on Machine Learning Research"),
    _v("TPAMI", _J, 1979, "IEEE Transactions on Pattern Analysis and Machine Intelligence"),
    _v("PNAS", _J, 1915, "Proceedings of the National Academy of Sciences"),
    _v("PLOS ONE", _J, 2006, "PLOS ONE", "PLoS ONE"),
    _v("eLife", _J, 2012, "eLife"),
    _v("Sci. Rep.", _J, 2011, "Scientific Reports"),
    _v("Nat. Commun.", _J, 2010, "Nature Communications"),
    _v("Nat. Mach. Intell.", _J, 2019, "Nature Machine Intelligence"),
    _v("PeerJ", _J, 2013, "PeerJ"),
    _v("PeerJ Comput. Sci.", _J, 2015, "PeerJ Computer Science"),
    _v("Front. Psychol.", _J, 2010, "Frontiers in Psychology"),
    _v("JOSS", _J, 2016, "Journal of Open Source Software"),
    _v("Nurs. Womens Health", _J, 2007, "Nursing for Women's Health"),
    _v("arXiv", _P, 1991, "arXiv", "CoRR", "arXiv (Cornell University)", "arXiv.org"),
    _v("bioRxiv", _P, 2013, "bioRxiv"),
    _v("medRxiv", _P, 2019, "medRxiv"),
    _v("SSRN", _P, 1994, "SSRN Electronic Journal", "Social Science Research Network"),
)
