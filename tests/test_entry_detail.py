"""An entry's one-line detail (completion items): its authors' surnames as the text shows
them, an organisation's name whole."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from citewarden.lsp.entries import detail
from citewarden.model import ParsedBibliography
from citewarden.parsing.bibtex import parse_bibtex
from citewarden.parsing.csl import parse_csl_json, parse_csl_yaml

FAO_BIB = """@report{fao,
  author = {{Food and Agriculture Organization}},
  title = {The State of Food and Agriculture},
  year = {2019},
}
@article{two,
  author = {{World Health Organization} and Smith, Jane},
  title = {T},
  year = {2020},
}
@article{many,
  author = {Jan van der Berg and Lee, Kim and Park, Min},
  title = {T},
  year = {2021},
}
"""

FAO_YAML = """references:
- id: fao
  type: report
  author:
  - literal: Food and Agriculture Organization
  title: The State of Food and Agriculture
  issued: 2019
"""

FAO_JSON = """[{"id": "fao", "type": "report",
  "author": [{"literal": "Food and Agriculture Organization"}, {"family": "Doe", "given": "J."}],
  "title": "The State of Food and Agriculture", "issued": {"date-parts": [[2019]]}}]
"""


def test_a_braced_organisation_is_shown_whole() -> None:
    entries = {e.key: e for e in parse_bibtex(Path("r.bib"), FAO_BIB).entries}
    assert detail(entries["fao"]) == (
        "Food and Agriculture Organization (2019) The State of Food and Agriculture"
    )
    assert detail(entries["two"]).startswith("World Health Organization and Smith (2020)")
    assert detail(entries["many"]).startswith("van der Berg et al. (2021)")


@pytest.mark.parametrize(
    ("parse", "text", "who"),
    [
        (parse_csl_yaml, FAO_YAML, "Food and Agriculture Organization (2019)"),
        (parse_csl_json, FAO_JSON, "Food and Agriculture Organization and Doe (2019)"),
    ],
)
def test_a_csl_literal_name_is_shown_whole(
    parse: Callable[[Path, str], ParsedBibliography], text: str, who: str
) -> None:
    (entry,) = parse(Path("refs"), text).entries
    assert detail(entry).startswith(who)
