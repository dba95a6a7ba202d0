"""The main window: feeds | articles | reader, with the scheduler running beside it.

Layout: the feed tree (smart folders, folders, feeds with unread counts and
error/missed badges) on the left; the article list (lazy model, bold when unread)
with a missed-item banner above it in the middle; on the right a tab widget with
the reader, the feed's activity (learned λ(t) vs observed, planned fetches, fetch
log) and the open alerts. The status bar shows the next planned fetch, requests
used in the last 24 h against the budget, and a progress bar during refreshes.

Keyboard (Google Reader style; single keys are ignored while typing in a text
field): j/k next/previous article (opens and marks read), n/p move without
opening, Shift+N/Shift+P next/previous feed, o/Enter open, v open in browser,
s star, m toggle read, Shift+A mark all read (Ctrl+Z undoes it), r refresh,
/ search, ? help; Del in the feed list unsubscribes (asking first), Alt+Enter
opens the feed's properties. Space and Enter are the reading keys only in the
feed list, the article list and the article text: on a button, a tab, a table or
a link they are the control's own (see ``MainWindow.event``).

Threads: every network call and scheduled write runs in ``SchedulerThread``; the
window reads the store (short indexed queries) and writes read/star flags.

Signals:
    demoRequested(): "Try the demo" was chosen on the welcome screen.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    QRectF,
    QSize,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QColor,
    QContextMenuEvent,
    QDesktopServices,
    QFont,
    QFontMetrics,
    QGuiApplication,
    QIcon,
    QKeyEvent,
    QKeySequence,
    QPainter,
    QPalette,
    QPen,
    QShortcut,
    QTextCursor,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtNetwork import QNetworkInformation
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QDialog,
    QFileDialog,
    QFrame,
    QHeaderView,
    QInputDialog,
    QLineEdit,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QSizePolicy,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QToolBar,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from smartreader.errors import SmartReaderError, UsageError
from smartreader.gui.activity import ActivityPanel
from smartreader.gui.alerts import (
    AlertsView,
    CheckLimit,
    FeedErrorBanner,
    MissedBanner,
    feed_check_limit,
    notify,
    site_url,
)
from smartreader.gui.article_view import ArticleView
from smartreader.gui.charts import elide, humanize_in
from smartreader.gui.dialogs import (
    AddFeedDialog,
    CompactingDialog,
    FeedPropertiesDialog,
    HelpOverlay,
)
from smartreader.gui.icons import ui_icon
from smartreader.gui.models import (
    COL_DATE,
    COL_FEED,
    COL_TITLE,
    ArticleListModel,
    FeedTreeModel,
    KeyRole,
    UnreadRole,
    tree_icon_side,
)
from smartreader.gui.prefs import Prefs
from smartreader.gui.rules import RulesDialog
from smartreader.gui.safetext import (
    ElidedLabel,
    ask,
    ask_to_delete,
    message_box,
    plain_label,
    warn,
)
from smartreader.gui.settings import SettingsDialog
from smartreader.gui.tray import TrayIcon, app_icon
from smartreader.gui.worker import SchedulerStatus, SchedulerThread
from smartreader.net.credentials import kept_for_session, keyring_available
from smartreader.storage.store import COMPACT_STOPPED
from smartreader.subscriptions import (
    Unsubscribed,
    import_opml,
    resubscribe,
    save_opml,
    undoable,
    unsubscribe,
)
from smartreader.text import count_of, keep_units, local_time_text
from smartreader.updater import credentials_may_follow

log = logging.getLogger(__name__)

# A compaction still running after this long shows a box that says the window waits.
COMPACT_BOX_MS = 400
FULL_AUTO_DELAY_MS = 350  # an article open this long loads its page (feeds set so)

SHORTCUTS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Articles",
        [
            ("j k", "next / previous article"),
            ("n p", "move without opening"),
            ("Home End", "first / last article"),
            ("o Enter", "open the selected article"),
            ("v", "open in the browser"),
            ("d", "load the full article / the feed's text"),
            ("s", "star / unstar"),
            ("m", "mark read / unread"),
            ("Ctrl+Shift+C", "copy the article's link"),
            ("Space", "scroll, then next unread, on to the next feed"),
            ("Shift+Space", "scroll up"),
        ],
    ),
    (
        "Feeds",
        [
            ("Shift+N Shift+P", "next / previous feed"),
            ("Shift+A", "mark all as read"),
            ("Ctrl+Z", "undo marking read or starring"),
            ("r F5", "refresh the feed"),
            ("Shift+R", "refresh all"),
            ("F2", "rename"),
            ("Alt+Enter", "feed properties"),
            ("Del", "unsubscribe / delete the folder"),
            ("Ctrl+N", "add a feed"),
        ],
    ),
    (
        "Anywhere",
        [
            ("/", "search"),
            ("Enter", "search: open the first result"),
            ("Esc", "search: clear it, back to the list"),
            ("Ctrl++ Ctrl+-", "larger / smaller text"),
            ("F9", "show / hide the feed list"),
            ("?", "this help"),
        ],
    ),
]


class _FullRelay(QObject):
    """Carries a page loaded in a thread (``Updater.load_full_article``) back to
    the window's thread: the entry id and a ``FullText`` or a message."""

    loaded = Signal(int, object)


class AppliedCommand(QUndoCommand):
    """An undo step pushed after its change was made (the change itself chose
    what it touched): QUndoStack's first redo() is skipped, later ones ``again``.

    Each undo and redo says in the status bar what it did, replacing the step's
    own "… — Ctrl+Z undoes it", which would otherwise invite a second Ctrl+Z."""

    def __init__(self, text: str) -> None:
        super().__init__(text.replace("&", "&&"))  # a title's "&" is no menu mnemonic
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.again()

    def again(self) -> None:
        raise NotImplementedError


class FlagCommand(AppliedCommand):
    """A change of read or starred state that Edit ▸ Undo turns back. It holds only
    the articles it changed, so undoing "mark all as read" leaves the ones read
    before it read."""

    def __init__(
        self, win: MainWindow, text: str, ids: list[int], column: str, value: bool,
        *, whole_list: bool = False, subject: str = "",
    ) -> None:  # fmt: skip
        super().__init__(text)
        self.win, self.ids, self.column, self.value = win, ids, column, value
        self.whole_list = whole_list  # re-query the list (mark all) or repaint rows
        # what the messages name: "“A title”", "518 articles"
        self.subject = subject or count_of(len(ids), "article")

    def again(self) -> None:
        self.apply(self.value)
        self.win._say(self.said(self.value), undoable=True)

    def undo(self) -> None:
        # Articles deleted since (unsubscribed, purged) are simply not found.
        self.apply(not self.value)
        self.win._say(self.said(not self.value) + " again", redoable=True)

    def said(self, value: bool) -> str:
        """What setting the flag to ``value`` did, in words."""
        if self.column == "read":
            return f"Marked {self.subject} as {'read' if value else 'unread'}"
        return f"{'Starred' if value else 'Unstarred'} {self.subject}"

    def apply(self, value: bool) -> None:
        store = self.win.store
        (store.set_read if self.column == "read" else store.set_starred)(self.ids, value)
        if self.whole_list and not value and self.win.list_model.query().get("unread"):
            # unread again, and the list shows unread ones: they belong in it (a
            # mark-all made elsewhere, undone here, left the list short of the counts)
            self.win._apply_query()
            self.win._counts_changed()
        elif self.whole_list:
            self.win._read_state_changed()
        elif self._joins_list(value):
            # "m" or "s" on the article being read, not listed (the unread list
            # was read again after it was read): the counts took it, so must the list
            self.win._apply_query()
            self.win._counts_changed()
        else:
            self.win._flags_changed(self.ids)

    def _joins_list(self, value: bool) -> bool:
        """Whether the change makes an article the list does not show match it."""
        m = self.win.list_model
        q = m.query()
        joins = q.get("unread") if self.column == "read" else q.get("starred")
        if not joins or value != (self.column == "starred"):
            return False
        return any(m.row_of(i, load=False) < 0 for i in self.ids)


@dataclass(eq=False)
class _SubscribeRequest:
    """A subscription asked of the worker: which Add feed dialog asked (its
    serial; 0 for none), whether it is still wanted, the ticked feed if any."""

    serial: int
    option: Any = None  # a FeedOption
    wanted: bool = True
    new_folder: str | None = None  # the folder to make, not there when asked


class UnsubscribeCommand(AppliedCommand):
    """An unsubscribe that Edit ▸ Undo turns back: the feed returns whole (its
    articles with their read and starred state, fetch log, alerts, learned
    schedule and password). Pushed after the unsubscribe itself."""

    def __init__(self, win: MainWindow, feed_id: int, title: str, done: Unsubscribed) -> None:
        super().__init__(f"Unsubscribe from “{elide(title, 40)}”")
        self.win, self.feed_id, self.done = win, feed_id, done

    def again(self) -> None:
        # says so itself: "Unsubscribed from … — Ctrl+Z brings it back"
        done = self.win._unsubscribe(self.feed_id, keep_for_undo=True)
        if done is None or done.undo is None:  # failed, or grew too big to hold
            self.setObsolete(True)
            if done is None:
                self.win.statusBar().clearMessage()  # "… is back" is no longer so
        else:
            self.done = done

    def undo(self) -> None:
        assert self.done.undo is not None
        fid = self.win._resubscribe(self.done)  # says "“…” is back with its … articles"
        if fid is None:
            self.setObsolete(True)  # cannot come back (its address is taken): drop the step
            self.win.statusBar().clearMessage()  # "… brings it back" no longer does
        else:
            self.feed_id = fid


class DeleteFolderCommand(AppliedCommand):
    """Deleting a folder (its feeds move to the top level), which Edit ▸ Undo
    turns back: the folder returns with the feeds that were in it and still are
    at the top level (one moved elsewhere meanwhile stays where the user put it)."""

    def __init__(self, win: MainWindow, name: str, feed_ids: list[int]) -> None:
        super().__init__(f"Delete folder “{elide(name, 40)}”")
        self.win, self.name, self.feed_ids = win, name, feed_ids

    def again(self) -> None:
        folder_id = self.win.store.folder_id(self.name, create=False)
        if folder_id is not None:
            self.win._delete_folder(folder_id, self.name)  # says "Deleted the folder …"
        else:  # deleted some other way meanwhile: nothing to do again
            self.win.statusBar().clearMessage()

    def undo(self) -> None:
        store = self.win.store
        store.folder_id(self.name)  # made again, even when it held no feeds
        for fid in self.feed_ids:
            try:
                if store.feed(fid).folder is None:
                    store.update_feed(fid, folder=self.name)
            except SmartReaderError:  # unsubscribed since
                continue
        self.win.tree_model.reload()
        self.win.select_key(f"folder:{store.folder_id(self.name, create=False)}")
        # replaces "… Ctrl+Z undoes it", which would otherwise still be showing
        self.win._say(f"The folder “{self.name}” is back", redoable=True)


def _web_link(link: str | None) -> bool:
    """Whether an article's link is a web page's address (a page could be loaded)."""
    url = QUrl(link or "")
    return url.scheme().lower() in ("http", "https") and bool(url.host())


def _where(folder: str | None) -> str:
    """A folder as the status bar names it: "“News”", or "the top level"."""
    return f"“{folder}”" if folder else "the top level"


class MoveFeedCommand(AppliedCommand):
    """A feed moved to another folder (dragged, or Feed ▸ Move to), which Edit ▸
    Undo puts back: a slip of the mouse in the tree is one Ctrl+Z away."""

    def __init__(
        self, win: MainWindow, feed_id: int, title: str, old: str | None, new: str | None
    ) -> None:
        where = f"“{elide(new, 30)}”" if new else "the top level"
        super().__init__(f"Move “{elide(title, 40)}” to {where}")
        self.win, self.feed_id, self.old, self.new = win, feed_id, old, new

    def again(self) -> None:
        if not self.win._put_feed(self.feed_id, self.new):  # says why it could not
            self.setObsolete(True)
            return
        title = self.win._feed_title(self.feed_id)
        self.win._say(f"Moved “{title}” to {_where(self.new)}", undoable=True)

    def undo(self) -> None:
        if not self.win._put_feed(self.feed_id, self.old):
            self.setObsolete(True)  # unsubscribed since: nothing to put back
            return
        title = self.win._feed_title(self.feed_id)
        self.win._say(f"Moved “{title}” back to {_where(self.old)}", redoable=True)


class RenameCommand(AppliedCommand):
    """A feed or folder renamed, which Edit ▸ Undo names back. A feed's old name
    may be none of its own (it showed the feed's title): undo clears it again.
    A folder is found by its name, as its id changes if it is deleted and undone."""

    def __init__(
        self, win: MainWindow, kind: str, feed_id: int | None, old: str | None, new: str
    ) -> None:
        shown = old or (win._feed_title(feed_id) if feed_id is not None else "")
        super().__init__(f"Rename “{elide(shown, 30)}”")
        self.win, self.kind, self.feed_id, self.old, self.new = win, kind, feed_id, old, new

    def again(self) -> None:
        shown = self._name(self.old, self.new)
        if shown is not None:
            self.win._say(f"Renamed “{shown[0]}” to “{shown[1]}”", undoable=True)

    def undo(self) -> None:
        shown = self._name(self.new, self.old)
        if shown is not None:
            self.win._say(f"Renamed “{shown[0]}” back to “{shown[1]}”", redoable=True)

    def _name(self, current: str | None, name: str | None) -> tuple[str, str] | None:
        """Rename; the names shown before and after (None, and why, if it could not)."""
        store = self.win.store
        try:
            if self.kind == "feed":
                assert self.feed_id is not None
                before = self.win._feed_title(self.feed_id)
                store.update_feed(self.feed_id, user_title=name or None)
                key = f"feed:{self.feed_id}"
                shown = (before, self.win._feed_title(self.feed_id))
            else:
                folder_id = store.folder_id(current or "", create=False)
                if folder_id is None or not name:
                    raise UsageError(f"there is no folder “{current}” any more")
                store.rename_folder(folder_id, name)
                key = f"folder:{folder_id}"
                shown = (current or "", name)
        except SmartReaderError as e:  # gone since, or the name is taken now
            self.setObsolete(True)
            self.win.statusBar().showMessage(f"Could not rename: {e}", 10_000)
            return None
        self.win._names_changed(key)
        return shown


