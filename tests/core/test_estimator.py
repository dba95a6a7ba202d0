"""RateEstimator: learning a periodic λ(t) online from fetches (Horincar et al.)."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from smartreader.core.estimator import (
    DAY,
    HOUR,
    MONDAY0,
    NSLOTS,
    WEEK,
    RateEstimator,
    integrate,
    novel_lambda,
    slot_of,
    week_cover,
)

T0 = MONDAY0 + 2900 * WEEK  # a Monday 00:00 UTC


def peaked_lambda(peak_hour: float = 9.0, width: float = 2.0, per_day: float = 12.0):
    h = np.arange(NSLOTS) % 24 + 0.5
    dist = np.minimum(np.abs(h - peak_hour), 24 - np.abs(h - peak_hour))
    p = 0.03 + np.exp(-0.5 * (dist / width) ** 2)
    return p / p.sum() * per_day * 7.0  # items/hour, 168 slots


def poisson_arrivals(lam: np.ndarray, weeks: int, rng: np.random.Generator) -> np.ndarray:
    counts = rng.poisson(np.tile(lam, weeks))
    slots = np.repeat(np.arange(weeks * NSLOTS), counts)
    return np.sort(T0 + slots * HOUR + rng.uniform(0, HOUR, slots.size))


def feed_through_fetches(est, arrivals, rng, with_times=True, gaps=(1.0, 5.0), weeks=8):
    t = T0
    end = T0 + weeks * WEEK
    while t < end:
        nt = t + rng.uniform(*gaps) * HOUR
        new = arrivals[(arrivals > t) & (arrivals <= nt)]
        if with_times:
            est.observe_interval(t, nt, list(new))
        else:
            est.observe_interval(t, nt, [], unplaced=float(new.size))
        t = nt


def day_profile(lam: np.ndarray) -> np.ndarray:
    return lam.reshape(7, 24).mean(0)


def test_slots_and_cover():
    assert slot_of(T0) == 0
    assert slot_of(T0 + 25 * HOUR + 10) == 25
    assert slot_of(T0 - 1) == NSLOTS - 1
    cov = week_cover(T0 + 0.5 * HOUR, T0 + 2 * HOUR)
    assert cov[0] == pytest.approx(0.5 * HOUR)
    assert cov[1] == pytest.approx(HOUR)
    assert cov[2:].sum() == 0
    lam = np.arange(NSLOTS, dtype=float)
    assert integrate(lam, T0 + 3 * DAY, T0 + 3 * DAY + WEEK) == pytest.approx(lam.sum())
    # two weeks wrap around correctly
    assert week_cover(T0 + 10, T0 + 10 + 2 * WEEK).sum() == pytest.approx(2 * WEEK)


def test_recovers_known_periodic_lambda_from_poisson_data():
    rng = np.random.default_rng(1)
    truth = peaked_lambda(peak_hour=14.0, per_day=12.0)
    arr = poisson_arrivals(truth, 8, rng)
    est = RateEstimator(memory_s=20 * WEEK)
    feed_through_fetches(est, arr, rng)
    lam = est.lambda_week()
    assert est.rate_per_day() == pytest.approx(12.0, rel=0.12)
    got, want = day_profile(lam), day_profile(truth)
    assert np.corrcoef(got, want)[0, 1] > 0.95
    assert abs(int(np.argmax(got)) - 14) <= 1
    # peak/trough contrast is learned, not flattened away
    assert got.max() / got.min() > 5.0
    assert est.periodicity() > 0.3


def test_spread_counts_without_times_still_find_rate_and_shape():
    """Horincar et al.: counts spread over irregular observation intervals."""
    rng = np.random.default_rng(2)
    truth = peaked_lambda(peak_hour=20.0, width=2.5, per_day=20.0)
    arr = poisson_arrivals(truth, 10, rng)
    est = RateEstimator(memory_s=30 * WEEK)
    feed_through_fetches(est, arr, rng, with_times=False, gaps=(0.5, 3.0), weeks=10)
    assert est.rate_per_day() == pytest.approx(20.0, rel=0.12)
    got = day_profile(est.lambda_week())
    assert np.corrcoef(got, day_profile(truth))[0, 1] > 0.8
    assert abs(int(np.argmax(got)) - 20) <= 2


def test_flat_poisson_feed_is_not_called_periodic():
    rng = np.random.default_rng(3)
    truth = np.full(NSLOTS, 10.0 / 24)
    arr = poisson_arrivals(truth, 8, rng)
    est = RateEstimator(memory_s=20 * WEEK)
    feed_through_fetches(est, arr, rng)
    assert est.periodicity() < 0.15
    prof = day_profile(est.lambda_week())
    assert prof.max() / prof.min() < 2.5  # Poisson noise only (peaked feeds: > 5)


def test_new_feed_is_flat_at_the_prior():
    est = RateEstimator(prior_rate_per_day=3.0)
    lam = est.lambda_week()
    assert np.allclose(lam, lam[0])
    assert lam.sum() / 7 == pytest.approx(3.0)
    assert est.periodicity() == 0.0


def test_feed_that_stops_publishing_decays_toward_the_floor():
    rng = np.random.default_rng(4)
    truth = peaked_lambda(per_day=30.0)
    arr = poisson_arrivals(truth, 6, rng)
    est = RateEstimator()
    feed_through_fetches(est, arr, rng, weeks=6)
    before = est.rate_per_day()
    assert before > 20
    rates = []
    t = T0 + 6 * WEEK
    for _ in range(20):
        est.observe_interval(t, t + WEEK, [])
        t += WEEK
        rates.append(est.rate_per_day())
    assert all(b <= a + 1e-12 for a, b in itertools.pairwise(rates))
    assert rates[-1] < 0.02 * before
    assert (est.lambda_week() > 0).all()


def test_a_burst_counts_for_the_rate_but_does_not_pin_the_shape():
    est = RateEstimator(memory_s=20 * WEEK)
    rng = np.random.default_rng(5)
    arr = poisson_arrivals(np.full(NSLOTS, 4.0 / 24), 4, rng)
    feed_through_fetches(est, arr, rng, weeks=4)
    t = T0 + 4 * WEEK
    rate0 = est.rate_per_day()
    burst_at = t + 3 * HOUR + 60
    est.observe_interval(t, t + 6 * HOUR, [burst_at] * 60)
    lam = est.lambda_week()
    s = slot_of(burst_at)
    # 60 items in one hour would be 60/4 weeks = 15/h unclipped; the shape stays tame
    assert lam[s] < 5 * np.median(lam)
    assert est.rate_per_day() > rate0 + 60 / 28 * 0.5


def test_lambda_is_positive_for_odd_inputs():
    est = RateEstimator()
    est.observe_interval(T0, T0, [T0])  # empty interval
    est.observe_interval(T0, T0 + HOUR, [T0 - 5 * DAY, T0 + 10 * DAY])  # implausible times
    est.observe_interval(T0 + HOUR, T0 + 2 * HOUR, [], unplaced=3, extra=4.0, extra_to=T0)
    lam = est.lambda_week()
    assert np.isfinite(lam).all() and (lam > 0).all()
    assert est.total_count == pytest.approx(2 + 3 + 4, rel=1e-3)  # minus an hour of decay


def test_state_round_trips_through_json():
    rng = np.random.default_rng(6)
    est = RateEstimator(memory_s=3 * WEEK, prior_rate_per_day=2.0)
    feed_through_fetches(est, poisson_arrivals(peaked_lambda(), 2, rng), rng, weeks=2)
    back = RateEstimator.from_dict(json.loads(json.dumps(est.to_dict())))
    assert np.allclose(back.lambda_week(), est.lambda_week(), rtol=1e-4)
    assert back.rate_per_day() == pytest.approx(est.rate_per_day())
    assert back.to_dict() == RateEstimator.from_dict(back.to_dict()).to_dict()


def test_from_lambda_reproduces_the_given_rate():
    truth = peaked_lambda(per_day=24.0)
    est = RateEstimator.from_lambda(truth, weeks=20)
    lam = est.lambda_week()
    assert lam.sum() == pytest.approx(truth.sum(), rel=0.02)
    assert np.corrcoef(lam, truth)[0, 1] > 0.99


def test_frozen_estimator_does_not_learn():
    est = RateEstimator()
    est.frozen = True
    before = est.lambda_week().copy()
    est.observe_interval(T0, T0 + DAY, [T0 + HOUR] * 10)
    assert np.array_equal(est.lambda_week(), before)


def _two_estimators(arrivals, novel_mask, rng, weeks=8):
    """An all-items and a novel-items estimator fed by the same fetches."""
    est, est_n = RateEstimator(memory_s=20 * WEEK), RateEstimator(memory_s=20 * WEEK)
    t, end = T0, T0 + weeks * WEEK
    while t < end:
        nt = t + rng.uniform(1.0, 5.0) * HOUR
        sel = (arrivals > t) & (arrivals <= nt)
        est.observe_interval(t, nt, list(arrivals[sel]))
        est_n.observe_interval(t, nt, list(arrivals[sel & novel_mask]))
        t = nt
    return est, est_n


def test_novel_lambda_keeps_the_all_items_shape_when_novelty_has_no_pattern():
    rng = np.random.default_rng(21)
    truth = peaked_lambda(peak_hour=14.0, per_day=12.0)
    arr = poisson_arrivals(truth, 8, rng)
    novel = rng.random(arr.size) < 0.4  # novel at random: no time pattern
    est, est_n = _two_estimators(arr, novel, rng)
    lam_n = novel_lambda(est, est_n)
    lam = est.lambda_week()
    share = est_n.rate_per_hour() / est.rate_per_hour()
    assert 0.3 < share < 0.5
    assert lam_n.sum() == pytest.approx(share * lam.sum(), rel=1e-9)
    # the shape is λ_all's up to the (shrunk) sampling noise of the share by hour
    ratio = lam_n / (lam * share)
    assert float(np.mean(np.abs(ratio - 1.0))) < 0.12
    # closer to λ_all's shape than the novel estimator's own λ(t)
    own = est_n.lambda_week()
    p, q, r = lam / lam.sum(), lam_n / lam_n.sum(), own / own.sum()
    assert np.abs(q - p).sum() < np.abs(r - p).sum()


def test_novel_lambda_cuts_the_hours_of_reposts():
    """A bot re-posts at 03:00 every day: those items are not novel, so the novel
    rate at 03:00 drops to the level of the other hours' novel share."""
    rng = np.random.default_rng(22)
    truth = peaked_lambda(peak_hour=14.0, width=4.0, per_day=10.0)
    arr = poisson_arrivals(truth, 8, rng)
    days = np.arange(8 * 7)
    reposts = (T0 + days * DAY + 3 * HOUR + rng.uniform(0, 1800, (5, days.size))).ravel()
    allarr = np.concatenate([arr, reposts])
    novel = np.concatenate([np.ones(arr.size, bool), np.zeros(reposts.size, bool)])
    order = np.argsort(allarr)
    est, est_n = _two_estimators(allarr[order], novel[order], rng)
    lam, lam_n = day_profile(est.lambda_week()), day_profile(novel_lambda(est, est_n))
    assert int(np.argmax(lam)) == 3  # all items peak at the reposts
    assert int(np.argmax(lam_n)) != 3
    assert lam_n[3] < 0.3 * lam[3]
    assert abs(int(np.argmax(lam_n)) - 14) <= 2


