"""The scheduler worker thread: results arrive by signal, settings reach the
updater, clock jumps re-plan, and shutdown mid-update leaves nothing running."""

from __future__ import annotations

import email.utils
import time

import pytest
from PySide6.QtCore import QTimer

from smartreader.gui.worker import SchedulerStatus, SchedulerThread, SchedulerWorker
from smartreader.storage.store import Store
from smartreader.updater import Updater
from tests.httpserver import FeedServer, Reply
from tests.reliability.support import item, rss

# Qt warnings fail the test; the offscreen platform's size-hint notice is noise.
pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def _reply(items: list[tuple[str, float]], delay: float = 0.0) -> Reply:
    """An RSS reply listing ``(guid, published)`` items."""
    body = rss(
        "".join(
            item(uid, uid, extra=f"<pubDate>{email.utils.formatdate(t, usegmt=True)}</pubDate>")
            for uid, t in items
        )
    )
    return Reply(body=body, headers={"Content-Type": "application/rss+xml"}, delay=delay)


@pytest.fixture
def server():
    with FeedServer() as srv:
        yield srv


@pytest.fixture
def env(tmp_path, server):
    """A real store and updater whose feeds ``/f1``, ``/f2``... live on ``server``."""
    store = Store(tmp_path / "db.sqlite3")
    made: list[Updater] = []

    def make(n: int, *, delay: float = 0.0, now=time.time) -> tuple[Updater, list[int]]:
        ids = []
        for i in range(1, n + 1):
            path = f"/f{i}"
            server.route(path, _reply([(f"f{i}-old", time.time() - 86400)], delay))
            ids.append(store.add_feed(server.url(path), title=f"f{i}"))
        made.append(Updater(store, now=now))
        return made[-1], ids

    yield make
    for up in made:
        up.close()
    store.close()


def _timers_active(worker: SchedulerWorker) -> list[QTimer]:
    return [t for t in worker.findChildren(QTimer) if t.isActive()]


def test_refresh_all_reports_every_feed_and_alerts(qtbot, env, server):
    up, ids = env(4)
    # f1 lists 5 items; by the second refresh 5 newer ones have pushed them all out,
    # the oldest two dated alike (the window ends inside a burst): items were
    # probably missed
    first = [(f"a{k}", time.time() - 3600 - 60 * k) for k in range(5)]
    served = []

    def f1(_req):
        served.append(1)
        if len(served) == 1:
            return _reply(first)
        return _reply([(f"b{k}", time.time() - (k >= 3)) for k in range(5)])

    server.route("/f1", f1)
    sched = SchedulerThread(up, autostart_polling=False)  # only the refreshes fetch
    results, alerts = [], []
    sched.feedUpdated.connect(results.append)
    sched.alertRaised.connect(alerts.append)
    sched.start()
    try:
        with qtbot.wait_signal(sched.updateFinished, timeout=10_000):
            sched.refresh_all()
        assert sorted(r.feed_id for r in results) == ids
        assert all(r.status == "ok" for r in results) and alerts == []
        results.clear()
        time.sleep(2.5)  # the new items are dated (to the second) after the first fetch
        with qtbot.wait_signal(sched.updateFinished, timeout=10_000):
            sched.refresh_all()
        assert sorted(r.feed_id for r in results) == ids
        assert [a.feed_id for a in alerts] == [ids[0]]
        assert alerts[0].missed_estimate >= 1
    finally:
        assert sched.shutdown()
    assert sched.qthread.isFinished()
    assert not _timers_active(sched.worker)


def test_the_status_says_done_before_the_run_is_announced_finished(qtbot, env):
    # a slot of updateFinished (the window's, a test's) must find the status bar
    # already past "Updating…": CI once read it between the two signals
    up, _ids = env(2)
    sched = SchedulerThread(up, autostart_polling=False)
    seen: list[str] = []
    sched.statusChanged.connect(lambda s: seen.append("updating" if s.updating else "idle"))
    sched.updateStarted.connect(lambda _manual: seen.append("started"))
    sched.updateFinished.connect(lambda: seen.append("finished"))
    sched.start()
    try:
        for _ in range(2):
            with qtbot.wait_signal(sched.updateFinished, timeout=10_000):
                sched.refresh_all()
            assert seen[-1] == "finished"
            assert seen[-2] == "idle", seen
            assert "updating" in seen[seen.index("started") :]
            seen.clear()
    finally:
        assert sched.shutdown()


