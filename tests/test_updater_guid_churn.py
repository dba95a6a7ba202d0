"""Feeds whose item ids change on every request, through the Updater: real SQLite
file, real HTTP on 127.0.0.1.

Such a feed (a timestamp or session token in a non-permalink guid, ids made at
render time) used to be stored again in full by every fetch: duplicates piled
up, unread counts grew, and the scheduler, told every item was new, learnt a
false posting rate and raised false missed-item alerts. Now an item is known by
its stored id when link, title and its date or text say it is the same item.
"""

from __future__ import annotations

from collections.abc import Iterator
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, RecordedRequest, Reply
from tests.reliability.support import Clock, item, rss, spy_on_scheduler, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}
T0 = 1_780_000_000.0
HOUR = 3600.0


def post(guid: str, title: str, link: str, published: float, text: str) -> str:
    extra = (
        f"<pubDate>{formatdate(published, usegmt=True)}</pubDate><description>{text}</description>"
    )
    return item(guid, title, link=link, extra=extra).replace("<guid>", '<guid isPermaLink="false">')


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater, Clock]]:
    clock = Clock(T0 + 10 * HOUR)
    with store_and_updater(tmp_path / "db.sqlite3", clock) as (store, up):
        yield store, up, clock


def told_new(obs: Any) -> int:
    return sum(i.is_new for i in obs.items)


def test_a_feed_whose_guids_change_on_every_fetch_stores_each_item_once(
    feed_server: FeedServer, app: tuple[Store, Updater, Clock]
) -> None:
    store, up, clock = app
    fetches = [0]

    def churning(_req: RecordedRequest) -> Reply:
        fetches[0] += 1
        n = fetches[0]
        items = [
            post(f"urn:post:{k}:{n}-{k * 7919 + n}", f"Post {k}", f"https://blog.example/{k}",
                 T0 - k * HOUR, f"Text of post {k}")
            for k in range(5)
        ]  # fmt: skip
        # and one whose id is stable but whose link carries a session: fine as it was
        items.append(post("stable", "Kept", f"https://blog.example/kept?sid={n}", T0, "Kept"))
        return Reply(body=rss("".join(items)), headers=AS_RSS)

    feed_server.route("/feed.xml", churning)
    fid = up.subscribe(feed_server.url("/feed.xml"))
    assert store.entry_count(fid) == 6
    by_title = {store.entry(e).title: e for e in store.entry_ids(feed_ids=[fid])}
    store.set_read([by_title["Post 0"]], True)
    store.set_starred([by_title["Post 1"]], True)
    seen = spy_on_scheduler(up)

    results = []
    for _ in range(2):
        clock.t += HOUR
        results += up.update([fid])

    assert fetches[0] == 3
    assert [(r.status, r.new_entries) for r in results] == [("ok", 0), ("ok", 0)]
    assert store.entry_count(fid) == 6
    # each article keeps the id it was first stored under, and its flags
    assert {store.entry(e).title: store.entry(e).read for e in by_title.values()} == {
        "Post 0": True, "Post 1": False, "Post 2": False, "Post 3": False, "Post 4": False,
        "Kept": False,
    }  # fmt: skip
    assert store.entry(by_title["Post 1"]).starred
    assert store.unread_counts() == {fid: 5}
    # the scheduler saw the whole window, none of it new: no false rate, no alert
    assert [(len(o.items), told_new(o)) for o in seen] == [(6, 0), (6, 0)]
    assert [r.new_items for r in store.fetch_log(fid)[:2]] == [0, 0]
    assert store.alerts() == []


def test_a_status_feed_posting_under_one_link_and_title_gets_each_post(
    feed_server: FeedServer, app: tuple[Store, Updater, Clock]
) -> None:
    """Capacity 1: the newest post replaces the last under the same link and title.
    A churned id of the same post is no new article; a new date and new words are."""
    store, up, clock = app
    status, page = "Service status", "https://status.example/"
    first = post("s-1", status, page, T0, "All systems operational")
    docs = [
        first,
        first.replace("s-1", "s-1b"),  # the same post, its id made anew
        post("s-2", status, page, T0 + 5 * HOUR, "Degraded performance"),
    ]
    feed_server.route("/status.xml", [Reply(body=rss(d), headers=AS_RSS) for d in docs])
    fid = up.subscribe(feed_server.url("/status.xml"))
    seen = spy_on_scheduler(up)

    results = []
    for _ in range(2):
        clock.t += HOUR
        results += up.update([fid])

    assert [r.new_entries for r in results] == [0, 1]
    assert [told_new(o) for o in seen] == [0, 1]
    texts = sorted(store.entry(e).content for e in store.entry_ids(feed_ids=[fid]))
    assert texts == ["All systems operational", "Degraded performance"]


def test_two_items_sharing_link_and_title_in_one_document_stay_two(
    feed_server: FeedServer, app: tuple[Store, Updater, Clock]
) -> None:
    """A repost under a new guid beside the original (same link, title, date and
    text) is a second article; in the same fetch an item whose id churned is not."""
    store, up, clock = app
    original = post("a", "Weekly links", "https://blog.example/links", T0, "Links")
    repost = original.replace(">a<", ">a-repost<")
    other = post("b-1", "Other", "https://blog.example/other", T0 - HOUR, "Other text")
    docs = [original + other, original + repost + other.replace("b-1", "b-2")]
    feed_server.route("/feed.xml", [Reply(body=rss(d), headers=AS_RSS) for d in docs])
    fid = up.subscribe(feed_server.url("/feed.xml"))
    seen = spy_on_scheduler(up)

    clock.t += HOUR
    (res,) = up.update([fid])

    assert res.new_entries == 1
    assert [i.uid for o in seen for i in o.items if i.is_new] == ["a-repost"]
    assert sorted(store.entry(e).title for e in store.entry_ids(feed_ids=[fid])) == [
        "Other", "Weekly links", "Weekly links",
    ]  # fmt: skip
