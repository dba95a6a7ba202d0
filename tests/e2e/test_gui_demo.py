"""End to end: the app on ``--demo`` data, with the live demo server and real HTTP."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from smartreader.demo import DemoSession, load_feeds, window
from smartreader.gui.app import AppController, create_app
from smartreader.gui.models import UnreadRole
from tests.httpserver import Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture(scope="module")
def demo_history(tmp_path_factory):
    """One pre-filled demo folder, copied per test (the replay takes seconds)."""
    session = DemoSession(data_dir=tmp_path_factory.mktemp("demo-src"))
    session.server.stop()
    yield session.data_dir


@pytest.fixture
def app_on_demo(qtbot):
    ctl = AppController(create_app())
    win = ctl.open(None, demo=True)
    qtbot.addWidget(win)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    yield ctl, win
    ctl.close()
    assert not win.sched.qthread.isRunning()


def test_demo_window_shows_history_reads_stars_searches(app_on_demo, qtbot):
    ctl, win = app_on_demo
    store = win.store
    assert "demo" in win.windowTitle()
    # its history took seconds to make, with a note on screen (not a blank start)
    assert [n.split("\n")[0] for n in ctl.notes_seen] == ["Preparing the demo…"]
    # Entries, unread counts and a learned curve are there at once.
    unread = int(win.tree_model.index_for_key("smart:unread").data(UnreadRole))
    assert unread > 20 and win.list_model.rowCount() == unread
    ledger = ctl._demo.feed_ids["ledger"]
    win.select_feed(ledger)
    win.tabs.setCurrentWidget(win.activity)
    chart = win.activity.feed_view.chart
    assert chart.has_data() and any(v > 0 for v in chart.bar_values())
    assert chart.planned_positions(), "upcoming fetches are marked"
    # Keyboard: j opens and marks read, s stars, counts follow.
    before = int(win.tree_model.index_for_key(f"feed:{ledger}").data(UnreadRole))
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    eid = win.selected_entry_id()
    assert eid is not None and store.entry(eid).read
    assert int(win.tree_model.index_for_key(f"feed:{ledger}").data(UnreadRole)) == before - 1
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    assert store.entry(eid).starred
    # d loads the article's page from the demo's site: the article, without the
    # site's navigation, more than the feed's text
    view = win.article_view
    feed_text = view.browser.toPlainText()
    qtbot.keyClick(win.list, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    page = view.browser.toPlainText()
    assert "Full article from 127.0.0.1" in page and "Archive" not in page
    assert len(page) > len(feed_text) + 200
    # Search finds the article by a word of its title.
    word = max(store.entry(eid).title.split(), key=len)
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClicks(win.search, word)
    qtbot.waitUntil(lambda: win.list_model.query().get("search") == word, timeout=3000)
    assert eid in win.list_model.ids()
    found = [store.entry(i) for i in win.list_model.ids()]
    assert found and all(word.lower() in (e.title + e.content).lower() for e in found)


def test_demo_fetches_live_over_http_and_adds_a_feed(app_on_demo, qtbot, feed_server):
    ctl, win = app_on_demo
    demo = ctl._demo
    before = demo.server.requests
    win.refresh_all()
    # A scheduled fetch may be running (the demo's feeds are due from the start): its
    # updateFinished can come first, so wait for what "Refresh all" must do instead.
    qtbot.waitUntil(lambda: demo.server.requests >= before + len(demo.feed_ids), timeout=20_000)
    ledger = demo.feed_ids["ledger"]
    qtbot.waitUntil(
        lambda: any(r.manual for r in win.store.fetch_log(ledger, limit=5)), timeout=10_000
    )
    log = next(r for r in win.store.fetch_log(ledger, limit=5) if r.manual)
    assert log.status in ("ok", "not_modified")
    qtbot.waitUntil(lambda: not win.progress.isVisible(), timeout=20_000)
    # Add a feed served by another local server.
    feed = load_feeds()[0]
    body = b"".join(
        [b'<?xml version="1.0"?><rss version="2.0"><channel><title>Extra</title>']
        + [f"<item><title>Extra {i}</title><guid>x{i}</guid></item>".encode() for i in range(4)]
        + [b"</channel></rss>"]
    )
    feed_server.route(
        "/extra.xml", Reply(body=body, headers={"Content-Type": "application/rss+xml"})
    )
    dlg = win.add_feed(feed_server.url("/extra.xml"))
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000) as sig:
        dlg._submit()
    assert win.current_key() == f"feed:{sig.args[0]}"
    assert win.list_model.rowCount() == 4
    # The demo server's feed is a pure function of time: the same window twice.
    assert window(feed, 1e9, "") == window(feed, 1e9, "")


def test_demo_history_is_learned_and_consistent(demo_history):
    from smartreader.storage.store import Store
    from smartreader.updater import Updater

    with Store(demo_history / "smartreader.sqlite3") as store:
        up = Updater(store)
        try:
            ex = up.explain(store.feeds()[0].id)
            s = up.summary()
        finally:
            up.close()
        assert len(store.feeds()) == len(load_feeds())
        assert store.entry_count() > 500
        assert 0 < sum(store.unread_counts().values()) < store.entry_count()
        assert any(v > 0 for v in ex.observed_week)
        assert s.expected_mean_delay_s < s.fixed_interval_mean_delay_s
