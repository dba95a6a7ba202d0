"""Missed-item detection after a fetch (Han et al.)."""

from __future__ import annotations

import numpy as np
import pytest

from smartreader.core.estimator import HOUR, MONDAY0, NSLOTS, WEEK
from smartreader.core.missed import check_missed
from smartreader.core.models import ItemSighting

T0 = MONDAY0 + 2900 * WEEK + 12 * HOUR
FLAT = np.full(NSLOTS, 10.0)  # items/hour


def window(times, new=True):
    return tuple(ItemSighting(f"i{k}", t, new) for k, t in enumerate(times))


def test_full_window_of_new_items_newer_than_the_last_fetch_alerts():
    prev, now = T0, T0 + 6 * HOUR
    # 20 items over the last 2 h: the window holds 2 h at 10/h, so ~40 fell in (prev, now − 2 h)
    items = window(np.linspace(now - 2 * HOUR, now, 20))
    mc = check_missed(items, prev, 20, FLAT, now)
    assert mc.alert
    assert mc.estimate == pytest.approx(40.0, rel=0.05)
    assert mc.start == prev
    assert mc.end == pytest.approx(now - 2 * HOUR)


def test_estimate_follows_the_shape_of_lambda():
    prev, now = T0, T0 + 6 * HOUR
    items = window(np.linspace(now - 2 * HOUR, now, 20))
    quiet_gap = FLAT.copy()
    for h in range(4):  # the unseen stretch is a quiet time of day
        quiet_gap[(12 + h) % NSLOTS] = 1.0
    loud = check_missed(items, prev, 20, FLAT, now)
    quiet = check_missed(items, prev, 20, quiet_gap, now)
    assert quiet.alert and quiet.estimate < 0.2 * loud.estimate


def test_window_not_full_means_nothing_was_missed():
    items = window(np.linspace(T0 + HOUR, T0 + 2 * HOUR, 19))
    assert not check_missed(items, T0, 20, FLAT, T0 + 3 * HOUR).alert


def test_an_item_seen_before_means_the_window_reaches_back():
    times = np.linspace(T0 + HOUR, T0 + 2 * HOUR, 20)
    items = (*window(times[1:]), ItemSighting("old", times[0], False))
    assert not check_missed(items, T0, 20, FLAT, T0 + 3 * HOUR).alert


def test_oldest_item_older_than_the_last_fetch_means_nothing_was_missed():
    items = window(np.linspace(T0 - HOUR, T0 + 2 * HOUR, 20))
    assert not check_missed(items, T0, 20, FLAT, T0 + 3 * HOUR).alert


def test_a_window_that_just_filled_up_is_not_an_alert():
    # 20 items in 10 h at ~2/h, the gap before the oldest is 1 minute: P(an item) ≪ ½
    now = T0 + 10 * HOUR
    items = window(np.linspace(T0 + 60, now, 20))
    assert not check_missed(items, T0, 20, np.full(NSLOTS, 2.0), now).alert


def test_unknown_published_times_give_no_alert():
    items = (*window(np.linspace(T0 + HOUR, T0 + 2 * HOUR, 19)), ItemSighting("x", None, True))
    assert not check_missed(items, T0, 20, FLAT, T0 + 3 * HOUR).alert


def test_first_fetch_cannot_miss_anything():
    items = window(np.linspace(T0 + HOUR, T0 + 2 * HOUR, 20))
    assert not check_missed(items, None, 20, FLAT, T0 + 3 * HOUR).alert


def test_a_window_dated_in_the_future_raises_no_alert():
    # a feed whose clock runs 5 h ahead: its 20 newest items look younger than they
    # are, and the window seems to start after the last fetch although nothing was lost
    prev, now = T0, T0 + 6 * HOUR
    items = window(np.linspace(now - 3 * HOUR, now + 5 * HOUR, 20))
    assert not check_missed(items, prev, 20, FLAT, now).alert
    # ten minutes ahead is ordinary clock skew: the same window ending now alerts
    skewed = window(np.linspace(now - 2 * HOUR, now + 300, 20))
    assert check_missed(skewed, prev, 20, FLAT, now).alert


def test_a_gap_expected_to_hold_about_one_item_is_not_an_alert():
    # the window's 20 items over 2 h say 10/h; the stretch before its oldest item
    # lasted 6 min (≈1 item expected) or 12 min (≈2): posting is bursty, so a
    # quiet stretch of one expected item is too common to call a miss
    now = T0 + 6 * HOUR
    items = window(np.linspace(now - 2 * HOUR, now, 20))
    short = check_missed(items, now - 2 * HOUR - 360, 20, FLAT, now)
    longer = check_missed(items, now - 2 * HOUR - 720, 20, FLAT, now)
    assert not short.alert
    assert longer.alert and longer.estimate == pytest.approx(2.0, rel=0.05)


def test_a_window_whose_edge_cuts_through_a_burst_alerts():
    # one push of commits straddles the window's edge: three of its items are the
    # oldest ones shown, the rest scrolled out unseen, although λ expects nothing
    # in the minute before them
    now = T0 + 6 * HOUR
    oldest = now - 2 * HOUR
    times = [oldest, oldest, oldest + 0.4, *np.linspace(oldest + 60, now, 17)]
    mc = check_missed(window(times), oldest - 60, 20, FLAT, now)
    assert mc.alert and mc.estimate >= 1.0
    assert mc.start == oldest - 60 and mc.end == oldest
    # the same window with distinct times: the gap explains it, no alert
    spread = [oldest, oldest + 20, oldest + 40, *np.linspace(oldest + 60, now, 17)]
    assert not check_missed(window(spread), oldest - 60, 20, FLAT, now).alert
    # and a burst wholly inside the window (not at its edge) changes nothing
    inside = [oldest, *[oldest + 600] * 5, *np.linspace(oldest + 900, now, 14)]
    assert not check_missed(window(inside), oldest - 60, 20, FLAT, now).alert
