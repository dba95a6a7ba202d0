"""Feed properties ▸ Maximum interval: a feed's own longest wait between checks,
saved, shown again, refused below the minimum interval, and followed by the
Updater's scheduler once the feed is re-read."""

from __future__ import annotations

import numpy as np
import pytest

from smartreader.gui.dialogs import FeedPropertiesDialog

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]

HOUR = 3600.0


def _dialog(qtbot, store, fid):
    dlg = FeedPropertiesDialog(store, fid)
    qtbot.addWidget(dlg)
    return dlg


def test_the_maximum_interval_is_saved_shown_and_cleared(env, qtbot):
    fid = env.store.add_feed("https://q.example/feed", title="Q")
    dlg = _dialog(qtbot, env.store, fid)
    box = dlg.max_interval
    assert box.currentData() is None and box.currentText() == "As in Settings (1 day)"
    box.setCurrentIndex(box.findData(6 * HOUR))
    dlg.save()
    assert env.store.feed(fid).max_interval == 6 * HOUR
    dlg = _dialog(qtbot, env.store, fid)
    assert (
        dlg.max_interval.currentData() == 6 * HOUR and dlg.max_interval.currentText() == "6 hours"
    )
    dlg.max_interval.setCurrentIndex(0)
    dlg.save()
    assert env.store.feed(fid).max_interval is None


def test_settings_own_value_is_named_and_an_odd_stored_one_shown(env, qtbot):
    env.store.set_setting("max_interval", 2 * 86400.0)
    fid = env.store.add_feed("https://q.example/feed", title="Q")
    env.store.update_feed(fid, max_interval=90 * 60.0)  # from an OPML file, say
    dlg = _dialog(qtbot, env.store, fid)
    assert dlg.max_interval.itemText(0) == "As in Settings (2 days)"
    assert dlg.max_interval.currentData() == 90 * 60.0
    dlg.save()  # OK with no edit changes nothing
    assert env.store.feed(fid).max_interval == 90 * 60.0


def test_a_maximum_below_the_minimum_interval_is_refused(env, qtbot):
    fid = env.store.add_feed("https://q.example/feed", title="Q")
    dlg = _dialog(qtbot, env.store, fid)
    dlg.min_interval.setValue(3 * 60)  # 3 hours
    dlg.max_interval.setCurrentIndex(dlg.max_interval.findData(HOUR))
    dlg.save()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert "shorter than the minimum interval" in dlg.error.text()
    assert env.store.feed(fid).max_interval is None and env.store.feed(fid).min_interval is None


def test_the_scheduler_follows_a_feeds_own_maximum_interval(env, qtbot):
    env.updater.set_budget(30)
    busy = env.store.add_feed("https://busy.example/feed", title="Busy")
    fid = env.store.add_feed("https://q.example/feed", title="Q")
    for f in (busy, fid):
        env.updater.feed_changed(f)
    sched = env.updater.scheduler
    sched.set_lambda(busy, np.full(168, 500.0 / 24))  # it takes what the quiet one leaves
    sched.set_lambda(fid, np.full(168, 0.01 / 24))
    sched.replan(env.updater.now())
    assert sched.explain(fid, env.updater.now()).share_per_day < 2
    dlg = _dialog(qtbot, env.store, fid)
    dlg.max_interval.setCurrentIndex(dlg.max_interval.findData(HOUR))
    dlg.save()
    assert env.store.feed(fid).max_interval == HOUR
    env.updater.feed_changed(fid)  # what Feed properties' OK asks the worker to do
    sched.set_lambda(fid, np.full(168, 0.01 / 24))  # (learned again from its state)
    sched.replan(env.updater.now())
    assert sched.explain(fid, env.updater.now()).share_per_day >= 24 - 1e-6
    assert sched.explain(busy, env.updater.now()).share_per_day < 30 - 24 + 1e-6
