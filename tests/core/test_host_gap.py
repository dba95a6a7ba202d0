"""A site's own limit: the least time between two requests to it, for every feed
there (Feed properties ▸ Site's limit; Reddit takes one request a minute). The
scheduler spaces its fetches so, and plans no more there than the site takes."""

from __future__ import annotations

import itertools

from smartreader.core.estimator import DAY, HOUR, MONDAY0, WEEK
from smartreader.core.models import FetchObservation, ItemSighting
from smartreader.core.scheduler import Scheduler, SchedulerConfig

from .test_unreachable import run_until

T0 = MONDAY0 + 2900 * WEEK + 9 * HOUR


def drive(s: Scheduler, end: float) -> list[tuple[float, str]]:
    def ok(fid: str, t: float) -> FetchObservation:
        return FetchObservation(t, "ok", (ItemSighting(f"{fid}-{t}", t - 30.0, True),))

    return run_until(s, end, ok)


def setup(budget: float = 2000.0) -> Scheduler:
    s = Scheduler(SchedulerConfig(budget_per_day=budget, min_interval=300.0), T0)
    for i in range(6):
        s.add_feed(f"r{i}", host="reddit.example", capacity=25)
    s.add_feed("b", host="b.example", capacity=25)
    return s


def test_requests_to_a_site_with_a_limit_are_spaced_by_it():
    s = setup()
    s.set_host_gaps({"reddit.example": 600.0})
    assert s.host_gap("reddit.example") == 600.0
    assert s.host_gap("b.example") == s.config.host_min_gap
    made = drive(s, T0 + 2 * DAY)
    times = [t for t, fid in made if fid.startswith("r")]
    assert len(times) > 20
    assert all(b - a >= 600.0 - 1e-6 for a, b in itertools.pairwise(times))
    # the other site is not held by it: b goes within seconds of the start
    assert min(t for t, fid in made if fid == "b") < T0 + 60


def test_the_plan_spends_no_more_at_a_site_than_it_takes():
    s = setup()
    free = sum(s.explain(f"r{i}", T0).share_per_day for i in range(6))
    s.set_host_gaps({"reddit.example": 3600.0})  # 24 a day between the six
    held = sum(s.explain(f"r{i}", T0).share_per_day for i in range(6))
    assert free > 24 and held <= 24 + 1e-6
    assert s.explain("b", T0).share_per_day > 0
    (note,) = [n for n in s.explain("r0", T0).notes if "takes one request" in n]
    assert (
        note
        == "reddit.example takes one request every 60 min (its limit): its 6 feeds there share that"
    )


def test_clearing_a_limit_gives_the_site_its_default_back():
    s = setup()
    s.set_host_gaps({"reddit.example": 600.0})
    s.set_host_gaps({})
    assert s.host_gap("reddit.example") == s.config.host_min_gap
    made = drive(s, T0 + HOUR)
    times = [t for t, fid in made if fid.startswith("r")]
    assert times[5] - times[0] < 60  # the six new feeds, a second or two apart
