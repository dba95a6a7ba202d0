"""FlowLayout: a row of buttons that wraps in a narrow pane instead of widening it."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPushButton, QWidget

from smartreader.gui.layouts import FlowLayout

pytestmark = [pytest.mark.qt_log_level_fail("WARNING")]


def _row(qtbot, *, align_right: bool = False) -> tuple[QWidget, list[QPushButton]]:
    w = QWidget()
    qtbot.addWidget(w)
    lay = FlowLayout(w, align_right=align_right)
    buttons = [QPushButton(t) for t in ("Show feed", "Open site", "Dismiss feed alerts")]
    for b in buttons:
        lay.addWidget(b)
    return w, buttons


def _lay_out(w: QWidget, width: int) -> None:
    lay = w.layout()
    w.resize(width, max(lay.heightForWidth(width), 1))
    lay.setGeometry(w.rect())


def test_one_line_when_wide_and_a_line_each_when_narrow(qtbot):
    w, bs = _row(qtbot)
    one_line = w.layout().sizeHint().width()
    assert one_line >= sum(b.sizeHint().width() for b in bs)
    _lay_out(w, one_line)
    assert len({b.y() for b in bs}) == 1
    assert bs[0].x() < bs[1].x() < bs[2].x()
    # the minimum is the widest button: at that width each goes on its own line
    widest = max(b.sizeHint().width() for b in bs)
    assert w.layout().minimumSize().width() == widest
    _lay_out(w, widest)
    assert bs[0].y() < bs[1].y() < bs[2].y()
    assert all(b.x() == 0 and b.width() == b.sizeHint().width() for b in bs)
    # and the height asked for holds every line
    assert w.layout().heightForWidth(widest) >= bs[2].geometry().bottom()
    assert w.layout().heightForWidth(widest) > w.layout().heightForWidth(one_line)


def test_right_aligned_lines_end_at_the_right_edge(qtbot):
    w, bs = _row(qtbot, align_right=True)
    width = w.layout().sizeHint().width() + 100
    _lay_out(w, width)
    assert bs[2].geometry().right() == width - 1
    assert bs[0].x() >= 100


def test_hidden_buttons_take_no_room(qtbot):
    w, bs = _row(qtbot)
    full = w.layout().sizeHint().width()
    bs[1].hide()
    assert w.layout().sizeHint().width() < full - bs[1].sizeHint().width() + 1
    _lay_out(w, full)
    assert bs[2].x() < bs[1].sizeHint().width() + bs[0].sizeHint().width() + 20
