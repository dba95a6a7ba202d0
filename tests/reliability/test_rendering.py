"""The reading pane and article list under hostile content (§7 rows 35–37, 39–40)."""

from __future__ import annotations

from pathlib import Path

import pytest

from smartreader.core.models import Enclosure, ParsedEntry
from smartreader.storage.store import Entry, FetchRecord, Store
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import assert_ok, run_bounded

pytestmark = [pytest.mark.qt_log_level_fail("CRITICAL")]

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d4944415478da63f8cfc0f01f0005000201a5f2c1d70000000049454e44ae426082"
)


def stored_entry(tmp_path: Path, content: str, *, title: str = "t", link: str | None = None,
                 enclosures: tuple[Enclosure, ...] = ()) -> tuple[Store, Entry]:  # fmt: skip
    store = Store(tmp_path / "db.sqlite3")
    fid = store.add_feed("https://e.example/feed")
    e = ParsedEntry("u1", title, link, "", None, None, content, "", enclosures)
    (eid,) = store.record_fetch(FetchRecord(fid, 1_800_000_000.0, "ok", entries=[e])).new_entry_ids
    return store, store.entry(eid)


def test_remote_images_and_pixels_load_only_when_allowed(
    qtbot: object, feed_server: FeedServer, tmp_path: Path
) -> None:
    """Row 36: zero requests while images are off (the default); then allowed → loaded."""
    from smartreader.gui.article_view import ArticleView

    feed_server.route("/pixel.png", Reply(body=PNG, headers={"Content-Type": "image/png"}))
    pixel = feed_server.url("/pixel.png")
    store, entry = stored_entry(
        tmp_path, f'<p>x<img src="{pixel}" width="1" height="1"><img src="{pixel}?2"></p>'
    )
    view = ArticleView(open_url=lambda url: None)
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    view.show()
    view.show_entry(entry, "feed")
    view.grab()  # paint: images are asked for at layout/paint time
    qtbot.wait(300)  # type: ignore[attr-defined]
    assert feed_server.requests == []
    assert view.browser.blocked_images >= 1 and view.image_bar.isVisibleTo(view)
    # a feed on this machine may show images from this machine
    view.show_entry(entry, "feed", load_images=True, feed_url=feed_server.url("/feed.xml"))
    view.grab()
    qtbot.waitUntil(lambda: len(feed_server.requests) > 0, timeout=5000)  # type: ignore[attr-defined]
    assert all(not r.has_header("Cookie") and not r.has_header("Referer")
               for r in feed_server.requests)  # fmt: skip
    store.close()


def test_a_public_feed_never_loads_images_from_the_local_network(
    qtbot: object, feed_server: FeedServer, tmp_path: Path
) -> None:
    """Rows 12 × 36: with images allowed, a public feed's ``<img>`` pointing at
    loopback, private or shared (100.64/10) addresses makes no request: opening
    an article must not reach the user's router. Redirects are checked the same
    way (a public image host cannot be served here, so its reply is a stand-in)."""
    from PySide6.QtCore import QUrl

    from smartreader.gui.article_view import ArticleView

    feed_server.route("/pixel.png", Reply(body=PNG, headers={"Content-Type": "image/png"}))
    local = [feed_server.url("/pixel.png"), "http://localhost:1/a.png",
             "http://192.168.1.1/cgi-bin/reboot.png", "http://[::1]:1/b.png",
             "http://100.64.0.1/c.png", "http://169.254.169.254/latest/meta-data.png"]  # fmt: skip
    store, entry = stored_entry(tmp_path, "".join(f'<p><img src="{u}"></p>' for u in local))
    view = ArticleView(open_url=lambda url: None)
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    view.show()
    view.show_entry(entry, "feed", load_images=True, feed_url="https://news.example/feed.xml")
    view.grab()
    qtbot.wait(300)  # type: ignore[attr-defined]
    assert feed_server.requests == []
    assert view.browser._pending == set()
    assert len(view.browser.requested) >= len(local)  # asked for, and refused

    class Reply_:  # a reply from a public image host (no internet here)
        def __init__(self, url: str) -> None:
            self._url, self.allowed, self.aborted = QUrl(url), 0, 0
            self.redirectAllowed = type("S", (), {"emit": lambda s: self._ok()})()

        def _ok(self) -> None:
            self.allowed += 1

        def url(self) -> QUrl:
            return self._url

        def abort(self) -> None:
            self.aborted += 1

    for src, dst, ok in [
        ("https://img.example/a.png", "https://cdn.example/a.png", True),
        ("https://img.example/a.png", "http://cdn.example/a.png", False),  # downgrade
        ("https://img.example/a.png", "https://192.168.1.1/a.png", False),
        ("https://img.example/a.png", "https://localhost/a.png", False),
        ("https://img.example/a.png", "file:///etc/passwd", False),
    ]:
        r = Reply_(src)
        view.browser._redirected(r, QUrl(dst))
        assert (r.allowed, r.aborted) == ((1, 0) if ok else (0, 1)), dst
    store.close()


