"""Fixtures shared by the GUI tests."""

from __future__ import annotations

import time

import pytest
from PySide6.QtGui import QFont

from smartreader.gui import models
from smartreader.storage import FetchRecord
from tests.storage.test_store import entry


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


@pytest.fixture
def aged(store):
    """One feed: 4 articles stored 40 days ago (2 read, 1 of them starred), 2 today
    (the test module's ``store``)."""
    now = time.time()
    day = 86400.0
    fid = store.add_feed("https://news.invalid/feed.xml", title="News", now=now - 40 * day)
    store.record_fetch(
        FetchRecord(fid, now - 40 * day, "ok", entries=[entry(f"old{i}") for i in range(4)])
    )
    store.record_fetch(FetchRecord(fid, now, "ok", entries=[entry("new0"), entry("new1")]))
    ids = {r[1]: r[0] for r in store._q("SELECT id, uid FROM entries")}
    store.set_read([ids["old0"], ids["old1"], ids["new0"]], True)
    store.set_starred([ids["old1"]], True)
    return fid


@pytest.fixture
def opened() -> list[str]:
    """The links the ``view`` fixture's pane opened."""
    return []


@pytest.fixture
def view(qtbot, opened, request):
    """A reading pane, shown, at the test module's ``VIEW_SIZE`` (700 × 500 if it
    sets none); the links it opens go to ``opened``."""
    from smartreader.gui.article_view import ArticleView

    v = ArticleView(open_url=lambda u: opened.append(u.toString()))
    qtbot.addWidget(v)
    v.resize(*getattr(request.module, "VIEW_SIZE", (700, 500)))
    v.show()
    qtbot.waitExposed(v)
    return v
