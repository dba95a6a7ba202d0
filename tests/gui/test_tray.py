"""Tray icon: the unread badge is painted, and background results gather into one
notification text (the offscreen platform has no tray, so the icon stays inert)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from PySide6.QtWidgets import QSystemTrayIcon

from smartreader.gui.tray import TrayIcon, app_icon, badge_icon

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@dataclass(frozen=True)
class Result:
    feed_id: int
    new_entries: int
    manual: bool = False
    missed_estimate: float = 0.0
    ruled_read: int = 0


def _red_pixels(icon) -> int:
    img = icon.pixmap(64, 64).toImage()
    return sum(
        1
        for x in range(0, 64, 2)
        for y in range(0, 64, 2)
        if (c := img.pixelColor(x, y)).red() > 180 and c.green() < 80 and c.blue() < 80
    )


def test_badge_is_painted_only_for_unread(qapp):
    base = app_icon()
    assert _red_pixels(badge_icon(base, 0)) == 0
    assert _red_pixels(badge_icon(base, 7)) > 20
    assert _red_pixels(badge_icon(base, 1234)) > 20


def test_background_results_gather_into_one_message(qtbot):
    tray = TrayIcon(title_for={1: "Ars", 2: "LWN"}.get, gather_ms=10_000)
    assert tray.available == QSystemTrayIcon.isSystemTrayAvailable()
    tray.on_feed_updated(Result(1, 3))
    tray.on_feed_updated(Result(2, 1))
    tray.on_feed_updated(Result(1, 2))
    tray.on_feed_updated(Result(2, 5, manual=True))  # the user is looking: not announced
    assert tray.new_items_message() == ("6 new items", "Ars (5), LWN (1)")
    tray.set_unread(12)
    assert tray.unread == 12
    tray.set_notifications(False)
    assert tray.pending() == {}
    tray.dispose()


def test_what_a_rule_muted_is_not_announced(qtbot):
    from smartreader.updater import UpdateResult

    tray = TrayIcon(title_for={1: "Ars", 2: "LWN"}.get, gather_ms=10_000)
    tray.on_feed_updated(UpdateResult(1, "ok", 4, None, 0.0, None, False, 0.0, ruled_read=3))
    tray.on_feed_updated(UpdateResult(2, "ok", 2, None, 0.0, None, False, 0.0, ruled_read=2))
    assert tray.pending() == {1: 1}
    assert tray.new_items_message() == ("1 new item", "Ars (1)")
    tray.dispose()


def test_the_tip_says_unread_and_paused(qtbot):
    tray = TrayIcon()
    assert tray.tooltip() == "smartreader"
    tray.set_unread(3)
    assert tray.tooltip() == "smartreader — 3 unread"
    tray.set_paused(True)
    assert tray.tooltip() == "smartreader — 3 unread, updates paused"
    tray.set_unread(0)
    assert tray.tooltip() == "smartreader — updates paused"
    tray.set_paused(False)
    assert tray.tooltip() == "smartreader"
    tray.dispose()
