"""The reading pane: footnote links scroll within the article, tables have
visible cells in light and dark, and a link whose address was removed reads as
text. Real parsing, real widgets, real mouse clicks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QUrl
from PySide6.QtGui import QColor, QPalette, QTextCursor
from PySide6.QtTest import QTest

from smartreader.gui.app import dark_palette, light_palette
from smartreader.gui.article_view import ArticleView
from smartreader.net.parse import parse_feed
from smartreader.storage.store import Entry

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

FEED_URL = "https://feeds.example.org/blog/rss.xml"
POST = "https://blog.example.org/2026/11/post-1/"
FILLER = "".join(f"<p>Paragraph {i} of the article, long enough to scroll.</p>" for i in range(40))
FOOTNOTES = (
    f'<p>A claim<sup id="fnref:1"><a href="#fn:1">1</a></sup> and <a href="#nowhere">a '
    f'missing target</a>.</p>{FILLER}<ol><li id="fn:1"><p>The note. '
    f'<a href="#fnref:1">back</a></p></li></ol>{FILLER}'
)
TABLE = (
    "<table border='1'><tr>" + "".join(f"<th>Col {c}</th>" for c in "ABCDEFGH") + "</tr>"
    + "".join(
        f"<tr>{''.join(f'<td>cell {r}-{c} with some text</td>' for c in range(8))}</tr>"
        for r in range(4)
    )
    + "</table>"
)  # fmt: skip


def _parsed(body: str, link: str | None = POST) -> Entry:
    link_el = f"<link>{link}</link>" if link else ""
    rss = f"""<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>
<link>https://blog.example.org/</link><description>x</description>
<item><title>Post</title>{link_el}<guid isPermaLink="false">p1</guid>
<description><![CDATA[{body}]]></description></item></channel></rss>""".encode()
    (p,) = parse_feed(rss, url=FEED_URL).entries
    return Entry(1, 1, p.uid, p.title, p.link, None, 1.7e9, None, 1.7e9, 1.7e9, p.content,
                 p.summary, (), False, False)  # fmt: skip


def _anchor_pos(view: ArticleView, text: str) -> int:
    """Where the link showing ``text`` starts in the document."""
    doc = view.browser.document()
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.text().startswith(text) and frag.charFormat().isAnchor():
                return frag.position()
            it += 1
        block = block.next()
    raise AssertionError(f"no link {text!r}")


def _click(qtbot, view: ArticleView, text: str) -> None:
    b = view.browser
    cur = QTextCursor(b.document())
    cur.setPosition(_anchor_pos(view, text) + 1)
    b.setTextCursor(cur)
    b.ensureCursorVisible()
    qtbot.wait(20)
    rect = b.cursorRect(cur)
    point = QPoint(rect.left() - 2, rect.center().y())
    QTest.mouseClick(b.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    qtbot.wait(20)


def _y_in_view(view: ArticleView, text: str) -> float:
    """The line of ``text`` relative to the top of the viewport."""
    b = view.browser
    cur = QTextCursor(b.document())
    cur.setPosition(_text_pos(view, text))
    return b.cursorRect(cur).top()


def _text_pos(view: ArticleView, text: str) -> int:
    found = view.browser.document().find(text)
    assert not found.isNull(), text
    return found.selectionStart()


def test_a_footnote_link_scrolls_to_its_note_and_back_opening_nothing(qtbot, view, opened):
    """Audit B2: the click opened the feed's XML in the browser."""
    view.show_entry(_parsed(FOOTNOTES), "Blog", feed_url=FEED_URL)
    bar = view.browser.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0
    _click(qtbot, view, "1")
    assert opened == []
    note_y = _y_in_view(view, "The note.")
    assert bar.value() > 0
    assert 0 <= note_y < view.browser.viewport().height() / 2  # brought to the top
    _click(qtbot, view, "back")
    assert opened == []
    assert 0 <= _y_in_view(view, "A claim") < view.browser.viewport().height()


