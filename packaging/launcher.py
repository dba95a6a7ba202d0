"""Entry script of the PyInstaller bundle: the ``smartreader`` command, frozen."""

import sys

from smartreader.cli import main

if __name__ == "__main__":
    sys.exit(main())
