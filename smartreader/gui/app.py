"""Application set-up: the ``QApplication``, theme, and the window's lifetime.

``run(data_dir, demo=...)`` opens the store and the updater, shows the main window
and runs the event loop. ``AppController`` owns what one window needs (store,
updater, prefs, optional demo session) so that "Try the demo" on the welcome
screen can swap the empty window for a demo one, and everything is closed in
order at the end: window (which joins the scheduler thread), updater, store,
demo server and its temporary folder.
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from PySide6.QtCore import (
    QEventLoop,
    QLocale,
    QLockFile,
    QRect,
    QSize,
    QSocketNotifier,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette
from PySide6.QtNetwork import QLocalServer, QLocalSocket
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QProxyStyle,
    QStyle,
    QStyleFactory,
    QStyleOption,
    QStyleOptionViewItem,
    QTableView,
    QTreeView,
    QWidget,
)

from smartreader import __version__, resources
from smartreader.errors import ReadOnlyDataError, SmartReaderError, StorageError
from smartreader.gui.charts import contrast
from smartreader.gui.prefs import Prefs
from smartreader.gui.safetext import inform, message_box
from smartreader.gui.tray import app_icon
from smartreader.storage import backups, db_path, walguard
from smartreader.storage.store import ensure_folder, ensure_writable
from smartreader.text import date_time_text

log = logging.getLogger(__name__)
_T = TypeVar("_T")

_SYSTEM_STYLE: str | None = None
_SYSTEM_PALETTE: QPalette | None = None


def create_app(argv: list[str] | None = None) -> QApplication:
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("smartreader")
    app.setApplicationDisplayName("smartreader")
    app.setOrganizationName("smartreader")
    app.setApplicationVersion(__version__)
    # The .desktop file's id (packaging/linux): Wayland shells find the icon through it.
    app.setDesktopFileName(resources.APP_ID)
    app.setWindowIcon(window_icon())
    use_english_numbers()
    return app


def use_english_numbers() -> None:
    """Let Qt's widgets write numbers as the English text around them does.

    The UI is English only, but spin boxes follow the system locale: under German
    the priority weight showed "1,00" above "similarity 0.73". US English writes
    "1.00", and spin boxes leave out group separators, so "1500 requests/day" in
    the box matches the prose. Must run before any widget is made."""
    QLocale.setDefault(QLocale(QLocale.Language.English, QLocale.Country.UnitedStates))


def window_icon() -> QIcon:
    """The application icon from ``smartreader/resources`` (SVG and PNG sizes); the
    painted mark if the files are missing from a broken install or bundle."""
    icon = QIcon()
    try:
        for size, png in resources.icon_paths().items():
            icon.addFile(str(png), QSize(size, size))
        icon.addFile(str(resources.icon_path()))
    except FileNotFoundError:
        log.warning("application icon files missing; using the painted icon")
        return app_icon()
    return icon


def dark_palette() -> QPalette:
    p = QPalette()
    c = QPalette.ColorRole
    window, base, text = QColor(37, 38, 41), QColor(28, 29, 31), QColor(222, 224, 227)
    for role, color in (
        (c.Window, window),
        (c.WindowText, text),
        (c.Base, base),
        (c.AlternateBase, QColor(44, 45, 49)),
        (c.ToolTipBase, QColor(50, 51, 55)),
        (c.ToolTipText, text),
        (c.Text, text),
        (c.Button, QColor(48, 49, 53)),
        (c.ButtonText, text),
        (c.BrightText, QColor(255, 90, 90)),
        (c.Link, QColor(125, 178, 255)),
        # white text on it reaches 4.5:1 (#3c78d8 gave 4.3:1)
        (c.Highlight, QColor(50, 110, 210)),
        (c.HighlightedText, QColor(255, 255, 255)),
        (c.PlaceholderText, QColor(146, 149, 155)),
        (c.Mid, QColor(70, 72, 77)),
        (c.Dark, QColor(20, 20, 22)),
        (c.Light, QColor(70, 72, 77)),
    ):
        p.setColor(role, color)
    for role in (c.Text, c.WindowText, c.ButtonText):
        p.setColor(QPalette.ColorGroup.Disabled, role, QColor(110, 112, 117))
    return p


def light_palette() -> QPalette:
    p = QPalette(QColor(246, 246, 247))
    c = QPalette.ColorRole
    p.setColor(c.Base, QColor(255, 255, 255))
    p.setColor(c.AlternateBase, QColor(246, 247, 249))
    p.setColor(c.Highlight, QColor(38, 110, 220))
    p.setColor(c.HighlightedText, QColor(255, 255, 255))
    p.setColor(c.Link, QColor(20, 95, 200))
    p.setColor(c.PlaceholderText, QColor(112, 116, 122))
    return p


def _system_is_dark() -> bool:
    hints = QGuiApplication.styleHints()
    try:
        from PySide6.QtCore import Qt

        return hints.colorScheme() == Qt.ColorScheme.Dark
    except AttributeError:  # pragma: no cover - Qt < 6.5
        return False


_ACTIVE, _INACTIVE = QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive
_Role = QPalette.ColorRole
_colour_cache: dict[tuple[str, int, int, int], QColor] = {}


def muted_selection(pal: QPalette) -> QColor:
    """The selection of an item view without the keyboard focus: the highlight's
    hue nearly greyed out, as mail readers do, so the focused pane's selection
    stands out. Its lightness keeps the highlighted text at 4.5:1 (so the text
    colour, and delegates painting in it, need not change) and the row at 3:1
    against the base, so the selected feed is still plain to see; of those, the
    one nearest the base. A palette with its own inactive highlight keeps it."""
    active = pal.color(_ACTIVE, _Role.Highlight)
    own = pal.color(_INACTIVE, _Role.Highlight)
    if own != active:
        return own
    text = pal.color(_INACTIVE, _Role.HighlightedText)
    base = pal.color(_INACTIVE, _Role.Base)
    key = ("muted", active.rgba(), text.rgba(), base.rgba())
    if key not in _colour_cache:
        hue = max(active.hslHueF(), 0.0)  # -1 for a grey highlight
        sat = min(active.hslSaturationF(), 0.15)
        shades = [QColor.fromHslF(hue, sat, i / 200) for i in range(201)]
        readable = [c for c in shades if contrast(c, text) >= 4.6] or shades
        seen = [c for c in readable if contrast(c, base) >= 3.1]
        if seen:
            best = min(seen, key=lambda c: contrast(c, base))
        else:  # an odd palette: the text first, then as far from the base as it allows
            best = max(readable, key=lambda c: (contrast(c, text) >= 4.6, contrast(c, base)))
        _colour_cache[key] = best
    return QColor(_colour_cache[key])


def focus_ring_colour(pal: QPalette) -> QColor:
    """The focused view's current-row outline: the palette's colour (or black or
    white) best set off against both the selection it surrounds and the base
    around it; WCAG asks 3:1 of a focus indicator against what it adjoins."""
    sel, base = pal.color(_ACTIVE, _Role.Highlight), pal.color(_ACTIVE, _Role.Base)
    key = ("ring", sel.rgba(), base.rgba(), pal.color(_ACTIVE, _Role.Text).rgba())
    if key not in _colour_cache:
        roles = (_Role.Text, _Role.HighlightedText, _Role.WindowText)
        candidates = [pal.color(_ACTIVE, r) for r in roles]
        candidates += [QColor(0, 0, 0), QColor(255, 255, 255)]
        _colour_cache[key] = max(candidates, key=lambda c: min(contrast(c, sel), contrast(c, base)))
    return QColor(_colour_cache[key])


FOCUS_RING_WIDTH = 2


class _ReaderStyle(QProxyStyle):
    """Fusion, with check boxes whose edge can be seen: Fusion draws it in the
    window colour darkened, which on the dark window was 1.1:1 (an unchecked box
    all but invisible) and on the light one about 2:1; WCAG asks 3:1 of a
    control's edge. Redrawn in the palette's placeholder-text grey (≥ 4.5:1).

    And item views that show which one has the keyboard focus: Fusion drew the
    selection alike in the feed tree and the article list, focused or not, with
    only a faint tint (1.2:1) on the current cell. Qt already paints a view
    without focus with its option's State_Active cleared (the Inactive colour
    group); that selection is drawn here in a muted colour, and the focused
    view's current row gets a 2 px outline (``focus_ring_colour``)."""

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        PE = QStyle.PrimitiveElement
        if element in (PE.PE_PanelItemViewItem, PE.PE_PanelItemViewRow):
            option = _muted_if_unfocused(option, widget)
        elif (
            element == PE.PE_FrameFocusRect
            and isinstance(widget, QAbstractItemView)
            and option.state & QStyle.StateFlag.State_Item
        ):
            return  # the outline drawn after the item (drawControl) replaces the tint
        super().drawPrimitive(element, option, painter, widget)
        if element != PE.PE_IndicatorCheckBox:
            return
        enabled = bool(option.state & QStyle.StateFlag.State_Enabled)
        group = QPalette.ColorGroup.Normal if enabled else QPalette.ColorGroup.Disabled
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.setPen(option.palette.color(group, QPalette.ColorRole.PlaceholderText))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(option.rect.adjusted(0, 0, -1, -1))
        painter.restore()

    def drawControl(
        self,
        element: QStyle.ControlElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawControl(element, option, painter, widget)
        if element == QStyle.ControlElement.CE_ItemViewItem and isinstance(
            widget, QAbstractItemView
        ):
            _draw_focus_ring(option, painter, widget)


def _muted_if_unfocused(option: QStyleOption, widget: QWidget | None) -> QStyleOption:
    """``option`` with the muted selection colour when it is a selected item of a
    view that lacks the focus (or whose window is not the active one)."""
    state, flag = option.state, QStyle.StateFlag
    if (
        not isinstance(widget, QAbstractItemView)
        or not isinstance(option, QStyleOptionViewItem)
        or not state & flag.State_Selected
        or not state & flag.State_Enabled
        or state & flag.State_Active
    ):
        return option
    muted = QStyleOptionViewItem(option)
    pal = QPalette(option.palette)
    colour = muted_selection(pal)
    for group in (_ACTIVE, _INACTIVE):
        pal.setColor(group, _Role.Highlight, colour)
    muted.palette = pal
    return muted


def _columns(view: QAbstractItemView) -> QHeaderView | None:
    if isinstance(view, QTreeView):
        return view.header()
    if isinstance(view, QTableView):
        return view.horizontalHeader()
    return None


def _draw_focus_ring(option: QStyleOption, painter: QPainter, view: QAbstractItemView) -> None:
    """The outline of the focused view's current row (current item, if the view
    selects items): each cell draws its own part, clipped to itself, so the cells
    painted after it (a table paints cell by cell) cannot cover the outline."""
    if not isinstance(option, QStyleOptionViewItem) or not view.hasFocus():
        return
    index, current = option.index, view.currentIndex()
    if not index.isValid() or not current.isValid():
        return
    header = _columns(view)
    rows = view.selectionBehavior() == QAbstractItemView.SelectionBehavior.SelectRows
    if rows and header is not None:
        if index.row() != current.row() or index.parent() != current.parent():
            return
        shown = [
            header.logicalIndex(v)
            for v in range(header.count())
            if not header.isSectionHidden(header.logicalIndex(v))
        ]
        if not shown:
            return
        left = min(header.sectionViewportPosition(c) for c in shown)
        right = max(header.sectionViewportPosition(c) + header.sectionSize(c) for c in shown)
        ring = QRect(left, option.rect.top(), right - left, option.rect.height())
        first = index.column() == min(shown, key=header.visualIndex)
    elif index == current:
        ring, first = view.visualRect(current), False
    else:
        return
    ring = ring.intersected(view.viewport().rect())
    clip = QRect(option.rect)
    if first:  # a tree's first column: its branch area is painted before the item
        clip.setLeft(min(clip.left(), ring.left()))
    w = FOCUS_RING_WIDTH
    colour = focus_ring_colour(option.palette)
    painter.save()
    painter.setClipRect(clip, Qt.ClipOperation.IntersectClip)
    for part in (
        QRect(ring.left(), ring.top(), ring.width(), w),
        QRect(ring.left(), ring.bottom() - w + 1, ring.width(), w),
        QRect(ring.left(), ring.top(), w, ring.height()),
        QRect(ring.right() - w + 1, ring.top(), w, ring.height()),
    ):
        painter.fillRect(part, colour)
    painter.restore()


def apply_theme(theme: str) -> None:
    """ "light", "dark" or "system" (follows the desktop, dark included)."""
    global _SYSTEM_STYLE, _SYSTEM_PALETTE
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return
    if _SYSTEM_STYLE is None:
        _SYSTEM_STYLE = app.style().name()
        _SYSTEM_PALETTE = QPalette(app.palette())
    if theme == "system" and _system_is_dark():
        theme = "dark"
    if theme in ("light", "dark"):
        app.setStyle(_ReaderStyle(QStyleFactory.create("Fusion")))
        app.setPalette(dark_palette() if theme == "dark" else light_palette())
    else:
        style = QStyleFactory.create(_SYSTEM_STYLE or "Fusion")
        if style is not None:
            app.setStyle(style)
        if _SYSTEM_PALETTE is not None:
            app.setPalette(_SYSTEM_PALETTE)


class StartupAborted(Exception):
    """The user chose to quit at a start-up problem (already explained to them)."""


class AlreadyRunning(StartupAborted):
    """smartreader already runs on this data folder and was asked to show its
    window (it may be hidden in the tray): this one has nothing more to do."""


def instance_name(folder: Path) -> str:
    """The local socket a running smartreader listens on for "show yourself",
    one per user and data folder."""
    try:
        key = str(folder.resolve())
    except OSError:
        key = str(folder)
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    return "smartreader-" + hashlib.sha256(f"{user}\0{key}".encode()).hexdigest()[:20]


def ask_running_to_show(folder: Path, timeout_ms: int = 1000) -> bool:
    """Tell the smartreader running on ``folder`` to show its window; False when
    none answers (an older version, or one that is stuck)."""
    sock = QLocalSocket()
    sock.connectToServer(instance_name(folder))
    if not sock.waitForConnected(timeout_ms):
        return False
    sock.write(b"show\n")
    ok = sock.waitForBytesWritten(timeout_ms)
    sock.disconnectFromServer()
    return ok


AskFn = Callable[[Any], str]  # StartupProblem -> "restore" | "fresh" | "retry" | "quit"
BACKUP_CHECK_MS = 60 * 60 * 1000  # look hourly whether the daily backup is due


def ask_startup_problem(problem: Any) -> str:
    """Explain a damaged, locked or too-new database and let the user choose."""
    # only the choices below: a standard OK beside Quit chose nothing ("quit")
    box = message_box(
        QMessageBox.Icon.Warning,
        "smartreader",
        problem.message,
        buttons=QMessageBox.StandardButton.NoButton,
    )
    box.setDetailedText(problem.detail)
    choices: dict[Any, str] = {}
    if problem.can_restore:
        when = date_time_text(dt.datetime.fromtimestamp(problem.backup.created))
        choices[box.addButton(f"Restore backup from {when}", QMessageBox.ButtonRole.AcceptRole)] = (
            "restore"
        )
    if problem.kind == "corrupt":
        choices[box.addButton("Start with an empty database", QMessageBox.ButtonRole.ResetRole)] = (
            "fresh"
        )
    if problem.can_retry:
        choices[box.addButton("Try again", QMessageBox.ButtonRole.AcceptRole)] = "retry"
    quit_button = box.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(quit_button)
    box.exec()
    return choices.get(box.clickedButton(), "quit")


def _tell_already_running(message: str) -> None:
    inform(None, "smartreader", message)


class AppController:
    """One window at a time, with the resources behind it."""

    def __init__(self, app: QApplication, *, ask: AskFn | None = None) -> None:
        self.app = app
        self._ask = ask or ask_startup_problem
        self._ask_already_running: Callable[[str], object] = (
            (lambda msg: None) if ask is not None else _tell_already_running
        )
        self._lock: QLockFile | None = None
        self._server: QLocalServer | None = None  # "show yourself" from a second start
        self._backup_timer = QTimer()
        self._backup_timer.setInterval(BACKUP_CHECK_MS)
        self._backup_timer.timeout.connect(self._backup_if_due)
        self.window: Any = None
        self._reader: Any = None  # the window's read connection, closed with the store
        self._store: Any = None
        self._updater: Any = None
        self._demo: Any = None
        self._stray_notice: QMessageBox | None = None  # shown when a stray -wal was set aside
        # the schema version a start upgraded from; the notes shown while starting
        self.upgraded_from: int | None = None
        self.notes_seen: list[str] = []

    def open(self, data_dir: str | os.PathLike[str] | None, *, demo: bool = False) -> Any:
        from smartreader.gui.mainwindow import MainWindow
        from smartreader.net.parsepool import ParsePool
        from smartreader.storage import Store, db_path
        from smartreader.storage import data_dir as default_dir
        from smartreader.updater import Updater

        stray: Path | None = None
        if demo:
            from smartreader.demo import DemoSession

            # (its four weeks of history take seconds: not a blank start)
            self._demo = self._with_note(
                "Preparing the demo…\n\nIts feeds' last weeks are being replayed "
                "through the scheduler, so that it opens with a history to read and "
                "learn from.",
                DemoSession,
            )
            folder = self._demo.data_dir
        else:
            folder = default_dir(data_dir)
            self._lock_data_dir(Path(folder))
            # before anything reads the file: a stray -wal would make it look damaged
            stray = walguard.before_open(db_path(folder), backups.backups_dir(db_path(folder)))
            self._check_database(db_path(folder))
            self._upgrade(db_path(folder))
        store = Store(db_path(folder))
        stray = stray or store.stray_wal
        try:
            updater = Updater(store, fetch_icons=not demo, parse_pool=ParsePool())
        except BaseException:
            store.close()
            raise
        self._store, self._updater = store, updater
        prefs = Prefs.in_dir(folder)
        apply_theme(str(prefs.get("theme")))
        win = MainWindow(store, updater, prefs=prefs, data_dir=folder, demo=demo)
        win.demoRequested.connect(self.switch_to_demo)
        # Quit from the tray closes a hidden window: that alone may not end app.exec().
        win.quitRequested.connect(self._window_quit)
        self.window = win
        self._reader = win.reader
        win.show()
        if stray is not None:
            box = message_box(
                QMessageBox.Icon.Information,
                "smartreader",
                "A write-ahead log file that did not belong to your database was found "
                "next to it (copied there by a sync tool or a partial restore?). It was "
                f"not applied, so your data is as you left it; it is kept in {stray}.",
                win,
            )
            box.open()  # not modal for the app: nothing needs an answer
            self._stray_notice = box
        # Everything built so far (modules, widgets, the updater's plans) lives as long
        # as the app: out of the collector's sight, so a full collection scans only what
        # came later (one over all of it stalled the GUI thread for ~40 ms). Here, not in
        # MainWindow, so tests that build many windows still collect them.
        gc.freeze()
        if not demo:
            self._backup_if_due()
            self._backup_timer.start()
        return win

    def _lock_data_dir(self, folder: Path) -> None:
        """One app per data folder: a second one would fight over the database and
        double the request budget. A stale lock (crashed app) is taken over."""
        if self._lock is not None:
            return
        ensure_folder(folder)
        # a lock file that cannot be made is not another smartreader
        ensure_writable(db_path(folder))
        lock = QLockFile(str(folder / "smartreader.lock"))
        lock.setStaleLockTime(0)  # stale = its process is gone, however recent
        if not lock.tryLock(100):
            # Only LockFailedError means another process holds it; the check above
            # cannot foresee every refusal (an ACL, a full disk).
            if lock.error() == QLockFile.LockError.PermissionError:
                raise ReadOnlyDataError(
                    f"the data folder {folder} is read-only (or cannot be written): "
                    "the lock file cannot be made there; make it writable, or choose "
                    "another with --data-dir or SMARTREADER_DATA_DIR",
                    f"the data folder {folder}",
                )
            if lock.error() == QLockFile.LockError.UnknownError:
                raise StorageError(
                    f"cannot make the lock file {folder / 'smartreader.lock'} (is the "
                    "disk full?); choose another data folder with --data-dir or "
                    "SMARTREADER_DATA_DIR"
                )
            if ask_running_to_show(folder):
                # its window may be hidden in the tray: starting again brings it back
                raise AlreadyRunning(f"smartreader already runs on {folder}: shown")
            info = lock.getLockInfo()  # (pid, host, app); pid 0 when unreadable
            who = f" (process {info[0]} on {info[1]})" if info and info[0] else ""
            msg = (
                f"smartreader is already running with this data folder{who}.\n\n"
                f"{folder}\n\nSwitch to that window, or start this one with --data-dir "
                "pointing elsewhere."
            )
            self._ask_already_running(msg)
            raise StartupAborted(msg)
        self._lock = lock
        self._listen(folder)

    def _listen(self, folder: Path) -> None:
        server = QLocalServer()
        name = instance_name(folder)
        QLocalServer.removeServer(name)  # we hold the lock: a socket left is a crash's
        if not server.listen(name):
            log.warning("a second start cannot bring this window up: %s", server.errorString())
            return
        server.newConnection.connect(self._show_requested)
        self._server = server

    def _show_requested(self) -> None:
        assert self._server is not None
        while (conn := self._server.nextPendingConnection()) is not None:
            conn.disconnected.connect(conn.deleteLater)
            conn.close()
            if self.window is not None:
                self.window.show_window()

    def _check_database(self, path: Path) -> None:
        """Before opening: a damaged, locked or too-new file is explained, never deleted."""
        from smartreader.storage import recovery

        while (problem := recovery.diagnose(path)) is not None:
            log.warning("start-up problem with %s: %s", path, problem.detail)
            choice = self._ask(problem)
            if choice == "restore" and problem.backup is not None:
                kept = recovery.restore_backup(path, problem.backup.path, now=time.time())
                log.warning(
                    "restored %s; the damaged file was kept as %s", problem.backup.path, kept
                )
            elif choice == "fresh" and problem.kind == "corrupt":
                kept = recovery.set_aside(path, now=time.time())
                log.warning("started empty; the damaged file was kept as %s", kept)
            elif choice == "retry" and problem.can_retry:
                continue
            else:
                raise StartupAborted(problem.message)

    def _upgrade(self, path: Path) -> None:
        """A database an older version wrote is upgraded before the window opens,
        with a note on screen: a large one takes a minute (schema v12 re-indexes
        every article), and a start that showed nothing meanwhile looked hung. A
        failure is raised here as opening would raise it."""
        from smartreader.storage.store import Store, upgrade_due

        old = upgrade_due(path)
        if old is None:
            return
        log.info("upgrading %s from schema %d", path, old)
        self._with_note(
            "Updating your data for this version of smartreader…\n\n"
            "With many articles this can take a minute. A copy of the database as it "
            f"was is kept in {backups.backups_dir(path)}.",
            lambda: Store(path).close(),  # its own connection, in its own thread
        )
        self.upgraded_from = old

    def _with_note(self, text: str, work: Callable[[], _T]) -> _T:
        """``work()`` in a thread while a note with a busy bar is on screen and the
        GUI thread keeps painting; what it raises is raised here. (Only work that
        leaves no SQLite connection open: a connection serves its own thread.)"""
        done: list[_T] = []
        failed: list[BaseException] = []

        def run() -> None:
            try:
                done.append(work())
            except BaseException as e:  # re-raised below, in the GUI thread
                failed.append(e)

        note = QProgressDialog("", "", 0, 0)  # no steps to count: a busy bar
        note.setWindowTitle("smartreader")
        label = QLabel(text)
        label.setWordWrap(True)  # a long data folder's path, on lines of its own
        label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        label.setTextFormat(Qt.TextFormat.PlainText)  # a path is no markup
        note.setLabel(label)
        note.setMinimumWidth(460)
        note.setCancelButton(None)  # (stopping half-way would gain nothing)
        note.setMinimumDuration(0)
        note.setWindowModality(Qt.WindowModality.ApplicationModal)
        note.show()
        worker = threading.Thread(target=run, name="smartreader-start", daemon=True)
        worker.start()
        while worker.is_alive():
            self.app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            if note.isVisible() and (not self.notes_seen or self.notes_seen[-1] != text):
                self.notes_seen.append(text)
            worker.join(0.05)
        note.close()
        note.deleteLater()
        if failed:
            raise failed[0]
        return done[0]

    def _backup_if_due(self) -> None:
        """Rolling daily backups (the newest few kept); a failure is logged, not fatal."""
        if self._store is None:
            return
        folder = backups.backups_dir(self._store.path)
        now = time.time()
        try:
            if backups.backup_due(folder, now):
                made = backups.make_backup(self._store, now=now)
                log.info("backup written: %s", made)
        except (StorageError, OSError) as e:
            log.warning("automatic backup failed: %s", e)

    _replacing = False  # the window closes to be replaced or released, not to quit

    def _window_quit(self) -> None:
        if not self._replacing:
            self.app.quit()

    def switch_to_demo(self) -> None:
        old = self.window
        self.app.setQuitOnLastWindowClosed(False)
        self._replacing = True
        try:
            if old is not None:
                old.quit_app()
                old.deleteLater()
            self.release()
            self.open(None, demo=True)
        finally:
            self._replacing = False
            self.app.setQuitOnLastWindowClosed(True)

    def release(self) -> None:
        """Close everything behind the current window (after it was closed)."""
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._updater is not None:
            self._updater.close()
            self._updater = None
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._demo is not None:
            self._demo.close()
            self._demo = None

    def close(self) -> None:
        self._backup_timer.stop()
        if self.window is not None:
            self._replacing = True
            self.window.quit_app()
            self.window = None
        self.release()
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._lock is not None:
            self._lock.unlock()
            self._lock = None


def run(data_dir: str | os.PathLike[str] | None = None, *, demo: bool = False) -> int:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    app = create_app()
    ctl = AppController(app)
    try:
        ctl.open(data_dir, demo=demo)
    except AlreadyRunning:
        ctl.close()
        return 0
    except StartupAborted:
        ctl.close()
        return 1
    except SmartReaderError as e:  # says what is wrong; a traceback adds nothing
        log.error("cannot open smartreader: %s", e)
        message_box(
            QMessageBox.Icon.Critical, "smartreader", f"smartreader cannot start:\n\n{e}"
        ).exec()
        ctl.close()
        return 1
    except Exception as e:
        log.exception("cannot open smartreader")
        message_box(
            QMessageBox.Icon.Critical, "smartreader", f"smartreader cannot start:\n\n{e}"
        ).exec()
        ctl.close()
        return 1
    restore = _end_on_signals(app, ctl)
    try:
        return int(app.exec())
    finally:
        restore()
        ctl.close()


def _end_on_signals(app: QApplication, ctl: AppController) -> Callable[[], None]:
    """Ctrl+C in the terminal (SIGINT) and SIGTERM (``kill``, logout, a service
    manager) end smartreader as File ▸ Quit does, so the window state is saved,
    the scheduler thread joined, the parse workers and the demo's temporary folder
    cleaned up. Python runs a signal handler only when the interpreter gets
    control, which Qt's C++ event loop does not give it: the wake-up fd makes the
    loop notice at once (no polling timer). Returns what puts things back."""
    ours = [signal.SIGINT, signal.SIGTERM]
    try:
        rsock, wsock = socket.socketpair()
        rsock.setblocking(False)
        wsock.setblocking(False)
        old_fd = signal.set_wakeup_fd(wsock.fileno())
    except (OSError, ValueError):  # not the main thread, or no sockets: leave as is
        return lambda: None
    notifier = QSocketNotifier(rsock.fileno(), QSocketNotifier.Type.Read)

    def drain() -> None:  # the handler itself has run by now (or runs next)
        try:
            while rsock.recv(64):
                pass
        except OSError:
            pass

    def end(signum: int, _frame: object) -> None:
        log.info("%s received: quitting", signal.Signals(signum).name)
        if ctl.window is not None:
            ctl.window.quit_app()
        app.quit()  # also ends a modal dialog's loop; quit_app may have been refused

    notifier.activated.connect(drain)
    old = {s: signal.signal(s, end) for s in ours}

    def restore() -> None:
        notifier.setEnabled(False)
        for s, h in old.items():
            signal.signal(s, h)
        signal.set_wakeup_fd(old_fd)
        rsock.close()
        wsock.close()

    return restore


__all__ = ["AppController", "Path", "apply_theme", "create_app", "run", "window_icon"]
