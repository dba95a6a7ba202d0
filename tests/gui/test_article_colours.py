"""The article's muted text (meta line, quotes) under a palette whose
placeholder colour is translucent, as Qt's default and macOS's are."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

from smartreader.gui.article_view import ArticleView
from smartreader.storage.store import Entry


def _entry() -> Entry:
    body = "<p>Body text.</p><blockquote>Quoted words.</blockquote>"
    return Entry(1, 1, "u", "Title", "https://example.org/a", "Ann Author", 1.7e9, None,
                 1.7e9, 1.7e9, body, "", (), False, False)  # fmt: skip


def _colour_of(view: ArticleView, words: str) -> QColor:
    block = view.browser.document().begin()
    while block.isValid():
        if words in block.text():
            return block.begin().fragment().charFormat().foreground().color()
        block = block.next()
    raise AssertionError(f"{words!r} is not shown")


def test_translucent_placeholder_colour_is_shown_grey_not_black(qtbot):
    """``QColor.name()`` drops the alpha: black at 50 % became black, and the
    meta line and quotes read as the article's own text."""
    view = ArticleView(open_url=lambda _u: None)
    qtbot.addWidget(view)
    pal = QPalette(view.palette())
    pal.setColor(QPalette.ColorRole.Base, QColor(255, 255, 255))
    pal.setColor(QPalette.ColorRole.Text, QColor(0, 0, 0))
    pal.setColor(QPalette.ColorRole.PlaceholderText, QColor(0, 0, 0, 128))
    view.setPalette(pal)
    view.show_entry(_entry(), "A feed")
    body = _colour_of(view, "Body text")
    assert body.lightness() < 10
    for muted in (_colour_of(view, "Ann Author"), _colour_of(view, "Quoted words")):
        assert 110 <= muted.lightness() <= 145  # half way from black to white
