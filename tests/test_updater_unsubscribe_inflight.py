"""A feed unsubscribed while its fetch is on the wire: the late result is dropped
quietly (it was two ERROR tracebacks in the log, "no feed with id N"), and the
other feeds of the same run are recorded as usual. Real SQLite, real HTTP."""

from __future__ import annotations

import logging
import threading

import pytest

from smartreader.subscriptions import unsubscribe
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

AS_RSS = {"Content-Type": "application/rss+xml"}


def test_a_feed_removed_during_its_update_is_dropped_without_errors(
    tmp_path, feed_server: FeedServer, caplog
):
    first, late = rss(item("a")), rss(item("b"))
    feed_server.route(
        "/slow.xml", [Reply(body=first, headers=AS_RSS), Reply(body=late, headers=AS_RSS, delay=1)]
    )
    feed_server.route("/fast.xml", Reply(body=rss(item("c")), headers=AS_RSS))
    with store_and_updater(tmp_path / "db.sqlite3", Clock()) as (store, up):
        slow = up.subscribe(feed_server.url("/slow.xml"))
        fast = up.subscribe(feed_server.url("/fast.xml"))
        feed_server.clear()
        results = []
        run = threading.Thread(target=lambda: results.extend(up.update([slow, fast])))
        with caplog.at_level(logging.DEBUG, logger="smartreader"):
            run.start()
            assert feed_server.wait_for_requests(2)  # both fetches are out
            unsubscribe(store, slow)
            run.join(10)
        by_feed = {r.feed_id: r for r in results}
        assert by_feed[slow].status == "skipped" and by_feed[slow].error == "unsubscribed"
        assert by_feed[fast].status == "ok"
        assert [f.id for f in store.feeds()] == [fast]
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("manual", [False, True], ids=["budgeted", "manual"])
def test_a_request_for_a_feed_removed_meanwhile_counts_after_a_restart_if_budgeted(
    tmp_path, feed_server: FeedServer, manual: bool
):
    # The request was made: the 24 h cap must count a budgeted one after a
    # restart, though the feed (and so its fetch-log row) is gone by the time it
    # answers; a manual refresh is outside the budget.
    first, late = Reply(body=rss(item("a")), headers=AS_RSS), rss(item("b"))
    feed_server.route("/slow.xml", [first, Reply(body=late, headers=AS_RSS, delay=1)])
    clock = Clock()
    with store_and_updater(tmp_path / "db.sqlite3", clock) as (store, up):
        slow = up.subscribe(feed_server.url("/slow.xml"))
        before = store.budget_request_times(0)
        clock.t += 3600
        feed_server.clear()
        results = []
        run = threading.Thread(target=lambda: results.extend(up.update([slow], manual=manual)))
        run.start()
        assert feed_server.wait_for_requests(1)
        unsubscribe(store, slow)
        run.join(10)
        assert [r.error for r in results] == ["unsubscribed"]
        spent = before if manual else sorted([*before, clock.t])
        assert store.budget_request_times(0) == spent
