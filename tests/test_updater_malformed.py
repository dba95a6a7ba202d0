"""Broken documents through the Updater: real SQLite file, real HTTP on 127.0.0.1.

Subscribing to something that reads as no feed at all is refused with the
parser's reason and stores nothing (before: the feed was added, titled with its
URL, and its fetch logged as "ok, 0 items"). An existing feed whose document
turns to garbage records an error fetch exactly as an HTTP 500 does: the error
shown, the articles kept, the back-off applied. A document that still reads,
but only with the parser's help (malformed XML read leniently), keeps the
parser's warnings with its fetch (schema v9) and ``smartreader update`` names it
(before, the warnings were dropped and the feed looked healthy).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.cli import main
from smartreader.errors import ParseError
from smartreader.net.parsepool import ParsePool
from smartreader.storage.store import WARNING_CHARS, WARNINGS_KEPT, FetchRecord, Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}
TRUNCATED = b'<?xml version="1.0"?><rss><channel><title>T</title><item><title>x'
GARBAGE = b'<?xml version="1.0"?><garbage/>'
GOOD = rss(item("a", "A") + item("b", "B"))
# an undefined entity: not well-formed XML, but every item still reads
BROKEN = rss(item("a", "A") + item("b", "B") + item("c", "C &nbsp; undefined entity"))
LENIENT = "malformed feed, read leniently: XML parse error"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(tmp_path: Path, clock: Clock) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", clock) as app:
        yield app


def nothing_stored(store: Store) -> bool:
    return store.feeds() == [] and store.fetch_log() == [] and store.entry_count() == 0


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (TRUNCATED, "application/rss+xml", "XML parse error at line 1: no element found"),
        (GARBAGE, "application/rss+xml", "root is <garbage>, not RSS, Atom or RDF"),
        # text/xml is not taken for a feed on sight: discovery runs, finds none,
        # and the document's own problem is what the user is told.
        (GARBAGE, "text/xml", "root is <garbage>, not RSS, Atom or RDF"),
        (b'<?xml version="1.0"?><catalog><book/></catalog>', "application/xml", "<catalog>"),
    ],
)
def test_subscribing_to_no_feed_fails_with_the_reason_and_stores_nothing(
    feed_server: FeedServer, app: tuple[Store, Updater], body: bytes, content_type: str, reason: str
) -> None:
    store, up = app
    feed_server.route("/feed.xml", Reply(body=body, headers={"Content-Type": content_type}))
    url = feed_server.url("/feed.xml")
    with pytest.raises(ParseError, match=f"^cannot subscribe to {url}: not a feed: ") as e:
        up.subscribe(url)
    assert reason in str(e.value)
    assert nothing_stored(store)
    assert up.next_wakeup() is None  # no feed was given a share of the budget


def test_subscribing_through_the_parse_workers_fails_alike(
    feed_server: FeedServer, tmp_path: Path
) -> None:
    """The GUI parses in worker processes; their ParseError refuses the feed too."""
    feed_server.route("/feed.xml", Reply(body=TRUNCATED, headers=AS_RSS))
    pool = ParsePool(workers=1)
    with Store(tmp_path / "db.sqlite3") as store:
        up = Updater(store, parse_pool=pool)
        try:
            with pytest.raises(ParseError, match="not a feed: XML parse error at line 1"):
                up.subscribe(feed_server.url("/feed.xml"))
            assert nothing_stored(store)
        finally:
            up.close()
            pool.close()


def test_a_page_linking_a_broken_feed_and_a_good_one_subscribes_to_the_good_one(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    links = "".join(
        f'<link rel="alternate" type="application/rss+xml" href="{p}">' for p in ("/bad", "/good")
    )
    page = f"<html><head>{links}</head><body>hi</body></html>".encode()
    feed_server.route("/", Reply(body=page, headers={"Content-Type": "text/html"}))
    feed_server.route("/bad", Reply(body=TRUNCATED, headers=AS_RSS))
    feed_server.route("/good", Reply(body=GOOD, headers=AS_RSS))
    fid = up.subscribe(feed_server.url("/"))
    assert store.feed(fid).url == feed_server.url("/good")
    assert store.entry_count(fid) == 2
    # One request for the page and one for each candidate; the good document is
    # parsed once, not again when it is stored.
    assert [r.path for r in feed_server.requests] == ["/", "/bad", "/good"]

    only_bad = page.replace(b"/good", b"/bad")
    feed_server.route("/", Reply(body=only_bad, headers={"Content-Type": "text/html"}))
    with pytest.raises(ParseError, match=r"is linked, but not a feed: XML parse error") as e:
        up.subscribe(feed_server.url("/"))
    assert str(e.value).startswith(f"no feed found at {feed_server.url('/')}: ")
    assert [f.id for f in store.feeds()] == [fid]


def test_smartreader_add_of_a_broken_document_exits_1(
    feed_server: FeedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed_server.route("/feed.xml", Reply(body=TRUNCATED, headers=AS_RSS))
    data = str(tmp_path / "data")
    assert main(["add", feed_server.url("/feed.xml"), "--data-dir", data]) == 1
    assert "not a feed: XML parse error at line 1" in capsys.readouterr().err
    assert main(["feeds", "--json", "--data-dir", data]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_a_feed_whose_document_turns_to_garbage_records_an_error_like_a_500(
    app: tuple[Store, Updater], clock: Clock
) -> None:
    store, up = app
    with FeedServer() as garbled, FeedServer() as failing:  # two hosts: no shared gaps
        good = Reply(body=GOOD, headers=AS_RSS)
        garbled.route("/f", [good, Reply(body=TRUNCATED, headers=AS_RSS)])
        failing.route("/f", [good, Reply(status=500, body=b"oops")])
        a, b = up.subscribe(garbled.url("/f")), up.subscribe(failing.url("/f"))
        clock.t += 3600.0
        res = {r.feed_id: r for r in up.update([a, b], manual=False)}

    assert res[a].status == "error" and res[b].status == "error"
    message = res[a].error or ""
    assert message.startswith("not a feed: XML parse error at line 1: no element found")
    feed = store.feed(a)
    assert (feed.last_error, feed.error_count) == (message, 1)
    assert store.entry_count(a) == 2  # the articles stay
    assert feed.title == "t"  # and so does what the last good document said
    log = store.fetch_log(a)[0]
    assert (log.status, log.http_status, log.error) == ("error", 200, message)
    # The scheduler learned exactly what a server error teaches it: one more
    # failure in a row (the back-off), no successful fetch, no silence.
    assert feed.scheduler_state == store.feed(b).scheduler_state
    assert feed.scheduler_state is not None and feed.scheduler_state["err_count"] == 1


def test_a_slightly_broken_document_still_delivers_its_new_items(
    feed_server: FeedServer, app: tuple[Store, Updater], clock: Clock
) -> None:
    store, up = app
    broken = rss(item("a", "A") + item("b", "B") + item("c", "C &nbsp; undefined entity"))
    feed_server.route("/f", [Reply(body=GOOD, headers=AS_RSS), Reply(body=broken, headers=AS_RSS)])
    fid = up.subscribe(feed_server.url("/f"))
    clock.t += 3600.0
    (res,) = up.update([fid])
    assert (res.status, res.new_entries, res.error) == ("ok", 1, None)
    assert store.entry_count(fid) == 3 and store.feed(fid).error_count == 0


def test_a_valid_feed_with_no_items_subscribes_and_stays_ok(
    feed_server: FeedServer, app: tuple[Store, Updater], clock: Clock
) -> None:
    store, up = app
    feed_server.route("/f", Reply(body=rss(channel="<title>Quiet</title>"), headers=AS_RSS))
    fid = up.subscribe(feed_server.url("/f"))
    clock.t += 3600.0
    (res,) = up.update([fid])
    assert res.status == "ok" and store.feed(fid).title == "Quiet"
    assert [r.status for r in store.fetch_log(fid)] == ["ok", "ok"]


def test_a_leniently_read_feed_keeps_its_warning_with_the_fetch(
    feed_server: FeedServer, app: tuple[Store, Updater], clock: Clock
) -> None:
    store, up = app
    feed_server.route(
        "/f",
        [
            Reply(body=GOOD, headers=AS_RSS),
            Reply(body=BROKEN, headers=AS_RSS),
            Reply(body=BROKEN.replace(b"&nbsp;", b"&amp;"), headers=AS_RSS),
        ],
    )
    fid = up.subscribe(feed_server.url("/f"))
    clock.t += 3600.0
    (res,) = up.update([fid])
    assert (res.status, res.new_entries, res.error) == ("ok", 1, None)
    assert len(res.warnings) == 1 and res.warnings[0].startswith(LENIENT)
    newest, first = store.fetch_log(fid)
    assert first.warnings == () and newest.warnings == res.warnings
    assert store.last_fetches()[fid].warnings == res.warnings
    # a warning is not an error: the feed stays healthy, nothing backs off
    assert store.feed(fid).error_count == 0 and store.feed(fid).last_error is None
    # once the document is well-formed again, the newest fetch says so
    clock.t += 3600.0
    (res,) = up.update([fid])
    assert res.warnings == () and store.fetch_log(fid)[0].warnings == ()


def test_warnings_are_bounded_and_a_damaged_value_reads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    with Store(path) as store:
        fid = store.add_feed("http://127.0.0.1/f.xml", now=1000.0)
        many = tuple(f"warning {k} " + "x" * 1000 for k in range(WARNINGS_KEPT + 3))
        store.record_fetch(FetchRecord(fid, 1000.0, "ok", warnings=many))
        (row,) = store.fetch_log(fid)
        assert len(row.warnings) == WARNINGS_KEPT
        assert row.warnings == tuple(w[:WARNING_CHARS] for w in many[:WARNINGS_KEPT])
        store.record_fetch(FetchRecord(fid, 2000.0, "ok"))
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE fetch_log SET warnings = 'not json' WHERE time = 1000")
        db.execute("UPDATE fetch_log SET warnings = '{\"a\": 1}' WHERE time = 2000")
    db.close()
    with Store(path) as store:
        assert [r.warnings for r in store.fetch_log()] == [(), ()]
        assert store.fetch_log()[0].status == "ok"  # the rest of the row is intact


def test_smartreader_update_reports_a_feed_read_with_problems(
    feed_server: FeedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    feed_server.route("/f", [Reply(body=GOOD, headers=AS_RSS), Reply(body=BROKEN, headers=AS_RSS)])
    data = str(tmp_path / "data")
    assert main(["add", feed_server.url("/f"), "--data-dir", data]) == 0
    capsys.readouterr()
    assert main(["update", "--data-dir", data]) == 0
    out = capsys.readouterr().out
    assert "1 new entry, 0 failed" in out
    assert f"[1] t: read with problems: {LENIENT}" in out
