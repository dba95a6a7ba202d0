"""The maximum interval is a setting: how long a feed may go unchecked.

A week lets quiet feeds wait so busy ones get their requests when the budget is
small; an hour keeps every feed fresh. The scheduler's floor (one fetch per maximum
interval), its clamp on the next fetch, the Settings estimate and the plan's note
all follow the configured value.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from smartreader.core.estimator import DAY, HOUR, MONDAY0, WEEK
from smartreader.core.models import FetchObservation
from smartreader.core.scheduler import Scheduler, SchedulerConfig

T0 = MONDAY0 + 2900 * WEEK  # Monday 00:00 UTC


def _portfolio(max_interval: float, budget: float = 20.0) -> Scheduler:
    """One feed posting 50 items a day and nine posting one item every 20 days."""
    sched = Scheduler(SchedulerConfig(budget_per_day=budget, max_interval=max_interval), T0)
    sched.add_feed("busy", host="busy", capacity=1000)
    sched.set_lambda("busy", np.full(168, 50.0 / 24))
    for i in range(9):
        fid = f"quiet{i}"
        sched.add_feed(fid, host=fid, capacity=1000)
        sched.set_lambda(fid, np.full(168, 0.05 / 24))
    sched.replan(T0)
    return sched


def test_a_week_lets_quiet_feeds_wait_and_the_busy_one_gets_their_requests():
    day = _portfolio(DAY)
    week = _portfolio(7 * DAY)
    # a day: each quiet feed is held to its floor of one fetch a day
    assert [day.explain(f"quiet{i}", T0).share_per_day for i in range(9)] == pytest.approx(
        [1.0] * 9, abs=1e-6
    )
    quiet_week = [week.explain(f"quiet{i}", T0).share_per_day for i in range(9)]
    assert all(1 / 7 - 1e-6 <= s < 0.9 for s in quiet_week)
    assert week.explain("busy", T0).share_per_day > day.explain("busy", T0).share_per_day + 3
    # and the mean delay Settings shows for it, before it is applied
    assert day.estimate_delay_for_budget(20, max_interval=7 * DAY)[0] == pytest.approx(
        week.estimate_delay_for_budget(20)[0]
    )
    assert (
        day.estimate_delay_for_budget(20, max_interval=7 * DAY)[0]
        < 0.9 * day.estimate_delay_for_budget(20)[0]
    )
    assert day.config.max_interval == DAY  # an estimate applies nothing


def _fetched_once(sched: Scheduler, fid: str) -> float:
    t = sched.next_wakeup()
    assert t is not None
    while fid not in sched.due(t):
        t = sched.next_wakeup()
        assert t is not None
    sched.observe(fid, FetchObservation(fetched_at=t, status="ok"))
    return t


@pytest.mark.parametrize("longest", [HOUR, 6 * HOUR, 7 * DAY])
def test_the_next_check_of_a_quiet_feed_follows_a_new_maximum_interval(longest):
    """A busy feed takes nearly all of a small budget; the quiet one is held to the
    floor of one check per maximum interval."""
    sched = Scheduler(SchedulerConfig(budget_per_day=60, min_interval=60.0), T0)
    sched.add_feed("busy", host="busy", capacity=1000)
    sched.set_lambda("busy", np.full(168, 500.0 / 24))
    sched.add_feed("q", host="q", capacity=1000)
    sched.set_lambda("q", np.full(168, 0.01 / 24))  # an item every 100 days
    last = _fetched_once(sched, "q")
    assert sched.explain("q", last).planned[0] == pytest.approx(last + DAY, abs=60)
    now = last + 10 * 60.0
    sched.set_config(dataclasses.replace(sched.config, max_interval=longest), now)
    nxt = sched.explain("q", now).planned[0]
    assert nxt <= last + longest + 1.0
    # it is checked about as often as the floor says, not more
    assert nxt >= last + min(0.5 * longest, 2 * DAY)


def test_a_maximum_below_the_minimum_interval_yields_to_it():
    """Settings prevents it, but a stored pair may disagree: the minimum wins."""
    cfg = SchedulerConfig(budget_per_day=500, min_interval=2 * HOUR, max_interval=HOUR)
    sched = Scheduler(cfg, T0)
    sched.add_feed("q", host="q")
    last = _fetched_once(sched, "q")
    assert sched.explain("q", last).planned[0] == pytest.approx(last + 2 * HOUR, abs=1)


@pytest.mark.parametrize(
    ("longest", "text"), [(6 * HOUR, "every 6 h"), (DAY, "every 24 h"), (7 * DAY, "every 7 days")]
)
def test_the_plan_says_which_maximum_interval_the_budget_cannot_give(longest, text):
    sched = Scheduler(SchedulerConfig(budget_per_day=3, max_interval=longest), T0)
    for i in range(40):
        sched.add_feed(i, host=f"h{i}")
    sched.replan(T0)
    notes = " ".join(sched.summary(T0).notes)
    assert f"to get their minimum ({text}," in notes


@pytest.mark.parametrize("bad", [0.0, -HOUR, float("inf"), float("nan")])
def test_a_maximum_interval_that_is_not_a_positive_time_is_refused(bad):
    with pytest.raises(ValueError, match="max_interval"):
        SchedulerConfig(max_interval=bad)


# -- a feed's own maximum interval (Feed properties) ------------------------------


def _two_quiet(own: float | None, budget: float = 60.0) -> Scheduler:
    """A busy feed that takes most of the budget, and two quiet ones: "q" with
    its own maximum interval ``own``, "r" with Settings' (a day)."""
    sched = Scheduler(SchedulerConfig(budget_per_day=budget, min_interval=60.0), T0)
    sched.add_feed("busy", host="busy", capacity=1000)
    sched.set_lambda("busy", np.full(168, 500.0 / 24))
    sched.add_feed("q", host="q", capacity=1000, max_interval=own)
    sched.add_feed("r", host="r", capacity=1000)
    for fid in ("q", "r"):
        sched.set_lambda(fid, np.full(168, 0.01 / 24))  # an item every 100 days
    sched.replan(T0)
    return sched


