"""The Settings dialog: request budget with live delay feedback, and app preferences.

Moving the budget shows at once what it buys: the expected mean delay across your
feeds with smart polling, next to what a fixed interval would give for the same
number of requests (``updater.estimate_delay_for_budget``, a cheap in-memory
computation), and a small delay-vs-budget curve.

Scheduling settings, and how long articles are kept, live in SQLite
(``budget_per_day``, ``min_interval``, ``max_interval``, ``keep_read_days``,
``keep_unread_days``); UI preferences (notifications, tray icon, theme) go to
``prefs`` when given (a ``QSettings``, a mapping, or any object with
``get``/``set``), else to the store under ``ui.*`` keys. On accept the dialog saves
only the values changed in it since it opened (one it merely showed may have been
changed elsewhere meanwhile) and emits what changed. Nothing is applied to the
running scheduler from here: the main window forwards those signals to the
scheduler thread.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSettings, QSize, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices, QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QStyle,
    QSystemTrayIcon,
    QVBoxLayout,
    QWidget,
)

from smartreader.content_aware import SETTING as CONTENT_AWARE
from smartreader.core.scheduler import fetch_ceiling, requests_per_24h
from smartreader.gui.charts import DelayBudgetChart, humanize_duration
from smartreader.gui.safetext import ask_to_delete
from smartreader.storage.store import COMPACT_STOPPED
from smartreader.text import NBSP, count_of, local_day_time
from smartreader.updater import (
    BUDGET_RANGE,
    DEFAULT_BUDGET_PER_DAY,
    DEFAULT_KEEP_READ_DAYS,
    DEFAULT_KEEP_UNREAD_DAYS,
    DEFAULT_MAX_INTERVAL,
    DEFAULT_MIN_INTERVAL,
    KEEP_READ_DAYS,
    KEEP_UNREAD_DAYS,
    MIN_INTERVAL_RANGE,
    intervals_of,
    keep_days_of,
)

log = logging.getLogger(__name__)

# one source for the defaults and ranges: what the updater accepts and falls back to
DEFAULT_BUDGET = DEFAULT_BUDGET_PER_DAY
BUDGET_MIN, BUDGET_MAX = (int(b) for b in BUDGET_RANGE)
MIN_INTERVAL_MIN, MIN_INTERVAL_MAX = (int(s // 60) for s in MIN_INTERVAL_RANGE)  # minutes
# the longest a feed goes unchecked (seconds): a week lets quiet feeds wait when
# the budget is small; an hour checks everything often
MAX_INTERVAL_CHOICES = (
    (3_600.0, "1 hour"),
    (3 * 3_600.0, "3 hours"),
    (6 * 3_600.0, "6 hours"),
    (12 * 3_600.0, "12 hours"),
    (86_400.0, "1 day"),
    (2 * 86_400.0, "2 days"),
    (3 * 86_400.0, "3 days"),
    (7 * 86_400.0, "1 week"),
)
THEMES = (("system", "Same as the system"), ("light", "Light"), ("dark", "Dark"))


def interval_text(seconds: float) -> str:
    """An interval as the choices name it ("1 day", "6 hours"), else in short."""
    return dict(MAX_INTERVAL_CHOICES).get(float(seconds)) or humanize_duration(seconds)


def max_interval_combo(seconds: float | None, *, settings: float | None = None) -> QComboBox:
    """The maximum interval's choices, ``seconds`` chosen; a value not among them
    (stored by hand, by another version, from a file) is shown as is, in order.
    ``settings``: first, an "As in Settings" item (data None, chosen when
    ``seconds`` is None) for a feed that follows Settings' value."""
    combo = QComboBox()
    if settings is not None:
        combo.addItem(f"As in Settings ({interval_text(settings)})", None)
    for s, label in MAX_INTERVAL_CHOICES:
        combo.addItem(label, s)
    if seconds is None:
        combo.setCurrentIndex(0)
        return combo
    i = combo.findData(float(seconds))
    if i < 0:
        i = combo.count() - len(MAX_INTERVAL_CHOICES)
        i += sum(1 for s, _ in MAX_INTERVAL_CHOICES if s < seconds)
        combo.insertItem(i, interval_text(seconds), float(seconds))
    combo.setCurrentIndex(i)
    return combo


CURVE_POINTS = 20
# how long articles are kept (days; 0 = always)
KEEP_CHOICES = (
    (30, "1 month"),
    (90, "3 months"),
    (180, "6 months"),
    (365, "1 year"),
    (0, "Always"),
)
# below this, compacting is not worth rewriting the database (SQLite reuses free pages)
COMPACT_MIN_FREE = 1_000_000

