"""The HTML audit report (``citewarden check --format html --output report.html``).

One self-contained file: inline CSS and SVG, no scripts, no fonts or images from the
network, printable.  Sections: executive dashboard (score gauge, tier counts, % defensible,
dangling / orphan / duplicate counts), per-file summary, a flow diagram of how entries moved
through verification, the ranked suspicion index, the per-entry audit table, the citation
index findings, the cleaned reference list (corrected BibTeX and a formatted reference per
entry) and a methodology appendix.  Every piece of text from the user's files or from a
metadata source is HTML-escaped.

Modules: ``data`` (the report data and the classification of entries), ``markup`` (escaping
and small helpers), ``charts`` (the SVG gauge and flow diagram), ``sections``, ``page`` (the
stylesheet and the document) and ``build`` (the data of one check run, the page of an audit).
"""
