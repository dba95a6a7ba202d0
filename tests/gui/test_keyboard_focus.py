"""The main window's keys go where the focus is (from an accessibility audit):
Space and Enter are reading keys (next unread, open the article) only in the
feed tree, the article list and the article text, so a focused button, tab, table
or link gets them, and another table gets the list's letter keys (j, s, m…);
the Menu key's menu acts on the current row (it hit the row below); the
missed-items banner comes before the list in the Tab order, gives the focus
back to the list when dismissed and tells a screen reader what it says;
Del, Alt+Enter and Ctrl+Q work; an undo says which key redoes it.

Real widgets, real key events on a shown, active window, a real Store."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAccessible, QAction, QContextMenuEvent, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu

from smartreader.core.models import ParsedEntry
from smartreader.gui import mainwindow
from smartreader.gui.models import COL_TITLE
from smartreader.storage.store import FetchRecord
from tests.gui.test_alerts import _raise_alert
from tests.gui.test_mainwindow import stored_feed, unread_of

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _focus(qtbot, w) -> None:
    w.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(w.hasFocus, timeout=1000)


def _alert_feed(env, title: str = "Alerty") -> int:
    """A feed with an open missed-items alert: its list shows the banner."""
    return _raise_alert(env.store, title, time.time())


def _linked_feed(env, name: str = "Linked", n: int = 3) -> int:
    """A feed whose articles have a link of their own and two in their text."""
    now = time.time()
    fid = env.store.add_feed(f"https://{name.lower()}.example/feed", title=name)
    body = "<p>See <a href='https://e.org/one'>one</a> and <a href='https://e.org/two'>two</a></p>"
    entries = [
        ParsedEntry(
            f"{name}{i}",
            f"{name} {i}",
            f"https://{name.lower()}.example/{i}",
            "",
            now - i * 60,
            None,
            body,
            "",
        )
        for i in range(n)
    ]
    env.store.record_fetch(FetchRecord(fid, now, "ok", entries=entries))
    return fid


def _shown_feed(env, qtbot, fid: int, n: int):
    win = env.window(start_scheduler=False)
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == n, timeout=3000)
    return win


# -- 1. Space and Enter belong to the focused control -----------------------------------


def test_space_on_a_focused_button_presses_it_instead_of_reading_on(env, qtbot):
    """Space on the banner's Dismiss ran "next unread": it opened (and marked
    read) an article and left the banner up."""
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    assert win.banner.isVisible()
    unread = unread_of(win, f"feed:{fid}")
    _focus(qtbot, win.banner.button)
    qtbot.keyClick(win.banner.button, Qt.Key.Key_Space)
    assert not win.banner.isVisible() and env.store.alerts() == []
    assert win._current_entry is None and unread_of(win, f"feed:{fid}") == unread


def test_enter_on_a_focused_button_does_not_open_the_selected_article(env, qtbot):
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_N)  # selected, not opened
    eid = win.selected_entry_id()
    assert eid is not None and win._current_entry is None
    _focus(qtbot, win.banner.button)
    for key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
        qtbot.keyClick(win.banner.button, key)
        assert win._current_entry is None and not env.store.entry(eid).read


def test_space_on_the_tab_bar_leaves_the_tab_and_the_articles_alone(env, qtbot):
    fid = stored_feed(env, "Alpha", 4)
    win = _shown_feed(env, qtbot, fid, 4)
    win.tabs.setCurrentWidget(win.alerts_view)
    bar = win.tabs.tabBar()
    _focus(qtbot, bar)
    qtbot.keyClick(bar, Qt.Key.Key_Space)
    assert win.tabs.currentWidget() is win.alerts_view
    assert win._current_entry is None and unread_of(win, f"feed:{fid}") == 4


def test_space_and_enter_on_the_alerts_table_run_no_reading_shortcut(env, qtbot):
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    win.tabs.setCurrentWidget(win.alerts_view)
    table = win.alerts_view.table
    assert table.rowCount() == 1
    table.selectRow(0)
    _focus(qtbot, table)
    qtbot.keyClick(table, Qt.Key.Key_Space)
    assert win.tabs.currentWidget() is win.alerts_view and win._current_entry is None
    qtbot.keyClick(table, Qt.Key.Key_Return)  # the table's own Enter, if it has one
    assert win._current_entry is None and unread_of(win, f"feed:{fid}") == 20


def test_enter_on_a_link_tabbed_to_in_the_article_follows_it(env, qtbot):
    fid = _linked_feed(env)
    win = _shown_feed(env, qtbot, fid, 3)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    opened = win._current_entry
    browser = win.article_view.browser
    _focus(qtbot, browser)
    qtbot.keyClick(browser, Qt.Key.Key_Tab)  # the title's link
    qtbot.keyClick(browser, Qt.Key.Key_Tab)  # the first link in the text
    assert browser.hasFocus() and browser.textCursor().selectedText() == "one"
    qtbot.keyClick(browser, Qt.Key.Key_Return)
    assert env.opened == ["https://e.org/one"]
    assert win._current_entry == opened


def test_the_welcome_pages_add_a_feed_link_works_from_the_keyboard(env, qtbot, monkeypatch):
    win = env.window(start_scheduler=False)
    asked: list[str] = []
    monkeypatch.setattr(win, "add_feed", lambda *a: asked.append("add"))
    browser = win.article_view.browser
    _focus(qtbot, browser)
    qtbot.keyClick(browser, Qt.Key.Key_Tab)
    assert browser.textCursor().selectedText() == "Add a feed…"
    with qtbot.wait_signal(win.article_view.actionRequested, timeout=1000) as sig:
        qtbot.keyClick(browser, Qt.Key.Key_Return)
    assert sig.args == ["add"] and asked == ["add"]


def test_the_reading_keys_still_work_in_the_tree_the_list_and_the_article(env, qtbot):
    fid = _linked_feed(env)
    win = _shown_feed(env, qtbot, fid, 3)
    ids = win.list_model.ids()
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    qtbot.keyClick(win.list, Qt.Key.Key_Return)  # Enter opens the selected article
    assert win._current_entry == ids[0]
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    _focus(qtbot, win.tree)
    qtbot.keyClick(win.tree, Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert win._current_entry == ids[1]
    # Space in the article text (no link focused): a short article, so on to the next
    _focus(qtbot, win.article_view.browser)
    qtbot.keyClick(win.article_view.browser, Qt.Key.Key_Space)
    assert win._current_entry == ids[2]


# -- 2. the Menu key's menu acts on the current row ---------------------------------------


@pytest.fixture
def menus(monkeypatch):
    """Each context menu the window shows: its actions' texts (not run: exec
    would wait for a choice)."""
    shown: list[list[str]] = []

    class Menu(QMenu):
        def exec(self, *_args):
            shown.append([a.text() for a in self.actions()])

    monkeypatch.setattr(mainwindow, "QMenu", Menu)
    return shown


def _menu_key(win) -> None:
    """The Menu key as the platform reports it: a keyboard context menu event to
    the window, which Qt passes to the focused widget at its current item."""
    ev = QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, QPoint(0, 0), QPoint(0, 0))
    QApplication.sendEvent(win.windowHandle(), ev)


def test_the_menu_key_on_the_article_list_acts_on_the_current_row(env, qtbot, menus):
    fid = stored_feed(env, "Alpha", 8)
    win = _shown_feed(env, qtbot, fid, 8)
    _focus(qtbot, win.list)
    for _ in range(3):
        qtbot.keyClick(win.list, Qt.Key.Key_N)
    assert win.selected_row() == 2
    _menu_key(win)
    assert menus and "&Star" in menus[-1]
    assert win.selected_row() == 2 and win.list.currentIndex().row() == 2
    win.act_star.trigger()  # what the menu's Star does
    assert env.store.entry(win.list_model.entry_id(2)).starred
    assert not env.store.entry(win.list_model.entry_id(3)).starred


def test_a_right_click_on_the_article_list_still_acts_on_the_row_clicked(env, qtbot, menus):
    fid = stored_feed(env, "Alpha", 8)
    win = _shown_feed(env, qtbot, fid, 8)
    at = win.list.visualRect(win.list_model.index(5, COL_TITLE)).center()
    ev = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at, win.list.viewport().mapToGlobal(at))
    QApplication.sendEvent(win.list.viewport(), ev)
    assert menus and win.selected_row() == 5


def test_the_menu_key_on_the_tree_acts_on_the_current_feed(env, qtbot, menus):
    """The tree has no header: its menu was off by the frame only, and held
    (a guard for the move to the current index, scrolled out of sight here)."""
    fids = [stored_feed(env, f"Feed{i:02d}", 1) for i in range(40)]
    win = _shown_feed(env, qtbot, fids[-1], 1)
    win.resize(900, 500)
    _focus(qtbot, win.tree)
    win.tree.scrollToTop()  # the current feed out of sight, as the wheel leaves it
    assert not win.tree.viewport().rect().intersects(win.tree.visualRect(win.tree.currentIndex()))
    _menu_key(win)
    assert menus and "&Unsubscribe…" in menus[-1]
    assert win.current_key() == f"feed:{fids[-1]}"


# -- 3. the missed-items banner ------------------------------------------------------------


def test_the_banner_comes_before_the_list_and_gives_the_focus_back_to_it(env, qtbot):
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is win.banner.button  # Dismiss, just above
    qtbot.keyClick(win.banner.button, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is win.list
    _focus(qtbot, win.tree)
    qtbot.keyClick(win.tree, Qt.Key.Key_Tab)
    assert win.banner.isAncestorOf(QApplication.focusWidget())
    _focus(qtbot, win.banner.button)
    qtbot.keyClick(win.banner.button, Qt.Key.Key_Space)
    assert not win.banner.isVisible()
    assert QApplication.focusWidget() is win.list  # it went to the tab bar


def test_the_banner_buttons_tell_a_screen_reader_what_the_banner_says(env, qtbot):
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    text = win.banner.text()
    assert "About 3 items" in text
    iface = QAccessible.queryAccessibleInterface(win.banner.button)
    assert iface.text(QAccessible.Text.Name) == "Dismiss"
    assert iface.text(QAccessible.Text.Description) == text


# -- 4. missing keys ------------------------------------------------------------------------


def test_delete_in_the_tree_asks_before_unsubscribing(env, qtbot, monkeypatch):
    fid = stored_feed(env, "Alpha", 3)
    other = stored_feed(env, "Beta", 2, folder="News")
    win = _shown_feed(env, qtbot, fid, 3)
    answers = [False, True]
    asked: list[str] = []

    def ask(_parent, _title, question, *_a, **_k):
        asked.append(question)
        return answers.pop(0)

    monkeypatch.setattr(mainwindow, "ask", ask)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_Delete)  # not from the article list
    assert asked == []
    _focus(qtbot, win.tree)
    qtbot.keyClick(win.tree, Qt.Key.Key_Delete)
    assert asked[-1].startswith("Unsubscribe from “Alpha”?")
    assert fid in [f.id for f in env.store.feeds()]  # "No": nothing deleted
    qtbot.keyClick(win.tree, Qt.Key.Key_Delete)
    assert len(asked) == 2 and [f.id for f in env.store.feeds()] == [other]
    assert win.act_delete.shortcut().toString() == "Del"  # as the menus show it


def test_delete_on_a_folder_asks_to_delete_the_folder(env, qtbot, monkeypatch):
    stored_feed(env, "Beta", 2, folder="News")
    win = env.window(start_scheduler=False)
    asked: list[str] = []
    monkeypatch.setattr(mainwindow, "ask", lambda _p, _t, q, *a, **k: asked.append(q) or False)
    win.select_key(f"folder:{env.store.folder_id('News', create=False)}")
    _focus(qtbot, win.tree)
    qtbot.keyClick(win.tree, Qt.Key.Key_Delete)
    assert asked == ["Delete the folder “News”? Its feeds move to the top level."]
    assert [f.name for f in env.store.folders()] == ["News"]


def test_ctrl_q_quits_whatever_the_key_scheme(env, qtbot):
    win = env.window(start_scheduler=False)
    assert win.act_quit.shortcut() == QKeySequence("Ctrl+Q")
    _focus(qtbot, win.tree)
    with qtbot.wait_signal(win.quitRequested, timeout=1000):
        qtbot.keyClick(win.tree, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)


def test_alt_enter_opens_the_feed_properties(env, qtbot, monkeypatch):
    fid = stored_feed(env, "Alpha", 3)
    win = _shown_feed(env, qtbot, fid, 3)
    opened: list[int] = []

    class Props:
        def __init__(self, _store, feed_id, _parent):
            opened.append(feed_id)

        def exec(self):
            return 0

    monkeypatch.setattr(mainwindow, "FeedPropertiesDialog", Props)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_Return, Qt.KeyboardModifier.AltModifier)
    assert opened == [fid]
    _focus(qtbot, win.tree)
    qtbot.keyClick(
        win.tree,
        Qt.Key.Key_Enter,
        Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.KeypadModifier,
    )
    assert opened == [fid, fid]
    assert win._current_entry is None  # not "Open article" as well


def test_no_two_actions_share_a_key(env):
    win = env.window(start_scheduler=False)
    owner: dict[str, str] = {}
    for act in win.findChildren(QAction):
        for key in act.shortcuts():
            k = key.toString()
            assert k not in owner or owner[k] == act.text(), (k, owner.get(k), act.text())
            owner[k] = act.text()
    assert {"Alt+Return", "Del", "Ctrl+Q"} <= owner.keys()


def test_an_undo_says_which_key_redoes_it_and_that_key_does(env, qtbot):
    fid = stored_feed(env, "Alpha", 3)
    win = _shown_feed(env, qtbot, fid, 3)
    redo = win.act_redo.shortcut()
    assert not redo.isEmpty()
    win.mark_all_read()
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert unread_of(win, f"feed:{fid}") == 3
    name = redo.toString(QKeySequence.SequenceFormat.NativeText)
    assert (
        win.statusBar().currentMessage() == f"Marked 3 articles as unread again — {name} redoes it"
    )
    combo = redo[0]
    qtbot.keyClick(win.list, combo.key(), combo.keyboardModifiers())
    assert unread_of(win, f"feed:{fid}") == 0


def test_shift_f10_opens_the_menu_of_the_current_row(env, qtbot, menus):
    """GTK and Windows programs open the context menu with Shift+F10; Qt makes
    a menu of it only on Windows. On the list and the tree it is the menu of the
    current row, as the Menu key's; elsewhere it does nothing."""
    fid = stored_feed(env, "Alpha", 8)
    win = _shown_feed(env, qtbot, fid, 8)
    _focus(qtbot, win.list)
    for _ in range(3):
        qtbot.keyClick(win.list, Qt.Key.Key_N)
    qtbot.keyClick(win.list, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert menus and "&Star" in menus[-1] and win.selected_row() == 2
    _focus(qtbot, win.tree)
    qtbot.keyClick(win.tree, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert len(menus) == 2 and win.act_delete.text() in menus[-1]
    _focus(qtbot, win.search)
    qtbot.keyClick(win.search, Qt.Key.Key_F10, Qt.KeyboardModifier.ShiftModifier)
    assert len(menus) == 2


def test_letter_keys_on_the_alerts_table_leave_the_list_article_alone(env, qtbot):
    """s, m, j and Shift+A are the article list's keys: pressed in the Alerts
    table they starred the article open in the list, toggled its read flag,
    opened the next one and marked the whole feed read. A table gets them (its
    type-ahead), as a text field does."""
    fid = _alert_feed(env)
    win = _shown_feed(env, qtbot, fid, 20)
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_J)
    eid = win._current_entry
    assert eid is not None and env.store.entry(eid).read
    win.tabs.setCurrentWidget(win.alerts_view)
    table = win.alerts_view.table
    table.selectRow(0)
    _focus(qtbot, table)
    for key, mod in ((Qt.Key.Key_S, None), (Qt.Key.Key_M, None), (Qt.Key.Key_J, None),
                     (Qt.Key.Key_A, Qt.KeyboardModifier.ShiftModifier)):  # fmt: skip
        qtbot.keyClick(table, key, mod or Qt.KeyboardModifier.NoModifier)
    entry = env.store.entry(eid)
    assert not entry.starred and entry.read
    assert win._current_entry == eid
    assert unread_of(win, f"feed:{fid}") == 19
    assert win.tabs.currentWidget() is win.alerts_view
    # in the list itself the same keys still act
    _focus(qtbot, win.list)
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    assert env.store.entry(eid).starred