def _width(saved: Any, default: int) -> int:
    """A column width from the prefs file, within reason (it is a file)."""
    try:
        w = int(saved)
    except (TypeError, ValueError):
        return default
    return w if 24 <= w <= 2000 else default


def date_width(table: QTableView) -> int:
    """What the list's Date column needs for its widest short dates, in bold (an
    unread row): at 16 pt a fixed 104 px cut "Yesterday" to "Yesterd…"."""
    bold = QFont(table.font())
    bold.setBold(True)
    fm = QFontMetrics(bold)
    return max(fm.horizontalAdvance(s) for s in ("Yesterday 23:59", "Wed 23:59", "28 Sep")) + 14


class ListColumns(QObject):
    """Keeps the article list's titles readable in a narrow pane: the Feed and Date
    columns give up width (down to a floor) before the titles get less than 45 % of
    the list (at 1024 px they had ~20 px). A width the user drags is remembered as
    the one to return to."""

    TITLE_SHARE = 0.45

    def __init__(self, table: QTableView, widths: dict[int, int]) -> None:
        super().__init__(table)
        self.table = table
        self.preferred = dict(widths)
        fm = table.fontMetrics()
        self.floor = {COL_FEED: fm.horizontalAdvance("Feed name"), COL_DATE: date_width(table)}
        self._fitting = False
        hh = table.horizontalHeader()
        for col, w in widths.items():
            hh.resizeSection(col, w)
        hh.sectionResized.connect(self._resized)
        table.viewport().installEventFilter(self)

    def _resized(self, col: int, old: int, new: int) -> None:
        # Hiding and showing a column (old or new 0) is not a choice of width.
        if not self._fitting and col in self.preferred and old > 0 and new > 0:
            self.preferred[col] = new

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        cols = [c for c in self.preferred if not self.table.isColumnHidden(c)]
        room = self.table.viewport().width() * (1 - self.TITLE_SHARE)
        widths = dict.fromkeys(cols, 0)
        flexible = list(cols)
        # Shrink in proportion; a column that reaches its floor stops there and the
        # others share what is left.
        while flexible:
            want = sum(self.preferred[c] for c in flexible)
            scale = min(
                1.0, max(0.0, room - sum(widths[c] for c in cols if c not in flexible)) / want
            )
            floored = [c for c in flexible if self.preferred[c] * scale < self.floor[c]]
            for c in flexible:
                widths[c] = round(self.preferred[c] * scale)
            if not floored:
                break
            for c in floored:
                widths[c] = min(self.preferred[c], self.floor[c])
                flexible.remove(c)
        self._fitting = True
        try:
            for c in cols:
                self.table.horizontalHeader().resizeSection(c, widths[c])
        finally:
            self._fitting = False


class ArticleTable(QTableView):
    """The article list. Home and End go to the first and last article (a table
    moves them along the row's columns, which in a list of rows does nothing).
    An empty list says why (``empty_text``) instead of showing a blank pane."""

    empty_text = ""

    def set_empty_text(self, text: str) -> None:
        self.empty_text = text
        self.viewport().update()

    def paintEvent(self, event: Any) -> None:
        super().paintEvent(event)
        model = self.model()
        if not self.empty_text or model is None or model.rowCount() > 0:
            return
        if isinstance(model, ArticleListModel) and model.loading():
            return  # a long search: its first matches are still on their way
        p = QPainter(self.viewport())
        p.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
        rect = self.viewport().rect().adjusted(16, 24, -16, 0)
        p.drawText(rect, Qt.AlignmentFlag.AlignHCenter | Qt.TextFlag.TextWordWrap, self.empty_text)
        p.end()

    def moveCursor(
        self, action: QAbstractItemView.CursorAction, modifiers: Qt.KeyboardModifier
    ) -> QModelIndex:
        model = self.model()
        home = action == QAbstractItemView.CursorAction.MoveHome
        if (home or action == QAbstractItemView.CursorAction.MoveEnd) and model is not None:
            if not home and isinstance(model, ArticleListModel):
                model.finish_loading()  # the last article, not the last page read so far
            n = model.rowCount()
            if n:
                column = max(self.currentIndex().column(), COL_TITLE)
                return model.index(0 if home else n - 1, column)
        return super().moveCursor(action, modifiers)


class SearchBox(QLineEdit):
    """The toolbar's search field. Enter and Escape are its own while it has the
    focus: the window's Enter shortcut (open article) took Enter first."""

    def event(self, e: QEvent) -> bool:
        if (
            e.type() == QEvent.Type.ShortcutOverride
            and isinstance(e, QKeyEvent)
            and e.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Escape)
        ):
            e.accept()
            return True
        return super().event(e)


