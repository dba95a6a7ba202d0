"""The tree keeps the node being read when a reload resets it (the set of feeds
changed: an import, a subscription the worker stored and then dropped). Found by
the random whole-app sessions (``tests/e2e/test_random_app.py``): the tree had no
current item, and the window took that for All unread, so Shift+A marked every
feed's articles read."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from smartreader.storage.store import Store

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def test_importing_a_list_keeps_the_feed_being_read_selected(tmp_path, qtbot):
    """File ▸ Import OPML while reading a feed: the tree is read again with the new
    feeds, reset, and had no current item; the window took that for "All unread"
    and showed its list, the user's feed no longer selected. (On the welcome
    screen: nothing selected after the first import.)"""
    from smartreader.gui.mainwindow import MainWindow
    from smartreader.gui.prefs import Prefs
    from smartreader.updater import Updater

    with Store(tmp_path / "db.sqlite3") as store:
        alpha = store.add_feed("https://alpha.example/feed", title="Alpha")
        updater = Updater(store)
        win = MainWindow(
            store, updater, prefs=Prefs.in_dir(tmp_path), tray=False, start_scheduler=False
        )
        qtbot.addWidget(win)
        try:
            win.select_feed(alpha)
            opml = tmp_path / "more.opml"
            opml.write_text(
                '<opml version="2.0"><body><outline text="Beta" '
                'xmlUrl="https://beta.example/feed"/></body></opml>'
            )
            assert win.import_opml(str(opml)) == 1
            assert win.tree.currentIndex().isValid(), "the tree has no current item"
            assert win.current_key() == f"feed:{alpha}"
            assert win.list_model.query() == {"feed_ids": [alpha]}
        finally:
            win.close()
            updater.close()


def test_a_cancelled_subscription_leaves_the_feed_being_read_selected(tmp_path, qtbot):
    """Add feed, Cancel while it looks, read on meanwhile. The worker stores the
    feed before its answer arrives (here: while it looks for the feed's icon), so
    the tree, read again for the counts of the article just read, shows it; the
    answer then takes it out again (``_drop_cancelled``). Each time the tree's set
    of feeds changed under it, it was reset: no current item any more, while the
    list still showed the feed being read, and the window took "nothing" for "All
    unread": Shift+A marked every feed's articles read, not the list's. (Random
    sessions: ``RANDOM_APP_STRESS=1 RANDOM_APP_SEEDS=119``.)"""
    from smartreader.gui.mainwindow import MainWindow
    from smartreader.gui.prefs import Prefs
    from smartreader.updater import Updater
    from tests.gui.test_mainwindow import rss, serve
    from tests.httpserver import FeedServer, Reply

    with FeedServer() as server, Store(tmp_path / "db.sqlite3") as store:
        updater = Updater(store, fetch_icons=True)  # as the app: icons looked up
        alpha = updater.subscribe(serve(server, "/a.xml", rss(3, prefix="Alpha")))
        beta = updater.subscribe(serve(server, "/b.xml", rss(2, prefix="Beta")))
        new = serve(server, "/new.xml", rss(2, prefix="New"))
        server.route("/favicon.ico", Reply(status=404, delay=1.5))  # looked up once stored
        win = MainWindow(store, updater, prefs=Prefs.in_dir(tmp_path), tray=False)
        qtbot.addWidget(win)
        win.show()
        win.activateWindow()
        qtbot.waitUntil(win.isActiveWindow)
        try:
            win.select_feed(alpha)
            qtbot.waitUntil(lambda: win.list_model.rowCount() == 3)
            dlg = win.add_feed(new)
            dlg.ok.click()
            qtbot.waitUntil(lambda: store.feed_id_by_url(new) is not None, timeout=5000)
            dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
            win.activateWindow()
            qtbot.waitUntil(win.isActiveWindow)
            win.list.setFocus()
            qtbot.keyClick(win.list, Qt.Key.Key_J)  # read one: the tree is read again
            qtbot.waitUntil(lambda: not win._requests, timeout=5000)  # the answer: dropped
            assert store.feed_id_by_url(new) is None
            qtbot.keyClick(win.list, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
            assert store.unread_counts().get(beta, 0) == 2, "Shift+A read another feed"
            assert win.current_key() == f"feed:{alpha}"
        finally:
            win.close()
            updater.close()


def test_a_cancelled_subscription_leaves_none_of_its_articles_in_the_list(tmp_path, qtbot):
    """Add feed, Cancel while it looks, with "All unread" shown. The worker stores
    the feed and its articles before its answer arrives; a refresh meanwhile (a
    fetch's results) puts them in the list; the answer takes the feed out again
    (``_drop_cancelled``), and the list kept showing its deleted articles. (Random
    sessions: ``RANDOM_APP_STRESS=1 RANDOM_APP_SEEDS=14``.)"""
    from smartreader.gui.mainwindow import MainWindow
    from smartreader.gui.prefs import Prefs
    from smartreader.updater import Updater
    from tests.gui.test_mainwindow import rss, serve
    from tests.httpserver import FeedServer, Reply

    with FeedServer() as server, Store(tmp_path / "db.sqlite3") as store:
        updater = Updater(store, fetch_icons=True)  # as the app: icons looked up
        updater.subscribe(serve(server, "/a.xml", rss(3, prefix="Alpha")))
        new = serve(server, "/new.xml", rss(2, prefix="New"))
        server.route("/favicon.ico", Reply(status=404, delay=1.5))  # looked up once stored
        win = MainWindow(store, updater, prefs=Prefs.in_dir(tmp_path), tray=False)
        qtbot.addWidget(win)
        win.show()
        try:
            win.select_key("smart:unread")
            qtbot.waitUntil(lambda: win.list_model.rowCount() == 3)
            dlg = win.add_feed(new)
            dlg.ok.click()
            qtbot.waitUntil(lambda: store.feed_id_by_url(new) is not None, timeout=5000)
            dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
            win._refresh_list()  # as after a fetch's results: the new articles come in
            assert win.list_model.rowCount() == 5
            qtbot.waitUntil(lambda: not win._requests, timeout=5000)  # the answer: dropped
            assert store.feed_id_by_url(new) is None
            stored = set(store.entry_ids())
            shown = set(win.list_model.ids())
            assert shown <= stored, f"the list shows deleted articles {sorted(shown - stored)}"
            assert len(shown) == 3
        finally:
            win.close()
            updater.close()