def test_only_http_links_ever_open(qtbot: object, tmp_path: Path) -> None:
    """Row 35: clicked javascript:/file:/data:/smb:/relative links go nowhere."""
    from PySide6.QtCore import QUrl

    from smartreader.gui.article_view import ArticleView

    opened: list[str] = []
    view = ArticleView(open_url=lambda url: opened.append(url.toString()))
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    for bad in ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "smb://h/s",
                "vbscript:x", "/relative", "|cmd"]:  # fmt: skip
        view.browser.anchorClicked.emit(QUrl(bad))
    assert opened == []
    view.browser.anchorClicked.emit(QUrl("https://ok.example/a"))
    assert opened == ["https://ok.example/a"]


def test_tables_nested_deep_in_a_stored_article_are_laid_out_as_blocks(
    qtbot: object, tmp_path: Path
) -> None:
    """Rows 38/39: Qt's layout doubles its work per level of nested tables (20
    levels, 447 bytes, froze the window 15 s). An article stored before the
    sanitiser limited them is limited again when shown."""
    from smartreader.gui.article_view import ArticleView
    from smartreader.net.sanitize import MAX_TABLE_DEPTH

    html = "<table><tr><td>cell" * 16 + "deep words" + "</td></tr></table>" * 16
    store, entry = stored_entry(tmp_path, html)
    assert entry.content.count("<table") == 16  # stored as an older version kept it
    view = ArticleView(open_url=lambda url: None)
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    view.show_entry(entry, "feed")
    assert view._entry_html().count("<table") == MAX_TABLE_DEPTH
    assert view.html().count("<table") <= MAX_TABLE_DEPTH + 1  # + the view's text column
    text = view.browser.toPlainText()
    assert "deep words" in text and text.count("cell") == 16
    store.close()


def test_html_looking_titles_stay_plain_text(qtbot: object, tmp_path: Path) -> None:
    """Row 40: shown literally in the list and the header, never as rich text."""
    from PySide6.QtCore import Qt

    from smartreader.gui.article_view import ArticleView
    from smartreader.gui.models import ArticleListModel

    title = '<b>x</b><img src="https://t.example/p.gif">'
    store, entry = stored_entry(tmp_path, "<p>body</p>", title=title)
    model = ArticleListModel(store)
    model.set_query()
    assert model.data(model.index(0, 0), Qt.ItemDataRole.DisplayRole) == title
    view = ArticleView(open_url=lambda url: None)
    qtbot.addWidget(view)  # type: ignore[attr-defined]
    view.show_entry(entry, "<i>feed</i>")
    text = view.browser.toPlainText()
    assert title in text and "<i>feed</i>" in text
    assert view.browser.requested == []
    store.close()


@pytest.mark.slow
def test_local_files_and_devices_are_never_read_by_the_renderer() -> None:
    """Rows 37 and 39: ``/dev/zero``, ``file://`` and relative image sources in raw
    (unsanitised) HTML; and a 1 MB content with a 100 KB title. Rendered in a
    subprocess under an address-space limit: a read of /dev/zero would crash it."""
    rep = assert_ok(
        run_bounded(
            """
            import os
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            from types import SimpleNamespace as E
            from PySide6.QtWidgets import QApplication
            from smartreader.gui.article_view import ArticleView
            app = QApplication([])
            view = ArticleView(open_url=lambda u: None)
            view.resize(800, 600)
            view.show()
            hostile = ('<img src="/dev/zero"><img src="file:///dev/zero">'
                       '<img src="file:///etc/hostname"><img src="../../etc/passwd">'
                       '<link rel="stylesheet" href="file:///etc/passwd">'
                       '<img src="qrc:/x.png"><img src="data:image/png;base64,AAAA">')
            big = "<p>" + "word " * 200_000 + "</p>"
            for content, title in ((hostile, "t"), (big, "T" * 100_000)):
                e = E(title=title, link=None, author="", published=None, sort_time=0.0,
                      content=content, summary="", enclosures=())
                view.show_entry(e, "feed", load_images=True)
                view.browser.document().size()
                view.grab()
                app.processEvents()
            report(requested=view.browser.requested, loaded=list(view.browser._images))
            """,
            mem_mb=1536,
            timeout=120,
        )
    )
    assert rep["loaded"] == []
    assert any("dev/zero" in u for u in rep["requested"])  # asked, and refused


