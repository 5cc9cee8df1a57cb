"""Turning a dangling citation key, or an identifier, into a bibliography entry.

Pure pieces (no I/O): :mod:`.keys` reads a key's likely surname, year and title words;
:mod:`.bibtex_out` builds a BibTeX entry from a record in the style of the target file;
:mod:`.csl_out` writes CSL-JSON / CSL-YAML items.  The look-up itself (search and rank
through the verification sources) is :mod:`citewarden.verify.lookup_key`.
"""
