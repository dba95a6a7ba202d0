"""One Settings window at a time, which saves only what was changed in it; the
Activity panel follows a new budget or minimum interval at once; and every undo
and redo says in the status bar what it did (real widgets, Store and Updater)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QInputDialog

from smartreader.gui.models import FEED_MIME
from smartreader.gui.prefs import Prefs
from smartreader.gui.settings import SettingsDialog
from smartreader.updater import Updater
from tests.gui.test_mainwindow import stored_feed, unread_of

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

QUIET = {"autostart_polling": False}  # the stored feeds' addresses are not fetched


def open_dialogs(win) -> list[SettingsDialog]:
    return [d for d in win.findChildren(SettingsDialog) if d.isVisible()]


def ctrl_comma(qtbot, win) -> None:
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow, timeout=3000)
    qtbot.keyClick(win, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)


# -- 1. one Settings window --------------------------------------------------------


@pytest.mark.qt_log_ignore("propagateSizeHints", r"support raise\(\)")  # offscreen
def test_ctrl_comma_again_brings_the_open_settings_forward(env, qtbot):
    win = env.window(scheduler_options=QUIET)
    ctrl_comma(qtbot, win)
    qtbot.waitUntil(lambda: len(open_dialogs(win)) == 1, timeout=3000)
    (dlg,) = open_dialogs(win)
    ctrl_comma(qtbot, win)  # the window was in front again: the same one comes forward
    qtbot.waitUntil(dlg.isActiveWindow, timeout=3000)
    assert open_dialogs(win) == [dlg]
    win.act_settings.trigger()  # the menu item and the toolbar's button
    assert win.open_settings() is dlg
    assert open_dialogs(win) == [dlg]

    dlg.notifications.setChecked(False)
    dlg.accept()
    assert win.prefs.get("notifications") is False
    qtbot.waitUntil(lambda: not open_dialogs(win), timeout=3000)
    ctrl_comma(qtbot, win)  # closed: a new one, showing what was saved
    qtbot.waitUntil(lambda: len(open_dialogs(win)) == 1, timeout=3000)
    (again,) = open_dialogs(win)
    assert again is not dlg and not again.notifications.isChecked()
    again.reject()
    qtbot.waitUntil(lambda: not open_dialogs(win), timeout=3000)


def test_ok_saves_only_what_was_changed_in_that_dialog(qtbot, tmp_path, env):
    """Two dialogs opened on the same settings (as two Settings windows were): the
    second's OK, after changing only the budget, put back the theme and the
    notifications the first had just changed."""
    prefs = Prefs.in_dir(tmp_path)
    first = SettingsDialog(env.store, env.updater, prefs)
    second = SettingsDialog(env.store, env.updater, prefs)
    for d in (first, second):
        qtbot.addWidget(d)
    first.theme.setCurrentIndex(first.theme.findData("dark"))
    first.notifications.setChecked(False)
    first.tray.setChecked(False)
    first.accept()
    assert prefs.get("theme") == "dark" and prefs.get("notifications") is False
    second.budget_spin.setValue(300)
    with (
        qtbot.assert_not_emitted(second.themeChanged),
        qtbot.assert_not_emitted(second.notificationsChanged),
    ):
        second.accept()
    assert env.store.get_setting("budget_per_day") == 300.0
    assert prefs.get("theme") == "dark"
    assert prefs.get("notifications") is False
    assert prefs.get("tray_icon") is False


# -- 2. the Activity panel follows Settings ------------------------------------------


def test_activity_follows_a_new_budget_and_minimum_interval_at_once(env, qtbot):
    alpha = stored_feed(env, "Alpha", 30)
    stored_feed(env, "Beta", 30, folder="News")
    env.updater.close()
    env.updater = Updater(env.store)  # one that plans the feeds stored above
    win = env.window(scheduler_options=QUIET)
    win.resize(1100, 700)
    win.tabs.setCurrentWidget(win.activity)
    ov = win.activity.overview
    assert ov.budget.value.text() == "1000/day"
    assert ov.planned.value.text() == "192/day"  # 2 feeds, each at most every 15 min
    qtbot.waitUntil(lambda: "/ 1000 requests" in win.budget_label.text(), timeout=3000)

    dlg = win.open_settings()
    dlg.budget_spin.setValue(100)
    dlg.accept()
    # as soon as the status bar says so, without a switch of tabs
    qtbot.waitUntil(lambda: "/ 100 requests" in win.budget_label.text(), timeout=3000)
    qtbot.waitUntil(lambda: ov.budget.value.text() == "100/day", timeout=1000)
    assert ov.planned.value.text().startswith("100")
    assert ov.planned.detail.text().startswith("100")  # % of the budget

    # a feed's view follows the minimum interval: 60 min is 24 fetches a day at most
    win.select_feed(alpha)
    view = win.activity.feed_view
    qtbot.waitUntil(lambda: win.activity.stack.currentWidget() is view, timeout=1000)
    assert float(view.share.value.text()) == 50
    assert "% of 100" in view.share.detail.text()
    dlg = win.open_settings()
    dlg.min_interval.setValue(60)
    dlg.accept()
    qtbot.waitUntil(lambda: env.updater.min_interval() == 3600.0, timeout=3000)
    qtbot.waitUntil(lambda: float(view.share.value.text()) == 24, timeout=1000)


# -- 3. undo and redo say what they did ----------------------------------------------


@pytest.fixture
def feeds(env):
    alpha = stored_feed(env, "Alpha", 3)
    beta = stored_feed(env, "Beta", 1, folder="News")
    env.store.folder_id("Blogs")
    return alpha, beta


def message(win) -> str:
    return win.statusBar().currentMessage()


def ctrl_z(qtbot, win) -> None:
    win.tree.setFocus()
    qtbot.keyClick(win.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def drop(win, fid: int, folder: str) -> None:
    md = QMimeData()
    md.setData(FEED_MIME, str(fid).encode())
    target = win.tree_model.index_for_key(f"folder:{win.store.folder_id(folder)}")
    win.tree_model.dropMimeData(md, Qt.DropAction.MoveAction, -1, 0, target)


def test_undoing_a_move_says_where_the_feed_went_back_to(env, qtbot, feeds):
    _alpha, beta = feeds
    win = env.window(start_scheduler=False)
    z, y = win._undo_key(), win._redo_key()
    drop(win, beta, "Blogs")
    assert message(win) == f"Moved “Beta” to “Blogs” — {z} undoes it"
    ctrl_z(qtbot, win)
    assert env.store.feed(beta).folder == "News"
    assert message(win) == f"Moved “Beta” back to “News” — {y} redoes it"
    win.act_redo.trigger()
    assert message(win) == f"Moved “Beta” to “Blogs” — {z} undoes it"
    drop(win, beta, "News")
    win.undo_stack.undo()
    assert message(win) == f"Moved “Beta” back to “Blogs” — {y} redoes it"


def test_undoing_mark_all_read_says_they_are_unread_again(env, qtbot, feeds):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    z, y = win._undo_key(), win._redo_key()
    win.select_feed(alpha)
    win.mark_all_read()
    assert message(win) == f"Marked 3 articles as read — {z} undoes it"
    ctrl_z(qtbot, win)
    assert unread_of(win, f"feed:{alpha}") == 3
    assert message(win) == f"Marked 3 articles as unread again — {y} redoes it"
    win.act_redo.trigger()
    assert message(win) == f"Marked 3 articles as read — {z} undoes it"


def test_starring_then_undo_names_the_article(env, qtbot, feeds):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    z, y = win._undo_key(), win._redo_key()
    win.select_feed(alpha)
    win.mark_all_read()  # its "— Ctrl+Z undoes it" must not outlive the next step
    win.list.setFocus()
    qtbot.keyClick(win.list, Qt.Key.Key_N)
    qtbot.keyClick(win.list, Qt.Key.Key_S)
    eid = win.selected_entry_id()
    assert env.store.entry(eid).starred
    title = env.store.entry(eid).title
    assert message(win) == f"Starred “{title}” — {z} undoes it"
    ctrl_z(qtbot, win)
    assert not env.store.entry(eid).starred
    assert message(win) == f"Unstarred “{title}” again — {y} redoes it"


def test_undoing_a_rename_says_the_old_name(env, qtbot, feeds, monkeypatch):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    z, y = win._undo_key(), win._redo_key()
    win.select_feed(alpha)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("My alpha", True))
    win.rename_node()
    assert message(win) == f"Renamed “Alpha” to “My alpha” — {z} undoes it"
    ctrl_z(qtbot, win)
    assert message(win) == f"Renamed “My alpha” back to “Alpha” — {y} redoes it"
    win.act_redo.trigger()
    assert message(win) == f"Renamed “Alpha” to “My alpha” — {z} undoes it"


def test_no_undo_or_redo_leaves_an_undo_hint_that_is_no_longer_true(env, qtbot, feeds, monkeypatch):
    """Every kind of step: after its undo the status bar says what the undo did,
    never the step's own "— Ctrl+Z undoes it" (a second Ctrl+Z would undo an
    older step); after its redo it says so again."""
    alpha, beta = feeds
    win = env.window(start_scheduler=False)
    hints = ("undoes it", "brings it back")

    def step_then_undo_redo(do) -> None:
        do()
        done = message(win)
        assert any(h in done for h in hints), done
        win.undo_stack.undo()
        undone = message(win)
        assert undone and not any(h in undone for h in hints), undone
        win.undo_stack.redo()
        assert any(h in message(win) for h in hints), message(win)

    win.select_feed(alpha)
    step_then_undo_redo(win.mark_all_read)
    win.select_feed(alpha)
    win._select_row(0, open_=False)
    step_then_undo_redo(win.toggle_read)
    step_then_undo_redo(win.toggle_star)
    step_then_undo_redo(lambda: drop(win, alpha, "Blogs"))
    win.select_feed(alpha)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Alpha’s new name", True))
    step_then_undo_redo(win.rename_node)
    win.select_key(f"folder:{env.store.folder_id('News')}")
    step_then_undo_redo(lambda: win.delete_node(confirm=False))
    win.select_feed(beta)
    step_then_undo_redo(lambda: win.delete_node(confirm=False))
