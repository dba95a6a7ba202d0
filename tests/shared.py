"""Where the team's shared test material (feeds corpus, traces) lives.

``SMARTREADER_SHARED`` wins; otherwise ``../shared`` next to the checkout, as on
the team's machines. Tests that need it skip with a clear reason when absent.
"""

from __future__ import annotations

import os
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]


def _find() -> Path:
    env = os.environ.get("SMARTREADER_SHARED")
    candidates = [Path(env)] if env else []
    candidates += [_REPO.parent / "shared", Path("/work/shared")]
    for c in candidates:
        if (c / "feeds-corpus").is_dir() or (c / "traces").is_dir():
            return c
    return candidates[0]


SHARED = _find()
CORPUS = SHARED / "feeds-corpus"
TRACES = SHARED / "traces"


def seeds_from_env(var: str, default: list[int]) -> list[int]:
    """The seeds a random-session test runs: ``default``, or those the environment
    variable ``var`` names ("5", "100-199", "5,7,100-110")."""
    import os

    spec = os.environ.get(var, "").strip()
    if not spec:
        return default
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("-")
        if lo:
            out.extend(range(int(lo), int(hi or lo) + 1))
    return out
