"""Missed-item alerts: a banner above a feed's articles, a list of open alerts, and
desktop notifications.

A fetch that finds only unseen items in a feed's window (of ``capacity`` items)
means some items probably scrolled out before we looked; the scheduler estimates
how many and raises the feed's share. These widgets tell the user, once, and let
them dismiss it. They only show ``storage.Alert`` rows; persistence of a dismissal
is the caller's (``MissedBanner``) or done through the store (``AlertsView``).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QRectF, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyle,
    QSystemTrayIcon,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from smartreader.gui.charts import accent, blend, humanize_in
from smartreader.gui.safetext import plain_label

log = logging.getLogger(__name__)


def describe_window(alert: Any, now: float | None = None) -> str:
    """``"between 10:00 and 14:00"`` (today), ``"on Sat between 10:00 and 14:00"``,
    ``"between Sat 22:00 and Sun 06:00"``; ``""`` when the window is unknown."""
    a, b = getattr(alert, "window_from", None), getattr(alert, "window_to", None)
    if a is None or b is None:
        return ""
    da, db = dt.datetime.fromtimestamp(a), dt.datetime.fromtimestamp(b)
    today = dt.datetime.fromtimestamp(time.time() if now is None else now).date()
    if da.date() == db.date():
        day = "" if da.date() == today else f"on {da:%a} "
        return f"{day}between {da:%H:%M} and {db:%H:%M}"
    return f"between {da:%a %H:%M} and {db:%a %H:%M}"


def alert_text(alert: Any, now: float | None = None) -> str:
    """The banner sentence for one alert."""
    n = max(1, round(float(alert.missed_estimate)))
    items = "item" if n == 1 else "items"
    verb = "was" if n == 1 else "were"
    window = describe_window(alert, now)
    text = f"About {n} {items}{' ' + window if window else ''} {verb} not seen"
    cap = getattr(alert, "capacity", None)
    if cap:
        text += f" — this feed only shows {cap}"
    return text + "; checks are now more frequent."


class Banner(QFrame):
    """A notice above the article list: an icon, wrapped selectable text and
    buttons, on a tinted rounded box of ``hue``."""

    def __init__(self, hue: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._hue = hue
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 6, 6)
        lay.setSpacing(10)
        self.icon = QLabel()
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        self.icon.setPixmap(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning).pixmap(size)
        )
        self.icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.label = plain_label()
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # the buttons go under the text, so a narrow list pane keeps it readable
        body = QVBoxLayout()
        body.setSpacing(4)
        body.addWidget(self.label)
        self._buttons = QHBoxLayout()
        self._buttons.addStretch(1)
        body.addLayout(self._buttons)
        lay.addWidget(self.icon)
        lay.addLayout(body, 1)
        self.setVisible(False)

    def add_button(self, text: str, tip: str = "") -> QPushButton:
        button = QPushButton(text)
        button.setToolTip(tip)
        self._buttons.addWidget(button)
        return button

    def text(self) -> str:
        return self.label.text()

    def paintEvent(self, event: Any) -> None:
        # Painted, not style-sheeted, so it follows palette (theme) changes live.
        pal = self.palette()
        c = accent(pal, self._hue)
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.setPen(QPen(c, 1))
        p.setBrush(blend(pal.color(QPalette.ColorRole.Window), c, 0.16))
        p.drawRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4)
        p.end()


class MissedBanner(Banner):
    """Shown above a feed's article list while it has an open missed-item alert.

    Signals:
        dismissed(int): the user dismissed the alert with this id.
    """

    dismissed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(38, parent)
        self.setObjectName("missedBanner")
        self._alert: Any = None
        self.button = self.add_button(
            "Dismiss", "Hide this notice; the feed keeps its higher check rate"
        )
        self.button.clicked.connect(self._dismiss)

    def alert(self) -> Any:
        return self._alert

    def set_alert(self, alert: Any | None, *, now: float | None = None) -> None:
        """Show ``alert`` (a ``storage.Alert``), or hide the banner for None."""
        self._alert = alert
        if alert is None:
            self.label.clear()
            self.setVisible(False)
            return
        self.label.setText(alert_text(alert, now))
        created = getattr(alert, "created", None)
        self.setToolTip(
            f"Detected at the check of {dt.datetime.fromtimestamp(created):%a %d %b %H:%M}"
            if created
            else ""
        )
        self.setVisible(True)

    @Slot()
    def _dismiss(self) -> None:
        alert = self._alert
        self.set_alert(None)
        if alert is not None:
            self.dismissed.emit(int(alert.id))


def feed_problem(feed: Any, now: float | None = None) -> str | None:
    """What is wrong with a feed's checks, for the banner; None when nothing is."""
    now = time.time() if now is None else now
    if feed.status == "gone":
        why = f" ({feed.last_error})" if feed.last_error else ""
        return (
            f"The server says this feed is gone{why}, so it is no longer checked. "
            "Check again if it is back, or give it a new address in Properties."
        )
    if not (feed.error_count and feed.last_error):
        return None
    n = int(feed.error_count)
    head = "The last check" if n == 1 else f"The last {n} checks"
    text = f"{head} of this feed failed: {feed.last_error}."
    if feed.last_success:
        text += f" The last good check was {humanize_in(feed.last_success, now)}."
    else:
        text += " No check has worked yet."
    return text + " It is tried again later."


