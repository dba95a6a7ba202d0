"""Fixtures shared by the GUI tests."""

from __future__ import annotations

import pytest

from smartreader.gui import models


@pytest.fixture
def small_pages(monkeypatch):
    """Tiny article-list pages, one per event-loop turn: paging paths with few rows."""
    monkeypatch.setattr(models, "FIRST_PAGE", 10)
    monkeypatch.setattr(models, "KEY_PAGE", 17)
    monkeypatch.setattr(models, "SEARCH_SLICE", 50)
    monkeypatch.setattr(models, "LOAD_SLICE_S", 0.0)  # one page per event-loop turn
