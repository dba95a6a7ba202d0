"""Add feed on a site that links several feeds: the dialog lists them, the user
ticks which to subscribe to (real widgets, real Store and Updater, local HTTP)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from smartreader.gui.dialogs import AddFeedDialog
from tests.gui.test_mainwindow import rss
from tests.httpserver import FeedServer, Reply

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

AS_RSS = {"Content-Type": "application/rss+xml"}
AS_HTML = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture
def blog(feed_server: FeedServer) -> str:
    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" title="{t}" href="{h}">'
        for h, t in (("/comments.xml", "Comments"), ("/posts.xml", "Posts"), ("/news.xml", "News"))
    )
    feed_server.routes(
        {
            "/": Reply(
                body=f"<!doctype html><html><head>{links}</head></html>".encode(), headers=AS_HTML
            ),
            "/posts.xml": Reply(body=rss(3, prefix="Post"), headers=AS_RSS),
            "/comments.xml": Reply(body=rss(2, prefix="Comment"), headers=AS_RSS),
            "/news.xml": Reply(body=rss(1, prefix="News"), headers=AS_RSS),
        }
    )
    return feed_server.url("/")


def ticked(dlg: AddFeedDialog) -> list[str]:
    return [o.title for o in dlg.chosen()]


def rows(dlg: AddFeedDialog) -> list[str]:
    return [dlg.choices.topLevelItem(i).text(0) for i in range(dlg.choices.topLevelItemCount())]


def look(qtbot, win, dlg: AddFeedDialog, url: str) -> None:
    """Type the site's address and press Subscribe; wait for its feeds."""
    dlg.url.setText(url)
    with qtbot.wait_signal(win.sched.feedsFound, timeout=10_000):
        dlg.ok.click()
    qtbot.waitUntil(dlg.choices.isVisible, timeout=3000)


def test_the_user_ticks_which_of_the_sites_feeds_to_subscribe_to(env, qtbot, feed_server, blog):
    win = env.window()
    dlg = win.add_feed()
    dlg.folder.setCurrentText("Blogs")
    look(qtbot, win, dlg, blog)
    assert rows(dlg) == ["Posts (RSS)", "News (RSS)", "Comments (RSS)"]  # comments last
    assert ticked(dlg) == ["Posts"]  # the first is ticked for a one-click subscribe
    assert "links 3 feeds" in dlg.choices_label.text()
    assert env.store.feeds() == [] and not feed_server.requests_for("/posts.xml")
    # Space ticks the current row, as in any checklist.
    dlg.choices.setCurrentItem(dlg.choices.topLevelItem(2))
    qtbot.keyClick(dlg.choices, Qt.Key.Key_Space)
    assert ticked(dlg) == ["Posts", "Comments"]
    dlg.ok.click()
    assert dlg.progress.isVisible() and "Subscribing to 2 feeds" in dlg.status.text()
    qtbot.waitUntil(lambda: win._add_dialog is None, timeout=10_000)
    feeds = {f.url: f for f in env.store.feeds()}
    assert set(feeds) == {feed_server.url("/posts.xml"), feed_server.url("/comments.xml")}
    assert {f.folder for f in feeds.values()} == {"Blogs"}
    posts = feeds[feed_server.url("/posts.xml")]
    assert win.current_key() == f"feed:{posts.id}"  # the first ticked one is shown
    assert win.statusBar().currentMessage().startswith("Subscribed to 2 feeds: ")
    assert len(feed_server.requests_for("/")) == 1  # the page was read once


def test_a_chosen_feed_that_fails_is_named_and_the_others_are_kept(env, qtbot, feed_server, blog):
    feed_server.route("/news.xml", Reply(status=404))
    win = env.window()
    dlg = win.add_feed()
    look(qtbot, win, dlg, blog)
    dlg.choices.topLevelItem(1).setCheckState(0, Qt.CheckState.Checked)  # News
    with qtbot.wait_signal(win.sched.subscribeFailed, timeout=10_000):
        dlg.ok.click()
    qtbot.waitUntil(lambda: dlg.error.isVisible(), timeout=10_000)
    assert dlg.isVisible()  # stays open: the user may retry or give up
    assert dlg.error.text().startswith("News: ") and "404" in dlg.error.text()
    # the dialog grew to the message: it is under the list, not over it
    assert dlg.error.geometry().top() >= dlg.choices.geometry().bottom()
    assert dlg.error.geometry().bottom() < dlg.buttons.geometry().top()
    (kept,) = env.store.feeds()
    assert kept.url == feed_server.url("/posts.xml")
    assert rows(dlg)[0] == "Posts (RSS) — subscribed"
    assert ticked(dlg) == ["News"]  # what failed stays ticked for another try
    assert win.current_key() == f"feed:{kept.id}"
    # The server is back: Subscribe again takes just the one that failed.
    feed_server.route("/news.xml", Reply(body=rss(1, prefix="News"), headers=AS_RSS))
    dlg.ok.click()
    qtbot.waitUntil(lambda: win._add_dialog is None, timeout=10_000)
    assert len(env.store.feeds()) == 2
    assert len(feed_server.requests_for("/posts.xml")) == 1


