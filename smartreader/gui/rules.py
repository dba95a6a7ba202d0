"""Feed ▸ Rules…: what happens to new articles that match words.

A rule marks matching new articles read (mutes a topic: "sponsored", a sports
team) or stars them (keeps what matters: a product's name). The store applies
rules to each fetch's new articles in the fetch's own transaction
(``Store._apply_rules``), so a muted article is never announced. Articles already
stored are left alone unless the user asks, when saving a rule, to apply it to
those that match now: the main window does that as an undoable step
(``applyRequested``).

Rules are written to the store at once (as a mail client's filter list is): the
list shows what is in force.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from smartreader.errors import SmartReaderError
from smartreader.gui.safetext import ask_to_delete, warn
from smartreader.storage.store import Rule, search_filter
from smartreader.text import count_of

log = logging.getLogger(__name__)

ACTIONS = (("read", "Mark as read"), ("star", "Star"))
PREVIEW_DELAY_MS = 200  # typing: one count per pause, not one per key


def _has_word(text: str) -> bool:
    return search_filter(" ".join(text.split()), prefix=False) is not None


class _Relay(QObject):
    """Carries a count made in a thread back to the dialog's (GUI) thread."""

    counted = Signal(int, object)  # serial, (star, matches, ids to change) or an error


class RuleDialog(QDialog):
    """Add or edit one rule; the caller saves :meth:`values`.

    What the words match is counted in a thread, on a connection of its own: on a
    large database a common word or a Chinese one (a substring scan) took 0.2-0.7 s
    at 50,000 articles, a stall of the window after each pause in typing."""

    def __init__(
        self,
        store: Any,
        feeds: Sequence[tuple[int, str]],
        parent: QWidget | None = None,
        *,
        rule: Rule | None = None,
        feed_id: int | None = None,
        words: str = "",
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.setWindowTitle("Edit rule" if rule is not None else "New rule")
        lay = QVBoxLayout(self)
        form = QFormLayout()
        self.words = QLineEdit(rule.query if rule is not None else words)
        self.words.setPlaceholderText("e.g. sponsored   or   football results")
        self.words.setToolTip(
            "Every word must be in the article, in any order, as whole words; "
            "accents and case do not matter, as in search"
        )
        self.title_only = QCheckBox("In the &title only")
        self.title_only.setChecked(bool(rule and rule.title_only))
        self.scope = QComboBox()
        self.scope.addItem("All feeds", None)
        for fid, title in sorted(feeds, key=lambda f: f[1].casefold()):
            self.scope.addItem(title, fid)
        want = rule.feed_id if rule is not None else feed_id
        self.scope.setCurrentIndex(max(0, self.scope.findData(want)))
        self.action = QComboBox()
        for key, label in ACTIONS:
            self.action.addItem(label, key)
        self.action.setCurrentIndex(self.action.findData(rule.action if rule else "read"))
        form.addRow("Articles with the &words:", self.words)
        form.addRow("", self.title_only)
        form.addRow("&From:", self.scope)
        form.addRow("T&hen:", self.action)
        lay.addLayout(form)
        self.preview = QLabel()
        self.preview.setWordWrap(True)
        self.preview.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.preview)
        self.apply_now = QCheckBox()
        lay.addWidget(self.apply_now)
        note = QLabel("A rule acts on new articles as they arrive.")
        note.setWordWrap(True)
        note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(note)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        lay.addWidget(self.buttons)
        self._pending: list[int] = []  # what "apply now" would change
        self._serial = self._done = 0  # counts asked for, and the last one shown
        self._relay = _Relay(self)
        self._relay.counted.connect(self._show_count)
        self._timer = QTimer(self, singleShot=True, interval=PREVIEW_DELAY_MS)
        self._timer.timeout.connect(self._typed)
        self.words.textChanged.connect(lambda _t: self._timer.start())
        for box in (self.scope, self.action):
            box.currentIndexChanged.connect(lambda _i: self._timer.start())
        self.title_only.toggled.connect(lambda _on: self._timer.start())
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * 60)
        self.update_preview()

    def values(self) -> dict[str, Any]:
        return {
            "query": " ".join(self.words.text().split()),
            "feed_id": self.scope.currentData(),
            "title_only": self.title_only.isChecked(),
            "action": self.action.currentData(),
        }

    def ids_to_apply(self) -> list[int]:
        """The stored articles to change now (none unless the box is ticked)."""
        shown = self.apply_now.isChecked() and not self.apply_now.isHidden()
        return list(self._pending) if shown else []

    def settled(self) -> bool:
        """Whether the preview shows the words as they are (no count under way)."""
        return self._done == self._serial

    @Slot()
    def _typed(self) -> None:
        if self.isVisible():  # closed meanwhile: its store may be gone too
            self.update_preview()

    @Slot()
    def update_preview(self) -> None:
        self._timer.stop()
        v = self.values()
        ok = _has_word(v["query"])
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)
        self._serial += 1
        self._pending = []
        self.apply_now.hide()
        if not v["query"] or not ok:
            self._done = self._serial
            self.preview.setText(
                "Type the words to look for."
                if not v["query"]
                else "No word to look for: signs and emoji alone match nothing."
            )
            return
        serial, store, relay = self._serial, self.store, self._relay
        star = v["action"] == "star"
        kw = {"feed_id": v["feed_id"], "title_only": v["title_only"], "action": v["action"]}

        def count() -> None:
            result: object
            try:
                reader = store.reader()
                try:
                    n, ids = reader.rule_preview(v["query"], **kw)
                finally:
                    reader.close()
                result = (star, n, ids)
            except Exception as e:  # a busy or damaged database: no count, no harm
                result = str(e) or type(e).__name__
            with contextlib.suppress(RuntimeError):  # the dialog is gone
                relay.counted.emit(serial, result)

        threading.Thread(target=count, name="smartreader-rule-count", daemon=True).start()

    @Slot(int, object)
    def _show_count(self, serial: int, result: object) -> None:
        if serial != self._serial:
            return  # the words changed since: a newer count is on its way
        self._done = serial
        if not isinstance(result, tuple):
            log.warning("counting what a rule matches failed: %s", result)
            self.preview.setText("")
            return
        star, n, ids = result
        self._pending = list(ids)
        m = len(ids)
        if n == 0:
            self.preview.setText("No stored article matches these words yet.")
            return
        other = "not starred" if star else "unread"
        self.preview.setText(
            f"{count_of(n, 'stored article')} {'matches' if n == 1 else 'match'}"
            + (f", {m} of {'it' if n == 1 else 'them'} {other}." if m else ".")
        )
        if m:
            self.apply_now.setText(
                f"Also star {'it' if m == 1 else f'those {m}'} now"
                if star
                else f"Also mark {'it' if m == 1 else f'those {m}'} as read now"
            )
            self.apply_now.show()


