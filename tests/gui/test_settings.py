"""Settings: the budget reaches the scheduler through the worker, feedback is live,
and preferences persist.

Everything runs on the real ``Updater`` (and so the real ``core.scheduler``) over a
real SQLite file in ``tmp_path``. The feeds' learned posting rhythms are computed by
a real ``Scheduler`` and stored the way the app stores them; their hosts are
``.invalid`` and nothing here polls them, so no test touches the network.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from smartreader.core.scheduler import Scheduler, SchedulerConfig
from smartreader.gui.charts import humanize_duration
from smartreader.gui.settings import (
    CURVE_POINTS,
    DEFAULT_BUDGET,
    DEFAULT_MIN_INTERVAL,
    SettingsDialog,
    curve_budgets,
)
from smartreader.gui.worker import SchedulerThread
from smartreader.storage.store import Store
from smartreader.updater import Updater

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

# Weekday posting hours and items/hour at those hours; a trickle otherwise. Bursty
# feeds are where smart polling beats a fixed interval. 24 of them, so the default
# 15-minute minimum interval (96 requests/day/feed) does not cap the budgets shown.
PROFILES = (((8, 9, 10), 2.0), ((12, 13), 1.0), ((18, 19, 20, 21), 0.5))
N_FEEDS = 24


class CountingUpdater(Updater):
    """The real updater; only records which budgets the dialog asked estimates for."""

    def __init__(self, store: Store) -> None:
        self.calls: list[float] = []
        super().__init__(store)

    def estimate_delay_for_budget(
        self,
        budget_per_day: float,
        min_interval: float | None = None,
        max_interval: float | None = None,
    ) -> tuple[float, float]:
        self.calls.append(budget_per_day)
        return super().estimate_delay_for_budget(budget_per_day, min_interval, max_interval)


@pytest.fixture
def feeds(store):
    """Subscriptions whose rhythm is already learned, as left by earlier runs."""
    now = time.time()
    teacher = Scheduler(SchedulerConfig(), now)
    ids = []
    for i in range(N_FEEDS):
        hours, rate = PROFILES[i % len(PROFILES)]
        lam = np.full(168, 0.01)
        for day in range(5):
            lam[[day * 24 + h for h in hours]] = rate
        fid = store.add_feed(f"https://feed{i}.invalid/rss.xml", title=f"Feed {i}", now=now)
        teacher.add_feed(fid, host=f"feed{i}.invalid")
        teacher.set_lambda(fid, lam)
        ids.append(fid)
    store.save_scheduler_state({fid: teacher.export_state(fid) for fid in ids})
    return ids


def _updater(request, store, cls=Updater):
    up = cls(store)
    request.addfinalizer(up.close)
    return up


def test_budget_change_reaches_scheduler_via_worker(qtbot, request, store, feeds):
    up = _updater(request, store)
    assert up.summary().budget_per_day == DEFAULT_BUDGET
    # Polling stays off: the learned feeds are all due, and fetching is not the subject.
    sched = SchedulerThread(up, autostart_polling=False)
    try:
        with qtbot.wait_signal(sched.statusChanged, timeout=5000) as first:
            sched.start()  # the worker's first status is out before anything changes
        assert first.args[0].budget == DEFAULT_BUDGET
        dlg = SettingsDialog(store, up)
        qtbot.addWidget(dlg)
        dlg.budgetChanged.connect(sched.set_budget)
        dlg.budget_spin.setValue(480)
        assert up.summary().budget_per_day == DEFAULT_BUDGET  # nothing applied before OK
        with (
            qtbot.assert_not_emitted(sched.errorOccurred),
            qtbot.wait_signal(
                sched.statusChanged, timeout=5000, check_params_cb=lambda s: s.budget == 480.0
            ),
        ):
            dlg.accept()
        assert store.get_setting("budget_per_day") == 480.0
        assert up.budget() == 480.0
        # the running scheduler took it: it now plans 480 requests a day, not 1000
        plan = up.summary()
        assert plan.budget_per_day == 480.0
        assert plan.planned_per_day == pytest.approx(480.0, rel=0.01)
    finally:
        assert sched.shutdown()
    assert sched.qthread.isFinished()
    # ... and the next start reads it from the database
    restarted = _updater(request, store)
    assert restarted.summary().budget_per_day == 480.0
    again = SettingsDialog(store, restarted)
    qtbot.addWidget(again)
    assert again.budget() == 480


def test_feedback_follows_the_slider_cheaply(qtbot, request, store, feeds):
    store.set_setting("budget_per_day", 300.0)
    up = _updater(request, store, CountingUpdater)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert dlg.budget() == 300
    assert len(up.calls) <= CURVE_POINTS + 5  # ~20 curve points + the current value

    # the curve is the scheduler's estimate at ~20 budgets around the current one
    budgets, smart, fixed = dlg.curve.series()
    assert budgets == pytest.approx(curve_budgets(300))
    real = [up.estimate_delay_for_budget(b) for b in budgets]
    assert smart == pytest.approx([s for s, _ in real])
    assert fixed == pytest.approx([f for _, f in real])
    assert all(s < f for s, f in zip(smart, fixed, strict=True))
    assert smart == sorted(smart, reverse=True) and smart[0] > smart[-1]  # more buys less

    # the sentence quotes the scheduler's numbers for this budget
    before = dlg.estimate.text()
    s300, f300 = up.estimate_delay_for_budget(300.0)
    assert "<b>300</b>" in before and "shorter" in before
    assert f"<b>{humanize_duration(s300)}</b>" in before
    assert f"same requests: {humanize_duration(f300)}" in before
    assert f"{100 * (1 - s300 / f300):.0f} % shorter" in before
    # ... which at the saved budget are the plan's own, as the overview shows them
    plan = up.summary()
    assert s300 == pytest.approx(plan.expected_mean_delay_s)
    assert f300 == pytest.approx(plan.fixed_interval_mean_delay_s)

    calls = len(up.calls)
    dlg.budget_slider.setValue(dlg.budget_slider.value() + 100)
    qtbot.wait_until(lambda: dlg.estimate.text() != before, timeout=2000)
    b = dlg.budget()
    assert b > 300
    # one estimate for the move; the curve still covers it and is not recomputed
    assert up.calls[calls:] == [b]
    assert dlg.curve.series()[0] == budgets
    after = dlg.estimate.text()
    assert f"<b>{b:,.0f}</b>" in after
    s_b, f_b = up.estimate_delay_for_budget(b)
    assert s_b < s300  # the real estimate moved with the budget ...
    assert f"<b>{humanize_duration(s_b)}</b>" in after  # ... and the label with it
    assert f"same requests: {humanize_duration(f_b)}" in after


def test_estimate_follows_the_minimum_interval_shown(qtbot, request, store, feeds):
    """The minimum interval in the box, not yet saved, is what the estimate assumes:
    at 2000 requests/day for 24 feeds a 60 min minimum (24/day each) caps them all."""
    store.set_setting("budget_per_day", 2000.0)
    up = _updater(request, store)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    before = dlg.estimate.text()
    s15, f15 = up.estimate_delay_for_budget(2000.0)  # the saved 15 min
    assert f"<b>{humanize_duration(s15)}</b>" in before

    dlg.min_interval.setValue(60)
    qtbot.wait_until(lambda: dlg.estimate.text() != before, timeout=2000)
    s60, f60 = up.estimate_delay_for_budget(2000.0, 3600.0)
    assert s60 > s15 and f60 == pytest.approx(1800.0)  # fixed: every 60 min at best
    after = dlg.estimate.text()
    assert f"<b>{humanize_duration(s60)}</b>" in after
    # 24 feeds × 24/day: the fixed interval uses only those, not the whole 2000
    assert f"the 576 usable requests: {humanize_duration(f60)}" in after
    # the whole curve was redrawn for 60 min, not only the marker
    budgets, smart, fixed = dlg.curve.series()
    assert smart == pytest.approx([up.estimate_delay_for_budget(b, 3600.0)[0] for b in budgets])
    assert fixed == pytest.approx([up.estimate_delay_for_budget(b, 3600.0)[1] for b in budgets])
    # nothing was applied: the running scheduler keeps 15 min until OK
    assert up.scheduler.config.min_interval == DEFAULT_MIN_INTERVAL
    assert up.estimate_delay_for_budget(2000.0) == (s15, f15)


def test_without_feeds_there_is_no_estimate_yet(qtbot, request, store):
    up = _updater(request, store)
    assert up.estimate_delay_for_budget(DEFAULT_BUDGET) == (float("inf"), float("inf"))
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert "No estimate yet" in dlg.estimate.text()
    assert dlg.curve.series() == ([], [], [])


def test_cancel_changes_nothing_and_prefs_persist(qtbot, request, store, tmp_path):
    up = _updater(request, store)
    prefs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    dlg = SettingsDialog(store, up, prefs)
    qtbot.addWidget(dlg)
    with qtbot.assert_not_emitted(dlg.budgetChanged):
        dlg.budget_spin.setValue(77)
        dlg.reject()
    assert store.get_setting("budget_per_day") is None
    assert up.budget() == DEFAULT_BUDGET
    assert up.summary().budget_per_day == DEFAULT_BUDGET

    dlg = SettingsDialog(store, up, prefs)
    qtbot.addWidget(dlg)
    assert dlg.budget() == DEFAULT_BUDGET  # the cancelled 77 is gone
    dlg.min_interval.setValue(30)
    dlg.theme.setCurrentIndex(dlg.theme.findData("dark"))
    dlg.notifications.setChecked(False)
    with (
        qtbot.assert_not_emitted(dlg.budgetChanged),
        qtbot.wait_signal(dlg.minIntervalChanged) as mi,
        qtbot.wait_signal(dlg.themeChanged) as th,
        qtbot.wait_signal(dlg.notificationsChanged) as no,
    ):
        dlg.accept()
    assert mi.args == [1800.0] and th.args == ["dark"] and no.args == [False]
    assert store.get_setting("min_interval") == 1800.0
    assert store.get_setting("budget_per_day") is None  # unchanged: not written
    # The dialog applies nothing to the running scheduler (the main window forwards
    # the signal to the worker); an updater started on this database reads it.
    assert up.scheduler.config.min_interval == DEFAULT_MIN_INTERVAL
    assert _updater(request, store).scheduler.config.min_interval == 1800.0

    again = SettingsDialog(store, up, prefs)
    qtbot.addWidget(again)
    assert again.theme.currentData() == "dark"
    assert not again.notifications.isChecked()
    assert again.min_interval.value() == 30
    assert again.data_folder.text() == str(tmp_path) and again.data_folder.isReadOnly()


def test_curve_budgets_are_log_spaced_and_clamped():
    pts = curve_budgets(100)
    assert len(pts) == 20 and pts[0] == pytest.approx(10) and pts[-1] == pytest.approx(1000)
    assert curve_budgets(2)[0] >= 1


def test_a_damaged_stored_budget_opens_on_the_defaults(qtbot, request, store):
    store.set_setting("budget_per_day", "lots")  # not a number
    store.set_setting("min_interval", float("nan"))
    up = _updater(request, store)  # starts on the defaults too
    assert up.budget() == DEFAULT_BUDGET
    assert up.scheduler.config.min_interval == DEFAULT_MIN_INTERVAL
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert dlg.budget() == DEFAULT_BUDGET
    assert dlg.min_interval.value() == DEFAULT_MIN_INTERVAL / 60
    # the next save overwrites the damaged row
    dlg.budget_spin.setValue(480)
    with qtbot.wait_signal(dlg.budgetChanged) as sig:
        dlg.accept()
    assert sig.args == [480.0]
    assert store.get_setting("budget_per_day") == 480.0
    # the open updater runs on until the worker applies it; the next start reads it
    assert up.budget() == DEFAULT_BUDGET
    assert _updater(request, store).budget() == 480.0


def test_a_budget_below_what_the_last_day_used_says_when_checks_resume(
    qtbot, request, store, feeds
):
    store.set_setting("budget_per_day", 300.0)
    up = _updater(request, store)
    now = time.time()
    # 120 requests over the last 24 h, the oldest 20 h ago
    times = [now - 20 * 3600 + k * 600 for k in range(120)]
    up.scheduler.restore_requests(times, now)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert "already used" not in dlg.estimate.text()  # 300 > 120: nothing to say
    dlg.budget_spin.setValue(50)
    qtbot.waitUntil(lambda: "already used" in dlg.estimate.text(), timeout=3000)
    text = dlg.estimate.text()
    assert "already used 120 requests" in text and "no feed is checked for" in text
    # 50 may stand in the last 24 h: free once the 71st oldest (times[70]) is a day old
    free = up.request_free_at(50.0)
    assert free == pytest.approx(times[70] + 86400)
    assert time.strftime("%H:%M", time.localtime(free)) in text
    dlg.budget_spin.setValue(200)
    qtbot.waitUntil(lambda: "already used" not in dlg.estimate.text(), timeout=3000)


def test_ok_leaves_a_minimum_interval_the_box_rounds_as_stored(qtbot, request, store):
    # 7.5 min (set by a script or an older version) shows as 8 min; OK without
    # touching the box must not round the stored value.
    store.set_setting("min_interval", 450.0)
    up = _updater(request, store)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert dlg.min_interval.value() == 8
    with qtbot.assert_not_emitted(dlg.minIntervalChanged):
        dlg.accept()
    assert store.get_setting("min_interval") == 450.0

    # changing it writes what the box says
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    dlg.min_interval.setValue(9)
    with qtbot.wait_signal(dlg.minIntervalChanged) as sig:
        dlg.accept()
    assert sig.args == [540.0]
    assert store.get_setting("min_interval") == 540.0
