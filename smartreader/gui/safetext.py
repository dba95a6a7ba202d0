"""Text from feeds, servers and files shown as text, never as rich text.

Qt guesses: a QLabel in ``AutoText``, a tooltip or a message box whose first line
holds anything tag-like is rendered as HTML, and HTML rendering loads
``<img src>`` from the local disk. A feed titled ``<img src="/dev/zero">`` (a
plain-text RSS title may say exactly that) made the app read that device until
it ran out of memory. Every widget that shows such text goes through here.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QSizePolicy, QWidget

TIP_LINE = 100  # characters; a tooltip line longer than this wraps


def plain_label(text: str = "", parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as HTML."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


class ElidedLabel(QLabel):
    """A one-line plain-text label that ends in "…" when it is too narrow, with
    the whole text as its tooltip then (a long feed name was cut mid-letter), and
    that never asks for the width of its text."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,  # a URL: ElideMiddle
    ) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._mode = mode
        self._full = ""
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()

    def text(self) -> str:
        return self._full

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: Any) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.FontChange:
            self._elide()

    def _elide(self) -> None:
        room = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, self._mode, room)
        super().setText(shown)
        self.setToolTip(tip(self._full) if shown != self._full else "")


def tip(text: str | None) -> str:
    """A tooltip showing ``text`` literally ("" for none).

    Escaped *and* marked as rich text: escaped alone, a text without tags is shown
    as plain text and its ``&lt;`` would appear as typed. Lines break where the
    text breaks, as a plain tooltip's do; a very long line wraps (Qt then picks
    a narrow width, which suits only long text)."""
    if not text:
        return ""
    wrap = "pre-wrap" if max(map(len, text.splitlines() or [""])) > TIP_LINE else "pre"
    return f"<p style='white-space:{wrap}'>{html.escape(text, quote=False)}</p>"


def message_box(
    icon: QMessageBox.Icon,
    title: str,
    text: str,
    parent: QWidget | None = None,
    buttons: QMessageBox.StandardButton = QMessageBox.StandardButton.Ok,
) -> QMessageBox:
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box


def ask(
    parent: QWidget | None,
    title: str,
    text: str,
    *,
    default: QMessageBox.StandardButton = QMessageBox.StandardButton.Yes,
) -> bool:
    """Yes/No question with plain text; True for Yes. ``default``: the button
    Enter presses."""
    yes, no = QMessageBox.StandardButton.Yes, QMessageBox.StandardButton.No
    box = message_box(QMessageBox.Icon.Question, title, text, parent, yes | no)
    box.setDefaultButton(default)
    return bool(box.exec() == yes)


def ask_to_delete(parent: QWidget | None, title: str, text: str) -> bool:
    """``ask`` before deleting what no undo brings back: No is the default, so an
    Enter pressed out of habit (or meant for the dialog below) deletes nothing."""
    return ask(parent, title, text, default=QMessageBox.StandardButton.No)


def warn(parent: QWidget | None, title: str, text: str) -> None:
    message_box(QMessageBox.Icon.Warning, title, text, parent).exec()


def inform(parent: QWidget | None, title: str, text: str) -> None:
    message_box(QMessageBox.Icon.Information, title, text, parent).exec()
