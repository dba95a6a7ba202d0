"""Settings: the budget reaches the scheduler through the worker, feedback is live,
and preferences persist."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from smartreader.gui.settings import SettingsDialog, curve_budgets
from smartreader.gui.worker import SchedulerThread
from smartreader.storage.store import Store

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


class FakeUpdater:
    """Stand-in until core.scheduler lands (see the report)."""

    def __init__(self, store):
        self.store = store
        self.calls = []
        self.applied = None

    def budget(self):
        return float(self.store.get_setting("budget_per_day", 1000.0))

    def set_budget(self, b):
        self.store.set_setting("budget_per_day", float(b))
        self.applied = float(b)

    def set_min_interval(self, s):
        self.store.set_setting("min_interval", float(s))

    def estimate_delay_for_budget(self, b):
        self.calls.append(b)
        return 20 * 86400 / b * 0.6, 20 * 86400 / b

    def next_wakeup(self):
        return None

    def requests_today(self):
        return 0


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "db.sqlite3")
    yield s
    s.close()


def test_budget_change_reaches_scheduler_via_worker(qtbot, store):
    up = FakeUpdater(store)
    sched = SchedulerThread(up)
    sched.start()
    try:
        dlg = SettingsDialog(store, up)
        qtbot.addWidget(dlg)
        dlg.budgetChanged.connect(sched.set_budget)
        dlg.budget_spin.setValue(480)
        with qtbot.wait_signal(
            sched.statusChanged, timeout=5000, check_params_cb=lambda s: s.budget == 480.0
        ):
            dlg.accept()
        assert up.budget() == 480.0
        assert up.applied == 480.0
    finally:
        assert sched.shutdown()
    assert sched.qthread.isFinished()


def test_feedback_follows_the_slider_cheaply(qtbot, store):
    store.set_setting("budget_per_day", 300.0)
    up = FakeUpdater(store)
    dlg = SettingsDialog(store, up)
    qtbot.addWidget(dlg)
    assert dlg.budget() == 300
    assert len(up.calls) <= 25  # ~20 curve points + the current value
    budgets, smart, fixed = dlg.curve.series()
    assert len(budgets) == 20 and all(s < f for s, f in zip(smart, fixed, strict=True))
    before = dlg.estimate.text()
    assert "300" in before and "shorter" in before
    dlg.budget_slider.setValue(dlg.budget_slider.value() + 100)
    qtbot.wait_until(lambda: dlg.estimate.text() != before, timeout=2000)
    assert f"{dlg.budget():,.0f}" in dlg.estimate.text()


def test_cancel_changes_nothing_and_prefs_persist(qtbot, store, tmp_path):
    up = FakeUpdater(store)
    prefs = QSettings(str(tmp_path / "ui.ini"), QSettings.Format.IniFormat)
    dlg = SettingsDialog(store, up, prefs)
    qtbot.addWidget(dlg)
    with qtbot.assert_not_emitted(dlg.budgetChanged):
        dlg.budget_spin.setValue(77)
        dlg.reject()
    assert store.get_setting("budget_per_day") is None

    dlg = SettingsDialog(store, up, prefs)
    qtbot.addWidget(dlg)
    dlg.min_interval.setValue(30)
    dlg.theme.setCurrentIndex(dlg.theme.findData("dark"))
    dlg.notifications.setChecked(False)
    with (
        qtbot.wait_signal(dlg.minIntervalChanged) as mi,
        qtbot.wait_signal(dlg.themeChanged) as th,
        qtbot.wait_signal(dlg.notificationsChanged) as no,
    ):
        dlg.accept()
    assert mi.args == [1800.0] and th.args == ["dark"] and no.args == [False]
    assert store.get_setting("min_interval") == 1800.0
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


def test_a_damaged_stored_budget_opens_on_the_defaults(qtbot, store):
    from smartreader.gui.settings import DEFAULT_BUDGET, DEFAULT_MIN_INTERVAL
    from smartreader.updater import Updater

    store.set_setting("budget_per_day", "lots")  # not a number
    store.set_setting("min_interval", float("nan"))
    dlg = SettingsDialog(store, Updater(store))
    qtbot.addWidget(dlg)
    assert dlg.budget() == DEFAULT_BUDGET
    assert dlg.min_interval.value() == DEFAULT_MIN_INTERVAL / 60