class FeedErrorBanner(Banner):
    """Shown above a feed's article list while its checks fail (or the server
    said it is gone): why, since when, and a retry.

    Signals:
        retryRequested(int): check this feed now (a gone one: again at all).
        propertiesRequested(int): open this feed's properties.
    """

    retryRequested = Signal(int)
    propertiesRequested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, parent)
        self.setObjectName("feedErrorBanner")
        self._feed_id: int | None = None
        self.retry = self.add_button("Retry now", "Check this feed now")
        self.props = self.add_button("Properties…", "Its address, user name and password")
        self.retry.clicked.connect(lambda: self._emit(self.retryRequested))
        self.props.clicked.connect(lambda: self._emit(self.propertiesRequested))

    def set_feed(self, feed: Any | None, *, now: float | None = None) -> None:
        """Show ``feed``'s problem (a ``storage.Feed``), or hide for None / no problem."""
        text = feed_problem(feed, now) if feed is not None else None
        self._feed_id = int(feed.id) if text is not None else None
        if text is None:
            self.label.clear()
            self.setVisible(False)
            return
        self.label.setText(text)
        self.retry.setText("Check again" if feed.status == "gone" else "Retry now")
        self.setVisible(True)

    def _emit(self, signal: Any) -> None:
        if self._feed_id is not None:
            signal.emit(self._feed_id)


