"""The "Activity" panel: what smart polling knows and plans, per feed and overall.

Per feed: the week chart (λ(t), observed counts, planned fetches), rate, rhythm,
share of the request budget, expected delay, the next planned fetches, the recent
fetch log (errors in red, 304s visible) and the scheduler's notes. Overview (no
feed selected): every feed in a sortable table plus the plan summary, the
smart-vs-fixed-interval delay comparison and a warning for starved feeds.

Reads run on the GUI thread: short indexed Store queries and the updater's
in-memory ``explain``/``summary`` (pure computation under the updater's lock,
never network I/O). The overview of many feeds (hundreds of ``explain`` calls,
a few hundred ms in all) is computed a feed at a time in short slices from a
zero-delay timer, and its table filled the same way, so no single call on the
GUI thread takes long. Fetching happens in ``gui.worker``;
connect its ``feedUpdated`` signal to ``on_feed_updated`` to keep the panel current.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QSize,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QColor,
    QFont,
    QPalette,
    QResizeEvent,
    QStandardItem,
    QStandardItemModel,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QBoxLayout,
    QFrame,
    QGridLayout,
    QHeaderView,
    QLabel,
    QLayout,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from smartreader.core.rhythm import describe_rhythm
from smartreader.gui.charts import (
    HOURS_PER_WEEK,
    WeekHeatmap,
    WeekRateChart,
    accent,
    humanize_duration,
    humanize_in,
    local_utc_offset,
)
from smartreader.gui.layouts import Pane, scrolling
from smartreader.gui.safetext import ElidedLabel, plain_label, tip
from smartreader.net.parse import is_cap_note
from smartreader.text import clock_text, date_time_text, day_clock, day_month, keep_units, size_text

log = logging.getLogger(__name__)

# Overviews of more active feeds than this are computed a slice at a time.
SYNC_OVERVIEW_FEEDS = 40
OVERVIEW_SLICE_S = 0.008

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
FEED_ID_ROLE = Qt.ItemDataRole.UserRole + 2

STATUS_TEXT = {
    "ok": "ok",
    "not_modified": "not modified",
    "error": "error",
    "rate_limited": "rate limited",
    "gone": "gone (410)",
    "skipped": "skipped",
}


def format_time(t: float | None, now: float | None = None, *, seconds: bool = True) -> str:
    """Local time, with the date only when it is not today."""
    if t is None:
        return "never"
    when = dt.datetime.fromtimestamp(t)
    today = dt.datetime.fromtimestamp(time.time() if now is None else now).date()
    if when.date() == today:
        return clock_text(when, seconds=seconds)
    if abs((when.date() - today).days) < 7:
        return day_clock(when)
    return date_time_text(when)


def _error_color(pal: QPalette) -> QColor:
    return accent(pal, 0)


def _warn_color(pal: QPalette) -> QColor:
    return accent(pal, 35)


# Feed ▸ Pause updates: the plan shown still stands, it just waits.
PAUSED_NOTE = "Updates are paused (Feed ▸ Pause updates): planned fetches wait until you resume."


class _Stat(QFrame):
    """A labelled number: caption above, value in large type, detail below."""

    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statCard")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 8)
        lay.setSpacing(1)
        self.caption = QLabel(caption)
        self.caption.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        f = QFont(self.caption.font())
        f.setPointSizeF(max(7.0, f.pointSizeF() * 0.9))
        self.caption.setFont(f)
        self.value = plain_label("—")
        vf = QFont(self.value.font())
        vf.setPointSizeF(vf.pointSizeF() * 1.45)
        vf.setWeight(QFont.Weight.DemiBold)
        self.value.setFont(vf)
        self.detail = plain_label("")
        self.detail.setFont(f)
        self.detail.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.detail.setWordWrap(True)
        self.warned = False  # the detail says something is wrong
        for w in (self.caption, self.value, self.detail):
            lay.addWidget(w)
        lay.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set(
        self, value: str, detail: str = "", tooltip: str = "", *, warn: QColor | None = None
    ) -> None:
        """``warn``: colour the detail (it says something is wrong). The detail
        wraps, but never between a number and its unit ("… last 24" / "h")."""
        self.value.setText(value)
        self.detail.setText(keep_units(detail))
        self.setToolTip(tip(tooltip))
        if warn is None:
            self.detail.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        else:
            pal = QPalette()  # only this role set: the rest follows the theme
            pal.setColor(QPalette.ColorRole.WindowText, warn)
            self.detail.setPalette(pal)
            self.detail.setForegroundRole(QPalette.ColorRole.WindowText)
        self.warned = warn is not None


class StatRow(QWidget):
    """Stat cards side by side, two by two when the pane is too narrow for all of
    them in one row, or one above the other when even two do not fit (its minimum
    is the widest card, so a narrow window can give the reading pane less room
    without the cards holding it open)."""

    SPACING = 8

    def __init__(self, cards: Sequence[_Stat], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards = list(cards)
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(self.SPACING)
        # The layout must not pin this widget's minimum to the one-row width.
        self.grid.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
        self.columns = 0
        self._arrange(len(self.cards))

    def _arrange(self, columns: int) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        for card in self.cards:
            self.grid.removeWidget(card)
        for i, card in enumerate(self.cards):
            self.grid.addWidget(card, i // columns, i % columns)
        for c in range(len(self.cards)):
            self.grid.setColumnStretch(c, 1 if c < columns else 0)
        self.updateGeometry()

    def _width_for(self, columns: int) -> int:
        widths = [c.minimumSizeHint().width() for c in self.cards]
        rows = [widths[i : i + columns] for i in range(0, len(widths), columns)]
        return max(sum(r) + self.SPACING * (len(r) - 1) for r in rows)

    def minimumSizeHint(self) -> QSize:
        return QSize(self._width_for(1), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        width = event.size().width()
        fits = [n for n in (len(self.cards), 2) if width >= self._width_for(n)]
        self._arrange(fits[0] if fits else 1)
        super().resizeEvent(event)


def _section_label(text: str) -> QLabel:
    lab = QLabel(text)
    lab.setWordWrap(True)  # on one line, a heading sets the narrow pane's minimum width
    f = QFont(lab.font())
    f.setWeight(QFont.Weight.DemiBold)
    lab.setFont(f)
    return lab


def gain_text(smart: float, fixed: float) -> str:
    """The expected delay against a fixed interval's, in words: it read "-1 %
    shorter than a fixed interval" when the two were about the same."""
    pct = round(100 * (1 - smart / fixed))
    if pct > 1:
        return f"{pct} % shorter than a fixed interval"
    if pct < -1:
        return f"{-pct} % longer than a fixed interval"
    return "about the same as a fixed interval"


