"""The "?" shortcut sheet fits inside the window at any font size, centred: at a
16 pt application font its two columns were 1,323 px wide in a 1,024 px window,
the card placed at x = −150 and both columns cut."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from smartreader.gui.dialogs import HelpOverlay
from smartreader.gui.mainwindow import SHORTCUTS

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture
def font_pt(request):
    """The application font at ``request.param`` points (None: as it is)."""
    app = QApplication.instance()
    before = QFont(app.font())
    if request.param:
        f = QFont(before)
        f.setPointSize(request.param)
        app.setFont(f)
    yield request.param
    app.setFont(before)


def _sheet(qtbot, w: int, h: int) -> tuple[QWidget, HelpOverlay]:
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(w, h)
    host.show()
    qtbot.waitExposed(host)
    sheet = HelpOverlay(SHORTCUTS, host)
    sheet.open()
    qtbot.waitExposed(sheet)
    QApplication.processEvents()
    return host, sheet


def _labels(sheet: HelpOverlay) -> list[QLabel]:
    return [lab for lab in sheet.card.findChildren(QLabel) if lab.isVisibleTo(sheet.card)]


def _cut_sideways(label: QLabel, host: QWidget) -> bool:
    """Whether any widget between the label and the window clips its width, or
    its text is wider than the label (a one-line label squeezed)."""
    if not label.wordWrap() and label.width() < label.sizeHint().width():
        return True
    w: QWidget = label
    while w is not host:
        parent = w.parentWidget()
        r = QRect(label.mapTo(parent, QPoint(0, 0)), label.size())
        if r.left() < 0 or r.right() >= parent.width():
            return True
        w = parent
    return False


@pytest.mark.parametrize("font_pt", [16], indirect=True)
@pytest.mark.parametrize("size", [(1024, 768), (800, 600)], ids=["1024x768", "800x600"])
def test_at_16_pt_the_sheet_fits_inside_the_window_and_stays_centred(qtbot, font_pt, size):
    host, sheet = _sheet(qtbot, *size)
    card = sheet.card.geometry()
    assert host.rect().contains(card), (card, host.rect())
    assert abs(card.left() - (host.width() - card.right() - 1)) <= 1  # centred sideways
    if card.height() < host.height() - 2 * sheet.MARGIN:
        assert abs(card.top() - (host.height() - card.bottom() - 1)) <= 1
    cut = [lab.text() for lab in _labels(sheet) if _cut_sideways(lab, host)]
    assert not cut, cut
    for lab in _labels(sheet):  # a wrapped description has the height of its lines
        if lab.wordWrap():
            assert lab.height() >= lab.heightForWidth(lab.width())
    # every row is on the card, or a scroll of the card away (the mouse wheel:
    # any key closes the sheet)
    body = sheet.area.widget()
    bar = sheet.area.verticalScrollBar()
    hidden = body.height() - sheet.area.viewport().height()
    assert bar.maximum() >= hidden
    assert bar.isVisible() == (hidden > 0)


@pytest.mark.parametrize("font_pt", [16], indirect=True)
def test_at_16_pt_in_1024_px_both_columns_fit_without_scrolling(qtbot, font_pt):
    """Wrapping the longest descriptions is enough there: no scroll bar, which
    the keyboard could not move."""
    host, sheet = _sheet(qtbot, 1024, 768)
    assert host.rect().contains(sheet.card.geometry())
    assert len(sheet.columns) == 2
    assert not sheet.area.verticalScrollBar().isVisible()
    assert any(lab.wordWrap() for lab in _labels(sheet))


@pytest.mark.parametrize("font_pt", [None], indirect=True)
def test_at_the_default_font_the_sheet_is_as_before(qtbot, font_pt):
    """Two columns, every description on one line, the card centred both ways."""
    host, sheet = _sheet(qtbot, 1024, 768)
    card = sheet.card.geometry()
    assert len(sheet.columns) == 2
    assert not any(lab.wordWrap() for lab in _labels(sheet))
    scroll = getattr(sheet, "area", None)  # (none before the sheet could scroll)
    assert scroll is None or not scroll.verticalScrollBar().isVisible()
    assert abs(card.left() - (host.width() - card.right() - 1)) <= 1
    assert abs(card.top() - (host.height() - card.bottom() - 1)) <= 1
    assert not [lab.text() for lab in _labels(sheet) if _cut_sideways(lab, host)]


@pytest.mark.parametrize("font_pt", [16], indirect=True)
def test_the_sheet_fits_again_when_the_window_is_resized(qtbot, font_pt):
    host, sheet = _sheet(qtbot, 1280, 900)
    host.resize(820, 620)
    QApplication.processEvents()
    assert sheet.geometry() == host.rect()
    assert host.rect().contains(sheet.card.geometry())
    assert not [lab.text() for lab in _labels(sheet) if _cut_sideways(lab, host)]