def test_novel_lambda_with_no_novel_items_is_small_and_positive():
    rng = np.random.default_rng(23)
    arr = poisson_arrivals(peaked_lambda(per_day=6.0), 4, rng)
    est, est_n = _two_estimators(arr, np.zeros(arr.size, bool), rng, weeks=4)
    lam_n = novel_lambda(est, est_n)
    assert np.all(lam_n > 0)
    assert lam_n.sum() < 0.1 * est.lambda_week().sum()


def _counted(per_hour_all, per_hour_novel, weeks=5.0):
    """Two estimators whose evidence is the given counts per hour of day."""
    est = RateEstimator.from_lambda(np.tile(np.asarray(per_hour_all, float), 7) / weeks / 7, weeks)
    est_n = RateEstimator.from_lambda(
        np.tile(np.asarray(per_hour_novel, float), 7) / weeks / 7, weeks
    )
    return est, est_n


def test_adaptive_share_keeps_the_all_items_shape_when_the_counts_show_no_pattern():
    ca = np.where((np.arange(24) >= 8) & (np.arange(24) < 20), 40.0, 4.0)
    est, est_n = _counted(ca, 0.4 * ca)  # exactly 40 % novel at every hour
    lam, lam_n = est.lambda_week(), novel_lambda(est, est_n)
    share = est_n.rate_per_hour() / est.rate_per_hour()
    assert lam_n == pytest.approx(lam * share, rel=1e-9)
    # the fixed shrinkage gives the same here, with nothing to shrink
    assert novel_lambda(est, est_n, k=20.0) == pytest.approx(lam_n, rel=1e-9)


def test_adaptive_share_follows_a_clear_pattern_and_ignores_a_faint_one():
    ca = np.full(24, 40.0)
    clear = np.where((np.arange(24) >= 8) & (np.arange(24) < 20), 28.0, 8.0)  # 70 % vs 20 %
    faint = 0.5 * ca
    faint[3], faint[4] = 18.0, 22.0  # what sampling alone does
    est, est_c = _counted(ca, clear)
    _, est_f = _counted(ca, faint)
    lam_c = day_profile(novel_lambda(est, est_c))
    lam_f = day_profile(novel_lambda(est, est_f))
    # day over night: 3.5× in the counts, most of it kept
    assert lam_c[12] > 2.5 * lam_c[2]
    assert lam_f == pytest.approx(np.full(24, lam_f.mean()), rel=1e-9)  # X² < df: flat
    assert np.all(lam_c > 0) and np.all(lam_f > 0)
