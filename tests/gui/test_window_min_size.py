"""The main window fits a small laptop screen whichever tab is shown: the Activity
page's chart, cards and lists scroll in a short pane instead of setting the
window's minimum size (a hidden tab's minimum counts in the QTabWidget's)."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QScrollArea

from smartreader.core.models import FetchObservation, ItemSighting, ParsedEntry
from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.gui.mainwindow import MainWindow
from smartreader.gui.prefs import Prefs
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

DAY = 86400.0
SMALL = QSize(800, 500)


def _learned_state(now: float) -> dict:
    """Three weeks of a feed posting 20 items a day around 09:00 UTC, as learned
    by the real scheduler: the Activity page then has a curve, a plan and notes."""
    t0 = (now - 21 * DAY) // DAY * DAY
    sched = Scheduler(SchedulerConfig(budget_per_day=200.0), t0)
    sched.add_feed("f", host="127.0.0.1")
    posted: list[str] = []
    for d in range(21):
        posted += [f"{d}-{k}" for k in range(20)]
        items = tuple(
            ItemSighting(uid, t0 + d * DAY + 9 * 3600, uid.startswith(f"{d}-"))
            for uid in posted[-10:]
        )
        sched.observe("f", FetchObservation(t0 + d * DAY + 12 * 3600, "ok", items))
    return sched.export_state("f")


@pytest.fixture
def window(tmp_path, qtbot):
    now = time.time()
    store = Store(tmp_path / "db.sqlite3")
    fid = store.add_feed(
        "http://127.0.0.1/a-rather-long-feed-address/that/goes/on/and/on/feed.xml",
        title="A feed whose title is long enough to wrap in a narrow pane",
        now=now - DAY,
    )
    for k in range(30):
        t = now - 600 * (30 - k)
        ents = [ParsedEntry(f"e{k}", f"Item {k}", None, "", t, None, "", "")]
        store.record_fetch(FetchRecord(fid, t, "ok", http_status=200, entries=ents))
    store.save_scheduler_state({fid: _learned_state(now)})
    updater = Updater(store)
    win = MainWindow(store, updater, prefs=Prefs.in_dir(tmp_path), tray=False)
    qtbot.addWidget(win)
    win.show()
    win.resize(1280, 800)
    win.select_feed(fid)
    yield win
    win.close()
    updater.close()
    store.close()


def _fits(qtbot, win: MainWindow, size: QSize) -> None:
    hint, minimum = win.minimumSizeHint(), win.minimumSize()
    assert hint.width() <= size.width() and hint.height() <= size.height(), hint
    assert minimum.width() <= size.width() and minimum.height() <= size.height(), minimum
    win.resize(size)
    qtbot.waitUntil(lambda: win.size() == size, timeout=2000)
    qtbot.wait(50)  # a late minimum (the page laid out at its new width) would grow it
    assert win.size() == size


def test_the_window_resizes_to_800x500_on_every_tab(qtbot, window):
    win = window
    for tab in (win.article_view, win.activity, win.alerts_view):
        win.tabs.setCurrentWidget(tab)
        win.resize(1280, 800)
        qtbot.wait(50)
        _fits(qtbot, win, SMALL)
    # The Activity tab once more, on its overview (no feed selected) and on the feed.
    win.tabs.setCurrentWidget(win.activity)
    win.select_key("smart:all")
    qtbot.waitUntil(lambda: win.activity.stack.currentWidget() is win.activity.overview)
    _fits(qtbot, win, SMALL)


@pytest.mark.parametrize("overview", [False, True])
def test_a_short_activity_pane_scrolls_down_not_sideways(qtbot, window, overview):
    win = window
    win.tabs.setCurrentWidget(win.activity)
    if overview:
        win.select_key("smart:all")
    page = win.activity.overview if overview else win.activity.feed_view
    qtbot.waitUntil(lambda: win.activity.stack.currentWidget() is page)
    assert overview or win.activity.feed_view.chart.has_data()
    _fits(qtbot, win, SMALL)
    area = page.findChild(QScrollArea)
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() > 0, timeout=2000)
    assert area.horizontalScrollBar().maximum() == 0
    chart = win.activity.overview.heatmap if overview else win.activity.feed_view.chart
    assert chart.height() >= 150 and chart.width() <= area.viewport().width()
