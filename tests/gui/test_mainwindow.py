"""The main window on real widgets, a real Store and Updater, and a local HTTP server."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QDialogButtonBox, QMenu

from smartreader.core.models import ParsedEntry
from smartreader.gui.mainwindow import MainWindow
from smartreader.gui.models import COL_FEED, COL_TITLE, ArticleListModel, FeedTreeModel, UnreadRole
from smartreader.gui.prefs import Prefs
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater
from tests.httpserver import Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def rss(n: int, *, prefix: str = "Post", start: int = 1) -> bytes:
    now = time.time()
    items = "".join(
        f"<item><title>{prefix} {i} about {'zebras' if i == 2 else 'cats'}</title>"
        f"<link>https://example.org/{prefix.lower()}/{i}</link><guid>{prefix}-{i}</guid>"
        f"<pubDate>{time.strftime('%a, %d %b %Y %H:%M:%S +0000', time.gmtime(now - i * 600))}"
        f"</pubDate><description>&lt;p&gt;Body of {prefix} {i}&lt;/p&gt;</description></item>"
        for i in range(start, start + n)
    )
    return (
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>{prefix} feed</title>'
        f"<link>https://example.org/</link>{items}</channel></rss>"
    ).encode()


def serve(server, path: str, body: bytes) -> str:
    server.route(path, Reply(body=body, headers={"Content-Type": "application/rss+xml"}))
    return server.url(path)


class Env:
    def __init__(self, tmp_path, qtbot):
        self.tmp_path = tmp_path
        self.qtbot = qtbot
        self.store = Store(tmp_path / "db.sqlite3")
        self.updater = Updater(self.store)
        self.opened: list[str] = []
        self.windows: list[MainWindow] = []

    def window(self, **kw) -> MainWindow:
        kw.setdefault("tray", False)
        w = MainWindow(
            self.store,
            self.updater,
            prefs=Prefs.in_dir(self.tmp_path),
            open_url=lambda url: self.opened.append(url.toString()),
            **kw,
        )
        self.qtbot.addWidget(w)
        w.show()
        w.activateWindow()  # single-key shortcuts are window shortcuts
        self.qtbot.waitUntil(w.isActiveWindow, timeout=3000)
        self.windows.append(w)
        return w

    def close(self):
        for w in self.windows:
            w.close()
            assert not w.sched.qthread.isRunning(), "scheduler thread left running"
        self.updater.close()
        self.store.close()


def stored_feed(env, name: str, n: int, *, folder=None, title=None) -> int:
    """A feed with ``n`` entries stored (a minute apart, newest first), no server."""
    now = time.time()
    fid = env.store.add_feed(f"https://{name.lower()}.example/feed", title=name, folder=folder)
    titles = [title(i) if title else f"{name} {i}" for i in range(n)]
    entries = [
        ParsedEntry(f"{name}{i}", t, None, "", now - i * 60, None, "<p>x</p>", "")
        for i, t in enumerate(titles)
    ]
    env.store.record_fetch(FetchRecord(fid, now, "ok", entries=entries))
    return fid


def unread_of(win: MainWindow, key: str) -> int:
    return int(win.tree_model.index_for_key(key).data(UnreadRole))


def test_welcome_then_subscribe_fetches_and_entries_appear(env, qtbot, feed_server):
    url = serve(feed_server, "/a.xml", rss(3))
    win = env.window()
    assert "Welcome to smartreader" in win.article_view.html()
    assert "action:demo" in win.article_view.html()
    dlg = win.add_feed()
    dlg.url.setText(url)
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000) as sig:
        dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    fid = sig.args[0]
    assert win.current_key() == f"feed:{fid}"
    assert win.list_model.rowCount() == 3
    assert "Welcome to smartreader" not in win.article_view.html()  # it has a feed now
    assert unread_of(win, f"feed:{fid}") == 3
    assert unread_of(win, "smart:unread") == 3
    assert feed_server.requests_for("/a.xml")


def test_subscribe_error_is_shown_in_the_dialog(env, qtbot, feed_server):
    win = env.window()
    dlg = win.add_feed(feed_server.url("/missing.xml"))
    with qtbot.wait_signal(win.sched.subscribeFailed, timeout=10_000):
        dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.error.isVisible() and "404" in dlg.error.text()
    assert env.store.feeds() == []


def test_cancel_while_looking_for_the_feed_leaves_no_subscription(env, qtbot, feed_server):
    slow = feed_server.url("/slow.xml")
    feed_server.route(
        "/slow.xml", Reply(body=rss(2), headers={"Content-Type": "application/rss+xml"}, delay=0.6)
    )
    url = serve(feed_server, "/a.xml", rss(3))
    win = env.window()
    before = win.current_key()
    dlg = win.add_feed(slow)
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dlg.progress.isVisible()
    dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    # the next subscription, asked meanwhile, is answered after the cancelled one
    dlg2 = win.add_feed(url)
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000):
        dlg2.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert win.current_key() == before  # the cancelled one did not take the view
    assert "Cancelled: not subscribed to" in win.statusBar().currentMessage()
    qtbot.waitUntil(lambda: win._add_dialog is None, timeout=10_000)  # dlg2 done
    (kept,) = env.store.feeds()
    assert kept.url == url and win.current_key() == f"feed:{kept.id}"
    assert feed_server.requests_for("/slow.xml")
    assert win.tree_model.index_for_key(f"feed:{kept.id}").isValid()


def test_a_cancelled_subscription_dropped_after_it_was_counted_leaves_the_title_right(
    env, qtbot, feed_server
):
    """Random whole-app session 88 (stress): the worker stored the subscription the
    user had cancelled, a refresh counted its articles (title "(7)"), then it was
    dropped: the tree said 2 unread, the title still 7."""
    stored_feed(env, "Alpha", 2)
    win = env.window(scheduler_options={"autostart_polling": False})
    cancelled = env.updater.subscribe(serve(feed_server, "/b.xml", rss(5)))
    win._counts_changed()  # as a refresh after an update does
    assert win.windowTitle() == "smartreader (7)"
    win._drop_cancelled(cancelled)
    assert env.store.unread_counts() == {1: 2}
    assert win.windowTitle() == "smartreader (2)"


@pytest.fixture
def two_feeds(env, feed_server):
    a = env.updater.subscribe(serve(feed_server, "/a.xml", rss(3, prefix="Alpha")))
    b = env.updater.subscribe(serve(feed_server, "/b.xml", rss(2, prefix="Beta")), folder="News")
    return a, b


def test_keyboard_navigation_read_star_and_counts(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    assert win.list_model.rowCount() == 3 and unread_of(win, f"feed:{a}") == 3
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    first = win.selected_entry_id()
    assert first is not None and env.store.entry(first).read
    assert "Alpha 1" in win.article_view.html()
    assert unread_of(win, f"feed:{a}") == 2 and unread_of(win, "smart:unread") == 4
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    assert "Alpha 2" in win.article_view.html() and unread_of(win, f"feed:{a}") == 1
    # n moves without opening or marking read
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    third = win.selected_entry_id()
    assert not env.store.entry(third).read and "Alpha 2" in win.article_view.html()
    qtbot.keyClick(win.list, Qt.Key.Key_K)
    assert "Alpha 2" in win.article_view.html()
    # s stars, m toggles read, both reflected in the counts
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    sel = win.selected_entry_id()
    assert env.store.entry(sel).starred and unread_of(win, "smart:starred") == 1
    qtbot.keyClick(win.list, Qt.Key.Key_M)
    assert not env.store.entry(sel).read and unread_of(win, f"feed:{a}") == 2
    # v opens the link in the browser
    qtbot.keyClick(win.list, Qt.Key.Key_V)
    assert env.opened == ["https://example.org/alpha/2"]
    # Shift+P goes to the previous feed (folders come first); Shift+A marks it all read
    a_is_last = win.tree_model.feed_keys_in_order()[-1] == f"feed:{a}"
    qtbot.keyClick(win.list, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert a_is_last and win.current_key() == f"feed:{a}"
    qtbot.keyClick(win.list, Qt.Key.Key_P, Qt.KeyboardModifier.ShiftModifier)
    assert win.current_key() == f"feed:{_b}"
    assert unread_of(win, f"feed:{_b}") == 2
    qtbot.keyClick(win.list, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    assert unread_of(win, win.current_key()) == 0
    # ? opens the help overlay, Esc closes it
    qtbot.keyClick(win.list, Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    assert win.help.isVisible()
    qtbot.keyClick(win.help, Qt.Key.Key_Escape)
    assert not win.help.isVisible()
    # another key neither closes it nor reaches the window: j opens no article under it
    shown = win._current_entry
    win.show_help()
    qtbot.keyClick(win.help, Qt.Key.Key_J)
    assert win.help.isVisible() and win._current_entry == shown
    qtbot.keyClick(win.help, Qt.Key.Key_Escape)
    assert not win.help.isVisible()


@pytest.fixture
def three_feeds(env):
    """News/Beta (2 unread), News/Gamma (all read), Alpha (4, the second read)."""

    def feed(name: str, n: int, folder: str | None) -> tuple[int, list[int]]:
        fid = stored_feed(env, name, n, folder=folder)
        return fid, env.store.entry_ids(feed_ids=[fid])  # newest first, as listed

    alpha = feed("Alpha", 4, None)
    beta = feed("Beta", 2, "News")
    gamma = feed("Gamma", 2, "News")
    env.store.set_read(gamma[1] + alpha[1][1:2])
    return alpha, beta, gamma


def _space(qtbot, win) -> int | None:
    qtbot.keyClick(win.list, Qt.Key.Key_Space)
    return win._current_entry


def test_space_goes_to_the_next_unread_then_the_next_feed_with_any(env, qtbot, three_feeds):
    (a, a_ids), (b, b_ids), (g, _g_ids) = three_feeds
    win = env.window(start_scheduler=False)
    order = [k for k in win.tree_model.feed_keys_in_order() if k.startswith("feed:")]
    assert order == [f"feed:{b}", f"feed:{g}", f"feed:{a}"]  # folders first
    win.select_feed(a)
    win.list.setFocus()
    # Short articles: Space is at the end at once, so it moves on, past the read one.
    assert _space(qtbot, win) == a_ids[0]
    assert _space(qtbot, win) == a_ids[2]
    assert _space(qtbot, win) == a_ids[3]
    # Alpha has no more: round to the first feed with unread ones, past Gamma.
    assert _space(qtbot, win) == b_ids[0] and win.current_key() == f"feed:{b}"
    assert _space(qtbot, win) == b_ids[1]
    assert unread_of(win, "smart:unread") == 0
    assert _space(qtbot, win) == b_ids[1] and win.current_key() == f"feed:{b}"
    assert win.statusBar().currentMessage() == "No unread articles left"


def test_space_in_a_folder_goes_on_after_it_and_a_smart_view_stays(env, qtbot, three_feeds):
    (a, a_ids), (_b, b_ids), _gamma = three_feeds
    win = env.window(start_scheduler=False)
    win.select_key(f"folder:{env.store.folder_id('News')}")
    win.list.setFocus()
    assert _space(qtbot, win) == b_ids[0]
    assert _space(qtbot, win) == b_ids[1]
    assert _space(qtbot, win) == a_ids[0] and win.current_key() == f"feed:{a}"
    # "All articles" holds every feed: from its last row back up to the unread above.
    win.select_key("smart:all")
    last = win.list_model.rowCount() - 1
    win._select_row(last, open_=True)
    assert _space(qtbot, win) == a_ids[2] and win.current_key() == "smart:all"


def test_space_at_a_folders_end_goes_up_in_it_when_no_other_feed_has_any(env, qtbot, three_feeds):
    (_a, a_ids), (_b, b_ids), _gamma = three_feeds
    env.store.set_read(a_ids)
    win = env.window(start_scheduler=False)
    folder = f"folder:{env.store.folder_id('News')}"
    win.select_key(folder)
    win._select_row(win.list_model.rowCount() - 1, open_=True)
    assert _space(qtbot, win) == b_ids[0] and win.current_key() == folder


def test_space_in_a_search_stays_in_its_results(env, qtbot, three_feeds):
    (a, a_ids), (b, _b_ids), _gamma = three_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClicks(win.search, "Alpha")
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 4, timeout=3000)
    win._select_row(0, open_=True)
    assert win._current_entry == a_ids[0]
    win.list.setFocus()
    assert _space(qtbot, win) == a_ids[2]
    assert _space(qtbot, win) == a_ids[3]
    assert _space(qtbot, win) == a_ids[3] and win.current_key() == f"feed:{a}"
    assert unread_of(win, f"feed:{b}") == 2


def test_home_and_end_go_to_the_first_and_last_article(env, qtbot, small_pages):
    stored_feed(env, "Long", 60)
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    assert win.list_model.loading()
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_End)
    assert win.selected_row() == 59 and win._current_entry == win.list_model.entry_id(59)
    qtbot.keyClick(win.list, Qt.Key.Key_Home)
    assert win.selected_row() == 0 and win._current_entry == win.list_model.entry_id(0)


def test_an_empty_folder_says_it_has_no_feeds(env, qtbot):
    """It said "No articles yet.", as if its feeds had not been fetched yet."""
    stored_feed(env, "Alpha", 1)
    empty = env.store.folder_id("Later")
    win = env.window(start_scheduler=False)
    win.act_unread_only.setChecked(True)  # not "No unread articles here." either
    win.select_key(f"folder:{empty}")
    assert win.current_key() == f"folder:{empty}"
    assert win.list.empty_text.startswith("No feeds in this folder yet")
    assert "Move to" in win.list.empty_text


def test_an_empty_list_says_why(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_key("smart:starred")
    assert win.list_model.rowCount() == 0 and "No starred articles" in win.list.empty_text
    win.select_feed(a)
    assert win.list_model.rowCount() == 3 and win.list.viewport().grab()  # rows: no text
    win.mark_all_read()
    win.act_unread_only.setChecked(True)
    assert win.list_model.rowCount() == 0 and win.list.empty_text == "No unread articles here."
    win.act_unread_only.setChecked(False)
    win.search.setText("walruses")
    win._search_done()
    # a search in one feed looks only there: it says so, and where to look further
    assert win.list.empty_text == (
        "Nothing matches “walruses” in this feed. “All articles” searches every feed."
    )
    win.select_key("smart:all")
    win._search_done()
    assert win.list.empty_text == "Nothing matches “walruses”"
    # drawn: the empty viewport is no longer one flat colour
    qtbot.waitUntil(lambda: not win.list_model.loading(), timeout=3000)
    img = win.list.viewport().grab().toImage()
    colours = {img.pixel(x, y) for x in range(0, img.width(), 3) for y in range(0, 80, 2)}
    assert len(colours) > 1


def test_typing_in_search_does_not_trigger_shortcuts(env, qtbot, two_feeds):
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    assert win.list_model.rowCount() == 5
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    assert win.search.hasFocus()
    qtbot.keyClicks(win.search, "zebras")
    assert win.search.text() == "zebras"  # j/k/s/m… typed, not triggered
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 2, timeout=3000)
    titles = [win.list_model.index(r, 0).data() for r in range(2)]
    assert all("zebras" in t for t in titles)
    assert all(not env.store.entry(i).read for i in win.list_model.ids())
    win.search.clear()
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 5, timeout=3000)


def _searched_for_zebras(env, qtbot):
    """All articles, "zebras" typed after "/" and Enter: the window and the first
    result's id (focus in the list, two results)."""
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClicks(win.search, "zebras")
    qtbot.keyClick(win.search, Qt.Key.Key_Return)
    assert win.list.hasFocus() and win.list_model.rowCount() == 2
    return win, win.list_model.entry_id(0)


