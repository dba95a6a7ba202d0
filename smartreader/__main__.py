"""``python -m smartreader``: the same as the ``smartreader`` command."""

import sys

from smartreader.cli import main

sys.exit(main())
