"""What the reading pane's audit left over: code blocks set apart from the text
(Qt ignores padding on ``pre``), a ``dir`` that ran on into the blocks after its
element, ``q`` marks in the article's language, tracking pixels declared in one
dimension only. Real sanitising, real widgets, the document Qt makes."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette, QTextFrame, QTextTable

from smartreader.gui.app import dark_palette, light_palette
from smartreader.gui.article_view import ArticleView
from tests.gui.pictures import png
from tests.gui.test_article_rendering_audit import _block, _entry
from tests.httpserver import Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

RTL = Qt.LayoutDirection.RightToLeft


VIEW_SIZE = (800, 600)  # the shared ``view`` fixture's size


# -- code blocks set apart -------------------------------------------------------

CODE = (
    "<p>Install it:</p><pre><code>$ pip install foo\n$ foo --init\n</code></pre>"
    "<p>After the code.</p><ol><li>In a list:<pre>item code\nline 2</pre></li></ol>"
)


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_a_code_block_is_inset_in_its_own_background(view, palette):
    """Qt ignores a ``pre``'s padding: its background began where its text did,
    the first letter on its left edge and the first line on its top edge. Each
    code block is now a frame with a background a little way around the code."""
    view.setPalette(palette())
    view.show_entry(_entry(CODE), "feed")
    lay = view.browser.document().documentLayout()
    base = view.palette().color(QPalette.ColorRole.Base)
    for first, last in (("$ pip install foo", "$ foo --init"), ("item code", "line 2")):
        block = _block(view, first)
        code_frame = view.browser.document().frameAt(block.position())
        assert type(code_frame) is QTextFrame and not isinstance(code_frame, QTextTable)
        assert code_frame != view.browser.document().rootFrame()
        fmt = code_frame.frameFormat()
        bg = fmt.background().color()
        assert fmt.background().style() != Qt.BrushStyle.NoBrush and bg != base
        box = lay.frameBoundingRect(code_frame)
        text = lay.blockBoundingRect(block)
        end = lay.blockBoundingRect(_block(view, last))
        inset = 4  # at least this much background around the code, every side
        above = text.top() - box.top() - fmt.topMargin()  # inside the frame
        below = box.bottom() - fmt.bottomMargin() - end.bottom()
        assert text.left() - box.left() - fmt.leftMargin() >= inset
        assert above >= inset and below >= inset
        # as much below the last line as above the first: no blank line of
        # the code's trailing newline at its foot
        assert below == pytest.approx(above, abs=1)
        assert frame_is_code(view, code_frame)


def frame_is_code(view: ArticleView, frame: QTextFrame) -> bool:
    """Every block in ``frame`` is set in a monospace font."""
    it = frame.begin()
    while not it.atEnd():
        block = it.currentBlock()
        if block.isValid() and block.text():
            fmt = block.begin().fragment().charFormat()
            if not (fmt.fontFixedPitch() or "monospace" in fmt.fontFamilies()):
                return False
        it += 1
    return True


@pytest.mark.parametrize(
    "html",
    [
        "<p>Before.</p><pre>code\n</pre><p>After.</p>",
        # a highlighter's div: Qt put an empty block before the frame too
        '<p>Before.</p>\n<div class="highlight"><pre><span></span>code\n</pre></div>\n'
        "<p>After.</p>",
    ],
    ids=["pre", "div-pre"],
)
def test_a_code_frame_is_spaced_alike_above_and_below(view, html):
    """Qt puts an empty block after a frame (and before one that opens a div):
    a line's height of blank below the code, two above it in a div."""
    view.show_entry(_entry(html), "feed")
    lay = view.browser.document().documentLayout()
    (frame,) = _code_frames(view)
    fmt = frame.frameFormat()
    box = lay.frameBoundingRect(frame)
    above = box.top() + fmt.topMargin() - lay.blockBoundingRect(_block(view, "Before.")).bottom()
    below = lay.blockBoundingRect(_block(view, "After.")).top() - (
        box.bottom() - fmt.bottomMargin()
    )
    line = view.browser.fontMetrics().lineSpacing()
    assert above == pytest.approx(below, abs=4)
    assert 4 <= above < line * 1.5


