"""Scheduling benchmark: all replay policies on dev-portfolio at 1–24 h, plus scaling.

    python benchmarks/scheduling.py --out docs/benchmarks.md

A thin wrapper around :mod:`smartreader.sim.bench` (see its docstring for options).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from smartreader.sim.bench import main

if __name__ == "__main__":
    sys.exit(main())
