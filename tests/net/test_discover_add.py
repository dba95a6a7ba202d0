"""Subscribing by address, over real HTTP on 127.0.0.1: feeds that must be taken
for feeds on sight (JSON Feed with escaped slashes, prefixed XML roots, a long
prolog), and a blog in a folder whose feed is found by guessing in that folder.

Each test counts the requests: a feed taken on sight costs one, with no guessing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.errors import ParseError
from smartreader.net.discover import COMMON_PATHS
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater
from tests.shared import CORPUS

AS_XML = {"Content-Type": "application/xml"}
AS_JSON = {"Content-Type": "application/json"}
AS_HTML = {"Content-Type": "text/html; charset=utf-8"}
NO_LINKS = b"<!doctype html><html><head><title>Blog</title></head><body>hi</body></html>"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def paths(server: FeedServer) -> list[str]:
    return [r.route_path for r in server.requests]


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"feeds corpus not found at {CORPUS}")
@pytest.mark.parametrize("name", ["curt.json", "rose.json"])
def test_a_php_written_json_feed_is_subscribed_on_sight(
    feed_server: FeedServer, app: tuple[Store, Updater], name: str
) -> None:
    store, up = app
    body = (CORPUS / "rsparser/files" / name).read_bytes()
    assert b"jsonfeed.org\\/version" in body  # "https:\/\/jsonfeed.org\/version\/1"
    feed_server.route(f"/{name}", Reply(body=body, headers=AS_JSON))
    fid = up.subscribe(feed_server.url(f"/{name}"))
    assert store.feed(fid).url == feed_server.url(f"/{name}")
    assert store.entry_count() > 0
    assert paths(feed_server) == [f"/{name}"]  # no /feed, /rss... guessed


ATOM_PREFIXED = (
    b'<?xml version="1.0" encoding="utf-8"?>'
    b'<a:feed xmlns:a="http://www.w3.org/2005/Atom"><a:title>Prefixed</a:title>'
    b"<a:id>urn:x</a:id><a:updated>2027-01-01T00:00:00Z</a:updated>"
    b"<a:entry><a:id>urn:e1</a:id><a:title>E1</a:title>"
    b"<a:updated>2027-01-01T00:00:00Z</a:updated></a:entry></a:feed>"
)
LONG_COMMENT = "<!-- " + "This feed is offered under a licence that goes on. " * 120 + "-->"


@pytest.mark.parametrize(
    "body",
    [ATOM_PREFIXED, rss(item("p1", "P1"), head=LONG_COMMENT),
     rss(item("p1", "P1"), head='<?xml-stylesheet href="/s.xsl" type="text/xsl"?>' * 100)],
    ids=["prefixed-atom-root", "5kb-comment", "5kb-of-pis"],
)  # fmt: skip
def test_an_xml_feed_served_as_application_xml_is_subscribed_on_sight(
    feed_server: FeedServer, app: tuple[Store, Updater], body: bytes
) -> None:
    store, up = app
    feed_server.route("/feed.xml", Reply(body=body, headers=AS_XML))
    fid = up.subscribe(feed_server.url("/feed.xml"))
    assert store.feed(fid).url == feed_server.url("/feed.xml")
    assert store.entry_count() == 1
    assert paths(feed_server) == ["/feed.xml"]


def test_a_blog_in_a_folder_has_its_feed_found_there(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """WordPress in /blog/: its page links no feed (a theme that drops the
    links), /blog/feed answers with a permanent redirect to /blog/feed/."""
    store, up = app
    feed_server.routes(
        {
            "/blog/": Reply(body=NO_LINKS, headers=AS_HTML),
            "/blog/feed": Reply(301, headers={"Location": feed_server.url("/blog/feed/")}),
            "/blog/feed/": Reply(body=rss(item("p1", "P1")), headers=AS_XML),
            "/feed": Reply(body=rss(item("other", "The root's feed")), headers=AS_XML),
        }
    )
    fid = up.subscribe(feed_server.url("/blog/"))
    assert store.feed(fid).url == feed_server.url("/blog/feed/")
    assert paths(feed_server) == ["/blog/", "/blog/feed", "/blog/feed/"]


def test_a_folder_typed_without_its_slash_is_a_folder(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    feed_server.routes(
        {
            "/blog": Reply(body=NO_LINKS, headers=AS_HTML),
            "/blog/rss.xml": Reply(body=rss(item("p1", "P1")), headers=AS_XML),
        }
    )
    fid = up.subscribe(feed_server.url("/blog"))
    assert store.feed(fid).url == feed_server.url("/blog/rss.xml")


def test_the_root_is_still_guessed_after_the_folder_and_the_guesses_are_bounded(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    feed_server.route("/blog/", Reply(body=NO_LINKS, headers=AS_HTML))
    with pytest.raises(ParseError, match="no feed found"):
        up.subscribe(feed_server.url("/blog/"))
    folder = [f"/blog{p}" for p in COMMON_PATHS]
    assert paths(feed_server) == ["/blog/", *folder, *COMMON_PATHS]  # 1 + 12 at worst
    assert store.feeds() == []

    feed_server.route("/index.xml", Reply(body=rss(item("p1", "P1")), headers=AS_XML))
    fid = up.subscribe(feed_server.url("/blog/"))
    assert store.feed(fid).url == feed_server.url("/index.xml")


def _comments_on(page: str) -> bytes:
    """A post's comments feed as WordPress serves it at ``post/feed/``."""
    return rss(
        item("c1", "By: Ann", link=f"{page}#comment-1")
        + item("c2", "By: Bo", link=f"{page}#comment-2"),
        channel=f"<title>Comments on: A post</title><link>{page}</link>",
    )


