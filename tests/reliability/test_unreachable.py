"""No server answering, through the Updater: real SQLite file, real HTTP on 127.0.0.1.

A host whose port is closed stands for a host that is down; three of them, for the
network being down (every host unreachable). The scheduler's clock is driven by
hand; the requests are real.
"""

from __future__ import annotations

import itertools
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from smartreader.net.fetch import Fetcher
from smartreader.storage.store import Store
from smartreader.updater import Updater, host_of
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import Clock, item, rss, store_and_updater

T0 = 1_800_000_000.0


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed once we leave the block


@pytest.fixture
def clock() -> Clock:
    return Clock(T0)


@pytest.fixture
def app(tmp_path: Path, clock: Clock) -> Iterator[tuple[Store, Updater]]:
    with store_and_updater(tmp_path / "db.sqlite3", clock) as app:
        yield app


def run_until(up: Updater, clock: Clock, end: float) -> list[tuple[float, int, str]]:
    """Run the scheduled fetches up to ``end``: (time, feed, status) of each."""
    made = []
    while True:
        t = up.next_wakeup()
        if t is None or t > end:
            return made
        clock.t = max(clock.t, t)
        made += [(clock.t, r.feed_id, r.status) for r in up.run_due()]


def test_a_host_that_does_not_answer_holds_its_other_feeds(
    app: tuple[Store, Updater], clock: Clock, feed_server: FeedServer
) -> None:
    store, up = app
    down = closed_port()
    a1 = store.add_feed(f"http://127.0.0.1:{down}/a1.xml", now=T0)
    a2 = store.add_feed(f"http://127.0.0.1:{down}/a2.xml", now=T0)
    feed_server.route("/b.xml", Reply(body=rss(item("b", "B"))))
    b = store.add_feed(feed_server.url("/b.xml"), now=T0)
    for fid in (a1, a2, b):
        up.feed_changed(fid)
    made = run_until(up, clock, T0 + 60)
    first_a = [(t, f) for t, f, _ in made if f in (a1, a2)]
    assert len(first_a) == 1  # one try found the host down; the other feed waits
    t_fail = first_a[0][0]
    (host,) = up.scheduler.unreachable_hosts(clock.t)
    assert host == f"127.0.0.1:{down}"
    until = up.scheduler.unreachable_hosts(clock.t)[host][1]
    assert until - t_fail >= 0.75 * 1800
    assert (b, "ok") in [(f, s) for _, f, s in made]
    # the try no server saw is logged (the feed shows its error) but spends no budget
    (row,) = [r for r in store.fetch_log() if r.feed_id in (a1, a2)]
    assert row.unreachable and row.status == "error" and "could not connect" in (row.error or "")
    assert up.requests_today() == 1  # b's
    assert store.budget_request_times(0.0) == [t for t, f, _ in made if f == b]
    # nothing goes to the host before its wait is over
    later = run_until(up, clock, until - 1)
    assert all(f == b for _, f, _ in later)
    second = run_until(up, clock, until + 120)
    assert [f for _, f, _ in second if f in (a1, a2)]  # then one tries again


def test_the_network_down_spends_nothing_and_comes_back_spread(
    app: tuple[Store, Updater], clock: Clock, tmp_path: Path
) -> None:
    store, up = app
    servers = [FeedServer() for _ in range(3)]
    ports = [srv.port for srv in servers]
    feeds = []
    for srv in servers:
        for k in range(3):
            srv.route(f"/f{k}.xml", Reply(body=rss(item(f"{srv.port}-{k}", "x"))))
            feeds.append(store.add_feed(srv.url(f"/f{k}.xml"), now=T0))
        srv.start()
    for fid in feeds:
        up.feed_changed(fid)
    try:
        first = run_until(up, clock, T0 + 120)  # every feed answers once
        assert {f for _, f, s in first if s == "ok"} == set(feeds)
    finally:
        for srv in servers:
            srv.stop()  # the network goes: no server answers anywhere
    # the app starts again (its kept-alive connections gone with the network)
    up.close()
    up = Updater(store, fetcher=Fetcher(trust_env=False, now=clock), now=clock)
    used = up.requests_today()
    made = run_until(up, clock, T0 + 2 * 86400)  # the feeds fall due meanwhile
    down = up.network_down()
    assert down is not None
    # three tries found it, then one feed at a time, ever less often: 1, 2, 4, 8 min
    # apart, then every 15 min (the feeds fell due over a day and a half)
    late = sorted(t for t, _, _ in made if t > down[0] + 1)
    assert late and all(b - a >= 60 - 1e-6 for a, b in itertools.pairwise(late))
    assert len(late) <= 5 + (late[-1] - late[0]) / 900
    assert up.requests_today() == 0 <= used
    assert all(up.scheduler.export_state(f)["err_count"] == 0 for f in feeds)
    # ... as saved: the first failures, saved with a back-off before the network was
    # found down, were saved again without it
    assert all(store.feed(f).scheduler_state["err_count"] == 0 for f in feeds)
    # a restart keeps it so: the log's tries are not requests of the budget
    up2 = Updater(store, fetcher=up.fetcher, now=clock)
    assert up2.requests_today() == 0
    # the network is back (the servers are up again on the same ports)
    again = [FeedServer(port=p) for p in ports]
    try:
        for srv in again:
            for k in range(3):
                srv.route(f"/f{k}.xml", Reply(body=rss(item(f"{srv.port}-{k}", "x"))))
            srv.start()
        up.network_back()  # as the system's network information says
        back = run_until(up, clock, clock.t + 120)
        assert up.network_down() is None
        assert {f for _, f, s in back if s == "ok"} == set(feeds)
        times = sorted(t for t, _, _ in back)
        # the feeds that fell due are spread, not burst: a couple of seconds apart
        assert times[-1] - times[0] >= (len(feeds) - 2) * up.scheduler.config.catchup_spacing
    finally:
        for srv in again:
            srv.stop()
        up.close()


def test_host_of_spells_the_hosts_as_the_scheduler_does() -> None:
    # the unreachable host (a redirect's target) is named like the feeds' hosts
    assert host_of("http://127.0.0.1:8080/x") == "127.0.0.1:8080"
    assert host_of("https://example.org/x") == "example.org"