def test_code_frames_leave_the_text_around_them_as_it_was(view):
    view.show_entry(_entry(CODE), "feed")
    # nothing lost, nothing added, nothing moved out of the list (Qt puts an
    # empty block after a frame, as after a table)
    text = re.sub(r"\n+", "\n", view.browser.toPlainText())
    assert "$ pip install foo\n$ foo --init\nAfter the code." in text
    assert "item code\nline 2" in text
    assert _block(view, "In a list").textList() is not None
    # the code in the list item is indented with the item
    lay = view.browser.document().documentLayout()
    top = view.browser.document().frameAt(_block(view, "$ pip").position())
    inner = view.browser.document().frameAt(_block(view, "item code").position())

    def left(frame: QTextFrame) -> float:  # of its background (past its margin)
        return lay.frameBoundingRect(frame).left() + frame.frameFormat().leftMargin()

    assert left(inner) > left(top) + 10


def _code_frames(view: ArticleView) -> list[QTextFrame]:
    out: list[QTextFrame] = []

    def walk(frame: QTextFrame) -> None:
        for child in frame.childFrames():
            if not isinstance(child, QTextTable):
                out.append(child)
            walk(child)

    walk(view.browser.document().rootFrame())
    return out


def test_code_in_a_table_and_past_the_cap_is_set_as_before(view, monkeypatch):
    """In a table cell a frame puts an empty block first, by which fit_tables
    measured the column ("ls -l" broke in two); and Qt's work grows faster
    than the number of frames: past MAX_CODE_FRAMES, code is set as it was."""
    from smartreader.gui import article_view

    monkeypatch.setattr(article_view, "MAX_CODE_FRAMES", 2)
    html = (
        "<table><tr><th>Command</th><th>What</th></tr><tr><td><pre>ls -l\n</pre></td>"
        "<td>lists files</td></tr></table>"
        + "".join(f"<p>p{i}</p><pre>code {i}\n</pre>" for i in range(4))
    )
    view.show_entry(_entry(html), "feed")
    cell = _block(view, "ls -l")
    assert cell.text() == "ls -l" and cell.layout().lineCount() == 1  # whole, one line
    assert len(_code_frames(view)) == 2
    for i in range(4):
        assert _block(view, f"code {i}").text() == f"code {i}"  # the newline goes anyway


def test_code_first_in_a_list_item_stays_beside_its_bullet(view):
    """A frame first in a list item left the bullet alone on an empty line."""
    view.show_entry(_entry("<ul><li><pre>$ make\n</pre></li><li>next</li></ul>"), "feed")
    assert _block(view, "$ make").textList() is not None
    assert _block(view, "$ make").text() == "$ make"
    assert _code_frames(view) == []


# -- a dir attribute stays with its element ----------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        "<p>English before.</p><div dir='rtl'><p>שלום עולם</p></div>"
        "<p>English after one.</p><p>English after two.</p>",
        "<p>English before.</p><div dir='rtl'><p>שלום</p><p>עולם</p></div>"
        "<div><p>English after one.</p></div><ul><li>English after two.</li></ul>",
        "<p>English before.</p><blockquote dir='rtl'><p>שלום עולם</p></blockquote>"
        "<h2>English after one.</h2><p>English after two.</p>",
        "<p>English before: <span dir='rtl'><b>שלום</b></span></p>"
        "<p>English after one.</p><p>English after two.</p>",
        "<table><tr><td dir='rtl'><p>שלום עולם</p></td><td>English after one.</td></tr></table>"
        "<p>English after two.</p>",
    ],
    ids=["div", "div-then-nested", "blockquote", "inline", "table-cell"],
)
def test_a_right_to_left_block_does_not_turn_the_next_ones(view, html):
    """Qt's HTML parser reuses the empty node it made inside the element for
    the element after it, with its direction: the paragraph after a
    ``<div dir="rtl">`` was set right-to-left (right-aligned English)."""
    view.show_entry(_entry(html, "English title"), "feed")
    for words in ("English before", "English after one", "English after two"):
        if words in view.browser.toPlainText():
            assert _block(view, words).blockFormat().layoutDirection() != RTL, words
            assert _block(view, words).textDirection() != RTL, words
    hebrew = _block(view, "שלום")
    if hebrew.text().startswith("שלום"):  # a block of its own
        assert hebrew.textDirection() == RTL


