"""What the user arranged stays arranged: collapsed folders across tree reloads
and restarts, the article list's column widths and the open tab across restarts."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from smartreader.gui.models import COL_FEED
from tests.gui.test_mainwindow import stored_feed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def folders(env):
    a = stored_feed(env, "Alpha", 2, folder="News")
    b = stored_feed(env, "Beta", 2, folder="Dev")
    c = stored_feed(env, "Gamma", 1)
    return a, b, c


def expanded(win, name: str) -> bool:
    index = win.tree_model.index_for_key(f"folder:{win.store.folder_id(name, create=False)}")
    assert index.isValid()
    return win.tree.isExpanded(index)


def collapse(win, name: str) -> None:
    key = f"folder:{win.store.folder_id(name, create=False)}"
    win.tree.collapse(win.tree_model.index_for_key(key))


def test_a_collapsed_folder_stays_collapsed_when_the_tree_changes(env, folders):
    _a, _b, gamma = folders
    win = env.window(start_scheduler=False)
    assert expanded(win, "News") and expanded(win, "Dev")  # a new user sees everything
    collapse(win, "News")
    win._move_feed(gamma, "Dev")  # a move changes the tree's shape: it is rebuilt
    assert not expanded(win, "News") and expanded(win, "Dev")
    win.undo_stack.undo()
    assert not expanded(win, "News")


def test_folders_columns_and_tab_come_back_after_a_restart(env, folders):
    win = env.window(start_scheduler=False)
    collapse(win, "Dev")
    win.list.horizontalHeader().resizeSection(COL_FEED, 90)  # the user drags it
    win.tabs.setCurrentWidget(win.activity)
    win.close()
    again = env.window(start_scheduler=False)
    assert not expanded(again, "Dev") and expanded(again, "News")
    assert again.list_columns.preferred[COL_FEED] == 90
    assert again.tabs.currentWidget() is again.activity
    # opened again, the folder's state is saved again as the user leaves it
    again.tree.expand(again.tree_model.index_for_key(
        f"folder:{again.store.folder_id('Dev', create=False)}"))  # fmt: skip
    again.close()
    third = env.window(start_scheduler=False)
    assert expanded(third, "Dev")


def test_a_damaged_prefs_value_falls_back_to_the_defaults(env, folders):
    win = env.window(start_scheduler=False)
    collapse(win, "Dev")
    win.close()  # saves its state; the file is damaged after
    win.prefs.set("tree/collapsed", "{not json")
    win.prefs.set("list/feed_width", 0)
    win.prefs.sync()
    again = env.window(start_scheduler=False)
    assert expanded(again, "News") and expanded(again, "Dev")
    assert again.list_columns.preferred[COL_FEED] == 130


def test_f9_hides_the_feed_list_for_the_reading_pane_and_it_stays_hidden(env, qtbot, folders):
    """At 16 pt in a 1,024 px window the panes' minimums left the reading pane
    257 px, however the splitter was dragged. Hiding the feed list gives it the
    tree's width; feeds still go by with Shift+N, and the choice is kept."""
    alpha, _beta, _gamma = folders
    win = env.window(start_scheduler=False)
    win.show()
    win.resize(1024, 700)
    win.select_feed(alpha)
    win.tree.setFocus()
    qtbot.waitUntil(lambda: win.tree.hasFocus())
    reading = win.tabs.width()
    qtbot.keyClick(win, Qt.Key.Key_F9)
    assert not win.tree.isVisible() and not win.act_feed_list.isChecked()
    qtbot.waitUntil(lambda: win.tabs.width() > reading + 100)
    assert win.list.hasFocus()  # not left on the hidden tree, where keys go nowhere
    qtbot.keyClick(win.list, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    assert win.current_key() != f"feed:{alpha}"
    assert win.list_title.text() == win.tree_model.node(win.tree.currentIndex()).title
    win.close()
    again = env.window(start_scheduler=False)
    again.show()
    assert not again.tree.isVisible() and not again.act_feed_list.isChecked()
    again.act_feed_list.trigger()
    assert again.tree.isVisible()
    again.close()
    third = env.window(start_scheduler=False)
    third.show()
    assert third.tree.isVisible()
