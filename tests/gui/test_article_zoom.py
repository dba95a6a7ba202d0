"""The article's text size: steps, Ctrl+wheel, the View menu's keys, remembered."""

from __future__ import annotations

import itertools
import math

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from smartreader.gui.article_view import READ_WIDTH_PX, ZOOM_STEPS, ArticleView
from smartreader.storage.store import Entry

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

BODY = (
    "<h2>Heading in the article</h2>"
    + "<p>A sentence of ordinary length to fill the column. " * 12
    + "</p>"
) * 8

VIEW_SIZE = (1100, 700)  # the shared ``view`` fixture's size


def _entry() -> Entry:
    return Entry(1, 1, "u", "Title", "https://example.org/a", "Ann", 1.7e9, None, 1.7e9,
                 1.7e9, BODY, "", (), False, False)  # fmt: skip


@pytest.fixture
def view(view):  # the shared one (conftest), showing an article
    view.show_entry(_entry(), "Feed")
    return view


def _sizes(view: ArticleView) -> dict[str, float]:
    """The point size each kind of text is drawn at."""
    doc = view.browser.document()
    out: dict[str, float] = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        if not it.atEnd():
            fmt = it.fragment().charFormat()
            kind = block.text().split(" ")[0]
            out.setdefault(kind, fmt.fontPointSize() or fmt.font().pointSizeF())
        block = block.next()
    return out


def _layout(view: ArticleView) -> tuple[float, float, float]:
    """Body text point size, the column's left margin, the document's height."""
    doc = view.browser.document()
    return _sizes(view)["A"], doc.rootFrame().frameFormat().leftMargin(), doc.size().height()


def test_the_style_sheets_sizes_are_the_ones_drawn(view):
    """Qt ignored the body's size (text came out at the app's font size) and let a
    plain h1 rule beat h1.title."""
    assert _sizes(view) == {"A": 11.0, "Title": 19.0, "Feed": 9.5, "Heading": 14.0}


def test_larger_text_scales_the_sizes_and_widens_the_column(qtbot, view):
    size, margin, height = _layout(view)
    assert size == pytest.approx(11.0)
    changed = []
    view.zoomChanged.connect(changed.append)
    view.zoom_in()
    view.zoom_in()
    assert view.zoom == 1.25 and changed == [1.1, 1.25]
    size2, margin2, height2 = _layout(view)
    assert size2 == pytest.approx(11.0 * 1.25)
    # the column keeps its ~70 characters: wider by as much as the text grew
    width = view.browser.viewport().width()
    assert margin2 == (width - round(READ_WIDTH_PX * 1.25)) // 2 < margin
    assert height2 > height
    view.zoom_reset()
    assert _layout(view)[0] == pytest.approx(11.0) and view.zoom == 1.0


def test_steps_stop_at_both_ends_and_bad_values_fall_back(view):
    for _ in range(20):
        view.zoom_out()
    assert view.zoom == ZOOM_STEPS[0]
    for _ in range(20):
        view.zoom_in()
    assert view.zoom == ZOOM_STEPS[-1]
    view.set_zoom(math.nan)
    assert view.zoom == 1.0
    view.set_zoom(1e9)
    assert view.zoom == ZOOM_STEPS[-1]
    view.set_zoom(1.05)  # from an older version's steps: the next step up is 1.1
    view.zoom_in()
    assert view.zoom == 1.1


def _wheel(widget, dy: int, mods: Qt.KeyboardModifier) -> None:
    pos = QPointF(widget.rect().center())
    ev = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0),
                     QPoint(0, dy), Qt.MouseButton.NoButton, mods, Qt.ScrollPhase.NoScrollPhase,
                     False)  # fmt: skip
    QApplication.sendEvent(widget, ev)


def test_ctrl_wheel_changes_the_size_a_plain_wheel_scrolls(view):
    bar = view.browser.verticalScrollBar()
    _wheel(view.browser.viewport(), 120, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == 1.1
    _wheel(view.browser.viewport(), -120, Qt.KeyboardModifier.ControlModifier)
    _wheel(view.browser.viewport(), -120, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == 0.9
    assert bar.value() == 0
    _wheel(view.browser.viewport(), -120, Qt.KeyboardModifier.NoModifier)
    assert bar.value() > 0 and view.zoom == 0.9


def test_the_keys_change_it_and_the_next_window_remembers(qtbot, tmp_path):
    from smartreader.gui.mainwindow import MainWindow
    from smartreader.gui.prefs import Prefs
    from smartreader.storage.store import Store
    from smartreader.updater import Updater

    store = Store(tmp_path / "db.sqlite3")
    up = Updater(store)
    try:
        for expected in (1.25, 1.25):
            win = MainWindow(store, up, prefs=Prefs.in_dir(tmp_path), tray=False,
                             scheduler_options={"autostart_polling": False})  # fmt: skip
            qtbot.addWidget(win)
            win.show()
            win.activateWindow()
            qtbot.waitUntil(win.isActiveWindow, timeout=3000)
            if expected == 1.25 and win.article_view.zoom == 1.0:
                for _ in range(2):
                    qtbot.keyClick(win.list, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
                assert win.article_view.zoom == 1.25
                qtbot.keyClick(win.list, Qt.Key.Key_Minus, Qt.KeyboardModifier.ControlModifier)
                qtbot.keyClick(win.list, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
            assert win.article_view.zoom == expected
            win.close()
        assert Prefs.in_dir(tmp_path).get("article/zoom") == 1.25
    finally:
        up.close()
        store.close()


def test_the_shortcut_sheet_lists_the_text_size_keys_in_evenly_spaced_rows(qtbot):
    """Both columns shared one grid: a heading in one spaced out the rows beside it."""
    from PySide6.QtWidgets import QLabel, QWidget

    from smartreader.gui.dialogs import HelpOverlay
    from smartreader.gui.mainwindow import SHORTCUTS

    host = QWidget()
    qtbot.addWidget(host)
    host.resize(1200, 800)
    host.show()
    sheet = HelpOverlay(SHORTCUTS, host)
    sheet.open()
    qtbot.waitExposed(sheet)
    texts = [w.text() for w in sheet.card.findChildren(QLabel)]
    assert "larger / smaller text" in texts
    assert "copy the article's link" in texts  # shown as written, not as &#x27;
    for grid in sheet.columns:
        tops = [
            grid.itemAtPosition(r, 1).widget().y()
            for r in range(grid.rowCount())
            if grid.itemAtPosition(r, 1) is not None
            and grid.itemAtPosition(r, 0) is not grid.itemAtPosition(r, 1)
        ]
        steps = {b - a for a, b in itertools.pairwise(tops) if b - a < 30}
        assert len(steps) == 1, (tops, steps)
