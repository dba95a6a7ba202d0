"""Updater.load_full_article: an article's page over real HTTP (127.0.0.1), kept
in the store; not a feed fetch (no budget, no fetch log); a server's Retry-After
holds for it; what cannot be loaded is a clear error and keeps nothing."""

from __future__ import annotations

import time

import pytest

from smartreader.core.models import ParsedEntry
from smartreader.errors import SmartReaderError, UsageError
from smartreader.net.fulltext import FullTextError
from smartreader.storage.store import FetchRecord, Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply

HTML = {"Content-Type": "text/html; charset=utf-8"}
TEXT = " ".join(f"Sentence {k} of the article, long enough to be read as prose." for k in range(8))
PAGE = (
    f"<html><body><nav><a href='/'>Home</a></nav><article><h1>The title</h1><p>{TEXT}</p>"
    f"<p>{TEXT}</p></article></body></html>"
).encode()


@pytest.fixture
def world(tmp_path):
    with FeedServer() as server, Store(tmp_path / "db.sqlite3") as store:
        server.route("/feed.xml", Reply(status=304))
        fid = store.add_feed(server.url("/feed.xml"), title="F")
        now = time.time()
        entries = [
            ParsedEntry("a", "The title", server.url("/a"), "", now, None, "<p>Short.</p>", ""),
            ParsedEntry("b", "B", None, "", now - 60, None, "<p>No link.</p>", ""),
            ParsedEntry("c", "C", server.url("/c"), "", now - 120, None, "<p>Short.</p>", ""),
        ]
        store.record_fetch(FetchRecord(fid, now, "ok", entries=entries))
        up = Updater(store)
        try:
            yield server, store, up, store.entry_ids(feed_ids=[fid])
        finally:
            up.close()


def test_the_page_is_loaded_kept_and_costs_no_budget(world):
    server, store, up, (a, _b, _c) = world
    server.route("/a", Reply(body=PAGE, headers=HTML))
    log_before, spent_before = len(store.fetch_log(None, limit=100)), up.requests_today()
    got = up.load_full_article(a)
    assert "Sentence 7 of the article" in got.html and "Home" not in got.html
    assert "The title" not in got.html  # the heading that repeats the title shown
    assert got.url == server.url("/a")
    kept = store.full_article(a)
    assert kept is not None and kept.html == got.html and kept.url == got.url
    assert len(server.requests_for("/a")) == 1
    assert len(store.fetch_log(None, limit=100)) == log_before  # not a feed fetch
    assert up.requests_today() == spent_before


def test_an_article_without_a_link_or_deleted_is_a_clear_error(world):
    _server, store, up, (a, b, _c) = world
    with pytest.raises(FullTextError, match="no link"):
        up.load_full_article(b)
    store.delete_feed(store.entry(a).feed_id)
    with pytest.raises(UsageError):
        up.load_full_article(a)


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (Reply(status=404, body=b"no"), "HTTP 404"),
        (Reply(body=b"%PDF-1.4", headers={"Content-Type": "application/pdf"}), "application/pdf"),
        (Reply(body=b"<html><body><nav>Home</nav></body></html>", headers=HTML), "No article"),
    ],
)
def test_a_page_that_cannot_be_used_keeps_nothing(world, reply, words):
    server, store, up, (a, _b, _c) = world
    server.route("/a", reply)
    with pytest.raises(SmartReaderError, match=words):
        up.load_full_article(a)
    assert store.full_article(a) is None
    assert store.entry(a).content == "<p>Short.</p>"


def test_a_retry_after_on_a_page_holds_for_the_host(world):
    server, store, up, (a, _b, c) = world
    server.route("/a", Reply(status=429, headers={"Retry-After": "3600"}))
    server.route("/c", Reply(body=PAGE, headers=HTML))
    with pytest.raises(FullTextError):
        up.load_full_article(a)
    with pytest.raises(FullTextError):  # the same host is cooling down: nothing sent
        up.load_full_article(c)
    assert server.requests_for("/c") == []
    assert store.full_article(c) is None


def test_a_private_feeds_login_goes_to_its_own_site_only(tmp_path):
    import base64

    from smartreader.net import credentials
    from tests.keyrings import MemoryKeyring, installed

    want = "Basic " + base64.b64encode(b"ann:s3cret").decode()

    def private(req):
        if req.header("authorization") != want:
            return Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="x"'})
        return Reply(body=PAGE, headers=HTML)

    with (
        installed(MemoryKeyring()),
        FeedServer() as own,
        FeedServer() as other,
        Store(tmp_path / "db.sqlite3") as store,
    ):
        own.route("/feed.xml", Reply(status=304))
        own.route("/a", private)
        other.route("/b", Reply(body=PAGE, headers=HTML))
        fid = store.add_feed(own.url("/feed.xml"), title="F", auth_username="ann")
        credentials.store_password(own.url("/feed.xml"), "ann", "s3cret")
        now = time.time()
        entries = [
            ParsedEntry("a", "A", own.url("/a"), "", now, None, "<p>A […]</p>", ""),
            ParsedEntry("b", "B", other.url("/b"), "", now, None, "<p>B […]</p>", ""),
        ]
        store.record_fetch(FetchRecord(fid, now, "ok", entries=entries))
        a, b = sorted(store.entry_ids(feed_ids=[fid]))
        up = Updater(store)
        try:
            assert "Sentence 7" in up.load_full_article(a).html
            assert [r.header("authorization") for r in own.requests_for("/a")] == [want]
            assert "Sentence 7" in up.load_full_article(b).html
            assert [r.header("authorization") for r in other.requests_for("/b")] == [None]
        finally:
            up.close()
