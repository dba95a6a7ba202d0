"""The scheduler worker thread: results arrive by signal, settings reach the
updater, clock jumps re-plan, and shutdown mid-update leaves nothing running."""

from __future__ import annotations

import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from PySide6.QtCore import QTimer

from smartreader.gui.worker import SchedulerStatus, SchedulerThread, SchedulerWorker

# Qt warnings fail the test; the offscreen platform's size-hint notice is noise.
pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


class _Slow(BaseHTTPRequestHandler):
    delay = 0.0

    def do_GET(self) -> None:
        time.sleep(type(self).delay)
        body = b"<rss version='2.0'><channel><title>t</title></channel></rss>"
        self.send_response(200)
        self.send_header("Content-Type", "application/rss+xml")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    t.join(5)


@dataclass(frozen=True)
class R:
    feed_id: int
    status: str
    new_entries: int
    error: str | None
    missed_estimate: float
    alert_id: int | None
    manual: bool
    fetched_at: float


class FakeUpdater:
    def __init__(self, port: int, n: int) -> None:
        self.urls = {i: f"http://127.0.0.1:{port}/f{i}" for i in range(1, n + 1)}
        self._budget = 100.0
        self.replans = 0
        self.wakeup: float | None = None

    def update(self, feed_ids=None, *, manual=True, progress=None, cancel=None):
        ids = list(self.urls) if feed_ids is None else list(feed_ids)

        def one(i):
            if cancel is not None and cancel.is_set():
                return R(i, "skipped", 0, "cancelled", 0.0, None, manual, time.time())
            urllib.request.urlopen(self.urls[i], timeout=10).read()
            return R(i, "ok", 1, None, 2.0 if i == 1 else 0.0, None, manual, time.time())

        out = []
        with ThreadPoolExecutor(2) as pool:
            for fut in as_completed([pool.submit(one, i) for i in ids]):
                out.append(fut.result())
                if progress:
                    progress(len(out), len(ids), out[-1])
        return out

    def run_due(self, *, cancel=None, progress=None):
        self.wakeup = None
        return self.update([1], manual=False, progress=progress, cancel=cancel)

    def next_wakeup(self):
        return self.wakeup

    def replan(self):
        self.replans += 1

    def set_budget(self, b):
        self._budget = b

    def budget(self):
        return self._budget

    def requests_today(self):
        return 0

    def set_min_interval(self, s):
        pass

    def feed_changed(self, fid):
        pass


def _timers_active(worker: SchedulerWorker) -> list[QTimer]:
    return [t for t in worker.findChildren(QTimer) if t.isActive()]


def test_refresh_all_reports_every_feed_and_alerts(qtbot, server):
    _Slow.delay = 0.0
    up = FakeUpdater(server.server_address[1], 4)
    sched = SchedulerThread(up)
    results, alerts = [], []
    sched.feedUpdated.connect(results.append)
    sched.alertRaised.connect(alerts.append)
    sched.start()
    try:
        with qtbot.wait_signal(sched.updateFinished, timeout=10_000):
            sched.refresh_all()
        assert sorted(r.feed_id for r in results) == [1, 2, 3, 4]
        assert [a.feed_id for a in alerts] == [1]
    finally:
        assert sched.shutdown()
    assert sched.qthread.isFinished()
    assert not _timers_active(sched.worker)


def test_budget_reaches_updater_and_status_follows(qtbot, server):
    up = FakeUpdater(server.server_address[1], 1)
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
    finally:
        assert sched.shutdown()


def test_shutdown_mid_update_cancels_and_joins(qtbot, server):
    _Slow.delay = 0.4
    up = FakeUpdater(server.server_address[1], 20)
    sched = SchedulerThread(up)
    results = []
    sched.feedUpdated.connect(results.append)
    sched.start()
    with qtbot.wait_signal(sched.updateStarted, timeout=5000):
        sched.refresh_all()
    time.sleep(0.2)  # two fetches on the wire
    t0 = time.monotonic()
    assert sched.shutdown(timeout_s=10)
    assert time.monotonic() - t0 < 3, "queued fetches must be skipped, not awaited"
    assert sched.qthread.isFinished()
    assert not _timers_active(sched.worker)
    qtbot.wait(50)  # deliver queued signals
    assert len(results) < 20 or any(r.status == "skipped" for r in results)


def test_clock_jump_replans_instead_of_bursting(qtbot, server):
    wall = [1_000_000.0]
    up = FakeUpdater(server.server_address[1], 1)
    up.wakeup = wall[0] + 600  # next fetch planned in 10 minutes
    sched = SchedulerThread(up, wall_clock=lambda: wall[0], heartbeat_ms=50, clock_jump_s=60)
    fetched = []
    sched.feedUpdated.connect(fetched.append)
    sched.start()
    try:
        qtbot.wait(20)
        wall[0] += 8 * 3600  # the laptop slept for 8 hours
        with qtbot.wait_signal(sched.replanned, timeout=5000):
            pass
        assert up.replans == 1
        assert fetched == []
    finally:
        assert sched.shutdown()
    assert not _timers_active(sched.worker)


def test_refresh_clicks_queued_during_a_run_collapse(qtbot, server):
    _Slow.delay = 0.3
    up = FakeUpdater(server.server_address[1], 2)
    sched = SchedulerThread(up)
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
