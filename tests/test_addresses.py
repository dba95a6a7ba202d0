"""One spelling per feed address (core/address.py, net/urls.py): the same feed
typed or listed otherwise is one subscription, and what `add` accepts an OPML
file may list too (real SQLite files, real HTTP on 127.0.0.1)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.core.address import address_key, canonical_url
from smartreader.errors import UsageError
from smartreader.net.urls import typed_address
from smartreader.storage.store import Store
from smartreader.subscriptions import export_opml, import_opml
from smartreader.updater import Updater
from tests.httpserver import Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

FEED = Reply(body=rss(item("a", "A")), headers={"Content-Type": "application/rss+xml"})


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTP://Example.ORG:80/a/./feed#top", "http://example.org/a/feed"),
        ("https://x.example:443", "https://x.example/"),
        ("https://x.example:8443/A/../B?Q=1#f", "https://x.example:8443/B?Q=1"),
        ("http://u:p@X.example/a/b/..", "http://u:p@x.example/a/"),
        ("http://[::1]:80/f", "http://[::1]/f"),
        # what servers may tell apart stays: the path's case, "//", escapes, the query
        ("http://x.example/A//b%2Fc?b=2&a=1", "http://x.example/A//b%2Fc?b=2&a=1"),
        # not an http(s) address with a host: as it was
        ("ftp://x.example/y", "ftp://x.example/y"),
        ("http://x.example:port/", "http://x.example:port/"),
    ],
)
def test_canonical_url(url, canonical):
    assert canonical_url(url) == canonical
    assert canonical_url(canonical) == canonical  # and it stays so


@pytest.mark.parametrize("typed", ["javascript:alert(1)", "mailto:a@b.example", "ftp://x/y"])
def test_typed_address_refuses_other_schemes(typed):
    """`add mailto:a@b.c` fetched https://b.c with "mailto" as a user name."""
    with pytest.raises(UsageError, match="only http and https"):
        typed_address(typed)


@pytest.mark.parametrize(
    "typed", ["http://127.0.0.1:99999/feed", "http://a.example:x/", "https://"]
)
def test_typed_address_refuses_what_names_no_server(typed):
    """Port 99999 was fetched, to fail as "connection refused"."""
    with pytest.raises(UsageError, match="not a web address"):
        typed_address(typed)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def test_the_same_feed_spelt_otherwise_is_not_a_second_subscription(app, feed_server):
    store, up = app
    feed_server.route("/a1.xml", FEED)
    fid = up.subscribe(feed_server.url("/a1.xml").replace("http://", "HTTP://") + "#top")
    assert store.feed(fid).url == feed_server.url("/a1.xml")
    for other in ("/a1.xml", "/x/../a1.xml", "/./a1.xml#bottom"):
        with pytest.raises(UsageError, match="already subscribed"):
            up.subscribe(feed_server.url(other))
    assert len(store.feeds()) == 1
    # not https://b.example with "mailto" for a user name
    with pytest.raises(UsageError, match="only http and https"):
        up.subscribe("mailto:a@b.example")


def test_an_address_stored_in_another_spelling_is_still_found(app, feed_server):
    """Subscriptions made before addresses had one spelling keep theirs."""
    store, up = app
    feed_server.route("/a1.xml", FEED)
    old = store.add_feed(feed_server.url("/a1.xml").replace("http://", "HTTP://") + "#top")
    assert store.feed_id_by_address(feed_server.url("/a1.xml")) == old
    with pytest.raises(UsageError, match="already subscribed"):
        up.subscribe(feed_server.url("/a1.xml"))


ODD = b"""<?xml version="1.0"?>
<opml version="2.0"><body>
  <outline text="Upper" xmlUrl="HTTPS://Upper.example/feed"/>
  <outline text="Feed scheme" xmlUrl="feed://f.example/rss"/>
  <outline text="Feed https" xmlUrl="feed:https://g.example/rss"/>
  <outline text="No scheme" xmlUrl="bare.example/feed.xml"/>
  <outline text="Case" xmlURL="https://case.example/feed" htmlURL="https://case.example/"/>
  <outline text="Site" xmlUrl="https://s.example/feed" htmlUrl="https://s.example/"/>
  <outline text="Again" xmlUrl="https://S.example:443/feed#x"/>
  <outline type="link" text="A web link" url="https://w.example/page.html"/>
  <outline type="link" text="Another list" url="https://w.example/more.opml"/>
  <outline text="Only a site" htmlUrl="https://h.example/"/>
  <outline text="Mail" xmlUrl="mailto:a@b.example"/>
</body></opml>"""


