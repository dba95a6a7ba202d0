"""Feed properties ▸ Site's limit: the least time between two requests to a feed's
site, for every feed there; saved, shown again (for the site's other feeds too),
cleared, and followed by the Updater's scheduler once the feed is re-read."""

from __future__ import annotations

import pytest

from smartreader.updater import HOST_GAPS, host_gaps_of
from tests.gui.test_feed_max_interval import _dialog

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore("propagateSizeHints"),
]


def test_the_sites_limit_is_saved_shared_by_its_feeds_and_cleared(env, qtbot):
    a = env.store.add_feed("https://www.reddit.example/r/a/.rss", title="A")
    b = env.store.add_feed("https://www.reddit.example/r/b/.rss", title="B")
    other = env.store.add_feed("https://q.example/feed", title="Q")
    dlg = _dialog(qtbot, env.store, a)
    box = dlg.site_gap
    assert box.currentData() is None and box.currentText() == "None of its own"
    assert "www.reddit.example" in box.toolTip()
    box.setCurrentIndex(box.findData(60.0))
    assert box.currentText() == "One request every 1 min"
    dlg.save()
    assert dlg.result() == dlg.DialogCode.Accepted
    assert host_gaps_of(env.store) == {"www.reddit.example": 60.0}
    # the site's other feed shows it; another site's does not
    assert _dialog(qtbot, env.store, b).site_gap.currentData() == 60.0
    assert _dialog(qtbot, env.store, other).site_gap.currentData() is None
    for f in (a, b):
        env.updater.feed_changed(f)  # what OK asks the worker to do
    assert env.updater.scheduler.host_gap("www.reddit.example") == 60.0
    note = [n for n in env.updater.explain(b).notes if "takes one request" in n]
    assert note == ["www.reddit.example takes one request every 1 min (its limit): its 2 "
                    "feeds there share that"]  # fmt: skip
    dlg = _dialog(qtbot, env.store, b)
    dlg.site_gap.setCurrentIndex(0)
    dlg.save()
    assert host_gaps_of(env.store) == {}
    env.updater.feed_changed(b)
    assert env.updater.scheduler.host_gap("www.reddit.example") == 1.0


def test_an_odd_stored_limit_is_shown_and_kept_and_a_damaged_one_ignored(env, qtbot):
    fid = env.store.add_feed("https://slow.example/feed", title="S")
    env.store.set_setting(HOST_GAPS, {"slow.example": 45.0, "bad.example": "x", "": -1})
    assert host_gaps_of(env.store) == {"slow.example": 45.0}
    dlg = _dialog(qtbot, env.store, fid)
    assert dlg.site_gap.currentData() == 45.0
    assert dlg.site_gap.currentText() == "One request every 45 s"
    dlg.save()  # OK with no edit changes nothing
    assert host_gaps_of(env.store) == {"slow.example": 45.0}
    env.store.set_setting(HOST_GAPS, ["not", "a", "mapping"])
    assert host_gaps_of(env.store) == {}
    assert _dialog(qtbot, env.store, fid).site_gap.currentData() is None
