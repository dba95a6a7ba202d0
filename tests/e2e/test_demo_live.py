"""``--demo`` over time: its history is what the plan it shows makes, and opened
at any hour it fetches new articles within its first minute.

Real parts: the demo server over HTTP on 127.0.0.1, a SQLite file, the app's
Updater and scheduler (and in the last test the whole app). Only the clock is the
test's in the first two: the demo world is a pure function of time, so the
quietest night hour can be tried whenever the tests run.
"""

from __future__ import annotations

import calendar
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from smartreader.demo import DemoServer, prefill
from smartreader.storage.store import DB_NAME, Store
from smartreader.updater import Updater

DAY = 86400.0
MONDAY = calendar.timegm((2026, 11, 23, 0, 0, 0))


def at(day: int, hour: float) -> float:
    """A time in the test week: ``day`` 0 = Monday, ``hour`` in UTC."""
    return MONDAY + day * DAY + hour * 3600


@dataclass
class Demo:
    clock: list[float]
    server: DemoServer
    store: Store
    updater: Updater
    ids: dict[str, int]

    def run_until(self, t: float) -> list:
        """Let the updater fetch whatever its plan makes due up to ``t``."""
        results = []
        while True:
            wake = self.updater.next_wakeup()
            if wake is None or wake > t:
                return results
            self.clock[0] = max(self.clock[0], wake)
            results += self.updater.run_due()
            self.clock[0] += 0.5  # the fetches took a moment

    def history_end(self, before: float) -> float:
        return max(r.time for r in self.store.fetch_log(None, limit=50) if r.time < before)


@contextmanager
def demo_opened_at(tmp_path, t: float) -> Iterator[Demo]:
    """The demo's data made at ``t`` and the app's updater opened on it 3 s later,
    as ``DemoSession`` and the app do."""
    clock = [t]
    server = DemoServer(now=lambda: clock[0]).start()
    try:
        with Store(tmp_path / DB_NAME) as store:
            ids = prefill(store, server, now=t)
        clock[0] = t + 3.0
        store = Store(tmp_path / DB_NAME)
        updater = Updater(store, now=lambda: clock[0])
        try:
            yield Demo(clock, server, store, updater, ids)
        finally:
            updater.close()
            store.close()
    finally:
        server.stop()


def _history_per_feed(demo: Demo, end: float) -> dict[str, int]:
    """Each feed's scheduled fetches in the history's last 24 h."""
    return {
        key: sum(
            1
            for r in demo.store.fetch_log(fid, limit=2000)
            if end - DAY < r.time <= end and not r.manual
        )
        for key, fid in demo.ids.items()
    }


@pytest.mark.parametrize("t", [at(1, 3.0), at(3, 14.0)], ids=["Tue-03h", "Thu-14h"])
def test_the_history_is_what_the_plan_shown_makes(tmp_path, t):
    """The Activity page's "N fetches/day" (``explain().share_per_day``) describes
    the fetch log under it. The demo once replayed its history at 400/day and ran
    at 1500/day: "288 fetches/day (every 5 min)" over fetches 35-45 min apart."""
    with demo_opened_at(tmp_path, t) as demo:
        done = _history_per_feed(demo, demo.history_end(t))
        checked = 0
        for key, fid in demo.ids.items():
            plan = demo.updater.explain(fid).share_per_day
            if plan < 20:  # a few fetches a day: 24 h say little about the rate
                continue
            checked += 1
            # the 24 h cap moves some fetches between feeds: within a third
            assert abs(done[key] / plan - 1) <= 0.35, (key, round(plan, 1), done[key])
        assert checked >= 8
        assert sum(done.values()) <= demo.updater.budget()


def test_new_articles_arrive_within_the_first_minute_at_any_hour(tmp_path):
    """Opened at night (when every traced feed is nearly silent), early in the
    morning and at midday, the scheduler's own catch-up fetches new articles
    within the first minute, and the unread count grows by them. (The demo once
    fetched nothing new then: its history ended at the moment it opened.)"""
    hours = {
        "Sun 01:30 (quietest)": at(6, 1.5),
        "Tue 04:00": at(1, 4.0),
        "Thu 12:10": at(3, 12 + 1 / 6),
    }
    found = {}
    for name, t in hours.items():
        path = tmp_path / name.split()[0]
        path.mkdir()
        with demo_opened_at(path, t) as demo:
            unread = sum(demo.store.unread_counts().values())
            requests = demo.server.requests
            results = demo.run_until(t + 60)
            new = sum(r.new_entries for r in results if not r.manual and r.status == "ok")
            # real requests to the demo server, and their articles are stored unread
            assert demo.server.requests - requests >= len(results) > 0, name
            assert sum(demo.store.unread_counts().values()) == unread + new, name
            found[name] = new
    assert all(n > 0 for n in found.values()), found


@pytest.mark.qt_log_level_fail("WARNING")
@pytest.mark.qt_log_ignore("propagateSizeHints")
def test_the_demo_windows_activity_page_matches_its_log(qtbot):
    """The real ``--demo`` window: a feed's "Share of budget" card and its fetch
    log tell the same story."""
    from smartreader.gui.app import AppController, create_app

    ctl = AppController(create_app())
    opened = time.time()
    win = ctl.open(None, demo=True)
    qtbot.addWidget(win)
    try:
        store, demo = win.store, ctl._demo
        end = max(r.time for r in store.fetch_log(None, limit=100) if r.time < opened)
        for key in ("ledger", "wire", "brewhouse"):
            fid = demo.feed_ids[key]
            win.select_feed(fid)
            win.tabs.setCurrentWidget(win.activity)
            card = win.activity.feed_view.share.value
            qtbot.waitUntil(lambda card=card: card.text() not in ("", "—"), timeout=5000)
            shown = float(card.text())
            done = sum(
                1
                for r in store.fetch_log(fid, limit=2000)
                if end - DAY < r.time <= end and not r.manual
            )
            assert abs(done / shown - 1) <= 0.35, (key, shown, done)
    finally:
        ctl.close()
