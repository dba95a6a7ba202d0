"""Fetch placement within a week (Sia & Cho Theorem 3) and its delay cost."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from smartreader.core.estimator import HOUR, NSLOTS, WEEK
from smartreader.core.schedule import expected_delay, expected_delays, place, sqrt_shape_factor


def peaked(peak=10.0, width=1.5, floor=0.02):
    h = np.arange(NSLOTS) % 24 + 0.5
    d = np.minimum(np.abs(h - peak), 24 - np.abs(h - peak))
    return floor + np.exp(-0.5 * (d / width) ** 2)


def uniform(n):
    return np.arange(n) * WEEK / n


def test_flat_rate_gives_half_the_interval():
    lam = np.ones(NSLOTS)
    for n in (1, 7, 14, 50):
        pat = place(lam, n)
        assert len(pat) == n
        assert expected_delay(lam, pat) == pytest.approx(WEEK / n / 2, rel=0.02)


def test_optimal_times_beat_uniform_on_a_peaked_rate():
    lam = peaked()
    for n in (7, 14, 28):
        opt = expected_delay(lam, place(lam, n))
        # a fixed interval with an arbitrary phase: averaged over phases
        uni = np.mean([expected_delay(lam, uniform(n) + s * HOUR) for s in range(24)])
        assert uni == pytest.approx(WEEK / n / 2, rel=0.02)
        assert opt < 0.6 * uni, (n, opt, uni)
        # the √λ asymptotics (Sia & Cho) bound what the optimum should reach
        assert opt <= uni * sqrt_shape_factor(lam) * 1.25


def test_one_fetch_a_day_lands_just_after_the_peak():
    lam = peaked(peak=10.0)
    pat = place(lam, 7)
    hours = (pat % 86400.0) / HOUR
    assert ((hours > 10.0) & (hours < 14.0)).all(), hours


@pytest.mark.parametrize(("n", "step"), [(2, 1), (3, 3)])
def test_matches_exhaustive_search_on_a_small_grid(n, step):
    rng = np.random.default_rng(n)
    lam = rng.gamma(0.7, 1.0, NSLOTS)
    got = expected_delay(lam, place(lam, n, bins=NSLOTS), bins=NSLOTS)
    # exhaustive over the hourly grid (n = 2), or a coarser one (n = 3)
    grid = np.arange(0, NSLOTS, step) * HOUR
    best = min(
        expected_delay(lam, np.array(c), bins=NSLOTS) for c in itertools.combinations(grid, n)
    )
    assert got <= best * 1.0001
    if step == 1:
        assert got == pytest.approx(best)


def test_theorem_3_balance_at_the_optimum():
    """λ(t_j)·(t_{j+1} − t_j) ≈ ∫_{t_{j-1}}^{t_j} λ for a smooth rate."""
    lam = peaked(width=4.0, floor=0.3)
    pat = place(lam, 14)
    lam_at = lambda t: lam[int((t % WEEK) // HOUR)]  # noqa: E731
    cum = np.concatenate(([0.0], np.cumsum(np.tile(lam, 2)))) * HOUR

    def integral(a, b):
        def c(x):
            i = int(x // HOUR)
            return cum[i] + (x - i * HOUR) * lam[i % NSLOTS]

        return c(b) - c(a)

    ts = np.concatenate((pat, [pat[0] + WEEK]))
    errs = []
    for j in range(1, len(pat)):
        lhs = lam_at(ts[j]) * (ts[j + 1] - ts[j])
        rhs = integral(ts[j - 1], ts[j])
        errs.append(abs(lhs - rhs) / rhs)
    assert np.median(errs) < 0.15


def test_min_gap_is_respected():
    lam = peaked(width=0.5, floor=0.001)
    gap = 3 * HOUR
    pat = np.sort(place(lam, 40, min_gap_s=gap))
    d = np.diff(np.concatenate((pat, [pat[0] + WEEK])))
    assert (d >= gap - 1e-6).all()
    assert len(pat) <= WEEK // gap


def test_warm_start_does_not_make_things_worse():
    lam = peaked()
    base = place(lam, 10)
    again = place(lam, 10, init=base + 3 * HOUR)
    assert expected_delay(lam, again) <= expected_delay(lam, base) * 1.02


def test_expected_delays_in_one_batch_equal_one_by_one():
    rng = np.random.default_rng(7)
    lams = [rng.gamma(0.7, 1.0, NSLOTS) for _ in range(40)]
    pats = [np.sort(rng.uniform(0, WEEK, rng.integers(1, 30))) for _ in range(40)]
    pats[3] = np.array([])  # a feed without a plan
    lams[4] = np.zeros(NSLOTS)  # a feed that never posts
    pats[5] = np.array([WEEK - 1.0, 0.0, 167.99 * HOUR])  # unsorted, at the week's edge
    one = np.array([expected_delay(lam, p) for lam, p in zip(lams, pats, strict=True)])
    assert expected_delays(lams, pats) == pytest.approx(one, rel=1e-9, abs=1e-6)