def _item(text: str, sort: Any = None, *, align_right: bool = False) -> QStandardItem:
    it = QStandardItem(text)
    it.setEditable(False)
    it.setData(text.lower() if sort is None else sort, SORT_ROLE)
    if align_right:
        it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return it


class FeedActivityView(QWidget):
    """One feed's schedule, history and notes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paused = False  # Feed ▸ Pause updates (ActivityPanel.set_paused)
        lay = QVBoxLayout(scrolling(self))
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(8)

        self.title = plain_label()  # the feed title
        tf = QFont(self.title.font())
        tf.setPointSizeF(tf.pointSizeF() * 1.3)
        tf.setWeight(QFont.Weight.Bold)
        self.title.setFont(tf)
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.subtitle = ElidedLabel(mode=Qt.TextElideMode.ElideMiddle)
        self.subtitle.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.subtitle.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.title)
        lay.addWidget(self.subtitle)

        self.rate = _Stat("Posting rate")
        self.periodicity = _Stat("Posting rhythm")
        self.share = _Stat("Share of budget")
        self.delay = _Stat("Expected delay")
        self.stats = StatRow((self.rate, self.periodicity, self.share, self.delay))
        lay.addWidget(self.stats)

        self.chart = WeekRateChart()
        self.chart.setAccessibleName("Posting rate over the week")
        # Its stretch makes it tall in a roomy pane; a small minimum keeps the
        # layout satisfiable in a short one, where the stats above wrap to more
        # lines than the minimum size hint foresees and the lists below would
        # otherwise be laid over the chart's axis.
        self.chart.setMinimumHeight(150)
        lay.addWidget(self.chart, 3)

        mid = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        mid.setSpacing(12)
        self._mid = mid
        left = QVBoxLayout()
        left.addWidget(_section_label("Next planned fetches"))
        self.planned = QListWidget()
        self.planned.setAccessibleName("Next planned fetches")
        self.planned.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        # focusable (read only), so the keyboard and screen readers reach its rows
        self.planned.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        _min_rows(self.planned, 4, self.planned.fontMetrics().height() + 2)
        left.addWidget(self.planned)
        right = QVBoxLayout()
        right.addWidget(_section_label("Scheduler notes"))
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        right.addWidget(self.notes, 1)
        mid.addLayout(left, 2)
        mid.addLayout(right, 3)
        midw = Pane()
        midw.setLayout(mid)
        mid.setContentsMargins(0, 0, 0, 0)

        logw = Pane()
        logl = QVBoxLayout(logw)
        logl.setContentsMargins(0, 0, 0, 0)
        logl.addWidget(_section_label("Recent fetches"))
        self.log_table = QTableWidget(0, 6)
        self.log_table.setAccessibleName("Recent fetches")
        # focusable (read only) for the keyboard and screen readers; Tab leaves it
        self.log_table.setTabKeyNavigation(False)
        self.log_table.setHorizontalHeaderLabels(
            ["Time", "Status", "HTTP", "New", "Size", "Details"]
        )
        self.log_table.verticalHeader().setVisible(False)
        self.log_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.log_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.log_table.setAlternatingRowColors(True)
        self.log_table.setWordWrap(False)
        _compact_rows(self.log_table)
        _min_rows(self.log_table, 3, self.log_table.verticalHeader().defaultSectionSize())
        hh = self.log_table.horizontalHeader()
        for col in range(5):
            hh.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        hh.setStretchLastSection(True)
        logl.addWidget(self.log_table)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(midw)
        split.addWidget(logw)
        split.setStretchFactor(0, 1)
        split.setStretchFactor(1, 2)
        split.setChildrenCollapsible(False)
        lay.addWidget(split, 4)

        self.explanation: Any = None

    def resizeEvent(self, event: QResizeEvent) -> None:
        # Side by side the list gets two fifths of the width: in a narrow pane that
        # cuts its "Tue 22:05 · in 14 min" rows, so it goes above the notes there.
        row = self.planned.fontMetrics().horizontalAdvance("Tue 22:05  ·  in 14 min__")
        wide = event.size().width() >= 3 * row
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self._mid.direction() != direction:
            self._mid.setDirection(direction)
        super().resizeEvent(event)

    def show_feed(
        self,
        feed: Any,
        explanation: Any | None,
        log_rows: Sequence[Any],
        budget: float,
        now: float,
        unavailable: str = "",
        history: dict[str, Any] | None = None,
    ) -> None:
        """``history`` is ``Store.fetch_history`` (plus ``entries``, the feed's
        article count); without it nothing is said about quiet or failing spells."""
        self.explanation = explanation
        self.title.setText(getattr(feed, "display_title", None) or feed.url)
        sub = feed.url
        if getattr(feed, "folder", None):
            sub = f"{feed.folder}  ·  {sub}"
        self.subtitle.setText(sub)
        hist = dict(history or {})
        self._show_plan(explanation, budget, now, unavailable, feed, hist)
        self._show_log(log_rows, now)

    def _show_plan(
        self,
        ex: Any | None,
        budget: float,
        now: float,
        unavailable: str,
        feed: Any = None,
        hist: dict[str, Any] | None = None,
    ) -> None:
        self.planned.clear()
        if ex is None:
            for s in (self.rate, self.periodicity, self.share, self.delay):
                s.set("—")
            self.chart.clear()
            self.chart.empty_text = unavailable or "Not scheduled"
            self.chart.setAccessibleDescription(self.chart.empty_text)
            self.notes.setText(f"<i>{_esc(unavailable or 'This feed is not scheduled.')}</i>")
            return
        hist = hist or {}
        warn = _warn_color(self.palette())
        upcoming = sorted(t for t in ex.planned if t >= now - 60)
        next_check = (
            f"{format_time(upcoming[0], now, seconds=False)} ({humanize_in(upcoming[0], now)})"
            if upcoming
            else "none planned"
        )
        # Until a check has read the feed, rate and curve are the scheduler's prior
        # (the overall rate, flat): not something this feed did.
        evidence = (
            bool(getattr(feed, "last_success", None))
            or (hist.get("checks") or 0) > 0
            or any(getattr(ex, "observed_week", ()) or ())
        )
        errors = int(getattr(feed, "error_count", 0) or 0)
        failing = errors >= FAILING_AFTER
        rate = float(ex.rate_per_day)
        quiet = _quiet_since(hist, rate, now) if evidence else None
        notes: list[str] = []

        if not evidence:
            self.rate.set("—", "items per day: learning from the first checks")
        elif quiet is not None:
            since, empty = quiet
            self.rate.set(
                _per_day(rate),
                f"items per day (estimated) · nothing new since {since}",
                "The estimate remembers earlier weeks. A silence much longer than they "
                "explain lowers it at once, and the first new item brings it back.",
                warn=warn,
            )
            notes.append(
                f"Nothing new since {since} ({empty} check{'' if empty == 1 else 's'} "
                "found nothing); the rhythm above describes its earlier posts."
            )
        else:
            self.rate.set(_per_day(rate), "items per day (estimated)")

        per = float(ex.periodicity)
        if evidence:
            level, detail = describe_rhythm(ex.lambda_week, per, local_utc_offset(now))
        else:
            level, detail = "—", "not enough history"
        if quiet is not None and level != "—":
            detail += f" · until {quiet[0]}"
        self.periodicity.set(
            level,
            detail,
            f"Periodicity {per:.2f} on a 0–1 scale: how far the learned posting rate over "
            "the week is from flat, discounted while there is little history. Fetches "
            "are placed just after the busy hours.",
        )

        share = float(ex.share_per_day)
        pct = 100.0 * share / budget if budget > 0 else 0.0
        every = humanize_duration(86400 / share) if share > 0 else "—"
        normal_tip = f"About one fetch every {every} on average, placed where posts are expected."
        if failing:
            # While it fails the scheduler gives it only what its back-off uses
            # (the share above); the rest goes to the feeds that answer.
            self.share.set(
                "backing off",
                f"next check {next_check} · {errors} failed in a row",
                f"While its checks fail, each retry waits longer than the last (up to "
                f"a day), so it uses at most {_per_day(share)} fetches/day "
                f"({pct:.1f} % of {budget:g}); the rest of its share goes to the feeds "
                "that answer, and comes back when it works again.",
                warn=warn,
            )
        elif errors:
            self.share.set(
                f"{_per_day(share)}",
                f"fetches/day · {pct:.1f} % of {budget:g} · last check failed, retry {next_check}",
                normal_tip,
                warn=warn,
            )
        else:
            self.share.set(
                f"{_per_day(share)}", f"fetches/day · {pct:.1f} % of {budget:g}", normal_tip
            )

        if failing:
            started = hist.get("failing_since")
            since = f"failing since {_day_text(started, now)}" if started else "failing"
            self.delay.set(
                "—",
                since,
                f"Last error: {getattr(feed, 'last_error', None) or 'unknown'}",
                warn=warn,
            )
        elif not evidence:
            self.delay.set("—", "known after the first checks")
        else:
            self.delay.set(
                humanize_duration(ex.expected_delay_s),
                "from posting to fetch, on average",
                "Sia & Cho's delay: the time from an item's publication to the first "
                "fetch that sees it, averaged over the expected items.",
            )

        if evidence:
            self.chart.empty_text = "No posting history yet — the curve appears after a few fetches"
            lam: Sequence[float] = ex.lambda_week
        else:
            self.chart.empty_text = f"No posting history yet — learning; first check {next_check}"
            lam = ()
        self.chart.set_data(
            lam,
            getattr(ex, "observed_week", ()) or (),
            ex.planned,
            now=now,
            observed_weeks=_observed_weeks(ex),
            plan_until=max(ex.planned) if ex.planned else None,
        )
        self.chart.setAccessibleDescription(
            _week_summary(rate, level, detail, upcoming, now)
            if evidence
            else f"{self.chart.empty_text}."
        )
        for t in upcoming[:12]:
            it = QListWidgetItem(_planned_text(t, now))
            it.setData(Qt.ItemDataRole.UserRole, float(t))
            self.planned.addItem(it)
        if not upcoming:
            self.planned.addItem("nothing planned")
        notes += [str(n) for n in (ex.notes or ())]
        if self.paused:
            notes.insert(0, PAUSED_NOTE)
        cap = getattr(ex, "capacity", None)
        if cap:
            notes.append(_window_note(int(cap), hist))
        if notes:
            self.notes.setText(
                "<ul style='margin-left:-20px'>"
                + "".join(f"<li>{_esc(keep_units(n))}</li>" for n in notes)
                + "</ul>"
            )
        else:
            self.notes.setText("<i>No notes.</i>")

    def _show_log(self, rows: Sequence[Any], now: float) -> None:
        t = self.log_table
        t.setRowCount(len(rows))
        pal = self.palette()
        err = _error_color(pal)
        warn = _warn_color(pal)
        muted = pal.color(QPalette.ColorRole.PlaceholderText)
        for r, row in enumerate(rows):
            status = STATUS_TEXT.get(row.status, row.status)
            if row.manual:
                status += " · manual"
            details = row.error or ""
            if not details and row.status == "ok":
                n = row.window_items
                details = f"{n} item{'' if n == 1 else 's'} in the feed"
            problems = [w for w in row.warnings if not is_cap_note(w)]
            if problems:
                details += "; read with problems: " + "; ".join(problems)
            # our own limit on entries read is a fact, not a fault of the feed
            details += "".join(f"; {w}" for w in row.warnings if is_cap_note(w))
            if row.missed_estimate and row.missed_estimate > 0:
                details = (details + "; " if details else "") + (
                    f"≈{row.missed_estimate:.0f} items missed"
                )
            cells = [
                format_time(row.time, now),
                status,
                "" if row.http_status is None else str(row.http_status),
                str(row.new_items) if row.status == "ok" else "",
                size_text(row.bytes) if row.bytes else "",
                details,
            ]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                if c in (2, 3, 4):
                    it.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if row.status in ("error", "gone"):
                    it.setForeground(err)
                elif row.status == "rate_limited" or (row.missed_estimate or 0) > 0 or problems:
                    it.setForeground(warn)
                elif row.status == "not_modified" and c != 0:
                    it.setForeground(muted)
                if c == 5 and details:
                    it.setToolTip(tip(details))
                t.setItem(r, c, it)
        if not rows:
            t.setRowCount(1)
            it = QTableWidgetItem("No fetches yet")
            it.setForeground(muted)
            t.setItem(0, 0, it)

    def refresh_relative_times(self, now: float) -> None:
        for i in range(self.planned.count()):
            it = self.planned.item(i)
            t = it.data(Qt.ItemDataRole.UserRole)
            if t is not None:
                it.setText(_planned_text(t, now))


class OverviewView(QWidget):
    """All feeds: plan summary, starved feeds, and a sortable table.

    Signals:
        feedActivated(int): a feed row was double-clicked or activated with Enter.
    """

    feedActivated = Signal(int)

    # Short headers so the table fits the reading pane next to the article list;
    # the header tooltips say what each column means.
    COLUMNS = (
        "Feed",
        "Items\nper day",
        "Fetches\nper day",
        "Share",
        "Delay",
        "Last\nfetch",
        "Status",
        "Alerts",
    )
    COLUMN_TIPS = (
        "Feed title; double-click for its activity",
        "Learned posting rate: items per day, estimated",
        "Fetches per day the scheduler plans for this feed",
        "This feed's share of the request budget",
        "Expected delay from posting to fetch, on average",
        "When the feed was last fetched",
        "Result of the last fetch",
        "Missed-item alerts: items that probably scrolled out of the feed unseen",
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.paused = False  # Feed ▸ Pause updates (ActivityPanel.set_paused)
        lay = QVBoxLayout(scrolling(self))
        lay.setContentsMargins(12, 10, 12, 10)
        lay.setSpacing(8)
        title = QLabel("Polling overview")
        tf = QFont(title.font())
        tf.setPointSizeF(tf.pointSizeF() * 1.3)
        tf.setWeight(QFont.Weight.Bold)
        title.setFont(tf)
        lay.addWidget(title)

        self.budget = _Stat("Request budget")
        self.planned = _Stat("Planned")
        self.smart = _Stat("Expected mean delay")
        self.fixed = _Stat("With a fixed interval")
        self.stats = StatRow((self.budget, self.planned, self.smart, self.fixed))
        lay.addWidget(self.stats)

        self.starved = plain_label()
        self.starved.setWordWrap(True)
        self.starved.setObjectName("starvedWarning")
        self.starved.setVisible(False)
        lay.addWidget(self.starved)

        self.notes = plain_label()
        self.notes.setWordWrap(True)
        self.notes.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.notes)

        self.heatmap = WeekHeatmap()
        self.heatmap.setMinimumHeight(150)
        self.heatmap.setMaximumHeight(210)
        self.heatmap.setToolTip("Expected items per hour across all feeds")
        self.heatmap.setAccessibleName("When your feeds post")

        self.model = QStandardItemModel(0, len(self.COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(self.COLUMNS))
        for c, why in enumerate(self.COLUMN_TIPS):
            self.model.horizontalHeaderItem(c).setToolTip(why)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.table = QTableView()
        # not "Feeds": the feed list is called that
        self.table.setAccessibleName("Polling by feed")
        self.table.setTabKeyNavigation(False)  # Tab leaves the table
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(2, Qt.SortOrder.DescendingOrder)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        _compact_rows(self.table)
        _min_rows(self.table, 3, self.table.verticalHeader().defaultSectionSize())
        self._size_columns()
        self.table.viewport().installEventFilter(self)
        # a double-click, or Enter (or one click where the desktop opens on one)
        self.table.activated.connect(self._activated)
        self._fill_rows: Iterator[dict[str, Any]] = iter(())
        self._fill_colors = (QColor(), QColor())
        self._fill_sort: tuple[int, Qt.SortOrder] = (2, Qt.SortOrder.DescendingOrder)
        self._fill_timer = QTimer(self)
        self._fill_timer.setInterval(0)
        self._fill_timer.timeout.connect(lambda: self._fill_some())

        split = QSplitter(Qt.Orientation.Vertical)
        hm = Pane()
        hml = QVBoxLayout(hm)
        hml.setContentsMargins(0, 0, 0, 0)
        hml.addWidget(_section_label("When your feeds post (expected items per hour)"))
        hml.addWidget(self.heatmap)
        tw = Pane()
        twl = QVBoxLayout(tw)
        twl.setContentsMargins(0, 0, 0, 0)
        twl.addWidget(_section_label("Feeds"))
        twl.addWidget(self.table)
        split.addWidget(hm)
        split.addWidget(tw)
        split.setStretchFactor(1, 3)
        split.setChildrenCollapsible(False)
        lay.addWidget(split, 1)

    # Columns dropped, in this order, when the pane is too narrow for all of them
    # (no sideways scrolling): the share follows from fetches per day; each feed's
    # tooltip still has every value.
    DROP_ORDER = (3, 5, 6, 1, 4)
    MIN_FEED_PX = 100

    def eventFilter(self, obj: Any, event: Any) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._fit_columns()
        return False

    def _fit_columns(self) -> None:
        hh = self.table.horizontalHeader()
        need = {
            c: max(self.table.sizeHintForColumn(c), hh.sectionSizeHint(c))
            for c in range(1, len(self.COLUMNS))
        }
        room = self.table.viewport().width() - self.MIN_FEED_PX
        dropped: set[int] = set()
        for c in self.DROP_ORDER:
            if sum(w for col, w in need.items() if col not in dropped) <= room:
                break
            dropped.add(c)
        for c in range(1, len(self.COLUMNS)):
            if self.table.isColumnHidden(c) != (c in dropped):
                self.table.setColumnHidden(c, c in dropped)

    def _size_columns(self) -> None:
        # Per-section modes live in the header's sections, which a model change
        # (the fill detaches the proxy's source) drops: set them again after each.
        hh = self.table.horizontalHeader()
        hh.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for c in range(1, len(self.COLUMNS)):
            hh.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        # Size columns from the visible rows, not all of them (hundreds of feeds).
        hh.setResizeContentsPrecision(60)
        self._fit_columns()

    @Slot(QModelIndex)
    def _activated(self, index: QModelIndex) -> None:
        src = self.proxy.mapToSource(index)
        fid = self.model.item(src.row(), 0).data(FEED_ID_ROLE)
        if fid is not None:
            self.feedActivated.emit(int(fid))

    def show_overview(
        self,
        rows: Sequence[dict[str, Any]],
        summary: Any | None,
        requests_today: int | None,
        week_total: Sequence[float] | None,
        *,
        incremental: bool = False,
    ) -> None:
        """Show the overview; ``incremental`` fills the table a slice per event-loop
        turn (hundreds of feeds) instead of at once."""
        pal = self.palette()
        err = _error_color(pal)
        warn = _warn_color(pal)
        if summary is not None:
            budget = float(summary.budget_per_day)
            self.budget.set(
                f"{budget:g}/day",
                f"{requests_today} used in the last 24 h" if requests_today is not None else "",
            )
            planned = float(summary.planned_per_day)
            self.planned.set(
                f"{_per_day(planned)}/day",
                f"{100 * planned / budget:.0f} % of the budget" if budget > 0 else "",
            )
            smart = float(summary.expected_mean_delay_s)
            fixed = float(summary.fixed_interval_mean_delay_s)
            gain = ""
            if fixed > 0 and smart > 0:
                gain = gain_text(smart, fixed)
            self.smart.set(humanize_duration(smart), gain)
            self.fixed.set(humanize_duration(fixed), "same requests, evenly spaced")
            starved = list(summary.feeds_starved or ())
            notes = [str(n) for n in (summary.notes or ())]
            if self.paused:
                notes.insert(0, PAUSED_NOTE)
        else:
            for s in (self.budget, self.planned, self.smart, self.fixed):
                s.set("—")
            starved, notes = [], []
        names = {r["feed_id"]: r["title"] for r in rows}
        if starved:
            listed = ", ".join(names.get(int(f), f"#{f}") for f in starved[:6])
            more = f" and {len(starved) - 6} more" if len(starved) > 6 else ""
            self.starved.setText(
                f"⚠ {len(starved)} feed{'s get' if len(starved) != 1 else ' gets'} fewer checks "
                f"than they need to keep up: {listed}{more}. Raise the request budget in "
                "Settings, or lower these feeds' priority."
            )
            c = warn
            self.starved.setStyleSheet(
                f"QLabel#starvedWarning {{ border: 1px solid {c.name()}; border-radius: 4px;"
                f" padding: 6px; color: palette(text);"
                f" background: rgba({c.red()},{c.green()},{c.blue()},40); }}"
            )
        self.starved.setVisible(bool(starved))
        self.notes.setText(keep_units("  ".join(notes)))
        self.notes.setVisible(bool(notes))
        if week_total is not None and len(week_total) == HOURS_PER_WEEK:
            self.heatmap.set_values(week_total, unit="items/h expected")
            self.heatmap.setAccessibleDescription(_heatmap_summary(week_total))

        self._fill_timer.stop()
        self._fill_sort = (self.proxy.sortColumn(), self.proxy.sortOrder())
        # Fill with the proxy detached: no re-sort and no view update per row.
        self.proxy.setSourceModel(None)  # type: ignore[arg-type]
        self.model.removeRows(0, self.model.rowCount())
        self._fill_rows = iter(list(rows))
        self._fill_colors = (err, warn)
        if incremental:
            self._fill_timer.start()  # a slice per event-loop turn
        else:
            self._fill_some(None)

    def filling(self) -> bool:
        return self._fill_timer.isActive()

    def _fill_some(self, budget_s: float | None = 0.008) -> None:
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        err, warn = self._fill_colors
        for r in self._fill_rows:
            self.model.appendRow(self._row_items(r, err, warn))
            if deadline is not None and time.perf_counter() > deadline:
                return
        self._fill_timer.stop()
        self.proxy.setSourceModel(self.model)
        self._size_columns()
        col, order = self._fill_sort
        self.proxy.sort(col if col >= 0 else 2, order)

    def _row_items(self, r: dict[str, Any], err: QColor, warn: QColor) -> list[QStandardItem]:
        title = _item(r["title"])
        title.setData(r["feed_id"], FEED_ID_ROLE)
        rate = r.get("rate")
        share = r.get("share")
        pct = r.get("pct")
        delay = r.get("delay")
        status = r.get("status") or ""
        alerts = int(r.get("alerts") or 0)
        # Every value, for the columns a narrow pane drops.
        status_text = STATUS_TEXT.get(status, status or "—")
        problems = [w for w in r.get("warnings") or [] if not is_cap_note(w)]
        if r.get("error") and status in ("error", "gone"):
            status_text += f": {r['error']}"
        elif problems and status == "ok":
            status_text += ", read with problems: " + "; ".join(problems)
        lines = [
            r.get("url", ""),
            f"Last fetch: {format_time(r.get('last_fetch'), seconds=False)} ({status_text})",
        ]
        if rate is not None:
            lines.append(f"Items per day: {_per_day(rate)}")
        if pct is not None:
            lines.append(f"Share of the budget: {pct:.1f} %")
        if delay is not None:
            lines.append(f"Expected delay: {humanize_duration(delay)}")
        title.setToolTip(tip("\n".join(lines)))
        items = [
            title,
            _item("—" if rate is None else _per_day(rate), rate or 0.0, align_right=True),
            _item("—" if share is None else _per_day(share), share or 0.0, align_right=True),
            _item("—" if pct is None else f"{pct:.1f} %", pct or 0.0, align_right=True),
            _item(humanize_duration(delay), delay if delay is not None else 1e18),
            _item(format_time(r.get("last_fetch"), seconds=False), r.get("last_fetch") or 0.0),
            _item(STATUS_TEXT.get(status, status or "—"), status),
            _item(str(alerts) if alerts else "", alerts, align_right=True),
        ]
        if status in ("error", "gone"):
            items[6].setForeground(err)
            items[6].setToolTip(tip(r.get("error")))
        elif status == "rate_limited":
            items[6].setForeground(warn)
        elif problems and status == "ok":
            # it read, but not as published: say what the parser worked around
            items[6].setText("ok, with problems")
            items[6].setForeground(warn)
            items[6].setToolTip(tip("Read with problems:\n" + "\n".join(problems)))
        if alerts:
            items[7].setForeground(warn)
        if r.get("starved"):
            items[2].setForeground(warn)
            items[2].setToolTip("Starved: gets fewer fetches than it needs")
        return items


class ActivityPanel(QWidget):
    """Per-feed scheduling view, or the overview when no feed is selected.

    Signals:
        feedActivated(int): a feed was chosen in the overview (double-click).
    """

    feedActivated = Signal(int)

    def __init__(
        self,
        store: Any,
        updater: Any,
        parent: QWidget | None = None,
        *,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.updater = updater
        self._now = now
        self._feed_id: int | None = None
        self.stack = QStackedWidget()
        self.overview = OverviewView()
        self.feed_view = FeedActivityView()
        self.stack.addWidget(self.overview)
        self.stack.addWidget(self.feed_view)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)
        self.overview.feedActivated.connect(self.feedActivated)
        # Coalesce bursts of feedUpdated into one refresh; keep "in 5 min" current.
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(400)
        self._debounce.timeout.connect(self.refresh)
        self._clock = QTimer(self)
        self._clock.setInterval(30_000)
        self._clock.timeout.connect(self._tick)
        self._overview_stale = False
        self._overview_job: Iterator[Any] | None = None
        self._overview_poll = QTimer(self)
        self._overview_poll.setSingleShot(True)
        self._overview_poll.setInterval(0)
        self._overview_poll.timeout.connect(self._poll_overview)
        self.set_feed(None)

    def feed_id(self) -> int | None:
        return self._feed_id

    def set_feed(self, feed_id: int | None) -> None:
        self._feed_id = None if feed_id is None else int(feed_id)
        self.refresh()

    def set_paused(self, paused: bool) -> None:
        """Scheduled updates paused (or resumed): the notes say so."""
        if paused != self.feed_view.paused:
            self.feed_view.paused = self.overview.paused = paused
            self.refresh()

    @Slot(object)
    def on_feed_updated(self, result: Any) -> None:
        """Connect to ``SchedulerThread.feedUpdated``; refreshes soon, once per burst."""
        if not self.isVisible():
            return  # refreshed when shown (the tab switch calls set_feed)
        if self._feed_id is None or getattr(result, "feed_id", None) == self._feed_id:
            self._debounce.start()

    @Slot()
    def refresh(self) -> None:
        now = self._now()
        if self._feed_id is None:
            self._refresh_overview(now)
            self.stack.setCurrentWidget(self.overview)
        else:
            self._refresh_feed(self._feed_id, now)
            self.stack.setCurrentWidget(self.feed_view)

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        self._clock.start()
        if self._overview_stale and self._feed_id is None:
            self._overview_stale = False
            self.refresh()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        self._clock.stop()
        self._debounce.stop()
        # An overview still being computed is dropped; showing the tab refreshes.
        self._overview_job = None
        self._overview_poll.stop()
        if self.overview.filling():
            self.overview._fill_some(None)

    def _tick(self) -> None:
        if self._feed_id is not None:
            self.feed_view.refresh_relative_times(self._now())

    def _budget(self) -> float:
        try:
            return float(self.updater.budget())
        except Exception:
            log.exception("reading the budget failed")
            return 0.0

    def _explain(self, feed_id: int) -> tuple[Any | None, str]:
        try:
            return self.updater.explain(feed_id), ""
        except Exception as e:  # UsageError: paused, gone, unknown
            return None, str(e)

    def _refresh_feed(self, feed_id: int, now: float) -> None:
        try:
            feed = self.store.feed(feed_id)
        except Exception as e:
            self.feed_view.title.setText("Feed not found")
            self.feed_view.subtitle.setText(str(e))
            return
        ex, why = self._explain(feed_id)
        if ex is None:
            status = getattr(feed, "status", "")
            if status == "gone":
                why = "The server says this feed is gone (HTTP 410); it is no longer fetched."
            elif status and status != "active":
                why = f"This feed is {status}; it is not fetched on a schedule."
        rows = self.store.fetch_log(feed_id, limit=50)
        # the whole log's story (the 50 rows above may be a few hours of a busy feed)
        history: dict[str, Any] = dict(self.store.fetch_history(feed_id))
        history["entries"] = self.store.entry_count(feed_id)
        self.feed_view.show_feed(feed, ex, rows, self._budget(), now, why, history)

    def _refresh_overview(self, now: float) -> None:
        feeds = self.store.feeds(with_state=False)
        self._overview_job = None
        self._overview_poll.stop()
        if sum(1 for f in feeds if f.status == "active") <= SYNC_OVERVIEW_FEEDS:
            self.overview.show_overview(*self._overview_data(feeds, now))
            return
        if not self.isVisible():
            self._overview_stale = True  # computed when shown
            return
        # Hundreds of feeds: a feed's explain() at a time, a slice per event-loop
        # turn (a Python thread would compete with the GUI thread for the GIL).
        self._overview_job = self._overview_steps(feeds, now)
        self._overview_poll.start()

    def _poll_overview(self) -> None:
        job = self._overview_job
        if job is None:
            self._overview_poll.stop()
            return
        deadline = time.perf_counter() + OVERVIEW_SLICE_S
        try:
            while time.perf_counter() < deadline:
                result = next(job)
                if result is not None:
                    break
            else:
                self._overview_poll.start()
                return
        except StopIteration:
            result = None
        except Exception:  # e.g. the store was closed meanwhile
            log.exception("overview computation failed")
            result = None
        self._overview_poll.stop()
        self._overview_job = None
        if result is not None and self._feed_id is None:
            self.overview.show_overview(*result, incremental=True)

    def overview_pending(self) -> bool:
        """True while an overview is being computed a slice at a time."""
        return self._overview_job is not None

    def _overview_data(
        self, feeds: Sequence[Any], now: float
    ) -> tuple[list[dict[str, Any]], Any, int | None, list[float]]:
        for result in self._overview_steps(feeds, now):
            if result is not None:
                return result
        raise AssertionError("unreachable")

    def _overview_steps(
        self, feeds: Sequence[Any], now: float
    ) -> Iterator[tuple[list[dict[str, Any]], Any, int | None, list[float]] | None]:
        """Yields None between steps (one per feed), then the overview's data."""
        budget = self._budget()
        alerts = Counter(a.feed_id for a in self.store.alerts())
        try:
            requests_today: int | None = int(self.updater.requests_today())
        except Exception:
            requests_today = None
        rows: list[dict[str, Any]] = []
        week = [0.0] * HOURS_PER_WEEK
        lasts = self.store.last_fetches()
        yield None
        for feed in feeds:
            ex, _ = self._explain(feed.id) if feed.status == "active" else (None, "")
            last = lasts.get(feed.id)
            row: dict[str, Any] = {
                "feed_id": feed.id,
                "title": feed.display_title,
                "url": feed.url,
                "alerts": alerts.get(feed.id, 0),
                "last_fetch": last.time if last else None,
                "status": (last.status if last else None)
                if feed.status == "active"
                else feed.status,
                "error": last.error if last else feed.last_error,
                "warnings": list(last.warnings) if last else [],
            }
            if ex is not None:
                share = float(ex.share_per_day)
                failing = int(getattr(feed, "error_count", 0) or 0) >= FAILING_AFTER
                row.update(
                    rate=float(ex.rate_per_day),
                    share=share,
                    pct=100.0 * share / budget if budget > 0 else 0.0,
                    # a feed that keeps failing delivers nothing: no delay to expect
                    delay=None if failing else float(ex.expected_delay_s),
                )
                lw = list(ex.lambda_week)
                if len(lw) == HOURS_PER_WEEK:
                    week = [a + float(b) for a, b in zip(week, lw, strict=True)]
            rows.append(row)
            yield None
        # Last: explain() above has placed every feed's plan, so this is cheap now
        # (first, it would place all of them in one long call).
        try:
            summary = self.updater.summary()
        except Exception:
            log.exception("plan summary failed")
            summary = None
        starved = {int(f) for f in (getattr(summary, "feeds_starved", ()) or ())}
        for row in rows:
            row["starved"] = row["feed_id"] in starved
        yield None  # showing it is the next slice's work
        yield rows, summary, requests_today, week


