"""Fixtures shared by the GUI tests."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont

from smartreader.gui import models


@pytest.fixture
def small_pages(monkeypatch):
    """Tiny article-list pages, one per event-loop turn: paging paths with few rows."""
    monkeypatch.setattr(models, "FIRST_PAGE", 10)
    monkeypatch.setattr(models, "KEY_PAGE", 17)
    monkeypatch.setattr(models, "SEARCH_SLICE", 50)
    monkeypatch.setattr(models, "LOAD_SLICE_S", 0.0)  # one page per event-loop turn


@pytest.fixture
def env(tmp_path, qtbot):
    """A real Store and Updater in ``tmp_path``; ``env.window()`` opens the main
    window on them (see ``tests.gui.test_mainwindow.Env``)."""
    from tests.gui.test_mainwindow import Env

    e = Env(tmp_path, qtbot)
    yield e
    e.close()


@pytest.fixture
def app_font(qapp):
    """Sets the application's font size (as a desktop's font setting does) and
    puts the old font back afterwards."""
    old = QFont(qapp.font())

    def set_pt(pt: float) -> None:
        f = QFont(old)
        f.setPointSizeF(pt)
        qapp.setFont(f)

    yield set_pt
    qapp.setFont(old)