@pytest.mark.slow
def test_hostile_names_are_text_in_every_widget(tmp_path: Path) -> None:
    """Rows 37 and 40 beyond the reading pane: a feed, folder, entry, author and
    error all reading ``<img src="/dev/zero">`` (an RSS title is plain text, so that
    is a legitimate title). Qt renders a label, tooltip or message box as HTML when
    its text looks like HTML, and HTML loads the image: the app read /dev/zero
    until it ran out of memory (list header, tooltips). The whole window, its
    Activity and Alerts tabs, the overview and every tooltip are shown in a
    subprocess under an address-space limit; every label showing the text must
    show it as text."""
    rep = assert_ok(
        run_bounded(
            """
            import os, sys, time
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            from pathlib import Path
            from PySide6.QtCore import QPoint, Qt
            from PySide6.QtWidgets import QApplication, QLabel, QToolTip
            from smartreader.core.models import ParsedEntry
            from smartreader.gui.mainwindow import MainWindow
            from smartreader.gui.prefs import Prefs
            from smartreader.storage.store import FetchRecord, Store
            from smartreader.updater import Updater

            H = '<img src="/dev/zero">'
            data = Path(sys.argv[1])
            app = QApplication([])
            store = Store(data / "db.sqlite3")
            fid = store.add_feed("https://e.example/feed.xml", folder=H)
            now = time.time()
            e = ParsedEntry("g1", H, "https://e.example/1", H, now - 60, None, "<p>hi</p>", "")
            store.record_fetch(FetchRecord(fid, now - 30, "ok", entries=[e], feed_title=H,
                                           missed_estimate=3.0, missed_from=now - 900,
                                           missed_to=now - 600))
            store.record_fetch(FetchRecord(fid, now, "error", error=H))
            up = Updater(store)
            w = MainWindow(store, up, prefs=Prefs.in_dir(data), tray=False,
                           open_url=lambda u: None)
            w.resize(1100, 700)
            w.show()
            app.processEvents()

            def settle():
                for _ in range(5):
                    app.processEvents()
                w.grab()

            def tooltips(model, parent=None):
                from PySide6.QtCore import QModelIndex
                parent = parent or QModelIndex()
                n = 0
                for r in range(model.rowCount(parent)):
                    for c in range(max(1, model.columnCount(parent))):
                        i = model.index(r, c, parent)
                        t = model.data(i, Qt.ItemDataRole.ToolTipRole)
                        if t:
                            QToolTip.showText(QPoint(50, 50), t, w)
                            app.processEvents()
                            n += 1
                    n += tooltips(model, model.index(r, 0, parent))
                return n

            seen, bad = set(), []
            def check_labels():
                for lab in w.findChildren(QLabel):
                    if H in lab.text():
                        seen.add(lab.objectName() or type(lab.parent()).__name__)
                        if lab.textFormat() != Qt.TextFormat.PlainText:
                            bad.append(type(lab.parent()).__name__)

            w.select_feed(fid)
            settle(); check_labels()
            for tab in (w.activity, w.alerts_view):
                w.tabs.setCurrentWidget(tab)
                settle(); check_labels()
            n_tips = tooltips(w.tree_model) + tooltips(w.list_model)
            w.tabs.setCurrentWidget(w.activity)
            w.activity.set_feed(None)
            settle(); check_labels()
            report(header=w.list_title.text(), seen=sorted(seen), bad=bad, tips=n_tips)
            os._exit(0)
            """,
            mem_mb=1536,
            timeout=120,
            args=(str(tmp_path),),
        )
    )
    assert rep["bad"] == []
    assert rep["tips"] >= 3  # folder, feed, entry title at least were shown
    assert len(rep["seen"]) >= 2  # the list header and the activity title show it
