"""Work-arounds for known bugs in the Qt binding, applied once on import of ``gui``."""

from __future__ import annotations

import ctypes
import sys

import PySide6

_GUARDED = False


def guard_pyside_refcounts() -> None:
    """Work around PySide6 6.12.0 on CPython < 3.12: its void methods return ``None``
    without taking a reference (fine where ``None`` is immortal, 3.12+), so every
    ``resize()``/``setPen()``/``timer.start()`` call drops one reference to ``None``
    and the process aborts with "none_dealloc" after a few thousand calls (verified:
    1000 ``QWidget.resize()`` calls lower ``sys.getrefcount(None)`` by 1000). Giving
    ``None``/``True``/``False`` a huge reference count makes them effectively
    immortal, as 3.12 does. A no-op on other combinations; the real fix is pinning
    ``PySide6-Essentials!=6.12.0`` (6.11.x is fine)."""
    global _GUARDED
    if _GUARDED or sys.version_info >= (3, 12) or not PySide6.__version__.startswith("6.12."):
        return
    _GUARDED = True
    for obj in (None, True, False):
        # ob_refcnt is the first field of every object in release builds.
        ctypes.c_ssize_t.from_address(id(obj)).value += 1 << 40