def test_an_opml_file_may_list_what_add_accepts(tmp_path):
    """An export of `add HTTP://…` did not import again ("unsupported feed URL"),
    nor did feed:, scheme-less or "xmlURL" outlines; links to pages became feeds
    that failed at every update; a site-only outline became an empty folder."""
    with Store(tmp_path / "a.sqlite3") as store, Store(tmp_path / "b.sqlite3") as other:
        report = import_opml(store, ODD)
        urls = {f.url for f in store.feeds()}
        assert urls == {
            "https://upper.example/feed",
            "http://f.example/rss",
            "https://g.example/rss",
            "https://bare.example/feed.xml",
            "https://case.example/feed",
            "https://s.example/feed",
        }
        assert store.folders() == []  # "Only a site" is no folder
        problems = "\n".join(report.problems)
        assert "duplicate" in problems and "'Again'" in problems
        assert "'A web link' is a link to a web page" in problems
        assert "'Another list' includes another OPML file" in problems
        assert "'Only a site' names a web site (https://h.example/) but no feed" in problems
        assert "'Mail': unsupported feed URL" in problems
        assert len(report.problems) == 5
        # the site addresses came in, and go out again with an export
        sites = {f.url: f.site_link for f in store.feeds()}
        assert sites["https://s.example/feed"] == "https://s.example/"
        assert sites["https://case.example/feed"] == "https://case.example/"
        data, n = export_opml(store)
        assert n == 6 and b'htmlUrl="https://s.example/"' in data
        again = import_opml(other, data)
        assert again.problems == [] and len(again.added) == 6
        assert {f.url for f in other.feeds()} == urls


def test_an_import_finds_a_feed_subscribed_in_another_spelling(tmp_path):
    with Store(tmp_path / "a.sqlite3") as store:
        store.add_feed("HTTP://Upper.example:80/feed#old")
        report = import_opml(
            store,
            b'<opml><body><outline text="U" xmlUrl="http://upper.example/feed"/></body></opml>',
        )
        assert report.already == 1 and report.added == [] and len(store.feeds()) == 1


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://bücher.example/feed", "https://xn--bcher-kva.example/feed"),
        ("https://XN--BCHER-KVA.example/feed", "https://xn--bcher-kva.example/feed"),
        ("https://BÜCHER.example:8443/feed#x", "https://xn--bcher-kva.example:8443/feed"),
        ("https://u:p@bücher.example/f?q=ü", "https://u:p@xn--bcher-kva.example/f?q=ü"),
        # IDNA 2008, as httpx sends it: ß is not ss
        ("https://straße.de/", "https://xn--strae-oqa.de/"),
        ("http://[::1]/f", "http://[::1]/f"),
        ("https://plain.example/", "https://plain.example/"),
        ("https://a\u200fb.example/", "https://a\u200fb.example/"),  # not a name: as written
    ],
)
def test_address_key(url, key):
    assert address_key(url) == key


IDN_FORMS = ["https://bücher.example/feed", "https://xn--bcher-kva.example/feed"]


@pytest.mark.parametrize("first", [0, 1], ids=["unicode-first", "ascii-first"])
def test_an_internationalised_host_is_one_feed_in_either_form(tmp_path, first):
    """ "bücher.example" and its ASCII form "xn--bcher-kva.example" name one server
    (httpx sends the second): both were subscriptions, fetched twice."""
    have, other = IDN_FORMS[first], IDN_FORMS[1 - first]
    with Store(tmp_path / "a.sqlite3") as store, Store(tmp_path / "b.sqlite3") as fresh:
        fid = store.add_feed(have)
        assert store.feed_id_by_address(other) == fid
        opml = f'<opml><body><outline text="B" xmlUrl="{other}"/></body></opml>'.encode()
        report = import_opml(store, opml)
        assert report.already == 1 and report.added == [] and len(store.feeds()) == 1
        both = "".join(f'<outline text="B" xmlUrl="{u}"/>' for u in (have, other))
        report = import_opml(fresh, f"<opml><body>{both}</body></opml>".encode())
        assert len(report.added) == 1 and [f.url for f in fresh.feeds()] == [have]
        assert len(report.problems) == 1 and "duplicate" in report.problems[0]
