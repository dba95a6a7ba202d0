"""Which pane has the keyboard focus can be seen (WCAG 2.4.7, 2.4.11, 1.4.11).

The feed tree and the article list drew their selected row in the same blue
whether or not they had the focus; the only cue was a 1.2:1 tint on the current
cell. Now the view without the focus shows its selection muted, and the focused
view's current row has an outline of 3:1 against the selection and the base.
Checked on the rendered window, in the light and the dark theme."""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPalette
from PySide6.QtWidgets import QAbstractItemView, QApplication, QTreeView, QWidget

from smartreader.gui import app as app_module
from smartreader.gui.app import apply_theme
from smartreader.gui.models import COL_TITLE, UnreadRole
from tests.gui.contrast import contrast
from tests.gui.test_mainwindow import stored_feed

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


@pytest.fixture(params=["light", "dark"])
def theme(request, qapp):
    """The theme applied for the test; the app's style and palette put back after."""
    was_ours = isinstance(qapp.style(), app_module._ReaderStyle)
    was_dark = qapp.palette().color(QPalette.ColorRole.Base).lightness() < 128
    apply_theme(request.param)
    yield request.param
    if was_ours:
        apply_theme("dark" if was_dark else "light")
    else:
        apply_theme("system")


class Row:
    """The current row of ``view`` as rendered in the window's image ``img``."""

    def __init__(self, win, view: QAbstractItemView, img: QImage) -> None:
        vp = view.viewport()
        cell = view.visualRect(view.currentIndex())
        top_left = vp.mapTo(win, QPoint(0, cell.top()))
        # the whole row, across columns and a tree's branch area
        self.rect = QRect(top_left.x(), top_left.y(), vp.width(), cell.height())
        # the title's text: past a tree's icon, short of its unread-count pill
        icon = view.iconSize().width() + 6 if isinstance(view, QTreeView) else 0
        self.title = QRect(vp.mapTo(win, cell.topLeft()), cell.size()).adjusted(icon, 3, -60, -3)
        self.img = img
        self.scale = img.devicePixelRatio()

    def px(self, x: int, y: int) -> QColor:
        return self.img.pixelColor(round(x * self.scale), round(y * self.scale))

    def inside(self) -> list[QColor]:
        """The row's pixels, 3 px in from its edges (clear of any outline)."""
        r = self.rect.adjusted(3, 3, -3, -3)
        return [
            self.px(x, y) for x in range(r.left(), r.right()) for y in range(r.top(), r.bottom())
        ]

    def background(self) -> QColor:
        return QColor(Counter(c.rgb() for c in self.inside()).most_common(1)[0][0])

    def ink(self) -> float:
        """The contrast of the title's text (its strongest pixel) against the row."""
        bg, r = self.background(), self.title
        return max(
            contrast(self.px(x, y), bg)
            for x in range(r.left(), r.right())
            for y in range(r.top(), r.bottom())
        )

    def edge(self) -> list[QColor]:
        """The top edge's two pixel lines and the left edge's two columns, where an
        outline is drawn (leaving out the corners and the ends)."""
        r = self.rect
        top = [
            self.px(x, r.top() + d) for x in range(r.left() + 8, r.right() - 8, 5) for d in (0, 1)
        ]
        mid = r.top() + r.height() // 2
        left = [self.px(r.left() + d, mid) for d in (0, 1)]
        return top + left

    def above(self) -> QColor:
        """A pixel of the row above, next to the top edge."""
        return self.px(self.rect.left() + self.rect.width() // 2, self.rect.top() - 1)


def _window(env, qtbot):
    fid = stored_feed(env, "Alpha", 6)
    stored_feed(env, "Beta", 3)
    win = env.window()
    win.resize(1100, 700)
    win.select_feed(fid)
    qtbot.waitUntil(lambda: win.list_model.rowCount() == 6, timeout=3000)
    win.list.setCurrentIndex(win.list_model.index(1, COL_TITLE))
    assert win.list.selectionModel().isRowSelected(1, win.list.currentIndex().parent())
    assert win.tree.selectionModel().isSelected(win.tree.currentIndex())
    return win


def _shot(win, qtbot, focus: QAbstractItemView, name: str, shots) -> tuple[Row, Row]:
    """The two views' current rows with ``focus`` focused; crops saved in ``shots``
    (pytest's tmp_path) to look at when a check fails."""
    focus.setFocus()
    qtbot.waitUntil(focus.hasFocus, timeout=1000)
    QApplication.processEvents()
    img = win.grab().toImage()
    tree, lst = Row(win, win.tree, img), Row(win, win.list, img)
    for row, what in ((tree, "tree"), (lst, "list")):
        crop = row.rect.adjusted(0, -row.rect.height(), 0, row.rect.height())
        img.copy(crop).save(str(shots / f"{name}_{what}.png"))
        img.copy(row.title).save(str(shots / f"{name}_{what}_title.png"))
    return tree, lst


def _assert_focus_ring(row: Row, base: QColor) -> None:
    edge = row.edge()
    ring = QColor(Counter(c.rgb() for c in edge).most_common(1)[0][0])
    assert all(c.rgb() == ring.rgb() for c in edge), "the outline is not one unbroken colour"
    assert contrast(ring, row.background()) >= 3.0, (ring.name(), row.background().name())
    assert contrast(ring, base) >= 3.0, (ring.name(), base.name())
    assert contrast(ring, row.above()) >= 3.0, (ring.name(), row.above().name())


def _assert_no_ring(row: Row) -> None:
    # mostly the row's own colour: an icon may reach the edge, an outline does not stop
    edge = Counter(c.rgb() for c in row.edge())
    assert edge.most_common(1)[0][0] == row.background().rgb(), "an outline without the focus"


def test_the_focused_pane_is_outlined_and_the_other_selection_muted(env, qtbot, theme, tmp_path):
    win = _window(env, qtbot)
    base = win.tree.palette().color(QPalette.ColorRole.Base)

    tree_f, list_u = _shot(win, qtbot, win.tree, "tree_focused", tmp_path)
    tree_u, list_f = _shot(win, qtbot, win.list, "list_focused", tmp_path)

    # a selected row of a view without the focus is drawn apart from the focused one
    assert tree_f.background() != tree_u.background()
    assert list_f.background() != list_u.background()
    assert list_u.background() == tree_u.background()
    assert list_f.background() == tree_f.background()
    for row in (tree_f, list_f, tree_u, list_u):
        assert row.background() != base  # still marked as selected
        assert row.ink() >= 4.5, row.background().name()  # its text readable
    assert contrast(tree_u.background(), base) >= 3.0  # the selected feed still plain

    _assert_focus_ring(tree_f, base)
    _assert_focus_ring(list_f, base)
    _assert_no_ring(tree_u)
    _assert_no_ring(list_u)


def test_an_inactive_window_shows_no_focused_pane(env, qtbot, theme):
    """With another window active the keyboard is not here: no outline, both
    selections muted, as the unfocused pane's."""
    win = _window(env, qtbot)
    win.tree.setFocus()
    qtbot.waitUntil(win.tree.hasFocus, timeout=1000)
    focused_bg = Row(win, win.tree, win.grab().toImage()).background()
    other = QWidget()
    qtbot.addWidget(other)
    other.show()
    other.activateWindow()
    qtbot.waitUntil(lambda: not win.isActiveWindow(), timeout=3000)
    img = win.grab().toImage()
    for view in (win.tree, win.list):
        row = Row(win, view, img)
        assert row.background() != focused_bg
        assert row.ink() >= 4.5
        _assert_no_ring(row)


def test_the_unread_count_of_the_selected_feed_is_readable(env, qtbot, theme, tmp_path):
    """Its pill was white at 25 % over the selection: white on it 3.1:1 (2.9 on
    the muted selection). Now the count stands on the row's own colour."""
    win = _window(env, qtbot)
    count = str(win.tree.currentIndex().data(UnreadRole))
    for focus in (win.tree, win.list):
        tree, _lst = _shot(win, qtbot, focus, f"pill_{focus is win.tree}", tmp_path)
        bold = QFont(win.tree.font())
        bold.setBold(True)
        pill_w = QFontMetrics(bold).horizontalAdvance(count) + 12  # as the delegate
        r = tree.rect
        left, mid = r.right() - pill_w - 4, r.top() + r.height() // 2
        fill = tree.px(left + 4, mid)  # inside the pill's round end, clear of the digits
        digits = [
            tree.px(x, y)
            for x in range(left + 6, left + pill_w - 6)
            for y in range(mid - 4, mid + 4)
        ]
        assert max(contrast(c, fill) for c in digits) >= 4.5, fill.name()