class RulesDialog(QDialog):
    """Every rule, with Add, Edit and Remove; changes are saved at once."""

    # ids, the flag ("read" or "starred") and what it is, for the undo step
    applyRequested = Signal(list, str, str)

    def __init__(
        self,
        store: Any,
        feeds: Sequence[tuple[int, str]],
        parent: QWidget | None = None,
        *,
        feed_id: int | None = None,
        words: str = "",
        now: Callable[[], float] = time.time,
        confirm: Callable[[QWidget | None, str, str], bool] = ask_to_delete,
        edit: Callable[[RuleDialog], bool] | None = None,
    ) -> None:
        """``feed_id``, ``words``: what a new rule starts with (the selected feed,
        the search typed). ``edit`` runs a rule dialog (tests answer it)."""
        super().__init__(parent)
        self.setWindowTitle("Rules")
        self.store = store
        self.feeds = list(feeds)
        self._titles = dict(self.feeds)
        self._feed_id, self._words = feed_id, words
        self._now, self._confirm = now, confirm
        self._edit = edit or (lambda dlg: dlg.exec() == QDialog.DialogCode.Accepted)
        lay = QVBoxLayout(self)
        intro = QLabel(
            "Rules act on new articles as they arrive: mark those that match as read "
            "(to mute a topic), or star them."
        )
        intro.setWordWrap(True)
        lay.addWidget(intro)
        self.table = QTreeWidget()
        self.table.setRootIsDecorated(False)
        self.table.setHeaderLabels(["Words", "From", "Then", "Acted on"])
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAccessibleName("Rules")
        header = self.table.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for col in (1, 2, 3):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.table.itemDoubleClicked.connect(lambda _item, _col: self.edit_rule())
        self.table.itemSelectionChanged.connect(self._update_buttons)
        lay.addWidget(self.table, 1)
        self.empty = QLabel("No rules yet.")
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        lay.addWidget(self.empty)
        row = QHBoxLayout()
        self.add_button = QPushButton("&Add…")
        self.edit_button = QPushButton("&Edit…")
        self.remove_button = QPushButton("&Remove")
        self.add_button.clicked.connect(self.add_rule)
        self.edit_button.clicked.connect(self.edit_rule)
        self.remove_button.clicked.connect(self.remove_rule)
        for b in (self.add_button, self.edit_button, self.remove_button):
            row.addWidget(b)
        row.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        row.addWidget(close)
        lay.addLayout(row)
        self.resize(self.fontMetrics().averageCharWidth() * 90, self.fontMetrics().height() * 22)
        self.reload()

    def rules(self) -> list[Rule]:
        try:
            return list(self.store.rules())
        except SmartReaderError as e:
            log.warning("reading the rules failed: %s", e)
            return []

    def reload(self, select: int | None = None) -> None:
        current = select if select is not None else self.selected_id()
        self.table.clear()
        rules = self.rules()
        for r in rules:
            where = "All feeds" if r.feed_id is None else self._titles.get(r.feed_id, "?")
            words = r.query + (" (title)" if r.title_only else "")
            then = dict(ACTIONS)[r.action]
            item = QTreeWidgetItem([words, where, then, count_of(r.hits, "article")])
            item.setData(0, Qt.ItemDataRole.UserRole, r.id)
            item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.addTopLevelItem(item)
            if r.id == current:
                self.table.setCurrentItem(item)
        if self.table.currentItem() is None and rules:
            self.table.setCurrentItem(self.table.topLevelItem(0))
        self.empty.setVisible(not rules)
        self._update_buttons()

    def selected_id(self) -> int | None:
        item = self.table.currentItem()
        return None if item is None else int(item.data(0, Qt.ItemDataRole.UserRole))

    def _update_buttons(self) -> None:
        on = self.selected_id() is not None
        self.edit_button.setEnabled(on)
        self.remove_button.setEnabled(on)

    def _run(self, dlg: RuleDialog, save: Callable[[dict[str, Any]], int]) -> None:
        """Show ``dlg`` until it is cancelled or ``save`` takes its values."""
        try:
            self._edit_until_saved(dlg, save)
        finally:
            dlg.deleteLater()  # one per Add or Edit, else kept until Rules closes

    def _edit_until_saved(self, dlg: RuleDialog, save: Callable[[dict[str, Any]], int]) -> None:
        while self._edit(dlg):
            values = dlg.values()
            try:
                rid = save(values)
            except SmartReaderError as e:
                warn(self, "Rule", str(e))
                continue  # the dialog again, as typed
            self.reload(select=rid)
            ids = dlg.ids_to_apply()
            if ids:
                star = values["action"] == "star"
                what = f"“{values['query']}”"
                self.applyRequested.emit(ids, "starred" if star else "read", what)
            return

    @Slot()
    def add_rule(self) -> None:
        dlg = RuleDialog(self.store, self.feeds, self, feed_id=self._feed_id, words=self._words)

        def save(v: dict[str, Any]) -> int:
            # the same rule again (to apply it to the stored articles too) is not a twin
            same = self.store.find_rule(**v)
            return int(self.store.add_rule(now=self._now(), **v)) if same is None else same

        self._run(dlg, save)

    def _selected_rule(self) -> Rule | None:
        rid = self.selected_id()
        return next((r for r in self.rules() if r.id == rid), None)

    @Slot()
    def edit_rule(self) -> None:
        rule = self._selected_rule()
        if rule is None:
            return
        dlg = RuleDialog(self.store, self.feeds, self, rule=rule)

        def save(v: dict[str, Any]) -> int:
            self.store.update_rule(rule.id, **v)
            return rule.id

        self._run(dlg, save)

    @Slot()
    def remove_rule(self) -> None:
        rule = self._selected_rule()
        if rule is None:
            return
        if not self._confirm(
            self,
            "Remove rule?",
            f"Remove the rule for “{rule.query}”? Articles it already acted on stay as they are.",
        ):
            return
        try:
            self.store.delete_rule(rule.id)
        except SmartReaderError as e:
            warn(self, "Rule", str(e))
        self.reload()
