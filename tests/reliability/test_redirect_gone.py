"""A feed whose old address dies while a permanent move is pending (row 13, §3.2).

A 301/308 moves a feed only after it has been seen consistently for a week. If,
meanwhile, the old address starts answering 404 or 410 itself, waiting is pointless:
the target the redirect announced is fetched at once and, if it answers, the feed
moves there now instead of failing (or stopping for good on a 410).

Real SQLite file, real HTTP on 127.0.0.1, the in-memory test keyring.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from smartreader.errors import UsageError
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.keyrings import MemoryKeyring, installed
from tests.reliability.support import item, rss, store_and_updater
from tests.reliability.test_credentials_move import BASIC, PASSWORD, account, protected, with_user

OLD_ITEMS = rss(item("a", "A") + item("b", "B"))
NEW_ITEMS = rss(item("a", "A") + item("b", "B") + item("c", "C"))
NEWER_ITEMS = rss(item("a", "A") + item("b", "B") + item("c", "C") + item("d", "D"))


def announces_move_then_dies(location: str, dead: int, served: int = 1) -> Callable:
    """Serves the feed ``served`` times, redirects permanently once, then ``dead``."""
    calls = 0

    def handle(req: RecordedRequest) -> Reply:
        nonlocal calls
        calls += 1
        if calls <= served:
            return Reply(body=OLD_ITEMS)
        if calls == served + 1:
            return Reply(status=301, headers={"Location": location})
        return Reply(status=dead, body=b"no such feed")

    return handle


class Clock:
    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        self.t += 3600.0  # an hour between calls: far from the week a move needs
        return self.t


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as app:
        yield app


def pending_move(
    feed_server: FeedServer, up: Updater, dead: int, *targets: Reply
) -> tuple[str, str, int]:
    """A feed at /old, which then announces a permanent move to /new (answering
    ``targets`` in turn, the last one for ever) and after that answers ``dead``:
    (old URL, new URL, feed id), with the move seen once and pending."""
    old, new = feed_server.url("/old"), feed_server.url("/new")
    feed_server.route("/old", announces_move_then_dies("/new", dead))
    replies = iter(targets)
    feed_server.route("/new", lambda _req: next(replies, targets[-1]))
    fid = up.subscribe(old)
    first = up.update([fid])[0]  # the 301, followed to /new
    assert first.status == "ok" and up.store.feed(fid).redirect_url == new
    return old, new, fid


@pytest.mark.parametrize("dead", [404, 410])
def test_old_address_gone_takes_the_pending_move_at_once(
    dead: int, feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    old, new, fid = pending_move(
        feed_server, up, dead, Reply(body=NEW_ITEMS), Reply(body=NEWER_ITEMS)
    )
    assert store.feed(fid).url == old  # seen once: not confirmed

    moved = up.update([fid])[0]  # the old address now says 404/410

    assert (moved.status, moved.error) == ("ok", None)
    f = store.feed(fid)
    assert (f.url, f.status, f.redirect_url) == (new, "active", None)
    assert f.previous_urls == (old,)
    assert moved.new_entries == 1  # "d"; the others were not stored a second time
    titles = sorted(e.title for e in store.entries(store.entry_ids(feed_ids=[fid])))
    assert titles == ["A", "B", "C", "D"]
    # Still planned (a 410 no longer drops it), and fetched at the new address.
    assert fid in up.scheduler.feed_ids()
    feed_server.clear()
    assert up.update([fid])[0].status in ("ok", "not_modified")
    assert [r.route_path for r in feed_server.requests] == ["/new"]


def test_adding_a_feeds_old_address_again_says_where_it_went(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    """The old address answers a feed again (a stale copy): adding it would make a
    second copy of the feed the user already has under its new address."""
    store, up = app
    old, new, fid = pending_move(feed_server, up, 410, Reply(body=NEW_ITEMS))
    up.update([fid])  # the 410: the feed moves to /new now
    assert store.feed(fid).url == new
    feed_server.route("/old", Reply(body=OLD_ITEMS))
    with pytest.raises(UsageError) as caught:
        up.subscribe(old)
    assert str(caught.value) == f"already subscribed to {old}: the feed has moved to {new}"
    assert [f.id for f in store.feeds()] == [fid]


def test_a_scheduled_fetch_spends_the_new_address_from_the_budget(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    _old, new, fid = pending_move(feed_server, up, 404, Reply(body=NEW_ITEMS))
    assert up.requests_today() == 0  # subscribing and refreshing are the user's

    moved = up.update([fid], manual=False)[0]

    assert moved.status == "ok" and store.feed(fid).url == new
    assert up.requests_today() == 2  # the dead address and the new one
    # the fetch log holds one row for the two requests; a restart counts both
    t = up.now()
    restarted = Updater(store, fetcher=up.fetcher, now=lambda: t)
    assert restarted.requests_today() == 2


def test_with_no_request_left_the_move_waits_and_the_cap_holds(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    up.set_budget(1.0)
    old, new, fid = pending_move(feed_server, up, 404, Reply(body=NEW_ITEMS))
    feed_server.clear()

    r = up.update([fid], manual=False)[0]

    assert r.status == "error" and "404" in (r.error or "")
    assert [q.route_path for q in feed_server.requests] == ["/old"]  # not /new
    f = store.feed(fid)
    assert (f.url, f.redirect_url) == (old, new)  # the move is still pending
    assert up.requests_today() == 1
    # the user's own refresh is outside the budget: it takes the move
    r = up.update([fid])[0]
    assert r.status == "ok" and store.feed(fid).url == new
    assert up.requests_today() == 1


def test_without_a_pending_move_a_404_is_an_error_and_the_address_stays(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    old = feed_server.url("/old")
    calls = iter([Reply(body=OLD_ITEMS), Reply(body=OLD_ITEMS), Reply(status=404)])
    feed_server.route("/old", lambda _req: next(calls))
    fid = up.subscribe(old)
    up.update([fid])
    feed_server.clear()

    r = up.update([fid])[0]

    assert r.status == "error" and "404" in (r.error or "")
    assert store.feed(fid).url == old
    assert [q.route_path for q in feed_server.requests] == ["/old"]  # nothing else tried


@pytest.mark.parametrize("dead", [404, 410])
def test_a_failing_target_keeps_the_feed_where_it_was_and_says_both(
    dead: int, feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    old, new, fid = pending_move(feed_server, up, dead, Reply(body=NEW_ITEMS), Reply(status=500))
    entries_before = store.entry_count()

    r = up.update([fid])[0]

    assert r.status == ("gone" if dead == 410 else "error")
    assert str(dead) in (r.error or "") and new in (r.error or "") and "500" in (r.error or "")
    f = store.feed(fid)
    assert f.url == old and f.previous_urls == ()
    assert store.entry_count() == entries_before


def test_a_target_another_feed_already_has_is_not_taken(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    old, new, fid = pending_move(feed_server, up, 404, Reply(body=NEW_ITEMS))
    other = up.subscribe(new)
    feed_server.clear()

    r = up.update([fid])[0]

    assert r.status == "error" and "404" in (r.error or "")
    assert store.feed(fid).url == old and store.feed(other).url == new
    assert [q.route_path for q in feed_server.requests] == ["/old"]


def test_a_password_feed_moves_with_its_password_when_its_old_address_dies(
    feed_server: FeedServer, app: tuple[Store, Updater]
) -> None:
    store, up = app
    old, new = feed_server.url("/old"), feed_server.url("/new")
    inner = announces_move_then_dies("/new", 404)

    def old_route(req: RecordedRequest) -> Reply:
        if req.header("Authorization") != BASIC:
            return Reply(status=401, headers={"WWW-Authenticate": 'Basic realm="p"'})
        return inner(req)

    feed_server.route("/old", old_route)
    feed_server.route("/new", protected(NEW_ITEMS))
    with installed(MemoryKeyring()) as kr:
        fid = up.subscribe(with_user(old))
        up.update([fid])

        r = up.update([fid])[0]

        assert (r.status, r.error) == ("ok", None)
        assert store.feed(fid).url == new
        assert kr.data == {account(new): PASSWORD}
        assert feed_server.requests_for("/new")[-1].header("Authorization") == BASIC
