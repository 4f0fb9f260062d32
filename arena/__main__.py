"""``python -m arena``: the same command as ``arena``."""

import sys

from arena.cli import main

sys.exit(main())
