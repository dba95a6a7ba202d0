"""Wording shared by the CLI, the GUI and the import/export reports (no Qt)."""

from __future__ import annotations


def count_of(n: int, noun: str) -> str:
    """'1 article', '1,234 articles' (the noun's plural is noun + s)."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
