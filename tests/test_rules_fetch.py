"""Rules at work on real fetches: real SQLite file, real HTTP on 127.0.0.1.

A rule's muted articles are stored read in the fetch's own transaction, so the
update's result says how many of its new entries were muted: the tray announces
only the others, and ``smartreader update`` says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.cli import _report_update
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}
T0 = 1_780_000_000.0


@pytest.fixture
def app(tmp_path: Path) -> Iterator[tuple[Store, Updater, Clock]]:
    clock = Clock(T0)
    with store_and_updater(tmp_path / "db.sqlite3", clock) as (store, up):
        yield store, up, clock


def test_a_rule_mutes_what_a_fetch_brings_and_the_result_says_how_many(
    feed_server: FeedServer, app: tuple[Store, Updater, Clock], capsys: pytest.CaptureFixture[str]
) -> None:
    store, up, clock = app
    titles = ["Weekly sponsored post", "Release 1.0"]
    feed_server.route(
        "/feed.xml",
        lambda _req: Reply(
            body=rss("".join(item(t.replace(" ", "-"), t) for t in titles)), headers=AS_RSS
        ),
    )
    fid = up.subscribe(feed_server.url("/feed.xml"))
    assert store.unread_counts() == {fid: 2}  # before the rule: as they came
    store.add_rule("sponsored", now=clock.t)
    store.add_rule("release", feed_id=fid, action="star", now=clock.t)
    titles[:] = ["Another sponsored post", "Release 1.1", "Sponsored release", "Notes", *titles]
    clock.t += 3600
    [result] = up.update([fid])
    assert (result.status, result.new_entries, result.ruled_read) == ("ok", 4, 2)
    flags = {
        store.entry(e).title: (store.entry(e).read, store.entry(e).starred)
        for e in store.entry_ids(feed_ids=[fid])
    }
    assert flags == {
        "Another sponsored post": (True, False),
        "Release 1.1": (False, True),
        "Sponsored release": (True, True),
        "Notes": (False, False),
        "Weekly sponsored post": (False, False),  # stored before the rule
        "Release 1.0": (False, False),
    }
    assert [r.hits for r in store.rules()] == [2, 2]
    # the fetch log and the scheduler count every new item: a rule mutes, it does
    # not change what the feed published
    assert store.fetch_log(fid)[0].new_items == 4
    _report_update(store, [result], 0.5)
    assert "4 new entries (2 marked read by rules), 0 failed" in capsys.readouterr().out
