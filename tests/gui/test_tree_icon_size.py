"""The feed tree's icons follow the font: at 16 pt they were 16 px specks beside
the titles (the error disc and missed triangle hard to see), drawn at 16 and
32 px whatever the tree's size. Now the icon side is the font's line height
(never below 16 px), every pixmap is drawn at its own pixel size, a favicon is
scaled from its file, and a font changed while the window is open is followed."""

from __future__ import annotations

import struct
import time

import pytest
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QIcon
from PySide6.QtWidgets import QStyle

from smartreader.gui.models import ERROR_COLOR, MISSED_COLOR
from smartreader.net import favicon
from smartreader.storage.store import FetchRecord
from tests.gui.pictures import png
from tests.gui.test_mainwindow import stored_feed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _icon(win, key: str) -> QIcon:
    return win.tree_model.index_for_key(key).data(Qt.ItemDataRole.DecorationRole)


def _side(win) -> int:
    """The side the tree paints its icons at (unset: the style's small icon size)."""
    size = win.tree.iconSize()
    if not size.isValid():
        return win.tree.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize, None, win.tree)
    assert size.width() == size.height()
    return size.width()


def _drawn_at(icon: QIcon, side: int) -> None:
    """The icon has pixmaps drawn at ``side`` px and twice that, and those are what
    Qt paints on a 1x and a 2x screen (not a smaller one blown up)."""
    sizes = icon.availableSizes()
    for scale in (1.0, 2.0):
        px = round(side * scale)
        assert QSize(px, px) in sizes, (side, scale, sizes)
        pm = icon.pixmap(QSize(side, side), scale)
        assert pm.size() == QSize(px, px), (scale, pm.size())
        assert pm.devicePixelRatio() == pytest.approx(scale)


def _colour_pixels(icon: QIcon, side: int, colour: QColor) -> int:
    img = icon.pixmap(QSize(side, side), 1.0).toImage()
    return sum(
        img.pixelColor(x, y).name() == colour.name()
        for y in range(img.height())
        for x in range(img.width())
    )


def _feeds(env) -> tuple[int, int]:
    """A feed whose last update failed, in a folder, and one that missed items."""
    now = time.time()
    bad = stored_feed(env, "Lint House", 150, folder="News")
    env.store.record_fetch(FetchRecord(bad, now + 1, "error", error="HTTP 500"))
    lossy = stored_feed(env, "Harbour Wire", 12)
    env.store.record_fetch(
        FetchRecord(lossy, now + 1, "ok", missed_estimate=4.0, missed_from=1.0, missed_to=2.0)
    )
    return bad, lossy


def test_at_16pt_the_tree_icons_are_a_line_high_and_drawn_at_that_size(env, qtbot, app_font):
    bad, lossy = _feeds(env)
    app_font(9)
    small_win = env.window(start_scheduler=False)
    small = _side(small_win)
    small_badge = _colour_pixels(_icon(small_win, f"feed:{bad}"), small, ERROR_COLOR)
    small_win.close()

    app_font(16)
    win = env.window(start_scheduler=False)
    side = _side(win)
    assert small == 16  # 9 pt: as before
    assert side > small
    assert side >= win.tree.fontMetrics().height()
    for key in (f"feed:{bad}", f"feed:{lossy}", "smart:unread", "smart:starred"):
        _drawn_at(_icon(win, key), side)
    # the badges grow with the icon: readable beside 16 pt text
    assert _colour_pixels(_icon(win, f"feed:{bad}"), side, ERROR_COLOR) > 1.8 * small_badge
    assert _colour_pixels(_icon(win, f"feed:{lossy}"), side, MISSED_COLOR) > 20
    # the rows keep room for them (not clipped)
    feed = win.tree_model.index_for_key(f"feed:{bad}")
    for idx in (feed, feed.parent(), win.tree_model.index_for_key(f"feed:{lossy}")):
        assert idx.isValid()
        assert win.tree.visualRect(idx).height() >= side


def test_a_font_changed_while_open_resizes_the_tree_icons(env, qtbot, app_font):
    bad, _lossy = _feeds(env)
    app_font(9)
    win = env.window(start_scheduler=False)
    assert _side(win) == 16
    _drawn_at(_icon(win, f"feed:{bad}"), 16)

    app_font(16)
    qtbot.waitUntil(lambda: _side(win) > 16, timeout=2000)
    side = _side(win)
    assert side >= win.tree.fontMetrics().height()
    # the model's cached icons follow: drawn anew at the new size
    _drawn_at(_icon(win, f"feed:{bad}"), side)

    app_font(9)
    qtbot.waitUntil(lambda: _side(win) == 16, timeout=2000)
    _drawn_at(_icon(win, f"feed:{bad}"), 16)


def _ico(*frames: tuple[int, bytes]) -> bytes:
    """A .ico holding PNG frames (``(side, png bytes)``), as sites serve favicons."""
    head = struct.pack("<HHH", 0, 1, len(frames))
    offset = 6 + 16 * len(frames)
    entries = body = b""
    for side, data in frames:
        entries += struct.pack("<BBBBHHII", side % 256, side % 256, 0, 0, 1, 32, len(data),
                               offset + len(body))  # fmt: skip
        body += data
    return head + entries + body


def test_a_favicon_is_drawn_from_its_file_at_the_trees_size(env, qtbot, app_font):
    """A .ico's first frame is its 16 px one: QImage read only that, so a 24 px icon
    (48 px on a 2x screen) was it blown up. Each size now takes the file's frame
    that is at least as large, and a 16 px icon keeps the frame made for 16 px."""
    fid = stored_feed(env, "Favicon Feed", 2)
    ico = _ico((16, png(16, 16, "#ff0000")), (48, png(48, 48, "#00ff00")))
    favicon.save_icon(favicon.icons_dir(env.store.path), fid, ico)
    app_font(9)
    win = env.window(start_scheduler=False)

    def centre(scale: float) -> str:
        side = _side(win)
        pm = _icon(win, f"feed:{fid}").pixmap(QSize(side, side), scale)
        return pm.toImage().pixelColor(pm.width() // 2, pm.height() // 2).name()

    assert centre(1.0) == "#ff0000"  # 16 px: the 16 px frame
    assert centre(2.0) == "#00ff00"  # 32 px: from the 48 px one, not 16 blown up
    app_font(16)
    qtbot.waitUntil(lambda: _side(win) > 16, timeout=2000)
    assert centre(1.0) == "#00ff00"
    assert centre(2.0) == "#00ff00"
    _drawn_at(_icon(win, f"feed:{fid}"), _side(win))
