"""UI icons exist for every name and follow the theme (light text on dark, and back)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication

from smartreader.gui.app import apply_theme
from smartreader.gui.icons import NAMES, ui_icon
from smartreader.gui.mainwindow import MainWindow
from smartreader.gui.prefs import Prefs
from smartreader.storage import Store
from smartreader.updater import Updater
from tests.gui.contrast import contrast


def _ink(icon) -> QColor:
    """The mean colour of the icon's opaque pixels."""
    im = icon.pixmap(24, 24).toImage()
    px = [im.pixelColor(x, y) for x in range(24) for y in range(24)]
    ink = [c for c in px if c.alpha() > 200]
    assert ink, "blank icon"
    return QColor(
        sum(c.red() for c in ink) // len(ink),
        sum(c.green() for c in ink) // len(ink),
        sum(c.blue() for c in ink) // len(ink),
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_icon_renders_in_the_given_colour(qapp, name):
    assert _ink(ui_icon(name, QColor("#ff0000"))).red() > 200


def test_toolbar_icons_follow_the_theme(qtbot, tmp_path):
    store = Store(tmp_path / "db.sqlite3")
    updater = Updater(store)
    win = MainWindow(store, updater, prefs=Prefs.in_dir(tmp_path), tray=False)
    qtbot.addWidget(win)
    try:
        apply_theme("light")
        QApplication.processEvents()
        light = _ink(win.act_refresh_all.icon()).lightness()
        apply_theme("dark")
        QApplication.processEvents()
        dark = _ink(win.act_refresh_all.icon()).lightness()
        assert light < 100 < dark  # dark ink on light, light ink on dark
    finally:
        apply_theme("light")
        win.close()
        updater.close()
        store.close()


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_an_unchecked_check_box_can_be_seen(qtbot, theme):
    """Its edge against the window: WCAG asks 3:1 of a control (dark was 1.1:1)."""
    from PySide6.QtWidgets import QCheckBox, QStyle, QStyleOptionButton

    try:
        apply_theme(theme)
        box = QCheckBox("Load remote images in articles")
        qtbot.addWidget(box)
        box.resize(300, 40)
        box.show()
        qtbot.waitExposed(box)
        img = box.grab().toImage()
        opt = QStyleOptionButton()
        box.initStyleOption(opt)
        r = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, opt, box)
        window = box.palette().color(box.backgroundRole())
        edge = max(
            contrast(img.pixelColor(x, y), window)
            for x in range(r.left(), r.right() + 1)
            for y in range(r.top(), r.bottom() + 1)
        )
        assert edge >= 3.0
    finally:
        apply_theme("light")
