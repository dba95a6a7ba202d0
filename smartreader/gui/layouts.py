"""Layout pieces for panes that must fit a narrow, short window: a page that
scrolls instead of setting the main window's minimum size, and a row of buttons
that wraps onto more lines instead of widening it."""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QLayout,
    QLayoutItem,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)


class Pane(QWidget):
    """A container whose minimum height is what its layout needs at its width,
    wrapped labels included. A QSplitter counts a wrapped heading as one line and
    squeezes what is under it; a QScrollArea asks heightForWidth, which a layout
    answers with its preferred height, so a page that fits would still scroll."""

    def heightForWidth(self, width: int) -> int:
        lay = self.layout()
        if lay is None or not lay.hasHeightForWidth():
            return -1
        return lay.totalMinimumHeightForWidth(width)

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        return QSize(hint.width(), max(hint.height(), self.heightForWidth(self.width())))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()  # the minimum height follows the width


def scrolling(page: QWidget) -> QWidget:
    """Lays ``page`` out as a scroll area around a new body widget, returned for
    the page's own layout: a hidden tab's minimum size still counts in the tab
    widget's, so without it a page's charts, lists and buttons set how small the
    whole main window may get. A short or narrow pane scrolls instead."""
    body = Pane()
    area = QScrollArea()
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setWidget(body)
    outer = QVBoxLayout(page)
    outer.setContentsMargins(0, 0, 0, 0)
    outer.addWidget(area)
    return body


class FlowLayout(QLayout):
    """Widgets in a row, wrapping onto the next line when the row is too narrow
    (a row of buttons in a narrow pane at a large font). ``align_right`` puts each
    line against the right edge, as a dialog's buttons sit."""

    def __init__(self, parent: QWidget | None = None, *, align_right: bool = False) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._right = align_right
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:
        super().setGeometry(rect)
        self._place(rect, move=True)

    def sizeHint(self) -> QSize:
        # all on one line
        m = self.contentsMargins()
        shown = [it.sizeHint() for it in self._visible()]
        if not shown:
            return QSize(0, 0)
        w = sum(s.width() for s in shown) + self._gap() * (len(shown) - 1)
        return QSize(w, max(s.height() for s in shown)) + QSize(
            m.left() + m.right(), m.top() + m.bottom()
        )

    def minimumSize(self) -> QSize:
        # one item per line: as narrow as the widest item
        m = self.contentsMargins()
        size = QSize()
        for it in self._visible():
            size = size.expandedTo(it.minimumSize())
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _visible(self) -> list[QLayoutItem]:
        return [it for it in self._items if not (it.widget() and it.widget().isHidden())]

    def _gap(self) -> int:
        s = self.spacing()
        if s >= 0:
            return s
        w = self.parentWidget()
        style = w.style() if w is not None else None
        if style is None:
            return 6
        return style.layoutSpacing(
            QSizePolicy.ControlType.PushButton,
            QSizePolicy.ControlType.PushButton,
            Qt.Orientation.Horizontal,
        )

    def _place(self, rect: QRect, *, move: bool) -> int:
        """Lays the items out in ``rect`` (when ``move``); returns the height used."""
        m: QMargins = self.contentsMargins()
        area = rect.marginsRemoved(m)
        gap = self._gap()
        lines: list[list[tuple[QLayoutItem, QSize]]] = [[]]
        x = 0
        for it in self._visible():
            hint = it.sizeHint()
            if lines[-1] and x + gap + hint.width() > area.width():
                lines.append([])
                x = 0
            x += (gap if lines[-1] else 0) + hint.width()
            lines[-1].append((it, hint))
        y = area.y()
        for line in lines:
            if not line:
                continue
            height = max(h.height() for _, h in line)
            used = sum(h.width() for _, h in line) + gap * (len(line) - 1)
            x = area.x() + (max(0, area.width() - used) if self._right else 0)
            for it, hint in line:
                if move:
                    it.setGeometry(
                        QRect(QPoint(x, y), QSize(min(hint.width(), area.width()), height))
                    )
                x += hint.width() + gap
            y += height + gap
        return y - gap - area.y() + m.top() + m.bottom() if y > area.y() else 0
