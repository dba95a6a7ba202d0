"""Batched placement, per-weekday placement, exhaustive search and the scheduler's
pattern look-up (the speed-ups must not change what gets planned)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from smartreader.core.estimator import DAY, HOUR, MONDAY0, NSLOTS, WEEK
from smartreader.core.schedule import expected_delay, place, place_many
from smartreader.core.scheduler import Scheduler, SchedulerConfig


def _lams(k, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.gamma(0.5, 1.0, NSLOTS) * rng.uniform(0.05, 3.0) for _ in range(k)]


def test_batch_matches_one_by_one():
    lams = _lams(40)
    rng = np.random.default_rng(1)
    ns = [int(x) for x in rng.integers(1, 60, len(lams))]
    gaps = [float(x) for x in rng.choice([0.0, 900.0, 3 * HOUR], len(lams))]
    many = place_many(lams, ns, min_gaps_s=gaps, chunk=7)
    for lam, n, gap, got in zip(lams, ns, gaps, many, strict=True):
        np.testing.assert_array_equal(got, place(lam, n, min_gap_s=gap))


def test_exhaustive_is_exact_and_refinement_close():
    lam = _lams(1, seed=3)[0]
    grid = np.arange(NSLOTS) * HOUR
    brute = min(
        expected_delay(lam, np.array(c), bins=NSLOTS) for c in itertools.combinations(grid, 2)
    )
    ex2 = expected_delay(lam, place(lam, 2, bins=NSLOTS, method="exhaustive"), bins=NSLOTS)
    assert ex2 == pytest.approx(brute)
    for n in (3, 5, 7):
        ex = expected_delay(lam, place(lam, n, bins=NSLOTS, method="exhaustive"), bins=NSLOTS)
        rf = expected_delay(lam, place(lam, n, bins=NSLOTS), bins=NSLOTS)
        assert ex <= rf * (1 + 1e-9)
        assert len(place(lam, n, bins=NSLOTS, method="exhaustive")) == n


def test_exhaustive_respects_min_gap():
    lam = _lams(1, seed=4)[0]
    pat = np.sort(place(lam, 6, bins=NSLOTS, min_gap_s=12 * HOUR, method="exhaustive"))
    d = np.diff(np.concatenate((pat, [pat[0] + WEEK])))
    assert (d >= 12 * HOUR - 1e-6).all()


def test_more_starts_never_worse():
    for lam in _lams(10, seed=5):
        for n in (2, 7, 15):
            one = expected_delay(lam, place(lam, n))
            four = expected_delay(lam, place(lam, n, starts=4))
            assert four <= one * (1 + 1e-9)


@pytest.mark.parametrize("n", [7, 10, 14, 30])
def test_per_day_keeps_the_daily_count(n):
    lam = _lams(1, seed=n)[0]
    pat = place(lam, n, per_day=True, min_gap_s=900.0)
    assert len(pat) == n
    per_day = np.bincount((pat // DAY).astype(int), minlength=7)
    assert per_day.max() - per_day.min() <= 1
    assert per_day.sum() == n
    d = np.diff(np.concatenate((np.sort(pat), [np.sort(pat)[0] + WEEK])))
    assert (d >= 900.0 - 1e-6).all()


def test_per_day_below_daily_falls_back_to_weekly():
    lam = _lams(1, seed=9)[0]
    np.testing.assert_array_equal(place(lam, 4, per_day=True), place(lam, 4))


def _old_pattern_next(pat, t0, min_gap):
    """The pattern look-up before it was cached (reference)."""
    off0 = (t0 - MONDAY0) % WEEK
    ws = t0 - off0
    pts = ws + np.concatenate((pat - WEEK, pat, pat + WEEK, pat + 2 * WEEK))
    gaps = np.diff(pts, prepend=pts[0] - WEEK / max(1, pat.size))
    ok = pts >= t0 + np.maximum(min_gap, 0.3 * gaps)
    i = int(np.argmax(ok))
    return float(pts[i]) if ok[i] else t0 + WEEK


def test_pattern_lookup_matches_reference():
    t0 = MONDAY0 + 2926 * WEEK
    sched = Scheduler(SchedulerConfig(budget_per_day=100), t0)
    sched.add_feed("a", host="h")
    f = sched._feeds["a"]
    rng = np.random.default_rng(7)
    for trial in range(30):
        n = int(rng.integers(1, 40))
        f.pattern = np.sort(rng.choice(2016, n, replace=False) * 300.0)
        f.placed_at = t0 + trial * DAY
        f.placed_expo = 1e12
        for _ in range(20):
            t = f.placed_at + float(rng.uniform(0, 3 * DAY))
            gap = float(rng.choice([0.0, 900.0, 4 * HOUR]))
            got = sched._pattern_next(f, t, gap)
            assert got == pytest.approx(_old_pattern_next(f.pattern, t, gap), abs=1e-3)


def test_allocation_follows_a_config_change():
    t0 = MONDAY0 + 2926 * WEEK
    sched = Scheduler(SchedulerConfig(budget_per_day=50), t0)
    flat = np.full(NSLOTS, 0.5)
    peaky = np.where(np.arange(NSLOTS) % 24 == 12, 12.0, 0.01)
    peaky *= flat.sum() / peaky.sum()
    for fid, lam in (("flat", flat), ("peaky", peaky)):
        sched.add_feed(fid, host=fid, last_fetch=t0 - 600)
        sched.set_lambda(fid, lam)
    sched.replan(t0)
    before = sched.explain("peaky", t0).share_per_day
    sched.set_config(SchedulerConfig(budget_per_day=50, shape_aware=True), t0)
    after = sched.explain("peaky", t0).share_per_day
    # a peaked feed needs fewer fetches for the same delay once the shape counts
    assert after < before