def _compact_rows(view: QTableView) -> None:
    vh = view.verticalHeader()
    vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
    vh.setDefaultSectionSize(view.fontMetrics().height() + 8)


def _min_rows(view: QAbstractItemView, rows: int, row_h: int) -> None:
    """At least ``rows`` rows high (and the header): the page scrolls in a short pane,
    so squeezing a list to a row or two there would gain nothing."""
    header = getattr(view, "horizontalHeader", None)
    head = header().sizeHint().height() if header is not None else 0
    view.setMinimumHeight(2 * view.frameWidth() + head + rows * row_h)


# Failed checks in a row after which the cards show the back-off instead of the
# share: one failure is usually a blip (the first retry comes 30 min later); from
# the second on, each retry waits twice as long and the share no longer happens.
FAILING_AFTER = 2
# A feed is "quiet" when no check found anything new for this long, and for
# this many times its mean gap between posts: a weekly feed is not quiet after 3 days.
QUIET_MIN_S = 3 * 86400.0
QUIET_GAPS = 5.0
QUIET_MIN_CHECKS = 3


def _quiet_since(hist: dict[str, Any], rate_per_day: float, now: float) -> tuple[str, int] | None:
    """(when the last new item came, checks since that found nothing) for a feed
    that has been silent for long relative to its own rate, else None."""
    empty = int(hist.get("empty_checks") or 0)
    last_new = hist.get("last_new")
    if last_new is None or empty < QUIET_MIN_CHECKS:
        return None
    gap = 86400.0 / rate_per_day if rate_per_day > 0 else math.inf
    if now - last_new <= max(QUIET_MIN_S, QUIET_GAPS * gap):
        return None
    return _day_text(last_new, now), empty