# Slider positions map to budgets on a log scale: fine steps at 20/day, coarse at 20000.
_SLIDER_STEPS = 1000


def _slider_to_budget(pos: int) -> int:
    lo, hi = math.log10(BUDGET_MIN), math.log10(BUDGET_MAX)
    return round(10 ** (lo + (hi - lo) * pos / _SLIDER_STEPS))


def _budget_to_slider(budget: float) -> int:
    lo, hi = math.log10(BUDGET_MIN), math.log10(BUDGET_MAX)
    b = min(max(budget, BUDGET_MIN), BUDGET_MAX)
    return round((math.log10(b) - lo) / (hi - lo) * _SLIDER_STEPS)


def _enforced(budget: float) -> int:
    """The whole requests a budget allows in 24 h (the scheduler's cap)."""
    return min(max(requests_per_24h(budget), BUDGET_MIN), BUDGET_MAX)


def curve_budgets(center: float, n: int = CURVE_POINTS) -> list[float]:
    """``n`` log-spaced budgets from center/10 to center×10 (clamped to the allowed range)."""
    lo = math.log10(max(BUDGET_MIN, center / 10))
    hi = math.log10(min(BUDGET_MAX, center * 10))
    if hi - lo < 1:
        hi = min(math.log10(BUDGET_MAX), lo + 1)
    return [10 ** (lo + (hi - lo) * i / (n - 1)) for i in range(n)]


def open_size(dialog: QDialog, width: int) -> None:
    """Give ``dialog`` its first size: ``width`` px or what its layout asks for,
    whichever is wider, within the screen it opens on, and never under the
    layout's minimum. (A ``setMinimumWidth`` replaced that minimum: at 16 pt the
    labels were cut; and Qt's own first size is at most 2/3 of the screen's width.)"""
    lay = dialog.layout()
    lay.activate()
    minimum, hint = lay.totalMinimumSize(), lay.totalSizeHint()
    parent = dialog.parentWidget()
    top = parent.window() if parent is not None else dialog
    screen = top.screen()
    room = screen.availableGeometry().size() if screen is not None else hint
    if parent is not None:  # less the window frame, as the parent's is
        room -= top.frameGeometry().size() - top.size()
    w = max(minimum.width(), min(max(width, hint.width()), room.width()))
    h = lay.totalHeightForWidth(w) if lay.hasHeightForWidth() else hint.height()
    dialog.resize(w, max(minimum.height(), min(h, room.height())))


def _nowrap(rich: str) -> str:
    """``rich`` (a number with its unit: "39 % shorter", "2 h 10 min") kept on one
    line of a word-wrapped rich-text label: "39" ended one line, "% shorter" began
    the next. A span, so the label's text keeps its ordinary spaces."""
    return f"<span style='white-space:nowrap'>{rich}</span>"


class _Prefs:
    """Reads/writes UI preferences wherever the caller keeps them."""

    def __init__(self, store: Any, prefs: Any | None) -> None:
        self.store = store
        self.prefs = prefs

    def get(self, key: str, default: Any) -> Any:
        p = self.prefs
        try:
            if p is None:
                value = self.store.get_setting("ui." + key, default)
            elif isinstance(p, QSettings):
                value = p.value(key, default)
            elif isinstance(p, dict):
                value = p.get(key, default)
            else:
                value = p.get(key, default)
        except Exception:
            log.exception("reading preference %s failed", key)
            return default
        if isinstance(default, bool) and isinstance(value, str):
            return value.lower() in ("1", "true", "yes", "on")
        return default if value is None else value

    def set(self, key: str, value: Any) -> None:
        p = self.prefs
        if p is None:
            self.store.set_setting("ui." + key, value)
        elif isinstance(p, QSettings):
            p.setValue(key, value)
        elif isinstance(p, dict):
            p[key] = value
        else:
            p.set(key, value)


class _Pages(QScrollArea):
    """Settings' groups, scrolled when the screen is shorter than they are: at the
    application's 9 pt they need ~700 px, and a 1080p laptop at 150 % leaves about
    650 (OK and Cancel were off the screen). Its size hint and height for a width
    are the whole content's, so the dialog opens at full size where it fits; only
    its own minimum is short."""

    def __init__(self, content: QWidget) -> None:
        super().__init__()
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # The first control takes the focus, not this nameless frame around them
        # (it still scrolls to whichever control has the focus).
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def _bar(self) -> int:
        # kept free for the vertical bar, so showing it never squeezes the content
        return self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)

    def _content_height(self, width: int) -> int:
        lay = self.widget().layout()
        if lay.hasHeightForWidth():
            return int(lay.totalHeightForWidth(width))
        return int(lay.totalSizeHint().height())

    def minimumSizeHint(self) -> QSize:
        content = self.widget().minimumSizeHint()
        short = 8 * self.fontMetrics().height()
        return QSize(content.width() + self._bar(), min(content.height(), short))

    def sizeHint(self) -> QSize:
        w = self.widget().sizeHint().width()
        return QSize(w + self._bar(), self._content_height(w))

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._content_height(width - self._bar())


