"""citewarden: citation checking and reference verification for LaTeX, Markdown and BibTeX."""

__version__ = "0.1.0"