def _week_summary(
    rate: float, level: str, rhythm: str, upcoming: Sequence[float], now: float
) -> str:
    """The week chart in words, for screen readers: the rate and the busy hours
    the cards above say, and the next planned fetch (the triangles)."""
    text = f"About {_per_day(rate)} items per day"
    if level != "—":
        text += f"; posting rhythm {level.lower()}: {rhythm.replace(' · ', ', ')} (local time)"
    text += "."
    if upcoming:
        first = upcoming[0]
        # clock times only: an "in 5 min" here would go stale between refreshes
        last = format_time(upcoming[-1], now, seconds=False)
        text += (
            f" Next planned fetch {format_time(first, now, seconds=False)}; "
            f"{len(upcoming)} planned until {last}."
        )
    else:
        text += " No fetch planned."
    return text


def _heatmap_summary(week_total: Sequence[float]) -> str:
    """The overview's heatmap in words: when the feeds post, in local time."""
    per_day = sum(week_total) / 7
    if per_day <= 0:
        return "No posting history yet."
    # the sum of all feeds has no periodicity: 1 has the detail name the busiest hours
    _level, detail = describe_rhythm(week_total, 1.0, local_utc_offset())
    return (
        f"Expected items per hour across all feeds, by weekday and hour: about "
        f"{_per_day(per_day)} items a day in all, {detail.replace(' · ', ', ')} (local time)."
    )


