"""Cap-feasible slot plans (core/cells.py)."""

from __future__ import annotations

import numpy as np
import pytest

from smartreader.core.cells import fifo_capped, max_in_24h, optimise
from smartreader.core.estimator import DAY, HOUR, WEEK
from smartreader.core.schedule import expected_delays


def _weekday_feed(days: list[int], hour: int, rate: float) -> np.ndarray:
    lam = np.full(168, 0.01)
    for d in days:
        lam[d * 24 + hour : d * 24 + hour + 3] = rate
    return lam


def _feeds() -> tuple[list[np.ndarray], list[np.ndarray]]:
    # three feeds busy on different weekdays, each planned with more fetches on
    # its busy days: merged, some days hold more fetches than the cap allows
    lams = [
        _weekday_feed([0, 1, 2], 9, 4.0),
        _weekday_feed([0, 1], 15, 3.0),
        _weekday_feed([4, 5, 6], 20, 2.0),
    ]
    pats = [
        np.array([d * DAY + h * HOUR for d in (0, 1, 2) for h in (11, 12)] + [3 * DAY + 12 * HOUR]),
        np.array([d * DAY + 18 * HOUR for d in (0, 1)] + [2 * DAY + 18 * HOUR]),
        np.array([d * DAY + 23 * HOUR for d in (4, 5, 6)] + [3 * DAY + 23 * HOUR]),
    ]
    return lams, pats


def test_merged_plans_break_the_cap_and_fifo_costs_delay() -> None:
    lams, pats = _feeds()
    assert max_in_24h(pats) > 2
    late = fifo_capped(pats, 2)
    assert max_in_24h(late) <= 2
    rates = np.array([lam.sum() for lam in lams])
    before = rates @ expected_delays(lams, pats)
    after = rates @ expected_delays(lams, late)
    assert after > before


def test_optimised_plan_meets_the_cap_keeps_counts_and_beats_fifo() -> None:
    lams, pats = _feeds()
    plan = optimise(lams, pats, 2, min_gaps_s=[900.0] * 3)
    assert [p.size for p in plan.patterns] == [p.size for p in pats]
    assert max_in_24h(plan.patterns) <= 2
    # every fetch sits on one of the B slots' times of day
    tod = np.concatenate(plan.patterns) % DAY
    assert np.isin(np.round(tod), np.round(plan.slots_s)).all()
    rates = np.array([lam.sum() for lam in lams])
    fifo = rates @ expected_delays(lams, fifo_capped(pats, 2))
    cells = rates @ expected_delays(lams, plan.patterns)
    assert cells < fifo
    # its reported cost is the expected delay it was optimised for
    assert plan.cost == pytest.approx(cells, rel=1e-6)


def test_min_gap_between_a_feeds_own_fetches_is_kept() -> None:
    lam = np.zeros(168)
    lam[9] = 10.0  # a burst Monday 09:00: many fetches would cluster after it
    lam[24 + 9] = 10.0  # ... and Tuesday
    pats = [np.arange(10) * 0.7 * DAY + 10 * HOUR]
    free = optimise([lam], pats, 2)
    gaps_free = np.diff(np.sort(free.patterns[0]))
    assert (gaps_free < 6 * HOUR).any()  # unconstrained, two fetches follow a burst closely
    plan = optimise([lam], pats, 2, min_gaps_s=[6 * HOUR])
    p = np.sort(plan.patterns[0])
    gaps = np.diff(np.concatenate((p, [p[0] + WEEK])))
    assert (gaps >= 6 * HOUR - 1).all()


def test_too_many_fetches_for_the_budget_is_an_error_or_trimmed() -> None:
    lams = [np.ones(168), np.full(168, 0.01)]
    pats = [np.arange(10) * 0.7 * DAY, np.arange(7) * DAY]
    with pytest.raises(ValueError, match="do not fit"):
        optimise(lams, pats, 2)
    plan = optimise(lams, pats, 2, trim=True)
    # the three fetches dropped are the quiet feed's, which cost least
    assert [p.size for p in plan.patterns] == [10, 4]
    assert max_in_24h(plan.patterns) <= 2
