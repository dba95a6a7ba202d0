"""Article ▸ Load full article (D): the article's page, loaded from its website in
a thread, extracted and sanitised, shown in place of the feed's summary and kept;
a feed set to full articles loads them by itself. Real window, real store, real
HTTP on 127.0.0.1."""

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt

from smartreader.core.models import ParsedEntry
from smartreader.gui.dialogs import FeedPropertiesDialog
from smartreader.storage.store import FetchRecord
from tests.httpserver import FeedServer, Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

HTML = {"Content-Type": "text/html; charset=utf-8"}
PARAGRAPHS = [
    "The harbour authority met on Tuesday to discuss the new ferry timetable, "
    "which moves the first crossing forty minutes earlier on weekdays.",
    "Residents of the island asked for a later last crossing on Fridays; the "
    "authority promised to count passengers through the winter and decide in spring.",
    "The timetable starts on the first Monday of next month, when the second "
    "ferry returns from its refit at the yard across the bay.",
]


def _page(n: int) -> bytes:
    body = "".join(f"<p>{p} (article {n})</p>" for p in PARAGRAPHS)
    return (
        "<html><head><title>Ferry news</title></head><body>"
        "<nav><a href='/'>Home</a> <a href='/sport'>Sport</a> MENU-TEXT</nav>"
        f"<article><h1>Ferry timetable {n}</h1>{body}"
        "<p><img src='/pics/ferry.png' alt='ferry'> <script>alert(1)</script></p></article>"
        "<footer>FOOTER-TEXT copyright</footer></body></html>"
    ).encode()


def _feed(env, server: FeedServer, n: int = 3, *, full_text: bool = False) -> tuple[int, list[int]]:
    """A feed on ``server`` whose ``n`` articles carry one sentence each and link
    to ``/a/<k>`` on the same server (a local feed may load local pages)."""
    server.route("/feed.xml", Reply(status=304))  # the scheduler's fetches change nothing
    fid = env.store.add_feed(server.url("/feed.xml"), title="Harbour")
    if full_text:
        env.store.update_feed(fid, full_text=True)
    now = time.time()
    entries = [
        ParsedEntry(f"a{k}", f"Ferry timetable {k}", server.url(f"/a/{k}"), "", now - k * 60, None,
                    f"<p>Summary {k} […]</p>", "")
        for k in range(n)
    ]  # fmt: skip
    env.store.record_fetch(FetchRecord(fid, now, "ok", entries=entries))
    for k in range(n):
        server.route(f"/a/{k}", Reply(body=_page(k), headers=HTML))
    return fid, env.store.entry_ids(feed_ids=[fid])


def _open(env, win, fid: int, eid: int) -> None:
    win.select_feed(fid)
    win.open_entry(eid)
    assert win.article_view.entry.id == eid


