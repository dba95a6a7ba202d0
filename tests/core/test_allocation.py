"""Budget split: Sia & Cho's √(w·λ) rule with Han et al.'s capacity floor."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartreader.core.allocation import (
    allocate,
    allocate_with_missed,
    capacity_floor,
    poisson_excess,
)


def test_square_root_rule_when_nothing_binds():
    rates = np.array([1.0, 4.0, 16.0, 64.0])
    k, starved = allocate(rates, np.ones(4), np.zeros(4), np.full(4, 1e6), 30.0)
    assert k.sum() == pytest.approx(30.0)
    assert k / k[0] == pytest.approx([1.0, 2.0, 4.0, 8.0], rel=1e-6)
    assert not starved.any()


def test_weight_enters_under_the_root():
    k, _ = allocate(np.array([4.0, 4.0]), np.array([1.0, 4.0]), np.zeros(2), np.full(2, 1e6), 9.0)
    assert k[1] / k[0] == pytest.approx(2.0)


def test_floors_and_ceilings_bind_and_the_rest_is_redistributed():
    rates = np.array([0.0001, 1.0, 100.0])
    floors = np.array([1.0, 0.0, 0.0])
    ceil = np.array([1e6, 1e6, 5.0])
    k, starved = allocate(rates, np.ones(3), floors, ceil, 20.0)
    assert k[0] == pytest.approx(1.0)
    assert k[2] == pytest.approx(5.0)
    assert k.sum() == pytest.approx(20.0)
    assert not starved.any()


def test_budget_is_never_exceeded_when_floors_cannot_be_met():
    floors = np.full(10, 2.0)
    k, starved = allocate(np.linspace(1, 10, 10), np.ones(10), floors, np.full(10, 100.0), 8.0)
    assert k.sum() <= 8.0 + 1e-9
    assert starved.any()
    assert (k > 0).all()


def test_capacity_floor_keeps_a_gap_within_the_window():
    # 200 items on the busiest day, a window of 20: with margin ½ a gap may hold ≤ 10
    assert capacity_floor(np.array([200.0]), np.array([20.0]), 0.5)[0] == pytest.approx(20.0)
    assert capacity_floor(np.array([200.0]), np.array([np.inf]), 0.5)[0] == 0.0


def test_capacity_floor_beats_the_square_root_share():
    rates = np.array([150.0, 20.0, 20.0, 20.0])
    floors = capacity_floor(rates, np.array([10.0, 20.0, 20.0, 20.0]), 0.5)
    k_plain, _ = allocate(rates, np.ones(4), np.zeros(4), np.full(4, 96.0), 40.0)
    k_cap, _ = allocate(rates, np.ones(4), floors, np.full(4, 96.0), 40.0)
    assert k_plain[0] < 30.0 <= k_cap[0] + 1e-9
    assert k_cap.sum() == pytest.approx(40.0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 500),  # rate
            st.floats(0.1, 10),  # weight
            st.floats(0, 20),  # floor
            st.floats(0.01, 200),  # ceiling
        ),
        min_size=1,
        max_size=30,
    ),
    st.floats(0, 2000),
)
def test_allocation_invariants(rows, budget):
    r, w, lo, hi = (np.array(c) for c in zip(*rows, strict=True))
    k, starved = allocate(r, w, lo, hi, budget)
    assert k.shape == r.shape
    assert (k >= 0).all()
    assert k.sum() <= budget * (1 + 1e-9) + 1e-9
    assert (k <= np.maximum(hi, 1e-9) * (1 + 1e-9)).all()
    if lo.sum() < budget * 0.999 and (np.minimum(lo, hi) == lo).all():
        assert not starved.any()


# ------------------------------------------------- budget below the floors


def test_poisson_excess_matches_the_direct_sum():

    for m, c in [(0.5, 20), (5.0, 3), (20.0, 20), (40.0, 21), (3.0, 0)]:
        direct = sum(
            (k - c) * math.exp(k * math.log(m) - m - math.lgamma(k + 1)) for k in range(c + 1, 400)
        )
        got = float(poisson_excess(np.array([m]), np.array([float(c)]))[0])
        assert got == pytest.approx(direct, rel=1e-6, abs=1e-9)


def _missed_alloc(budget, cost=0.5, caps=(21.0, 20.0, 20.0, 15.0)):

    rates = np.array([75.0, 10.0, 2.0, 0.2])  # items/day
    hourly = np.tile(rates[:, None] / 24.0, (1, 24))
    hourly[0, 6:18] *= 1.8  # the busy feed posts mostly by day
    hourly[0, :6] *= 0.2
    hourly[0, 18:] *= 0.2
    return allocate_with_missed(
        rates, np.ones(4), hourly, np.array(caps), np.full(4, 96.0), budget, cost
    )


@pytest.mark.parametrize("budget", [2.0, 4.0, 8.0, 20.0])
def test_missed_cost_allocation_stays_within_the_budget(budget):
    k = _missed_alloc(budget)
    assert k.sum() <= budget * (1 + 1e-9)
    assert (k > 0).all()
    # busier feeds never get fewer fetches
    assert (np.diff(k) <= 1e-9).all()


def test_an_overflowing_feed_gets_more_fetches_when_missing_costs_more():
    cheap, dear = _missed_alloc(6.0, cost=0.05), _missed_alloc(6.0, cost=2.0)
    assert dear[0] > cheap[0] * 1.2


def test_without_capacity_limits_it_is_the_square_root_rule():
    k = _missed_alloc(8.0, caps=(np.inf,) * 4)
    s = np.sqrt([75.0, 10.0, 2.0, 0.2])
    assert k / k.sum() == pytest.approx(s / s.sum(), rel=0.1)  # on a 64-point grid


def test_lost_items_that_do_not_count_cost_nothing():
    # Two feeds with the same novel rate (10/day, window 20): one posts only novel
    # items, the other also 70 reposts a day. Its reposts fill the window, so it
    # loses most items whatever it is given; with every lost item counted it takes
    # the budget; with only its novel share counted the split evens out.
    rates = np.array([10.0, 10.0])  # novel items/day: what delay is weighed by
    hourly = np.array([[10.0 / 24] * 24, [80.0 / 24] * 24])  # every item fills the window
    caps, ceil = np.array([20.0, 20.0]), np.full(2, 96.0)
    all_count = allocate_with_missed(rates, np.ones(2), hourly, caps, ceil, 3.0, 0.5)
    novel_only = allocate_with_missed(
        rates, np.ones(2), hourly, caps, ceil, 3.0, 0.5, miss_weights=np.array([1.0, 0.125])
    )
    assert all_count[1] > 1.5 * all_count[0]
    assert novel_only[1] < all_count[1]
    assert novel_only[1] / novel_only[0] < all_count[1] / all_count[0]
    assert novel_only.sum() <= 3.0 + 1e-9
