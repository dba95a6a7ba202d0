"""``python -m smartreader``: the same as the ``smartreader`` command."""

import sys

from smartreader.cli import main

# Guarded: the GUI's parse workers re-import the main module under another name.
if __name__ == "__main__":
    sys.exit(main())