def test_enter_in_search_opens_the_first_result_and_escape_clears_it(env, qtbot, two_feeds):
    """The window's Enter shortcut (open article) used to take Enter from the box."""
    win, first = _searched_for_zebras(env, qtbot)
    assert win._current_entry == first and "zebras" in win.article_view.html()
    # Escape in the box ends the search: the whole list, the article still selected
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClick(win.search, Qt.Key.Key_Escape)
    assert win.search.text() == "" and win.list.hasFocus()
    assert win.list_model.rowCount() == 5 and win.selected_entry_id() == first
    # keypad Enter too
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClicks(win.search, "cats")
    win.list.selectionModel().clear()
    qtbot.keyClick(win.search, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert win.list.hasFocus() and win.selected_row() == 0


def test_escape_from_the_list_ends_a_search_too(env, qtbot, two_feeds):
    """Enter moves to the list with the first result open; Escape there did
    nothing, and the help lists Escape as ending a search "anywhere"."""
    win, first = _searched_for_zebras(env, qtbot)
    qtbot.keyClick(win.list, Qt.Key.Key_Escape)
    assert win.search.text() == "" and win.list.hasFocus()
    assert win.list_model.rowCount() == 5 and win.selected_entry_id() == first
    # without a search, Escape in the list changes nothing
    qtbot.keyClick(win.list, Qt.Key.Key_Escape)
    assert win.list_model.rowCount() == 5 and win.selected_entry_id() == first


def test_s_and_m_act_on_the_article_shown_when_no_row_is_selected(env, qtbot, two_feeds):
    """After choosing another feed the article stays in the reader, but its row is
    not in the list: "v" opened it while "s" and "m" did nothing at all."""
    a, b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    shown = win._current_entry
    assert shown is not None and env.store.entry(shown).read
    win.select_feed(b)
    assert win.selected_entry_id() is None and win._current_entry == shown
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    assert env.store.entry(shown).starred and unread_of(win, "smart:starred") == 1
    qtbot.keyClick(win.list, Qt.Key.Key_M)
    assert not env.store.entry(shown).read and unread_of(win, f"feed:{a}") == 3
    assert all(not env.store.entry(i).read for i in win.list_model.ids())  # b untouched
    win.undo_stack.undo()
    assert env.store.entry(shown).read


def test_k_with_no_row_selected_starts_at_the_top(env, qtbot, two_feeds):
    """ "k" with nothing selected opened the list's far end (the oldest article of
    a busy feed, 1,000 rows away) and marked it read."""
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    assert win.selected_row() < 0 and win.list_model.rowCount() == 3
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_K)
    assert win.selected_row() == 0 and win._current_entry == win.list_model.entry_id(0)
    win.list.selectionModel().clear()
    qtbot.keyClick(win.list, Qt.Key.Key_P)
    assert win.selected_row() == 0


