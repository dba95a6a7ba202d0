"""A site's own limit through the Updater: real SQLite file, real HTTP on 127.0.0.1.

Refresh sends every feed at once (up to the per-host concurrency); a site that
takes one request a minute refuses the rest. With the site's limit set, each of
its feeds waits its turn, a quit cancels the waits, and another site is not held.
"""

from __future__ import annotations

import itertools
import threading
import time
from pathlib import Path

import pytest

from smartreader.errors import UsageError
from smartreader.storage.store import Store
from smartreader.updater import Updater, host_of, set_host_gap
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import item, rss

GAP = 1.0  # the least a site's limit may be; the dialog offers 10 s and more


def _feeds(store: Store, server: FeedServer, n: int, prefix: str) -> list[int]:
    ids = []
    for k in range(n):
        path = f"/{prefix}{k}.xml"
        server.route(path, Reply(body=rss(item(f"{prefix}{k}", "x"))))
        ids.append(store.add_feed(server.url(path)))
    return ids


def test_refresh_waits_for_the_sites_limit_and_other_sites_are_not_held(
    feed_server: FeedServer, tmp_path: Path
) -> None:
    store = Store(tmp_path / "db.sqlite3")
    with FeedServer() as other:
        limited = _feeds(store, feed_server, 4, "r")
        free = _feeds(store, other, 4, "b")
        set_host_gap(store, host_of(feed_server.url("/")), GAP)
        up = Updater(store)
        try:
            results = up.update()
        finally:
            up.close()
        assert all(r.status == "ok" for r in results)
        times = sorted(r.time for r in feed_server.requests)
        assert len(times) == len(limited)
        assert all(b - a >= GAP - 0.05 for a, b in itertools.pairwise(times))
        # the other site's feeds went meanwhile, not after
        assert max(r.time for r in other.requests) < times[-1]
        assert len(other.requests) == len(free)
    store.close()


def test_a_cancel_ends_the_wait_for_the_sites_turn(feed_server: FeedServer, tmp_path: Path) -> None:
    store = Store(tmp_path / "db.sqlite3")
    _feeds(store, feed_server, 3, "r")
    set_host_gap(store, host_of(feed_server.url("/")), 600.0)
    up = Updater(store)
    cancel = threading.Event()
    out: list = []
    run = threading.Thread(target=lambda: out.extend(up.update(cancel=cancel)))
    try:
        run.start()
        deadline = time.monotonic() + 10
        while not feed_server.requests and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.2)  # the next feeds are waiting for the site's turn
        assert len(feed_server.requests) == 1
        cancel.set()
        run.join(timeout=5)
        assert not run.is_alive()
    finally:
        up.close()
    assert sorted(r.status for r in out) == ["ok", "skipped", "skipped"]
    store.close()


def test_a_limit_out_of_range_is_refused_and_clearing_one_keeps_the_others(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / "db.sqlite3")
    with pytest.raises(UsageError, match="between 1 s and 24 h"):
        set_host_gap(store, "a.example", 0.5)
    set_host_gap(store, "a.example", 60.0)
    set_host_gap(store, "b.example", 120.0)
    set_host_gap(store, "a.example", None)
    assert store.get_setting("host_gaps") == {"b.example": 120.0}
    store.close()
