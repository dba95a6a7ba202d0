"""The red error text of Add feed and Feed properties is readable: WCAG asks
4.5:1 of text against its background. A fixed #d93025 was 3.17:1 on the dark
window and 4.42:1 on the light one."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from smartreader.gui.app import dark_palette, light_palette
from smartreader.gui.charts import accent
from smartreader.gui.dialogs import AddFeedDialog, FeedPropertiesDialog
from smartreader.storage.store import Store
from tests.gui.contrast import contrast

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

PALETTES = [light_palette, dark_palette]


def _system(window: str, base: str, text: str) -> QPalette:
    """A desktop's own palette (the "system" theme): only its colours are known."""
    p = QPalette(QColor(window))
    p.setColor(QPalette.ColorRole.Window, QColor(window))
    p.setColor(QPalette.ColorRole.Base, QColor(base))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText):
        p.setColor(role, QColor(text))
    return p


# Breeze Dark's and Adwaita dark's window and base, and a grey light theme: the
# fixed reds were 3.7:1 on the first two, amber 2.4:1 on the third
SYSTEM = {
    "breeze-dark": _system("#31363b", "#1b1e20", "#fcfcfc"),
    "adwaita-dark": _system("#353535", "#2d2d2d", "#eeeeec"),
    "grey-light": _system("#c0c0c0", "#d4d4d4", "#000000"),
}


def _ink_and_ground(label: QLabel) -> tuple[QColor, QColor]:
    pal = label.palette()
    return pal.color(label.foregroundRole()), pal.color(label.backgroundRole())


def _assert_readable_red(label: QLabel) -> None:
    ink, ground = _ink_and_ground(label)
    assert ground == label.window().palette().color(QPalette.ColorRole.Window)
    assert contrast(ink, ground) >= 4.5, (ink.name(), ground.name())
    hue = ink.hslHue()
    assert (hue <= 15 or hue >= 345) and ink.hslSaturation() > 120, ink.name()  # still red


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "db.sqlite3") as s:
        yield s


@pytest.mark.parametrize("palette", PALETTES, ids=["light", "dark"])
def test_add_feed_error_text_is_readable(qtbot, palette):
    dlg = AddFeedDialog([])
    dlg.setPalette(palette())
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.show_error("Could not fetch https://example.org/feed.xml: HTTP 404 Not Found")
    assert dlg.error.isVisible()
    _assert_readable_red(dlg.error)


@pytest.mark.parametrize("palette", PALETTES, ids=["light", "dark"])
def test_feed_properties_error_text_is_readable(qtbot, store, palette):
    fid = store.add_feed("https://example.org/feed.xml", title="Blog")
    dlg = FeedPropertiesDialog(store, fid, overlaps=[])
    dlg.setPalette(palette())
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.show_error("another feed already has this address")
    _assert_readable_red(dlg.error)


def test_the_error_text_follows_a_theme_change_while_open(qtbot):
    app = QApplication.instance()
    before = QPalette(app.palette())
    try:
        app.setPalette(light_palette())
        dlg = AddFeedDialog([])
        qtbot.addWidget(dlg)
        dlg.show()
        dlg.show_error("HTTP 404 Not Found")
        _assert_readable_red(dlg.error)
        light_ink = _ink_and_ground(dlg.error)[0]
        app.setPalette(dark_palette())
        QApplication.processEvents()
        _assert_readable_red(dlg.error)
        assert _ink_and_ground(dlg.error)[0] != light_ink
        app.setPalette(light_palette())
        QApplication.processEvents()
        assert _ink_and_ground(dlg.error)[0] == light_ink
    finally:
        app.setPalette(before)


@pytest.mark.parametrize("name", [*SYSTEM, "light", "dark"])
@pytest.mark.parametrize("hue", [0, 35, 350])  # the error red, the alerts' amber, "now"
def test_accent_text_reads_on_any_palette(qtbot, name, hue):
    pal = {"light": light_palette(), "dark": dark_palette(), **SYSTEM}[name]
    ink = accent(pal, hue)
    for ground in (QPalette.ColorRole.Window, QPalette.ColorRole.Base):
        assert contrast(ink, pal.color(ground)) >= 4.5, (ink.name(), name, ground)
    assert abs(ink.hslHue() - hue) <= 2 and ink.hslSaturation() > 120  # still its colour


@pytest.mark.parametrize("name", list(SYSTEM))
def test_add_feed_error_text_is_readable_on_a_desktops_palette(qtbot, name):
    dlg = AddFeedDialog([])
    dlg.setPalette(SYSTEM[name])
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.show_error("HTTP 404 Not Found")
    _assert_readable_red(dlg.error)
