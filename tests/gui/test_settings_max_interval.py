"""Settings ▸ Maximum interval per feed: how long a quiet feed may go unchecked.

The real ``Updater`` (and so the real scheduler) over a real SQLite file, and the
real worker thread; the feeds' hosts are ``.invalid`` and nothing polls them.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.errors import UsageError
from smartreader.gui.settings import MAX_INTERVAL_CHOICES, SettingsDialog
from smartreader.gui.worker import SchedulerThread
from smartreader.updater import DEFAULT_MAX_INTERVAL, Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

HOUR, DAY, WEEK = 3600.0, 86_400.0, 7 * 86_400.0


def _updater(request, store):
    up = Updater(store)
    request.addfinalizer(up.close)
    return up


def _dialog(qtbot, request, store):
    up = _updater(request, store)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    return up, dlg


def _choose(dlg, seconds):
    i = dlg.max_interval.findData(seconds)
    assert i >= 0, seconds
    dlg.max_interval.setCurrentIndex(i)


@pytest.fixture
def portfolio(store):
    """One busy feed and nine that post an item every 20 days, already learned."""
    now = time.time()
    teacher = Scheduler(SchedulerConfig(), now)
    ids = []
    for i in range(10):
        fid = store.add_feed(f"https://feed{i}.invalid/rss.xml", title=f"Feed {i}", now=now)
        teacher.add_feed(fid, host=f"feed{i}.invalid", capacity=1000)
        teacher.set_lambda(fid, np.full(168, (50.0 if i == 0 else 0.05) / 24))
        ids.append(fid)
    store.save_scheduler_state({fid: teacher.export_state(fid) for fid in ids})
    store.set_setting("budget_per_day", 20.0)
    return ids


def test_the_choice_is_saved_applied_by_the_worker_and_read_at_the_next_start(
    qtbot, request, store, portfolio
):
    up = _updater(request, store)
    assert up.max_interval() == DEFAULT_MAX_INTERVAL == DAY
    quiet = portfolio[1]
    assert up.explain(quiet).share_per_day == pytest.approx(1.0)  # the 1-day floor
    sched = SchedulerThread(up, autostart_polling=False)
    try:
        with qtbot.wait_signal(sched.statusChanged, timeout=5000):
            sched.start()
        dlg = SettingsDialog(store, up)
        qtbot.addWidget(dlg)
        assert dlg.max_interval.currentText() == "1 day"
        dlg.maxIntervalChanged.connect(sched.set_max_interval)
        _choose(dlg, WEEK)
        assert up.max_interval() == DAY  # nothing applied before OK
        with (
            qtbot.assert_not_emitted(sched.errorOccurred),
            qtbot.assert_not_emitted(dlg.minIntervalChanged),
            qtbot.wait_signal(dlg.maxIntervalChanged) as sig,
        ):
            dlg.accept()
        assert sig.args == [WEEK]
        assert store.get_setting("max_interval") == WEEK
        qtbot.waitUntil(lambda: up.max_interval() == WEEK, timeout=5000)
        # the quiet feeds now wait up to a week; the busy one gets their requests
        assert up.explain(quiet).share_per_day < 0.9
    finally:
        assert sched.shutdown()
    restarted = _updater(request, store)
    assert restarted.max_interval() == WEEK
    again = SettingsDialog(store, restarted)
    qtbot.addWidget(again)
    assert again.max_interval.currentText() == "1 week"


def test_an_untouched_choice_is_not_written(qtbot, request, store):
    _up, dlg = _dialog(qtbot, request, store)
    dlg.budget_spin.setValue(321)
    with qtbot.assert_not_emitted(dlg.maxIntervalChanged):
        dlg.accept()
    assert store.get_setting("max_interval") is None


def test_restore_defaults_comes_back_to_a_day(qtbot, request, store):
    store.set_setting("max_interval", 6 * HOUR)
    _up, dlg = _dialog(qtbot, request, store)
    assert dlg.max_interval.currentText() == "6 hours"
    dlg._restore_defaults()
    assert dlg.max_interval_s() == DAY
    with qtbot.wait_signal(dlg.maxIntervalChanged) as sig:
        dlg.accept()
    assert sig.args == [DAY] and store.get_setting("max_interval") == DAY


def test_a_value_set_elsewhere_is_shown_in_its_place(qtbot, request, store):
    store.set_setting("max_interval", 36 * HOUR)
    _up, dlg = _dialog(qtbot, request, store)
    combo = dlg.max_interval
    assert combo.count() == len(MAX_INTERVAL_CHOICES) + 1
    assert combo.currentText() == "1 d 12 h"
    assert combo.itemText(combo.currentIndex() - 1) == "1 day"
    assert combo.itemText(combo.currentIndex() + 1) == "2 days"
    with qtbot.assert_not_emitted(dlg.maxIntervalChanged):
        dlg.accept()
    assert store.get_setting("max_interval") == 36 * HOUR


@pytest.mark.parametrize("stored", [0.0, 60.0, 30 * DAY, "soon"])
def test_a_stored_value_out_of_range_falls_back_to_a_day(request, store, stored):
    store.set_setting("max_interval", stored)
    assert _updater(request, store).max_interval() == DAY


def test_the_updater_refuses_a_maximum_outside_an_hour_to_a_week(request, store):
    up = _updater(request, store)
    for bad in (59 * 60.0, 8 * DAY, float("inf"), float("nan")):
        with pytest.raises(UsageError, match="maximum interval"):
            up.set_max_interval(bad)
    assert up.max_interval() == DAY and store.get_setting("max_interval") is None
    up.set_max_interval(2 * HOUR)
    assert up.max_interval() == 2 * HOUR and store.get_setting("max_interval") == 2 * HOUR


def test_a_maximum_below_the_minimum_cannot_be_chosen(qtbot, request, store):
    _up, dlg = _dialog(qtbot, request, store)
    combo = dlg.max_interval
    model = combo.model()

    def enabled(seconds):
        return model.item(combo.findData(seconds)).isEnabled()

    assert all(enabled(s) for s, _ in MAX_INTERVAL_CHOICES)  # 15 min minimum
    dlg.min_interval.setValue(4 * 60)  # 4 h
    assert not enabled(HOUR) and not enabled(3 * HOUR) and enabled(6 * HOUR)
    assert combo.currentText() == "1 day"  # it was above: unchanged
    _choose(dlg, 6 * HOUR)
    dlg.min_interval.setValue(8 * 60)  # past the maximum: it follows, to 12 h
    assert combo.currentText() == "12 hours"
    assert not enabled(6 * HOUR)
    dlg.min_interval.setValue(30)
    assert enabled(HOUR) and combo.currentText() == "12 hours"  # no way back down


def test_the_estimate_follows_the_choice_before_it_is_applied(qtbot, request, store, portfolio):
    up, dlg = _dialog(qtbot, request, store)
    day = dlg.estimate.text()
    _choose(dlg, WEEK)
    dlg._update_estimate()  # the dialog's debounce timer, run now
    week = dlg.estimate.text()
    assert week != day
    smart_day = up.estimate_delay_for_budget(20.0, None, DAY)[0]
    smart_week = up.estimate_delay_for_budget(20.0, None, WEEK)[0]
    assert smart_week < 0.9 * smart_day
    assert up.max_interval() == DAY


def test_too_small_a_budget_for_the_maximum_interval_is_said(qtbot, request, store, portfolio):
    store.set_setting("budget_per_day", 30.0)
    _up, dlg = _dialog(qtbot, request, store)
    dlg._update_estimate()
    assert "⚠" not in dlg.estimate.text()  # 10 feeds, one a day each: 10 of 30
    _choose(dlg, 6 * HOUR)
    dlg._update_estimate()
    text = dlg.estimate.text()
    assert "Too few requests for the maximum interval" in text
    assert "10 feeds at least every 6 hours takes 40 requests/day" in text
    _choose(dlg, 12 * HOUR)
    dlg._update_estimate()
    assert "⚠" not in dlg.estimate.text()  # 20 of 30
    # a week: fewer requests than feeds is what the user asked for
    dlg.budget_spin.setValue(5)
    _choose(dlg, WEEK)
    dlg._update_estimate()
    assert "⚠" not in dlg.estimate.text()
    _choose(dlg, DAY)
    dlg._update_estimate()
    assert "Fewer requests than feeds" in dlg.estimate.text()