def test_enter_before_a_long_search_has_results_opens_the_first_when_it_comes(
    env, qtbot, small_pages
):
    word = {150: "needle"}
    stored_feed(env, "Long", 200, title=lambda i: f"Item {i} {word.get(i, 'hay')}")
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    qtbot.keyClick(win.list, Qt.Key.Key_Slash)
    qtbot.keyClicks(win.search, "needle")
    qtbot.keyClick(win.search, Qt.Key.Key_Return)
    assert win.list_model.rowCount() == 0  # searched a slice at a time
    qtbot.waitUntil(lambda: win._current_entry is not None, timeout=3000)
    assert "needle" in win.article_view.html() and win.list.hasFocus()


def _unread_ids(store) -> set[int]:
    return {i for i in store.entry_ids() if not store.entry(i).read}


def test_mark_all_read_is_undone_and_redone_by_the_keys(env, qtbot, two_feeds):
    a, b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)  # Alpha 1 read before the mark-all
    read_before = win.selected_entry_id()
    unread = _unread_ids(env.store)
    assert len(unread) == 4 and not win.act_undo.isEnabled()
    qtbot.keyClick(win.list, Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)
    assert unread_of(win, f"feed:{a}") == 0 and unread_of(win, f"feed:{b}") == 2
    assert "Marked 2 articles as read" in win.statusBar().currentMessage()
    assert win.act_undo.isEnabled() and win.act_undo.text() == "&Undo Mark 2 articles as read"
    qtbot.keyClick(win.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    # Exactly the two it marked are unread again; the one read before stays read.
    assert _unread_ids(env.store) == unread and env.store.entry(read_before).read
    assert unread_of(win, f"feed:{a}") == 2 and unread_of(win, "smart:unread") == 4
    assert win.windowTitle().endswith("(4)")
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(win.list, Qt.Key.Key_Z, ctrl_shift)
    assert unread_of(win, f"feed:{a}") == 0 and _unread_ids(env.store) == unread - set(
        env.store.entry_ids(feed_ids=[a])
    )
    # The Edit menu carries the same actions.
    edit = next(m for m in win.menuBar().findChildren(QMenu) if m.title() == "&Edit")
    assert win.act_undo in edit.actions() and win.act_redo in edit.actions()


def test_undoing_a_mark_all_made_elsewhere_brings_its_articles_into_all_unread(
    env, qtbot, two_feeds
):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.mark_all_read()
    win.select_key("smart:unread")
    assert win.list_model.rowCount() == 2  # Beta's
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)  # reading one: it stays listed, read
    shown = win._current_entry
    win.act_undo.trigger()  # Alpha's three are unread again
    assert unread_of(win, "smart:unread") == 4
    assert win.list_model.rowCount() == 4
    assert set(win.list_model.ids()) == _unread_ids(env.store)
    assert win._current_entry == shown  # the article being read stays open


