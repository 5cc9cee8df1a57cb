"""``python -m citewarden.lsp``: the language server (same as ``citewarden serve``)."""

import sys

from citewarden.lsp.server import main

sys.exit(main(sys.argv[1:]))
