"""A site that links several feeds: the Updater lists them instead of guessing.

Real SQLite file, real HTTP on 127.0.0.1. ``subscribe(..., choose=True)`` on a
page that links more than one feed raises ``SeveralFeeds`` with the page's feeds
(posts before comments, the ones already subscribed flagged) having fetched only
the page; each one is then subscribed to by its ``address``, which carries the
site's password only where the fetcher would send it anyway.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.errors import FetchError, UsageError
from smartreader.storage.store import Store
from smartreader.updater import SeveralFeeds, Updater
from tests.httpserver import FeedServer, Reply
from tests.keyrings import MemoryKeyring, installed
from tests.reliability.support import Clock, item, rss, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}
AS_ATOM = {"Content-Type": "application/atom+xml"}
AS_HTML = {"Content-Type": "text/html; charset=utf-8"}
ATOM = (
    b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Posts</title>'
    b"<id>urn:x</id><updated>2027-01-01T00:00:00Z</updated><entry><id>urn:e1</id>"
    b"<title>E1</title><updated>2027-01-01T00:00:00Z</updated></entry></feed>"
)


def page(*links: tuple[str, str, str]) -> bytes:
    tags = "".join(
        f'<link rel="alternate" type="{kind}" title="{title}" href="{href}">'
        for href, title, kind in links
    )
    return f"<!doctype html><html><head>{tags}</head><body>Blog</body></html>".encode()


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


@pytest.fixture
def blog(feed_server: FeedServer) -> str:
    """A site whose page links comments first, then posts as Atom and as RSS."""
    feed_server.routes(
        {
            "/": Reply(
                body=page(
                    ("/comments.xml", "Comments", "application/rss+xml"),
                    ("/atom.xml", "Posts", "application/atom+xml"),
                    ("/rss.xml", "Posts (RSS)", "application/rss+xml"),
                ),
                headers=AS_HTML,
            ),
            "/comments.xml": Reply(body=rss(item("c1", "C1")), headers=AS_RSS),
            "/atom.xml": Reply(body=ATOM, headers=AS_ATOM),
            "/rss.xml": Reply(body=rss(item("p1", "P1") + item("p2", "P2")), headers=AS_RSS),
        }
    )
    return feed_server.url("/")


def test_a_page_with_several_feeds_lists_them_having_fetched_only_the_page(
    feed_server: FeedServer, app: tuple[Store, Updater], blog: str
) -> None:
    store, up = app
    with pytest.raises(SeveralFeeds) as caught:
        up.subscribe(blog, choose=True)
    options = caught.value.options
    assert [(o.title, o.kind) for o in options] == [
        ("Posts", "Atom"),
        ("Posts (RSS)", "RSS"),
        ("Comments", "RSS"),  # comments last: rarely what was meant
    ]
    assert [o.url for o in options] == [
        feed_server.url(p) for p in ("/atom.xml", "/rss.xml", "/comments.xml")
    ]
    assert not any(o.subscribed for o in options)
    assert [r.route_path for r in feed_server.requests] == ["/"]
    assert store.feeds() == []
    # A caller that does not handle it still gets a clear usage error.
    assert isinstance(caught.value, UsageError)
    assert "links 3 feeds (Posts, Posts (RSS), Comments)" in str(caught.value)


def test_each_chosen_feed_subscribes_by_its_address_and_is_flagged_after(
    feed_server: FeedServer, app: tuple[Store, Updater], blog: str
) -> None:
    store, up = app
    with pytest.raises(SeveralFeeds) as caught:
        up.subscribe(blog, choose=True)
    posts, _rss, comments = caught.value.options
    a = up.subscribe(posts.address, folder="Blogs", public_only=posts.public_only)
    c = up.subscribe(comments.address, folder="Blogs", public_only=comments.public_only)
    assert store.feed(a).url == posts.url and store.feed(c).url == comments.url
    assert store.entry_count() == 2
    with pytest.raises(SeveralFeeds) as again:
        up.subscribe(blog, choose=True)
    assert [o.subscribed for o in again.value.options] == [True, False, True]


def test_without_choose_the_first_feed_is_taken_as_before(
    feed_server: FeedServer, app: tuple[Store, Updater], blog: str
) -> None:
    store, up = app
    fid = up.subscribe(blog)
    assert store.feed(fid).url == feed_server.url("/atom.xml")


def test_a_page_with_one_feed_subscribes_at_once_even_when_asked_to_choose(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    feed_server.routes(
        {
            "/": Reply(body=page(("/rss.xml", "Posts", "application/rss+xml")), headers=AS_HTML),
            "/rss.xml": Reply(body=rss(item("p1", "P1")), headers=AS_RSS),
        }
    )
    fid = up.subscribe(feed_server.url("/"), choose=True)
    assert store.feed(fid).url == feed_server.url("/rss.xml")


def test_guessed_addresses_are_tried_not_offered(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """A page that links no feed: the conventional paths are tried in order, as
    before; there is nothing named to choose from."""
    store, up = app
    feed_server.routes(
        {
            "/": Reply(body=b"<!doctype html><html><head></head></html>", headers=AS_HTML),
            "/rss": Reply(body=rss(item("p1", "P1")), headers=AS_RSS),
        }
    )
    fid = up.subscribe(feed_server.url("/"), choose=True)
    assert store.feed(fid).url == feed_server.url("/rss")


def test_the_sites_password_goes_only_to_its_own_origin(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    with FeedServer() as other:  # same host, another port: another origin
        other.route("/elsewhere.xml", Reply(body=rss(item("o1", "O1")), headers=AS_RSS))
        feed_server.routes(
            {
                "/": Reply(
                    body=page(
                        ("/private.xml", "Private", "application/rss+xml"),
                        (other.url("/elsewhere.xml"), "Elsewhere", "application/rss+xml"),
                    ),
                    headers=AS_HTML,
                ),
                "/private.xml": Reply(body=rss(item("p1", "P1")), headers=AS_RSS),
            }
        )
        site = feed_server.url("/").replace("http://", "http://alice:s%3Acret@")
        with installed(MemoryKeyring()):
            with pytest.raises(SeveralFeeds) as caught:
                up.subscribe(site, choose=True)
            assert "s%3Acret" not in str(caught.value) and "alice" not in str(caught.value)
            private, elsewhere = caught.value.options
            assert "alice" not in private.url and "alice" not in elsewhere.url  # shown
            assert private.address.startswith("http://alice:s%3Acret@")
            assert elsewhere.address == elsewhere.url  # no password for another origin
            fid = up.subscribe(private.address)
            up.subscribe(elsewhere.address)
            assert store.feed(fid).auth_username == "alice"
        expected = "Basic " + base64.b64encode(b"alice:s:cret").decode()
        assert feed_server.requests_for("/private.xml")[0].header("Authorization") == expected
        assert other.requests_for("/elsewhere.xml")[0].header("Authorization") is None


def test_public_only_keeps_a_page_named_address_out_of_the_local_network(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """An address a public page named is fetched ``public_only``: were it to lead
    to this machine or the LAN (the test server is on 127.0.0.1), it is refused."""
    store, up = app
    feed_server.route("/rss.xml", Reply(body=rss(item("p1", "P1")), headers=AS_RSS))
    with pytest.raises(FetchError):
        up.subscribe(feed_server.url("/rss.xml"), public_only=True)
    assert store.feeds() == [] and not feed_server.requests_for("/rss.xml")
