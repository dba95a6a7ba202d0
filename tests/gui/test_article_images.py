"""Images in the reading pane: the "Load images" bar, room for images not loaded,
loaded ones within the text column, and code blocks that wrap."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor

from smartreader.gui.article_view import PLACEHOLDER_PX, READ_WIDTH_PX, ArticleView
from smartreader.storage.store import Entry
from tests.gui.pictures import png
from tests.httpserver import Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _entry(content: str) -> Entry:
    return Entry(1, 1, "u", "Title", "https://example.org/a", None, 1.7e9, None, 1.7e9,
                 1.7e9, content, "", (), False, False)  # fmt: skip


def _images(view: ArticleView) -> list[tuple[str, float, float]]:
    """(name, width, height) of every image in the document, in order."""
    doc = view.browser.document()
    out = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            if fmt.isImageFormat():
                img = fmt.toImageFormat()
                out.append((img.name(), img.width(), img.height()))
            it += 1
        block = block.next()
    return out


def _no_sideways_scroll(view: ArticleView) -> bool:
    doc_width = view.browser.document().size().width()
    return view.browser.horizontalScrollBar().maximum() == 0 and doc_width <= (
        view.browser.viewport().width()
    )


@pytest.mark.parametrize(
    "img",
    [
        '<img src="https://img.example.org/a.png">',
        '<img src="https://img.example.org/b.png" width="400" height="300">',  # WordPress
        '<img src="https://img.example.org/c.png" width="400">',
        '<img src="https://img.example.org/d.png" height="300">',
        '<img src="https://img.example.org/e.png" width="4000" height="3000" alt="A harbour">',
    ],
)
def test_the_load_images_bar_shows_whatever_the_images_attributes(qtbot, view, img):
    """With width and height Qt asks for the image only when painting, after the
    bar was decided: the bar never showed and the image could not be loaded."""
    view.show_entry(_entry(f"<p>text</p><p>{img}</p>"), "feed")
    assert view.image_bar.isVisibleTo(view)  # decided at once, not at paint time
    view.grab()
    qtbot.wait(50)
    assert view.image_bar.isVisibleTo(view) and view.browser.blocked_images == 1
    # a blocked image takes a small sign's room, or its alt text's
    assert _no_sideways_scroll(view)
    assert view.browser.document().size().height() < 200
    if "alt=" in img:
        assert "[A harbour]" in view.browser.toPlainText() and _images(view) == []
    else:
        ((_name, w, h),) = _images(view)
        assert w <= PLACEHOLDER_PX and h <= PLACEHOLDER_PX


def test_blocked_images_make_no_request_and_load_when_asked(qtbot, view, feed_server):
    feed_server.route("/a.png", Reply(body=png(300, 200), headers={"Content-Type": "image/png"}))
    content = f'<p><img src="{feed_server.url("/a.png")}" width="300" height="200" alt="A"></p>'
    view.show_entry(_entry(content), "feed", feed_url=feed_server.url("/feed.xml"))
    view.grab()
    qtbot.wait(200)
    assert feed_server.requests == [] and view.image_bar.isVisibleTo(view)
    view.image_button.click()
    view.grab()
    qtbot.waitUntil(lambda: bool(view.browser._images), timeout=5000)
    qtbot.waitUntil(lambda: not view._rerender_pending, timeout=2000)
    assert not view.image_bar.isVisibleTo(view)
    assert _images(view) == [(feed_server.url("/a.png"), 300, 200)]  # small stays small
    assert "[A]" not in view.browser.toPlainText()


@pytest.mark.parametrize("attrs", ['width="2400" height="1600"', ""])
def test_loaded_big_images_fit_the_column_and_follow_the_pane(qtbot, view, feed_server, attrs):
    """A 2400 px image was laid out 2400 px wide (with attributes) or at a fixed
    720 px (without): either way wider than the pane, scrolled sideways."""
    feed_server.route(
        "/big.png", Reply(body=png(2400, 1600), headers={"Content-Type": "image/png"})
    )
    url = feed_server.url("/big.png")
    content = f"<p>Before.</p><p><img src='{url}' {attrs}></p><p>After.</p>"
    view.show_entry(_entry(content), "feed", load_images=True, feed_url=feed_server.url("/f"))
    view.grab()
    qtbot.waitUntil(lambda: url in view.browser._images, timeout=5000)
    qtbot.waitUntil(lambda: not view._rerender_pending, timeout=2000)
    view.grab()

    def fitted() -> float:
        ((_name, w, h),) = _images(view)
        assert h == pytest.approx(w * 2 / 3, abs=1)  # the aspect is kept
        assert _no_sideways_scroll(view)
        return w

    # the column of a ~700 px pane: the viewport less the side margins
    assert fitted() == pytest.approx(view._column_width(), abs=1)
    assert fitted() < view.browser.viewport().width() - 40
    view.resize(450, 500)
    qtbot.wait(50)
    assert fitted() == pytest.approx(view._column_width(), abs=1)
    assert fitted() < 400
    view.resize(1400, 500)
    qtbot.wait(50)
    assert fitted() == pytest.approx(READ_WIDTH_PX, abs=2)  # the readable column, no wider
    view.set_zoom(1.5)
    assert fitted() == pytest.approx(READ_WIDTH_PX * 1.5, abs=2)  # the column widened


def test_an_image_that_fails_gives_its_room_back(qtbot, view, feed_server):
    url = feed_server.url("/missing.png")  # 404
    content = f'<p>x <img src="{url}" width="800" height="600" alt="Gone"> y</p>'
    view.show_entry(_entry(content), "feed", load_images=True, feed_url=feed_server.url("/f"))
    view.grab()
    qtbot.waitUntil(lambda: "[Gone]" in view.browser.toPlainText(), timeout=5000)
    assert view.browser.document().size().height() < 200 and _no_sideways_scroll(view)
    assert not view.image_bar.isVisibleTo(view)  # loading would not help


def test_an_image_name_is_never_read_as_a_local_file(qtbot, view, tmp_path: Path):
    """Given no image by loadResource (empty bytes), Qt opened the name as a file:
    a path (or a relative "https:/..." one) drew a picture from the disk."""
    local = tmp_path / "local.png"
    local.write_bytes(png(60, 60, "red"))
    for allowed in (False, True):
        view.browser.allow_remote_images = allowed
        view.browser.setHtml(f'<p><img src="{local}"><img src="file://{local}"></p>')
        shot = view.browser.viewport().grab().toImage()
        reds = sum(
            shot.pixelColor(x, y) == QColor("red")
            for x in range(0, min(shot.width(), 200), 2)
            for y in range(0, min(shot.height(), 100), 2)
        )
        assert reds == 0
    assert str(local) in " ".join(view.browser.requested)  # asked for, and refused


def test_code_blocks_wrap_inside_the_column(qtbot, view):
    long_line = "def f(" + ", ".join(f"argument_{i}" for i in range(30)) + "):"
    view.show_entry(_entry(f"<pre><code>{long_line}\n    return 1</code></pre>"), "feed")
    view.grab()
    assert _no_sideways_scroll(view)
    assert view.browser.toPlainText().count("argument_29") == 1  # nothing lost
    assert "\n    return 1" in view.browser.toPlainText()  # indentation kept


def test_declared_sizes_survive_a_resize_to_small_and_back(qtbot, view, feed_server):
    """Fitting twice starts again from what the article declared, not from the last fit."""
    feed_server.route("/p.png", Reply(body=png(500, 250), headers={"Content-Type": "image/png"}))
    url = feed_server.url("/p.png")
    view.show_entry(_entry(f"<p><img src='{url}' width='500' height='250'></p>"), "feed",
                    load_images=True, feed_url=feed_server.url("/f"))  # fmt: skip
    view.grab()
    qtbot.waitUntil(lambda: url in view.browser._images, timeout=5000)
    qtbot.waitUntil(lambda: not view._rerender_pending, timeout=2000)
    assert _images(view) == [(url, 500, 250)]
    view.resize(300, 500)
    qtbot.wait(50)
    ((_n, w, h),) = _images(view)
    assert w < 300 and h == pytest.approx(w / 2, abs=1)
    view.resize(900, 500)
    qtbot.wait(50)
    assert _images(view) == [(url, 500, 250)]
