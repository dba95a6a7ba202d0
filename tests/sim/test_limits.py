"""The learning-limit diagnostic: the app's Scheduler fed other knowledge, and no
source sees more than it says."""

from __future__ import annotations

import numpy as np
import pytest

from smartreader.core.estimator import DAY, HOUR, MONDAY0, WEEK
from smartreader.core.scheduler import Scheduler
from smartreader.sim.limits import SOURCES, InformationPolicy
from smartreader.sim.replay import make_policy, replay
from smartreader.sim.synthetic import generate
from smartreader.sim.world import World

T0 = MONDAY0 + 100 * WEEK  # a Monday midnight
FID = "x:feed"


def _policy(source: str, arrivals: list[float]) -> tuple[InformationPolicy, World]:
    trace = {FID: np.array(arrivals, dtype=np.float64)}
    return InformationPolicy(source, trace, 4.0, T0), World(trace, {FID: 2})


def _fetch(pol: InformationPolicy, world: World, t: float) -> None:
    obs, _truth = world.fetch(FID, t)
    pol.observe(FID, obs)


def test_it_is_the_app_scheduler_and_unknown_sources_are_refused():
    pol, _ = _policy("all", [T0 + HOUR])
    assert type(pol.sched) is Scheduler
    assert isinstance(
        make_policy("smart-peek", pol.trace, 4.0, T0, T0, T0 + WEEK), InformationPolicy
    )
    with pytest.raises(ValueError, match="unknown source"):
        InformationPolicy("future", pol.trace, 4.0, T0)


@pytest.mark.parametrize("source", SOURCES)
def test_only_peek_knows_of_an_item_no_fetch_has_returned(source):
    pol, world = _policy(source, [T0 + 3 * HOUR])
    assert FID in pol.due(T0)  # new feed: fetched at once, sees nothing yet
    _fetch(pol, world, T0)
    pol.due(T0 + DAY + 1.0)  # midnight: the estimates are handed over again
    learned = pol.ests[FID].total_count
    if source == "peek":
        assert learned == pytest.approx(1.0, rel=0.01)
    else:
        assert learned == 0.0
    # the scheduler plans with a frozen copy of what the source allows
    est = pol.sched._feeds[FID].est
    assert est.frozen and est.total_count == learned


def test_all_counts_the_items_that_scrolled_out_unseen_and_seen_does_not():
    burst = [T0 + 2 * HOUR + i for i in range(10)]  # ten at once; the window holds 2
    learned = {}
    for source in ("seen", "all"):
        pol, world = _policy(source, burst)
        pol.due(T0)
        _fetch(pol, world, T0)
        _fetch(pol, world, T0 + 5 * HOUR)
        pol.due(T0 + DAY + 1.0)
        learned[source] = pol.ests[FID].total_count
    assert learned["all"] == pytest.approx(10.0, rel=0.01)
    # the two it saw plus at most its own estimate of the missed ones
    assert 2.0 <= learned["seen"] < 0.8 * learned["all"]


def test_replays_within_the_budget_from_every_source():
    trace, caps = generate(12, weeks=3, seed=5)
    for source in SOURCES:
        r = replay(trace, caps, f"smart-{source}", 24.0, warmup_days=7)
        assert 0 < r.fetches_per_day <= 24.0
        assert r.mean_delay_min > 0
