"""What the reading pane's rendering audit found: a right-to-left article set in
one direction, not block by block; an image after a block on a line of its own;
code in a list item set solid; attachments named for people; tracking pixels
that ask for nothing; mark, kbd and q. Real sanitising, real widgets, the
document Qt makes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QPalette, QTextBlock

from smartreader.core.models import Enclosure
from smartreader.gui.app import dark_palette, light_palette
from smartreader.gui.article_view import ArticleView
from smartreader.net.sanitize import sanitize_html
from smartreader.storage.store import Entry
from tests.gui.contrast import contrast

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

PAGE = "https://blog.example.org/2026/11/post/"
RTL = Qt.LayoutDirection.RightToLeft
OBJECT = "\ufffc"  # an image in a block's text
# A Hebrew article whose paragraphs, list items and title start with Latin words
# or digits, as tech news does (the audit's rtl_zigzag).
HEBREW = (
    "<p>חברת אפל הודיעה היום על מכשיר חדש שיושק בחודש הבא בישראל ובעולם.</p>"
    "<p>iPhone 16 יגיע בשלושה צבעים, והמחיר יתחיל ב-3,999 שקלים לפי הדיווח.</p>"
    "<p>2024 הייתה שנה טובה לחברה, עם הכנסות שיא בכל הרבעונים.</p>"
    "<ul><li>Face ID משופר</li><li>מצלמה חדשה</li></ul>"
    "<blockquote>iOS 18 ציטוט מהמנכ״ל: אנחנו גאים מאוד.</blockquote>"
)
HEBREW_TITLE = "Apple מכריזה על iPhone 16"

VIEW_SIZE = (800, 600)  # the shared ``view`` fixture's size


def _entry(html: str, title: str = "Title", enclosures: tuple[Enclosure, ...] = ()) -> Entry:
    content, _ = sanitize_html(html, PAGE, page=PAGE)
    return Entry(1, 1, "u", title, PAGE, "Author", 1.7e9, None, 1.7e9, 1.7e9, content, "",
                 enclosures, False, False)  # fmt: skip


def _blocks(view: ArticleView) -> list[QTextBlock]:
    """The document's blocks that show something, in order."""
    out = []
    block = view.browser.document().begin()
    while block.isValid():
        if block.text().strip():
            out.append(block)
        block = block.next()
    return out


def _block(view: ArticleView, words: str) -> QTextBlock:
    for b in _blocks(view):
        if words in b.text():
            return b
    raise AssertionError(f"{words!r} is not shown")


# -- 1. one direction per article --------------------------------------------


def test_a_right_to_left_article_reads_right_to_left_in_every_block(view):
    """Qt gave each block the direction of its first letter: "iPhone 16 …" and
    "2024 …" were set left-to-right among right-to-left paragraphs, and the
    bullets of "Face ID …" stood on the other side from the next item's."""
    view.show_entry(_entry(HEBREW, HEBREW_TITLE), "גיקטיים")
    blocks = _blocks(view)
    assert [b.text() for b in blocks][:1] == [HEBREW_TITLE]
    assert len(blocks) >= 8  # title, meta line, 3 paragraphs, 2 items, quote
    wrong = [b.text() for b in blocks if b.blockFormat().layoutDirection() != RTL]
    assert wrong == []


def test_code_and_attachments_stay_left_to_right_in_a_right_to_left_article(view):
    """Code read right-aligned with its punctuation at the wrong end; our own
    "Attachments" list is in the application's language."""
    encl = (Enclosure("https://cdn.example.org/ep1.mp3", "audio/mpeg", 1000),)
    view.show_entry(_entry(HEBREW + "<pre>$ pip install foo</pre>", HEBREW_TITLE, encl), "feed")
    assert _block(view, "iPhone 16").blockFormat().layoutDirection() == RTL
    for words in ("$ pip install foo", "Attachments", "ep1.mp3"):
        assert _block(view, words).blockFormat().layoutDirection() != RTL, words


