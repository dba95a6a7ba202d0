"""Missed-item alerts: a banner above a feed's articles, a list of open alerts, and
desktop notifications.

A fetch that finds only unseen items in a feed's window (of ``capacity`` items)
means some items probably scrolled out before we looked; the scheduler estimates
how many and raises the feed's share, up to its minimum interval and within the
request budget. These widgets tell the user, say honestly which of those limits
holds when one does (``CheckLimit``), and let them dismiss a feed's alerts
together. They only show ``storage.Alert`` rows; dismissing marks rows, never
deletes them, and is the caller's (``MissedBanner``) or done through the store
(``AlertsView``).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

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

from smartreader.core.scheduler import fetch_ceiling
from smartreader.errors import SmartReaderError
from smartreader.gui.charts import accent, blend, humanize_duration, humanize_in
from smartreader.gui.layouts import FlowLayout, scrolling
from smartreader.gui.safetext import plain_label
from smartreader.text import (
    NBSP,
    clock_text,
    count_of,
    date_time_text,
    day_clock,
    day_month,
    day_name,
    keep_units,
)
from smartreader.updater import MIN_INTERVAL_RANGE

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
        day = "" if da.date() == today else f"on {day_name(da)} "
        return f"{day}between {clock_text(da)} and {clock_text(db)}"
    return f"between {day_clock(da)} and {day_clock(db)}"


# A share within 5 % of the scheduler's ceiling (once per minimum interval, at most
# every 5 min) counts as "at the ceiling": the allocation lands on it exactly, and
# the weekly reshaping may trim it a little.
AT_CEILING = 0.95


@dataclass(frozen=True)
class CheckLimit:
    """What keeps a feed from being checked more often, for an alert's advice.

    ``kind``: "interval" — it is already checked as often as its minimum interval
    allows; "budget" — the request budget is too small for the checks it needs
    (the scheduler's "starved" feeds).
    """

    kind: Literal["interval", "budget"]
    min_interval: float  # seconds, the one in force for this feed


def check_limit(
    share_per_day: float, min_interval: float, starved: Callable[[], bool] = lambda: False
) -> CheckLimit | None:
    """The limit on a feed with this share (fetches/day) and minimum interval
    (seconds); None when nothing stops it from getting more checks. ``starved``
    is asked only below the ceiling (``Updater.summary`` weighs every feed)."""
    if min_interval > 0 and share_per_day >= AT_CEILING * fetch_ceiling(min_interval):
        # the interval it is really checked at (a 2-min minimum still means 5 min)
        return CheckLimit("interval", max(min_interval, 86_400.0 / fetch_ceiling(min_interval)))
    if starved():
        return CheckLimit("budget", min_interval)
    return None


def feed_check_limit(store: Any, updater: Any, feed_id: int) -> CheckLimit | None:
    """``check_limit`` for a stored feed from the scheduler's explanation; None
    when it is not scheduled (paused, gone, deleted)."""
    try:
        feed = store.feed(feed_id)
        ex = updater.explain(feed_id)
        mi = feed.min_interval or updater.min_interval()  # its own, else the default
        return check_limit(
            float(ex.share_per_day),
            float(mi),
            lambda: feed_id in set(updater.summary().feeds_starved),
        )
    except SmartReaderError:
        return None


def site_url(feed: Any) -> str | None:
    """The feed's web site (where items that scrolled out of the feed still are),
    when it is an http(s) address."""
    link = getattr(feed, "site_link", None)
    if link and urlsplit(link).scheme.lower() in ("http", "https"):
        return str(link)
    return None


def advice(limit: CheckLimit | None, *, site: bool = False) -> str:
    """The sentences that say what limits a feed's checks and what the user can do
    about it; "" when nothing does (then the checks simply become more frequent)."""
    if limit is None:
        return ""
    see = "open the site to see what scrolled away" if site else ""
    if limit.kind == "budget":
        text = "The request budget is too small to check it more often: raise it in Settings"
        return text + (f", or {see}." if see else ".")
    if limit.min_interval <= MIN_INTERVAL_RANGE[0]:
        # nothing to lower: the shortest interval there is
        text = "Already checked every minute, as often as smartreader allows"
        return text + (f"; {see}." if see else ".")
    every = humanize_duration(limit.min_interval)
    text = (
        f"Already checked every {every}, the most its minimum interval allows: "
        "lower it in the feed's Properties"
    )
    return text + (f", or {see}." if see else ".")


def _tail(limit: CheckLimit | None, site: bool) -> str:
    more = advice(limit, site=site)
    return f". {more}" if more else "; checks are now more frequent."


def alert_text(
    alert: Any, now: float | None = None, limit: CheckLimit | None = None, *, site: bool = False
) -> str:
    """The banner sentence for one alert."""
    n = max(1, round(float(alert.missed_estimate)))
    items = "item" if n == 1 else "items"
    verb = "was" if n == 1 else "were"
    window = describe_window(alert, now)
    text = f"About {n} {items}{' ' + window if window else ''} {verb} not seen"
    cap = getattr(alert, "capacity", None)
    if cap:
        text += f" — this feed only shows {cap}"
    return text + _tail(limit, site)


def describe_since(t: float, now: float | None = None) -> str:
    """``"14:00 today"``, ``"Sat 14:00"`` (this week), ``"3 May"`` (before),
    ``"3 May 2025"`` (another year)."""
    d = dt.datetime.fromtimestamp(t)
    today = dt.datetime.fromtimestamp(time.time() if now is None else now).date()
    if d.date() == today:
        return f"{clock_text(d)} today"
    if 0 < (today - d.date()).days < 7:
        return day_clock(d)
    return day_month(d, year=d.year != today.year)


def summary_text(
    alerts: Sequence[Any],
    now: float | None = None,
    limit: CheckLimit | None = None,
    *,
    site: bool = False,
) -> str:
    """One sentence for a feed's open alerts (newest first): the single alert's
    own sentence, or "About N items missed in K checks since …" for several."""
    if len(alerts) == 1:
        return alert_text(alerts[0], now, limit, site=site)
    n = max(1, round(sum(float(a.missed_estimate) for a in alerts)))
    since = describe_since(min(float(a.created) for a in alerts), now)
    text = f"About {count_of(n, 'item')} missed in {len(alerts)} checks since {since}"
    cap = getattr(alerts[0], "capacity", None)
    if cap:
        text += f" — this feed only shows {cap}"
    return text + _tail(limit, site)


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
        """The banner's words (the label holds no-break spaces between numbers
        and units)."""
        return self.label.text().replace(NBSP, " ")

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
    """Shown above a feed's article list while it has open missed-item alerts: one
    summary of them all, dismissed together.

    Signals:
        dismissed(int): the user dismissed the feed's open alerts up to this id
            (the newest shown; one raised meanwhile stays open).
        openSiteRequested(int): open the site of the feed with this id.
        propertiesRequested(int): open this feed's properties (its minimum
            interval is what limits its checks).
        settingsRequested(): open Settings (the request budget limits them).
    """

    dismissed = Signal(int)
    openSiteRequested = Signal(int)
    propertiesRequested = Signal(int)
    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(38, parent)
        self.setObjectName("missedBanner")
        self._alerts: list[Any] = []
        self._limit: CheckLimit | None = None
        # where the advice points: Properties… or Settings…, per limit
        self.remedy = self.add_button("Properties…")
        self.site = self.add_button(
            "Open site", "The feed's web site, where what scrolled out of the feed still is"
        )
        self.button = self.add_button("Dismiss", "Hide this notice; the alerts stay on record")
        self.remedy.clicked.connect(self._remedy)
        self.site.clicked.connect(self._open_site)
        self.button.clicked.connect(self._dismiss)

    def alert(self) -> Any:
        """The newest alert shown, or None."""
        return self._alerts[0] if self._alerts else None

    def alerts(self) -> list[Any]:
        return list(self._alerts)

    def set_alert(self, alert: Any | None, **kw: Any) -> None:
        """Show one ``alert`` (a ``storage.Alert``), or hide the banner for None."""
        self.set_alerts([alert] if alert is not None else [], **kw)

    def set_alerts(
        self,
        alerts: Sequence[Any],
        *,
        limit: CheckLimit | None = None,
        site: bool = False,
        now: float | None = None,
    ) -> None:
        """Show a summary of one feed's open ``alerts`` (newest first), or hide the
        banner when there are none. ``limit``: what stops more checks (see
        ``check_limit``); ``site``: the feed has a site to offer."""
        self._alerts = sorted(alerts, key=lambda a: (a.created, a.id), reverse=True)
        self._limit = limit
        if not self._alerts:
            self.label.clear()
            self.setToolTip("")
            self.setVisible(False)
            return
        self.label.setText(keep_units(summary_text(self._alerts, now, limit, site=site)))
        self.site.setVisible(site)
        budget = limit is not None and limit.kind == "budget"
        self.remedy.setText("Settings…" if budget else "Properties…")
        self.remedy.setToolTip(
            "Raise the request budget"
            if budget
            else "Lower this feed's minimum interval to check it more often"
        )
        # nothing to lower below a minute
        self.remedy.setVisible(
            limit is not None and (budget or limit.min_interval > MIN_INTERVAL_RANGE[0])
        )
        created = getattr(self._alerts[0], "created", None)
        tip = ""
        if created:
            when = date_time_text(dt.datetime.fromtimestamp(created), weekday=True, year=False)
            latest = "Latest detected" if len(self._alerts) > 1 else "Detected"
            tip = f"{latest} at the check of {when}"
        self.setToolTip(tip)
        self.setVisible(True)

    @Slot()
    def _remedy(self) -> None:
        if not self._alerts or self._limit is None:
            return
        if self._limit.kind == "budget":
            self.settingsRequested.emit()
        else:
            self.propertiesRequested.emit(int(self._alerts[0].feed_id))

    @Slot()
    def _open_site(self) -> None:
        if self._alerts:
            self.openSiteRequested.emit(int(self._alerts[0].feed_id))

    @Slot()
    def _dismiss(self) -> None:
        newest = max((int(a.id) for a in self._alerts), default=None)
        self.set_alerts([])
        if newest is not None:
            self.dismissed.emit(newest)


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
    """Open missed-item alerts of all feeds, newest first, one row per alert; the
    selected feed's alerts are summed up below the list and can be dismissed
    together.

    Signals:
        feedActivated(int): a row was double-clicked or activated with Enter (or
            "Show feed" pressed).
        openSiteRequested(int): "Open site" pressed for the feed with this id.
        alertsDismissed(list): ids just dismissed (already written to the store).
    """

    feedActivated = Signal(int)
    openSiteRequested = Signal(int)
    alertsDismissed = Signal(list)

    COLUMNS = ("Feed", "Detected", "Missed", "Window")

    def __init__(
        self,
        store: Any,
        parent: QWidget | None = None,
        *,
        now: Callable[[], float] = time.time,
        limit_for: Callable[[int], CheckLimit | None] = lambda _fid: None,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self._now = now
        self._limit_for = limit_for
        self._alerts: list[Any] = []
        self._feeds: dict[int, Any] = {}
        # scrolls when short or narrow (a large font in a small window) rather than
        # setting the main window's minimum size
        lay = QVBoxLayout(scrolling(self))
        lay.setContentsMargins(12, 10, 12, 10)
        title = QLabel("Missed-item alerts")
        f = QFont(title.font())
        f.setPointSizeF(f.pointSizeF() * 1.3)
        f.setWeight(QFont.Weight.Bold)
        title.setFont(f)
        title.setWordWrap(True)  # at 16 pt its one line was 294 px of the window's minimum
        lay.addWidget(title)
        self.hint = QLabel(
            "A feed only lists its latest items. When everything in it was new at a "
            "check, some items probably scrolled out unseen; smartreader estimates how "
            "many and checks that feed more often, as far as its minimum interval and "
            "the request budget allow."
        )
        self.hint.setWordWrap(True)
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.hint)

        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setAccessibleName("Missed-item alerts")
        # Tab leaves the table for the buttons below (it went from cell to cell)
        self.table.setTabKeyNavigation(False)
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
        # in a narrow pane the other columns keep their text and the table scrolls
        # sideways; the feed's name keeps a few letters rather than "…"
        hh.setMinimumSectionSize(self.fontMetrics().averageCharWidth() * 10)
        for c in range(1, len(self.COLUMNS)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        # a double-click, or Enter (or one click where the desktop opens on one)
        self.table.activated.connect(self._activated)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        lay.addWidget(self.table, 1)

        self.empty = QLabel("No open alerts: every new item was seen in time.")
        # wrapped: unwrapped it set the window's minimum (546 px for itself at 16 pt)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        # the table's room when there is none: the title stays on top, the buttons
        # at the foot (without it the page's parts spread evenly down the pane)
        lay.addWidget(self.empty, 1)

        # The selected feed (rows of one feed): its alerts in one sentence, with
        # what limits its checks, and its own actions. Buttons wrap: in one row at
        # 16 pt they alone needed 362-477 px of a pane that gets ~260 at 1,024 px.
        self.feed_box = QWidget()
        fb = QVBoxLayout(self.feed_box)
        fb.setContentsMargins(0, 4, 0, 0)
        self.detail = plain_label()
        self.detail.setObjectName("alertDetail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        fb.addWidget(self.detail)
        feed_buttons = FlowLayout()
        # Alt letters: none of the menu bar's (File, Edit, Article, Feed, View)
        self.show_feed = QPushButton("&Show feed")
        self.show_feed.clicked.connect(self._show_selected)
        self.open_site = QPushButton("&Open site")
        self.open_site.setToolTip("The feed's web site, where what scrolled out of the feed is")
        self.dismiss_feed = QPushButton("Dismiss feed ale&rts")
        self.dismiss_feed.setToolTip("Dismiss every open alert of this feed")
        self.open_site.clicked.connect(self._open_site)
        self.dismiss_feed.clicked.connect(self._dismiss_feeds)
        feed_buttons.addWidget(self.show_feed)
        feed_buttons.addWidget(self.open_site)
        feed_buttons.addWidget(self.dismiss_feed)
        fb.addLayout(feed_buttons)
        self.feed_box.setVisible(False)
        lay.addWidget(self.feed_box)

        buttons = FlowLayout(align_right=True)
        self.dismiss = QPushButton("Dis&miss")
        self.dismiss.setToolTip("Dismiss the selected alerts")
        self.dismiss_all = QPushButton("Dismiss a&ll")
        self.dismiss_all.setToolTip("Dismiss the alerts of every feed")
        self.dismiss.clicked.connect(self._dismiss_selected)
        self.dismiss_all.clicked.connect(self._dismiss_all)
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
            self._feeds = {f.id: f for f in self.store.feeds()}
        except Exception:
            log.exception("loading alerts failed")
            self._alerts, self._feeds = [], {}
        now = self._now()
        t = self.table
        t.setRowCount(len(self._alerts))
        warn = QColor(accent(self.palette(), 35))
        for r, a in enumerate(self._alerts):
            n = max(1, round(float(a.missed_estimate)))
            cap = f" (shows {a.capacity})" if a.capacity else ""
            cells = [
                self._name(a.feed_id),
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
        self._fit_table_height()
        self.empty.setVisible(not has)
        self.dismiss_all.setEnabled(has)
        self._update_buttons()

    def _fit_table_height(self) -> None:
        """At least its header and up to four rows (with a sideways scroll bar): in a
        short pane the page scrolls, and the table's bare minimum was one row."""
        t = self.table
        rows = min(max(1, t.rowCount()), 4)
        frame = 2 * t.frameWidth()
        bar = t.horizontalScrollBar().sizeHint().height()
        header = t.horizontalHeader().sizeHint().height()
        t.setMinimumHeight(header + rows * t.verticalHeader().defaultSectionSize() + bar + frame)

    def _name(self, feed_id: int) -> str:
        feed = self._feeds.get(feed_id)
        return feed.display_title if feed is not None else f"Feed #{feed_id}"

    def _selected_rows(self) -> list[int]:
        return sorted({i.row() for i in self.table.selectionModel().selectedRows()})

    def _selected_feeds(self) -> list[int]:
        return sorted({int(self._alerts[r].feed_id) for r in self._selected_rows()})

    def feed_summary(self, feed_id: int) -> str:
        """The sentence for all of a feed's open alerts, with what limits its checks."""
        mine = [a for a in self._alerts if a.feed_id == feed_id]
        if not mine:
            return ""
        site = site_url(self._feeds.get(feed_id)) is not None
        limit = self._limit_for(feed_id)
        return f"{self._name(feed_id)}: " + summary_text(mine, self._now(), limit, site=site)

    @Slot()
    def _update_buttons(self) -> None:
        rows = self._selected_rows()
        feeds = self._selected_feeds()
        one = feeds[0] if len(feeds) == 1 else None
        self.dismiss.setEnabled(bool(rows))
        self.show_feed.setEnabled(one is not None)
        self.dismiss_feed.setEnabled(one is not None)
        self.open_site.setVisible(one is not None and site_url(self._feeds.get(one)) is not None)
        text = self.feed_summary(one) if one is not None else ""
        self.detail.setText(keep_units(text))
        self.feed_box.setVisible(bool(text))

    @Slot(QModelIndex)
    def _activated(self, index: QModelIndex) -> None:
        if 0 <= index.row() < len(self._alerts):
            self.feedActivated.emit(int(self._alerts[index.row()].feed_id))

    @Slot()
    def _show_selected(self) -> None:
        feeds = self._selected_feeds()
        if len(feeds) == 1:
            self.feedActivated.emit(feeds[0])

    @Slot()
    def _open_site(self) -> None:
        feeds = self._selected_feeds()
        if len(feeds) == 1:
            self.openSiteRequested.emit(feeds[0])

    @Slot()
    def _dismiss_selected(self) -> None:
        self.dismiss_ids([int(self._alerts[r].id) for r in self._selected_rows()])

    @Slot()
    def _dismiss_feeds(self) -> None:
        # the rows listed, not "every open one" in SQL: one raised since the last
        # refresh has not been seen yet and stays open
        feeds = self._selected_feeds()
        if len(feeds) == 1:
            self.dismiss_ids([int(a.id) for a in self._alerts if a.feed_id == feeds[0]])

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
        return f"today {clock_text(d)}"
    if (dt.datetime.fromtimestamp(now).date() - d.date()).days < 7:
        return day_clock(d)
    # the year only when it is not this one, as in the article list
    return date_time_text(d, year=d.year != dt.datetime.fromtimestamp(now).year)


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
