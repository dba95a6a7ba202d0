"""Keyboard and screen-reader access to the main window: Tab walks the panes
(the article list's own Tab stepped from cell to cell, opening and marking read
each row it passed, and never let focus out); every menu opens by its own Alt
letter and no two items of a menu share one (Edit and Feed both answered to E);
the panes have names a screen reader can say."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from tests.gui.test_mainwindow import stored_feed, unread_of

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _list_focused(env, qtbot):
    """A feed of 8 articles shown, the focus in its list."""
    fid = stored_feed(env, "Alpha", 8)
    win = env.window()
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 8, timeout=3000)
    win.list.setFocus()
    qtbot.waitUntil(win.list.hasFocus, timeout=1000)
    return fid, win


def test_tab_leaves_the_article_list_without_reading_anything(env, qtbot):
    fid, win = _list_focused(env, qtbot)
    before = unread_of(win, f"feed:{fid}")
    row = win.list.currentIndex().row()
    qtbot.keyClick(win.list, Qt.Key.Key_Tab)
    assert not win.list.hasFocus()
    assert QApplication.focusWidget() is win.article_view.browser
    for _ in range(6):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert unread_of(win, f"feed:{fid}") == before
    assert win.list.currentIndex().row() == row


def _letter(text: str) -> str | None:
    m = re.search(r"&([^&])", text)
    return m.group(1).lower() if m else None


def test_every_menu_and_item_has_its_own_alt_letter(env):
    win = env.window()
    bar = [a for a in win.menuBar().actions() if a.text()]
    letters = [_letter(a.text()) for a in bar]
    assert None not in letters and len(set(letters)) == len(letters), letters
    for top in bar:
        items = [a for a in top.menu().actions() if not a.isSeparator()]
        mine = [_letter(a.text()) for a in items]
        assert None not in mine, [a.text() for a in items]
        assert len(set(mine)) == len(mine), (top.text(), [a.text() for a in items])


def test_the_panes_have_names_a_screen_reader_says(env):
    win = env.window()
    names = {
        w.accessibleName()
        for w in (win.tree, win.list, win.article_view.browser, win.search, win.tabs)
    }
    assert names == {"Feeds", "Articles", "Article text", "Search articles", "Reading pane"}


def test_closing_the_shortcut_sheet_gives_the_focus_back_to_the_article_list(env, qtbot):
    """Esc closed the sheet and left the focus on the window itself: Down and j
    did nothing until a click."""
    _fid, win = _list_focused(env, qtbot)
    row = win.list.currentIndex().row()
    qtbot.keyClick(win.list, Qt.Key.Key_Question, Qt.KeyboardModifier.ShiftModifier)
    assert win.help.isVisible() and win.help.hasFocus()
    qtbot.keyClick(win.help, Qt.Key.Key_Escape)
    assert not win.help.isVisible()
    assert QApplication.focusWidget() is win.list
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Down)
    assert win.list.currentIndex().row() == row + 1
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_J)
    assert win.list.currentIndex().row() == row + 2


def test_the_shortcut_sheet_gives_the_focus_to_the_window_when_its_owner_is_gone(env, qtbot):
    """The widget that had the focus was disabled meanwhile: the window takes it."""
    win = env.window()
    win.search.setFocus()
    qtbot.waitUntil(win.search.hasFocus, timeout=1000)
    win.show_help()
    assert win.help.hasFocus()
    win.search.setEnabled(False)
    try:
        qtbot.keyClick(win.help, Qt.Key.Key_Escape)
        assert not win.help.isVisible()
        assert QApplication.focusWidget() is win
    finally:
        win.search.setEnabled(True)
