"""Which address a subscription keeps, and what it says when a page's feed link
is dead (real SQLite file, real HTTP on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.errors import ParseError
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}
AS_HTML = {"Content-Type": "text/html; charset=utf-8"}
FEED = Reply(body=rss(item("a", "A")), headers=AS_RSS)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def _to(server: FeedServer, status: int, path: str) -> Reply:
    return Reply(status=status, headers={"Location": server.url(path)})


def test_a_temporary_redirect_keeps_the_address_subscribed_to(app, feed_server):
    """`add …/redir302` stored the target of a 302 (often a signed, expiring
    address), while updates move a feed only for a 301/308."""
    store, up = app
    feed_server.routes({"/feed": _to(feed_server, 302, "/cdn/feed?token=1"),
                        "/cdn/feed": FEED})  # fmt: skip
    fid = up.subscribe(feed_server.url("/feed"))
    assert store.feed(fid).url == feed_server.url("/feed")
    assert store.entry_count() == 1


def test_permanent_redirects_are_followed_up_to_a_temporary_one(app, feed_server):
    store, up = app
    feed_server.routes(
        {
            "/old": _to(feed_server, 301, "/new"),
            "/new": _to(feed_server, 307, "/today"),
            "/today": FEED,
            "/moved": _to(feed_server, 308, "/final"),
            "/final": FEED,
        }
    )
    assert store.feed(up.subscribe(feed_server.url("/old"))).url == feed_server.url("/new")
    assert store.feed(up.subscribe(feed_server.url("/moved"))).url == feed_server.url("/final")


def _page(href: str) -> Reply:
    link = f'<link rel="alternate" type="application/rss+xml" href="{href}">'
    return Reply(body=f"<html><head>{link}</head><body>Blog</body></html>".encode(),
                 headers=AS_HTML)  # fmt: skip


def test_a_dead_feed_link_is_named_not_called_missing(app, feed_server):
    """The page links a feed that answers 404: "the page does not link to an RSS,
    Atom or JSON feed" was untrue, and the usual feed paths were not tried."""
    _store, up = app
    feed_server.routes({"/site/": _page("/gone.xml"), "/gone.xml": Reply(status=404)})
    with pytest.raises(ParseError) as e:
        up.subscribe(feed_server.url("/site/"))
    text = str(e.value)
    assert "does not link" not in text
    assert f"{feed_server.url('/gone.xml')} is linked, but" in text and "404" in text


def test_when_the_linked_feed_is_dead_the_usual_paths_are_tried(app, feed_server):
    store, up = app
    feed_server.routes({"/site/": _page("/gone.xml"), "/gone.xml": Reply(status=404), "/rss": FEED})
    fid = up.subscribe(feed_server.url("/site/"))
    assert store.feed(fid).url == feed_server.url("/rss")


def test_a_feed_scheme_address_is_subscribed_as_the_web_address_it_names(app, feed_server):
    store, up = app
    feed_server.route("/rss", FEED)
    fid = up.subscribe(feed_server.url("/rss").replace("http://", "feed://"))
    assert store.feed(fid).url == feed_server.url("/rss")
