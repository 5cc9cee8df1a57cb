"""What pairs TeX's braces and brackets, as the readers of arguments and groups scan it.

An escaped character (``\\{``, ``\\%``) and a comment (``% {``) hold no brace or bracket
that counts; every scanner of groups passes over them the same way, and adds the
characters it pairs (and where it stops) to these.
"""

from __future__ import annotations

import re

#: what hides a brace or a bracket from the pairing: an escaped character, a comment
ESCAPES_AND_COMMENTS = r"\\[\s\S]|%[^\n]*+"
#: the tokens that pair braces
BRACE_TOKENS = re.compile(ESCAPES_AND_COMMENTS + r"|[{}]")