class FeedTreeDelegate(QStyledItemDelegate):
    """Paints the unread count as a right-aligned pill after the feed's title."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Any) -> None:
        count = int(index.data(UnreadRole) or 0)
        if count <= 0:
            super().paint(painter, option, index)
            return
        text = str(count) if count < 10_000 else "9999+"
        fm = option.fontMetrics
        pill_w = fm.horizontalAdvance(text) + 12
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.rect = option.rect.adjusted(0, 0, -(pill_w + 6), 0)
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            # Full-row background (selection) first, then the text in the narrower rect.
            bg = QStyleOptionViewItem(option)
            self.initStyleOption(bg, index)
            bg.text = ""
            bg.icon = QIcon()
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, bg, painter, opt.widget)
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        r = option.rect
        pill = QRectF(r.right() - pill_w - 4, r.center().y() - fm.height() / 2 + 1, pill_w,
                      fm.height() - 2)  # fmt: skip
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        pal = option.palette
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if selected:
            # outlined, the count on the row's own colour: white at 25 % over the
            # selection left white digits 3.1:1 (2.9 on the muted selection)
            painter.setPen(QPen(pal.color(QPalette.ColorRole.HighlightedText), 1))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            pill = pill.adjusted(0.5, 0.5, -0.5, -0.5)  # the line inside, off the focus ring
        else:
            painter.setPen(Qt.PenStyle.NoPen)
            bgc = QColor(pal.color(QPalette.ColorRole.Text))
            bgc.setAlphaF(0.16)
            painter.setBrush(bgc)
        painter.drawRoundedRect(pill, pill.height() / 2, pill.height() / 2)
        painter.setPen(
            pal.color(QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text)
        )
        f = QFont(option.font)
        f.setBold(False)
        painter.setFont(f)
        painter.drawText(pill, Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class MainWindow(QMainWindow):
    """The reader. Owns the scheduler thread; ``close()`` shuts it down."""

    demoRequested = Signal()
    quitRequested = Signal()  # the window closed for good (not hidden in the tray)
    import_problems: QMessageBox | None = None  # the last import's list of what it left out

    def __init__(
        self,
        store: Any,
        updater: Any,
        *,
        prefs: Prefs,
        data_dir: str | os.PathLike[str] | None = None,
        demo: bool = False,
        start_scheduler: bool = True,
        open_url: Callable[[QUrl], Any] = QDesktopServices.openUrl,
        tray: bool | None = None,
        scheduler_options: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.store = store  # writes (read/star/subscribe) and the few reads after them
        # The models and the post-update refresh read through their own read-only
        # connection, so they never wait on the store's lock while the updater writes.
        self.reader = store.reader()
        self.updater = updater
        self.prefs = prefs
        self.demo = demo
        self.data_dir = Path(data_dir) if data_dir is not None else Path(store.path).parent
        self._open_url = open_url
        self._current_entry: int | None = None
        self._full_loading: set[int] = set()  # articles whose page is loading
        # ... of which the reader went back to the feed's text meanwhile
        self._full_dropped: set[int] = set()
        self._requests = deque()
        self._dialog_serial = itertools.count(1)
        self._closing = False
        self.setWindowTitle("smartreader — demo" if demo else "smartreader")
        self.setWindowIcon(app_icon())

        options = dict(scheduler_options or {})
        # Paused in a past session stays paused: nothing is fetched before the
        # window could say so.
        options.setdefault("autostart_polling", not bool(prefs.get("updates/paused")))
        self._paused_at_start = not options["autostart_polling"]
        self.sched = SchedulerThread(updater, self, **options)
        self._build_models()
        self._build_widgets()
        self._build_actions()
        self._apply_icons()
        self._build_statusbar()
        self._connect_scheduler()

        self.tray = TrayIcon(
            self,
            title_for=self._feed_title,
            notifications=bool(prefs.get("notifications")),
            store=store,  # its quiet periods outlive a restart
        )
        self.tray.showRequested.connect(self.show_window)
        self.tray.refreshRequested.connect(self.refresh_all)
        self.tray.quitRequested.connect(self.quit_app)
        self.tray.add_action(self.act_pause)
        self.activity.set_paused(self._paused_at_start)
        self.tray.set_paused(self._paused_at_start)
        if tray if tray is not None else bool(prefs.get("tray_icon")):
            self.tray.show()

        # Coalesce bursts of results into one refresh of counts and lists.
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(300)
        self._last_refresh = -1e9  # time.monotonic() of the last post-update refresh
        self._fetched_feeds: set[int] = set()  # fetched since: their rows are read again
        self._progress_shown = -1e9  # ... and of the last progress bar change
        self._refresh_timer.timeout.connect(self._refresh_after_update)
        # The list's part of that refresh, a turn of the event loop later: a timer,
        # not a queued call (QTimer.singleShot(0, …) is one), which ran in the same
        # pass of posted events about half the time, so the two parts were one stall.
        self._list_timer = QTimer(self)
        self._list_timer.setSingleShot(True)
        self._list_timer.setInterval(0)
        self._list_timer.timeout.connect(self._refresh_list)
        # Keep "next fetch in 5 min" current between status signals.
        self._clock = QTimer(self)
        self._clock.setInterval(15_000)
        self._clock.timeout.connect(self._update_status_text)
        self._clock.start()
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(250)
        self._search_timer.timeout.connect(self._apply_query)
        self._status: SchedulerStatus | None = None
        self._plan_wanted: dict[str, float] = {}  # sent to the worker, not yet running

        self._restore_state()
        self._update_unread_total()
        # every re-read of the counts keeps the title's and the tray's total with
        # them (a cancelled subscription's articles deleted: the title said 7, the
        # tree 2)
        self.tree_model.reloaded.connect(self._update_unread_total)
        if start_scheduler:
            self.sched.start()

    # -- construction ----------------------------------------------------------

    def _build_models(self) -> None:
        self.tree_model = FeedTreeModel(self.reader, self)
        self.tree_model.feedDropped.connect(self._move_feed)
        self.list_model = ArticleListModel(self.reader, self)
        self.list_model.loaded.connect(self._list_loaded)
        self.list_model.rowsInserted.connect(self._rows_arrived)

    def _build_widgets(self) -> None:
        self.tree = QTreeView()
        self.tree.setObjectName("feedTree")
        self.tree.setModel(self.tree_model)
        self.tree.setItemDelegate(FeedTreeDelegate(self.tree))
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setExpandsOnDoubleClick(True)
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._tree_menu)
        # Folders stay as the user left them, across reloads and restarts (they
        # all sprang open after any move, import or subscription). By name: a
        # folder deleted and brought back by Undo has a new id.
        try:
            self._collapsed = {str(n) for n in json.loads(str(self.prefs.get("tree/collapsed")))}
        except (ValueError, TypeError):
            self._collapsed = set()
        self.tree.collapsed.connect(lambda i: self._folder_toggled(i, collapsed=True))
        self.tree.expanded.connect(lambda i: self._folder_toggled(i, collapsed=False))
        self._restore_expansion()
        self.tree.selectionModel().currentChanged.connect(self._node_changed)
        self.tree_model.modelReset.connect(self._restore_expansion)
        # A reload that changes the set of feeds (an import, a subscription made or
        # dropped by the worker) resets the model: the tree lost its current item,
        # and the window took that for All unread (Shift+A read every feed's
        # articles, not the list's). The node shown is selected again, quietly.
        self._key_before_reset: str | None = None
        self._quiet_tree = False
        self.tree_model.modelAboutToBeReset.connect(self._remember_tree_key)
        self.tree_model.modelReset.connect(self._reselect_tree_key)

        self.list = ArticleTable()
        self.list.setObjectName("articleList")
        self.list.setModel(self.list_model)
        self.list.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.list.setShowGrid(False)
        self.list.setWordWrap(False)
        self.list.setSortingEnabled(True)
        self.list.setAlternatingRowColors(False)
        self.list.verticalHeader().setVisible(False)
        vh = self.list.verticalHeader()
        vh.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        vh.setDefaultSectionSize(self.fontMetrics().height() + 10)
        hh = self.list.horizontalHeader()
        hh.setSectionResizeMode(COL_TITLE, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(COL_FEED, QHeaderView.ResizeMode.Interactive)
        hh.setSectionResizeMode(COL_DATE, QHeaderView.ResizeMode.Interactive)
        # the Date column's first width fits the dates in this font (16 pt needs more)
        dated = max(104, date_width(self.list))
        self.list_columns = ListColumns(
            self.list,
            {COL_FEED: _width(self.prefs.get("list/feed_width"), 130),
             COL_DATE: _width(self.prefs.get("list/date_width", dated), dated)},
        )  # fmt: skip
        hh.setHighlightSections(False)
        # Selection, not the current index: focusing the list makes its first row
        # current without selecting it, and that must not open (and mark read) anything.
        self.list.selectionModel().selectionChanged.connect(self._article_changed)
        self.list.clicked.connect(self._row_clicked)
        self.list.doubleClicked.connect(lambda _i: self.open_in_browser())
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._list_menu)

        self.banner = MissedBanner()
        self.banner.dismissed.connect(self._dismiss_alert)
        self.banner.openSiteRequested.connect(self._open_site)
        self.banner.propertiesRequested.connect(lambda _fid: self.feed_properties())
        self.banner.settingsRequested.connect(self.open_settings)
        self.error_banner = FeedErrorBanner()
        self.error_banner.retryRequested.connect(self._retry_feed)
        self.error_banner.propertiesRequested.connect(lambda _fid: self.feed_properties())
        self.list_title = ElidedLabel()  # the feed or folder name
        self.list_title.setObjectName("listTitle")
        f = self.list_title.font()
        f.setPointSizeF(f.pointSizeF() * 1.15)
        f.setBold(True)
        self.list_title.setFont(f)
        self.list_title.setContentsMargins(8, 6, 8, 2)
        middle = QWidget()
        ml = QVBoxLayout(middle)
        ml.setContentsMargins(0, 0, 0, 0)
        ml.setSpacing(4)
        ml.addWidget(self.list_title)
        ml.addWidget(self.error_banner)
        ml.addWidget(self.banner)
        ml.addWidget(self.list, 1)
        self.middle = middle

        self.article_view = ArticleView(open_url=self._open_url)
        self.article_view.actionRequested.connect(self._welcome_action)
        self.article_view.loadImagesRequested.connect(lambda: None)
        self.article_view.set_zoom(float(self.prefs.get("article/zoom")))
        self.article_view.zoomChanged.connect(lambda z: self.prefs.set("article/zoom", z))
        self.activity = ActivityPanel(self.store, self.updater)
        self.activity.feedActivated.connect(self.select_feed)
        self.alerts_view = AlertsView(self.store, limit_for=self._check_limit)
        self.alerts_view.feedActivated.connect(self.select_feed)
        self.alerts_view.openSiteRequested.connect(self._open_site)
        self.alerts_view.alertsDismissed.connect(lambda _ids: self._after_alerts_changed())
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.article_view, "Article")
        self.tabs.addTab(self.activity, "Activity")
        self.tabs.addTab(self.alerts_view, "Alerts")
        self.tabs.currentChanged.connect(self._tab_changed)
        # Tab walks the panes (the list's own Tab stepped from cell to cell, opening
        # and marking read each row it passed, and never let focus out)
        self.tree.setTabKeyNavigation(False)
        self.list.setTabKeyNavigation(False)
        # names a screen reader says for the panes (none had one)
        self.tree.setAccessibleName("Feeds")
        self.list.setAccessibleName("Articles")
        self.article_view.browser.setAccessibleName("Article text")
        self.tabs.setAccessibleName("Reading pane")

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(middle)
        self.splitter.addWidget(self.tabs)
        # Every pane stretches: the splitter then keeps their proportions as the window
        # grows or shrinks (it shares by the panes' sizes; a factor only says whether a
        # pane stretches). A fixed-width tree stayed 230 px on a 1920 px screen and,
        # once squeezed to its minimum (a small window, a large font), never grew back.
        for i in range(3):
            self.splitter.setStretchFactor(i, 1)
        self.splitter.setSizes([230, 440, 630])  # the shares the first start opens with
        self.splitter.setChildrenCollapsible(False)
        self._fit_panes_to_font()
        self.setCentralWidget(self.splitter)
        # Tab goes down the middle pane as it is drawn: the banners' buttons come
        # before the list (they came after the article text), hidden ones skipped
        order = [self.tree, self.error_banner.retry, self.error_banner.props,
                 self.banner.remedy, self.banner.site, self.banner.button,
                 self.list, self.article_view.browser]  # fmt: skip
        for before, after in itertools.pairwise(order):
            QWidget.setTabOrder(before, after)
        # the Menu key's menus (see eventFilter)
        self.tree.installEventFilter(self)
        self.list.installEventFilter(self)
        self.help = HelpOverlay(SHORTCUTS, self)

    def _action(
        self,
        text: str,
        slot: Callable[..., Any],
        shortcut: str | QKeySequence.StandardKey | list[str] | None = None,
        *,
        tip: str = "",
    ) -> QAction:
        act = QAction(text, self)
        if isinstance(shortcut, list):
            act.setShortcuts([QKeySequence(s) for s in shortcut])
        elif shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        if tip:
            act.setToolTip(tip)
            act.setStatusTip(tip)
        act.triggered.connect(lambda _checked=False: slot())
        self.addAction(act)
        return act

    def _build_actions(self) -> None:
        a = self._action
        self.act_add = a("&Add feed…", self.add_feed, "Ctrl+N", tip="Subscribe to a feed or site")
        self.act_import = a("&Import OPML…", self.import_opml)
        self.act_export = a("&Export OPML…", self.export_opml)
        self.act_settings = a("&Settings…", self.open_settings, "Ctrl+,")
        self.act_quit = a("&Quit", self.quit_app)
        # Ctrl+Q first, always: the platform's Quit key is none under Windows' key
        # scheme (and in the offscreen tests), and the tray tip names the first one
        quit_keys = [QKeySequence("Ctrl+Q")]
        quit_keys += [k for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)
                      if k not in quit_keys]  # fmt: skip
        self.act_quit.setShortcuts(quit_keys)
        self.act_next = a("&Next article", lambda: self.move(1, open_=True), "J")
        self.act_prev = a("&Previous article", lambda: self.move(-1, open_=True), "K")
        self.act_scan_next = a("Move &down", lambda: self.move(1, open_=False), "N")
        self.act_scan_prev = a("Move &up", lambda: self.move(-1, open_=False), "P")
        self.act_open = a("&Open article", self.open_selected, ["O", "Return", "Enter"])
        self.act_browser = a("Open in &browser", self.open_in_browser, "V")
        # Miniflux's key for it; a feed's properties make it the default
        self.act_full = a(
            "Load &full article", self.toggle_full_article, "D",
            tip="Show the article's page from its website (for feeds that send only a "
            "summary); again for the feed's text",
        )  # fmt: skip
        self.act_full.setCheckable(True)
        self.act_full.setIconText("Full article")
        self.act_star = a("&Star", self.toggle_star, "S")
        self.act_read = a("Toggle &read", self.toggle_read, "M")
        self.act_copy_link = a("&Copy link", self.copy_link, "Ctrl+Shift+C")
        self.act_mark_above = a("Mark abo&ve as read", self.mark_above_read)
        self.act_mark_below = a("Mark be&low as read", self.mark_below_read)
        self.act_space = a("Scroll, then ne&xt unread", self.space, "Space")
        self.act_space_back = a("Scroll up", self.space_back, "Shift+Space")
        self.act_next_feed = a("Next &feed", lambda: self.move_feed(1), "Shift+N")
        self.act_prev_feed = a("Previous f&eed", lambda: self.move_feed(-1), "Shift+P")
        self.act_mark_all = a("&Mark all as read", self.mark_all_read, "Shift+A")
        self.act_refresh = a("&Refresh", self.refresh_current, ["R", "F5"],
                             tip="Fetch the selected feed(s) now")  # fmt: skip
        self.act_refresh_all = a("Refresh &all", self.refresh_all, "Shift+R")
        # As mail readers' "Work offline": no scheduled fetch until resumed (a
        # metered connection, a trip); Refresh still fetches on request.
        self.act_pause = a("Pau&se updates", lambda: None,
                           tip="Fetch feeds only when you refresh them")  # fmt: skip
        self.act_pause.setCheckable(True)
        self.act_pause.setChecked(self._paused_at_start)
        self.act_pause.toggled.connect(self._pause_toggled)
        self.act_search = a("&Search", self.focus_search, ["/", "Ctrl+F"])
        self.act_help = a("&Keyboard shortcuts", self.show_help, ["?", "Shift+?"])
        # Alt+Enter, as file managers' Properties; no other action has it
        self.act_props = a("Feed &properties…", self.feed_properties, ["Alt+Return", "Alt+Enter"])
        self.act_rules = a(
            "Ru&les…", self.open_rules, tip="Mark new articles that match words read, or star them"
        )
        self.act_rename = a("Re&name…", self.rename_node, "F2")
        self.act_delete = a("&Unsubscribe…", self.delete_node, "Del")
        # Del only in the feed tree (it still asks first): in the article list or
        # the search field it must not unsubscribe the feed selected beside them
        self.act_delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        self.tree.addAction(self.act_delete)
        self.act_activity = a("Feed &activity", lambda: self.tabs.setCurrentWidget(self.activity))
        self.act_alerts = a("Al&erts", lambda: self.tabs.setCurrentWidget(self.alerts_view))
        menu_key = QShortcut(QKeySequence("Shift+F10"), self)
        menu_key.activated.connect(self._shift_f10)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(20)  # each step holds its article ids
        self.act_undo = self.undo_stack.createUndoAction(self, "&Undo")
        self.act_undo.setShortcuts(QKeySequence.StandardKey.Undo)
        self.act_redo = self.undo_stack.createRedoAction(self, "&Redo")
        self.act_redo.setShortcuts(QKeySequence.StandardKey.Redo)
        for act in (self.act_undo, self.act_redo):
            act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            self.addAction(act)
        av = self.article_view
        self.act_zoom_in = a("&Larger text", av.zoom_in, ["Ctrl++", "Ctrl+="])
        self.act_zoom_out = a("S&maller text", av.zoom_out, "Ctrl+-")
        self.act_zoom_reset = a("&Normal text size", av.zoom_reset, "Ctrl+0")
        self.act_unread_only = QAction("Show &unread only", self)
        self.act_unread_only.setCheckable(True)
        self.act_unread_only.setChecked(bool(self.prefs.get("list/unread_only")))
        self.act_unread_only.toggled.connect(lambda _on: self._apply_query())
        # Hiding the feeds gives their width to the reading pane: at 16 pt in a
        # 1,024 px window the panes' minimums left it 257 px. F9, as mail readers do.
        self.act_feed_list = a("&Feed list", lambda: None, "F9")  # (acts on toggled)
        self.act_feed_list.setCheckable(True)
        self.act_feed_list.setChecked(True)
        self.act_feed_list.toggled.connect(lambda _on: self._show_feed_list())

        mb = self.menuBar()
        m = mb.addMenu("&File")
        for act in (self.act_add, self.act_import, self.act_export, None, self.act_settings,
                    None, self.act_quit):  # fmt: skip
            m.addSeparator() if act is None else m.addAction(act)
        m = mb.addMenu("&Edit")
        for act in (self.act_undo, self.act_redo):
            m.addAction(act)
        m = mb.addMenu("&Article")
        for act in (self.act_next, self.act_prev, self.act_scan_next, self.act_scan_prev,
                    self.act_space, None,
                    self.act_open, self.act_browser, self.act_full, self.act_copy_link, None,
                    self.act_star,
                    self.act_read, self.act_mark_above, self.act_mark_below):  # fmt: skip
            m.addSeparator() if act is None else m.addAction(act)
        self.move_menu = QMenu("Mo&ve to", self)
        self.move_menu.aboutToShow.connect(self._fill_move_menu)
        m = mb.addMenu("Fee&d")
        for act in (self.act_refresh, self.act_refresh_all, self.act_pause, self.act_mark_all,
                    None, self.act_next_feed, self.act_prev_feed, None, self.act_props,
                    self.act_rename, self.move_menu.menuAction(),
                    self.act_delete, None, self.act_rules):  # fmt: skip
            m.addSeparator() if act is None else m.addAction(act)
        # a reload of the tree can change what is selected without a signal
        m.aboutToShow.connect(self._update_node_actions)
        self.tree_model.modelReset.connect(self._update_node_actions)
        self._update_node_actions()
        m = mb.addMenu("&View")
        for act in (self.act_feed_list, None, self.act_unread_only, self.act_search, None,
                    self.act_zoom_in, self.act_zoom_out, self.act_zoom_reset, None,
                    self.act_activity, self.act_alerts, None, self.act_help):  # fmt: skip
            m.addSeparator() if act is None else m.addAction(act)

        tb = QToolBar("Main")
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        tb.setIconSize(QSize(16, 16))
        tb.addAction(self.act_add)
        tb.addAction(self.act_refresh_all)
        tb.addAction(self.act_mark_all)
        tb.addSeparator()
        tb.addAction(self.act_unread_only)
        tb.addAction(self.act_full)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        self.search = SearchBox()
        self.search.setObjectName("search")
        self.search.setPlaceholderText("Search articles  (/)")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search articles")
        self.search.setMaximumWidth(320)
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self._search_done)
        tb.addWidget(self.search)
        tb.addAction(self.act_settings)
        self.addToolBar(tb)
        self.toolbar = tb

    def _build_statusbar(self) -> None:
        sb = self.statusBar()
        self.next_label = plain_label()
        self.budget_label = plain_label()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(160)
        self.progress.setMaximumHeight(14)
        self.progress.setTextVisible(False)
        self.progress.setVisible(False)
        # A rule between the two texts ("Next fetch now 399 / 1500 requests in the last 24 h"
        # read as one), shown with them; margins keep the texts off it.
        self.status_rule = QFrame()
        self.status_rule.setFrameShape(QFrame.Shape.VLine)
        self.status_rule.setFrameShadow(QFrame.Shadow.Sunken)
        self.status_rule.setVisible(False)
        self._fit_status_to_font()
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.next_label)
        sb.addPermanentWidget(self.status_rule)
        sb.addPermanentWidget(self.budget_label)

    def _connect_scheduler(self) -> None:
        s = self.sched
        s.feedUpdated.connect(self._feed_updated)
        s.feedUpdated.connect(self.activity.on_feed_updated)
        s.progress.connect(self._progress)
        s.updateStarted.connect(self._update_started)
        s.updateFinished.connect(self._update_finished)
        s.statusChanged.connect(self._status_changed)
        s.alertRaised.connect(self._alert_raised)
        s.subscribed.connect(self._subscribed)
        s.subscribeFailed.connect(self._subscribe_failed)
        s.feedsFound.connect(self._feeds_found)
        s.errorOccurred.connect(lambda msg: self.statusBar().showMessage(msg, 10_000))
        s.entriesPurged.connect(self._entries_purged)
        s.compactFinished.connect(self._compacted)
        self._watch_network()

    def _watch_network(self) -> None:
        """The system's word that the network is back ends an offline wait at once
        (the next try could be 15 minutes away). Not every system has a backend
        that knows; without one the tries find out."""
        try:
            loaded = QNetworkInformation.loadDefaultBackend()
        except Exception:  # a backend that fails to start must not stop the window
            log.warning("no network information backend", exc_info=True)
            return
        info = QNetworkInformation.instance() if loaded else None
        if info is not None:
            info.reachabilityChanged.connect(self._reachability_changed)

    def _reachability_changed(self, reach: QNetworkInformation.Reachability) -> None:
        if reach == QNetworkInformation.Reachability.Online:
            self.sched.network_back()

    # -- state ---------------------------------------------------------------------

    def _restore_state(self) -> None:
        p = self.prefs
        geo = p.get("window/geometry")
        if geo:
            self.restoreGeometry(geo)
        else:
            self.resize(1300, 820)
        split = p.get("window/splitter")
        if split:
            self.splitter.restoreState(split)
        self.act_feed_list.setChecked(bool(p.get("window/feed_list")))
        col = int(p.get("list/sort_column"))
        order = Qt.SortOrder(int(p.get("list/sort_order")))
        self.list.horizontalHeader().setSortIndicator(col, order)
        key = str(p.get("window/selection"))
        if not self.store.feeds():
            self.select_key("smart:unread")
            self.show_welcome()
            return
        if not self.select_key(key):
            self.select_key("smart:unread")
        article = int(p.get("window/article") or 0)
        if article:  # the article open last time: shown again, its flags as they are
            # (one marked unread with "m" to keep for later stays unread)
            self._select_in_list(article, open_=True, mark_read=False)
        tab = int(p.get("window/tab"))
        if 0 < tab < self.tabs.count():
            self.tabs.setCurrentIndex(tab)

    def save_state(self) -> None:
        p = self.prefs
        p.set("window/geometry", bytes(self.saveGeometry().data()))
        p.set("window/splitter", bytes(self.splitter.saveState().data()))
        p.set("window/feed_list", self.act_feed_list.isChecked())
        p.set("window/selection", self.current_key())
        p.set("window/article", int(self._current_entry or 0))
        col, order = self.list_model.sort_state()
        p.set("list/sort_column", int(col))
        p.set("list/sort_order", 0 if order == Qt.SortOrder.AscendingOrder else 1)
        p.set("list/unread_only", self.act_unread_only.isChecked())
        p.set("list/feed_width", int(self.list_columns.preferred[COL_FEED]))
        p.set("list/date_width", int(self.list_columns.preferred[COL_DATE]))
        p.set("tree/collapsed", json.dumps(sorted(self._collapsed)))
        p.set("window/tab", int(self.tabs.currentIndex()))
        p.sync()

    def _folder_toggled(self, index: QModelIndex, *, collapsed: bool) -> None:
        if self._restoring_expansion:
            return
        node = self.tree_model.node(index)
        if node.kind == "folder":
            (self._collapsed.add if collapsed else self._collapsed.discard)(node.title)

    _restoring_expansion = False

    def _restore_expansion(self) -> None:
        model, root = self.tree_model, QModelIndex()
        self._restoring_expansion = True
        try:
            for row in range(model.rowCount(root)):
                index = model.index(row, 0, root)
                node = model.node(index)
                folded = node.kind == "folder" and node.title in self._collapsed
                self.tree.setExpanded(index, not folded)
        finally:
            self._restoring_expansion = False

    def _apply_icons(self) -> None:
        """Tint the UI icons with the current palette (light or dark theme)."""
        color = self.palette().color(QPalette.ColorRole.ButtonText)
        for act, name in (
            (self.act_add, "add"),
            (self.act_refresh_all, "refresh"),
            (self.act_mark_all, "mark-read"),
            (self.act_unread_only, "unread-only"),
            (self.act_full, "full-article"),
            (self.act_settings, "settings"),
        ):
            act.setIcon(ui_icon(name, color))
        if hasattr(self, "search"):
            self.search.setStyleSheet("")
            for old in self.search.actions():
                if old.objectName() == "searchIcon":
                    self.search.removeAction(old)
            icon_act = self.search.addAction(
                ui_icon("search", color), QLineEdit.ActionPosition.LeadingPosition
            )
            icon_act.setObjectName("searchIcon")

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "act_add"):
            self._apply_icons()
        if event.type() == QEvent.Type.FontChange and hasattr(self, "budget_label"):
            # (the status bar is built after the panes: both exist once it does)
            self._fit_panes_to_font()
            self._fit_status_to_font()

    def _fit_status_to_font(self) -> None:
        """A character's width around each status text, off the rule between them."""
        margin = self.fontMetrics().averageCharWidth()
        for label in (self.next_label, self.budget_label):
            label.setContentsMargins(margin, 0, margin, 0)

    def _fit_panes_to_font(self) -> None:
        """The panes' minimum widths, from the font: fixed ones let a 16 pt tree be
        squeezed to 70 px (every title "…", the counts cut off)."""
        # Below this the titles of a mixed list (beside feed and date) are unreadable.
        self.middle.setMinimumWidth(self.fontMetrics().averageCharWidth() * 45)
        # the feed icons grow with the text (16 px icons were specks beside 16 pt
        # titles, their error and missed badges unreadable); the model draws them
        # at that size
        side = tree_icon_side(self.tree.fontMetrics())
        self.tree.setIconSize(QSize(side, side))
        self.tree_model.set_icon_side(side)
        self.tree.setMinimumWidth(self._tree_min_width())

    def _tree_min_width(self) -> int:
        """About 24 characters' width: at 16 pt a feed's icon in its folder, some
        10 characters of its title and its unread count; at 9 pt (144 px) the
        window still fits an 800 px screen beside the list and the reading pane."""
        return self.tree.fontMetrics().averageCharWidth() * 24

    _quitting = False

    def keeps_running(self) -> bool:
        """Whether closing the window leaves smartreader checking feeds, in the
        tray: the point of a scheduler that fetches just after a feed posts is
        lost when closing the window stops it. Only with an icon to come back by."""
        return bool(self.prefs.get("close_to_tray")) and self.tray.shown

    def quit_app(self) -> None:
        """File ▸ Quit, the tray's Quit: close for good, even when closing the
        window would only hide it."""
        self._quitting = True
        if not self.close():
            self._quitting = False

    def _to_tray(self) -> None:
        try:
            self.save_state()
        except Exception:
            log.exception("saving the window state failed")
        # Hidden, this is no "last window": closing a dialog or a message box
        # opened from the tray must not end the app (its end is quitRequested).
        QApplication.setQuitOnLastWindowClosed(False)
        self.hide()
        if not self.prefs.get("tray/told_running"):
            quit_key = self.act_quit.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            shown = notify(
                self.tray.tray,
                "smartreader keeps checking your feeds",
                "Its icon brings the window back. To stop it, choose Quit in the icon's "
                f"menu or press {quit_key} in the window.",
            )
            if shown:
                self.prefs.set("tray/told_running", True)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._closing and not self._quitting and self.keeps_running():
            event.ignore()
            self._to_tray()
            return
        if not self._closing:
            self._closing = True
            try:
                self.save_state()
            except Exception:
                log.exception("saving the window state failed")
            for t in (self._refresh_timer, self._list_timer, self._clock, self._search_timer):
                t.stop()
            self.sched.shutdown()
            # Results still queued for this thread must not reach a closed store.
            for name in ("feedUpdated", "alertRaised", "statusChanged", "subscribed",
                         "subscribeFailed", "feedsFound", "updateFinished", "entriesPurged",
                         "compactFinished"):  # fmt: skip
                getattr(self.sched, name).disconnect()
            self.activity._debounce.stop()
            self.tray.dispose()
            self.quitRequested.emit()
        super().closeEvent(event)

    # -- selection -------------------------------------------------------------------

    def current_key(self) -> str:
        idx = self.tree.currentIndex()
        return str(idx.data(KeyRole)) if idx.isValid() else "smart:unread"

    def select_key(self, key: str) -> bool:
        idx = self.tree_model.index_for_key(key)
        if not idx.isValid():
            return False
        changed = idx != self.tree.currentIndex()
        self.tree.setCurrentIndex(idx)
        self.tree.scrollTo(idx)
        if not changed:
            # Same node again: currentChanged did not fire; re-read its list.
            self._node_changed(idx, QModelIndex())
        return True

    @Slot(int)
    def select_feed(self, feed_id: int) -> None:
        self.select_key(f"feed:{int(feed_id)}")

    def current_feed_id(self) -> int | None:
        key = self.current_key()
        return int(key.split(":", 1)[1]) if key.startswith("feed:") else None

    def _feed_title(self, feed_id: int) -> str:
        try:
            return str(self.store.feed(feed_id).display_title)
        except Exception:
            return f"Feed #{feed_id}"

    @Slot()
    def _remember_tree_key(self) -> None:
        idx = self.tree.currentIndex()
        self._key_before_reset = str(idx.data(KeyRole)) if idx.isValid() else None

    @Slot()
    def _reselect_tree_key(self) -> None:
        key, self._key_before_reset = self._key_before_reset, None
        idx = self.tree_model.index_for_key(key) if key else QModelIndex()
        if not idx.isValid():
            return  # it is gone: whoever removed it selects what comes next
        self._quiet_tree = True  # the list already shows it: not read again
        try:
            self.tree.setCurrentIndex(idx)
        finally:
            self._quiet_tree = False

    @Slot(QModelIndex, QModelIndex)
    def _node_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._update_node_actions()
        if not current.isValid() or self._quiet_tree:
            return
        self._apply_query()
        node = self.tree_model.node(current)
        self.list_title.setText(node.title)
        # one feed's list: its name in every row says nothing and costs the titles room
        self.list.setColumnHidden(COL_FEED, node.kind == "feed")
        self.list_columns.fit()
        self._update_banner()
        if self.tabs.currentWidget() is self.activity:
            self.activity.set_feed(self.current_feed_id())

    @Slot()
    def _show_feed_list(self) -> None:
        """View ▸ Feed list (F9): shows or hides the feed tree. Hidden, Shift+N and
        Shift+P still go from feed to feed, and the list's title says which."""
        shown = self.act_feed_list.isChecked()
        if not shown and self.tree.hasFocus():
            self.list.setFocus()  # not to a hidden widget: keys would go nowhere
        self.tree.setVisible(shown)

    @Slot()
    def _update_node_actions(self) -> None:
        """Feed ▸ Properties, Rename, Move to and Unsubscribe act on the selected
        feed (Rename and delete on a folder too): elsewhere they are off, where
        they used to do nothing without a word."""
        if not hasattr(self, "act_props"):
            return  # a selection made while the window is built; the actions follow
        node = self.tree_model.node(self.tree.currentIndex())
        feed, folder = node.kind == "feed", node.kind == "folder"
        self.act_props.setEnabled(feed)
        self.move_menu.menuAction().setEnabled(feed)
        self.act_rename.setEnabled(feed or folder)
        self.act_delete.setEnabled(feed or folder)
        self.act_delete.setText("&Delete folder…" if folder else "&Unsubscribe…")

    def _query(self) -> dict[str, Any]:
        idx = self.tree.currentIndex()
        key = self.current_key()
        q: dict[str, Any] = {"feed_ids": self.tree_model.feed_ids_for(idx)}
        if key == "smart:unread":
            q["unread"] = True
        elif key == "smart:starred":
            q["starred"] = True
        elif self.act_unread_only.isChecked() and key != "smart:all":
            q["unread"] = True
        text = self.search.text().strip()
        if text:
            q["search"] = text
            q.pop("unread", None)  # a search finds read articles too
        return q

    @Slot()
    def _apply_query(self) -> None:
        keep = self._current_entry
        self._after_load = None
        self._first_result_pending = False
        q = self._query()
        self.list_model.set_query(**q)
        self.list.set_empty_text(self._empty_text(q))
        if keep is not None:  # the article shown: its row, if the list has it
            self._select_in_list(keep, open_=False)

    def _empty_text(self, q: dict[str, Any]) -> str:
        if q.get("search"):
            found = f"Nothing matches “{elide(str(q['search']), 60)}”"
            key = self.current_key()
            # a search looks only in the feed or folder chosen: say so, and where else
            if key.startswith(("feed:", "folder:")):
                where = "this feed" if key.startswith("feed:") else "this folder"
                return f"{found} in {where}. “All articles” searches every feed."
            return found
        if self.current_key().startswith("folder:") and not q.get("feed_ids"):
            return "No feeds in this folder yet: drag one here, or use Feed ▸ Move to."
        if q.get("starred"):
            return "No starred articles yet. Press s to star the article you read."
        if q.get("unread"):
            return "No unread articles here."
        if self.current_key().startswith("feed:"):
            return "No articles from this feed yet."
        return "No articles yet."

    def _select_in_list(self, entry_id: int, *, open_: bool, mark_read: bool = True) -> None:
        """Select an entry's row (``open_``: and open it; ``mark_read``: marking it
        read). Only the first page of a long list is in yet: look there, and again
        once the rest has arrived (never wait for 100,000 ids on the GUI thread: at
        start-up that delayed the window)."""
        row = self.list_model.row_of(entry_id, load=False)
        if row >= 0:
            self._show_row(row, open_=open_, mark_read=mark_read)
        elif self.list_model.loading():
            self._after_load = (entry_id, open_, mark_read)

    _after_load: tuple[int, bool, bool] | None = None

    def _show_row(self, row: int, *, open_: bool, mark_read: bool) -> None:
        if open_ and not mark_read:
            self._select_row(row, open_=False)
            self.open_entry(self.list_model.entry_id(row), mark_read=False)
        else:
            self._select_row(row, open_=open_)

    @Slot()
    def _list_loaded(self) -> None:
        wanted, self._after_load = self._after_load, None
        if wanted is None or self.selected_row() >= 0:
            return
        entry_id, open_, mark_read = wanted
        # Not if the user opened another article meanwhile (or, to open one at
        # start-up, any article).
        if self._current_entry != (None if open_ else entry_id):
            return
        row = self.list_model.row_of(entry_id, load=False)
        if row >= 0:
            self._show_row(row, open_=open_, mark_read=mark_read)

    def _search_done(self) -> None:
        """Enter in the search box: to the results, opening the first."""
        self._search_timer.stop()
        self._apply_query()
        if self.list_model.rowCount() > 0:
            self._to_results()
        elif self.list_model.loading():
            # a search over a big store finds its first matches a few turns later
            self._first_result_pending = True

    _first_result_pending = False

    def _to_results(self) -> None:
        self._first_result_pending = False
        # (focusing a view makes its first row current, unselected: ask the selection)
        if self.selected_row() < 0:
            self._select_row(0, open_=True)
        self.list.setFocus()

    def _rows_arrived(self) -> None:
        if self._first_result_pending and self.list_model.rowCount() > 0:
            self._to_results()

    # -- articles --------------------------------------------------------------------

    def _select_row(self, row: int, *, open_: bool) -> None:
        idx = self.list_model.index(row, COL_TITLE)
        sm = self.list.selectionModel()
        self._suppress_open = not open_
        try:
            sm.setCurrentIndex(
                idx,
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )
        finally:
            self._suppress_open = False
        self.list.scrollTo(idx)

    _suppress_open = False

    def select_article(self, entry_id: int) -> None:
        row = self.list_model.row_of(entry_id)
        if row >= 0:
            self._select_row(row, open_=True)

    def _article_changed(self, *_args: Any) -> None:
        eid = self.selected_entry_id()
        # Only a new selection opens: rows a fetch inserts above the selected one
        # also emit selectionChanged, and that opened (and marked read) an article
        # "n" had only selected.
        moved, self._selected_entry = eid != self._selected_entry, eid
        if self._suppress_open or not moved:
            return
        if eid is not None and eid != self._current_entry:
            self.open_entry(eid)

    _selected_entry: int | None = None

    def _row_clicked(self, index: QModelIndex) -> None:
        # A click on the row "n" selected (so no selection change) opens it too.
        if index.row() == self.selected_row():
            eid = self.list_model.entry_id(index.row())
            if eid is not None and eid != self._current_entry:
                self.open_entry(eid)

    def open_entry(self, entry_id: int, *, mark_read: bool = True) -> None:
        """Show an article in the reader and (``mark_read``) mark it read."""
        try:
            entry = self.store.entry(entry_id)
            feed = self.store.feed(entry.feed_id)
        except Exception as e:  # deleted meanwhile
            self._current_entry = None  # nothing shown for "s", "m" or "v" to act on
            self.article_view.show_empty(str(e))
            return
        self._current_entry = entry_id
        full = self.store.full_article(entry_id)
        # a feed set to full articles loads the page of each article opened
        auto = full is None and feed.full_text and _web_link(entry.link)
        self.article_view.show_entry(
            entry,
            feed.display_title,
            load_images=feed.load_images,
            feed_url=feed.url,
            full=full,
            full_loading=auto,
        )
        if auto:
            # only for an article still open a moment later: "j" held down
            # through a feed must not send a request for every article passed
            QTimer.singleShot(FULL_AUTO_DELAY_MS, self, lambda: self._auto_full(entry_id))
        self._sync_full_action()
        if self.tabs.currentWidget() is not self.article_view:
            self.tabs.setCurrentWidget(self.article_view)
        if mark_read and not entry.read:
            self.store.set_read([entry_id], True)
            self._flags_changed([entry_id])

    def _auto_full(self, entry_id: int) -> None:
        view = self.article_view
        still_open = view.entry is not None and view.entry.id == entry_id
        if still_open and view.full is None and view.full_note == ("loading", ""):
            self._load_full(entry_id)

    def selected_row(self) -> int:
        rows = self.list.selectionModel().selectedRows()
        return rows[0].row() if rows else -1

    def selected_entry_id(self) -> int | None:
        row = self.selected_row()
        return self.list_model.entry_id(row) if row >= 0 else None

    def move(self, step: int, *, open_: bool) -> None:
        n = self.list_model.rowCount()
        if n == 0:
            return
        cur = self.selected_row()
        # From no selection either way starts at the top: "k" went to the list's
        # far end (the oldest of 1,000 articles) and marked it read.
        row = 0 if cur < 0 else cur + step
        if 0 <= row < n:
            self._select_row(row, open_=open_)

    def open_selected(self) -> None:
        eid = self.selected_entry_id()
        if eid is not None:
            self.open_entry(eid)

    def space(self) -> None:
        if not self.article_view.scroll_page(True):
            self.next_unread()

    def space_back(self) -> None:
        self.article_view.scroll_page(False)

    def next_unread(self) -> None:
        """Open the next unread article: below in the list; else, in a feed's or a
        folder's list, the first of the next feed that has any (the tree's order,
        wrapping round); else one above in this list."""
        cur = self.selected_row()
        row = self.list_model.next_unread_row(cur)
        if row < 0 and self._crosses_feeds():
            key = self._next_unread_feed()
            if key is not None and self.select_key(key):
                cur = -1
                row = self.list_model.next_unread_row(-1)
        if row < 0 and cur > 0:
            row = self.list_model.next_unread_row(-1)
        if row >= 0:
            self._select_row(row, open_=True)
        else:
            self.statusBar().showMessage("No unread articles left", 4000)

    def _crosses_feeds(self) -> bool:
        # A smart view holds every feed already; a search's list is its own.
        return self.current_key().split(":")[0] in ("feed", "folder") and not (
            self.search.text().strip()
        )

    def _next_unread_feed(self) -> str | None:
        nodes = self.tree_model.unread_in_order()
        keys = [k for k, _n in nodes]
        cur = self.current_key()
        mine = {f"feed:{i}" for i in self.tree_model.feed_ids_for(self.tree.currentIndex()) or ()}
        start = keys.index(cur) + 1 if cur in keys else 0
        for key, unread in nodes[start:] + nodes[:start]:
            if key.startswith("feed:") and unread > 0 and key not in mine:
                return key
        return None

    def _article_gone(self) -> bool:
        """Whether the article open was deleted (its feed unsubscribed, the daily
        clean-up): then the pane lets it go, so "v", "s", "m" and copying the
        link have nothing to act on (they raised "no entry with id …")."""
        eid = self._current_entry
        if eid is None or self.store.entry_rows([eid]):
            return False
        self._current_entry = None
        self.article_view.show_empty("This article was deleted")
        return True

    def open_in_browser(self) -> None:
        eid = self.selected_entry_id() or self._current_entry
        if eid is None or (eid == self._current_entry and self._article_gone()):
            return
        entry = self.store.entry(eid)
        if entry.link:
            url = QUrl(entry.link)
            if url.scheme().lower() in ("http", "https"):
                self._open_url(url)
        if not entry.read:
            self.store.set_read([eid], True)
            self._flags_changed([eid])

    # -- full articles ----------------------------------------------------------

    def toggle_full_article(self) -> None:
        """Article ▸ Load full article (D): the open article's page from its
        website in place of the feed's text; again, back to the feed's text."""
        eid = self._current_entry
        if eid is None or self._article_gone():
            self.statusBar().showMessage("Open an article first", 4000)
        elif self.article_view.full is not None:
            self._full_action("feedtext")
        else:
            self._full_action("full")
        self._sync_full_action()

    def _full_action(self, action: str) -> None:
        eid = self._current_entry
        view = self.article_view
        if eid is None or view.entry is None or view.entry.id != eid:
            return
        if action == "feedtext":
            # forgotten, so the article opens with the feed's text next time too
            # (a feed set to full articles loads it again); a load on its way
            # is forgotten when it arrives
            self.store.delete_full_article(eid)
            if eid in self._full_loading:
                self._full_dropped.add(eid)
            view.show_feed_text()
        elif not _web_link(view.entry.link):
            self.statusBar().showMessage("This article has no web page to load", 4000)
        elif action == "full" and (kept := self.store.full_article(eid)) is not None:
            view.show_full(kept)
        elif action in ("full", "fullagain"):
            self._full_dropped.discard(eid)  # wanted again after all
            view.set_full_state("loading")
            self._load_full(eid)
        self._sync_full_action()

    _full_relay: _FullRelay | None = None

    def _load_full(self, entry_id: int) -> None:
        """Load an article's page in a thread (the fetch may take a minute); the
        page comes back by signal (``_full_loaded``)."""
        if entry_id in self._full_loading:
            return
        if self._full_relay is None:
            self._full_relay = _FullRelay(self)
            self._full_relay.loaded.connect(self._full_loaded)
        self._full_loading.add(entry_id)
        relay, updater = self._full_relay, self.updater

        def load() -> None:  # no widget is touched here
            result: object
            try:
                result = updater.load_full_article(entry_id)
            except SmartReaderError as e:
                result = str(e)
            except Exception as e:
                if self._closing:  # the store closed under it at quit: nothing lost
                    return
                log.exception("loading the page of article %s failed", entry_id)
                result = f"The full article could not be loaded: {e}"
            with contextlib.suppress(RuntimeError):  # the window was closed meanwhile
                relay.loaded.emit(entry_id, result)

        threading.Thread(target=load, name=f"full-article-{entry_id}", daemon=True).start()

    @Slot(int, object)
    def _full_loaded(self, entry_id: int, result: object) -> None:
        self._full_loading.discard(entry_id)
        if entry_id in self._full_dropped:
            self._full_dropped.discard(entry_id)
            if not isinstance(result, str):  # kept by the load: the reader said no
                self.store.delete_full_article(entry_id)
            return
        view = self.article_view
        if view.entry is None or view.entry.id != entry_id:
            return  # another article is open now; the page was kept for this one
        if isinstance(result, str):
            view.set_full_state("error", result)
        else:
            view.show_full(result)
        self._sync_full_action()

    def full_loads_pending(self) -> int:
        """How many pages are loading (for tests and the screenshots)."""
        return len(self._full_loading)

    def _sync_full_action(self) -> None:
        self.act_full.setChecked(self.article_view.full is not None)

    def toggle_star(self) -> None:
        self._toggle("starred", "Star", "Unstar")

    def toggle_read(self) -> None:
        self._toggle("read", "Mark as read", "Mark as unread")

    def _toggle(self, column: str, on_text: str, off_text: str) -> None:
        # The article being read when no row is (another feed selected since, a
        # search cleared), as "v" and copying the link do: "s" did nothing.
        eid = self.selected_entry_id() or self._current_entry
        if eid is None:
            return
        row = self.store.entry_rows([eid]).get(eid)
        if row is None:
            return
        value = not getattr(row, column)
        # On the undo stack too, so Ctrl+Z after "m" undoes the "m", not an older step.
        title = elide(row.title, 40)
        command = FlagCommand(self, f"{on_text if value else off_text} “{title}”", [eid],
                              column, value, subject=f"“{title}”")  # fmt: skip
        command.apply(value)
        self.undo_stack.push(command)
        # replaces an older step's "— Ctrl+Z undoes it": Ctrl+Z now undoes this one
        self._say(command.said(value), undoable=True)

    def mark_all_read(self) -> None:
        """Mark what the list shows as read: a search's or the starred view's
        articles only, else everything in the selected feeds. Undoable."""
        key = self.current_key()
        if key == "smart:starred" or self.search.text().strip():
            ids = self.store.mark_read(self.list_model.ids())
        else:
            feeds = self.tree_model.feed_ids_for(self.tree.currentIndex())
            # Only what the list was read from: items stored since stay unread
            # (by the clock, those stored in the second before the list caught up
            # went too, never shown)
            upto, above = self.list_model.shown_upto()
            ids = self.store.mark_all_read(feeds, upto_id=upto)
            if above:
                ids += self.store.mark_read(sorted(above))
        self._marked_read(ids, whole_list=True)

    def mark_above_read(self) -> None:
        self._mark_side_read(above=True)

    def mark_below_read(self) -> None:
        self._mark_side_read(above=False)

    def _mark_side_read(self, *, above: bool) -> None:
        """Mark the articles listed above (or below) the selected one as read, in
        the list's order as shown: with the newest first, "below" is older."""
        row = self.selected_row()
        if row < 0:
            self.statusBar().showMessage("Select an article first", 4000)
            return
        ids = self.list_model.ids()
        side = ids[:row] if above else ids[row + 1 :]
        self._marked_read(self.store.mark_read(side), whole_list=False)

    def _marked_read(self, ids: list[int], *, whole_list: bool) -> None:
        if not ids:
            self.statusBar().showMessage("Nothing here is unread", 4000)
            return
        n = count_of(len(ids), "article")
        self.undo_stack.push(FlagCommand(self, f"Mark {n} as read", ids, "read", True,
                                         whole_list=whole_list))  # fmt: skip
        if whole_list:
            self._read_state_changed()
        else:
            self._flags_changed(ids)
        self._say(f"Marked {n} as read", undoable=True)

    def copy_link(self) -> None:
        eid = self.selected_entry_id() or self._current_entry
        if eid is not None and eid == self._current_entry and self._article_gone():
            eid = None
        link = self.store.entry(eid).link if eid is not None else None
        if not link:
            self.statusBar().showMessage("This article has no link", 4000)
            return
        QGuiApplication.clipboard().setText(link)
        self.statusBar().showMessage(f"Copied {elide(link, 80)}", 4000)

    def _read_state_changed(self) -> None:
        self.list_model.invalidate()
        self._counts_changed()

    def _flags_changed(self, ids: list[int]) -> None:
        self.list_model.refresh_ids(ids)
        self._counts_changed()

    def _counts_changed(self) -> None:
        self.tree_model.reload()
        self._update_unread_total()

    def _update_unread_total(self) -> None:
        # The tree has just been reloaded (every caller does that first): its total
        # is the same ``unread_counts()`` query, not worth running twice.
        total = self.tree_model.total_unread()
        self.tray.set_unread(total) if hasattr(self, "tray") else None
        title = "smartreader — demo" if self.demo else "smartreader"
        self.setWindowTitle(f"{title} ({total})" if total else title)

    # -- feeds ---------------------------------------------------------------------------

    def move_feed(self, step: int) -> None:
        keys = [k for k in self.tree_model.feed_keys_in_order() if k.startswith("feed:")]
        if not keys:
            return
        cur = self.current_key()
        i = keys.index(cur) + step if cur in keys else (0 if step > 0 else len(keys) - 1)
        if 0 <= i < len(keys):
            self.select_key(keys[i])

    def refresh_current(self) -> None:
        ids = self.tree_model.feed_ids_for(self.tree.currentIndex())
        if ids is None:
            self.refresh_all()
        elif ids:
            self.sched.refresh_feeds(ids)

    def refresh_all(self) -> None:
        self.sched.refresh_all()

    def feed_properties(self) -> None:
        fid = self.current_feed_id()
        if fid is None:
            return
        before = self.store.feed(fid)
        dlg = FeedPropertiesDialog(self.store, fid, self)
        # Cancel can follow a partial save (the title, folder and the rest are kept
        # when the keyring refuses the password): the tree must show that too.
        if dlg.exec() or self.store.feed(fid) != before:
            self.sched.feed_changed(fid)
            if dlg.keep_changed:
                self.sched.cleanup_now()
            self.list_model.reload_feed_titles()
            self._counts_changed()
            self.select_key(f"feed:{fid}")

    def open_rules(self) -> RulesDialog:
        """Feed ▸ Rules… (returned for tests). A new rule starts from the selected
        feed and the words searched for, if any."""
        try:
            feeds = [(f.id, f.display_title) for f in self.store.feeds(with_state=False)]
        except SmartReaderError as e:
            warn(self, "Rules", str(e))
            feeds = []
        words = self.search.text().strip()
        dlg = RulesDialog(self.store, feeds, self, feed_id=self.current_feed_id(), words=words)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.applyRequested.connect(self._apply_rule_now)
        dlg.open()
        return dlg

    @Slot(list, str, str)
    def _apply_rule_now(self, ids: list[int], column: str, what: str) -> None:
        """A rule applied to the articles stored already, as one undo step."""
        try:
            (self.store.set_read if column == "read" else self.store.set_starred)(ids, True)
        except SmartReaderError as e:
            warn(self, "Rules", str(e))
            return
        n = count_of(len(ids), "article")
        text = f"Mark {n} as read" if column == "read" else f"Star {n}"
        self.undo_stack.push(FlagCommand(self, f"{text} (rule {what})", ids, column, True,
                                         whole_list=True))  # fmt: skip
        self._read_state_changed()
        done = f"Marked {n} as read" if column == "read" else f"Starred {n}"
        self._say(f"{done} by the rule {what}", undoable=True)

    def rename_node(self) -> None:
        node = self.tree_model.node(self.tree.currentIndex())
        if node.kind not in ("feed", "folder"):
            return
        text, ok = QInputDialog.getText(self, "Rename", "New name:", text=node.title)
        if not ok or not text.strip():
            return
        name = text.strip()
        if name == node.title:
            return
        try:
            if node.kind == "feed":
                old = self.store.feed(int(node.id)).user_title
                self.store.update_feed(int(node.id), user_title=name)
                command = RenameCommand(self, "feed", int(node.id), old, name)
            else:
                self.store.rename_folder(int(node.id), name)
                command = RenameCommand(self, "folder", None, node.title, name)
        except SmartReaderError as e:
            warn(self, "Rename", str(e))
            return
        self._names_changed(node.key)
        self.undo_stack.push(command)
        self._say(f"Renamed “{node.title}” to “{name}”", undoable=True)

    def _names_changed(self, key: str) -> None:
        self.list_model.reload_feed_titles()
        self.tree_model.reload()
        self.select_key(key)

    def delete_node(self, *, confirm: bool = True) -> None:
        node = self.tree_model.node(self.tree.currentIndex())
        if node.kind == "feed":
            question = self.unsubscribe_question(int(node.id), node.title)
        elif node.kind == "folder":
            question = f"Delete the folder “{node.title}”? Its feeds move to the top level."
        else:
            return
        # Enter must not delete for good what no undo brings back (a feed too big
        # to keep for one): No is then the default
        final = node.kind == "feed" and not undoable(self.store, int(node.id))
        if confirm and not (ask_to_delete if final else ask)(self, "smartreader", question):
            return
        if node.kind == "feed":
            done = self._unsubscribe(int(node.id), keep_for_undo=True)
            if done is not None and done.undo is not None:
                self.undo_stack.push(UnsubscribeCommand(self, int(node.id), node.title, done))
            return
        members = [f.id for f in self.store.feeds() if f.folder_id == int(node.id)]
        self._delete_folder(int(node.id), node.title)
        self.undo_stack.push(DeleteFolderCommand(self, node.title, members))

    def _delete_folder(self, folder_id: int, name: str) -> None:
        self.store.delete_folder(folder_id)
        self.tree_model.reload()
        self.select_key("smart:unread")
        self._update_unread_total()
        undo = self._undo_key()
        self.statusBar().showMessage(
            f"Deleted the folder “{name}”; its feeds are at the top level — {undo} undoes it",
            10_000,
        )

    def _unsubscribe(self, feed_id: int, *, keep_for_undo: bool) -> Unsubscribed | None:
        """Unsubscribe and say so; None (and a warning) when it could not be done."""
        try:
            done = unsubscribe(self.store, feed_id, keep_for_undo=keep_for_undo)
        except SmartReaderError as e:  # a full disk, a busy database: nothing deleted
            warn(self, "Unsubscribe", str(e))
            return None
        self.sched.feed_changed(feed_id)
        message = done.summary()
        if done.password_problem:
            message += f"; its password stays in the keyring ({done.password_problem})"
        message = message[0].upper() + message[1:]
        if done.undo is not None:
            undo = self._undo_key()
            message += f" — {undo} brings it back"
        self.statusBar().showMessage(message, 10_000)
        self.tree_model.reload()
        self.select_key("smart:unread")
        self._update_unread_total()
        self._article_gone()
        return done

    def _resubscribe(self, done: Unsubscribed) -> int | None:
        """Undo an unsubscribe; the feed's id (None, and a warning, if it could not)."""
        assert done.undo is not None
        try:
            fid, problem = resubscribe(self.store, done.undo)
        except SmartReaderError as e:
            warn(self, "Undo unsubscribe", str(e))
            return None
        self.sched.feed_changed(fid)
        self.tree_model.reload()
        # its name, for the list's Feed column and a list sorted by feed
        self.list_model.reload_feed_titles()
        self.select_feed(fid)
        self._update_unread_total()
        message = f"“{done.title}” is back with its {count_of(done.articles, 'article')}"
        if problem:
            message += f"; {problem}"
        self._say(message, redoable=True)  # only an undo brings a feed back
        return fid

    def unsubscribe_question(self, feed_id: int, title: str) -> str:
        """What unsubscribing deletes, said before it does: starred articles and a
        saved password go too."""
        n, starred = self.store.entry_count(feed_id), self.store.starred_count(feed_id)
        text = f"Unsubscribe from “{title}”? Its {count_of(n, 'article')} "
        text += "is deleted" if n == 1 else "are deleted"
        text += f", {starred:,} of them starred." if starred else "."
        feed = self.store.feed(feed_id)
        if feed.auth_username and kept_for_session(feed.url, feed.auth_username):
            text += " Its password, kept for this session only, is forgotten."
        elif feed.auth_username and keyring_available():  # else none can be saved
            text += " Its saved password is removed from the keyring."
        if not undoable(self.store, feed_id):
            text += " This cannot be undone: the feed is too big to keep for an undo."
        return text

    @Slot(int, object)
    def _move_feed(self, feed_id: int, folder: str | None) -> None:
        """Move a feed to a folder (None: the top level), as one undo step."""
        try:
            old = self.store.feed(int(feed_id)).folder
        except SmartReaderError:
            return  # unsubscribed meanwhile
        if (old or None) == (folder or None):
            return
        title = self._feed_title(feed_id)
        if not self._put_feed(feed_id, folder):
            return
        self.undo_stack.push(MoveFeedCommand(self, feed_id, title, old, folder))
        self._say(f"Moved “{title}” to {_where(folder)}", undoable=True)

    def _put_feed(self, feed_id: int, folder: str | None) -> bool:
        try:
            self.store.update_feed(int(feed_id), folder=folder)
        except SmartReaderError as e:
            self.statusBar().showMessage(f"Could not move the feed: {e}", 10_000)
            return False
        self.tree_model.reload()
        self.select_feed(feed_id)
        return True

    def _fill_move_menu(self) -> None:
        """Feed ▸ Move to: every folder but the feed's own, the top level, a new one."""
        menu = self.move_menu
        menu.clear()
        node = self.tree_model.node(self.tree.currentIndex())
        if node.kind != "feed":
            menu.addAction("(select a feed to move)").setEnabled(False)
            return
        fid = int(node.id)
        here = self.store.feed(fid).folder
        for folder in self.store.folders():
            act = menu.addAction(folder.name.replace("&", "&&"))
            act.setEnabled(folder.name != here)
            act.triggered.connect(lambda _c=False, n=folder.name: self._move_feed(fid, n))
        if menu.actions():
            menu.addSeparator()
        top = menu.addAction("&Top level")
        top.setEnabled(here is not None)
        top.triggered.connect(lambda _c=False: self._move_feed(fid, None))
        menu.addAction("&New folder…").triggered.connect(lambda _c=False: self._move_to_new(fid))

    def _move_to_new(self, feed_id: int) -> None:
        text, ok = QInputDialog.getText(self, "Move to a new folder", "Folder name:")
        if ok and text.strip():
            self._move_feed(feed_id, text.strip())

    # -- subscribing, OPML -------------------------------------------------------------

    def add_feed(self, url: str | None = None) -> AddFeedDialog:
        """Open the Add feed dialog (non-modal; returned for tests). One at a time:
        a second left the first's answer with nowhere to go (it spun for ever)."""
        open_ = self._add_dialog
        if open_ is not None:
            if url and open_.url.isEnabled():  # not while it looks for a feed
                open_.url.setText(url)
            open_.raise_()
            open_.activateWindow()
            return open_
        folders = [f.name for f in self.store.folders()]
        node = self.tree_model.node(self.tree.currentIndex())
        dlg = AddFeedDialog(folders, self, folder=node.title if node.kind == "folder" else None)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        serial = next(self._dialog_serial)
        dlg.setProperty("serial", serial)
        dlg.subscribeRequested.connect(
            lambda url, folder, login: self._request_subscription(serial, url, folder, login)
        )
        dlg.subscribeChosen.connect(
            lambda options, folder, login: self._request_chosen(serial, options, folder, login)
        )
        if url:
            dlg.url.setText(url)
        self._add_dialog = dlg
        dlg.finished.connect(lambda result: self._add_dialog_closed(dlg, serial, result))
        dlg.show()
        return dlg

    _add_dialog: AddFeedDialog | None = None
    # One request per subscription asked of the worker, oldest first (it answers
    # them in order, each with one of subscribed, feedsFound, subscribeFailed);
    # Cancel while some run clears their ``wanted``.
    _requests: deque[_SubscribeRequest]

    def _new_folder(self, folder: object) -> str | None:
        """The folder name, if the subscription will make that folder."""
        if isinstance(folder, str) and self.store.folder_id(folder, create=False) is None:
            return folder.strip() or None
        return None

    def _request_subscription(self, serial: int, url: str, folder: object, login: Any) -> None:
        self._requests.append(_SubscribeRequest(serial, new_folder=self._new_folder(folder)))
        self.sched.subscribe(url, folder, choose=True, login=login)  # type: ignore[arg-type]

    def _request_chosen(self, serial: int, options: list[Any], folder: object, login: Any) -> None:
        """Subscribe to each feed ticked in the dialog (each one request). The
        login typed for the site goes only to its feeds on the same site (as the
        fetcher's rule for a redirect): elsewhere it would give the password away."""
        page = self._add_dialog.url.text().strip() if self._add_dialog is not None else ""
        new = self._new_folder(folder)
        for option in options:
            self._requests.append(_SubscribeRequest(serial, option, new_folder=new))
            self.sched.subscribe(
                option.address,
                folder,  # type: ignore[arg-type]
                public_only=option.public_only,
                login=login if login and credentials_may_follow(page, option.url) else None,
            )

    def _add_dialog_closed(self, dlg: AddFeedDialog, serial: int, result: int) -> None:
        if self._add_dialog is dlg:
            self._add_dialog = None
        if result != QDialog.DialogCode.Accepted:
            for r in self._requests:
                if r.serial == serial:
                    r.wanted = False  # cancelled while looking: undone when it arrives

    def _answer(self) -> _SubscribeRequest:
        """The request the worker's answer belongs to (the oldest open one)."""
        if self._requests:
            return self._requests.popleft()
        return _SubscribeRequest(0)  # one not asked here (tests, a script)

    def _dialog_for(self, r: _SubscribeRequest) -> AddFeedDialog | None:
        dlg = self._add_dialog
        if dlg is not None and r.serial and dlg.property("serial") == r.serial:
            return dlg
        return None

    def _batch_open(self, serial: int) -> bool:
        return any(r.serial == serial for r in self._requests)

    @Slot(int)
    def _subscribed(self, feed_id: int) -> None:
        r = self._answer()
        if not r.wanted:
            self._drop_cancelled(feed_id, r.new_folder)
            return
        self._leave_welcome()
        self.list_model.reload_feed_titles()
        self.tree_model.reload()
        self._update_unread_total()
        dlg = self._dialog_for(r)
        if dlg is None:
            self.select_feed(feed_id)
            self._say_subscribed([feed_id])
            return
        dlg.done_ids.append(feed_id)
        if r.option is not None:
            dlg.mark_subscribed(r.option.url)
        if not self._batch_open(r.serial):
            self._batch_done(dlg)

    def _batch_done(self, dlg: AddFeedDialog) -> None:
        """Every feed the dialog asked for is answered: close it when all were
        subscribed; else it stays, saying which failed (the rest are kept)."""
        done = dlg.done_ids
        if done:
            self.select_feed(done[0])
            self._say_subscribed(done)
        if dlg.failures and dlg.wants_login:
            dlg.show_login("\n".join(dlg.failures), refused=dlg.login() is not None)
        elif dlg.failures:
            dlg.show_error("\n".join(dlg.failures))
        else:
            dlg.accept()

    def _say_subscribed(self, feed_ids: list[int]) -> None:
        """Subscribed to these, in the status bar; and, with no keyring, that the
        password lasts only until quit (the dialog that said so is gone)."""
        titles = ", ".join(self._feed_title(f) for f in feed_ids)
        if len(feed_ids) == 1:
            message = f"Subscribed to {titles}"
        else:
            message = f"Subscribed to {count_of(len(feed_ids), 'feed')}: {titles}"
        feeds = [self.store.feed(f) for f in feed_ids]
        if any(f.auth_username and kept_for_session(f.url, f.auth_username) for f in feeds):
            # short enough beside the status bar's own fields; the dialog's note
            # said what a restart means
            message += " — no system keyring: password kept for this session only"
            self.statusBar().showMessage(message, 30_000)
            return
        self.statusBar().showMessage(message, 6000)

    def _drop_cancelled(self, feed_id: int, new_folder: str | None = None) -> None:
        """The user cancelled this subscription before the worker was done with it
        (the feed cannot be interrupted mid-fetch): take it out again, quietly, and
        the folder it made (``new_folder``), left empty."""
        title = self._feed_title(feed_id)
        # a list refreshed meanwhile (a fetch's results) may show its articles
        shown = self.list_model.holds_any(set(self.store.entry_ids(feed_ids=[feed_id])))
        try:
            unsubscribe(self.store, feed_id, keep_for_undo=False)
            folder = self.store.folder_id(new_folder, create=False) if new_folder else None
            if folder is not None and not any(f.folder_id == folder for f in self.store.feeds()):
                self.store.delete_folder(folder)
        except SmartReaderError as e:  # a busy database: it stays, and the user sees it
            self.tree_model.reload()
            self.statusBar().showMessage(f"Could not cancel subscribing to {title}: {e}", 10_000)
            return
        self.tree_model.reload()  # the folder, if the tree had it
        if shown:  # deleted: read the list again (the article open stays selected)
            self._apply_query()
        self.sched.feed_changed(feed_id)
        self.statusBar().showMessage(f"Cancelled: not subscribed to {title}", 6000)

    @Slot(str, bool)
    def _subscribe_failed(self, message: str, needs_login: bool = False) -> None:
        r = self._answer()
        if not r.wanted:
            return  # cancelled anyway
        dlg = self._dialog_for(r)
        if dlg is None:
            self.statusBar().showMessage(message, 10_000)
            return
        if r.option is None:
            if needs_login:
                dlg.show_login(message, refused=dlg.login() is not None)
            else:
                dlg.show_error(message)
            return
        dlg.wants_login = dlg.wants_login or needs_login
        dlg.failures.append(f"{r.option.title or r.option.url}: {message}")
        if not self._batch_open(r.serial):
            self._batch_done(dlg)

    @Slot(str, object)
    def _feeds_found(self, page: str, options: list[Any]) -> None:
        r = self._answer()
        dlg = self._dialog_for(r)
        if r.wanted and dlg is not None:
            dlg.show_choices(page, options)

    def import_opml(self, path: str | None = None) -> int:
        """Subscribe to every new feed of an OPML file; returns how many were added."""
        if path is None:
            path, _ = QFileDialog.getOpenFileName(
                self, "Import OPML", str(Path.home()), "OPML (*.opml *.xml);;All files (*)"
            )
            if not path:
                return 0
        try:
            report = import_opml(self.store, Path(path).read_bytes())
        except (OSError, SmartReaderError) as e:
            warn(self, "Import OPML", f"Could not import {path}: {e}")
            return 0
        for fid in report.added:
            self.sched.feed_changed(fid)
        self.list_model.reload_feed_titles()
        self.tree_model.reload()
        self._update_unread_total()
        if report.added:
            self._leave_welcome()
            self.sched.refresh_feeds(report.added)
            if self.current_key() == "smart:unread":
                self._apply_query()
        summary = report.summary()
        summary = summary[0].upper() + summary[1:]
        self.statusBar().showMessage(summary, 8000)
        if report.details():
            # Not modal: the import is done; this only says what was left out.
            box = message_box(QMessageBox.Icon.Information, "Import OPML",
                              f"{summary}: the details say what was left out or how "
                              "the file was read.", self)  # fmt: skip
            box.setDetailedText("\n".join(report.details()))
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()
            self.import_problems = box
        return len(report.added)

    def export_opml(self, path: str | None = None) -> Path | None:
        if path is None:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export OPML", str(Path.home() / "smartreader.opml"), "OPML (*.opml)"
            )
            if not path:
                return None
        dest = Path(path)
        try:
            n = save_opml(self.store, dest)
        except SmartReaderError as e:
            warn(self, "Export OPML", f"Could not export: {e}")
            return None
        self.statusBar().showMessage(f"Exported {count_of(n, 'feed')} to {dest}", 8000)
        return dest

    # -- welcome -------------------------------------------------------------------------

    def show_welcome(self) -> None:
        self.tabs.setCurrentWidget(self.article_view)
        self.article_view.show_welcome(demo_available=not self.demo)

    def _leave_welcome(self) -> None:
        # the first feeds are in: "add a feed or import a list" no longer applies
        if self._current_entry is None:
            self.article_view.show_empty()

    @Slot(str)
    def _welcome_action(self, action: str) -> None:
        if action == "add":
            self.add_feed()
        elif action == "import":
            self.import_opml()
        elif action == "demo":
            self.demoRequested.emit()
        elif action in ("full", "feedtext", "fullagain"):
            self._full_action(action)

    # -- settings, help -------------------------------------------------------------------

    _settings: SettingsDialog | None = None  # the one open, if any

    def open_settings(self) -> SettingsDialog:
        """Open Settings (non-modal; returned for tests), or bring forward the one
        already open: two at once each saved on OK what it showed when opened,
        so the second undid the first one's choices."""
        dlg = self._settings
        if dlg is not None:
            if dlg.isMinimized():
                dlg.showNormal()
            dlg.show()
            dlg.raise_()
            dlg.activateWindow()
            return dlg
        dlg = SettingsDialog(self.store, self.updater, self.prefs, self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._settings = dlg
        dlg.finished.connect(lambda _result: self._settings_closed(dlg))
        # the Activity panel follows once the worker runs on the new plan
        dlg.budgetChanged.connect(lambda v: self._plan_sent("budget", v))
        dlg.minIntervalChanged.connect(lambda v: self._plan_sent("min_interval", v))
        dlg.maxIntervalChanged.connect(lambda v: self._plan_sent("max_interval", v))
        dlg.budgetChanged.connect(self.sched.set_budget)
        dlg.minIntervalChanged.connect(self.sched.set_min_interval)
        dlg.maxIntervalChanged.connect(self.sched.set_max_interval)
        dlg.notificationsChanged.connect(self.tray.set_notifications)
        dlg.trayIconChanged.connect(self.tray.set_visible)
        dlg.themeChanged.connect(self._theme_changed)
        dlg.keepChanged.connect(self.sched.cleanup_now)
        dlg.compactRequested.connect(self._compact)
        self.sched.compactFinished.connect(dlg.compact_done)
        dlg.show()
        return dlg

    def _settings_closed(self, dlg: SettingsDialog) -> None:
        if self._settings is dlg:
            self._settings = None

    def _plan_sent(self, key: str, value: float) -> None:
        """A budget or an interval went to the worker (``key``: "budget",
        "min_interval" or "max_interval"). The Activity panel reads the updater's plan itself: it is
        refreshed once the worker runs on every value sent (``_status_changed``)."""
        self._plan_wanted[key] = float(value)

    def _plan_applied(self) -> bool:
        try:
            running = {
                "budget": self.updater.budget(),
                "min_interval": self.updater.min_interval(),
                "max_interval": self.updater.max_interval(),
            }
        except Exception:
            log.exception("reading the scheduler's settings failed")
            return True  # nothing to wait for: refresh with what there is
        return all(running.get(k) == v for k, v in self._plan_wanted.items())

    _compact_box: CompactingDialog | None = None

    @Slot()
    def _compact(self) -> None:
        """Compact on the worker. Every write waits for it (opening an article marks
        it read), so past ``COMPACT_BOX_MS`` a modal box says so, with a Stop
        button, instead of a window that freezes at the next click."""
        if self._compact_box is None:
            self._compact_box = CompactingDialog(self)
            self._compact_box.stopRequested.connect(self.sched.stop_compact)
        self._compact_box.arm(COMPACT_BOX_MS)
        self.sched.compact_now()

    @Slot(object)
    def _compacted(self, result: dict[str, Any]) -> None:
        if self._compact_box is not None:
            self._compact_box.finish()
        if result.get("error") == COMPACT_STOPPED:
            self.statusBar().showMessage("Stopped compacting the database: nothing changed")
        elif result.get("error"):
            self.statusBar().showMessage(f"Compacting the database failed: {result['error']}")
        else:
            before, after = result["before"] / 1e6, result["after"] / 1e6
            self.statusBar().showMessage(
                f"Compacted the database: {before:,.1f} MB → {after:,.1f} MB", 10_000
            )

    @Slot(int)
    def _entries_purged(self, n: int) -> None:
        """Old articles were deleted (the daily clean-up): counts and lists follow."""
        self.tree_model.reload()
        self._apply_query()
        self._update_unread_total()
        self._article_gone()
        self.statusBar().showMessage(
            f"Deleted {count_of(n, 'old article')}, as set in Settings", 10_000
        )

    def _theme_changed(self, theme: str) -> None:
        from smartreader.gui.app import apply_theme

        apply_theme(theme)

    def show_help(self) -> None:
        self.help.open()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    # Space and Enter: the window's reading keys (next unread, open the article)
    _READING_KEYS = (Qt.Key.Key_Space, Qt.Key.Key_Return, Qt.Key.Key_Enter)

    def event(self, e: QEvent) -> bool:
        # A ShortcutOverride that no widget took reaches the window (key events go
        # up to the parents). Accepting it gives the key to the focused control as
        # a key press instead of to the shortcut: Space on the Alerts page's "Show
        # feed" button ran "next unread" (switching tabs, marking an article read)
        # and Enter on a link in the article ran "Open article".
        if (
            e.type() == QEvent.Type.ShortcutOverride
            and isinstance(e, QKeyEvent)
            and self._focus_takes_key(e)
        ):
            e.accept()
            return True
        return super().event(e)

    def _focus_takes_key(self, e: QKeyEvent) -> bool:
        """Whether Space or Enter (``e``) belongs to the focused control, not to
        the window's reading shortcuts: everywhere but the feed tree, the
        article list and the article text (bar a link Tab has focused in it).
        A letter (the list's j, s, m, Shift+A…) belongs to another table, list
        or box with the focus: its type-ahead, not the article list's article."""
        if e.modifiers() & (
            Qt.KeyboardModifier.ControlModifier
            | Qt.KeyboardModifier.AltModifier
            | Qt.KeyboardModifier.MetaModifier
        ):
            return False  # Alt+Enter (properties) and the like are the window's
        fw = QApplication.focusWidget()
        if Qt.Key.Key_A <= e.key() <= Qt.Key.Key_Z:
            return fw not in (self.list, self.tree) and isinstance(
                fw, (QAbstractItemView, QComboBox, QAbstractSpinBox)
            )
        if e.key() not in self._READING_KEYS:
            return False
        if fw is None or fw is self.list or fw is self.tree:
            return False
        if fw is self.article_view.browser:
            # Space still scrolls the article; Enter follows the focused link
            return e.key() != Qt.Key.Key_Space and self._link_focused()
        return True  # a button, the tab bar, a table, a text field…

    def _link_focused(self) -> bool:
        """Whether Tab has put the focus on a link in the article text: the
        browser then selects the link's text, and Qt follows it on Enter when
        the selection starts with an anchor (the same test as Qt's own)."""
        c = self.article_view.browser.textCursor()
        if not c.hasSelection():
            return False
        c.setPosition(c.selectionStart())
        c.movePosition(QTextCursor.MoveOperation.NextCharacter)
        return bool(c.charFormat().anchorHref())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # The Menu key (Shift+F10 on Windows) sends the tree or the list a context
        # menu event at its current item's centre in the view's own coordinates,
        # which customContextMenuRequested passes on as they are; read as viewport
        # coordinates (a right click's), the list's header height put them on the
        # row below. Such a menu is for the current item, shown at it.
        if (
            event.type() == QEvent.Type.ContextMenu
            and isinstance(event, QContextMenuEvent)
            and event.reason() == QContextMenuEvent.Reason.Keyboard
            and (watched is self.list or watched is self.tree)
        ):
            self._keyboard_menu(self.list if watched is self.list else self.tree)
            return True
        return super().eventFilter(watched, event)

    def _keyboard_menu(self, view: QAbstractItemView) -> None:
        """The tree's or the list's menu for its current item, shown at it."""
        idx = view.currentIndex()
        pos = QPoint(0, 0)
        if idx.isValid():
            view.scrollTo(idx)
            pos = view.visualRect(idx).center()
        if view is self.list:
            self._list_menu(pos, idx)
        else:
            self._tree_menu(pos, idx)

    def _shift_f10(self) -> None:
        # Shift+F10 opens the context menu in GTK and Windows programs; Qt makes
        # a menu of it only on Windows
        fw = QApplication.focusWidget()
        if fw is self.list or fw is self.tree:
            self._keyboard_menu(fw)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Escape and (self.search.hasFocus() or self.search.text()):
            # as in most readers, Escape ends the search, from the field or from the
            # list it moved to: the whole list comes back (the article being read
            # stays selected in it)
            if self.search.text():
                self.search.clear()
                self._search_timer.stop()
                self._apply_query()
            self.list.setFocus()
            return
        super().keyPressEvent(event)

    def _undo_key(self) -> str:
        """Ctrl+Z as this desktop writes it, for "… undoes it" messages."""
        return self.act_undo.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

    def _redo_key(self) -> str:
        """The redo key bound here (Ctrl+Y or Ctrl+Shift+Z by platform, the one
        Edit ▸ Redo shows), for "… redoes it" messages; "" if there is none."""
        return self.act_redo.shortcut().toString(QKeySequence.SequenceFormat.NativeText)

    def _say(self, text: str, *, undoable: bool = False, redoable: bool = False) -> None:
        """What a step (or its undo, its redo) did, in the status bar for 10 s;
        ``undoable``: "— Ctrl+Z undoes it" follows; ``redoable`` (said by an
        undo): "— Ctrl+Y redoes it", the way back from an undo made by mistake."""
        if undoable:
            text += f" — {self._undo_key()} undoes it"
        elif redoable and self._redo_key():
            text += f" — {self._redo_key()} redoes it"
        self.statusBar().showMessage(text, 10_000)

    def show_window(self) -> None:
        """Bring the window up: from the tray, minimised, or behind others."""
        if self.isMinimized() or not self.isVisible():
            self.showNormal()
        QApplication.setQuitOnLastWindowClosed(True)
        self.raise_()
        self.activateWindow()

    # -- tabs ------------------------------------------------------------------------------

    @Slot(int)
    def _tab_changed(self, _i: int) -> None:
        w = self.tabs.currentWidget()
        if w is self.activity:
            self.activity.set_feed(self.current_feed_id())
        elif w is self.alerts_view:
            self.alerts_view.refresh()

    # -- alerts ------------------------------------------------------------------------------

    def _update_banner(self) -> None:
        fid = self.current_feed_id()
        alerts = self.store.alerts(feed_id=fid) if fid is not None else []
        try:
            feed = self.store.feed(fid) if fid is not None else None
        except SmartReaderError:  # deleted meanwhile
            feed = None
        if alerts and feed is not None:
            limit = self._check_limit(feed.id)
            self.banner.set_alerts(alerts, limit=limit, site=site_url(feed) is not None)
        else:
            self.banner.set_alerts([])
        self.error_banner.set_feed(feed)
        # A screen reader said only "Dismiss": Tab reaches the buttons, never the
        # text, so each button carries what the notice says
        for b in (self.banner.remedy, self.banner.site, self.banner.button):
            b.setAccessibleDescription(self.banner.text())
        for b in (self.error_banner.retry, self.error_banner.props):
            b.setAccessibleDescription(self.error_banner.text())

    @Slot(int)
    def _retry_feed(self, feed_id: int) -> None:
        try:
            if self.store.feed(feed_id).status == "gone":
                # the user says it may be back: scheduled and checked again
                self.store.update_feed(feed_id, status="active")
                self.sched.feed_changed(feed_id)
        except SmartReaderError as e:
            self.statusBar().showMessage(str(e), 10_000)
            return
        self.sched.refresh_feeds([feed_id])
        self.statusBar().showMessage(f"Checking {self._feed_title(feed_id)}…", 4000)

    def _check_limit(self, feed_id: int) -> CheckLimit | None:
        return feed_check_limit(self.store, self.updater, feed_id)

    @Slot(int)
    def _open_site(self, feed_id: int) -> None:
        try:
            url = site_url(self.store.feed(feed_id))
        except SmartReaderError:  # deleted meanwhile
            return
        if url:
            self._open_url(QUrl(url))

    @Slot(int)
    def _dismiss_alert(self, alert_id: int) -> None:
        # the banner summed up all of the feed's open alerts: one Dismiss for them all
        self.store.dismiss_feed_alerts(alert_id)
        self._after_alerts_changed()
        # Dismiss (which had the focus) hid itself, and Qt passed the focus on along
        # the chain: it belongs on the list the notice was about
        if self.list.isVisible():
            self.list.setFocus(Qt.FocusReason.OtherFocusReason)

    def _after_alerts_changed(self) -> None:
        self.tree_model.reload()
        self._update_banner()
        if self.tabs.currentWidget() is self.alerts_view:
            self.alerts_view.refresh()
        self.tray.set_open_alert_feeds({a.feed_id for a in self.store.alerts()})

    @Slot(object)
    def _alert_raised(self, result: Any) -> None:
        self.tray.on_alert(result, self._check_limit(int(result.feed_id)))
        self._after_alerts_changed()

    # -- scheduler results -------------------------------------------------------------------

    @Slot(object)
    def _feed_updated(self, result: Any) -> None:
        self.tray.on_feed_updated(result)
        if result.status == "ok":
            self._fetched_feeds.add(result.feed_id)
        # Not restarted by every result: while hundreds of feeds update, counts and
        # the list still move, once a second (a refresh is 20–40 ms of this thread),
        # instead of only after the last one.
        if not self._refresh_timer.isActive():
            since = time.monotonic() - self._last_refresh
            self._refresh_timer.start(max(300, int(1000 * (1.0 - since))))

    def _refresh_after_update(self) -> None:
        if self._closing:
            return
        self._last_refresh = time.monotonic()
        feeds = self.reader.feeds(with_state=False)  # read once for both models
        self.list_model.reload_feed_titles(feeds)
        self.tree_model.reload(feeds)
        # The list's re-query on the next turn of the event loop: while hundreds of
        # feeds update, each part waits for the GIL between its SQLite calls, and
        # the two back to back were one ~60 ms stall.
        self._list_timer.start()

    def _refresh_list(self) -> None:
        if self._closing:
            return
        fetched = set(self._fetched_feeds)
        self._fetched_feeds.clear()
        self.list_model.forget_feeds(fetched)
        self._refresh_open_article(fetched)
        self.list_model.requery()
        self.list_model.take_edited_matches(fetched)  # a search: edits that now match
        self._update_unread_total()
        self._update_banner()

    def _refresh_open_article(self, fetched: set[int]) -> None:
        """The article being read, as its feed's fetch left it: an edited title or
        text is shown in place (the list's row already follows the edit)."""
        eid = self._current_entry
        if eid is None or not fetched:
            return
        rows = self.store.entry_rows([eid])
        if eid not in rows or rows[eid].feed_id not in fetched:
            return  # not fetched just now (a deleted one goes with the clean-up)
        entry = self.store.entry(eid)
        title = self.store.feed(entry.feed_id).display_title
        if self.article_view.refresh_entry(entry, title):
            self.statusBar().showMessage(
                "The article you are reading was updated by its feed", 6000
            )

    @Slot(bool)
    def _update_started(self, manual: bool) -> None:
        if manual:
            self.progress.setRange(0, 0)
            self.progress.setVisible(True)

    @Slot(int, int)
    def _progress(self, done: int, total: int) -> None:
        if not self.progress.isVisible():
            return
        # QProgressBar.setValue repaints at once (not at the next paint event):
        # once per result of 500 feeds was 500 synchronous repaints mid-update.
        now = time.monotonic()
        if done < total and now - self._progress_shown < 0.1:
            return
        self._progress_shown = now
        self.progress.setRange(0, max(1, total))
        self.progress.setValue(done)

    @Slot()
    def _update_finished(self) -> None:
        self.progress.setVisible(False)
        self._refresh_timer.start()

    @Slot(bool)
    def _pause_toggled(self, paused: bool) -> None:
        self.prefs.set("updates/paused", paused)
        self.sched.set_polling(not paused)
        self.activity.set_paused(paused)
        self.tray.set_paused(paused)

    @Slot(object)
    def _status_changed(self, status: SchedulerStatus) -> None:
        self._status = status
        self._update_status_text()
        if self._plan_wanted and self._plan_applied():
            # the status bar shows the new budget now: so does the Activity panel
            # (a hidden one is refreshed when its tab is chosen)
            self._plan_wanted.clear()
            if self.tabs.currentWidget() is self.activity:
                self.activity.refresh()

    def _update_status_text(self) -> None:
        s = self._status
        if s is None:
            return
        self.next_label.setToolTip(
            "Feeds are fetched only when you refresh them (Feed ▸ Pause updates)"
            if s.paused
            else ""
        )
        if s.updating:
            self.next_label.setText("Updating…")
        elif s.paused:
            self.next_label.setText("Updates paused")
        elif s.offline is not None:
            since, nxt = s.offline
            now = time.time()
            self.next_label.setText(f"Offline: next try {humanize_in(nxt, now)}")
            self.next_label.setToolTip(
                f"No server has answered since {local_time_text(since, now)}: the network "
                "seems down. One feed at a time tries it, a minute later, then less "
                "often, up to 15 minutes apart; no feed counts as failing meanwhile. "
                "Refresh tries now."
            )
        elif s.next_wakeup is None:
            self.next_label.setText("Nothing planned")
        else:
            self.next_label.setText(f"Next fetch {humanize_in(s.next_wakeup, time.time())}")
        # the cap is over any 24 h, not the calendar day ("today" read as since midnight)
        self.budget_label.setText(
            keep_units(f"{s.requests_today} / {s.budget:g} requests in the last 24 h")
        )
        self.status_rule.setVisible(True)
        self.budget_label.setToolTip(
            "Scheduled requests in the last 24 hours against the daily budget "
            "(manual refreshes are not counted)"
        )

    # -- context menus -----------------------------------------------------------------------

    def _tree_menu(self, pos: QPoint, index: QModelIndex | None = None) -> None:
        """The feed tree's menu at ``pos`` in viewport coordinates (as
        customContextMenuRequested gives a right click's), for ``index`` (by
        default the row under ``pos``)."""
        idx = self.tree.indexAt(pos) if index is None else index
        if idx.isValid():
            self.tree.setCurrentIndex(idx)
        node = self.tree_model.node(idx)
        menu = QMenu(self)
        menu.addAction(self.act_refresh)
        menu.addAction(self.act_mark_all)
        if node.kind == "feed":
            menu.addSeparator()
            menu.addAction(self.act_activity)
            menu.addAction(self.act_props)
            menu.addAction(self.act_rules)
        if node.kind in ("feed", "folder"):
            menu.addAction(self.act_rename)
            if node.kind == "feed":
                menu.addMenu(self.move_menu)
            menu.addAction(self.act_delete)
        menu.exec(self.tree.viewport().mapToGlobal(pos))

    def _list_menu(self, pos: QPoint, index: QModelIndex | None = None) -> None:
        """The article list's menu at ``pos`` in viewport coordinates, for
        ``index`` (by default the row under ``pos``)."""
        idx = self.list.indexAt(pos) if index is None else index
        if idx.isValid():
            self._select_row(idx.row(), open_=False)  # the menu acts on the row clicked
        menu = QMenu(self)
        for act in (self.act_browser, self.act_copy_link, None, self.act_star, self.act_read,
                    None, self.act_mark_above, self.act_mark_below):  # fmt: skip
            menu.addSeparator() if act is None else menu.addAction(act)
        menu.exec(self.list.viewport().mapToGlobal(pos))
