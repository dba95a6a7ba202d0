"""Closing the window keeps smartreader checking feeds, in the tray; Quit ends it.

The offscreen platform has no system tray, so these tests say there is one: the
QSystemTrayIcon itself is real (it cannot be seen here, which is all that is
faked)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QSystemTrayIcon

from smartreader.gui.settings import SettingsDialog

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    # no tray behind the icon here; and no window manager to raise a window
    pytest.mark.qt_log_ignore(
        "propagateSizeHints", "systemTrayWindowChanged", r"support raise\(\)"
    ),
]


@pytest.fixture
def a_tray(monkeypatch):
    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))


def test_closing_the_window_hides_it_and_polling_goes_on(env, qtbot, a_tray):
    win = env.window(tray=True)
    assert win.tray.shown and win.keeps_running()
    assert win.close() is False  # the close was turned into a hide
    assert not win.isVisible()
    assert win.sched.is_running()  # the scheduler still works
    # the tray icon's "Open smartreader" brings it back
    open_action = next(a for a in win.tray.menu.actions() if a.text() == "Open smartreader")
    open_action.trigger()
    assert win.isVisible()
    # File ▸ Quit really quits, whatever the setting
    with qtbot.wait_signal(win.quitRequested, timeout=1000):
        win.act_quit.trigger()
    assert not win.isVisible() and not win.sched.is_running()


def test_quit_from_the_tray_while_hidden(env, qtbot, a_tray):
    win = env.window(tray=True)
    win.close()
    quit_action = next(a for a in win.tray.menu.actions() if a.text() == "Quit")
    with qtbot.wait_signal(win.quitRequested, timeout=1000):
        quit_action.trigger()
    assert not win.sched.is_running()


def test_without_the_setting_closing_quits(env, a_tray):
    win = env.window(tray=True)
    win.prefs.set("close_to_tray", False)
    assert win.close() is True and not win.sched.is_running()


def test_without_an_icon_to_come_back_by_closing_quits(env, a_tray):
    win = env.window(tray=False)  # the tray icon is off in Settings
    assert not win.keeps_running()
    assert win.close() is True and not win.sched.is_running()


def test_with_no_tray_on_the_desktop_closing_quits_and_settings_say_why(env):
    win = env.window(tray=True)
    assert not win.tray.shown
    dlg = SettingsDialog(env.store, env.updater, win.prefs)
    assert not dlg.close_to_tray.isEnabled()
    assert "no system tray" in dlg.close_to_tray.toolTip()
    dlg.deleteLater()
    assert win.close() is True and not win.sched.is_running()


def test_settings_offer_it_only_with_the_tray_icon_and_save_it(env, qtbot, a_tray):
    win = env.window(tray=True)
    dlg = SettingsDialog(env.store, env.updater, win.prefs)
    qtbot.addWidget(dlg)
    assert dlg.close_to_tray.isEnabled() and dlg.close_to_tray.isChecked()  # the default
    dlg.tray.setChecked(False)
    assert not dlg.close_to_tray.isEnabled()
    dlg.tray.setChecked(True)
    dlg.close_to_tray.setChecked(False)
    dlg.accept()
    assert win.prefs.get("close_to_tray") is False
    assert win.close() is True
