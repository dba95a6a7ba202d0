"""Settings at the ends of the budget range: fewer requests than feeds, more than
the feeds can take, a fractional budget from an older version, and when checks
resume after a budget cut (named by day).

A real ``Updater`` over a real SQLite file; the feeds' hosts are ``.invalid`` and
nothing polls them."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from smartreader.gui.settings import SettingsDialog
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

N_FEEDS = 12


@pytest.fixture
def feeds(store):
    now = time.time()
    return [
        store.add_feed(f"https://feed{i}.invalid/rss.xml", title=f"Feed {i}", now=now)
        for i in range(N_FEEDS)
    ]


def open_dialog(qtbot, request, store, **kw):
    up = Updater(store, now=kw.pop("clock", time.time))
    request.addfinalizer(up.close)
    dlg = SettingsDialog(store, up, **kw)
    qtbot.addWidget(dlg)
    return up, dlg


def set_budget(qtbot, dlg, value):
    before = dlg.estimate.text()
    dlg.budget_spin.setValue(value)
    qtbot.wait_until(lambda: dlg.estimate.text() != before, timeout=3000)
    return dlg.estimate.text()


def test_fewer_requests_than_feeds_is_said_with_numbers(qtbot, request, store, feeds):
    store.set_setting("min_interval", 300.0)
    _, dlg = open_dialog(qtbot, request, store)
    text = set_budget(qtbot, dlg, 1)
    assert "Fewer requests than feeds" in text
    assert "with 1 request/day for 12 feeds, at least 11 feeds will be checked less" in text
    assert "<b>1</b> request/day" in text and "1 requests" not in text
    assert dlg.budget_spin.suffix() == " request/day"
    text = set_budget(qtbot, dlg, 5)
    assert "at least 7 feeds" in text and dlg.budget_spin.suffix() == " requests/day"
    text = set_budget(qtbot, dlg, 12)
    assert "Fewer requests" not in text


def test_a_budget_beyond_what_feeds_can_take_says_so(qtbot, request, store, feeds):
    store.set_setting("min_interval", 300.0)
    _, dlg = open_dialog(qtbot, request, store)
    usable = N_FEEDS * 288  # each at most every 5 min
    assert dlg.usable_per_day() == usable
    text = set_budget(qtbot, dlg, 100_000)
    assert f"Above about {usable}/day nothing changes</b> unless you lower the minimum" in text
    # the fixed-interval comparison only has the usable requests to spend
    assert f"the {usable} usable requests" in text and "same requests" not in text
    text = set_budget(qtbot, dlg, usable)
    assert "nothing changes" not in text and "same requests" in text

    # a feed's own minimum interval counts, as the scheduler counts it
    store.update_feed(feeds[0], min_interval=3600.0)
    _, dlg = open_dialog(qtbot, request, store)
    assert dlg.usable_per_day() == (N_FEEDS - 1) * 288 + 24
    text = set_budget(qtbot, dlg, 100_000)
    assert "every 5 min or its own minimum interval" in text


def test_a_stored_fractional_budget_shows_what_is_enforced(qtbot, request, store, feeds):
    store.set_setting("budget_per_day", 1.5)  # an older version took fractions
    _, dlg = open_dialog(qtbot, request, store)
    assert dlg.budget() == 1.0  # the cap is floor(1.5) whole requests, never 2
    assert "<b>1</b> request/day" in dlg.estimate.text()
    with qtbot.assert_not_emitted(dlg.budgetChanged):
        dlg.accept()
    assert store.get_setting("budget_per_day") == 1.5  # untouched: nothing was changed


def test_checks_resume_tomorrow_is_named(qtbot, request, store, feeds, local_tz):
    now = dt.datetime(2026, 11, 24, 12, 0).timestamp()  # local noon
    up, dlg = open_dialog(qtbot, request, store, clock=lambda: now, now=lambda: now)
    # 40 requests in the last 3 h: at 10/day none is free for almost a day
    up.scheduler.restore_requests([now - 3 * 3600 + k * 60 for k in range(40)], now)
    text = set_budget(qtbot, dlg, 10)
    free = up.request_free_at(10.0)
    assert free is not None and free > now + 20 * 3600
    at = dt.datetime.fromtimestamp(free).strftime("%H:%M")
    assert f"until tomorrow {at}" in text
