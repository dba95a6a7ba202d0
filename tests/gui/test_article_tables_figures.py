"""The reading pane's tables, figures and embeds: a table keeps its cells' words
whole and scrolls sideways when it cannot fit, while paragraphs still wrap to the
pane; a figure's caption is a block of its own; an embedded video leaves a link.
Real sanitising, real widgets, the layout Qt makes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt, QTextBoundaryFinder
from PySide6.QtGui import QColor, QPalette, QTextBlock, QTextCursor, QTextLength, QTextTable
from PySide6.QtTest import QTest

from smartreader.gui.app import dark_palette, light_palette
from smartreader.gui.article_view import SIDEWAYS_SLACK_PX, ArticleView
from smartreader.net.sanitize import EMBED_LABEL, sanitize_html
from smartreader.storage.store import Entry
from tests.gui.pictures import png
from tests.httpserver import Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

PAGE = "https://blog.example.org/2026/11/post/"
BENCHMARK = (
    "<p>Benchmark results:</p><table><tr><th>Implementation</th><th>Throughput</th>"
    "<th>Latency p50</th><th>Latency p99</th><th>Memory</th><th>Allocations</th></tr>"
    + "".join(
        f"<tr><td>variant-{i}-optimised</td><td>1,234,567 ops/s</td><td>0.42 ms</td>"
        "<td>12.7 ms</td><td>256 MiB</td><td>4,096,000</td></tr>"
        for i in range(4)
    )
    + "</table>"
)
WIDE = (
    "<table><tr>" + "".join(f"<th>Column-header-{i}</th>" for i in range(15)) + "</tr>"
    + "<tr>" + "".join(f"<td>{i * 1234567}</td>" for i in range(15)) + "</tr></table>"
)  # fmt: skip
PARAGRAPH = (
    "<p>After the table, an ordinary paragraph long enough to wrap at the pane's width, "
    "which it still does, table or not.</p>"
)
LONG_WORD = "Pneumono" + "x" * 300
LONG_URL = "https://example.org/" + "/".join(f"segment{i}" for i in range(40))

VIEW_SIZE = (700, 560)  # the shared ``view`` fixture's size


def _entry(html: str) -> Entry:
    content, _ = sanitize_html(html, PAGE, page=PAGE)
    return Entry(1, 1, "u", "Title", PAGE, None, 1.7e9, None, 1.7e9, 1.7e9, content, "",
                 (), False, False)  # fmt: skip


def _show(qtbot, view: ArticleView, html: str, width: int, feed_url: str = PAGE, **kw) -> None:
    view.resize(width, 560)
    qtbot.wait(10)
    view.show_entry(_entry(html), "Blog", feed_url=feed_url, **kw)
    qtbot.wait(20)


def _tables(doc) -> list[QTextTable]:
    out = []
    for frame in doc.rootFrame().childFrames():
        if isinstance(frame, QTextTable):
            out.append(frame)
    return out


def _broken_words(view: ArticleView) -> list[str]:
    """Every line in a table cell that starts inside a word (where the text has
    no line-break opportunity), shown as "Imple|mentation"."""
    broken = []
    for table in _tables(view.browser.document()):
        for r in range(table.rows()):
            for c in range(table.columns()):
                cell = table.cellAt(r, c)
                if (cell.row(), cell.column()) != (r, c):
                    continue  # spanned
                block = cell.firstCursorPosition().block()
                end = cell.lastCursorPosition().position()
                while block.isValid() and block.position() <= end:
                    text, lay = block.text(), block.layout()
                    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Line, text)
                    for i in range(1, lay.lineCount()):
                        start = lay.lineAt(i).textStart()
                        finder.setPosition(start)
                        if not finder.isAtBoundary():
                            broken.append(f"{text[:start]}|{text[start:]}")
                    block = block.next()
    return broken


def _block(view: ArticleView, text: str) -> QTextBlock:
    found = view.browser.document().find(text)
    assert not found.isNull(), text
    return found.block()


def _wraps_to_the_pane(view: ArticleView, text: str) -> None:
    """The paragraph holding ``text`` takes several lines, none wider than the pane."""
    b = view.browser
    block = _block(view, text)
    lay = block.layout()
    rect = b.document().documentLayout().blockBoundingRect(block)
    assert lay.lineCount() >= 2
    assert rect.right() <= b.viewport().width()
    for i in range(lay.lineCount()):
        assert lay.lineAt(i).naturalTextWidth() <= rect.width() + 0.5


def _scrolls_sideways(view: ArticleView) -> bool:
    b = view.browser
    bar = b.horizontalScrollBar()
    wider = b.document().size().width() > b.viewport().width() + SIDEWAYS_SLACK_PX
    assert bar.isVisible() == wider == (bar.maximum() > 0)
    return wider


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_a_table_too_wide_for_the_pane_keeps_its_words_and_scrolls_sideways(qtbot, view, palette):
    """Audit: at 480 px "Imple/mentat/ion", "Latenc/y p50", "1,234,/567", and no
    sideways scroll bar however narrow the columns came out."""
    view.setPalette(palette())
    _show(qtbot, view, BENCHMARK + PARAGRAPH + f"<p>{LONG_WORD}</p><p>{LONG_URL}</p>", 480)
    assert _broken_words(view) == []
    (table,) = _tables(view.browser.document())
    header = [table.cellAt(0, c).firstCursorPosition().block() for c in range(6)]
    assert [b.layout().lineCount() for b in header[:2]] == [1, 1]  # one word: one line
    assert _scrolls_sideways(view)
    # the rest of the article still wraps to the pane; a long word is broken
    _wraps_to_the_pane(view, "After the table")
    _wraps_to_the_pane(view, LONG_WORD[:20])
    _wraps_to_the_pane(view, LONG_URL[:30])


def test_numbers_in_a_wide_table_stay_whole(qtbot, view):
    """Audit: 15 columns of numbers put each digit on a line of its own."""
    _show(qtbot, view, WIDE + PARAGRAPH, 900)
    assert _broken_words(view) == []
    (table,) = _tables(view.browser.document())
    numbers = [table.cellAt(1, c).firstCursorPosition().block() for c in range(15)]
    assert all(b.layout().lineCount() == 1 for b in numbers)
    assert _scrolls_sideways(view)
    _wraps_to_the_pane(view, "After the table")


@pytest.mark.parametrize("width", [900, 1400])
def test_a_table_that_fits_with_whole_words_does_not_scroll(qtbot, view, width):
    _show(qtbot, view, BENCHMARK + PARAGRAPH, width)
    assert _broken_words(view) == []
    assert not _scrolls_sideways(view)


def test_a_resized_pane_fits_the_tables_again(qtbot, view):
    _show(qtbot, view, BENCHMARK + PARAGRAPH, 900)
    assert not _scrolls_sideways(view)
    view.resize(480, 560)
    qtbot.waitUntil(lambda: view.browser.horizontalScrollBar().isVisible(), timeout=2000)
    assert _broken_words(view) == [] and _scrolls_sideways(view)
    view.resize(1000, 560)
    qtbot.waitUntil(lambda: not view.browser.horizontalScrollBar().isVisible(), timeout=2000)
    assert _broken_words(view) == [] and not _scrolls_sideways(view)


def test_a_word_longer_than_the_column_is_broken_in_a_cell_too(qtbot, view):
    """A column is never wider than the text column: one cell of junk does not
    make the article a screen wide per word."""
    _show(qtbot, view, f"<table><tr><td>{'Q' * 300}</td><td>b</td></tr></table>", 700)
    b = view.browser
    assert b.document().size().width() < b.viewport().width() + 100
    assert "QQQQ" in b.toPlainText()


FIGURE = (
    "<p>Intro paragraph.</p><figure><img src='{src}' width='600' height='300' "
    "alt='A green field'><figcaption>Figure 1: the caption, <b>long</b> enough to say "
    "something about the photo.</figcaption></figure><p>Text after the figure.</p>"
)


def _muted(view: ArticleView) -> QColor:
    return view.palette().color(QPalette.ColorRole.PlaceholderText)


def _char_format(view: ArticleView, text: str):
    cur = QTextCursor(view.browser.document())
    cur.setPosition(view.browser.document().find(text).selectionStart() + 1)
    return cur.charFormat()


def _gap_after(view: ArticleView, block: QTextBlock) -> float:
    """Pixels between ``block``'s last line and the next block's first line."""
    lay = view.browser.document().documentLayout()
    nxt = block.next()
    bottom = lay.blockBoundingRect(block).top() + block.layout().boundingRect().bottom()
    top = lay.blockBoundingRect(nxt).top() + nxt.layout().lineAt(0).y()
    return top - bottom


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
@pytest.mark.parametrize("loaded", [False, True], ids=["blocked", "loaded"])
def test_a_figure_caption_is_a_block_of_its_own_set_off_from_the_text(
    qtbot, view, feed_server, palette, loaded
):
    """Audit: blocked, "[alt]Figure 1: the caption" ran together on one line;
    loaded, the caption read as body text, the next paragraph right under it."""
    feed_server.route("/p.png", Reply(body=png(600, 300), headers={"Content-Type": "image/png"}))
    src = feed_server.url("/p.png")
    view.setPalette(palette())
    feed = feed_server.url("/feed.xml")  # images from where the feed is: allowed
    _show(qtbot, view, FIGURE.format(src=src), 480, feed_url=feed, load_images=loaded)
    if loaded:
        view.grab()
        qtbot.waitUntil(lambda: src in view.browser._images, timeout=5000)
        qtbot.waitUntil(lambda: not view._rerender_pending, timeout=2000)
    caption = _block(view, "Figure 1: the caption")
    assert caption.text().startswith("Figure 1")  # not after the image or its alt text
    assert _block(view, "Intro paragraph").text() == "Intro paragraph."  # nor before
    assert ("[A green field]" in view.browser.toPlainText()) != loaded
    body = view.browser.document().defaultFont().pointSizeF()
    assert _char_format(view, "Intro paragraph").fontPointSize() in (0, body)
    for word in ("caption", "long"):
        fmt = _char_format(view, word)
        assert 0 < fmt.fontPointSize() < body
        assert fmt.foreground().color() == _muted(view).toRgb()  # the meta line's grey
    assert _char_format(view, "Text after").foreground().color() != _muted(view).toRgb()
    assert caption.next().text() == "Text after the figure."
    line = view.browser.fontMetrics().height()
    assert _gap_after(view, caption) >= line / 2  # set off from what follows
    assert 0 <= _gap_after(view, caption.previous()) < _gap_after(view, caption)


def test_an_embedded_video_leaves_a_link_that_opens_in_the_browser(qtbot, view, opened):
    """Audit: an iframe embed left "Video:" followed by nothing."""
    video = "https://www.youtube.com/embed/dQw4w9WgXcQ?start=10"
    _show(qtbot, view, f"<p>Video:</p><iframe src='{video}'></iframe><p>After.</p>", 700)
    trace = _block(view, EMBED_LABEL)
    assert trace.text() == f"{EMBED_LABEL} www.youtube.com/embed/dQw4w9WgXcQ"
    assert trace.previous().text() == "Video:" and trace.next().text() == "After."
    b = view.browser
    cur = QTextCursor(b.document())
    cur.setPosition(b.document().find("youtube").selectionStart() + 2)
    assert cur.charFormat().anchorHref() == video
    b.setTextCursor(cur)
    rect = b.cursorRect(cur)
    QTest.mouseClick(b.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     QPoint(rect.left(), rect.center().y()))  # fmt: skip
    qtbot.wait(20)
    assert opened == [video]


def test_an_image_not_loaded_and_its_caption_are_not_run_together(qtbot, view):
    """Audit: "[A caption-worthy photo]Figure 1: the caption", one line."""
    _show(qtbot, view, (
        "<figure><img src='https://example.org/a.jpg' width='1200' height='800' "
        "alt='A caption-worthy photo'><figcaption>Figure 1: the caption</figcaption>"
        "</figure><p>Text</p>"
    ), 480)  # fmt: skip
    alt = _block(view, "[A caption-worthy photo]")
    assert alt.text() == "[A caption-worthy photo]"
    assert alt.next().text() == "Figure 1: the caption"
    assert alt.next().next().text() == "Text"


def test_a_caption_before_its_image_is_a_block_of_its_own_too(qtbot, view):
    """Qt adds inline content after a block in a div to that block: the image
    after a leading caption went into the caption's line."""
    _show(qtbot, view, (
        "<figure><figcaption>Above the photo</figcaption><img src='https://example.org/a.jpg' "
        "alt='The photo'></figure><p>Text</p>"
    ), 480)  # fmt: skip
    caption = _block(view, "Above the photo")
    assert caption.text() == "Above the photo"
    assert caption.next().text() == "[The photo]"
    assert caption.next().next().text() == "Text"
    assert _gap_after(view, caption.next()) >= view.browser.fontMetrics().height() / 2


def test_a_huge_table_keeps_qts_own_fit(qtbot, view):
    """Fitting lays the article out twice more: for a table of thousands of cells
    that would hold the window up (~0.5 s at 300 rows), so it is left as Qt lays it."""
    from smartreader.gui.article_view import MAX_FIT_CELLS

    rows = MAX_FIT_CELLS // 5 + 1
    big = "<table>" + "<tr><td>a</td><td>b</td><td>c</td><td>d</td><td>e</td></tr>" * rows
    _show(qtbot, view, big + "</table>" + BENCHMARK, 480)
    fixed = QTextLength.Type.FixedLength

    def fixed_columns(t: QTextTable) -> int:
        return sum(c.type() == fixed for c in t.format().columnWidthConstraints())

    huge, small = _tables(view.browser.document())
    assert huge.rows() == rows
    assert fixed_columns(huge) == 0 and fixed_columns(small) == 0  # none in this article
    _show(qtbot, view, BENCHMARK, 480)
    [fitted] = _tables(view.browser.document())
    assert fixed_columns(fitted) == 6  # which a small one alone gets
