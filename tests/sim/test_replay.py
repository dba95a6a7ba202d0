"""Replay: the app's Scheduler against baselines on synthetic and real traces."""

from __future__ import annotations

import numpy as np
import pytest

from smartreader.core.scheduler import Scheduler
from smartreader.sim.cli import load
from smartreader.sim.policies import POLICIES, SchedulerPolicy
from smartreader.sim.replay import make_policy, replay, true_lambdas
from smartreader.sim.synthetic import SHAPES, generate, generate_with_lambdas
from tests.shared import TRACES

PORTFOLIO = TRACES / "dev-portfolio.csv"


@pytest.fixture(scope="module")
def synthetic():
    return generate(30, weeks=5, seed=3)


def test_generator_is_deterministic_and_power_law(synthetic):
    trace, caps = synthetic
    again, _ = generate(30, weeks=5, seed=3)
    assert all(np.array_equal(trace[k], again[k]) for k in trace)
    rates = np.sort([a.size / 35 for a in trace.values()])
    assert rates[-1] > 5 * np.median(rates)  # a few feeds post a lot
    assert set(caps.values()) <= {10, 20, 50}
    assert len(SHAPES) == 5


def test_every_policy_runs_and_the_smart_ones_share_the_app_class(synthetic):
    trace, _caps = synthetic
    for name in POLICIES:
        pol = make_policy(name, trace, 60.0, 0.0, 7 * 86400.0, 35 * 86400.0)
        if name in ("smart", "sia-offline", "oracle"):
            assert isinstance(pol, SchedulerPolicy) and type(pol.sched) is Scheduler


def test_smart_beats_fixed_at_the_same_budget_on_synthetic_feeds(synthetic):
    trace, caps = synthetic
    budget = 30 * 24 / 6.0
    log: list[tuple[str, float, int, float]] = []
    smart = replay(trace, caps, "smart", budget, warmup_days=14, fetch_log=log)
    fixed = replay(trace, caps, "fixed", budget, warmup_days=14)
    assert smart.fetches_per_day <= budget
    assert smart.mean_delay_min < 0.8 * fixed.mean_delay_min
    assert smart.missed <= fixed.missed
    assert smart.items == fixed.items > 0
    # the fetch log holds every fetch, in time order
    ts = [t for _, t, _, _ in log]
    assert ts == sorted(ts) and len(log) >= smart.fetches_per_day * 21


def test_true_lambdas_count_items_per_hour_of_week():
    t0 = 4 * 86400.0  # a Monday
    lam = true_lambdas({"f": np.array([t0 + 10, t0 + 20, t0 + 604800 + 30])}, t0, t0 + 2 * 604800)
    assert lam["f"][0] == pytest.approx(1.5)
    assert lam["f"].sum() == pytest.approx(1.5)


@pytest.mark.slow
@pytest.mark.skipif(not PORTFOLIO.exists(), reason="shared traces not present")
def test_real_trace_smart_vs_baselines_at_the_same_budget():
    """dev-portfolio at a 12 h average interval: ratios side by side in one run."""
    trace, caps = load(PORTFOLIO, TRACES / "dev-portfolio.feeds.csv")
    budget = len(trace) * 24 / 12.0
    res = {p: replay(trace, caps, p, budget) for p in ("smart", "fixed", "sia-offline")}
    s, f, so = res["smart"], res["fixed"], res["sia-offline"]
    assert s.fetches_per_day <= budget
    assert s.mean_delay_min <= 0.7 * f.mean_delay_min
    assert s.mean_delay_min < so.mean_delay_min
    assert s.missed <= f.missed
    assert s.precision >= 0.85 and s.recall >= 0.85


def test_the_generating_lambdas_are_what_the_posts_average_to():
    trace, caps, lams = generate_with_lambdas(8, weeks=40, seed=7)
    plain, plain_caps = generate(8, weeks=40, seed=7)
    assert all(np.array_equal(trace[k], plain[k]) for k in trace) and caps == plain_caps
    start = min(a.min() for a in trace.values() if a.size)
    start = np.floor(start / 86400.0) * 86400.0
    measured = true_lambdas(trace, start, start + 40 * 604800.0)
    for fid, lam in lams.items():
        assert lam.shape == (168,) and (lam >= 0).all()
        total = lam.sum() * 40
        if total > 400:  # enough posts for the weekly total to be within 15 %
            assert measured[fid].sum() == pytest.approx(lam.sum(), rel=0.15)
            # the busiest hours by λ hold more posts than the quietest ones
            order = np.argsort(lam)
            assert measured[fid][order[-24:]].sum() > measured[fid][order[:24]].sum()


def test_oracle_can_be_given_the_lambdas_it_plans_by():
    """``oracle_lambdas`` replaces what the oracle knows (not the λ measured over
    the span): told that every feed posts at 15:00 UTC, it plans a fetch just
    after."""
    trace, _caps = generate(3, weeks=4, seed=2)
    start, end = 0.0, 28 * 86400.0
    day = np.zeros(24)
    day[15] = 5.0
    told = dict.fromkeys(trace, np.tile(day, 7))
    pol = make_policy("oracle", trace, 6.0, start, start + 7 * 86400.0, end, None, told)
    plain = make_policy("oracle", trace, 6.0, start, start + 7 * 86400.0, end)
    assert isinstance(pol, SchedulerPolicy) and isinstance(plain, SchedulerPolicy)

    def share_at_15(lam: tuple[float, ...]) -> float:
        week = np.asarray(lam).reshape(7, 24)
        return float(week[:, 15].sum() / week.sum())

    for fid in trace:
        ex = pol.sched.explain(fid, start)
        assert share_at_15(ex.lambda_week) > 0.9
        # and it fetches when the 15:00 hour has passed
        assert any(abs(t % 86400.0 - 16 * 3600.0) < 60.0 for t in ex.planned)
        assert share_at_15(plain.sched.explain(fid, start).lambda_week) < 0.5
        assert 16 in {int(t % 86400.0 // 3600.0) for t in ex.planned}
