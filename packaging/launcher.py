"""Entry script of the PyInstaller bundle: the ``smartreader`` command, frozen."""

import multiprocessing
import sys

from smartreader.cli import main

if __name__ == "__main__":
    # The GUI parses feeds in worker processes: in a frozen app a worker is this
    # executable started again, and this hands it to multiprocessing.
    multiprocessing.freeze_support()
    sys.exit(main())
