"""Feed and server text shown as text (see smartreader/gui/safetext.py)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from smartreader.gui.safetext import TIP_LINE, ElidedLabel, plain_label, tip


@pytest.mark.parametrize(
    "text",
    [
        '<img src="/dev/zero">',
        "Tom & Jerry <b>bold</b> &amp; &lt;",
        "two\nlines <i>x</i>",
        "plain title",
        "x" * (TIP_LINE + 50) + " <img src=a>",
    ],
)
def test_tip_shows_the_text_literally(qapp, text):
    t = tip(text)
    assert GuiQt.mightBeRichText(t)  # so the escapes are rendered, not shown
    doc = QTextDocument()
    doc.setHtml(t)
    assert doc.toPlainText() == text
    assert "<img" not in t and "<b>" not in t


def test_tip_wraps_only_long_lines():
    assert "white-space:pre'" in tip("short\nlines")
    assert "pre-wrap" in tip("y" * (TIP_LINE + 1))
    assert tip(None) == "" and tip("") == ""


def test_plain_label_never_renders_html(qtbot):
    lab = plain_label('<img src="/dev/zero">')
    qtbot.addWidget(lab)
    assert lab.textFormat() == Qt.TextFormat.PlainText
    assert lab.text() == '<img src="/dev/zero">'


def test_elided_label_ends_in_an_ellipsis_and_tips_the_whole_text(qtbot):
    name = "The International Journal of Very Long Feed Names That Goes On"
    label = ElidedLabel(name)
    qtbot.addWidget(label)
    label.show()
    label.resize(label.fontMetrics().horizontalAdvance(name) // 2, 30)
    shown = QLabel.text(label)
    assert shown.endswith("…") and name.startswith(shown[:-1])
    assert label.text() == name and name in label.toolTip()
    assert label.minimumSizeHint().width() == 0  # it never holds a pane open
    label.resize(label.fontMetrics().horizontalAdvance(name) + 40, 30)
    assert QLabel.text(label) == name and label.toolTip() == ""
    label.setText("<b>not bold</b>")
    assert label.textFormat() == Qt.TextFormat.PlainText