class AlertsView(QWidget):
    """Open missed-item alerts of all feeds, newest first.

    Signals:
        feedActivated(int): a row was double-clicked (or "Show feed" pressed).
        alertsDismissed(list): ids just dismissed (already written to the store).
    """

    feedActivated = Signal(int)
    alertsDismissed = Signal(list)

    COLUMNS = ("Feed", "Detected", "Missed", "Window")

    def __init__(
        self,
        store: Any,
        parent: QWidget | None = None,
        *,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._now = now
        self._alerts: list[Any] = []
        lay = QVBoxLayout(self)
        lay.setContentsMargins(12, 10, 12, 10)
        title = QLabel("Missed-item alerts")
        f = QFont(title.font())
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setWeight(QFont.Weight.Bold)
        title.setFont(f)
        lay.addWidget(title)
        self.hint = QLabel(
            "A feed only lists its latest items. When everything in it was new at a "
            "check, some items probably scrolled out unseen; smartreader estimates how "
            "many and checks that feed more often."
        )
        self.hint.setWordWrap(True)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.hint)

        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.verticalHeader().setVisible(False)
        vh = self.table.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in range(1, len(self.COLUMNS)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        self.table.doubleClicked.connect(self._activated)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        lay.addWidget(self.table, 1)

        self.empty = QLabel("No open alerts: every new item was seen in time.")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.empty)

        buttons = QHBoxLayout()
        self.show_feed = QPushButton("Show feed")
        self.dismiss = QPushButton("Dismiss")
        self.dismiss_all = QPushButton("Dismiss all")
        self.show_feed.clicked.connect(self._show_selected)
        self.dismiss.clicked.connect(self._dismiss_selected)
        self.dismiss_all.clicked.connect(self._dismiss_all)
        buttons.addWidget(self.show_feed)
        buttons.addStretch(1)
        buttons.addWidget(self.dismiss)
        buttons.addWidget(self.dismiss_all)
        lay.addLayout(buttons)
        self.refresh()

    def alerts(self) -> list[Any]:
        return list(self._alerts)

    @Slot()
    def refresh(self) -> None:
        try:
            self._alerts = list(self.store.alerts())
            names = {f.id: f.display_title for f in self.store.feeds()}
        except Exception:
            log.exception("loading alerts failed")
            self._alerts, names = [], {}
        now = self._now()
        t = self.table
        t.setRowCount(len(self._alerts))
        warn = QColor(accent(self.palette(), 35))
        for r, a in enumerate(self._alerts):
            n = max(1, round(float(a.missed_estimate)))
            cap = f" (shows {a.capacity})" if a.capacity else ""
            cells = [
                names.get(a.feed_id, f"Feed #{a.feed_id}"),
                _when(a.created, now),
                f"≈ {n} item{'s' if n != 1 else ''}{cap}",
                describe_window(a, now) or "—",
            ]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setData(Qt.ItemDataRole.UserRole, int(a.id))
                if c == 2:
                    it.setForeground(warn)
                t.setItem(r, c, it)
            t.item(r, 0).setToolTip(alert_text(a, now))
        has = bool(self._alerts)
        self.table.setVisible(has)
        self.empty.setVisible(not has)
        self.dismiss_all.setEnabled(has)
        self._update_buttons()

    def _selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.table.selectionModel().selectedRows()})

    @Slot()
    def _update_buttons(self) -> None:
        sel = bool(self._selected_rows())
        self.dismiss.setEnabled(sel)
        self.show_feed.setEnabled(len(self._selected_rows()) == 1)

    @Slot(QModelIndex)
    def _activated(self, index: QModelIndex) -> None:
        if 0 <= index.row() < len(self._alerts):
            self.feedActivated.emit(int(self._alerts[index.row()].feed_id))

    @Slot()
    def _show_selected(self) -> None:
        rows = self._selected_rows()
        if len(rows) == 1:
            self.feedActivated.emit(int(self._alerts[rows[0]].feed_id))

    @Slot()
    def _dismiss_selected(self) -> None:
        self.dismiss_ids([int(self._alerts[r].id) for r in self._selected_rows()])

    @Slot()
    def _dismiss_all(self) -> None:
        self.dismiss_ids([int(a.id) for a in self._alerts])

    def dismiss_ids(self, ids: Sequence[int]) -> None:
        ids = list(ids)
        if not ids:
            return
        try:
            self.store.dismiss_alerts(ids)
        except Exception:
            log.exception("dismissing alerts failed")
        self.refresh()
        self.alertsDismissed.emit(ids)


def _when(t: float, now: float) -> str:
    d = dt.datetime.fromtimestamp(t)
    if d.date() == dt.datetime.fromtimestamp(now).date():
        return d.strftime("today %H:%M")
    if (dt.datetime.fromtimestamp(now).date() - d.date()).days < 7:
        return d.strftime("%a %H:%M")
    return d.strftime("%d %b %H:%M")


def notify(
    tray_icon: QSystemTrayIcon | None,
    title: str,
    message: str,
    *,
    timeout_ms: int = 8000,
    warning: bool = False,
) -> bool:
    """Show a desktop notification through the tray icon; False where impossible
    (no tray, no icon, or the platform does not show balloon messages)."""
    if tray_icon is None or not QSystemTrayIcon.isSystemTrayAvailable():
        return False
    if not tray_icon.isVisible() or not tray_icon.supportsMessages():
        return False
    icon = (
        QSystemTrayIcon.MessageIcon.Warning if warning else QSystemTrayIcon.MessageIcon.Information
    )
    tray_icon.showMessage(title, message, icon, timeout_ms)
    return True
