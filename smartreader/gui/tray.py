"""The system-tray icon: unread count painted on the icon, a small menu, and
notifications for new items and missed-item alerts.

Created only where ``QSystemTrayIcon.isSystemTrayAvailable()``; elsewhere
``TrayIcon`` is inert (``available`` is False) so callers need no special case.
Results from background polling are gathered for a moment and announced in one
message, so a run that updates 30 feeds makes one notification, not 30; manual
refreshes are not announced (the user is looking). Missed-item alerts of one feed
are announced at most once a day while they stay open (``ALERT_QUIET_S``); given
the store, when each feed was last announced is kept in its settings
(``ALERT_MEMORY_KEY``), so a restart does not announce the same open alerts again.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal, Slot
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QIcon,
    QPainter,
    QPainterPath,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from smartreader.errors import SmartReaderError
from smartreader.gui.alerts import CheckLimit, advice, notify
from smartreader.storage.store import Store

log = logging.getLogger(__name__)

ICON_SIZE = 64
# A feed that keeps overflowing its window raises an alert at many of its checks
# (31 in 28 days for a busy one). Its first alert is announced; later ones of the
# same feed are not while one announced less than this long ago is still open
# (undismissed): the banner and the Alerts view sum them up. Dismissing the feed's
# alerts ends the quiet period.
ALERT_QUIET_S = 24 * 3600.0
# Store setting: {"<feed id>": [announced at (fetch time), the feed's added_at]}.
# added_at tells a feed from a later one that reused its id (before schema v10
# SQLite handed a deleted feed's id to the next one when it was the highest).
ALERT_MEMORY_KEY = "tray_alert_announced"


def app_icon(size: int = ICON_SIZE) -> QIcon:
    """The smartreader mark: the feed symbol on an orange rounded square."""
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = float(size)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor("#f26522"))
    p.drawRoundedRect(QRectF(s * 0.04, s * 0.04, s * 0.92, s * 0.92), s * 0.2, s * 0.2)
    white = QColor("white")
    p.setBrush(white)
    p.drawEllipse(QPointF(s * 0.3, s * 0.7), s * 0.085, s * 0.085)
    pen = QPen(white, s * 0.11, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    for r in (0.27, 0.47):
        path = QPainterPath()
        rect = QRectF(s * (0.3 - r), s * (0.7 - r), 2 * s * r, 2 * s * r)
        path.arcMoveTo(rect, 90)
        path.arcTo(rect, 90, -90)
        p.drawPath(path)
    p.end()
    return QIcon(pm)


def badge_icon(base: QIcon, count: int, size: int = ICON_SIZE) -> QIcon:
    """``base`` with the unread ``count`` in a red badge (99+ beyond 99)."""
    pm = base.pixmap(size, size)
    if count <= 0:
        return QIcon(pm)
    text = str(count) if count < 100 else "99+"
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    f = QFont()
    f.setPixelSize(int(size * (0.42 if len(text) < 3 else 0.34)))
    f.setBold(True)
    p.setFont(f)
    w = max(size * 0.56, p.fontMetrics().horizontalAdvance(text) + size * 0.18)
    h = size * 0.56
    rect = QRectF(size - w, size - h, w, h)
    p.setPen(QPen(QColor("white"), size * 0.04))
    p.setBrush(QColor("#d32f2f"))
    p.drawRoundedRect(rect.adjusted(1, 1, -1, -1), h / 2, h / 2)
    p.setPen(QColor("white"))
    p.drawText(rect, Qt.AlignmentFlag.AlignCenter, text)
    p.end()
    return QIcon(pm)


class TrayIcon(QObject):
    """Tray icon with unread badge, menu and notifications.

    Signals:
        showRequested(): the icon was clicked or "Open smartreader" chosen.
        refreshRequested(): "Refresh all" chosen.
        quitRequested(): "Quit" chosen.
        messageClicked(): a notification was clicked.
    """

    showRequested = Signal()
    refreshRequested = Signal()
    quitRequested = Signal()
    messageClicked = Signal()

    def __init__(
        self,
        parent: QObject | None = None,
        *,
        base_icon: QIcon | None = None,
        title_for: Callable[[int], str] | None = None,
        notifications: bool = True,
        gather_ms: int = 1500,
        store: Store | None = None,
    ) -> None:
        super().__init__(parent)
        self.base_icon = base_icon if base_icon is not None else app_icon()
        self.title_for = title_for or (lambda fid: f"Feed #{fid}")
        self.notifications = notifications
        self.unread = 0
        self.paused = False
        self._new: Counter[int] = Counter()
        self.store = store
        # feed id → (when, as its fetch time, its last missed-item alert was
        # announced; the feed's added_at, None without a store)
        self._alert_announced: dict[int, tuple[float, float | None]] = self._load_announced()
        self._gather = QTimer(self)
        self._gather.setSingleShot(True)
        self._gather.setInterval(gather_ms)
        self._gather.timeout.connect(self._flush)
        self.tray: QSystemTrayIcon | None = None
        self.menu: QMenu | None = None
        if QSystemTrayIcon.isSystemTrayAvailable():
            self._create()

    @property
    def available(self) -> bool:
        return self.tray is not None

    def _create(self) -> None:
        self.tray = QSystemTrayIcon(self.base_icon, self)
        self.tray.setToolTip("smartreader")
        self.menu = QMenu()
        actions = (
            ("Open smartreader", self.showRequested),
            ("Refresh all", self.refreshRequested),
            (None, None),
            ("Quit", self.quitRequested),
        )
        for text, signal in actions:
            if text is None:
                self.menu.addSeparator()
                continue
            act = QAction(text, self.menu)
            act.triggered.connect(signal)
            self.menu.addAction(act)
        self.tray.setContextMenu(self.menu)
        self.tray.activated.connect(self._activated)
        self.tray.messageClicked.connect(self.messageClicked)

    def add_action(self, act: QAction) -> None:
        """A window's action in the menu, above Quit (its text and check mark
        follow the window's)."""
        if self.menu is not None:
            self.menu.insertAction(self.menu.actions()[-2], act)  # before the separator

    @property
    def shown(self) -> bool:
        """The icon is in the tray (available and not hidden by Settings)."""
        return self.tray is not None and self.tray.isVisible()

    def show(self) -> None:
        if self.tray is not None:
            self.tray.show()

    def hide(self) -> None:
        if self.tray is not None:
            self.tray.hide()

    def set_visible(self, visible: bool) -> None:
        self.show() if visible else self.hide()

    def set_notifications(self, enabled: bool) -> None:
        self.notifications = bool(enabled)
        if not enabled:
            self._new.clear()
            self._gather.stop()

    @Slot(int)
    def set_unread(self, count: int) -> None:
        self.unread = max(0, int(count))
        if self.tray is not None:
            self.tray.setIcon(badge_icon(self.base_icon, self.unread))
            self.tray.setToolTip(self.tooltip())

    def set_paused(self, paused: bool) -> None:
        """Feed ▸ Pause updates: the icon's tip says so (the window may be hidden)."""
        self.paused = bool(paused)
        if self.tray is not None:
            self.tray.setToolTip(self.tooltip())

    def tooltip(self) -> str:
        parts = [f"{self.unread} unread"] if self.unread else []
        if self.paused:
            parts.append("updates paused")
        return " — ".join(["smartreader", ", ".join(parts)]) if parts else "smartreader"

    @Slot(object)
    def on_feed_updated(self, result: Any) -> None:
        """Connect to ``SchedulerThread.feedUpdated``: gathers new items of
        background updates into one notification."""
        # what a rule marked read is not news (the rule muted it)
        news = int(result.new_entries) - int(result.ruled_read)
        if result.manual or news <= 0 or not self.notifications:
            return
        self._new[int(result.feed_id)] += news
        self._gather.start()

    @Slot(object)
    def on_alert(self, result: Any, limit: CheckLimit | None = None) -> bool:
        """Connect to ``SchedulerThread.alertRaised`` (``limit``: what stops more
        checks of the feed, see ``alerts.check_limit``). True when it was announced
        (shown where the platform can), False when notifications are off or the
        feed's alerts are in their quiet period."""
        if not self.notifications:
            return False
        fid = int(result.feed_id)
        at = float(result.fetched_at)
        added = self._added_at(fid)
        last = self._alert_announced.get(fid)
        if last is not None and last[1] == added and 0 <= at - last[0] < ALERT_QUIET_S:
            return False
        self._alert_announced[fid] = (at, added)
        self._save_announced()
        n = max(1, round(float(result.missed_estimate)))
        what = (
            f"About {n} item{'s' if n != 1 else ''} scrolled out of the feed before they were seen"
        )
        more = advice(limit)
        notify(
            self.tray,
            f"Items missed in {self.title_for(fid)}",
            f"{what}. {more}" if more else f"{what}; it will be checked more often.",
            warning=True,
        )
        return True

    def set_open_alert_feeds(self, feed_ids: Iterable[int]) -> None:
        """The feeds that have open alerts now: the others' alerts were dismissed,
        so their next one is announced again."""
        keep = {int(f) for f in feed_ids}
        kept = {f: v for f, v in self._alert_announced.items() if f in keep}
        if kept != self._alert_announced:
            self._alert_announced = kept
            self._save_announced()

    # -- the announced alerts across restarts ------------------------------------------

    def _added_at(self, feed_id: int) -> float | None:
        if self.store is None:
            return None
        try:
            return float(self.store.feed(feed_id).added_at)
        except SmartReaderError:  # deleted meanwhile, or the database is busy
            return None

    def _load_announced(self) -> dict[int, tuple[float, float | None]]:
        """The store's record, without the feeds that are gone (or whose id a new
        feed has taken) and those with no open alert left (dismissed meanwhile,
        from the CLI or before the last quit): their next alert is news again."""
        if self.store is None:
            return {}
        try:
            raw = self.store.get_setting(ALERT_MEMORY_KEY, {})
            added = {f.id: float(f.added_at) for f in self.store.feeds(with_state=False)}
            open_ = {a.feed_id for a in self.store.alerts()}
        except SmartReaderError as e:
            log.warning("cannot read when alerts were last announced: %s", e)
            return {}
        out: dict[int, tuple[float, float | None]] = {}
        for key, value in (raw if isinstance(raw, dict) else {}).items():
            try:  # a hand-edited or damaged row only costs a repeated notification
                fid, at, feed_added = int(key), float(value[0]), float(value[1])
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if math.isfinite(at) and fid in open_ and added.get(fid) == feed_added:
                out[fid] = (at, feed_added)
        if len(out) != len(raw if isinstance(raw, dict) else ()):
            self._write_announced(out)
        return out

    def _save_announced(self) -> None:
        self._write_announced(self._alert_announced)

    def _write_announced(self, entries: dict[int, tuple[float, float | None]]) -> None:
        if self.store is None:
            return
        value = {str(f): [at, added] for f, (at, added) in entries.items() if added is not None}
        try:
            self.store.set_setting(ALERT_MEMORY_KEY, value)
        except SmartReaderError as e:  # a full disk, a busy database: kept for this run
            log.warning("cannot save when alerts were last announced: %s", e)

    def pending(self) -> dict[int, int]:
        return dict(self._new)

    def new_items_message(self) -> tuple[str, str] | None:
        if not self._new:
            return None
        total = sum(self._new.values())
        feeds = self._new.most_common()
        title = f"{total} new item{'s' if total != 1 else ''}"
        parts = [f"{self.title_for(fid)} ({n})" for fid, n in feeds[:4]]
        if len(feeds) > 4:
            parts.append(f"and {len(feeds) - 4} more feeds")
        return title, ", ".join(parts)

    @Slot()
    def _flush(self) -> None:
        msg = self.new_items_message()
        self._new.clear()
        if msg is not None:
            notify(self.tray, *msg)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason in (
            QSystemTrayIcon.ActivationReason.Trigger,
            QSystemTrayIcon.ActivationReason.DoubleClick,
        ):
            self.showRequested.emit()

    def dispose(self) -> None:
        """Remove the icon (at quit) and drop pending notifications."""
        self._gather.stop()
        if self.tray is not None:
            self.tray.hide()
        if self.menu is not None:
            self.menu.deleteLater()
            self.menu = None
