"""Feed and server text shown as text (see smartreader/gui/safetext.py)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt  # mightBeRichText lives in QtGui
from PySide6.QtGui import QTextDocument

from smartreader.gui.safetext import TIP_LINE, plain_label, tip


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
