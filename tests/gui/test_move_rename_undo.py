"""Moving a feed between folders (drag and drop, Feed ▸ Move to) and renaming a
feed or folder are undo steps (real widgets, a real Store)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, Qt
from PySide6.QtWidgets import QInputDialog

from smartreader.gui.models import FEED_MIME
from tests.gui.test_mainwindow import stored_feed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def feeds(env):
    """Alpha at the top level; Beta in News; an empty folder Later."""
    alpha = stored_feed(env, "Alpha", 2)
    beta = stored_feed(env, "Beta", 1, folder="News")
    env.store.folder_id("Later")
    return alpha, beta


def folder_of(env, fid: int) -> str | None:
    return env.store.feed(fid).folder


def drop(win, fid: int, folder: str) -> None:
    """Drop a feed's row on a folder through the tree model, as a drag does."""
    md = QMimeData()
    md.setData(FEED_MIME, str(fid).encode())
    target = win.tree_model.index_for_key(f"folder:{win.store.folder_id(folder)}")
    assert target.isValid()
    win.tree_model.dropMimeData(md, Qt.DropAction.MoveAction, -1, 0, target)


def undo_key(qtbot, win) -> None:
    win.tree.setFocus()
    qtbot.keyClick(win.tree, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def test_a_dropped_feed_goes_back_with_ctrl_z_and_again_with_redo(env, qtbot, feeds):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    drop(win, alpha, "News")
    assert folder_of(env, alpha) == "News"
    assert win.current_key() == f"feed:{alpha}"
    assert win.statusBar().currentMessage().startswith("Moved “Alpha” to “News” — ")
    assert win.act_undo.text() == "&Undo Move “Alpha” to “News”"
    undo_key(qtbot, win)
    assert folder_of(env, alpha) is None
    assert win.tree_model.index_for_key(f"feed:{alpha}").parent().isValid() is False
    win.act_redo.trigger()
    assert folder_of(env, alpha) == "News"


def test_dropping_a_feed_on_its_own_folder_is_no_step(env, feeds):
    _alpha, beta = feeds
    win = env.window(start_scheduler=False)
    drop(win, beta, "News")
    assert folder_of(env, beta) == "News" and not win.undo_stack.canUndo()


def test_move_to_menu_lists_the_other_folders_and_moves_by_keyboard(env, qtbot, feeds):
    alpha, beta = feeds
    win = env.window(start_scheduler=False)
    win.select_feed(beta)
    win.move_menu.aboutToShow.emit()
    acts = {a.text(): a for a in win.move_menu.actions() if a.text()}
    assert list(acts) == ["Later", "News", "&Top level", "&New folder…"]
    assert not acts["News"].isEnabled()  # where it is
    acts["Later"].trigger()
    assert folder_of(env, beta) == "Later"
    acts["&Top level"].trigger()
    assert folder_of(env, beta) is None
    win.undo_stack.undo()
    win.undo_stack.undo()
    assert folder_of(env, beta) == "News"
    # the Feed menu holds it, and the tree's menu for a feed
    feed_menu = next(a.menu() for a in win.menuBar().actions() if a.text() == "Fee&d")
    assert win.move_menu.menuAction() in feed_menu.actions()
    win.select_feed(alpha)
    win.move_menu.aboutToShow.emit()
    top = next(a for a in win.move_menu.actions() if a.text() == "&Top level")
    assert not top.isEnabled()


def test_move_to_a_new_folder(env, feeds, monkeypatch):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    win.select_feed(alpha)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Reading list", True))
    win.move_menu.aboutToShow.emit()
    next(a for a in win.move_menu.actions() if a.text() == "&New folder…").trigger()
    assert folder_of(env, alpha) == "Reading list"
    win.undo_stack.undo()
    assert folder_of(env, alpha) is None


def test_renaming_a_feed_undoes_to_its_own_title(env, feeds, monkeypatch):
    alpha, _beta = feeds
    win = env.window(start_scheduler=False)
    win.select_feed(alpha)
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("My alpha", True))
    win.rename_node()
    assert env.store.feed(alpha).user_title == "My alpha"
    assert win.tree_model.index_for_key(f"feed:{alpha}").data() == "My alpha"
    win.undo_stack.undo()
    assert env.store.feed(alpha).user_title is None  # its own title shows again
    assert win.tree_model.index_for_key(f"feed:{alpha}").data() == "Alpha"
    win.undo_stack.redo()
    assert env.store.feed(alpha).user_title == "My alpha"


def test_renaming_a_folder_undoes_even_after_its_id_changed(env, feeds, monkeypatch):
    _alpha, beta = feeds
    win = env.window(start_scheduler=False)
    win.select_key(f"folder:{env.store.folder_id('News')}")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("World", True))
    win.rename_node()
    assert folder_of(env, beta) == "World"
    assert win.undo_stack.undoText() == "Rename “News”"
    win.undo_stack.undo()
    assert folder_of(env, beta) == "News"
    assert win.current_key() == f"folder:{env.store.folder_id('News')}"
    win.undo_stack.redo()
    assert folder_of(env, beta) == "World"


def test_an_undo_that_can_no_longer_be_done_says_why_and_drops_out(env, feeds, monkeypatch):
    _alpha, beta = feeds
    win = env.window(start_scheduler=False)
    win.select_key(f"folder:{env.store.folder_id('News')}")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("World", True))
    win.rename_node()
    env.store.folder_id("News")  # someone (the CLI, an import) made "News" again
    win.undo_stack.undo()
    assert "Could not rename" in win.statusBar().currentMessage()
    assert "already exists" in win.statusBar().currentMessage()
    assert folder_of(env, beta) == "World"  # nothing half done
    assert not win.undo_stack.canUndo()


def test_undo_after_an_unsubscribe_never_reaches_a_feed_added_since(env, feeds):
    """Move Beta, unsubscribe it, add Gamma, then undo twice: Gamma took Beta's
    freed id, and the second undo moved Gamma (a feed never moved) out of its
    folder instead of Beta."""
    _alpha, beta = feeds
    win = env.window(start_scheduler=False)
    drop(win, beta, "Later")
    win.select_feed(beta)
    win.delete_node(confirm=False)
    assert beta not in [f.id for f in env.store.feeds()]
    gamma = stored_feed(env, "Gamma", 1, folder="Elsewhere")
    win.tree_model.reload()
    assert gamma != beta
    win.undo_stack.undo()  # the unsubscribe
    assert folder_of(env, beta) == "Later"
    win.undo_stack.undo()  # the move
    assert folder_of(env, beta) == "News" and folder_of(env, gamma) == "Elsewhere"
