"""End to end: a local server publishes faster than its feed's window holds; after the
next fetch the window shows the missed-items badge, banner and alert."""

from __future__ import annotations

import time
from email.utils import formatdate

import pytest
from PySide6.QtCore import Qt

from smartreader.gui.mainwindow import MainWindow
from smartreader.gui.prefs import Prefs
from smartreader.storage import Store
from smartreader.updater import Updater
from tests.httpserver import Reply

pytestmark = [pytest.mark.qt_log_ignore("propagateSizeHints")]

WINDOW = 5  # the feed only ever shows its newest 5 items


def window_of(items: list[tuple[str, float]]) -> bytes:
    newest = sorted(items, key=lambda it: it[1], reverse=True)[:WINDOW]
    body = "".join(
        f"<item><guid>{uid}</guid><title>Item {uid}</title>"
        f"<pubDate>{formatdate(t, usegmt=True)}</pubDate></item>"
        for uid, t in newest
    )
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Firehose</title>'
        f"<link>https://example.org/</link>{body}</channel></rss>"
    ).encode()


def test_missed_items_alert_end_to_end(tmp_path, qtbot, feed_server):
    t0 = time.time()
    items = [(f"a{k}", t0 - 3600 + k * 60) for k in range(WINDOW)]
    feed_server.route("/fast.xml", Reply(body=window_of(items)))
    store = Store(tmp_path / "db.sqlite3")
    updater = Updater(store)
    fid = updater.subscribe(feed_server.url("/fast.xml"))  # first fetch: 5 items
    win = MainWindow(store, updater, prefs=Prefs.in_dir(tmp_path), tray=False)
    qtbot.addWidget(win)
    win.show()
    try:
        win.select_feed(fid)
        assert not win.banner.isVisible()
        # Twelve items appear after that fetch; the feed shows only the newest five.
        time.sleep(1.1)
        items += [(f"b{k}", time.time() + k) for k in range(12)]
        feed_server.route("/fast.xml", Reply(body=window_of(items)))
        with qtbot.wait_signal(win.sched.updateFinished, timeout=10_000):
            win.refresh_current()
        qtbot.waitUntil(lambda: bool(store.alerts()), timeout=5000)
        (alert,) = store.alerts()
        assert alert.feed_id == fid
        qtbot.waitUntil(win.banner.isVisible, timeout=3000)
        assert "not seen" in win.banner.text() and "shows 5" in win.banner.text()
        status = win.tree_model.index_for_key(f"feed:{fid}").data(Qt.ItemDataRole.UserRole + 3)
        assert status == "missed"
        assert store.entry_count() == 10  # what could be seen was stored...
        qtbot.waitUntil(lambda: win.list_model.rowCount() == 10, timeout=3000)  # ...and listed
    finally:
        win.close()
        updater.close()
        store.close()