def test_links_out_of_the_article_still_open_in_the_browser(qtbot, view, opened):
    view.show_entry(_parsed(FOOTNOTES), "Blog", feed_url=FEED_URL)
    _click(qtbot, view, "a missing target")  # the page may have it: open it there
    _click(qtbot, view, "Post")  # the title: the article's page
    emit = view.browser.anchorClicked.emit
    emit(QUrl("https://blog.example.org/2026/11/post-2/#fn:1"))  # another page's note
    emit(QUrl(POST.replace("https", "http") + "#fn:1"))  # not the same address
    assert opened == [
        f"{POST}#nowhere",
        POST,
        "https://blog.example.org/2026/11/post-2/#fn:1",
        "http://blog.example.org/2026/11/post-1/#fn:1",
    ]
    assert view.browser.verticalScrollBar().value() == 0


def test_an_item_without_a_link_scrolls_to_its_notes_too(qtbot, view, opened):
    view.show_entry(_parsed(FOOTNOTES, link=None), "Blog", feed_url=FEED_URL)
    _click(qtbot, view, "1")
    assert view.browser.verticalScrollBar().value() > 0
    _click(qtbot, view, "a missing target")  # the feed's XML is no page to open
    assert opened == []


def _cells(view: ArticleView):
    doc = view.browser.document()
    frames = [f for f in doc.rootFrame().childFrames() if hasattr(f, "cellAt")]
    assert frames, "no table"
    table = frames[-1]
    return table, [
        table.cellAt(r, c).format().toTableCellFormat()
        for r in range(table.rows())
        for c in range(table.columns())
    ]


def _contrast(a: QColor, b: QColor) -> float:
    return abs(a.lightnessF() - b.lightnessF())


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_tables_have_thin_cell_borders_and_padding_in_both_themes(qtbot, view, palette):
    """Audit R6: an 8-column table was a word-wrapped grid with no rules."""
    view.setPalette(palette())
    view.show_entry(_parsed(f"<p>Data:</p>{TABLE}<p>after</p>"), "Blog")
    table, cells = _cells(view)
    assert table.columns() == 8
    base = view.palette().color(QPalette.ColorRole.Base)
    for cell in cells:
        assert cell.leftPadding() >= 3 and cell.topPadding() >= 2
        assert 0 < cell.leftBorder() <= 1 and 0 < cell.bottomBorder() <= 1
        colour = cell.leftBorderBrush().color()
        assert 0.08 < _contrast(colour, base) < 0.5  # visible, not glaring
    assert table.format().borderCollapse()


@pytest.mark.parametrize("width", [700, 1000, 1400])
def test_a_wide_table_that_fits_never_scrolls_the_article_sideways(qtbot, view, width):
    view.resize(width, 600)
    view.show_entry(_parsed(f"{TABLE}{FILLER}"), "Blog")
    qtbot.wait(20)
    b = view.browser
    assert not b.horizontalScrollBar().isVisible()
    # nothing beyond a pixel or two of Qt's rounding (the column's sides are blank)
    assert b.document().size().width() <= b.viewport().width() + 4


def test_a_table_that_cannot_fit_with_whole_words_scrolls_sideways(qtbot, view):
    """Squeezed into a 420 px pane, the cells' words were broken anywhere
    ("wi/th"); now the table is as wide as its words need, and scrolls."""
    view.resize(420, 600)
    view.show_entry(_parsed(f"{TABLE}{FILLER}"), "Blog")
    qtbot.wait(20)
    b = view.browser
    assert b.horizontalScrollBar().isVisible()
    table, _ = _cells(view)
    for r in range(table.rows()):
        for c in range(table.columns()):
            block = table.cellAt(r, c).firstCursorPosition().block()
            text, lay = block.text(), block.layout()
            for i in range(lay.lineCount()):
                line = lay.lineAt(i)
                shown = text[line.textStart() : line.textStart() + line.textLength()]
                assert set(shown.split()) <= set(text.split()), (text, shown)


def test_a_link_whose_address_was_removed_reads_as_text(qtbot, view):
    """Audit R6: a javascript: link lost its href but stayed link-blue."""
    view.show_entry(
        _parsed('<p><a href="javascript:alert(1)">dead</a> and <a href="/x">live</a></p>'), "Blog"
    )
    doc = view.browser.document()
    link = view.palette().color(QPalette.ColorRole.Link)

    def colour(word: str) -> QColor:
        cur = QTextCursor(doc)
        cur.setPosition(_text_pos(view, word) + 1)
        return cur.charFormat().foreground().color()

    assert colour("live") == link
    assert colour("dead") != link
    assert colour("dead") == colour("and")