def test_mark_all_read_during_a_search_marks_only_the_matches(env, qtbot, two_feeds):
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    win.search.setText("zebras")
    win._apply_query()  # the results, none opened (Enter would open the first)
    matches = set(win.list_model.ids())
    assert len(matches) == 2 and _unread_ids(env.store) >= matches
    win.act_mark_all.trigger()
    assert _unread_ids(env.store) == set(env.store.entry_ids()) - matches
    assert unread_of(win, "smart:unread") == 3
    win.act_undo.trigger()
    assert unread_of(win, "smart:unread") == 5


def test_mark_all_read_with_nothing_unread_leaves_no_undo_step(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.act_mark_all.trigger()
    assert win.undo_stack.count() == 1
    win.act_mark_all.trigger()
    assert win.undo_stack.count() == 1 and "Nothing" in win.statusBar().currentMessage()
    win.act_undo.trigger()
    assert unread_of(win, f"feed:{a}") == 3


def test_m_and_s_are_undone_before_an_older_mark_all(env, qtbot, two_feeds):
    """Ctrl+Z after "m" or "s" undoes that key, not the last mark-all-as-read."""
    a, b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(b)
    win.act_mark_all.trigger()
    assert unread_of(win, f"feed:{b}") == 0
    win.select_feed(a)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)  # opening marks read; not an undo step
    first = win.selected_entry_id()
    assert env.store.entry(first).read and win.undo_stack.count() == 1
    qtbot.keyClick(win.list, Qt.Key.Key_M)
    assert not env.store.entry(first).read
    assert win.act_undo.text() == "&Undo Mark as unread “Alpha 1 about cats”"
    ctrl = Qt.KeyboardModifier.ControlModifier
    qtbot.keyClick(win.list, Qt.Key.Key_Z, ctrl)
    assert env.store.entry(first).read and unread_of(win, f"feed:{a}") == 2
    assert unread_of(win, f"feed:{b}") == 0  # the mark-all stands
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    assert env.store.entry(first).starred and unread_of(win, "smart:starred") == 1
    qtbot.keyClick(win.list, Qt.Key.Key_Z, ctrl)
    assert not env.store.entry(first).starred and unread_of(win, "smart:starred") == 0
    qtbot.keyClick(win.list, Qt.Key.Key_Z, ctrl)  # now the mark-all
    assert unread_of(win, f"feed:{b}") == 2 and env.store.entry(first).read


