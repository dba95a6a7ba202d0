"""Dialogs of the main window: add a feed, feed properties, the shortcut overlay.

None of them does network I/O. ``AddFeedDialog`` only collects the URL (and a
login, when the feed asks for one) and emits ``subscribeRequested``; the window runs
the subscription off the GUI thread and reports back with
``set_busy``/``show_error``/``show_login``/``accept``. ``FeedPropertiesDialog``
writes feed settings to the store and the password to the system keyring
(``smartreader.net.credentials``), never anywhere else.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import html
import logging
import re
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAccessible, QAccessibleEvent, QColor, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from smartreader.errors import SmartReaderError
from smartreader.gui.charts import accent
from smartreader.gui.safetext import ask, ask_to_delete, plain_label
from smartreader.gui.settings import KEEP_CHOICES, interval_text, max_interval_combo, open_size
from smartreader.net import credentials as keyring_credentials
from smartreader.subscriptions import feed_address
from smartreader.text import count_of, date_time_text, with_kind

log = logging.getLogger(__name__)

_UNLIMITED = 16777215  # QWIDGETSIZE_MAX

# Schemes that are never a user name: "mailto:a@b.c" is not "user:password@host"
# typed without https:// (that read sent the password "a" to https://b.c)
_NOT_A_LOGIN = re.compile(r"^(?:mailto|javascript|vbscript|data|file|ftp|tel):", re.IGNORECASE)


def _suggest_only(combo: QComboBox) -> None:
    """The folders as suggestions under what is typed, not typed for the user:
    inline completion turned "News" into "News Archive" (the rest selected, easy
    to miss), and Subscribe or OK then filed the feed there, not in a new "News"."""
    completer = combo.completer()
    if completer is not None:
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)


def _error_label() -> QLabel:
    lab = plain_label()  # messages quote servers and feeds
    lab.setWordWrap(True)
    lab.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    _ErrorTint(lab)
    lab.setVisible(False)
    return lab


class _ErrorLink(QObject):
    """Ties an error label to the field it is about, for screen readers: while the
    error shows, it is the field's accessible description (which was its
    placeholder), and showing it sends an Alert, so it is said even when the focus
    does not move (Enter in the address field, which keeps the focus)."""

    def __init__(self, label: QLabel) -> None:
        super().__init__(label)
        self.label = label
        self.field: QWidget | None = None
        self._before = ""
        label.installEventFilter(self)

    def show(self, message: str, field: QWidget) -> None:
        self._untie()
        self.label.setText(message)
        self.label.setVisible(True)
        self.field, self._before = field, field.accessibleDescription()
        field.setAccessibleDescription(message)
        QAccessible.updateAccessibility(QAccessibleEvent(self.label, QAccessible.Event.Alert))

    def _untie(self) -> None:
        field, self.field = self.field, None
        if field is not None and isValid(field):
            field.setAccessibleDescription(self._before)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # hidden itself (the error has gone), not with its dialog
        if watched is self.label and event.type() == QEvent.Type.HideToParent:
            self._untie()
        return False


class _ErrorTint(QObject):
    """Keeps an error label's text in the theme's error red: ``accent(palette, 0)``,
    the Activity panel's error colour, 7.0:1 on the light window and 4.6:1 on the
    dark one (a fixed #d93025 was 4.4:1 and 3.2:1; WCAG asks 4.5:1 of text), and
    chosen anew when the palette changes (a theme switch with the dialog open)."""

    def __init__(self, label: QLabel) -> None:
        super().__init__(label)
        label.installEventFilter(self)
        self.tint(label)

    @staticmethod
    def tint(label: QLabel) -> None:
        pal = label.palette()
        red = accent(pal, 0)
        if pal.color(QPalette.ColorRole.WindowText) != red:  # else no PaletteChange loop
            pal.setColor(QPalette.ColorRole.WindowText, red)
            label.setPalette(pal)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.PaletteChange and isinstance(watched, QLabel):
            self.tint(watched)
        return False


class AddFeedDialog(QDialog):
    """Ask for a feed or site URL and a folder; when the site links several feeds,
    let the user tick which of them to subscribe to.

    A feed that needs a login gets it here: "This feed needs a login" shows the
    user name and password fields, and so does a feed that answers 401
    (``show_login``). A ``user:password@`` typed in the address moves into them.

    Signals:
        subscribeRequested(str, object, object): url, folder name or None, login
            (user name, password) or None. The dialog stays open, busy, until the
            caller calls ``accept()``, ``show_error()``, ``show_login()`` or
            ``show_choices()``.
        subscribeChosen(object, object, object): the ticked ``FeedOption`` list,
            folder, login. The dialog stays busy until the caller calls
            ``accept()`` or ``show_error()`` (``mark_subscribed`` as each one is
            done).
    """

    subscribeRequested = Signal(str, object, object)
    subscribeChosen = Signal(object, object, object)

    def __init__(
        self, folders: Sequence[str], parent: QWidget | None = None, *, folder: str | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add feed")
        self.setMinimumWidth(460)
        lay = QVBoxLayout(self)
        intro = QLabel("Paste the address of a feed, or of a website: smartreader finds its feed.")
        intro.setWordWrap(True)
        lay.addWidget(intro)
        form = QFormLayout()
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.org/ or https://example.org/feed.xml")
        self.url.textChanged.connect(self._url_edited)
        self.folder = QComboBox()
        self.folder.setEditable(True)
        self.folder.addItem("")
        self.folder.addItems(list(folders))
        self.folder.lineEdit().setPlaceholderText("(none — top level)")
        _suggest_only(self.folder)
        if folder:
            self.folder.setCurrentText(folder)
        form.addRow("&Address:", self.url)
        form.addRow("&Folder:", self.folder)
        # The login, folded away: most feeds are public.
        self.needs_login = QCheckBox("This feed needs a &login")
        self.needs_login.toggled.connect(self._login_toggled)
        self.username = QLineEdit()
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.login_note = plain_label()
        self.login_note.setWordWrap(True)
        form.addRow("", self.needs_login)
        form.addRow("&User name:", self.username)
        form.addRow("&Password:", self.password)
        self.form = form
        # The fields keep their place when the login's (longer) labels appear.
        labels = [form.labelForField(w) for w in (self.url, self.folder, self.username)]
        width = max(lab.sizeHint().width() for lab in labels if lab is not None)
        for lab in labels:
            if lab is not None:
                lab.setMinimumWidth(width)
        self._show_login_rows(False)
        lay.addLayout(form)
        lay.addWidget(self.login_note)  # not a form row: a form gives wrapped text too much height
        # The site's feeds, once it turns out to link several.
        self.choices_label = plain_label()
        self.choices_label.setWordWrap(True)
        self.choices_label.setVisible(False)
        self.choices = QTreeWidget()
        self.choices.setColumnCount(2)
        self.choices.setHeaderLabels(["Feed", "Address"])
        self.choices.setRootIsDecorated(False)
        self.choices.setUniformRowHeights(True)
        self.choices.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.choices.setVisible(False)
        self.choices.itemChanged.connect(lambda *_: self._update_ok())
        lay.addWidget(self.choices_label)
        lay.addWidget(self.choices, 1)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(6)
        self.progress.setVisible(False)
        self.status = plain_label()
        self.status.setVisible(False)
        self.error = _error_label()
        self._error_link = _ErrorLink(self.error)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok.setText("Subscribe")
        self.buttons.accepted.connect(self._submit)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._options: list[Any] = []  # FeedOption per row of ``choices``
        self._choices_for = ""  # the address they were found at
        # What the window collects while a batch of chosen feeds is answered.
        self.failures: list[str] = []
        self.done_ids: list[int] = []
        self.wants_login = False  # one of them answered 401
        self._update_ok()

    def _show_login_rows(self, shown: bool) -> None:
        for w in (self.username, self.password):
            self.form.setRowVisible(w, shown)
        # Asked when shown, not at start: a keyring may have come up since.
        keyring = shown and keyring_credentials.keyring_available()
        self.password.setPlaceholderText(
            "stored in the system keyring" if keyring else "kept for this session only"
        )
        self.login_note.setText(
            "No system keyring is available: the password will be kept in memory for "
            "this session only, never written anywhere. After a restart, enter it again "
            "in the feed's properties."
        )
        self.login_note.setVisible(shown and not keyring)

    @Slot(bool)
    def _login_toggled(self, on: bool) -> None:
        self._show_login_rows(on)
        if not on:  # an error asking for the login points at fields now gone
            self.error.setVisible(False)
        self._fit_height(shrink=not on)
        if on:
            (self.password if self.username.text() else self.username).setFocus()

    def login(self) -> tuple[str, str] | None:
        """The user name and password to subscribe with: None when no login is
        asked for (the fields hidden), or no user name given."""
        user = self.username.text().strip()
        if not self.needs_login.isChecked() or not user:
            return None
        return user, self.password.text()

    def show_login(self, message: str, *, refused: bool = False) -> None:
        """The feed answered 401: show ``message`` and the login fields, the cursor
        where the user types next (the password, when the one sent was refused)."""
        self.needs_login.setChecked(True)
        if not refused:
            message += "\nEnter the user name and password above, then Subscribe."
        field = self.password if self.username.text().strip() else self.username
        self.show_error(message, field=field)
        field.setFocus()
        if field is self.password:
            self.password.selectAll()

    def _url_edited(self) -> None:
        if self._options and self.url.text().strip() != self._choices_for:
            self._clear_choices()  # another address: find its feeds anew
        self._update_ok()

    def _clear_choices(self) -> None:
        self._options = []
        self.choices.clear()
        self.choices.setVisible(False)
        self.choices_label.setVisible(False)

    def _update_ok(self) -> None:
        ready = bool(self.url.text().strip()) and not self.progress.isVisible()
        if self._options:
            ready = ready and bool(self.chosen())
        self.ok.setEnabled(ready)

    def chosen(self) -> list[Any]:
        """The ticked feeds (``FeedOption``), in the list's order."""
        out = []
        for row, option in enumerate(self._options):
            item = self.choices.topLevelItem(row)
            if item is not None and item.checkState(0) == Qt.CheckState.Checked:
                out.append(option)
        return out

    def show_choices(self, page: str, options: Sequence[Any]) -> None:
        """The page links these feeds (``FeedOption``s): tick the first one not
        yet subscribed (posts come before comments) and let the user choose."""
        self.set_busy(False)
        self._options = list(options)
        self._choices_for = self.url.text().strip()
        self.choices.blockSignals(True)
        self.choices.clear()
        first = True
        for option in self._options:
            name = option.title or option.url
            item = QTreeWidgetItem([with_kind(name, option.kind), _short_address(option.url, page)])
            item.setToolTip(0, name)
            item.setToolTip(1, option.url)
            if option.subscribed:
                _show_subscribed(item, option)
            else:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                item.setCheckState(0, Qt.CheckState.Checked if first else Qt.CheckState.Unchecked)
                first = False
            self.choices.addTopLevelItem(item)
        self.choices.blockSignals(False)
        self.setMinimumWidth(max(self.minimumWidth(), 560))
        self.choices.resizeColumnToContents(0)
        self.choices.setColumnWidth(0, min(self.choices.columnWidth(0), 340))
        # As tall as its rows (up to eight; a scroll bar beyond), not a blank box.
        rows = min(len(self._options), 8)
        frame = 2 * self.choices.frameWidth()
        row = self.choices.sizeHintForRow(0) if self._options else 0
        head = self.choices.header().sizeHint().height()
        self.choices.setFixedHeight(head + rows * row + frame + 2)
        n = len(self._options)
        if all(o.subscribed for o in self._options):
            text = f"{page} links {n} feeds; you are subscribed to all of them."
        else:
            text = f"{page} links {n} feeds. Tick the ones to subscribe to:"
        self.choices_label.setText(text)
        self.choices_label.setVisible(True)
        self.choices.setVisible(True)
        self.choices.setFocus()
        self.choices.setCurrentItem(self.choices.topLevelItem(0))
        self._fit_height()
        self._update_ok()

    def _fit_height(self, *, shrink: bool = False) -> None:
        """Grow to what the (wrapped) texts need at the current width: a window
        does not do so by itself for height-for-width text, and a long error
        overlapped the list. Never shrinks what the user made larger, unless
        ``shrink`` (the login folded away again: no gap where it was)."""
        lay = self.layout()
        lay.activate()
        need = (
            lay.totalHeightForWidth(self.width())
            if lay.hasHeightForWidth()
            else lay.totalSizeHint().height()
        )
        if need > self.height() or shrink:
            self.resize(self.width(), need)

    def mark_subscribed(self, url: str) -> None:
        """One of the chosen feeds is subscribed now (the others may still fail)."""
        for row, option in enumerate(self._options):
            if option.url == url:
                item = self.choices.topLevelItem(row)
                if item is not None:
                    self.choices.blockSignals(True)
                    _show_subscribed(item, option)
                    self.choices.blockSignals(False)
                self._options[row] = dataclasses.replace(option, subscribed=True)

    @Slot()
    def _submit(self) -> None:
        url = self.url.text().strip()
        if not url:
            return
        folder = self.folder.currentText().strip() or None
        if "://" not in url and "@" in url and not _NOT_A_LOGIN.match(url):
            url = "https://" + url  # user:password@host/feed
        clean, user, password = keyring_credentials.split_userinfo(url)
        try:
            # "not a url at all" was fetched as https://not a url at all
            clean = feed_address(clean)
        except SmartReaderError as e:
            self.show_error(str(e))
            return
        if user is not None:
            # Typed as user:password@: into the fields (masked), out of the address
            self.username.setText(user)
            self.password.setText(password or "")
            self.needs_login.setChecked(True)
        url = clean
        if url != self.url.text().strip():
            self.url.setText(url)  # also drops a list found for another address
        if self.needs_login.isChecked() and not self.username.text().strip():
            self.show_error(
                "Enter the user name for this feed, or untick “needs a login”.",
                field=self.username,
            )
            self.username.setFocus()
            return
        login = self.login()
        self.failures = []
        self.done_ids = []
        self.wants_login = False
        if self._options:
            picked = self.chosen()
            if not picked:
                return
            self.set_busy(True, f"Subscribing to {count_of(len(picked), 'feed')}…")
            self.subscribeChosen.emit(picked, folder, login)
            return
        self.set_busy(True)
        self.subscribeRequested.emit(url, folder, login)

    def set_busy(self, busy: bool, message: str = "Looking for the feed…") -> None:
        self.progress.setVisible(busy)
        self.status.setText(message)
        self.status.setVisible(busy)
        fields = (self.url, self.folder, self.needs_login, self.username, self.password)
        for w in (*fields, self.choices):
            w.setEnabled(not busy)
        if busy:
            self.error.setVisible(False)
        self._update_ok()

    def show_error(self, message: str, *, field: QWidget | None = None) -> None:
        """``field``: the one the error is about (the address, or the list of the
        site's feeds when it shows); the focus goes there unless it is given."""
        self.set_busy(False)
        default = self.choices if self._options else self.url
        self._error_link.show(message, field or default)
        self._fit_height()
        if field is not None:
            return
        if self._options:
            self.choices.setFocus()
        else:
            self.url.setFocus()
            self.url.selectAll()


def _fmt_time(t: float | None) -> str:
    if not t:
        return "never"
    return date_time_text(dt.datetime.fromtimestamp(t), weekday=True)


# A feed's own limit for its read articles (days; 0 keeps them all, unread too):
# Settings' choices, and a week for a noisy feed.
# a site's own limit (Feed properties): the least time between two requests to it
SITE_GAP_CHOICES = (10.0, 30.0, 60.0, 120.0, 300.0, 900.0, 3600.0)

FEED_KEEP_CHOICES = (
    (7, "1 week"),
    *((d, label) for d, label in KEEP_CHOICES if d > 0),
    (0, "Always, unread ones too"),
)


def _days_text(days: float) -> str:
    if days <= 0:
        return "always"
    return dict(FEED_KEEP_CHOICES).get(days, f"{days:g} days")


def _show_subscribed(item: QTreeWidgetItem, option: Any) -> None:
    """A feed already subscribed: greyed, unticked, and saying so."""
    item.setText(0, f"{with_kind(option.title or option.url, option.kind)} — subscribed")
    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
    item.setCheckState(0, Qt.CheckState.Unchecked)


def _short_address(url: str, page: str) -> str:
    """The feed's path when it is on the page's own site (the usual case; the
    whole address is the tooltip), else the whole address."""
    a, b = urlsplit(url), urlsplit(page)
    if (a.scheme, a.hostname, a.port) == (b.scheme, b.hostname, b.port):
        return a.path + (f"?{a.query}" if a.query else "") or "/"
    return url


class FeedPropertiesDialog(QDialog):
    """Per-feed settings: title, folder, URL, credentials, priority, images, how
    long its articles are kept.

    On OK, writes to the store (and keyring) and accepts; problems (a bad value,
    no keyring) are shown in the dialog, which then stays open. A shorter limit
    asks first how many articles it deletes; ``keep_changed`` says whether to purge.
    """

    def __init__(
        self,
        store: Any,
        feed_id: int,
        parent: QWidget | None = None,
        *,
        credentials: Any = None,
        overlaps: list[str] | None = None,
        confirm: Any = None,
        now: Any = None,
    ) -> None:
        super().__init__(parent)
        # one ``confirm`` answers every question when given (tests); by default
        # the one before deleting articles has No as its default
        self._confirm = confirm or ask
        self._confirm_delete = confirm or ask_to_delete
        self._now = now or time.time
        self.keep_changed = False
        if overlaps is None:
            from smartreader.content_aware import feed_overlaps

            try:
                overlaps = feed_overlaps(store, feed_id)
            except Exception:  # a hint is not worth failing the dialog over
                overlaps = []
        self.overlaps = overlaps
        try:
            self.rules = list(store.rules(feed_id=feed_id))
        except Exception:  # a note is not worth failing the dialog over
            log.exception("reading the feed's rules failed")
            self.rules = []
        if credentials is None:
            from smartreader.net import credentials as creds_module

            credentials = creds_module
        self.store = store
        self.feed_id = feed_id
        self.credentials = credentials
        feed = store.feed(feed_id)
        self.feed = feed
        self.setWindowTitle(f"Properties — {feed.display_title}")
        lay = QVBoxLayout(self)
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        self.title = QLineEdit(feed.user_title or "")
        self.title.setPlaceholderText(feed.title or feed.url)
        self.url = QLineEdit(feed.url)
        self.url.setCursorPosition(0)  # a long address shows its host, not its query's end
        self.folder = QComboBox()
        self.folder.setEditable(True)
        self.folder.addItem("")
        self.folder.addItems([f.name for f in store.folders()])
        self.folder.setCurrentText(feed.folder or "")
        self.folder.lineEdit().setPlaceholderText("(none — top level)")
        _suggest_only(self.folder)
        # as wide as the other fields: sized to its text, an empty one (a feed at
        # the top level, no folders yet) was a 30 px box without its placeholder
        self.folder.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.username = QLineEdit(feed.auth_username or "")
        self.username.setPlaceholderText("only for feeds that need a login")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        # as the Add feed dialog asks: is there a keyring to store in?
        keyring = credentials.keyring_available()
        if feed.auth_username and credentials.kept_for_session(feed.url, feed.auth_username):
            placeholder = "kept for this session only"
        elif not keyring:  # what is typed here lives until quit (see _keep_for_session)
            placeholder = "kept for this session only"
            self.password.setToolTip(
                "No system keyring is available: a password entered here is kept in "
                "memory for this session only, never written anywhere. After a "
                "restart, enter it again."
            )
        else:
            placeholder = "unchanged" if feed.auth_username else "stored in the system keyring"
        self.password.setPlaceholderText(placeholder)
        self.weight = QDoubleSpinBox()
        self.weight.setRange(0.01, 100.0)  # what an OPML import may set
        self.weight.setSingleStep(0.5)
        self.weight.setDecimals(2)
        self.weight.setValue(float(feed.weight or 1.0))
        self.weight.setToolTip(
            "How much this feed matters when the daily request budget is shared: "
            "2 gets about √2× the checks of a feed at 1."
        )
        self.min_interval = QSpinBox()
        self.min_interval.setRange(0, 7 * 24 * 60)
        self.min_interval.setSuffix(" min")
        self.min_interval.setSpecialValueText("default")
        self.min_interval.setValue(round((feed.min_interval or 0) / 60))
        # What the widgets showed: a value they cannot hold exactly (90 s, a
        # priority of 0.005 from a hand-edited file) is kept unless the user
        # changes it, so OK with no edits changes nothing.
        self._shown = (self.weight.value(), self.min_interval.value())
        self.min_interval.setToolTip("Never check this feed more often than this")
        self.max_interval = self._max_interval_box(feed.max_interval)
        self.site_gap = self._site_gap_box(feed.url)
        self.load_images = QCheckBox("Load remote images in articles")
        self.load_images.setChecked(bool(feed.load_images))
        self.load_images.setToolTip("Off by default: remote images let sites see when you read")
        self.full_text = QCheckBox("Load the full article from its website when opened")
        self.full_text.setChecked(bool(feed.full_text))
        self.full_text.setToolTip(
            "For a feed that carries only a summary: the article's page is fetched and "
            "its text shown (Article ▸ Load Full Article does it for one article)"
        )
        from smartreader.updater import keep_days_of

        self._settings_keep = keep_days_of(store)
        self.keep = QComboBox()
        self.keep.addItem(f"As in Settings ({_days_text(self._settings_keep[0])})", None)
        for days, label in FEED_KEEP_CHOICES:
            self.keep.addItem(label, float(days))
        if feed.keep_days is not None and self.keep.findData(float(feed.keep_days)) < 0:
            self.keep.addItem(f"{feed.keep_days:g} days", float(feed.keep_days))
        self.keep.setCurrentIndex(
            0 if feed.keep_days is None else self.keep.findData(float(feed.keep_days))
        )
        self.keep.setToolTip(
            "How long this feed's read articles are kept; unread ones follow Settings "
            "unless this is “Always”. Starred articles are always kept."
        )
        form.addRow("&Title:", self.title)
        form.addRow("Feed &address:", self.url)
        form.addRow("&Folder:", self.folder)
        form.addRow("&User name:", self.username)
        form.addRow("&Password:", self.password)
        form.addRow("P&riority weight:", self.weight)
        form.addRow("&Minimum interval:", self.min_interval)
        form.addRow("Ma&ximum interval:", self.max_interval)
        form.addRow("&Site's limit:", self.site_gap)
        form.addRow("&Keep read articles:", self.keep)
        form.addRow("", self.load_images)
        form.addRow("", self.full_text)
        lay.addLayout(form)
        self.info = info = QLabel(self._info_html(feed, overlaps, self.rules))
        info.setTextFormat(Qt.TextFormat.RichText)  # escaped in _info_html
        info.setWordWrap(True)
        info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        info.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(info)
        self.error = _error_label()
        self._error_link = _ErrorLink(self.error)
        lay.addWidget(self.error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        # room for a long address beside the labels, at any font size
        open_size(self, max(520, self.fontMetrics().averageCharWidth() * 85))

    def _max_interval_box(self, own: float | None) -> QComboBox:
        """Settings' maximum interval (the default), or one of the same choices."""
        from smartreader.updater import intervals_of

        self._settings_min, settings = intervals_of(self.store)
        box = max_interval_combo(own, settings=settings)
        box.setToolTip(
            "The longest this feed goes unchecked, however quiet it is (shorter: it is "
            "checked more often, taking requests from the others)"
        )
        return box

    def _site_gap_box(self, url: str) -> QComboBox:
        """The least time between two requests to the feed's site, for all its
        feeds (a site that refuses more, as Reddit does past one a minute)."""
        from smartreader.updater import host_gaps_of, host_of

        self._site = host_of(url)
        self._site_gap = host_gaps_of(self.store).get(self._site)
        box = QComboBox()
        box.addItem("None of its own", None)
        for seconds in SITE_GAP_CHOICES:
            box.addItem(f"One request every {interval_text(seconds)}", seconds)
        if self._site_gap is not None and box.findData(self._site_gap) < 0:
            box.addItem(f"One request every {interval_text(self._site_gap)}", self._site_gap)
        box.setCurrentIndex(0 if self._site_gap is None else box.findData(self._site_gap))
        box.setToolTip(
            f"For every feed on {self._site}: at most one request this often. Some "
            "sites refuse more (Reddit: one a minute); its feeds then share the "
            "requests it takes, and Refresh waits its turn for each."
        )
        return box

    @staticmethod
    def _info_html(feed: Any, overlaps: Sequence[str] = (), rules: Sequence[Any] = ()) -> str:
        lines = [
            f"Last checked: {_fmt_time(feed.last_fetched)}",
            f"Last successful: {_fmt_time(feed.last_success)}",
        ]
        if feed.site_link:
            lines.append(f"Site: {html.escape(feed.site_link)}")
        if feed.last_error:
            lines.append(f"Last error: {html.escape(feed.last_error)}")
        if feed.redirect_url:
            lines.append(
                f"The server says it moved to {html.escape(feed.redirect_url)}; "
                "followed once that has held for a week"
            )
        for url in reversed(feed.previous_urls):
            lines.append(f"Moved from: {html.escape(url)}")
        for hint in overlaps:
            # Roitman et al. Table 2: e.g. one feed's content contained in another's
            lines.append(f"Content: {html.escape(hint)}")
        if rules:  # what happens to its new articles, and where that is changed
            said = [
                f"“{html.escape(r.query)}”{' in titles' if r.title_only else ''} "
                f"{'stars' if r.action == 'star' else 'marks read'}"
                f"{' (every feed)' if r.feed_id is None else ''}"
                for r in rules
            ]
            lines.append(f"Rules (Feed ▸ Rules…): {'; '.join(said)}")
        return "<br>".join(lines)

    def show_error(self, message: str, *, field: QWidget | None = None) -> None:
        """``field``: the one the error is about (the address by default)."""
        self._error_link.show(message, field or self.url)

    @Slot()
    def save(self) -> None:
        feed = self.feed
        username = self.username.text().strip() or None
        password = self.password.text()
        new_url = self.url.text().strip() or feed.url
        if new_url != feed.url:
            # checked now, not at the next fetch (which would only then say why)
            try:
                new_url = feed_address(new_url)
            except SmartReaderError as e:
                self.show_error(str(e))
                self.url.setFocus()
                return
            self.url.setText(new_url)
        old_user = feed.auth_username
        # the keyring entry is keyed by address and user name
        moved = bool(old_user) and (feed.url, old_user) != (new_url, username)
        minutes = self.min_interval.value()
        weight = self.weight.value()
        if weight == self._shown[0]:
            weight = float(feed.weight or 1.0)
        min_interval = minutes * 60.0 if minutes else None
        if minutes == self._shown[1]:
            min_interval = feed.min_interval
        longest = self.max_interval.currentData()
        shortest = min_interval if min_interval is not None else self._settings_min
        if longest is not None and shortest > longest:
            self.show_error(
                f"The maximum interval ({interval_text(longest)}) is shorter than the "
                f"minimum interval ({interval_text(shortest)})."
            )
            self.max_interval.setFocus()
            return
        keep = self.keep.currentData()
        keep_changed = keep != feed.keep_days
        if keep_changed:
            read_days, unread_days = self._settings_keep
            n = self.store.count_feed_purgeable(
                self.feed_id,
                self._now(),
                keep_days=keep,
                read_days=read_days,
                unread_days=unread_days,
            )
            question = (
                f"With this limit, {count_of(n, 'article')} of this feed "
                f"will be deleted now. Starred articles are kept.\n\nContinue?"
            )
            if n > 0 and not self._confirm_delete(self, "Keep read articles", question):
                return
        try:
            # The feed first: a refused change (an address another feed already
            # has) must not touch the keyring, where it would overwrite that
            # feed's password or strand this one's.
            self.store.update_feed(
                self.feed_id,
                user_title=self.title.text().strip() or None,
                url=new_url,
                folder=self.folder.currentText().strip() or None,
                weight=weight,
                min_interval=min_interval,
                max_interval=longest,
                load_images=self.load_images.isChecked(),
                full_text=self.full_text.isChecked(),
                auth_username=username,
                keep_days=keep,
            )
        except SmartReaderError as e:
            self.show_error(str(e))
            return
        self.keep_changed = keep_changed
        from smartreader.updater import set_host_gap

        gap = self.site_gap.currentData()
        if gap != self._site_gap:  # for the site it named (the address's as shown)
            try:
                set_host_gap(self.store, self._site, gap)
            except SmartReaderError as e:
                self.show_error(str(e), field=self.site_gap)
                return
        try:
            if username and password:
                self.credentials.store_password(new_url, username, password)
                if moved:
                    self.credentials.delete_password(feed.url, old_user)
            elif username and moved:
                # password left as it was: it moves with the address or user name
                # (the old entry is deleted only once the new one is kept)
                self.credentials.move_password(feed.url, old_user, new_url, username)
            elif moved:  # user name cleared: the password is forgotten
                self.credentials.delete_password(feed.url, old_user)
        except SmartReaderError as e:
            if username and password and self._keep_for_session(str(e), new_url, username):
                if moved:  # an old session-only password; there is no keyring to clean
                    with contextlib.suppress(SmartReaderError):
                        self.credentials.delete_password(feed.url, old_user)
                self.accept()
                return
            # The keyring refused: the address and user name go back to where the
            # password still is, so the feed keeps working; the rest is kept.
            try:
                self.store.update_feed(self.feed_id, url=feed.url, auth_username=feed.auth_username)
            except SmartReaderError:
                log.exception("could not restore the address of feed %s", self.feed_id)
            self.show_error(f"{e} The address and user name were not changed.", field=self.password)
            return
        self.accept()

    def _keep_for_session(self, problem: str, url: str, username: str) -> bool:
        """No keyring to save in: offer to use the password until smartreader quits
        (memory only, never written). True when the user took it."""
        if self.credentials.keyring_available():
            return False  # a keyring that refused (locked, say): that is for the user to fix
        question = (
            f"{problem}\n\nUse the password for this session only? It is kept in memory "
            "until smartreader quits, never written anywhere; after a restart, enter it "
            "here again."
        )
        if not self._confirm(self, "Password", question):
            return False
        self.credentials.keep_for_session(url, username, self.password.text())
        return True


class HelpOverlay(QWidget):
    """A translucent sheet over the window listing the keyboard shortcuts.

    Esc, ? or Enter (``CLOSE_KEYS``) or a click closes it, and the focus goes back
    where it was (the article list, say: j and Down work on at once); other keys do
    nothing (a screen reader's user reading on with the arrows closed it). To
    screen readers it is "Keyboard shortcuts", the list its description.
    ``shortcuts`` is a list of (section, [(keys, what)]).

    The card always fits inside the window, centred: two columns when they fit,
    else two with their descriptions wrapped, else one column (a 16 pt font's two
    columns were 1,323 px wide in a 1,024 px window, both cut); a scroll bar (the
    mouse wheel) only when even the shortest of these is taller than the window.
    """

    MARGIN = 10  # the least room between the card and the window's edges
    # (no F1: the window does not open the sheet with it)
    CLOSE_KEYS = frozenset(
        {Qt.Key.Key_Escape, Qt.Key.Key_Question, Qt.Key.Key_Return, Qt.Key.Key_Enter}
    )
    COLUMN_GAP = 28
    KEY_GAP = 18  # between a key and what it does

    def __init__(
        self, shortcuts: Sequence[tuple[str, Sequence[tuple[str, str]]]], parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.setObjectName("helpOverlay")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        # What a screen reader says when the sheet takes the focus: the labels
        # below are not reachable from it.
        self.setAccessibleName("Keyboard shortcuts")
        self.setAccessibleDescription(shortcuts_text(shortcuts))
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, False)
        self._return_to: QWidget | None = None
        self.card = QWidget(self)
        self.card.setObjectName("helpCard")
        self.card.setAutoFillBackground(True)
        outer = QVBoxLayout(self.card)
        outer.setContentsMargins(28, 22, 28, 22)
        outer.setSpacing(4)
        self.title = QLabel("<b style='font-size:15pt'>Keyboard shortcuts</b>")
        outer.addWidget(self.title)
        # The labels are made once; _arrange lays them out in one or two columns.
        self._sections: list[tuple[QLabel, list[tuple[QLabel, QLabel]]]] = []
        for name, items in shortcuts:
            head = QLabel(f"<b>{html.escape(name)}</b>")
            head.setContentsMargins(0, 10, 0, 2)
            rows = []
            for keys, what in items:
                k = QLabel(
                    " ".join(
                        f"<span style='font-family:monospace; font-weight:600'>"
                        f"&nbsp;{html.escape(x)}&nbsp;</span>"
                        for x in keys.split(" ")
                    )
                )
                k.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                rows.append((k, plain_label(what)))
            self._sections.append((head, rows))
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.NoFrame)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # the sheet keeps the focus: its keys close it
        self.area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.area.verticalScrollBar().setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.area.viewport().setAutoFillBackground(False)
        outer.addWidget(self.area)
        self.hint = QLabel("Esc, ? or Enter closes this")
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setContentsMargins(0, 8, 0, 0)
        outer.addWidget(self.hint)
        self.columns: list[QGridLayout] = []
        self._column_rows: list[list[tuple[QLabel, QLabel]]] = []
        self._arrange(2)
        parent.installEventFilter(self)
        self.hide()

    def _arrange(self, ncols: int) -> None:
        """The sections in ``ncols`` columns balanced by row count, each column
        its own grid (a heading in one does not space out the rows beside it),
        every description on one line."""
        groups: list[list[tuple[QLabel, list[tuple[QLabel, QLabel]]]]] = [[] for _ in range(ncols)]
        sizes = [0] * ncols
        for sec in self._sections:
            c = sizes.index(min(sizes))
            groups[c].append(sec)
            sizes[c] += len(sec[1]) + 2
        body = QWidget()
        columns = QHBoxLayout(body)
        columns.setContentsMargins(0, 0, 0, 0)
        columns.setSpacing(self.COLUMN_GAP)
        self.columns, self._column_rows = [], []
        for secs in groups:
            grid = QGridLayout()
            grid.setHorizontalSpacing(self.KEY_GAP)
            grid.setVerticalSpacing(4)
            columns.addLayout(grid)
            row, pairs = 0, []
            for head, rows in secs:
                grid.addWidget(head, row, 0, 1, 2)
                row += 1
                for k, what in rows:
                    what.setWordWrap(False)
                    what.setMinimumWidth(0)
                    what.setMaximumWidth(_UNLIMITED)
                    grid.addWidget(k, row, 0)
                    grid.addWidget(what, row, 1)
                    pairs.append((k, what))
                    row += 1
            grid.setRowStretch(row, 1)  # short column: rows stay at the top
            self.columns.append(grid)
            self._column_rows.append(pairs)
        self.area.setWidget(body)  # the previous body, its labels taken, is deleted
        body.setAutoFillBackground(False)  # the card's colour

    def _wrap_to(self, room: int, least: int) -> bool:
        """Wrap the descriptions so that the columns take at most ``room`` px, the
        longest giving way first. False when that leaves less than ``least`` px
        for a column's descriptions (they are then wrapped to ``least``)."""
        fixed = self.COLUMN_GAP * (len(self._column_rows) - 1)
        natural = []
        for pairs in self._column_rows:
            fixed += max(k.sizeHint().width() for k, _ in pairs) + self.KEY_GAP
            natural.append(max(what.sizeHint().width() for _, what in pairs))
        left = room - fixed
        if sum(natural) <= left:
            return True
        cap = left
        for i, n in enumerate(sorted(natural)):  # water-filling
            share = left // (len(natural) - i)
            if n > share:
                cap = share
                break
            left -= n
        ok = cap >= least
        cap = max(cap, least)
        for pairs in self._column_rows:
            for _, what in pairs:
                if what.sizeHint().width() > cap:
                    what.setWordWrap(True)
                    what.setFixedWidth(cap)
        return ok

    def _body_size(self) -> QSize:
        lay = self.area.widget().layout()
        for grid in self.columns:  # a wrapped label reaches only the outer layout
            grid.invalidate()
        lay.invalidate()
        hint = lay.totalSizeHint()
        if lay.hasHeightForWidth():
            return QSize(hint.width(), lay.totalHeightForWidth(hint.width()))
        return hint

    def _fit(self) -> None:
        """Cover the window and lay the card out to fit inside it (see the class)."""
        parent = self.parentWidget()
        assert parent is not None
        self.setGeometry(parent.rect())
        room_w = self.width() - 2 * self.MARGIN
        room_h = self.height() - 2 * self.MARGIN
        outer = self.card.layout()
        m = outer.contentsMargins()
        room_w -= m.left() + m.right()
        room_h -= (
            m.top()
            + m.bottom()
            + self.title.sizeHint().height()
            + self.hint.sizeHint().height()
            + 2 * outer.spacing()
        )
        least = self.fontMetrics().averageCharWidth() * 20  # a readable description
        bar = self.area.verticalScrollBar().sizeHint().width() + self.KEY_GAP // 2
        plan: tuple[int, int] | None = None  # (columns, height) with a scroll bar
        for ncols in (2, 1):
            self._arrange(ncols)
            if self._wrap_to(room_w, least) or ncols == 1:
                size = self._body_size()
                if size.width() <= room_w and size.height() <= room_h:
                    self._show_body(size, 0)
                    return
            self._arrange(ncols)
            if self._wrap_to(room_w - bar, least) or ncols == 1:
                height = self._body_size().height()
                if plan is None or height < plan[1]:
                    plan = (ncols, height)
        assert plan is not None
        self._arrange(plan[0])
        self._wrap_to(room_w - bar, least)
        size = self._body_size()
        self._show_body(QSize(size.width(), max(room_h, 3 * self.fontMetrics().height())), bar)

    def _show_body(self, size: QSize, bar: int) -> None:
        self.area.setFixedSize(size.width() + bar, size.height())
        self.area.verticalScrollBar().setValue(0)
        self.card.adjustSize()
        self._center()

    def open(self) -> None:
        parent = self.parentWidget()
        assert parent is not None
        was = QApplication.focusWidget()
        if was is not None and was is not self and parent.isAncestorOf(was):
            self._return_to = was  # focus goes back there when the sheet closes
        elif was is not self:
            self._return_to = None
        self._fit()
        self.show()
        self.raise_()
        self.setFocus()

    def _center(self) -> None:
        c = self.card
        c.move(
            max(self.MARGIN, (self.width() - c.width()) // 2),
            max(self.MARGIN, (self.height() - c.height()) // 2),
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.parentWidget() and event.type() == QEvent.Type.Resize:
            if self.isVisible():
                self._fit()
            else:
                self.setGeometry(self.parentWidget().rect())
        return False

    def paintEvent(self, event: Any) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(0, 0, 0, 110))
        p.end()

    def event(self, e: QEvent) -> bool:
        if e.type() == QEvent.Type.ShortcutOverride:
            # keys are the sheet's: the window's j or Space must not act unseen
            # under it
            e.accept()
            return True
        if (
            e.type() == QEvent.Type.KeyPress
            and isinstance(e, QKeyEvent)
            and e.key() in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab)
        ):
            e.accept()  # the focus stays: it would go to a widget under the sheet
            return True
        return super().event(e)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in self.CLOSE_KEYS:
            self.hide()
        event.accept()  # other keys do nothing, and go nowhere else

    def mousePressEvent(self, event: Any) -> None:
        self.hide()

    def hideEvent(self, event: Any) -> None:
        super().hideEvent(event)
        back, self._return_to = self._return_to, None
        parent = self.parentWidget()
        if parent is None or not self.hasFocus():
            return
        # Back to where the focus was (the window itself had it before: Down and
        # j did nothing until a click), if that can still take it.
        if (
            back is not None
            and isValid(back)
            and back.isVisible()
            and back.isEnabled()
            and back.window() is parent.window()
        ):
            back.setFocus(Qt.FocusReason.OtherFocusReason)
        else:
            parent.setFocus()


def shortcuts_text(shortcuts: Sequence[tuple[str, Sequence[tuple[str, str]]]]) -> str:
    """The shortcut sheet as lines of text, for screen readers: "Articles:", then
    "j, k: next / previous article" and so on."""
    lines = []
    for name, items in shortcuts:
        lines.append(f"{name}:")
        lines += [f"{', '.join(keys.split(' '))}: {what}" for keys, what in items]
    return "\n".join(lines)


class CompactingDialog(QDialog):
    """ "Compacting the database…" with a busy bar and a Stop button. ``arm(ms)``
    shows it, application-modal, only if compacting is still running after ``ms``
    (a small database is done before anything flashes); ``finish()`` hides it.
    Escape or closing the box means Stop: it never leaves the window behind it
    frozen on a write that waits for the compaction."""

    stopRequested = Signal()

    TEXT = "Compacting the database…\nArticles can be opened and marked again when it is done."

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Compacting")
        self.setWindowModality(Qt.WindowModality.ApplicationModal)
        self.setMinimumWidth(420)
        self.label = plain_label(self.TEXT)
        bar = QProgressBar()
        bar.setRange(0, 0)  # busy: SQLite does not say how far VACUUM is
        bar.setTextVisible(False)
        self.stop = QPushButton("Stop")
        self.stop.setToolTip("Stop compacting: the database stays as it was")
        self.stop.clicked.connect(self._stop)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.stop)
        lay = QVBoxLayout(self)
        lay.addWidget(self.label)
        lay.addWidget(bar)
        lay.addLayout(row)
        self._show_timer = QTimer(self)
        self._show_timer.setSingleShot(True)
        self._show_timer.timeout.connect(self.show)

    def arm(self, delay_ms: int) -> None:
        self.label.setText(self.TEXT)
        self.stop.setEnabled(True)
        self._show_timer.start(delay_ms)

    def finish(self) -> None:
        self._show_timer.stop()
        self.hide()

    def reject(self) -> None:  # Escape, or the window's close button
        if self.stop.isEnabled():
            self._stop()

    @Slot()
    def _stop(self) -> None:
        self.stop.setEnabled(False)
        self.label.setText("Stopping… the database stays as it was.")
        self.stopRequested.emit()