def test_another_address_drops_the_list_and_looks_again(env, qtbot, feed_server, blog):
    win = env.window()
    dlg = win.add_feed()
    look(qtbot, win, dlg, blog)
    dlg.url.setText(feed_server.url("/posts.xml"))
    assert not dlg.choices.isVisible() and dlg.chosen() == []
    with qtbot.wait_signal(win.sched.subscribed, timeout=10_000):
        dlg.ok.click()
    assert [f.url for f in env.store.feeds()] == [feed_server.url("/posts.xml")]


def test_cancel_while_the_chosen_feeds_are_fetched_keeps_none(env, qtbot, feed_server, blog):
    feed_server.route(
        "/comments.xml", Reply(body=rss(2, prefix="Comment"), headers=AS_RSS, delay=0.6)
    )
    win = env.window()
    before = win.current_key()
    dlg = win.add_feed()
    look(qtbot, win, dlg, blog)
    dlg.choices.topLevelItem(2).setCheckState(0, Qt.CheckState.Checked)
    dlg.ok.click()
    dlg.buttons.button(QDialogButtonBox.StandardButton.Cancel).click()
    qtbot.waitUntil(lambda: len(feed_server.requests_for("/comments.xml")) == 1, timeout=10_000)
    qtbot.waitUntil(lambda: "Cancelled" in win.statusBar().currentMessage(), timeout=10_000)
    qtbot.waitUntil(lambda: env.store.feeds() == [], timeout=10_000)
    assert win.current_key() == before


def test_a_site_whose_feeds_are_all_subscribed_says_so(env, qtbot, feed_server, blog):
    for path in ("/posts.xml", "/comments.xml", "/news.xml"):
        env.updater.subscribe(feed_server.url(path))
    win = env.window()
    dlg = win.add_feed()
    look(qtbot, win, dlg, blog)
    assert "you are subscribed to all of them" in dlg.choices_label.text()
    assert all(r.endswith("— subscribed") for r in rows(dlg))
    assert not dlg.ok.isEnabled()


def submit_typed(qtbot, typed: str) -> tuple[AddFeedDialog, list[str]]:
    """A dialog with ``typed`` in its address field after Subscribe, and the
    addresses it asked to subscribe to."""
    dlg = AddFeedDialog([])
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.url.setText(typed)
    asked: list[str] = []
    dlg.subscribeRequested.connect(lambda url, _folder, _login: asked.append(url))
    dlg.ok.click()
    return dlg, asked


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ("not a url at all", "not a web address"),
        ("javascript:alert(1)", "only http and https"),
        ("ftp://files.example/feed.xml", "only http and https"),
    ],
)
def test_what_is_not_a_web_address_is_refused_before_any_fetch(qtbot, typed, says):
    # it was sent on as "https://not a url at all" and fetched
    dlg, asked = submit_typed(qtbot, typed)
    assert asked == []
    assert dlg.error.isVisible() and says in dlg.error.text()
    assert dlg.url.isEnabled() and not dlg.progress.isVisible()
    assert dlg.url.text() == typed  # kept as typed, to be corrected


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("blog.example/feed.xml", "https://blog.example/feed.xml"),
        ("feed://blog.example/rss", "http://blog.example/rss"),
        ("ann:pw@blog.example/feed.xml", "https://blog.example/feed.xml"),
    ],
)
def test_a_web_address_is_sent_on_completed(qtbot, typed, sent):
    dlg, asked = submit_typed(qtbot, typed)
    assert asked == [sent]
    assert not dlg.error.isVisible()


def test_a_feed_whose_title_names_its_kind_is_listed_without_it_twice(qtbot):
    from smartreader.updater import FeedOption

    page = "https://blog.example/"
    options = [
        FeedOption("https://blog.example/atom.xml", "Posts (Atom)", "Atom", False,
                   "https://blog.example/atom.xml", True),
        FeedOption("https://blog.example/rss.xml", "Posts", "RSS", False,
                   "https://blog.example/rss.xml", True),
        FeedOption("https://blog.example/c.xml", "Comments (Atom)", "Atom", True,
                   "https://blog.example/c.xml", True),
    ]  # fmt: skip
    dlg = AddFeedDialog([])
    qtbot.addWidget(dlg)
    dlg.show_choices(page, options)
    texts = [dlg.choices.topLevelItem(i).text(0) for i in range(3)]
    assert texts == ["Posts (Atom)", "Posts (RSS)", "Comments (Atom) — subscribed"]