def test_a_left_to_right_block_in_a_right_to_left_article_does_not_run_on(view):
    hebrew = "חברת אפל הודיעה היום על מכשיר חדש שיושק בחודש הבא בישראל ובעולם."
    html = f"<p>{hebrew}</p><div dir='ltr'><p>English code name</p></div><p>iPhone {hebrew}</p>"
    view.show_entry(_entry(html, "כותרת"), "feed")
    assert _block(view, "English code").blockFormat().layoutDirection() != RTL
    assert _block(view, "iPhone").blockFormat().layoutDirection() == RTL


# -- q in the article's language ---------------------------------------------------


@pytest.mark.parametrize(
    ("html", "shown"),
    [
        (
            "<p lang='de'>Er sagte <q>es ist <q>innen</q> hier</q>.</p>",
            "Er sagte „es ist ‚innen‘ hier“.",
        ),
        (
            "<div lang='fr-CA'><p>Il a dit <q>bonjour</q>.</p></div>",
            "Il a dit «\u00a0bonjour\u00a0».",
        ),
        ("<p>He said <q lang='ja'>こんにちは</q>.</p>", "He said 「こんにちは」."),
        ("<p lang='xx'>He said <q>hi</q>.</p>", "He said “hi”."),  # not known: English
        ("<p>He said <q>hi</q>.</p>", "He said “hi”."),
    ],
    ids=["de", "fr-from-ancestor", "ja-on-q", "unknown", "none"],
)
def test_q_marks_follow_the_language_the_article_declares(view, html, shown):
    view.show_entry(_entry(html), "feed")
    assert shown in view.browser.document().toRawText()


# -- tracking pixels declared in one dimension ---------------------------------------


@pytest.mark.parametrize(
    "size",
    [
        "width='1' height='1'",
        "width='1'",
        "height='1'",
        "width='0'",
        "height='0'",
        "width='1' height='300'",
    ],
)
def test_a_one_sided_tracking_pixel_is_never_fetched(qtbot, view, feed_server, size):
    """Declared 1 (or 0) px in one dimension and nothing in the other, Qt asked
    for the image while laying the article out, to learn its other side:
    fetched before the pixel test ever saw it."""
    feed_server.route("/a.png", Reply(body=png(40, 30), headers={"Content-Type": "image/png"}))
    feed_server.route("/px.gif", Reply(body=png(1, 1), headers={"Content-Type": "image/png"}))
    html = (
        f"<p>Text.</p><p><img src='{feed_server.url('/a.png')}'></p>"
        f"<img src='{feed_server.url('/px.gif')}' {size}>"
    )
    view.show_entry(_entry(html), "feed", load_images=True, feed_url=feed_server.url("/feed"))
    view.grab()
    qtbot.waitUntil(lambda: any(r.path == "/a.png" for r in feed_server.requests), timeout=5000)
    qtbot.wait(150)
    view.grab()
    assert [r.path for r in feed_server.requests] == ["/a.png"]
    assert view.browser.image_state(feed_server.url("/px.gif")) == "refused"


def test_a_one_sided_tracking_pixel_raises_no_image_bar(qtbot, view):
    pixel = "<img src='https://feeds.example.net/~r/x/~4/abc' width='1' alt='tracker'>"
    view.show_entry(_entry(f"<p>An article with no pictures.</p>{pixel}"), "feed")
    view.grab()
    qtbot.wait(20)
    assert view.browser.blocked_images == 0
    assert not view.image_bar.isVisibleTo(view)
    assert "[tracker]" not in view.browser.toPlainText()