def test_budget_reaches_updater_and_status_follows(qtbot, env):
    up, _ids = env(1)
    sched = SchedulerThread(up)
    sched.start()
    try:
        with qtbot.wait_signal(
            sched.statusChanged,
            timeout=5000,
            check_params_cb=lambda s: isinstance(s, SchedulerStatus) and s.budget == 250.0,
        ):
            sched.set_budget(250.0)
        assert up.budget() == 250.0
        assert up.store.get_number("budget_per_day", 0.0, 0.0, 1e9) == 250.0
    finally:
        assert sched.shutdown()


def test_shutdown_mid_update_cancels_and_joins(qtbot, env, server):
    up, _ids = env(20, delay=0.4)
    sched = SchedulerThread(up, autostart_polling=False)
    results = []
    sched.feedUpdated.connect(results.append)
    sched.start()
    with qtbot.wait_signal(sched.updateStarted, timeout=5000):
        sched.refresh_all()
    assert server.wait_for_requests(1)  # fetches on the wire
    t0 = time.monotonic()
    assert sched.shutdown(timeout_s=10)
    assert time.monotonic() - t0 < 3, "queued fetches must be skipped, not awaited"
    assert sched.qthread.isFinished()
    assert not _timers_active(sched.worker)
    qtbot.wait(50)  # deliver queued signals
    assert len(server.requests) < 20
    assert len(results) < 20 or any(r.status == "skipped" for r in results)


def test_clock_jump_replans_instead_of_bursting(qtbot, env, server):
    wall = [time.time()]
    up, ids = env(5, now=lambda: wall[0])
    sched = SchedulerThread(
        up,
        wall_clock=lambda: wall[0],
        heartbeat_ms=50,
        clock_jump_s=60,
        autostart_polling=False,
    )
    events = []
    sched.feedUpdated.connect(lambda r: events.append(("fetched", r.feed_id, r.manual)))
    sched.replanned.connect(lambda: events.append(("replanned",)))
    sched.start()
    try:
        with qtbot.wait_signal(sched.updateFinished, timeout=10_000):
            sched.refresh_all()  # every feed fetched once; the next fetches are planned
        assert sorted(e[1] for e in events) == ids
        events.clear()
        sched.set_polling(True)
        qtbot.wait(200)
        assert events == [], "nothing is due yet"
        wall[0] += 8 * 3600  # the laptop slept for 8 hours: every feed is overdue
        with qtbot.wait_signal(sched.replanned, timeout=5000):
            pass
        # re-planned first; then the overdue feeds are spread a few seconds apart,
        # and on a clock that has not moved on since, only the first is fetched
        qtbot.waitUntil(lambda: any(e[0] == "fetched" for e in events), timeout=5000)
        qtbot.wait(500)
        assert events[0] == ("replanned",)
        fetched = [e for e in events if e[0] == "fetched"]
        assert len(fetched) == 1 and fetched[0][2] is False
        for _ in range(60):  # the clock moves on again: the rest follow, one by one
            wall[0] += 1.0
            qtbot.wait(100)
            fetched = [e for e in events if e[0] == "fetched"]
            if len(fetched) == 5:
                break
        assert sorted(e[1] for e in fetched) == ids
        assert "replanned" not in [e[0] for e in events[1:]]
    finally:
        assert sched.shutdown()
    assert not _timers_active(sched.worker)


def test_refresh_clicks_queued_during_a_run_collapse(qtbot, env):
    up, _ids = env(2, delay=0.3)
    sched = SchedulerThread(up, autostart_polling=False)
    starts = []
    sched.updateStarted.connect(starts.append)
    sched.start()
    try:
        with qtbot.wait_signal(sched.updateStarted, timeout=5000):
            sched.refresh_all()
        for _ in range(5):  # impatient clicks while the first run is on the wire
            sched.refresh_all()
        qtbot.wait(2000)
        # One more run covers them all (the first may have fetched before the clicks).
        assert starts == [True, True]
    finally:
        assert sched.shutdown()


def test_a_timer_that_fires_a_moment_early_does_not_idle_half_a_minute(qtbot):
    """The next fetch 0.4 ms away, after a run that fetched nothing (the host's
    1 s gap was not over yet): the delay was truncated to 0 ms, read as "due now
    and nothing to fetch", and the worker idled 30 s."""
    wall = 1_800_000_000.0

    class Plan:  # only what arming reads
        def next_wakeup(self) -> float:
            return wall + 0.0004

    worker = SchedulerWorker(Plan(), wall_clock=lambda: wall)
    worker._timer = QTimer(worker)
    worker._timer.setSingleShot(True)
    worker._last_run_fetched = False
    worker._arm()
    assert worker._timer.interval() == 1
    worker._timer.stop()