def test_d_loads_the_page_shows_it_keeps_it_and_d_again_goes_back(env, qtbot, feed_server):
    fid, ids = _feed(env, feed_server)
    win = env.window()
    _open(env, win, fid, ids[0])
    view = win.article_view
    assert "Summary 0 […]" in view.html() and "Load the full article" in view.html()
    assert not win.act_full.isChecked()

    qtbot.keyClick(win, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    shown = view.browser.toPlainText()
    assert "ferry timetable, which moves" in shown.replace("\n", " ")
    assert "(article 0)" in shown and "Summary 0 […]" not in shown
    assert "MENU-TEXT" not in shown and "FOOTER-TEXT" not in shown  # only the article
    assert "alert(1)" not in view.html()
    assert shown.count("Ferry timetable 0") == 1  # the page's heading is the title shown
    assert "Full article from 127.0.0.1" in shown and "Show the feed's text" in shown
    assert win.act_full.isChecked()
    assert len(feed_server.requests_for("/a/0")) == 1
    kept = env.store.full_article(ids[0])
    assert kept is not None and "(article 0)" in kept.html
    assert feed_server.url("/pics/ferry.png") in kept.html  # resolved against the page
    assert env.store.entry(ids[0]).content == "<p>Summary 0 […]</p>"  # the feed's text stays

    # another article, then back: the page kept is shown, no second request
    win.open_entry(ids[1])
    assert view.full is None and "Summary 1 […]" in view.browser.toPlainText()
    assert not win.act_full.isChecked()
    win.open_entry(ids[0])
    assert view.full is not None and "(article 0)" in view.browser.toPlainText()
    assert len(feed_server.requests_for("/a/0")) == 1

    qtbot.keyClick(win, Qt.Key.Key_D)  # back to the feed's text, and forgotten
    assert view.full is None and "Summary 0 […]" in view.browser.toPlainText()
    assert env.store.full_article(ids[0]) is None
    assert not win.act_full.isChecked()


def test_a_page_that_cannot_be_loaded_says_why_and_keeps_the_summary(env, qtbot, feed_server):
    fid, ids = _feed(env, feed_server)
    feed_server.route("/a/0", [Reply(status=404, body=b"gone"), Reply(body=_page(0), headers=HTML)])
    win = env.window()
    _open(env, win, fid, ids[0])
    view = win.article_view
    win.act_full.trigger()
    qtbot.waitUntil(lambda: view.full_note is not None and view.full_note[0] == "error",
                    timeout=10_000)  # fmt: skip
    shown = view.browser.toPlainText()
    assert "404" in shown and "Try again" in shown and "Summary 0 […]" in shown
    assert env.store.full_article(ids[0]) is None
    assert not win.act_full.isChecked()
    win._welcome_action("full")  # the note's "Try again" link
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    assert "(article 0)" in view.browser.toPlainText()


def test_a_page_with_no_article_text_is_an_error_not_an_empty_article(env, qtbot, feed_server):
    fid, ids = _feed(env, feed_server)
    feed_server.route(
        "/a/0", Reply(body=b"<html><body><nav>Home</nav></body></html>", headers=HTML)
    )
    feed_server.route(
        "/a/1", Reply(body=b"%PDF-1.4 ...", headers={"Content-Type": "application/pdf"})
    )
    win = env.window()
    view = win.article_view
    for eid in ids[:2]:
        _open(env, win, fid, eid)
        win.act_full.trigger()
        qtbot.waitUntil(lambda: view.full_note is not None and view.full_note[0] == "error",
                        timeout=10_000)  # fmt: skip
        assert view.full is None and env.store.full_article(eid) is None
    assert "application/pdf" in view.browser.toPlainText()


def test_a_feed_set_to_full_articles_loads_the_page_of_the_article_that_stays_open(
    env, qtbot, feed_server
):
    fid, ids = _feed(env, feed_server, 4, full_text=True)
    win = env.window()
    view = win.article_view
    win.select_feed(fid)
    for eid in ids[:3]:  # passed over quickly: no page asked for
        win.open_entry(eid)
        assert "Loading the full article from 127.0.0.1" in view.browser.toPlainText()
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    assert view.entry.id == ids[2] and "(article 2)" in view.browser.toPlainText()
    qtbot.wait(600)  # past the delay of the ones passed over
    assert [len(feed_server.requests_for(f"/a/{k}")) for k in range(4)] == [0, 0, 1, 0]
    # the user's "feed's text" holds for the article open; the next opening loads it again
    win._welcome_action("feedtext")
    assert view.full is None and "Summary 2 […]" in view.browser.toPlainText()
    win.open_entry(ids[3])
    qtbot.waitUntil(lambda: view.full is not None and view.entry.id == ids[3], timeout=10_000)


def test_a_page_that_arrives_after_the_reader_moved_on_is_kept_not_shown(env, qtbot, feed_server):
    fid, ids = _feed(env, feed_server)
    feed_server.route("/a/0", Reply(body=_page(0), headers=HTML, delay=0.8))
    win = env.window()
    view = win.article_view
    _open(env, win, fid, ids[0])
    win.act_full.trigger()
    win.open_entry(ids[1])
    qtbot.waitUntil(lambda: win.full_loads_pending() == 0, timeout=10_000)
    assert view.entry.id == ids[1] and view.full is None
    assert "Summary 1 […]" in view.browser.toPlainText()
    assert env.store.full_article(ids[0]) is not None
    win.open_entry(ids[0])
    assert view.full is not None


def test_feed_properties_set_full_articles(env, qtbot, feed_server):
    fid, _ids = _feed(env, feed_server)
    dlg = FeedPropertiesDialog(env.store, fid)
    qtbot.addWidget(dlg)
    assert not dlg.full_text.isChecked()
    dlg.full_text.setChecked(True)
    dlg.save()  # OK
    assert env.store.feed(fid).full_text is True
    dlg = FeedPropertiesDialog(env.store, fid)
    qtbot.addWidget(dlg)
    assert dlg.full_text.isChecked()


def _first_page_shown(env, qtbot, feed_server):
    """The window with the first article open and its page loaded and shown."""
    fid, ids = _feed(env, feed_server)
    win = env.window()
    view = win.article_view
    _open(env, win, fid, ids[0])
    win.act_full.trigger()
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    return win, view, ids


def test_load_again_that_fails_keeps_the_page_shown_and_says_why(env, qtbot, feed_server):
    win, view, ids = _first_page_shown(env, qtbot, feed_server)
    feed_server.route("/a/0", Reply(status=500, body=b"down"))
    win._welcome_action("fullagain")  # the note's "Load again"
    assert "Loading the full article" in view.browser.toPlainText()
    qtbot.waitUntil(lambda: view.full_note is not None and view.full_note[0] == "error",
                    timeout=10_000)  # fmt: skip
    shown = view.browser.toPlainText()
    assert "HTTP 500" in shown and "(article 0)" in shown  # the page loaded before stays
    assert "action:fullagain" in view.html() and win.act_full.isChecked()
    kept = env.store.full_article(ids[0])
    assert kept is not None and "(article 0)" in kept.html
    assert len(feed_server.requests_for("/a/0")) == 2


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("<p>The council met today […]</p>", True),
        ("<p>It was a long day...</p>", True),
        ('<p>He said so.</p><p><a href="https://x.example/a">Continue reading →</a></p>', True),
        ("<p>Die Sitzung endete spät. Weiterlesen</p>", True),
        (
            "<p>Text. <a href='https://x.example/a'>Read the full story</a> at Example News</p>",
            True,
        ),
        ("<p>Nothing changes for most readers today.</p>", False),
        ("<p>More than ever, the ferry matters.</p>", False),
        ("<p>See the changelog for 1.2</p>", False),
        ("<p>" + "A sentence of ordinary length. " * 80 + "</p>", False),  # not its "…"
    ],
)
def test_only_a_text_cut_short_offers_its_page(qtbot, text, cut):
    from smartreader.gui.article_view import ArticleView
    from smartreader.storage.store import Entry

    view = ArticleView()
    qtbot.addWidget(view)
    entry = Entry(1, 1, "u", "T", "https://x.example/a", "", 1.7e9, None, 1.7e9, 1.7e9,
                  text, "", (), False, False)  # fmt: skip
    view.show_entry(entry, "F")
    assert ("Load the full article" in view.browser.toPlainText()) is cut
    assert ("action:full" in view.html()) is cut
    no_link = Entry(1, 1, "u", "T", None, "", 1.7e9, None, 1.7e9, 1.7e9, text, "", (),
                    False, False)  # fmt: skip
    view.show_entry(no_link, "F")
    assert "action:full" not in view.html()  # nothing to load it from