class SettingsDialog(QDialog):
    """Request budget, minimum interval, notifications, tray icon, theme, data folder,
    how long articles are kept.

    Signals (emitted on accept, only for values that changed):
        budgetChanged(float): requests per day.
        minIntervalChanged(float): seconds.
        themeChanged(str): "system", "light" or "dark".
        notificationsChanged(bool)
        trayIconChanged(bool)
        contentAwareChanged(bool): "prefer new content" (store setting ``content_aware``).
        keepChanged(): how long articles are kept changed (saved already): purge now.

    Also, at once: compactRequested(): "Compact" was pressed; ``compact_done`` with
    the worker's ``compactFinished`` result says how it went.
    """

    budgetChanged = Signal(float)
    minIntervalChanged = Signal(float)
    maxIntervalChanged = Signal(float)
    themeChanged = Signal(str)
    notificationsChanged = Signal(bool)
    trayIconChanged = Signal(bool)
    contentAwareChanged = Signal(bool)
    keepChanged = Signal()
    compactRequested = Signal()

    def __init__(
        self,
        store: Any,
        updater: Any,
        prefs: Any | None = None,
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], Any] = QDesktopServices.openUrl,
        # asked only before deleting articles: No is its default
        confirm: Callable[[QWidget | None, str, str], bool] = ask_to_delete,
        now: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self._confirm = confirm
        self._now = now
        self.store = store
        self.updater = updater
        self._prefs = _Prefs(store, prefs)
        self._open_url = open_url

        self._initial_budget = store.get_number("budget_per_day", DEFAULT_BUDGET, *BUDGET_RANGE)
        # A fractional budget saved by an older version is enforced as whole
        # requests (its floor): shown as that, and not rewritten unless changed.
        self._initial_budget_shown = _enforced(self._initial_budget)
        self._feed_min_intervals = self._read_feed_min_intervals()
        self._initial_min_interval, self._initial_max_interval = intervals_of(store)
        self._initial_notify = bool(self._prefs.get("notifications", True))
        self._initial_tray = bool(self._prefs.get("tray_icon", True))
        self._initial_close_to_tray = bool(self._prefs.get("close_to_tray", True))
        self._initial_theme = str(self._prefs.get("theme", "system"))
        self._initial_content = bool(store.get_setting(CONTENT_AWARE, False))
        self._initial_keep = keep_days_of(store)
        self._curve_center: float | None = None

        content = QWidget()
        groups = QVBoxLayout(content)
        groups.setContentsMargins(0, 0, 0, 0)
        groups.setSpacing(10)
        groups.addWidget(self._build_polling())
        groups.addWidget(self._build_app())
        groups.addWidget(self._build_data())
        self._content = content
        content.installEventFilter(self)
        self.pages = _Pages(content)
        root = QVBoxLayout(self)
        root.setSpacing(10)
        root.addWidget(self.pages)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults).clicked.connect(
            self._restore_defaults
        )
        self.buttons = buttons
        root.addWidget(buttons)

        # Estimates follow the slider at most every 60 ms (each is a short computation).
        self._estimate_timer = QTimer(self)
        self._estimate_timer.setSingleShot(True)
        self._estimate_timer.setInterval(60)
        self._estimate_timer.timeout.connect(self._update_estimate)
        self._set_budget_widgets(self._initial_budget)
        self._update_estimate()
        open_size(self, 560)

    # -- layout ------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._content and event.type() == QEvent.Type.Resize:
            self._fit_minimum()
        return super().eventFilter(watched, event)

    def _fit_minimum(self) -> None:
        """The layout's own minimum counts each wrapped label as one line: the groups
        could shrink until the chart lay over the rows below it. Their true minimum
        at this width: everything at its height for the width, the chart at its own
        minimum (the chart is what gives way first; below that the groups scroll)."""
        lay = self._content.layout()
        if lay is None or not lay.hasHeightForWidth():
            return
        slack = max(0, self.curve.sizeHint().height() - self.curve.minimumHeight())
        need = lay.totalHeightForWidth(self._content.width()) - slack
        if need != self._content.minimumHeight():
            self._content.setMinimumHeight(need)

    def _build_polling(self) -> QGroupBox:
        box = QGroupBox("Smart polling")
        lay = QVBoxLayout(box)
        intro = QLabel(
            "How many requests smartreader may send per day, over all your feeds. "
            "They go where posts are expected, so a feed that posts every weekday "
            "morning is checked just after it does."
        )
        intro.setWordWrap(True)
        intro.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(intro)

        row = QHBoxLayout()
        self.budget_slider = QSlider(Qt.Orientation.Horizontal)
        self.budget_slider.setRange(0, _SLIDER_STEPS)
        self.budget_slider.setToolTip("Requests per day (logarithmic)")
        self.budget_spin = QSpinBox()
        self.budget_spin.setRange(BUDGET_MIN, BUDGET_MAX)
        self.budget_spin.setSuffix(" requests/day")
        self.budget_spin.setAccelerated(True)
        self.budget_spin.setKeyboardTracking(False)
        # Both are "Request budget" to a screen reader (the group's title was
        # their name); Alt+B goes to the slider.
        budget_label = QLabel("Request &budget:")
        budget_label.setBuddy(self.budget_slider)
        self.budget_slider.setAccessibleName("Request budget")
        self.budget_spin.setAccessibleName("Request budget")
        row.addWidget(budget_label)
        row.addWidget(self.budget_slider, 1)
        row.addWidget(self.budget_spin)
        lay.addLayout(row)
        self.budget_slider.valueChanged.connect(self._slider_moved)
        self.budget_spin.valueChanged.connect(self._spin_changed)

        self.estimate = QLabel()
        self.estimate.setWordWrap(True)
        self.estimate.setTextFormat(Qt.TextFormat.RichText)
        self.estimate.setMinimumHeight(self.fontMetrics().height() * 2 + 4)
        lay.addWidget(self.estimate)

        self.curve = DelayBudgetChart()
        self.curve.setMinimumHeight(150)
        self.curve.setAccessibleName("Mean delay against the request budget")
        lay.addWidget(self.curve)

        form = QFormLayout()
        self.min_interval = QSpinBox()
        self.min_interval.setRange(MIN_INTERVAL_MIN, MIN_INTERVAL_MAX)
        self.min_interval.setSuffix(" min")
        self.min_interval.setValue(max(1, round(self._initial_min_interval / 60)))
        # what the box shows (whole minutes): a stored 7.5 min is written back only
        # when the user changes the box, not rounded to 8 by a mere OK
        self._initial_min_interval_shown = self.min_interval_s()
        self.min_interval.setToolTip("No feed is fetched more often than this, however busy it is.")
        form.addRow("&Minimum interval per feed:", self.min_interval)
        self.max_interval = max_interval_combo(self._initial_max_interval)
        self.max_interval.setToolTip(
            "Every feed is checked at least this often, however quiet it is (unless "
            "its server asks to wait longer). Longer lets quiet feeds wait and leaves "
            "more requests for busy ones."
        )
        form.addRow("Ma&ximum interval per feed:", self.max_interval)
        self._sync_interval_limits(follow=False)
        # the estimate and the curve are for the intervals shown, not the saved ones
        self.min_interval.valueChanged.connect(self._min_interval_changed)
        self.max_interval.currentIndexChanged.connect(self._max_interval_changed)
        self.content_aware = QCheckBox("&Prefer new content")
        self.content_aware.setChecked(self._initial_content)
        self.content_aware.setToolTip(
            "Spend requests on feeds that say something new: items that repeat what a "
            "feed said recently (dependency bumps, re-posted headlines) count less "
            "when smartreader learns how often to check it."
        )
        form.addRow("", self.content_aware)
        lay.addLayout(form)
        return box

    def _build_app(self) -> QGroupBox:
        box = QGroupBox("Application")
        form = QFormLayout(box)
        self.notifications = QCheckBox("&Notify me of new items and missed-item alerts")
        self.notifications.setChecked(self._initial_notify)
        self.tray = QCheckBox("&Show an icon with the unread count in the system tray")
        self.tray.setChecked(self._initial_tray)
        # Closing the window would stop the scheduler: with an icon to come back
        # by, it can go on checking feeds in the background.
        self.close_to_tray = QCheckBox("&Keep checking feeds when the window is closed")
        self.close_to_tray.setToolTip(
            "The icon in the system tray brings the window back; File ▸ Quit (Ctrl+Q) "
            "or the icon's Quit stops smartreader."
        )
        self.close_to_tray.setChecked(self._initial_close_to_tray)
        self._tray_exists = QSystemTrayIcon.isSystemTrayAvailable()
        if not self._tray_exists:
            self.close_to_tray.setToolTip("This desktop has no system tray to keep it in.")
        self.tray.toggled.connect(self._update_close_to_tray)
        self._update_close_to_tray()
        self.theme = QComboBox()
        for key, label in THEMES:
            self.theme.addItem(label, key)
        i = self.theme.findData(self._initial_theme)
        self.theme.setCurrentIndex(max(0, i))
        form.addRow(self.notifications)
        form.addRow(self.tray)
        form.addRow(self.close_to_tray)
        form.addRow("&Theme:", self.theme)
        return box

    def _build_data(self) -> QGroupBox:
        box = QGroupBox("Data")
        form = QFormLayout(box)
        row = QHBoxLayout()
        self.data_folder = QLineEdit(str(self.data_dir()))
        self.data_folder.setReadOnly(True)
        self.data_folder.setToolTip("Where your feeds and articles are stored")
        self.open_folder = QPushButton("Open folder")
        self.open_folder.clicked.connect(self._open_folder)
        row.addWidget(self.data_folder, 1)
        row.addWidget(self.open_folder)
        # a row of two: the form gives the label no buddy, and the field was
        # called "Data" (the group's title) by screen readers
        folder_label = QLabel("&Folder:")
        folder_label.setBuddy(self.data_folder)
        self.data_folder.setAccessibleName("Data folder")
        form.addRow(folder_label, row)
        # one row for both: the dialog must still fit a 768-pixel-high screen
        self.keep_read = self._keep_combo(self._initial_keep[0])
        self.keep_unread = self._keep_combo(self._initial_keep[1])
        keep = QHBoxLayout()
        # (no Alt+R: a style may give "Restore Defaults" its R)
        for text, combo, name in (
            ("r&ead ones", self.keep_read, "Keep read articles"),
            ("&unread ones", self.keep_unread, "Keep unread articles"),
        ):
            label = QLabel(text)
            label.setBuddy(combo)
            combo.setAccessibleName(name)  # not just "read ones"
            keep.addWidget(label)
            keep.addWidget(combo, 1)
        form.addRow("Keep articles:", keep)
        self.data_info = QLabel()
        self.data_info.setWordWrap(True)
        self.data_info.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.compact = QPushButton("Compact")
        self.compact.setToolTip(
            "Give the space of deleted articles back to the disk. The database is "
            "rewritten: with hundreds of MB this takes a few seconds."
        )
        self.compact.clicked.connect(self._compact_clicked)
        info = QHBoxLayout()
        info.addWidget(self.data_info, 1)
        info.addWidget(self.compact, 0, Qt.AlignmentFlag.AlignTop)
        form.addRow("", info)
        self._show_data_info()
        return box

    def _compact_clicked(self) -> None:
        self.compact.setEnabled(False)
        self.compact.setText("Compacting…")
        self.compactRequested.emit()

    @Slot(object)
    def compact_done(self, result: dict[str, Any]) -> None:
        """The worker's answer to ``compactRequested``."""
        self.compact.setText("Compact")
        self._show_data_info()
        if result.get("error") == COMPACT_STOPPED:
            self.data_info.setText(f"Compacting stopped: nothing changed. {self.data_info.text()}")
            self.compact.setEnabled(True)
        elif result.get("error"):
            self.data_info.setText(f"Compacting failed: {result['error']}")
            self.compact.setEnabled(True)

    def _show_data_info(self) -> None:
        text, free = self._data_info()
        self.data_info.setText(text)
        self.compact.setVisible(free >= COMPACT_MIN_FREE)
        self.compact.setEnabled(free >= COMPACT_MIN_FREE)

    def max_interval_s(self) -> float:
        return float(self.max_interval.currentData())

    def _sync_interval_limits(self, *, follow: bool = True) -> None:
        """A maximum below the minimum interval cannot be chosen (the minimum would
        win); a minimum raised past the maximum takes the maximum up with it
        (``follow``; not on opening: the dialog saves only what the user changed)."""
        lo = self.min_interval_s()
        combo = self.max_interval
        model = combo.model()
        for i in range(combo.count()):
            ok = float(combo.itemData(i)) >= lo or i == combo.currentIndex()
            model.item(i).setEnabled(ok)  # type: ignore[attr-defined]
        if follow and self.max_interval_s() < lo:
            for i in range(combo.count()):
                if float(combo.itemData(i)) >= lo:
                    combo.setCurrentIndex(i)
                    break

    @staticmethod
    def _keep_combo(days: float) -> QComboBox:
        combo = QComboBox()
        for d, label in KEEP_CHOICES:
            combo.addItem(label, float(d))
        i = combo.findData(float(days))
        if i < 0:  # set elsewhere (`smartreader cleanup --read-days 45`): shown as is
            combo.insertItem(len(KEEP_CHOICES) - 1, f"{days:g} days", float(days))
            i = len(KEEP_CHOICES) - 1
        combo.setCurrentIndex(i)
        combo.setToolTip("Older articles are deleted once a day; starred ones are always kept")
        return combo

    def _data_info(self) -> tuple[str, int]:
        """The text under the limits, and the bytes compacting would free."""
        try:
            n = int(self.store.entry_count())
            size = int(self.store.used_bytes())
            on_disk = int(self.store.file_bytes())
        except Exception:
            log.exception("reading the database's size failed")
            return "Starred articles are always kept.", 0
        text = (
            f"Starred articles are always kept. Your database holds "
            f"{count_of(n, 'article')} in {size / 1e6:,.1f}{NBSP}MB."
        )
        free = on_disk - size
        if free >= COMPACT_MIN_FREE:
            text += (
                f" Its file takes {on_disk / 1e6:,.1f}{NBSP}MB: compacting gives about "
                f"{free / 1e6:,.1f}{NBSP}MB back to the disk."
            )
        return text, max(0, free)

    def keep_days(self) -> tuple[float, float]:
        return float(self.keep_read.currentData()), float(self.keep_unread.currentData())

    def data_dir(self) -> Path:
        path = getattr(self.store, "path", None)
        return Path(path).parent if path is not None else Path.cwd()

    # -- budget feedback --------------------------------------------------

    def budget(self) -> float:
        return float(self.budget_spin.value())

    def _read_feed_min_intervals(self) -> list[float | None]:
        """Each scheduled feed's own minimum interval (None: the default)."""
        try:
            feeds = self.store.feeds(with_state=False)
        except Exception:
            log.exception("reading the feeds for the budget warnings failed")
            return []
        return [f.min_interval for f in feeds if f.status == "active"]

    def usable_per_day(self) -> int:
        """The most requests a day the feeds can take: each at most once per its
        minimum interval (its own, else the one in the box; the scheduler's rule).
        A larger budget changes nothing."""
        default = self.min_interval_s()
        return sum(
            math.floor(fetch_ceiling(max(60.0, mi if mi else default)))
            for mi in self._feed_min_intervals
        )

    def min_interval_s(self) -> float:
        return float(self.min_interval.value() * 60)

    def _set_budget_widgets(self, budget: float) -> None:
        for w in (self.budget_slider, self.budget_spin):
            w.blockSignals(True)
        self.budget_spin.setValue(_enforced(budget))
        self.budget_slider.setValue(_budget_to_slider(self.budget_spin.value()))
        self._budget_suffix(self.budget_spin.value())
        for w in (self.budget_slider, self.budget_spin):
            w.blockSignals(False)

    def _budget_suffix(self, value: int) -> None:
        self.budget_spin.setSuffix(" request/day" if value == 1 else " requests/day")

    @Slot(int)
    def _min_interval_changed(self, _minutes: int) -> None:
        self._sync_interval_limits()
        self._curve_center = None  # every point of the curve changes
        self._estimate_timer.start()

    @Slot(int)
    def _max_interval_changed(self, _index: int) -> None:
        self._sync_interval_limits()
        self._curve_center = None
        self._estimate_timer.start()

    @Slot(int)
    def _slider_moved(self, pos: int) -> None:
        self.budget_spin.blockSignals(True)
        self.budget_spin.setValue(_slider_to_budget(pos))
        self._budget_suffix(self.budget_spin.value())
        self.budget_spin.blockSignals(False)
        self._estimate_timer.start()

    @Slot(int)
    def _spin_changed(self, value: int) -> None:
        self._budget_suffix(value)
        self.budget_slider.blockSignals(True)
        self.budget_slider.setValue(_budget_to_slider(value))
        self.budget_slider.blockSignals(False)
        self._estimate_timer.start()

    def _estimate(self, budget: float) -> tuple[float, float] | None:
        try:
            smart, fixed = self.updater.estimate_delay_for_budget(
                float(budget), self.min_interval_s(), self.max_interval_s()
            )
        except Exception:
            log.exception("estimating the delay for a budget of %s failed", budget)
            return None
        return float(smart), float(fixed)

    @Slot()
    def _update_estimate(self) -> None:
        b = self.budget()
        est = self._estimate(b)
        if est is None or not (math.isfinite(est[0]) and math.isfinite(est[1])):
            self.estimate.setText("<i>No estimate yet: subscribe to feeds first.</i>")
        else:
            smart, fixed = est
            gain = ""
            if fixed > 0 and smart < fixed:
                gain = f" — {_nowrap(f'<b>{100 * (1 - smart / fixed):.0f} % shorter</b>')}"
            usable = self.usable_per_day()
            # past what the feeds can take, the fixed interval is every feed at its
            # minimum: it spends only the usable requests, not the whole budget
            # request counts ungrouped, as the spin box shows them: "1,500" beside a
            # box showing "1500" reads as 1.5 to much of Europe
            same = "the same requests" if b <= usable else f"the {usable} usable requests"
            per_day = f"<b>{b:.0f}</b> {'request' if b == 1 else 'requests'}/day"
            self.estimate.setText(
                f"With {_nowrap(per_day)}, new items reach you after "
                f"{_nowrap(f'<b>{humanize_duration(smart)}</b>')} "
                "on average; checking every feed at a fixed interval with "
                f"{_nowrap(f'{same}: {humanize_duration(fixed)}')}{gain}."
                + self._budget_extremes_note(b, usable)
                + self._budget_used_note(b)
            )
        self._update_curve(b)
        self._describe_curve(b, est)

    def _describe_curve(self, budget: float, est: tuple[float, float] | None) -> None:
        """The chart in words, for screen readers: a drawing says nothing to them."""
        budgets, _smart, _fixed = self.curve.series()
        if est is None or len(budgets) < 2 or not all(map(math.isfinite, est)):
            text = self.curve.empty_text + "."
        else:
            text = (
                f"Expected mean delay from {budgets[0]:.0f} to {budgets[-1]:.0f} requests "
                "per day, with smart polling and with a fixed interval. At "
                f"{budget:.0f} requests per day: "
                f"{humanize_duration(est[0])} with smart polling, "
                f"{humanize_duration(est[1])} with a fixed interval."
            )
        self.curve.setAccessibleDescription(text)

    def _budget_extremes_note(self, budget: float, usable: int) -> str:
        """Warnings at either end: fewer requests than feeds (some go unchecked for
        days), or more than the feeds can take (the rest buys nothing)."""
        n = len(self._feed_min_intervals)
        b = int(budget)
        longest = self.max_interval_s()
        # every feed at least once per maximum interval (the scheduler's floor)
        need = math.ceil(n * 86_400.0 / longest - 1e-9)
        if longest != 86_400.0 and 0 < b < need:
            return (
                "<br>⚠ <b>Too few requests for the maximum interval</b>: checking "
                f"{count_of(n, 'feed', grouped=False)} at least every "
                f"{self.max_interval.currentText()} takes {need} requests/day; some will be "
                "checked less often."
            )
        if longest == 86_400.0 and 0 < b < n:
            return (
                "<br>⚠ <b>Fewer requests than feeds</b>: with "
                f"{count_of(b, 'request', grouped=False)}/day for "
                f"{count_of(n, 'feed', grouped=False)}, at least "
                f"{count_of(n - b, 'feed', grouped=False)} will be "
                "checked less than once a day."
            )
        if 0 < usable < b:
            every = humanize_duration(self.min_interval_s())
            if any(self._feed_min_intervals):
                every += " or its own minimum interval"
            return (
                f"<br>⚠ <b>Above about {usable}/day nothing changes</b> unless you lower "
                "the minimum interval: "
                f"{_nowrap(count_of(n, 'feed', grouped=False))}, each checked at most every "
                f"{every}."
            )
        return ""

    def _budget_used_note(self, budget: float) -> str:
        """A warning when the last 24 h already used this budget: nothing is
        checked until enough of those requests are a day old."""
        try:
            free = self.updater.request_free_at(float(budget))
        except Exception:
            log.exception("reading the requests of the last 24 h failed")
            return ""
        now = self._now()
        if free is None or free <= now + 60:
            return ""
        if math.isfinite(free):
            when = (
                f"for {_nowrap(humanize_duration(free - now))}, until {local_day_time(free, now)}"
            )
        else:
            when = "until you raise it again"
        return (
            f"<br><b>The last {_nowrap('24 hours')} already used {self.updater.requests_today()}"
            f" requests</b>: with this budget no feed is checked {when}."
        )

    def _update_curve(self, budget: float) -> None:
        c = self._curve_center
        if c is None or not (c / 6 <= budget <= c * 6):
            # (Re)compute ~20 points around the budget; cheap, and only when the
            # marker nears the edge of the drawn range.
            self._curve_center = budget
            pts = []
            for b in curve_budgets(budget):
                est = self._estimate(b)
                if est is not None:
                    pts.append((b, *est))
            self.curve.set_points(
                [p[0] for p in pts], [p[1] for p in pts], [p[2] for p in pts], budget
            )
        else:
            self.curve.set_current(budget)

    # -- actions ------------------------------------------------------------

    @Slot()
    def _open_folder(self) -> None:
        self._open_url(QUrl.fromLocalFile(str(self.data_dir())))

    def _update_close_to_tray(self) -> None:
        self.close_to_tray.setEnabled(self._tray_exists and self.tray.isChecked())

    @Slot()
    def _restore_defaults(self) -> None:
        self._set_budget_widgets(DEFAULT_BUDGET)
        self.min_interval.setValue(round(DEFAULT_MIN_INTERVAL / 60))
        self.max_interval.setCurrentIndex(self.max_interval.findData(DEFAULT_MAX_INTERVAL))
        self.notifications.setChecked(True)
        self.tray.setChecked(True)
        self.close_to_tray.setChecked(True)
        self.theme.setCurrentIndex(0)
        self.content_aware.setChecked(False)
        self.keep_read.setCurrentIndex(self.keep_read.findData(DEFAULT_KEEP_READ_DAYS))
        self.keep_unread.setCurrentIndex(self.keep_unread.findData(DEFAULT_KEEP_UNREAD_DAYS))
        self._update_estimate()

    def _deleting_confirmed(self, keep: tuple[float, float]) -> bool:
        """A shorter limit deletes articles at once: say how many, and ask."""
        try:
            n = int(self.store.count_purgeable(self._now(), read_days=keep[0], unread_days=keep[1]))
        except Exception:
            log.exception("counting the articles a new limit would delete failed")
            n = -1
        if n == 0:
            return True
        what = "some articles" if n < 0 else count_of(n, "article")
        return self._confirm(
            self,
            "Delete old articles?",
            f"With these limits, {what} will be deleted now. Starred articles are "
            "always kept. Delete them?",
        )

    def accept(self) -> None:
        keep = self.keep_days()
        if keep != self._initial_keep and not self._deleting_confirmed(keep):
            return  # the dialog stays open: the user may choose again
        budget = self.budget()
        min_interval = self.min_interval_s()
        max_interval = self.max_interval_s()
        theme = str(self.theme.currentData())
        notify = self.notifications.isChecked()
        tray = self.tray.isChecked()
        close_to_tray = self.close_to_tray.isChecked()
        content = self.content_aware.isChecked()
        try:
            if keep != self._initial_keep:
                self.store.set_setting(KEEP_READ_DAYS, keep[0])
                self.store.set_setting(KEEP_UNREAD_DAYS, keep[1])
            if content != self._initial_content:
                self.store.set_setting(CONTENT_AWARE, content)
            if budget != self._initial_budget_shown:
                self.store.set_setting("budget_per_day", budget)
            if min_interval != self._initial_min_interval_shown:
                self.store.set_setting("min_interval", min_interval)
            if max_interval != self._initial_max_interval:
                self.store.set_setting("max_interval", max_interval)
            # Only what was changed here: a value this dialog merely showed may have
            # been changed since it opened (another Settings, the tray's menu), and
            # writing it back would undo that choice behind the user's back.
            if notify != self._initial_notify:
                self._prefs.set("notifications", notify)
            if tray != self._initial_tray:
                self._prefs.set("tray_icon", tray)
            if close_to_tray != self._initial_close_to_tray:
                self._prefs.set("close_to_tray", close_to_tray)
            if theme != self._initial_theme:
                self._prefs.set("theme", theme)
        except Exception:
            log.exception("saving settings failed")
        super().accept()
        if budget != self._initial_budget_shown:
            self.budgetChanged.emit(budget)
        if min_interval != self._initial_min_interval_shown:
            self.minIntervalChanged.emit(min_interval)
        if max_interval != self._initial_max_interval:
            self.maxIntervalChanged.emit(max_interval)
        if theme != self._initial_theme:
            self.themeChanged.emit(theme)
        if notify != self._initial_notify:
            self.notificationsChanged.emit(notify)
        if tray != self._initial_tray:
            self.trayIconChanged.emit(tray)
        if content != self._initial_content:
            self.contentAwareChanged.emit(content)
        if keep != self._initial_keep:
            self.keepChanged.emit()
