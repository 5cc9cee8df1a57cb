"""From verdicts and checks to the findings every consumer shows.

* :mod:`.verdicts` turns a verdict into findings on the field at fault, with their fixes;
* :mod:`.policy` is the one policy step every finding goes through, index or verification,
  on the command line and in the editor: ignore globs, suppression comments, per-code
  severity, tier severity, in that order;
* :mod:`.score` is the one score summary (score, tier counts, what counts and what not).
"""