def test_the_toolbar_has_the_full_article_button(env, qtbot, feed_server):
    win = env.window()
    assert win.act_full in win.toolbar.actions()
    assert win.act_full.iconText() == "Full article" and not win.act_full.icon().isNull()
    win.act_full.trigger()  # nothing open: said, nothing else
    assert win.statusBar().currentMessage() == "Open an article first"
    assert not win.act_full.isChecked()


def test_the_feeds_text_chosen_while_a_page_loads_again_stays(env, qtbot, feed_server):
    win, view, ids = _first_page_shown(env, qtbot, feed_server)
    feed_server.route("/a/0", Reply(body=_page(0), headers=HTML, delay=0.8))
    win._welcome_action("fullagain")
    win._welcome_action("feedtext")  # changed my mind before it came
    qtbot.waitUntil(lambda: win.full_loads_pending() == 0, timeout=10_000)
    qtbot.wait(50)
    assert view.full is None and "Summary 0 […]" in view.browser.toPlainText()
    assert env.store.full_article(ids[0]) is None
    assert len(feed_server.requests_for("/a/0")) == 2
    # and asked for again while one is on its way, it is shown when it comes
    win._welcome_action("full")
    win._welcome_action("feedtext")
    win._welcome_action("full")
    qtbot.waitUntil(lambda: view.full is not None, timeout=10_000)
    assert env.store.full_article(ids[0]) is not None