@pytest.mark.parametrize("own", [2 * HOUR, 6 * HOUR])
def test_a_feeds_own_maximum_interval_holds_for_it_alone(own):
    sched = _two_quiet(own)
    # its floor: a fetch per own maximum interval; the other keeps a day's
    assert sched.explain("q", T0).share_per_day >= DAY / own - 1e-6
    assert sched.explain("r", T0).share_per_day == pytest.approx(1.0, abs=1e-6)
    last = _fetched_once(sched, "q")
    assert last + 0.5 * own <= sched.explain("q", last).planned[0] <= last + own + 1.0
    last_r = _fetched_once(sched, "r")
    assert sched.explain("r", last_r).planned[0] > last_r + 12 * HOUR


def test_a_feeds_own_week_lets_it_wait_longer_than_settings_day():
    sched = _two_quiet(7 * DAY)
    assert sched.explain("q", T0).share_per_day < 0.9
    assert sched.explain("r", T0).share_per_day == pytest.approx(1.0, abs=1e-6)
    # and its request goes to the busy feed
    assert (
        sched.explain("busy", T0).share_per_day
        > _two_quiet(None).explain("busy", T0).share_per_day + 0.05
    )


def test_settings_estimate_keeps_a_feeds_own_maximum_interval():
    own, plain = _two_quiet(2 * HOUR), _two_quiet(None)
    # a week in Settings would let both quiet feeds wait; the one with its own
    # two hours still takes twelve requests a day, so the busy feed gets fewer
    assert own.estimate_delay_for_budget(60, max_interval=7 * DAY)[0] > (
        1.05 * plain.estimate_delay_for_budget(60, max_interval=7 * DAY)[0]
    )


def test_a_feeds_own_maximum_below_its_minimum_yields_to_the_minimum():
    sched = Scheduler(SchedulerConfig(budget_per_day=500), T0)
    sched.add_feed("q", host="q", min_interval=3 * HOUR, max_interval=HOUR)
    last = _fetched_once(sched, "q")
    assert sched.explain("q", last).planned[0] == pytest.approx(last + 3 * HOUR, abs=1)


@pytest.mark.parametrize("bad", [0.0, -HOUR, float("inf"), float("nan")])
def test_a_feeds_own_maximum_that_is_not_a_positive_time_is_refused(bad):
    sched = Scheduler(SchedulerConfig(), T0)
    with pytest.raises(ValueError, match="max_interval"):
        sched.add_feed("q", host="q", max_interval=bad)


def test_the_plans_note_names_the_starved_feeds_own_maximum_intervals():
    """The note said "every 24 h" whatever the feeds' own maximum intervals."""
    sched = Scheduler(SchedulerConfig(budget_per_day=1.0), T0)
    for i in range(4):
        sched.add_feed(i, host=f"h{i}.example", max_interval=None if i < 2 else 6 * HOUR)
    (note,) = sched.summary(T0).notes
    assert "(every 6 h to 24 h, or enough to catch every item)" in note
    one = Scheduler(SchedulerConfig(budget_per_day=1.0), T0)
    for i in range(4):
        one.add_feed(i, host=f"h{i}.example")
    (note,) = one.summary(T0).notes
    assert "(every 24 h, or enough to catch every item)" in note
