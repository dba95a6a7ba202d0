"""Everything Qt: windows, item models, charts and the scheduler's worker thread."""

from smartreader.gui._compat import guard_pyside_refcounts

guard_pyside_refcounts()  # before any module here makes thousands of Qt calls
