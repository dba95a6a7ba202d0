"""The GUI entry point called by ``smartreader`` with no subcommand (see cli.py).

Kept tiny so ``smartreader --help`` never imports Qt; everything else lives in
``smartreader.gui.app``.
"""

from __future__ import annotations

import os


def run_gui(data_dir: str | os.PathLike[str] | None = None, demo: bool = False) -> int:
    """Open the main window on ``data_dir`` (or, with ``demo``, on a temporary demo
    folder with a local feed server) and return the exit code."""
    from smartreader.gui.app import run

    return run(data_dir, demo=demo)


def main() -> int:
    """The ``smartreader-gui`` launcher (``[project.gui-scripts]``): the same as the
    ``smartreader`` command, but installed as a windowed program, so on Windows it
    starts without a console window (pythonw), where ``sys.stdout``/``stderr`` are
    None; they are pointed at the null device so nothing fails on a stray print."""
    import sys

    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115
    from smartreader.cli import main as cli_main

    return cli_main()
