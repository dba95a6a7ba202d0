"""A feed that stopped publishing, or stopped answering, gives its budget back.

The estimator's 5-week memory alone took weeks to believe a silence (a 6/day feed
still read 4/day after two silent weeks and kept its share of the budget), and a
failing feed's back-off left its share unused while the overview still counted it.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from smartreader.core.estimator import DAY, HOUR, SILENCE_ITEMS, WEEK, RateEstimator
from smartreader.core.models import FetchObservation, ItemSighting, ServerHints
from smartreader.core.scheduler import Scheduler, SchedulerConfig

from .test_estimator import T0, feed_through_fetches, peaked_lambda, poisson_arrivals
from .test_scheduler import drive


def learned(per_day: float, weeks: int = 4, seed: int = 1) -> tuple[RateEstimator, float]:
    """An estimator that watched a daily-peaked feed for ``weeks``; and when it stopped."""
    rng = np.random.default_rng(seed)
    est = RateEstimator()
    feed_through_fetches(
        est, poisson_arrivals(peaked_lambda(per_day=per_day), weeks, rng), rng, weeks=weeks
    )
    assert est.last_t is not None
    return est, est.last_t


def silent_fetches(est: RateEstimator, t: float, days: float, every_h: float = 4.0) -> float:
    end = t + days * DAY
    while t < end:
        est.observe_interval(t, t + every_h * HOUR, [])
        t += every_h * HOUR
    return t


def test_a_silence_the_rate_cannot_explain_is_believed_within_days():
    est, t = learned(per_day=6.0)
    before = est.rate_per_day()
    assert before == pytest.approx(6.0, rel=0.3)
    t = silent_fetches(est, t, 14)
    # 14 silent days: at most SILENCE_ITEMS expected over them (the decay alone left ~4/day)
    assert est.rate_per_day() <= SILENCE_ITEMS / 14 * 1.01
    assert est.lambda_week().sum() / 7 == pytest.approx(est.rate_per_day())
    assert (est.lambda_week() > 0).all()


def test_the_first_new_item_brings_the_rate_back():
    est, t = learned(per_day=6.0)
    before = est.rate_per_day()
    t = silent_fetches(est, t, 10)
    assert est.rate_per_day() < 0.25 * before
    est.observe_interval(t, t + HOUR, [t + 0.5 * HOUR])
    # a pause, not an end: the evidence was kept (only decayed by 10 days' memory)
    assert est.rate_per_day() > 0.5 * before


def test_a_silence_the_rhythm_expects_changes_nothing():
    # a feed that posts only on weekdays: its weekend silence is what λ(t) predicts
    rng = np.random.default_rng(2)
    lam = peaked_lambda(per_day=5.0).reshape(7, 24).copy()
    lam[5:] = 1e-4
    est = RateEstimator()
    arr = poisson_arrivals(lam.reshape(-1), 7, rng)
    feed_through_fetches(est, arr, rng, weeks=6)
    sat = T0 + 6 * WEEK + 5 * DAY
    last = arr[arr < sat].max()
    est.observe_interval(est.last_t, sat, [p for p in arr if est.last_t < p <= sat])
    ref = RateEstimator.from_dict(est.to_dict())
    ref.last_item_t = None  # the same evidence without the silence rule
    end = sat + 2 * DAY - HOUR  # Sunday 23:00, the whole weekend silent
    for e in (est, ref):
        silent_fetches(e, sat, (end - sat) / DAY, every_h=5.0)
    assert est.last_item_t == pytest.approx(last)
    assert est.rate_per_day() == pytest.approx(ref.rate_per_day(), rel=1e-9)


def test_the_last_item_time_round_trips_and_old_states_load():
    est, t = learned(per_day=6.0)
    silent_fetches(est, t, 5)
    back = RateEstimator.from_dict(json.loads(json.dumps(est.to_dict())))
    assert back.last_item_t == est.last_item_t
    assert back.rate_per_day() == pytest.approx(est.rate_per_day())
    old = est.to_dict()
    del old["last_item_t"]  # saved before the field existed
    assert RateEstimator.from_dict(old).last_item_t is None


def ok(t: float, items=()) -> FetchObservation:
    return FetchObservation(fetched_at=t, status="ok", items=tuple(items), hints=ServerHints())


def posting_world(stop_at: dict[str, float], fail_from: dict[str, float]):
    """Three feeds posting 8 items a day on the hour (ids 'name-k'); one may stop
    posting, one may start failing."""
    seen: dict[str, list[float]] = {f: [] for f in ("a", "b", "c")}

    def respond(fid: str, now: float) -> FetchObservation:
        if now >= fail_from.get(fid, np.inf):
            return FetchObservation(fetched_at=now, status="error", hints=ServerHints())
        last = min(now, stop_at.get(fid, np.inf))
        pubs = [T0 + k * 3 * HOUR for k in range(int((last - T0) // (3 * HOUR)) + 1)][-20:]
        items = [ItemSighting(f"{fid}-{p:.0f}", p, p not in seen[fid]) for p in pubs]
        seen[fid] = pubs
        return ok(now, items)

    return respond


def three_feeds(cfg: SchedulerConfig) -> Scheduler:
    sched = Scheduler(cfg, T0)
    for f in ("a", "b", "c"):
        sched.add_feed(f, host=f)
    return sched


def shares(sched: Scheduler, now: float) -> dict[str, float]:
    return {f: sched.explain(f, now).share_per_day for f in ("a", "b", "c")}


def test_a_feed_that_stopped_gives_its_share_to_the_others():
    cfg = SchedulerConfig(budget_per_day=12)
    sched = three_feeds(cfg)
    stop = T0 + 3 * WEEK
    drive(sched, stop, posting_world({"a": stop}, {}), start=T0)
    even = shares(sched, stop)
    assert even["a"] == pytest.approx(even["b"], rel=0.25)
    end = stop + 10 * DAY
    log = drive(sched, end, posting_world({"a": stop}, {}), start=stop)
    after = shares(sched, end)
    assert after["a"] < 0.6 * even["a"]
    assert after["b"] > even["b"] and after["c"] > even["c"]
    assert sum(after.values()) == pytest.approx(cfg.budget_per_day, rel=0.01)
    last_day = [f for t, f in log if t > end - 3 * DAY]
    assert last_day.count("a") < last_day.count("b")


def test_a_failing_feed_gives_its_share_to_the_others_and_gets_it_back():
    cfg = SchedulerConfig(budget_per_day=12, error_backoff_base=1800)
    sched = three_feeds(cfg)
    fail = T0 + 3 * WEEK
    drive(sched, fail, posting_world({}, {}), start=T0)
    even = shares(sched, fail)
    end = fail + 4 * DAY
    drive(sched, end, posting_world({}, {"a": fail}), start=fail)
    failing = shares(sched, end)
    # at the 24 h back-off ceiling: one check a day, the rest to the feeds that answer
    assert failing["a"] <= 1.0 + 1e-6
    assert failing["b"] > even["b"] + 1 and failing["c"] > even["c"] + 1
    assert sum(failing.values()) == pytest.approx(cfg.budget_per_day, rel=0.01)
    back = end + 2 * DAY
    drive(sched, back, posting_world({}, {}), start=end)
    assert shares(sched, back)["a"] == pytest.approx(even["a"], rel=0.25)


def test_explain_says_why_the_rate_fell():
    cfg = SchedulerConfig(budget_per_day=12)
    sched = three_feeds(cfg)
    stop = T0 + 3 * WEEK
    drive(sched, stop + 10 * DAY, posting_world({"a": stop}, {}), start=T0)
    notes = " ".join(sched.explain("a", stop + 10 * DAY).notes)
    assert "rate lowered to" in notes and "nothing since" in notes
    assert "rate lowered" not in " ".join(sched.explain("b", stop + 10 * DAY).notes)


def test_a_fetch_a_little_late_does_not_skip_the_next_planned_point():
    """Plan points one minimum interval apart, each fetch done seconds after its
    point (as in the app: timers and requests take time): the next point is kept,
    not skipped for a whole interval (a busy feed got half of its share)."""
    cfg = SchedulerConfig(budget_per_day=10_000, min_interval=300.0)
    sched = Scheduler(cfg, T0)
    sched.add_feed("busy", host="h", capacity=50)
    now, fetched = T0, []
    posted = [T0 - DAY + k * 120.0 for k in range(720 * 6)]  # 720 a day, for 5 days
    while now < T0 + 3 * DAY:
        t = sched.next_wakeup()
        assert t is not None
        now = max(now, t)
        for fid in sched.due(now):
            done = now + 5.0  # the request took 5 s
            window = [p for p in posted if p <= done][-50:]
            prev = fetched[-1] if fetched else 0.0
            sched.observe(fid, ok(done, [ItemSighting(f"{p:.0f}", p, p > prev) for p in window]))
            fetched.append(done)
        now += 5.0
    share = sched.explain("busy", now).share_per_day
    assert share == pytest.approx(288, rel=0.01)  # every 5 min: the ceiling
    last_day = [t for t in fetched if t > T0 + 2 * DAY]
    assert len(last_day) >= 0.9 * share
    assert min(np.diff(fetched)) >= 300.0 - 1e-6


def test_a_share_never_exceeds_what_the_placement_grid_can_hold():
    """A 2-minute minimum interval allowed a share of 720/day; the weekly plan's
    5-minute grid holds 288, so the page promised fetches that never came."""
    cfg = SchedulerConfig(budget_per_day=10_000, min_interval=120.0)
    sched = Scheduler(cfg, T0)
    sched.add_feed("busy", host="h", capacity=50)
    posted = [T0 - DAY + k * 60.0 for k in range(1440 * 4)]
    fetched: list[float] = []

    def respond(fid: str, now: float) -> FetchObservation:
        prev = fetched[-1] if fetched else 0.0
        fetched.append(now)
        window = [p for p in posted if p <= now][-50:]
        return ok(now, [ItemSighting(f"{p:.0f}", p, p > prev) for p in window])

    drive(sched, T0 + 2 * DAY, respond, start=T0)
    share = sched.explain("busy", T0 + 2 * DAY).share_per_day
    assert share == pytest.approx(cfg.plan_bins / 7.0)
    last_day = [t for t in fetched if t > T0 + DAY]
    assert len(last_day) >= 0.95 * share