def _planned_text(t: float, now: float) -> str:
    """A planned fetch in the list: "Wed 14:15  ·  in 2 h"."""
    return f"{day_clock(dt.datetime.fromtimestamp(t))}  ·  {humanize_in(t, now)}"


def _day_text(t: float, now: float) -> str:
    """A local date a person says: "today 14:05", "Mon 3 Nov", "3 Nov 2023"."""
    when = dt.datetime.fromtimestamp(t)
    today = dt.datetime.fromtimestamp(now).date()
    if when.date() == today:
        return f"today {clock_text(when)}"
    if when.year != today.year:
        return day_month(when, year=True)
    return day_month(when, weekday=True)


def _window_note(cap: int, hist: dict[str, Any]) -> str:
    """How many items the feed lists: a fact once items were seen to scroll out of
    a full window (more stored than it lists, or several checks at the same size),
    otherwise the largest count seen so far, said as such."""
    items = f"{cap} item{'' if cap == 1 else 's'}"
    full = int(hist.get("window_full_checks") or 0)
    entries = int(hist.get("entries") or 0)
    if full >= 3 or entries > cap:
        return f"The feed shows its {cap} most recent items."
    return f"Up to {items} seen in the feed so far: an estimate of how many it shows."


def _observed_weeks(ex: Any) -> float | None:
    w = getattr(ex, "observed_weeks", None)
    return float(w) if w else None


def _per_day(v: float) -> str:
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
