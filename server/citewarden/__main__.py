"""``python -m citewarden``."""

import sys

from citewarden.cli import main

sys.exit(main())