def test_a_direction_the_content_declares_wins(view):
    """An Arabic article in ``<div dir="rtl">`` under a mostly Latin title: the
    title follows the article. A Hebrew-heavy one declared ``ltr`` stays so."""
    arabic = (
        "<div dir='rtl'><p>iPhone 15 هو الهاتف الجديد من Apple.</p>"
        "<ol><li>Apple Watch البند الأول</li></ol></div>"
    )
    view.show_entry(_entry(arabic, "Apple launches the new iPhone 15 today (عربي)"), "feed")
    assert all(b.blockFormat().layoutDirection() == RTL for b in _blocks(view))

    view.show_entry(_entry(f"<div dir='ltr'>{HEBREW}</div>", HEBREW_TITLE), "feed")
    assert all(b.blockFormat().layoutDirection() != RTL for b in _blocks(view))


def test_a_left_to_right_article_is_as_before(view):
    """No direction forced on an English article: a Hebrew quote in it still
    reads right-to-left, the English around it left-to-right."""
    html = "<p>An English article.</p><p>שלום עולם, ציטוט בעברית.</p><p>More English text.</p>"
    view.show_entry(_entry(html, "English title"), "feed")
    assert _block(view, "An English").blockFormat().layoutDirection() != RTL
    assert _block(view, "More English").blockFormat().layoutDirection() != RTL
    assert _block(view, "שלום").textDirection() == RTL


# -- 2. an image after a block -------------------------------------------------


@pytest.mark.parametrize(
    "html",
    [
        "<h2>Heading</h2><a href='https://x.org/'><img src='https://img.example.org/r.png'"
        " width='200' height='100'></a><p>Para B.</p>",
        "<p>Para A.</p><img src='https://img.example.org/q.png' width='200' height='100'>"
        "<p>Para B.</p>",
        "<blockquote><p>Quoted.</p><img src='https://img.example.org/q.png'></blockquote>",
    ],
    ids=["after-heading", "after-paragraph", "in-a-quote"],
)
def test_an_image_after_a_block_is_on_a_line_of_its_own(view, html):
    """Qt ran the image onto the end of "Heading" (or the paragraph before)."""
    view.show_entry(_entry(html), "feed", load_images=False)
    images = [b for b in _blocks(view) if OBJECT in b.text()]
    assert len(images) == 1
    assert images[0].text().strip() == OBJECT


# -- 3. code in a list item ----------------------------------------------------


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_code_in_a_list_item_is_set_as_solid_as_code_elsewhere(view, palette):
    """The list item's 145 % line height ran on into its code: its background
    came out in stripes with gaps between the lines."""
    view.setPalette(palette())
    html = (
        "<ol><li>Install it:<pre><code>$ pip install foo\n$ foo --init</code></pre></li></ol>"
        "<p>Top-level:</p><pre>top 1\ntop 2</pre>"
    )
    view.show_entry(_entry(html), "feed")
    lay = view.browser.document().documentLayout()

    def step(first: str, second: str) -> float:  # from one line's top to the next's
        top = lay.blockBoundingRect(_block(view, first)).top()
        return lay.blockBoundingRect(_block(view, second)).top() - top

    assert step("$ pip install foo", "$ foo --init") == pytest.approx(
        step("top 1", "top 2"), abs=0.5
    )


# -- 4. attachments ------------------------------------------------------------