def test_mark_above_and_below_as_read_follow_the_list_and_undo(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    win.act_mark_below.trigger()
    assert "Select an article" in win.statusBar().currentMessage()
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    qtbot.keyClick(win.list, Qt.Key.Key_N)  # the middle row, not opened
    ids = win.list_model.ids()
    assert win.selected_entry_id() == ids[1] and _unread_ids(env.store) >= set(ids)
    win.act_mark_below.trigger()
    assert [env.store.entry(i).read for i in ids] == [False, False, True]
    assert "Marked 1 article as read" in win.statusBar().currentMessage()
    assert unread_of(win, f"feed:{a}") == 2 and win.list_model.ids() == ids
    win.act_mark_below.trigger()
    assert "Nothing here is unread" in win.statusBar().currentMessage()
    win.act_mark_above.trigger()
    assert [env.store.entry(i).read for i in ids] == [True, False, True]
    win.act_undo.trigger()
    assert [env.store.entry(i).read for i in ids] == [False, False, True]
    win.act_undo.trigger()
    assert [env.store.entry(i).read for i in ids] == [False, False, False]
    assert unread_of(win, f"feed:{a}") == 3
    # The list's order as shown: sorted the other way, "above" is the other side.
    win.list.sortByColumn(COL_TITLE, Qt.SortOrder.DescendingOrder)
    row = win.list_model.row_of(ids[0])
    win._select_row(row, open_=False)
    win.act_mark_above.trigger()
    assert {i for i in ids if env.store.entry(i).read} == set(win.list_model.ids()[:row])
    article = next(m for m in win.menuBar().findChildren(QMenu) if m.title() == "&Article")
    assert {win.act_mark_above, win.act_mark_below, win.act_copy_link} <= set(article.actions())


def test_a_click_on_the_row_n_selected_opens_it(env, qtbot, two_feeds):
    """ "n" selects without opening; clicking that row (no selection change) opens
    it and marks it read, as a click on any other row does."""
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    chosen = win.selected_entry_id()
    assert chosen is not None and win._current_entry is None
    rect = win.list.visualRect(win.list_model.index(win.selected_row(), COL_TITLE))
    qtbot.mouseClick(win.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert win._current_entry == chosen and env.store.entry(chosen).read
    assert env.store.entry(chosen).title in win.article_view.html()
    # a click on another row opens that one, once
    other = win.list_model.index(win.selected_row() + 1, COL_TITLE)
    qtbot.mouseClick(
        win.list.viewport(), Qt.MouseButton.LeftButton, pos=win.list.visualRect(other).center()
    )
    assert win._current_entry == win.list_model.entry_id(other.row())
    assert unread_of(win, f"feed:{a}") == 1


def test_copy_link_puts_the_article_link_on_the_clipboard(env, qtbot, two_feeds):
    from PySide6.QtGui import QGuiApplication

    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    link = env.store.entry(win.selected_entry_id()).link
    assert link and link.startswith("http")
    QGuiApplication.clipboard().clear()
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(win.list, Qt.Key.Key_C, ctrl_shift)
    assert QGuiApplication.clipboard().text() == link
    assert "Copied" in win.statusBar().currentMessage()


def test_titles_keep_half_the_list_in_a_1024_window(env, qtbot, two_feeds):
    win = env.window(start_scheduler=False)
    win.resize(1024, 700)
    win.select_key("smart:all")
    hh = win.list.horizontalHeader()

    def title_share() -> float:
        return hh.sectionSize(COL_TITLE) / win.list.viewport().width()

    # Feed (130 px) and date (104 px) columns left the titles ~20 px here.
    qtbot.waitUntil(lambda: title_share() >= 0.44, timeout=2000)
    assert not win.list.isColumnHidden(COL_FEED)
    assert win.list.viewport().width() >= 250
    # One feed's list hides the column; shown again in a wide window it is back at
    # its width, not at the squeezed one it was hidden with.
    win.select_feed(two_feeds[0])
    assert win.list.isColumnHidden(COL_FEED)
    win.resize(1600, 800)
    win.select_key("smart:all")
    qtbot.waitUntil(lambda: hh.sectionSize(COL_FEED) == 130, timeout=2000)
    # A width the user drags is where the column returns to when there is room.
    hh.resizeSection(COL_FEED, 180)
    win.resize(1024, 700)
    qtbot.waitUntil(lambda: title_share() >= 0.44, timeout=2000)
    win.resize(1900, 800)
    qtbot.waitUntil(lambda: hh.sectionSize(COL_FEED) == 180, timeout=2000)


def test_selection_and_geometry_are_restored(env, qtbot, two_feeds):
    _a, b = two_feeds
    win = env.window(start_scheduler=False)
    win.resize(761, 701)
    win.select_feed(b)
    win.move(1, open_=True)
    entry = win.selected_entry_id()
    win.close()
    win2 = env.window(start_scheduler=False)
    assert win2.current_key() == f"feed:{b}"
    assert win2.selected_entry_id() == entry
    assert (win2.size().width(), win2.size().height()) == (761, 701)


def test_the_last_article_reopens_without_reading_the_whole_list_first(env, qtbot, small_pages):
    """The article open at quit is beyond the list's first page: the window shows
    without waiting for the rest of the list, and the article opens once it is in;
    unless the user has opened another meanwhile, or it is no longer in the list."""
    stored_feed(env, "Long", 60)
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    qtbot.waitUntil(lambda: not win.list_model.loading(), timeout=3000)
    deep = win.list_model.entry_id(50)  # newest first: pages of 10, then 17
    win.select_article(deep)
    win.close()

    def made() -> MainWindow:  # the window just made: no event loop turn yet
        w = MainWindow(env.store, env.updater, prefs=Prefs.in_dir(env.tmp_path), tray=False,
                       start_scheduler=False)  # fmt: skip
        qtbot.addWidget(w)
        env.windows.append(w)
        return w

    win2 = made()
    assert win2.current_key() == "smart:all"
    assert win2.list_model.loading()  # the window was made without reading the rest
    assert win2.selected_entry_id() is None
    win2.show()
    qtbot.waitUntil(lambda: win2.selected_entry_id() == deep, timeout=3000)
    assert win2._current_entry == deep  # open in the reader, not only selected
    assert win2.list.currentIndex().row() == 50

    # The user opens another article before the list is in: that one stays.
    win2.close()
    win3 = made()
    assert win3.list_model.loading()
    win3.move(1, open_=True)
    win3.show()
    first = win3.selected_entry_id()
    qtbot.waitUntil(lambda: not win3.list_model.loading(), timeout=3000)
    qtbot.wait(50)
    assert win3.selected_entry_id() == first != deep
    win3.select_article(deep)

    # "All unread": the article (read when it was opened) is not in that list.
    win3.select_key("smart:unread")
    assert win3._current_entry == deep
    win3.close()
    win4 = env.window(start_scheduler=False)
    assert win4.current_key() == "smart:unread"
    qtbot.waitUntil(lambda: not win4.list_model.loading(), timeout=3000)
    assert deep not in win4.list_model.ids()
    assert win4.selected_entry_id() is None and win4._current_entry is None


def test_missed_items_banner_badge_and_dismiss(env, qtbot, two_feeds):
    a, _b = two_feeds
    now = time.time()
    env.store.record_fetch(
        FetchRecord(
            a,
            now,
            "ok",
            entries=[ParsedEntry(f"m{i}", f"m{i}", None, "", now, None, "", "") for i in range(3)],
            missed_estimate=4.0,
            missed_from=now - 4 * 3600,
            missed_to=now - 3600,
        )
    )
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    assert win.banner.isVisible()
    # two feeds on the default 1000/day budget get all their 15 min allow
    assert "About 4 items" in win.banner.text() and "Already checked every 15 min" in (
        win.banner.text()
    )
    assert win.tree_model.index_for_key(f"feed:{a}").data(Qt.ItemDataRole.UserRole + 3) == (
        "missed"
    )
    win.tabs.setCurrentWidget(win.alerts_view)
    assert len(win.alerts_view.alerts()) == 1
    win.banner.button.click()
    assert not win.banner.isVisible() and env.store.alerts() == []


def test_a_failing_feed_says_why_above_its_list_and_retry_checks_it(env, qtbot, feed_server):
    url = serve(feed_server, "/a.xml", rss(2))
    fid = env.updater.subscribe(url)
    feed_server.route("/a.xml", Reply(status=500, body=b"oops"))
    env.updater.update(manual=True)
    env.updater.update(manual=True)
    win = env.window()
    win.select_feed(fid)
    assert win.error_banner.isVisible() and not win.banner.isVisible()
    text = win.error_banner.text()
    assert "The last 2 checks of this feed failed" in text and "500" in text
    assert "The last good check was" in text and win.list_model.rowCount() == 2  # kept
    win.select_key("smart:all")
    assert not win.error_banner.isVisible()
    win.select_feed(fid)
    serve(feed_server, "/a.xml", rss(3))
    with qtbot.wait_signal(win.sched.updateFinished, timeout=10_000):
        win.error_banner.retry.click()
    qtbot.waitUntil(lambda: not win.error_banner.isVisible(), timeout=5000)
    assert env.store.feed(fid).error_count == 0


def test_a_gone_feed_can_be_checked_again(env, qtbot, feed_server):
    url = serve(feed_server, "/a.xml", rss(2))
    fid = env.updater.subscribe(url)
    feed_server.route("/a.xml", Reply(status=410, body=b"gone"))
    env.updater.update(manual=True)
    assert env.store.feed(fid).status == "gone"
    win = env.window()
    win.select_feed(fid)
    assert "gone" in win.error_banner.text() and win.error_banner.retry.text() == "Check again"
    serve(feed_server, "/a.xml", rss(3))
    with qtbot.wait_signal(win.sched.updateFinished, timeout=10_000):
        win.error_banner.retry.click()
    qtbot.waitUntil(lambda: not win.error_banner.isVisible(), timeout=5000)
    assert env.store.feed(fid).status == "active" and win.list_model.rowCount() == 3


def test_activity_tab_follows_the_selected_feed(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    win.tabs.setCurrentWidget(win.activity)
    assert win.activity.feed_id() == a
    assert win.activity.stack.currentWidget() is win.activity.feed_view
    assert win.activity.feed_view.log_table.item(0, 1).text().startswith("ok")
    win.select_key("smart:all")
    assert win.activity.stack.currentWidget() is win.activity.overview
    assert win.activity.overview.proxy.rowCount() == 2


def test_feed_column_only_where_the_list_mixes_feeds(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    assert not win.list.isColumnHidden(COL_FEED)
    win.select_feed(a)
    assert win.list.isColumnHidden(COL_FEED)
    assert win.list_model.rowCount() > 0
    win.select_key("smart:unread")
    assert not win.list.isColumnHidden(COL_FEED)


def test_settings_budget_reaches_the_scheduler(env, qtbot, two_feeds):
    win = env.window()
    dlg = win.open_settings()
    dlg.budget_spin.setValue(345)
    with qtbot.wait_signal(
        win.sched.statusChanged, timeout=5000, check_params_cb=lambda s: s.budget == 345.0
    ):
        dlg.accept()
    assert env.updater.budget() == 345.0
    qtbot.waitUntil(lambda: "/ 345 requests" in win.budget_label.text(), timeout=3000)


def test_opml_export_then_import(env, qtbot, two_feeds, tmp_path, feed_server):
    win = env.window(start_scheduler=False)
    path = win.export_opml(str(tmp_path / "subs.opml"))
    assert path is not None and b"/b.xml" in path.read_bytes()
    serve(feed_server, "/c.xml", rss(1, prefix="Gamma"))
    extra = path.read_text().replace("/b.xml", "/c.xml")
    (tmp_path / "more.opml").write_text(extra)
    assert win.import_opml(str(tmp_path / "more.opml")) == 1  # a and b already there
    assert len(env.store.feeds()) == 3


def test_opml_export_to_a_folder_says_why_and_leaves_nothing(env, two_feeds, tmp_path,
                                                             monkeypatch):  # fmt: skip
    import smartreader.gui.mainwindow as mw

    told: list[str] = []
    monkeypatch.setattr(mw, "warn", lambda _parent, _title, text: told.append(text))
    win = env.window(start_scheduler=False)
    assert win.export_opml(str(tmp_path)) is None
    assert told == [f"Could not export: cannot write {tmp_path}: it is a folder"]
    assert not list(tmp_path.parent.glob("*.partial"))


def test_opml_import_shows_how_a_sloppy_file_was_read(env, tmp_path):
    win = env.window(start_scheduler=False)
    path = tmp_path / "sloppy.opml"
    path.write_bytes(b'<opml><body><outline text="R&D" xmlUrl="https://a.example/?a=1&b=2"/>'
                     b"</body></opml>")  # fmt: skip
    assert win.import_opml(str(path)) == 1
    box = win.import_problems
    assert box is not None and "how the file was read" in box.text()
    assert "2 bare '&'" in box.detailedText()


def test_opml_import_keeps_passwords_out_of_the_database_and_lists_problems(
    env, qtbot, feed_server, tmp_path
):
    """The GUI's import stored a feed URL's user:password in the database as is."""
    from smartreader.net import credentials
    from tests.keyrings import MemoryKeyring, installed

    url = serve(feed_server, "/p.xml", rss(1, prefix="Private"))
    secret = url.replace("://", "://ann:s3cr3t-pw@")
    opml = tmp_path / "in" / "in.opml"  # not beside the database, which is checked
    opml.parent.mkdir()
    opml.write_text(
        f"""<opml version="2.0"><body><outline text="P" xmlUrl="{secret}"/>
        <outline text="bad" xmlUrl="javascript:alert(1)"/></body></opml>""",
        encoding="utf-8",
    )
    win = env.window(start_scheduler=False)
    assert "Welcome to smartreader" in win.article_view.html()
    with installed(MemoryKeyring()):
        assert win.import_opml(str(opml)) == 1
        assert "Welcome to smartreader" not in win.article_view.html()
        feed = env.store.feeds()[0]
        assert (feed.url, feed.auth_username) == (url, "ann")
        assert credentials.get_password(url, "ann") == "s3cr3t-pw"
    folder = env.store.path.parent
    assert not any(b"s3cr3t-pw" in p.read_bytes() for p in folder.iterdir() if p.is_file())
    box = win.import_problems  # shown with open(): the window is not blocked
    assert box is not None and box.isVisible()
    assert "javascript" in box.detailedText()
    assert box.text().startswith("Imported 1 feed, 1 problem: the details")
    assert win.statusBar().currentMessage() == "Imported 1 feed, 1 problem"


def test_refresh_fetches_new_items_while_running(env, qtbot, feed_server):
    url = serve(feed_server, "/live.xml", rss(2, prefix="Live"))
    fid = env.updater.subscribe(url)
    win = env.window()
    win.select_feed(fid)
    assert win.list_model.rowCount() == 2
    serve(feed_server, "/live.xml", rss(3, prefix="Live"))
    with qtbot.wait_signal(win.sched.updateFinished, timeout=10_000):
        win.refresh_current()
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 3, timeout=3000)
    assert unread_of(win, f"feed:{fid}") == 3


def test_counts_move_while_results_keep_arriving(env, qtbot, feed_server):
    """Hundreds of feeds updating: a result every 100 ms for 2 s. The tree's counts
    follow (about once a second), not only after the last result."""
    from smartreader.core.models import ParsedEntry
    from smartreader.storage import FetchRecord
    from smartreader.updater import UpdateResult

    fid = env.store.add_feed(feed_server.url("/none.xml"), title="busy")
    win = env.window(start_scheduler=False)
    seen: list[int] = []
    for k in range(20):
        now = time.time()
        entry = ParsedEntry(f"u{k}", f"Item {k}", None, "", now, None, "<p>x</p>", "")
        env.store.record_fetch(FetchRecord(fid, now, "ok", entries=[entry]))
        win.sched.feedUpdated.emit(UpdateResult(fid, "ok", 1, None, 0.0, None, False, now))
        qtbot.wait(100)
        seen.append(unread_of(win, f"feed:{fid}"))
    # the count moved while results kept coming (at least twice in 2 s), not only
    # after the last one
    assert len({n for n in seen[:-1] if 0 < n < 20}) >= 2
    qtbot.waitUntil(lambda: unread_of(win, f"feed:{fid}") == 20, timeout=3000)


def test_the_list_refresh_comes_a_turn_after_the_tree_refresh(env, qtbot, feed_server):
    """After an update the tree refreshes on one turn of the event loop and the list
    on a later one, so the GUI answers in between: the list's part must not run in
    the same pass of posted events as the tree's (a queued call did, about half the
    time, and the two were one long stall)."""
    from PySide6.QtCore import QCoreApplication

    from smartreader.core.models import ParsedEntry
    from smartreader.storage import FetchRecord

    fid = env.store.add_feed(feed_server.url("/none.xml"), title="busy")
    win = env.window(start_scheduler=False)
    win.select_key("smart:all")
    now = time.time()
    entry = ParsedEntry("u1", "Item 1", None, "", now, None, "<p>x</p>", "")
    env.store.record_fetch(FetchRecord(fid, now, "ok", entries=[entry]))
    win._refresh_after_update()
    assert unread_of(win, f"feed:{fid}") == 1  # the tree: at once
    QCoreApplication.sendPostedEvents()
    assert win.list_model.rowCount() == 0  # the list: not in the same pass
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 1, timeout=2000)


def test_progress_bar_repaints_at_most_ten_times_a_second(env, qtbot):
    win = env.window(start_scheduler=False)
    win._update_started(True)
    changes: list[int] = []
    win.progress.valueChanged.connect(changes.append)
    t0 = time.monotonic()
    for done in range(1, 501):  # 500 results as fast as they come
        win._progress(done, 500)
    elapsed = time.monotonic() - t0
    assert len(changes) <= 2 + 10 * elapsed
    assert changes[-1] == 500 and win.progress.maximum() == 500  # the end is shown


def test_close_mid_update_leaves_no_thread_running(env, qtbot, feed_server):
    feed_server.route("/slow.xml", Reply(body=rss(1), delay=1.0))
    fid = env.store.add_feed(feed_server.url("/slow.xml"))
    env.updater.feed_changed(fid)
    win = env.window()
    with qtbot.wait_signal(win.sched.updateStarted, timeout=5000):
        win.refresh_all()
    win.close()
    assert win.sched.qthread.isFinished()
    assert not win._refresh_timer.isActive() and not win._clock.isActive()
    assert not win._list_timer.isActive()


def test_unsubscribe_says_what_goes_and_forgets_the_password(env, qtbot, two_feeds):
    from smartreader.net import credentials
    from tests.keyrings import LockedKeyring, MemoryKeyring, installed

    a, b = two_feeds
    win = env.window(start_scheduler=False)
    env.store.update_feed(a, auth_username="ann")
    env.store.set_starred(env.store.entry_ids(feed_ids=[a])[:1], True)
    feed = env.store.feed(a)
    assert win.unsubscribe_question(b, "Beta") == (
        "Unsubscribe from “Beta”? Its 2 articles are deleted."
    )
    with installed(MemoryKeyring()) as kr:
        assert win.unsubscribe_question(a, "Alpha") == (
            "Unsubscribe from “Alpha”? Its 3 articles are deleted, 1 of them starred. "
            "Its saved password is removed from the keyring."
        )
        credentials.store_password(feed.url, "ann", "pw")
        win.select_feed(a)
        win.delete_node(confirm=False)
        assert kr.data == {}
    assert [f.id for f in env.store.feeds()] == [b] and unread_of(win, "smart:starred") == 0
    assert win.statusBar().currentMessage().startswith("Unsubscribed from “")
    assert "3 articles deleted, 1 of them starred" in win.statusBar().currentMessage()
    # A locked keyring: the feed still goes, and the status bar says the password stayed.
    env.store.update_feed(b, auth_username="bob")
    win.select_feed(b)
    with installed(LockedKeyring()):
        win.delete_node(confirm=False)
    assert env.store.feeds() == []
    message = win.statusBar().currentMessage()
    assert "its password stays in the keyring (The system keyring is locked" in message


def test_without_a_keyring_unsubscribing_says_nothing_of_a_password(env, qtbot, two_feeds):
    """With no keyring at all none was saved: the status bar said "its password
    stays in the keyring: No secure password storage … is available"."""
    a, _b = two_feeds
    env.store.update_feed(a, auth_username="ann")
    win = env.window(start_scheduler=False)
    question = win.unsubscribe_question(a, "Alpha")
    assert "password" not in question  # nothing saved, nothing to remove
    win.select_feed(a)
    win.delete_node(confirm=False)
    message = win.statusBar().currentMessage()
    assert message.startswith("Unsubscribed from “") and "password" not in message


def test_undo_brings_an_unsubscribed_feed_back_whole(env, qtbot, two_feeds):
    """Edit ▸ Undo after unsubscribing: the feed returns to its folder with its
    articles, their read and starred state, its password and its schedule; the
    earlier marks' undo steps still reach its articles; Redo unsubscribes again."""
    from smartreader.net import credentials
    from tests.keyrings import MemoryKeyring, installed

    _a, b = two_feeds
    env.store.update_feed(b, auth_username="bob")
    win = env.window()
    qtbot.waitUntil(lambda: b in env.updater.scheduler.feed_ids(), timeout=5000)
    ids = env.store.entry_ids(feed_ids=[b])
    win.select_feed(b)
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_J)  # the first one opened: read
    qtbot.keyClick(win.list, Qt.Key.Key_S)  # and starred
    assert unread_of(win, f"feed:{b}") == 1 and unread_of(win, "smart:starred") == 1
    url = env.store.feed(b).url
    with installed(MemoryKeyring()) as kr:
        credentials.store_password(url, "bob", "pw")
        win.delete_node(confirm=False)
        assert kr.data == {} and b not in [f.id for f in env.store.feeds()]
        assert win.statusBar().currentMessage().endswith("Ctrl+Z brings it back")
        qtbot.waitUntil(lambda: b not in env.updater.scheduler.feed_ids(), timeout=5000)
        assert win.act_undo.text() == "&Undo Unsubscribe from “Beta feed”"

        win.act_undo.trigger()
        assert [f.id for f in env.store.feeds() if f.id == b] == [b]
        assert env.store.feed(b).folder == "News" and win.current_key() == f"feed:{b}"
        assert credentials.get_password(url, "bob") == "pw"
        assert env.store.entry_ids(feed_ids=[b]) == ids
        assert unread_of(win, f"feed:{b}") == 1 and unread_of(win, "smart:starred") == 1
        assert win.statusBar().currentMessage() == (
            f"“Beta feed” is back with its 2 articles — {win._redo_key()} redoes it"
        )
        qtbot.waitUntil(lambda: b in env.updater.scheduler.feed_ids(), timeout=5000)

        win.act_undo.trigger()  # the star, older than the unsubscribe, still undoes
        assert unread_of(win, "smart:starred") == 0
        win.act_redo.trigger()
        win.act_redo.trigger()  # and unsubscribing again
        assert b not in [f.id for f in env.store.feeds()] and kr.data == {}
        win.act_undo.trigger()
        assert unread_of(win, "smart:starred") == 1 and credentials.get_password(url, "bob")


def test_an_unsubscribe_whose_address_was_taken_cannot_be_undone(env, qtbot, two_feeds,
                                                                 monkeypatch):  # fmt: skip
    _a, b = two_feeds
    win = env.window(start_scheduler=False)
    warnings: list[str] = []
    monkeypatch.setattr(
        "smartreader.gui.mainwindow.warn", lambda _p, _t, text: warnings.append(text)
    )
    url = env.store.feed(b).url
    win.select_feed(b)
    win.delete_node(confirm=False)
    again = env.store.add_feed(url)  # subscribed again meanwhile (e.g. from the CLI)
    win.act_undo.trigger()
    assert warnings == [f"cannot resubscribe: another feed now has the address {url}"]
    assert [f.id for f in env.store.feeds() if f.url == url] == [again]
    assert not win.undo_stack.canUndo()  # the step is dropped, not left to fail again


def test_undo_brings_a_deleted_folder_back_with_its_feeds(env, qtbot, two_feeds):
    a, b = two_feeds
    c = env.store.add_feed("https://c.example/feed", folder="News", title="Gamma")
    win = env.window(start_scheduler=False)
    win.select_key(f"folder:{env.store.folder_id('News', create=False)}")
    win.delete_node(confirm=False)
    assert env.store.folders() == [] and env.store.feed(b).folder is None
    assert win.statusBar().currentMessage().endswith("Ctrl+Z undoes it")
    env.store.update_feed(c, folder="Elsewhere")  # moved by the user meanwhile
    win.act_undo.trigger()
    assert env.store.feed(b).folder == "News" and env.store.feed(a).folder is None
    assert env.store.feed(c).folder == "Elsewhere"  # left where the user put it
    assert win.statusBar().currentMessage() == (
        f"The folder “News” is back — {win._redo_key()} redoes it"
    )
    assert win.current_key() == f"folder:{env.store.folder_id('News', create=False)}"
    assert unread_of(win, win.current_key()) == 2
    win.act_redo.trigger()
    assert [f.name for f in env.store.folders()] == ["Elsewhere"]
    assert env.store.feed(b).folder is None


def test_models_pass_qtmodeltester(env, qtmodeltester, two_feeds):
    tree = FeedTreeModel(env.store)
    qtmodeltester.check(tree)
    lst = ArticleListModel(env.store)
    lst.set_query()
    qtmodeltester.check(lst)


def test_tree_context_menu_lists_feed_actions(env, qtbot, two_feeds):
    a, _b = two_feeds
    win = env.window(start_scheduler=False)
    win.select_feed(a)
    assert win.act_props in win.actions() and win.act_delete in win.actions()
    win.delete_node(confirm=False)
    assert [f.id for f in env.store.feeds()] != [] and a not in [f.id for f in env.store.feeds()]
    assert win.current_key() == "smart:unread"
    assert QPoint  # imported for context-menu tests on platforms with menus


def test_feed_actions_are_off_where_they_would_do_nothing(env, qtbot):
    """Feed ▸ Properties, Rename and Unsubscribe were always on, and on "All
    unread" (or Properties on a folder) did nothing without a word."""
    fid = stored_feed(env, "Alpha", 2, folder="News")
    win = env.window(start_scheduler=False)
    acts = (win.act_props, win.act_rename, win.move_menu.menuAction(), win.act_delete)

    def state() -> tuple[bool, ...]:
        return tuple(a.isEnabled() for a in acts)

    win.select_key("smart:unread")
    assert state() == (False, False, False, False)
    win.select_feed(fid)
    assert state() == (True, True, True, True)
    assert win.act_delete.text() == "&Unsubscribe…"
    folder = env.store.folder_id("News")
    win.select_key(f"folder:{folder}")
    assert win.current_key() == f"folder:{folder}"
    assert state() == (False, True, False, True)
    assert win.act_delete.text() == "&Delete folder…"
    win.select_key("smart:starred")
    assert state() == (False, False, False, False)


def test_a_mixed_lists_feed_cell_tells_its_whole_name(env, qtbot):
    """At 1,024 px the Feed column is ~66 px: "Harbo…" for both of these, and the
    column had no tooltip (Title and Date had)."""
    names = ("Harbour Traffic Board", "Harbour Wire")
    now = time.time()
    for k, name in enumerate(names):
        fid = env.store.add_feed(f"https://h{k}.example/feed", title=name)
        entry = ParsedEntry(f"e{k}", "News", None, "", now - k, None, "<p>x</p>", "")
        env.store.record_fetch(FetchRecord(fid, now, "ok", entries=[entry]))
    m = ArticleListModel(env.store)
    m.set_query()
    m.finish_loading()
    qtbot.waitUntil(lambda: m.rowCount() == 2, timeout=3000)
    tips = {m.index(r, COL_FEED).data(Qt.ItemDataRole.ToolTipRole) for r in range(2)}
    from smartreader.gui.safetext import tip

    assert tips == {tip(name) for name in names}  # (as plain text: a feed may name itself "<b>")


def test_mark_all_read_leaves_what_the_list_has_not_shown_yet(env, qtbot):
    """Entries stored after the list was read (its re-query not run yet) stay
    unread: by the clock, those stored in the second before the click went too,
    never shown."""
    fid = stored_feed(env, "Alpha", 3)
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    assert win.list_model.rowCount() == 3
    now = time.time()
    late = [
        ParsedEntry(f"late{i}", f"Late {i}", None, "", now - 1, None, "<p>x</p>", "")
        for i in range(2)
    ]
    new = env.store.record_fetch(FetchRecord(fid, now - 0.5, "ok", entries=late)).new_entry_ids
    assert len(new) == 2 and win.list_model.rowCount() == 3  # not in the list yet
    win.mark_all_read()
    assert {e.id for e in env.store.entries(env.store.entry_ids(unread=True))} == set(new)
    win.act_undo.trigger()
    assert len(env.store.entry_ids(feed_ids=[fid], unread=True)) == 5