def test_a_post_pages_guess_prefers_the_sites_feed_to_the_posts_comments(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """A post's page that links no feed: its own folder is guessed first, and
    WordPress answers ``/post/feed`` with that post's comments. The site's feed,
    guessed next, is what was meant."""
    store, up = app
    page = feed_server.url("/2026/11/a-post/")
    site = rss(
        item("p1", "A post", link=page) + item("p2", "Another", link=feed_server.url("/p2/")),
        channel=f"<title>The blog</title><link>{feed_server.url('/')}</link>",
    )
    feed_server.routes(
        {
            "/2026/11/a-post/": Reply(body=NO_LINKS, headers=AS_HTML),
            "/2026/11/a-post/feed": Reply(body=_comments_on(page), headers=AS_XML),
            "/feed": Reply(body=site, headers=AS_XML),
        }
    )
    fid = up.subscribe(page)
    assert store.feed(fid).url == feed_server.url("/feed")
    assert store.feed(fid).title == "The blog"


def test_a_comments_feed_is_still_taken_when_nothing_else_answers(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    page = feed_server.url("/2026/11/a-post/")
    feed_server.routes(
        {
            "/2026/11/a-post/": Reply(body=NO_LINKS, headers=AS_HTML),
            "/2026/11/a-post/feed": Reply(body=_comments_on(page), headers=AS_XML),
        }
    )
    fid = up.subscribe(page)
    assert store.feed(fid).url == feed_server.url("/2026/11/a-post/feed")
    assert store.entry_count() == 2


def test_a_blog_in_a_folder_naming_that_folder_as_its_site_is_taken_first(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """The blog's own feed names the folder typed as its site, like a comments
    feed names its post, but its items link elsewhere: taken, not passed over."""
    store, up = app
    blog = feed_server.url("/blog/")
    feed_server.routes(
        {
            "/blog/": Reply(body=NO_LINKS, headers=AS_HTML),
            "/blog/feed": Reply(
                body=rss(
                    item("p1", "P1", link=f"{blog}p1/"),
                    channel=f"<title>Blog</title><link>{blog}</link>",
                ),
                headers=AS_XML,
            ),
            "/feed": Reply(body=rss(item("other", "The root's feed")), headers=AS_XML),
        }
    )
    fid = up.subscribe(blog)
    assert store.feed(fid).url == feed_server.url("/blog/feed")
