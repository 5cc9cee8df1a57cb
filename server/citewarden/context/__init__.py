"""Citation context: the sentence that cites a work, and how well the work fits it (pure)."""