def test_attachments_are_named_for_people_with_their_kind_and_size(view):
    """Raw MIME types ("audio/x-m4a"), no size though the feed gave it, and names
    with their query or a whole percent-encoded address (anchor.fm)."""
    encl = (
        Enclosure(
            "https://cdn.example.org/media/episode-42.mp3?utm_source=rss&x=1",
            "audio/mpeg",
            48_213_541,
        ),
        Enclosure(
            "https://anchor.fm/s/1a2b/podcast/play/123/https%3A%2F%2Fd3ctxlq1ktw2nl.cloudfront"
            ".net%2Fstaging%2F2020-05-25%2Fshow-ep7.m4a",
            "audio/x-m4a",
        ),
        Enclosure("https://cdn.example.org/v/clip.mp4", "video/mp4", 0),
        Enclosure("https://cdn.example.org/docs/annual%20report.pdf", "", 2_500_000),
    )
    view.show_entry(_entry("<p>Show notes.</p>", "Episode 42", encl), "feed")
    assert _block(view, "episode-42").text() == "episode-42.mp3 — Audio · 46 MiB"
    assert _block(view, "show-ep7").text() == "show-ep7.m4a — Audio"
    assert _block(view, "clip").text() == "clip.mp4 — Video"  # 0: size not known
    assert _block(view, "annual").text() == "annual report.pdf — PDF · 2.4 MiB"
    # the link is still the address itself, "&" and all (Qt kept "&amp;" of a
    # single-quoted href: the title's link too)
    first = _block(view, "episode-42").begin().fragment().charFormat()
    assert first.anchorHref() == encl[0].url
    view.show_entry(
        Entry(1, 1, "u", "Linked", "https://example.org/?p=1&lang=en", None, 1.7e9, None,
              1.7e9, 1.7e9, "<p>x</p>", "", (), False, False),
        "feed",
    )  # fmt: skip
    title = _block(view, "Linked").begin().fragment().charFormat()
    assert title.anchorHref() == "https://example.org/?p=1&lang=en"


# -- 5. tracking pixels --------------------------------------------------------


def test_a_tracking_pixel_raises_no_image_bar(qtbot, view):
    """feed-rs's atom_example_3: feedburner's 1×1 pixel under the text asked the
    reader to "Load images" for an article with nothing to see."""
    pixel = (
        '<img src="http://feeds.feedburner.com/~r/TheAkamaiBlog/~4/NnQEuqRSyug"'
        ' height="1" width="1" alt="tracker"/>'
    )
    view.show_entry(_entry(f"<p>An article with no pictures.</p>{pixel}"), "feed")
    view.grab()
    qtbot.wait(20)
    assert view.browser.blocked_images == 0
    assert not view.image_bar.isVisibleTo(view)
    assert "[tracker]" not in view.browser.toPlainText()
    # a real image still raises it
    view.show_entry(
        _entry(f"<p>Text.</p>{pixel}<p><img src='https://img.example.org/a.png'></p>"), "feed"
    )
    assert view.browser.blocked_images == 1 and view.image_bar.isVisibleTo(view)


# (a tracking pixel is never fetched: test_article_leftovers.py)


# -- 6. mark, kbd, q -----------------------------------------------------------


@pytest.mark.parametrize("palette", [light_palette, dark_palette], ids=["light", "dark"])
def test_mark_kbd_and_q_are_shown_as_such(view, palette):
    view.setPalette(palette())
    html = (
        "<p>Some <mark>highlighted</mark> words; press <kbd>Ctrl</kbd>, and he said "
        "<q>it is <q>nested</q> here</q>.</p>"
    )
    view.show_entry(_entry(html), "feed")
    para = _block(view, "highlighted")
    assert "he said “it is ‘nested’ here”." in para.text()
    formats = {}
    it = para.begin()
    while not it.atEnd():
        formats[it.fragment().text()] = it.fragment().charFormat()
        it += 1
    base = view.palette().color(QPalette.ColorRole.Base)

    def ink(fmt):  # the palette's text colour unless the style sheet set one
        if fmt.foreground().style() == Qt.BrushStyle.NoBrush:
            return view.palette().color(QPalette.ColorRole.Text)
        return fmt.foreground().color()

    mark = formats["highlighted"]
    assert mark.background().style() != QBrush().style()
    assert mark.background().color() != base
    assert contrast(ink(mark), mark.background().color()) >= 4.5
    kbd = formats["Ctrl"]
    assert kbd.fontFixedPitch() or "monospace" in kbd.fontFamilies()
    assert kbd.background().style() != QBrush().style() and kbd.background().color() != base
    assert contrast(ink(kbd), kbd.background().color()) >= 4.5
